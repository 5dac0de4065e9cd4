"""Accuracy, energy and machine time of the Mark I's motors and the device presets on one scene.

Each machine trains on the scene's own cards, seed by seed, the same seeds for every
machine (so every difference is paired): the Mark I with its DC motors (the scene's rack),
the Mark I with ratchet relays, and each device preset of :mod:`mark1.devices` in the
scene's rack. Each run gives its test accuracy, its energy part by part
(:func:`mark1.machine.energy.run_energy`: write pulses, drivers, reads, periphery) and its
machine time. The accuracy changes against the Mark I's motors are one family under Holm
(:func:`mark1.stats.family`); every mean has its interval from :mod:`mark1.stats` (none
below :data:`mark1.stats.MIN_SEEDS` seeds).

Each (machine, seed) run is a job of :mod:`mark1.lab.runner` (serial, a process pool or
a Dask cluster, the same bits; recorded as it finishes, ``resume`` after an interruption).
``mark1 device energy --scene NAME --seeds N`` writes the figure
(:func:`mark1.viz.energy.energy_study_figure`), the runs and the table.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mark1 import stats
from mark1._utils.atomic import write_text
from mark1._utils.html import TextTable
from mark1._utils.records import jsonable
from mark1.devices import PRESETS, device_spec
from mark1.exceptions import InputError
from mark1.lab._common import check_figure, draw
from mark1.lab.runner import (Records, SceneLike, Seeds, StrPath, as_scene, job, run_cards, run_jobs, scene_digest,
                              scene_ref, seed_list)
from mark1.machine.energy import PARTS, Counts, Energy, counted_energy, joules_text, run_counts
from mark1.machine.mark_i import MarkI
from mark1.specs import MachineSpec

__all__ = ["REFERENCE", "EnergyStudy", "machines", "energy_study"]

#: Bumped when a job's record changes meaning (records of another version are run again).
_VERSION = 1

#: The machine every accuracy change is measured against.
REFERENCE = "Mark I, DC motors"


def machines(base: MachineSpec) -> dict[str, MachineSpec]:
    """The machines of the study: the Mark I's two drives and every device preset, on ``base``.

    Examples
    --------
    >>> from mark1.specs import SMALL
    >>> list(machines(SMALL))
    ['Mark I, DC motors', 'Mark I, ratchet relays', 'reram-sb', 'reram-es', 'ecram', 'pcm']
    """
    return {REFERENCE: base.with_overrides({"rack.drive": "continuous"}),
            "Mark I, ratchet relays": base.with_overrides({"rack.drive": "ratchet"}),
            **{name: device_spec(name, base) for name in PRESETS}}


@dataclass(frozen=True)
class EnergyStudy:
    """The runs of :func:`energy_study`: each machine, each seed.

    Attributes
    ----------
    scene : str
        The scene's name.
    seeds : tuple of int
        The seeds, the same for every machine.
    accuracy : dict of str to list of float
        Test accuracy (share) of each machine's run, seed by seed.
    energies : dict of str to list of Energy
        Each run's energy, part by part.
    machine_time_s : dict of str to list of float
        Each run's machine time (s).

    Examples
    --------
    >>> from mark1.stimuli.scenes import load_scene
    >>> study = energy_study(load_scene("e_vs_f"), seeds=[0, 1], names=["ecram"], train_count=6, test_count=10)
    >>> study.seeds, sorted(study.changes())
    ((0, 1), ['ecram'])
    >>> print(study.table().splitlines()[-2])              # two seeds: no interval
    too few seeds for an interval (fewer than 10): 1 of 1 machines (n = 2); no interval and no verdict there
    """

    scene: str
    seeds: tuple[int, ...]
    accuracy: dict[str, list[float]]
    energies: dict[str, list[Energy]]
    machine_time_s: dict[str, list[float]]

    @property
    def names(self) -> list[str]:
        """The machines, the reference first."""
        return list(self.accuracy)

    def changes(self) -> dict[str, stats.Compared]:
        """Each other machine's paired change of test accuracy against :data:`REFERENCE`, one family under Holm
        (shares: the interval inside [-1, 1])."""
        others = [n for n in self.names if n != REFERENCE]
        ref = np.asarray(self.accuracy[REFERENCE])
        samples = [list(np.asarray(self.accuracy[n]) - ref) for n in others]
        return dict(zip(others, stats.family(samples, (-1.0, 1.0), correction="holm")))

    def status(self, name: str) -> str:
        """The statuses of the constants behind a machine's energy: one word when they agree, else the
        least sure with the parts that are surer (``assumed; write pulses single-source``)."""
        order = ("assumed", "contradictory", "single-source", "datasheet", "documented")
        by_part = {p.name: p.status for p in self.energies[name][0].parts if p.terms}
        least = next((s for s in order if s in by_part.values()), "-")
        surer = [f"{p} {s}" for p, s in by_part.items() if s != least]
        return "; ".join([least, *surer])

    def rows(self) -> list[dict[str, Any]]:
        """One row a machine: accuracy, its change, the energy of a run (total and each part), machine time,
        each mean with its interval (``Interval.as_dict()``)."""
        changes = self.changes()
        out = []
        for n in self.names:
            es = self.energies[n]
            row: dict[str, Any] = {
                "machine": n, "seeds": len(self.seeds),
                "accuracy": stats.mean_interval(self.accuracy[n], (0.0, 1.0)).as_dict(),
                "change": None if n not in changes else {"interval": changes[n].interval.as_dict(),
                                                         "raw": changes[n].raw.as_dict(), "p": changes[n].p,
                                                         "p_adjusted": changes[n].p_adjusted,
                                                         "decided": changes[n].decided,
                                                         "correction": changes[n].correction},
                "energy_j": stats.mean_interval([e.total_j for e in es], (0.0, np.inf)).as_dict(),
                "energy_per_correction_j": stats.mean_interval(
                    [e.per_correction_j for e in es if np.isfinite(e.per_correction_j)], (0.0, np.inf)).as_dict(),
                "machine_time_s": stats.mean_interval(self.machine_time_s[n], (0.0, np.inf)).as_dict(),
                "status": self.status(n)}
            for p in PARTS:
                row[f"{p.replace(' ', '_')}_j"] = float(np.mean([e.part(p).joules for e in es]))
            out.append(row)
        return out

    def table(self) -> TextTable:
        """The study as a terminal table, with the statistics' words under it.

        Columns: test accuracy (mean, interval), its change against the reference (Holm-adjusted
        interval, points), the energy of a run and a correction (mean), each part's mean, the
        machine time.
        """
        changes = self.changes()
        head = ("machine", "test accuracy", "change (Holm)", "energy a run", "a correction", *PARTS,
                "machine time", "constants")
        cells = []
        for n in self.names:
            iv = stats.mean_interval(self.accuracy[n], (0.0, 1.0))
            acc = (f"{100 * iv.mean:.1f} % (too few seeds)" if iv.low is None or iv.high is None else
                   f"{100 * iv.mean:.1f} % [{100 * iv.low:.1f}, {100 * iv.high:.1f}]")
            c = changes.get(n)
            change = "-" if c is None else (f"{100 * c.interval.mean:+.1f} (too few seeds)" if c.interval.too_few
                                             else c.interval.format(scale=100, digits=1, signed=True))
            es = self.energies[n]
            per = [e.per_correction_j for e in es if np.isfinite(e.per_correction_j)]
            t = stats.mean_interval(self.machine_time_s[n], (0.0, np.inf))
            cells.append((n, acc, change, joules_text(float(np.mean([e.total_j for e in es]))),
                          joules_text(float(np.mean(per))) if per else "-",
                          *[joules_text(float(np.mean([e.part(p).joules for e in es]))) for p in PARTS],
                          f"{t.mean:.4g} s", self.status(n)))
        w = [max(len(str(r[i])) for r in (head, *cells)) for i in range(len(head))]
        lines = ["  ".join(f"{c:<{w[i]}}" for i, c in enumerate(r)).rstrip() for r in (head, *cells)]
        lines.insert(1, "  ".join("-" * x for x in w))
        samples = [list(np.asarray(self.accuracy[n]) - np.asarray(self.accuracy[REFERENCE])) for n in changes]
        lines += ["", f"scene: {self.scene}; {len(self.seeds)} paired seeds; changes: test accuracy against "
                      f"{REFERENCE}, points; energy: means over the seeds (mark1.machine.energy)",
                  *stats.family_notes(list(changes.values()), samples, what="machines")]
        return TextTable("\n".join(lines))

    def records(self) -> list[dict[str, Any]]:
        """One record a run: machine, seed, accuracy, machine time, every count and part (for ``energy_runs.csv``)."""
        out = []
        for n in self.names:
            for seed, a, e, t in zip(self.seeds, self.accuracy[n], self.energies[n], self.machine_time_s[n]):
                rec: dict[str, Any] = {"machine": n, "seed": seed, "test_accuracy": a, "machine_time_s": t,
                                       "energy_j": e.total_j, "corrections": e.corrections}
                rec.update({f"{p.replace(' ', '_')}_j": e.part(p).joules for p in PARTS})
                rec.update({f"count_{k}": v for k, v in e.counts._asdict().items()})
                out.append(rec)
        return out


@job
def _energy_job(scene_ref, seed: int, spec: MachineSpec, train_count: int | None = None,
                test_count: int | None = None) -> dict:
    """One seed of one machine of :func:`energy_study` (top level, picklable): its accuracy,
    machine time and what it did, counted for its energy (plain numbers)."""
    scene = as_scene(scene_ref)
    train, test, machine_seed = run_cards(scene, seed, train_count, test_count)
    m = MarkI(spec=spec, seed=machine_seed).fit(train.cards, train.labels, epochs=scene.schedule.epochs,
                                                order=scene.schedule.order)
    return {"test_accuracy": float(m.score(test.cards, test.labels)), "machine_time_s": float(m.machine_time_),
            "counts": {k: (int(v) if isinstance(v, (int, np.integer)) else float(v))
                       for k, v in run_counts(m)._asdict().items()}}


def energy_study(scene: SceneLike, *, seeds: Seeds = stats.MIN_SEEDS, names: Sequence[str] | None = None,
                 executor: Executor | None = None,
                 out: StrPath | None = None, resume: bool = False, progress: bool = False,
                 train_count: int | None = None, test_count: int | None = None,
                 figure: Callable | None = None) -> EnergyStudy:
    """Train every machine of :func:`machines` on ``scene``, seed by seed, and count its energy.

    Parameters
    ----------
    scene : Scene or str
        A scene or a scene file; its rack is the Mark I's.
    seeds : int or sequence of int
        ``n`` means seeds ``0 .. n-1`` (default 10, :data:`mark1.stats.MIN_SEEDS`: fewer give
        no interval), the same for every machine (paired).
    names : sequence of str, optional
        Only these machines (the reference is always run, first).
    executor : concurrent.futures.Executor, optional
        Runs the jobs (one per machine and seed); results do not depend on it.
    out : str or path-like, optional
        Folder: each run's record in ``out/jobs`` as it finishes, then ``energy_runs.csv`` (one
        row a run), ``energy.json`` (one row a machine, with intervals), ``energy.txt`` (the
        table) and, with ``figure``, ``energy.png``; every file atomically.
    resume : bool
        Skip the runs whose record in ``out/jobs`` matches this study.
    progress : bool
        A bar on a terminal.
    train_count, test_count : int, optional
        Cards to train on and to test on (default the scene's).
    figure : callable, optional
        Draws the study's figure, called as ``figure(study, out=out / "energy.png")``; needs
        ``out``. ``mark1 device energy`` passes :func:`mark1.viz.energy.energy_study_figure`.

    Returns
    -------
    EnergyStudy

    Raises
    ------
    InputError
        For unknown machines, bad seeds, or ``resume``/``figure`` without ``out``.

    Examples
    --------
    >>> from mark1.stimuli.scenes import load_scene
    >>> study = energy_study(load_scene("e_vs_f"), seeds=[0, 1], names=["ecram"], train_count=6, test_count=10)
    >>> study.names, len(study.accuracy["ecram"])
    (['Mark I, DC motors', 'ecram'], 2)
    """
    scene = as_scene(scene)
    ids = seed_list(seeds)
    check_figure(figure, out)
    every = machines(scene.machine_spec())
    wanted = list(every) if names is None else [REFERENCE, *[n for n in names if n != REFERENCE]]
    unknown = [n for n in wanted if n not in every]
    if unknown:
        raise InputError(f"names: expected some of {', '.join(every)}, got {unknown[0]!r}")
    store = None
    if out is not None:
        config = {"study": "energy", "version": _VERSION, "scene": scene.name, "scene_sha256": scene_digest(scene),
                  "train_count": train_count, "test_count": test_count,
                  "machines": {n: json.dumps(jsonable(every[n].to_dict()), sort_keys=True) for n in wanted}}
        store = Records(Path(out) / "jobs", config,
                        valid=lambda key, r: 0.0 <= r["test_accuracy"] <= 1.0 and r["machine_time_s"] >= 0)
    order = [(n, s) for s in ids for n in wanted]        # seed-major: a worker renders a seed's cards once
    ref = scene_ref(scene)
    runs = run_jobs(_energy_job, [(ref, s, every[n], train_count, test_count) for n, s in order],
                    executor=executor, keys=[f"{_key(n)}-seed-{s:04d}" for n, s in order], records=store,
                    resume=resume, progress="runs" if progress else None)
    by = dict(zip(order, runs))
    study = EnergyStudy(scene.name, tuple(ids),
                        {n: [by[n, s]["test_accuracy"] for s in ids] for n in wanted},
                        {n: [counted_energy(every[n], Counts(**by[n, s]["counts"])) for s in ids] for n in wanted},
                        {n: [by[n, s]["machine_time_s"] for s in ids] for n in wanted})
    if out is not None:
        _write(study, Path(out), figure)
    return study


def _key(name: str) -> str:
    """A machine's name as a record's file name (``Mark I, DC motors`` -> ``mark-i-dc-motors``)."""
    return "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split())


def _write(study: EnergyStudy, out: Path, figure: Callable | None) -> None:
    """``energy_runs.csv``, ``energy.json``, ``energy.txt`` and (with ``figure``) ``energy.png`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    recs = study.records()
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(recs[0]), lineterminator="\n")
    w.writeheader()
    w.writerows({k: repr(v) if isinstance(v, float) else v for k, v in r.items()} for r in recs)
    write_text(out / "energy_runs.csv", buf.getvalue())
    write_text(out / "energy.json", json.dumps({"scene": study.scene, "seeds": list(study.seeds),
                                                 "machines": study.rows()}, indent=2, allow_nan=False) + "\n")
    write_text(out / "energy.txt", str(study.table()) + "\n")
    draw(figure, study, out / "energy.png")
