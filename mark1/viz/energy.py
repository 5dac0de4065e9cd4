"""The energy of learning on one logarithmic axis: the Mark I's motors beside modern devices' pulses.

The Mark I's joules a correction (a motor a pot, running for a fraction of a second)
and a modern analog device's joules a write pulse differ by ten orders of magnitude or
more, so they share one logarithmic axis. Each row is a machine: a diamond for one
pot's update (one trainer's increment to one pot: one motor pulse, or a device's train
of pulses), dots for a whole correction (every pot the trainer turned, one dot a run's
mean), and the status of the constant behind it (datasheet,
assumed) written beside it, so an assumed figure never passes for a measured one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mark1._utils.language import NEUTRAL, SILENT
from mark1.exceptions import InputError
from mark1.viz.figure import new_figure, save_figure

__all__ = ["EnergyRow", "energy_figure"]


class EnergyRow(NamedTuple):
    """One machine's row of :func:`energy_figure`.

    Attributes
    ----------
    label : str
        The machine (a drive, a device preset).
    per_update_j : float
        Joules of one pot's update (one trainer's increment to one pot; nan: not drawn).
    per_correction_j : array-like (n_runs,)
        Joules a correction of each run (empty: not drawn).
    status : str
        Provenance of the constant (``datasheet``, ``assumed``, ...).
    note : str
        A few words on where the figure comes from (drawn small under the label).

    Examples
    --------
    >>> EnergyRow("Mark I, DC motors", 0.16, [35.4], "assumed").note
    ''
    """

    label: str
    per_update_j: float
    per_correction_j: tuple | list | np.ndarray
    status: str
    note: str = ""


def energy_figure(rows, *, title: str = "Energy of learning", out=None, dpi: int = 100):
    """Joules a pot update and a correction, machine by machine, on one logarithmic axis.

    Parameters
    ----------
    rows : sequence of EnergyRow
        Top to bottom.
    title : str
    out : path, optional
        Save the figure there (atomically).
    dpi : int

    Returns
    -------
    matplotlib.figure.Figure
        One axes, x logarithmic in joules.

    Examples
    --------
    >>> rows = [EnergyRow("Mark I, DC motors", 0.16, [35.4, 33.0], "assumed", "2 W x 0.08 s a pot"),
    ...         EnergyRow("a resistive cell", 1e-12, [2e-10], "datasheet", "1 pJ a pulse")]
    >>> fig = energy_figure(rows)
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_xlabel()
    ('log', 'energy (J), logarithmic')
    """
    rows = list(rows)
    if not rows:
        raise InputError("rows: expected at least one machine")
    values = [v for r in rows for v in [r.per_update_j, *np.ravel(r.per_correction_j)]
              if np.isfinite(v) and v > 0]
    if not values:
        raise InputError("rows: expected at least one positive energy to draw")
    fig = new_figure(10.5, 1.2 + 0.75 * len(rows))
    ax = fig.add_subplot()
    # no learner's colours: these marks are machines' costs, not learners (the language's NEUTRAL and SILENT)
    update_colour, correction_colour = SILENT, NEUTRAL
    rng = np.random.default_rng(0)                     # a fixed jitter: the figure is the same every time
    for i, r in enumerate(rows):
        y = len(rows) - 1 - i
        per = np.asarray(r.per_correction_j, float).ravel()
        per = per[np.isfinite(per) & (per > 0)]
        if len(per):
            ax.scatter(per, y + rng.uniform(-0.12, 0.12, len(per)), s=14, color=correction_colour, alpha=0.6,
                       zorder=3, label="a correction (every pot turned; one dot a run's mean)")
            ax.plot([float(np.median(per))] * 2, [y - 0.22, y + 0.22], color=correction_colour, lw=2, zorder=4)
        if np.isfinite(r.per_update_j) and r.per_update_j > 0:
            ax.scatter([r.per_update_j], [y], marker="D", s=46, color=update_colour, zorder=5,
                       label="one pot's update (one trainer's increment)")
        ax.text(1.01, y, r.status, transform=ax.get_yaxis_transform(), va="center", fontsize=9,
                color=NEUTRAL, style="italic" if r.status == "assumed" else "normal")
    ax.set_xscale("log")
    lo, hi = min(values), max(values)
    ax.set_xlim(10 ** np.floor(np.log10(lo) - 0.5), 10 ** np.ceil(np.log10(hi) + 0.5))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r.label + (f"\n{r.note}" if r.note else "") for r in reversed(rows)], fontsize=9)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.grid(axis="x", which="major", color="0.9", lw=0.8)
    ax.set_axisbelow(True)
    ax.set_xlabel("energy (J), logarithmic")
    handles, labels = ax.get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    ax.legend(seen.values(), seen.keys(), loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=9,
              frameon=False)
    ax.set_title(title, fontsize=12, pad=26)
    fig.tight_layout()
    if out is not None:
        save_figure(fig, out, dpi=dpi)
    return fig
