"""Re-enactment: every scene with a reported figure, over seeds, against its report.

``mark1 reenact [SCENES...] --seeds N`` trains each scene's machine and, beside it on
the same cards and wiring, the digital learner (``spec.digital()``: the same retina and
patch board, an ideal rack) and the textbook perceptron (``spec.ideal()``, as an IBM 704
simulation would be), on N seeds, and writes one page:
Markdown and a summary figure on a common accuracy axis
(:func:`mark1.viz.studies.reenact_figure`). Per scene: the reported
figure and its source, the simulated mean with its 95 % t-interval, the fraction of
seeds meeting the report, machine hours, a verdict against the report's band and,
for a miss, a line on what may explain it.

The band of a report
--------------------
The reports are secondary, rounded, and their test sets are not recorded. A reported
value ``v`` is read as the band ``[v - tolerance, v + tolerance]`` (clipped to
[0, 1]; ``tolerance`` 0.05 by default, about the 95 % sampling error of an accuracy
near 90 % measured on 100 test cards). A report that is a lower bound ("more than
80 %": the scene's ``[reported]`` note or conditions say "more than", "at least" or
"lower bound") is read as ``[v, 1]``. A seed *meets the report* when its test accuracy
is at or above the band's low end. The verdict of a scene:

``within``       the simulated mean lies in the band;
``OUT OF BAND``  the 95 % interval of the mean lies entirely outside it (flagged);
``unclear``      the mean lies outside but its interval reaches into the band.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from mark1._utils.atomic import write_text
from mark1._utils.records import jsonable
from mark1.exceptions import InputError
from mark1.lab._common import check_figure, count_option, csv_text, draw, write_json
from mark1.lab.runner import Records, as_scene, job, run_cards, run_jobs, scene_digest, scene_ref, seed_list
from mark1.lab.stats import clip_interval, mean_interval
from mark1.machine.mark_i import MarkI
from mark1.stimuli.cards import experiment_seeds
from mark1.stimuli.scenes import SCENES_DIR, load_scene

__all__ = ["reenact", "Reenactment", "DEFAULT_TOLERANCE", "band", "verdict", "catalog"]

#: Half-width of the band around a reported value (fraction of accuracy).
DEFAULT_TOLERANCE = 0.05

#: Columns of ``reenact.csv``: one row per (scene, seed).
REENACT_FIELDS = ("scene_file", "seed", "train_cards", "test_cards", "test_accuracy", "train_accuracy",
                  "machine_time_s",
                  "digital_test_accuracy", "digital_train_accuracy",
                  "ideal_test_accuracy", "ideal_train_accuracy", "wall_time_s",
                  "seed_train", "seed_test", "seed_machine")

_LOWER_BOUND = re.compile(r"more than|at least|lower bound", re.IGNORECASE)


def _is_lower_bound(reported) -> bool:
    """Whether a scene's report is a lower bound ("more than 80 %")."""
    return bool(_LOWER_BOUND.search(f"{reported.note} {reported.conditions}"))


def band(reported, tolerance: float = DEFAULT_TOLERANCE) -> tuple[float, float]:
    """The accuracies that agree with a report: ``(low, high)``, fractions.

    ``[value - tolerance, value + tolerance]`` clipped to [0, 1], or ``[value, 1]`` for
    a lower bound ("more than", "at least" or "lower bound" in the report's note or
    conditions).

    Parameters
    ----------
    reported : mark1.stimuli.scenes.Reported
        A scene's ``[reported]`` table (``scene.reported``).
    tolerance : float
        Half-width of the band, fraction of accuracy.

    Returns
    -------
    (low, high) : tuple of float
        Fractions of accuracy.

    Raises
    ------
    InputError
        For a report without a value.

    Examples
    --------
    >>> from mark1.stimuli.scenes import Reported
    >>> band(Reported(value=0.9))
    (0.85, 0.95)
    >>> band(Reported(value=0.8, note="reported as more than 80 %"))
    (0.8, 1.0)
    """
    v = reported.value
    if v is None:
        raise InputError("reported.value: the scene reports no figure, so it has no band")
    if _is_lower_bound(reported):
        return float(v), 1.0
    return max(0.0, v - tolerance), min(1.0, v + tolerance)


def verdict(mean: float, low: float, high: float, band_: tuple[float, float]) -> str:
    """``"within"``, ``"OUT OF BAND"`` or ``"unclear"`` (see the module docstring).

    Parameters
    ----------
    mean, low, high : float
        The simulated mean test accuracy and its 95 % interval (fractions); NaN ends
        with one seed, where the mean alone decides (outside the band is out of band).
    band_ : (float, float)
        The band of the report (:func:`band`).

    Returns
    -------
    str

    Examples
    --------
    >>> verdict(0.97, 0.95, 0.99, (0.95, 1.0))
    'within'
    >>> verdict(0.80, 0.75, 0.85, (0.95, 1.0)), verdict(0.93, 0.90, 0.96, (0.95, 1.0))
    ('OUT OF BAND', 'unclear')
    """
    b_lo, b_hi = band_
    eps = 1e-12
    if b_lo - eps <= mean <= b_hi + eps:
        return "within"
    if math.isnan(low) or math.isnan(high) or high < b_lo - eps or low > b_hi + eps:
        return "OUT OF BAND"
    return "unclear"


def catalog(folder=None) -> list[Path]:
    """The scene files in ``folder`` (default: the shipped scenes) that report a figure.

    Parameters
    ----------
    folder : str or path-like, optional
        A folder of ``*.toml`` scene files.

    Returns
    -------
    list of pathlib.Path
        Sorted by name.

    Examples
    --------
    >>> [p.name for p in catalog()][:2]
    ['alphabet.toml', 'e_vs_f.toml']
    """
    folder = Path(folder) if folder is not None else Path(SCENES_DIR)
    return [p for p in sorted(folder.glob("*.toml")) if load_scene(p).reported.value is not None]


# ----------------------------------------------------------------------------------------
# one job


@job
def _reenact_job(scene_ref, seed: int, train_count: int | None = None, test_count: int | None = None) -> dict:
    """One seed of one scene: its machine, the digital learner and the ideal machine.

    All three on the same cards and machine seed (so the same patch board).

    Top level and picklable. Returns the fields of :data:`REENACT_FIELDS`.
    """
    scene = as_scene(scene_ref)
    train, test, seed_machine = run_cards(scene, seed, train_count, test_count)
    spec = scene.machine_spec()
    t0 = time.perf_counter()
    rec: dict[str, Any] = {"scene_file": str(scene.path) if scene.path else scene.name, "seed": int(seed),
                           "train_cards": int(len(train.cards)), "test_cards": int(len(test.cards))}
    for prefix, s in (("", spec), ("digital_", spec.digital()), ("ideal_", spec.ideal())):
        m = MarkI(spec=s, seed=seed_machine).fit(train.cards, train.labels, epochs=scene.schedule.epochs,
                                                 order=scene.schedule.order)
        rec[f"{prefix}train_accuracy"] = float(m.score(train.cards, train.labels))
        rec[f"{prefix}test_accuracy"] = float(m.score(test.cards, test.labels))
        if not prefix:
            rec["machine_time_s"] = float(m.machine_time_)
    rec["wall_time_s"] = time.perf_counter() - t0
    rec["seed_train"], rec["seed_test"], rec["seed_machine"] = experiment_seeds(seed)
    return rec


# ----------------------------------------------------------------------------------------
# the result


@dataclass
class SceneResult:
    """One scene of a re-enactment: its report, its band and its seeds' records."""

    file: str
    name: str
    reported: dict
    band: tuple
    lower_bound: bool
    conditions: dict
    records: list = field(repr=False)

    def _values(self, key: str) -> list[float]:
        return [r[key] for r in self.records]

    def summary(self) -> dict:
        """Mean and 95 % interval of the test accuracy, verdict, seeds meeting the report, ..."""
        acc = self._values("test_accuracy")
        mean, low, high = clip_interval(mean_interval(acc), 0.0, 1.0)
        ideal = clip_interval(mean_interval(self._values("ideal_test_accuracy")), 0.0, 1.0)
        digital = clip_interval(mean_interval(self._values("digital_test_accuracy")), 0.0, 1.0)
        hours = [t / 3600.0 for t in self._values("machine_time_s")]
        out = {"n": len(acc), "mean": mean, "low": low, "high": high,
               "meeting": float(np.mean([a >= self.band[0] - 1e-12 for a in acc])),
               "train_mean": float(np.mean(self._values("train_accuracy"))),
               "digital_mean": digital[0], "digital_low": digital[1], "digital_high": digital[2],
               "ideal_mean": ideal[0], "ideal_low": ideal[1], "ideal_high": ideal[2],
               "ideal_train_mean": float(np.mean(self._values("ideal_train_accuracy"))),
               "digital_train_mean": float(np.mean(self._values("digital_train_accuracy"))),
               "machine_hours": float(np.mean(hours)),
               "verdict": verdict(mean, low, high, self.band)}
        out["explanation"] = self.explain(out)
        return out

    def explain(self, s: dict) -> str:
        """A line on what may explain a miss ("" for a result within its band).

        Read from the measurements only: is the simulated result above or below the
        band, does the machine learn its own training cards, does the digital learner on
        the same retina and wiring do better (then the rack and motors cost it), does the
        textbook perceptron (ideal retina too) reach the report, would the training
        accuracy meet it (when the report does not say it was measured on test cards),
        and was the report an IBM 704 simulation (no motors, no photocells).
        """
        if s["verdict"] == "within":
            return ""
        parts = []
        if s["mean"] > self.band[1]:
            parts.append("scores above the report: the simulated cards may be easier than the originals, "
                         "or the report's conditions harder than the secondary sources record")
        else:
            gap = s["digital_mean"] - s["mean"]
            if s["train_mean"] < 0.95 and s.get("digital_train_mean", 0.0) >= 0.95:
                parts.append(f"does not learn its own {self.conditions['train_cards']} training cards "
                             f"(train {s['train_mean']:.1%}) where the digital learner on the same board "
                             f"does (train {s['digital_train_mean']:.1%})")
            elif s["train_mean"] < 0.95:
                parts.append(f"does not learn its own {self.conditions['train_cards']} training cards "
                             f"(train {s['train_mean']:.1%}): the {self.conditions['a_units']} A-units of "
                             f"this patch board do not separate them")
            else:
                parts.append(f"learns its {self.conditions['train_cards']} training cards "
                             f"(train {s['train_mean']:.1%}) but generalises to {s['mean']:.1%}")
            if gap > 0.03:
                parts.append(f"the rack and motors cost {gap * 100:.1f} points: the digital learner on the "
                             f"same retina and wiring scores {s['digital_mean']:.1%}")
            else:
                parts.append(f"the digital learner on the same retina and wiring misses too "
                             f"({s['digital_mean']:.1%}), so not the motors and pots")
            if s["ideal_mean"] >= self.band[0] and s["digital_mean"] < self.band[0]:
                parts.append(f"the textbook perceptron with an ideal retina reaches the band "
                             f"({s['ideal_mean']:.1%}): the photocells and optics cost it")
            elif gap <= 0.03:
                parts.append(f"nor does the textbook perceptron with an ideal retina ({s['ideal_mean']:.1%}): "
                             f"the cards, the machine size or the reading of the report")
            said = f"{self.reported.get('conditions', '')} {self.reported.get('note', '')}"
            if s["train_mean"] >= self.band[0] and "test" not in said.lower():
                parts.append(f"its accuracy on the training cards ({s['train_mean']:.1%}) is within the band: "
                             f"if the report counted errors on the cards it was trained on, it is met")
        if "704" in self.reported.get("source", ""):
            parts.append("the report is an IBM 704 simulation, not the Mark I")
        return "; ".join(parts)


@dataclass
class Reenactment:
    """Every scene of a re-enactment, over the same seeds.

    Attributes
    ----------
    scenes : list of SceneResult
        One per scene: its report, its band and its seeds' records.
    seeds : list of int
    tolerance : float
        Half-width of a report's band (fraction).
    config : dict
        What identifies the run (card counts, each scene file's digest).
    page, figure : pathlib.Path or None
        The Markdown page and its figure as written (None where nothing was).

    Examples
    --------
    >>> result = reenact(["scenes/e_vs_x.toml"], seeds=1, train_count=4, test_count=4)
    >>> row = result.rows()[0]
    >>> row["scene"], row["reported"], row["band_low"]
    ('X vs E, rotation up to 30 degrees, 20 training cards', 1.0, 0.95)
    >>> row["verdict"] in ("within", "unclear", "OUT OF BAND")
    True
    """

    scenes: list
    seeds: list
    tolerance: float
    config: dict = field(default_factory=dict)
    page: Path | None = None
    figure: Path | None = None

    def rows(self) -> list[dict]:
        """One summary row per scene (see :meth:`SceneResult.summary`), with its report."""
        out = []
        for sc in self.scenes:
            row = {"scene": sc.name, "file": sc.file, "reported": sc.reported.get("value"),
                   "source": sc.reported.get("source"), "band_low": sc.band[0], "band_high": sc.band[1],
                   "lower_bound": sc.lower_bound, **sc.summary()}
            out.append(row)
        return out

    def table(self) -> str:
        """A plain-text table, one line per scene, with the verdicts."""
        rows = self.rows()
        w = max([len(r["scene"]) for r in rows] + [5])
        lines = [f"{'scene':<{w}}  {'reported':>9}  {'simulated [95 %]':>22}  {'digital':>7}  {'ideal':>6}  "
                 f"{'meeting':>7}  "
                 f"{'machine h':>9}  verdict"]
        for r in rows:
            rep = (">" if r["lower_bound"] else "") + f"{r['reported']:.1%}"
            lines.append(f"{r['scene']:<{w}}  {rep:>9}  {_interval(r['mean'], r['low'], r['high']):>22}  "
                         f"{r['digital_mean']:>7.1%}  {r['ideal_mean']:>6.1%}  {r['meeting']:>7.0%}  "
                         f"{r['machine_hours']:>9.2f}  "
                         f"{r['verdict']}")
        n_in = sum(r["verdict"] == "within" for r in rows)
        n_out = sum(r["verdict"] == "OUT OF BAND" for r in rows)
        lines.append(f"{n_in} within band, {n_out} out of band, {len(rows) - n_in - n_out} unclear "
                     f"({len(self.seeds)} seed(s); band = reported ± {self.tolerance * 100:g} points, "
                     f"or [reported, 100 %] for a lower bound)")
        return "\n".join(lines)

    def to_json(self) -> dict:
        """Everything as JSON-safe values: the rows with their verdicts and every record (``reenact.json``)."""
        return jsonable({"seeds": self.seeds, "tolerance": self.tolerance, "config": self.config,
                         "scenes": self.rows(),
                         "records": [r for sc in self.scenes for r in sc.records]})

    def csv_text(self) -> str:
        """``reenact.csv``: one row per (scene, seed)."""
        return csv_text([r for sc in self.scenes for r in sc.records], REENACT_FIELDS)


def _interval(m, lo, hi) -> str:
    if lo is None or math.isnan(lo):
        return f"{m:.1%}"
    return f"{m:.1%} [{lo:.1%}, {hi:.1%}]"


def reenact(scenes=None, *, seeds=5, tolerance: float = DEFAULT_TOLERANCE, executor=None, out=None,
            resume: bool = False, progress: bool = False, train_count: int | None = None,
            test_count: int | None = None, page=None, command: str | None = None,
            note: str = "", figure: Callable | None = None) -> Reenactment:
    """Re-enact scenes over seeds and judge each against its report.

    Parameters
    ----------
    scenes : sequence of Scene or str, optional
        Scenes or scene files, each with a reported figure (default: :func:`catalog`).
    seeds : int or sequence of int
    tolerance : float
        Half-width of a report's band (fraction), in [0, 0.5].
    executor : concurrent.futures.Executor, optional
    out : str or path-like, optional
        Folder for ``jobs/*.json`` (each (scene, seed) as it finishes), ``reenact.csv``,
        ``reenact.json``, and the page (see ``page``); all written atomically.
    resume : bool
        Read back jobs already recorded in ``out/jobs`` by the same run.
    progress : bool
    train_count, test_count : int, optional
        Card counts instead of each scene's (for quick runs and tests).
    page : str or path-like, optional
        The Markdown page (default ``out/REENACTMENT.md``); its figure goes beside it
        with the same name in lower case and the ending ``.png``.
    command : str, optional
        The command line quoted on the page as the way to regenerate it.
    note : str
        A paragraph added to the page (e.g. why fewer seeds were run).
    figure : callable, optional
        Draws the page's figure, called as ``figure(reenactment, out=path)`` with the
        path beside the page, before the page, which then shows it; needs ``out``.
        ``mark1 reenact`` passes :func:`mark1.viz.studies.reenact_figure`.

    Returns
    -------
    Reenactment

    Raises
    ------
    InputError
        For a scene without a reported figure, bad seeds, counts or tolerance,
        ``resume`` or ``figure`` without ``out``.

    Examples
    --------
    >>> result = reenact(["scenes/e_vs_x.toml"], seeds=1, train_count=4, test_count=4)
    >>> rec = result.scenes[0].records[0]
    >>> rec["train_cards"], rec["test_accuracy"], rec["ideal_test_accuracy"]
    (4, 1.0, 1.0)
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance <= 0.5:
        raise InputError(f"tolerance: expected a fraction from 0 to 0.5, got {tolerance!r}")
    scene_objs = [as_scene(s) for s in (catalog() if scenes is None else scenes)]
    if not scene_objs:
        raise InputError("scenes: expected at least one scene with a reported figure")
    for sc in scene_objs:
        if sc.reported.value is None:
            raise InputError(f"{sc.path or sc.name}: [reported] has no value, so there is nothing to re-enact "
                             f"(expected a scene with a reported figure)")
    seed_ids = seed_list(seeds)
    train_count = count_option(train_count, "train_count")
    test_count = count_option(test_count, "test_count")
    check_figure(figure, out)
    stems = [Path(sc.path).stem if sc.path else sc.name.replace(" ", "_") for sc in scene_objs]
    if len(set(stems)) != len(stems):
        raise InputError(f"scenes: expected distinct scenes, got {stems}")
    jobs = [(scene_ref(sc), s, train_count, test_count) for sc in scene_objs for s in seed_ids]
    keys = [f"{stem}-seed-{s:04d}" for stem in stems for s in seed_ids]
    config = {"study": "reenact", "version": 1, "train_count": train_count, "test_count": test_count,
              "scenes": {stem: scene_digest(sc) for stem, sc in zip(stems, scene_objs)}}
    records = None
    if out is not None:
        expected = {k: j[1] for k, j in zip(keys, jobs)}

        def valid(key, rec):
            return (all(f in rec for f in REENACT_FIELDS) and rec["seed"] == expected[key]
                    and 0.0 <= rec["test_accuracy"] <= 1.0)
        records = Records(Path(out) / "jobs", config, valid=valid)
    results = run_jobs(_reenact_job, jobs, executor=executor, keys=keys, records=records, resume=resume,
                              progress="runs" if progress else None)
    per_scene = []
    for i, sc in enumerate(scene_objs):
        recs = list(results[i * len(seed_ids):(i + 1) * len(seed_ids)])
        rep = sc.reported
        per_scene.append(SceneResult(
            file=str(sc.path) if sc.path else sc.name, name=sc.name,
            reported={"value": rep.value, "source": rep.source, "conditions": rep.conditions, "note": rep.note},
            band=band(rep, tolerance), lower_bound=_is_lower_bound(rep),
            conditions={"a_units": sc.machine_spec().patchboard.n_associators,
                        "train_cards": recs[0]["train_cards"], "test_cards": recs[0]["test_cards"],
                        "epochs": sc.schedule.epochs},
            records=recs))
    result = Reenactment(scenes=per_scene, seeds=seed_ids, tolerance=float(tolerance), config=config)
    if out is not None:
        out = Path(out)
        write_text(out / "reenact.csv", result.csv_text())
        write_json(out / "reenact.json", result.to_json())
        result.page = Path(page) if page is not None else out / "REENACTMENT.md"
        drawn = result.page.with_name(result.page.stem.lower() + ".png")
        result.figure = drawn if draw(figure, result, drawn) else None
        write_text(result.page, _reenact_markdown(result, figure=result.figure and result.figure.name, note=note,
                                                  command=command or f"mark1 reenact --seeds {len(seed_ids)}"))
    return result


# ----------------------------------------------------------------------------------------
# the page


def _reenact_markdown(result: Reenactment, *, figure: str | None, command: str, note: str = "") -> str:
    """The Markdown page: how it was made, the table, the misses explained, the sources."""
    rows = result.rows()
    n_in = sum(r["verdict"] == "within" for r in rows)
    n_out = sum(r["verdict"] == "OUT OF BAND" for r in rows)
    tol = result.tolerance * 100
    lines = [
        "# Re-enactment: the simulated Mark I against the reported figures",
        "",
        f"Generated by `{command}` over {len(result.seeds)} seed(s) "
        f"(seeds {result.seeds[0]}..{result.seeds[-1]}); each seed draws new training and test cards and a "
        f"new machine (patch board, motor spread, noise). Regenerate this page with the same command; "
        f"it resumes from the records of an interrupted run (`--resume`).",
        "",
    ]
    if note:
        lines += [note, ""]
    lines += [
        f"**{n_in} of {len(rows)} scenes within band, {n_out} out of band, "
        f"{len(rows) - n_in - n_out} unclear.**",
        "",
        f"The band of a report is the reported accuracy ± {tol:g} points (the reports are secondary, "
        f"rounded, and their test sets are not recorded; {tol:g} points is about the 95 % sampling error "
        f"of an accuracy near 90 % measured on 100 test cards), or [reported, 100 %] when the report is a "
        f"lower bound (\">\"). A seed *meets* the report when its test accuracy reaches the band's low end. "
        f"**within**: the simulated mean lies in the band; **OUT OF BAND**: the 95 % t-interval of the mean "
        f"lies entirely outside it; **unclear**: the mean lies outside, its interval reaches in. On the same "
        f"cards and wiring: *digital* keeps the machine's retina and patch board with an ideal rack "
        f"(`spec.digital()`: instant, exact, unbounded weights), so simulated minus digital is what the "
        f"motors and pots cost; *ideal* also makes the retina ideal (`spec.ideal()`, the textbook "
        f"perceptron, as an IBM 704 simulation would be). Machine hours: the training's machine time on "
        f"the scene's machine.",
        "",
    ]
    if figure:
        lines += [f"![test accuracy of every scene against its report]({figure})", ""]
    lines += ["| scene | reported | simulated mean [95 %] | digital | ideal | seeds meeting | machine h | verdict |",
              "|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        rep = (">" if r["lower_bound"] else "") + f"{r['reported']:.1%}"
        flag = "**OUT OF BAND**" if r["verdict"] == "OUT OF BAND" else r["verdict"]
        lines.append(f"| {r['scene']} (`{Path(r['file']).name}`) | {rep} | "
                     f"{_interval(r['mean'], r['low'], r['high'])} | {r['digital_mean']:.1%} | "
                     f"{r['ideal_mean']:.1%} | "
                     f"{r['meeting']:.0%} | {r['machine_hours']:.2f} | {flag} |")
    misses = [r for r in rows if r["verdict"] != "within"]
    if misses:
        lines += ["", "## What may explain a miss", ""]
        for r in misses:
            lines.append(f"- **{r['scene']}** ({r['verdict']}, {r['mean']:.1%} against "
                         f"{'>' if r['lower_bound'] else ''}{r['reported']:.1%}): {r['explanation']}.")
    lines += ["", "## The reports", ""]
    for sc in result.scenes:
        rep = sc.reported
        extra = f" — {rep['note']}" if rep.get("note") else ""
        lines.append(f"- **{sc.name}**: {rep.get('conditions', '')}. Source: {rep.get('source', '')}{extra}. "
                     f"Here: {sc.conditions['a_units']} A-units, {sc.conditions['train_cards']} training cards "
                     f"× {sc.conditions['epochs']} epochs, {sc.conditions['test_cards']} test cards.")
    lines.append("")
    return "\n".join(lines)
