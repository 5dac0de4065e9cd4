"""The scene format: every key, its check, its default and its meaning, and the records it fills.

Each key of a scene file has a checker that returns the value normalised (a range as a
``(low, high)`` pair, a list as a tuple) or raises; ``scenes/README.md`` documents every
key of :data:`KEYS`. The tables a scene reads become :class:`Reported`,
:class:`Schedule`, :class:`Change` and, per split, :class:`StimulusSettings`.

Every problem raises :class:`~mark1.exceptions.SceneError` with the message
``<file>: <key path>: <what was expected, got what>``.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Mapping

from mark1.exceptions import SceneError
from mark1.specs import PRESETS
from mark1.stimuli.jitter import Jitter
from mark1.stimuli.masks import SHAPES
from mark1.stimuli.predicates import PREDICATES

__all__ = ["Schedule", "Reported", "Change", "StimulusSettings", "SOURCES", "SPLITS", "KEYS"]

#: Kinds of card source.
SOURCES = ("characters", "shapes", "folder", "marks", "parity")
#: Which machine made a report, as the sources say (``reported.machine``).
REPORT_MACHINES = ("mark1", "ibm704", "not named", "contradictory")
#: The two splits a scene describes.
SPLITS = ("train", "test")

FORMAT_VERSION = 1
MAX_COUNT = 1_000_000
MAX_CARD = 512
MAX_EPOCHS = 1_000_000
MAX_CLASSES = 1000
MAX_TEXT = 10_000                 # characters of a name, description or reported text
MAX_DEPTH = 8                     # nesting of tables; the deepest real key is 4 levels down


class _Bad(Exception):
    """Raised by a checker: ``expected`` text; the caller adds the key and the value."""

    def __init__(self, expected: str, got: Any = dataclasses.MISSING, *, key_suffix: str = ""):
        super().__init__(expected)
        self.expected = expected
        self.got = got
        self.key_suffix = key_suffix

    def __reduce__(self):
        # pickled as made (no value stays no value: MISSING is compared by identity)
        got = () if self.got is dataclasses.MISSING else (self.got,)
        return functools.partial(_Bad, key_suffix=self.key_suffix), (self.expected, *got)


# ----------------------------------------------------------------------------------------
# the records


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

    Examples
    --------
    >>> from mark1.stimuli import load_scene, scene_from_dict
    >>> load_scene("scenes/demo.toml").schedule
    Schedule(epochs=5, order='cyclic', rule='alpha')
    >>> scene_from_dict({"stimuli": {"classes": ["X", "E"]}}).schedule      # the defaults
    Schedule(epochs=10, order='cyclic', rule=None)
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
    machine : {"mark1", "ibm704", "not named", "contradictory"}
        Which machine made the report, as the sources say: the analog Mark I, a digital
        IBM 704 simulation, no machine named, or sources that disagree.
    scored : {"new", "recall"}
        What the report scored: new cards (the scene's test split) or the trained cards
        themselves (recall).
    reading : str or None
        The reading of the machine the report is judged on (a name of
        :data:`mark1.specs.PRESETS`); None: the scene's own machine.
    expect : {"learned", "chance"} or None
        For a report without a number: what it leads one to expect (learned; near chance,
        Minsky and Papert's predicates). The re-enactment gives it the project's own band.

    Examples
    --------
    >>> from mark1.stimuli import load_scene
    >>> reported = load_scene("scenes/e_vs_x.toml").reported
    >>> reported.value, reported.training, reported.note
    (1.0, 'distinct', 'reported as 100 % correct on test')
    >>> reported.machine, reported.scored, reported.reading
    ('not named', 'new', 'mark1-512')
    """

    source: str = ""
    conditions: str = ""
    value: float | None = None
    note: str = ""
    training: str = "unreported"
    machine: str = "not named"
    scored: str = "new"
    reading: str | None = None
    expect: str | None = None


@dataclass(frozen=True)
class Change:
    """A change made to a scene after seeing a result (a ``[[history]]`` entry).

    Attributes
    ----------
    date, change, why : str
        When, what was changed, and why.
    before : str
        The figure measured before the change, and how it was measured.

    Examples
    --------
    >>> from mark1.stimuli import load_scene, scene_from_dict
    >>> first = load_scene("scenes/demo.toml").history[0]
    >>> first.date, first.change[:36]
    ('2026-11-22', 'stimuli.stroke 0 -> 1.5: the letters')
    >>> scene_from_dict({"stimuli": {"classes": ["X", "E"]}, "history": [{"change": "a", "why": "b"}]}).history
    (Change(date='', change='a', why='b', before=''),)
    """

    date: str
    change: str
    why: str
    before: str = ""


@dataclass(frozen=True)
class StimulusSettings:
    """The effective card settings of one split (defaults ← ``[stimuli]`` ← ``[train]``/``[test]``).

    Attributes
    ----------
    source : {"characters", "shapes", "folder", "marks", "parity"}
        Where the cards come from.
    classes : tuple of str or None
        The classes as written (None where the source names them, or a folder's every subfolder).
    count : int or None
        Cards in the split (None: the default, 100, or a folder's every image once).
    card_size : int
        Card side in pixels.
    font, size, stroke, slant, fill, thickness, folder, invert, subset, predicate, blobs, second_font
        The source's settings (``scenes/README.md``; sizes in card pixels, angles in degrees).
    jitter : Jitter
        The per-card variation.
    origin : dict of str to str
        The key path each setting came from (for error messages).

    Examples
    --------
    >>> from mark1.stimuli import load_scene
    >>> st = load_scene("scenes/demo.toml").settings["train"]
    >>> st.source, st.classes, st.card_size, st.size, st.stroke, st.jitter.shift
    ('characters', ('X', 'E'), 60, 40.0, 1.5, (-0.05, 0.05))
    >>> st.key_of("stroke", "train"), st.key_of("jitter.rotation", "test")
    ('stimuli.stroke', 'test.jitter.rotation')
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
    jitter: Jitter
    origin: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    second_font: str | None = None

    def key_of(self, setting: str, split: str) -> str:
        """The key path of the file that set ``setting`` (a setting name, ``"jitter.NAME"`` or
        ``"jitter"`` for the geometric jitter), or where it would be set; ``split`` is
        ``"train"`` or ``"test"``."""
        head, _, tail = setting.partition(".")
        if head == "jitter" and tail:
            return self.origin.get(setting, f"{split}.jitter.{tail}")
        if head == "jitter":
            for k in ("shift", "rotation", "scale", "slant"):
                if f"jitter.{k}" in self.origin:
                    return self.origin[f"jitter.{k}"]
            return f"{split}.jitter"
        return self.origin.get(setting, f"stimuli.{setting}")


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
                raise _Bad(form, e.got if e.got is not dataclasses.MISSING else v) from None
            if a > b:
                raise _Bad(form + " with low <= high", v)
            return (a, b)
        try:
            x = one(v)
        except _Bad as e:
            raise _Bad(form, e.got) from None
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
                  "characters: the texts to print; shapes: names from " + ", ".join(SHAPES)
                  + "; folder: which subfolders (default all); not used by marks/parity"),
    "card_size": _k(_num(8, MAX_CARD, integer=True, unit="pixels"), 60, "integer",
                    "card side in pixels (finer than the 20x20 retina)"),
    "font": _k(_str(nonempty=True, what="'default' or the path of a TTF/OTF file", max_len=4096), "default",
               "string",
               "characters: 'default' (Pillow's bundled font) or a font file, relative to the scene file"),
    "second_font": _k(_str(nonempty=True, what="the path of a TTF/OTF file or 'matplotlib:NAME'", max_len=4096),
                      None, "string",
                      "characters: a second face in the same split; the second half of the split's cards "
                      "(count // 2, balanced over the classes, drawn from their own stream) are printed in it"),
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
    "predicate": _k(_choice(tuple(PREDICATES) + ("points",)), "parity", "string",
                    "parity: 'parity' (classes even/odd blob counts), 'connectedness' "
                    "(classes connected/disconnected) or 'points' (even/odd numbers of lit points: "
                    "photocell-sized squares, the S-units that fire under the ideal retina)"),
    "blobs": _k(_blobs, (1, 6), "[integer, integer]",
                "parity: range of the number of blobs; points: range of the number of lit points"),
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
    "machine": _k(_choice(REPORT_MACHINES), "not named", "string",
                  "which machine made the report, as the sources say: " + ", ".join(map(repr, REPORT_MACHINES))),
    "scored": _k(_choice(("new", "recall")), "new", "string",
                 "what the report scored: 'new' cards (the test split) or 'recall' of the trained cards"),
    "reading": _k(_choice(tuple(PRESETS)), None, "string",
                  "the reading the report is judged on, a name of mark1.specs.PRESETS (default: the scene's "
                  "machine)"),
    "expect": _k(_choice(("learned", "chance")), None, "string",
                 "a report without a number: 'learned' or 'chance' (near 0.5); judged on the project's own band"),
}

SCHEDULE_KEYS: dict[str, Key] = {
    "epochs": _k(_num(1, MAX_EPOCHS, integer=True), 10, "integer", "passes through the training cards"),
    "order": _k(_choice(("cyclic", "shuffled")), "cyclic", "string",
                "'cyclic': the cards as given, classes alternating; 'shuffled': reshuffled each epoch"),
    "rule": _k(_choice(("alpha", "beta", "gamma", "lms")), None, "string",
               "learning rule (value system), applied as the machine override trainer.rule; forced learning "
               "is trainer.reinforcement = 'forced'"),
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

MACHINE_KEYS = ("preset", "device", "overrides")
TABLES = ("reported", "stimuli", "train", "test", "machine", "schedule")

#: Every documented key path (``*`` stands for train or test), for the README and tests.
KEYS: list[str] = (
    [*TOP_KEYS]
    + [f"reported.{k}" for k in REPORTED_KEYS]
    + [f"stimuli.{k}" for k in STIMULUS_KEYS]
    + [f"stimuli.jitter.{k}" for k in JITTER_KEYS]
    + [f"*.{k}" for k in SPLIT_ONLY_KEYS]
    + ["machine.preset", "machine.device", "machine.overrides"]
    + [f"schedule.{k}" for k in SCHEDULE_KEYS]
)

# which stimulus keys each source uses
_USES = {
    "characters": {"classes", "card_size", "font", "size", "stroke", "slant", "second_font"},
    "shapes": {"classes", "card_size", "size", "fill", "thickness", "slant"},
    "folder": {"classes", "card_size", "folder", "invert", "subset"},
    "marks": {"card_size", "size"},
    "parity": {"card_size", "predicate", "size", "blobs", "thickness"},
}
_SIZE_DEFAULT = {"characters": 40.0, "shapes": 36.0, "marks": 8.0, "parity": 8.0, "folder": None}


# ----------------------------------------------------------------------------------------
# checking a table


def _check_depth(path, data: Mapping) -> None:
    """Refuse tables nested deeper than :data:`MAX_DEPTH` (walked without recursion)."""
    stack: list[tuple[tuple, Mapping | list]] = [((), data)]
    while stack:
        keys, m = stack.pop()
        if len(keys) > MAX_DEPTH:
            shown = ".".join(map(str, keys[:MAX_DEPTH])) + "..."
            raise SceneError(path, shown, f"expected tables nested at most {MAX_DEPTH} deep, got deeper")
        items = m.items() if isinstance(m, Mapping) else enumerate(m)
        for k, v in items:
            if isinstance(v, (Mapping, list)):
                stack.append(((*keys, k), v))


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
                raise SceneError(path, key + e.key_suffix, f"expected {e.expected}, got {_describe(got)}") from None
        elif not only_present:
            out[k] = spec.check(spec.default) if isinstance(spec.default, list) else spec.default
    return out


def _expected_of(spec: Key) -> str:
    try:
        spec.check({})
    except _Bad as e:
        return e.expected
    return spec.type  # pragma: no cover
