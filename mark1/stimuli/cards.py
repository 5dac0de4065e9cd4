"""One run's seeds and cards: what ``mark1 run --seed N`` sees."""

from __future__ import annotations

import numpy as np

__all__ = ["experiment_seeds", "scene_cards"]


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
