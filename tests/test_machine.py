"""The assembled machine: the ideal machine is the textbook perceptron (fast path and
event simulation alike), Novikoff's bound, reproducibility, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import make_cards
from mark1 import MarkI, specs
from mark1.specs import SpecError

IDEAL = specs.SMALL.ideal().with_overrides({"trainer.increment": 0.03125})
seeds = st.integers(0, 2**32 - 1)


def phi_with_bias(m, cards):
    phi = m.associate(m.sense(cards))
    return np.hstack([phi.astype(float), np.ones((len(phi), 1))])


def naive_perceptron(X, T, schedule, increment, mask=None):
    """One card at a time: every unit with t * (w . x) <= 0 gets w += increment * t * x.

    Returns the weights and, per presentation, the sums before the update and which
    units erred.
    """
    n_units = T.shape[1]
    w = np.zeros((n_units, X.shape[1]))
    mask = np.ones_like(w, dtype=bool) if mask is None else mask
    sums = np.zeros((len(schedule), n_units))
    erred = np.zeros((len(schedule), n_units), bool)
    for p, i in enumerate(schedule):
        x, t = X[i], T[i]
        for u in range(n_units):
            s = float(np.dot(w[u], x * mask[u]))
            sums[p, u] = s
            if t[u] * s <= 0:
                erred[p, u] = True
                w[u] += increment * t[u] * x * mask[u]
    return w, sums, erred


def check_against_naive(m, cards, labels, epochs):
    X = phi_with_bias(m, cards)
    idx = np.searchsorted(m.classes_, labels)
    T = m.code_.targets[idx].astype(float)
    h = m.history_
    mask = m.rack_.mask
    w, sums, erred = naive_perceptron(X, T, h["card"], m.spec.trainer.increment, mask)
    assert np.array_equal(h["units_erred"], erred.sum(axis=1))
    assert np.array_equal(h["response"], m.code_.decode(sums))
    assert np.array_equal(h["label"], idx[h["card"]])
    assert np.array_equal(h["correct"], h["response"] == h["label"])
    assert np.array_equal(m.weights_, w)                          # exact: binary fractions
    assert np.array_equal(h["a_active"], X[h["card"], :-1].sum(axis=1))
    assert np.array_equal(h["pots_moved"], (erred * (X[h["card"]] @ mask.T.astype(float))).sum(axis=1))
    assert np.array_equal(h["epoch"], np.repeat(np.arange(epochs), len(cards)))
    return w


# -- the ideal machine is the naive perceptron ----------------------------------------------------

@settings(max_examples=6)
@given(seed=seeds, n_classes=st.sampled_from([2, 3]), order=st.sampled_from(["cyclic", "shuffled"]),
       topology=st.sampled_from(["all", "split"]), code=st.sampled_from(["auto", "auto", "binary"]))
def test_ideal_machine_is_the_naive_perceptron(seed, n_classes, order, topology, code):
    shapes = ("x", "box", "bar")[:n_classes]
    cards, labels = make_cards(24, np.random.default_rng(seed), shapes=shapes)
    spec = IDEAL.with_overrides({"rack.topology": topology, "response.code": code})
    epochs = 4
    fast = MarkI(spec=spec, seed=seed).fit(cards, labels, epochs=epochs, order=order)
    slow = MarkI(spec=spec, seed=seed, fast=False).fit(cards, labels, epochs=epochs, order=order)
    assert fast.history_["units_erred"].sum() > 0                  # it did learn something
    check_against_naive(fast, cards, labels, epochs)
    check_against_naive(slow, cards, labels, epochs)
    # and the two paths agree with each other
    for name in fast.history_.dtype.names:
        if name == "start":
            np.testing.assert_allclose(fast.history_[name], slow.history_[name], rtol=1e-12, atol=1e-9)
        else:
            assert np.array_equal(fast.history_[name], slow.history_[name]), name
    assert np.array_equal(fast.weights_, slow.weights_)
    assert np.array_equal(fast.mistakes_per_epoch_, slow.mistakes_per_epoch_)
    assert fast.machine_time_ == pytest.approx(slow.machine_time_, rel=1e-12)
    assert slow.waited_ == 0


def test_ideal_machine_with_full_trace_takes_the_event_path():
    cards, labels = make_cards(10, np.random.default_rng(0))
    a = MarkI(spec=IDEAL, seed=0, trace="full").fit(cards, labels, epochs=2)
    b = MarkI(spec=IDEAL, seed=0).fit(cards, labels, epochs=2)
    assert len(a.trace_) > 0
    assert np.array_equal(a.weights_, b.weights_)


@settings(max_examples=6)
@given(seed=seeds)
def test_novikoff_bound_on_separable_phi(seed):
    """Label the cards by a random hyperplane on φ (with a margin): mistakes <= (R/γ)²,
    and after that many epochs the machine has converged."""
    rng = np.random.default_rng(seed)
    cards, _ = make_cards(60, rng, shapes=("x", "box", "bar", "plus"))
    X = phi_with_bias(MarkI(spec=IDEAL, seed=seed), cards)
    w_star = rng.standard_normal(X.shape[1])
    scores = X @ w_star
    w_star[-1] -= np.median(scores)                     # both classes
    scores = X @ w_star
    keep = np.abs(scores) >= np.quantile(np.abs(scores), 0.5)     # a margin: drop the closest half
    X, scores, cards = X[keep], scores[keep], cards[keep]
    labels = np.where(scores > 0, "yes", "no")
    assert len(set(labels)) == 2
    gamma = np.abs(scores).min() / np.linalg.norm(w_star)
    R = np.linalg.norm(X, axis=1).max()
    bound = (R / gamma) ** 2
    epochs = min(int(bound) + 1, 5000)                 # (the bound is a few hundred here)
    m = MarkI(spec=IDEAL, seed=seed).fit(cards, labels, epochs=epochs)
    mistakes = int((m.history_["units_erred"] > 0).sum())
    assert mistakes <= bound
    if epochs > bound:                                 # at most `bound` epochs can hold a mistake
        assert m.mistakes_per_epoch_[-1] == 0 and m.history_["units_erred"][-len(cards):].sum() == 0
        assert m.score(cards, labels) == 1.0
    assert set(m.predict(cards)) == {"yes", "no"}
    # the event simulation makes the same mistakes (first few epochs)
    slow = MarkI(spec=IDEAL, seed=seed, fast=False).fit(cards, labels, epochs=3)
    assert np.array_equal(slow.history_["units_erred"], m.history_["units_erred"][:3 * len(cards)])


# -- fit / predict ---------------------------------------------------------------------------------

def test_fit_predict_score_shapes_and_labels(card_maker, rng, small_spec):
    cards, labels = card_maker(12, rng, shapes=("x", "box", "bar"))
    names = np.array(["ex", "box", "bar"])[labels]
    m = MarkI(spec=small_spec, seed=3)
    assert m.fit(cards, names, epochs=2) is m
    assert m.classes_.tolist() == ["bar", "box", "ex"]
    assert m.history_.shape == (24,)
    assert m.weights_.shape == (3, 65)
    assert m.decision_function(cards).shape == (12, 3)
    pred = m.predict(cards)
    assert pred.shape == (12,) and set(pred) <= set(names)
    assert 0.0 <= m.score(cards, names) <= 1.0
    assert m.mistakes_per_epoch_.tolist() == [int((~m.history_["correct"][:12]).sum()),
                                              int((~m.history_["correct"][12:]).sum())]
    assert np.all(np.abs(m.weights_) <= 1.0)                       # end stops on
    assert "small" in repr(m)


def test_ideal_predictions_use_the_final_weights(card_maker, rng, ideal_spec):
    cards, labels = card_maker(10, rng)
    m = MarkI(spec=ideal_spec, seed=0).fit(cards, labels, epochs=3)
    X = phi_with_bias(m, cards)
    np.testing.assert_array_equal(m.decision_function(cards), X @ m.weights_.T)
    assert np.array_equal(m.predict(cards), m.classes_[((X @ m.weights_.T)[:, 0] > 0).astype(int)])


@settings(max_examples=4)
@given(seed=seeds)
def test_run_senses_what_sense_sees(seed):
    """Without waits (fast motors) the S-units of a run, photocell dynamics and light
    history included, are those of ``sense`` on the cards in presentation order."""
    cards, labels = make_cards(10, np.random.default_rng(seed))
    m = MarkI(spec=specs.SMALL, seed=seed).fit(cards, labels, epochs=3, order="shuffled")
    assert m.waited_ == 0
    s = m.sense(cards[m.history_["card"]])
    assert np.array_equal(s.sum(axis=1), m.history_["s_active"])
    assert np.array_equal(m.associate(s).sum(axis=1), m.history_["a_active"])


def test_not_fitted(card_maker, rng):
    cards, _ = card_maker(2, rng)
    m = MarkI(spec=specs.SMALL, seed=0)
    for call in (lambda: m.decision_function(cards), lambda: m.weights_):
        with pytest.raises(ValueError, match="fit"):
            call()


@pytest.mark.parametrize("method", ["predict", "score"])
def test_predict_before_fit_says_fit_first(card_maker, rng, method):
    """Regression: predict/score once raised AttributeError('classes_')."""
    cards, labels = card_maker(2, rng)
    m = MarkI(spec=specs.SMALL, seed=0)
    args = (cards,) if method == "predict" else (cards, labels)
    with pytest.raises(ValueError, match="fit"):
        getattr(m, method)(*args)


# -- reproducibility ---------------------------------------------------------------------------------

@settings(max_examples=4)
@given(seed=seeds)
def test_same_seed_same_run(seed):
    cards, labels = make_cards(10, np.random.default_rng(seed))
    a = MarkI(spec=specs.SMALL, seed=seed, trace="full").fit(cards, labels, epochs=2, order="shuffled")
    b = MarkI(spec=specs.SMALL, seed=seed, trace="full").fit(cards, labels, epochs=2, order="shuffled")
    assert np.array_equal(a.patchboard.connections, b.patchboard.connections)
    assert np.array_equal(a.retina.sensitivity, b.retina.sensitivity)
    assert np.array_equal(a.rack_.gain, b.rack_.gain)
    assert np.array_equal(a.history_, b.history_)
    assert a.trace_.events == b.trace_.events
    assert np.array_equal(a.weights_, b.weights_)
    c = MarkI(spec=specs.SMALL, seed=seed + 1 if seed < 2**32 - 1 else 0)
    assert not np.array_equal(a.patchboard.connections, c.patchboard.connections)


@settings(max_examples=4)
@given(seed=seeds, n1=st.integers(0, 1000), n2=st.integers(1001, 2000))
def test_noise_seed_changes_only_the_noise(seed, n1, n2):
    spec = specs.SMALL.with_overrides({"rack.wiper_noise": 1.0})     # noise dominates every sum
    cards, labels = make_cards(20, np.random.default_rng(seed))
    a = MarkI(spec=spec, seed=seed, noise_seed=n1).fit(cards, labels, epochs=2)
    b = MarkI(spec=spec, seed=seed, noise_seed=n2).fit(cards, labels, epochs=2)
    assert np.array_equal(a.patchboard.connections, b.patchboard.connections)
    assert np.array_equal(a.retina.sensitivity, b.retina.sensitivity)
    assert np.array_equal(a.rack_.gain, b.rack_.gain)
    assert np.array_equal(a.history_["s_active"], b.history_["s_active"])
    assert not np.array_equal(a.history_["response"], b.history_["response"])
    again = MarkI(spec=spec, seed=seed, noise_seed=n1).fit(cards, labels, epochs=2)
    assert np.array_equal(a.history_, again.history_)


NOISY_READS = specs.SMALL.ideal().with_overrides({"rack.wiper_noise": 0.05})   # read noise, no light history


@settings(max_examples=4, deadline=None)
@given(seed=seeds)
def test_the_same_machine_answers_the_same_cards_the_same_way(seed):
    """Scoring is repeatable: read noise is drawn from the card, not from the training stream."""
    cards, labels = make_cards(12, np.random.default_rng(seed))
    m = MarkI(spec=specs.SMALL, seed=seed, trace="full").fit(cards, labels, epochs=2, order="shuffled")
    assert m.spec.is_on("wiper_noise")
    first = m.decision_function(cards)
    assert np.array_equal(m.decision_function(cards), first)
    assert np.array_equal(m.predict(cards), m.predict(cards))
    assert m.score(cards, labels) == m.score(cards, labels)
    # scoring leaves training bit for bit: a twin that never scored refits to the same record
    twin = MarkI(spec=specs.SMALL, seed=seed, trace="full").fit(cards, labels, epochs=2, order="shuffled")
    again = m.fit(cards, labels, epochs=2, order="shuffled")
    assert np.array_equal(again.history_, twin.history_)
    assert np.array_equal(again.read_sums_, twin.read_sums_)
    assert again.trace_.events == twin.trace_.events
    assert np.array_equal(again.weights_, twin.weights_)
    assert again.machine_time_ == twin.machine_time_


@settings(max_examples=4, deadline=None)
@given(seed=seeds)
def test_a_cards_answer_does_not_depend_on_its_batch(seed):
    """Noise follows the card: alone, in a batch, in another order, the same sums (no light history)."""
    cards, labels = make_cards(10, np.random.default_rng(seed))
    m = MarkI(spec=NOISY_READS, seed=seed).fit(cards, labels, epochs=2)
    sums = m.decision_function(cards)
    order = np.random.default_rng(seed).permutation(len(cards))
    # the noise exactly; the sums to the rounding of a matrix product taken over another batch
    checked = m._check_cards(cards)
    noise = m._scoring_noise(checked, 1)
    assert np.array_equal(m._scoring_noise(checked[order], 1), noise[order])
    np.testing.assert_allclose(m.decision_function(cards[order]), sums[order], rtol=0, atol=1e-12)
    for i in (0, len(cards) - 1):
        assert np.array_equal(m._scoring_noise(checked[i:i + 1], 1), noise[i:i + 1])
        np.testing.assert_allclose(m.decision_function(cards[i:i + 1]), sums[i:i + 1], rtol=0, atol=1e-12)
    # the noise is there, and another noise seed draws other noise
    other = MarkI(spec=NOISY_READS, seed=seed, noise_seed=12345).fit(cards, labels, epochs=2)
    x = np.hstack([m.associate(m.sense(cards)), np.ones((len(cards), 1))])
    read_noise = sums - x @ m.weights_.T
    assert np.all(read_noise != 0)
    assert not np.allclose(other.decision_function(cards) - x @ other.weights_.T, read_noise)


def test_read_noise_at_scoring_is_gaussian_with_the_pots_spread():
    """Over many different cards the read noise is wiper_noise * sqrt(active pots), mean 0."""
    noise = 0.05
    cards, labels = make_cards(4, np.random.default_rng(1))
    m = MarkI(spec=NOISY_READS, seed=1).fit(cards, labels, epochs=2)
    many = np.random.default_rng(2).random((3000, *cards.shape[1:]))
    x = np.hstack([m.associate(m.sense(many)), np.ones((len(many), 1))])
    z = (m.decision_function(many)[:, 0] - x @ m.weights_[0]) / (noise * np.sqrt(x.sum(axis=1)))
    assert abs(z.mean()) < 6 / np.sqrt(len(z))
    assert abs(z.std() - 1) < 0.1


@settings(max_examples=4)
@given(seed=seeds)
def test_shuffled_order_is_reproducible_and_a_permutation_per_epoch(seed):
    cards, labels = make_cards(12, np.random.default_rng(seed))
    a = MarkI(spec=IDEAL, seed=seed).fit(cards, labels, epochs=3, order="shuffled")
    b = MarkI(spec=IDEAL, seed=seed).fit(cards, labels, epochs=3, order="shuffled")
    assert np.array_equal(a.history_["card"], b.history_["card"])
    for e in range(3):
        assert sorted(a.history_["card"][a.history_["epoch"] == e]) == list(range(12))
    cyc = MarkI(spec=IDEAL, seed=seed).fit(cards, labels, epochs=3)
    assert cyc.history_["card"].tolist() == list(range(12)) * 3
    # order draws do not disturb the wiring
    assert np.array_equal(a.patchboard.connections, cyc.patchboard.connections)


def test_fresh_entropy_is_recorded():
    m = MarkI(spec=specs.SMALL)
    assert m.patchboard is not None          # building the board draws the fresh entropy
    assert isinstance(m.seed_, int)
    again = MarkI(spec=specs.SMALL, seed=m.seed_)
    assert np.array_equal(again.patchboard.connections, m.patchboard.connections)


# -- bad input -----------------------------------------------------------------------------------

@pytest.fixture
def good(card_maker, rng):
    return card_maker(6, rng)


@pytest.mark.parametrize("make_bad", [
    lambda c: c[0],                               # 2-D
    lambda c: c[:, :10, :10],                     # smaller than the retina
    lambda c: c[..., None],                       # 4-D
    lambda c: np.where(c > 0.5, np.nan, c),       # NaN
    lambda c: np.where(c > 0.5, np.inf, c),
    lambda c: c * 1.5,                            # above 1
    lambda c: c - 0.5,                            # below 0
    lambda c: c.astype(complex),
    lambda c: np.array(c, dtype=object).astype(str),
    lambda c: c[:0],                              # no cards
])
def test_bad_cards(good, make_bad):
    cards, labels = good
    bad = make_bad(cards)
    with pytest.raises(ValueError, match="cards"):
        MarkI(spec=specs.SMALL, seed=0).fit(bad, labels[:len(bad)] if bad.ndim else labels)
    with pytest.raises(ValueError, match="cards"):
        MarkI(spec=specs.SMALL, seed=0).sense(bad)


@pytest.mark.parametrize("labels, match", [
    (lambda n: np.arange(n + 1) % 2, "labels"),          # one too many
    (lambda n: (np.arange(n) % 2)[:, None], "labels"),   # 2-D
    (lambda n: np.zeros(n), "labels"),                   # a single class
    (lambda n: np.r_[np.nan, np.arange(n - 1) % 2], "labels"),
])
def test_bad_labels(good, labels, match):
    cards, _ = good
    with pytest.raises(ValueError, match=match):
        MarkI(spec=specs.SMALL, seed=0).fit(cards, labels(len(cards)))


@pytest.mark.parametrize("kw, match", [
    (dict(epochs=0), "epochs"),
    (dict(epochs=-2), "epochs"),
    (dict(epochs=1.5), "epochs"),
    (dict(epochs=True), "epochs"),
    (dict(order="random"), "order"),
])
def test_bad_fit_arguments(good, kw, match):
    cards, labels = good
    with pytest.raises(ValueError, match=match):
        MarkI(spec=specs.SMALL, seed=0).fit(cards, labels, **kw)


@pytest.mark.parametrize("ctor, match", [
    (dict(trace="verbose"), "trace"),
    (dict(seed=-1), "seed"),
    (dict(seed=1.5), "seed"),
])
def test_bad_constructor_arguments(good, ctor, match):
    cards, labels = good
    kw = dict(spec=specs.SMALL, seed=0)
    kw.update(ctor)
    with pytest.raises(ValueError, match=match):
        MarkI(**kw).fit(cards, labels)


def test_bad_spec_type_is_a_value_error(good):
    """Regression: a wrong spec type once surfaced as an AttributeError."""
    cards, labels = good
    with pytest.raises(ValueError, match="spec"):
        MarkI(spec="SMALL", seed=0).fit(cards, labels)


def test_too_many_classes_for_the_code(card_maker, rng):
    cards, _ = card_maker(10, rng)
    spec = specs.SMALL.with_overrides({"response.code": "one-per-class", "response.n_responses": 3})
    with pytest.raises(ValueError, match="labels"):
        MarkI(spec=spec, seed=0).fit(cards, np.arange(10) % 5)


def test_score_with_wrong_labels(good):
    cards, labels = good
    m = MarkI(spec=IDEAL, seed=0).fit(cards, labels)
    with pytest.raises(ValueError, match="labels"):
        m.score(cards, labels[:-1])


def test_associate_wants_bool_states(good):
    cards, _ = good
    m = MarkI(spec=specs.SMALL, seed=0)
    s = m.sense(cards)
    assert s.dtype == bool and s.shape == (len(cards), 400)
    with pytest.raises(ValueError, match="s_states"):
        m.associate(s.astype(int))
    with pytest.raises(ValueError, match="s_states"):
        m.associate(s[:, :100])


def test_spec_errors_reach_the_user():
    with pytest.raises(SpecError, match="did you mean 'rack.motor_speed'"):
        specs.SMALL.with_overrides({"rack.motorspeed": 1.0})
    with pytest.raises(SpecError) as info:
        specs.SMALL.with_overrides({"rack.motor_speed": -1.0})
    assert info.value.key == "rack.motor_speed"
    with pytest.raises(SpecError) as info:
        specs.SMALL.with_overrides({"timing.period": 0.3})
    assert info.value.key == "timing.period"


def test_only_backlash_changes_the_run():
    """Regression: instant moves once never recorded a reversal. The second card of a
    run always errs against the first (alternating classes), so the bias pot always
    reverses: backlash must leave a trace in the weights."""
    for seed in range(3):
        cards, labels = make_cards(8, np.random.default_rng(seed))
        a = MarkI(spec=specs.SMALL.only("backlash"), seed=seed).fit(cards, labels, epochs=2)
        b = MarkI(spec=specs.SMALL.ideal(), seed=seed).fit(cards, labels, epochs=2)
        assert not np.array_equal(a.weights_, b.weights_)


@pytest.mark.parametrize("which", ["_pools", "_found_pools"])
def test_one_blas_thread_finds_the_pools_again_after_an_import(which):
    """The thread pools are found once, and again after an import (which may load a BLAS):
    threadpoolctl's own cache where it has one, else ours, alike."""
    import sys
    import types

    from threadpoolctl import threadpool_info

    from mark1._utils import threads

    pools = getattr(threads, which)
    first = pools()
    assert pools() is first                              # nothing imported: not searched again
    sys.modules["_mark1_test_module"] = types.ModuleType("_mark1_test_module")
    try:
        assert pools() is not first
        with threads.one_blas_thread():
            assert {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"} <= {1}
    finally:
        del sys.modules["_mark1_test_module"]
