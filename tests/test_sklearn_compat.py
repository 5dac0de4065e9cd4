"""The baselines as scikit-learn estimators: its checks, its tools, its exceptions.

Skipped as a whole when scikit-learn is not installed (mark1 itself does not need
it; ``test_baselines.py`` checks that mark1 runs without it).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.exceptions import NotFittedError as SkNotFittedError  # noqa: E402
from sklearn.linear_model import LogisticRegression as SkLogisticRegression  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402
from sklearn.utils.validation import check_is_fitted  # noqa: E402

from mark1 import linear_model as baselines  # noqa: E402
from mark1.linear_model import (FisherDiscriminant, GaussianClassifier, LeastSquaresClassifier,  # noqa: E402
                             LogisticRegression, NotFittedError, Perceptron, SeparableDataWarning)

ESTIMATORS = [LeastSquaresClassifier(), LeastSquaresClassifier(alpha=1.0), FisherDiscriminant(),
              GaussianClassifier(), GaussianClassifier(covariance="separate"), Perceptron(),
              LogisticRegression()]

# Checks each baseline fails on purpose, with the reason.  Everything else in
# scikit-learn's suite passes (sparse input and sample weights are declared
# unsupported by the tags, so those checks are skipped, not failed).
EXPECTED_FAILURES = {
    # y of shape (n, 1): scikit-learn ravels it with a DataConversionWarning; we
    # reject it with "y must be 1-D (n_samples,); got a column of shape (n, 1)
    # (pass y.ravel())", since a column is more often a mistake (a 1-column
    # one-hot, a regression target) than a label vector.
    "check_supervised_y_2d": "a column y is rejected with a message, not ravelled with a warning",
}


def expected_failures(estimator):
    return EXPECTED_FAILURES


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        # the checks' small random data sets are often separable or collinear
        warnings.simplefilter("ignore", SeparableDataWarning)
        warnings.simplefilter("ignore", baselines.SingularCovarianceWarning)
        check(estimator)


def test_expected_failures_really_fail():
    y2 = np.zeros((6, 1))
    with pytest.raises(ValueError, match=r"y must be 1-D .*column.*ravel"):
        LeastSquaresClassifier().fit(np.eye(6), y2)


# ------------------------------------------------------------------------ tools


def data(seed=0, n=120, d=4, K=3):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % K
    X = rng.normal(size=(K, d))[y] * 2 + rng.normal(size=(n, d))
    return X, y


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_clone_pipeline_cross_val_and_is_fitted(est):
    X, y = data()
    c = clone(est)
    assert c is not est and c.get_params() == est.get_params()
    with pytest.raises(SkNotFittedError):
        check_is_fitted(c)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeparableDataWarning)
        pipe = Pipeline([("scale", StandardScaler()), ("clf", c)]).fit(X, y)
        assert pipe.score(X, y) > 0.6
        check_is_fitted(c)
        scores = cross_val_score(clone(est), X, y, cv=3)
    assert scores.shape == (3,) and (scores > 0.5).all()


@pytest.mark.parametrize("est, grid", [
    (LeastSquaresClassifier(), {"alpha": [0.0, 1.0, 100.0]}),
    (GaussianClassifier(), {"shrinkage": [0.0, 0.1], "covariance": ["shared", "separate"]}),
    (Perceptron(), {"epochs": [1, 5, 20]}),
    (LogisticRegression(), {"max_iter": [1, 50]}),
], ids=lambda v: type(v).__name__ if not isinstance(v, dict) else "")
def test_grid_search(est, grid):
    X, y = data(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # max_iter=1 does not converge, by design
        gs = GridSearchCV(est, grid, cv=3).fit(X, y)
    assert set(gs.best_params_) == set(grid)
    assert gs.best_estimator_.score(X, y) > 0.6


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_not_fitted_error_is_sklearns(est):
    assert issubclass(NotFittedError, SkNotFittedError)
    assert issubclass(NotFittedError, ValueError) and issubclass(NotFittedError, AttributeError)
    try:
        clone(est).predict(np.zeros((2, 4)))
    except SkNotFittedError as exc:
        assert "fit" in str(exc)
    else:
        pytest.fail("predict before fit did not raise")
    from mark1.exceptions import NotFittedError as same
    assert same is NotFittedError


# --------------------------------------------------- logistic regression agreement


@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("newton", ["explicit", "cg"])
@pytest.mark.parametrize("alpha", [0.0, 2.0])
def test_logistic_regression_matches_sklearn(K, newton, alpha):
    # overlapping classes (non-separable), so the maximum-likelihood solution exists
    rng = np.random.default_rng(K)
    n, d = 400, 4
    y = rng.integers(0, K, n)
    X = rng.normal(size=(K, d))[y] + 1.5 * rng.normal(size=(n, d)) + 3.0
    ours = LogisticRegression(alpha=alpha, newton=newton).fit(X, y)
    assert ours.converged_ and not ours.separable_
    penalty = dict(penalty=None) if alpha == 0 else dict(C=1.0 / alpha)
    theirs = SkLogisticRegression(**penalty, solver="newton-cg", tol=1e-12, max_iter=10_000).fit(X, y)
    # tolerance: scikit-learn's own stopping rule, and CG's inexact steps
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-5, atol=1e-5)
    Z = rng.normal(size=(200, d)) * 2 + 3.0
    np.testing.assert_allclose(ours.predict_proba(Z), theirs.predict_proba(Z), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(Z), theirs.predict(Z))
