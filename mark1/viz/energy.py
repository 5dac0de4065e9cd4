"""The energy of learning on one logarithmic axis: the Mark I's motors beside modern devices' pulses.

The Mark I's joules a correction (a motor a pot, running for a fraction of a second)
and a modern analog device's joules a write pulse differ by ten orders of magnitude or
more, so they share one logarithmic axis. Each row is a machine: a diamond for one
pot's update (one trainer's increment to one pot: one motor pulse, or a device's train
of pulses), dots for a whole correction (every pot the trainer turned, one dot a run's
mean), and the status of the constant behind it (datasheet,
assumed) written beside it, so an assumed figure never passes for a measured one.

:func:`energy_accuracy_figure` sets the same machines side by side on one scene, seed by
seed: test accuracy (with its paired change against the first machine), the energy of a
run part by part (write pulses, drivers, reads, periphery) and the machine time.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import LogLocator

from mark1 import stats
from mark1._utils.language import NEUTRAL, SILENT
from mark1.exceptions import InputError
from mark1.machine.energy import PARTS
from mark1.viz.figure import new_figure, save_figure
from mark1.viz.style import slide_style

__all__ = ["EnergyRow", "energy_figure", "EnergyArm", "energy_accuracy_figure", "energy_study_figure"]


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


class EnergyArm(NamedTuple):
    """One machine of :func:`energy_accuracy_figure`: its runs on the scene, one a seed.

    Attributes
    ----------
    label : str
        The machine (a drive, a device preset).
    accuracy : sequence of float (n_seeds,)
        Test accuracy of each seed's run, a share in [0, 1].
    parts : mapping of str to sequence of float (n_seeds,)
        Joules a run of each part (:data:`mark1.machine.energy.PARTS`), seed by seed.
    machine_time_s : sequence of float (n_seeds,)
        The machine time of each run's training (s).
    status : str
        The least sure status among the constants behind its energy (``assumed``, ...).
    change : mark1.stats.Compared, optional
        Its paired change of accuracy against the figure's first machine (adjusted within
        its family); None for that machine.

    Examples
    --------
    >>> EnergyArm("Mark I, DC motors", [0.8, 0.9], {"drivers": [10.0, 12.0]}, [180.0, 180.0], "assumed").change is None
    True
    """

    label: str
    accuracy: Sequence[float]
    parts: Mapping[str, Sequence[float]]
    machine_time_s: Sequence[float]
    status: str
    change: stats.Compared | None = None


#: Marker of each part of a run's energy (grey shades: machines' costs, not learners).
_PART_MARKS = {"write pulses": ("o", "0.15"), "drivers": ("s", "0.35"), "reads": ("^", "0.55"),
               "periphery": ("v", "0.7")}


def _interval_bar(ax, iv, y: float) -> None:
    """The mean with its interval (a bar) at row ``y``, or the mean alone and the words when too few seeds."""
    if iv.too_few:
        ax.scatter([iv.mean], [y], marker="|", s=260, color=SILENT, zorder=5)
        return
    ax.errorbar([iv.mean], [y], xerr=[[iv.mean - iv.low], [iv.high - iv.mean]], fmt="|", ms=16, mew=2.2,
                color=SILENT, capsize=5, lw=2.2, zorder=5)


def _phrase_lines(text: str, width: int) -> list[str]:
    """``text``'s "; "-separated phrases packed into lines of at most ``width`` characters.

    A line breaks between phrases, so none is cut in its middle; only a phrase longer than
    ``width`` is wrapped within itself.

    Examples
    --------
    >>> _phrase_lines("10 paired seeds; 95 % intervals; changes against the top machine, Holm-adjusted", 50)
    ['10 paired seeds; 95 % intervals', 'changes against the top machine, Holm-adjusted']
    """
    lines: list[str] = []
    for phrase in text.split("; "):
        if lines and len(lines[-1]) + 2 + len(phrase) <= width:
            lines[-1] += "; " + phrase
        else:
            lines.extend(textwrap.wrap(phrase, width) if len(phrase) > width else [phrase])
    return lines


def energy_accuracy_figure(arms, *, title: str = "Accuracy, energy and machine time", out=None, dpi: int = 100):
    """Test accuracy, the energy of a run part by part, and the machine time, machine by machine.

    Three panels share one row a machine. Left: each seed's test accuracy (a dot), the mean
    with its 95 % interval (:func:`mark1.stats.mean_interval`, inside [0, 100] %), and the
    paired change against the first machine with its adjusted interval written at the right.
    Middle, on a logarithmic axis: each seed's total joules (a dot), the total's mean with its
    interval, and each part's mean (a marker each; a part of 0 J is not drawn). Right: each
    seed's machine time, its mean with its interval. Where there are too few seeds for an
    interval, the mean alone and the words on the figure.

    Parameters
    ----------
    arms : sequence of EnergyArm
        Top to bottom; the first is the reference of the changes.
    title : str
    out : path, optional
        Save the figure there (atomically).
    dpi : int

    Returns
    -------
    matplotlib.figure.Figure
        Three axes: accuracy (%), energy (J, logarithmic), machine time (s).

    Examples
    --------
    >>> arms = [EnergyArm("motors", [0.8, 0.9, 0.85], {"drivers": [10.0, 12.0, 11.0], "reads": [5.0, 5.0, 5.0]},
    ...                   [180.0] * 3, "assumed"),
    ...         EnergyArm("a cell", [0.7, 0.9, 0.8], {"write pulses": [1e-9, 2e-9, 1.5e-9]}, [180.0] * 3, "assumed")]
    >>> fig = energy_accuracy_figure(arms)
    >>> [ax.get_xscale() for ax in fig.axes]
    ['linear', 'log', 'linear']
    """
    arms = list(arms)
    if not arms:
        raise InputError("arms: expected at least one machine")
    n = len(arms[0].accuracy)
    for a in arms:
        if not (len(a.accuracy) == len(a.machine_time_s) == n and all(len(v) == n for v in a.parts.values())):
            raise InputError(f"arms: expected {n} runs (one a seed) of every machine's accuracy, parts and "
                             f"machine time, got another count for {a.label!r}")
    slide = slide_style() is not None
    times = np.concatenate([np.asarray(a.machine_time_s, float) for a in arms])
    same_time = bool(len(times)) and float(np.ptp(times)) <= 1e-9 * max(1.0, float(times.max()))
    fig = new_figure(14.0, 2.2 + (1.3 if slide else 0.85) * len(arms), layout="constrained")
    if slide and same_time:         # one message less on a slide: the machine time goes into the title
        acc_ax, e_ax = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": (1.0, 1.0)})
        t_ax = None
    else:
        acc_ax, e_ax, t_ax = fig.subplots(1, 3, sharey=True, gridspec_kw={"width_ratios": (1.25, 1.45, 0.8)})
    rng = np.random.default_rng(0)                     # a fixed jitter: the figure is the same every time
    jitter = rng.uniform(-0.16, 0.16, n)
    too_few = False
    totals_seen: list[float] = []
    for i, a in enumerate(arms):
        y = len(arms) - 1 - i
        acc = 100.0 * np.asarray(a.accuracy, float)
        acc_ax.scatter(acc, y + jitter, s=14, color=NEUTRAL, alpha=0.6, zorder=3)
        iv = stats.mean_interval(list(acc), (0.0, 100.0))
        too_few |= iv.too_few
        _interval_bar(acc_ax, iv, y)
        change = ("" if a.change is None else
                  f"{a.change.interval.format(scale=100, digits=1, signed=True)} pt" if not a.change.interval.too_few
                  else f"{100 * a.change.interval.mean:+.1f} pt")
        words = (change or "reference") if slide else f"{iv.mean:.1f} %" + (f", change {change}" if change else "")
        acc_ax.text(0.01, y + 0.33, words, transform=acc_ax.get_yaxis_transform(), ha="left", va="center",
                    fontsize=9, color=SILENT)
        total = np.sum([np.asarray(v, float) for v in a.parts.values()], axis=0) if a.parts else np.zeros(n)
        shown = total[total > 0]
        totals_seen.extend(shown.tolist())
        e_ax.scatter(shown, y + jitter[total > 0], s=14, color=NEUTRAL, alpha=0.6, zorder=3)
        if len(shown) == n:
            _interval_bar(e_ax, stats.mean_interval(list(total), (0.0, np.inf)), y)
        for name, (marker, colour) in _PART_MARKS.items():
            v = np.asarray(a.parts.get(name, ()), float)
            if len(v) and np.mean(v) > 0:
                totals_seen.append(float(np.mean(v)))
                e_ax.scatter([np.mean(v)], [y - 0.3], marker=marker, s=42, color=colour, edgecolor="white",
                             lw=0.6, zorder=6)
        if t_ax is not None:
            t = np.asarray(a.machine_time_s, float)
            t_ax.scatter(t, y + jitter, s=14, color=NEUTRAL, alpha=0.6, zorder=3)
            _interval_bar(t_ax, stats.mean_interval(list(t), (0.0, np.inf)), y)
    acc_ax.set_xlim(0, 100)
    acc_ax.set_xlabel("test accuracy (%)")
    acc_ax.set_yticks(range(len(arms)))
    acc_ax.set_yticklabels([f"{a.label}\n{a.status.split(';')[0] if slide else a.status}" for a in reversed(arms)])
    acc_ax.set_ylim(-0.6, len(arms) - 0.4)
    e_ax.set_xscale("log")
    if totals_seen:
        lo, hi = min(totals_seen), max(totals_seen)
        e_ax.set_xlim(10 ** np.floor(np.log10(lo) - 0.3), 10 ** np.ceil(np.log10(hi) + 0.3))
    if slide:                       # a decade a tick is too dense at a slide's type size
        e_ax.xaxis.set_major_locator(LogLocator(base=10, numticks=6))
    e_ax.set_xlabel("energy of a training run (J, log)")
    if t_ax is not None:
        t_ax.set_xlabel("machine time (s)")
        t_ax.set_xlim(left=0)
    for ax in (acc_ax, e_ax) if t_ax is None else (acc_ax, e_ax, t_ax):
        ax.grid(axis="x", color="0.9", lw=0.8)
        ax.set_axisbelow(True)
    keys = [Line2D([], [], ls="", marker="o", ms=5, color=NEUTRAL, alpha=0.6, label="a run's total (one dot a seed)")]
    keys += [Line2D([], [], ls="", marker=m, ms=7, color=c, label=f"{name} (mean)")
             for name, (m, c) in _PART_MARKS.items()]
    fig.legend(handles=keys, loc="outside lower center", ncol=3 if slide else 5, fontsize=9, frameon=False)
    if t_ax is not None and same_time:
        t_ax.text(0.5, 1.01, f"every run {times[0]:.4g} s", transform=t_ax.transAxes, ha="center", va="bottom",
                  fontsize=9, color=SILENT)
    how = (f"one dot a seed ({n} paired seeds); bars: the mean's 95 % interval ({stats.METHOD_SHORT}); "
           "changes against the top machine, Holm-adjusted; under each machine, the status of its energy's "
           "constants")
    if slide:
        how = (f"{n} paired seeds; 95 % intervals; changes against the top machine, Holm-adjusted"
               + (f"; every run {times[0]:.4g} s of machine time" if same_time else ""))
    if too_few:
        how += f"; {stats.mean_interval([0.0] * n, (0.0, 1.0)).words()}"
    fig.suptitle("\n".join([title, *_phrase_lines(how, 70 if slide else 140)]), fontsize=11)
    if out is not None:
        save_figure(fig, out, dpi=dpi)
    return fig


def energy_study_figure(study, *, out: str | os.PathLike | None = None, dpi: int = 100) -> Figure:
    """:func:`energy_accuracy_figure` of a :class:`mark1.lab.EnergyStudy`: one row a machine.

    Parameters
    ----------
    study : mark1.lab.EnergyStudy
        Its runs, seed by seed; the accuracy changes are its Holm family (``study.changes()``).
    out : str or path-like, optional
        Where to save it (PNG, PDF or SVG).
    dpi : int
        Resolution of a saved raster.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from mark1.lab import energy_study
    >>> study = energy_study("scenes/e_vs_f.toml", seeds=[0], names=["ecram"], train_count=4, test_count=4)
    >>> [t.get_text().splitlines()[0] for t in energy_study_figure(study).axes[0].get_yticklabels()]
    ['ecram', 'Mark I, DC motors']
    """
    changes = study.changes()
    arms = [EnergyArm(n, study.accuracy[n], {p: [e.part(p).joules for e in study.energies[n]] for p in PARTS},
                      study.machine_time_s[n], study.status(n), changes.get(n)) for n in study.names]
    return energy_accuracy_figure(arms, title=f"{study.scene}: accuracy, energy and machine time", out=out, dpi=dpi)
