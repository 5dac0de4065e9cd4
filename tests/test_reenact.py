"""mark1 reenact: the band of a report, the verdict, the page, resume, the command line.

The runs use the demo scene (SMALL machine, few cards) copied with a reported figure;
the out-of-band flag is tested on constructed records, so it does not hang on what the
machine happens to score.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest
from PIL import Image

import mark1.lab._reenact as reenact_mod
from mark1 import cli
from mark1.lab import Reenactment, band, catalog, reenact, verdict
from mark1.lab._reenact import SceneResult, _reenact_markdown
from mark1.stimuli import Reported, load_scene
from mark1.viz.studies import reenact_figure

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "scenes" / "demo.toml"
SMALL_RUN = dict(train_count=8, test_count=8)


def scene_with_report(tmp_path: Path, value: float, note: str = "", name: str = "tiny") -> Path:
    """The demo scene with a reported figure, written to ``tmp_path/<name>.toml``."""
    text = DEMO.read_text()
    start, end = text.index("[reported]"), text.index("[stimuli]")
    report = (f'[reported]\nsource = "a test"\nconditions = "the demo machine"\nvalue = {value}\n'
              f'note = "{note}"\n\n')
    path = tmp_path / f"{name}.toml"
    path.write_text(text[:start] + report + text[end:])
    return path


def test_band_of_a_value_and_of_a_lower_bound():
    assert band(Reported(value=1.0)) == (0.95, 1.0)
    assert band(Reported(value=0.9), 0.1) == pytest.approx((0.8, 1.0))
    assert band(Reported(value=0.85)) == pytest.approx((0.80, 0.90))
    assert band(Reported(value=0.8, note="reported as more than 80 %")) == (0.8, 1.0)
    with pytest.raises(ValueError, match="no figure"):
        band(Reported())


@pytest.mark.parametrize("mean, low, high, expected", [
    (0.97, 0.95, 0.99, "within"),
    (0.80, 0.75, 0.85, "OUT OF BAND"),          # interval entirely below the band
    (0.93, 0.90, 0.96, "unclear"),              # mean below, interval reaches in
    (0.93, math.nan, math.nan, "OUT OF BAND"),  # one seed: the mean alone decides
    (0.95, 0.90, 1.00, "within"),               # on the edge counts as within
])
def test_verdict(mean, low, high, expected):
    assert verdict(mean, low, high, (0.95, 1.0)) == expected


def constructed(accuracies, reported=1.0, digital=None, ideal=None, train=1.0, digital_train=1.0, ls=1.0,
                long=1.0, machine="mark1", reading=None, scored="new") -> SceneResult:
    digital = accuracies if digital is None else digital
    ideal = digital if ideal is None else ideal
    recs = [{"scene_file": "made_up.toml", "seed": i, "train_cards": 20, "test_cards": 200,
             "test_accuracy": a, "train_accuracy": train, "machine_time_s": 600.0,
             "alt_test_accuracy": None, "alt_train_accuracy": None,
             "digital_test_accuracy": b, "digital_train_accuracy": digital_train,
             "ideal_test_accuracy": c, "ideal_train_accuracy": 1.0, "ls_train_accuracy": ls,
             "long_train_accuracy": long, "long_epochs": 200, "wall_time_s": 0.1,
             "seed_train": 1, "seed_test": 2, "seed_machine": 3}
            for i, (a, b, c) in enumerate(zip(accuracies, digital, ideal))]
    rep = Reported(source="a source", conditions="made up", value=reported, machine=machine, reading=reading,
                   scored=scored)
    return SceneResult(file="made_up.toml", name="made up", reported=vars(rep), band=band(rep),
                       lower_bound=False, conditions={"a_units": 512, "train_cards": 20, "test_cards": 200,
                                                      "epochs": 10, "preset": "MARK_I", "machine": "Mark I",
                                                      "alt": None}, records=recs)


def test_a_result_outside_its_band_is_flagged_and_explained():
    miss = constructed([0.70, 0.72, 0.71, 0.69], digital=[0.90, 0.91, 0.92, 0.90])
    hit = constructed([0.96, 0.97, 0.99, 1.0])
    s = miss.summary()
    assert s["verdict"] == "OUT OF BAND" and s["meeting"] == 0.0 and s["primary"] == "analog"
    # the paired difference's interval excludes 0: the rack's cost is claimed, with its interval
    assert "the rack costs 20.3 points [95 %: 18.7, 21.8]" in s["explanation"]
    assert hit.summary()["verdict"] == "within" and hit.summary()["explanation"] == ""
    assert hit.summary()["meeting"] == 1.0
    result = Reenactment(scenes=[miss, hit], seeds=[0, 1, 2, 3], tolerance=0.05)
    page = _reenact_markdown(result, figure="x.png", command="mark1 reenact --seeds 4")
    assert "**OUT OF BAND**" in page and "1 of 2 scenes within band" in page
    assert "mark1 reenact --seeds 4" in page and "What may explain a miss" in page
    assert "mark1-512-split" in page                  # the best reading, said on the page
    assert "1 within band, 1 out of band" in result.table()


def test_explanations_are_checked_against_measurements():
    # no measured cost: the paired interval reaches 0, so the rack is not blamed
    same = constructed([0.70, 0.75, 0.71, 0.69], digital=[0.72, 0.73, 0.71, 0.70]).summary()
    assert "no measured cost of the rack" in same["explanation"] and "rack costs" not in same["explanation"]
    # "not separable" only when least squares and the long run both fall short in every seed
    inseparable = constructed([0.70, 0.72, 0.71, 0.69], train=0.8, ls=0.9, long=0.95).summary()
    assert "not separable on this φ" in inseparable["explanation"]
    separable = constructed([0.70, 0.72, 0.71, 0.69], train=0.8, ls=1.0, long=0.9).summary()
    assert "not separable" not in separable["explanation"]
    assert "φ separates them in every seed" in separable["explanation"]
    above = constructed([0.9, 0.92, 0.91], reported=0.7).summary()
    assert above["verdict"] == "OUT OF BAND" and "above the band" in above["explanation"]


def test_a_report_is_judged_on_the_machine_that_made_it():
    # an IBM 704 report: the verdict is the ideal perceptron's, the analog machine is shown beside it
    r = constructed([0.60, 0.62, 0.61], ideal=[0.99, 1.0, 0.98], machine="ibm704", reading="ibm704").summary()
    assert r["primary"] == "IBM 704" and r["verdict"] == r["ideal_verdict"] == "within"
    assert r["analog_verdict"] == "OUT OF BAND" and r["verdict"] == "within"
    # recall: scored on the training cards
    rec = constructed([0.3, 0.3, 0.3], train=1.0, scored="recall").summary()
    assert rec["scored"] == "train" and rec["verdict"] == "within"
    # a report without a number has the project's band
    assert band(Reported(expect="learned")) == (0.9, 1.0)
    assert band(Reported(expect="chance")) == (0.4, 0.6)


def test_catalog_is_every_shipped_scene_with_a_report_to_judge():
    assert all(load_scene(f).reported.value is not None for f in catalog())   # what the command line runs
    files = catalog(expected=True)
    names = {f.name for f in files}
    assert {"left_right_marks.toml", "parity.toml", "parity_points.toml", "connectedness.toml"} <= names
    assert all(load_scene(f).reported.value is not None or load_scene(f).reported.expect for f in files)
    assert DEMO not in files


def test_reenact_writes_the_page_and_resumes(tmp_path, monkeypatch):
    a = scene_with_report(tmp_path, 0.99, name="a")
    b = scene_with_report(tmp_path, 0.5, note="at least half", name="b")
    out = tmp_path / "out"
    first = reenact([a, b], seeds=2, out=out, figure=reenact_figure, **SMALL_RUN)
    assert [sc.lower_bound for sc in first.scenes] == [False, True]
    rows = list(csv.DictReader(open(out / "reenact.csv", newline="")))
    assert [(Path(r["scene_file"]).name, r["seed"]) for r in rows] == [("a.toml", "0"), ("a.toml", "1"),
                                                                       ("b.toml", "0"), ("b.toml", "1")]
    page = (out / "REENACTMENT.md").read_text()
    assert "reenactment.png" in page and "a.toml" in page
    with Image.open(out / "reenactment.png") as im:
        assert im.size[0] > 300
    (out / "jobs" / "b-seed-0001.json").unlink()
    calls = []
    real = reenact_mod._reenact_job

    def counting(*args):
        calls.append((Path(args[0]).name, args[1]))
        return real(*args)

    monkeypatch.setattr(reenact_mod, "_reenact_job", counting)
    again = reenact([a, b], seeds=2, out=out, resume=True, **SMALL_RUN)
    assert calls == [("b.toml", 1)]
    assert again.rows() == first.rows()
    # an edited scene is run again
    a.write_text(a.read_text().replace("value = 0.99", "value = 0.98"))
    calls.clear()
    reenact([a, b], seeds=2, out=out, resume=True, **SMALL_RUN)
    assert len(calls) == 4


def test_a_scene_without_a_figure_is_refused():
    with pytest.raises(ValueError, match="no value and no expect"):
        reenact([DEMO], seeds=1)


def test_cli_reenact(tmp_path, capsys):
    a = scene_with_report(tmp_path, 0.99, name="a")
    page = tmp_path / "docs" / "PAGE.md"
    status = cli.main(["reenact", str(a), "--seeds", "2", "--workers", "1", "--train-count", "8",
                       "--test-count", "8", "--out", str(tmp_path / "out"), "--page", str(page)])
    assert status == 0
    assert "within band" in capsys.readouterr().out
    assert page.is_file() and (tmp_path / "docs" / "page.png").is_file()
    status = cli.main(["reenact", str(DEMO), "--seeds", "1", "--out", str(tmp_path / "bad")])
    err = capsys.readouterr().err
    assert status == 2 and "demo.toml" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "bad").exists()
