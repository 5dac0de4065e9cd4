"""The energy of learning: what the motors (or a device's write pulses) spend on the corrections.

The Mark I learns by turning potentiometers with motors, so every correction costs
energy: the motor's electrical power times the seconds it runs. This module counts it
from what the machine did, never from a second model of the pots:

* **continuous drive** (a small DC motor a pot): energy = :data:`MOTOR_POWER` × the
  seconds each motor ran (the rack's own record of its moves: backlash take-up
  included, cut short at an end stop, never while a pot waits for a driver);
* **ratchet drive** (a stepping relay a pot): energy = :data:`RELAY_POWER` × the
  seconds its coil stepped (steps × ``rack.step_time``);
* **a device with write pulses** (a modern resistive or electrochemical cell): energy
  = pulses × its energy per pulse, given by the caller from the device's published
  characterisation.

A *correction* is a presentation on which the trainer turned at least one pot (the
history's ``pots_moved`` > 0); the energy per correction is the total over their
number. Everything else the machine spends (lamps, photocells, relays of the A-units,
the trainer's logic) is left out and stays the same whatever the weights do.

Every constant carries its unit and its provenance status (the statuses of
``MARK1_FACTS.md``): no source gives the Mark I's motor or relay power, so both are
**assumed**, bracketed by a modern datasheet of the same kind of part where one was found.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import numpy as np

from mark1.exceptions import InputError
from mark1.machine._kernels.pots import move_duration
from mark1.devices import PRESETS

__all__ = ["Constant", "MOTOR_POWER", "RELAY_POWER", "Energy", "drive_power", "energy", "run_energy",
           "energy_fields", "correction_energies", "pulse_energy", "device_of", "update_energy", "joules_text"]


class Constant(NamedTuple):
    """A physical constant with its unit and how sure we are of it.

    Attributes
    ----------
    value : float
    unit : str
    status : str
        ``documented``, ``single-source``, ``contradictory``, ``datasheet`` or ``assumed``
        (MARK1_FACTS.md).
    source : str
        Where it comes from, or why it was chosen.

    Examples
    --------
    >>> MOTOR_POWER.value, MOTOR_POWER.unit, MOTOR_POWER.status
    (2.0, 'W', 'assumed')
    """

    value: float
    unit: str
    status: str
    source: str


#: Electrical power of one pot's DC motor while it runs (W).
MOTOR_POWER = Constant(
    2.0, "W", "assumed",
    "no source gives the Mark I's pot motors; a modern small DC gear motor turning a pot, the Hitec HS-311 "
    "servo (datasheet: 160 mA running at no load, 700 mA at stall, at 4.8 V) draws 0.77 W running and 3.4 W "
    "at stall; a 1960 motor of that size was no more efficient, so 2 W, between the two")

#: Electrical power of one stepping relay's coil while it steps (W).
RELAY_POWER = Constant(
    10.0, "W", "assumed",
    "no source gives the Mark I's ratchet relays (Nagle 1986: 'relay coils driving potentiometers through "
    "ratchets'); small rotary stepping relays and solenoids of the period pull several to tens of watts "
    "during a step; 10 W while the coil steps (0.4 J a step at the default 0.04 s)")


def drive_power(spec) -> Constant:
    """The power of the rack's drive while a motor runs: :data:`MOTOR_POWER` or :data:`RELAY_POWER`.

    Parameters
    ----------
    spec : MachineSpec or RackSpec

    Returns
    -------
    Constant

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> drive_power(MARK_I).value, drive_power(MARK_I.with_overrides({"rack.drive": "ratchet"})).value
    (2.0, 10.0)
    """
    rack = getattr(spec, "rack", spec)
    return MOTOR_POWER if rack.drive == "continuous" else RELAY_POWER


@dataclass(frozen=True)
class Energy:
    """The energy a training run spent turning pots.

    Attributes
    ----------
    total_j : float
        Joules over the whole run.
    per_correction_j : float
        ``total_j`` over the corrections (nan when there were none).
    corrections : int
        Presentations on which at least one pot was turned.
    motor_seconds : float
        Seconds the motors (or relay coils) ran, added over every pot.
    pulses : int
        Pot moves commanded (one pulse to one pot's motor is one move).
    power_w : float
        The drive's power while running (W); nan when the energy is counted by pulses.
    pulse_energy_j : float
        Joules a pulse (nan when counted by running time).
    basis : str
        ``"running time"`` or ``"pulses"``.
    drive : str
        ``continuous``, ``ratchet`` or the device's name.
    status, source : str
        The provenance of the constant used.

    Examples
    --------
    >>> e = energy(MOTOR_POWER, motor_seconds=3.0, pulses=40, corrections=2)
    >>> e.total_j, e.per_correction_j
    (6.0, 3.0)
    """

    total_j: float
    per_correction_j: float
    corrections: int
    motor_seconds: float
    pulses: int
    power_w: float
    pulse_energy_j: float
    basis: str
    drive: str
    status: str
    source: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe fields (nan as None), for ``summary.json`` and the studies' records.

        Examples
        --------
        >>> energy(MOTOR_POWER, motor_seconds=1.5, pulses=3, corrections=0).to_dict()["per_correction_j"] is None
        True
        """
        out: dict[str, Any] = {}
        for k, v in asdict(self).items():
            out[k] = None if isinstance(v, float) and not np.isfinite(v) else v
        return out

    def describe(self) -> str:
        """One line for a terminal table.

        Examples
        --------
        >>> energy(MOTOR_POWER, motor_seconds=390.0, pulses=4875, corrections=75).describe()
        '780 J, 10.4 J a correction (75 corrections; motors 2 W x 390 s, assumed)'
        """
        per = "-" if not np.isfinite(self.per_correction_j) else joules_text(self.per_correction_j)
        if self.basis == "pulses":
            how = f"{self.pulses:,} pulses x {joules_text(self.pulse_energy_j)}, {self.status}"
        else:
            what = "motors" if self.drive == "continuous" else "relay coils"
            how = f"{what} {self.power_w:g} W x {self.motor_seconds:.4g} s, {self.status}"
        return f"{joules_text(self.total_j)}, {per} a correction ({self.corrections:,} corrections; {how})"


def joules_text(v: float) -> str:
    """Joules with an SI prefix, three significant figures.

    Examples
    --------
    >>> joules_text(780.2), joules_text(2.61e-9), joules_text(0.0)
    ('780 J', '2.61 nJ', '0 J')
    """
    if v == 0:
        return "0 J"
    for scale, prefix in ((1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"), (1e-12, "p"),
                          (1e-15, "f")):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {prefix}J"
    return f"{v:.3g} J"


def energy(constant: Constant, *, motor_seconds: float, pulses: int, corrections: int,
           drive: str = "continuous") -> Energy:
    """The energy of a run from its counts: power × running time, or pulses × energy a pulse.

    Parameters
    ----------
    constant : Constant
        A power (unit ``W``: energy = power × ``motor_seconds``) or an energy a pulse
        (unit ``J``: energy = ``pulses`` × it).
    motor_seconds : float
        Seconds the motors ran, added over every pot (s).
    pulses : int
        Pot moves commanded.
    corrections : int
        Presentations with at least one pot turned.
    drive : str
        Named in the result.

    Returns
    -------
    Energy

    Examples
    --------
    Four pots turned 0.02 full scale at 0.25 full scale per second run 0.08 s each:

    >>> e = energy(MOTOR_POWER, motor_seconds=4 * 0.08, pulses=4, corrections=1)
    >>> round(e.total_j, 6), e.basis
    (0.64, 'running time')
    >>> energy(Constant(1e-12, "J", "datasheet", "a cell"), motor_seconds=0.0, pulses=1000, corrections=10,
    ...        drive="a cell").per_correction_j
    1e-10
    """
    if constant.unit not in ("W", "J"):
        raise InputError(f"constant.unit: expected 'W' (a power) or 'J' (an energy a pulse), got {constant.unit!r}")
    if not (np.isfinite(motor_seconds) and motor_seconds >= 0) or pulses < 0 or corrections < 0:
        raise InputError(f"motor_seconds, pulses, corrections: expected finite counts >= 0, got "
                         f"{motor_seconds!r}, {pulses!r}, {corrections!r}")
    by_time = constant.unit == "W"
    total = constant.value * float(motor_seconds) if by_time else constant.value * int(pulses)
    return Energy(total_j=float(total), per_correction_j=float(total / corrections) if corrections else float("nan"),
                  corrections=int(corrections), motor_seconds=float(motor_seconds), pulses=int(pulses),
                  power_w=float(constant.value) if by_time else float("nan"),
                  pulse_energy_j=float("nan") if by_time else float(constant.value),
                  basis="running time" if by_time else "pulses", drive=drive, status=constant.status,
                  source=constant.source)


def pulse_energy(device: str) -> Constant:
    """A device preset's energy of one programming pulse (:data:`mark1.devices.PRESETS`).

    Examples
    --------
    >>> c = pulse_energy("ecram")
    >>> c.value, c.unit, c.status
    (1e-15, 'J', 'single-source')
    """
    if device not in PRESETS:
        raise InputError(f"device: expected one of {', '.join(PRESETS)}, got {device!r}")
    p = PRESETS[device]
    return Constant(float(p.pulse_energy), "J", p.pulse_energy_status, f"{device}; {p.pulse_energy_source}")


def device_of(spec) -> str | None:
    """The device preset whose rack ``spec`` has, or None (the Mark I's own motors).

    A spec made by :func:`mark1.devices.device_spec` is named ``"<base> + <device>"``;
    any other spec (a scene's ``machine.device``) is that device when its rack has every
    one of the preset's overrides, or else, when the scene changed some of them, the
    preset's drive, law and pulse width (``rack.step_time``), which no other preset shares.

    Examples
    --------
    >>> from mark1.devices import device_spec
    >>> from mark1.specs import MARK_I
    >>> device_of(device_spec("reram-sb")), device_of(MARK_I)
    ('reram-sb', None)
    """
    for name in PRESETS:
        if spec.name.endswith(f" + {name}"):
            return name
    rack = spec.rack
    for name, p in PRESETS.items():
        if all(getattr(rack, k.split(".", 1)[1]) == v for k, v in p.overrides.items()):
            return name
    family = [name for name, p in PRESETS.items()
              if all(getattr(rack, k) == p.overrides.get(f"rack.{k}", getattr(rack, k)) and f"rack.{k}" in p.overrides
                     for k in ("drive", "law", "step_time"))]
    return family[0] if len(family) == 1 else None


def update_energy(spec, per_pulse: Constant | None = None) -> float:
    """Joules of one pot's update: one trainer's increment (``trainer.increment``) turned from rest.

    Motors: the drive's power times the move's running time (the kernel's
    :func:`~mark1.machine._kernels.pots.move_duration`); a device: the pulses of the
    increment's train (``rint(increment / step)``) times its energy per pulse (``per_pulse``,
    or the preset's when ``spec`` is one, :func:`device_of`).

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> round(update_energy(MARK_I), 6)                    # 2 W x 0.08 s
    0.16
    >>> round(update_energy(MARK_I.with_overrides({"rack.drive": "ratchet"})), 6)   # 10 W x 2 steps x 0.04 s
    0.8
    """
    device = device_of(spec)
    if per_pulse is None and device is not None:
        per_pulse = pulse_energy(device)
    inc = float(spec.trainer.increment)
    if per_pulse is not None:
        steps = float(np.rint(inc / spec.rack.step)) if spec.rack.drive == "ratchet" else 1.0
        return per_pulse.value * steps
    return drive_power(spec).value * move_duration(spec.rack, inc)


def _counts(machine) -> tuple[float, int]:
    """Motor seconds and pulses of a fitted machine: the rack's own counters, which the pot
    kernel writes as it sets each move going (:func:`mark1.machine._kernels.pots.apply_pot`)."""
    rack = machine.rack_
    return float(np.sum(rack.motor_seconds)), int(np.sum(rack.pulses))


def run_energy(machine, per_pulse: Constant | None = None) -> Energy:
    """The energy a fitted :class:`~mark1.machine.mark_i.MarkI` spent learning.

    Parameters
    ----------
    machine : MarkI
        Fitted.
    per_pulse : Constant, optional
        A device's energy a write pulse (unit ``J``); the energy is then pulses × it.
        Without it, a device preset's own (:func:`device_of`, :func:`pulse_energy`), else
        the drive's power (:func:`drive_power`) × the motors' running time.

    Returns
    -------
    Energy

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.machine.mark_i import MarkI
    >>> from mark1.specs import SMALL
    >>> cards, labels = np.ones((4, 20, 20)), ["down", "across"] * 2
    >>> cards[0, :, 4:7] = cards[2, :, 12:15] = cards[1, 5:8, :] = cards[3, 13:16, :] = 0.0
    >>> m = MarkI(spec=SMALL, seed=0, trace="full").fit(cards, labels, epochs=2)
    >>> e = run_energy(m)
    >>> e.corrections == int(np.count_nonzero(m.history_["pots_moved"])), e.total_j == 2.0 * e.motor_seconds
    (True, True)
    """
    seconds, pulses = _counts(machine)
    corrections = int(np.count_nonzero(machine.history_["pots_moved"]))
    device = device_of(machine.spec)
    if per_pulse is None and device is not None:
        per_pulse = pulse_energy(device)
    if per_pulse is not None:
        return energy(per_pulse, motor_seconds=seconds, pulses=pulses, corrections=corrections,
                      drive=per_pulse.source.split(";")[0])
    return energy(drive_power(machine.spec), motor_seconds=seconds, pulses=pulses, corrections=corrections,
                  drive=machine.spec.rack.drive)


def energy_fields(machine, per_pulse: Constant | None = None) -> dict[str, Any]:
    """The energy of one fitted run as flat, JSON-safe fields, for a study's record of a run.

    Parameters
    ----------
    machine : MarkI
        Fitted.
    per_pulse : Constant, optional
        As in :func:`run_energy`.

    Returns
    -------
    dict
        ``energy_j`` (total), ``energy_per_correction_j`` (None without corrections),
        ``motor_seconds``, ``pulses``, ``energy_basis`` and ``energy_status``.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.machine.mark_i import MarkI
    >>> from mark1.specs import SMALL
    >>> cards, labels = np.ones((4, 20, 20)), ["down", "across"] * 2
    >>> cards[0, :, 4:7] = cards[2, :, 12:15] = cards[1, 5:8, :] = cards[3, 13:16, :] = 0.0
    >>> sorted(energy_fields(MarkI(spec=SMALL, seed=0).fit(cards, labels, epochs=2)))
    ['energy_basis', 'energy_j', 'energy_per_correction_j', 'energy_status', 'motor_seconds', 'pulses']
    """
    e = run_energy(machine, per_pulse).to_dict()
    return {"energy_j": e["total_j"], "energy_per_correction_j": e["per_correction_j"],
            "motor_seconds": e["motor_seconds"], "pulses": e["pulses"], "energy_basis": e["basis"],
            "energy_status": e["status"]}


def correction_energies(machine) -> np.ndarray:
    """Joules of each correction of a machine fitted with ``trace="full"``: its drive's power
    times the running time of the moves that correction commanded.

    Parameters
    ----------
    machine : MarkI
        Fitted with a full trace (its moves).

    Returns
    -------
    array (n_corrections,) float
        In the order of the presentations; they add up to :func:`run_energy`'s total.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.machine.mark_i import MarkI
    >>> from mark1.specs import SMALL
    >>> cards, labels = np.ones((4, 20, 20)), ["down", "across"] * 2
    >>> cards[0, :, 4:7] = cards[2, :, 12:15] = cards[1, 5:8, :] = cards[3, 13:16, :] = 0.0
    >>> m = MarkI(spec=SMALL, seed=0, trace="full").fit(cards, labels, epochs=2)
    >>> bool(np.isclose(correction_energies(m).sum(), run_energy(m).total_j))
    True
    """
    if not machine.trace_.full:
        raise InputError("machine: each correction's energy needs its moves; fit it with trace='full'")
    if device_of(machine.spec) is not None:
        raise InputError(f"machine: a device ({device_of(machine.spec)}) spends energy by pulses, which the trace's "
                         "moves do not count; run_energy(machine).per_correction_j is their mean")
    seconds = np.zeros(len(machine.history_))
    for m in machine.trace_.moves:
        seconds[m.presentation] += float(np.sum(m.duration))
    moved = machine.history_["pots_moved"] > 0
    return drive_power(machine.spec).value * seconds[moved]
