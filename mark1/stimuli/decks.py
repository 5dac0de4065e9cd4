"""The cards of one split of a scene: how many of each class, in what order, drawn how.

Randomness: ``Scene.stimuli(split, seed)`` draws from
``SeedSequence(seed, spawn_key=(STIMULI_STREAM, split_index))`` — a stream of its own,
independent of any stream another part of the program spawns from the same seed, and
different for train (index 0) and test (index 1).

A deck whose float64 cards would take more than :data:`COMPACT_ABOVE` bytes is drawn
:data:`CHUNK_BYTES` of float64 at a time, each chunk from a seed of its own, and kept as
8-bit reflectance (smaller decks are drawn in one go, bit for bit as before).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mark1._utils.limits import BASE_RESIDENT, memory_limit
from mark1._utils.progress import progress_bar
from mark1.exceptions import RenderError, SceneError
from mark1.stimuli.render import render_characters, render_images, render_marks, render_predicate, render_shapes
from mark1.stimuli.schema import SPLIT_ONLY_KEYS, SPLITS, StimulusSettings, _Bad, _describe

__all__ = ["Stimuli"]

#: spawn_key element reserved for stimuli streams (see the module docstring).
STIMULI_STREAM = 0x5C3E
#: A deck whose float64 cards would take more bytes than this is stored as 8-bit reflectance,
#: rendered CHUNK_BYTES of float64 at a time (smaller decks are unchanged, bit for bit).
COMPACT_ABOVE = 256 * 2**20
CHUNK_BYTES = 32 * 2**20
#: spawn_key element of the seeds of a compact deck's chunks.
CHUNK_STREAM = 0xC4C


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
        What was drawn for each card (see :class:`mark1.stimuli.render.Rendered`).

    Examples
    --------
    >>> from mark1.stimuli import load_scene
    >>> train = load_scene("scenes/demo.toml").stimuli("train", seed=0, count=6)
    >>> len(train), train.cards.shape, train.cards.dtype
    (6, (6, 60, 60), dtype('float64'))
    >>> train.labels, train.classes
    (array(['X', 'E', 'X', 'E', 'X', 'E'], dtype='<U1'), array(['E', 'X'], dtype='<U1'))
    >>> train.variation["shift_x"].round(3)          # the scene's shift = 0.05: within [-0.05, 0.05]
    array([ 0.024,  0.049, -0.048,  0.019,  0.005, -0.005])
    """

    cards: np.ndarray
    labels: np.ndarray
    classes: np.ndarray
    variation: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.labels)


def _stimuli(scene, split: str, seed: int, count: int | None) -> Stimuli:
    """The cards of ``split`` of ``scene`` (what :meth:`Scene.stimuli` gives), arguments checked."""
    if split not in SPLITS:
        raise SceneError(scene.path, "split", f"expected 'train' or 'test', got {_describe(split)}")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SceneError(scene.path, "seed", f"expected a non-negative integer, got {_describe(seed)}")
    st = scene.settings[split]
    ckey = st.origin.get("count", f"{split}.count")
    if count is not None:
        try:
            count = SPLIT_ONLY_KEYS["count"].check(int(count) if isinstance(count, np.integer) else count)
        except _Bad as e:
            raise SceneError(scene.path, "count", f"expected {e.expected}, got {_describe(count)}") from None
        ckey = "count"
    else:
        count = st.count
    ss = np.random.SeedSequence(int(seed), spawn_key=(STIMULI_STREAM, SPLITS.index(split)))
    try:
        return _deal(scene, split, ss, count, ckey)
    except RenderError as e:
        raise SceneError(scene.path, st.key_of(e.setting, split), e.reason) from None


def _deal(scene, split: str, ss, count, ckey) -> Stimuli:
    """Which card shows what (classes alternating; folder: which image), then the deck."""
    st = scene.settings[split]
    classes = list(scene._classes_of(split))
    images = which = None
    if st.source == "folder":
        _, file_labels, images, _ = scene._folder(st, load=True)
        per_class = [np.flatnonzero(np.asarray(file_labels) == c) for c in classes]
        if count is None:
            counts = [len(p) for p in per_class]
        else:
            counts = _balanced(count, len(classes))
        _check_count(scene.path, ckey, sum(counts), len(classes), st.card_size)
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
        _check_count(scene.path, ckey, count, len(classes), st.card_size)
        labels = _labels(count, classes)
    if _is_compact(len(labels), st.card_size):
        cards, variation = _draw_compact(st, ss, labels, which, images)
    else:
        cards, variation = _draw(st, ss, labels, which, images)
    labels = np.asarray(labels, dtype=str)
    return Stimuli(cards=cards, labels=labels, classes=np.unique(labels), variation=variation)


def _is_compact(n: int, side: int) -> bool:
    """Whether ``n`` cards of ``side`` pixels are kept as 8-bit reflectance."""
    return n * side * side * 8 > COMPACT_ABOVE


def _chunk_cards(side: int) -> int:
    """Cards drawn at a time in a compact deck: CHUNK_BYTES of float64 (at least one card)."""
    return max(1, CHUNK_BYTES // (8 * side * side))


def _draw(st: StimulusSettings, ss, labels, which, images):
    """Render the cards ``labels`` (folder: the images ``which``) in one go: (cards, variation)."""
    if st.source == "folder":
        r = render_images(images, which, seed=ss, jitter=st.jitter)
        return r.cards, r.variation
    kw = dict(seed=ss, card_size=st.card_size, jitter=st.jitter)
    if st.source == "characters":
        r = render_characters(labels, font=st.font, size=st.size, stroke=st.stroke, slant=st.slant, **kw)
    elif st.source == "shapes":
        r = render_shapes(labels, size=st.size, fill=st.fill, thickness=st.thickness, slant=st.slant, **kw)
    elif st.source == "marks":
        r = render_marks(labels, size=st.size, **kw)
    else:
        r = render_predicate(labels, predicate=st.predicate, size=st.size, blobs=st.blobs,
                             thickness=st.thickness, **kw)
    return r.cards, r.variation


def _draw_compact(st: StimulusSettings, ss, labels, which, images):
    """A large deck: rendered in chunks, each from a seed of its own (spawned from ``ss``),
    and kept as 8-bit reflectance (uint8, value / 255): one byte a pixel instead of eight."""
    n, side = len(labels), st.card_size
    step = _chunk_cards(side)
    cards = np.empty((n, side, side), dtype=np.uint8)
    parts: dict[str, list] = {}
    bar = progress_bar(n, "card")
    for i, lo in enumerate(range(0, n, step)):
        hi = min(n, lo + step)
        seed = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, CHUNK_STREAM, i))
        part, variation = _draw(st, seed, labels[lo:hi], None if which is None else which[lo:hi], images)
        np.rint(np.clip(part, 0.0, 1.0) * 255.0, out=part)
        cards[lo:hi] = part
        for k, v in variation.items():
            parts.setdefault(k, []).append(np.asarray(v))
        bar.update(hi - lo)
    bar.close()
    return cards, {k: np.concatenate(v) for k, v in parts.items()}


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


def _deck_bytes(n: int, side: int) -> int:
    """Bytes of a deck of ``n`` cards of ``side`` pixels: 8 a pixel, or 1 when kept as 8-bit reflectance."""
    return n * side * side * (1 if _is_compact(n, side) else 8)


def _drawing_bytes(n: int, side: int) -> int:
    """Bytes drawing a deck takes beside the deck: a compact deck's float64 chunk with its working
    copies and the cards' labels and variation (2.5 chunks; 79 MiB measured at 60 px), a small
    deck's working copies (0.7 of the float64 deck; 0.23-0.63 measured by tracemalloc)."""
    if _is_compact(n, side):
        return int(2.5 * 8 * side * side * min(n, _chunk_cards(side)))
    return int(0.7 * 8 * side * side * n)


def _check_count(path, key, count, n_classes, card_size):
    if count < n_classes:
        raise SceneError(path, key, f"expected at least one card per class (>= {n_classes}), got {count}")
    # the deck as kept, and the chunk it is drawn in, must fit in what this process may use
    need = _deck_bytes(count, card_size) + _drawing_bytes(count, card_size)
    lim = memory_limit()
    if need > lim.bytes - BASE_RESIDENT:
        raise SceneError(path, key, f"expected a deck that fits in memory ({(lim.bytes - BASE_RESIDENT) / 1e9:.2f} GB "
                                    f"free of {lim.bytes / 1e9:.2f} GB, {lim.source}), got {count:,} cards of "
                                    f"{card_size}x{card_size}, {need / 1e9:.2f} GB "
                                    f"({1 if _is_compact(count, card_size) else 8} byte(s) a pixel); "
                                    f"lower it, or {lim.raise_by}")
