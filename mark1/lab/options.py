"""What the command line and the lab share: the usage error, the output folder, common options.

The command line (:mod:`mark1.cli`) imports from here and from the lab's commands; the
lab never imports :mod:`mark1.cli`, so there is no cycle.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["UsageError", "output_folder", "add_common_options", "check_common", "one_line"]


class UsageError(Exception):
    """A problem with what the user asked for: reported in one line, exit status 2."""


def output_folder(args, *parts: str) -> Path:
    """The folder ``--out`` names (default ``runs/<scene>/<parts>``), checked before any work."""
    out = Path(args.out) if args.out else Path("runs").joinpath(Path(args.scene).stem, *parts)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out: {out} is a file; expected a folder for the results")
    parent = out
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"--out: cannot create or write {out} (no write permission in {parent})")
    return out


def add_common_options(parser, *, seeds: int, folder: str, resume: bool = True) -> None:
    """Options shared by the lab's commands (compare, ablate, curves, and later sweep, reenact).

    ``SCENE``, ``--seeds``, ``--out``, ``--workers``, ``--scheduler``, ``--train-count``,
    ``--test-count`` and, with ``resume``, ``--resume``.
    """
    parser.add_argument("scene", help="a scene file, e.g. scenes/demo.toml")
    parser.add_argument("--seeds", type=int, default=seeds, help=f"number of seeds, 0..N-1 (default {seeds})")
    parser.add_argument("--out", help=f"output folder (default runs/<scene>/{folder})")
    parser.add_argument("--workers", type=int,
                        help="processes on this computer (default: CPU count; 1 runs in this process)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the jobs on a Dask cluster, e.g. tcp://10.0.0.5:8786 "
                             "(needs the extra mark1[cluster]); results identical to a serial run")
    parser.add_argument("--train-count", type=int, help="training cards instead of the scene's")
    parser.add_argument("--test-count", type=int, help="test cards instead of the scene's")
    if resume:
        parser.add_argument("--resume", action="store_true",
                            help="skip jobs already recorded in --out (after an interruption)")


def check_common(args, n_jobs: int):
    """Scene, output folder and worker count of a lab command, checked before any work.

    Returns
    -------
    scene : mark1.scenes.Scene
    out : pathlib.Path
    workers : int
        At most ``n_jobs``; 1 means serial in this process.

    Raises
    ------
    UsageError
        One line naming the option or the scene file.
    """
    from ..scenes import SceneError, load_scene

    if not 1 <= args.seeds <= 100_000:
        raise UsageError(f"--seeds: expected a number of seeds from 1 to 100000, got {args.seeds}")
    out = output_folder(args, args.command)
    for opt in ("workers", "train_count", "test_count"):
        v = getattr(args, opt, None)
        if v is not None and v < 1:
            raise UsageError(f"--{opt.replace('_', '-')}: expected a positive integer, got {v}")
    if getattr(args, "scheduler", None) is not None:
        if args.workers is not None:
            raise UsageError("--scheduler: runs the jobs on the cluster's workers; leave out --workers")
        if not args.scheduler.strip():
            raise UsageError("--scheduler: expected a Dask scheduler address such as tcp://host:8786")
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UsageError("--scheduler: needs Dask distributed (pip install 'mark1[cluster]')") from None
    try:
        scene = load_scene(args.scene)
    except SceneError as e:
        raise UsageError(str(e)) from None
    for opt in ("train_count", "test_count"):
        v = getattr(args, opt, None)
        if v is not None and v < len(scene.classes):
            raise UsageError(f"--{opt.replace('_', '-')}: expected at least one card per class "
                             f"(>= {len(scene.classes)}), got {v}")
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    return scene, out, max(1, min(workers, n_jobs))


def one_line(args, error: Exception) -> str:
    """The error as one line naming the scene file once."""
    text = " ".join(str(error).split("\n"))
    return text if text.startswith(str(args.scene)) else f"{args.scene}: {text}"
