"""The step over a held RunState is compiled without reference counts, while the state is made
by code with them: it must count nothing in or out, allocate nothing, and leave every array
alive and as referenced as before; a state let go of frees its arrays (a step whose wrapper
kept the reference it counts in on unboxing would keep every state of a run alive). Its results
against the records passed at each call, bit for bit: tests/test_simulator.py, the records
held once a run."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mark1._utils import speed as _speed
from mark1.machine._kernels import presentation as k
from mark1.machine._kernels.state import make_state, run_kernels, step
from mark1.machine.potentiometers import PotentiometerRack
from mark1.specs import RackSpec

pytestmark = pytest.mark.skipif(not _speed.compiler_on(), reason="numba's compiler is off (NUMBA_DISABLE_JIT)")

N_UNITS, N_IN, M = 3, 7, 24


def _records(seed: int, drivers: int):
    """A run's records: random cards (the bias last), targets, a rack of N_UNITS x N_IN."""
    rng = np.random.default_rng(seed)
    rack = PotentiometerRack(RackSpec(drivers=drivers), N_UNITS, N_IN, 2)
    x = (rng.random((M, N_IN)) < 0.4).astype(float)
    x[:, -1] = 1.0
    targets = np.where(rng.random((M, N_UNITS)) < 0.5, 1.0, -1.0)
    tr = k.Trainer(0, 0.1, 0.0, 0.0, True, False, False, False, False, -1, False)
    sc, dk = k.Schedule(0.0, 0, 1.0, 0.5, True, drivers > 0), k.Decay(0.0, 1.0)
    room = N_UNITS * N_IN * M
    queue = k.Queue(np.zeros(room, np.int64), np.zeros(room), np.zeros(room), np.zeros(room, np.int64),
                    np.zeros(2, np.int64), np.zeros(max(drivers, 1)))
    log = k.Moves(*(np.zeros(0, d) for d in ("i8", "f8", "i8", "f8", "f8", "f8", "f8", "f8", "i1")),
                  np.zeros(1, np.int64))
    blk = k.Block(0, x, 0.01 * rng.standard_normal((M, N_UNITS)), targets, np.ones((1, 1)), targets,
                  np.zeros((M, N_UNITS)), np.zeros(M, np.int16), np.zeros(M, np.int32), np.zeros(M),
                  np.zeros(M, np.int64), np.zeros(N_IN, np.int64), np.zeros(N_UNITS), np.zeros((2, N_UNITS)))
    return rack, (blk, tr, sc, dk, rack.pots, rack.drive_constants, queue, log)


def _arrays(records) -> list[np.ndarray]:
    return [a for rec in records for a in rec if isinstance(a, np.ndarray)]


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), drivers=st.sampled_from([0, 2]))
def test_the_step_counts_nothing_in_or_out_and_allocates_nothing(seed, drivers):
    from numba.core.runtime import _nrt_python as nrt   # numba's own switch for its counts
    from numba.core.runtime import rtsys

    warm = make_state(*_records(seed, drivers)[1])             # compiled (or loaded) before counting
    step(warm, 0, 0, 0, 0.0, 0.0)
    del warm
    rack, records = _records(seed, drivers)
    arrays = _arrays(records)
    alone = [sys.getrefcount(a) for a in arrays]
    state = make_state(*records)
    held = [sys.getrefcount(a) for a in arrays]
    assert all(h > a for h, a in zip(held, alone))           # the state holds every array
    was_on = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        busy_until = t_ref = 0.0
        p = 0
        while p < M:        # a block of 5 rows a call; a card that waits for the motors ends one early
            done, busy_until, t_ref, status = step(state, p, p, min(5, M - p), busy_until, t_ref)
            assert done >= 1 and status in (k.BLOCK_END, k.WAITS)
            p += done
        after = rtsys.get_allocation_stats()
    finally:
        if not was_on:
            nrt.memsys_disable_stats()
    assert [sys.getrefcount(a) for a in arrays] == held       # nothing counted in or out
    assert (after.alloc, after.free, after.mi_alloc, after.mi_free) == (
        before.alloc, before.free, before.mi_alloc, before.mi_free)     # nothing made, nothing freed
    assert int(records[0].units_erred.sum()) > 0 and rack.pots.p_to.any()   # it learned
    del state
    gc.collect()
    assert [sys.getrefcount(a) for a in arrays] == alone      # the state let go of every array


def test_the_step_is_compiled_without_reference_counts_the_state_s_maker_with_them():
    from mark1.machine._kernels import state as module
    own = run_kernels(False, False, False)[0]       # the demo's: no queue, no log, no device law
    assert own is not step and own.targetoptions.get("_nrt") is False and step.targetoptions.get("_nrt") is False
    assert module.make_state.targetoptions.get("_nrt", True) is True     # it counts the records in
