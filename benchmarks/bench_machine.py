"""Speed of the machine, measured against peers in the same run.

    python benchmarks/bench_machine.py [--presentations 10000]

Prints:

1. the cost of a bare SimPy timeout on this machine, now;
2. analog throughput: presentations per wall-clock second for MARK_I with every
   non-ideality on and the trace off, and the cost of one presentation in units of
   that bare timeout (goals: >= 20,000 presentations/s, <= 30 timeout-equivalents);
3. the ideal digital training (the error-correction core the ideal machine uses) on
   fixed φ features against scikit-learn's Perceptron(shuffle=False, tol=None,
   eta0=1) on the same features and epochs (goal: time ratio <= 1.0), checking that
   both and a naive one-card-at-a-time reference make exactly the same updates.

Timings are the best of several repeats; the machine is shared, so read ratios, not
absolute times.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import simpy

from mark1 import MarkI, specs
from mark1.perceptron import train_error_correction


def best_of(fn, repeat=5):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def bare_timeout_seconds(n=200_000):
    """Wall seconds per `yield env.timeout(1)` in one SimPy process."""
    def run():
        env = simpy.Environment()

        def proc(env):
            for _ in range(n):
                yield env.timeout(1.0)
        env.process(proc(env))
        env.run()
    return best_of(run, 3) / n


def cards_x_vs_box(n, rng, size=60):
    """Synthetic two-class cards (an X or a box outline, shifted), numpy only."""
    yy, xx = np.mgrid[0:size, 0:size]
    out = np.ones((n, size, size))
    labels = np.arange(n) % 2
    c = size / 2
    for i in range(n):
        cy, cx = c + rng.integers(-size // 10, size // 10 + 1, 2)
        dy, dx = yy - cy, xx - cx
        if labels[i] == 0:
            ink = ((np.abs(dy - dx) < size / 15) | (np.abs(dy + dx) < size / 15)) \
                & (np.abs(dy) < size * 0.3) & (np.abs(dx) < size * 0.3)
        else:
            r = np.maximum(np.abs(dy), np.abs(dx))
            ink = (r < size * 0.28) & (r > size * 0.18)
        out[i][ink] = 0.05
    return out, labels


def naive_perceptron(x, t, epochs):
    """One card at a time, in Python: the reference the fast core must equal."""
    w = np.zeros((t.shape[1], x.shape[1]))
    for _ in range(epochs):
        for i in range(len(x)):
            s = w @ x[i]
            err = t[i] * s <= 0
            w[err] += t[i, err, None] * x[i]
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--presentations", type=int, default=10_000)
    ap.add_argument("--cards", type=int, default=200)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    cards, labels = cards_x_vs_box(args.cards, rng)
    epochs = max(1, args.presentations // args.cards)
    n_pres = epochs * args.cards

    timeout_s = bare_timeout_seconds()
    print(f"bare SimPy timeout: {timeout_s * 1e6:.3f} us")

    # -- analog throughput ------------------------------------------------------------
    spec = specs.MARK_I
    on = [n for n in specs.NON_IDEALITIES if spec.is_on(n)]
    machine = MarkI(spec=spec, seed=1, trace="off")
    machine.fit(cards[:10], labels[:10])                 # build the wiring outside the timing

    def analog():
        machine.fit(cards, labels, epochs=epochs)
    t_analog = best_of(analog, 3)
    per = t_analog / n_pres
    print(f"\nanalog MARK_I, {n_pres} presentations, trace off, non-idealities on: {', '.join(on)}")
    print(f"  {n_pres / t_analog:,.0f} presentations/s  (goal >= 20,000)")
    print(f"  {per / timeout_s:.1f} bare-timeout equivalents per presentation  (goal <= 30)")
    print(f"  errors in the first / last epoch: {machine.mistakes_per_epoch_[0]} / "
          f"{machine.mistakes_per_epoch_[-1]}; machine time {machine.machine_time_ / 3600:.2f} h")

    # -- ideal digital training vs scikit-learn ----------------------------------------
    ideal = MarkI(spec=spec.ideal(), seed=1)
    phi = ideal.associate(ideal.sense(cards))
    x = np.hstack([phi, np.ones((len(phi), 1))]).astype(float)
    t = np.where(labels == 1, 1.0, -1.0)[:, None]
    ours = best_of(lambda: train_error_correction(x, t, epochs=epochs))
    res = train_error_correction(x, t, epochs=epochs)
    print(f"\nideal digital training on fixed phi ({len(x)} cards x {x.shape[1]} inputs, {epochs} epochs)")
    print(f"  ours: {ours * 1e3:.2f} ms, {int(res.errors.sum())} updates, converged: {res.converged}")
    ref = naive_perceptron(x, t, epochs)
    print(f"  equals the naive one-card-at-a-time reference: {np.array_equal(ref, res.weights)}")
    try:
        from sklearn.linear_model import Perceptron
    except ImportError:
        print("  scikit-learn not installed: no ratio")
        return
    sk = Perceptron(shuffle=False, tol=None, eta0=1.0, max_iter=epochs, alpha=0.0)
    # sklearn fits the intercept separately; give it phi without our bias column
    theirs = best_of(lambda: sk.fit(phi.astype(float), labels))
    sk_w = np.r_[sk.coef_[0], sk.intercept_]
    print(f"  scikit-learn Perceptron: {theirs * 1e3:.2f} ms")
    print(f"  time ratio ours / scikit-learn: {ours / theirs:.2f}  (goal <= 1.0)")
    print(f"  same weights as scikit-learn: {np.array_equal(sk_w, res.weights[0])}")


if __name__ == "__main__":
    main()
