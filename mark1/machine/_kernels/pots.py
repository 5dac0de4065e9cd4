"""The physics of one pot, compiled: where a wiper is, what a command does to it, and how long that takes.

Every path that moves or reads a wiper calls these: the rack
(:class:`mark1.machine.potentiometers.PotentiometerRack`), the compiled presentation loop
(:mod:`mark1.machine._kernels.presentation`) and the device plots (through
:func:`move_duration`). A pot's law is written here once. The rack's arrays travel as one
named record, :class:`Pots`, and the drive's constants as another, :class:`Drive`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from mark1._utils.compiled import compiled

__all__ = ["Drive", "Pots", "apply_pot", "drive_of", "move_duration", "plan_pot", "stored_pot", "wiper_sums"]


class Drive(NamedTuple):
    """The drive's constants as :func:`plan_pot` reads them (from :class:`mark1.specs.RackSpec`).

    Attributes
    ----------
    continuous : float
        1.0 for a continuous drive, 0.0 for a ratchet.
    motor_speed : float
        Full scale per second of a nominal motor (``inf``: instant).
    step, step_time : float
        A ratchet step's travel (full scale) and time (s; 0: instant).
    backlash : float
        Full scale of travel lost when a motor reverses.
    end_stops : float
        1.0 where the wipers stop at ±1.
    """

    continuous: float
    motor_speed: float
    step: float
    step_time: float
    backlash: float
    end_stops: float


class Pots(NamedTuple):
    """The rack's per-pot arrays, flat (index ``unit * n_inputs + input``), written in place.

    Attributes
    ----------
    gain : array (n_pots,) float
        Each motor's speed relative to nominal.
    p_from, p_to : arrays (n_pots,) float
        Stored position (before decay) at the start and the end of the pot's last move.
    t_start, t_end : arrays (n_pots,) float
        When that move's wiper motion starts and ends (s of machine time).
    last_dir : array (n_pots,) int8
        Direction of the last move that turned the gears (0: never moved).
    """

    gain: np.ndarray
    p_from: np.ndarray
    p_to: np.ndarray
    t_start: np.ndarray
    t_end: np.ndarray
    last_dir: np.ndarray


def drive_of(spec) -> Drive:
    """The drive's constants of a :class:`mark1.specs.RackSpec`.

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> drive_of(RackSpec()).motor_speed
    0.25
    """
    return Drive(float(spec.drive == "continuous"), float(spec.motor_speed), float(spec.step),
                 float(spec.step_time), float(spec.backlash), float(spec.end_stops))


def move_duration(spec, travel: float, gain: float = 1.0) -> float:
    """Seconds a motor takes to turn a pot ``travel`` full scale from the centre, no backlash to take up.

    The machine's own law (:func:`plan_pot`): a ratchet gives ``rint(travel / step)`` steps.

    Parameters
    ----------
    spec : RackSpec
    travel : float
        Commanded travel (full scale).
    gain : float
        The motor's speed relative to nominal.

    Returns
    -------
    float
        Seconds (0 for an instant drive).

    Examples
    --------
    >>> from mark1.specs import RackSpec
    >>> move_duration(RackSpec(), 0.02)               # 0.02 full scale at 0.25 full scale per second
    0.08
    >>> round(move_duration(RackSpec(drive="ratchet"), 0.024), 6)   # 2 steps of 0.04 s, not 3
    0.08
    """
    direction = 1 if travel > 0 else -1
    one = Pots(np.array([float(gain)]), np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1),
               np.array([direction], np.int8))
    return float(plan_pot(float(travel), 0.0, 0, one, drive_of(spec))[2])


@compiled(inline="always")
def stored_pot(j, t, busy_until, pots):
    """Stored position (before decay) of pot ``j`` (flat index) at machine time ``t``.

    Where no wiper moves any more (``t >= busy_until``) the end of the last move; else
    linear between ``p_from`` and ``p_to`` over the wiper's motion, which a move without
    span (a ratchet step) makes at its end.
    """
    if t >= busy_until:
        return pots.p_to[j]
    span = pots.t_end[j] - pots.t_start[j]
    if span > 0.0:
        frac = (t - pots.t_start[j]) / span
    else:
        frac = 1.0 if t >= pots.t_end[j] else 0.0
    frac = min(max(frac, 0.0), 1.0)
    return pots.p_from[j] + (pots.p_to[j] - pots.p_from[j]) * frac


@compiled
def stored_at(flat, t, busy_until, pots, out):
    """Stored positions of pots ``flat`` (m,) at ``t`` into ``out`` (m,)."""
    for k in range(len(flat)):
        out[k] = stored_pot(flat[k], t, busy_until, pots)


@compiled
def wiper_sums(x, row, t, busy_until, pots, active, out):
    """Each unit's sum of stored wiper positions at ``t`` times row ``row`` of ``x`` (m, n_in),
    into ``out`` (n_units,), before decay; the nonzero inputs' indices into ``active``;
    returns how many. The products are added in input order over the nonzero inputs,
    the units side by side, as :func:`mark1.machine.perceptron.sparse_sums` adds resting wipers.
    """
    n_in = x.shape[1]
    n_act = 0
    for i in range(n_in):
        active[n_act] = i
        n_act += x[row, i] != 0.0
    out[:] = 0.0
    for a in range(n_act):
        i = active[a]
        v = x[row, i]
        for u in range(len(out)):
            out[u] += v * stored_pot(u * n_in + i, t, busy_until, pots)
    return n_act


@compiled(inline="always")
def plan_pot(cmd, start, j, pots, drive):
    """What the hardware does with pot ``j``'s command: (target, slack_time, duration, direction).

    ``cmd`` commanded travel (full scale, signed), ``start`` the wiper's true position,
    ``j`` the pot's flat index into ``pots`` (:class:`Pots`: its motor's relative speed, the
    direction of its last move), ``drive`` the rack's :class:`Drive`. Every law of one pot
    reads what it needs from these two records, so a new law changes no caller.
    Times in seconds from the command; ``direction`` -1, 0 or +1.
    """
    gain = pots.gain[j]
    last = pots.last_dir[j]
    direction = 1 if cmd > 0 else (-1 if cmd < 0 else 0)
    if drive.continuous != 0.0:
        travel = gain * abs(cmd)                        # the pulse lasts |cmd| / motor_speed
        rate = drive.motor_speed * gain
        instant = math.isinf(drive.motor_speed)
    else:
        travel = np.rint(abs(cmd) / drive.step) * drive.step
        instant = drive.step_time == 0
        rate = drive.step / drive.step_time if not instant else math.inf
    slack = 0.0
    if drive.backlash != 0.0 and last != 0 and last != direction:
        slack = min(drive.backlash, travel)
    if drive.continuous == 0.0 and not travel > 0:
        direction = 0          # a ratchet command below half a step turns nothing
    target = start + direction * (travel - slack)
    if drive.end_stops != 0.0:
        target = min(max(target, -1.0), 1.0)
    # a pot already against its stop in the driven direction does not move at all
    if instant:
        return target, 0.0, 0.0, direction
    return target, slack / rate, (slack + abs(target - start)) / rate, direction


@compiled
def plan_moves(cmd, start, flat, pots, drive, target, slack_time, duration, direction):
    """:func:`plan_pot` of pots ``flat`` (m,) commanded ``cmd`` (m,) from true positions
    ``start`` (m,), into ``target``, ``slack_time``, ``duration``, ``direction`` (m,)."""
    for k in range(len(cmd)):
        j = flat[k]
        target[k], slack_time[k], duration[k], direction[k] = plan_pot(cmd[k], start[k], j, pots, drive)


@compiled(inline="always")
def apply_pot(j, start, target, slack_time, duration, direction, t0, f, pots):
    """Set pot ``j`` (flat index) moving at ``t0``; positions true at ``t0``, ``f`` the decay factor there."""
    pots.p_from[j] = start / f
    pots.p_to[j] = target / f
    pots.t_start[j] = t0 + slack_time
    pots.t_end[j] = t0 + duration
    if direction != 0:                      # a ratchet command too small to step keeps the gears' side
        pots.last_dir[j] = direction


@compiled
def apply_moves(flat, start, target, slack_time, duration, direction, t0, f, pots, busy_until):
    """:func:`apply_pot` of pots ``flat`` (m,) at ``t0``; returns the new ``busy_until``."""
    longest = -1.0
    for k in range(len(flat)):
        apply_pot(flat[k], start[k], target[k], slack_time[k], duration[k], direction[k], t0, f, pots)
        longest = max(longest, duration[k])
    if len(flat):
        busy_until = max(busy_until, t0 + longest)
    return busy_until
