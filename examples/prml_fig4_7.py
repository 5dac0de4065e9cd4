"""
PRML Fig. 4.7: the perceptron learning algorithm, one update at a time
======================================================================

Two linearly separable classes in 2-D (a fixed synthetic draw) with a bias feature,
trained by fixed-increment error correction (``mark1.machine.perceptron.train_error_correction``,
the same core the machine's ideal path uses) from a poor starting weight vector.
Every presentation with ``errors[p]`` set moved the weights by ``t_n φ_n``; replaying
those updates gives the weight vector after each. Four panels as in PRML: the start,
after the first and the second update, and the end, each with the boundary, the
weight vector (arrow, normal to the boundary) and, circled, the misclassified point
that causes the next update. Prints the number of updates, epochs and whether the
training set ended separated.

Run it with ``python examples/prml_fig4_7.py [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

from mark1.machine.perceptron import train_error_correction
from mark1.viz import plane_figure, save_figure, script_parser

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
    print(f"{len(X)} points, 2 classes, bias feature; start w = {W0.tolist()}")
    print(f"updates: {len(upd)}")
    print(f"epochs run: {res.epochs_run}, mistakes per epoch: {res.mistakes_per_epoch.tolist()}")
    print(f"converged: {res.converged}")
    print(f"training accuracy at the start: {acc[0]:.3f}, after update 1: {acc[1]:.3f}, "
          f"after update 2: {acc[2]:.3f}, at the end: {acc[-1]:.3f}")
    print(f"final w = {np.round(res.weights[0], 3).tolist()}")

    shown = [0, 1, 2, len(upd)]
    fig, axes = plane_figure(2, 2, width=8, height=8, xlim=(-1, 1), ylim=(-1, 1))
    xs = np.linspace(-1, 1, 2)
    for ax, k in zip(axes, shown):
        w = steps[k]
        ax.scatter(*X[t < 0].T, marker="o", color="tab:red", s=18)
        ax.scatter(*X[t > 0].T, marker="o", color="tab:blue", s=18)
        if abs(w[1]) > 1e-12:
            ax.plot(xs, -(w[0] * xs + w[2]) / w[1], color="k", lw=1.5)
        else:
            ax.axvline(-w[2] / w[0], color="k", lw=1.5)
        foot = -w[2] * w[:2] / (w[:2] @ w[:2])             # the boundary's point nearest the origin
        nrm = w[:2] / np.linalg.norm(w[:2])
        ax.annotate("", xy=foot + 0.5 * nrm, xytext=foot, arrowprops=dict(arrowstyle="->", color="k", lw=1.5))
        if k < len(upd):
            ax.scatter(*X[cards[k]], s=160, facecolors="none", edgecolors="tab:green", linewidths=2)
        what = "start" if k == 0 else f"after update {k}" + (" (end)" if k == len(upd) else "")
        ax.set_title(f"{what}: {acc[k]:.0%} correct", fontsize=10)
    fig.suptitle("PRML Fig. 4.7: perceptron updates (circled: the misclassified point used next; "
                 "arrow: w)", fontsize=10)
    save_figure(fig, args.out / "prml_fig4_7.png", dpi=110)
    print(f"figure: {args.out / 'prml_fig4_7.png'}")


if __name__ == "__main__":
    main()
