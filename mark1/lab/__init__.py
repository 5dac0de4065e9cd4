"""The lab bench: studies over seeds around one job runner.

:mod:`mark1.lab.runner`
    Jobs over seeds on any executor (serial, process pool, Dask cluster), one record
    per job written atomically, resume, clean interrupts, progress.
:mod:`mark1.lab.compare`
    The machine beside the textbook classifiers (``mark1 compare``).
:mod:`mark1.lab.ablate`
    Each non-ideality alone on and alone off, paired seeds, 95 % intervals (``mark1 ablate``).
:mod:`mark1.lab.curves`
    Learning curves against cards and machine hours (``mark1 curves``).
:mod:`mark1.lab.options`
    What the command line and the lab share (usage errors, output folder, options).

The command line depends on the lab, never the reverse.

>>> from mark1.lab.compare import compare
>>> comp = compare("scenes/demo.toml", seeds=3)                       # doctest: +SKIP

Each study's module and its main function share a name (``mark1.lab.compare.compare``);
this package exports the modules, not the functions, so the two never shadow each other.
"""

from __future__ import annotations

__all__ = ["add_commands"]


def add_commands(subparsers) -> None:
    """Register ``mark1 compare``, ``ablate``, ``curves``, ``sweep`` and ``reenact`` on an argparse
    subparsers object."""
    from mark1.lab import ablate, compare, curves, reenact, sweep
    for study in (compare, ablate, curves, sweep, reenact):
        study.add_command(subparsers)
