"""Dose-response: one machine parameter swept over values, the same seeds for every value.

``mark1 sweep SCENE --param rack.motor_speed --values 0.003,0.01,0.03,0.1,inf`` trains
the scene's machine once per (value, seed), with only that parameter changed. The seeds
are *paired*: for one seed every value sees the same training and test cards and the
same machine seed, so the same patch board, motor spread and noise streams. The
difference between two values on one seed is therefore the effect of the parameter
alone, and its mean over seeds comes with a paired 95 % t-interval.

What is recorded per (value, seed): test and training accuracy, machine time, seconds
the trainer waited for the motors, training mistakes, and the presentations until the
last training mistake (how long the machine took to learn its cards). ``sweep.csv``
holds one row per (value, seed) with the three seeds of the run and a digest of its
training cards, so a reader can check the pairing; ``sweep.png`` shows accuracy,
the paired change against the reference value, machine time and learning time
against the parameter with 95 % bands over seeds.

>>> from mark1.lab.sweep import sweep
>>> result = sweep("scenes/demo.toml", "rack.motor_speed", [0.01, 0.1, "inf"], seeds=3)  # doctest: +SKIP
>>> print(result.table())                                                                 # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from mark1._utils.atomic import write_text
from mark1.stimuli.cards import experiment_seeds
from mark1._utils.records import jsonable
from mark1.lab import runner
from mark1.exceptions import InputError

__all__ = ["SWEEP_FIELDS", "Sweep", "parse_value", "parse_values", "sweep", "sweep_job",
           "sweep_figure"]

#: Columns of ``sweep.csv``: one row per (value, seed).
SWEEP_FIELDS = ("param", "value", "seed", "test_accuracy", "train_accuracy", "machine_time_s",
                "waited_s", "mistakes", "learned_after", "presentations", "wall_time_s",
                "seed_train", "seed_test", "seed_machine", "cards_sha256")


# ----------------------------------------------------------------------------------------
# values


def _field(key: str):
    """The dataclass field of a dotted spec key (SpecError naming the key if unknown)."""
    from mark1.specs import MachineSpec, parameter_keys

    group, _, name = key.partition(".")
    if key not in parameter_keys():
        MachineSpec().with_overrides({key: None})       # SpecError: unknown, with the nearest name
    return {f.name: f for f in dataclasses.fields(getattr(MachineSpec(), group))}[name]


def parse_value(key: str, value):
    """One value of the spec field ``key``, from its text or as given, checked.

    ``inf`` for a float field that allows it, ``true``/``false`` for a switch.

    Raises
    ------
    mark1.specs.SpecError
        Naming the key, for an unknown key or a value of the wrong type or range.
    """
    from mark1.specs import MachineSpec, SpecError

    default = _field(key).default
    v = value
    if isinstance(value, str):
        text = value.strip()
        if isinstance(default, bool):
            if text.lower() not in ("true", "false"):
                raise SpecError(key, f"expected true or false, got {text!r}")
            v = text.lower() == "true"
        elif isinstance(default, float):
            try:
                v = float(text)
            except ValueError:
                raise SpecError(key, f"expected a number, got {text!r}") from None
        elif isinstance(default, int):
            try:
                v = int(text)
            except ValueError:
                raise SpecError(key, f"expected an integer, got {text!r}") from None
        else:
            v = text
    if isinstance(default, tuple):
        raise SpecError(key, "cannot be swept (a shape); choose a number, switch or choice")
    MachineSpec().with_overrides({key: v})                # type and range, naming the key
    if isinstance(default, float) and not isinstance(v, bool):
        v = float(v)
    return v


def parse_values(key: str, values: Sequence[Any] | str) -> list:
    """The values of a sweep, typed as the spec field ``key`` wants them.

    Parameters
    ----------
    key : str
        A dotted spec key, e.g. ``"rack.motor_speed"``.
    values : str or sequence
        A comma-separated string (``"0.01,0.1,inf"``) or a sequence of values or their
        texts (see :func:`parse_value`).

    Returns
    -------
    list
        Distinct values in the given order, each checked against the field's range.

    Raises
    ------
    mark1.specs.SpecError
        Naming the key, for an unknown key, a value of the wrong type or range, or
        fewer than two distinct values.
    """
    from mark1.specs import SpecError

    texts = values.split(",") if isinstance(values, str) else list(values)
    out = []
    for t in texts:
        v = parse_value(key, t)
        if v not in out:
            out.append(v)
    if len(out) < 2:
        raise SpecError(key, f"expected at least two distinct values to sweep, got {texts!r}")
    return out


def _value_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "inf" if math.isinf(v) else repr(v)
    return str(v)


# ----------------------------------------------------------------------------------------
# one job


def cards_digest(cards) -> str:
    """The first 16 hex digits of SHA-256 over a deck's bytes (to check pairing)."""
    return hashlib.sha256(np.ascontiguousarray(cards).tobytes()).hexdigest()[:16]


def sweep_job(scene_ref, seed: int, key: str, value, train_count: int | None = None,
              test_count: int | None = None) -> dict:
    """Train and test the scene's machine with ``key = value`` on seed ``seed``.

    Top level and picklable, so any executor may run it. The cards and the machine
    seed depend on ``seed`` only, never on the value (the pairing of a sweep).

    Returns
    -------
    dict
        The fields of :data:`SWEEP_FIELDS`.
    """
    from mark1.machine.mark_i import MarkI

    scene = runner.as_scene(scene_ref)
    train, test, seed_machine = runner.run_cards(scene, seed, train_count, test_count)
    spec = scene.machine_spec().with_overrides({key: value})
    t0 = time.perf_counter()
    m = MarkI(spec=spec, seed=seed_machine).fit(train.cards, train.labels, epochs=scene.schedule.epochs,
                                                order=scene.schedule.order)
    train_acc = m.score(train.cards, train.labels)          # train first, as compare and `mark1 run`
    test_acc = m.score(test.cards, test.labels)
    wrong = np.flatnonzero(~m.history_["correct"])
    s_train, s_test, s_machine = experiment_seeds(seed)
    return {"param": key, "value": _value_text(value), "seed": int(seed),
            "test_accuracy": float(test_acc), "train_accuracy": float(train_acc),
            "machine_time_s": float(m.machine_time_), "waited_s": float(m.waited_),
            "mistakes": int(len(wrong)), "learned_after": int(wrong[-1] + 1) if len(wrong) else 0,
            "presentations": int(len(m.history_)), "wall_time_s": time.perf_counter() - t0,
            "seed_train": s_train, "seed_test": s_test, "seed_machine": s_machine,
            "cards_sha256": cards_digest(train.cards)}


# ----------------------------------------------------------------------------------------
# the result


@dataclass
class Sweep:
    """A finished sweep: every (value, seed) record and what they say together.

    Attributes
    ----------
    scene : str
        The scene's name.
    param : str
        The dotted spec key swept.
    values : list
        The values, in the order given.
    reference : value
        The value the paired changes are measured against: the scene machine's own
        value when it is among ``values``, else the first value.
    seeds : list of int
    records : list of dict
        One per (value, seed), the fields of :data:`SWEEP_FIELDS`.
    """

    scene: str
    param: str
    values: list
    reference: Any
    seeds: list
    records: list = field(repr=False)

    def _by_value(self, value) -> list[dict]:
        text = _value_text(value)
        by_seed = {r["seed"]: r for r in self.records if r["value"] == text}
        return [by_seed[s] for s in self.seeds if s in by_seed]

    def summary(self) -> list[dict]:
        """One row per value: means with 95 % t-intervals over seeds.

        ``change_*`` is the paired difference in test accuracy from the reference
        value (this value minus the reference, seed by seed; negative = points lost),
        ``distinguishable`` whether its 95 % interval excludes 0.
        """
        from mark1.lab.stats import clip_interval, mean_interval

        ref = {r["seed"]: r["test_accuracy"] for r in self._by_value(self.reference)}
        rows = []
        for v in self.values:
            recs = self._by_value(v)
            acc = clip_interval(mean_interval([r["test_accuracy"] for r in recs]), 0.0, 1.0)
            diffs = [r["test_accuracy"] - ref[r["seed"]] for r in recs if r["seed"] in ref]
            change = clip_interval(mean_interval(diffs), -1.0, 1.0)
            hours = clip_interval(mean_interval([r["machine_time_s"] / 3600.0 for r in recs]), 0.0, math.inf)
            learned = clip_interval(mean_interval([r["learned_after"] for r in recs]), 0.0, math.inf)
            row = {"value": _value_text(v), "n": len(recs)}
            for name, stat in (("test", acc), ("change", change), ("machine_h", hours), ("learned_after", learned)):
                row[f"{name}_mean"], row[f"{name}_low"], row[f"{name}_high"] = stat if stat else (None,) * 3
            row["waited_s_mean"] = float(np.mean([r["waited_s"] for r in recs])) if recs else None
            row["mistakes_mean"] = float(np.mean([r["mistakes"] for r in recs])) if recs else None
            lo, hi = row["change_low"], row["change_high"]
            row["distinguishable"] = (lo is not None and hi is not None and not math.isnan(lo)
                                      and (lo > 0 or hi < 0))
            rows.append(row)
        return rows

    def table(self) -> str:
        """A plain-text table, one line per value."""
        head = (f"{self.scene}: {self.param} over {len(self.seeds)} paired seed(s); "
                f"change = test accuracy minus at {_value_text(self.reference)} (same seeds), 95 % interval\n")
        lines = [f"{'value':>10}  {'test accuracy':>22}  {'change (points)':>22}  {'machine h':>9}  "
                 f"{'waited s':>8}  {'learned after':>13}"]
        for r in self.summary():
            def iv(m, lo, hi, scale=100.0, fmt="{:.1f}"):
                if m is None:
                    return "-"
                if lo is None or math.isnan(lo):
                    return fmt.format(m * scale)
                return f"{fmt.format(m * scale)} [{fmt.format(lo * scale)}, {fmt.format(hi * scale)}]"
            change = ("reference" if r["value"] == _value_text(self.reference)
                      else iv(r["change_mean"], r["change_low"], r["change_high"], fmt="{:+.1f}")
                      + ("" if r["distinguishable"] else " ~0"))
            lines.append(f"{r['value']:>10}  {iv(r['test_mean'], r['test_low'], r['test_high']):>22}  "
                         f"{change:>22}  {r['machine_h_mean']:>9.3f}  {r['waited_s_mean']:>8.1f}  "
                         f"{r['learned_after_mean']:>13.1f}")
        lines.append("~0: not distinguishable from 0 (the 95 % interval contains 0); learned after: "
                     "presentations until the last training mistake")
        return head + "\n".join(lines)

    def to_json(self) -> dict:
        return jsonable({"scene": self.scene, "param": self.param,
                         "values": [_value_text(v) for v in self.values],
                         "reference": _value_text(self.reference), "seeds": self.seeds,
                         "summary": self.summary(), "records": self.records})

    def csv_text(self) -> str:
        """``sweep.csv``: one row per (value, seed), values first, then seeds."""
        return runner.csv_text([r for v in self.values for r in self._by_value(v)], SWEEP_FIELDS)


def sweep(scene, param: str, values, *, seeds=5, reference=None, executor=None, out=None,
          resume: bool = False, progress: bool = False, train_count: int | None = None,
          test_count: int | None = None) -> Sweep:
    """Dose-response of one spec parameter, over paired seeds.

    Parameters
    ----------
    scene : Scene or str
        A scene or a scene file; its machine (``scene.machine_spec()``) is the base.
    param : str
        A dotted spec key, e.g. ``"rack.motor_speed"`` (``mark1 specs`` lists them).
    values : str or sequence
        At least two distinct values (see :func:`parse_values`).
    seeds : int or sequence of int
        ``n`` means seeds ``0 .. n-1``; every value runs on every seed.
    reference : value, optional
        One of ``values``: the paired changes are measured against it (default: the
        scene machine's own value when it is among ``values``, else the first).
    executor : concurrent.futures.Executor, optional
        Runs the jobs (default: serially). Results do not depend on it.
    out : str or path-like, optional
        Folder for ``jobs/*.json`` (each (value, seed) as it finishes), ``sweep.csv``,
        ``sweep.json`` and ``sweep.png`` (at the end); all written atomically.
    resume : bool
        Read back jobs already recorded in ``out/jobs`` by the same sweep.
    progress : bool
        A progress bar over the jobs (on a terminal only).
    train_count, test_count : int, optional
        Card counts instead of the scene's.

    Returns
    -------
    Sweep

    Raises
    ------
    ValueError
        :class:`mark1.specs.SpecError` naming the key for a bad parameter or value;
        bad seeds or counts; :class:`mark1.scenes.SceneError` for a bad scene.
    """
    scene = runner.as_scene(scene)
    vals = parse_values(param, values)
    for v in vals:                                   # the scene's own overrides may conflict
        scene.machine_spec().with_overrides({param: v})
    seed_ids = runner.seed_list(seeds)
    train_count = runner.count_option(train_count, "train_count")
    test_count = runner.count_option(test_count, "test_count")
    if reference is not None:
        ref_value = parse_value(param, reference)
        if ref_value not in vals:
            raise InputError(f"reference: expected one of the values {[_value_text(v) for v in vals]}, "
                             f"got {reference!r}")
    else:
        base = scene.machine_spec().get(param)
        ref_value = base if base in vals else vals[0]
    ref = runner.scene_ref(scene)
    jobs = [(ref, s, param, v, train_count, test_count) for v in vals for s in seed_ids]
    keys = [f"value-{_value_text(v)}-seed-{s:04d}" for v in vals for s in seed_ids]
    records = None
    if out is not None:
        config = {"study": "sweep", "version": 1, "scene": scene.name, "scene_sha256": runner.scene_digest(scene),
                  "param": param, "train_count": train_count, "test_count": test_count}
        expected = {k: (_value_text(j[3]), j[1]) for k, j in zip(keys, jobs)}

        def valid(key, rec):
            return (all(f in rec for f in SWEEP_FIELDS) and (rec["value"], rec["seed"]) == expected[key]
                    and 0.0 <= rec["test_accuracy"] <= 1.0)
        records = runner.Records(Path(out) / "jobs", config, valid=valid)
    results = runner.run_jobs(sweep_job, jobs, executor=executor, keys=keys, records=records, resume=resume,
                              progress="runs" if progress else None)
    result = Sweep(scene=scene.name, param=param, values=vals, reference=ref_value, seeds=seed_ids,
                   records=list(results))
    if out is not None:
        out = Path(out)
        write_text(out / "sweep.csv", result.csv_text())
        write_text(out / "sweep.json", json.dumps(result.to_json(), indent=1) + "\n")
        sweep_figure(result, out=out / "sweep.png")
    return result


# ----------------------------------------------------------------------------------------
# the figure


def _positions(values: list) -> tuple[np.ndarray, list[str], bool]:
    """x positions, tick labels and whether the axis is logarithmic.

    Numbers spanning a factor of 20 or more (all positive) go on a log axis; infinity
    sits one step beyond the largest finite value, labelled ∞. Switches and choices sit
    at 0, 1, 2, ... with their names.
    """
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        finite = [float(v) for v in values if math.isfinite(v)]
        labels = ["∞" if not math.isfinite(v) else f"{v:g}" for v in values]
        if not finite:
            return np.arange(len(values), dtype=float), labels, False
        lo, hi = min(finite), max(finite)
        log = lo > 0 and hi / lo >= 20
        if log:
            beyond = hi * (hi / lo) ** 0.15 if hi > lo else hi * 4
        else:
            beyond = hi + 0.15 * (hi - lo) if hi > lo else hi + 1
        return np.array([float(v) if math.isfinite(v) else beyond for v in values]), labels, log
    return np.arange(len(values), dtype=float), [_value_text(v) for v in values], False


def sweep_figure(result: Sweep, *, out=None):
    """Accuracy, paired change, machine time and learning time against the parameter.

    Four panels sharing the x axis (the swept values; ∞ at the right end): test
    accuracy (thin line per seed, mean with 95 % band), the paired change in test
    accuracy from the reference value (points, 95 % band; the dotted line is 0),
    machine time in hours and presentations until the last training mistake (mean
    with 95 % band). The reference value is marked by a vertical dotted line.

    Parameters
    ----------
    result : Sweep
    out : str or path-like, optional
        Where to save the figure (PNG unless the ending says otherwise), atomically.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from mark1.viz.figure import new_figure, save_figure

    x, labels, log = _positions(result.values)
    order = np.argsort(x, kind="stable")
    rows = result.summary()
    fig = new_figure(9.0, 6.4)
    axes = [fig.add_subplot(2, 2, i + 1) for i in range(4)]
    ref_i = [_value_text(v) for v in result.values].index(_value_text(result.reference))
    ref_x = x[ref_i]

    def band(ax, key, scale, color):
        m = np.array([r[f"{key}_mean"] if r[f"{key}_mean"] is not None else np.nan for r in rows], float)
        lo = np.array([r[f"{key}_low"] if r[f"{key}_low"] is not None else np.nan for r in rows], float)
        hi = np.array([r[f"{key}_high"] if r[f"{key}_high"] is not None else np.nan for r in rows], float)
        ax.plot(x[order], m[order] * scale, "o-", color=color, markersize=4, zorder=3, label="mean")
        if np.isfinite(lo).any():
            ax.fill_between(x[order], lo[order] * scale, hi[order] * scale, color=color, alpha=0.2,
                            linewidth=0, label="95 % interval")

    ax = axes[0]
    for s in result.seeds:
        acc = np.array([next((r["test_accuracy"] for r in result.records
                              if r["seed"] == s and r["value"] == _value_text(v)), np.nan)
                        for v in result.values], float)
        ax.plot(x[order], acc[order] * 100, color="0.6", linewidth=0.6, alpha=0.6, zorder=1)
    band(ax, "test", 100, "tab:red")
    ax.set_ylabel("test accuracy (%)")
    ax.set_title("test accuracy (grey: one line per seed)", fontsize=9)
    ax = axes[1]
    band(ax, "change", 100, "tab:purple")
    ax.axhline(0, color="k", linestyle=":", linewidth=1)
    ax.set_ylabel("change (points)")
    ax.set_title(f"paired change from {labels[ref_i]} (same cards, same board)",
                 fontsize=9)
    ax = axes[2]
    band(ax, "machine_h", 1, "tab:blue")
    ax.set_ylabel("machine time (hours)")
    ax.set_title("machine time of the training", fontsize=9)
    ax = axes[3]
    band(ax, "learned_after", 1, "tab:green")
    ax.set_ylabel("presentations")
    ax.set_title("presentations until the last training mistake", fontsize=9)
    for ax in axes:
        if log:
            ax.set_xscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=8, rotation=45 if len(labels) > 6 else 0)
        ax.minorticks_off()
        ax.axvline(ref_x, color="k", linestyle=":", linewidth=0.8)
        ax.grid(alpha=0.3)
        ax.set_xlabel(result.param)
    axes[1].legend(fontsize=7, frameon=False)
    fig.suptitle(f"{result.scene} — {result.param} over {len(result.seeds)} paired seed(s)", fontsize=10)
    fig.tight_layout()
    if out is not None:
        save_figure(fig, out, dpi=110)
    return fig


# ----------------------------------------------------------------------------------------
# command line


def add_command(subparsers) -> None:
    """Register ``mark1 sweep`` on an argparse subparsers object."""
    from mark1.lab.options import add_common_options

    sw = subparsers.add_parser("sweep", help="dose-response: accuracy and machine time against one "
                                             "machine parameter, over paired seeds")
    add_common_options(sw, seeds=5, folder="sweep/<param>")
    sw.add_argument("--param", required=True, metavar="KEY",
                    help="a dotted machine parameter, e.g. rack.motor_speed (see `mark1 specs`)")
    sw.add_argument("--values", required=True, metavar="V1,V2,...",
                    help="comma-separated values, e.g. 0.003,0.01,0.1,inf (true/false for a switch); "
                         "a list starting with a minus sign needs an equals sign: --values=-1,0,1")
    sw.add_argument("--reference", metavar="V",
                    help="the value the paired changes are measured from (default: the scene's own "
                         "value when it is swept, else the first)")
    sw.add_argument("--json", action="store_true", help="print the result as JSON")
    sw.set_defaults(func=cmd_sweep)


def cmd_sweep(args) -> int:
    """``mark1 sweep``: check everything, run, write, print the table."""
    from mark1.specs import SpecError, parameter_keys
    from mark1.lab.options import UsageError, check_common, one_line

    if args.param not in parameter_keys():
        try:
            _field(args.param)
        except SpecError as e:
            raise UsageError(f"--param: {e}") from None
    try:
        values = parse_values(args.param, args.values)
    except SpecError as e:
        raise UsageError(f"--values: {e}") from None
    if args.reference is not None:
        try:
            ref = parse_value(args.param, args.reference)
        except SpecError as e:
            raise UsageError(f"--reference: {e}") from None
        if ref not in values:
            raise UsageError(f"--reference: expected one of the swept values "
                             f"({', '.join(map(_value_text, values))}), got {args.reference!r}")
        args.reference = ref
    if args.out is None:
        args.out = str(Path("runs") / Path(args.scene).stem / "sweep" / args.param)
    scene, out, workers = check_common(args, len(values) * args.seeds)
    t0 = time.perf_counter()
    try:
        with runner.executor_for(workers, getattr(args, "scheduler", None)) as ex:
            result = sweep(scene, args.param, values, seeds=args.seeds, reference=args.reference,
                           executor=ex, out=out,
                           resume=args.resume, progress=not args.json, train_count=args.train_count,
                           test_count=args.test_count)
    except ValueError as e:
        raise UsageError(one_line(args, e)) from None
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    print(result.table())
    print(f"wall {time.perf_counter() - t0:.1f} s; written: {out}/sweep.csv, sweep.json, sweep.png, jobs/")
    return 0
