"""What Jupyter shows of mark1's objects: HTML tables, figures as PNG data URIs, short reprs.

No matplotlib here, and no room above this one is imported: the figure of an object is
drawn by a function of :mod:`mark1.viz`, found through :data:`FIGURES`, which the package
face (``mark1/__init__.py``, above every room) fills with names. The function's module is
imported only when a notebook asks for the HTML, so ``import mark1`` loads no matplotlib.
"""

from __future__ import annotations

import base64
import html
import importlib
import io
from collections.abc import Callable, Sequence

__all__ = ["html_table", "figure_img", "study_html", "clip", "FIGURES", "figure_function", "TextTable"]

#: The function drawing each kind of object's figure, ``"module:function"`` by the object's
#: class name; filled by ``mark1/__init__.py``. A kind without one shows its table alone.
FIGURES: dict[str, str] = {}


def figure_function(kind: str) -> Callable | None:
    """The function :data:`FIGURES` names for ``kind`` (a class name), imported now; None if none.

    Examples
    --------
    >>> import mark1
    >>> figure_function("Comparison").__name__, figure_function("NoSuchKind")
    ('comparison_figure', None)
    """
    name = FIGURES.get(kind)
    if name is None:
        return None
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)

class TextTable(str):
    """A study's plain-text table: a ``str`` that a notebook shows as its lines, not as a quoted
    string full of ``\\n``.

    Examples
    --------
    >>> t = TextTable("a  1\\nb  2")
    >>> t == "a  1\\nb  2", repr(t) == str(t)
    (True, True)
    """

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(str(self))

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(str(self))}</pre>"


#: Longest one-line ``__repr__`` mark1 writes (characters).
REPR_LIMIT = 120

_STYLE = ("border-collapse:collapse;font-variant-numeric:tabular-nums;margin:0.3em 0")
_CELL = "padding:0.15em 0.6em;border-bottom:1px solid #ddd"


def clip(text: str, limit: int = REPR_LIMIT) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis when longer.

    Examples
    --------
    >>> clip("a\\nb"), clip("x" * 10, 6)
    ('a b', 'xxxxx…')
    """
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def html_table(head: Sequence, rows: Sequence[Sequence], *, left: Sequence[int] = (0,), caption: str = "",
               notes: Sequence[str] = ()) -> str:
    """An HTML table: columns ``left`` aligned left, the rest right (numbers), every cell escaped.

    Parameters
    ----------
    head : sequence of str
        Column headings.
    rows : sequence of sequences
        The cells, as text (``str()`` is taken), one sequence per row.
    left : sequence of int
        Columns aligned left.
    caption : str
        A line above the table.
    notes : sequence of str
        Lines below it (what the columns mean).

    Returns
    -------
    str

    Examples
    --------
    >>> html_table(["a", "b"], [["x<y", 1]]).count("<td")
    2
    >>> "x&lt;y" in html_table(["a", "b"], [["x<y", 1]])
    True
    """
    def cell(tag, i, value):
        # numbers right-aligned and never broken across lines ("0.00085 s" was split in two)
        align = "left" if i in left else "right;white-space:nowrap"
        return f'<{tag} style="{_CELL};text-align:{align}">{html.escape(str(value))}</{tag}>'

    parts = [f'<table style="{_STYLE}">']
    if caption:
        parts.append(f'<caption style="text-align:left;caption-side:top">{html.escape(caption)}</caption>')
    parts.append("<thead><tr>" + "".join(cell("th", i, h) for i, h in enumerate(head)) + "</tr></thead><tbody>")
    parts += ["<tr>" + "".join(cell("td", i, c) for i, c in enumerate(r)) + "</tr>" for r in rows]
    parts.append("</tbody></table>")
    parts += [f'<div style="font-size:90%;color:#444">{html.escape(n)}</div>' for n in notes if n]
    return "".join(parts)


def figure_img(fig, *, alt: str = "figure") -> str:
    """A drawn figure as an ``<img>`` with a PNG data URI (the notebook stays one file).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    alt : str
        The image's text for readers that show none.

    Returns
    -------
    str

    Examples
    --------
    >>> from mark1.viz.figure import new_figure
    >>> figure_img(new_figure(1, 1)).startswith('<img src="data:image/png;base64,')
    True
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt)}" style="max-width:100%">'


def study_html(title: str, table: str, draw: Callable | None = None, result=None) -> str:
    """A study's HTML: a heading, its table, and its figure when ``draw(result)`` makes one.

    Parameters
    ----------
    title : str
        The heading (the study and its scene).
    table : str
        The table's HTML (:func:`html_table`).
    draw : callable or None
        The figure function of :mod:`mark1.viz.studies` (imported by the caller only when
        the HTML is asked for).
    result : object
        What ``draw`` draws.

    Returns
    -------
    str

    Examples
    --------
    >>> study_html("sweep", html_table(["v"], [[1]])).startswith("<div><b>sweep</b>")
    True
    """
    parts = [f"<div><b>{html.escape(title)}</b>", table]
    if draw is not None:
        parts.append(figure_img(draw(result), alt=title))
    parts.append("</div>")
    return "".join(parts)
