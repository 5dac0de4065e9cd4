"""The cards: scene files, rendered characters and shapes, the user's own images."""

from mark1.stimuli.cards import experiment_seeds, scene_cards
from mark1.stimuli.scenes import Scene, SceneError, load_scene

__all__ = ["Scene", "SceneError", "load_scene", "scene_cards", "experiment_seeds"]
