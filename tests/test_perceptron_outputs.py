"""Tests of mark1.machine.perceptron.train_on_outputs: units trained on the binary outputs
they each see, read off the boolean matrix itself, must give the bits of the naive loop
(and of train_error_correction) on each unit's float inputs ``np.c_[phi, 1][:, mask[u]]``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mark1.exceptions import InputError
from mark1.machine.perceptron import train_error_correction, train_on_outputs


def naive_unit(x, t, *, epochs, order, tie):
    """One unit, one card at a time, in plain Python: weights, sums, errors."""
    w = np.zeros(x.shape[1])
    sums, errors = [], []
    for e in range(epochs):
        for i in (range(len(x)) if order is None else order[e]):
            s = 0.0
            for j in range(x.shape[1]):                      # in input order, as the loop is written
                s += x[i, j] * w[j]
            err = t[i] * s <= tie
            if err:
                w += t[i] * x[i]
            sums.append(s)
            errors.append(err)
    return w, np.array(sums), np.array(errors)


def check(phi, mask, T, *, epochs, order=None, tie=0.0):
    r, active = train_on_outputs(phi, mask, T, epochs=epochs, order=order, tie=tie)
    cards = np.c_[phi, np.ones(len(phi))]
    k = mask.shape[0]
    assert r.weights.shape == mask.shape and r.sums.shape == r.errors.shape == (epochs * len(phi if order is None
                                                                                            else order[0]), k)
    for u in range(k):
        x = cards[:, mask[u]]
        w, sums, errors = naive_unit(x, T[:, u], epochs=epochs, order=order, tie=tie)
        assert np.array_equal(r.weights[u, mask[u]], w)
        assert not r.weights[u, ~mask[u]].any()
        assert np.array_equal(r.sums[:, u], sums) and np.array_equal(r.errors[:, u], errors)
        assert np.array_equal(active[:, u], np.count_nonzero(x, axis=1))
        ref = train_error_correction(x, T[:, u], epochs=epochs, order=order, tie=tie)
        assert np.array_equal(ref.weights[0], w) and np.array_equal(ref.sums[:, 0], sums)
    mistakes = r.errors.any(axis=1).reshape(epochs, -1).sum(axis=1)
    assert np.array_equal(r.mistakes_per_epoch, mistakes)
    assert r.converged == bool((mistakes == 0).any()) and r.epochs_run == epochs
    return r


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_equals_the_naive_loop_on_each_units_inputs(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, n_a, k = data.draw(st.integers(1, 25)), data.draw(st.integers(1, 12)), data.draw(st.integers(1, 5))
    phi = rng.random((n, n_a)) < data.draw(st.sampled_from([0.1, 0.3, 0.7]))
    mask = rng.random((k, n_a + 1)) < data.draw(st.sampled_from([0.3, 0.6, 1.0]))
    mask[:, -1] = data.draw(st.booleans()) if data.draw(st.booleans()) else mask[:, -1]
    mask[~mask.any(axis=1), rng.integers(n_a + 1)] = True                # every unit has an input
    if data.draw(st.booleans()):
        mask[rng.integers(k)] = mask[0]                                   # units with the same inputs: a group
    T = np.where(rng.random((n, k)) < 0.5, -1.0, 1.0)
    epochs = data.draw(st.integers(1, 4))
    order = None if data.draw(st.booleans()) else np.array([rng.permutation(n) for _ in range(epochs)])
    check(phi, mask, T, epochs=epochs, order=order, tie=data.draw(st.sampled_from([0.0, 0.5, 2.0])))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("topology", ["split", "all", "all without bias", "strided"])
def test_a_rack_of_units_on_sparse_outputs(seed, topology):
    """The machine's racks: units on their own runs of outputs (one at a time), every unit on
    every output (together), and units on interleaved outputs."""
    rng = np.random.default_rng(seed)
    n, n_a, k = 120, 64, 4
    phi = rng.random((n, n_a)) < 0.15
    mask = np.zeros((k, n_a + 1), bool)
    if topology == "split":
        for u in range(k):
            mask[u, u * 16:(u + 1) * 16] = True
        mask[:, -1] = True
    elif topology == "strided":
        for u in range(k):
            mask[u, u::k] = True
        mask[::2, -1] = True
    else:
        mask[:] = True
        mask[:, -1] = topology == "all"
    classes = rng.integers(k, size=n)
    T = np.where(classes[:, None] == np.arange(k), 1.0, -1.0)
    check(phi, mask, T, epochs=5, order=np.array([rng.permutation(n) for _ in range(5)]))


def test_epochs_after_one_without_a_mistake_repeat_it():
    """A separable deck: the rest of the run repeats the first clean epoch."""
    phi = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]], bool)
    mask = np.array([[True, True, True, True], [True, False, True, True]])
    T = np.array([[1., 1.], [-1., -1.], [1., -1.], [1., 1.]])
    r = check(phi, mask, T, epochs=12)
    assert r.converged and r.mistakes_per_epoch[-1] == 0
    check(phi, mask, T, epochs=12, order=np.array([np.roll(np.arange(4), e) for e in range(12)]))


@pytest.mark.parametrize("args, match", [
    ((np.ones((3, 2)), np.ones((1, 3), bool), np.ones(3)), "phi must be a 2-D boolean array"),
    ((np.ones((3, 2), bool), np.ones((1, 2), bool), np.ones(3)), r"mask must be .* = \(1, 3\)"),
    ((np.ones((3, 2), bool), np.ones((1, 3)), np.ones(3)), "mask must be a boolean array"),
    ((np.ones((3, 2), bool), np.array([[True, False, True], [False] * 3]), np.ones((3, 2))), "unit 1 has no inputs"),
    ((np.ones((3, 2), bool), np.ones((1, 3), bool), np.zeros(3)), "T must contain only"),
    ((np.ones((3, 2), bool), np.ones((1, 3), bool), np.ones(4)), "T has 4 rows but phi has 3 cards"),
])
def test_refusals_name_the_argument(args, match):
    with pytest.raises(InputError, match=match):
        train_on_outputs(*args, epochs=2)
    with pytest.raises(InputError, match="order must"):
        train_on_outputs(np.ones((3, 2), bool), np.ones((1, 3), bool), np.ones(3), epochs=2, order=[[0, 1, 5]] * 2)
