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
percentage points of test accuracy; positive means it hurts. The mean cost comes with
a two-sided 95 % t-interval over seeds (the paired t-interval: mean ± t(0.975; n−1) ·
sd / √n of the per-seed differences). An interval that contains 0 is marked "not
distinguishable from 0"; a non-ideality that changes nothing on any seed reports
exactly 0.
"""

from __future__ import annotations

import json
import math
import time
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable

from mark1._utils.atomic import write_text
from mark1._utils.html import clip, figure_function, html_table, study_html
from mark1._utils.records import jsonable
from mark1.exceptions import InputError
from mark1.lab._common import aligned, check_figure, csv_text, draw, hours_cell, pct, study_inputs, write_json
from mark1.lab.runner import Records, as_scene, job, run_cards, run_jobs, scene_digest, scene_ref
from mark1.lab.stats import mean_interval, summarize
from mark1.machine.mark_i import MarkI
from mark1.specs import NON_IDEALITIES

__all__ = ["ablate", "Ablation", "VERDICTS", "paired_cost"]

_VERSION = 2

#: Fields of ``ablation.csv``: one row per variant; cost fields for the two arms only.
ABLATION_FIELDS = ("variant", "kind", "non_ideality", "reference", "test_mean", "test_std", "n", "train_mean",
                   "cost_points", "cost_low", "cost_high", "verdict", "machine_time_h_mean",
                   "machine_time_h_std", "machine_time_h_change", "same_as")

#: The verdicts on a cost, from its per-seed paired differences.
VERDICTS = {
    "zero": "exactly 0 (same accuracy on every seed)",
    "null": "not distinguishable from 0",
    "cost": "costs points",
    "gain": "gains points",
    "one": "one seed: no interval",
}


def paired_cost(without: list[float], with_: list[float]) -> dict[str, Any]:
    """The cost of a non-ideality from paired runs: accuracy without it minus with it.

    Parameters
    ----------
    without, with_ : list of float
        Test accuracy (fraction) per seed, the same seeds in the same order.

    Returns
    -------
    dict
        ``costs`` (per seed, fraction), ``mean``, ``low``, ``high`` (95 % t-interval of
        the mean; NaN for one seed), ``verdict`` (a key of :data:`VERDICTS`).

    Raises
    ------
    InputError
        For arms of different lengths, or empty ones.

    Examples
    --------
    >>> c = paired_cost([0.95, 0.90, 0.92], [0.90, 0.85, 0.88])
    >>> [round(x, 2) for x in c["costs"]], round(c["mean"], 4), c["verdict"]
    ([0.05, 0.05, 0.04], 0.0467, 'cost')
    >>> paired_cost([0.9, 0.8], [0.9, 0.8])["verdict"]
    'zero'
    """
    if len(without) != len(with_) or not without:
        raise InputError("paired_cost: expected the same seeds, at least one, in both arms")
    costs = [a - b for a, b in zip(without, with_)]
    mean, low, high = mean_interval(costs)
    if all(c == 0.0 for c in costs):
        verdict, low, high = "zero", 0.0, 0.0
    elif len(costs) == 1:
        verdict = "one"
    elif low <= 0.0 <= high:
        verdict = "null"
    else:
        verdict = "cost" if low > 0.0 else "gain"
    return {"costs": costs, "mean": mean, "low": low, "high": high, "verdict": verdict}


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
        ``full`` and ``ideal``), ``reference`` (the variant an arm is compared with),
        ``test_mean``, ``test_std``, ``n``, ``train_mean``, ``machine_time_h_mean``,
        ``machine_time_h_std``, ``same_as`` (the variant with an identical machine whose
        runs were reused, or None), ``test_accuracy`` and ``machine_time_s`` (one per
        seed). The arms also carry ``cost_points`` (mean cost in percentage points:
        accuracy without it minus with it), ``cost_low``, ``cost_high`` (its 95 %
        t-interval, points), ``costs`` (per seed, points), ``verdict`` (see
        :data:`VERDICTS`) and ``machine_time_h_change`` (mean change of machine time
        against the reference, hours; None where it is the same on every seed).
    non_idealities : list of str

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

    def table(self) -> str:
        """Plain text: per non-ideality and arm, the cost with its interval and verdict."""
        head, rows, notes = self._cells()
        return "\n".join([*aligned(head, rows, left=(0, 1, 5)), "", *notes])

    def __repr__(self) -> str:
        arms = [r for r in self.rows if r["kind"] != "reference"]
        costly = sum(r["verdict"] == "cost" for r in arms)
        return clip(f"Ablation(scene={self.scene!r}, {len(self.non_idealities)} non-idealities, "
                    f"{len(self.seeds)} seed(s), {costly} of {len(arms)} arms cost accuracy)")

    def _repr_html_(self) -> str:
        head, rows, notes = self._cells()
        return study_html(f"Ablation: {self.scene}", html_table(head, rows, left=(0, 1, 5), notes=notes),
                          figure_function("Ablation"), self)

    def _cells(self) -> tuple[tuple, list, list]:
        """The table's head, its rows (cells as text) and the lines under it."""
        full, ideal = self.row("full"), self.row("ideal")
        head = ("non-ideality", "arm", "accuracy", "cost (pt)", "95 % interval (pt)", "verdict",
                "machine time")
        rows = [("(reference)", "ideal", pct(ideal["test_mean"]), "", "", "", hours_cell(ideal["machine_time_h_mean"])),
                ("(reference)", "full", pct(full["test_mean"]), "", "", "", hours_cell(full["machine_time_h_mean"]))]
        for n in self.non_idealities:
            for prefix, arm in (("on", "alone on"), ("off", "alone off")):
                r = self.row(f"{prefix}:{n}")
                rows.append((n if prefix == "on" else "", arm, pct(r["test_mean"]),
                             f"{r['cost_points']:+.1f}", _interval(r), VERDICTS[r["verdict"]],
                             "same" if r["machine_time_h_change"] is None
                             else hours_cell(r["machine_time_h_mean"], r["machine_time_h_change"])))
        lines = []
        lines.append(f"{self.scene}: test accuracy, mean of {len(self.seeds)} paired seed(s) (same cards, "
                     "board and noise in every variant).")
        lines.append("cost = points lost because of it: ideal - (ideal + it) for 'alone on', "
                     "(full - it) - full for 'alone off'; positive hurts.")
        lines.append("95 % interval: t-interval of the mean per-seed difference (paired t, n-1 degrees of "
                     "freedom). machine time: 'same' when equal to the reference's on every seed, else the "
                     "variant's (change).")
        if len(self.seeds) < 5:
            lines.append(f"With {len(self.seeds)} seed(s) the intervals say little: they are wide, or of zero "
                         "width when the per-seed differences happen to coincide; use --seeds 5 or more.")
        return head, rows, lines

    def to_json(self) -> dict:
        """Everything as JSON-safe values, with the sign convention spelled out (``ablation.json``)."""
        return {"scene": self.scene, "seeds": self.seeds, "non_idealities": self.non_idealities,
                "rows": self.rows,
                "sign": "cost = accuracy without the non-ideality minus accuracy with it (points lost)",
                "interval": "two-sided 95 % paired t-interval over seeds"}


def _interval(r) -> str:
    if r["cost_low"] is None or math.isnan(r["cost_low"]):
        return "-"
    return f"[{r['cost_low']:+.1f}, {r['cost_high']:+.1f}]"


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
            "machine_time_s": float(m.machine_time_), "wall_time_s": time.perf_counter() - t0}


def ablate(scene, *, seeds=3, executor: Executor | None = None, out=None, resume: bool = False,
           progress: bool = False, train_count: int | None = None,
           test_count: int | None = None, figure: Callable | None = None) -> Ablation:
    """Which non-ideality costs most: each one alone on, and alone off, paired over seeds.

    For every non-ideality the scene's machine has on (and the ratchet, always):
    (a) the ideal machine with only that one on (``spec.only(name)``), compared with
    the ideal machine, and (b) the full machine with only that one off
    (``spec.without(name)``), compared with the full machine. All variants of a seed
    share its cards and machine seed, so each cost is a paired difference (see
    :func:`paired_cost`). Variants with identical machines are run once.

    Parameters
    ----------
    scene : Scene or str
        A scene or a scene file; its machine is the full one.
    seeds : int or sequence of int
        ``n`` means seeds ``0 .. n-1``; every variant runs on every seed (paired).
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

    Returns
    -------
    Ablation

    Raises
    ------
    InputError
        For bad seeds or counts, ``resume`` or ``figure`` without ``out``.

    Examples
    --------
    >>> result = ablate("scenes/demo.toml", seeds=1, train_count=4, test_count=4)
    >>> result.non_idealities[:3]
    ['speed_limit', 'end_stops', 'motor_spread']
    >>> result.row("full")["test_mean"], result.row("ideal")["test_mean"]
    (1.0, 0.75)
    >>> result.row("on:backlash")["cost_points"], result.row("on:backlash")["verdict"]    # 4 cards: no difference
    (0.0, 'zero')
    """
    scene, seed_ids, train_count, test_count = study_inputs(scene, seeds, train_count, test_count)
    check_figure(figure, out)
    variants = _ablation_variants(scene.machine_spec())
    first_of: dict[str, str] = {}
    unique = []
    for name, _, _, spec in variants:
        key = _spec_key(spec)
        if key not in first_of:
            first_of[key] = name
            unique.append((name, spec))
    ref = scene_ref(scene)
    # seed-major order: a worker running several variants of a seed renders its cards once
    order = [(name, spec, s) for s in seed_ids for name, spec in unique]
    jobs = [(ref, s, spec, train_count, test_count) for _, spec, s in order]
    keys = [f"{name.replace(':', '-')}-seed-{s:04d}" for name, _, s in order]
    store = None
    if out is not None:
        config = {"version": _VERSION, "scene": scene.name, "scene_sha256": scene_digest(scene),
                  "train_count": train_count, "test_count": test_count,
                  "variants": {name: _spec_key(spec) for name, spec in unique}}
        store = Records(Path(out) / "jobs", config,
                        valid=lambda key, r: 0.0 <= r["test_accuracy"] <= 1.0 and r["machine_time_s"] >= 0)
    res = run_jobs(_ablation_job, jobs, executor=executor, keys=keys, records=store, resume=resume,
                   progress="runs" if progress else None)
    per_variant: dict[str, list] = {name: [] for name, _ in unique}
    for (name, _, _), r in zip(order, res):
        per_variant[name].append(r)
    rows = []
    for name, kind, ni, spec in variants:
        src = first_of[_spec_key(spec)]
        runs = per_variant[src]
        acc = summarize([r["test_accuracy"] for r in runs])
        mt = summarize([r["machine_time_s"] / 3600.0 for r in runs])
        rows.append({"variant": name, "kind": kind, "non_ideality": ni,
                     "reference": {"on_alone": "ideal", "off_alone": "full"}.get(kind),
                     "test_mean": acc["mean"], "test_std": acc["std"], "n": acc["n"],
                     "train_mean": summarize([r["train_accuracy"] for r in runs])["mean"],
                     "machine_time_h_mean": mt["mean"], "machine_time_h_std": mt["std"],
                     "same_as": None if src == name else src,
                     "test_accuracy": [r["test_accuracy"] for r in runs],
                     "machine_time_s": [r["machine_time_s"] for r in runs]})
    by_name = {r["variant"]: r for r in rows}
    for r in rows:
        if r["reference"] is None:
            continue
        ref_row = by_name[r["reference"]]
        if r["kind"] == "on_alone":                       # ideal - (ideal + it)
            c = paired_cost(ref_row["test_accuracy"], r["test_accuracy"])
        else:                                             # (full - it) - full
            c = paired_cost(r["test_accuracy"], ref_row["test_accuracy"])
        dt = [a - b for a, b in zip(r["machine_time_s"], ref_row["machine_time_s"])]
        r.update(cost_points=100.0 * c["mean"], cost_low=100.0 * c["low"], cost_high=100.0 * c["high"],
                 costs=[100.0 * x for x in c["costs"]], verdict=c["verdict"],
                 machine_time_h_change=None if all(d == 0.0 for d in dt) else sum(dt) / len(dt) / 3600.0)
    result = Ablation(scene=scene.name, seeds=seed_ids, rows=rows,
                      non_idealities=[v[2] for v in variants if v[1] == "on_alone"])
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        write_text(out / "ablation.csv", csv_text(rows, ABLATION_FIELDS))
        write_json(out / "ablation.json", result.to_json())
        draw(figure, result, out / "ablation.png")
    return result
