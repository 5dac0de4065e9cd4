"""Timing in the compiled loop: overlapping reads and driver queues give the event path's bits.

The event path (SimPy, one step per card: ``_speed.COMPILED_LOOP = False``, or a
full trace) is the reference. The compiled loop (:func:`mark1.machine._kernels.presentation.train_block`)
must give the same history (every field), the same wipers (every array of the rack), the
same machine time and the same seconds waited, bit for bit, for every timing variant:
overlapping reads, 1, 2 or 8 drivers, both, slow motors that make the cards wait,
ratchet drive, decay (and decay folded into the stored positions), the rules, bias on and
off, and a timing made of exact binary fractions so that moves end and start exactly at a
read (the ties of the event order).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import make_cards, same_trace
from test_simulator import _CountingEnvironment
from mark1 import MarkI, specs
from mark1._utils import speed as _speed
from mark1.machine import simulator
from mark1.machine._kernels.presentation import ROOM

# moves of exactly one period that start and end at the reads: increment and speed 0.25
# full scale (s), a 1 s period read at 0.5 s, no spread, no backlash, no noise
_TIES = {"trainer.increment": 0.25, "rack.motor_speed": 0.25, "rack.motor_spread": 0.0, "rack.backlash": 0.0,
         "rack.wiper_noise": 0.0, "timing.card_change": 0.25, "timing.settle": 0.25, "timing.a_delay": 0.0,
         "timing.r_delay": 0.0}

VARIANTS = {
    "overlap": {"timing.overlap": True},
    "overlap, slow motors": {"timing.overlap": True, "rack.motor_speed": 0.01},
    "1 driver": {"rack.drivers": 1},
    "2 drivers": {"rack.drivers": 2},
    "8 drivers": {"rack.drivers": 8},
    "8 drivers, slow motors": {"rack.drivers": 8, "rack.motor_speed": 0.01},
    "overlap, 1 driver": {"timing.overlap": True, "rack.drivers": 1},
    "overlap, 2 drivers": {"timing.overlap": True, "rack.drivers": 2, "rack.motor_speed": 0.05},
    "overlap, 8 drivers": {"timing.overlap": True, "rack.drivers": 8},
    "overlap, 8 drivers, slow motors": {"timing.overlap": True, "rack.drivers": 8, "rack.motor_speed": 0.01},
    "slow motors wait": {"rack.motor_speed": 0.01},
    "ratchet, overlap, 2 drivers": {"rack.drive": "ratchet", "timing.overlap": True, "rack.drivers": 2},
    "ratchet, 1 driver": {"rack.drive": "ratchet", "rack.drivers": 1},
    "instant motors, overlap, 2 drivers": {"rack.motor_speed": math.inf, "timing.overlap": True,
                                           "rack.drivers": 2},
    "decay, overlap, 2 drivers": {"rack.decay_time": 30.0, "timing.overlap": True, "rack.drivers": 2},
    "decay folded in, overlap": {"rack.decay_time": 0.004, "timing.overlap": True},
    "decay folded in, overlap, 2 drivers": {"rack.decay_time": 0.004, "timing.overlap": True, "rack.drivers": 2},
    "decay folded in, 8 drivers, waits": {"rack.decay_time": 0.004, "rack.drivers": 8, "rack.motor_speed": 0.01},
    "gamma, overlap, 2 drivers": {"trainer.rule": "gamma", "timing.overlap": True, "rack.drivers": 2},
    "lms, overlap, 8 drivers": {"trainer.rule": "lms", "timing.overlap": True, "rack.drivers": 8},
    "beta, overlap": {"trainer.rule": "beta", "timing.overlap": True, "rack.motor_speed": 0.01},
    "alpha forced, overlap, 1 driver": {"trainer.reinforcement": "forced", "timing.overlap": True,
                                        "rack.drivers": 1},
    "spontaneous mean, overlap, 2 drivers": {"trainer.reinforcement": "spontaneous",
                                             "response.discrimination": "mean", "timing.overlap": True,
                                             "rack.drivers": 2},
    "no bias, overlap, 2 drivers": {"rack.bias": False, "timing.overlap": True, "rack.drivers": 2},
    "split, overlap, 2 drivers": {"rack.topology": "split", "timing.overlap": True, "rack.drivers": 2},
    "ties, overlap": {**_TIES, "timing.overlap": True},
    "ties, overlap, 1 driver": {**_TIES, "timing.overlap": True, "rack.drivers": 1},
    "ties, overlap, 2 drivers": {**_TIES, "timing.overlap": True, "rack.drivers": 2},
    "ties, 1 driver": {**_TIES, "rack.drivers": 1},
    "ties, ratchet, overlap, 1 driver": {**_TIES, "rack.drive": "ratchet", "rack.step": 0.25,
                                         "rack.step_time": 1.0, "timing.overlap": True, "rack.drivers": 1},
}
SEEDS = (0, 1, 2, 3)
RACK_ARRAYS = ("p_from", "p_to", "t_start", "t_end", "last_dir")



def _fit(spec, seed, cards, labels, *, compiled, trace="off", epochs=3, monkeypatch=None):
    env = _CountingEnvironment()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_speed, "COMPILED_LOOP", compiled)
        m = MarkI(spec=spec, seed=seed, trace=trace).fit(cards, labels, epochs=epochs, env=env)
    return m, env.events


def assert_same_run(a, b):
    """Two fitted machines ran the same: every history field, rack array and time, bit for bit."""
    for field in a.history_.dtype.names:
        assert np.array_equal(a.history_[field], b.history_[field]), field
    assert a.machine_time_ == b.machine_time_
    assert a.waited_ == b.waited_
    for name in RACK_ARRAYS:
        assert np.array_equal(getattr(a.rack_, name), getattr(b.rack_, name)), name
    assert a.rack_.busy_until == b.rack_.busy_until and a.rack_.t_ref == b.rack_.t_ref
    assert np.array_equal(a.rack_.positions(a.machine_time_), b.rack_.positions(b.machine_time_))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_compiled_loop_gives_the_event_paths_bits(variant, seed):
    spec = specs.SMALL.with_overrides(VARIANTS[variant])
    cards, labels = make_cards(12, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    fast, fast_events = _fit(spec, seed, cards, labels, compiled=True)
    slow, _ = _fit(spec, seed, cards, labels, compiled=False)
    assert_same_run(fast, slow)
    assert (fast.history_["pots_moved"] > 0).any()
    # no SimPy event per card: one timeout per block (a block ends at a wait for the motors)
    n = len(fast.history_)
    waits = int(np.count_nonzero(np.diff(fast.history_["start"]) > spec.timing.period * (1 + 1e-9)))
    assert fast_events <= 2 * waits + n // 8 + 5


@pytest.mark.parametrize("variant", ["overlap, 2 drivers", "ties, overlap, 1 driver", "8 drivers, slow motors"])
def test_a_full_trace_gives_the_same_bits(variant):
    """The full trace (SimPy with every event logged) is the event path too."""
    spec = specs.SMALL.with_overrides(VARIANTS[variant])
    cards, labels = make_cards(12, np.random.default_rng(5), shapes=("x", "box", "bar"))
    fast, _ = _fit(spec, 5, cards, labels, compiled=True)
    full, _ = _fit(spec, 5, cards, labels, compiled=True, trace="full")
    assert_same_run(fast, full)


FULL_TRACE_VARIANTS = {
    "default": {},
    "slow motors wait": {"rack.motor_speed": 0.01},
    "decay folded in, waits": {"rack.decay_time": 0.004, "rack.motor_speed": 0.01},
    "decay": {"rack.decay_time": 30.0},
    "ratchet": {"rack.drive": "ratchet"},
    "gamma": {"trainer.rule": "gamma"},
    "lms, mean": {"trainer.rule": "lms", "response.discrimination": "mean", "trainer.lms_rate": 0.0005},
    "beta forced": {"trainer.rule": "beta", "trainer.reinforcement": "forced"},
    "spontaneous": {"trainer.reinforcement": "spontaneous"},
    "split, no bias": {"rack.topology": "split", "rack.bias": False},
    "overlap, 2 drivers (event path)": {"timing.overlap": True, "rack.drivers": 2},
}


@pytest.mark.parametrize("seed", (0, 1, 2))
@pytest.mark.parametrize("variant", sorted(FULL_TRACE_VARIANTS))
def test_a_full_trace_from_the_compiled_loop_is_the_event_paths(variant, seed):
    """A full trace without overlap or driver queue runs compiled up to each reinforcement;
    its events, readings, moves and sums are the event path's, bit for bit."""
    spec = specs.SMALL.with_overrides(FULL_TRACE_VARIANTS[variant])
    cards, labels = make_cards(12, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    fast, fast_events = _fit(spec, seed, cards, labels, compiled=True, trace="full")
    slow, _ = _fit(spec, seed, cards, labels, compiled=False, trace="full")
    assert_same_run(fast, slow)
    same_trace(fast, slow)
    if not (spec.timing.overlap or spec.rack.drivers):
        # no SimPy event per card: those of the reinforcements (4 each: a timeout to the read,
        # the motors' process, its timeout and its end), and one per block
        h = fast.history_
        acted = int(np.count_nonzero((h["units_erred"] > 0) | (h["pots_moved"] > 0)))
        assert fast_events <= 4 * acted + len(h) // 8 + 5


def test_the_ties_variant_has_ties():
    """The exact-fraction timing does make moves start at the very instant of a read."""
    spec = specs.SMALL.with_overrides({**_TIES, "timing.overlap": True, "rack.drivers": 1})
    cards, labels = make_cards(12, np.random.default_rng(0), shapes=("x", "box", "bar"))
    m, _ = _fit(spec, 0, cards, labels, compiled=True, trace="full")
    reads = {t for t, e, _, _ in m.trace_ if e == "R read"}
    starts = {mv.time for mv in m.trace_.moves}
    assert len(reads & starts) > 5


def test_many_cards_stay_bit_for_bit_with_a_growing_queue():
    """Overlap with one slow driver: the queue of moves grows through the run (the compiled
    queue makes room as it goes) and the run still matches the event path."""
    spec = specs.SMALL.with_overrides({"timing.overlap": True, "rack.drivers": 1, "rack.motor_speed": 0.05})
    cards, labels = make_cards(40, np.random.default_rng(7), shapes=("x", "box", "bar"))
    ends = []
    run_block = simulator._TrainingRun._run_block

    def spy(self, p):
        out = run_block(self, p)
        ends.append(out[1])
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simulator._TrainingRun, "_run_block", spy)
        fast, _ = _fit(spec, 7, cards, labels, compiled=True, epochs=4)
    assert ROOM in ends                 # the loop stopped to make room, and went on
    slow, _ = _fit(spec, 7, cards, labels, compiled=False, epochs=4)
    assert_same_run(fast, slow)
    assert fast.machine_time_ > fast.history_["start"][-1] + 10 * spec.timing.period    # a backlog was left


@settings(max_examples=40, deadline=None)
# found by this test in CI: the last wait for the motors from 15.51 s could not land on the
# motors' end 31.949999999999672 s in one delay (a tie rounding to even), ending an ulp short
@example(seed=752382, overlap=True, drivers=1, drive="ratchet", speed=0.01, decay=math.inf, rule="alpha",
         reinforcement="forced", bias=False, mean=False, backlash=0.0, spread=0.0, classes=("x", "box", "bar"))
@given(seed=st.integers(0, 2**32 - 1), overlap=st.booleans(), drivers=st.sampled_from([0, 1, 2, 3, 8]),
       drive=st.sampled_from(["continuous", "ratchet"]), speed=st.sampled_from([0.01, 0.05, 0.25, math.inf]),
       decay=st.sampled_from([math.inf, 30.0, 0.004]), rule=st.sampled_from(["alpha", "beta", "gamma", "lms"]),
       reinforcement=st.sampled_from(["corrective", "forced", "spontaneous"]), bias=st.booleans(),
       mean=st.booleans(), backlash=st.sampled_from([0.0, 0.003]), spread=st.sampled_from([0.0, 0.1]),
       classes=st.sampled_from([("x", "box"), ("x", "box", "bar")]))
def test_random_small_specs(seed, overlap, drivers, drive, speed, decay, rule, reinforcement, bias, mean,
                            backlash, spread, classes):
    if rule == "lms":
        reinforcement = "corrective"               # LMS reinforces every card by its own rule
    spec = specs.SMALL.with_overrides({
        "timing.overlap": overlap, "rack.drivers": drivers, "rack.drive": drive, "rack.motor_speed": speed,
        "rack.decay_time": decay, "trainer.rule": rule, "trainer.reinforcement": reinforcement,
        "rack.bias": bias, "response.discrimination": "mean" if mean else "sum", "rack.backlash": backlash,
        "rack.motor_spread": spread, "trainer.lms_rate": 0.0005 if mean else 0.002})
    cards, labels = make_cards(8, np.random.default_rng(seed % 1000), shapes=classes)
    fast, _ = _fit(spec, seed, cards, labels, compiled=True, epochs=2)
    slow, _ = _fit(spec, seed, cards, labels, compiled=False, epochs=2)
    assert_same_run(fast, slow)
