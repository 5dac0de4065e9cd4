"""
PRML Fig. 4.4: least squares is pulled by points far on the correct side; logistic regression is not
====================================================================================================

Two classes in 2-D (a fixed synthetic draw; red crosses and blue circles as in the
book: class 1, whose decision value is positive, red, as in every two-class figure
of mark1). Left: the decision boundaries of least squares (magenta,
``mark1.LeastSquaresClassifier``, PRML §4.1.3) and logistic regression
(green, ``mark1.LogisticRegression``, §4.3.2, fitted by IRLS). Right: the same
after adding a cluster of extra blue points far in the bottom right - points every
sensible boundary already classifies correctly. Least squares penalises
predictions that are "too correct", so its boundary swings into the red class;
logistic regression's cross-entropy hardly changes for points that are already
far on the right side, so its boundary stays put.

As in the book, both data sets are linearly separable, where maximum likelihood
has no finite solution (§4.3.2: ``||w|| -> inf``; plain ``LogisticRegression()``
stops at the first separating Newton step with a ``SeparableDataWarning``). So
the curve drawn is the MAP solution under a broad Gaussian prior, the book's
remedy: ``LogisticRegression(alpha=0.01)``, prior variance 100 on each weight
(one value, chosen before looking at the figure). The perceptron (§4.1.7), which
also ignores correctly classified points, is fitted too and its accuracy
printed, not drawn.

Run it with ``python examples/prml_fig4_4.py [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

from mark1.linear_model import LeastSquaresClassifier, LogisticRegression, Perceptron
from mark1.viz import percent, plane_figure, save_figure, script_parser

matplotlib.use("Agg")           # the figure goes to a file, never to a window

PRIOR_PRECISION = 0.01          # alpha of the Gaussian prior on the weights (variance 100)

DRAWN = {
    "least squares": (lambda: LeastSquaresClassifier(), "magenta", "--"),
    "logistic regression": (lambda: LogisticRegression(alpha=PRIOR_PRECISION), "tab:green", "-"),
}


def data(seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 50
    X = np.r_[rng.normal([-1.0, 1.5], 0.6, (n, 2)), rng.normal([1.0, -1.0], 0.6, (n, 2))]
    y = np.repeat([1, 0], n)                             # class 1 (red) upper left, class 0 (blue) lower right
    extra = rng.normal([7.0, -6.0], 0.5, (10, 2))        # far out on class 0's own side
    return X, y, extra


def fit(make, X, y):
    """Fit; for logistic regression say how many Newton steps it took."""
    clf = make().fit(X, y)
    note = f" ({clf.n_iter_} Newton steps)" if hasattr(clf, "n_iter_") else ""
    return clf, note


def boundary(ax, clf, xlim, ylim, color, ls, label, lw):
    """Draw the decision boundary of a two-class linear classifier (decision = 0)."""
    xx, yy = np.meshgrid(np.linspace(*xlim, 300), np.linspace(*ylim, 300))
    d = clf.decision_function(np.c_[xx.ravel(), yy.ravel()])
    ax.contour(xx, yy, d.reshape(xx.shape), levels=[0.0], colors=[color], linestyles=[ls], linewidths=lw)
    ax.plot([], [], color=color, ls=ls, lw=lw, label=label)


def main(argv=None) -> None:
    args = script_parser(__doc__, __file__).parse_args(argv)

    X, y, extra = data()
    Xo, yo = np.r_[X, extra], np.r_[y, np.zeros(len(extra), int)]
    fits = {}
    print(f"{len(X)} points in two classes, then {len(extra)} extra class-0 points far on class 0's side")
    print("accuracy on the original points, fitted without and with the extra points:")
    for name, (make, _, _) in DRAWN.items():
        (a, na), (b, nb) = fit(make, X, y), fit(make, Xo, yo)
        fits[name] = (a, b)
        print(f"{name} without extra points: {percent(a.score(X, y))}{na}")
        print(f"{name} with extra points: {percent(b.score(X, y))}{nb}")
    perceptron = Perceptron(epochs=1000).fit(Xo, yo)
    print(f"perceptron with extra points: {percent(perceptron.score(X, y))} (not drawn)")

    xlim, ylim = (-4.0, 8.5), (-8.0, 4.5)
    fig, axes = plane_figure(1, 2, width=11, height=5.4, xlim=xlim, ylim=ylim)
    for ax, (pts, lab), which, title in ((axes[0], (X, y), 0, "without the extra points"),
                                         (axes[1], (Xo, yo), 1, "with extra points in the bottom right")):
        ax.scatter(*pts[lab == 1].T, marker="x", color="tab:red", s=36, linewidths=1.5, label="class 1")
        ax.scatter(*pts[lab == 0].T, marker="o", facecolors="none", edgecolors="tab:blue", s=36,
                   linewidths=1.5, label="class 0")
        for name, (_, color, ls) in reversed(DRAWN.items()):      # least squares on top, dashed
            clf = fits[name][which]
            boundary(ax, clf, xlim, ylim, color, ls, f"{name}: {percent(clf.score(X, y))}",
                     lw=2.2 if ls == "--" else 3.5)
        ax.set_title(f"{title}\n(legend: the original points classified right)", fontsize=11)
        ax.tick_params(labelsize=10)
        ax.legend(fontsize=10, loc="lower left")
    fig.suptitle("PRML Fig. 4.4: least squares (magenta) is pulled by points far on the correct side; "
                 "logistic regression (green) is not", fontsize=12)
    save_figure(fig, args.out / "prml_fig4_4.png", dpi=110)
    print(f"figure: {args.out / 'prml_fig4_4.png'}")


if __name__ == "__main__":
    main()
