"""One rule for ties, on every path: a sum within the tie zone of 0 is 0, and 0 is an error.

The fast ideal path counts increments in integers; the event simulation adds them in
floating point. Without a common tie rule a mathematically zero sum read as +2.8e-17
made the two diverge (square vs circle, seed 0, presentation 7).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mark1
from mark1 import MarkI, specs
from mark1.machine.perceptron import train_error_correction
from mark1.machine.response import OutputCode
from mark1.machine.rules import TIE_RTOL, alpha, erring, tie_tolerance
from mark1.stimuli.cards import scene_cards
from mark1.specs import ResponseSpec

ROOT = Path(__file__).resolve().parents[1]


def test_tie_zone_is_far_below_an_increment_and_far_above_rounding():
    tie = tie_tolerance(0.02, 513)
    assert tie == pytest.approx(TIE_RTOL * 0.02 * 513)
    assert tie < 0.02 * 1e-6                      # a sum one increment away is never a tie
    # the rounding of 513 wiper positions of full scale is about 513 * 1.1e-16
    assert tie > 1e3 * 513 * np.finfo(float).eps


def test_a_sum_in_the_tie_zone_is_an_error_for_either_target():
    tie = tie_tolerance(0.02, 513)
    sums = np.array([2.8e-17, -2.8e-17, 0.0, tie, 2 * tie, -2 * tie])
    assert erring(np.ones(6), sums, tie).tolist() == [True, True, True, True, False, True]
    assert erring(-np.ones(6), sums, tie).tolist() == [True, True, True, True, True, False]


def test_alpha_corrects_a_unit_whose_sum_is_a_rounding_error_away_from_zero():
    phi = np.array([True, False, True])
    mask = np.ones((1, 3), bool)
    move = alpha(phi, np.array([1]), np.array([2.8e-17]), mask, 0.02, tie=tie_tolerance(0.02, 3))
    assert move.tolist() == [[0.02, 0.0, 0.02]]


@given(st.integers(2, 8), st.integers(0, 2**32 - 1))
def test_decoding_treats_sums_within_the_tie_zone_as_equal(k, seed):
    rng = np.random.default_rng(seed)
    tie = tie_tolerance(0.02, 513)
    code = OutputCode(np.arange(k), ResponseSpec(code="one-per-class" if k > 2 else "single"), tie=tie)
    sums = rng.integers(-3, 4, size=(50, code.n_units)) * 0.02
    jitter = rng.uniform(-1, 1, size=sums.shape) * 1e-15      # rounding of another summation order
    assert np.array_equal(code.decode(sums), code.decode(sums + jitter))


def test_binary_decoding_is_stable_under_rounding():
    rng = np.random.default_rng(1)
    code = OutputCode(np.arange(26), ResponseSpec(), tie=tie_tolerance(0.02, 513))
    sums = rng.integers(-3, 4, size=(200, code.n_units)) * 0.02
    assert np.array_equal(code.decode(sums), code.decode(sums + rng.uniform(-1e-15, 1e-15, sums.shape)))


def test_core_counts_sums_in_its_tie_zone_as_errors():
    X = np.array([[1.0, 1.0], [1.0, -1.0]])
    T = np.array([1.0, 1.0])
    w0 = np.array([[1e-12, 0.0]])            # the first sum is 1e-12: positive, but a tie at 1e-9
    r0 = train_error_correction(X, T, epochs=1, w0=w0)
    r1 = train_error_correction(X, T, epochs=1, w0=w0, tie=1e-9)
    assert not r0.errors[0, 0] and r1.errors[0, 0]
    with pytest.raises(ValueError, match="tie"):
        train_error_correction(X, T, epochs=1, tie=-1.0)


@pytest.mark.parametrize("scene_name", ["square_vs_circle", "e_vs_f"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_and_event_paths_agree_exactly_on_the_ideal_machine(scene_name, seed):
    scene = mark1.load_scene(ROOT / "scenes" / f"{scene_name}.toml")
    train, test, machine_seed = scene_cards(scene, seed, train_count=300, test_count=60)
    spec = scene.machine_spec().ideal()
    runs = [MarkI(spec=spec, seed=machine_seed, fast=fast).fit(train.cards, train.labels, epochs=3)
            for fast in (True, False)]
    fast, event = runs
    for field in fast.history_.dtype.names:
        assert np.array_equal(fast.history_[field], event.history_[field]), field
    assert fast.machine_time_ == event.machine_time_
    assert np.array_equal(fast.predict(test.cards), event.predict(test.cards))
    np.testing.assert_allclose(fast.weights_, event.weights_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 3])
def test_a_non_ideality_that_cannot_act_changes_nothing(seed):
    """End stops that no wiper reaches, and a ratchet switch on a continuous drive."""
    scene = mark1.load_scene(ROOT / "scenes" / "e_vs_f.toml")
    train, test, machine_seed = scene_cards(scene, seed, train_count=40, test_count=40)
    ideal = scene.machine_spec().ideal()
    with_stops = ideal.with_overrides({"rack.end_stops": True})
    assert not with_stops.is_ideal                     # so it takes the event path
    a = MarkI(spec=ideal, seed=machine_seed).fit(train.cards, train.labels, epochs=2)
    b = MarkI(spec=with_stops, seed=machine_seed).fit(train.cards, train.labels, epochs=2)
    assert np.abs(b.weights_).max() < 1.0               # the stops were never reached
    assert np.array_equal(a.history_, b.history_)
    assert a.score(test.cards, test.labels) == b.score(test.cards, test.labels)
    assert ideal.without("ratchet") == ideal


def test_digital_keeps_the_sensing_side_and_idealizes_only_the_rack():
    digital = specs.MARK_I.digital()
    assert digital.retina == specs.MARK_I.retina and digital.patchboard == specs.MARK_I.patchboard
    assert digital.timing == specs.MARK_I.timing and digital.trainer == specs.MARK_I.trainer
    for name in specs.LEARNER_NON_IDEALITIES:
        assert not digital.is_on(name)
    for name in set(specs.NON_IDEALITIES) - set(specs.LEARNER_NON_IDEALITIES):
        assert digital.is_on(name) == specs.MARK_I.is_on(name)
    assert digital.digital() == digital and "digital" in digital.name
    assert specs.MARK_I.digital().ideal().without() == specs.MARK_I.ideal().with_overrides(
        {"name": specs.MARK_I.digital().ideal().name})
    assert specs.MARK_I.ideal().retina != specs.MARK_I.retina       # ideal() changes the retina


@pytest.mark.parametrize("seed", [0, 5])
def test_digital_learner_sees_the_analog_machines_own_phi(seed):
    """With overlap on, the analog machine never shifts its schedule, so both machines
    see each card at the same times and must sense exactly the same S and φ."""
    from conftest import make_cards
    cards, labels = make_cards(40, np.random.default_rng(seed))
    spec = specs.SMALL.with_overrides({"timing.overlap": True})
    analog = MarkI(spec=spec, seed=seed).fit(cards, labels, epochs=2)
    digital = MarkI(spec=spec.digital(), seed=seed).fit(cards, labels, epochs=2)
    assert np.array_equal(analog.history_["s_active"], digital.history_["s_active"])
    assert np.array_equal(analog.history_["a_active"], digital.history_["a_active"])
