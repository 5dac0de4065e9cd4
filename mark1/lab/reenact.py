"""Re-enactment: every scene with a reported figure, over seeds, against its report.

``mark1 reenact [SCENES...] --seeds N`` trains each scene's machine and, beside it on
the same cards and wiring, the digital learner (``spec.digital()``: the same retina and
patch board, an ideal rack) and the textbook perceptron (``spec.ideal()``, as an IBM 704
simulation would be), on N seeds, and writes one page:
Markdown and a summary figure on a common accuracy axis. Per scene: the reported
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

import json
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mark1._utils.atomic import write_text
from mark1.stimuli.cards import experiment_seeds
from mark1._utils.records import jsonable
from mark1.lab import runner
from mark1.exceptions import InputError

__all__ = ["DEFAULT_TOLERANCE", "Reenactment", "band", "catalog", "reenact", "reenact_job",
           "reenact_figure", "verdict"]

#: Half-width of the band around a reported value (fraction of accuracy).
DEFAULT_TOLERANCE = 0.05

#: Columns of ``reenact.csv``: one row per (scene, seed).
REENACT_FIELDS = ("scene_file", "seed", "train_cards", "test_cards", "test_accuracy", "train_accuracy",
                  "machine_time_s",
                  "digital_test_accuracy", "digital_train_accuracy",
                  "ideal_test_accuracy", "ideal_train_accuracy", "wall_time_s",
                  "seed_train", "seed_test", "seed_machine")

_LOWER_BOUND = re.compile(r"more than|at least|lower bound", re.IGNORECASE)


def is_lower_bound(reported) -> bool:
    """Whether a scene's report is a lower bound ("more than 80 %")."""
    return bool(_LOWER_BOUND.search(f"{reported.note} {reported.conditions}"))


def band(reported, tolerance: float = DEFAULT_TOLERANCE) -> tuple[float, float]:
    """The accuracies that agree with a report: ``(low, high)``, fractions.

    ``[value - tolerance, value + tolerance]`` clipped to [0, 1], or ``[value, 1]`` for
    a lower bound.
    """
    v = reported.value
    if v is None:
        raise InputError("reported.value: the scene reports no figure, so it has no band")
    if is_lower_bound(reported):
        return float(v), 1.0
    return max(0.0, v - tolerance), min(1.0, v + tolerance)


def verdict(mean: float, low: float, high: float, band_: tuple[float, float]) -> str:
    """``"within"``, ``"OUT OF BAND"`` or ``"unclear"`` (see the module docstring).

    ``low``/``high`` is the 95 % interval of the mean (NaN with one seed: the mean
    alone decides, so outside the band is out of band).
    """
    b_lo, b_hi = band_
    eps = 1e-12
    if b_lo - eps <= mean <= b_hi + eps:
        return "within"
    if math.isnan(low) or math.isnan(high) or high < b_lo - eps or low > b_hi + eps:
        return "OUT OF BAND"
    return "unclear"


def catalog(folder=None) -> list[Path]:
    """The scene files in ``folder`` (default: the shipped scenes) that report a figure."""
    from mark1.stimuli.scenes import SCENES_DIR, load_scene

    folder = Path(folder) if folder is not None else Path(SCENES_DIR)
    return [p for p in sorted(folder.glob("*.toml")) if load_scene(p).reported.value is not None]


# ----------------------------------------------------------------------------------------
# one job


def reenact_job(scene_ref, seed: int, train_count: int | None = None, test_count: int | None = None) -> dict:
    """One seed of one scene: its machine, the digital learner and the ideal machine.

    All three on the same cards and machine seed (so the same patch board).

    Top level and picklable. Returns the fields of :data:`REENACT_FIELDS`.
    """
    from mark1.machine.mark_i import MarkI

    scene = runner.as_scene(scene_ref)
    train, test, seed_machine = runner.run_cards(scene, seed, train_count, test_count)
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
        from mark1.lab.stats import clip_interval, mean_interval

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
    """Every scene of a re-enactment, over the same seeds."""

    scenes: list
    seeds: list
    tolerance: float
    config: dict = field(default_factory=dict)

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
        return jsonable({"seeds": self.seeds, "tolerance": self.tolerance, "config": self.config,
                         "scenes": self.rows(),
                         "records": [r for sc in self.scenes for r in sc.records]})

    def csv_text(self) -> str:
        return runner.csv_text([r for sc in self.scenes for r in sc.records], REENACT_FIELDS)


def _interval(m, lo, hi) -> str:
    if lo is None or math.isnan(lo):
        return f"{m:.1%}"
    return f"{m:.1%} [{lo:.1%}, {hi:.1%}]"


def reenact(scenes=None, *, seeds=5, tolerance: float = DEFAULT_TOLERANCE, executor=None, out=None,
            resume: bool = False, progress: bool = False, train_count: int | None = None,
            test_count: int | None = None, page=None, command: str | None = None,
            note: str = "") -> Reenactment:
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
        The Markdown page (default ``out/REENACTMENT.md``); its figure is written beside
        it with the same name in lower case and the ending ``.png``.
    command : str, optional
        The command line quoted on the page as the way to regenerate it.
    note : str
        A paragraph added to the page (e.g. why fewer seeds were run).

    Returns
    -------
    Reenactment

    Raises
    ------
    ValueError
        For a scene without a reported figure, bad seeds, counts or tolerance.
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance <= 0.5:
        raise InputError(f"tolerance: expected a fraction from 0 to 0.5, got {tolerance!r}")
    scene_objs = [runner.as_scene(s) for s in (catalog() if scenes is None else scenes)]
    if not scene_objs:
        raise InputError("scenes: expected at least one scene with a reported figure")
    for sc in scene_objs:
        if sc.reported.value is None:
            raise InputError(f"{sc.path or sc.name}: [reported] has no value, so there is nothing to re-enact "
                             f"(expected a scene with a reported figure)")
    seed_ids = runner.seed_list(seeds)
    train_count = runner.count_option(train_count, "train_count")
    test_count = runner.count_option(test_count, "test_count")
    stems = [Path(sc.path).stem if sc.path else sc.name.replace(" ", "_") for sc in scene_objs]
    if len(set(stems)) != len(stems):
        raise InputError(f"scenes: expected distinct scenes, got {stems}")
    jobs = [(runner.scene_ref(sc), s, train_count, test_count) for sc in scene_objs for s in seed_ids]
    keys = [f"{stem}-seed-{s:04d}" for stem in stems for s in seed_ids]
    config = {"study": "reenact", "version": 1, "train_count": train_count, "test_count": test_count,
              "scenes": {stem: runner.scene_digest(sc) for stem, sc in zip(stems, scene_objs)}}
    records = None
    if out is not None:
        expected = {k: j[1] for k, j in zip(keys, jobs)}

        def valid(key, rec):
            return (all(f in rec for f in REENACT_FIELDS) and rec["seed"] == expected[key]
                    and 0.0 <= rec["test_accuracy"] <= 1.0)
        records = runner.Records(Path(out) / "jobs", config, valid=valid)
    results = runner.run_jobs(reenact_job, jobs, executor=executor, keys=keys, records=records, resume=resume,
                              progress="runs" if progress else None)
    per_scene = []
    for i, sc in enumerate(scene_objs):
        recs = list(results[i * len(seed_ids):(i + 1) * len(seed_ids)])
        rep = sc.reported
        per_scene.append(SceneResult(
            file=str(sc.path) if sc.path else sc.name, name=sc.name,
            reported={"value": rep.value, "source": rep.source, "conditions": rep.conditions, "note": rep.note},
            band=band(rep, tolerance), lower_bound=is_lower_bound(rep),
            conditions={"a_units": sc.machine_spec().patchboard.n_associators,
                        "train_cards": recs[0]["train_cards"], "test_cards": recs[0]["test_cards"],
                        "epochs": sc.schedule.epochs},
            records=recs))
    result = Reenactment(scenes=per_scene, seeds=seed_ids, tolerance=float(tolerance), config=config)
    if out is not None:
        out = Path(out)
        write_text(out / "reenact.csv", result.csv_text())
        write_text(out / "reenact.json", json.dumps(result.to_json(), indent=1) + "\n")
        page = Path(page) if page is not None else out / "REENACTMENT.md"
        figure = page.with_name(page.stem.lower() + ".png")
        reenact_figure(result, out=figure)
        write_text(page, reenact_markdown(result, figure=figure.name, note=note,
                                          command=command or f"mark1 reenact --seeds {len(seed_ids)}"))
    return result


# ----------------------------------------------------------------------------------------
# the page and its figure


def reenact_markdown(result: Reenactment, *, figure: str | None, command: str, note: str = "") -> str:
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


def reenact_figure(result: Reenactment, *, out=None):
    """Every scene on one accuracy axis: its band, its report, its seeds and their mean.

    One row per scene: the band (grey), the reported figure (black diamond; a
    triangle for a lower bound), each seed's test accuracy (faint dots), the mean with
    its 95 % interval (red when out of band, orange when unclear, green within) and
    the digital learner's mean (open circle) and the ideal machine's (open square).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from mark1.viz.figure import new_figure, save_figure

    rows = result.rows()
    fig = new_figure(10.0, 1.4 + 0.5 * len(rows))
    ax = fig.add_subplot(1, 1, 1)
    colors = {"within": "tab:green", "unclear": "tab:orange", "OUT OF BAND": "tab:red"}
    for i, (r, sc) in enumerate(zip(rows, result.scenes)):
        y = len(rows) - 1 - i
        ax.fill_betweenx([y - 0.32, y + 0.32], r["band_low"] * 100, r["band_high"] * 100, color="0.85",
                         linewidth=0, zorder=0, label="band of the report" if i == 0 else None)
        acc = np.array([rec["test_accuracy"] for rec in sc.records]) * 100
        ax.scatter(acc, np.full(len(acc), y - 0.15), s=9, color="0.45", alpha=0.5, zorder=1,
                   label="one seed" if i == 0 else None)
        c = colors[r["verdict"]]
        err = None if math.isnan(r["low"]) else [[(r["mean"] - r["low"]) * 100], [(r["high"] - r["mean"]) * 100]]
        ax.errorbar([r["mean"] * 100], [y], xerr=err, fmt="o", color=c, markersize=6, capsize=3, zorder=3)
        ax.scatter([r["digital_mean"] * 100], [y + 0.17], s=28, facecolors="none", edgecolors="tab:blue",
                   zorder=3, label="digital learner, mean" if i == 0 else None)
        ax.scatter([r["ideal_mean"] * 100], [y + 0.17], s=28, marker="s", facecolors="none",
                   edgecolors="tab:purple", zorder=3, label="ideal machine, mean" if i == 0 else None)
        ax.scatter([r["reported"] * 100], [y], marker=">" if r["lower_bound"] else "D", s=40, color="k",
                   zorder=4, label="reported" if i == 0 else None)
    for v, c in colors.items():
        ax.errorbar([], [], xerr=[], fmt="o", color=c, label=f"simulated mean, 95 % interval: {v.lower()}")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r["scene"] for r in reversed(rows)], fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    lo = min([r["band_low"] for r in rows] + [np.min([rec["test_accuracy"] for sc in result.scenes
                                                       for rec in sc.records])])
    ax.set_xlim(max(0.0, math.floor(lo * 10) * 10 - 5), 101)
    ax.set_xlabel("test accuracy (%)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(f"simulated Mark I against the reported figures — {len(result.seeds)} seed(s)", fontsize=9)
    fig.tight_layout()
    if out is not None:
        save_figure(fig, out, dpi=120, bbox_inches="tight")
    return fig


# ----------------------------------------------------------------------------------------
# command line


def add_command(subparsers) -> None:
    """Register ``mark1 reenact`` on an argparse subparsers object."""
    re_ = subparsers.add_parser("reenact", help="every scene with a reported figure, over seeds, "
                                                "judged against its report (one page)")
    re_.add_argument("scenes", nargs="*", metavar="SCENE",
                     help="scene files (default: every shipped scene with a reported figure)")
    re_.add_argument("--seeds", type=int, default=10, help="number of seeds, 0..N-1 (default 10)")
    re_.add_argument("--out", help="folder for the records and results (default runs/reenact)")
    re_.add_argument("--page", metavar="FILE.md",
                     help="where to write the Markdown page (default OUT/REENACTMENT.md); "
                          "its figure goes beside it")
    re_.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE,
                     help=f"half-width of a report's band, fraction (default {DEFAULT_TOLERANCE})")
    re_.add_argument("--workers", type=int,
                     help="processes on this computer (default: CPU count; 1 runs in this process)")
    re_.add_argument("--scheduler", metavar="ADDRESS", help="run the jobs on a Dask cluster, e.g. tcp://host:8786")
    re_.add_argument("--train-count", type=int, help="training cards instead of each scene's")
    re_.add_argument("--test-count", type=int, help="test cards instead of each scene's")
    re_.add_argument("--resume", action="store_true", help="skip jobs already recorded in --out")
    re_.add_argument("--memory-limit", type=float, metavar="GB",
                     help="memory the runs may use together (default: 80 %% of this computer's)")
    re_.add_argument("--note", default="", help="a paragraph for the page (e.g. which code version, why few seeds)")
    re_.add_argument("--json", action="store_true", help="print the result as JSON")
    re_.set_defaults(func=cmd_reenact)


def cmd_reenact(args) -> int:
    """``mark1 reenact``: check everything, run, write the page, print the table."""
    import argparse
    import shlex

    from mark1.stimuli.scenes import SceneError, load_scene
    from mark1.lab.options import UsageError, check_run_options, check_scene, output_folder, workers_for

    check_run_options(args)
    if not 0 <= args.tolerance <= 0.5:
        raise UsageError(f"--tolerance: expected a fraction from 0 to 0.5, got {args.tolerance}")
    out = output_folder(argparse.Namespace(out=args.out or str(Path("runs") / "reenact"), scene=""))
    page = None
    if args.page is not None:
        page = Path(args.page)
        if page.suffix.lower() != ".md" or page.is_dir():
            raise UsageError(f"--page: expected a Markdown file name ending in .md, got {args.page!r}")
        try:
            output_folder(argparse.Namespace(out=str(page.parent), scene=""))
        except UsageError as e:
            raise UsageError(str(e).replace("--out", "--page", 1)) from None
    try:
        files = [str(p) for p in catalog()] if not args.scenes else list(args.scenes)
        scenes = [load_scene(f) for f in files]
    except SceneError as e:
        raise UsageError(str(e)) from None
    workers = workers_for(args, len(scenes) * args.seeds)
    for f, sc in zip(files, scenes):
        if sc.reported.value is None:
            raise UsageError(f"{f}: [reported] has no value; expected a scene with a reported figure")
        check_scene(args, sc, at_once=workers, label=f)
    command = " ".join(["mark1 reenact", *map(shlex.quote, args.scenes), f"--seeds {args.seeds}"]
                       + ([f"--tolerance {args.tolerance:g}"] if args.tolerance != DEFAULT_TOLERANCE else [])
                       + [f"--{k.replace('_', '-')} {getattr(args, k)}" for k in ("train_count", "test_count")
                          if getattr(args, k) is not None]
                       + ([f"--out {shlex.quote(args.out)}"] if args.out else [])
                       + ([f"--page {shlex.quote(args.page)}"] if args.page else []))
    t0 = time.perf_counter()
    try:
        with runner.executor_for(workers, args.scheduler) as ex:
            result = reenact(scenes, seeds=args.seeds, tolerance=args.tolerance, executor=ex, out=out,
                             resume=args.resume, progress=not args.json, train_count=args.train_count,
                             test_count=args.test_count, page=page, command=command, note=args.note)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    print(result.table())
    page = page or out / "REENACTMENT.md"
    print(f"wall {time.perf_counter() - t0:.1f} s; written: {page}, {page.with_name(page.stem.lower() + '.png')}, "
          f"{out}/reenact.csv, reenact.json, jobs/")
    return 0
