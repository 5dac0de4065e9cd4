"""The command line: what a user types, what they get, and what bad input gives."""

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mark1 import specs
from mark1.cli import _options, _run, main
from mark1.stimuli.scenes import load_scene, scene_names

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scenes" / "demo.toml"


def test_readme_commands_are_what_ci_runs():
    readme = (ROOT / "README.md").read_text().splitlines()
    commands = [line for line in readme[:8] if line.startswith("python3 -m venv")]
    assert len(commands) == 2, "the README must open with the two commands"
    install_run, install_test = commands
    assert install_run.split("mark1 run ")[1].split()[0] in scene_names(), "a built-in scene, by name"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert install_test in ci, ".ci/run must run the README's test command verbatim"


def test_specs_lists_every_parameter_with_status(capsys):
    assert main(["specs"]) == 0
    out = capsys.readouterr().out
    for row in specs.describe(specs.MARK_I):
        assert row["key"] in out
    assert main(["specs", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["status"] for r in rows} <= set(specs.STATUSES)
    assert len(rows) == len(specs.describe(specs.MARK_I))


@pytest.mark.parametrize("name", list(specs.PRESETS))
def test_specs_takes_every_named_reading(name, capsys):
    assert main(["specs", "--preset", name, "--json"]) == 0
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)}
    spec = specs.PRESETS[name]
    for key in ("response.code", "rack.topology", "rack.drive", "timing.period", "retina.blur"):
        group, field_ = key.split(".")
        assert rows[key]["value"] == getattr(getattr(spec, group), field_)


def test_specs_unknown_preset_is_one_line_and_status_2(capsys):
    assert main(["specs", "--preset", "MARK_II"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--preset" in err[0]


def _summary_without_wall(path):
    data = json.loads(Path(path).read_text())
    data.pop("wall_time_s")
    return data


def test_run_writes_summary_curve_and_trace(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["run", str(DEMO), "--seed", "3", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "test accuracy" in printed and "machine time" in printed
    # one language: mistakes (not "wrong while training"), accuracy in %, durations by size
    assert re.search(r"^  mistakes +[\d ]+ \(per epoch", printed, flags=re.M)
    assert "wrong" not in printed and re.search(r"test accuracy +\d+\.\d %", printed)
    assert re.search(r"machine time +\d+(\.\d)? (s|min|h) ", printed) and " h (" not in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["presentations"] == summary["train_cards"] * summary["epochs"]
    assert len(summary["errors_per_epoch"]) == summary["epochs"]
    assert 0.0 <= summary["test_accuracy"] <= 1.0
    assert summary["machine_time_s"] >= summary["presentations"] * summary["spec"]["timing"]["period"]
    png = (out / "learning_curve.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    trace = (out / "trace.csv").read_text().splitlines()
    assert len(trace) == summary["presentations"] + 1
    # same seed, same bits
    out2 = tmp_path / "again"
    assert main(["run", str(DEMO), "--seed", "3", "--out", str(out2), "--json"]) == 0
    capsys.readouterr()
    assert _summary_without_wall(out / "summary.json") == _summary_without_wall(out2 / "summary.json")
    assert (out / "trace.csv").read_text() == (out2 / "trace.csv").read_text()


def test_run_prints_its_results_before_drawing_the_curve(tmp_path, capsys, monkeypatch):
    import mark1.viz.training as training
    seen = {}
    draw = training.learning_curve

    def watched(*args, **kwargs):
        seen["printed"] = capsys.readouterr().out          # what was on screen when drawing began
        return draw(*args, **kwargs)
    monkeypatch.setattr(training, "learning_curve", watched)
    out = tmp_path / "demo"
    assert main(["run", "demo", "--out", str(out)]) == 0
    after = capsys.readouterr().out
    assert re.search(r"^  test accuracy +\d+\.\d %$", seen["printed"], flags=re.M)
    assert "written" not in seen["printed"]
    rows = (seen["printed"] + after).splitlines()
    assert after.startswith("  written ") and len(after.splitlines()) == 1
    # one table: the last row's value starts where the others' do
    starts = {len(re.match(r"^  \S+( \S+)* +", row).group(0)) for row in rows}
    assert len(starts) == 1
    assert (out / "learning_curve.png").exists() and (out / "summary.json").exists()


def test_run_names_a_missing_report_in_words(tmp_path, capsys):
    scene = tmp_path / "plain.toml"
    scene.write_text('name = "plain"\n[stimuli]\nsource = "characters"\nclasses = ["X", "E"]\nsize = 20\n'
                     '[train]\ncount = 4\n[test]\ncount = 2\n[machine]\npreset = "SMALL"\n'
                     '[schedule]\nepochs = 1\n')
    assert main(["run", str(scene), "--out", str(tmp_path / "out")]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("reported"))
    assert "()" not in row and "no reported result" in row


def test_run_full_trace_has_every_event(tmp_path, capsys):
    out = tmp_path / "full"
    assert main(["run", str(DEMO), "--out", str(out), "--trace", "full"]) == 0
    lines = (out / "trace.csv").read_text().splitlines()
    assert lines[0] == "time_s,event,presentation,detail"
    events = {line.split(",")[1] for line in lines[1:]}
    assert {"card change", "lamps on", "S sampled", "A settled", "R read"} <= events
    times = [float(line.split(",")[0]) for line in lines[1:]]
    assert min(times) >= 0


@pytest.mark.parametrize("text, key", [
    ("name = 'x'\n[stimuli\n", None),                                # syntax error
    (None, "machine.overrides.rack.motor_speed"),                   # negative speed
])
def test_bad_scene_is_one_line_status_2_nothing_written(tmp_path, capsys, text, key):
    scene = tmp_path / "bad.toml"
    if text is None:
        text = DEMO.read_text() + "\n[machine.overrides.rack]\nmotor_speed = -1.0\n"
        if "[machine.overrides]" in DEMO.read_text():
            text = DEMO.read_text().replace("[machine.overrides]", "[machine.overrides]\nrack.motor_speed = -1.0", 1)
    scene.write_text(text)
    out = tmp_path / "out"
    assert main(["run", str(scene), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "bad.toml" in err[0]
    if key:
        assert "motor_speed" in err[0]
    assert not out.exists() or not any(out.iterdir())


def test_missing_scene_file(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.toml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope.toml" in err[0]


def test_scenes_lists_every_built_in_scene_with_what_it_re_enacts_and_its_report(capsys):
    from mark1.stimuli import scene_names

    assert main(["scenes"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line for line in out[2:2 + len(scene_names())]}
    assert list(rows) == scene_names()
    for name, line in rows.items():
        scene = load_scene(name)
        assert scene.name in line and scene.reported.scored in line
        if scene.reported.value is not None:
            assert f"{scene.reported.value * 100:.1f} %" in line
    assert ">80.0 %" in rows["e_vs_f"] and "(chance)" in rows["parity"] and "100.0 %  recall" in rows["alphabet"]
    # only a lower bound is one; a figure with no source says so
    assert ">" not in rows["alphabet"] and ">" not in rows["square_vs_circle"]
    assert "(no source)" in rows["e_vs_x"] and "(no source)" not in rows["alphabet"]
    assert main(["scenes", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in listed] == scene_names()
    assert all(Path(r["file"]).exists() and r["re_enacts"] and r["report"] for r in listed)


def test_every_scene_command_takes_a_built_in_scene_by_name(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)                     # no scenes/ folder here
    assert main(["run", "demo", "--json"]) == 0
    summary = json.loads((tmp_path / "runs" / "demo" / "summary.json").read_text())
    assert summary["scene"] == load_scene(DEMO).name and summary["scene_file"] == "demo"
    capsys.readouterr()
    assert main(["explain", "e_vs_x", "--cards", "1"]) == 0
    assert 'Card 1 ("' in capsys.readouterr().out


@pytest.mark.parametrize("command", ["run", "render", "explain", "lesson", "compare", "ablate", "curves"])
def test_an_unknown_scene_name_is_one_line_listing_the_names(command, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([command, "demmo"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "demmo" in err[0] and "alphabet, connectedness, demo" in err[0]
    assert not (tmp_path / "runs").exists()


def test_reenact_alone_re_enacts_every_built_in_scene_with_a_report(tmp_path, capsys, monkeypatch):
    from mark1.cli import _lab
    from mark1.lab import judged
    from mark1.stimuli import shipped_scenes

    seen = {}

    def no_run(args, workers, study, scenes, **options):     # the scenes the command hands the study
        seen["scenes"] = scenes
        raise KeyboardInterrupt
    monkeypatch.setattr(_lab, "_run_study", no_run)
    main(["reenact", "--seeds", "1", "--out", str(tmp_path / "re")])
    expected = [p for p in shipped_scenes() if judged(load_scene(p).reported)]
    assert [s.path for s in seen["scenes"]] == [str(p) for p in expected]
    assert len(expected) == len(shipped_scenes()) - 1           # every one but the demonstration
    seen.clear()
    main(["reenact", "e_vs_f", "parity", "--seeds", "1", "--out", str(tmp_path / "re2")])
    assert [Path(s.path).stem for s in seen["scenes"]] == ["e_vs_f", "parity"]


def test_python_dash_m_has_no_traceback_on_bad_input(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mark1", "run", str(tmp_path / "missing.toml")],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


PROGRAM = """
import atexit, sys, threading, time
from mark1.cli import program
late = []
def worker():
    time.sleep(0.3)
    late.append("thread")
threading.Thread(target=worker).start()                # a thread still working when main returns
atexit.register(lambda: print("atexit after", *late))
sys.argv = ["mark1", *sys.argv[1:]]
print("unflushed", end=" ")                            # left in the buffer for the end to flush
program()
"""


@pytest.mark.parametrize("argv, status", [(["--version"], 0), (["specs", "--preset", "MARK_II"], 2)])
def test_the_program_ends_with_mains_status_after_threads_atexit_and_flushing(argv, status, tmp_path):
    import mark1
    r = subprocess.run([sys.executable, "-c", PROGRAM, *argv], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == status
    lines = r.stdout.splitlines()
    assert lines[0].startswith("unflushed ")            # the buffer was flushed
    assert lines[-1].endswith("atexit after thread")      # the thread was waited for, then atexit ran
    if status == 0:
        assert lines[0] == f"unflushed mark1 {mark1.__version__}"
    else:
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_realtime_replay_prints_events_and_matches_the_simulation(tmp_path, capsys):
    import numpy as np
    import simpy.rt

    from mark1 import MarkI
    from mark1.stimuli.scenes import load_scene

    scene = load_scene(DEMO)
    train = scene.stimuli("train", seed=0, count=6)
    spec = scene.machine_spec()
    seen = []
    rt = MarkI(spec=spec, seed=2).fit(train.cards, train.labels, epochs=1,
                                      env=simpy.rt.RealtimeEnvironment(factor=1e-4, strict=False),
                                      on_event=lambda *e: seen.append(e))
    plain = MarkI(spec=spec, seed=2, trace="full").fit(train.cards, train.labels, epochs=1)
    assert np.array_equal(rt.history_, plain.history_)
    assert seen == plain.trace_.events
    assert main(["run", str(DEMO), "--out", str(tmp_path / "rt"), "--realtime", "0"]) == 2
    assert "--realtime" in capsys.readouterr().err


def test_readme_python_tour_runs_as_written(tmp_path, monkeypatch):
    import re

    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks, "the README's tour has Python examples"
    (tmp_path / "scenes").symlink_to(ROOT / "scenes")
    monkeypatch.chdir(tmp_path)                      # wiring.csv is written here
    namespace: dict = {}
    exec(compile("\n".join(blocks), "README.md", "exec"), namespace)
    test = namespace["test"]                          # the tour's test deck, from mark1.scene_cards
    assert 0.0 <= namespace["m"].score(test.cards, test.labels) <= 1.0
    assert (tmp_path / "wiring.csv").exists()


def test_curves_command_writes_csv_and_png(tmp_path, capsys):
    import csv

    out = tmp_path / "curves"
    assert main(["curves", str(DEMO), "--seeds", "2", "--points", "3", "--workers", "1",
                 "--train-count", "10", "--test-count", "10", "--out", str(out)]) == 0
    rows = list(csv.DictReader((out / "curves.csv").open()))
    assert {r["variant"] for r in rows} == {"analog", "ideal"}
    assert len(rows) == 2 * 2 * 3
    for variant in ("analog", "ideal"):
        for seed in ("0", "1"):
            mine = [r for r in rows if r["variant"] == variant and r["seed"] == seed]
            cards = [int(r["cards"]) for r in mine]
            hours = [float(r["machine_hours"]) for r in mine]
            assert cards == sorted(cards) and hours == sorted(hours) and len(set(cards)) == 3
            assert all(0 <= float(r["test_accuracy"]) <= 1 for r in mine)
    assert (out / "curves.png").read_bytes()[:4] == b"\x89PNG"
    text = capsys.readouterr().out
    assert "analog test accuracy (%)" in text and "pointwise" in text
    assert "too few seeds (n = 2) for an interval: no interval and no verdict" in text
    summary = list(csv.DictReader((out / "curves_summary.csv").open()))
    assert len(summary) == 2 * 3 and {r["low"] for r in summary} == {""}
    assert {r["correction"] for r in summary} == {"none"}
    assert main(["curves", str(DEMO), "--points", "0"]) == 2


def test_changing_spec_or_seed_rebuilds_the_machine():
    import numpy as np

    from mark1 import MarkI, specs

    rng = np.random.default_rng(0)
    cards = rng.random((6, 20, 20)).round()
    labels = np.arange(6) % 2
    m = MarkI(spec=specs.MARK_I, seed=1).fit(cards, labels)
    assert m.patchboard.n_associators == 512 and m.weights_.shape == (1, 513)
    board = m.patchboard.connections.copy()
    m.spec = specs.SMALL
    m.fit(cards, labels)
    assert m.patchboard.n_associators == 64 and m.weights_.shape == (1, 65)
    m.spec, m.seed = specs.MARK_I, 2
    m.fit(cards, labels)
    assert not np.array_equal(m.patchboard.connections, board)
    m.seed = 1
    assert np.array_equal(m.patchboard.connections, board)


@pytest.mark.parametrize("argv, word", [
    (["run", "{demo}", "--out", "{file}"], "--out"),
    (["render", "{demo}", "--out", "{dir}"], "--out"),
    (["render", "{demo}", "--out", "{dir}/sheet.txt"], "--out"),
    (["compare", "{demo}", "--out", "{file}"], "--out"),
    (["curves", "{demo}", "--out", "{file}"], "--out"),
    (["compare", "{demo}", "--seeds", "100000000000"], "--seeds"),
    (["run", "{demo}", "--realtime", "inf"], "--realtime"),
    (["compare", "{demo}", "--train-count", "1", "--out", "{dir}/c"], "--train-count"),
])
def test_bad_outputs_and_numbers_fail_before_any_work(tmp_path, capsys, argv, word):
    (tmp_path / "afile").write_text("keep me")
    (tmp_path / "adir").mkdir()
    argv = [a.format(demo=DEMO, file=tmp_path / "afile", dir=tmp_path / "adir") for a in argv]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and word in err[0]
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert (tmp_path / "afile").read_text() == "keep me"


def test_explain_tells_exactly_the_cards_asked_for(capsys):
    assert main(["explain", str(DEMO), "--cards", "3"]) == 0
    out = capsys.readouterr().out
    paragraphs = [line for line in out.splitlines() if line.startswith("Card ")]
    assert [p.split()[1] for p in paragraphs] == ["1", "2", "3"]
    assert out.count("The machine answered") == 3
    assert "R-units read" in out and "first 3 cards" in out
    assert main(["explain", str(DEMO), "--cards", "0"]) == 2


def test_explain_says_when_the_run_has_fewer_cards_than_asked(capsys):
    assert main(["explain", str(DEMO), "--cards", "44"]) == 0
    out = capsys.readouterr().out
    told = [line for line in out.splitlines() if line.startswith("Card ")]
    assert len(told) == 40
    assert out.strip().splitlines()[-1] == ("Asked for 44 cards; the run has only 40 presentations "
                                            "(one epoch of the training cards), all told above.")


def test_explain_describes_the_rule_in_use():
    from mark1.classroom.explain import explain
    from mark1.stimuli.scenes import load_scene

    scene = load_scene(DEMO)
    train = scene.stimuli("train", seed=0, count=6)
    text = explain(scene.machine_spec().with_overrides({"trainer.rule": "lms"}), train.cards, train.labels,
                   n_cards=1)
    assert "(target - sum)" in text and "0.02 full scale" not in text


def test_card_smaller_than_the_retina_names_the_scene_key(tmp_path, capsys):
    scene = tmp_path / "small_cards.toml"
    scene.write_text('name = "t"\n[stimuli]\nsource = "characters"\nclasses = ["X", "E"]\ncard_size = 10\n'
                     'size = 8\n[train]\ncount = 4\n[test]\ncount = 4\n')
    assert main(["run", str(scene), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "stimuli.card_size" in err and "20" in err


def test_lms_step_past_the_stability_limit_warns():
    import warnings

    from mark1.machine.mark_i import LMSStepWarning
    from mark1.stimuli.scenes import load_scene

    scene = load_scene(DEMO)
    train = scene.stimuli("train", seed=0, count=8)
    from mark1 import MarkI
    spec = scene.machine_spec().with_overrides({"trainer.rule": "lms"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MarkI(spec=spec, seed=0).fit(train.cards, train.labels)         # 0.002: stable, silent
    with pytest.warns(LMSStepWarning, match="lms_rate"):
        MarkI(spec=spec.with_overrides({"trainer.lms_rate": 0.5}), seed=0).fit(train.cards, train.labels)


def test_summary_trace_names_the_classes(tmp_path, capsys):
    import csv

    out = tmp_path / "named"
    assert main(["run", str(DEMO), "--out", str(out)]) == 0
    rows = list(csv.DictReader((out / "trace.csv").open()))
    classes = set(json.loads((out / "summary.json").read_text())["classes"])
    assert {r["label"] for r in rows} == classes and {r["response"] for r in rows} <= classes
    assert all((r["correct"] == "1") == (r["label"] == r["response"]) for r in rows)


@pytest.mark.parametrize("command", [[], ["run"], ["compare"], ["ablate"], ["curves"], ["sweep"], ["reenact"],
                                     ["lesson"], ["device"], ["render"], ["explain"], ["specs"], ["scenes"]])
def test_every_help_page_prints(command, capsys):
    """argparse formats help with %: one stray percent sign breaks `mark1 --help`."""
    with pytest.raises(SystemExit) as e:
        main([*command, "--help"])
    assert e.value.code == 0 and "usage: mark1" in capsys.readouterr().out


def test_memory_error_the_estimate_missed_is_one_line(monkeypatch, capsys):
    """The budget refuses what will not fit before work; should an allocation still fail,
    the command line says so in one line with exit status 2, not a traceback."""

    def out_of_memory(args):
        raise MemoryError("Unable to allocate 2.98 GiB")

    monkeypatch.setattr(_run, "cmd_specs", out_of_memory)
    assert main(["specs"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mark1: error: out of memory")


def test_a_limit_below_mark1_itself_says_so_and_blames_no_key(capsys, tmp_path):
    assert main(["run", str(DEMO), "--memory-limit", "0.1", "--out", str(tmp_path / "out")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert re.search(r": mark1 itself needs about 0\.\d\d GB of memory before any card, more than the 0\.10 GB "
                     r"it may use \(--memory-limit\); raise --memory-limit$", lines[0]), lines[0]
    assert "lower it" not in lines[0] and "train.count" not in lines[0]
    assert not (tmp_path / "out").exists()


def test_the_long_work_notice_is_said_once_a_command_not_once_a_process(capsys, monkeypatch):
    monkeypatch.setattr(_options, "_LONG_WORK", -1)                  # every run counts as long
    scene = load_scene(DEMO)
    for _ in range(2):                                                 # two commands in one process
        args = argparse.Namespace(command="run", scene=str(DEMO), memory_limit=None)
        _options.check_budget(args, scene)
        _options.check_budget(args, scene)                           # the same command checking again
        assert capsys.readouterr().err.count("this may take about") == 1


def test_version_is_cheap_and_exits_0(capsys):
    import mark1
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"mark1 {mark1.__version__}\n"
    code = ("import sys; from mark1.cli import main; rc = main(['--version']); "
            "print(rc, 'numba' in sys.modules, 'matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"mark1 {mark1.__version__}", "0 False False"]


def test_the_top_help_is_the_full_parsers_without_loading_the_machine():
    # mark1 --help is built from the commands' names alone; it must read as the full parser's
    from mark1.cli import _build_parser, _names_parser
    assert _names_parser().format_help() == _build_parser().format_help()
    for only in ("run", "compare", "theory"):      # a command builds its own module's parsers alone
        assert _build_parser(only).format_help() == _build_parser().format_help()
    code = ("import sys, contextlib, io\n"
            "from mark1.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            "        main(['--help'])\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print(sorted(m for m in ('numba', 'matplotlib', 'scipy', 'simpy', 'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_import_mark1_loads_its_rooms_on_first_use():
    code = ("import sys, mark1\n"
            "print('numba' in sys.modules, 'matplotlib' in sys.modules)\n"
            "print(mark1.MarkI.__module__, mark1.theory.__name__, mark1.MARK_I is mark1.specs.MARK_I)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False False", "mark1.machine.mark_i mark1.theory True"], out.stdout
