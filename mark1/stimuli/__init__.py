"""The cards: scene files, rendered characters and shapes, the user's own images.

A scene file (:mod:`~mark1.stimuli.scenes`, its keys in :mod:`~mark1.stimuli.schema`)
says what the cards of an experiment look like; :func:`scene_cards` gives the cards
``mark1 run --seed N`` sees; the ``render_*`` functions (:mod:`~mark1.stimuli.render`)
draw cards directly, without a scene.

Examples
--------
>>> from mark1.stimuli import load_scene, scene_cards
>>> scene = load_scene("scenes/demo.toml")
>>> train, test, machine_seed = scene_cards(scene, seed=0)
>>> train.cards.shape, test.cards.shape, scene.classes
((40, 60, 60), (40, 60, 60), ('E', 'X'))
"""

from mark1.exceptions import SceneError
from mark1.stimuli.cards import experiment_seeds, scene_cards
from mark1.stimuli.decks import Stimuli
from mark1.stimuli.images import read_image
from mark1.stimuli.jitter import Jitter
from mark1.stimuli.render import render_characters, render_images, render_marks, render_predicate, render_shapes
from mark1.stimuli.scenes import SCENES_DIR, Scene, load_scene, scene_from_dict, scene_names, shipped_scenes
from mark1.stimuli.schema import Reported

__all__ = [
    # scenes and their cards
    "Scene", "SceneError", "load_scene", "scene_from_dict", "shipped_scenes", "scene_names", "SCENES_DIR", "Reported",
    "Stimuli", "scene_cards", "experiment_seeds",
    # cards without a scene
    "render_characters", "render_shapes", "render_marks", "render_predicate", "render_images", "read_image",
    "Jitter",
]
