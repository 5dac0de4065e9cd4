"""What every figure of mark1 starts and ends with: a canvas without pyplot, an atomic save.

matplotlib is imported in :mod:`mark1.viz` and the classroom, nowhere below them. Every
figure function returns a :class:`matplotlib.figure.Figure` and, when given ``out``,
saves it atomically (a temporary file in the same folder, then ``os.replace``), so a
figure file is either complete or absent.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from mark1._utils.atomic import atomic_path

__all__ = ["new_figure", "save_figure"]


def new_figure(width: float, height: float, *, layout: str | None = None) -> Figure:
    """A Figure attached to an Agg canvas (no pyplot, no global state).

    Parameters
    ----------
    width, height : float
        Size in inches.
    layout : {None, "constrained", "tight", "compressed"}, optional
        matplotlib's layout engine; none by default (the axes go where they are put).

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
    fig = Figure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Figure, out, **kwargs) -> None:
    """Save ``fig`` to ``out`` atomically; the format follows the file ending (PNG if none).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    out : str or path-like
        The file; a complete file or none is left there, never half of one.
    **kwargs
        Passed on to :meth:`matplotlib.figure.Figure.savefig` (``dpi``, ``bbox_inches``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> fig = new_figure(2, 2)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     save_figure(fig, pathlib.Path(d) / "blank.png")
    ...     sorted(p.name for p in pathlib.Path(d).iterdir())
    ['blank.png']
    """
    out = Path(out)
    fmt = out.suffix.lstrip(".").lower() or "png"
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format=fmt, **kwargs)
