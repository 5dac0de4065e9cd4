"""``mark1 compare``, ``ablate``, ``curves``, ``sweep`` and ``reenact``: the lab's studies over seeds.

Each command checks its options and the scene before any work, runs the study on the
executor ``--workers`` or ``--scheduler`` asks for, has the study draw its figure
(:mod:`mark1.viz.studies`) beside its records, and prints a table. ``ablate`` and
``sweep`` take a starting point (``--at KEY=VALUE``, repeatable) set on the scene's
machine first. A study whose machine crosses a known cliff says so in one line on
stderr (``mark1: warning: ...``) before it runs.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
import time
import warnings
from pathlib import Path
from collections.abc import Callable

from mark1 import stats
from mark1._utils.language import duration
from mark1._utils.records import jsonable
from mark1.cli._names import COMMANDS
from mark1.cli._options import (_PHYSICAL_HELP, add_common_options, add_overwrite, check_common, check_run_options,
                                check_scene, check_sweep_size, one_line, output_file, output_folder, scene_folder,
                                scene_or_usage, workers_for)
from mark1.exceptions import CliffWarning, InputError, SceneError, SpecError, UsageError
from mark1.lab import (CURVE_VARIANTS, DEFAULT_TOLERANCE, FEATURES, LEARNERS, SCHEDULE_PARAMS, UNTIL_CAP, ablate,
                       catalog, check_learners, check_precision, compare, grid_sweep, judged, learning_curves,
                       parse_value, parse_at, parse_values, reenact, sweep, value_text)
from mark1.lab.runner import executor_for
from mark1.stats import MIN_SEEDS
from mark1.specs import NON_IDEALITIES, parameter_keys
from mark1.viz.studies import (ablation_figure, comparison_figure, grid_sweep_figure, learning_curves_figure,
                               reenact_figure, sweep_figure)

__all__ = ["add_commands"]


def _run_study(args, workers: int, study: Callable, *inputs, message: Callable[[Exception], str] | None = None,
               **options):
    """``study(*inputs, ...)`` on the executor the options ask for; (result, start time).

    The options every study shares are passed on from ``args``; a ValueError (a scene,
    spec or count the study refuses) becomes one usage line naming the scene.
    """
    t0 = time.perf_counter()
    try:
        with executor_for(workers, args.scheduler) as executor, warnings.catch_warnings():
            warnings.simplefilter("always", CliffWarning)
            warnings.showwarning = _one_line_warning(warnings.showwarning)
            result = study(*inputs, seeds=args.seeds, executor=executor, resume=args.resume,
                           train_count=args.train_count, test_count=args.test_count, **options)
    except ValueError as e:                      # SceneError, SpecError, classes that do not fit
        raise UsageError(message(e) if message else one_line(args, e)) from None
    return result, t0


def _one_line_warning(show: Callable) -> Callable:
    """``warnings.showwarning`` that writes a study's cliff warning as one line on stderr
    (``mark1: warning: ...``, no file and source line); any other warning as ``show`` does."""
    def showwarning(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, CliffWarning):
            print(f"mark1: warning: {message}", file=sys.stderr, flush=True)
        else:
            show(message, category, filename, lineno, file, line)
    return showwarning


def _at_option(args) -> dict:
    """``--at KEY=VALUE`` (repeatable) as a checked starting point, or one usage line naming ``--at``."""
    at: dict = {}
    for item in args.at:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise UsageError(f"--at: expected KEY=VALUE such as rack.step=0.04, got {item!r}")
        if key in at:                           # last-wins would hide a typo'd second value
            raise UsageError(f"--at: expected each key once, got {key} twice (the second time {item!r})")
        at[key] = value.strip()
    try:
        return parse_at(at)
    except (SpecError, InputError) as e:
        raise UsageError(f"--at: {str(e).removeprefix('at: ')}") from None


def _at_scene(args, scene, at: dict, n_jobs: int):
    """The scene's machine at the starting point ``at``, checked (one ``--at`` line if the scene's
    machine cannot take it), and the scene's memory budget at that point; the scene itself without one."""
    if not at:
        return scene
    try:
        scene.machine_spec().with_overrides(at)
    except ValueError as e:
        raise UsageError(f"--at: {e}") from None
    overrides = {k: dict(v) if isinstance(v, dict) else v for k, v in scene.overrides.items()}
    for key, value in at.items():                 # nested as a scene file writes them
        group, _, name = key.partition(".")
        table = overrides.get(group)
        overrides[group] = {**(table if isinstance(table, dict) else {}), name: value}
    stressed = dataclasses.replace(scene, overrides=overrides, _cache={})
    check_scene(args, stressed, at_once=workers_for(args, n_jobs))
    return stressed


def _print_result(args, result, t0: float, written: str, as_json: dict | None = None) -> int:
    """The result as JSON (``--json``), or its table and what was written."""
    if getattr(args, "json", False):
        print(json.dumps(jsonable(result.to_json() if as_json is None else as_json), indent=2))
        return 0
    print(result.table())
    print(f"wall {duration(time.perf_counter() - t0)}; written: {written}")
    return 0


def _precision_options(parser, family: str) -> None:
    """``--precision`` and ``--max-seeds``, for a study whose intervals form ``family``."""
    parser.add_argument("--precision", type=float, metavar="P",
                        help=f"run until every interval of the family ({family}) is about ±P points: the --seeds "
                             f"(at least {MIN_SEEDS}) are a pilot that fixes how many new seeds to run (Stein's "
                             "two-stage rule, which keeps the intervals' coverage); the intervals count the new seeds")
    parser.add_argument("--max-seeds", type=int, default=200, metavar="N",
                        help="with --precision: the most seeds in all, the pilot's included (default 200)")


def _precision_args(args) -> dict:
    """``--precision`` and ``--max-seeds`` checked (one usage line naming the option), as study keywords."""
    try:
        check_precision(args.precision, args.max_seeds, range(args.seeds))     # a range: no list of a huge count
    except InputError as e:
        text = str(e)
        name = {"precision": "--precision", "max_seeds": "--max-seeds", "seeds": "--seeds"}[text.split(":")[0]]
        raise UsageError(f"{name}:{text.split(':', 1)[1]}") from None
    return {"precision": args.precision, "max_seeds": args.max_seeds}


def cmd_compare(args) -> int:
    try:
        names = check_learners(args.learners)
    except ValueError as e:
        raise UsageError(f"--learners: {e}".replace("learners: ", "", 1)) from None
    precision = _precision_args(args)
    scene, out, workers = check_common(args, args.seeds)
    comp, t0 = _run_study(args, workers, compare, scene, learners=names, out=out, progress=not args.json,
                          features=args.features, figure=comparison_figure, **precision)
    return _print_result(args, comp, t0, f"{out}/results.csv, results.json, report.md, accuracy.png, seeds/",
                         as_json={"scene": comp.scene, "seeds": comp.seeds, "reported": comp.reported,
                                  "summary": comp.summary(), "out": str(out)})


def cmd_ablate(args) -> int:
    at = _at_option(args)
    precision = _precision_args(args)
    n_jobs = args.seeds * 2 * (len(NON_IDEALITIES) + 1)
    scene, out, workers = check_common(args, n_jobs)
    _at_scene(args, scene, at, n_jobs)
    result, t0 = _run_study(args, workers, ablate, scene, at=at, out=out, progress=not args.json,
                            figure=ablation_figure, **precision)
    return _print_result(args, result, t0, f"{out}/ablation.csv, ablation.json, ablation.png, jobs/")


def cmd_curves(args) -> int:
    if args.points < 1:
        raise UsageError(f"--points: expected a positive integer, got {args.points}")
    scene, out, workers = check_common(args, args.seeds * len(CURVE_VARIANTS))
    curves, t0 = _run_study(args, workers, learning_curves, scene, points=args.points, out=out, progress=True,
                            figure=learning_curves_figure)
    print(curves.table())
    print(f"wall {duration(time.perf_counter() - t0)}; written: {out}/curves.csv, curves_summary.csv, curves.png, "
          "jobs/")
    return 0


def _sweep_values(key: str, values: str) -> list:
    """The values of one ``--param``, or one usage line naming the option at fault."""
    try:
        return parse_values(key, values)
    except SpecError as e:                       # an unknown key is the parameter's fault, else the values'
        known = key in parameter_keys() or key in SCHEDULE_PARAMS
        raise UsageError(f"{'--values' if known else '--param'}: {e}") from None


def cmd_sweep(args) -> int:
    """``mark1 sweep``: check everything, run, write, print the table (one ``--param`` or two)."""
    params, texts = args.param, args.values
    if len(params) != len(texts):
        raise UsageError(f"--values: expected one --values per --param, got {len(params)} --param and "
                         f"{len(texts)} --values")
    if len(params) > 2:
        raise UsageError(f"--param: expected one or two, got {len(params)}")
    if len(set(params)) < len(params):
        raise UsageError(f"--param: {params[0]} given twice; expected two different keys")
    if args.epochs is not None and (args.epochs < 1 or any(p in SCHEDULE_PARAMS for p in params)):
        raise UsageError(f"--epochs: expected a positive integer, and no --param schedule.epochs beside it, "
                         f"got {args.epochs}")
    check_sweep_size(args, params, texts)
    precision = _precision_args(args)
    values = [_sweep_values(k, v) for k, v in zip(params, texts)]
    at = _at_option(args)
    swept = [p for p in params if p in at]
    if swept:
        raise UsageError(f"--at: {swept[0]} is swept (--param); expected a starting point of other parameters")
    if len(params) == 2:
        return _grid_sweep(args, params, values, at, precision)
    args.param, values = params[0], values[0]
    if args.reference is not None:
        try:
            ref = parse_value(args.param, args.reference)
        except SpecError as e:
            raise UsageError(f"--reference: {e}") from None
        if ref not in values:
            raise UsageError(f"--reference: expected one of the swept values "
                             f"({', '.join(map(value_text, values))}), got {args.reference!r}")
        args.reference = ref
    if args.out is None:
        args.out = str(Path("runs") / scene_folder(args.scene) / "sweep" / args.param)
    scene, out, workers = check_common(args, len(values) * args.seeds)
    _check_passes(args, _at_scene(args, scene, at, len(values) * args.seeds), [args.param], [values], workers)
    result, t0 = _run_study(args, workers, sweep, scene, args.param, values, reference=args.reference, at=at,
                            out=out, progress=not args.json, epochs=args.epochs, figure=sweep_figure,
                            correction=args.correction, **precision)
    return _print_result(args, result, t0, f"{out}/sweep.csv, sweep_summary.csv, sweep.json, sweep.png, jobs/")


def _check_passes(args, scene, params: list, values: list, workers: int) -> None:
    """The memory budget again, for the most passes a sweep trains when that is more than the scene's."""
    passes = [args.epochs or scene.schedule.epochs]
    for key, vs in zip(params, values):
        if key in SCHEDULE_PARAMS:
            passes += [int(v.split(":")[1]) if isinstance(v, str) else v for v in vs]
    if max(passes) > scene.schedule.epochs:
        longer = dataclasses.replace(scene, schedule=dataclasses.replace(scene.schedule, epochs=max(passes)),
                                     _cache={})
        check_scene(args, longer, at_once=workers)


def _grid_sweep(args, params: list, values: list, at: dict, precision: dict) -> int:
    """``mark1 sweep`` with two ``--param``: every pair of values, a heat map."""
    if args.reference is not None:
        raise UsageError("--reference: only with one --param (two are compared against the scene's own values)")
    if args.out is None:
        args.out = str(Path("runs") / scene_folder(args.scene) / "sweep" / f"{params[0]}_x_{params[1]}")
    n_jobs = len(values[0]) * len(values[1]) * args.seeds
    scene, out, workers = check_common(args, n_jobs)
    _check_passes(args, _at_scene(args, scene, at, n_jobs), params, values, workers)
    result, t0 = _run_study(args, workers, grid_sweep, scene, params[0], values[0], params[1], values[1], at=at,
                            out=out, progress=not args.json, epochs=args.epochs, figure=grid_sweep_figure,
                            correction=args.correction, **precision)
    return _print_result(args, result, t0, f"{out}/grid.csv, grid_summary.csv, grid.json, grid.png, jobs/")


def cmd_reenact(args) -> int:
    """``mark1 reenact``: check everything, run, write the page, print the table."""
    check_run_options(args)
    if not 0 <= args.tolerance <= 0.5:
        raise UsageError(f"--tolerance: expected a fraction from 0 to 0.5, got {args.tolerance}")
    if args.what_if_seeds < 0:
        raise UsageError(f"--what-if-seeds: expected a number of seeds >= 0, got {args.what_if_seeds}")
    if args.precision is not None and not (0 < args.precision < 50):
        raise UsageError(f"--precision: expected a half-width in points above 0 and below 50, got {args.precision}")
    if args.max_seeds is not None and args.precision is None:
        raise UsageError("--max-seeds: expected only with --precision (seeds are added only to reach a precision)")
    if args.max_seeds is not None and args.max_seeds < args.seeds:
        raise UsageError(f"--max-seeds: expected at least --seeds ({args.seeds}), got {args.max_seeds}")
    out = output_folder(args, default=Path("runs") / "reenact")
    page = None
    if args.page is not None:
        page = output_file(args, Path(args.page), formats=("md",), option="--page")
    files = list(args.scenes) or [str(p) for p in _catalog()]
    scenes = [scene_or_usage(f) for f in files]
    workers = workers_for(args, len(scenes) * args.seeds)
    for f, sc in zip(files, scenes):
        if not judged(sc.reported):
            raise UsageError(f"{f}: [reported] has neither a value nor an expectation; expected a scene "
                             "with a reported figure or reported.expect")
        check_scene(args, sc, at_once=workers, label=f)
    command = " ".join(["mark1 reenact", *map(shlex.quote, args.scenes), f"--seeds {args.seeds}"]
                       + ([f"--tolerance {args.tolerance:g}"] if args.tolerance != DEFAULT_TOLERANCE else [])
                       + [f"--{k.replace('_', '-')} {getattr(args, k)}" for k in ("train_count", "test_count")
                          if getattr(args, k) is not None]
                       + ([f"--what-if-seeds {args.what_if_seeds}"] if args.what_if_seeds != 8 else [])
                       + ([f"--precision {args.precision:g}"] if args.precision is not None else [])
                       + ([f"--max-seeds {args.max_seeds}"] if args.max_seeds is not None else [])
                       + ([f"--out {shlex.quote(args.out)}"] if args.out else [])
                       + ([f"--page {shlex.quote(args.page)}"] if args.page else []))
    result, t0 = _run_study(args, workers, reenact, scenes, message=str, tolerance=args.tolerance, out=out,
                            progress=not args.json, page=page, command=command, note=args.note,
                            figure=reenact_figure, what_if_seeds=min(args.what_if_seeds, args.seeds),
                            precision=None if args.precision is None else args.precision / 100,
                            max_seeds=args.max_seeds)
    return _print_result(args, result, t0, f"{result.page}, {result.figure}, {out}/reenact.csv, reenact.json, jobs/")


def _catalog():
    """The shipped scenes with a reported figure or an expectation; a broken one is a usage error."""
    try:
        return catalog(expected=True)
    except SceneError as e:
        raise UsageError(str(e)) from None


def _study_parser(sub, name: str, func: Callable, help: str, *, seeds: int, folder: str | None = None):
    """The subparser of a study over one scene, with the options every such study shares."""
    parser = sub.add_parser(name, help=help)
    add_common_options(parser, seeds=seeds, folder=folder or name)
    parser.set_defaults(func=func)
    return parser


#: ``--at``'s help, shared by ablate and sweep.
_AT_HELP = ("a starting point: set a machine parameter on the scene's machine before the study, e.g. "
            "--at rack.drive=ratchet --at rack.step=0.015 (repeatable, each key once; the same runs as the "
            "scene file with these overrides)")


def add_commands(sub) -> None:
    """Register ``compare``, ``ablate``, ``curves``, ``sweep`` and ``reenact`` on argparse subparsers."""
    cp = _study_parser(sub, "compare", cmd_compare, COMMANDS["compare"],
                       seeds=10)
    cp.add_argument("--learners", help=f"comma-separated subset of: {','.join(LEARNERS)}")
    cp.add_argument("--features", choices=FEATURES, default="analog",
                    help="the retina whose S-units and phi the textbook classifiers learn from: the analog "
                         "machine's own (default) or the ideal one")
    _precision_options(cp, "the analog machine minus each learner")
    cp.add_argument("--json", action="store_true", help="print the summary as JSON")

    ab = _study_parser(sub, "ablate", cmd_ablate, COMMANDS["ablate"], seeds=stats.MIN_SEEDS)
    ab.add_argument("--at", action="append", default=[], metavar="KEY=VALUE", help=_AT_HELP)
    _precision_options(ab, "every arm's cost")
    ab.add_argument("--json", action="store_true", help="print the result as JSON")

    cu = _study_parser(sub, "curves", cmd_curves, COMMANDS["curves"], seeds=stats.MIN_SEEDS)
    cu.add_argument("--points", type=int, default=10, help="most checkpoints (whole epochs; default 10)")

    sw = _study_parser(sub, "sweep", cmd_sweep, COMMANDS["sweep"], seeds=stats.MIN_SEEDS,
                       folder="sweep/<param>")
    sw.add_argument("--param", required=True, metavar="KEY", action="append",
                    help="a dotted machine parameter, e.g. rack.motor_speed (see `mark1 specs`), or "
                         "schedule.epochs (passes over the training cards); give two --param, each followed "
                         "by its --values, for a two-parameter sweep (grid.csv and a heat map)")
    sw.add_argument("--values", required=True, metavar="V1,V2,...", action="append",
                    help="comma-separated values, e.g. 0.003,0.01,0.1,inf (true/false for a switch; for "
                         "schedule.epochs e.g. 1,2,5,10,until: until the first pass without a training mistake, "
                         f"at most {UNTIL_CAP} passes, or until:CAP); a list starting with a minus sign needs an "
                         "equals sign: --values=-1,0,1")
    sw.add_argument("--epochs", type=int, metavar="N",
                    help="passes over the training cards instead of the scene's (not with --param schedule.epochs)")
    sw.add_argument("--at", action="append", default=[], metavar="KEY=VALUE",
                    help=_AT_HELP + "; not a swept --param")
    sw.add_argument("--reference", metavar="V",
                    help="the value the paired changes are measured from (default: the scene's own "
                         "value when it is swept, else the first)")
    sw.add_argument("--correction", choices=stats.CORRECTIONS, default="bh",
                    help="how the family of values (or cells) against the reference is controlled: bh "
                         "(Benjamini-Hochberg, false-discovery rate; default), holm (family-wise error) or none")
    _precision_options(sw, "every value's or cell's change from the reference")
    sw.add_argument("--json", action="store_true", help="print the result as JSON")

    re_ = sub.add_parser("reenact", help=COMMANDS["reenact"])
    re_.add_argument("scenes", nargs="*", metavar="SCENE",
                     help="built-in scenes' names or scene files (default: every built-in scene with a "
                          "reported figure or an expectation, mark1 scenes lists them)")
    re_.add_argument("--seeds", type=int, default=10, help="number of seeds, 0..N-1 (default 10)")
    re_.add_argument("--out", help="folder for the records and results (default runs/reenact)")
    re_.add_argument("--page", metavar="FILE.md",
                     help="where to write the Markdown page (default OUT/REENACTMENT.md); "
                          "its figure goes beside it")
    re_.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE,
                     help=f"extra half-width added to each report's band, fraction (default {DEFAULT_TOLERANCE})")
    re_.add_argument("--workers", type=int,
                     help="processes on this computer (default: CPU count; 1 runs in this process)")
    re_.add_argument("--scheduler", metavar="ADDRESS", help="run the jobs on a Dask cluster, e.g. tcp://host:8786")
    re_.add_argument("--train-count", type=int, help="training cards instead of each scene's")
    re_.add_argument("--test-count", type=int, help="test cards instead of each scene's")
    re_.add_argument("--resume", action="store_true",
                     help="skip jobs already recorded in --out, and rewrite its page")
    add_overwrite(re_)
    re_.add_argument("--memory-limit", type=float, metavar="GB",
                     help=("memory the runs may use together (default and ceiling: the smallest of the "
                           f"address-space limit, the cgroup's and {_PHYSICAL_HELP} of this computer's)"))
    re_.add_argument("--note", default="", help="a paragraph for the page (e.g. which code version, why few seeds)")
    re_.add_argument("--what-if-seeds", type=int, default=8, metavar="N",
                     help="seeds (the first N) on which each sourced report that misses is run again with each "
                          "single change of an assumed parameter, for the page's 'what it would take' (default 8, "
                          "at most --seeds; 0 runs none)")
    re_.add_argument("--precision", type=float, metavar="P",
                     help="half-width in points every interval of the family should reach: seeds are added in "
                          "batches of --seeds until it does or --max-seeds is reached")
    re_.add_argument("--max-seeds", type=int, metavar="N",
                     help="most seeds with --precision (default 4 times --seeds)")
    re_.add_argument("--json", action="store_true", help="print the result as JSON")
    re_.set_defaults(func=cmd_reenact)
