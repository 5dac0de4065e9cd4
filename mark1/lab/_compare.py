"""The machine beside the textbook classifiers on one scene, over seeds (``mark1 compare``).

For each seed (a new patch board, new cards, new noise; a folder scene's own images are
the same each seed unless jittered or counted beyond the images; one integer split with
:class:`numpy.random.SeedSequence` by :func:`mark1.stimuli.cards.experiment_seeds`) every
learner is trained on the scene's training cards and scored on its test cards. Each
seed is one job of :func:`mark1.lab.runner.run_jobs`: any executor, results identical to
a serial run, one record per seed written as it finishes, ``resume`` skips seeds recorded.

Every learner sees the same cards on a seed, so the learners are *paired* by seed: the
table gives, beside each learner's mean and its interval, the analog machine minus it,
seed by seed (:meth:`Comparison.paired`); ``mark1 − digital`` is what the analog learning
costs on these cards. The learners against the machine are one family, controlled by
Holm's procedure (:meth:`Comparison.family`); every interval comes from :mod:`mark1.stats`.
"""

from __future__ import annotations

import time
import warnings
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable, Sequence

import numpy as np

from mark1._utils.atomic import write_text
from mark1._utils.html import TextTable, clip, figure_function, html_table, study_html
from mark1.exceptions import ConvergenceWarning, InputError, SeparableDataWarning, SingularCovarianceWarning
from mark1.lab._common import (Piloted, aligned, check_figure, check_precision, csv_text, draw, hours_cell, num, pct,
                               run_to_precision, seconds_cell, study_inputs, write_json)
from mark1.lab.runner import (Records, SceneLike, Seeds, StrPath, as_scene, job, run_jobs, scene_digest,
                              scene_ref)
from mark1.lab._sweep import _energy_of, _warn_cliff, joules_cell
from mark1.stats import METHOD, Compared, Interval, difference_interval, family, family_notes, mean_interval, summarize
from mark1.linear_model import (FisherDiscriminant, GaussianClassifier, LeastSquaresClassifier, LogisticRegression,
                                Perceptron)
from mark1.machine.mark_i import MarkI
from mark1.stimuli.cards import experiment_seeds, scene_cards

__all__ = ["compare", "Comparison", "LEARNERS", "FEATURES", "check_learners", "describe_learner"]

#: Every learner :func:`compare` knows, in the order of its tables.
LEARNERS = (
    "mark1",          # the analog machine, scene.machine_spec()
    "digital",        # spec.digital(): the same retina and wiring, ideal weights and timing
    "ideal",          # spec.ideal(): ideal retina too, same wiring (same machine seed)
    "perceptron-S",   # the textbook perceptron on the raw S-units
    "lstsq-S", "fisher-S", "gauss-S", "logistic-S",
    "lstsq-phi", "fisher-phi", "gauss-phi", "logistic-phi",
)

_MACHINES = ("mark1", "digital", "ideal")

#: Where the textbook classifiers' S-units and φ come from (``features`` of :func:`compare`).
FEATURES = ("analog", "ideal")


#: Fields of one row of ``results.csv`` (one learner on one seed).
RECORD_FIELDS = ("learner", "seed", "test_accuracy", "train_accuracy", "cards_seen",
                 "machine_time_s", "energy_j", "energy_per_correction_j", "wall_time_s", "seed_train", "seed_test",
                 "seed_machine", "note", "error")

_RECORD_VERSION = 2          # 2: the digital learner; baselines on the analog retina by default


def describe_learner(name: str, features: str = "analog") -> str:
    """One line saying what learner ``name`` is, so no two can be mistaken for each other.

    Parameters
    ----------
    name : str
        One of :data:`LEARNERS`.
    features : {"analog", "ideal"}
        The retina the textbook classifiers learn from (``features`` of :func:`compare`).

    Returns
    -------
    str

    Examples
    --------
    >>> describe_learner("digital")
    "spec.digital(): mark1's own retina, optics and patch board; instant, exact weights"
    >>> describe_learner("fisher-phi", features="ideal")
    'Fisher discriminant (PRML 4.1.4-6) on the A-unit outputs phi (same board) of the ideal retina'
    """
    fixed = {
        "mark1": "the simulated Mark I as the scene specifies it: analog retina, motor-driven pots",
        "digital": "spec.digital(): mark1's own retina, optics and patch board; instant, exact weights",
        "ideal": "spec.ideal(): every non-ideality off, the retina's too; same patch board",
    }
    if name in fixed:
        return fixed[name]
    kind, feat = name.split("-")
    what = {"perceptron": "textbook perceptron (PRML 4.1.7)", "lstsq": "least squares (PRML 4.1.3)",
            "fisher": "Fisher discriminant (PRML 4.1.4-6)", "gauss": "Gaussian generative (PRML 4.2.2)",
            "logistic": "logistic regression, IRLS (PRML 4.3.2-4.3.4), Gaussian prior alpha=1 (scikit-learn's "
                        "C=1: binary S and phi are usually separable, where maximum likelihood has no finite "
                        "solution),"}[kind]
    retina = "mark1's analog retina" if features == "analog" else "the ideal retina"
    on = f"the S-units of {retina}" if feat == "S" else f"the A-unit outputs phi (same board) of {retina}"
    return f"{what} on {on}"


def _cards_to_final_accuracy(history: np.ndarray, n_cards: int, final_accuracy: float) -> int:
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


@dataclass
class Comparison(Piloted):
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
        the final training accuracy was first held, see :func:`_cards_to_final_accuracy`;
        other learners None), ``machine_time_s`` (machines only, seconds of machine
        time), ``wall_time_s`` (seconds of this computer's time for fit and score).
    reported : dict
        The scene's historical figure: source, conditions, value, note.
    config : dict
        What identifies the run (scene digest, card counts, schedule).

    Examples
    --------
    >>> comp = compare("scenes/demo.toml", seeds=2, learners=["mark1", "lstsq-S"], train_count=8, test_count=8)
    >>> comp.learners, comp.seeds, len(comp.records)
    (['mark1', 'lstsq-S'], [0, 1], 4)
    >>> [r["test_accuracy"] for r in comp.records if r["learner"] == "mark1"]
    [1.0, 0.75]
    >>> comp.summary()["mark1"]["mean"]
    0.875
    """

    scene: str
    scene_file: str | None
    learners: list
    seeds: list
    records: list
    reported: dict
    config: dict = field(default_factory=dict)
    pilot: list = field(default_factory=list)

    def summary(self) -> dict[str, dict[str, Any]]:
        """learner → {mean, std, n, min, max, interval} of test accuracy, plus means of the rest.

        ``std`` is the sample standard deviation over seeds (None for one seed), ``interval``
        the mean's :class:`mark1.stats.Interval` (none below its minimum seeds). The seeds of a
        run to a precision's pilot are left out. Extra
        keys: ``train_mean``, ``cards_seen_mean``, ``machine_time_h_mean``,
        ``energy_j_mean`` and ``energy_per_correction_j_mean`` (the machines' energy of
        learning, :func:`mark1.machine.energy.energy_fields`), ``wall_time_s_mean`` (None
        where a learner has no such figure).
        """
        out = {}
        for name in self.learners:
            rows = [r for r in self.records if r["learner"] == name and r["seed"] not in self.pilot]
            s = summarize([r["test_accuracy"] for r in rows])
            s["interval"] = mean_interval([r["test_accuracy"] for r in rows], (0.0, 1.0))
            s["train_mean"] = summarize([r["train_accuracy"] for r in rows])["mean"]
            s["cards_seen_mean"] = summarize([r["cards_seen"] for r in rows])["mean"]
            mt = summarize([r["machine_time_s"] for r in rows])["mean"]
            s["machine_time_h_mean"] = None if mt is None else mt / 3600.0
            s["wall_time_s_mean"] = summarize([r["wall_time_s"] for r in rows])["mean"]
            s["energy_j_mean"] = summarize([r.get("energy_j") for r in rows])["mean"]
            s["energy_per_correction_j_mean"] = summarize([r.get("energy_per_correction_j") for r in rows])["mean"]
            errors = sorted({r["error"] for r in rows if r.get("error")})
            if errors:
                s["errors"] = errors
            out[name] = s
        return out

    def paired(self, a: str = "mark1", b: str = "digital") -> dict[str, Any] | None:
        """Learner ``a`` minus learner ``b`` in test accuracy, seed by seed, with its interval.

        Both learners saw the same cards on a seed (and the machines the same patch
        board), so the difference of a seed is theirs alone; seeds where either has no
        result are left out, and so are a pilot's. This is the comparison on its own; in the
        table it is one of a family (:meth:`family`).

        Parameters
        ----------
        a, b : str
            Learners of this comparison (default: the analog machine minus the digital one).

        Returns
        -------
        dict or None
            ``diffs`` (per seed, fraction), ``seeds``, ``n``, ``interval`` (a
            :class:`mark1.stats.Interval` of the difference, in [−1, 1]; none below its
            minimum seeds) and its ``mean``, ``low``, ``high``; None when no seed has both.

        Raises
        ------
        InputError
            For a learner this comparison does not have.

        Examples
        --------
        >>> comp = compare("scenes/demo.toml", seeds=3, learners=["mark1", "digital"], train_count=8, test_count=8)
        >>> d = comp.paired("mark1", "digital")
        >>> d["n"], round(d["mean"], 4) == round(sum(d["diffs"]) / 3, 4), d["interval"].words()
        (3, True, 'too few seeds (n = 3) for an interval')
        """
        for name in (a, b):
            if name not in self.learners:
                raise InputError(f"learner: expected one of {', '.join(self.learners)}, got {name!r}")
        acc = {(r["learner"], r["seed"]): r["test_accuracy"] for r in self.records}
        seeds = [s for s in self.counted if acc.get((a, s)) is not None and acc.get((b, s)) is not None]
        if not seeds:
            return None
        diffs = [acc[(a, s)] - acc[(b, s)] for s in seeds]
        iv = difference_interval([acc[(a, s)] for s in seeds], [acc[(b, s)] for s in seeds], (0.0, 1.0))
        return {"a": a, "b": b, "seeds": seeds, "diffs": diffs, "n": len(diffs), "interval": iv,
                "mean": iv.mean, "low": iv.low, "high": iv.high}

    def _paired_all(self) -> dict[str, dict | None]:
        """``mark1`` minus every other learner (empty without ``mark1`` or a second learner)."""
        if "mark1" not in self.learners:
            return {}
        return {n: self.paired("mark1", n) for n in self.learners if n != "mark1"}

    def family(self) -> dict[str, Compared]:
        """The analog machine against every other learner, as one family under Holm's procedure.

        Each member is ``mark1`` minus the learner, paired by seed; a verdict ("the machine is
        better or worse than it") reads the Holm-adjusted interval, so the chance of any false
        verdict in the table is at most 5 %.

        Returns
        -------
        dict
            learner → :class:`mark1.stats.Compared` (empty without ``mark1``).

        Examples
        --------
        >>> comp = compare("scenes/demo.toml", seeds=2, learners=["mark1", "ideal"], train_count=8, test_count=8)
        >>> comp.family()["ideal"].decided is None           # two seeds: no interval, no verdict
        True
        """
        pairs = {n: d for n, d in self._paired_all().items() if d is not None}
        out = family([d["diffs"] for d in pairs.values()], (-1.0, 1.0), correction="holm")
        return dict(zip(pairs, out))

    def notes(self) -> list[str]:
        """The lines under the table: how the intervals were made and controlled, too few seeds, seeds needed."""
        pairs = {n: d for n, d in self._paired_all().items() if d is not None}
        if not pairs:
            return []
        return family_notes(list(self.family().values()), [d["diffs"] for d in pairs.values()], what="learners")

    def _cells(self) -> tuple[tuple, list, list]:
        """The table's head, its rows (cells as text) and the lines under it."""
        summ = self.summary()
        pairs = self._paired_all()
        fam = self.family()
        head = ("learner", "test acc [95 %]", "± std (points)",
                *(("mark1 − it (points), Holm-adjusted",) if pairs else ()),
                "train acc", "cards seen", "machine time", "energy of learning", "wall time")
        rows = []
        for name, s in summ.items():
            paired = () if not pairs else (_paired_cell(fam.get(name)) if name != "mark1" else "",)
            std = num(None if s["std"] is None else 100 * s["std"], "{:.1f}")
            rows.append((name, _accuracy_cell(s["interval"]), std,
                         *paired, pct(s["train_mean"]),
                         num(s["cards_seen_mean"], "{:.0f}"), hours_cell(s["machine_time_h_mean"]),
                         joules_cell(s.get("energy_j_mean"), s.get("energy_per_correction_j_mean")),
                         seconds_cell(s["wall_time_s_mean"])))
        rep = self.reported
        under = [f"{self.scene}: {_seeds_words(self)}; reported "
                 + (pct(rep["value"]) if rep.get("value") is not None else "no figure")
                 + f" ({rep.get('source') or 'the scene names no source'})"]
        if pairs:
            d = fam.get("digital")
            under.append("mark1 − it: the analog machine's test accuracy minus the learner's, seed by seed (the "
                         "same cards), with its interval adjusted for the family; * where it excludes 0"
                         + (f"; analog − digital: {_paired_cell(d)} points over {d.raw.n} seeds" if d else ""))
            under.extend(self.notes())
        else:
            under.append(f"intervals: 95 % {METHOD}")
        return head, rows, under

    def table(self) -> TextTable:
        """A plain-text table: test accuracy mean ± std per learner, the analog machine minus each
        learner paired by seed with its 95 % interval, and the other figures."""
        head, rows, under = self._cells()
        lines = aligned(head, rows)
        width = max(len(r[0]) for r in (head, *rows))
        lines.append("")
        lines.extend(under)
        lines.append("")
        lines.extend(f"{r[0]:<{width}}  {describe_learner(r[0], self.features)}" for r in rows)
        return TextTable("\n".join(lines))

    def __repr__(self) -> str:
        best = max(self.summary().items(), key=lambda kv: -1.0 if kv[1]["mean"] is None else kv[1]["mean"])
        return clip(f"Comparison(scene={self.scene!r}, {len(self.learners)} learners, {_seeds_words(self)}, "
                    f"best {best[0]} {pct(best[1]['mean'])})")

    def _repr_html_(self) -> str:
        head, rows, under = self._cells()
        rows = [(*r, describe_learner(r[0], self.features)) for r in rows]
        return study_html(f"Comparison: {self.scene}",
                          html_table((*head, "learner is"), rows, left=(0, len(head)), notes=under,
                                     caption=f"intervals: 95 % {METHOD}; mark1 − it: Holm-adjusted over the learners"),
                          figure_function("Comparison"), self)

    @property
    def features(self) -> str:
        """The retina the textbook classifiers were trained on: "analog" or "ideal"."""
        return self.config.get("features", "analog")

    def to_json(self) -> dict:
        """Everything as JSON-safe values: the run, its records and the summary (``results.json``)."""
        return {"scene": self.scene, "scene_file": self.scene_file, "learners": list(self.learners),
                "seeds": list(self.seeds), "config": self.config, "reported": self.reported,
                "pilot": list(self.pilot), "records": self.records,
                "summary": {n: {**{k: v for k, v in s.items() if k != "interval"}, "interval": s["interval"].as_dict()}
                            for n, s in self.summary().items()},
                "paired": {f"mark1 - {n}": _compared_json(c) for n, c in self.family().items()},
                "interval": f"mark1 minus each learner, paired by seed: 95 % {METHOD}",
                "correction": "holm", "notes": self.notes()}


def _paired_cell(c: Compared | None) -> str:
    """A member of the family as a table cell in points, ``-3.1 [-5.0, -1.2]*`` (* where decided)."""
    if c is None:
        return "-"
    iv = c.interval
    if iv.too_few:
        return f"{100 * iv.mean:+.1f} (too few seeds)"
    return iv.format(scale=100, signed=True) + ("*" if c.decided else "")


def _accuracy_cell(iv: Interval) -> str:
    """A mean test accuracy with its interval in percent; the mean alone below the minimum seeds."""
    if iv.n == 0:
        return "-"
    if iv.too_few:
        return f"{100 * iv.mean:.1f} % (too few seeds)"
    return iv.format(scale=100) + " %"


def _compared_json(c: Compared) -> dict:
    return {"interval": c.interval.as_dict(), "raw": c.raw.as_dict(), "p": c.p, "p_adjusted": c.p_adjusted,
            "decided": c.decided, "correction": c.correction}


def _seeds_words(comp: Comparison) -> str:
    if not comp.pilot:
        return f"{len(comp.seeds)} seed{'s' if len(comp.seeds) != 1 else ''}"
    return f"{len(comp.counted)} seeds after a pilot of {len(comp.pilot)}"


def check_learners(learners: str | Sequence[str] | None) -> list[str]:
    """The learners asked for, checked, in the order of :data:`LEARNERS` without repeats.

    Parameters
    ----------
    learners : sequence of str, comma-separated str, or None
        Names from :data:`LEARNERS`; None means all.

    Returns
    -------
    list of str

    Raises
    ------
    InputError
        For an unknown name (naming the known ones) or none at all.

    Examples
    --------
    >>> check_learners("lstsq-S, mark1,mark1")
    ['mark1', 'lstsq-S']
    """
    if learners is None:
        return list(LEARNERS)
    if isinstance(learners, str):
        learners = [x.strip() for x in learners.split(",") if x.strip()]
    learners = list(learners)
    for name in learners:
        if name not in LEARNERS:
            raise InputError(f"learners: unknown learner {name!r}; known: {', '.join(LEARNERS)}")
    if not learners:
        raise InputError(f"learners: expected at least one of {', '.join(LEARNERS)}")
    return [n for n in LEARNERS if n in learners]                 # canonical order, no duplicates


def _baseline(name: str, schedule, seed: int):
    """A fresh textbook classifier for learner ``name``.

    The textbook perceptron gets the machine's budget: at most the scene's epochs, in the
    scene's order (shuffled with the machine seed when the scene shuffles); it stops
    early after an epoch without a mistake.
    """
    kind = name.split("-")[0]
    if kind == "perceptron":
        return Perceptron(epochs=schedule.epochs, shuffle=schedule.order == "shuffled", seed=seed)
    if kind == "logistic":
        # a Gaussian prior (scikit-learn's default C = 1): binary S and phi training sets are
        # usually linearly separable, where maximum likelihood has no finite solution (PRML 4.3.2)
        return LogisticRegression(alpha=1.0)
    return {"lstsq": LeastSquaresClassifier, "fisher": FisherDiscriminant, "gauss": GaussianClassifier}[kind]()


def _fit_note(clf) -> str | None:
    """What a baseline did beyond the textbook formula.

    Shrinkage of a singular covariance; a perceptron that did not separate its training
    set; logistic regression stopped on separable data or before converging.
    """
    s = getattr(clf, "shrinkage_", None)
    if s is not None and np.any(np.asarray(s) > 0):
        return f"shrinkage {float(np.max(s)):g}"
    if getattr(clf, "separable_", False):
        return f"separable: separating weights after {clf.n_iter_} Newton steps"
    if getattr(clf, "converged_", None) is False:
        if hasattr(clf, "n_iter_"):
            return f"not converged in {clf.n_iter_} Newton steps"
        return f"not separated in {clf.n_epochs_} epochs"
    return None


@job
def _run_seed(scene_ref, seed: int, learners: Sequence[str], train_count: int | None = None,
             test_count: int | None = None, features: str = "analog") -> dict:
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
    features : {"analog", "ideal"}
        The retina whose S-units (and φ) the textbook classifiers are trained on.

    Returns
    -------
    dict
        ``{"seed", "seeds": {train, test, machine}, "results": [row per learner]}``.
    """
    scene = as_scene(scene_ref)
    train, test, s_machine = scene_cards(scene, seed, train_count=train_count, test_count=test_count)
    s_train, s_test, _ = experiment_seeds(seed)
    spec = scene.machine_spec()
    sched = scene.schedule
    base = {"seed": int(seed), "seed_train": s_train, "seed_test": s_test, "seed_machine": s_machine}
    rows = []

    def row(name, **kw):
        r = dict(learner=name, **base, test_accuracy=None, train_accuracy=None, cards_seen=None,
                 machine_time_s=None, energy_j=None, energy_per_correction_j=None, wall_time_s=None, note=None,
                 error=None)
        r.update(kw)
        rows.append(r)

    specs = {"mark1": spec, "digital": spec.digital(), "ideal": spec.ideal()}
    for name in _MACHINES:
        if name not in learners:
            continue
        m = MarkI(spec=specs[name], seed=s_machine)
        t0 = time.perf_counter()
        m.fit(train.cards, train.labels, epochs=sched.epochs, order=sched.order)
        train_acc = m.score(train.cards, train.labels)
        test_acc = m.score(test.cards, test.labels)
        wall = time.perf_counter() - t0
        row(name, test_accuracy=test_acc, train_accuracy=train_acc,
            cards_seen=_cards_to_final_accuracy(m.history_, len(train.cards), train_acc),
            machine_time_s=float(m.machine_time_), wall_time_s=wall, **_energy_of(m))

    others = [n for n in learners if n not in _MACHINES]
    if others:
        # S and phi of the analog machine's retina (spec.digital() senses as spec does) or of
        # the ideal retina, through the same patch board; independent of training
        eyes = MarkI(spec=specs["digital" if features == "analog" else "ideal"], seed=s_machine)
        s_tr, s_te = eyes.sense(train.cards), eyes.sense(test.cards)
        feats = {"S": (s_tr.astype(float), s_te.astype(float))}
        if any(n.endswith("-phi") for n in others):
            feats["phi"] = (eyes.associate(s_tr).astype(float), eyes.associate(s_te).astype(float))
        for name in others:
            x_tr, x_te = feats[name.split("-")[1]]
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                # binary S and φ make singular covariances the rule, and separable or partly
                # separable training sets common: what the fit did is recorded in the note
                # instead of a warning per seed
                warnings.simplefilter("ignore", SingularCovarianceWarning)
                warnings.simplefilter("ignore", SeparableDataWarning)
                warnings.simplefilter("ignore", ConvergenceWarning)
                clf = _baseline(name, sched, s_machine).fit(x_tr, train.labels)
            train_acc = float(clf.score(x_tr, train.labels))
            test_acc = float(clf.score(x_te, test.labels))
            row(name, test_accuracy=test_acc, train_accuracy=train_acc,
                wall_time_s=time.perf_counter() - t0, note=_fit_note(clf))
    return {"seed": int(seed), "seeds": {"train": s_train, "test": s_test, "machine": s_machine},
            "results": rows}


def compare(scene: SceneLike, *, seeds: Seeds = 10, learners: str | Sequence[str] | None = None,
            executor: Executor | None = None, out: StrPath | None = None,
            resume: bool = False, progress: bool = False, train_count: int | None = None,
            test_count: int | None = None, features: str = "analog",
            figure: Callable | None = None, precision: float | None = None,
            max_seeds: int = 200) -> Comparison:
    """The machine beside the textbook classifiers on one scene, over seeds.

    For each seed (a new patch board, new cards, new noise; a folder scene's own images
    are the same each seed unless jittered or counted beyond the images) every learner is
    trained on the scene's training cards and scored on its test cards:

    ``mark1``
        the analog machine (``scene.machine_spec()``), the scene's epochs and order;
    ``digital``
        ``spec.digital()``: the same retina, optics and patch board (same machine
        seed), only the weights and timing ideal, so the difference to ``mark1`` is
        what the analog learning costs;
    ``ideal``
        ``spec.ideal()`` with the same machine seed: the sensing made ideal too;
    ``perceptron-S``
        :class:`mark1.linear_model.Perceptron` on the S-units;
    ``lstsq-S``, ``fisher-S``, ``gauss-S``, ``lstsq-phi``, ``fisher-phi``, ``gauss-phi``
        least squares, Fisher and Gaussian classifiers on the S-units and on the A-unit
        outputs φ of the same patch board;
    ``logistic-S``, ``logistic-phi``
        :class:`mark1.linear_model.LogisticRegression` with ``alpha=1`` (a Gaussian prior,
        scikit-learn's default ``C=1``) on the same features: binary S and φ training
        sets are usually separable, where plain maximum likelihood has no finite solution.

    The textbook classifiers see the S-units of the analog machine's own retina
    (``features="analog"``, what ``mark1`` and ``digital`` see) or of the ideal retina
    (``features="ideal"``). :func:`describe_learner` says each in one line.

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
        ``results.csv``, ``results.json``, the figure (see ``figure``) and ``report.md``
        (at the end). Every file is written atomically.
    resume : bool
        Skip seeds whose record in ``out/seeds`` exists and matches this run.
    progress : bool
        A progress bar over seeds (tqdm), on a terminal or in Jupyter, never in CI.
    train_count, test_count : int, optional
        Card counts instead of the scene's (for quick runs and tests).
    features : {"analog", "ideal"}
        The retina the textbook classifiers' S-units and φ come from.
    figure : callable, optional
        Draws the comparison's figure, called as ``figure(comparison, out=out /
        "accuracy.png")`` before ``report.md``, which then shows it; needs ``out``.
        ``mark1 compare`` passes :func:`mark1.viz.studies.comparison_figure` (the lab
        itself draws nothing).
    precision : float, optional
        Points: run until every interval of the family (the machine minus each learner)
        is about ±``precision``. ``seeds`` (at least 10) are then a pilot that fixes how
        many new seeds to run (:func:`mark1.lab._common.run_to_precision`, Stein's rule);
        the intervals count the new seeds only.
    max_seeds : int
        With ``precision``: the most seeds in all, the pilot's included.

    Returns
    -------
    Comparison

    Raises
    ------
    InputError
        For an unknown learner (naming the known ones), bad seeds or counts, ``resume``
        or ``figure`` without ``out``; :class:`mark1.exceptions.SceneError` for a bad scene.

    Examples
    --------
    >>> comp = compare("scenes/demo.toml", seeds=[3], learners=["ideal", "fisher-S"], train_count=8,
    ...                test_count=8)
    >>> {r["learner"]: r["test_accuracy"] for r in comp.records}
    {'ideal': 1.0, 'fisher-S': 1.0}
    """
    scene, seed_ids, train_count, test_count = study_inputs(scene, seeds, train_count, test_count)
    fraction, max_seeds = check_precision(precision, max_seeds, seed_ids)
    names = check_learners(learners)
    if features not in FEATURES:
        raise InputError(f"features: expected one of {', '.join(FEATURES)}, got {features!r}")
    check_figure(figure, out)
    if "mark1" in names:
        _warn_cliff([("the scene's machine (mark1)", scene.machine_spec())])
    config = {"version": _RECORD_VERSION, "scene": scene.name, "scene_sha256": scene_digest(scene),
              "learners": names, "train_count": train_count, "test_count": test_count,
              "epochs": scene.schedule.epochs, "order": scene.schedule.order, "features": features}
    out = Path(out) if out is not None else None

    store = None if out is None else Records(out / "seeds", config, valid=_valid_seed_record(config))
    ref = scene_ref(scene)

    def run(ids: list[int]) -> list:
        done = run_jobs(_run_seed, [(ref, s, names, train_count, test_count, features) for s in ids],
                        executor=executor, keys=[f"seed-{s:04d}" for s in ids], records=store,
                        resume=resume, progress="seeds" if progress else None)
        return [r for rec in done for r in rec["results"]]

    def samples(records: list) -> list:
        acc = {(r["learner"], r["seed"]): r["test_accuracy"] for r in records}
        seeds_run = sorted({r["seed"] for r in records})
        return [[None if acc.get(("mark1", s)) is None or acc.get((n, s)) is None else acc[("mark1", s)] - acc[(n, s)]
                 for s in seeds_run] for n in names if n != "mark1"] if "mark1" in names else []

    records, pilot, counted = run_to_precision(run, samples, seed_ids, fraction, max_seeds)
    rep = scene.reported
    comp = Comparison(scene=scene.name, scene_file=scene.path, learners=names, seeds=[*pilot, *counted],
                      records=records, config={**config, "precision": fraction}, pilot=pilot,
                      reported={"source": rep.source, "conditions": rep.conditions, "value": rep.value,
                                "note": rep.note})
    if out is not None:
        _write_comparison(comp, out, scene, figure)
    return comp


def _seed_ranges(seeds: Sequence[int]) -> str:
    """Seeds as runs, ``0–9, 12``."""
    out: list[str] = []
    run: list[int] = []
    for s in sorted(seeds):
        if run and s != run[-1] + 1:
            out.append(f"{run[0]}–{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)))
            run = []
        run.append(s)
    if run:
        out.append(f"{run[0]}–{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)))
    return ", ".join(out)


def _valid_seed_record(config: dict):
    """Checks on a stored seed record before a resumed run trusts it."""
    def valid(key: str, rec: dict) -> bool:
        seed = int(key.split("-")[1])
        if rec.get("seed") != seed or list(rec["seeds"].values()) != list(experiment_seeds(seed)):
            return False
        results = rec["results"]
        if [r["learner"] for r in results] != config["learners"]:
            return False
        for r in results:
            if not all(k in r for k in RECORD_FIELDS):
                return False
            acc = r["test_accuracy"]
            if r["error"] is None and not (isinstance(acc, (int, float)) and 0.0 <= acc <= 1.0):
                return False
        return True
    return valid


def _write_comparison(comp: Comparison, out: Path, scene, figure: Callable | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "results.csv", csv_text(comp.records, RECORD_FIELDS))
    write_json(out / "results.json", comp.to_json())
    figures = []
    if draw(figure, comp, out / "accuracy.png"):
        figures.append(("accuracy.png", "Test accuracy of every learner, one dot per seed"))
    write_text(out / "report.md", _report_md(comp, scene, figures))


def _report_md(comp: Comparison, scene, figures) -> str:
    summ = comp.summary()
    rep = comp.reported
    rep_txt = pct(rep["value"]) if rep.get("value") is not None else "no figure"
    cfg = comp.config
    lines = [f"# {comp.scene}: the machine beside the textbook classifiers", ""]
    own = any(scene.settings[split].source == "folder" for split in ("train", "test"))
    drawn = ("new noise; the folder's own images, the same each seed unless jittered or "
             "counted beyond the images there are" if own else "new cards, new noise")
    seeds_txt = (f"seeds {_seed_ranges(comp.counted)} after a pilot of seeds {_seed_ranges(comp.pilot)} that "
                 f"fixed their number for a precision of ±{100 * cfg['precision']:g} points (Stein's two-stage rule; "
                 "the pilot's seeds are not in the intervals)" if comp.pilot else f"seeds {_seed_ranges(comp.seeds)}")
    lines.append(f"Scene file `{comp.scene_file}`; {seeds_txt} "
                 f"(each a new patch board, {drawn}); "
                 f"{scene.schedule.epochs} epochs, {scene.schedule.order} order, rule "
                 f"{scene.machine_spec().trainer.rule}."
                 + (f" Card counts overridden: train {cfg['train_count']}, test {cfg['test_count']}."
                    if cfg.get("train_count") or cfg.get("test_count") else ""))
    lines.append("")
    lines.append(f"**Reported:** {rep_txt} — {rep.get('source') or 'the scene names no source'}"
                 + (f"; {rep['conditions']}" if rep.get("conditions") else "")
                 + (f" ({rep['note']})" if rep.get("note") else ""))
    lines.append("")
    pairs = comp._paired_all()
    fam = comp.family()
    lines.append("| learner | what it is | test accuracy [95 %] | ± std | min – max "
                 + ("| mark1 − it, Holm-adjusted (points) " if pairs else "")
                 + "| train accuracy | cards seen | machine time | energy of learning | wall time | reported |")
    lines.append("|---|---|---|---|---|" + ("---|" if pairs else "") + "---|---|---|---|---|---|")
    for name, s in summ.items():
        std = num(None if s["std"] is None else 100 * s["std"], "{:.1f}")
        rng = "" if s["mean"] is None else f"{pct(s['min'])} – {pct(s['max'])}"
        beside = rep_txt if name == "mark1" else ""
        paired = "" if not pairs else f"{'' if name == 'mark1' else _paired_cell(fam.get(name))} | "
        lines.append(f"| {name} | {describe_learner(name, comp.features)} | {_accuracy_cell(s['interval'])} | "
                     f"{std} | {rng} | {paired}"
                     f"{pct(s['train_mean'])} | "
                     f"{num(s['cards_seen_mean'], '{:.0f}')} | {hours_cell(s['machine_time_h_mean'])} | "
                     f"{joules_cell(s.get('energy_j_mean'), s.get('energy_per_correction_j_mean'))} | "
                     f"{seconds_cell(s['wall_time_s_mean'])} | {beside} |")
    errs = {n: s["errors"] for n, s in summ.items() if s.get("errors")}
    if errs:
        lines.append("")
        for n, e in errs.items():
            lines.append(f"- {n}: {'; '.join(e)}")
    lines.append("")
    if pairs:
        lines.append("*mark1 − it*: the analog machine's test accuracy minus the learner's, seed by seed (both "
                     "saw the same cards), in points, with its interval adjusted for the family of learners "
                     "(Holm); * where it excludes 0.")
        lines.append("")
        lines.extend(f"- {line}" for line in comp.notes())
        lines.append("")
    else:
        lines += [f"Intervals: 95 % {METHOD}.", ""]
    lines.append("std is the sample standard deviation over seeds. *Cards seen*: presentations before "
                 "the machine first held its final training accuracy over one epoch's worth of "
                 "consecutive cards. *Machine time*: the simulated Mark I's clock. *Energy of learning*: joules a "
                 "run spent turning pots, and a correction (mark1.machine.energy; the digital and ideal machines' "
                 "instant pots spend none). *Wall time*: this "
                 "computer, fit and score only.")
    for fname, caption in figures:
        lines += ["", f"![{caption}]({fname})"]
    return "\n".join(lines) + "\n"
