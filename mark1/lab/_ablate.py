"""Which non-ideality costs most: each alone on, each alone off, paired over seeds (``mark1 ablate``).

Two arms per non-ideality, each against its own reference machine, on the same seeds:

* **alone on**: the ideal machine with only this non-ideality on (``spec.only(name)``),
  against the ideal machine;
* **alone off**: the full machine with only this one off (``spec.without(name)``),
  against the full machine.

Every variant of a seed sees the same training and test cards and the same machine
seed (the same patch board and noise streams), so the arms are *paired*: the cost of a
non-ideality on seed ``s`` is the difference of two runs that differ only by it. One
sign convention throughout: **cost = points lost because of it**, i.e.
accuracy without it minus accuracy with it (ideal − on-alone; off-alone − full), in
percentage points of test accuracy; positive means it hurts.

**Intervals and the family.** Each arm's mean cost carries a 95 % interval of the
per-seed differences from :mod:`mark1.stats` (the hull of Student's t and Hall's
skewness-corrected t, clipped to [−100, +100] points); below :data:`mark1.stats.MIN_SEEDS`
seeds there is no interval and no verdict. The arms whose machine differs from their reference are one
family, controlled by Holm's step-down (a family-wise error rate of 5 %): each arm's
interval is widened to the level Holm tested it at, and every verdict and star reads that
adjusted interval, so a table of ~30 arms does not show one arm away from 0 by chance
alone. A non-ideality that changes nothing on any seed reports exactly 0.

A **starting point** (``at``) sets machine parameters before the study, so that the
non-idealities are ranked at a stressed operating point without a copy of the scene.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from collections.abc import Callable, Mapping

from mark1._utils.atomic import write_text
from mark1._utils.html import clip, figure_function, html_table, study_html
from mark1._utils.records import jsonable
from mark1.exceptions import InputError
from mark1.lab._common import (Piloted, aligned, check_figure, check_precision, csv_text, draw, hours_cell, pct,
                               run_to_precision, study_inputs, write_json)
from mark1.lab.runner import (Records, SceneLike, Seeds, StrPath, as_scene, job, run_cards, run_jobs, scene_digest,
                              scene_ref)
from mark1.lab._sweep import (_crosses_cliff, _energy_of, _warn_cliff, at_text, joules_cell, parse_at, start_spec,
                              value_text)
from mark1 import stats
from mark1.stats import summarize
from mark1.lab._family import (INTERVAL_FIELDS, caption, diff_cell, family_lines, interval_fields,
                               precision_line)
from mark1.machine.mark_i import MarkI
from mark1.specs import NON_IDEALITIES

__all__ = ["ablate", "Ablation", "VERDICTS", "paired_cost"]

_VERSION = 2

#: Fields of ``ablation.csv``: one row per variant; cost fields for the two arms only.
ABLATION_FIELDS = ("variant", "kind", "non_ideality", "reference", "test_mean", "test_std", "n", "train_mean",
                   "cost_points", *INTERVAL_FIELDS, "raw_low", "raw_high", "verdict", "machine_time_h_mean",
                   "machine_time_h_std", "machine_time_h_change", "energy_j_mean", "energy_per_correction_j_mean",
                   "same_as")

#: The family-wise error rate the arms are controlled at (Holm).
FAMILY_ALPHA = 1.0 - stats.LEVEL
#: How the arms' family is controlled.
CORRECTION: Literal["holm"] = "holm"

#: The verdicts on a cost, from its per-seed paired differences.
VERDICTS = {
    "zero": "exactly 0 (same accuracy on every seed)",
    "null": "not distinguishable from 0",
    "cost": "costs points",
    "gain": "gains points",
    "few": "too few seeds: no interval, no verdict",
}


def _verdict(costs: list[float], c: stats.Compared) -> str:
    """A key of :data:`VERDICTS` from the per-seed costs and the arm's place in its family."""
    if costs and all(x == 0.0 for x in costs):
        return "zero"
    if c.decided is None:
        return "few"
    if not c.decided:
        return "null"
    return "cost" if c.raw.mean > 0.0 else "gain"


def paired_cost(without: list[float], with_: list[float]) -> dict[str, Any]:
    """The cost of a non-ideality from paired runs, standing alone: accuracy without it minus with it.

    Parameters
    ----------
    without, with_ : list of float
        Test accuracy (fraction) per seed, the same seeds in the same order.

    Returns
    -------
    dict
        ``costs`` (per seed, fraction), ``mean``, ``interval`` (the 95 % interval of the
        mean cost, :func:`mark1.stats.difference_interval`, inside [−1, 1]; none below
        :data:`mark1.stats.MIN_SEEDS` seeds), ``p`` (:func:`mark1.stats.p_value`; None
        without an interval) and ``verdict`` (a key of :data:`VERDICTS`, as for a family
        of one: :func:`ablate` reads its arms' verdicts from the Holm-adjusted intervals).

    Raises
    ------
    InputError
        For arms of different lengths, or empty ones.

    Examples
    --------
    >>> c = paired_cost([0.95, 0.90, 0.92], [0.90, 0.85, 0.88])
    >>> [round(x, 2) for x in c["costs"]], round(c["mean"], 4), c["verdict"]
    ([0.05, 0.05, 0.04], 0.0467, 'few')
    >>> c = paired_cost([0.95, 0.90, 0.92, 0.93, 0.91] * 2, [0.90, 0.85, 0.88, 0.90, 0.90] * 2)
    >>> print(c["interval"].format(scale=100, signed=True), c["verdict"])
    +3.6 [+2.2, +4.7] cost
    >>> paired_cost([0.9, 0.8], [0.9, 0.8])["verdict"]
    'zero'
    """
    if len(without) != len(with_) or not without:
        raise InputError("paired_cost: expected the same seeds, at least one, in both arms")
    costs = [a - b for a, b in zip(without, with_)]
    (c,) = stats.family([costs], (-1.0, 1.0), correction="none")
    return {"costs": costs, "mean": c.raw.mean, "interval": c.raw, "p": c.p, "verdict": _verdict(costs, c)}


@dataclass
class Ablation(Piloted):
    """Each non-ideality alone on the ideal machine and alone off the full machine.

    Attributes
    ----------
    scene : str
    seeds : list of int
    rows : list of dict
        One per variant: ``variant`` (e.g. ``"on:backlash"``), ``kind`` (``"reference"``,
        ``"on_alone"``, ``"off_alone"``), ``non_ideality`` (None for the references
        ``full`` and ``ideal``), ``reference`` (the variant an arm is compared with),
        ``test_mean``, ``test_std``, ``n``, ``train_mean``, ``machine_time_h_mean``,
        ``machine_time_h_std``, ``same_as`` (the variant with an identical machine whose
        runs were reused, or None), ``test_accuracy`` and ``machine_time_s`` (one per
        seed). The arms also carry ``cost_points`` (mean cost in percentage points:
        accuracy without it minus with it), ``low``, ``high`` (its interval in points,
        Holm-adjusted over the family of arms, at ``level``; None below
        :data:`mark1.stats.MIN_SEEDS` seeds), ``raw_low``, ``raw_high`` (the 95 %
        interval as if the arm stood alone), ``method``, ``correction``, ``p`` and
        ``p_adjusted`` (None for an arm whose machine is its reference's, or too few
        seeds), ``costs`` (per seed, points), ``verdict`` (see :data:`VERDICTS`, from the
        adjusted interval) and ``machine_time_h_change`` (mean change of machine time against the reference,
        hours; None where it is the same on every seed).
    non_idealities : list of str
    at : dict
        The starting point: machine parameters set before the study (``ablate``'s ``at``).
    cliff : str or None
        The line of :func:`mark1.lab.cliff_warning` when a variant crosses a known cliff.
    pilot : list of int
        A run to a precision's pilot seeds (in ``seeds``, left out of the rows' figures and
        intervals); empty otherwise.
    precision : float or None
        The half-width a run to a precision was asked for (a fraction).

    Examples
    --------
    >>> result = ablate("scenes/demo.toml", seeds=1, train_count=4, test_count=4)
    >>> result.row("full")["kind"], result.row("on:backlash")["reference"]
    ('reference', 'ideal')
    >>> result.row("off:ratchet")["same_as"]          # the same machine as the full one: not run again
    'full'
    """

    scene: str
    seeds: list
    rows: list
    non_idealities: list
    at: dict = field(default_factory=dict)
    cliff: str | None = None
    pilot: list = field(default_factory=list)
    precision: float | None = None

    def row(self, variant: str) -> dict:
        """The row of ``variant`` (``"full"``, ``"ideal"``, ``"on:NAME"``, ``"off:NAME"``).

        Raises
        ------
        InputError
            For a variant this ablation does not have, naming those it has.
        """
        for r in self.rows:
            if r["variant"] == variant:
                return r
        raise InputError(f"variant: expected one of {', '.join(r['variant'] for r in self.rows)}, got {variant!r}")

    def family(self) -> list[dict]:
        """The arms of the Holm family: those whose machine differs from their reference's
        (in the order of the rows; an arm with too few seeds is in it without a test)."""
        return [r for r in self.rows if r["kind"] != "reference" and not r.get("same_machine")]

    def compared(self) -> list[stats.Compared]:
        """The family's comparisons (:func:`mark1.stats.family`, Holm), in the order of :meth:`family`."""
        return stats.family([[c / 100.0 for c in r["costs"]] for r in self.family()], (-1.0, 1.0),
                            correction=CORRECTION)

    def seeds_line(self) -> str | None:
        """The seeds the family would need for ±1 and ±0.5-point intervals, from its own spread."""
        return stats.seeds_line([[c / 100.0 for c in r["costs"]] for r in self.family()])

    def table(self) -> str:
        """Plain text: per non-ideality and arm, the cost with its Holm-adjusted interval, its p-values
        (raw and adjusted) and the verdict read from the adjusted interval; the method, the family
        and the seeds a precision needs under it."""
        head, rows, notes = self._cells()
        return "\n".join([*aligned(head, rows, left=(0, 1, 6)), "", *notes])

    def __repr__(self) -> str:
        arms = [r for r in self.rows if r["kind"] != "reference"]
        costly = sum(r["verdict"] == "cost" for r in arms)
        return clip(f"Ablation(scene={self.scene!r}, {len(self.non_idealities)} non-idealities, "
                    f"{len(self.seeds)} seed(s), {costly} of {len(arms)} arms cost accuracy)")

    def _repr_html_(self) -> str:
        head, rows, notes = self._cells()
        m = len(self.family())
        return study_html(f"Ablation: {self.scene}",
                          html_table(head, rows, left=(0, 1, 6), caption=caption(CORRECTION, m), notes=notes),
                          figure_function("Ablation"), self)

    def _cells(self) -> tuple[tuple, list, list]:
        """The table's head, its rows (cells as text) and the lines under it."""
        full, ideal = self.row("full"), self.row("ideal")
        fam = self.family()
        compared = self.compared()
        by_variant = dict(zip((r["variant"] for r in fam), compared))
        m = len(compared)
        head = ("non-ideality", "arm", "accuracy", f"cost (pt), Holm-adjusted {100 * stats.LEVEL:g} % interval",
                "p", f"p Holm ({m} arms)", "verdict (adjusted interval)", "machine time", "energy of learning")
        rows = [("(reference)", "ideal", pct(ideal["test_mean"]), "", "", "", "",
                 hours_cell(ideal["machine_time_h_mean"]), _energy_cell(ideal)),
                ("(reference)", "full", pct(full["test_mean"]), "", "", "", "",
                 hours_cell(full["machine_time_h_mean"]), _energy_cell(full))]
        for n in self.non_idealities:
            for prefix, arm in (("on", "alone on"), ("off", "alone off")):
                r = self.row(f"{prefix}:{n}")
                c = by_variant.get(r["variant"])
                if c is None:                                # the reference's own machine: exactly 0
                    cost = f"{r['cost_points']:+.1f} (the reference's machine)"
                else:
                    cost = diff_cell(c.interval) + (" *" if c.decided else "")
                rows.append((n if prefix == "on" else "", arm, pct(r["test_mean"]), cost, _p_cell(r.get("p")),
                             _p_cell(r.get("p_adjusted")), VERDICTS[r["verdict"]],
                             "same" if r["machine_time_h_change"] is None
                             else hours_cell(r["machine_time_h_mean"], r["machine_time_h_change"]),
                             _energy_cell(r)))
        lines = []
        lines.append(f"{self.scene}: test accuracy, mean of {len(self.counted)} paired seed(s) (same cards, "
                     "board and noise in every variant)"
                     + (f", starting at {at_text(self.at)} (the full machine)." if self.at else "."))
        lines.append("cost = points lost because of it: ideal - (ideal + it) for 'alone on', "
                     "(full - it) - full for 'alone off'; positive hurts.")
        lines += family_lines(compared, [[c / 100.0 for c in r["costs"]] for r in fam], CORRECTION,
                              ns=[len(self.counted)])
        if self.pilot:
            lines.append(precision_line(self.precision, self.pilot, self.counted, compared))
        lines.append(f"p: the test the interval inverts, raw; p Holm: adjusted over the {m} arms of the family "
                     f"(an arm on its reference's machine is none); * marks an adjusted interval that "
                     f"excludes 0 (Holm p < {FAMILY_ALPHA:g}).")
        lines.append("machine time: 'same' when equal to the reference's on every seed, else the variant's (change). "
                     "energy of learning: the variant's mean joules a run spent turning pots (and a correction; "
                     "mark1.machine.energy).")
        return head, rows, lines

    def to_json(self) -> dict:
        """Everything as JSON-safe values, with the sign convention spelled out (``ablation.json``)."""
        m = len(self.family())
        return {"scene": self.scene, "seeds": self.seeds, "non_idealities": self.non_idealities,
                "at": {k: value_text(v) for k, v in self.at.items()}, "rows": self.rows,
                "sign": "cost = accuracy without the non-ideality minus accuracy with it (points lost)",
                "interval": f"{100 * stats.LEVEL:g} % {stats.METHOD}, of the per-seed paired costs; low/high "
                            "Holm-adjusted, raw_low/raw_high alone",
                "family": stats.correction_words(CORRECTION, m),
                "min_seeds": stats.MIN_SEEDS, "seeds_needed": self.seeds_line(), "cliff": self.cliff,
                "pilot": self.pilot, "precision": self.precision}


def _mean_change_h(dt: list) -> float:
    """The mean of per-seed changes of machine time (s) in hours; changes that cancel to float noise
    (+15.0, -22.5, +7.5 s: 5.7e-15 s) are 0, not a change printed to sixteen places."""
    mean = sum(dt) / len(dt)
    return 0.0 if abs(mean) < 1e-9 * max(abs(d) for d in dt) else mean / 3600.0


def _energy_cell(r) -> str:
    """A variant's mean energy of learning as a table cell (``-`` for records from before energy was counted)."""
    return joules_cell(r.get("energy_j_mean"), r.get("energy_per_correction_j_mean"))


def _p_cell(p) -> str:
    """A p-value as a table cell: three decimals, ``<0.001`` below, ``-`` for none."""
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _ablation_variants(spec) -> list[tuple[str, str, str | None, Any]]:
    """(variant, kind, non-ideality, MachineSpec) for :func:`ablate`, references first.

    The non-idealities are those of :data:`mark1.specs.NON_IDEALITIES` that ``spec`` has
    on, plus ``"ratchet"`` always: when the spec drives its pots continuously, the
    ratchet's "on alone" is the ideal machine with ``rack.drive = "ratchet"`` and its
    "off alone" is the full machine itself.
    """
    names = [n for n in NON_IDEALITIES if spec.is_on(n)]
    if "ratchet" not in names:
        names.append("ratchet")
    out: list[tuple[str, str, str | None, Any]] = [("full", "reference", None, spec),
                                                   ("ideal", "reference", None, spec.ideal())]
    for n in names:
        if n == "ratchet" and not spec.is_on("ratchet"):
            on = spec.ideal().with_overrides({"rack.drive": "ratchet"})
        else:
            on = spec.only(n)
        out.append((f"on:{n}", "on_alone", n, on))
        out.append((f"off:{n}", "off_alone", n, spec.without(n)))
    return out


def _cliff_cases(variants, at: dict) -> list:
    """The (label, spec) pairs :func:`mark1.lab.cliff_warning` reads: the full machine standing for
    every variant built on it when it crosses, else each variant by name."""
    crossing = [(name, spec) for name, _, _, spec in variants if _crosses_cliff(spec)]
    full = next(spec for name, _, _, spec in variants if name == "full")
    if _crosses_cliff(full):
        start = f" (starting at {at_text(at)})" if at else ""
        return [(f"the full machine{start} and {len(crossing) - 1} variants built on it", full)]
    return [(name if name in ("full", "ideal") else f"arm {name}", spec) for name, spec in crossing]


def _spec_key(spec) -> str:
    d = spec.to_dict()
    d.pop("name", None)
    return json.dumps(jsonable(d), sort_keys=True)


@job
def _ablation_job(scene_ref, seed: int, spec, train_count: int | None = None,
                  test_count: int | None = None) -> dict:
    """One seed of one machine variant of :func:`ablate` (top level, picklable)."""
    scene = as_scene(scene_ref)
    train, test, s_machine = run_cards(scene, seed, train_count, test_count)
    t0 = time.perf_counter()
    m = MarkI(spec=spec, seed=s_machine).fit(train.cards, train.labels, epochs=scene.schedule.epochs,
                                             order=scene.schedule.order)
    train_acc = m.score(train.cards, train.labels)          # train first, as compare and `mark1 run`
    return {"test_accuracy": m.score(test.cards, test.labels), "train_accuracy": train_acc,
            "machine_time_s": float(m.machine_time_), **_energy_of(m), "wall_time_s": time.perf_counter() - t0}


def _arm_statistics(rows: list[dict]) -> None:
    """Each arm's per-seed costs, its place in the Holm family of arms, its adjusted interval and its
    verdict, added to ``rows`` (the variants' rows with their per-seed ``test_accuracy`` and
    ``machine_time_s``)."""
    by_name = {r["variant"]: r for r in rows}
    for r in rows:
        if r["reference"] is None:
            continue
        ref_row = by_name[r["reference"]]
        if r["kind"] == "on_alone":                       # ideal - (ideal + it)
            costs = [a - b for a, b in zip(ref_row["test_accuracy"], r["test_accuracy"])]
        else:                                             # (full - it) - full
            costs = [a - b for a, b in zip(r["test_accuracy"], ref_row["test_accuracy"])]
        dt = [a - b for a, b in zip(r["machine_time_s"], ref_row["machine_time_s"])]
        # the reference machine itself is no test (its "cost" is 0 by construction)
        same = (r.get("same_as") or r["variant"]) == (ref_row.get("same_as") or ref_row["variant"])
        r.update(cost_points=100.0 * sum(costs) / len(costs), costs=[100.0 * x for x in costs], same_machine=same,
                 machine_time_h_change=None if all(d == 0.0 for d in dt) else _mean_change_h(dt))
    arms = [r for r in rows if r["reference"] is not None]
    fam = [r for r in arms if not r["same_machine"]]
    compared = stats.family([[c / 100.0 for c in r["costs"]] for r in fam], (-1.0, 1.0), correction=CORRECTION)
    by_variant = dict(zip((r["variant"] for r in fam), compared))
    for r in arms:
        c = by_variant.get(r["variant"])
        if c is None:
            r.update(low=0.0, high=0.0, level=None, method=None, correction=None, p=None, p_adjusted=None,
                     raw_low=0.0, raw_high=0.0, verdict="zero")
            continue
        r.update(interval_fields(c, scale=100.0),
                 raw_low=None if c.raw.low is None else 100.0 * c.raw.low,
                 raw_high=None if c.raw.high is None else 100.0 * c.raw.high,
                 verdict=_verdict(r["costs"], c))


def ablate(scene: SceneLike, *, seeds: Seeds = 10, at: Mapping[str, Any] | None = None,
           executor: Executor | None = None, out: StrPath | None = None, resume: bool = False,
           progress: bool = False, train_count: int | None = None,
           test_count: int | None = None, figure: Callable | None = None, precision: float | None = None,
           max_seeds: int = 200) -> Ablation:
    """Which non-ideality costs most: each one alone on, and alone off, paired over seeds.

    For every non-ideality the scene's machine has on (and the ratchet, always):
    (a) the ideal machine with only that one on (``spec.only(name)``), compared with
    the ideal machine, and (b) the full machine with only that one off
    (``spec.without(name)``), compared with the full machine. All variants of a seed
    share its cards and machine seed, so each cost is a paired difference (see
    :func:`paired_cost`). Variants with identical machines are run once. The arms are
    one family, controlled by Holm's method: every arm's interval is the Holm-adjusted one
    (:func:`mark1.stats.family`) and its verdict reads it; below
    :data:`mark1.stats.MIN_SEEDS` seeds there is no interval and no verdict.

    Parameters
    ----------
    scene : Scene or str
        A scene or a scene file; its machine is the full one.
    seeds : int or sequence of int
        ``n`` means seeds ``0 .. n-1``; every variant runs on every seed (paired). At least
        :data:`mark1.stats.MIN_SEEDS` (10, the default) for intervals and verdicts.
    at : mapping, optional
        The starting point: machine parameters set on the scene's machine before the
        study, e.g. ``{"rack.drive": "ratchet", "rack.step": 0.015}``
        (:func:`mark1.lab.parse_at`); the full machine is then the scene's with these, the
        same runs as with the scene's ``[machine.overrides]`` edited.
    executor : concurrent.futures.Executor, optional
        Runs the jobs (one per distinct machine and seed); results do not depend on it.
    out : str or path-like, optional
        Folder for one record per job (``jobs/``, written as each finishes) and
        ``ablation.csv``, ``ablation.json`` and the figure (see ``figure``) at the end
        (atomic).
    resume : bool
        Skip the (machine, seed) runs whose record in ``out/jobs`` matches this ablation.
    progress : bool
        A progress bar over the runs of distinct machines, on a terminal or in Jupyter.
    train_count, test_count : int, optional
        Card counts instead of the scene's, the same for every variant.
    figure : callable, optional
        Draws the ablation's figure, called as ``figure(ablation, out=out /
        "ablation.png")``; needs ``out``. ``mark1 ablate`` passes
        :func:`mark1.viz.studies.ablation_figure`.
    precision : float, optional
        Points: run until every arm's interval is about ±``precision``. ``seeds`` (at
        least 10) are then a pilot that fixes, by Stein's rule, how many new seeds to run
        (:func:`mark1.lab._common.run_to_precision`); the intervals count the new seeds only,
        the pilot's runs are kept (``pilot_test_accuracy``, ``pilot_costs``). The same seeds
        give the same bits, and ``resume`` reads back every run recorded.
    max_seeds : int
        With ``precision``: the most seeds in all, the pilot's included.

    Returns
    -------
    Ablation

    Warns
    -----
    CliffWarning
        When a variant runs on the ratchet with a step above the trainer's increment
        (:func:`mark1.lab.cliff_warning`), before any run.

    Raises
    ------
    InputError
        For bad seeds or counts, ``resume`` or ``figure`` without ``out``; a SpecError
        naming the key for a bad starting point.

    Examples
    --------
    >>> result = ablate("scenes/demo.toml", seeds=1, train_count=4, test_count=4)
    >>> result.non_idealities[:3]
    ['lens', 'photocell_dynamics', 'light_history']
    >>> result.row("full")["test_mean"], result.row("ideal")["test_mean"]
    (1.0, 0.75)
    >>> result.row("on:backlash")["cost_points"], result.row("on:backlash")["verdict"]    # 4 cards: no difference
    (0.0, 'zero')
    """
    scene, seed_ids, train_count, test_count = study_inputs(scene, seeds, train_count, test_count)
    fraction, max_seeds = check_precision(precision, max_seeds, seed_ids)
    at = parse_at(at)
    check_figure(figure, out)
    variants = _ablation_variants(start_spec(scene, at))
    cliff = _warn_cliff(_cliff_cases(variants, at))
    first_of: dict[str, str] = {}
    unique = []
    for name, _, _, spec in variants:
        key = _spec_key(spec)
        if key not in first_of:
            first_of[key] = name
            unique.append((name, spec))
    ref = scene_ref(scene)
    store = None
    if out is not None:
        config = {"version": _VERSION, "scene": scene.name, "scene_sha256": scene_digest(scene),
                  "train_count": train_count, "test_count": test_count,
                  "variants": {name: _spec_key(spec) for name, spec in unique}}
        if at:                                            # the variants' specs say it too; this says why
            config["at"] = {k: value_text(v) for k, v in at.items()}
        store = Records(Path(out) / "jobs", config,
                        valid=lambda key, r: (0.0 <= r["test_accuracy"] <= 1.0 and r["machine_time_s"] >= 0
                                              and "energy_j" in r))

    def run(ids: list[int]) -> list:
        # seed-major order: a worker running several variants of a seed renders its cards once
        order = [(name, spec, s) for s in ids for name, spec in unique]
        jobs = [(ref, s, spec, train_count, test_count) for _, spec, s in order]
        keys = [f"{name.replace(':', '-')}-seed-{s:04d}" for name, _, s in order]
        res = run_jobs(_ablation_job, jobs, executor=executor, keys=keys, records=store, resume=resume,
                       progress="runs" if progress else None)
        return [(name, s, r) for (name, _, s), r in zip(order, res)]

    def rows_of(done: list, ids: list[int]) -> list[dict]:
        per_variant: dict[str, dict] = {name: {} for name, _ in unique}
        for name, s, r in done:
            per_variant[name][s] = r
        rows = []
        for name, kind, ni, spec in variants:
            src = first_of[_spec_key(spec)]
            runs = [per_variant[src][s] for s in ids]
            acc = summarize([r["test_accuracy"] for r in runs])
            mt = summarize([r["machine_time_s"] / 3600.0 for r in runs])
            rows.append({"variant": name, "kind": kind, "non_ideality": ni,
                         "reference": {"on_alone": "ideal", "off_alone": "full"}.get(kind),
                         "test_mean": acc["mean"], "test_std": acc["std"], "n": acc["n"],
                         "train_mean": summarize([r["train_accuracy"] for r in runs])["mean"],
                         "machine_time_h_mean": mt["mean"], "machine_time_h_std": mt["std"],
                         "same_as": None if src == name else src,
                         "energy_j_mean": summarize([r["energy_j"] for r in runs])["mean"],
                         "energy_per_correction_j_mean": summarize([r["energy_per_correction_j"]
                                                                    for r in runs])["mean"],
                         "test_accuracy": [r["test_accuracy"] for r in runs],
                         "machine_time_s": [r["machine_time_s"] for r in runs],
                         "energy_j": [r["energy_j"] for r in runs]})
        _arm_statistics(rows)
        return rows

    def samples(done: list) -> list:
        ids = sorted({s for _, s, _ in done})
        return [[c / 100.0 for c in r["costs"]] for r in rows_of(done, ids)
                if r["kind"] != "reference" and not r["same_machine"]]

    done, pilot, counted = run_to_precision(run, samples, seed_ids, fraction, max_seeds)
    rows = rows_of(done, counted)
    if pilot:                                             # kept beside the intervals, which leave them out
        for r, p in zip(rows, rows_of(done, pilot)):
            r["pilot_test_accuracy"] = p["test_accuracy"]
            if "costs" in p:
                r["pilot_costs"] = p["costs"]
    result = Ablation(scene=scene.name, seeds=[*pilot, *counted], rows=rows,
                      non_idealities=[v[2] for v in variants if v[1] == "on_alone"], at=at, cliff=cliff,
                      pilot=pilot, precision=fraction)
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        write_text(out / "ablation.csv", csv_text(rows, ABLATION_FIELDS))
        write_json(out / "ablation.json", result.to_json())
        draw(figure, result, out / "ablation.png")
    return result
