"""The language drawn: one figure that shows every colour and layout the figures use.

``docs/guide/language.rst`` shows it (``images/language.png``, made by
``language_figure(out="docs/guide/images/language.png")``), so that the page and the
figures cannot drift apart: the swatch is drawn from :mod:`mark1._utils.language` itself.
"""

from __future__ import annotations

import os

import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from mark1._utils.language import (CARD_CMAP, FIRING, LEARNER_COLOURS, MISTAKE, NEGATIVE, NEUTRAL, POSITIVE,
                                   SILENT, WEIGHT_CMAP, duration, percent, percent_spread, unit_grid)
from mark1.viz.figure import new_figure, save_figure
from mark1.viz.style import one_message
from mark1.viz.machine import _lamps

__all__ = ["language_figure"]


def _card(size: int = 20) -> np.ndarray:
    """A printed X: reflectance 1 (paper) with strokes of 0.05 (ink)."""
    card = np.ones((size, size))
    i = np.arange(3, size - 3)
    for d in (-1, 0, 1):
        card[i, np.clip(i + d, 0, size - 1)] = 0.05
        card[i, np.clip(size - 1 - i + d, 0, size - 1)] = 0.05
    return card


def language_figure(*, out: str | os.PathLike | None = None) -> Figure:
    """Every colour, layout and number format of mark1's figures, in one picture.

    Six panels: a card as printed (``CARD_CMAP``: reflectance 1 white, 0 black); the
    weights' and sums' diverging map (``WEIGHT_CMAP``, ``NEGATIVE`` blue through white
    to ``POSITIVE`` red); a firing and a silent unit (``FIRING`` amber, ``SILENT``
    dark); 512 A-units laid out as every figure lays them out (``unit_grid``: 16 rows
    of 32, unit 1 top left, row by row), a few firing; a mistake (``MISTAKE`` magenta
    tick under a learning curve) beside a reference line (``NEUTRAL`` grey); the three
    learners' colours (``LEARNER_COLOURS``), with durations and accuracies written as
    :func:`~mark1._utils.language.duration`, :func:`~mark1._utils.language.percent` and
    :func:`~mark1._utils.language.percent_spread` write them.

    Parameters
    ----------
    out : str or path-like, optional
        Where to save the figure (atomically; PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure
        Six axes (the second is the colour bar).

    Examples
    --------
    >>> fig = language_figure()
    >>> [ax.get_title().split(":")[0] for ax in fig.axes[:6]]
    ['a card', 'weights and sums', 'units', '512 A-units', 'a mistake', 'the learners']
    """
    fig = new_figure(15.0, 3.6)
    grid = fig.add_gridspec(1, 6, width_ratios=[0.8, 1.3, 0.7, 2.0, 1.2, 1.1],
                            left=0.02, right=0.98, top=0.72, bottom=0.14, wspace=0.45)
    ax = fig.add_subplot(grid[0])
    ax.imshow(_card(), cmap=CARD_CMAP, vmin=0.0, vmax=1.0, interpolation="nearest")
    ax.set(xticks=[], yticks=[])
    ax.set_title("a card: ink on paper\n(reflectance 1 white, 0 black)", fontsize=9)

    ax = fig.add_subplot(grid[1])
    bar = fig.colorbar(ScalarMappable(Normalize(-1, 1), WEIGHT_CMAP), cax=ax, orientation="horizontal")
    bar.set_ticks([-1, 0, 1], labels=["− (blue)", "0 (white)", "+ (red)"])
    ax.set_box_aspect(0.25)
    ax.set_title(f"weights and sums: negative {NEGATIVE},\npositive {POSITIVE} ({WEIGHT_CMAP})", fontsize=9)

    ax = fig.add_subplot(grid[2])
    _lamps(ax, [True, False], (2, 1))
    ax.text(0.6, 0, "firing", va="center", fontsize=9, color="w")
    ax.text(0.6, 1, "silent", va="center", fontsize=9, color="w")
    ax.set_xlim(-0.7, 2.6)
    ax.set_title(f"units: firing {FIRING},\nsilent {SILENT}", fontsize=9)

    ax = fig.add_subplot(grid[3])
    rows, cols = unit_grid(512)
    on = np.zeros(512, bool)
    on[np.random.default_rng(0).choice(512, 90, replace=False)] = True
    _lamps(ax, on, (rows, cols))
    ax.set_title(f"512 A-units: {rows} rows of {cols}, A1 top left,\nrow by row (unit_grid)", fontsize=9)

    ax = fig.add_subplot(grid[4])
    x = np.arange(1, 41)
    ax.plot(x, 100 * (0.5 + 0.5 * (1 - np.exp(-x / 10))), color="0.15", lw=1.6)
    ax.plot([3, 5, 9, 17], [-3] * 4, "|", color=MISTAKE, ms=9)
    ax.axhline(50, color=NEUTRAL, ls="--", lw=1)
    ax.set(ylim=(-7, 105), xlabel="cards presented", ylabel="accuracy (%)")
    ax.set_title(f"a mistake: a tick in magenta\n{MISTAKE}; a reference: grey {NEUTRAL}", fontsize=9)

    ax = fig.add_subplot(grid[5])
    for i, (name, colour) in enumerate(LEARNER_COLOURS.items()):
        ax.barh(2 - i, 1, color=colour)
        ax.text(0.05, 2 - i, f"{name} {colour}", va="center", color="w", fontsize=9, weight="bold")
    ax.set(xlim=(0, 1), xticks=[], yticks=[])
    ax.set_title("the learners: analog,\ndigital, ideal", fontsize=9)
    fig.suptitle(f"mark1's language — durations by size: {duration(12.34)}, {duration(199.0)}, "
                 f"{duration(6.2 * 3600)}; accuracy in %: {percent(0.975)}, over seeds {percent_spread(0.86, 0.018)}",
                 fontsize=11)
    one_message(fig)                     # the key to every figure: one sheet on a slide
    if out is not None:
        save_figure(fig, out, dpi=110)
    return fig
