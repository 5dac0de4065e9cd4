"""Figures over seeds, and how far to trust them: the one statistics module every study, figure
and page uses.

Every interval a study prints comes from here, so every page says the same thing the same way:

- **The mean over seeds** (:func:`mean_interval`) and **a paired difference**
  (:func:`difference_interval`) carry a 95 % interval: the hull of Student's t-interval and
  Hall's (1992) skewness-corrected one, clipped to the quantity's range (:data:`METHOD`).
  Accuracies near 100 % are skewed (most seeds near the top, a few far below); the plain
  t-interval then covers the true mean in 80–89 % of studies, not 95 %. Hall's monotone
  cubic transformation of the t statistic takes the sample's skewness into account; the
  hull keeps Student's exactness where the spread is normal (Hall's alone is too narrow in
  its far tails there, which a family's corrected levels reach). Clipping never removes a
  value the true mean can take, so it keeps the coverage, and the interval stays inside
  what can happen (an accuracy in [0, 1], a difference of two in [−1, 1], a count in
  [0, n], a time ≥ 0).
- **Below** :data:`MIN_SEEDS` **seeds there is no interval** and no verdict: the method's
  coverage was measured by simulation (tests/test_stats_coverage.py: accuracies near
  50 %, 90 %, 98 %, 99.5 % and at 100 %, skewed spreads, binomial test-set noise, paired
  differences, counts) and it holds within ±2 points of 95 % from 10 seeds on where the
  per-seed figures' skewness is not beyond about −2, and from 20 seeds on where they pile
  against their bound with a long tail (skewness −2.4 to −3.2: 92–93 % at 10 seeds). :class:`Interval` then says
  "too few seeds (n = 3) for an interval".
- **A share** (of machines whose result lands in a band, say) has an exact Clopper–Pearson
  interval (:func:`proportion_interval`), valid at any count.
- **A family of comparisons** is controlled as a whole (:func:`family`): Holm's step-down
  for the family-wise error rate, or Benjamini–Hochberg for the false-discovery rate. Each
  comparison gets the interval at the level its procedure tested it at, so a verdict read
  from the adjusted interval is the procedure's own decision.
- **Seeds a question needs** (:func:`seeds_needed`, :func:`pilot_seeds`): from the observed
  spread, and the two-stage rule (Stein 1945) by which a study runs the seeds a stated
  precision needs without spoiling the intervals' coverage.

References: P. Hall, "On the removal of skewness by transformation", J. R. Stat. Soc. B 54
(1992) 221–228; S. Holm, Scand. J. Stat. 6 (1979) 65–70; Y. Benjamini and Y. Hochberg,
J. R. Stat. Soc. B 57 (1995) 289–300; Y. Benjamini and D. Yekutieli, JASA 100 (2005)
71–81 (intervals after selection); C. Stein, Ann. Math. Stat. 16 (1945) 243–258.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Literal, cast
from collections.abc import Sequence

import numpy as np

from mark1._utils.tdist import beta_regularized, t_quantile, t_quantile_975, t_two_sided_p
from mark1.exceptions import InputError

__all__ = ["LEVEL", "MIN_SEEDS", "METHOD", "METHOD_SHORT", "CORRECTIONS", "Interval", "Compared",
           "mean_interval", "difference_interval", "p_value", "proportion_interval", "proportion_p_value", "holm",
           "benjamini_hochberg", "adjust", "family", "correction_words", "family_notes", "seeds_needed",
           "seeds_line", "pilot_seeds", "summarize", "t_quantile", "t_quantile_975", "t_two_sided_p", "SEED_CAP"]

#: The confidence level of every interval a study prints.
LEVEL = 0.95
#: The fewest seeds at which :data:`METHOD` holds its coverage (measured; see the module's note).
MIN_SEEDS = 10
#: The interval's method, as pages, tables and CSV headers name it.
METHOD = "the hull of Student's t and Hall's skewness-corrected t, clipped to the range"
#: Its short name, for column headers.
METHOD_SHORT = "Student's t ∪ Hall's skewness-corrected t"
#: The family-wise and false-discovery corrections a study may apply, and no correction.
CORRECTIONS = ("holm", "bh", "none")
#: The most seeds :func:`seeds_needed` reckons with.
SEED_CAP = 10_000

Correction = Literal["holm", "bh", "none"]
_CORRECTION_NAMES = {"holm": "Holm (family-wise error)", "bh": "Benjamini-Hochberg (false-discovery rate)",
                     "none": "no correction"}


@dataclass(frozen=True)
class Interval:
    """A figure over seeds with its interval, or the plain words that there is none.

    Attributes
    ----------
    mean : float
        The mean over the seeds (NaN when there are none).
    low, high : float or None
        The interval's ends, inside ``bounds``; None below the method's minimum seeds.
    n : int
        The seeds it rests on.
    bounds : (float, float)
        The least and the greatest value the quantity can take.
    level : float
        The confidence level (0.95 unless a family's correction asked for more).
    method : str
        How the interval was made.

    Examples
    --------
    >>> iv = mean_interval([0.9, 0.92, 0.95, 0.91, 0.93, 0.9, 0.94, 0.96, 0.92, 0.9], bounds=(0, 1))
    >>> print(iv.format(scale=100))
    92.3 [90.8, 94.0]
    >>> print(mean_interval([0.9, 0.8], bounds=(0, 1)).format(scale=100))
    85.0 (too few seeds (n = 2) for an interval)
    >>> print(Interval(-0.0001, -0.02, 0.025, 40, (-1, 1)).format(scale=100, signed=True))
    +0.0 [-2.0, +2.5]
    """

    mean: float
    low: float | None
    high: float | None
    n: int
    bounds: tuple[float, float]
    level: float = LEVEL
    method: str = METHOD

    @property
    def too_few(self) -> bool:
        """True where there is no interval (too few seeds, or none)."""
        return self.low is None or self.high is None

    @property
    def half_width(self) -> float | None:
        """The larger distance from the mean to an end (None without an interval)."""
        if self.low is None or self.high is None:
            return None
        return max(self.mean - self.low, self.high - self.mean)

    def excludes(self, value: float = 0.0) -> bool | None:
        """Whether ``value`` lies outside the interval (None without an interval)."""
        if self.low is None or self.high is None:
            return None
        return not self.low <= value <= self.high

    def scaled(self, factor: float) -> Interval:
        """The same interval in another unit (``factor`` 100 turns fractions into percent)."""
        def s(x):
            return None if x is None else x * factor
        lo, hi = sorted((self.bounds[0] * factor, self.bounds[1] * factor))
        return replace(self, mean=self.mean * factor, low=s(self.low), high=s(self.high), bounds=(lo, hi))

    def words(self) -> str:
        """Why there is no interval, in the words every page uses ("" where there is one)."""
        if not self.too_few:
            return ""
        if self.n == 0:
            return "no seeds"
        return f"too few seeds (n = {self.n}) for an interval"

    def format(self, scale: float = 1.0, digits: int = 1, signed: bool = False) -> str:
        """``mean [low, high]``, or the mean and the words of :meth:`words`.

        Parameters
        ----------
        scale : float
            Multiplies every figure (100 for percent).
        digits : int
            Decimals shown.
        signed : bool
            Show a + on positive figures (for differences).
        """
        def f(x: float) -> str:
            x = round(x * scale, digits) + 0.0              # no "-0.0" for a figure that rounds to 0
            return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
        if self.n == 0:
            return "no seeds"
        head = f(self.mean)
        if self.low is None or self.high is None:
            return f"{head} ({self.words()})"
        return f"{head} [{f(self.low)}, {f(self.high)}]"

    def __str__(self) -> str:
        return self.format(digits=3)

    def as_dict(self) -> dict[str, Any]:
        """``mean``, ``low``, ``high``, ``n``, ``level``, ``method`` (JSON-ready; None for no interval)."""
        return {"mean": None if math.isnan(self.mean) else self.mean, "low": self.low, "high": self.high,
                "n": self.n, "level": self.level, "method": self.method}


def _values(values: Sequence[float | None], name: str) -> np.ndarray:
    try:
        v = np.asarray([x for x in values if x is not None], dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected numbers (or None), got {type(values).__name__}") from None
    if v.ndim != 1:
        raise InputError(f"{name}: expected a flat sequence of numbers, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise InputError(f"{name}: expected finite numbers, got {float(v[~np.isfinite(v)][0])!r}")
    return v


def _check_bounds(bounds: tuple[float, float]) -> tuple[float, float]:
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise InputError(f"bounds: expected (least, greatest), got {bounds!r}") from None
    if not lo < hi or math.isnan(lo) or math.isnan(hi):
        raise InputError(f"bounds: expected least < greatest, got {bounds!r}")
    return lo, hi


def _check_level(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise InputError(f"level: expected a confidence level strictly between 0 and 1, got {level!r}")
    return float(level)


def _hall(v: np.ndarray) -> tuple[float, float, float, float]:
    """Mean, standard error, Hall's a and b for the sample ``v`` (n >= 2, spread > 0)."""
    n = len(v)
    m = float(v.mean())
    sd = float(v.std(ddof=1))
    skew = float(np.mean(((v - m) / sd) ** 3))
    return m, sd / math.sqrt(n), skew / (3.0 * math.sqrt(n)), skew / (6.0 * math.sqrt(n))


def _no_spread(v: np.ndarray) -> bool:
    """All values equal, or a spread too small for floating point to hold (subnormal)."""
    return float(v.max()) == float(v.min()) or not float(v.std(ddof=1)) > 1e-300


def _g(x: float, a: float, b: float) -> float:
    """Hall's transformation of the t statistic, g(x) = x + a x² + a² x³ / 3 + b: monotone, g' = (1 + a x)²."""
    return x + a * x * x + a * a * x ** 3 / 3.0 + b


def _g_inverse(y: float, a: float, b: float) -> float:
    if abs(a) < 1e-12:
        return y - b
    return (np.cbrt(1.0 + 3.0 * a * (y - b)) - 1.0) / a


def mean_interval(values: Sequence[float | None], bounds: tuple[float, float], *, level: float = LEVEL,
                  min_seeds: int = MIN_SEEDS) -> Interval:
    """The mean of one figure over seeds, with its interval inside the figure's range.

    Parameters
    ----------
    values : sequence of float or None
        One figure per seed; None entries (no result) are left out.
    bounds : (float, float)
        The least and the greatest value the figure can take: ``(0, 1)`` for an accuracy,
        ``(0, n)`` for a count out of n, ``(0, math.inf)`` for a time.
    level : float
        Confidence level.
    min_seeds : int
        The fewest seeds given an interval; below, the interval is left out. Lowering it
        below :data:`MIN_SEEDS` gives intervals whose coverage was not shown.

    Returns
    -------
    Interval
        Seeds that all agree give a zero-width interval at their value.

    Raises
    ------
    InputError
        For a value outside ``bounds``, a non-finite value, or bad ``bounds``/``level``.

    Examples
    --------
    >>> iv = mean_interval([1.0, 1.0, 0.97, 1.0, 0.99, 1.0, 1.0, 0.92, 1.0, 1.0], bounds=(0, 1))
    >>> print(iv.format(scale=100, digits=2))           # left-skewed: the interval reaches further down
    98.80 [91.53, 100.00]
    >>> mean_interval([0.5] * 12, bounds=(0, 1)).low
    0.5
    """
    lo, hi = _check_bounds(bounds)
    level = _check_level(level)
    v = _values(values, "values")
    slack = 1e-9 * max(1.0, abs(lo) if math.isfinite(lo) else 1.0, abs(hi) if math.isfinite(hi) else 1.0)
    if len(v) and (v.min() < lo - slack or v.max() > hi + slack):
        bad = v.min() if v.min() < lo - slack else v.max()
        raise InputError(f"values: expected figures from {lo:g} to {hi:g}, got {float(bad)!r}")
    n = len(v)
    if n == 0:
        return Interval(math.nan, None, None, 0, (lo, hi), level)
    m = float(v.mean())
    if n < max(2, min_seeds):
        return Interval(m, None, None, n, (lo, hi), level)
    if _no_spread(v):
        return Interval(m, m, m, n, (lo, hi), level)
    m, se, a, b = _hall(v)
    q = t_quantile(0.5 + level / 2.0, n - 1)
    low = min(m - se * _g_inverse(q, a, b), m - se * q)        # the hull of Hall's interval and Student's
    high = max(m - se * _g_inverse(-q, a, b), m + se * q)
    return Interval(m, min(max(low, lo), m), max(min(high, hi), m), n, (lo, hi), level)


def _paired(a: Sequence[float | None], b: Sequence[float | None]) -> np.ndarray:
    if len(a) != len(b):
        raise InputError(f"a, b: expected one figure per seed in each, the same seeds; got {len(a)} and {len(b)}")
    return np.asarray([x - y for x, y in zip(a, b) if x is not None and y is not None], dtype=float)


def difference_interval(a: Sequence[float | None], b: Sequence[float | None], bounds: tuple[float, float], *,
                        level: float = LEVEL, min_seeds: int = MIN_SEEDS) -> Interval:
    """The mean of the per-seed differences ``a − b`` (the same seed in both), with its interval.

    Parameters
    ----------
    a, b : sequence of float or None
        One figure per seed, in the same order; a seed missing in either is left out.
    bounds : (float, float)
        The range of one figure (of ``a`` and of ``b``); the difference's range follows:
        ``(lo − hi, hi − lo)``, [−1, 1] for two accuracies.
    level, min_seeds
        As :func:`mean_interval`.

    Returns
    -------
    Interval
        Of the difference.

    Examples
    --------
    >>> a = [0.90, 0.88, 0.93, 0.91, 0.89, 0.92, 0.90, 0.94, 0.91, 0.90]
    >>> b = [0.85, 0.86, 0.88, 0.90, 0.84, 0.86, 0.85, 0.90, 0.88, 0.85]
    >>> print(difference_interval(a, b, bounds=(0, 1)).format(scale=100, signed=True))
    +4.1 [+2.6, +5.2]
    """
    lo, hi = _check_bounds(bounds)
    return mean_interval(list(_paired(a, b)), (lo - hi, hi - lo), level=level, min_seeds=min_seeds)


def p_value(values: Sequence[float | None], null: float = 0.0, *, min_seeds: int = MIN_SEEDS) -> float | None:
    """The two-sided p-value of "the mean is ``null``", by the test the interval inverts.

    The interval at level 1 − p has ``null`` at its end: ``null`` lies outside the
    level-(1 − α) interval exactly when p < α (the clipping does not matter for a
    ``null`` inside the range). So a verdict read from an interval and one read from
    this p-value never disagree.

    Parameters
    ----------
    values : sequence of float or None
        One figure (or paired difference) per seed.
    null : float
        The value tested.
    min_seeds : int
        Below this many seeds there is no test (None), as there is no interval.

    Returns
    -------
    float or None
        In [0, 1]; 1.0 when every value equals ``null``, 0.0 when they all equal another.

    Examples
    --------
    >>> d = [0.05, 0.04, 0.06, 0.05, 0.03, 0.05, 0.07, 0.04, 0.05, 0.06]
    >>> p_value(d) < 1e-6, p_value(d[:3]) is None
    (True, True)
    """
    v = _values(values, "values")
    n = len(v)
    if n < max(2, min_seeds):
        return None
    if _no_spread(v):
        return 1.0 if float(v.mean()) == null else 0.0
    m, se, a, b = _hall(v)
    t = (m - null) / se
    return max(t_two_sided_p(_g(t, a, b), n - 1), t_two_sided_p(t, n - 1))


def _beta_quantile(q: float, a: float, b: float) -> float:
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if beta_regularized(a, b, mid) < q:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def proportion_interval(k: int, n: int, *, level: float = LEVEL) -> Interval:
    """A share ``k / n`` with its exact (Clopper–Pearson) interval in [0, 1].

    Exact means its coverage is at least ``level`` for every true share and every ``n``:
    the right interval for "how many of the built machines would have reported it", where
    the share may be near 0 or 1.

    Parameters
    ----------
    k : int
        Successes, 0 <= k <= n.
    n : int
        Trials, at least 1.
    level : float
        Confidence level.

    Returns
    -------
    Interval
        ``method`` "Clopper-Pearson (exact)".

    Raises
    ------
    InputError
        For counts out of order.

    Examples
    --------
    >>> print(proportion_interval(7, 24).format(scale=100))
    29.2 [12.6, 51.1]
    >>> proportion_interval(0, 10).low
    0.0
    """
    if isinstance(k, bool) or isinstance(n, bool) or int(k) != k or int(n) != n:
        raise InputError(f"k, n: expected whole counts, got {k!r} and {n!r}")
    k, n = int(k), int(n)
    if n < 1 or not 0 <= k <= n:
        raise InputError(f"k, n: expected 0 <= k <= n and n >= 1, got k = {k}, n = {n}")
    level = _check_level(level)
    alpha = 1.0 - level
    low = 0.0 if k == 0 else _beta_quantile(alpha / 2.0, k, n - k + 1)
    high = 1.0 if k == n else _beta_quantile(1.0 - alpha / 2.0, k + 1, n - k)
    return Interval(k / n, low, high, n, (0.0, 1.0), level, "Clopper-Pearson (exact)")


def proportion_p_value(k: int, n: int, null: float) -> float:
    """The exact two-sided p-value of "the share is ``null``" for ``k`` of ``n``: the test
    :func:`proportion_interval` inverts (twice the smaller tail, at most 1).

    ``null`` lies outside the level-(1 − α) Clopper–Pearson interval exactly when this
    p-value is below α, so a verdict read from either never disagrees.

    Parameters
    ----------
    k : int
        Successes, 0 <= k <= n.
    n : int
        Trials, at least 1.
    null : float
        The share tested, in [0, 1].

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    InputError
        For counts out of order or a share outside [0, 1].

    Examples
    --------
    >>> round(proportion_p_value(7, 24, 0.5), 4)                    # scipy.stats.binomtest: 0.0639
    0.0639
    >>> proportion_p_value(10, 10, 0.9) > 0.05, proportion_p_value(100, 100, 0.9) < 0.05
    (True, True)
    """
    proportion_interval(k, n)                       # the counts, checked
    if not 0.0 <= null <= 1.0:
        raise InputError(f"null: expected a share from 0 to 1, got {null!r}")
    k, n = int(k), int(n)
    if null in (0.0, 1.0):
        return 1.0 if k == round(null * n) else 0.0
    at_most = 1.0 if k == n else 1.0 - beta_regularized(k + 1, n - k, null)      # P(X <= k)
    at_least = 1.0 if k == 0 else beta_regularized(k, n - k + 1, null)          # P(X >= k)
    return min(1.0, 2.0 * min(at_most, at_least))


def _check_ps(pvalues: Sequence[float | None]) -> list[float | None]:
    ps = list(pvalues)
    for p in ps:
        if p is not None and not 0.0 <= p <= 1.0:
            raise InputError(f"pvalues: expected p-values from 0 to 1 (or None), got {p!r}")
    return ps


def _order(ps: list[float | None]) -> list[int]:
    """The tested comparisons by p-value, ties in the order given (one rule for ties everywhere)."""
    return sorted((i for i, p in enumerate(ps) if p is not None), key=lambda i: (cast(float, ps[i]), i))


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm–Bonferroni adjusted p-values (Holm 1979), controlling the family-wise error rate.

    With the m p-values sorted, p₍₁₎ <= ... <= p₍ₘ₎, the adjusted value of the i-th is
    max over j <= i of min(1, (m − j + 1) · p₍ⱼ₎). The same values as R's
    ``p.adjust(p, "holm")`` and statsmodels' ``multipletests(p, method="holm")``.

    Parameters
    ----------
    pvalues : sequence of float or None
        The family's raw p-values; None entries (no test) stay None and do not count in m.

    Returns
    -------
    list of float or None
        Adjusted p-values in the order given.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.005])
    [0.03, 0.06, 0.06, 0.02]
    >>> holm([0.5, None])
    [0.5, None]
    """
    ps = _check_ps(pvalues)
    order = _order(ps)
    out: list[float | None] = [None] * len(ps)
    running, m = 0.0, len(order)
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * cast(float, ps[i])))
        out[i] = running
    return out


def benjamini_hochberg(pvalues: Sequence[float | None]) -> list[float | None]:
    """Benjamini–Hochberg adjusted p-values (1995), controlling the false-discovery rate.

    The adjusted value of p₍ᵢ₎ is min over j >= i of min(1, m · p₍ⱼ₎ / j): the same values
    as R's ``p.adjust(p, "BH")``.

    Parameters
    ----------
    pvalues : sequence of float or None
        As :func:`holm`.

    Returns
    -------
    list of float or None

    Examples
    --------
    >>> [round(p, 4) for p in benjamini_hochberg([0.01, 0.04, 0.03, 0.005])]
    [0.02, 0.04, 0.04, 0.02]
    """
    ps = _check_ps(pvalues)
    order = _order(ps)
    out: list[float | None] = [None] * len(ps)
    running, m = 1.0, len(order)
    for j in range(m - 1, -1, -1):
        i = order[j]
        running = min(running, min(1.0, m * cast(float, ps[i]) / (j + 1)))
        out[i] = running
    return out


def adjust(pvalues: Sequence[float | None], correction: Correction = "holm") -> list[float | None]:
    """The family's p-values adjusted by ``correction`` ("holm", "bh" or "none").

    Examples
    --------
    >>> adjust([0.01, 0.04], "none")
    [0.01, 0.04]
    """
    if correction == "holm":
        return holm(pvalues)
    if correction == "bh":
        return benjamini_hochberg(pvalues)
    if correction == "none":
        return list(_check_ps(pvalues))
    raise InputError(f"correction: expected one of {', '.join(CORRECTIONS)}, got {correction!r}")


@dataclass(frozen=True)
class Compared:
    """One comparison of a family: its own interval, its test, and the family's verdict.

    Attributes
    ----------
    raw : Interval
        The comparison's 95 % interval, as if it stood alone.
    interval : Interval
        The interval at the level the family's correction tested it at: a verdict reads this.
    p : float or None
        The raw two-sided p-value against ``null`` (None: too few seeds, no test).
    p_adjusted : float or None
        After the family's correction.
    decided : bool or None
        True where the adjusted interval excludes ``null`` (the correction's rejection);
        None where there is no test.
    correction : str
        "holm", "bh" or "none".

    Examples
    --------
    >>> d = [0.05, 0.04, 0.06, 0.05, 0.03, 0.05, 0.07, 0.04, 0.05, 0.06]
    >>> (c,) = family([d], bounds=(-1, 1))
    >>> c.decided, c.sign, c.interval == c.raw          # a family of one: no adjustment
    (True, 1, True)
    """

    raw: Interval
    interval: Interval
    p: float | None
    p_adjusted: float | None
    decided: bool | None
    correction: str

    @property
    def sign(self) -> int:
        """+1 or −1 for a decided comparison (the side of ``null`` it lies on), 0 otherwise."""
        if not self.decided:
            return 0
        return 1 if self.raw.mean > 0 else -1


def family(samples: Sequence[Sequence[float | None]], bounds: tuple[float, float], *,
           correction: Correction = "holm", null: float = 0.0, level: float = LEVEL,
           min_seeds: int = MIN_SEEDS) -> list[Compared]:
    """Intervals and verdicts for a family of comparisons, controlled as a whole.

    Each sample is one comparison's per-seed figures (a paired difference, usually) tested
    against ``null``. With α = 1 − ``level`` and m the comparisons that have a test:

    - ``"holm"``: Holm's step-down. The j-th smallest p-value (j = 0, 1, ...) is tested at
      α / (m − j) while every smaller one was rejected; from the first that is not, the rest
      are all tested at that step's level. Each comparison's adjusted interval is at level
      1 − (its step's α): it excludes ``null`` exactly when Holm rejects it. The chance of any
      false verdict in the family is at most α.
    - ``"bh"``: Benjamini–Hochberg at rate α; with R comparisons selected, every adjusted
      interval is at level 1 − max(R, 1)·α / m (Benjamini and Yekutieli's false-coverage
      rate intervals), excluding ``null`` exactly for the selected ones.
    - ``"none"``: each at ``level``.

    Parameters
    ----------
    samples : sequence of sequences of float or None
        One per comparison, one figure per seed.
    bounds : (float, float)
        The range of each figure (of the difference, for differences).
    correction : {"holm", "bh", "none"}
    null : float
        The value each is tested against (0 for a difference).
    level : float
        The family's level.
    min_seeds : int
        As :func:`mean_interval`: a comparison with fewer seeds has no interval, no test,
        no verdict and does not count in m.

    Returns
    -------
    list of Compared
        In the order given.

    Examples
    --------
    >>> d1 = [0.05, 0.04, 0.06, 0.05, 0.03, 0.05, 0.07, 0.04, 0.05, 0.06]
    >>> d2 = [0.01, -0.02, 0.03, 0.0, 0.01, -0.01, 0.02, 0.0, 0.01, -0.01]
    >>> out = family([d1, d2], bounds=(-1, 1))
    >>> [c.decided for c in out], [round(c.interval.level, 4) for c in out]
    ([True, False], [0.975, 0.95])
    """
    if correction not in CORRECTIONS:
        raise InputError(f"correction: expected one of {', '.join(CORRECTIONS)}, got {correction!r}")
    level = _check_level(level)
    alpha = 1.0 - level
    raws = [mean_interval(s, bounds, level=level, min_seeds=min_seeds) for s in samples]
    ps = [p_value(s, null, min_seeds=min_seeds) for s in samples]
    adjusted = adjust(ps, correction)
    order = _order(ps)
    m = len(order)
    levels = [level] * len(ps)
    if correction == "holm":
        stop = None
        for j, i in enumerate(order):
            if stop is None and cast(float, ps[i]) > alpha / (m - j):
                stop = j
            levels[i] = 1.0 - alpha / (m - (j if stop is None else stop))
    elif correction == "bh" and m:
        selected = sum(1 for p in adjusted if p is not None and p <= alpha)
        for i in order:
            levels[i] = 1.0 - max(selected, 1) * alpha / m
    out = []
    for s, raw, p, pa, lv in zip(samples, raws, ps, adjusted, levels):
        iv = raw if lv == level else mean_interval(s, bounds, level=lv, min_seeds=min_seeds)
        decided = None if p is None else bool(iv.excludes(null))
        out.append(Compared(raw, iv, p, pa, decided, correction))
    return out


def correction_words(correction: str, m: int) -> str:
    """How a family was controlled, for a page's caption or a CSV header.

    Examples
    --------
    >>> correction_words("holm", 30)
    'Holm (family-wise error) over 30 comparisons'
    """
    if correction not in _CORRECTION_NAMES:
        raise InputError(f"correction: expected one of {', '.join(CORRECTIONS)}, got {correction!r}")
    return f"{_CORRECTION_NAMES[correction]} over {m} comparison{'s' if m != 1 else ''}"


def family_notes(compared: Sequence[Compared], samples: Sequence[Sequence[float | None]], *,
                 what: str = "comparisons", scale: float = 100.0, unit: str = "point") -> list[str]:
    """The lines every study prints under a family's table: how its intervals were made and
    controlled, which have too few seeds, and the seeds a ±1 and ±0.5 ``unit`` interval would need.

    Parameters
    ----------
    compared : sequence of Compared
        As :func:`family` returns them.
    samples : sequence of sequences of float or None
        The same samples :func:`family` was given (their spread gives the seeds needed).
    what : str
        What the family's members are, for the words ("arms", "cells", "learners").
    scale, unit : float, str
        The unit the seeds-needed line speaks in (points for ``scale`` 100).

    Returns
    -------
    list of str

    Examples
    --------
    >>> d = [[0.05, 0.04, 0.06, 0.05, 0.03, 0.05, 0.07, 0.04, 0.05, 0.06], [0.01, 0.02]]
    >>> for line in family_notes(family(d, (-1, 1)), d, what="arms"):
    ...     print(line)                                # doctest: +NORMALIZE_WHITESPACE
    intervals: 95 % the hull of Student's t and Hall's skewness-corrected t, clipped to the range;
    family: Holm (family-wise error) over the 2 arms, 1 of them untested; verdicts read the adjusted intervals
    too few seeds for an interval (fewer than 10): 1 of 2 arms (n = 2); no interval and no verdict there
    seeds for ±1 point: 10; for ±0.5 point: 23 (from the observed spread, the largest over 2 comparisons)
    """
    tested = [c for c in compared if c.p is not None]
    correction = compared[0].correction if compared else "none"
    level = compared[0].raw.level if compared else LEVEL
    untested = f", {len(compared) - len(tested)} of them untested" if len(tested) < len(compared) else ""
    lines = [f"intervals: {100 * level:g} % {METHOD}; family: {_CORRECTION_NAMES[correction]} over the "
             f"{len(compared)} {what}{untested}; verdicts read the adjusted intervals"]
    few = [c for c in compared if c.raw.too_few]
    if few:
        ns = sorted({c.raw.n for c in few})
        lines.append(f"too few seeds for an interval (fewer than {MIN_SEEDS}): {len(few)} of {len(compared)} {what} "
                     f"(n = {', '.join(map(str, ns))}); no interval and no verdict there")
    need = seeds_line(samples, scale=scale, unit=unit)
    if need:
        lines.append(need)
    return lines


def seeds_needed(values: Sequence[float | None], half_width: float, *, level: float = LEVEL,
                 cap: int = SEED_CAP) -> int | None:
    """The seeds at which an interval of these figures would be about ±``half_width``, at their spread.

    The smallest n >= :data:`MIN_SEEDS` with t(level; n − 1) · sd / √n <= ``half_width``,
    sd the sample standard deviation: a planning figure (the true spread may differ), not
    a promise, in the unit of ``values``.

    Parameters
    ----------
    values : sequence of float or None
        One figure (or paired difference) per seed, at least two.
    half_width : float
        The precision wanted, > 0.
    level : float
        Confidence level.
    cap : int
        The most seeds reckoned with.

    Returns
    -------
    int or None
        None for fewer than two values, or where more than ``cap`` would be needed.

    Examples
    --------
    >>> seeds_needed([0.90, 0.80, 0.85, 0.95, 0.88], 0.01)    # sd 0.055: ±1 point needs 123 seeds
    123
    >>> seeds_needed([0.9, 0.9, 0.9], 0.01)                    # no spread: the method's minimum
    10
    """
    if not half_width > 0:
        raise InputError(f"half_width: expected a positive precision, got {half_width!r}")
    v = _values(values, "values")
    if len(v) < 2:
        return None
    return _seeds_for(float(v.std(ddof=1)), half_width, 0.5 + _check_level(level) / 2.0, cap)


def seeds_line(samples: Sequence[Sequence[float | None]], *, scale: float = 100.0, unit: str = "point",
               widths: Sequence[float] = (1.0, 0.5)) -> str | None:
    """One line: the seeds the family would need for intervals of ±1 and ±0.5 ``unit``.

    The largest over the family's comparisons, each reckoned by :func:`seeds_needed` from
    its own spread (``widths`` are in the scaled unit: points for ``scale`` 100).

    Returns
    -------
    str or None
        None where no comparison has two seeds.

    Examples
    --------
    >>> print(seeds_line([[0.90, 0.80, 0.85, 0.95, 0.88], [0.5, 0.52, 0.49]]))
    seeds for ±1 point: 123; for ±0.5 point: 484 (from the observed spread, the largest over 2 comparisons)
    """
    usable = [s for s in samples if len([x for x in s if x is not None]) >= 2]
    if not usable:
        return None
    parts = []
    for w in widths:
        needs = [seeds_needed(s, w / scale) for s in usable]
        worst = f"more than {SEED_CAP:,}" if any(n is None for n in needs) else f"{max(cast(list[int], needs)):,}"
        plural = "" if w == 1 else "s" if w > 1 else ""
        parts.append(f"±{w:g} {unit}{plural}: {worst}")
    tail = (f"the largest over {len(usable)} comparisons" if len(usable) > 1 else "one comparison")
    return f"seeds for {parts[0]}; for " + "; for ".join(parts[1:]) + f" (from the observed spread, {tail})"


def _seeds_for(sd: float, half_width: float, q: float, cap: int) -> int | None:
    """The smallest n >= MIN_SEEDS with t(q; n − 1) · sd / √n <= half_width (None past ``cap``)."""
    if sd == 0.0:
        return MIN_SEEDS
    n = max(MIN_SEEDS, int(math.ceil((1.959963984540054 * sd / half_width) ** 2)))
    while n <= cap and t_quantile(q, n - 1) * sd / math.sqrt(n) > half_width:
        n += 1
    return n if n <= cap else None


def _chi2_quantile(p: float, k: int) -> float:
    """Wilson–Hilferty's χ² quantile (relative error under 1 % for k >= 5 at p >= 0.05)."""
    z = -t_quantile(1.0 - p, 10 ** 6)              # the normal quantile, through t with huge df
    return k * (1.0 - 2.0 / (9.0 * k) + z * math.sqrt(2.0 / (9.0 * k))) ** 3


def pilot_seeds(pilot: Sequence[Sequence[float | None]], half_width: float, *, max_seeds: int,
                level: float = LEVEL, assurance: float = 0.9) -> int:
    """The seeds a study runs after its pilot so every interval is within ±``half_width``.

    Stein's two-stage rule (1945), with an external pilot: the pilot's seeds (at least
    :data:`MIN_SEEDS`) estimate each comparison's spread, and the study then runs N *new*
    seeds, the pilot's left out of the intervals. N is fixed by the pilot alone, so the final
    intervals are ordinary fixed-N intervals of independent seeds and keep the coverage the
    grid of tests/test_stats_coverage.py shows. (Rules that stop when an interval first looks
    narrow enough stop on lucky small spreads; with skewed accuracies they covered 91.5–95 %
    in the same simulation, and so did Stein's rule with the pilot's seeds counted in.)

    N is reckoned from the pilot's spread at its upper ``assurance`` confidence bound
    (s₀ · √((n₀ − 1) / χ²(1 − assurance; n₀ − 1))), so about ``assurance`` of the intervals
    come out within ±``half_width`` where the spread is not skewed (88 % in the simulation at
    90 % ± 5); skewed accuracies near 100 % widen the intervals beyond the plan (60–66 % within
    at 98 % ± 2), and a study says which intervals missed the precision and by how much.

    Parameters
    ----------
    pilot : sequence of sequences of float or None
        The pilot's figures, one sequence per comparison of the family (the same seeds).
    half_width : float
        The precision wanted (the figures' unit), > 0.
    max_seeds : int
        The most seeds the study may run after the pilot.
    level : float
        Confidence level of the intervals.
    assurance : float
        The share of intervals meant to come out within the precision.

    Returns
    -------
    int
        New seeds to run (the largest need over the family, at most ``max_seeds``).

    Raises
    ------
    InputError
        For a pilot smaller than :data:`MIN_SEEDS`, ``max_seeds`` below it, or a bad precision.

    Examples
    --------
    >>> pilot = [[0.90, 0.80, 0.85, 0.95, 0.88, 0.9, 0.86, 0.91, 0.84, 0.9]]
    >>> pilot_seeds(pilot, 0.02, max_seeds=500)
    40
    >>> pilot_seeds(pilot, 0.001, max_seeds=500)
    500
    """
    if not half_width > 0 or not math.isfinite(half_width):
        raise InputError(f"precision: expected a positive half-width, got {half_width!r}")
    if max_seeds < MIN_SEEDS:
        raise InputError(f"max_seeds: expected at least {MIN_SEEDS}, got {max_seeds}")
    clean = [_values(s, "pilot") for s in pilot]
    n0 = min((len(v) for v in clean), default=0)
    if n0 < MIN_SEEDS:
        raise InputError(f"seeds: a study run to a precision starts with a pilot of at least {MIN_SEEDS} seeds, "
                         f"got {n0}")
    q = 0.5 + _check_level(level) / 2.0
    inflate = math.sqrt((n0 - 1) / _chi2_quantile(1.0 - assurance, n0 - 1))
    need = MIN_SEEDS
    for v in clean:
        n = _seeds_for(float(v.std(ddof=1)) * inflate, half_width, q, max_seeds)
        if n is None:
            return max_seeds
        need = max(need, n)
    return need


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
