"""mark1: Rosenblatt's Mark I Perceptron as a machine, with the textbook classifiers beside it."""

from . import specs
from .machine import MarkI
from .patchboard import Patchboard
from .specs import MARK_I, SMALL, MachineSpec, SpecError

__version__ = "0.1.0"

__all__ = ["specs", "MarkI", "Patchboard", "MARK_I", "SMALL", "MachineSpec", "SpecError", "__version__"]
