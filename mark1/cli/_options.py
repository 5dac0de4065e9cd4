"""What the commands share: their output folder or file, the scene, the lab's common options and checks.

Every check here runs before any work and raises :class:`mark1.exceptions.UsageError`
with one line naming the option or the scene file; :func:`mark1.cli.main` prints it and
exits with status 2.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import sys
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path


from mark1._utils.language import duration, percent
from mark1._utils.limits import PHYSICAL_SHARE, MemoryLimit, memory_limit
from mark1.exceptions import InputError, SceneError, UsageError, printable
from mark1.specs import check_runnable
from mark1.stimuli.scenes import Scene, load_scene

#: what a command's SCENE argument takes, as argparse help writes it
SCENE_HELP = "a built-in scene's name (mark1 scenes lists them), e.g. demo, or a scene file"
#: the share of physical memory a command may use, as argparse help writes it
_PHYSICAL_HELP = percent(PHYSICAL_SHARE, 0).replace("%", "%%")

__all__ = ["output_folder", "output_file", "add_overwrite", "scene_folder", "scene_or_usage", "add_common_options",
           "check_common", "check_run_options", "workers_for", "check_scene", "check_budget", "one_line"]


def scene_folder(scene: str) -> str:
    """The folder name under ``runs/`` of a scene given as ``scene`` (its file's stem), checked:
    a stem such as ``..`` (the file ``...toml``) would put the results outside ``runs/``.

    Examples
    --------
    >>> scene_folder("scenes/demo.toml"), scene_folder("demo")
    ('demo', 'demo')
    >>> scene_folder("...toml")
    Traceback (most recent call last):
    ...
    mark1.exceptions.UsageError: ...toml: its name gives no folder under runs/ for the results; name one with --out
    """
    stem = Path(scene).stem
    if stem in ("", ".", "..") or stem != Path(stem).name:
        raise UsageError(printable(f"{scene}: its name gives no folder under runs/ for the results; "
                                   "name one with --out"))
    return stem


def _writable(out: Path, option: str = "--out") -> Path:
    """``out``, checked: a folder or a name a folder can take, in a place this process may write."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"{option}: {out} is a file; expected a folder for the results")
    parent = out
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():                 # --out FILE/sub: the file is in the way, not a permission
        raise UsageError(f"{option}: {parent} is a file, not a folder; cannot create {out}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option}: cannot create or write {out} (no write permission in {parent})")
    return out


def _held(out: Path, writes: Sequence[str] | None) -> list[str]:
    """The results already in ``out``: those of ``writes`` that exist there (every entry, if ``writes`` is None)."""
    if not out.is_dir():
        return []
    if writes is None:
        return sorted(p.name for p in out.iterdir())
    return [name for name in writes if (out / name).exists()]


def _sibling(out: Path, k: int, file: bool) -> Path:
    """``runs/demo`` -> ``runs/demo-2``; the file ``sheet.png`` -> ``sheet-2.png``."""
    return out.with_name(f"{out.stem}-{k}{out.suffix}" if file else f"{out.name}-{k}")


def _claim(args, out: Path, *, default: bool, held, file: bool = False, option: str = "--out") -> Path:
    """``out`` if nothing there would be replaced, or ``--overwrite``/``--resume`` says so.

    A default that holds results moves to the first free ``out-2``, ``out-3``, ... (said
    on stderr; with ``--resume``, to the last one that holds results); a named one is refused.
    """
    if getattr(args, "overwrite", False):
        return out
    siblings = (_sibling(out, k, file) for k in itertools.count(2))
    if getattr(args, "resume", False):
        if not default:
            return out
        last = out
        for candidate in siblings:
            if not candidate.exists():
                return last
            if held(candidate):
                last = candidate
    names = held(out)
    if not names:
        return out
    if default:
        moved = next(c for c in siblings if not held(c))
        print(f"mark1: {out} holds an earlier run's results; writing to {moved} "
              "(--overwrite replaces them instead)", file=sys.stderr, flush=True)
        return moved
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    resume = ", --resume to continue that run" if hasattr(args, "resume") else ""
    raise UsageError(printable(f"{option}: {out} already holds {'a result' if file else 'results'} ({shown}); "
                              f"add --overwrite to replace {'it' if file else 'them'}{resume}, or name another"))


def output_folder(args, *parts: str, default: Path | None = None, writes: Sequence[str] | None = None) -> Path:
    """The folder ``--out`` names, checked before any work; nothing in it is replaced unasked.

    Parameters
    ----------
    args : argparse.Namespace
        The command's options: ``out`` (None for the default), ``scene``, and where the
        command has them ``overwrite`` and ``resume``.
    *parts : str
        The default folder ``runs/<scene>/<parts>``, unless ``default`` names it.
    default : pathlib.Path, optional
        The default folder, for commands without a scene.
    writes : sequence of str, optional
        The files the command writes there; a folder that holds none of them is free.
        None (a study's records, a page's parts): any entry makes the folder taken.

    Returns
    -------
    pathlib.Path
        ``--out``; or, when ``--out`` is not given, the default folder, or the first of
        ``<default>-2``, ``<default>-3``, ... that holds no results (said on stderr), or
        with ``--resume`` the last of them that does.

    Raises
    ------
    UsageError
        ``--out`` is a file or not writable, or already holds results and neither
        ``--overwrite`` nor ``--resume`` is given.

    Examples
    --------
    >>> import argparse, pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> args = argparse.Namespace(out=str(root / "a"), scene="demo", overwrite=False)
    >>> output_folder(args, writes=["summary.json"]).name
    'a'
    >>> (root / "a").mkdir(); _ = (root / "a" / "summary.json").write_text("{}")
    >>> output_folder(args, writes=["summary.json"])
    Traceback (most recent call last):
    ...
    mark1.exceptions.UsageError: --out: .../a already holds results (summary.json); add --overwrite ... another
    >>> output_folder(argparse.Namespace(out=str(root / "a"), overwrite=True), writes=["summary.json"]).name
    'a'
    """
    named = bool(getattr(args, "out", None))
    if named:
        out = Path(args.out)
    else:
        out = default if default is not None else Path("runs").joinpath(scene_folder(args.scene), *parts)
    _writable(out)
    out = _claim(args, out, default=not named, held=lambda folder: _held(folder, writes))
    return _writable(out)


def output_file(args, default: Path, formats=("png", "pdf", "svg", "jpg", "jpeg"), option: str = "--out") -> Path:
    """The file ``--out`` names, checked (format, not a folder, writable place, nothing replaced unasked)
    before any work; a default that exists moves to ``<stem>-2<suffix>``, ... (said on stderr)."""
    given = getattr(args, option.lstrip("-").replace("-", "_"), None)
    out = Path(given) if given else default
    if out.is_dir():
        raise UsageError(f"{option}: {out} is a folder; expected a file name such as sheet.{formats[0]}")
    suffix = out.suffix.lstrip(".").lower()
    if suffix not in formats:
        raise UsageError(f"{option}: expected a file ending in .{', .'.join(formats)}, got {out.name!r}")
    _writable(out.parent, option)
    return _claim(args, out, default=not given, held=lambda f: [f.name] if f.exists() else [], file=True,
                  option=option)


def scene_or_usage(path: str) -> Scene:
    """The scene file (or built-in scene by name) loaded, or a UsageError with the scene's one-line error."""
    try:
        return load_scene(path)
    except SceneError as e:
        raise UsageError(str(e)) from None


def add_common_options(parser, *, seeds: int, folder: str, resume: bool = True) -> None:
    """Options shared by the lab's commands (compare, ablate, curves, sweep).

    ``SCENE``, ``--seeds``, ``--out``, ``--workers``, ``--scheduler``, ``--train-count``,
    ``--test-count`` and, with ``resume``, ``--resume``.
    """
    parser.add_argument("scene", help=SCENE_HELP)
    parser.add_argument("--seeds", type=int, default=seeds, help=f"number of seeds, 0..N-1 (default {seeds})")
    parser.add_argument("--out", help=f"output folder (default runs/<scene>/{folder})")
    parser.add_argument("--workers", type=int,
                        help="processes on this computer (default: CPU count; 1 runs in this process)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the jobs on a Dask cluster, e.g. tcp://10.0.0.5:8786 "
                             "(needs the extra mark1[cluster]); results identical to a serial run")
    parser.add_argument("--train-count", type=int, help="training cards instead of the scene's")
    parser.add_argument("--test-count", type=int, help="test cards instead of the scene's")
    parser.add_argument("--memory-limit", type=float, metavar="GB",
                        help="memory the runs may use together, at most the process's address-space limit, "
                             f"its cgroup's and {_PHYSICAL_HELP} of this computer's "
                             "(the default: the smallest of these); "
                             "work estimated above it is refused before it starts")
    add_overwrite(parser)
    if resume:
        parser.add_argument("--resume", action="store_true",
                            help="skip jobs already recorded in --out (after an interruption)")


def add_overwrite(parser) -> None:
    """``--overwrite``: without it a command replaces no result already in its output folder or file."""
    parser.add_argument("--overwrite", action="store_true",
                        help="replace results already in --out (without it a named folder that holds results is "
                             "refused, and the default one moves to the next free name, e.g. runs/demo-2)")


def check_common(args, n_jobs: int):
    """Scene, output folder and worker count of a lab command, checked before any work.

    Returns
    -------
    scene : mark1.stimuli.scenes.Scene
    out : pathlib.Path
    workers : int
        At most ``n_jobs``; 1 means serial in this process.

    Raises
    ------
    UsageError
        One line naming the option or the scene file.
    """
    check_run_options(args)
    out = output_folder(args, args.command)
    scene = scene_or_usage(args.scene)
    workers = workers_for(args, n_jobs)
    check_scene(args, scene, at_once=workers)
    return scene, out, workers


def check_run_options(args) -> None:
    """The options every lab command shares that need no scene: seeds, counts, workers, scheduler."""
    if not 1 <= args.seeds <= 100_000:
        raise UsageError(f"--seeds: expected a number of seeds from 1 to 100000, got {args.seeds}")
    for opt in ("workers", "train_count", "test_count"):
        v = getattr(args, opt, None)
        if v is not None and v < 1:
            raise UsageError(f"--{opt.replace('_', '-')}: expected a positive integer, got {v}")
    if getattr(args, "scheduler", None) is not None:
        if args.workers is not None:
            raise UsageError("--scheduler: runs the jobs on the cluster's workers; leave out --workers")
        _check_scheduler(args.scheduler)
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UsageError("--scheduler: needs Dask distributed (pip install 'mark1[cluster]')") from None


def workers_for(args, n_jobs: int) -> int:
    """Processes on this computer for ``n_jobs`` jobs: ``--workers`` or the CPU count, at most n_jobs."""
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    return max(1, min(workers, n_jobs))


def check_scene(args, scene, *, at_once: int = 1, label: str = "") -> None:
    """A scene against the counts asked for and the memory budget (``at_once`` runs together).

    ``label`` names the scene file where a command runs several scenes.
    """
    for opt in ("train_count", "test_count"):
        v = getattr(args, opt, None)
        st = scene.settings.get(opt.split("_")[0])
        faces = 2 if st is not None and st.second_font is not None else 1     # each face's half has every class
        if v is not None and v < faces * len(scene.classes):
            of = f" of {label}" if label else ""
            each = " in each of its 2 typefaces" if faces == 2 else ""
            raise UsageError(f"--{opt.replace('_', '-')}: expected at least one card per class{each}{of} "
                             f"(>= {faces * len(scene.classes)}), got {v}")
    check_budget(args, scene, at_once=1 if getattr(args, "scheduler", None) else at_once, where=label or None,
                 train_count=getattr(args, "train_count", None), test_count=getattr(args, "test_count", None))


def _memory_limit(args) -> MemoryLimit:
    """The memory a command may use: the smallest of ``--memory-limit`` GB, the process's
    address-space limit, the cgroup's limit and ``PHYSICAL_SHARE`` of this computer's memory."""
    gb = getattr(args, "memory_limit", None)
    if gb is not None and not (math.isfinite(gb) and gb > 0):
        raise UsageError(f"--memory-limit: expected a positive number of GB, got {gb}")
    return memory_limit(gb)


#: The most runs (grid points x seeds) a sweep may make: each is a job file and a row.
MAX_SWEEP_RUNS = 1_000_000
#: Grids of more points are reckoned axis by axis (each value alone, then the heaviest pair),
#: not point by point.
_WALKED_GRID = 2_500

#: Estimated seconds above which a command says, before starting, how long it may take.
_LONG_WORK = 30


def _check_code(args, scene, where: str | None) -> None:
    """Refuse classes the machine's R-units cannot code (257 on 8 R-units in binary), from the
    scene's class list, before any card is drawn; a command that changes the R-units
    (``--at``, ``--param`` or ``--set`` of ``response.*``) is left to the run's own check."""
    if getattr(args, "command", None) == "render":         # a sheet shows any number of classes
        return
    asked = [*(getattr(args, "at", None) or []), *(getattr(args, "param", None) or []),
             *(getattr(args, "set", None) or [])]
    spec = scene.machine_spec()
    try:
        check_runnable(spec, "machine.overrides.")
    except InputError as e:
        raise UsageError(f"{where or args.scene}: {e}") from None
    if any("response." in str(a) for a in asked):
        return
    try:
        spec.response.code_for(len(scene.classes))
    except ValueError as e:                                 # the code's InputError: "labels: ..."
        text = str(e).removeprefix("labels: ")
        raise UsageError(f"{where or args.scene}: stimuli.classes: {text}") from None


def _estimates(args, scene, counts: dict):
    """The resources of every run the command makes of ``scene`` (a sweep: one per swept value)."""
    command = getattr(args, "command", None) or "run"
    kw = dict(counts, trace=getattr(args, "trace", None) or "summary", command=command)
    if command == "compare" and getattr(args, "learners", None):
        kw["learners"] = import_module("mark1.lab").check_learners(args.learners)   # the lab: its commands only
    if command == "lesson":
        kw.update(lesson_cards=getattr(args, "cards", None), epochs=getattr(args, "epochs", None))
    if command == "sweep":
        params = args.param if isinstance(args.param, list) else [args.param]
        texts = args.values if isinstance(args.values, list) else [args.values]
        lab = import_module("mark1.lab")
        values = {k: lab.parse_values(k, t) for k, t in zip(params, texts)}
        # the most passes a run trains: --epochs, the schedule's, a swept count or an until:N cap
        passes = [getattr(args, "epochs", None) or scene.schedule.epochs]
        passes += [int(v.split(":")[1]) if isinstance(v, str) else v
                   for k in lab.SCHEDULE_PARAMS for v in values.get(k, [])]
        kw["epochs"] = max(passes)
        points = math.prod(len(vs) for vs in values.values()) * max(1, getattr(args, "seeds", 1) or 1)
        if points > MAX_SWEEP_RUNS:          # reckoned from the axes' lengths, before any point is looked at
            sizes = " x ".join(f"{len(vs):,}" for vs in values.values())
            raise UsageError(f"--values: expected a sweep of at most {MAX_SWEEP_RUNS:,} runs (each writes a job "
                             f"file), got {sizes} values x {getattr(args, 'seeds', 1)} seeds = {points:,} runs")
        swept = [[(k, v) for v in vs] for k, vs in values.items() if k not in lab.SCHEDULE_PARAMS]
        if len(swept) == 2 and len(swept[0]) * len(swept[1]) > _WALKED_GRID:
            # too many points to reckon one by one: each value on its own, then the two heaviest together
            heaviest = []
            for axis in swept:
                best = None
                for kv in axis:
                    try:
                        r = scene.resources(**kw, overrides=dict([kv]))
                    except ValueError:
                        continue
                    yield r
                    if best is None or r.memory > best[0]:
                        best = (r.memory, kv)
                if best is not None:
                    heaviest.append(best[1])
            if len(heaviest) == 2:
                try:
                    yield scene.resources(**kw, overrides=dict(heaviest))
                except ValueError:
                    pass
            return
        if swept:
            for combination in itertools.product(*swept):
                try:
                    yield scene.resources(**kw, overrides=dict(combination))
                except ValueError:           # a value the machine cannot take: the sweep records it
                    continue
            return
    yield scene.resources(**kw)


def check_sweep_size(args, params: list, texts: list) -> None:
    """Refuse, from the texts alone, a sweep of more than :data:`MAX_SWEEP_RUNS` runs, before
    3,000 x 3,000 values are each checked (seconds) or a grid point is reckoned."""
    sizes = [len({t.strip() for t in text.split(",")}) for text in texts]
    runs = math.prod(sizes) * max(1, getattr(args, "seeds", 1) or 1)
    if runs > MAX_SWEEP_RUNS:
        raise UsageError(f"--values: expected a sweep of at most {MAX_SWEEP_RUNS:,} runs (each writes a job "
                         f"file), got {' x '.join(f'{n:,}' for n in sizes)} values x {getattr(args, 'seeds', 1)} "
                         f"seeds = {runs:,} runs")


def check_budget(args, scene, *, at_once: int = 1, where: str | None = None, **counts):
    """Refuse, in one line naming the key, work that cannot fit in memory; say so when it will be long.

    The command (``args.command``) is reckoned as it runs (:meth:`Scene.resources`), for
    every size the scene, the options and a sweep's values set; ``at_once`` runs (jobs on
    this computer's workers) share the limit, unless it is each process's own address space.
    Returns the largest run's :class:`~mark1.stimuli.budget.Resources` (None: nothing reckoned).
    """
    _check_code(args, scene, where)
    try:
        res = max(_estimates(args, scene, counts), key=lambda r: r.memory, default=None)
    except (SceneError, ValueError) as e:
        raise UsageError(str(e)) from None
    if res is None:
        return None
    lim = _memory_limit(args)
    share = max(1, at_once) if lim.shared else 1
    limit = lim.bytes // share
    if res.memory > limit:
        key = res.largest()
        what = {"--memory-limit": "--memory-limit", "address space": "the address-space limit",
                "cgroup": "the cgroup's limit",
                "physical": f"{percent(PHYSICAL_SHARE, 0)} of this computer's memory"}.get(lim.source, lim.source)
        shared = f", a share of {share} runs at once" if share > 1 else ""
        base = res.memory - sum(res.parts.values())         # the interpreter, its libraries, the command's own
        if base > limit:                                    # no key of the scene can help
            raise UsageError(f"{where or args.scene}: mark1 itself needs about {base / 1e9:.2f} GB of memory "
                             f"before any card, more than the {limit / 1e9:.2f} GB it may use ({what}{shared}); "
                             f"{lim.raise_by}")
        raise UsageError(f"{where or args.scene}: {key}: expected a run that fits in {limit / 1e9:.2f} GB of memory "
                         f"({what}{shared}), got an estimated {res.memory / 1e9:.2f} GB, "
                         f"{res.parts[key] / 1e9:.2f} GB of it for {key} ({res.notes.get(key, '')}); "
                         f"lower it, or {lim.raise_by}")
    # said once a command (its args) and scene, though a sweep checks twice
    told = vars(args).setdefault("_long_work_told", set())
    if res.seconds > _LONG_WORK and (str(getattr(args, "scene", "")), where) not in told:
        told.add((str(getattr(args, "scene", "")), where))
        pots = res.pot_updates // max(1, res.presentations)
        print(f"mark1: {res.presentations:,} presentations x {pots:,} pots: this may take about "
              f"{duration(res.seconds)} (about {res.memory / 2**20:,.0f} MiB of memory)", file=sys.stderr, flush=True)
    return res


#: ``scheme://anything`` (tcp, tls, ucx, inproc...) or a bare ``host:port``
_ADDRESS = re.compile(r"^([a-z][a-z0-9+]*://\S+|\[?[A-Za-z0-9_.\-:]+\]?:\d{1,5})$")


def _check_scheduler(address: str) -> None:
    """A Dask scheduler address must look like ``tcp://host:8786`` (checked before connecting,
    so a typo is one line, not a timeout)."""
    if not _ADDRESS.match(address.strip()):
        raise UsageError(f"--scheduler: expected a Dask scheduler address such as tcp://host:8786, "
                         f"got {address!r}")


def one_line(args, error: Exception) -> str:
    """The error as one line naming the scene file once."""
    text = " ".join(str(error).split("\n"))
    return text if text.startswith(str(args.scene)) else f"{args.scene}: {text}"
