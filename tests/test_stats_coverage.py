"""The statistics module's claims, shown by simulation: every interval stays inside what can
happen, covers the truth in 95 % of studies (within ±2 points) from its minimum seed count on,
says "too few seeds" below it, and the families' corrections control what they say they do.

The 10-seed cells run by default; the 40-seed cells, the heavy tails, the false-discovery
simulation and the costliest precision run are marked slow (``pytest -m slow``). Each
coverage cell simulates 20,000 studies with known truth (the Monte Carlo standard error of
a coverage near 95 % is then 0.15 points). The per-seed figures are test accuracies: a true
accuracy drawn per seed from a Beta distribution (the machine-to-machine spread; skewed near
100 %), then scored on 1,000 test cards (binomial). The printed table in the docs
(docs/guide/lab.rst) comes from the same simulation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mark1.exceptions import InputError
from mark1.stats import (LEVEL, MIN_SEEDS, Interval, benjamini_hochberg, difference_interval, family, holm,
                         mean_interval, p_value, pilot_seeds, proportion_interval, proportion_p_value, seeds_needed,
                         t_quantile)

STUDIES = 20_000


def _beta(mean, sd):
    k = mean * (1 - mean) / sd ** 2 - 1
    return mean * k, (1 - mean) * k


def _accuracies(rng, mean, sd, shape, cards=1000):
    a, b = _beta(mean, sd)
    return rng.binomial(cards, rng.beta(a, b, size=shape)) / cards


def _coverage(rows, truth, bounds):
    hit = 0
    for row in rows:
        iv = mean_interval(row, bounds)
        assert iv.low is not None and bounds[0] <= iv.low <= iv.mean <= iv.high <= bounds[1]
        hit += iv.low <= truth <= iv.high
    return hit / len(rows)


# (name, true mean, machine-to-machine sd, population skewness of the Beta): the grid of truths
ACCURACIES = [
    ("near 50 %", 0.50, 0.10),
    ("near 90 %", 0.90, 0.05),
    ("near 90 %, wide and skewed", 0.90, 0.10),        # skewness -1.6
    ("near 98 %, skewed", 0.98, 0.02),                 # -1.9
    ("near 100 %, skewed", 0.995, 0.005),              # -2.0
]
# piled against the bound with a long tail: the method needs 20 seeds here (at 10: 91.8-93.2 %)
HEAVY = [
    ("near 97 %, heavy tail", 0.97, 0.04),             # skewness -2.4
    ("near 99.5 %, heavy tail", 0.995, 0.008),         # -3.2
]


@pytest.mark.parametrize("n", [MIN_SEEDS, pytest.param(40, marks=pytest.mark.slow)])
@pytest.mark.parametrize("name, mean, sd", ACCURACIES)
def test_coverage_of_a_mean_accuracy(name, mean, sd, n):
    rng = np.random.default_rng([7, n, int(mean * 1000), int(sd * 1000)])
    cov = _coverage(_accuracies(rng, mean, sd, (STUDIES, n)), mean, (0.0, 1.0))
    assert abs(cov - LEVEL) <= 0.02, f"{name}, {n} seeds: coverage {100 * cov:.1f} %"


@pytest.mark.slow
@pytest.mark.parametrize("n", [20, 40])
@pytest.mark.parametrize("name, mean, sd", HEAVY)
def test_coverage_with_a_heavy_tail_from_20_seeds(name, mean, sd, n):
    rng = np.random.default_rng([8, n, int(mean * 1000), int(sd * 1000)])
    cov = _coverage(_accuracies(rng, mean, sd, (STUDIES, n)), mean, (0.0, 1.0))
    assert abs(cov - LEVEL) <= 0.02, f"{name}, {n} seeds: coverage {100 * cov:.1f} %"


@pytest.mark.parametrize("n", [MIN_SEEDS, 40])
def test_coverage_at_100_percent(n):
    """Every seed at 100 %: the interval is the point 100 %, and covers."""
    iv = mean_interval([1.0] * n, (0.0, 1.0))
    assert (iv.mean, iv.low, iv.high) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize("n", [MIN_SEEDS, pytest.param(40, marks=pytest.mark.slow)])
def test_coverage_of_a_paired_difference(n):
    """The analog machine minus a digital one on the same cards: correlated, in [-1, 1]."""
    rng = np.random.default_rng([9, n])
    digital = _accuracies(rng, 0.95, 0.03, (STUDIES, n))
    cost = rng.beta(*_beta(0.04, 0.03), size=(STUDIES, n))      # right-skewed, mean 0.04: the truth is -0.04
    analog = digital - cost
    hit = 0
    for a, d in zip(analog, digital):
        iv = difference_interval(a, d, (0.0, 1.0))
        assert -1.0 <= iv.low <= iv.mean <= iv.high <= 1.0
        hit += iv.low <= -0.04 <= iv.high
    cov = hit / STUDIES
    assert abs(cov - LEVEL) <= 0.02, f"{n} seeds: coverage {100 * cov:.1f} %"


@pytest.mark.parametrize("n", [MIN_SEEDS, pytest.param(40, marks=pytest.mark.slow)])
def test_coverage_of_a_count(n):
    """Presentations until the last mistake in a 200-presentation run: in [0, 200], right-skewed."""
    rng = np.random.default_rng([10, n])
    rows = np.round(200 * rng.beta(1.5, 8.0, size=(STUDIES, n)))
    truth = 200 * 1.5 / 9.5
    cov = _coverage(rows, truth, (0.0, 200.0))
    assert abs(cov - LEVEL) <= 0.02, f"{n} seeds: coverage {100 * cov:.1f} %"


@pytest.mark.parametrize("n", [2, 3, 5, MIN_SEEDS - 1])
def test_too_few_seeds_give_no_interval_and_no_verdict(n):
    rng = np.random.default_rng(n)
    v = _accuracies(rng, 0.9, 0.05, n)
    iv = mean_interval(v, (0.0, 1.0))
    assert iv.too_few and iv.low is None and iv.high is None and iv.excludes(0.5) is None
    assert f"too few seeds (n = {n}) for an interval" in iv.format(scale=100)
    assert p_value(v - 0.5) is None
    (c,) = family([list(v - 0.5)], (-1.0, 1.0))
    assert c.decided is None and c.p is None and c.interval.too_few


# -- the interval's range and its test -------------------------------------------------------

accuracy_lists = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=MIN_SEEDS, max_size=60)


@given(accuracy_lists, st.sampled_from([0.8, 0.95, 0.99, 0.9999]))
def test_no_interval_ever_leaves_the_range(values, level):
    iv = mean_interval(values, (0.0, 1.0), level=level)
    assert 0.0 <= iv.low <= iv.mean <= iv.high <= 1.0
    d = difference_interval(values, values[::-1], (0.0, 1.0), level=level)
    assert -1.0 <= d.low <= d.mean <= d.high <= 1.0


@given(st.lists(st.floats(0.0, 1e6, allow_nan=False), min_size=MIN_SEEDS, max_size=40))
def test_a_time_stays_non_negative(values):
    iv = mean_interval(values, (0.0, math.inf))
    assert 0.0 <= iv.low <= iv.mean <= iv.high


@given(accuracy_lists)
def test_intervals_nest_as_the_level_rises(values):
    ivs = [mean_interval(values, (0.0, 1.0), level=lv) for lv in (0.8, 0.95, 0.995)]
    for narrow, wide in zip(ivs, ivs[1:]):
        assert wide.low <= narrow.low + 1e-12 and narrow.high <= wide.high + 1e-12


@settings(max_examples=200)
@given(st.lists(st.floats(-0.2, 0.3, allow_nan=False), min_size=MIN_SEEDS, max_size=30))
def test_the_p_value_is_the_interval_s_test(diffs):
    """0 lies outside the (1 − α) interval exactly when p < α: the verdicts of a table never disagree."""
    p = p_value(diffs)
    for alpha in (0.01, 0.05, 0.2):
        if abs(p - alpha) < 1e-9:
            continue
        iv = mean_interval(diffs, (-1.0, 1.0), level=1 - alpha)
        if iv.low == iv.high:
            continue
        assert iv.excludes(0.0) == (p < alpha), (p, alpha, iv)


def test_the_plain_t_interval_where_there_is_no_skew():
    """Symmetric data (skewness exactly 0): Hall's correction vanishes, the interval is Student's."""
    scipy_stats = pytest.importorskip("scipy.stats")
    v = [0.8, 0.85, 0.9, 0.95, 1.0, 0.8, 0.85, 0.9, 0.95, 1.0]
    iv = mean_interval(v, (0.0, 1.0))
    ref = scipy_stats.t.interval(0.95, 9, loc=np.mean(v), scale=np.std(v, ddof=1) / math.sqrt(10))
    assert (iv.low, iv.high) == pytest.approx(ref, abs=1e-9)


def test_t_quantiles_match_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    for q in (0.5 + 0.95 / 2, 0.995, 0.9999, 0.6, 0.025):
        for df in (1, 2, 9, 39, 500):
            assert t_quantile(q, df) == pytest.approx(scipy_stats.t.ppf(q, df), rel=1e-9, abs=1e-9)


def test_bad_input_is_refused_in_one_line():
    with pytest.raises(InputError, match="values: expected figures from 0 to 1, got 1.5"):
        mean_interval([0.5, 1.5], (0.0, 1.0))
    with pytest.raises(InputError, match="bounds"):
        mean_interval([0.5], (1.0, 0.0))
    with pytest.raises(InputError, match="finite"):
        mean_interval([0.5, math.nan], (0.0, 1.0))
    with pytest.raises(InputError, match="same seeds"):
        difference_interval([0.5, 0.6], [0.5], (0.0, 1.0))
    with pytest.raises(InputError, match="0 <= k <= n"):
        proportion_interval(5, 3)
    with pytest.raises(InputError, match="level"):
        mean_interval([0.5], (0.0, 1.0), level=1.0)


# -- a share: Clopper-Pearson ---------------------------------------------------------------

@pytest.mark.parametrize("n", [5, 24, 100])
def test_a_share_s_interval_covers_at_every_true_share(n):
    """Exact: coverage at least 95 % whatever the true share (computed, not sampled)."""
    ivs = [proportion_interval(k, n) for k in range(n + 1)]
    from math import comb
    for share in np.linspace(0.0, 1.0, 41):
        cov = sum(comb(n, k) * share ** k * (1 - share) ** (n - k) for k, iv in enumerate(ivs)
                  if iv.low <= share <= iv.high)
        assert cov >= LEVEL - 1e-9, (n, share, cov)
    assert all(0.0 <= iv.low <= iv.mean <= iv.high <= 1.0 for iv in ivs)


def test_a_share_matches_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    ref = scipy_stats.binomtest(7, 24).proportion_ci(0.95, method="exact")
    iv = proportion_interval(7, 24)
    assert (iv.low, iv.high) == pytest.approx((ref.low, ref.high), abs=1e-9)


def test_a_share_s_p_value_is_the_test_its_interval_inverts():
    for n in (1, 5, 24, 100):
        for k in range(n + 1):
            for level in (0.9, 0.95, 0.99):
                iv = proportion_interval(k, n, level=level)
                for null in np.linspace(0.0, 1.0, 101):
                    if min(abs(null - iv.low), abs(null - iv.high)) < 1e-7:
                        continue                    # at an end: either side of alpha by rounding
                    inside = iv.low <= null <= iv.high
                    assert inside == (proportion_p_value(k, n, float(null)) >= 1 - level), (k, n, level, null)


def test_a_share_s_p_value_matches_scipy_where_the_tails_are_alike():
    scipy_stats = pytest.importorskip("scipy.stats")
    for k, n in ((7, 24), (3, 10), (50, 100)):          # null 0.5: scipy's two-sided p is twice the smaller tail
        assert proportion_p_value(k, n, 0.5) == pytest.approx(scipy_stats.binomtest(k, n, 0.5).pvalue, rel=1e-9)


# -- families ----------------------------------------------------------------------------------

def test_holm_and_bh_match_r():
    ps = [0.01, 0.04, 0.03, 0.005, 0.2, None]
    assert holm(ps) == pytest.approx([0.04, 0.09, 0.09, 0.025, 0.2, None])               # R: p.adjust(p, "holm")
    assert benjamini_hochberg(ps) == pytest.approx([0.025, 0.05, 0.05, 0.025, 0.2, None])  # R: p.adjust(p, "BH")


def test_holm_controls_the_family_wise_error():
    """Ten comparisons, every one truly null, ten seeds each: a false verdict anywhere in the family
    in at most 5 % of studies (the Monte Carlo error of 4,000 studies is 0.35 points)."""
    rng = np.random.default_rng(11)
    studies, m = 4000, 10
    wrong = 0
    for _ in range(studies):
        samples = list(rng.normal(0.0, 0.03, size=(m, MIN_SEEDS)))
        out = family(samples, (-1.0, 1.0), correction="holm")
        wrong += any(c.decided for c in out)
    assert wrong / studies <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / studies)
    # uncorrected, the same family errs in about 40 % of studies
    rng = np.random.default_rng(11)
    raw = sum(any(c.decided for c in family(list(rng.normal(0.0, 0.03, size=(m, MIN_SEEDS))), (-1.0, 1.0),
                                              correction="none")) for _ in range(500))
    assert raw / 500 > 0.25


@pytest.mark.slow
def test_bh_controls_the_false_discovery_rate():
    """Twenty comparisons, half with a real effect: the share of false verdicts among verdicts
    averages at most 5 %."""
    rng = np.random.default_rng(12)
    studies, fdp = 2000, 0.0
    effects = np.r_[np.zeros(10), np.full(10, 0.03)]
    for _ in range(studies):
        samples = list(effects[:, None] + rng.normal(0.0, 0.03, size=(20, MIN_SEEDS)))
        out = family(samples, (-1.0, 1.0), correction="bh")
        found = [i for i, c in enumerate(out) if c.decided]
        fdp += sum(1 for i in found if i < 10) / max(1, len(found))
    assert fdp / studies <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / studies)


def test_every_verdict_reads_the_adjusted_interval():
    rng = np.random.default_rng(13)
    for correction in ("holm", "bh", "none"):
        samples = list(rng.normal(0.01, 0.02, size=(8, 12)))
        for c in family(samples, (-1.0, 1.0), correction=correction):
            assert c.decided == c.interval.excludes(0.0)
            assert c.interval.level >= c.raw.level
            assert c.interval.low <= c.raw.low and c.raw.high <= c.interval.high


# -- seeds a question needs -------------------------------------------------------------------

def test_seeds_needed_gives_the_precision_at_the_spread():
    v = [0.90, 0.80, 0.85, 0.95, 0.88]
    n = seeds_needed(v, 0.01)
    sd = float(np.std(v, ddof=1))
    assert t_quantile(0.975, n - 1) * sd / math.sqrt(n) <= 0.01 < t_quantile(0.975, n - 2) * sd / math.sqrt(n - 1)


@pytest.mark.parametrize("mean, sd, precision, share_within",
                         [(0.9, 0.05, 0.01, 0.8), pytest.param(0.98, 0.02, 0.005, 0.5, marks=pytest.mark.slow),
                          (0.98, 0.02, 0.02, 0.5)])
def test_a_study_run_to_a_precision_keeps_its_coverage(mean, sd, precision, share_within):
    """Ten pilot seeds fix how many new seeds to run (Stein's rule); the final interval, of the new
    seeds, covers the truth in 95 % ± 2 of studies and is within the precision in most (fewer where
    the spread is skewed: the plan reckons with the spread, not the skew)."""
    rng = np.random.default_rng([14, int(1000 * precision)])
    studies, hit, within = 2000, 0, 0
    for _ in range(studies):
        n = pilot_seeds([_accuracies(rng, mean, sd, MIN_SEEDS)], precision, max_seeds=5000)
        iv = mean_interval(_accuracies(rng, mean, sd, n), (0.0, 1.0))
        hit += iv.low <= mean <= iv.high
        within += iv.half_width <= precision
    assert abs(hit / studies - LEVEL) <= 0.02 + 3 * math.sqrt(LEVEL * (1 - LEVEL) / studies)
    assert within / studies >= share_within


def test_an_interval_formats_in_the_words_of_every_page():
    iv = Interval(0.85, None, None, 2, (0.0, 1.0))
    assert iv.format(scale=100) == "85.0 (too few seeds (n = 2) for an interval)"
    assert Interval(math.nan, None, None, 0, (0.0, 1.0)).format() == "no seeds"
    assert Interval(-0.2, -0.3, -0.1, 12, (-1.0, 1.0)).format(scale=100, signed=True) == "-20.0 [-30.0, -10.0]"
