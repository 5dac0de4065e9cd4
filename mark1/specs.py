"""Machine descriptions: frozen dataclasses of plain SI floats, with presets.

Every hardware parameter carries its unit, its default and how sure we are of that
default (the status words of ``docs/MARK1_FACTS.md``)::

    documented      several independent sources agree
    single-source   one secondary source
    contradictory   sources disagree; the alternatives are offered as options
    datasheet       taken from modern datasheets of the same kind of part
    assumed         nobody recorded it; our own reasoned choice

The metadata is read by :func:`describe` (and ``mark1 specs``), so the table a user
sees is the code, not a copy of it.

Presets
-------
``MARK_I``
    The Mark I with every non-ideality on: documented values where they are known,
    our assumptions elsewhere (each parameter says which).
``SMALL``
    A small, fast machine for tests and quick demonstrations.

``spec.ideal()`` switches every non-ideality off at once (the textbook digital
perceptron on the same wiring, with an ideal retina too); ``spec.digital()`` keeps the
analog retina, optics and patch board and makes only the learner (the rack and its
timing) ideal; ``spec.without("backlash")`` switches off one, and
:data:`NON_IDEALITIES` lists them.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self, cast
from collections.abc import Iterable, Mapping

from mark1._utils.html import html_table
from mark1.exceptions import InputError, SpecError

__all__ = [
    "RetinaSpec",
    "PatchboardSpec",
    "RackSpec",
    "ResponseSpec",
    "TimingSpec",
    "TrainerSpec",
    "MachineSpec",
    "NON_IDEALITIES",
    "LEARNER_NON_IDEALITIES",
    "MARK_I",
    "SMALL",
    "PRESETS",
    "BEST_READING",
    "describe",
    "parameter_keys",
    "check_runnable",
    "MIN_RATCHET_STEP",
]

STATUSES = ("documented", "single-source", "contradictory", "datasheet", "assumed")


def param(default, unit: str, status: str, doc: str, *, low=None, high=None,
          choices=None, low_open=False, allow_inf=False, floats=False, kernel=None, outside=None,
          switch=None, off=None, on=None, device=False):
    """A dataclass field with unit, provenance status and allowed range (``floats``: a
    tuple of 1 to 64 numbers in [0, 100], e.g. a table of step factors).

    A field of the rack or the timing says where it acts: ``kernel`` names the kernel's
    records and fields it reaches (``"Drive.step"``: :func:`mark1.machine._kernels.pots.drive_of`
    copies a field that names ``Drive.<its own name>`` by name, and
    :class:`mark1.machine._kernels.pots.Drive` has a field for it), ``outside`` where it acts
    instead (:data:`mark1.machine._kernels.SPEC_FIELDS` gathers both).

    A field that belongs to a non-ideality names it in ``switch`` (several fields may name the
    same one): ``off`` is the value that switches it off (omitted: the default, for a
    non-ideality off by default), ``on`` a value that switches it on where it is off by
    default (tests switch everything on with it). :data:`NON_IDEALITIES` and
    :data:`LEARNER_NON_IDEALITIES` are gathered from these. A rack field with ``device``
    belongs to a device non-ideality: while any such field is not at its ``off`` value,
    the pots' moves are planned by the device plan
    (:func:`mark1.machine._kernels.pots.drive_of`, ``Drive.device``).
    """
    assert status in STATUSES, status           # a programming error, found at import
    assert switch is not None or (off is None and on is None and not device), "off=, on= and device= need switch="
    meta = dict(unit=unit, status=status, doc=doc, low=low, high=high, allow_inf=allow_inf,
                choices=choices, low_open=low_open, floats=floats, kernel=kernel, outside=outside,
                switch=switch, off=default if off is None and switch is not None else off, on=on, device=device)
    return field(default=default, metadata=meta)


class _Spec:
    """Validation and replacement shared by all spec groups."""

    _group: ClassVar[str]     # the group's name in a spec file, set by each group

    # each group is a dataclass (cast: _Spec itself is not one)
    def __post_init__(self):
        for f in dataclasses.fields(cast(Any, self)):
            _check_value(f"{self._group}.{f.name}", getattr(self, f.name), f)

    def replace(self, **changes: Any) -> Self:
        """A copy with fields of this group replaced (checked as at construction)."""
        return dataclasses.replace(cast(Any, self), **changes)

    @classmethod
    def field_info(cls, name: str) -> dict:
        """Unit, provenance status, description and allowed range of one field."""
        return dict(next(f for f in dataclasses.fields(cast(Any, cls)) if f.name == name).metadata)


def _check_value(key: str, value: Any, f: dataclasses.Field) -> None:
    meta = f.metadata
    default = f.default
    if meta.get("choices") is not None:
        if value not in meta["choices"]:
            raise SpecError(key, f"expected one of {', '.join(map(repr, meta['choices']))}, got {value!r}")
        return
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise SpecError(key, f"expected true or false, got {value!r}")
        return
    if meta.get("floats"):
        if (not isinstance(value, tuple) or not 1 <= len(value) <= 64
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 100 for v in value)):
            raise SpecError(key, f"expected a list of 1 to 64 numbers in [0, 100], got {value!r}")
        return
    if isinstance(default, tuple):
        if (not isinstance(value, tuple) or len(value) != len(default)
                or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)):
            raise SpecError(key, f"expected {len(default)} positive integers, got {value!r}")
        return
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise SpecError(key, f"expected an integer, got {value!r}")
    elif isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SpecError(key, f"expected a number, got {value!r}")
        if math.isnan(value):
            raise SpecError(key, "expected a number, got NaN")
        if math.isinf(value) and not meta.get("allow_inf"):
            raise SpecError(key, f"expected a finite number ({meta['unit']}), got {value!r}")
    low, high = meta.get("low"), meta.get("high")
    if low is not None and (value < low or (meta.get("low_open") and value == low)):
        op = ">" if meta.get("low_open") else ">="
        raise SpecError(key, f"expected a value {op} {low} ({meta['unit']}), got {value!r}")
    if high is not None and value > high:
        raise SpecError(key, f"expected a value <= {high} ({meta['unit']}), got {value!r}")


@dataclass(frozen=True)
class RetinaSpec(_Spec):
    """Camera, lamps and the 20×20 grid of cadmium-sulphide photocells.

    Each field is a parameter with a unit and a provenance status (``mark1 specs`` prints
    them all); :meth:`MachineSpec.with_overrides` makes a copy with other values.

    Examples
    --------
    >>> from mark1.specs import MARK_I, RetinaSpec
    >>> MARK_I.retina.shape
    (20, 20)
    >>> RetinaSpec(blur=0.0).blur
    0.0
    >>> RetinaSpec.field_info("gamma")["status"]
    'datasheet'
    """

    _group = "retina"
    shape: tuple = param((20, 20), "cells", "documented",
                         "rows and columns of photocells (400 S-units)")
    lamp_level: float = param(1.0, "fraction of nominal", "assumed",
                              "lamp brightness; 1 puts paper white at the nominal illuminance",
                              low=0.0, low_open=True)
    blur: float = param(0.3, "cells (Gaussian sigma)", "assumed",
                        "lens blur of the camera, in photocell pitches; 0 is a perfect lens", low=0.0,
                        switch="lens", off=0.0)
    uneven_lighting: float = param(0.1, "fraction", "assumed",
                                   "illuminance lost in the retina's corners relative to its centre "
                                   "(quadratic fall-off); 0 is perfectly even light", low=0.0, high=0.95,
                                   switch="lens", off=0.0)
    gamma: float = param(0.7, "1", "datasheet",
                         "photocell exponent: conductance grows as illuminance**gamma (0.6-0.8)",
                         low=0.0, low_open=True, high=2.0)
    dynamics: bool = param(True, "switch", "datasheet",
                           "photocells take time to respond (rise, fast fall, slow tail); "
                           "false makes them respond instantly", switch="photocell_dynamics", off=False)
    rise_time: float = param(0.055, "s", "datasheet", "rise time constant after lamps on (55-60 ms)",
                             low=0.0, low_open=True)
    fall_time: float = param(0.020, "s", "datasheet", "fast fall time constant in the dark (20-25 ms)",
                             low=0.0, low_open=True)
    slow_fall_time: float = param(0.5, "s", "datasheet",
                                  "time constant of the slow tail of the fall (0.2-2 s)",
                                  low=0.0, low_open=True)
    slow_fraction: float = param(0.2, "fraction", "assumed",
                                 "share of the response carried by the slow (trapped-carrier) component",
                                 low=0.0, high=1.0)
    history_ratio: float = param(1.5, "1", "datasheet",
                                 "resistance of a fully light-adapted cell relative to a dark-adapted one "
                                 "at equal light (1.1-5.5); 1 switches the light-history effect off",
                                 low=1.0, switch="light_history", off=1.0)
    history_time: float = param(5.0, "s", "assumed", "time constant of the light-history (adaptation) state",
                                low=0.0, low_open=True)
    cell_spread: float = param(0.15, "relative (log-normal sigma)", "assumed",
                               "cell-to-cell spread of photocell sensitivity; 0 makes all cells equal",
                               low=0.0, high=2.0, switch="cell_spread", off=0.0)
    threshold: float = param(0.35, "fraction of paper-white light", "assumed",
                             "S-unit threshold: the light level at which an S-unit switches "
                             "(below half white so that light-adapted paper mostly stays quiet; with "
                             "the default spread a few dim corner cells still fire)",
                             low=0.0, low_open=True, high=1.0)
    polarity: str = param("figure", "choice", "assumed",
                          "'figure': S-units fire on dark (ink) cells; 'ground': on bright cells",
                          choices=("figure", "ground"))


@dataclass(frozen=True)
class PatchboardSpec(_Spec):
    """Random S→A wiring and the association units.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> pb = MARK_I.patchboard
    >>> pb.n_associators, pb.excitatory, pb.inhibitory, pb.a_threshold
    (512, 10, 5, 2)
    """

    _group = "patchboard"
    n_associators: int = param(512, "A-units", "documented", "number of association units", low=1)
    excitatory: int = param(10, "connections per A-unit", "assumed",
                            "excitatory (+1) inputs per A-unit, chosen at random", low=0)
    inhibitory: int = param(5, "connections per A-unit", "assumed",
                            "inhibitory (-1) inputs per A-unit, chosen at random", low=0)
    a_threshold: int = param(2, "net active inputs", "assumed",
                             "an A-unit fires when (active excitatory - active inhibitory) >= this",
                             low=1)
    fan_out: int = param(40, "A-units per S-unit", "single-source",
                         "largest number of A-units one S-unit may feed", low=1)


@dataclass(frozen=True)
class RackSpec(_Spec):
    """The potentiometer rack: wipers, end stops and the motors that turn them.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> MARK_I.rack.motor_speed, MARK_I.rack.drive
    (0.25, 'continuous')
    >>> MARK_I.with_overrides({"rack.drive": "ratchet"}).rack.step
    0.01
    """

    _group = "rack"
    topology: str = param("split-in-use", "choice", "assumed",
                          "which A-unit feeds which R-unit. 'split-in-use' (default): one pot per A-unit "
                          "(512 pots: count single-source, secondary and tertiary only, MARK1_FACTS.md), "
                          "each A-unit plugged to one R-unit, the A-units divided among the R-units the "
                          "output code uses (assignment assumed: not recorded): two classes, one R-unit, "
                          "all 512 A-units on it; k classes one per R-unit, k R-units; more classes than "
                          "R-units a binary code (assumed) on all 8; unit k of u gets A-units floor(k*n/u) "
                          "to floor((k+1)*n/u) - 1 (512 over 5: 102, 102, 103, 102, 103; over 8: 64 each); "
                          "'split': each of the n_responses R-units its own "
                          "n/n_responses A-units whatever the code uses (64 each: assumed); 'all': every "
                          "A-unit to every R-unit (512x8 = 4,096 pots: an inference, no source)",
                          choices=("split-in-use", "split", "all"),
                          outside="which pots exist: the rack's mask and wiring (Pots.by_unit, Pots.by_input), "
                                  "read by the kernel, built by the rack")
    end_stops: bool = param(True, "switch", "single-source",
                            "wipers stop at +-1 full scale (+-11 V); false removes the stops", kernel="Drive.end_stops",
                            switch="end_stops", off=False)
    drive: str = param("continuous", "choice", "contradictory",
                       "'continuous': DC motors at a speed; 'ratchet': relay coils turning fixed steps",
                       choices=("continuous", "ratchet"), kernel="Drive.continuous", switch="ratchet", on="ratchet")
    motor_speed: float = param(0.25, "full scale per s", "assumed",
                               "wiper speed of a continuous motor; inf makes moves instantaneous",
                               low=0.0, low_open=True, allow_inf=True, kernel="Drive.motor_speed",
                               switch="speed_limit", off=math.inf)
    step: float = param(0.01, "full scale", "assumed", "wiper travel of one ratchet step",
                        low=0.0, low_open=True, kernel="Drive.step")
    step_time: float = param(0.04, "s", "assumed", "duration of one ratchet step", low=0.0, kernel="Drive.step_time")
    motor_spread: float = param(0.1, "relative (sigma)", "assumed",
                                "motor-to-motor spread of speed (so of travel per pulse)",
                                low=0.0, high=0.5, switch="motor_spread", off=0.0,
                                outside="each motor's speed, Pots.gain, drawn once when the machine is built")
    backlash: float = param(0.003, "full scale", "assumed",
                            "lost motion when a motor reverses direction", low=0.0, kernel="Drive.backlash",
                            switch="backlash", off=0.0)
    wiper_noise: float = param(0.002, "full scale (sigma)", "assumed",
                               "read noise of one wiper, fresh at every read", low=0.0, switch="wiper_noise", off=0.0,
                               outside="the read noise, Block.kick, drawn by the simulator's noise stream")
    # Off by default: motor-driven pots hold their value even switched off, and the only decay in
    # the sources (Rosenblatt 1958, p. 404) belongs to spontaneous learning on the IBM 704, so it
    # stays available as an option. How this default came to be is in CHANGELOG.md.
    decay_time: float = param(math.inf, "s", "assumed",
                              "time constant of a decay of every wiper towards 0 at a rate proportional to "
                              "its value (Rosenblatt 1958, p. 404: spontaneous learning on the IBM 704; for the "
                              "Mark I unsourced, MARK1_FACTS.md: its motor-driven pots hold their value); inf, "
                              "the default, switches it off",
                              low=0.0, low_open=True, allow_inf=True, kernel="Decay.rate, Decay.decay_time",
                              switch="decay", on=3600.0)
    drivers: int = param(0, "motors at once", "assumed",
                         "how many motors may run at the same time; 0 means no limit", low=0,
                         kernel="Schedule.queued and the drivers of Queue.free")
    bias: bool = param(True, "switch", "assumed",
                       "each R-unit has a bias pot fed by an always-on unit (no source gives the R-unit a bias "
                       "pot); false removes it: the pot never exists and contributes 0",
                       outside="whether the bias pots exist: the rack's mask, like topology")
    # -- device laws: how a pulse's travel depends on the wiper, and how devices vary.
    # Names as IBM's aihwkit has them (docs/guide/devices.rst maps each); aihwkit's dw_min is
    # rack.step (the ratchet's travel a pulse). The Mark I's pot has no recorded law or
    # variation beyond motor_spread and backlash: each defaults to off, status assumed, and a
    # law's parameters default to the values that make it the constant law.
    law: str = param("constant", "choice", "assumed",
                     "travel of one pulse against the wiper's position: 'constant' (the Mark I's pot), "
                     "'linear', 'soft-bounds', 'exponential', 'power', 'piecewise' (aihwkit's ConstantStep, "
                     "LinearStep, SoftBounds, ExpStep, PowStep, PiecewiseStep devices); a continuous motor's "
                     "command is one pulse",
                     choices=("constant", "linear", "soft-bounds", "exponential", "power", "piecewise"),
                     switch="device_law", device=True, on="soft-bounds",
                     kernel="Drive.law (its code), Drive.device (pots.law_factor in pots.plan_device)")
    up_down: float = param(0.0, "relative", "assumed",
                           "up/down asymmetry of a pulse, one-sided as aihwkit runs it (rpu_pulsed_device.cpp, "
                           "populate): up_down > 0 keeps the up step at step and makes the down step "
                           "step*(1 - up_down); up_down < 0 makes the up step step*(1 + up_down) and keeps the "
                           "down step; 0 is symmetric. aihwkit's docstring form, step*(1 +- b), is the same "
                           "device at step*(1 + |b|) and up_down = 2b/(1 + |b|)", low=-1.0, high=1.0,
                           switch="device_law", device=True,
                           kernel="Pots.up_down, Pots.step_scale (one shared value, or drawn per pot with "
                                  "up_down_dtod, pots.step_scales)")
    w_max: float = param(1.0, "full scale", "assumed",
                         "upper bound of a pot: its end stop, and the soft bound of a law (aihwkit w_max)",
                         low=0.0, low_open=True, high=1.0, switch="device_law", device=True,
                         kernel="Pots.w_max, Drive.w_max (the end stops and the laws' bounds)")
    w_min: float = param(-1.0, "full scale", "assumed",
                         "lower bound of a pot: its end stop, and the soft bound of a law (aihwkit w_min)",
                         low=-1.0, high=0.0, kernel="Pots.w_min, Drive.w_min",
                         switch="device_law", device=True)
    gamma_up: float = param(0.0, "1", "assumed",
                            "'linear': the up step shrinks by this share at w_max (aihwkit gamma_up); "
                            "'exponential': the up exponent", low=0.0,
                            kernel="Drive.gamma_up, Pots.gamma_up (the linear law's, per pot)")
    gamma_down: float = param(0.0, "1", "assumed",
                              "'linear': the down step shrinks by this share at w_min (aihwkit gamma_down); "
                              "'exponential': the down exponent", low=0.0,
                              kernel="Drive.gamma_down, Pots.gamma_down (the linear law's, per pot)")
    gamma_up_dtod: float = param(0.0, "1 (sigma)", "assumed",
                                 "'linear': pot-to-pot spread of gamma_up, added: |gamma_up + gamma_up_dtod * xi| "
                                 "(aihwkit gamma_up_dtod, rpu_linearstep_device.cpp populate)", low=0.0, high=10.0,
                                 switch="device_spread", device=True,
                                 outside="each pot's slope, Pots.gamma_up, drawn once when the machine is built")
    gamma_down_dtod: float = param(0.0, "1 (sigma)", "assumed",
                                   "'linear': pot-to-pot spread of gamma_down, as gamma_up_dtod (aihwkit "
                                   "gamma_down_dtod)", low=0.0, high=10.0, switch="device_spread", device=True,
                                   outside="each pot's slope, Pots.gamma_down, drawn once when the machine is built")
    A_up: float = param(0.0, "1", "assumed", "'exponential': factor A of the up step (aihwkit A_up)",
                        kernel="Drive.A_up")
    A_down: float = param(0.0, "1", "assumed", "'exponential': factor A of the down step (aihwkit A_down)",
                          kernel="Drive.A_down")
    exp_a: float = param(0.0, "1", "assumed", "'exponential': slope a of z = 2 a w / (w_max - w_min) + b (aihwkit a)",
                         kernel="Drive.exp_a")
    exp_b: float = param(0.0, "1", "assumed", "'exponential': offset b of z (aihwkit b)", kernel="Drive.exp_b")
    pow_gamma: float = param(0.0, "1", "assumed",
                             "'power': exponent of the distance to the bound (aihwkit pow_gamma; 1 is soft bounds, "
                             "0 constant)", low=0.0, high=100.0, kernel="Pots.gamma_up, Pots.gamma_down")
    pow_up_down: float = param(0.0, "relative", "assumed",
                               "'power': up/down bias of the exponent, one-sided as up_down (aihwkit pow_up_down, "
                               "rpu_powstep_device.cpp populate): > 0 keeps the up exponent at pow_gamma and makes "
                               "the down one pow_gamma*(1 - pow_up_down); < 0 the reverse", low=-1.0, high=1.0,
                               kernel="Pots.gamma_up, Pots.gamma_down")
    pow_gamma_dtod: float = param(0.0, "relative (sigma)", "assumed",
                                  "'power': pot-to-pot spread of pow_gamma, pow_gamma * (1 + pow_gamma_dtod * xi) "
                                  "(aihwkit pow_gamma_dtod)", low=0.0, high=10.0, switch="device_spread", device=True,
                                  outside="each pot's exponents, Pots.gamma_up and Pots.gamma_down, drawn once when "
                                          "the machine is built")
    pow_up_down_dtod: float = param(0.0, "relative (sigma)", "assumed",
                                    "'power': pot-to-pot spread of pow_up_down (aihwkit pow_up_down_dtod)", low=0.0,
                                    high=10.0, switch="device_spread", device=True,
                                    outside="each pot's exponents, Pots.gamma_up and Pots.gamma_down, drawn once "
                                            "when the machine is built")
    piecewise_up: tuple = param((1.0,), "relative to step", "assumed",
                                "'piecewise': step factors up at nodes evenly spaced from w_min to w_max, "
                                "interpolated linearly (aihwkit piecewise_up)", floats=True,
                                kernel="Drive.piecewise_up")
    piecewise_down: tuple = param((1.0,), "relative to step", "assumed",
                                  "'piecewise': step factors down, as piecewise_up (aihwkit piecewise_down; "
                                  "the two tables may have different numbers of nodes)",
                                  floats=True, kernel="Drive.piecewise_down")
    dw_min_dtod: float = param(0.0, "relative (sigma)", "assumed",
                               "pot-to-pot spread of the step, on every drive: step * (1 + dw_min_dtod * xi), "
                               "drawn once (aihwkit dw_min_dtod)", low=0.0, high=10.0, switch="device_spread",
                               device=True, on=0.1,
                               outside="each pot's step, Pots.step_scale, drawn once when the machine is built")
    dw_min_dtod_log_normal: bool = param(False, "switch", "assumed",
                                         "draw each pot's step log-normal, step * exp(dw_min_dtod * xi), rather than "
                                         "normal (aihwkit dw_min_dtod_log_normal)",
                                         outside="each pot's step, Pots.step_scale, drawn once when the machine is "
                                                 "built")
    up_down_dtod: float = param(0.0, "relative (sigma)", "assumed",
                                "pot-to-pot spread of up_down (aihwkit up_down_dtod)", low=0.0, high=10.0,
                                switch="device_spread", device=True,
                                outside="each pot's up/down bias, Pots.up_down, drawn once when the machine is built")
    w_max_dtod: float = param(0.0, "relative (sigma)", "assumed",
                              "pot-to-pot spread of w_max: w_max * (1 + w_max_dtod * xi), made positive "
                              "(aihwkit w_max_dtod with enforce_consistency); a draw past the pot's end stop "
                              "(1 full scale) is cut there, so a device preset's range is scaled to keep its "
                              "bounds' mean + 4 sigma within it", low=0.0, high=10.0, switch="device_spread",
                              device=True,
                              outside="each pot's upper bound, Pots.w_max, drawn once when the machine is built")
    w_min_dtod: float = param(0.0, "relative (sigma)", "assumed",
                              "pot-to-pot spread of w_min, as w_max_dtod, made negative and cut at -1 (aihwkit "
                              "w_min_dtod)", low=0.0, high=10.0,
                              switch="device_spread", device=True,
                              outside="each pot's lower bound, Pots.w_min, drawn once when the machine is built")
    dw_min_std: float = param(0.0, "relative (sigma)", "assumed",
                              "cycle-to-cycle noise of each pulse's travel: times 1 + dw_min_std * xi, a seeded "
                              "stream of its own (aihwkit dw_min_std)", low=0.0, high=100.0,
                              switch="step_noise", device=True, on=0.1,
                              kernel="Drive.dw_min_std, with Drive.noise_key (the rack's, from the noise stream)")
    mult_noise: bool = param(True, "switch", "assumed",
                             "the cycle-to-cycle noise multiplies the law's step (true: step * f(w) * (1 + "
                             "dw_min_std * xi)) or adds to it (false: step * (f(w) + dw_min_std * xi), aihwkit "
                             "mult_noise = False, as its ReRamSB preset)",
                             kernel="Drive.mult_noise (pots.plan_device)")
    write_noise_std: float = param(0.0, "steps (sigma)", "assumed",
                                   "write noise: after each write (a move that fires a pulse, a diffusion step, the "
                                   "reset) the wiper reads off its persistent position by write_noise_std * step * "
                                   "xi, drawn anew and not clipped at the end stops, a stream of its own (aihwkit "
                                   "write_noise_std, in units of dw_min = step); with a finite decay_time a "
                                   "move takes the offset as last written, undecayed (an approximation)",
                                   low=0.0, high=1000.0, switch="write_noise", device=True, on=1.0,
                                   kernel="Drive.write_noise (times step), Pots.werr")
    corrupt_devices_prob: float = param(0.0, "share", "assumed",
                                        "share of stuck pots, each at a value drawn uniformly in "
                                        "+-corrupt_devices_range (within its bounds): their pulses fire, their "
                                        "wipers never move (aihwkit corrupt_devices_prob)", low=0.0, high=1.0,
                                        switch="stuck_pots", device=True, on=0.01,
                                        outside="which pots are stuck, Pots.stuck, drawn once when the machine is "
                                                "built")
    corrupt_devices_range: float = param(0.1, "full scale", "assumed",
                                         "a stuck pot's value is drawn uniformly in +-corrupt_devices_range, cut to "
                                         "its bounds (aihwkit corrupt_devices_range, its default 0.1)", low=0.0,
                                         high=1.0,
                                         outside="each stuck pot's value, Pots.w_max = Pots.w_min and its starting "
                                                 "position, drawn once when the machine is built")
    diffusion: float = param(0.0, "full scale (sigma)", "assumed",
                             "diffusion: once a presentation, after the trainer's turn, every pot's persistent "
                             "position takes a random step diffusion * xi, cut to its bounds by the end stops "
                             "(aihwkit diffusion, applied once a mini-batch: a presentation is the machine's "
                             "mini-batch of one card); a stream of its own, keyed by pot and presentation; 0 "
                             "switches it off",
                             low=0.0, high=1.0, switch="diffusion", device=True, on=0.001,
                             kernel="Pots.diffusion (pots.diffuse_pots in presentation.train_block and act_on)")
    diffusion_dtod: float = param(0.0, "relative (sigma)", "assumed",
                                  "pot-to-pot spread of diffusion: |diffusion * (1 + diffusion_dtod * xi)|, drawn "
                                  "once (aihwkit diffusion_dtod)", low=0.0, high=10.0,
                                  outside="each pot's diffusion rate, Pots.diffusion, drawn once when the machine "
                                          "is built")
    reset: float = param(0.0, "full scale (from g_zero)", "assumed",
                         "where a pot is reset to, measured from g_zero (aihwkit reset). The machine resets every "
                         "pot once, when it is built (each fit from scratch): pot j starts at g_zero + reset + "
                         "reset_dtod * xi_j + reset_std * xi, cut to its bounds by the end stops, where the "
                         "Mark I's pots start at 0; it resets nothing later", low=-2.0, high=2.0, switch="reset",
                         on=0.05,
                         outside="each pot's starting position, p_from = p_to, set when the machine is built")
    reset_dtod: float = param(0.0, "full scale (sigma)", "assumed",
                              "pot-to-pot spread of the reset value, added: reset + reset_dtod * xi, drawn once "
                              "(aihwkit reset_dtod)", low=0.0, high=2.0, switch="reset",
                              outside="each pot's reset value, drawn once when the machine is built")
    reset_std: float = param(0.0, "full scale (sigma)", "assumed",
                             "reset-to-reset noise: each reset lands reset_std * xi off the pot's reset value, a "
                             "stream of its own (aihwkit reset_std)", low=0.0, high=2.0, switch="reset",
                             outside="each pot's starting position, drawn from the noise stream when the machine is "
                                     "built")
    drift_nu: float = param(0.0, "1", "assumed",
                            "power-law drift: after its last move a wiper reads g_zero + (p - g_zero) * "
                            "max(dt / drift_t0, 1) ** -drift_nu, p its programmed position, dt the machine seconds "
                            "since (aihwkit's DriftParameter nu and WeightDrifter; PCM: g(t) = g0 (t / t0) ** -nu); "
                            "0 switches it off (a pot holds its value)",
                            low=0.0, high=10.0, switch="drift", on=0.05,
                            kernel="Pots.nu (pots.drift_factor in stored_pot)")
    drift_nu_dtod: float = param(0.0, "relative (sigma)", "assumed",
                                 "pot-to-pot spread of drift_nu: drift_nu * (1 + drift_nu_dtod * xi), at least 0 "
                                 "(aihwkit nu_dtod)", low=0.0, high=10.0,
                                 outside="each pot's drift exponent, Pots.nu, drawn once when the machine is built")
    drift_t0: float = param(20.0, "s", "assumed",
                            "the drift's reference time t0 (aihwkit's PCM noise model: 20 s)", low=0.0,
                            low_open=True, kernel="Pots.drift")
    g_zero: float = param(0.0, "full scale", "assumed",
                          "the wiper position of the device's zero (aihwkit's weight 0, a conductance of 0 for "
                          "one device): the linear, soft-bounds and exponential laws measure w from it, the "
                          "bounds' spreads and a stuck pot's range are relative to it, and drift shrinks "
                          "toward it (aihwkit's -(g_offset * wg_ratio + w_offset)); 0, the default, for a "
                          "device centred on 0; within [w_min, w_max]", low=-1.0, high=1.0,
                          kernel="Drive.g_zero (pots.law_factor), Pots.drift (pots.drifted)")
    prog_noise_scale: float = param(0.0, "relative", "assumed",
                                    "PCM programming noise: a move's end (and a diffusion step's, and the reset's) "
                                    "programs the pot's conductance g = |w - g_zero| / G (G the larger of w_max - "
                                    "g_zero and g_zero - w_min) with a normal error of sigma prog_noise_scale * "
                                    "(prog_coeff_0 + prog_coeff_1 g + prog_coeff_2 g ** 2) / "
                                    "prog_coeff_g_max_reference, cut at 0 conductance, on each member of a pair "
                                    "(the idle member at 0 too); an offset of the wiper drawn anew at each write, "
                                    "never accumulating (aihwkit PCMLikeNoiseModel prog_noise_scale; 0 switches it "
                                    "off, 1 is aihwkit's)", low=0.0, high=100.0, switch="prog_noise", device=True,
                                    on=1.0, kernel="Drive.prog_noise_scale (pots.programming_offset in plan_device "
                                                   "and diffuse_pot), Pots.werr")
    prog_coeff_0: float = param(0.26348, "uS (at prog_coeff_g_max_reference)", "assumed",
                                "programming noise's sigma at 0 conductance (aihwkit PCMLikeNoiseModel prog_coeff[0], "
                                "a fit to PCM devices, Nandakumar et al., ICECS 2019)", low=-100.0, high=100.0,
                                kernel="Drive.prog_coeff_0")
    prog_coeff_1: float = param(1.9650, "uS (at prog_coeff_g_max_reference)", "assumed",
                                "programming noise's sigma, the coefficient of g (aihwkit prog_coeff[1])",
                                low=-100.0, high=100.0, kernel="Drive.prog_coeff_1")
    prog_coeff_2: float = param(-1.1731, "uS (at prog_coeff_g_max_reference)", "assumed",
                                "programming noise's sigma, the coefficient of g ** 2 (aihwkit prog_coeff[2])",
                                low=-100.0, high=100.0, kernel="Drive.prog_coeff_2")
    prog_coeff_g_max_reference: float = param(25.0, "uS", "assumed",
                                              "the full conductance the prog_coeff were fitted at (aihwkit "
                                              "prog_coeff_g_max_reference): sigma / G = polynomial / this",
                                              low=0.0, low_open=True, kernel="Drive.prog_coeff_g_max_reference")
    read_noise_scale: float = param(0.0, "relative", "assumed",
                                    "PCM 1/f read noise: at each read a pot's conductance g reads g (1 + "
                                    "read_noise_scale * sigma * xi), cut at 0 conductance, sigma = min(0.0088 / "
                                    "max(g_p ** 0.65, 0.001), 0.2) * sqrt(ln((dt + drift_t0 + t_read) / (2 t_read))), "
                                    "g_p its programmed conductance (relative to G, as prog_noise_scale), dt the "
                                    "machine seconds since it was last programmed (its last move's end or diffusion "
                                    "step); a fresh xi at each read, keyed by pot and presentation (scoring: by card) "
                                    "(aihwkit PCMLikeNoiseModel read_noise_scale; 0 switches it off, 1 is aihwkit's)",
                                    low=0.0, high=100.0, switch="read_noise",
                                    device=True, on=1.0,
                                    kernel="Pots.read_noise, Pots.read_key (pots.read_noisy in wiper_sums; scoring: "
                                           "pots.read_noise_array)")
    t_read: float = param(250e-9, "s", "assumed",
                          "the 1/f read noise's read time (aihwkit PCMLikeNoiseModel t_read: 250 ns)",
                          low=0.0, low_open=True, kernel="Pots.read_noise")
    out_bound: float = param(math.inf, "full scale (of a sum)", "assumed",
                             "the R-unit's read saturates at +-out_bound (of the sum it compares, the mean with "
                             "the mu-system; aihwkit out_bound); inf, the default, switches it off",
                             low=0.0, low_open=True, allow_inf=True, switch="adc", on=10.0,
                             kernel="Pots.adc (pots.read_out in read_card; the event path and scoring: read_out_array)")
    out_res: float = param(0.0, "share of out_bound", "assumed",
                           "the R-unit's read is rounded to levels out_res * out_bound apart (an ADC of about "
                           "log2(2 / out_res) bits; aihwkit out_res); 0, the default, switches it off; needs a "
                           "finite out_bound. The R-unit's inputs are the A-units' 0 and 1, which any input DAC "
                           "passes exactly (aihwkit's inp_res has nothing to act on)", low=0.0, high=1.0,
                           switch="adc", on=0.01, kernel="Pots.adc")

    def __post_init__(self):
        super().__post_init__()
        if self.out_res != 0 and math.isinf(self.out_bound):
            raise SpecError("rack.out_res", "expected a finite rack.out_bound with a resolution (levels are "
                                            f"out_res * out_bound apart), got out_res = {self.out_res:g} and "
                                            "out_bound = inf")
        if not self.w_min <= self.g_zero <= self.w_max:
            # aihwkit's populate: "the closed interval [w_min, w_max] needs to contain 0"
            raise SpecError("rack.g_zero", f"expected a value within [w_min, w_max] = [{self.w_min:g}, "
                                           f"{self.w_max:g}], got {self.g_zero:g}")
        if self.law in ("linear", "soft-bounds") and self.w_min == self.g_zero:
            # the laws divide by the lower bound's distance from the zero: a pot with none has no down step to scale
            raise SpecError("rack.w_min", f"expected w_min < {self.g_zero:g} with rack.law = '{self.law}', "
                                          f"got {self.w_min:g}")
        if self.read_noise_scale != 0 and self.t_read > self.drift_t0:
            # sigma's sqrt(ln((dt + drift_t0 + t_read) / (2 t_read))) is a number from dt = 0 on only then
            raise SpecError("rack.t_read", f"expected a value <= rack.drift_t0 = {self.drift_t0:g} s with "
                                           f"rack.read_noise_scale on, got {self.t_read:g}")



@dataclass(frozen=True)
class ResponseSpec(_Spec):
    """Response units and how classes are coded on them.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> MARK_I.response.n_responses, MARK_I.response.code
    (8, 'auto')
    """

    _group = "response"
    n_responses: int = param(8, "R-units", "documented", "number of response units", low=1, high=16)
    code: str = param("auto", "choice", "assumed",
                      "'auto': one unit for 2 classes, one unit per class up to n_responses, "
                      "a binary code beyond (code words on all n_responses R-units, chosen far apart; how the "
                      "Mark I read more classes than lamps is not recorded); or force 'single', 'one-per-class', "
                      "'binary', or 'bits': Rosenblatt's binary response (1958, Psych. Rev. 65:386-408, p. 402 "
                      "and conclusion 6, p. 405), one R-unit per bit, class i the binary number i on "
                      "ceil(log2 k) R-units",
                      choices=("auto", "single", "one-per-class", "binary", "bits"))
    discrimination: str = param("sum", "choice", "documented",
                                "'sum': the R-unit responds to the sum of its pots' outputs (Rosenblatt's "
                                "Σ-system); 'mean': to their mean, the sum divided by the number of its active "
                                "inputs, bias included when present (μ-system), so units fed by different numbers "
                                "of active A-units compare fairly; the tie zone scales the same way "
                                "(Rosenblatt 1958, Psych. Rev. 65:386-408)",
                                choices=("sum", "mean"))

    def code_for(self, n_classes: int) -> tuple[str, int]:
        """How ``n_classes`` classes are coded on these R-units: the code's kind and the R-units it uses.

        Parameters
        ----------
        n_classes : int
            Distinct class labels, at least 2.

        Returns
        -------
        kind : str
            ``"single"``, ``"one-per-class"``, ``"binary"`` or ``"bits"`` (``"auto"`` resolved).
        n_units : int
            R-units in use: 1, ``n_classes``, ``n_responses`` or ``ceil(log2 n_classes)``.

        Raises
        ------
        mark1.exceptions.InputError
            Naming ``labels``, where the classes do not fit the code.

        Examples
        --------
        >>> from mark1.specs import MARK_I
        >>> MARK_I.response.code_for(2), MARK_I.response.code_for(5), MARK_I.response.code_for(26)
        (('single', 1), ('one-per-class', 5), ('binary', 8))
        """
        k, n_r, kind = n_classes, self.n_responses, self.code
        if kind == "auto":
            kind = "single" if k == 2 else ("one-per-class" if k <= n_r else "binary")
        if k < 2:
            raise InputError(f"labels: expected at least 2 classes, got {k}")
        if kind == "single" and k != 2:
            raise InputError(f"labels: a single R-unit codes exactly 2 classes, got {k}")
        if kind == "one-per-class" and k > n_r:
            raise InputError(f"labels: {k} classes do not fit one per R-unit on {n_r} R-units; "
                             f"use response.code = 'binary'")
        if kind in ("binary", "bits") and k > 2 ** n_r:
            raise InputError(f"labels: {k} classes do not fit a binary code on {n_r} R-units "
                             f"(at most {2 ** n_r})")
        units = {"single": 1, "one-per-class": k, "binary": n_r, "bits": max(1, (k - 1).bit_length())}
        return kind, units[kind]


@dataclass(frozen=True)
class TimingSpec(_Spec):
    """The presentation cycle.

    The trainer reads the R-units ``card_change + settle + a_delay + r_delay`` seconds
    after a card change; a period shorter than that is refused.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> MARK_I.timing.period
    3.0
    >>> MARK_I.with_overrides({"timing.period": 0.1})
    Traceback (most recent call last):
    ...
    mark1.exceptions.SpecError: timing.period: expected at least card_change + settle + a_delay + r_delay = 0.51 s, got 0.1 s
    """  # noqa: E501 (a doctest's exception line, printed whole)

    _group = "timing"
    period: float = param(3.0, "s", "contradictory",
                          "time from one card to the next (may describe the IBM 704 simulation)",
                          low=0.0, low_open=True, kernel="Schedule.period")
    card_change: float = param(0.2, "s", "assumed", "lamps off while the card is changed", low=0.0,
                               kernel="Schedule.read_at (and the photocells' lit time, outside)")
    settle: float = param(0.3, "s", "assumed",
                          "time from lamps on until the S-units are sampled", low=0.0, low_open=True,
                          kernel="Schedule.read_at (and the S-units' sampling, outside)")
    a_delay: float = param(0.005, "s", "assumed", "propagation delay S -> A (relays)", low=0.0,
                           kernel="Schedule.read_at")
    r_delay: float = param(0.005, "s", "assumed", "propagation delay A -> R", low=0.0, kernel="Schedule.read_at")
    overlap: bool = param(False, "switch", "assumed",
                          "true: the next card comes on time while motors still turn "
                          "(reads see wipers mid-move); false: it waits for all motors", kernel="Schedule.overlap")

    def __post_init__(self):
        super().__post_init__()
        busy = self.card_change + self.settle + self.a_delay + self.r_delay
        if busy > self.period:
            raise SpecError("timing.period",
                            f"expected at least card_change + settle + a_delay + r_delay = {busy:g} s, "
                            f"got {self.period:g} s")


@dataclass(frozen=True)
class TrainerSpec(_Spec):
    """The trainer and its reinforcement rule.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> MARK_I.trainer.rule, MARK_I.trainer.increment
    ('alpha', 0.02)
    """

    _group = "trainer"
    rule: str = param("alpha", "choice", "documented",
                      "value system: 'alpha': each reinforced unit's active pots gain a fixed increment "
                      "(uncompensated gain); 'beta': a constant total increment per reinforced unit, shared "
                      "equally among its active pots; 'gamma': active pots gain at the expense of inactive "
                      "ones, the unit's total conserved (Rosenblatt 1958, Psych. Rev. 65:386-408); "
                      "'lms': Widrow-Hoff, travel lms_rate * (target - sum) on every card (Widrow & Hoff 1960)",
                      choices=("alpha", "beta", "gamma", "lms"))
    reinforcement: str = param("corrective", "choice", "documented",
                               "'corrective': only an R-unit that erred is reinforced towards its target (Navy "
                               "caption, 24 June 1960: 'the trainer forces it to respond correctly'); 'forced': "
                               "the right response is reinforced on every presentation; 'spontaneous': whatever "
                               "the machine answered is reinforced on every presentation (Rosenblatt 1958, "
                               "Psych. Rev. 65:386-408; 1960, Proc. IRE 48:301-309)",
                               choices=("corrective", "forced", "spontaneous"))
    valence: str = param("bivalent", "choice", "documented",
                         "'bivalent': values move both ways; 'monovalent': values only gain, only commands "
                         "towards a positive target act (Rosenblatt 1958, Psych. Rev. 65:386-408)",
                         choices=("bivalent", "monovalent"))
    increment: float = param(0.02, "full scale", "assumed",
                             "wiper travel commanded by one reinforcement (alpha, gamma; beta: the unit's total)",
                             low=0.0, low_open=True)
    lms_rate: float = param(0.002, "full scale per unit error", "assumed",
                            "LMS step: travel = lms_rate * (target - sum) for every active pot",
                            low=0.0, low_open=True)


_GROUPS = ("retina", "patchboard", "rack", "response", "timing", "trainer")
_GROUP_CLASSES = (RetinaSpec, PatchboardSpec, RackSpec, ResponseSpec, TimingSpec, TrainerSpec)


def _non_idealities() -> dict[str, dict[str, Any]]:
    """Each ``param(switch=...)`` with its fields' off values, in the order of the spec's fields."""
    out: dict[str, dict[str, Any]] = {}
    for cls in _GROUP_CLASSES:
        for f in dataclasses.fields(cls):
            if f.metadata.get("switch") is not None:
                out.setdefault(f.metadata["switch"], {})[f"{cls._group}.{f.name}"] = f.metadata["off"]
    return out


#: Each non-ideality, with the parameters that switch it off (dotted key -> ideal value), in
#: the order of the spec's fields: gathered from each field's ``param(switch=..., off=...)``.
NON_IDEALITIES: dict[str, dict[str, Any]] = _non_idealities()

#: The non-idealities of the learner (the pot rack and its motors, their fields in ``rack.``
#: or ``timing.``); the rest belong to sensing.
LEARNER_NON_IDEALITIES = tuple(n for n, keys in NON_IDEALITIES.items()
                               if all(k.startswith(("rack.", "timing.")) for k in keys))



@dataclass(frozen=True)
class MachineSpec:
    """A whole machine: one spec per group of parts.

    Build variants with :meth:`with_overrides`, :meth:`ideal` and :meth:`without`;
    a spec never changes in place.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> fast = MARK_I.with_overrides({"rack.motor_speed": 1.0})
    >>> fast.rack.motor_speed, MARK_I.rack.motor_speed
    (1.0, 0.25)
    >>> MARK_I.ideal().is_ideal, MARK_I.is_on("backlash"), MARK_I.without("backlash").is_on("backlash")
    (True, True, False)
    >>> MARK_I.get("patchboard.n_associators")
    512
    """

    name: str = "custom"
    retina: RetinaSpec = field(default_factory=RetinaSpec)
    patchboard: PatchboardSpec = field(default_factory=PatchboardSpec)
    rack: RackSpec = field(default_factory=RackSpec)
    response: ResponseSpec = field(default_factory=ResponseSpec)
    timing: TimingSpec = field(default_factory=TimingSpec)
    trainer: TrainerSpec = field(default_factory=TrainerSpec)

    def __post_init__(self):
        pb = self.patchboard
        n_s = self.retina.shape[0] * self.retina.shape[1]
        fan_in = pb.excitatory + pb.inhibitory
        if fan_in == 0:
            raise SpecError("patchboard.excitatory", "expected at least one input per A-unit")
        if fan_in > n_s:
            raise SpecError("patchboard.excitatory",
                            f"expected excitatory + inhibitory <= {n_s} S-units, got {fan_in}")
        if fan_in * pb.n_associators > pb.fan_out * n_s:
            raise SpecError("patchboard.fan_out",
                            f"{pb.n_associators} A-units x {fan_in} inputs need a fan-out of at least "
                            f"{math.ceil(fan_in * pb.n_associators / n_s)}, got {pb.fan_out}")
        if self.rack.topology == "split" and pb.n_associators % self.response.n_responses:
            raise SpecError("rack.topology",
                            f"'split' needs n_associators ({pb.n_associators}) divisible by "
                            f"n_responses ({self.response.n_responses})")
        _check_value_system(self)
        # a machine whose answers could not depend on the cards is refused, not simulated
        if pb.a_threshold > pb.excitatory:
            raise SpecError("patchboard.a_threshold",
                            f"expected a_threshold <= excitatory ({pb.excitatory}) so that an A-unit can fire, "
                            f"got {pb.a_threshold}")
        n_in = pb.n_associators + 1
        if self.rack.wiper_noise * math.sqrt(n_in) >= n_in:
            raise SpecError("rack.wiper_noise",
                            f"expected read noise below sqrt(n_associators + 1) = {math.sqrt(n_in):.3g} full "
                            f"scale (above it the noise of a sum outweighs any sum the wipers can make), "
                            f"got {self.rack.wiper_noise:g}")

    # -- variants ---------------------------------------------------------------------
    def with_overrides(self, overrides: Mapping[str, Any]) -> MachineSpec:
        """A copy with parameters replaced.

        Parameters
        ----------
        overrides : mapping
            Either dotted keys (``{"rack.motor_speed": 0.5}``) or nested mappings
            (``{"rack": {"motor_speed": 0.5}}``), or a mix.

        Raises
        ------
        SpecError
            For an unknown group or parameter (with the nearest known name) or a
            value of the wrong type or range. ``err.key`` is the dotted key path.
        """
        flat = _flatten(overrides)
        groups: dict[str, dict[str, Any]] = {}
        name = self.name
        for key, value in flat.items():
            if key == "name":
                if not isinstance(value, str):
                    raise SpecError("name", f"expected a string, got {value!r}")
                name = value
                continue
            group, _, pname = key.partition(".")
            if group not in _GROUPS or not pname or "." in pname:
                raise SpecError(key, "unknown parameter" + _suggest(key, parameter_keys()))
            known = {f.name: f for f in dataclasses.fields(getattr(self, group))}
            if pname not in known:
                raise SpecError(key, "unknown parameter" + _suggest(key, parameter_keys()))
            f = known[pname]
            if isinstance(f.default, tuple) and isinstance(value, list):
                value = tuple(value)
            if isinstance(f.default, float) and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if isinstance(f.default, float) and value == "inf":
                value = math.inf
            groups.setdefault(group, {})[pname] = value
        new = {}
        for group, changes in groups.items():
            new[group] = dataclasses.replace(getattr(self, group), **changes)
        spec = dataclasses.replace(self, name=name, **new)
        _check_finite(spec, flat)
        return spec

    def ideal(self) -> MachineSpec:
        """The textbook perceptron on the same wiring: every non-ideality off."""
        merged = {}
        for keys in NON_IDEALITIES.values():
            merged.update(keys)
        return self.with_overrides(merged).with_overrides({"name": f"{self.name} (ideal)"})

    def digital(self) -> MachineSpec:
        """This machine's retina, optics and patch board with an ideal, digital learner.

        Only the rack and its timing become ideal (:data:`LEARNER_NON_IDEALITIES` off:
        instant, unbounded, exact weights); the photocells, lens and cell spread stay as
        in this spec, so the S-units and φ are the analog machine's own. Compare with
        :meth:`ideal`, which also idealizes the sensing side.
        """
        name = self.name if self.name.endswith(" (digital)") else f"{self.name} (digital)"
        return self.without(*LEARNER_NON_IDEALITIES).with_overrides({"name": name})

    def without(self, *names: str) -> MachineSpec:
        """A copy with the named non-idealities switched off (see :data:`NON_IDEALITIES`)."""
        merged = {}
        for n in names:
            if n not in NON_IDEALITIES:
                raise SpecError(n, "unknown non-ideality" + _suggest(n, list(NON_IDEALITIES)))
            merged.update(NON_IDEALITIES[n])
        return self.with_overrides(merged)

    def only(self, name: str) -> MachineSpec:
        """The ideal machine with one non-ideality switched back on (as in this spec)."""
        if name not in NON_IDEALITIES:
            raise SpecError(name, "unknown non-ideality" + _suggest(name, list(NON_IDEALITIES)))
        others = [n for n in NON_IDEALITIES if n != name]
        return self.without(*others)

    def is_on(self, name: str) -> bool:
        """Whether the named non-ideality is on in this spec."""
        return any(self.get(k) != v for k, v in NON_IDEALITIES[name].items())

    @property
    def is_ideal(self) -> bool:
        """True when every non-ideality is off."""
        return not any(self.is_on(n) for n in NON_IDEALITIES)

    def get(self, key: str) -> Any:
        """Value of a dotted parameter key, e.g. ``spec.get("rack.motor_speed")``."""
        group, _, pname = key.partition(".")
        return getattr(getattr(self, group), pname)

    def to_dict(self) -> dict:
        """Nested plain dict (JSON-friendly; inf stays a float)."""
        out: dict[str, Any] = {"name": self.name}
        for g in _GROUPS:
            out[g] = {f.name: (list(v) if isinstance(v := getattr(getattr(self, g), f.name), tuple) else v)
                      for f in dataclasses.fields(getattr(self, g))}
        return out

    # -- what a notebook shows: the changes from MARK_I, not 40 fields -------------------
    def __repr__(self) -> str:
        changed = [r for r in describe(self) if r["changed"]]
        head = f"MachineSpec({self.name!r}"
        if not changed:
            return head + ", as MARK_I)"
        items = [f"{r['key']}={_short_value(r['value'], r['unit'])}" for r in changed]
        text = head + f", {len(changed)} change(s) from MARK_I: "
        for k, item in enumerate(items):
            rest = f", +{len(items) - k - 1} more)" if k < len(items) - 1 else ")"
            if k and len(text) + len(item) + 2 + len(rest) > 120:
                return text + f", +{len(items) - k} more)"
            text += ("" if k == 0 else ", ") + item
        return text + ")"

    def _repr_html_(self) -> str:
        changed = [r for r in describe(self) if r["changed"]]
        rows = [(r["key"], _short_value(r["value"], ""), r["unit"], _short_value(r["default"], ""), r["status"],
                 r["doc"]) for r in changed]
        caption = (f"MachineSpec {self.name!r}: " + (f"{len(changed)} parameter(s) differ from MARK_I"
                                                     if changed else "every parameter as MARK_I"))
        return html_table(("parameter", "value", "unit", "MARK_I", "status of MARK_I's value", "meaning"), rows,
                          left=(0, 2, 4, 5), caption=caption,
                          notes=["status: the provenance of the Mark I default (mark1.specs.STATUSES); a changed "
                                 "value is this spec's own"])


def _short_value(value, unit: str) -> str:
    """A parameter's value as a repr writes it: seconds with their unit, other numbers bare."""
    if isinstance(value, tuple):
        return "x".join(map(str, value))
    if isinstance(value, float):
        text = "inf" if math.isinf(value) else f"{value:g}"
        return f"{text} s" if unit == "s" else text
    return str(value)


def _flatten(mapping: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Dotted keys of nested overrides; a key given twice (in two spellings) is an error.

    Parameter keys are two levels deep (``group.name``), so deeper tables are refused
    before they are walked: nesting cannot exhaust the stack.
    """
    if not isinstance(mapping, Mapping):
        raise SpecError(prefix.rstrip(".") or "overrides", f"expected a table of parameters, got {mapping!r}")
    flat: dict[str, Any] = {}
    for k, v in mapping.items():
        key = f"{prefix}{k}"
        items: Iterable[tuple[str, Any]]
        if isinstance(v, Mapping):
            if key.count(".") >= 2:
                raise SpecError(key, "unknown parameter (parameters are two levels deep: group.name)")
            items = _flatten(v, key + ".").items()
        else:
            items = [(key, v)]
        for fk, fv in items:
            if fk in flat:
                raise SpecError(fk, f"expected each parameter once, got it twice ({flat[fk]!r} and {fv!r}, "
                                    "e.g. as a dotted key and inside a table)")
            flat[fk] = fv
    return flat


def _check_value_system(spec: MachineSpec) -> None:
    """Refuse combinations of the value-system options the theory or the machine cannot mean."""
    tr, resp = spec.trainer, spec.response
    if tr.valence == "monovalent" and tr.rule in ("gamma", "lms"):
        why = "gamma takes from inactive pots" if tr.rule == "gamma" else "LMS moves values both ways"
        raise SpecError("trainer.valence", f"'monovalent' cannot go with trainer.rule = {tr.rule!r} ({why})")
    if tr.rule == "lms" and tr.reinforcement != "corrective":
        raise SpecError("trainer.reinforcement", f"{tr.reinforcement!r} cannot go with trainer.rule = 'lms' "
                                                 "(LMS reinforces on every card by its own rule)")
    if resp.discrimination == "mean" and resp.code in ("binary", "bits"):
        raise SpecError("response.discrimination", f"'mean' cannot go with response.code = {resp.code!r} "
                                                   "(a code word is read from lamps, not compared sums)")


def _check_finite(spec: MachineSpec, changed: Mapping[str, Any]) -> None:
    """Refuse overridden values whose arithmetic would leave the finite numbers.

    Times are added up and multiplied by presentation counts, other values by counts of
    pots and cards: each overridden value is kept far from overflow (the presets pass).
    """
    rack = spec.rack
    for key in ("timing.period", "timing.card_change", "timing.settle", "timing.a_delay", "timing.r_delay",
                "rack.step_time"):
        if key in changed and spec.get(key) > MAX_SECONDS:
            raise SpecError(key, f"expected at most {MAX_SECONDS:g} s (about 30 years), got {spec.get(key):g} s")
    for key in ("rack.decay_time", "retina.history_time", "retina.slow_fall_time", "retina.rise_time",
                "retina.fall_time"):
        v = spec.get(key)
        if key in changed and math.isfinite(v) and v > MAX_SECONDS:
            raise SpecError(key, f"expected at most {MAX_SECONDS:g} s" + (" or inf" if key == "rack.decay_time"
                                                                          else "") + f", got {v:g} s")
    for key in changed:
        v = spec.get(key) if key != "name" else None
        if isinstance(v, float) and math.isfinite(v) and abs(v) > MAX_MAGNITUDE:
            raise SpecError(key, f"expected a number of at most {MAX_MAGNITUDE:g}, got {v:g}")
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_COUNT:
            raise SpecError(key, f"expected an integer of at most {MAX_COUNT:,}, got {v}")
        if isinstance(v, tuple) and max(v) > 1000:
            raise SpecError(key, f"expected at most 1000 cells a side, got {v!r}")
    side = max(spec.retina.shape)
    if "retina.blur" in changed and spec.retina.blur > side:
        raise SpecError("retina.blur", f"expected at most the retina's side, {side} cells (wider, every cell "
                                       f"sees the same average), got {spec.retina.blur:g}")
    if "rack.motor_speed" in changed and math.isfinite(rack.motor_speed) and rack.motor_speed < 1e-9:
        raise SpecError("rack.motor_speed", f"expected at least 1e-9 full scale per s (or inf), "
                                            f"got {rack.motor_speed:g}")


#: Longest time a single timing parameter may take, s (keeps sums of times finite).
MAX_SECONDS = 1e9
#: Largest finite value of any other parameter (far beyond any physical one; keeps products finite).
MAX_MAGNITUDE = 1e12
#: Largest integer parameter (A-units, connections, fan-out, drivers).
MAX_COUNT = 1_000_000


def _suggest(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parameter_keys() -> list[str]:
    """All dotted parameter keys, e.g. ``"rack.motor_speed"``.

    Returns
    -------
    list of str
        ``"group.field"`` for every field of every group, in the order of the groups.

    Examples
    --------
    >>> keys = parameter_keys()
    >>> keys[0], "rack.motor_speed" in keys
    ('retina.shape', True)
    """
    spec = MachineSpec()
    return [f"{g}.{f.name}" for g in _GROUPS for f in dataclasses.fields(getattr(spec, g))]


#: The least ratchet step (full scale) a run takes: 2^-52, float64's resolution of a wiper's
#: position near full scale. A smaller step moves no wiper, and one full-scale travel would
#: count more pulses than the rack's 64-bit counters hold (1e-300: 1e300 pulses).
MIN_RATCHET_STEP = 2.0 ** -52


def check_runnable(spec: MachineSpec, prefix: str = "") -> None:
    """Refuse, before any work, a machine that can be plotted but not run: a ratchet whose
    step is below :data:`MIN_RATCHET_STEP` (its pulses would overflow the counters).

    Parameters
    ----------
    spec : MachineSpec
    prefix : str
        Put before the key in the message (``"spec."`` for the API, a scene's key path).

    Raises
    ------
    mark1.exceptions.InputError
        Naming ``rack.step``.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> check_runnable(MARK_I.with_overrides({"rack.drive": "ratchet", "rack.step": 1e-300}))
    Traceback (most recent call last):
    ...
    mark1.exceptions.InputError: rack.step: expected a ratchet step of at least 2.2e-16 full scale for a run ...
    """
    rack = getattr(spec, "rack", None)
    if rack is not None and rack.drive == "ratchet" and rack.step < MIN_RATCHET_STEP:
        raise InputError(f"{prefix}rack.step: expected a ratchet step of at least {MIN_RATCHET_STEP:.2g} full scale "
                         f"for a run (below it a step moves no wiper, and one full-scale travel would count "
                         f"{1 / rack.step:.3g} pulses), got {rack.step:g}")


def describe(spec: MachineSpec) -> list[dict[str, Any]]:
    """One row per parameter: key, value, default, changed, unit, status, doc.

    ``status`` is the provenance of the Mark I default; where ``changed`` is true the
    value was set by a preset or an override, and that status does not apply to it.

    Parameters
    ----------
    spec : MachineSpec

    Returns
    -------
    list of dict
        Keys ``key, value, default, changed, unit, status, doc``.

    Examples
    --------
    >>> from mark1.specs import SMALL
    >>> row = next(r for r in describe(SMALL) if r["key"] == "patchboard.n_associators")
    >>> row["value"], row["default"], row["changed"], row["status"]
    (64, 512, True, 'documented')
    """
    base = MachineSpec()
    rows = []
    for g in _GROUPS:
        for f in dataclasses.fields(getattr(spec, g)):
            value, default = getattr(getattr(spec, g), f.name), getattr(getattr(base, g), f.name)
            rows.append(dict(key=f"{g}.{f.name}", value=value, default=default, changed=value != default,
                             unit=f.metadata["unit"], status=f.metadata["status"], doc=f.metadata["doc"]))
    return rows


#: The Mark I with our defaults (documented where known, assumed elsewhere: see each
#: parameter's status), every non-ideality on. Its rack is the ``mark1-512`` reading, the
#: project's best (:data:`BEST_READING`): 512 pots, one per A-unit, the A-units divided among
#: the R-units the output code uses (``rack.topology = "split-in-use"``); see :data:`PRESETS`
#: for the other readings.
MARK_I = MachineSpec(name="Mark I")

#: A small machine for tests and quick demonstrations (fewer A-units, short cycle).
SMALL = MachineSpec(
    name="small",
    patchboard=PatchboardSpec(n_associators=64),
    timing=TimingSpec(period=1.0),
)

# ----------------------------------------------------------------------------------------
# Readings: where the sources disagree, or say nothing, each reading is a named machine.
# Statuses follow docs/MARK1_FACTS.md.
#
# Pot count (single-source, secondary and tertiary only). The one count stated is 512, one pot
# per A-unit: Tappert's notes on Rosenblatt (Pace University) have "an association layer of 512
# units (stepping motors)"; a Wikipedia-derived page (probsee) "512 adjustable
# potentiometer-equipped associative units"; "512 motor-driven potentiometers" appears only in
# teaching material. Wikipedia's "Perceptron" gives no pot count ("arrays of potentiometers").
# No primary source was read. 512 x 8 = 4,096 pots is the simulation's own inference from
# "512 A-units" and "8 R-units": no source states it.
# A->R assignment (assumed). With one pot per A-unit each A-unit feeds one R-unit, presumably
# plugged per experiment; how is not recorded. Rosenblatt's "each A-set connects to only one
# R-set" (CAL 85-460-1, 1957) is about his model, not the hardware. The default divides all
# A-units among the R-units the output code uses (a plugboard would not leave A-units on
# unused lamps): two classes use one R-unit, which gets all 512 (the same machine as every
# reading for a two-class scene); k classes one per R-unit use k R-units; a remainder goes
# by floor(k n/u) boundaries (512 over 5: 102, 102, 103, 102, 103; 500 over 8: 62, 63, 62, ...).
# Output code (assumed): 8 R-units; one per class up to 8 classes; how 26 letters were read
# off 8 lamps is not recorded: a binary code is our reading (mark1/machine/response.py: code
# words chosen far apart on all 8 R-units, so 26 classes get 64 A-units on each, as under
# ``mark1-512-split-64``).
# Drive (contradictory): continuous DC motors vs stepping motors / ratchets (Tappert: "stepping
# motors"; John Nagle, Usenet 1986: "relay coils driving potentiometers through rachets"):
# the ``-ratchet`` reading. Presentation period (contradictory): ~3 s a card, which may
# describe the 704; ``-1s`` is an assumed faster cycle, to show what the period decides.
# The 1958 binary response (Rosenblatt 1958, p. 402 and conclusion 6, p. 405: "each response, or
# 'bit'", one R-unit per bit) is the ``-bits`` reading: k classes as the binary numbers 0..k-1 on
# ceil(log2 k) R-units (26 letters on 5), the A-units divided among those; the paper describes
# the perceptron's coding, not the Mark I's wiring, so it is a reading beside the far-apart words.
# Which machine made a report: the IBM 704 runs are digital; ``ibm704`` is the textbook
# perceptron (every non-ideality off, ideal retina) of the Mark I's wiring and rack, sized per
# report by a scene's override of patchboard.n_associators.
# The R-unit bias pot has no source (rack.bias, assumed); every reading keeps it, as MARK_I does.

#: Every named reading of the machine (name -> MachineSpec), for scenes (``machine.preset``)
#: and the re-enactment.
PRESETS: dict[str, MachineSpec] = {
    "mark1-512": MARK_I.with_overrides({"name": "Mark I, 512 pots (split over the R-units in use)"}),
    "mark1-4096": MARK_I.with_overrides({"name": "Mark I, 4,096 pots (inference, no source)",
                                         "rack.topology": "all"}),
    "mark1-512-split-64": MARK_I.with_overrides({"name": "Mark I, 512 pots (64 on each of 8 R-units)",
                                                 "rack.topology": "split"}),
    "mark1-512-ratchet": MARK_I.with_overrides({"name": "Mark I, 512 pots, ratchet", "rack.drive": "ratchet"}),
    "mark1-512-1s": MARK_I.with_overrides({"name": "Mark I, 512 pots, 1 s a card", "timing.period": 1.0}),
    "mark1-512-bits": MARK_I.with_overrides({"name": "Mark I, 512 pots, 1958 binary code (one R-unit per bit)",
                                             "response.code": "bits"}),
    "ibm704": MARK_I.ideal().with_overrides({"name": "IBM 704 perceptron"}),
}

#: The project's best reading of the Mark I, argued above from the sources: the default,
#: MARK_I itself.
BEST_READING = "mark1-512"
