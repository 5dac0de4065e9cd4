"""The ablation a reader can trust: paired costs, 95 % t-intervals, exact zeros."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mark1.lab._ablate as ab
from mark1 import stats as mstats
from mark1.stats import holm, t_quantile_975, t_two_sided_p
from mark1.stimuli.scenes import load_scene

sys.path.insert(0, str(Path(__file__).parent))
from test_lab import TINY  # noqa: E402


def test_t_quantiles_match_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 3, 4, 9, 29, 30, 31, 40, 100, 1000):
        assert t_quantile_975(df) == pytest.approx(stats.t.ppf(0.975, df), abs=2e-5), df


def test_paired_cost_sign_and_verdicts():
    # cost = accuracy without it minus with it: positive hurts; ten seeds for an interval
    without = [0.9, 0.8, 0.85, 0.9, 0.88, 0.92, 0.81, 0.86, 0.9, 0.87]
    with_ = [0.7, 0.6, 0.66, 0.72, 0.7, 0.75, 0.62, 0.69, 0.71, 0.7]
    c = ab.paired_cost(without, with_)
    assert c["mean"] == pytest.approx(np.mean(np.subtract(without, with_))) and c["verdict"] == "cost"
    assert c["interval"].low > 0 and c["interval"].bounds == (-1.0, 1.0)
    assert ab.paired_cost(with_, without)["verdict"] == "gain"
    noise = [0.01, -0.02, 0.03, -0.01, 0.0, 0.02, -0.03, 0.01, -0.01, 0.005]
    assert ab.paired_cost([0.8 + d for d in noise], [0.8] * 10)["verdict"] == "null"
    same = ab.paired_cost([0.9, 0.8], [0.9, 0.8])
    assert same["verdict"] == "zero" and same["mean"] == 0.0
    # below the method's ten seeds: no interval, no test, no verdict, whatever the costs look like
    few = ab.paired_cost(without[:9], with_[:9])
    assert few["verdict"] == "few" and few["interval"].low is None and few["p"] is None
    assert few["interval"].words() == "too few seeds (n = 9) for an interval"
    with pytest.raises(ValueError, match="same seeds"):
        ab.paired_cost([0.9, 0.8], [0.9])


@given(st.lists(st.floats(0, 1), min_size=10, max_size=30), st.lists(st.floats(0, 1), min_size=30, max_size=30))
def test_a_costs_interval_stays_inside_what_a_cost_can_be(a, b):
    c = ab.paired_cost(a, b[:len(a)])
    iv = c["interval"]
    assert -1.0 <= iv.low <= iv.mean <= iv.high <= 1.0


def test_a_non_ideality_that_cannot_act_costs_exactly_zero(tmp_path):
    """The motor speed limit alone on the ideal machine changes the timing, never the weights.

    It runs on the event path while the ideal machine takes the fast one, so this also
    holds the two paths to the same answers on ties (the lead's tie rule).
    """
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    result = ab.ablate(load_scene(path), seeds=3)
    on = result.row("on:speed_limit")
    assert on["costs"] == [0.0, 0.0, 0.0] and on["verdict"] == "zero"
    assert on["cost_points"] == 0.0 and on["low"] is None              # three seeds: no interval
    # the continuous machine without the ratchet is the full machine itself: exactly 0 too
    off = result.row("off:ratchet")
    assert off["same_as"] == "full" and off["verdict"] == "zero" and off["machine_time_h_change"] is None
    text = result.table()
    assert "exactly 0" in text and "points lost" in text and mstats.METHOD in text
    assert "too few seeds (n = 3) for an interval: no interval and no verdict" in text
    for r in result.rows:
        if r["reference"] is not None:
            ref = result.row(r["reference"])
            sign = 1 if r["kind"] == "on_alone" else -1
            expected = [sign * 100 * (a - b) for a, b in zip(ref["test_accuracy"], r["test_accuracy"])]
            assert r["costs"] == pytest.approx(expected, abs=1e-9)


# ----------------------------------------------------------------------------------------
# multiplicity, p-values and the seeds a difference needs


def test_holm_by_hand():
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> kept at 0.06 (monotone)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    assert holm([0.3, None, 0.02]) == [pytest.approx(0.3), None, pytest.approx(0.04)]    # None is not in m
    assert holm([]) == [] and holm([0.7]) == [0.7]
    with pytest.raises(ValueError, match="pvalues"):
        holm([0.1, 1.5])


# statsmodels.stats.multitest.multipletests(p, method="holm") on R multtest's reference p-values
# (statsmodels' tests/test_multi.py, res_multtest1 and res_multtest3, columns rawp and Holm), typed in
_RAW_1 = [5.2365677720800003e-05, 2.8140506198000000e-04, 1.4987731079600001e-02, 2.0273268879800001e-02,
          1.7709695272300000e-01, 6.4219392379499995e-01, 6.8084594763299999e-01, 7.1626938238000004e-01,
          8.3854136755300002e-01, 9.6783382430900000e-01]
_HOLM_1 = [5.2365677720800005e-04, 2.5326455578199999e-03, 1.1990184863680001e-01, 1.4191288215860001e-01,
           1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
_RAW_3 = [0.001, 0.002, 0.003, 0.004, 0.005, 0.05, 0.06, 0.07, 0.08, 0.09]
_HOLM_3 = [0.01, 0.018, 0.024, 0.028, 0.03, 0.25, 0.25, 0.25, 0.25, 0.25]


@pytest.mark.parametrize("raw, expected", [(_RAW_1, _HOLM_1), (_RAW_3, _HOLM_3)])
def test_holm_matches_statsmodels_reference_values(raw, expected):
    assert holm(raw) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    shuffled = np.random.default_rng(0).permutation(len(raw))          # the order given is kept
    assert holm([raw[i] for i in shuffled]) == pytest.approx([expected[i] for i in shuffled], rel=1e-12)


def test_t_p_value_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 3, 4, 9, 19, 30, 99):
        for t in (0.0, 0.3, 1.0, 2.0, 2.7764, 5.0, 12.0, -3.0, 40.0):
            assert t_two_sided_p(t, df) == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-9, abs=1e-14), (t, df)
    assert t_two_sided_p(t_quantile_975(4), 4) == pytest.approx(0.05, abs=1e-8)


