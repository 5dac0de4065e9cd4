"""Fisher's linear discriminant (PRML §4.1.4, §4.1.6) and the generative classifier
with Gaussian class densities (§4.2.2), on the covariance maths of ``_covariance``."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mark1.exceptions import InputError
from mark1.linear_model._base import _Classifier, _ProbabilisticClassifier
from mark1.linear_model._covariance import (_EPS, _class_means, _eigh_covariance, _scatter, _shrunk,
                                            _solve_covariance, _target_scale)
from mark1.linear_model._validation import _check_choice, _check_int, _check_shrinkage


def _gaussian_threshold(mu_a, var_a, pi_a, mu_b, var_b, pi_b):
    """Where ``pi_a N(y | mu_a, var_a) = pi_b N(y | mu_b, var_b)`` between the means.

    Solves ``A y^2 + B y + C = 0`` (the log ratio of the weighted densities) with
    the cancellation-free quadratic formula; equal variances give the linear root
    ``(mu_a + mu_b)/2 - var ln(pi_b/pi_a) / (mu_b - mu_a)``.  Of the roots, the one
    between the means is taken (the one nearest the midpoint if none or both are);
    when the weighted densities never cross, the equal-variance root with the
    pooled variance is used.
    """
    mid = 0.5 * (mu_a + mu_b)
    gap = mu_b - mu_a
    scale = max(abs(gap), np.sqrt(max(var_a, var_b, 0.0)), np.finfo(float).tiny)
    floor = max((1e-9 * scale) ** 2, np.finfo(float).tiny)   # a class projected onto a point
    va, vb = max(var_a, floor), max(var_b, floor)
    lr = np.log(pi_b / pi_a)
    pooled = pi_a * va + pi_b * vb

    def linear(v):
        return mid if gap == 0 else mid - v * lr / gap

    A = 0.5 / va - 0.5 / vb
    B = mu_b / vb - mu_a / va
    C = 0.5 * mu_a ** 2 / va - 0.5 * mu_b ** 2 / vb + lr + 0.5 * np.log(va / vb)
    if abs(A) <= 1e-12 * (0.5 / va + 0.5 / vb):        # equal variances: one linear root
        return linear(pooled)
    disc = B * B - 4.0 * A * C
    if disc < 0:
        return linear(pooled)
    q = -0.5 * (B + np.copysign(np.sqrt(disc), B))
    roots = [q / A] + ([C / q] if q != 0 else [])
    lo, hi = min(mu_a, mu_b), max(mu_a, mu_b)
    inside = [r for r in roots if lo <= r <= hi]
    pool = inside if inside else roots
    return float(min(pool, key=lambda r: abs(r - mid)))


def _fisher_directions(Sigma_w, centred_means, priors, q, shrinkage):
    """The ``q`` leading eigenvectors of ``Sigma_W^{-1} Sigma_B``, normalised to
    ``v^T Sigma_W v = 1`` (a zero column where the eigenvalue is zero).

    ``Sigma_B = M^T M`` with the K rows ``M_k = sqrt(pi_k) (m_k - m)``, so the
    eigenvectors with non-zero eigenvalue lie in the span of ``Y = Sigma_W^{-1} M^T``:
    ``v = Y a`` with ``G a = lambda a``, ``G = M Y`` (K x K), and
    ``v^T Sigma_W v = a^T G a = lambda``.  One solve instead of a d x d eigenproblem.
    Returns ``(scalings (d, q), eigenvalues (K,) in decreasing order, shrinkage used)``.
    """
    K, d = centred_means.shape
    M = np.sqrt(priors)[:, None] * centred_means
    Y, _, s = _solve_covariance(Sigma_w, M.T, shrinkage, "the within-class covariance", stacklevel=4)
    G = M @ Y
    ev, A = np.linalg.eigh(0.5 * (G + G.T))
    ev, A = np.maximum(ev[::-1], 0.0), A[:, ::-1]
    live = ev[:q] > K * _EPS * max(ev[0], np.finfo(float).tiny)
    scal = np.zeros((d, q))
    scal[:, live] = (Y @ A[:, :q][:, live]) / np.sqrt(ev[:q][live])
    return scal, ev, s


class FisherDiscriminant(_Classifier):
    """Fisher's linear discriminant (PRML §4.1.4 two classes, §4.1.6 K classes).

    Two classes: the direction ``w ∝ S_W^{-1} (m_1 - m_0)`` (eq. 4.30, oriented so
    that ``classes_[1]`` projects higher) and a threshold on ``y = w^T x``.
    K classes: the projection onto the leading eigenvectors of ``S_W^{-1} S_B``
    (at most K-1), then classification in the projected space.
    ``decision_function``: two classes ``w^T x - threshold_``; K classes the class
    scores described under ``threshold``.

    Parameters
    ----------
    n_components : int, optional
        Number of discriminant directions, ``1 <= n_components <= min(K-1, d)``
        (default ``min(K-1, d)``).  Used by ``transform``; the K-class classifier
        works in this subspace.
    threshold : {'gaussian', 'midpoint'}, default 'gaussian'
        Two classes: ``'gaussian'`` fits a 1-D Gaussian (own mean and variance) to
        each projected class, weights them by the class priors and puts the
        threshold where they cross between the projected means (see
        :func:`_gaussian_threshold`); ``'midpoint'`` uses ``w^T (m_0 + m_1) / 2``.
        K classes: ``'gaussian'`` assigns ``argmax_k  -||z - nu_k||^2 / 2 + ln
        pi_k`` in the projected space ``z`` (a Gaussian with the identity
        covariance there, which is the projected within-class covariance since the
        directions are normalised to ``W^T Sigma_W W = I``); ``'midpoint'`` drops
        the priors (nearest projected class mean).
    shrinkage : 'auto' or float in [0, 1], default 'auto'
        Shrinkage of the pooled within-class covariance ``Sigma_W = S_W / N``
        (see :mod:`mark1.linear_model`).

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    priors_ : ndarray of shape (K,)
    means_ : ndarray of shape (K, n_features)
        Class means ``m_k``.
    xbar_ : ndarray of shape (n_features,)
        Overall mean ``m``.
    scalings_ : ndarray of shape (n_features, n_components)
        Discriminant directions (eigenvectors of ``Sigma_W^{-1} Sigma_B``),
        normalised so that ``scalings_.T @ Sigma_W @ scalings_ = I`` (``Sigma_W``
        shrunk as fitted), in decreasing order of ``J``; for K > 2 each column's
        largest-magnitude entry is positive.  A direction whose eigenvalue is zero
        (class means on a lower-dimensional subspace, so fewer than K-1
        discriminating directions exist) is returned as a zero column.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        Eigenvalues of ``Sigma_W^{-1} Sigma_B`` kept, over their sum.
    coef_ : ndarray of shape (1, n_features) or (K, n_features)
    intercept_ : ndarray of shape (1,) or (K,)
        The classifier as a linear function of ``x`` (two classes:
        ``coef_[0] = scalings_[:, 0]`` and ``intercept_ = -threshold``).
    threshold_ : float
        Two classes only: the threshold on ``w^T x``.
    within_scatter_ : ndarray of shape (n_features, n_features)
        ``S_W`` (eq. 4.28 / 4.40), unshrunk.
    between_scatter_ : ndarray of shape (n_features, n_features)
        ``S_B``: eq. 4.27 for two classes, eq. 4.46 for K > 2 (rank <= K-1).
    shrinkage_ : float
        Shrinkage used.
    n_features_in_ : int

    Examples
    --------
    >>> from mark1.linear_model import FisherDiscriminant
    >>> X = [[0., 0.], [1., 0.], [0., 1.], [4., 0.], [5., 0.], [4., 1.], [0., 4.], [1., 4.], [0., 5.]]
    >>> y = ["a"] * 3 + ["b"] * 3 + ["c"] * 3
    >>> fd = FisherDiscriminant().fit(X, y)
    >>> fd.predict([[0.5, 0.5], [4.5, 0.5], [0.5, 4.5]]).tolist(), fd.score(X, y)
    (['a', 'b', 'c'], 1.0)
    >>> fd.transform(X).shape, fd.explained_variance_ratio_.round(3).tolist()    # K - 1 = 2 directions
    ((9, 2), [0.5, 0.5])

    Two classes: one direction and a threshold on it.

    >>> two = FisherDiscriminant().fit(X[:6], y[:6])
    >>> two.coef_.round(3).tolist(), round(two.threshold_, 3)
    ([[2.449, 1.225]], 6.124)
    >>> round(two.criterion(two.scalings_), 6), two.criterion([0.0, 1.0])       # J along w, and across
    (16.0, 0.0)
    """

    # the parameters, stored by __init__ (ParamsMixin._store_params), checked in fit
    n_components: int | None
    threshold: str
    shrinkage: float | str | None

    def __init__(self, *, n_components: int | None = None, threshold: str = "gaussian",
                 shrinkage: float | str | None = "auto") -> None:
        self._store_params(locals())

    def _check_params(self):
        return {"threshold": _check_choice(self.threshold, "threshold", ("gaussian", "midpoint")),
                "shrinkage": _check_shrinkage(self.shrinkage)}

    def _fit(self, X, yi, classes, *, threshold, shrinkage):
        # the discriminant directions, then the classifier
        n, d = X.shape
        K = len(classes)
        q_max = min(K - 1, d)
        q = q_max if self.n_components is None else _check_int(
            self.n_components, "n_components", low=1, high=q_max, bounds=f"in [1, min(K-1, d)] = [1, {q_max}]")
        counts, means = _class_means(X, yi, K)
        priors = counts / n
        xbar = priors @ means
        Sw = _scatter(X - means[yi])
        scal, ev, s = _fisher_directions(Sw / n, means - xbar, priors, q, shrinkage)
        if K == 2:
            if scal[:, 0] @ (means[1] - means[0]) < 0:
                scal = -scal
        else:
            big = np.abs(scal).argmax(axis=0)
            top = scal[big, np.arange(q)]
            scal = scal * np.where(top < 0, -1.0, 1.0)

        self.priors_ = priors
        self.means_ = means
        self.xbar_ = xbar
        self.scalings_ = scal
        total = ev.sum()
        self.explained_variance_ratio_ = ev[:q] / total if total > 0 else np.zeros(q)
        self.shrinkage_ = s
        self.within_scatter_ = Sw
        self.__dict__.pop("threshold_", None)                  # from an earlier two-class fit
        if K == 2:
            dm = means[1] - means[0]
            self.between_scatter_ = np.outer(dm, dm)
            w = scal[:, 0]
            proj = X @ w
            mu = means @ w
            var = np.array([proj[yi == c].var() for c in range(2)])
            if threshold == "midpoint":
                thr = 0.5 * (mu[0] + mu[1])
            else:
                thr = _gaussian_threshold(mu[0], var[0], priors[0], mu[1], var[1], priors[1])
            self.threshold_ = float(thr)
            self.coef_ = w[None, :].copy()
            self.intercept_ = np.array([-thr])
        else:
            D = counts[:, None] ** 0.5 * (means - xbar)
            self.between_scatter_ = D.T @ D
            nu = (means - xbar) @ scal                        # projected class means
            coef = nu @ scal.T
            intercept = -coef @ xbar - 0.5 * (nu ** 2).sum(axis=1)
            if threshold == "gaussian":
                intercept = intercept + np.log(priors)
            self.coef_ = coef
            self.intercept_ = intercept
        if not (np.isfinite(self.coef_).all() and np.isfinite(self.intercept_).all()):
            raise InputError("Fisher discriminant is not finite (inputs too large?)")

    def __sklearn_tags__(self):
        """As for every classifier here, plus: a transformer (``transform``) to float64."""
        from sklearn.utils import TransformerTags

        tags = super().__sklearn_tags__()
        tags.transformer_tags = TransformerTags(preserves_dtype=["float64"])
        return tags

    def fit_transform(self, X: npt.ArrayLike, y: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """``fit(X, y)`` then ``transform(X)``.

        Parameters
        ----------
        X, y
            As for :meth:`fit`.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        return self.fit(X, y).transform(X)

    def transform(self, X: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Project onto the discriminant directions.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            ``(X - xbar_) @ scalings_``.
        """
        return (self._check_X(X) - self.xbar_) @ self.scalings_

    def criterion(self, w: npt.ArrayLike) -> float:
        """Fisher's criterion ``J`` of a direction or a set of directions.

        ``J(W) = Tr[(W^T S_W W)^{-1} (W^T S_B W)]`` (eq. 4.50), which for a single
        direction is ``J(w) = w^T S_B w / w^T S_W w`` (eq. 4.26); ``S_B`` is eq. 4.27
        for two classes and eq. 4.46 for K > 2, and ``S_W`` is the within-class
        scatter shrunk as in ``fit`` (so ``scalings_`` maximises it).

        Parameters
        ----------
        w : array_like of shape (n_features,) or (n_features, q)

        Returns
        -------
        float
        """
        self._check_is_fitted()
        try:
            W = np.asarray(w, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InputError(f"w must be an array of real numbers: {exc}") from None
        if W.ndim == 1:
            W = W[:, None]
        d = self.n_features_in_
        if W.ndim != 2 or W.shape[0] != d or W.shape[1] < 1:
            raise InputError(f"w must have shape ({d},) or ({d}, q); got {np.shape(w)}")
        if not np.isfinite(W).all():
            raise InputError("w contains NaN or infinity")
        Sw = _shrunk(self.within_scatter_, self.shrinkage_, _target_scale(self.within_scatter_))
        A = W.T @ Sw @ W
        Bm = W.T @ self.between_scatter_ @ W
        if W.shape[1] == 1:
            num, den = float(Bm[0, 0]), float(A[0, 0])
            if den <= 0:
                return np.inf if num > 0 else 0.0
            return num / den
        try:
            return float(np.trace(np.linalg.solve(A, Bm)))
        except np.linalg.LinAlgError:
            return float(np.trace(np.linalg.lstsq(A, Bm, rcond=None)[0]))


# ------------------------------------------------------------------------- Gaussian


class GaussianClassifier(_ProbabilisticClassifier):
    """Generative classifier with Gaussian class-conditional densities (PRML §4.2.2).

    Priors ``p(C_k) = N_k / N``, class means and covariances by maximum likelihood.
    With a shared covariance ``Sigma`` the posterior is a softmax of the linear
    functions ``a_k = w_k^T x + w_k0`` with ``w_k = Sigma^{-1} mu_k`` and
    ``w_k0 = -mu_k^T Sigma^{-1} mu_k / 2 + ln p(C_k)`` (eq. 4.68-4.70); with one
    covariance per class it is quadratic (QDA).  ``decision_function``: two classes
    the log-odds ``ln p(C_1|x) / p(C_0|x)``; K classes the log joint densities
    ``a_k`` up to a term common to all classes.

    Parameters
    ----------
    covariance : {'shared', 'separate'}, default 'shared'
    shrinkage : 'auto' or float in [0, 1], default 'auto'
        Shrinkage of the covariance(s) (see :mod:`mark1.linear_model`; the same
        parametrisation as scikit-learn's ``LinearDiscriminantAnalysis``).  With
        ``'separate'`` each class covariance is shrunk toward its own
        ``trace/d`` (the pooled one's if the class has zero variance), and an
        explicit ``0`` on a singular class covariance is raised to ``1e-3`` with
        a warning, since its density is undefined.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    priors_ : ndarray of shape (K,)
    means_ : ndarray of shape (K, n_features)
    covariance_ : ndarray of shape (n_features, n_features)
        Shared covariance as used (after shrinkage); ``'shared'`` only.
    covariances_ : ndarray of shape (K, n_features, n_features)
        Class covariances as used; ``'separate'`` only.
    coef_ : ndarray of shape (1, n_features) or (K, n_features)
    intercept_ : ndarray of shape (1,) or (K,)
        ``'shared'`` only.  K classes: ``w_k``, ``w_k0``; two classes: the log-odds
        ``a_1 - a_0`` as one linear function (eq. 4.66-4.67 with C1 =
        ``classes_[1]``), as in scikit-learn.
    shrinkage_ : float or ndarray of shape (K,)
        Shrinkage used (one per class for ``'separate'``).
    n_features_in_ : int

    Examples
    --------
    >>> from mark1.linear_model import GaussianClassifier
    >>> X = [[1.0], [2.0], [3.0], [7.0], [8.0], [10.0]]               # one feature
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> gc = GaussianClassifier().fit(X, y)
    >>> gc.predict([[4.0], [6.0]]).tolist(), gc.score(X, y)
    ([0, 1], 1.0)
    >>> gc.means_.round(3).tolist(), gc.covariance_.round(3).tolist()
    ([[2.0], [8.333]], [[1.111]])
    >>> gc.coef_.round(3).tolist(), gc.predict_proba([[5.0]]).round(3).tolist()   # slope of the log-odds
    ([[5.7]], [[0.721, 0.279]])
    >>> GaussianClassifier(covariance="separate").fit(X, y).predict_proba([[5.0]]).round(3).tolist()
    [[0.06, 0.94]]
    """

    # the parameters, stored by __init__ (ParamsMixin._store_params), checked in fit
    covariance: str
    shrinkage: float | str | None

    def __init__(self, *, covariance: str = "shared", shrinkage: float | str | None = "auto") -> None:
        self._store_params(locals())

    def _check_params(self):
        return {"covariance": _check_choice(self.covariance, "covariance", ("shared", "separate")),
                "shrinkage": _check_shrinkage(self.shrinkage)}

    def _fit(self, X, yi, classes, *, covariance, shrinkage):
        # priors, means and covariance(s) by maximum likelihood
        counts, means = _class_means(X, yi, len(classes))
        priors = counts / X.shape[0]
        Xc = X - means[yi]
        for attr in ("covariance_", "covariances_", "coef_", "intercept_", "_xbar", "_coef_c",
                     "_intercept_c", "_whiteners", "_logdets"):
            self.__dict__.pop(attr, None)
        if covariance == "shared":
            self._fit_shared(Xc, means, priors, shrinkage)
        else:
            self._fit_separate(Xc, yi, counts, classes, shrinkage)
        self.priors_ = priors
        self.means_ = means

    def _fit_shared(self, Xc, means, priors, shrinkage):
        """One covariance: the linear functions of eq. 4.68-4.70."""
        n, K = Xc.shape[0], len(means)
        Sigma = _scatter(Xc) / n
        # scores are computed about the overall mean xbar (a_k up to a term
        # common to all classes), so an offset like X + 1e10 cancels before
        # the products; coef_ and intercept_ are the uncentred eq. 4.69-4.70
        xbar = priors @ means
        mc = means - xbar
        Z, used, s = _solve_covariance(Sigma, np.c_[mc.T, xbar], shrinkage, "the pooled covariance", stacklevel=4)
        coef_c, v = Z[:, :K].T, Z[:, K]                   # Sigma^{-1}(mu_k - xbar), Sigma^{-1} xbar
        intercept_c = -0.5 * np.einsum("kd,kd->k", mc, coef_c) + np.log(priors)
        coef = coef_c + v                                  # w_k = Sigma^{-1} mu_k
        intercept = intercept_c - coef_c @ xbar - 0.5 * float(xbar @ v)
        if not (np.isfinite(coef).all() and np.isfinite(intercept).all()):
            raise InputError("Gaussian classifier is not finite (inputs too large?)")
        self.covariance_ = used
        self.shrinkage_ = s
        self._xbar, self._coef_c, self._intercept_c = xbar, coef_c, intercept_c
        if K == 2:
            self.coef_ = (coef_c[1] - coef_c[0])[None, :]
            self.intercept_ = np.array([intercept_c[1] - intercept_c[0] - self.coef_[0] @ xbar])
        else:
            self.coef_, self.intercept_ = coef, intercept

    def _fit_separate(self, Xc, yi, counts, classes, shrinkage):
        """One covariance per class (quadratic): each whitened, with its log-determinant."""
        n, d = Xc.shape
        pooled_mu = float(np.einsum("ij,ij->", Xc, Xc)) / (n * d)   # trace/d, pooled
        covs, whiteners, logdets, shr = [], [], [], []
        for c in range(len(classes)):
            Xk = Xc[yi == c]
            Sk = _scatter(Xk) / counts[c]
            used, A, logdet, s = _eigh_covariance(Sk, shrinkage, f"the covariance of class {classes[c]!r}",
                                                  fallback_scale=pooled_mu, stacklevel=4)
            covs.append(used)
            whiteners.append(A)
            logdets.append(logdet)
            shr.append(s)
        self.covariances_ = np.array(covs)
        self._whiteners = np.array(whiteners)
        self._logdets = np.array(logdets)
        self.shrinkage_ = np.array(shr)
        if not (np.isfinite(self._whiteners).all() and np.isfinite(self._logdets).all()):
            raise InputError("Gaussian classifier is not finite (inputs too large?)")

    def _log_joint(self, X):
        """Log joint densities ``ln p(x | C_k) p(C_k)`` up to a common term, shape (n_samples, K)."""
        if hasattr(self, "_coef_c"):                         # shared covariance
            return (X - self._xbar) @ self._coef_c.T + self._intercept_c
        out = np.empty((X.shape[0], len(self.classes_)))
        for c in range(len(self.classes_)):
            z = (X - self.means_[c]) @ self._whiteners[c]
            out[:, c] = -0.5 * np.einsum("ij,ij->i", z, z) - 0.5 * self._logdets[c] + np.log(self.priors_[c])
        return out

    def _decision(self, X):
        # two classes: the log-odds ln p(C_1|x) / p(C_0|x); K: the log joint densities
        a = self._log_joint(X)
        return a[:, 1] - a[:, 0] if a.shape[1] == 2 else a
