"""One run's seeds and cards: what ``mark1 run --seed N`` sees."""

from __future__ import annotations

import numpy as np

from mark1.stimuli.decks import Stimuli
from mark1.stimuli.scenes import Scene

__all__ = ["experiment_seeds", "scene_cards"]


def experiment_seeds(seed: int) -> tuple[int, int, int]:
    """Independent integer seeds for the training cards, the test cards and the machine.

    One run has one seed; ``SeedSequence(seed).spawn(3)`` splits it so that the cards
    and the machine never share a stream.

    Parameters
    ----------
    seed : int
        The run's seed (``mark1 run --seed N``), non-negative.

    Returns
    -------
    seed_train, seed_test, seed_machine : int
        Seeds in [0, 2**32) for the training cards, the test cards and the machine.

    Examples
    --------
    >>> from mark1.stimuli import experiment_seeds
    >>> experiment_seeds(0)
    (3757552657, 673228719, 3241444873)
    >>> experiment_seeds(0) == experiment_seeds(0) != experiment_seeds(1)
    True
    """
    children = np.random.SeedSequence(int(seed)).spawn(3)
    first, second, third = (int(c.generate_state(1, np.uint32)[0]) for c in children)
    return first, second, third


def scene_cards(scene: Scene, seed: int, *, train_count: int | None = None,
                test_count: int | None = None) -> tuple[Stimuli, Stimuli, int]:
    """The training cards, test cards and machine seed of run ``seed`` of a scene.

    What ``mark1 run --seed N`` uses; every command and example goes through here, so
    one seed means the same cards and the same machine everywhere.

    Parameters
    ----------
    scene : Scene
        A loaded scene (:func:`~mark1.stimuli.scenes.load_scene`).
    seed : int
        The run's seed, non-negative.
    train_count, test_count : int, optional
        Numbers of cards instead of the scene's ``train.count`` and ``test.count``.

    Returns
    -------
    train, test : Stimuli
        The cards of each split: ``cards`` of shape (n_cards, card_size, card_size),
        reflectance in [0, 1], and their ``labels``.
    machine_seed : int
        The seed of the machine (its wiring and its noise).

    Examples
    --------
    >>> from mark1.stimuli import load_scene, scene_cards
    >>> scene = load_scene("scenes/demo.toml")
    >>> train, test, machine_seed = scene_cards(scene, seed=0)
    >>> train.cards.shape, test.cards.shape, machine_seed
    ((40, 60, 60), (40, 60, 60), 3241444873)
    >>> train.labels[:4], float(train.cards.min()), float(train.cards.max())
    (array(['X', 'E', 'X', 'E'], dtype='<U1'), 0.0, 1.0)
    >>> train, test, _ = scene_cards(scene, seed=0, train_count=10, test_count=4)
    >>> len(train), len(test)
    (10, 4)
    """
    seed_train, seed_test, seed_machine = experiment_seeds(seed)
    train = scene.stimuli("train", seed=seed_train, count=train_count)
    test = scene.stimuli("test", seed=seed_test, count=test_count)
    return train, test, seed_machine
