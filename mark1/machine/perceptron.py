"""The fast error-correction core shared by every perceptron in the package.

:func:`train_error_correction` runs Rosenblatt's fixed-increment error-correction
procedure (PRML §4.1.7) for ``k`` independent threshold units that see the same
cards.  It is the single implementation used by :class:`mark1.linear_model.Perceptron`
(through :func:`train_with_bias`) and by the machine's ideal digital path (through
:func:`train_on_outputs`, which reads each R-unit's inputs off the A-units' boolean
outputs instead of a float copy of them, and runs a unit of a few inputs a card one card
at a time, :func:`mark1.machine._kernels.textbook.present_one`).

Exactness
---------
The result is the one a naive loop produces, one card at a time::

    for each presentation p (card i = order[p]):
        s = W @ X[i]                         # every unit's sum, before any update
        for each unit u with T[i, u] * s[u] <= 0:     # zero counts as an error
            W[u] += eta_u * T[i, u] * X[i]

The loop is compiled (numba, :func:`mark1.machine._kernels.textbook.present`) and *is* the naive loop: each sum
adds its card's products in feature order, as the loop above written out in scalars
does (and as scikit-learn's ``Perceptron`` does), so the sums, mistakes and weights
are the naive loop's bit for bit on any floating-point data, not only on data whose
sums are exact (a constant ``eta`` other than 1 from zero weights: the ``eta = 1``
run, scaled; see below).  The speed comes from three things:

* the cards are read as their rows of nonzero features when most features are zero
  (:func:`_rows_read`: binary A-unit outputs are about 15 % ones), so a sum costs the
  card's nonzero products only; a zero product changes no sum, so this changes no bit;
* a single unit computes the sums of the next ``_LOOKAHEAD`` presentations together,
  with the weights of the first (``_LOOKAHEAD`` = 4 independent chains of additions,
  written out in :func:`_sums_of_one_unit`, instead of one that waits on each addition);
  each is final up to the first mistake among them, and the sums after it are computed
  again with the corrected weights;
* several units go four at a time through a card's features (independent chains), and
  a presentation with several erring units is one step.

Without early stop an epoch without a mistake ends the loop too: the weights no
longer change, so when the rest of the run shows only that epoch's cards it repeats
that epoch and is filled in (:func:`_repeats`) instead of computed.

Measured 25 Nov 2026 (10,000 cards x 513 features, 5 epochs, CPU time): the ideal
machine's digit cards, 8 units (4.5 % of presentations with a mistake) 27 ms, the same
with shuffled labels (94 %) 40 ms; binary features, 1 unit 19 ms, 8 units 27 ms;
Gaussian features, 1 unit 26 ms, 8 units 99 ms.
``benchmarks/bench_baselines.py`` times :class:`mark1.linear_model.Perceptron`
against scikit-learn's.

A constant ``eta`` from zero weights is run as ``eta = 1`` and scaled
(:func:`_scaled_run`): the increment only scales the weights, and so it changes no
decision, while computing with it in floating point could turn an exact zero sum
into +-1e-17.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from mark1._utils.estimator import all_finite
from mark1.exceptions import InputError
from mark1.machine._kernels.textbook import (Deck, Record, Step, Weights, _nonzero_rows, present, present_one,
                                             sparse_sums, unit_rows)
# the names tests/test_perceptron.py reaches here (the loops moved to the kernels' room)
from mark1.machine._kernels.textbook import LOOKAHEAD as _LOOKAHEAD, _sums_of_one_unit  # noqa: F401

__all__ = ["ErrorCorrectionResult", "train_error_correction", "train_with_bias", "train_on_outputs", "averaged_weights",
           "sparse_sums"]

#: A deck is read as its rows of nonzero features (:func:`_nonzero_rows`) when at most
#: this fraction of the entries of its first rows is nonzero; else as it is.
_SPARSE_DENSITY = 0.5
#: Rows of the deck sampled for that choice.
_DENSITY_SAMPLE = 256


@dataclass
class ErrorCorrectionResult:
    """Everything that happened during error-correction training.

    Attributes
    ----------
    weights : ndarray of shape (k, d)
        Final weights.
    sums : ndarray of shape (n_presentations, k)
        Each unit's sum ``w . x`` at the moment the card was presented (before any
        update for that card).
    errors : ndarray of shape (n_presentations, k), dtype bool
        ``errors[p, u]`` is True when unit ``u`` erred on presentation ``p``
        (``t * sum <= 0``) and was therefore updated.
    order : ndarray of shape (n_presentations,), dtype int
        Index of the card presented at each presentation.
    mistakes_per_epoch : ndarray of shape (epochs_run,), dtype int
        Presentations of each epoch with at least one erring unit.
    converged : bool
        An entire epoch went by without an error.
    epochs_run : int
        Epochs actually run (fewer than requested only with
        ``stop_when_converged=True``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 0., 1.], [0., 1., 1.], [1., 0., 1.], [1., 1., 1.]])   # two inputs, bias input 1
    >>> T = [-1., -1., -1., 1.]                                                    # their AND
    >>> r = train_error_correction(X, T, epochs=10, stop_when_converged=True)
    >>> r.epochs_run, r.converged, r.mistakes_per_epoch.tolist()
    (9, True, [2, 3, 3, 2, 2, 3, 2, 1, 0])
    >>> r.order[:4].tolist(), r.sums[:4, 0].tolist(), r.errors[:4, 0].tolist()     # the first epoch
    ([0, 1, 2, 3], [0.0, -1.0, -1.0, -1.0], [True, False, False, True])
    """

    weights: np.ndarray
    sums: np.ndarray
    errors: np.ndarray
    order: np.ndarray
    mistakes_per_epoch: np.ndarray
    converged: bool
    epochs_run: int


# --------------------------------------------------------------------------- validation


def _as_float_matrix(value, name):
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be an array of real numbers: {exc}") from None
    return arr


def _checked_targets(T, n, cards):
    """``T`` as a C-ordered float64 (n, k) array of +-1 (a 1-D ``T`` is one unit), or an
    InputError naming it (``cards`` names the cards' argument)."""
    T = _as_float_matrix(T, "T")
    if T.ndim == 1:
        T = T[:, None]
    if T.ndim != 2:
        raise InputError(f"T must be 2-D (n_cards, n_units); got shape {T.shape}")
    if T.shape[0] != n:
        raise InputError(f"T has {T.shape[0]} rows but {cards} has {n} cards")
    if T.shape[1] < 1:
        raise InputError("T must have at least one unit (column)")
    if not np.all((T == 1.0) | (T == -1.0)):
        raise InputError("T must contain only the targets -1 and +1 (NaN is not allowed)")
    return np.ascontiguousarray(T)


def _checked_epochs(epochs):
    if isinstance(epochs, (bool, np.bool_)) or not isinstance(epochs, numbers.Integral):
        raise InputError(f"epochs must be an integer >= 1; got {epochs!r}")
    epochs = int(epochs)
    if epochs < 1:
        raise InputError(f"epochs must be >= 1; got {epochs}")
    return epochs


def _checked_order(order, epochs, n):
    """``order`` (epochs, m) as C-ordered card indices in [0, n), or None (cyclic)."""
    if order is None:
        return None
    order = np.asarray(order)
    if order.dtype.kind not in "iu":
        raise InputError(f"order must be an integer array; got dtype {order.dtype}")
    if order.ndim != 2 or order.shape[0] != epochs or order.shape[1] < 1:
        raise InputError(
            f"order must have shape (epochs, n_cards) = ({epochs}, {n}); got {order.shape}")
    if order.size and (order.min() < 0 or order.max() >= n):
        raise InputError(f"order must contain card indices in [0, {n}); "
                         f"got values in [{order.min()}, {order.max()}]")
    return np.ascontiguousarray(order, dtype=np.intp)


def _validate(X, T, epochs, eta, order, w0, stop_when_converged, eta_schedule, check_finite=True):
    X = _as_float_matrix(X, "X")
    if X.ndim != 2:
        raise InputError(f"X must be 2-D (n_cards, n_features); got shape {X.shape}")
    n, d = X.shape
    if n < 1 or d < 1:
        raise InputError(f"X must have at least one card and one feature; got shape {X.shape}")
    X = np.ascontiguousarray(X)                          # the compiled loop reads rows
    if check_finite and not all_finite(X):
        raise InputError("X contains NaN or infinity")

    T = _checked_targets(T, n, "X")
    k = T.shape[1]

    epochs = _checked_epochs(epochs)

    if isinstance(eta, (bool, np.bool_)) or not isinstance(eta, numbers.Real):
        raise InputError(f"eta must be a positive real number; got {eta!r}")
    eta = float(eta)
    if not (np.isfinite(eta) and eta > 0):
        raise InputError(f"eta must be positive and finite; got {eta}")

    if eta_schedule not in (None, "constant", "inverse"):
        raise InputError(f"eta_schedule must be None, 'constant' or 'inverse'; got {eta_schedule!r}")
    inverse = eta_schedule == "inverse"

    if not isinstance(stop_when_converged, (bool, np.bool_)):
        raise InputError(f"stop_when_converged must be a bool; got {stop_when_converged!r}")

    order = _checked_order(order, epochs, n)

    if w0 is None:
        W = np.zeros((k, d))
    else:
        W = _as_float_matrix(w0, "w0")
        if W.ndim == 1 and k == 1:
            W = W[None, :]
        if W.shape != (k, d):
            raise InputError(f"w0 must have shape (n_units, n_features) = ({k}, {d}); got {W.shape}")
        if not all_finite(W):
            raise InputError("w0 contains NaN or infinity")
        W = np.array(W, dtype=np.float64, order="C", copy=True)
    return X, T, epochs, eta, order, W, inverse, bool(stop_when_converged)


# --------------------------------------------------------------------------- the core


def train_error_correction(X, T, *, epochs, eta=1.0, order=None, w0=None,
                           stop_when_converged=False, eta_schedule=None,
                           tie: float = 0.0) -> ErrorCorrectionResult:
    """Train ``k`` independent perceptron units by fixed-increment error correction.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Features of the cards (float64; the caller includes any bias column).
    T : array_like of shape (n, k)
        Targets in {-1, +1}; column ``u`` is unit ``u``'s target.  A 1-D array is
        taken as a single unit, shape (n, 1).
    epochs : int
        Number of passes over the deck (>= 1).  Training never runs longer.
    eta : float, default 1.0
        Increment.  Unit ``u`` errs on card ``i`` when ``T[i, u] * (w_u . x_i) <= 0``
        (a zero sum is an error) and is then updated ``w_u += eta * T[i, u] * x_i``;
        units that did not err are untouched.
    order : array_like of int, shape (epochs, m), optional
        Card indices presented in each epoch (usually a permutation of ``range(n)``
        per epoch, drawn by the caller with its own Generator).  Default: cyclic
        ``0 .. n-1`` every epoch.
    w0 : array_like of shape (k, d), optional
        Initial weights (default zeros).
    stop_when_converged : bool, default False
        Stop at the end of the first epoch without an error.
    eta_schedule : {None, 'constant', 'inverse'}, default None
        ``'inverse'`` uses ``eta / j`` for the ``j``-th update of each unit
        (PRML's eta(j)), computed as that exact floating-point quotient.
    tie : float, default 0.0
        Half-width of the tie zone: unit ``u`` errs when ``T[i, u] * sum <= tie``.
        The machine passes its own tie rule (:func:`mark1.machine.rules.tie_tolerance`, in the
        units of the sums); 0 is the textbook rule.

    Returns
    -------
    ErrorCorrectionResult

    Raises
    ------
    InputError
        Naming the argument, for wrong shapes, NaN/inf, targets other than +-1,
        ``epochs < 1``, a non-positive ``eta`` or card indices out of range.

    Notes
    -----
    See the module docstring for the algorithm (the naive loop compiled, each sum in
    feature order) and its exactness.

    Examples
    --------
    A single unit learns the AND of two inputs (cards with a bias input 1):

    >>> import numpy as np
    >>> X = np.array([[0., 0., 1.], [0., 1., 1.], [1., 0., 1.], [1., 1., 1.]])   # two inputs, bias input 1
    >>> T = [-1., -1., -1., 1.]                                                    # their AND
    >>> r = train_error_correction(X, T, epochs=10, stop_when_converged=True)
    >>> r.weights
    array([[ 3.,  2., -4.]])
    >>> np.where(X @ r.weights[0] > 0, 1, -1).tolist()
    [-1, -1, -1, 1]
    """
    X, T, epochs, eta, order, W, inverse, stop = _validate(
        X, T, epochs, eta, order, w0, stop_when_converged, eta_schedule)
    if not (np.isfinite(tie) and tie >= 0):
        raise InputError(f"tie must be finite and >= 0; got {tie!r}")
    return _scaled_run(X, T, epochs, eta, order, W, inverse, stop, bias=False, tie=float(tie))


def train_with_bias(X, T, *, epochs, eta=1.0, order=None, stop_when_converged=False,
                    eta_schedule=None, record_sums=True, check_finite=True) -> ErrorCorrectionResult:
    """:func:`train_error_correction` on the cards ``[X, 1]``, without building that matrix.

    The constant bias input is implicit: each sum is ``w[:d] . x + w[d]`` and an
    update adds ``eta * t`` to ``w[d]``.  The result is the one for the augmented
    cards (weights of shape (k, d + 1), the bias weight last); on integer-valued data
    it is bit-identical.  :class:`mark1.linear_model.Perceptron` trains this way to
    save a copy of ``X``.  Training starts from zero weights.

    Parameters
    ----------
    X : array_like of shape (n, d)
        Features of the cards, without a bias column.
    T : array_like of shape (n, k) or (n,)
        Targets in {-1, +1}, as for :func:`train_error_correction`.
    epochs, eta, order, stop_when_converged, eta_schedule
        As for :func:`train_error_correction`.
    record_sums : bool, default True
        Keep every presentation's sums; ``False`` leaves ``result.sums`` with no rows
        and saves ``8 * k`` bytes per presentation.
    check_finite : bool, default True
        Refuse NaN and infinity in ``X``; ``False`` for a caller that has checked.

    Returns
    -------
    ErrorCorrectionResult
        ``weights`` of shape (k, d + 1).

    Examples
    --------
    The AND of two inputs, learned with an implicit bias input:

    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    >>> r = train_with_bias(X, [-1.0, -1.0, -1.0, 1.0], epochs=10, stop_when_converged=True)
    >>> r.weights, r.converged       # as train_error_correction on the cards [X, 1]
    (array([[ 3.,  2., -4.]]), True)
    """
    X, T, epochs, eta, order, _, inverse, stop = _validate(
        X, T, epochs, eta, order, None, stop_when_converged, eta_schedule, check_finite=check_finite)
    W = np.zeros((T.shape[1], X.shape[1] + 1))
    return _scaled_run(X, T, epochs, eta, order, W, inverse, stop, bias=True, record_sums=record_sums)


def train_on_outputs(phi, mask, T, *, epochs, order=None, tie: float = 0.0):
    """:func:`train_error_correction` of units that each see some of the binary outputs
    ``phi`` and perhaps a bias input, read off ``phi`` itself (no float inputs are made).

    Unit ``u``'s inputs are the columns ``i`` of ``phi`` with ``mask[u, i]``, in order,
    then the constant input 1 if ``mask[u, -1]`` (its bias): the cards
    ``np.c_[phi, ones][:, mask[u]]`` as 0.0 and 1.0. The result is, bit for bit, that of
    :func:`train_error_correction` on those cards, unit by unit (``eta = 1``, from zero
    weights); units with the same inputs are trained together. The machine's ideal path
    trains its R-units this way on its A-units' outputs.

    Parameters
    ----------
    phi : array_like of bool, shape (n, n_a)
        The binary outputs of the cards.
    mask : array_like of bool, shape (k, n_a + 1)
        Which outputs each of the ``k`` units sees; the last column its bias input.
    T : array_like of shape (n, k) or (n,)
        Targets in {-1, +1}, as for :func:`train_error_correction`.
    epochs, order, tie
        As for :func:`train_error_correction`.

    Returns
    -------
    result : ErrorCorrectionResult
        ``weights`` of shape (k, n_a + 1): unit ``u``'s weights where ``mask[u]``, else 0.
    active : ndarray of int64, shape (n, k)
        Each card's inputs of each unit that are 1 (its bias included): the weights a
        correction on that card changes.

    Raises
    ------
    InputError
        Naming the argument, for ``phi`` or ``mask`` not boolean or of the wrong shape, a
        unit without inputs, and as :func:`train_error_correction` for the rest.

    Examples
    --------
    The AND of two inputs, and a unit that sees the first input alone, each with its bias:

    >>> import numpy as np
    >>> phi = np.array([[False, False], [False, True], [True, False], [True, True]])
    >>> mask = np.array([[True, True, True], [True, False, True]])
    >>> T = np.array([[-1., -1.], [-1., -1.], [-1., 1.], [1., 1.]])
    >>> r, active = train_on_outputs(phi, mask, T, epochs=10)
    >>> r.weights, r.converged
    (array([[ 3.,  2., -4.],
           [ 2.,  0., -1.]]), True)
    >>> active[:, 0].tolist(), active[:, 1].tolist()
    ([1, 2, 2, 3], [1, 1, 2, 2])
    >>> X = np.c_[phi, np.ones(4)]                        # the same as on float inputs
    >>> np.array_equal(train_error_correction(X, T[:, 0], epochs=10).weights[0], r.weights[0])
    True
    """
    phi, mask, T, epochs, order = _checked_outputs(phi, mask, T, epochs, order, tie)
    (n, n_a), k = phi.shape, T.shape[1]
    inputs, group, ptr, idx = _rows_of_groups(phi, mask)
    P = epochs * (n if order is None else order.shape[1])
    weights, sums = np.zeros((k, n_a + 1)), np.empty((P, k))
    errors, active = np.empty((P, k), dtype=bool), np.empty((n, k), np.int64)
    for g, pots in enumerate(inputs):
        members = np.flatnonzero(group == g)
        units: slice | np.ndarray = members                            # a run of units: a slice (no copy)
        if len(members) == members[-1] - members[0] + 1:
            units = slice(members[0], members[-1] + 1)
        bias = bool(pots[-1])
        W = np.zeros((T[:, units].shape[1], int(np.count_nonzero(pots))))
        r = _run(np.empty((0, W.shape[1] - bias)), np.ascontiguousarray(T[:, units]), epochs, 1.0, order, W,
                 False, False, bias=bias, record_sums=True, tie=float(tie), rows=(ptr[g], idx, np.zeros(0), True))
        weights[np.ix_(members, np.flatnonzero(pots))] = r.weights
        sums[:, units], errors[:, units] = r.sums, r.errors
        active[:, units] = (np.diff(ptr[g]) + bias)[:, None]
    mistakes = errors.any(axis=1).reshape(epochs, -1).sum(axis=1).astype(np.int64)
    return ErrorCorrectionResult(weights=weights, sums=sums, errors=errors, order=r.order, mistakes_per_epoch=mistakes,
                                 converged=bool(np.any(mistakes == 0)), epochs_run=epochs), active


def _checked_outputs(phi, mask, T, epochs, order, tie):
    """:func:`train_on_outputs`'s arguments checked: ``phi, mask, T, epochs, order``."""
    phi = np.asarray(phi)
    if phi.dtype != np.bool_ or phi.ndim != 2 or phi.shape[0] < 1:
        raise InputError(f"phi must be a 2-D boolean array (n_cards, n_outputs); got {phi.dtype} of shape {phi.shape}")
    n, n_a = phi.shape
    T = _checked_targets(T, n, "phi")
    k = T.shape[1]
    mask = np.asarray(mask)
    if mask.dtype != np.bool_ or mask.shape != (k, n_a + 1):
        raise InputError(f"mask must be a boolean array of shape (n_units, n_outputs + 1) = ({k}, {n_a + 1}); "
                         f"got {mask.dtype} of shape {mask.shape}")
    if not mask.any(axis=1).all():
        raise InputError(f"mask: unit {int(np.argmin(mask.any(axis=1)))} has no inputs")
    epochs = _checked_epochs(epochs)
    order = _checked_order(order, epochs, n)
    if not (np.isfinite(tie) and tie >= 0):
        raise InputError(f"tie must be finite and >= 0; got {tie!r}")
    return phi, mask, T, epochs, order


def _rows_of_groups(phi, mask):
    """The units with the same inputs, a group each: ``inputs`` (g, n_a + 1) their mask,
    ``group`` (k,) each unit's, and each group's rows read off ``phi`` (``ptr`` (g, n + 1),
    ``idx``: :func:`~mark1.machine._kernels.textbook.unit_rows`)."""
    n_a = phi.shape[1]
    first: dict = {}                                                   # units with the same inputs: a group
    group = np.array([first.setdefault(row.tobytes(), len(first)) for row in np.packbits(mask, axis=1)])
    inputs = mask[np.unique(group, return_index=True)[1]]
    sees = inputs[:, :-1]
    place = np.cumsum(sees, axis=1) - 1                                # each output's number among a group's
    output, of = np.nonzero(sees.T)                                    # who sees what, output by output
    feeds = np.zeros(n_a + 1, np.int64)
    np.cumsum(np.count_nonzero(sees, axis=0), out=feeds[1:])
    ptr, idx = unit_rows(np.ascontiguousarray(phi), feeds, of.astype(np.int64), place[of, output].astype(np.int32),
                         len(inputs))
    return inputs, group, ptr, idx


def _scaled_run(X, T, epochs, eta, order, W, inverse, stop, *, bias, record_sums=True, tie=0.0):
    """:func:`_run`, made with ``eta = 1`` and scaled where that is the same training.

    From zero weights with a constant increment every weight is ``eta`` times the one
    ``eta = 1`` gives, and every sum too (PRML §4.1.7: the increment only scales the
    weights), so the decisions cannot depend on ``eta``. Computed in floating point with
    the increment itself they can: a sum that is exactly 0 comes out as +-1e-17 for one
    card and not for another, where the naive loop with ``eta = 1`` gives exact
    integers. Hence the run is made with ``eta = 1`` (exact on integer-valued cards) and
    the weights and sums scaled.
    """
    if inverse or eta == 1.0 or np.any(W):
        return _run(X, T, epochs, eta, order, W, inverse, stop, bias=bias, record_sums=record_sums, tie=tie)
    r = _run(X, T, epochs, 1.0, order, W, inverse, stop, bias=bias, record_sums=record_sums, tie=tie / eta)
    r.weights *= eta
    r.sums *= eta
    return r


def _rows_read(X):
    """The cards as :func:`~mark1.machine._kernels.textbook.present` reads them: ``(ptr, idx, val, sparse)``.

    A deck whose sampled rows are mostly zeros (binary A-unit outputs: about 15 % ones)
    is read as its rows of nonzero features, so a sum costs its nonzero products only;
    a dense deck is read as it is (the row arrays are then empty); a binary deck keeps
    no values (every nonzero is 1, and ``1.0 * w`` is ``w``). Either way each sum
    adds the same products in the same order (a zero product changes no sum), so the
    choice changes the speed, never a bit of the result.
    """
    n, d = X.shape
    sample = X[:_DENSITY_SAMPLE]
    density = np.count_nonzero(sample) / sample.size
    if density > _SPARSE_DENSITY:
        return np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0), False
    ptr, idx, val = _nonzero_rows(X)
    return ptr, idx, val, True


def _run(X, T, epochs, eta, order, W, inverse, stop, *, bias, record_sums, tie, rows=None) -> ErrorCorrectionResult:
    """One training run on validated inputs; ``W`` (k, d [+1]) is updated in place.

    The presentations go through :func:`~mark1.machine._kernels.textbook.present` (compiled) in segments of the record:
    the whole run, or (early stop) a record that doubles while training goes on. Without
    early stop an epoch without a mistake ends the compiled loop too: when every later
    presentation shows a card of that epoch, the rest of the run repeats it (the weights
    no longer change) and is filled in instead of computed. ``rows`` (``ptr, idx, val,
    sparse``) are the cards' rows when the caller has read them (``X`` then gives only its
    number of columns); else they are read from ``X`` (:func:`_rows_read`).
    """
    n, k = T.shape
    m = n if order is None else order.shape[1]                         # presentations per epoch
    P = epochs * m
    seq = np.zeros(0, np.intp) if order is None else order.ravel()
    kp = 1 if k == 1 else -(-k // 4) * 4                               # units, padded to whole groups of 4
    WT = np.zeros((W.shape[1], kp))                                    # column u: unit u's weights
    WT[:, :k] = W.T
    # One unit: its weights as a vector (a view of WT). Several units: present reads WT only, and w is an
    # empty array of the same type (so that numba compiles present once for both).
    w = WT.reshape(-1) if kp == 1 else np.empty(0)
    mode = 2 if inverse else (1 if eta == 1.0 else 0)                  # how a step is computed
    counts = np.zeros(k, np.int64)                                     # updates per unit (eta schedule)
    ptr, idx, val, sparse = _rows_read(X) if rows is None else rows
    cap = P if not stop else min(P, max(4 * m, 4096))
    errors = np.zeros((cap, k), dtype=bool)
    sums = np.empty((cap if record_sums else 0, k))
    p, last, watch, stopped_at = 0, -1, True, None
    deck, weights = Deck(X, ptr, idx, val, sparse, T, seq, m), Weights(WT, w, k, bias)
    step = Step(mode, float(eta), counts, float(tie))
    # rows read by the caller (a unit's few inputs, 0 or 1), one unit, steps of +-1: the naive loop itself
    run = present_one if rows is not None and k == 1 and mode == 1 and sparse and not len(val) else present
    while p < P:
        if p == cap:                                                   # grow the record (early stop only)
            cap = min(P, 2 * cap)
            errors = _grow(errors, cap)
            if record_sums:
                sums = _grow(sums, cap)
        p, last = run(deck, weights, Record(sums, errors, record_sums), step, p, min(P, cap), watch, last)
        if watch and p == (last // m + 2) * m:                          # an epoch without a mistake ended at p
            if stop:
                stopped_at = p
                break
            if p < P and _repeats(sums, seq, n, m, p, P, record_sums):
                p = P
            watch = False
    W[:] = WT[:, :k].T
    end = P if stopped_at is None else stopped_at
    epochs_run = end // m
    order_out = np.tile(np.arange(m, dtype=np.intp), epochs_run) if order is None else seq[:end].copy()
    errors = errors[:end] if end == len(errors) else errors[:end].copy()
    if record_sums:
        sums = sums[:end] if end == len(sums) else sums[:end].copy()
    mistakes = errors.any(axis=1).reshape(epochs_run, m).sum(axis=1)
    return ErrorCorrectionResult(weights=W, sums=sums, errors=errors, order=order_out,
                                 mistakes_per_epoch=mistakes.astype(np.int64),
                                 converged=bool(stopped_at is not None or np.any(mistakes == 0)),
                                 epochs_run=int(epochs_run))


def _repeats(sums, seq, n, m, q, P, record_sums) -> bool:
    """Whether presentations ``q..P-1`` repeat the epoch without a mistake ``q - m .. q - 1``.

    An epoch without an error leaves the weights as they were, so a later presentation
    of a card shown in it gives the same sums and no error. True (with the sums of
    ``q..P-1`` filled, card by card, if recorded; their errors stay False) when every
    later presentation shows such a card; else False, and nothing is filled (an epoch
    that does not show every card).
    """
    if len(seq) == 0:                                    # cyclic: every epoch shows every card
        if record_sums:
            sums[q:P] = sums[q - m:q][np.arange(q, P) % m]
        return True
    shown = np.zeros(n, dtype=bool)
    shown[seq[q - m:q]] = True
    if not shown[seq[q:P]].all():
        return False
    if record_sums:
        card = np.empty((n, sums.shape[1]))
        card[seq[q - m:q]] = sums[q - m:q]
        sums[q:P] = card[seq[q:P]]
    return True


def _grow(a, cap):
    """``a`` (length <= ``cap`` along axis 0) copied into zeros of length ``cap``: a record, grown."""
    out = np.zeros((cap,) + a.shape[1:], dtype=a.dtype)
    out[:len(a)] = a
    return out


def averaged_weights(result: ErrorCorrectionResult, X, T, *, eta=1.0, eta_schedule=None,
                     w0=None, bias=False) -> np.ndarray:
    """Average of the weight vector over all presentations of a training run.

    ``mean over p of W(p)``, where ``W(p)`` is the weight matrix after presentation
    ``p`` (including that presentation's update), computed exactly from the record
    of errors: an update made at presentation ``q`` (0-based) is present in the
    ``P - q`` weight vectors that follow it, so the average is
    ``(P * w0 + sum_q (P - q) * delta_q) / P``.

    Parameters
    ----------
    result : ErrorCorrectionResult
        Returned by :func:`train_error_correction` for the same ``X``, ``T``,
        ``eta``, ``eta_schedule`` and ``w0``.
    X : array_like of shape (n, d)
    T : array_like of shape (n, k)
    eta, eta_schedule, w0
        As passed to :func:`train_error_correction`.
    bias : bool, default False
        The run was made by :func:`train_with_bias` (``X`` without its bias column;
        ``w0``, if given, of shape (k, d + 1)).

    Returns
    -------
    ndarray of shape (k, d), or (k, d + 1) with ``bias``

    Examples
    --------
    Two units, the OR and the AND of two inputs (cards with a bias input 1):

    >>> import numpy as np
    >>> X = np.array([[0., 0., 1.], [0., 1., 1.], [1., 0., 1.], [1., 1., 1.]])
    >>> T = np.array([[-1., -1.], [1., -1.], [1., -1.], [1., 1.]])
    >>> r = train_error_correction(X, T, epochs=20, stop_when_converged=True)
    >>> r.weights
    array([[ 2.,  2., -1.],
           [ 3.,  2., -4.]])
    >>> averaged_weights(r, X, T).round(3)
    array([[ 1.556,  1.722, -0.611],
           [ 2.083,  1.333, -2.556]])
    """
    X = np.asarray(X, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    if T.ndim == 1:
        T = T[:, None]
    n, d = X.shape
    errors = result.errors
    P, k = errors.shape
    if T.shape != (n, k):
        raise InputError(f"T must have shape ({n}, {k}) to match result; got {T.shape}")
    da = d + 1 if bias else d
    W0 = np.zeros((k, da)) if w0 is None else np.asarray(w0, dtype=np.float64).reshape(k, da)
    order = result.order
    q = np.flatnonzero(errors.any(axis=1))
    steps = np.zeros((len(q), k))
    err_q = errors[q]
    if eta_schedule == "inverse":
        counts = np.cumsum(errors, axis=0)[q]
        np.divide(eta, counts, out=steps, where=err_q)
    else:
        steps[err_q] = eta
    # coefficient of card order[q] in unit u's sum: (P - q) * step * t
    coef = steps * T[order[q]] * (P - q)[:, None]
    A = np.empty((n, k))
    for u in range(k):
        A[:, u] = np.bincount(order[q], weights=coef[:, u], minlength=n)
    total = np.empty((k, da))
    total[:, :d] = A.T @ X
    if bias:
        total[:, d] = A.sum(axis=0)
    return (P * W0 + total) / P
