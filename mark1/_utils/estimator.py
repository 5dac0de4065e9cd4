"""What every estimator of the package shares: scikit-learn's parameter protocol, and a
fast test that an array holds only finite numbers.

scikit-learn's tools (``clone``, ``GridSearchCV``, ``cross_val_score``) rebuild an
estimator from its constructor's arguments: ``get_params`` names them, ``set_params``
changes them. :class:`ParamsMixin` gives both (and a ``repr`` that shows them) to any
class whose ``__init__`` takes keyword-only arguments and stores each under its own
name, without importing scikit-learn.
"""

from __future__ import annotations

import inspect
from typing import Any, Self

import numpy as np

from mark1.exceptions import InputError

__all__ = ["ParamsMixin", "all_finite"]


class ParamsMixin:
    """``get_params``, ``set_params`` and ``repr`` from the keyword-only arguments of ``__init__``.

    The parameters are the keyword-only arguments of the class's ``__init__`` (after
    the bare ``*``), which must store each one, unchanged, in the attribute of the same
    name (scikit-learn's convention: validation happens in ``fit``);
    ``self._store_params(locals())`` does that in one line.

    Examples
    --------
    >>> class Dial(ParamsMixin):
    ...     def __init__(self, *, turns=1, gain=0.5):
    ...         self._store_params(locals())
    >>> d = Dial(turns=3)
    >>> d.turns
    3
    >>> d.get_params()
    {'turns': 3, 'gain': 0.5}
    >>> d.set_params(gain=2.0)
    Dial(turns=3, gain=2.0)
    >>> d.set_params(speed=1)
    Traceback (most recent call last):
    ...
    mark1.exceptions.InputError: 'speed' is not a parameter of Dial; valid: turns, gain
    """

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY]

    def _store_params(self, arguments: dict) -> None:
        """Store each parameter from ``arguments`` (the ``locals()`` of ``__init__``) under its name."""
        for name in self._param_names():
            setattr(self, name, arguments[name])

    def get_params(self, deep: bool = True) -> dict:
        """The constructor's arguments, by name (scikit-learn's convention).

        Parameters
        ----------
        deep : bool, default True
            Accepted for scikit-learn; there are no sub-estimators to descend into.

        Returns
        -------
        dict
            Parameter name -> current value.
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Self:
        """Set constructor arguments by name (scikit-learn's convention).

        Parameters
        ----------
        **params
            New values, by parameter name.

        Returns
        -------
        self

        Raises
        ------
        InputError
            For a name that is not a parameter.
        """
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise InputError(f"{name!r} is not a parameter of {type(self).__name__}; "
                                 f"valid: {', '.join(valid)}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


def all_finite(a) -> bool:
    """Whether every entry of a float array is finite (no NaN, no infinity).

    A finite sum proves it (NaN and infinity propagate), so only an array whose sum
    overflows needs the element-wise test: one pass and no temporary array of booleans
    for the usual case.

    Parameters
    ----------
    a : ndarray of float, any shape

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> all_finite(np.array([[1.0, 2.0], [3.0, 4.0]]))
    True
    >>> all_finite(np.array([1.0, np.nan])), all_finite(np.array([1e308, 1e308]))
    (False, True)
    """
    with np.errstate(over="ignore", invalid="ignore"):
        total = a.sum()
    return bool(np.isfinite(total)) or bool(np.isfinite(a).all())
