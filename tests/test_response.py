"""R-unit codes: which code for how many classes, code words, encode/decode."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mark1.machine.response import OutputCode
from mark1.specs import ResponseSpec


def _code(k, **kw):
    return OutputCode(np.arange(k), ResponseSpec(**kw))


def _min_hamming(words):
    return min(int((a != b).sum()) for a, b in itertools.combinations(words, 2))


def test_two_classes_single_unit():
    code = _code(2)
    assert code.kind == "single" and code.n_units == 1
    assert code.targets.tolist() == [[-1], [1]]
    # lamp on (sum > 0) means class 1; a zero sum is lamp off
    assert code.decode(np.array([[0.3], [-0.2], [0.0]])).tolist() == [1, 0, 0]


@pytest.mark.parametrize("k", range(3, 9))
def test_three_to_eight_classes_one_per_class(k):
    code = _code(k)
    assert code.kind == "one-per-class" and code.n_units == k
    assert np.array_equal(code.targets, 2 * np.eye(k, dtype=int) - 1)
    assert code.targets.dtype == np.int8
    # the largest sum wins, even when every sum is negative
    sums = -np.ones((k, k))
    sums[np.arange(k), np.arange(k)] = -0.5
    assert code.decode(sums).tolist() == list(range(k))
    assert code.decode(code.encode(np.arange(k)).astype(float)).tolist() == list(range(k))


def test_auto_beyond_n_responses_is_binary():
    code = _code(9)
    assert code.kind == "binary" and code.n_units == 8


@pytest.mark.parametrize("k", [3, 9, 16, 26, 40])
def test_binary_code_words(k):
    code = _code(k, code="binary")
    assert code.kind == "binary" and code.n_units == 8
    words = code.targets
    assert words.shape == (k, 8)
    assert set(np.unique(words).tolist()) <= {-1, 1}
    assert len({tuple(w) for w in words.tolist()}) == k          # distinct
    assert _min_hamming(words) >= 2
    # decode(encode) is the identity, with ±1 sums and with scaled sums
    idx = np.arange(k)
    assert np.array_equal(code.decode(code.encode(idx).astype(float)), idx)
    assert np.array_equal(code.decode(0.01 * code.encode(idx)), idx)


def test_binary_26_letters():
    code = _code(26, code="binary")
    assert len({tuple(w) for w in code.targets.tolist()}) == 26
    assert _min_hamming(code.targets) >= 2
    assert np.array_equal(code.decode(code.encode(np.arange(26)).astype(float)), np.arange(26))


def test_binary_code_is_deterministic():
    assert np.array_equal(_code(26, code="binary").targets, _code(26, code="binary").targets)


@settings(max_examples=40)
@given(k=st.integers(3, 26), seed=st.integers(0, 2**32 - 1))
def test_binary_decodes_one_flipped_lamp_to_nearest(k, seed):
    """A sum pattern one lamp away from a code word decodes to that word when it is
    strictly nearer to it than to any other."""
    code = _code(k, code="binary")
    rng = np.random.default_rng(seed)
    c = int(rng.integers(k))
    bit = int(rng.integers(8))
    lamps = code.targets[c].astype(float)
    lamps[bit] *= -1
    dist = (code.targets != np.sign(lamps)).sum(axis=1)
    if (dist == dist[c]).sum() == 1 and dist[c] == dist.min():
        assert code.decode(lamps[None, :])[0] == c
    # and the unflipped word always decodes to itself
    assert code.decode(code.targets[c][None, :].astype(float))[0] == c


def test_too_many_classes_for_one_per_class():
    with pytest.raises(ValueError, match="labels"):
        _code(9, code="one-per-class")
    with pytest.raises(ValueError, match="labels"):
        _code(4, code="one-per-class", n_responses=3)


def test_too_many_classes_for_binary_and_single():
    with pytest.raises(ValueError, match="labels"):
        _code(9, code="binary", n_responses=3)
    with pytest.raises(ValueError, match="labels"):
        _code(3, code="single")


def test_one_class_is_rejected():
    with pytest.raises(ValueError, match="labels"):
        _code(1)


def test_forced_codes_with_two_classes():
    code = _code(2, code="one-per-class")
    assert code.n_units == 2
    code = _code(2, code="binary")
    assert code.n_units == 8 and _min_hamming(code.targets) == 8


def test_index_of_labels_and_unknown_label():
    code = OutputCode(np.array(["A", "B", "C"]), ResponseSpec())
    assert code.index(np.array(["C", "A", "B", "C"])).tolist() == [2, 0, 1, 2]
    with pytest.raises(ValueError, match="labels: .*D.* is not one of the trained classes"):
        code.index(np.array(["A", "D"]))
    code = OutputCode(np.array([2, 5, 9]), ResponseSpec())
    with pytest.raises(ValueError, match="labels"):
        code.index(np.array([10]))
    with pytest.raises(ValueError, match="labels"):
        code.index(np.array([0]))


def test_unknown_label_message_shows_the_plain_label():
    """Regression: numpy 2 scalars once showed as np.str_('D') in the message."""
    code = OutputCode(np.array(["A", "B", "C"]), ResponseSpec())
    with pytest.raises(ValueError) as info:
        code.index(np.array(["A", "D"]))
    assert "np.str_" not in str(info.value)
    assert "labels: 'D'" in str(info.value)


@given(st.integers(2, 256))
def test_bits_code_is_the_class_number_in_binary(k):
    """The 1958 binary response: class i is the binary number i, one R-unit per bit, ceil(log2 k) units."""
    code = OutputCode(np.arange(k), ResponseSpec(code="bits"))
    assert code.kind == "bits" and code.n_units == max(1, (k - 1).bit_length())
    bits = (code.targets == 1).astype(int)
    assert [int("".join(map(str, row)), 2) for row in bits] == list(range(k))
    assert (code.decode(code.targets.astype(float)) == np.arange(k)).all()    # every word reads back


def test_bits_code_for_26_letters_uses_5_r_units():
    code = OutputCode(np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")), ResponseSpec(code="bits"))
    assert code.n_units == 5 and code.targets[25].tolist() == [1, 1, -1, -1, 1]          # Z: 25 = 11001
    assert "one lamp per bit" in code.describe()
    with pytest.raises(ValueError, match="binary code on 8 R-units"):
        OutputCode(np.arange(257), ResponseSpec(code="bits"))
