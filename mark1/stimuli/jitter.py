"""What varies from card to card: the ranges a scene sets, and the streams they are drawn from.

A :class:`Jitter` holds the range of every variation (position, rotation, scale, slant,
ink, paper, noise, smudges, blur). Each card's values are drawn from the ``seed`` of the
render call, split into independent streams for the source (positions, image choice),
geometry, appearance, smudges and noise, so that e.g. turning noise on never moves a glyph.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from mark1.exceptions import RenderError

__all__ = ["Jitter", "NO_JITTER"]


@dataclass(frozen=True)
class Jitter:
    """Ranges of the per-card variation, each a pair ``(low, high)`` sampled uniformly.

    Attributes
    ----------
    shift : (float, float)
        Position shift as a fraction of the card side, drawn independently for x and y.
    rotation : (float, float)
        Rotation in degrees, counter-clockwise as seen on the card.
    scale : (float, float)
        Size factor (1 keeps the size).
    slant : (float, float)
        Extra shear in degrees (positive leans the top to the right), on top of the
        fixed ``slant`` of the typeface.
    contrast : (float, float)
        Ink darkness relative to the paper: ink reflectance = paper × (1 − contrast).
    paper : (float, float)
        Reflectance of the paper (1 = white).
    noise : (float, float)
        Standard deviation of additive Gaussian noise, in reflectance units.
    smudges : (int, int)
        Number of random blots per card.
    smudge_size : (float, float)
        Radius of a blot in card pixels.
    smudge_contrast : (float, float)
        Darkness of a blot's centre (1 = as dark as full ink).
    blur : (float, float)
        Gaussian blur standard deviation in card pixels (0 = sharp print).

    Examples
    --------
    >>> from mark1.stimuli import Jitter, render_characters
    >>> jitter = Jitter(shift=(-0.1, 0.1), rotation=(-30.0, 30.0))
    >>> jitter.geometric, Jitter(noise=(0.0, 0.05)).geometric
    (True, False)
    >>> cards = render_characters(["X", "E"], seed=0, jitter=jitter)
    >>> bool(abs(cards.variation["rotation"]).max() <= 30.0)
    True
    >>> Jitter(rotation=(30.0, -30.0))
    Traceback (most recent call last):
        ...
    mark1.exceptions.RenderError: jitter.rotation: expected finite low <= high, got (30.0, -30.0)
    """

    shift: tuple = (0.0, 0.0)
    rotation: tuple = (0.0, 0.0)
    scale: tuple = (1.0, 1.0)
    slant: tuple = (0.0, 0.0)
    contrast: tuple = (1.0, 1.0)
    paper: tuple = (1.0, 1.0)
    noise: tuple = (0.0, 0.0)
    smudges: tuple = (0, 0)
    smudge_size: tuple = (2.0, 5.0)
    smudge_contrast: tuple = (0.3, 0.8)
    blur: tuple = (0.0, 0.0)

    def __post_init__(self):
        for f in fields(self):
            lo, hi = getattr(self, f.name)
            if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
                raise RenderError(f"jitter.{f.name}", f"expected finite low <= high, got {(lo, hi)!r}")

    @property
    def geometric(self) -> bool:
        """True when any of shift, rotation, scale or slant varies or differs from identity."""
        return (self.shift != (0.0, 0.0) or self.rotation != (0.0, 0.0)
                or self.scale != (1.0, 1.0) or self.slant != (0.0, 0.0))


NO_JITTER = Jitter()


def _streams(seed) -> dict[str, np.random.Generator]:
    """Independent generators for each aspect of the cards."""
    if isinstance(seed, np.random.SeedSequence):
        ss = seed
    else:
        ss = np.random.SeedSequence(seed)
    names = ("source", "geometry", "appearance", "smudges", "noise")
    # Build the children explicitly (equivalent to ss.spawn) so that the caller's
    # SeedSequence is not mutated and repeated calls give the same streams.
    return {n: np.random.Generator(np.random.PCG64(
        np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (i,),
                               pool_size=ss.pool_size)))
            for i, n in enumerate(names)}


def _uniform(rng: np.random.Generator, rng_pair, n: int) -> np.ndarray:
    lo, hi = rng_pair
    return rng.uniform(lo, hi, size=n)
