"""Rosenblatt's perceptron (PRML §4.1.7) as a textbook classifier, trained by the
machine's own error-correction core."""

from __future__ import annotations

import numpy as np

from mark1.exceptions import InputError
from mark1.linear_model._base import _Classifier
from mark1.linear_model._validation import _check_bool, _check_choice, _check_int, _check_real
from mark1.machine.perceptron import averaged_weights, train_error_correction, train_with_bias


class Perceptron(_Classifier):
    """Rosenblatt's perceptron with fixed-increment error correction (PRML §4.1.7).

    Trained by the loop of :func:`mark1.machine.perceptron.train_error_correction`,
    the same core as the machine's ideal digital path (with the bias input 1 kept
    implicit, :func:`~mark1.machine.perceptron.train_with_bias`, rather than appended
    to a copy of ``X``).  Two classes: one unit with target +1 for ``classes_[1]``
    and -1 otherwise.  K classes (``multiclass='ovr'``): one unit
    per class (one-vs-rest, +-1 targets); the prediction is the largest decision.
    ``decision_function``: ``w_k . x + b_k``.

    Parameters
    ----------
    eta : float, default 1.0
        Increment (> 0).
    epochs : int, default 100
        Maximum number of passes over the training set; training never runs longer.
    shuffle : bool, default False
        Present the cards of each epoch in a random order
        (``np.random.default_rng(seed).permutation(n)`` per epoch); otherwise in
        the order given (like a deck of cards).
    seed : int or None, default None
        Seed of the shuffling Generator.
    fit_intercept : bool, default True
        Append a constant bias feature 1 (its weight is ``intercept_``).
    multiclass : {'ovr'}, default 'ovr'
    eta_schedule : {None, 'inverse'}, default None
        ``'inverse'``: ``eta / j`` for the ``j``-th update of each unit.
    average : bool, default False
        Use the average of the weight vector over all presentations (exact; see
        :func:`mark1.machine.perceptron.averaged_weights`) instead of the final one.
    stop_when_converged : bool, default True
        Stop after the first epoch without a mistake.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    coef_ : ndarray of shape (1, n_features) or (K, n_features)
    intercept_ : ndarray of shape (1,) or (K,)
    n_mistakes_ : int
        Presentations on which at least one unit erred (= updates for two classes).
    mistakes_per_epoch_ : ndarray of shape (n_epochs,)
    converged_ : bool
        Some epoch went by without a mistake (the training set is separated).
    n_epochs_ : int
        Epochs run.
    n_features_in_ : int

    Notes
    -----
    With ``shuffle=False``, ``eta=1`` and no averaging this is exactly
    scikit-learn's ``Perceptron(shuffle=False, tol=None, eta0=1, max_iter=epochs)``
    (same zero-margin rule, ``t * (w.x + b) <= 0`` is a mistake, same bias update,
    each sum added in feature order): the weights are identical, on float data too
    (``benchmarks/bench_baselines.py`` checks it on binary and Gaussian features).
    The core is compiled code without BLAS, so no thread limit is needed.

    Examples
    --------
    >>> from mark1.linear_model import Perceptron
    >>> X = [[0, 0], [0, 1], [1, 0], [1, 1]]
    >>> y = [0, 0, 0, 1]                                 # the AND of the two inputs
    >>> p = Perceptron().fit(X, y)
    >>> p.predict(X).tolist(), p.score(X, y)
    ([0, 0, 0, 1], 1.0)
    >>> p.coef_.tolist(), p.intercept_.tolist()
    ([[3.0, 2.0]], [-4.0])
    >>> p.n_epochs_, p.mistakes_per_epoch_.tolist()      # the last epoch went by without a mistake
    (9, [2, 3, 3, 2, 2, 3, 2, 1, 0])
    """

    # the parameters, stored by __init__ (ParamsMixin._store_params), checked in fit
    eta: float
    epochs: int
    shuffle: bool
    seed: int | None
    fit_intercept: bool
    multiclass: str
    eta_schedule: str | None
    average: bool
    stop_when_converged: bool

    def __init__(self, *, eta: float = 1.0, epochs: int = 100, shuffle: bool = False, seed: int | None = None,
                 fit_intercept: bool = True, multiclass: str = "ovr", eta_schedule: str | None = None,
                 average: bool = False, stop_when_converged: bool = True) -> None:
        self._store_params(locals())

    def _check_params(self):
        eta = _check_real(self.eta, "eta", low=0.0, low_open=True)
        epochs = _check_int(self.epochs, "epochs", low=1)
        _check_choice(self.multiclass, "multiclass", ("ovr",))
        if self.eta_schedule not in (None, "inverse"):
            raise InputError(f"eta_schedule must be None or 'inverse'; got {self.eta_schedule!r}")
        for name in ("shuffle", "fit_intercept", "average", "stop_when_converged"):
            _check_bool(getattr(self, name), name)
        return {"eta": eta, "epochs": epochs}

    def _fit(self, X, yi, classes, *, eta, epochs):
        # by error correction, one unit per class (one for two classes)
        n, d = X.shape
        K = len(classes)
        if K == 2:
            T = np.where(yi == 1, 1.0, -1.0)[:, None]
        else:
            T = np.full((n, K), -1.0)
            T[np.arange(n), yi] = 1.0
        stop = bool(self.stop_when_converged)

        def train(order, n_epochs):
            # the bias input 1 stays implicit (no augmented copy of X) and the sums
            # are not kept (8 k bytes per presentation); the loop is the same
            if self.fit_intercept:
                return train_with_bias(X, T, epochs=n_epochs, eta=eta, order=order,
                                       stop_when_converged=stop, eta_schedule=self.eta_schedule,
                                       record_sums=False, check_finite=False)
            return train_error_correction(X, T, epochs=n_epochs, eta=eta, order=order,
                                          stop_when_converged=stop, eta_schedule=self.eta_schedule)

        if not self.shuffle:
            res = train(None, epochs)
        else:
            # One permutation per epoch from one stream.  Orders are drawn only for
            # the epochs a run may need: first 4 epochs, and while training has not
            # converged 4x as many again, replaying the stream from its start (the
            # same orders, so the same run as drawing all epochs up front, at most
            # 4/3 of the training work).  Before: every epoch drawn up front, 1.5 GB
            # and 5 s for epochs=20000 on a problem that converges in 2.
            rng = np.random.default_rng(self.seed)
            start = rng.bit_generator.state
            n_epochs = epochs if not stop else min(epochs, 4)
            while True:
                rng.bit_generator.state = start
                order = np.empty((n_epochs, n), dtype=np.intp)
                for e in range(n_epochs):
                    order[e] = rng.permutation(n)
                res = train(order, n_epochs)
                if res.converged or n_epochs == epochs:
                    break
                n_epochs = min(epochs, 4 * n_epochs)
        W = res.weights
        if self.average:
            W = averaged_weights(res, X, T, eta=eta, eta_schedule=self.eta_schedule,
                                 bias=bool(self.fit_intercept))
        self.coef_ = np.ascontiguousarray(W[:, :d])
        self.intercept_ = W[:, d].copy() if self.fit_intercept else np.zeros(W.shape[0])
        self.mistakes_per_epoch_ = res.mistakes_per_epoch
        self.n_mistakes_ = int(res.mistakes_per_epoch.sum())
        self.converged_ = res.converged
        self.n_epochs_ = res.epochs_run
