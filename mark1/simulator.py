"""The discrete-event simulation of a training run (SimPy). Machine time lives here only.

One presentation, as the machine does it::

    t0                  card change: lamps off, the next card is put in the gate
    t0 + card_change    lamps on; the photocells start to respond
    + settle            S-units sampled
    + a_delay           A-units settle
    + r_delay           R-units settle; the trainer compares lamps and label
                        and sends pulses to the motors
    t0 + period         next card (waiting first for the motors, unless overlap is on)

Only the instants where the simulation must act are SimPy events: the trainer's read
of the R-units (one timeout per presentation) and the motors' moves (one timeout per
command); card change, lamps on, S and A settling and the end of the period are logged
in the trace at their computed times. Photocell responses between events are closed form
(:meth:`Retina.expose`), computed for blocks of upcoming cards at once and recomputed
only when a wait for the motors shifts the schedule.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass

import numpy as np
import simpy

from .atomic import atomic_path
from .patchboard import Patchboard, with_bias
from .potentiometers import PotentiometerRack
from .retina import Retina, RetinaState
from .rules import RULES, erring
from .specs import MachineSpec

__all__ = ["Trace", "SensoryPipeline", "simulate", "HISTORY_DTYPE"]

HISTORY_DTYPE = np.dtype([
    ("presentation", np.int64), ("epoch", np.int32), ("card", np.int64), ("label", np.int64),
    ("response", np.int64), ("correct", np.bool_), ("units_erred", np.int16),
    ("pots_moved", np.int32), ("start", np.float64), ("s_active", np.int16), ("a_active", np.int16),
])
"""One row per presentation. ``label`` and ``response`` are class indices into
``classes_``; ``start`` is the machine time (s) of the card change."""


class Trace:
    """The event log.

    Parameters
    ----------
    level : {"off", "summary", "full"}
        ``off`` keeps nothing; ``summary`` keeps counts per event kind (computed at the
        end, free during the run); ``full`` keeps every event.
    """

    LEVELS = ("off", "summary", "full")

    def __init__(self, level: str = "summary", listener=None):
        if level not in self.LEVELS:
            raise ValueError(f"trace: expected one of {', '.join(self.LEVELS)}, got {level!r}")
        self.level = level
        self.listener = listener
        self.events: list[tuple[float, str, int, str]] = []
        self.summary: dict[str, float] = {}

    @property
    def full(self) -> bool:
        return self.level == "full"

    def log(self, time: float, event: str, presentation: int, detail: str = "") -> None:
        self.events.append((float(time), event, int(presentation), detail))
        if self.listener is not None:
            self.listener(float(time), event, int(presentation), detail)

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self):
        return iter(self.events)

    def to_array(self) -> np.ndarray:
        """The events as a structured array (time, event, presentation, detail)."""
        dt = np.dtype([("time", float), ("event", object), ("presentation", np.int64), ("detail", object)])
        return np.array(self.events, dtype=dt)

    def to_csv(self, path: str | os.PathLike | None = None) -> str | None:
        """Write the events as CSV (atomically), or return the text when ``path`` is None."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["time_s", "event", "presentation", "detail"])
        for t, e, p, d in self.events:
            w.writerow([repr(t), e, p, d])
        if path is None:
            return buf.getvalue()
        with atomic_path(path) as tmp:
            tmp.write_text(buf.getvalue())
        return None

    def __repr__(self) -> str:
        return f"Trace(level={self.level!r}, {len(self.events)} events)"


class SensoryPipeline:
    """S-unit states and A-unit outputs of upcoming presentations, a block at a time.

    Everything up to φ does not depend on the weights, only on the timing, so it is
    computed for up to ``block`` presentations at once assuming the nominal schedule,
    and recomputed from a presentation whose lit time turned out longer (after which
    the look-ahead starts small and doubles while the schedule holds).

    Attributes
    ----------
    s_active, a_active : arrays (n_presentations,) int
        S-units and A-units that fired at each presentation (filled as blocks are made).
    """

    def __init__(self, retina: Retina, patchboard: Patchboard, light: np.ndarray,
                 order: np.ndarray, spec: MachineSpec, mask: np.ndarray, block: int = 256):
        self.retina, self.patchboard = retina, patchboard
        self.light, self.order = light, order
        self.steady = retina.steady_signal(light)          # per card, before adaptation
        t = spec.timing
        self.card_change, self.settle = t.card_change, t.settle
        self.nominal_lit = t.period - t.card_change
        self.noise = spec.rack.wiper_noise
        self.mask_t = mask.T.astype(float)
        self.block = block
        self.size = block                 # current look-ahead, shrunk after a re-timing
        self.start = self.stop = 0
        self._ends = None
        self.s_active = np.zeros(len(order), np.int16)
        self.a_active = np.zeros(len(order), np.int16)

    def _compute(self, first: int, state: RetinaState, lit_first: float | None = None) -> None:
        stop = min(first + self.size, len(self.order))
        lit = np.full(stop - first, self.nominal_lit)
        if lit_first is not None:
            lit[0] = lit_first
        cards = self.order[first:stop]
        signal, ends = self.retina.expose(self.light[cards], lit, state, card_change=self.card_change,
                                          settle=self.settle, steady=self.steady[cards])
        s = self.retina.fire(signal)
        phi = self.patchboard.associate(s)
        x = with_bias(phi)
        self.x = x
        # read noise of the sum of the active wipers of each unit (see PotentiometerRack.sums)
        self.noise_scale = self.noise * np.sqrt(x @ self.mask_t) if self.noise > 0 else None
        self.s_active[first:stop] = s.sum(axis=1)
        self.a_active[first:stop] = phi.sum(axis=1)
        self.start, self.stop, self._ends = first, stop, ends

    def ensure(self, p: int) -> int:
        """Make presentation ``p`` available; returns its row in ``x``/``noise_scale``."""
        if not (self.start <= p < self.stop):
            if self._ends is None:
                state = RetinaState.dark(self.retina.n_cells)
            else:
                state = self._ends.at(self.stop - self.start)
            self._compute(p, state)
            self.size = min(2 * self.size, self.block)   # the schedule held: look further ahead
        return p - self.start

    def retime(self, p: int, lit: float) -> None:
        """Presentation ``p`` stayed lit for ``lit`` seconds instead of the nominal time."""
        if abs(lit - self.nominal_lit) <= 1e-12 * max(1.0, lit):
            return
        self.size = 8                                       # waits come in runs: look ahead less
        self._compute(p, self._ends.at(p - self.start), lit_first=lit)


@dataclass
class RunResult:
    history: np.ndarray
    machine_time: float
    trace: Trace
    mistakes_per_epoch: np.ndarray
    waited: float = 0.0


def simulate(*, spec: MachineSpec, retina: Retina, patchboard: Patchboard, rack: PotentiometerRack,
             light: np.ndarray, order: np.ndarray, epoch_of: np.ndarray, label_index: np.ndarray,
             code, noise_rng: np.random.Generator, trace: Trace,
             env: simpy.Environment | None = None, progress=None) -> RunResult:
    """Run a training schedule on the machine in simulated time.

    Parameters
    ----------
    light : array (n_cards, n_cells)
        Relative illuminance of each card.
    order : array (n_presentations,) int
        Card shown at each presentation.
    epoch_of : array (n_presentations,) int
    label_index : array (n_cards,) int
        Class index of each card.
    code : OutputCode
        R-unit targets of each class and the decoding of the sums.
    noise_rng : Generator
        Stream for wiper read noise.
    env : simpy.Environment, optional
        Pass ``simpy.rt.RealtimeEnvironment(factor=...)`` to watch it in real time.
    progress : callable, optional
        Called with the presentation number after each presentation.
    """
    env = env if env is not None else simpy.Environment()
    tm, tr = spec.timing, spec.trainer
    rule = RULES[tr.rule]
    error_driven = tr.rule in ("alpha", "gamma")
    n = len(order)
    pipeline = SensoryPipeline(retina, patchboard, light, order, spec, rack.mask)
    full = trace.full
    current = [0]
    if full:
        rack.on_move = lambda t, e, d: trace.log(t, e, current[0], d)
    targets = code.targets.astype(float)
    labels = label_index[order]
    response = np.zeros(n, np.int64)
    units_erred = np.zeros(n, np.int16)
    pots_moved = np.zeros(n, np.int32)
    start = np.zeros(n)
    noise = _NoiseStream(noise_rng, targets.shape[1]) if spec.rack.wiper_noise > 0 else None
    mask = rack.mask
    phi_bool = np.ones(mask.shape[1], dtype=bool)
    inc, lms_rate = tr.increment, tr.lms_rate
    read_at = tm.card_change + tm.settle + tm.a_delay + tm.r_delay
    waited = [0.0]
    seg = _Segment()

    def read(p, now):
        """Sums, errors and responses of presentation p, read at ``now``.

        While no wiper moves, the sums of the upcoming presentations of the block are
        computed together (the wipers only shrink by decay, a known factor, and the
        noise is drawn per presentation); a move invalidates them.
        """
        if now < rack.busy_until:                      # overlap: wipers mid-move
            row = pipeline.ensure(p)
            seg.fill(p, p + 1, pipeline.x[row:row + 1], rack.sums(pipeline.x[row], now)[None, :],
                     noise, pipeline.noise_scale, row, targets, labels, code)
        elif not (seg.start <= p < seg.stop):
            row = pipeline.ensure(p)
            x = pipeline.x[row:]
            times = now + tm.period * np.arange(len(x))
            base = (x @ rack.p_to.T) * rack.decay_factors(times)[:, None]
            seg.fill(p, p + len(x), x, base, noise, pipeline.noise_scale, row, targets, labels, code)
        return p - seg.start

    def trainer(env):
        yield env.timeout(read_at)
        for p in range(n):
            current[0] = p
            t0 = env.now - read_at
            start[p] = t0
            k = read(p, env.now)
            response[p] = seg.response[k]
            if full:
                _log_presentation(trace, p, t0, tm, order[p], pipeline, seg.sums[k],
                                  code.classes[response[p]], code.classes[labels[p]])
            if seg.any_err[k] or not error_driven:
                t = targets[labels[p]]
                sums = seg.sums[k]
                units_erred[p] = int(erring(t, sums, code.tie).sum())
                phi_bool[:] = seg.x[k] > 0
                command = rule(phi_bool, t, sums, mask, inc, lms_rate, tie=code.tie)
                moving = int(np.count_nonzero(command))
                pots_moved[p] = moving
                if moving:
                    seg.stop = 0                        # the sums ahead are stale now
                    if full:
                        trace.log(env.now, "reinforce", p,
                                  f"{units_erred[p]} R-unit{'s' if units_erred[p] != 1 else ''} erred, "
                                  f"{moving} pots commanded")
                    motors = env.process(rack.drive(env, command))
                    if not tm.overlap:
                        yield motors
            end = t0 + tm.period
            if env.now > end:                       # waited for the motors past the period
                waited[0] += env.now - end
                if full:
                    trace.log(env.now, "waited for motors", p, f"{env.now - end:.4g} s past the period")
                pipeline.retime(p, env.now - t0 - tm.card_change)
                end = env.now
            if progress is not None:
                progress(p)
            if p + 1 < n:
                yield env.timeout(end + read_at - env.now)
            elif end > env.now:
                yield env.timeout(end - env.now)
        # the run ends when the last period is over and every wiper has stopped
        if env.now < rack.busy_until:
            yield env.timeout(rack.busy_until - env.now)

    env.process(trainer(env))
    env.run()
    rack.on_move = None
    hist = np.zeros(n, dtype=HISTORY_DTYPE)
    hist["presentation"] = np.arange(n)
    hist["epoch"] = epoch_of
    hist["card"] = order
    hist["label"] = labels
    hist["response"] = response
    hist["correct"] = response == labels
    hist["units_erred"] = units_erred
    hist["pots_moved"] = pots_moved
    hist["start"] = start
    hist["s_active"] = pipeline.s_active
    hist["a_active"] = pipeline.a_active
    return finish(hist, env.now, trace, waited[0])


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


class _Segment:
    """Sums, errors and responses of a run of upcoming presentations."""

    start = stop = 0

    def fill(self, p0, p1, x, base, noise, noise_scale, row, targets, labels, code):
        sums = base
        if noise is not None:
            sums = base + noise_scale[row:row + (p1 - p0)] * noise.get(p0, p1)
        self.start, self.stop, self.x, self.sums = p0, p1, x, sums
        self.any_err = erring(targets[labels[p0:p1]], sums, code.tie).any(axis=1)
        self.response = code.decode(sums)


def finish(hist: np.ndarray, machine_time: float, trace: Trace, waited: float) -> RunResult:
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
    return RunResult(history=hist, machine_time=machine_time, trace=trace,
                     mistakes_per_epoch=mistakes, waited=waited)


def _log_presentation(trace, p, t0, tm, card, pipeline, sums, response, label):
    """The instants of one presentation that need no event of their own."""
    trace.log(t0, "card change", p, f"card {card}, lamps off")
    trace.log(t0 + tm.card_change, "lamps on", p, "")
    t_s = t0 + tm.card_change + tm.settle
    trace.log(t_s, "S sampled", p, f"{int(pipeline.s_active[p])} S-units fire")
    trace.log(t_s + tm.a_delay, "A settled", p, f"{int(pipeline.a_active[p])} A-units fire")
    trace.log(t_s + tm.a_delay + tm.r_delay, "R read", p,
              "sums " + " ".join(f"{v:+.4g}" for v in sums) + f"; answer {response}, card shows {label}")
