"""Speed of the machine's sensing (cards → light → photocell signals → S-units → φ),
against the previous numpy method measured in the same run.

    python benchmarks/bench_sensing.py [--cards 10000] [--repeat 5]

The workload (issue 10): rendered digit cards of 8 classes, 60 × 60 px (a deck this
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
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mark1 import MarkI, specs
from mark1.machine.retina import RetinaState, _blur_matrix, area_average_matrix
from mark1._utils.threads import one_blas_thread

try:                                   # run from the repository root or from benchmarks/
    from bench_machine import digit_cards
except ImportError:
    from benchmarks.bench_machine import digit_cards


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
    cards, _ = digit_cards(args.cards)
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


if __name__ == "__main__":
    main()
