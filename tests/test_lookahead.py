"""The sensing's look-ahead: the next block sensed in a second thread beside the training.

The look-ahead computes the same function of the same inputs as the sensing in the
caller's thread, so a run gives the same bits with it and without it (``_speed.THREADS``
off, one CPU, no numba); a wait for the motors discards it; an exception in the second
thread is raised in the caller; no thread outlives a run, however it ends.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from mark1 import MarkI, specs
from mark1._utils import speed as _speed
from mark1.machine import simulator
from mark1.machine.patchboard import Patchboard

from conftest import make_cards

SEEDS = range(3)
# speed-limited motors (an increment takes 2 s, the period is 1 s): cards wait for them, the
# schedule is re-timed and look-aheads discarded; photocells whose reading depends on the timing
SLOW = specs.SMALL.only("speed_limit").with_overrides({
    "rack.motor_speed": 0.01, "trainer.increment": 0.02,
    "retina.dynamics": True, "retina.history_ratio": 3.0, "retina.history_time": 2.0})
NOISY = specs.SMALL.with_overrides({"rack.wiper_noise": 0.01, "response.discrimination": "mean"})


def _sensing_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mark1-sensing"]


def _same(a: MarkI, b: MarkI) -> None:
    assert np.array_equal(a.history_, b.history_)
    assert a.machine_time_ == b.machine_time_
    for k in ("p_from", "p_to", "t_start", "t_end"):
        assert np.array_equal(getattr(a.rack_, k), getattr(b.rack_, k))


def _fit(spec, seed, threads: bool, mp: pytest.MonkeyPatch, n_cards: int = 24, epochs: int = 20,
         take_back: bool = False, **kw) -> MarkI:
    """A fit with or without the second thread; the caller waits for every look-ahead unless
    ``take_back`` (then it may sense one itself, so whether the thread ran depends on timing)."""
    mp.setattr(_speed, "THREADS", threads)
    mp.setattr(_speed.LookAhead, "take_back", take_back)
    cards, labels = make_cards(n_cards, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    return MarkI(spec=spec, seed=seed, trace="off", **kw).fit(cards, labels, epochs=epochs, order="shuffled")


class _Counting:
    """Counts the blocks sensed in each thread (wraps ``_SensoryPipeline._make``)."""

    def __init__(self, mp: pytest.MonkeyPatch):
        self.threads: list[str] = []
        original = simulator._SensoryPipeline._make

        def make(pipeline, *args, **kw):
            self.threads.append(threading.current_thread().name)
            return original(pipeline, *args, **kw)

        mp.setattr(simulator._SensoryPipeline, "_make", make)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("spec", [specs.SMALL, SLOW, NOISY], ids=["small", "slow", "noisy-mean"])
def test_same_bits_with_and_without_the_second_thread(seed, spec):
    with pytest.MonkeyPatch.context() as mp:
        off = _fit(spec, seed, False, mp)
        taken_back = _fit(spec, seed, True, mp, take_back=True)
        counted = _Counting(mp)
        on = _fit(spec, seed, True, mp)
    _same(on, off)
    _same(taken_back, off)
    if spec is specs.SMALL and _speed.second_thread():
        assert "mark1-sensing" in counted.threads         # the look-ahead did run (480 presentations)
    assert not _sensing_threads()


@pytest.mark.parametrize("seed", SEEDS)
def test_discarded_look_aheads_change_nothing(seed):
    """Look ahead from the smallest block on, with waits for the motors all along: many
    look-aheads are discarded (re-timings; one not begun is never sensed), the run is the same."""
    with pytest.MonkeyPatch.context() as mp:
        off = _fit(SLOW, seed, False, mp)
        mp.setattr(simulator, "_AHEAD_FROM", 1)
        discarded = []
        original = simulator._SensoryPipeline.close

        def close(pipeline):
            discarded.append(pipeline.ahead.discarded)
            original(pipeline)

        mp.setattr(simulator._SensoryPipeline, "close", close)
        taken_back = _fit(SLOW, seed, True, mp, take_back=True)
        on = _fit(SLOW, seed, True, mp)
    _same(on, off)
    _same(taken_back, off)
    assert on.waited_ > 0
    if _speed.second_thread():
        assert discarded[-1] > 0
    assert not _sensing_threads()


def test_without_a_second_cpu_no_thread_is_started():
    with pytest.MonkeyPatch.context() as mp:
        off = _fit(specs.SMALL, 0, False, mp)
        mp.setattr(_speed.os, "sched_getaffinity", lambda pid: {0}, raising=False)
        mp.setattr(_speed.os, "cpu_count", lambda: 1)
        assert not _speed.second_thread()
        counted = _Counting(mp)
        one = _fit(specs.SMALL, 0, True, mp)
    _same(one, off)
    assert set(counted.threads) == {threading.current_thread().name}


def test_without_numba_no_thread_is_started(monkeypatch):
    monkeypatch.setattr(_speed.numba.config, "DISABLE_JIT", True)
    assert not _speed.second_thread()


class Boom(RuntimeError):
    pass


def test_an_error_in_the_second_thread_is_raised_by_the_run():
    if not _speed.second_thread():
        pytest.skip("no second thread on this machine")
    original = Patchboard.rack_inputs

    def failing(board, *args, **kw):
        if threading.current_thread().name == "mark1-sensing":
            raise Boom("tally failed in the sensing thread")
        return original(board, *args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Patchboard, "rack_inputs", failing)
        with pytest.raises(Boom, match="sensing thread"):
            _fit(specs.SMALL, 0, True, mp)
    assert not _sensing_threads()


def test_an_interrupt_leaves_no_thread():
    """A KeyboardInterrupt in the training (here: when the third block is taken) ends the
    run with it, and the sensing thread with the run."""
    calls = []
    original = simulator._SensoryPipeline._take

    def interrupted(pipeline, sensed):
        calls.append(sensed.first)
        if len(calls) == 3:
            raise KeyboardInterrupt
        original(pipeline, sensed)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simulator._SensoryPipeline, "_take", interrupted)
        with pytest.raises(KeyboardInterrupt):
            _fit(specs.SMALL, 0, True, mp, epochs=40)
    assert len(calls) == 3
    assert not _sensing_threads()


def test_the_kernels_a_run_calls_release_the_gil():
    """The look-ahead overlaps the training only if every compiled kernel the run calls a
    block at a time releases the GIL (``nogil=True``): one that holds it would hold the
    sensing thread at each of its steps between its compiled loops."""
    runs = []
    original = simulator._TrainingRun.result

    def result(run, *args, **kw):
        runs.append(run)
        return original(run, *args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simulator._TrainingRun, "result", result)
        _fit(specs.SMALL, 0, True, mp, epochs=2)
    kernels = {name: value.dispatcher for name, value in vars(runs[0]).items()
               if isinstance(value, simulator._Direct)}
    assert kernels
    for name, dispatcher in kernels.items():
        if hasattr(dispatcher, "targetoptions"):           # not under NUMBA_DISABLE_JIT
            assert dispatcher.targetoptions.get("nogil"), f"{name} holds the GIL"


# -- the mechanics (mark1._utils.speed): each with its switch off is the plain path -------------

def test_look_ahead_off_starts_no_thread_and_collects_nothing():
    with _speed.plain(THREADS=True):
        ahead = _speed.LookAhead(lambda a: a + 1, "mark1-test")
        ahead.start("k", 1)
        assert not ahead.on and ahead.collect("k") is None
        ahead.close()
    assert not [t for t in threading.enumerate() if t.name == "mark1-test"]


def test_look_ahead_gives_the_job_of_its_key_its_error_and_discards_another():
    if not _speed.second_thread():
        pytest.skip("no second thread on this machine")
    gate = threading.Event()

    def work(a):
        gate.wait()
        if a < 0:
            raise Boom("negative")
        return 2 * a

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_speed.LookAhead, "take_back", False)
        ahead = _speed.LookAhead(work, "mark1-test")
        try:
            ahead.start("a", 3)
            gate.set()
            assert ahead.collect("a") == 6
            ahead.start("b", -1)
            with pytest.raises(Boom, match="negative"):
                ahead.collect("b")
            ahead.start("c", 4)
            assert ahead.collect("d") is None and ahead.discarded == 1     # another key: discarded
            assert ahead.collect("c") is None                              # nothing left to take
        finally:
            ahead.close()
    assert not [t for t in threading.enumerate() if t.name == "mark1-test"]
