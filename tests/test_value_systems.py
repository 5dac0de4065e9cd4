"""Rosenblatt's value systems as machine options (issue 16): α, β, γ, LMS; corrective,
forced and spontaneous reinforcement; bivalent and monovalent values; Σ and μ
discrimination; the bias pot."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import make_cards
from mark1.classroom.explain import _rule_words
from mark1.exceptions import InputError, SpecError
from mark1.machine.mark_i import MarkI
from mark1.machine.rules import alpha, beta, gamma, lms
from mark1.machine._kernels.presentation import answer as _answer
from mark1.specs import SMALL

INC = 0.02
seeds = st.integers(0, 2**32 - 1)


# -- each rule's command, by hand --------------------------------------------------------------

def test_beta_shares_the_increment_among_the_active_pots():
    phi = np.array([True, True, False, True, True])          # 3 active A-units, 1 inactive, bias
    mask = np.ones((2, 5), bool)
    cmd = beta(phi, np.array([1.0, -1.0]), np.array([-0.1, 0.3]), mask, 0.04)
    np.testing.assert_allclose(cmd, [[0.01, 0.01, 0.0, 0.01, 0.01], [-0.01, -0.01, 0.0, -0.01, -0.01]])
    # a constant total per reinforced unit, however many pots are active
    np.testing.assert_allclose(np.abs(cmd).sum(axis=1), [0.04, 0.04])


def test_beta_counts_only_the_units_own_pots():
    phi = np.array([True, True, True, True, True])
    mask = np.array([[True, True, False, False, True], [False, False, True, True, False]])   # split, bias on 0
    cmd = beta(phi, np.array([1.0, 1.0]), np.array([0.0, 0.0]), mask, 0.03)
    np.testing.assert_allclose(cmd, [[0.01, 0.01, 0.0, 0.0, 0.01], [0.0, 0.0, 0.015, 0.015, 0.0]])


def test_gamma_conserves_the_units_total_by_hand():
    phi = np.array([True, False, False, False, True])
    cmd = gamma(phi, np.array([-1.0]), np.array([0.2]), np.ones((1, 5), bool), 0.03)
    np.testing.assert_allclose(cmd, [[-0.03, 0.02, 0.02, 0.02, -0.03]])
    assert abs(cmd.sum()) < 1e-15


@pytest.mark.parametrize("rule", [alpha, beta])
def test_monovalent_values_only_gain(rule):
    phi = np.array([True, False, True])
    mask = np.ones((3, 3), bool)
    t = np.array([1.0, -1.0, -1.0])
    s = np.array([-0.5, 0.5, 0.5])                               # all three erred
    bi = rule(phi, t, s, mask, INC)
    mono = rule(phi, t, s, mask, INC, valence="monovalent")
    assert np.array_equal(mono[0], bi[0]) and np.all(mono[0] >= 0) and mono[0].any()
    assert not mono[1:].any()                                    # a target of -1 gets no move
    assert (bi[1:] < 0).any()


def test_forced_reinforces_right_units_too():
    phi = np.array([True, False, True])
    mask = np.ones((2, 3), bool)
    t, s = np.array([1.0, -1.0]), np.array([0.7, -0.4])         # both right
    assert not alpha(phi, t, s, mask, INC).any()
    np.testing.assert_allclose(alpha(phi, t, s, mask, INC, reinforcement="forced"),
                               [[0.02, 0.0, 0.02], [-0.02, 0.0, -0.02]])


def test_lms_and_bad_words():
    phi = np.array([True, False, True])
    np.testing.assert_allclose(lms(phi, np.array([1.0]), np.array([0.5]), np.ones((1, 3), bool), INC, 0.1),
                               [[0.05, 0.0, 0.05]])
    with pytest.raises(InputError, match="reinforcement"):
        alpha(phi, np.array([1.0]), np.array([0.5]), np.ones((1, 3), bool), INC, reinforcement="forcd")
    with pytest.raises(InputError, match="valence"):
        alpha(phi, np.array([1.0]), np.array([0.5]), np.ones((1, 3), bool), INC, valence="mono")


@st.composite
def presentations(draw):
    rng = np.random.default_rng(draw(seeds))
    n_units, n_a = draw(st.integers(1, 6)), draw(st.integers(1, 30))
    phi = rng.random(n_a + 1) < draw(st.sampled_from([0.1, 0.5, 1.0]))
    phi[-1] = draw(st.booleans())                               # with or without the bias pot's input
    mask = rng.random((n_units, n_a + 1)) < 0.7
    t = rng.choice([-1.0, 1.0], size=n_units)
    s = rng.normal(0, 1, n_units) * rng.choice([0.0, 1.0], size=n_units)
    return phi, t, s, mask


@settings(max_examples=150)
@given(presentations(), st.sampled_from(["corrective", "forced", "spontaneous"]))
def test_beta_moves_each_reinforced_unit_by_the_increment_in_all(sit, reinforcement):
    phi, t, s, mask = sit
    cmd = beta(phi, t, s, mask, INC, reinforcement=reinforcement)
    assert np.all(cmd[~mask] == 0) and np.all(cmd[:, ~phi] == 0)
    reinforced = (t * s <= 0) if reinforcement == "corrective" else np.ones(len(t), bool)
    for u in range(len(t)):
        n_act = int((phi & mask[u]).sum())
        total = cmd[u].sum()
        if reinforced[u] and n_act:
            assert total == pytest.approx(INC * t[u], rel=1e-12)
        else:
            assert total == 0


# -- spontaneous reinforcement: the machine's own answer ---------------------------------------

def test_answer_reads_like_the_output_code():
    assert _answer(np.array([0.3]), 0, 0.0) == 1 and _answer(np.array([0.0]), 0, 0.0) == 0
    assert _answer(np.array([0.1, 0.5, 0.5 - 1e-12]), 1, 1e-9) == 1
    assert _answer(np.array([0.5 - 1e-12, 0.5, 0.1]), 1, 1e-9) == 0          # within the tie: lower wins


@settings(max_examples=4, deadline=None)
@given(seed=seeds)
def test_spontaneous_reinforces_the_machines_own_answer(seed):
    """Every card reinforces the code of the answer the machine gave, right or wrong: in
    the full trace's record, each move of a single R-unit goes the way its lamp was."""
    spec = SMALL.ideal().with_overrides({"trainer.reinforcement": "spontaneous"})
    cards, labels = make_cards(10, np.random.default_rng(seed))
    m = MarkI(spec=spec, seed=seed, trace="full").fit(cards, labels, epochs=2)
    h = m.history_
    assert np.all(h["pots_moved"] > 0)                         # every card
    assert len(m.trace_.moves) == len(h)
    for move in m.trace_.moves:
        answer = h["response"][move.presentation]
        assert np.all(np.sign(move.command) == (1 if answer == 1 else -1))
    # a wrong answer is reinforced all the same
    assert (~h["correct"]).any() or np.all(h["correct"])


@settings(max_examples=4, deadline=None)
@given(seed=seeds)
def test_forced_reinforces_correct_cards_too(seed):
    spec = SMALL.ideal().with_overrides({"trainer.reinforcement": "forced"})
    cards, labels = make_cards(10, np.random.default_rng(seed))
    m = MarkI(spec=spec, seed=seed, trace="full").fit(cards, labels, epochs=3)
    h = m.history_
    assert np.all(h["pots_moved"] > 0)
    assert h["correct"].any() and np.all(h["pots_moved"][h["correct"]] > 0)
    for move in m.trace_.moves:                               # always towards the right answer
        assert np.all(np.sign(move.command) == (1 if h["label"][move.presentation] == 1 else -1))


# -- Σ and μ --------------------------------------------------------------------------------------

def _two_unit_machine(discrimination):
    """An ideal machine taught nothing: the pots are set by hand below."""
    spec = SMALL.ideal().with_overrides({"response.code": "one-per-class", "response.discrimination": discrimination,
                                         "rack.topology": "split", "response.n_responses": 2})
    cards, labels = make_cards(6, np.random.default_rng(0))
    m = MarkI(spec=spec, seed=0).fit(cards, labels, epochs=1)
    return m, cards


def test_mean_and_sum_decide_differently_where_active_counts_differ():
    """Unit 0 has many active pots of small value, unit 1 few of larger value: the sum
    picks unit 0, the mean unit 1."""
    answers = {}
    for disc in ("sum", "mean"):
        m, cards = _two_unit_machine(disc)
        phi = m.associate(m.sense(cards[:1]))[0]
        x = np.r_[phi, True]
        mask = m.rack_.mask
        act0, act1 = np.flatnonzero(x & mask[0]), np.flatnonzero(x & mask[1])
        assert len(act0) != len(act1)
        many, few = (0, 1) if len(act0) > len(act1) else (1, 0)
        w = np.zeros(mask.shape)
        acts = (act0, act1)
        # the unit with more active pots: 0.1 each; the other: 0.1 * (its count + 1) / its count each
        w[many, acts[many]] = 0.1
        n_few, n_many = len(acts[few]), len(acts[many])
        w[few, acts[few]] = 0.1 * (n_many - 0.5) / n_few          # its sum is below, its mean above
        m.rack_.p_from[:] = m.rack_.p_to[:] = w
        sums = m.decision_function(cards[:1])[0]
        answers[disc] = (int(np.argmax(sums)), many, few)
        if disc == "mean":
            np.testing.assert_allclose(sums[many], 0.1)
            np.testing.assert_allclose(sums[few], 0.1 * (n_many - 0.5) / n_few)
    assert answers["sum"][0] == answers["sum"][1]                 # Σ: the unit with more active pots
    assert answers["mean"][0] == answers["mean"][2]               # μ: the unit with the larger mean


def test_mean_with_a_binary_code_is_refused():
    with pytest.raises(SpecError, match="response.discrimination.*response.code"):
        SMALL.with_overrides({"response.discrimination": "mean", "response.code": "binary"})
    spec = SMALL.with_overrides({"response.discrimination": "mean", "response.n_responses": 2})
    cards, labels = make_cards(9, np.random.default_rng(0), shapes=("x", "box", "bar"))
    with pytest.raises(InputError, match="response.discrimination.*response.code"):
        MarkI(spec=spec, seed=0).fit(cards, labels)


# -- the bias pot --------------------------------------------------------------------------------

@pytest.mark.parametrize("topology", ["all", "split"])
def test_without_the_bias_pot_it_never_moves(topology):
    spec = SMALL.with_overrides({"rack.bias": False, "rack.topology": topology})
    cards, labels = make_cards(10, np.random.default_rng(1), shapes=("x", "box", "bar"))
    m = MarkI(spec=spec, seed=1).fit(cards, labels, epochs=3)
    assert not m.rack_.mask[:, -1].any()
    assert np.all(m.weights_[:, -1] == 0)
    assert m.history_["pots_moved"].sum() > 0


def test_without_the_bias_pot_the_ideal_fast_path_is_exact():
    spec = SMALL.ideal().with_overrides({"rack.bias": False})
    cards, labels = make_cards(10, np.random.default_rng(2))
    fast = MarkI(spec=spec, seed=2).fit(cards, labels, epochs=4)
    slow = MarkI(spec=spec, seed=2, fast=False).fit(cards, labels, epochs=4)
    for f in ("response", "units_erred", "pots_moved"):
        assert np.array_equal(fast.history_[f], slow.history_[f]), f
    np.testing.assert_allclose(fast.weights_, slow.weights_, atol=1e-12)


# -- properties of whole runs ----------------------------------------------------------------------

_OPTIONS = st.fixed_dictionaries({
    "trainer.rule": st.sampled_from(["alpha", "beta"]),
    "trainer.reinforcement": st.sampled_from(["corrective", "forced", "spontaneous"]),
    "response.discrimination": st.sampled_from(["sum", "mean"]),
    "rack.topology": st.sampled_from(["all", "split"]),
    "rack.bias": st.booleans(),
})


@settings(max_examples=10, deadline=None)
@given(seed=seeds, options=_OPTIONS)
def test_monovalent_values_never_decrease_and_wipers_keep_to_their_stops(seed, options):
    spec = SMALL.with_overrides({**options, "trainer.valence": "monovalent", "trainer.increment": 0.3,
                                 "rack.motor_speed": 2.0})
    cards, labels = make_cards(8, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    m = MarkI(spec=spec, seed=seed, trace="full").fit(cards, labels, epochs=3)
    for move in m.trace_.moves:
        assert np.all(move.command > 0)
        assert np.all(move.target >= move.start)
        assert np.all(np.abs(move.target) <= 1.0)
    w = m.weights_
    assert np.all(w >= 0) and np.all(np.abs(w) <= 1.0)


@settings(max_examples=10, deadline=None)
@given(seed=seeds, rule=st.sampled_from(["alpha", "beta", "gamma"]),
       reinforcement=st.sampled_from(["corrective", "forced", "spontaneous"]),
       discrimination=st.sampled_from(["sum", "mean"]))
def test_wipers_never_pass_their_stops(seed, rule, reinforcement, discrimination):
    spec = SMALL.with_overrides({"trainer.rule": rule, "trainer.reinforcement": reinforcement,
                                 "response.discrimination": discrimination, "trainer.increment": 0.4,
                                 "rack.motor_speed": 4.0})
    cards, labels = make_cards(8, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    m = MarkI(spec=spec, seed=seed, trace="full").fit(cards, labels, epochs=3)
    for move in m.trace_.moves:
        assert np.all(np.abs(move.target) <= 1.0)
    assert np.all(np.abs(m.weights_) <= 1.0)


# -- bad combinations ------------------------------------------------------------------------------

@pytest.mark.parametrize("overrides, keys", [
    ({"trainer.valence": "monovalent", "trainer.rule": "gamma"}, ("trainer.valence", "trainer.rule")),
    ({"trainer.valence": "monovalent", "trainer.rule": "lms"}, ("trainer.valence", "trainer.rule")),
    ({"trainer.rule": "lms", "trainer.reinforcement": "forced"}, ("trainer.reinforcement", "trainer.rule")),
    ({"trainer.rule": "lms", "trainer.reinforcement": "spontaneous"}, ("trainer.reinforcement", "trainer.rule")),
    ({"response.discrimination": "mean", "response.code": "binary"}, ("response.discrimination", "response.code")),
])
def test_bad_combinations_are_refused_in_one_line(overrides, keys):
    with pytest.raises(SpecError) as err:
        SMALL.with_overrides(overrides)
    text = str(err.value)
    assert "\n" not in text and all(k in text for k in keys), text


def test_spontaneous_with_a_binary_code_steps_card_by_card():
    """The compiled loop reads the answers of single and one-per-class codes; with a binary
    code, spontaneous reinforcement takes the event path, and reinforces every card."""
    spec = SMALL.with_overrides({"trainer.reinforcement": "spontaneous", "response.n_responses": 2})
    cards, labels = make_cards(9, np.random.default_rng(3), shapes=("x", "box", "bar"))
    off = MarkI(spec=spec, seed=3, trace="off").fit(cards, labels, epochs=2)
    full = MarkI(spec=spec, seed=3, trace="full").fit(cards, labels, epochs=2)
    assert off.code_.kind == "binary"
    assert np.all(off.history_["pots_moved"] > 0)
    assert np.array_equal(off.history_, full.history_) and np.array_equal(off.weights_, full.weights_)


def test_the_classroom_says_each_option_in_words():
    assert "each erring R-unit" in _rule_words(SMALL)
    words = _rule_words(SMALL.with_overrides({"trainer.rule": "beta", "trainer.reinforcement": "spontaneous",
                                              "trainer.valence": "monovalent", "response.discrimination": "mean",
                                              "rack.bias": False}))
    for phrase in ("shared equally", "the machine itself gave", "only gain", "mean", "no bias pot"):
        assert phrase in words, phrase
    assert "right answer" in _rule_words(SMALL.with_overrides({"trainer.reinforcement": "forced"}))
    assert "inactive pots" in _rule_words(SMALL.with_overrides({"trainer.rule": "gamma"}))
