"""The ``mark1`` command line.

    mark1 run SCENE [--seed N] [--out DIR] [--json]    train and test as the scene says
                    [--trace full] [--realtime F]      (every event; replay in real time)
                    [--memory-limit GB]                (refused up front if estimated above)
    mark1 specs [--preset NAME] [--json]               every parameter: unit, default, status
    mark1 render SCENE [--out sheet.png] [--seed N]    contact sheet: cards and what the retina sees
    mark1 explain SCENE [--cards 5]                    the event log in plain words, card by card
    mark1 compare SCENE [--seeds 10] [--out DIR]       the machine beside the textbook classifiers
    mark1 ablate SCENE [--seeds 3] [--out DIR]         which non-ideality costs most
    mark1 curves SCENE [--seeds 3] [--points 10]       learning curves, analog and ideal
    mark1 sweep SCENE --param KEY --values V1,V2,...   dose-response of one parameter, paired seeds
    mark1 reenact [SCENES...] [--seeds 10]             every reported figure re-enacted, one page
    mark1 lesson SCENE [--seed N] [--cards N]          one HTML page: a short run, card by card
    mark1 device rack|photocell [--spec NAME]          device response plots (PNG + CSV)

Bad input gives one line on stderr and exit status 2, no traceback; it is found before any
work, so nothing is written. So is a run estimated (``Scene.resources``) not to fit in
memory: 80 % of this computer's unless ``--memory-limit`` says otherwise. Each result file is written atomically (complete or absent).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from mark1.lab.options import UsageError, check_budget, one_line, output_folder
from mark1.stimuli.cards import experiment_seeds, scene_cards
from mark1._utils.records import jsonable

__all__ = ["main"]


def output_file(args, default: Path, formats=("png", "pdf", "svg", "jpg", "jpeg")) -> Path:
    """The file ``--out`` names, checked (format, not a folder, writable place) before any work."""
    out = Path(args.out) if args.out else default
    if out.is_dir():
        raise UsageError(f"--out: {out} is a folder; expected a file name such as sheet.png")
    suffix = out.suffix.lstrip(".").lower()
    if suffix not in formats:
        raise UsageError(f"--out: expected a file ending in .{', .'.join(formats)}, got {out.name!r}")
    output_folder(argparse.Namespace(out=str(out.parent), scene=""))
    return out


def _load_scene(path: str):
    from mark1.stimuli.scenes import SceneError, load_scene
    try:
        return load_scene(path)
    except SceneError as e:
        raise UsageError(str(e)) from None


def _format_table(rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in rows)


def cmd_run(args) -> int:
    from mark1._utils.atomic import check_target, write_text
    from mark1.machine.mark_i import MarkI

    scene = _load_scene(args.scene)
    out = output_folder(args)
    for name in ("summary.json", "learning_curve.png", "trace.csv"):
        check_target(out / name)                 # a clash is found before any work
    check_budget(args, scene)
    try:
        train, test, seed_machine = scene_cards(scene, args.seed)
        spec = scene.machine_spec()
    except ValueError as e:                       # SceneError and SpecError are ValueErrors
        raise UsageError(one_line(args, e)) from None
    schedule = scene.schedule
    machine = MarkI(spec=spec, seed=seed_machine, trace="full" if args.trace == "full" else "summary")
    env = on_event = None
    if args.realtime is not None:
        import simpy.rt
        if not (args.realtime > 0 and math.isfinite(args.realtime)):
            raise UsageError(f"--realtime: expected a positive factor (wall seconds per machine second), "
                             f"got {args.realtime}")
        env = simpy.rt.RealtimeEnvironment(factor=args.realtime, strict=False)

        from mark1.classroom.explain import event_line

        def on_event(t, event, p, detail):
            print(event_line(t, event, p, detail), flush=True)
    t0 = time.perf_counter()
    try:
        machine.fit(train.cards, train.labels, epochs=schedule.epochs, order=schedule.order,
                    progress=not args.json and env is None, env=env, on_event=on_event)
        wall = time.perf_counter() - t0
        train_acc = machine.score(train.cards, train.labels)
        test_acc = machine.score(test.cards, test.labels)
    except ValueError as e:                       # e.g. classes that do not fit the R-units
        raise UsageError(one_line(args, e)) from None
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
        "wall_time_s": wall,
        "reported": {"source": rep.source, "conditions": rep.conditions, "value": rep.value, "note": rep.note},
        "spec": jsonable(spec.to_dict()),
    }
    from mark1.viz.plotting import learning_curve
    learning_curve(machine.history_, title=scene.name, test_accuracy=test_acc, reported=rep.value,
                   out=out / "learning_curve.png")
    if machine.trace_.full:
        machine.trace_.to_csv(out / "trace.csv")
    else:
        write_text(out / "trace.csv", _history_csv(machine.history_, machine.classes_))
    write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    rows = [
        ("scene", scene.name),
        ("machine", f"{spec.name}; {machine.code_.describe()}; rule {spec.trainer.rule}"),
        ("cards", f"{len(train.cards)} training, {len(test.cards)} test"),
        ("presentations", f"{len(machine.history_)} ({schedule.epochs} epochs, {schedule.order})"),
        ("wrong while training", " ".join(map(str, machine.mistakes_per_epoch_.tolist())) + "  (per epoch)"),
        ("train accuracy", f"{train_acc:.1%}  (after training)"),
        ("test accuracy", f"{test_acc:.1%}"),
        ("reported", f"{rep.value:.1%} ({rep.source})" if rep.value is not None else f"- ({rep.source})"),
        ("machine time", _hms(machine.machine_time_)),
        ("wall time", f"{wall:.2f} s  (training on this computer)"),
        ("written", f"{out}/summary.json, learning_curve.png, trace.csv"),
    ]
    print(_format_table(rows))
    return 0


def _history_csv(history: np.ndarray, classes: np.ndarray) -> str:
    """The per-presentation record (the summary-level trace) as CSV text.

    ``label`` and ``response`` are written as the class labels themselves;
    ``presentation``, ``epoch`` and ``card`` (the index in the training deck) count from
    0, as the arrays do (people read them from 1 in the terminal); ``start`` is machine
    time in seconds, rounded to the microsecond.
    """
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    names = history.dtype.names
    w.writerow(names)
    named = {"label", "response"}
    for row in history.tolist():
        w.writerow([classes[v] if n in named else int(v) if isinstance(v, bool) else f"{v:.6f}"
                    if isinstance(v, float) else v for n, v in zip(names, row)])
    return buf.getvalue()


def _hms(seconds: float) -> str:
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{seconds:.1f} s ({int(h)} h {int(m):02d} min {s:04.1f} s)"


def cmd_specs(args) -> int:
    from mark1 import specs

    presets = {"MARK_I": specs.MARK_I, "SMALL": specs.SMALL}
    if args.preset not in presets:
        raise UsageError(f"--preset: expected one of {', '.join(presets)}, got {args.preset!r}")
    rows = specs.describe(presets[args.preset])
    if args.json:
        print(json.dumps([jsonable(r) for r in rows], indent=2))
        return 0
    print(f"{presets[args.preset].name}: every parameter, its value, unit and how sure we are of it\n")
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


#: Classes a contact sheet can show legibly (a 26-letter alphabet fits).
MAX_SHEET_CLASSES = 60


def cmd_render(args) -> int:
    from mark1.viz.plotting import contact_sheet

    from mark1._utils.atomic import check_target

    scene = _load_scene(args.scene)
    out = output_file(args, Path("runs") / Path(args.scene).stem / "contact_sheet.png")
    check_target(out)
    if len(scene.classes) > MAX_SHEET_CLASSES:
        key = scene.settings["train"].origin.get("classes", "stimuli.folder")
        raise UsageError(f"{args.scene}: {key}: expected at most {MAX_SHEET_CLASSES} classes on a contact sheet, "
                         f"got {len(scene.classes)}")
    try:
        contact_sheet(scene, seed=args.seed, out=out, progress=True)
    except ValueError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {out}")
    return 0


def cmd_explain(args) -> int:
    from mark1.classroom.explain import explain

    scene = _load_scene(args.scene)
    seed_train, _, seed_machine = experiment_seeds(args.seed)
    try:
        train = scene.stimuli("train", seed=seed_train)
        text = explain(scene.machine_spec(), train.cards, train.labels, n_cards=args.cards, seed=seed_machine,
                       progress=True)
    except ValueError as e:
        raise UsageError(one_line(args, e)) from None
    print(text)
    return 0


def cmd_lesson(args) -> int:
    from mark1.classroom.lesson import build

    scene = _load_scene(args.scene)
    out = output_folder(args, "lesson")
    for name in ("cards", "epochs"):
        v = getattr(args, name)
        if v is not None and v < 1:
            raise UsageError(f"--{name}: expected a positive integer, got {v}")
    from mark1.stimuli.scenes import SceneError
    try:
        path = build(scene, out, seed=args.seed, cards=args.cards, epochs=args.epochs, progress=True)
    except SceneError as e:
        raise UsageError(f"--cards: {e.reason}" if e.key == "count" else str(e)) from None
    except ValueError as e:                       # e.g. classes that do not fit the R-units
        raise UsageError(one_line(args, e)) from None
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} kB); open it in a browser")
    return 0


def cmd_device(args) -> int:
    from mark1 import specs
    from mark1.classroom.device import write_device

    presets = {"MARK_I": specs.MARK_I, "SMALL": specs.SMALL}
    if args.spec not in presets:
        raise UsageError(f"--spec: expected one of {', '.join(presets)}, got {args.spec!r}")
    overrides = {}
    for item in args.set:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError(f"--set: expected key=value such as rack.backlash=0, got {item!r}")
        overrides[key.strip()] = _setting(value.strip())
    try:
        spec = presets[args.spec].with_overrides(overrides)
    except ValueError as e:
        raise UsageError(f"--set: {e}") from None
    out = output_folder(argparse.Namespace(out=args.out or str(Path("runs") / "device"), scene=""))
    for path in write_device(args.kind, spec, out, progress=True):
        print(f"wrote {path}")
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mark1", description="Rosenblatt's Mark I Perceptron, simulated.")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="train and test the machine as a scene says")
    run.add_argument("scene", help="a scene file, e.g. scenes/demo.toml")
    run.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    run.add_argument("--out", help="output folder (default runs/<scene>/)")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.add_argument("--trace", choices=("summary", "full"), default="summary",
                     help="trace.csv: one row per presentation (summary) or every event (full)")
    run.add_argument("--realtime", type=float, metavar="FACTOR",
                     help="replay in real time, FACTOR wall seconds per machine second "
                          "(e.g. 0.1), printing every event as it happens")
    run.add_argument("--memory-limit", type=float, metavar="GB",
                     help="refuse a scene estimated to need more memory (default 80%% of this computer's)")
    run.set_defaults(func=cmd_run)

    sp = sub.add_parser("specs", help="list every machine parameter with unit, default and status")
    sp.add_argument("--preset", default="MARK_I", help="MARK_I (default) or SMALL")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_specs)

    rd = sub.add_parser("render", help="contact sheet of a scene's cards and what the retina makes of them")
    rd.add_argument("scene")
    rd.add_argument("--out", help="PNG path (default runs/<scene>/contact_sheet.png)")
    rd.add_argument("--seed", type=int, default=0)
    rd.set_defaults(func=cmd_render)

    ex = sub.add_parser("explain", help="the machine's event log in plain words, card by card")
    ex.add_argument("scene")
    ex.add_argument("--cards", type=int, default=5, help="presentations to narrate (default 5)")
    ex.add_argument("--seed", type=int, default=0)
    ex.set_defaults(func=cmd_explain)

    ls = sub.add_parser("lesson", help="one self-contained HTML page taking a short run apart, card by card")
    ls.add_argument("scene")
    ls.add_argument("--out", help="output folder (default runs/<scene>/lesson/)")
    ls.add_argument("--seed", type=int, default=0)
    ls.add_argument("--cards", type=int, help="training cards in the deck (default the scene's, at most 20)")
    ls.add_argument("--epochs", type=int, help="passes over the deck (default the scene's)")
    ls.set_defaults(func=cmd_lesson)

    dv = sub.add_parser("device", help="device response plots: a pot under a pulse train, a photocell's step")
    dv.add_argument("kind", choices=("rack", "photocell"))
    dv.add_argument("--spec", default="MARK_I", help="MARK_I (default) or SMALL")
    dv.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="change one parameter, e.g. --set rack.drive=ratchet (repeatable)")
    dv.add_argument("--out", help="output folder (default runs/device/)")
    dv.set_defaults(func=cmd_device)

    from mark1.lab import add_commands              # compare, ablate, curves, sweep, reenact
    add_commands(sub)
    return parser


def printable(text: str) -> str:
    """One line that any terminal can print (see :func:`mark1.scenes.printable`)."""
    from mark1.stimuli.scenes import printable as one_line
    return one_line(text)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)          # argparse itself exits 2 on bad usage
    if getattr(args, "seed", 0) is not None and getattr(args, "seed", 0) < 0:
        print("mark1: error: --seed: expected a non-negative integer", file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except UsageError as e:
        print(f"mark1: error: {printable(str(e))}", file=sys.stderr)
        return 2
    except BrokenPipeError:                 # e.g. `mark1 run ... | head`
        sys.stderr.close()
        return 0
    except OSError as e:                    # a full disk, a folder that vanished, ...
        where = f"{e.filename}: " if e.filename else ""
        print(printable(f"mark1: error: {where}{e.strerror or e}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:          # Ctrl-C, or SIGTERM during a lab command (143)
        print("mark1: interrupted; nothing was written for the unfinished step", file=sys.stderr)
        return getattr(e, "exit_status", 130)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
