"""Ink masks: a glyph or a shape drawn once with Pillow, finer than the card, and cached.

A mask is the ink coverage of one character (in a font, at a size and stroke) or one
geometric shape, drawn at ``oversample`` times the card resolution and box-filtered to
one card pixel, so that sampling it at card-pixel spacing approximates area sampling.
Every card of that character or shape is then the mask seen through the card's own
affine map (:mod:`mark1.stimuli.warps`).
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from PIL import Image, ImageDraw

from mark1.exceptions import RenderError
from mark1.stimuli.fonts import _load_font

__all__ = ["SHAPES", "Mask", "oversample_for", "glyph_mask", "shape_mask"]

#: Shapes :func:`shape_mask` (and :func:`~mark1.stimuli.render.render_shapes`) can draw.
SHAPES = ("square", "circle", "diamond", "triangle", "hbar", "vbar")


class Mask(NamedTuple):
    """A high-resolution ink mask and where its centre is.

    ``array`` is float32 (h, w) coverage in [0, 1] at ``oversample`` pixels per card
    pixel, already box-filtered to one card pixel so that sampling it at card-pixel
    spacing approximates area sampling; it has a border of at least two zero pixels.
    ``center`` is the (x, y) centre of the ink's bounding box in continuous mask
    coordinates (pixel i spans [i, i + 1)).

    Attributes
    ----------
    array : ndarray of shape (h, w), float32
        Ink coverage in [0, 1], read-only (masks are cached and shared).
    center : (float, float)
        (x, y) centre of the ink's bounding box, in mask pixels.
    oversample : int
        Mask pixels per card pixel.

    Examples
    --------
    >>> from mark1.stimuli.masks import shape_mask
    >>> mask = shape_mask("square", size=20, oversample=2)
    >>> mask.array.shape, mask.array.dtype, mask.oversample
    ((51, 51), dtype('float32'), 2)
    >>> [round(float(c), 2) for c in mask.center]
    [25.13, 25.13]
    >>> round(float(mask.array.sum()) / mask.oversample ** 2)     # ink in card pixels: about 20 x 20
    405
    """

    array: np.ndarray
    center: tuple
    oversample: int


def oversample_for(card_size: int) -> int:
    """Mask resolution in pixels per card pixel: 4 for cards up to 64 px, fewer above.

    Parameters
    ----------
    card_size : int
        Card side in pixels.

    Returns
    -------
    int
        The ``oversample`` of the masks drawn for such a card, 1 to 4.

    Examples
    --------
    >>> from mark1.stimuli.masks import oversample_for
    >>> oversample_for(60), oversample_for(128), oversample_for(512)
    (4, 2, 1)
    """
    return int(min(4, max(1, round(256 / card_size))))


def _prefilter(a: np.ndarray, k: int) -> np.ndarray:
    """Box filter one card pixel (k mask pixels) wide, centred, separable."""
    if k <= 1:
        return a
    if k % 2:
        kern = np.ones(k)
    else:
        kern = np.ones(k + 1)
        kern[0] = kern[-1] = 0.5
    kern /= kern.sum()
    a = np.apply_along_axis(lambda r: np.convolve(r, kern, mode="same"), 0, a)
    a = np.apply_along_axis(lambda r: np.convolve(r, kern, mode="same"), 1, a)
    return a


def _finish_mask(a: np.ndarray, k: int, setting: str, what: str) -> Mask:
    """Crop to the ink, pad, prefilter and locate the centre of the ink's bounding box."""
    a = np.asarray(a, dtype=np.float64)
    ys, xs = np.nonzero(a > 1e-3)
    if len(xs) == 0:
        raise RenderError(setting, f"expected something to draw, got a blank card for {what}")
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    pad = k + 3
    crop = np.zeros((y1 - y0 + 2 * pad, x1 - x0 + 2 * pad))
    crop[pad:pad + y1 - y0, pad:pad + x1 - x0] = a[y0:y1, x0:x1]
    # sub-pixel bounding box: a partly covered edge column/row counts by its coverage
    col, row = a[y0:y1, x0:x1].max(axis=0), a[y0:y1, x0:x1].max(axis=1)
    left, right = 1.0 - col[0], (x1 - x0) - 1.0 + col[-1]
    top, bottom = 1.0 - row[0], (y1 - y0) - 1.0 + row[-1]
    crop = np.clip(_prefilter(crop, k), 0.0, 1.0).astype(np.float32)
    crop.setflags(write=False)
    center = (pad + (left + right) / 2.0, pad + (top + bottom) / 2.0)
    return Mask(crop, center, k)


@functools.lru_cache(maxsize=1024)
def glyph_mask(text: str, font: str = "default", size: float = 40, stroke: float = 0.0,
               oversample: int = 4) -> Mask:
    """The cached high-resolution ink mask of ``text``.

    Parameters
    ----------
    text : str
        One character (or a short string) to draw.
    font : str
        ``"default"`` for Pillow's bundled scalable font, or the path of a TTF/OTF file.
    size : float
        Font size in card pixels (the em size).
    stroke : float
        Extra stroke weight in card pixels (Pillow's ``stroke_width``); 0 is the plain face.
    oversample : int
        Mask pixels per card pixel.

    Returns
    -------
    Mask
        The ink coverage of ``text``, cached: the same arguments give the same object.

    Raises
    ------
    RenderError
        ``setting == "font"`` for a font that cannot be loaded or cannot draw ``text``,
        ``"classes"`` for a blank glyph, ``"size"`` for an absurd size.

    Examples
    --------
    >>> from mark1.stimuli.masks import glyph_mask
    >>> mask = glyph_mask("X", size=20)
    >>> mask.array.shape, mask.array.dtype, float(mask.array.min()), float(mask.array.max())
    ((70, 62), dtype('float32'), 0.0, 1.0)
    >>> glyph_mask("X", size=20) is mask
    True
    """
    k = int(oversample)
    px = max(1, int(round(size * k)))
    sw = int(round(stroke * k))
    f = _load_font(font, px)
    try:
        l, t, r, b = f.getbbox(text, stroke_width=sw)
        w, h = int(r - l) + 4 * k, int(b - t) + 4 * k
        if w <= 0 or h <= 0 or w * h > 64e6:
            raise RenderError("size", f"expected a glyph of sensible size, got {w}x{h} mask pixels")
        img = Image.new("L", (w, h), 0)
        ImageDraw.Draw(img).text((2 * k - l, 2 * k - t), text, font=f, fill=255,
                                 stroke_width=sw, stroke_fill=255)
    except RenderError:
        raise
    except Exception as exc:
        raise RenderError("font", f"expected a font that can draw {text!r}, got {exc}") from exc
    return _finish_mask(np.asarray(img, dtype=np.float64) / 255.0, k, "classes", f"{text!r}")


def _shape_polygon(shape: str, size: float, inset: float):
    """Polygon vertices (x, y) around the origin, or ('circle', r), for a shape inset by ``inset``."""
    s = size
    if shape == "circle":
        return ("circle", s / 2 - inset)
    if shape == "square":
        h = s / 2 - inset
        return [(-h, -h), (h, -h), (h, h), (-h, h)]
    if shape == "diamond":  # the square turned by 45 degrees (same side)
        h = (s / 2 - inset) * math.sqrt(2)
        return [(0, -h), (h, 0), (0, h), (-h, 0)]
    if shape == "triangle":  # equilateral, side s, pointing up; insets share the incentre
        r_in = s / (2 * math.sqrt(3)) - inset
        if r_in <= 0:
            return []
        half_side = math.sqrt(3) * r_in
        return [(0, -2 * r_in), (half_side, r_in), (-half_side, r_in)]
    if shape in ("hbar", "vbar"):
        hl, hw = s / 2 - inset, s / 8 - inset
        if shape == "vbar":
            hl, hw = hw, hl
        return [(-hl, -hw), (hl, -hw), (hl, hw), (-hl, hw)]
    raise RenderError("classes", f"expected shapes from {', '.join(SHAPES)}, got {shape!r}")


@functools.lru_cache(maxsize=256)
def shape_mask(shape: str, size: float = 36, fill: str = "solid", thickness: float = 3.0,
               oversample: int = 4) -> Mask:
    """The cached high-resolution mask of a geometric shape.

    Parameters
    ----------
    shape : str
        One of :data:`SHAPES`: ``square`` (side ``size``), ``circle`` (diameter ``size``),
        ``diamond`` (the square turned 45°), ``triangle`` (equilateral, side ``size``),
        ``hbar`` / ``vbar`` (``size`` long, ``size / 4`` wide).
    size : float
        In card pixels.
    fill : {"solid", "outline"}
    thickness : float
        Line thickness of an outline, in card pixels, drawn inwards from the edge.
    oversample : int
        Mask pixels per card pixel.

    Returns
    -------
    Mask
        The ink coverage of the shape, cached.

    Raises
    ------
    RenderError
        ``setting == "classes"`` for an unknown shape, ``"fill"`` for an unknown fill.

    Examples
    --------
    >>> from mark1.stimuli.masks import shape_mask
    >>> solid = shape_mask("square", size=20, oversample=2)
    >>> outline = shape_mask("square", size=20, fill="outline", thickness=2, oversample=2)
    >>> round(float(solid.array.sum()) / 4), round(float(outline.array.sum()) / 4)   # card pixels of ink
    (405, 145)
    """
    if fill not in ("solid", "outline"):
        raise RenderError("fill", f"expected 'solid' or 'outline', got {fill!r}")
    k = int(oversample)
    ss = 4  # supersampling of Pillow's aliased polygons
    scale = k * ss
    half = int(math.ceil(size * 0.75 * scale)) + 2 * scale
    dim = 2 * half
    img = Image.new("L", (dim, dim), 0)
    draw = ImageDraw.Draw(img)

    def paint(inset, value):
        poly = _shape_polygon(shape, size, inset)
        if isinstance(poly, tuple):
            r = poly[1] * scale
            if r > 0:
                draw.ellipse([half - r, half - r, half + r, half + r], fill=value)
        elif poly:
            draw.polygon([(half + x * scale, half + y * scale) for x, y in poly], fill=value)

    paint(0.0, 255)
    if fill == "outline":
        paint(float(thickness), 0)
    img = img.reduce(ss)
    return _finish_mask(np.asarray(img, dtype=np.float64) / 255.0, k, "size", f"shape {shape!r}")
