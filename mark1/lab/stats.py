"""Figures over seeds: mean, spread, and the 95 % t-interval of a mean (paired or not)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from mark1.exceptions import InputError

__all__ = ["mean_interval", "t_quantile_975", "summarize", "clip_interval"]

# Two-sided 95 % quantiles of Student's t, t(0.975; df) for df = 1 .. 30 (standard tables).
_T975 = (12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185, 2.36462425,
         2.30600414, 2.26215716, 2.22813885, 2.20098516, 2.17881283, 2.16036866, 2.14478669,
         2.13144955, 2.11990530, 2.10981558, 2.10092204, 2.09302405, 2.08596345, 2.07961384,
         2.07387307, 2.06865761, 2.06389856, 2.05953855, 2.05552944, 2.05183052, 2.04840714,
         2.04522964, 2.04227246)


def t_quantile_975(df: int) -> float:
    """t(0.975; df): the multiplier of the standard error in a two-sided 95 % interval.

    Exact table values for ``df <= 30``; beyond, the Cornish-Fisher expansion about
    the normal quantile 1.959964 (error below 1e-5 for df > 30).

    Parameters
    ----------
    df : int
        Degrees of freedom, at least 1 (``n - 1`` for ``n`` seeds).

    Returns
    -------
    float

    Raises
    ------
    InputError
        For ``df < 1``.

    Examples
    --------
    >>> t_quantile_975(4)                      # 5 seeds
    2.77644511
    >>> round(t_quantile_975(1000), 4)         # close to the normal quantile
    1.9623
    """
    if df < 1:
        raise InputError(f"df: expected a positive integer, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963984540054
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3


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
