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

__all__ = ["RULES", "alpha", "gamma", "forced", "lms", "erring", "tie_tolerance", "TIE_RTOL"]

#: Relative size of the tie zone: a sum within TIE_RTOL * increment * n_pots of 0 is 0.
TIE_RTOL = 1e-9


def tie_tolerance(increment: float, n_pots: int) -> float:
    """Half-width of the tie zone (full scale) for sums over ``n_pots`` pots (see module docstring)."""
    return TIE_RTOL * float(increment) * max(1, int(n_pots))


def erring(targets: np.ndarray, sums: np.ndarray, tie: float = 0.0) -> np.ndarray:
    """Which R-units erred: ``target * sum <= tie`` (a sum in the tie zone is undecided, so an error).

    ``targets`` and ``sums`` broadcast; the result has their shape.
    """
    return targets * sums <= tie


def alpha(phi: np.ndarray, targets: np.ndarray, sums: np.ndarray, mask: np.ndarray,
          increment: float, lms_rate: float = 0.0, tie: float = 0.0) -> np.ndarray:
    """α error correction.

    Parameters
    ----------
    phi : array of shape (n_a + 1,) bool
        A-unit outputs, bias unit last (always True).
    targets : array of shape (n_units,) in ±1
    sums : array of shape (n_units,)
    mask : array of shape (n_units, n_a + 1) bool
        Which pots exist (the rack's topology).
    increment : float
        Full-scale fraction per reinforcement.
    tie : float
        Half-width of the tie zone (:func:`tie_tolerance`).

    Returns
    -------
    array of shape (n_units, n_a + 1)
        Commanded travel of every pot; zero where nothing moves.
    """
    err = erring(targets, sums, tie)
    return (increment * (targets * err))[:, None] * (phi[None, :] & mask)


def gamma(phi, targets, sums, mask, increment, lms_rate=0.0, tie=0.0):
    """γ error correction: the erring unit's total over its pots is conserved.

    A unit whose pots are all active has nothing to take from, so it does not move.
    """
    err = erring(targets, sums, tie)
    active = phi[None, :] & mask
    inactive = ~phi[None, :] & mask
    n_act = active.sum(axis=1, keepdims=True)
    n_inact = inactive.sum(axis=1, keepdims=True)
    back = np.divide(n_act, n_inact, out=np.zeros(n_act.shape), where=n_inact > 0)
    moves = (active - back * inactive) * (n_inact > 0)
    return (increment * (targets * err))[:, None] * moves


def forced(phi, targets, sums, mask, increment, lms_rate=0.0, tie=0.0):
    """Forced learning: every unit is reinforced towards its target on every card."""
    return (increment * targets.astype(float))[:, None] * (phi[None, :] & mask)


def lms(phi, targets, sums, mask, increment=0.0, lms_rate=0.0, tie=0.0):
    """Widrow-Hoff LMS: travel ``lms_rate * (target - sum)`` for every active pot."""
    return (lms_rate * (targets - sums))[:, None] * (phi[None, :] & mask)


RULES = {"alpha": alpha, "gamma": gamma, "forced": forced, "lms": lms}
