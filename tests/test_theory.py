"""Rosenblatt's formulas (mark1.theory): published and sourced values, identities, Monte Carlo
checks of the forms derived here, and the machine's patch board measured against them.

Every random test draws from a seed and has a tolerance set from its own sampling error,
wide enough (6 standard errors, or 4 for the machine's t-statistics) to hold for any seed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mark1 import stats
from mark1.exceptions import InputError, InputTypeError
from mark1.theory import (Measurement, compare_p_a, compare_p_c, compare_recall, format_table, learning_curve,
                          measure_p_a, measure_p_c, measure_recall, p_a, p_c, p_c_min, phi, z_1957, z_recall)
from mark1._utils.tdist import t_quantile_975 as _t975

# -- sourced and given values -------------------------------------------------------------


@pytest.mark.parametrize(("args", "value"), [((10, 5, 2, 0.1), 0.1798), ((10, 0, 3, 0.2), 0.3222),
                                             ((5, 5, 1, 0.5), 0.3770)])
def test_p_a_given_values(args, value):
    """The values of issue 16, from 1958 eq. 1 (infinite retina)."""
    assert round(p_a(*args), 4) == value


#: 1957 report, Table I: Z ("normal curve ordinates") by N_s, for (P_a, N_A) columns.
TABLE_I = {(0.10, 100): [23.6, 7.45, 2.36, 0.745, 0.236, 0.0745],
           (0.10, 200): [33.3, 10.5, 3.33, 1.05, 0.333, 0.105],
           (0.01, 1000): [707.0, 223.7, 70.7, 22.37, 7.07, 2.237],
           (0.01, 2000): [1000.0, 316.0, 100.0, 31.6, 10.0, 3.16]}
N_S = [10, 100, 1_000, 10_000, 100_000, 1_000_000]


@pytest.mark.parametrize("column", sorted(TABLE_I))
def test_z_1957_reproduces_table_i(column):
    p, n_a = column
    for n_s, printed in zip(N_S, TABLE_I[column]):
        z = z_1957(p, n_a, n_s)
        if p == 0.10:                       # every printed digit (three significant figures)
            assert float(f"{z:.3g}") == pytest.approx(printed, rel=1e-9), (column, n_s, z)
        else:                               # printed 0.5 % lower: as if P_a^4 had been dropped
            assert z / printed == pytest.approx(1 / math.sqrt(1 - p), rel=2e-3), (column, n_s, z)


def test_phi_and_the_1957_example():
    assert phi(0.0) == 0.5 and phi(-math.inf) == 0.0 and phi(math.inf) == 1.0
    assert round(phi(2.237), 3) == 0.987            # "the 2.23 sigma level, or a probability of 0.987"
    assert phi(1.959963984540054) == pytest.approx(0.975, abs=1e-12)


def test_recall_z_and_the_learning_curve_form():
    p, n_a, n_s = 0.1, 100, 1000
    assert z_1957(p, n_a, n_s) / z_recall(p, n_a, n_s) == pytest.approx(1 / (p * (1 - p)))
    direct = (1 - (1 - p) ** n_a) * phi(z_recall(p, n_a, n_s))
    assert learning_curve(n_s, 0, 1 - p, 0, 2 * (1 - p) / n_a, p_a=p, n_e=n_a) == pytest.approx(direct)
    with pytest.raises(InputError, match="^c3, c4:"):
        learning_curve(10, 0, 1, 0, 0, p_a=p, n_e=n_a)


# -- identities -----------------------------------------------------------------------------


@pytest.mark.parametrize(("x", "theta", "R"), [(10, 2, 0.1), (10, 3, 0.2), (7, 7, 0.9), (3, 1, 0.0), (4, 5, 0.5)])
def test_without_inhibition_p_a_is_a_binomial_tail(x, theta, R):
    tail = sum(math.comb(x, e) * R ** e * (1 - R) ** (x - e) for e in range(theta, x + 1))
    assert p_a(x, 0, theta, R) == pytest.approx(tail, abs=1e-12)
    n, r = 400, round(R * 400)
    hyper = sum(math.comb(x, e) * math.comb(n - x, r - e) for e in range(theta, min(x, r) + 1)) / math.comb(n, r)
    assert p_a(x, 0, theta, R, n=n) == pytest.approx(hyper, abs=1e-12)


@pytest.mark.parametrize("n", [None, 400, 40])
@pytest.mark.parametrize(("x", "y", "R"), [(10, 5, 0.1), (10, 0, 0.3), (5, 5, 0.5), (12, 3, 0.7)])
def test_p_a_decreases_with_theta(x, y, R, n):
    values = [p_a(x, y, theta, R, n=n) for theta in range(1, x + 2)]
    assert all(a >= b - 1e-15 for a, b in zip(values, values[1:]))
    assert values[-1] == 0.0                           # theta > x: nothing fires


@pytest.mark.parametrize("n", [None, 400])
@pytest.mark.parametrize(("x", "y", "theta", "R"), [(10, 5, 2, 0.1), (10, 0, 3, 0.5), (5, 5, 1, 0.3), (8, 4, 8, 0.6)])
def test_p_c_identities(x, y, theta, R, n):
    assert p_c(x, y, theta, R, 1.0, n=n) == pytest.approx(1.0, abs=1e-12)       # identical stimuli
    assert p_c_min(x, y, R, 1.0, n=n) == 1.0
    low = (2 * R - 1) / R if R > 0.5 else 0.0
    for C in np.linspace(low, 1, 7):
        assert p_c(x, y, theta, R, C, n=n) >= p_c_min(x, y, R, C, n=n) - 1e-12
    if p_a(x, y, x, R, n=n) > 0:                          # the least P_c is the one at theta = x
        assert p_c(x, y, x, R, 0.7, n=n) == pytest.approx(p_c_min(x, y, R, 0.7, n=n), rel=1e-9)


@pytest.mark.parametrize(("x", "y", "theta", "R"), [(10, 5, 2, 0.1), (10, 0, 3, 0.5), (5, 5, 1, 0.3)])
def test_p_c_at_chance_overlap_is_p_a(x, y, theta, R):
    """C = R: each origin point is lit by S2 with probability R whatever S1 did, so S2 is independent."""
    assert p_c(x, y, theta, R, R) == pytest.approx(p_a(x, y, theta, R), rel=1e-9)


def test_p_c_min_is_eq_3():
    R, C = 0.2, 0.6
    L, G = 1 - C, R * (1 - C) / (1 - R)
    assert p_c_min(10, 5, R, C) == pytest.approx((1 - L) ** 10 * (1 - G) ** 5)


@pytest.mark.parametrize(("x", "y", "theta", "R", "C"), [(10, 5, 2, 0.1, 0.5), (10, 0, 3, 0.2, 0.25),
                                                         (5, 5, 1, 0.5, 0.6)])
def test_finite_forms_approach_the_infinite_retina(x, y, theta, R, C):
    gaps = [abs(p_a(x, y, theta, R, n=n) - p_a(x, y, theta, R)) for n in (400, 4000, 40000)]
    assert gaps[0] < 5e-3 and gaps[2] < 5e-5 and gaps[1] < gaps[0]
    gaps = [abs(p_c(x, y, theta, R, C, n=n) - p_c(x, y, theta, R, C)) for n in (400, 4000, 40000)]
    assert gaps[0] < 1e-2 and gaps[2] < 1e-4 and gaps[1] < gaps[0]


# -- properties -------------------------------------------------------------------------------

boards = st.tuples(st.integers(0, 12), st.integers(0, 8), st.integers(1, 13), st.floats(0, 1))


@settings(max_examples=60)
@given(boards, st.floats(0, 1), st.one_of(st.none(), st.integers(0, 40)))
def test_probabilities_lie_in_0_1(board, C, extra):
    x, y, theta, R = board
    n = None if extra is None else x + y + extra
    assume(n != 0)
    assert 0.0 <= p_a(x, y, theta, R, n=n) <= 1.0
    R_eff = R if n is None else round(R * n) / n
    assume(R_eff < 1 and C >= max(0.0, (2 * R_eff - 1) / max(R_eff, 1e-9)) + 1e-9)     # overlap possible
    try:
        value = p_c(x, y, theta, R, C, n=n)
    except InputError as e:
        assert str(e).startswith(("theta:", "C:"))       # nothing fires, or a rounded overlap too small
        return
    bound = p_c_min(x, y, R, C, n=n)
    assert 0.0 <= bound <= value + 1e-12 <= 1.0 + 1e-12


# -- bad arguments ---------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "error", "name"), [
    (lambda: p_a(-1, 5, 2, 0.1), InputError, "x"),
    (lambda: p_a(10, -5, 2, 0.1), InputError, "y"),
    (lambda: p_a(10, 5, 0, 0.1), InputError, "theta"),
    (lambda: p_a(10, 5, 2, 1.5), InputError, "R"),
    (lambda: p_a(10, 5, 2, float("nan")), InputError, "R"),
    (lambda: p_a(10, 5, 2, 0.1, n=12), InputError, "n"),
    (lambda: p_a(2.5, 5, 2, 0.1), InputTypeError, "x"),
    (lambda: p_a(True, 5, 2, 0.1), InputTypeError, "x"),
    (lambda: p_a(10, 5, 2, "0.1"), InputTypeError, "R"),
    (lambda: p_c(10, 5, 2, 0.8, 0.1), InputError, "C"),
    (lambda: p_c(10, 5, 2, 0.8, 0.1, n=400), InputError, "C"),
    (lambda: p_c(10, 5, 2, 0.1, -0.1), InputError, "C"),
    (lambda: p_c(3, 5, 4, 0.1, 0.5), InputError, "theta"),
    (lambda: p_c_min(10, 5, 1.0, 0.5), InputError, "C"),
    (lambda: z_1957(0.0, 100, 10), InputError, "p_a"),
    (lambda: z_1957(0.1, -100, 10), InputError, "n_a"),
    (lambda: z_recall(0.1, 100, 0), InputError, "n_s"),
    (lambda: phi("1"), InputTypeError, "z"),
    (lambda: measure_p_a(3, 0, 4, 0.1, seeds=2), InputError, "theta"),
    (lambda: measure_p_a(10, 5, 2, 0.1, seeds=1), InputError, "seeds"),
])
def test_bad_arguments_are_named(call, error, name):
    with pytest.raises(error, match=f"^{name}:"):
        call()


# -- Monte Carlo: the formulas against a direct simulation of one A-unit ---------------------------

CASES = [(10, 5, 2, 0.1), (10, 0, 3, 0.2), (5, 5, 1, 0.5), (8, 4, 3, 0.3)]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("x", "y", "theta", "R"), CASES)
def test_p_a_against_direct_simulation(x, y, theta, R, seed):
    rng, trials = np.random.default_rng(seed), 20_000
    e, i = rng.binomial(x, R, trials), rng.binomial(y, R, trials)             # infinite retina
    expected = p_a(x, y, theta, R)
    assert abs(np.mean(e - i >= theta) - expected) <= 6 * math.sqrt(expected * (1 - expected) / trials) + 1e-9
    n, r = 60, round(R * 60)                                                  # finite: r of n points lit
    lit = np.argsort(rng.random((trials, n)), axis=1)[:, :r]
    e, i = (lit < x).sum(axis=1), ((lit >= x) & (lit < x + y)).sum(axis=1)    # origin points 0..x+y-1
    expected = p_a(x, y, theta, R, n=n)
    assert abs(np.mean(e - i >= theta) - expected) <= 6 * math.sqrt(expected * (1 - expected) / trials) + 1e-9


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize(("x", "y", "theta", "R", "C"), [(10, 5, 2, 0.2, 0.5), (5, 5, 1, 0.5, 0.3),
                                                         (10, 0, 3, 0.3, 0.0), (8, 4, 3, 0.3, 0.8)])
def test_p_c_against_direct_simulation(x, y, theta, R, C, seed):
    """The forms derived here: the finite P_c (hypergeometric losses and gains) and eq. 2 with L, G from C."""
    rng, trials = np.random.default_rng(seed), 40_000
    n = 60
    r = round(R * n)
    kept = round(C * r)
    order = np.argsort(rng.random((trials, n)), axis=1)
    s1, s2 = order[:, :r], np.concatenate([order[:, :kept], order[:, r:2 * r - kept]], axis=1)

    def net(points):
        return (points < x).sum(axis=1) - ((points >= x) & (points < x + y)).sum(axis=1)

    first, both = net(s1) >= theta, (net(s1) >= theta) & (net(s2) >= theta)
    expected = p_c(x, y, theta, R, C, n=n)
    assert abs(both.sum() / first.sum() - expected) <= 6 * math.sqrt(expected * (1 - expected) / first.sum()) + 1e-9
    L, G = 1 - C, R * (1 - C) / (1 - R)                                       # infinite retina, eq. 2
    e, i = rng.binomial(x, R, trials), rng.binomial(y, R, trials)
    after = e - i - rng.binomial(e, L) + rng.binomial(i, L) + rng.binomial(x - e, G) - rng.binomial(y - i, G)
    first, both = e - i >= theta, (e - i >= theta) & (after >= theta)
    expected = p_c(x, y, theta, R, C)
    assert abs(both.sum() / first.sum() - expected) <= 6 * math.sqrt(expected * (1 - expected) / first.sum()) + 1e-9


# -- the machine ------------------------------------------------------------------------------

FAST = dict(seeds=8, stimuli=10, n_associators=128)


@pytest.mark.parametrize(("x", "y", "theta", "R"), [(10, 5, 2, 0.1), (10, 0, 3, 0.2), (5, 5, 1, 0.5)])
def test_machine_p_a_within_4_se_of_the_finite_formula(x, y, theta, R):
    m = measure_p_a(x, y, theta, R, **FAST)
    assert abs(m.distance(p_a(x, y, theta, R, n=400))) < 4, m


@pytest.mark.parametrize(("x", "y", "theta", "R", "C"), [(10, 5, 2, 0.2, 0.5), (10, 0, 3, 0.5, 0.0)])
def test_machine_p_c_within_4_se_of_the_finite_formula(x, y, theta, R, C):
    m = measure_p_c(x, y, theta, R, C, **FAST)
    assert abs(m.distance(p_c(x, y, theta, R, C, n=400))) < 4, m


def test_machine_with_a_binding_fan_out_keeps_p_a():
    """A fan-out of 4 x 15 inputs x 128 units / 400 S-units ~ 4.8 binds hard; the mean stays."""
    m = measure_p_a(10, 5, 2, 0.1, seeds=8, stimuli=10, n_associators=128, fan_out=5)
    assert abs(m.distance(p_a(10, 5, 2, 0.1, n=400))) < 4, m


def test_machine_recall_follows_the_derived_z_not_the_1957_table():
    rows = compare_recall(10, 5, 3, 0.15, n_a=50, n_s=[100], seeds=8)
    row = rows[0]
    assert abs(row["distance"]) < 4, row
    assert row["p_1957"] > 0.999 and row["distance_1957"] < -20


def test_measurements_are_deterministic_given_the_seed():
    a = measure_p_c(10, 5, 2, 0.2, 0.5, seeds=3, stimuli=4, n_associators=32, seed=7)
    b = measure_p_c(10, 5, 2, 0.2, 0.5, seeds=3, stimuli=4, n_associators=32, seed=7)
    c = measure_p_c(10, 5, 2, 0.2, 0.5, seeds=3, stimuli=4, n_associators=32, seed=8)
    assert a == b and a != c
    assert measure_recall(10, 5, 3, 0.15, n_a=20, n_s=5, seeds=2, seed=3) == \
        measure_recall(10, 5, 3, 0.15, n_a=20, n_s=5, seeds=2, seed=3)


# -- the bench's arithmetic -----------------------------------------------------------------------


@pytest.mark.parametrize(("df", "t"), [(1, 12.7062047), (2, 4.30265273), (3, 3.18244631), (9, 2.26215716),
                                       (10, 2.22813885), (30, 2.04227246), (1000, 1.96233908)])
def test_t_quantile(df, t):
    assert _t975(df) == pytest.approx(t, abs=1e-6)


def test_measurement_interval_and_distance():
    values = (0.18, 0.20, 0.19, 0.17, 0.18, 0.21, 0.19, 0.18, 0.20, 0.17)
    m = Measurement(values)
    iv = stats.mean_interval(values, (0.0, 1.0))                 # the one method every interval uses
    assert (m.low, m.high) == (iv.low, iv.high) and iv.low < m.mean < iv.high
    assert Measurement((0.5, 0.5)).distance(0.5) == 0.0
    assert Measurement((0.5, 0.5)).distance(0.4) == math.inf
    assert math.isnan(Measurement((0.5,)).low)
    assert math.isnan(Measurement(values[:9]).high)                    # below MIN_SEEDS: no interval
    assert "too few seeds (n = 9)" in str(Measurement(values[:9]))
    near_zero = Measurement((0.0,) * 9 + (0.02,))                     # a t-interval would reach below 0
    assert near_zero.low == 0.0 < near_zero.high
    assert Measurement((-0.02, 0.01) * 5, bounds=(-1.0, 1.0)).low < 0.0


def test_a_table_says_too_few_seeds_rather_than_an_interval():
    rows = compare_p_a([(10, 5, 2, 0.1)], seeds=3, stimuli=2, n_associators=16)
    assert "too few seeds (n = 3)" in format_table(rows)


def test_tables():
    rows = compare_p_a([(10, 5, 2, 0.1)], seeds=2, stimuli=2, n_associators=16)
    rows_c = compare_p_c([(10, 5, 2, 0.2, 0.5)], seeds=2, stimuli=2, n_associators=16)
    for r in rows + rows_c:
        assert r["finite"] == pytest.approx(r["measured"] - r["distance"] * r["se"])
    text = format_table(rows_c)
    assert text.count("\n") == 3 and "| C |" in text
    assert format_table([]) == ""
    with pytest.raises(InputError, match="^rows:"):
        format_table(rows + rows_c)
