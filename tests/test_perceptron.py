"""Tests of the error-correction core, mark1.machine.perceptron.

The core must reproduce, update for update, the naive one-card-at-a-time loop
written below (the reference lives here, not in the package).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mark1.machine import perceptron
from mark1.machine.perceptron import (ErrorCorrectionResult, averaged_weights, train_error_correction,
                                      train_with_bias)


# The core reads a deck as its rows of nonzero features or as it is, by the density of
# its first rows; both must give the same bits. Every test runs with each forced and
# with the choice the core makes itself.
DECKS = {"rows of nonzeros": 2.0, "as it is": -1.0, "chosen by the density": perceptron._SPARSE_DENSITY}


@pytest.fixture(autouse=True, params=list(DECKS))
def deck(request, monkeypatch):
    monkeypatch.setattr(perceptron, "_SPARSE_DENSITY", DECKS[request.param])
    return request.param


# --------------------------------------------------------------------------- reference


def naive_error_correction(X, T, *, epochs, eta=1.0, order=None, w0=None,
                           stop_when_converged=False, eta_schedule=None):
    """Textbook error correction, one card and one unit at a time, in plain Python."""
    X = np.asarray(X, dtype=float)
    T = np.asarray(T, dtype=float)
    if T.ndim == 1:
        T = T[:, None]
    n, d = X.shape
    k = T.shape[1]
    W = np.zeros((k, d)) if w0 is None else np.array(w0, dtype=float).reshape(k, d)
    updates = [0] * k
    sums, errors, cards, per_epoch, history = [], [], [], [], []
    converged = False
    for e in range(epochs):
        mistakes = 0
        for i in (range(n) if order is None else order[e]):
            s = [float(np.dot(W[u], X[i])) for u in range(k)]          # before any update
            err = [T[i, u] * s[u] <= 0 for u in range(k)]
            for u in range(k):
                if err[u]:
                    updates[u] += 1
                    step = eta / updates[u] if eta_schedule == "inverse" else eta
                    W[u] += (step * T[i, u]) * X[i]
            sums.append(s)
            errors.append(err)
            cards.append(i)
            history.append(W.copy())
            mistakes += any(err)
        per_epoch.append(mistakes)
        if mistakes == 0:
            converged = True
            if stop_when_converged:
                break
    return dict(weights=W, sums=np.array(sums).reshape(-1, k), errors=np.array(errors).reshape(-1, k),
                order=np.array(cards, dtype=int), mistakes_per_epoch=np.array(per_epoch),
                converged=converged, epochs_run=len(per_epoch), average=np.sum(history, axis=0) / len(history))


def assert_same(result: ErrorCorrectionResult, ref: dict):
    assert result.epochs_run == ref["epochs_run"]
    assert result.converged == ref["converged"]
    np.testing.assert_array_equal(result.mistakes_per_epoch, ref["mistakes_per_epoch"])
    np.testing.assert_array_equal(result.order, ref["order"])
    np.testing.assert_array_equal(result.errors, ref["errors"])
    np.testing.assert_array_equal(result.sums, ref["sums"])          # bit for bit
    np.testing.assert_array_equal(result.weights, ref["weights"])


def random_problem(rng, n, d, k, epochs, *, shuffle, low=-3, high=3):
    X = rng.integers(low, high + 1, size=(n, d)).astype(float)
    T = rng.choice([-1.0, 1.0], size=(n, k))
    order = np.stack([rng.permutation(n) for _ in range(epochs)]) if shuffle else None
    return X, T, order


# ------------------------------------------------------------------ hand computations


# Three cards, the last feature a constant bias input, one unit, eta = 1, w = 0:
#   x0 = (1,0,1) t=+1   x1 = (0,1,1) t=-1   x2 = (1,1,1) t=+1
# epoch 1: x0: s=0            -> error, w = (1,0,1)
#          x1: s=1, t*s=-1    -> error, w = (1,0,1)-(0,1,1) = (1,-1,0)
#          x2: s=1-1+0=0      -> error, w = (2,0,1)
# epoch 2: x0: s=3 ok;  x1: s=1, t*s=-1 -> error, w = (2,-1,0);  x2: s=1 ok
# epoch 3: x0: s=2 ok;  x1: s=-1, t*s=1 ok;  x2: s=1 ok  -> converged
HAND_X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
HAND_T = np.array([[1.0], [-1.0], [1.0]])


def test_hand_computed_run():
    r = train_error_correction(HAND_X, HAND_T, epochs=10, stop_when_converged=True)
    np.testing.assert_array_equal(r.weights, [[2.0, -1.0, 0.0]])
    np.testing.assert_array_equal(r.sums[:, 0], [0, 1, 0, 3, 1, 1, 2, -1, 1])
    np.testing.assert_array_equal(r.errors[:, 0], [1, 1, 1, 0, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(r.order, [0, 1, 2] * 3)
    np.testing.assert_array_equal(r.mistakes_per_epoch, [3, 1, 0])
    assert r.converged and r.epochs_run == 3
    # without early stop it runs all epochs and stays converged with the same weights
    r10 = train_error_correction(HAND_X, HAND_T, epochs=10)
    assert r10.epochs_run == 10 and r10.converged
    np.testing.assert_array_equal(r10.weights, r.weights)
    np.testing.assert_array_equal(r10.mistakes_per_epoch, [3, 1] + [0] * 8)


def test_hand_computed_units_are_independent():
    # A second unit with the opposite targets mirrors the first one exactly:
    # every sum is negated, so it errs on the same cards (0 counts as an error)
    # and its updates are the negated updates: w2 = -w1 = (-2, 1, 0).
    T = np.hstack([HAND_T, -HAND_T])
    r = train_error_correction(HAND_X, T, epochs=10, stop_when_converged=True)
    np.testing.assert_array_equal(r.weights, [[2.0, -1.0, 0.0], [-2.0, 1.0, 0.0]])
    np.testing.assert_array_equal(r.errors[:, 0], r.errors[:, 1])
    np.testing.assert_array_equal(r.sums[:, 1], -r.sums[:, 0])


def test_hand_computed_inverse_schedule():
    # eta_j = 1/j for the j-th update:
    # epoch 1: x0: s=0 -> j=1, w = (1,0,1);  x1: s=1, t=-1 -> j=2, w = (1,-1/2,1/2);
    #          x2: s=1-1/2+1/2=1 ok
    # epoch 2: x0: s=3/2 ok;  x1: s=-1/2+1/2=0 -> j=3, w = (1,-5/6,1/6);  x2: s=1/3 ok
    # epoch 3: x0: 7/6 ok;  x1: -2/3, t*s=2/3 ok;  x2: 1/3 ok -> converged
    r = train_error_correction(HAND_X, HAND_T, epochs=10, stop_when_converged=True,
                               eta_schedule="inverse")
    np.testing.assert_allclose(r.weights, [[1.0, -5 / 6, 1 / 6]], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(r.errors[:, 0], [1, 1, 0, 0, 1, 0, 0, 0, 0])
    np.testing.assert_allclose(r.sums[:, 0], [0, 1, 1, 1.5, 0, 1 / 3, 7 / 6, -2 / 3, 1 / 3], atol=1e-15)
    assert r.epochs_run == 3


def test_hand_computed_average():
    # Weights after each of the 9 presentations of the hand run:
    # (1,0,1) (1,-1,0) (2,0,1) (2,0,1) (2,-1,0) (2,-1,0) (2,-1,0) (2,-1,0) (2,-1,0)
    # sum = (1+1+2*7, -1-5, 1+1+1) = (16,-6,3), average = (16,-6,3)/9
    r = train_error_correction(HAND_X, HAND_T, epochs=3)
    np.testing.assert_allclose(averaged_weights(r, HAND_X, HAND_T), [[16 / 9, -6 / 9, 3 / 9]], atol=1e-15)


# ------------------------------------------------------------- equality with the naive loop


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 2, 3, 8])
def test_equals_naive_reference(seed, k):
    rng = np.random.default_rng([seed, k])
    for shuffle in (False, True):
        for stop in (False, True):
            n, d, epochs = int(rng.integers(1, 60)), int(rng.integers(1, 9)), int(rng.integers(1, 6))
            X, T, order = random_problem(rng, n, d, k, epochs, shuffle=shuffle)
            eta = float(rng.choice([1.0, 2.0, 0.25]))
            w0 = rng.integers(-2, 3, size=(k, d)).astype(float) if rng.random() < 0.5 else None
            kw = dict(epochs=epochs, eta=eta, order=order, w0=w0, stop_when_converged=stop)
            assert_same(train_error_correction(X, T, **kw), naive_error_correction(X, T, **kw))


@pytest.mark.parametrize("k, shuffle, stop", [(1, False, True), (3, True, True), (2, False, False),
                                              (1, True, False)])
def test_equals_naive_reference_large(k, shuffle, stop):
    """Enough cards and features for several windows, blocks across epoch
    boundaries and (with early stop) a growing record."""
    rng = np.random.default_rng([7, k, shuffle, stop])
    n, d, epochs = 1100, 1000, 6
    X = (rng.random((n, d)) < 0.1).astype(float)
    w_true = rng.normal(size=d)
    score = X @ w_true
    T = np.where(score > np.median(score), 1.0, -1.0)[:, None] * np.ones((1, k))
    T[rng.random((n, k)) < 0.03] *= -1                    # a little label noise per unit
    order = np.stack([rng.permutation(n) for _ in range(epochs)]) if shuffle else None
    kw = dict(epochs=epochs, order=order, stop_when_converged=stop)
    assert_same(train_error_correction(X, T, **kw), naive_error_correction(X, T, **kw))


@pytest.mark.parametrize("seed", range(4))
def test_inverse_schedule_exact_with_integer_steps(seed):
    # eta = lcm(1..16) = 720720 makes eta/j an integer for every j <= 16, so the
    # whole run is integer arithmetic and must be bit-exact; n * epochs <= 16
    # guarantees at most 16 updates per unit.
    rng = np.random.default_rng(seed)
    for k in (1, 4):
        X, T, order = random_problem(rng, 8, 5, k, 2, shuffle=True)
        kw = dict(epochs=2, eta=720720.0, order=order, eta_schedule="inverse")
        assert_same(train_error_correction(X, T, **kw), naive_error_correction(X, T, **kw))


@pytest.mark.parametrize("seed", range(4))
def test_inverse_schedule_float_data(seed):
    # Non-integer steps: the sums agree to rounding only (the reference's np.dot adds
    # in another order), so compare mistakes exactly and weights/sums to rounding.  Gaussian
    # data make a sum within rounding of zero practically impossible.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 5))
    T = rng.choice([-1.0, 1.0], size=(40, 3))
    kw = dict(epochs=4, eta=0.3, eta_schedule="inverse")
    r, ref = train_error_correction(X, T, **kw), naive_error_correction(X, T, **kw)
    np.testing.assert_array_equal(r.errors, ref["errors"])
    np.testing.assert_allclose(r.sums, ref["sums"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.weights, ref["weights"], rtol=1e-12, atol=1e-12)


def scalar_error_correction(X, T, *, epochs, order=None, bias=False):
    """The naive loop with every sum added in feature order in Python floats (then the
    bias weight): the order the module docstring promises, whatever the data."""
    n, d = X.shape
    k = T.shape[1]
    W = [[0.0] * (d + bias) for _ in range(k)]
    sums, errors = [], []
    for e in range(epochs):
        for i in (range(n) if order is None else order[e]):
            x = X[i].tolist() + [1.0] * bias
            s = []
            for u in range(k):
                total = 0.0
                for j in range(d):
                    total += x[j] * W[u][j]
                if bias:
                    total += W[u][d]
                s.append(total)
            err = [T[i, u] * s[u] <= 0 for u in range(k)]
            for u in range(k):
                if err[u]:
                    W[u] = [w + xj if T[i, u] > 0 else w - xj for w, xj in zip(W[u], x)]
            sums.append(s)
            errors.append(err)
    return np.array(W), np.array(sums), np.array(errors)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 3, 5])
def test_float_data_equal_the_loop_in_feature_order(seed, k):
    """On Gaussian data (no sum exact) every sum, mistake and weight is the scalar loop's
    bit for bit, with and without the implicit bias, in order and shuffled; sparse
    float data too (a zero product changes no sum)."""
    rng = np.random.default_rng([seed, k])
    n, d, epochs = 70, 40, 4            # 40 features: BLAS's dot products add in another order
    X = rng.normal(size=(n, d)) + 0.3
    if seed % 2:
        X[rng.random((n, d)) < 0.7] = 0.0
    T = np.where(X @ rng.normal(size=(d, k)) + rng.normal(size=(n, k)) > 0, 1.0, -1.0)
    for order in (None, np.stack([rng.permutation(n) for _ in range(epochs)])):
        for bias in (False, True):
            train = train_with_bias if bias else train_error_correction
            r = train(X, T, epochs=epochs, order=order)
            W, sums, errors = scalar_error_correction(X, T, epochs=epochs, order=order, bias=bias)
            assert errors.any() and not errors.all()
            np.testing.assert_array_equal(r.errors, errors)
            np.testing.assert_array_equal(r.sums, sums)
            np.testing.assert_array_equal(r.weights, W)


@pytest.mark.parametrize("bias", [False, True])
def test_one_unit_sums_every_lookahead_card(bias):
    """``_sums_of_one_unit`` writes out its chains by hand: there must be one for each of the
    ``_LOOKAHEAD`` cards the core computes together, each adding in feature order."""
    rng = np.random.default_rng(7)
    n, d = 9, 23
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.6] = 0.0
    w = rng.normal(size=d + 1)
    cards = rng.choice(n, perceptron._LOOKAHEAD, replace=False).astype(np.int64)
    out = np.full((perceptron._LOOKAHEAD, 1), np.nan)
    ptr, idx, val, sparse = perceptron._rows_read(X)
    perceptron._sums_of_one_unit(X, ptr, idx, val, sparse, cards, w, d, bias, out)
    for b, c in enumerate(cards):
        s = 0.0
        for i in range(d):
            if X[c, i] != 0.0:
                s += X[c, i] * w[i]
        assert out[b, 0] == (s + w[d] if bias else s)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_property_equals_naive_reference(data):
    n = data.draw(st.integers(1, 14), label="n")
    d = data.draw(st.integers(1, 5), label="d")
    k = data.draw(st.integers(1, 4), label="k")
    epochs = data.draw(st.integers(1, 4), label="epochs")
    X = data.draw(hnp.arrays(np.float64, (n, d), elements=st.integers(-4, 4).map(float)), label="X")
    T = data.draw(hnp.arrays(np.float64, (n, k), elements=st.sampled_from([-1.0, 1.0])), label="T")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    shuffle = data.draw(st.booleans(), label="shuffle")
    inverse = data.draw(st.booleans(), label="inverse") and n * epochs <= 16
    rng = np.random.default_rng(seed)
    order = np.stack([rng.permutation(n) for _ in range(epochs)]) if shuffle else None
    kw = dict(epochs=epochs, order=order,
              eta=720720.0 if inverse else data.draw(st.sampled_from([1.0, 0.5, 3.0]), label="eta"),
              eta_schedule="inverse" if inverse else None,
              stop_when_converged=data.draw(st.booleans(), label="stop"))
    r = train_error_correction(X, T, **kw)
    ref = naive_error_correction(X, T, **kw)
    assert_same(r, ref)
    if not inverse:
        np.testing.assert_array_equal(averaged_weights(r, X, T, eta=kw["eta"]), ref["average"])


def test_averaged_weights_equal_running_average():
    rng = np.random.default_rng(3)
    X, T, order = random_problem(rng, 30, 4, 3, 5, shuffle=True)
    w0 = rng.integers(-2, 3, size=(3, 4)).astype(float)
    kw = dict(epochs=5, order=order, w0=w0, eta=2.0)
    r = train_error_correction(X, T, **kw)
    np.testing.assert_array_equal(averaged_weights(r, X, T, eta=2.0, w0=w0),
                                  naive_error_correction(X, T, **kw)["average"])
    kw = dict(epochs=5, order=order, eta=0.7, eta_schedule="inverse")
    r = train_error_correction(X, T, **kw)
    np.testing.assert_allclose(averaged_weights(r, X, T, eta=0.7, eta_schedule="inverse"),
                               naive_error_correction(X, T, **kw)["average"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_implicit_bias_equals_augmented_cards(seed):
    """train_with_bias (used by linear_model.Perceptron) is the run on [X, 1]."""
    rng = np.random.default_rng(seed)
    for k in (1, 3):
        for shuffle, stop in ((False, False), (True, True)):
            X, T, order = random_problem(rng, int(rng.integers(1, 50)), 4, k, 4, shuffle=shuffle)
            Xa = np.hstack([X, np.ones((len(X), 1))])
            eta = float(rng.choice([1.0, 0.5, 3.0]))
            kw = dict(epochs=4, eta=eta, order=order, stop_when_converged=stop)
            r = train_with_bias(X, T, **kw)
            ref = naive_error_correction(Xa, T, **kw)
            assert_same(r, ref)
            np.testing.assert_array_equal(
                averaged_weights(r, X, T, eta=eta, bias=True), ref["average"])
            lean = train_with_bias(X, T, record_sums=False, **kw)
            assert lean.sums.shape == (0, k)
            np.testing.assert_array_equal(lean.weights, r.weights)
            np.testing.assert_array_equal(lean.errors, r.errors)


def test_implicit_bias_without_record_large():
    rng = np.random.default_rng(21)
    X = (rng.random((1500, 900)) < 0.1).astype(float)
    T = np.where(X @ rng.normal(size=900) > 0, 1.0, -1.0)[:, None] * [1.0, -1.0, 1.0]
    T[rng.random(T.shape) < 0.05] *= -1
    order = np.stack([rng.permutation(1500) for _ in range(5)])
    for o in (None, order):
        full = train_with_bias(X, T, epochs=5, order=o, stop_when_converged=True)
        lean = train_with_bias(X, T, epochs=5, order=o, stop_when_converged=True, record_sums=False)
        np.testing.assert_array_equal(lean.weights, full.weights)
        np.testing.assert_array_equal(lean.errors, full.errors)
        Xa = np.hstack([X, np.ones((1500, 1))])
        ref = train_error_correction(Xa, T, epochs=5, order=o, stop_when_converged=True)
        np.testing.assert_array_equal(full.weights, ref.weights)
        np.testing.assert_array_equal(full.sums, ref.sums)


# ------------------------------------------------------------------------- convergence


def separable_problem(rng, n, d, margin):
    """Integer points whose labels come from an integer vector w*, all at least
    ``margin`` (in units of w*.x) from its hyperplane through the origin."""
    w_star = rng.integers(-3, 4, size=d).astype(float)
    while not w_star.any():
        w_star = rng.integers(-3, 4, size=d).astype(float)
    X = np.empty((0, d))
    while len(X) < n:
        cand = rng.integers(-4, 5, size=(4 * n, d)).astype(float)
        X = np.vstack([X, cand[np.abs(cand @ w_star) >= margin]])
    X = X[:n]
    t = np.sign(X @ w_star)
    return X, t, w_star


@pytest.mark.parametrize("seed", range(8))
def test_novikoff_bound(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 6))
    X, t, w_star = separable_problem(rng, 80, d, margin=2)
    R = np.linalg.norm(X, axis=1).max()
    gamma = (t * (X @ w_star)).min() / np.linalg.norm(w_star)      # geometric margin
    bound = (R / gamma) ** 2
    epochs = math.floor(bound) + 2          # every epoch before convergence has a mistake
    order = np.stack([rng.permutation(len(X)) for _ in range(epochs)])
    for eta in (1.0, 0.5):
        r = train_error_correction(X, t, epochs=epochs, eta=eta, order=order, stop_when_converged=True)
        assert r.converged
        assert r.errors.sum() <= bound
        assert np.all(t * (X @ r.weights[0]) > 0)


def test_xor_never_converges():
    X = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 1]], dtype=float)
    t = np.array([-1.0, 1.0, 1.0, -1.0])
    r = train_error_correction(X, t, epochs=200, stop_when_converged=True)
    assert not r.converged
    assert r.epochs_run == 200
    assert len(r.order) == 800
    assert np.all(r.mistakes_per_epoch > 0)


def test_one_dimensional_targets_and_custom_order_length():
    X, T = HAND_X, HAND_T
    r1 = train_error_correction(X, T[:, 0], epochs=3)
    assert r1.weights.shape == (1, 3) and r1.sums.shape == (9, 1)
    # an epoch may present a different number of cards than the deck holds
    order = np.array([[0, 1, 2, 2, 1], [1, 0, 0, 2, 2]])
    kw = dict(epochs=2, order=order)
    assert_same(train_error_correction(X, T, **kw), naive_error_correction(X, T, **kw))


def test_inputs_are_not_modified():
    X, T = HAND_X.copy(), HAND_T.copy()
    w0 = np.ones((1, 3))
    train_error_correction(X, T, epochs=3, w0=w0)
    np.testing.assert_array_equal(X, HAND_X)
    np.testing.assert_array_equal(w0, np.ones((1, 3)))


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("kwargs, match", [
    (dict(X=np.ones(3)), "X"),
    (dict(X=np.ones((3, 0))), "X"),
    (dict(X=[[1.0, np.nan, 1.0]] * 3), "X"),
    (dict(X=[[1.0, np.inf, 1.0]] * 3), "X"),
    (dict(X=[["a", "b", "c"]] * 3), "X"),
    (dict(T=np.ones((2, 1))), "T"),
    (dict(T=np.zeros((3, 1))), "T"),
    (dict(T=np.full((3, 1), np.nan)), "T"),
    (dict(T=np.ones((3, 1, 1))), "T"),
    (dict(epochs=0), "epochs"),
    (dict(epochs=1.5), "epochs"),
    (dict(epochs=True), "epochs"),
    (dict(eta=0.0), "eta"),
    (dict(eta=-1.0), "eta"),
    (dict(eta=np.nan), "eta"),
    (dict(order=np.zeros((2, 3), dtype=int)), "order"),
    (dict(order=np.zeros((3, 3))), "order"),
    (dict(order=np.full((3, 3), 3)), "order"),
    (dict(order=np.full((3, 3), -1)), "order"),
    (dict(w0=np.zeros((2, 3))), "w0"),
    (dict(w0=np.full((1, 3), np.nan)), "w0"),
    (dict(eta_schedule="harmonic"), "eta_schedule"),
    (dict(stop_when_converged="yes"), "stop_when_converged"),
])
def test_validation(kwargs, match):
    args = dict(X=HAND_X, T=HAND_T, epochs=3)
    args.update(kwargs)
    X, T = args.pop("X"), args.pop("T")
    with pytest.raises(ValueError, match=match):
        train_error_correction(X, T, **args)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shuffle", [False, True])
def test_epochs_after_an_error_free_one_repeat_it_exactly(seed, shuffle):
    """Separable data converges early; the later epochs (filled without recomputing)
    equal the naive reference bit for bit, sums included."""
    rng = np.random.default_rng(seed)
    X, t, _ = separable_problem(rng, 30, 4, margin=2)
    T = np.column_stack([t, -t])                         # two units, both separable
    epochs = 12
    order = np.stack([rng.permutation(len(X)) for _ in range(epochs)]) if shuffle else None
    result = train_error_correction(X, T, epochs=epochs, order=order)
    ref = naive_error_correction(X, T, epochs=epochs, order=order)
    assert ref["mistakes_per_epoch"][-1] == 0            # the shortcut was taken
    assert_same(result, ref)


def test_an_error_free_epoch_is_not_repeated_over_cards_it_did_not_show():
    """Without early stop an error-free epoch ends the compiled loop, and the rest is
    filled in only if it shows that epoch's cards: here epoch 2 shows card 0 alone and
    epoch 3 card 1, which errs (hand computation: after card 0, w = (1, 0, 1))."""
    order = np.array([[0, 0, 0], [0, 0, 0], [1, 1, 1], [0, 1, 2]])
    kw = dict(epochs=4, order=order)
    r = train_error_correction(HAND_X, HAND_T, **kw)
    assert_same(r, naive_error_correction(HAND_X, HAND_T, **kw))
    np.testing.assert_array_equal(r.mistakes_per_epoch, [1, 0, 1, 1])
    lean = train_with_bias(HAND_X[:, :2], HAND_T, record_sums=False, **kw)
    np.testing.assert_array_equal(lean.errors, r.errors)
    np.testing.assert_array_equal(lean.weights, r.weights)


@pytest.mark.parametrize("eta", [0.3, 0.1, 7.0])
def test_the_increment_only_scales_the_weights(eta):
    """From zero weights with a constant increment, eta scales every weight and sum and
    changes no decision (PRML §4.1.7), in every strategy: binary cards with random
    targets give many sums that are exactly 0, which rounding would otherwise decide."""
    rng = np.random.default_rng(5)
    X = (rng.random((600, 65)) < 0.25).astype(float)
    T = np.where(rng.random((600, 8)) < 0.5, 1.0, -1.0)
    one = train_error_correction(X, T, epochs=4)
    scaled = train_error_correction(X, T, epochs=4, eta=eta)
    assert np.array_equal(scaled.errors, one.errors)
    assert np.array_equal(scaled.weights, eta * one.weights)
    assert np.array_equal(scaled.sums, eta * one.sums)
    biased = train_with_bias(X, T, epochs=4, eta=eta)
    assert np.array_equal(biased.weights, eta * train_with_bias(X, T, epochs=4).weights)
