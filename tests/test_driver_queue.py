"""The driver queue's heap (:func:`mark1.machine._kernels.presentation.hold_driver`): first
come, first served on the first driver free, as a scan of every driver serves it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mark1.machine._kernels.presentation import hold_driver

moves = st.lists(st.tuples(st.floats(0, 100), st.floats(0, 10) | st.just(0.5)), max_size=60)


@settings(max_examples=200, deadline=None)
@given(drivers=st.integers(1, 40), commands=moves)
def test_heap_serves_as_a_scan_of_every_driver(drivers, commands):
    """Each move's start (max of its command time and the first free driver) is the scan's,
    move by move, and ``free`` stays a min-heap holding the scan's times; equal durations
    (0.5 s) and ties between drivers included."""
    heap, scan = np.zeros(drivers), np.zeros(drivers)
    commanded = np.sort([c for c, _ in commands])            # the queue is in command order
    for c, (_, duration) in zip(commanded, commands):
        t_heap = max(c, heap[0])
        hold_driver(heap, t_heap + duration)
        d = int(np.argmin(scan))
        t_scan = max(c, scan[d])
        scan[d] = t_scan + duration
        assert t_heap == t_scan
        children = [(i, k) for i in range(drivers) for k in (2 * i + 1, 2 * i + 2) if k < drivers]
        assert all(heap[i] <= heap[k] for i, k in children)
    assert np.array_equal(np.sort(heap), np.sort(scan))


def test_equal_moves_finish_in_rounds():
    """A batch of m equal moves (d s) on n drivers all commanded at 0: move i starts at
    (i // n) * d, the closed form."""
    n, m, d = 8, 53, 0.25
    free = np.zeros(n)
    starts = []
    for _ in range(m):
        starts.append(free[0])
        hold_driver(free, free[0] + d)
    assert starts == [(i // n) * d for i in range(m)]
