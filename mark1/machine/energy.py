"""The energy of learning, part by part: write pulses, drivers, reads and periphery.

The Mark I learns by turning potentiometers with motors, so every correction costs
energy; a modern analog device learns by write pulses. This module counts the energy of
a training run from what the machine did (the rack's own counters and the run's
history), never from a second model of the pots, in four parts, each the sum of
*count x constant* terms:

* **write pulses**: a device's cells, pulses x the preset's energy a pulse
  (:attr:`mark1.devices.DevicePreset.pulse_energy`). The Mark I's pot has no write
  pulse of its own: its motor turns the wiper, and is counted under the drivers (0 J).
* **drivers**: what sets a weight going. The Mark I's **continuous drive** (a small DC
  motor a pot): (:data:`MOTOR_POWER` + :data:`AMPLIFIER_POWER`) x the seconds each motor
  ran (the rack's record of its moves: backlash take-up included, cut short at an end
  stop, never while a pot waits for a driver). The **ratchet drive** (a stepping relay
  a pot, switched by a contact): :data:`RELAY_POWER` x the seconds its coil stepped
  (steps x ``rack.step_time``). A **device** rack's pulse drivers: pulses x
  :data:`PULSE_DRIVER_ENERGY`.
* **reads** (the R-units' sums): every presentation, each active A-unit's pots and each
  R-unit's bias pot carry their share into the R-units' sums. The Mark I: pot-seconds x
  :data:`POT_READ_POWER` (a pot carries current while the card is shown,
  ``timing.period - timing.card_change`` a presentation); a device: cell reads x
  :data:`CELL_READ_ENERGY`.
* **periphery**: what reads the sums out. The Mark I: the R-units' lamps and summing
  amplifiers, R-unit-seconds x :data:`R_UNIT_POWER` over the run's machine time; a device
  rack: one conversion a sum, sums x :data:`CONVERSION_ENERGY`.

The R-units counted are those the output code uses (the rack's units). The retina's
lamps and photocells, the A-units' relays and the trainer's logic are the same whatever
the rack, and are left out.

A *correction* is a presentation on which the trainer turned at least one pot (the
history's ``pots_moved`` > 0). Each part is given for the run and a correction (the
run's part over its corrections); :attr:`Energy.learning_j`, write pulses plus drivers,
is what the corrections themselves spend (the "energy of learning" of the studies).

Every constant carries its unit and its provenance status (the statuses of
``MARK1_FACTS.md``): no source gives the Mark I's motors, amplifiers, pots or R-units,
nor the devices' drivers, reads and converters, so they are **assumed**, each with the
arithmetic behind it; only the ECRAM cell's energy a pulse has a (single) source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from mark1.exceptions import InputError
from mark1.machine._kernels.pots import move_duration
from mark1.devices import PRESETS

__all__ = ["Constant", "MOTOR_POWER", "AMPLIFIER_POWER", "RELAY_POWER", "POT_READ_POWER", "R_UNIT_POWER",
           "PULSE_DRIVER_ENERGY", "CELL_READ_ENERGY", "CONVERSION_ENERGY", "PARTS", "Term", "Part", "Counts",
           "Energy", "drive_power", "energy", "run_counts", "run_energy", "counted_energy", "energy_fields",
           "correction_energies",
           "pulse_energy", "device_of", "update_energy", "joules_text"]


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
    "assumed: no source gives the Mark I's pot motors; a modern small DC gear motor turning a pot, the Hitec "
    "HS-311 servo (datasheet: 160 mA running at no load, 700 mA at stall, at 4.8 V) draws 0.77 W running and "
    "3.4 W at stall; a 1960 motor of that size was no more efficient, so 2 W, between the two")

#: Power lost in the amplifier that drives one pot's motor, while the motor runs (W).
AMPLIFIER_POWER = Constant(
    1.0, "W", "assumed",
    "assumed: no source gives the amplifiers of the Mark I's pot motors; a class-B stage delivering the motor's "
    "2 W loses at best 2 W x (4/pi - 1) = 0.55 W (its ideal efficiency pi/4); a stage of 1960 did worse: 1 W")

#: Electrical power of one stepping relay's coil while it steps (W).
RELAY_POWER = Constant(
    10.0, "W", "assumed",
    "assumed: no source gives the Mark I's ratchet relays (Nagle 1986: 'relay coils driving potentiometers "
    "through ratchets'); small rotary stepping relays and solenoids of the period pull several to tens of watts "
    "during a step; 10 W while the coil steps (0.4 J a step at the default 0.04 s), switched by a contact (no "
    "amplifier)")

#: Power one pot spends on the R-unit's sum while the card is shown (W).
POT_READ_POWER = Constant(
    0.0121, "W", "assumed",
    "assumed: a pot in an active A-unit's path drives its wiper's current into the R-unit's summing resistor; "
    "at full scale (11 V, the wiper's range, single-source) into an assumed 10 kOhm, (11 V)^2 / 10 kOhm = "
    "12.1 mW (an upper bound: a wiper at mid-scale carries none)")

#: Power of one R-unit's lamp and summing amplifier while the machine runs (W).
R_UNIT_POWER = Constant(
    3.0, "W", "assumed",
    "assumed: an R-unit is a lamp (documented) and the amplifier that sums and thresholds its pots; a 28 V, "
    "40 mA indicator lamp (1.1 W) and an amplifier of about 2 W (as a motor's, assumed): 3 W while the machine "
    "runs")

#: Energy of a device rack's pulse driver, a pulse (J).
PULSE_DRIVER_ENERGY = Constant(
    1e-13, "J", "assumed",
    "assumed: a pulse driver charges the line to its cell and lets it discharge; an assumed 100 fF line "
    "(about 0.2 fF/um over 500 um) at the pulse's 1 V takes C V^2 = 100 fJ a pulse")

#: Energy of reading one device cell into an R-unit's sum (J).
CELL_READ_ENERGY = Constant(
    4e-15, "J", "assumed",
    "assumed: 0.2 V across an assumed 10 uS cell for 10 ns, (0.2 V)^2 x 10 uS x 10 ns = 4 fJ a cell read")

#: Energy of converting one R-unit's sum of a device rack (J).
CONVERSION_ENERGY = Constant(
    2.56e-12, "J", "assumed",
    "assumed: one 8-bit conversion of an R-unit's sum at 10 fJ a conversion step (the order of a good "
    "successive-approximation converter's Walden figure of merit), 2^8 x 10 fJ = 2.56 pJ")

#: The parts of :class:`Energy`, in order.
PARTS = ("write pulses", "drivers", "reads", "periphery")


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


class Term(NamedTuple):
    """One term of a part: a count of the run times a constant (joules = ``quantity * constant.value``).

    Attributes
    ----------
    quantity : float
        Pulses, seconds, reads or sums (``unit``).
    unit : str
        What ``quantity`` counts.
    constant : Constant
        Joules a count (unit ``J``) or watts a second counted (unit ``W``).

    Examples
    --------
    >>> Term(390.0, "motor seconds", MOTOR_POWER).joules
    780.0
    """

    quantity: float
    unit: str
    constant: Constant

    @property
    def joules(self) -> float:
        """``quantity * constant.value`` (J)."""
        return float(self.quantity) * float(self.constant.value)


@dataclass(frozen=True)
class Part:
    """One part of a run's energy (:data:`PARTS`): the sum of its terms.

    Attributes
    ----------
    name : str
        ``write pulses``, ``drivers``, ``reads`` or ``periphery``.
    terms : tuple of Term
        Empty for a part the machine does not have (the Mark I's write pulses).
    corrections : int
        The run's corrections (for :attr:`per_correction_j`).

    Examples
    --------
    >>> p = Part("drivers", (Term(3.0, "motor seconds", MOTOR_POWER), Term(3.0, "motor seconds", AMPLIFIER_POWER)), 2)
    >>> p.joules, p.per_correction_j, p.status
    (9.0, 4.5, 'assumed')
    """

    name: str
    terms: tuple[Term, ...]
    corrections: int

    @property
    def joules(self) -> float:
        """The run's joules of this part (0 without terms)."""
        return float(sum(t.joules for t in self.terms))

    @property
    def per_correction_j(self) -> float:
        """The part's joules over the run's corrections (nan without a correction)."""
        return self.joules / self.corrections if self.corrections else float("nan")

    @property
    def status(self) -> str:
        """The least sure status among its constants (``assumed`` before ``single-source``; ``-`` without terms)."""
        order = ("assumed", "contradictory", "single-source", "datasheet", "documented")
        found = [t.constant.status for t in self.terms]
        return next((s for s in order if s in found), "-")

    def text(self) -> str:
        """The part in words: its joules and each term's count x constant.

        Examples
        --------
        >>> Part("drivers", (Term(3.0, "motor seconds", MOTOR_POWER),), 1).text()
        'drivers 6 J (3 motor seconds x 2 W)'
        >>> Part("write pulses", (), 1).text()
        'write pulses 0 J (none)'
        """
        how = "; ".join(f"{t.quantity:.4g} {t.unit} x {_value_text(t.constant)}" for t in self.terms) or "none"
        return f"{self.name} {joules_text(self.joules)} ({how})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: joules, per correction (None without one), status and each term with its constant."""
        per = self.per_correction_j
        return {"joules": self.joules, "per_correction_j": per if np.isfinite(per) else None, "status": self.status,
                "terms": [{"count": float(t.quantity), "unit": t.unit, "value": t.constant.value,
                           "value_unit": t.constant.unit, "status": t.constant.status, "source": t.constant.source}
                          for t in self.terms]}


def _value_text(c: Constant) -> str:
    """A constant's value with its unit: ``2 W``, ``5 pJ``."""
    return joules_text(c.value) if c.unit == "J" else f"{c.value:g} {c.unit}"


class Counts(NamedTuple):
    """What a training run did, counted for its energy (:func:`run_counts`).

    Attributes
    ----------
    corrections : int
        Presentations on which at least one pot turned.
    pulses : int
        Pot moves commanded (a continuous drive: one a move; a ratchet or a device: one a step).
    motor_seconds : float
        Seconds the motors (relay coils) ran, added over every pot.
    pot_reads : float
        Pots read into the R-units' sums, added over the presentations.
    read_seconds : float
        ``pot_reads`` times the seconds a card is shown (pot-seconds).
    sums : int
        R-unit sums: presentations x R-units in use.
    unit_seconds : float
        R-units in use x the run's machine time (s).

    Examples
    --------
    >>> Counts(2, 40, 3.0, 100.0, 280.0, 16, 48.0).sums
    16
    """

    corrections: int
    pulses: int
    motor_seconds: float
    pot_reads: float = 0.0
    read_seconds: float = 0.0
    sums: int = 0
    unit_seconds: float = 0.0


@dataclass(frozen=True)
class Energy:
    """The energy a training run spent, part by part (:data:`PARTS`).

    Attributes
    ----------
    parts : tuple of Part
        Write pulses, drivers, reads, periphery, in that order.
    counts : Counts
    basis : str
        ``"running time"`` (the Mark I's motors or relay coils) or ``"pulses"`` (a device).
    drive : str
        ``continuous``, ``ratchet`` or the device's name.
    status, source : str
        The provenance of the constant that sets a weight (the motor's power, the coil's, the cell's
        energy a pulse).

    Examples
    --------
    >>> e = energy(MOTOR_POWER, motor_seconds=3.0, pulses=40, corrections=2)
    >>> e.total_j, e.per_correction_j, e.learning_j          # motors 2 W and amplifiers 1 W, 3 s
    (9.0, 4.5, 9.0)
    >>> [p.name for p in e.parts]
    ['write pulses', 'drivers', 'reads', 'periphery']
    """

    parts: tuple[Part, ...]
    counts: Counts
    basis: str
    drive: str
    status: str
    source: str

    def part(self, name: str) -> Part:
        """The part called ``name`` (:data:`PARTS`)."""
        for p in self.parts:
            if p.name == name:
                return p
        raise InputError(f"part: expected one of {', '.join(PARTS)}, got {name!r}")

    @property
    def total_j(self) -> float:
        """Joules over the run, every part."""
        return float(sum(p.joules for p in self.parts))

    @property
    def corrections(self) -> int:
        """Presentations on which at least one pot was turned."""
        return int(self.counts.corrections)

    @property
    def per_correction_j(self) -> float:
        """:attr:`total_j` over the corrections (nan without one)."""
        return self.total_j / self.corrections if self.corrections else float("nan")

    @property
    def learning_j(self) -> float:
        """Joules the corrections themselves spent: write pulses plus drivers."""
        return self.part("write pulses").joules + self.part("drivers").joules

    @property
    def learning_per_correction_j(self) -> float:
        """:attr:`learning_j` over the corrections (nan without one)."""
        return self.learning_j / self.corrections if self.corrections else float("nan")

    @property
    def motor_seconds(self) -> float:
        """Seconds the motors (relay coils) ran, added over every pot."""
        return float(self.counts.motor_seconds)

    @property
    def pulses(self) -> int:
        """Pot moves commanded (steps of a ratchet, a device's pulses)."""
        return int(self.counts.pulses)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe fields (nan as None), for ``summary.json`` and the studies' records.

        Examples
        --------
        >>> d = energy(MOTOR_POWER, motor_seconds=1.5, pulses=3, corrections=0).to_dict()
        >>> d["per_correction_j"] is None, list(d["parts"])
        (True, ['write pulses', 'drivers', 'reads', 'periphery'])
        """
        def safe(v):
            return None if isinstance(v, float) and not np.isfinite(v) else v
        return {"total_j": self.total_j, "per_correction_j": safe(self.per_correction_j),
                "learning_j": self.learning_j, "learning_per_correction_j": safe(self.learning_per_correction_j),
                "corrections": self.corrections, "motor_seconds": self.motor_seconds, "pulses": self.pulses,
                "basis": self.basis, "drive": self.drive, "status": self.status, "source": self.source,
                "counts": {k: (int(v) if isinstance(v, (int, np.integer)) else float(v))
                           for k, v in self.counts._asdict().items()},
                "parts": {p.name: p.to_dict() for p in self.parts}}

    def describe(self) -> str:
        """One line for a terminal table.

        Examples
        --------
        >>> print(energy(MOTOR_POWER, motor_seconds=390.0, pulses=4875, corrections=75).describe())
        ... # doctest: +NORMALIZE_WHITESPACE
        1.17 kJ, 15.6 J a correction (75 corrections): write pulses 0 J, drivers 1.17 kJ, reads 0 J,
        periphery 0 J; constants assumed
        """
        per = "-" if not np.isfinite(self.per_correction_j) else joules_text(self.per_correction_j)
        parts = ", ".join(f"{p.name} {joules_text(p.joules)}" for p in self.parts)
        statuses = sorted({t.constant.status for p in self.parts for t in p.terms})
        return (f"{joules_text(self.total_j)}, {per} a correction ({self.corrections:,} corrections): {parts}; "
                f"constants {', '.join(statuses) or '-'}")


def joules_text(v: float) -> str:
    """Joules with an SI prefix, three significant figures.

    Examples
    --------
    >>> joules_text(780.2), joules_text(2.61e-9), joules_text(0.0), joules_text(1170.0)
    ('780 J', '2.61 nJ', '0 J', '1.17 kJ')
    """
    if v == 0:
        return "0 J"
    for scale, prefix in ((1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"), (1e-12, "p"),
                          (1e-15, "f")):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {prefix}J"
    return f"{v:.3g} J"


def energy(constant: Constant, *, motor_seconds: float, pulses: int, corrections: int,
           drive: str = "continuous", pot_reads: float = 0.0, read_seconds: float = 0.0, sums: int = 0,
           unit_seconds: float = 0.0) -> Energy:
    """The energy of a run from its counts, part by part.

    Parameters
    ----------
    constant : Constant
        What sets a weight: a drive's power (unit ``W``, the Mark I: its motors with their
        amplifiers, :data:`AMPLIFIER_POWER`, when ``drive`` is ``continuous``, or its relay
        coils) or a device cell's energy a pulse (unit ``J``: write pulses = ``pulses`` x it,
        drivers = ``pulses`` x :data:`PULSE_DRIVER_ENERGY`).
    motor_seconds : float
        Seconds the motors ran, added over every pot (s).
    pulses : int
        Pot moves commanded.
    corrections : int
        Presentations with at least one pot turned.
    drive : str
        ``continuous``, ``ratchet`` (a power) or the device's name (an energy a pulse).
    pot_reads, read_seconds : float
        Pots read into the R-units' sums, and those reads times the seconds a card is shown:
        the reads (a device's x :data:`CELL_READ_ENERGY`, the Mark I's pot-seconds x
        :data:`POT_READ_POWER`).
    sums : int
        R-unit sums (a device: x :data:`CONVERSION_ENERGY`).
    unit_seconds : float
        R-units in use x machine time (the Mark I: x :data:`R_UNIT_POWER`).

    Returns
    -------
    Energy

    Examples
    --------
    Four pots turned 0.02 full scale at 0.25 full scale per second run 0.08 s each:

    >>> e = energy(MOTOR_POWER, motor_seconds=4 * 0.08, pulses=4, corrections=1)
    >>> round(e.total_j, 6), e.basis                     # (2 W + 1 W) x 0.32 s
    (0.96, 'running time')
    >>> cell = Constant(1e-12, "J", "datasheet", "a cell")
    >>> e = energy(cell, motor_seconds=0.0, pulses=1000, corrections=10, drive="a cell", sums=20)
    >>> e.part("write pulses").joules, e.part("drivers").joules, round(e.part("periphery").joules, 15)
    (1e-09, 1e-10, 5.12e-11)
    """
    if constant.unit not in ("W", "J"):
        raise InputError(f"constant.unit: expected 'W' (a power) or 'J' (an energy a pulse), got {constant.unit!r}")
    counts = Counts(corrections, pulses, motor_seconds, pot_reads, read_seconds, sums, unit_seconds)
    if any(not (np.isfinite(v) and v >= 0) for v in counts):
        raise InputError(f"counts: expected finite counts >= 0, got {counts}")
    counts = Counts(int(corrections), int(pulses), float(motor_seconds), float(pot_reads), float(read_seconds),
                    int(sums), float(unit_seconds))
    n = counts.corrections
    if constant.unit == "W":
        coil = drive == "ratchet"
        drivers = [Term(counts.motor_seconds, "coil seconds" if coil else "motor seconds", constant)]
        if not coil:
            drivers.append(Term(counts.motor_seconds, "motor seconds", AMPLIFIER_POWER))
        parts = (Part("write pulses", (), n), Part("drivers", tuple(drivers), n),
                 Part("reads", (Term(counts.read_seconds, "pot-seconds", POT_READ_POWER),), n),
                 Part("periphery", (Term(counts.unit_seconds, "R-unit seconds", R_UNIT_POWER),), n))
        basis = "running time"
    else:
        parts = (Part("write pulses", (Term(counts.pulses, "pulses", constant),), n),
                 Part("drivers", (Term(counts.pulses, "pulses", PULSE_DRIVER_ENERGY),), n),
                 Part("reads", (Term(counts.pot_reads, "cell reads", CELL_READ_ENERGY),), n),
                 Part("periphery", (Term(counts.sums, "conversions", CONVERSION_ENERGY),), n))
        basis = "pulses"
    return Energy(parts=parts, counts=counts, basis=basis, drive=drive, status=constant.status,
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
    """Joules of one pot's update: one trainer's increment (``trainer.increment``) turned from rest,
    its write pulses and drivers.

    Motors: (the drive's power + its amplifier's) times the move's running time (the kernel's
    :func:`~mark1.machine._kernels.pots.move_duration`); a device: the pulses of the
    increment's train (``rint(increment / step)``) times its energy per pulse (``per_pulse``,
    or the preset's when ``spec`` is one, :func:`device_of`) plus its driver's
    (:data:`PULSE_DRIVER_ENERGY`).

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> round(update_energy(MARK_I), 6)                    # (2 W + 1 W) x 0.08 s
    0.24
    >>> round(update_energy(MARK_I.with_overrides({"rack.drive": "ratchet"})), 6)   # 10 W x 2 steps x 0.04 s
    0.8
    """
    device = device_of(spec)
    if per_pulse is None and device is not None:
        per_pulse = pulse_energy(device)
    inc = float(spec.trainer.increment)
    if per_pulse is not None:
        steps = float(np.rint(inc / spec.rack.step)) if spec.rack.drive == "ratchet" else 1.0
        return (per_pulse.value + PULSE_DRIVER_ENERGY.value) * steps
    power = drive_power(spec).value + (AMPLIFIER_POWER.value if spec.rack.drive == "continuous" else 0.0)
    return power * move_duration(spec.rack, inc)


def run_counts(machine) -> Counts:
    """The counts of a fitted machine's training run that its energy needs.

    Pulses and motor seconds are the rack's own counters, which the pot kernel writes as it
    sets each move going (:func:`mark1.machine._kernels.pots.apply_pot`). The reads: each
    presentation reads every pot of its active A-units (the history's ``a_active`` times the
    rack's pots an A-unit, averaged over the A-units: exact when each A-unit has as many) and
    each R-unit's bias pot; a read lasts while the card is shown
    (``timing.period - timing.card_change``). Sums: presentations x R-units in use (the rack's
    units); R-unit seconds: those units x the run's machine time.

    Parameters
    ----------
    machine : MarkI
        Fitted.

    Returns
    -------
    Counts

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.machine.mark_i import MarkI
    >>> from mark1.specs import SMALL
    >>> cards, labels = np.ones((4, 20, 20)), ["down", "across"] * 2
    >>> cards[0, :, 4:7] = cards[2, :, 12:15] = cards[1, 5:8, :] = cards[3, 13:16, :] = 0.0
    >>> m = MarkI(spec=SMALL, seed=0).fit(cards, labels, epochs=2)
    >>> c = run_counts(m)
    >>> c.sums == len(m.history_) * m.rack_.mask.shape[0]
    True
    """
    rack, hist, spec = machine.rack_, machine.history_, machine.spec
    mask = np.asarray(rack.mask, bool)
    n_units = mask.shape[0]
    n_a = mask.shape[1] - 1
    per_a = float(mask[:, :-1].sum()) / n_a if n_a else 0.0
    bias = float(mask[:, -1].sum())
    presentations = len(hist)
    pot_reads = float(np.sum(hist["a_active"], dtype=float)) * per_a + presentations * bias
    shown = max(float(spec.timing.period) - float(spec.timing.card_change), 0.0)
    return Counts(corrections=int(np.count_nonzero(hist["pots_moved"])), pulses=int(np.sum(rack.pulses)),
                  motor_seconds=float(np.sum(rack.motor_seconds)), pot_reads=pot_reads,
                  read_seconds=pot_reads * shown, sums=presentations * n_units,
                  unit_seconds=n_units * float(machine.machine_time_))


def run_energy(machine, per_pulse: Constant | None = None) -> Energy:
    """The energy a fitted :class:`~mark1.machine.mark_i.MarkI` spent on its training run, part by part.

    Parameters
    ----------
    machine : MarkI
        Fitted.
    per_pulse : Constant, optional
        A device's energy a write pulse (unit ``J``): the run is then counted as a device
        rack's (write pulses, pulse drivers, cell reads, conversions). Without it, a device
        preset's own (:func:`device_of`, :func:`pulse_energy`), else the Mark I's drive
        (:func:`drive_power`).

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
    >>> e.corrections == int(np.count_nonzero(m.history_["pots_moved"])), e.learning_j == 3.0 * e.motor_seconds
    (True, True)
    >>> bool(np.isclose(e.total_j, sum(p.joules for p in e.parts)))
    True
    """
    return counted_energy(machine.spec, run_counts(machine), per_pulse)


def counted_energy(spec, counts: Counts, per_pulse: Constant | None = None) -> Energy:
    """The energy of a run of a machine of ``spec`` that did ``counts``, part by part.

    What :func:`run_energy` gives for a fitted machine, from its counts alone: a study's
    worker sends the counts (plain numbers) and the energy is made where the study collects.

    Parameters
    ----------
    spec : MachineSpec
        The machine; it decides the constants (a device preset's, else the Mark I's drive).
    counts : Counts
        What the run did (:func:`run_counts`).
    per_pulse : Constant, optional
        As for :func:`run_energy`.

    Returns
    -------
    Energy

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> e = counted_energy(MARK_I, Counts(corrections=2, pulses=40, motor_seconds=3.0))
    >>> e.part("drivers").joules                      # motors 2 W and amplifiers 1 W, 3 s
    9.0
    """
    device = device_of(spec)
    if per_pulse is None and device is not None:
        per_pulse = pulse_energy(device)
    if per_pulse is not None:
        constant, drive = per_pulse, per_pulse.source.split(";")[0]
    else:
        constant, drive = drive_power(spec), spec.rack.drive
    c = counts
    return energy(constant, motor_seconds=c.motor_seconds, pulses=c.pulses, corrections=c.corrections,
                  drive=drive, pot_reads=c.pot_reads, read_seconds=c.read_seconds, sums=c.sums,
                  unit_seconds=c.unit_seconds)


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
        ``energy_j`` and ``energy_per_correction_j`` (the energy of learning: write pulses
        plus drivers, :attr:`Energy.learning_j`; None without corrections),
        ``energy_total_j`` (every part) and each part's joules (``energy_write_j``,
        ``energy_drivers_j``, ``energy_reads_j``, ``energy_periphery_j``),
        ``motor_seconds``, ``pulses``, ``energy_basis`` and ``energy_status``.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.machine.mark_i import MarkI
    >>> from mark1.specs import SMALL
    >>> cards, labels = np.ones((4, 20, 20)), ["down", "across"] * 2
    >>> cards[0, :, 4:7] = cards[2, :, 12:15] = cards[1, 5:8, :] = cards[3, 13:16, :] = 0.0
    >>> sorted(energy_fields(MarkI(spec=SMALL, seed=0).fit(cards, labels, epochs=2)))[:5]
    ['energy_basis', 'energy_drivers_j', 'energy_j', 'energy_per_correction_j', 'energy_periphery_j']
    """
    e = run_energy(machine, per_pulse)
    per = e.learning_per_correction_j
    out: dict[str, Any] = {"energy_j": e.learning_j, "energy_per_correction_j": per if np.isfinite(per) else None,
                           "energy_total_j": e.total_j}
    for p, key in zip(e.parts, ("write", "drivers", "reads", "periphery")):
        out[f"energy_{key}_j"] = p.joules
    out.update({"motor_seconds": e.motor_seconds, "pulses": e.pulses, "energy_basis": e.basis,
                "energy_status": e.status})
    return out


def correction_energies(machine) -> np.ndarray:
    """Joules of each correction's drivers, for a machine fitted with ``trace="full"``: its drive's
    power (with its amplifier's) times the running time of the moves that correction commanded.

    Parameters
    ----------
    machine : MarkI
        Fitted with a full trace (its moves).

    Returns
    -------
    array (n_corrections,) float
        In the order of the presentations; they add up to the drivers part of :func:`run_energy`.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.machine.mark_i import MarkI
    >>> from mark1.specs import SMALL
    >>> cards, labels = np.ones((4, 20, 20)), ["down", "across"] * 2
    >>> cards[0, :, 4:7] = cards[2, :, 12:15] = cards[1, 5:8, :] = cards[3, 13:16, :] = 0.0
    >>> m = MarkI(spec=SMALL, seed=0, trace="full").fit(cards, labels, epochs=2)
    >>> bool(np.isclose(correction_energies(m).sum(), run_energy(m).part("drivers").joules))
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
    power = drive_power(machine.spec).value
    if machine.spec.rack.drive == "continuous":
        power += AMPLIFIER_POWER.value
    return power * seconds[moved]
