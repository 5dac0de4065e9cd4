"""mark1: Rosenblatt's Mark I Perceptron as a machine, with the textbook classifiers beside it.

>>> import mark1
>>> scene = mark1.load_scene("scenes/e_vs_x.toml")          # doctest: +SKIP
>>> m = mark1.MarkI(spec=scene.machine_spec(), seed=0)      # doctest: +SKIP
"""

from mark1 import specs
from mark1.machine import MarkI, Patchboard
from mark1.specs import MARK_I, SMALL, MachineSpec, SpecError
from mark1.stimuli import Scene, SceneError, load_scene

__version__ = "0.1.0"

__all__ = ["specs", "MarkI", "Patchboard", "MARK_I", "SMALL", "MachineSpec", "SpecError",
           "load_scene", "Scene", "SceneError", "__version__"]
