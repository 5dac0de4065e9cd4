"""Cards for the camera: characters, shapes, marks, predicate patterns and the user's images.

A *card* is what was put in front of the Mark I's camera: a float64 image of
reflectance in [0, 1] (1 = paper white, 0 = black ink), rendered at a resolution finer
than the 20×20 retina (60×60 by default). The camera in :mod:`mark1.machine.retina` averages it
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

Examples
--------
>>> from mark1.stimuli import Jitter, render_characters
>>> r = render_characters(["X", "E"] * 3, seed=0, jitter=Jitter(shift=(-0.1, 0.1), noise=(0.0, 0.05)))
>>> r.cards.shape, sorted(r.variation)[:4]
((6, 60, 60), ['blur', 'contrast', 'noise', 'paper'])

The steps live in their own modules: :mod:`~mark1.stimuli.masks` (with
:mod:`~mark1.stimuli.fonts`), :mod:`~mark1.stimuli.predicates` and
:mod:`~mark1.stimuli.images` for the coverage, :mod:`~mark1.stimuli.warps` for the
geometry, :mod:`~mark1.stimuli.appearance` for the print and :mod:`~mark1.stimuli.jitter`
for what varies and the streams it is drawn from; here are the entry points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from mark1.exceptions import RenderError
from mark1.stimuli.appearance import _appearance
from mark1.stimuli.fonts import font_file
from mark1.stimuli.jitter import NO_JITTER, Jitter, _streams, _uniform
from mark1.stimuli.masks import glyph_mask, oversample_for, shape_mask
from mark1.stimuli.predicates import PREDICATES, _bar_pairs, _parity_blobs
from mark1.stimuli.warps import _geometry, _linear_maps, _stack, _warp

__all__ = ["Rendered", "render_characters", "render_shapes", "render_marks", "render_predicate", "render_images"]


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

    Examples
    --------
    >>> from mark1.stimuli import Jitter, render_characters
    >>> cards, variation = render_characters(["X", "E", "X"], seed=0, jitter=Jitter(shift=(-0.1, 0.1)))
    >>> cards.shape, variation["shift_x"].round(3)
    ((3, 60, 60), array([ 0.035, -0.051,  0.022]))
    """

    cards: np.ndarray
    variation: dict



def _check_card_size(card_size) -> int:
    if isinstance(card_size, bool) or not isinstance(card_size, (int, np.integer)) or card_size < 4:
        raise RenderError("card_size", f"expected an integer >= 4, got {card_size!r}")
    return int(card_size)


def _labels_index(labels, classes) -> np.ndarray:
    lookup = {c: i for i, c in enumerate(classes)}
    try:
        return np.array([lookup[str(lab)] for lab in labels], dtype=np.int64)
    except KeyError as exc:
        raise RenderError("classes", f"expected labels among {list(classes)!r}, got {exc.args[0]!r}") from None


def render_characters(labels: Sequence[str], *, seed: int | np.random.SeedSequence = 0, card_size: int = 60,
                      font: str = "default", size: float = 40, stroke: float = 0.0, slant: float = 0.0,
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

    Raises
    ------
    RenderError
        ``setting`` names the argument at fault (``"font"``, ``"card_size"``, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.stimuli import Jitter, render_characters
    >>> jitter = Jitter(shift=(-0.1, 0.1))
    >>> r = render_characters(["X", "E", "X"], seed=0, jitter=jitter)
    >>> r.cards.shape, r.cards.dtype, float(r.cards.min()), float(r.cards.max())
    ((3, 60, 60), dtype('float64'), 0.0, 1.0)
    >>> np.array_equal(r.cards, render_characters(["X", "E", "X"], seed=0, jitter=jitter).cards)
    True
    """
    card_size = _check_card_size(card_size)
    font = font_file(font)
    labels = [str(lab) for lab in labels]
    texts = sorted(set(labels))
    k = oversample_for(card_size)
    masks = [glyph_mask(t, font, float(size), float(stroke), k) for t in texts]
    return _render_masks(masks, _labels_index(labels, texts), seed, card_size, k, slant, jitter)


def render_shapes(labels: Sequence[str], *, seed: int | np.random.SeedSequence = 0, card_size: int = 60,
                  size: float = 36, fill: str = "solid", thickness: float = 3.0, slant: float = 0.0,
                  jitter: Jitter = NO_JITTER) -> Rendered:
    """Geometric shapes, one card per label.

    Parameters
    ----------
    labels : sequence of str, length n
        The shape on each card, from :data:`~mark1.stimuli.masks.SHAPES`.
    seed : int or numpy.random.SeedSequence
    card_size : int
        Card side in pixels.
    size : float
        Side of a square or triangle, diameter of a circle, length of a bar; card pixels.
    fill : {"solid", "outline"}
    thickness : float
        Line thickness of an outline, in card pixels.
    slant : float
        Fixed shear in degrees (positive leans right).
    jitter : Jitter

    Returns
    -------
    Rendered
        ``cards`` of shape (n, card_size, card_size) and the sampled ``variation``.

    Examples
    --------
    >>> from mark1.stimuli import render_shapes
    >>> r = render_shapes(["square", "circle"], seed=0, card_size=40, size=24)
    >>> r.cards.shape, float(r.cards.min()), float(r.cards.max())
    ((2, 40, 40), 0.0, 1.0)
    >>> (1 - r.cards).sum(axis=(1, 2)).round()            # ink: 24 x 24 = 576 and pi x 12^2 = 452
    array([579., 454.])
    """
    card_size = _check_card_size(card_size)
    labels = [str(lab) for lab in labels]
    names = sorted(set(labels))
    k = oversample_for(card_size)
    masks = [shape_mask(s, float(size), fill, float(thickness), k) for s in names]
    return _render_masks(masks, _labels_index(labels, names), seed, card_size, k, slant, jitter)


def _render_masks(masks, which, seed, card_size, k, slant, jitter) -> Rendered:
    streams = _streams(seed)
    n = len(which)
    stack, centers = _stack(masks)
    fwd, offset, var = _geometry(streams["geometry"], n, jitter, card_size, float(slant))
    cards = _appearance(lambda sl: _warp(stack, centers, which[sl], fwd[sl], offset[sl], card_size, k),
                        n, card_size, card_size, streams, jitter, var)
    return Rendered(cards, var)


def render_marks(labels: Sequence[str], *, seed: int | np.random.SeedSequence = 0, card_size: int = 60, size: float = 8,
                 jitter: Jitter = NO_JITTER) -> Rendered:
    """The 1958 left/right task: a small solid square mark on the left or right half.

    Parameters
    ----------
    labels : sequence of {"left", "right"}
    size : float
        Side of the mark in card pixels.
    seed : int or numpy.random.SeedSequence
    card_size : int
        Card side in pixels.
    size : float
        Side of the mark in card pixels.
    jitter : Jitter
        ``shift`` must be zero (the position is the class); the mark's position is drawn
        uniformly over its half, keeping the whole mark on that half.

    Returns
    -------
    Rendered
        ``cards`` of shape (n, card_size, card_size); ``shift_x`` and ``shift_y`` of the
        variation are the mark's position (fractions of the card, from its centre).

    Examples
    --------
    >>> from mark1.stimuli import render_marks
    >>> r = render_marks(["left", "right"], seed=0)
    >>> ink = 1 - r.cards
    >>> ink[:, :, :30].sum(axis=(1, 2)).round(), ink[:, :, 30:].sum(axis=(1, 2)).round()   # 8 x 8 px of ink
    (array([65.,  0.]), array([ 0., 65.]))
    >>> r.variation["shift_x"].round(3)
    array([-0.373,  0.199])
    """
    card_size = _check_card_size(card_size)
    if jitter.shift != (0.0, 0.0):
        raise RenderError("jitter.shift", f"expected no shift for marks (the mark's side is its class), "
                                          f"got {jitter.shift!r}")
    labels = [str(lab) for lab in labels]
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
    cards = _appearance(lambda s_: _warp(stack, centers, which[s_], fwd[s_], offset[s_], card_size, k),
                        n, card_size, card_size, streams, jitter, var)
    return Rendered(cards, var)


def render_predicate(labels: Sequence[str], *, seed: int | np.random.SeedSequence = 0, predicate: str = "parity",
                     card_size: int = 60, size: float = 8, blobs: tuple[int, int] = (1, 6), thickness: float = 3.0,
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

    Parameters
    ----------
    labels : sequence of str, length n
        ``"even"``/``"odd"`` (parity) or ``"connected"``/``"disconnected"`` (connectedness).
    seed : int or numpy.random.SeedSequence
    predicate : {"parity", "connectedness"}
    card_size : int
        Card side in pixels.
    size : float
        Parity: diameter of a blob in card pixels.
    blobs : (int, int)
        Parity: the range of the number of blobs, inclusive, holding an even and an odd count.
    thickness : float
        Connectedness: width of a bar in card pixels.
    jitter : Jitter
        Without shift, rotation, scale or slant.

    Returns
    -------
    Rendered
        ``cards`` of shape (n, card_size, card_size). The variation holds ``blobs``
        (parity) or ``gap`` (connectedness, in pixels) and ``ink`` (the drawn ink area of
        each card before the appearance jitter, pixels).

    Examples
    --------
    >>> from mark1.stimuli import render_predicate
    >>> r = render_predicate(["even", "odd", "even", "odd"], seed=0)
    >>> r.cards.shape, r.variation["blobs"]
    ((4, 60, 60), array([4, 3, 2, 1]))
    >>> r.variation["ink"].round()                 # about the same ink, whatever the count
    array([191., 176., 178., 177.])
    >>> render_predicate(["connected", "disconnected"], seed=0, predicate="connectedness").variation["gap"].round(2)
    array([ 0.  , 24.45])
    """
    card_size = _check_card_size(card_size)
    if predicate not in PREDICATES:
        raise RenderError("predicate", f"expected one of {', '.join(map(repr, PREDICATES))}, got {predicate!r}")
    if jitter.geometric:
        raise RenderError("jitter", "expected no shift, rotation, scale or slant for predicate patterns "
                                    "(they are random already)")
    labels = [str(lab) for lab in labels]
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


def render_images(images: np.ndarray, which: ArrayLike, *, seed: int | np.random.SeedSequence = 0,
                  jitter: Jitter = NO_JITTER) -> Rendered:
    """Cards from the user's images, with the scene's variation applied.

    Parameters
    ----------
    images : ndarray of shape (m, H, H)
        Reflectance of each image on a card, in [0, 1] (as from
        :func:`~mark1.stimuli.images.read_image`).
    which : array of shape (n,), int
        Image index of each card.
    seed : int or numpy.random.SeedSequence
    jitter : Jitter

    Returns
    -------
    Rendered
        ``cards`` of shape (n, H, H); the variation holds ``image``, the image of each card.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.stimuli import Jitter, render_images
    >>> images = np.ones((2, 30, 30))
    >>> images[0, 10:20, 10:20] = 0.0                     # a black square, and a blank card
    >>> r = render_images(images, [0, 1, 0], seed=0, jitter=Jitter(contrast=(0.5, 0.5)))
    >>> r.cards.shape, r.variation["image"], r.cards.min(axis=(1, 2))
    ((3, 30, 30), array([0, 1, 0]), array([0.5, 1. , 0.5]))
    """
    images = np.asarray(images, dtype=np.float64)
    which = np.asarray(which, dtype=np.int64)
    n = len(which)
    m, H, W = images.shape
    if H != W:
        raise RenderError("card_size", f"expected square images, got {H}x{W}")
    streams = _streams(seed)
    cov = (1.0 - images).astype(np.float32)
    fwd, offset, var = _geometry(streams["geometry"], n, jitter, H)
    if jitter.geometric:
        stack = np.zeros((m, H + 4, W + 4), dtype=np.float32)
        stack[:, 2:-2, 2:-2] = cov
        centers = np.tile([W / 2 + 2, H / 2 + 2], (m, 1)).astype(np.float64)
        coverage = lambda sl: _warp(stack, centers, which[sl], fwd[sl], offset[sl], H, 1)  # noqa: E731
    else:
        coverage = lambda sl: cov[which[sl]]  # noqa: E731
    var["image"] = which
    cards = _appearance(coverage, n, H, W, streams, jitter, var)
    return Rendered(cards, var)
