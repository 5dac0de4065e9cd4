"""A measured device in, a fitted law out: the table's format, its refusals, and the fit's recovery."""

from __future__ import annotations

import json
import tomllib

import numpy as np
import pytest

from mark1 import specs
from mark1.machine.device_fit import (PIECEWISE_NODES, fit_table, fitted_spec, overrides_toml, pulse_table,
                                        read_table, table_from_values, write_table)
from mark1.cli import main
from mark1.exceptions import InputError

GOOD = "pulse,direction,value\n0,start,0.0\n1,up,0.02\n2,up,0.04\n3,down,0.02\n"


@pytest.mark.parametrize("text, says", [
    ("", "row 1: expected a header"),
    ("pulse,value\n0,0\n1,0.1\n", "row 1, column direction: missing"),
    ("pulse,direction,value\n0,start,0\n", "row 3: expected the reading before the first pulse and at least one"),
    ("pulse,direction,value\n0,up,0\n1,up,0.1\n", "row 2, column direction: expected start"),
    ("pulse,direction,value\n0,start,0\n1,sideways,0.1\n", "row 3, column direction: expected up or down"),
    ("pulse,direction,value\n0,start,0\n2,up,0.1\n", "row 3, column pulse: expected 1"),
    ("pulse,direction,value\n0,start,0\n1.5,up,0.1\n", "row 3, column pulse: expected a whole number"),
    ("pulse,direction,value\n0,start,0\n1,up,0.1\n2,down,abc\n", "row 4, column value: expected a number"),
    ("pulse,direction,value\n0,start,0\n1,up,nan\n", "row 3, column value: expected a finite number"),
    ("pulse,direction,value\n0,start,0\n1,up\n", "row 3, column value: empty"),
    ("pulse,direction,value\n0,start,0\n1,up,1.5\n", "row 3, column value: expected a reading from -1 to 1"),
])
def test_bad_tables_name_the_file_row_and_column(tmp_path, text, says):
    path = tmp_path / "device.csv"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read_table(path)
    message = str(err.value)
    assert message.startswith(str(path) + ": ") and says in message
    assert "\n" not in message


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(InputError, match="cannot read the table"):
        read_table(tmp_path / "nowhere.csv")


def test_table_round_trip_and_scale(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(GOOD)
    t = read_table(path)
    assert t.step.tolist() == pytest.approx([0.02, 0.02, -0.02])
    assert t.direction.tolist() == [1, 1, -1]
    path.write_text(write_table(t))
    assert read_table(path).value.tolist() == t.value.tolist()
    # conductances: 10 uS to 30 uS are full scale -1 to +1
    g = table_from_values([20.0, 21.0, 22.0], [1, 1], scale=(10.0, 30.0))
    assert g.position.tolist() == pytest.approx([0.0, 0.1, 0.2])
    with pytest.raises(InputError, match="scale"):
        table_from_values([0.0, 1.0], [1], scale=(1.0, 1.0))


@pytest.mark.parametrize("text", [GOOD.replace("1,up", "1,left"), "pulse,direction\n0,start\n",
                                  GOOD.replace("3,down,0.02", "3,down,x")])
def test_cli_fit_bad_table_is_one_line_exit_2(tmp_path, capsys, text):
    path = tmp_path / "device.csv"
    path.write_text(text)
    assert main(["device", "fit", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and "row" in err and "column" in err
    assert not (tmp_path / "out").exists()


# -- the fit recovers a device it never saw the parameters of --------------------------------

BENCH = specs.MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
#: Two devices with 10 % pulse-to-pulse noise (rack.dw_min_std), measured over 400 pulses
#: (100 up, 100 down, twice): soft bounds at +0.6 and -0.8 with a 10 % up/down asymmetry,
#: and a constant step 20 % weaker up than down.
DEVICES = {
    "soft-bounds": {"rack.law": "soft-bounds", "rack.step": 0.01, "rack.w_max": 0.6, "rack.w_min": -0.8,
                    "rack.up_down": 0.1, "rack.dw_min_std": 0.1},
    "constant": {"rack.law": "constant", "rack.step": 0.01, "rack.up_down": -0.2, "rack.dw_min_std": 0.1},
}
#: Tolerances (absolute): over seeds 0-9 the largest errors seen were 2 % of the step,
#: 0.017 in up_down, 0.013 in w_max and 0.029 in w_min.
TOLERANCE = {"rack.step": 0.0005, "rack.up_down": 0.05, "rack.w_max": 0.06, "rack.w_min": 0.06}


@pytest.mark.parametrize("law, seed", [("soft-bounds", s) for s in range(4)] + [("constant", s) for s in range(2)])
def test_fit_recovers_the_generating_law_and_its_parameters(law, seed):
    device = BENCH.with_overrides(DEVICES[law])
    table = pulse_table(device, (100, 100, 100, 100), seed=seed)
    fit = fit_table(table, BENCH)
    assert fit.best.law == law
    for key, tol in TOLERANCE.items():
        if key in fit.best.params:
            truth = device.to_dict()["rack"][key.split(".")[1]]
            assert abs(fit.best.params[key] - truth) <= tol, (key, fit.best.params[key], truth)
    # the residuals are the device's own noise: 10 % of a step, estimated within 3 points
    assert fit.best.step_noise == pytest.approx(0.1, abs=0.03)
    # the constant law cannot follow soft bounds; every law is ranked by BIC
    assert [f.bic for f in fit.fits] == sorted(f.bic for f in fit.fits) or fit.fits[0].bic - fit.fits[1].bic < 0.01
    if law == "soft-bounds":
        assert next(f for f in fit.fits if f.law == "constant").rms > 3 * fit.best.rms


def test_fit_without_noise_is_exact_and_its_overrides_rebuild_the_device(tmp_path):
    device = BENCH.with_overrides({"rack.law": "soft-bounds", "rack.step": 0.02, "rack.w_max": 0.7,
                                   "rack.w_min": -0.5, "rack.up_down": -0.05})
    table = pulse_table(device, (40, 60, 30))
    fit = fit_table(table, BENCH, laws=["soft-bounds", "constant"])
    assert fit.best.rms < 1e-9
    rebuilt = fitted_spec(fit.best, BENCH)
    assert np.allclose(pulse_table(rebuilt, (40, 60, 30)).position, table.position, atol=1e-9)
    toml = overrides_toml(fit.best)
    assert 'rack.law = "soft-bounds"' in toml and 'rack.drive = "ratchet"' in toml
    assert "[machine.overrides]" in toml


def test_the_table_is_the_piecewise_law():
    """A table fitted as the piecewise law: node factors that replay the table's steps."""
    device = BENCH.with_overrides({"rack.law": "soft-bounds", "rack.step": 0.01, "rack.w_max": 0.5,
                                   "rack.w_min": -0.5})
    table = pulse_table(device, (60, 120, 60), start=0.0)
    fit = fit_table(table, BENCH, laws=["piecewise"])
    up, down = fit.best.params["rack.piecewise_up"], fit.best.params["rack.piecewise_down"]
    assert len(up) == len(down) == PIECEWISE_NODES
    # soft bounds are linear in w, so linear interpolation between nodes is exact where pulses went
    assert fit.best.rms < 1e-6
    spec = fitted_spec(fit.best, BENCH)
    assert spec.rack.law == "piecewise"


def test_cli_device_fit_writes_overrides_and_figures(tmp_path, capsys):
    device = BENCH.with_overrides(DEVICES["soft-bounds"])
    path = tmp_path / "measured.csv"
    path.write_text(write_table(pulse_table(device, (80, 80), seed=1)))
    out = tmp_path / "fit"
    assert main(["device", "fit", str(path), "--set", "rack.drive=ratchet", "--set", "rack.backlash=0",
                 "--law", "constant", "--law", "soft-bounds", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "best: soft-bounds" in text and "[machine.overrides]" in text
    for name in ("fit.toml", "fit.json", "fit_residuals.csv", "fit.png"):
        assert (out / name).stat().st_size > 0
    assert json.loads((out / "fit.json").read_text())["best"] == "soft-bounds"
    # the overrides go into a scene as they are
    over = tomllib.loads((out / "fit.toml").read_text())["machine"]["overrides"]
    assert specs.MARK_I.with_overrides(over).rack.law == "soft-bounds"
    rack = tmp_path / "rack"
    assert main(["device", "rack", "--table", str(path), "--set", "rack.drive=ratchet", "--set", "rack.backlash=0",
                 "--law", "soft-bounds", "--out", str(rack)]) == 0
    assert (rack / "rack.png").stat().st_size > 0


@pytest.mark.parametrize("argv, says", [
    (["device", "fit"], "expected a table"),
    (["device", "rack", "extra.csv"], "expected no positional table"),
    (["device", "photocell", "--law", "linear"], "go with device fit"),
    (["device", "fit", "{table}", "--law", "quadratic"], "--law"),
    (["device", "fit", "{table}", "--scale", "1", "1"], "scale"),
])
def test_cli_device_fit_usage_errors(tmp_path, capsys, argv, says):
    path = tmp_path / "t.csv"
    path.write_text(GOOD)
    assert main([a.replace("{table}", str(path)) for a in argv] + ["--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_device_study_example(tmp_path):
    """The gallery's device study runs, compares the Mark I's pot with two presets, and recovers ECRAM's law."""
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "examples" / "device_study.py"
    proc = subprocess.run([sys.executable, str(script), "--out", str(tmp_path / "out"), "--seeds", "3"],
                          cwd=tmp_path, env=dict(os.environ, MPLBACKEND="Agg"), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    for name in ("Mark I pot", "reram-sb", "ecram"):
        assert re.search(rf"^{name} test accuracy: [\d.]+ ± [\d.]+ %; energy per correction", text, flags=re.M)
    assert re.search(r"Mark I pot .*energy per correction [\d.]+ J,", text)       # joules, not nano
    assert "best law linear (preset: linear)" in text
    assert len(re.findall(r"^soft bounds b = ", text, flags=re.M)) == 5
    for name in ("device_study_accuracy.png", "device_study_energy.png", "device_study_fit.png"):
        assert (tmp_path / "out" / name).stat().st_size > 10_000


def test_a_pot_with_gears_has_its_backlash_fitted():
    """The Mark I's own pot (continuous drive, backlash 0.003 at each reversal), soft bounds, 10 % noise."""
    device = specs.MARK_I.with_overrides({"rack.law": "soft-bounds", "rack.w_max": 0.7, "rack.w_min": -0.6,
                                          "rack.dw_min_std": 0.1})
    fit = fit_table(pulse_table(device, (60, 60, 60, 60), seed=0), specs.MARK_I,
                    laws=["constant", "soft-bounds"])
    best = fit.best
    assert best.law == "soft-bounds" and best.k == 5
    assert best.params["rack.backlash"] == pytest.approx(0.003, abs=0.001)
    assert best.params["trainer.increment"] == pytest.approx(0.02, abs=0.001)
    assert "the fitted travel of one pulse" in overrides_toml(best)


@pytest.mark.parametrize("values, says", [
    ([0.1] * 12, "a stuck device"),
    ([0.0, 0.01, 0.02, 0.01], "expected at least 10 pulses"),
])
def test_tables_no_law_can_be_told_from(tmp_path, capsys, values, says):
    path = tmp_path / "t.csv"
    path.write_text(write_table(table_from_values(values, ([1, 1, -1] * len(values))[:len(values) - 1])))
    assert main(["device", "fit", str(path), "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and str(path) in err and len(err.splitlines()) == 1
