"""mark1: Rosenblatt's Mark I Perceptron as a machine, with the textbook classifiers beside it.

The names a user reaches for are here; every room (:mod:`mark1.machine`,
:mod:`mark1.theory`, :mod:`mark1.linear_model`, :mod:`mark1.stimuli`, :mod:`mark1.lab`,
:mod:`mark1.viz`, :mod:`mark1.classroom`, :mod:`mark1.cli`) holds the rest.

Examples
--------
>>> import mark1
>>> scene = mark1.load_scene("scenes/demo.toml")
>>> train, test, machine_seed = mark1.scene_cards(scene, seed=0)     # the cards `mark1 run --seed 0` sees
>>> m = mark1.MarkI(spec=scene.machine_spec(), seed=machine_seed)
>>> m = m.fit(train.cards, train.labels, epochs=scene.schedule.epochs)
>>> 0.5 < m.score(test.cards, test.labels) <= 1.0
True
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from mark1 import exceptions
from mark1._utils import html as _html
from mark1.exceptions import InputError, Mark1Error, Mark1Warning, RenderError, SceneError, SpecError, UsageError

if TYPE_CHECKING:       # what the names below are, for type checkers; at run time each is imported on first use
    from mark1 import specs, theory
    from mark1.lab import (Ablation, Comparison, LearningCurves, Reenactment, Sweep, ablate, compare,
                           learning_curves, reenact, sweep)
    from mark1.linear_model import (FisherDiscriminant, GaussianClassifier, LeastSquaresClassifier,
                                    LogisticRegression, Perceptron)
    from mark1.machine import MarkI, Patchboard
    from mark1.specs import MARK_I, NON_IDEALITIES, SMALL, MachineSpec
    from mark1.stimuli import Scene, load_scene, scene_cards

#: Where each public name lives: imported on first use (PEP 562), so that ``import mark1``
#: and ``mark1 --version`` load neither numba nor matplotlib until something needs them.
_WHERE = {
    **dict.fromkeys(("specs", "theory", "machine", "stimuli", "lab", "linear_model", "viz", "classroom", "cli",
                     "stats", "devices"), ""),
    **dict.fromkeys(("MARK_I", "NON_IDEALITIES", "SMALL", "MachineSpec"), "mark1.specs"),
    **dict.fromkeys(("Ablation", "Comparison", "LearningCurves", "Reenactment", "Sweep", "ablate", "compare",
                     "learning_curves", "reenact", "sweep"), "mark1.lab"),
    **dict.fromkeys(("FisherDiscriminant", "GaussianClassifier", "LeastSquaresClassifier", "LogisticRegression",
                     "Perceptron"), "mark1.linear_model"),
    **dict.fromkeys(("MarkI", "Patchboard"), "mark1.machine"),
    **dict.fromkeys(("Scene", "load_scene", "scene_cards"), "mark1.stimuli"),
}

_html.FIGURES.update({"MarkI": "mark1.viz.training:learning_curve",
                      **{kind: f"mark1.viz.studies:{name}" for kind, name in (
                          ("Comparison", "comparison_figure"), ("Ablation", "ablation_figure"),
                          ("LearningCurves", "learning_curves_figure"), ("Sweep", "sweep_figure"),
                          ("GridSweep", "grid_sweep_figure"), ("Reenactment", "reenact_figure"))}})

try:
    __version__ = version("mark1")
except PackageNotFoundError:          # run from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "__version__",
    # the machine and its specs
    "MarkI", "Patchboard", "specs", "MachineSpec", "MARK_I", "SMALL", "NON_IDEALITIES",
    # the cards
    "load_scene", "Scene", "scene_cards",
    # the studies over seeds, and what they return
    "compare", "Comparison", "ablate", "Ablation", "learning_curves", "LearningCurves", "sweep", "Sweep",
    "reenact", "Reenactment",
    # Rosenblatt's theory beside the machine
    "theory",
    # the textbook classifiers (PRML §4.1-4.3)
    "LeastSquaresClassifier", "FisherDiscriminant", "GaussianClassifier", "LogisticRegression", "Perceptron",
    # errors
    "Mark1Error", "Mark1Warning", "InputError", "SpecError", "SceneError", "RenderError", "UsageError",
    "NotFittedError",
]


def __getattr__(name):
    # NotFittedError is built on first use: it subclasses scikit-learn's when that is
    # installed, and importing scikit-learn at `import mark1` would cost seconds
    if name == "NotFittedError":
        return exceptions.NotFittedError
    if name in _WHERE:
        where = _WHERE[name]
        value = import_module(f"mark1.{name}") if not where else getattr(import_module(where), name)
        globals()[name] = value         # found once: later lookups do not come here
        return value
    raise AttributeError(f"module 'mark1' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__all__, *_WHERE})
