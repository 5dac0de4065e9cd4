"""Python's cyclic garbage collector paused while a run builds a large acyclic record.

A full trace keeps a tuple an event and a few arrays a reading: tens of thousands of
objects a second, none in a reference cycle. Each of them counts toward the collector's
next pass, and its full passes walk every object kept so far, so the passes cost more
the longer the run (measured: 20% of a 10,000-card full trace's CPU time). Reference
counting frees everything these runs drop; a cycle made meanwhile (in a listener, say) is
collected after the run.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused(pause: bool = True) -> Iterator[None]:
    """Context manager: no cyclic garbage collection inside (when ``pause``), as before after.

    The collector is the process's: a pause is meant for one run at a time (a second
    thread's ``gc.disable()`` meanwhile is undone when the pause ends; two full traces
    running in two threads end each other's pause, which costs speed only).

    Parameters
    ----------
    pause : bool
        Whether to pause it at all (False: a no-op, for callers that pause only some runs).

    Examples
    --------
    >>> import gc
    >>> from mark1._utils.collector import collector_paused
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
