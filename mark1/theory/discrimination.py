"""How well a trained μ-system tells two responses apart: Rosenblatt's Z and P = Φ(Z).

The μ-system (mean-discriminating) lets the response whose active A-units have the
greatest mean value win. Values follow the α rule: an A-unit gains one unit of value for
each stimulus it fires to while its response is forced (the ideal environment: random
stimuli, n_s of them forced to each of two responses, each A-unit feeding one response).

* :func:`z_1957` — the Project PARA report (CAL 85-460-1, 1957), App. I eq. 5, from which
  its Table I was computed: ``Z = (1 - P_c) / sigma_d`` with
  ``sigma_d = sqrt((2 N_s / N_d) (P_a^3 - P_a^4))``, ``N_d = P_a N_A``.
* :func:`z_recall` — the same experiment worked out here from the 1958 model (derived, not
  printed in either source): ``Z = sqrt((1 - P_a) N_A / (2 N_s))``. It is 1 / (P_a (1 - P_a))
  times smaller than the 1957 value and agrees with the machine (docs/THEORY.md); the
  1958 paper's own conclusion that recall falls back towards chance as N_s grows agrees
  with it too.
* :func:`learning_curve` — the general form of the 1958 paper, eq. 4,
  ``P = [1 - (1 - P_a)^N_e] Φ(Z)``, ``Z = (c1 n_sr + c2) / sqrt(c3 n_sr^2 + c4 n_sr)``, with the
  constants passed in; :mod:`mark1.theory.learning` builds in those the 1958 text gives
  (eqs. 5-7 are printed as images the transcriptions render only in part) and derives the
  rest, each with its page.

Examples
--------
>>> round(z_1957(0.10, 100, 1000), 2)        # 1957 Table I: P_a = .10, N_A = 100, N_s = 1,000
2.36
>>> round(z_recall(0.10, 100, 1000), 3), round(phi(z_recall(0.10, 100, 1000)), 3)
(0.212, 0.584)
"""

from __future__ import annotations

import math
from numbers import Real

from mark1.exceptions import InputError, InputTypeError
from mark1.theory.probabilities import _fraction

__all__ = ["phi", "z_1957", "z_recall", "learning_curve"]


def _positive(name: str, value, *, low: float = 0.0, strict: bool = True) -> float:
    """A finite real argument > low (>= low when not ``strict``)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise InputTypeError(f"{name}: expected a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < low or (strict and v == low):
        raise InputError(f"{name}: expected a finite number {'>' if strict else '>='} {low:g}, got {value!r}")
    return v


def _activation(p_a) -> float:
    """P_a for the discrimination formulas: strictly between 0 and 1."""
    v = _fraction("p_a", p_a)
    if v in (0.0, 1.0):
        raise InputError(f"p_a: expected 0 < p_a < 1 (an A-unit that never or always fires tells nothing), "
                         f"got {p_a!r}")
    return v


def phi(z: float) -> float:
    """Φ(z), the standard normal distribution function: the probability a N(0, 1) value is below z.

    Rosenblatt's "normal curve integral from -∞ to Z" (1957 App. I §3, 1958 eq. 4).

    Parameters
    ----------
    z : float
        In standard deviations; ±inf allowed.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> phi(0.0)
    0.5
    >>> round(phi(2.237), 3)       # 1957: "the 2.23 sigma level, or a probability of 0.987"
    0.987
    """
    if isinstance(z, bool) or not isinstance(z, Real):
        raise InputTypeError(f"z: expected a number, got {z!r}")
    if math.isnan(z):
        raise InputError("z: expected a number, got nan")
    return 0.5 * (1.0 + math.erf(float(z) / math.sqrt(2.0)))


def z_1957(p_a: float, n_a: float, n_s: float, p_c: float = 0.0) -> float:
    """Z of the 1957 report for telling two responses apart, App. I eq. 5 (its Table I).

    ``Z = (1 - P_c) / sigma_d``, ``sigma_d = sqrt((2 N_s / N_d) (P_a^3 - P_a^4))``, where
    N_d = P_a N_A is the number of A-units that a stimulus fires among the N_A feeding one
    response. The report's conditions: all stimuli of one size (P_a constant), the same
    number N_s of stimuli associated to each response with a fixed reinforcement each,
    N_d much greater than 1. Table I takes P_c = 0 (each A-unit feeds one R-unit); its
    P_a = .10 columns are this formula to every printed digit, its P_a = .01 columns are
    0.5 % lower (as if P_a^4 were dropped). P = :func:`phi` (Z) is its P_d.

    Parameters
    ----------
    p_a : float in (0, 1)
        Fraction of A-units a stimulus fires.
    n_a : float > 0
        A-units connected to each R-unit (N_A).
    n_s : float > 0
        Stimuli associated to each of the two responses (N_s).
    p_c : float in [0, 1], default 0
        Communality between the two A-sets being compared.

    Returns
    -------
    float
        Z in standard deviations.

    Examples
    --------
    >>> [round(z_1957(0.10, 100, n), 3) for n in (10, 100, 1000)]     # Table I: 23.6, 7.45, 2.36
    [23.57, 7.454, 2.357]
    >>> round(phi(z_1957(0.01, 1000, 10**6)), 3)
    0.988
    """
    p_a, p_c = _activation(p_a), _fraction("p_c", p_c)
    n_a, n_s = _positive("n_a", n_a), _positive("n_s", n_s)
    n_d = p_a * n_a
    return (1.0 - p_c) / math.sqrt(2.0 * n_s / n_d * (p_a ** 3 - p_a ** 4))


def z_recall(p_a: float, n_a: float, n_s: float) -> float:
    """Z for recalling which of two responses a learned stimulus was forced to (derived here).

    The experiment of :func:`z_1957` worked out from the 1958 model: an A-unit of the
    correct response that the test stimulus fires has value 1 + Binomial(N_s - 1, P_a), one
    of the other response Binomial(N_s, P_a); the μ-system compares the means over the
    P_a N_A active units of each, so the difference has mean 1 - P_a and variance
    2 N_s (1 - P_a) / N_A, and ``Z = sqrt((1 - P_a) N_A / (2 N_s))``. In the 1958 eq. 4 form:
    c1 = 0, c2 = 1 - P_a, c3 = 0, c4 = 2 (1 - P_a) / N_A, with N_e = N_A. Conditions: the
    ideal environment (stimuli drawn independently), each A-unit feeding one of the two
    responses, N_s fixed, P_a N_A large enough for the normal approximation.

    Parameters
    ----------
    p_a : float in (0, 1)
        Fraction of A-units a stimulus fires.
    n_a : float > 0
        A-units feeding each response.
    n_s : float > 0
        Stimuli forced to each response.

    Returns
    -------
    float
        Z in standard deviations; P_r = [1 - (1 - P_a)^N_A] Φ(Z) as in :func:`learning_curve`.

    Examples
    --------
    >>> round(z_recall(0.10, 100, 1000), 3)
    0.212
    >>> round(z_1957(0.10, 100, 1000) / z_recall(0.10, 100, 1000), 2)    # 1 / (P_a (1 - P_a))
    11.11
    """
    p_a = _activation(p_a)
    n_a, n_s = _positive("n_a", n_a), _positive("n_s", n_s)
    return math.sqrt((1.0 - p_a) * n_a / (2.0 * n_s))


def learning_curve(n_sr: float, c1: float, c2: float, c3: float, c4: float, *, p_a: float, n_e: float) -> float:
    """Rosenblatt's (1958) eq. 4: the probability that the reinforced response is preferred after n_sr stimuli.

    ``P = P(N_ar > 0) Φ(Z)`` with ``P(N_ar > 0) = 1 - (1 - P_a)^N_e`` (at least one of the N_e
    effective A-units of the correct response fires to the test stimulus) and
    ``Z = (c1 n_sr + c2) / sqrt(c3 n_sr^2 + c4 n_sr)``. The constants depend on the value
    rule (α, β, γ), the μ- or Σ-system and the environment (c1 = 0 in the ideal
    environment; c2 = 0 for generalization, P_g). They are passed in: see the module
    notes for why none of eqs. 5-8 is built in, and :func:`z_recall` for one set derived
    here.

    Parameters
    ----------
    n_sr : float > 0
        Stimuli associated to each response.
    c1, c2, c3, c4 : float
        The constants of eq. 4; ``c3 n_sr^2 + c4 n_sr`` must be positive.
    p_a : float in (0, 1)
        Fraction of A-units a stimulus fires.
    n_e : float > 0
        Effective A-units in each source set (those not connected to both responses).

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> p_a, n_e, n = 0.10, 100, 1000                 # z_recall's constants
    >>> round(learning_curve(n, 0, 1 - p_a, 0, 2 * (1 - p_a) / n_e, p_a=p_a, n_e=n_e), 3)
    0.584
    """
    n_sr = _positive("n_sr", n_sr)
    c = [_positive(name, v, low=-math.inf) for name, v in (("c1", c1), ("c2", c2), ("c3", c3), ("c4", c4))]
    p_a, n_e = _activation(p_a), _positive("n_e", n_e)
    spread = c[2] * n_sr ** 2 + c[3] * n_sr
    if spread <= 0.0:
        raise InputError(f"c3, c4: expected c3 n_sr^2 + c4 n_sr > 0 (a variance), got {spread:g}")
    z = (c[0] * n_sr + c[1]) / math.sqrt(spread)
    return (1.0 - (1.0 - p_a) ** n_e) * phi(z)
