"""Exceptions shared by mark1's estimators (imports nothing from mark1).

:class:`NotFittedError` is raised when an estimator (a baseline, or the machine)
is used before ``fit``.  When scikit-learn is installed it is a subclass of
``sklearn.exceptions.NotFittedError``, so ``except
sklearn.exceptions.NotFittedError`` and scikit-learn's own tools catch it;
without scikit-learn it is a subclass of ``ValueError`` and ``AttributeError``
(the bases scikit-learn's class has).

Importing scikit-learn costs seconds (it imports scipy), so this module does
not do it at import time: the class is built on first access
(``mark1.errors.NotFittedError``, PEP 562 module ``__getattr__``), and only that
first access imports ``sklearn.exceptions``.  It is built once; every later
access returns the same class (pickling finds it by name the same way).
"""

from __future__ import annotations

__all__ = ["NotFittedError"]

_cache: dict[str, type] = {}


def _build_not_fitted_error() -> type:
    try:
        from sklearn.exceptions import NotFittedError as base
        bases: tuple[type, ...] = (base,)
    except ImportError:
        bases = (ValueError, AttributeError)
    doc = ("The estimator was used before ``fit`` (a subclass of scikit-learn's "
           "``NotFittedError`` when scikit-learn is installed).")
    return type("NotFittedError", bases, {"__module__": __name__, "__doc__": doc,
                                          "__qualname__": "NotFittedError"})


def __getattr__(name: str):
    if name == "NotFittedError":
        if name not in _cache:
            _cache[name] = _build_not_fitted_error()
        return _cache[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
