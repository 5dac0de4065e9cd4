"""The camera, the lamps and the 20×20 retina of cadmium-sulphide photocells.

A card (reflectance image, any resolution) is imaged onto the photocell grid: each
cell sees the area average of the card over its footprint, blurred by the lens and
dimmed towards the corners by uneven lighting. Each cell is a CdS photocell:

* steady state: conductance grows as ``u ** gamma`` with ``u`` the illuminance relative
  to paper white under nominal lamps, scaled by the cell's own sensitivity
  (log-normal cell-to-cell spread, seeded);
* dynamics: two components of the response, both rising with ``rise_time`` after the
  lamps come on; in the dark the fast one falls with ``fall_time``, the slow one with
  ``slow_fall_time`` (trapped carriers);
* light history: a light-adapted cell reads a higher resistance than a dark-adapted
  one. An adaptation state ``h`` (0 dark-adapted, 1 fully adapted to paper white)
  follows the light with ``history_time``; the cell's conductance is divided by
  ``1 + (history_ratio - 1) * h``.

Modelling choice (assumed): the time constant of each interval is chosen by the
direction of the *light* step that starts it (lamps on: rise; lamps off: fall), as
datasheets define rise and fall times, not by the state. Every card is lit from the
dark (the lamps are off while the card changes), so all coefficients of the
recurrence are per-card scalars and a whole schedule is computed in one compiled pass
over the cards, cell by cell, of the recurrence itself. The adaptation factor is taken at
lamps-on for the whole lit interval (``history_time`` ≫ ``rise_time``).

The hot loops (imaging, the power law, the exposure) are numba kernels compiled on
first use and cached on disk; each card is imaged on its own, in the same operations
whatever the batch, so the light of a card does not depend on the chunk it came in.

An S-unit fires when its photocell's signal is on the figure side of the threshold:
with polarity ``"figure"`` a cell fires when it reads darker than ``threshold`` of
paper-white light (the signal a nominal, dark-adapted cell gives at that light).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numba
import numpy as np
from numba.extending import overload

from mark1._utils.compiled import compiled
from mark1.specs import RetinaSpec
from mark1.exceptions import InputError

__all__ = ["Retina", "RetinaState", "area_average_matrix"]



def area_average_matrix(n_in: int, n_out: int) -> np.ndarray:
    """Matrix of shape (n_out, n_in) averaging n_in pixels onto n_out cells by overlap.

    Row ``r`` holds the fraction of each input pixel inside cell ``r``'s footprint
    ``[r * n_in / n_out, (r + 1) * n_in / n_out)``, divided by the footprint length, so
    every row sums to 1.

    Examples
    --------
    >>> area_average_matrix(4, 2)         # four pixels onto two cells
    array([[0.5, 0.5, 0. , 0. ],
           [0. , 0. , 0.5, 0.5]])
    """
    edges = np.arange(n_out + 1) * (n_in / n_out)
    lo = np.arange(n_in)[None, :]
    overlap = np.clip(np.minimum(lo + 1, edges[1:, None]) - np.maximum(lo, edges[:-1, None]), 0, None)
    return overlap / (n_in / n_out)


def _blur_matrix(n: int, sigma: float) -> np.ndarray:
    """(n, n) Gaussian blur with reflecting edges (rows sum to 1); identity for sigma 0."""
    if sigma <= 0:
        return np.eye(n)
    radius = int(np.ceil(4 * sigma))
    offsets = np.arange(-radius, radius + 1)
    kernel = np.exp(-0.5 * (offsets / sigma) ** 2)
    kernel /= kernel.sum()
    m = np.zeros((n, n))
    for off, k in zip(offsets, kernel):
        j = np.arange(n) + off
        j = np.where(j < 0, -j - 1, j)            # reflect at the edges
        j = np.where(j >= n, 2 * n - j - 1, j)
        j = np.clip(j, 0, n - 1)
        np.add.at(m, (np.arange(n), j), k)
    return m


def _band(m: np.ndarray) -> np.ndarray:
    """(len(m), 2) int64: the first and one past the last nonzero column of each row of m."""
    nz = m != 0
    lo = np.where(nz.any(axis=1), nz.argmax(axis=1), 0)
    hi = np.where(nz.any(axis=1), m.shape[1] - nz[:, ::-1].argmax(axis=1), 0)
    return np.stack([lo, hi], axis=1).astype(np.int64)


#: Reflectance of each 8-bit level: ``k / 255`` rounded, the very value of a float deck
#: made as ``cards / 255`` (so both give the same bits).
_LEVELS = np.arange(256) / 255.0


def _reflectance(value, levels):
    """Reflectance of one pixel: a float as it is, a uint8 level through ``levels``.

    In compiled kernels :func:`_reflectance_typed` supplies the code for the pixel's
    type; this body runs only without numba's compiler (``NUMBA_DISABLE_JIT=1``).
    """
    return levels[value] if isinstance(value, (int, np.integer)) else value


@overload(_reflectance)
def _reflectance_typed(value, levels):
    if isinstance(value, numba.types.Integer):
        return lambda value, levels: levels[value]
    return lambda value, levels: value


@compiled
def _banded_product(weights, band, src, dst):
    """``dst = weights @ src`` where row ``i`` of ``weights`` is zero outside columns
    ``band[i, 0]:band[i, 1]``: each row of ``dst`` adds its band's rows of ``src`` in
    order (the inner loop runs along memory)."""
    for i in range(dst.shape[0]):
        for r in range(dst.shape[1]):
            dst[i, r] = 0.0
        for j in range(band[i, 0], band[i, 1]):
            weight = weights[i, j]
            for r in range(dst.shape[1]):
                dst[i, r] += weight * src[j, r]


@compiled(nogil=True)      # the look-ahead's thread images a large deck's blocks (mark_i._DeckLight)
def _imaging(cards, rows_avg, rows_band, cols_avg, cols_band, blur_r, blur_r_band, blur_c, blur_c_band,
             gain, clip, out):
    """Image each card onto the cells: ``gain * (B_r A_r card A_c^T B_c^T)``, card by card.

    ``cards`` (n, H, W) float64 reflectance or uint8 levels (reflectance × 255, read
    through :data:`_LEVELS`); ``A_r`` (rows, H), ``A_c`` (cols, W) area
    averages and ``B_r``, ``B_c`` blurs, each with its band of nonzero columns
    ((len, 2) first, one past last), so every product touches only the pixels and cells
    that contribute (a 60-pixel card on 20 cells: each pixel once). ``gain`` (rows,
    cols); ``clip`` sets negative light to 0; writes ``out`` (n, rows, cols). The
    column steps work on the transposed image so that every inner loop runs along
    memory (and vectorizes).
    """
    n, _, w = cards.shape
    rows, cols = gain.shape
    strip = np.empty(w)                    # one row of cells, still at pixel resolution across
    strip_t = np.empty((w, rows))          # the card's rows averaged onto the cell rows, transposed
    sharp_t = np.empty((cols, rows))       # ... and its columns: the card on the cells, transposed
    half_t = np.empty((cols, rows))        # blurred along the rows of cells
    half = np.empty((rows, cols))
    for k in range(n):
        card = cards[k]
        for r in range(rows):
            for x in range(w):
                strip[x] = 0.0
            for y in range(rows_band[r, 0], rows_band[r, 1]):
                weight = rows_avg[r, y]
                for x in range(w):
                    strip[x] += weight * _reflectance(card[y, x], _LEVELS)
            for x in range(w):
                strip_t[x, r] = strip[x]
        _banded_product(cols_avg, cols_band, strip_t, sharp_t)
        _banded_product(blur_c, blur_c_band, sharp_t, half_t)
        for r in range(rows):
            for c in range(cols):
                half[r, c] = half_t[c, r]
        _banded_product(blur_r, blur_r_band, half, out[k])
        for r in range(rows):
            o = out[k, r]
            for c in range(cols):
                v = o[c] * gain[r, c]
                o[c] = 0.0 if clip and v < 0.0 else v


#: Subintervals of [1, 2) in the power law's table (the top mantissa bits index them).
_POWER_BITS = 8


@functools.lru_cache(maxsize=8)
def _power_tables(gamma: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tables for ``x ** gamma`` by exponent, leading mantissa bits and a short series.

    A positive normal float is ``x = m 2**k`` with ``m`` in [1, 2), and ``m`` lies in
    one of 256 subintervals starting at a knot ``c``, so
    ``x ** gamma = 2**(gamma k) * c**gamma * (1 + t)**gamma`` with ``t = (m - c) / c``
    in [0, 2**-8): the binomial series to ``t**6`` leaves less than 2e-18. Indexed by
    the biased exponent ``e = k + 1023``: ``scale[e] = 2**-k`` (exact) and
    ``power[e] = 2**(gamma k)``, split exactly into integer and fractional parts of
    ``gamma k`` (as a rational) so that it is correctly rounded. Powers of two (1
    included) come out as ``power[e]`` exactly. Measured: within 3 ulp of
    ``x ** gamma`` (libm), about half the values bit-equal.
    """
    g = Fraction(gamma)
    power = np.full(2048, np.nan)                   # e = 0 and 2047 (subnormal, inf, nan) unused
    scale = np.full(2048, np.nan)
    for e in range(1, 2047):
        q = g * (e - 1023)
        whole = math.floor(q)
        try:
            power[e] = math.ldexp(2.0 ** float(q - whole), whole)
        except OverflowError:
            power[e] = math.inf
        scale[e] = math.ldexp(1.0, 1023 - e)
    knot = 1.0 + np.arange(2 ** _POWER_BITS) / 2 ** _POWER_BITS      # each subinterval's start
    series = [1.0]
    for i in range(1, 7):                                   # binomial coefficients of gamma
        series.append(series[-1] * (gamma - i + 1) / i)
    return power, scale, knot, knot ** gamma, 1.0 / knot, np.array(series)


def _read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``: :func:`_power_law` then compiles for one array type, not two
    (a broadcast light is read-only, a copied one is not), about 1.3 s less of a cold start."""
    view = a.view()
    view.flags.writeable = False
    return view


class _Law(NamedTuple):
    """The power law as :func:`_steady_row` reads it: each cell's sensitivity (m,), gamma, and
    of the tables of :func:`_power_tables` those it reads (``power`` by exponent,
    ``knot_power`` by subinterval, the binomial ``series``; the others it computes)."""

    sensitivity: np.ndarray
    gamma: float
    power: np.ndarray
    knot_power: np.ndarray
    series: np.ndarray


#: The bits of a positive normal float64 lie in [_NORMAL_LOW, _NORMAL_HIGH) as an int64;
#: its mantissa bits, and the exponent bits of 1.0.
_NORMAL_LOW, _NORMAL_HIGH = 0x0010000000000000, 0x7FF0000000000000
_MANTISSA, _ONE = 0x000FFFFFFFFFFFFF, 0x3FF0000000000000


# inlined into its callers (_sense, _power_law): a compile of its own, with its wrappers,
# took longer than its body inside each of them
@compiled(inline="always")
def _steady_row(light, bits, law, out, scratch, scratch_bits):
    """``out = sensitivity * light ** gamma`` for one card's cells (m,), by the tables of
    :func:`_power_tables`; ``bits`` is ``light``'s memory as int64, ``scratch`` (3, m) and
    ``scratch_bits`` the same memory as int64 (the views are made by the caller in Python:
    ``ndarray.view`` in compiled code compiles an overload of its own for each array type).

    A positive normal light ``x = m 2**k`` reads its exponent's and its subinterval's
    powers in one loop (table reads do not vectorize); the rest is exact arithmetic that
    vectorizes, giving what the tables hold: ``m`` itself is ``x``'s bits with the exponent
    of 1 (``x * scale[e]``, exact), the knot ``1 + b / 256`` is exact and its reciprocal a
    division rounded once (``inv_knot[b]``). Zero, subnormal, negative, infinite and NaN
    light take ``x ** gamma`` itself in a last pass, run only when there is such light.
    (``error_model="numpy"``: no division here may raise, and the loops vectorize.)
    """
    c1, c2, c3, c4, c5, c6 = law.series[1], law.series[2], law.series[3], law.series[4], law.series[5], law.series[6]
    power, mantissa, knot_power = scratch[0], scratch[1], scratch[2]
    mantissa_bits = scratch_bits[1]
    m = light.shape[0]
    outside = 0
    for j in range(m):
        u = bits[j]
        outside += (u < _NORMAL_LOW) | (u >= _NORMAL_HIGH)          # negative values too (sign bit)
        power[j] = law.power[(u >> 52) & 2047]
        knot_power[j] = law.knot_power[(u >> (52 - _POWER_BITS)) & (2 ** _POWER_BITS - 1)]
    for j in range(m):
        mantissa_bits[j] = (bits[j] & _MANTISSA) | _ONE
    for j in range(m):
        knot = 1.0 + ((bits[j] >> (52 - _POWER_BITS)) & (2 ** _POWER_BITS - 1)) * (1.0 / 2 ** _POWER_BITS)
        t = (mantissa[j] - knot) * (1.0 / knot)                      # the difference is exact
        p = 1.0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))))
        out[j] = law.sensitivity[j] * (power[j] * knot_power[j] * p)
    if outside:
        for j in range(m):
            x = light[j]
            if not (2.2250738585072014e-308 <= x <= 1.7976931348623157e308):
                out[j] = law.sensitivity[j] * x ** law.gamma


@compiled
def _power_law(light, bits, law, out, scratch, scratch_bits):
    """``out = sensitivity * light ** gamma`` for (n, m) C-ordered light, row by row
    (:func:`_steady_row`; ``bits``, ``scratch`` and ``scratch_bits`` as there, ``bits``
    (n, m)). Measured: within 3 ulp of ``x ** gamma`` (libm), about half the values
    bit-equal."""
    for i in range(light.shape[0]):
        _steady_row(light[i], bits[i], law, out[i], scratch, scratch_bits)


def _scratch(m: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_steady_row`'s scratch (3, m) and the same memory seen as int64."""
    scratch = np.empty((3, m))
    return scratch, scratch.view(np.int64)


def _power_rows(light: np.ndarray, law: _Law) -> np.ndarray:
    """:func:`_power_law` of read-only C-ordered light (n, m): a new array (n, m)."""
    out = np.empty_like(light)
    _power_law(light, light.view(np.int64), law, out, *_scratch(light.shape[1]))
    return out


def _power_few(light: np.ndarray, law: _Law) -> np.ndarray | None:
    """:func:`_steady_row` of C-ordered light (m,) in numpy, where every value is positive
    and normal: the same operations in the same order on the same tables, so the same
    bits, and no loop to compile (the retina's threshold signal, made with every retina).
    None where a value is not (its ``x ** gamma`` is the compiled loop's)."""
    bits = light.view(np.int64)
    if not np.all((bits >= _NORMAL_LOW) & (bits < _NORMAL_HIGH)):
        return None
    sub = (bits >> (52 - _POWER_BITS)) & (2 ** _POWER_BITS - 1)
    power = law.power[(bits >> 52) & 2047]
    knot_power = law.knot_power[sub]
    mantissa = ((bits & _MANTISSA) | _ONE).view(np.float64)
    knot = 1.0 + sub * (1.0 / 2 ** _POWER_BITS)
    c1, c2, c3, c4, c5, c6 = law.series[1], law.series[2], law.series[3], law.series[4], law.series[5], law.series[6]
    t = (mantissa - knot) * (1.0 / knot)
    p = 1.0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))))
    with np.errstate(over="ignore", under="ignore"):        # as the loop: inf or 0 where it leaves the floats
        return law.sensitivity * (power * knot_power * p)


class _Cells(NamedTuple):
    """The photocells' constants as :func:`_exposure` reads them: the dark and the settling
    intervals (s), the rise, fall and slow-fall times (s), the slow component's share, the
    light history's ratio and time (s), and whether the cells have dynamics at all."""

    card_change: float
    settle: float
    rise_time: float
    fall_time: float
    slow_fall_time: float
    slow_fraction: float
    history_ratio: float
    history_time: float
    dynamics: bool


@compiled(inline="always")       # (as _steady_row)
def _card_step(lit, cells):
    """The coefficients of one card's step of the recurrence, the card lit ``lit`` seconds:
    (c_fast, c_slow, rise, c_hist, soak, d_hist, w_fast, w_slow, a_settle)."""
    d_fast = math.exp(-cells.card_change / cells.fall_time)       # the dark interval, per component
    d_slow = math.exp(-cells.card_change / cells.slow_fall_time)
    d_hist = math.exp(-cells.card_change / cells.history_time)
    a_settle = math.exp(-cells.settle / cells.rise_time)
    w_fast = (1.0 - cells.slow_fraction) * d_fast                  # share of each at lamps-on
    w_slow = cells.slow_fraction * d_slow
    a_lit = math.exp(-lit / cells.rise_time)
    a_hist = math.exp(-lit / cells.history_time)
    return (a_lit * d_fast, a_lit * d_slow, 1.0 - a_lit, a_hist * d_hist, 1.0 - a_hist, d_hist,
            w_fast, w_slow, a_settle)


@compiled(inline="always")       # (as _steady_row)
def _expose_row(light, steady, step, cells, state, signal):
    """One card on the photocells (m,): writes ``signal`` at its sampling instant and moves
    ``state`` (fast, slow, history) from the end of the card before to the end of this
    card's lit interval, in place; ``step`` from :func:`_card_step`. (Every compiled loop's
    ``error_model`` is ``"numpy"``: the loop vectorizes, as a division that may raise would not.)"""
    c_fast, c_slow, rise, c_hist, soak, d_hist, w_fast, w_slow, a_settle = step
    fast, slow, history = state
    ratio, dynamics = cells.history_ratio, cells.dynamics
    if ratio != 1.0 and dynamics:                # the machine's case: one loop, no branch in it
        for j in range(light.shape[0]):
            h = history[j]
            target = steady[j] / (1.0 + (ratio - 1.0) * (d_hist * h))
            history[j] = c_hist * h + soak * light[j]
            f, s = fast[j], slow[j]
            # both components rise towards the same target with the same time constant
            signal[j] = target + ((w_fast * f + w_slow * s) - target) * a_settle
            fast[j] = c_fast * f + rise * target
            slow[j] = c_slow * s + rise * target
        return
    for j in range(light.shape[0]):
        target = steady[j]
        if ratio != 1.0:
            h = history[j]
            target = target / (1.0 + (ratio - 1.0) * (d_hist * h))
            history[j] = c_hist * h + soak * light[j]
        else:
            history[j] = 0.0                    # not tracked without the effect
        if dynamics:
            f, s = fast[j], slow[j]
            signal[j] = target + ((w_fast * f + w_slow * s) - target) * a_settle
            fast[j] = c_fast * f + rise * target
            slow[j] = c_slow * s + rise * target
        else:
            signal[j] = target


@compiled
def _exposure(light, steady, lit, start, cells, signal, fast, slow, history):
    """The photocell recurrence over cards (see :meth:`Retina.expose`), card by card
    (:func:`_expose_row`).

    ``start`` the given state (fast, slow, history), each (m,); ``cells`` a :class:`_Cells`.
    Writes ``signal`` (n, m) and, at the end of each lit interval, ``history`` (n + 1, m)
    and (with ``dynamics``) ``fast``, ``slow`` (n + 1, m); row 0 is the given state.
    """
    n, m = light.shape
    state = (start[0].copy(), start[1].copy(), start[2].copy())
    step = _card_step(lit[0], cells) if n else _card_step(1.0, cells)
    for i in range(n + 1):
        if i:
            if i > 1 and lit[i - 1] != lit[i - 2]:
                step = _card_step(lit[i - 1], cells)
            _expose_row(light[i - 1], steady[i - 1], step, cells, state, signal[i - 1])
        for j in range(m):               # (element loops: a slice assignment costs seconds to compile)
            history[i, j] = state[2][j]
            if cells.dynamics:
                fast[i, j] = state[0][j]
                slow[i, j] = state[1][j]


class _Fire(NamedTuple):
    """When an S-unit fires, as :func:`_sense` reads it: the signal threshold, and whether
    it fires below it (polarity ``"figure"``) or at and above it."""

    threshold: float
    figure: bool


@compiled(nogil=True)      # a machine senses its next block beside the training (simulator)
def _sense(light, bits, rows, lit, law, cells, fire, state, s, scratch, scratch_bits):
    """S-units of cards shown in sequence (see :meth:`Retina.sense_sequence`), in one pass.

    ``light`` (n_cards, m) C-ordered, ``bits`` its memory as int64; ``rows`` (n,) the card
    of each presentation;
    ``lit`` (n,) seconds; ``law`` a :class:`_Law`, ``cells`` a :class:`_Cells`, ``fire`` a
    :class:`_Fire`; ``state`` (fast, slow, history), each (m,), moved in place from the
    start to the end of the last card's lit interval; writes ``s`` (n, m) bool. Each card:
    its settled signals (:func:`_steady_row`), its photocells (:func:`_expose_row`), its
    S-units; nothing of size (n, m) but ``s`` is written (the signals stay in a row).
    ``scratch``, ``scratch_bits`` as :func:`_steady_row`'s.
    """
    m = light.shape[1]
    steady, signal = np.empty(m), np.empty(m)
    step = _card_step(lit[0], cells) if len(rows) else _card_step(1.0, cells)
    for i in range(len(rows)):
        if i and lit[i] != lit[i - 1]:
            step = _card_step(lit[i], cells)
        row = rows[i]
        _steady_row(light[row], bits[row], law, steady, scratch, scratch_bits)
        _expose_row(light[row], steady, step, cells, state, signal)
        out = s[i]
        if fire.figure:
            for j in range(m):
                out[j] = signal[j] < fire.threshold
        else:
            for j in range(m):
                out[j] = signal[j] >= fire.threshold


@dataclass
class RetinaState:
    """Photocell state at the moment the lamps come on for the next card.

    Attributes
    ----------
    fast, slow : arrays of shape (n_cells,)
        The two response components (conductance relative to a nominal cell in paper
        white), at lamps-on.
    history : array of shape (n_cells,)
        Light-adaptation state, 0 (dark-adapted) to about 1.

    Examples
    --------
    >>> state = RetinaState.dark(400)                 # dark-adapted cells before the first card
    >>> state.fast.shape, float(state.history.max())
    ((400,), 0.0)
    """

    fast: np.ndarray
    slow: np.ndarray
    history: np.ndarray

    def at(self, i: int) -> RetinaState:
        """Row ``i`` of a state series (fields of shape (n + 1, n_cells))."""
        return RetinaState(self.fast[i], self.slow[i], self.history[i])

    @classmethod
    def dark(cls, n_cells: int) -> RetinaState:
        """A retina that has been in the dark for a long time."""
        z = np.zeros(n_cells)
        return cls(z, z.copy(), z.copy())


#: Float64 bytes of cards converted at once by :meth:`Retina.light` when they are neither
#: float64 nor uint8 (those are imaged in place, without a copy).
_LIGHT_CHUNK_BYTES = 16 * 2**20

class Retina:
    """Camera optics, lamps and CdS photocells.

    Parameters
    ----------
    spec : RetinaSpec
    sensitivity : array of shape (n_cells,), optional
        Each cell's relative sensitivity (1 = nominal). Drawn by the machine from its
        device-spread stream; all ones when omitted.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.specs import MARK_I
    >>> cards = np.ones((2, 40, 40))                  # two cards of white paper ...
    >>> cards[1, 10:30, 10:30] = 0.05                 # ... the second with a black square
    >>> S = Retina(MARK_I.retina).sense_static(cards)
    >>> S.shape, S.sum(axis=1).tolist()               # S-units firing on each card
    ((2, 400), [0, 100])
    """

    def __init__(self, spec: RetinaSpec, sensitivity: np.ndarray | None = None) -> None:
        self.spec = spec
        rows, cols = spec.shape
        self.n_cells = rows * cols
        self.sensitivity = (np.ones(self.n_cells) if sensitivity is None
                            else np.ascontiguousarray(sensitivity, dtype=float))
        if self.sensitivity.shape != (self.n_cells,):
            raise InputError(f"sensitivity: expected shape ({self.n_cells},), got {self.sensitivity.shape}")
        y, x = np.mgrid[0:rows, 0:cols]
        r2 = ((y - (rows - 1) / 2) / ((rows - 1) / 2 or 1)) ** 2 + ((x - (cols - 1) / 2) / ((cols - 1) / 2 or 1)) ** 2
        self.lighting = 1.0 - spec.uneven_lighting * r2 / 2.0     # corners (r2 = 2) lose uneven_lighting
        blur_r, blur_c = _blur_matrix(rows, spec.blur), _blur_matrix(cols, spec.blur)
        self._blur = (blur_r, _band(blur_r), blur_c, _band(blur_c))
        self._gain = spec.lamp_level * self.lighting
        # area averages of each card size seen, with their bands (see _imaging)
        self._camera_cache: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}
        # signal of a nominal dark-adapted cell at the threshold light, by the same power
        # law as every signal (so a cell lit exactly at the threshold reads exactly it)
        self.signal_threshold = float(self.power(np.array([spec.threshold]))[0])

    @staticmethod
    def sensitivity_spread(spec: RetinaSpec, rng: np.random.Generator) -> np.ndarray:
        """Draw cell sensitivities: log-normal with sigma ``cell_spread`` and median 1."""
        n = spec.shape[0] * spec.shape[1]
        if spec.cell_spread == 0:
            return np.ones(n)
        return np.exp(spec.cell_spread * rng.standard_normal(n))

    # -- optics ---------------------------------------------------------------------
    def illuminance(self, cards: np.ndarray) -> np.ndarray:
        """Light falling on each cell.

        Parameters
        ----------
        cards : array of shape (n, H, W)
            Reflectance in [0, 1] (1 = paper white), or uint8 meaning reflectance ×
            255; H, W >= the retina's shape.

        Returns
        -------
        array of shape (n, rows, cols)
            Illuminance relative to paper white under nominal lamps at the centre.
        """
        cards = np.asarray(cards)
        if cards.dtype != np.uint8:
            cards = np.asarray(cards, dtype=float)
        out = np.empty((len(cards),) + tuple(self.spec.shape))
        self._image(cards, out, clip=False)
        return out

    def light(self, cards: np.ndarray) -> np.ndarray:
        """Illuminance flattened to shape (n, n_cells), clipped at 0.

        ``cards`` (n, H, W) is reflectance in [0, 1], or uint8 meaning reflectance × 255.
        Each card is imaged on its own, so the result does not depend on the chunk;
        float64 and uint8 decks are read in place, others converted a chunk at a time,
        never copying the whole deck as float64.
        """
        cards = np.asarray(cards)
        n, h, w = len(cards), cards.shape[-2], cards.shape[-1]
        out = np.empty((n, self.n_cells))
        cells = out.reshape((n,) + tuple(self.spec.shape))
        in_place = cards.dtype in (np.float64, np.uint8) and cards.flags.c_contiguous
        step = max(1, n if in_place else _LIGHT_CHUNK_BYTES // (8 * h * w))
        for lo in range(0, n, step):
            self._image_any(cards[lo:lo + step], cells[lo:lo + step])
        return out

    def _image_any(self, cards: np.ndarray, out: np.ndarray) -> None:
        """Image cards of any number type into ``out`` (n, rows, cols), clipped at 0: uint8
        as they are, others as float64."""
        self._image(cards if cards.dtype == np.uint8 else np.ascontiguousarray(cards, dtype=np.float64),
                    out, clip=True)

    def _image(self, cards: np.ndarray, out: np.ndarray, *, clip: bool) -> None:
        """Run :func:`_imaging` on C-ordered float64 cards or uint8 cards (reflectance × 255)."""
        cards = np.ascontiguousarray(cards)
        h, w = cards.shape[-2:]
        if (h, w) not in self._camera_cache:
            rows, cols = self.spec.shape
            ar, ac = area_average_matrix(h, rows), area_average_matrix(w, cols)
            self._camera_cache[(h, w)] = (ar, _band(ar), ac, _band(ac))
        if len(cards):
            _imaging(cards, *self._camera_cache[(h, w)], *self._blur, self._gain, clip, out)

    # -- photocells -----------------------------------------------------------------
    def power(self, light: np.ndarray) -> np.ndarray:
        """``light ** gamma`` by the retina's power law (:func:`_power_law`), for a nominal cell.

        ``light`` array of shape (m,); the photocells' signals all come from this law.
        """
        light = _read_only(np.ascontiguousarray(light, dtype=float).reshape(1, -1))
        law = self._law(np.ones(light.shape[1]))
        few = _power_few(light[0], law)
        return few if few is not None else _power_rows(light, law)[0]

    def steady_signal(self, light: np.ndarray, history: np.ndarray | float = 0.0) -> np.ndarray:
        """Settled signal of each cell under constant light.

        Parameters
        ----------
        light : array of shape (n, n_cells)
            Relative illuminance.
        history : array broadcastable to light
            Light-adaptation state.
        """
        s = self.spec
        light = np.asarray(light, dtype=float)
        light = np.broadcast_to(light, np.broadcast_shapes(light.shape, (self.n_cells,)))
        flat = _read_only(np.ascontiguousarray(light.reshape(-1, self.n_cells)))
        out = _power_rows(flat, self._law(self.sensitivity)).reshape(light.shape)
        if np.any(history != 0.0):
            out = out / (1.0 + (s.history_ratio - 1.0) * history)
        return out

    def _law(self, sensitivity: np.ndarray) -> _Law:
        """The power law's constants for cells of these sensitivities (:func:`_steady_row`)."""
        gamma = float(self.spec.gamma)
        power, _, _, knot_power, _, series = _power_tables(gamma)
        return _Law(np.ascontiguousarray(sensitivity, dtype=float), gamma, power, knot_power, series)

    def fire(self, signal: np.ndarray) -> np.ndarray:
        """S-unit states (bool, same shape as ``signal``) from photocell signals."""
        if self.spec.polarity == "figure":
            return signal < self.signal_threshold
        return signal >= self.signal_threshold

    def sense_static(self, cards: np.ndarray) -> np.ndarray:
        """S-unit states of settled, dark-adapted photocells: array (n, n_cells) bool."""
        return self.fire(self.steady_signal(self.light(cards)))

    def expose(self, light: np.ndarray, lit: np.ndarray, state: RetinaState, *,
               card_change: float, settle: float,
               steady: np.ndarray | None = None) -> tuple[np.ndarray, RetinaState]:
        """Show a sequence of cards and read each at its sampling instant.

        Each card: lamps off for ``card_change`` seconds, lamps on for ``lit[i]``
        seconds; the S-units are sampled ``settle`` seconds after lamps on.

        Parameters
        ----------
        light : array of shape (n, n_cells)
            Relative illuminance of each card (from :meth:`light`).
        lit : array of shape (n,)
            Seconds the lamps stay on for each card (>= settle).
        state : RetinaState
            State before the first card's card change (i.e. at the end of the previous
            card's lit interval).
        card_change, settle : float
            Seconds.
        steady : array of shape (n, n_cells), optional
            ``steady_signal(light)`` if already known (saves recomputing the power law).

        Returns
        -------
        signal : array of shape (n, n_cells)
            Photocell signal at each sampling instant.
        ends : RetinaState with fields of shape (n + 1, n_cells)
            ``ends.at(i)`` is the state at the end of card ``i - 1``'s lit interval
            (``ends.at(0)`` is the given state); restart from it to replay from card
            ``i`` with a different timing.
        """
        s = self.spec
        light = _read_only(np.ascontiguousarray(light, dtype=float))     # one type for _expose_row (see _sense)
        lit = np.ascontiguousarray(lit, dtype=float)
        steady = self.steady_signal(light) if steady is None else np.ascontiguousarray(steady, dtype=float)
        n, m = light.shape
        signal = np.empty((n, m))
        history = np.empty((n + 1, m))
        fast = np.empty((n + 1 if s.dynamics else 0, m))
        slow = np.empty_like(fast)
        start = [np.ascontiguousarray(x, dtype=float) for x in (state.fast, state.slow, state.history)]
        _exposure(light, steady, lit, tuple(start), self._cells(card_change, settle), signal, fast, slow, history)
        if not s.dynamics:
            # Instant photocells; light history still follows the light.
            fast = slow = np.broadcast_to(state.fast, history.shape)
        return signal, RetinaState(fast, slow, history)

    def _cells(self, card_change: float, settle: float) -> _Cells:
        s = self.spec
        return _Cells(float(card_change), float(settle), float(s.rise_time), float(s.fall_time),
                      float(s.slow_fall_time), float(s.slow_fraction), float(s.history_ratio),
                      float(s.history_time), bool(s.dynamics))

    def sense_sequence(self, light: np.ndarray, rows: np.ndarray, lit: np.ndarray, state: RetinaState, *,
                       card_change: float, settle: float,
                       out: np.ndarray | None = None) -> tuple[np.ndarray, RetinaState]:
        """S-unit states of cards shown in sequence, in one pass over the cards.

        The same bits as ``fire(expose(light[rows], lit, state, ...)[0])``, without making
        the shown cards' light, their signals or the state after every card: a machine
        sensing a block of presentations needs their S-units and the state at the end.

        Parameters
        ----------
        light : array of shape (n_cards, n_cells)
            Each card's illuminance (from :meth:`light`).
        rows : array of shape (n,) int
            The card shown at each presentation (rows of ``light``).
        lit : array of shape (n,)
            Seconds the lamps stay on for each presentation (>= settle).
        state : RetinaState
            State before the first card's card change, fields of shape (n_cells,).
        card_change, settle : float
            Seconds.
        out : array of shape (n, n_cells) bool, optional
            Where to write the S-unit states.

        Returns
        -------
        s : array of shape (n, n_cells) bool
            S-unit states at each sampling instant (``out`` when given).
        end : RetinaState with fields of shape (n_cells,)
            The state at the end of the last card's lit interval (``state`` when ``n`` is 0).

        Examples
        --------
        >>> import numpy as np
        >>> from mark1.specs import MARK_I
        >>> r = Retina(MARK_I.retina)
        >>> cards = np.ones((2, 40, 40)); cards[1, 10:30, 10:30] = 0.05
        >>> light = r.light(cards)
        >>> lit, dark = np.full(3, 2.8), RetinaState.dark(r.n_cells)
        >>> s, end = r.sense_sequence(light, np.array([1, 0, 1]), lit, dark, card_change=0.2, settle=0.3)
        >>> s.sum(axis=1).tolist()                        # the square, white paper, the square again
        [100, 0, 100]
        >>> signal, ends = r.expose(light[[1, 0, 1]], lit, dark, card_change=0.2, settle=0.3)
        >>> bool((r.fire(signal) == s).all() and (ends.at(3).history == end.history).all())
        True
        """
        s = self.spec
        light = _read_only(np.ascontiguousarray(light, dtype=float))
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        lit = np.ascontiguousarray(lit, dtype=float)
        if rows.ndim != 1 or lit.shape != rows.shape or light.ndim != 2 or light.shape[1] != self.n_cells:
            raise InputError(f"sense_sequence: expected light (n_cards, {self.n_cells}) and rows and lit of one "
                             f"shape (n,), got {light.shape}, {rows.shape}, {lit.shape}")
        if len(rows) and not 0 <= int(rows.min()) <= int(rows.max()) < len(light):
            raise InputError(f"rows: expected card indices in [0, {len(light)}), got {rows.min()}..{rows.max()}")
        if out is None:
            out = np.empty((len(rows), self.n_cells), bool)
        end = tuple(np.array(x, dtype=float) for x in (state.fast, state.slow, state.history))
        fire = _Fire(float(self.signal_threshold), s.polarity == "figure")
        _sense(light, light.view(np.int64), rows, lit, self._law(self.sensitivity), self._cells(card_change, settle),
               fire, end, out, *_scratch(self.n_cells))
        if not s.dynamics:
            end = (end[0], end[0], end[2])       # as expose: instant cells keep the given fast state
        return out, RetinaState(*end)

    def step_response(self, t: np.ndarray, light: float = 1.0) -> np.ndarray:
        """Signal of one nominal dark-adapted cell ``t`` seconds after lamps on.

        For checks against the datasheet: reaches 1 - 1/e of its final value at
        ``rise_time``. Array of the same shape as ``t``.
        """
        s = self.spec
        t = np.asarray(t, dtype=float)
        final = self.power(np.array([float(light)]))[0]
        if not s.dynamics:
            return np.full_like(t, final)
        return final * (1.0 - np.exp(-t / s.rise_time))
