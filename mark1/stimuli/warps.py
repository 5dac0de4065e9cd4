"""The geometry of each card: its affine map drawn from the jitter, and the vectorized warp.

Each card gets its own map (shift, rotation, scale, slant) from the glyph frame to the
card; a mask is drawn through it by inverse mapping and bilinear interpolation,
vectorized over the whole batch with numpy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mark1.stimuli.jitter import Jitter, _uniform
from mark1.stimuli.masks import Mask

__all__: list[str] = []


def _stack(masks: Sequence[Mask]):
    """One zero-bordered float32 array (G, h, w) for all masks, and their centres (G, 2)."""
    h = max(m.array.shape[0] for m in masks)
    w = max(m.array.shape[1] for m in masks)
    stack = np.zeros((len(masks), h, w), dtype=np.float32)
    centers = np.empty((len(masks), 2))
    for g, m in enumerate(masks):
        mh, mw = m.array.shape
        oy, ox = (h - mh) // 2, (w - mw) // 2
        stack[g, oy:oy + mh, ox:ox + mw] = m.array
        centers[g] = (ox + m.center[0], oy + m.center[1])
    return stack, centers


def _linear_maps(n, rotation, scale, slant):
    """Forward 2×2 maps (glyph frame → card, both in card pixels), shape (n, 2, 2).

    Image coordinates: x to the right, y downwards. Slant shears x by −tan(slant)·y (the
    top leans right for a positive slant); rotation is counter-clockwise as seen.
    """
    th = np.deg2rad(rotation)
    c, s = np.cos(th), np.sin(th)
    t = np.tan(np.deg2rad(slant))
    # R = [[c, s], [-s, c]]; S = scale * I; Sh = [[1, -t], [0, 1]]
    m = np.empty((n, 2, 2))
    m[:, 0, 0] = scale * c
    m[:, 0, 1] = scale * (-c * t + s)
    m[:, 1, 0] = scale * (-s)
    m[:, 1, 1] = scale * (s * t + c)
    return m


def _warp(stack: np.ndarray, centers: np.ndarray, which: np.ndarray, forward: np.ndarray,
         offset: np.ndarray, card_size: int, oversample: int, *, chunk: int = 32) -> np.ndarray:
    """Draw masks onto cards through per-card affine maps (bilinear inverse mapping).

    Parameters
    ----------
    stack : ndarray of shape (G, h, w), float32
        Masks with a zero border of at least two pixels.
    centers : ndarray of shape (G, 2)
        (x, y) centre of each mask in continuous mask coordinates.
    which : ndarray of shape (n,), int
        Mask index of each card.
    forward : ndarray of shape (n, 2, 2)
        Linear map from the glyph frame to the card, in card pixels.
    offset : ndarray of shape (n, 2)
        (x, y) position of the glyph centre relative to the card centre, in card pixels.
    card_size : int
    oversample : int
        Mask pixels per card pixel.

    Returns
    -------
    ndarray of shape (n, card_size, card_size), float32
        Ink coverage.
    """
    n = len(which)
    G, h, w = stack.shape
    H = W = int(card_size)
    k = float(oversample)
    inv = np.linalg.inv(forward) * k                     # card offset → mask pixels
    # source = inv @ (p - offset) + center - 0.5 (index coordinates of pixel centres)
    b = centers[which] - 0.5 - np.einsum("nij,nj->ni", inv, offset)
    inv = inv.astype(np.float32)
    b = b.astype(np.float32)
    ax = (np.arange(W, dtype=np.float32) + np.float32(0.5) - np.float32(W / 2))
    ay = (np.arange(H, dtype=np.float32) + np.float32(0.5) - np.float32(H / 2))
    X = np.broadcast_to(ax[None, :], (H, W)).reshape(-1)
    Y = np.broadcast_to(ay[:, None], (H, W)).reshape(-1)
    flat = stack.reshape(-1)
    base = (which.astype(np.int64) * (h * w)).astype(np.int32)
    out = np.empty((n, H * W), dtype=np.float32)
    xmax, ymax = np.float32(w - 1.001), np.float32(h - 1.001)
    for i0 in range(0, n, chunk):
        sl = slice(i0, min(n, i0 + chunk))
        A = inv[sl]
        sx = A[:, 0, 0, None] * X
        sx += A[:, 0, 1, None] * Y
        sx += b[sl, 0, None]
        sy = A[:, 1, 0, None] * X
        sy += A[:, 1, 1, None] * Y
        sy += b[sl, 1, None]
        np.clip(sx, 0, xmax, out=sx)
        np.clip(sy, 0, ymax, out=sy)
        x0 = sx.astype(np.int32)
        y0 = sy.astype(np.int32)
        sx -= x0
        sy -= y0
        idx = y0
        idx *= w
        idx += x0
        idx += base[sl, None]
        v00 = flat.take(idx)
        v01 = flat.take(idx + 1)
        idx += w
        v10 = flat.take(idx)
        v11 = flat.take(idx + 1)
        v01 -= v00
        v01 *= sx
        v00 += v01           # top row
        v11 -= v10
        v11 *= sx
        v10 += v11           # bottom row
        v10 -= v00
        v10 *= sy
        v00 += v10
        out[sl] = v00
    np.clip(out, 0.0, 1.0, out=out)
    return out.reshape(n, H, W)


def _geometry(rng, n, jitter: Jitter, card_size: int, slant: float = 0.0):
    """Sample shift, rotation, scale and slant; return forward maps, offsets, variation."""
    sx = _uniform(rng, jitter.shift, n)
    sy = _uniform(rng, jitter.shift, n)
    rot = _uniform(rng, jitter.rotation, n)
    sc = _uniform(rng, jitter.scale, n)
    sl = _uniform(rng, jitter.slant, n) + slant
    fwd = _linear_maps(n, rot, sc, sl)
    offset = np.stack([sx, sy], axis=1) * card_size
    var = dict(shift_x=sx, shift_y=sy, rotation=rot, scale=sc, slant=sl)
    return fwd, offset, var
