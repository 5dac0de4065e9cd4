"""Scenes: one TOML file per experiment, the historical result it re-enacts, and its cards.

A scene file says what the cards look like (``[stimuli]``, with ``[train]`` and ``[test]``
free to differ), which machine sees them (``[machine]``: a preset of :mod:`mark1.specs`
plus overrides), how they are presented (``[schedule]``) and what was reported when
this was done before (``[reported]``). ``scenes/README.md`` documents every key.

>>> import mark1.scenes as scenes
>>> scene = scenes.load_scene("scenes/e_vs_x.toml")               # doctest: +SKIP
>>> train = scene.stimuli("train", seed=0)                         # doctest: +SKIP
>>> train.cards.shape, train.labels[:4], train.classes              # doctest: +SKIP
((20, 60, 60), array(['X', 'E', 'X', 'E'], dtype='<U1'), array(['E', 'X'], dtype='<U1'))

Every problem with a scene file raises :class:`SceneError`, a ``ValueError`` whose
message is one line ``<file>: <key path>: <what was expected, got what>``.

Randomness: ``stimuli(split, seed)`` draws from
``SeedSequence(seed, spawn_key=(STIMULI_STREAM, split_index))`` — a stream of its own,
independent of any stream another part of the program spawns from the same seed, and
different for train (index 0) and test (index 1).
"""

from __future__ import annotations

import dataclasses
import difflib
import errno
import math
import os
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from mark1 import specs
from mark1.stimuli import render
from mark1._utils.limits import LIGHT_KEPT_BYTES, SENSE_CHUNK
from mark1.machine.response import OutputCode
from mark1.exceptions import SceneError, printable

__all__ = [
    "SceneError",
    "Scene",
    "Resources",
    "Stimuli",
    "Schedule",
    "Reported",
    "Change",
    "StimulusSettings",
    "load_scene",
    "scene_from_dict",
    "shipped_scenes",
    "SCENES_DIR",
    "printable",
    "SOURCES",
    "SPLITS",
    "KEYS",
]

#: Where the scene files shipped with the repository live (may not exist when installed).
SCENES_DIR = Path(__file__).resolve().parents[2] / "scenes"
#: Kinds of card source.
SOURCES = ("characters", "shapes", "folder", "marks", "parity")
#: The two splits a scene describes.
SPLITS = ("train", "test")
#: spawn_key element reserved for stimuli streams (see module docstring).
STIMULI_STREAM = 0x5C3E

FORMAT_VERSION = 1
MAX_COUNT = 1_000_000
MAX_PIXELS = 250_000_000          # count × card_size², about 2 GB of float64 cards
MAX_CARD = 512
MAX_EPOCHS = 1_000_000
MAX_CLASSES = 1000
#: A deck whose float64 cards would take more bytes than this is stored as 8-bit reflectance,
#: rendered CHUNK_BYTES of float64 at a time (smaller decks are unchanged, bit for bit).
COMPACT_ABOVE = 256 * 2**20
CHUNK_BYTES = 32 * 2**20
#: spawn_key element of the seeds of a compact deck's chunks.
CHUNK_STREAM = 0xC4C
#: Per-second rates behind :attr:`Resources.seconds`, measured on the development machine
#: (2 cores shared with other work): card pixels rendered, A-units wired, presentations
#: simulated (their fixed cost) and pots updated.
RATES = {"pixels": 2e6, "a_units": 1e4, "presentations": 5e3, "pot_updates": 2e7}
MAX_SCENE_BYTES = 1_000_000       # the shipped scenes are ~2 kB; a larger file is not a scene
MAX_TEXT = 10_000                 # characters of a name, description or reported text
MAX_FONT_BYTES = 64_000_000       # the largest CJK fonts are ~20 MB
MAX_DEPTH = 8                     # nesting of tables; the deepest real key is 4 levels down


def _file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


class _Bad(Exception):
    """Raised by a checker: ``expected`` text; the caller adds the key and the value."""

    def __init__(self, expected: str, got: Any = dataclasses.MISSING, *, key_suffix: str = ""):
        self.expected = expected
        self.got = got
        self.key_suffix = key_suffix


# ----------------------------------------------------------------------------------------
# public data


@dataclass(frozen=True, eq=False)
class Stimuli:
    """The cards of one split.

    Attributes
    ----------
    cards : ndarray of shape (n_cards, H, W), float64 or uint8
        Reflectance in [0, 1]: 1 is paper white, 0 black ink. A deck larger than
        :data:`COMPACT_ABOVE` bytes of float64 is uint8, reflectance × 255 (rounded).
    labels : ndarray of shape (n_cards,), str
        The class of each card.
    classes : ndarray of shape (n_classes,), str
        The sorted unique labels.
    variation : dict of str to ndarray of shape (n_cards,)
        What was drawn for each card (see :class:`mark1.render.Rendered`).
    """

    cards: np.ndarray
    labels: np.ndarray
    classes: np.ndarray
    variation: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.labels)


@dataclass(frozen=True)
class Schedule:
    """How the cards are presented.

    Attributes
    ----------
    epochs : int
        Passes through the training cards.
    order : {"cyclic", "shuffled"}
        The cards in the order given (classes alternate), or reshuffled every epoch.
    rule : str or None
        Learning rule; when set, :meth:`Scene.machine_spec` applies it as ``trainer.rule``.
    """

    epochs: int = 10
    order: str = "cyclic"
    rule: str | None = None


@dataclass(frozen=True)
class Reported:
    """The historical result a scene re-enacts.

    Attributes
    ----------
    source : str
        Where it was reported.
    conditions : str
        The conditions as reported (machine size, training cards, ...).
    value : float or None
        Reported test accuracy as a fraction, or None when no number was reported.
    note : str
        Anything else worth saying (e.g. "reported as > 80 %", "expected to fail").
    training : {"distinct", "repeated", "unreported"}
        How the reported training amount reads: N different cards each shown once
        (the scene then shows its ``train.count`` cards for one epoch), N cards shown over
        several passes, or no amount reported (the scene's choice).
    """

    source: str = ""
    conditions: str = ""
    value: float | None = None
    note: str = ""
    training: str = "unreported"


@dataclass(frozen=True)
class Change:
    """A change made to a scene after seeing a result (a ``[[history]]`` entry).

    Attributes
    ----------
    date, change, why : str
        When, what was changed, and why.
    before : str
        The figure measured before the change, and how it was measured.
    """

    date: str
    change: str
    why: str
    before: str = ""


@dataclass(frozen=True)
class StimulusSettings:
    """The effective card settings of one split (defaults ← ``[stimuli]`` ← ``[train]``/``[test]``).

    ``origin`` maps each setting name to the key path it came from (for error messages).
    """

    source: str
    classes: tuple
    count: int | None
    card_size: int
    font: str
    size: float
    stroke: float
    slant: float
    fill: str
    thickness: float
    folder: str | None
    invert: bool
    subset: tuple
    predicate: str
    blobs: tuple
    jitter: render.Jitter
    origin: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)


# ----------------------------------------------------------------------------------------
# checkers: each takes a value and returns it normalised or raises _Bad


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _describe(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, list):
        s = repr(v)
        return s if len(s) <= 60 else s[:57] + "...]"
    if isinstance(v, str):
        s = repr(v)
        return s if len(s) <= 80 else s[:77] + "...'"
    return repr(v)


def _num(lo=None, hi=None, *, lo_open=False, integer=False, unit=""):
    def check(v):
        what = "an integer" if integer else "a number"
        bounds = []
        if lo is not None:
            bounds.append(f"{'>' if lo_open else '>='} {lo:g}")
        if hi is not None:
            bounds.append(f"<= {hi:g}")
        exp = what + (" " + " and ".join(bounds) if bounds else "") + (f" ({unit})" if unit else "")
        if integer:
            if isinstance(v, bool) or not isinstance(v, int):
                raise _Bad(exp, v)
        else:
            if not _is_num(v):
                raise _Bad(exp, v)
            if not math.isfinite(v):
                raise _Bad(exp.replace("a number", "a finite number"), v)
        if (lo is not None and (v < lo or (lo_open and v == lo))) or (hi is not None and v > hi):
            raise _Bad(exp, v)
        return v if integer else float(v) + 0.0          # + 0.0: no negative zero (-0.0 > 0.0 to numpy ranges)
    return check


def _range(lo, hi, *, symmetric: bool, integer=False, unit="", lo_open=False):
    """A number or a [low, high] pair within [lo, hi]; returns (low, high) floats (ints)."""
    one = _num(lo, hi, integer=integer, lo_open=lo_open)
    if symmetric:
        form = f"a number r (meaning [-r, r]) or [low, high], within [{lo:g}, {hi:g}]"
    else:
        form = (f"{'an integer' if integer else 'a number'} or [low, high], "
                f"within {'(' if lo_open else '['}{lo:g}, {hi:g}]")
    if unit:
        form += f" ({unit})"

    def check(v):
        if isinstance(v, list):
            if len(v) != 2:
                raise _Bad(form + ", a list of two", v)
            try:
                a, b = one(v[0]), one(v[1])
            except _Bad as e:
                raise _Bad(form, e.got if e.got is not dataclasses.MISSING else v)
            if a > b:
                raise _Bad(form + " with low <= high", v)
            return (a, b)
        try:
            x = one(v)
        except _Bad as e:
            raise _Bad(form, e.got)
        if symmetric:
            if x < 0:
                raise _Bad(form + " (r >= 0)", v)
            return (-x, x)
        return (x, x)
    return check


def _str(*, nonempty=False, what="a string", max_len=MAX_TEXT):
    def check(v):
        if not isinstance(v, str) or (nonempty and not v.strip()):
            raise _Bad(what, v)
        if len(v) > max_len:
            raise _Bad(f"{what} of at most {max_len:,} characters", f"{len(v):,} characters")
        return v
    return check


def _choice(options):
    def check(v):
        if v not in options or not isinstance(v, str):
            raise _Bad(f"one of {', '.join(map(repr, options))}", v)
        return v
    return check


def _bool(v):
    if not isinstance(v, bool):
        raise _Bad("true or false", v)
    return v


def _classes(v):
    exp = f"a list of 2 to {MAX_CLASSES} different non-empty strings"
    if not isinstance(v, list) or not (2 <= len(v) <= MAX_CLASSES):
        raise _Bad(exp, v)
    for x in v:
        if not isinstance(x, str) or not x.strip() or len(x) > 64:
            raise _Bad(exp, x)
    if len(set(v)) != len(v):
        dup = next(x for x in v if v.count(x) > 1)
        raise _Bad(exp + " (no repeats)", dup)
    return tuple(v)


def _subset(v):
    exp = "[start, stop] fractions of each class's sorted files, 0 <= start < stop <= 1"
    if (not isinstance(v, list) or len(v) != 2 or not all(_is_num(x) and math.isfinite(x) for x in v)
            or not (0 <= v[0] < v[1] <= 1)):
        raise _Bad(exp, v)
    return (float(v[0]), float(v[1]))


_HISTORY = ("date", "change", "why", "before")


def _history(v):
    """[[history]] entries: tables of strings, 'change' and 'why' required."""
    exp = "an array of tables [[history]] with strings " + ", ".join(_HISTORY)
    if not isinstance(v, list):
        raise _Bad(exp, v)
    out = []
    for i, entry in enumerate(v):
        if not isinstance(entry, Mapping):
            raise _Bad(exp, entry, key_suffix=f"[{i}]")
        # an unquoted TOML date (date = 2026-11-22) reads as a date: keep it as text
        e = {k: x.isoformat() if hasattr(x, "isoformat") else x for k, x in entry.items()}
        for k, x in e.items():
            if k not in _HISTORY:
                raise _Bad(f"a key among {', '.join(_HISTORY)}", k, key_suffix=f"[{i}]")
            if not isinstance(x, str) or (k in ("change", "why") and not x.strip()):
                raise _Bad("a non-empty string" if k in ("change", "why") else "a string", x,
                           key_suffix=f"[{i}].{k}")
        missing = [k for k in ("change", "why") if k not in e]
        if missing:
            raise _Bad(f"a table with {' and '.join(map(repr, missing))}", sorted(e), key_suffix=f"[{i}]")
        out.append(Change(date=e.get("date", ""), change=e["change"], why=e["why"], before=e.get("before", "")))
    return tuple(out)


def _blobs(v):
    exp = "[low, high] numbers of blobs, integers with 0 <= low < high <= 100"
    if (not isinstance(v, list) or len(v) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)
            or not (0 <= v[0] < v[1] <= 100)):
        raise _Bad(exp, v)
    return (v[0], v[1])


# ----------------------------------------------------------------------------------------
# the key tables


@dataclass(frozen=True)
class Key:
    """One key of the scene format: its checker, default and meaning (for the README)."""

    check: Callable
    default: Any
    doc: str
    type: str


def _k(check, default, type_, doc):
    return Key(check, default, doc, type_)


#: Keys of ``[stimuli]`` (and of ``[train]`` / ``[test]``, which may override them).
STIMULUS_KEYS: dict[str, Key] = {
    "source": _k(_choice(SOURCES), "characters", "string",
                 "where the cards come from: " + ", ".join(SOURCES)),
    "classes": _k(_classes, None, "list of strings",
                  "characters: the texts to print; shapes: names from " + ", ".join(render.SHAPES)
                  + "; folder: which subfolders (default all); not used by marks/parity"),
    "card_size": _k(_num(8, MAX_CARD, integer=True, unit="pixels"), 60, "integer",
                    "card side in pixels (finer than the 20x20 retina)"),
    "font": _k(_str(nonempty=True, what="'default' or the path of a TTF/OTF file", max_len=4096), "default",
               "string",
               "characters: 'default' (Pillow's bundled font) or a font file, relative to the scene file"),
    "size": _k(_num(1, 2 * MAX_CARD, unit="card pixels"), None, "number",
               "font size / shape size / mark side / blob diameter, in card pixels "
               "(default 40 / 36 / 8 / 8)"),
    "stroke": _k(_num(0, 64, unit="card pixels"), 0.0, "number",
                 "characters: extra stroke weight in card pixels (Pillow stroke_width)"),
    "slant": _k(_num(-60, 60, unit="degrees"), 0.0, "number",
                "characters, shapes: fixed shear of the typeface in degrees, positive leans right"),
    "fill": _k(_choice(("solid", "outline")), "solid", "string", "shapes: 'solid' or 'outline'"),
    "thickness": _k(_num(0.25, 64, unit="card pixels"), 3.0, "number",
                    "shapes: outline thickness; parity (connectedness): bar width; card pixels"),
    "folder": _k(_str(nonempty=True, what="the path of a folder with one subfolder per class", max_len=4096),
                 None, "string",
                 "folder: the image folder, one subfolder per class, relative to the scene file"),
    "invert": _k(_bool, False, "boolean", "folder: true for white ink on black images"),
    "subset": _k(_subset, (0.0, 1.0), "[number, number]",
                 "folder: the slice [start, stop] of each class's sorted files to use"),
    "predicate": _k(_choice(tuple(render.PREDICATES)), "parity", "string",
                    "parity: 'parity' (classes even/odd blob counts) or 'connectedness' "
                    "(classes connected/disconnected)"),
    "blobs": _k(_blobs, (1, 6), "[integer, integer]", "parity: range of the number of blobs"),
}

#: Keys of ``[stimuli.jitter]`` (and ``[train.jitter]`` / ``[test.jitter]``).
JITTER_KEYS: dict[str, Key] = {
    "shift": _k(_range(-1, 1, symmetric=True, unit="fraction of the card"), 0.0, "number or [lo, hi]",
                "position shift as a fraction of the card side, drawn for x and y separately; r means [-r, r]"),
    "rotation": _k(_range(-360, 360, symmetric=True, unit="degrees"), 0.0, "number or [lo, hi]",
                   "rotation in degrees, counter-clockwise; r means [-r, r]"),
    "scale": _k(_range(0, 10, symmetric=False, lo_open=True), 1.0, "number or [lo, hi]",
                "size factor; a number means exactly that"),
    "slant": _k(_range(-60, 60, symmetric=True, unit="degrees"), 0.0, "number or [lo, hi]",
                "extra shear per card in degrees; r means [-r, r]"),
    "contrast": _k(_range(0, 1, symmetric=False), 1.0, "number or [lo, hi]",
                   "ink darkness: ink reflectance = paper x (1 - contrast)"),
    "paper": _k(_range(0, 1, symmetric=False), 1.0, "number or [lo, hi]", "paper reflectance (1 = white)"),
    "noise": _k(_range(0, 1, symmetric=False), 0.0, "number or [lo, hi]",
                "standard deviation of additive Gaussian noise on the reflectance"),
    "smudges": _k(_range(0, 100, symmetric=False, integer=True), 0, "integer or [lo, hi]",
                  "number of random blots per card"),
    "smudge_size": _k(_range(0, 100, symmetric=False, lo_open=True, unit="card pixels"), [2.0, 5.0],
                      "number or [lo, hi]", "radius of a blot in card pixels"),
    "smudge_contrast": _k(_range(0, 1, symmetric=False), [0.3, 0.8], "number or [lo, hi]",
                          "darkness of a blot's centre"),
    "blur": _k(_range(0, 20, symmetric=False, unit="card pixels"), 0.0, "number or [lo, hi]",
               "Gaussian blur sigma in card pixels"),
}

SPLIT_ONLY_KEYS: dict[str, Key] = {
    "count": _k(_num(1, MAX_COUNT, integer=True), 100, "integer",
                "cards in the split, balanced over the classes (folder: default every image once)"),
}

REPORTED_KEYS: dict[str, Key] = {
    "source": _k(_str(), "", "string", "where the result was reported"),
    "conditions": _k(_str(), "", "string", "the conditions, as reported"),
    "value": _k(_num(0, 1), None, "number", "reported test accuracy as a fraction; omit if none"),
    "note": _k(_str(), "", "string", "anything else (e.g. 'reported as > 80 %', 'expected to fail')"),
    "training": _k(_choice(("distinct", "repeated", "unreported")), "unreported", "string",
                   "how the reported training amount reads: 'distinct' (N different cards, each shown once: "
                   "schedule.epochs must be 1), 'repeated' (N cards x epochs) or 'unreported'"),
}

SCHEDULE_KEYS: dict[str, Key] = {
    "epochs": _k(_num(1, MAX_EPOCHS, integer=True), 10, "integer", "passes through the training cards"),
    "order": _k(_choice(("cyclic", "shuffled")), "cyclic", "string",
                "'cyclic': the cards as given, classes alternating; 'shuffled': reshuffled each epoch"),
    "rule": _k(_choice(("alpha", "gamma", "forced", "lms")), None, "string",
               "learning rule, applied as the machine override trainer.rule"),
}

TOP_KEYS: dict[str, Key] = {
    "format": _k(_num(FORMAT_VERSION, FORMAT_VERSION, integer=True), FORMAT_VERSION, "integer",
                 "version of this file format (1)"),
    "name": _k(_str(nonempty=True, what="a non-empty string", max_len=200), None, "string",
               "short title (default: the file name)"),
    "description": _k(_str(), "", "string", "what the scene shows, and what to expect"),
    "history": _k(_history, (), "array of tables",
                  "changes made after seeing a result: [[history]] with date, change, why, before"),
}

MACHINE_KEYS = ("preset", "overrides")
TABLES = ("reported", "stimuli", "train", "test", "machine", "schedule")

#: Every documented key path (``*`` stands for train or test), for the README and tests.
KEYS: list[str] = (
    [*TOP_KEYS]
    + [f"reported.{k}" for k in REPORTED_KEYS]
    + [f"stimuli.{k}" for k in STIMULUS_KEYS]
    + [f"stimuli.jitter.{k}" for k in JITTER_KEYS]
    + [f"*.{k}" for k in SPLIT_ONLY_KEYS]
    + ["machine.preset", "machine.overrides"]
    + [f"schedule.{k}" for k in SCHEDULE_KEYS]
)

# which stimulus keys each source uses
_USES = {
    "characters": {"classes", "card_size", "font", "size", "stroke", "slant"},
    "shapes": {"classes", "card_size", "size", "fill", "thickness", "slant"},
    "folder": {"classes", "card_size", "folder", "invert", "subset"},
    "marks": {"card_size", "size"},
    "parity": {"card_size", "predicate", "size", "blobs", "thickness"},
}
_SIZE_DEFAULT = {"characters": 40.0, "shapes": 36.0, "marks": 8.0, "parity": 8.0, "folder": None}


@dataclass(frozen=True)
class Resources:
    """What a run of a scene will need, estimated before any card is drawn.

    Attributes
    ----------
    memory : int
        Peak bytes of ``mark1 run`` (cards, the retina's light, the record of every
        presentation, scoring).
    parts : dict of str to int
        Bytes by cause, keyed by the scene key that sets it.
    presentations : int
        Cards shown while training (epochs x training cards).
    pot_updates : int
        presentations x pots: the machine's work.
    seconds : float
        Rough wall time: rendering, wiring and presentations at the rates of
        :data:`RATES` (measured on a loaded 2-core machine; the order of magnitude only).
    """

    memory: int
    parts: dict
    presentations: int
    pot_updates: int
    seconds: float = 0.0

    def largest(self) -> str:
        """The key whose part of the memory is largest."""
        return max(self.parts, key=self.parts.get)


# ----------------------------------------------------------------------------------------
# the scene


@dataclass(frozen=True, eq=False)
class Scene:
    """One experiment: cards, machine, schedule and the reported result.

    Build with :func:`load_scene` (or :func:`scene_from_dict`); never changes.

    Attributes
    ----------
    name, description : str
    path : str or None
        The scene file.
    reported : Reported
    schedule : Schedule
    preset : str
        Name of the machine preset in :mod:`mark1.specs`.
    overrides : dict
        Machine overrides as written (nested tables).
    settings : dict of str to StimulusSettings
        The effective card settings of ``"train"`` and ``"test"``.
    history : tuple of Change
        Changes made to the scene after seeing a result, oldest first.
    """

    name: str
    description: str
    path: str | None
    reported: Reported
    schedule: Schedule
    preset: str
    overrides: Mapping[str, Any]
    settings: Mapping[str, StimulusSettings]
    history: tuple = ()
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def machine_spec(self) -> specs.MachineSpec:
        """The machine: the preset with the scene's overrides and the schedule's rule."""
        return _build_spec(self.path, self.preset, self.overrides, self.schedule.rule)

    @property
    def classes(self) -> tuple:
        """The classes of the training split, sorted."""
        return tuple(sorted(self._classes_of("train")))

    def _classes_of(self, split) -> tuple:
        st = self.settings[split]
        if st.source == "marks":
            return ("left", "right")
        if st.source == "parity":
            return render.PREDICATES[st.predicate]
        if st.source == "folder" and st.classes is None:
            return tuple(self._folder(st)[0])
        return st.classes

    def stimuli(self, split: str, seed: int = 0, *, count: int | None = None) -> Stimuli:
        """The cards of one split.

        Parameters
        ----------
        split : {"train", "test"}
        seed : int
            Non-negative. Same scene and seed give identical cards, bit for bit; train and
            test draw from independent streams.
        count : int, optional
            Number of cards instead of the scene's ``count`` (balanced over the classes).

        Returns
        -------
        Stimuli
            Cards are ordered with the classes alternating (X, E, X, E, ...).

        Raises
        ------
        SceneError
            For a bad split, seed or count, or an unreadable image.
        """
        if split not in SPLITS:
            raise SceneError(self.path, "split", f"expected 'train' or 'test', got {_describe(split)}")
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise SceneError(self.path, "seed", f"expected a non-negative integer, got {_describe(seed)}")
        st = self.settings[split]
        ckey = st.origin.get("count", f"{split}.count")
        if count is not None:
            try:
                count = SPLIT_ONLY_KEYS["count"].check(int(count) if isinstance(count, np.integer) else count)
            except _Bad as e:
                raise SceneError(self.path, "count", f"expected {e.expected}, got {_describe(count)}")
            ckey = "count"
        else:
            count = st.count
        ss = np.random.SeedSequence(int(seed), spawn_key=(STIMULI_STREAM, SPLITS.index(split)))
        try:
            return self._render(split, ss, count, ckey)
        except render.RenderError as e:
            raise SceneError(self.path, _key_for(st, e.setting, split), e.reason) from None

    def _render(self, split: str, ss, count, ckey) -> Stimuli:
        st = self.settings[split]
        classes = list(self._classes_of(split))
        images = which = None
        if st.source == "folder":
            _, file_labels, images, _ = self._folder(st, load=True)
            per_class = [np.flatnonzero(np.asarray(file_labels) == c) for c in classes]
            if count is None:
                counts = [len(p) for p in per_class]
            else:
                counts = _balanced(count, len(classes))
            _check_count(self.path, ckey, sum(counts), len(classes), st.card_size)
            src = np.random.Generator(np.random.PCG64(
                np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (99,))))
            picks = []
            for p, c in zip(per_class, counts):
                reps = -(-c // len(p))
                picks.append(np.concatenate([src.permutation(p) for _ in range(reps)])[:c]
                             if count is not None else p)
            which, labels = _interleave(picks, classes)
        else:
            count = 100 if count is None else count
            _check_count(self.path, ckey, count, len(classes), st.card_size)
            labels = _labels(count, classes)
        n, side = len(labels), st.card_size
        if n * side * side * 8 <= COMPACT_ABOVE:
            cards, variation = self._draw(st, ss, labels, which, images)
        else:
            cards, variation = self._draw_compact(st, ss, labels, which, images)
        labels = np.asarray(labels, dtype=str)
        return Stimuli(cards=cards, labels=labels, classes=np.unique(labels), variation=variation)

    def _draw(self, st: StimulusSettings, ss, labels, which, images):
        """Render the cards ``labels`` (folder: the images ``which``) in one go: (cards, variation)."""
        if st.source == "folder":
            r = render.render_images(images, which, seed=ss, jitter=st.jitter)
            return r.cards, r.variation
        kw = dict(seed=ss, card_size=st.card_size, jitter=st.jitter)
        if st.source == "characters":
            r = render.render_characters(labels, font=st.font, size=st.size, stroke=st.stroke,
                                         slant=st.slant, **kw)
        elif st.source == "shapes":
            r = render.render_shapes(labels, size=st.size, fill=st.fill, thickness=st.thickness,
                                     slant=st.slant, **kw)
        elif st.source == "marks":
            r = render.render_marks(labels, size=st.size, **kw)
        else:
            r = render.render_predicate(labels, predicate=st.predicate, size=st.size, blobs=st.blobs,
                                        thickness=st.thickness, **kw)
        return r.cards, r.variation

    def _draw_compact(self, st: StimulusSettings, ss, labels, which, images):
        """A large deck: rendered in chunks, each from a seed of its own (spawned from ``ss``),
        and kept as 8-bit reflectance (uint8, value / 255): one byte a pixel instead of eight."""
        from mark1._utils.progress import progress_bar

        n, side = len(labels), st.card_size
        step = max(1, CHUNK_BYTES // (8 * side * side))
        cards = np.empty((n, side, side), dtype=np.uint8)
        parts: dict[str, list] = {}
        bar = progress_bar(n, "card")
        for i, lo in enumerate(range(0, n, step)):
            hi = min(n, lo + step)
            seed = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, CHUNK_STREAM, i))
            part, variation = self._draw(st, seed, labels[lo:hi], None if which is None else which[lo:hi], images)
            np.rint(np.clip(part, 0.0, 1.0) * 255.0, out=part)
            cards[lo:hi] = part
            for k, v in variation.items():
                parts.setdefault(k, []).append(np.asarray(v))
            bar.update(hi - lo)
        bar.close()
        return cards, {k: np.concatenate(v) for k, v in parts.items()}

    def _folder(self, st: StimulusSettings, load: bool = False):
        """(classes, label of each file, images or None, files) for a folder source, cached."""
        key = (st.folder, st.classes, st.subset, st.invert, st.card_size, load)
        if key in self._cache:
            return self._cache[key]
        listing = render.list_image_folder(st.folder)
        if st.classes is not None:
            classes = list(st.classes)
        else:
            classes = [c for c in listing if listing[c]]
        files, labels = [], []
        for c in classes:
            fs = listing.get(c, [])
            a, b = st.subset
            n = len(fs)
            chosen = fs[int(math.floor(a * n + 1e-9)):int(math.floor(b * n + 1e-9))]
            files += chosen
            labels += [c] * len(chosen)
        images = None
        if load:
            images = np.stack([render.read_image(f, st.card_size, st.invert) for f in files])
        out = (classes, labels, images, files)
        self._cache[key] = out
        return out

    def resources(self, *, train_count: int | None = None, test_count: int | None = None,
                  trace: str = "summary") -> Resources:
        """Estimate the memory and work of training and scoring, without drawing a card.

        Per training card: the deck (1 or 8 bytes a pixel), the retina's light and
        photocell signals (float64 per cell, several copies while scoring) and the
        A-unit outputs fed to the rack (float64 per A-unit); per presentation: the
        schedule and the record of it (plus ~10 events of ~120 bytes with the full trace).
        """
        spec = self.machine_spec()
        cells = spec.retina.shape[0] * spec.retina.shape[1]
        n_a = spec.patchboard.n_associators
        counts = {}
        for split, given in (("train", train_count), ("test", test_count)):
            st = self.settings[split]
            if given is not None:
                n = int(given)
            elif st.count is not None:
                n = st.count
            elif st.source == "folder":
                n = len(self._folder(st)[1])
            else:
                n = 100
            counts[split] = (n, st.card_size)
        n_classes = len(self._classes_of("train"))
        n_units = OutputCode(np.arange(max(2, n_classes)), spec.response).n_units    # the machine's own code

        def deck(n, side):
            return n * side * side * (8 if n * side * side * 8 <= COMPACT_ABOVE else 1)

        def render_peak(n, side):            # a float64 chunk (or the whole deck) and its working copies
            return 8 * side * side * min(n, max(1, CHUNK_BYTES // (8 * side * side))
                                             if n * side * side * 8 > COMPACT_ABOVE else n)

        n_tr, side_tr = counts["train"]
        n_te, side_te = counts["test"]
        presentations = self.schedule.epochs * n_tr
        # schedule and epoch (16), the simulator's per-presentation arrays (~30), the history
        # row (~55) and its line of trace.csv, built in memory (~150)
        per_presentation = 250
        if trace == "full":
            per_presentation += 10 * 120
        # scoring the larger split, a chunk of cards at a time: light, photocell signals and
        # states (float64 per cell), S-unit states; per card the sums and pot counts
        n_score = max(n_tr, n_te)
        chunk = min(n_score, SENSE_CHUNK)
        scoring = chunk * (8 * cells * 9 + cells) + n_score * 16 * n_units
        # training: the light of every card, kept when small, else a block of presentations
        light_kept = 8 * cells * n_tr if 8 * cells * n_tr <= LIGHT_KEPT_BYTES else 8 * cells * 256
        key_tr = self.settings["train"].origin.get("count", "train.count")
        key_te = self.settings["test"].origin.get("count", "test.count")
        parts = {
            key_tr: deck(n_tr, side_tr) + max(render_peak(n_tr, side_tr), 2 * light_kept,
                                              scoring if n_tr >= n_te else 0),
            key_te: deck(n_te, side_te) + render_peak(n_te, side_te) + (scoring if n_te > n_tr else 0),
            "schedule.epochs": presentations * per_presentation,
            # per scored card, and the wiring (int8) with its float32 copy, the pots and their masks
            "machine.overrides.patchboard.n_associators": chunk * 9 * n_a + 5 * cells * n_a
            + 8 * n_units * (n_a + 1) * 4,
        }
        memory = 150 * 2**20 + sum(parts.values())          # + the interpreter and its libraries
        pixels = n_tr * side_tr ** 2 + n_te * side_te ** 2
        pot_updates = presentations * n_units * (n_a + 1)
        seconds = (pixels / RATES["pixels"] + n_a / RATES["a_units"] + presentations / RATES["presentations"]
                   + pot_updates / RATES["pot_updates"])
        return Resources(memory=int(memory), parts=parts, presentations=int(presentations),
                         pot_updates=int(pot_updates), seconds=float(seconds))

    def __repr__(self) -> str:
        return f"Scene({self.name!r}, path={self.path!r})"


def _key_for(st: StimulusSettings, setting: str, split: str) -> str:
    head, _, tail = setting.partition(".")
    if head == "jitter" and tail:
        return st.origin.get(setting, f"{split}.jitter.{tail}")
    if head == "jitter":
        for k in ("shift", "rotation", "scale", "slant"):
            if f"jitter.{k}" in st.origin:
                return st.origin[f"jitter.{k}"]
        return f"{split}.jitter"
    return st.origin.get(setting, f"stimuli.{setting}")


def _balanced(count: int, n_classes: int) -> list[int]:
    return [count // n_classes + (i < count % n_classes) for i in range(n_classes)]


def _labels(count: int, classes: list) -> list:
    return [classes[i % len(classes)] for i in range(count)]


def _interleave(picks, classes):
    which, labels = [], []
    longest = max(len(p) for p in picks)
    for i in range(longest):
        for p, c in zip(picks, classes):
            if i < len(p):
                which.append(int(p[i]))
                labels.append(c)
    return np.asarray(which, dtype=np.int64), labels


def _check_count(path, key, count, n_classes, card_size):
    if count < n_classes:
        raise SceneError(path, key, f"expected at least one card per class (>= {n_classes}), got {count}")
    if count * card_size * card_size > MAX_PIXELS:
        raise SceneError(path, key, f"expected count x card_size^2 <= {MAX_PIXELS:,} pixels "
                                    f"(about 2 GB), got {count} cards of {card_size}x{card_size}")


# ----------------------------------------------------------------------------------------
# loading


def load_scene(path) -> Scene:
    """Read and check a scene file.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.toml`` file. Font and folder paths inside it are relative to its folder.

    Raises
    ------
    SceneError
        For anything wrong with the file; the message names the file and the key.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise SceneError(None, None, f"expected the path of a scene file, got {_describe(path)}")
    p = Path(path)
    shown = str(path)
    try:
        info = os.stat(p)                 # before opening: a FIFO would block, a device never end
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError
        if not stat.S_ISREG(info.st_mode):
            raise SceneError(shown, None, f"expected a regular scene file, got {_file_kind(info.st_mode)}")
        if info.st_size > MAX_SCENE_BYTES:
            raise SceneError(shown, None, f"expected a scene file of at most {MAX_SCENE_BYTES:,} bytes, "
                                          f"got {info.st_size:,}")
        with open(p, "rb") as f:
            raw = f.read(MAX_SCENE_BYTES + 1)
        if len(raw) > MAX_SCENE_BYTES:    # grew since stat
            raise SceneError(shown, None, f"expected a scene file of at most {MAX_SCENE_BYTES:,} bytes")
    except FileNotFoundError:
        raise SceneError(shown, None, "expected an existing scene file, got no such file") from None
    except IsADirectoryError:
        raise SceneError(shown, None, "expected a scene file, got a folder") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SceneError(shown, None, "expected a scene file, got a symlink loop") from None
        raise SceneError(shown, None, f"expected a readable scene file, got {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SceneError(shown, None, f"expected UTF-8 text, got undecodable bytes at offset {exc.start}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc).splitlines()[0] if str(exc) else "invalid TOML"
        raise SceneError(shown, None, f"expected valid TOML, got {msg}") from None
    except RecursionError:
        raise SceneError(shown, None, "expected valid TOML, got nesting too deep") from None
    return scene_from_dict(data, path=shown, base_dir=p.resolve().parent, default_name=p.stem)


def scene_from_dict(data: Mapping[str, Any], *, path: str | None = None, base_dir=None,
                    default_name: str = "scene") -> Scene:
    """Build a scene from an already-parsed mapping (the structure of a scene file).

    ``base_dir`` resolves relative font and folder paths (default: the working folder).
    """
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    if not isinstance(data, Mapping):
        raise SceneError(path, None, f"expected a table of keys, got {_describe(data)}")
    _check_depth(path, data)
    _unknown(path, "", data, [*TOP_KEYS, *TABLES])
    top = _check_table(path, "", data, TOP_KEYS)
    name = top["name"] if top["name"] is not None else default_name
    for t in TABLES:
        if t in data and not isinstance(data[t], Mapping):
            raise SceneError(path, t, f"expected a table [{t}], got {_describe(data[t])}")

    rep = _check_table(path, "reported", data.get("reported", {}), REPORTED_KEYS)
    reported = Reported(**rep)

    sch = _check_table(path, "schedule", data.get("schedule", {}), SCHEDULE_KEYS)
    schedule = Schedule(**sch)
    if reported.training == "distinct" and schedule.epochs != 1:
        raise SceneError(path, "schedule.epochs", f"expected 1 when reported.training is 'distinct' (each "
                                                  f"card shown once), got {schedule.epochs}")

    machine = data.get("machine", {})
    _unknown(path, "machine", machine, MACHINE_KEYS)
    presets = _presets()
    preset = machine.get("preset", "MARK_I")
    if not isinstance(preset, str) or preset not in presets:
        raise SceneError(path, "machine.preset",
                         f"expected one of {', '.join(map(repr, presets))}, got {_describe(preset)}"
                         + _suggest(preset if isinstance(preset, str) else "", list(presets)))
    overrides = machine.get("overrides", {})
    if not isinstance(overrides, Mapping):
        raise SceneError(path, "machine.overrides",
                         f"expected a table of machine parameters, got {_describe(overrides)}")
    spec = _build_spec(path, preset, overrides, schedule.rule)   # validate now

    if "count" in data.get("stimuli", {}):
        raise SceneError(path, "stimuli.count", "expected count in [train] or [test], got it in [stimuli]")
    shared = data.get("stimuli", {})
    settings = {split: _resolve(path, base, shared, data.get(split, {}), split) for split in SPLITS}
    scene = Scene(name=name, description=top["description"], path=path, reported=reported,
                  schedule=schedule, preset=preset, overrides=_freeze(overrides), settings=settings,
                  history=top["history"])
    for split in SPLITS:
        _validate_source(scene, split)
        # the camera images the card onto the retina: it needs at least one pixel per cell
        size, need = settings[split].card_size, max(spec.retina.shape)
        if size < need:
            key = f"{split}.card_size" if "card_size" in data.get(split, {}) else "stimuli.card_size"
            raise SceneError(path, key, f"expected at least {need} pixels (the retina is "
                                        f"{spec.retina.shape[0]}x{spec.retina.shape[1]} cells), got {size}")
    _check_train_test(scene, data)
    return scene


def _check_train_test(scene: "Scene", data: Mapping) -> None:
    """The test split must ask about trained classes, and must not reuse training images."""
    path = scene.path
    unseen = sorted(set(map(str, scene._classes_of("test"))) - set(map(str, scene._classes_of("train"))))
    if unseen:
        key = "test.classes" if "classes" in data.get("test", {}) else "stimuli.classes"
        raise SceneError(path, key, f"expected test classes the machine is trained on, got untrained "
                                    f"{', '.join(map(repr, unseen))}")
    tr, te = scene.settings["train"], scene.settings["test"]
    if tr.source == te.source == "folder" and tr.folder == te.folder:
        (a0, a1), (b0, b1) = tr.subset, te.subset
        if a0 < b1 and b0 < a1:
            raise SceneError(path, "test.subset",
                             f"train and test would share images of {tr.folder}: expected disjoint subsets, "
                             f"e.g. [0, 0.8] for train and [0.8, 1] for test, got {list(tr.subset)} and "
                             f"{list(te.subset)}")
    if tr.source == te.source == "folder":
        # compared as files on disk (device, inode): another spelling of the folder, a
        # symlinked class folder or a hard link is still the same image
        def identities(st):
            return {_file_id(f): f for f in scene._folder(st)[3]}
        train_files, test_files = identities(tr), identities(te)
        shared = [test_files[i] for i in test_files if i in train_files]
        if shared:
            key = "test.subset" if tr.folder == te.folder else te.origin.get("folder", "test.folder")
            raise SceneError(path, key,
                             f"expected test images the machine is not trained on, got {len(shared)} shared "
                             f"with the training images (e.g. {shared[0]!r}); use disjoint subsets such as "
                             f"[0, 0.8] for train and [0.8, 1] for test, or another folder")


def _file_id(f: str):
    try:
        info = os.stat(f)
    except OSError:
        return os.path.realpath(f)
    return (info.st_dev, info.st_ino)


def _check_depth(path, data: Mapping) -> None:
    """Refuse tables nested deeper than :data:`MAX_DEPTH` (walked without recursion)."""
    stack = [((), data)]
    while stack:
        keys, m = stack.pop()
        if len(keys) > MAX_DEPTH:
            shown = ".".join(map(str, keys[:MAX_DEPTH])) + "..."
            raise SceneError(path, shown, f"expected tables nested at most {MAX_DEPTH} deep, got deeper")
        items = m.items() if isinstance(m, Mapping) else enumerate(m)
        for k, v in items:
            if isinstance(v, (Mapping, list)):
                stack.append(((*keys, k), v))


def _freeze(m):
    return {k: _freeze(v) if isinstance(v, Mapping) else v for k, v in m.items()}


def _presets() -> dict[str, specs.MachineSpec]:
    return {k: v for k, v in vars(specs).items() if isinstance(v, specs.MachineSpec) and k.isupper()}


def _suggest(key: str, known) -> str:
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _unknown(path, prefix: str, table: Mapping, known) -> None:
    for k in table:
        if k not in known:
            key = f"{prefix}.{k}" if prefix else k
            hint = _suggest(k, known)
            raise SceneError(path, key, f"expected a known key{hint or ' (' + ', '.join(known) + ')'}, "
                                        f"got unknown key {k!r}")


def _check_table(path, prefix: str, table, keys: Mapping[str, Key], *, only_present=False) -> dict:
    if not isinstance(table, Mapping):
        raise SceneError(path, prefix, f"expected a table, got {_describe(table)}")
    if prefix:
        _unknown(path, prefix, table, keys)
    out = {}
    for k, spec in keys.items():
        key = f"{prefix}.{k}" if prefix else k
        if k in table:
            v = table[k]
            if isinstance(v, Mapping):
                raise SceneError(path, key, f"expected {_expected_of(spec)}, got a table")
            try:
                out[k] = spec.check(v)
            except _Bad as e:
                got = e.got if e.got is not dataclasses.MISSING else v
                raise SceneError(path, key + e.key_suffix, f"expected {e.expected}, got {_describe(got)}")
        elif not only_present:
            out[k] = spec.check(spec.default) if isinstance(spec.default, list) else spec.default
    return out


def _expected_of(spec: Key) -> str:
    try:
        spec.check({})
    except _Bad as e:
        return e.expected
    return spec.type  # pragma: no cover


def _build_spec(path, preset: str, overrides: Mapping, rule) -> specs.MachineSpec:
    base = _presets()[preset]
    bad = _bad_number(overrides, "machine.overrides")
    if bad:
        raise SceneError(path, bad[0], bad[1])
    try:
        spec = base.with_overrides(overrides)
    except specs.SpecError as e:
        raise SceneError(path, f"machine.overrides.{e.key}", _spec_reason(e)) from None
    except (TypeError, ValueError, ArithmeticError) as e:  # defensive: anything else is still the file's fault
        raise SceneError(path, "machine.overrides", f"expected valid machine parameters, got {e}") from None
    if rule is not None:
        current = _flat_get(overrides, "trainer.rule")
        if current is not None and current != rule:
            raise SceneError(path, "schedule.rule",
                             f"expected the same rule as machine.overrides.trainer.rule ({current!r}), got {rule!r}")
        try:
            spec = spec.with_overrides({"trainer.rule": rule})
        except specs.SpecError as e:
            raise SceneError(path, "schedule.rule", _spec_reason(e)) from None
    return spec


def _spec_reason(e: specs.SpecError) -> str:
    """A SpecError's reason in the 'expected ..., got ...' form."""
    reason = e.reason
    if reason.startswith("expected"):
        return reason
    if reason.startswith("unknown"):
        what, _, hint = reason.partition(" (")
        hint = f" ({hint}" if hint else ""
        return f"expected a known parameter{hint}, got {what} {e.key!r}"
    return f"expected a consistent machine, got: {reason}"


def _flat_get(m: Mapping, dotted: str):
    if dotted in m:
        return m[dotted]
    head, _, tail = dotted.partition(".")
    sub = m.get(head)
    if isinstance(sub, Mapping) and tail:
        return _flat_get(sub, tail)
    return None


def _bad_number(m: Mapping, prefix: str):
    """Integers too large for a float anywhere in the overrides."""
    for k, v in m.items():
        key = f"{prefix}.{k}"
        if isinstance(v, Mapping):
            r = _bad_number(v, key)
            if r:
                return r
        elif isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2 ** 63:
            return key, f"expected a number of sensible size, got {v}"
    return None


def _resolve(path, base: Path, shared: Mapping, own: Mapping, split: str) -> StimulusSettings:
    """Merge defaults ← [stimuli] ← [split], checking each table; remember origins."""
    if not isinstance(own, Mapping):
        raise SceneError(path, split, f"expected a table [{split}], got {_describe(own)}")
    _unknown(path, "stimuli", shared, [*STIMULUS_KEYS, "jitter"])
    _unknown(path, split, own, [*STIMULUS_KEYS, *SPLIT_ONLY_KEYS, "jitter"])
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for prefix, table, keys in (("stimuli", shared, STIMULUS_KEYS), (split, own, {**STIMULUS_KEYS, **SPLIT_ONLY_KEYS})):
        got = _check_table(path, prefix, {k: v for k, v in table.items() if k != "jitter"}, keys, only_present=True)
        for k, v in got.items():
            values[k] = v
            origin[k] = f"{prefix}.{k}"
    jit: dict[str, Any] = {}
    for prefix, table in (("stimuli", shared), (split, own)):
        if "jitter" in table:
            jt = table["jitter"]
            if not isinstance(jt, Mapping):
                raise SceneError(path, f"{prefix}.jitter", f"expected a table [{prefix}.jitter], got {_describe(jt)}")
            got = _check_table(path, f"{prefix}.jitter", jt, JITTER_KEYS, only_present=True)
            for k, v in got.items():
                jit[k] = v
                origin[f"jitter.{k}"] = f"{prefix}.jitter.{k}"
    defaults = {k: (spec.check(spec.default) if spec.default is not None else None)
                for k, spec in JITTER_KEYS.items()}
    jitter = render.Jitter(**{**defaults, **jit})

    source = values.get("source", "characters")
    used = _USES[source]
    for k in values:
        if k in STIMULUS_KEYS and k != "source" and k not in used:
            users = sorted(s for s, u in _USES.items() if k in u)
            raise SceneError(path, origin[k], f"expected no {k!r} for source {source!r} "
                                              f"(it is used by {', '.join(users)}), got {_describe(_raw(values[k]))}")
    d = {k: spec.default for k, spec in STIMULUS_KEYS.items()}
    d["size"] = _SIZE_DEFAULT[source]
    d["count"] = None
    d.update(values)
    if d["font"].startswith(render.MATPLOTLIB_FONT):        # a face shipped with matplotlib, by name
        try:
            d["font"] = render.font_file(d["font"])
        except render.RenderError as e:
            raise SceneError(path, origin.get("font", "stimuli.font"), e.reason) from None
    for k in ("font", "folder"):
        v = d[k]
        if v is not None and not (k == "font" and v == "default"):
            d[k] = _real_path(path, origin.get(k, f"stimuli.{k}"), base / os.path.expanduser(v))
    return StimulusSettings(
        source=source, classes=d["classes"], count=d["count"], card_size=d["card_size"], font=d["font"],
        size=d["size"], stroke=d["stroke"], slant=d["slant"], fill=d["fill"], thickness=d["thickness"],
        folder=d["folder"], invert=d["invert"], subset=tuple(d["subset"]), predicate=d["predicate"],
        blobs=tuple(d["blobs"]), jitter=jitter, origin=origin)


def _real_path(path, key: str, p: Path) -> str:
    """The resolved path (symlinks followed), or a SceneError for a symlink loop.

    A path that does not exist is returned absolute; the check of the source names it.
    """
    try:
        return str(p.resolve(strict=True))
    except (FileNotFoundError, NotADirectoryError):
        return str(p.absolute())
    except RuntimeError:                          # Python < 3.13: "Symlink loop from ..."
        raise SceneError(path, key, f"expected a file or folder, got a symlink loop at {str(p)!r}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SceneError(path, key, f"expected a file or folder, got a symlink loop at {str(p)!r}") from None
        raise SceneError(path, key, f"expected a readable path, got {str(p)!r} ({exc.strerror})") from None


def _raw(v):
    return list(v) if isinstance(v, tuple) else v


def _validate_source(scene: Scene, split: str) -> None:
    """Cross-key checks that need the source: classes, sizes, fonts, folders."""
    st = scene.settings[split]
    path = scene.path
    key = lambda name, default=None: st.origin.get(name, default or f"stimuli.{name}")  # noqa: E731
    src = st.source
    if src in ("characters", "shapes") and st.classes is None:
        raise SceneError(path, key("classes"), f"expected a list of classes for source {src!r}, got none")
    if st.size is not None and st.size > 2 * st.card_size:
        raise SceneError(path, key("size"), f"expected a size <= 2 x card_size = {2 * st.card_size}, got {st.size:g}")
    try:
        if src == "characters":
            if st.stroke > st.size / 2:
                raise SceneError(path, key("stroke"), f"expected a stroke <= size / 2 = {st.size / 2:g}, "
                                                       f"got {st.stroke:g}")
            _check_regular(path, key("font"), st.font, "font file")
            render.check_font(st.font)
            for c in st.classes:
                missing = render.missing_characters(c, st.font)
                if missing:
                    raise SceneError(path, key("classes"), f"expected characters the font can draw, got {c!r} "
                                                            f"({missing[0]!r} is not in font {st.font!r})")
            k = render.oversample_for(st.card_size)
            masks = {c: render.glyph_mask(c, st.font, float(st.size), float(st.stroke), k) for c in st.classes}
            _distinct(path, key("classes"), masks)
        elif src == "shapes":
            bad = [c for c in st.classes if c not in render.SHAPES]
            if bad:
                raise SceneError(path, key("classes"), f"expected shapes from {', '.join(render.SHAPES)}, "
                                                        f"got {bad[0]!r}" + _suggest(bad[0], render.SHAPES))
            if st.fill == "outline" and st.thickness * 2 >= st.size * (0.25 if {"hbar", "vbar"} & set(st.classes)
                                                                       else 0.577):
                raise SceneError(path, key("thickness"), f"expected an outline thinner than the shapes "
                                                          f"(size {st.size:g}), got {st.thickness:g}")
            k = render.oversample_for(st.card_size)
            masks = {c: render.shape_mask(c, float(st.size), st.fill, float(st.thickness), k) for c in st.classes}
            _distinct(path, key("classes"), masks)
        elif src == "marks":
            render.render_marks(["left", "right"], seed=0, card_size=st.card_size, size=st.size,
                                jitter=st.jitter)
        elif src == "parity":
            if st.classes is not None:
                raise SceneError(path, key("classes"), "expected no classes for source 'parity' (they are "
                                                       f"{' and '.join(render.PREDICATES[st.predicate])}), "
                                                       f"got {list(st.classes)!r}")
            if st.predicate == "parity":
                fit = render.predicate_fit(st.card_size, st.size)
                if st.blobs[1] > fit:
                    raise SceneError(path, key("blobs"), f"expected at most {fit} blobs of {st.size:g} px on a "
                                                          f"{st.card_size}-px card, got {list(st.blobs)!r}")
            elif st.thickness > st.card_size / 6:
                raise SceneError(path, key("thickness"), f"expected bars at most card_size / 6 = "
                                                          f"{st.card_size / 6:g} px wide, got {st.thickness:g}")
            render.render_predicate(list(render.PREDICATES[st.predicate]), seed=0, predicate=st.predicate,
                                    card_size=st.card_size, size=st.size, blobs=st.blobs,
                                    thickness=st.thickness, jitter=render.Jitter(**{
                                        **dataclasses.asdict(st.jitter), "smudges": (0, 0), "noise": (0.0, 0.0),
                                        "blur": (0.0, 0.0)}))
        elif src == "folder":
            _validate_folder(scene, st, key)
    except render.RenderError as e:
        raise SceneError(path, _key_for(st, e.setting, split), e.reason) from None


def _check_regular(path, key: str, file: str, what: str) -> None:
    """A named file must be a regular file of sensible size (a FIFO would block, a device never end)."""
    if file == "default":
        return
    try:
        info = os.stat(file)
    except FileNotFoundError:
        raise SceneError(path, key, f"expected an existing {what}, got {file!r} (no such file)") from None
    except OSError as exc:
        why = "a symlink loop" if exc.errno == errno.ELOOP else exc.strerror
        raise SceneError(path, key, f"expected a readable {what}, got {file!r} ({why})") from None
    if not stat.S_ISREG(info.st_mode):
        raise SceneError(path, key, f"expected a regular {what}, got {file!r} ({_file_kind(info.st_mode)})")
    if info.st_size > MAX_FONT_BYTES:
        raise SceneError(path, key, f"expected a {what} of at most {MAX_FONT_BYTES:,} bytes, got {info.st_size:,}")


def _distinct(path, key, masks: dict) -> None:
    seen = {}
    for c, m in masks.items():
        sig = (m.array.shape, m.array.tobytes())
        if sig in seen:
            raise SceneError(path, key, f"expected classes that look different, got {seen[sig]!r} and {c!r} "
                                        "drawn identically (is the character in the font?)")
        seen[sig] = c


def _validate_folder(scene: Scene, st: StimulusSettings, key) -> None:
    path = scene.path
    if st.folder is None:
        raise SceneError(path, key("folder"), "expected a folder for source 'folder', got none")
    listing = render.list_image_folder(st.folder)
    for c in listing:
        if printable(c) != c or not c.isprintable():
            raise SceneError(path, key("folder"), f"expected class folder names in UTF-8 without control "
                                                  f"characters, got '{printable(c)}' in {st.folder!r}")
    with_images = [c for c in listing if listing[c]]
    if len(with_images) > MAX_CLASSES and st.classes is None:
        raise SceneError(path, key("folder"), f"expected at most {MAX_CLASSES} class subfolders with images "
                                              f"in {st.folder!r}, got {len(with_images)}")
    if st.classes is not None:
        missing = [c for c in st.classes if c not in listing]
        if missing:
            raise SceneError(path, key("classes"), f"expected subfolders of {st.folder!r}, got {missing[0]!r} "
                                                    "(no such subfolder)" + _suggest(missing[0], listing))
        classes = list(st.classes)
    else:
        classes = with_images
    if len(classes) < 2:
        raise SceneError(path, key("folder"), f"expected at least 2 class subfolders with images in "
                                              f"{st.folder!r}, got {len(classes)}"
                                              + (f" ({classes[0]!r})" if classes else ""))
    for c in classes:
        n = len(listing[c])
        if n < 2:
            raise SceneError(path, key("folder"), f"expected at least 2 images in class {c!r} "
                                                  f"({os.path.join(st.folder, c)}), got {n}")
    _, labels, _, _ = scene._folder(st)
    for c in classes:
        if labels.count(c) < 1:
            raise SceneError(path, key("subset"), f"expected at least 1 image of class {c!r} in the subset "
                                                  f"{list(st.subset)!r}, got 0")


def shipped_scenes() -> list[Path]:
    """The scene files shipped in the repository's ``scenes/`` folder (sorted)."""
    if not SCENES_DIR.is_dir():
        return []
    return sorted(SCENES_DIR.glob("*.toml"))
