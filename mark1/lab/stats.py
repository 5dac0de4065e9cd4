"""Figures over seeds: mean, spread, and the 95 % t-interval of a mean (paired or not)."""

from __future__ import annotations

import math
from typing import Any
from collections.abc import Sequence

import numpy as np

from mark1._utils.tdist import t_quantile_975

__all__ = ["mean_interval", "t_quantile_975", "summarize", "clip_interval"]

def mean_interval(values: Sequence[float]) -> tuple[float, float, float] | None:
    """Mean and two-sided 95 % t-interval of the mean of ``values`` (one per seed).

    For paired differences (the same seed in both arms) this is the paired t-interval:
    mean ± t(0.975; n−1) · sd / √n.

    Parameters
    ----------
    values : sequence of float or None
        One figure per seed, in any unit; None entries are left out.

    Returns
    -------
    (mean, low, high) or None
        In the unit of ``values``; None for no values; for one value, low and high are
        NaN (no spread to estimate). Values all exactly equal give a zero-width interval.

    Examples
    --------
    >>> m, low, high = mean_interval([0.9, 0.92, 0.95])
    >>> round(m, 4), round(low, 4), round(high, 4)
    (0.9233, 0.8608, 0.9858)
    >>> mean_interval([0.9])
    (0.9, nan, nan)
    """
    v = np.asarray([x for x in values if x is not None], dtype=float)
    if len(v) == 0:
        return None
    m = float(v.mean())
    if len(v) == 1:
        return m, math.nan, math.nan
    half = t_quantile_975(len(v) - 1) * float(v.std(ddof=1)) / math.sqrt(len(v))
    return m, m - half, m + half


def summarize(values: Sequence[float | None]) -> dict[str, Any]:
    """Mean, sample std, count, min and max of the values that are not None.

    Parameters
    ----------
    values : sequence of float or None
        One figure per seed; None entries (no result) are left out.

    Returns
    -------
    dict
        ``mean``, ``std`` (ddof=1; None for a single value), ``n``, ``min``, ``max``;
        all None (``n`` 0) for no values.

    Examples
    --------
    >>> summarize([0.5, None, 1.0])
    {'mean': 0.75, 'std': 0.3535533905932738, 'n': 2, 'min': 0.5, 'max': 1.0}
    >>> summarize([])["mean"] is None
    True
    """
    v = np.array([x for x in values if x is not None], dtype=float)
    if len(v) == 0:
        return {"mean": None, "std": None, "n": 0, "min": None, "max": None}
    return {"mean": float(v.mean()), "std": float(v.std(ddof=1)) if len(v) > 1 else None,
            "n": int(len(v)), "min": float(v.min()), "max": float(v.max())}


def clip_interval(stat: tuple[float, float, float] | None, low: float, high: float):
    """A (mean, low, high) interval with its ends clipped to what the quantity can be.

    A t-interval of accuracies near 100 % reaches past 100 %; an accuracy cannot.

    Parameters
    ----------
    stat : (mean, low, high) or None
        As :func:`mean_interval` returns it.
    low, high : float
        The least and the greatest value the quantity can take.

    Returns
    -------
    (mean, low, high) or None
        NaN ends stay NaN; None stays None.

    Examples
    --------
    >>> clip_interval((0.98, 0.95, 1.01), 0.0, 1.0)
    (0.98, 0.95, 1.0)
    """
    if stat is None:
        return None
    m, lo, hi = stat
    return m, (lo if math.isnan(lo) else min(max(lo, low), high)), (hi if math.isnan(hi) else min(max(hi, low), high))
