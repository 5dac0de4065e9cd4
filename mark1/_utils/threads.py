"""One BLAS thread where small matrix products run in a loop.

The machine's loops multiply blocks of a few hundred cards by a rack of 8 x 513 pots;
on a multi-threaded BLAS each such product wakes every core, and on a busy machine the
threads spin against each other (measured: the ideal machine's core swung from 0.4x to
3-8x scikit-learn's time under load). threadpoolctl sets the thread count of whatever
BLAS numpy loaded (OpenBLAS, MKL, BLIS) for the duration of a block, and restores it.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import threadpoolctl

__all__ = ["one_blas_thread"]

# The process's thread pools, and how many modules were imported when they were found:
# finding them scans every loaded library (about 0.8 ms), so they are found again only
# after an import, which may have loaded another (threadpoolctl's own cache, from 3.8).
_found: tuple[threadpoolctl.ThreadpoolController, int] | None = None


def _found_pools() -> threadpoolctl.ThreadpoolController:
    global _found
    if _found is None or _found[1] != len(sys.modules):
        _found = (threadpoolctl.ThreadpoolController(), len(sys.modules))
    return _found[0]


_pools = getattr(threadpoolctl, "get_cached_controller", _found_pools)


@contextmanager
def one_blas_thread():
    """Context manager: BLAS runs on one thread inside, as configured outside.

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> with one_blas_thread():
    ...     inside = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    >>> set(inside) <= {1}
    True
    """
    with _pools().limit(limits=1, user_api="blas"):
        yield
