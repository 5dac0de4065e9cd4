"""Learning curves: test accuracy against cards presented and machine time (``mark1 curves``).

Analog (the scene's machine) and ideal (``spec.ideal()`` on the same wiring), over
seeds; each (variant, seed) is one job of :func:`mark1.lab.runner.run_jobs`. Each
checkpoint's mean accuracy carries its own 95 % interval from :mod:`mark1.stats` (inside
[0, 100 %]; none below :data:`mark1.stats.MIN_SEEDS` seeds): pointwise intervals, each a
statement about its checkpoint alone, not about the curve as a whole.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Sequence

import numpy as np

from mark1._utils.atomic import write_text
from mark1 import stats
from mark1._utils.html import clip, figure_function, html_table, study_html
from mark1.exceptions import InputError
from mark1.lab._common import aligned, check_figure, csv_text, draw, hours_cell, pct, study_inputs
from mark1.lab._family import INTERVAL_FIELDS, caption, interval_fields, too_few_line, value_cell
from mark1.lab.runner import (Records, SceneLike, Seeds, StrPath, as_scene, job, run_cards, run_jobs, scene_digest,
                              scene_ref)
from mark1.machine.mark_i import MarkI

__all__ = ["learning_curves", "LearningCurves", "CURVE_VARIANTS"]

_VERSION = 1

#: The machines of a learning-curve study: the scene's own and ``spec.ideal()`` on the same wiring.
CURVE_VARIANTS = ("analog", "ideal")


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

    Examples
    --------
    >>> curves = learning_curves("scenes/demo.toml", seeds=2, points=3, train_count=8, test_count=8)
    >>> curves.variants, curves.epochs.tolist(), curves.cards.tolist()
    (['analog', 'ideal'], [1, 3, 5], [8, 24, 40])
    >>> curves.accuracy["ideal"].shape                     # (seeds, checkpoints)
    (2, 3)
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
        """The machines drawn: ``"analog"`` and ``"ideal"``."""
        return list(self.accuracy)

    def interval(self, variant: str, j: int) -> stats.Interval:
        """The mean test accuracy of ``variant`` at checkpoint ``j`` with its pointwise interval
        (:func:`mark1.stats.mean_interval`, inside [0, 1]; none below the method's minimum seeds)."""
        return stats.mean_interval(np.asarray(self.accuracy[variant], dtype=float)[:, j].tolist(), (0.0, 1.0))

    def summary(self) -> list[dict]:
        """One row per variant and checkpoint: ``variant``, ``epochs``, ``cards``, ``machine_hours``
        (mean), ``n``, ``mean`` (test accuracy) and the columns of
        :data:`mark1.lab._family.INTERVAL_FIELDS` (correction "none": pointwise intervals)."""
        rows = []
        for v in self.variants:
            for j in range(len(self.epochs)):
                iv = self.interval(v, j)
                rows.append({"variant": v, "epochs": int(self.epochs[j]), "cards": int(self.cards[j]),
                             "machine_hours": float(np.mean(self.machine_hours[v][:, j])), "n": iv.n,
                             "mean": iv.mean, **interval_fields(iv)})
        return rows

    def seeds_line(self) -> str | None:
        """The seeds for ±1 and ±0.5-point pointwise intervals, the largest over the curves' points."""
        return stats.seeds_line([np.asarray(self.accuracy[v], dtype=float)[:, j].tolist()
                                 for v in self.variants for j in range(len(self.epochs))])

    def _cells(self) -> tuple[list, list, list]:
        """A table's head, rows and lines under it: per checkpoint, mean test accuracy with its
        pointwise interval and machine time of each variant."""
        head = ["epochs", "cards"]
        for v in self.variants:
            head += [f"{v} test accuracy (%)", f"{v} machine time"]
        rows = []
        for j in range(len(self.epochs)):
            row = [str(int(self.epochs[j])), str(int(self.cards[j]))]
            for v in self.variants:
                row += [value_cell(self.interval(v, j)), hours_cell(float(np.mean(self.machine_hours[v][:, j])))]
            rows.append(row)
        under = [caption(None, 0, pointwise=True)]
        if self.reported is not None:
            under.append(f"reported: {pct(self.reported)}")
        seeds = self.seeds_line()
        if seeds:
            under.append(seeds)
        few = too_few_line([len(self.seeds)])
        if few:
            under.append(few)
        return head, rows, under

    def table(self) -> str:
        """Plain text: per checkpoint, each variant's mean test accuracy with its pointwise interval
        and its machine time; the method and the seeds a precision needs under it."""
        head, rows, under = self._cells()
        return "\n".join([f"{self.scene}: learning curves over {len(self.seeds)} seed(s)",
                           *aligned(head, rows, left=()), *under])

    def __repr__(self) -> str:
        last = ", ".join(f"{v} {pct(float(np.mean(self.accuracy[v][:, -1])))}" for v in self.variants)
        return clip(f"LearningCurves({self.scene!r}, {len(self.seeds)} seed(s); at {int(self.cards[-1])} "
                    f"cards: {last})")

    def _repr_html_(self) -> str:
        head, rows, under = self._cells()
        return study_html(f"Learning curves: {self.scene}",
                          html_table(head, rows, left=(), caption=f"mean over {len(self.seeds)} seed(s); "
                                     + caption(None, 0, pointwise=True), notes=under[1:]),
                          figure_function("LearningCurves"), self)


@job
def _curve_job(scene_ref, seed: int, variant: str, checkpoints: Sequence[int],
               train_count: int | None = None, test_count: int | None = None) -> dict:
    """One seed and variant of :func:`learning_curves` (top level, picklable)."""
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


def learning_curves(scene: SceneLike, *, seeds: Seeds = 10, points: int = 10, executor: Executor | None = None,
                    out: StrPath | None = None,
                    resume: bool = False, progress: bool = False, train_count: int | None = None,
                    test_count: int | None = None, figure: Callable | None = None) -> LearningCurves:
    """Test accuracy against cards presented and machine time, analog and ideal.

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
        A scene or a scene file; its machine is the analog variant.
    seeds : int or sequence of int
        ``n`` means seeds ``0 .. n-1``; both variants run on every seed. At least
        :data:`mark1.stats.MIN_SEEDS` (10, the default) for the pointwise intervals.
    points : int
        Most checkpoints wanted.
    executor : concurrent.futures.Executor, optional
        Runs the jobs (one per variant and seed); results do not depend on it.
    out : str or path-like, optional
        Folder for one record per job (``jobs/``, written as each finishes) and
        ``curves.csv`` (one row per seed and checkpoint), ``curves_summary.csv`` (one row per
        variant and checkpoint, the mean with its pointwise interval and method) and the
        figure (see ``figure``) at the end (atomic).
    resume : bool
        Skip the (variant, seed) jobs recorded in ``out/jobs`` with the same checkpoints.
    progress : bool
        A progress bar over the (variant, seed) jobs, each a machine per checkpoint.
    train_count, test_count : int, optional
        Card counts instead of the scene's; a checkpoint's cards follow the training count.
    figure : callable, optional
        Draws the curves, called as ``figure(curves, out=out / "curves.png")``; needs
        ``out``. ``mark1 curves`` passes :func:`mark1.viz.studies.learning_curves_figure`.

    Returns
    -------
    LearningCurves

    Raises
    ------
    InputError
        For bad seeds, points or counts, ``resume`` or ``figure`` without ``out``.

    Examples
    --------
    >>> curves = learning_curves("scenes/demo.toml", seeds=[1], points=2, train_count=8, test_count=8)
    >>> curves.cards.tolist(), curves.accuracy["analog"].tolist()
    ([8, 40], [[0.75, 0.75]])
    """
    scene, seed_ids, train_count, test_count = study_inputs(scene, seeds, train_count, test_count)
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 1:
        raise InputError(f"points: expected a positive integer, got {points!r}")
    check_figure(figure, out)
    n_ep = scene.schedule.epochs
    checkpoints = np.unique(np.round(np.linspace(1, n_ep, min(int(points), n_ep))).astype(int))
    variants = CURVE_VARIANTS
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
    done = run_jobs(_curve_job, jobs, executor=executor, keys=[f"{v}-seed-{s:04d}" for v, s in order],
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
        write_text(Path(out) / "curves.csv", _curves_csv(curves))
        write_text(Path(out) / "curves_summary.csv",
                   csv_text(curves.summary(), ("variant", "epochs", "cards", "machine_hours", "n", "mean",
                                               *INTERVAL_FIELDS)))
        draw(figure, curves, Path(out) / "curves.png")
    return curves


def _valid_curve(n_points: int):
    def valid(key: str, rec: dict) -> bool:
        return all(len(rec[k]) == n_points for k in ("accuracy", "train_accuracy", "machine_hours", "cards"))
    return valid


#: Columns of ``curves.csv``.
CURVE_FIELDS = ("variant", "seed", "epochs", "cards", "machine_hours", "test_accuracy", "train_accuracy")


def _curves_csv(curves: LearningCurves) -> str:
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
