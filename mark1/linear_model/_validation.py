"""The input checks every textbook classifier makes, with one-line messages.

Data: a dense real 2-D ``X`` and 1-D class labels ``y`` (:func:`_check_X_y`); sparse
matrices, complex numbers, continuous targets and values whose sums of squares
overflow float64 are refused, naming the fix. Parameters: checked in ``fit`` (the
constructors only store them, as scikit-learn asks).
"""

from __future__ import annotations

import numbers

import numpy as np

from mark1._utils.estimator import all_finite
from mark1.exceptions import InputError, InputTypeError

_FLOAT_MAX = np.finfo(np.float64).max


# ------------------------------------------------------------------------------ data


def _check_array(X, name="X", *, squares=False):
    """``X`` as a float64 array of shape (n_samples, n_features), both >= 1, finite;
    with ``squares``, also refused when its sums of squares overflow (:func:`_check_squares`)."""
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
    if squares:
        _check_squares(X, name)
    elif not all_finite(X):
        raise InputError(f"{name} contains NaN or infinity")
    return X


def _check_squares(X, name="X"):
    """Reject NaN, infinity and inputs whose sums of squares overflow float64 (every fit
    forms them), from the largest and smallest entry: two passes over ``X``, no copy
    (NaN propagates to both, so finite extremes prove every entry finite)."""
    low, high = float(X.min()), float(X.max())
    if not (np.isfinite(low) and np.isfinite(high)):
        raise InputError(f"{name} contains NaN or infinity")
    top = max(high, -low)
    if top * top * X.shape[0] * X.shape[1] > _FLOAT_MAX:
        raise InputError(f"{name} has entries up to {top:.3g}, whose sums of squares overflow float64 "
                         f"(limit about {np.sqrt(_FLOAT_MAX / (X.shape[0] * X.shape[1])):.3g} for "
                         f"{X.shape[0]} x {X.shape[1]}); rescale {name}")


def _check_labels(y, n, name="y"):
    """``y`` as a 1-D array of ``n`` labels without NaN or None."""
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
    """The training data: ``(X, classes, yi)`` with the sorted distinct labels and each
    sample's index into them; at least two classes."""
    X = _check_array(X, "X", squares=True)
    y = _check_labels(y, X.shape[0])
    _check_target_type(y)
    try:
        classes, yi = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise InputError(f"y labels must be mutually comparable: {exc}") from None
    if len(classes) < 2:
        raise InputError(f"y must contain at least two classes; got 1 class: {classes.tolist()!r}")
    return X, classes, yi.reshape(-1)


# ------------------------------------------------------------------------ parameters


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


def _check_int(value, name, *, low=1, high=None, bounds=None):
    """An integer (not a bool) in ``[low, high]``; ``bounds`` words the range in the
    message (default ``>= low``)."""
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < low
            or (high is not None and value > high)):
        raise InputError(f"{name} must be an integer {bounds or f'>= {low}'}; got {value!r}")
    return int(value)


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name} must be a bool; got {value!r}")
    return bool(value)


def _check_shrinkage(shrinkage):
    if isinstance(shrinkage, str):
        if shrinkage != "auto":
            raise InputError(f"shrinkage must be 'auto' or a float in [0, 1]; got {shrinkage!r}")
        return shrinkage
    return _check_real(shrinkage, "shrinkage", low=0.0, high=1.0)
