"""A large deck is imaged and sensed a chunk at a time, with the same bits as all at once.

The thresholds are lowered here so that small decks take the large-deck paths.
"""

from __future__ import annotations

import numpy as np
import pytest

from mark1._utils import limits
from conftest import make_cards
from mark1 import MarkI, specs


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("spec", [specs.SMALL, specs.SMALL.ideal()], ids=["analog", "ideal"])
def test_chunked_sensing_and_lazy_light_change_nothing(seed, spec, monkeypatch):
    cards, labels = make_cards(30, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    test_cards, test_labels = make_cards(25, np.random.default_rng(seed + 100), shapes=("x", "box", "bar"))
    whole = MarkI(spec=spec, seed=seed).fit(cards, labels, epochs=2)
    s_whole = whole.sense(test_cards)
    sums_whole = whole.decision_function(test_cards)

    monkeypatch.setattr(limits, "SENSE_CHUNK", 7)            # 25 cards: 4 chunks
    monkeypatch.setattr(limits, "LIGHT_KEPT_BYTES", 0)       # every deck imaged on demand
    chunked = MarkI(spec=spec, seed=seed).fit(cards, labels, epochs=2)
    assert np.array_equal(whole.history_, chunked.history_)
    assert np.array_equal(whole.weights_, chunked.weights_)
    assert np.array_equal(s_whole, chunked.sense(test_cards))
    # read noise: the second machine's noise stream is at the same point as the first's
    np.testing.assert_allclose(chunked.decision_function(test_cards), sums_whole, rtol=0, atol=1e-12)
    assert chunked.score(test_cards, test_labels) == whole.score(test_cards, test_labels)


def test_uint8_cards_read_as_reflectance_times_255():
    cards, labels = make_cards(20, np.random.default_rng(4))
    as_bytes = np.rint(cards * 255).astype(np.uint8)
    a = MarkI(spec=specs.SMALL, seed=4).fit(as_bytes.astype(float) / 255.0, labels)
    b = MarkI(spec=specs.SMALL, seed=4).fit(as_bytes, labels)
    assert np.array_equal(a.history_, b.history_)


def test_uint8_cards_of_zeros_and_ones_are_refused():
    cards, labels = make_cards(8, np.random.default_rng(5))
    with pytest.raises(ValueError, match="8-bit reflectance"):
        MarkI(spec=specs.SMALL, seed=0).fit((cards > 0.5).astype(np.uint8), labels)
    mixed = np.rint(cards * 255).astype(np.uint8)
    mixed[0] = mixed[0] > 127                         # a first card of 0 and 1 only: the rest decides
    assert MarkI(spec=specs.SMALL, seed=0).fit(mixed, labels).history_.shape == (8,)


def test_positions_is_a_copy_the_rack_does_not_move():
    from mark1.machine.potentiometers import PotentiometerRack
    rack = PotentiometerRack(specs.SMALL.ideal().rack, 1, 4, 8)
    before = rack.positions(0.0)
    rack.apply(*rack.plan(np.array([[0.5, 0.0, 0.0, 0.0]]), 0.0), 0.0)
    assert before.tolist() == [[0.0, 0.0, 0.0, 0.0]] and rack.positions(1.0)[0, 0] == 0.5
