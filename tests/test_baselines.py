"""Tests of mark1.linear_model: hand computations, PRML identities, scikit-learn agreement."""

from __future__ import annotations

import contextlib
import math
import warnings

import numpy as np
import pytest

from mark1.linear_model import (ConvergenceWarning, FisherDiscriminant, GaussianClassifier,
                             LeastSquaresClassifier, LogisticRegression, NotFittedError, Perceptron,
                             ScaleWarning, SeparableDataWarning, SingularCovarianceWarning)
from mark1.machine.perceptron import averaged_weights, train_error_correction

ALL = [LeastSquaresClassifier, FisherDiscriminant, GaussianClassifier, Perceptron, LogisticRegression]


# ------------------------------------------------------------------------------- data


def blobs(rng, n=300, d=5, K=3, sep=2.5):
    """Gaussian classes with a shared, well-conditioned random covariance."""
    means = sep * rng.normal(size=(K, d))
    A = rng.normal(size=(d, d))
    cov = A @ A.T / d + 0.5 * np.eye(d)
    y = np.arange(n) % K
    rng.shuffle(y)
    X = means[y] + rng.multivariate_normal(np.zeros(d), cov, size=n)
    return X, y


def binary_cards(rng, n=400, d=40, K=2, spread=0.8):
    """Sparse binary features with class-dependent rates."""
    rates = np.clip(0.15 * np.exp(spread * rng.normal(size=(K, d))), 0.01, 0.9)
    y = np.arange(n) % K
    rng.shuffle(y)
    return (rng.random((n, d)) < rates[y]).astype(float), y


def pixel_cards(rng, n=30, side=8, K=3):
    """Binary 8x8 images with a constant blank border, fewer cards than pixels:
    every covariance is singular."""
    y = np.arange(n) % K
    rates = rng.uniform(0.1, 0.9, size=(K, side - 2, side - 2))
    img = np.zeros((n, side, side))
    img[:, 1:-1, 1:-1] = rng.random((n, side - 2, side - 2)) < rates[y]
    return img.reshape(n, -1), y


@contextlib.contextmanager
def no_singular_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularCovarianceWarning)
        yield


# ------------------------------------------------------------------ hand computations


def test_least_squares_by_hand():
    # x = 0,1,2,3 with classes 0,0,1,1.  Output of class 1 fitted to targets 0,0,1,1:
    # xbar = 1.5, tbar = 0.5, slope = sum (x-xbar)(t-tbar) / sum (x-xbar)^2
    #   = (0.75 + 0.25 + 0.25 + 0.75) / 5 = 0.4, bias = 0.5 - 0.4 * 1.5 = -0.1.
    # Class 0's output is 1 minus that: 1.1 - 0.4 x.  Decision y1 - y0 = 0.8 x - 1.2.
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    for alpha in (0.0, 1e-300):               # lstsq and the normal equations / SVD path
        m = LeastSquaresClassifier(alpha=alpha).fit(X, y)
        np.testing.assert_allclose(m.coef_, [[-0.4], [0.4]], atol=1e-12)
        np.testing.assert_allclose(m.intercept_, [1.1, -0.1], atol=1e-12)
        np.testing.assert_allclose(m.decision_function([[1.5], [5.0]]), [0.0, 2.8], atol=1e-12)
    # with a ridge term alpha = 5: slope = 2 / (5 + 5) = 0.2 (bias unpenalised),
    # bias = 0.5 - 0.2 * 1.5 = 0.2
    m = LeastSquaresClassifier(alpha=5.0).fit(X, y)
    np.testing.assert_allclose(m.coef_[1], [0.2], atol=1e-12)
    np.testing.assert_allclose(m.intercept_[1], 0.2, atol=1e-12)


def test_gaussian_by_hand():
    # x = 0,2 (class 0) and 4,6 (class 1): means 1 and 5, ML variance of each class
    # 1, so the shared variance is 1.  w_k = mu_k, w_k0 = -mu_k^2/2 + ln 1/2;
    # two-class log-odds a1 - a0 = (5 - 1) x - (25 - 1)/2 = 4x - 12: boundary at 3.
    X = np.array([[0.0], [2.0], [4.0], [6.0]])
    y = np.array(["a", "a", "b", "b"])
    m = GaussianClassifier(shrinkage=0.0).fit(X, y)
    np.testing.assert_allclose(m.coef_, [[4.0]])
    np.testing.assert_allclose(m.intercept_, [-12.0])
    np.testing.assert_allclose(m.predict_proba([[3.0]]), [[0.5, 0.5]])
    np.testing.assert_allclose(m.predict_proba([[4.0]])[0, 1], 1 / (1 + math.exp(-4)))
    assert m.predict([[2.9], [3.1]]).tolist() == ["a", "b"]


def test_fisher_thresholds_by_hand():
    # 1-D, so the direction is w = 1 / sqrt(Sigma_W) and thresholds on w x are w times
    # thresholds on x.
    # (a) classes {-3,-1} and {1,3}: means -/+2, variances 1, equal priors -> 0.
    m = FisherDiscriminant().fit([[-3.0], [-1.0], [1.0], [3.0]], [0, 0, 1, 1])
    assert m.coef_[0, 0] > 0
    assert m.threshold_ / m.coef_[0, 0] == pytest.approx(0.0, abs=1e-12)
    # (b) class 0 twice as frequent: {-3,-1,-3,-1} and {1,3}; equal variances 1, so
    #     x* = mid - var ln(pi1/pi0) / (mu1 - mu0) = 0 - ln(1/2) / 4 = ln 2 / 4.
    m = FisherDiscriminant().fit([[-3.0], [-1.0], [-3.0], [-1.0], [1.0], [3.0]], [0, 0, 0, 0, 1, 1])
    assert m.threshold_ / m.coef_[0, 0] == pytest.approx(math.log(2) / 4, rel=1e-12)
    m = FisherDiscriminant(threshold="midpoint").fit([[-3.0], [-1.0], [-3.0], [-1.0], [1.0], [3.0]],
                                                     [0, 0, 0, 0, 1, 1])
    assert m.threshold_ / m.coef_[0, 0] == pytest.approx(0.0, abs=1e-12)
    # (c) {-3,-1}: mean -2, var 1;  {0,4}: mean 2, var 4; equal priors.
    #     N(x|-2,1) = N(x|2,4)  <=>  -(x+2)^2/2 = -(x-2)^2/8 - ln 2
    #     <=>  3x^2 + 20x + 12 - 8 ln 2 = 0,  x = (-20 +- sqrt(400 - 12 (12 - 8 ln 2))) / 6
    #     = -0.3401 (between the means) or -6.33.
    m = FisherDiscriminant().fit([[-3.0], [-1.0], [0.0], [4.0]], [0, 0, 1, 1])
    x_star = (-20 + math.sqrt(400 - 12 * (12 - 8 * math.log(2)))) / 6
    assert m.threshold_ / m.coef_[0, 0] == pytest.approx(x_star, rel=1e-10)
    assert m.predict([[x_star - 1e-6], [x_star + 1e-6]]).tolist() == [0, 1]


def test_fisher_threshold_when_densities_never_cross():
    # A rare, narrow class inside a frequent, wide one: pi_b N(y|mu_b, var_b) stays
    # below pi_a N(y|mu_a, var_a) everywhere (0.01/0.1 = 0.1 at its peak against
    # 0.99/3 * exp(-1/18) = 0.31), so there is no root; the equal-variance root
    # with the pooled variance is used, which is finite and beyond the rare mean.
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(0.0, 3.0, 990), rng.normal(1.0, 0.1, 10)]
    x_a, x_b = x[:990], x[990:]
    y = np.r_[np.zeros(990, int), np.ones(10, int)]
    m = FisherDiscriminant().fit(x[:, None], y)
    pa, pb = 0.99, 0.01
    va, vb = x_a.var(), x_b.var()
    assert pb / math.sqrt(vb) < pa / math.sqrt(va) * math.exp(-(x_b.mean() - x_a.mean()) ** 2 / (2 * va))
    pooled = pa * va + pb * vb
    mid = 0.5 * (x_a.mean() + x_b.mean())
    expected = mid - pooled * math.log(pb / pa) / (x_b.mean() - x_a.mean())
    assert m.threshold_ / m.coef_[0, 0] == pytest.approx(expected, rel=1e-9)
    assert np.isfinite(m.decision_function(x[:, None])).all()


def test_perceptron_by_hand():
    # The cards of tests/test_perceptron.py (bias appended by fit_intercept):
    # w goes (1,0|1) (1,-1|0) (2,0|1) in epoch 1, (2,-1|0) in epoch 2, none in epoch 3.
    m = Perceptron(epochs=10).fit([[1, 0], [0, 1], [1, 1]], ["yes", "no", "yes"])
    np.testing.assert_array_equal(m.coef_, [[2.0, -1.0]])
    np.testing.assert_array_equal(m.intercept_, [0.0])
    np.testing.assert_array_equal(m.mistakes_per_epoch_, [3, 1, 0])
    assert m.n_mistakes_ == 4 and m.converged_ and m.n_epochs_ == 3
    assert m.predict([[1, 0], [0, 1]]).tolist() == ["yes", "no"]
    # averaged: (16, -6 | 3) / 9 over the nine presentations
    m = Perceptron(epochs=3, average=True).fit([[1, 0], [0, 1], [1, 1]], [1, 0, 1])
    np.testing.assert_allclose(np.r_[m.coef_[0], m.intercept_], [16 / 9, -6 / 9, 3 / 9])


# -------------------------------------------------------------------------- identities


@pytest.mark.parametrize("alpha", [0.0, 0.7])
@pytest.mark.parametrize("seed", range(3))
def test_least_squares_outputs_sum_to_one(alpha, seed):
    rng = np.random.default_rng(seed)
    X, y = blobs(rng, K=4)
    X[:, 2] = 1.0                             # a constant input: rank-deficient augmented X
    m = LeastSquaresClassifier(alpha=alpha).fit(X, y)
    X_new = np.vstack([rng.normal(size=(50, 5)), 1e3 * rng.normal(size=(10, 5))])
    out = m.outputs(X_new)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-9 * (1 + np.abs(out).max()))


@pytest.mark.parametrize("seed", range(3))
def test_least_squares_fisher_targets(seed):
    rng = np.random.default_rng(seed)
    X, y = blobs(rng, n=211, d=4, K=2)        # unequal class sizes
    ls = LeastSquaresClassifier(targets="fisher").fit(X, y)
    fd = FisherDiscriminant(shrinkage=0.0).fit(X, y)
    w, f = ls.coef_[0], fd.coef_[0]
    assert abs(w @ f) / (np.linalg.norm(w) * np.linalg.norm(f)) == pytest.approx(1.0, abs=1e-12)
    assert w @ f > 0                          # both point toward classes_[1]
    np.testing.assert_allclose(ls.intercept_[0], -w @ X.mean(axis=0), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(ls.predict(X), ls.classes_[(X @ w + ls.intercept_[0] > 0).astype(int)])


@pytest.mark.parametrize("seed", range(3))
def test_gaussian_two_class_direction_and_bias(seed):
    rng = np.random.default_rng(seed)
    X, y = blobs(rng, n=150, d=4, K=2)
    m = GaussianClassifier(shrinkage=0.0).fit(X, y)
    mu0, mu1 = X[y == 0].mean(0), X[y == 1].mean(0)
    R = np.vstack([X[y == 0] - mu0, X[y == 1] - mu1])
    Sigma = R.T @ R / len(X)
    w = np.linalg.solve(Sigma, mu1 - mu0)                                  # eq. 4.66
    p1 = np.mean(y == 1)
    w0 = (-0.5 * mu1 @ np.linalg.solve(Sigma, mu1) + 0.5 * mu0 @ np.linalg.solve(Sigma, mu0)
          + math.log(p1 / (1 - p1)))                                        # eq. 4.67
    np.testing.assert_allclose(m.coef_[0], w, rtol=1e-9)
    np.testing.assert_allclose(m.intercept_[0], w0, rtol=1e-9, atol=1e-12)
    sig = 1 / (1 + np.exp(-(X @ w + w0)))                                   # eq. 4.65
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], sig, rtol=1e-9)


@pytest.mark.parametrize("covariance", ["shared", "separate"])
@pytest.mark.parametrize("K", [2, 4])
def test_probabilities_sum_to_one_for_extreme_inputs(covariance, K):
    rng = np.random.default_rng(K)
    X, y = blobs(rng, K=K)
    m = GaussianClassifier(covariance=covariance).fit(X, y)
    for scale in (1.0, 1e6, 1e12, -1e12):
        Z = scale * rng.normal(size=(40, X.shape[1]))
        P = m.predict_proba(Z)
        L = m.predict_log_proba(Z)
        assert np.isfinite(P).all() and np.isfinite(L).all()
        assert (P >= 0).all() and (P <= 1).all() and (L <= 0).all()
        np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
        np.testing.assert_array_equal(P.argmax(axis=1), np.searchsorted(m.classes_, m.predict(Z)))


def test_separate_covariance_matches_explicit_densities():
    rng = np.random.default_rng(11)
    X, y = blobs(rng, n=240, d=3, K=3)
    m = GaussianClassifier(covariance="separate", shrinkage=0.0).fit(X, y)
    Z = rng.normal(size=(30, 3)) * 3
    logp = np.empty((30, 3))
    for k in range(3):
        Xk = X[y == k]
        mu = Xk.mean(0)
        S = (Xk - mu).T @ (Xk - mu) / len(Xk)
        diff = Z - mu
        maha = np.einsum("ij,ij->i", diff, np.linalg.solve(S, diff.T).T)
        logp[:, k] = -0.5 * maha - 0.5 * np.linalg.slogdet(S)[1] + math.log(len(Xk) / len(X))
    logp -= np.logaddexp.reduce(logp, axis=1, keepdims=True)
    np.testing.assert_allclose(m.predict_log_proba(Z), logp, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_fisher_criterion_is_maximal(seed):
    rng = np.random.default_rng(seed)
    X, y = blobs(rng, n=200, d=6, K=2)
    m = FisherDiscriminant().fit(X, y)
    w = m.coef_[0]
    J = m.criterion(w)
    # the maximum of the Rayleigh quotient: (m1 - m0)^T S_W^{-1} (m1 - m0)
    dm = m.means_[1] - m.means_[0]
    assert J == pytest.approx(dm @ np.linalg.solve(m.within_scatter_, dm), rel=1e-9)
    assert m.criterion(3.5 * w) == pytest.approx(J, rel=1e-12)           # scale invariant
    for v in rng.normal(size=(200, 6)):
        assert m.criterion(v) <= J * (1 + 1e-12)


@pytest.mark.parametrize("K", [3, 5])
def test_fisher_multiclass_criterion_and_rank(K):
    rng = np.random.default_rng(K)
    X, y = blobs(rng, n=400, d=7, K=K)
    m = FisherDiscriminant().fit(X, y)
    assert np.linalg.matrix_rank(m.between_scatter_) <= K - 1
    assert m.scalings_.shape == (7, K - 1)
    # directions normalised to W^T Sigma_W W = I
    np.testing.assert_allclose(m.scalings_.T @ (m.within_scatter_ / len(X)) @ m.scalings_,
                               np.eye(K - 1), atol=1e-10)
    J = m.criterion(m.scalings_)
    for _ in range(200):
        assert m.criterion(rng.normal(size=(7, K - 1))) <= J * (1 + 1e-10)
    # a single direction: the leading one beats random ones
    J1 = m.criterion(m.scalings_[:, 0])
    for v in rng.normal(size=(200, 7)):
        assert m.criterion(v) <= J1 * (1 + 1e-10)
    Z = m.transform(X)
    assert Z.shape == (400, K - 1)
    assert m.score(X, y) > 0.5
    m2 = FisherDiscriminant(n_components=1).fit(X, y)
    assert m2.transform(X).shape == (400, 1)


def test_fisher_collinear_means_give_a_zero_direction():
    # Three classes whose means lie on a line: only one direction separates them;
    # the second eigenvalue of Sigma_W^{-1} Sigma_B is zero and its column is zero.
    rng = np.random.default_rng(8)
    y = np.arange(300) % 3
    X = rng.normal(size=(300, 3))
    for c in range(3):                        # class means exactly c * (2, 1, 0)
        X[y == c] += c * np.array([2.0, 1.0, 0.0]) - X[y == c].mean(0)
    m = FisherDiscriminant().fit(X, y)
    assert np.isfinite(m.scalings_).all()
    assert np.abs(m.scalings_[:, 1]).max() == 0.0
    assert m.explained_variance_ratio_[0] == pytest.approx(1.0)
    assert np.isfinite(m.transform(X)).all() and m.score(X, y) > 0.5


def test_singular_data_warns_and_stays_finite():
    rng = np.random.default_rng(0)
    X, y = pixel_cards(rng)
    Z = pixel_cards(np.random.default_rng(1))[0]
    for est in (FisherDiscriminant(), GaussianClassifier(), GaussianClassifier(covariance="separate"),
                FisherDiscriminant(shrinkage=0.0), GaussianClassifier(shrinkage=0.0),
                GaussianClassifier(covariance="separate", shrinkage=0.0)):
        with pytest.warns(SingularCovarianceWarning, match="shrinkage"):
            est.fit(X, y)
        assert np.isfinite(est.decision_function(Z)).all()
        if isinstance(est, GaussianClassifier):
            P = est.predict_proba(Z)
            assert np.isfinite(P).all()
            np.testing.assert_allclose(P.sum(axis=1), 1.0)
        else:
            assert np.isfinite(est.transform(Z)).all()
        assert est.score(X, y) >= 0.9                                   # n < d: separable
    # an explicit positive shrinkage is the user's choice: no warning
    with no_singular_warning():
        for est in (FisherDiscriminant(shrinkage=0.1), GaussianClassifier(shrinkage=0.1),
                    GaussianClassifier(covariance="separate", shrinkage=0.1),
                    LeastSquaresClassifier(), LeastSquaresClassifier(alpha=1.0)):
            est.fit(X, y)
            assert np.isfinite(est.decision_function(Z)).all()


@pytest.mark.parametrize("Est", ALL)
def test_degenerate_data_gives_finite_results(Est):
    # every card identical: no direction separates anything, all covariances are 0
    X = np.ones((12, 3))
    y = np.arange(12) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularCovarianceWarning)
        for est in (Est().fit(X, y), Est().fit(X, y % 2)):
            assert np.isfinite(est.decision_function(X)).all()
            assert set(est.predict(X)) <= set(y)
    if Est is GaussianClassifier:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SingularCovarianceWarning)
            P = GaussianClassifier(covariance="separate").fit(X, y).predict_proba(X)
        np.testing.assert_allclose(P, 1 / 3)


def test_well_conditioned_auto_does_not_shrink():
    rng = np.random.default_rng(4)
    X, y = blobs(rng)
    with no_singular_warning():
        f = FisherDiscriminant().fit(X, y)
        g = GaussianClassifier().fit(X, y)
        q = GaussianClassifier(covariance="separate").fit(X, y)
    assert f.shrinkage_ == 0.0 and g.shrinkage_ == 0.0 and (q.shrinkage_ == 0.0).all()


# ---------------------------------------------------------------------------- perceptron


def test_perceptron_xor_stops_after_epochs():
    X = [[0, 0], [0, 1], [1, 0], [1, 1]]
    m = Perceptron(epochs=37).fit(X, [0, 1, 1, 0])
    assert not m.converged_
    assert m.n_epochs_ == 37 and len(m.mistakes_per_epoch_) == 37
    assert (m.mistakes_per_epoch_ > 0).all()
    m = Perceptron(epochs=20, shuffle=True, seed=3, average=True, eta_schedule="inverse").fit(X, [0, 1, 1, 0])
    assert not m.converged_ and m.n_epochs_ == 20


@pytest.mark.parametrize("seed", range(6))
def test_perceptron_novikoff_bound(seed):
    rng = np.random.default_rng(seed)
    d = 4
    w_star = rng.normal(size=d + 1)
    X = rng.uniform(-1, 1, size=(3000, d))
    margin = (X @ w_star[:d] + w_star[d]) / np.linalg.norm(w_star)   # distance in augmented space
    keep = np.abs(margin) >= 0.1
    X, margin = X[keep][:200], margin[keep][:200]
    y = (margin > 0).astype(int)
    Xa = np.hstack([X, np.ones((len(X), 1))])
    R = np.linalg.norm(Xa, axis=1).max()
    gamma = np.abs(margin).min()
    bound = (R / gamma) ** 2
    m = Perceptron(epochs=math.floor(bound) + 2, shuffle=True, seed=seed).fit(X, y)
    assert m.converged_
    assert m.n_mistakes_ <= bound
    assert m.score(X, y) == 1.0


def test_perceptron_uses_the_core_and_average():
    rng = np.random.default_rng(5)
    X, y = binary_cards(rng, n=120, d=10, K=3)
    m = Perceptron(epochs=4, shuffle=True, seed=9, average=True, stop_when_converged=False).fit(X, y)
    Xa = np.hstack([X, np.ones((len(X), 1))])
    T = np.where(y[:, None] == np.arange(3)[None, :], 1.0, -1.0)
    gen = np.random.default_rng(9)                 # the documented shuffling
    order = np.stack([gen.permutation(120) for _ in range(4)])
    r = train_error_correction(Xa, T, epochs=4, order=order)
    W = averaged_weights(r, Xa, T)
    np.testing.assert_array_equal(m.coef_, W[:, :10])
    np.testing.assert_array_equal(m.intercept_, W[:, 10])
    assert m.n_mistakes_ == r.mistakes_per_epoch.sum()


def test_perceptron_without_intercept_is_the_core():
    rng = np.random.default_rng(12)
    X, y = binary_cards(rng, n=100, d=8)
    m = Perceptron(epochs=3, fit_intercept=False).fit(X, y)
    r = train_error_correction(X, np.where(y == 1, 1.0, -1.0), epochs=3, stop_when_converged=True)
    np.testing.assert_array_equal(m.coef_, r.weights)
    np.testing.assert_array_equal(m.intercept_, [0.0])


def test_perceptron_eta_scales_weights_only():
    # From w = 0, a fixed increment eta scales every weight by eta and changes no
    # decision (all sums scale by eta > 0).
    rng = np.random.default_rng(6)
    X, y = binary_cards(rng, n=200, d=15, K=3)
    a = Perceptron(epochs=6, eta=1.0).fit(X, y)
    b = Perceptron(epochs=6, eta=4.0).fit(X, y)
    np.testing.assert_array_equal(b.coef_, 4.0 * a.coef_)
    np.testing.assert_array_equal(b.mistakes_per_epoch_, a.mistakes_per_epoch_)


@pytest.mark.parametrize("seed", range(3))
def test_perceptron_shuffle_is_seeded(seed):
    rng = np.random.default_rng(seed)
    X, y = binary_cards(rng, n=150, d=12)
    a = Perceptron(epochs=3, shuffle=True, seed=seed).fit(X, y)
    b = Perceptron(epochs=3, shuffle=True, seed=seed).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


# ---------------------------------------------------------------------- scikit-learn


@pytest.mark.parametrize("alpha", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("K", [2, 3, 5])
def test_least_squares_vs_ridge_classifier(alpha, K):
    lm = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng([K, int(alpha * 10)])
    X, y = blobs(rng, n=250, d=6, K=K, sep=1.0)
    ours = LeastSquaresClassifier(alpha=alpha).fit(X, y)
    theirs = lm.RidgeClassifier(alpha=alpha).fit(X, y)
    Z = rng.normal(size=(300, 6)) * 2
    np.testing.assert_array_equal(ours.predict(Z), theirs.predict(Z))
    # RidgeClassifier regresses on targets +-1 = 2 t - 1: its decision is 2 y(x) - 1
    # for K > 2 and y_1 - y_0 for two classes (linearity in the targets; the
    # constant target is fitted exactly by the unpenalised bias).
    expected = ours.decision_function(Z) if K == 2 else 2 * ours.outputs(Z) - 1
    np.testing.assert_allclose(theirs.decision_function(Z), expected, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("shrinkage", [0.0, 0.05, 0.5])
@pytest.mark.parametrize("K", [2, 4])
def test_gaussian_vs_lda_lsqr(shrinkage, K):
    da = pytest.importorskip("sklearn.discriminant_analysis")
    rng = np.random.default_rng([K, int(shrinkage * 100)])
    X, y = blobs(rng, n=300, d=6, K=K, sep=1.0)
    ours = GaussianClassifier(shrinkage=shrinkage).fit(X, y)
    theirs = da.LinearDiscriminantAnalysis(solver="lsqr", shrinkage=shrinkage).fit(X, y)
    Z = rng.normal(size=(300, 6)) * 2
    np.testing.assert_array_equal(ours.predict(Z), theirs.predict(Z))
    np.testing.assert_allclose(ours.predict_proba(Z), theirs.predict_proba(Z), rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("shrinkage", [0.0, 0.2])
def test_fisher_two_class_direction_vs_lda(shrinkage):
    da = pytest.importorskip("sklearn.discriminant_analysis")
    rng = np.random.default_rng(int(shrinkage * 10))
    X, y = blobs(rng, n=300, d=6, K=2, sep=1.0)
    ours = FisherDiscriminant(shrinkage=shrinkage).fit(X, y).coef_[0]
    theirs = da.LinearDiscriminantAnalysis(solver="lsqr", shrinkage=shrinkage).fit(X, y).coef_[0]
    cos = ours @ theirs / (np.linalg.norm(ours) * np.linalg.norm(theirs))
    assert cos == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("K", [3, 4, 6])
def test_fisher_subspace_vs_lda_eigen(K):
    # Without shrinkage: sklearn's eigen solver shrinks the total covariance too, so
    # with shrinkage > 0 its "between" matrix gains a multiple of I and the
    # directions differ from S_W^{-1} S_B; without shrinkage both solve the same
    # generalised eigenproblem.
    da = pytest.importorskip("sklearn.discriminant_analysis")
    rng = np.random.default_rng(K)
    X, y = blobs(rng, n=400, d=8, K=K)
    ours = FisherDiscriminant(shrinkage=0.0).fit(X, y)
    lda = da.LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    q = K - 1
    Q1 = np.linalg.qr(ours.scalings_)[0]
    Q2 = np.linalg.qr(lda.scalings_[:, :q])[0]
    np.testing.assert_allclose(np.linalg.svd(Q1.T @ Q2, compute_uv=False), 1.0, atol=1e-8)
    # component by component (up to sign, same normalisation W^T Sigma_W W = I),
    # wherever the eigenvalues are well separated; the transforms then differ by
    # the centring constant only
    ev = ours.explained_variance_ratio_
    Zo, Zs = ours.transform(X), lda.transform(X)[:, :q]
    for j in range(q):
        gaps = np.abs(np.delete(ev, j) - ev[j])
        if gaps.min() > 1e-3 * ev[0]:
            c = np.corrcoef(Zo[:, j], Zs[:, j])[0, 1]
            assert abs(c) == pytest.approx(1.0, abs=1e-9)
            np.testing.assert_allclose(np.abs(ours.scalings_[:, j]), np.abs(lda.scalings_[:, j]),
                                       rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("epochs", [1, 5])
@pytest.mark.parametrize("stop", [False, True])
def test_perceptron_vs_sklearn(K, epochs, stop):
    # sklearn's Perceptron is SGD with the loss max(0, -t p), p = w.x + b, and
    # updates when t p <= 0 (Hinge(threshold=0).dloss: z <= threshold) by
    # w += eta0 t x, b += eta0 t (intercept_decay = 1 for dense X); penalty=None
    # leaves its weight scale at 1.  With shuffle=False it presents the cards in
    # order and with tol=None it runs exactly max_iter epochs.  That is our rule
    # with a bias feature 1, so on binary data (every sum an exact integer, whatever
    # the order of addition) the weights are identical.  Early stop does not matter:
    # after an epoch without mistakes neither changes the weights again.
    lm = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng([K, epochs])
    X, y = binary_cards(rng, n=500, d=30, K=K)
    ours = Perceptron(epochs=epochs, stop_when_converged=stop).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = lm.Perceptron(shuffle=False, tol=None, eta0=1.0, max_iter=epochs).fit(X, y)
    np.testing.assert_array_equal(ours.coef_, theirs.coef_)
    np.testing.assert_array_equal(ours.intercept_, theirs.intercept_)
    Z = (rng.random((200, 30)) < 0.2).astype(float)
    np.testing.assert_array_equal(ours.predict(Z), theirs.predict(Z))
    np.testing.assert_array_equal(ours.decision_function(Z), theirs.decision_function(Z))


# -------------------------------------------------------------------------- conventions


def _valid_data():
    rng = np.random.default_rng(0)
    return blobs(rng, n=60, d=3, K=3)


@pytest.mark.parametrize("Est", ALL)
def test_validation_errors_name_the_argument(Est):
    X, y = _valid_data()
    with pytest.raises(ValueError, match=r"\by\b.*two classes"):
        Est().fit(X, np.zeros(len(X)))
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"\bX\b.*NaN"):
        Est().fit(Xn, y)
    Xn[3, 1] = np.inf
    with pytest.raises(ValueError, match=r"\bX\b.*infinity"):
        Est().fit(Xn, y)
    with pytest.raises(ValueError, match=r"\by\b has 59 labels"):
        Est().fit(X, y[:-1])
    with pytest.raises(ValueError, match=r"\bX\b must be 2-D"):
        Est().fit(X[:, 0], y)
    with pytest.raises(ValueError, match=r"\bX\b must be 2-D"):
        Est().fit(X[:, :, None], y)
    with pytest.raises(ValueError, match=r"\by\b must be 1-D"):
        Est().fit(X, y[:, None])
    with pytest.raises(ValueError, match=r"\by\b contains NaN"):
        Est().fit(X, np.where(y == 0, np.nan, y))
    with pytest.raises(NotFittedError):
        Est().predict(X)
    m = Est().fit(X, y)
    with pytest.raises(ValueError, match=r"\bX\b has 2 features"):
        m.predict(X[:, :2])
    with pytest.raises(ValueError, match=r"\bX\b.*NaN"):
        m.predict(Xn[:, :] * np.nan)
    with pytest.raises(TypeError):
        Est(1.0)                                                     # keyword-only


@pytest.mark.parametrize("est, name", [
    (LeastSquaresClassifier(alpha=-1.0), "alpha"),
    (LeastSquaresClassifier(alpha="big"), "alpha"),
    (LeastSquaresClassifier(targets="binary"), "targets"),
    (LeastSquaresClassifier(targets="fisher"), "targets"),          # three classes
    (FisherDiscriminant(shrinkage=1.5), "shrinkage"),
    (FisherDiscriminant(shrinkage="ledoit"), "shrinkage"),
    (FisherDiscriminant(threshold="median"), "threshold"),
    (FisherDiscriminant(n_components=3), "n_components"),
    (FisherDiscriminant(n_components=0), "n_components"),
    (GaussianClassifier(covariance="full"), "covariance"),
    (GaussianClassifier(shrinkage=-0.1), "shrinkage"),
    (Perceptron(eta=0.0), "eta"),
    (Perceptron(epochs=0), "epochs"),
    (Perceptron(epochs=2.5), "epochs"),
    (Perceptron(multiclass="ovo"), "multiclass"),
    (Perceptron(eta_schedule="sqrt"), "eta_schedule"),
    (Perceptron(shuffle="yes"), "shuffle"),
])
def test_invalid_parameters_raise_in_fit(est, name):
    X, y = _valid_data()                       # the constructor accepted them silently
    with pytest.raises(ValueError, match=name):
        est.fit(X, y)


@pytest.mark.parametrize("Est", ALL)
def test_string_labels_params_and_score(Est):
    rng = np.random.default_rng(2)
    X, y = blobs(rng, n=90, d=3, K=3, sep=4.0)
    labels = np.array(["cat", "dog", "emu"])[y]
    m = Est().fit(X, labels)
    assert m.classes_.tolist() == ["cat", "dog", "emu"]
    assert set(m.predict(X)) <= set(labels)
    assert m.score(X, labels) > 0.6
    assert m.decision_function(X).shape == (90, 3)
    m2 = Est().fit(X[y < 2], labels[y < 2])
    assert m2.decision_function(X).shape == (90,)
    params = m.get_params()
    assert Est(**params).get_params() == params
    assert m.set_params(**params) is m
    with pytest.raises(ValueError, match="not a parameter"):
        m.set_params(bogus=1)
    assert type(m).__name__ in repr(m)


# ---------------------------------------------------------- no silent wrong answers


def test_least_squares_cholesky_first_svd_fallback():
    rng = np.random.default_rng(5)
    X, y = blobs(rng, n=200, d=6, K=3)
    m = LeastSquaresClassifier().fit(X, y)
    assert m.solver_ == "cholesky"
    Xa = np.c_[X, np.ones(len(X))]
    T = np.eye(3)[y]
    W = np.linalg.lstsq(Xa, T, rcond=None)[0]                 # eq. 4.16 by the pseudo-inverse
    np.testing.assert_allclose(m.coef_, W[:-1].T, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.intercept_, W[-1], rtol=1e-9, atol=1e-12)
    # a constant and a duplicated input: singular normal equations, minimum-norm SVD solution
    Xs = np.c_[X, np.full(len(X), 7.0), X[:, 0]]
    ms = LeastSquaresClassifier().fit(Xs, y)
    assert ms.solver_ == "svd"
    assert ms.coef_[:, 6].tolist() == [0.0, 0.0, 0.0] or np.abs(ms.coef_[:, 6]).max() < 1e-12
    np.testing.assert_allclose(ms.coef_[:, 0], ms.coef_[:, 7], rtol=1e-9)  # split evenly (min norm)
    np.testing.assert_allclose(ms.decision_function(Xs), m.decision_function(X), atol=1e-9)
    # badly scaled but well-conditioned inputs stay on the Cholesky path
    scale = 10.0 ** np.arange(-4, 2)
    assert LeastSquaresClassifier().fit(X * scale, y).solver_ == "cholesky"


@pytest.mark.parametrize("covariance", ["shared", "separate"])
@pytest.mark.parametrize("seed", [0, 1])
def test_gaussian_scores_ignore_a_large_offset(covariance, seed):
    rng = np.random.default_rng(seed)
    X, y = blobs(rng, n=150, d=4, K=3)
    a = GaussianClassifier(covariance=covariance).fit(X, y)
    b = GaussianClassifier(covariance=covariance).fit(X + 1e10, y)   # was 0.347 on iris (issue 10)
    assert b.score(X + 1e10, y) == a.score(X, y)
    np.testing.assert_allclose(b.predict_proba(X + 1e10), a.predict_proba(X), atol=1e-4)


def test_gaussian_iris_offset():
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_iris(return_X_y=True)
    for Est in (GaussianClassifier, FisherDiscriminant, LeastSquaresClassifier, LogisticRegression):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)     # iris is partly separable
            assert Est().fit(X + 1e10, y).score(X + 1e10, y) == Est().fit(X, y).score(X, y)


@pytest.mark.parametrize("Est", [FisherDiscriminant, GaussianClassifier])
def test_auto_shrinkage_judges_the_correlation_matrix(Est):
    rng = np.random.default_rng(3)
    X, y = blobs(rng, n=300, d=6, K=3)
    scale = 10.0 ** np.array([-6, -3, 0, 2, 4, 7])            # units, not collinearity
    with no_singular_warning():
        a = Est().fit(X, y)
        b = Est().fit(X * scale, y)
        q = GaussianClassifier(covariance="separate").fit(X * scale, y)
    assert b.shrinkage_ == 0.0 and (q.shrinkage_ == 0.0).all()
    np.testing.assert_array_equal(b.predict(X * scale), a.predict(X))
    np.testing.assert_allclose(q.predict_proba(X * scale),
                               GaussianClassifier(covariance="separate").fit(X, y).predict_proba(X),
                               rtol=1e-6, atol=1e-9)


def test_breast_cancer_is_badly_scaled_not_singular():
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_breast_cancer(return_X_y=True)
    with no_singular_warning():                               # was shrunk with "singular" (issue 10)
        for Est in (FisherDiscriminant, GaussianClassifier):
            m = Est().fit(X, y)
            assert m.shrinkage_ == 0.0
            assert m.score(X, y) == Est(shrinkage=0.0).fit(X, y).score(X, y)


def test_singular_warning_says_why():
    rng = np.random.default_rng(0)
    X, y = blobs(rng, n=100, d=4, K=2)
    with pytest.warns(SingularCovarianceWarning, match=r"1 feature with zero variance"):
        GaussianClassifier().fit(np.c_[X, np.zeros(len(X))], y)
    with pytest.warns(SingularCovarianceWarning, match=r"unit variance \(collinear"):
        GaussianClassifier().fit(np.c_[X, 1e-3 * X[:, 0] - 2e5 * X[:, 1]], y)


@pytest.mark.parametrize("Est", ALL)
def test_overflowing_squares_are_rejected(Est):
    X, y = _valid_data()
    with pytest.raises(ValueError, match=r"^X has entries up to .* overflow float64"):
        Est().fit(X * 1e154, y)
    Est().fit(X * 1e140, y)                                    # large but workable


def test_least_squares_swamped_by_alpha_warns():
    rng = np.random.default_rng(1)
    X, y = blobs(rng, n=150, d=4, K=3)
    with pytest.warns(ScaleWarning, match=r"alpha=1 swamps the data"):
        LeastSquaresClassifier(alpha=1.0).fit(X * 1e-150, y)   # predicted one class, silently
    with warnings.catch_warnings():
        warnings.simplefilter("error", ScaleWarning)
        LeastSquaresClassifier(alpha=1.0).fit(X * 1e-3, y)
    # two classes: the decision is formed as one difference, so it keeps its sign
    with pytest.warns(ScaleWarning):
        m = LeastSquaresClassifier(alpha=1.0).fit(X[y < 2] * 1e-150, y[y < 2])
    assert m.score(X[y < 2] * 1e-150, y[y < 2]) > 0.8


@pytest.mark.parametrize("Est", ALL)
def test_targets_and_inputs_that_are_not_classification(Est):
    X, y = _valid_data()
    with pytest.raises(ValueError, match=r"Unknown label type: y is continuous"):
        Est().fit(X, y + 0.5)
    with pytest.raises(ValueError, match=r"Unknown label type: y is complex"):
        Est().fit(X, y + 1j)
    with pytest.raises(ValueError, match=r"^X is complex"):
        Est().fit(X + 1j, y)
    with pytest.raises(ValueError, match=r"requires y to be passed"):
        Est().fit(X, None)
    Est().fit(X, y.astype(float))                              # integral floats are labels
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match=r"^X is a sparse matrix .*toarray"):
        Est().fit(sparse.csr_matrix(X), y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_perceptron_shuffle_draws_only_the_epochs_it_runs(seed):
    import tracemalloc

    rng = np.random.default_rng(seed)
    n = 4000
    y = np.arange(n) % 2
    X = np.where(y[:, None] == 1, 1.0, -1.0) * (1.0 + rng.random((n, 3)))   # margin >= 1
    tracemalloc.start()
    m = Perceptron(shuffle=True, seed=seed, epochs=20_000).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert m.converged_ and m.n_epochs_ <= 3
    assert peak < 5e6                                          # drawn up front: 20000 x 4000 x 8 B = 640 MB
    # the same run as drawing every epoch's order first (one permutation per epoch)
    order_rng = np.random.default_rng(seed)
    order = np.stack([order_rng.permutation(n) for _ in range(8)])
    res = train_error_correction(np.c_[X, np.ones(n)], np.where(y == 1, 1.0, -1.0)[:, None],
                                 epochs=8, order=order, stop_when_converged=True)
    np.testing.assert_array_equal(m.coef_[0], res.weights[0, :3])
    assert m.intercept_[0] == res.weights[0, 3]
    # not converging: every epoch is run, the same as a full draw
    Xx = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    yx = np.array([0, 0, 1, 1])
    a = Perceptron(shuffle=True, seed=seed, epochs=37).fit(Xx, yx)
    order_rng = np.random.default_rng(seed)
    order = np.stack([order_rng.permutation(4) for _ in range(37)])
    full = train_error_correction(np.c_[Xx, np.ones(4)], np.where(yx == 1, 1.0, -1.0)[:, None], epochs=37,
                                  order=order)
    assert a.n_epochs_ == 37 and not a.converged_
    np.testing.assert_array_equal(a.coef_[0], full.weights[0, :2])
    assert a.intercept_[0] == full.weights[0, 2]


# ------------------------------------------------------------------ logistic regression


@pytest.mark.parametrize("K", [2, 3, 4])
@pytest.mark.parametrize("newton", ["explicit", "cg"])
def test_logistic_regression_stationarity(K, newton):
    # at the maximum of the likelihood the gradient (eq. 4.91 / 4.109) vanishes:
    # sum_n (y_nk - t_nk) phi_n = 0, so with a bias the predicted probabilities of
    # each class add up to its count, and their first moments match the data's
    rng = np.random.default_rng(K)
    X, y = blobs(rng, n=300, d=3, K=K, sep=0.8)
    m = LogisticRegression(newton=newton).fit(X, y)
    assert m.converged_ and not m.separable_
    P = m.predict_proba(X)
    T = np.eye(K)[y]
    np.testing.assert_allclose(P.sum(axis=0), T.sum(axis=0), rtol=1e-8)
    np.testing.assert_allclose(X.T @ P, X.T @ T, rtol=1e-7, atol=1e-7)
    if K == 2:
        np.testing.assert_allclose(m.decision_function(X), np.log(P[:, 1] / P[:, 0]), rtol=1e-9, atol=1e-9)
    else:
        np.testing.assert_allclose(m.coef_.sum(axis=0), 0.0, atol=1e-10)


def test_logistic_regression_one_input_by_hand():
    # x in {0, 1}: the MLE is the empirical log-odds in each group, so
    # w0 = ln(3/1) for x = 0 (3 of 4 in class 1) and w0 + w = ln(1/3) for x = 1
    X = np.array([[0.0]] * 4 + [[1.0]] * 4)
    y = np.array([1, 1, 1, 0, 1, 0, 0, 0])
    m = LogisticRegression().fit(X, y)
    assert m.intercept_[0] == pytest.approx(math.log(3), rel=1e-10)
    assert m.coef_[0, 0] == pytest.approx(math.log(1 / 3) - math.log(3), rel=1e-10)


def test_logistic_regression_separable_data_warns_and_stops():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-3, 0.5, (50, 2)), rng.normal(3, 0.5, (50, 2))]
    y = np.repeat([0, 1], 50)
    with pytest.warns(SeparableDataWarning, match=r"linearly separable.*no finite solution"):
        m = LogisticRegression(max_iter=10_000).fit(X, y)
    assert m.separable_ and not m.converged_ and m.n_iter_ < 50
    assert m.score(X, y) == 1.0
    # partly separable (class 0 apart from 1 and 2, which overlap): stops at max_iter
    X3 = np.r_[X, rng.normal(3, 0.5, (50, 2))]
    y3 = np.repeat([0, 1, 2], 50)
    with pytest.warns(ConvergenceWarning, match=r"max_iter=30"):
        m3 = LogisticRegression(max_iter=30).fit(X3, y3)
    assert m3.n_iter_ == 30 and not m3.converged_


def test_mark1_runs_without_sklearn():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['sklearn'] = None\n"            # any import of sklearn fails
        "import numpy as np\n"
        "from mark1 import linear_model as baselines\n"
        "X = np.random.default_rng(0).normal(size=(40, 3)); y = np.arange(40) % 2\n"
        "for E in (baselines.LeastSquaresClassifier, baselines.FisherDiscriminant,\n"
        "          baselines.GaussianClassifier, baselines.Perceptron, baselines.LogisticRegression):\n"
        "    try:\n"
        "        E().predict(X)\n"
        "    except baselines.NotFittedError as e:\n"
        "        assert isinstance(e, ValueError) and isinstance(e, AttributeError)\n"
        "    E().fit(X, y).score(X, y)\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    # and importing, fitting and predicting does not import scikit-learn
    code = ("import sys, numpy as np\nfrom mark1 import linear_model as baselines\n"
            "X = np.random.default_rng(0).normal(size=(40, 3)); y = np.arange(40) % 2\n"
            "baselines.LogisticRegression().fit(X, y).predict(X)\n"
            "print('sklearn' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
