"""One way to name, colour and write what every output of mark1 shows.

The terminal, the figures, the lesson page, the examples and the docs all speak this
language (``docs/guide/language.rst`` writes it down for people):

Words
    A *card* is one stimulus picture; a *presentation* is one showing of a card to the
    machine while it trains (epochs x training cards); a *mistake* is a presentation the
    machine answered wrongly, which the trainer then corrects. The three *learners* are
    :data:`LEARNERS`.
Colours
    Weights and sums run from :data:`NEGATIVE` (blue) through white to :data:`POSITIVE`
    (red), the diverging colour map :data:`WEIGHT_CMAP`; a firing unit (S-, A- or R-unit,
    a lit lamp) is :data:`FIRING` (amber) and a silent one :data:`SILENT` (near black);
    a card is drawn as printed, dark ink on white paper (:data:`CARD_CMAP`); a mistake is
    marked :data:`MISTAKE` (magenta), never red or blue, which are the weights' signs; a
    reference or threshold line, or a mark that is none of these things (a test score
    beside a curve, the moment a trace is sampled), is :data:`NEUTRAL` (grey).
Layout
    Units shown as a grid (A-units, pots) are laid out row by row by :func:`unit_grid`,
    about twice as wide as tall: 512 A-units as 16 rows of 32, 64 as 8 x 8.
Numbers
    Durations in s, min or h by size (:func:`duration`; a time axis takes its unit from
    :func:`duration_unit`); accuracy and other rates in % (:func:`percent`), a mean over
    seeds with its standard deviation as ``86.0 ± 1.8 %`` (:func:`percent_spread`; the
    ± in points); counts with thousands separators.

Nothing here imports the machine or matplotlib: the colours are hex strings, the colour
maps names that matplotlib knows.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import cast

from mark1.exceptions import InputError

__all__ = ["LEARNERS", "POSITIVE", "NEGATIVE", "ZERO", "FIRING", "SILENT", "MISTAKE", "NEUTRAL", "WEIGHT_CMAP",
           "CARD_CMAP",
           "LEARNER_COLOURS", "duration", "duration_unit", "percent", "percent_spread", "unit_grid"]

#: The three learners compared everywhere, by the name every output uses.
LEARNERS = {
    "analog": "the Mark I as built: its photocells, patch board, and a rack of motor-driven "
              "potentiometers with end stops, limited speed, read noise and real time",
    "digital": "the same retina, optics and patch board (so the same S- and A-units), with an "
               "ideal learner: instant, unbounded, exact weights (MachineSpec.digital())",
    "ideal": "the textbook perceptron on the same wiring: every non-ideality off, sensing "
             "included (MachineSpec.ideal())",
}

POSITIVE = "#b2182b"   #: a positive weight or sum (the red end of :data:`WEIGHT_CMAP`)
NEGATIVE = "#2166ac"   #: a negative weight or sum (the blue end)
ZERO = "#f7f7f7"       #: a weight of zero (the middle of :data:`WEIGHT_CMAP`)
FIRING = "#f2b705"     #: a firing unit, a lit lamp
SILENT = "#2b2b2b"     #: a silent unit, a dark lamp
MISTAKE = "#e7298a"    #: a mistake (a presentation answered wrongly), e.g. a tick under a learning curve
NEUTRAL = "#737373"    #: a reference or threshold line, a mark that is no weight, unit, card, mistake or learner
WEIGHT_CMAP = "RdBu_r"  #: matplotlib's diverging map from NEGATIVE through white to POSITIVE
#: A card as printed: cards are reflectance, so 1 (white paper) is drawn white and 0 (black ink) black.
CARD_CMAP = "gray"

#: One colour per learner, in every figure that compares them.
LEARNER_COLOURS = {"analog": "#d95f02", "digital": "#1b9e77", "ideal": "#7570b3"}


def duration(seconds: float) -> str:
    """A duration written by its size: seconds below 2 min, minutes below 2 h, else hours.

    Parameters
    ----------
    seconds : float
        The duration, s (finite, not negative).

    Returns
    -------
    str
        ``"12.3 s"``, ``"4.5 min"`` or ``"3.2 h"``: from 1 up, one decimal at most (none
        from 100 up); below 1, two significant figures, in decimals (``"0.25 s"``,
        ``"0.00001 s"``), never in powers of ten.

    Raises
    ------
    InputError
        For a negative or non-finite duration.

    Examples
    --------
    >>> duration(0.25), duration(61.0), duration(199.0), duration(7200.0), duration(86400.0 * 3)
    ('0.25 s', '61 s', '3.3 min', '2 h', '72 h')
    >>> duration(0.0031), duration(1e-05), duration(1.234e-05), duration(0.0)
    ('0.0031 s', '0.00001 s', '0.000012 s', '0 s')
    """
    unit, size = duration_unit(seconds)
    return f"{_figures(float(seconds) / size)} {unit}"


def duration_unit(seconds: float) -> tuple[str, float]:
    """The unit :func:`duration` writes a duration in, and its size in seconds.

    A figure's time axis takes the unit of its longest time, so that its ticks read as
    the terminal writes the same run.

    Parameters
    ----------
    seconds : float
        The duration, s (finite, not negative).

    Returns
    -------
    unit : str
        ``"s"`` below 2 min, ``"min"`` below 2 h, else ``"h"``.
    size : float
        Seconds in one ``unit``: 1, 60 or 3600.

    Raises
    ------
    InputError
        For a negative or non-finite duration.

    Examples
    --------
    >>> duration_unit(100.0), duration_unit(1800.0), duration_unit(6.2 * 3600)
    (('s', 1.0), ('min', 60.0), ('h', 3600.0))
    """
    seconds = float(seconds)
    if not math.isfinite(seconds) or seconds < 0:
        raise InputError(f"duration: expected a finite number of seconds >= 0, got {seconds!r}")
    for unit, size in (("h", 3600.0), ("min", 60.0)):
        if seconds >= 2 * size:
            return unit, size
    return "s", 1.0


def percent(fraction: float, decimals: int = 1) -> str:
    """A fraction written as a percentage.

    Parameters
    ----------
    fraction : float
        A rate between 0 and 1 (accuracy, share of mistakes); NaN reads ``"n/a"``.
    decimals : int, default 1
        Decimals after the point.

    Returns
    -------
    str

    Examples
    --------
    >>> percent(0.975), percent(1.0), percent(0.12345, 2), percent(float("nan"))
    ('97.5 %', '100.0 %', '12.35 %', 'n/a')
    """
    fraction = float(fraction)
    if math.isnan(fraction):
        return "n/a"
    return f"{100.0 * fraction:.{int(decimals)}f} %"


def percent_spread(mean: float, sd: float, decimals: int = 1) -> str:
    """A mean rate and its standard deviation (over seeds, say) as ``mean ± sd`` in %.

    The spread is in points (hundredths), so the sign ``%`` is written once, after both.

    Parameters
    ----------
    mean : float
        A rate between 0 and 1 (mean accuracy); NaN reads ``"n/a"``.
    sd : float or None
        Its standard deviation, as a fraction too; None or NaN (a single seed) writes the
        mean alone, as :func:`percent` does.
    decimals : int, default 1
        Decimals after the point, for both.

    Returns
    -------
    str

    Examples
    --------
    >>> percent_spread(0.86, 0.0183), percent_spread(0.86, None), percent_spread(float("nan"), 0.1)
    ('86.0 ± 1.8 %', '86.0 %', 'n/a')
    """
    mean = float(mean)
    if math.isnan(mean) or sd is None or math.isnan(float(sd)):
        return percent(mean, decimals)
    dec = int(decimals)
    return f"{100.0 * mean:.{dec}f} ± {100.0 * float(sd):.{dec}f} %"


def unit_grid(n: int) -> tuple[int, int]:
    """Rows and columns of the grid ``n`` units are drawn in, row by row from the top left.

    The exact factorisation whose width is nearest twice its height (a tie goes to the
    squarer grid); when that is more than 8 times as wide as tall (a prime count, say),
    rows of ``ceil(n / rows)`` with the last part-filled. Every figure and the lesson
    page lay the A-units out this way, so that unit 37 is in the same place in all.

    Parameters
    ----------
    n : int
        Units (>= 1; 0 or fewer gives one empty cell).

    Returns
    -------
    tuple of int
        ``(rows, cols)`` with ``rows * cols >= n``.

    Examples
    --------
    >>> unit_grid(512), unit_grid(64), unit_grid(4096), unit_grid(8), unit_grid(13)
    ((16, 32), (8, 8), (64, 64), (2, 4), (3, 5))
    """
    n = int(n)
    if n <= 0:
        return (1, 1)
    best: tuple[float, int, int] | None = None
    for r in range(1, math.isqrt(n) + 1):
        if n % r == 0:
            c = n // r
            off = max(c / (2 * r), 2 * r / c)          # how far from 2:1, as a factor
            if best is None or off <= best[0] + 1e-12:
                best = (off, r, c)
    _, r, c = cast(tuple[float, int, int], best)       # r = 1 divides n: best is set
    if c / r > 8:
        r = max(1, int(round(math.sqrt(n / 2.0))))
        c = -(-n // r)
    return (r, c)


def _figures(x: float) -> str:
    """One decimal at most from 1 up (none from 100 up), two significant figures below 1
    written in decimals, no trailing zeros."""
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 1:
        return f"{round(x, 1):g}"
    text = f"{x:.2g}"
    return format(Decimal(text), "f") if "e" in text else text      # 1e-05 -> 0.00001
