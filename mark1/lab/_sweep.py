"""Dose-response: one machine parameter swept over values, the same seeds for every value.

``mark1 sweep SCENE --param rack.motor_speed --values 0.003,0.01,0.03,0.1,inf`` trains
the scene's machine once per (value, seed), with only that parameter changed. The seeds
are *paired*: for one seed every value sees the same training and test cards and the
same machine seed, so the same patch board, motor spread and noise streams. The
difference between two values on one seed is therefore the effect of the parameter
alone, and its mean over seeds comes with a paired 95 % interval from :mod:`mark1.stats`
(the hull of Student's t and Hall's skewness-corrected t, clipped to what can happen; none below
:data:`mark1.stats.MIN_SEEDS` seeds). The values (or a grid's cells) against the reference
are one family, controlled by Benjamini–Hochberg by default (a sweep screens many values:
a false-discovery rate is the honest claim; ``correction="holm"`` for a family-wise one):
every verdict reads the adjusted interval.

What is recorded per (value, seed): test and training accuracy, machine time, seconds
the trainer waited for the motors, training mistakes, and the presentations until the
last training mistake (how long the machine took to learn its cards). ``sweep.csv``
holds one row per (value, seed) with the three seeds of the run and a digest of its
training cards, so a reader can check the pairing; ``sweep.png`` shows accuracy,
the paired change against the reference value, machine time and learning time
against the parameter with 95 % bands over seeds, each inside what the quantity can be
(drawn by :func:`mark1.viz.studies.sweep_figure`); ``sweep_summary.csv`` one row per value
and figure, with its interval, method and correction.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import time
import warnings
from collections.abc import Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from mark1._utils.atomic import write_text
from mark1._utils.html import clip, figure_function, html_table, study_html
from mark1._utils.language import duration
from mark1._utils.records import jsonable
from mark1.exceptions import CliffWarning, InputError
from mark1.lab._common import (Piloted, aligned, check_figure, check_precision, count_option, csv_text, draw,
                               hours_cell, num, run_to_precision, study_inputs, write_json)
from mark1.lab.runner import (Records, SceneLike, Seeds, StrPath, as_scene, job, run_cards, run_jobs, scene_digest,
                              scene_ref)
from mark1 import stats
from mark1.lab._family import (INTERVAL_FIELDS, caption, diff_cell, family_lines, interval_fields, precision_line,
                               value_cell)
from mark1.machine.energy import energy_fields, joules_text
from mark1.machine.mark_i import MarkI
from mark1.specs import MachineSpec, SpecError, parameter_keys
from mark1.stimuli.cards import experiment_seeds

__all__ = ["sweep", "Sweep", "grid_sweep", "GridSweep", "parse_value", "parse_values", "value_text", "parse_at",
           "at_text", "cliff_warning", "joules_cell"]

#: Columns of ``sweep.csv``: one row per (value, seed).
SWEEP_FIELDS = ("param", "value", "seed", "test_accuracy", "train_accuracy", "machine_time_s",
                "waited_s", "mistakes", "learned_after", "presentations", "energy_j", "energy_per_correction_j",
                "wall_time_s", "seed_train", "seed_test", "seed_machine", "cards_sha256")
#: What a sweep of ``schedule.epochs`` adds to ``sweep.csv``: the passes trained and the
#: first pass without a training mistake (empty if none).
EPOCHS_FIELDS = ("passes", "first_clean_pass")
#: Measured per run beside :data:`SWEEP_FIELDS` (in the records; in ``grid.csv``).
EXTRA_FIELDS = (*EPOCHS_FIELDS, "pots_at_stops", "pots", "max_wiper")
#: Columns of ``grid.csv`` (a two-parameter sweep): one row per (value_a, value_b, seed).
GRID_FIELDS = ("param_a", "value_a", "param_b", "value_b", "seed", "test_accuracy", "train_accuracy",
               "machine_time_s", "waited_s", "mistakes", "learned_after", "presentations", "energy_j",
               "energy_per_correction_j", *EXTRA_FIELDS, "wall_time_s", "seed_train", "seed_test", "seed_machine",
               "cards_sha256")
#: Columns of ``sweep_summary.csv`` and ``grid_summary.csv``: one row per value (cell) and figure.
SUMMARY_FIELDS = ("figure", "unit", "n", "mean", *INTERVAL_FIELDS, "raw_low", "raw_high", "decided")
#: The figures a summary row is given for, with their unit.
SUMMARY_FIGURES = (("test_accuracy", "fraction"), ("change", "fraction, this value minus the reference"),
                   ("machine_time_h", "hours"), ("learned_after", "presentations"), ("energy_j", "joules"))
#: A sweep's family control unless asked otherwise.
DEFAULT_CORRECTION = "bh"
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


def parse_value(key: str, value: bool | int | float | str) -> bool | int | float | str:
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


def value_text(v: object) -> str:
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


def parse_at(at: Mapping[str, Any] | None) -> dict:
    """A study's starting point: machine parameters set before the study, typed and checked.

    ``ablate`` and ``sweep`` apply it to the scene's machine first, so that a stressed
    operating point needs no copy of the scene file; the result is the same as with the
    scene's ``[machine.overrides]`` edited to these values.

    Parameters
    ----------
    at : mapping of str to value, or None
        Dotted spec keys and their values or texts, e.g. ``{"rack.step": 0.04}`` (see
        :func:`parse_value`); None for none.

    Returns
    -------
    dict
        ``{key: value}`` typed as the fields want them, in the order given.

    Raises
    ------
    SpecError
        Naming the key, for an unknown key, a value of the wrong type or range, or a shape.
    InputError
        For something that is not a mapping, or ``schedule.epochs`` (not the machine's).

    Examples
    --------
    >>> parse_at({"rack.drive": "ratchet", "rack.step": "0.04"})
    {'rack.drive': 'ratchet', 'rack.step': 0.04}
    >>> parse_at(None)
    {}
    """
    if at is None:
        return {}
    if not isinstance(at, Mapping):
        raise InputError(f"at: expected a mapping of machine parameters to values such as {{'rack.step': 0.04}}, "
                         f"got {type(at).__name__}")
    out = {}
    for key, value in at.items():
        if not isinstance(key, str):
            raise InputError(f"at: expected dotted machine parameters as keys, such as 'rack.step', got {key!r}")
        if key in SCHEDULE_PARAMS:
            raise InputError(f"at: {key} is not a machine parameter; expected a key of `mark1 specs` "
                             "(the passes are the study's epochs)")
        if key in parameter_keys() and isinstance(_field(key).default, tuple):
            raise SpecError(key, "cannot be set as a starting point (a shape or table); set it in the scene file")
        out[key] = parse_value(key, value)
    return out


def at_text(at: Mapping) -> str:
    """A starting point as one line, ``rack.drive=ratchet, rack.step=0.04``; empty for none.

    Examples
    --------
    >>> at_text({"rack.drive": "ratchet", "rack.step": 0.04}), at_text({})
    ('rack.drive=ratchet, rack.step=0.04', '')
    """
    return ", ".join(f"{k}={value_text(v)}" for k, v in at.items())


def start_spec(scene, at: Mapping) -> MachineSpec:
    """The scene's machine with the starting point ``at`` (checked by :func:`parse_at`) applied.

    Raises
    ------
    SpecError
        Naming the key, for a value the scene's machine cannot take beside its own overrides.
    """
    spec = scene.machine_spec()
    return spec.with_overrides(dict(at)) if at else spec


def _crosses_cliff(spec) -> bool:
    """Whether ``spec``'s pots ratchet in steps larger than the trainer's per-correction increment."""
    rack, trainer = spec.rack, spec.trainer
    return rack.drive == "ratchet" and trainer.rule != "lms" and rack.step > trainer.increment


def cliff_warning(cases: Iterable[tuple[str, MachineSpec]]) -> str | None:
    """One line when some machine of a study crosses a known cliff; None when none does.

    The cliff: on the ratchet drive a command of ``trainer.increment`` turns
    ``rint(increment / step)`` whole steps, so a step above the increment turns one step,
    more than commanded, and a step of twice the increment or more turns none: no
    correction moves a pot, and the machine stops learning (``e_vs_f`` falls to chance,
    50 %, at 0.04 FS with the increment at 0.02).

    Parameters
    ----------
    cases : iterable of (str, MachineSpec)
        Each machine the study runs with a label saying where it comes from
        (``"rack.step=0.04"``, ``"arm on:ratchet"``).

    Returns
    -------
    str or None

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> ratchet = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.step": 0.04})
    >>> print(cliff_warning([("rack.step=0.04", ratchet), ("the scene's machine", MARK_I)]))  # doctest: +ELLIPSIS
    ratchet step above the trainer's increment (0.02 FS) at rack.step=0.04 (step 0.04 FS): ...
    >>> cliff_warning([("the scene's machine", MARK_I)]) is None
    True
    """
    over = [(label, spec) for label, spec in cases if _crosses_cliff(spec)]
    if not over:
        return None
    incs = sorted({spec.trainer.increment for _, spec in over})
    where = "; ".join(f"{label} (step {value_text(spec.rack.step)} FS)" for label, spec in over[:6])
    where += f"; and {len(over) - 6} more" if len(over) > 6 else ""
    ratios = [spec.rack.step / spec.trainer.increment for _, spec in over]
    if min(ratios) >= 2.0:                          # rint(increment / step) is 0 (rint(0.5) too)
        what = "a correction's command rounds to no step, so no pot turns and the machine cannot learn"
    elif max(ratios) < 2.0:
        what = "each correction turns one whole step, more than the increment commanded"
    else:
        what = ("a correction turns one whole step, more than commanded, and from twice the increment on no "
                "step at all (the command rounds to 0)")
    return (f"ratchet step above the trainer's increment ({', '.join(f'{i:g}' for i in incs)} FS) at {where}: "
            f"{what}; accuracy falls off a cliff there")


def _warn_cliff(cases: Iterable[tuple[str, MachineSpec]], every: str | None = None) -> str | None:
    """Warn (:class:`~mark1.exceptions.CliffWarning`) when :func:`cliff_warning` has a line; the line.

    ``every`` labels all the cases at once when every one crosses with the same step (the
    starting point put them there), instead of naming each.
    """
    cases = list(cases)
    if every and len(cases) > 1 and all(_crosses_cliff(spec) for _, spec in cases) \
            and len({spec.rack.step for _, spec in cases}) == 1:
        cases = [(every, cases[0][1])]
    line = cliff_warning(cases)
    if line is not None:
        warnings.warn(line, CliffWarning, stacklevel=3)
    return line


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


def _energy_of(machine) -> dict:
    """The energy of learning of one fitted run, as a study records it
    (:func:`mark1.machine.energy.energy_fields`): ``energy_j``, ``energy_per_correction_j``
    (None without a correction), ``energy_basis`` and ``energy_status``."""
    e = energy_fields(machine)
    return {k: e[k] for k in ("energy_j", "energy_per_correction_j", "energy_basis", "energy_status")}


def joules_cell(j, per=None) -> str:
    """Joules as a table cell with an SI prefix, three figures, and the energy a correction after it
    when given; None -> ``-``.

    Examples
    --------
    >>> joules_cell(780.2, 35.4), joules_cell(2.61e-9), joules_cell(None)
    ('780 J (35.4 J/corr.)', '2.61 nJ', '-')
    """
    if j is None or j != j:
        return "-"
    return joules_text(j) + ("" if per is None or per != per else f" ({joules_text(per)}/corr.)")


def _train_once(scene, seed: int, settings: dict, train_count, test_count, epochs, at=None) -> dict:
    """Train and test the scene's machine with ``settings`` ({key: value}) on seed ``seed``.

    The starting point ``at`` ({key: value}) is applied first, then ``settings``. The
    cards and the machine seed depend on ``seed`` only, never on the settings (the
    pairing of a sweep). Returns the measured fields of :data:`SWEEP_FIELDS` (without
    param and value) and :data:`EXTRA_FIELDS`.
    """
    train, test, seed_machine = run_cards(scene, seed, train_count, test_count)
    spec_settings = {k: v for k, v in settings.items() if k not in SCHEDULE_PARAMS}
    spec = start_spec(scene, at or {})
    spec = spec.with_overrides(spec_settings) if spec_settings else spec
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
            **_energy_of(m),
            "mistakes": int(len(wrong)), "learned_after": int(wrong[-1] + 1) if len(wrong) else 0,
            "presentations": int(len(m.history_)), "passes": int(len(m.mistakes_per_epoch_)),
            "first_clean_pass": _first_clean(m), "pots_at_stops": int(np.sum(wipers >= 1.0 - STOP_MARGIN)),
            "pots": int(wipers.size), "max_wiper": float(wipers.max()),
            "wall_time_s": time.perf_counter() - t0,
            "seed_train": s_train, "seed_test": s_test, "seed_machine": s_machine,
            "cards_sha256": _cards_digest(train.cards)}


@job
def _sweep_job(scene_ref, seed: int, key: str, value, train_count: int | None = None,
               test_count: int | None = None, epochs: int | None = None, at: dict | None = None) -> dict:
    """Train and test the scene's machine (from the starting point ``at``) with ``key = value`` on seed ``seed``.

    Top level and picklable, so any executor may run it. The cards and the machine
    seed depend on ``seed`` only, never on the value (the pairing of a sweep).

    Returns
    -------
    dict
        The fields of :data:`SWEEP_FIELDS` and :data:`EXTRA_FIELDS`.
    """
    rec = _train_once(as_scene(scene_ref), seed, {key: value}, train_count, test_count, epochs, at)
    return {"param": key, "value": value_text(value), **rec}


@job
def _grid_job(scene_ref, seed: int, key_a: str, value_a, key_b: str, value_b, train_count: int | None = None,
              test_count: int | None = None, epochs: int | None = None, at: dict | None = None) -> dict:
    """Train and test the scene's machine (from the starting point ``at``) with ``key_a = value_a`` and
    ``key_b = value_b``.

    Returns
    -------
    dict
        The fields of :data:`GRID_FIELDS`.
    """
    rec = _train_once(as_scene(scene_ref), seed, {key_a: value_a, key_b: value_b}, train_count, test_count, epochs,
                      at)
    return {"param_a": key_a, "value_a": value_text(value_a), "param_b": key_b, "value_b": value_text(value_b),
            **rec}


# ----------------------------------------------------------------------------------------
# the result


@dataclass
class Sweep(Piloted):
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
    at : dict
        The starting point: machine parameters set before the sweep (``sweep``'s ``at``).
    cliff : str or None
        The line of :func:`cliff_warning` when some value crosses a known cliff.
    correction : str
        How the family of values against the reference is controlled: "bh" (the default),
        "holm" or "none" (:func:`mark1.stats.family`).

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
    at: dict = field(default_factory=dict)
    cliff: str | None = None
    correction: str = DEFAULT_CORRECTION
    pilot: list = field(default_factory=list)
    precision: float | None = None

    def _by_value(self, value, seeds=None) -> list[dict]:
        """The records of ``value``, of the counted seeds (or of ``seeds``), in their order."""
        text = value_text(value)
        by_seed = {r["seed"]: r for r in self.records if r["value"] == text}
        return [by_seed[s] for s in (self.counted if seeds is None else seeds) if s in by_seed]

    def summary(self) -> list[dict]:
        """One row per value: means over seeds with their intervals (:mod:`mark1.stats`).

        ``test_*`` (accuracy, inside [0, 1]), ``machine_h_*`` (hours, >= 0),
        ``learned_after_*`` (presentations, inside [0, the run's presentations]),
        ``energy_j_*``: each ``_mean``, ``_low``, ``_high`` (None below
        :data:`mark1.stats.MIN_SEEDS` seeds). ``change_*`` is the paired difference in test
        accuracy from the reference value (this value minus the reference, seed by seed;
        negative = points lost) with its interval adjusted over the family of values
        (``correction``), ``change_raw_low``/``_high`` its interval alone, ``change_p``,
        ``change_p_adjusted``; ``decided`` whether the adjusted interval excludes 0 (None:
        no test), ``distinguishable`` the same as a bool; ``passes_mean`` the passes trained,
        ``clean`` the first pass without a training mistake per seed (None where every pass
        erred).
        """
        ref = {r["seed"]: r["test_accuracy"] for r in self._by_value(self.reference)}
        comp = self.compared()
        return [{"value": value_text(v), **_cell_summary(self._by_value(v), ref, comp.get(value_text(v)))}
                for v in self.values]

    def differences(self) -> dict[str, list[float]]:
        """Per value (its text) but the reference: the paired differences in test accuracy from the
        reference, seed by seed (fraction; this value minus the reference)."""
        ref = {r["seed"]: r["test_accuracy"] for r in self._by_value(self.reference)}
        return {value_text(v): [r["test_accuracy"] - ref[r["seed"]] for r in self._by_value(v) if r["seed"] in ref]
                for v in self.values if value_text(v) != value_text(self.reference)}

    def compared(self) -> dict[str, stats.Compared]:
        """The family: each value but the reference against it, controlled by ``correction``
        (:func:`mark1.stats.family`), keyed by the value's text."""
        diffs = self.differences()
        family = stats.family(list(diffs.values()), (-1.0, 1.0), correction=_correction(self.correction))
        return dict(zip(diffs, family))

    def seeds_line(self) -> str | None:
        """The seeds the family would need for ±1 and ±0.5-point intervals of the change, from its spread."""
        return stats.seeds_line(list(self.differences().values()))

    def _cells(self) -> tuple[str, tuple, list, list]:
        """The line above the table, its head, its rows (cells as text) and the lines under it."""
        comp = self.compared()
        above = (f"{self.scene}: {self.param} over {len(self.counted)} paired seed(s)"
                 + (f" after a pilot of {len(self.pilot)}" if self.pilot else "")
                 + (f", starting at {at_text(self.at)}" if self.at else "")
                 + f"; change = test accuracy minus at {value_text(self.reference)} (same seeds)")
        head = ("value", "test accuracy (%)", "change (points), adjusted", "machine time", "waited",
                "learned after", "energy of learning")
        rows = []
        summary = self.summary()
        ivs = {value_text(v): _cell_intervals(self._by_value(v)) for v in self.values}
        for r in summary:
            c = comp.get(r["value"])
            change = ("reference" if c is None
                      else diff_cell(c.interval) + ("" if c.decided or c.decided is None else " ~0"))
            iv = ivs[r["value"]]
            rows.append((r["value"], value_cell(iv["test"]), change, hours_cell(r["machine_h_mean"]),
                         duration(r["waited_s_mean"]), num(r["learned_after_mean"], "{:.1f}"),
                         joules_cell(r["energy_j_mean"], r["energy_per_correction_j_mean"])))
        under = family_lines(list(comp.values()), list(self.differences().values()), self.correction,
                             ns=[iv["test"].n for iv in ivs.values()])
        if self.pilot:
            under.append(precision_line(self.precision, self.pilot, self.counted, list(comp.values())))
        under.append("~0: the adjusted interval contains 0 (not distinguishable from 0); learned after: "
                     "presentations until the last training mistake; energy of learning: mean joules a run "
                     "spent turning pots (and a correction), mark1.machine.energy")
        if self.param in SCHEDULE_PARAMS:
            under.append("first pass without a training mistake, per seed (-: none):")
            under += [f"{r['value']:>10}  " + " ".join("-" if c is None else str(c) for c in r["clean"])
                      for r in summary]
        return above, head, rows, under

    def table(self) -> str:
        """A plain-text table, one line per value, the method, the family and the seeds a precision
        needs under it."""
        above, head, rows, under = self._cells()
        return above + "\n" + "\n".join([*aligned(head, rows, left=()), *under])

    def __repr__(self) -> str:
        return clip(f"Sweep(scene={self.scene!r}, param={self.param!r}, "
                    f"values=[{', '.join(value_text(v) for v in self.values)}], {len(self.seeds)} seed(s))")

    def _repr_html_(self) -> str:
        above, head, rows, under = self._cells()
        m = len(self.compared())
        return study_html(f"Sweep: {self.scene}",
                          html_table(head, rows, caption=f"{above}. {caption(self.correction, m)}", notes=under),
                          figure_function("Sweep"), self)

    def to_json(self) -> dict:
        """Everything as JSON-safe values: the run, the summary and the records (``sweep.json``)."""
        m = len(self.compared())
        return jsonable({"scene": self.scene, "param": self.param,
                         "values": [value_text(v) for v in self.values],
                         "reference": value_text(self.reference), "seeds": self.seeds,
                         "at": {k: value_text(v) for k, v in self.at.items()},
                         "interval": f"{100 * stats.LEVEL:g} % {stats.METHOD} (paired for the change)",
                         "family": stats.correction_words(self.correction, m), "correction": self.correction,
                         "min_seeds": stats.MIN_SEEDS, "seeds_needed": self.seeds_line(), "cliff": self.cliff,
                         "pilot": self.pilot, "precision": self.precision,
                         "summary": self.summary(), "records": self.records})

    def summary_csv(self) -> str:
        """``sweep_summary.csv``: one row per value and figure (:data:`SUMMARY_FIELDS`), each with its
        interval, the method and the family's correction (the change's adjusted interval)."""
        comp = self.compared()
        rows = [{"value": value_text(v), **r}
                for v in self.values for r in _summary_rows(self._by_value(v), comp.get(value_text(v)))]
        return csv_text(rows, ("value", *SUMMARY_FIELDS))

    def csv_text(self) -> str:
        """``sweep.csv``: one row per (value, seed), values first, then seeds.

        A sweep of ``schedule.epochs`` adds the columns of :data:`EPOCHS_FIELDS`.
        """
        fields = SWEEP_FIELDS + (EPOCHS_FIELDS if self.param in SCHEDULE_PARAMS else ())
        return csv_text([r for v in self.values for r in self._by_value(v, self.seeds)], fields)


def _cell_intervals(recs: list[dict]) -> dict[str, stats.Interval]:
    """The intervals of one value's (or one cell's) figures over its seeds, each inside its range:
    ``test`` (accuracy, [0, 1]), ``machine_h`` (hours, >= 0), ``learned_after`` (presentations,
    [0, the run's presentations]), ``energy_j`` (joules, >= 0)."""
    runs = max((int(r.get("presentations") or 0) for r in recs), default=0)
    return {"test": stats.mean_interval([r["test_accuracy"] for r in recs], (0.0, 1.0)),
            "machine_h": stats.mean_interval([r["machine_time_s"] / 3600.0 for r in recs], (0.0, math.inf)),
            "learned_after": stats.mean_interval([r["learned_after"] for r in recs], (0.0, max(runs, 1))),
            "energy_j": stats.mean_interval([r["energy_j"] for r in recs if r.get("energy_j") is not None],
                                            (0.0, math.inf))}


def _summary_rows(recs: list[dict], change: stats.Compared | None) -> list[dict]:
    """The rows of a summary CSV for one value or cell: one per figure of :data:`SUMMARY_FIGURES`."""
    ivs = _cell_intervals(recs)
    out = []
    for name, unit in SUMMARY_FIGURES:
        if name == "change":
            if change is None:                       # the reference itself
                continue
            iv, extra = change.interval, {**interval_fields(change), "decided": change.decided,
                                          "raw_low": change.raw.low, "raw_high": change.raw.high}
        else:
            iv = ivs[{"test_accuracy": "test", "machine_time_h": "machine_h"}.get(name, name)]
            extra = {**interval_fields(iv), "raw_low": iv.low, "raw_high": iv.high}
        out.append({"figure": name, "unit": unit, "n": iv.n,
                    "mean": None if math.isnan(iv.mean) else iv.mean, **extra})
    return out


def _cell_summary(recs: list[dict], ref: dict, change: stats.Compared | None) -> dict:
    """Means over the seeds of one value (or one cell of a grid) with their intervals.

    ``ref`` maps a seed to the reference's test accuracy (the change is paired); ``change``
    is the value's comparison in the family (None for the reference itself).
    """
    row: dict[str, Any] = {"n": len(recs)}
    for name, iv in _cell_intervals(recs).items():
        row[f"{name}_mean"] = None if math.isnan(iv.mean) else iv.mean
        row[f"{name}_low"], row[f"{name}_high"] = iv.low, iv.high
    diffs = [r["test_accuracy"] - ref[r["seed"]] for r in recs if r["seed"] in ref]
    if change is None:                                   # the reference: no change by construction
        row.update(change_mean=float(np.mean(diffs)) if diffs else None, change_low=None, change_high=None,
                   change_raw_low=None, change_raw_high=None, change_level=None, change_p=None,
                   change_p_adjusted=None, decided=None)
    else:
        iv = change.interval
        row.update(change_mean=None if math.isnan(iv.mean) else iv.mean, change_low=iv.low, change_high=iv.high,
                   change_raw_low=change.raw.low, change_raw_high=change.raw.high, change_level=iv.level,
                   change_p=change.p, change_p_adjusted=change.p_adjusted, decided=change.decided)
    per = [r["energy_per_correction_j"] for r in recs if r.get("energy_per_correction_j") is not None]
    row["energy_per_correction_j_mean"] = float(np.mean(per)) if per else None
    for name in ("waited_s", "mistakes", "passes", "pots_at_stops"):
        xs = [r[name] for r in recs if r.get(name) is not None]
        row[f"{name}_mean"] = float(np.mean(xs)) if xs else None
    row["clean"] = [r.get("first_clean_pass") for r in recs]
    row["distinguishable"] = bool(row["decided"])
    return row


def _correction(correction: object) -> Literal["holm", "bh", "none"]:
    """A family's correction, checked: one of :data:`mark1.stats.CORRECTIONS`."""
    if correction == "holm" or correction == "bh" or correction == "none":
        return correction
    raise InputError(f"correction: expected one of {', '.join(stats.CORRECTIONS)}, got {correction!r}")


def _check_settings(scene, param: str, vals: list, epochs, at: Mapping | None = None) -> None:
    """Each value against the scene's own overrides and the starting point ``at``; ``epochs`` not beside a
    swept ``schedule.epochs``; the swept key not also in ``at``."""
    if at and param in at:
        raise InputError(f"at: {param} is swept; expected a starting point of other parameters")
    if param in SCHEDULE_PARAMS:
        if epochs is not None:
            raise InputError(f"epochs: cannot be set while {param} is swept")
        return
    start = start_spec(scene, at or {})
    for v in vals:                                   # the scene's own overrides may conflict
        start.with_overrides({param: v})


def _own_value(scene, param: str, at: Mapping | None = None):
    """The scene's own value of ``param`` at the starting point ``at`` (its schedule's passes for
    ``schedule.epochs``)."""
    if param in SCHEDULE_PARAMS:
        return scene.schedule.epochs
    return start_spec(scene, at or {}).get(param)


def _spec_of(start, settings: dict):
    """The machine a job of the study trains: the starting point with the swept settings."""
    spec_settings = {k: v for k, v in settings.items() if k not in SCHEDULE_PARAMS}
    return start.with_overrides(spec_settings) if spec_settings else start


def sweep(scene: SceneLike, param: str, values: str | Sequence[Any], *, seeds: Seeds = 10,
          reference: bool | int | float | str | None = None, at: Mapping[str, Any] | None = None,
          executor: Executor | None = None, out: StrPath | None = None,
          resume: bool = False, progress: bool = False, train_count: int | None = None,
          test_count: int | None = None, epochs: int | None = None, figure: Callable | None = None,
          correction: str = DEFAULT_CORRECTION, precision: float | None = None, max_seeds: int = 200) -> Sweep:
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
        ``n`` means seeds ``0 .. n-1``; every value runs on every seed. At least
        :data:`mark1.stats.MIN_SEEDS` (10, the default) for intervals and verdicts.
    reference : value, optional
        One of ``values``: the paired changes are measured against it (default: the
        scene machine's own value, at the starting point, when it is among ``values``,
        else the first).
    at : mapping, optional
        The starting point: machine parameters set before the sweep, e.g.
        ``{"rack.drive": "ratchet", "rack.step": 0.04}`` (see :func:`parse_at`), so that a
        stressed operating point needs no copy of the scene; the same runs as with the
        scene's ``[machine.overrides]`` edited. Not the swept key.
    executor : concurrent.futures.Executor, optional
        Runs the jobs (default: serially). Results do not depend on it.
    out : str or path-like, optional
        Folder for ``jobs/*.json`` (each (value, seed) as it finishes), ``sweep.csv``,
        ``sweep_summary.csv``, ``sweep.json`` and the figure (see ``figure``) at the end; all written atomically.
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
    correction : {"bh", "holm", "none"}
        How the family of values against the reference is controlled: Benjamini–Hochberg's
        false-discovery rate (the default: a sweep screens many values), Holm's family-wise
        error, or none (:func:`mark1.stats.family`).
    precision : float, optional
        Points: run until every change's interval is about ±``precision``. ``seeds`` (at
        least 10) are then a pilot that fixes, by Stein's rule, how many new seeds to run
        (:func:`mark1.lab._common.run_to_precision`); the intervals count the new seeds
        only, the pilot's records are kept (in ``sweep.csv`` and the figure). The same seeds
        give the same bits, and ``resume`` reads back every run recorded.
    max_seeds : int
        With ``precision``: the most seeds in all, the pilot's included.

    Returns
    -------
    Sweep

    Warns
    -----
    CliffWarning
        When a swept value (or the starting point) puts the machine on the ratchet with a
        step above the trainer's increment (:func:`cliff_warning`), before any run.

    Raises
    ------
    SpecError
        Naming the key, for a bad parameter, value or starting point.
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
    correction = _correction(correction)
    fraction, max_seeds = check_precision(precision, max_seeds, seed_ids)
    vals = parse_values(param, values)
    at = parse_at(at)
    start = start_spec(scene, at)
    _check_settings(scene, param, vals, epochs, at)
    check_figure(figure, out)
    if reference is not None:
        ref_value = parse_value(param, reference)
        if ref_value not in vals:
            raise InputError(f"reference: expected one of the values {[value_text(v) for v in vals]}, "
                             f"got {reference!r}")
    else:
        base = _own_value(scene, param, at)
        ref_value = base if base in vals else vals[0]
    cliff = _warn_cliff([(f"{param}={value_text(v)}" + (f" (at {at_text(at)})" if at else ""),
                          _spec_of(start, {param: v})) for v in vals],
                        every=f"every value of {param}" + (f", starting at {at_text(at)}" if at else ""))
    ref = scene_ref(scene)
    records = None
    expected: dict = {}
    if out is not None:
        config = {"study": "sweep", "version": 1, "scene": scene.name, "scene_sha256": scene_digest(scene),
                  "param": param, "train_count": train_count, "test_count": test_count}
        if epochs is not None:
            config["epochs"] = epochs
        if at:
            config["at"] = {k: value_text(v) for k, v in at.items()}

        def valid(key, rec):
            return (all(f in rec for f in SWEEP_FIELDS) and (rec["value"], rec["seed"]) == expected.get(key)
                    and 0.0 <= rec["test_accuracy"] <= 1.0)
        records = Records(Path(out) / "jobs", config, valid=valid)

    def run(ids: list[int]) -> list:
        jobs = [(ref, s, param, v, train_count, test_count, epochs, at or None) for v in vals for s in ids]
        keys = [f"value-{value_text(v)}-seed-{s:04d}" for v in vals for s in ids]
        expected.update({k: (value_text(j[3]), j[1]) for k, j in zip(keys, jobs)})
        return list(run_jobs(_sweep_job, jobs, executor=executor, keys=keys, records=records, resume=resume,
                             progress="runs" if progress else None))

    def samples(recs: list) -> list:
        return list(Sweep(scene=scene.name, param=param, values=vals, reference=ref_value,
                          seeds=sorted({r["seed"] for r in recs}), records=recs).differences().values())

    results, pilot, counted = run_to_precision(run, samples, seed_ids, fraction, max_seeds)
    result = Sweep(scene=scene.name, param=param, values=vals, reference=ref_value, seeds=[*pilot, *counted],
                   records=results, at=at, cliff=cliff, correction=correction, pilot=pilot, precision=fraction)
    if out is not None:
        out = Path(out)
        write_text(out / "sweep.csv", result.csv_text())
        write_text(out / "sweep_summary.csv", result.summary_csv())
        write_json(out / "sweep.json", result.to_json())
        draw(figure, result, out / "sweep.png")
    return result


# ----------------------------------------------------------------------------------------
# two parameters


@dataclass
class GridSweep(Piloted):
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
    at : dict
        The starting point: machine parameters set before the sweep (``grid_sweep``'s ``at``).
    cliff : str or None
        The line of :func:`cliff_warning` when some cell crosses a known cliff.
    correction : str
        How the family of cells against the reference cell is controlled ("bh", "holm", "none").

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
    at: dict = field(default_factory=dict)
    cliff: str | None = None
    correction: str = DEFAULT_CORRECTION
    pilot: list = field(default_factory=list)
    precision: float | None = None

    def _cell(self, va, vb, seeds=None) -> list[dict]:
        """The records of the cell, of the counted seeds (or of ``seeds``), in their order."""
        ta, tb = value_text(va), value_text(vb)
        by_seed = {r["seed"]: r for r in self.records if r["value_a"] == ta and r["value_b"] == tb}
        return [by_seed[s] for s in (self.counted if seeds is None else seeds) if s in by_seed]

    def summary(self) -> list[dict]:
        """One row per cell (``a`` outer, ``b`` inner): means over seeds with their intervals.

        As :meth:`Sweep.summary`: ``test_low``/``test_high`` the cell's own interval,
        ``change_*`` the change paired against the reference cell (this cell minus the
        reference, seed by seed) with its interval adjusted over the family of cells
        (``correction``), ``decided`` whether that adjusted interval excludes 0 (None: no
        test); also ``pots_at_stops_mean``, the pots within :data:`STOP_MARGIN` of an end stop
        at the end of training.
        """
        ref = {r["seed"]: r["test_accuracy"] for r in self._cell(*self.reference)}
        comp = self.compared()
        return [{"value_a": value_text(va), "value_b": value_text(vb),
                 **_cell_summary(self._cell(va, vb), ref, comp.get((value_text(va), value_text(vb))))}
                for va in self.values[0] for vb in self.values[1]]

    def compared(self) -> dict[tuple[str, str], stats.Compared]:
        """The family: each cell but the reference against it, controlled by ``correction``
        (:func:`mark1.stats.family`), keyed by the cell's values' texts."""
        diffs = self.differences()
        family = stats.family(list(diffs.values()), (-1.0, 1.0), correction=_correction(self.correction))
        return dict(zip(diffs, family))

    def seeds_line(self) -> str | None:
        """The seeds the family would need for ±1 and ±0.5-point intervals of the change, from its spread."""
        return stats.seeds_line(list(self.differences().values()))

    def is_reference(self, va: object, vb: object) -> bool:
        """Whether the cell (value_a, value_b) (values or their texts) is the reference cell."""
        return (value_text(va), value_text(vb)) == tuple(map(value_text, self.reference))

    def differences(self) -> dict[tuple[str, str], list[float]]:
        """Per cell (its values' texts) but the reference: the paired differences in test accuracy
        from the reference cell, seed by seed (fraction)."""
        ref = {r["seed"]: r["test_accuracy"] for r in self._cell(*self.reference)}
        return {(value_text(va), value_text(vb)): [r["test_accuracy"] - ref[r["seed"]] for r in self._cell(va, vb)
                                                   if r["seed"] in ref]
                for va in self.values[0] for vb in self.values[1] if not self.is_reference(va, vb)}

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

    def _cells(self) -> tuple[str, list, list, list]:
        """The line above the table, its head, its rows (cells as text) and the lines under it."""
        a, b = self.params
        above = (f"{self.scene}: {a} x {b} over {len(self.counted)} paired seed(s)"
                 + (f" after a pilot of {len(self.pilot)}" if self.pilot else "")
                 + (f", starting at {at_text(self.at)}" if self.at else "")
                 + f"; change = test accuracy minus at ({value_text(self.reference[0])}, "
                 f"{value_text(self.reference[1])}) (same seeds)")
        comp = self.compared()
        rows, ns = [], []
        for va in self.values[0]:
            for vb in self.values[1]:
                key = (value_text(va), value_text(vb))
                recs = self._cell(va, vb)
                iv = _cell_intervals(recs)
                ns.append(iv["test"].n)
                r = _cell_summary(recs, {}, None)
                c = comp.get(key)
                change = ("reference" if c is None
                          else diff_cell(c.interval) + ("" if c.decided or c.decided is None else " ~0"))
                rows.append([key[0], key[1], value_cell(iv["test"]), change,
                             hours_cell(r["machine_h_mean"]), num(r["learned_after_mean"], "{:.1f}"),
                             num(r["pots_at_stops_mean"], "{:.1f}"),
                             joules_cell(r["energy_j_mean"], r["energy_per_correction_j_mean"])])
        head = [a, b, "test accuracy (%)", "change (points), adjusted", "machine time", "learned after",
                "pots at stops", "energy of learning"]
        under = family_lines(list(comp.values()), list(self.differences().values()), self.correction, ns=ns)
        if self.pilot:
            under.append(precision_line(self.precision, self.pilot, self.counted, list(comp.values())))
        under += ["~0: the adjusted interval contains 0 (not distinguishable from 0; hatched on the map)",
                  "learned after: presentations until the last training mistake; pots at stops: within "
                  f"{STOP_MARGIN} FS of ±1 at the end of training; energy of learning: mean joules a run spent "
                  "turning pots (and a correction)"]
        return above, head, rows, under

    def table(self) -> str:
        """A plain-text table, one line per cell, the method, the family and the seeds a precision
        needs under it."""
        above, head, rows, under = self._cells()
        return above + "\n" + "\n".join([*aligned(head, rows, left=(0, 1)), *under])

    def __repr__(self) -> str:
        a, b = self.params
        return clip(f"GridSweep(scene={self.scene!r}, {a} x {b}, {len(self.values[0])} x {len(self.values[1])} "
                    f"cells, {len(self.seeds)} seed(s))")

    def _repr_html_(self) -> str:
        above, head, rows, under = self._cells()
        m = len(self.compared())
        return study_html(f"Grid sweep: {self.scene}",
                          html_table(head, rows, left=(0, 1), caption=f"{above}. {caption(self.correction, m)}",
                                     notes=under), figure_function("GridSweep"), self)

    def to_json(self) -> dict:
        """Everything as JSON-safe values: the run, the summary and the records (``grid.json``)."""
        m = len(self.compared())
        return jsonable({"scene": self.scene, "params": list(self.params),
                         "values": [[value_text(v) for v in vs] for vs in self.values],
                         "reference": [value_text(v) for v in self.reference], "seeds": self.seeds,
                         "at": {k: value_text(v) for k, v in self.at.items()},
                         "interval": f"{100 * stats.LEVEL:g} % {stats.METHOD} (paired for the change)",
                         "family": stats.correction_words(self.correction, m), "correction": self.correction,
                         "min_seeds": stats.MIN_SEEDS, "seeds_needed": self.seeds_line(), "cliff": self.cliff,
                         "pilot": self.pilot, "precision": self.precision,
                         "summary": self.summary(), "records": self.records})

    def summary_csv(self) -> str:
        """``grid_summary.csv``: one row per cell and figure (:data:`SUMMARY_FIELDS`), each with its
        interval, the method and the family's correction (the change's adjusted interval)."""
        comp = self.compared()
        rows = [{"value_a": value_text(va), "value_b": value_text(vb), **r}
                for va in self.values[0] for vb in self.values[1]
                for r in _summary_rows(self._cell(va, vb), comp.get((value_text(va), value_text(vb))))]
        return csv_text(rows, ("value_a", "value_b", *SUMMARY_FIELDS))

    def csv_text(self) -> str:
        """``grid.csv``: one row per (value_a, value_b, seed), ``a`` outer, then ``b``, then seeds."""
        return csv_text([r for va in self.values[0] for vb in self.values[1] for r in self._cell(va, vb, self.seeds)],
                        GRID_FIELDS)


def grid_sweep(scene: SceneLike, param_a: str, values_a: str | Sequence[Any], param_b: str,
               values_b: str | Sequence[Any], *, seeds: Seeds = 10, at: Mapping[str, Any] | None = None,
               executor: Executor | None = None, out: StrPath | None = None,
               resume: bool = False, progress: bool = False, train_count: int | None = None,
               test_count: int | None = None, epochs: int | None = None,
               figure: Callable | None = None, correction: str = DEFAULT_CORRECTION,
               precision: float | None = None, max_seeds: int = 200) -> GridSweep:
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
    seeds, at, executor, resume, progress, train_count, test_count, epochs, correction, precision, max_seeds
        As for :func:`sweep` (``at``, the starting point, holds neither swept key; the
        family is every cell against the reference cell).
    out : str or path-like, optional
        Folder for ``jobs/*.json``, ``grid.csv``, ``grid_summary.csv``, ``grid.json`` and the figure
        (``grid.png``, see ``figure``), all written atomically.
    figure : callable, optional
        Draws the grid, called as ``figure(result, out=out / "grid.png")``; needs ``out``
        (``mark1 sweep`` passes :func:`mark1.viz.studies.grid_sweep_figure`).

    Returns
    -------
    GridSweep

    Warns
    -----
    CliffWarning
        As :func:`sweep`, when some cell crosses a known cliff.

    Raises
    ------
    SpecError
        Naming the key, for a bad parameter, value or starting point.
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
    correction = _correction(correction)
    fraction, max_seeds = check_precision(precision, max_seeds, seed_ids)
    if param_a == param_b:
        raise InputError(f"params: expected two different keys, got {param_a!r} twice")
    vals = (parse_values(param_a, values_a), parse_values(param_b, values_b))
    at = parse_at(at)
    start = start_spec(scene, at)
    for key, vs in zip((param_a, param_b), vals):
        _check_settings(scene, key, vs, epochs, at)
    check_figure(figure, out)
    own = (_own_value(scene, param_a, at), _own_value(scene, param_b, at))
    reference = tuple(o if o in vs else vs[0] for o, vs in zip(own, vals))
    cells = [(va, vb) for va in vals[0] for vb in vals[1]]
    cliff = _warn_cliff([(f"{param_a}={value_text(va)}, {param_b}={value_text(vb)}"
                          + (f" (at {at_text(at)})" if at else ""), _spec_of(start, {param_a: va, param_b: vb}))
                         for va, vb in cells],
                        every="every cell" + (f", starting at {at_text(at)}" if at else ""))
    ref = scene_ref(scene)
    records = None
    expected: dict = {}
    if out is not None:
        config = {"study": "grid-sweep", "version": 1, "scene": scene.name, "scene_sha256": scene_digest(scene),
                  "params": [param_a, param_b], "train_count": train_count, "test_count": test_count,
                  "epochs": epochs}
        if at:
            config["at"] = {k: value_text(v) for k, v in at.items()}

        def valid(key, rec):
            return (all(f in rec for f in GRID_FIELDS) and (rec["value_a"], rec["value_b"], rec["seed"])
                    == expected.get(key) and 0.0 <= rec["test_accuracy"] <= 1.0)
        records = Records(Path(out) / "jobs", config, valid=valid)

    def run(ids: list[int]) -> list:
        jobs = [(ref, s, param_a, va, param_b, vb, train_count, test_count, epochs, at or None)
                for va, vb in cells for s in ids]
        keys = [f"a-{value_text(va)}-b-{value_text(vb)}-seed-{s:04d}" for va, vb in cells for s in ids]
        expected.update({k: (value_text(j[3]), value_text(j[5]), j[1]) for k, j in zip(keys, jobs)})
        return list(run_jobs(_grid_job, jobs, executor=executor, keys=keys, records=records, resume=resume,
                             progress="runs" if progress else None))

    def samples(recs: list) -> list:
        return list(GridSweep(scene=scene.name, params=(param_a, param_b), values=vals, reference=reference,
                              seeds=sorted({r["seed"] for r in recs}), records=recs).differences().values())

    results, pilot, counted = run_to_precision(run, samples, seed_ids, fraction, max_seeds)
    result = GridSweep(scene=scene.name, params=(param_a, param_b), values=vals, reference=reference,
                       seeds=[*pilot, *counted], records=results, at=at, cliff=cliff, correction=correction,
                       pilot=pilot, precision=fraction)
    if out is not None:
        out = Path(out)
        write_text(out / "grid.csv", result.csv_text())
        write_text(out / "grid_summary.csv", result.summary_csv())
        write_json(out / "grid.json", result.to_json())
        draw(figure, result, out / "grid.png")
    return result
