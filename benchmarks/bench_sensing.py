"""Speed of the machine's sensing (cards → light → photocell signals → S-units → φ),
against the previous numpy method measured in the same run.

    python benchmarks/bench_sensing.py [--cards 10000] [--repeat 5]

The workload: rendered digit cards of 8 classes, 60 × 60 px (a deck this
large comes from the scene as uint8 reflectance × 255; ``--float`` converts it to
float64), MARK_I with every non-ideality on, all cards exposed in one block at the
nominal timing, BLAS held to one thread. For each part (``Retina.light``,
``Retina.steady_signal``, ``Retina.expose``, ``Retina.fire``, ``Patchboard.associate``)
it prints the best CPU time of ``--repeat`` calls, ours and the reference's, and the
ratio; then whether both give the same S-units and φ, and the largest relative
difference of light and signal. The first line is the first call in this process
(numba compiling the kernels, or loading them from its on-disk cache).

The reference is the method of commit 936f75d, kept here only as the benchmark's peer:
two matrix products per card (``numpy.matmul`` broadcasting), ``light ** gamma``, an
affine scan per photocell component (cumulative products in chunks) and a float32
product with the dense wiring matrix. CPU time (``time.process_time``) is less disturbed
by other work than wall time; on a shared machine read the ratios.

A second section measures the sensing a fit runs on both decks of
``bench_machine.py`` (the digits and the hard deck, ``--cards`` of each): the imaging (once
per fit), then one pass over the cards in blocks of 512 presentations as
``_SensoryPipeline`` senses them (S-units, the rack's inputs with the bias, each R-unit's
active pots, the photocells' state carried from block to block), in CPU microseconds per
card, against the block sensing of commit 8ed480a (its kernels kept below: the power law
with a memory of the card before, an exposure writing every card's state, the tally into
φ, ``with_bias`` and the product with the rack's mask), and whether both give the same
bits.

A third section measures where a fit's time goes with the next block sensed in a second
thread beside the training: a MARK_I fit with the second thread and without, and with it
each thread's CPU, the sensing each does, and the caller's waits for the look-ahead.
"""

from __future__ import annotations

import argparse
import threading
import time

import numpy as np

from mark1 import MarkI, specs
import math

from mark1._utils.compiled import compiled
from mark1.machine.patchboard import with_bias
from mark1.machine.retina import (RetinaState, _blur_matrix, _Cells, _POWER_BITS, _power_tables, _read_only,
                                  area_average_matrix)
from mark1._utils.threads import one_blas_thread

try:                                   # run from the repository root or from benchmarks/
    from bench_machine import HARD, digit_cards
except ImportError:
    from benchmarks.bench_machine import HARD, digit_cards


# -- the reference: the previous numpy method --------------------------------------------------

def ref_light(retina, cards):
    rows, cols = retina.spec.shape
    h, w = cards.shape[1:]
    ar = _blur_matrix(rows, retina.spec.blur) @ area_average_matrix(h, rows)
    act = (_blur_matrix(cols, retina.spec.blur) @ area_average_matrix(w, cols)).T.copy()
    out = np.empty((len(cards), retina.n_cells))
    step = max(1, 16 * 2**20 // (8 * h * w))
    for lo in range(0, len(cards), step):
        part = cards[lo:lo + step]
        part = part / 255.0 if part.dtype == np.uint8 else part
        imaged = np.matmul(np.matmul(ar, part), act) * (retina.spec.lamp_level * retina.lighting)
        out[lo:lo + step] = np.clip(imaged.reshape(len(part), -1), 0.0, None)
    return out


def ref_steady(retina, light):
    return retina.sensitivity * light ** retina.spec.gamma / 1.0


def ref_scan(x0, c, b):
    """x[i+1] = c[i] x[i] + b[i]: a window sum when every step forgets nearly all of its
    past, else running products in chunks that stay above exp(-600)."""
    n = len(c)
    x = np.empty((n + 1,) + np.shape(x0))
    x[0] = x0
    cmax = float(np.max(c))
    if cmax < 1e-10:
        lags = 0 if cmax == 0 else int(np.floor(np.log(2.0 ** -53) / np.log(cmax)))
        inputs = np.concatenate([np.asarray(x0, float)[None], b])
        x[1:] = b
        reach = np.ones(n)
        for lag in range(1, min(lags, n) + 1):
            reach[lag - 1:] *= c[:n - lag + 1]
            x[lag:] += reach[lag - 1:, None] * inputs[:n - lag + 1]
        return x
    logc = np.log(np.maximum(c, 1e-300))
    cum = np.concatenate([[0.0], np.cumsum(logc)])
    i = 0
    while i < n:
        if logc[i] < -600.0:
            x[i + 1] = c[i] * x[i] + b[i]
            i += 1
            continue
        j = max(min(int(np.searchsorted(-cum, -cum[i] + 600.0, side="right")) - 1, n), i + 1)
        q = np.cumprod(c[i:j])[:, None]
        x[i + 1:j + 1] = q * (x[i] + np.cumsum(b[i:j] / q, axis=0))
        i = j
    return x


def ref_expose(retina, light, lit, state, card_change, settle, steady):
    s = retina.spec
    d = np.exp(-card_change / s.history_time)
    a = np.exp(-lit / s.history_time)
    h_end = ref_scan(state.history, a * d, (1.0 - a)[:, None] * light)
    target = steady / (1.0 + (s.history_ratio - 1.0) * (d * h_end[:-1]))
    a_lit = np.exp(-lit / s.rise_time)
    rise_input = (1.0 - a_lit)[:, None] * target
    at_lamps_on = 0.0
    for fall, x0, weight in ((s.fall_time, state.fast, 1.0 - s.slow_fraction),
                             (s.slow_fall_time, state.slow, s.slow_fraction)):
        d = np.exp(-card_change / fall)
        at_lamps_on = at_lamps_on + (weight * d) * ref_scan(x0, a_lit * d, rise_input)[:-1]
    return target + (at_lamps_on - target) * np.exp(-settle / s.rise_time)


def ref_associate(board, s_states):
    return s_states.astype(np.float32) @ board.connections.astype(np.float32) >= board.a_threshold


# -- the second reference: the machine's block sensing of 8ed480a ------------------------------
# Its kernels as they were, kept here only as the benchmark's peer: the power law with a
# per-cell memory of the card before, the exposure writing every card's state, the tally
# into φ (int16), then with_bias and the rack's mask product, as _SensoryPipeline._compute
# ran them a block at a time.

@compiled
def block_power_law(light, sensitivity, gamma, power, scale, knot, knot_power, inv_knot, series, out):
    """``out = sensitivity * light ** gamma`` for (n, m) light, by the tables of :func:`_power_tables`.

    Zero, subnormal, negative, infinite and NaN light take ``light ** gamma`` itself. A
    cell lit exactly as on the row before takes that row's result (on digit cards about
    half the cells: the paper white around the figure).
    """
    n, m = light.shape
    bits = light.view(np.int64)
    c1, c2, c3, c4, c5, c6 = series[1], series[2], series[3], series[4], series[5], series[6]
    # a cell often sees the light it saw on the card before (paper white around the figure):
    # the same light gives the same signal, so it is taken from the last card's
    last_x = np.full(m, np.nan)
    last_out = np.empty(m)
    for i in range(n):
        for j in range(m):
            x = light[i, j]
            if x == last_x[j]:
                out[i, j] = last_out[j]
                continue
            last_x[j] = x
            if 2.2250738585072014e-308 <= x <= 1.7976931348623157e308:
                e = bits[i, j] >> 52                                    # sign bit is 0
                b = (bits[i, j] >> (52 - _POWER_BITS)) & (2 ** _POWER_BITS - 1)
                t = (x * scale[e] - knot[b]) * inv_knot[b]         # the difference is exact
                p = 1.0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))))
                out[i, j] = sensitivity[j] * (power[e] * knot_power[b] * p)
            else:
                out[i, j] = sensitivity[j] * x ** gamma
            last_out[j] = out[i, j]


@compiled
def block_exposure(light, steady, lit, start, cells, signal, fast, slow, history):
    """The photocell recurrence over cards, cell by cell (see :meth:`Retina.expose`).

    ``start`` the given state (fast, slow, history), each (m,); ``cells`` a :class:`_Cells`.
    Writes ``signal`` (n, m) and, at the end of each lit interval, ``history`` (n + 1, m)
    and (with ``dynamics``) ``fast``, ``slow`` (n + 1, m); row 0 is the given state.
    """
    fast0, slow0, history0 = start
    card_change, settle, rise_time, fall_time = cells.card_change, cells.settle, cells.rise_time, cells.fall_time
    slow_fall_time, slow_fraction, dynamics = cells.slow_fall_time, cells.slow_fraction, cells.dynamics
    history_ratio, history_time = cells.history_ratio, cells.history_time
    n, m = light.shape
    adapting = history_ratio != 1.0
    d_fast = math.exp(-card_change / fall_time)            # the dark interval, per component
    d_slow = math.exp(-card_change / slow_fall_time)
    d_hist = math.exp(-card_change / history_time)
    a_settle = math.exp(-settle / rise_time)
    w_fast = (1.0 - slow_fraction) * d_fast                # share of each at lamps-on
    w_slow = slow_fraction * d_slow
    for j in range(m):                   # (element loops: a slice assignment costs seconds to compile)
        history[0, j] = history0[j]
        if dynamics:
            fast[0, j] = fast0[j]
            slow[0, j] = slow0[j]
    for i in range(n):
        a_lit = math.exp(-lit[i] / rise_time)
        c_fast, c_slow, rise = a_lit * d_fast, a_lit * d_slow, 1.0 - a_lit
        a_hist = math.exp(-lit[i] / history_time)
        c_hist, soak = a_hist * d_hist, 1.0 - a_hist
        for j in range(m):
            target = steady[i, j]
            if adapting:
                target = target / (1.0 + (history_ratio - 1.0) * (d_hist * history[i, j]))
                history[i + 1, j] = c_hist * history[i, j] + soak * light[i, j]
            else:
                history[i + 1, j] = 0.0          # not tracked without the effect
            if dynamics:
                # both components rise towards the same target with the same time constant
                at_lamps_on = w_fast * fast[i, j] + w_slow * slow[i, j]
                signal[i, j] = target + (at_lamps_on - target) * a_settle
                fast[i + 1, j] = c_fast * fast[i, j] + rise * target
                slow[i + 1, j] = c_slow * slow[i, j] + rise * target
            else:
                signal[i, j] = target


@compiled
def block_tally(s_states, connections, threshold, acc, net, phi, counts):
    """Net input of each A-unit: the sum of the wiring rows of the S-units that fire.

    ``s_states`` (n, n_s) bool, ``connections`` (n_s, n_a) int8; ``acc`` (n_a,) an
    integer buffer wide enough for ``n_s`` (int16 holds up to 32767: twice the SIMD
    lanes of int32). Writes the net inputs into ``net`` (n, n_a), whether they reach
    ``threshold`` into ``phi`` (n, n_a) bool, and the S-units and A-units that fire into
    ``counts`` (n, 2) int64; any may have 0 rows (not wanted). Work grows with the
    S-units that fire, not with every socket.
    """
    n, n_s = s_states.shape
    n_a = connections.shape[1]
    active = np.empty(n_s, np.int64)
    for k in range(n):
        count = 0
        for i in range(n_s):                 # list the S-units that fire (no branch per unit)
            active[count] = i
            count += s_states[k, i]
        for a in range(n_a):
            acc[a] = 0
        for p in range(count):
            row = connections[active[p]]
            for a in range(n_a):
                acc[a] += row[a]
        if len(net):
            for a in range(n_a):
                net[k, a] = acc[a]
        if len(phi):
            for a in range(n_a):
                phi[k, a] = acc[a] >= threshold
        if len(counts):
            firing = 0
            for a in range(n_a):
                firing += acc[a] >= threshold
            counts[k, 0] = count
            counts[k, 1] = firing


def ref_block(retina, board, mask, light, rows, lit, state, tm):
    """One block as _SensoryPipeline._compute sensed it at 8ed480a: S, x, active pots, end state."""
    s_spec = retina.spec
    block = light[rows]
    gamma = float(s_spec.gamma)
    steady = np.empty_like(block)
    block_power_law(_read_only(block), retina.sensitivity, gamma, *_power_tables(gamma), steady)
    n, m = block.shape
    signal, history = np.empty((n, m)), np.empty((n + 1, m))
    fast, slow = np.empty((n + 1, m)), np.empty((n + 1, m))
    cells = _Cells(float(tm.card_change), float(tm.settle), float(s_spec.rise_time), float(s_spec.fall_time),
                   float(s_spec.slow_fall_time), float(s_spec.slow_fraction), float(s_spec.history_ratio),
                   float(s_spec.history_time), bool(s_spec.dynamics))
    block_exposure(block, steady, lit, (state.fast, state.slow, state.history), cells, signal, fast, slow, history)
    s = retina.fire(signal)
    phi = np.empty((n, board.n_associators), bool)
    counts = np.empty((n, 2), np.int64)
    block_tally(s, board._wiring, board.a_threshold, np.empty(board.n_associators, np.int16),
                np.empty((0, 0), np.float32), phi, counts)
    x = with_bias(phi)
    active = x @ mask.T.astype(float)
    return s, x, active, RetinaState(fast[n], slow[n], history[n])


def ours_block(retina, board, mask, light, rows, lit, state, tm):
    """One block as _SensoryPipeline._compute senses it now."""
    s, end = retina.sense_sequence(light, rows, lit, state, card_change=tm.card_change, settle=tm.settle)
    x, _, active = board.rack_inputs(s, mask)
    return s, x, active, end


def blocks(deck_name, cards, repeat, block=512):
    """The machine's sensing of one pass over a deck, a block of presentations at a time
    (what a fit runs outside the presentation kernel), ours against 8ed480a's."""
    m = MarkI(spec=specs.MARK_I, seed=1).fit(cards[:16], np.arange(16) % 8)
    retina, board, mask, tm = m.retina, m.patchboard, m.rack_.mask, m.spec.timing
    light_cpu, light = best_cpu(lambda: retina.light(cards), repeat)
    order = np.arange(len(cards))
    lit = np.full(block, tm.period - tm.card_change)

    def run(fn):
        state, out = RetinaState.dark(retina.n_cells), []
        for lo in range(0, len(order), block):
            rows = order[lo:lo + block]
            s, x, active, state = fn(retina, board, mask, light, rows, lit[:len(rows)], state, tm)
            out.append((s, x, active))
        return out, state

    for fn in (ours_block, ref_block):            # compile (or load) before timing
        run(fn)
    ours, (got, end) = best_cpu(lambda: run(ours_block), repeat)
    ref, (want, end_r) = best_cpu(lambda: run(ref_block), repeat)
    same = (all(np.array_equal(a, b) for g, w in zip(got, want) for a, b in zip(g, w))
            and all(np.array_equal(getattr(end, f), getattr(end_r, f)) for f in ("fast", "slow", "history")))
    n = len(cards)
    print(f"  {deck_name:7s} {light_cpu / n * 1e6:9.2f} {ours / n * 1e6:11.2f} {ref / n * 1e6:11.2f} "
          f"{ours / ref:7.3f}  {str(same):>5}")


def threads(deck_name, cards, labels, repeat):
    """Where a fit's time goes with the sensing beside the training: a MARK_I fit (trace off)
    with the look-ahead's thread and without (``_speed.LOOK_AHEAD``), wall per card; with it,
    the CPU of the caller's thread and of the sensing thread, the sensing each does, and the
    caller's waits for the look-ahead (its time in ``LookAhead.collect``)."""
    from mark1._utils import speed as _speed
    from mark1.machine import simulator

    n = len(cards)
    m = MarkI(spec=specs.MARK_I, seed=1, trace="off").fit(cards[:256], labels[:256])
    spent: dict = {}

    def add(key, seconds):
        thread = "sensing" if threading.current_thread().name == "mark1-sensing" else "caller"
        spent[(thread, key)] = spent.get((thread, key), 0.0) + seconds

    def timed(fn, key, clock):
        def run(*args):
            c = clock()
            try:
                return fn(*args)
            finally:
                add(key, clock() - c)
        return run

    make, collect = simulator._SensoryPipeline._make, _speed.LookAhead.collect
    simulator._SensoryPipeline._make = timed(make, "sensing", time.thread_time)
    _speed.LookAhead.collect = timed(collect, "collect", time.perf_counter)
    try:
        walls = {}
        for on in (False, True):
            _speed.LOOK_AHEAD = on
            walls[on] = min(timed_wall(lambda: m.fit(cards, labels)) for _ in range(repeat))
        best = None
        for _ in range(repeat):
            spent.clear()
            w, c, p = time.perf_counter(), time.thread_time(), time.process_time()
            m.fit(cards, labels)
            w, c, p = time.perf_counter() - w, time.thread_time() - c, time.process_time() - p
            if best is None or w < best[0]:
                best = (w, c, p, dict(spent))
    finally:
        simulator._SensoryPipeline._make, _speed.LookAhead.collect = make, collect
        _speed.LOOK_AHEAD = True
    w, c, p, sp = best
    us = 1e6 / n

    def get(thread, key):
        return sp.get((thread, key), 0.0) * us

    print(f"  {deck_name:7s} {n / walls[False]:10,.0f} {n / walls[True]:10,.0f} {c * us:8.2f} {(p - c) * us:8.2f} "
          f"{get('caller', 'sensing'):8.2f} {get('sensing', 'sensing'):8.2f} {get('caller', 'collect'):7.2f}")


def timed_wall(fn):
    w = time.perf_counter()
    fn()
    return time.perf_counter() - w


# -- the run ------------------------------------------------------------------------------------

def best_cpu(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        c = time.process_time()
        out = fn()
        best = min(best, time.process_time() - c)
    return best, out


def rel(a, b):
    d = np.abs(a - b)
    return float(np.max(d / np.maximum(np.abs(b), 1e-300)))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cards", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--float", action="store_true", help="cards as float64 reflectance")
    args = p.parse_args(argv)
    cards, labels = digit_cards(args.cards)
    if args.float:
        cards = cards / 255.0 if cards.dtype == np.uint8 else cards.astype(float)
    m = MarkI(spec=specs.MARK_I, seed=1)
    retina, board = m.retina, m.patchboard
    tm = m.spec.timing
    lit = np.full(len(cards), tm.period - tm.card_change)
    dark = RetinaState.dark(retina.n_cells)
    with one_blas_thread():
        t0 = time.perf_counter()
        s = retina.fire(retina.expose(retina.light(cards[:2]), lit[:2], dark, card_change=tm.card_change,
                                      settle=tm.settle)[0])
        board.associate(s)
        print(f"first call in this process (compile, or load from numba's cache): "
              f"{time.perf_counter() - t0:.2f} s wall")
        ours, ref = {}, {}
        ours["light"], light = best_cpu(lambda: retina.light(cards), args.repeat)
        ref["light"], light_r = best_cpu(lambda: ref_light(retina, cards), args.repeat)
        ours["steady_signal"], steady = best_cpu(lambda: retina.steady_signal(light), args.repeat)
        ref["steady_signal"], steady_r = best_cpu(lambda: ref_steady(retina, light_r), args.repeat)
        ours["expose"], (signal, _) = best_cpu(
            lambda: retina.expose(light, lit, dark, card_change=tm.card_change, settle=tm.settle, steady=steady),
            args.repeat)
        ref["expose"], signal_r = best_cpu(
            lambda: ref_expose(retina, light_r, lit, dark, tm.card_change, tm.settle, steady_r), args.repeat)
        ours["fire"], s = best_cpu(lambda: retina.fire(signal), args.repeat)
        ref["fire"], s_r = best_cpu(lambda: retina.fire(signal_r), args.repeat)
        ours["associate"], phi = best_cpu(lambda: board.associate(s), args.repeat)
        ref["associate"], phi_r = best_cpu(lambda: ref_associate(board, s_r), args.repeat)
    print(f"sensing of {len(cards):,} digit cards ({cards.shape[1]} x {cards.shape[2]} {cards.dtype}), MARK_I, "
          f"one BLAS thread; best CPU of {args.repeat}")
    print(f"  {'part':16s} {'ours ms':>9s} {'numpy ref ms':>13s} {'ratio':>7s}")
    for part in ours:
        print(f"  {part:16s} {ours[part] * 1e3:9.1f} {ref[part] * 1e3:13.1f} {ours[part] / ref[part]:7.3f}")
    total, total_r = sum(ours.values()), sum(ref.values())
    print(f"  {'total':16s} {total * 1e3:9.1f} {total_r * 1e3:13.1f} {total / total_r:7.3f}  "
          f"({len(cards) / total:,.0f} cards/s vs {len(cards) / total_r:,.0f})")
    print(f"  same S-units: {np.array_equal(s, s_r)} ({int((s != s_r).sum())} differ), same φ: "
          f"{np.array_equal(phi, phi_r)} ({int((phi != phi_r).sum())} differ); max relative difference "
          f"light {rel(light, light_r):.2g}, signal {rel(signal, signal_r):.2g}")
    print(f"\nthe machine's sensing, one pass in blocks of 512 presentations as a fit runs it (MARK_I, "
          f"{args.cards:,} cards of each deck of bench_machine.py), us of CPU per card, best of {args.repeat}: "
          f"imaging (once per fit), then the blocks (S-units, φ with the bias, active pots) against 8ed480a's")
    print(f"  {'deck':7s} {'imaging':>9s} {'blocks ours':>11s} {'8ed480a':>11s} {'ratio':>7s}  {'same':>5s}")
    with one_blas_thread():
        blocks("digits", cards, args.repeat)
        blocks("hard", digit_cards(args.cards, deck=HARD)[0], args.repeat)
    print(f"\na MARK_I fit (trace off) with the sensing beside the training and without, "
          f"{args.cards:,} cards, best wall of {args.repeat}; with it, us per card: CPU of the caller's thread "
          f"and of the sensing thread, sensing done by each, the caller's waits for the look-ahead")
    print(f"  {'deck':7s} {'1 thread/s':>10s} {'2 threads/s':>10s} {'CPU':>8s} {'CPU 2nd':>8s} "
          f"{'sensing':>8s} {'sens 2nd':>8s} {'waits':>7s}")
    with one_blas_thread():
        threads("digits", cards, labels, args.repeat)
        threads("hard", *digit_cards(args.cards, deck=HARD), args.repeat)


if __name__ == "__main__":
    main()
