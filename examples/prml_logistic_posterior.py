"""
PRML §4.3: logistic regression's posterior over the plane, and its decision boundary
====================================================================================

Logistic regression (PRML §4.3.2) models the posterior of class 1 directly as a
logistic sigmoid of a linear function, ``p(C1|x) = σ(wᵀx + w0)`` (eq. 4.87), and
fits ``w`` and ``w0`` by maximum likelihood: Newton-Raphson on the cross-entropy
(IRLS, eq. 4.90-4.100; ``mark1.LogisticRegression``). It needs the 3 parameters of
that linear function only, where the generative model of §4.2
(``examples/prml_fig4_10.py``) fits two means, a covariance and a prior (eight
numbers here) and is right only when the classes are Gaussian with one covariance.

The points (a fixed synthetic draw) overlap, so the likelihood has a finite maximum
and no prior is needed; class 1 is a mixture of two clusters, not a Gaussian. At the
maximum the gradient of the cross-entropy, ``Σ (y_n - t_n) φ_n`` (eq. 4.91), is zero:
the script computes it at the fitted weights and asserts it. The figure
(:func:`mark1.viz.prml.posterior_map_figure`) draws ``p(C1|x)`` over the plane on the
weights' blue-white-red map of every mark1 figure (0 blue, 1/2 white, 1 red: the
book's proportion of red ink, Fig. 4.10), the decision boundary ``p = 0.5`` (the line
``wᵀx + w0 = 0``) in black, ``p = 0.1`` and ``0.9`` dashed, and the points in their
class's colour (class 1 red, class 0 blue). Prints the weights, the Newton steps,
the gradient and the accuracy, beside the generative model's for reference.

Run it with ``python examples/prml_logistic_posterior.py [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

from mark1.linear_model import GaussianClassifier, LogisticRegression
from mark1.viz import percent, script_parser
from mark1.viz.prml import posterior_map_figure

matplotlib.use("Agg")           # the figure goes to a file, never to a window


def data(seed: int = 2):
    """Class 0 one elongated cluster; class 1 two clusters on its upper right."""
    rng = np.random.default_rng(seed)
    c0 = rng.multivariate_normal([-1.0, -0.5], [[1.2, 0.5], [0.5, 0.8]], 150)
    c1 = np.r_[rng.normal([1.5, 1.0], 0.7, (80, 2)), rng.normal([0.0, 2.5], 0.6, (70, 2))]
    return np.r_[c0, c1], np.repeat([0, 1], 150)


def main(argv=None) -> None:
    args = script_parser(__doc__, __file__).parse_args(argv)

    X, y = data()
    lr = LogisticRegression().fit(X, y)                       # maximum likelihood, as in the book
    w, w0 = lr.coef_[0], lr.intercept_[0]
    p = lr.predict_proba(X)[:, 1]
    assert np.allclose(p, 1.0 / (1.0 + np.exp(-(X @ w + w0))))  # the posterior is sigma(w^T x + w0)
    phi = np.c_[X, np.ones(len(X))]
    gradient = (p - y) @ phi                                  # eq. 4.91, over (w_1, w_2, w_0)
    assert np.abs(gradient).max() < 1e-6 * len(X), gradient   # a maximum of the likelihood
    gauss = GaussianClassifier().fit(X, y)

    print(f"{len(X)} points, two overlapping classes of 150 (class 1: two clusters)")
    print(f"logistic regression: w = {np.round(w, 4).tolist()}, w0 = {w0:.4f}, "
          f"{lr.n_iter_} Newton steps, converged: {lr.converged_}")
    print(f"gradient of the cross-entropy at the fit (eq. 4.91): largest |component| = "
          f"{np.abs(gradient).max():.2e}")
    print(f"logistic regression accuracy: {percent(lr.score(X, y))}")
    print(f"Gaussian classifier (shared covariance, for reference) accuracy: {percent(gauss.score(X, y))}")

    posterior_map_figure(lr, X, y, out=args.out / "prml_logistic_posterior.png",
                         title="PRML §4.3: logistic regression's posterior p(C1|x) = σ(wᵀx + w0), "
                               "fitted by IRLS")
    print(f"figure: {args.out / 'prml_logistic_posterior.png'}")


if __name__ == "__main__":
    main()
