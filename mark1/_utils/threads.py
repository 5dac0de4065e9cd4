"""One BLAS thread where small matrix products run in a loop.

The machine's loops multiply blocks of a few hundred cards by a rack of 8 x 513 pots;
on a multi-threaded BLAS each such product wakes every core, and on a busy machine the
threads spin against each other (measured: the ideal machine's core swung from 0.4x to
3-8x scikit-learn's time under load). threadpoolctl sets the thread count of whatever
BLAS numpy loaded (OpenBLAS, MKL, BLIS) for the duration of a block, and restores it.
"""

from __future__ import annotations

from contextlib import contextmanager

from threadpoolctl import threadpool_limits

__all__ = ["one_blas_thread"]


@contextmanager
def one_blas_thread():
    """Context manager: BLAS runs on one thread inside, as configured outside."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield
