"""What a run of a scene will need, estimated before any card is drawn: memory, work and time.

``mark1 run`` checks :meth:`Scene.resources <mark1.stimuli.scenes.Scene.resources>` against
``--memory-limit`` and says so before work that takes long; each part of the memory is
keyed by the scene key that sets it, so that a refusal can name what to change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mark1._utils.limits import LIGHT_KEPT_BYTES, SENSE_CHUNK
from mark1.machine.response import OutputCode
from mark1.stimuli.decks import _chunk_cards, _is_compact

__all__ = ["Resources", "RATES"]

#: Per-second rates behind :attr:`Resources.seconds`, measured on the development machine
#: (2 cores shared with other work): card pixels rendered, A-units wired, presentations
#: simulated (their fixed cost) and pots updated.
RATES = {"pixels": 2e6, "a_units": 1e4, "presentations": 5e3, "pot_updates": 2e7}


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

    Examples
    --------
    >>> from mark1.stimuli import load_scene
    >>> res = load_scene("scenes/demo.toml").resources()
    >>> res.presentations                       # 5 epochs x 40 training cards
    200
    >>> res.largest(), sorted(res.parts)
    ('train.count', ['machine.overrides.patchboard.n_associators', 'schedule.epochs', 'test.count', 'train.count'])
    >>> res.memory > sum(res.parts.values())          # + the interpreter and its libraries
    True
    """

    memory: int
    parts: dict
    presentations: int
    pot_updates: int
    seconds: float = 0.0

    def largest(self) -> str:
        """The key whose part of the memory is largest."""
        return max(self.parts, key=self.parts.get)


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


def _deck_bytes(n: int, side: int) -> int:
    """The deck itself: 8 bytes a pixel, or 1 when it is kept as 8-bit reflectance."""
    return n * side * side * (1 if _is_compact(n, side) else 8)


def _render_peak(n: int, side: int) -> int:
    """A float64 chunk (or the whole deck) and its working copies while it is drawn."""
    return 8 * side * side * min(n, _chunk_cards(side) if _is_compact(n, side) else n)


def _estimate(scene, *, train_count: int | None = None, test_count: int | None = None,
              trace: str = "summary") -> Resources:
    """The :class:`Resources` of a run of ``scene`` (what :meth:`Scene.resources` gives)."""
    spec = scene.machine_spec()
    cells = spec.retina.shape[0] * spec.retina.shape[1]
    n_a = spec.patchboard.n_associators
    counts = _card_counts(scene, train_count, test_count)
    n_classes = len(scene._classes_of("train"))
    n_units = OutputCode(np.arange(max(2, n_classes)), spec.response).n_units    # the machine's own code
    n_tr, side_tr = counts["train"]
    n_te, side_te = counts["test"]
    presentations = scene.schedule.epochs * n_tr
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
    key_tr = scene.settings["train"].origin.get("count", "train.count")
    key_te = scene.settings["test"].origin.get("count", "test.count")
    parts = {
        key_tr: _deck_bytes(n_tr, side_tr) + max(_render_peak(n_tr, side_tr), 2 * light_kept,
                                                 scoring if n_tr >= n_te else 0),
        key_te: _deck_bytes(n_te, side_te) + _render_peak(n_te, side_te) + (scoring if n_te > n_tr else 0),
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
