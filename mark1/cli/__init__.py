"""The ``mark1`` command line.

    mark1 --version                                    the version installed
    mark1 scenes [--json]                              the built-in scenes: name, what each re-enacts, report
    mark1 run SCENE [--seed N] [--out DIR] [--json]    train and test as the scene says
                    [--trace full] [--realtime F]      (every event; replay in real time)
                    [--memory-limit GB]                (refused up front if estimated above; also
                                                       compare, ablate, curves, sweep and reenact)
    mark1 specs [--preset NAME] [--json]               every parameter: unit, default, status
    mark1 render SCENE [--out sheet.png] [--seed N]    contact sheet: cards and what the retina sees
    mark1 explain SCENE [--cards 5]                    the event log in plain words, card by card
    mark1 compare SCENE [--seeds 10] [--out DIR]       the machine beside the textbook classifiers
    mark1 ablate SCENE [--seeds 3] [--out DIR]         which non-ideality costs most
    mark1 curves SCENE [--seeds 3] [--points 10]       learning curves, analog and ideal
    mark1 sweep SCENE --param KEY --values V1,V2,...   dose-response of one parameter, paired seeds
    mark1 reenact [SCENES...] [--seeds 10]             every reported figure re-enacted, one page
    mark1 lesson SCENE [--seed N] [--cards N]          one HTML page: the run, card by card
                       [--epochs N]
    mark1 device rack|photocell [--spec NAME]          device response plots (PNG + CSV)
    mark1 theory [--seeds 10] [--out DIR] [--quick]    the patch board against Rosenblatt's P_a, P_c, recall
    mark1 theory p_a X Y THETA R [--n 400]             one formula's value: 1958 form beside 400 points

The commands that draw (run, render, device, compare, ablate, curves, sweep, reenact,
theory) take ``--style slides``: their figures made for a projected 1280x720 slide.

SCENE is a built-in scene's name (``demo``; ``mark1 scenes`` lists them) or a scene file;
a file that exists wins over a name. Bad input gives one line on stderr and exit status 2, no traceback; it is found
before any
work, so nothing is written. So is a run estimated (``Scene.resources``) not to fit in
memory: the smallest of ``--memory-limit`` (``run``, ``compare``, ``ablate``, ``curves``,
``sweep`` and ``reenact`` take it; ``render``, ``explain`` and ``lesson`` are checked against
the others alone), the address-space limit (``ulimit -v``), the cgroup's limit and
``PHYSICAL_SHARE`` (80 %) of this computer's. Each result file is written atomically
(complete or absent).

The commands of one machine and one scene live in ``_run``, the lab's studies in ``_lab``,
what they share (output folders, the scene, the lab's options and checks) in ``_options``.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import re
import sys
import threading
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version

from mark1._utils.limits import memory_cap
from mark1.cli import _names
from mark1.cli._names import COMMANDS, MODULES
from mark1.exceptions import InputError, UsageError, printable

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (the project's rule for bad input), and ``-inf``,
    ``-nan`` read as values (argparse takes them for unknown options and blames the next argument)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-(\d+|\d*\.\d+|\d+\.\d*)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$",
                                                   re.IGNORECASE)

    def error(self, message: str):
        self.exit(2, printable(f"{self.prog}: error: {message} (see {self.prog} --help)") + "\n")


def _version() -> str:
    """mark1's version, from the package's metadata (as ``mark1.__version__``)."""
    try:
        return version("mark1")
    except PackageNotFoundError:          # run from a source tree that was never installed
        return "0+unknown"


#: the commands that write figures (PNG): each takes ``--style slides``
_DRAWING = ("run", "render", "device", "compare", "ablate", "curves", "sweep", "reenact", "theory")


def _top_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The parser of ``mark1`` itself, before its commands are registered, and their subparsers."""
    parser = _Parser(prog="mark1", description="Rosenblatt's Mark I Perceptron, simulated.")
    parser.add_argument("--version", action="version", version=f"mark1 {_version()}")
    return parser, parser.add_subparsers(dest="command", required=True)


def _build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with ``only`` (a command's name) that command's module's commands
    in full and the others by name alone (a command then imports its own module only)."""
    parser, sub = _top_parser()
    wanted = None if only is None else MODULES[only]
    # the commands' modules import the machine (numba, SciPy, SimPy, matplotlib): only here
    for module in ("_run", "_lab", "_theory"):      # _run: scenes, run, specs, render, explain, lesson, device;
        if wanted is None or module == wanted:     # _lab: compare, ablate, curves, sweep, reenact; _theory
            import_module(f"mark1.cli.{module}").add_commands(sub)
        else:
            for name in (n for n, m in MODULES.items() if m == module):
                sub.add_parser(name, help=COMMANDS[name])
    for name in _DRAWING:                   # the commands that draw figures, made for a slide on request
        sub.choices[name].add_argument("--style", choices=("page", "slides"), default="page",
                                       help="figures for a page (default) or for a projected 1280x720 slide: "
                                            "no text under 20 px there, thicker lines")
    return parser


def _names_parser() -> argparse.ArgumentParser:
    """The parser of the commands' names alone, their options not registered: enough for
    ``mark1 --help`` and for a usage error before a command is named, in a fraction of a
    second (the same text as :func:`_build_parser`'s, tests/test_cli.py checks)."""
    parser, sub = _top_parser()
    for name, text in COMMANDS.items():
        sub.add_parser(name, help=text)
    return parser


def main(argv: list[str] | None = None) -> int:
    """The ``mark1`` command: parse ``argv``, run the subcommand, return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``mark1`` (default: the process's own).

    Returns
    -------
    int
        0 on success; 2 for bad input, with one line on stderr naming what is wrong
        (nothing is written); 130 or 143 when interrupted by Ctrl-C or SIGTERM.

    Examples
    --------
    >>> main(["explain", "demo", "--cards", "1"])         # doctest: +ELLIPSIS
    small: 400 S-units, 64 A-units, 1 R-unit in use ...
    Card 1 ("X") at t = 0.000000 s
    ...
      The machine answered "X": right.
    ...
    0
    >>> main(["specs", "--preset", "MARK_II"])          # one line on stderr, nothing else
    2
    >>> main(["--version"])                              # doctest: +ELLIPSIS
    mark1 ...
    0
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:               # cheap: no numba, no matplotlib
        print(f"mark1 {_version()}")
        return 0
    # no command named (mark1 --help, mark1, mark1 nonsense): answered without loading the machine
    named = next((a for a in argv if a in COMMANDS), None)
    parser = _build_parser(named) if named is not None else _names_parser()
    args = parser.parse_args(argv)          # argparse itself exits 2 on bad usage
    if getattr(args, "seed", 0) is not None and getattr(args, "seed", 0) < 0:
        print("mark1: error: --seed: expected a non-negative integer", file=sys.stderr)
        return 2
    try:
        # the command's --memory-limit holds the API's own refusals too (Scene.stimuli, MarkI.fit, ...)
        style = (import_module("mark1.viz.style").slides() if getattr(args, "style", "page") == "slides"
                 else contextlib.nullcontext())          # matplotlib only for a command that draws
        with memory_cap(getattr(args, "memory_limit", None), name="--memory-limit"), style as slide:
            status = args.func(args)
        panels = getattr(slide, "panels", [])
        if panels and not getattr(args, "json", False):      # a figure of panels: a file a panel, said
            print(printable(f"slides: one panel a file, also {', '.join(str(p) for p in panels)}"))
        return status
    except (UsageError, InputError) as e:   # InputError: the API's own refusals (a BudgetError, ...)
        print(f"mark1: error: {printable(str(e))}", file=sys.stderr)
        return 2
    except BrokenPipeError:                 # e.g. `mark1 run ... | head`
        sys.stderr.close()
        return 0
    except MemoryError:                     # the estimate before work missed: still one line, exit 2
        print("mark1: error: out of memory beyond the estimate made before the run; lower the counts or "
              "sizes, or raise the memory limit", file=sys.stderr)
        return 2
    except OSError as e:                    # a full disk, a folder that vanished, ...
        where = f"{e.filename}: " if e.filename else ""
        print(printable(f"mark1: error: {where}{e.strerror or e}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:          # Ctrl-C, or SIGTERM during a lab command (143)
        print("mark1: interrupted; nothing was written for the unfinished step", file=sys.stderr)
        return getattr(e, "exit_status", 130)


def program() -> None:
    """The ``mark1`` program: :func:`main` on the process's arguments, then the process ends
    with its exit status.

    The objects the process holds are not taken apart one by one at its end (numba's compiled
    code, matplotlib's and SciPy's modules: about 0.6 s of CPU after a warm ``mark1 run``).
    As at a normal exit, the threads are waited for, the ``atexit`` handlers run and the
    output is flushed first. An exception :func:`main` does not turn into a status ends the
    process the normal way, with its traceback.
    """
    _names.OWNS_PROCESS = True
    status = main()
    shutdown = getattr(threading, "_shutdown", None)      # what the interpreter calls at exit
    finish = getattr(atexit, "_run_exitfuncs", None)
    if shutdown is None or finish is None:                 # not CPython: the normal exit
        sys.exit(status)
    shutdown()
    finish()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):      # no stream, a closed pipe or file
            pass
    os._exit(status)


if __name__ == "__main__":  # pragma: no cover
    program()
