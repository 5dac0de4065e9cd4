"""
PRML Fig. 4.7: the perceptron learning algorithm, every update, and Novikoff's bound
====================================================================================

Two linearly separable classes in 2-D (a fixed synthetic draw) with a bias feature,
``φ = (x_1, x_2, 1)``, trained by fixed-increment error correction
(``mark1.machine.perceptron.train_error_correction``, the same core the machine's
ideal path uses) from a poor starting weight vector. Every presentation with
``errors[p]`` set moved the weights by ``t_n φ_n``; replaying those updates gives the
weight vector after each, and :func:`mark1.viz.prml.perceptron_figure` draws them
all, one panel per update (the book shows the start and two updates): the boundary,
the weight vector (arrow, normal to the boundary, pointing to the red class
``t = +1`` as in the book) and, circled in green, the misclassified point that
causes the next update.

The title sets the updates made beside Novikoff's bound (PRML §4.1.7): from
``w = 0`` at most ``(R/γ)²`` updates, with ``R = max ‖φ_n‖`` and ``γ`` the margin of
the maximum-margin separating vector in φ-space (``mark1.viz.prml.max_margin``: the
best of all separating vectors, so the tightest bound of this form); from the start
used here the same argument gives a larger number, also printed. Prints the number
of updates, epochs, whether the training set ended separated, and the bound.

Run it with ``python examples/prml_fig4_7.py [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

from mark1.machine.perceptron import train_error_correction
from mark1.viz import percent, script_parser
from mark1.viz.prml import novikoff_bound, perceptron_figure

matplotlib.use("Agg")           # the figure goes to a file, never to a window

W0 = np.array([-1.5, 3.0, 0.5])                  # (w_1, w_2, bias): a poor start


def data(seed: int = 1):
    """Points in [-1, 1]², labelled by a line, with a margin around it."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (60, 2))
    s = X[:, 0] + 0.6 * X[:, 1] - 0.1
    keep = np.abs(s) > 0.15
    return X[keep], np.where(s[keep] > 0, 1.0, -1.0)


def main(argv=None) -> None:
    args = script_parser(__doc__, __file__).parse_args(argv)

    X, t = data()
    phi = np.c_[X, np.ones(len(X))]
    res = train_error_correction(phi, t, epochs=100, w0=W0[None, :], stop_when_converged=True)
    upd = np.flatnonzero(res.errors[:, 0])                 # presentations that moved the weights
    cards = res.order[upd]
    steps = np.cumsum(np.r_[W0[None, :], t[cards, None] * phi[cards]], axis=0)   # w after 0..U updates
    assert np.allclose(steps[-1], res.weights[0])
    acc = [float(np.mean(np.sign(phi @ w) == t)) for w in steps]
    bound = novikoff_bound(phi, t, w0=W0)
    print(f"{len(X)} points, 2 classes, bias feature; start w = {W0.tolist()}")
    print(f"updates: {len(upd)}")
    print(f"epochs run: {res.epochs_run}, mistakes per epoch: {res.mistakes_per_epoch.tolist()}")
    print(f"converged: {res.converged}")
    print(f"training accuracy at the start: {percent(acc[0])}, after update 1: {percent(acc[1])}, "
          f"after update 2: {percent(acc[2])}, at the end: {percent(acc[-1])}")
    print(f"final w = {np.round(res.weights[0], 3).tolist()}")
    print(f"R = max |phi| = {bound.R:.4f}; gamma = {bound.gamma:.4f}, the margin of the maximum-margin separating "
          f"vector u = {np.round(bound.u, 4).tolist()}")
    print(f"Novikoff's bound: (R/gamma)^2 = {bound.from_zero:.1f} updates from w = 0, "
          f"{bound.from_start:.1f} from this start; updates made: {len(upd)}")

    perceptron_figure(X, t, res, w0=W0, out=args.out / "prml_fig4_7.png")
    print(f"figure: {args.out / 'prml_fig4_7.png'}")


if __name__ == "__main__":
    main()
