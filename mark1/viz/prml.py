"""Figures of the textbook classifiers beside the machine (Bishop, PRML ch. 4)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from mark1.exceptions import InputError
from mark1.linear_model import FisherDiscriminant
from mark1.viz.figure import new_figure, save_figure

__all__ = ["plane_figure", "fisher_histograms_figure"]

#: One colour per class, in the order of ``classes_``.
_CLASS_COLORS = ("tab:red", "tab:blue")


def plane_figure(nrows: int, ncols: int, *, width: float, height: float, xlim, ylim):
    """Panels of the 2-D data plane, as PRML draws its examples: the same limits, equal aspect.

    The panels share their axes (ticks on the outer ones only) and the figure lays itself
    out (matplotlib's constrained layout). Draw the points and boundaries into the panels;
    limits set here stay put.

    Parameters
    ----------
    nrows, ncols : int
        Panels down and across.
    width, height : float
        Size of the figure in inches.
    xlim, ylim : (float, float)
        The plane shown in every panel (data units).

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : array of matplotlib.axes.Axes, shape (nrows * ncols,)
        The panels row by row.

    Examples
    --------
    >>> fig, axes = plane_figure(1, 2, width=8, height=4, xlim=(-1, 1), ylim=(-2, 2))
    >>> _ = axes[0].scatter([0.5, 3.0], [0.0, 5.0])          # a point outside: the limits stay
    >>> axes.shape, [float(v) for v in axes[0].get_xlim()], [float(v) for v in axes[1].get_ylim()]
    ((2,), [-1.0, 1.0], [-2.0, 2.0])
    >>> axes[1].get_aspect()
    1.0
    """
    fig = new_figure(width, height, layout="constrained")
    axes = np.asarray(fig.subplots(nrows, ncols, sharex=True, sharey=True)).ravel()
    for ax in axes:
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_aspect("equal")
    return fig, axes


def _directions_panel(ax, X, yi, fd, dirs) -> None:
    """The 2-D data with each direction drawn from the overall mean and, dashed, the boundary it
    gives with a threshold half-way between the projected class means."""
    m0, m1 = fd.means_
    for c in range(2):
        ax.scatter(*X[yi == c].T, s=8, color=_CLASS_COLORS[c], alpha=0.6, label=str(fd.classes_[c]))
    span = np.ptp(X, axis=0).max()
    xbar = X.mean(axis=0)
    lo, hi = X.min(axis=0) - 0.05 * span, X.max(axis=0) + 0.05 * span
    for (name, v), style in zip(dirs.items(), ("tab:purple", "tab:green")):
        ax.annotate("", xy=xbar + 0.35 * span * v, xytext=xbar,
                    arrowprops=dict(arrowstyle="->", color=style, lw=2))
        thr = 0.5 * (m0 + m1) @ v
        t = np.linspace(-span, span, 2)
        perp = np.array([-v[1], v[0]])
        line = thr * v + t[:, None] * perp
        ax.plot(*line.T, color=style, ls="--", lw=1.3, label=f"boundary, {name}")
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo).max()
    ax.set_xlim(mid[0] - half, mid[0] + half)
    ax.set_ylim(mid[1] - half, mid[1] + half)
    ax.set_aspect("equal", adjustable="box")
    ax.legend(fontsize=7, loc="best")
    ax.set_title("data, both directions", fontsize=9)


def fisher_histograms_figure(X, y, *, bins: int = 30, out=None) -> Figure:
    """PRML Fig. 4.6: projecting two classes onto the mean difference and onto Fisher's w.

    Fits :class:`mark1.linear_model.FisherDiscriminant` and projects the data onto the
    unit vector along ``m_1 - m_0`` and onto Fisher's direction ``w ∝ S_W^{-1} (m_1 - m_0)``
    (unit length). Each projection gets a panel of class histograms with the projected
    class means marked and Fisher's criterion ``J`` in the title. When ``X`` is 2-D a
    first panel shows the data with both directions drawn from the overall mean and,
    dashed, the boundary each gives with a threshold half-way between the projected
    class means.

    Parameters
    ----------
    X : array_like of shape (n, d)
        The points (any units).
    y : array_like of shape (n,)
        Their classes: exactly two.
    bins : int
        Histogram bins of each projection.
    out : str or path-like, optional
        Where to save the figure (atomically; PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure
        Two axes (histograms), three when ``d == 2`` (scatter first).

    Raises
    ------
    mark1.exceptions.InputError
        Unless ``y`` has exactly two classes.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal([0, 0], 1.0, (50, 2)), rng.normal([3, 1], 1.0, (50, 2))]
    >>> fig = fisher_histograms_figure(X, np.repeat([0, 1], 50))
    >>> len(fig.axes), fig.axes[2].get_title().split(":")[0]
    (3, 'projection onto the Fisher direction w')
    """
    fd = FisherDiscriminant().fit(X, y)
    if len(fd.classes_) != 2:
        raise InputError(f"y: expected exactly 2 classes, got {len(fd.classes_)}")
    X = np.asarray(X, dtype=float)
    yi = np.searchsorted(fd.classes_, np.asarray(y))
    m0, m1 = fd.means_
    u = m1 - m0
    w = fd.coef_[0]
    dirs = {"mean difference": u / np.linalg.norm(u), "Fisher direction w": w / np.linalg.norm(w)}
    two_d = X.shape[1] == 2
    fig = new_figure(12.0 if two_d else 8.5, 3.9)
    axes = fig.subplots(1, 3 if two_d else 2, gridspec_kw=dict(width_ratios=[1.1, 1, 1] if two_d else [1, 1]))
    hist_axes = axes[1:] if two_d else axes
    if two_d:
        _directions_panel(axes[0], X, yi, fd, dirs)
    for ax, (name, v) in zip(hist_axes, dirs.items()):
        p = X @ v
        edges = np.histogram_bin_edges(p, bins=bins)
        for c in range(2):
            pc = p[yi == c]
            ax.hist(pc, bins=edges, color=_CLASS_COLORS[c], alpha=0.55, label=str(fd.classes_[c]))
            ax.axvline(pc.mean(), color=_CLASS_COLORS[c], lw=2)
        ax.set_title(f"projection onto the {name}: J = {fd.criterion(v):.3g}", fontsize=9)
        ax.set_xlabel(f"{name} · x")
        ax.legend(fontsize=7)
    hist_axes[0].set_ylabel("cards")
    fig.suptitle("Fisher's linear discriminant (PRML Fig. 4.6): class means marked", fontsize=10)
    fig.tight_layout()
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig
