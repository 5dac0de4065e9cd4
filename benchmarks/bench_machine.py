"""Speed of the machine, measured against peers in the same run.

    python benchmarks/bench_machine.py [--cards 10000] [--epochs 5] [--repeat 3] [--event-cards 500]
                                       [--deck both|digits|hard]

The workloads: rendered digit cards of 8 classes ("0".."7", 40 px glyphs jittered on the
card), and a hard deck beside it (the same 8 classes in heavy strokes
with heavy jitter, rotation, scale, slant, noise, blur and smudges, so that about half the
A-units fire and the machine errs often); MARK_I with every non-ideality on, trace off.
Sections 1 and 2 run on both decks, 3 and 4 on the digits.

Prints:

1. the analog machine, one epoch over the cards, in the timing configurations a user
   studies: MARK_I as it is, ``rack.drivers = 8``, ``timing.overlap``,
   overlap with 8 drivers, and MARK_I with a 1-day decay. Each
   row gives presentations per second (wall and CPU time of this process) of the
   compiled loop and of the event path (SimPy, the same kernel one card a call:
   ``_speed.COMPILED_LOOP = False``), measured in the same run, their ratio, and
   whether both give the same history, wipers and machine time (checked on the cards
   the event path ran; it runs on ``--event-cards`` cards where it is too slow for all,
   as the row says). The aims: MARK_I >= 100,000 presentations/s, 8 drivers and overlap
   with 8 drivers >= 50,000/s;
2. a full trace (every event, reading and move kept), compiled (up to each
   reinforcement) against the event path (on ``4 * --event-cards`` cards), and against
   the trace off (aim >= 20,000/s);
3. growth: overlap with 8 drivers on a tenth of the cards and on all of them, CPU time
   per presentation and the peak of memory allocated during the fit (tracemalloc), so
   that time and memory are seen to grow linearly with the cards;
4. the ideal machine (``spec.ideal()``, the exact vectorized path) against its peer:
   our own sensing (``sense`` + ``associate``) plus scikit-learn's
   ``Perceptron(shuffle=False, tol=None, eta0=1)`` on the same φ and epochs, on
   the 8 digit classes (the mistake-dense case: 1,450 mistakes in the first epoch) and
   the same cards with their labels shuffled (a mistake on most presentations), and
   two classes (mistake-sparse: 16 mistakes, converged in one epoch), with
   BLAS held to one thread and with its default threads.

Read ratios, not absolute times: the machine is shared, so a run measures its peer in
the same moment. CPU time (``time.process_time``) is less disturbed by other work than
wall time for single-threaded code.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import simpy

import mark1
from mark1 import MarkI, specs
from mark1._utils.threads import one_blas_thread
from mark1._utils import speed as _speed

DIGITS = """
name = "benchmark: eight digits"
description = "8 digit classes for the speed benchmark"
[reported]
source = "none: a benchmark"
conditions = "benchmark"
note = "benchmark"
[stimuli]
source = "characters"
classes = ["0", "1", "2", "3", "4", "5", "6", "7"]
size = 40
stroke = 1.5
[stimuli.jitter]
shift = 0.08
[train]
count = {count}
[test]
count = 8
[machine]
preset = "MARK_I"
[schedule]
epochs = 1
"""


#: The hard deck: heavy strokes, heavy jitter and blur.
HARD = DIGITS.replace('stroke = 1.5\n[stimuli.jitter]\nshift = 0.08\n',
                      'stroke = 6.0\n[stimuli.jitter]\nshift = 0.15\nrotation = 20\nscale = [0.8, 1.2]\n'
                      'slant = 0.3\nnoise = 0.08\nblur = [0.8, 2.0]\nsmudges = [0, 2]\n')
assert HARD != DIGITS


def digit_cards(count: int, seed: int = 0, deck: str = DIGITS):
    """``count`` rendered digit cards of 8 classes (of ``deck``, a scene's text) and their labels."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "digits.toml"
        path.write_text(deck.format(count=count))
        stimuli = mark1.load_scene(path).stimuli("train", seed=seed, count=count)
    return stimuli.cards, stimuli.labels


class CountingEnvironment(simpy.Environment):
    """A SimPy environment that counts the events it schedules."""

    def __init__(self):
        super().__init__()
        self.events = 0

    def schedule(self, event, priority=1, delay=0):
        self.events += 1
        super().schedule(event, priority, delay)


def timed(fn, repeat):
    """Best wall and CPU seconds of ``repeat`` calls, and the last result."""
    wall = cpu = np.inf
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - w)
        cpu = min(cpu, time.process_time() - c)
    return wall, cpu, out


@contextlib.contextmanager
def event_path():
    """Fits inside run on the event path (SimPy steps every card), the compiled loop's reference."""
    with _speed.plain(THREADS=_speed.THREADS, HOLD_STATE=_speed.HOLD_STATE, DIRECT_CALLS=_speed.DIRECT_CALLS):
        yield


def _same_run(a, b) -> bool:
    """Same history (every field), wipers and machine time, bit for bit."""
    return (all(np.array_equal(a.history_[f], b.history_[f]) for f in a.history_.dtype.names)
            and a.machine_time_ == b.machine_time_
            and all(np.array_equal(getattr(a.rack_, k), getattr(b.rack_, k))
                    for k in ("p_from", "p_to", "t_start", "t_end", "last_dir")))


#: Cards of the untimed fit before each configuration is timed.
WARM_UP = 256

#: The timing configurations: (name, overrides of MARK_I, aim in presentations/s, whether
#: the event path is too slow for every card).
CONFIGS = [
    ("MARK_I", {}, 100_000, False),
    ("rack.drivers = 8", {"rack.drivers": 8}, 50_000, True),
    ("timing.overlap", {"timing.overlap": True}, None, False),
    ("overlap + 8 drivers", {"timing.overlap": True, "rack.drivers": 8}, 50_000, True),
    # many drivers: a queued move costs its plan and log2(drivers) steps (the drivers' heap)
    ("overlap + 512 drivers", {"timing.overlap": True, "rack.drivers": 512}, None, True),
    ("MARK_I, decay 1 day", {"rack.decay_time": 86400.0}, None, False),
]


def analog(cards, labels, repeat, event_cards):
    """Compiled loop against the event path, each timing configuration."""
    n = len(cards)
    print(f"analog machine, {n:,} presentations (one epoch), compiled loop against the event path "
          f"(SimPy, one step per card), best of {repeat}; presentations/s")
    print(f"  {'configuration':<22} {'compiled wall':>13} {'CPU':>9} {'events/p':>9} | {'event path':>10} "
          f"{'CPU':>8} {'cards':>7} | {'ratio CPU':>9} {'same':>5} {'aim':>8}  reinforced, machine time")
    for name, overrides, aim, slow in CONFIGS:
        spec = specs.MARK_I.with_overrides(overrides)
        # the wiring is plugged once, outside the timing (as a patch board is); the warm-up
        # runs enough cards to reach the waits and re-timings, whose loops compile then
        compiled = MarkI(spec=spec, seed=1, trace="off").fit(cards[:WARM_UP], labels[:WARM_UP])
        stepping = MarkI(spec=spec, seed=1, trace="off")
        with event_path():
            stepping.fit(cards[:WARM_UP], labels[:WARM_UP])

        def run():
            env = CountingEnvironment()
            return compiled.fit(cards, labels, env=env), env.events

        wall, cpu, (m, events) = timed(run, repeat)
        reinforced = np.count_nonzero(m.history_["pots_moved"]) / n
        a_active = m.history_["a_active"].mean() / spec.patchboard.n_associators
        machine_time = m.machine_time_
        k = min(n, event_cards) if slow else n
        with event_path():
            wall1, cpu1, m1 = timed(lambda: stepping.fit(cards[:k], labels[:k]), 1)
        same = _same_run(m if k == n else compiled.fit(cards[:k], labels[:k]), m1)
        print(f"  {name:<22} {n / wall:13,.0f} {n / cpu:9,.0f} {events / n:9.3f} | {k / wall1:10,.0f} "
              f"{k / cpu1:8,.0f} {k:7,} | {(n / cpu) / (k / cpu1):9.1f} {str(same):>5} "
              f"{f'{aim:,}' if aim else '-':>8}  {reinforced:.1%}, {machine_time / 3600:.2f} h, "
              f"{a_active:.0%} A-units active")
    print("  (the event path runs on the first 'cards' cards where it is too slow for all of them;"
          " 'same' compares the compiled loop on those cards)")


def interleaved(runs: dict, repeat: int, caller: dict | None = None) -> dict:
    """Median wall and CPU seconds of each of ``runs`` (name: call), called in turn ``repeat``
    times (each one's load the same as its neighbours'; each round starts one further along,
    so that no call always follows the same other), and each one's last result; the median
    CPU seconds of the caller's own thread into ``caller`` (name: seconds), if given."""
    times: dict = {name: [] for name in runs}
    out = {}
    names = list(runs)
    for r in range(repeat):
        for name in names[r % len(names):] + names[:r % len(names)]:
            fn = runs[name]
            w, c, t = time.perf_counter(), time.process_time(), time.thread_time()
            out[name] = fn()
            times[name].append((time.perf_counter() - w, time.process_time() - c, time.thread_time() - t))
    if caller is not None:
        caller.update({name: float(np.median([t[2] for t in v])) for name, v in times.items()})
    return {name: (float(np.median([t[0] for t in v])), float(np.median([t[1] for t in v])), out[name])
            for name, v in times.items()}


def per_card(cards, labels, repeat):
    """CPU and wall microseconds a card: MARK_I (trace off), a listener's fit and a full
    trace, against the bare arithmetic of a presentation (``_bare.Bare``: imaging,
    photocells, A-units, sums and the rule, no physics) measured in the same run."""
    from _bare import Bare

    n = len(cards)
    machine = MarkI(spec=specs.MARK_I, seed=1, trace="off").fit(cards[:WARM_UP], labels[:WARM_UP])
    traced = MarkI(spec=specs.MARK_I, seed=1, trace="full").fit(cards[:WARM_UP], labels[:WARM_UP])
    bare = Bare(machine, cards.shape[1:])
    bare.fit(cards[:16], labels[:16])                 # compiled (or loaded) outside the timing
    heard: list = []
    traced.fit(cards[:16], labels[:16], on_event=lambda *e: None, env=simpy.Environment())
    k = min(n, 2_000)                                 # the listener in a caller's environment: slow

    def listener(env=None, cards=cards, labels=labels):
        heard.clear()
        return traced.fit(cards, labels, on_event=lambda *e: heard.append(e), env=env)

    got = interleaved({
        "bare arithmetic (reference)": lambda: bare.fit(cards, labels),
        "MARK_I, trace off": lambda: machine.fit(cards, labels),
        "MARK_I, full trace": lambda: traced.fit(cards, labels),
        "MARK_I, on_event listener": listener,
        f"listener in a caller's env ({k:,} cards)": lambda: listener(simpy.Environment(), cards[:k], labels[:k]),
    }, repeat)
    ref_cpu = got["bare arithmetic (reference)"][1] / n
    print(f"per card, {n:,} presentations, median of {repeat} interleaved; load average "
          f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print(f"  {'':42} {'wall us':>8} {'CPU us':>8} {'per s (wall)':>13} {'per s (CPU)':>12} {'CPU x ref':>10}")
    for name, (wall, cpu, _) in got.items():
        m = k if name.startswith("listener in") else n
        print(f"  {name:42} {wall / m * 1e6:8.1f} {cpu / m * 1e6:8.1f} {m / wall:13,.0f} {m / cpu:12,.0f} "
              f"{cpu / m / ref_cpu:10.2f}")
    same = (got["MARK_I, on_event listener"][2].trace_.events == got["MARK_I, full trace"][2].trace_.events
            and _same_run(got["MARK_I, on_event listener"][2], got["MARK_I, full trace"][2]))
    print(f"  (aims: MARK_I trace off within 1.5 x the reference's CPU; a listener >= 30,000/s; "
          f"the listener's events and history those of the full trace: {same})")


#: The thread switches measured (mark1._utils.speed).
THREAD_CONFIGS = {
    "no second thread": {},
    "LOOK_AHEAD (sensing ahead)": {"THREADS": True, "LOOK_AHEAD": True},
}


def threads(cards, labels, repeat):
    """The look-ahead's gain: a MARK_I fit (trace off: the deck imaged, then sensed a block at
    a time while the kernel trains) with the thread and without, interleaved, the other fast
    paths on; and the ideal machine's fit, which no thread touches, the same way: the spread
    of its rows is the measurement's noise."""
    n = len(cards)
    machine = MarkI(spec=specs.MARK_I, seed=1, trace="off").fit(cards[:WARM_UP], labels[:WARM_UP])
    ideal = MarkI(spec=specs.MARK_I.ideal(), seed=1).fit(cards[:WARM_UP], labels[:WARM_UP])
    fast = {"COMPILED_LOOP": True, "HOLD_STATE": True, "DIRECT_CALLS": True}

    def run(model, switches):
        def fit():
            with _speed.plain(**fast, **switches):
                return model.fit(cards, labels)
        return fit

    runs = {(what, name): run(model, switches) for what, model in (("MARK_I", machine), ("ideal", ideal))
            for name, switches in THREAD_CONFIGS.items()}
    load = os.getloadavg()
    caller: dict = {}
    got = interleaved(runs, repeat, caller)
    print(f"threads: {n:,} presentations, median of {repeat} interleaved, us per card; load average "
          f"{load[0]:.1f} before, {os.getloadavg()[0]:.1f} after, on {_cpus()} CPUs. 'caller' is the CPU of "
          f"the calling thread alone: with a core free for the second thread, the wall time a card "
          f"costs is about the larger of it and the rest of the CPU")
    print(f"  {'fit':7} {'threads':30} {'wall us':>8} {'CPU us':>8} {'caller us':>10} {'wall x none':>12} "
          f"{'CPU x none':>11} {'caller x none':>14}")
    for (what, name), (wall, cpu, _) in got.items():
        w0, c0, _ = got[(what, "no second thread")]
        t, t0 = caller[(what, name)], caller[(what, "no second thread")]
        print(f"  {what:7} {name:30} {wall / n * 1e6:8.1f} {cpu / n * 1e6:8.1f} {t / n * 1e6:10.1f} "
              f"{wall / w0:12.2f} {cpu / c0:11.2f} {t / t0:14.2f}")
    same = all(_same_run(got[(what, name)][2], got[(what, "no second thread")][2])
               for what, name in runs)
    print(f"  (same history, wipers and machine time with every switch: {same})")


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def full_trace(cards, labels, repeat, event_cards):
    """A full trace (every event, reading and move kept): compiled against the event path."""
    n = len(cards)
    k = min(n, 4 * event_cards)
    off = MarkI(spec=specs.MARK_I, seed=1, trace="off").fit(cards[:16], labels[:16])
    full = MarkI(spec=specs.MARK_I, seed=1, trace="full").fit(cards[:16], labels[:16])
    stepping = MarkI(spec=specs.MARK_I, seed=1, trace="full")
    with event_path():
        stepping.fit(cards[:16], labels[:16])
    wall, cpu, m = timed(lambda: full.fit(cards, labels), repeat)
    n_events = len(m.trace_)
    _, cpu_off, _ = timed(lambda: off.fit(cards, labels), repeat)
    with event_path():
        wall1, cpu1, m1 = timed(lambda: stepping.fit(cards[:k], labels[:k]), 1)
    mk = m if k == n else full.fit(cards[:k], labels[:k])
    same = _same_run(mk, m1) and mk.trace_.events == m1.trace_.events
    print(f"\nfull trace on MARK_I ({n_events:,} events on {n:,} presentations): compiled {n / wall:,.0f} "
          f"presentations/s wall, {n / cpu:,.0f} /s CPU; event path {k / wall1:,.0f} /s wall, {k / cpu1:,.0f} /s CPU "
          f"on {k:,} cards; ratio {(n / cpu) / (k / cpu1):.1f} CPU; same history and events: {same}; "
          f"{cpu / cpu_off:.2f} x the CPU time of the trace off  (aim >= 20,000/s)")


def growth(cards, labels):
    """Time and memory of overlap with 8 drivers on a tenth of the cards and on all of them."""
    spec = specs.MARK_I.with_overrides({"timing.overlap": True, "rack.drivers": 8})
    m = MarkI(spec=spec, seed=1, trace="off").fit(cards[:16], labels[:16])
    print("\ngrowth, overlap + 8 drivers (compiled):")
    for k in (len(cards) // 10, len(cards)):
        _, cpu, _ = timed(lambda: m.fit(cards[:k], labels[:k]), 1)
        tracemalloc.start()
        m.fit(cards[:k], labels[:k])
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"  {k:7,} presentations: {cpu / k * 1e6:6.1f} us CPU per presentation, "
              f"peak allocated during the fit {peak / 2**20:7.1f} MiB ({peak / k:,.0f} bytes per presentation)")


def ideal(cards, labels, epochs, repeat, name):
    """The ideal machine against our sensing + scikit-learn's Perceptron on the same φ."""
    from sklearn.linear_model import Perceptron

    spec = specs.MARK_I.ideal()
    probe = MarkI(spec=spec, seed=1)
    probe.fit(cards[:16], labels[:16])
    machine = MarkI(spec=spec, seed=1, epochs=epochs).fit(cards[:16], labels[:16])   # wiring plugged

    def ours():
        return machine.fit(cards, labels)

    def peer():
        phi = probe.associate(probe.sense(cards))
        return Perceptron(shuffle=False, tol=None, eta0=1.0, max_iter=epochs, alpha=0.0).fit(phi, labels)

    n = len(cards) * epochs
    for threads in ("one BLAS thread", "default BLAS threads"):
        ctx = one_blas_thread() if threads.startswith("one") else contextlib.nullcontext()
        with ctx:
            got = interleaved({"ours": ours, "peer": peer}, repeat)
        (w_ours, c_ours, m), (w_peer, c_peer, _) = got["ours"], got["peer"]
        mistakes = (~m.history_["correct"]).mean()
        print(f"  {name}, {threads}: ours {w_ours * 1e3:7.1f} ms ({c_ours / n * 1e6:5.2f} us CPU a presentation), "
              f"peer {w_peer * 1e3:7.1f} ms ({c_peer / n * 1e6:5.2f} us), ratio {w_ours / w_peer:.2f} wall, "
              f"{c_ours / c_peer:.2f} CPU ({mistakes:.1%} of presentations wrong)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cards", type=int, default=10_000)
    ap.add_argument("--epochs", type=int, default=5, help="epochs of the ideal-machine comparison")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--event-cards", type=int, default=500,
                    help="cards the event path runs where it is too slow for all (driver limits)")
    ap.add_argument("--deck", choices=("both", "digits", "hard"), default="both",
                    help="the decks of sections 1 and 2 (3 and 4 run on the digits)")
    ap.add_argument("--sections", default="per-card,threads,analog,trace,growth,ideal",
                    help="the sections to run, of per-card, threads, analog, trace, growth, ideal")
    args = ap.parse_args(argv)
    sections = set(args.sections.split(","))
    cards, labels = digit_cards(args.cards)
    decks = {"digits": (cards, labels)} if args.deck != "hard" else {}
    if args.deck != "digits":
        decks["hard"] = digit_cards(args.cards, deck=HARD)
    for name, (c, lab) in decks.items():
        print(f"\n=== deck: {name} ===")
        with one_blas_thread():
            if "per-card" in sections:
                per_card(c, lab, max(args.repeat, 3))
            if "threads" in sections:
                threads(c, lab, max(args.repeat, 3))
        if "analog" in sections:
            analog(c, lab, args.repeat, args.event_cards)
        if "trace" in sections:
            full_trace(c, lab, args.repeat, args.event_cards)
    if args.deck == "hard":
        return 0
    if "growth" in sections:
        growth(cards, labels)
    if "ideal" not in sections:
        return 0
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("scikit-learn not installed: no ideal-machine ratio")
        return 0
    print(f"\nideal machine vs sensing + scikit-learn Perceptron, {args.epochs} epochs, median of "
          f"{args.repeat} interleaved (aim: ratio <= 0.4); load average {os.getloadavg()[0]:.1f}")
    ideal(cards, labels, args.epochs, args.repeat, "8 digits (mistake-dense)")
    shuffled = np.random.default_rng(0).permutation(labels)
    ideal(cards, shuffled, args.epochs, args.repeat, "8 digits, labels shuffled (mistakes everywhere)")
    two = np.isin(labels, ["0", "1"])
    ideal(cards[two], labels[two], args.epochs, args.repeat, "0 vs 1 (mistake-sparse)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
