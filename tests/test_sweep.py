"""mark1 sweep: paired seeds, typed values, the CSV, resume, the command line.

Every run here is the demo scene (SMALL machine) with a handful of cards, so each
(value, seed) job takes a fraction of a second.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest
from PIL import Image

import mark1.lab._sweep as sweep_mod
from mark1 import cli
from mark1.exceptions import InputError
from mark1.lab import grid_sweep, parse_values, sweep
from mark1.stimuli.cards import experiment_seeds
from mark1.specs import SpecError
from mark1.viz.studies import grid_sweep_figure, sweep_figure

ROOT = Path(__file__).resolve().parent.parent
DEMO = str(ROOT / "scenes" / "demo.toml")
SMALL_RUN = dict(train_count=8, test_count=8)


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_values_are_typed_as_the_field_wants():
    assert parse_values("rack.motor_speed", "0.01, 0.1,inf") == [0.01, 0.1, math.inf]
    assert parse_values("rack.drivers", "1,4,0") == [1, 4, 0]
    assert parse_values("timing.overlap", "true,false") == [True, False]
    assert parse_values("rack.drive", ["continuous", "ratchet"]) == ["continuous", "ratchet"]
    assert parse_values("rack.backlash", [0, 0.01]) == [0.0, 0.01]


@pytest.mark.parametrize("key, values, words", [
    ("rack.motor_sped", "1,2", ["rack.motor_sped", "rack.motor_speed"]),     # unknown, with a suggestion
    ("rack.motor_speed", "0.1,fast", ["rack.motor_speed", "'fast'"]),
    ("rack.motor_speed", "0.1,-1", ["rack.motor_speed", "> 0"]),
    ("rack.backlash", "0,inf", ["rack.backlash", "finite"]),
    ("rack.drivers", "1,2.5", ["rack.drivers", "integer"]),
    ("timing.overlap", "true,yes", ["timing.overlap", "true or false"]),
    ("rack.drive", "continuous,belt", ["rack.drive", "'belt'"]),
    ("rack.motor_speed", "0.1,0.1", ["rack.motor_speed", "two distinct"]),
    ("retina.shape", "20,30", ["retina.shape"]),
])
def test_bad_values_name_the_key(key, values, words):
    with pytest.raises(SpecError) as err:
        parse_values(key, values)
    for w in words:
        assert w in str(err.value)


def test_csv_pairs_the_seeds_and_a_parameter_that_cannot_act_costs_exactly_nothing(tmp_path):
    # rack.step is the ratchet's step: the demo machine drives its pots continuously,
    # so the step cannot act, and every seed must give the same figures for each value.
    result = sweep(DEMO, "rack.step", "0.01,0.05,0.2", seeds=[0, 3], out=tmp_path, figure=sweep_figure, **SMALL_RUN)
    rows = read_csv(tmp_path / "sweep.csv")
    assert [(r["value"], int(r["seed"])) for r in rows] == [
        (v, s) for v in ("0.01", "0.05", "0.2") for s in (0, 3)]
    assert {r["param"] for r in rows} == {"rack.step"}
    for seed in (0, 3):
        mine = [r for r in rows if int(r["seed"]) == seed]
        assert len({(r["seed_train"], r["seed_test"], r["seed_machine"], r["cards_sha256"]) for r in mine}) == 1
        assert [int(mine[0][k]) for k in ("seed_train", "seed_test", "seed_machine")] == list(experiment_seeds(seed))
        assert len({(r["test_accuracy"], r["train_accuracy"], r["machine_time_s"], r["mistakes"]) for r in mine}) == 1
    digests = {seed: {r["cards_sha256"] for r in rows if r["seed"] == seed} for seed in ("0", "3")}
    assert digests["0"] != digests["3"]
    for row in result.summary():                         # two seeds: the mean alone, no interval, no verdict
        assert row["change_mean"] == 0.0 and row["change_low"] is None and row["decided"] is None
        assert not row["distinguishable"]
    assert result.reference == 0.01                       # the SMALL machine's own step
    with Image.open(tmp_path / "sweep.png") as im:
        assert im.size[0] > 300 and im.size[1] > 300


def test_reference_is_the_scenes_own_value_and_changes_are_paired_differences():
    result = sweep(DEMO, "rack.motor_speed", "0.0005,0.25,inf", seeds=2, **SMALL_RUN)
    assert result.reference == 0.25
    by = {(r["value"], r["seed"]): r["test_accuracy"] for r in result.records}
    rows = {r["value"]: r for r in result.summary()}
    expected = sum(by[("0.0005", s)] - by[("0.25", s)] for s in (0, 1)) / 2
    assert rows["0.0005"]["change_mean"] == pytest.approx(expected, abs=1e-12)
    # a motor far too slow for the card cycle makes the trainer wait: machine time grows
    slow = [r for r in result.records if r["value"] == "0.0005"]
    fast = [r for r in result.records if r["value"] == "0.25"]
    assert all(r["waited_s"] > 0 for r in slow)
    assert all(s["machine_time_s"] > f["machine_time_s"] for s, f in zip(slow, fast))
    assert "reference" in result.table()


def test_resume_runs_only_the_missing_jobs_and_gives_the_same_result(tmp_path, monkeypatch):
    first = sweep(DEMO, "rack.wiper_noise", "0,0.01", seeds=2, out=tmp_path, **SMALL_RUN)
    (tmp_path / "jobs" / "value-0.01-seed-0001.json").unlink()
    calls = []
    real = sweep_mod._sweep_job

    def counting(*args):
        calls.append(args[1:4])
        return real(*args)

    monkeypatch.setattr(sweep_mod, "_sweep_job", counting)
    again = sweep(DEMO, "rack.wiper_noise", "0,0.01", seeds=2, out=tmp_path, resume=True, **SMALL_RUN)
    assert calls == [(1, "rack.wiper_noise", 0.01)]

    def strip(records):
        return [{k: v for k, v in r.items() if k != "wall_time_s"} for r in records]
    assert strip(again.records) == strip(first.records)
    # another sweep (other counts) never reads these records back
    calls.clear()
    sweep(DEMO, "rack.wiper_noise", "0,0.01", seeds=2, out=tmp_path, resume=True, train_count=6, test_count=8)
    assert len(calls) == 4


def test_cli_sweep_writes_its_files(tmp_path, capsys):
    out = tmp_path / "sw"
    status = cli.main(["sweep", DEMO, "--param", "rack.backlash", "--values", "0,0.02", "--seeds", "2",
                       "--workers", "1", "--train-count", "8", "--test-count", "8", "--out", str(out)])
    assert status == 0
    text = capsys.readouterr().out
    assert "rack.backlash" in text and "reference" in text
    assert {p.name for p in out.iterdir()} >= {"sweep.csv", "sweep.json", "sweep.png", "jobs"}
    assert len(read_csv(out / "sweep.csv")) == 4


@pytest.mark.parametrize("argv, words", [
    (["--param", "rack.motor_sped", "--values", "1,2"], ["--param", "rack.motor_speed"]),
    (["--param", "rack.motor_speed", "--values", "1,x"], ["--values", "'x'"]),
    (["--param", "rack.motor_speed", "--values", "1,2", "--seeds", "0"], ["--seeds"]),
    (["--param", "rack.motor_speed", "--values", "1,2", "--seeds", "3", "--precision", "1"], ["--seeds", "10"]),
    (["--param", "rack.motor_speed", "--values", "1,2", "--precision", "0"], ["--precision"]),
    (["--param", "rack.motor_speed", "--values", "1,2", "--precision", "1", "--max-seeds", "12"], ["--max-seeds"]),
])
def test_cli_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, argv, words):
    status = cli.main(["sweep", DEMO, *argv, "--out", str(tmp_path / "sw")])
    assert status == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    for w in words:
        assert w in err
    assert not (tmp_path / "sw").exists()


def test_decay_example_states_a_finding(tmp_path):
    import os
    import subprocess
    import sys

    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "decay.py"), "--scene", "demo", "--seeds", "2",
                           "--out", str(out)],
                          cwd=tmp_path, env=dict(os.environ, MPLBACKEND="Agg"), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-2].startswith("finding: ") and "slight" in lines[-2]
    assert sum(line.strip().startswith(("30.0", "inf")) for line in lines) == 2
    rows = read_csv(out / "decay_sweep" / "sweep.csv")
    assert [r["value"] for r in rows[::2]] == ["30.0", "100.0", "300.0", "1000.0", "3000.0", "10000.0", "inf"]
    with Image.open(out / "decay_sweep" / "sweep.png") as im:
        assert im.size[0] > 300


def test_decay_example_refuses_a_scene_shown_once(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "decay.py"), "--scene", "e_vs_x", "--seeds", "1",
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "schedule.epochs = 1" in proc.stderr and "Traceback" not in proc.stderr


# ----------------------------------------------------------------------------------------
# training amount: schedule.epochs and until


def test_epochs_values_and_until_are_parsed():
    assert parse_values("schedule.epochs", "1,2,5,10,until") == [1, 2, 5, 10, "until:50"]
    assert parse_values("schedule.epochs", ["until:20", 3]) == ["until:20", 3]


@pytest.mark.parametrize("values, word", [("0,1", "'0'"), ("1,x", "'x'"), ("1,until:0", "until:0"),
                                          ("1,until:x", "until:x"), ("1,2.5", "'2.5'")])
def test_bad_epochs_values_name_the_key(values, word):
    with pytest.raises(SpecError) as err:
        parse_values("schedule.epochs", values)
    assert "schedule.epochs" in str(err.value) and word in str(err.value)


def test_until_stops_at_the_first_pass_without_a_mistake(tmp_path):
    result = sweep(DEMO, "schedule.epochs", "1,3,10,until", seeds=2, out=tmp_path, figure=sweep_figure, **SMALL_RUN)
    rows = read_csv(tmp_path / "sweep.csv")
    assert list(rows[0]) == [*sweep_mod.SWEEP_FIELDS, "passes", "first_clean_pass"]
    assert result.reference == 1                     # the scene's own 5 passes are not swept: the first value
    by = {(r["value"], r["seed"]): r for r in result.records}
    for seed in (0, 1):
        until, ten = by[("until:50", seed)], by[("10", seed)]
        assert until["first_clean_pass"] == until["passes"] == ten["first_clean_pass"]
        assert by[("1", seed)]["passes"] == 1 and ten["passes"] == 10
        if until["passes"] == 3:                     # the same machine as three passes, bit for bit
            same = by[("3", seed)]
            assert all(same[k] == until[k] for k in ("test_accuracy", "train_accuracy", "mistakes", "machine_time_s"))
    assert "first pass without a training mistake" in result.table()
    with Image.open(tmp_path / "sweep.png") as im:
        assert im.size[0] > 300


def test_until_records_no_clean_pass_when_the_cap_is_reached():
    result = sweep(DEMO, "schedule.epochs", "1,until:1", seeds=1, **SMALL_RUN)
    assert [(r["passes"], r["first_clean_pass"]) for r in result.records] == [(1, None), (1, None)]


def test_epochs_override_cannot_sit_beside_a_swept_schedule():
    with pytest.raises(InputError, match="epochs"):
        sweep(DEMO, "schedule.epochs", "1,2", seeds=1, epochs=3, **SMALL_RUN)
    one = sweep(DEMO, "rack.backlash", "0,0.01", seeds=1, epochs=2, **SMALL_RUN)
    assert {r["passes"] for r in one.records} == {2}


# ----------------------------------------------------------------------------------------
# two parameters


def test_grid_pairs_the_seeds_and_writes_both_columns(tmp_path):
    result = grid_sweep(DEMO, "rack.step", "0.01,0.05", "schedule.epochs", "1,2", seeds=[0, 3], out=tmp_path,
                        figure=grid_sweep_figure, **SMALL_RUN)
    rows = read_csv(tmp_path / "grid.csv")
    assert list(rows[0]) == list(sweep_mod.GRID_FIELDS)
    assert [(r["value_a"], r["value_b"], int(r["seed"])) for r in rows] == [
        (a, b, s) for a in ("0.01", "0.05") for b in ("1", "2") for s in (0, 3)]
    assert {(r["param_a"], r["param_b"]) for r in rows} == {("rack.step", "schedule.epochs")}
    for seed in ("0", "3"):
        mine = [r for r in rows if r["seed"] == seed]
        assert len({(r["seed_train"], r["seed_test"], r["seed_machine"], r["cards_sha256"]) for r in mine}) == 1
    # rack.step cannot act on the continuous drive: the rows of a column are equal
    test = result.grid("test")
    assert test.shape == (2, 2) and (test[0] == test[1]).all()
    assert result.reference == (0.01, 1)
    assert "rack.step" in result.table() and "pots at stops" in result.table()
    with Image.open(tmp_path / "grid.png") as im:
        assert im.size[0] > 300 and im.size[1] > 200


def test_grid_resume_runs_only_the_missing_job(tmp_path, monkeypatch):
    first = grid_sweep(DEMO, "rack.wiper_noise", "0,0.01", "rack.backlash", "0,0.01", seeds=1, out=tmp_path,
                       **SMALL_RUN)
    (tmp_path / "jobs" / "a-0.01-b-0.0-seed-0000.json").unlink()
    calls = []
    real = sweep_mod._grid_job

    def counting(*args):
        calls.append(args[1:6])
        return real(*args)

    monkeypatch.setattr(sweep_mod, "_grid_job", counting)
    again = grid_sweep(DEMO, "rack.wiper_noise", "0,0.01", "rack.backlash", "0,0.01", seeds=1, out=tmp_path,
                       resume=True, **SMALL_RUN)
    assert calls == [(0, "rack.wiper_noise", 0.01, "rack.backlash", 0.0)]
    assert again.grid("test").tolist() == first.grid("test").tolist()


def test_grid_counts_wipers_at_their_stops():
    result = grid_sweep(DEMO, "trainer.increment", "0.02,0.5", "rack.decay_time", "30,inf", seeds=1, **SMALL_RUN)
    stops = result.grid("pots_at_stops")
    assert stops[0].tolist() == [0.0, 0.0] and stops[1, 1] > 0
    assert all(0 <= r["max_wiper"] <= 1.0 and r["pots"] > 0 for r in result.records)


def test_grid_refuses_one_key_twice():
    with pytest.raises(InputError, match="twice"):
        grid_sweep(DEMO, "rack.backlash", "0,0.01", "rack.backlash", "0,0.02", seeds=1, **SMALL_RUN)


def test_cli_two_parameter_sweep_writes_its_files(tmp_path, capsys):
    out = tmp_path / "grid"
    status = cli.main(["sweep", DEMO, "--param", "rack.backlash", "--values", "0,0.02", "--param", "schedule.epochs",
                       "--values", "1,until", "--seeds", "1", "--workers", "1", "--train-count", "8",
                       "--test-count", "8", "--out", str(out)])
    assert status == 0
    assert "rack.backlash x schedule.epochs" in capsys.readouterr().out
    assert {p.name for p in out.iterdir()} >= {"grid.csv", "grid.json", "grid.png", "jobs"}
    assert len(read_csv(out / "grid.csv")) == 4


@pytest.mark.parametrize("argv, words", [
    (["--param", "rack.backlash", "--values", "0,1", "--param", "rack.backlash", "--values", "0,2"],
     ["--param", "twice"]),
    (["--param", "rack.backlash", "--values", "0,1", "--param", "rack.wiper_noise"], ["--values", "one --values"]),
    (["--param", "rack.backlash", "--param", "rack.wiper_noise", "--values", "0,1"], ["--values", "one --values"]),
    (["--param", "rack.backlash", "--values", "0,1", "--param", "rack.wiper_nois", "--values", "0,1"],
     ["--param", "rack.wiper_noise"]),
    (["--param", "a.b", "--values", "0,1", "--param", "c.d", "--values", "0,1", "--param", "e.f", "--values", "1,2"],
     ["--param", "one or two"]),
    (["--param", "rack.backlash", "--values", "0,1", "--param", "rack.wiper_noise", "--values", "0,1",
      "--reference", "0"], ["--reference"]),
    (["--param", "schedule.epochs", "--values", "1,0"], ["--values", "schedule.epochs"]),
    (["--param", "schedule.epochs", "--values", "1,2", "--epochs", "3"], ["--epochs"]),
])
def test_cli_bad_two_parameter_input_is_one_line_and_writes_nothing(tmp_path, capsys, argv, words):
    status = cli.main(["sweep", DEMO, *argv, "--out", str(tmp_path / "sw")])
    assert status == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    for w in words:
        assert w in err
    assert not (tmp_path / "sw").exists()


def test_sweep_figure_speaks_the_language():
    """Seed lines grey above the band (under it they turned pink), the parameter's unit on the x axis,
    machine time in the unit of its size, and an accuracy axis that starts above 0 says so."""
    result = _made_up_sweep({"0.0": [0.9, 0.85, 0.95, 0.9, 0.88, 0.92, 0.9, 0.87, 0.93, 0.9],
                             "0.05": [0.8, 0.82, 0.85, 0.79, 0.8, 0.84, 0.81, 0.8, 0.83, 0.82]})
    fig = sweep_figure(result)
    acc, _, time_ax, _ = fig.axes
    seeds = [ln for ln in acc.lines if ln.get_color() == "0.45"]
    assert len(seeds) == 10
    band = acc.collections[0]
    assert min(ln.get_zorder() for ln in seeds) > band.get_zorder()
    assert all(ax.get_xlabel() == "rack.backlash (full scale)" for ax in fig.axes)
    low = acc.get_ylim()[0]
    assert acc.get_ylabel() == ("test accuracy (%)" if low <= 0 else f"test accuracy (%; axis from {low:g} %)")
    assert time_ax.get_ylabel() in ("machine time (s)", "machine time (min)", "machine time (h)")
    assert "Benjamini-Hochberg" not in fig.get_suptitle() and "(bh)" in fig.get_suptitle()


# ----------------------------------------------------------------------------------------
# a starting point, cliffs, unclipped intervals, the grid's intervals (issue 25)


def _edited_demo(tmp_path, **rack) -> str:
    """The demo scene with ``[machine.overrides.rack]`` set to ``rack``: what ``--at`` spares a user."""
    text = Path(DEMO).read_text() + "\n[machine.overrides.rack]\n" + "".join(
        f"{k} = {v!r}\n".replace("'", '"') for k, v in rack.items())
    path = tmp_path / "edited.toml"
    path.write_text(text)
    return str(path)


def _strip(records):
    return [{k: v for k, v in r.items() if k != "wall_time_s"} for r in records]


def test_a_starting_point_gives_the_runs_of_the_edited_scene(tmp_path):
    at = {"rack.drive": "ratchet", "rack.step": 0.015}
    started = sweep(DEMO, "rack.backlash", "0,0.02", seeds=2, at=at, **SMALL_RUN)
    edited = sweep(_edited_demo(tmp_path, drive="ratchet", step=0.015), "rack.backlash", "0,0.02", seeds=2,
                   **SMALL_RUN)
    assert _strip(started.records) == _strip(edited.records)
    plain = sweep(DEMO, "rack.backlash", "0,0.02", seeds=2, **SMALL_RUN)
    assert _strip(plain.records) != _strip(started.records)          # the starting point acted
    assert started.at == {"rack.drive": "ratchet", "rack.step": 0.015}
    assert "starting at rack.drive=ratchet, rack.step=0.015" in started.table()
    grid = grid_sweep(DEMO, "rack.backlash", "0,0.02", "schedule.epochs", "1,2", seeds=1, at=at, **SMALL_RUN)
    grid_edited = grid_sweep(_edited_demo(tmp_path, drive="ratchet", step=0.015), "rack.backlash", "0,0.02",
                             "schedule.epochs", "1,2", seeds=1, **SMALL_RUN)
    assert _strip(grid.records) == _strip(grid_edited.records)


def test_a_starting_point_is_serial_and_pooled_alike():
    from concurrent.futures import ProcessPoolExecutor
    at = {"rack.drive": "ratchet", "rack.step": 0.015}
    serial = sweep(DEMO, "rack.wiper_noise", "0,0.02", seeds=2, at=at, **SMALL_RUN)
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = sweep(DEMO, "rack.wiper_noise", "0,0.02", seeds=2, at=at, executor=pool, **SMALL_RUN)
    assert _strip(pooled.records) == _strip(serial.records)


def test_cli_at_equals_the_edited_scene_serially_and_on_two_workers(tmp_path, capsys):
    runs = {}
    for name, scene, extra in (("at1", DEMO, ["--at", "rack.drive=ratchet", "--at", "rack.step=0.015"]),
                               ("at2", DEMO, ["--at", "rack.drive=ratchet", "--at", "rack.step=0.015",
                                              "--workers", "2"]),
                               ("edited", _edited_demo(tmp_path, drive="ratchet", step=0.015), [])):
        argv = ["sweep", scene, "--param", "rack.backlash", "--values", "0,0.02", "--seeds", "2", "--train-count",
                "8", "--test-count", "8", "--out", str(tmp_path / name), *extra]
        if "--workers" not in extra:
            argv += ["--workers", "1"]
        assert cli.main(argv) == 0
        runs[name] = _strip(read_csv(tmp_path / name / "sweep.csv"))
    assert runs["at1"] == runs["edited"] == runs["at2"]
    assert "starting at rack.drive=ratchet, rack.step=0.015" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["--at", "rack.step"], ["--at", "KEY=VALUE"]),
    (["--at", "rack.step=0.01", "--at", "rack.step=0.02"], ["--at", "rack.step twice"]),
    (["--at", "rack.stp=0.01"], ["--at", "rack.step"]),
    (["--at", "rack.step=-1"], ["--at", "rack.step"]),
    (["--at", "rack.step=fine"], ["--at", "'fine'"]),
    (["--at", "rack.backlash=0.01"], ["--at", "rack.backlash is swept"]),
    (["--at", "schedule.epochs=2"], ["--at", "schedule.epochs"]),
])
def test_cli_bad_starting_point_is_one_line_and_writes_nothing(tmp_path, capsys, argv, words):
    status = cli.main(["sweep", DEMO, "--param", "rack.backlash", "--values", "0,0.02", *argv,
                       "--out", str(tmp_path / "sw")])
    assert status == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    for w in words:
        assert w in err
    assert not (tmp_path / "sw").exists()


def test_the_cliff_is_named_exactly_when_a_ratchet_step_passes_the_increment():
    from mark1.specs import MARK_I
    ratchet = MARK_I.with_overrides({"rack.drive": "ratchet"})
    inc = ratchet.trainer.increment
    assert sweep_mod.cliff_warning([("a", ratchet.with_overrides({"rack.step": inc}))]) is None     # at, not above
    assert sweep_mod.cliff_warning([("a", MARK_I.with_overrides({"rack.step": 4 * inc}))]) is None  # continuous
    over = sweep_mod.cliff_warning([("a", ratchet.with_overrides({"rack.step": 1.5 * inc}))])
    assert "one whole step" in over and "\n" not in over
    assert "no pot turns" in sweep_mod.cliff_warning([("a", ratchet.with_overrides({"rack.step": 2 * inc}))])
    lms = ratchet.with_overrides({"rack.step": 4 * inc, "trainer.rule": "lms"})
    assert sweep_mod.cliff_warning([("a", lms)]) is None                                  # no increment to pass


def test_a_sweep_warns_only_when_a_value_crosses_the_cliff(recwarn):
    from mark1.exceptions import CliffWarning
    at = {"rack.drive": "ratchet"}
    calm = sweep(DEMO, "rack.step", "0.01,0.02", seeds=1, at=at, train_count=4, test_count=4)
    assert not [w for w in recwarn if issubclass(w.category, CliffWarning)] and calm.cliff is None
    with pytest.warns(CliffWarning, match=r"rack.step=0.04 \(at rack.drive=ratchet\)") as caught:
        steep = sweep(DEMO, "rack.step", "0.01,0.04", seeds=1, at=at, train_count=4, test_count=4)
    assert len([w for w in caught if issubclass(w.category, CliffWarning)]) == 1
    assert "rack.step=0.01" not in steep.cliff
    # the continuous drive never ratchets: the same step values are no cliff
    recwarn.clear()
    sweep(DEMO, "rack.step", "0.01,0.04", seeds=1, train_count=4, test_count=4)
    assert not [w for w in recwarn if issubclass(w.category, CliffWarning)]


def test_cli_cliff_warning_is_one_line_on_stderr(tmp_path, capsys):
    assert cli.main(["sweep", DEMO, "--param", "rack.backlash", "--values", "0,0.02", "--seeds", "1",
                     "--workers", "1", "--train-count", "4", "--test-count", "4", "--at", "rack.drive=ratchet",
                     "--at", "rack.step=0.05", "--out", str(tmp_path / "sw")]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(err) == 1 and err[0].startswith("mark1: warning: ratchet step above the trainer's increment")
    assert "every value of rack.backlash, starting at rack.drive=ratchet, rack.step=0.05" in err[0]


def _made_up_sweep(accs: dict) -> sweep_mod.Sweep:
    """A Sweep from made-up test accuracies {value: [per seed]} (the other fields plausible)."""
    records = [dict(param="rack.backlash", value=v, seed=s, test_accuracy=a, train_accuracy=1.0, machine_time_s=60.0,
                    waited_s=0.0, mistakes=3, learned_after=10, presentations=40, passes=1, first_clean_pass=None)
               for v, xs in accs.items() for s, a in enumerate(xs)]
    values = [float(v) for v in accs]
    return sweep_mod.Sweep(scene="made up", param="rack.backlash", values=values, reference=values[0],
                           seeds=list(range(len(next(iter(accs.values()))))), records=records)


def test_intervals_near_100_percent_stay_inside_what_can_happen():
    from mark1 import stats
    top = [1.0, 0.9, 1.0, 1.0, 1.0, 0.95, 1.0, 1.0, 0.9, 1.0]
    result = _made_up_sweep({"0.0": top, "0.02": [1.0, 1.0, 0.9, 1.0, 0.95, 1.0, 1.0, 0.9, 1.0, 1.0]})
    row = result.summary()[0]
    iv = stats.mean_interval(top, (0.0, 1.0))
    assert (row["test_low"], row["test_high"]) == (iv.low, iv.high) and row["test_high"] == 1.0
    # the plain t-interval of these seeds passes 100 %; this one stops there
    assert row["test_mean"] + 2.2621571628 * 0.0421637 / math.sqrt(10) > 1.0
    assert iv.format(scale=100) in result.table()
    # the last mistake of a 40-presentation run: inside [0, 40] whatever the spread
    assert 0.0 <= row["learned_after_low"] <= row["learned_after_high"] <= 40.0
    ax = sweep_figure(result).axes[0]
    assert ax.get_ylim()[1] <= 101.0                               # the axis stops at the range
    assert max(max(p[:, 1]) for p in (c.get_paths()[0].vertices for c in ax.collections)) == pytest.approx(100.0)


def test_too_few_seeds_give_no_interval_no_verdict_and_say_so():
    result = _made_up_sweep({"0.0": [1.0, 0.9], "0.02": [0.5, 0.55]})
    row = result.summary()[1]
    assert row["change_low"] is None and row["decided"] is None and row["distinguishable"] is False
    text = result.table()
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("0.02"))
    assert "-42.5 (too few seeds)" in line and "~0" not in line
    assert "too few seeds (n = 2) for an interval: no interval and no verdict" in text
    fig = sweep_figure(result)
    assert "too few seeds (n = 2) for an interval" in fig.get_suptitle()
    assert not [c for ax in fig.axes for c in ax.collections if (c.get_gid() or "").startswith("interval")]


def test_a_sweeps_family_is_controlled_and_its_verdicts_read_the_adjusted_interval(tmp_path):
    from mark1 import stats
    base = [0.9, 0.85, 0.95, 0.9, 0.88, 0.92, 0.9, 0.87, 0.93, 0.9]
    noise = [0.01, -0.02, 0.015, -0.01, 0.0, 0.02, -0.015, 0.01, -0.005, 0.0]
    accs = {"0.0": base}
    for k, shift in enumerate((0.0, -0.01, -0.02, -0.05)):
        accs[f"0.0{k + 1}"] = [b + shift + n * (k + 1) / 2 for b, n in zip(base, noise)]
    for correction in ("bh", "holm", "none"):
        result = _made_up_sweep(accs)
        result.correction = correction
        diffs = list(result.differences().values())
        expected = stats.family(diffs, (-1.0, 1.0), correction=correction)
        rows = result.summary()[1:]
        assert [(r["change_low"], r["change_high"]) for r in rows] == [(c.interval.low, c.interval.high)
                                                                      for c in expected]
        assert [r["decided"] for r in rows] == [c.decided for c in expected]
        assert [r["change_p_adjusted"] for r in rows] == stats.adjust([c.p for c in expected], correction)
        text = result.table()
        m = len(expected)
        assert stats.correction_words(correction, m) in text
        for c in expected:
            cell = c.interval.format(scale=100, signed=True)
            assert (cell + " ~0" in text) == (not c.decided)
        assert "seeds for ±1 point:" in text
    # the summary CSV names the method and the correction in every row that carries an interval
    result.correction = "bh"
    (tmp_path / "s.csv").write_text(result.summary_csv())
    rows = read_csv(tmp_path / "s.csv")
    assert {r["method"] for r in rows} == {stats.METHOD}
    change = [r for r in rows if r["figure"] == "change"]
    assert len(change) == 4 and {r["correction"] for r in change} == {"bh"}
    assert all(float(r["low"]) <= float(r["mean"]) <= float(r["high"]) for r in change)


def _made_up_grid(accs: dict) -> sweep_mod.GridSweep:
    """A GridSweep from made-up test accuracies {(value_a, value_b): [per seed]}."""
    records = [dict(param_a="trainer.increment", value_a=a, param_b="rack.wiper_noise", value_b=b, seed=s,
                    test_accuracy=x, train_accuracy=1.0, machine_time_s=60.0, waited_s=0.0, mistakes=3,
                    learned_after=10, presentations=40, passes=1, first_clean_pass=None, pots_at_stops=0,
                    energy_j=1.0, energy_per_correction_j=0.1)
               for (a, b), xs in accs.items() for s, x in enumerate(xs)]
    va = sorted({float(a) for a, _ in accs})
    vb = sorted({float(b) for _, b in accs})
    return sweep_mod.GridSweep(scene="made up", params=("trainer.increment", "rack.wiper_noise"), values=(va, vb),
                               reference=(va[0], vb[0]), seeds=list(range(len(next(iter(accs.values()))))),
                               records=records)


def test_grid_table_and_map_carry_the_adjusted_intervals():
    base = [0.9, 0.85, 0.95, 0.9, 0.88, 0.92, 0.9, 0.87, 0.93, 0.9]
    noise = [0.01, -0.02, 0.015, -0.01, 0.0, 0.02, -0.015, 0.01, -0.005, 0.0]
    result = _made_up_grid({("0.005", "0.0"): base,
                            ("0.005", "0.3"): [b - 0.1 + n for b, n in zip(base, noise)],
                            ("0.02", "0.0"): [b + n for b, n in zip(base, noise)],
                            ("0.02", "0.3"): [b - 0.01 + 2 * n for b, n in zip(base, noise)]})
    rows = result.summary()
    table = result.table()
    fig = grid_sweep_figure(result)
    titles = [ax.get_title() for ax in fig.axes]
    change_ax = fig.axes[titles.index("paired change in test accuracy (points)")]
    hatched = {p.get_gid() for p in change_ax.patches if (p.get_gid() or "").startswith("undecided:")}
    compared = result.compared()
    assert "Benjamini-Hochberg (false-discovery rate) over 3 comparisons" in table
    decided = []
    for k, r in enumerate(rows):
        i, j = divmod(k, 2)
        if result.is_reference(r["value_a"], r["value_b"]):
            assert f"undecided:{i},{j}" not in hatched
            continue
        c = compared[(r["value_a"], r["value_b"])]
        lo, hi = c.interval.low, c.interval.high
        assert (r["change_low"], r["change_high"]) == (lo, hi) and c.interval.level >= 0.95
        assert f"[{100 * lo:+.1f}, {100 * hi:+.1f}]" in table
        # hatched exactly where the adjusted interval includes 0
        assert (f"undecided:{i},{j}" in hatched) == (lo <= 0 <= hi), (i, j, lo, hi)
        assert f"[{100 * lo:+.1f}, {100 * hi:+.1f}]" in " ".join(t.get_text() for t in change_ax.texts)
        decided.append(c.decided)
    assert decided == [True, False, False]


def test_sweep_records_and_tables_carry_the_energy_of_learning():
    from mark1.machine.energy import energy_fields
    from mark1.machine.mark_i import MarkI
    from mark1.stimuli.cards import scene_cards
    from mark1.stimuli.scenes import load_scene
    result = sweep(DEMO, "rack.motor_speed", "0.1,0.25", seeds=1, **SMALL_RUN)
    scene = load_scene(DEMO)
    train, _, s_machine = scene_cards(scene, 0, **SMALL_RUN)
    for v in (0.1, 0.25):
        m = MarkI(spec=scene.machine_spec().with_overrides({"rack.motor_speed": v}), seed=s_machine).fit(
            train.cards, train.labels, epochs=scene.schedule.epochs, order=scene.schedule.order)
        rec = next(r for r in result.records if r["value"] == repr(v))
        assert rec["energy_j"] == energy_fields(m)["energy_j"] and rec["energy_j"] > 0
    assert "energy of learning" in result.table() and " J" in result.table()
    grid = grid_sweep(DEMO, "rack.backlash", "0,0.02", "schedule.epochs", "1,2", seeds=1, **SMALL_RUN)
    assert "energy of learning" in grid.table()
    assert all(r["energy_j_mean"] is not None for r in grid.summary())


def test_a_sweep_to_a_precision_counts_only_the_seeds_after_its_pilot(tmp_path, monkeypatch):
    # a precision of 50 points: the pilot's spread asks for no more than the method's ten new seeds
    kw = dict(train_count=4, test_count=4)
    result = sweep(DEMO, "rack.backlash", "0,0.05", seeds=10, precision=50, max_seeds=40, out=tmp_path, **kw)
    assert result.pilot == list(range(10)) and result.counted == list(range(10, 20))
    assert {r["seed"] for r in result.records} == set(range(20))            # the pilot's runs are kept
    assert len(read_csv(tmp_path / "sweep.csv")) == 40
    # the intervals are those of the new seeds alone: a plain sweep of seeds 10-19 gives the same bits
    plain = sweep(DEMO, "rack.backlash", "0,0.05", seeds=list(range(10, 20)), **kw)
    assert result.summary() == plain.summary()
    text = result.table()
    assert "after a pilot of 10" in text and "run to a precision of ±50 points" in text
    assert "1 of 1 intervals within ±50 points" in text
    # resumed: every run is read back, none trained again, the same result
    import mark1.lab._sweep as mod
    monkeypatch.setattr(mod, "_train_once", lambda *a, **k: pytest.fail("a recorded run was trained again"))
    again = sweep(DEMO, "rack.backlash", "0,0.05", seeds=10, precision=50, max_seeds=40, out=tmp_path,
                  resume=True, **kw)
    assert again.summary() == result.summary() and again.counted == result.counted
