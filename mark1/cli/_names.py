"""The commands' names and one-line help, in the order ``mark1 --help`` lists them.

Kept apart from the commands' modules so that the top-level help (and a usage error
before any command is named) is built without importing them: they load numba, SciPy,
SimPy and matplotlib, seconds before a line could be printed. Each module registers its
commands with these texts (``help=COMMANDS[name]``); :data:`MODULES` says which module that is,
so that a command loads its own module alone.
"""

COMMANDS = {
    "scenes": "the built-in scenes: name, what each re-enacts, its report",
    "run": "train and test the machine as a scene says",
    "specs": "list every machine parameter with unit, default and status",
    "render": "contact sheet of a scene's cards and what the retina makes of them",
    "explain": "the machine's event log in plain words, card by card",
    "lesson": "one self-contained HTML page taking mark1 run's run apart, card by card, and answering your own card",
    "device": "device response plots: a pot under a pulse train, a photocell's step; "
              "fit: a measured device's table of pulses, every law fitted; energy: the Mark I's motors and the "
              "device presets on one scene, accuracy, energy part by part and machine time over paired seeds",
    "compare": "the machine beside the textbook classifiers, over seeds",
    "ablate": "which non-ideality costs most: each alone on, each alone off, paired seeds, Holm-adjusted intervals",
    "curves": "learning curves: test accuracy against cards and machine time",
    "sweep": "dose-response: accuracy and machine time against one machine parameter (or two), over paired seeds",
    "reenact": "every scene with a reported figure, over seeds, judged against its report (one page)",
    "theory": "the machine's patch board against Rosenblatt's P_a, P_c and recall",
}

#: The module of ``mark1.cli`` that registers each command (its ``add_commands``).
MODULES = {**dict.fromkeys(("scenes", "run", "specs", "render", "explain", "lesson", "device"), "_run"),
           **dict.fromkeys(("compare", "ablate", "curves", "sweep", "reenact"), "_lab"),
           "theory": "_theory"}

#: Whether this process is the ``mark1`` program itself (:func:`mark1.cli.program` sets it): only
#: then may a command choose for the whole process that its loops run as Python
#: (:func:`mark1._utils.compiled.python_when_cold`); :func:`mark1.cli.main` called from a
#: notebook or a script leaves that process's loops compiled.
OWNS_PROCESS = False
