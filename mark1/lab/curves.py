"""Learning curves: test accuracy against cards presented and machine hours (``mark1 curves``).

Analog (the scene's machine) and ideal (``spec.ideal()`` on the same wiring), over
seeds; each (variant, seed) is one job of :func:`mark1.lab.runner.run_jobs`.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from mark1._utils.atomic import write_text
from mark1.lab.options import UsageError, add_common_options, check_common, one_line
from mark1.lab.runner import (Records, as_scene, count_option, csv_text, executor_for, run_cards, run_jobs, scene_digest,
                     scene_ref, seed_list)
from mark1.exceptions import InputError

__all__ = ["LearningCurves", "learning_curves", "curve_job", "curves_csv", "add_command"]

_VERSION = 1
VARIANTS = ("analog", "ideal")


@dataclass
class LearningCurves:
    """Test accuracy against cards presented and machine time, for analog and ideal.

    Every checkpoint is a machine trained afresh for ``epochs[j]`` epochs with the same
    seeds; by construction its presentations are exactly the first ``cards[j]`` of the
    full schedule (the order stream draws one permutation per epoch, in turn), so a
    checkpoint is the machine at that point of the full run, scored on the test cards.

    Attributes
    ----------
    scene : str
    seeds : list of int
    epochs : array (P,) int
        Epochs trained at each checkpoint, increasing.
    cards : array (P,) int
        Presentations at each checkpoint (``epochs * n_train``), increasing.
    accuracy : dict of str to array (S, P)
        Test accuracy per variant (``"analog"``, ``"ideal"``), one row per seed.
    train_accuracy : dict of str to array (S, P)
    machine_hours : dict of str to array (S, P)
        Machine time of the training up to each checkpoint, in hours.
    reported : float or None
        The scene's historical figure.
    """

    scene: str
    seeds: list
    epochs: np.ndarray
    cards: np.ndarray
    accuracy: dict
    train_accuracy: dict
    machine_hours: dict
    reported: float | None = None

    @property
    def variants(self) -> list[str]:
        return list(self.accuracy)


def curve_job(scene_ref, seed: int, variant: str, checkpoints: Sequence[int],
              train_count: int | None = None, test_count: int | None = None) -> dict:
    """One seed and variant of :func:`learning_curves` (top level, picklable)."""
    from mark1.machine.mark_i import MarkI

    scene = as_scene(scene_ref)
    train, test, s_machine = run_cards(scene, seed, train_count, test_count)
    spec = scene.machine_spec()
    spec = spec if variant == "analog" else spec.ideal()
    acc, tacc, hours, cards = [], [], [], []
    for k in checkpoints:
        m = MarkI(spec=spec, seed=s_machine).fit(train.cards, train.labels, epochs=int(k),
                                                  order=scene.schedule.order)
        tacc.append(m.score(train.cards, train.labels))     # train first, as compare and `mark1 run`
        acc.append(m.score(test.cards, test.labels))
        hours.append(m.machine_time_ / 3600.0)
        cards.append(len(m.history_))
    return {"accuracy": acc, "train_accuracy": tacc, "machine_hours": hours, "cards": cards}


def learning_curves(scene, *, seeds=3, points: int = 10, executor: Executor | None = None, out=None,
                    resume: bool = False, progress: bool = False, train_count: int | None = None,
                    test_count: int | None = None) -> LearningCurves:
    """Test accuracy against cards presented and machine hours, analog and ideal.

    Checkpoints are whole epochs, ``points`` of them spread evenly over ``1 ..
    scene.schedule.epochs`` (fewer when the schedule has fewer epochs). At each one a
    machine is trained afresh for that many epochs with the run's seeds and scored on
    the test cards. Training for ``k`` epochs presents exactly the first ``k`` epochs of
    the full schedule (cyclic: the same cards; shuffled: the order stream draws the
    epochs' permutations in turn), so each point is the full run stopped there - exact,
    at the cost of about ``points / 2`` full runs. Only the read noise of the test
    answers differs from reading the full run's wipers mid-way (it is drawn after
    training).

    Parameters
    ----------
    scene : Scene or str
    seeds : int or sequence of int
    points : int
        Most checkpoints wanted.
    executor : concurrent.futures.Executor, optional
        Runs the jobs (one per variant and seed); results do not depend on it.
    out : str or path-like, optional
        Folder for one record per job (``jobs/``, written as each finishes) and
        ``curves.csv`` and ``curves.png`` at the end (atomic).
    resume : bool
        Skip jobs whose record in ``out/jobs`` exists and matches this run.
    progress : bool
        A progress bar over the jobs (terminal only).
    train_count, test_count : int, optional

    Returns
    -------
    LearningCurves
    """
    scene = as_scene(scene)
    seed_ids = seed_list(seeds)
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 1:
        raise InputError(f"points: expected a positive integer, got {points!r}")
    train_count = count_option(train_count, "train_count")
    test_count = count_option(test_count, "test_count")
    n_ep = scene.schedule.epochs
    checkpoints = np.unique(np.round(np.linspace(1, n_ep, min(int(points), n_ep))).astype(int))
    variants = VARIANTS
    ref = scene_ref(scene)
    # seed-major order: a worker running both variants of a seed renders its cards once
    order = [(v, s) for s in seed_ids for v in variants]
    jobs = [(ref, s, v, checkpoints.tolist(), train_count, test_count) for v, s in order]
    store = None
    if out is not None:
        config = {"version": _VERSION, "scene": scene.name, "scene_sha256": scene_digest(scene),
                  "checkpoints": checkpoints.tolist(), "train_count": train_count, "test_count": test_count,
                  "order": scene.schedule.order}
        store = Records(Path(out) / "jobs", config, valid=_valid_curve(len(checkpoints)))
    done = run_jobs(curve_job, jobs, executor=executor, keys=[f"{v}-seed-{s:04d}" for v, s in order],
                    records=store, resume=resume, progress="runs" if progress else None)
    by = dict(zip(order, done))
    res = [by[(v, s)] for v in variants for s in seed_ids]
    arrays: dict[str, dict] = {"accuracy": {}, "train_accuracy": {}, "machine_hours": {}}
    for vi, v in enumerate(variants):
        block = res[vi * len(seed_ids):(vi + 1) * len(seed_ids)]
        for key in arrays:
            arrays[key][v] = np.array([r[key] for r in block], dtype=float)
    cards = np.array(res[0]["cards"], dtype=np.int64)
    curves = LearningCurves(scene=scene.name, seeds=seed_ids, epochs=checkpoints, cards=cards,
                            accuracy=arrays["accuracy"], train_accuracy=arrays["train_accuracy"],
                            machine_hours=arrays["machine_hours"], reported=scene.reported.value)
    if out is not None:
        from mark1.viz.studies import learning_curves_figure
        write_text(Path(out) / "curves.csv", curves_csv(curves))
        learning_curves_figure(curves, out=Path(out) / "curves.png")
    return curves


def _valid_curve(n_points: int):
    def valid(key: str, rec: dict) -> bool:
        return all(len(rec[k]) == n_points for k in ("accuracy", "train_accuracy", "machine_hours", "cards"))
    return valid


#: Columns of ``curves.csv``.
CURVE_FIELDS = ("variant", "seed", "epochs", "cards", "machine_hours", "test_accuracy", "train_accuracy")


def curves_csv(curves: LearningCurves) -> str:
    """One row per variant, seed and checkpoint."""
    rows = []
    for variant in curves.variants:
        for i, seed in enumerate(curves.seeds):
            for j in range(len(curves.cards)):
                rows.append({"variant": variant, "seed": seed, "epochs": int(curves.epochs[j]),
                             "cards": int(curves.cards[j]),
                             "machine_hours": float(curves.machine_hours[variant][i, j]),
                             "test_accuracy": float(curves.accuracy[variant][i, j]),
                             "train_accuracy": float(curves.train_accuracy[variant][i, j])})
    return csv_text(rows, CURVE_FIELDS)


# ----------------------------------------------------------------------------------------
# command line


def add_command(subparsers) -> None:
    """Register ``mark1 curves``."""
    cu = subparsers.add_parser("curves", help="learning curves: test accuracy against cards and machine hours")
    add_common_options(cu, seeds=3, folder="curves")
    cu.add_argument("--points", type=int, default=10, help="most checkpoints (whole epochs; default 10)")
    cu.set_defaults(func=cmd_curves)


def cmd_curves(args) -> int:
    if args.points < 1:
        raise UsageError(f"--points: expected a positive integer, got {args.points}")
    scene, out, workers = check_common(args, args.seeds * len(VARIANTS))
    t0 = time.perf_counter()
    try:
        with executor_for(workers, args.scheduler) as executor:
            curves = learning_curves(scene, seeds=args.seeds, points=args.points, executor=executor, out=out,
                                     resume=args.resume, progress=True, train_count=args.train_count,
                                     test_count=args.test_count)
    except ValueError as e:
        raise UsageError(one_line(args, e)) from None
    for variant in curves.variants:
        acc = curves.accuracy[variant]
        print(f"{variant:>7}: test accuracy " + "  ".join(
            f"{c} cards {m:.1%}" for c, m in zip(curves.cards.tolist(), acc.mean(axis=0))))
    print(f"wall {time.perf_counter() - t0:.1f} s; written: {out}/curves.csv, curves.png, jobs/")
    return 0


