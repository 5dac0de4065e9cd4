"""Least squares for classification (PRML §4.1.3), with an optional ridge term and
Fisher's target coding (§4.1.5)."""

from __future__ import annotations

import warnings

import numpy as np
import numpy.typing as npt

from mark1.exceptions import InputError, ScaleWarning
from mark1.linear_model._base import _Classifier
from mark1.linear_model._covariance import _EPS, _class_means, _equilibrated_solve, _scatter
from mark1.linear_model._validation import _check_choice, _check_real


class LeastSquaresClassifier(_Classifier):
    """Least squares for classification (PRML §4.1.3, eq. 4.14-4.17).

    Each class ``k`` gets a linear output ``y_k(x) = w_k^T x + w_k0``, fitted to the
    1-of-K target vectors by least squares; a sample goes to the class with the
    largest output.  The bias is never penalised.  ``decision_function``: two
    classes ``y_1(x) - y_0(x)`` (1-of-K) or the single output (``'fisher'``); K
    classes the outputs.

    Parameters
    ----------
    alpha : float, default 0.0
        Ridge term ``alpha * ||W||^2`` (bias excluded).  ``0`` gives the
        minimum-norm least-squares solution.
    targets : {'one-of-k', 'fisher'}, default 'one-of-k'
        ``'fisher'`` (two classes only) uses a single output with targets
        ``N/N_1`` for ``classes_[1]`` and ``-N/N_0`` for ``classes_[0]``
        (§4.1.5, Bishop's C1 being ``classes_[1]`` so that a positive output means
        ``classes_[1]`` as everywhere here); the weight vector is then parallel to
        Fisher's and the bias is ``-w^T m`` (eq. 4.34-4.38).

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    coef_ : ndarray of shape (K, n_features), or (1, n_features) for 'fisher'
        Output weights (rows of the transposed eq. 4.16 solution without the bias).
    intercept_ : ndarray of shape (K,), or (1,)
    solver_ : str
        ``'cholesky'`` (the normal equations) or ``'svd'`` (the fallback).
    n_features_in_ : int

    Notes
    -----
    The inputs are centred and the bias recovered afterwards
    (``w_0 = tbar - W^T xbar``), so the bias is unpenalised.  The normal equations
    ``(Xc^T Xc + alpha I) W = Xc^T Tc`` are scaled to unit diagonal and solved
    when their Cholesky factorisation passes the pivot test (every pivot at least
    ``1 / ILL_CONDITIONED`` of the largest diagonal entry, which bounds the
    condition number from below), as scikit-learn's ``RidgeClassifier`` does.
    Otherwise (constant inputs, collinear inputs, fewer samples than inputs with
    ``alpha = 0``) the SVD of ``Xc`` gives the minimum-norm least-squares solution
    (``alpha = 0``: the pseudo-inverse solution of eq. 4.16, the ``alpha -> 0``
    limit of the ridge solution, so constant inputs get zero weight) or the ridge
    solution.  The outputs sum to one for every input (eq. 4.18-4.19).

    Why not simply ``numpy.linalg.lstsq`` (10,000 x 512 binary features, a loaded 2-core
    machine): ``numpy.linalg.lstsq`` for ``alpha = 0`` and, for ``alpha > 0``, an SVD chosen
    by the bound ``1 + trace / alpha > 1e8`` (the actual condition number there is
    26): 2.8x and 7x the time of ``RidgeClassifier``.

    Examples
    --------
    >>> from mark1.linear_model import LeastSquaresClassifier
    >>> X = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0], [4.0, 3.0], [3.0, 4.0]]
    >>> y = ["off", "off", "off", "on", "on", "on"]
    >>> clf = LeastSquaresClassifier().fit(X, y)
    >>> clf.predict([[0.5, 0.5], [3.5, 3.5]]).tolist(), clf.score(X, y)
    (['off', 'on'], 1.0)
    >>> clf.coef_[1].round(4).tolist(), clf.solver_
    ([0.1627, 0.1627], 'cholesky')
    >>> clf.outputs([[3.5, 3.5]]).round(3).tolist()     # the two outputs sum to one
    [[-0.042, 1.042]]
    """

    # the parameters, stored by __init__ (ParamsMixin._store_params), checked in fit
    alpha: float
    targets: str

    def __init__(self, *, alpha: float = 0.0, targets: str = "one-of-k") -> None:
        self._store_params(locals())

    def _check_params(self):
        return {"alpha": _check_real(self.alpha, "alpha", low=0.0),
                "targets": _check_choice(self.targets, "targets", ("one-of-k", "fisher"))}

    def _fit(self, X, yi, classes, *, alpha, targets):
        # the outputs by (regularised) least squares
        K = len(classes)
        if targets == "fisher" and K != 2:
            raise InputError(f"targets='fisher' needs exactly two classes; y has {K}")
        n, d = X.shape
        counts, means = _class_means(X, yi, K)
        xbar = X.mean(axis=0)
        if targets == "one-of-k":
            code = np.eye(K)                                   # target vector of each class
        else:
            code = np.array([[-n / counts[0]], [n / counts[1]]])
        tbar = counts @ code / n                               # mean target
        Xc = X - xbar
        # Xc^T Tc = Xc^T T = sum_k N_k (m_k - xbar) t_k^T  (columns of Xc sum to zero)
        rhs = (counts[:, None] * (means - xbar)).T @ code      # (d, n_outputs)
        # Normal equations, equilibrated (unit diagonal) so that the pivot test
        # judges correlations, not units; Cholesky test, then one solve.  Only a
        # (near-)singular system goes to the SVD of Xc: minimum norm for alpha = 0,
        # the filter sv / (sv^2 + alpha) otherwise.
        G = _scatter(Xc)
        G.flat[::d + 1] += alpha
        W = _equilibrated_solve(G, rhs)
        if W is not None:
            self.solver_ = "cholesky"
        else:
            U, sv, Vt = np.linalg.svd(Xc, full_matrices=False)
            Tc = code[yi] - tbar
            if alpha > 0:
                filt = sv / (sv ** 2 + alpha)
            else:
                keep = sv > max(n, d) * _EPS * sv[0] if sv.size else sv > 0
                filt = np.where(keep, 1.0 / np.where(keep, sv, 1.0), 0.0)
            W = Vt.T @ (filt[:, None] * (U.T @ Tc))
            self.solver_ = "svd"
        b = tbar - xbar @ W
        if not (np.isfinite(W).all() and np.isfinite(b).all()):
            raise InputError("least-squares solution is not finite (inputs too large?)")
        # A ridge term far larger than the data's scatter shrinks the fitted
        # variation of the outputs below the rounding of their mean: every sample
        # would then get the same class (found with alpha = 1 on iris * 1e-150).
        # (only a ridge term can do that: without one the fitted outputs are not formed)
        spread = float(np.abs(Xc @ W).max()) if W.size and alpha > 0 else 0.0
        level = float(np.abs(tbar).max())
        if alpha > 0 and spread <= 1e4 * _EPS * level and Xc.any():
            warnings.warn(
                f"alpha={alpha:g} swamps the data (largest fitted output variation {spread:.3g} "
                f"against outputs of size {level:.3g}): the outputs are constant to working "
                f"precision, so every sample gets the same class. Rescale X or lower alpha.",
                ScaleWarning, stacklevel=3)
        self.coef_ = np.ascontiguousarray(W.T)
        self.intercept_ = b

    def outputs(self, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """The raw outputs ``y(x) = W^T x + w_0`` (eq. 4.15).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, K), or (n_samples, 1) for ``targets='fisher'``
        """
        return self._check_X(X) @ self.coef_.T + self.intercept_

    def _decision(self, X):
        # two classes: y_1(x) - y_0(x) (1-of-K) or the single output ('fisher'); K: the outputs
        if self.coef_.shape[0] == 2:          # the difference first: no rounding of y_0, y_1
            return X @ (self.coef_[1] - self.coef_[0]) + (self.intercept_[1] - self.intercept_[0])
        return super()._decision(X)
