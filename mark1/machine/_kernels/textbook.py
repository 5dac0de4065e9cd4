"""The textbook perceptron's compiled loops: sums read off rows of nonzero features, and
the error-correction core over named records.

:mod:`mark1.machine.perceptron` runs them (:func:`present` is its naive loop, compiled);
:func:`sparse_sums` gathers a row's nonzero features as the machine's wiper sums do
(:func:`mark1.machine._kernels.features.nonzero_features`). No SimPy here.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mark1._utils.compiled import compiled
from mark1.machine._kernels import features
from mark1.machine._kernels.features import nonzero_features

__all__ = ["LOOKAHEAD", "Deck", "Record", "Step", "Weights", "present", "present_one", "sparse_sums", "unit_rows"]

#: Presentations of a single unit whose sums are computed together, with the weights of
#: the first: four independent chains of additions instead of one (see
#: :mod:`mark1.machine.perceptron`); the sums after a mistake among them are computed again.
#: It is the number of chains :func:`_sums_of_one_unit` writes out by hand: the two change
#: together (tests/test_perceptron.py checks that every one of the ``LOOKAHEAD`` sums is written).
LOOKAHEAD = 4


@compiled(features)
def sparse_sums(X, row, WT, active, out):
    """``out[u] = sum_i X[row, i] * WT[i, u]`` over the nonzero features; their count.

    The compiled sums of the textbook perceptron: each unit's products added in feature
    order, skipping zero features, the units side by side (independent chains), as the
    machine adds its wipers' (:func:`mark1.machine._kernels.pots.wiper_sums`).

    Parameters
    ----------
    X : ndarray of float64, shape (n, d)
        The cards.
    row : int
        The card whose sums are wanted.
    WT : ndarray of float64, shape (>= d, k)
        The weights, one column per unit (rows beyond ``d`` are not read).
    active : ndarray of int64, shape (>= d,)
        Scratch space; receives the indices of the card's nonzero features.
    out : ndarray of float64, shape (k,)
        Receives the sums.

    Returns
    -------
    int
        The number of nonzero features of the card.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 0., 1.], [0., 1., 1.]])
    >>> WT = np.array([[3., 1.], [2., 1.], [-4., 1.]])         # two units
    >>> out, active = np.empty(2), np.empty(3, dtype=np.int64)
    >>> sparse_sums(X, 1, WT, active, out), out.tolist()       # card 1 has two nonzero features
    (2, [-2.0, 2.0])
    """
    n_act = nonzero_features(X, row, active)
    out[:] = 0.0
    for a in range(n_act):
        i = active[a]
        v = X[row, i]
        for u in range(len(out)):
            out[u] += v * WT[i, u]
    return n_act


@compiled
def _nonzero_rows(X):
    """The nonzero entries of ``X`` (n, d), row by row in feature order: ``(ptr, idx, val)``.

    Row ``c``'s features are ``idx[ptr[c]:ptr[c + 1]]`` (int32) with values
    ``val[...]`` (a compressed sparse row layout); ``val`` is empty when every nonzero
    entry is 1 (a binary deck: 4 bytes an entry instead of 12). One pass counts, a
    second writes each entry without a branch, kept by advancing past it only if it is
    nonzero (hence one slot of slack).
    """
    n, d = X.shape
    ptr = np.empty(n + 1, np.int64)
    a = 0
    others = 0                                      # nonzero entries other than 1
    for c in range(n):
        ptr[c] = a
        count = 0
        for i in range(d):
            v = X[c, i]
            count += v != 0.0
            others += (v != 0.0) & (v != 1.0)
        a += count
    ptr[n] = a
    idx = np.empty(a + 1, np.int32)
    val = np.empty(a + 1 if others else 0)
    for c in range(n):
        b = ptr[c]
        for i in range(d):
            v = X[c, i]
            idx[b] = i
            if others:
                val[b] = v
            b += v != 0.0
    return ptr, idx[:a], val[:a]


@compiled
def unit_rows(phi, feeds, unit_of, place, k):
    """Each unit's rows of active inputs, read off binary outputs ``phi`` (n, n_a) bool:
    ``(ptr, idx)``, unit ``u``'s card ``c`` has the inputs ``idx[ptr[u, c]:ptr[u, c + 1]]``
    (int32, each numbered among the unit's own inputs, in order).

    Output ``i`` feeds the units ``unit_of[feeds[i]:feeds[i + 1]]`` as their input
    ``place[...]`` (a column-wise list of who sees what). Each unit's rows lie together in
    ``idx``, unit after unit. ``phi`` is read twice without a branch (a count, then each
    output's number written and kept by stepping past it only if it is on); the outputs
    that are on are then dealt to their units in order, so every row keeps its inputs' order.

    Examples
    --------
    >>> import numpy as np
    >>> phi = np.array([[True, False, True], [False, True, True]])
    >>> feeds = np.array([0, 1, 2, 4])                   # output 2 feeds both units
    >>> unit_of, place = np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1])
    >>> ptr, idx = unit_rows(phi, feeds, unit_of, place, 2)
    >>> ptr.tolist(), idx.tolist()
    ([[0, 2, 3], [3, 4, 6]], [0, 1, 1, 1, 0, 1])
    """
    n, n_a = phi.shape
    on = phi.view(np.uint8)
    row = np.empty(n + 1, np.int64)                  # the outputs that are on, card by card
    a = 0
    for c in range(n):
        row[c] = a
        count = 0
        for i in range(n_a):
            count += on[c, i]
        a += count
    row[n] = a
    which = np.empty(a + 1, np.int32)                # (one slot of slack for the last card's write)
    for c in range(n):
        b = row[c]
        for i in range(n_a):
            which[b] = i
            b += on[c, i]
    counts = np.zeros((n, k), np.int64)
    for c in range(n):
        cur, count = -1, 0                           # a unit's count kept in a register while its inputs run
        for a in range(row[c], row[c + 1]):
            i = which[a]
            for f in range(feeds[i], feeds[i + 1]):
                u = unit_of[f]
                if u != cur:
                    if cur >= 0:
                        counts[c, cur] += count
                    cur, count = u, 0
                count += 1
        if cur >= 0:
            counts[c, cur] += count
    ptr = np.empty((k, n + 1), np.int64)
    a = 0
    for u in range(k):
        for c in range(n):
            ptr[u, c] = a
            a += counts[c, u]
        ptr[u, n] = a
    idx = np.empty(a, np.int32)
    at = np.empty(k, np.int64)
    for c in range(n):
        for u in range(k):
            at[u] = ptr[u, c]
        cur, b = -1, 0                               # likewise the place a unit's next input goes
        for a in range(row[c], row[c + 1]):
            i = which[a]
            for f in range(feeds[i], feeds[i + 1]):
                u = unit_of[f]
                if u != cur:
                    if cur >= 0:
                        at[cur] = b
                    cur, b = u, at[u]
                idx[b] = place[f]
                b += 1
    return ptr, idx


@compiled
def _sums_of_one_unit(X, ptr, idx, val, sparse, cards, w, d, bias, out):
    """``out[b, 0] = w . x`` (plus the bias weight ``w[d]``) for the cards ``cards[0:4]`` (``LOOKAHEAD`` = 4).

    Four independent chains of additions side by side, each adding its card's products
    in feature order (one chain alone waits on each addition). Rows of nonzeros
    (``sparse``): in step up to the shortest row, then each row's rest.
    """
    c0, c1, c2, c3 = cards[0], cards[1], cards[2], cards[3]
    s0 = s1 = s2 = s3 = 0.0
    if sparse:
        a0, a1, a2, a3 = ptr[c0], ptr[c1], ptr[c2], ptr[c3]
        e0, e1, e2, e3 = ptr[c0 + 1], ptr[c1 + 1], ptr[c2 + 1], ptr[c3 + 1]
        steps = min(min(e0 - a0, e1 - a1), min(e2 - a2, e3 - a3))
    if sparse and len(val) == 0:                     # binary: every value is 1
        for j in range(steps):
            s0 += w[idx[a0 + j]]
            s1 += w[idx[a1 + j]]
            s2 += w[idx[a2 + j]]
            s3 += w[idx[a3 + j]]
        for a in range(a0 + steps, e0):
            s0 += w[idx[a]]
        for a in range(a1 + steps, e1):
            s1 += w[idx[a]]
        for a in range(a2 + steps, e2):
            s2 += w[idx[a]]
        for a in range(a3 + steps, e3):
            s3 += w[idx[a]]
    elif sparse:
        for j in range(steps):
            s0 += val[a0 + j] * w[idx[a0 + j]]
            s1 += val[a1 + j] * w[idx[a1 + j]]
            s2 += val[a2 + j] * w[idx[a2 + j]]
            s3 += val[a3 + j] * w[idx[a3 + j]]
        for a in range(a0 + steps, e0):
            s0 += val[a] * w[idx[a]]
        for a in range(a1 + steps, e1):
            s1 += val[a] * w[idx[a]]
        for a in range(a2 + steps, e2):
            s2 += val[a] * w[idx[a]]
        for a in range(a3 + steps, e3):
            s3 += val[a] * w[idx[a]]
    else:
        for i in range(d):
            wi = w[i]
            s0 += X[c0, i] * wi
            s1 += X[c1, i] * wi
            s2 += X[c2, i] * wi
            s3 += X[c3, i] * wi
    if bias:
        s0 += w[d]
        s1 += w[d]
        s2 += w[d]
        s3 += w[d]
    out[0, 0], out[1, 0], out[2, 0], out[3, 0] = s0, s1, s2, s3


@compiled
def _sums_of_units(X, ptr, idx, val, sparse, c, WT, d, bias, out):
    """``out[u] = WT[:, u] . x`` (plus the bias weight ``WT[d, u]``) for card ``c``, every
    unit; ``WT`` has a multiple of 4 columns. Four units at a time side by side (four
    independent chains), each adding the card's products in feature order."""
    lo, hi = (ptr[c], ptr[c + 1]) if sparse else (0, d)
    ones = len(val) == 0                             # binary rows of nonzeros: every value is 1
    for u in range(0, WT.shape[1], 4):
        s0 = s1 = s2 = s3 = 0.0
        for a in range(lo, hi):
            if sparse:
                i, v = idx[a], (1.0 if ones else val[a])
            else:
                i, v = a, X[c, a]
            s0 += v * WT[i, u]
            s1 += v * WT[i, u + 1]
            s2 += v * WT[i, u + 2]
            s3 += v * WT[i, u + 3]
        if bias:
            s0 += WT[d, u]
            s1 += WT[d, u + 1]
            s2 += WT[d, u + 2]
            s3 += WT[d, u + 3]
        out[u], out[u + 1], out[u + 2], out[u + 3] = s0, s1, s2, s3


class Deck(NamedTuple):
    """The cards as :func:`present` reads them: ``X`` (n, d), read through ``ptr, idx, val``
    where ``sparse`` (:func:`mark1.machine.perceptron._rows_read`); ``T`` (n, k) the targets;
    ``seq`` the card of each presentation (empty: presentation ``p`` shows card ``p % m``);
    ``m`` presentations per epoch."""

    X: np.ndarray
    ptr: np.ndarray
    idx: np.ndarray
    val: np.ndarray
    sparse: bool
    T: np.ndarray
    seq: np.ndarray
    m: int


class Weights(NamedTuple):
    """``WT`` (d [+1], kp) the weights, a column per unit (padded to whole groups of 4),
    updated in place; ``w`` the same memory as a vector (a single unit; else empty);
    ``k`` units; ``bias`` whether row ``d`` is a bias weight."""

    WT: np.ndarray
    w: np.ndarray
    k: int
    bias: bool


class Record(NamedTuple):
    """What a run keeps, indexed by presentation: the sums ``rec`` (written if ``record``)
    and the errors ``err`` (n_presentations, k) bool."""

    rec: np.ndarray
    err: np.ndarray
    record: bool


class Step(NamedTuple):
    """How a correction is computed: ``mode`` 1 (``+-x``), 0 (``eta * t * x``) or 2
    (``eta / j``, ``counts`` the updates per unit so far); ``tie`` the tie tolerance of a sum."""

    mode: int
    eta: float
    counts: np.ndarray
    tie: float


@compiled(inline="always")
def _judge(deck, wts, rec, step, p, nb, cards, sums):
    """Record the sums of presentations ``p .. p + nb - 1`` (cards ``cards``) and their
    errors; returns the first of them with an error, as an offset (-1: none)."""
    hit = -1
    for b in range(nb):
        c = cards[b]
        for u in range(wts.k):
            s = sums[b, u]
            if rec.record:
                rec.rec[p + b, u] = s
            if deck.T[c, u] * s <= step.tie:
                rec.err[p + b, u] = True
                hit = b
        if hit >= 0:
            break
    return hit


@compiled(inline="always")
def _correct(deck, wts, err, step, q, c):
    """The correction of every unit that erred at presentation ``q`` (card ``c``), in place."""
    X, idx, val, sparse, WT = deck.X, deck.idx, deck.val, deck.sparse, wts.WT
    d = X.shape[1]
    lo, hi = (deck.ptr[c], deck.ptr[c + 1]) if sparse else (0, d)
    ones = len(val) == 0
    for u in range(wts.k):
        if not err[q, u]:
            continue
        t = deck.T[c, u]
        if step.mode == 1:                                 # (1.0 * t) * x is exactly +-x
            size = t
            if t > 0:
                for a in range(lo, hi):
                    if sparse:
                        WT[idx[a], u] += 1.0 if ones else val[a]
                    else:
                        WT[a, u] += X[c, a]
            else:
                for a in range(lo, hi):
                    if sparse:
                        WT[idx[a], u] -= 1.0 if ones else val[a]
                    else:
                        WT[a, u] -= X[c, a]
        else:
            if step.mode == 2:
                step.counts[u] += 1
                size = (step.eta / step.counts[u]) * t
            else:
                size = step.eta * t
            for a in range(lo, hi):
                if sparse:
                    WT[idx[a], u] += size * (1.0 if ones else val[a])
                else:
                    WT[a, u] += size * X[c, a]
        if wts.bias:
            WT[d, u] += size


@compiled
def present(deck, wts, rec, step, p, p_end, watch, last):
    """The naive loop of :mod:`mark1.machine.perceptron`'s docstring from presentation ``p``
    to ``p_end``, compiled, over named records (:class:`Deck`, :class:`Weights`,
    :class:`Record`, :class:`Step`).

    A single unit computes the sums of the next ``LOOKAHEAD`` presentations at once, with
    the weights of the first: each is final up to the first mistake among them
    (:func:`_judge`); the correction is :func:`_correct`. With ``watch`` it returns at the
    end of an epoch without a mistake. Returns (the next presentation, the last
    presentation with a mistake).
    """
    X, m = deck.X, deck.m
    d = X.shape[1]
    kp = wts.WT.shape[1]
    cyclic = len(deck.seq) == 0
    stop_at = (last // m + 2) * m if watch else p_end
    sums = np.zeros((LOOKAHEAD, kp))
    cards = np.empty(LOOKAHEAD, np.int64)
    while p < min(p_end, stop_at):
        nb = min(LOOKAHEAD if kp == 1 else 1, min(p_end, stop_at) - p)
        for b in range(LOOKAHEAD):             # (beyond nb: the last card again, its sums unused)
            q = p + min(b, nb - 1)
            cards[b] = q % m if cyclic else deck.seq[q]
        if kp == 1:
            _sums_of_one_unit(X, deck.ptr, deck.idx, deck.val, deck.sparse, cards, wts.w, d, wts.bias, sums)
        else:
            _sums_of_units(X, deck.ptr, deck.idx, deck.val, deck.sparse, cards[0], wts.WT, d, wts.bias, sums[0])
        hit = _judge(deck, wts, rec, step, p, nb, cards, sums)
        if hit < 0:
            p += nb
            continue
        q = p + hit
        _correct(deck, wts, rec.err, step, q, cards[hit])
        last = q
        if watch:
            stop_at = (q // m + 2) * m
        p = q + 1
    return p, last


@compiled
def present_one(deck, wts, rec, step, p, p_end, watch, last):
    """:func:`present` for one unit on binary rows of nonzeros with steps of +-1 (``mode``
    1), one card at a time: the naive loop itself, without the look-ahead.

    A unit of the machine's split rack has about 11 inputs on a card; on rows that short the
    look-ahead's bookkeeping costs more than its four chains save (8 such units, 50,000
    presentations each: 33-38 ms against about 60 ms of :func:`present`, same bits). Each
    sum adds the row's weights in order, then the bias weight; a unit that errs adds ``t``
    (+-1) to the same weights. Same arguments and return as :func:`present`.
    """
    m, idx, w = deck.m, deck.idx, wts.w
    d = deck.X.shape[1]
    cyclic = len(deck.seq) == 0
    stop_at = (last // m + 2) * m if watch else p_end
    while p < min(p_end, stop_at):
        c = p % m if cyclic else deck.seq[p]
        lo, hi = deck.ptr[c], deck.ptr[c + 1]
        s = 0.0
        for a in range(lo, hi):
            s += w[idx[a]]
        if wts.bias:
            s += w[d]
        if rec.record:
            rec.rec[p, 0] = s
        t = deck.T[c, 0]
        if t * s <= step.tie:
            rec.err[p, 0] = True
            for a in range(lo, hi):
                w[idx[a]] += t
            if wts.bias:
                w[d] += t
            last = p
            if watch:
                stop_at = (p // m + 2) * m
        p += 1
    return p, last
