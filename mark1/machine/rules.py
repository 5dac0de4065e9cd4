"""Reinforcement rules: pure functions that decide which pots to turn, and how far.

Every rule takes the A-unit outputs of one presentation (with the always-on bias unit
last), the R-units' targets and sums, and returns the commanded wiper travel of every
pot (full-scale fractions, signed). The rack then decides what the hardware actually
does with the command (speed, end stops, backlash, steps).

``alpha``   error correction with a fixed increment: each R-unit that erred
            (target * sum <= tie, see below) has the pots of the active A-units turned by
            ``increment`` towards its target. Rosenblatt's α-system, bivalent.
``gamma``   error correction in which active pots gain at the expense of inactive
            ones: the erring unit's active pots move by ``increment`` towards the
            target, its inactive pots move back so that the unit's total is conserved.
``forced``  forced learning: every card reinforces every R-unit towards its target,
            right or wrong.
``lms``     Widrow and Hoff's LMS (the ADALINE's rule): every active pot of every
            unit moves by ``lms_rate * (target - sum)``.

The tie rule
------------
One rule, used by every path that judges a sum (the event simulation, the fast
ideal path, the R-unit lamps, the decoding of answers): a sum within
``tie_tolerance(increment, n_pots)`` of zero *is* zero, and zero is an error. Two
sums within that tolerance of each other are equal, and the lower class index wins.
The tolerance is ``TIE_RTOL * increment * n_pots``: far below one increment (the
smallest change a reinforcement can make to a sum), far above the rounding of a sum
of ``n_pots`` wiper positions (about ``n_pots * 2e-16`` of their size). So two paths
that add the same increments in a different order make the same decisions, and a
sum that is mathematically 0 is never read as +2.8e-17.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["RULES", "RULE_CODES", "ALPHA", "GAMMA", "FORCED", "LMS", "alpha", "gamma", "forced", "lms",
           "command_into", "erring", "tie_tolerance", "TIE_RTOL"]

ALPHA, GAMMA, FORCED, LMS = 0, 1, 2, 3

#: Relative size of the tie zone: a sum within TIE_RTOL * increment * n_pots of 0 is 0.
TIE_RTOL = 1e-9


def tie_tolerance(increment: float, n_pots: int) -> float:
    """Half-width of the tie zone (full scale) for sums over ``n_pots`` pots (see module docstring).

    Examples
    --------
    >>> tie_tolerance(0.02, 513)          # the Mark I's 512 A-units and the bias pot
    1.026e-08
    """
    return TIE_RTOL * float(increment) * max(1, int(n_pots))


def erring(targets: np.ndarray, sums: np.ndarray, tie: float = 0.0) -> np.ndarray:
    """Which R-units erred: ``target * sum <= tie`` (a sum in the tie zone is undecided, so an error).

    ``targets`` and ``sums`` broadcast; the result has their shape.

    Examples
    --------
    >>> import numpy as np
    >>> erring(np.array([1, -1, 1]), np.array([0.3, 0.2, 0.0]))     # right, wrong, undecided
    array([False,  True,  True])
    """
    return targets * sums <= tie


@njit(cache=True)
def command_into(out, rule, phi, targets, sums, mask, increment, lms_rate, tie):
    """Write one presentation's commanded travel into ``out``; the number of pots that move.

    The one implementation of the rules (compiled, so the simulator's inner loop calls it
    too). ``out`` is (n_units, n_a + 1) float, overwritten; ``rule`` a code from
    :data:`RULE_CODES`; the other arguments as for :func:`alpha`. The arithmetic is that
    of the formulas in the module docstring: α moves an erring unit's active pots by
    ``increment * target``; γ also moves its inactive pots by ``-increment * target *
    n_active / n_inactive`` (nothing when no pot is inactive); forced moves every unit's
    active pots; LMS moves them by ``lms_rate * (target - sum)``.
    """
    n_units, n_in = out.shape
    moving = 0
    for u in range(n_units):
        t = targets[u]
        erred = t * sums[u] <= tie
        if rule == LMS:
            step = lms_rate * (t - sums[u])
        elif rule == FORCED or erred:
            step = increment * t
        else:
            step = 0.0
        back = 0.0
        if rule == GAMMA and step != 0.0:
            n_act = 0
            n_inact = 0
            for i in range(n_in):
                if mask[u, i]:
                    if phi[i]:
                        n_act += 1
                    else:
                        n_inact += 1
            if n_inact == 0:
                step = 0.0                    # nothing to take from
            else:
                back = -(n_act / n_inact)
        if step == 0.0:
            for i in range(n_in):
                out[u, i] = 0.0
            continue
        for i in range(n_in):
            v = 0.0
            if mask[u, i]:
                if phi[i]:
                    v = step
                elif rule == GAMMA:
                    v = step * back
            out[u, i] = v
            if v != 0.0:
                moving += 1
    return moving


def _rule_function(code: int, name: str, doc: str):
    def rule(phi: np.ndarray, targets: np.ndarray, sums: np.ndarray, mask: np.ndarray,
             increment: float, lms_rate: float = 0.0, tie: float = 0.0) -> np.ndarray:
        out = np.zeros(mask.shape)
        command_into(out, code, np.asarray(phi, np.bool_), np.asarray(targets, np.float64),
                     np.asarray(sums, np.float64), np.asarray(mask, np.bool_),
                     float(increment), float(lms_rate), float(tie))
        return out
    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = doc
    return rule


_PARAMETERS = """
    Parameters
    ----------
    phi : array of shape (n_a + 1,) bool
        A-unit outputs, bias unit last (always True).
    targets : array of shape (n_units,) in ±1
    sums : array of shape (n_units,)
    mask : array of shape (n_units, n_a + 1) bool
        Which pots exist (the rack's topology).
    increment : float
        Full-scale fraction per reinforcement (α, γ, forced).
    lms_rate : float
        Travel per unit of error (LMS).
    tie : float
        Half-width of the tie zone (:func:`tie_tolerance`).

    Returns
    -------
    array of shape (n_units, n_a + 1)
        Commanded travel of every pot; zero where nothing moves.
"""

_EXAMPLE = """
    Examples
    --------
    >>> import numpy as np
    >>> phi = np.array([True, False, True])     # A-unit 0 fires, A-unit 1 does not; bias last
    >>> mask = np.ones((1, 3), bool)             # one R-unit with a pot on every input
    >>> {name}(phi, np.array([1]), np.array([{sum}]), mask, increment=0.02, lms_rate=0.1)
    {result}
"""

alpha = _rule_function(ALPHA, "alpha", "α error correction: each erring unit's active pots move by "
                       "``increment`` towards its target.\n" + _PARAMETERS
                       + _EXAMPLE.format(name="alpha", sum=-0.1, result="array([[0.02, 0.  , 0.02]])"))
gamma = _rule_function(GAMMA, "gamma", "γ error correction: the erring unit's total over its pots is "
                       "conserved.\n\n    A unit whose pots are all active has nothing to take from, so it "
                       "does not move.\n" + _PARAMETERS
                       + _EXAMPLE.format(name="gamma", sum=-0.1, result="array([[ 0.02, -0.04,  0.02]])"))
forced = _rule_function(FORCED, "forced", "Forced learning: every unit is reinforced towards its target "
                        "on every card.\n" + _PARAMETERS
                        + _EXAMPLE.format(name="forced", sum=0.5, result="array([[0.02, 0.  , 0.02]])"))
lms = _rule_function(LMS, "lms", "Widrow-Hoff LMS: travel ``lms_rate * (target - sum)`` for every "
                     "active pot.\n" + _PARAMETERS
                     + _EXAMPLE.format(name="lms", sum=0.5, result="array([[0.05, 0.  , 0.05]])"))

RULES = {"alpha": alpha, "gamma": gamma, "forced": forced, "lms": lms}
#: The rule codes :func:`command_into` takes, by name.
RULE_CODES = {"alpha": ALPHA, "gamma": GAMMA, "forced": FORCED, "lms": LMS}
