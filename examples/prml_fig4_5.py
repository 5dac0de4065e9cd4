"""
PRML Fig. 4.5: least squares masks the middle of three classes; logistic regression does not
============================================================================================

Three classes in 2-D, their means on a line (a fixed synthetic draw), drawn in the
book's colours: red crosses, green pluses, blue circles, the green class in the
middle (PRML p. 187, the caption of Fig. 4.5: "training data points denoted in red
(×), green (+), and blue (◦)"; it is the green class that least squares squeezes).
The background colours show each model's decision regions, the black lines its
decision boundaries, on the book's plane (-6 to 6 on both axes). Left: least squares with 1-of-K targets
(``mark1.LeastSquaresClassifier``, PRML §4.1.3) fits each class indicator
with a linear function; the middle class's indicator is high in the middle and
low on both sides, which no linear function follows, so its output is almost
flat and is beaten everywhere by one of the outer two: the middle class is
"masked". Right: multiclass logistic regression (``mark1.LogisticRegression``,
the softmax model of §4.3.4 fitted by Newton-Raphson/IRLS) has linear boundaries
too, and gets the middle class right.

The three classes here are linearly separable, where maximum likelihood has no
finite solution (§4.3.2), so logistic regression is the MAP fit under a broad
Gaussian prior, ``alpha=0.01`` (prior variance 100 on each weight; one value,
the same as in prml_fig4_4.py, chosen before looking at the figure). The
generative Gaussian classifier with a shared covariance
(``mark1.GaussianClassifier``, §4.2.2) also gets the middle class right; its
accuracy is printed for reference. Prints the accuracies (on the training
points and on fresh points from the same distribution) and saves the figure.

Run it with ``python examples/prml_fig4_5.py [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.colors import ListedColormap

from mark1.linear_model import GaussianClassifier, LeastSquaresClassifier, LogisticRegression
from mark1.viz import percent, plane_figure, save_figure, script_parser

matplotlib.use("Agg")           # the figure goes to a file, never to a window

MEANS = np.array([[-2.5, -2.5], [0.0, 0.0], [2.5, 2.5]])
# the book's colours and markers: red x, green + (the middle class), blue o
COLORS = ("tab:red", "tab:green", "tab:blue")
MARKERS = ("x", "+", "o")
REGIONS = ("#f6c9c9", "#c9efc9", "#c9d9f6")      # the same colours, pale, for the decision regions
PRIOR_PRECISION = 0.01          # alpha of the Gaussian prior on the weights (variance 100)


def draw(rng, n_per_class):
    X = np.concatenate([rng.normal(m, 0.7, (n_per_class, 2)) for m in MEANS])
    return X, np.repeat([0, 1, 2], n_per_class)


def main(argv=None) -> None:
    args = script_parser(__doc__, __file__).parse_args(argv)

    rng = np.random.default_rng(0)
    X, y = draw(rng, 50)
    X_new, y_new = draw(rng, 500)
    ls = LeastSquaresClassifier().fit(X, y)
    logistic = LogisticRegression(alpha=PRIOR_PRECISION).fit(X, y)
    gauss = GaussianClassifier().fit(X, y)
    print(f"three classes, {len(X)} training points, {len(X_new)} fresh points")
    for name, clf in (("least squares", ls), ("logistic regression", logistic), ("Gaussian classifier", gauss)):
        counts = np.bincount(clf.predict(X), minlength=3)
        print(f"{name} accuracy: {percent(clf.score(X, y))} (fresh points: {percent(clf.score(X_new, y_new))}); "
              f"training points assigned to each class: {counts.tolist()}")
    middle = y == 1
    print(f"middle class recognised: least squares {percent(np.mean(ls.predict(X[middle]) == 1))}, "
          f"logistic regression {percent(np.mean(logistic.predict(X[middle]) == 1))}, "
          f"Gaussian {percent(np.mean(gauss.predict(X[middle]) == 1))}")

    lim = (-6.0, 6.0)
    fig, axes = plane_figure(1, 2, width=10, height=5.2, xlim=lim, ylim=lim)
    xx, yy = np.meshgrid(np.linspace(*lim, 400), np.linspace(*lim, 400))
    grid = np.c_[xx.ravel(), yy.ravel()]
    for ax, (name, clf) in zip(axes, (("least squares", ls), ("logistic regression", logistic))):
        regions = clf.predict(grid).reshape(xx.shape)
        ax.pcolormesh(xx, yy, regions, cmap=ListedColormap(REGIONS), vmin=-0.5, vmax=2.5, shading="auto",
                      rasterized=True)
        ax.contour(xx, yy, regions, levels=[0.5, 1.5], colors="k", linewidths=1.2)   # the decision boundaries
        for k in range(3):
            pts = X[y == k]
            if MARKERS[k] == "o":                               # open circles, as in the book
                ax.scatter(*pts.T, marker="o", facecolors="none", edgecolors=COLORS[k], s=36, linewidths=1.5)
            else:
                ax.scatter(*pts.T, marker=MARKERS[k], color=COLORS[k], s=42, linewidths=1.5)
        green = np.mean(clf.predict(X[y == 1]) == 1)
        ax.set_title(f"{name}: {percent(clf.score(X, y))} correct, green class {percent(green)}",
                     fontsize=11)
        ax.set_xticks(range(-4, 5, 2))                 # no label at the panels' shared edge
        ax.set_yticks(range(-4, 5, 2))
        ax.tick_params(labelsize=10)
    fig.suptitle("PRML Fig. 4.5: three classes in the book's red ×, green +, blue ○;\n"
                 "least squares masks the middle one (green), logistic regression does not", fontsize=11)
    save_figure(fig, args.out / "prml_fig4_5.png", dpi=110)
    print(f"figure: {args.out / 'prml_fig4_5.png'}")


if __name__ == "__main__":
    main()
