"""The Mark I as a machine: its parts named after the hardware, and time.

:mod:`~mark1.machine.retina`
    Camera, lamps, CdS photocells and S-units.
:mod:`~mark1.machine.patchboard`
    The patch board: random ± wiring from the S-units to the A-units.
:mod:`~mark1.machine.potentiometers`
    The pot rack and its motors.
:mod:`~mark1.machine.response`
    The R-units and their output code.
:mod:`~mark1.machine.rules`
    The trainer's rule: which pots turn, and which way; the one tie rule.
:mod:`~mark1.machine.perceptron`
    The exact digital error-correction core of the ideal machine.
:mod:`~mark1.machine.simulator`
    The presentation cycle in SimPy, and the trace.
:mod:`~mark1.machine.mark_i`
    :class:`MarkI`, the whole machine as an estimator.
"""

from mark1.machine.mark_i import LMSStepWarning, MarkI
from mark1.machine.patchboard import Patchboard
from mark1.machine.potentiometers import PotentiometerRack
from mark1.machine.response import OutputCode
from mark1.machine.retina import Retina, RetinaState
from mark1.machine.simulator import Trace

__all__ = ["MarkI", "LMSStepWarning", "Patchboard", "PotentiometerRack", "OutputCode", "Retina", "RetinaState",
           "Trace"]
