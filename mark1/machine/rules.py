"""Reinforcement rules: pure functions that decide which pots to turn, and how far.

Every rule takes the A-unit outputs of one presentation (with the always-on bias unit
last), the R-units' targets and sums, and returns the commanded wiper travel of every
pot (full-scale fractions, signed). The rack then decides what the hardware actually
does with the command (speed, end stops, backlash, steps).

The value systems (Rosenblatt 1958, Psych. Rev. 65:386-408), for a reinforced R-unit
with ``n_active`` active pots (the bias pot counts when the rack has it):

``alpha``
    Uncompensated gain: each active pot moves by ``increment`` towards the target.
``beta``
    Constant feed: the unit's total moves by ``increment``, shared equally: each active
    pot moves by ``increment / n_active``.
``gamma``
    Active pots gain at the expense of inactive ones: the active pots move by
    ``increment`` towards the target, the inactive ones back so that the unit's total is
    conserved (a unit with no inactive pot does not move).
``lms``
    Widrow and Hoff's LMS (the ADALINE's rule): every active pot of every unit moves by
    ``lms_rate * (target - sum)``, on every card.

Which units are reinforced (the reinforcement, :data:`REINFORCEMENTS`): ``corrective``,
only the units that erred (``target * sum <= tie``); ``forced``, every unit on every
card towards the right response; ``spontaneous``, every unit on every card towards the
code of the machine's own answer (the caller passes those targets). Monovalent values
only gain: a command towards a target of -1 does not act.

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
from mark1._utils.compiled import compiled

from mark1.exceptions import InputError

__all__ = ["RULES", "RULE_CODES", "REINFORCEMENTS", "ALPHA", "BETA", "GAMMA", "LMS", "alpha", "beta", "gamma",
           "lms", "command_into", "erring", "tie_tolerance", "TIE_RTOL", "unit_step"]

#: The rules' codes in the compiled :func:`command_into` (see :data:`RULE_CODES`).
ALPHA, BETA, GAMMA, LMS = 0, 1, 2, 3
#: The reinforcements; all but ``corrective`` reinforce every unit on every card.
REINFORCEMENTS = ("corrective", "forced", "spontaneous")

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


@compiled
def command_into(out, rule, every, monovalent, phi, targets, sums, mask, increment, lms_rate, tie):
    """Write one presentation's commanded travel into ``out``; the number of pots that move.

    The one implementation of the rules (compiled, so the simulator's inner loop calls it
    too). ``out`` is (n_units, n_a + 1) float, overwritten; ``rule`` a code from
    :data:`RULE_CODES`; ``every`` true reinforces every unit (forced or spontaneous
    reinforcement; ``targets`` are then the right response's or the machine's own
    answer's), false only the units that erred (corrective); ``monovalent`` true drops
    commands towards a target of -1; the other arguments as for :func:`alpha`. The
    arithmetic is that of the formulas in the module docstring: α moves a reinforced
    unit's active pots by ``increment * target``; β by ``increment * target / n_active``;
    γ also moves its inactive pots by ``-increment * target * n_active / n_inactive``
    (nothing when no pot is inactive); LMS moves them by ``lms_rate * (target - sum)``.
    """
    n_units, n_in = out.shape
    moving = 0
    for u in range(n_units):
        n_act = 0
        n_inact = 0
        if rule == GAMMA or rule == BETA:
            for i in range(n_in):
                if mask[u, i]:
                    if phi[i]:
                        n_act += 1
                    else:
                        n_inact += 1
        step, back = unit_step(rule, every, monovalent, targets[u], sums[u], n_act, n_inact, increment, lms_rate,
                               tie)
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


@compiled(inline="always")
def unit_step(rule, every, monovalent, target, total, n_act, n_inact, increment, lms_rate, tie):
    """One R-unit's command, the rule's arithmetic: (step, back).

    The unit's active pots move by ``step``; under γ its inactive ones by ``step * back``.
    ``target`` (±1) and ``total`` (its sum) the unit's; ``n_act``, ``n_inact`` its active
    and inactive pots (read by β and γ only); the other arguments as for
    :func:`command_into`, which writes the command of every unit with this, as the
    presentation kernel does for the pots that exist only. A step of 0: the unit is not
    reinforced.
    """
    erred = target * total <= tie
    if rule == LMS:
        step = lms_rate * (target - total)
    elif every or erred:
        step = increment * target
    else:
        step = 0.0
    if monovalent and target <= 0.0:
        step = 0.0                        # values only gain
    back = 0.0
    if (rule == GAMMA or rule == BETA) and step != 0.0:
        if rule == BETA:
            step = step / n_act if n_act > 0 else 0.0
        elif n_inact == 0:
            step = 0.0                    # nothing to take from
        else:
            back = -(n_act / n_inact)
    return step, back


def _rule_function(code: int, name: str, doc: str):
    def rule(phi: np.ndarray, targets: np.ndarray, sums: np.ndarray, mask: np.ndarray,
             increment: float, lms_rate: float = 0.0, tie: float = 0.0, *, reinforcement: str = "corrective",
             valence: str = "bivalent") -> np.ndarray:
        if reinforcement not in REINFORCEMENTS:
            raise InputError(f"reinforcement: expected one of {', '.join(REINFORCEMENTS)}, got {reinforcement!r}")
        if valence not in ("bivalent", "monovalent"):
            raise InputError(f"valence: expected 'bivalent' or 'monovalent', got {valence!r}")
        out = np.zeros(mask.shape)
        command_into(out, code, reinforcement != "corrective", valence == "monovalent", np.asarray(phi, np.bool_),
                     np.asarray(targets, np.float64),
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
        The right response's code (corrective, forced) or the machine's own answer's
        (spontaneous).
    sums : array of shape (n_units,)
    mask : array of shape (n_units, n_a + 1) bool
        Which pots exist (the rack's topology).
    increment : float
        Full-scale fraction per reinforcement (α, γ per active pot; β the unit's total).
    lms_rate : float
        Travel per unit of error (LMS).
    tie : float
        Half-width of the tie zone (:func:`tie_tolerance`).
    reinforcement : {"corrective", "forced", "spontaneous"}
        Corrective reinforces only the units that erred; the others every unit.
    valence : {"bivalent", "monovalent"}
        Monovalent drops every command towards a target of -1.

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
lms = _rule_function(LMS, "lms", "Widrow-Hoff LMS: travel ``lms_rate * (target - sum)`` for every "
                     "active pot.\n" + _PARAMETERS
                     + _EXAMPLE.format(name="lms", sum=0.5, result="array([[0.05, 0.  , 0.05]])"))

beta = _rule_function(BETA, "beta", "β: a constant total ``increment`` per reinforced unit, shared equally "
                      "among its active pots.\n\n    Each active pot moves by ``increment / n_active`` towards "
                      "the target (the bias pot counts).\n" + _PARAMETERS
                      + _EXAMPLE.format(name="beta", sum=-0.1, result="array([[0.01, 0.  , 0.01]])")
                      + """    >>> beta(phi, np.array([1]), np.array([0.5]), mask, increment=0.02,
    ...      reinforcement="forced")                 # right, but forced: reinforced all the same
    array([[0.01, 0.  , 0.01]])
    >>> beta(phi, np.array([-1]), np.array([0.5]), mask, increment=0.02, valence="monovalent")
    array([[0., 0., 0.]])
""")

#: The value systems by name, as ``trainer.rule`` takes them.
RULES = {"alpha": alpha, "beta": beta, "gamma": gamma, "lms": lms}
#: The rule codes :func:`command_into` takes, by name.
RULE_CODES = {"alpha": ALPHA, "beta": BETA, "gamma": GAMMA, "lms": LMS}
