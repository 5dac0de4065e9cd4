"""
PRML Fig. 4.6: projecting onto the line joining the class means vs onto Fisher's direction
==========================================================================================

Two classes in 2-D with strongly correlated, elongated covariance (a fixed synthetic
draw). Projected onto the line joining the class means the classes overlap badly;
projected onto Fisher's direction ``w ∝ S_W^{-1} (m_1 - m_0)``
(``mark1.FisherDiscriminant``, PRML §4.1.4), which also keeps the spread within
each class small, they hardly overlap. The figure explains Fisher's criterion on
each projection ``y = wᵀx`` (PRML eq. 4.25-4.26): ``J(w)`` is the between-class
variance over the within-class variance, ``(m_1 - m_0)² / (s_0² + s_1²)`` with
``m_k`` the projected class means and ``s_k² = Σ_{n ∈ C_k} (y_n - m_k)²``, and
writes out its numbers: the mean difference has the larger distance between the
means, Fisher's ``w`` the far smaller spread and so the larger ``J`` (the largest
of any direction). Prints J and the error of a threshold half-way between the
projected means for both directions, and saves
:func:`mark1.viz.fisher_histograms_figure` (class 1 red, class 0 blue, as the
book's red and blue).

Run it with ``python examples/prml_fig4_6.py [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

from mark1.linear_model import FisherDiscriminant
from mark1.viz import fisher_histograms_figure, percent, script_parser

matplotlib.use("Agg")           # the figure goes to a file, never to a window


def data(seed: int = 0, n: int = 200):
    rng = np.random.default_rng(seed)
    cov = np.array([[3.0, 2.6], [2.6, 3.0]])
    X = np.r_[rng.multivariate_normal([0.0, 0.0], cov, n), rng.multivariate_normal([2.0, -1.0], cov, n)]
    return X, np.repeat([0, 1], n)


def main(argv=None) -> None:
    args = script_parser(__doc__, __file__).parse_args(argv)

    X, y = data()
    fd = FisherDiscriminant().fit(X, y)
    m0, m1 = fd.means_
    directions = {"mean difference": (m1 - m0) / np.linalg.norm(m1 - m0),
                  "Fisher": fd.coef_[0] / np.linalg.norm(fd.coef_[0])}
    print(f"two classes, {len(X)} points")
    for name, v in directions.items():
        p = X @ v
        threshold = 0.5 * (m0 + m1) @ v
        error = np.mean((p > threshold) != (y == 1))
        print(f"{name} direction ({v[0]:+.3f}, {v[1]:+.3f}): J = {fd.criterion(v):.4f}, "
              f"error with the midpoint threshold = {percent(error)}")
    print(f"Fisher classifier (its own threshold) accuracy: {percent(fd.score(X, y))}")
    fisher_histograms_figure(X, y, out=args.out / "prml_fig4_6.png")
    print(f"figure: {args.out / 'prml_fig4_6.png'}")


if __name__ == "__main__":
    main()
