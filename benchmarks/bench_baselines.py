"""Benchmark: mark1.linear_model against their scikit-learn counterparts, every ratio.

Run from the repository root::

    python benchmarks/bench_baselines.py [--n 10000] [--d 512] [--repeats 3] [--kinds binary,dense]

Two kinds of features, ``n`` training and ``n // 2`` test cards of ``d`` features each,
balanced classes, seeded:

* ``binary``: sparse 0/1 features (float64), class ``k`` switching feature ``j`` on
  with probability ``r_kj = base_j * exp(spread * z_kj)`` (``base_j ~ Beta(1, 6)``,
  ``z ~ N(0, 1)``, clipped to [0.005, 0.95]); ``spread`` (0.3) sets how different the
  classes are (the perceptron fits about 98 % of a two-class and 92 % of an
  eight-class training set); like the machine's A-unit outputs, about 15 % ones;
* ``dense``: Gaussian features, ``x = mu_k + N(0, I)`` with class means
  ``mu_k = dense_spread * N(0, I)`` (``dense_spread`` 0.08): no zero, no sum exact.

For each kind, 2 and 8 classes, every learner is fitted on the training cards and
predicts the test cards; the time is the best of ``repeats`` consecutive runs of fit +
predict after one untimed warm-up run, first ours, then scikit-learn's, in the same
process; the ratio is ours / theirs.  The sides are not interleaved run by run: numpy
and scipy (which scikit-learn uses beside numpy) each bring their own OpenBLAS thread
pool, whose threads keep spinning for a while after a call, and a run that starts right
after the other pool's work competes with them for the cores (measured on 2 cores: our
least squares 0.085 s right after RidgeClassifier, 0.055 s otherwise).  ``--pause 0.3``
rests before every timed run instead.  Threads: both sides run with the BLAS and OpenMP
threads as the process starts them, or with every BLAS pool held to ``--blas-threads``
(printed in the header); our estimators hold BLAS to one thread only inside loops of
small products (``mark1._utils.threads``), and none is left: the perceptron's loop is
compiled code without BLAS, the others make a few large products.  On a machine
shared with other work, ``--blas-threads 1`` gives steadier ratios for the estimators
made of large products (two threads per pool against other processes swing them by
2-5x, either way).  Pairs:

=================================  =================================================
LeastSquaresClassifier(alpha=a)    RidgeClassifier(alpha=a), a = 0, 1e-6, 1
FisherDiscriminant(shrinkage=s)    LinearDiscriminantAnalysis(solver='eigen', shrinkage=s)
GaussianClassifier(shrinkage=s)    LinearDiscriminantAnalysis(solver='lsqr', shrinkage=s)
Perceptron(epochs=5, no early      Perceptron(shuffle=False, tol=None, eta0=1, max_iter=5)
stop)
LogisticRegression(alpha=1)        LogisticRegression(C=1, max_iter=1000)
the same ("same opt.")             LogisticRegression(C=1, max_iter=1000, solver='newton-cg',
                                   tol=1e-8)
=================================  =================================================

The column "identical" says how alike the results are: the share of test predictions
that agree, and for the perceptron whether the weights are equal bit for bit (both add
each card's products in feature order, so they are, on float features too).

Logistic regression is penalised on both sides (``alpha = 1/C = 1``) because the
training sets here are linearly separable (10,000 cards, 512 features), where the
unpenalised likelihood has no maximum.  The two sides stop differently: ours at
a Newton decrement of 1e-14 (weights to about 1e-9), scikit-learn's L-BFGS at its
default ``tol=1e-4`` (weights 0.5-2 away from ours), so its column gives the largest
weight difference ``max |w_ours - w_sklearn|`` beside the share of equal predictions; the
row "same opt." pits ours against scikit-learn's Newton-CG at ``tol=1e-8``, which reaches
our optimum to about 1e-6 (its Newton-Cholesky solver reaches it to 2e-9 but takes three
times Newton-CG's time on two classes, and forms a 4,104-square Hessian on eight).  Ours
is fitted once for both rows.  Being slow, logistic regression is timed once, without a
warm-up run, unless ``--logistic-repeats`` says otherwise; ``--no-logistic`` leaves it
out.

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
KINDS = ("binary", "dense")


def make_data(n_classes, n, d, spread, seed, kind="binary", dense_spread=0.08):
    """Features of one kind (module docstring) with class-dependent statistics: (train, test)."""
    rng = np.random.default_rng(seed)
    if kind == "binary":
        base = rng.beta(1.0, 6.0, size=d)
        rates = np.clip(base * np.exp(spread * rng.normal(size=(n_classes, d))), 0.005, 0.95)
    else:
        means = dense_spread * rng.normal(size=(n_classes, d))

    def draw(m):
        y = rng.permutation(np.arange(m) % n_classes)
        if kind == "binary":
            X = (rng.random((m, d)) < rates[y]).astype(np.float64)
        else:
            X = means[y] + rng.normal(size=(m, d))
        return X, y

    return draw(n), draw(n // 2)


def thread_setting():
    """How BLAS and OpenMP threads are set in this process: one line per pool."""
    from threadpoolctl import threadpool_info

    return "; ".join(f"{i['internal_api']} ({os.path.basename(os.path.dirname(i['filepath']))}) "
                     f"{i['num_threads']} threads" for i in threadpool_info())


def naive_error_correction(X, T, epochs, eta=1.0):
    """One card at a time, straight from the textbook (the reference the core must equal),
    each sum added in feature order (``np.cumsum`` adds in sequence), as the core adds."""
    n, d = X.shape
    k = T.shape[1]
    W = np.zeros((k, d))
    for _ in range(epochs):
        for i in range(n):
            x = X[i]
            s = np.cumsum(W * x, axis=1)[:, -1]
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
        ("logistic, same opt.", lambda: LogisticRegression(alpha=1.0),
         lambda: SkLogisticRegression(C=1.0, max_iter=1000, solver="newton-cg", tol=1e-8)),
    ]


def fitted(make, X, y, Xt):
    est = make().fit(X, y)
    return est, est.predict(Xt)


def likeness(name, ours, theirs):
    """The "identical" column: equal test predictions, and the weights' agreement."""
    (e_ours, p_ours), (e_sk, p_sk) = ours, theirs
    same = f"{100.0 * np.mean(p_ours == p_sk):.2f}% pred"
    if name == "perceptron":
        equal = np.array_equal(e_ours.coef_, e_sk.coef_) and np.array_equal(e_ours.intercept_, e_sk.intercept_)
        return same + (", W equal" if equal else ", W differ")
    if name.startswith("logistic"):
        W_ours = np.c_[e_ours.coef_, e_ours.intercept_]
        W_sk = np.c_[e_sk.coef_, e_sk.intercept_]
        return same + f", |dW| {np.abs(W_ours - W_sk).max():.2g}"
    return same


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--spread", type=float, default=0.3, help="binary features: how different the classes are")
    ap.add_argument("--dense-spread", type=float, default=0.08,
                    help="dense features: the spread of the class means")
    ap.add_argument("--kinds", default=",".join(KINDS), help="features to run: binary, dense or both")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--pause", type=float, default=0.0,
                    help="seconds of rest before each timed run (see the module docstring)")
    ap.add_argument("--logistic-repeats", type=int, default=1,
                    help="timed runs of logistic regression (0 or 1: once, without warm-up)")
    ap.add_argument("--no-logistic", action="store_true", help="leave logistic regression out")
    ap.add_argument("--only", default=None, help="comma-separated learners to run (e.g. perceptron)")
    ap.add_argument("--blas-threads", type=int, default=None,
                    help="hold every BLAS pool to this many threads, both sides (default: as the process starts)")
    args = ap.parse_args(argv)
    try:
        pairs()                                       # scikit-learn and scipy load their BLAS pools
    except ImportError:
        sys.exit("scikit-learn is needed for this benchmark (pip install scikit-learn)")
    if args.blas_threads is not None:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=args.blas_threads, user_api="blas"):
            return run(args)
    return run(args)


def run(args):
    kinds = [k for k in args.kinds.split(",") if k]
    if not set(kinds) <= set(KINDS):
        sys.exit(f"--kinds: expected some of {', '.join(KINDS)}, got {args.kinds!r}")
    import sklearn

    warnings.filterwarnings("ignore", module="sklearn")

    print(f"numpy {np.__version__}, scikit-learn {sklearn.__version__}; {args.n} x {args.d} features "
          f"(binary: spread {args.spread}; dense: spread {args.dense_spread}), best of {args.repeats}")
    held = "held by --blas-threads" if args.blas_threads is not None else "as the process starts"
    print(f"threads, both sides: {thread_setting()} ({held}; ours hold BLAS to one thread only in loops of "
          f"small products, and none is left)")
    header = (f"{'learner':<20} {'features':>8} {'classes':>7} {'ours [s]':>9} {'sklearn [s]':>11} {'ratio':>6}  "
              f"identical")
    print(header)
    print("-" * (len(header) + 14))
    core_rows = []
    for kind in kinds:
        for K in (2, 8):
            (X, y), (Xt, yt) = make_data(K, args.n, args.d, args.spread, args.seed + K, kind, args.dense_spread)
            ours_logistic = None                                   # fitted once for both logistic rows
            for name, ours, theirs in pairs():
                family = name.split(" ")[0].rstrip(",")
                if args.only and family not in args.only.split(","):
                    continue
                repeats = args.repeats
                logistic = family == "logistic"
                if logistic:
                    if args.no_logistic:
                        continue
                    repeats = max(1, args.logistic_repeats)
                warm = not logistic or args.logistic_repeats > 1
                # each side: one untimed warm-up run, then the best of `repeats` in a row
                if logistic and ours_logistic is not None:
                    t_ours, r_ours = ours_logistic
                else:
                    if warm:
                        fitted(ours, X, y, Xt)
                    t_ours, r_ours = best_of(lambda: fitted(ours, X, y, Xt), repeats, args.pause)
                    if logistic:
                        ours_logistic = t_ours, r_ours
                if warm:
                    fitted(theirs, X, y, Xt)
                t_sk, r_sk = best_of(lambda: fitted(theirs, X, y, Xt), repeats, args.pause)
                print(f"{name:<20} {kind:>8} {K:>7} {t_ours:>9.4f} {t_sk:>11.4f} {t_ours / t_sk:>6.2f}  "
                      f"{likeness(name, r_ours, r_sk)}", flush=True)

            # the core against the naive loop, on the same (augmented) features
            Xa = np.hstack([X, np.ones((len(X), 1))])
            classes = np.unique(y)
            T = (np.where(y == classes[1], 1.0, -1.0)[:, None] if K == 2
                 else np.where(y[:, None] == classes[None, :], 1.0, -1.0))
            t_core, res = best_of(lambda: train_error_correction(Xa, T, epochs=EPOCHS), args.repeats,
                                  args.pause)
            t_naive, W_naive = best_of(lambda: naive_error_correction(Xa, T, EPOCHS), 1, args.pause)
            core_rows.append((kind, K, t_core, t_naive, np.array_equal(res.weights, W_naive),
                              int(res.mistakes_per_epoch.sum()), len(res.order)))
    print()
    print(f"{'core vs naive':<20} {'features':>8} {'classes':>7} {'core [s]':>9} {'naive [s]':>11} {'ratio':>6}  "
          f"equal W")
    for kind, K, tc, tn, eq, mistakes, P in core_rows:
        print(f"{'':<20} {kind:>8} {K:>7} {tc:>9.4f} {tn:>11.4f} {tc / tn:>6.3f}  {str(eq):<5}"
              f"   ({mistakes} of {P} presentations with a mistake)")


if __name__ == "__main__":
    main()
