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
from mark1.lab import parse_values, sweep
from mark1.stimuli.cards import experiment_seeds
from mark1.specs import SpecError
from mark1.viz.studies import sweep_figure

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
    for row in result.summary():
        assert row["change_mean"] == 0.0 and row["change_low"] == 0.0 and row["change_high"] == 0.0
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
