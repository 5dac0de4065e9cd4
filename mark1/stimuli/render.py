"""Cards for the camera: characters, shapes, marks, predicate patterns and the user's images.

A *card* is what was put in front of the Mark I's camera: a float64 image of
reflectance in [0, 1] (1 = paper white, 0 = black ink), rendered at a resolution finer
than the 20×20 retina (60×60 by default). The camera in :mod:`mark1.retina` averages it
down; nothing here downsamples to the retina.

Every card is made in the same steps:

1. **coverage** — the fraction of each card pixel covered by ink, in [0, 1]. Characters
   and shapes are drawn once per (text, font, size, stroke) with Pillow at ``oversample``
   times the card resolution and cached (a *glyph mask*); each card then gets its own
   affine map (shift, rotation, scale, slant) applied by inverse mapping and bilinear
   interpolation, vectorized over the whole batch with numpy. Marks, blob patterns and
   bar figures are drawn analytically in numpy; the user's images are read with Pillow.
2. **blur** (Gaussian, per card) of the coverage.
3. **smudges** — soft random blots added to the coverage.
4. **reflectance** ``paper * (1 - contrast * coverage)``.
5. **noise** — additive Gaussian noise on the reflectance, then clipping to [0, 1].

Randomness comes only from the ``seed`` argument (an int or a
:class:`numpy.random.SeedSequence`), split into independent streams for the source
(positions, image choice), geometry, appearance, smudges and noise, so that e.g. turning
noise on never moves a glyph. Same seed → identical bits.

Pillow is imported here and in :mod:`mark1.plotting` only.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, fields
from typing import NamedTuple, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont, ImageOps
from mark1.exceptions import InputError, RenderError

__all__ = [
    "RenderError",
    "Jitter",
    "NO_JITTER",
    "Rendered",
    "Mask",
    "SHAPES",
    "PREDICATES",
    "IMAGE_EXTENSIONS",
    "glyph_mask",
    "shape_mask",
    "missing_characters",
    "check_font",
    "font_file",
    "MATPLOTLIB_FONT",
    "render_characters",
    "render_shapes",
    "render_marks",
    "render_predicate",
    "render_images",
    "read_image",
    "list_image_folder",
    "warp",
    "oversample_for",
    "predicate_fit",
]

#: Shapes :func:`render_shapes` can draw.
SHAPES = ("square", "circle", "diamond", "triangle", "hbar", "vbar")
#: Predicates :func:`render_predicate` can draw, with their two class names.
PREDICATES = {"parity": ("even", "odd"), "connectedness": ("connected", "disconnected")}
#: File name endings read as images by :func:`list_image_folder` (case-insensitive).
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")
#: Font names starting with this prefix name a TrueType face shipped with matplotlib, so that a
#: scene can use a second typeface on any machine: ``"matplotlib:DejaVuSerif.ttf"``.
MATPLOTLIB_FONT = "matplotlib:"

_F = np.float32


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


class Rendered(NamedTuple):
    """Cards and the variation sampled for each of them.

    Attributes
    ----------
    cards : ndarray of shape (n_cards, H, W), float64
        Reflectance in [0, 1].
    variation : dict of str to ndarray of shape (n_cards,)
        The values drawn for each card: ``shift_x``, ``shift_y`` (fractions of the card;
        for marks the mark's position), ``rotation``, ``slant`` (degrees), ``scale``,
        ``contrast``, ``paper``, ``noise``, ``smudges``, ``blur``, and source-specific ones
        (``blobs`` for parity, ``image`` for folders).
    """

    cards: np.ndarray
    variation: dict


# ----------------------------------------------------------------------------------------
# randomness


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


# ----------------------------------------------------------------------------------------
# fonts shipped with matplotlib


def font_file(font: str) -> str:
    """The font file a font name means.

    ``"matplotlib:NAME"`` is the TrueType face ``NAME`` shipped with matplotlib (in
    ``matplotlib.get_data_path()/fonts/ttf``: DejaVu Sans, Serif and Sans Mono, STIX, and
    Computer Modern such as ``cmr10.ttf``); any other name is returned unchanged.

    Raises
    ------
    RenderError
        ``setting == "font"`` when matplotlib ships no such face.
    """
    if not font.startswith(MATPLOTLIB_FONT):
        return font
    import matplotlib  # only for the location of its fonts

    folder = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    name = font[len(MATPLOTLIB_FONT):]
    shipped = sorted(f for f in os.listdir(folder) if f.lower().endswith((".ttf", ".otf"))) \
        if os.path.isdir(folder) else []
    if name not in shipped:
        examples = [f for f in ("DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf", "STIXGeneral.ttf",
                                "cmr10.ttf") if f in shipped]
        raise RenderError("font", f"expected a face shipped with matplotlib, e.g. "
                                  f"{', '.join(MATPLOTLIB_FONT + f for f in examples)} "
                                  f"({len(shipped)} faces in {folder}), got {font!r}")
    return os.path.join(folder, name)


# ----------------------------------------------------------------------------------------
# glyph masks (cached, Pillow)


class Mask(NamedTuple):
    """A high-resolution ink mask and where its centre is.

    ``array`` is float32 (h, w) coverage in [0, 1] at ``oversample`` pixels per card
    pixel, already box-filtered to one card pixel so that sampling it at card-pixel
    spacing approximates area sampling; it has a border of at least two zero pixels.
    ``center`` is the (x, y) centre of the ink's bounding box in continuous mask
    coordinates (pixel i spans [i, i + 1)).
    """

    array: np.ndarray
    center: tuple
    oversample: int


def oversample_for(card_size: int) -> int:
    """Mask resolution in pixels per card pixel: 4 for cards up to 64 px, fewer above."""
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
    crop = np.clip(_prefilter(crop, k), 0.0, 1.0).astype(_F)
    crop.setflags(write=False)
    center = (pad + (left + right) / 2.0, pad + (top + bottom) / 2.0)
    return Mask(crop, center, k)


@functools.lru_cache(maxsize=64)
def _load_font(font: str, px: int):
    font = font_file(font)                       # "matplotlib:NAME" means a file too
    if font == "default":
        try:
            return ImageFont.load_default(size=px)
        except Exception as exc:  # pragma: no cover - Pillow without FreeType
            raise RenderError("font", f"expected Pillow with FreeType for the default font, got {exc}")
    if not os.path.isfile(font):
        raise RenderError("font", f"expected 'default' or an existing TTF/OTF file, got {font!r} (no such file)")
    try:
        return ImageFont.truetype(font, px)
    except Exception as exc:
        raise RenderError("font", f"expected a readable TTF/OTF font, got {font!r} ({exc})")


def check_font(font: str) -> None:
    """Raise :class:`RenderError` unless ``font`` ("default", ``"matplotlib:NAME"`` or a path) can be loaded."""
    _load_font(font, 20)


def missing_characters(text: str, font: str = "default") -> list[str]:
    """Characters of ``text`` the font has no glyph for (drawn as its 'missing' box)."""
    notdef = _char_signature("\uffff", font)   # a noncharacter: never in any font
    return [ch for ch in dict.fromkeys(text) if not ch.isspace() and _char_signature(ch, font) == notdef]


@functools.lru_cache(maxsize=4096)
def _char_signature(ch: str, font: str) -> bytes:
    f = _load_font(font, 24)
    try:
        img = f.getmask(ch)
        return bytes([img.size[0] % 256, img.size[1] % 256]) + bytes(img)
    except Exception:
        return b""


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
        raise RenderError("font", f"expected a font that can draw {text!r}, got {exc}")
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


# ----------------------------------------------------------------------------------------
# the vectorized affine warp


def _stack(masks: Sequence[Mask]):
    """One zero-bordered float32 array (G, h, w) for all masks, and their centres (G, 2)."""
    h = max(m.array.shape[0] for m in masks)
    w = max(m.array.shape[1] for m in masks)
    stack = np.zeros((len(masks), h, w), dtype=_F)
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


def warp(stack: np.ndarray, centers: np.ndarray, which: np.ndarray, forward: np.ndarray,
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
    inv = inv.astype(_F)
    b = b.astype(_F)
    ax = (np.arange(W, dtype=_F) + _F(0.5) - _F(W / 2))
    ay = (np.arange(H, dtype=_F) + _F(0.5) - _F(H / 2))
    X = np.broadcast_to(ax[None, :], (H, W)).reshape(-1)
    Y = np.broadcast_to(ay[:, None], (H, W)).reshape(-1)
    flat = stack.reshape(-1)
    base = (which.astype(np.int64) * (h * w)).astype(np.int32)
    out = np.empty((n, H * W), dtype=_F)
    xmax, ymax = _F(w - 1.001), _F(h - 1.001)
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


# ----------------------------------------------------------------------------------------
# appearance: blur, smudges, contrast, noise


def _blur_matrices(sigmas: np.ndarray, size: int) -> np.ndarray:
    """(m, size, size) Gaussian blur matrices; ink near an edge spreads off the card."""
    d = np.arange(size)[:, None] - np.arange(size)[None, :]
    s = np.maximum(sigmas, 1e-3)[:, None, None]
    g = np.exp(-0.5 * (d[None] / s) ** 2)
    # normalise by the sum over an infinite line, so that paper stays paper at the edges
    r = np.arange(-size, size + 1)
    norm = np.exp(-0.5 * (r[None, :] / s[:, :, 0]) ** 2).sum(axis=1)
    return (g / norm[:, None, None]).astype(_F)


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
    w = (w / w.sum(axis=1, keepdims=True)).astype(_F)[:, :, None, None]
    pad = np.zeros((m, H, W + 2 * r), dtype=_F)
    pad[:, :, r:r + W] = cov
    out = w[:, 0] * pad[:, :, 0:W]
    for k in range(1, 2 * r + 1):
        out += w[:, k] * pad[:, :, k:k + W]
    pad = np.zeros((m, H + 2 * r, W), dtype=_F)
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
        cov = np.array(coverage(sl), dtype=_F, copy=True)
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
                keep *= (1.0 - d[:, None, None] * gy[:, :, None] * gx[:, None, :]).astype(_F)
            cov = 1.0 - (1.0 - cov) * keep
        cov *= -contrast[sl, None, None].astype(_F)
        cov += _F(1.0)
        cov *= paper[sl, None, None].astype(_F)
        out = cards[sl]
        out[...] = cov
        if noisy:
            z = rn.standard_normal(cov.shape, dtype=np.float32)
            out += noise[sl, None, None] * z
        np.clip(out, 0.0, 1.0, out=out)
    variation.update(contrast=contrast, paper=paper, blur=blur, noise=noise, smudges=counts)
    return cards


# ----------------------------------------------------------------------------------------
# sources


def _check_card_size(card_size) -> int:
    if isinstance(card_size, bool) or not isinstance(card_size, (int, np.integer)) or card_size < 4:
        raise RenderError("card_size", f"expected an integer >= 4, got {card_size!r}")
    return int(card_size)


def _labels_index(labels, classes) -> np.ndarray:
    lookup = {c: i for i, c in enumerate(classes)}
    try:
        return np.array([lookup[str(l)] for l in labels], dtype=np.int64)
    except KeyError as exc:
        raise RenderError("classes", f"expected labels among {list(classes)!r}, got {exc.args[0]!r}")


def render_characters(labels, *, seed=0, card_size: int = 60, font: str = "default",
                      size: float = 40, stroke: float = 0.0, slant: float = 0.0,
                      jitter: Jitter = NO_JITTER) -> Rendered:
    """Printed characters, one card per label.

    Parameters
    ----------
    labels : sequence of str, length n
        The text on each card (usually one character).
    seed : int or numpy.random.SeedSequence
    card_size : int
        Card side in pixels.
    font : str
        ``"default"`` (Pillow's bundled scalable font), a face shipped with matplotlib
        (``"matplotlib:DejaVuSerif.ttf"``, see :func:`font_file`) or a TTF/OTF path.
    size : float
        Font size in card pixels.
    stroke : float
        Extra stroke weight in card pixels.
    slant : float
        Fixed shear of the typeface in degrees (positive leans right).
    jitter : Jitter

    Returns
    -------
    Rendered
        ``cards`` of shape (n, card_size, card_size) and the sampled ``variation``.
    """
    card_size = _check_card_size(card_size)
    font = font_file(font)
    labels = [str(l) for l in labels]
    texts = sorted(set(labels))
    k = oversample_for(card_size)
    masks = [glyph_mask(t, font, float(size), float(stroke), k) for t in texts]
    return _render_masks(masks, _labels_index(labels, texts), seed, card_size, k, slant, jitter)


def render_shapes(labels, *, seed=0, card_size: int = 60, size: float = 36, fill: str = "solid",
                  thickness: float = 3.0, slant: float = 0.0, jitter: Jitter = NO_JITTER) -> Rendered:
    """Geometric shapes (see :data:`SHAPES`), one card per label; arguments as
    :func:`render_characters`, with ``fill`` ("solid" or "outline") and the outline
    ``thickness`` in card pixels."""
    card_size = _check_card_size(card_size)
    labels = [str(l) for l in labels]
    names = sorted(set(labels))
    k = oversample_for(card_size)
    masks = [shape_mask(s, float(size), fill, float(thickness), k) for s in names]
    return _render_masks(masks, _labels_index(labels, names), seed, card_size, k, slant, jitter)


def _render_masks(masks, which, seed, card_size, k, slant, jitter) -> Rendered:
    streams = _streams(seed)
    n = len(which)
    stack, centers = _stack(masks)
    fwd, offset, var = _geometry(streams["geometry"], n, jitter, card_size, float(slant))
    cards = _appearance(lambda sl: warp(stack, centers, which[sl], fwd[sl], offset[sl], card_size, k),
                        n, card_size, card_size, streams, jitter, var)
    return Rendered(cards, var)


def render_marks(labels, *, seed=0, card_size: int = 60, size: float = 8,
                 jitter: Jitter = NO_JITTER) -> Rendered:
    """The 1958 left/right task: a small solid square mark on the left or right half.

    Parameters
    ----------
    labels : sequence of {"left", "right"}
    size : float
        Side of the mark in card pixels.
    jitter : Jitter
        ``shift`` must be zero (the position is the class); the mark's position is drawn
        uniformly over its half, keeping the whole mark on that half.
    """
    card_size = _check_card_size(card_size)
    if jitter.shift != (0.0, 0.0):
        raise RenderError("jitter.shift", f"expected no shift for marks (the mark's side is its class), "
                                          f"got {jitter.shift!r}")
    labels = [str(l) for l in labels]
    side = _labels_index(labels, ("left", "right"))
    k = oversample_for(card_size)
    mask = shape_mask("square", float(size), "solid", 1.0, k)
    # half-extent of the mark under any rotation, slant and the largest scale
    t = math.tan(math.radians(max(abs(jitter.slant[0]), abs(jitter.slant[1]))))
    reach = size / 2 * jitter.scale[1] * (math.sqrt(2) + t) + 1.0
    room = card_size / 2 - 2 * reach
    if room <= 0 or size <= 0:
        raise RenderError("size", f"expected a mark that fits on half the card (at most about "
                                  f"{card_size / (4 * (math.sqrt(2) + t) * jitter.scale[1]):.1f} px), got {size!r}")
    streams = _streams(seed)
    n = len(side)
    rs = streams["source"]
    u = rs.uniform(0, 1, size=n)
    v = rs.uniform(-1, 1, size=n)
    x = reach + u * room                       # distance of the centre from the middle line
    x = np.where(side == 0, -x, x)
    y = v * (card_size / 2 - reach)
    g = streams["geometry"]
    rot = _uniform(g, jitter.rotation, n)
    sc = _uniform(g, jitter.scale, n)
    sl = _uniform(g, jitter.slant, n)
    fwd = _linear_maps(n, rot, sc, sl)
    stack, centers = _stack([mask])
    which = np.zeros(n, dtype=np.int64)
    offset = np.stack([x, y], 1)
    var = dict(shift_x=x / card_size, shift_y=y / card_size, rotation=rot, scale=sc, slant=sl)
    cards = _appearance(lambda s_: warp(stack, centers, which[s_], fwd[s_], offset[s_], card_size, k),
                        n, card_size, card_size, streams, jitter, var)
    return Rendered(cards, var)


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


def predicate_fit(card_size: int, size: float) -> int:
    """How many blobs of diameter ``size`` fit a card for the parity predicate."""
    cell = size + max(2.0, size / 2)
    per_axis = int((card_size - 2) // cell)
    return per_axis * per_axis


def render_predicate(labels, *, seed=0, predicate: str = "parity", card_size: int = 60,
                     size: float = 8, blobs=(1, 6), thickness: float = 3.0,
                     jitter: Jitter = NO_JITTER) -> Rendered:
    """Patterns for Minsky and Papert's predicates, labelled by the predicate, with the
    amount of ink matched across the two classes.

    The ink is matched so that only the predicate tells the classes apart: neither the
    total ink (the dark area) of a card nor the number of photocells it darkens says
    anything about its class, so a single threshold on either scores chance
    (``tests/test_scene_fidelity.py``). Candidates of each class are drawn (six per card)
    and each card is the candidate of its class from a bin of (ink, dark cells) drawn
    from the mass both classes share, bins a quarter of the spread wide; a dark cell is
    one of a 20x20 grid (the Mark I's photocells) more than 65 % covered.

    ``predicate = "parity"``: separate round blobs at random places, at least
    ``max(4, size / 2)`` pixels apart; their number is drawn from ``blobs`` (inclusive,
    at least 1) with the parity of the label ("even" or "odd"). Every card carries the
    ink of ``(low + high) / 2`` blobs of diameter ``size``, times a factor drawn from
    [0.9, 1.1], shared at random (weights from [0.75, 1.25]) among its blobs: fewer blobs
    are larger, so the count is not in the ink.

    ``predicate = "connectedness"``: two straight bars ``thickness`` pixels wide (round
    ends) at random; "connected" when they cross or touch, "disconnected" when a clear
    gap (at least ``max(3, thickness)`` pixels) separates them (crossing bars share ink,
    which the matching makes up for).

    Geometric jitter (shift, rotation, scale, slant) is not used: the patterns are random
    already. Appearance jitter (contrast, noise, smudges, blur) applies as usual.

    The variation holds ``blobs`` (parity) or ``gap`` (connectedness, in pixels) and
    ``ink`` (the drawn ink area of each card before the appearance jitter, pixels).
    """
    card_size = _check_card_size(card_size)
    if predicate not in PREDICATES:
        raise RenderError("predicate", f"expected one of {', '.join(map(repr, PREDICATES))}, got {predicate!r}")
    if jitter.geometric:
        raise RenderError("jitter", "expected no shift, rotation, scale or slant for predicate patterns "
                                    "(they are random already)")
    labels = [str(l) for l in labels]
    cls = _labels_index(labels, PREDICATES[predicate])
    streams = _streams(seed)
    var: dict = {}
    if predicate == "parity":
        cov, var["blobs"] = _parity_blobs(streams["source"], cls, card_size, float(size), blobs)
    else:
        cov, var["gap"] = _bar_pairs(streams["source"], cls, card_size, float(thickness))
    var["ink"] = cov.sum(axis=(1, 2), dtype=np.float64)
    cards = _appearance(lambda sl: cov[sl], len(cls), card_size, card_size, streams, jitter, var)
    return Rendered(cards, var)


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
    fit = predicate_fit(card_size, size)
    if hi > fit:
        raise RenderError("blobs", f"expected at most {fit} blobs of {size:g} px on a {card_size}-px card, got {hi}")
    choices = [[c for c in range(lo, hi + 1) if c % 2 == 0], [c for c in range(lo, hi + 1) if c % 2 == 1]]
    if not choices[0] or not choices[1]:
        raise RenderError("blobs", f"expected a range of counts holding both even and odd numbers, got {[lo, hi]!r}")
    pools = []
    for c, m in enumerate(_pool_sizes(cls)):
        counts = np.array(choices[c])[rs.integers(0, len(choices[c]), size=m)]
        pools.append((counts, *_place_blobs(rs, counts, card_size, size, lo, hi)))
    pick = _match([_features(lambda sl, p=p: _blob_coverage(*(a[sl] for a in p), card_size), len(p[0]))
                   for p in pools], cls, rs)
    counts, radius, cx, cy = (np.zeros((n,) + a.shape[1:], dtype=a.dtype) for a in pools[0])
    for c in (0, 1):
        cards = np.flatnonzero(cls == c)
        for out, a in zip((counts, radius, cx, cy), pools[c]):
            out[cards] = a[pick[cards]]
    cov = np.zeros((n, card_size, card_size), dtype=_F)
    for i in range(0, n, _BLOCK):
        sl = slice(i, i + _BLOCK)
        cov[sl] = _blob_coverage(counts[sl], radius[sl], cx[sl], cy[sl], card_size)
    return cov, counts


def _place_blobs(rs, counts, card_size: int, size: float, lo: int, hi: int):
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
    px = np.arange(card_size, dtype=_F) + _F(0.5)
    cov = np.zeros((len(counts), card_size, card_size), dtype=_F)
    for j in range(radius.shape[1]):
        dx2 = (px[None, :] - cx[:, j, None].astype(_F)) ** 2
        dy2 = (px[None, :] - cy[:, j, None].astype(_F)) ** 2
        disc = np.clip(radius[:, j, None, None].astype(_F) + _F(0.5) - np.sqrt(dy2[:, :, None] + dx2[:, None, :]),
                       0.0, 1.0)
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


def _bars_coverage(seg: np.ndarray, t: float, card_size: int) -> np.ndarray:
    """Coverage (m, H, W) of two round-ended bars ``t`` wide per card; ``seg`` (m, 4, 2)."""
    px = np.arange(card_size, dtype=_F) + _F(0.5)
    cov = np.zeros((len(seg), card_size, card_size), dtype=_F)
    for a, b_ in ((0, 1), (2, 3)):
        A = seg[:, a].astype(_F)
        AB = (seg[:, b_] - seg[:, a]).astype(_F)
        inv = _F(1.0) / np.maximum((AB * AB).sum(-1), _F(1e-12))
        ux = px[None, :] - A[:, 0, None]                      # (m, W): x - Ax
        uy = px[None, :] - A[:, 1, None]                      # (m, H): y - Ay
        # position along the bar, separable in x and y, then clipped to the bar
        tt = (ux * (AB[:, 0] * inv)[:, None])[:, None, :] + (uy * (AB[:, 1] * inv)[:, None])[:, :, None]
        np.clip(tt, 0, 1, out=tt)
        dx = ux[:, None, :] - tt * AB[:, 0, None, None]
        dy = uy[:, :, None] - tt * AB[:, 1, None, None]
        d = np.sqrt(dx * dx + dy * dy)
        np.maximum(cov, np.clip(_F(t / 2 + 0.5) - d, 0, 1), out=cov)
    return cov


def _bar_pairs(rs, cls, card_size: int, t: float):
    """Coverage (n, H, W) of connected (class 0) and disconnected (class 1) bar pairs
    matched in ink and dark cells, and the gap of each pair."""
    n = len(cls)
    gap = max(3.0, t)
    margin = t / 2 + 1.0
    pool_size = _pool_sizes(cls)
    got = [[], []]
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
    cov = np.zeros((n, card_size, card_size), dtype=_F)
    for i in range(0, n, _BLOCK):
        cov[i:i + _BLOCK] = _bars_coverage(seg[i:i + _BLOCK], t, card_size)
    return cov, _segment_distance(seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3])


# ----------------------------------------------------------------------------------------
# the user's images


def list_image_folder(folder: str) -> dict[str, list[str]]:
    """Image files per class: ``{subfolder name: [sorted file paths]}``.

    Hidden entries (starting with ".") are skipped; files are recognised by their ending
    (:data:`IMAGE_EXTENSIONS`). Raises :class:`RenderError` for a missing folder.
    """
    if not os.path.isdir(folder):
        raise RenderError("folder", f"expected an existing folder with one subfolder per class, got {folder!r}"
                                    + (" (not a folder)" if os.path.exists(folder) else " (no such folder)"))
    out = {}
    try:
        for entry in sorted(os.listdir(folder)):
            sub = os.path.join(folder, entry)
            if entry.startswith(".") or not os.path.isdir(sub):
                continue
            out[entry] = sorted(os.path.join(sub, f) for f in os.listdir(sub)
                                if not f.startswith(".") and f.lower().endswith(IMAGE_EXTENSIONS)
                                and os.path.isfile(os.path.join(sub, f)))
    except OSError as exc:
        raise RenderError("folder", f"expected a readable folder, got {folder!r} ({exc.strerror})")
    return out


def read_image(path: str, card_size: int, invert: bool = False) -> np.ndarray:
    """Read one image as reflectance on a card.

    Colour is converted to luminance; transparent parts count as white paper; 16-bit
    images keep their range. The image is scaled to fit the card keeping its aspect
    ratio and centred on white paper. ``invert`` turns white-on-black into black-on-white
    (before padding).

    Returns
    -------
    ndarray of shape (card_size, card_size), float64 in [0, 1]

    Raises
    ------
    RenderError
        ``setting == "folder"`` for an unreadable, empty or NaN image.
    """
    card_size = _check_card_size(card_size)
    try:
        with Image.open(path) as img:
            img.load()
            img = ImageOps.exif_transpose(img)
            if img.width < 1 or img.height < 1:
                raise InputError("empty image")
            if img.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
                a = np.asarray(img, dtype=np.float64)
                if img.mode == "F":
                    if not np.all(np.isfinite(a)):
                        raise InputError("NaN or infinite pixels")
                    a = np.clip(a, 0.0, 1.0) if a.max() <= 1.0 else a / a.max()
                else:
                    a = a / (65535.0 if a.max() > 255 else 255.0)
                gray = Image.fromarray(np.clip(a * 255.0 + 0.5, 0, 255).astype(np.uint8), "L")
            elif img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
                rgba = img.convert("RGBA")
                white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
                gray = Image.alpha_composite(white, rgba).convert("L")
            else:
                gray = img.convert("L")
            if invert:
                gray = ImageOps.invert(gray)
            w, h = gray.size
            f = card_size / max(w, h)
            nw, nh = max(1, round(w * f)), max(1, round(h * f))
            gray = gray.resize((nw, nh), Image.Resampling.LANCZOS if f < 1 else Image.Resampling.BICUBIC)
            card = Image.new("L", (card_size, card_size), 255)
            card.paste(gray, ((card_size - nw) // 2, (card_size - nh) // 2))
    except Exception as exc:
        raise RenderError("folder", f"expected a readable PNG or JPEG image, got {path!r} ({exc})")
    return np.asarray(card, dtype=np.float64) / 255.0


def render_images(images: np.ndarray, which, *, seed=0, jitter: Jitter = NO_JITTER) -> Rendered:
    """Cards from the user's images, with the scene's variation applied.

    Parameters
    ----------
    images : ndarray of shape (m, H, W)
        Reflectance of each image on a card (as from :func:`read_image`).
    which : array of shape (n,), int
        Image index of each card.
    """
    images = np.asarray(images, dtype=np.float64)
    which = np.asarray(which, dtype=np.int64)
    n = len(which)
    m, H, W = images.shape
    if H != W:
        raise RenderError("card_size", f"expected square images, got {H}x{W}")
    streams = _streams(seed)
    cov = (1.0 - images).astype(_F)
    fwd, offset, var = _geometry(streams["geometry"], n, jitter, H)
    if jitter.geometric:
        stack = np.zeros((m, H + 4, W + 4), dtype=_F)
        stack[:, 2:-2, 2:-2] = cov
        centers = np.tile([W / 2 + 2, H / 2 + 2], (m, 1)).astype(np.float64)
        coverage = lambda sl: warp(stack, centers, which[sl], fwd[sl], offset[sl], H, 1)  # noqa: E731
    else:
        coverage = lambda sl: cov[which[sl]]  # noqa: E731
    var["image"] = which
    cards = _appearance(coverage, n, H, W, streams, jitter, var)
    return Rendered(cards, var)
