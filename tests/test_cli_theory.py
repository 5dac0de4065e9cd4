"""``mark1 theory`` (quick runs only) and the examples that re-enact the 1958 conclusions.

The command runs in this process through :func:`mark1.cli.main`; each example in a
subprocess (``--out`` a temporary folder), its printed figures checked against bounds
that say what it shows.
"""

from __future__ import annotations

import csv
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from mark1.cli import main
from mark1.exceptions import InputError
from mark1.specs import PRESETS

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


# -- the single-value form ------------------------------------------------------------------


def test_p_a_value(capsys):
    """The issue's P_a(10, 5, 2, 0.1) = 0.1798 (1958) beside the 400-point form."""
    assert main(["theory", "p_a", "10", "5", "2", "0.1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"1958 eq\. 1, infinite retina\s+0\.1798", out)
    assert re.search(r"400 S-points, 40 lit\s+0\.1805", out)


def test_p_a_value_other_retina(capsys):
    assert main(["theory", "p_a", "5", "5", "1", "0.5", "--n", "100000"]) == 0
    out = capsys.readouterr().out
    assert "100000 S-points" in out and out.count("0.3770") == 2       # a large retina is the binomial form


def test_p_c_value(capsys):
    assert main(["theory", "p_c", "10", "0", "3", "0.2", "0.2"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"1958 eq\. 2, infinite retina\s+0\.3222", out)    # C = R: S2 independent, P_c = P_a
    assert "P_c,min" in out


@pytest.mark.parametrize(("argv", "start"), [
    (["p_a", "10", "5", "0", "0.1"], "theta:"),
    (["p_a", "10", "5", "2", "1.5"], "R:"),
    (["p_a", "10", "-1", "2", "0.1"], "y:"),
    (["p_a", "10", "5", "2", "0.1", "--n", "5"], "--n:"),
    (["p_a", "10", "5", "2", "0.1", "--n", "0"], "--n:"),
    (["p_c", "10", "5", "2", "0.6", "0.0"], "C:"),
    (["--seeds", "1", "--quick"], "--seeds:"),
])
def test_bad_input_is_one_line_naming_the_argument(capsys, argv, start):
    assert main(["theory", *argv]) == 2
    assert _error_line(capsys).startswith(f"mark1: error: {start}")


def test_out_is_a_file(tmp_path, capsys):
    (tmp_path / "f").write_text("")
    assert main(["theory", "--quick", "--seeds", "2", "--out", str(tmp_path / "f")]) == 2
    assert _error_line(capsys).startswith("mark1: error: --out:")


def test_out_clash_found_before_any_work(tmp_path, capsys):
    (tmp_path / "p_c.csv").mkdir()
    assert main(["theory", "--quick", "--seeds", "2", "--out", str(tmp_path)]) == 2
    assert "p_c.csv" in _error_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p_c.csv"]      # nothing written


# -- the quick grid --------------------------------------------------------------------------


def test_quick_run_writes_tables_figures_and_page(tmp_path, capsys):
    out = tmp_path / "theory"
    assert main(["theory", "--quick", "--seeds", "10", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["p_a.csv", "p_c.csv", "recall.csv", "p_a.png", "p_c.png", "recall.png", "theory.md"])
    rows = {name: list(csv.DictReader((out / name).open())) for name in ("p_a.csv", "p_c.csv", "recall.csv")}
    assert [len(rows[k]) for k in ("p_a.csv", "p_c.csv", "recall.csv")] == [4, 3, 3]
    for r in rows["p_a.csv"] + rows["p_c.csv"]:
        assert int(r["seeds"]) == 10
        assert 0.0 <= float(r["low"]) <= float(r["measured"]) <= float(r["high"]) <= 1.0
        assert abs(float(r["measured"]) - float(r["finite"])) < 0.1        # the machine near the formula
    recall = [float(r["measured"]) for r in rows["recall.csv"]]
    assert recall == sorted(recall, reverse=True) and recall[-1] < 0.7     # recall falls with N_s
    page = (out / "theory.md").read_text()
    assert "`mark1 theory --seeds 10 --seed 0 --quick`" in page
    for name in ("p_a.png", "p_c.png", "recall.png"):
        assert f"]({name})" in page
        with Image.open(out / name) as im:
            assert im.size[0] > 100 and im.size[1] > 100
    assert "P_a: worst distance" in printed and "| N_A | N_s |" in printed
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_quick_run_is_deterministic(tmp_path):
    for k in (1, 2):
        assert main(["theory", "--quick", "--seeds", "2", "--seed", "5", "--out", str(tmp_path / str(k))]) == 0
    for name in ("p_a.csv", "p_c.csv", "recall.csv", "theory.md"):
        assert (tmp_path / "1" / name).read_text() == (tmp_path / "2" / name).read_text()


# -- the examples ---------------------------------------------------------------------------


def run_example(name: str, tmp_path: Path, *args: str) -> str:
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, str(EXAMPLES / name), "--out", str(tmp_path / "out"), *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def number(pattern: str, text: str) -> float:
    m = re.search(pattern, text)
    assert m, f"no match for {pattern!r} in:\n{text}"
    return float(m.group(1))


def test_ideal_environment(tmp_path):
    """1958 conclusions 2 and 3: recall falls towards 0.5 with N_s, generalization stays at 0.5."""
    text = run_example("ideal_environment.py", tmp_path, "--seeds", "3")
    rows = [[float(v) for v in line.split()] for line in text.splitlines() if re.match(r"\s+\d+\s+0\.\d", line)]
    recall, derived, general = [r[1] for r in rows], [r[3] for r in rows], [r[4] for r in rows]
    assert len(rows) == 5
    assert recall[0] > 0.85 and recall[-1] < 0.62 and recall == sorted(recall, reverse=True)
    assert max(abs(a - b) for a, b in zip(recall, derived)) < 0.08        # near the curve derived from 1958
    assert all(abs(g - 0.5) < 0.05 for g in general)
    assert "generalization between" in text and "at chance (0.5) within 3 standard errors" in text
    assert (tmp_path / "out" / "ideal_environment.png").is_file()


def test_mu_vs_sigma_gives_no_verdict_below_ten_seeds(tmp_path):
    text = run_example("mu_vs_sigma.py", tmp_path, "--seeds", "3")
    diffs = [float(d) for d in re.findall(r"μ - Σ = ([+-][\d.]+) \(too few seeds", text)]
    assert len(diffs) == 4 and all(abs(d) < 0.05 for d in diffs)
    assert "too few seeds for a verdict" in text and "borne out" not in text
    assert (tmp_path / "out" / "mu_vs_sigma.png").is_file()


@pytest.mark.slow          # about 60 s: 80 machines
def test_mu_vs_sigma(tmp_path):
    """What the machine finds (not what 1958 says): μ and Σ alike in α and in γ in this setting (Holm, 10 seeds)."""
    text = run_example("mu_vs_sigma.py", tmp_path, "--seeds", "10")
    diffs = [float(d) for d in re.findall(r"μ - Σ = ([+-][\d.]+) \[", text)]
    assert len(diffs) == 4 and all(abs(d) < 0.03 for d in diffs)
    assert text.count("no difference resolved") >= 4 and "Holm (family-wise error) over 4 comparisons" in text
    assert "NOT borne out" in text


@pytest.mark.slow          # about 60 s: 17 spontaneous runs
def test_spontaneous_concepts(tmp_path):
    """What the machine finds (not what 1958 says): the bivalent system forms both concepts on disjoint
    classes (seed 0, both readings, with decay and without) and not once the classes share 20 of 40 points."""
    text = run_example("spontaneous_concepts.py", tmp_path, "--seeds", "1")
    for machine in ("ibm704", "Mark I"):
        for decay in ("decay 300 s", "no decay"):
            line = f"bivalent γ, {machine:>6}, {decay:>11}"
            assert number(re.escape(line) + r",  0 points shared: concept score ([\d.]+)", text) == 1.0
            assert number(re.escape(line) + r", 20 points shared: concept score ([\d.]+)", text) == 0.5
    assert number(r"monovalent α, two responses, .*concept score ([\d.]+)", text) == 0.5
    assert "comes out" in text
    assert (tmp_path / "out" / "spontaneous_concepts.png").is_file()


def test_spontaneous_bivalent_system_is_the_1958_setting():
    from mark1.theory.learning import machine_spontaneous, spontaneous_spec
    spec = spontaneous_spec(PRESETS["ibm704"], 300.0)
    assert (spec.trainer.rule, spec.trainer.valence, spec.trainer.reinforcement, spec.response.code,
            spec.rack.bias) == ("gamma", "bivalent", "spontaneous", "single", False)
    # seed 0, disjoint classes: both concepts; sharing 20 of 40 points: everything to one answer
    assert machine_spontaneous(PRESETS["ibm704"], 300.0, 0) == (1.0, 0.5)
    score, busier = machine_spontaneous(PRESETS["ibm704"], 300.0, 0, shared=20)
    assert score == 0.5 and busier == 1.0
    with pytest.raises(InputError, match="shared"):
        machine_spontaneous(PRESETS["ibm704"], 300.0, 0, shared=40)


# -- mark1 theory curve: the machine's own trainer against the 1958 learning curves ----------

def test_curve_bad_seeds_is_one_line(capsys):
    assert main(["theory", "curve", "--seeds", "0"]) == 2
    assert _error_line(capsys).startswith("mark1: error: --seeds: expected a number of seeds from 1")
    assert main(["theory", "curve", "--seed", "-1"]) == 2
    assert _error_line(capsys).startswith("mark1: error: --seed: expected a seed >= 0")


@pytest.mark.slow          # about 40 s: 25 points and 8 spontaneous runs, two machines each
def test_curve_quick_writes_its_files_and_rows(tmp_path, capsys):
    assert main(["theory", "curve", "--quick", "--seeds", "2", "--out", str(tmp_path)]) == 0
    for name in ("learning.csv", "spontaneous.csv", "curve_ibm704.png", "curve_mark1.png", "fig7.png", "fig8.png",
                 "fig9.png"):
        assert (tmp_path / name).stat().st_size > 0
    rows = list(csv.DictReader((tmp_path / "learning.csv").open()))
    # 2 machines x 4 (system, reinforcement) x 2 n_sr, figs. 7-8 at 2 n_sr, fig. 9 at 5 P_a
    assert len(rows) == 16 + 4 + 5
    for r in rows:
        assert 0.0 <= float(r["measured"]) <= 1.0 and 0.0 < float(r["theory"]) <= 1.0
        assert math.isnan(float(r["low"])) and r["within"] == ""          # 2 seeds: no interval, no verdict
    spont = list(csv.DictReader((tmp_path / "spontaneous.csv").open()))
    assert [(r["preset"], r["setting"]) for r in spont] == [("ibm704", "decay"), ("ibm704", "no decay"),
                                                           ("mark1", "decay"), ("mark1", "no decay")]
    assert all(0.5 <= float(r["concept_score"]) <= 1.0 for r in spont)
    assert "curve_ibm704" in capsys.readouterr().out
