"""A full trace's readings and moves kept as a block's arrays (``_record.Kept``): they read as
the list they stand for, are made once, in order, only when read, and pickle made."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mark1 import MarkI, specs
from mark1.machine._record import Kept
from conftest import make_cards

#: A step of a list kept as a run goes: ("append", item), ("extend", items) or ("later", items).
steps = st.lists(st.one_of(
    st.tuples(st.just("append"), st.integers()),
    st.tuples(st.sampled_from(["extend", "later"]), st.lists(st.integers(), max_size=5))), max_size=12)


@settings(max_examples=80, deadline=None)
@given(steps)
def test_kept_reads_as_the_list_it_stands_for(steps):
    kept, plain, made = Kept(), [], []
    for kind, item in steps:
        if kind == "append":
            kept.append(item)
            plain.append(item)
        elif kind == "extend":
            kept.extend(iter(item))
            plain.extend(item)
        else:
            kept.later(len(item), lambda item=item: made.append(len(item)) or list(item))
            plain.extend(item)
    assert len(kept) == len(plain)
    assert made == []                                        # nothing made before it is read
    assert kept == plain and plain == kept and list(kept) == plain
    assert kept[:] == plain[:] and kept[1::2] == plain[1::2]
    if plain:
        assert kept[-1] == plain[-1] and kept[0] == plain[0]
    n_made = len(made)
    assert list(kept) == plain and len(made) == n_made        # made once
    assert pickle.loads(pickle.dumps(kept)) == plain


def test_kept_is_a_list_in_what_a_reader_meets():
    kept = Kept()
    assert kept == [] and not kept and repr(kept) == "[]"
    kept.later(2, lambda: ["a", "b"])
    assert kept != ["a"] and kept != ("a", "b") and kept == Kept(["a", "b"])
    assert "b" in kept and kept.index("b") == 1 and list(reversed(kept)) == ["b", "a"]
    with pytest.raises(TypeError):
        hash(kept)
    with pytest.raises(IndexError):
        kept[2]


def test_a_listeners_fit_makes_its_readings_and_moves_when_read():
    """The readings and moves of a listener's fit (blocks run whole) are kept unmade, have
    their lengths, and once read are those of the same fit without a listener; a pickled
    trace carries them made."""
    cards, labels = make_cards(12, np.random.default_rng(3), shapes=("x", "box", "bar"))
    heard: list = []
    told = MarkI(spec=specs.SMALL, seed=3).fit(cards, labels, epochs=4, on_event=lambda *e: heard.append(e))
    full = MarkI(spec=specs.SMALL, seed=3, trace="full").fit(cards, labels, epochs=4)
    readings, moves = told.trace_.readings, told.trace_.moves
    assert readings._blocks and full.trace_.readings._blocks                 # not made yet
    assert len(readings) == len(told.history_) == 48 and len(moves) == len(full.trace_.moves) > 0
    again = pickle.loads(pickle.dumps(full.trace_))                           # made as it is pickled
    for a, b, c in zip(readings, full.trace_.readings, again.readings):
        assert type(a) is type(b) and a.time == b.time == c.time
        for f in ("s_units", "a_units", "wipers"):
            x, y, z = getattr(a, f), getattr(b, f), getattr(c, f)
            assert x.dtype == y.dtype and np.array_equal(x, y) and np.array_equal(x, z), f
    for u, v in zip(moves, full.trace_.moves):
        assert u.presentation == v.presentation and u.time == v.time
        for f in ("unit", "a_unit", "command", "start", "target", "slack_time", "duration", "direction"):
            x, y = getattr(u, f), getattr(v, f)
            assert x.dtype == y.dtype and np.array_equal(x, y), f
    assert heard == told.trace_.events == full.trace_.events


@pytest.mark.parametrize("classes", [["a", "b", "c"], list(range(70)), ["π", "x y", "3.5"]])
def test_the_words_said_once_a_run_are_the_plain_paths(classes):
    """The words a run makes once (the end of a read's words, a reinforcement's, a motors
    start's) are those the card-by-card path writes, for few classes and for more than are
    paired at once."""
    from mark1.machine.simulator import _Words

    rng = np.random.default_rng(0)
    words = _Words(np.array(classes, dtype=object))
    k = len(classes)
    a, c = rng.integers(0, k, 200), rng.integers(0, k, 200)
    for _ in range(2):                                     # made, then said again
        assert words.read_ends(a, c) == [f"; answer {classes[i]}, card shows {classes[j]}" for i, j in zip(a, c)]
    erred, moving = rng.integers(0, 4, 50), rng.integers(0, 900, 50)
    assert words.reinforcements(erred, moving) == [
        f"{e} R-unit{'s' if e != 1 else ''} erred, {m} pots commanded" for e, m in zip(erred.tolist(), moving.tolist())]
    pots, longest = rng.integers(1, 900, 50), np.r_[rng.choice([0.08, 0.12, 1 / 3], 47), 0.0, -0.0, 1e-7]
    for _ in range(2):
        assert words.starts(pots, longest) == [
            f"{n} pots, longest {t:.4g} s" for n, t in zip(pots.tolist(), longest.tolist())]


def test_a_full_traces_events_are_made_when_read_and_pickle_made():
    """A full trace nobody listens to keeps each block's events unmade; read, they are the
    events a listener of the same fit hears; pickled, made."""
    cards, labels = make_cards(12, np.random.default_rng(4), shapes=("x", "box", "bar"))
    full = MarkI(spec=specs.SMALL, seed=4, trace="full").fit(cards, labels, epochs=3)
    heard: list = []
    MarkI(spec=specs.SMALL, seed=4).fit(cards, labels, epochs=3, on_event=lambda *e: heard.append(e))
    events = full.trace_.events
    assert events._blocks and len(events) == len(heard) == len(full.trace_)
    again = pickle.loads(pickle.dumps(full.trace_))
    assert again.events == events == heard and isinstance(again.events, Kept)
    assert full.trace_.to_array()["time"].tolist() == [t for t, *_ in heard]
