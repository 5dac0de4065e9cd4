"""The Mark I assembled: retina, patch board, potentiometer rack, R-units and trainer.

:class:`MarkI` shows it at work. The machine follows scikit-learn's estimator
conventions: the keyword-only constructor only stores its arguments, the parts are
built on first use, ``fit`` returns the machine, learned state ends in ``_``.

Randomness: one seed, split with ``SeedSequence`` into independent streams for the
wiring, the device spread (photocell sensitivities, motor speeds), the presentation
order, and the read noise. ``noise_seed`` replaces the last one alone, so changing
it never rewires the patch board. Scoring takes each card's read noise from a child of
the read-noise stream keyed by the card, so answers repeat (see ``MarkI.decision_function``).
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import numpy.typing as npt
import simpy

from mark1 import exceptions as errors
from mark1.machine.patchboard import Patchboard, with_bias
from mark1.machine.perceptron import train_on_outputs
from mark1.machine._kernels.pots import read_out_array
from mark1.machine.potentiometers import PotentiometerRack
from mark1.machine.response import OutputCode
from mark1.machine.retina import Retina, RetinaState
from mark1.machine.rules import erring, tie_tolerance
from mark1._utils.html import figure_function, figure_img, html_table
from mark1._utils.language import duration
from mark1._utils.progress import progress_bar
from mark1.machine.simulator import Presentations, Trace, _finish, _RunResult, _simulate, history
from mark1.specs import MARK_I, MachineSpec, check_runnable
from mark1._utils import limits
from mark1._utils.estimator import ParamsMixin
from mark1._utils.threads import one_blas_thread
from mark1.exceptions import InputError, LMSStepWarning

__all__ = ["MarkI", "LMSStepWarning"]


class _DeckLight:
    """The light of a large deck's cards, imaged when the simulator asks for them.

    ``light[indices]`` gives the rows :meth:`Retina.light` would give (each card is
    imaged on its own, so the bits are the same); only the cards, not their light,
    are kept for the whole deck.
    """

    def __init__(self, retina, cards):
        self.retina, self.cards = retina, cards

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, index) -> np.ndarray:
        return self.retina.light(self.cards[index])

    def take(self, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The light of ``cards`` and their rows in it, those cards imaged now."""
        return self[cards], np.arange(len(cards))


_STREAMS = ("wiring", "photocells", "motors", "order", "noise")
_SCORING = 0                # the read-noise stream's child for scoring (see MarkI.decision_function)
_SCORING_PCM = 1            # its child for the wipers' 1/f read noise at scoring (rack.read_noise_scale)



class MarkI(ParamsMixin):
    """Rosenblatt's Mark I Perceptron, simulated as a machine.

    An estimator in scikit-learn's manner: ``get_params`` and ``set_params`` name and
    change the constructor's arguments (so ``clone`` and ``GridSearchCV`` work), ``fit``
    trains, ``predict``, ``decision_function`` and ``score`` answer.

    Parameters
    ----------
    spec : MachineSpec
        The machine (``specs.MARK_I``, ``specs.SMALL``, ``spec.ideal()``, ...).
    seed : int or None
        Seed of the run; None draws fresh entropy (kept in ``seed_``).
    noise_seed : int or None
        Seed of the read-noise stream alone (defaults to a stream of ``seed``).
    trace : {"off", "summary", "full"}
        How much of the event log to keep.
    fast : bool
        Use the exact vectorized path for a fully ideal machine (same updates as the
        event simulation, much faster). Set False to force the event simulation.
    epochs : int
        Passes over the cards in :meth:`fit` (unless ``fit`` is given its own).
    order : {"cyclic", "shuffled"}
        Presentation order in :meth:`fit` (unless ``fit`` is given its own).

    Attributes
    ----------
    retina : Retina
    patchboard : Patchboard
    rack_ : PotentiometerRack
        After ``fit``: the pots, with their final wiper positions.
    classes_ : array (k,)
    code_ : OutputCode
    history_ : structured array, one row per presentation
        Fields: presentation, epoch, card, label, response (class indices into
        ``classes_``), correct, units_erred, pots_moved, start (s), s_active, a_active.
    machine_time_ : float
        Seconds of machine time the training took.
    trace_ : Trace
        The run's event log. With ``trace="full"`` it is the machine's own record of
        the run: every event, and per presentation what the trainer read (the S- and
        A-units lit, the wipers of the pots that made each sum; ``trace_.readings``)
        and every move as the rack set it going (``trace_.moves``).
    read_sums_ : array (n_presentations, n_units) or None
        With ``trace="full"``, each R-unit's sum as the trainer read it (noise
        included) at each presentation; None otherwise.
    mistakes_per_epoch_ : array (epochs,)
        Presentations answered wrongly in each epoch.
    waited_ : float
        Seconds of machine time the cards waited for the motors.

    Examples
    --------
    Eight 20 x 20 cards, a black bar down or across at a random place, five epochs on
    the small machine:

    >>> import numpy as np
    >>> from mark1.specs import SMALL
    >>> rng = np.random.default_rng(0)
    >>> cards, labels = np.ones((8, 20, 20)), ["down", "across"] * 4
    >>> for k, at in enumerate(rng.integers(3, 15, size=8)):
    ...     if labels[k] == "down":
    ...         cards[k, :, at:at + 3] = 0.0
    ...     else:
    ...         cards[k, at:at + 3, :] = 0.0
    >>> m = MarkI(spec=SMALL, seed=0).fit(cards, labels, epochs=5)
    >>> len(m.history_), m.mistakes_per_epoch_.tolist()
    (40, [1, 4, 2, 0, 0])
    >>> m.score(cards, labels)
    1.0
    >>> m.predict(cards[:2]).tolist()
    ['down', 'across']
    """

    def __init__(self, *, spec: MachineSpec = MARK_I, seed: int | None = None,
                 noise_seed: int | None = None, trace: str = "summary", fast: bool = True,
                 epochs: int = 1, order: str = "cyclic") -> None:
        self.spec = spec
        self.seed = seed
        self.noise_seed = noise_seed
        self.trace = trace
        self.fast = fast
        self.epochs = epochs
        self.order = order

    # -- building the parts (on first use) ----------------------------------------------
    def _streams(self) -> dict[str, np.random.SeedSequence]:
        key = (self.spec, self.seed, self.noise_seed)
        if getattr(self, "_built_for", key) != key:
            # spec or seeds were changed after the parts were built: build them again
            for attr in ("_seedseq", "_children", "_retina", "_patchboard"):
                self.__dict__.pop(attr, None)
        if not hasattr(self, "_seedseq"):
            if not isinstance(self.spec, MachineSpec):
                raise InputError(f"spec: expected a mark1.specs.MachineSpec, got {type(self.spec).__name__}")
            if self.seed is not None and (not isinstance(self.seed, (int, np.integer)) or self.seed < 0):
                raise InputError(f"seed: expected a non-negative integer or None, got {self.seed!r}")
            self._seedseq = np.random.SeedSequence(self.seed)
            self.seed_ = self._seedseq.entropy
            children = dict(zip(_STREAMS, self._seedseq.spawn(len(_STREAMS))))
            if self.noise_seed is not None:
                children["noise"] = np.random.SeedSequence(self.noise_seed)
            self._children = children
            self._built_for = key
        return self._children

    def _rng(self, stream: str) -> np.random.Generator:
        return np.random.default_rng(self._streams()[stream])

    @property
    def retina(self) -> Retina:
        """The camera and S-units, photocell spread drawn from the seed (built on first use)."""
        self._streams()
        if not hasattr(self, "_retina"):
            sens = Retina.sensitivity_spread(self.spec.retina, self._rng("photocells"))
            self._retina = Retina(self.spec.retina, sens)
        return self._retina

    @property
    def patchboard(self) -> Patchboard:
        """The random wiring from S- to A-units, drawn from the seed (built on first use)."""
        self._streams()
        if not hasattr(self, "_patchboard"):
            self._patchboard = Patchboard.random(self.spec.patchboard, self.spec.retina.shape, self._rng("wiring"))
        return self._patchboard

    @patchboard.setter
    def patchboard(self, board: Patchboard) -> None:
        """Plug a given wiring chart (e.g. ``Patchboard.load(...)``) into this machine."""
        if not isinstance(board, Patchboard):
            raise InputError(f"patchboard: expected a Patchboard, got {type(board).__name__}")
        board.check_fits(self.spec.patchboard, self.spec.retina.shape)
        self._streams()
        self._patchboard = board

    # -- the sensory side ------------------------------------------------------------------
    def _check_cards(self, cards, name="cards") -> np.ndarray:
        self._streams()                                  # validates spec and seed first
        cards = np.asarray(cards)
        rows, cols = self.spec.retina.shape
        if cards.ndim != 3 or cards.shape[1] < rows or cards.shape[2] < cols:
            raise InputError(f"{name}: expected an array of shape (n, H, W) with H >= {rows}, W >= {cols}, "
                             f"got shape {cards.shape}")
        if not np.issubdtype(cards.dtype, np.number) or np.issubdtype(cards.dtype, np.complexfloating):
            raise InputError(f"{name}: expected real reflectance values, got dtype {cards.dtype}")
        if cards.dtype == np.uint8:          # 8-bit reflectance x 255 (a large deck): no float copy
            if len(cards) == 0:
                raise InputError(f"{name}: expected at least one card, got none")
            if cards[0].max() <= 1 and cards.max() <= 1:     # (the first card settles most decks)
                raise InputError(f"{name}: uint8 cards are 8-bit reflectance (0 black, 255 paper white), "
                                 f"but these hold only 0 and 1; pass cards.astype(float) if 1 means white")
            return cards
        cards = cards.astype(float, copy=False)
        if not np.all(np.isfinite(cards)):
            raise InputError(f"{name}: expected finite reflectance values, found NaN or infinity")
        if cards.size and (cards.min() < 0 or cards.max() > 1):
            raise InputError(f"{name}: expected reflectance in [0, 1], got values in "
                             f"[{cards.min():g}, {cards.max():g}]")
        if len(cards) == 0:
            raise InputError(f"{name}: expected at least one card, got none")
        return cards

    def sense(self, cards: npt.ArrayLike) -> np.ndarray:
        """S-unit states when the cards are shown one after another on the nominal cycle.

        Starts from a dark-adapted retina; with photocell dynamics and light history on,
        each card's reading depends on the cards before it, as on the machine.

        Parameters
        ----------
        cards : array of shape (n, H, W), reflectance in [0, 1]

        Returns
        -------
        array of shape (n, n_s) bool
        """
        cards = self._check_cards(cards)
        return np.concatenate(list(self._sensed_chunks(cards)))

    def _sensed_chunks(self, cards):
        """S-unit states of the cards shown in order, a chunk of cards at a time.

        The photocells' state is carried from one chunk to the next, so a large deck is
        read with memory for one chunk, not for every card's photocell history.
        """
        t = self.spec.timing
        state = RetinaState.dark(self.retina.n_cells)
        for lo in range(0, len(cards), limits.SENSE_CHUNK):
            light = self.retina.light(cards[lo:lo + limits.SENSE_CHUNK])
            lit = np.full(len(light), t.period - t.card_change)
            s, state = self.retina.sense_sequence(light, np.arange(len(light)), lit, state,
                                                  card_change=t.card_change, settle=t.settle)
            yield s

    def associate(self, s_states: npt.ArrayLike) -> np.ndarray:
        """A-unit outputs φ: array (n, n_a) bool, from S-unit states (n, n_s) bool."""
        s = np.asarray(s_states)
        if s.ndim != 2 or s.shape[1] != self.patchboard.n_sensors or s.dtype != bool:
            raise InputError(f"s_states: expected a bool array of shape (n, {self.patchboard.n_sensors}), "
                             f"got {s.dtype} {s.shape}")
        return self.patchboard.associate(s)

    # -- training --------------------------------------------------------------------------
    def fit(self, cards: np.ndarray, labels: npt.ArrayLike, *, epochs: int | None = None, order: str | None = None,
            progress: bool = False, env: simpy.Environment | None = None,
            on_event: Callable[[float, str, int, str], object] | None = None) -> MarkI:
        """Train the machine: present the cards, epoch after epoch, with the trainer on.

        Parameters
        ----------
        cards : array of shape (n, H, W)
            Reflectance in [0, 1], H, W >= the retina's size.
        labels : array of shape (n,)
            Any labels (ints, strings); at least two classes.
        epochs : int, optional
            Passes over the cards (default: the machine's ``epochs``).
        order : {"cyclic", "shuffled"}, optional
            Cards in the given order every epoch, or a fresh permutation per epoch drawn
            from the run's order stream (default: the machine's ``order``).
        progress : bool
            Show a progress bar (tqdm, when installed and on a terminal).
        env : simpy.Environment, optional
            E.g. ``simpy.rt.RealtimeEnvironment(factor=0.01, strict=False)`` to replay the
            training in (scaled) real time.
        on_event : callable, optional
            Called as ``on_event(time, event, presentation, detail)`` for every event as
            it is logged (keeps the full trace), in order: with ``env``, each when SimPy's
            clock reaches its time; without, a block of presentations' events as the
            block is run.

        Returns
        -------
        self
        """
        # the wiring (a byte a socket) and the A-units' states (a byte a card), before any is made
        self._streams()                    # the spec checked first (a wrong type is an InputError naming it)
        check_runnable(self.spec, "spec.")
        n_a, (rows, cols) = self.spec.patchboard.n_associators, self.spec.retina.shape
        limits.check_allocation(rows * cols * n_a + len(cards) * n_a if hasattr(cards, "__len__") else 0,
                                "spec.patchboard.n_associators", f"{n_a:,} A-units on a {rows}x{cols} retina")
        run = self._prepare(cards, labels, epochs, order)
        cards, label_index, code, schedule, epoch_of, rack = (run.cards, run.label_index, run.code,
                                                              run.schedule, run.epoch_of, run.rack)
        if self.trace not in Trace.LEVELS:
            raise InputError(f"trace: expected one of {', '.join(Trace.LEVELS)}, got {self.trace!r}")
        self.classes_, self.code_ = run.classes, code
        retina = self.retina
        n_cells = retina.n_cells
        kept = len(cards) * n_cells * 8 <= limits.LIGHT_KEPT_BYTES
        trace = Trace("full" if on_event is not None else self.trace, listener=on_event)
        # a deck whose light is kept is imaged before the first card; a larger one a block at a
        # time, and the ideal machine's a chunk at a time as it senses them (the same bits: each
        # card is imaged on its own), never a whole deck's light at once
        light: np.ndarray | _DeckLight = (retina.light(cards) if kept and not self._ideal(trace, env)
                                          else _DeckLight(retina, cards))
        self._noise_rng = self._rng("noise")

        bar = progress_bar(len(schedule), "card", show=progress)
        with one_blas_thread():
            result = self._train(light, schedule, epoch_of, label_index, code, rack, trace, env, bar)
        bar.close()
        self._check_lms_step(result.history)
        self.rack_ = rack
        self._fitted_for = (self.spec, self.seed, self.noise_seed)
        self.history_ = result.history
        self.machine_time_ = result.machine_time
        self.trace_ = result.trace
        self.read_sums_ = result.sums
        self.mistakes_per_epoch_ = result.mistakes_per_epoch
        self.waited_ = result.waited
        return self

    def _ideal(self, trace: Trace, env) -> bool:
        """Whether a fit takes the fast ideal path: exact for the textbook perceptron only (α,
        corrective, bivalent, Σ); the other value systems take the event simulation, exact too."""
        tr = self.spec.trainer
        textbook = (tr.rule == "alpha" and tr.reinforcement == "corrective" and tr.valence == "bivalent"
                    and self.spec.response.discrimination == "sum")
        return self.fast and self.spec.is_ideal and textbook and not trace.full and env is None

    def _train(self, light, schedule, epoch_of, label_index, code, rack, trace, env, bar) -> _RunResult:
        """The fast ideal path where it applies, else the event simulation."""
        if self._ideal(trace, env):
            result = self._fit_ideal(light, schedule, epoch_of, label_index, code, rack, trace)
            bar.update(len(schedule))
        else:
            result = _simulate(spec=self.spec, retina=self.retina, patchboard=self.patchboard, rack=rack,
                               light=light, schedule=Presentations(schedule, epoch_of, label_index),
                               code=code, noise_rng=self._noise_rng, trace=trace, env=env, progress=bar.update)
        return result

    def _prepare(self, cards, labels, epochs=None, order=None) -> SimpleNamespace:
        """Everything a training run needs before its first card: checked cards and labels,
        the output code (with the tie rule), the schedule, and the rack with its motors.

        The seed streams are drawn here in a fixed order (order, then motors), after the
        parts (wiring, photocells), so a run depends only on the seeds.
        """
        epochs = self.epochs if epochs is None else epochs
        order = self.order if order is None else order
        cards = self._check_cards(cards)
        labels = np.asarray(labels)
        if labels.ndim != 1 or len(labels) != len(cards):
            raise InputError(f"labels: expected one label per card ({len(cards)}), got shape {labels.shape}")
        if labels.dtype.kind == "f" and not np.all(np.isfinite(labels)):
            raise InputError("labels: expected finite labels, found NaN or infinity")
        if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise InputError(f"epochs: expected a positive integer, got {epochs!r}")
        if order not in ("cyclic", "shuffled"):
            raise InputError(f"order: expected 'cyclic' or 'shuffled', got {order!r}")
        # the schedule (and each presentation's epoch), 16 bytes a presentation, before it is made
        limits.check_allocation(16 * len(cards) * int(epochs), "epochs",
                                f"a schedule of {int(epochs):,} passes over {len(cards):,} cards")
        try:
            classes, label_index = np.unique(labels, return_inverse=True)
        except TypeError:           # labels that cannot be ordered together (numbers beside text, ...)
            kinds = sorted({type(v).__name__ for v in labels.tolist()})
            raise errors.InputTypeError(f"labels: expected labels of one kind that sort (all numbers or all "
                                        f"strings), got {', '.join(kinds[:5])}") from None
        if len(classes) < 2:
            raise InputError(f"labels: expected at least 2 classes, got only {classes.tolist()}")
        n_inputs = self.patchboard.n_associators + 1
        mean = self.spec.response.discrimination == "mean"
        # a mean's tie zone is a sum's divided by its count: that of one pot
        code = OutputCode(classes, self.spec.response,
                          tie=tie_tolerance(self.spec.trainer.increment, 1 if mean else n_inputs))
        if mean and code.kind in ("binary", "bits"):
            raise InputError(f"response.discrimination: 'mean' cannot go with response.code = "
                             f"{self.spec.response.code!r}, which codes these {len(classes)} classes in binary on "
                             f"{self.spec.response.n_responses} R-units (use 'one-per-class' with more R-units)")
        n = len(cards)
        order_rng = self._rng("order")
        if order == "cyclic":
            schedule = np.tile(np.arange(n), epochs)
        else:
            schedule = np.concatenate([order_rng.permutation(n) for _ in range(epochs)])
        gains = PotentiometerRack.motor_gains(self.spec.rack, (code.n_units, n_inputs), self._rng("motors"))
        rack = PotentiometerRack(self.spec.rack, code.n_units, n_inputs, self.spec.response.n_responses, gains,
                                 device_seed=self._streams()["motors"], noise_seed=self._streams()["noise"])
        return SimpleNamespace(cards=cards, classes=classes, label_index=label_index, code=code,
                               schedule=schedule, epoch_of=np.repeat(np.arange(epochs), n), rack=rack)

    def _check_lms_step(self, history) -> None:
        """Warn when the LMS step is past Widrow and Hoff's stability limit.

        One LMS step changes a sum by ``lms_rate * (active pots) * (t - s)``; beyond
        ``lms_rate * active > 2`` it overshoots the target by more than it corrects, so
        the sums oscillate instead of settling.
        """
        tr = self.spec.trainer
        if tr.rule != "lms" or not len(history):
            return
        active = int(history["a_active"].max()) + int(self.spec.rack.bias)     # + the bias pot
        if self.spec.response.discrimination == "mean":
            active = 1                      # a mean moves by lms_rate * (t - s) however many pots move
        if tr.lms_rate * active > 2:
            warnings.warn(f"trainer.lms_rate: {tr.lms_rate:g} x {active} active pots = "
                          f"{tr.lms_rate * active:.3g} > 2, so the LMS steps overshoot and the sums "
                          f"oscillate; use lms_rate < {2 / active:.3g}", LMSStepWarning, stacklevel=3)

    def _fit_ideal(self, light, schedule, epoch_of, label_index, code, rack, trace) -> _RunResult:
        """The textbook digital perceptron on the same φ, vectorized and exact.

        With every non-ideality off, the photocells are instant and adaptation-free,
        so φ of a card is the same at every presentation; wipers start at 0, move
        instantly and without bounds. Starting from zero, error correction with
        increment δ makes exactly the decisions of η = 1 with all sums scaled by δ, so
        the integer-valued η = 1 run is computed and scaled. Its sums are exact; the
        event simulation adds the increments in floating point, and the tie rule
        (:mod:`mark1.rules`) makes both decide alike.
        """
        tm = self.spec.timing
        s_states = np.concatenate([self.retina.fire(self.retina.steady_signal(light[lo:lo + limits.SENSE_CHUNK]))
                                   for lo in range(0, len(light), limits.SENSE_CHUNK)])
        phi, s_active, a_active = self.patchboard.associate(s_states, counted=True)   # counted as tallied
        targets = code.targets[label_index].astype(float)
        n, n_pres = len(phi), len(schedule)
        epochs = n_pres // n
        inc = self.spec.trainer.increment
        tie = code.tie / inc                      # the tie zone in units of increments
        # each unit trained on its own inputs (its A-units' outputs, then its bias), read off φ
        r, active_pots = train_on_outputs(phi, rack.mask, targets, epochs=epochs, order=schedule.reshape(epochs, n),
                                          tie=tie)
        weights, sums = r.weights, r.sums
        rack.p_from[:] = rack.p_to[:] = weights * inc
        sums = sums * inc
        err = erring(targets[schedule], sums, code.tie)
        hist = history(epoch_of=epoch_of, order=schedule, labels=label_index[schedule], response=code.decode(sums),
                       units_erred=err.sum(axis=1), pots_moved=(err * active_pots[schedule]).sum(axis=1),
                       start=np.arange(n_pres) * tm.period, s_active=s_active[schedule], a_active=a_active[schedule])
        return _finish(hist, n_pres * tm.period, trace, 0.0)

    # -- answering ---------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "rack_"):
            raise errors.NotFittedError("this MarkI has not been trained yet: call fit(cards, labels) first")
        if self._fitted_for != (self.spec, self.seed, self.noise_seed):
            # the wiring the weights were learnt on is gone: answering would be wrong, not noisy
            raise errors.NotFittedError("this MarkI's spec or seed changed after fit (set_params): "
                                        "call fit(cards, labels) again")

    def __sklearn_is_fitted__(self) -> bool:
        """Whether ``fit`` has run (scikit-learn's ``check_is_fitted`` asks this)."""
        return hasattr(self, "rack_")

    def __sklearn_tags__(self):
        """scikit-learn's estimator tags (imports scikit-learn; only its tools call this).

        A classifier of cards, arrays of shape (n, H, W) with class labels; no sparse
        input, no NaN. Randomness comes from ``seed``, so same seed, same answers.
        """
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(multi_class=True),
                    input_tags=InputTags(two_d_array=False, three_d_array=True, sparse=False,
                                         allow_nan=False))

    def decision_function(self, cards: npt.ArrayLike) -> np.ndarray:
        """R-unit sums for each card (wipers at rest, with read noise): array (n, n_units).

        With ``response.discrimination = "mean"`` each sum is divided by the unit's active
        inputs (the μ-system's means).

        The cards are shown in the order given, from a dark-adapted retina (see
        :meth:`sense`): with photocell dynamics and light history on, a card's reading
        depends on the cards shown before it, as on the machine, so reordering the
        cards can change a borderline answer.

        Read noise follows the card. Every sum carries wiper read noise, as an analog
        read does, but a scoring call does not take it from the training stream: each
        card's noise is drawn from its own ``SeedSequence``, a child of the machine's
        read-noise stream (``noise_seed`` or the stream of ``seed``) keyed by a hash of
        the card's values. So the same machine asked about the same card answers the
        same way, whenever it is asked; its noise is the same whatever other cards
        share the call (a batch, its order or a single card; the sums may then differ
        in the last bit of a matrix product, and with photocell dynamics on the
        readings still depend on the cards shown before); another card, another seed or another
        ``noise_seed`` draws other noise; training never touches this stream, so
        scoring leaves ``fit`` bit for bit. Keying the noise by the card rather than
        by its place in the call is what makes ``predict(X)[i] == predict(X[i:i+1])``;
        the price is one small generator per card (about 30 µs).

        Parameters
        ----------
        cards : array of shape (n, H, W)
            Reflectance in [0, 1] (or 8-bit, uint8), H and W at least the retina's.

        Returns
        -------
        array of shape (n, n_units)
            R-unit sums in full-scale wiper units (means with ``"mean"``).

        Examples
        --------
        >>> import numpy as np
        >>> from mark1.machine.mark_i import MarkI
        >>> from mark1.specs import SMALL
        >>> rng = np.random.default_rng(0)
        >>> cards = rng.random((6, *SMALL.retina.shape))
        >>> m = MarkI(spec=SMALL, seed=0).fit(cards, [0, 1, 0, 1, 0, 1], epochs=2)
        >>> sums = m.decision_function(cards)
        >>> sums.shape
        (6, 1)
        >>> bool(np.array_equal(m.decision_function(cards), sums))      # asked again: same answer
        True
        """
        self._check_fitted()
        cards = self._check_cards(cards)
        noise = self.spec.rack.wiper_noise
        weights, mask = self.weights_.T, self.rack_.mask.T.astype(float)
        mean = self.spec.response.discrimination == "mean"
        sums, counts = [], []
        pcm = self._pcm_reads(cards) if self.rack_.reads_noisy else None
        for s_states in self._sensed_chunks(cards):            # memory for one chunk of cards
            x = with_bias(self.associate(s_states))
            if pcm is not None:                                # each card reads its own noisy wipers
                sums.append(np.stack([row @ next(pcm) for row in x]))
            else:
                sums.append(x @ weights)
            if noise > 0 or mean:
                counts.append(x @ mask)                        # active pots of each unit
        out = np.concatenate(sums)
        if noise > 0:                                          # sigma * sqrt(active pots) per unit
            out = out + noise * np.sqrt(np.concatenate(counts)) * self._scoring_noise(cards, out.shape[1])
        if mean:                                               # μ-system: the mean of the active inputs
            out = out / np.maximum(np.concatenate(counts), 1.0)
        if self.rack_.adc is not None:                         # the R-unit's read: bound, resolution
            out = read_out_array(out, self.rack_.adc)
        return out

    def _scoring_noise(self, cards, n_units) -> np.ndarray:
        """Standard normal read noise (n, n_units), each card's row drawn from the card itself.

        The seed of a card's row is the read-noise stream's child ``(_SCORING, hash of the
        card)``: training reads that stream directly and never spawns from it.
        """
        noise = np.empty((len(cards), n_units))
        for i, card in enumerate(cards):
            noise[i] = self._card_rng(card, _SCORING).standard_normal(n_units)
        return noise

    def _card_rng(self, card, tag: int) -> np.random.Generator:
        """A generator seeded by the card itself: the read-noise stream's child ``(tag, hash of the card)``."""
        root = self._streams()["noise"]
        if card.dtype != np.float64:      # the reflectance decides the seed, not its dtype: 8-bit k is k / 255
            card = card.astype(np.float64) / 255.0 if card.dtype == np.uint8 else card.astype(np.float64)
        digest = hashlib.blake2b(card.tobytes(), digest_size=16)
        digest.update(f"{card.dtype.str}{card.shape}".encode())
        key = (*root.spawn_key, tag, int.from_bytes(digest.digest(), "little"))
        return np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=key))

    def _pcm_reads(self, cards):
        """Each card's wipers as its read sees them, with the 1/f read noise (``rack.read_noise_scale``):
        arrays (n_inputs, n_units), one a card in order, each card's standard normal numbers drawn
        from the card itself (child ``(_SCORING_PCM, hash of the card)``), at the machine's time."""
        rack, t = self.rack_, self.machine_time_
        for card in cards:
            yield rack.read_positions(t, self._card_rng(card, _SCORING_PCM).standard_normal(rack.mask.shape)).T

    def predict(self, cards: npt.ArrayLike) -> np.ndarray:
        """Labels (from ``classes_``) the machine answers for each card: array (n,).

        Cards are shown in the order given (see :meth:`decision_function`).
        """
        self._check_fitted()
        return self.classes_[self.code_.decode(self.decision_function(cards))]

    def score(self, cards: npt.ArrayLike, labels: npt.ArrayLike) -> float:
        """Fraction of cards answered correctly."""
        labels = np.asarray(labels)
        pred = self.predict(cards)
        if labels.shape != pred.shape:
            raise InputError(f"labels: expected one label per card ({len(pred)}), got shape {labels.shape}")
        return float(np.mean(pred == labels))

    @property
    def weights_(self) -> np.ndarray:
        """Wiper positions at rest after training: array (n_units, n_a + 1), bias last."""
        self._check_fitted()
        return self.rack_.positions(self.machine_time_)

    def _is_fitted(self) -> bool:
        return hasattr(self, "rack_") and self._fitted_for == (self.spec, self.seed, self.noise_seed)

    def __repr__(self) -> str:
        # the repr of a machine not yet checked (spec="junk", a wrong seed) must not raise
        name = getattr(self.spec, "name", None)
        spec = repr(name) if isinstance(name, str) else errors.bounded(repr(self.spec), 40)
        head = f"MarkI(spec={spec}, seed={errors.bounded(repr(self.seed), 40)}"
        if not self._is_fitted():
            return head + ")"
        last = int(self.mistakes_per_epoch_[-1]) if len(self.mistakes_per_epoch_) else 0
        return (head + f"; fitted: {len(self.classes_)} classes, {len(self.history_)} presentations, "
                f"{last} mistake{'' if last == 1 else 's'} in the last epoch)")[:120]

    def _repr_html_(self) -> str:
        """The machine, and once trained what it did: a table and its learning curve (PNG)."""
        rows = [("machine", self.spec.name), ("seed", repr(self.seed)),
                ("A-units", self.spec.patchboard.n_associators), ("R-units", self.spec.response.n_responses)]
        if not self._is_fitted():
            rows.append(("trained", "not yet: call fit(cards, labels)"))
            return html_table(("MarkI", ""), rows, left=(0, 1)) + self.spec._repr_html_()
        n_r, in_use = self.spec.response.n_responses, self.code_.n_units
        rows[-1] = ("R-units", f"{in_use} in use of {n_r}" if in_use != n_r else n_r)
        rows += [("classes", ", ".join(map(str, self.classes_))),
                 ("answer", self.code_.describe()),
                 ("presentations", len(self.history_)),
                 ("mistakes per epoch", " ".join(map(str, self.mistakes_per_epoch_.tolist()))),
                 ("machine time", duration(self.machine_time_)),
                 ("cards waited for the motors", duration(self.waited_))]
        page = html_table(("MarkI", ""), rows, left=(0, 1)) + self.spec._repr_html_()
        draw = figure_function("MarkI")             # mark1.viz.training.learning_curve, named by mark1/__init__
        if draw is not None:
            page += figure_img(draw(self.history_, title=f"{self.spec.name}, seed {self.seed}"),
                               alt="learning curve")
        return page
