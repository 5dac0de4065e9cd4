"""mark1: Rosenblatt's Mark I Perceptron as a machine, with the textbook classifiers beside it.

>>> import mark1
>>> scene = mark1.load_scene("scenes/e_vs_x.toml")          # doctest: +SKIP
>>> m = mark1.MarkI(spec=scene.machine_spec(), seed=0)      # doctest: +SKIP
"""

from . import specs
from .machine import MarkI
from .patchboard import Patchboard
from .specs import MARK_I, SMALL, MachineSpec, SpecError

__version__ = "0.1.0"

__all__ = ["specs", "MarkI", "Patchboard", "MARK_I", "SMALL", "MachineSpec", "SpecError",
           "load_scene", "Scene", "SceneError", "__version__"]


def __getattr__(name):
    # Scenes render with Pillow; keep it out of `import mark1` until a scene is asked for.
    if name in ("load_scene", "Scene", "SceneError"):
        from . import scenes
        return getattr(scenes, name)
    raise AttributeError(f"module 'mark1' has no attribute {name!r}")
