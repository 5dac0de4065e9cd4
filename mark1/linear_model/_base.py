"""What every textbook classifier shares: parameters, scikit-learn's tags, the fitted
check, and prediction and accuracy from ``decision_function``."""

from __future__ import annotations

from typing import Any, Self

import numpy as np
import numpy.typing as npt

from mark1._utils.estimator import ParamsMixin
from mark1 import exceptions
from mark1.exceptions import InputError
from mark1.linear_model._validation import _check_array, _check_labels, _check_X_y


def _log_softmax(a):
    """``log softmax`` of the rows of ``a`` (n, K), shifted by the row maximum."""
    with np.errstate(invalid="ignore", over="ignore"):
        amax = a.max(axis=1, keepdims=True)
        z = a - amax
        out = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    if not np.isfinite(amax).all() or np.isnan(out).any():
        raise InputError("decision values overflowed (inputs too large for float64)")
    return out


class _Classifier(ParamsMixin):
    """Parameters, fit, fitted-state check, prediction from ``decision_function``, score.

    A classifier supplies ``_check_params`` (its parameters checked, before the data)
    and ``_fit`` (the learning, on checked data); ``_decision`` defaults to the linear
    function ``X @ coef_.T + intercept_`` (one column for two classes, returned as
    shape (n_samples,)). Warnings raised in ``_fit`` take ``stacklevel=3`` to point at
    the caller of ``fit``.
    """

    def _check_params(self) -> dict:
        """The parameters, checked and converted: keyword arguments of ``_fit``."""
        return {}

    # set by fit (coef_ and intercept_ by each classifier's _fit)
    classes_: np.ndarray
    n_features_in_: int
    coef_: npt.NDArray[np.float64]
    intercept_: npt.NDArray[np.float64]

    # (*args: Any, **params: Any): each classifier's _fit takes its own keyword arguments
    def _fit(self, *args: Any, **params: Any) -> None:
        """Learn from checked data: ``X`` float64 (n, d), ``yi`` (n,) each sample's index
        into ``classes``, the K >= 2 sorted labels."""
        raise NotImplementedError

    def fit(self, X: npt.ArrayLike, y: npt.ArrayLike) -> Self:
        """Fit the classifier to training data.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs: dense, real, finite.
        y : array_like of shape (n_samples,)
            Class labels (at least two classes; any comparable labels: ints, strings).

        Returns
        -------
        self
            The fitted classifier.
        """
        params = self._check_params()
        Xc, classes, yi = _check_X_y(X, y)
        self._fit(Xc, yi, classes, **params)
        self.classes_ = classes
        self.n_features_in_ = Xc.shape[1]
        return self

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
        # NotFittedError is built on first use (a subclass of scikit-learn's when that
        # is installed), so it is looked up here, not imported at the top
        if not hasattr(self, "classes_"):
            raise exceptions.NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit(X, y) first")

    def _check_X(self, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
        self._check_is_fitted()
        Xc = _check_array(X, "X")
        if Xc.shape[1] != self.n_features_in_:
            raise InputError(f"X has {Xc.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
        return Xc

    def decision_function(self, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Decision values (what each classifier's docstring says they mean).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, K)
            Two classes: a positive value means ``classes_[1]``; K classes: the
            prediction is the largest column.
        """
        return self._decision(self._check_X(X))

    def _decision(self, X):
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X: npt.ArrayLike) -> np.ndarray:
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

    def score(self, X: npt.ArrayLike, y: npt.ArrayLike) -> float:
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


class _ProbabilisticClassifier(_Classifier):
    """A classifier with posterior probabilities: the softmax of per-class log joint
    densities ``_log_joint(X)`` (n_samples, K) of checked ``X``, known up to a term
    common to all classes."""

    def _log_joint(self, X):
        raise NotImplementedError

    def predict_log_proba(self, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Log posterior probabilities ``ln p(C_k | x)`` by a stable log-softmax.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, K)

        Raises
        ------
        InputError
            If the decision values overflow float64 (inputs far beyond the
            training data).
        """
        return _log_softmax(self._log_joint(self._check_X(X)))

    def predict_proba(self, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
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
