"""Textbook linear classifiers of PRML (Bishop 2006) §4.1-4.3, beside the machine.

Five classifiers with scikit-learn's conventions, without depending on it:

* :class:`LeastSquaresClassifier`: least squares for classification (§4.1.3,
  eq. 4.14-4.17), optional ridge term and Fisher's target coding (§4.1.5);
* :class:`FisherDiscriminant`: Fisher's linear discriminant, two classes (§4.1.4)
  and K classes (§4.1.6);
* :class:`GaussianClassifier`: the generative model with Gaussian class densities
  (§4.2.2), shared covariance (linear) or one per class (quadratic);
* :class:`Perceptron`: Rosenblatt's perceptron (§4.1.7), trained by the same core
  as the machine (:func:`mark1.perceptron.train_error_correction`);
* :class:`LogisticRegression`: logistic and softmax regression by IRLS /
  Newton-Raphson (§4.3.2-4.3.4).

Conventions (as in scikit-learn): keyword-only ``__init__`` that only stores its
arguments; validation happens in ``fit(X, y)``, which returns ``self``; learned
attributes end in ``_``; ``classes_`` holds the sorted distinct labels (any
comparable labels: ints, strings); ``predict``, ``decision_function`` and
``score`` (accuracy).  For two classes ``decision_function`` returns shape
``(n_samples,)`` and a positive value means ``classes_[1]``; for K > 2 it returns
``(n_samples, K)`` and the prediction is the largest column.

They are scikit-learn estimators when scikit-learn is installed: each has
``__sklearn_tags__`` (which imports scikit-learn only when its tools ask),
``get_params``/``set_params`` and ``__sklearn_is_fitted__``, so ``clone``,
``Pipeline``, ``cross_val_score``, ``GridSearchCV`` and ``check_is_fitted``
work, and scikit-learn's ``check_estimator`` passes but for one documented check
(``tests/test_sklearn_compat.py``).  Use before ``fit`` raises
:class:`mark1.errors.NotFittedError` (also importable from here), a subclass of
scikit-learn's ``NotFittedError`` when it is installed.  Input that is not a
dense real 2-D array with class labels is rejected with a one-line message:
sparse matrices, complex numbers, continuous or complex targets, and values
whose sums of squares overflow float64 (``|x| > ~1e150``).

Singular covariances are normal here (binary pixel data: constant border pixels,
fewer cards than inputs).  The covariance-based models (Fisher, Gaussian) take a
``shrinkage`` parameter: a float ``s`` in [0, 1] replaces the covariance ``S`` by
the convex mix ``(1 - s) S + s (trace(S) / d) I`` (the same parametrisation as
scikit-learn's ``LinearDiscriminantAnalysis(shrinkage=s)``), and the default
``"auto"`` uses no shrinkage when the covariance's correlation matrix is well
conditioned (so features in different units are not mistaken for a singular
matrix; before, breast-cancer data were shrunk and scored 0.942 instead of
0.965) and ``s = 1e-3`` otherwise, with a :class:`SingularCovarianceWarning`
that says why (features with zero variance, or collinear features) and names the
parameter to set.  An explicit ``shrinkage=0`` on a singular covariance uses the
pseudo-inverse (Fisher, shared Gaussian) with the same warning.  No fit raises
``LinAlgError`` and no fit returns NaN silently.
"""

from __future__ import annotations

import inspect
import numbers
import warnings

import numpy as np

from mark1 import exceptions as _errors
from mark1.machine.perceptron import _all_finite, _average, _train_with_bias, train_error_correction
from mark1._utils.threads import one_blas_thread
from mark1.exceptions import ConvergenceWarning, InputError, InputTypeError, ScaleWarning, SeparableDataWarning, SingularCovarianceWarning

__all__ = [
    "SingularCovarianceWarning",
    "ScaleWarning",
    "LeastSquaresClassifier",
    "FisherDiscriminant",
    "GaussianClassifier",
    "Perceptron",
    "LogisticRegression",
    "SeparableDataWarning",
    "ConvergenceWarning",
]

#: Largest number of free parameters ``(K-1)(d+1)`` for which logistic regression
#: forms its Hessian; above it the Newton steps are solved by conjugate gradients.
EXPLICIT_HESSIAN_MAX = 200
#: Shrinkage applied by ``shrinkage="auto"`` to a singular or ill-conditioned covariance.
AUTO_SHRINKAGE = 1e-3
#: Condition number (largest / smallest eigenvalue) above which a covariance counts
#: as ill-conditioned.  For the Cholesky test it is compared with
#: ``max(diag S) / min(pivot)``, a lower bound of the condition number that is huge
#: (or the factorisation fails) for every rank-deficient covariance.
ILL_CONDITIONED = 1e10
_EPS = np.finfo(np.float64).eps
_FLOAT_MAX = np.finfo(np.float64).max


# ----------------------------------------------------------------------------- checks


def _check_array(X, name="X"):
    if hasattr(X, "tocsr") or type(X).__module__.startswith("scipy.sparse"):
        raise InputTypeError(f"{name} is a sparse matrix ({type(X).__name__}); these classifiers need "
                        f"dense input: pass {name}.toarray()")
    X = np.asarray(X)
    if X.dtype.kind == "c" or (X.dtype.kind == "O" and any(isinstance(v, complex) for v in X.flat)):
        raise InputError(f"{name} is complex; these classifiers need real numbers "
                         f"(Complex data not supported)")
    try:
        X = X.astype(np.float64, copy=False)
    except TypeError as exc:
        raise InputTypeError(f"{name} must be a 2-D array of real numbers: {exc}") from None
    except ValueError as exc:
        raise InputError(f"{name} must be a 2-D array of real numbers: {exc}") from None
    if X.ndim != 2:
        raise InputError(f"{name} must be 2-D (n_samples, n_features); got an array of shape {X.shape}"
                         + (f". Reshape your data: {name}.reshape(-1, 1) for a single feature, "
                            f"{name}.reshape(1, -1) for a single sample" if X.ndim == 1 else ""))
    if X.shape[0] < 1:
        raise InputError(f"{name} has 0 sample(s) (shape={X.shape}) while a minimum of 1 is required.")
    if X.shape[1] < 1:
        raise InputError(f"{name} has 0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    if not _all_finite(X):
        raise InputError(f"{name} contains NaN or infinity")
    return X


def _check_squares(X, name="X"):
    """Reject inputs whose sums of squares overflow float64 (every fit forms them)."""
    top = float(np.abs(X).max())
    if top * top * X.shape[0] * X.shape[1] > _FLOAT_MAX:
        raise InputError(f"{name} has entries up to {top:.3g}, whose sums of squares overflow float64 "
                         f"(limit about {np.sqrt(_FLOAT_MAX / (X.shape[0] * X.shape[1])):.3g} for "
                         f"{X.shape[0]} x {X.shape[1]}); rescale {name}")


def _check_labels(y, n, name="y"):
    if y is None:
        raise InputError(f"this classifier requires y to be passed, but the target {name} is None")
    if hasattr(y, "tocsr"):
        raise InputTypeError(f"{name} is a sparse matrix; pass a 1-D array of class labels")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        raise InputError(f"{name} must be 1-D (n_samples,); got a column of shape {y.shape} "
                         f"(pass {name}.ravel())")
    if y.ndim != 1:
        raise InputError(f"{name} must be 1-D (n_samples,); got an array of shape {y.shape}")
    if len(y) != n:
        raise InputError(f"X has {n} samples but {name} has {len(y)} labels")
    if y.dtype.kind in "fc" and not np.isfinite(y).all():
        raise InputError(f"{name} contains NaN or infinity")
    if y.dtype.kind == "O" and any(v is None or (isinstance(v, float) and not np.isfinite(v))
                                  for v in y.tolist()):
        raise InputError(f"{name} contains None or NaN")
    return y


def _check_target_type(y):
    """Class labels only: complex or non-integral float targets are regression targets."""
    if y.dtype.kind == "c":
        raise InputError("Unknown label type: y is complex; a classifier needs class labels")
    values = y.tolist() if y.dtype.kind == "O" else y
    if y.dtype.kind == "O" and any(isinstance(v, complex) for v in values):
        raise InputError("Unknown label type: y is complex; a classifier needs class labels")
    if y.dtype.kind == "f" and np.any(y != np.round(y)):
        bad = y[y != np.round(y)][0]
        raise InputError(f"Unknown label type: y is continuous (e.g. {bad!r}); a classifier needs "
                         f"class labels (integers or strings), not a regression target")


def _check_X_y(X, y):
    X = _check_array(X, "X")
    _check_squares(X, "X")
    y = _check_labels(y, X.shape[0])
    _check_target_type(y)
    try:
        classes, yi = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise InputError(f"y labels must be mutually comparable: {exc}") from None
    if len(classes) < 2:
        raise InputError(f"y must contain at least two classes; got 1 class: {classes.tolist()!r}")
    return X, classes, yi.reshape(-1)


def _check_choice(value, name, choices):
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def _check_real(value, name, *, low=None, high=None, low_open=False):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be a real number; got {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise InputError(f"{name} must be finite; got {value}")
    if low is not None and (value < low or (low_open and value == low)):
        raise InputError(f"{name} must be {'>' if low_open else '>='} {low}; got {value}")
    if high is not None and value > high:
        raise InputError(f"{name} must be <= {high}; got {value}")
    return value


def _check_shrinkage(shrinkage):
    if isinstance(shrinkage, str):
        if shrinkage != "auto":
            raise InputError(f"shrinkage must be 'auto' or a float in [0, 1]; got {shrinkage!r}")
        return shrinkage
    return _check_real(shrinkage, "shrinkage", low=0.0, high=1.0)


def _class_means(X, yi, K):
    counts = np.bincount(yi, minlength=K)
    onehot = np.zeros((X.shape[0], K))
    onehot[np.arange(X.shape[0]), yi] = 1.0
    means = (onehot.T @ X) / counts[:, None]
    return counts, means


def _scatter(Xc):
    """``Xc.T @ Xc`` (numpy computes a product with its own transpose by syrk,
    half the work of a general product, and returns an exactly symmetric matrix)."""
    return Xc.T @ Xc


def _log_softmax(a):
    with np.errstate(invalid="ignore", over="ignore"):
        amax = a.max(axis=1, keepdims=True)
        z = a - amax
        out = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    if not np.isfinite(amax).all() or np.isnan(out).any():
        raise InputError("decision values overflowed (inputs too large for float64)")
    return out


# ------------------------------------------------------------------ covariance handling


def _target_scale(S, fallback=None):
    mu = float(np.trace(S)) / S.shape[0]
    if mu > 0 and np.isfinite(mu):
        return mu
    return fallback if fallback else 1.0


def _shrunk(S, s, mu):
    if s == 0.0:
        return S
    out = (1.0 - s) * S
    out.flat[::S.shape[0] + 1] += s * mu
    return out


def _cholesky_ok(S):
    """True when the Cholesky factorisation of ``S`` succeeds with healthy pivots."""
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        return False
    piv = np.diagonal(L) ** 2
    top = np.diagonal(S).max()
    return bool(np.isfinite(piv).all() and top > 0 and piv.min() * ILL_CONDITIONED >= top)


def _equilibrated_solve(S, B):
    """Solve ``S Z = B`` for a symmetric positive semi-definite ``S``, or None.

    ``S`` is scaled to unit diagonal (``D^-1/2 S D^-1/2``, a correlation-like
    matrix, so the test ignores the units of the features) and solved there when
    it passes :func:`_cholesky_ok`; None when a diagonal entry is zero or the test
    fails (singular or ill-conditioned beyond :data:`ILL_CONDITIONED`).
    """
    diag = np.diagonal(S)
    if not (diag > 0).all():
        return None
    r = 1.0 / np.sqrt(diag)
    C = S * r[:, None] * r[None, :]
    if not _cholesky_ok(C):
        return None
    return np.linalg.solve(C, B * r[:, None]) * r[:, None]


def _why_singular(S):
    """What is wrong with a covariance that failed the test, in words."""
    flat = int(np.count_nonzero(np.diagonal(S) <= 0))
    if flat:
        return f"singular ({flat} feature{'s' if flat > 1 else ''} with zero variance)"
    return ("singular or ill-conditioned even with every feature scaled to unit variance "
            "(collinear features, or fewer samples than features?)")


def _warn_regularised(what, S, s, stacklevel):
    warnings.warn(
        f"{what} is {_why_singular(S)}; shrinkage='auto' applied shrinkage={s:g} toward "
        f"(trace/d)*I. Pass shrinkage=<float in [0, 1]> to choose the amount "
        f"(this also silences the warning).",
        SingularCovarianceWarning, stacklevel=stacklevel)


def _warn_pinv(what, S, stacklevel):
    warnings.warn(
        f"{what} is {_why_singular(S)} and shrinkage=0: used its pseudo-inverse (eigenvalues "
        f"below d*eps times the largest dropped). Pass shrinkage=<float in (0, 1]> "
        f"for a regularised solution instead.",
        SingularCovarianceWarning, stacklevel=stacklevel)


def _solve_covariance(S, B, shrinkage, what):
    """Solve ``S' Z = B`` for the (shrunk) covariance ``S'``.

    Returns ``(Z, S', s)`` with the shrinkage ``s`` actually used.  Whether ``S``
    needs shrinkage is judged on its correlation matrix (:func:`_equilibrated_solve`),
    so features in very different units are not mistaken for a singular matrix;
    a solve, never an explicit inverse; the pseudo-inverse by ``eigh`` only for
    an explicit ``shrinkage=0`` on a singular matrix.
    """
    mu = _target_scale(S)
    if shrinkage == "auto" or shrinkage == 0.0:
        Z = _equilibrated_solve(S, B)
        if Z is not None:
            return Z, S, 0.0
    if shrinkage == "auto":
        s = AUTO_SHRINKAGE
        _warn_regularised(what, S, s, stacklevel=4)
    else:
        s = shrinkage
    if s > 0.0:
        # lambda_min >= s*mu and lambda_max <= d*mu: condition <= 1 + d/s
        Ss = _shrunk(S, s, mu)
        return np.linalg.solve(Ss, B), Ss, s
    _warn_pinv(what, S, stacklevel=4)
    lam, V = np.linalg.eigh(S)
    keep = lam > S.shape[0] * _EPS * max(lam.max(), 0.0)
    Vk = V[:, keep]
    return Vk @ ((Vk.T @ B) / lam[keep, None]), S, 0.0


def _eigh_covariance(S, shrinkage, what, *, fallback_scale=None):
    """Whiten a (shrunk) class covariance for the quadratic classifier.

    Returns ``(S', A, logdet, s)``: the matrix used, a whitener ``A`` with
    ``A A^T = S'^{-1}``, ``ln det S'`` and the shrinkage used.  As in
    :func:`_solve_covariance` the need for shrinkage is judged on the correlation
    matrix, and unshrunk matrices are decomposed there (``S = D C D``), so small
    eigenvalues of features in small units keep their relative accuracy.  A
    singular matrix is always shrunk (``'auto'`` or an explicit 0 raised to
    :data:`AUTO_SHRINKAGE`, with a warning): a Gaussian density needs an
    invertible covariance.  ``fallback_scale`` replaces ``trace/d`` when it is 0
    (a class with a single sample).
    """
    diag = np.diagonal(S)
    ok = bool((diag > 0).all())
    if ok:
        r = 1.0 / np.sqrt(diag)
        C = S * r[:, None] * r[None, :]
        ok = _cholesky_ok(C)
    if ok and shrinkage in ("auto", 0.0):
        lam, V = np.linalg.eigh(C)
        lam = np.maximum(lam, np.finfo(float).tiny)
        return S, r[:, None] * V / np.sqrt(lam), float(np.log(lam).sum() + np.log(diag).sum()), 0.0
    if shrinkage == "auto":
        s = AUTO_SHRINKAGE
        _warn_regularised(what, S, s, stacklevel=4)
    elif shrinkage == 0.0:
        s = AUTO_SHRINKAGE
        warnings.warn(
            f"{what} is {_why_singular(S)} and shrinkage=0 leaves its density undefined; applied "
            f"shrinkage={s:g} toward (trace/d)*I. Pass shrinkage=<float in (0, 1]> to "
            f"choose the amount.", SingularCovarianceWarning, stacklevel=4)
    else:
        s = shrinkage
    Ss = _shrunk(S, s, _target_scale(S, fallback_scale))
    lam, V = np.linalg.eigh(Ss)
    lam = np.maximum(lam, np.finfo(float).tiny)
    return Ss, V / np.sqrt(lam), float(np.log(lam).sum()), s


# ------------------------------------------------------------------------- base class


class _Classifier:
    """Parameters, fitted-state check, prediction from ``decision_function``, score."""

    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY]

    def get_params(self, deep=True):
        """Parameters of this estimator, as a dict (scikit-learn convention)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set parameters (scikit-learn convention); returns ``self``."""
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise InputError(f"{name!r} is not a parameter of {type(self).__name__}; "
                                 f"valid: {', '.join(valid)}")
            setattr(self, name, value)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def __sklearn_tags__(self):
        """scikit-learn's estimator tags (imports scikit-learn; only its tools call this).

        A classifier of dense, real, 2-D input with 1-D class labels: no sparse
        input, no NaN, no sample weights, no multi-output targets.
        """
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(multi_class=True),
                    input_tags=InputTags(two_d_array=True, sparse=False, allow_nan=False))

    def __sklearn_is_fitted__(self):
        """Whether ``fit`` has run (used by ``sklearn.utils.validation.check_is_fitted``)."""
        return hasattr(self, "classes_")

    def _check_is_fitted(self):
        if not hasattr(self, "classes_"):
            raise _errors.NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit(X, y) first")

    def _check_X(self, X):
        self._check_is_fitted()
        X = _check_array(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise InputError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
        return X

    def predict(self, X):
        """Predicted class labels.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.  Two classes: ``classes_[1]`` where the
            decision is > 0; K classes: the largest decision (first on ties).
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[scores.argmax(axis=1)]

    def score(self, X, y):
        """Accuracy: the fraction of samples whose predicted label equals ``y``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        float
        """
        pred = self.predict(X)
        y = _check_labels(y, len(pred))
        return float(np.mean(pred == y))

    def _linear_decision(self, X):
        X = self._check_X(X)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores


# --------------------------------------------------------------------- least squares


class LeastSquaresClassifier(_Classifier):
    """Least squares for classification (PRML §4.1.3, eq. 4.14-4.17).

    Each class ``k`` gets a linear output ``y_k(x) = w_k^T x + w_k0``, fitted to the
    1-of-K target vectors by least squares; a sample goes to the class with the
    largest output.  The bias is never penalised.

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

    Before (issue 10, 10,000 x 512 binary features, loaded 2-core machine):
    ``numpy.linalg.lstsq`` for ``alpha = 0`` and, for ``alpha > 0``, an SVD chosen
    by the bound ``1 + trace / alpha > 1e8`` (the actual condition number there is
    26): 2.8x and 7x the time of ``RidgeClassifier``.
    """

    def __init__(self, *, alpha=0.0, targets="one-of-k"):
        self.alpha = alpha
        self.targets = targets

    def fit(self, X, y):
        """Fit the outputs by (regularised) least squares.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        self
        """
        alpha = _check_real(self.alpha, "alpha", low=0.0)
        targets = _check_choice(self.targets, "targets", ("one-of-k", "fisher"))
        X, classes, yi = _check_X_y(X, y)
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
        spread = float(np.abs(Xc @ W).max()) if W.size else 0.0
        level = float(np.abs(tbar).max())
        if alpha > 0 and spread <= 1e4 * _EPS * level and Xc.any():
            warnings.warn(
                f"alpha={alpha:g} swamps the data (largest fitted output variation {spread:.3g} "
                f"against outputs of size {level:.3g}): the outputs are constant to working "
                f"precision, so every sample gets the same class. Rescale X or lower alpha.",
                ScaleWarning, stacklevel=2)
        self.classes_ = classes
        self.n_features_in_ = d
        self.coef_ = np.ascontiguousarray(W.T)
        self.intercept_ = b
        return self

    def outputs(self, X):
        """The raw outputs ``y(x) = W^T x + w_0`` (eq. 4.15).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, K), or (n_samples, 1) for ``targets='fisher'``
        """
        X = self._check_X(X)
        return X @ self.coef_.T + self.intercept_

    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, K)
            Two classes: ``y_1(x) - y_0(x)`` (1-of-K) or the single output
            (``'fisher'``); K classes: the outputs.
        """
        X = self._check_X(X)
        if self.coef_.shape[0] == 2:          # the difference first: no rounding of y_0, y_1
            return X @ (self.coef_[1] - self.coef_[0]) + (self.intercept_[1] - self.intercept_[0])
        out = self.outputs(X)
        return out[:, 0] if out.shape[1] == 1 else out


# --------------------------------------------------------------------------- Fisher


def _gaussian_threshold(mu_a, var_a, pi_a, mu_b, var_b, pi_b):
    """Where ``pi_a N(y | mu_a, var_a) = pi_b N(y | mu_b, var_b)`` between the means.

    Solves ``A y^2 + B y + C = 0`` (the log ratio of the weighted densities) with
    the cancellation-free quadratic formula; equal variances give the linear root
    ``(mu_a + mu_b)/2 - var ln(pi_b/pi_a) / (mu_b - mu_a)``.  Of the roots, the one
    between the means is taken (the one nearest the midpoint if none or both are);
    when the weighted densities never cross, the equal-variance root with the
    pooled variance is used.
    """
    mid = 0.5 * (mu_a + mu_b)
    gap = mu_b - mu_a
    scale = max(abs(gap), np.sqrt(max(var_a, var_b, 0.0)), np.finfo(float).tiny)
    floor = max((1e-9 * scale) ** 2, np.finfo(float).tiny)   # a class projected onto a point
    va, vb = max(var_a, floor), max(var_b, floor)
    lr = np.log(pi_b / pi_a)
    pooled = pi_a * va + pi_b * vb

    def linear(v):
        return mid if gap == 0 else mid - v * lr / gap

    A = 0.5 / va - 0.5 / vb
    B = mu_b / vb - mu_a / va
    C = 0.5 * mu_a ** 2 / va - 0.5 * mu_b ** 2 / vb + lr + 0.5 * np.log(va / vb)
    if abs(A) <= 1e-12 * (0.5 / va + 0.5 / vb):        # equal variances: one linear root
        return linear(pooled)
    disc = B * B - 4.0 * A * C
    if disc < 0:
        return linear(pooled)
    q = -0.5 * (B + np.copysign(np.sqrt(disc), B))
    roots = [q / A] + ([C / q] if q != 0 else [])
    lo, hi = min(mu_a, mu_b), max(mu_a, mu_b)
    inside = [r for r in roots if lo <= r <= hi]
    pool = inside if inside else roots
    return float(min(pool, key=lambda r: abs(r - mid)))


class FisherDiscriminant(_Classifier):
    """Fisher's linear discriminant (PRML §4.1.4 two classes, §4.1.6 K classes).

    Two classes: the direction ``w ∝ S_W^{-1} (m_1 - m_0)`` (eq. 4.30, oriented so
    that ``classes_[1]`` projects higher) and a threshold on ``y = w^T x``.
    K classes: the projection onto the leading eigenvectors of ``S_W^{-1} S_B``
    (at most K-1), then classification in the projected space.

    Parameters
    ----------
    n_components : int, optional
        Number of discriminant directions, ``1 <= n_components <= min(K-1, d)``
        (default ``min(K-1, d)``).  Used by ``transform``; the K-class classifier
        works in this subspace.
    threshold : {'gaussian', 'midpoint'}, default 'gaussian'
        Two classes: ``'gaussian'`` fits a 1-D Gaussian (own mean and variance) to
        each projected class, weights them by the class priors and puts the
        threshold where they cross between the projected means (see
        :func:`_gaussian_threshold`); ``'midpoint'`` uses ``w^T (m_0 + m_1) / 2``.
        K classes: ``'gaussian'`` assigns ``argmax_k  -||z - nu_k||^2 / 2 + ln
        pi_k`` in the projected space ``z`` (a Gaussian with the identity
        covariance there, which is the projected within-class covariance since the
        directions are normalised to ``W^T Sigma_W W = I``); ``'midpoint'`` drops
        the priors (nearest projected class mean).
    shrinkage : 'auto' or float in [0, 1], default 'auto'
        Shrinkage of the pooled within-class covariance ``Sigma_W = S_W / N``
        (see the module docstring).

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    priors_ : ndarray of shape (K,)
    means_ : ndarray of shape (K, n_features)
        Class means ``m_k``.
    xbar_ : ndarray of shape (n_features,)
        Overall mean ``m``.
    scalings_ : ndarray of shape (n_features, n_components)
        Discriminant directions (eigenvectors of ``Sigma_W^{-1} Sigma_B``),
        normalised so that ``scalings_.T @ Sigma_W @ scalings_ = I`` (``Sigma_W``
        shrunk as fitted), in decreasing order of ``J``; for K > 2 each column's
        largest-magnitude entry is positive.  A direction whose eigenvalue is zero
        (class means on a lower-dimensional subspace, so fewer than K-1
        discriminating directions exist) is returned as a zero column.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        Eigenvalues of ``Sigma_W^{-1} Sigma_B`` kept, over their sum.
    coef_ : ndarray of shape (1, n_features) or (K, n_features)
    intercept_ : ndarray of shape (1,) or (K,)
        The classifier as a linear function of ``x`` (two classes:
        ``coef_[0] = scalings_[:, 0]`` and ``intercept_ = -threshold``).
    threshold_ : float
        Two classes only: the threshold on ``w^T x``.
    within_scatter_ : ndarray of shape (n_features, n_features)
        ``S_W`` (eq. 4.28 / 4.40), unshrunk.
    between_scatter_ : ndarray of shape (n_features, n_features)
        ``S_B``: eq. 4.27 for two classes, eq. 4.46 for K > 2 (rank <= K-1).
    shrinkage_ : float
        Shrinkage used.
    n_features_in_ : int
    """

    def __init__(self, *, n_components=None, threshold="gaussian", shrinkage="auto"):
        self.n_components = n_components
        self.threshold = threshold
        self.shrinkage = shrinkage

    def fit(self, X, y):
        """Find the discriminant directions and the classifier.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        self
        """
        threshold = _check_choice(self.threshold, "threshold", ("gaussian", "midpoint"))
        shrinkage = _check_shrinkage(self.shrinkage)
        X, classes, yi = _check_X_y(X, y)
        n, d = X.shape
        K = len(classes)
        q_max = min(K - 1, d)
        q = self.n_components
        if q is None:
            q = q_max
        elif isinstance(q, (bool, np.bool_)) or not isinstance(q, numbers.Integral) or not 1 <= q <= q_max:
            raise InputError(f"n_components must be an integer in [1, min(K-1, d)] = [1, {q_max}]; got {q!r}")
        q = int(q)

        counts, means = _class_means(X, yi, K)
        priors = counts / n
        xbar = priors @ means
        Sw = _scatter(X - means[yi])
        # Sigma_B = M^T M with the K rows of M below, so the eigenvectors of
        # Sigma_W^{-1} Sigma_B with non-zero eigenvalue lie in the span of
        # Y = Sigma_W^{-1} M^T: v = Y a with G a = lambda a, G = M Y (K x K), and
        # v^T Sigma_W v = a^T G a = lambda.  One solve instead of a d x d eigenproblem.
        M = np.sqrt(priors)[:, None] * (means - xbar)
        Y, _, s = _solve_covariance(Sw / n, M.T, shrinkage, "the within-class covariance")
        G = M @ Y
        ev, A = np.linalg.eigh(0.5 * (G + G.T))
        ev, A = np.maximum(ev[::-1], 0.0), A[:, ::-1]
        live = ev[:q] > K * _EPS * max(ev[0], np.finfo(float).tiny)
        scal = np.zeros((d, q))
        scal[:, live] = (Y @ A[:, :q][:, live]) / np.sqrt(ev[:q][live])
        if K == 2:
            if scal[:, 0] @ (means[1] - means[0]) < 0:
                scal = -scal
        else:
            big = np.abs(scal).argmax(axis=0)
            top = scal[big, np.arange(q)]
            scal = scal * np.where(top < 0, -1.0, 1.0)

        self.classes_ = classes
        self.n_features_in_ = d
        self.priors_ = priors
        self.means_ = means
        self.xbar_ = xbar
        self.scalings_ = scal
        total = ev.sum()
        self.explained_variance_ratio_ = ev[:q] / total if total > 0 else np.zeros(q)
        self.shrinkage_ = s
        self.within_scatter_ = Sw
        self.__dict__.pop("threshold_", None)                  # from an earlier two-class fit
        if K == 2:
            dm = means[1] - means[0]
            self.between_scatter_ = np.outer(dm, dm)
            w = scal[:, 0]
            proj = X @ w
            mu = means @ w
            var = np.array([proj[yi == c].var() for c in range(2)])
            if threshold == "midpoint":
                thr = 0.5 * (mu[0] + mu[1])
            else:
                thr = _gaussian_threshold(mu[0], var[0], priors[0], mu[1], var[1], priors[1])
            self.threshold_ = float(thr)
            self.coef_ = w[None, :].copy()
            self.intercept_ = np.array([-thr])
        else:
            D = counts[:, None] ** 0.5 * (means - xbar)
            self.between_scatter_ = D.T @ D
            nu = (means - xbar) @ scal                        # projected class means
            coef = nu @ scal.T
            intercept = -coef @ xbar - 0.5 * (nu ** 2).sum(axis=1)
            if threshold == "gaussian":
                intercept = intercept + np.log(priors)
            self.coef_ = coef
            self.intercept_ = intercept
        if not (np.isfinite(self.coef_).all() and np.isfinite(self.intercept_).all()):
            raise InputError("Fisher discriminant is not finite (inputs too large?)")
        return self

    def __sklearn_tags__(self):
        """As for every classifier here, plus: a transformer (``transform``) to float64."""
        from sklearn.utils import TransformerTags

        tags = super().__sklearn_tags__()
        tags.transformer_tags = TransformerTags(preserves_dtype=["float64"])
        return tags

    def fit_transform(self, X, y):
        """``fit(X, y)`` then ``transform(X)``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        return self.fit(X, y).transform(X)

    def transform(self, X):
        """Project onto the discriminant directions.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            ``(X - xbar_) @ scalings_``.
        """
        X = self._check_X(X)
        return (X - self.xbar_) @ self.scalings_

    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, K)
            Two classes: ``w^T x - threshold_``; K classes: the class scores
            described under ``threshold``.
        """
        return self._linear_decision(X)

    def criterion(self, w):
        """Fisher's criterion ``J`` of a direction or a set of directions.

        ``J(W) = Tr[(W^T S_W W)^{-1} (W^T S_B W)]`` (eq. 4.50), which for a single
        direction is ``J(w) = w^T S_B w / w^T S_W w`` (eq. 4.26); ``S_B`` is eq. 4.27
        for two classes and eq. 4.46 for K > 2, and ``S_W`` is the within-class
        scatter shrunk as in ``fit`` (so ``scalings_`` maximises it).

        Parameters
        ----------
        w : array_like of shape (n_features,) or (n_features, q)

        Returns
        -------
        float
        """
        self._check_is_fitted()
        try:
            W = np.asarray(w, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InputError(f"w must be an array of real numbers: {exc}") from None
        if W.ndim == 1:
            W = W[:, None]
        d = self.n_features_in_
        if W.ndim != 2 or W.shape[0] != d or W.shape[1] < 1:
            raise InputError(f"w must have shape ({d},) or ({d}, q); got {np.shape(w)}")
        if not np.isfinite(W).all():
            raise InputError("w contains NaN or infinity")
        Sw = _shrunk(self.within_scatter_, self.shrinkage_, _target_scale(self.within_scatter_))
        A = W.T @ Sw @ W
        Bm = W.T @ self.between_scatter_ @ W
        if W.shape[1] == 1:
            num, den = float(Bm[0, 0]), float(A[0, 0])
            if den <= 0:
                return np.inf if num > 0 else 0.0
            return num / den
        try:
            return float(np.trace(np.linalg.solve(A, Bm)))
        except np.linalg.LinAlgError:
            return float(np.trace(np.linalg.lstsq(A, Bm, rcond=None)[0]))


# ------------------------------------------------------------------------- Gaussian


class GaussianClassifier(_Classifier):
    """Generative classifier with Gaussian class-conditional densities (PRML §4.2.2).

    Priors ``p(C_k) = N_k / N``, class means and covariances by maximum likelihood.
    With a shared covariance ``Sigma`` the posterior is a softmax of the linear
    functions ``a_k = w_k^T x + w_k0`` with ``w_k = Sigma^{-1} mu_k`` and
    ``w_k0 = -mu_k^T Sigma^{-1} mu_k / 2 + ln p(C_k)`` (eq. 4.68-4.70); with one
    covariance per class it is quadratic (QDA).

    Parameters
    ----------
    covariance : {'shared', 'separate'}, default 'shared'
    shrinkage : 'auto' or float in [0, 1], default 'auto'
        Shrinkage of the covariance(s) (see the module docstring; the same
        parametrisation as scikit-learn's ``LinearDiscriminantAnalysis``).  With
        ``'separate'`` each class covariance is shrunk toward its own
        ``trace/d`` (the pooled one's if the class has zero variance), and an
        explicit ``0`` on a singular class covariance is raised to ``1e-3`` with
        a warning, since its density is undefined.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    priors_ : ndarray of shape (K,)
    means_ : ndarray of shape (K, n_features)
    covariance_ : ndarray of shape (n_features, n_features)
        Shared covariance as used (after shrinkage); ``'shared'`` only.
    covariances_ : ndarray of shape (K, n_features, n_features)
        Class covariances as used; ``'separate'`` only.
    coef_ : ndarray of shape (1, n_features) or (K, n_features)
    intercept_ : ndarray of shape (1,) or (K,)
        ``'shared'`` only.  K classes: ``w_k``, ``w_k0``; two classes: the log-odds
        ``a_1 - a_0`` as one linear function (eq. 4.66-4.67 with C1 =
        ``classes_[1]``), as in scikit-learn.
    shrinkage_ : float or ndarray of shape (K,)
        Shrinkage used (one per class for ``'separate'``).
    n_features_in_ : int
    """

    def __init__(self, *, covariance="shared", shrinkage="auto"):
        self.covariance = covariance
        self.shrinkage = shrinkage

    def fit(self, X, y):
        """Estimate priors, means and covariance(s).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        self
        """
        covariance = _check_choice(self.covariance, "covariance", ("shared", "separate"))
        shrinkage = _check_shrinkage(self.shrinkage)
        X, classes, yi = _check_X_y(X, y)
        n, d = X.shape
        K = len(classes)
        counts, means = _class_means(X, yi, K)
        priors = counts / n
        Xc = X - means[yi]
        for attr in ("covariance_", "covariances_", "coef_", "intercept_", "_xbar", "_coef_c",
                     "_intercept_c", "_whiteners", "_logdets"):
            self.__dict__.pop(attr, None)
        if covariance == "shared":
            Sigma = _scatter(Xc) / n
            # scores are computed about the overall mean xbar (a_k up to a term
            # common to all classes), so an offset like X + 1e10 cancels before
            # the products; coef_ and intercept_ are the uncentred eq. 4.69-4.70
            xbar = priors @ means
            mc = means - xbar
            Z, used, s = _solve_covariance(Sigma, np.c_[mc.T, xbar], shrinkage, "the pooled covariance")
            coef_c, v = Z[:, :K].T, Z[:, K]                   # Sigma^{-1}(mu_k - xbar), Sigma^{-1} xbar
            intercept_c = -0.5 * np.einsum("kd,kd->k", mc, coef_c) + np.log(priors)
            coef = coef_c + v                                  # w_k = Sigma^{-1} mu_k
            intercept = intercept_c - coef_c @ xbar - 0.5 * float(xbar @ v)
            if not (np.isfinite(coef).all() and np.isfinite(intercept).all()):
                raise InputError("Gaussian classifier is not finite (inputs too large?)")
            self.covariance_ = used
            self.shrinkage_ = s
            self._xbar, self._coef_c, self._intercept_c = xbar, coef_c, intercept_c
            if K == 2:
                self.coef_ = (coef_c[1] - coef_c[0])[None, :]
                self.intercept_ = np.array([intercept_c[1] - intercept_c[0] - self.coef_[0] @ xbar])
            else:
                self.coef_, self.intercept_ = coef, intercept
        else:
            pooled_mu = float(np.einsum("ij,ij->", Xc, Xc)) / (n * d)   # trace/d, pooled
            covs, whiteners, logdets, shr = [], [], [], []
            for c in range(K):
                Xk = Xc[yi == c]
                Sk = _scatter(Xk) / counts[c]
                used, A, logdet, s = _eigh_covariance(Sk, shrinkage, f"the covariance of class {classes[c]!r}",
                                                      fallback_scale=pooled_mu)
                covs.append(used)
                whiteners.append(A)
                logdets.append(logdet)
                shr.append(s)
            self.covariances_ = np.array(covs)
            self._whiteners = np.array(whiteners)
            self._logdets = np.array(logdets)
            self.shrinkage_ = np.array(shr)
            if not (np.isfinite(self._whiteners).all() and np.isfinite(self._logdets).all()):
                raise InputError("Gaussian classifier is not finite (inputs too large?)")
        self.classes_ = classes
        self.n_features_in_ = d
        self.priors_ = priors
        self.means_ = means
        return self

    def _scores(self, X):
        """Log joint densities up to a common term, shape (n_samples, K)."""
        X = self._check_X(X)
        if hasattr(self, "_coef_c"):                         # shared covariance
            return (X - self._xbar) @ self._coef_c.T + self._intercept_c
        out = np.empty((X.shape[0], len(self.classes_)))
        for c in range(len(self.classes_)):
            z = (X - self.means_[c]) @ self._whiteners[c]
            out[:, c] = -0.5 * np.einsum("ij,ij->i", z, z) - 0.5 * self._logdets[c] + np.log(self.priors_[c])
        return out

    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, K)
            Two classes: the log-odds ``ln p(C_1|x) / p(C_0|x)``; K classes: the
            log joint densities ``a_k`` up to a term common to all classes.
        """
        a = self._scores(X)
        return a[:, 1] - a[:, 0] if a.shape[1] == 2 else a

    def predict_log_proba(self, X):
        """Log posterior probabilities by a stable log-softmax.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, K)

        Raises
        ------
        ValueError
            If the decision values overflow float64 (inputs far beyond the
            training data, around 1e150 for the quadratic model).
        """
        return _log_softmax(self._scores(X))

    def predict_proba(self, X):
        """Posterior probabilities ``p(C_k | x)``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, K)
            Rows sum to one.
        """
        return np.exp(self.predict_log_proba(X))


# ------------------------------------------------------------------------ perceptron


class Perceptron(_Classifier):
    """Rosenblatt's perceptron with fixed-increment error correction (PRML §4.1.7).

    Trained by the loop of :func:`mark1.perceptron.train_error_correction`, the
    same core as the machine's ideal digital path (with the bias input 1 kept
    implicit rather than appended to a copy of ``X``).  Two classes: one unit with target +1 for
    ``classes_[1]`` and -1 otherwise.  K classes (``multiclass='ovr'``): one unit
    per class (one-vs-rest, +-1 targets); the prediction is the largest decision.

    Parameters
    ----------
    eta : float, default 1.0
        Increment (> 0).
    epochs : int, default 100
        Maximum number of passes over the training set; training never runs longer.
    shuffle : bool, default False
        Present the cards of each epoch in a random order
        (``np.random.default_rng(seed).permutation(n)`` per epoch); otherwise in
        the order given (like a deck of cards).
    seed : int or None, default None
        Seed of the shuffling Generator.
    fit_intercept : bool, default True
        Append a constant bias feature 1 (its weight is ``intercept_``).
    multiclass : {'ovr'}, default 'ovr'
    eta_schedule : {None, 'inverse'}, default None
        ``'inverse'``: ``eta / j`` for the ``j``-th update of each unit.
    average : bool, default False
        Use the average of the weight vector over all presentations (exact; see
        :func:`mark1.perceptron.averaged_weights`) instead of the final one.
    stop_when_converged : bool, default True
        Stop after the first epoch without a mistake.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    coef_ : ndarray of shape (1, n_features) or (K, n_features)
    intercept_ : ndarray of shape (1,) or (K,)
    n_mistakes_ : int
        Presentations on which at least one unit erred (= updates for two classes).
    mistakes_per_epoch_ : ndarray of shape (n_epochs_,)
    converged_ : bool
        Some epoch went by without a mistake (the training set is separated).
    n_epochs_ : int
        Epochs run.
    n_features_in_ : int

    Notes
    -----
    With ``shuffle=False``, ``eta=1`` and no averaging this is exactly
    scikit-learn's ``Perceptron(shuffle=False, tol=None, eta0=1, max_iter=epochs)``
    (same zero-margin rule, ``t * (w.x + b) <= 0`` is a mistake, same bias update);
    on integer-valued data the weights are identical.
    """

    def __init__(self, *, eta=1.0, epochs=100, shuffle=False, seed=None, fit_intercept=True,
                 multiclass="ovr", eta_schedule=None, average=False, stop_when_converged=True):
        self.eta = eta
        self.epochs = epochs
        self.shuffle = shuffle
        self.seed = seed
        self.fit_intercept = fit_intercept
        self.multiclass = multiclass
        self.eta_schedule = eta_schedule
        self.average = average
        self.stop_when_converged = stop_when_converged

    def fit(self, X, y):
        """Train by error correction.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        self
        """
        eta = _check_real(self.eta, "eta", low=0.0, low_open=True)
        epochs = self.epochs
        if isinstance(epochs, (bool, np.bool_)) or not isinstance(epochs, numbers.Integral) or epochs < 1:
            raise InputError(f"epochs must be an integer >= 1; got {epochs!r}")
        _check_choice(self.multiclass, "multiclass", ("ovr",))
        if self.eta_schedule not in (None, "inverse"):
            raise InputError(f"eta_schedule must be None or 'inverse'; got {self.eta_schedule!r}")
        for name in ("shuffle", "fit_intercept", "average", "stop_when_converged"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise InputError(f"{name} must be a bool; got {getattr(self, name)!r}")
        X, classes, yi = _check_X_y(X, y)
        n, d = X.shape
        K = len(classes)
        if K == 2:
            T = np.where(yi == 1, 1.0, -1.0)[:, None]
        else:
            T = np.full((n, K), -1.0)
            T[np.arange(n), yi] = 1.0
        epochs = int(epochs)
        stop = bool(self.stop_when_converged)

        def train(order, n_epochs):
            # the bias input 1 stays implicit (no augmented copy of X) and the sums
            # are not kept (8 k bytes per presentation); the loop is the same
            if self.fit_intercept:
                return _train_with_bias(X, T, epochs=n_epochs, eta=eta, order=order,
                                        stop_when_converged=stop, eta_schedule=self.eta_schedule,
                                        record_sums=False)
            return train_error_correction(X, T, epochs=n_epochs, eta=eta, order=order,
                                          stop_when_converged=stop, eta_schedule=self.eta_schedule)

        # one BLAS thread: the core multiplies small blocks of cards in a loop
        # (mark1.threads; issue 10: 3-8x scikit-learn's time under load otherwise)
        if not self.shuffle:
            with one_blas_thread():
                res = train(None, epochs)
        else:
            # One permutation per epoch from one stream.  Orders are drawn only for
            # the epochs a run may need: first 4 epochs, and while training has not
            # converged 4x as many again, replaying the stream from its start (the
            # same orders, so the same run as drawing all epochs up front, at most
            # 4/3 of the training work).  Before: every epoch drawn up front, 1.5 GB
            # and 5 s for epochs=20000 on a problem that converges in 2 (issue 10).
            rng = np.random.default_rng(self.seed)
            start = rng.bit_generator.state
            n_epochs = epochs if not stop else min(epochs, 4)
            while True:
                rng.bit_generator.state = start
                order = np.empty((n_epochs, n), dtype=np.intp)
                for e in range(n_epochs):
                    order[e] = rng.permutation(n)
                with one_blas_thread():
                    res = train(order, n_epochs)
                if res.converged or n_epochs == epochs:
                    break
                n_epochs = min(epochs, 4 * n_epochs)
        W = res.weights
        if self.average:
            W = _average(res, X, T, eta=eta, eta_schedule=self.eta_schedule, w0=None,
                         bias=bool(self.fit_intercept))
        self.classes_ = classes
        self.n_features_in_ = d
        self.coef_ = np.ascontiguousarray(W[:, :d])
        self.intercept_ = W[:, d].copy() if self.fit_intercept else np.zeros(W.shape[0])
        self.mistakes_per_epoch_ = res.mistakes_per_epoch
        self.n_mistakes_ = int(res.mistakes_per_epoch.sum())
        self.converged_ = res.converged
        self.n_epochs_ = res.epochs_run
        return self

    def decision_function(self, X):
        """Decision values ``w_k . x + b_k``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, K)
        """
        return self._linear_decision(X)


# ---------------------------------------------------------------- logistic regression


def _newton_direction(Phi, Yk, G, explicit, alpha):
    """Solve ``H s = G`` for the Newton step of the softmax cross-entropy.

    ``Yk`` (n, k) are the posteriors of the k free classes (1..K-1 when class 0
    is the reference with weights 0; all K with a penalty), ``G`` (k, p) the
    gradient for them, and ``H`` the Hessian of eq. 4.110 restricted to them:
    blocks ``H_jl = Phi^T diag(y_j (delta_jl - y_l)) Phi``, plus ``alpha`` on the
    diagonal of every weight but the bias (the last column of ``Phi``).  ``explicit``: the Hessian is
    formed and solved (Cholesky test, minimum-norm least squares when it is
    singular, e.g. a constant input beside the bias).  Otherwise conjugate
    gradients on Hessian-vector products (two products with ``Phi``, no
    ``(K-1) p`` square matrix), Jacobi-preconditioned, to a relative residual
    ``min(0.1, sqrt(|G|))`` (an inexact Newton step, still superlinear).
    """
    k, p = G.shape
    mask = np.ones(p)
    mask[-1] = 0.0                                      # the bias is not penalised
    if explicit:
        H = np.empty((k * p, k * p))
        for j in range(k):
            for l in range(j, k):
                if j == l:
                    Q = Phi * np.sqrt(Yk[:, j] * (1.0 - Yk[:, j]))[:, None]
                    block = Q.T @ Q                            # syrk: half the work
                else:
                    block = (Phi * (-Yk[:, j] * Yk[:, l])[:, None]).T @ Phi
                H[j * p:(j + 1) * p, l * p:(l + 1) * p] = block
                H[l * p:(l + 1) * p, j * p:(j + 1) * p] = block.T
        H.flat[::k * p + 1] += alpha * np.tile(mask, k)
        g = G.ravel()
        s = _equilibrated_solve(H, g[:, None])
        if s is None:
            s = np.linalg.lstsq(H, g, rcond=None)[0]
        return s.reshape(k, p)

    def hess(V):
        C = Yk * (Phi @ V.T)
        C -= Yk * C.sum(axis=1, keepdims=True)
        return C.T @ Phi + alpha * (V * mask)

    diag = (Yk * (1.0 - Yk)).T @ (Phi * Phi) + alpha * mask
    diag = 1.0 / np.maximum(diag, _EPS * max(float(diag.max()), np.finfo(float).tiny))
    gnorm = float(np.sqrt(np.sum(G * G)))
    goal = min(0.1, np.sqrt(gnorm)) * gnorm
    S = np.zeros_like(G)
    R = G.copy()
    Z = diag * R
    D = Z.copy()
    rz = float(np.sum(R * Z))
    for _ in range(min(k * p, 500)):
        HD = hess(D)
        dHd = float(np.sum(D * HD))
        if dHd <= 0:                                        # flat direction (singular H)
            break
        step = rz / dHd
        S += step * D
        R -= step * HD
        if float(np.sqrt(np.sum(R * R))) <= goal:
            break
        Z = diag * R
        rz_new = float(np.sum(R * Z))
        D = Z + (rz_new / rz) * D
        rz = rz_new
    return S if S.any() else diag * G


class LogisticRegression(_Classifier):
    """Logistic regression by iterative reweighted least squares (PRML §4.3.2-4.3.4).

    Maximum likelihood as in the book (optionally a Gaussian prior).  Two classes:
    ``p(C_1 | x) = sigma(w^T x + w_0)`` (eq. 4.87) with ``C_1 = classes_[1]``; K
    classes: the softmax of ``a_k = w_k^T x + w_k0`` (eq. 4.104).  Both are fitted
    by Newton-Raphson on the cross-entropy (eq. 4.90, 4.108): for two classes
    each step is the weighted least-squares problem of IRLS (eq. 4.99-4.100,
    weights ``R = diag(y (1 - y))``); for K classes the same Newton step with the
    block Hessian of eq. 4.110 (the book's choice in §4.3.4, one joint softmax
    model, not K one-vs-rest fits).  Class 0's weights are held at zero during the
    fit (the softmax is unchanged by adding one vector to every ``w_k``, so the
    Hessian over all K classes is singular); afterwards the K weight vectors are
    shifted to sum to zero, the solution scikit-learn's
    ``LogisticRegression(penalty=None)`` converges to.

    Parameters
    ----------
    alpha : float, default 0.0
        Optional penalty ``alpha/2 ||w||^2`` on the weights (not the biases):
        the MAP solution under an isotropic Gaussian prior, the remedy of §4.3.2
        for separable data (scikit-learn's ``C = 1/alpha``; for K > 2 every
        class's vector is penalised, as in scikit-learn's multinomial model).
        ``0``: maximum likelihood, as in the book.
    max_iter : int, default 100
        Maximum number of Newton steps.
    tol : float, default 1e-14
        Stop when half the Newton decrement ``g^T H^{-1} g / 2`` (an estimate of
        how far the cross-entropy is above its minimum) is at most
        ``tol * max(1, E)``, or when a step no longer lowers ``E`` in float64.
        Newton converges quadratically, so the tight default costs one or two
        steps (with 1e-10 the weights agreed with scikit-learn's to 7e-6 only).
    newton : {'auto', 'explicit', 'cg'}, default 'auto'
        How each Newton system is solved: ``'explicit'`` forms the
        ``(K-1)(d+1)`` square Hessian (the book's IRLS; cost ``n (K-1)^2 d^2 / 2``
        per step), ``'cg'`` uses conjugate gradients on Hessian-vector products
        (cost ``4 n (K-1) d`` per CG iteration); ``'auto'`` forms it when
        ``(K-1)(d+1) <= EXPLICIT_HESSIAN_MAX`` (200).  Measured on 10,000 x 512
        binary features, two classes, ``alpha=1`` (loaded 2-core machine): 15.1 s
        explicit, 7.1 s CG, with weights equal to 1e-9 (the threshold was 1024
        before that measurement).

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    coef_ : ndarray of shape (1, n_features) for two classes, else (K, n_features)
    intercept_ : ndarray of shape (1,) or (K,)
    n_iter_ : int
        Newton steps taken.
    converged_ : bool
        The tolerance was met.
    separable_ : bool
        Training stopped because the current weights classify every training
        sample correctly: the data are linearly separable, the likelihood has no
        maximum (``||w|| -> inf``, PRML §4.3.2) and the weights returned are the
        separating ones found, with a :class:`SeparableDataWarning`.
    n_features_in_ : int

    Notes
    -----
    The inputs are centred before the fit (the bias is recovered afterwards),
    so large offsets do not cancel in the products.  A data set that is only
    partly separable (some class separable from the rest) has no finite
    maximum either; there the fit stops at ``max_iter`` with a
    :class:`ConvergenceWarning` and large weights.

    Cost (``benchmarks/bench_baselines.py``, 10,000 x 512 binary features,
    ``alpha=1``, loaded 2-core machine): 2 classes 5.0 s, 8 classes 98 s, against
    1.3 s and 30 s for scikit-learn's L-BFGS at its default ``tol=1e-4``, whose
    weights stop 0.2-0.5 away from the optimum these reach (99.6 % and 99.1 % of
    the test predictions equal).  Most of the time goes to the last Newton steps,
    which the tight ``tol`` asks for.
    """

    def __init__(self, *, alpha=0.0, max_iter=100, tol=1e-14, newton="auto"):
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.newton = newton

    def fit(self, X, y):
        """Fit by Newton-Raphson (IRLS).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        self
        """
        max_iter = self.max_iter
        if isinstance(max_iter, (bool, np.bool_)) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
            raise InputError(f"max_iter must be an integer >= 1; got {max_iter!r}")
        tol = _check_real(self.tol, "tol", low=0.0)
        alpha = _check_real(self.alpha, "alpha", low=0.0)
        newton = _check_choice(self.newton, "newton", ("auto", "explicit", "cg"))
        X, classes, yi = _check_X_y(X, y)
        n, d = X.shape
        K = len(classes)
        # free classes: 1..K-1 (class 0 the reference), or all K with a penalty on
        # K > 2 classes (the penalty then fixes the softmax's free shift, and
        # penalising all K vectors is scikit-learn's multinomial model)
        start = 0 if alpha > 0 and K > 2 else 1
        k = K - start
        xbar = X.mean(axis=0)
        Phi = np.empty((n, d + 1))
        np.subtract(X, xbar, out=Phi[:, :d])
        Phi[:, d] = 1.0
        explicit = newton == "explicit" or (newton == "auto" and k * (d + 1) <= EXPLICIT_HESSIAN_MAX)
        rows = np.arange(n)
        T = np.zeros((n, K))
        T[rows, yi] = 1.0

        def forward(W):
            A = np.zeros((n, K))
            A[:, start:] = Phi @ W.T
            logp = _log_softmax(A)
            penalty = 0.5 * alpha * float(np.sum(W[:, :d] ** 2)) if alpha > 0 else 0.0
            return A, float(-logp[rows, yi].sum()) + penalty, logp

        W = np.zeros((k, d + 1))
        A, E, logp = forward(W)
        converged = separable = False
        it = 0
        while it < max_iter:
            it += 1
            Y = np.exp(logp)
            G = (Y[:, start:] - T[:, start:]).T @ Phi          # gradient, eq. 4.96 / 4.109
            if alpha > 0:
                G[:, :d] += alpha * W[:, :d]
            S = _newton_direction(Phi, Y[:, start:], G, explicit, alpha)
            dec = float(np.sum(G * S))                          # Newton decrement squared
            if not np.isfinite(dec) or dec <= 0:
                S, dec = G, float(np.sum(G * G))                # fall back to steepest descent
            if dec / 2 <= tol * max(1.0, E):
                converged = True
                break
            t = 1.0                                             # backtracking (Armijo)
            while True:
                A_new, E_new, logp_new = forward(W - t * S)
                if E_new <= E - 1e-4 * t * dec:
                    break
                t *= 0.5
                if t < 1e-10:
                    break
            if not E_new < E:                                   # no progress at float64 precision
                converged = True
                break
            W = W - t * S
            A, E, logp = A_new, E_new, logp_new
            others = A.copy()
            others[rows, yi] = -np.inf
            if alpha == 0 and (A[rows, yi] > others.max(axis=1)).all():
                separable = True
                break
        if separable:
            warnings.warn(
                f"the training data are linearly separable (every sample classified correctly "
                f"after {it} Newton step{'s' if it > 1 else ''}): maximum likelihood has no finite solution (PRML "
                f"§4.3.2); returning the separating weights found. Use a Gaussian prior "
                f"(alpha > 0) for a finite solution.", SeparableDataWarning, stacklevel=2)
        elif not converged:
            warnings.warn(
                f"Newton-Raphson did not converge in max_iter={max_iter} steps (cross-entropy "
                f"{E:.6g}; data partly separable?). Increase max_iter or check the data.",
                ConvergenceWarning, stacklevel=2)
        full = np.zeros((K, d + 1))
        full[start:] = W
        if K == 2:
            coef, bias = W[:, :d], W[:, d]
        else:
            full -= full.mean(axis=0)                          # sum-to-zero, as scikit-learn
                                                                # (with a penalty: the biases)
            coef, bias = full[:, :d], full[:, d]
        self.classes_ = classes
        self.n_features_in_ = d
        self.coef_ = np.ascontiguousarray(coef)
        self.intercept_ = bias - coef @ xbar
        self._xbar, self._intercept_c = xbar, bias.copy()      # scores about the mean (no cancellation)
        self.n_iter_ = it
        self.converged_ = converged
        self.separable_ = separable
        if not (np.isfinite(self.coef_).all() and np.isfinite(self.intercept_).all()):
            raise InputError("logistic regression is not finite (inputs too large?)")
        return self

    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, K)
            Two classes: the log-odds ``ln p(C_1|x) / p(C_0|x)``; K classes: the
            activations ``a_k`` (eq. 4.105).
        """
        X = self._check_X(X)
        scores = (X - self._xbar) @ self.coef_.T + self._intercept_c
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict_log_proba(self, X):
        """Log posterior probabilities by a stable log-softmax.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, K)
        """
        a = self.decision_function(X)
        if a.ndim == 1:
            a = np.c_[np.zeros_like(a), a]
        return _log_softmax(a)

    def predict_proba(self, X):
        """Posterior probabilities ``p(C_k | x)`` (eq. 4.87 / 4.104).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, K)
            Rows sum to one.
        """
        return np.exp(self.predict_log_proba(X))
