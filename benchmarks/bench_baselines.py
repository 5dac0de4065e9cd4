"""Benchmark: mark1.linear_model against their scikit-learn counterparts.

Run from the repository root::

    python benchmarks/bench_baselines.py [--n 10000] [--d 512] [--spread 0.3] [--repeats 3]

Data: ``n`` training and ``n // 2`` test cards of ``d`` random sparse binary
features (float64 0/1), class ``k`` switching feature ``j`` on with probability
``r_kj = base_j * exp(spread * z_kj)`` (``base_j ~ Beta(1, 6)``, ``z ~ N(0, 1)``,
clipped to [0.005, 0.95]), balanced classes, seeded.  ``spread`` sets how
different the classes are (0.3: the perceptron fits about 98 % of a two-class
and 92 % of an eight-class training set).

For 2 and 8 classes every learner is fitted on the training cards and predicts the
test cards; the time is the best of ``repeats`` consecutive runs of fit + predict
after one untimed warm-up run, first ours, then scikit-learn's, in the same
process.  The sides are not interleaved run by run: numpy and scipy (which
scikit-learn uses beside numpy) each bring their own OpenBLAS thread pool, whose
threads keep spinning for a while after a call, and a run that starts right after
the other pool's work competes with them for the cores (measured on 2 cores: our
least squares 0.085 s right after RidgeClassifier, 0.055 s otherwise).
``--pause 0.3`` rests before every timed run instead (scikit-learn, which itself
alternates between the two pools, gains from it: RidgeClassifier 0.115 s back to
back, 0.089 s after a pause; its Perceptron loses: 0.037 s back to back, 0.049 s
after a pause).  Pairs:

=================================  =================================================
LeastSquaresClassifier(alpha=a)    RidgeClassifier(alpha=a), a = 0, 1e-6, 1
FisherDiscriminant(shrinkage=s)    LinearDiscriminantAnalysis(solver='eigen', shrinkage=s)
GaussianClassifier(shrinkage=s)    LinearDiscriminantAnalysis(solver='lsqr', shrinkage=s)
Perceptron(epochs=5, no early      Perceptron(shuffle=False, tol=None, eta0=1, max_iter=5)
stop)
LogisticRegression(alpha=1)        LogisticRegression(C=1, max_iter=1000)
=================================  =================================================

Logistic regression is penalised on both sides (``alpha = 1/C = 1``) because the
training sets here are linearly separable (10,000 cards, 512 features), where the
unpenalised likelihood has no maximum.  The two sides stop differently: ours at
a Newton decrement of 1e-14 (weights to about 1e-9), scikit-learn's L-BFGS at its
default ``tol=1e-4`` (weights 0.2-0.5 away from ours), so the column "identical"
matters as much as the ratio.  Being slow (tens of seconds for 8 classes on a
loaded machine), it is timed once, without a warm-up run, unless
``--logistic-repeats`` says otherwise; ``--no-logistic`` leaves it out.

``s = 0.01`` for both sides (the features include nearly constant ones, so the
unshrunk covariance is close to singular and LDA's eigen solver could fail).
Finally the perceptron core (:func:`mark1.machine.perceptron.train_error_correction`) is
timed against a naive one-card-at-a-time Python loop on the same features.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from mark1.linear_model import (FisherDiscriminant, GaussianClassifier,  # noqa: E402
                             LeastSquaresClassifier, LogisticRegression, Perceptron)
from mark1.machine.perceptron import train_error_correction  # noqa: E402

SHRINKAGE = 0.01
EPOCHS = 5


def make_data(n_classes, n, d, spread, seed):
    """Sparse binary features with class-dependent rates (train, test)."""
    rng = np.random.default_rng(seed)
    base = rng.beta(1.0, 6.0, size=d)
    rates = np.clip(base * np.exp(spread * rng.normal(size=(n_classes, d))), 0.005, 0.95)

    def draw(m):
        y = rng.permutation(np.arange(m) % n_classes)
        X = (rng.random((m, d)) < rates[y]).astype(np.float64)
        return X, y

    return draw(n), draw(n // 2)


def naive_error_correction(X, T, epochs, eta=1.0):
    """One card at a time, straight from the textbook (the reference the core must equal)."""
    n, d = X.shape
    k = T.shape[1]
    W = np.zeros((k, d))
    for _ in range(epochs):
        for i in range(n):
            x = X[i]
            s = W @ x
            for u in range(k):
                if T[i, u] * s[u] <= 0:
                    W[u] += (eta * T[i, u]) * x
    return W


def best_of(fn, repeats, pause=0.0):
    best = np.inf
    out = None
    for _ in range(repeats):
        time.sleep(pause)
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def pairs():
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import LogisticRegression as SkLogisticRegression
    from sklearn.linear_model import Perceptron as SkPerceptron
    from sklearn.linear_model import RidgeClassifier

    return [
        ("least squares a=0", lambda: LeastSquaresClassifier(alpha=0.0),
         lambda: RidgeClassifier(alpha=0.0)),
        ("least squares a=1e-6", lambda: LeastSquaresClassifier(alpha=1e-6),
         lambda: RidgeClassifier(alpha=1e-6)),
        ("least squares a=1", lambda: LeastSquaresClassifier(alpha=1.0),
         lambda: RidgeClassifier(alpha=1.0)),
        ("Fisher", lambda: FisherDiscriminant(shrinkage=SHRINKAGE),
         lambda: LinearDiscriminantAnalysis(solver="eigen", shrinkage=SHRINKAGE)),
        ("Gaussian (shared)", lambda: GaussianClassifier(shrinkage=SHRINKAGE),
         lambda: LinearDiscriminantAnalysis(solver="lsqr", shrinkage=SHRINKAGE)),
        ("perceptron", lambda: Perceptron(epochs=EPOCHS, stop_when_converged=False),
         lambda: SkPerceptron(shuffle=False, tol=None, eta0=1.0, max_iter=EPOCHS)),
        ("logistic", lambda: LogisticRegression(alpha=1.0),
         lambda: SkLogisticRegression(C=1.0, max_iter=1000)),
    ]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--spread", type=float, default=0.3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--pause", type=float, default=0.0,
                    help="seconds of rest before each timed run (see the module docstring)")
    ap.add_argument("--logistic-repeats", type=int, default=1,
                    help="timed runs of logistic regression (0 or 1: once, without warm-up)")
    ap.add_argument("--no-logistic", action="store_true", help="leave logistic regression out")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", module="sklearn")
    try:
        import sklearn
    except ImportError:
        sys.exit("scikit-learn is needed for this benchmark (pip install scikit-learn)")

    print(f"numpy {np.__version__}, scikit-learn {sklearn.__version__}; "
          f"{args.n} x {args.d} binary features, spread {args.spread}, best of {args.repeats}")
    header = f"{'learner':<20} {'classes':>7} {'ours [s]':>9} {'sklearn [s]':>11} {'ratio':>6} {'identical':>9}"
    print(header)
    print("-" * len(header))
    core_rows = []
    for K in (2, 8):
        (X, y), (Xt, yt) = make_data(K, args.n, args.d, args.spread, args.seed + K)
        for name, ours, theirs in pairs():
            repeats = args.repeats
            if name == "logistic":
                if args.no_logistic:
                    continue
                repeats = max(1, args.logistic_repeats)
            # each side: one untimed warm-up run, then the best of `repeats` in a row
            if name != "logistic" or args.logistic_repeats > 1:
                ours().fit(X, y).predict(Xt)
            t_ours, p_ours = best_of(lambda: ours().fit(X, y).predict(Xt), repeats, args.pause)
            if name != "logistic" or args.logistic_repeats > 1:
                theirs().fit(X, y).predict(Xt)
            t_sk, p_sk = best_of(lambda: theirs().fit(X, y).predict(Xt), repeats, args.pause)
            same = 100.0 * np.mean(p_ours == p_sk)
            print(f"{name:<20} {K:>7} {t_ours:>9.4f} {t_sk:>11.4f} {t_ours / t_sk:>6.2f} {same:>8.2f}%",
                  flush=True)

        # the core against the naive loop, on the same (augmented) features
        Xa = np.hstack([X, np.ones((len(X), 1))])
        classes = np.unique(y)
        T = (np.where(y == classes[1], 1.0, -1.0)[:, None] if K == 2
             else np.where(y[:, None] == classes[None, :], 1.0, -1.0))
        t_core, res = best_of(lambda: train_error_correction(Xa, T, epochs=EPOCHS), args.repeats,
                              args.pause)
        t_naive, W_naive = best_of(lambda: naive_error_correction(Xa, T, EPOCHS), 1, args.pause)
        core_rows.append((K, t_core, t_naive, np.array_equal(res.weights, W_naive),
                          int(res.mistakes_per_epoch.sum()), len(res.order)))
    print()
    print(f"{'core vs naive':<20} {'classes':>7} {'core [s]':>9} {'naive [s]':>11} {'ratio':>6} {'equal W':>9}")
    for K, tc, tn, eq, mistakes, P in core_rows:
        print(f"{'':<20} {K:>7} {tc:>9.4f} {tn:>11.4f} {tc / tn:>6.3f} {str(eq):>9}"
              f"   ({mistakes} of {P} presentations with a mistake)")


if __name__ == "__main__":
    main()
