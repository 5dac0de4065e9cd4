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
from typing import Any
from collections.abc import Callable, Sequence

import numpy as np

from mark1._utils.atomic import write_text
from mark1._utils.html import clip, figure_function, html_table, study_html
from mark1._utils.language import duration
from mark1._utils.records import jsonable
from mark1.exceptions import InputError
from mark1.lab._common import (aligned, check_figure, count_option, csv_text, draw, hours_cell, num, pct, study_inputs,
                               write_json)
from mark1.lab.runner import Records, as_scene, job, run_cards, run_jobs, scene_digest, scene_ref
from mark1.lab.stats import clip_interval, mean_interval
from mark1.machine.mark_i import MarkI
from mark1.specs import MachineSpec, SpecError, parameter_keys
from mark1.stimuli.cards import experiment_seeds

__all__ = ["sweep", "Sweep", "grid_sweep", "GridSweep", "parse_value", "parse_values", "value_text"]

#: Columns of ``sweep.csv``: one row per (value, seed).
SWEEP_FIELDS = ("param", "value", "seed", "test_accuracy", "train_accuracy", "machine_time_s",
                "waited_s", "mistakes", "learned_after", "presentations", "wall_time_s",
                "seed_train", "seed_test", "seed_machine", "cards_sha256")
#: What a sweep of ``schedule.epochs`` adds to ``sweep.csv``: the passes trained and the
#: first pass without a training mistake (empty if none).
EPOCHS_FIELDS = ("passes", "first_clean_pass")
#: Measured per run beside :data:`SWEEP_FIELDS` (in the records; in ``grid.csv``).
EXTRA_FIELDS = (*EPOCHS_FIELDS, "pots_at_stops", "pots", "max_wiper")
#: Columns of ``grid.csv`` (a two-parameter sweep): one row per (value_a, value_b, seed).
GRID_FIELDS = ("param_a", "value_a", "param_b", "value_b", "seed", "test_accuracy", "train_accuracy",
               "machine_time_s", "waited_s", "mistakes", "learned_after", "presentations", *EXTRA_FIELDS,
               "wall_time_s", "seed_train", "seed_test", "seed_machine", "cards_sha256")
#: Sweepable keys of the scene's schedule (beside the machine's spec keys).
SCHEDULE_PARAMS = ("schedule.epochs",)
#: The cap of ``until`` (train until a pass without a mistake) when none is given.
UNTIL_CAP = 50
#: A wiper this close to ±1 full scale counts as at its end stop.
STOP_MARGIN = 0.01


# ----------------------------------------------------------------------------------------
# values


def _field(key: str):
    """The dataclass field of a dotted spec key (SpecError naming the key if unknown)."""
    group, _, name = key.partition(".")
    if key not in parameter_keys():
        MachineSpec().with_overrides({key: None})       # SpecError: unknown, with the nearest name
    return {f.name: f for f in dataclasses.fields(getattr(MachineSpec(), group))}[name]


def _until_cap(v) -> int | None:
    """The cap of an ``until:N`` value, None for any other value."""
    if isinstance(v, str) and v.startswith("until:"):
        return int(v.split(":", 1)[1])
    return None


def _parse_epochs(value):
    """A pass count (a positive integer) or ``until[:CAP]`` as ``"until:CAP"``."""
    key = "schedule.epochs"
    text = value.strip().lower() if isinstance(value, str) else value
    if isinstance(text, str) and text.partition(":")[0] == "until":
        cap = text.partition(":")[2] or str(UNTIL_CAP)
        if not cap.isdigit() or int(cap) < 1:
            raise SpecError(key, f"expected until or until:CAP with CAP a positive integer, got {value!r}")
        return f"until:{int(cap)}"
    if isinstance(text, str):
        if not text.isdigit():
            raise SpecError(key, f"expected a positive integer or until[:CAP], got {value!r}")
        text = int(text)
    if isinstance(text, bool) or not isinstance(text, (int, np.integer)) or text < 1:
        raise SpecError(key, f"expected a positive integer or until[:CAP], got {value!r}")
    return int(text)


def parse_value(key: str, value):
    """One value of the spec field ``key`` (or of ``schedule.epochs``), from its text or as given, checked.

    ``inf`` for a float field that allows it, ``true``/``false`` for a switch. For
    ``schedule.epochs`` (passes over the training cards) a positive integer, or
    ``until`` / ``until:CAP``: train until the first pass without a training mistake,
    at most CAP passes (default :data:`UNTIL_CAP`), written ``"until:CAP"``.

    Parameters
    ----------
    key : str
        A dotted spec key, e.g. ``"rack.motor_speed"``, or ``"schedule.epochs"``.
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
    >>> parse_value("schedule.epochs", "10"), parse_value("schedule.epochs", "until")
    (10, 'until:50')
    """
    if key in SCHEDULE_PARAMS:
        return _parse_epochs(value)
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
    >>> parse_values("schedule.epochs", "1,2,5,10,until:20")
    [1, 2, 5, 10, 'until:20']
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


def _first_clean(m) -> int | None:
    """The first pass (1-based) without a training mistake, None if every pass erred."""
    clean = np.flatnonzero(np.asarray(m.mistakes_per_epoch_) == 0)
    return int(clean[0] + 1) if len(clean) else None


def _fit_until(fit: Callable, cap: int):
    """Train until the first pass without a mistake, at most ``cap`` passes.

    A run of 10 passes (or ``cap``, if fewer); if none of them is without a mistake, a run
    of ``cap``; then, if a pass without a mistake came before the run's end, the machine
    is trained again for exactly that many passes. A run of k passes is the first k
    passes of any longer run on the same seed (the schedule, the order and the noise
    streams are drawn pass by pass), so this is the machine stopped at its first pass
    without error.
    """
    n = min(10, cap)
    m = fit(n)
    clean = _first_clean(m)
    if clean is None and n < cap:
        n = cap
        m = fit(n)
        clean = _first_clean(m)
    return fit(clean) if clean is not None and clean < n else m


def _train_once(scene, seed: int, settings: dict, train_count, test_count, epochs) -> dict:
    """Train and test the scene's machine with ``settings`` ({key: value}) on seed ``seed``.

    The cards and the machine seed depend on ``seed`` only, never on the settings (the
    pairing of a sweep). Returns the measured fields of :data:`SWEEP_FIELDS` (without
    param and value) and :data:`EXTRA_FIELDS`.
    """
    train, test, seed_machine = run_cards(scene, seed, train_count, test_count)
    spec_settings = {k: v for k, v in settings.items() if k not in SCHEDULE_PARAMS}
    spec = scene.machine_spec().with_overrides(spec_settings) if spec_settings else scene.machine_spec()
    passes = settings.get("schedule.epochs", scene.schedule.epochs if epochs is None else epochs)
    t0 = time.perf_counter()

    def fit(n):
        return MarkI(spec=spec, seed=seed_machine).fit(train.cards, train.labels, epochs=n,
                                                       order=scene.schedule.order)
    cap = _until_cap(passes)
    m = fit(passes) if cap is None else _fit_until(fit, cap)
    train_acc = m.score(train.cards, train.labels)          # train first, as compare and `mark1 run`
    test_acc = m.score(test.cards, test.labels)
    wrong = np.flatnonzero(~m.history_["correct"])
    wipers = np.abs(m.weights_)
    s_train, s_test, s_machine = experiment_seeds(seed)
    return {"seed": int(seed),
            "test_accuracy": float(test_acc), "train_accuracy": float(train_acc),
            "machine_time_s": float(m.machine_time_), "waited_s": float(m.waited_),
            "mistakes": int(len(wrong)), "learned_after": int(wrong[-1] + 1) if len(wrong) else 0,
            "presentations": int(len(m.history_)), "passes": int(len(m.mistakes_per_epoch_)),
            "first_clean_pass": _first_clean(m), "pots_at_stops": int(np.sum(wipers >= 1.0 - STOP_MARGIN)),
            "pots": int(wipers.size), "max_wiper": float(wipers.max()),
            "wall_time_s": time.perf_counter() - t0,
            "seed_train": s_train, "seed_test": s_test, "seed_machine": s_machine,
            "cards_sha256": _cards_digest(train.cards)}


@job
def _sweep_job(scene_ref, seed: int, key: str, value, train_count: int | None = None,
               test_count: int | None = None, epochs: int | None = None) -> dict:
    """Train and test the scene's machine with ``key = value`` on seed ``seed``.

    Top level and picklable, so any executor may run it. The cards and the machine
    seed depend on ``seed`` only, never on the value (the pairing of a sweep).

    Returns
    -------
    dict
        The fields of :data:`SWEEP_FIELDS` and :data:`EXTRA_FIELDS`.
    """
    rec = _train_once(as_scene(scene_ref), seed, {key: value}, train_count, test_count, epochs)
    return {"param": key, "value": value_text(value), **rec}


@job
def _grid_job(scene_ref, seed: int, key_a: str, value_a, key_b: str, value_b, train_count: int | None = None,
              test_count: int | None = None, epochs: int | None = None) -> dict:
    """Train and test the scene's machine with ``key_a = value_a`` and ``key_b = value_b``.

    Returns
    -------
    dict
        The fields of :data:`GRID_FIELDS`.
    """
    rec = _train_once(as_scene(scene_ref), seed, {key_a: value_a, key_b: value_b}, train_count, test_count, epochs)
    return {"param_a": key_a, "value_a": value_text(value_a), "param_b": key_b, "value_b": value_text(value_b),
            **rec}


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
    [('0.0', 0.75, 0.0, False), ('0.05', 0.625, -0.125, False)]
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
        ``distinguishable`` whether its 95 % interval excludes 0; ``passes_mean`` the
        passes trained, ``clean`` the first pass without a training mistake per seed
        (None where every pass erred).
        """
        ref = {r["seed"]: r["test_accuracy"] for r in self._by_value(self.reference)}
        return [{"value": value_text(v), **_cell_summary(self._by_value(v), ref)} for v in self.values]

    def _cells(self) -> tuple[str, tuple, list, list]:
        """The line above the table, its head, its rows (cells as text) and the lines under it."""
        above = (f"{self.scene}: {self.param} over {len(self.seeds)} paired seed(s); "
                 f"change = test accuracy minus at {value_text(self.reference)} (same seeds), 95 % interval")
        head = ("value", "test accuracy (%)", "change (points)", "machine time", "waited", "learned after")

        def iv(m, lo, hi, scale=100.0, fmt="{:.1f}"):
            if m is None:
                return "-"
            if lo is None or math.isnan(lo):
                return fmt.format(m * scale)
            return f"{fmt.format(m * scale)} [{fmt.format(lo * scale)}, {fmt.format(hi * scale)}]"

        rows = []
        summary = self.summary()
        for r in summary:
            change = ("reference" if r["value"] == value_text(self.reference)
                      else iv(r["change_mean"], r["change_low"], r["change_high"], fmt="{:+.1f}")
                      + ("" if r["distinguishable"] else " ~0"))
            rows.append((r["value"], iv(r["test_mean"], r["test_low"], r["test_high"]), change,
                         hours_cell(r["machine_h_mean"]), duration(r["waited_s_mean"]),
                         f"{r['learned_after_mean']:.1f}"))
        under = ["~0: not distinguishable from 0 (the 95 % interval contains 0); learned after: "
                 "presentations until the last training mistake"]
        if self.param in SCHEDULE_PARAMS:
            under.append("first pass without a training mistake, per seed (-: none):")
            under += [f"{r['value']:>10}  " + " ".join("-" if c is None else str(c) for c in r["clean"])
                      for r in summary]
        return above, head, rows, under

    def table(self) -> str:
        """A plain-text table, one line per value."""
        above, head, rows, under = self._cells()
        widths = (10, 22, 22, 12, 8, 13)
        lines = ["  ".join(f"{c:>{w}}" for c, w in zip(r, widths)) for r in (head, *rows)]
        return above + "\n" + "\n".join(lines + under)

    def __repr__(self) -> str:
        return clip(f"Sweep(scene={self.scene!r}, param={self.param!r}, "
                    f"values=[{', '.join(value_text(v) for v in self.values)}], {len(self.seeds)} seed(s))")

    def _repr_html_(self) -> str:
        above, head, rows, under = self._cells()
        return study_html(f"Sweep: {self.scene}", html_table(head, rows, caption=above, notes=under),
                          figure_function("Sweep"), self)

    def to_json(self) -> dict:
        """Everything as JSON-safe values: the run, the summary and the records (``sweep.json``)."""
        return jsonable({"scene": self.scene, "param": self.param,
                         "values": [value_text(v) for v in self.values],
                         "reference": value_text(self.reference), "seeds": self.seeds,
                         "summary": self.summary(), "records": self.records})

    def csv_text(self) -> str:
        """``sweep.csv``: one row per (value, seed), values first, then seeds.

        A sweep of ``schedule.epochs`` adds the columns of :data:`EPOCHS_FIELDS`.
        """
        fields = SWEEP_FIELDS + (EPOCHS_FIELDS if self.param in SCHEDULE_PARAMS else ())
        return csv_text([r for v in self.values for r in self._by_value(v)], fields)


def _interval(xs, lo, hi):
    """(mean, low, high) of ``xs`` with its 95 % t-interval clipped to [lo, hi]; Nones if empty."""
    stat = clip_interval(mean_interval(xs), lo, hi)
    return stat if stat else (None,) * 3


def _cell_summary(recs: list[dict], ref: dict) -> dict:
    """Means with 95 % t-intervals over the seeds of one value (or one cell of a grid).

    ``ref`` maps a seed to the reference's test accuracy: the change is paired.
    """
    row: dict[str, Any] = {"n": len(recs)}
    diffs = [r["test_accuracy"] - ref[r["seed"]] for r in recs if r["seed"] in ref]
    # the last mistake falls within the run: a t-interval of a few seeds reached past its end
    # (265 presentations in a run of 200)
    run = max((r.get("presentations") or math.inf for r in recs), default=math.inf)
    for name, xs, lo, hi in (("test", [r["test_accuracy"] for r in recs], 0.0, 1.0),
                             ("change", diffs, -1.0, 1.0),
                             ("machine_h", [r["machine_time_s"] / 3600.0 for r in recs], 0.0, math.inf),
                             ("learned_after", [r["learned_after"] for r in recs], 0.0, run)):
        row[f"{name}_mean"], row[f"{name}_low"], row[f"{name}_high"] = _interval(xs, lo, hi)
    for name in ("waited_s", "mistakes", "passes", "pots_at_stops"):
        xs = [r[name] for r in recs if r.get(name) is not None]
        row[f"{name}_mean"] = float(np.mean(xs)) if xs else None
    row["clean"] = [r.get("first_clean_pass") for r in recs]
    lo, hi = row["change_low"], row["change_high"]
    row["distinguishable"] = lo is not None and hi is not None and not math.isnan(lo) and (lo > 0 or hi < 0)
    return row


def _check_settings(scene, param: str, vals: list, epochs) -> None:
    """Each value against the scene's own overrides; ``epochs`` not beside a swept ``schedule.epochs``."""
    if param in SCHEDULE_PARAMS:
        if epochs is not None:
            raise InputError(f"epochs: cannot be set while {param} is swept")
        return
    for v in vals:                                   # the scene's own overrides may conflict
        scene.machine_spec().with_overrides({param: v})


def _own_value(scene, param: str):
    """The scene's own value of ``param`` (its schedule's passes for ``schedule.epochs``)."""
    if param in SCHEDULE_PARAMS:
        return scene.schedule.epochs
    return scene.machine_spec().get(param)


def sweep(scene, param: str, values, *, seeds=5, reference=None, executor=None, out=None,
          resume: bool = False, progress: bool = False, train_count: int | None = None,
          test_count: int | None = None, epochs: int | None = None, figure: Callable | None = None) -> Sweep:
    """Dose-response of one spec parameter, over paired seeds.

    Parameters
    ----------
    scene : Scene or str
        A scene or a scene file; its machine (``scene.machine_spec()``) is the base.
    param : str
        A dotted spec key, e.g. ``"rack.motor_speed"`` (``mark1 specs`` lists them), or
        ``"schedule.epochs"``: the passes over the scene's training cards, ``until[:CAP]``
        for "until the first pass without a training mistake, at most CAP passes".
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
        A progress bar over the jobs (on a terminal or in Jupyter).
    train_count, test_count : int, optional
        Card counts instead of the scene's.
    epochs : int, optional
        Passes over the training cards instead of the scene's (not with ``schedule.epochs`` swept).
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

    Training amount: one pass, five passes, and until the first pass without a mistake:

    >>> result = sweep("scenes/demo.toml", "schedule.epochs", "1,5,until", seeds=1, train_count=8, test_count=8)
    >>> [(r["value"], r["passes"], r["first_clean_pass"]) for r in result.records]
    [('1', 1, None), ('5', 5, 3), ('until:50', 3, 3)]
    """
    scene, seed_ids, train_count, test_count = study_inputs(scene, seeds, train_count, test_count)
    epochs = count_option(epochs, "epochs")
    vals = parse_values(param, values)
    _check_settings(scene, param, vals, epochs)
    check_figure(figure, out)
    if reference is not None:
        ref_value = parse_value(param, reference)
        if ref_value not in vals:
            raise InputError(f"reference: expected one of the values {[value_text(v) for v in vals]}, "
                             f"got {reference!r}")
    else:
        base = _own_value(scene, param)
        ref_value = base if base in vals else vals[0]
    ref = scene_ref(scene)
    jobs = [(ref, s, param, v, train_count, test_count, epochs) for v in vals for s in seed_ids]
    keys = [f"value-{value_text(v)}-seed-{s:04d}" for v in vals for s in seed_ids]
    records = None
    if out is not None:
        config = {"study": "sweep", "version": 1, "scene": scene.name, "scene_sha256": scene_digest(scene),
                  "param": param, "train_count": train_count, "test_count": test_count}
        if epochs is not None:
            config["epochs"] = epochs
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


# ----------------------------------------------------------------------------------------
# two parameters


@dataclass
class GridSweep:
    """A finished two-parameter sweep: every (value_a, value_b, seed) record.

    Attributes
    ----------
    scene : str
        The scene's name.
    params : tuple of str
        The two keys swept, ``(a, b)``.
    values : tuple of list
        The values of ``a`` and of ``b``, in the order given.
    reference : tuple
        The cell the paired changes are measured against: the scene's own value of each
        key where it is swept, else the first value.
    seeds : list of int
    records : list of dict
        One per (value_a, value_b, seed), the fields of :data:`GRID_FIELDS`.

    Examples
    --------
    >>> result = grid_sweep("scenes/demo.toml", "rack.backlash", "0,0.05", "schedule.epochs", "1,3", seeds=2,
    ...                     train_count=8, test_count=8)
    >>> result.reference, len(result.records)
    ((0.0, 1), 8)
    >>> result.grid("test").round(3).tolist()          # rows: backlash, columns: passes
    [[0.688, 0.75], [0.625, 0.625]]
    """

    scene: str
    params: tuple
    values: tuple
    reference: tuple
    seeds: list
    records: list = field(repr=False)

    def _cell(self, va, vb) -> list[dict]:
        ta, tb = value_text(va), value_text(vb)
        by_seed = {r["seed"]: r for r in self.records if r["value_a"] == ta and r["value_b"] == tb}
        return [by_seed[s] for s in self.seeds if s in by_seed]

    def summary(self) -> list[dict]:
        """One row per cell (``a`` outer, ``b`` inner): means with 95 % t-intervals over seeds.

        As :meth:`Sweep.summary`, the change paired against the reference cell; also
        ``pots_at_stops_mean``, the pots within :data:`STOP_MARGIN` of an end stop at the
        end of training.
        """
        ref = {r["seed"]: r["test_accuracy"] for r in self._cell(*self.reference)}
        return [{"value_a": value_text(va), "value_b": value_text(vb), **_cell_summary(self._cell(va, vb), ref)}
                for va in self.values[0] for vb in self.values[1]]

    def grid(self, name: str = "test") -> np.ndarray:
        """One summary statistic as an array (len(values_a), len(values_b)), NaN where missing.

        Parameters
        ----------
        name : str
            A statistic of :meth:`summary` without ``_mean``: ``test``, ``change``,
            ``machine_h``, ``learned_after``, ``passes``, ``pots_at_stops``, ...

        Returns
        -------
        array of shape (len(values_a), len(values_b))
        """
        rows = self.summary()
        if f"{name}_mean" not in rows[0]:
            raise InputError(f"name: expected one of {sorted(k[:-5] for k in rows[0] if k.endswith('_mean'))}, "
                             f"got {name!r}")
        cells = [np.nan if r[f"{name}_mean"] is None else r[f"{name}_mean"] for r in rows]
        return np.array(cells, float).reshape(len(self.values[0]), len(self.values[1]))

    def _cells(self) -> tuple[str, list, list, str]:
        """The line above the table, its head, its rows (cells as text) and the line under it."""
        a, b = self.params
        above = (f"{self.scene}: {a} x {b} over {len(self.seeds)} paired seed(s); change = test accuracy minus "
                 f"at ({value_text(self.reference[0])}, {value_text(self.reference[1])}) (same seeds)")
        rows = []
        for r in self.summary():
            change = ("reference" if (r["value_a"], r["value_b"]) == tuple(map(value_text, self.reference))
                      else num(None if r["change_mean"] is None else 100 * r["change_mean"], "{:+.1f}")
                      + ("" if r["distinguishable"] else " ~0"))
            rows.append([r["value_a"], r["value_b"], pct(r["test_mean"]), change,
                         hours_cell(r["machine_h_mean"]), num(r["learned_after_mean"], "{:.1f}"),
                         num(r["pots_at_stops_mean"], "{:.1f}")])
        head = [a, b, "test accuracy", "change (points)", "machine time", "learned after", "pots at stops"]
        under = ("~0: not distinguishable from 0 (95 % interval); learned after: presentations until the last "
                 f"training mistake; pots at stops: within {STOP_MARGIN} FS of ±1 at the end of training")
        return above, head, rows, under

    def table(self) -> str:
        """A plain-text table, one line per cell."""
        above, head, rows, under = self._cells()
        return above + "\n" + "\n".join([*aligned(head, rows, left=(0, 1)), under])

    def __repr__(self) -> str:
        a, b = self.params
        return clip(f"GridSweep(scene={self.scene!r}, {a} x {b}, {len(self.values[0])} x {len(self.values[1])} "
                    f"cells, {len(self.seeds)} seed(s))")

    def _repr_html_(self) -> str:
        above, head, rows, under = self._cells()
        return study_html(f"Grid sweep: {self.scene}", html_table(head, rows, left=(0, 1), caption=above,
                                                                  notes=[under]), figure_function("GridSweep"), self)

    def to_json(self) -> dict:
        """Everything as JSON-safe values: the run, the summary and the records (``grid.json``)."""
        return jsonable({"scene": self.scene, "params": list(self.params),
                         "values": [[value_text(v) for v in vs] for vs in self.values],
                         "reference": [value_text(v) for v in self.reference], "seeds": self.seeds,
                         "summary": self.summary(), "records": self.records})

    def csv_text(self) -> str:
        """``grid.csv``: one row per (value_a, value_b, seed), ``a`` outer, then ``b``, then seeds."""
        return csv_text([r for va in self.values[0] for vb in self.values[1] for r in self._cell(va, vb)],
                        GRID_FIELDS)


def grid_sweep(scene, param_a: str, values_a, param_b: str, values_b, *, seeds=3, executor=None, out=None,
               resume: bool = False, progress: bool = False, train_count: int | None = None,
               test_count: int | None = None, epochs: int | None = None,
               figure: Callable | None = None) -> GridSweep:
    """Two parameters swept together, every pair of values, over paired seeds.

    As :func:`sweep`, with one job per (value_a, value_b, seed): for one seed every cell
    sees the same cards and the same machine seed.

    Parameters
    ----------
    scene : Scene or str
        A scene or a scene file; its machine is the base.
    param_a, param_b : str
        Two different keys (spec keys or ``"schedule.epochs"``); ``a`` gives the rows.
    values_a, values_b : str or sequence
        At least two distinct values each (see :func:`parse_values`).
    seeds, executor, resume, progress, train_count, test_count, epochs
        As for :func:`sweep`.
    out : str or path-like, optional
        Folder for ``jobs/*.json``, ``grid.csv``, ``grid.json`` and the figure
        (``grid.png``, see ``figure``), all written atomically.
    figure : callable, optional
        Draws the grid, called as ``figure(result, out=out / "grid.png")``; needs ``out``
        (``mark1 sweep`` passes :func:`mark1.viz.studies.grid_sweep_figure`).

    Returns
    -------
    GridSweep

    Raises
    ------
    SpecError
        Naming the key, for a bad parameter or value.
    InputError
        For the same key twice, bad seeds or counts, ``figure`` without ``out``.

    Examples
    --------
    >>> result = grid_sweep("scenes/demo.toml", "trainer.increment", "0.02,0.5", "rack.decay_time", "30,inf",
    ...                     seeds=1, train_count=8, test_count=8)
    >>> result.grid("pots_at_stops").tolist()        # a large increment drives wipers to their stops
    [[0.0, 0.0], [0.0, 3.0]]
    """
    scene, seed_ids, train_count, test_count = study_inputs(scene, seeds, train_count, test_count)
    epochs = count_option(epochs, "epochs")
    if param_a == param_b:
        raise InputError(f"params: expected two different keys, got {param_a!r} twice")
    vals = (parse_values(param_a, values_a), parse_values(param_b, values_b))
    for key, vs in zip((param_a, param_b), vals):
        _check_settings(scene, key, vs, epochs)
    check_figure(figure, out)
    own = (_own_value(scene, param_a), _own_value(scene, param_b))
    reference = tuple(o if o in vs else vs[0] for o, vs in zip(own, vals))
    ref = scene_ref(scene)
    cells = [(va, vb) for va in vals[0] for vb in vals[1]]
    jobs = [(ref, s, param_a, va, param_b, vb, train_count, test_count, epochs) for va, vb in cells for s in seed_ids]
    keys = [f"a-{value_text(va)}-b-{value_text(vb)}-seed-{s:04d}" for va, vb in cells for s in seed_ids]
    records = None
    if out is not None:
        config = {"study": "grid-sweep", "version": 1, "scene": scene.name, "scene_sha256": scene_digest(scene),
                  "params": [param_a, param_b], "train_count": train_count, "test_count": test_count,
                  "epochs": epochs}
        expected = {k: (value_text(j[3]), value_text(j[5]), j[1]) for k, j in zip(keys, jobs)}

        def valid(key, rec):
            return (all(f in rec for f in GRID_FIELDS) and (rec["value_a"], rec["value_b"], rec["seed"])
                    == expected[key] and 0.0 <= rec["test_accuracy"] <= 1.0)
        records = Records(Path(out) / "jobs", config, valid=valid)
    results = run_jobs(_grid_job, jobs, executor=executor, keys=keys, records=records, resume=resume,
                       progress="runs" if progress else None)
    result = GridSweep(scene=scene.name, params=(param_a, param_b), values=vals, reference=reference,
                       seeds=seed_ids, records=list(results))
    if out is not None:
        out = Path(out)
        write_text(out / "grid.csv", result.csv_text())
        write_json(out / "grid.json", result.to_json())
        draw(figure, result, out / "grid.png")
    return result
