"""What every figure of mark1 starts and ends with: a canvas without pyplot, an atomic save.

matplotlib is imported in :mod:`mark1.viz` and the classroom, nowhere below them. Every
figure function returns a :class:`matplotlib.figure.Figure` and, when given ``out``,
saves it atomically (a temporary file in the same folder, then ``os.replace``), so a
figure file is either complete or absent. A figure returned as a Jupyter cell's value
draws itself as a PNG. An accuracy axis is drawn in % by
:func:`accuracy_axis`, which says so on the axis when it does not start at 0; where it
starts is :func:`accuracy_low`'s choice.
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path
from typing import Any, Literal

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from numpy.typing import ArrayLike
from matplotlib.figure import Figure

from mark1._utils.atomic import atomic_path
from mark1.exceptions import InputError
from mark1.viz.style import for_slide, panel_figures, slide_style

__all__ = ["new_figure", "save_figure", "accuracy_axis", "accuracy_low"]


def new_figure(width: float, height: float, *,
               layout: Literal["constrained", "compressed", "tight"] | None = None) -> Figure:
    """A Figure attached to an Agg canvas (no pyplot, no global state).

    Returned as a notebook cell's value, it shows as a PNG in Jupyter without pyplot
    imported first (a ``_repr_png_``; pyplot's inline backend draws it where active).

    Parameters
    ----------
    width, height : float
        Size in inches.
    layout : {None, "constrained", "tight", "compressed"}, optional
        matplotlib's layout engine; none by default (the axes go where they are put). Inside
        :func:`mark1.viz.style.slides` a figure with a layout engine is made at least 9/16 as
        high as it is wide (the slide's shape).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = new_figure(4, 3)
    >>> ax = fig.add_subplot()
    >>> fig.get_size_inches().tolist()
    [4.0, 3.0]
    >>> type(new_figure(4, 3, layout="constrained").get_layout_engine()).__name__
    'ConstrainedLayoutEngine'
    """
    if slide_style() is not None and layout is not None:
        # made for a 16:9 slide: a wide, low figure laid out by the engine grows to the slide's shape
        height = max(height, width * 9 / 16)
    fig = _ShownFigure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(fig)
    return fig


class _ShownFigure(Figure):
    """A Figure that Jupyter draws as a PNG when it is a cell's value.

    IPython draws a bare Figure only once pyplot's inline backend has registered its
    formatter (pyplot imported in an earlier cell); without it a student saw
    ``<Figure size 640x480 with 1 Axes>``. :meth:`_repr_png_` is IPython's fallback, used
    only when no formatter for Figure is registered, so the inline backend's own drawing
    wins where it is active.
    """

    def _repr_png_(self) -> bytes:
        fig: Figure = self
        if slide_style() is not None:            # inside mark1.viz.style.slides(): the headline panel, for the slide
            fig = for_slide(panel_figures(self)[0][1])
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()


def save_figure(fig: Figure, out: str | os.PathLike, **kwargs: Any) -> list[tuple[Path, Figure]]:
    """Save ``fig`` to ``out`` atomically; the format follows the file ending (PNG if none).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    out : str or path-like
        The file; a complete file or none is left there, never half of one.
    **kwargs
        Passed on to :meth:`matplotlib.figure.Figure.savefig` (``dpi``, ``bbox_inches``). Inside
        :func:`mark1.viz.style.slides` the figure is first made for the slide
        (:func:`~mark1.viz.style.for_slide`) and saved trimmed; a figure of several panels is
        saved one panel a file, the headline as ``out`` and the others beside it as
        ``<out's name>-<panel>.<ending>`` (:func:`mark1.viz.style.panel_figures`).

    Returns
    -------
    list of (pathlib.Path, matplotlib.figure.Figure)
        Each file written and the figure drawn in it (``[(out, fig)]`` but for a figure cut into
        its panels for slides).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> fig = new_figure(2, 2)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = save_figure(fig, pathlib.Path(d) / "blank.png")
    ...     sorted(p.name for p in pathlib.Path(d).iterdir())
    ['blank.png']
    """
    out = Path(out)
    fmt = out.suffix.lstrip(".").lower() or "png"
    written = [(out, fig)]
    style = slide_style()
    if style is not None:                        # inside mark1.viz.style.slides(): one panel a file, trimmed
        written = [(out if not name else out.with_name(f"{out.stem}-{name}{out.suffix}"), for_slide(part))
                   for name, part in panel_figures(fig)]
        kwargs["bbox_inches"] = "tight"
    for path, part in written:
        with atomic_path(path) as tmp:
            part.savefig(tmp, format=fmt, **kwargs)
        if style is not None:
            style.written.append(path)
            if path != out:
                style.panels.append(path)
    return written


def accuracy_axis(ax: Axes, low: float = 0.0, *, which: str = "y", label: str = "accuracy") -> None:
    """Make ``ax``'s x or y axis an accuracy axis in %, from ``low`` to 100.

    The data must already be in % (0 to 100). An axis that starts above 0 says so in
    its label ("axis from 50 %"), so that a gap of a few points is not read as a large
    one; a little room is left above 100 % for marks drawn at 100.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    low : float, default 0
        Where the axis starts, % (0 to below 100).
    which : {"y", "x"}
        The axis.
    label : str
        What is measured ("test accuracy", ...); " (%)" is added.

    Raises
    ------
    mark1.exceptions.InputError
        For ``low`` outside [0, 100) or ``which`` not x or y.

    Examples
    --------
    >>> ax = new_figure(3, 2).add_subplot()
    >>> accuracy_axis(ax, 50, label="test accuracy")
    >>> ax.get_ylabel(), [float(v) for v in ax.get_ylim()]
    ('test accuracy (%; axis from 50 %)', [50.0, 101.0])
    >>> accuracy_axis(ax, which="x"); ax.get_xlabel()
    'accuracy (%)'
    """
    low = float(low)
    if not 0.0 <= low < 100.0:
        raise InputError(f"accuracy_axis: low: expected a start in % with 0 <= low < 100, got {low!r}")
    if which not in ("x", "y"):
        raise InputError(f"accuracy_axis: which: expected 'x' or 'y', got {which!r}")
    text = f"{label} (%)" if low == 0 else f"{label} (%; axis from {low:g} %)"
    if which == "y":
        ax.set_ylim(low, 101.0)
        ax.set_ylabel(text)
    else:
        ax.set_xlim(low, 101.0)
        ax.set_xlabel(text)


def accuracy_low(values_pct: ArrayLike, chance: float = 50.0) -> float:
    """Where an accuracy axis starts, as the language says: at chance (rounded down to a
    multiple of 10) when every value is above it, else at 0 (a value at chance would sit on
    the axis' edge, half hidden).

    Pass every value the axis shows, error bars' ends included; give the result to
    :func:`accuracy_axis`, which says so on the axis when it is not 0.

    Parameters
    ----------
    values_pct : array_like
        The values drawn, in % (NaN is left out).
    chance : float, default 50
        Chance, in % (50 for two classes).

    Returns
    -------
    float
        The start, in %: 0 or the multiple of 10 at or below ``chance``.

    Examples
    --------
    >>> accuracy_low([62.0, 97.5]), accuracy_low([50.0, 97.5]), accuracy_low([40.0, float("nan")], chance=33.3)
    (50.0, 0.0, 30.0)
    """
    finite = [float(v) for v in np.ravel(np.asarray(values_pct, dtype=float)) if v == v]
    if finite and min(finite) > chance:
        return float(math.floor(chance / 10.0) * 10.0)
    return 0.0
