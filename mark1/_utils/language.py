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
    a card is drawn as printed, dark ink on white paper (:data:`CARD_CMAP`).
Numbers
    Durations in s, min or h by size (:func:`duration`); accuracy and other rates in %
    (:func:`percent`); counts with thousands separators.

Nothing here imports the machine or matplotlib: the colours are hex strings, the colour
maps names that matplotlib knows.
"""

from __future__ import annotations

import math

from mark1.exceptions import InputError

__all__ = ["LEARNERS", "POSITIVE", "NEGATIVE", "ZERO", "FIRING", "SILENT", "WEIGHT_CMAP", "CARD_CMAP",
           "LEARNER_COLOURS", "duration", "percent"]

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
WEIGHT_CMAP = "RdBu_r"  #: matplotlib's diverging map from NEGATIVE through white to POSITIVE
CARD_CMAP = "gray_r"    #: a card as printed: 0 white paper, 1 black ink

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
        ``"12.3 s"``, ``"4.5 min"`` or ``"3.2 h"``: three significant figures at most,
        never more than one decimal.

    Raises
    ------
    InputError
        For a negative or non-finite duration.

    Examples
    --------
    >>> duration(0.25), duration(61.0), duration(199.0), duration(7200.0), duration(86400.0 * 3)
    ('0.25 s', '61 s', '3.3 min', '2 h', '72 h')
    """
    seconds = float(seconds)
    if not math.isfinite(seconds) or seconds < 0:
        raise InputError(f"duration: expected a finite number of seconds >= 0, got {seconds!r}")
    for unit, size in (("h", 3600.0), ("min", 60.0)):
        if seconds >= 2 * size:
            return f"{_figures(seconds / size)} {unit}"
    return f"{_figures(seconds)} s"


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


def _figures(x: float) -> str:
    """At most three significant figures and one decimal, no trailing zeros."""
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 1:
        return f"{round(x, 1):g}"
    return f"{x:.2g}"
