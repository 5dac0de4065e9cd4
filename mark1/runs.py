"""What a run needs around the machine: its seeds, JSON-safe values, a progress bar."""

from __future__ import annotations

import math
import os
import sys

import numpy as np

__all__ = ["experiment_seeds", "scene_cards", "jsonable", "progress_bar"]


def experiment_seeds(seed: int) -> tuple[int, int, int]:
    """Independent integer seeds for the training cards, the test cards and the machine.

    One run has one seed; ``SeedSequence(seed).spawn(3)`` splits it so that the cards
    and the machine never share a stream.
    """
    children = np.random.SeedSequence(int(seed)).spawn(3)
    return tuple(int(c.generate_state(1, np.uint32)[0]) for c in children)


def scene_cards(scene, seed: int, *, train_count: int | None = None, test_count: int | None = None):
    """The training cards, test cards and machine seed of run ``seed`` of a scene.

    What ``mark1 run --seed N`` uses; every command and example goes through here, so
    one seed means the same cards and the same machine everywhere.

    Returns
    -------
    train, test : Stimuli
    machine_seed : int
    """
    seed_train, seed_test, seed_machine = experiment_seeds(seed)
    train = scene.stimuli("train", seed=seed_train, count=train_count)
    test = scene.stimuli("test", seed=seed_test, count=test_count)
    return train, test, seed_machine


def jsonable(obj):
    """``obj`` with numpy scalars made plain and non-finite floats written as strings."""
    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    return obj


class _NoBar:
    """What :func:`progress_bar` gives where no bar is shown: it takes the same calls."""

    def update(self, n=1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int, unit: str, *, show: bool = True):
    """A tqdm bar on a terminal; a bar that shows nothing in logs and CI (env CI set, or
    stderr not a TTY), for an empty total, or with ``show=False``. Either takes
    ``update(n)`` and ``close()``."""
    if not show or os.environ.get("CI") or not sys.stderr.isatty() or total == 0:
        return _NoBar()
    from tqdm.auto import tqdm
    return tqdm(total=total, unit=unit, leave=False, file=sys.stderr)
