"""Reinforcement rules (pure functions): which pots move, and how far."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mark1.machine.rules import RULES, alpha, erring, gamma, lms

INC = 0.02
RATE = 0.002


@st.composite
def situations(draw):
    """A presentation: phi (bias last, always on), targets, sums and a pot mask."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_units = draw(st.integers(1, 8))
    n_a = draw(st.integers(1, 40))
    p_active = draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))
    phi = rng.random(n_a + 1) < p_active
    phi[-1] = True
    targets = rng.choice([-1.0, 1.0], size=n_units)
    # sums: random, with exact zeros (an undecided sum is an error) and exact ±1 matches
    sums = rng.normal(0, 1, n_units) * rng.choice([0.0, 1.0, 1.0], size=n_units)
    topology = draw(st.sampled_from(["all", "split", "random"]))
    if topology == "all":
        mask = np.ones((n_units, n_a + 1), bool)
    elif topology == "split":
        mask = np.zeros((n_units, n_a + 1), bool)
        per = max(n_a // n_units, 1)
        for k in range(n_units):
            mask[k, k * per:(k + 1) * per] = True
        mask[:, -1] = True
    else:
        mask = rng.random((n_units, n_a + 1)) < 0.6
        mask[:, -1] = True
    return phi, targets, sums, mask


def test_erring_counts_zero_as_error():
    t = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    s = np.array([0.5, -0.5, 0.5, -0.5, 0.0])
    assert erring(t, s).tolist() == [False, True, True, False, True]


@settings(max_examples=150)
@given(situations())
def test_alpha_moves_only_active_pots_of_erring_units(sit):
    phi, t, s, mask = sit
    cmd = alpha(phi, t, s, mask, INC)
    err = t * s <= 0
    expected_moving = err[:, None] & phi[None, :] & mask
    assert np.array_equal(cmd != 0, expected_moving)
    # each moving pot travels exactly the increment towards the unit's target
    rows, cols = np.nonzero(expected_moving)
    assert np.array_equal(cmd[rows, cols], INC * t[rows])
    # the bias pot of every erring unit moves (it is always active)
    assert np.all(cmd[err, -1] == INC * t[err])
    assert cmd.shape == mask.shape


@settings(max_examples=150)
@given(situations())
def test_gamma_conserves_each_erring_units_total(sit):
    phi, t, s, mask = sit
    cmd = gamma(phi, t, s, mask, INC)
    err = t * s <= 0
    active = phi[None, :] & mask
    inactive = ~phi[None, :] & mask
    assert np.all(cmd[~mask] == 0)                    # no travel on pots that do not exist
    assert np.all(cmd[~err] == 0)                     # right units stay
    for u in np.flatnonzero(err):
        assert abs(cmd[u].sum()) <= 1e-12, cmd[u]
        if inactive[u].any():
            # active pots gain the increment towards the target, inactive ones give it back
            assert np.all(cmd[u, active[u]] == INC * t[u])
            back = INC * active[u].sum() / inactive[u].sum()
            np.testing.assert_allclose(cmd[u, inactive[u]], -t[u] * back, rtol=1e-12)
        else:
            assert np.all(cmd[u] == 0)                # nothing to take from


def test_gamma_example_by_hand():
    phi = np.array([True, False, False, True])        # A0 active, A1, A2 inactive, bias
    mask = np.ones((1, 4), bool)
    cmd = gamma(phi, np.array([1.0]), np.array([-0.1]), mask, 0.03)
    np.testing.assert_allclose(cmd, [[0.03, -0.03, -0.03, 0.03]])


@settings(max_examples=150)
@given(situations())
def test_forced_moves_every_unit(sit):
    phi, t, s, mask = sit
    cmd = alpha(phi, t, s, mask, INC, reinforcement="forced")
    moving = phi[None, :] & mask
    assert np.array_equal(cmd != 0, moving)           # right or wrong, every unit moves
    assert np.all((cmd != 0).any(axis=1))              # bias is always active
    rows, cols = np.nonzero(moving)
    assert np.array_equal(cmd[rows, cols], INC * t[rows])


@settings(max_examples=150)
@given(situations())
def test_lms_moves_by_rate_times_error(sit):
    phi, t, s, mask = sit
    cmd = lms(phi, t, s, mask, INC, RATE)
    moving = phi[None, :] & mask
    expected = np.where(moving, (RATE * (t - s))[:, None], 0.0)
    np.testing.assert_allclose(cmd, expected, rtol=1e-15, atol=0)
    assert np.all(cmd[~moving] == 0)
    # a unit whose sum already equals its target does not move
    s2 = s.copy()
    s2[0] = t[0]
    assert np.all(lms(phi, t, s2, mask, INC, RATE)[0] == 0)


def test_rule_table():
    assert set(RULES) == {"alpha", "beta", "gamma", "lms"}
    assert RULES["alpha"] is alpha and RULES["lms"] is lms


@pytest.mark.parametrize("rule", ["alpha", "beta", "gamma"])
def test_error_driven_rules_leave_right_units_alone(rule):
    phi = np.array([True, True, False, True])
    mask = np.ones((3, 4), bool)
    t = np.array([1.0, -1.0, 1.0])
    s = np.array([0.4, -0.2, 3.0])                      # all right
    assert not np.any(RULES[rule](phi, t, s, mask, INC, RATE))
