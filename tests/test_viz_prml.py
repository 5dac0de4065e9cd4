"""The PRML figures state numbers; each is checked here against a computation of its own.

Fig. 4.6's ``J`` against the projections and :meth:`FisherDiscriminant.criterion`;
Fig. 4.7's panels against a replay of the updates and its Novikoff bound against a margin
found by a general-purpose solver (scipy's SLSQP on the hard-margin problem) and against
the updates the perceptron makes; the §4.2 figure's ``w``, ``w_0`` against maximum
likelihood done by hand, and the identity ``p(C1|x) = σ(wᵀx + w_0)``; the §4.3 map's
weights, boundary and accuracy against the classifier and the likelihood's gradient.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mark1.exceptions import InputError, Mark1Warning
from mark1.linear_model import FisherDiscriminant, GaussianClassifier, LogisticRegression
from mark1.machine.perceptron import train_error_correction
from mark1.viz import prml
from mark1.viz.prml import (fisher_histograms_figure, generative_figure, max_margin, novikoff_bound,
                            perceptron_figure, posterior_map_figure)

NUMBER = r"(-?[\d.]+(?:e[+-]?\d+)?)"


def separable(rng, n=40, gap=0.1):
    """2-D points in [-1, 1]² labelled by a random line, none within ``gap`` of it."""
    normal = rng.normal(size=2)
    normal /= np.linalg.norm(normal)
    offset = rng.uniform(-0.3, 0.3)
    X = np.empty((0, 2))
    while len(X) < n:
        cand = rng.uniform(-1, 1, (4 * n, 2))
        X = np.r_[X, cand[np.abs(cand @ normal - offset) > gap]]
    X = X[:n]
    return X, np.where(X @ normal - offset > 0, 1.0, -1.0)


def margin_by_solver(Phi, t):
    """The largest margin, by scipy: minimise ‖v‖² subject to t_n vᵀφ_n >= 1; γ = 1/‖v‖."""
    optimize = pytest.importorskip("scipy.optimize")
    A = t[:, None] * Phi
    res = optimize.minimize(lambda v: v @ v, np.linalg.lstsq(A, np.ones(len(A)), rcond=None)[0],
                            jac=lambda v: 2 * v, method="SLSQP",
                            constraints=[dict(type="ineq", fun=lambda v: A @ v - 1.0, jac=lambda v: A)],
                            options=dict(ftol=1e-12, maxiter=1000))
    assert res.success, res.message
    return 1.0 / np.linalg.norm(res.x)


# -- max_margin and Novikoff's bound -------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_max_margin_against_a_solver(seed):
    rng = np.random.default_rng(seed)
    X, t = separable(rng, n=int(rng.integers(5, 60)))
    Phi = np.c_[X, np.ones(len(X))]
    gamma, u = max_margin(Phi, t)
    assert gamma == pytest.approx(margin_by_solver(Phi, t), rel=1e-6)
    assert np.linalg.norm(u) == pytest.approx(1.0)
    assert (t * (Phi @ u)).min() == pytest.approx(gamma, rel=1e-9)      # u attains it
    for _ in range(20):                                                 # no separating vector does better
        v = u + rng.normal(scale=0.2, size=3)
        assert (t * (Phi @ v)).min() / np.linalg.norm(v) <= gamma + 1e-12


def test_max_margin_by_hand_and_without_separation():
    gamma, u = max_margin([[3.0, 1.0], [1.0, 3.0]], [1, 1])          # hull: the segment; nearest (2, 2)
    assert gamma == pytest.approx(math.sqrt(8)) and u == pytest.approx([2 ** -0.5, 2 ** -0.5])
    xor = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 1]], float)
    gamma, u = max_margin(xor, [-1, 1, 1, -1])
    assert gamma == 0.0 and not u.any()
    assert novikoff_bound(xor, [-1, 1, 1, -1]).from_zero == math.inf
    with pytest.raises(InputError, match="t: expected targets"):
        max_margin(xor, [0, 1, 1, 0])
    with pytest.raises(InputError, match="Phi, t"):
        max_margin(xor, [1, 1])



def test_min_norm_point_when_the_point_just_added_weighs_exactly_zero(monkeypatch):
    """Wolfe's minor cycle with alpha = 0 for the point just added (lam = 0 there): once 0/0 -> NaN.

    In exact arithmetic the major cycle's test keeps such a point out; rounding can let one in, so the
    case is built by having the affine solve answer exactly 0 for it once."""
    P = np.array([[3.0, 1.0], [1.0, 3.0], [2.5, 2.5]])
    expected = prml._min_norm_point(P)
    assert expected == pytest.approx([2.0, 2.0])
    calls = []
    solve = prml._affine_min_norm

    def degenerate_once(G):
        calls.append(len(G))
        return np.r_[1.0, np.zeros(len(G) - 1)] if len(calls) == 1 else solve(G)

    monkeypatch.setattr(prml, "_affine_min_norm", degenerate_once)
    with np.errstate(all="raise"):
        x = prml._min_norm_point(P)
    assert calls[0] == 2 and len(calls) > 1
    assert x == pytest.approx(expected, abs=1e-12)


def test_min_norm_point_warns_when_cut_short():
    rng = np.random.default_rng(3)
    X, t = separable(rng, n=60)
    A = t[:, None] * np.c_[X, np.ones(len(X))]
    with pytest.warns(Mark1Warning, match="not found in 1 iterations"):
        x = prml._min_norm_point(A, max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        best = prml._min_norm_point(A)
    assert np.linalg.norm(x) > np.linalg.norm(best)                      # cut short: not yet the nearest


@pytest.mark.parametrize("seed", range(8))
def test_novikoff_bound_holds_and_is_the_root(seed):
    rng = np.random.default_rng(seed)
    X, t = separable(rng, n=40, gap=0.05)
    Phi = np.c_[X, np.ones(len(X))]
    R = np.linalg.norm(Phi, axis=1).max()
    gamma = margin_by_solver(Phi, t)
    w0 = rng.normal(scale=2.0, size=3)
    eta = float(rng.choice([0.5, 1.0, 3.0]))
    b = novikoff_bound(Phi, t, w0=w0, eta=eta)
    assert b.R == pytest.approx(R) and b.gamma == pytest.approx(gamma, rel=1e-6)
    assert b.from_zero == pytest.approx((R / gamma) ** 2, rel=1e-5)
    # the bound from w0 is where (uᵀw0 + kηγ)² = ‖w0‖² + kη²R², past any smaller k
    k, a = b.from_start, b.u @ w0
    assert (a + k * eta * b.gamma) ** 2 == pytest.approx(w0 @ w0 + k * eta ** 2 * b.R ** 2, rel=1e-9)
    assert a + k * eta * b.gamma > 0                                    # where u·w <= ‖w‖ was squared
    assert novikoff_bound(Phi, t, w0=w0 / eta).from_start == pytest.approx(k, rel=1e-9)
    assert novikoff_bound(Phi, t).from_start == pytest.approx(b.from_zero, rel=1e-12)
    for start in (np.zeros(3), w0):                                    # the perceptron stays within it
        order = np.stack([rng.permutation(len(X)) for _ in range(int(b.from_start) + 2)])
        r = train_error_correction(Phi, t, epochs=len(order), eta=eta, order=order, w0=start[None],
                                   stop_when_converged=True)
        assert r.converged
        assert r.errors.sum() <= (b.from_zero if not start.any() else b.from_start)


# -- Fig. 4.7 -------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
def test_perceptron_figure_states_what_happened(seed):
    rng = np.random.default_rng(seed)
    X, t = separable(rng, n=int(rng.integers(6, 30)), gap=0.08)
    Phi = np.c_[X, np.ones(len(X))]
    w0 = rng.normal(size=3)
    r = train_error_correction(Phi, t, epochs=500, w0=w0[None], stop_when_converged=True)
    assert r.converged
    fig = perceptron_figure(X, t, r, w0=w0, max_panels=8)
    updates = int(r.errors.sum())
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    # the states drawn: every one, or the first seven and the last, as the title says
    drawn = list(range(updates + 1)) if updates + 1 <= 8 else list(range(7)) + [updates]
    assert len(titles) == len(drawn)
    w, states = w0.copy(), [w0.copy()]
    for p in np.flatnonzero(r.errors[:, 0]):                           # replay, update by update
        n = r.order[p]
        assert t[n] * (Phi[n] @ w) <= 0
        w = w + t[n] * Phi[n]
        states.append(w.copy())
    for title, k in zip(titles, drawn):
        acc = 100 * np.mean(np.where(Phi @ states[k] > 0, 1, -1) == t)
        assert title == ("start" if k == 0 else f"after update {k}") + f": {acc:.1f} %"
    head = fig.get_suptitle()
    assert ("every update shown" in head) == (updates + 1 <= 8)
    R, gamma = np.linalg.norm(Phi, axis=1).max(), margin_by_solver(Phi, t)
    m = re.search(rf"\(R/γ\)² = \({NUMBER}/{NUMBER}\)² = {NUMBER} updates from w = 0, {NUMBER} from this start; "
                  r"made: (\d+)", head)
    assert m, head
    assert float(m.group(1)) == pytest.approx(R, rel=5e-3) and float(m.group(2)) == pytest.approx(gamma, rel=5e-3)
    assert float(m.group(3)) == pytest.approx((R / gamma) ** 2, rel=5e-3)
    assert int(m.group(5)) == updates <= float(m.group(4)) * (1 + 5e-3)


def test_perceptron_figure_refuses_a_result_of_other_points():
    X, t = separable(np.random.default_rng(0), n=10)
    w0 = np.array([0.0, 1.0, 0.0])
    r = train_error_correction(np.c_[X, np.ones(10)], t, epochs=50, w0=w0[None], stop_when_converged=True)
    with pytest.raises(InputError, match="result: its updates replayed"):
        perceptron_figure(X, t, r, w0=w0 + 1.0)
    with pytest.raises(InputError, match="max_panels"):
        perceptron_figure(X, t, r, w0=w0, max_panels=1)


# -- Fig. 4.6 -------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_fisher_figure_writes_out_j(seed):
    rng = np.random.default_rng(seed)
    cov = np.array([[3.0, 2.4], [2.4, 3.0]])
    X = np.r_[rng.multivariate_normal([0, 0], cov, 80), rng.multivariate_normal([2.0, -1.0], cov, 60)]
    y = np.repeat(["a", "b"], [80, 60])
    fd = FisherDiscriminant().fit(X, y)
    fig = fisher_histograms_figure(X, y)
    assert fig.axes[1].get_ylabel() == "points"
    assert not any("card" in t.get_text() for ax in fig.axes for t in ax.texts + [ax.title, ax.yaxis.label])
    u = fd.means_[1] - fd.means_[0]
    w = fd.coef_[0]
    js = []
    for ax, v in zip(fig.axes[1:], (u / np.linalg.norm(u), w / np.linalg.norm(w))):
        p = X @ v
        m0, m1 = p[y == "a"].mean(), p[y == "b"].mean()
        s0, s1 = ((p[y == "a"] - m0) ** 2).sum(), ((p[y == "b"] - m1) ** 2).sum()
        J = (m1 - m0) ** 2 / (s0 + s1)
        assert J == pytest.approx(fd.criterion(v), rel=1e-9)           # eq. 4.25 is eq. 4.26
        box = next(t.get_text() for t in ax.texts if t.get_text().startswith("$J ="))
        stated = [float(x) for x in re.findall(r"[\d.]+(?:e[+-]?\d+)?", box.split("\n")[1] + box.split("\n")[2])]
        assert stated[0] == pytest.approx(m1 - m0, rel=2e-3)
        assert stated[2:5] == pytest.approx([s0, s1, J], rel=2e-3)
        assert float(ax.get_title().rsplit("J = ", 1)[1]) == pytest.approx(J, rel=2e-3)
        js.append(J)
    assert js[1] >= js[0]
    for _ in range(20):                                                 # Fisher's w: no direction does better
        v = rng.normal(size=2)
        assert fd.criterion(v) <= js[1] * (1 + 1e-9)


# -- §4.2: the generative model -------------------------------------------------------------------

def two_gaussians(rng, n0, n1):
    A = rng.normal(size=(2, 2))
    cov = A @ A.T + 0.3 * np.eye(2)
    X = np.r_[rng.multivariate_normal([0, 0], cov, n0), rng.multivariate_normal(rng.normal(size=2) * 2, cov, n1)]
    return X, np.repeat([3, 7], [n0, n1])


def by_hand(X, y, n0, n1):
    """w and w0 of eq. 4.66-4.67 from maximum likelihood done by hand: priors N_k/N, the class
    means, the pooled covariance over N."""
    mu = [X[y == k].mean(axis=0) for k in (3, 7)]
    S = sum((X[y == k] - m).T @ (X[y == k] - m) for k, m in zip((3, 7), mu)) / len(X)
    Si = np.linalg.inv(S)
    return Si @ (mu[1] - mu[0]), -0.5 * mu[1] @ Si @ mu[1] + 0.5 * mu[0] @ Si @ mu[0] + math.log(n1 / n0)


@given(seed=st.integers(0, 2 ** 32 - 1), n0=st.integers(5, 60), n1=st.integers(5, 60))
def test_generative_posterior_is_the_sigmoid_of_a_linear_function(seed, n0, n1):
    X, y = two_gaussians(np.random.default_rng(seed), n0, n1)
    gc = GaussianClassifier(shrinkage=0.0).fit(X, y)
    w, w0 = by_hand(X, y, n0, n1)
    np.testing.assert_allclose(gc.predict_proba(X)[:, 1], 1 / (1 + np.exp(-(X @ w + w0))), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_generative_figure_states_w_and_the_identity(seed):
    rng = np.random.default_rng(seed)
    n0, n1 = (int(n) for n in rng.integers(10, 80, size=2))
    X, y = two_gaussians(rng, n0, n1)
    w, w0 = by_hand(X, y, n0, n1)
    fig = generative_figure(GaussianClassifier(shrinkage=0.0).fit(X, y), X, y)
    line_w, line_w0, line_gap = next(t.get_text() for t in fig.axes[2].texts if "Sigma" in t.get_text()).split("\n")
    stated_w = [float(v) for v in line_w.rsplit("= (", 1)[1].rstrip(")").split(",")]
    assert stated_w == pytest.approx(w, abs=1e-3 + 1e-3 * np.abs(w).max())
    assert float(line_w0.rsplit("= ", 1)[1]) == pytest.approx(w0, abs=1e-3 + 1e-3 * abs(w0))
    assert float(line_gap.rsplit(": ", 1)[1]) < 1e-9


def test_generative_figure_refuses_what_it_cannot_draw():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    with pytest.raises(InputError, match="two classes of 2-D points"):
        generative_figure(GaussianClassifier().fit(X, np.arange(30) % 3), X, np.arange(30) % 3)
    y = np.arange(30) % 2
    with pytest.raises(InputError, match="covariance='shared'"):
        generative_figure(GaussianClassifier(covariance="separate").fit(X, y), X, y)
    with pytest.raises(InputError, match="X, y"):
        generative_figure(GaussianClassifier().fit(X, y), X[:, :1], y)


# -- §4.3: the posterior map ----------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_posterior_map_states_the_fit(seed):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal([0, 0], 1.0, (60, 2)), rng.normal([1.5, 1.0], 1.0, (50, 2))]
    y = np.repeat(["no", "yes"], [60, 50])
    lr = LogisticRegression().fit(X, y)
    t = (y == "yes").astype(float)
    phi = np.c_[X, np.ones(len(X))]
    w = np.r_[lr.coef_[0], lr.intercept_]
    grad = (1 / (1 + np.exp(-phi @ w)) - t) @ phi                     # eq. 4.91: zero at the maximum
    assert np.abs(grad).max() < 1e-6
    fig = posterior_map_figure(lr, X, y)
    ax = fig.axes[0]
    box = next(t.get_text() for t in ax.texts if "sigma" in t.get_text())      # not the contours' labels
    pair, bias = box.split("\n")[1].split("= (", 1)[1].split("), $w_0$ = ")
    assert [float(v) for v in pair.split(",")] + [float(bias)] == pytest.approx(w, abs=1e-3)
    acc = float(re.search(r"([\d.]+) % of the points", box).group(1))
    assert acc == pytest.approx(100 * np.mean((phi @ w > 0) == (t == 1)), abs=0.05)
    # the black contour is the line wᵀx + w0 = 0
    black = [c for c in ax.collections if hasattr(c, "get_paths") and c.get_linewidth()[0] == 1.8]
    pts = np.concatenate([p.vertices for c in black for p in c.get_paths()])
    assert len(pts) > 10 and np.abs(np.c_[pts, np.ones(len(pts))] @ w).max() < 0.02 * np.linalg.norm(w)
