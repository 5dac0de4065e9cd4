"""Being replaced by :mod:`mark1.stats` (intervals inside their range, "too few seeds", families
controlled as a whole); new code uses that module. The old figures over seeds: mean, spread, the 95 % t-interval of a mean (paired or not), the paired
t-test's p-value, Holm's adjustment of a family of them, and the seeds a difference would need.

No interval here is clipped: a t-interval is a statement about a mean, and the mean of
accuracies near 100 % with a spread over seeds has a symmetric interval that may reach past
100 % (or below 0 %); cutting it at the bound would make it look surer than the seeds allow.
"""

from __future__ import annotations

import math
from typing import Any, cast
from collections.abc import Sequence

import numpy as np

from mark1._utils.tdist import t_quantile_975
from mark1.exceptions import InputError

__all__ = ["mean_interval", "t_quantile_975", "summarize", "clip_interval", "t_two_sided_p", "paired_p", "holm",
           "seeds_to_decide", "seed_advice", "SEED_CAP"]

#: The most seeds :func:`seeds_to_decide` and :func:`seed_advice` recommend.
SEED_CAP = 200


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

    A t-interval of accuracies near 100 % reaches past 100 %; an accuracy cannot. The
    studies of compare, ablate and sweep do not clip (see the module's note): their
    intervals are of a mean, which the t-interval describes only unclipped.

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


def _beta_regularized(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for a, b > 0 and 0 <= x <= 1."""
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
    (no SciPy needed; agrees with ``scipy.stats.t.sf`` to about 1e-12).

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
    return min(1.0, max(0.0, _beta_regularized(df / 2.0, 0.5, df / (df + t * t))))


def paired_p(diffs: Sequence[float]) -> float | None:
    """The paired t-test's two-sided p-value of per-seed differences against a mean of 0.

    Parameters
    ----------
    diffs : sequence of float
        One difference per seed (the same seed in both arms), any unit.

    Returns
    -------
    float or None
        None for fewer than two differences (no spread to test against); 1.0 when every
        difference is exactly 0; 0.0 when they are all equal and not 0 (a zero-width
        interval away from 0).

    Examples
    --------
    >>> round(paired_p([0.05, 0.05, 0.04]), 5)         # scipy.stats.ttest_1samp: 0.005063
    0.00506
    >>> paired_p([0.0, 0.0]), paired_p([0.02, 0.02]), paired_p([0.1])
    (1.0, 0.0, None)
    """
    v = np.asarray(list(diffs), dtype=float)
    if len(v) < 2:
        return None
    m, sd = float(v.mean()), float(v.std(ddof=1))
    if sd == 0.0:
        return 1.0 if m == 0.0 else 0.0
    return t_two_sided_p(m / (sd / math.sqrt(len(v))), len(v) - 1)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm–Bonferroni adjusted p-values (Holm 1979), controlling the family-wise error rate.

    With the m p-values sorted, p₍₁₎ <= ... <= p₍ₘ₎, the adjusted value of the i-th is
    max over j <= i of min(1, (m - j + 1) · p₍ⱼ₎): a hypothesis is rejected at level α
    when its adjusted p-value is at most α, and then the chance of any false rejection
    in the family is at most α. The same values as R's ``p.adjust(p, "holm")`` and
    statsmodels' ``multipletests(p, method="holm")``.

    Parameters
    ----------
    pvalues : sequence of float or None
        The family's raw p-values; None entries (no test) stay None and do not count in m.

    Returns
    -------
    list of float or None
        Adjusted p-values in the order given.

    Raises
    ------
    InputError
        For a p-value outside [0, 1] or NaN.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.005])
    [0.03, 0.06, 0.06, 0.02]
    >>> holm([0.5, None])
    [0.5, None]
    """
    ps = list(pvalues)
    for p in ps:
        if p is not None and not 0.0 <= p <= 1.0:
            raise InputError(f"pvalues: expected p-values from 0 to 1 (or None), got {p!r}")
    present = [i for i, p in enumerate(ps) if p is not None]
    order = sorted(present, key=lambda i: cast(float, ps[i]))
    out: list[float | None] = [None] * len(ps)
    running, m = 0.0, len(order)
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * cast(float, ps[i])))
        out[i] = running
    return out


def seeds_to_decide(diffs: Sequence[float], cap: int = SEED_CAP) -> int | None:
    """The fewest seeds at which the 95 % t-interval of these differences would exclude 0, were their
    mean and spread the true ones.

    The smallest n with ``t(0.975; n−1) · sd / √n < |mean|``, with sd the sample standard
    deviation of ``diffs``: a planning figure (the observed effect may be smaller or larger
    than the true one), not a promise.

    Parameters
    ----------
    diffs : sequence of float
        Per-seed paired differences, at least two.
    cap : int
        The most seeds to consider.

    Returns
    -------
    int or None
        None where no n up to ``cap`` would do (a mean of 0, or an effect small for its
        spread) or where it cannot be reckoned (fewer than two differences, no spread).

    Examples
    --------
    >>> seeds_to_decide([0.10, -0.02, 0.06])     # mean 0.047, sd 0.061: t(0.975; 9) 0.061 / √10 = 0.044
    10
    >>> seeds_to_decide([0.1, -0.1]) is None      # a mean of 0: no number of seeds decides
    True
    """
    v = np.asarray(list(diffs), dtype=float)
    if len(v) < 2:
        return None
    m, sd = abs(float(v.mean())), float(v.std(ddof=1))
    if sd == 0.0 or m == 0.0:
        return None
    for n in range(2, cap + 1):
        if t_quantile_975(n - 1) * sd / math.sqrt(n) < m:
            return n
    return None


def seed_advice(groups: Sequence[Sequence[float]], cap: int = SEED_CAP) -> str | None:
    """One line recommending a seed count, when some 95 % intervals of paired differences include 0.

    Parameters
    ----------
    groups : sequence of sequences of float
        The per-seed differences of each comparison of a study (an arm, a swept value, a cell).

    Returns
    -------
    str or None
        None when every interval excludes 0, is exactly 0 on every seed, or there are fewer
        than two seeds; else how many of them include 0 and the seeds that would decide those
        whose observed effect is large enough for at most ``cap`` seeds (reckoned by
        :func:`seeds_to_decide`; a recommendation, the effects may not be real).

    Examples
    --------
    >>> print(seed_advice([[0.10, -0.02, 0.06], [0.05, 0.05, 0.04], [0.0, 0.0, 0.0]]))  # doctest: +NORMALIZE_WHITESPACE
    seeds: 1 of 3 intervals include 0; at the observed effect and spread, --seeds 10 would decide it
    (a recommendation: the effect may be smaller than observed)
    """
    undecided = []
    for g in groups:
        v = [x for x in g if x is not None]
        stat = mean_interval(v)
        if stat is None or len(v) < 2 or all(x == 0.0 for x in v):
            continue
        _, low, high = stat
        if low <= 0.0 <= high:
            undecided.append(v)
    if not undecided:
        return None
    needs = [seeds_to_decide(v, cap) for v in undecided]
    doable = [n for n in needs if n is not None]
    k, total = len(undecided), sum(1 for g in groups if len([x for x in g if x is not None]) >= 2)
    head = f"seeds: {k} of {total} intervals include 0; "
    if not doable:
        return head + (f"none of them would exclude 0 within {cap} seeds at its observed effect and spread "
                       "(they are small for their spread)")
    them = "it" if k == 1 else ("all of them" if len(doable) == k else f"{len(doable)} of them")
    rest = "" if len(doable) == k else f"; the other {k - len(doable)} would need more than {cap}"
    return (head + f"at the observed effect{'s' if k > 1 else ''} and spread, --seeds {max(doable)} would decide "
            f"{them}{rest} (a recommendation: the effect{'s' if k > 1 else ''} may be smaller than observed)")
