"""``mark1 run``, ``specs``, ``render``, ``explain``, ``lesson`` and ``device``: one machine, one scene;
``mark1 scenes``: the built-in scenes."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import sys
import time
from importlib import import_module
from pathlib import Path

import numpy as np

from mark1._utils.atomic import check_target, write_text
from mark1._utils.compiled import compile_ahead, compile_estimate, compile_seconds, python_when_cold, writable_cache_dir
from mark1._utils.progress import watched
from mark1._utils.language import duration, percent
from mark1._utils.records import jsonable
from mark1.cli import _names
from mark1.cli._names import COMMANDS
from mark1.cli._options import (_PHYSICAL_HELP, SCENE_HELP, add_overwrite, check_budget, one_line, output_file,
                                output_folder, scene_folder, scene_or_usage, workers_for)
from mark1.exceptions import InputError, SceneError, UsageError
from mark1.specs import MARK_I, PRESETS, SMALL, RackSpec, describe
from mark1.stimuli.cards import experiment_seeds, scene_cards
from mark1.stimuli.scenes import SCENES_DIR, load_scene, shipped_scenes

# Each command imports what only it needs (the machine, matplotlib, the lesson builder, the
# device fit, the lab) when it runs (import_module, as mark1.cli does for a command's module):
# a run's first result comes without them, matplotlib only to draw, and ``mark1 run`` decides
# whether its loops compile before the machine's modules are imported.

__all__ = ["add_commands"]

#: The presets ``--preset`` and ``--spec`` name: the two specs and every named reading (:data:`mark1.specs.PRESETS`).
_PRESETS = {"MARK_I": MARK_I, "SMALL": SMALL, **PRESETS}

#: Classes a contact sheet can show legibly (a 26-letter alphabet fits).
MAX_SHEET_CLASSES = 60


def _preset(option: str, name: str):
    if name not in _PRESETS:
        raise UsageError(f"{option}: expected one of {', '.join(_PRESETS)}, got {name!r}")
    return _PRESETS[name]


def _format_table(rows: list[tuple[str, str]], width: int = 0) -> str:
    width = max(width, *(len(k) for k, _ in rows))
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in rows)


def _realtime(args):
    """The real-time environment and event printer of ``--realtime``, or (None, None)."""
    if args.realtime is None:
        return None, None
    import simpy.rt
    event_line = import_module("mark1.classroom.explain").event_line
    if not (args.realtime > 0 and math.isfinite(args.realtime)):
        raise UsageError(f"--realtime: expected a positive factor (wall seconds per machine second), "
                         f"got {args.realtime}")

    def on_event(t, event, p, detail):
        print(event_line(t, event, p, detail), flush=True)
    return simpy.rt.RealtimeEnvironment(factor=args.realtime, strict=False), on_event


#: what ``mark1 device KIND`` writes into its folder
_DEVICE_FILES = {"rack": ("rack.png", "rack_pulses.csv", "rack_time.csv"),
                 "photocell": ("photocell.png", "photocell_rise.csv", "photocell_fall.csv", "photocell_history.csv"),
                 "fit": ("fit.toml", "fit.json", "fit_residuals.csv", "fit.png")}
#: what ``mark1 run`` writes into its folder
_RUN_FILES = ("summary.json", "learning_curve.png", "trace.csv")


def cmd_run(args) -> int:
    scene = scene_or_usage(args.scene)
    out = output_folder(args, writes=_RUN_FILES)
    for name in _RUN_FILES:
        check_target(out / name)                 # a clash is found before any work
    res = check_budget(args, scene)
    try:
        train, test, seed_machine = scene_cards(scene, args.seed)
        spec = scene.machine_spec()
    except ValueError as e:                       # SceneError and SpecError are ValueErrors
        raise UsageError(one_line(args, e)) from None
    schedule = scene.schedule
    as_python = _as_python(args, res)
    MarkI = import_module("mark1.machine.mark_i").MarkI
    machine = MarkI(spec=spec, seed=seed_machine, trace="full" if args.trace == "full" else "summary")
    env, on_event = _realtime(args)
    t0, c0 = time.perf_counter(), compile_seconds()
    try:
        machine.fit(train.cards, train.labels, epochs=schedule.epochs, order=schedule.order,
                    progress=not args.json and env is None, env=env, on_event=on_event)
        # numba compiles the loops on their first call (once per cache): not training time
        compiling = compile_seconds() - c0
        wall = time.perf_counter() - t0 - compiling
        train_acc = machine.score(train.cards, train.labels)
        test_acc = machine.score(test.cards, test.labels)
    except ValueError as e:                       # e.g. classes that do not fit the R-units
        raise UsageError(one_line(args, e)) from None
    energy = import_module("mark1.machine.energy").run_energy(machine)
    rep = scene.reported
    summary = {
        "scene": scene.name,
        "scene_file": str(args.scene),
        "seed": args.seed,
        "machine": spec.name,
        "classes": [c.item() if hasattr(c, "item") else c for c in machine.classes_],
        "code": machine.code_.kind,
        "train_cards": int(len(train.cards)),
        "test_cards": int(len(test.cards)),
        "epochs": schedule.epochs,
        "order": schedule.order,
        "rule": spec.trainer.rule,
        "presentations": int(len(machine.history_)),
        "errors_per_epoch": machine.mistakes_per_epoch_.tolist(),
        "train_accuracy": train_acc,
        "test_accuracy": test_acc,
        "machine_time_s": machine.machine_time_,
        "seconds_waited_for_motors": machine.waited_,
        "energy": energy.to_dict(),
        "wall_time_s": wall,
        "reported": {"source": rep.source, "conditions": rep.conditions, "value": rep.value, "note": rep.note},
        "spec": jsonable(spec.to_dict()),
    }
    if args.json:
        _write_run(out, machine, scene, test_acc, summary)
        if as_python:
            _ahead(args)
        print(json.dumps(summary, indent=2))
        return 0
    rows = [
        ("scene", scene.name),
        ("machine", f"{spec.name}; {machine.code_.describe()}; rule {spec.trainer.rule}"),
        ("cards", f"{len(train.cards)} training, {len(test.cards)} test"),
        ("presentations", f"{len(machine.history_)} ({schedule.epochs} epochs, {schedule.order})"),
        ("mistakes", " ".join(map(str, machine.mistakes_per_epoch_.tolist())) + "  (per epoch, while training)"),
        ("train accuracy", f"{percent(train_acc)}  (after training)"),
        ("test accuracy", percent(test_acc)),
        ("reported", _reported_text(rep.value, rep.source)),
        ("machine time", f"{duration(machine.machine_time_)}  (the real machine's time)"),
        ("energy", energy.describe()),
        ("wall time", f"{duration(wall)}  (training on this computer)"),
        *([("compiling", f"{duration(compiling)}  (the machine's loops, once: kept in {kept})"
            if (kept := writable_cache_dir()) else f"{duration(compiling)}  (the machine's loops; no "
            "writable cache: every run compiles)")] if compiling >= 0.05 else []),
        *([("loops", _ahead(args) or _PYTHON_ONLY)] if as_python else []),
        ("written", f"{out}/summary.json, learning_curve.png, trace.csv"),
    ]
    width = max(len(k) for k, _ in rows)
    # the results first: drawing the learning curve (importing matplotlib) takes about as long as the run
    try:
        print(_format_table(rows[:-1], width), flush=True)
    finally:                        # the files are written even where the output is closed
        _write_run(out, machine, scene, test_acc, summary)
    print(_format_table(rows[-1:], width))
    return 0


#: What a background compile runs (:func:`mark1._utils.compiled.compile_ahead`): the same run at
#: low priority, its files in a temporary folder, so that its loops compile into the cache.
_AHEAD_RUN = """
import sys
from mark1._utils.compiled import ahead_finished, ahead_started
from mark1.cli._run import compile_for
ahead_started()
try:
    compile_for(sys.argv[1], int(sys.argv[2]), sys.argv[3] == "full")
finally:
    ahead_finished()
"""

#: Cards a class the background compile fits and scores: its loops are those of the whole run
#: (the spec, the trace and the cards' types decide them), not its length.
_AHEAD_CARDS = 2


def compile_for(scene_name: str, seed: int, full: bool) -> None:
    """What a background compile runs: the scene's machine fitted for one epoch on a few of its
    cards (two a class) and scored on as many, nothing written, so that the loops its run
    calls are compiled into the cache. A scene that cannot be read any more compiles nothing.

    Parameters
    ----------
    scene_name : str
        The scene, as the command line was given it.
    seed : int
        The run's seed.
    full : bool
        Whether the run keeps the full trace (explain, lesson, ``--trace full``).
    """
    try:
        scene = load_scene(scene_name)
        count = _AHEAD_CARDS * len(scene.classes)
        train, test, seed_machine = scene_cards(scene, seed, train_count=count, test_count=count)
        machine = import_module("mark1.machine.mark_i").MarkI(spec=scene.machine_spec(), seed=seed_machine,
                                                             trace="full" if full else "summary")
        machine.fit(train.cards, train.labels, order=scene.schedule.order).score(test.cards, test.labels)
    except (ValueError, OSError):          # edited or removed since the run: nothing to compile for
        return


def _as_python(args, res) -> bool:
    """Whether the command's loops run as Python (:func:`~mark1._utils.compiled.python_when_cold`
    on the budget ``res``; only in the ``mark1`` program's own process), said on a terminal
    (or with ``MARK1_COMPILE_NOTICE=1``)."""
    if res is None or not _names.OWNS_PROCESS or not python_when_cold(res.python_seconds):
        return False
    if not getattr(args, "json", False) and (watched() or os.environ.get("MARK1_COMPILE_NOTICE") == "1"):
        sys.stderr.write("no compiled loops yet, and compiling them would take longer than this run: "
                         "they run as Python this time (the same results)\n")
        sys.stderr.flush()
    return True


def _ahead(args, full: bool = False) -> str | None:
    """Start compiling the loops for later runs in the background, from a terminal (or with
    ``MARK1_COMPILE_AHEAD=1``; never with ``MARK1_COMPILE_AHEAD=0``): what to tell of it, or
    None where none was started. The background run (:func:`compile_for`) is the same scene's
    machine and seed, with the full trace when ``full`` (explain and lesson) or asked for."""
    wanted = os.environ.get("MARK1_COMPILE_AHEAD", "")
    if wanted == "0" or not (wanted == "1" or watched()):
        return None
    full = full or getattr(args, "trace", None) == "full"
    if not compile_ahead(_AHEAD_RUN, str(args.scene), str(args.seed), "full" if full else "summary"):
        return None
    return ("run as Python this time; compiling them for later runs in the background, "
            f"once (about {duration(compile_estimate())}, at low priority)")


#: The table's ``loops`` line for a run as Python that started no background compile.
_PYTHON_ONLY = "run as Python this time (no compiled loops yet; compiling would have taken longer than the run)"


def _tell_ahead(args) -> None:
    """After a command that ran its loops as Python (explain, lesson): their compile for later
    runs started in the background, said on stderr."""
    text = _ahead(args, full=True)
    if text is not None:
        print(f"the machine's loops {text}", file=sys.stderr)


def _write_run(out: Path, machine, scene, test_acc: float, summary: dict) -> None:
    """Write a run's three files into ``out``: the learning curve, the trace and the summary."""
    curve = import_module("mark1.viz.training").learning_curve          # matplotlib: only to draw
    curve(machine.history_, title=scene.name, test_accuracy=test_acc, reported=scene.reported.value,
          out=out / "learning_curve.png")
    if machine.trace_.full:
        machine.trace_.to_csv(out / "trace.csv")
    else:
        write_text(out / "trace.csv", _history_csv(machine.history_, machine.classes_))
    write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")


def _reported_text(value, source: str) -> str:
    """The reported figure and its source for the table; a scene without a source says it has no report."""
    figure = percent(value) if value is not None else "-"
    if not source:
        return f"{figure} (source not named)" if value is not None else "none (the scene names no reported result)"
    return f"{figure} ({source})"


def _history_csv(history: np.ndarray, classes: np.ndarray) -> str:
    """The per-presentation record (the summary-level trace) as CSV text.

    ``label`` and ``response`` are written as the class labels themselves;
    ``presentation``, ``epoch`` and ``card`` (the index in the training deck) count from
    0, as the arrays do (people read them from 1 in the terminal); ``start`` is machine
    time in seconds, rounded to the microsecond.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    names = history.dtype.names
    if names is None:
        raise InputError("history: expected a structured array (one field a column)")
    w.writerow(names)
    named = {"label", "response"}
    for row in history.tolist():
        w.writerow([classes[v] if n in named else int(v) if isinstance(v, bool) else f"{v:.6f}"
                    if isinstance(v, float) else v for n, v in zip(names, row)])
    return buf.getvalue()


def cmd_specs(args) -> int:
    spec = _preset("--preset", args.preset)
    rows = describe(spec)
    if args.json:
        print(json.dumps([jsonable(r) for r in rows], indent=2))
        return 0
    print(f"{spec.name}: every parameter, its value, unit and how sure we are of it\n")
    kw = max(len(r["key"]) for r in rows)
    vw = max(len(_fmt(r["value"])) for r in rows)
    uw = max(len(r["unit"]) for r in rows)
    for r in rows:
        status = "set here" if r["changed"] else r["status"]
        print(f"{r['key']:<{kw}}  {_fmt(r['value']):>{vw}}  {r['unit']:<{uw}}  {status:<13}  {r['doc']}")
    print("\nstatus of each Mark I default: documented (several sources agree), single-source, "
          "contradictory (alternatives offered), datasheet (modern parts), assumed (our choice); "
          "'set here': this preset's own value, not a historical one.")
    return 0


def _fmt(v) -> str:
    if isinstance(v, tuple):
        return "x".join(map(str, v))
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def cmd_render(args) -> int:
    scene = scene_or_usage(args.scene)
    out = output_file(args, Path("runs") / scene_folder(args.scene) / "contact_sheet.png")
    check_target(out)
    check_budget(args, scene)
    if len(scene.classes) > MAX_SHEET_CLASSES:
        key = scene.settings["train"].origin.get("classes", "stimuli.folder")
        raise UsageError(f"{args.scene}: {key}: expected at most {MAX_SHEET_CLASSES} classes on a contact sheet, "
                         f"got {len(scene.classes)}")
    try:
        import_module("mark1.viz.cards").contact_sheet(scene, seed=args.seed, out=out, progress=True)
    except ValueError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {out}")
    return 0


def cmd_explain(args) -> int:
    scene = scene_or_usage(args.scene)
    as_python = _as_python(args, check_budget(args, scene))
    seed_train, _, seed_machine = experiment_seeds(args.seed)
    try:
        train = scene.stimuli("train", seed=seed_train)
        explain = import_module("mark1.classroom.explain").explain
        text = explain(scene.machine_spec(), train.cards, train.labels, n_cards=args.cards, seed=seed_machine,
                       progress=True)
    except ValueError as e:
        raise UsageError(one_line(args, e)) from None
    print(text)
    if as_python:
        _tell_ahead(args)
    return 0


def cmd_lesson(args) -> int:
    scene = scene_or_usage(args.scene)
    out = output_folder(args, "lesson")
    for name in ("cards", "epochs"):
        v = getattr(args, name)
        if v is not None and v < 1:
            raise UsageError(f"--{name}: expected a positive integer, got {v}")
    as_python = _as_python(args, check_budget(args, scene))
    try:
        build = import_module("mark1.classroom.lesson").build
        path = build(scene, out, seed=args.seed, cards=args.cards, epochs=args.epochs, progress=True)
    except SceneError as e:
        raise UsageError(f"--cards: {e.reason}" if e.key == "count" else str(e)) from None
    except ValueError as e:                       # e.g. classes that do not fit the R-units
        raise UsageError(one_line(args, e)) from None
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} kB); open it in a browser")
    if as_python:
        _tell_ahead(args)
    return 0


#: The most tables ``mark1 device fit --bootstrap`` simulates.
MAX_BOOTSTRAP = 1000


def cmd_device(args) -> int:
    preset = _preset("--spec", args.spec)
    overrides = {}
    for item in args.set:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError(f"--set: expected key=value such as rack.backlash=0, got {item!r}")
        if key.strip() in overrides:              # last-wins would hide a typo'd second value
            raise UsageError(f"--set: expected each key once, got {key.strip()} twice (the second time {item!r})")
        overrides[key.strip()] = _setting(value.strip())
    try:
        spec = preset.with_overrides(overrides)
    except ValueError as e:
        raise UsageError(f"--set: {e}") from None
    if args.kind == "energy":
        return _device_energy(args, overrides)
    if args.scene is not None or args.seeds is not None or args.workers is not None or args.resume \
            or args.memory_limit is not None:
        raise UsageError(f"device {args.kind}: --scene, --seeds, --workers, --resume and --memory-limit go with "
                         "device energy")
    if args.kind != "fit" and args.table_file is not None:
        raise UsageError(f"device {args.kind}: expected no positional table (mark1 device fit TABLE.csv fits one; "
                         f"device rack --table TABLE.csv draws it over its fitted law), got {args.table_file!r}")
    if args.kind == "photocell" and (args.table is not None or args.law or args.scale):
        raise UsageError("device photocell: --table, --law and --scale go with device fit and device rack")
    table_path = args.table_file if args.kind == "fit" else args.table
    device, device_fit = import_module("mark1.classroom.device"), import_module("mark1.machine.device_fit")
    rack_response_figure, table_response = device.rack_response_figure, device.table_response
    write_device, write_fit = device.write_device, device.write_fit
    LAWS, overrides_toml, read_table = device_fit.LAWS, device_fit.overrides_toml, device_fit.read_table
    if args.kind == "fit" and table_path is None:
        raise UsageError("device fit: expected a table, mark1 device fit TABLE.csv (columns pulse, direction, value)")
    if args.bootstrap < 0 or args.bootstrap > MAX_BOOTSTRAP:
        raise UsageError(f"--bootstrap: expected 0 to {MAX_BOOTSTRAP} simulated tables, got {args.bootstrap}")
    if args.scale and not (math.isfinite(args.scale[0]) and math.isfinite(args.scale[1])
                           and args.scale[0] < args.scale[1]):
        raise UsageError(f"--scale: expected LOW < HIGH, two finite values (the readings meaning full scale -1 and "
                         f"+1), got {args.scale[0]:g} {args.scale[1]:g}")
    table = None
    if table_path is not None:
        scale = tuple(args.scale) if args.scale else (-1.0, 1.0)
        table = read_table(table_path, scale=scale)          # a bad table: one line naming file, row, column
    if args.law:
        unknown = [name for name in args.law if name not in LAWS]
        if unknown:
            raise UsageError(f"--law: expected one of {', '.join(LAWS)}, got {unknown[0]!r}")
    writes = _DEVICE_FILES.get(args.kind)        # the kinds share a folder; each replaces only its own files
    if args.kind == "rack" and table is not None:
        writes = (*_DEVICE_FILES["rack"], *_DEVICE_FILES["fit"])
    out = output_folder(args, default=Path("runs") / "device", writes=writes)
    if table is None:
        for path in write_device(args.kind, spec, out, progress=True):
            print(f"wrote {path}")
        return 0
    fit, paths = write_fit(table, spec, out, laws=args.law or None, progress=True, bootstrap_samples=args.bootstrap)
    print(fit.report())
    print()
    print(overrides_toml(fit.best), end="")
    print()
    if args.kind == "rack":                     # the measured points over the fitted law's rack
        r = table_response(fit, transfer=60)
        rack_response_figure(r, out=out / "rack.png", measured=table)
        paths.insert(0, out / "rack.png")
    for path in paths:
        print(f"wrote {path}")
    return 0


def _device_energy(args, overrides: dict) -> int:
    """``mark1 device energy``: the Mark I's motors and the device presets on one scene, seed by seed."""
    if args.table_file is not None or args.table is not None or args.law or args.scale or args.bootstrap:
        raise UsageError("device energy: a table, --table, --law, --scale and --bootstrap go with device fit and "
                         "device rack")
    if args.spec != "MARK_I" or overrides:
        raise UsageError("device energy: the machine is the scene's (--spec and --set go with device rack, "
                         "photocell and fit)")
    seeds = 10 if args.seeds is None else args.seeds
    if not 1 <= seeds <= 10_000:
        raise UsageError(f"--seeds: expected 1 to 10000 paired seeds, got {seeds}")
    name = args.scene or "e_vs_f"
    scene = scene_or_usage(name)
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: expected a number of processes >= 1, got {args.workers}")
    out = output_folder(argparse.Namespace(out=args.out, scene=name, overwrite=args.overwrite, resume=args.resume),
                        "energy")
    lab, runner = import_module("mark1.lab"), import_module("mark1.lab.runner")
    workers = workers_for(args, seeds * len(lab.machines(scene.machine_spec())))
    check_budget(args, scene, at_once=workers)
    try:
        with runner.executor_for(workers) as executor:
            study = lab.energy_study(scene, seeds=seeds, executor=executor, out=out, resume=args.resume,
                                     progress=True, figure=import_module("mark1.viz.energy").energy_study_figure)
    except ValueError as e:                       # e.g. classes that do not fit the R-units
        raise UsageError(one_line(argparse.Namespace(scene=name), e)) from None
    print(study.table())
    print()
    for file in ("energy.png", "energy_runs.csv", "energy.json", "energy.txt"):
        print(f"wrote {out / file}")
    return 0


def _setting(text: str):
    """A --set value: true/false, an integer, a number (inf too), else the text."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _report_cell(reported) -> str:
    """A scene's report as the reenact page writes it: 100.0 %, >80.0 % (a lower bound), 90.0 % (no source),
    (chance), or -."""
    if reported.value is None:
        return f"({reported.expect})" if reported.expect else "-"
    lab = import_module("mark1.lab")
    return ((">" if lab.is_lower_bound(reported) else "") + percent(reported.value)
            + ("" if lab.sourced(reported) else " (no source)"))


def cmd_scenes(args) -> int:
    """``mark1 scenes``: the built-in scenes, their names, what each re-enacts and its report."""
    try:
        scenes = [(p.stem, load_scene(p)) for p in shipped_scenes()]
    except SceneError as e:
        raise UsageError(str(e)) from None
    rows = [{"name": name, "re_enacts": sc.name, "report": _report_cell(sc.reported),
             "scored": sc.reported.scored, "source": sc.reported.source, "file": str(sc.path)}
            for name, sc in scenes]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    head = ("name", "re-enacts", "report", "scored")
    cells = [(r["name"], r["re_enacts"], r["report"], r["scored"]) for r in rows]
    w = [max(len(str(c[i])) for c in (head, *cells)) for i in range(len(head))]
    for c in (head, tuple("-" * n for n in w), *cells):
        print(f"{c[0]:<{w[0]}}  {c[1]:<{w[1]}}  {c[2]:>{w[2]}}  {c[3]}")
    print(f"\n{len(rows)} built-in scenes, in {SCENES_DIR}\nAny command takes a name or a scene file "
          "(mark1 run demo, mark1 lesson alphabet); mark1 reenact alone re-enacts those with a report.")
    return 0


def add_commands(sub) -> None:
    """Register ``scenes``, ``run``, ``specs``, ``render``, ``explain``, ``lesson`` and ``device`` on argparse
    subparsers."""
    sc = sub.add_parser("scenes", help=COMMANDS["scenes"])
    sc.add_argument("--json", action="store_true", help="print the list as JSON")
    sc.set_defaults(func=cmd_scenes)

    run = sub.add_parser("run", help=COMMANDS["run"])
    run.add_argument("scene", help=SCENE_HELP)
    run.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    run.add_argument("--out", help="output folder (default runs/<scene>/)")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.add_argument("--trace", choices=("summary", "full"), default="summary",
                     help="trace.csv: one row per presentation (summary) or every event (full)")
    run.add_argument("--realtime", type=float, metavar="FACTOR",
                     help="replay in real time, FACTOR wall seconds per machine second "
                          "(e.g. 0.1), printing every event as it happens")
    run.add_argument("--memory-limit", type=float, metavar="GB",
                     help="refuse a scene estimated to need more memory (default and ceiling: the smallest of the "
                          f"address-space limit, the cgroup's and {_PHYSICAL_HELP} of this computer's)")
    add_overwrite(run)
    run.set_defaults(func=cmd_run)

    sp = sub.add_parser("specs", help=COMMANDS["specs"])
    sp.add_argument("--preset", default="MARK_I",
                    help=f"MARK_I (default), SMALL or a named reading of the machine ({', '.join(PRESETS)})")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_specs)

    rd = sub.add_parser("render", help=COMMANDS["render"])
    rd.add_argument("scene", help=SCENE_HELP)
    rd.add_argument("--out", help="PNG path (default runs/<scene>/contact_sheet.png)")
    rd.add_argument("--seed", type=int, default=0)
    add_overwrite(rd)
    rd.set_defaults(func=cmd_render)

    ex = sub.add_parser("explain", help=COMMANDS["explain"])
    ex.add_argument("scene", help=SCENE_HELP)
    ex.add_argument("--cards", type=int, default=5, help="presentations to narrate (default 5)")
    ex.add_argument("--seed", type=int, default=0)
    ex.set_defaults(func=cmd_explain)

    ls = sub.add_parser("lesson", help=COMMANDS["lesson"])
    ls.add_argument("scene", help=SCENE_HELP)
    ls.add_argument("--out", help="output folder (default runs/<scene>/lesson/)")
    ls.add_argument("--seed", type=int, default=0)
    ls.add_argument("--cards", type=int, help="training cards in the deck (default the scene's: the run of mark1 "
                                              "run, whose first 1,000 presentations the page replays card by card)")
    ls.add_argument("--epochs", type=int, help="passes over the deck (default the scene's; a run too long to trace "
                                               "is cut, and the page says so)")
    add_overwrite(ls)
    ls.set_defaults(func=cmd_lesson)

    dv = sub.add_parser("device", help=COMMANDS["device"])
    dv.add_argument("kind", choices=("rack", "photocell", "fit", "energy"),
                    help="rack: a pot under a pulse train; photocell: a cell's step; fit: a measured table's law; "
                         "energy: test accuracy, energy part by part and machine time of the Mark I's motors and "
                         "every device preset on one scene, paired seeds")
    dv.add_argument("table_file", nargs="?", metavar="TABLE.csv",
                    help="with fit: the measured table, columns pulse (0, 1, 2, ...), direction (start on pulse 0, "
                         "then up or down) and value (travel or conductance after the pulse); the report gives the "
                         "best law's 95 %% intervals from the restricted likelihood and names each term the table "
                         "cannot pin, with the bound it gives (on 100 generated tables each of 80 and of 400 pulses, "
                         "constant step and soft bounds, the intervals held the law's parameters 95-100 %% of the "
                         "time, the cycle-to-cycle noise 93-100 %%, the write noise 74-92 %%; see the device guide)")
    dv.add_argument("--table", metavar="TABLE.csv",
                    help="with rack: fit this measured table and draw it over the rack of its best law")
    dv.add_argument("--scale", nargs=2, type=float, metavar=("LOW", "HIGH"),
                    help="the table's values meaning full scale -1 and +1 (default -1 1: travel in full scale)")
    dv.add_argument("--bootstrap", type=int, default=0, metavar="N",
                    help="instead of the restricted likelihood's intervals, the percentile intervals of N tables "
                         "simulated from the best law (default 0: none; each as long as one law's fit); they fall "
                         "short where a noise term is loosely pinned: on tables of 80 pulses those of the law and the "
                         "write noise held the truth 55-80 %% of the time, the cycle-to-cycle noise's 7.5 %%; on 400 "
                         "pulses with both noise terms pinned, 87.5-100 %%")
    dv.add_argument("--law", action="append", default=[], metavar="LAW",
                    help="fit only this law (repeatable; default every law: "
                         + ", ".join(RackSpec.field_info("law")["choices"]) + ")")
    dv.add_argument("--spec", default="MARK_I",
                    help=f"MARK_I (default), SMALL or a named reading of the machine ({', '.join(PRESETS)})")
    dv.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="change one parameter, e.g. --set rack.drive=ratchet (repeatable)")
    dv.add_argument("--scene", help="with energy: a built-in scene's name or a scene file (default e_vs_f)")
    dv.add_argument("--seeds", type=int, metavar="N",
                    help="with energy: paired seeds 0 .. N-1 (default 10: fewer give no interval)")
    dv.add_argument("--workers", type=int,
                    help="with energy: processes on this computer (default: CPU count; 1 runs in this process)")
    dv.add_argument("--resume", action="store_true",
                    help="with energy: skip runs already recorded in --out (after an interruption)")
    dv.add_argument("--memory-limit", type=float, metavar="GB",
                    help="with energy: memory the runs may use together (default and ceiling: the smallest of the "
                         f"address-space limit, the cgroup's and {_PHYSICAL_HELP} of this computer's)")
    dv.add_argument("--out", help="output folder (default runs/device/; with energy runs/<scene>/energy/)")
    add_overwrite(dv)
    dv.set_defaults(func=cmd_device)
