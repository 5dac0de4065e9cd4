"""Figures of the textbook classifiers beside the machine (Bishop, PRML ch. 4).

Colours. A two-class figure draws the class whose decision value is positive
(``classes_[1]``, the target ``t = +1``, the book's C1) in red and the other in blue,
as PRML's Figs. 4.6, 4.7 and 4.10 do; this is also the language's sign rule
(:mod:`mark1._utils.language`: positive red, negative blue), so a posterior ``p(C1|x)``
is drawn on the weights' colour map, blue at 0 through white to red at 1 (the book's
"proportion of red ink given by p(C1|x)"). Three classes keep the book's red, green and
blue (Fig. 4.5).
"""

from __future__ import annotations

import math
import os
import warnings
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from matplotlib.figure import Figure

from mark1._utils.language import NEGATIVE, POSITIVE, WEIGHT_CMAP, percent
from mark1._utils.threads import one_blas_thread
from mark1.exceptions import InputError, Mark1Warning
from mark1.linear_model import FisherDiscriminant
from mark1.viz.figure import new_figure, save_figure

__all__ = ["plane_figure", "fisher_histograms_figure", "max_margin", "NovikoffBound", "novikoff_bound",
           "perceptron_figure", "generative_figure", "posterior_map_figure"]

#: One colour per class, in the order of ``classes_``: the negative class blue, the positive red.
_CLASS_COLORS = (NEGATIVE, POSITIVE)
#: The circle round the point that causes the next perceptron update (green, as in PRML Fig. 4.7;
#: the language page, docs/guide/language.rst, names it).
_NEXT_COLOR = "#1a9850"


def plane_figure(nrows: int, ncols: int, *, width: float, height: float, xlim: tuple[float, float],
                 ylim: tuple[float, float]) -> tuple[Figure, np.ndarray]:
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


# ------------------------------------------------------------------ Fig. 4.6: Fisher


def _fisher_terms(p, yi):
    """PRML eq. 4.23-4.25 on projected values ``p``: the class means m0, m1, the within-class
    variances s0², s1² (the book's sums of squares) and J = (m1 - m0)² / (s0² + s1²)."""
    m = [float(p[yi == c].mean()) for c in (0, 1)]
    s2 = [float(((p[yi == c] - m[c]) ** 2).sum()) for c in (0, 1)]
    return m[0], m[1], s2[0], s2[1], (m[1] - m[0]) ** 2 / (s2[0] + s2[1])


def _directions_panel(ax, X, yi, fd, dirs) -> None:
    """The 2-D data with each direction drawn from the overall mean and, dashed, the boundary it
    gives with a threshold half-way between the projected class means."""
    m0, m1 = fd.means_
    for c in range(2):
        ax.scatter(*X[yi == c].T, s=8, color=_CLASS_COLORS[c], alpha=0.6,
                   label=f"class {fd.classes_[c]} ({int(np.sum(yi == c))} points)")
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
        ax.plot(*line.T, color=style, ls="--", lw=1.3, label=f"{name}: direction and boundary")
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo).max()
    ax.set_xlim(mid[0] - half, mid[0] + half)
    ax.set_ylim(mid[1] - half, mid[1] + half)
    ax.set_aspect("equal", adjustable="box")
    ax.legend(fontsize=7, loc="best")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title("the points, both directions (arrows)", fontsize=9)


def _histogram_panel(ax, p, yi, classes, bins, name) -> float:
    """Class histograms of the projection ``p`` with the means marked, the terms of J drawn and
    written out; returns J."""
    m0, m1, s0, s1, J = _fisher_terms(p, yi)
    edges = np.histogram_bin_edges(p, bins=bins)
    top = 0.0
    for c in range(2):
        pc = p[yi == c]
        top = max(top, np.histogram(pc, bins=edges)[0].max())
        ax.hist(pc, bins=edges, color=_CLASS_COLORS[c], alpha=0.55, label=f"class {classes[c]}")
        ax.axvline(pc.mean(), color=_CLASS_COLORS[c], lw=2)
    ax.set_ylim(0, 2.05 * top)
    # the between-class term: the distance of the projected means; the within-class one: each spread
    ax.annotate("", xy=(m1, 1.3 * top), xytext=(m0, 1.3 * top),
                arrowprops=dict(arrowstyle="<->", color="k", lw=1.2))
    ax.text(0.5 * (m0 + m1), 1.33 * top, "$m_1 - m_0$", ha="center", va="bottom", fontsize=8)
    for c, (m, s2) in enumerate(((m0, s0), (m1, s1))):
        sd = math.sqrt(s2 / np.sum(yi == c))
        ax.annotate("", xy=(m + sd, 1.1 * top), xytext=(m - sd, 1.1 * top),
                    arrowprops=dict(arrowstyle="|-|", color=_CLASS_COLORS[c], lw=1.2, mutation_scale=3))
    ax.text(max(m0, m1) + sd, 1.1 * top, " ±1 sd", ha="left", va="center", fontsize=7)
    ax.text(0.02, 0.97, f"$J = (m_1 - m_0)^2 / (s_0^2 + s_1^2)$\n$= {m1 - m0:.3g}^2 / ({s0:.3g} + {s1:.3g})$"
            f"\n$= {J:.3g}$\n$s_k^2 = \\sum_{{n \\in C_k}} (y_n - m_k)^2$",
            transform=ax.transAxes, ha="left", va="top", fontsize=8,
            bbox=dict(boxstyle="round", fc="white", ec="0.7", alpha=0.9))
    ax.set_title(f"projection onto the {name}: J = {J:.3g}", fontsize=9)
    ax.set_xlabel(f"$y = w^T x$, $w$ the {name} (unit length)", fontsize=8)
    ax.legend(fontsize=7, loc="upper right")
    return J


def fisher_histograms_figure(X: ArrayLike, y: ArrayLike, *, bins: int = 30,
                             out: str | os.PathLike | None = None) -> Figure:
    """PRML Fig. 4.6: projecting two classes onto the mean difference and onto Fisher's w.

    Fits :class:`mark1.linear_model.FisherDiscriminant` and projects the points onto the
    unit vector along ``m_1 - m_0`` and onto Fisher's direction ``w ∝ S_W^{-1} (m_1 - m_0)``
    (unit length). Each projection gets a panel of class histograms with the projected
    class means marked (vertical lines), and Fisher's criterion written out on it (PRML
    eq. 4.25-4.26): the between-class term ``(m_1 - m_0)²`` (the arrow between the means)
    over the within-class variances ``s_k² = Σ_{n ∈ C_k} (y_n - m_k)²`` (each class's spread
    drawn as ±1 standard deviation), with its numbers. Fisher's ``w`` maximises ``J``. When
    ``X`` is 2-D a first panel shows the points with both directions drawn from the
    overall mean and, dashed, the boundary each gives with a threshold half-way between
    the projected class means. Class ``classes_[1]`` is red, the other blue.

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
        Two axes (histograms), three when ``d == 2`` (scatter first). ``J`` is computed
        from the projected points (eq. 4.25); it equals
        :meth:`~mark1.linear_model.FisherDiscriminant.criterion` unless the fit shrank
        the within-class covariance.

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
    fig = new_figure(13.0 if two_d else 9.0, 4.6)
    axes = fig.subplots(1, 3 if two_d else 2, gridspec_kw=dict(width_ratios=[1.1, 1, 1] if two_d else [1, 1]))
    hist_axes = axes[1:] if two_d else axes
    if two_d:
        _directions_panel(axes[0], X, yi, fd, dirs)
    js = [_histogram_panel(ax, X @ v, yi, fd.classes_, bins, name) for ax, (name, v) in zip(hist_axes, dirs.items())]
    hist_axes[0].set_ylabel("points")
    fig.suptitle("Fisher's linear discriminant (PRML Fig. 4.6). J(w) = between-class / within-class variance of the "
                 "projection y = wᵀx (eq. 4.25-4.26).\n"
                 f"Fisher's w maximises J: {js[1]:.3g} against {js[0]:.3g} along the mean difference "
                 f"({js[1] / js[0]:.2g}×); red: class {fd.classes_[1]}, blue: class {fd.classes_[0]}",
                 fontsize=10)
    fig.tight_layout()
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig


# ------------------------------------------------------------------ Fig. 4.7: the perceptron


def _affine_min_norm(G):
    """Weights ``a`` (summing to 1) of the point of the affine hull of points with Gram matrix
    ``G`` nearest the origin: ``[G 1; 1ᵀ 0] [a; μ] = [0; 1]``, by LU (the points Wolfe's
    algorithm keeps are affinely independent), by least squares should they not be."""
    k = len(G)
    A = np.empty((k + 1, k + 1))
    A[:k, :k] = G
    A[:k, k] = A[k, :k] = 1.0
    A[k, k] = 0.0
    b = np.zeros(k + 1)
    b[k] = 1.0
    try:
        a = np.linalg.solve(A, b)[:k]
        if np.isfinite(a).all():
            return a
    except np.linalg.LinAlgError:
        pass
    return np.linalg.lstsq(A, b, rcond=None)[0][:k]


def _min_norm_point(P, max_iter: int = 10_000):
    """The point of the convex hull of the rows of ``P`` nearest the origin (Wolfe 1976).

    Warns (:class:`Mark1Warning`) when ``max_iter`` major cycles end before the optimality
    test holds: the point returned is then in the hull but may not be the nearest."""
    sq = np.einsum("ij,ij->i", P, P)
    scale = max(float(sq.max()), np.finfo(float).tiny)
    tol = 1e-12 * scale
    S = [int(np.argmin(sq))]
    lam = np.ones(1)
    x = P[S[0]].copy()
    for _ in range(max_iter):
        g = P @ x
        j = int(np.argmin(g))
        if x @ x - g[j] <= tol or j in S:              # every point at least as far along x as x: optimal
            break
        S.append(j)
        lam = np.r_[lam, 0.0]
        Q = P[S]
        G = Q @ Q.T
        for _ in range(len(S) + 1):                    # minor cycle: drop points until the affine optimum is inside
            alpha = _affine_min_norm(G)
            if np.all(alpha > 0):
                lam = alpha
                break
            # Step to the hull's face along lam -> alpha, over the weights going negative only: the
            # point just added has lam = 0, and were its alpha exactly 0 too, lam/(lam - alpha) would be 0/0.
            neg = alpha < 0
            theta = float(np.min(lam[neg] / (lam[neg] - alpha[neg]))) if neg.any() else 1.0
            lam = theta * alpha + (1.0 - theta) * lam
            keep = lam > 1e-15
            S = [s for s, k in zip(S, keep) if k]
            lam = lam[keep] / lam[keep].sum()
            G = G[np.ix_(keep, keep)]
        x = lam @ P[S]
    else:
        if x @ x - float(np.min(P @ x)) > tol:          # the last cycle may have reached the optimum
            warnings.warn(f"max_margin: the minimum-norm point was not found in {max_iter:,} iterations; "
                          "the margin returned may be too large", Mark1Warning, stacklevel=3)
    return x


def max_margin(Phi, t):
    """The largest margin of a separating vector through the origin, and that vector.

    Over unit vectors ``u``, the margin ``min_n t_n uᵀφ_n`` is largest at the point of the
    convex hull of the ``t_n φ_n`` nearest the origin (the hard-margin support vector
    machine without an unpenalised bias); its distance from the origin is the margin.
    Computed exactly by Wolfe's minimum-norm-point algorithm. Include a bias feature in
    ``Phi`` to allow boundaries off the origin, as the perceptron does.

    Parameters
    ----------
    Phi : array_like of shape (n, d)
        Feature vectors (bias column included when there is one).
    t : array_like of shape (n,)
        Targets in {-1, +1}.

    Returns
    -------
    gamma : float
        The margin, in the units of ``Phi``; 0 when no vector separates the points strictly.
    u : ndarray of shape (d,)
        The unit vector that attains it (zeros when ``gamma`` is 0).

    Raises
    ------
    mark1.exceptions.InputError
        For shapes that do not match, targets other than ±1, or values that are not finite.

    Examples
    --------
    >>> gamma, u = max_margin([[2.0, 0.0], [0.0, 2.0], [-1.0, -1.0]], [1, 1, -1])
    >>> round(gamma, 6), u.round(6).tolist()           # the hull of (2, 0), (0, 2), (1, 1) is nearest at (1, 1)
    (1.414214, [0.707107, 0.707107])
    >>> max_margin([[1.0], [1.0]], [1, -1])[0]        # the same point in both classes: no margin
    0.0
    """
    Phi, t = _check_targets(Phi, t)
    with one_blas_thread():                             # a loop of small products (up to d x d solves)
        x = _min_norm_point(t[:, None] * Phi)
    gamma = float(np.linalg.norm(x))
    if gamma <= 1e-9 * max(float(np.abs(Phi).max()), np.finfo(float).tiny):
        return 0.0, np.zeros(Phi.shape[1])
    return gamma, x / gamma


def _check_targets(Phi, t):
    Phi = np.asarray(Phi, dtype=float)
    t = np.asarray(t, dtype=float)
    if Phi.ndim != 2 or t.shape != (Phi.shape[0],) or Phi.shape[0] == 0:
        raise InputError(f"Phi, t: expected shapes (n, d) and (n,), got {Phi.shape} and {t.shape}")
    if not np.isfinite(Phi).all():
        raise InputError("Phi: expected finite values, got NaN or infinity")
    if not np.isin(t, (-1.0, 1.0)).all():
        raise InputError("t: expected targets -1 or +1")
    return Phi, t


class NovikoffBound(NamedTuple):
    """Novikoff's bound on the perceptron's updates, with the quantities it is made of.

    What :func:`novikoff_bound` returns; the fields are described below.

    Examples
    --------
    >>> b = novikoff_bound([[2.0, 0.0], [0.0, 2.0], [-1.0, -1.0]], [1, 1, -1])
    >>> b.from_zero == (b.R / b.gamma) ** 2, b.u.shape
    (True, (2,))
    """

    R: float
    """The largest feature vector's length, ``max_n ‖φ_n‖``."""
    gamma: float
    """The margin of the maximum-margin separating vector (:func:`max_margin`)."""
    u: np.ndarray
    """That vector, unit length."""
    from_zero: float
    """``(R / γ)²``: the most updates from ``w = 0`` (any increment)."""
    from_start: float
    """The most updates from the given start ``w0`` with the given increment."""


def novikoff_bound(Phi, t, *, w0=None, eta: float = 1.0) -> NovikoffBound:
    """Novikoff's bound on the number of updates fixed-increment error correction makes.

    With ``R = max ‖φ_n‖`` and ``γ`` the margin of a unit vector ``u`` that separates the
    points (here the best one, :func:`max_margin`), every update raises ``uᵀw`` by at least
    ``η γ`` and ``‖w‖²`` by at most ``η² R²`` (an update happens only when ``t_n wᵀφ_n <= 0``).
    From ``w = 0`` this allows at most ``(R / γ)²`` updates (Novikoff 1962; PRML §4.1.7).
    From a start ``w0``, ``(uᵀw0 + k η γ)² <= ‖w0‖² + k η² R²`` must hold after ``k``
    updates, so ``k`` is at most the larger root of that quadratic.

    Parameters
    ----------
    Phi : array_like of shape (n, d)
        Feature vectors, the bias column included (as trained).
    t : array_like of shape (n,)
        Targets in {-1, +1}.
    w0 : array_like of shape (d,), optional
        The start (default zeros).
    eta : float, default 1.0
        The increment.

    Returns
    -------
    NovikoffBound
        ``R``, ``gamma``, ``u``, ``from_zero`` and ``from_start`` (the bounds are ``inf`` when
        the points are not linearly separable, ``gamma == 0``).

    Raises
    ------
    mark1.exceptions.InputError
        As :func:`max_margin`; for a ``w0`` of the wrong shape or an ``eta`` that is not
        positive.

    Examples
    --------
    >>> Phi = [[2.0, 0.0], [0.0, 2.0], [-1.0, -1.0]]
    >>> b = novikoff_bound(Phi, [1, 1, -1])
    >>> round(b.R, 3), round(b.gamma, 3), round(b.from_zero, 3)      # (2 / √2)²
    (2.0, 1.414, 2.0)
    >>> round(novikoff_bound(Phi, [1, 1, -1], w0=[-3.0, 0.0]).from_start, 3)   # a start against u: more
    5.415
    """
    Phi, t = _check_targets(Phi, t)
    d = Phi.shape[1]
    w0 = np.zeros(d) if w0 is None else np.asarray(w0, dtype=float)
    if w0.shape != (d,) or not np.isfinite(w0).all():
        raise InputError(f"w0: expected {d} finite numbers, got shape {w0.shape}")
    if not (np.isfinite(eta) and eta > 0):
        raise InputError(f"eta: expected a positive increment, got {eta!r}")
    R = float(np.linalg.norm(Phi, axis=1).max())
    gamma, u = max_margin(Phi, t)
    if gamma == 0.0:
        return NovikoffBound(R, 0.0, u, math.inf, math.inf)
    a, b2 = float(u @ w0) / eta, float(w0 @ w0) / eta ** 2           # the start in units of the increment
    p = R * R - 2.0 * a * gamma
    k = (p + math.sqrt(max(p * p - 4.0 * gamma * gamma * (a * a - b2), 0.0))) / (2.0 * gamma * gamma)
    return NovikoffBound(R, gamma, u, (R / gamma) ** 2, k)


def _boundary(ax, w, xlim, ylim, **kw) -> None:
    """The line ``w_1 x_1 + w_2 x_2 + w_0 = 0`` across the panel, and ``w`` as an arrow normal
    to it from its point nearest the panel's centre (or ending there, when the arrow would
    leave the panel), pointing to where ``wᵀφ > 0``."""
    n = w[:2]
    nn = float(n @ n)
    if nn == 0.0:
        return
    centre = np.array([np.mean(xlim), np.mean(ylim)])
    foot = centre - (n @ centre + w[2]) / nn * n
    span = 2.0 * max(np.ptp(xlim), np.ptp(ylim))
    perp = np.array([-n[1], n[0]]) / math.sqrt(nn)
    ax.plot(*(foot + np.outer([-span, span], perp)).T, **kw)
    arrow = 0.25 * max(np.ptp(xlim), np.ptp(ylim)) * n / math.sqrt(nn)
    tip = foot + arrow
    if not (xlim[0] <= tip[0] <= xlim[1] and ylim[0] <= tip[1] <= ylim[1]):
        foot, tip = foot - arrow, foot          # a boundary near a corner: the arrow ends on it instead
    ax.annotate("", xy=tip, xytext=foot, arrowprops=dict(arrowstyle="->", color=kw.get("color", "k"), lw=1.6))


def perceptron_figure(X, t, result, *, w0, eta: float = 1.0, max_panels: int = 20, out=None) -> Figure:
    """PRML Fig. 4.7: the perceptron's boundary after every update, and Novikoff's bound.

    Replays the updates of ``result`` (trained on ``φ = [x_1, x_2, 1]`` from ``w0``): one
    panel for the start and one after each update, each with the points (``t = +1`` red,
    ``t = -1`` blue), the boundary ``wᵀφ = 0``, ``w`` as an arrow normal to it pointing to
    the red side, and circled in green the misclassified point that causes the next update
    (``w += η t_n φ_n``). With more than ``max_panels`` states the first ones and the last
    are drawn and the figure says which. The title prints the updates made beside
    Novikoff's bound (:func:`novikoff_bound`): ``(R/γ)²`` with ``R`` and the margin ``γ`` of the
    maximum-margin separating vector in φ-space (bias included), and the bound from the
    start ``w0`` actually used.

    Parameters
    ----------
    X : array_like of shape (n, 2)
        The points.
    t : array_like of shape (n,)
        Their targets, -1 or +1.
    result : mark1.machine.perceptron.ErrorCorrectionResult
        One unit trained by :func:`mark1.machine.perceptron.train_error_correction` on
        ``np.c_[X, np.ones(n)]`` with ``w0`` and ``eta``.
    w0 : array_like of shape (3,)
        The start ``(w_1, w_2, w_0)``.
    eta : float, default 1.0
        The increment it was trained with.
    max_panels : int, default 20
        The most panels drawn (at least 2).
    out : str or path-like, optional
        Where to save the figure (atomically).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per state drawn (start, after update 1, ...), five across.

    Raises
    ------
    mark1.exceptions.InputError
        For shapes that do not fit, or a ``result`` whose updates replayed from ``w0`` do
        not give its final weights.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.machine.perceptron import train_error_correction
    >>> X = np.array([[-0.5, 0.2], [-0.2, -0.6], [0.4, 0.5], [0.6, -0.3]])
    >>> t = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> w0 = np.array([0.0, 1.0, 0.0])
    >>> r = train_error_correction(np.c_[X, np.ones(4)], t, epochs=20, w0=w0[None], stop_when_converged=True)
    >>> fig = perceptron_figure(X, t, r, w0=w0)
    >>> int(r.errors.sum()), [ax.get_title() for ax in fig.axes]
    (2, ['start: 50.0 %', 'after update 1: 50.0 %', 'after update 2: 100.0 %'])
    """
    X = np.asarray(X, dtype=float)
    Phi, t = _check_targets(np.c_[X, np.ones(len(X))] if X.ndim == 2 else X, t)
    w0 = np.asarray(w0, dtype=float)
    if X.shape[1] != 2 or w0.shape != (3,) or np.shape(result.weights) != (1, 3):
        raise InputError("X, w0, result: expected 2-D points, a start (w_1, w_2, w_0) and one unit trained on "
                         f"[x_1, x_2, 1]; got X {X.shape}, w0 {w0.shape}, weights {np.shape(result.weights)}")
    if max_panels < 2:
        raise InputError(f"max_panels: expected at least 2, got {max_panels}")
    upd = np.flatnonzero(result.errors[:, 0])
    cards = result.order[upd]
    steps = np.cumsum(np.r_[w0[None, :], eta * t[cards, None] * Phi[cards]], axis=0)   # w after 0..U updates
    if not np.allclose(steps[-1], result.weights[0], rtol=1e-9, atol=1e-9 * np.abs(steps).max()):
        raise InputError("result: its updates replayed from w0 with this eta do not give its weights "
                         "(train on np.c_[X, ones] from w0)")
    n_upd = len(upd)
    shown = list(range(n_upd + 1)) if n_upd + 1 <= max_panels else list(range(max_panels - 1)) + [n_upd]
    acc = [float(np.mean(np.where(Phi @ steps[k] > 0, 1.0, -1.0) == t)) for k in shown]
    bound = novikoff_bound(Phi, t, w0=w0, eta=eta)

    ncols = min(5, len(shown))
    nrows = math.ceil(len(shown) / ncols)
    pad = 0.08 * np.ptp(X, axis=0).max()
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo).max()
    xlim, ylim = (mid[0] - half, mid[0] + half), (mid[1] - half, mid[1] + half)
    fig, axes = plane_figure(nrows, ncols, width=2.55 * ncols + 0.4, height=2.55 * nrows + 1.1, xlim=xlim,
                             ylim=ylim)
    for ax, k, a in zip(axes, shown, acc):
        ax.scatter(*X[t > 0].T, s=14, color=POSITIVE)
        ax.scatter(*X[t < 0].T, s=14, color=NEGATIVE)
        _boundary(ax, steps[k], xlim, ylim, color="k", lw=1.4)
        if k < n_upd:
            ax.scatter(*X[cards[k]], s=130, facecolors="none", edgecolors=_NEXT_COLOR, linewidths=2)
        what = "start" if k == 0 else f"after update {k}"
        ax.set_title(f"{what}: {percent(a)}", fontsize=9)
        ax.locator_params(nbins=3)
        ax.tick_params(labelsize=8)
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    for k, ax in enumerate(axes[:len(shown)]):        # the plane is phi's (x1, x2; phi_3 = 1 is the bias)
        if k % ncols == 0:
            ax.set_ylabel("$\\phi_2$")
        if k + ncols >= len(shown):
            ax.set_xlabel("$\\phi_1$")
    which = ("every update shown" if len(shown) == n_upd + 1 else
             f"updates 0-{max_panels - 2} and the last shown, {n_upd + 1 - len(shown)} not drawn")
    fig.suptitle(f"PRML Fig. 4.7: the perceptron, {n_upd} updates ({which}); red t = +1, blue t = -1; "
                 "arrow: w; green circle: the misclassified point added next\n"
                 f"Novikoff: at most (R/γ)² = ({bound.R:.3g}/{bound.gamma:.3g})² = {bound.from_zero:.3g} updates "
                 f"from w = 0, {bound.from_start:.3g} from this start; made: {n_upd}. R = max‖φ‖, γ = margin of "
                 "the maximum-margin separating vector in φ = (x₁, x₂, 1)", fontsize=9)
    if out is not None:
        save_figure(fig, out, dpi=110)
    return fig


# ------------------------------------------------------------------ §4.2 and §4.3: posteriors


def _two_classes_in_the_plane(clf, X, y, what):
    """Check a fitted two-class classifier and 2-D points; their class indices, and a square
    plane around them."""
    classes = getattr(clf, "classes_", None)
    if classes is None or len(classes) != 2 or getattr(clf, "n_features_in_", None) != 2:
        raise InputError(f"{what}: expected a classifier fitted on two classes of 2-D points")
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2 or y.shape != (len(X),) or not np.isin(y, classes).all():
        raise InputError(f"X, y: expected 2-D points of shape (n, 2) and n labels among {classes.tolist()}")
    yi = np.searchsorted(classes, y)
    pad = 0.12 * np.ptp(X, axis=0).max()
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo).max()
    return X, yi, (mid[0] - half, mid[0] + half), (mid[1] - half, mid[1] + half)


def _grid(xlim: tuple[float, float], ylim: tuple[float, float], n: int = 240):
    xx, yy = np.meshgrid(np.linspace(*xlim, n), np.linspace(*ylim, n))
    return xx, yy, np.c_[xx.ravel(), yy.ravel()]


def _posterior_panel(fig, ax, xx, yy, P, alpha=1.0) -> None:
    """``p(C1|x)`` on the weights' colour map (blue 0, white 1/2, red 1) with its 0.5 contour."""
    mesh = ax.pcolormesh(xx, yy, P, cmap=WEIGHT_CMAP, vmin=0.0, vmax=1.0, shading="auto", rasterized=True,
                         alpha=alpha)
    cs = ax.contour(xx, yy, P, levels=[0.1, 0.9], colors="w", linewidths=1.0, linestyles="--")
    ax.clabel(cs, fmt="%.1f", fontsize=8)
    ax.contour(xx, yy, P, levels=[0.5], colors="k", linewidths=1.8)
    fig.colorbar(mesh, ax=ax, shrink=0.8, label="$p(C_1|x)$")


def generative_figure(gc, X, y, *, out=None) -> Figure:
    """PRML §4.2 (cf. Fig. 4.10): Gaussian classes with one covariance give a logistic-sigmoid posterior.

    From a :class:`~mark1.linear_model.GaussianClassifier` fitted with a shared covariance
    on two classes of 2-D points: left, the fitted class-conditional densities
    ``p(x|C_k) = N(x | μ_k, Σ)`` (contours at 1 and 2 Mahalanobis units, class ``classes_[1]``
    = C1 red, the other blue) over the points; middle, the classifier's posterior
    ``p(C1|x)`` (``predict_proba``) over the plane, blue at 0 through white to red at 1 (the
    book's "proportion of red ink"), the boundary ``p = 0.5`` in black; right, ``p(C1|x)``
    at the points against ``a = wᵀx + w_0``, with ``w = Σ⁻¹(μ_1 - μ_0)`` and
    ``w_0 = -μ_1ᵀΣ⁻¹μ_1/2 + μ_0ᵀΣ⁻¹μ_0/2 + ln p(C1)/p(C0)`` computed here from the fitted
    ``means_``, ``covariance_`` and ``priors_`` (eq. 4.65-4.67): they lie on ``σ(a)``
    (eq. 4.57-4.59), and the panel prints the largest difference.

    Parameters
    ----------
    gc : mark1.linear_model.GaussianClassifier
        Fitted with ``covariance="shared"`` on ``X``, ``y`` (two classes, two features).
    X : array_like of shape (n, 2)
        The points.
    y : array_like of shape (n,)
        Their classes.
    out : str or path-like, optional
        Where to save the figure (atomically).

    Returns
    -------
    matplotlib.figure.Figure
        Three panels (and the middle one's colour bar).

    Raises
    ------
    mark1.exceptions.InputError
        For a classifier with one covariance per class, other than two classes or two
        features, or points that do not fit it.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.linear_model import GaussianClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal([0, 0], 1.0, (40, 2)), rng.normal([2, 1], 1.0, (40, 2))]
    >>> y = np.repeat([0, 1], 40)
    >>> fig = generative_figure(GaussianClassifier().fit(X, y), X, y)
    >>> [ax.get_xlabel() for ax in fig.axes[:3]]
    ['$x_1$', '$x_1$', '$a = w^T x + w_0$']
    """
    X, yi, xlim, ylim = _two_classes_in_the_plane(gc, X, y, "gc")
    if not hasattr(gc, "covariance_"):
        raise InputError("gc: expected a GaussianClassifier fitted with covariance='shared'")
    mu0, mu1 = gc.means_
    Sigma = gc.covariance_
    p0, p1 = gc.priors_
    w = np.linalg.solve(Sigma, mu1 - mu0)                                             # eq. 4.66
    w0 = -0.5 * mu1 @ np.linalg.solve(Sigma, mu1) + 0.5 * mu0 @ np.linalg.solve(Sigma, mu0) + math.log(p1 / p0)
    xx, yy, grid = _grid(xlim, ylim)

    fig = new_figure(15.5, 5.0, layout="constrained")
    ax_d, ax_p, ax_s = fig.subplots(1, 3, gridspec_kw=dict(width_ratios=[1, 1.2, 1]))
    inv = np.linalg.inv(Sigma)
    for c, mu in enumerate((mu0, mu1)):
        z = grid - mu
        r2 = np.einsum("ij,jk,ik->i", z, inv, z).reshape(xx.shape)                   # squared Mahalanobis distance
        dens = np.exp(-0.5 * r2) / (2 * math.pi * math.sqrt(np.linalg.det(Sigma)))
        peak = 1.0 / (2 * math.pi * math.sqrt(np.linalg.det(Sigma)))
        ax_d.contour(xx, yy, dens, levels=[peak * math.exp(-2.0), peak * math.exp(-0.5)],
                     colors=[_CLASS_COLORS[c]], linewidths=[1.0, 2.0])
        ax_d.scatter(*X[yi == c].T, s=9, color=_CLASS_COLORS[c], alpha=0.45,
                     label=f"$C_{c}$ = class {gc.classes_[c]}: $p(C_{c})$ = {gc.priors_[c]:.2f}")
        ax_d.plot(*mu, marker="+", ms=14, mew=2.5, color="k")
    ax_d.set_title("$p(x|C_k) = N(x|\\mu_k, \\Sigma)$, one $\\Sigma$ for both\n"
                   "(contours at 1 and 2 Mahalanobis units; +: $\\mu_k$)", fontsize=9)
    ax_d.legend(fontsize=7, loc="lower right")

    P = gc.predict_proba(grid)[:, 1].reshape(xx.shape)
    _posterior_panel(fig, ax_p, xx, yy, P)
    ax_p.set_title("the posterior $p(C_1|x)$ (red ink for $C_1$, blue for $C_0$); black: the\n"
                   "boundary $p(C_1|x) = 0.5$, a straight line; dashed: 0.1 and 0.9", fontsize=9)
    for ax in (ax_d, ax_p):
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_aspect("equal")
        ax.set_xlabel("$x_1$")
        ax.set_ylabel("$x_2$")

    a = X @ w + w0
    p = gc.predict_proba(X)[:, 1]
    gap = float(np.max(np.abs(p - 1.0 / (1.0 + np.exp(-a)))))
    s = np.linspace(min(a.min(), -6.0), max(a.max(), 6.0), 400)
    ax_s.plot(s, 1.0 / (1.0 + np.exp(-s)), color="k", lw=1.5, label="$\\sigma(a) = 1/(1 + e^{-a})$")
    for c in (0, 1):
        ax_s.scatter(a[yi == c], p[yi == c], s=12, color=_CLASS_COLORS[c], alpha=0.7,
                     label=f"$p(C_1|x)$ at the class {gc.classes_[c]} points")
    ax_s.set_xlabel("$a = w^T x + w_0$")
    # sigma(a), not p(C_1|x) again: the colour bar beside it already says p(C_1|x)
    ax_s.set_ylabel("$\\sigma(a)$")
    ax_s.set_ylim(-0.03, 1.03)
    ax_s.legend(fontsize=7, loc="upper left")
    ax_s.text(0.98, 0.04, f"$w = \\Sigma^{{-1}}(\\mu_1 - \\mu_0)$ = ({w[0]:.3f}, {w[1]:.3f})\n"
              f"$w_0$ = {w0:.3f}\nlargest $|p(C_1|x) - \\sigma(a)|$: {gap:.1e}",
              transform=ax_s.transAxes, ha="right", va="bottom", fontsize=8,
              bbox=dict(boxstyle="round", fc="white", ec="0.7"))
    ax_s.set_title("the posterior is the logistic sigmoid of a linear function\n"
                   "(eq. 4.57-4.67; w, $w_0$ from the fitted means, covariance and priors)", fontsize=9)
    fig.suptitle("PRML §4.2 (cf. Fig. 4.10): Gaussian class-conditional densities with a shared covariance give "
                 "$p(C_1|x) = \\sigma(w^T x + w_0)$", fontsize=11)
    if out is not None:
        save_figure(fig, out, dpi=110)
    return fig


def posterior_map_figure(clf, X, y, *, title: str | None = None, out=None) -> Figure:
    """PRML §4.3: a two-class probabilistic classifier's posterior ``p(C1|x)`` over the plane.

    The posterior (``predict_proba``, column ``classes_[1]`` = C1) on the weights' colour
    map, blue at 0 through white to red at 1; dashed, where it is 0.1 and 0.9; black, the
    decision boundary ``p(C1|x) = 0.5``. The points are drawn in their class's colour
    (C1 red squares, C0 blue circles) over a paler map, and the panel writes the linear function
    ``a = wᵀx + w_0`` (``coef_``, ``intercept_``) whose sigmoid the posterior is, and the
    accuracy on the points.

    Parameters
    ----------
    clf : classifier
        Fitted on two classes of 2-D points, with ``predict_proba``, ``coef_`` and
        ``intercept_`` (:class:`~mark1.linear_model.LogisticRegression`,
        :class:`~mark1.linear_model.GaussianClassifier` with a shared covariance).
    X : array_like of shape (n, 2)
        The points.
    y : array_like of shape (n,)
        Their classes.
    title : str, optional
        The figure's title (default: the classifier's name and PRML §4.3).
    out : str or path-like, optional
        Where to save the figure (atomically).

    Returns
    -------
    matplotlib.figure.Figure
        The map and its colour bar.

    Raises
    ------
    mark1.exceptions.InputError
        For other than two classes or two features, or points that do not fit.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.linear_model import LogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal([0, 0], 1.0, (40, 2)), rng.normal([2, 1], 1.0, (40, 2))]
    >>> y = np.repeat(["no", "yes"], 40)
    >>> fig = posterior_map_figure(LogisticRegression().fit(X, y), X, y)
    >>> len(fig.axes), fig.axes[1].get_ylabel()
    (2, '$p(C_1|x)$')
    """
    X, yi, xlim, ylim = _two_classes_in_the_plane(clf, X, y, "clf")
    if not (hasattr(clf, "coef_") and hasattr(clf, "predict_proba")):
        raise InputError("clf: expected a linear classifier with predict_proba, coef_ and intercept_")
    w, w0 = np.asarray(clf.coef_, dtype=float).ravel(), float(np.ravel(clf.intercept_)[0])
    xx, yy, grid = _grid(xlim, ylim)
    fig = new_figure(7.4, 6.2, layout="constrained")
    ax = fig.add_subplot()
    # the map paler than the points, so a point on its own class's side still shows
    _posterior_panel(fig, ax, xx, yy, clf.predict_proba(grid)[:, 1].reshape(xx.shape), alpha=0.6)
    for c, marker in ((0, "o"), (1, "s")):
        ax.scatter(X[yi == c, 0], X[yi == c, 1], s=24, marker=marker, color=_CLASS_COLORS[c], edgecolors="k",
                   linewidths=0.6,
                   label=f"$C_{c}$: class {clf.classes_[c]}")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.legend(fontsize=8, loc="upper left", framealpha=0.9)
    acc = float(np.mean(clf.predict(X) == np.asarray(y)))
    ax.text(0.98, 0.02, f"$p(C_1|x) = \\sigma(w^T x + w_0)$\n$w$ = ({w[0]:.3f}, {w[1]:.3f}), $w_0$ = {w0:.3f}\n"
            f"black: $p = 0.5$, where $w^T x + w_0 = 0$\ndashed: $p$ = 0.1 and 0.9\n"
            f"{percent(acc)} of the points on their side",
            transform=ax.transAxes, ha="right", va="bottom", fontsize=8,
            bbox=dict(boxstyle="round", fc="white", ec="0.7", alpha=0.9))
    ax.set_title(title or f"PRML §4.3: the posterior of {type(clf).__name__} over the plane", fontsize=10)
    if out is not None:
        save_figure(fig, out, dpi=110)
    return fig
