"""The bare arithmetic of one presentation, written for the benchmark: the reference of
``bench_machine.py`` for what a card costs the machine.

Per card: its imaging onto the 20x20 cells (area average, the lens blur, the lighting),
the photocells' law and the S-units (a cell's sensitivity times light ** gamma below the
threshold: the figure; read as its light below the cell's own threshold light, computed
once), the A-units (each S-unit that fires adds its row of the wiring, +1 excitatory, -1
inhibitory, to the A-units' nets, each compared with the threshold), the R-unit sums (each
unit's wipers of the A-units that fire, and the bias) and the error-correction rule (each
R-unit whose sign is wrong moves its active inputs' weights by the increment towards the
target). No physics: no photocell dynamics,
no motors, no end stops, no read noise, no SimPy, no clock; one loop, compiled by numba,
with the optics, wiring and code taken from a machine so the sizes are the machine's.
"""

from __future__ import annotations

import numba
import numpy as np


def _bands(m: np.ndarray) -> np.ndarray:
    """Each row's first and one-past-last nonzero column, (rows, 2)."""
    nz = m != 0
    first = nz.argmax(axis=1)
    last = m.shape[1] - nz[:, ::-1].argmax(axis=1)
    return np.stack([first, last], axis=1).astype(np.int64)


@numba.njit(cache=True, nogil=True)
def _train(cards, scale, order, labels, rows_avg, rows_band, cols_avg, cols_band, blur_r, blur_r_band, blur_c,
           blur_c_band, gain, cell_threshold, wiring, a_threshold, unit_inputs,
           targets, increment, w, correct):
    """One pass over ``order``: the card's sums read, the answer scored, the weights moved.
    ``cards`` float64 reflectance (``scale`` 1) or uint8 levels (``scale`` 1 / 255)."""
    n_cards, h, wd = cards.shape
    rows, cols = gain.shape
    n_a = wiring.shape[1]
    net = np.empty(n_a, np.int32)
    n_units, per_unit = unit_inputs.shape
    strip = np.empty((rows, wd))
    sharp = np.empty((rows, cols))
    half = np.empty((rows, cols))
    light = np.empty(rows * cols)
    s = np.empty(rows * cols, np.bool_)
    x = np.empty(n_a + 1)
    x[n_a] = 1.0                                   # the bias
    sums = np.empty(n_units)
    for p in range(order.shape[0]):
        card = cards[order[p]]
        # imaging: rows of pixels onto rows of cells, then columns, then the blur both ways
        for r in range(rows):
            for c in range(wd):
                strip[r, c] = 0.0
            for y in range(rows_band[r, 0], rows_band[r, 1]):
                weight = rows_avg[r, y]
                for c in range(wd):
                    strip[r, c] += weight * (scale * card[y, c])
            for c in range(cols):
                v = 0.0
                for j in range(cols_band[c, 0], cols_band[c, 1]):
                    v += cols_avg[c, j] * strip[r, j]
                sharp[r, c] = v
        for r in range(rows):
            for c in range(cols):
                v = 0.0
                for j in range(blur_c_band[c, 0], blur_c_band[c, 1]):
                    v += blur_c[c, j] * sharp[r, j]
                half[r, c] = v
        for r in range(rows):
            for c in range(cols):
                v = 0.0
                for j in range(blur_r_band[r, 0], blur_r_band[r, 1]):
                    v += blur_r[r, j] * half[j, c]
                v *= gain[r, c]
                light[r * cols + c] = v if v > 0.0 else 0.0
        # photocells and S-units (the figure is dark): sensitivity * light ** gamma below the
        # threshold, read as the light below each cell's threshold light
        for j in range(rows * cols):
            s[j] = light[j] < cell_threshold[j]
        # A-units: each S-unit that fires adds its row of the wiring (+1, -1, 0) to the nets
        for a in range(n_a):
            net[a] = 0
        for j in range(rows * cols):
            if s[j]:
                row = wiring[j]
                for a in range(n_a):
                    net[a] += row[a]
        for a in range(n_a):
            x[a] = 1.0 if net[a] >= a_threshold else 0.0
        # R-unit sums and the answer (the largest sum)
        best = 0
        for u in range(n_units):
            v = 0.0
            for k in range(per_unit):
                v += w[u, k] * x[unit_inputs[u, k]]
            sums[u] = v
            if v > sums[best]:
                best = u
        label = labels[p]
        correct[p] = best == label
        # the rule: each unit whose sign disagrees with its target moves its active inputs
        for u in range(n_units):
            t = targets[label, u]
            if (sums[u] > 0.0) != (t > 0):
                step = increment * t
                for k in range(per_unit):
                    w[u, k] += step * x[unit_inputs[u, k]]


class Bare:
    """The reference loop with a fitted machine's optics, wiring, rack topology and code."""

    def __init__(self, machine, card_shape: tuple[int, int]):
        r = machine.retina
        spec = machine.spec
        h, wd = card_shape
        from mark1.machine.retina import area_average_matrix
        rows, cols = r.spec.shape
        ar, ac = area_average_matrix(h, rows), area_average_matrix(wd, cols)
        blur_r, _, blur_c, _ = r._blur
        wiring = np.ascontiguousarray(machine.patchboard.connections, dtype=np.int32)   # (n_s, n_a)
        mask = machine.rack_.mask                                     # (n_units, n_a + 1), bias last
        per_unit = int(mask.sum(axis=1).max())
        unit_inputs = np.array([np.flatnonzero(row)[:per_unit] for row in mask], dtype=np.int64)
        self.args = (ar, _bands(ar), ac, _bands(ac), blur_r, _bands(blur_r), blur_c, _bands(blur_c),
                     r._gain.astype(float), (r.signal_threshold / r.sensitivity) ** (1.0 / r.spec.gamma),
                     wiring, int(spec.patchboard.a_threshold), unit_inputs,
                     machine.code_.targets.astype(np.int64), float(spec.trainer.increment))
        self.classes = machine.classes_
        self.shape = (machine.code_.targets.shape[1], per_unit)

    def fit(self, cards: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """One pass over the cards in order, from zero weights; whether each answer was right."""
        index = np.searchsorted(self.classes, labels)
        w = np.zeros(self.shape)
        correct = np.zeros(len(cards), np.bool_)
        cards = np.ascontiguousarray(cards if cards.dtype == np.uint8 else np.asarray(cards, dtype=np.float64))
        _train(cards, 1.0 / 255 if cards.dtype == np.uint8 else 1.0, np.arange(len(cards)), index, *self.args, w,
               correct)
        return correct
