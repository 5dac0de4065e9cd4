"""Student's t distribution without SciPy: its two-sided tail, its quantiles, and the 95 %
quantile the studies and the theory's measurements share (both rooms sit above ``_utils``;
neither may import the other's)."""

from __future__ import annotations

import math
from functools import lru_cache

from mark1.exceptions import InputError

__all__ = ["t_quantile_975", "t_quantile", "t_two_sided_p"]

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


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        for aa in (m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
                   -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h


def beta_regularized(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for a, b > 0 and 0 <= x <= 1.

    Examples
    --------
    >>> round(beta_regularized(2.0, 3.0, 0.5), 10)     # 11/16
    0.6875
    """
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):            # the fraction converges fast on this side
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: int) -> float:
    """``P(|T| >= |t|)`` for Student's t with ``df`` degrees of freedom: a two-sided p-value.

    Computed as the regularized incomplete beta function I_{df/(df+t²)}(df/2, 1/2)
    (agrees with ``scipy.stats.t.sf`` to about 1e-12).

    Parameters
    ----------
    t : float
        The t statistic (any sign; ±inf gives 0).
    df : int
        Degrees of freedom, at least 1.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    InputError
        For ``df < 1`` or a NaN ``t``.

    Examples
    --------
    >>> round(t_two_sided_p(2.77644511, 4), 6)      # the 95 % quantile of 5 seeds
    0.05
    >>> t_two_sided_p(0.0, 3), t_two_sided_p(math.inf, 3)
    (1.0, 0.0)
    """
    if df < 1:
        raise InputError(f"df: expected a positive integer, got {df}")
    if math.isnan(t):
        raise InputError("t: expected a number, got nan")
    if math.isinf(t):
        return 0.0
    return min(1.0, max(0.0, beta_regularized(df / 2.0, 0.5, df / (df + t * t))))


@lru_cache(maxsize=4096)
def t_quantile(q: float, df: int) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom.

    Found by bisection on :func:`t_two_sided_p` to within 1e-12 (relative); the studies'
    adjusted intervals need levels other than 95 % (0.975 is :func:`t_quantile_975`).

    Parameters
    ----------
    q : float
        In (0, 1).
    df : int
        At least 1.

    Returns
    -------
    float

    Raises
    ------
    InputError
        For ``q`` outside (0, 1) or ``df < 1``.

    Examples
    --------
    >>> round(t_quantile(0.975, 4), 6)
    2.776445
    >>> round(t_quantile(0.05 / 2, 9), 6)        # the lower 2.5 % quantile, 10 seeds
    -2.262157
    """
    if not 0.0 < q < 1.0:
        raise InputError(f"q: expected a probability strictly between 0 and 1, got {q!r}")
    if df < 1:
        raise InputError(f"df: expected a positive integer, got {df}")
    if q == 0.5:
        return 0.0
    tail = 2.0 * min(q, 1.0 - q)                  # the two-sided p-value of |t|
    lo, hi = 0.0, 1.0
    while t_two_sided_p(hi, df) > tail:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_two_sided_p(mid, df) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
    t = 0.5 * (lo + hi)
    return t if q > 0.5 else -t
