"""PRML Fig. 4.4: least squares is pulled by points that are far on the right side.

Two classes in 2-D (a fixed synthetic draw). Fitting least squares
(``baselines.LeastSquaresClassifier``) again after adding a cluster of extra blue
points far in the bottom right - points every sensible boundary already classifies
correctly - swings its boundary into the red class: least squares penalises
predictions that are "too correct" (PRML §4.1.3). PRML contrasts it with logistic
regression; of the package's PRML §4.1-4.2 classifiers, the perceptron (§4.1.7)
is the one that ignores correctly classified points, so it stays put. The
Gaussian classifier with a shared covariance (§4.2.2) and Fisher's discriminant
(§4.1.4) have the same direction as least squares (PRML §4.1.5) and are shown for
contrast; they differ only in the threshold. Prints the accuracy of each on the
original points, fitted with and without the extra points, and saves the figure.

Run:  python examples/prml_fig4_4.py [--out DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np                               # noqa: E402
from matplotlib.figure import Figure             # noqa: E402

from mark1.atomic import atomic_path             # noqa: E402
from mark1.baselines import (FisherDiscriminant, GaussianClassifier,  # noqa: E402
                             LeastSquaresClassifier, Perceptron)

CLASSIFIERS = {
    "least squares": (lambda: LeastSquaresClassifier(), "magenta", "-"),
    "Gaussian, shared covariance": (lambda: GaussianClassifier(), "tab:orange", "--"),
    "Fisher": (lambda: FisherDiscriminant(), "tab:purple", ":"),
    "perceptron": (lambda: Perceptron(epochs=1000), "tab:green", "-"),
}


def data(seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 50
    X = np.r_[rng.normal([-1.0, 1.5], 0.6, (n, 2)), rng.normal([1.0, -1.0], 0.6, (n, 2))]
    y = np.repeat([0, 1], n)
    extra = rng.normal([7.0, -6.0], 0.5, (10, 2))        # far out on class 1's own side
    return X, y, extra


def boundary(ax, clf, xlim, ylim, color, ls, label):
    """Draw the decision boundary of a two-class linear classifier (decision = 0)."""
    xx, yy = np.meshgrid(np.linspace(*xlim, 300), np.linspace(*ylim, 300))
    d = clf.decision_function(np.c_[xx.ravel(), yy.ravel()])
    d = d if d.ndim == 1 else d[:, 1] - d[:, 0]
    ax.contour(xx, yy, d.reshape(xx.shape), levels=[0.0], colors=[color], linestyles=[ls], linewidths=1.8)
    ax.plot([], [], color=color, ls=ls, lw=1.8, label=label)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "output",
                    help="folder for the figure")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    X, y, extra = data()
    Xo, yo = np.r_[X, extra], np.r_[y, np.ones(len(extra), int)]
    fits = {}
    print(f"{len(X)} points in two classes, then {len(extra)} extra class-1 points far on class 1's side")
    print("accuracy on the original points, fitted without / with the extra points:")
    for name, (make, _, _) in CLASSIFIERS.items():
        a, b = make().fit(X, y), make().fit(Xo, yo)
        fits[name] = (a, b)
        print(f"  {name}: {a.score(X, y):.3f} without, {b.score(X, y):.3f} with")
    ls_without, ls_with = (f.score(X, y) for f in fits["least squares"])
    print(f"least squares without extra points: {ls_without:.3f}")
    print(f"least squares with extra points: {ls_with:.3f}")
    print(f"perceptron with extra points: {fits['perceptron'][1].score(X, y):.3f}")

    fig = Figure(figsize=(11, 5), layout="constrained")
    axes = fig.subplots(1, 2, sharex=True, sharey=True)
    xlim, ylim = (-3.5, 8.5), (-7.5, 4.5)
    for ax, (pts, lab), which, title in ((axes[0], (X, y), 0, "without the extra points"),
                                         (axes[1], (Xo, yo), 1, "with extra points in the bottom right")):
        ax.scatter(*pts[lab == 0].T, marker="x", color="tab:red", s=25, label="class 0")
        ax.scatter(*pts[lab == 1].T, marker="o", facecolors="none", edgecolors="tab:blue", s=25,
                   label="class 1")
        for name, (_, color, ls) in CLASSIFIERS.items():
            clf = fits[name][which]
            boundary(ax, clf, xlim, ylim, color, ls, f"{name} ({clf.score(X, y):.0%} of the original points)")
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_aspect("equal")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7, loc="lower left")
    fig.suptitle("PRML Fig. 4.4: least squares is sensitive to points far on the correct side; "
                 "the perceptron is not", fontsize=10)
    with atomic_path(args.out / "prml_fig4_4.png") as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    print(f"figure: {args.out / 'prml_fig4_4.png'}")


if __name__ == "__main__":
    main()
