"""A card's nonzero features, gathered once for every compiled read of a row.

The sums of the textbook perceptron (:func:`mark1.machine._kernels.textbook.sparse_sums`)
and the wipers' sums of the machine (:func:`mark1.machine._kernels.pots.wiper_sums`) add
their products over the nonzero features of a row, in feature order: both gather them here.
"""

from __future__ import annotations

from mark1._utils.compiled import compiled

__all__ = ["nonzero_features"]


@compiled(inline="always")
def nonzero_features(X, row, active):
    """The indices of the nonzero entries of row ``row`` of ``X`` (n, d), in order, into
    ``active`` (>= d,) int64; returns how many. Branch-free: every index is written and
    kept by advancing past it only where the entry is nonzero.

    Examples
    --------
    >>> import numpy as np
    >>> active = np.empty(4, np.int64)
    >>> n = nonzero_features(np.array([[0.0, 2.0, 0.0, 1.0]]), 0, active)
    >>> n, active[:n].tolist()
    (2, [1, 3])
    """
    n_act = 0
    for i in range(X.shape[1]):
        active[n_act] = i
        n_act += X[row, i] != 0.0
    return n_act
