"""The print of each card: blur, smudges, ink contrast, paper and noise on the ink coverage.

Applied block by block to the coverage a source draws: Gaussian blur of the coverage,
soft random smudges added to it, reflectance ``paper * (1 - contrast * coverage)``, then
additive Gaussian noise and clipping to [0, 1].
"""

from __future__ import annotations

import math

import numpy as np

from mark1.stimuli.jitter import Jitter, _uniform

__all__: list[str] = []


def _blur_matrices(sigmas: np.ndarray, size: int) -> np.ndarray:
    """(m, size, size) Gaussian blur matrices; ink near an edge spreads off the card."""
    d = np.arange(size)[:, None] - np.arange(size)[None, :]
    s = np.maximum(sigmas, 1e-3)[:, None, None]
    g = np.exp(-0.5 * (d[None] / s) ** 2)
    # normalise by the sum over an infinite line, so that paper stays paper at the edges
    r = np.arange(-size, size + 1)
    norm = np.exp(-0.5 * (r[None, :] / s[:, :, 0]) ** 2).sum(axis=1)
    return (g / norm[:, None, None]).astype(np.float32)


def _blur_block(cov: np.ndarray, sigmas: np.ndarray) -> np.ndarray:
    """Gaussian blur of each card (m, H, W) with its own sigma; ink may spread off the card."""
    m, H, W = cov.shape
    r = int(math.ceil(3 * sigmas.max()))
    if r > 8 or r >= min(H, W):                  # wide kernels: dense blur matrices
        B = _blur_matrices(sigmas, H)
        Bw = B if W == H else _blur_matrices(sigmas, W)
        return np.clip(B @ cov @ np.swapaxes(Bw, 1, 2), 0.0, 1.0)
    d = np.arange(-r, r + 1)
    w = np.exp(-0.5 * (d[None, :] / sigmas[:, None]) ** 2)
    w = (w / w.sum(axis=1, keepdims=True)).astype(np.float32)[:, :, None, None]
    pad = np.zeros((m, H, W + 2 * r), dtype=np.float32)
    pad[:, :, r:r + W] = cov
    out = w[:, 0] * pad[:, :, 0:W]
    for k in range(1, 2 * r + 1):
        out += w[:, k] * pad[:, :, k:k + W]
    pad = np.zeros((m, H + 2 * r, W), dtype=np.float32)
    pad[:, r:r + H, :] = out
    out = w[:, 0] * pad[:, 0:H]
    for k in range(1, 2 * r + 1):
        out += w[:, k] * pad[:, k:k + H]
    return np.clip(out, 0.0, 1.0)


_BLOCK = 256   # cards per block: coverage, blur, smudges, contrast and noise stay in cache


def _appearance(coverage, n: int, H: int, W: int, streams, jitter: Jitter, variation: dict) -> np.ndarray:
    """Blur, smudges, contrast/paper and noise, block by block.

    ``coverage(sl)`` returns the float32 ink coverage (m, H, W) of the cards in slice
    ``sl``; every random number is drawn up front (or, for the noise, block by block in
    a fixed order), so the result does not depend on anything but the seed.
    Returns the reflectance, float64 (n, H, W).
    """
    ra = streams["appearance"]
    contrast = _uniform(ra, jitter.contrast, n)
    paper = _uniform(ra, jitter.paper, n)
    blur = _uniform(ra, jitter.blur, n)
    noise = _uniform(ra, jitter.noise, n)

    rs = streams["smudges"]
    lo, hi = (int(v) for v in jitter.smudges)
    slots = hi
    if slots > 0:
        counts = rs.integers(lo, hi + 1, size=n)
        cx = rs.uniform(0, W, size=(n, slots))
        cy = rs.uniform(0, H, size=(n, slots))
        rad = rs.uniform(*jitter.smudge_size, size=(n, slots))
        dark = rs.uniform(*jitter.smudge_contrast, size=(n, slots))
        dark = np.where(np.arange(slots)[None, :] < counts[:, None], dark, 0.0)
    else:
        counts = np.zeros(n, dtype=np.int64)
    px = np.arange(W) + 0.5
    py = np.arange(H) + 0.5
    rn = streams["noise"]
    noisy = jitter.noise[1] > 0

    cards = np.empty((n, H, W), dtype=np.float64)
    for b0 in range(0, n, _BLOCK):
        sl = slice(b0, min(n, b0 + _BLOCK))
        cov = np.array(coverage(sl), dtype=np.float32, copy=True)
        todo = np.nonzero(blur[sl] > 0.01)[0]          # below 1/100 pixel, blur changes nothing
        if len(todo):
            cov[todo] = _blur_block(cov[todo], blur[sl][todo])
        if slots > 0:
            keep = np.ones_like(cov)
            for j in range(slots):
                d = dark[sl, j]
                if not d.any():
                    continue
                sig = np.maximum(rad[sl, j] / 2.0, 1e-3)[:, None]
                gx = np.exp(-0.5 * ((px[None, :] - cx[sl, j, None]) / sig) ** 2)
                gy = np.exp(-0.5 * ((py[None, :] - cy[sl, j, None]) / sig) ** 2)
                keep *= (1.0 - d[:, None, None] * gy[:, :, None] * gx[:, None, :]).astype(np.float32)
            cov = 1.0 - (1.0 - cov) * keep
        cov *= -contrast[sl, None, None].astype(np.float32)
        cov += np.float32(1.0)
        cov *= paper[sl, None, None].astype(np.float32)
        out = cards[sl]
        out[...] = cov
        if noisy:
            z = rn.standard_normal(cov.shape, dtype=np.float32)
            out += noise[sl, None, None] * z
        np.clip(out, 0.0, 1.0, out=out)
    variation.update(contrast=contrast, paper=paper, blur=blur, noise=noise, smudges=counts)
    return cards
