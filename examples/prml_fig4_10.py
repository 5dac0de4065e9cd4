"""
PRML Fig. 4.10: Gaussian classes with a shared covariance have a logistic-sigmoid posterior
===========================================================================================

The probabilistic generative model of PRML §4.2.2, on two classes of 2-D points
drawn from Gaussians with one covariance matrix (a fixed synthetic draw, twice as
many points of class 0 as of class 1, so the priors differ).
``mark1.GaussianClassifier`` fits the priors ``p(C_k) = N_k / N``, the class means
``μ_k`` and the shared covariance ``Σ`` by maximum likelihood (eq. 4.73-4.80); Bayes'
theorem then gives the posterior of class 1 as the logistic sigmoid of a linear
function (eq. 4.57-4.67)::

    p(C1|x) = σ(wᵀx + w0),   w = Σ⁻¹(μ1 - μ0),
    w0 = -½ μ1ᵀΣ⁻¹μ1 + ½ μ0ᵀΣ⁻¹μ0 + ln p(C1)/p(C0)

because the quadratic terms ``xᵀΣ⁻¹x`` of the two Gaussian exponents cancel. The
script computes ``w`` and ``w0`` from the fitted ``means_``, ``covariance_`` and
``priors_`` and asserts that ``σ(wᵀx + w0)`` is the classifier's ``predict_proba``
at every point (and its ``coef_`` and ``intercept_``). The figure
(:func:`mark1.viz.prml.generative_figure`), as the book's Fig. 4.10 but in 2-D
panels: the class-conditional densities (class 1 red, class 0 blue, the book's
colours), the posterior ``p(C1|x)`` over the plane as a proportion of red ink (the
weights' blue-white-red map of every mark1 figure), and the posterior at the points
against ``a = wᵀx + w0``, where they lie on ``σ(a)``.

Run it with ``python examples/prml_fig4_10.py [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

from mark1.linear_model import GaussianClassifier
from mark1.viz import percent, script_parser
from mark1.viz.prml import generative_figure

matplotlib.use("Agg")           # the figure goes to a file, never to a window

MEANS = np.array([[-1.0, -0.6], [1.3, 1.0]])
COVARIANCE = np.array([[1.0, 0.55], [0.55, 0.8]])      # one covariance for both classes
COUNTS = (200, 100)


def data(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.multivariate_normal(MEANS[0], COVARIANCE, COUNTS[0]),
              rng.multivariate_normal(MEANS[1], COVARIANCE, COUNTS[1])]
    return X, np.repeat([0, 1], COUNTS)


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def main(argv=None) -> None:
    args = script_parser(__doc__, __file__).parse_args(argv)

    X, y = data()
    gc = GaussianClassifier(shrinkage=0.0).fit(X, y)          # plain maximum likelihood, no shrinkage
    mu0, mu1 = gc.means_
    Sigma = gc.covariance_
    p0, p1 = gc.priors_
    w = np.linalg.solve(Sigma, mu1 - mu0)                                              # eq. 4.66
    w0 = -0.5 * mu1 @ np.linalg.solve(Sigma, mu1) + 0.5 * mu0 @ np.linalg.solve(Sigma, mu0) + np.log(p1 / p0)
    posterior = gc.predict_proba(X)[:, 1]
    gap = np.max(np.abs(posterior - sigmoid(X @ w + w0)))
    assert gap < 1e-12, gap                                   # the posterior is sigma(w^T x + w0)
    assert np.allclose(gc.coef_[0], w) and np.allclose(gc.intercept_[0], w0)

    print(f"{len(X)} points, two classes of {COUNTS[0]} and {COUNTS[1]}, one covariance")
    print(f"fitted priors: {np.round(gc.priors_, 3).tolist()}; means: {np.round(gc.means_, 3).tolist()} "
          f"(drawn from {MEANS.tolist()})")
    print(f"fitted shared covariance: {np.round(Sigma, 3).tolist()} (drawn from {COVARIANCE.tolist()})")
    print(f"w = Sigma^-1 (mu1 - mu0) = {np.round(w, 4).tolist()}, w0 = {w0:.4f}")
    print(f"largest |p(C1|x) - sigma(w^T x + w0)| over the points: {gap:.2e}")
    print(f"Gaussian classifier accuracy: {percent(gc.score(X, y))}")

    generative_figure(gc, X, y, out=args.out / "prml_fig4_10.png")
    print(f"figure: {args.out / 'prml_fig4_10.png'}")


if __name__ == "__main__":
    main()
