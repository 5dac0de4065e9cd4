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
recurrence are per-card scalars and a whole schedule is computed at once, exactly, by
an affine scan over cards vectorized over cells. The adaptation factor is taken at
lamps-on for the whole lit interval (``history_time`` ≫ ``rise_time``).

An S-unit fires when its photocell's signal is on the figure side of the threshold:
with polarity ``"figure"`` a cell fires when it reads darker than ``threshold`` of
paper-white light (the signal a nominal, dark-adapted cell gives at that light).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .specs import RetinaSpec

__all__ = ["Retina", "RetinaState", "affine_scan", "area_average_matrix"]


def area_average_matrix(n_in: int, n_out: int) -> np.ndarray:
    """Matrix of shape (n_out, n_in) averaging n_in pixels onto n_out cells by overlap.

    Row ``r`` holds the fraction of each input pixel inside cell ``r``'s footprint
    ``[r * n_in / n_out, (r + 1) * n_in / n_out)``, divided by the footprint length, so
    every row sums to 1.
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


def affine_scan(x0: np.ndarray, c: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve ``x[i+1] = c[i] * x[i] + b[i]`` for a whole sequence at once.

    Parameters
    ----------
    x0 : array of shape (m,)
        Starting state (one value per cell).
    c : array of shape (n,)
        Per-step factors in [0, 1] (one scalar per card).
    b : array of shape (n, m)
        Per-step inputs (non-negative here).

    Returns
    -------
    x : array of shape (n + 1, m)
        ``x[0] = x0`` and the states after each step.

    Notes
    -----
    When every step forgets nearly all of its past (the usual case for the photocell
    components, whose time constants are far shorter than a presentation), the state
    is a short window sum ``b[i] + c[i] b[i-1] + c[i] c[i-1] b[i-2] + ...``, truncated
    where the products of ``c`` fall below 2**-53, the resolution of float64 relative
    to the largest input. Otherwise, within a chunk,
    ``x[k+1] = Q_k (x_i + sum_{l<=k} b_l / Q_l)`` with ``Q`` the running product of
    ``c``; chunks end before ``Q`` falls below ``exp(-600)`` so nothing overflows. All
    terms are non-negative, so the sums carry no cancellation.
    """
    n = len(c)
    x = np.empty((n + 1,) + np.shape(x0))
    x[0] = x0
    if n == 0:
        return x
    cmax = float(np.max(c))
    if cmax < 1e-10:
        # keep the lags whose weight can reach float64 resolution of the largest input
        lags = 0 if cmax == 0 else int(np.floor(np.log(2.0 ** -53) / np.log(cmax)))
        inputs = np.concatenate([np.asarray(x0, float)[None], b])    # x0, b[0], ..., b[n-1]
        x[1:] = b
        reach = np.ones(n)              # product of c over the lag, per output
        for lag in range(1, min(lags, n) + 1):
            reach[lag - 1:] *= c[:n - lag + 1]
            x[lag:] += reach[lag - 1:, None] * inputs[:n - lag + 1]
        return x
    logc = np.log(np.maximum(c, 1e-300))
    cum = np.concatenate([[0.0], np.cumsum(logc)])   # cum[k+1] = sum logc[0..k]
    i = 0
    while i < n:
        if logc[i] < -600.0:                          # this step forgets the past entirely
            x[i + 1] = c[i] * x[i] + b[i]
            i += 1
            continue
        # largest j with cum[j] - cum[i] >= -600 (cum is non-increasing)
        j = int(np.searchsorted(-cum, -cum[i] + 600.0, side="right")) - 1
        j = max(min(j, n), i + 1)
        q = np.cumprod(c[i:j])[:, None]                  # Q_k for k = i..j-1 (>= exp(-600))
        acc = np.cumsum(b[i:j] / q, axis=0)
        x[i + 1:j + 1] = q * (x[i] + acc)
        i = j
    return x


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
    """

    fast: np.ndarray
    slow: np.ndarray
    history: np.ndarray

    def at(self, i: int) -> "RetinaState":
        """Row ``i`` of a state series (fields of shape (n + 1, n_cells))."""
        return RetinaState(self.fast[i], self.slow[i], self.history[i])

    @classmethod
    def dark(cls, n_cells: int) -> "RetinaState":
        """A retina that has been in the dark for a long time."""
        z = np.zeros(n_cells)
        return cls(z, z.copy(), z.copy())


#: Float64 bytes of cards imaged at once by :meth:`Retina.light`.
_LIGHT_CHUNK_BYTES = 16 * 2**20


class Retina:
    """Camera optics, lamps and CdS photocells.

    Parameters
    ----------
    spec : RetinaSpec
    sensitivity : array of shape (n_cells,), optional
        Each cell's relative sensitivity (1 = nominal). Drawn by the machine from its
        device-spread stream; all ones when omitted.
    """

    def __init__(self, spec: RetinaSpec, sensitivity: np.ndarray | None = None):
        self.spec = spec
        rows, cols = spec.shape
        self.n_cells = rows * cols
        self.sensitivity = np.ones(self.n_cells) if sensitivity is None else np.asarray(sensitivity, float)
        if self.sensitivity.shape != (self.n_cells,):
            raise ValueError(f"sensitivity: expected shape ({self.n_cells},), got {self.sensitivity.shape}")
        y, x = np.mgrid[0:rows, 0:cols]
        r2 = ((y - (rows - 1) / 2) / ((rows - 1) / 2 or 1)) ** 2 + ((x - (cols - 1) / 2) / ((cols - 1) / 2 or 1)) ** 2
        self.lighting = 1.0 - spec.uneven_lighting * r2 / 2.0     # corners (r2 = 2) lose uneven_lighting
        self._blur = (_blur_matrix(rows, spec.blur), _blur_matrix(cols, spec.blur))
        self._camera_cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        # signal of a nominal dark-adapted cell at the threshold light
        self.signal_threshold = spec.threshold ** spec.gamma

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
            Reflectance in [0, 1] (1 = paper white), H, W >= the retina's shape.

        Returns
        -------
        array of shape (n, rows, cols)
            Illuminance relative to paper white under nominal lamps at the centre.
        """
        cards = np.asarray(cards, dtype=float)
        h, w = cards.shape[-2:]
        if (h, w) not in self._camera_cache:
            rows, cols = self.spec.shape
            ar = self._blur[0] @ area_average_matrix(h, rows)
            ac = self._blur[1] @ area_average_matrix(w, cols)
            self._camera_cache[(h, w)] = (ar, ac.T.copy())
        ar, act = self._camera_cache[(h, w)]
        imaged = np.matmul(np.matmul(ar, cards), act)
        return imaged * (self.spec.lamp_level * self.lighting)

    def light(self, cards: np.ndarray) -> np.ndarray:
        """Illuminance flattened to shape (n, n_cells), clipped at 0.

        ``cards`` (n, H, W) is reflectance in [0, 1], or uint8 meaning reflectance × 255.
        Computed a chunk of cards at a time (each card imaged on its own, so the result
        does not depend on the chunk), never copying the whole deck as float64.
        """
        cards = np.asarray(cards)
        n, h, w = len(cards), cards.shape[-2], cards.shape[-1]
        out = np.empty((n, self.n_cells))
        step = max(1, _LIGHT_CHUNK_BYTES // (8 * h * w))
        for lo in range(0, n, step):
            part = cards[lo:lo + step]
            part = part / 255.0 if part.dtype == np.uint8 else part
            out[lo:lo + step] = np.clip(self.illuminance(part).reshape(len(part), -1), 0.0, None)
        return out

    # -- photocells -----------------------------------------------------------------
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
        return self.sensitivity * light ** s.gamma / (1.0 + (s.history_ratio - 1.0) * history)

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
        lit = np.asarray(lit, dtype=float)
        if steady is None:
            steady = self.steady_signal(light)
        h_end, h_on = self._history(light, lit, state.history, card_change)
        target = steady if s.history_ratio == 1.0 else steady / (1.0 + (s.history_ratio - 1.0) * h_on)
        if not s.dynamics:
            # Instant photocells; light history still follows the light.
            signal = target
            still = np.broadcast_to(state.fast, h_end.shape)
            return signal, RetinaState(still, still, h_end)
        a_settle = np.exp(-settle / s.rise_time)
        a_lit = np.exp(-lit / s.rise_time)                            # (n,)
        rise_input = (1.0 - a_lit)[:, None] * target
        ends, at_lamps_on = [], 0.0
        for fall, x_end0, weight in ((s.fall_time, state.fast, 1.0 - s.slow_fraction),
                                     (s.slow_fall_time, state.slow, s.slow_fraction)):
            d = np.exp(-card_change / fall)
            # x_end[i+1] = a_lit[i] * d * x_end[i] + (1 - a_lit[i]) * target[i]
            x_end = affine_scan(x_end0, a_lit * d, rise_input)
            ends.append(x_end)
            at_lamps_on = at_lamps_on + (weight * d) * x_end[:-1]
        # both components rise towards the same target with the same time constant
        signal = target + (at_lamps_on - target) * a_settle
        return signal, RetinaState(ends[0], ends[1], h_end)

    def _history(self, light, lit, h0, card_change):
        """Adaptation at the end of each lit interval and at each lamps-on."""
        s = self.spec
        if s.history_ratio == 1.0:
            z = np.zeros((len(light) + 1,) + np.shape(h0))
            z[0] = h0
            return z, z[:-1]
        d = np.exp(-card_change / s.history_time)
        a = np.exp(-lit / s.history_time)
        h_end = affine_scan(h0, a * d, (1.0 - a)[:, None] * light)
        return h_end, d * h_end[:-1]

    def step_response(self, t: np.ndarray, light: float = 1.0) -> np.ndarray:
        """Signal of one nominal dark-adapted cell ``t`` seconds after lamps on.

        For checks against the datasheet: reaches 1 - 1/e of its final value at
        ``rise_time``. Array of the same shape as ``t``.
        """
        s = self.spec
        t = np.asarray(t, dtype=float)
        final = light ** s.gamma
        if not s.dynamics:
            return np.full_like(t, final)
        return final * (1.0 - np.exp(-t / s.rise_time))
