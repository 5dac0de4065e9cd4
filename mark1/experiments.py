"""Experiments: the machine beside the textbook classifiers, learning curves, ablations.

Three protocols, each over several seeds, each seed a new patch board, new cards and
new noise (one integer per run, split with :class:`numpy.random.SeedSequence` by
``mark1.runs.experiment_seeds`` into training cards, test cards and machine):

:func:`compare`
    Train the analog machine, the ideal machine on the same wiring, the digital
    perceptron on the raw S-units and least squares / Fisher / Gaussian on the S-units
    and on the A-unit outputs φ; score everything on the test cards.
:func:`learning_curves`
    Test accuracy against cards presented and against machine time (hours), analog
    and ideal, with a band over seeds.
:func:`ablate`
    Every non-ideality of the scene's machine alone on the ideal machine, and alone off
    the full machine: which one costs most, in accuracy and in machine time.

Each seed's work is a top-level function of (scene file, seed, what to run), so seeds
may run on any :class:`concurrent.futures.Executor` (the CLI uses a process pool) with
results identical to a serial run, bit for bit (wall times aside). With ``out``,
:func:`compare` writes every seed's record as it finishes (atomically) and a
resumed run skips seeds already recorded; the final files are written at the end.

>>> from mark1.scenes import load_scene
>>> from mark1 import experiments
>>> comp = experiments.compare(load_scene("scenes/demo.toml"), seeds=3)   # doctest: +SKIP
>>> print(comp.table())                                                   # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import time
import warnings
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .atomic import write_text
from .runs import experiment_seeds, jsonable, progress_bar, scene_cards

__all__ = [
    "LEARNERS",
    "Comparison",
    "LearningCurves",
    "Ablation",
    "compare",
    "learning_curves",
    "ablate",
    "add_commands",
    "process_pool",
]

#: Every learner :func:`compare` knows, in the order of its tables.
LEARNERS = (
    "mark1",          # the analog machine, scene.machine_spec()
    "ideal",          # spec.ideal() on the same wiring (same machine seed)
    "perceptron-S",   # digital perceptron on the raw S-units
    "lstsq-S", "fisher-S", "gauss-S",
    "lstsq-phi", "fisher-phi", "gauss-phi",
)

_MACHINES = ("mark1", "ideal")

#: Fields of one row of ``results.csv`` (one learner on one seed).
RECORD_FIELDS = ("learner", "seed", "test_accuracy", "train_accuracy", "cards_seen",
                 "machine_time_s", "wall_time_s", "seed_train", "seed_test", "seed_machine", "note", "error")

_RECORD_VERSION = 1


# ----------------------------------------------------------------------------------------
# shared helpers


_SCENES: dict = {}


def _as_scene(scene):
    """A Scene from a Scene or a path (loaded once per process and file version)."""
    from .scenes import Scene, load_scene
    if isinstance(scene, Scene):
        return scene
    if isinstance(scene, (str, os.PathLike)):
        p = Path(scene)
        try:
            key = (str(p.resolve()), p.stat().st_mtime_ns)
        except OSError:
            return load_scene(scene)                   # raises the SceneError for a bad path
        if key not in _SCENES:
            _SCENES[key] = load_scene(scene)
        return _SCENES[key]
    raise ValueError(f"scene: expected a mark1.scenes.Scene or a scene file path, got {type(scene).__name__}")


def _scene_ref(scene):
    """What a worker needs to rebuild the scene: its absolute file path, or the Scene itself."""
    return str(Path(scene.path).resolve()) if scene.path else scene


def _scene_digest(scene) -> str | None:
    """SHA-256 of the scene file (so a resumed run notices an edited scene)."""
    if not scene.path:
        return None
    try:
        return hashlib.sha256(Path(scene.path).read_bytes()).hexdigest()
    except OSError:
        return None


def _seed_list(seeds) -> list[int]:
    if isinstance(seeds, (bool, np.bool_)):
        raise ValueError(f"seeds: expected a positive integer or a list of seeds, got {seeds!r}")
    if isinstance(seeds, (int, np.integer)):
        if seeds < 1:
            raise ValueError(f"seeds: expected a positive integer, got {seeds!r}")
        return list(range(int(seeds)))
    out = []
    for s in seeds:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"seeds: expected non-negative integers, got {s!r}")
        out.append(int(s))
    if not out or len(set(out)) != len(out):
        raise ValueError(f"seeds: expected distinct seeds, at least one, got {list(seeds)!r}")
    return out


def _count(value, name) -> int | None:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name}: expected a positive integer or None, got {value!r}")
    return int(value)


def _stats(values: Sequence[float | None]) -> dict[str, Any]:
    """mean, sample std (ddof=1; None for a single value), n, min, max of the non-None values."""
    v = np.array([x for x in values if x is not None], dtype=float)
    if len(v) == 0:
        return {"mean": None, "std": None, "n": 0, "min": None, "max": None}
    return {"mean": float(v.mean()), "std": float(v.std(ddof=1)) if len(v) > 1 else None,
            "n": int(len(v)), "min": float(v.min()), "max": float(v.max())}


def _run_jobs(fn: Callable, jobs: list[tuple], executor: Executor | None,
              on_done: Callable[[int, Any], None] | None = None) -> list:
    """Run ``fn(*job)`` for every job, serially or on ``executor``; results in job order."""
    results: list = [None] * len(jobs)
    if executor is None:
        for i, job in enumerate(jobs):
            results[i] = fn(*job)
            if on_done is not None:
                on_done(i, results[i])
        return results
    futures = {executor.submit(fn, *job): i for i, job in enumerate(jobs)}
    try:
        for fut in as_completed(futures):
            i = futures[fut]
            results[i] = fut.result()
            if on_done is not None:
                on_done(i, results[i])
    except BaseException:
        for fut in futures:
            fut.cancel()
        raise
    return results


def _stimuli(scene, seed: int, train_count, test_count):
    train, test, _ = scene_cards(scene, seed, train_count=train_count, test_count=test_count)
    return train, test, experiment_seeds(seed)


def cards_to_final_accuracy(history: np.ndarray, n_cards: int, final_accuracy: float) -> int:
    """Presentations before the machine first held its final training accuracy.

    The online record ``history["correct"]`` is read in windows of ``n_cards``
    consecutive presentations (one epoch's worth). The answer is the number of
    presentations before the first window whose accuracy is at least
    ``final_accuracy``. For the ideal machine on a cyclic order with a separable
    training set this is exact: the presentation after which the weights stopped
    changing. When no window qualifies (one epoch only, or the final accuracy was never
    matched online), the total number of presentations.
    """
    correct = np.asarray(history["correct"], dtype=np.int64)
    n_pres = len(correct)
    if n_cards < 1 or n_pres < n_cards:
        return int(n_pres)
    cs = np.concatenate([[0], np.cumsum(correct)])
    window = (cs[n_cards:] - cs[:-n_cards]) / n_cards          # window starting at j
    hit = np.flatnonzero(window >= final_accuracy - 1e-12)
    return int(hit[0]) if len(hit) else int(n_pres)


# ----------------------------------------------------------------------------------------
# compare


@dataclass
class Comparison:
    """Learners side by side on one scene, over seeds.

    Attributes
    ----------
    scene : str
        The scene's name.
    scene_file : str or None
    learners : list of str
    seeds : list of int
    records : list of dict
        One per learner and seed (fields :data:`RECORD_FIELDS`): ``test_accuracy`` and
        ``train_accuracy`` as fractions, ``cards_seen`` (machines: presentations before
        the final training accuracy was first held, see :func:`cards_to_final_accuracy`;
        other learners None), ``machine_time_s`` (machines only, seconds of machine
        time), ``wall_time_s`` (seconds of this computer's time for fit and score).
    reported : dict
        The scene's historical figure: source, conditions, value, note.
    config : dict
        What identifies the run (scene digest, card counts, schedule).
    """

    scene: str
    scene_file: str | None
    learners: list
    seeds: list
    records: list
    reported: dict
    config: dict = field(default_factory=dict)

    def summary(self) -> dict[str, dict[str, Any]]:
        """learner → {mean, std, n, min, max} of test accuracy, plus means of the rest.

        ``std`` is the sample standard deviation over seeds (None for one seed). Extra
        keys: ``train_mean``, ``cards_seen_mean``, ``machine_time_h_mean``,
        ``wall_time_s_mean`` (None where a learner has no such figure).
        """
        out = {}
        for name in self.learners:
            rows = [r for r in self.records if r["learner"] == name]
            s = _stats([r["test_accuracy"] for r in rows])
            s["train_mean"] = _stats([r["train_accuracy"] for r in rows])["mean"]
            s["cards_seen_mean"] = _stats([r["cards_seen"] for r in rows])["mean"]
            mt = _stats([r["machine_time_s"] for r in rows])["mean"]
            s["machine_time_h_mean"] = None if mt is None else mt / 3600.0
            s["wall_time_s_mean"] = _stats([r["wall_time_s"] for r in rows])["mean"]
            errors = sorted({r["error"] for r in rows if r.get("error")})
            if errors:
                s["errors"] = errors
            out[name] = s
        return out

    def table(self) -> str:
        """A plain-text table: test accuracy mean ± std per learner and the other figures."""
        summ = self.summary()
        head = ("learner", "test acc", "± std", "train acc", "cards seen", "machine h", "wall s")
        rows = []
        for name, s in summ.items():
            rows.append((name, _pct(s["mean"]), _pct(s["std"]), _pct(s["train_mean"]),
                         _num(s["cards_seen_mean"], "{:.0f}"), _num(s["machine_time_h_mean"], "{:.3f}"),
                         _num(s["wall_time_s_mean"], "{:.3f}")))
        widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
        lines = ["  ".join(f"{c:<{w}}" if i == 0 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(r, widths)))
                 for r in (head, *rows)]
        lines.insert(1, "  ".join("-" * w for w in widths))
        rep = self.reported
        lines.append("")
        lines.append(f"{self.scene}: {len(self.seeds)} seed(s); reported "
                     + (f"{rep['value']:.1%}" if rep.get("value") is not None else "no figure")
                     + f" ({rep.get('source', '')})")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"scene": self.scene, "scene_file": self.scene_file, "learners": list(self.learners),
                "seeds": list(self.seeds), "config": self.config, "reported": self.reported,
                "records": self.records, "summary": self.summary()}


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def _num(x, fmt) -> str:
    return "-" if x is None else fmt.format(x)


def _check_learners(learners) -> list[str]:
    if learners is None:
        return list(LEARNERS)
    if isinstance(learners, str):
        learners = [x.strip() for x in learners.split(",") if x.strip()]
    learners = list(learners)
    for name in learners:
        if name not in LEARNERS:
            raise ValueError(f"learners: unknown learner {name!r}; known: {', '.join(LEARNERS)}")
    if not learners:
        raise ValueError(f"learners: expected at least one of {', '.join(LEARNERS)}")
    return [n for n in LEARNERS if n in learners]                 # canonical order, no duplicates


def _baseline(name: str, schedule, seed: int):
    """A fresh textbook classifier for learner ``name``.

    The digital perceptron gets the machine's budget: at most the scene's epochs, in the
    scene's order (shuffled with the machine seed when the scene shuffles); it stops
    early after an epoch without a mistake.
    """
    from . import baselines
    kind = name.split("-")[0]
    if kind == "perceptron":
        return baselines.Perceptron(epochs=schedule.epochs, shuffle=schedule.order == "shuffled", seed=seed)
    return {"lstsq": baselines.LeastSquaresClassifier, "fisher": baselines.FisherDiscriminant,
            "gauss": baselines.GaussianClassifier}[kind]()


def _fit_note(clf) -> str | None:
    """What a baseline did beyond the textbook formula (shrinkage of a singular covariance)."""
    s = getattr(clf, "shrinkage_", None)
    if s is not None and np.any(np.asarray(s) > 0):
        return f"shrinkage {float(np.max(s)):g}"
    if getattr(clf, "converged_", None) is False:
        return f"not separated in {clf.n_epochs_} epochs"
    return None


def run_seed(scene_ref, seed: int, learners: Sequence[str], train_count: int | None = None,
             test_count: int | None = None) -> dict:
    """One seed of :func:`compare`: every learner trained and scored on the same cards.

    A pure function of its arguments (top level, so a process pool can run it).

    Parameters
    ----------
    scene_ref : str or Scene
        The scene file (absolute path) or the scene.
    seed : int
        The run's seed; split into training cards, test cards and machine seeds.
    learners : sequence of str
        Names from :data:`LEARNERS`.
    train_count, test_count : int or None
        Card counts instead of the scene's.

    Returns
    -------
    dict
        ``{"seed", "seeds": {train, test, machine}, "results": [row per learner]}``.
    """
    from . import baselines
    from .machine import MarkI

    scene = _as_scene(scene_ref)
    train, test, (s_train, s_test, s_machine) = _stimuli(scene, seed, train_count, test_count)
    spec = scene.machine_spec()
    sched = scene.schedule
    base = {"seed": int(seed), "seed_train": s_train, "seed_test": s_test, "seed_machine": s_machine}
    rows = []

    def row(name, **kw):
        r = dict(learner=name, **base, test_accuracy=None, train_accuracy=None, cards_seen=None,
                 machine_time_s=None, wall_time_s=None, note=None, error=None)
        r.update(kw)
        rows.append(r)

    ideal = MarkI(spec=spec.ideal(), seed=s_machine)
    for name, m in (("mark1", MarkI(spec=spec, seed=s_machine)), ("ideal", ideal)):
        if name not in learners:
            continue
        t0 = time.perf_counter()
        m.fit(train.cards, train.labels, epochs=sched.epochs, order=sched.order)
        train_acc = m.score(train.cards, train.labels)
        test_acc = m.score(test.cards, test.labels)
        wall = time.perf_counter() - t0
        row(name, test_accuracy=test_acc, train_accuracy=train_acc,
            cards_seen=cards_to_final_accuracy(m.history_, len(train.cards), train_acc),
            machine_time_s=float(m.machine_time_), wall_time_s=wall)

    others = [n for n in learners if n not in _MACHINES]
    if others:
        # features of the ideal retina and the same patch board (independent of training)
        s_tr, s_te = ideal.sense(train.cards), ideal.sense(test.cards)
        feats = {"S": (s_tr.astype(float), s_te.astype(float))}
        if any(n.endswith("-phi") for n in others):
            feats["phi"] = (ideal.associate(s_tr).astype(float), ideal.associate(s_te).astype(float))
        for name in others:
            x_tr, x_te = feats[name.split("-")[1]]
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                # binary S and φ make singular covariances the rule: the shrinkage used is
                # recorded in the note instead of a warning per seed
                warnings.simplefilter("ignore", baselines.SingularCovarianceWarning)
                clf = _baseline(name, sched, s_machine).fit(x_tr, train.labels)
            train_acc = float(clf.score(x_tr, train.labels))
            test_acc = float(clf.score(x_te, test.labels))
            row(name, test_accuracy=test_acc, train_accuracy=train_acc,
                wall_time_s=time.perf_counter() - t0, note=_fit_note(clf))
    return {"seed": int(seed), "seeds": {"train": s_train, "test": s_test, "machine": s_machine},
            "results": rows}


def compare(scene, *, seeds=10, learners=None, executor: Executor | None = None, out=None,
            resume: bool = False, progress: bool = False, train_count: int | None = None,
            test_count: int | None = None) -> Comparison:
    """The machine beside the textbook classifiers on one scene, over seeds.

    For each seed (a new patch board, new cards, new noise) every learner is trained on
    the scene's training cards and scored on its test cards:

    ``mark1``
        the analog machine (``scene.machine_spec()``), the scene's epochs and order;
    ``ideal``
        ``spec.ideal()`` with the same machine seed, so the same wiring;
    ``perceptron-S``
        :class:`mark1.baselines.Perceptron` on the S-units of the ideal retina;
    ``lstsq-S``, ``fisher-S``, ``gauss-S``, ``lstsq-phi``, ``fisher-phi``, ``gauss-phi``
        least squares, Fisher and Gaussian classifiers on the S-units and on the A-unit
        outputs φ of the ideal machine's patch board.

    Parameters
    ----------
    scene : Scene or str
        A scene or a scene file.
    seeds : int or sequence of int
        ``n`` means seeds ``0 .. n-1``.
    learners : sequence of str or comma-separated str, optional
        A subset of :data:`LEARNERS` (default: all).
    executor : concurrent.futures.Executor, optional
        Runs the seeds (default: serially in this process). Results do not depend on it.
    out : str or path-like, optional
        Folder for ``seeds/seed-NNNN.json`` (written as each seed finishes),
        ``results.csv``, ``results.json``, ``accuracy.png`` and ``report.md`` (at the
        end). Every file is written atomically.
    resume : bool
        Skip seeds whose record in ``out/seeds`` exists and matches this run.
    progress : bool
        A progress bar over seeds (tqdm), only on a terminal and outside CI.
    train_count, test_count : int, optional
        Card counts instead of the scene's (for quick runs and tests).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        For an unknown learner (naming the known ones), bad seeds or counts;
        :class:`mark1.scenes.SceneError` for a bad scene.
    """
    scene = _as_scene(scene)
    names = _check_learners(learners)
    seed_ids = _seed_list(seeds)
    train_count = _count(train_count, "train_count")
    test_count = _count(test_count, "test_count")
    if resume and out is None:
        raise ValueError("resume: needs out, the folder of the run to resume")
    config = {"version": _RECORD_VERSION, "scene": scene.name, "scene_sha256": _scene_digest(scene),
              "learners": names, "train_count": train_count, "test_count": test_count,
              "epochs": scene.schedule.epochs, "order": scene.schedule.order}
    out = Path(out) if out is not None else None

    done: dict[int, dict] = {}
    if out is not None and resume:
        for s in seed_ids:
            rec = _read_seed_record(out, s, config)
            if rec is not None:
                done[s] = rec
    todo = [s for s in seed_ids if s not in done]

    ref = _scene_ref(scene)
    bar = progress_bar(len(todo), "seeds") if progress else None

    def finished(i, rec):
        if out is not None:
            _write_seed_record(out, rec, config)
        if bar is not None:
            bar.update(1)

    try:
        fresh = _run_jobs(run_seed, [(ref, s, names, train_count, test_count) for s in todo],
                          executor, finished)
    finally:
        if bar is not None:
            bar.close()
    done.update(zip(todo, fresh))

    records = [r for s in seed_ids for r in done[s]["results"]]
    rep = scene.reported
    comp = Comparison(scene=scene.name, scene_file=scene.path, learners=names, seeds=seed_ids,
                      records=records, config=config,
                      reported={"source": rep.source, "conditions": rep.conditions, "value": rep.value,
                                "note": rep.note})
    if out is not None:
        _write_comparison(comp, out, scene)
    return comp


def _seed_path(out: Path, seed: int) -> Path:
    return out / "seeds" / f"seed-{seed:04d}.json"


def _write_seed_record(out: Path, rec: dict, config: dict) -> None:

    write_text(_seed_path(out, rec["seed"]), json.dumps({"config": config, **rec}, indent=1) + "\n")


def _read_seed_record(out: Path, seed: int, config: dict) -> dict | None:
    """The stored record of one seed, or None when absent, unreadable or from another run."""
    try:
        data = json.loads(_seed_path(out, seed).read_text())
    except (OSError, ValueError):
        return None
    try:
        if data.get("config") != config or data.get("seed") != seed:
            return None
        if list(data["seeds"].values()) != list(experiment_seeds(seed)):
            return None
        results = data["results"]
        if [r["learner"] for r in results] != config["learners"]:
            return None
        for r in results:
            if not all(k in r for k in RECORD_FIELDS):
                return None
            acc = r["test_accuracy"]
            if r["error"] is None and not (isinstance(acc, (int, float)) and 0.0 <= acc <= 1.0):
                return None
    except (AttributeError, KeyError, TypeError):
        return None
    return {"seed": seed, "seeds": data["seeds"], "results": results}


def _csv_text(rows: list[dict], fields: Sequence[str]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fields), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in fields})
    return buf.getvalue()


def _write_comparison(comp: Comparison, out: Path, scene) -> None:

    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "results.csv", _csv_text(comp.records, RECORD_FIELDS))
    write_text(out / "results.json", json.dumps(jsonable(comp.to_json()), indent=1) + "\n")
    figures = []
    try:
        from .plotting import comparison_figure
    except ImportError:                                   # plotting not there: no figure
        comparison_figure = None
    if comparison_figure is not None:
        comparison_figure(comp, out=out / "accuracy.png")
        figures.append(("accuracy.png", "Test accuracy of every learner, one dot per seed"))
    write_text(out / "report.md", _report_md(comp, scene, figures))


def _report_md(comp: Comparison, scene, figures) -> str:
    summ = comp.summary()
    rep = comp.reported
    rep_txt = f"{rep['value']:.1%}" if rep.get("value") is not None else "no figure"
    cfg = comp.config
    lines = [f"# {comp.scene}: the machine beside the textbook classifiers", ""]
    lines.append(f"Scene file `{comp.scene_file}`; seeds {', '.join(map(str, comp.seeds))} "
                 f"(each a new patch board, new cards, new noise); "
                 f"{scene.schedule.epochs} epochs, {scene.schedule.order} order, rule "
                 f"{scene.machine_spec().trainer.rule}."
                 + (f" Card counts overridden: train {cfg['train_count']}, test {cfg['test_count']}."
                    if cfg.get("train_count") or cfg.get("test_count") else ""))
    lines.append("")
    lines.append(f"**Reported:** {rep_txt} — {rep.get('source', '')}"
                 + (f"; {rep['conditions']}" if rep.get("conditions") else "")
                 + (f" ({rep['note']})" if rep.get("note") else ""))
    lines.append("")
    lines.append("| learner | test accuracy (mean ± std) | min – max | train accuracy | cards seen "
                 "| machine time (h) | wall time (s) | reported |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for name, s in summ.items():
        acc = "n/a" if s["mean"] is None else (f"{s['mean']:.1%} ± {s['std']:.1%}" if s["std"] is not None
                                               else f"{s['mean']:.1%}")
        rng = "" if s["mean"] is None else f"{s['min']:.1%} – {s['max']:.1%}"
        beside = rep_txt if name == "mark1" else ""
        lines.append(f"| {name} | {acc} | {rng} | {_pct(s['train_mean'])} | "
                     f"{_num(s['cards_seen_mean'], '{:.0f}')} | {_num(s['machine_time_h_mean'], '{:.3f}')} | "
                     f"{_num(s['wall_time_s_mean'], '{:.3f}')} | {beside} |")
    errs = {n: s["errors"] for n, s in summ.items() if s.get("errors")}
    if errs:
        lines.append("")
        for n, e in errs.items():
            lines.append(f"- {n}: {'; '.join(e)}")
    lines.append("")
    lines.append("std is the sample standard deviation over seeds. *Cards seen*: presentations before "
                 "the machine first held its final training accuracy over one epoch's worth of "
                 "consecutive cards. *Machine time*: the simulated Mark I's clock. *Wall time*: this "
                 "computer, fit and score only. S: S-unit states of the ideal retina; "
                 "phi: A-unit outputs of the same patch board.")
    for fname, caption in figures:
        lines += ["", f"![{caption}]({fname})"]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------
# learning curves


@dataclass
class LearningCurves:
    """Test accuracy against cards presented and machine time, for analog and ideal.

    Every checkpoint is a machine trained afresh for ``epochs[j]`` epochs with the same
    seeds; by construction its presentations are exactly the first ``cards[j]`` of the
    full schedule (the order stream draws one permutation per epoch, in turn), so a
    checkpoint is the machine at that point of the full run, scored on the test cards.

    Attributes
    ----------
    scene : str
    seeds : list of int
    epochs : array (P,) int
        Epochs trained at each checkpoint, increasing.
    cards : array (P,) int
        Presentations at each checkpoint (``epochs * n_train``), increasing.
    accuracy : dict of str to array (S, P)
        Test accuracy per variant (``"analog"``, ``"ideal"``), one row per seed.
    train_accuracy : dict of str to array (S, P)
    machine_hours : dict of str to array (S, P)
        Machine time of the training up to each checkpoint, in hours.
    reported : float or None
        The scene's historical figure.
    """

    scene: str
    seeds: list
    epochs: np.ndarray
    cards: np.ndarray
    accuracy: dict
    train_accuracy: dict
    machine_hours: dict
    reported: float | None = None

    @property
    def variants(self) -> list[str]:
        return list(self.accuracy)


def curve_job(scene_ref, seed: int, variant: str, checkpoints: Sequence[int],
              train_count: int | None = None, test_count: int | None = None) -> dict:
    """One seed and variant of :func:`learning_curves` (top level, picklable)."""
    from .machine import MarkI

    scene = _as_scene(scene_ref)
    train, test, (_, _, s_machine) = _stimuli(scene, seed, train_count, test_count)
    spec = scene.machine_spec()
    spec = spec if variant == "analog" else spec.ideal()
    acc, tacc, hours, cards = [], [], [], []
    for k in checkpoints:
        m = MarkI(spec=spec, seed=s_machine).fit(train.cards, train.labels, epochs=int(k),
                                                  order=scene.schedule.order)
        tacc.append(m.score(train.cards, train.labels))     # train first, as compare and `mark1 run`
        acc.append(m.score(test.cards, test.labels))
        hours.append(m.machine_time_ / 3600.0)
        cards.append(len(m.history_))
    return {"accuracy": acc, "train_accuracy": tacc, "machine_hours": hours, "cards": cards}


def learning_curves(scene, *, seeds=3, points: int = 10, executor: Executor | None = None,
                    train_count: int | None = None, test_count: int | None = None) -> LearningCurves:
    """Test accuracy against cards presented and machine hours, analog and ideal.

    Checkpoints are whole epochs, ``points`` of them spread evenly over ``1 ..
    scene.schedule.epochs`` (fewer when the schedule has fewer epochs). At each one a
    machine is trained afresh for that many epochs with the run's seeds and scored on
    the test cards. Training for ``k`` epochs presents exactly the first ``k`` epochs of
    the full schedule (cyclic: the same cards; shuffled: the order stream draws the
    epochs' permutations in turn), so each point is the full run stopped there - exact,
    at the cost of about ``points / 2`` full runs. Only the read noise of the test
    answers differs from reading the full run's wipers mid-way (it is drawn after
    training).

    Parameters
    ----------
    scene : Scene or str
    seeds : int or sequence of int
    points : int
        Most checkpoints wanted.
    executor : concurrent.futures.Executor, optional
    train_count, test_count : int, optional

    Returns
    -------
    LearningCurves
    """
    scene = _as_scene(scene)
    seed_ids = _seed_list(seeds)
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 1:
        raise ValueError(f"points: expected a positive integer, got {points!r}")
    train_count = _count(train_count, "train_count")
    test_count = _count(test_count, "test_count")
    n_ep = scene.schedule.epochs
    checkpoints = np.unique(np.round(np.linspace(1, n_ep, min(int(points), n_ep))).astype(int))
    variants = ("analog", "ideal")
    ref = _scene_ref(scene)
    jobs = [(ref, s, v, checkpoints.tolist(), train_count, test_count) for v in variants for s in seed_ids]
    res = _run_jobs(curve_job, jobs, executor)
    out: dict[str, dict] = {"accuracy": {}, "train_accuracy": {}, "machine_hours": {}}
    for vi, v in enumerate(variants):
        block = res[vi * len(seed_ids):(vi + 1) * len(seed_ids)]
        for key in out:
            out[key][v] = np.array([r[key] for r in block], dtype=float)
    cards = np.array(res[0]["cards"], dtype=np.int64)
    return LearningCurves(scene=scene.name, seeds=seed_ids, epochs=checkpoints, cards=cards,
                          accuracy=out["accuracy"], train_accuracy=out["train_accuracy"],
                          machine_hours=out["machine_hours"], reported=scene.reported.value)


# ----------------------------------------------------------------------------------------
# ablation


@dataclass
class Ablation:
    """Each non-ideality alone on the ideal machine and alone off the full machine.

    Attributes
    ----------
    scene : str
    seeds : list of int
    rows : list of dict
        One per variant: ``variant`` (e.g. ``"on:backlash"``), ``kind`` (``"reference"``,
        ``"on_alone"``, ``"off_alone"``), ``non_ideality`` (None for the references
        ``full`` and ``ideal``), ``test_mean``, ``test_std``, ``n``, ``train_mean``,
        ``machine_time_h_mean``, ``machine_time_h_std``, ``same_as`` (the variant with
        an identical machine whose runs were reused, or None), ``test_accuracy`` and
        ``machine_time_s`` (one per seed).
    non_idealities : list of str
    """

    scene: str
    seeds: list
    rows: list
    non_idealities: list

    def row(self, variant: str) -> dict:
        for r in self.rows:
            if r["variant"] == variant:
                return r
        raise KeyError(variant)

    def table(self) -> str:
        full, ideal = self.row("full"), self.row("ideal")
        head = ("non-ideality", "on alone", "cost", "off alone", "gain", "time on (h)", "time off (h)")
        rows = [("(ideal / full)", _pct(ideal["test_mean"]), "", _pct(full["test_mean"]), "",
                 _num(ideal["machine_time_h_mean"], "{:.3f}"), _num(full["machine_time_h_mean"], "{:.3f}"))]
        for n in self.non_idealities:
            on, off = self.row(f"on:{n}"), self.row(f"off:{n}")
            rows.append((n, _pct(on["test_mean"]), _signed(ideal["test_mean"] - on["test_mean"]),
                         _pct(off["test_mean"]), _signed(off["test_mean"] - full["test_mean"]),
                         _num(on["machine_time_h_mean"], "{:.3f}"), _num(off["machine_time_h_mean"], "{:.3f}")))
        widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
        lines = ["  ".join(f"{c:<{w}}" if i == 0 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(r, widths)))
                 for r in (head, *rows)]
        lines.insert(1, "  ".join("-" * w for w in widths))
        lines.append("")
        lines.append(f"{self.scene}: test accuracy, mean of {len(self.seeds)} seed(s). cost = ideal - "
                     f"(ideal + it); gain = (full - it) - full.")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"scene": self.scene, "seeds": self.seeds, "non_idealities": self.non_idealities,
                "rows": self.rows}


def _signed(x) -> str:
    return f"{x * 100:+.1f} pt"


ABLATION_FIELDS = ("variant", "kind", "non_ideality", "test_mean", "test_std", "n", "train_mean",
                   "machine_time_h_mean", "machine_time_h_std", "same_as")


def ablation_variants(spec) -> list[tuple[str, str, str | None, Any]]:
    """(variant, kind, non-ideality, MachineSpec) for :func:`ablate`, references first.

    The non-idealities are those of :data:`mark1.specs.NON_IDEALITIES` that ``spec`` has
    on, plus ``"ratchet"`` always: when the spec drives its pots continuously, the
    ratchet's "on alone" is the ideal machine with ``rack.drive = "ratchet"`` and its
    "off alone" is the full machine itself.
    """
    from .specs import NON_IDEALITIES
    names = [n for n in NON_IDEALITIES if spec.is_on(n)]
    if "ratchet" not in names:
        names.append("ratchet")
    out = [("full", "reference", None, spec), ("ideal", "reference", None, spec.ideal())]
    for n in names:
        if n == "ratchet" and not spec.is_on("ratchet"):
            on = spec.ideal().with_overrides({"rack.drive": "ratchet"})
        else:
            on = spec.only(n)
        out.append((f"on:{n}", "on_alone", n, on))
        out.append((f"off:{n}", "off_alone", n, spec.without(n)))
    return out


def _spec_key(spec) -> str:
    d = spec.to_dict()
    d.pop("name", None)
    return json.dumps(jsonable(d), sort_keys=True)


def ablation_job(scene_ref, seed: int, spec, train_count: int | None = None,
                 test_count: int | None = None) -> dict:
    """One seed of one machine variant of :func:`ablate` (top level, picklable)."""
    from .machine import MarkI

    scene = _as_scene(scene_ref)
    train, test, (_, _, s_machine) = _stimuli(scene, seed, train_count, test_count)
    t0 = time.perf_counter()
    m = MarkI(spec=spec, seed=s_machine).fit(train.cards, train.labels, epochs=scene.schedule.epochs,
                                             order=scene.schedule.order)
    train_acc = m.score(train.cards, train.labels)          # train first, as compare and `mark1 run`
    return {"test_accuracy": m.score(test.cards, test.labels), "train_accuracy": train_acc,
            "machine_time_s": float(m.machine_time_), "wall_time_s": time.perf_counter() - t0}


def ablate(scene, *, seeds=3, executor: Executor | None = None, out=None,
           train_count: int | None = None, test_count: int | None = None) -> Ablation:
    """Which non-ideality costs most: each one alone on, and alone off.

    For every non-ideality the scene's machine has on (see :func:`ablation_variants`):
    (a) the ideal machine with only that one on (``spec.only(name)``) and (b) the full
    machine with only that one off (``spec.without(name)``); with the full machine and
    the ideal one as references. All variants of a seed share its cards and machine
    seed (so the same wiring). Variants with identical machines are run once.

    Parameters
    ----------
    scene : Scene or str
    seeds : int or sequence of int
    executor : concurrent.futures.Executor, optional
    out : str or path-like, optional
        Folder for ``ablation.csv``, ``ablation.json`` and ``ablation.png`` (atomic).
    train_count, test_count : int, optional

    Returns
    -------
    Ablation
    """
    scene = _as_scene(scene)
    seed_ids = _seed_list(seeds)
    train_count = _count(train_count, "train_count")
    test_count = _count(test_count, "test_count")
    variants = ablation_variants(scene.machine_spec())
    first_of: dict[str, str] = {}
    unique = []
    for name, _, _, spec in variants:
        key = _spec_key(spec)
        if key not in first_of:
            first_of[key] = name
            unique.append((name, spec))
    ref = _scene_ref(scene)
    jobs = [(ref, s, spec, train_count, test_count) for _, spec in unique for s in seed_ids]
    res = _run_jobs(ablation_job, jobs, executor)
    per_variant = {name: res[i * len(seed_ids):(i + 1) * len(seed_ids)] for i, (name, _) in enumerate(unique)}
    rows = []
    for name, kind, ni, spec in variants:
        src = first_of[_spec_key(spec)]
        runs = per_variant[src]
        acc = _stats([r["test_accuracy"] for r in runs])
        mt = _stats([r["machine_time_s"] / 3600.0 for r in runs])
        rows.append({"variant": name, "kind": kind, "non_ideality": ni,
                     "test_mean": acc["mean"], "test_std": acc["std"], "n": acc["n"],
                     "train_mean": _stats([r["train_accuracy"] for r in runs])["mean"],
                     "machine_time_h_mean": mt["mean"], "machine_time_h_std": mt["std"],
                     "same_as": None if src == name else src,
                     "test_accuracy": [r["test_accuracy"] for r in runs],
                     "machine_time_s": [r["machine_time_s"] for r in runs]})
    result = Ablation(scene=scene.name, seeds=seed_ids, rows=rows,
                      non_idealities=[v[2] for v in variants if v[1] == "on_alone"])
    if out is not None:

        from .plotting import ablation_figure
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        write_text(out / "ablation.csv", _csv_text(rows, ABLATION_FIELDS))
        write_text(out / "ablation.json", json.dumps(jsonable(result.to_json()), indent=1) + "\n")
        ablation_figure(result, out=out / "ablation.png")
    return result


# ----------------------------------------------------------------------------------------
# command line


def _add_common_options(parser, *, seeds: int, folder: str) -> None:
    """Options shared by compare, ablate and curves."""
    parser.add_argument("scene", help="a scene file, e.g. scenes/demo.toml")
    parser.add_argument("--seeds", type=int, default=seeds, help=f"number of seeds, 0..N-1 (default {seeds})")
    parser.add_argument("--out", help=f"output folder (default runs/<scene>/{folder})")
    parser.add_argument("--workers", type=int, help="processes (default: CPU count; 1 runs in this process)")
    parser.add_argument("--train-count", type=int, help="training cards instead of the scene's")
    parser.add_argument("--test-count", type=int, help="test cards instead of the scene's")


def add_commands(subparsers) -> None:
    """Register ``mark1 compare``, ``ablate`` and ``curves`` on an argparse subparsers object."""
    cp = subparsers.add_parser("compare", help="the machine beside the textbook classifiers, over seeds")
    _add_common_options(cp, seeds=10, folder="compare")
    cp.add_argument("--learners", help=f"comma-separated subset of: {','.join(LEARNERS)}")
    cp.add_argument("--resume", action="store_true", help="skip seeds already recorded in --out")
    cp.add_argument("--json", action="store_true", help="print the summary as JSON")
    cp.set_defaults(func=cmd_compare)

    ab = subparsers.add_parser("ablate", help="which non-ideality costs most: each alone on, each alone off")
    _add_common_options(ab, seeds=3, folder="ablate")
    ab.add_argument("--json", action="store_true", help="print the result as JSON")
    ab.set_defaults(func=cmd_ablate)

    cu = subparsers.add_parser("curves", help="learning curves: test accuracy against cards and machine hours")
    _add_common_options(cu, seeds=3, folder="curves")
    cu.add_argument("--points", type=int, default=10, help="most checkpoints (whole epochs; default 10)")
    cu.set_defaults(func=cmd_curves)


#: Environment variables that set the thread count of the BLAS libraries numpy may use.
_BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


@contextlib.contextmanager
def process_pool(workers: int):
    """A process pool for the seeds, its workers' BLAS single-threaded.

    Each worker process is a fresh interpreter ("spawn") started with the thread
    variables of the BLAS libraries set to 1 (unless the user set them): ``workers``
    processes each running a multi-threaded BLAS on the same cores thrash (measured
    8.5 s instead of 1 s for ``mark1 compare scenes/e_vs_x.toml --seeds 3`` on 2 cores).
    The variables of this process are restored on exit. On exit or interruption,
    seeds not yet started are cancelled. As with any "spawn" pool, a script that uses
    it must guard its entry point with ``if __name__ == "__main__":`` (the ``mark1``
    command and ``python -m mark1`` are safe).

    Yields
    ------
    concurrent.futures.ProcessPoolExecutor
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    saved = {k: os.environ.get(k) for k in _BLAS_THREAD_VARS}
    for k in _BLAS_THREAD_VARS:
        os.environ.setdefault(k, "1")
    pool = None
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
        yield pool
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _cli_common(args, n_jobs: int):
    """Scene, output folder and executor for a command; UsageError for bad input."""
    from .cli import UsageError, output_folder
    from .scenes import SceneError, load_scene

    if not 1 <= args.seeds <= 100_000:
        raise UsageError(f"--seeds: expected a number of seeds from 1 to 100000, got {args.seeds}")
    output_folder(args, args.command)
    for opt in ("workers", "train_count", "test_count"):
        v = getattr(args, opt, None)
        if v is not None and v < 1:
            raise UsageError(f"--{opt.replace('_', '-')}: expected a positive integer, got {v}")
    try:
        scene = load_scene(args.scene)
    except SceneError as e:
        raise UsageError(str(e)) from None
    for opt in ("train_count", "test_count"):
        v = getattr(args, opt, None)
        if v is not None and v < len(scene.classes):
            raise UsageError(f"--{opt.replace('_', '-')}: expected at least one card per class "
                             f"(>= {len(scene.classes)}), got {v}")
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    return scene, min(workers, n_jobs)


def _one_line(args, error: ValueError) -> str:
    """The error as one line naming the scene file once."""
    text = str(error)
    return text if text.startswith(str(args.scene)) else f"{args.scene}: {text}"


def _executor(workers: int):
    """Serial (None) for one worker, else :func:`process_pool`."""
    return process_pool(workers) if workers > 1 else contextlib.nullcontext(None)


def cmd_compare(args) -> int:
    from .cli import UsageError

    try:
        names = _check_learners(args.learners)
    except ValueError as e:
        raise UsageError(f"--learners: {e}".replace("learners: ", "", 1)) from None
    scene, workers = _cli_common(args, args.seeds)
    from .cli import output_folder
    out = output_folder(args, "compare")
    t0 = time.perf_counter()
    try:
        with _executor(workers) as executor:
            comp = compare(scene, seeds=args.seeds, learners=names, executor=executor, out=out,
                           resume=args.resume, progress=not args.json, train_count=args.train_count,
                           test_count=args.test_count)
    except ValueError as e:                      # SceneError, SpecError, classes that do not fit
        raise UsageError(_one_line(args, e)) from None
    if args.json:
        print(json.dumps(jsonable({"scene": comp.scene, "seeds": comp.seeds, "reported": comp.reported,
                                    "summary": comp.summary(), "out": str(out)}), indent=2))
        return 0
    print(comp.table())
    print("mark1: the simulated Mark I as the scene specifies it; ideal: the same wiring with digital, "
          "instant weights;\n-S: trained on the S-unit states; -phi: on the A-unit outputs of the same patch board.")
    print(f"wall {time.perf_counter() - t0:.1f} s; written: {out}/results.csv, results.json, report.md, "
          f"accuracy.png, seeds/")
    return 0


def cmd_ablate(args) -> int:
    from .cli import UsageError
    from .specs import NON_IDEALITIES

    scene, workers = _cli_common(args, args.seeds * 2 * (len(NON_IDEALITIES) + 1))
    from .cli import output_folder
    out = output_folder(args, "ablate")
    t0 = time.perf_counter()
    try:
        with _executor(workers) as executor:
            result = ablate(scene, seeds=args.seeds, executor=executor, out=out,
                            train_count=args.train_count, test_count=args.test_count)
    except ValueError as e:
        raise UsageError(_one_line(args, e)) from None
    if args.json:
        print(json.dumps(jsonable(result.to_json()), indent=2))
        return 0
    print(result.table())
    print(f"wall {time.perf_counter() - t0:.1f} s; written: {out}/ablation.csv, ablation.json, ablation.png")
    return 0


def curves_csv(curves: LearningCurves) -> str:
    """One row per variant, seed and checkpoint."""
    rows = []
    for variant in curves.variants:
        for i, seed in enumerate(curves.seeds):
            for j in range(len(curves.cards)):
                rows.append({"variant": variant, "seed": seed, "epochs": int(curves.epochs[j]),
                             "cards": int(curves.cards[j]),
                             "machine_hours": float(curves.machine_hours[variant][i, j]),
                             "test_accuracy": float(curves.accuracy[variant][i, j]),
                             "train_accuracy": float(curves.train_accuracy[variant][i, j])})
    return _csv_text(rows, list(rows[0]) if rows else [])


def cmd_curves(args) -> int:
    from .cli import UsageError
    from .plotting import learning_curves_figure

    if args.points < 1:
        raise UsageError(f"--points: expected a positive integer, got {args.points}")
    scene, workers = _cli_common(args, args.seeds * 2 * args.points)
    from .cli import output_folder
    out = output_folder(args, "curves")
    t0 = time.perf_counter()
    try:
        with _executor(workers) as executor:
            curves = learning_curves(scene, seeds=args.seeds, points=args.points, executor=executor,
                                     train_count=args.train_count, test_count=args.test_count)
    except ValueError as e:
        raise UsageError(_one_line(args, e)) from None
    write_text(out / "curves.csv", curves_csv(curves))
    learning_curves_figure(curves, out=out / "curves.png")
    for variant in curves.variants:
        acc = curves.accuracy[variant]
        print(f"{variant:>7}: test accuracy " + "  ".join(
            f"{c} cards {m:.1%}" for c, m in zip(curves.cards.tolist(), acc.mean(axis=0))))
    print(f"wall {time.perf_counter() - t0:.1f} s; written: {out}/curves.csv, curves.png")
    return 0
