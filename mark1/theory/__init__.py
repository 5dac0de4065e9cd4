"""Rosenblatt's theory beside the machine: the probabilities of the 1958 paper and the 1957
report, the discrimination they predict, and the machine's patch board measured against them.

* :mod:`mark1.theory.probabilities` — P_a, P_c, P_c,min (1958 eqs. 1-3; the finite-retina
  forms of the 1957 report).
* :mod:`mark1.theory.discrimination` — Φ, the 1957 Z of the μ-system, the recall Z derived
  from the 1958 model, the 1958 learning-curve form (eq. 4).
* :mod:`mark1.theory.learning` — the 1958 learning curves P_r and P_g (eq. 4) with the α
  and γ constants and figs. 7-10's captions, and the machine's own trainer on the paper's
  experiment (``mark1 theory curve``).
* :mod:`mark1.theory.measure` — a real patch board over seeds: P_a, P_c and recall
  measured, formula beside machine, as tables.

Examples
--------
>>> from mark1.theory import p_a, z_1957
>>> round(p_a(10, 5, 2, 0.1), 4), round(z_1957(0.10, 100, 1000), 2)
(0.1798, 2.36)
"""

from mark1.theory.discrimination import learning_curve, phi, z_1957, z_recall
from mark1.theory.measure import (S_POINTS, Measurement, compare_p_a, compare_p_c, compare_recall, format_table,
                                  measure_p_a, measure_p_c, measure_recall)
from mark1.theory.probabilities import p_a, p_c, p_c_min

__all__ = ["p_a", "p_c", "p_c_min", "phi", "z_1957", "z_recall", "learning_curve", "Measurement", "measure_p_a",
           "measure_p_c", "measure_recall", "compare_p_a", "compare_p_c", "compare_recall", "format_table", "S_POINTS"]
