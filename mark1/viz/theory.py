"""Rosenblatt's formulas beside the machine: P_a, P_c and recall, formula as a line, the
machine's patch board as points with 95 % intervals over seeds (matplotlib's object API;
each figure saved atomically when given ``out``).

The theory room measures (:func:`mark1.theory.compare_p_a`, :func:`mark1.theory.compare_p_c`,
:func:`mark1.theory.compare_recall`); these functions draw its rows.

Examples
--------
>>> from mark1.theory import compare_p_a
>>> rows = compare_p_a([(10, 5, 2, 0.1), (10, 5, 2, 0.3)], seeds=2, stimuli=2, n_associators=16)
>>> p_a_figure(rows).axes[0].get_ylabel()
'P_a (fraction of A-units that fire)'
"""

from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure

from mark1.theory import S_POINTS, p_a, p_c, p_c_min, phi, z_1957, z_recall
from mark1.viz.figure import new_figure, save_figure

__all__ = ["p_a_figure", "p_c_figure", "recall_figure", "learning_figure"]


def _groups(rows: list[dict], keys: tuple[str, ...]) -> dict[tuple, list[dict]]:
    """Rows grouped by the values of ``keys``, in first-seen order."""
    out: dict[tuple, list[dict]] = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in keys), []).append(r)
    return out


def _points(ax, rows: list[dict], along: str, color, label=None) -> None:
    """The machine: the mean over seeds with its 95 % interval (:mod:`mark1.stats`; none drawn below 10 seeds)."""
    xs = [r[along] for r in rows]
    ys = np.array([r["measured"] for r in rows])
    err = np.array([ys - [r["low"] for r in rows], [r["high"] for r in rows] - ys])
    ax.errorbar(xs, ys, yerr=err, fmt="o", color=color, markersize=4, capsize=2.5, label=label, zorder=3)


def _finish(fig: Figure, ax, out) -> Figure:
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    if out is not None:
        save_figure(fig, out, dpi=150)
    return fig


def p_a_figure(rows: list[dict], *, out: str | os.PathLike | None = None) -> Figure:
    """P_a against R, one colour per (x, y, θ): the finite formula (line), 1958 eq. 1 (dotted), the machine (points).

    Parameters
    ----------
    rows : list of dict
        From :func:`mark1.theory.compare_p_a`.
    out : str or path-like, optional
        Where to save the figure (PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure
        One axes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from mark1.theory import compare_p_a
    >>> rows = compare_p_a([(10, 5, 2, 0.1), (10, 5, 2, 0.3)], seeds=2, stimuli=2, n_associators=16)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fig = p_a_figure(rows, out=pathlib.Path(d) / "p_a.png")
    ...     sorted(p.name for p in pathlib.Path(d).iterdir())
    ['p_a.png']
    >>> len(fig.axes[0].lines) >= 2            # the finite and the binomial formula
    True
    """
    fig = new_figure(6.4, 4.4)
    ax = fig.add_subplot(1, 1, 1)
    for k, ((x, y, theta), group) in enumerate(_groups(rows, ("x", "y", "theta")).items()):
        color = f"C{k}"
        top = max(0.5, max(r["R"] for r in group))
        lit = np.arange(round(top * S_POINTS) + 1)                      # the formula at every possible r
        ax.plot(lit / S_POINTS, [p_a(x, y, theta, r / S_POINTS, n=S_POINTS) for r in lit], color=color,
                linewidth=1.4, label=f"x={x}, y={y}, θ={theta}")
        grid = np.linspace(0, top, 101)
        ax.plot(grid, [p_a(x, y, theta, R) for R in grid], color=color, linewidth=1, linestyle=":")
        _points(ax, group, "R", color)
    ax.set_xlabel("R (fraction of the 400 S-units lit)")
    ax.set_ylabel("P_a (fraction of A-units that fire)")
    ax.set_title("P_a: 400-point formula (line), 1958 eq. 1 (dotted), machine (points, 95 %)", fontsize=9)
    ax.set_ylim(bottom=0)
    return _finish(fig, ax, out)


def p_c_figure(rows: list[dict], *, out: str | os.PathLike | None = None) -> Figure:
    """P_c against C, one colour per (x, y, θ, R): the finite formula (line), 1958 eq. 2 (dotted),
    P_c,min of eq. 3 (thin dashed), the machine (points).

    Parameters
    ----------
    rows : list of dict
        From :func:`mark1.theory.compare_p_c`.
    out : str or path-like, optional
        Where to save the figure.

    Returns
    -------
    matplotlib.figure.Figure
        One axes.

    Examples
    --------
    >>> from mark1.theory import compare_p_c
    >>> rows = compare_p_c([(10, 5, 2, 0.2, 0.0), (10, 5, 2, 0.2, 1.0)], seeds=2, stimuli=2, n_associators=16)
    >>> fig = p_c_figure(rows)
    >>> fig.axes[0].get_xlabel()
    "C (fraction of S1's lit points that S2 keeps)"
    """
    fig = new_figure(6.4, 4.4)
    ax = fig.add_subplot(1, 1, 1)
    for k, ((x, y, theta, R), group) in enumerate(_groups(rows, ("x", "y", "theta", "R")).items()):
        color = f"C{k}"
        r = round(R * S_POINTS)
        kept = np.arange(max(0, 2 * r - S_POINTS), r + 1)               # every overlap two stimuli of r points can have
        ax.plot(kept / r, [p_c(x, y, theta, R, c / r, n=S_POINTS) for c in kept], color=color, linewidth=1.4,
                label=f"x={x}, y={y}, θ={theta}, R={R:g}")
        grid = np.linspace(max(0.0, (2 * R - 1) / R), 1, 51)
        ax.plot(grid, [p_c(x, y, theta, R, C) for C in grid], color=color, linewidth=1, linestyle=":")
        ax.plot(grid, [p_c_min(x, y, R, C) for C in grid], color=color, linewidth=0.7, linestyle="--", alpha=0.7)
        _points(ax, group, "C", color)
    ax.set_xlabel("C (fraction of S1's lit points that S2 keeps)")
    ax.set_ylabel("P_c (of the A-units firing to S1, fraction firing to S2)")
    ax.set_title("P_c: 400-point formula (line), 1958 eq. 2 (dotted), P_c,min eq. 3 (dashed), machine", fontsize=9)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    return _finish(fig, ax, out)


def recall_figure(rows: list[dict], *, out: str | os.PathLike | None = None) -> Figure:
    """Recall of a μ-system against N_s: the 1957 report's Φ(Z) (its Table I formula), the Z
    derived here, and the machine's A-units (points).

    Parameters
    ----------
    rows : list of dict
        From :func:`mark1.theory.compare_recall` (one board, one N_A).
    out : str or path-like, optional
        Where to save the figure.

    Returns
    -------
    matplotlib.figure.Figure
        One axes, N_s on a log scale.

    Examples
    --------
    >>> from mark1.theory import compare_recall
    >>> rows = compare_recall(10, 5, 3, 0.15, n_a=20, n_s=[5, 50], seeds=2)
    >>> recall_figure(rows).axes[0].get_xscale()
    'log'
    """
    fig = new_figure(6.4, 4.4)
    ax = fig.add_subplot(1, 1, 1)
    for k, ((n_a, fires), group) in enumerate(_groups(rows, ("n_a", "p_a")).items()):
        color = f"C{k}"
        counts = np.geomspace(min(r["n_s"] for r in group) / 2, max(r["n_s"] for r in group) * 2, 80)
        ax.plot(counts, [phi(z_1957(fires, n_a, n)) for n in counts], color=color, linestyle="--", linewidth=1,
                label=f"1957 eq. 5 (Table I), N_A={n_a}, P_a={fires:.3f}")
        ax.plot(counts, [(1 - (1 - fires) ** n_a) * phi(z_recall(fires, n_a, n)) for n in counts], color=color,
                linewidth=1.4, label="derived from the 1958 model")
        _points(ax, group, "n_s", color, label="machine's A-units, α rule, μ-system")
    ax.axhline(0.5, color="0.5", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("N_s (random stimuli forced to each of two responses)")
    ax.set_ylabel("P (a learned stimulus recalled correctly; axis from 0.45)")     # chance is 0.5
    ax.set_title("Recall: the 1957 Table I formula, the derived Z, and the machine", fontsize=9)
    ax.set_ylim(0.45, 1.01)
    return _finish(fig, ax, out)


def learning_figure(rows: list[dict], curves: list[dict], *, title: str, along: str = "n_sr",
                    xlabel: str = "n_sr (stimuli associated to each response)",
                    out: str | os.PathLike | None = None) -> Figure:
    """The 1958 learning curves as lines, the machine's own trainer as points (95 % intervals, :mod:`mark1.stats`).

    Parameters
    ----------
    rows : list of dict
        The machine: keys ``label``, ``along`` (x), ``measured``, ``low``, ``high``.
    curves : list of dict
        The theory: keys ``label``, ``x``, ``y`` (arrays), optional ``style``.
    title, along, xlabel : str
    out : path, optional
        Where to save the PNG (atomically).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = learning_figure([dict(label="m", n_sr=10, measured=0.9, low=0.85, high=0.95)],
    ...                       [dict(label="t", x=np.array([1, 100]), y=np.array([1.0, 0.8]))], title="t")
    >>> fig.axes[0].get_ylabel()
    'P_r (probability of a correct response)'
    """
    fig = new_figure(7.0, 4.6, layout="constrained")
    ax = fig.add_subplot()
    styles = ["-", "--", ":", "-."]
    for i, c in enumerate(curves):
        ax.plot(c["x"], c["y"], c.get("style", styles[i % len(styles)]), color=c.get("color", "k"), lw=1.2,
                label=c["label"])
    markers = "osD^v<>"
    colors = ["C0", "C3", "C2", "C1", "C4", "C5"]
    for i, (key, group) in enumerate(_groups(rows, ("label",)).items()):
        xs = np.array([r[along] for r in group], float) * (1 + 0.03 * (i - 1))      # nudged apart
        ys = np.array([r["measured"] for r in group])
        # an exact interval's end can sit a rounding error inside the mean: clip at 0
        err = np.clip(np.array([ys - [r["low"] for r in group], [r["high"] for r in group] - ys]), 0.0, None)
        ax.errorbar(xs, ys, yerr=err, fmt=markers[i % len(markers)], color=colors[i % len(colors)], ms=4,
                    capsize=2.5, label=key[0])
    ax.axhline(0.5, color="0.5", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_ylim(0.3, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("P_r (probability of a correct response)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=9)
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig
