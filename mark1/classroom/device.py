"""Device response plots: one potentiometer driven pulse after pulse, one photocell lit and darkened.

In the manner of analog-hardware toolkits (a device's response to a pulse train, its
spread across devices, its drift), but with the machine's own parts: the pots are a
real :class:`~mark1.machine.potentiometers.PotentiometerRack` driven by SimPy through
``rack.drive``, the photocell a real :class:`~mark1.machine.retina.Retina` read through
``retina.expose``. Nothing here re-derives the physics; it only chooses the stimulus.

* :func:`rack_response` — a few pots (one nominal, the others with the motor spread
  drawn from the seed) get the same train of reinforcement pulses, one per machine
  cycle: up, reversed, up again. Shows the speed limit (ramps), backlash at a reversal
  (a pause, then less travel), the end stops at ±1, the spread between motors, the
  travel a single pulse delivers against the travel commanded (a straight line fanned
  by the motor spread for the continuous drive, a staircase of whole steps for the
  ratchet) and, left alone afterwards, the decay towards 0.
* :func:`photocell_response` — one nominal cell: the rise after lamps on, the fall in
  the dark (fast phase, then the slow tail), and the reading of the same white card as
  the cell becomes light-adapted (light history) and recovers in the dark.

Arrays are indexed from 0 (pulse 0 is the first pulse); the figures number pulses
from 1 for people. Times are seconds of machine time.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import simpy

from mark1._utils.atomic import write_text
from mark1._utils.language import NEGATIVE, NEUTRAL, POSITIVE, duration, duration_unit, percent
from mark1._utils.progress import progress_bar
from mark1.machine.device_fit import (DeviceFit, DeviceTable, fit_table, fitted_spec, law_steps, overrides_toml,
                                       pulse_command, replay, runs, table_from_values)
from mark1.exceptions import InputError
from mark1.machine.potentiometers import PotentiometerRack
from mark1.machine.retina import Retina, RetinaState
from mark1.specs import MachineSpec
from mark1.viz.figure import new_figure, save_figure

#: The most dotted grid lines a ratchet panel draws an axis; finer steps are drawn as a band.
_MAX_GRID_LINES = 200


#: A photocell's signal is light, which the language draws in grey: a dark grey line on the white axes
#: (its threshold and sampling moments are the language's NEUTRAL grey, dashed or thin).
_SIGNAL = "0.2"

__all__ = ["RackResponse", "PhotocellResponse", "rack_response", "photocell_response",
           "rack_response_figure", "photocell_response_figure", "write_device", "fit_figure", "write_fit",
           "table_response"]


@dataclass
class RackResponse:
    """What the pots did under a pulse train.

    Attributes
    ----------
    command : array (n_pulses,)
        Travel commanded by each pulse (full scale, signed).
    pulse_time : array (n_pulses,)
        Machine time of each pulse (s).
    position : array (n_pulses + 1, n_pots)
        Wiper positions at rest: row 0 before the first pulse, row i after pulse i - 1.
    duration : array (n_pulses, n_pots)
        How long each pot's motor ran for each pulse (s).
    t, x : arrays (m,), (m, n_pots)
        Wiper positions read during the train: finely while the motors may run after
        each pulse, and once just before the next pulse.
    gain : array (n_pots,)
        Each motor's speed relative to nominal (pot 0 is nominal).
    idle_t, idle_x : arrays (k,), (k, n_pots)
        Positions read while the rack is left alone after the train (decay).
    spec : MachineSpec
    transfer_command, transfer_travel : arrays (m,), (m, n_pots)
        Travel commanded by one pulse, from 0 to 3 pulses' worth (full scale), and the
        travel each pot then makes from rest at 0 (empty when not asked for).

    Examples
    --------
    >>> from mark1.specs import SMALL
    >>> r = rack_response(SMALL, pulses=(2, 1), n_pots=1)
    >>> r.command, r.position[:, 0].round(4)
    (array([ 0.02,  0.02, -0.02]), array([0.61 , 0.63 , 0.65 , 0.633]))
    """

    command: np.ndarray
    pulse_time: np.ndarray
    position: np.ndarray
    duration: np.ndarray
    t: np.ndarray
    x: np.ndarray
    gain: np.ndarray
    idle_t: np.ndarray
    idle_x: np.ndarray
    spec: MachineSpec
    transfer_command: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    transfer_travel: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 0)))


def rack_response(spec: MachineSpec, *, pulses=(30, 25, 15), start: float = 0.61, n_pots: int = 6,
                  seed: int = 0, samples_per_pulse: int = 25, transfer: int = 0) -> RackResponse:
    """Drive a row of pots with the same reinforcement pulses, one per machine cycle.

    Parameters
    ----------
    spec : MachineSpec
        Its ``rack`` group is the device; ``trainer.increment`` the travel of one
        pulse; ``timing.period`` the time between pulses.
    pulses : sequence of int
        Pulses up, then down, then up, ... (alternating directions, starting up).
    start : float
        Wiper position of every pot before the train (full scale).
    n_pots : int
        Pots driven together; pot 0 has a nominal motor, the others a motor speed
        drawn with ``rack.motor_spread`` from ``seed``.
    seed : int
        Seed of the motor-spread draw.
    samples_per_pulse : int
        Readings of the wipers while a pulse's motors run (one more at the end of each cycle).
    transfer : int
        Commands from 0 to three pulses' travel at which one pulse from rest is given to
        every pot (``transfer_command``, ``transfer_travel``); 0 for none.

    Returns
    -------
    RackResponse

    Examples
    --------
    Four pulses up, three down, on two pots (the second with a motor of its own speed).
    Each pulse of 0.02 full scale runs its motor 80 ms at 0.25 full scale per second;
    the reversal first takes up the backlash (0.003). The decay is off by default (the
    pots hold their value); ``rack.decay_time`` switches it on:

    >>> from mark1.specs import SMALL
    >>> r = rack_response(SMALL, pulses=(4, 3), n_pots=2)
    >>> r.duration[:, 0].round(3).tolist()
    [0.08, 0.08, 0.08, 0.08, 0.08, 0.08, 0.08]
    >>> r.position[:, 0].round(4).tolist()
    [0.61, 0.63, 0.65, 0.67, 0.69, 0.673, 0.653, 0.633]

    A ratchet of 0.01 full scale steps gives whole steps, on every pot alike: a command
    of 0.004 turns nothing, 0.008 one step, 0.015 two:

    >>> r = rack_response(SMALL.with_overrides({"rack.drive": "ratchet"}), pulses=(1,), n_pots=2, transfer=16)
    >>> r.transfer_command[[1, 2, 4]].round(3).tolist(), r.transfer_travel[[1, 2, 4]].round(3).tolist()
    ([0.004, 0.008, 0.015], [[0.0, 0.0], [0.01, 0.01], [0.02, 0.02]])
    """
    if not -1.0 <= start <= 1.0:
        raise InputError(f"start: expected a wiper position in [-1, 1], got {start!r}")
    if n_pots < 1 or not len(pulses) or min(pulses) < 0:
        raise InputError("pulses, n_pots: expected at least one pot and non-negative pulse counts")
    gain = PotentiometerRack.motor_gains(spec.rack, (1, n_pots), np.random.default_rng(seed))
    gain[0, 0] = 1.0
    device, noise = np.random.SeedSequence(seed).spawn(2)     # the device's spread and noise follow the seed too
    rack = PotentiometerRack(spec.rack, 1, n_pots, spec.response.n_responses, gain, device_seed=device,
                             noise_seed=noise)
    rack.mask[:] = True                                  # a bench row: every pot wired
    rack.p_from[:] = rack.p_to[:] = start
    inc, period = spec.trainer.increment, spec.timing.period
    command = np.concatenate([np.full(n, inc * (1 if i % 2 == 0 else -1)) for i, n in enumerate(pulses)])
    n = len(command)
    position = np.empty((n + 1, n_pots))
    duration = np.empty((n, n_pots))
    position[0] = rack.positions(0.0)[0]
    t_read, x_read = [], []
    env = simpy.Environment()
    move = rack.move_duration(inc)        # the machine's own law: a ratchet rounds to the nearest step
    # read finely while a pulse's motors may run (slowest motor, plus backlash), then once at the cycle's end
    window = min(0.9 * period, 1.6 * move / max(float(gain.min()), 0.1))
    offsets = np.append(np.linspace(0.0, window, samples_per_pulse), period * (1 - 1e-3))

    def trainer(env):
        for i, c in enumerate(command):
            t0 = i * period
            if env.now < t0:
                yield env.timeout(t0 - env.now)
            yield env.process(rack.drive(env, np.full((1, n_pots), c)))
            duration[i] = rack.t_end[0] - t0
            position[i + 1] = rack.positions(env.now)[0]

    def reader(env):
        for t in (np.arange(n)[:, None] * period + offsets[None, :]).ravel():
            if t > env.now:
                yield env.timeout(t - env.now)
            t_read.append(env.now)
            x_read.append(rack.positions(env.now)[0].copy())

    env.process(trainer(env))
    env.process(reader(env))
    env.run()
    end = max(env.now, rack.busy_until)
    tau = spec.rack.decay_time
    horizon = 3.0 * tau if np.isfinite(tau) else 86400.0 * 3
    idle_t = end + np.linspace(0.0, horizon, 200)
    idle_x = np.array([rack.positions(t)[0] for t in idle_t])
    if transfer:
        # one pulse from rest for each command: the same rack (same seed, so the same motors)
        t_cmd = np.linspace(0.0, 3.0 * inc, int(transfer) + 1)[1:]
        t_travel = np.array([rack_response(spec.with_overrides({"trainer.increment": float(c)}), pulses=(1,),
                                           start=0.0, n_pots=n_pots, seed=seed, samples_per_pulse=2).position[1]
                             for c in t_cmd])
        t_cmd, t_travel = np.r_[0.0, t_cmd], np.vstack([np.zeros(n_pots), t_travel])
    else:
        t_cmd, t_travel = np.zeros(0), np.zeros((0, n_pots))
    return RackResponse(command=command, pulse_time=np.arange(n) * period, position=position,
                        duration=duration, t=np.array(t_read), x=np.array(x_read), gain=gain[0],
                        idle_t=idle_t, idle_x=idle_x, spec=spec, transfer_command=t_cmd, transfer_travel=t_travel)


@dataclass
class PhotocellResponse:
    """One nominal photocell's responses (signal relative to a dark-adapted cell in paper white).

    Attributes
    ----------
    rise_t, rise : arrays (m,)
        Seconds after lamps on (white card, cell dark before) and the signal then.
    fall_t, fall : arrays (m,)
        Seconds in the dark after a long time in white light, and the signal then.
    history_t, history_light, history : arrays (k,)
        Sampling instant of each card of a sequence (white cards, then black, then white),
        the light on the cell, and the signal read.
    threshold : float
        The S-unit threshold signal (figure polarity: the S-unit fires below it).
    spec : MachineSpec

    Examples
    --------
    >>> from mark1.specs import SMALL
    >>> r = photocell_response(SMALL, cards=(2, 1, 2))
    >>> r.history_light.tolist(), bool(r.history[2] < r.threshold < r.history[0])
    ([1.0, 1.0, 0.0, 1.0, 1.0], True)
    """

    rise_t: np.ndarray
    rise: np.ndarray
    fall_t: np.ndarray
    fall: np.ndarray
    history_t: np.ndarray
    history_light: np.ndarray
    history: np.ndarray
    threshold: float
    spec: MachineSpec


def photocell_response(spec: MachineSpec, *, cards=(15, 3, 15), soak: float = 10.0) -> PhotocellResponse:
    """Light one photocell and darken it, reading it through :meth:`Retina.expose`.

    Parameters
    ----------
    spec : MachineSpec
        Its ``retina`` group is the device (the cell is nominal: no cell-to-cell spread);
        ``timing`` gives the card cycle of the light-history sequence.
    cards : (int, int, int)
        White cards, black cards, white cards in the light-history sequence.
    soak : float
        Seconds in white light before the fall (long enough to fill the slow tail).

    Returns
    -------
    PhotocellResponse

    Examples
    --------
    Three white cards, two black, three white: the cell tires in the light (its signal
    falls from card to card), reads dark on black, and has partly recovered after:

    >>> from mark1.specs import SMALL
    >>> r = photocell_response(SMALL, cards=(3, 2, 3))
    >>> r.history.round(3).tolist()
    [0.996, 0.93, 0.882, 0.001, 0.0, 0.89, 0.853, 0.824]
    >>> round(r.threshold, 3)
    0.48
    """
    rs = spec.retina.replace(shape=(1, 1))
    cell = Retina(rs)
    dark = RetinaState.dark(1)
    white, black = np.ones((1, 1)), np.zeros((1, 1))
    tm = spec.timing
    top = 6.0 * rs.rise_time
    rise_t = np.linspace(0.0, max(top, 1.5 * tm.settle), 200)
    rise = np.array([cell.expose(white, np.array([t]), dark, card_change=0.0, settle=t)[0][0, 0]
                     for t in rise_t])
    fall_t = np.linspace(0.0, 4.0 * rs.slow_fall_time, 300)
    pair = np.vstack([white, black])
    fall = np.array([cell.expose(pair, np.array([soak, 0.0]), dark, card_change=t, settle=0.0)[0][1, 0]
                     for t in fall_t])
    n_w, n_b, n_w2 = cards
    light = np.concatenate([np.ones(n_w), np.zeros(n_b), np.ones(n_w2)])[:, None]
    lit = np.full(len(light), tm.period - tm.card_change)
    signal, _ = cell.expose(light, lit, dark, card_change=tm.card_change, settle=tm.settle)
    history_t = np.arange(len(light)) * tm.period + tm.card_change + tm.settle
    return PhotocellResponse(rise_t=rise_t, rise=rise, fall_t=fall_t, fall=fall, history_t=history_t,
                             history_light=light[:, 0], history=signal[:, 0],
                             threshold=float(cell.signal_threshold), spec=spec)


# -- figures (matplotlib through mark1.viz.figure only) ---------------------------------

def rack_response_figure(r: RackResponse, *, out=None, dpi: int = 100, measured: DeviceTable | None = None):
    """The pots' response to a pulse train, in five panels and a key.

    Position against pulse number, single pulses against time (free travel, the end
    stop, a reversal; for a ratchet the steps marked), the travel one pulse delivers
    against the travel commanded (drawn when ``r`` has it: a line fanned by the motor
    spread for the continuous drive, a staircase of whole steps for a ratchet), each
    motor's run time per pulse, the decay when left alone, and the drive's parameters
    in words.

    Parameters
    ----------
    r : RackResponse
        From :func:`rack_response`.
    out : path, optional
        Save the figure there (atomically; PNG unless the ending says otherwise).
    dpi : int
        Resolution of the saved file.
    measured : DeviceTable, optional
        A measured device whose pulse train ``r`` replays (:func:`table_response`): its
        readings are drawn over the pots' positions.

    Returns
    -------
    matplotlib.figure.Figure
        Six axes (the last holds the key), the nominal motor dark, the others grey.

    Examples
    --------
    >>> from mark1.specs import SMALL
    >>> fig = rack_response_figure(rack_response(SMALL, pulses=(4, 3), n_pots=2, transfer=12))
    >>> len(fig.axes), fig.axes[0].get_ylabel(), fig.axes[2].get_xlabel()
    (6, 'wiper position (full scale)', 'travel commanded by one pulse (full scale)')
    """
    s = r.spec.rack
    fig = new_figure(15, 7.6)
    axes = fig.subplots(2, 3)
    n, n_pots = r.duration.shape
    pulse_no = np.arange(n + 1)                          # 0 = before the first pulse
    colors = ["0.1"] + ["0.6"] * (n_pots - 1)
    ratchet = s.drive == "ratchet"
    ax = axes[0, 0]
    for j in range(n_pots):
        ax.plot(pulse_no, r.position[:, j], drawstyle="steps-post" if ratchet else "default",
                color=colors[j], lw=2 if j == 0 else 0.9, marker="." if j == 0 else None, ms=3,
                zorder=3 if j == 0 else 2,
                label="nominal motor" if j == 0 else (("other motors (spread; a ratchet steps them alike)" if ratchet
                                                       else "other motors (spread)") if j == 1 else None))
    if measured is not None:
        ax.plot(np.arange(len(measured.position)), measured.position, "o", ms=2.5, mfc="none", color=NEUTRAL,
                zorder=4, label=f"measured ({Path(measured.source).name or 'table'})")
    _stops(ax, s)
    rev = np.flatnonzero(np.diff(np.sign(r.command))) + 1
    for i in rev:
        ax.axvline(i, color="0.8", lw=0.8, ls=":")
    ax.set(xlabel="pulse number (after pulse n; 0 = before the first)", ylabel="wiper position (full scale)",
           title=f"{n} pulses of {r.spec.trainer.increment:.3g} full scale, one every {r.spec.timing.period:g} s")
    ax.legend(loc="lower left", fontsize=8)

    ax = axes[0, 1]
    # single pulses of the nominal motor against time since the pulse: free travel, the
    # pulse that meets the end stop, one against the stop, the reversal and the one after
    i0 = int(rev[0]) if len(rev) else n - 1
    hits = np.flatnonzero((r.duration[:, 0] > 0) & (r.duration[:, 0] < 0.999 * r.duration[0, 0]))
    picks = {0: "free travel", i0: "reversal (backlash)", min(i0 + 1, n - 1): "after the reversal"}
    if len(hits):
        picks[int(hits[0])] = "meets the end stop"
        picks[int(hits[0]) + 1] = "against the end stop"
    for k, (i, name) in enumerate(sorted(picks.items())):
        sel = (r.t >= r.pulse_time[i]) & (r.t < r.pulse_time[i] + r.spec.timing.period * 0.999)
        if not sel.any():
            continue
        x0 = r.position[i, 0]
        ax.plot((r.t[sel] - r.pulse_time[i]) * 1e3, r.x[sel, 0] - x0, marker=".", ms=3, lw=1.4,
                color=f"C{k}", label=f"pulse {i + 1}: {name}")
    ax.axhline(0, color="0.6", lw=0.6)
    span = max(float(r.duration[:, 0].max()), 1e-3) * 1e3
    ax.set_xlim(-0.05 * span, 1.3 * span)
    what = [f"speed limit {s.motor_speed:g} full scale/s" if np.isfinite(s.motor_speed) else "instant moves",
            f"backlash {s.backlash:g}" if s.backlash else "no backlash"]
    if ratchet:
        what[0] = f"ratchet steps of {s.step:.3g} every {s.step_time * 1e3:g} ms (dotted grid)"
        lo, hi = ax.get_ylim()
        # one dotted line a step while they can be told apart; finer steps are a band (a billion
        # steps would be a billion lines: memory and minutes for a grey rectangle)
        k0, k1 = math.ceil(lo / s.step), math.floor(hi / s.step)
        if k1 - k0 + 1 <= _MAX_GRID_LINES:
            for k in range(k0, k1 + 1):
                ax.axhline(k * s.step, color="0.75", lw=0.7, ls=":", zorder=0)
        else:
            ax.axhspan(lo, hi, color="0.93", zorder=0)
            what[0] = what[0].replace("(dotted grid)", "(too fine to draw: grey band)")
        n_times = 1.3 * span / (s.step_time * 1e3)
        if n_times <= _MAX_GRID_LINES:
            for k in range(1, int(n_times) + 1):
                ax.axvline(k * s.step_time * 1e3, color="0.75", lw=0.7, ls=":", zorder=0)
        elif "band" not in what[0]:
            ax.axvspan(0.0, 1.3 * span, color="0.93", zorder=0)
            what[0] = what[0].replace("(dotted grid)", "(too fine to draw: grey band)")
    ax.set(xlabel="ms after the pulse (machine time)", ylabel="travel of the nominal pot (full scale)",
           title="single pulses\n" + "; ".join(what))
    ax.legend(fontsize=8, loc="best")

    _transfer_panel(axes[0, 2], r, colors)

    ax = axes[1, 0]
    for j in range(n_pots - 1, -1, -1):
        ax.plot(np.arange(1, n + 1), r.duration[:, j] * 1e3, color=colors[j], lw=2 if j == 0 else 0.9,
                marker="." if j == 0 else None, ms=3)
    ax.set(xlabel="pulse number", ylabel="motor run time (ms)",
           title="motor run time per pulse\n(short at an end stop: the limit switch cuts it)")
    ax.set_ylim(bottom=0)

    ax = axes[1, 1]
    unit, size = duration_unit(float(r.idle_t[-1] - r.idle_t[0]))
    idle = (r.idle_t - r.idle_t[0]) / size
    for j in range(n_pots - 1, -1, -1):
        ax.plot(idle, r.idle_x[:, j], color=colors[j], lw=2 if j == 0 else 0.9)
    tau = s.decay_time
    ax.set(xlabel=f"time left alone after the train ({unit})", ylabel="wiper position (full scale)",
           title=(f"decay towards 0, time constant {duration(tau)}" if np.isfinite(tau)
                  else "decay off: the pots hold their value"))
    ax.axhline(0, color="0.5", lw=0.6)
    _drive_key(axes[1, 2], r)
    spread = f"; motor spread sigma {s.motor_spread:g}" if s.motor_spread else "; no motor spread"
    return _finish(fig, f"One pot, pulse after pulse — {r.spec.name}: {s.drive} drive{spread}, "
                        f"end stops {'on' if s.end_stops else 'off'}", out, dpi)


def _stops(ax, s) -> None:
    if s.end_stops:                               # at the pots' nominal bounds (±1 on the Mark I)
        for y in (s.w_min, s.w_max):
            ax.axhline(y, color="k", lw=1, ls="--")
        ax.text(0.99, s.w_max - 0.015, f"end stop {s.w_max:+.3g}", transform=ax.get_yaxis_transform(), ha="right",
                va="top", color="k", fontsize=8)


def _transfer_panel(ax, r: RackResponse, colors) -> None:
    """The travel one pulse from rest delivers against the travel commanded, every pot."""
    s = r.spec.rack
    if not len(r.transfer_command):
        ax.set_axis_off()
        ax.text(0.5, 0.5, "travel against command:\nnot computed (rack_response(..., transfer=0))",
                ha="center", va="center", fontsize=9, transform=ax.transAxes)
        return
    c = r.transfer_command
    ax.plot(c, c, color="0.5", lw=1, ls="--", label="as commanded")
    for j in range(r.transfer_travel.shape[1] - 1, -1, -1):
        ax.plot(c, r.transfer_travel[:, j], color=colors[j], lw=2 if j == 0 else 0.9, zorder=3 if j == 0 else 2,
                drawstyle="steps-mid" if s.drive == "ratchet" else "default")
    inc = r.spec.trainer.increment
    ax.axvline(inc, color="0.75", lw=0.8, ls=":")
    ax.text(inc, 0.02, " one pulse of the trainer", transform=ax.get_xaxis_transform(), fontsize=8, color="0.4")
    ax.set(xlabel="travel commanded by one pulse (full scale)", ylabel="travel made (full scale)",
           title=(f"ratchet: whole steps of {s.step:.3g},\nalike on every pot" if s.drive == "ratchet"
                  else "continuous: travel in proportion,\nfanned by the motor spread"))
    ax.legend(fontsize=8, loc="upper left")


def _drive_key(ax, r: RackResponse) -> None:
    """The rack's drive in words, in place of a sixth panel."""
    ax.set_gid("drive")                               # on a slide: rack-drive.png
    s, tm = r.spec.rack, r.spec.timing
    speed = f"{s.motor_speed:g} full scale/s" if np.isfinite(s.motor_speed) else "instant"
    lines = [f"drive: {s.drive}"]
    if s.drive == "ratchet":
        lines += [f"  a pulse gives round(|command| / {s.step:.3g}) steps", f"  of {s.step:.3g} full scale, "
                  f"one every {s.step_time * 1e3:g} ms;", "  the motor spread does not change the travel"]
    else:
        lines += [f"  motor speed {speed}, each motor", f"  × its own gain (spread sigma {s.motor_spread:g})"]
    lines += _law_lines(s)
    stops = "±1" if (s.w_max, s.w_min) == (1.0, -1.0) else f"{s.w_min:.3g} and {s.w_max:+.3g}"
    lines += [f"backlash: {s.backlash:g} full scale at a reversal",
              f"end stops: {f'at {stops} (a limit switch cuts the motor)' if s.end_stops else 'none'}",
              f"decay: {'off' if not np.isfinite(s.decay_time) else 'time constant ' + duration(s.decay_time)}",
              f"pulse: {r.spec.trainer.increment:g} full scale, one every {duration(tm.period)}"]
    ax.set_axis_off()
    ax.text(0.0, 1.0, "\n".join(lines), va="top", ha="left", fontsize=9.5, family="monospace",
            transform=ax.transAxes)


def _law_lines(s) -> list[str]:
    """The rack's device law and variation in words (nothing for the Mark I's constant, noiseless pot)."""
    params = {"linear": ("gamma_up", "gamma_down"), "soft-bounds": ("w_max", "w_min"),
              "exponential": ("A_up", "A_down", "gamma_up", "gamma_down", "exp_a", "exp_b"),
              "power": ("pow_gamma", "pow_up_down"), "piecewise": ()}.get(s.law, ())
    lines = []
    if s.law != "constant":
        lines.append(f"law: {s.law}" + (" (" + ", ".join(f"{k} {getattr(s, k):.3g}" for k in params) + ")"
                                        if params else f" ({len(s.piecewise_up)} nodes)"))
    extra = [f"{k} {getattr(s, k):.3g}" for k in ("up_down", "dw_min_std", "write_noise_std", "dw_min_dtod",
                                                   "corrupt_devices_prob") if getattr(s, k)]
    if extra:
        lines.append("  " + ", ".join(extra))
    return lines


def photocell_response_figure(r: PhotocellResponse, *, out=None, dpi: int = 100):
    """One photocell's response, in three panels: rise after lamps on, fall in the dark
    (log scale), and the light history of a sequence of cards.

    Parameters
    ----------
    r : PhotocellResponse
        From :func:`photocell_response`.
    out, dpi
        As in :func:`rack_response_figure`.

    Returns
    -------
    matplotlib.figure.Figure
        Three panels; the S-unit threshold is marked on the rise and the light history.

    Examples
    --------
    >>> from mark1.specs import SMALL
    >>> fig = photocell_response_figure(photocell_response(SMALL, cards=(3, 2, 3)))
    >>> [ax.get_title() for ax in fig.axes][::2]
    ['rise', 'light history (history_time 5 s)']
    """
    rs, tm = r.spec.retina, r.spec.timing
    fig = new_figure(12, 3.9)
    axes = fig.subplots(1, 3)
    ax = axes[0]
    ax.plot(r.rise_t * 1e3, r.rise, color=_SIGNAL, lw=2)
    ax.axvline(rs.rise_time * 1e3, color="0.6", ls=":", lw=1)
    ax.text(rs.rise_time * 1e3, 0.05, f" rise_time {rs.rise_time * 1e3:g} ms", fontsize=8, color="0.4")
    ax.axvline(tm.settle * 1e3, color=NEUTRAL, lw=1)
    ax.text(tm.settle * 1e3, 0.2, " S-units sampled", fontsize=8, color=NEUTRAL)
    ax.axhline(r.threshold, color=NEUTRAL, ls="--", lw=1)
    ax.text(0, r.threshold, " S threshold", va="bottom", fontsize=8, color=NEUTRAL)
    ax.set(xlabel="ms after lamps on (paper white, cell dark before)", ylabel="signal (1 = settled in white)",
           title="rise", ylim=(0, 1.08))
    ax = axes[1]
    ax.semilogy(r.fall_t * 1e3, np.maximum(r.fall, 1e-6), color=_SIGNAL, lw=2)
    ax.axvline(tm.card_change * 1e3, color=NEUTRAL, lw=1)
    ax.text(tm.card_change * 1e3, 0.5, " card change ends", fontsize=8, color=NEUTRAL)
    ax.set(xlabel="ms in the dark (after a long time in white)", ylabel="signal (log)",
           title=f"fall: fast ({rs.fall_time * 1e3:g} ms), then the slow tail ({rs.slow_fall_time:g} s, "
                 f"{percent(rs.slow_fraction, 0)})")
    ax.title.set_fontsize(10)
    ax.set_ylim(bottom=max(1e-4, float(r.fall.min()) * 0.5) if r.fall.min() > 0 else 1e-4)
    ax = axes[2]
    white = r.history_light > 0
    ax.plot(r.history_t, np.where(white, r.history, np.nan), "o-", color=_SIGNAL, mfc="white", ms=3.5,
            label="white card")
    ax.plot(r.history_t, np.where(white, np.nan, r.history), "o", color=_SIGNAL, ms=3, label="black card")
    ax.axhline(1 / rs.history_ratio, color="0.5", ls=":", lw=1)
    ax.text(r.history_t[0], 1 / rs.history_ratio, f" fully light-adapted: 1/{rs.history_ratio:g}",
            va="top", fontsize=8, color="0.4")
    ax.axhline(r.threshold, color=NEUTRAL, ls="--", lw=1)
    ax.text(r.history_t[0], r.threshold, " S threshold (fires below)", va="bottom", fontsize=8, color=NEUTRAL)
    ax.set(xlabel=f"machine time (s), one card every {tm.period:g} s", ylabel="signal when sampled",
           title=f"light history (history_time {rs.history_time:g} s)", ylim=(0, 1.08))
    ax.legend(loc="lower right", fontsize=8)
    return _finish(fig, f"One photocell — {r.spec.name}: gamma {rs.gamma:g}, dynamics "
                        f"{'on' if rs.dynamics else 'off'}", out, dpi)


def _finish(fig, title: str, out, dpi: int):
    """Title, lay out and (when ``out`` is given) save a device figure atomically."""
    fig.suptitle(title, fontsize=12)
    fig.tight_layout()
    if out is not None:
        save_figure(fig, out, dpi=dpi)
    return fig


def _csv(header, rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def write_device(kind: str, spec: MachineSpec, out, progress: bool = False) -> list[Path]:
    """Write a device's figure and its numbers as CSV into folder ``out`` (``mark1 device``).

    Parameters
    ----------
    kind : {"rack", "photocell"}
        ``rack``: ``rack.png``, ``rack_pulses.csv`` (positions and run times per pulse)
        and ``rack_time.csv`` (positions read during the train); ``photocell``:
        ``photocell.png`` and the rise, fall and light-history CSVs.
    spec : MachineSpec
    out : path
        Folder (made if missing); every file is written atomically.
    progress : bool
        Show a bar on a terminal (the figure takes a few seconds).

    Returns
    -------
    list of Path
        The files written, the figure first.

    Examples
    --------
    >>> import tempfile
    >>> from mark1.specs import SMALL
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     print([path.name for path in write_device("photocell", SMALL, folder)])
    ['photocell.png', 'photocell_rise.csv', 'photocell_fall.csv', 'photocell_history.csv']
    """
    if kind not in ("rack", "photocell"):
        raise InputError(f"device: expected 'rack' or 'photocell', got {kind!r}")
    bar = progress_bar(1, "figure", show=progress)
    try:
        return _write_device(kind, spec, Path(out))
    finally:
        bar.update(1)
        bar.close()


def _write_device(kind, spec, out) -> list[Path]:
    if kind == "rack":
        r = rack_response(spec, transfer=60)
        n_pots = r.position.shape[1]
        pots = [f"pot{j}" for j in range(n_pots)]
        write_text(out / "rack_pulses.csv", _csv(
            ["pulse", "time_s", "command"] + [f"{p}_after" for p in pots] + [f"{p}_run_s" for p in pots],
            [[i, repr(float(r.pulse_time[i])), repr(float(r.command[i]))]
             + [repr(float(v)) for v in r.position[i + 1]] + [repr(float(v)) for v in r.duration[i]]
             for i in range(len(r.command))]))
        write_text(out / "rack_time.csv", _csv(
            ["time_s"] + pots, [[repr(float(t))] + [repr(float(v)) for v in x] for t, x in zip(r.t, r.x)]))
        rack_response_figure(r, out=out / "rack.png")
        return [out / "rack.png", out / "rack_pulses.csv", out / "rack_time.csv"]
    cell = photocell_response(spec)
    write_text(out / "photocell_rise.csv", _csv(["time_s", "signal"], zip(map(repr, cell.rise_t.tolist()),
                                                                           map(repr, cell.rise.tolist()))))
    write_text(out / "photocell_fall.csv", _csv(["dark_s", "signal"], zip(map(repr, cell.fall_t.tolist()),
                                                                           map(repr, cell.fall.tolist()))))
    write_text(out / "photocell_history.csv", _csv(
        ["card", "time_s", "light", "signal"],
        [[i, repr(float(t)), repr(float(li)), repr(float(v))]
         for i, (t, li, v) in enumerate(zip(cell.history_t, cell.history_light, cell.history))]))
    photocell_response_figure(cell, out=out / "photocell.png")
    return [out / "photocell.png", out / "photocell_rise.csv", out / "photocell_fall.csv",
            out / "photocell_history.csv"]


# -- a measured device: its table over the fitted law ------------------------------------

def table_response(fit: DeviceFit, *, n_pots: int = 1, transfer: int = 0) -> RackResponse:
    """The fitted law's pot driven by the measured table's pulse train (from its first reading).

    One pulse a machine cycle (:func:`rack_response`), the command one pulse of the fitted
    device (:func:`~mark1.machine.device_fit.pulse_command`), the device's noise off:
    the law's mean path, to draw the measured readings over (``rack_response_figure(...,
    measured=fit.table)``).

    Parameters
    ----------
    fit : DeviceFit
        From :func:`~mark1.machine.device_fit.fit_table`; its best law is driven.
    n_pots, transfer : int
        As in :func:`rack_response`.

    Returns
    -------
    RackResponse

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> from mark1.machine.device_fit import fit_table, pulse_table
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0, "rack.law": "soft-bounds",
    ...                               "rack.w_max": 0.5})
    >>> fit = fit_table(pulse_table(spec, (20, 10)), spec, laws=["constant", "soft-bounds"])
    >>> r = table_response(fit)
    >>> fit.best.law, bool(np.allclose(r.position[:, 0], fit.table.position))
    ('soft-bounds', True)
    """
    spec = fitted_spec(fit.best, fit.spec)
    spec = spec.with_overrides({"trainer.increment": pulse_command(spec), "rack.motor_spread": 0.0})
    return rack_response(spec, pulses=runs(fit.table.direction), start=float(fit.table.position[0]),
                         n_pots=n_pots, transfer=transfer, samples_per_pulse=5)


def fit_figure(fit: DeviceFit, *, out=None, dpi: int = 100):
    """A measured device against the laws fitted to it, in three panels.

    The readings pulse after pulse with the best law's path from the first reading
    (open loop); each pulse's change against the position it started from, up and down,
    with the best law's step; the residuals of the best law and of the constant law.

    Parameters
    ----------
    fit : DeviceFit
    out, dpi
        As in :func:`rack_response_figure`.

    Returns
    -------
    matplotlib.figure.Figure
        Three axes.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> from mark1.machine.device_fit import fit_table, pulse_table
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> fig = fit_figure(fit_table(pulse_table(spec, (10, 10)), spec, laws=["constant", "linear"]))
    >>> [ax.get_xlabel() for ax in fig.axes]
    ['pulse number (0 = before the first)', 'position before the pulse (full scale)', 'pulse number']
    """
    t, best = fit.table, fit.best
    spec = fitted_spec(best, fit.spec)
    fig = new_figure(15, 4.6)
    axes = fig.subplots(1, 3)
    k = np.arange(len(t.position))
    ax = axes[0]
    ax.plot(k, t.position, "o", ms=2.5, mfc="none", color=NEUTRAL, label="measured")
    ax.plot(k, replay(spec, t), color="0.1", lw=1.6, label=f"{best.law} law from the first reading")
    ax.set(xlabel="pulse number (0 = before the first)", ylabel="position (full scale)",
           title=f"{len(t.step)} pulses" + (f" ({Path(t.source).name})" if t.source else ""))
    ax.legend(fontsize=8, loc="best")
    ax = axes[1]
    for sign, colour, name in ((1, POSITIVE, "up"), (-1, NEGATIVE, "down")):
        sel = t.direction == sign
        if not sel.any():
            continue
        ax.plot(t.position[:-1][sel], t.step[sel], ".", ms=3, color=colour, alpha=0.5, label=f"measured, {name}")
        grid = np.linspace(float(t.position.min()), float(t.position.max()), 101)
        probe = table_from_values(np.append(grid, grid[-1]), np.full(len(grid), sign))
        ax.plot(grid, law_steps(spec, probe), color=colour, lw=1.8, label=f"{best.law} law, {name}")
    ax.axhline(0, color="0.6", lw=0.6)
    ax.set(xlabel="position before the pulse (full scale)", ylabel="change of one pulse (full scale)",
           title="each pulse's change against where it started")
    ax.legend(fontsize=8, loc="best")
    ax = axes[2]
    ax.plot(np.arange(1, len(t.step) + 1), best.residuals, ".", ms=3, color="0.1", zorder=3,
            label=f"{best.law}: rms {best.rms:.3g}")
    others = [f for f in fit.fits if f.law == "constant" and f is not best]
    for f in others:                                 # the constant step beside it, behind
        ax.plot(np.arange(1, len(t.step) + 1), f.residuals, ".", ms=2, color=NEUTRAL, alpha=0.5, zorder=2,
                label=f"constant: rms {f.rms:.3g}")
    ax.axhline(0, color="0.6", lw=0.6)
    ax.set(xlabel="pulse number", ylabel="residual (full scale)", title="measured minus replayed position")
    ax.legend(fontsize=8, loc="best")
    title = f"Measured device, fitted: best law {best.law} (lowest held-out replay error of {len(fit.fits)})"
    return _finish(fig, title, out, dpi)


def _finite(x: float):
    return float(x) if np.isfinite(x) else None


def write_fit(table: DeviceTable, spec: MachineSpec, out, *, laws=None, progress: bool = False,
              bootstrap_samples: int = 0, intervals: bool = True
              ) -> tuple[DeviceFit, list[Path]]:
    """Fit every law to a measured table and write what the fit found into folder ``out``
    (``mark1 device fit``).

    Files: ``fit.toml`` (the best law as a scene's ``[machine.overrides]``), ``fit.json``
    (every law: parameters with their intervals, the terms the table cannot pin, replay errors,
    held-out replay errors, AIC, BIC, k, noise terms), ``fit_residuals.csv`` (each pulse's
    measured change and each law's replay residual), ``fit.png`` (:func:`fit_figure`).
    Every file is written atomically.

    Parameters
    ----------
    table : DeviceTable
    spec : MachineSpec
        The machine around the pot.
    out : path
    laws : sequence of str, optional
        Laws to fit (default all).
    progress : bool
        Show a progress bar over the fits.
    bootstrap_samples : int
        Tables simulated for the best law's 95 % intervals (0: none; :func:`~mark1.machine.device_fit.bootstrap`),
        in place of the restricted likelihood's.
    intervals : bool
        The best law's 95 % intervals from the restricted likelihood, and the terms the table cannot
        pin (:func:`~mark1.machine.device_fit.profile_intervals`).

    Returns
    -------
    (DeviceFit, list of Path)

    Examples
    --------
    >>> import tempfile
    >>> from mark1.specs import MARK_I
    >>> from mark1.machine.device_fit import pulse_table
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     fit, paths = write_fit(pulse_table(spec, (10, 10)), spec, folder, laws=["constant"])
    ...     print(fit.best.law, [p.name for p in paths])
    constant ['fit.toml', 'fit.json', 'fit_residuals.csv', 'fit.png']
    """
    fit = fit_table(table, spec, laws, bootstrap_samples=bootstrap_samples, progress=progress, intervals=intervals)
    out = Path(out)
    write_text(out / "fit.toml", overrides_toml(fit.best))
    rows = [{"law": f.law, "k": f.k, "rss": f.rss, "rms": f.rms, "heldout_rms": _finite(f.heldout_rms), "aic": f.aic,
             "bic": f.bic, "dw_min_std": _finite(f.dw_min_std), "write_noise_std": _finite(f.write_noise_std),
             "at_bound": list(f.at_bound), "intervals": {k: list(v) for k, v in f.intervals.items()},
             "unpinned": list(f.unpinned), "interval_note": f.interval_note,
             "params": {k: list(v) if isinstance(v, tuple) else v for k, v in f.params.items()}} for f in fit.fits]
    write_text(out / "fit.json", json.dumps({"table": table.source, "pulses": len(table.step),
                                             "scale": list(table.scale), "best": fit.best.law, "laws": rows},
                                            indent=2) + "\n")
    write_text(out / "fit_residuals.csv", _csv(
        ["pulse", "direction", "position_before", "change"] + [f"residual_{f.law}" for f in fit.fits],
        [[k + 1, "up" if d > 0 else "down", repr(float(p)), repr(float(c))] + [repr(float(f.residuals[k]))
                                                                               for f in fit.fits]
         for k, (d, p, c) in enumerate(zip(table.direction, table.position[:-1], table.step))]))
    fit_figure(fit, out=out / "fit.png")
    return fit, [out / "fit.toml", out / "fit.json", out / "fit_residuals.csv", out / "fit.png"]
