"""The discrete-event simulation of a training run (SimPy). Machine time lives here only.

One presentation, as the machine does it::

    t0                  card change: lamps off, the next card is put in the gate
    t0 + card_change    lamps on; the photocells start to respond
    + settle            S-units sampled
    + a_delay           A-units settle
    + r_delay           R-units settle; the trainer compares lamps and label
                        and sends pulses to the motors
    t0 + period         next card (waiting first for the motors, unless overlap is on)

Only the instants where the simulation must act are SimPy events. The clock is closed
form (card ``p`` changes at ``t_anchor + (p - p_anchor) * period``; the anchor moves
when a card waits for the motors), and so are motor moves
(:func:`mark1.machine._kernels.pots.plan_pot`) and a wiper's position during one
(:func:`mark1.machine._kernels.pots.stored_pot`). The step of one card (read, rule, moves,
driver queue, decay, clock) is written once, compiled, in
:mod:`mark1.machine._kernels.presentation`; the SimPy process here drives it
(``train_block``): a whole block of presentations per call and one SimPy timeout, up to
the end of the sensed block or a card that waits for the motors, where nobody watches; one
card per call where someone does (an ``on_event`` listener in the caller's own SimPy
environment, real-time replay, a full trace with overlap or drivers, or
``_speed.COMPILED_LOOP = False``), SimPy's clock brought to each event first. A listener
in the run's own environment, whose clock nobody else sees, hears the same events in the
same order as each block is run. A full trace nobody watches, where every wiper is at rest at each read
(no overlap, no drivers, no decay or drift), runs whole blocks too: the kernel keeps the
moves it sets going in a log (``Moves``, stopping at ``ROOM`` when it is full) and the
block's events, moves and readings are written after the call. Otherwise, with a full trace,
the kernel stops before each reinforcement so that the read is logged before the wipers move,
and ``act_on`` makes the rest of the same step, its moves coming back in the log. Both ways
give the same history, wipers and machine time by construction
(tests/test_compiled_timing.py checks it). Card change, lamps on, S and A settling and the
end of the period are logged in the trace at their computed times. Photocell responses
between events are closed form (:meth:`Retina.expose`), computed for blocks of upcoming
cards at once and recomputed only when a wait for the motors shifts the schedule.

The order of one instant is the kernel's (``serve``): a read at time ``t`` sees every
queued move that got its driver before ``t`` and none that gets it at ``t``; the moves a
reinforcement commands join the queue behind the moves already waiting; a move is planned
from the wiper's position when it gets its driver. In the trace, a motors' event at the
instant of a card's event comes first.
"""

from __future__ import annotations

import csv
import heapq
import io
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from itertools import chain, repeat, starmap
from typing import NamedTuple, Protocol, cast

import numpy as np
import simpy
import simpy.rt

from mark1._utils.atomic import atomic_path
from mark1._utils.collector import collector_paused
from mark1.machine._kernels import presentation as kernel
from mark1.machine._kernels import state as kernel_state
from mark1.machine._kernels.presentation import BLOCK_END, CODE_KINDS, PENDING, WAITS
from mark1.machine._record import Kept
from mark1.machine.patchboard import Patchboard
from mark1.machine.potentiometers import PotentiometerRack
from mark1._utils import speed as _speed
from mark1._utils.speed import Direct as _Direct
from mark1.machine.retina import Retina, RetinaState
from mark1.machine.rules import RULE_CODES
from mark1.specs import MachineSpec
from mark1.exceptions import InputError

__all__ = ["Trace", "HISTORY_DTYPE"]

# How far ahead the sensing and the compiled loop look adapts to the running gap between
# the presentations where they must stop (a wait for the motors, a reinforcement): an
# exponential average with this weight on the newest gap, never below _MIN_REACH
# presentations. Only speed depends on them, never a result.
_GAP_WEIGHT = 0.3
_MIN_REACH = 8.0
# the next block is sensed in a second thread once the look-ahead holds this many
# presentations (with waits more often than that it would be discarded, and a hand-off costs ~25 us)
_AHEAD_FROM = 64
# moves a whole traced block keeps before the kernel stops it (ROOM) to have them written
_WHOLE_LOG = 1 << 15

HISTORY_DTYPE = np.dtype([
    ("presentation", np.int64), ("epoch", np.int32), ("card", np.int64), ("label", np.int64),
    ("response", np.int64), ("correct", np.bool_), ("units_erred", np.int16),
    ("pots_moved", np.int32), ("start", np.float64), ("s_active", np.int16), ("a_active", np.int16),
])
"""One row per presentation. ``label`` and ``response`` are class indices into
``classes_``; ``start`` is the machine time (s) of the card change."""


class Reading(NamedTuple):
    """What the trainer read at one presentation, as a full :class:`Trace` keeps it.

    Attributes
    ----------
    time : float
        Machine time of the read (s), that of the trace's "R read" event.
    s_units : array (k,) int
        The S-units that fired (row-major indices into the retina).
    a_units : array (j,) int
        The A-units that fired.
    wipers : array (n_units, j + 1) float
        True wiper positions (full scale) at ``time`` of the pots that make each R-unit's
        sum: those of ``a_units``, then the bias pot. A pot the topology does not have
        reads 0 (``rack_.mask`` says which exist). Without read noise, each row times
        the rack's mask adds up to the sum the trainer read (with
        ``response.discrimination = "mean"``, that sum over the unit's active pots).
        Under ``rack.diffusion`` each read is kept as it is read (its steps are not among
        the moves, so no past read could be rebuilt from them).
    """

    time: float
    s_units: np.ndarray
    a_units: np.ndarray
    wipers: np.ndarray


class Move(NamedTuple):
    """Pots the rack set going at one instant, as a full :class:`Trace` keeps them.

    All arrays have one entry per pot (``m``); positions in full scale, times in seconds.

    Attributes
    ----------
    presentation : int
        The presentation whose reinforcement commanded the move.
    time : float
        Machine time the motors were set going (later than the command when the pot
        waited for a driver).
    unit, a_unit : arrays (m,) int
        R-unit and A-unit of each pot (``a_unit`` is ``n_a`` for the bias pot).
    command : array (m,)
        Travel commanded (signed).
    start, target : arrays (m,)
        True wiper positions when set going and when the move ends.
    slack_time, duration : arrays (m,)
        Seconds spent taking up backlash, and the whole move's.
    direction : array (m,) int8
        -1, 0 or +1.
    """

    presentation: int
    time: float
    unit: np.ndarray
    a_unit: np.ndarray
    command: np.ndarray
    start: np.ndarray
    target: np.ndarray
    slack_time: np.ndarray
    duration: np.ndarray
    direction: np.ndarray


class Trace:
    """The event log of a training run, and with ``full`` the machine's own record of it.

    Parameters
    ----------
    level : {"off", "summary", "full"}
        ``off`` keeps nothing; ``summary`` keeps counts per event kind (computed at the
        end, free during the run); ``full`` keeps every event, and every reading and move.
    listener : callable, optional
        Called as ``listener(time, event, presentation, detail)`` for every event logged.

    Attributes
    ----------
    events : sequence of (time, event, presentation, detail)
        Machine time (s), the event's name, the presentation (from 0) and words. It
        reads as a list does (as ``readings`` does); a block of presentations run at once
        keeps its events as its arrays, made into tuples when first read (with a listener,
        the listener hears each as the block is written).
    summary : dict
        With ``summary``: counts and times of the run, by name.
    readings : sequence of Reading
        With ``full``: one per presentation (index = presentation), what the trainer read.
        It reads as a list does (an index, a slice, ``len``, iteration, ``==``); a block
        of presentations run at once keeps its readings as its arrays, made into
        :class:`Reading` objects when first read.
    moves : sequence of Move
        With ``full``: every set of pots the rack set going, in order (kept as the
        readings are).

    Examples
    --------
    Four cards, a black bar down or across, twice through on the small machine:

    >>> import numpy as np
    >>> from mark1.machine.mark_i import MarkI
    >>> from mark1.specs import SMALL
    >>> cards, labels = np.ones((4, 20, 20)), ["down", "across"] * 2
    >>> cards[0, :, 4:7] = cards[2, :, 12:15] = cards[1, 5:8, :] = cards[3, 13:16, :] = 0.0
    >>> m = MarkI(spec=SMALL, seed=0, trace="full").fit(cards, labels, epochs=2)
    >>> m.trace_.events[0]
    (0.0, 'card change', 0, 'card 0, lamps off')
    >>> r = m.trace_.readings[0]                 # what the trainer read at the first card
    >>> r.time, len(r.a_units) == int(m.history_["a_active"][0]), r.wipers.shape == (1, len(r.a_units) + 1)
    (0.51, True, True)
    >>> first = m.trace_.moves[0]                # the first pots the rack set going
    >>> first.presentation, [e for t, e, p, d in m.trace_ if p == 7][-3:]
    (7, ['reinforce', 'motors start', 'motors stop'])
    >>> first.time, first.command[:2], first.duration[:2]   # 0.02 full scale at 0.25 full scale/s
    (7.51, array([-0.02, -0.02]), array([0.08, 0.08]))
    """

    LEVELS = ("off", "summary", "full")

    def __init__(self, level: str = "summary",
                 listener: Callable[[float, str, int, str], object] | None = None) -> None:
        if level not in self.LEVELS:
            raise InputError(f"trace: expected one of {', '.join(self.LEVELS)}, got {level!r}")
        self.level = level
        self.listener = listener
        self.events: Kept = Kept()
        self.summary: dict[str, float] = {}
        self.readings: Kept = Kept()
        self.moves: Kept = Kept()

    @property
    def full(self) -> bool:
        """Whether every event, reading and move is kept."""
        return self.level == "full"

    def log(self, time: float, event: str, presentation: int, detail: str = "") -> None:
        """Keep one event (and tell the listener).

        Parameters
        ----------
        time : float
            Machine time (s).
        event : str
        presentation : int
            From 0.
        detail : str
        """
        self.events.append((float(time), event, int(presentation), detail))
        if self.listener is not None:
            self.listener(float(time), event, int(presentation), detail)

    def _keep_readings(self, times: np.ndarray, s: np.ndarray, x: np.ndarray, rack: PotentiometerRack,
                       kept: np.ndarray | None = None) -> None:
        """The next presentations' reads at ``times`` (m,): S-units ``s`` (m, n_s) bool,
        inputs ``x`` (m, n_a + 1) with the bias last, and the rack's wipers then (``kept``:
        as the kernel kept them at each read, :attr:`~mark1.machine._kernels.presentation.Moves.wipers`)."""
        s_units = np.nonzero(s)[1]
        s_ends = np.cumsum(np.count_nonzero(s, axis=1)).tolist()
        lit = x > 0
        pots = np.nonzero(lit)[1]                        # each row's lit A-units, then the bias
        counts = np.count_nonzero(lit, axis=1)
        x_ends = np.cumsum(counts).tolist()
        times = times.tolist()
        if kept is not None:                            # see Reading.wipers
            rows = _kept_rows(kept, counts, rack.p_to.shape[0])
        elif times and times[0] >= rack.busy_until and not rack.drifts:
            # every wiper at rest: one gather of the pots read, each read's columns decayed to its time
            wipers = rack.p_to[:, pots]
            if rack.rate:
                wipers = np.repeat([rack.decay_factor(t) for t in times], counts) * wipers
            rows = np.split(wipers, x_ends[:-1], axis=1)
        else:
            rows = [rack.positions(t, pots[x0:x1]) for t, x0, x1 in zip(times, [0] + x_ends[:-1], x_ends)]
        s0 = x0 = 0
        for t, s1, x1, w in zip(times, s_ends, x_ends, rows):
            self.readings.append(Reading(t, s_units[s0:s1], pots[x0:x1 - 1], w))
            s0, x0 = s1, x1

    def _log_many(self, events: list) -> None:
        """Keep events (time, event, presentation, detail), in order (and tell the listener)."""
        self.events.extend(events)
        if self.listener is not None:             # told in order once kept, the loop in C
            deque(starmap(self.listener, events), maxlen=0)

    def _keep_block(self, count: int, make: Callable[[], tuple[list, list, list, list]]) -> None:
        """Keep ``count`` events, in order, that ``make()`` makes as four columns (times,
        events, presentations, details): made now and told to the listener if there is one
        (from the columns: no tuple made for it), else made when the events are first read."""
        if self.listener is None:
            self.events.later(count, partial(_event_rows, make))
        else:
            columns = make()
            self.events.later(count, partial(list, zip(*columns)))
            deque(map(self.listener, *columns), maxlen=0)

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self):
        return iter(self.events)

    def to_array(self) -> np.ndarray:
        """The events as a structured array (time, event, presentation, detail)."""
        dt = np.dtype([("time", float), ("event", object), ("presentation", np.int64), ("detail", object)])
        return np.array(list(self.events), dtype=dt)

    def to_csv(self, path: str | os.PathLike | None = None) -> str | None:
        """Write the events as CSV (atomically), or return the text when ``path`` is None.

        Columns ``time_s`` (machine time in seconds, rounded to the microsecond, so that
        2 s reads ``2.000000``, not ``1.9999999999999998``), ``event``, ``presentation``
        (an array index: the first presentation is 0, as in ``history_``) and ``detail``.
        """
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["time_s", "event", "presentation", "detail"])
        for t, e, p, d in self.events:
            w.writerow([f"{t:.6f}", e, p, d])
        if path is None:
            return buf.getvalue()
        with atomic_path(path) as tmp:
            tmp.write_text(buf.getvalue())
        return None

    def __repr__(self) -> str:
        return f"Trace(level={self.level!r}, {len(self.events)} events)"


def _event_rows(make: Callable[[], tuple[list, list, list, list]]) -> list:
    """The events (time, event, presentation, detail) of the columns ``make()`` makes."""
    return list(zip(*make()))


class _DeckOfLight(Protocol):
    """A deck's light imaged as a run asks for it (``mark_i._DeckLight``)."""

    def take(self, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """An array of light and the rows of ``cards`` in it, those cards imaged."""


class _Sensed(NamedTuple):
    """One sensed block (:meth:`_SensoryPipeline._make`): presentations ``first`` to ``stop``
    lit ``lit`` (s) from ``state``; the S-units ``s``, the photocells after the last card
    ``end``, the rack's inputs ``x``, the S- and A-units that fire ``counts`` and each unit's
    active pots ``active`` (see :meth:`Patchboard.rack_inputs`)."""

    first: int
    stop: int
    state: RetinaState
    lit: np.ndarray
    s: np.ndarray
    end: RetinaState
    x: np.ndarray
    counts: np.ndarray
    active: np.ndarray


class _SensoryPipeline:
    """S-unit states and A-unit outputs of upcoming presentations, a block at a time.

    Everything up to φ does not depend on the weights, only on the timing, so it is
    computed for up to ``block`` presentations at once assuming the nominal schedule,
    and recomputed from a presentation whose lit time turned out longer (after which
    the look-ahead starts small and doubles while the schedule holds).

    Where the look-ahead reaches :data:`_AHEAD_FROM` presentations, the block after the
    current one is sensed ahead (:class:`~mark1._utils.speed.LookAhead`: in a second thread
    while the kernel trains on this one, the sensing's compiled loops and the kernel releasing
    the GIL, where :data:`~mark1._utils.speed.LOOK_AHEAD` is on and a second thread can run):
    the same function of the same inputs, so the same bits. A re-timing discards it; an
    exception in it is raised by the :meth:`ensure` that takes it; :meth:`close` ends the
    thread (the run calls it however it ends).

    Attributes
    ----------
    s_active, a_active : arrays (n_presentations,) int
        S-units and A-units that fired at each presentation (filled as blocks are made).
    s, x : arrays (block, n_s) bool, (block, n_a + 1) float
        The S-unit states and the A-unit outputs with the bias of presentations
        ``start`` to ``stop`` (the current block).
    """

    # set by _take: the current block's S-units and A-units
    s: np.ndarray
    x: np.ndarray
    noise_scale: np.ndarray | None

    def __init__(self, retina: Retina, patchboard: Patchboard, light: np.ndarray | _DeckOfLight,
                 order: np.ndarray, spec: MachineSpec, rack: PotentiometerRack, block: int = 512):
        self.retina, self.patchboard = retina, patchboard
        self.light, self.order = light, order
        t = spec.timing
        self.card_change, self.settle = t.card_change, t.settle
        self.nominal_lit = t.period - t.card_change
        self.noise = spec.rack.wiper_noise
        self.mean = spec.response.discrimination == "mean"
        self.divisor = np.ones((1, 1))
        self.rack = rack
        self.block = block
        # current look-ahead: small at first, so the second thread starts early; doubles while
        # the schedule holds, shrinks after a re-timing
        self.size = min(block, _AHEAD_FROM)
        self.gap, self.last_retimed = float(block), 0     # running gap between re-timings
        self.start = self.stop = 0
        self._began: tuple[RetinaState, np.ndarray] | None = None   # the block's first state and lit times
        self._end: RetinaState | None = None                         # the photocells after its last card
        self.s_active = np.zeros(len(order), np.int16)
        self.a_active = np.zeros(len(order), np.int16)
        # the next block, sensed ahead under its (first, stop); a discarded one stops
        # between its two loops (_make reads the count of discards)
        self.ahead = _speed.LookAhead(self._make, "mark1-sensing")

    def _sense(self, first: int, stop: int, state: RetinaState, lit: np.ndarray) -> tuple[np.ndarray, RetinaState]:
        """S-units of presentations ``first`` to ``stop`` from ``state``, and the state after."""
        cards = self.order[first:stop]
        if isinstance(self.light, np.ndarray):
            light, rows = self.light, cards
        else:                                  # a large deck imaged as the run goes (mark_i._DeckLight)
            light, rows = self.light.take(cards)
        return self.retina.sense_sequence(light, rows, lit, state, card_change=self.card_change, settle=self.settle)

    def _make(self, first: int, stop: int, state: RetinaState, lit: np.ndarray,
              discarded: int | None = None) -> _Sensed | None:
        """Sense presentations ``first`` to ``stop`` (it reads of the run only the count of
        discards, an int, and writes nothing the run reads: it may run in the second thread);
        None when the look-ahead it was made for (``discarded`` counted then) has been
        discarded since."""
        s, end = self._sense(first, stop, state, lit)
        if discarded is not None and discarded != self.ahead.discarded:
            return None
        # each unit's active pots (rack.active_pots(x)) counted in the same pass, when wanted
        x, counts, active = self.patchboard.rack_inputs(s, self.rack.mask if self.noise > 0 or self.mean else None)
        return _Sensed(first, stop, state, lit, s, end, x, counts, active)

    def _take(self, sensed: _Sensed) -> None:
        """Make ``sensed`` the current block."""
        first, stop, active = sensed.first, sensed.stop, sensed.active
        self.s_active[first:stop] = sensed.counts[:, 0]
        self.a_active[first:stop] = sensed.counts[:, 1]
        self.s, self.x = sensed.s, sensed.x
        # read noise of the sum of the active wipers of each unit (see PotentiometerRack.sums)
        self.noise_scale = self.noise * np.sqrt(active) if self.noise > 0 else None
        if self.mean:
            # μ-system: each unit's sum is divided by its active inputs (a unit with none reads 0)
            self.divisor = np.maximum(active, 1.0)
        self.start, self.stop, self._began, self._end = first, stop, (sensed.state, sensed.lit), sensed.end

    def _compute(self, first: int, state: RetinaState, lit_first: float | None = None) -> None:
        stop = min(first + self.size, len(self.order))
        lit = np.full(stop - first, self.nominal_lit)
        if lit_first is not None:
            lit[0] = lit_first
        self._take(cast(_Sensed, self._make(first, stop, state, lit)))

    def _state_at(self, row: int) -> RetinaState:
        """The photocells at the end of the current block's presentation ``row - 1``: the
        block's cards up to it sensed again from its first state (the same steps, so the
        same bits; a re-timing is rare, keeping every card's state is not)."""
        state, lit = cast(tuple[RetinaState, np.ndarray], self._began)    # set with the block
        if row == self.stop - self.start:
            return cast(RetinaState, self._end)
        return self._sense(self.start, self.start + row, state, lit[:row])[1] if row else state

    def ensure(self, p: int) -> int:
        """Make presentation ``p`` available; returns its row in ``x``/``noise_scale``."""
        if not (self.start <= p < self.stop):
            sensed = self.ahead.collect((p, min(p + self.size, len(self.order))))
            if sensed is not None:
                self._take(sensed)
            else:
                self._compute(p, RetinaState.dark(self.retina.n_cells) if self._end is None else self._end)
            self.size = min(2 * self.size, self.block)   # the schedule held: look further ahead
            self._look_ahead()
        return p - self.start

    def retime(self, p: int, lit: float) -> None:
        """Presentation ``p`` stayed lit for ``lit`` seconds instead of the nominal time."""
        if abs(lit - self.nominal_lit) <= 1e-12 * max(1.0, lit):
            return
        self.ahead.discard()                # sensed for the nominal schedule, which no longer holds
        # waits come in runs: look ahead about as far as the running gap between them
        self.gap += _GAP_WEIGHT * (p - self.last_retimed - self.gap)
        self.last_retimed = p
        self.size = int(min(self.block, max(_MIN_REACH, 1.25 * self.gap)))   # a little past the gap
        # p is in the current block (retimed after ensure(p)), so its state can be had
        self._compute(p, self._state_at(p - self.start), lit_first=lit)

    def _look_ahead(self) -> None:
        """Start sensing the block after the current one ahead, when the schedule has held
        long enough for it to be kept."""
        first = self.stop
        if not self.ahead.on or self.size < _AHEAD_FROM or first >= len(self.order):
            return
        stop = min(first + self.size, len(self.order))
        self.ahead.start((first, stop), first, stop, self._end, np.full(stop - first, self.nominal_lit),
                         self.ahead.discarded)

    def close(self) -> None:
        """End the look-ahead's thread, if one was started (a look-ahead not begun is
        dropped, one running finishes its loop first)."""
        self.ahead.close()


@dataclass
class _RunResult:
    history: np.ndarray
    machine_time: float
    trace: Trace
    mistakes_per_epoch: np.ndarray
    waited: float = 0.0
    sums: np.ndarray | None = None          # (n, n_units) the sums read, with a full trace


class Presentations(NamedTuple):
    """A training schedule: the card shown at each presentation (``order``, (n,) int), its
    epoch (``epoch_of``, (n,) int) and each card's class (``label_index``, (n_cards,) int)."""

    order: np.ndarray
    epoch_of: np.ndarray
    label_index: np.ndarray


def _simulate(*, spec: MachineSpec, retina: Retina, patchboard: Patchboard, rack: PotentiometerRack,
              light: np.ndarray | _DeckOfLight, schedule: Presentations, code, noise_rng: np.random.Generator,
              trace: Trace, env: simpy.Environment | None = None, progress=None) -> _RunResult:
    """Run a training schedule on the machine in simulated time (:meth:`MarkI.fit` calls it).

    Parameters
    ----------
    spec : MachineSpec
    retina : Retina
    patchboard : Patchboard
    rack : PotentiometerRack
        Moved in place, by the presentation kernel (its per-pot arrays, ``rack.pots``).
    light : array (n_cards, n_cells)
        Relative illuminance of each card, or an object whose ``take(cards)`` gives an
        array and the rows of ``cards`` in it, imaging them first (a large deck's cards
        imaged as the run asks for them, ``mark_i._DeckLight``).
    schedule : Presentations
        The card shown at each presentation, its epoch, and each card's class index.
    code : OutputCode
        R-unit targets of each class and the decoding of the sums (with its tie rule).
    noise_rng : Generator
        Stream for wiper read noise.
    trace : Trace
        Filled as the run goes (events, and with ``full`` the readings and moves).
    env : simpy.Environment, optional
        Pass ``simpy.rt.RealtimeEnvironment(factor=...)`` to watch it in real time.
    progress : callable, optional
        Called with the number of presentations finished since its last call.

    Returns
    -------
    _RunResult

    Notes
    -----
    The events that matter are reinforcements, and between waits for the motors not
    even those need an event: the clock (card ``p`` changes at ``t_anchor + (p -
    p_anchor) * period``), the sums (wipers at rest or mid-move) and the moves (at once,
    or queued for drivers) are closed form, so a whole sensed block runs in one compiled
    loop and one timeout. A move that outlasts the period shifts the schedule (the next
    card waits for it), which ends the loop's run. The trainer steps card by card, the
    same kernel one card a call, for a listener in the caller's ``env``, in real-time replay and for a full trace
    with overlap or drivers. Both ways give the same history, bit for bit.
    """
    run = _TrainingRun(spec=spec, retina=retina, patchboard=patchboard, rack=rack, light=light,
                       order=schedule.order, label_index=schedule.label_index, code=code, noise_rng=noise_rng,
                       trace=trace, env=env, progress=progress)
    env = run.env
    env.process(run.trainer())
    try:
        with collector_paused(trace.full):       # a full trace's many small objects, none in a cycle
            env.run()
    finally:
        run.pipeline.close()          # the sensing's second thread ends with the run, however it ends
    return run.result(schedule.epoch_of)


class _TrainingRun:
    """One training run in simulated time: the SimPy process that drives the presentation kernel.

    :meth:`trainer` is the SimPy process. Each turn of its loop runs the presentations from
    ``p`` through the compiled step of one card (:func:`mark1.machine._kernels.presentation.train_block`):
    a whole block of them where nobody watches (up to the end of the sensed block or a card
    that waits for the motors), one card a turn where someone does (a listener in the caller's ``env``, real-time
    replay, a full trace with overlap or drivers, or :data:`~mark1._utils.speed.COMPILED_LOOP` off). SimPy keeps the
    time: one timeout to each block's last read, and with a full trace the events at their
    times (for a listener, SimPy's clock is brought to each one first). A full trace nobody
    watches, every wiper at rest at each read, runs whole blocks, written after each call
    (:meth:`_log_whole`); otherwise with a full trace the
    kernel stops before each reinforcement, the read is logged, and
    :func:`~mark1.machine._kernels.presentation.act_on` makes the same step from there; the
    moves it sets going come back in a :class:`~mark1.machine._kernels.presentation.Moves`
    log. :meth:`result` makes the history.
    """

    def __init__(self, *, spec, retina, patchboard, rack, light, order, label_index, code, noise_rng, trace,
                 env, progress):
        tm, tr = spec.timing, spec.trainer
        self.spec, self.tm, self.rack, self.code, self.trace = spec, tm, rack, code, trace
        # someone watches the events as they happen, each one at its time, one card a turn: in
        # real time, or a listener in the caller's environment (its other processes see the
        # clock); a listener in the run's own environment hears the same events in the same
        # order as each block is run
        self.watched = env is not None and (isinstance(env, simpy.rt.RealtimeEnvironment)
                                            or trace.listener is not None)
        self.env = env if env is not None else simpy.Environment()
        self.progress, self.order = progress, order
        self.n = n = len(order)
        self.pipeline = _SensoryPipeline(retina, patchboard, light, order, spec, rack)
        self.full = trace.full
        self.queued = rack.spec.drivers > 0              # moves wait for drivers
        self.stepping = (not _speed.COMPILED_LOOP or self.watched
                         or (self.full and (tm.overlap or self.queued)))
        self.targets = code.targets.astype(float)
        self.labels = label_index[order]
        self.response = np.zeros(n, np.int64)
        self.units_erred = np.zeros(n, np.int16)
        self.pots_moved = np.zeros(n, np.int32)
        self.start = np.zeros(n)
        # with a full trace, the sums the trainer read, as numbers (the trace's text rounds them)
        self.read_sums = np.full((n, self.targets.shape[1]), np.nan) if self.full else None
        self.noise = _NoiseStream(noise_rng, self.targets.shape[1]) if spec.rack.wiper_noise > 0 else None
        self.mean = spec.response.discrimination == "mean"
        self.mask = rack.mask
        self.code_kind = CODE_KINDS.get(code.kind, -1)
        # a full trace nobody watches as it happens, every wiper at rest at each read (no
        # overlap, no drivers, no decay or drift): blocks run whole, their events written after
        self.whole = (self.full and not self.stepping and not rack.rate and not rack.drifts
                      and not (tr.reinforcement == "spontaneous" and self.code_kind < 0))
        self.trainer_constants = _trainer_constants(tr, code, self.code_kind, self.mean,
                                                    self.full and not self.whole)
        self.period = tm.period
        self.read_at = _read_at(tm)
        self.clock = _Clock(self.period)
        self.waited = 0.0
        self.reach, self.gap = float(self.pipeline.block), float(self.pipeline.block)   # see _run_block
        self.decay = kernel.Decay(float(rack.rate), float(spec.rack.decay_time))
        # the kernel's driver queue (commands not yet set going, first come first served,
        # and when each driver is free); its arrays get room as needed (_make_room)
        self.queue = kernel.Queue(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0, np.int64),
                                  np.zeros(2, np.int64), np.zeros(max(rack.spec.drivers, 1)))
        # the moves a call sets going (a full trace; a whole block's, up to ROOM), and each read where the rack diffuses
        room = max(self.mask.size, _WHOLE_LOG) if self.whole else self.mask.size if self.full else 0
        self.log = _moves(room, 4 * room if rack.diffuses else 0)
        self.pending: list = []                          # the motors' events still to come (a heap)
        self.commands: dict[int, list] = {}              # queued commands: [pots not yet stopped, end]
        self.blk: kernel.Block | None = None
        self.schedule = kernel.Schedule(0.0, 0, float(self.period), float(self.read_at), bool(tm.overlap),
                                        bool(self.queued))
        # made once a run, not once a call: the rack's per-pot views (its arrays are written
        # in place, never replaced), the kernel's scratch, the sums' rows (read before the next
        # call) and, without read noise, its zero kick
        self.pots = rack.pots
        # the step compiled for what this run meets (no driver queue, log or device law
        # where it has none: a cold start compiles less; the same bits)
        step, train_block = kernel_state.run_kernels(self.queued, self.full, rack.drive_constants.device != 0.0)
        self.train_block = _Direct(train_block)
        n_in, n_units, block = self.mask.shape[1], self.targets.shape[1], self.pipeline.block
        self.active = np.zeros(n_in, np.int64)           # the kernel's scratch: a card's active inputs,
        self.acc, self.steps = np.zeros(n_units), np.zeros((2, n_units))      # its sums and the rule's command
        self.sums_rows = np.empty((block, n_units))
        self.no_kick = np.zeros((block, n_units))
        self.sensed: np.ndarray | None = None          # the sensed block's x its kicks were made for
        self.kicks = self.block_targets = self.no_kick
        # the kernel's records held by compiled code once a run (a RunState, see _hold_state):
        # a call passes it and a row, not ~60 arrays to convert; not where the kernel may
        # leave a reinforcement to act_on, which takes the call's Block (self.blk)
        self.held = _speed.HOLD_STATE and _speed.compiler_on() and not self.trainer_constants.stop_to_reinforce
        self.state: kernel_state.RunState | None = None
        self.state_key: tuple | None = None
        self.stale = True                                # the state misses a new block, clock or queue
        self.step, self.make_state = _Direct(step), _Direct(kernel_state.make_state)
        # a block run whole keeps its events as columns (_block_events), the words that repeat made once
        self.block_events = _speed.BLOCK_EVENTS
        self.words = _Words(code.classes)

    # -- the SimPy process ----------------------------------------------------------------
    def trainer(self):
        """SimPy process: every presentation of the schedule, then the last period and wipers.

        Each turn runs presentations from ``p`` through the kernel (a block, or one card when
        stepping: :meth:`_run_block`), records them with a full trace (:meth:`_record`), makes
        the trainer's turn where the kernel left it (:meth:`_act`), then brings SimPy's clock
        to the last one's read. The SimPy path takes a turn a card, so a turn is written here
        whole, not in a generator of its own."""
        env, p = self.env, 0
        # what a turn reads, looked up once (the SimPy path takes a turn a card)
        run_block, full, start, read_at, progress, timeout = (self._run_block, self.full, self.start, self.read_at,
                                                              self.progress, env.timeout)
        while p < self.n:
            q, status = run_block(p)
            if full:
                yield from self._record(p, q)
            if status == PENDING:                        # read and logged: the trainer's turn
                status = yield from self._act(q)
            t_read = float(start[q]) + read_at
            now = env.now
            if now < t_read or not full:
                yield timeout(_delay_to(now, t_read))    # _wait_until's first step
                if env.now < t_read:
                    yield from _wait_until(env, t_read)
            if status == WAITS:
                self._wait_for_motors(q)
            if progress is not None:
                progress(q + 1 - p)
            p = q + 1
        if self.queued:                                  # the moves still queued get their drivers
            self._serve_queue(np.inf)
        yield from self._emit([], np.inf)
        # the run ends when the last period is over and every wiper has stopped
        last = max(self.clock.card_change(self.n), self.rack.busy_until)
        if self.env.now < last:
            yield from _wait_until(self.env, last)

    def _record(self, p: int, q: int):
        """A full trace's record of presentations ``p`` to ``q``, just run (at once for a
        block run whole; else at their times, the moves served before the reads first)."""
        if self.whole:
            self._log_whole(p, q)
        else:
            self._keep_moves()
            yield from self._log(p, self.sums_rows[:q + 1 - p])

    def _act(self, q: int):
        """The trainer's turn at presentation ``q``, read and logged: the kernel's step from
        the read on (:func:`~mark1.machine._kernels.presentation.act_on`), its events, and
        without overlap the motors' end; returns the step's status."""
        env, rack, trace = self.env, self.rack, self.trace
        t_read = float(self.start[q]) + self.read_at
        if env.now < t_read:
            yield from _wait_until(env, t_read)
        if self.queued:
            self._make_room()
        blk = cast(kernel.Block, self.blk)
        status, rack.busy_until, rack.t_ref = kernel.act_on(
            q - blk.p_first, rack.busy_until, rack.t_ref, blk, self.trainer_constants, self.schedule, self.decay,
            self.pots, rack.drive_constants, self.queue, self.log)
        moving = int(self.pots_moved[q])
        if moving and self.full:
            erred = int(self.units_erred[q])
            trace.log(t_read, "reinforce", q, _reinforce_words(erred, moving))
            if self.queued:
                trace.log(t_read, "motors queued", q, f"{moving} pots on {rack.spec.drivers} drivers")
                self.commands[q] = [moving, -np.inf]
            self._keep_moves()
        if not self.tm.overlap:                          # the trainer waits for the motors
            yield from self._emit([], rack.busy_until)
        return status

    def _wait_for_motors(self, q: int) -> None:
        """Presentation ``q``'s motors outlast its period: the next card waits for them."""
        t0, done = float(self.start[q]), self.rack.busy_until
        end = t0 + self.period
        self.waited += done - end
        if self.full:
            self.trace.log(done, "waited for motors", q, f"{done - end:.4g} s past the period")
        self.pipeline.retime(q, done - t0 - self.tm.card_change)
        self.clock.shift(q + 1, done)
        self.schedule = kernel.Schedule(float(self.clock.t_anchor), int(self.clock.p_anchor), float(self.period),
                                        float(self.read_at), bool(self.tm.overlap), bool(self.queued))
        self.stale = True

    def _run_block(self, p: int) -> tuple[int, int]:
        """Presentations from ``p`` to the end of the sensed block (one when stepping) or the
        first wait for the motors, through the kernel; (the last one run, its status). With
        ``PENDING`` (a full trace) the last one is read but not reinforced yet; the sums read
        are the first rows of ``sums_rows``."""
        pipeline, rack = self.pipeline, self.rack
        row = pipeline.ensure(p)
        hi = min(pipeline.stop, p + (1 if self.stepping else int(self.reach)))
        if self.sensed is not pipeline.x:               # a new sensed block: its kicks and targets
            self._sensed_block()
        if self.queued:
            self._make_room()
        if self.held:
            if self.stale:
                self._hold_state()
            done, rack.busy_until, rack.t_ref, status = self.step(
                self.state_key, self.state, p, row, hi - p, float(rack.busy_until), float(rack.t_ref))
        else:
            x = pipeline.x[row:row + (hi - p)]
            kick, targets = self.kicks[row:row + (hi - p)], self.block_targets[row:row + (hi - p)]
            divisor = pipeline.divisor[row:row + (hi - p)] if self.mean else pipeline.divisor
            sums = self.sums_rows[:hi - p]
            self.blk = blk = kernel.Block(p, x, kick, targets, divisor, self.targets, sums, self.units_erred[p:hi],
                                          self.pots_moved[p:hi], self.start[p:hi], self.response[p:hi], self.active,
                                          self.acc, self.steps)
            done, rack.busy_until, rack.t_ref, status = self.train_block(
                _layout_key(x, divisor), blk, self.trainer_constants, self.schedule, float(rack.busy_until),
                float(rack.t_ref), self.decay, self.pots, rack.drive_constants, self.queue, self.log)
        if status == PENDING:
            done += 1                               # read, to be reinforced by the caller
        if self.code_kind < 0:                      # a code the loop does not read
            self.response[p:p + done] = self.code.decode(self.sums_rows[:done])
        # how far the next run reaches: about the running gap between stops, doubling while
        # runs end with their block (the noise, targets and sums of a run are made for all of it)
        if status == BLOCK_END:
            self.reach = min(2 * self.reach, self.pipeline.block)
        else:
            self.gap += _GAP_WEIGHT * (done - self.gap)
            self.reach = min(max(_MIN_REACH, 2.0 * self.gap), self.pipeline.block)   # twice the gap
        return p + done - 1, status

    def _hold_state(self) -> None:
        """The run's :class:`~mark1.machine._kernels.state.RunState`, made again with a new
        sensed block, clock or driver queue (a state made, not one updated: one compiled
        function less to compile cold, for a few us a sensed block or wait)."""
        x, divisor = self.pipeline.x, self.pipeline.divisor
        self.state_key = _layout_key(x, divisor)
        run = kernel.Block(0, x, self.kicks, self.block_targets, divisor, self.targets, self.sums_rows,
                           self.units_erred, self.pots_moved, self.start, self.response, self.active, self.acc,
                           self.steps)
        self.state = self.make_state(self.state_key, run, self.trainer_constants, self.schedule, self.decay,
                                     self.pots, self.rack.drive_constants, self.queue, self.log)
        self.stale = False

    def _sensed_block(self) -> None:
        """The read noise's kicks (scaled) and the targets of the sensed block's presentations,
        made once a block (the same numbers, row by row, as made for each call)."""
        pipeline = self.pipeline
        first, stop = pipeline.start, pipeline.stop
        # noise_scale is set whenever the read noise is on (self.noise)
        self.kicks = (cast(np.ndarray, pipeline.noise_scale) * self.noise.get(first, stop) if self.noise is not None
                      else self.no_kick[:stop - first])
        self.block_targets = self.targets[self.labels[first:stop]]
        self.sensed = pipeline.x
        self.stale = True

    def _make_room(self) -> None:
        """Room in the driver queue for a command of every pot: the moves still queued go to
        the front, and the arrays double when less than half of them is free (32 bytes a
        move; at first room for two commands of every pot). With a full trace, the moves'
        log gets room for every move one call can set going."""
        q = self.queue
        head, tail = (int(v) for v in q.ends)
        live, cap = tail - head, len(q.pot)
        arrays = (q.pot, q.cmd, q.time, q.who)
        if cap - live < max(self.mask.size, cap // 2):     # keep half free: few returns to make room
            size = 2 * max(cap, live + self.mask.size)
            grown = (np.concatenate([a[head:tail], np.zeros(size - live, a.dtype)]) for a in arrays)
            self.queue = q._replace(**dict(zip(("pot", "cmd", "time", "who"), grown)))
            self.stale = True
        elif head > 0:
            for a in arrays:
                a[:live] = a[head:tail]
        q.ends[:] = (0, live)
        if self.full and len(self.log.pot) < len(self.queue.pot) + self.mask.size:
            self.log = _moves(len(self.queue.pot) + self.mask.size, len(self.log.wipers))
            self.stale = True

    def _serve_queue(self, limit: float) -> None:
        """Set going the queued moves that get a driver up to ``limit`` (s), included."""
        rack = self.rack
        rack.busy_until, rack.t_ref = kernel.serve(float(np.nextafter(limit, np.inf)), self.queue,
                                                   rack.busy_until, rack.t_ref,
                                                   self.decay, self.pots, rack.drive_constants, self.log)
        if self.full:
            self._keep_moves()

    # -- the record -------------------------------------------------------------------------
    def _keep_moves(self) -> None:
        """The moves the kernel's last call set going, into the trace (one :class:`Move` a
        command set going at once, one a pot where drivers serve them), and the motors'
        events they make ("motors start" at once; "motors stop" when a command's last pot
        stops) among the events to come."""
        log, n_in = self.log, self.mask.shape[1]
        n = int(log.filled[0])
        log.filled[0] = 0
        if n == 0:
            return
        bounds = [0, n] if not self.queued else list(range(n + 1))
        for a, b in zip(bounds[:-1], bounds[1:]):
            who, t = int(log.who[a]), float(log.time[a])
            pot = log.pot[a:b]
            duration = log.duration[a:b].copy()
            self.trace.moves.append(Move(who, t, pot // n_in, pot % n_in, log.cmd[a:b].copy(),
                                         log.start[a:b].copy(), log.target[a:b].copy(),
                                         log.slack_time[a:b].copy(), duration, log.direction[a:b].copy()))
            if not self.queued:
                longest = float(duration.max(initial=0.0))
                self.trace.log(t, "motors start", who, _start_words(b - a, f"{longest:.4g}"))
                self._later(t + longest, "motors stop", who, f"{b - a} pots")
                continue
            command = self.commands[who]
            command[0] -= 1
            command[1] = max(command[1], t + float(duration[0]))
            if command[0] == 0:
                del self.commands[who]
                self._later(command[1], "motors stop", who, f"{int(self.pots_moved[who])} pots")

    def _later(self, t: float, event: str, presentation: int, detail: str) -> None:
        """An event of the motors at ``t``, logged when the run's clock gets there."""
        heapq.heappush(self.pending, (t, len(self.trace.events) + len(self.pending), event, presentation, detail))

    def _emit(self, events: list, until: float):
        """Log ``events`` (time, event, presentation, detail), in time order, and the motors'
        events up to ``until`` among them (first at a tie: they were set before). For a
        listener, SimPy's clock is brought to each event first."""
        motors = []
        while self.pending and self.pending[0][0] <= until:
            t, _, e, q, d = heapq.heappop(self.pending)
            motors.append((t, e, q, d))
        if motors:                                  # stable: the motors' event first at a tie
            events = sorted(motors + events, key=lambda ev: ev[0])
        if not self.watched:
            self.trace._log_many(events)
            return
        for ev in events:
            if ev[0] > self.env.now:
                yield from _wait_until(self.env, ev[0])
            self.trace.log(*ev)

    def _log(self, p: int, sums: np.ndarray):
        """A full trace's record of presentations ``p`` to ``p + len(sums) - 1`` at their
        reads: their instants, the sums read (``sums`` (m, n_units)) and the wipers."""
        pipeline, rack = self.pipeline, self.rack
        q = p + len(sums)
        cast(np.ndarray, self.read_sums)[p:q] = sums    # a full trace keeps the sums read
        # the sensed block holds them: it was made (or re-timed) for these reads
        assert pipeline.start <= p and q <= pipeline.stop
        rows = slice(p - pipeline.start, q - pipeline.start)
        events = self._card_events(p, sums)
        yield from self._emit(events, events[-1][0])
        # the trainer's own read time (card change + read_at), not a sum taken in another order
        self.trace._keep_readings(self.start[p:q] + self.read_at, pipeline.s[rows], pipeline.x[rows], rack,
                                  self._kept_wipers())

    def _card_events(self, p: int, sums: np.ndarray, extra: dict | None = None) -> list:
        """The events of presentations ``p`` to ``p + len(sums) - 1`` (card change to R read,
        ``sums`` (m, n_units) the sums read), each card's ``extra[presentation]`` after its read."""
        code, pipeline, tm = self.code, self.pipeline, self.tm
        q = p + len(sums)
        t0 = self.start[p:q]
        t_on = t0 + tm.card_change
        t_s = t_on + tm.settle
        # the trainer's own read time (card change + read_at), not a sum taken in another order
        t_read = t0 + self.read_at
        r = range(p, q)
        sums_format = "sums " + " ".join(["%+.4g"] * sums.shape[1])     # as f"{v:+.4g}" writes each
        cards = zip(t0.tolist(), repeat("card change"), r,
                    [f"card {c}, lamps off" for c in self.order[p:q].tolist()])   # deck index, from 0 like p
        lamps = zip(t_on.tolist(), repeat("lamps on"), r, repeat(""))
        s_units = zip(t_s.tolist(), repeat("S sampled"), r,
                      [f"{n} S-units fire" for n in pipeline.s_active[p:q].tolist()])
        a_units = zip((t_s + tm.a_delay).tolist(), repeat("A settled"), r,
                      [f"{n} A-units fire" for n in pipeline.a_active[p:q].tolist()])
        read_format = sums_format + _READ_END                        # %s writes a class as f"{}" does
        reads = zip(t_read.tolist(), repeat("R read"), r, [
            read_format % (*row, answer, shows) for row, answer, shows in zip(
                sums.tolist(), code.classes[self.response[p:q]].tolist(), code.classes[self.labels[p:q]].tolist())])
        after = repeat(()) if not extra else [extra.get(k, ()) for k in r]
        # card by card: its five events, then what came after its read
        return list(chain.from_iterable(chain.from_iterable(zip(zip(cards, lamps, s_units, a_units, reads), after))))

    def _log_whole(self, p: int, q: int) -> None:
        """A full trace's record of presentations ``p`` to ``q``, run whole by the kernel: each
        card's events, and where it reinforced, what :meth:`_act` logs (its moves set going
        at once: "motors start", and "motors stop" when the longest ends, before the next
        card since the trainer waits for it); the moves and readings kept as the block's
        arrays (:func:`_moves_of`, :func:`_readings_of`), made when the trace is first read."""
        log, n_in = self.log, self.mask.shape[1]
        n = int(log.filled[0])
        log.filled[0] = 0
        moved = (log.who, log.time, log.pot, log.cmd, log.start, log.target, log.slack_time, log.duration,
                 log.direction)
        who, time, pot, cmd, start, target, slack, duration, direction = (a[:n].copy() for a in moved)
        firsts = np.flatnonzero(np.diff(who, prepend=-1)) if n else np.zeros(0, np.int64)
        bounds = list(zip(firsts.tolist(), firsts[1:].tolist() + [n]))
        # each command's longest move (durations are never negative: max(initial=0.0) of each)
        longest = np.maximum.reduceat(duration, firsts) if n else np.zeros(0)
        commands = dict(zip(who[firsts].tolist(), bounds))
        times = time[firsts]
        sums = self.sums_rows[:q + 1 - p]
        cast(np.ndarray, self.read_sums)[p:q + 1] = sums
        setters = who[firsts]
        if self.block_events and len(commands) == len(firsts) and np.all(setters[1:] > setters[:-1]) and (
                not len(setters) or (setters[0] >= p and setters[-1] <= q)):
            # the block's own arrays (copies: the run's are written again), made into events
            # now for a listener, else when the trace is first read
            moving, cards = self.pots_moved[p:q + 1].copy(), slice(p, q + 1)
            on = np.flatnonzero(moving)
            block = _BlockCards(self.start[cards].copy(), self.order[cards].copy(),
                                self.pipeline.s_active[cards].copy(), self.pipeline.a_active[cards].copy(),
                                sums.copy(), self.response[cards].copy(), self.labels[cards].copy())
            set_going = _BlockMoves(moving, self.units_erred[cards][on], setters - p, times, longest,
                                    np.diff(firsts, append=n))
            make = partial(_block_events, p, self.tm, self.read_at, block, set_going, self.words)
            self.trace._keep_block(5 * (q + 1 - p) + len(on) + 2 * len(setters), make)
        else:
            extra: dict[int, list] = {}
            on = np.flatnonzero(self.pots_moved[p:q + 1])
            for r, erred, moving, t0 in zip((on + p).tolist(), self.units_erred[p:q + 1][on].tolist(),
                                            self.pots_moved[p:q + 1][on].tolist(), self.start[p:q + 1][on].tolist()):
                extra[r] = [(t0 + self.read_at, "reinforce", r, _reinforce_words(erred, moving))]
            for (r, (a, b)), t, most in zip(commands.items(), times.tolist(), longest.tolist()):
                extra.setdefault(r, []).extend([(t, "motors start", r, _start_words(b - a, f"{most:.4g}")),
                                               (t + most, "motors stop", r, f"{b - a} pots")])
            self.trace._log_many(self._card_events(p, sums, extra))
        self.trace.moves.later(len(commands), partial(
            _moves_of, list(commands), times, bounds, n_in, pot, (cmd, start, target, slack, duration, direction)))
        # what the readings are made of: the block's S-units and inputs, the rack's positions after it
        pipeline = self.pipeline
        rows = slice(p - pipeline.start, q + 1 - pipeline.start)
        self.trace.readings.later(q + 1 - p, partial(
            _readings_of, self.start[p:q + 1] + self.read_at, pipeline.s[rows], pipeline.x[rows] > 0,
            self.rack.p_to.T.copy(), [commands[c] for c in sorted(commands, reverse=True)],
            sorted(commands, reverse=True), p, pot, start, self._kept_wipers()))

    def _kept_wipers(self) -> np.ndarray | None:
        """The reads the kernel kept since this was last called (a copy; None where it keeps none)."""
        log = self.log
        if not len(log.wipers):
            return None
        n = int(log.wipers_filled[0])
        log.wipers_filled[0] = 0
        return log.wipers[:n].copy()

    def result(self, epoch_of: np.ndarray) -> _RunResult:
        """The history of the finished run, with its per-epoch mistakes and trace summary."""
        hist = history(epoch_of=epoch_of, order=self.order, labels=self.labels, response=self.response,
                       units_erred=self.units_erred, pots_moved=self.pots_moved, start=self.start,
                       s_active=self.pipeline.s_active, a_active=self.pipeline.a_active)
        return _finish(hist, self.env.now, self.trace, self.waited, self.read_sums)


def _trainer_constants(tr, code, code_kind: int, mean: bool, full: bool) -> kernel.Trainer:
    """The kernel's :class:`~mark1.machine._kernels.presentation.Trainer` of a trainer's spec
    and output code (``mean``: the μ-system). The kernel stops before each reinforcement for a full trace (its read
    is logged first) and where spontaneous reinforcement follows an answer it does not
    decode (a binary code: the simulator decodes it, then the kernel goes on)."""
    every = tr.reinforcement != "corrective"
    spontaneous = tr.reinforcement == "spontaneous"
    return kernel.Trainer(
        RULE_CODES[tr.rule], float(tr.increment), float(tr.lms_rate), float(code.tie),
        not every and tr.rule != "lms",              # the trainer acts only where a unit erred (corrective α, β, γ)
        every, tr.valence == "monovalent", mean, spontaneous, code_kind, full or (spontaneous and code_kind < 0))


def _layout_key(x: np.ndarray, divisor: np.ndarray) -> tuple:
    """The :class:`_Direct` key of a call: the layout of the arrays the sensing makes (the
    kicks and targets are C arrays, or their rows, made by the run)."""
    return (x.dtype.num, x.ndim, x.flags.num, divisor.dtype.num, divisor.ndim, divisor.flags.num)


def _moves(n: int, wipers: int = 0) -> kernel.Moves:
    """A :class:`~mark1.machine._kernels.presentation.Moves` log with room for ``n`` moves (0: keeps none)
    and ``wipers`` numbers of the reads (0: keeps none)."""
    return kernel.Moves(np.zeros(n, np.int64), np.zeros(n), np.zeros(n, np.int64), np.zeros(n), np.zeros(n),
                        np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n, np.int8), np.zeros(1, np.int64),
                        np.zeros(wipers), np.zeros(1, np.int64))



def _moves_of(who: list, times: np.ndarray, bounds: list, n_in: int, pot: np.ndarray, arrays: tuple) -> list:
    """The :class:`Move` of each command of a block run whole: ``who`` (its presentation),
    ``times`` (when set going), ``bounds`` (its rows of the block's move log), ``pot`` (the
    flat pot indices, ``n_in`` pots a unit) and ``arrays`` (command, start, target, slack
    time, duration, direction of each move)."""
    unit, a_unit = np.divmod(pot, n_in)
    return [Move(r, t, unit[a:b], a_unit[a:b], *(x[a:b] for x in arrays))
            for r, t, (a, b) in zip(who, times.tolist(), bounds)]


def _kept_rows(kept: np.ndarray, counts, n_units: int) -> list:
    """Each card's wipers (n_units, its active inputs) from the kernel's reads kept card after
    card (:attr:`~mark1.machine._kernels.presentation.Moves.wipers`: each active input's
    pots, unit by unit), ``counts`` each card's active inputs."""
    ends = np.cumsum(np.asarray(counts, np.int64) * n_units).tolist()
    return [kept[a:b].reshape(-1, n_units).T for a, b in zip([0] + ends[:-1], ends)]


def _readings_of(times: np.ndarray, s: np.ndarray, lit: np.ndarray, by_input: np.ndarray, last_first: list,
                 cards: list, p: int, pot: np.ndarray, start: np.ndarray, kept: np.ndarray | None = None) -> list:
    """The readings of a block run whole, presentations ``p`` on, read at ``times`` (m,) with
    S-units ``s`` (m, n_s) bool and inputs ``lit`` (m, n_in) bool: from ``by_input`` (n_in,
    n_units), the rack's positions after the block (written here), last card first, each
    card's moves undone (``cards``, the cards that moved pots last first, and ``last_first``
    their rows of ``pot``, the flat indices, and of ``start``, the positions they moved
    from), then its read. Where the rack diffuses no position can be rebuilt so: the reads
    the kernel ``kept`` as it read them (:func:`_kept_rows`)."""
    n_s, n_in, m = s.shape[1], lit.shape[1], len(times)
    s_flat, x_flat = np.flatnonzero(s), np.flatnonzero(lit)
    s_units, inputs = s_flat % n_s, x_flat % n_in      # each row's, as nonzero(s)[1]
    s_ends = np.searchsorted(s_flat, np.arange(1, m + 1) * n_s).tolist()
    x_ends = np.searchsorted(x_flat, np.arange(1, m + 1) * n_in).tolist()
    n_units = by_input.shape[1]
    flat, undo = by_input.reshape(-1), pot % n_in * n_units + pot // n_in     # pot's index there
    s_starts, x_starts = [0] + s_ends[:-1], [0] + x_ends[:-1]
    wipers: list = [None] * m
    if kept is not None:                               # see Reading.wipers
        wipers = _kept_rows(kept, np.subtract(x_ends, x_starts), n_units)
    else:
        # the cards from one that moved pots (excluded) to the next one (included) read the
        # same positions: one gather each such run, last run first, undoing its moves before
        hi = m
        for k, (a, b) in zip([c - p for c in cards] + [-1], last_first + [(0, 0)]):
            if k + 1 < hi:
                xs = x_starts[k + 1]
                run = by_input.take(inputs[xs:x_ends[hi - 1]], axis=0).T
                for c in range(k + 1, hi):
                    wipers[c] = run[:, x_starts[c] - xs:x_ends[c] - xs]
            if k >= 0:
                flat[undo[a:b]] = start[a:b]
            hi = k + 1
    return list(map(Reading, times.tolist(), [s_units[a:b] for a, b in zip(s_starts, s_ends)],
                    [inputs[a:b - 1] for a, b in zip(x_starts, x_ends)], wipers))


#: The end of a read's words: the answer's class and the card's (``%`` with the two).
_READ_END = "; answer %s, card shows %s"


def _reinforce_words(erred: int, moving: int) -> str:
    """A reinforcement's words: the R-units that erred and the pots commanded."""
    return f"{erred} R-unit{'s' if erred != 1 else ''} erred, {moving} pots commanded"


def _start_words(pots: int, longest: str) -> str:
    """A motors start's words: the pots set going and the longest move's text (s)."""
    return f"{pots} pots, longest {longest} s"


class _Words:
    """The words of a run's events that repeat, each made once a run (for :func:`_block_events`).

    The end of a read's words for each answer and card's class, a reinforcement's words
    for each count of R-units erred and pots commanded, a motors start's for each count of
    pots and longest move; the same text as :meth:`_TrainingRun._card_events` and
    :meth:`_TrainingRun._log_whole` write.

    Parameters
    ----------
    classes : array (k,)
        The run's classes; each written as ``"%s"`` writes it.
    """

    #: Classes up to which every (answer, class) pair's words are made at once (k² of them).
    PAIRED = 64

    def __init__(self, classes: np.ndarray) -> None:
        self.classes = [str(c) for c in classes.tolist()]       # as "%s" writes it
        self.pairs: np.ndarray | None = None
        self.erred: dict[tuple[int, int], str] = {}
        self.longest: dict[int, str] = {}

    def read_ends(self, answers: np.ndarray, shown: np.ndarray) -> list:
        """"; answer a, card shows c" for each answer and card's class (class indices)."""
        k = len(self.classes)
        if k > self.PAIRED:
            return [_READ_END % (self.classes[a], self.classes[c]) for a, c in zip(answers.tolist(), shown.tolist())]
        if self.pairs is None:
            self.pairs = np.array([_READ_END % (a, c) for a in self.classes for c in self.classes], dtype=object)
        return self.pairs[answers * k + shown].tolist()

    def reinforcements(self, erred: np.ndarray, moving: np.ndarray) -> list:
        """A reinforcement's words for each count of R-units erred and of pots commanded."""
        known = self.erred

        def made(key: tuple[int, int]) -> str:
            e, m = key
            said = known[key] = _reinforce_words(e, m)
            return said

        return [known.get(key) or made(key) for key in zip(erred.tolist(), moving.tolist())]

    def starts(self, pots: np.ndarray, longest: np.ndarray) -> list:
        """A motors start's words for each count of pots and longest move (s), each move's
        time written once (told apart by its bits, as ``-0.0`` and ``0.0`` are written apart)."""
        known = self.longest

        def made(key: int, most: float) -> str:
            said = known[key] = f"{most:.4g}"
            return said

        return [_start_words(c, known.get(key) or made(key, most)) for c, key, most in
                zip(pots.tolist(), longest.view(np.int64).tolist(), longest.tolist())]

class _BlockCards(NamedTuple):
    """What :func:`_block_events` says of each card of a block (m cards): its card change
    ``t0`` (s), the deck's card ``order``, the S- and A-units that fired (``s_active``,
    ``a_active``), the sums read ``sums`` (m, n_units), the answer's and the card's class
    (``answers``, ``shown``, class indices)."""

    t0: np.ndarray
    order: np.ndarray
    s_active: np.ndarray
    a_active: np.ndarray
    sums: np.ndarray
    answers: np.ndarray
    shown: np.ndarray


class _BlockMoves(NamedTuple):
    """What :func:`_block_events` says of a block's moves: the pots each card moved
    (``moving`` (m,)), the R-units that erred (``erred``, one a card that moved), the cards
    whose moves were set going (``setting``, in increasing order), when (``set_at``, s), how
    many pots (``pots``) and the longest move of each (``longest``, s)."""

    moving: np.ndarray
    erred: np.ndarray
    setting: np.ndarray
    set_at: np.ndarray
    longest: np.ndarray
    pots: np.ndarray


def _block_events(p: int, tm, read_at: float, cards: _BlockCards, moves: _BlockMoves,
                  said: _Words) -> tuple[list, list, list, list]:
    """The events of presentations ``p`` to ``p + m - 1``, run whole, as four columns
    (times, names, presentations, words): the tuples :meth:`_TrainingRun._card_events` makes
    with :meth:`_TrainingRun._log_whole`'s events after each read, in the same order
    (:data:`~mark1._utils.speed.BLOCK_EVENTS`).

    Each card's five events (card change at ``cards.t0``, the timing ``tm``'s instants
    after it, the read at ``t0 + read_at``), then where it moved pots "reinforce", then
    where its moves were set going "motors start" and "motors stop"; the words that repeat
    are ``said``'s. The sums' text is :func:`~mark1._utils.speed.rows_4g`'s."""
    t0, order, s_active, a_active, sums, answers, shown = cards
    moving, erred, setting, set_at, longest, pots = moves
    m = len(t0)
    t_on = t0 + tm.card_change
    t_s = t_on + tm.settle
    on = np.flatnonzero(moving)                        # the cards that reinforced
    count = np.full(m, 5)
    count[on] += 1
    count[setting] += 2
    first = np.cumsum(count) - count                   # each card's first event
    n = int(count.sum())
    times, names, words = np.empty(n), np.empty(n, dtype=object), np.empty(n, dtype=object)
    # the trainer's own read time (card change + read_at), not a sum taken in another order
    t_read = t0 + read_at
    for k, (t, name) in enumerate(((t0, "card change"), (t_on, "lamps on"), (t_s, "S sampled"),
                                   (t_s + tm.a_delay, "A settled"), (t_read, "R read"))):
        times[first + k], names[first + k] = t, name
    words[first] = list(map("card %d, lamps off".__mod__, order.tolist()))   # deck index, from 0 like p
    words[first + 1] = ""
    words[first + 2] = _count_words("%d S-units fire", s_active)
    words[first + 3] = _count_words("%d A-units fire", a_active)
    words[first + 4] = list(map(str.__add__, _speed.rows_4g("sums", sums), said.read_ends(answers, shown)))
    at = first[on] + 5
    times[at], names[at] = t_read[on], "reinforce"
    words[at] = said.reinforcements(erred, moving[on])
    at = first[setting] + 5 + (moving[setting] != 0)
    times[at], names[at], times[at + 1], names[at + 1] = set_at, "motors start", set_at + longest, "motors stop"
    words[at] = said.starts(pots, longest)
    words[at + 1] = _count_words("%d pots", pots)
    presentation = np.empty(m, dtype=object)           # one int a card, shared by its events
    presentation[:] = range(p, p + m)
    return times.tolist(), names.tolist(), np.repeat(presentation, count).tolist(), words.tolist()


#: ``form % count`` for counts from 0, a table a form, grown as larger counts come (_count_words)
_COUNTED: dict[str, np.ndarray] = {}


def _count_words(form: str, counts: np.ndarray) -> np.ndarray:
    """``form % count`` for each of ``counts`` (ints >= 0), an object array, from a table."""
    table = _COUNTED.get(form)
    top = int(counts.max(initial=0))
    if table is None or top >= len(table):
        size = max(top + 1, 2 * len(table) if table is not None else 64)
        table = _COUNTED[form] = np.array([form % c for c in range(size)], dtype=object)
    return table[counts]

def history(*, epoch_of, order, labels, response, units_erred, pots_moved, start, s_active,
            a_active) -> np.ndarray:
    """The history of a run, one row per presentation (:data:`HISTORY_DTYPE`): every path
    (the simulator's, the exact digital one of :meth:`MarkI.fit`) makes it here.

    Parameters
    ----------
    epoch_of, order, labels, response, units_erred, pots_moved : arrays (n,) int
        Each presentation's epoch, card, label and answer (class indices), R-units that
        erred and pots moved (a scalar is broadcast).
    start : array (n,) float
        Machine time (s) of each card change.
    s_active, a_active : arrays (n,) int
        S-units and A-units that fired.

    Returns
    -------
    array (n,) of HISTORY_DTYPE
        ``correct`` is ``response == label``.

    Examples
    --------
    >>> h = history(epoch_of=[0, 0], order=[1, 0], labels=[1, 0], response=[1, 1], units_erred=[0, 1],
    ...             pots_moved=[0, 7], start=[0.0, 3.0], s_active=[40, 38], a_active=[9, 11])
    >>> h["correct"].tolist(), h["presentation"].tolist()
    ([True, False], [0, 1])
    """
    n = len(order)
    hist = np.zeros(n, dtype=HISTORY_DTYPE)
    hist["presentation"] = np.arange(n)
    hist["epoch"] = epoch_of
    hist["card"] = order
    hist["label"] = labels
    hist["response"] = response
    hist["correct"] = hist["response"] == hist["label"]
    hist["units_erred"] = units_erred
    hist["pots_moved"] = pots_moved
    hist["start"] = start
    hist["s_active"] = s_active
    hist["a_active"] = a_active
    return hist


def _read_at(tm) -> float:
    """Seconds from a card change to the trainer's read of the R-units."""
    return tm.card_change + tm.settle + tm.a_delay + tm.r_delay


def _delay_to(now: float, target: float) -> float:
    """A delay that brings SimPy's clock from ``now`` exactly to ``target``.

    ``now + (target - now)`` can miss ``target`` by a rounding step; nudging the delay
    by one unit in the last place fixes that where any delay can reach ``target``
    (:func:`_wait_until` takes a second step where none can), so the SimPy clock equals
    the closed-form clock bit for bit however many timeouts led there.
    """
    d = target - now
    for _ in range(4):
        got = now + d
        if got == target:
            break
        d = np.nextafter(d, np.inf if got < target else -np.inf)
    return max(float(d), 0.0)


def _wait_until(env: simpy.Environment, target: float):
    """Bring SimPy's clock exactly to ``target``: one timeout, and another should it land short.

    No delay from ``now`` may reach ``target``: when ``now + d`` falls on a tie, it rounds to
    the even neighbour, an ulp away (from 15.51 s, 31.949999999999672 s is out of reach).
    From there a second delay lands on it.
    """
    yield env.timeout(_delay_to(env.now, target))
    for _ in range(4):
        if env.now >= target:
            return
        yield env.timeout(_delay_to(env.now, target))


class _Clock:
    """Card-change times in closed form: ``t_anchor + (p - p_anchor) * period``.

    The anchor moves only when the machine waited for its motors.
    """

    def __init__(self, period: float):
        self.period = period
        self.t_anchor, self.p_anchor = 0.0, 0

    def card_change(self, p):
        """Machine time (s) of the card change of presentation(s) ``p`` (int or int array)."""
        return self.t_anchor + (p - self.p_anchor) * self.period

    def shift(self, p: int, t: float) -> None:
        """Presentation ``p`` starts at ``t`` (later than planned), the rest follow on the period."""
        self.t_anchor, self.p_anchor = float(t), int(p)


class _NoiseStream:
    """Standard normal draws for the read noise, one row per presentation, drawn in
    fixed chunks so the numbers depend only on the seed and the presentation."""

    CHUNK = 4096

    def __init__(self, rng: np.random.Generator, n_units: int):
        self.rng, self.n_units = rng, n_units
        self.first = 0
        self.rows = np.empty((0, n_units))

    def get(self, p0: int, p1: int) -> np.ndarray:
        while self.first + len(self.rows) < p1:
            drop = max(0, p0 - self.first)
            new = self.rng.standard_normal((self.CHUNK, self.n_units))
            self.rows = np.concatenate([self.rows[drop:], new])
            self.first += drop
        return self.rows[p0 - self.first:p1 - self.first]


def _finish(hist: np.ndarray, machine_time: float, trace: Trace, waited: float,
            sums: np.ndarray | None = None) -> _RunResult:
    """Per-epoch mistakes and the trace summary of a finished run."""
    wrong = ~hist["correct"]
    n_epochs = int(hist["epoch"].max()) + 1 if len(hist) else 0
    mistakes = np.bincount(hist["epoch"][wrong], minlength=n_epochs)
    if trace.level == "summary":
        trace.summary = {
            "presentations": len(hist),
            "reinforcements": int(np.count_nonzero(hist["pots_moved"])),
            "pots moved": int(hist["pots_moved"].sum()),
            "errors": int(wrong.sum()),
            "seconds waited for motors": waited,
            "machine time s": machine_time,
        }
    return _RunResult(history=hist, machine_time=machine_time, trace=trace,
                     mistakes_per_epoch=mistakes, waited=waited, sums=sums)
