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
from mark1.exceptions import InputError
from mark1.machine import retina as retina_module
from mark1.machine.retina import Retina, RetinaState, _blur_matrix, _power_tables, area_average_matrix
from mark1.specs import RetinaSpec

E1 = 1.0 - math.exp(-1.0)


def naive_exposure(spec, sensitivity, light, lit, state, card_change, settle):
    """The photocells card by card, written as relaxations towards the target (an
    independent form of the recurrence in :meth:`Retina.expose`)."""
    fast, slow, h = (np.array(x, float) for x in (state.fast, state.slow, state.history))
    signals = []
    for i in range(len(light)):
        h_on = h * math.exp(-card_change / spec.history_time)
        target = sensitivity * light[i] ** spec.gamma / (1.0 + (spec.history_ratio - 1.0) * h_on)
        if spec.history_ratio == 1.0:
            target = sensitivity * light[i] ** spec.gamma
        if not spec.dynamics:
            signals.append(target)
        else:
            fast_on = fast * math.exp(-card_change / spec.fall_time)
            slow_on = slow * math.exp(-card_change / spec.slow_fall_time)
            on = (1.0 - spec.slow_fraction) * fast_on + spec.slow_fraction * slow_on
            signals.append(target + (on - target) * math.exp(-settle / spec.rise_time))
            fast = target + (fast_on - target) * math.exp(-lit[i] / spec.rise_time)
            slow = target + (slow_on - target) * math.exp(-lit[i] / spec.rise_time)
        h = light[i] + (h_on - light[i]) * math.exp(-lit[i] / spec.history_time)
    return np.array(signals).reshape(light.shape), fast, slow, h


def assert_close_to_naive(spec, light, lit, card_change, settle, seed):
    rng = np.random.default_rng(seed)
    r = Retina(spec, Retina.sensitivity_spread(spec, rng))
    state = RetinaState(*(rng.uniform(0.0, 1.0, r.n_cells) for _ in range(3)))
    signal, ends = r.expose(light, lit, state, card_change=card_change, settle=settle)
    ref, fast, slow, h = naive_exposure(spec, r.sensitivity, light, lit, state, card_change, settle)
    scale = 2.0 ** -50 * max(1.0, float(ref.max(initial=0.0)))      # float64 resolution of the largest
    assert signal.shape == light.shape and ends.history.shape == (len(light) + 1, r.n_cells)
    assert np.all(np.abs(signal - ref) <= 1e-12 * np.abs(ref) + scale)
    if spec.history_ratio != 1.0:
        np.testing.assert_allclose(ends.history[-1], h, rtol=1e-12, atol=2.0 ** -50)
    if spec.dynamics:
        np.testing.assert_allclose(ends.fast[-1], fast, rtol=1e-12, atol=scale)
        np.testing.assert_allclose(ends.slow[-1], slow, rtol=1e-12, atol=scale)
    assert np.array_equal(ends.history[0], state.history)


# -- photocell recurrence --------------------------------------------------------------------

seconds = st.floats(-4.0, 1.0).map(lambda e: 10.0 ** e)          # 0.1 ms to 10 s


@settings(max_examples=60)
@given(rise=seconds, fall=seconds, slow_fall=seconds, history_time=seconds,
       slow_fraction=st.floats(0.0, 1.0), ratio=st.one_of(st.just(1.0), st.floats(1.0, 5.5)),
       dynamics=st.booleans(), n=st.integers(0, 30), card_change=st.floats(0.0, 1.0),
       seed=st.integers(0, 2**32 - 1))
def test_expose_matches_a_card_by_card_loop(rise, fall, slow_fall, history_time, slow_fraction, ratio,
                                            dynamics, n, card_change, seed):
    """Random time constants (fast and slow, so the factors span 0 to nearly 1), lamp
    times and light, dark cells included: relative error < 1e-12 against the loop."""
    spec = RetinaSpec(shape=(2, 3), rise_time=rise, fall_time=fall, slow_fall_time=slow_fall,
                      history_time=history_time, slow_fraction=slow_fraction, history_ratio=ratio,
                      dynamics=dynamics)
    rng = np.random.default_rng(seed)
    light = rng.uniform(0.0, 1.2, (n, 6)) * (rng.random((n, 6)) < 0.8)
    lit = rng.uniform(0.0, 2.0, n)
    settle = float(rng.uniform(0.0, 1.0))
    assert_close_to_naive(spec, light, lit, card_change, settle, seed)


@pytest.mark.parametrize("n, rise, slow_fall", [(10000, 1e-4, 1e-4),     # every card forgets the past
                                                (2000, 0.055, 1e3)])      # a tail that never fades
def test_expose_long_schedules(n, rise, slow_fall):
    """Regressions of the former scan: precision after many forgetting steps, and a long
    run of factors near 1."""
    spec = RetinaSpec(shape=(1, 2), rise_time=rise, slow_fall_time=slow_fall)
    rng = np.random.default_rng(n)
    light = rng.uniform(0.0, 1.0, (n, 2))
    assert_close_to_naive(spec, light, np.full(n, 0.8), 0.2, 0.3, n)


# -- optics ----------------------------------------------------------------------------------

def dense_light(r, cards):
    """The camera as the product of its dense matrices (blur after area average), clipped."""
    rows, cols = r.spec.shape
    h, w = cards.shape[1:]
    blur_r, blur_c = _blur_matrix(rows, r.spec.blur), _blur_matrix(cols, r.spec.blur)
    ar, ac = blur_r @ area_average_matrix(h, rows), blur_c @ area_average_matrix(w, cols)
    imaged = np.einsum("ry,nyx,cx->nrc", ar, cards, ac) * (r.spec.lamp_level * r.lighting)
    return np.clip(imaged.reshape(len(cards), -1), 0.0, None)


@settings(max_examples=30)
@given(h=st.integers(1, 70), w=st.integers(1, 70), shape=st.sampled_from([(20, 20), (10, 15), (3, 1)]),
       blur=st.sampled_from([0.0, 0.3, 0.7, 2.5]), seed=st.integers(0, 2**32 - 1))
def test_light_matches_the_dense_camera(h, w, shape, blur, seed):
    """Any card size (integer pixel ratio or not, smaller than the retina too), any blur:
    the banded imaging equals the dense matrix product to 1e-12."""
    spec = RetinaSpec(shape=shape, blur=min(blur, min(shape)), uneven_lighting=0.2, lamp_level=0.9)
    r = Retina(spec)
    cards = np.random.default_rng(seed).uniform(0.0, 1.0, (3, h, w))
    np.testing.assert_allclose(r.light(cards), dense_light(r, cards), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r.illuminance(cards).reshape(3, -1), dense_light(r, cards), rtol=1e-12,
                               atol=1e-15)


@pytest.mark.parametrize("size", [(60, 60), (28, 28), (64, 48), (20, 20)])
def test_light_does_not_depend_on_the_chunk(size):
    """The machine images large decks lazily in chunks: each card's light is the same
    bits whether imaged with the whole deck or in any slice of it (float64, uint8 and
    float32 decks, and a non-contiguous one)."""
    r = Retina(RetinaSpec(), Retina.sensitivity_spread(RetinaSpec(), np.random.default_rng(1)))
    cards = np.random.default_rng(2).uniform(0.0, 1.0, (41,) + size)
    for deck in (cards, (cards * 255).round().astype(np.uint8), cards.astype(np.float32), cards[:, ::-1]):
        whole = r.light(deck)
        parts = np.concatenate([r.light(deck[a:b]) for a, b in ((0, 1), (1, 8), (8, 40), (40, 41))])
        assert np.array_equal(whole, parts)
        assert np.array_equal(r.light(deck[[5, 3]]), whole[[5, 3]])


def test_uint8_cards_are_reflectance_times_255():
    """An 8-bit deck reads exactly as the float deck ``cards / 255``, bit for bit."""
    r = Retina(RetinaSpec())
    cards = np.random.default_rng(3).integers(0, 256, (5, 60, 60)).astype(np.uint8)
    cards[0, :16, :16] = np.arange(256).reshape(16, 16)            # every level
    assert np.array_equal(r.light(cards), r.light(cards / 255.0))
    assert np.array_equal(r.illuminance(cards), r.illuminance(cards / 255.0))      # (contact sheets use it)


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


# -- the power law ------------------------------------------------------------------------------

@settings(max_examples=40)
@given(gamma=st.one_of(st.floats(0.01, 2.0), st.sampled_from([0.6, 0.7, 0.8, 1.0, 2.0])),
       seed=st.integers(0, 2**32 - 1))
def test_steady_signal_is_the_power_law(gamma, seed):
    """Table power law against ``light ** gamma`` (libm): within 1e-15 relative over light
    from 1e-300 to 1e300 (measured: at most 3 ulp), exact at 0 and 1, and libm's own
    answer for NaN, negative, subnormal and infinite light."""
    spec = RetinaSpec(shape=(1, 8), gamma=gamma)
    rng = np.random.default_rng(seed)
    sens = np.exp(0.3 * rng.standard_normal(8))
    r = Retina(spec, sens)
    light = np.concatenate([10.0 ** rng.uniform(-300, 300, (200, 8)), rng.uniform(0, 1.5, (200, 8)),
                            [[0.0, 1.0, 5e-324, 1e-310, np.inf, np.nan, -0.5, 2.0 ** -1022]]])
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        ref = sens * light ** gamma
    got = r.steady_signal(light)
    fin = np.isfinite(ref) & (ref > 1e-300)
    np.testing.assert_allclose(got[fin], ref[fin], rtol=1e-15)
    # results below 1e-300 (subnormal ones lose bits) to a few of the smallest floats
    assert np.array_equal(np.isnan(got), np.isnan(ref)) and np.array_equal(np.isinf(got), np.isinf(ref))
    tiny = ~fin & np.isfinite(ref)
    assert np.all(np.abs(got[tiny] - ref[tiny]) <= 1e-15 * np.abs(ref[tiny]) + 4 * 5e-324)
    assert got[-1, 0] == 0.0 and got[-1, 1] == sens[1]
    h = rng.uniform(0, 1, (401, 8))
    np.testing.assert_allclose(r.steady_signal(light[:401], h),
                               got[:401] / (1.0 + (spec.history_ratio - 1.0) * h), rtol=1e-15)


@settings(max_examples=40)
@given(gamma=st.one_of(st.floats(0.01, 2.0), st.sampled_from([0.6, 0.7, 0.8, 1.0, 2.0])),
       seed=st.integers(0, 2**32 - 1))
def test_power_of_a_few_values_in_numpy_is_the_compiled_loop_bit_for_bit(gamma, seed):
    """``Retina.power`` of positive normal light (numpy, nothing compiled) gives the very
    bits of the compiled loop (``steady_signal`` of a nominal cell), over light from the
    smallest normal float to the largest; other light takes the compiled loop itself."""
    spec = RetinaSpec(shape=(1, 8), gamma=gamma)
    rng = np.random.default_rng(seed)
    r = Retina(spec)
    light = np.concatenate([10.0 ** rng.uniform(-307, 308, 300), rng.uniform(0, 1.5, 300),
                            [2.0 ** -1022, 1.7976931348623157e308, 1.0, 0.5, 2.0, 0.2, 51 / 255, 1e-5]])
    compiled_loop = r.steady_signal(light.reshape(-1, 8))
    assert retina_module._power_few(light, r._law(np.ones(len(light)))) is not None
    assert np.array_equal(r.power(light).view(np.int64), compiled_loop.reshape(-1).view(np.int64))
    odd = np.array([0.0, 5e-324, np.inf, np.nan, -0.5, 1.0, 0.3, 1e-310])
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        assert retina_module._power_few(odd, r._law(np.ones(8))) is None
        np.testing.assert_array_equal(r.power(odd), r.steady_signal(odd.reshape(1, 8))[0])


def test_a_cell_lit_exactly_at_the_threshold_reads_the_threshold():
    """The threshold signal comes from the same power law as every signal: light exactly at
    the threshold does not fire (a fraction of an ulp darker would)."""
    spec = RetinaSpec(blur=0.0, uneven_lighting=0.0, cell_spread=0.0, threshold=0.2, lamp_level=1.0)
    r = Retina(spec)
    at = np.full((1, 60, 60), 51, np.uint8)                 # 51 / 255 is the double nearest 0.2
    assert np.all(r.light(at) == 0.2)
    assert r.steady_signal(r.light(at))[0, 0] == r.signal_threshold
    assert not r.sense_static(at).any()
    assert r.sense_static(np.full((1, 60, 60), 50, np.uint8)).all()
    for gamma in (0.5, 0.7, 1.0, 1.3):
        g = Retina(RetinaSpec(gamma=gamma, threshold=0.37))
        assert g.steady_signal(np.full((1, g.n_cells), 0.37))[0, 5] == g.signal_threshold


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), repeat=st.floats(0.0, 1.0))
def test_steady_signal_of_a_repeated_light_is_that_of_the_light_alone(seed, repeat):
    """A cell lit as on the card before takes the signal it had then: the same bits as
    that light computed on its own, for any mix of repeats, zeros, NaN and infinities."""
    rng = np.random.default_rng(seed)
    r = Retina(RetinaSpec(shape=(2, 5)), np.exp(0.2 * rng.standard_normal(10)))
    pool = np.r_[rng.uniform(0.0, 1.5, 6), 0.0, -0.0, np.nan, np.inf, 1.0]
    light = rng.choice(pool, (60, 10))
    same = rng.random((60, 10)) < repeat
    for i in range(1, 60):
        light[i, same[i]] = light[i - 1, same[i]]
    whole = r.steady_signal(light)
    alone = np.concatenate([r.steady_signal(row[None]) for row in light])
    assert np.array_equal(whole.view(np.int64), alone.view(np.int64))


def table_power(x, gamma, sensitivity):
    """The table power law for one light in Python floats, every table read as the kernel
    first read them (the knot and the scale from their tables): the reference of its bits."""
    power, scale, knot, knot_power, inv_knot, c = _power_tables(gamma)
    if not (2.2250738585072014e-308 <= x <= 1.7976931348623157e308):
        try:
            return sensitivity * math.pow(x, gamma)
        except ValueError:                      # a negative light: libm's NaN
            return math.nan
    bits = int(np.float64(x).view(np.int64))
    e, b = bits >> 52, (bits >> 44) & 255
    t = (x * scale[e] - knot[b]) * inv_knot[b]
    p = 1.0 + t * (c[1] + t * (c[2] + t * (c[3] + t * (c[4] + t * (c[5] + t * c[6])))))
    return sensitivity * (power[e] * knot_power[b] * p)


@settings(max_examples=20)
@given(gamma=st.one_of(st.floats(0.01, 2.0), st.sampled_from([0.6, 0.7, 0.8, 1.0, 2.0])),
       seed=st.integers(0, 2**32 - 1))
def test_steady_signal_has_the_bits_of_the_table_law(gamma, seed):
    """The vectorized power law (knot computed, table reads in a loop of their own) gives
    the bits of the law read cell by cell, over light from 1e-300 to 1e300 and at zero,
    subnormal, infinite, NaN and negative light."""
    rng = np.random.default_rng(seed)
    sens = np.exp(0.3 * rng.standard_normal(8))
    r = Retina(RetinaSpec(shape=(1, 8), gamma=gamma), sens)
    light = np.concatenate([10.0 ** rng.uniform(-300, 300, (40, 8)), rng.uniform(0, 1.5, (40, 8)),
                            [[0.0, 1.0, 5e-324, 1e-310, np.inf, np.nan, -0.5, 2.0 ** -1022],
                             [-0.0, -np.inf, 1.7976931348623157e308, 2.0, 0.5, 1.5, 1 - 2**-53, 3.0]]])
    got = r.steady_signal(light)
    with np.errstate(over="ignore"):             # numpy scalars warn where the kernel makes inf
        ref = np.array([[table_power(float(v), float(gamma), float(s)) for v, s in zip(row, sens)] for row in light])
    nan = np.isnan(ref)                          # (a NaN's sign and payload are libm's)
    assert np.array_equal(np.isnan(got), nan) and np.array_equal(got[~nan].view(np.int64), ref[~nan].view(np.int64))


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), dynamics=st.booleans(), ratio=st.sampled_from([1.0, 1.5, 5.5]),
       polarity=st.sampled_from(["figure", "ground"]), n=st.integers(0, 12))
def test_sense_sequence_is_fire_of_expose(seed, dynamics, ratio, polarity, n):
    """sense_sequence gives the S-units of fire(expose(light[rows])) and its state after
    the last card, bit for bit: cards shown in any order and again, lit times that change
    from card to card, every switch of the photocells, dark light (0) among the cells."""
    rng = np.random.default_rng(seed)
    spec = RetinaSpec(dynamics=dynamics, history_ratio=ratio, polarity=polarity, threshold=0.4)
    r = Retina(spec, Retina.sensitivity_spread(spec, rng))
    light = rng.uniform(0.0, 1.2, (5, r.n_cells))
    light[:, :7] = 0.0
    rows = rng.integers(0, 5, n)
    lit = np.where(rng.random(n) < 0.5, 2.8, rng.uniform(0.3, 5.0, n))
    state = RetinaState(*(rng.uniform(0.0, 1.0, r.n_cells) for _ in range(3)))
    s, end = r.sense_sequence(light, rows, lit, state, card_change=0.2, settle=0.3)
    signal, ends = r.expose(light[rows], lit, state, card_change=0.2, settle=0.3)
    assert s.dtype == bool and np.array_equal(s, r.fire(signal))
    for field in ("fast", "slow", "history"):
        assert np.array_equal(getattr(end, field), getattr(ends.at(n), field)), field
    assert np.array_equal(state.history, ends.history[0])          # the given state is not moved
    with pytest.raises(InputError, match="rows: expected card indices"):
        r.sense_sequence(light, np.array([5]), lit[:1] if n else np.ones(1), state, card_change=0.2, settle=0.3)
