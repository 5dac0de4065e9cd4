"""Figures for a projected slide: large type, thick lines, sized for the slide they are fitted to.

A figure drawn for a page has 7-10 pt type; fitted to a 1280×720 slide that is 11-15 px, too
small to read from the back of a room. In :func:`slides` every figure mark1 draws is made
for a slide instead: matplotlib's sizes are raised while the figure is built, and when it
is saved (:func:`mark1.viz.figure.save_figure`, or shown in Jupyter) :func:`for_slide`
raises every text that would still be under :data:`SLIDE_MIN_PX` once the saved image is
fitted to the slide, and thickens the data's lines, then saves it trimmed to what it
draws (so the image fitted to the slide is the figure, not its margins). The command line
has it as ``--style slides`` on the commands that draw.

A slide shows one message. A figure of several panels is saved for a slide as one file a
panel (:func:`slide_panels`): its headline panel under the name asked for, each other panel
beside it as ``<name>-<panel>.png``, each drawn alone on the slide's 16:9 shape with its own
title (or, untitled, the figure's) and the figure's legend beside it. A figure whose panels
read as one picture (the retina's card, light, S-units and A-units in a row; a sheet of
cards) is kept whole (:func:`one_message`).

How big a text is on the slide depends only on the figure's size in inches and the slide's
size: an image W inches wide fitted to a slide S px wide shows a point as S / (72 W) px,
whatever the dpi it is saved at.
"""

from __future__ import annotations

import contextlib
import pickle
import re
import textwrap
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, cast

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from mark1.exceptions import InputError

__all__ = ["SLIDE", "SLIDE_MIN_PX", "SLIDE_LINE_PX", "SlideStyle", "slides", "slide_style", "for_slide",
           "text_px_on_slide", "slide_panels", "panel_figures", "one_message", "headline"]

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
    written : list of pathlib.Path
        Every file saved inside the block, in order (a figure of several panels is a file a panel).
    panels : list of pathlib.Path
        Of those, the files of the panels beside a headline (saved under names not asked for).

    Examples
    --------
    >>> SlideStyle().size, SlideStyle(size=(1920, 1080)).min_px
    ((1280, 720), 20.0)
    """

    size: tuple[int, int] = SLIDE
    min_px: float = SLIDE_MIN_PX
    line_px: float = SLIDE_LINE_PX
    written: list = field(default_factory=list, compare=False, repr=False)
    panels: list = field(default_factory=list, compare=False, repr=False)


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
        _place_suptitle(fig)
        if not small:
            break
    return fig


#: A panel alone on a slide: the figure's size (in; 16:9) and the panel's box in it (figure fractions)
_PANEL_SIZE = (10.0, 5.625)
_PANEL_BOX = (0.09, 0.14, 0.82, 0.70)
_COLORBAR_GAP, _COLORBAR_W = 0.02, 0.022


def one_message(fig: Figure) -> Figure:
    """Mark ``fig`` as one picture on a slide: kept whole, not cut into its panels.

    Examples
    --------
    >>> from mark1.viz.figure import new_figure
    >>> fig = new_figure(6, 2)
    >>> _ = [fig.add_subplot(1, 2, k).plot([0, 1]) for k in (1, 2)]
    >>> len(slide_panels(fig)), len(slide_panels(one_message(fig)))
    (2, 1)
    """
    cast(Any, fig)._mark1_one_message = True
    return fig


def headline(fig: Figure, ax: Axes, name: str | None = None) -> Figure:
    """Make ``ax`` the panel a slide shows under the figure's own name (default: the first panel);
    ``name``, when given, names the file of each panel by its axes' ``gid``.

    Examples
    --------
    >>> from mark1.viz.figure import new_figure
    >>> fig = new_figure(6, 2)
    >>> a, b = fig.subplots(1, 2)
    >>> _ = a.plot([0, 1]), b.plot([1, 0])
    >>> slide_panels(headline(fig, b))[0] is b
    True
    """
    cast(Any, fig)._mark1_headline = ax
    if name is not None:
        ax.set_gid(name)
    return fig


def _colorbars(fig: Figure) -> dict[int, Axes | None]:
    """Each colorbar's axes (by index in ``fig.axes``) and the panel its colours belong to (None: every panel)."""
    out: dict[int, Axes | None] = {}
    for i, ax in enumerate(fig.axes):
        bar = getattr(ax, "_colorbar", None)
        if bar is not None:
            owner = getattr(bar.mappable, "axes", None)
            out[i] = owner if owner in fig.axes else None
    return out


def slide_panels(fig: Figure) -> list[Axes]:
    """The panels a slide shows one at a time, the headline first: the axes that draw something,
    colorbars apart (a colorbar goes with its panel); one, the first axes, for a figure marked
    :func:`one_message`.

    Examples
    --------
    >>> from mark1.viz.figure import new_figure
    >>> fig = new_figure(6, 2)
    >>> a, b, c = fig.subplots(1, 3)
    >>> _ = a.plot([0, 1]), b.imshow([[0, 1]]), fig.colorbar(b.images[0], ax=b), c.set_axis_off()
    >>> [ax is a for ax in slide_panels(fig)], len(fig.axes)        # c draws nothing, the colorbar goes with b
    ([True, False], 4)
    """
    bars = _colorbars(fig)
    shown = [ax for i, ax in enumerate(fig.axes) if i not in bars and ax.get_visible()
             and (ax.axison or ax.lines or ax.collections or ax.images or ax.patches or ax.texts
                  or ax.get_legend() is not None)]
    if getattr(fig, "_mark1_one_message", False):
        return shown[:1]
    first = getattr(fig, "_mark1_headline", None)
    if first in shown:
        shown.remove(first)
        shown.insert(0, first)
    return shown


def _wrapped(text: str, width: int) -> str:
    """``text`` set in lines of at most ``width`` characters (its own line breaks kept)."""
    return "\n".join(line for part in text.split("\n") for line in (textwrap.wrap(part, width) or [""]))


def _slug(text: str, fallback: str) -> str:
    """A file-name part from a panel's name: its first words, lower case, dashes."""
    words = re.findall(r"[a-z0-9]+", text.lower())[:4]
    return "-".join(words) or fallback


def panel_figures(fig: Figure) -> list[tuple[str, Figure]]:
    """Each of ``fig``'s :func:`slide_panels` alone in a figure of its own (``fig`` is not changed):
    (name, figure), the headline first with the name ``""``.

    A panel keeps what it draws, its colorbar, its axis labels (from the panel it shared an axis with,
    where it had none) and its title; a panel with no title takes the figure's suptitle, and one with
    a title keeps the suptitle above it; the figure's legends are set beside the panel, and a panel
    with none takes another panel's (the key of them all). An axes holding a legend alone, its ``gid``
    ``"key"``, is a key too large to stand beside a panel: a slide of its own, not copied beside the others.

    Examples
    --------
    >>> from mark1.viz.figure import new_figure
    >>> fig = new_figure(6, 2)
    >>> a, b = fig.subplots(1, 2, sharey=True)
    >>> _ = a.plot([0, 1]), b.plot([1, 0]), a.set_ylabel("accuracy"), b.set_title("over time"), b.set_gid("time")
    >>> [(name, len(f.axes), f.axes[0].get_ylabel()) for name, f in panel_figures(fig)]
    [('', 1, 'accuracy'), ('time', 1, 'accuracy')]
    """
    panels = slide_panels(fig)
    if len(panels) <= 1:
        return [("", fig)]
    index = {id(ax): i for i, ax in enumerate(fig.axes)}
    bars = _colorbars(fig)
    out: list[tuple[str, Figure]] = []
    used: set[str] = set()
    for k, panel in enumerate(panels):
        keep = [index[id(panel)]] + [i for i, owner in bars.items() if owner is panel or owner is None]
        labels = (panel.get_xlabel() or next((s.get_xlabel() for s in panel.get_shared_x_axes().get_siblings(panel)
                                              if s.get_xlabel()), ""),
                  panel.get_ylabel() or next((s.get_ylabel() for s in panel.get_shared_y_axes().get_siblings(panel)
                                              if s.get_ylabel()), ""))
        # the key of the figure, where another panel carries it and this one has none
        key = None if panel.get_legend() is not None or not (panel.lines or panel.collections) else next(
            (index[id(a)] for a in panels if a.get_legend() is not None and a.get_gid() != "key"), None)
        copy = pickle.loads(pickle.dumps(fig))
        FigureCanvasAgg(copy)
        copy.set_layout_engine("none")
        kept = [copy.axes[i] for i in keep]
        key_legend = None if key is None else copy.axes[key].get_legend()
        for ax in list(copy.axes):
            if not any(ax is a for a in kept):
                copy.delaxes(ax)
        ax, caxes = kept[0], kept[1:]
        if key_legend is not None:
            leg = key_legend
            copy.legend(list(leg.legend_handles), [t.get_text() for t in leg.get_texts()], frameon=False,
                        fontsize=leg.get_texts()[0].get_fontsize())
        if labels[0] and not ax.get_xlabel():
            ax.set_xlabel(labels[0])
        if labels[1] and not ax.get_ylabel():
            ax.set_ylabel(labels[1])
        if len(panel.get_shared_x_axes().get_siblings(panel)) > 1 and ax.xaxis.get_ticklocs().size:
            ax.tick_params(axis="x", labelbottom=True)
        if len(panel.get_shared_y_axes().get_siblings(panel)) > 1 and ax.yaxis.get_ticklocs().size:
            ax.tick_params(axis="y", labelleft=True)
        sup = getattr(copy, "_suptitle", None)
        if sup is not None and not ax.get_title() and sup.get_text().strip():
            ax.set_title(sup.get_text())                  # the figure's title is this panel's message
            sup.set_text("")
        ax.title.set_text(_wrapped(ax.get_title(), 60))
        if sup is not None and sup.get_text().strip():
            ax.title.set_fontweight("bold")               # the panel's message first, the figure's title above it
        for t in list(copy.texts):                        # notes placed for the whole figure
            if t is not sup:
                t.set_visible(False)
        copy.set_size_inches(*_PANEL_SIZE)
        left, bottom, width, height = _PANEL_BOX
        bar_w = len(caxes) * (_COLORBAR_GAP + _COLORBAR_W)
        if not ax.axison and not (ax.lines or ax.collections or ax.images or ax.patches):
            ax.set_position((left, bottom + height - 0.02, width - bar_w, 0.02))   # words alone: no empty frame
        else:
            ax.set_position((left, bottom, width - bar_w, height))
        for j, cax in enumerate(caxes):
            cax.set_position((left + width - bar_w + j * (_COLORBAR_GAP + _COLORBAR_W) + _COLORBAR_GAP, bottom,
                              _COLORBAR_W, height))
        for leg in list(copy.legends):                    # the figure's key: beside the panel, in one column
            handles, texts = list(leg.legend_handles), [t.get_text() for t in leg.get_texts()]
            size = leg.get_texts()[0].get_fontsize() if texts else None
            leg.remove()
            copy.legend(handles, texts, loc="upper left", bbox_to_anchor=(1.0 + (0.1 if caxes else 0.02), 1.0),
                        bbox_transform=ax.transAxes, frameon=False, fontsize=size)
        name = "" if k == 0 else (panel.get_gid() or _slug(panel.get_title(), f"panel-{k + 1}"))
        while name in used:
            name += "-2"
        used.add(name)
        out.append((name, copy))
    return out


def _place_suptitle(fig: Figure) -> None:
    """The figure's title, grown for the slide, set clear above its axes and their titles (it was placed
    for the page's sizes; the trimmed save takes it in wherever it goes), in lines of at most 70 characters."""
    sup = getattr(fig, "_suptitle", None)
    if sup is None or not sup.get_text().strip() or not fig.axes:
        return
    if max(len(line) for line in sup.get_text().split("\n")) > 70:
        sup.set_text(_wrapped(sup.get_text(), 70))
    renderer = cast(Any, fig.canvas).get_renderer()
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes if ax.get_visible()]
    top = max((b.y1 for b in boxes if b is not None), default=0.0)                   # display px
    sup.set_verticalalignment("bottom")
    sup.set_y((top + 0.25 * sup.get_fontsize() * fig.dpi / 72) / (fig.get_figheight() * fig.dpi))
