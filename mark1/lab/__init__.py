"""The lab bench: studies over seeds around one job runner.

Seven studies, each a function returning a result object, each run as jobs of
:mod:`mark1.lab.runner` (serially, on a process pool or on a Dask cluster, identical
bit for bit; one record per job written as it finishes; ``resume`` after an
interruption):

:func:`compare` → :class:`Comparison`
    The machine beside the textbook classifiers (``mark1 compare``).
:func:`ablate` → :class:`Ablation`
    Each non-ideality alone on and alone off, paired seeds, Holm-adjusted intervals (``mark1 ablate``).
:func:`learning_curves` → :class:`LearningCurves`
    Test accuracy against cards and machine time (``mark1 curves``).
:func:`sweep` → :class:`Sweep`
    Dose-response of one machine parameter (or the passes over the cards) over paired seeds (``mark1 sweep``).
:func:`grid_sweep` → :class:`GridSweep`
    Two parameters swept together, every pair of values (``mark1 sweep`` with two ``--param``).
:func:`reenact` → :class:`Reenactment`
    Every scene with a reported figure against its report, one page (``mark1 reenact``).
:func:`energy_study` → :class:`EnergyStudy`
    Accuracy, energy part by part and machine time of the Mark I's drives and the device
    presets on one scene, paired seeds, Holm (``mark1 device energy``).

:mod:`mark1.lab.runner` runs the jobs; :mod:`mark1.stats` holds the intervals. The
lab writes records, CSV, JSON and Markdown; it draws nothing and parses no command line:
:mod:`mark1.viz.studies` draws the figures (pass one as a study's ``figure``) and
:mod:`mark1.cli` is the command line.

Examples
--------
>>> from mark1.lab import compare
>>> comp = compare("scenes/demo.toml", seeds=2, learners=["mark1", "gauss-S"], train_count=8, test_count=8)
>>> sorted(comp.summary())
['gauss-S', 'mark1']
"""

from mark1.lab._ablate import VERDICTS, Ablation, ablate, paired_cost
from mark1.lab._common import check_precision
from mark1.lab._compare import FEATURES, LEARNERS, Comparison, check_learners, compare, describe_learner
from mark1.lab._energy import REFERENCE as ENERGY_REFERENCE
from mark1.lab._energy import EnergyStudy, energy_study, machines
from mark1.lab._curves import CURVE_VARIANTS, LearningCurves, learning_curves
from mark1.lab._reenact import (DEFAULT_TOLERANCE, Reenactment, band, catalog, is_lower_bound, judged, reenact,
                                share_verdict, sourced, verdict)
from mark1.lab._sweep import (SCHEDULE_PARAMS, UNTIL_CAP, GridSweep, Sweep, cliff_warning, grid_sweep, parse_at,
                              parse_value, parse_values, sweep, value_text)

__all__ = [
    "compare", "Comparison", "LEARNERS", "FEATURES", "check_learners", "describe_learner",
    "ablate", "Ablation", "VERDICTS", "paired_cost",
    "learning_curves", "LearningCurves", "CURVE_VARIANTS",
    "sweep", "Sweep", "grid_sweep", "GridSweep", "SCHEDULE_PARAMS", "UNTIL_CAP", "parse_value", "parse_values",
    "value_text", "parse_at", "cliff_warning",
    "reenact", "Reenactment", "DEFAULT_TOLERANCE", "band", "verdict", "catalog", "judged", "is_lower_bound", "sourced",
    "share_verdict", "check_precision",
    "energy_study", "EnergyStudy", "machines", "ENERGY_REFERENCE",
]
