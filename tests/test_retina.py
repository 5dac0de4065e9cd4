"""Camera optics and CdS photocells: closed-form dynamics, light history, cell spread,
the affine scan against a naive loop, and what an under-settled retina reads."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import make_cards, white_cards
from mark1 import MarkI, specs
from mark1.retina import Retina, RetinaState, area_average_matrix
from mark1.specs import RetinaSpec

E1 = 1.0 - math.exp(-1.0)


def naive_scan(x0, c, b):
    x = [np.asarray(x0, float)]
    for i in range(len(c)):
        x.append(c[i] * x[-1] + b[i])
    return np.array(x)


# -- affine scan ---------------------------------------------------------------------------

factor = st.one_of(
    st.floats(0.0, 1.0),
    st.just(0.0), st.just(1.0),
    st.floats(-320.0, -10.0).map(lambda e: 10.0 ** e),     # tiny, down to the subnormals
    st.floats(-10.0, 0.0).map(lambda e: 10.0 ** e),
)


@settings(max_examples=300)
@given(c=st.lists(factor, min_size=0, max_size=80), m=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_affine_scan_matches_naive_loop(c, m, seed):
    """Random factors in [0, 1], tiny ones and exact 0 and 1 included, against the
    naive recurrence: relative error < 1e-12."""
    rng = np.random.default_rng(seed)
    c = np.array(c, float)
    b = rng.uniform(1e-3, 1.0, (len(c), m))
    x0 = rng.uniform(0.0, 1.0, m)
    got = affine_scan(x0, c, b)
    ref = naive_scan(x0, c, b)
    assert got.shape == (len(c) + 1, m)
    rel = np.abs(got - ref) / np.abs(ref)
    assert np.all(rel[1:] < 1e-12), (rel.max(), c)
    assert np.array_equal(got[0], x0)


@settings(max_examples=150)
@given(c=st.lists(factor, min_size=1, max_size=64), seed=st.integers(0, 2**32 - 1))
def test_affine_scan_with_zero_inputs(c, seed):
    """Inputs that are exactly 0 (dark cells): the error stays within float64 resolution of
    the largest input, and relative 1e-12 where the result is not negligible."""
    rng = np.random.default_rng(seed)
    c = np.array(c, float)
    b = rng.uniform(0.0, 1.0, (len(c), 3)) * (rng.random((len(c), 3)) < 0.5)
    x0 = rng.uniform(0.0, 1.0, 3) * (rng.random(3) < 0.5)
    got = affine_scan(x0, c, b)
    ref = naive_scan(x0, c, b)
    scale = max(float(b.max(initial=0.0)), float(x0.max()), 1e-300)
    assert np.all(np.abs(got - ref) <= 1e-12 * np.abs(ref) + 2.0 ** -52 * scale)
    assert np.all(got >= 0)


def test_affine_scan_known_values():
    x = affine_scan(np.array([2.0]), np.array([0.5, 0.5, 0.0, 1.0]), np.array([[1.0], [0.0], [3.0], [1.0]]))
    np.testing.assert_allclose(x[:, 0], [2.0, 2.0, 1.0, 3.0, 4.0], rtol=1e-15)
    assert affine_scan(np.ones(3), np.zeros(0), np.zeros((0, 3))).tolist() == [[1.0, 1.0, 1.0]]


@pytest.mark.parametrize("n_zeros", [100, 10000])
def test_affine_scan_precision_after_many_forgetting_steps(n_zeros):
    """Regression: a running sum of log c over the whole sequence (a zero factor adds
    log(1e-300)) once cost ulp(|sum|) of accuracy in every later chunk."""
    c = np.concatenate([np.zeros(n_zeros), np.full(5, 0.7)])
    b = np.ones((len(c), 1))
    got, ref = affine_scan(np.ones(1), c, b), naive_scan(np.ones(1), c, b)
    assert np.max(np.abs(got - ref) / ref) < 1e-12


@pytest.mark.parametrize("n", [300, 2000])
def test_affine_scan_long_chunk_precision(n):
    """Regression: one factor near exp(-600) followed by a long run of factors near 1."""
    c = np.concatenate([[math.exp(-599.3)], np.full(n, 0.999)])
    b = np.concatenate([[1.0], np.full(n, 1e-3)])[:, None]
    got = affine_scan(np.ones(1), c, b)
    ref = naive_scan(np.ones(1), c, b)
    assert np.max(np.abs(got - ref) / ref) < 1e-12


# -- optics ----------------------------------------------------------------------------------

def test_area_average_matrix():
    m = area_average_matrix(40, 20)
    assert m.shape == (20, 40)
    np.testing.assert_allclose(m.sum(axis=1), 1.0, rtol=1e-15)
    assert np.allclose(m[3, 6:8], 0.5) and m[3].sum() == pytest.approx(1.0)
    m = area_average_matrix(50, 20)                     # 2.5 pixels per cell
    np.testing.assert_allclose(m.sum(axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(m.sum(axis=0), 20 / 50, rtol=1e-14)   # every pixel counted once
    assert np.array_equal(area_average_matrix(20, 20), np.eye(20))


def test_uniform_card_sees_only_the_lighting():
    spec = RetinaSpec(uneven_lighting=0.2, lamp_level=0.8, blur=0.7)
    r = Retina(spec)
    ill = r.illuminance(white_cards(1, size=40))[0]
    np.testing.assert_allclose(ill, 0.8 * r.lighting, rtol=1e-12)
    assert r.lighting[0, 0] == pytest.approx(1 - 0.2) and r.lighting[-1, -1] == pytest.approx(1 - 0.2)
    assert r.lighting.max() <= 1.0 and r.lighting.min() == pytest.approx(0.8)


def test_sharp_lens_images_the_card_exactly():
    spec = RetinaSpec(blur=0.0, uneven_lighting=0.0)
    r = Retina(spec)
    card = np.random.default_rng(0).uniform(0, 1, (2, 40, 40))
    ill = r.illuminance(card)
    np.testing.assert_allclose(ill, card.reshape(2, 20, 2, 20, 2).mean(axis=(2, 4)), rtol=1e-12)


def test_polarity_static():
    cards, _ = make_cards(4, np.random.default_rng(1), max_shift=0)
    spec = RetinaSpec(blur=0.0, uneven_lighting=0.0, cell_spread=0.0)
    light = Retina(spec).light(cards)
    ink_cells = light < spec.threshold
    fig = Retina(spec).sense_static(cards)
    gnd = Retina(spec.replace(polarity="ground")).sense_static(cards)
    assert np.array_equal(fig, ink_cells) and np.array_equal(gnd, ~ink_cells)
    assert fig.any() and gnd.any()


# -- photocell dynamics ----------------------------------------------------------------------

@pytest.mark.parametrize("rise", [0.055, 0.02, 0.3])
def test_signal_after_one_rise_time_is_one_minus_one_over_e(rise):
    spec = RetinaSpec(rise_time=rise)
    sens = Retina.sensitivity_spread(spec, np.random.default_rng(3))
    r = Retina(spec, sens)
    light = r.light(white_cards(1))
    signal, _ = r.expose(light, np.array([0.8]), RetinaState.dark(r.n_cells), card_change=0.2, settle=rise)
    final = r.steady_signal(light)
    np.testing.assert_allclose(signal, E1 * final, rtol=1e-9)
    assert r.step_response(np.array([rise]))[0] == pytest.approx(E1, rel=1e-12)


def test_without_dynamics_the_signal_is_the_steady_signal():
    spec = RetinaSpec(dynamics=False, history_ratio=1.0)
    r = Retina(spec, Retina.sensitivity_spread(spec, np.random.default_rng(0)))
    cards, _ = make_cards(5, np.random.default_rng(0))
    light = r.light(cards)
    signal, _ = r.expose(light, np.full(5, 0.8), RetinaState.dark(r.n_cells), card_change=0.2, settle=0.01)
    np.testing.assert_allclose(signal, r.steady_signal(light), rtol=1e-15)
    assert np.array_equal(r.fire(signal), r.sense_static(cards))


def test_expose_restarts_from_its_end_states():
    """Showing 7 cards at once equals showing 3, then 4 from the returned state."""
    spec = RetinaSpec()
    r = Retina(spec, Retina.sensitivity_spread(spec, np.random.default_rng(5)))
    cards, _ = make_cards(7, np.random.default_rng(5))
    light = r.light(cards)
    lit = np.array([0.8, 1.3, 0.8, 0.8, 2.0, 0.8, 0.8])
    whole, ends = r.expose(light, lit, RetinaState.dark(r.n_cells), card_change=0.2, settle=0.3)
    first, ends1 = r.expose(light[:3], lit[:3], RetinaState.dark(r.n_cells), card_change=0.2, settle=0.3)
    rest, _ = r.expose(light[3:], lit[3:], ends1.at(3), card_change=0.2, settle=0.3)
    np.testing.assert_allclose(np.vstack([first, rest]), whole, rtol=1e-12)
    np.testing.assert_allclose(ends.fast[3], ends1.fast[3], rtol=1e-12)


def test_slow_tail_remembers_a_bright_card():
    spec = RetinaSpec(history_ratio=1.0)
    r = Retina(spec)
    black = np.zeros((1, 40, 40))
    cards = np.concatenate([white_cards(1), black])
    signal, _ = r.expose(r.light(cards), np.array([0.8, 0.8]), RetinaState.dark(r.n_cells),
                         card_change=0.2, settle=0.3)
    # a black card reads 0 from the dark, but above 0 right after a white card
    assert np.all(signal[1] > 0)
    # the memory is the slow component: exp(-0.2/0.5) of it survives the card change
    expected = (spec.slow_fraction * math.exp(-0.2 / spec.slow_fall_time)
                + (1 - spec.slow_fraction) * math.exp(-0.2 / spec.fall_time)) * math.exp(-0.3 / spec.rise_time)
    np.testing.assert_allclose(signal[1] / r.steady_signal(r.light(cards[:1]))[0],
                               expected * (1 - math.exp(-0.8 / spec.rise_time)), rtol=1e-9)


@settings(max_examples=8)
@given(seed=st.integers(0, 2**32 - 1))
def test_short_settle_figure_polarity_fires_more(seed):
    """With polarity 'figure' (dark cells fire), an under-settled retina still reads
    dark, so MORE S-units fire than with a long settle."""
    cards, _ = make_cards(12, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    counts = {}
    for settle in (0.01, 0.3):
        spec = specs.SMALL.with_overrides({"timing.settle": settle, "retina.polarity": "figure"})
        counts[settle] = MarkI(spec=spec, seed=seed).sense(cards).sum(axis=1)
    assert np.all(counts[0.01] >= counts[0.3])
    assert counts[0.01].sum() > counts[0.3].sum()
    # most of the paper is white, so nearly every cell still reads dark after 10 ms
    assert np.all(counts[0.01] > 0.9 * 400)


@settings(max_examples=8)
@given(seed=st.integers(0, 2**32 - 1))
def test_short_settle_ground_polarity_fires_fewer(seed):
    """With polarity 'ground' (bright cells fire), an under-settled retina reads too
    dark, so FEWER S-units fire than with a long settle."""
    cards, _ = make_cards(12, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    counts = {}
    for settle in (0.01, 0.3):
        spec = specs.SMALL.with_overrides({"timing.settle": settle, "retina.polarity": "ground"})
        counts[settle] = MarkI(spec=spec, seed=seed).sense(cards).sum(axis=1)
    assert np.all(counts[0.01] <= counts[0.3])
    assert counts[0.01].sum() < counts[0.3].sum()


def test_long_settle_reads_the_figure():
    """With a long settle the dynamic reading of well-separated cards equals the static one."""
    spec = specs.SMALL.with_overrides({"timing.settle": 0.75, "retina.history_ratio": 1.0})
    cards, _ = make_cards(6, np.random.default_rng(0))
    m = MarkI(spec=spec, seed=0)
    assert np.array_equal(m.sense(cards), m.retina.sense_static(cards))


# -- light history ------------------------------------------------------------------------------

def test_light_history_lowers_the_next_reading_of_the_same_card():
    cards = white_cards(3)
    lit = np.full(3, 0.8)
    signals = {}
    for ratio in (1.0, 1.5):
        r = Retina(RetinaSpec(history_ratio=ratio))
        signals[ratio], _ = r.expose(r.light(cards), lit, RetinaState.dark(r.n_cells), card_change=0.2, settle=0.3)
    # first card from dark-adapted cells: no difference
    np.testing.assert_allclose(signals[1.5][0], signals[1.0][0], rtol=1e-12)
    # the next ones read measurably lower, and lower still as adaptation builds up
    assert np.all(signals[1.5][1] < 0.97 * signals[1.0][1])
    assert np.all(signals[1.5][2] / signals[1.0][2] < signals[1.5][1] / signals[1.0][1])


@pytest.mark.parametrize("ratio, history_time", [(1.5, 5.0), (5.5, 1.0), (1.1, 20.0)])
def test_light_history_exact_without_dynamics(ratio, history_time):
    spec = RetinaSpec(dynamics=False, history_ratio=ratio, history_time=history_time)
    r = Retina(spec)
    light = r.light(white_cards(2))
    lit, cc = 0.8, 0.2
    signal, ends = r.expose(light, np.full(2, lit), RetinaState.dark(r.n_cells), card_change=cc, settle=0.3)
    h_on = math.exp(-cc / history_time) * (1 - math.exp(-lit / history_time)) * light[0]
    np.testing.assert_allclose(signal[0], r.steady_signal(light[:1])[0], rtol=1e-12)
    np.testing.assert_allclose(signal[1] / signal[0], 1.0 / (1.0 + (ratio - 1.0) * h_on), rtol=1e-12)
    np.testing.assert_allclose(ends.history[1], (1 - math.exp(-lit / history_time)) * light[0], rtol=1e-12)


# -- cell-to-cell spread ----------------------------------------------------------------------

def test_cell_spread_follows_its_seed():
    spec = RetinaSpec(cell_spread=0.15)
    for seed in range(4):
        a = Retina.sensitivity_spread(spec, np.random.default_rng(seed))
        b = Retina.sensitivity_spread(spec, np.random.default_rng(seed))
        c = Retina.sensitivity_spread(spec, np.random.default_rng(seed + 1))
        assert np.array_equal(a, b) and not np.array_equal(a, c)
        assert a.shape == (400,) and np.all(a > 0)
        assert 0.05 < np.std(np.log(a)) < 0.3
    flat = Retina.sensitivity_spread(RetinaSpec(cell_spread=0.0), np.random.default_rng(0))
    assert np.array_equal(flat, np.ones(400))


def test_machine_sensitivities_follow_the_seed():
    for seed in range(3):
        a = MarkI(spec=specs.SMALL, seed=seed).retina.sensitivity
        b = MarkI(spec=specs.SMALL, seed=seed, noise_seed=99).retina.sensitivity
        c = MarkI(spec=specs.SMALL, seed=seed + 1).retina.sensitivity
        assert np.array_equal(a, b) and not np.array_equal(a, c)
    ones = MarkI(spec=specs.SMALL.without("cell_spread"), seed=0).retina.sensitivity
    assert np.array_equal(ones, np.ones(400))


def test_cell_spread_scales_the_steady_signal():
    spec = RetinaSpec(cell_spread=0.3, blur=0.0, uneven_lighting=0.0)
    sens = Retina.sensitivity_spread(spec, np.random.default_rng(2))
    r = Retina(spec, sens)
    light = r.light(np.full((1, 40, 40), 0.5))
    np.testing.assert_allclose(r.steady_signal(light)[0], sens * 0.5 ** spec.gamma, rtol=1e-12)
    with pytest.raises(ValueError, match="sensitivity"):
        Retina(spec, np.ones(10))


def test_non_square_cards_and_other_retina_sizes():
    spec = RetinaSpec(shape=(10, 15), blur=0.0, uneven_lighting=0.0)
    r = Retina(spec)
    card = np.ones((2, 40, 60))
    card[:, :4, :4] = 0.0                               # ink in the top-left cell only
    light = r.light(card)
    assert light.shape == (2, 150)
    assert light[0, 0] == pytest.approx(0.0) and np.allclose(light[0, 1:], 1.0)
    m = MarkI(spec=specs.SMALL.with_overrides({"retina.shape": (10, 15)}), seed=0)
    s = m.sense(np.ones((3, 30, 45)))
    assert s.shape == (3, 150) and s.dtype == bool
    assert m.patchboard.n_sensors == 150
