"""The presentation kernel: one card's step as the machine does it, compiled, over named state.

The step of one card (the body of :func:`train_block`: :func:`read_card`, then :func:`act`)
is the R-units' read (mid-move where wipers still move), the rule's decision, the pots'
plans (at once, or queued for a driver), decay and the clock. :func:`train_block` runs it
card after card over a block of sensed presentations;
:func:`serve` hands queued moves their drivers, first come, first served (a read at ``t``
sees every move that got its driver before ``t``); the rack's own SimPy process
(:meth:`PotentiometerRack.drive`) serves its queue with it too.
No SimPy here: the simulator (:mod:`mark1.machine.simulator`) drives these.

The state travels as named records: :class:`~mark1.machine._kernels.pots.Pots` (the rack's
arrays), :class:`~mark1.machine._kernels.pots.Drive` (its constants), :class:`Queue` (the
driver queue), :class:`Trainer` (the rule and code), :class:`Schedule` (the clock),
:class:`Decay` and :class:`Block` (a block's inputs and outputs).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from mark1._utils.compiled import compiled
from mark1.machine import rules
from mark1.machine._kernels import pots as _pots
from mark1.machine._kernels.pots import apply_pot, diffuse_pots, plan_pot, stored_pot, wiper_sums
from mark1.machine._kernels import features
from mark1.machine.rules import BETA, GAMMA, unit_step

__all__ = ["BLOCK_END", "CODE_KINDS", "PENDING", "ROOM", "WAITS", "Block", "Decay", "Moves", "Queue", "Schedule",
           "Trainer", "act_on", "serve", "train_block"]

#: How a run of the compiled loop ended: the end of its block, a card that waits for the
#: motors, a full driver queue (the caller makes room), a reinforcement left to the caller.
BLOCK_END, WAITS, ROOM, PENDING = 0, 1, 2, 3

#: The output codes whose answers the kernel reads itself (:func:`answer`).
CODE_KINDS = {"single": 0, "one-per-class": 1}

#: What the step's code may meet, each ``True`` here: moves may wait for drivers (``QUEUED``:
#: ``Schedule.queued``) and may be kept in a :class:`Moves` log of nonzero length (``LOG``). A
#: run that meets neither calls a variant of the step made with them ``False``
#: (:func:`mark1.machine._kernels.state.run_kernels`): numba drops the branches they guard
#: before typing them, so a cold start compiles only the code the run uses.
QUEUED = True
LOG = True


class Queue(NamedTuple):
    """The driver queue: pot (flat index), travel, time and presentation (``who``) of each
    command not yet set going, first come first served between ``ends[0]`` (head) and
    ``ends[1]`` (tail), and when each driver is free (``free``, (drivers,) s: a binary
    min-heap, ``free[0]`` the first free; which driver is which does not matter)."""

    pot: np.ndarray
    cmd: np.ndarray
    time: np.ndarray
    who: np.ndarray
    ends: np.ndarray
    free: np.ndarray


class Moves(NamedTuple):
    """The pot moves set going during one call of the kernel, in the order they were set
    going, for a full trace: ``filled[0]`` of them, each with the presentation that commanded
    it (``who``), the time it was set going (s), its pot (flat index), its command, true
    start and target (full scale), slack and whole duration (s) and direction. Arrays of
    length 0 keep nothing (no trace). A log that is full stops the kernel before a card
    whose moves it has no room for (:data:`ROOM`): the caller takes the moves kept, empties
    ``filled`` (or gives more room) and runs that card again.

    ``wipers`` (nonzero length where the rack diffuses, so that no read can be rebuilt from
    the moves after) keeps each card's read as it is read: ``wipers_filled[0]`` numbers, card
    after card, for each of the card's active inputs in order the true wiper position (full
    scale, without read noise) of its pot on each unit, 0 where the pot does not exist
    (:func:`keep_wipers`). A card whose read finds no room for every pot's stops the kernel
    before it (:data:`ROOM`), as a full log of moves does.
    """

    who: np.ndarray
    time: np.ndarray
    pot: np.ndarray
    cmd: np.ndarray
    start: np.ndarray
    target: np.ndarray
    slack_time: np.ndarray
    duration: np.ndarray
    direction: np.ndarray
    filled: np.ndarray
    wipers: np.ndarray = np.zeros(0)
    wipers_filled: np.ndarray = np.zeros(1, np.int64)     # written only with room in wipers


class Trainer(NamedTuple):
    """The trainer's constants: the rule (code from :data:`mark1.machine.rules.RULE_CODES`),
    its increment and LMS rate, the tie tolerance; whether it acts only where a unit erred,
    on every card, monovalently; the μ-system's mean; spontaneous reinforcement and the code
    it decodes (:data:`CODE_KINDS`, -1 none); whether to stop before each reinforcement."""

    rule: int
    increment: float
    lms_rate: float
    tie: float
    error_driven: bool
    every: bool
    monovalent: bool
    mean: bool
    spontaneous: bool
    code_kind: int
    stop_to_reinforce: bool


class Schedule(NamedTuple):
    """The clock: card ``p`` changes at ``t_anchor + (p - p_anchor) * period``; the read is
    ``read_at`` s later; with ``overlap`` the next card does not wait for the motors;
    ``queued`` when moves wait for drivers."""

    t_anchor: float
    p_anchor: int
    period: float
    read_at: float
    overlap: bool
    queued: bool


class Decay(NamedTuple):
    """Wiper decay: ``rate`` 1/s (0: none) and ``decay_time`` s."""

    rate: float
    decay_time: float


class Block(NamedTuple):
    """A block's inputs and outputs, one row per presentation from ``p_first``.

    ``x`` (m, n_in) A-unit outputs with the bias last; ``kick`` (m, n_units) read noise,
    scaled; ``targets`` (m, n_units); ``divisor`` (m, n_units) the μ-system's active inputs;
    ``code_targets`` (k, n_units) every class's targets (the pots that exist are the rack's
    wiring, :attr:`~mark1.machine._kernels.pots.Pots.by_unit`). Outputs: ``sums``
    (m, n_units), ``units_erred``, ``pots_moved``, ``start``, ``response`` (m,); scratch:
    ``active`` (n_in,) int64 (the last card read's active inputs), ``acc`` (n_units,) (a
    card's sums before decay and noise) and ``steps`` (2, n_units) (the rule's command, see
    :func:`command_pots`): made by the caller, so the kernels allocate nothing and run
    without reference counts. ``p_first`` the first row's presentation.
    """

    p_first: int

    x: np.ndarray
    kick: np.ndarray
    targets: np.ndarray
    divisor: np.ndarray
    code_targets: np.ndarray
    sums: np.ndarray
    units_erred: np.ndarray
    pots_moved: np.ndarray
    start: np.ndarray
    response: np.ndarray
    active: np.ndarray
    acc: np.ndarray
    steps: np.ndarray


_kernel = compiled(rules, _pots, features, nogil=True)    # the next block is sensed beside it (simulator)
_inline = compiled(rules, _pots, features, inline="always")
# the kernels that take the records once a card and allocate nothing: no reference counts
# (see mark1._utils.compiled.compiled): a count of each of the records' arrays in and out
# cost ~1 us a call, and ~0.1-0.4 us a pot in the loops that set pots going
_uncounted = compiled(rules, _pots, features, refcounts=False)


@_inline
def decay(t, t_ref, rate):
    """How much every wiper has shrunk by decay from ``t_ref`` to ``t`` (rate 1/s; 0: none)."""
    return math.exp(-(t - t_ref) * rate) if rate != 0.0 else 1.0


@_inline
def answer(sums, kind, tie):
    """The class the machine answers for one row of sums: :meth:`OutputCode.decode` of a
    ``single`` (``kind`` 0) or ``one-per-class`` (1) code, the same comparisons, compiled."""
    if kind == 0:
        return 1 if sums[0] > tie else 0
    best = sums[0]
    for u in range(1, len(sums)):
        best = max(best, sums[u])
    for u in range(len(sums)):
        if sums[u] >= best - tie:
            return u
    return 0


@_inline
def fold_decay(t, t_ref, dk, pots):
    """Fold the decay into the stored positions where over 100 decay times went by since
    ``t_ref`` (what :meth:`PotentiometerRack.plan` does first); returns the new ``t_ref``."""
    if dk.rate != 0.0 and t - t_ref > 100.0 * dk.decay_time:
        fr = decay(t, t_ref, dk.rate)
        if fr != 1.0:
            for j in range(len(pots.p_to)):
                pots.p_from[j] *= fr
                pots.p_to[j] *= fr
            return t
    return t_ref


@_inline
def log_room(log, n):
    """Whether ``log`` (a :class:`Moves`) keeps nothing or has room for ``n`` more moves."""
    return len(log.pot) == 0 or len(log.pot) - log.filled[0] >= n


@_inline
def record(log, p, t, j, cmd, start, target, slack_time, duration, direction):
    """Keep one move set going in ``log`` (a :class:`Moves`; none kept when it has no room)."""
    filled, who, time, pot, command = log.filled, log.who, log.time, log.pot, log.cmd
    begin, end, slack, whole, way = log.start, log.target, log.slack_time, log.duration, log.direction
    n = filled[0]
    if n < len(pot):
        who[n], time[n], pot[n], command[n] = p, t, j, cmd
        begin[n], end[n], slack[n] = start, target, slack_time
        whole[n], way[n] = duration, direction
        filled[0] = n + 1


@_inline
def hold_driver(free, until):
    """The first free driver (``free[0]`` of the min-heap ``free``) is busy ``until`` (s,
    not before it was free): a sift down, log2(drivers) steps, not a scan of every driver."""
    i, n = 0, len(free)
    while 2 * i + 1 < n:
        c = 2 * i + 1
        if c + 1 < n and free[c + 1] < free[c]:
            c += 1
        if free[c] >= until:
            break
        free[i] = free[c]
        i = c
    free[i] = until


@_uncounted
def serve(limit, queue, busy_until, t_ref, dk, pots, drive, log):
    """Set going the queued pot moves that get a driver before ``limit`` (s; ``inf``: all of
    them), as the rack's SimPy queue does (:meth:`PotentiometerRack.drive`). To serve those
    at ``t`` too, pass ``np.nextafter(t, np.inf)``: a float, never a literal flag, so numba
    compiles this once for every caller (a bool passed as a literal compiled it once each).

    The queue is first come, first served: its head gets the first driver free (the
    heap's top: :func:`hold_driver`), at ``max(commanded, driver free)``; each move is
    planned from the wiper's position then (:func:`~mark1.machine._kernels.pots.plan_pot`)
    and holds its driver for its duration. ``queue`` a :class:`Queue` (its ``ends`` and
    ``free`` written); the moves set going are kept in ``log`` (a :class:`Moves`). Returns
    (busy_until, t_ref). A move costs its plan and log2(drivers) steps, however many drivers.
    """
    free = queue.free
    keep = len(log.pot) > 0
    head, tail = queue.ends[0], queue.ends[1]
    while head < tail:
        t = max(queue.time[head], free[0])
        if t >= limit and limit != np.inf:
            break
        t_ref = fold_decay(t, t_ref, dk, pots)
        j, cmd = queue.pot[head], queue.cmd[head]
        f = decay(t, t_ref, dk.rate)
        begin = stored_pot(j, t, busy_until, pots)
        if dk.rate != 0.0:
            begin = f * begin
        target, slack_time, duration, direction = plan_pot(cmd, begin, j, pots, drive)
        apply_pot(j, begin, target, slack_time, duration, direction, t, f, pots)
        if LOG and keep:
            record(log, queue.who[head], t, j, cmd, begin, target, slack_time, duration, direction)
        busy_until = max(busy_until, t + duration)
        hold_driver(free, t + duration)
        head += 1
    if head == tail:                     # the queue ran dry: its room starts over
        head = tail = 0
    ends = queue.ends
    ends[0], ends[1] = head, tail
    return busy_until, t_ref


@_inline
def read_card(k, t_read, busy_until, t_ref, dk, pots, blk, tr, acc):
    """Presentation ``k`` of the block read at ``t_read``: its sums (wipers at rest or
    mid-move, decayed, plus noise, over the μ-system's divisor), its answer; returns the
    units that erred."""
    f = decay(t_read, t_ref, dk.rate)
    wiper_sums(blk.x, k, t_read, busy_until, pots, blk.active, acc, blk.p_first + k)
    erred = 0
    sums = blk.sums
    for u in range(sums.shape[1]):
        sums[k, u] = acc[u] * f + blk.kick[k, u]
        if tr.mean:
            sums[k, u] = sums[k, u] / blk.divisor[k, u]
        sums[k, u] = _pots.read_out(sums[k, u], pots.adc)           # the R-unit's read: bound, resolution
        if blk.targets[k, u] * sums[k, u] <= tr.tie:
            erred += 1
    if tr.code_kind >= 0:
        blk.response[k] = answer(sums[k], tr.code_kind, tr.tie)
    return erred


@_inline
def keep_wipers(k, t_read, busy_until, t_ref, dk, pots, blk, log):
    """Keep presentation ``k``'s read in ``log.wipers`` (a :class:`Moves`): for each active
    input of the card, in order, the true position of its pot on each unit at ``t_read``
    (decayed, without read noise; 0 where the pot does not exist), after those kept before."""
    f = decay(t_read, t_ref, dk.rate)
    x, active, wipers, filled = blk.x, blk.active, log.wipers, log.wipers_filled
    n_in, n_units = x.shape[1], blk.sums.shape[1]
    n_act = features.nonzero_features(x, k, active)
    at = filled[0]
    by_input, unit_of = pots.by_input, pots.unit_of
    for a in range(n_act):
        i = active[a]
        base = at + a * n_units
        for u in range(n_units):
            wipers[base + u] = 0.0
        for q in range(by_input[i], by_input[i + 1]):
            wipers[base + unit_of[q]] = f * stored_pot(unit_of[q] * n_in + i, t_read, busy_until, pots)
    filled[0] = at + n_act * n_units


@_inline
def command_pots(k, blk, tr, pots, steps):
    """The rule's command for presentation ``k``: each unit's step and back
    (:func:`~mark1.machine.rules.unit_step`, the arithmetic of
    :func:`~mark1.machine.rules.command_into`) into ``steps`` (2, n_units); returns how
    many pots it moves. Only the pots that exist are looked at (``pots.by_unit``); an input
    is active where ``blk.x[k] > 0``."""
    x, by_unit, input_of = blk.x, pots.by_unit, pots.input_of
    aim = blk.code_targets[blk.response[k]] if tr.spontaneous else blk.targets[k]
    counts = tr.rule == GAMMA or tr.rule == BETA        # the rules that read the active pots' count
    moving = 0
    for u in range(steps.shape[1]):
        n_wired = by_unit[u + 1] - by_unit[u]
        n_on = active_pots(k, u, x, by_unit, input_of) if counts else 0
        step, back = unit_step(tr.rule, tr.every, tr.monovalent, aim[u], blk.sums[k, u], n_on, n_wired - n_on,
                               tr.increment, tr.lms_rate, tr.tie)
        steps[0, u], steps[1, u] = step, back
        if step != 0.0:
            moving += n_on if counts else active_pots(k, u, x, by_unit, input_of)
            if tr.rule == GAMMA and step * back != 0.0:
                moving += n_wired - n_on
    return moving


@_inline
def active_pots(k, u, x, by_unit, input_of):
    """How many of unit ``u``'s pots are on inputs active at presentation ``k`` (``x[k] > 0``)."""
    n_on = 0
    for q in range(by_unit[u], by_unit[u + 1]):
        n_on += x[k, input_of[q]] > 0
    return n_on


@_inline
def travel(k, i, u, steps, x):
    """The travel presentation ``k`` commands of unit ``u``'s pot on input ``i``: the unit's
    step where the input is active (``x[k, i] > 0``), else step * back (γ; 0 otherwise)."""
    return steps[0, u] if x[k, i] > 0 else steps[0, u] * steps[1, u]


@_inline
def queue_command(k, t_read, steps, blk, pots, queue):
    """Put presentation ``k``'s commanded pots (``steps``, :func:`command_pots`) at the
    queue's tail, unit by unit in input order (the pots' flat order, the order the queue
    serves them): a unit's active pots by its step, under γ its inactive ones by step * back."""
    x, by_unit, input_of = blk.x, pots.by_unit, pots.input_of
    n_in, p = x.shape[1], blk.p_first + k
    pot, cmd, time, who, ends = queue.pot, queue.cmd, queue.time, queue.who, queue.ends
    tail = ends[1]
    for u in range(steps.shape[1]):
        for q in range(by_unit[u], by_unit[u + 1] if steps[0, u] != 0.0 else by_unit[u]):
            v = travel(k, input_of[q], u, steps, x)
            if v != 0.0:
                pot[tail], cmd[tail], time[tail], who[tail] = u * n_in + input_of[q], v, t_read, p
                tail += 1
    ends[1] = tail


@_inline
def move_now(k, t_read, steps, busy_until, t_ref, blk, dk, pots, drive, log):
    """Set every pot presentation ``k`` commanded (``steps``, :func:`command_pots`) going at
    ``t_read`` (no driver limit), in the order :func:`queue_command` queues them, each
    planned from its true position then (:func:`~mark1.machine._kernels.pots.plan_pot`),
    as :func:`serve` does with a queued one; returns ``busy_until``."""
    x, by_unit, input_of = blk.x, pots.by_unit, pots.input_of
    n_in, p = x.shape[1], blk.p_first + k
    f = decay(t_read, t_ref, dk.rate)
    longest = -1.0
    keep = len(log.pot) > 0
    for u in range(steps.shape[1]):
        for q in range(by_unit[u], by_unit[u + 1] if steps[0, u] != 0.0 else by_unit[u]):
            cmd = travel(k, input_of[q], u, steps, x)
            if cmd != 0.0:
                j = u * n_in + input_of[q]
                begin = f * stored_pot(j, t_read, busy_until, pots)     # f is 1.0 without decay: the same bits
                target, slack_time, duration, direction = plan_pot(cmd, begin, j, pots, drive)
                apply_pot(j, begin, target, slack_time, duration, direction, t_read, f, pots)
                if LOG and keep:
                    record(log, p, t_read, j, cmd, begin, target, slack_time, duration, direction)
                longest = max(longest, duration)
    return max(busy_until, t_read + longest)


#: :func:`act`'s word that the block goes on
GO_ON = -1


@_uncounted    # not inlined: train_block and act_on call one compiled copy (a cold start compiles it once)
def act(k, busy_until, t_ref, blk, tr, sc, dk, pots, drive, queue, log, steps):
    """The trainer's turn at presentation ``k`` of the block, read (its sums in ``blk.sums``):
    the rule's command (:func:`command_pots`, each unit's into ``steps`` (2, n_units)),
    the moves at once (:func:`move_now`) or queued for a driver (:func:`queue_command`;
    without overlap the trainer waits for all of them: :func:`serve`). Returns (status,
    busy_until, t_ref): :data:`ROOM` (a queue or a log too short for the command: nothing changed),
    :data:`WAITS` (the motors outlast the period: the next card waits) or :data:`GO_ON`."""
    t_read = blk.start[k] + sc.read_at
    moving = command_pots(k, blk, tr, pots, steps)
    pots_moved = blk.pots_moved
    pots_moved[k] = moving
    if moving == 0:
        return GO_ON, busy_until, t_ref
    if QUEUED and sc.queued and len(queue.pot) - queue.ends[1] < moving:
        return ROOM, busy_until, t_ref
    if LOG and not log_room(log, moving + (queue.ends[1] - queue.ends[0] if sc.queued else 0)):
        return ROOM, busy_until, t_ref
    t_ref = fold_decay(t_read, t_ref, dk, pots)
    if QUEUED and sc.queued:
        queue_command(k, t_read, steps, blk, pots, queue)
        if not sc.overlap:                              # the trainer waits for every motor
            busy_until, t_ref = serve(np.inf, queue, busy_until, t_ref, dk, pots, drive, log)
    else:
        busy_until = move_now(k, t_read, steps, busy_until, t_ref, blk, dk, pots, drive, log)
    if not sc.overlap and busy_until > blk.start[k] + sc.period:
        return WAITS, busy_until, t_ref
    return GO_ON, busy_until, t_ref


@_kernel
def act_on(k, busy_until, t_ref, blk, tr, sc, dk, pots, drive, queue, log):
    """:func:`act` on presentation ``k`` of a block the loop read and left to the caller
    (:data:`PENDING`): the same step, called from the simulator after it logged the read.
    The queue must have room for the command. Returns (status, busy_until, t_ref)."""
    status, busy_until, t_ref = act(k, busy_until, t_ref, blk, tr, sc, dk, pots, drive, queue, log, blk.steps)
    if status != ROOM:                  # the presentation is over: its diffusion (a device's)
        t_read = blk.start[k] + sc.read_at
        diffuse_pots(blk.p_first + k, t_read, busy_until, decay(t_read, t_ref, dk.rate), pots, drive)
    return status, busy_until, t_ref


# inlined into its compiled caller (state.step, which runs every block of a run whose records
# are held): cold, its loop is compiled once there, not on its own and again inside step's module
@compiled(rules, _pots, features, nogil=True, inline="always")
def train_block(blk, tr, sc, busy_until, t_ref, dk, pots, drive, queue, log):
    """Run a block of presentations, card after card, in one compiled loop.

    Each card: it changes on the closed-form clock (``sc``, a :class:`Schedule`); queued pot
    moves that get a driver before the read are set going (:func:`serve`); the sums are read
    (:func:`read_card`); where the trainer acts, :func:`act` makes its turn. Without overlap,
    stops after a reinforcement whose motors outlast the period (the next card waits: the
    caller shifts the clock and re-times the photocells). The simulator's SimPy process
    calls this for whole blocks, or one card at a time where someone watches each card.

    ``blk`` a :class:`Block`; ``tr`` a :class:`Trainer`; ``pots``, ``queue`` written in
    place (the queue with room for a command of every pot: the loop stops at a command that
    does not fit, before it changes anything); the moves set going kept in ``log`` (a
    :class:`Moves`; the loop stops where it has no room for a card's moves, likewise).
    Returns (presentations run, busy_until, t_ref, how it ended: :data:`BLOCK_END`,
    :data:`WAITS` (the next card waits), :data:`ROOM` or :data:`PENDING` (the last one is
    read, not reinforced: ``tr.stop_to_reinforce``; :func:`act_on` does it)).
    """
    m = blk.x.shape[0]
    acc, steps = blk.acc, blk.steps         # the caller's scratch: nothing allocated here
    for k in range(m):
        t0 = sc.t_anchor + (blk.p_first + k - sc.p_anchor) * sc.period
        blk.start[k] = t0
        t_read = t0 + sc.read_at
        keeps = LOG and len(log.wipers) > 0       # every read kept as it is read (the rack diffuses)
        if keeps and len(log.wipers) - log.wipers_filled[0] < len(pots.p_to):
            return k, busy_until, t_ref, ROOM
        if QUEUED and sc.queued and queue.ends[0] < queue.ends[1]:
            if not log_room(log, queue.ends[1] - queue.ends[0]):
                return k, busy_until, t_ref, ROOM
            busy_until, t_ref = serve(t_read, queue, busy_until, t_ref, dk, pots, drive, log)
        erred = read_card(k, t_read, busy_until, t_ref, dk, pots, blk, tr, acc)
        kept = log.wipers_filled[0] if keeps else 0
        if keeps:
            keep_wipers(k, t_read, busy_until, t_ref, dk, pots, blk, log)
        if tr.error_driven and erred == 0:
            diffuse_pots(blk.p_first + k, t_read, busy_until, decay(t_read, t_ref, dk.rate), pots, drive)
            continue
        blk.units_erred[k] = erred
        if tr.stop_to_reinforce:
            return k, busy_until, t_ref, PENDING
        status, busy_until, t_ref = act(k, busy_until, t_ref, blk, tr, sc, dk, pots, drive, queue, log, steps)
        if status == ROOM:
            # the caller makes room in the queue or log and runs this presentation again (nothing
            # of it has changed the machine yet: its read is the same, kept again then)
            if keeps:
                log.wipers_filled[0] = kept
            return k, busy_until, t_ref, ROOM
        # a device's diffusion, once the presentation is over (a pot's own stream: the
        # card's moves are set going or queued, so where they are does not change the draws)
        diffuse_pots(blk.p_first + k, t_read, busy_until, decay(t_read, t_ref, dk.rate), pots, drive)
        if status == WAITS:
            return k + 1, busy_until, t_ref, WAITS
    return m, busy_until, t_ref, BLOCK_END
