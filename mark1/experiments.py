"""The lab bench's former home, kept so that ``from mark1 import experiments`` still works.

Everything lives in :mod:`mark1.lab` now (one module per study around one job runner);
new code should import from there.
"""

from __future__ import annotations

from .lab import add_commands  # noqa: F401
from .lab.ablate import ABLATION_FIELDS, Ablation, ablate, ablation_job, ablation_variants  # noqa: F401
from .lab.compare import LEARNERS, RECORD_FIELDS, Comparison, cards_to_final_accuracy, compare, run_seed  # noqa: F401
from .lab.curves import LearningCurves, curve_job, curves_csv, learning_curves  # noqa: F401
from .lab.runner import process_pool  # noqa: F401

__all__ = ["LEARNERS", "Comparison", "LearningCurves", "Ablation", "compare", "learning_curves", "ablate",
           "add_commands", "process_pool"]
