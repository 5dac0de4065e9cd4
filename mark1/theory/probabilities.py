"""Rosenblatt's probabilities for a patch board of random A-units: P_a, P_c and P_c,min.

The model (Rosenblatt 1958, "The perceptron: a probabilistic model for information
storage and organization in the brain", Psych. Rev. 65:386-408, pp. 392-394; and the
Project PARA report, CAL 85-460-1, 1957, Appendix I): each A-unit has ``x`` excitatory and
``y`` inhibitory origin points, distinct S-points drawn at random from the retina, and
fires when (lit excitatory) - (lit inhibitory) >= ``theta``. A stimulus lights the
fraction ``R`` of the retina.

* **Infinite retina** (1958 eqs. 1-3): each origin point is lit with probability R,
  independently, so the lit excitatory and inhibitory counts are binomial.
* **Finite retina** (1957 App. I eq. 1): exactly ``r = round(R * n)`` of ``n`` S-points are
  lit, so the counts (lit excitatory, lit inhibitory, lit unconnected) are one multivariate
  hypergeometric draw. This is the machine's case (n = 400) and it is exact for the mean
  over stimuli of *any* patch board, since a uniformly random stimulus does not care how
  the board was plugged.

P_c compares a second stimulus S2 with the first, S1. The 1958 eq. 2 states it in L (the
fraction of S1's lit points that S2 leaves dark) and G (the fraction of the points S1
leaves dark that S2 lights); its Fig. 6 plots P_c against C, "the proportion of overlap
between stimuli". Here S2 has the same size as S1 and keeps the fraction C of S1's lit
points, so (derived here, not printed in either source) L = 1 - C and
G = R (1 - C) / (1 - R); on a finite retina S2 keeps ``round(C * r)`` of S1's ``r`` points
and lights as many new ones as it drops.

Examples
--------
>>> round(p_a(10, 5, 2, 0.1), 4), round(p_a(10, 5, 2, 0.1, n=400), 4)
(0.1798, 0.1805)
>>> round(p_c(10, 0, 3, 0.2, C=0.2), 4), round(p_a(10, 0, 3, 0.2), 4)   # C = R: S2 independent of S1
(0.3222, 0.3222)
>>> f"{p_c_min(10, 0, 0.2, C=0.2):.3g}"     # theta = x = 10: all ten points must stay lit, 0.2 ** 10
'1.02e-07'
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from mark1.exceptions import InputError, InputTypeError

__all__ = ["p_a", "p_c", "p_c_min"]


# -- arguments ------------------------------------------------------------------------


def _count(name: str, value, low: int = 0) -> int:
    """An integer argument >= ``low`` (bool refused: True is not a count)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise InputTypeError(f"{name}: expected an integer, got {value!r}")
    if value < low:
        raise InputError(f"{name}: expected an integer >= {low}, got {value}")
    return int(value)


def _fraction(name: str, value) -> float:
    """A real argument in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise InputTypeError(f"{name}: expected a number in [0, 1], got {value!r}")
    v = float(value)
    if not 0.0 <= v <= 1.0:                                  # NaN fails here too
        raise InputError(f"{name}: expected a fraction in [0, 1], got {value!r}")
    return v


#: Above this many trials a binomial pmf is computed in logs (math.comb times a float overflows).
_EXACT_TRIALS = 1000
#: The most terms a formula may sum: about 10 s of exact integer arithmetic on a 2-core machine.
_MAX_TERMS = 5_000_000


def _terms(x: int, y: int, finite: bool, pairs: bool) -> int:
    """Terms a formula sums: (x+1)(y+1) lit counts, each a product of x+y factors on a finite
    retina, and P_c's inner sums over what S2 drops and gains."""
    terms = (x + 1) * (y + 1)
    if finite:
        terms *= x + y + 1
    if pairs:
        terms *= (x + y + 1) * (2 if finite else 1)
    return terms


def _board(x, y, theta, R, n, pairs: bool = False):
    """Checked (x, y, theta, R, n, r): n None for the infinite retina, r = round(R * n) lit points.

    Refuses, before any sum, a board whose formula would take more than ``_MAX_TERMS`` terms
    (hours of exact arithmetic), naming x and y.
    """
    x, y, theta, R = _count("x", x), _count("y", y), _count("theta", theta, 1), _fraction("R", R)
    terms = _terms(x, y, n is not None, pairs)
    if terms > _MAX_TERMS:
        raise InputError(f"x, y: expected a board whose formula sums at most {_MAX_TERMS:,} terms, got "
                         f"x={x}, y={y}: {terms:,} terms")
    if n is None:
        return x, y, theta, R, None, None
    n = _count("n", n, 1)
    if x + y > n:
        raise InputError(f"n: expected at least x + y = {x + y} S-points (an A-unit's origin points are "
                         f"distinct), got {n}")
    return x, y, theta, R, n, round(R * n)


def _overlap(R: float, C: float, n, r):
    """Points S2 drops and gains: (L, G) on the infinite retina, (l, g) counts on a finite one."""
    if n is None:
        if R == 1.0:                       # S1 lights everything: S2, of the same size, is S1
            if C != 1.0:
                raise InputError(f"C: two stimuli that each light the whole retina (R = 1) overlap fully, "
                                 f"expected C = 1, got {C}")
            return 0.0, 0.0
        G = R * (1.0 - C) / (1.0 - R)
        if G > 1.0 + 1e-12:
            raise InputError(f"C: two stimuli that each light R = {R} of the retina share at least "
                             f"{(2 * R - 1) / R:.4g} of their points, got C = {C}")
        return 1.0 - C, min(G, 1.0)
    kept = round(C * r)
    dropped = r - kept
    if dropped > n - r:
        raise InputError(f"C: two stimuli of {r} of {n} points share at least {2 * r - n} points "
                         f"(C >= {(2 * r - n) / r:.4g}), got C = {C} ({kept} points)")
    return dropped, dropped


# -- the distributions ---------------------------------------------------------------


def _none_but(total: int, marked: int, draws: int, taken: int) -> float:
    """The chance that ``draws`` points drawn without replacement from ``total`` take ``taken``
    given points of ``marked`` given ones and none of the other marked ones:
    ``C(total - marked, draws - taken) / C(total, draws)``, as a product of ``marked`` factors
    each way (exact integers, one rounding; a large retina makes whole binomials slow).
    A factor reaches 0 before any goes negative, so impossible draws give 0.
    """
    return _ratio(1, *_none_but_parts(total, marked, draws, taken))


def _none_but_parts(total: int, marked: int, draws: int, taken: int) -> tuple[int, int]:
    """:func:`_none_but` as exact (numerator, denominator) integers."""
    num = math.prod(draws - t for t in range(taken)) * math.prod(total - draws - t for t in range(marked - taken))
    return num, math.prod(total - t for t in range(marked))


def _ratio(factor: int, num: int, den: int) -> float:
    """``factor * num / den`` with one rounding: Python divides exact integers without overflow
    (a binomial of a thousand inputs is beyond a float, the probability never is)."""
    return (factor * num) / den


def _binomial(trials: int, p: float) -> np.ndarray:
    """pmf of Binomial(trials, p) over 0..trials (0 ** 0 = 1 covers p = 0 and p = 1)."""
    if trials <= _EXACT_TRIALS:
        return np.array([math.comb(trials, k) * p ** k * (1.0 - p) ** (trials - k) for k in range(trials + 1)])
    # C(trials, k) overflows a float beyond about 1,020 trials: the same terms in logs.
    k = np.arange(trials + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        log = (math.lgamma(trials + 1) - np.array([math.lgamma(j + 1) + math.lgamma(trials - j + 1) for j in k])
               + np.where(k > 0, k * math.log(p) if p > 0 else -np.inf, 0.0)
               + np.where(k < trials, (trials - k) * math.log1p(-p) if p < 1 else -np.inf, 0.0))
    return np.exp(log)


def _lit_counts(x, y, R, n, r):
    """Yield (e, i, h, probability): lit excitatory, lit inhibitory, lit unconnected origin points.

    Infinite retina: independent binomials (h is not needed, None). Finite: the
    hypergeometric draw of r lit points among n (x excitatory, y inhibitory, n - x - y not
    connected to this A-unit); h = r - e - i.
    """
    if n is None:
        be, bi = _binomial(x, R), _binomial(y, R)
        for e in range(x + 1):
            for i in range(y + 1):
                yield e, i, None, be[e] * bi[i]
        return
    for e in range(x + 1):
        for i in range(y + 1):
            w = _ratio(math.comb(x, e) * math.comb(y, i), *_none_but_parts(n, x + y, r, e + i))
            if w:
                yield e, i, r - e - i, w


def _difference(plus: int, minus: int, rest: int, draws, p) -> tuple[int, np.ndarray]:
    """pmf of (drawn from ``plus``) - (drawn from ``minus``) as (offset, array): value = offset + index.

    Infinite retina (``draws`` None): each of the plus + minus points is drawn with
    probability ``p``, independently. Finite: ``draws`` points without replacement from
    plus + minus + rest points.
    """
    if draws is None:
        return -minus, np.convolve(_binomial(plus, p), _binomial(minus, p)[::-1])
    out = np.zeros(plus + minus + 1)
    for a in range(plus + 1):
        for b in range(minus + 1):
            out[a - b + minus] += _ratio(math.comb(plus, a) * math.comb(minus, b), *_none_but_parts(
                plus + minus + rest, plus + minus, draws, a + b))
    return -minus, out


# -- the formulas --------------------------------------------------------------------


def p_a(x: int, y: int, theta: int, R: float, n: int | None = None) -> float:
    """P_a: the probability that an A-unit fires to a stimulus lighting the fraction R of the retina.

    Rosenblatt (1958) eq. 1 for an infinite retina,
    ``P_a = sum_{e=theta}^{x} sum_{i=0}^{min(y, e-theta)} B(e; x, R) B(i; y, R)``, with ``B`` the
    binomial probability; with ``n`` the finite form of the 1957 report (App. I eq. 1):
    ``sum C(x,e) C(y,i) C(n-x-y, r-e-i) / C(n, r)`` over ``e - i >= theta``, ``r = round(R n)``.
    Conditions: the A-unit's x + y origin points are distinct S-points chosen at random
    (independently of the stimulus); on the infinite retina each is lit with probability R
    independently of the others. P_a is also the expected fraction of A-units that fire.

    Parameters
    ----------
    x : int >= 0
        Excitatory inputs per A-unit.
    y : int >= 0
        Inhibitory inputs per A-unit.
    theta : int >= 1
        Threshold: the A-unit fires when (lit excitatory) - (lit inhibitory) >= theta.
    R : float in [0, 1]
        Fraction of the S-points the stimulus lights.
    n : int >= x + y, optional
        S-points of the retina (400 on the Mark I); None for the infinite retina.

    Returns
    -------
    float in [0, 1]
        P_a, also the expected fraction of a board's A-units that fire.

    Raises
    ------
    InputError
        Naming the argument: a negative count, theta < 1, R outside [0, 1], n < x + y.
    InputTypeError
        A count that is not an integer, a fraction that is not a number.

    Examples
    --------
    >>> round(p_a(10, 5, 2, 0.1), 4)          # the Mark I default board, 10 % of the retina lit
    0.1798
    >>> round(p_a(10, 0, 3, 0.2), 4), round(p_a(5, 5, 1, 0.5), 4)
    (0.3222, 0.377)
    >>> round(p_a(10, 5, 2, 0.1, n=400), 4)   # 40 of the Mark I's 400 photocells lit
    0.1805
    """
    x, y, theta, R, n, r = _board(x, y, theta, R, n)
    return float(min(1.0, sum(w for e, i, _, w in _lit_counts(x, y, R, n, r) if e - i >= theta)))


def p_c(x: int, y: int, theta: int, R: float, C: float, n: int | None = None) -> float:
    """P_c: the probability that an A-unit which fires to S1 also fires to S2, sharing the fraction C of S1's points.

    Rosenblatt (1958) eq. 2 on the infinite retina:
    ``P_c = (1/P_a) sum P(e, i, l_e, l_i, g_e, g_i)`` over the lit counts (e, i) of S1 with
    ``e - i >= theta`` and the excitatory / inhibitory origin points lost (``l_e``, ``l_i``:
    binomial with L among the e, i lit ones) and gained (``g_e``, ``g_i``: binomial with G
    among the x - e, y - i dark ones), subject to ``e - i - l_e + l_i + g_e - g_i >= theta``.
    S2 has the size of S1 and keeps the fraction C of S1's points, so L = 1 - C and
    G = R (1 - C) / (1 - R) (this mapping from Fig. 6's C is derived, see the module notes).
    With ``n``: the finite form of the 1957 report (App. I eq. 3, whose limits are not
    legible in the copy found), derived here from the same model: S2 keeps ``round(C r)``
    of S1's r lit points (drawn at random) and lights as many of the n - r dark points;
    losses and gains are then hypergeometric. Checked by Monte Carlo in the tests.

    Parameters
    ----------
    x, y : int >= 0
        Excitatory and inhibitory inputs per A-unit.
    theta : int >= 1
        Threshold of the A-units.
    R : float in [0, 1]
        Fraction of the retina each stimulus lights.
    C : float in [0, 1]
        Fraction of S1's lit points that S2 lights too; 1 is the same stimulus, 0 two
        disjoint ones (possible only for R <= 1/2: C >= (2R - 1)/R).
    n : int >= x + y, optional
        S-points of the retina; None for the infinite retina.

    Returns
    -------
    float in [0, 1]
        P_c: of the A-units firing to S1, the expected fraction that fire to S2 too.

    Raises
    ------
    InputError
        Naming the argument, as :func:`p_a`; ``C`` below the least overlap two stimuli of
        size R must have; ``theta`` (or ``R``) such that no A-unit fires (P_a = 0: P_c
        is undefined).

    Examples
    --------
    >>> round(p_c(10, 0, 3, 0.5, 1.0), 4)      # the same stimulus twice
    1.0
    >>> round(p_c(10, 0, 3, 0.5, 0.0), 4)      # disjoint halves of the retina (1958 Fig. 5)
    0.9421
    >>> round(p_c(10, 5, 2, 0.1, 0.5, n=400), 4)
    0.4177
    """
    x, y, theta, R, n, r = _board(x, y, theta, R, n, pairs=True)
    C = _fraction("C", C)
    lost, gained = _overlap(R, C, n, r)
    fire = both = 0.0
    for e, i, h, w in _lit_counts(x, y, R, n, r):
        if e - i < theta:
            continue
        fire += w
        if n is None:
            off_l, dl = _difference(i, e, 0, None, lost)                   # l_i - l_e, each with L
            off_g, dg = _difference(x - e, y - i, 0, None, gained)         # g_e - g_i, each with G
        else:
            off_l, dl = _difference(i, e, h, lost, None)                   # `lost` of S1's r points
            off_g, dg = _difference(x - e, y - i, n - r - (x - e) - (y - i), gained, None)
        change = np.convolve(dl, dg)                     # of e - i; S2 needs e - i + change >= theta
        start = theta - (e - i) - (off_l + off_g)
        both += w * float(change[max(start, 0):].sum())
    if fire <= 0.0:
        raise InputError(f"theta: no A-unit with x = {x}, y = {y}, theta = {theta} fires to a stimulus of "
                         f"R = {R} (P_a = 0), so P_c is undefined")
    return float(min(1.0, both / fire))


def p_c_min(x: int, y: int, R: float, C: float, n: int | None = None) -> float:
    """P_c,min: the least P_c over all thresholds, reached at theta = x.

    Rosenblatt (1958) eq. 3: ``P_c,min = (1 - L)^x (1 - G)^y`` on the infinite retina, the
    probability that S2 drops none of the x lit excitatory points of an A-unit that needed
    all of them and lights none of its y inhibitory ones. It is a lower bound of P_c for
    every theta (derived here: from any firing state, losing no lit excitatory point and
    gaining no inhibitory one keeps the unit firing, and that is likeliest when all x are
    lit and no inhibitory one is). With ``n``, the same event on the finite retina (derived):
    ``C(r - x, l)/C(r, l) * C(n - r - y, l)/C(n - r, l)`` with l = r - round(C r) points
    dropped and as many gained. L, G and C as in :func:`p_c`.

    Parameters
    ----------
    x, y : int >= 0
        Excitatory and inhibitory inputs per A-unit.
    R, C, n
        As :func:`p_c` (the stimulus's fraction, the overlap, the retina's S-points or None).

    Returns
    -------
    float in [0, 1]
        P_c,min; a lower bound of :func:`p_c` at every theta.

    Examples
    --------
    >>> round(p_c_min(10, 0, 0.5, 0.8), 4)       # (1 - L)^x = 0.8^10
    0.1074
    >>> round(p_c_min(10, 0, 0.5, 0.8), 4) == round(p_c(10, 0, 10, 0.5, 0.8), 4)
    True
    >>> round(p_c_min(10, 5, 0.1, 0.5, n=400), 6)
    0.000164
    """
    x, y, _, R, n, r = _board(x, y, 1, R, n)
    C = _fraction("C", C)
    lost, gained = _overlap(R, C, n, r)
    if n is None:
        return float((1.0 - lost) ** x * (1.0 - gained) ** y)
    # a stimulus of r points lights at most r of the x (and leaves at most n - r of the y dark)
    return float(_none_but(r, min(x, r), lost, 0) * _none_but(n - r, min(y, n - r), gained, 0))
