"""Dose-response: one machine parameter swept over values, the same seeds for every value.

``mark1 sweep SCENE --param rack.motor_speed --values 0.003,0.01,0.03,0.1,inf`` trains
the scene's machine once per (value, seed), with only that parameter changed. The seeds
are *paired*: for one seed every value sees the same training and test cards and the
same machine seed, so the same patch board, motor spread and noise streams. The
difference between two values on one seed is therefore the effect of the parameter
alone, and its mean over seeds comes with a paired 95 % t-interval.

What is recorded per (value, seed): test and training accuracy, machine time, seconds
the trainer waited for the motors, training mistakes, and the presentations until the
last training mistake (how long the machine took to learn its cards). ``sweep.csv``
holds one row per (value, seed) with the three seeds of the run and a digest of its
training cards, so a reader can check the pairing; ``sweep.png`` shows accuracy,
the paired change against the reference value, machine time and learning time
against the parameter with 95 % bands over seeds (drawn by
:func:`mark1.viz.studies.sweep_figure`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from mark1._utils.atomic import write_text
from mark1._utils.records import jsonable
from mark1.exceptions import InputError
from mark1.lab._common import check_figure, csv_text, draw, study_inputs, write_json
from mark1.lab.runner import Records, as_scene, job, run_cards, run_jobs, scene_digest, scene_ref
from mark1.lab.stats import clip_interval, mean_interval
from mark1.machine.mark_i import MarkI
from mark1.specs import MachineSpec, SpecError, parameter_keys
from mark1.stimuli.cards import experiment_seeds

__all__ = ["sweep", "Sweep", "parse_value", "parse_values", "value_text"]

#: Columns of ``sweep.csv``: one row per (value, seed).
SWEEP_FIELDS = ("param", "value", "seed", "test_accuracy", "train_accuracy", "machine_time_s",
                "waited_s", "mistakes", "learned_after", "presentations", "wall_time_s",
                "seed_train", "seed_test", "seed_machine", "cards_sha256")


# ----------------------------------------------------------------------------------------
# values


def _field(key: str):
    """The dataclass field of a dotted spec key (SpecError naming the key if unknown)."""
    group, _, name = key.partition(".")
    if key not in parameter_keys():
        MachineSpec().with_overrides({key: None})       # SpecError: unknown, with the nearest name
    return {f.name: f for f in dataclasses.fields(getattr(MachineSpec(), group))}[name]


def parse_value(key: str, value):
    """One value of the spec field ``key``, from its text or as given, checked.

    ``inf`` for a float field that allows it, ``true``/``false`` for a switch.

    Parameters
    ----------
    key : str
        A dotted spec key, e.g. ``"rack.motor_speed"``.
    value : str or bool or int or float
        The value or its text.

    Returns
    -------
    bool or int or float or str
        Typed as the field's default is (a float for a float field).

    Raises
    ------
    SpecError
        Naming the key, for an unknown key or a value of the wrong type or range.

    Examples
    --------
    >>> parse_value("rack.motor_speed", "inf"), parse_value("rack.drivers", "4"), parse_value("timing.overlap", "true")
    (inf, 4, True)
    """
    default = _field(key).default
    v = value
    if isinstance(value, str):
        text = value.strip()
        if isinstance(default, bool):
            if text.lower() not in ("true", "false"):
                raise SpecError(key, f"expected true or false, got {text!r}")
            v = text.lower() == "true"
        elif isinstance(default, float):
            try:
                v = float(text)
            except ValueError:
                raise SpecError(key, f"expected a number, got {text!r}") from None
        elif isinstance(default, int):
            try:
                v = int(text)
            except ValueError:
                raise SpecError(key, f"expected an integer, got {text!r}") from None
        else:
            v = text
    if isinstance(default, tuple):
        raise SpecError(key, "cannot be swept (a shape); choose a number, switch or choice")
    MachineSpec().with_overrides({key: v})                # type and range, naming the key
    if isinstance(default, float) and not isinstance(v, bool):
        v = float(v)
    return v


def parse_values(key: str, values: Sequence[Any] | str) -> list:
    """The values of a sweep, typed as the spec field ``key`` wants them.

    Parameters
    ----------
    key : str
        A dotted spec key, e.g. ``"rack.motor_speed"``.
    values : str or sequence
        A comma-separated string (``"0.01,0.1,inf"``) or a sequence of values or their
        texts (see :func:`parse_value`).

    Returns
    -------
    list
        Distinct values in the given order, each checked against the field's range.

    Raises
    ------
    SpecError
        Naming the key, for an unknown key, a value of the wrong type or range, or
        fewer than two distinct values.

    Examples
    --------
    >>> parse_values("rack.motor_speed", "0.01, 0.1,inf,0.1")
    [0.01, 0.1, inf]
    >>> parse_values("rack.drive", ["continuous", "ratchet"])
    ['continuous', 'ratchet']
    """
    texts = values.split(",") if isinstance(values, str) else list(values)
    out = []
    for t in texts:
        v = parse_value(key, t)
        if v not in out:
            out.append(v)
    if len(out) < 2:
        raise SpecError(key, f"expected at least two distinct values to sweep, got {texts!r}")
    return out


def value_text(v) -> str:
    """A swept value as the records, the CSV and the job keys write it.

    Parameters
    ----------
    v : bool or int or float or str
        A value as :func:`parse_value` returns it.

    Returns
    -------
    str
        ``true``/``false`` for a switch, ``inf`` for infinity, ``repr`` of any other float.

    Examples
    --------
    >>> [value_text(v) for v in (True, float("inf"), 0.1, 4, "ratchet")]
    ['true', 'inf', '0.1', '4', 'ratchet']
    """
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "inf" if math.isinf(v) else repr(v)
    return str(v)


# ----------------------------------------------------------------------------------------
# one job


def _cards_digest(cards) -> str:
    """The first 16 hex digits of SHA-256 over a deck's bytes (to check pairing)."""
    return hashlib.sha256(np.ascontiguousarray(cards).tobytes()).hexdigest()[:16]


@job
def _sweep_job(scene_ref, seed: int, key: str, value, train_count: int | None = None,
               test_count: int | None = None) -> dict:
    """Train and test the scene's machine with ``key = value`` on seed ``seed``.

    Top level and picklable, so any executor may run it. The cards and the machine
    seed depend on ``seed`` only, never on the value (the pairing of a sweep).

    Returns
    -------
    dict
        The fields of :data:`SWEEP_FIELDS`.
    """
    scene = as_scene(scene_ref)
    train, test, seed_machine = run_cards(scene, seed, train_count, test_count)
    spec = scene.machine_spec().with_overrides({key: value})
    t0 = time.perf_counter()
    m = MarkI(spec=spec, seed=seed_machine).fit(train.cards, train.labels, epochs=scene.schedule.epochs,
                                                order=scene.schedule.order)
    train_acc = m.score(train.cards, train.labels)          # train first, as compare and `mark1 run`
    test_acc = m.score(test.cards, test.labels)
    wrong = np.flatnonzero(~m.history_["correct"])
    s_train, s_test, s_machine = experiment_seeds(seed)
    return {"param": key, "value": value_text(value), "seed": int(seed),
            "test_accuracy": float(test_acc), "train_accuracy": float(train_acc),
            "machine_time_s": float(m.machine_time_), "waited_s": float(m.waited_),
            "mistakes": int(len(wrong)), "learned_after": int(wrong[-1] + 1) if len(wrong) else 0,
            "presentations": int(len(m.history_)), "wall_time_s": time.perf_counter() - t0,
            "seed_train": s_train, "seed_test": s_test, "seed_machine": s_machine,
            "cards_sha256": _cards_digest(train.cards)}


# ----------------------------------------------------------------------------------------
# the result


@dataclass
class Sweep:
    """A finished sweep: every (value, seed) record and what they say together.

    Attributes
    ----------
    scene : str
        The scene's name.
    param : str
        The dotted spec key swept.
    values : list
        The values, in the order given.
    reference : value
        The value the paired changes are measured against: the scene machine's own
        value when it is among ``values``, else the first value.
    seeds : list of int
    records : list of dict
        One per (value, seed), the fields of :data:`SWEEP_FIELDS`.

    Examples
    --------
    >>> result = sweep("scenes/demo.toml", "rack.backlash", "0,0.05", seeds=2, train_count=8, test_count=8)
    >>> result.values, result.reference, len(result.records)      # the SMALL machine has no backlash
    ([0.0, 0.05], 0.0, 4)
    >>> [(r["value"], r["test_mean"], r["change_mean"], r["distinguishable"]) for r in result.summary()]
    [('0.0', 0.625, 0.0, False), ('0.05', 0.625, 0.0, False)]
    """

    scene: str
    param: str
    values: list
    reference: Any
    seeds: list
    records: list = field(repr=False)

    def _by_value(self, value) -> list[dict]:
        text = value_text(value)
        by_seed = {r["seed"]: r for r in self.records if r["value"] == text}
        return [by_seed[s] for s in self.seeds if s in by_seed]

    def summary(self) -> list[dict]:
        """One row per value: means with 95 % t-intervals over seeds.

        ``change_*`` is the paired difference in test accuracy from the reference
        value (this value minus the reference, seed by seed; negative = points lost),
        ``distinguishable`` whether its 95 % interval excludes 0.
        """
        ref = {r["seed"]: r["test_accuracy"] for r in self._by_value(self.reference)}
        rows = []
        for v in self.values:
            recs = self._by_value(v)
            acc = clip_interval(mean_interval([r["test_accuracy"] for r in recs]), 0.0, 1.0)
            diffs = [r["test_accuracy"] - ref[r["seed"]] for r in recs if r["seed"] in ref]
            change = clip_interval(mean_interval(diffs), -1.0, 1.0)
            hours = clip_interval(mean_interval([r["machine_time_s"] / 3600.0 for r in recs]), 0.0, math.inf)
            learned = clip_interval(mean_interval([r["learned_after"] for r in recs]), 0.0, math.inf)
            row = {"value": value_text(v), "n": len(recs)}
            for name, stat in (("test", acc), ("change", change), ("machine_h", hours), ("learned_after", learned)):
                row[f"{name}_mean"], row[f"{name}_low"], row[f"{name}_high"] = stat if stat else (None,) * 3
            row["waited_s_mean"] = float(np.mean([r["waited_s"] for r in recs])) if recs else None
            row["mistakes_mean"] = float(np.mean([r["mistakes"] for r in recs])) if recs else None
            lo, hi = row["change_low"], row["change_high"]
            row["distinguishable"] = (lo is not None and hi is not None and not math.isnan(lo)
                                      and (lo > 0 or hi < 0))
            rows.append(row)
        return rows

    def table(self) -> str:
        """A plain-text table, one line per value."""
        head = (f"{self.scene}: {self.param} over {len(self.seeds)} paired seed(s); "
                f"change = test accuracy minus at {value_text(self.reference)} (same seeds), 95 % interval\n")
        lines = [f"{'value':>10}  {'test accuracy':>22}  {'change (points)':>22}  {'machine h':>9}  "
                 f"{'waited s':>8}  {'learned after':>13}"]
        for r in self.summary():
            def iv(m, lo, hi, scale=100.0, fmt="{:.1f}"):
                if m is None:
                    return "-"
                if lo is None or math.isnan(lo):
                    return fmt.format(m * scale)
                return f"{fmt.format(m * scale)} [{fmt.format(lo * scale)}, {fmt.format(hi * scale)}]"
            change = ("reference" if r["value"] == value_text(self.reference)
                      else iv(r["change_mean"], r["change_low"], r["change_high"], fmt="{:+.1f}")
                      + ("" if r["distinguishable"] else " ~0"))
            lines.append(f"{r['value']:>10}  {iv(r['test_mean'], r['test_low'], r['test_high']):>22}  "
                         f"{change:>22}  {r['machine_h_mean']:>9.3f}  {r['waited_s_mean']:>8.1f}  "
                         f"{r['learned_after_mean']:>13.1f}")
        lines.append("~0: not distinguishable from 0 (the 95 % interval contains 0); learned after: "
                     "presentations until the last training mistake")
        return head + "\n".join(lines)

    def to_json(self) -> dict:
        """Everything as JSON-safe values: the run, the summary and the records (``sweep.json``)."""
        return jsonable({"scene": self.scene, "param": self.param,
                         "values": [value_text(v) for v in self.values],
                         "reference": value_text(self.reference), "seeds": self.seeds,
                         "summary": self.summary(), "records": self.records})

    def csv_text(self) -> str:
        """``sweep.csv``: one row per (value, seed), values first, then seeds."""
        return csv_text([r for v in self.values for r in self._by_value(v)], SWEEP_FIELDS)


def sweep(scene, param: str, values, *, seeds=5, reference=None, executor=None, out=None,
          resume: bool = False, progress: bool = False, train_count: int | None = None,
          test_count: int | None = None, figure: Callable | None = None) -> Sweep:
    """Dose-response of one spec parameter, over paired seeds.

    Parameters
    ----------
    scene : Scene or str
        A scene or a scene file; its machine (``scene.machine_spec()``) is the base.
    param : str
        A dotted spec key, e.g. ``"rack.motor_speed"`` (``mark1 specs`` lists them).
    values : str or sequence
        At least two distinct values (see :func:`parse_values`).
    seeds : int or sequence of int
        ``n`` means seeds ``0 .. n-1``; every value runs on every seed.
    reference : value, optional
        One of ``values``: the paired changes are measured against it (default: the
        scene machine's own value when it is among ``values``, else the first).
    executor : concurrent.futures.Executor, optional
        Runs the jobs (default: serially). Results do not depend on it.
    out : str or path-like, optional
        Folder for ``jobs/*.json`` (each (value, seed) as it finishes), ``sweep.csv``,
        ``sweep.json`` and the figure (see ``figure``) at the end; all written atomically.
    resume : bool
        Read back jobs already recorded in ``out/jobs`` by the same sweep.
    progress : bool
        A progress bar over the jobs (on a terminal only).
    train_count, test_count : int, optional
        Card counts instead of the scene's.
    figure : callable, optional
        Draws the sweep, called as ``figure(sweep, out=out / "sweep.png")``; needs
        ``out``. ``mark1 sweep`` passes :func:`mark1.viz.studies.sweep_figure`.

    Returns
    -------
    Sweep

    Raises
    ------
    SpecError
        Naming the key, for a bad parameter or value.
    InputError
        For bad seeds, counts or reference, ``resume`` or ``figure`` without ``out``;
        :class:`mark1.exceptions.SceneError` for a bad scene.

    Examples
    --------
    >>> result = sweep("scenes/demo.toml", "rack.motor_speed", "0.0005,inf", seeds=1, train_count=8, test_count=8)
    >>> [(r["value"], round(r["waited_s"], 2)) for r in result.records]      # a slow motor keeps the trainer waiting
    [('0.0005', 158.04), ('inf', 0.0)]
    """
    scene, seed_ids, train_count, test_count = study_inputs(scene, seeds, train_count, test_count)
    vals = parse_values(param, values)
    for v in vals:                                   # the scene's own overrides may conflict
        scene.machine_spec().with_overrides({param: v})
    check_figure(figure, out)
    if reference is not None:
        ref_value = parse_value(param, reference)
        if ref_value not in vals:
            raise InputError(f"reference: expected one of the values {[value_text(v) for v in vals]}, "
                             f"got {reference!r}")
    else:
        base = scene.machine_spec().get(param)
        ref_value = base if base in vals else vals[0]
    ref = scene_ref(scene)
    jobs = [(ref, s, param, v, train_count, test_count) for v in vals for s in seed_ids]
    keys = [f"value-{value_text(v)}-seed-{s:04d}" for v in vals for s in seed_ids]
    records = None
    if out is not None:
        config = {"study": "sweep", "version": 1, "scene": scene.name, "scene_sha256": scene_digest(scene),
                  "param": param, "train_count": train_count, "test_count": test_count}
        expected = {k: (value_text(j[3]), j[1]) for k, j in zip(keys, jobs)}

        def valid(key, rec):
            return (all(f in rec for f in SWEEP_FIELDS) and (rec["value"], rec["seed"]) == expected[key]
                    and 0.0 <= rec["test_accuracy"] <= 1.0)
        records = Records(Path(out) / "jobs", config, valid=valid)
    results = run_jobs(_sweep_job, jobs, executor=executor, keys=keys, records=records, resume=resume,
                              progress="runs" if progress else None)
    result = Sweep(scene=scene.name, param=param, values=vals, reference=ref_value, seeds=seed_ids,
                   records=list(results))
    if out is not None:
        out = Path(out)
        write_text(out / "sweep.csv", result.csv_text())
        write_json(out / "sweep.json", result.to_json())
        draw(figure, result, out / "sweep.png")
    return result
