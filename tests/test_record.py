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
