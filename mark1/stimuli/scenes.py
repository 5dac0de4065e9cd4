"""Scenes: one TOML file per experiment, the historical result it re-enacts, and its cards.

A scene file says what the cards look like (``[stimuli]``, with ``[train]`` and ``[test]``
free to differ), which machine sees them (``[machine]``: a preset of :mod:`mark1.specs`
plus overrides), how they are presented (``[schedule]``) and what was reported when
this was done before (``[reported]``). ``scenes/README.md`` documents every key, and
:mod:`mark1.stimuli.schema` holds them with their checks.

Loading a scene checks everything that can be checked before a card is drawn: every key
(:mod:`~mark1.stimuli.schema`), then, per split, what only the source can tell (the font
draws every class, the classes look different, the folder has images of each class), the
machine (preset and overrides), and that the test split asks about trained classes with
images the machine was not trained on. Every problem raises
:class:`~mark1.exceptions.SceneError`, a ``ValueError`` whose message is one line
``<file>: <key path>: <what was expected, got what>``.

Examples
--------
>>> from mark1.stimuli import load_scene
>>> scene = load_scene("scenes/e_vs_x.toml")
>>> train = scene.stimuli("train", seed=0)
>>> train.cards.shape, train.labels[:4], train.classes
((20, 60, 60), array(['X', 'E', 'X', 'E'], dtype='<U1'), array(['E', 'X'], dtype='<U1'))
"""

from __future__ import annotations

import dataclasses
import errno
import math
import os
import stat
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from collections.abc import Mapping, Sequence

import numpy as np

from mark1 import devices, specs
from mark1._utils.html import html_table
from mark1._utils.language import percent
from mark1._utils.limits import check_allocation
from mark1.exceptions import RenderError, SceneError, printable
from mark1.stimuli.budget import COMMANDS, Resources, _estimate
from mark1.stimuli.decks import Stimuli, _stimuli
from mark1.stimuli.fonts import MATPLOTLIB_FONT, check_font, font_file, missing_characters
from mark1.stimuli.images import decoded_bytes, list_image_folder, read_image
from mark1.stimuli.jitter import Jitter
from mark1.stimuli.masks import SHAPES, glyph_mask, oversample_for, shape_mask
from mark1.stimuli.predicates import PREDICATES, _predicate_fit
from mark1.stimuli.render import render_marks, render_predicate
from mark1.stimuli.schema import (JITTER_KEYS, MACHINE_KEYS, MAX_CLASSES, MAX_COUNT, REPORTED_KEYS, SCHEDULE_KEYS,
                                  SPLIT_ONLY_KEYS, SPLITS, STIMULUS_KEYS, TABLES, TOP_KEYS, Reported, Schedule,
                                  StimulusSettings, _check_depth, _check_table, _describe, _SIZE_DEFAULT, _suggest,
                                  _unknown, _USES)

__all__ = ["Scene", "load_scene", "scene_from_dict", "shipped_scenes", "scene_names", "SCENES_DIR"]



def _builtin_folder() -> Path:
    """The folder of the package ``mark1.scenes`` (the repository's ``scenes/``, or the wheel's copy).

    mark1 imported from a source tree (a clone or an unpacked sdist on ``sys.path``, as
    ``python -m pytest`` there does) has no ``mark1/scenes``: the package is the tree's own
    top-level ``scenes/``, which setuptools maps onto it when installing. Where neither
    exists (an editable install made before the mapping), the folder it would be, so that
    :func:`shipped_scenes` can say what is wrong when asked.
    """
    try:
        folder = resources.files("mark1.scenes")
    except ModuleNotFoundError:
        tree = Path(__file__).resolve().parents[2] / "scenes"
        return tree if (tree / "__init__.py").is_file() else Path(__file__).resolve().parents[1] / "scenes"
    # pip installs unpack package data onto the file system; a zipped install has no paths
    return folder if isinstance(folder, Path) else Path(str(folder))


#: The built-in scenes' folder: package data of ``mark1.scenes``, read with importlib.resources.
SCENES_DIR = _builtin_folder()
MAX_SCENE_BYTES = 1_000_000       # the shipped scenes are ~2 kB; a larger file is not a scene
MAX_FONT_BYTES = 64_000_000       # the largest CJK fonts are ~20 MB


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

    Examples
    --------
    >>> from mark1.stimuli import load_scene
    >>> scene = load_scene("scenes/demo.toml")
    >>> scene
    Scene('Demo: X vs E on a small machine', path='scenes/demo.toml')
    >>> scene.classes, scene.preset, scene.machine_spec().patchboard.n_associators
    (('E', 'X'), 'SMALL', 64)
    >>> scene.stimuli("test", seed=0).cards.shape
    (40, 60, 60)
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
    def argument(self) -> str:
        """How a command line names this scene: a built-in scene's name, else its file (or its name).

        Examples
        --------
        >>> load_scene("scenes/demo.toml").argument, load_scene("demo").argument
        ('demo', 'demo')
        """
        if not self.path:
            return self.name
        p = Path(self.path)
        builtin = p.suffix == ".toml" and p.resolve().parent == SCENES_DIR.resolve()
        return p.stem if builtin else self.path

    @property
    def classes(self) -> tuple:
        """The classes of the training split, sorted."""
        return tuple(sorted(self._classes_of("train")))

    def _classes_of(self, split) -> tuple:
        st = self.settings[split]
        if st.source == "marks":
            return ("left", "right")
        if st.source == "parity":
            return PREDICATES.get(st.predicate, POINTS_CLASSES)
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
        st = self.settings.get(split) if isinstance(split, str) else None
        # a count the schema refuses is left to the deck's own check (a SceneError naming it)
        n = count if isinstance(count, int) and not isinstance(count, bool) and 0 < count <= MAX_COUNT else (
            st.count if st is not None else None)
        if st is not None and isinstance(n, int):   # the deck is n float cards: refuse it before rendering any
            key = "count" if count is not None else f"{split}.count"
            check_allocation(8 * int(n) * st.card_size ** 2, key if count is not None else f"{self.path}: {key}",
                             f"{int(n):,} cards of {st.card_size}x{st.card_size} pixels")
        if st is not None and st.second_font is not None:
            return _two_faces(self, split, seed, count, st.second_font)
        if st is not None and st.source == "parity" and st.predicate == "points":
            return _lit_points(self, split, seed, count)
        return _stimuli(self, split, seed, count)

    def _folder(self, st: StimulusSettings, load: bool = False):
        """(classes, label of each file, images or None, files) for a folder source, cached."""
        key = (st.folder, st.classes, st.subset, st.invert, st.card_size, load)
        if key in self._cache:
            return self._cache[key]
        if st.folder is None:           # the schema asks a folder source for its folder
            raise SceneError(self.path, "folder", f"expected the folder of a source = 'folder', got {st.source!r}")
        listing = list_image_folder(st.folder)
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
            # the cards (a float list, then its stack) and the largest image being decoded, from the
            # headers before any is decoded: 13,000 16-bit images are refused at once, not after a minute
            need = 2 * 8 * len(files) * st.card_size ** 2 + max((decoded_bytes(f) for f in files), default=0)
            check_allocation(need, f"{self.path}: {st.folder}", f"{len(files):,} decoded images")
            images = np.stack([read_image(f, st.card_size, st.invert) for f in files])
        out = (classes, labels, images, files)
        self._cache[key] = out
        return out

    def resources(self, *, train_count: int | None = None, test_count: int | None = None,
                  trace: str = "summary", command: str = "run", epochs: int | None = None,
                  overrides: Mapping[str, Any] | None = None, learners: Sequence[str] | None = None,
                  lesson_cards: int | None = None) -> Resources:
        """Estimate the peak memory and the work of a command on this scene, without drawing a card.

        The bytes the command really keeps, stage by stage (:mod:`mark1.stimuli.budget`):
        the decks (1 or 8 bytes a pixel), the wiring and the pots, training (the light
        of the deck or a block of presentations, every card's A-unit outputs on the
        ideal machine's fast path), the record of every presentation (the full trace
        where the command keeps it), scoring a chunk of cards at a time, and the
        textbook classifiers' matrices (``compare``).

        Parameters
        ----------
        train_count, test_count : int, optional
            Cards instead of the scene's counts.
        trace : {"summary", "full"}
            What ``mark1 run --trace`` keeps (``explain`` and ``lesson`` keep the full trace).
        command : str
            One of :data:`mark1.stimuli.budget.COMMANDS`; a lab command's estimate is one job's.
        epochs : int, optional
            Passes instead of the schedule's (a sweep's longest, ``lesson --epochs``).
        overrides : dict, optional
            Machine parameters instead of the scene's (``{"patchboard.n_associators": 1000}``).
        learners : sequence of str, optional
            The learners of ``compare`` (default every one).
        lesson_cards : int, optional
            The cards of ``lesson --cards`` (otherwise the lesson's cut rule,
            :func:`mark1._utils.limits.lesson_deck`, applies).

        Returns
        -------
        Resources

        Raises
        ------
        SceneError
            For an unknown command; a SpecError for overrides the machine cannot take.

        Examples
        --------
        >>> scene = load_scene("scenes/square_vs_circle.toml")
        >>> run = scene.resources(train_count=100_000)
        >>> f"{run.memory / 2**30:.1f} GiB", run.largest()      # the 8-bit deck: 360 MB
        ('0.8 GiB', '--train-count')
        >>> compare = scene.resources(command="compare")
        >>> compare.memory > scene.resources().memory          # the classifiers' float64 copies of S and phi
        True
        """
        if command not in COMMANDS:
            raise SceneError(self.path, "command", f"expected one of {', '.join(COMMANDS)}, got {_describe(command)}")
        return _estimate(self, train_count=train_count, test_count=test_count, trace=trace, command=command,
                         epochs=epochs, overrides=overrides, learners=learners, lesson_cards=lesson_cards)

    def __repr__(self) -> str:
        text = f"Scene({self.name!r}, path={self.path!r})"
        if len(text) > 120 and self.path:          # a long absolute path: its file name says which scene
            text = f"Scene({self.name!r}, path='…/{Path(self.path).name}')"
        return text if len(text) <= 120 else text[:119] + "…"

    def _repr_html_(self) -> str:
        """What a notebook shows: the scene's name, description, cards, machine, schedule and report."""
        sch = self.schedule
        rows = [("file", self.path or "-"), ("description", " ".join(self.description.split()) or "-"),
                ("classes", ", ".join(map(str, self.classes))),
                ("cards", ", ".join(f"{k}: {'-' if v.count is None else v.count}" for k, v in self.settings.items())),
                ("machine", self.machine_spec().name + (" with overrides" if self.overrides else "")),
                ("schedule", f"{sch.epochs} epoch{'s' * (sch.epochs != 1)}, {sch.order}, rule {sch.rule}"),
                ("reported", ("no figure" if self.reported.value is None else percent(self.reported.value))
                 + (f" ({self.reported.source})" if self.reported.source else ""))]
        return html_table(("Scene", self.name), rows, left=(0, 1))


#: The classes of the lit-points predicate (Minsky and Papert's parity).
POINTS_CLASSES = ("even", "odd")
_POINTS_STREAM = 7919          # a stream of its own for the lit-points cards
_RETINA_SIDE = specs.MARK_I.retina.shape[0]


def _lit_points(scene: Scene, split: str, seed: int, count: int | None) -> Stimuli:
    """Minsky and Papert's parity: cards with k photocell-sized black squares, even or odd k.

    The card is divided into the retina's cells (``card_size / 20`` pixels a side); each
    lit point inks one whole cell, so under the ideal retina exactly k S-units fire. For
    each card m is drawn uniformly so that 2m lies in ``blobs``; an even card has k = 2m,
    an odd one k = 2m ± 1 (each sign equally often), so both classes have the same mean ink.
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SceneError(scene.path, "seed", f"expected a non-negative integer, got {seed!r}")
    st = scene.settings[split]
    n = int(count if count is not None else (st.count if st.count is not None else 100))
    if n < 2:
        raise SceneError(scene.path, "count" if count is not None else f"{split}.count",
                         f"expected at least one card per class (>= 2), got {n}")
    cells = scene.machine_spec().retina.shape[0]
    px = st.card_size // cells
    rs = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(_POINTS_STREAM, SPLITS.index(split))))
    lo, hi = int(st.blobs[0]), int(st.blobs[1])
    m = rs.integers(-(-max(lo, 1) // 2), hi // 2 + 1, size=n)
    cls = np.arange(n) % 2
    k = 2 * m + cls * rs.choice([-1, 1], size=n)
    cards = np.ones((n, st.card_size, st.card_size))
    for i in range(n):
        for c in rs.choice(cells * cells, size=int(k[i]), replace=False):
            r, q = divmod(int(c), cells)
            cards[i, r * px:(r + 1) * px, q * px:(q + 1) * px] = 0.0
    labels = np.array(POINTS_CLASSES)[cls]
    return Stimuli(cards=cards, labels=labels, classes=np.array(sorted(POINTS_CLASSES)),
                   variation={"points": k})


def _two_faces(scene: Scene, split: str, seed: int, count: int | None, second_font: str) -> Stimuli:
    """A split printed in two faces: the first ``n - n // 2`` cards in ``font``, the rest in ``second_font``.

    Each half is balanced over the classes and drawn as its own deck (the second from a
    stream of its own), so the first half is the deck the split would give with one face.
    """
    st = scene.settings[split]
    n = count if count is not None else (st.count if st.count is not None else 100)
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n < 2:
        raise SceneError(scene.path, "count" if count is not None else f"{split}.count",
                         f"expected at least 2 cards when {split} has a second_font (one per face), got {n}")
    k = len(scene.classes)
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n // 2 < k:   # before any card is drawn
        raise SceneError(scene.path, "count" if count is not None else f"{split}.count",
                         f"expected at least one card per class in each face when {split} has a second_font "
                         f"(>= {2 * k}), got {n}")
    first = _stimuli(scene, split, seed, n - n // 2)
    other = dataclasses.replace(scene, settings={**scene.settings,
                                                 split: dataclasses.replace(st, font=second_font,
                                                                            second_font=None)})
    seed2 = int(np.random.SeedSequence([int(seed), 2]).generate_state(1, np.uint32)[0])
    second = _stimuli(other, split, seed2, n // 2)
    cards = np.concatenate([first.cards, second.cards.astype(first.cards.dtype)])
    variation = {k: np.concatenate([v, second.variation[k]]) for k, v in first.variation.items()
                 if k in second.variation}
    variation["face"] = np.repeat([0, 1], [len(first.labels), len(second.labels)])
    return Stimuli(cards=cards, labels=np.concatenate([first.labels, second.labels]),
                   classes=first.classes, variation=variation)


def load_scene(path: str | os.PathLike) -> Scene:
    """Read and check a scene file, or a built-in scene by name.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.toml`` file, or the name of a built-in scene (:func:`scene_names`: ``"demo"``
        is ``scenes/demo.toml`` of the package). A file that exists wins over a name. Font
        and folder paths inside the file are relative to its folder.

    Returns
    -------
    Scene
        Checked through: every key, the fonts, shapes and folders it names, the machine.

    Raises
    ------
    SceneError
        For anything wrong with the file; the message names the file and the key.

    Examples
    --------
    >>> from mark1.stimuli import SceneError, load_scene
    >>> scene = load_scene("demo")                  # the built-in scene, wherever mark1 is installed
    >>> scene.name, scene.classes
    ('Demo: X vs E on a small machine', ('E', 'X'))
    >>> load_scene("scenes/demo.toml").name == scene.name   # a file: here, the repository's copy
    True
    >>> try:
    ...     load_scene("scenes/no_such_scene.toml")
    ... except SceneError as e:
    ...     print(e)
    scenes/no_such_scene.toml: file: expected an existing scene file, got no such file
    >>> try:
    ...     load_scene("demmo")
    ... except SceneError as e:
    ...     print(e)                                  # doctest: +ELLIPSIS
    demmo: file: expected a scene file or a built-in scene's name (alphabet, connectedness, demo, ...), got neither
    """
    if not isinstance(path, (str, os.PathLike)):
        raise SceneError(None, None, f"expected the path of a scene file, got {_describe(path)}")
    if "\x00" in os.fsdecode(path):            # the system's calls would raise a bare ValueError
        raise SceneError(os.fsdecode(path), None, "expected a file name without a NUL character")
    p = Path(path)
    shown = str(path)
    if _is_name(path) and not os.path.lexists(p):
        p = _builtin(shown)
        shown = str(p)
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
        raise SceneError(shown, None, f"expected an existing scene file, got no such file{_name_hint(p)}") from None
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


def scene_from_dict(data: Mapping[str, Any], *, path: str | None = None, base_dir: str | os.PathLike | None = None,
                    default_name: str = "scene") -> Scene:
    """Build a scene from an already-parsed mapping (the structure of a scene file).

    Parameters
    ----------
    data : mapping
        The tables and keys of a scene file (``scenes/README.md``).
    path : str, optional
        The file it came from, named in error messages.
    base_dir : str or os.PathLike, optional
        Resolves relative font and folder paths (default: the working folder).
    default_name : str
        The scene's name when ``data`` has none.

    Returns
    -------
    Scene
        Checked as a file is by :func:`load_scene`.

    Raises
    ------
    SceneError
        For anything wrong in ``data``; the message names ``path`` and the key.

    Examples
    --------
    >>> from mark1.stimuli import SceneError, scene_from_dict
    >>> scene = scene_from_dict({"stimuli": {"source": "shapes", "classes": ["square", "circle"]},
    ...                          "train": {"count": 4}, "machine": {"preset": "SMALL"}})
    >>> scene.classes, scene.settings["train"].size, scene.stimuli("train").cards.shape
    (('circle', 'square'), 36.0, (4, 60, 60))
    >>> try:
    ...     scene_from_dict({"stimuli": {"classes": ["X", "E"], "jitter": {"rotaton": 5}}}, path="mine.toml")
    ... except SceneError as e:
    ...     print(e.key)
    stimuli.jitter.rotaton
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

    if reported.reading is not None and reported.machine == "mark1" and reported.reading == "ibm704":
        raise SceneError(path, "reported.reading", "expected a Mark I reading (a name of mark1.specs.PRESETS "
                                                   "other than 'ibm704') for a report of the Mark I, got 'ibm704'")
    if reported.machine == "ibm704" and reported.reading not in (None, "ibm704"):
        raise SceneError(path, "reported.reading", f"expected 'ibm704' for a report of the IBM 704, "
                                                   f"got {reported.reading!r}")
    sch = _check_table(path, "schedule", data.get("schedule", {}), SCHEDULE_KEYS)
    schedule = Schedule(**sch)
    if reported.training == "distinct" and schedule.epochs != 1:
        raise SceneError(path, "schedule.epochs", f"expected 1 when reported.training is 'distinct' (each "
                                                  f"card shown once), got {schedule.epochs}")

    preset, overrides, spec = _machine(path, data.get("machine", {}), schedule.rule)

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


def shipped_scenes() -> list[Path]:
    """The built-in scene files (package data of ``mark1.scenes``), sorted by name.

    Returns
    -------
    list of pathlib.Path
        One ``.toml`` file per scene, in :data:`SCENES_DIR` (the repository's ``scenes/``
        in an editable install, the installed package's copy otherwise).

    Raises
    ------
    SceneError
        When the install lacks the package ``mark1.scenes`` (an editable install made
        before it existed: ``pip install -e .`` again).

    Examples
    --------
    >>> from mark1.stimuli import shipped_scenes
    >>> names = [p.name for p in shipped_scenes()]
    >>> "demo.toml" in names, names == sorted(names)
    (True, True)
    """
    if not SCENES_DIR.is_dir():
        raise SceneError("mark1.scenes", None, "expected the built-in scenes installed with mark1, got no such "
                                               "package; reinstall mark1 (pip install -e . in a clone)")
    return sorted(SCENES_DIR.glob("*.toml"))


def scene_names() -> list[str]:
    """The names of the built-in scenes, as :func:`load_scene` and every command take them.

    Returns
    -------
    list of str
        The file names of :func:`shipped_scenes` without ``.toml``, sorted.

    Examples
    --------
    >>> from mark1.stimuli import scene_names
    >>> scene_names()[:4]
    ['alphabet', 'connectedness', 'demo', 'e_vs_f']
    """
    return [p.stem for p in shipped_scenes()]


def _is_name(path) -> bool:
    """Whether ``path`` reads as a built-in scene's name: one word, no folder, no suffix."""
    text = os.fspath(path)
    return (isinstance(text, str) and text != "" and "/" not in text and os.sep not in text
            and (os.altsep is None or os.altsep not in text) and "." not in text)


def _name_hint(path: Path) -> str:
    """For a missing ``scenes/demo.toml`` outside the repository: the built-in scene's name to use."""
    try:
        known = path.suffix == ".toml" and path.stem in scene_names()
    except SceneError:                   # no built-in scenes to point to
        known = False
    return f" (the built-in scene of that name is {path.stem!r})" if known else ""


def _builtin(name: str) -> Path:
    """The built-in scene file called ``name``, or one line naming every built-in scene."""
    files = {p.stem: p for p in shipped_scenes()}
    if name not in files:
        raise SceneError(name, None, f"expected a scene file or a built-in scene's name "
                                     f"({', '.join(files)}), got neither")
    return files[name]


# ----------------------------------------------------------------------------------------
# the file


def _file_kind(mode: int) -> str:
    """What a path that is not a regular file is (for the message that refuses it)."""
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


# ----------------------------------------------------------------------------------------
# the machine


def _machine(path, machine: Mapping, rule):
    """The ``[machine]`` table: its preset, its overrides and the machine they make (checked now)."""
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
    if "device" in machine:
        overrides = _with_device(path, machine["device"], overrides)
    return preset, overrides, _build_spec(path, preset, overrides, rule)


def _with_device(path, name, overrides: Mapping) -> dict:
    """A device preset's rack overrides (:mod:`mark1.devices`) under the scene's own,
    which win, in the form (dotted or nested) the scene gives its rack keys."""
    if not isinstance(name, str) or name not in devices.PRESETS:
        raise SceneError(path, "machine.device",
                         f"expected one of {', '.join(map(repr, devices.PRESETS))}, got {_describe(name)}"
                         + _suggest(name if isinstance(name, str) else "", list(devices.PRESETS)))
    merged = dict(overrides)
    nested = dict(merged["rack"]) if isinstance(merged.get("rack"), Mapping) else None
    for key, value in devices.device_overrides(name).items():
        leaf = key.partition(".")[2]
        if key in merged or (nested is not None and leaf in nested):
            continue
        if nested is not None:
            nested[leaf] = value
        else:
            merged[key] = value
    if nested is not None:
        merged["rack"] = nested
    return merged


def _freeze(m):
    return {k: _freeze(v) if isinstance(v, Mapping) else v for k, v in m.items()}


def _presets() -> dict[str, specs.MachineSpec]:
    """The machines a scene may name: the upper-case specs (MARK_I, SMALL) and every reading."""
    named = {k: v for k, v in vars(specs).items() if isinstance(v, specs.MachineSpec) and k.isupper()}
    return {**named, **specs.PRESETS}


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


# ----------------------------------------------------------------------------------------
# a split's settings, and what only its source can tell


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
    jitter = Jitter(**{**defaults, **jit})

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
    for k in ("font", "second_font"):
        if d[k] is not None and d[k].startswith(MATPLOTLIB_FONT):        # a face shipped with matplotlib
            try:
                d[k] = font_file(d[k])
            except RenderError as e:
                raise SceneError(path, origin.get(k, f"stimuli.{k}"), e.reason) from None
    for k in ("font", "folder", "second_font"):
        v = d[k]
        if v is not None and not (k == "font" and v == "default"):
            d[k] = _real_path(path, origin.get(k, f"stimuli.{k}"), base / os.path.expanduser(v))
    return StimulusSettings(
        source=source, classes=d["classes"], count=d["count"], card_size=d["card_size"], font=d["font"],
        size=d["size"], stroke=d["stroke"], slant=d["slant"], fill=d["fill"], thickness=d["thickness"],
        folder=d["folder"], invert=d["invert"], subset=tuple(d["subset"]), predicate=d["predicate"],
        blobs=tuple(d["blobs"]), jitter=jitter, origin=origin, second_font=d["second_font"])


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

    def key(name):
        return st.key_of(name, split)

    src = st.source
    if src in ("characters", "shapes") and st.classes is None:
        raise SceneError(path, key("classes"), f"expected a list of classes for source {src!r}, got none")
    if st.size is not None and st.size > 2 * st.card_size:
        raise SceneError(path, key("size"), f"expected a size <= 2 x card_size = {2 * st.card_size}, got {st.size:g}")
    try:
        if src == "characters":
            _validate_characters(path, st, key)
        elif src == "shapes":
            _validate_shapes(path, st, key)
        elif src == "marks":
            render_marks(["left", "right"], seed=0, card_size=st.card_size, size=st.size, jitter=st.jitter)
        elif src == "parity":
            _validate_predicate(path, st, key)
        elif src == "folder":
            _validate_folder(scene, st, key)
    except RenderError as e:
        raise SceneError(path, key(e.setting), e.reason) from None


def _validate_characters(path, st: StimulusSettings, key) -> None:
    """The stroke fits the size, the font is a readable file that draws every class, and the classes differ."""
    if st.stroke > st.size / 2:
        raise SceneError(path, key("stroke"), f"expected a stroke <= size / 2 = {st.size / 2:g}, got {st.stroke:g}")
    for fk, font in (("font", st.font), ("second_font", st.second_font)):
        if font is None:
            continue
        _check_regular(path, key(fk), font, "font file")
        check_font(font)
        for c in st.classes:
            missing = missing_characters(c, font)
            if missing:
                raise SceneError(path, key("classes"), f"expected characters the font can draw, got {c!r} "
                                                        f"({missing[0]!r} is not in font {font!r})")
    k = oversample_for(st.card_size)
    masks = {c: glyph_mask(c, st.font, float(st.size), float(st.stroke), k) for c in st.classes}
    _distinct(path, key("classes"), masks)


def _validate_shapes(path, st: StimulusSettings, key) -> None:
    """Known shapes, an outline thinner than they are, and shapes that differ."""
    bad = [c for c in st.classes if c not in SHAPES]
    if bad:
        raise SceneError(path, key("classes"), f"expected shapes from {', '.join(SHAPES)}, "
                                                f"got {bad[0]!r}" + _suggest(bad[0], SHAPES))
    if st.fill == "outline" and st.thickness * 2 >= st.size * (0.25 if {"hbar", "vbar"} & set(st.classes) else 0.577):
        raise SceneError(path, key("thickness"), f"expected an outline thinner than the shapes "
                                                  f"(size {st.size:g}), got {st.thickness:g}")
    k = oversample_for(st.card_size)
    masks = {c: shape_mask(c, float(st.size), st.fill, float(st.thickness), k) for c in st.classes}
    _distinct(path, key("classes"), masks)


def _validate_predicate(path, st: StimulusSettings, key) -> None:
    """No classes of its own, blobs or bars that fit the card, and one card of each class drawn."""
    if st.classes is not None:
        raise SceneError(path, key("classes"), "expected no classes for source 'parity' (they are "
                                               f"{' and '.join(PREDICATES.get(st.predicate, POINTS_CLASSES))}), "
                                               f"got {list(st.classes)!r}")
    if st.predicate == "points":
        if st.card_size % _RETINA_SIDE:
            raise SceneError(path, key("card_size"), f"expected a multiple of {_RETINA_SIDE} pixels for lit points "
                                                      f"(one point a retina cell), got {st.card_size}")
        if st.blobs[0] < 1:
            raise SceneError(path, key("blobs"), f"expected at least 1 lit point, got {list(st.blobs)!r}")
        return
    if st.predicate == "parity":
        fit = _predicate_fit(st.card_size, st.size)
        if st.blobs[1] > fit:
            raise SceneError(path, key("blobs"), f"expected at most {fit} blobs of {st.size:g} px on a "
                                                  f"{st.card_size}-px card, got {list(st.blobs)!r}")
    elif st.thickness > st.card_size / 6:
        raise SceneError(path, key("thickness"), f"expected bars at most card_size / 6 = "
                                                  f"{st.card_size / 6:g} px wide, got {st.thickness:g}")
    plain = Jitter(**{**dataclasses.asdict(st.jitter), "smudges": (0, 0), "noise": (0.0, 0.0), "blur": (0.0, 0.0)})
    render_predicate(list(PREDICATES[st.predicate]), seed=0, predicate=st.predicate, card_size=st.card_size,
                     size=st.size, blobs=st.blobs, thickness=st.thickness, jitter=plain)


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
    seen: dict[tuple[tuple[int, ...], bytes], Any] = {}
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
    listing = list_image_folder(st.folder)
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


def _check_train_test(scene: Scene, data: Mapping) -> None:
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
