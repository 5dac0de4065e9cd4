"""Figures for a projected slide: large type, thick lines, sized for the slide they are fitted to.

A figure drawn for a page has 7-10 pt type; fitted to a 1280×720 slide that is 11-15 px, too
small to read from the back of a room. In :func:`slides` every figure mark1 draws is made
for a slide instead: matplotlib's sizes are raised while the figure is built, and when it
is saved (:func:`mark1.viz.figure.save_figure`, or shown in Jupyter) :func:`for_slide`
raises every text that would still be under :data:`SLIDE_MIN_PX` once the saved image is
fitted to the slide, and thickens the data's lines, then saves it trimmed to what it
draws (so the image fitted to the slide is the figure, not its margins). The command line
has it as ``--style slides`` on the commands that draw.

How big a text is on the slide depends only on the figure's size in inches and the slide's
size: an image W inches wide fitted to a slide S px wide shows a point as S / (72 W) px,
whatever the dpi it is saved at.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast

import matplotlib
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from mark1.exceptions import InputError

__all__ = ["SLIDE", "SLIDE_MIN_PX", "SLIDE_LINE_PX", "SlideStyle", "slides", "slide_style", "for_slide",
           "text_px_on_slide"]

#: The slide a figure is made for: 1280 × 720 px (16:9, what most projectors show).
SLIDE = (1280, 720)
#: The least text height on the slide, px: legible from the back of a lecture hall.
SLIDE_MIN_PX = 20.0
#: The least width of a data line on the slide, px.
SLIDE_LINE_PX = 3.0

#: A title's least size, as a multiple of the least text: the one message of the figure reads first.
_TITLE = 1.25

#: matplotlib's sizes while a slide figure is built (points; a figure of about 9 in wide shows 12 pt at 20 px)
_RC = {"font.size": 16, "axes.titlesize": 18, "axes.labelsize": 16, "xtick.labelsize": 15, "ytick.labelsize": 15,
       "legend.fontsize": 15, "figure.titlesize": 18, "lines.linewidth": 3.0, "lines.markersize": 9,
       "axes.linewidth": 1.4, "xtick.major.width": 1.4, "ytick.major.width": 1.4, "xtick.major.size": 6,
       "ytick.major.size": 6, "savefig.bbox": "tight"}


@dataclass(frozen=True)
class SlideStyle:
    """The slide a figure is fitted to and what it must show there.

    Attributes
    ----------
    size : (int, int)
        The slide's width and height, px.
    min_px : float
        The least text height on the slide, px.
    line_px : float
        The least width of a data line on the slide, px.

    Examples
    --------
    >>> SlideStyle().size, SlideStyle(size=(1920, 1080)).min_px
    ((1280, 720), 20.0)
    """

    size: tuple[int, int] = SLIDE
    min_px: float = SLIDE_MIN_PX
    line_px: float = SLIDE_LINE_PX


_ACTIVE: ContextVar[SlideStyle | None] = ContextVar("mark1_slide_style", default=None)


def slide_style() -> SlideStyle | None:
    """The slide style in force (inside :func:`slides`), or None for the page style.

    Examples
    --------
    >>> slide_style() is None
    True
    >>> with slides() as style:
    ...     slide_style() is style
    True
    """
    return _ACTIVE.get()


@contextlib.contextmanager
def slides(size: tuple[int, int] = SLIDE, *, min_px: float = SLIDE_MIN_PX,
           line_px: float = SLIDE_LINE_PX) -> Iterator[SlideStyle]:
    """Make every figure drawn inside the block for a projected slide.

    Parameters
    ----------
    size : (int, int)
        The slide, px (default 1280 × 720).
    min_px : float
        The least text height on the slide, px (default 20).
    line_px : float
        The least width of a data line on the slide, px (default 3).

    Yields
    ------
    SlideStyle

    Examples
    --------
    >>> import numpy as np, mark1
    >>> from mark1.viz import learning_curve
    >>> cards = np.ones((4, 20, 20)); cards[0::2, 4:16, 9:11] = 0.05; cards[1::2, 9:11, 4:16] = 0.05
    >>> m = mark1.MarkI(spec=mark1.SMALL, seed=0).fit(cards, ["|", "-"] * 2, epochs=3)
    >>> with slides():
    ...     fig = for_slide(learning_curve(m))
    >>> bool(min(text_px_on_slide(fig).values()) >= 20)
    True
    """
    if len(size) != 2 or min(size) <= 0 or min_px <= 0 or line_px <= 0:
        raise InputError(f"slides: expected a slide size in px and positive sizes, got {size}, {min_px}, {line_px}")
    style = SlideStyle((int(size[0]), int(size[1])), float(min_px), float(line_px))
    token = _ACTIVE.set(style)
    try:
        with matplotlib.rc_context(cast(Any, _RC)):
            yield style
    finally:
        _ACTIVE.reset(token)


def _texts(fig: Figure) -> list[Text]:
    """The figure's texts that show: visible, with something written."""
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and t.figure is fig]


def _px_per_inch(fig: Figure, style: SlideStyle) -> float:
    """Slide px per inch of the figure as saved trimmed (its tight box) and fitted to the slide."""
    box = fig.get_tightbbox(cast(Any, fig.canvas).get_renderer())     # an Agg canvas (new_figure)
    pad = 2 * float(matplotlib.rcParams["savefig.pad_inches"])       # what a trimmed save adds around it
    width, height = max(box.width, 1e-3) + pad, max(box.height, 1e-3) + pad
    return min(style.size[0] / width, style.size[1] / height)


def text_px_on_slide(fig: Figure, style: SlideStyle | None = None) -> dict[str, float]:
    """Each text's height on the slide (px) when the figure, trimmed, is fitted to it.

    Returns
    -------
    dict
        Text (its first 40 characters, numbered when repeated) to px.

    Examples
    --------
    >>> from mark1.viz.figure import new_figure
    >>> fig = new_figure(6.4, 4.8)
    >>> ax = fig.add_subplot(1, 1, 1)
    >>> _ = ax.set_title("accuracy")
    >>> round(text_px_on_slide(fig)["accuracy"]) > 0
    True
    """
    style = style or slide_style() or SlideStyle()
    scale = _px_per_inch(fig, style) / 72.0
    out: dict[str, float] = {}
    for t in _texts(fig):
        key = t.get_text()[:40]
        while key in out:
            key += "'"
        out[key] = float(t.get_fontsize()) * scale
    return out


def for_slide(fig: Figure, style: SlideStyle | None = None) -> Figure:
    """Raise ``fig``'s small texts and thin data lines to what the slide needs (in place).

    Every text under ``min_px`` on the slide is set to it (a title to 1.25 times it), every
    data line thinner than ``line_px`` to it; as the texts grow, the trimmed figure grows and each point shows
    smaller, so this is repeated until it holds (a few rounds).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    style : SlideStyle, optional
        Default the one in force (:func:`slides`), else the 1280 × 720 slide.

    Returns
    -------
    matplotlib.figure.Figure
        ``fig`` itself.

    Examples
    --------
    >>> from mark1.viz.figure import new_figure
    >>> fig = new_figure(6.4, 4.8)
    >>> _ = fig.add_subplot(1, 1, 1).plot([0, 1], [0, 1])
    >>> bool(min(text_px_on_slide(for_slide(fig)).values()) >= 20)
    True
    """
    style = style or slide_style() or SlideStyle()
    for _ in range(6):
        fig.canvas.draw()                      # the layout engine, if any, places the grown texts
        per_pt = _px_per_inch(fig, style) / 72.0
        least, line = style.min_px / per_pt, style.line_px / per_pt
        titles = {id(ax.title) for ax in fig.axes} | {id(getattr(fig, "_suptitle", None))}
        want = {id(t): least * (_TITLE if id(t) in titles else 1.0) for t in _texts(fig)}
        small = [t for t in _texts(fig) if float(t.get_fontsize()) < want[id(t)] * (1 - 1e-6)]
        for t in small:
            t.set_fontsize(want[id(t)] * 1.02)       # a little over: the next round's box is a little larger
        for ax in fig.axes:
            for ln in ax.lines:
                if not isinstance(ln, Line2D):
                    continue
                if ln.get_linestyle() not in ("None", "", " ") and ln.get_linewidth() < line:
                    ln.set_linewidth(line)
                if ln.get_marker() not in (None, "None", "", " ") and ln.get_markeredgewidth() < line / 2:
                    ln.set_markeredgewidth(line / 2)             # ticks drawn as markers ("|") thicken too
        if not small:
            break
    return fig
