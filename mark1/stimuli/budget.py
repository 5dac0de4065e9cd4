"""What a command on a scene will hold, estimated before any card is drawn: memory, work and time.

Every command checks :meth:`Scene.resources <mark1.stimuli.scenes.Scene.resources>`
against :func:`mark1._utils.limits.memory_limit` before work and says so when the work
is long. The bytes reckoned are those the program really keeps, stage by stage, and the
peak is the largest stage on top of what stays held:

- the decks: 8 bytes a pixel, or 1 for a deck kept as 8-bit reflectance, and the
  float64 chunk being drawn (:mod:`mark1.stimuli.decks`);
- the wiring: the chart and its C-ordered copy (int8, one byte a socket each), also
  while it is plugged; the rack: the pots' state (:data:`RACK_BYTES_PER_POT`);
- training: the light of the deck when it is kept (float64 per cell), else a block of
  presentations imaged and associated at a time (:data:`SENSED_BLOCK`: light, S-units,
  the A-unit outputs as float64 pot inputs); the ideal machine's fast path holds every
  card's A-unit outputs as float64; per presentation the history, the schedule and the
  simulator's arrays, and with the full trace (``run --trace full``, ``explain``,
  ``lesson``) every event, reading and move; ``lesson`` its page besides;
- scoring: a chunk of :data:`~mark1._utils.limits.SENSE_CHUNK` cards at a time;
- ``compare``: the textbook classifiers on float64 copies of S (and φ), with their d x d
  matrices (:data:`CLASSIFIER_COPIES`, :data:`CLASSIFIER_SQUARES`);
- ``reenact``: least squares on φ (float64, with its copies) besides the runs.

Each part is keyed by the scene key that makes it grow: a count for what is kept per
card, ``schedule.epochs`` for what is kept per presentation, the retina's shape and the
A-units for what is held per cell or unit (a chunk or a block of cards at a time, or a
d x d matrix), so that a refusal names what to change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


from mark1._utils.limits import BASE_RESIDENT, LIGHT_KEPT_BYTES, SENSE_CHUNK, lesson_deck
from mark1.stimuli.decks import _deck_bytes, _drawing_bytes

__all__ = ["Resources", "RATES", "COMMANDS"]

#: Per-second rates behind :attr:`Resources.seconds`, measured on the development machine
#: (2 cores shared with other work): card pixels rendered, A-units wired, presentations
#: simulated (their fixed cost) and pots updated.
RATES = {"pixels": 2e6, "a_units": 1e4, "presentations": 5e3, "pot_updates": 2e7}

#: Seconds behind :attr:`Resources.python_seconds`, with the machine's loops run as Python
#: (uncompiled): a card presented or scored costs ``card`` plus ``a_unit`` an A-unit, ``cell``
#: a photocell and ``pixel`` a pixel of the card imaged. Fitted, to err long, to CPU times on
#: the 2-core development machine: SMALL 8 ms a card (64 A-units, 20 x 20 cells, 40 x 40
#: cards), MARK_I 21-31 ms (512), 2,000 A-units 79 ms, 80 x 80 cards 19 ms, 40 x 40 cells
#: 47 ms, 60 x 60 cells 99 ms; the R-units in use change it little (8 classes: 25 ms).
PYTHON_COSTS = {"card": 0.002, "a_unit": 37e-6, "cell": 25e-6, "pixel": 2.4e-6}

#: The commands a budget is reckoned for.
COMMANDS = ("run", "render", "explain", "lesson", "compare", "ablate", "curves", "sweep", "reenact", "device")

#: Presentations the event simulation images and associates at a time.
SENSED_BLOCK = 256
#: Bytes a pot holds in the rack: its gain, positions, times (float64), mask and last
#: direction, and the float64 temporaries of a move over every pot.
RACK_BYTES_PER_POT = 80
#: float64 arrays of a chunk's light at once while the photocells are exposed and read
#: (6 measured by tracemalloc, 7 in resident memory).
LIGHT_COPIES = 7
#: Per presentation: the history row (55), schedule and epoch (16), the simulator's
#: arrays (~30) and, for ``run``, the row of ``trace.csv`` as Python objects and text.
PER_PRESENTATION = 110
CSV_PER_PRESENTATION = 600
#: The full trace per presentation: its events and reading (~2.5 kB measured) and, per
#: connected pot, the lit pots read and moved (4.4-5.7 kB measured at ~500 pots; 17.9 bytes
#: a pot at 100,000 A-units, 13 % lit). While a block of presentations is logged, per
#: presentation and A-unit: the block's pot inputs copied, which are lit, and their indices
#: as int64 pairs (27 bytes measured at 13 % lit; a million A-units asked 602 MiB for 20).
FULL_PER_POT = 24
FULL_LOG_PER_A_UNIT = 48
FULL_PER_PRESENTATION = 2500
#: The lesson page per presentation (Python records and their JSON), by R-unit and by
#: connected pot: 26.6 kB measured at 1 R-unit of 513 pots (e_vs_x), 53.5 kB at 5 R-units
#: of 65 pots (alphabet, split rack); and per A-unit, its wiring lists.
LESSON_PER_PRESENTATION = 6500
LESSON_PER_UNIT = 8000
LESSON_PER_POT = 20
LESSON_PER_A_UNIT = 600
#: What a command holds beyond the base whatever the sizes: the lesson's page template and
#: device figures (``lesson scenes/e_vs_x.toml --epochs 1``: 225 MiB peak, ``run scenes/demo.toml`` 210 MiB).
EXTRA_BASE = {"lesson": 24 * 2**20}
#: A contact sheet's figure per card (three panels).
SHEET_PER_CARD = 2**20
#: The textbook classifiers' peak while fitting and scoring, in float64 copies of their
#: training matrix (n x d: centred, with the bias, an SVD's factors) and of d x d matrices
#: (scatter, covariance, its eigenvectors, LAPACK workspace). Measured by tracemalloc
#: (n = 2,000-8,000, d = 100-800): least squares about n d + 3 d^2, Fisher and the Gaussian
#: 2.0-2.2 n d, logistic regression at most 2.4 n d; LAPACK's workspace is not traced.
CLASSIFIER_COPIES = 2.5
CLASSIFIER_SQUARES = 3
#: The Mark I's photocells (20 x 20).
_MARK_I_CELLS = 400
#: Cards a contact sheet draws at most (12 a class, 60 classes), and the copies of each
#: card's light it draws with.
SHEET_CARDS = 720


@dataclass(frozen=True)
class Resources:
    """What a command on a scene will hold and do, estimated before any card is drawn.

    Attributes
    ----------
    memory : int
        Peak resident bytes of the command, the interpreter and its libraries included
        (:data:`~mark1._utils.limits.BASE_RESIDENT`); for a lab command, of one job.
    parts : dict of str to int
        Bytes by cause, keyed by the scene key that makes them grow.
    presentations : int
        Cards shown while training (epochs x training cards; a lab job's longest run).
    pot_updates : int
        presentations x pots: the machine's work.
    seconds : float
        Rough wall time: rendering, wiring and presentations at the rates of
        :data:`RATES` (measured on a loaded 2-core machine; the order of magnitude only).
    python_seconds : float
        About the seconds (erring long) the machine's part takes with its loops run as Python,
        uncompiled (:data:`PYTHON_COSTS`, by the cards presented and scored, the A-units, the
        photocells and the cards' pixels): weighed against compiling them on a cold cache
        (:func:`mark1._utils.compiled.python_when_cold`).
    command : str
        The command reckoned, one of :data:`COMMANDS`.
    notes : dict of str to str
        What each part is, in words (for the line that refuses a run).

    Examples
    --------
    >>> from mark1.stimuli import load_scene
    >>> res = load_scene("scenes/demo.toml").resources()
    >>> res.presentations                       # 5 epochs x 40 training cards
    200
    >>> res.largest(), sorted(res.parts)
    ('train.count', ['machine.overrides.patchboard.n_associators', 'test.count', 'train.count'])
    >>> res.memory > sum(res.parts.values())          # + the interpreter and its libraries
    True
    >>> big = load_scene("scenes/demo.toml").resources(command="compare", overrides={"retina.shape": (512, 512)})
    >>> big.largest(), f"{big.parts[big.largest()] / 1e9:.0f} GB"   # the baselines' 262,144^2 covariances
    ('retina.shape', '1650 GB')
    """

    memory: int
    parts: dict
    presentations: int
    pot_updates: int
    seconds: float = 0.0
    command: str = "run"
    notes: dict = field(default_factory=dict)
    python_seconds: float = 0.0

    def largest(self) -> str:
        """The key whose part of the memory is largest."""
        return max(self.parts, key=self.parts.__getitem__)


class _Parts:
    """Bytes by key, with what each is."""

    def __init__(self):
        self.bytes: dict[str, int] = {}
        self.notes: dict[str, list[str]] = {}

    def add(self, key: str, nbytes: float, note: str) -> None:
        nbytes = int(max(0.0, nbytes))
        self.bytes[key] = self.bytes.get(key, 0) + nbytes
        if nbytes:
            self.notes.setdefault(key, []).append(note)


def _card_counts(scene, train_count: int | None, test_count: int | None) -> dict[str, tuple[int, int]]:
    """(cards, card side) of each split: as asked, as the scene says, every image of a folder, or 100."""
    counts = {}
    for split, given in (("train", train_count), ("test", test_count)):
        st = scene.settings[split]
        if given is not None:
            n = int(given)
        elif st.count is not None:
            n = st.count
        elif st.source == "folder":
            n = len(scene._folder(st)[1])
        else:
            n = 100
        counts[split] = (n, st.card_size)
    return counts


def _scoring(n: int, cells: int, n_a: int, n_units: int) -> int:
    """Bytes of scoring (or sensing) ``n`` cards a chunk at a time: light, photocell signals and
    states (float64 per cell) and S-units of two chunks (the sensing generator holds the last
    chunk's while it reads the next), φ and the pots' float64 inputs of one; per card its
    sums, active pots and read noise."""
    return (min(n, 2 * SENSE_CHUNK) * cells * (8 * LIGHT_COPIES + 1) + min(n, SENSE_CHUNK) * 9 * (n_a + 1)
            + n * 24 * n_units)


def _estimate(scene, *, train_count: int | None = None, test_count: int | None = None, trace: str = "summary",
              command: str = "run", epochs: int | None = None, overrides: Mapping | None = None,
              learners=None, lesson_cards: int | None = None) -> Resources:
    """The :class:`Resources` of ``command`` on ``scene`` (what :meth:`Scene.resources` gives)."""
    spec = scene.machine_spec()
    if overrides:
        spec = spec.with_overrides(dict(overrides))
    rows, cols = spec.retina.shape
    cells, n_a = rows * cols, spec.patchboard.n_associators
    n_classes = len(scene._classes_of("train"))
    n_units = spec.response.code_for(max(2, n_classes))[1]      # the machine's own code
    pots = n_units * (n_a + 1)
    # the pots a unit can move: its own group of A-units on a split rack
    per_unit = n_a // spec.response.n_responses if spec.rack.topology == "split" else n_a
    if spec.rack.topology == "split-in-use":           # the A-units divided among the units in use
        per_unit = -(-n_a // n_units)
    connected = n_units * (per_unit + int(spec.rack.bias))
    counts = _card_counts(scene, train_count, test_count)
    n_tr, side_tr = counts["train"]
    n_te, side_te = counts["test"]
    epochs_given = epochs is not None
    epochs = scene.schedule.epochs if epochs is None else int(epochs)

    origin = scene.settings["train"].origin
    key_tr = origin.get("count", "train.count") if train_count is None else "--train-count"
    key_te = scene.settings["test"].origin.get("count", "test.count") if test_count is None else "--test-count"
    given = dict(overrides or {})

    def spec_key(name):
        return name if name in given else f"machine.overrides.{name}"      # a sweep's --param, or the scene's
    key_a = spec_key("patchboard.n_associators")
    # what is held per cell for a chunk of cards grows with the cards up to the Mark I's 20 x 20
    # retina, and with the retina beyond
    key_cells = spec_key("retina.shape") if cells > _MARK_I_CELLS else key_tr

    p = _Parts()
    full = trace == "full" or command in ("explain", "lesson")
    if command == "device":                    # a handful of pots and one photocell, whatever the spec
        n_tr = n_te = 0
    elif command == "render":                  # a contact sheet: a few cards a class, the retina's view
        n_tr, n_te = min(n_tr, 12 * n_classes, SHEET_CARDS), 0
        p.add(key_tr, _deck_bytes(n_tr, side_tr) + _drawing_bytes(n_tr, side_tr), "the cards on the sheet")
        p.add(key_cells, n_tr * cells * (8 * LIGHT_COPIES + 4 * 8), "their light and S-units drawn")
        p.add(key_tr, n_tr * SHEET_PER_CARD, "the sheet's panels")
    elif command == "lesson":                  # mark1 run's run, or cut as the lesson cuts it; every test card
        n_tr, epochs = lesson_deck(n_tr, scene.schedule.epochs, n_classes, n_units, lesson_cards,
                                   epochs if epochs_given else None)
        key_tr = "--cards" if lesson_cards is not None else key_tr
    elif command == "explain":
        n_te, epochs = 0, 1
    # what is kept per presentation grows with epochs x cards: keyed by the larger factor
    key_ep = ("--epochs" if command == "lesson" and epochs_given else "schedule.epochs") if epochs > n_tr else key_tr
    if command in ("render", "device"):
        presentations = 0
    else:
        presentations = epochs * n_tr
        p.add(key_tr, _deck_bytes(n_tr, side_tr), "the training deck")
        p.add(key_te, _deck_bytes(n_te, side_te), "the test deck")
        machine = _machine_run(p, command, spec, full, n_tr, n_te, (side_tr, side_te), presentations, cells, n_a,
                               n_units, (pots, connected), keys=(key_tr, key_te, key_ep, key_a, key_cells))
        if command == "compare":
            _baselines(p, learners, n_tr, n_te, cells, n_a, n_classes, keys=(key_tr, key_a, key_cells))
        elif command == "reenact":
            # least squares on φ: φ as float64 with the bias, a column subset and lstsq's copies
            p.add(key_tr, 3.5 * 8 * n_tr * (n_a + 1), "least squares on the A-unit outputs (float64)")
            p.add(key_a, 3 * 8 * min(n_tr, n_a + 1) ** 2, "least squares' square matrices (its SVD)")
        p.add(key_a, machine, "the wiring (two bytes a socket) and the pots")

    memory = BASE_RESIDENT + EXTRA_BASE.get(command, 0) + sum(p.bytes.values())
    pixels = n_tr * side_tr ** 2 + n_te * side_te ** 2
    pot_updates = presentations * pots
    seconds = (pixels / RATES["pixels"] + (n_a / RATES["a_units"] if presentations else 0.0)
               + presentations / RATES["presentations"] + pot_updates / RATES["pot_updates"])
    scored = (n_tr, n_te) if command in ("run", "lesson") else (0, 0)    # a run scores both decks after training
    card = PYTHON_COSTS["card"] + n_a * PYTHON_COSTS["a_unit"] + cells * PYTHON_COSTS["cell"]
    python = ((presentations + scored[0]) * (card + side_tr ** 2 * PYTHON_COSTS["pixel"])
              + scored[1] * (card + side_te ** 2 * PYTHON_COSTS["pixel"]))
    return Resources(memory=int(memory), parts=dict(p.bytes), presentations=int(presentations),
                     pot_updates=int(pot_updates), seconds=float(seconds), command=command,
                     notes={k: ", ".join(v) for k, v in p.notes.items()}, python_seconds=float(python))


def _machine_run(p: _Parts, command, spec, full, n_tr, n_te, sides, presentations, cells, n_a, n_units, pots,
                 keys) -> int:
    """Drawing, training and scoring on top of the decks; returns the machine's own bytes (wiring, rack)."""
    key_tr, key_te, key_ep, key_a, key_cells = keys
    pots, connected = pots
    # the wiring and its copy (while it is plugged, the chart being filled and no more) and the pots
    machine = 2 * cells * n_a + RACK_BYTES_PER_POT * pots
    lab = command in ("compare", "ablate", "curves", "sweep", "reenact")
    if lab:
        machine *= 2            # a job's next machine is built while the last one is still held
    # training: the event simulation (light kept or a block at a time) or, for the ideal
    # machine (a lab's ideal runs, the IBM 704), every card's φ and pot inputs at once
    # (a larger deck's light is imaged a block at a time; the budget still counts the bytes
    # it could have kept, at most 64 MiB, so that it never drops as the deck grows)
    light_kept = min(8 * cells * n_tr, LIGHT_KEPT_BYTES)
    block = min(n_tr, SENSED_BLOCK)
    # the simulator's sensed block and the one before it (held until the next is made): φ
    # and the pots' float64 inputs, 24 bytes a presentation and A-unit measured (40,000 A-units)
    events = {key_tr: light_kept, key_cells: 2 * block * cells * (8 * LIGHT_COPIES + 1),
              key_a: 3 * block * 9 * (n_a + 1)}
    ideal = {key_tr: light_kept + n_tr * (cells + 9 * (n_a + 1)), key_ep: presentations * 16 * n_units,
             key_cells: min(n_tr, SENSE_CHUNK) * cells * 8 * LIGHT_COPIES}
    if full:                           # logging a block of presentations' readings
        events[key_a] += block * FULL_LOG_PER_A_UNIT * (n_a + 1)
    training = ideal if (lab or spec.is_ideal) and sum(ideal.values()) > sum(events.values()) else events
    per_pres = PER_PRESENTATION + (CSV_PER_PRESENTATION if command == "run" else 0)
    if full:
        per_pres += FULL_PER_PRESENTATION + FULL_PER_POT * connected + 8 * n_units
    if command == "lesson":
        per_pres += LESSON_PER_PRESENTATION + LESSON_PER_UNIT * n_units + LESSON_PER_POT * connected
        p.add(key_a, LESSON_PER_A_UNIT * n_a + 8 * cells * n_a,
              "the lesson page's wiring lists and its float64 copy of the wiring (the perceptron criterion)")
        p.add(key_ep, 8 * (presentations + n_tr) * (n_a + 1), "the lesson's float64 phi of every presentation")
    p.add(key_ep, presentations * per_pres, "the record of every presentation" + (" (full trace)" if full else ""))
    stages = [("drawing the cards", {key_tr: _drawing_bytes(n_tr, sides[0])}),
              ("drawing the cards", {key_te: _drawing_bytes(n_te, sides[1])}),
              ("training", training)]
    if command != "explain":                   # the lesson senses and scores every test card too
        n = max(n_tr, n_te)
        per_cell = _scoring(n, cells, 0, n_units)
        stages.append(("scoring a chunk of cards", {key_cells: per_cell,
                                                    key_a: _scoring(n, cells, n_a, n_units) - per_cell}))
    # the largest transient stage rides on what stays held
    what, peak = max(stages, key=lambda s: sum(s[1].values()))
    for key, nbytes in peak.items():
        p.add(key, nbytes, what)
    return machine


def _baselines(p: _Parts, learners, n_tr, n_te, cells, n_a, n_classes, keys) -> None:
    """The textbook classifiers of ``compare``: float64 S (and φ) of both splits, and the
    largest classifier's copies and d x d matrices."""
    key_tr, key_a, key_cells = keys
    # every learner by default: the classifiers on S and on φ
    names = list(learners) if learners is not None else ["lstsq-S", "lstsq-phi"]
    others = [n for n in names if n not in ("mark1", "digital", "ideal")]
    if not others:
        return
    n = n_tr + n_te
    p.add(key_tr, n * cells * 9, "S of every card as float64 for the textbook classifiers")
    dims = [(cells, key_cells)]
    if any(name.endswith("-phi") for name in others):
        p.add(key_tr, n * (n_a + 1) * 9, "phi of every card as float64 for the textbook classifiers")
        dims.append((n_a, key_a))
    d, key = max(dims)
    p.add(key_tr, CLASSIFIER_COPIES * 8 * n_tr * d, "the textbook classifiers' copies of their inputs")
    p.add(key, CLASSIFIER_SQUARES * 8 * d * d + 8 * 4 * n_classes * d,
          f"the textbook classifiers' {d:,} x {d:,} matrices")
