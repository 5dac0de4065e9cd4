"""Minsky and Papert's predicates: parity of blob counts, and connectedness of two bars.

The two classes of a predicate are matched in ink: candidates of each class are drawn,
and each card takes a candidate of its class from a bin of (ink area, dark cells) drawn
from the mass both classes share, so that only the predicate tells the classes apart
(see :func:`mark1.stimuli.render.render_predicate`).
"""

from __future__ import annotations

import math

import numpy as np

from mark1.exceptions import RenderError
from mark1.stimuli.appearance import _BLOCK

__all__ = ["PREDICATES"]

#: Predicates :func:`~mark1.stimuli.render.render_predicate` can draw, with their two class names.
PREDICATES = {"parity": ("even", "odd"), "connectedness": ("connected", "disconnected")}


def _predicate_fit(card_size: int, size: float) -> int:
    """How many blobs of diameter ``size`` fit a card for the parity predicate."""
    cell = size + max(2.0, size / 2)
    per_axis = int((card_size - 2) // cell)
    return per_axis * per_axis


def _parity_blobs(rs, cls, card_size: int, size: float, blobs):
    """Coverage (n, H, W) of separate blobs, odd counts for class 1, and the counts.

    The total blob area is the same for every count, and the cards of both classes are
    chosen to match in ink and dark cells (see :func:`render_predicate`).
    """
    n = len(cls)
    lo, hi = int(blobs[0]), int(blobs[1])
    if lo < 1:
        raise RenderError("blobs", f"expected at least 1 blob on every card (a blank card would show its "
                                   f"class by its lack of ink), got {[lo, hi]!r}")
    fit = _predicate_fit(card_size, size)
    if hi > fit:
        raise RenderError("blobs", f"expected at most {fit} blobs of {size:g} px on a {card_size}-px card, got {hi}")
    choices = [[c for c in range(lo, hi + 1) if c % 2 == 0], [c for c in range(lo, hi + 1) if c % 2 == 1]]
    if not choices[0] or not choices[1]:
        raise RenderError("blobs", f"expected a range of counts holding both even and odd numbers, got {[lo, hi]!r}")
    pools: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []     # counts, radius, cx, cy
    for c, m in enumerate(_pool_sizes(cls)):
        counts = np.array(choices[c])[rs.integers(0, len(choices[c]), size=m)]
        pools.append((counts, *_place_blobs(rs, counts, card_size, size, lo, hi)))
    pick = _match([_features(lambda sl, p=p: _blob_coverage(p[0][sl], p[1][sl], p[2][sl], p[3][sl], card_size),
                             len(p[0]))
                   for p in pools], cls, rs)
    counts, radius, cx, cy = (np.zeros((n,) + a.shape[1:], dtype=a.dtype) for a in pools[0])
    for c in (0, 1):
        cards = np.flatnonzero(cls == c)
        for out, a in zip((counts, radius, cx, cy), pools[c]):
            out[cards] = a[pick[cards]]
    cov = np.zeros((n, card_size, card_size), dtype=np.float32)
    for i in range(0, n, _BLOCK):
        sl = slice(i, i + _BLOCK)
        cov[sl] = _blob_coverage(counts[sl], radius[sl], cx[sl], cy[sl], card_size)
    return cov, counts


def _place_blobs(rs, counts, card_size: int, size: float, lo: int,
                 hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Radii and centres (m, hi) of ``counts`` blobs per card sharing one total area."""
    m = len(counts)
    # the same ink for every count: (lo + hi) / 2 blobs of diameter `size`, shared at random
    total = (lo + hi) / 2 * math.pi * (size / 2) ** 2 * rs.uniform(0.9, 1.1, size=m)
    weight = rs.uniform(0.75, 1.25, size=(m, hi))
    weight[np.arange(hi)[None, :] >= counts[:, None]] = 0.0
    weight = -np.sort(-weight / weight.sum(axis=1, keepdims=True), axis=1)     # largest blob first
    radius = np.sqrt(total[:, None] * weight / math.pi)
    if np.any(card_size / 2 - 1.0 - radius[:, 0] <= 0):
        raise RenderError("size", f"expected blobs that fit the card, got one blob of "
                                  f"{2 * radius[:, 0].max():.1f} px (the ink of {(lo + hi) / 2:g} blobs of "
                                  f"{size:g} px) on a {card_size}-px card")
    gap = max(4.0, size / 2)
    cx = np.zeros((m, hi))
    cy = np.zeros((m, hi))
    for j in range(hi):
        need = np.flatnonzero(counts > j)
        for _ in range(2000):
            if not len(need):
                break
            r = radius[need, j]
            x = rs.uniform(r + 1.0, card_size - r - 1.0)
            y = rs.uniform(r + 1.0, card_size - r - 1.0)
            d = np.hypot(x[:, None] - cx[need, :j], y[:, None] - cy[need, :j])
            ok = np.all(d >= r[:, None] + radius[need, :j] + gap, axis=1)
            cx[need[ok], j], cy[need[ok], j] = x[ok], y[ok]
            need = need[~ok]
        if len(need):
            raise RenderError("blobs", f"expected blobs that fit the card {gap:g} px apart, got no room "
                                       f"for {j + 1} blobs of about {size:g} px on a {card_size}-px card")
    return radius, cx, cy


def _blob_coverage(counts, radius, cx, cy, card_size: int) -> np.ndarray:
    """Coverage (m, H, W) of the blobs placed by :func:`_place_blobs`."""
    px = np.arange(card_size, dtype=np.float32) + np.float32(0.5)
    cov = np.zeros((len(counts), card_size, card_size), dtype=np.float32)
    for j in range(radius.shape[1]):
        dx2 = (px[None, :] - cx[:, j, None].astype(np.float32)) ** 2
        dy2 = (px[None, :] - cy[:, j, None].astype(np.float32)) ** 2
        disc = np.clip(radius[:, j, None, None].astype(np.float32) + np.float32(0.5)
                       - np.sqrt(dy2[:, :, None] + dx2[:, None, :]), 0.0, 1.0)
        disc[counts <= j] = 0.0
        np.maximum(cov, disc, out=cov)
    return cov


#: The grid on which the predicates' dark cells are counted, and how much ink makes a cell
#: dark: the Mark I's 20x20 photocells, whose S-units fire below 35 % of paper-white light.
_CELLS = 20
_DARK = 0.65


def _features(coverage, m: int) -> np.ndarray:
    """(m, 2) ink area (card pixels) and dark cells of ``coverage(slice)``, block by block.

    A dark cell is one of a 20x20 grid over the card more than 65 % covered with ink: a
    stand-in for the photocells of the Mark I the card lights (its S-units fire below 35 %
    of paper-white light).
    """
    out = np.empty((m, 2))
    for i in range(0, m, _BLOCK):
        cov = coverage(slice(i, min(m, i + _BLOCK)))
        H, W = cov.shape[1:]
        ey = np.linspace(0, H, _CELLS + 1).round().astype(int)
        ex = np.linspace(0, W, _CELLS + 1).round().astype(int)
        blocks = np.add.reduceat(np.add.reduceat(cov, ey[:-1], axis=1, dtype=np.float64), ex[:-1], axis=2)
        area = np.outer(np.diff(ey), np.diff(ex))
        out[i:i + len(cov), 0] = cov.sum(axis=(1, 2), dtype=np.float64)
        out[i:i + len(cov), 1] = (blocks > _DARK * area).sum(axis=(1, 2))
    return out


def _pool_sizes(cls) -> np.ndarray:
    """Candidates to draw per class: six per card, so that both classes cover the features."""
    return 6 * np.bincount(cls, minlength=2) + 16


def _match(features, cls, rs, per_sigma: float = 4.0) -> np.ndarray:
    """For each card, a candidate of its class, so that both classes' features share one distribution.

    ``features`` holds the (m_c, d) features of the candidates of class 0 and class 1. The
    features are binned (bins a quarter of their spread wide); each card draws a bin from
    the mass both classes have in common, and takes an unused candidate of its class from
    it. Returns the candidate index of each card within its class's pool.
    """
    both = np.concatenate(features)
    low = both.min(axis=0)
    step = np.maximum(both.std(axis=0), 1e-9) / per_sigma
    dims = np.floor((both - low) / step).astype(np.int64).max(axis=0) + 1
    codes = [np.ravel_multi_index(np.floor((f - low) / step).astype(np.int64).T, dims) for f in features]
    n_bins = int(np.prod(dims))
    have = [np.bincount(c, minlength=n_bins) for c in codes]
    common = np.minimum(have[0], have[1]).astype(np.float64)
    pick = np.empty(len(cls), dtype=np.int64)
    for c in (0, 1):
        cards = np.flatnonzero(cls == c)
        left = have[c].copy()
        weight = common.copy()
        bins = np.empty(0, dtype=np.int64)
        while len(bins) < len(cards):
            if weight.sum() <= 0:  # pragma: no cover - the pools are six times the cards
                raise RenderError("classes", "expected candidates of both classes with the same ink, got too few")
            draw = rs.choice(n_bins, size=len(cards) - len(bins), p=weight / weight.sum())
            order = np.argsort(draw, kind="stable")
            rank = np.empty(len(draw), dtype=np.int64)
            rank[order] = np.arange(len(draw)) - np.searchsorted(draw[order], draw[order])
            draw = draw[rank < left[draw]]                       # within what the class has in that bin
            np.subtract.at(left, draw, 1)
            weight[left <= 0] = 0.0
            bins = np.concatenate([bins, draw])
        # candidates grouped by bin, in random order within a bin
        order = np.lexsort((rs.random(len(codes[c])), codes[c]))
        start = np.searchsorted(codes[c][order], np.arange(n_bins))
        s = np.argsort(bins, kind="stable")
        rank = np.empty(len(bins), dtype=np.int64)
        rank[s] = np.arange(len(bins)) - np.searchsorted(bins[s], bins[s])
        pick[cards] = order[start[bins] + rank]
    return pick


def _segment_distance(p1, p2, q1, q2):
    """Distance between segments p1p2 and q1q2 (arrays of shape (n, 2)); 0 if they cross."""
    def cross(o, a, b):
        return (a[:, 0] - o[:, 0]) * (b[:, 1] - o[:, 1]) - (a[:, 1] - o[:, 1]) * (b[:, 0] - o[:, 0])

    def point_seg(p, a, b):
        ab = b - a
        t = np.clip(((p - a) * ab).sum(1) / np.maximum((ab * ab).sum(1), 1e-12), 0, 1)
        return np.hypot(*(a + t[:, None] * ab - p).T)

    d1, d2 = cross(q1, q2, p1), cross(q1, q2, p2)
    d3, d4 = cross(p1, p2, q1), cross(p1, p2, q2)
    crossing = (d1 * d2 < 0) & (d3 * d4 < 0)
    d = np.minimum.reduce([point_seg(p1, q1, q2), point_seg(p2, q1, q2),
                           point_seg(q1, p1, p2), point_seg(q2, p1, p2)])
    return np.where(crossing, 0.0, d)


def _bars_coverage(seg: np.ndarray, t: float, card_size: int) -> np.ndarray:
    """Coverage (m, H, W) of two round-ended bars ``t`` wide per card; ``seg`` (m, 4, 2)."""
    px = np.arange(card_size, dtype=np.float32) + np.float32(0.5)
    cov = np.zeros((len(seg), card_size, card_size), dtype=np.float32)
    for a, b_ in ((0, 1), (2, 3)):
        A = seg[:, a].astype(np.float32)
        AB = (seg[:, b_] - seg[:, a]).astype(np.float32)
        inv = np.float32(1.0) / np.maximum((AB * AB).sum(-1), np.float32(1e-12))
        ux = px[None, :] - A[:, 0, None]                      # (m, W): x - Ax
        uy = px[None, :] - A[:, 1, None]                      # (m, H): y - Ay
        # position along the bar, separable in x and y, then clipped to the bar
        tt = (ux * (AB[:, 0] * inv)[:, None])[:, None, :] + (uy * (AB[:, 1] * inv)[:, None])[:, :, None]
        np.clip(tt, 0, 1, out=tt)
        dx = ux[:, None, :] - tt * AB[:, 0, None, None]
        dy = uy[:, :, None] - tt * AB[:, 1, None, None]
        d = np.sqrt(dx * dx + dy * dy)
        np.maximum(cov, np.clip(np.float32(t / 2 + 0.5) - d, 0, 1), out=cov)
    return cov


def _bar_pairs(rs, cls, card_size: int, t: float):
    """Coverage (n, H, W) of connected (class 0) and disconnected (class 1) bar pairs
    matched in ink and dark cells, and the gap of each pair."""
    n = len(cls)
    gap = max(3.0, t)
    margin = t / 2 + 1.0
    pool_size = _pool_sizes(cls)
    got: list[list[np.ndarray]] = [[], []]
    for _ in range(1000):
        if all(sum(len(x) for x in got[c]) >= pool_size[c] for c in (0, 1)):
            break
        m = int(max(256, pool_size.max()))
        pts = rs.uniform(margin, card_size - margin, size=(m, 4, 2))
        long_enough = ((np.hypot(*(pts[:, 1] - pts[:, 0]).T) > card_size / 4)
                       & (np.hypot(*(pts[:, 3] - pts[:, 2]).T) > card_size / 4))
        d = _segment_distance(pts[:, 0], pts[:, 1], pts[:, 2], pts[:, 3])
        got[0].append(pts[long_enough & (d <= t * 0.5)])
        got[1].append(pts[long_enough & (d >= t + gap)])
    pools = [np.concatenate(g)[:pool_size[c]] for c, g in enumerate(got)]
    if any(len(pools[c]) < pool_size[c] for c in (0, 1)):  # pragma: no cover - needs an absurd card
        raise RenderError("thickness", f"expected bars that fit the card, got thickness {t:g} px")
    pick = _match([_features(lambda sl, p=p: _bars_coverage(p[sl], t, card_size), len(p)) for p in pools],
                  cls, rs)
    seg = np.empty((n, 4, 2))
    for c in (0, 1):
        cards = np.flatnonzero(cls == c)
        seg[cards] = pools[c][pick[cards]]
    cov = np.zeros((n, card_size, card_size), dtype=np.float32)
    for i in range(0, n, _BLOCK):
        cov[i:i + _BLOCK] = _bars_coverage(seg[i:i + _BLOCK], t, card_size)
    return cov, _segment_distance(seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3])
