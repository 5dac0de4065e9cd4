"""How ablate, sweep and curves state their intervals and families: the words under a table,
the table cells and the CSV columns, all read from :mod:`mark1.stats`."""

from __future__ import annotations

from typing import Any
from collections.abc import Sequence

from mark1 import stats
from mark1.stats import Compared, Interval

__all__ = ["INTERVAL_FIELDS", "diff_cell", "value_cell", "family_lines", "interval_fields", "caption",
           "too_few_line", "precision_line"]

#: The columns of every CSV row that carries an interval (the method is named in each file).
INTERVAL_FIELDS = ("low", "high", "level", "method", "correction", "p", "p_adjusted")


def diff_cell(iv: Interval, scale: float = 100.0, digits: int = 1) -> str:
    """A paired difference as a table cell, signed; the mean and " (too few seeds)" without an interval.

    Examples
    --------
    >>> from mark1.stats import mean_interval
    >>> diff_cell(mean_interval([0.01, -0.02], (-1, 1)))
    '-0.5 (too few seeds)'
    """
    return value_cell(iv, scale, digits, signed=True)


def value_cell(iv: Interval, scale: float = 100.0, digits: int = 1, signed: bool = False) -> str:
    """A mean with its interval as a table cell; the mean and " (too few seeds)" without an interval;
    ``-`` for no seeds.

    Examples
    --------
    >>> from mark1.stats import mean_interval
    >>> value_cell(mean_interval([0.5] * 10, (0, 1)))
    '50.0 [50.0, 50.0]'
    """
    if iv.n == 0:
        return "-"
    if iv.too_few:
        f = f"{{:+.{digits}f}}" if signed else f"{{:.{digits}f}}"
        return f"{f.format(iv.mean * scale)} (too few seeds)"
    return iv.format(scale=scale, digits=digits, signed=signed)


def too_few_line(ns: Sequence[int]) -> str | None:
    """The line every table prints when some interval has too few seeds, else None.

    Examples
    --------
    >>> too_few_line([2, 2, 12])
    'too few seeds (n = 2) for an interval: no interval and no verdict'
    >>> too_few_line([10, 12]) is None
    True
    """
    few = sorted({n for n in ns if n < stats.MIN_SEEDS})
    if not few:
        return None
    return f"too few seeds (n = {', '.join(map(str, few))}) for an interval: no interval and no verdict"


def caption(correction: str | None, m: int, *, pointwise: bool = False) -> str:
    """The line naming the intervals' method and the family's control.

    Parameters
    ----------
    correction : str or None
        "holm", "bh" or "none"; None for intervals that make no family claim.
    m : int
        The comparisons in the family (those with a test).
    pointwise : bool
        Intervals drawn point by point (learning curves).

    Examples
    --------
    >>> print(caption("holm", 30))  # doctest: +NORMALIZE_WHITESPACE
    intervals: 95 % the hull of Student's t and Hall's skewness-corrected t, clipped to the range;
    family: Holm (family-wise error) over 30 comparisons; verdicts read the adjusted intervals
    """
    head = f"intervals: {100 * stats.LEVEL:g} % {stats.METHOD}"
    if pointwise:
        return head + "; pointwise (each point alone, no claim about the curve as a whole)"
    if correction is None:
        return head
    return head + f"; family: {stats.correction_words(correction, m)}; verdicts read the adjusted intervals"


def family_lines(compared: Sequence[Compared], samples: Sequence[Sequence[float | None]],
                 correction: str, *, ns: Sequence[int] = ()) -> list[str]:
    """The lines under a study's table: the method and the family, the seeds a precision needs,
    and the too-few-seeds line where it applies.

    Parameters
    ----------
    compared : sequence of Compared
        The family, as :func:`mark1.stats.family` gave it.
    samples : sequence of sequences
        The family's per-seed figures (fractions), for :func:`mark1.stats.seeds_line`.
    correction : str
    ns : sequence of int
        Seed counts of any other interval of the table (means beside the family's differences).
    """
    lines = [caption(correction, len(compared))]
    seeds = stats.seeds_line(samples)
    if seeds:
        lines.append(seeds)
    few = too_few_line([c.raw.n for c in compared] + list(ns))
    if few:
        lines.append(few)
    return lines


def interval_fields(c: Compared | Interval, correction: str | None = None, scale: float = 1.0) -> dict[str, Any]:
    """The CSV columns of :data:`INTERVAL_FIELDS` for one comparison (its adjusted interval) or one
    interval (no test: p empty, correction ``none``), in the unit ``scale`` gives.

    Examples
    --------
    >>> from mark1.stats import mean_interval
    >>> d = interval_fields(mean_interval([0.5] * 10, (0, 1)), scale=100)
    >>> d["low"], d["correction"], d["p"]
    (50.0, 'none', None)
    """
    if isinstance(c, Compared):
        iv, p, pa, corr = c.interval, c.p, c.p_adjusted, c.correction
    else:
        iv, p, pa, corr = c, None, None, correction or "none"
    return {"low": None if iv.low is None else iv.low * scale, "high": None if iv.high is None else iv.high * scale,
            "level": iv.level, "method": iv.method, "correction": corr, "p": p, "p_adjusted": pa}


def precision_line(precision: float | None, pilot: Sequence[int], counted: Sequence[int],
                   compared: Sequence[Compared], scale: float = 100.0) -> str:
    """The line of a run to a precision: the pilot, the new seeds it fixed, and which intervals met it.

    Examples
    --------
    >>> from mark1.stats import family
    >>> c = family([[0.01 * k for k in range(12)]], (-1, 1))
    >>> print(precision_line(0.03, list(range(10)), list(range(10, 22)), c))  # doctest: +NORMALIZE_WHITESPACE
    run to a precision of ±3 points: the pilot's 10 seeds (kept in the records, left out of the intervals)
    fixed 12 new seeds (Stein's two-stage rule); 1 of 1 intervals within ±3 points
    >>> precision_line(0.02, list(range(10)), list(range(10, 22)), c).endswith("(the widest ±2.29 points)")
    True
    """
    p = (precision or 0.0) * scale
    widths = [c.interval.half_width for c in compared if c.interval.half_width is not None]
    within = sum(1 for w in widths if w * scale <= p + 1e-12)
    worst = max(widths, default=None)
    tail = "" if worst is None or within == len(widths) else f" (the widest ±{worst * scale:.2f} points)"
    return (f"run to a precision of ±{p:g} points: the pilot's {len(pilot)} seeds (kept in the records, left out "
            f"of the intervals) fixed {len(counted)} new seeds (Stein's two-stage rule); {within} of {len(widths)} "
            f"intervals within ±{p:g} points{tail}")
