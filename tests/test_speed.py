"""The speed machinery's switches (mark1._utils.speed): the plain path, every switch off,
gives the same run bit for bit as each fast path alone and as all of them together."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import make_cards
from mark1 import MarkI, specs
from mark1.exceptions import InputError
from mark1._utils import speed as _speed

SWITCHES = ("THREADS", "LOOK_AHEAD", "COMPILED_LOOP", "HOLD_STATE", "DIRECT_CALLS", "LOAD_LIGHT", "BLOCK_EVENTS")

#: Each fast path alone (a thread needs THREADS too)
FAST_PATHS = {"LOOK_AHEAD": {"THREADS": True, "LOOK_AHEAD": True},
              "COMPILED_LOOP": {"COMPILED_LOOP": True}, "HOLD_STATE": {"HOLD_STATE": True},
              "DIRECT_CALLS": {"DIRECT_CALLS": True}, "BLOCK_EVENTS": {"COMPILED_LOOP": True, "BLOCK_EVENTS": True}}

# the timing configurations a user studies: waits for the motors, drivers, overlap, read noise
VARIANTS = {
    "MARK_I's timing, slow motors wait": {"rack.motor_speed": 0.01, "rack.wiper_noise": 0.01},
    "overlap, 2 drivers": {"timing.overlap": True, "rack.drivers": 2, "rack.motor_speed": 0.05},
    "decay, 8 drivers, waits": {"rack.decay_time": 0.004, "rack.drivers": 8, "rack.motor_speed": 0.01},
}


def _run(spec, seed, cards, labels, trace="off", **switches):
    with _speed.plain(**switches):
        m = MarkI(spec=spec, seed=seed, trace=trace).fit(cards, labels, epochs=3)
    return m


def _same(a, b) -> None:
    for field in a.history_.dtype.names:
        assert np.array_equal(a.history_[field], b.history_[field]), field
    assert a.machine_time_ == b.machine_time_ and a.waited_ == b.waited_
    assert np.array_equal(a.weights_, b.weights_)
    for name in ("p_from", "p_to", "t_start", "t_end", "last_dir"):
        assert np.array_equal(getattr(a.rack_, name), getattr(b.rack_, name)), name


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("seed", [0, 7])
def test_each_fast_path_gives_the_plain_paths_bits(variant, seed):
    spec = specs.SMALL.with_overrides(VARIANTS[variant])
    cards, labels = make_cards(16, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    plain = _run(spec, seed, cards, labels)
    for switches in FAST_PATHS.values():
        _same(_run(spec, seed, cards, labels, **switches), plain)
    _same(_run(spec, seed, cards, labels, **dict.fromkeys(SWITCHES, True)), plain)


def test_a_full_trace_is_the_same_on_the_plain_path():
    spec = specs.SMALL.with_overrides({"rack.motor_speed": 0.01})
    cards, labels = make_cards(8, np.random.default_rng(3))
    plain = _run(spec, 3, cards, labels, trace="full")
    fast = _run(spec, 3, cards, labels, trace="full", **dict.fromkeys(SWITCHES, True))
    _same(fast, plain)
    assert fast.trace_.events == plain.trace_.events


def test_plain_restores_the_switches_and_refuses_a_name_it_has_not():
    before = {name: getattr(_speed, name) for name in SWITCHES}
    with _speed.plain():
        assert not any(getattr(_speed, name) for name in SWITCHES)
        assert not _speed.second_thread()
    assert {name: getattr(_speed, name) for name in SWITCHES} == before
    with pytest.raises(InputError, match="no switch THREAD"):
        _speed.plain(THREAD=True)


def test_direct_calls_off_serves_every_call_by_the_dispatcher():
    from mark1._utils.compiled import compiled

    @compiled
    def twice(a):
        return 2 * a

    with _speed.plain():
        direct = _speed.Direct(twice)
    assert [direct("k", 3), direct("k", 4)] == [6, 8] and direct.entries == {}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_listener_in_the_runs_own_environment_hears_the_event_paths_events(variant):
    """A listener in the run's own SimPy environment (blocks run whole, the events told as
    each block is written) hears what a listener in a caller's environment hears (one card
    a call, SimPy's clock brought to each event), in the same order, and the runs are the same."""
    import simpy

    spec = specs.SMALL.with_overrides(VARIANTS[variant])
    cards, labels = make_cards(12, np.random.default_rng(5), shapes=("x", "box", "bar"))
    heard: dict = {"own": [], "caller's": []}
    own = MarkI(spec=spec, seed=5).fit(cards, labels, epochs=3, on_event=lambda *e: heard["own"].append(e))
    env = simpy.Environment()
    stepping = MarkI(spec=spec, seed=5).fit(cards, labels, epochs=3, env=env,
                                            on_event=lambda *e: heard["caller's"].append(e))
    _same(own, stepping)
    assert heard["own"] == heard["caller's"] == own.trace_.events == stepping.trace_.events
    assert len(heard["own"]) > 5 * len(own.history_)
    assert env.now == stepping.machine_time_
    assert len(own.trace_.readings) == len(stepping.trace_.readings) == len(own.history_)
    for a, b in zip(own.trace_.readings, stepping.trace_.readings):
        assert a.time == b.time and np.array_equal(a.wipers, b.wipers)


@pytest.mark.parametrize("variant", ["MARK_I's timing, slow motors wait", "read noise off, fast motors"])
@pytest.mark.parametrize("listener", [False, True])
def test_block_events_are_the_plain_paths_events(variant, listener):
    """Blocks run whole keep (and tell) the same events with BLOCK_EVENTS as card by card
    without it: the same tuples, their fields' types, in the same order; the same run."""
    overrides = VARIANTS.get(variant, {"rack.wiper_noise": 0.0, "rack.motor_speed": 1.0})
    spec = specs.SMALL.with_overrides(overrides)
    cards, labels = make_cards(16, np.random.default_rng(11), shapes=("x", "box", "bar"))
    runs = {}
    for on in (False, True):
        heard: list = []
        with _speed.plain(COMPILED_LOOP=True, HOLD_STATE=True, DIRECT_CALLS=True, BLOCK_EVENTS=on):
            m = MarkI(spec=spec, seed=11, trace="full").fit(
                cards, labels, epochs=3, on_event=(lambda *e, heard=heard: heard.append(e)) if listener else None)
        runs[on] = (m, heard)
    (plain, heard_plain), (fast, heard_fast) = runs[False], runs[True]
    assert fast.trace_.events._blocks                                   # kept as columns until read
    _same(fast, plain)
    assert heard_fast == heard_plain and fast.trace_.events == plain.trace_.events
    assert len(fast.trace_.events) == len(plain.trace_.events) > 5 * len(plain.history_)
    for a, b in zip(fast.trace_.events, plain.trace_.events):
        assert [type(x) for x in a] == [type(x) for x in b] == [float, str, int, str]
    assert fast.trace_.to_csv() == plain.trace_.to_csv()
    assert {e for _, e, _, _ in fast.trace_} >= {"reinforce", "motors start", "motors stop", "R read"}


#: every decimal of 4 significant digits from 0.0001 to 9999 of either sign, as a double
_DECIMALS = (np.arange(1000, 10000) * 10.0 ** np.arange(-7, 1)[:, None]).ravel()


def test_rows_4g_table_holds_pythons_text_of_every_4_digit_decimal():
    v = np.concatenate([_DECIMALS, -_DECIMALS]).reshape(-1, 8)
    assert _speed.rows_4g("sums", v) == [("sums" + " %+.4g" * 8) % tuple(row) for row in v.tolist()]


def _near(x: float) -> st.SearchStrategy:
    return st.sampled_from([x, float(np.nextafter(x, np.inf)), float(np.nextafter(x, -np.inf))])


#: doubles of every kind: any double, ties of the 4th digit and powers of ten with their neighbours
_values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=1e-5, max_value=1e5),
    st.builds(lambda m, e, s: s * (10 * m + 5) * 10.0 ** e, st.integers(1000, 9999), st.integers(-9, 0),
              st.sampled_from([1.0, -1.0])).flatmap(_near),
    st.builds(lambda e, s, f: s * f * 10.0 ** e, st.integers(-6, 5), st.sampled_from([1.0, -1.0]),
              st.sampled_from([1.0, 0.99995, 9.9995, 0.9999499999])).flatmap(_near))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 9), st.lists(_values, min_size=0, max_size=60), st.sampled_from(["sums", "", "ä x"]))
def test_rows_4g_writes_what_python_writes(k, values, head):
    m = len(values) // k if k else 3
    v = np.array(values[:m * k], dtype=float).reshape(m, k)
    assert _speed.rows_4g(head, v) == [(head + " %+.4g" * k) % tuple(row) for row in v.tolist()]
