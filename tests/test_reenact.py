"""mark1 reenact: the band of a report, the verdict, the page, resume, the command line.

The runs use the demo scene (SMALL machine, few cards) copied with a reported figure;
the out-of-band flag is tested on constructed records, so it does not hang on what the
machine happens to score.
"""

from __future__ import annotations

import csv
import dataclasses
import math
from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from PIL import Image

import mark1.lab._reenact as reenact_mod
from mark1 import cli
from mark1.lab import Reenactment, band, catalog, reenact, verdict
from mark1.lab._reenact import READINGS, SceneResult, _reenact_markdown, wilson
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
    # the rounding of the reported figure alone (no card count): half a unit of its last digit
    assert band(Reported(value=1.0)) == pytest.approx((0.995, 1.0))
    assert band(Reported(value=0.85)) == pytest.approx((0.845, 0.855))
    assert band(Reported(value=0.998)) == pytest.approx((0.9975, 0.9985))
    assert band(Reported(value=0.9), 0.1) == pytest.approx((0.795, 1.0))
    # then the 95 % Wilson interval on the scene's scored cards
    low, high = band(Reported(value=0.85), n_cards=208)
    assert wilson(0.845, 208)[0] == pytest.approx(low) and wilson(0.855, 208)[1] == pytest.approx(high)
    assert low < 0.80 < 0.89 < high
    assert band(Reported(value=1.0), n_cards=104) == pytest.approx((wilson(0.995, 104)[0], 1.0))
    # a lower bound: not a rounded figure, and it reaches 100 %
    assert band(Reported(value=0.8, note="reported as more than 80 %")) == (0.8, 1.0)
    assert band(Reported(value=0.8, note="more than 80 %"), n_cards=200) == (wilson(0.8, 200)[0], 1.0)
    with pytest.raises(ValueError, match="no figure"):
        band(Reported())


@pytest.mark.parametrize("p, n", [(0.0, 10), (0.5, 1), (0.85, 208), (1.0, 104), (0.3, 10_000)])
def test_wilson_interval_holds_its_proportion_and_narrows_with_cards(p, n):
    low, high = wilson(p, n)
    assert 0.0 <= low <= p <= high <= 1.0
    low4, high4 = wilson(p, 4 * n)
    assert high4 - low4 < high - low


@pytest.mark.parametrize("mean, low, high, expected", [
    (0.97, 0.95, 0.99, "within"),               # interval inside the band
    (0.95, 0.95, 1.00, "within"),               # on the edges counts as inside
    (0.80, 0.75, 0.85, "OUT OF BAND"),          # interval entirely below the band
    (0.93, 0.90, 0.96, "unclear"),              # mean below, interval reaches in
    (0.97, 0.93, 1.00, "unclear"),              # mean inside, interval reaches out: the same rule
    (0.93, math.nan, math.nan, "too few seeds"),  # no interval (below the statistics' seeds): no verdict
    (0.96, math.nan, math.nan, "too few seeds"),
])
def test_verdict(mean, low, high, expected):
    assert verdict(mean, low, high, (0.95, 1.0)) == expected


def test_the_rule_is_symmetric():
    # mirrored about the band's middle, a result gets the mirrored verdict
    b = (0.4, 0.6)
    for mean, low, high in [(0.45, 0.41, 0.49), (0.35, 0.30, 0.38), (0.39, 0.35, 0.43), (0.5, 0.38, 0.62)]:
        assert verdict(mean, low, high, b) == verdict(1 - mean, 1 - high, 1 - low, b)


def constructed(accuracies, reported=1.0, digital=None, ideal=None, train=1.0, digital_train=1.0, ls=1.0,
                long=1.0, machine="mark1", reading=None, scored="new", source="a source", name="made up",
                conditions="made up", expect=None) -> SceneResult:
    # the statistics give an interval from 10 seeds: a short list stands for itself repeated
    reps = -(-10 // len(accuracies))
    accuracies = list(accuracies) * reps
    digital = accuracies if digital is None else list(digital) * reps
    ideal = digital if ideal is None else list(ideal) * reps
    recs = [{"scene_file": f"{name.replace(' ', '_')}.toml", "seed": i, "train_cards": 20, "test_cards": 200,
             "test_accuracy": a, "train_accuracy": train, "machine_time_s": 600.0,
             "alt_test_accuracy": a, "alt_train_accuracy": train,
             "split64_test_accuracy": None, "split64_train_accuracy": None,
             "ratchet_test_accuracy": a, "ratchet_train_accuracy": train,
             "digital_test_accuracy": b, "digital_train_accuracy": digital_train,
             "ideal_test_accuracy": c, "ideal_train_accuracy": 1.0, "ls_train_accuracy": ls,
             "long_train_accuracy": long, "long_epochs": 200, "wall_time_s": 0.1,
             "seed_train": 1, "seed_test": 2, "seed_machine": 3}
            for i, (a, b, c) in enumerate(zip(accuracies, digital, ideal))]
    rep = Reported(source=source, conditions=conditions, value=reported, machine=machine, reading=reading,
                   scored=scored, expect=expect)
    return SceneResult(file=f"{name.replace(' ', '_')}.toml", name=name, reported=vars(rep), band=band(rep, 0.0, 200),
                       lower_bound=False, conditions={"a_units": 512, "train_cards": 20, "test_cards": 200,
                                                      "epochs": 10, "preset": "MARK_I", "machine": "Mark I",
                                                      "alt": None}, records=recs)


def test_a_result_outside_its_band_is_flagged_and_explained():
    miss = constructed([0.70, 0.72, 0.71, 0.69], digital=[0.90, 0.91, 0.92, 0.90])
    hit = constructed([1.0, 1.0, 0.995, 1.0])
    s = miss.summary()
    assert s["verdict"] == "OUT OF BAND" and s["meeting"] == 0.0 and s["primary"] == "analog"
    # the paired difference's interval excludes 0: the rack's cost is claimed, with its interval
    assert "the rack costs 20.3 points [95 %: 19.6, 20.8]" in s["explanation"]
    assert hit.summary()["verdict"] == "within" and hit.summary()["explanation"] == ""
    assert hit.summary()["meeting"] == 1.0
    result = Reenactment(scenes=[miss, constructed([1.0, 1.0, 0.995, 1.0], name="hit", source="b")],
                         seeds=[0, 1, 2, 3], tolerance=0.0)
    page = _reenact_markdown(result, figure="x.png", command="mark1 reenact --seeds 4")
    assert "**OUT OF BAND**" in page and "2 reports with a sourced number, each counted once" in page
    assert "mark1 reenact --seeds 4" in page and "What may explain a miss" in page
    assert "`mark1-512`" in page and "`mark1-4096`" in page   # the readings, each a column
    assert "the project's choice" in page                      # the band, labelled
    assert "1 within, 1 out of band, 0 unclear" in result.table()


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
    r = constructed([0.60, 0.62, 0.61], ideal=[1.0, 0.995, 1.0], machine="ibm704", reading="ibm704").summary()
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
    # an edited report keeps the records (its words decide the page, not the runs) ...
    a.write_text(a.read_text().replace("value = 0.99", "value = 0.98"))
    calls.clear()
    edited = reenact([a, b], seeds=2, out=out, resume=True, **SMALL_RUN)
    assert calls == [] and edited.rows()[0]["reported"] == 0.98
    # ... and a scene whose cards change is run again
    a.write_text(a.read_text().replace("shift = 0.05", "shift = 0.06"))
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
    assert "1 reports with a sourced number" in capsys.readouterr().out
    assert page.is_file() and (tmp_path / "docs" / "page.png").is_file()
    status = cli.main(["reenact", str(DEMO), "--seeds", "1", "--out", str(tmp_path / "bad")])
    err = capsys.readouterr().err
    assert status == 2 and "demo.toml" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "bad").exists()


def test_one_report_re_enacted_by_two_scenes_counts_once():
    same = dict(source="Wikipedia", conditions="500 A-units", reported=0.998)
    outline = constructed([0.999, 0.998, 0.998, 0.999], name="outline", **same)
    solid = constructed([0.90, 0.91, 0.92, 0.90], name="solid", **same)
    result = Reenactment(scenes=[outline, solid], seeds=[0, 1, 2, 3], tolerance=0.0)
    reports = result.reports()
    assert len(reports) == 1 and [r["file"] for r in reports[0]["scenes"]] == ["outline.toml", "solid.toml"]
    # the scenes disagree (within, out), so the report is unclear: neither is picked
    assert {r["verdict"] for r in reports[0]["scenes"]} == {"within", "OUT OF BAND"}
    assert reports[0]["verdict"] == "unclear" and result.headline()["sourced"] == {"within": 0, "OUT OF BAND": 0,
                                                                                    "unclear": 1}
    # under the page's earlier rule both scenes counted, the outline within
    assert result.previous_rule_headline() == "1 of 2 scenes within band, 1 out of band, 0 unclear"


def test_unsourced_figures_and_project_bands_are_counted_apart():
    scenes = [constructed([1.0, 1.0, 0.995, 1.0], name="sourced", source="Wikipedia"),
              constructed([1.0, 1.0, 0.995, 1.0], name="x vs e", source="unsourced: no source found"),
              constructed([0.5, 0.52, 0.49, 0.51], name="parity", reported=None, expect="chance",
                          source="a theorem")]
    result = Reenactment(scenes=scenes, seeds=[0, 1, 2, 3], tolerance=0.0)
    kinds = {r["name"]: r["kind"] for r in result.reports()}
    assert kinds == {"sourced": "sourced", "x vs e": "unsourced", "parity": "project band"}
    text = result.headline_text()
    assert text.startswith("1 reports with a sourced number, each counted once: 1 within")
    assert "apart, 1 figure(s) without a source found" in text and "apart, 1 scene(s) on the project's own band" in text


def test_a_verdict_whose_halves_disagree_is_unstable():
    # the first half of the seeds inside the band, the second far below it
    flip = constructed([1.0] * 10 + [0.5, 0.52, 0.5, 0.51, 0.5] * 2, name="flip").summary()
    assert flip["halves"] == ("within", "OUT OF BAND") and flip["unstable"]
    steady = constructed([1.0] * 20, name="steady").summary()
    assert steady["halves"] == ("within", "within") and not steady["unstable"]


def test_every_reading_gets_its_verdict_and_the_counted_one_is_the_scenes():
    r = constructed([0.60, 0.62, 0.61], ideal=[1.0, 0.995, 1.0], machine="not named", reading="ibm704").summary()
    assert r["primary_prefix"] == "ideal_" and r["verdict"] == r["ideal_verdict"] == "within"
    assert r["analog_verdict"] == r["alt_verdict"] == r["ratchet_verdict"] == "OUT OF BAND"
    assert r["split64_verdict"] == "" and math.isnan(r["split64_mean"])     # a reading that cannot be built
    assert [name for name, _ in READINGS.values()] == ["mark1-512", "mark1-4096", "mark1-512-split-64",
                                                         "mark1-512-ratchet", "mark1-512-bits", "ibm704"]


def test_a_report_whose_machine_is_not_named_is_counted_on_the_mark_i_and_ibm704_alike():
    both = constructed([0.60, 0.62, 0.61], ideal=[1.0, 0.995, 1.0], machine="not named")
    r = both.summary()
    assert r["counted"] == ["", "ideal_"] and r["analog_verdict"] == "OUT OF BAND"
    assert r["ideal_verdict"] == "within" and r["verdict"] == "unclear"          # the readings disagree
    agree = constructed([1.0, 0.995, 1.0], ideal=[1.0, 0.995, 1.0], machine="not named").summary()
    assert agree["verdict"] == "within"
    # far-apart binary words: the 1958 code is counted beside the Mark I reading
    assert reenact_mod._counted({"machine": "mark1", "reading": "mark1-512"}, "binary") == ["", "bits_"]
    assert reenact_mod._counted({"machine": "mark1", "reading": "mark1-512"}, "single") == [""]
    assert reenact_mod._counted({"machine": "ibm704"}, "binary") == ["ideal_"]
    assert reenact_mod._counted({"machine": "not named"}, "binary") == ["", "bits_", "ideal_"]


def test_the_record_as_one_machine_counts_the_seeds_in_band():
    # band of 1.0 on 200 cards: [0.981, 1.0]; 2 of 10 machines land in it
    sc = constructed([1.0, 0.99, 0.95, 0.94, 0.93, 0.95, 0.96, 0.90, 0.91, 0.92])
    sh = sc.share("")
    assert (sh["k"], sh["n"]) == (2, 10) and sh["low"] <= 0.2 <= sh["high"]
    assert sh["verdict"] == reenact_mod.share_verdict(sh["low"], sh["high"])
    none = constructed([0.5] * 40).share("")
    assert none["k"] == 0 and none["verdict"] == "inconsistent"        # 0 of 40: the interval below 10 %
    every = constructed([1.0] * 10).share("")
    assert every["k"] == 10 and every["verdict"] == "consistent"


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0.01, 0.5))
def test_the_share_rule_is_symmetric(a, b, t):
    low, high = min(a, b), max(a, b)
    v = reenact_mod.share_verdict(low, high, t)
    # mirrored about the threshold, consistent and inconsistent trade places
    if low > t + 1e-9:
        assert v == "consistent"
    elif high < t - 1e-9:
        assert v == "inconsistent"
    elif low < t - 1e-9 < t + 1e-9 < high:
        assert v == "unclear"


def test_a_verdict_near_the_band_edge_is_marginal():
    band_ = (0.9, 1.0)
    assert reenact_mod._marginal(0.95, 0.91, 0.99, band_, "within")       # ×√2: 0.893, past the edge
    assert not reenact_mod._marginal(0.95, 0.94, 0.96, band_, "within")
    assert not reenact_mod._marginal(0.85, 0.82, 0.88, band_, "OUT OF BAND")  # ×√2 reaches 0.892 < 0.9: still out
    assert reenact_mod._marginal(0.85, 0.81, 0.89, band_, "OUT OF BAND")  # ×√2 reaches 0.907: unclear


def test_the_seeds_a_precision_needs_and_the_family_levels():
    sc = constructed([0.80, 0.84, 0.82, 0.86, 0.78, 0.83, 0.81, 0.85, 0.79, 0.84])
    n1 = reenact_mod._seeds_needed(sc.accuracies(""), 0.01)
    n05 = reenact_mod._seeds_needed(sc.accuracies(""), 0.005)
    assert n1 is not None and n05 is not None and n05 > n1 > 10
    # Holm's step-down: the smallest p at alpha/m, the next at alpha/(m-1) while rejected, then fixed
    assert reenact_mod._holm_levels([0.001, 0.02, 0.5, None]) == pytest.approx([1 - 0.05 / 3, 1 - 0.05 / 2,
                                                                               1 - 0.05 / 1, 0.95])
    # a verdict read from the interval at its Holm level agrees with Holm's decision on its p-value
    out = constructed([0.70, 0.72, 0.71, 0.69], name="out")
    inside = constructed([1.0, 1.0, 0.995, 1.0], name="in", source="b")
    result = Reenactment(scenes=[out, inside], seeds=list(range(12)), tolerance=0.0)
    fam = result.family()
    rows = result.rows()
    for (i, p), pv, lv in zip(fam["members"], fam["p"], fam["levels"]):
        decided = rows[i][f"{p or 'analog_'}verdict"] in ("within", "OUT OF BAND")
        assert decided == (pv < 1 - lv + 1e-12)


def test_the_share_test_inverts_its_exact_interval():
    for k, n in [(0, 40), (1, 40), (8, 12), (10, 10), (6, 20)]:
        p = reenact_mod._share_p(k, n, 0.1)
        assert 0 < p < 0.5
        lo, hi = reenact_mod._proportion_iv(k, n, 1 - 1.2 * p)     # below the test's level: 0.1 outside
        assert not lo <= 0.1 <= hi
        lo, hi = reenact_mod._proportion_iv(k, n, 1 - 0.8 * p)     # above it: 0.1 inside
        assert lo <= 0.1 <= hi


def test_a_run_digest_ignores_words_and_follows_the_cards(tmp_path):
    a = scene_with_report(tmp_path, 0.99, name="a")
    from mark1.lab.runner import as_scene
    before = reenact_mod._run_digest(as_scene(a))
    a.write_text(a.read_text().replace("value = 0.99", "value = 0.5"))
    assert reenact_mod._run_digest(as_scene(a)) == before
    a.write_text(a.read_text().replace("stroke = 1.5", "stroke = 2.0"))
    assert reenact_mod._run_digest(as_scene(a)) != before


def test_what_it_would_take_changes_one_assumed_parameter_on_the_same_seed(tmp_path):
    a = scene_with_report(tmp_path, 0.99, name="a")
    base = reenact_mod._reenact_job(str(a), 0, 8, 8)
    same = reenact_mod._what_if_job(str(a), 0, "wiper_noise_x4", 8, 8)
    assert same["change"] == "wiper_noise_x4" and same["epochs"] == load_scene(a).schedule.epochs
    assert 0.0 <= same["test_accuracy"] <= 1.0 and base["seed"] == same["seed"]
    more = reenact_mod._what_if_job(str(a), 0, "passes", 8, 8)
    assert more["epochs"] == 50                        # the demo shows its cards 5 times: to the cap of 50
    from mark1 import specs
    for overrides, _, _ in reenact_mod.WHAT_IF.values():
        for key in overrides:                          # only assumed parameters move
            group, name = key.split(".")
            field_ = next(f for f in dataclasses.fields(getattr(specs.MARK_I, group)) if f.name == name)
            assert field_.metadata["status"] == "assumed"


def test_readings_of_a_two_class_scene_share_the_rack_where_the_code_uses_one_r_unit():
    from mark1 import specs
    from mark1.lab._reenact import _readings
    two = _readings(specs.MARK_I, n_units=1)
    assert two["alt_"] == "same" and two["split64_"].rack.topology == "split"
    many = _readings(specs.MARK_I, n_units=8)
    assert many["alt_"].rack.topology == "all" and many["ratchet_"].rack.drive == "ratchet"
    assert _readings(specs.MARK_I.with_overrides({"patchboard.n_associators": 500}), 1)["split64_"] is None
    assert _readings(specs.MARK_I.ideal(), 1)["alt_"] is None
    assert two["bits_"] == "same" and _readings(specs.MARK_I, 8, "binary")["bits_"].response.code == "bits"


def test_the_shipped_page_carries_each_reports_source_as_the_scene_has_it_now():
    # docs/REENACTMENT.md is generated; a source corrected in a scene must reach it (regenerate, or resume)
    page = (ROOT / "docs" / "REENACTMENT.md").read_text()
    for path in catalog(expected=True):
        rep = load_scene(path).reported
        assert f"Source: {rep.source}" in page, path.name
        assert f"Machine in the sources: {rep.machine};" in page, path.name
    assert "reports with a sourced number, each counted once" in page and "the project's choice" in page
    assert "Source: Rosenblatt, Principles of Neurodynamics" not in page
