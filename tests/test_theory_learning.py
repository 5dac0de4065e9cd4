"""The 1958 learning curves (mark1.theory.learning): eq. 4's identities and limits, values worked
by hand from the paper's formulas, and the machine's own trainer against them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mark1.exceptions import InputError
from mark1.specs import PRESETS
from mark1.theory import phi, z_recall
from mark1.theory.learning import (FIGURES, Constants, alpha_constants, asymptote, effective_units, gamma_constants,
                                   machine_p_a, machine_recall, machine_spec, p_g, p_r, random_cards,
                                   system_constants)

N_SR = [1, 3, 10, 30, 100, 300, 1000, 3000, 10_000, 100_000]


def test_mu_at_fixed_n_sr_is_the_derived_recall():
    # eq. 6 in eq. 7's normalisation is the 1957 experiment worked out (z_recall)
    for p_a, n_e, n in [(0.1, 100, 1000), (0.07, 1000, 30), (0.005, 10_000, 300)]:
        c = alpha_constants("mu", p_a=p_a, n_e=n_e)
        expected = (1 - (1 - p_a) ** n_e) * phi(z_recall(p_a, n_e, n))
        assert p_r(n, c, p_a=p_a, n_e=n_e) == pytest.approx(expected, rel=1e-12)


def test_reference_values_by_hand():
    # μ, P_a = .07 (fig. 8), N_e = 1,000, n_sr = 1,000: Z = sqrt(.93 * 1000 / 2000) = 0.6819, Φ = 0.7523
    assert p_r(1000, alpha_constants("mu", p_a=0.07, n_e=1000), p_a=0.07, n_e=1000) == pytest.approx(0.7523, abs=2e-4)
    # Σ, P_a = .1, N_e = 100, n_sr = 10: c2 = .9, c3 = .0018, c4 = .018; Z = .9 / sqrt(.18 + .18) = 1.5;
    # Φ(1.5) = 0.93319, times 1 - .9^100 = 0.99997
    c = alpha_constants("sigma", p_a=0.1, n_e=100)
    assert (c.c1, c.c2, c.c3, c.c4) == pytest.approx((0.0, 0.9, 0.0018, 0.018))
    assert p_r(10, c, p_a=0.1, n_e=100) == pytest.approx(0.93317, abs=1e-4)
    # n_sr = 1, μ: Z = sqrt((1 - P_a) N_e / 2) = sqrt(45) = 6.7: P_r is the reach, 1 - .9^100
    assert p_r(1, alpha_constants("mu", p_a=0.1, n_e=100), p_a=0.1, n_e=100) == pytest.approx(1 - 0.9 ** 100)


@pytest.mark.parametrize("system,disc", [("alpha", "mu"), ("alpha", "sigma"), ("gamma", "mu"), ("gamma", "sigma")])
@pytest.mark.parametrize("p_a,n_e", [(0.005, 1000), (0.07, 256), (0.18, 10_000)])
def test_ideal_environment_falls_to_chance(system, disc, p_a, n_e):
    c = system_constants(system, disc, p_a=p_a, n_e=n_e)
    curve = np.array([p_r(n, c, p_a=p_a, n_e=n_e) for n in N_SR])
    reach = 1 - (1 - p_a) ** n_e
    assert np.all(np.diff(curve) <= 1e-15)                    # conclusion 2 (p. 405): falls as stimuli are added
    assert asymptote(c, p_a=p_a, n_e=n_e) == pytest.approx(0.5 * reach)     # c1 = 0: Φ(0)
    assert abs(p_r(1e9, c, p_a=p_a, n_e=n_e) - 0.5 * reach) < 0.01
    assert np.all(curve >= 0.5 * reach - 1e-12)
    # P_g: c2 = 0 (p. 396), so Z = 0 and P_g = reach / 2 at every n_sr (p. 397)
    assert all(p_g(n, c, p_a=p_a, n_e=n_e) == pytest.approx(0.5 * reach) for n in N_SR)


@pytest.mark.parametrize("p_a,n_e", [(0.005, 1000), (0.07, 256), (0.18, 10_000)])
def test_sigma_below_mu_and_gamma_as_alpha_mu(p_a, n_e):
    mu, sigma = alpha_constants("mu", p_a=p_a, n_e=n_e), alpha_constants("sigma", p_a=p_a, n_e=n_e)
    assert mu.c3 == 0 and sigma.c3 > 0                         # "the reduction of c3 to zero" (p. 397)
    for n in N_SR[1:]:
        s, m = p_r(n, sigma, p_a=p_a, n_e=n_e), p_r(n, mu, p_a=p_a, n_e=n_e)
        reach = 1 - (1 - p_a) ** n_e
        assert s <= m and (s < m or m > reach - 1e-9)           # strictly below unless both Φ are at 1
    assert gamma_constants(p_a=p_a, n_e=n_e) == mu              # pp. 398-399
    assert system_constants("gamma", "sigma", p_a=p_a, n_e=n_e) == mu      # γ: Σ = μ


def test_more_units_learn_more():
    for n in (10, 100, 1000):
        values = [p_r(n, alpha_constants("mu", p_a=0.07, n_e=ne), p_a=0.07, n_e=ne) for ne in (100, 1000, 10_000)]
        assert values[0] < values[1] < values[2]


def test_figure_constants_are_the_captions():
    assert FIGURES[7]["p_a"] == 0.005 and FIGURES[8]["p_a"] == 0.07 and FIGURES[9]["n_sr"] == 1000
    assert FIGURES[10]["n_a"] == 10_000 and FIGURES[10]["omega"] == 0.2 and FIGURES[10]["n_r"] == 100
    assert Constants(0, 1, 2, 3).for_generalization() == Constants(0, 0, 2, 3)


def test_bad_arguments_name_themselves():
    with pytest.raises(InputError, match="discrimination"):
        alpha_constants("median", p_a=0.1, n_e=10)
    with pytest.raises(InputError, match="system"):
        system_constants("beta", "mu", p_a=0.1, n_e=10)
    with pytest.raises(InputError, match="p_a"):
        alpha_constants("mu", p_a=1.0, n_e=10)
    with pytest.raises(InputError, match="reinforcement"):
        machine_spec(PRESETS["ibm704"], "alpha", "forcd")


def test_random_cards_light_exactly_lit_points():
    cards = random_cards(np.random.default_rng(3), 5, lit=20)
    assert np.all((cards == 0).sum(axis=(1, 2)) == 20)


def test_machine_alpha_forced_on_the_ideal_environment_follows_eq_4():
    # ibm704 reading, α forced monovalent, μ; n_sr = 30 per response, 40 of 400 S-units lit.
    # Tolerance: a machine's P_r is a score over 60 cards, sd about .03 at P_r ~ .96 over machines;
    # the mean of 6 machines within .05 of eq. 4 (more than 4 standard errors).
    spec = machine_spec(PRESETS["ibm704"], "alpha", "forced")
    pa, n_e = machine_p_a(spec), effective_units(spec)
    expected = p_r(30, alpha_constants("mu", p_a=pa, n_e=n_e), p_a=pa, n_e=n_e)
    found = [machine_recall(spec, 30, seed, test=20)[0] for seed in range(6)]
    assert abs(np.mean(found) - expected) < 0.05, (found, expected)
    assert math.isclose(pa, 0.1805, abs_tol=1e-4) and n_e == 256
