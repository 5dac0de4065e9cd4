"""The ablation a reader can trust: paired costs, 95 % t-intervals, exact zeros."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mark1.lab._ablate as ab
from mark1.lab.stats import mean_interval, t_quantile_975
from mark1.stimuli.scenes import load_scene

sys.path.insert(0, str(Path(__file__).parent))
from test_lab import TINY  # noqa: E402


def test_t_quantiles_match_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 3, 4, 9, 29, 30, 31, 40, 100, 1000):
        assert t_quantile_975(df) == pytest.approx(stats.t.ppf(0.975, df), abs=2e-5), df


@given(st.lists(st.floats(-1, 1), min_size=2, max_size=30))
def test_the_interval_is_scipys_t_interval(values):
    stats = pytest.importorskip("scipy.stats")
    mean, low, high = mean_interval(values)
    v = np.asarray(values)
    assert mean == pytest.approx(v.mean(), abs=1e-12)
    sem = v.std(ddof=1) / math.sqrt(len(v))
    if sem == 0:                                   # scipy gives NaN for a zero-width interval
        assert low == high == mean
        return
    ref = stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=sem)
    assert (low, high) == pytest.approx(ref, abs=3e-5 * max(1.0, sem))


def test_paired_cost_sign_and_verdicts():
    # cost = accuracy without it minus with it: positive hurts
    c = ab.paired_cost([0.9, 0.8, 0.85, 0.9], [0.7, 0.6, 0.66, 0.72])
    assert c["mean"] == pytest.approx(0.1925) and c["verdict"] == "cost" and c["low"] > 0
    assert ab.paired_cost([0.7, 0.6, 0.66], [0.9, 0.8, 0.85])["verdict"] == "gain"
    assert ab.paired_cost([0.9, 0.8, 0.85], [0.8, 0.9, 0.85])["verdict"] == "null"
    same = ab.paired_cost([0.9, 0.8], [0.9, 0.8])
    assert same["verdict"] == "zero" and (same["mean"], same["low"], same["high"]) == (0.0, 0.0, 0.0)
    one = ab.paired_cost([0.9], [0.8])
    assert one["verdict"] == "one" and math.isnan(one["low"])
    with pytest.raises(ValueError, match="same seeds"):
        ab.paired_cost([0.9, 0.8], [0.9])


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
    assert (on["cost_points"], on["cost_low"], on["cost_high"]) == (0.0, 0.0, 0.0)
    # the continuous machine without the ratchet is the full machine itself: exactly 0 too
    off = result.row("off:ratchet")
    assert off["same_as"] == "full" and off["verdict"] == "zero" and off["machine_time_h_change"] is None
    text = result.table()
    assert "exactly 0" in text and "points lost" in text and "t-interval" in text
    for r in result.rows:
        if r["reference"] is not None:
            ref = result.row(r["reference"])
            sign = 1 if r["kind"] == "on_alone" else -1
            expected = [sign * 100 * (a - b) for a, b in zip(ref["test_accuracy"], r["test_accuracy"])]
            assert r["costs"] == pytest.approx(expected, abs=1e-9)
