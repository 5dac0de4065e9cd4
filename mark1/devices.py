"""Modern analog devices on the Mark I's rack: presets of the rack's device laws, cited.

Data about specs, beside :mod:`mark1.specs`: a scene that names a device reads it here,
without importing the machine.

Each preset is a set of :class:`mark1.specs.RackSpec` overrides (``rack.*`` keys) that
turns the Mark I's motor-driven pots into a family of resistive devices that researchers
characterise pulse by pulse, so that the Mark I's pot and, say, a soft-bounds ReRAM
cell train on the same cards and the same clock. A scene names one with
``machine.device = "reram-sb"`` (its overrides go under the scene's own, which win), and
:func:`device_spec` makes the machine in Python.

Where the numbers come from
---------------------------
The device parameters are those of IBM's aihwkit presets
(``aihwkit.simulator.presets.devices``, read at commit 4545f11b of github.com/IBM/aihwkit),
which are fits of the cited papers' measurements; the papers' own figures are not read
here, so each number is *the aihwkit preset's value*, said so beside it. They are mapped
onto the pot's full scale: aihwkit's weight range is divided by its larger bound plus
four standard deviations of that bound's pot-to-pot spread (:data:`SPREAD_SIGMAS`), so that
the bounds drawn as aihwkit draws them fall within the pot's end stops (a draw past them,
probability 3.2e-5 a pot, is cut there). The division scales ``dw_min`` (the rack's
``step``) and the bounds alike and leaves every relative figure (spreads, noise in units of
``dw_min``, the laws' slopes relative to the bounds) as it is. Each command of the trainer is a
train of ``rint(trainer.increment / step)`` pulses (``rack.drive = "ratchet"``), one
every ``step_time``, the device's pulse width. What the rack cannot say of a preset is
listed in its ``notes`` (e.g. aihwkit's device-to-device spread of the linear slopes).

Energy per pulse (:attr:`DevicePreset.pulse_energy`, J) has its own source and status
(the words of :mod:`mark1.specs`): the energy of learning a run spent on a device is
``rack.pulses.sum() * pulse_energy`` (:attr:`mark1.machine.potentiometers.PotentiometerRack.pulses`).

Examples
--------
>>> from mark1.devices import PRESETS, device_spec
>>> sorted(PRESETS)
['ecram', 'pcm', 'reram-es', 'reram-sb']
>>> spec = device_spec("reram-sb")
>>> spec.rack.law, spec.rack.drive, round(spec.rack.step, 6), round(spec.rack.w_max, 4)
('soft-bounds', 'ratchet', 0.000816, 0.5102)
>>> PRESETS["ecram"].pulse_energy
1e-15
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from mark1.exceptions import SpecError
from mark1.specs import MARK_I, STATUSES, MachineSpec

__all__ = ["DevicePreset", "PRESETS", "SPREAD_SIGMAS", "device_overrides", "device_spec"]

_AIHWKIT = "aihwkit preset {cls} (aihwkit.simulator.presets.devices, commit 4545f11b)"


@dataclass(frozen=True)
class DevicePreset:
    """One device family: its rack overrides, their sources, and its energy per pulse.

    Attributes
    ----------
    name : str
        The preset's key (``machine.device`` in a scene).
    title : str
        The device in words.
    overrides : mapping
        ``rack.*`` keys and values (full scale, seconds).
    sources : mapping
        For each key of ``overrides``, where its value comes from.
    pulse_energy : float
        Energy of one programming pulse (J).
    pulse_energy_status : str
        Its provenance (:data:`mark1.specs.STATUSES`).
    pulse_energy_source : str
        Where it comes from, or why it is assumed.
    notes : tuple of str
        What the rack does not model of the fitted device.

    Examples
    --------
    >>> from mark1.specs import SMALL
    >>> ecram = PRESETS["ecram"]
    >>> ecram.overrides["rack.law"], ecram.pulse_energy_status
    ('linear', 'single-source')
    >>> ecram.sources["rack.step_time"]
    'Tang et al., IEDM 2018, abstract: programming pulses down to 5 ns'
    >>> ecram.spec(SMALL).name
    'small + ecram'
    """

    name: str
    title: str
    overrides: Mapping[str, Any]
    sources: Mapping[str, str]
    pulse_energy: float
    pulse_energy_status: str
    pulse_energy_source: str
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self):
        assert self.pulse_energy_status in STATUSES, self.pulse_energy_status
        assert set(self.sources) == set(self.overrides), set(self.sources) ^ set(self.overrides)

    def spec(self, base: MachineSpec = MARK_I) -> MachineSpec:
        """``base`` with this device in its rack (named ``"<base> + <device>"``)."""
        return base.with_overrides({**self.overrides, "name": f"{base.name} + {self.name}"})


def _preset(name, title, cls, values: dict[str, tuple[Any, str]], energy, status, energy_source, notes=()):
    """A preset from ``key: (value, source)``; a source ``"aihwkit"`` names the aihwkit class."""
    overrides = {k: v for k, (v, _) in values.items()}
    sources = {k: (_AIHWKIT.format(cls=cls) if s == "aihwkit" else s) for k, (_, s) in values.items()}
    return DevicePreset(name, title, MappingProxyType(overrides), MappingProxyType(sources), energy, status,
                        energy_source, tuple(notes))


_PULSES = "a device takes pulses: the rack's ratchet drive (a train of steps), no gears"
_NO_GEARS = "no gears, so no backlash"

#: Gong et al., Nat. Commun. 9, 2102 (2018): HfO2 ReRAM, fitted by aihwkit.
_GONG = "Gong et al., Nat. Commun. 9:2102 (2018), HfO2 ReRAM"

#: How many standard deviations of a bound's pot-to-pot spread a preset's range keeps within the
#: pot's end stops: a draw beyond them is cut there, which happens to a pot with probability
#: 3.2e-5 (one-sided normal tail at 4 sigma).
SPREAD_SIGMAS = 4.0


def _mapped(w_max, w_min, dw_min, w_max_dtod, w_min_dtod):
    """aihwkit's range onto the pot's full scale: divided by ``c``, the larger bound plus
    :data:`SPREAD_SIGMAS` of its spread, so that no bound drawn as aihwkit draws it is cut.
    Returns ``c`` and the ``(value, source)`` of ``rack.step``, ``rack.w_max``, ``rack.w_min``.
    Every law is invariant under the scaling (slopes relative to the bounds, noise in units of
    ``dw_min``), so only these three change."""
    c = max(w_max * (1 + SPREAD_SIGMAS * w_max_dtod), -w_min * (1 + SPREAD_SIGMAS * w_min_dtod))
    why = (f"divided by c = {c:.6g}, the larger bound plus {SPREAD_SIGMAS:g} sigma of its spread "
           f"(max({w_max:g} x (1 + {SPREAD_SIGMAS:g} x {w_max_dtod:g}), {-w_min:g} x (1 + {SPREAD_SIGMAS:g} x "
           f"{w_min_dtod:g})))")
    return c, {"rack.step": (dw_min / c, f"aihwkit: dw_min {dw_min:g}, {why}"),
               "rack.w_max": (w_max / c, f"aihwkit: w_max {w_max:g}, {why}"),
               "rack.w_min": (w_min / c, f"aihwkit: w_min {w_min:g}, {why}")}


_SB_C, _SB_RANGE = _mapped(1.25, -0.75, 0.002, 0.3 / 1.25, 0.3 / 0.75)
_ES_C, _ES_RANGE = _mapped(1.0, -1.0, 0.00135, 0.3, 0.3)
_EC_C, _EC_RANGE = _mapped(1.1724, -0.8276, 0.002, 0.05, 0.05)
# PCM: aihwkit's range [0, 2] shifted by -1, its zero (rack.g_zero) at the shifted w_min; its bounds spread
# about that zero (0.1 of w_max 2: up to 2.8 at 4 sigma, 1.8 = 1 x (1 + 4 x 0.2) above the shift), w_min 0 has
# none
_PCM_C, _PCM_RANGE = _mapped(1.0, -1.0, 0.01, 0.2, 0.0)

#: The device presets by name.
PRESETS: Mapping[str, DevicePreset] = MappingProxyType({p.name: p for p in (
    _preset(
        "reram-sb", "HfO2 ReRAM, soft bounds (symmetry point subtracted)", "ReRamSBPresetDevice",
        {
            "rack.drive": ("ratchet", _PULSES),
            "rack.backlash": (0.0, _NO_GEARS),
            "rack.law": ("soft-bounds", f"aihwkit (a loose SoftBounds fit to {_GONG})"),
            **_SB_RANGE,
            "rack.up_down": (0.0, "aihwkit (symmetry point assumed corrected)"),
            "rack.dw_min_dtod": (0.3, "aihwkit"),
            "rack.up_down_dtod": (0.01, "aihwkit"),
            "rack.w_max_dtod": (0.24, "aihwkit: 0.3 / 1.25"),
            "rack.w_min_dtod": (0.4, "aihwkit: 0.3 / 0.75"),
            "rack.dw_min_std": (3.75, "aihwkit"),
            "rack.mult_noise": (False, "aihwkit (additive cycle-to-cycle noise)"),
            "rack.write_noise_std": (56.0, "aihwkit (in units of dw_min)"),
            "rack.step_time": (5e-8, "assumed: a 50 ns programming pulse (not in the aihwkit preset)"),
        },
        5e-12, "assumed", "assumed: about 1 V x 100 uA for the 50 ns pulse, 1 V x 100 uA x 50 ns = 5 pJ a pulse; "
                          "neither the aihwkit preset nor the paper's abstract gives a pulse energy",
        notes=("aihwkit's SoftBoundsReferenceDevice subtracts a reference device (not modelled here)",)),
    _preset(
        "reram-es", "HfO2 ReRAM, exponential step", "ReRamESPresetDevice",
        {
            "rack.drive": ("ratchet", _PULSES),
            "rack.backlash": (0.0, _NO_GEARS),
            "rack.law": ("exponential", f"aihwkit (an ExpStep fit to {_GONG})"),
            **_ES_RANGE,
            "rack.up_down": (0.259359, "aihwkit (one-sided, as aihwkit runs it: the down step 1 - 0.259359)"),
            "rack.exp_a": (-0.5, "aihwkit: a"),
            "rack.exp_b": (-0.5, "aihwkit: b"),
            "rack.gamma_up": (5.0, "aihwkit"),
            "rack.gamma_down": (5.0, "aihwkit"),
            "rack.A_up": (-1.18445, "aihwkit"),
            "rack.A_down": (-0.081404, "aihwkit"),
            "rack.dw_min_dtod": (0.2, "aihwkit"),
            "rack.up_down_dtod": (0.05, "aihwkit"),
            "rack.w_max_dtod": (0.3, "aihwkit"),
            "rack.w_min_dtod": (0.3, "aihwkit"),
            "rack.dw_min_std": (5.0, "aihwkit"),
            "rack.write_noise_std": (75.0, "aihwkit (in units of dw_min)"),
            "rack.step_time": (5e-8, "assumed: a 50 ns programming pulse (not in the aihwkit preset)"),
        },
        5e-12, "assumed", "assumed: as reram-sb (the same device), 1 V x 100 uA x 50 ns = 5 pJ"),
    _preset(
        "ecram", "Li-ion ECRAM (WO3 channel), linear step", "EcRamPresetDevice",
        {
            "rack.drive": ("ratchet", _PULSES),
            "rack.backlash": (0.0, _NO_GEARS),
            "rack.law": ("linear", "aihwkit (a LinearStep fit to Tang et al., IEDM 2018, range shifted so the "
                                   "symmetry point is at 0)"),
            **_EC_RANGE,
            "rack.gamma_up": (0.1153, "aihwkit (relative to the mean bound: unchanged by the scaling)"),
            "rack.gamma_down": (0.5085, "aihwkit"),
            "rack.gamma_up_dtod": (0.05, "aihwkit"),
            "rack.gamma_down_dtod": (0.05, "aihwkit"),
            "rack.dw_min_dtod": (0.1, "aihwkit"),
            "rack.up_down_dtod": (0.01, "aihwkit"),
            "rack.w_max_dtod": (0.05, "aihwkit"),
            "rack.w_min_dtod": (0.05, "aihwkit"),
            "rack.dw_min_std": (0.3, "aihwkit (mult_noise True, as the rack)"),
            "rack.step_time": (5e-9, "Tang et al., IEDM 2018, abstract: programming pulses down to 5 ns"),
        },
        1e-15, "single-source", "Tang et al., IEDM 2018, abstract: 'ultralow switching energy ~1 fJ' projected "
                                "for 100x100 nm2 devices (a projection, not a measurement of the fitted device)"),
    _preset(
        "pcm", "Ge2Sb2Te5 phase-change memory, exponential step, with drift", "PCMPresetDevice",
        {
            "rack.drive": ("ratchet", _PULSES),
            "rack.backlash": (0.0, _NO_GEARS),
            "rack.law": ("exponential", "aihwkit (an ExpStep fit to Nandakumar et al., Front. Neurosci. 14:406, "
                                        "2020), its range [0, 2] shifted to [-1, 1]"),
            **_PCM_RANGE,
            "rack.exp_a": (-1.0, "aihwkit: a"),
            "rack.exp_b": (0.0, "aihwkit: b (z measured from rack.g_zero, aihwkit's weight 0)"),
            "rack.gamma_up": (2.5, "aihwkit"),
            "rack.gamma_down": (2.5, "aihwkit"),
            "rack.A_up": (-27.235, "aihwkit"),
            "rack.A_down": (-2.235, "aihwkit"),
            "rack.dw_min_dtod": (0.2, "aihwkit"),
            "rack.up_down_dtod": (0.05, "aihwkit"),
            "rack.w_max_dtod": (0.1, "aihwkit (relative to w_max - g_zero, aihwkit's w_max 2)"),
            "rack.dw_min_std": (0.6, "aihwkit (without its dw_min_std_add and dw_min_std_slope)"),
            "rack.drift_nu": (0.049, "aihwkit PCMLikeNoiseModel's drift fit (Nandakumar et al., ICECS 2019) at "
                                     "full conductance: mean nu 0.049"),
            "rack.drift_nu_dtod": (0.163, "aihwkit PCMLikeNoiseModel: sigma 0.008 at full conductance, / 0.049"),
            "rack.drift_t0": (20.0, "aihwkit PCMLikeNoiseModel: t_0 = 20 s"),
            "rack.g_zero": (_PCM_RANGE["rack.w_min"][0], "aihwkit's weight 0 (w_min 0 of its range [0, 2]): the "
                                                         "laws measure from it, a conductance drifts toward it"),
            "rack.prog_noise_scale": (1.0, "aihwkit PCMLikeNoiseModel: prog_noise_scale 1, its prog_coeff "
                                           "(0.26348, 1.9650, -1.1731) uS at 25 uS (Nandakumar et al., ICECS 2019)"),
            "rack.read_noise_scale": (1.0, "aihwkit PCMLikeNoiseModel: read_noise_scale 1, t_read 250 ns"),
            "rack.step_time": (1e-7, "assumed: a 100 ns SET pulse (not in the aihwkit preset)"),
        },
        1e-11, "assumed", "assumed: a partial-SET pulse of about 10 pJ (order of magnitude; not in the aihwkit "
                          "preset or the cited abstracts)",
        notes=("aihwkit uses this device one-sided, in a pair with refresh (PCMPresetUnitCell); here it is one "
               "device over a shifted range, its down steps the fitted law's",
               "the drift's dependence on conductance (nu_k) is not modelled: nu is taken at full conductance",
               "aihwkit's PCMLikeNoiseModel is for inference (programmed once, read at one time); here its "
               "programming noise is drawn at every move's end and its 1/f read noise afresh at every read")),
)})


def device_overrides(name: str) -> dict[str, Any]:
    """The ``rack.*`` overrides of a preset (a new dict).

    Raises
    ------
    SpecError
        For an unknown name (``err.key`` is ``"machine.device"``), with the nearest one.

    Examples
    --------
    >>> device_overrides("ecram")["rack.law"]
    'linear'
    """
    if not isinstance(name, str) or name not in PRESETS:
        close = difflib.get_close_matches(str(name), list(PRESETS), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise SpecError("machine.device", f"expected one of {', '.join(map(repr, PRESETS))}, got {name!r}{hint}")
    return dict(PRESETS[name].overrides)


def device_spec(name: str, base: MachineSpec = MARK_I) -> MachineSpec:
    """``base`` (default the Mark I) with the named device in its rack.

    Examples
    --------
    >>> device_spec("pcm").rack.drift_nu
    0.049
    """
    device_overrides(name)
    return PRESETS[name].spec(base)
