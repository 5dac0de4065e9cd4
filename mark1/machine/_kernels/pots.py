"""The physics of one pot, compiled: where a wiper is, what a command does to it, and how long that takes.

Every path that moves or reads a wiper calls these: the rack
(:class:`mark1.machine.potentiometers.PotentiometerRack`), the compiled presentation loop
(:mod:`mark1.machine._kernels.presentation`) and the device plots (through
:func:`move_duration`). A pot's law is written here once. The rack's arrays travel as one
named record, :class:`Pots`, and the drive's constants as another, :class:`Drive`.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
from typing import Any, NamedTuple

import numpy as np

from mark1._utils.compiled import compiled
from mark1.machine._kernels import copied_fields, features
from mark1.machine._kernels.features import nonzero_features
from mark1.specs import RackSpec

__all__ = ["Drive", "LAW_CODES", "Pots", "adc_of", "apply_pot", "diffuse_pots", "diffuse_reference", "drive_of",
           "law_factor", "law_factor_reference", "law_gammas", "move_duration", "normal_draw", "one_pot",
           "plan_device", "plan_mark_i", "plan_pot", "pow_exponents", "programming_offset", "programming_reference",
           "read_noise_array", "read_noise_of", "read_noisy", "read_out", "read_out_array", "replay_pulses",
           "reset_positions", "step_scales", "stored_pot", "wiper_sums", "wiring", "written", "written_reference"]

#: The step laws of ``rack.law`` and their codes in :attr:`Drive.law`.
LAW_CODES = {"constant": 0, "linear": 1, "soft-bounds": 2, "exponential": 3, "power": 4, "piecewise": 5}

#: Streams of the device's noise (:func:`normal_draw`): each pulse's step, each write, each
#: presentation's diffusion and the write that follows it (:func:`diffuse_pots`), the reset
#: when the machine is built and its write (:func:`reset_positions`); the programming noise of
#: a move, of a diffusion step and of the reset, each two streams (the pair's members:
#: :func:`programming_offset`); each read's 1/f noise (:func:`read_noisy`).
STEP_NOISE, WRITE_NOISE, DIFFUSION, DIFFUSION_WRITE, RESET, RESET_WRITE = 0, 1, 2, 3, 4, 5
PROGRAMMING, DIFFUSION_PROGRAMMING, RESET_PROGRAMMING, READ = 6, 8, 10, 12

#: The constants of aihwkit's 1/f read noise (``PCMLikeNoiseModel.apply_drift_noise_to_conductance``,
#: src/aihwkit/inference/noise/pcm.py, lines 148-151, commit 4545f11): ``q_s = min(READ_Q /
#: max(g ** READ_Q_EXP, READ_Q_FLOOR), READ_Q_MAX)``, ``g`` the programmed conductance relative to
#: its full scale. aihwkit does not expose them.
READ_Q, READ_Q_EXP, READ_Q_FLOOR, READ_Q_MAX = 0.0088, 0.65, 1e-3, 0.2

#: Whether a pot may have a device law or variation (``Drive.device``): ``True`` here; a run
#: without one calls a variant of the step made with it ``False``
#: (:func:`mark1._utils.compiled.specialised`), which never compiles :func:`plan_device`.
DEVICE = True


#: The fields of :class:`Drive` that :func:`drive_of` makes itself rather than copying from the
#: spec by name: ``(name, type, description)``.
MADE: tuple[tuple[str, type, str], ...] = (
    ("continuous", float, "1.0 for a continuous drive, 0.0 for a ratchet (``rack.drive``)."),
    ("device", float, "1.0 when any device law or variation is on (:func:`plan_device` plans the move); "
                      "0.0 keeps the Mark I's own plan, bit for bit."),
    ("law", int, "The step law's code (:data:`LAW_CODES`) of ``rack.law``."),
    ("write_noise", float, "Sigma of the write noise (full scale): ``rack.write_noise_std`` times ``rack.step``."),
    ("mult_noise", float, "1.0 where the pulse noise multiplies the law's step (``rack.mult_noise``), 0.0 where "
                          "it adds to it."),
    ("noise_key", np.uint64, "Key of the device's noise streams (:func:`normal_draw`), from the machine's seed."),
)

_DRIVE_DOC = """The drive's constants as :func:`plan_pot` reads them (from :class:`mark1.specs.RackSpec`).

    Made from the spec when this module is imported: a field for each field of the rack's spec
    whose ``param(kernel=...)`` names ``Drive.<its own name>`` (:func:`drive_of` copies it: a
    float, an array for a table; described below by its ``param``), then the fields of
    :data:`MADE`, which :func:`drive_of` makes itself. A new constant of the drive is its spec
    field; nothing here changes.

    Attributes
    ----------
{attributes}

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> drive = drive_of(RackSpec(backlash=0.01, drive="ratchet"))
    >>> drive.backlash, drive.continuous, drive.law
    (0.01, 0.0, 0)
    >>> Drive._fields[:3], Drive._fields[-1]
    (('end_stops', 'motor_speed', 'step'), 'noise_key')
    """


def _drive_record() -> Any:
    """The class :class:`Drive` (see its docstring), made from :class:`mark1.specs.RackSpec`'s params."""
    made = [name for name, _, _ in MADE]
    spec = RackSpec()
    fields: list[tuple[str, Any]] = []
    attributes: list[tuple[str, str]] = []
    for name in copied_fields(RackSpec, "Drive"):
        if name in made:
            continue
        info = RackSpec.field_info(name)
        fields.append((name, np.ndarray if info["floats"] else float))
        true = ", 1.0 for true" if isinstance(getattr(spec, name), bool) else ""
        attributes.append((f"{name} : {'array (k,) float' if info['floats'] else 'float'}",
                           f"``rack.{name}`` ({info['unit']}{true}): {info['doc']}."))
    for name, kind, text in MADE:
        fields.append((name, kind))
        attributes.append((f"{name} : {kind.__name__}", text))
    record = NamedTuple("Drive", fields)  # type: ignore[misc]   # the fields are the spec's, known at import
    record.__doc__ = _DRIVE_DOC.format(attributes="\n".join(
        line for head, text in attributes
        for line in ["    " + head, *textwrap.wrap(text, 92, initial_indent=" " * 8, subsequent_indent=" " * 8)]))
    return record


#: The drive's constants as :func:`plan_pot` reads them: a named tuple made from the rack's spec
#: (its docstring lists its fields).
Drive = _drive_record()


class Pots(NamedTuple):
    """The rack's per-pot arrays, flat (index ``unit * n_inputs + input``), written in place.

    Attributes
    ----------
    gain : array (n_pots,) float
        Each motor's speed relative to nominal.
    p_from, p_to : arrays (n_pots,) float
        Stored position (before decay) at the start and the end of the pot's last move.
    t_start, t_end : arrays (n_pots,) float
        When that move's wiper motion starts and ends (s of machine time).
    last_dir : array (n_pots,) int8
        Direction of the last move that turned the gears (0: never moved).
    step_scale, up_down : arrays (n_pots,) or (1,) float
        A pulse up travels ``step * (step_scale + up_down)``, down ``step * (step_scale -
        up_down)``: the mean and half the difference of each pot's up and down scales as
        aihwkit draws them (:func:`step_scales`). One element: the same for every pot.
    w_max, w_min : arrays (n_pots,) or (1,) float
        Each pot's bounds (full scale): its end stops, and the soft bounds of a law; a
        stuck pot's are both its stuck value.
    gamma_up, gamma_down : arrays (n_pots,) or (1,) float
        Each pot's own parameter of its law, up and down: the linear law's slopes at the
        bounds (``gamma_up``, ``gamma_down`` with ``gamma_*_dtod``), the power law's
        exponents (:func:`pow_exponents`); unused by the other laws.
    stuck : array (n_pots,) or (1,) int8
        1 where the wiper never moves from its stuck value (``w_max``); its pulses still
        fire and take their time.
    werr : array (n_pots,) or (0,) float
        The write noise's offset of each wiper from the device's persistent state, stored
        (before decay) like ``p_to``; empty when there is no write noise. Not clipped: a
        wiper's reading may pass its end stop by it (:func:`written`).
    motor_seconds : array (n_pots,) float
        Seconds each pot's motor (or relay) has run, backlash included: the sum of its moves'
        durations (written by :func:`apply_pot`).
    pulses : array (n_pots,) int64
        Pulses each pot has received: ratchet steps or device pulses fired, one a command on
        the continuous drive (written by :func:`apply_pot`); also the counter of the noise streams.
    planned, next_err : arrays
        Scratch written by :func:`plan_pot` for the :func:`apply_pot` that follows it: the
        move's pulses (n_pots,) int64 and its new write offset (like ``werr``, true full scale).
    nu : array (n_pots,), (1,) or (0,) float
        Each pot's drift exponent: after its last move ends a wiper reads
        ``zero + (p - zero) * max(dt / t0, 1) ** -nu``, ``p`` its programmed position, ``dt``
        the machine seconds since (:func:`drift_factor`); empty: no drift.
    drift : array (2,) float
        The drift's reference time ``t0`` (s) and the position it shrinks toward, ``zero``
        (full scale: the device's zero conductance, ``rack.g_zero``).
    diffusion : array (n_pots,), (1,) or (0,) float
        Each pot's diffusion rate (full scale, sigma a presentation: :func:`diffuse_pots`);
        empty: no diffusion.
    adc : array (2,) float
        The R-unit's read of a sum (:func:`read_out`): its saturation bound (full scale; inf:
        none) and its resolution (a share of the bound; 0: none).
    read_noise : array (5,) or (0,) float
        The 1/f read noise (:func:`read_noisy`): ``rack.read_noise_scale``, ``rack.t_read``
        (s), ``rack.drift_t0`` (s), the zero conductance's position ``g_zero`` and the full
        conductance ``G`` (full scale); empty: no read noise (:func:`read_noise_of`).
    read_key : array (1,) uint64
        The key of the read noise's stream (:attr:`Drive.noise_key`).
    by_unit, input_of : arrays (n_units + 1,) and (n_wired,) int64
        The pots that exist (the rack's topology), unit by unit: unit ``u``'s pots are on
        the inputs ``input_of[by_unit[u]:by_unit[u + 1]]``, in order. A command moves
        only those.
    by_input, unit_of : arrays (n_inputs + 1,) and (n_wired,) int64
        The same pots input by input: input ``i``'s are on the units
        ``unit_of[by_input[i]:by_input[i + 1]]``, in order. A read adds only those (the
        others never move from 0, so they would add exact zeros).
    """

    gain: np.ndarray
    p_from: np.ndarray
    p_to: np.ndarray
    t_start: np.ndarray
    t_end: np.ndarray
    last_dir: np.ndarray
    step_scale: np.ndarray
    up_down: np.ndarray
    w_max: np.ndarray
    w_min: np.ndarray
    gamma_up: np.ndarray
    gamma_down: np.ndarray
    stuck: np.ndarray
    werr: np.ndarray
    motor_seconds: np.ndarray
    pulses: np.ndarray
    planned: np.ndarray
    next_err: np.ndarray
    nu: np.ndarray
    drift: np.ndarray
    diffusion: np.ndarray
    adc: np.ndarray
    read_noise: np.ndarray
    read_key: np.ndarray
    by_unit: np.ndarray
    input_of: np.ndarray
    by_input: np.ndarray
    unit_of: np.ndarray


def one_pot(gain: float = 1.0, direction: int = 0, spec=None) -> Pots:
    """A :class:`Pots` of one pot at 0, its motor's relative speed ``gain``, its gears last
    turned in ``direction``; the per-pot device arrays at the nominal values of ``spec``
    (a :class:`mark1.specs.RackSpec`; none: the Mark I's pot).

    Examples
    --------
    >>> one_pot(0.5).gain.tolist(), one_pot().pulses.tolist()
    ([0.5], [0])
    """
    scale, up_down = step_scales(1.0, 0.0 if spec is None else float(spec.up_down), 0.0)
    w_max = 1.0 if spec is None else float(spec.w_max)
    w_min = -1.0 if spec is None else float(spec.w_min)
    g_up, g_down = law_gammas(spec)
    werr = np.zeros(0 if spec is None or (spec.write_noise_std == 0 and spec.prog_noise_scale == 0) else 1)
    nu = np.zeros(0 if spec is None or spec.drift_nu == 0 else 1) + (0.0 if spec is None else spec.drift_nu)
    drift = np.array([1.0, 0.0] if spec is None else [float(spec.drift_t0), float(spec.g_zero)])
    diffusion = np.zeros(0 if spec is None or spec.diffusion == 0 else 1) + (0.0 if spec is None else spec.diffusion)
    return Pots(np.array([float(gain)]), np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1),
                np.array([direction], np.int8), np.array([scale]), np.array([up_down]), np.array([w_max]),
                np.array([w_min]), np.array([g_up]), np.array([g_down]), np.zeros(1, np.int8), werr, np.zeros(1),
                np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(len(werr)), nu, drift, diffusion,
                adc_of(spec), read_noise_of(spec), np.zeros(1, np.uint64),
                *wiring(np.ones((1, 1), bool)))


def step_scales(gain, up_down, r):
    """A pot's step scales as aihwkit's ``PulsedRPUDevice::populate`` draws them, as
    (:attr:`Pots.step_scale`, :attr:`Pots.up_down`): the mean and half the difference of
    the up and down scales, so that a pulse up travels ``step * (step_scale + up_down)``.

    aihwkit (src/rpucuda/rpu_pulsed_device.cpp, lines 600-604 and 627-634, commit 4545f11)
    applies the mean asymmetry ``up_down`` one-sided: for ``up_down > 0`` the up scale is
    ``gain + r`` and the down scale ``gain - up_down - r``; for ``up_down < 0`` up is
    ``gain + up_down + r`` and down ``gain - r`` (``gain`` the pot's ``1 + dw_min_dtod xi``,
    ``r`` its ``up_down_dtod xi``); each scale is then made positive (``fabs``,
    ``enforce_consistency``). Works on floats and arrays alike.

    Examples
    --------
    >>> step_scales(1.0, 0.2, 0.0)             # up 1.0, down 0.8
    (0.9, 0.1)
    >>> step_scales(1.0, -0.2, 0.0)            # up 0.8, down 1.0
    (0.9, -0.1)
    """
    up_bias = np.minimum(up_down, 0.0)
    down_bias = -np.maximum(up_down, 0.0)
    up = np.abs(up_bias + gain + r)
    down = np.abs(down_bias + gain - r)
    scale, half = (up + down) / 2, (up - down) / 2
    if np.ndim(scale) == 0:
        return float(scale), float(half)
    return scale, half


def pow_exponents(pow_gamma, pow_up_down, gain, r):
    """The power law's exponents up and down as aihwkit's ``PowStepRPUDevice::populate``
    draws them (src/rpucuda/rpu_powstep_device.cpp, lines 27-47, commit 4545f11):
    ``pow_gamma * |gain + up_bias + r|`` and ``pow_gamma * |gain + down_bias - r|``, the mean
    bias ``pow_up_down`` one-sided as :func:`step_scales` (``gain`` the pot's ``1 +
    pow_gamma_dtod xi``, ``r`` its ``pow_up_down_dtod xi``).

    Examples
    --------
    >>> pow_exponents(2.0, 0.25, 1.0, 0.0)
    (2.0, 1.5)
    """
    up_bias = np.minimum(pow_up_down, 0.0)
    down_bias = -np.maximum(pow_up_down, 0.0)
    up = pow_gamma * np.abs(up_bias + gain + r)
    down = pow_gamma * np.abs(down_bias + gain - r)
    if np.ndim(up) == 0:
        return float(up), float(down)
    return up, down


def law_gammas(spec) -> tuple[float, float]:
    """The nominal :attr:`Pots.gamma_up`, :attr:`Pots.gamma_down` of a :class:`mark1.specs.RackSpec`
    (none: 0, 0): the power law's exponents (:func:`pow_exponents`), else ``gamma_up``, ``gamma_down``.

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> law_gammas(RackSpec(law="power", pow_gamma=2.0, pow_up_down=-0.5))
    (1.0, 2.0)
    """
    if spec is None:
        return 0.0, 0.0
    if spec.law == "power":
        return pow_exponents(float(spec.pow_gamma), float(spec.pow_up_down), 1.0, 0.0)
    return float(spec.gamma_up), float(spec.gamma_down)


def reset_positions(spec, bias, w_max, w_min, stuck, shape, key) -> tuple[np.ndarray, np.ndarray]:
    """Where each pot of a rack of ``shape`` (n_units, n_inputs) lands when it is reset, and
    how far its wiper reads off that by write noise: two arrays of ``shape`` (full scale).

    aihwkit's ``PulsedRPUDevice::resetCols`` (src/rpucuda/rpu_pulsed_device.cpp, lines
    485-488, commit 4545f11): ``w = b + reset_std * xi``, cut to the pot's bounds, ``b`` the
    pot's reset value ``reset + reset_dtod * xi`` drawn once (``bias``, from ``g_zero``;
    line 716); then every write offset is drawn anew (``applyUpdateWriteNoise``, line 493).
    Here the cut is the end stops' (none without them), ``xi`` comes from the reset's stream
    of the device's noise (:func:`normal_draw`, count 0: one reset) and the write offset
    from its own; a stuck pot lands on its value without offset. ``w_max``, ``w_min``,
    ``stuck`` are the pots' (:class:`Pots`), of ``shape`` or one element; ``key`` the
    noise key (:attr:`Drive.noise_key`).

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> one = np.ones((1, 1))
    >>> start, err = reset_positions(RackSpec(reset=1.5), 1.5 * one, one, -one, np.zeros((1, 1), np.int8),
    ...                              (1, 2), np.uint64(0))
    >>> start.tolist(), err.tolist()            # cut at the end stop
    ([[1.0, 1.0]], [[0.0, 0.0]])
    """
    n = shape[0] * shape[1]

    def draws(stream):
        return np.array([normal_draw(key, stream, j, 0) for j in range(n)]).reshape(shape)
    w_max, w_min = np.broadcast_to(w_max, shape), np.broadcast_to(w_min, shape)
    stuck = np.broadcast_to(stuck, shape) != 0
    w = float(spec.g_zero) + np.broadcast_to(bias, shape)
    if spec.reset_std:
        w = w + spec.reset_std * draws(RESET)
    if spec.end_stops:
        w = np.minimum(np.maximum(w, w_min), w_max)
    target = w
    if spec.write_noise_std or spec.prog_noise_scale:            # a write (written, in numpy)
        zero = np.zeros(shape)
        target = written_reference(w, draws(RESET_WRITE) if spec.write_noise_std else zero,
                                   draws(RESET_PROGRAMMING) if spec.prog_noise_scale else zero,
                                   draws(RESET_PROGRAMMING + 1) if spec.prog_noise_scale else zero, w_min, w_max, spec)
    target = np.where(stuck, w_max, target)
    return np.array(target, float), np.where(stuck, 0.0, target - w)


def wiring(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:attr:`Pots.by_unit`, :attr:`Pots.input_of`, :attr:`Pots.by_input` and
    :attr:`Pots.unit_of` of a rack whose pots exist where ``mask`` (n_units, n_inputs) bool is true.

    Examples
    --------
    >>> import numpy as np
    >>> by_unit, input_of, by_input, unit_of = wiring(np.array([[True, False, True], [False, True, True]]))
    >>> by_unit.tolist(), input_of.tolist()
    ([0, 2, 4], [0, 2, 1, 2])
    >>> by_input.tolist(), unit_of.tolist()       # input 2 (the bias) has a pot on both units
    ([0, 1, 2, 4], [0, 1, 0, 1])
    """
    mask = np.asarray(mask, bool)
    by_unit, by_input = np.zeros(mask.shape[0] + 1, np.int64), np.zeros(mask.shape[1] + 1, np.int64)
    np.cumsum(mask.sum(axis=1), out=by_unit[1:])
    np.cumsum(mask.sum(axis=0), out=by_input[1:])
    return by_unit, np.nonzero(mask)[1].astype(np.int64), by_input, np.nonzero(mask.T)[1].astype(np.int64)


def adc_of(spec=None) -> np.ndarray:
    """:attr:`Pots.adc` of a :class:`mark1.specs.RackSpec`: [out_bound, out_res] (none: off)."""
    return np.array([math.inf, 0.0] if spec is None else [float(spec.out_bound), float(spec.out_res)])


def full_conductance(w_max, w_min, g_zero):
    """The full conductance ``G`` (full scale) the PCM noise measures a pot's conductance in: the
    larger of its nominal bounds' distances from its zero (aihwkit maps ``g_max`` to the largest
    weight; a pot's conductance is ``|w - g_zero| / G`` of one member of a pair).

    Examples
    --------
    >>> full_conductance(1.0, -1.0, 0.0), full_conductance(0.5, -0.5, -0.5)
    (1.0, 1.0)
    """
    return max(w_max - g_zero, g_zero - w_min)


def read_noise_of(spec=None) -> np.ndarray:
    """:attr:`Pots.read_noise` of a :class:`mark1.specs.RackSpec` (none, or no read noise: empty).

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> read_noise_of(RackSpec()).size, read_noise_of(RackSpec(read_noise_scale=1.0)).tolist()
    (0, [1.0, 2.5e-07, 20.0, 0.0, 1.0])
    """
    if spec is None or spec.read_noise_scale == 0:
        return np.zeros(0)
    return np.array([float(spec.read_noise_scale), float(spec.t_read), float(spec.drift_t0), float(spec.g_zero),
                     full_conductance(float(spec.w_max), float(spec.w_min), float(spec.g_zero))])


@compiled(inline="always")
def programming_sigma(g, drive):
    """Sigma of the programming noise (relative to the full conductance ``G``) of a member
    programmed to conductance ``g`` (relative): aihwkit's ``(c0 + c1 g + c2 g^2) g_max /
    g_max_reference`` (pcm.py, lines 108-114) over ``g_max``, times ``prog_noise_scale``."""
    return drive.prog_noise_scale * (drive.prog_coeff_0 + g * drive.prog_coeff_1 + g * g * drive.prog_coeff_2) \
        / drive.prog_coeff_g_max_reference


@compiled(inline="always")
def programming_offset(w, j, stream, n, drive):
    """How far pot ``j``'s wiper lands off ``w`` (its persistent position, full scale) by the
    programming noise of its ``n``-th write, from streams ``stream`` and ``stream + 1``.

    aihwkit's ``PCMLikeNoiseModel.apply_programming_noise_to_conductance`` (src/aihwkit/
    inference/noise/pcm.py, lines 101-118, commit 4545f11) on each member of the pair its
    ``SinglePairConductanceConverter`` programs (inference/converter/conductance.py, lines
    54-65): the member on the pot's side of ``g_zero`` holds ``g = |w - g_zero| / G``, the
    other 0; each becomes ``max(g + sigma(g) xi, 0)`` (:func:`programming_sigma`), and the
    wiper reads their difference. :func:`programming_reference` says the same in numpy.
    """
    g0 = drive.g_zero
    full = max(drive.w_max - g0, g0 - drive.w_min)
    g = (w - g0) / full
    up = max(g, 0.0)
    down = max(-g, 0.0)
    up_p = max(up + programming_sigma(up, drive) * normal_draw(drive.noise_key, stream, j, n), 0.0)
    down_p = max(down + programming_sigma(down, drive) * normal_draw(drive.noise_key, stream + 1, j, n), 0.0)
    return full * ((up_p - down_p) - g)


def programming_reference(w, xi_up, xi_down, spec):
    """:func:`programming_offset` in numpy: the programmed positions (full scale) of persistent
    positions ``w``, ``xi_up``, ``xi_down`` the pair's standard normal numbers (arrays alike).

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> float(programming_reference(np.array(0.5), np.array(0.0), np.array(-1.0), RackSpec(prog_noise_scale=1.0)))
    0.5
    """
    g0 = float(spec.g_zero)
    full = full_conductance(float(spec.w_max), float(spec.w_min), g0)
    g = (np.asarray(w, float) - g0) / full
    up, down = np.maximum(g, 0.0), np.maximum(-g, 0.0)

    def sigma(x):
        return float(spec.prog_noise_scale) * (spec.prog_coeff_0 + x * spec.prog_coeff_1 + x * x * spec.prog_coeff_2) \
            / spec.prog_coeff_g_max_reference
    up_p = np.maximum(up + sigma(up) * xi_up, 0.0)
    down_p = np.maximum(down + sigma(down) * xi_down, 0.0)
    return g0 + full * (up_p - down_p)


@compiled(inline="always")
def written(w, j, write_stream, prog_stream, n, w_min, w_max, drive):
    """Where pot ``j``'s wiper reads once a write leaves its persistent position at ``w`` (full
    scale): the one rule of every write (a move that fires a pulse, a diffusion step, the
    reset), its ``n``-th draw of streams ``write_stream`` and ``prog_stream``.

    The programming noise first (:func:`programming_offset`, cut at the end stops: a pot is
    one device), then the write noise, ``write_noise * xi``, added unclipped: aihwkit adds it
    to the bounded persistent weight and clips only that (``update_once``,
    src/rpucuda/rpu_expstep_device.cpp, lines 47-53, commit 4545f11; ``applyUpdateWriteNoise``,
    rpu_pulsed_device.cpp, lines 580-584), so a reading may pass an end stop by the noise.
    ``w_min``, ``w_max`` are the pot's bounds. :func:`written_reference` says the same in numpy.
    """
    target = w
    if drive.prog_noise_scale != 0.0:
        target = w + programming_offset(w, j, prog_stream, n, drive)
        if drive.end_stops != 0.0:
            target = min(max(target, w_min), w_max)
    if drive.write_noise != 0.0:
        target = target + drive.write_noise * normal_draw(drive.noise_key, write_stream, j, n)
    return target


def written_reference(w, xi_write, xi_up, xi_down, w_min, w_max, spec):
    """:func:`written` in numpy: the readings (full scale) of persistent positions ``w`` after a
    write, ``xi_write`` the write noise's standard normal numbers, ``xi_up``, ``xi_down`` the
    programming noise's (arrays alike; ``w_min``, ``w_max`` the pots' bounds).

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> spec = RackSpec(write_noise_std=10.0, step=0.01)       # sigma 0.1 full scale
    >>> float(written_reference(np.array(1.0), np.array(1.0), 0.0, 0.0, -1.0, 1.0, spec))   # past the stop
    1.1
    """
    w = np.asarray(w, float)
    target = w
    if spec.prog_noise_scale:
        target = target + programming_reference(w, xi_up, xi_down, spec) - w      # an offset, as the kernel adds it
        if spec.end_stops:
            target = np.minimum(np.maximum(target, w_min), w_max)
    if spec.write_noise_std:
        target = target + float(spec.write_noise_std) * float(spec.step) * np.asarray(xi_write, float)
    return target


@compiled(inline="always")
def read_noisy(w, j, p, t, pots):
    """Pot ``j``'s reading ``w`` (full scale) at ``t`` with its 1/f read noise, presentation
    ``p``'s draw (the read stream, keyed by pot and presentation).

    aihwkit's ``PCMLikeNoiseModel.apply_drift_noise_to_conductance`` (src/aihwkit/inference/
    noise/pcm.py, lines 138-158, commit 4545f11): the conductance ``g = |w - g_zero|`` reads
    ``max(g + g * read_noise_scale * sigma * xi, 0)``, ``sigma = q_s sqrt(ln((t' + t_read) /
    (2 t_read)))``, ``t' = dt + t0`` (``dt`` the seconds since the pot was last programmed, at
    its last move's end or diffusion step: its ``t_inference``), ``q_s`` from the programmed
    conductance ``|p_to - g_zero| / G`` (:data:`READ_Q`). The member on the pot's side carries
    it (the idle member's is left out). :func:`read_noise_array` says the same in numpy.
    """
    rn = pots.read_noise
    g0 = rn[3]
    g = abs(w - g0)
    prog = abs(pots.p_to[j] - g0) / rn[4]
    tt = max(t - pots.t_end[j], 0.0) + rn[2]
    q = min(READ_Q / max(prog ** READ_Q_EXP, READ_Q_FLOOR), READ_Q_MAX)
    sig = q * math.sqrt(math.log((tt + rn[1]) / (2.0 * rn[1])))
    a = max(g + g * rn[0] * sig * normal_draw(pots.read_key[0], READ, j, p), 0.0)
    return g0 + a if w >= g0 else g0 - a


def read_noise_array(w, programmed, dt, xi, read_noise):
    """:func:`read_noisy` in numpy: readings ``w`` (full scale) of pots programmed to
    ``programmed``, ``dt`` seconds since (each at least 0), ``xi`` standard normal numbers
    (arrays alike), ``read_noise`` a :attr:`Pots.read_noise`: a new array.

    Examples
    --------
    >>> rn = np.array([1.0, 2.5e-7, 20.0, 0.0, 1.0])
    >>> read_noise_array(np.array([0.5, -0.5]), np.array([0.5, -0.5]), np.zeros(2), np.zeros(2), rn).tolist()
    [0.5, -0.5]
    """
    scale, t_read, t0, g0, full = (float(v) for v in read_noise)
    w = np.asarray(w, float)
    g = np.abs(w - g0)
    prog = np.abs(np.asarray(programmed, float) - g0) / full
    q = np.minimum(READ_Q / np.maximum(prog ** READ_Q_EXP, READ_Q_FLOOR), READ_Q_MAX)
    sig = q * np.sqrt(np.log((np.maximum(dt, 0.0) + t0 + t_read) / (2.0 * t_read)))
    a = np.maximum(g + g * scale * sig * xi, 0.0)
    return np.where(w >= g0, g0 + a, g0 - a)


def read_out_array(sums: np.ndarray, adc: np.ndarray) -> np.ndarray:
    """:func:`read_out` of an array of sums, elementwise, the same arithmetic: a new array.

    Examples
    --------
    >>> read_out_array(np.array([0.26, -3.0]), np.array([1.0, 0.1])).tolist()
    [0.30000000000000004, -1.0]
    """
    bound, res = float(adc[0]), float(adc[1])
    out = np.array(sums, dtype=float)
    if bound != math.inf:
        out = np.minimum(np.maximum(out, -bound), bound)
    if res != 0.0:
        step = res * bound
        out = np.rint(out / step) * step
    return out


#: The rack's fields of the device non-idealities (``param(device=True)``) and their off values:
#: while any is on, :func:`plan_device` plans the moves.
_DEVICE_FIELDS = tuple((f.name, f.metadata["off"]) for f in dataclasses.fields(RackSpec) if f.metadata["device"])


def drive_of(spec) -> Any:
    """The drive's constants of a :class:`mark1.specs.RackSpec`: a :class:`Drive`.

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> drive_of(RackSpec()).motor_speed
    0.25
    """
    device = any(getattr(spec, name) != off for name, off in _DEVICE_FIELDS)
    made: dict[str, Any] = dict(continuous=float(spec.drive == "continuous"), device=float(device),
                                law=LAW_CODES[spec.law], write_noise=float(spec.write_noise_std) * float(spec.step),
                                mult_noise=float(spec.mult_noise),
                                noise_key=np.uint64(0))
    # the other fields whose param(kernel=...) names Drive.<their own name>, as they are (a table as an array)
    for name in copied_fields(type(spec), "Drive"):
        value = getattr(spec, name)
        if name not in made:
            made[name] = np.asarray(value, float) if isinstance(value, tuple) else float(value)
    return Drive(**made)


def move_duration(spec, travel: float, gain: float = 1.0) -> float:
    """Seconds a motor takes to turn a pot ``travel`` full scale from the centre, no backlash to take up.

    The machine's own law (:func:`plan_pot`): a ratchet gives ``rint(travel / step)`` steps.

    Parameters
    ----------
    spec : RackSpec
    travel : float
        Commanded travel (full scale).
    gain : float
        The motor's speed relative to nominal.

    Returns
    -------
    float
        Seconds (0 for an instant drive).

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> move_duration(RackSpec(), 0.02)               # 0.02 full scale at 0.25 full scale per second
    0.08
    >>> round(move_duration(RackSpec(drive="ratchet"), 0.024), 6)   # 2 steps of 0.04 s, not 3
    0.08
    """
    one = one_pot(gain, 1 if travel > 0 else -1, spec)
    return float(plan_pot(float(travel), 0.0, 0, one, drive_of(spec))[2])


@compiled(inline="always")
def stored_pot(j, t, busy_until, pots):
    """Stored position (before decay) of pot ``j`` (flat index) at machine time ``t``.

    Where no wiper moves any more (``t >= busy_until``) the end of the last move; else
    linear between ``p_from`` and ``p_to`` over the wiper's motion, which a move without
    span (a ratchet step) makes at its end. With drift (``pots.nu``), a wiper at rest
    reads its position times :func:`drift_factor`.
    """
    if t >= busy_until:
        if pots.nu.shape[0] == 0:
            return pots.p_to[j]
        return drifted(pots.p_to[j], j, t, pots)
    span = pots.t_end[j] - pots.t_start[j]
    if span > 0.0:
        frac = (t - pots.t_start[j]) / span
    else:
        frac = 1.0 if t >= pots.t_end[j] else 0.0
    frac = min(max(frac, 0.0), 1.0)
    if pots.nu.shape[0] != 0 and frac == 1.0:
        return drifted(pots.p_to[j], j, t, pots)
    return pots.p_from[j] + (pots.p_to[j] - pots.p_from[j]) * frac


@compiled(inline="always")
def drift_factor(j, t, pots):
    """How much of its programmed distance from the drift's zero pot ``j`` keeps at ``t``:
    ``max(dt / t0, 1) ** -nu``, ``dt = t - t_end[j]`` the machine seconds since its last
    move ended (1 before). aihwkit's ``WeightDrifter::apply`` (src/rpucuda/weight_drifter.cpp,
    lines 144-145, commit 4545f11): ``delta_t = MAX(t - t_reset, 1)`` in units of ``t0``,
    ``nu_scale = delta_t ** -nu``."""
    dt = t - pots.t_end[j]
    if dt <= pots.drift[0]:
        return 1.0
    return (dt / pots.drift[0]) ** -_at(pots.nu, j)


@compiled(inline="always")
def drifted(p, j, t, pots):
    """Pot ``j``'s reading at ``t`` of a programmed position ``p``: ``zero + (p - zero) *``
    :func:`drift_factor`, ``zero = pots.drift[1]``. aihwkit's ``w0 * nu_scale + a (nu_scale
    - 1)`` (weight_drifter.cpp, lines 146-147), with ``zero = -a``: every conductance
    shrinks toward 0."""
    zero = pots.drift[1]
    return zero + (p - zero) * drift_factor(j, t, pots)


@compiled(inline="always")
def diffuse_pot(j, p, t, busy_until, f, pots, drive):
    """Presentation ``p``'s diffusion of pot ``j`` at ``t`` (s), ``f`` the decay factor there.

    The pot's persistent position (its wiper less its write offset, true full scale) takes a
    step ``rate * xi`` (``xi`` from the diffusion stream, keyed by pot and presentation), cut
    to its bounds with end stops (:func:`diffuse_reference`); then it is written
    (:func:`written`): with write noise the wiper reads off it by a fresh, unclipped
    ``write_noise * xi`` (aihwkit redraws every write offset after diffusing,
    ``applyUpdateWriteNoise``). A moving pot's whole move shifts with it. A pot at rest is
    programmed anew, so the clock its drift and its 1/f read noise count from starts again at
    ``t``: a drifting pot drifts again from its diffused reading (aihwkit's ``WeightDrifter``
    restarts the clock of a weight that changed), and the read noise's spread starts again
    from that of a fresh programming (aihwkit's 1/f noise counts from the programming that
    drew its programming error: ``InferenceTileWithPeriphery.program_weights`` and
    ``drift_weights``, src/aihwkit/simulator/tiles/inference.py, lines 162-229). A stuck pot
    stays.
    """
    rate = _at(pots.diffusion, j)
    if rate == 0.0 or _at(pots.stuck, j) != 0:
        return
    p_from, p_to, werr = pots.p_from, pots.p_to, pots.werr
    w_max = _at(pots.w_max, j)
    w_min = _at(pots.w_min, j)
    clip = drive.end_stops != 0.0
    noisy = werr.shape[0] > 0
    err = f * werr[j] if noisy else 0.0
    # a pot at rest is programmed anew by the step: the clock its drift and 1/f read noise count
    # from starts again (the drift from the diffused reading)
    clocked = pots.nu.shape[0] != 0 or pots.read_noise.shape[0] != 0
    restart = clocked and (t >= busy_until or t >= pots.t_end[j])
    before = f * (drifted(p_to[j], j, t, pots) if restart and pots.nu.shape[0] != 0 else p_to[j]) - err
    after = before + rate * normal_draw(drive.noise_key, DIFFUSION, j, p)
    if clip:
        after = min(max(after, w_min), w_max)
    target = after
    if noisy:
        target = written(after, j, DIFFUSION_WRITE, DIFFUSION_PROGRAMMING, p, w_min, w_max, drive)
        werr[j] = (target - after) / f
    if restart:
        p_from[j] = target / f
        t_start, t_end = pots.t_start, pots.t_end
        t_start[j] = t
        t_end[j] = t
    else:
        moved = f * p_from[j] + (after - before)
        if clip:
            moved = min(max(moved, w_min), w_max)
        p_from[j] = moved / f
    p_to[j] = target / f


@compiled(refcounts=False)
def diffuse_pots(p, t, busy_until, f, pots, drive):
    """Presentation ``p``'s diffusion of every pot that exists (:func:`diffuse_pot`), at ``t``
    (s), ``f`` the decay factor there: aihwkit's ``PulsedRPUDevice::diffuseWeights``, which
    its tile runs once a mini-batch after the update (``post_update_step``). The machine's
    mini-batch is one presentation: the trainer reads one card and acts on it before the
    next. Nothing without diffusion (``pots.diffusion`` empty).

    Examples
    --------
    >>> from mark1.machine.potentiometers import PotentiometerRack
    >>> from mark1.specs import RackSpec
    >>> rack = PotentiometerRack(RackSpec(diffusion=0.01), 1, 3, 1)
    >>> diffuse_pots(0, 0.0, rack.busy_until, 1.0, rack.pots, rack.drive_constants)
    >>> rack.positions(0.0).round(4)           # presentation 0's step of each pot, sigma 0.01
    array([[0.0105, 0.0106, 0.0059]])
    """
    if DEVICE and pots.diffusion.shape[0] != 0:
        n_in = pots.by_input.shape[0] - 1
        by_unit, input_of = pots.by_unit, pots.input_of
        for u in range(by_unit.shape[0] - 1):
            for q in range(by_unit[u], by_unit[u + 1]):
                diffuse_pot(u * n_in + input_of[q], p, t, busy_until, f, pots, drive)


def diffuse_reference(w, rate, xi, w_min, w_max, clip):
    """:func:`diffuse_pot`'s step of a persistent position ``w`` in plain Python: ``w + rate *
    xi``, cut to ``[w_min, w_max]`` where ``clip`` (aihwkit's ``diffuseWeights``,
    src/rpucuda/rpu_pulsed_device.cpp, lines 441-443, commit 4545f11; its rate drawn in
    ``populate``, line 709: ``|diffusion (1 + diffusion_dtod xi)|``).

    Examples
    --------
    >>> diffuse_reference(0.95, 0.1, 1.0, -1.0, 1.0, True)
    1.0
    """
    w = w + rate * xi
    if clip:
        w = min(max(w, w_min), w_max)
    return w


@compiled
def stored_at(flat, t, busy_until, pots, out):
    """Stored positions of pots ``flat`` (m,) at ``t`` into ``out`` (m,)."""
    for k in range(len(flat)):
        out[k] = stored_pot(flat[k], t, busy_until, pots)


@compiled(features, refcounts=False)
def wiper_sums(x, row, t, busy_until, pots, active, out, p):
    """Each unit's sum of stored wiper positions at ``t`` times row ``row`` of ``x`` (m, n_in),
    into ``out`` (n_units,), before decay; the nonzero inputs' indices into ``active``;
    returns how many. The products are added in input order over the nonzero inputs and
    the pots that exist on them (:attr:`Pots.by_input`), the units side by side, as
    :func:`mark1.machine._kernels.textbook.sparse_sums` adds weights. Where every wiper is
    at rest and none drifts, a wiper's stored position is its ``p_to``. With read noise
    each position read is presentation ``p``'s (:func:`read_noisy`).
    """
    n_in = x.shape[1]
    n_act = nonzero_features(x, row, active)
    out[:] = 0.0
    by_input, unit_of, p_to = pots.by_input, pots.unit_of, pots.p_to
    resting = t >= busy_until and pots.nu.shape[0] == 0
    noisy = DEVICE and pots.read_noise.shape[0] != 0
    for a in range(n_act):
        i = active[a]
        v = x[row, i]
        for q in range(by_input[i], by_input[i + 1]):
            j = unit_of[q] * n_in + i
            w = p_to[j] if resting else stored_pot(j, t, busy_until, pots)
            if noisy:
                w = read_noisy(w, j, p, t, pots)
            out[unit_of[q]] += v * w
    return n_act


# plan_pot's dispatch and apply_pot are inlined where pots are set going, in kernels
# compiled without reference counts (compiled(refcounts=False)), as are the laws they call:
# a count of each of the records' arrays in and out cost ~0.1-0.4 us a pot.
@compiled(inline="always")
def plan_pot(cmd, start, j, pots, drive):
    """What the hardware does with pot ``j``'s command: (target, slack_time, duration, direction).

    ``cmd`` commanded travel (full scale, signed), ``start`` the wiper's true position,
    ``j`` the pot's flat index into ``pots`` (:class:`Pots`: its motor's relative speed, the
    direction of its last move), ``drive`` the rack's :class:`Drive`. Every law of one pot
    reads what it needs from these two records, so a new law changes no caller: the Mark I's
    own (:func:`plan_mark_i`), or a device's (:func:`plan_device`); :func:`apply_pot` keeps
    the move.
    Times in seconds from the command; ``direction`` -1, 0 or +1.
    """
    if DEVICE and drive.device != 0.0:
        return plan_device(cmd, start, j, pots, drive)
    return plan_mark_i(cmd, start, j, pots, drive)


@compiled(inline="always")
def pulse_of(cmd, direction, gain, drive):
    """One pulse of a command ``cmd`` (full scale) turning a motor of relative speed ``gain``
    in ``direction`` (+1 or -1): ``(size, pulse_time, rate)``.

    ``size`` its nominal travel (full scale), ``pulse_time`` how long it runs (s), ``rate``
    the wiper's speed meanwhile (full scale per s; ``inf``: instant). A continuous drive's
    command is one pulse of ``|cmd| / motor_speed`` seconds turning ``gain * |cmd|``; a
    ratchet's are steps of ``step``, ``step_time`` each. Both plans (:func:`plan_mark_i`,
    :func:`plan_device`) time their moves by it; scalars out, so it inlines at no cost.
    """
    if drive.continuous != 0.0:
        speed = drive.motor_speed
        if math.isinf(speed):
            return gain * abs(cmd), 0.0, math.inf
        return gain * abs(cmd), abs(cmd) / speed, speed * gain
    if drive.step_time == 0:
        return drive.step, 0.0, math.inf
    return drive.step, drive.step_time, drive.step / drive.step_time


@compiled(refcounts=False)
def plan_mark_i(cmd, start, j, pots, drive):
    """:func:`plan_pot` of the Mark I's pots: a motor at its own speed (continuous) or a
    ratchet's steps, backlash taken up when the motor reverses, end stops at +-1."""
    planned = pots.planned
    gain = pots.gain[j]
    last = pots.last_dir[j]
    direction = 1 if cmd > 0 else (-1 if cmd < 0 else 0)
    size, _, rate = pulse_of(cmd, direction, gain, drive)
    instant = math.isinf(rate)
    travel = size if drive.continuous != 0.0 else np.rint(abs(cmd) / drive.step) * size
    slack = 0.0
    if drive.backlash != 0.0 and last != 0 and last != direction:
        slack = min(drive.backlash, travel)
    if drive.continuous == 0.0 and not travel > 0:
        direction = 0          # a ratchet command below half a step turns nothing
    target = start + direction * (travel - slack)
    if drive.end_stops != 0.0:
        target = min(max(target, -1.0), 1.0)
    # a pot already against its stop in the driven direction does not move at all
    travelled = slack + abs(target - start)
    if drive.continuous != 0.0:
        count = 1 if direction != 0 else 0
    else:                                      # the steps fired before the limit switch cut the relay
        count = int(min(np.rint(abs(cmd) / drive.step), math.ceil(travelled / drive.step * (1.0 - 1e-12))))
    planned[j] = count
    slack_time, duration = 0.0, 0.0
    if not instant:
        slack_time, duration = slack / rate, travelled / rate
    return target, slack_time, duration, direction


@compiled(inline="always")
def read_out(s, adc):
    """The R-unit's read of one sum ``s``: saturated at ``+-adc[0]`` (``rack.out_bound``),
    then rounded to the nearest of the levels ``adc[1] * adc[0]`` apart (``rack.out_res``),
    aihwkit's output bound and ADC resolution. Off (inf, 0): ``s`` itself, bit for bit."""
    if adc[0] != math.inf:
        s = min(max(s, -adc[0]), adc[0])
    if adc[1] != 0.0:
        step = adc[1] * adc[0]
        s = np.rint(s / step) * step
    return s


@compiled(inline="always")
def _at(values, j):
    """Pot ``j``'s value of a per-pot array, or the one value every pot shares."""
    return values[j] if values.shape[0] > 1 else values[0]


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@compiled(inline="always")
def _mix(z):
    """SplitMix64's finalizer (Steele, Lea and Flood 2014): a bijection of 64-bit words."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@compiled(inline="always")
def normal_draw(key, stream, j, n):
    """A standard normal number that depends only on (``key``, ``stream``, pot ``j``, count ``n``).

    Counter-based: a hash of the four (SplitMix64's finalizer, chained) gives two uniform
    numbers in (0, 1), Box and Muller's transform a normal one. No state is kept, so a
    pot's ``n``-th pulse draws the same number whichever path (the rack, the compiled
    loop) and whatever order the pots move in, and no other stream of the machine is
    touched.

    Examples
    --------
    >>> import numpy as np
    >>> normal_draw(np.uint64(7), 0, 3, 5) == normal_draw(np.uint64(7), 0, 3, 5)
    True
    """
    h = _mix(np.uint64(key) ^ _mix(np.uint64(stream) * _GOLDEN + np.uint64(1)))
    h = _mix(h ^ _mix(np.uint64(j) + _GOLDEN))
    h = _mix(h ^ _mix(np.uint64(n) * _GOLDEN + np.uint64(2)))
    u1 = (float(h >> np.uint64(11)) + 0.5) * 2.0 ** -53
    u2 = (float(_mix(h ^ _GOLDEN) >> np.uint64(11)) + 0.5) * 2.0 ** -53
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@compiled(refcounts=False)
def law_factor(law, w, direction, w_max, w_min, g_up, g_down, drive):
    """The step law: one pulse's travel relative to its nominal step at wiper position ``w``.

    ``direction`` +1 (up) or -1 (down); ``w_max``, ``w_min`` the pot's bounds; ``g_up``,
    ``g_down`` the pot's own law parameters (:attr:`Pots.gamma_up`, :attr:`Pots.gamma_down`);
    ``drive`` the :class:`Drive` with the law's code and parameters (aihwkit's names, full
    scale). :func:`law_factor_reference` says the same in plain Python, with aihwkit's
    file and line for each law:

    * constant (0): 1;
    * linear (1): ``1 - g_up * w / w_max`` up, ``1 - g_down * w / w_min`` down, the
      slopes relative to the nominal bounds (aihwkit's ``LinearStepDevice`` with
      ``mean_bound_reference``);
    * soft-bounds (2): ``1 - w / w_max`` up, ``1 - w / w_min`` down, the pot's own bounds;
    * exponential (3): ``1 - A_up exp(gamma_up z)`` up, ``1 - A_down exp(-gamma_down z)``
      down, ``z = 2 a w / (w_max - w_min) + b`` (aihwkit's ``ExpStepDevice``);
    * power (4): ``omega ** g_up`` up, ``(1 - omega) ** g_down`` down, ``omega = (w_max -
      w) / (w_max - w_min)``, the exponents as aihwkit's ``PowStepDevice`` draws them
      (:func:`pow_exponents`);
    * piecewise (5): ``piecewise_up`` or ``piecewise_down`` interpolated linearly between
      nodes evenly spaced from ``w_min`` to ``w_max`` (aihwkit's ``PiecewiseStepDevice``).

    In the linear, soft-bounds and exponential laws ``w`` and the bounds are measured from
    ``drive.g_zero``, the device's zero (aihwkit's weight 0). Never below 0 (a step does not
    turn back; aihwkit's ``max(y, 0)``).
    """
    if law == 0:
        return 1.0
    g0 = drive.g_zero
    if law == 1:
        y = (1.0 - g_up * (w - g0) / (drive.w_max - g0) if direction > 0
             else 1.0 - g_down * (w - g0) / (drive.w_min - g0))
    elif law == 2:
        y = 1.0 - (w - g0) / (w_max - g0) if direction > 0 else 1.0 - (w - g0) / (w_min - g0)
    elif law == 3:
        z = 2.0 * drive.exp_a * (w - g0) / (w_max - w_min) + drive.exp_b
        if direction > 0:
            y = 1.0 - drive.A_up * math.exp(drive.gamma_up * z)
        else:
            y = 1.0 - drive.A_down * math.exp(-drive.gamma_down * z)
    elif law == 4:
        omega = min(max((w_max - w) / (w_max - w_min), 0.0), 1.0)
        y = omega ** g_up if direction > 0 else (1.0 - omega) ** g_down
    else:
        table = drive.piecewise_up if direction > 0 else drive.piecewise_down
        k = table.shape[0]
        if k == 1:
            y = table[0]
        else:
            x = min(max((w - w_min) / (w_max - w_min), 0.0), 1.0) * (k - 1)
            i = min(int(x), k - 2)
            q = x - i
            y = (1.0 - q) * table[i] + q * table[i + 1]
    return max(y, 0.0)


def law_factor_reference(law, w, direction, w_max, w_min, g_up, g_down, drive):
    """:func:`law_factor` in plain Python, each law as aihwkit writes it (commit 4545f11; the
    tests drive every law and preset through both, ``tests/test_aihwkit_rules.py``).

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> drive = drive_of(RackSpec(law="soft-bounds"))
    >>> law_factor_reference(2, 0.5, 1, 1.0, -1.0, 0.0, 0.0, drive)
    0.5
    """
    if law == 0:                 # ConstantStep: rpu_constantstep_device.cpp, w += scale_up
        return 1.0
    x = w - drive.g_zero         # aihwkit's weight: measured from the device's zero
    if law == 1:                 # LinearStep: rpu_linearstep_device.cpp 63-68 (slope), 127-129 (step)
        y = (1.0 - g_up * x / (drive.w_max - drive.g_zero) if direction > 0
             else 1.0 - g_down * x / (drive.w_min - drive.g_zero))
    elif law == 2:               # SoftBounds: LinearStep, gamma 1, slopes to the pot's own bounds (55-58)
        y = 1.0 - x / (w_max - drive.g_zero) if direction > 0 else 1.0 - x / (w_min - drive.g_zero)
    elif law == 3:               # ExpStep: rpu_expstep_device.cpp 36-44
        z = 2.0 * x / (w_max - w_min) * drive.exp_a + drive.exp_b
        y = (1.0 - drive.A_up * math.exp(drive.gamma_up * z) if direction > 0
             else 1.0 - drive.A_down * math.exp(drive.gamma_down * -z))
    elif law == 4:               # PowStep: rpu_powstep_device.cpp 102-111
        r = w_max - w_min
        y = ((w_max - w) / r) ** g_up if direction > 0 else ((w - w_min) / r) ** g_down
    else:                        # PiecewiseStep: rpu_piecewisestep_device.cpp, linear between nodes
        table = list(drive.piecewise_up if direction > 0 else drive.piecewise_down)
        if len(table) == 1:
            y = table[0]
        else:
            x = min(max((w - w_min) / (w_max - w_min), 0.0), 1.0) * (len(table) - 1)
            i = min(int(x), len(table) - 2)
            y = table[i] + (x - i) * (table[i + 1] - table[i])
    return max(y, 0.0)


@compiled(inline="always")
def noisy_step(size, factor, j, n, drive):
    """The travel of pot ``j``'s ``n``-th pulse of nominal ``size`` where the law gives ``factor``:
    ``size * factor`` times ``1 + dw_min_std * xi`` (aihwkit's ``update_once_mult``,
    rpu_linearstep_device.cpp, lines 126-130) or, without ``mult_noise``, ``size * (factor +
    dw_min_std * xi)`` (``update_once_add``, lines 153-157)."""
    if drive.dw_min_std == 0.0:
        return size * factor
    xi = normal_draw(drive.noise_key, STEP_NOISE, j, n)
    if drive.mult_noise != 0.0:
        return size * factor * (1.0 + drive.dw_min_std * xi)
    return size * (factor + drive.dw_min_std * xi)


@compiled(refcounts=False)
def plan_device(cmd, start, j, pots, drive):
    """:func:`plan_pot` of a pot with a device law or variation (``drive.device``).

    A command is a train of pulses: a ratchet's ``rint(|cmd| / step)`` steps, one every
    ``step_time``; the continuous drive's command is one pulse of ``|cmd| / motor_speed``
    seconds whose nominal travel is ``gain * |cmd|``. Each pulse turns the gears by its
    nominal travel times ``step_scale +- up_down`` (the pot's own); backlash takes up the
    first of it; the rest turns the wiper by that much times :func:`law_factor` at the
    wiper's persistent position, times ``1 + dw_min_std * xi`` (xi from the pot's step
    noise stream, counted by its pulses). End stops at the pot's bounds cut the persistent
    position (the move's duration shows it, as in the Mark I's plan). A move that fires a
    pulse is a write (:func:`written`): the wiper reads off its persistent position by the
    write noise, ``write_noise * xi`` (a stream of its own), drawn anew and not clipped
    (aihwkit's ``write_noise_std``, drawn at each pulse that touches the device, the last
    draw standing); a command that fires none (its pot against its stop) writes nothing and
    leaves the reading as it was. A stuck pot never moves; its
    pulses still fire and take their time. Writes ``pots.planned[j]`` and
    ``pots.next_err[j]`` for :func:`apply_pot`. With ``rack.mult_noise`` off the pulse's
    noise is added to the law's factor rather than multiplying it (aihwkit's ``mult_noise
    = False``).
    """
    direction = 1 if cmd > 0 else (-1 if cmd < 0 else 0)
    planned = pots.planned
    planned[j] = 0
    if direction == 0:
        return start, 0.0, 0.0, 0
    size, pulse_time, _ = pulse_of(cmd, direction, pots.gain[j], drive)
    n = 1 if drive.continuous != 0.0 else int(np.rint(abs(cmd) / drive.step))
    if n == 0:                          # a ratchet command below half a step turns nothing
        return start, 0.0, 0.0, 0
    planned[j] = n
    if _at(pots.stuck, j) != 0:        # its bounds are its stuck value (aihwkit: w clipped into them)
        return _at(pots.w_max, j), 0.0, n * pulse_time, 0
    d = float(direction)
    gear = size * max(_at(pots.step_scale, j) + d * _at(pots.up_down, j), 0.0)
    w_max = _at(pots.w_max, j)
    w_min = _at(pots.w_min, j)
    g_up = _at(pots.gamma_up, j)
    g_down = _at(pots.gamma_down, j)
    noisy = pots.werr.shape[0] > 0
    w = start - pots.werr[j] if noisy else start
    slack = 0.0
    last = pots.last_dir[j]
    if drive.backlash != 0.0 and last != 0 and last != direction:
        slack = drive.backlash
    count = pots.pulses[j]
    slack_time = 0.0
    duration = 0.0
    fired = 0
    for i in range(n):
        take = min(slack, gear)
        slack -= take
        fired += 1
        if gear <= 0.0:                 # a pot without response: the pulse turns nothing
            duration += pulse_time
            continue
        if take > 0.0:
            slack_time += take / gear * pulse_time
        step = noisy_step(gear - take, law_factor(drive.law, w, d, w_max, w_min, g_up, g_down, drive), j,
                          count + i, drive)
        new = w + d * step
        if drive.end_stops != 0.0 and (new > w_max or new < w_min):
            stop = min(max(new, w_min), w_max)
            used = abs(stop - w) / abs(new - w) if new != w else 0.0   # no step: a wiper beyond its bound
            duration += take / gear * pulse_time + used * (gear - take) / gear * pulse_time
            w = stop
            if take == 0.0 and used == 0.0:
                fired -= 1              # against its stop: the limit switch keeps the relay off
            break
        w = new
        duration += pulse_time
    planned[j] = fired
    if not noisy:
        return w, slack_time, duration, direction
    if fired == 0:                      # no pulse reached the device: nothing written, its reading stays
        return start, slack_time, duration, direction
    target = written(w, j, WRITE_NOISE, PROGRAMMING, count, w_min, w_max, drive)
    next_err = pots.next_err
    next_err[j] = target - w
    return target, slack_time, duration, direction


@compiled(refcounts=False)
def plan_moves(cmd, start, flat, pots, drive, target, slack_time, duration, direction):
    """:func:`plan_pot` of pots ``flat`` (m,) commanded ``cmd`` (m,) from true positions
    ``start`` (m,), into ``target``, ``slack_time``, ``duration``, ``direction`` (m,)."""
    for k in range(len(cmd)):
        j = flat[k]
        target[k], slack_time[k], duration[k], direction[k] = plan_pot(cmd[k], start[k], j, pots, drive)


@compiled(inline="always")
def apply_pot(j, start, target, slack_time, duration, direction, t0, f, pots):
    """Set pot ``j`` (flat index) moving at ``t0``; positions true at ``t0``, ``f`` the decay factor there.

    Adds the move's duration and pulses to the pot's counters (``motor_seconds``, ``pulses``);
    a device's pot keeps the write noise's offset of its wiper from its state (drawn by
    :func:`plan_device`), stored like ``p_to``, where a pulse fired (a write). With drift or
    read noise a command that fires no pulse leaves the pot alone (its drift goes on; its 1/f
    noise counts from its last programming).
    """
    if (pots.nu.shape[0] != 0 or pots.read_noise.shape[0] != 0) and pots.planned[j] == 0:
        return
    p_from, p_to, t_start, t_end, last_dir = pots.p_from, pots.p_to, pots.t_start, pots.t_end, pots.last_dir
    p_from[j] = start / f
    p_to[j] = target / f
    t_start[j] = t0 + slack_time
    t_end[j] = t0 + duration
    if direction != 0:                      # a ratchet command too small to step keeps the gears' side
        last_dir[j] = direction
        if pots.werr.shape[0] > 0 and pots.planned[j] != 0:     # a write: a pulse reached the device
            werr = pots.werr
            werr[j] = pots.next_err[j] / f
    seconds, pulses = pots.motor_seconds, pots.pulses
    seconds[j] += duration                  # energy's counters: running time and pulses
    pulses[j] += pots.planned[j]


@compiled(refcounts=False)
def apply_moves(flat, start, target, slack_time, duration, direction, t0, f, pots, busy_until):
    """:func:`apply_pot` of pots ``flat`` (m,) at ``t0``; returns the new ``busy_until``."""
    longest = -1.0
    for k in range(len(flat)):
        apply_pot(flat[k], start[k], target[k], slack_time[k], duration[k], direction[k], t0, f, pots)
        longest = max(longest, duration[k])
    if len(flat):
        busy_until = max(busy_until, t0 + longest)
    return busy_until


@compiled(refcounts=False)
def replay_pulses(directions, start, size, pots, drive, out):
    """Pot 0 of ``pots`` driven one pulse at a time, each of nominal ``size`` (full scale) in
    ``directions`` (m,) +-1, from ``start``: its position before and after each pulse into
    ``out`` (m + 1,). Each pulse is a command of its own, planned by :func:`plan_pot` (the
    machine's law, end stops and backlash; the gears' side follows each pulse), the device's
    noise as ``drive`` has it (the bench fits switch it off). No time passes, nothing drifts."""
    w = start
    out[0] = w
    last_dir = pots.last_dir
    for k in range(directions.shape[0]):
        target, _, _, direction = plan_pot(directions[k] * size, w, 0, pots, drive)
        if direction != 0:
            last_dir[0] = direction
        w = target
        out[k + 1] = w
