"""Every figure: the machine's, the cards', a training run's, the textbook's, the studies'.

Each figure function returns a :class:`matplotlib.figure.Figure` (matplotlib's object API,
no pyplot) and, given ``out``, saves it atomically. By family:

- :mod:`mark1.viz.machine`: one card through the retina, the rack as dials, the weights on the retina;
- :mod:`mark1.viz.cards`: the contact sheet of a scene's cards;
- :mod:`mark1.viz.training`: the learning curve of a run, and a film of it;
- :mod:`mark1.viz.prml`: the textbook classifiers (PRML ch. 4);
- :mod:`mark1.viz.studies`: comparisons, learning curves over seeds, ablations, sweeps (and two-parameter heat maps),
  the re-enactment;
- :mod:`mark1.viz.theory`: Rosenblatt's P_a, P_c and recall against the machine;
- :mod:`mark1.viz.figure`: the canvas, the atomic save and the accuracy axis (in %) every figure shares;
- :mod:`mark1.viz.style`: figures for a projected slide (:func:`slides`, ``--style slides`` on the command line);
- :mod:`mark1.viz.script`: the command line of a script that writes figures;
- :mod:`mark1.viz.legend`: the language drawn (every colour and layout above, in one figure).

The words, colours and number formats every figure uses are :mod:`mark1._utils.language`'s
(``docs/guide/language.rst``); the few a script needs are handed on here: the learners'
colours :data:`LEARNER_COLOURS`, the neutral grey :data:`NEUTRAL` (a reference line, a mark that
is no learner's), :func:`duration`, :func:`percent` and :func:`percent_spread`.
"""

from importlib import import_module

from mark1._utils.language import LEARNER_COLOURS, NEUTRAL, duration, percent, percent_spread

# each figure's module is imported on first use (PEP 562), so that drawing one figure (a run's
# learning curve) does not import every family's (the studies' import the lab)
_WHERE = {
    "contact_sheet": "cards",
    **dict.fromkeys(("accuracy_axis", "accuracy_low", "new_figure", "save_figure"), "figure"),
    "language_figure": "legend",
    **dict.fromkeys(("dials_figure", "retina_figure", "weights_on_retina_figure"), "machine"),
    **dict.fromkeys(("fisher_histograms_figure", "plane_figure"), "prml"),
    "script_parser": "script",
    **dict.fromkeys(("for_slide", "slides"), "style"),
    **dict.fromkeys(("ablation_figure", "comparison_figure", "grid_sweep_figure", "learning_curves_figure",
                     "reenact_figure", "sweep_figure"), "studies"),
    **dict.fromkeys(("p_a_figure", "p_c_figure", "recall_figure"), "theory"),
    **dict.fromkeys(("learning_curve", "training_animation"), "training"),
}


def __getattr__(name):
    if name in _WHERE:
        value = getattr(import_module(f"mark1.viz.{_WHERE[name]}"), name)
        globals()[name] = value         # found once: later lookups do not come here
        return value
    raise AttributeError(f"module 'mark1.viz' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__all__})


__all__ = ["retina_figure", "dials_figure", "weights_on_retina_figure", "contact_sheet", "learning_curve",
           "training_animation", "fisher_histograms_figure", "plane_figure", "comparison_figure",
           "learning_curves_figure", "ablation_figure", "sweep_figure", "grid_sweep_figure", "reenact_figure",
           "p_a_figure", "p_c_figure", "recall_figure", "new_figure", "save_figure", "accuracy_axis", "accuracy_low",
           "language_figure", "script_parser", "slides", "for_slide", "LEARNER_COLOURS", "NEUTRAL", "duration",
           "percent", "percent_spread"]
