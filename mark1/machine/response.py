"""Response units (R-units) and how classes are coded on them.

Each R-unit is a binary threshold unit on the sum of its potentiometers times the
A-unit outputs (plus a bias pot fed by an always-on unit); its lamp lights when the
sum is positive. Classes are coded on the R-units in one of three ways:

``single``
    Two classes on one R-unit: lamp on means ``classes[1]``.
``one-per-class``
    Up to ``n_responses`` classes, one R-unit each; the largest sum wins (the linear
    machine of PRML §4.1.2).
``binary``
    More classes: a code word of ±1 over the R-units per class, chosen to keep code
    words far apart; decoded to the nearest code word.
``bits``
    The binary response of Rosenblatt (1958, Psych. Rev. 65:386-408, p. 402 and
    conclusion 6, p. 405): one R-unit per bit, class ``i`` (in sorted order) the binary
    number ``i`` on ceil(log2 k) R-units; decoded to the nearest code word in use.

Each R-unit has its own target (+1 or -1) for every class; the trainer corrects each
unit that errs on its own target.
"""

from __future__ import annotations

import itertools

import numpy as np

from mark1.specs import ResponseSpec
from mark1.exceptions import InputError

__all__ = ["OutputCode"]


def _far_apart_codes(n_classes: int, n_bits: int) -> np.ndarray:
    """Greedy max-min-distance code words (deterministic), shape (n_classes, n_bits) in ±1."""
    words = np.array(list(itertools.product((0, 1), repeat=n_bits)), dtype=np.int8)
    chosen = [0]
    dist = (words != words[0]).sum(axis=1)
    for _ in range(n_classes - 1):
        nxt = int(np.argmax(dist))          # lowest index among the farthest
        chosen.append(nxt)
        dist = np.minimum(dist, (words != words[nxt]).sum(axis=1))
    return np.where(words[chosen] == 1, 1, -1).astype(np.int8)


def _bit_codes(n_classes: int) -> np.ndarray:
    """Class i as the binary number i, one R-unit per bit (most significant first): (n_classes, bits) in ±1.

    Examples
    --------
    >>> _bit_codes(3).tolist()
    [[-1, -1], [-1, 1], [1, -1]]
    """
    n_bits = max(1, (n_classes - 1).bit_length())          # ceil(log2 n_classes)
    bits = (np.arange(n_classes)[:, None] >> np.arange(n_bits - 1, -1, -1)) & 1
    return np.where(bits == 1, 1, -1).astype(np.int8)


class OutputCode:
    """Mapping between class labels and R-unit targets.

    Parameters
    ----------
    classes : array of shape (k,)
        Sorted distinct labels.
    spec : ResponseSpec
    tie : float
        Half-width of the tie zone of the sums (:func:`mark1.rules.tie_tolerance`): a
        sum within ``tie`` of 0 leaves its lamp off, and sums within ``tie`` of each
        other are equal (the lower class index wins).

    Attributes
    ----------
    kind : str
        ``"single"``, ``"one-per-class"``, ``"binary"`` or ``"bits"``.
    targets : array of shape (k, n_units) int8
        Target of each used R-unit for each class, ±1.
    n_units : int
        R-units in use (1 for single, k for one-per-class, bits for binary).

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.specs import MARK_I
    >>> code = OutputCode(np.array(["E", "X"]), MARK_I.response)
    >>> code.kind, code.n_units
    ('single', 1)
    >>> code.describe()
    'R1 lamp on means "X", off means "E"'
    >>> code.decode(np.array([[0.3], [-0.2]]))        # class indices from the sums
    array([1, 0])
    """

    def __init__(self, classes: np.ndarray, spec: ResponseSpec, tie: float = 0.0) -> None:
        self.classes = np.asarray(classes)
        self.tie = float(tie)
        k = len(self.classes)
        self.kind = kind = spec.code_for(k)[0]
        if kind == "single":
            self.targets = np.array([[-1], [1]], dtype=np.int8)
        elif kind == "one-per-class":
            self.targets = (2 * np.eye(k, dtype=np.int8) - 1)
        elif kind == "bits":
            self.targets = _bit_codes(k)
        else:
            self.targets = _far_apart_codes(k, spec.n_responses)
        self.n_units = self.targets.shape[1]

    def describe(self) -> str:
        """How the classes are read from the R-units, in plain words."""
        names = [str(c) for c in self.classes]
        if self.kind == "single":
            return f"R1 lamp on means \"{names[1]}\", off means \"{names[0]}\""
        if self.kind == "one-per-class":
            return "one R-unit per class: " + ", ".join(f"R{k + 1} \"{c}\"" for k, c in enumerate(names)) \
                + "; the largest sum wins"
        if self.kind == "bits":
            return (f"one lamp per bit: class i is the binary number i on {self.n_units} lamps, read as the "
                    f"nearest code word")
        return f"a binary code of {self.n_units} lamps per class, read as the nearest code word"

    def encode(self, labels: np.ndarray) -> np.ndarray:
        """Class indices (n,) → R-unit targets (n, n_units) in ±1."""
        return self.targets[labels]

    def index(self, labels: np.ndarray) -> np.ndarray:
        """Labels → class indices; ValueError for a label the code does not know."""
        labels = np.asarray(labels)
        idx = np.searchsorted(self.classes, labels)
        idx = np.clip(idx, 0, len(self.classes) - 1)
        bad = self.classes[idx] != labels
        if np.any(bad):
            raise InputError(f"labels: {labels[bad][0].item()!r} is not one of the trained classes "
                             f"{self.classes.tolist()}")
        return idx

    def decode(self, sums: np.ndarray) -> np.ndarray:
        """R-unit sums (n, n_units) → class indices (n,).

        single: lamp on (sum > tie) means class 1. one-per-class: the largest sum, the
        lowest index among sums within ``tie`` of the largest. binary: the code word
        nearest (Hamming) to the lamps; ties go to the word that agrees best with the
        sums themselves, then to the lowest index.
        """
        sums = np.atleast_2d(sums)
        tie = self.tie
        if self.kind == "single":
            return (sums[:, 0] > tie).astype(np.intp)
        if self.kind == "one-per-class":
            return _first_max(sums, tie)
        lamps = np.where(sums > tie, 1.0, -1.0)
        agree = lamps @ self.targets.T                     # n_units - 2 * Hamming distance
        soft = sums @ self.targets.T
        scale = np.abs(soft).max(axis=1, keepdims=True) + 1.0
        # the soft term is below 0.5, so it only orders words at equal Hamming distance;
        # its own ties are judged with the tie zone scaled like it
        return _first_max(agree + 0.5 * soft / scale, 0.5 * tie * self.n_units / scale)


def _first_max(scores: np.ndarray, tie) -> np.ndarray:
    """Row-wise index of the first score within ``tie`` of the row's largest: array (n,)."""
    best = scores.max(axis=1, keepdims=True)
    return np.argmax(scores >= best - tie, axis=1)
