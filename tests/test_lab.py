"""The lab: compare, resume, executors, learning curves, ablation, their figures and commands.

Every test runs on a tiny scene written here (a few cards, the SMALL machine, few
epochs), so the whole file stays within seconds.
"""

from __future__ import annotations

import csv
import json
from concurrent.futures import ProcessPoolExecutor

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402

import mark1.lab._ablate as ab  # noqa: E402
import mark1.lab._compare as cp  # noqa: E402
import mark1.lab._curves as cu  # noqa: E402
import mark1.lab.runner as runner  # noqa: E402
from mark1.cli import _build_parser  # noqa: E402
from mark1.exceptions import InputError, UsageError  # noqa: E402
from mark1.stats import difference_interval, pilot_seeds  # noqa: E402
from mark1.machine.energy import energy_fields  # noqa: E402
from mark1.machine.mark_i import MarkI  # noqa: E402
from mark1.viz.studies import ablation_figure, comparison_figure, learning_curves_figure  # noqa: E402
from mark1.stimuli.scenes import load_scene  # noqa: E402
from mark1.specs import NON_IDEALITIES  # noqa: E402

TINY = """
name = "Tiny X vs E"

[reported]
source = "a made-up report for the tests"
conditions = "SMALL machine, 8 cards"
value = 0.875
note = "not historical"

[stimuli]
source = "characters"
classes = ["X", "E"]
size = 40

[stimuli.jitter]
shift = 0.05

[train]
count = 8

[test]
count = 12

[machine]
preset = "SMALL"

[schedule]
epochs = 4
order = "cyclic"
rule = "alpha"
"""


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return load_scene(path)


def without_wall_time(records):
    """Lab records without their wall time, the one field a rerun may change (shared by the lab tests)."""
    return [{k: v for k, v in r.items() if k != "wall_time_s"} for r in records]


def _seeds(i):
    from mark1.stimuli.cards import experiment_seeds
    return experiment_seeds(i)


# ----------------------------------------------------------------------------------------
# compare


def test_compare_all_learners_rows_files_and_report(tiny, tmp_path):
    out = tmp_path / "cmp"
    comp = cp.compare(tiny, seeds=2, out=out, figure=comparison_figure)
    assert comp.learners == list(cp.LEARNERS)
    assert len(comp.records) == len(cp.LEARNERS) * 2
    assert {(r["learner"], r["seed"]) for r in comp.records} == {(n, s) for n in cp.LEARNERS for s in (0, 1)}
    for r in comp.records:
        assert 0.0 <= r["test_accuracy"] <= 1.0 and 0.0 <= r["train_accuracy"] <= 1.0
        assert (r["seed_train"], r["seed_test"], r["seed_machine"]) == _seeds(r["seed"])
        if r["learner"] in ("mark1", "digital", "ideal"):
            assert r["machine_time_s"] > 0 and 0 <= r["cards_seen"] <= 4 * 8
        else:
            assert r["machine_time_s"] is None and r["cards_seen"] is None
    summ = comp.summary()
    assert set(summ) == set(cp.LEARNERS)
    for s in summ.values():
        assert s["n"] == 2 and 0 <= s["min"] <= s["mean"] <= s["max"] <= 1
    assert "mark1" in comp.table() and "87.5 %" in comp.table()

    with open(out / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(comp.records)
    assert {r["learner"] for r in rows} == set(cp.LEARNERS)
    data = json.loads((out / "results.json").read_text())
    assert data["records"] == comp.records and set(data["summary"]) == set(cp.LEARNERS)
    report = (out / "report.md").read_text()
    assert "87.5 %" in report and "a made-up report for the tests" in report
    assert "](accuracy.png)" in report and (out / "accuracy.png").stat().st_size > 0
    assert sorted(p.name for p in (out / "seeds").iterdir()) == ["seed-0000.json", "seed-0001.json"]
    assert not list(out.rglob("*.tmp"))


def test_the_lab_draws_only_the_figure_it_is_given(tiny, tmp_path):
    """No figure function, no figure: the report then shows none; a figure needs a folder."""
    out = tmp_path / "cmp"
    cp.compare(tiny, seeds=1, learners=["ideal"], out=out)
    assert not list(out.glob("*.png")) and "](accuracy.png)" not in (out / "report.md").read_text()
    drawn = []
    cp.compare(tiny, seeds=1, learners=["ideal"], out=out, resume=True,
               figure=lambda comp, out: drawn.append((comp.learners, out)))
    assert drawn == [(["ideal"], out / "accuracy.png")] and "](accuracy.png)" in (out / "report.md").read_text()
    for study in (cp.compare, ab.ablate, cu.learning_curves):
        with pytest.raises(ValueError, match="figure: needs out"):
            study(tiny, seeds=1, figure=comparison_figure)


def test_machine_learners_are_direct_fits_on_the_same_seeds(tiny):
    comp = cp.compare(tiny, seeds=[3], learners=["ideal", "mark1", "digital"])
    s_train, s_test, s_machine = _seeds(3)
    train, test = tiny.stimuli("train", s_train), tiny.stimuli("test", s_test)
    spec = tiny.machine_spec()
    for name, sp in (("mark1", spec), ("digital", spec.digital()), ("ideal", spec.ideal())):
        m = MarkI(spec=sp, seed=s_machine).fit(train.cards, train.labels, epochs=4)
        train_acc = m.score(train.cards, train.labels)
        rec = next(r for r in comp.records if r["learner"] == name)
        assert rec["train_accuracy"] == train_acc
        assert rec["test_accuracy"] == m.score(test.cards, test.labels)
        assert rec["machine_time_s"] == m.machine_time_
        # the energy of learning is G's count of the same run (mark1.machine.energy)
        assert (rec["energy_j"], rec["energy_per_correction_j"]) == tuple(
            energy_fields(m)[k] for k in ("energy_j", "energy_per_correction_j"))
    assert "energy of learning" in comp.table()


def test_baselines_learn_from_the_analog_machines_own_s_units(tiny):
    """features="analog": the S-units mark1 itself senses; "ideal": those of spec.ideal()."""
    from mark1 import linear_model as baselines
    s_train, s_test, s_machine = _seeds(1)
    train, test = tiny.stimuli("train", s_train), tiny.stimuli("test", s_test)
    spec = tiny.machine_spec()
    analog = MarkI(spec=spec, seed=s_machine)
    np.testing.assert_array_equal(MarkI(spec=spec.digital(), seed=s_machine).sense(train.cards),
                                  analog.sense(train.cards))
    for features, sp in (("analog", spec), ("ideal", spec.ideal())):
        eyes = MarkI(spec=sp, seed=s_machine)
        x_tr = eyes.associate(eyes.sense(train.cards)).astype(float)
        x_te = eyes.associate(eyes.sense(test.cards)).astype(float)
        clf = baselines.LeastSquaresClassifier().fit(x_tr, train.labels)
        comp = cp.compare(tiny, seeds=[1], learners=["lstsq-phi"], features=features)
        assert comp.records[0]["test_accuracy"] == clf.score(x_te, test.labels)
        assert comp.config["features"] == features
    with pytest.raises(ValueError, match="features"):
        cp.compare(tiny, seeds=1, features="retina")


def test_logistic_learners_are_map_fits_with_alpha_1_and_warn_nowhere(tiny):
    """logistic-S/-phi: baselines.LogisticRegression(alpha=1) on the analog S and phi."""
    import warnings

    from mark1 import linear_model as baselines
    s_train, s_test, s_machine = _seeds(0)
    train, test = tiny.stimuli("train", s_train), tiny.stimuli("test", s_test)
    eyes = MarkI(spec=tiny.machine_spec().digital(), seed=s_machine)
    s_tr, s_te = eyes.sense(train.cards), eyes.sense(test.cards)
    feats = {"S": (s_tr.astype(float), s_te.astype(float)),
             "phi": (eyes.associate(s_tr).astype(float), eyes.associate(s_te).astype(float))}
    with warnings.catch_warnings():
        warnings.simplefilter("error")                     # compare records what the fit did instead
        comp = cp.compare(tiny, seeds=[0], learners=["logistic-S", "logistic-phi"])
    for rec in comp.records:
        x_tr, x_te = feats[rec["learner"].split("-")[1]]
        clf = baselines.LogisticRegression(alpha=1.0).fit(x_tr, train.labels)
        assert rec["test_accuracy"] == clf.score(x_te, test.labels)
        assert rec["train_accuracy"] == clf.score(x_tr, train.labels)
        assert rec["error"] is None
    # why the prior: 8 binary cards in 400 S-units are separable, maximum likelihood diverges
    with pytest.warns(baselines.SeparableDataWarning):
        baselines.LogisticRegression().fit(feats["S"][0], train.labels)
    line = cp.describe_learner("logistic-S")
    assert "alpha=1" in line and "C=1" in line and "separable" in line and "\n" not in line
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", baselines.ConvergenceWarning)
        stopped = baselines.LogisticRegression(alpha=1.0, max_iter=1).fit(feats["phi"][0], train.labels)
    assert cp._fit_note(stopped) == "not converged in 1 Newton steps"


def test_every_learner_is_named_apart_in_the_table(tiny):
    comp = cp.compare(tiny, seeds=1, learners=["mark1", "digital", "ideal", "gauss-S"])
    text = comp.table()
    lines = {name: cp.describe_learner(name) for name in comp.learners}
    assert len(set(lines.values())) == len(lines)
    for line in lines.values():
        assert line in text
    assert "spec.digital()" in text and "spec.ideal()" in text


def test_process_pool_gives_the_serial_results(tiny):
    learners = ["mark1", "ideal", "perceptron-S", "gauss-phi"]
    serial = cp.compare(tiny, seeds=2, learners=learners)
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = cp.compare(tiny, seeds=2, learners=learners, executor=pool)
    assert len(serial.records) == 8
    assert without_wall_time(pooled.records) == without_wall_time(serial.records)
    with runner._process_pool(2) as pool:                  # the CLI's pool: spawned, BLAS single-threaded
        spawned = cp.compare(tiny, seeds=2, learners=learners, executor=pool)
    assert without_wall_time(spawned.records) == without_wall_time(serial.records)


def _second_thread() -> bool:
    from mark1._utils.speed import second_thread
    return second_thread()


def test_pool_workers_train_without_a_sensing_thread():
    """The CLI's pool fills the cores with workers: none starts a sensing thread beside its
    training (a second thread each would share the same cores); this process still may."""
    with runner._process_pool(2) as pool:
        assert pool.submit(_second_thread).result() is False
    from mark1._utils import speed as _speed
    assert _speed.THREADS


def test_resume_finishes_like_an_uninterrupted_run(tiny, tmp_path, monkeypatch):
    learners = ["mark1", "ideal", "lstsq-S"]
    out = tmp_path / "run"
    cp.compare(tiny, seeds=2, learners=learners, out=out)          # "interrupted" after 2 of 3
    mtimes = {p.name: p.stat().st_mtime_ns for p in (out / "seeds").iterdir()}
    computed = []
    real = cp._run_seed

    def counting(scene_ref, seed, *args):
        computed.append(seed)
        return real(scene_ref, seed, *args)

    monkeypatch.setattr(cp, "_run_seed", counting)
    resumed = cp.compare(tiny, seeds=3, learners=learners, out=out, resume=True)
    assert computed == [2]
    assert {p.name: p.stat().st_mtime_ns for p in (out / "seeds").iterdir() if p.name in mtimes} == mtimes

    fresh = cp.compare(tiny, seeds=3, learners=learners, out=tmp_path / "fresh")
    assert without_wall_time(resumed.records) == without_wall_time(fresh.records)
    a = json.loads((out / "results.json").read_text())
    b = json.loads((tmp_path / "fresh" / "results.json").read_text())
    assert without_wall_time(a["records"]) == without_wall_time(b["records"])


def test_resume_recomputes_a_broken_or_foreign_record(tiny, tmp_path, monkeypatch):
    out = tmp_path / "run"
    first = cp.compare(tiny, seeds=2, learners=["ideal"], out=out)
    (out / "seeds" / "seed-0001.json").write_text('{"seed": 1, "resu')        # cut off mid-write
    computed = []
    real = cp._run_seed
    monkeypatch.setattr(cp, "_run_seed", lambda ref, seed, *a: computed.append(seed) or real(ref, seed, *a))
    again = cp.compare(tiny, seeds=2, learners=["ideal"], out=out, resume=True)
    assert computed == [1]
    assert without_wall_time(again.records) == without_wall_time(first.records)
    computed.clear()
    cp.compare(tiny, seeds=2, learners=["ideal", "lstsq-S"], out=out, resume=True)   # other learners
    assert computed == [0, 1]


def test_unknown_learner_names_it_and_the_known_ones(tiny):
    with pytest.raises(ValueError, match="'lstsq-X'") as err:
        cp.compare(tiny, seeds=1, learners=["ideal", "lstsq-X"])
    for name in cp.LEARNERS:
        assert name in str(err.value)
    with pytest.raises(ValueError, match="seeds"):
        cp.compare(tiny, seeds=0)
    with pytest.raises(ValueError, match="resume"):
        cp.compare(tiny, seeds=1, resume=True)


def test_cards_to_final_accuracy():
    def hist(correct):
        h = np.zeros(len(correct), dtype=[("correct", bool)])
        h["correct"] = correct
        return h

    # 4 cards: the last mistake at presentation 5 (0-based), all right after it
    h = hist([0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1])
    assert cp._cards_to_final_accuracy(h, 4, 1.0) == 6
    assert cp._cards_to_final_accuracy(h, 4, 0.75) == 1          # window 1..4 holds 3 of 4
    assert cp._cards_to_final_accuracy(h, 4, 1.0 + 1e-9) == 12   # never: everything presented
    assert cp._cards_to_final_accuracy(hist([1, 1]), 4, 1.0) == 2


# ----------------------------------------------------------------------------------------
# learning curves


def test_learning_curves_shapes_monotone_and_exact(tiny):
    curves = cu.learning_curves(tiny, seeds=2, points=3)
    assert curves.epochs.tolist() == [1, 2, 4]
    assert curves.cards.tolist() == [8, 16, 32]
    assert curves.variants == ["analog", "ideal"]
    for v in curves.variants:
        for arr in (curves.accuracy[v], curves.train_accuracy[v], curves.machine_hours[v]):
            assert arr.shape == (2, 3)
        assert np.all((curves.accuracy[v] >= 0) & (curves.accuracy[v] <= 1))
        assert np.all(np.diff(curves.machine_hours[v], axis=1) > 0)
    # the last checkpoint is the scene's full schedule: the same machines as compare's
    comp = cp.compare(tiny, seeds=2, learners=["mark1", "ideal"])
    for v, name in (("analog", "mark1"), ("ideal", "ideal")):
        ref = [r for r in comp.records if r["learner"] == name]
        assert curves.accuracy[v][:, -1].tolist() == [r["test_accuracy"] for r in ref]
        assert (curves.machine_hours[v][:, -1] * 3600).tolist() == pytest.approx([r["machine_time_s"] for r in ref])


def test_a_checkpoint_is_the_full_run_stopped_there(tiny):
    s_train, _, s_machine = _seeds(0)
    train = tiny.stimuli("train", s_train)
    for order in ("cyclic", "shuffled"):
        full = MarkI(spec=tiny.machine_spec(), seed=s_machine).fit(train.cards, train.labels, epochs=4,
                                                                   order=order)
        part = MarkI(spec=tiny.machine_spec(), seed=s_machine).fit(train.cards, train.labels, epochs=2,
                                                                   order=order)
        n = len(part.history_)
        for f in full.history_.dtype.names:
            np.testing.assert_array_equal(part.history_[f], full.history_[f][:n])


# ----------------------------------------------------------------------------------------
# ablation


def test_ablate_rows_references_and_files(tiny, tmp_path):
    out = tmp_path / "abl"
    result = ab.ablate(tiny, seeds=1, out=out, figure=ablation_figure)
    spec = tiny.machine_spec()
    expected = [n for n in NON_IDEALITIES if spec.is_on(n)]
    if "ratchet" not in expected:
        expected.append("ratchet")
    assert result.non_idealities == expected
    variants = [r["variant"] for r in result.rows]
    assert variants[:2] == ["full", "ideal"]
    assert variants[2:] == [f"{k}:{n}" for n in expected for k in ("on", "off")]
    assert len(variants) == len(set(variants))
    for r in result.rows:
        assert r["n"] == 1 and 0 <= r["test_mean"] <= 1 and r["machine_time_h_mean"] > 0

    s_train, s_test, s_machine = _seeds(0)
    train, test = tiny.stimuli("train", s_train), tiny.stimuli("test", s_test)
    for name, sp in (("ideal", spec.ideal()), ("full", spec), ("on:backlash", spec.only("backlash"))):
        m = MarkI(spec=sp, seed=s_machine).fit(train.cards, train.labels, epochs=4)
        m.score(train.cards, train.labels)
        assert result.row(name)["test_mean"] == m.score(test.cards, test.labels), name
        assert result.row(name)["energy_j"] == [energy_fields(m)["energy_j"]], name
    assert "energy of learning" in result.table()
    # the continuous machine without the ratchet is the full machine itself: reused, not rerun
    assert result.row("off:ratchet")["same_as"] == "full"
    assert result.row("off:ratchet")["test_accuracy"] == result.row("full")["test_accuracy"]

    with open(out / "ablation.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["variant"] for r in rows] == variants
    assert json.loads((out / "ablation.json").read_text())["non_idealities"] == expected
    assert (out / "ablation.png").stat().st_size > 0
    assert "ratchet" in result.table()
    ax = ablation_figure(result).axes[0]                     # the figure draws the table's costs
    for n in expected:
        for k in ("on", "off"):
            assert list(_mark(ax, f"{k}:{n}").get_xdata()) == [result.row(f"{k}:{n}")["cost_points"]]


# ----------------------------------------------------------------------------------------
# figures


def _fake_ablation(time_changes=False, seeds=10):
    """An Ablation built as ``ab.ablate`` builds one, from made-up per-seed results (``seeds`` of them,
    10 by default: the method's minimum for intervals)."""
    hour = 3600.0
    wobble = np.array([0.01, -0.01, 0.0, 0.005, -0.005, 0.01, -0.01, 0.0, 0.005, -0.005])[:seeds]
    full, ideal = 0.90 + wobble, 0.96 + wobble[::-1]
    small = np.array([0.01, -0.01, 0.02, -0.02, 0.0, 0.01, -0.01, 0.02, -0.02, 0.0])[:seeds]
    acc = {"full": full, "ideal": ideal,
           "on:backlash": ideal - 0.04 + 0.5 * small, "off:backlash": full + 0.05 + 0.5 * small,   # costs points
           "on:decay": ideal.copy(), "off:decay": full.copy(),                                       # exactly 0
           "on:lens": ideal + small, "off:lens": full - 0.04 + 0.5 * small}                        # null; gains
    acc = {k: [float(x) for x in v] for k, v in acc.items()}
    times = {v: [2 * hour] * seeds if v == "full" or v.startswith("off") else [hour] * seeds for v in acc}
    if time_changes:
        times["on:backlash"] = [hour + 72 * k for k in range(seeds)]    # it adds 0.09 h on average
        times["off:backlash"] = [2 * hour - 360] * seeds                # and 0.1 h to the full machine
    names = ["backlash", "decay", "lens"]
    rows = []
    for v in acc:
        kind = "reference" if ":" not in v else "on_alone" if v.startswith("on") else "off_alone"
        rows.append(dict(variant=v, kind=kind, non_ideality=v.split(":")[1] if ":" in v else None,
                         reference={"on_alone": "ideal", "off_alone": "full"}.get(kind),
                         test_mean=float(np.mean(acc[v])), test_std=float(np.std(acc[v], ddof=1)), n=seeds,
                         machine_time_h_mean=float(np.mean(times[v])) / hour, machine_time_h_std=0.0,
                         test_accuracy=acc[v], machine_time_s=times[v], same_as=None))
    ab._arm_statistics(rows)
    return ab.Ablation(scene="fake", seeds=list(range(seeds)), rows=rows, non_idealities=names)


def _mark(ax, gid):
    """The line of ``ax`` with this gid (the figure tags each arm's mark and interval)."""
    lines = [ln for ln in ax.lines if ln.get_gid() == gid]
    assert len(lines) == 1, gid
    return lines[0]


def test_ablation_figure_draws_the_tables_costs_and_verdicts(tmp_path):
    result = _fake_ablation()
    verdicts = {r["verdict"] for r in result.rows if "verdict" in r}
    assert verdicts == {"cost", "gain", "null", "zero"}         # the fixture covers every verdict
    fig = ablation_figure(result, out=tmp_path / "a.png")
    assert isinstance(fig, Figure) and len(fig.axes) == 1      # no machine time changes: no time panel
    assert "machine time the same" in fig.get_suptitle()
    ax = fig.axes[0]
    assert [ln for ln in ax.lines if list(ln.get_xdata()) == [0.0, 0.0]]    # the zero line
    for n in result.non_idealities:
        for prefix in ("on", "off"):
            r = result.row(f"{prefix}:{n}")
            mark = _mark(ax, f"{prefix}:{n}")
            assert list(mark.get_xdata()) == [r["cost_points"]]              # the table's cost, same sign
            if r["verdict"] == "zero":
                assert mark.get_marker() == "x" and r["cost_points"] == 0.0
                assert not [ln for ln in ax.lines if ln.get_gid() == f"{prefix}:{n}:interval"]
                continue
            interval = _mark(ax, f"{prefix}:{n}:interval")
            assert list(interval.get_xdata()) == [r["low"], r["high"]]          # the Holm-adjusted interval
            assert r["low"] <= r["raw_low"] and r["raw_high"] <= r["high"]      # wider than the raw one
            assert -100.0 <= r["low"] <= r["high"] <= 100.0
            hollow = mark.get_markerfacecolor() in ("white", "w", (1.0, 1.0, 1.0, 1.0))
            assert hollow == (r["verdict"] == "null"), (n, prefix, r["verdict"])
            # the "alone on" mark sits above the "alone off" mark of the same row
        assert _mark(ax, f"on:{n}").get_ydata()[0] > _mark(ax, f"off:{n}").get_ydata()[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["decay", "lens", "backlash"]             # by the larger cost, costliest on top
    img = Image.open(tmp_path / "a.png")
    assert img.width >= 1000
    assert not [t for t in ax.texts if "too few seeds" in t.get_text()]


def test_ablation_figure_with_too_few_seeds_draws_no_interval_and_says_so():
    result = _fake_ablation(seeds=3)
    assert {r["verdict"] for r in result.rows if "verdict" in r} == {"few", "zero"}
    ax = ablation_figure(result).axes[0]
    assert not [ln for ln in ax.lines if (ln.get_gid() or "").endswith(":interval")]
    assert [t for t in ax.texts if "too few seeds (n = 3) for an interval" in t.get_text()]
    for prefix, n in (("on", "backlash"), ("off", "lens")):
        assert _mark(ax, f"{prefix}:{n}").get_markerfacecolor() in ("white", "w", (1.0, 1.0, 1.0, 1.0))


def test_ablation_figure_time_panel_only_where_time_changes():
    result = _fake_ablation(time_changes=True)
    fig = ablation_figure(result)
    assert len(fig.axes) == 2
    ax_time = fig.axes[1]
    # one sign convention: time added by it, (ideal + it) - ideal and full - (full - it); 0.1 h is drawn
    # in min, the unit the terminal writes a duration of that size in
    assert ax_time.get_xlabel() == "machine time added by it (min)"
    assert _mark(ax_time, "time:on:backlash").get_xdata()[0] == pytest.approx(5.4)
    assert _mark(ax_time, "time:off:backlash").get_xdata()[0] == pytest.approx(6.0)
    lo, hi = _mark(ax_time, "time:on:backlash:interval").get_xdata()
    assert lo < 5.4 < hi
    assert not [ln for ln in ax_time.lines if ln.get_gid() and "decay" in ln.get_gid()]    # same time: no mark


def test_learning_curves_figure_two_panels_two_lines_each():
    rng = np.random.default_rng(0)
    acc = {v: rng.uniform(0.5, 1.0, size=(10, 4)) for v in ("analog", "ideal")}
    hours = {v: np.cumsum(rng.uniform(0.1, 1.0, size=(10, 4)), axis=1) for v in ("analog", "ideal")}
    curves = cu.LearningCurves(scene="fake", seeds=list(range(10)), epochs=np.arange(1, 5),
                               cards=np.arange(1, 5) * 10, accuracy=acc, train_accuracy=acc,
                               machine_hours=hours, reported=None)
    fig = learning_curves_figure(curves)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    for ax in fig.axes:
        assert len(ax.lines) == 2                  # analog and ideal means
        assert len(ax.collections) == 2            # their bands: the pointwise intervals
        band = next(c for c in ax.collections if c.get_gid() == "interval:analog")
        ys = np.concatenate([p.vertices[:, 1] for p in band.get_paths()])
        assert 0.0 <= ys.min() and ys.max() <= 100.0
    iv = curves.interval("analog", 2)
    assert iv.low <= np.mean(acc["analog"][:, 2]) <= iv.high
    curves.reported = 0.9
    fig = learning_curves_figure(curves)
    assert all(len(ax.lines) == 3 for ax in fig.axes)
    # three seeds: the seeds as dots, no band, and the words
    few = cu.LearningCurves(scene="fake", seeds=[0, 1, 2], epochs=np.arange(1, 5), cards=np.arange(1, 5) * 10,
                            accuracy={v: a[:3] for v, a in acc.items()}, train_accuracy=acc,
                            machine_hours={v: h[:3] for v, h in hours.items()}, reported=None)
    fig = learning_curves_figure(few)
    assert "too few seeds (n = 3) for an interval" in fig.get_suptitle()
    assert not [c for ax in fig.axes for c in ax.collections if (c.get_gid() or "").startswith("interval")]
    assert "too few seeds (n = 3) for an interval: no interval and no verdict" in few.table()


def test_comparison_figure_one_row_per_learner(tiny):
    comp = cp.compare(tiny, seeds=2, learners=["mark1", "ideal", "lstsq-S"])
    fig = comparison_figure(comp)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["lstsq-S", "ideal", "mark1"]
    assert any(line.get_linestyle() == "--" for line in ax.lines)   # the reported figure


# ----------------------------------------------------------------------------------------
# commands


def _parser():
    return _build_parser()


def test_compare_and_ablate_commands(tiny, tmp_path, capsys):
    parser = _parser()
    out = tmp_path / "c"
    args = parser.parse_args(["compare", tiny.path, "--seeds", "1", "--workers", "1", "--out", str(out),
                              "--learners", "ideal,lstsq-phi"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "ideal" in text and "lstsq-phi" in text and "87.5 %" in text
    assert (out / "results.csv").exists() and (out / "report.md").exists() and (out / "accuracy.png").exists()

    args = parser.parse_args(["compare", tiny.path, "--seeds", "1", "--workers", "1", "--out", str(out),
                              "--learners", "ideal", "--resume", "--json"])
    assert args.func(args) == 0
    assert set(json.loads(capsys.readouterr().out)["summary"]) == {"ideal"}

    args = parser.parse_args(["ablate", tiny.path, "--seeds", "1", "--workers", "1",
                              "--out", str(tmp_path / "a"), "--train-count", "4", "--test-count", "4"])
    assert args.func(args) == 0
    assert "backlash" in capsys.readouterr().out
    assert (tmp_path / "a" / "ablation.png").exists()


def test_commands_bad_input_is_a_usage_error(tiny, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                       # the default output folder is runs/...
    parser = _parser()
    for argv, words in (
        (["compare", tiny.path, "--learners", "ideal,nope"], "nope"),
        (["compare", tiny.path, "--seeds", "0"], "--seeds"),
        (["compare", tiny.path, "--workers", "0"], "--workers"),
        (["compare", str(tmp_path / "missing.toml")], "missing.toml"),
        (["ablate", tiny.path, "--seeds", "-1"], "--seeds"),
    ):
        args = parser.parse_args(argv)
        with pytest.raises(UsageError, match=words) as err:
            args.func(args)
        assert "\n" not in str(err.value)
    assert not (tmp_path / "runs").exists()


# ----------------------------------------------------------------------------------------
# studies a reviewer accepts (issue 25): starting point, multiplicity, paired compare, cliffs


def _tiny_edited(tmp_path, **rack):
    path = tmp_path / "tiny_edited.toml"
    path.write_text(TINY + "\n[machine.overrides.rack]\n"
                    + "".join(f"{k} = {v!r}\n".replace("'", '"') for k, v in rack.items()))
    return load_scene(path)


def test_ablate_at_a_starting_point_is_the_edited_scenes_ablation(tiny, tmp_path):
    kw = dict(seeds=2, train_count=4, test_count=6)
    started = ab.ablate(tiny, at={"rack.backlash": 0.02, "rack.wiper_noise": 0.02}, **kw)
    edited = ab.ablate(_tiny_edited(tmp_path, backlash=0.02, wiper_noise=0.02), **kw)
    for a, b in zip(started.rows, edited.rows):
        assert (a["variant"], a["test_accuracy"], a["machine_time_s"]) == (b["variant"], b["test_accuracy"],
                                                                         b["machine_time_s"])
    assert started.at == {"rack.backlash": 0.02, "rack.wiper_noise": 0.02}
    assert "starting at rack.backlash=0.02, rack.wiper_noise=0.02" in started.table()
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = ab.ablate(tiny, at={"rack.backlash": 0.02, "rack.wiper_noise": 0.02}, executor=pool, **kw)
    assert [r["test_accuracy"] for r in pooled.rows] == [r["test_accuracy"] for r in started.rows]
    assert [r["machine_time_s"] for r in pooled.rows] == [r["machine_time_s"] for r in started.rows]


def test_ablation_verdicts_read_the_holm_adjusted_intervals():
    from mark1 import stats
    result = _fake_ablation()
    family = result.family()
    compared = stats.family([[c / 100 for c in r["costs"]] for r in family], (-1.0, 1.0), correction="holm")
    assert [r["p_adjusted"] for r in family] == [c.p_adjusted for c in compared]
    assert [r["p_adjusted"] for r in family] == stats.holm([r["p"] for r in family])
    for r, c in zip(family, compared):
        assert (r["low"], r["high"]) == (100 * c.interval.low, 100 * c.interval.high)
        assert r["correction"] == "holm" and r["method"] == stats.METHOD
        if r["verdict"] in ("cost", "gain"):
            assert c.decided and (r["low"] > 0 or r["high"] < 0)
        elif r["verdict"] == "null":
            assert c.decided is False and r["low"] <= 0 <= r["high"]
    text = result.table()
    head = text.splitlines()[0]
    assert f"p Holm ({len(family)} arms)" in head and "Holm-adjusted" in head and "raw" not in head
    assert "family: Holm (family-wise error) over 6 comparisons; verdicts read the adjusted intervals" in text
    assert "seeds for ±1 point:" in text and "for ±0.5 point:" in text
    assert result.to_json()["family"] == "Holm (family-wise error) over 6 comparisons"


def test_an_arm_decided_alone_but_not_in_the_family_gets_no_verdict():
    # six arms, one with a modest cost: its raw 95 % interval excludes 0, Holm's adjusted one does not
    from mark1 import stats
    base = [0.80 + 0.01 * k for k in range(10)]
    costs = [0.03, 0.0, 0.02, 0.01, 0.04, -0.01, 0.03, 0.01, 0.0, 0.02]      # p 0.015: above 0.05 / 6
    raw = stats.difference_interval(base, [b - c for b, c in zip(base, costs)], (0.0, 1.0))
    assert raw.low > 0                                          # decided alone
    rows = [dict(variant="full", kind="reference", reference=None, test_accuracy=base, machine_time_s=[1.0] * 10),
            dict(variant="ideal", kind="reference", reference=None, test_accuracy=base, machine_time_s=[1.0] * 10)]
    noise = [0.01, -0.01, 0.0, 0.005, -0.005, 0.01, -0.01, 0.0, 0.005, -0.005]
    for k in range(5):
        rows.append(dict(variant=f"on:x{k}", kind="on_alone", reference="ideal",
                         test_accuracy=[b + n * (k + 1) for b, n in zip(base, noise)], machine_time_s=[1.0] * 10))
    rows.append(dict(variant="on:modest", kind="on_alone", reference="ideal",
                     test_accuracy=[b - c for b, c in zip(base, costs)], machine_time_s=[1.0] * 10))
    ab._arm_statistics(rows)
    modest = rows[-1]
    assert modest["raw_low"] > 0 and modest["low"] <= 0 <= modest["high"] and modest["verdict"] == "null"


def test_ablation_warns_of_the_ratchet_cliff_only_past_the_increment(tiny, recwarn):
    from mark1.exceptions import CliffWarning
    kw = dict(seeds=1, train_count=4, test_count=4)
    ab.ablate(tiny, at={"rack.step": 0.02}, **kw)                # the ratchet arm's step: the increment itself
    assert not [w for w in recwarn if issubclass(w.category, CliffWarning)]
    with pytest.warns(CliffWarning, match="arm on:ratchet") as caught:
        result = ab.ablate(tiny, at={"rack.step": 0.03}, **kw)
    assert len([w for w in caught if issubclass(w.category, CliffWarning)]) == 1
    assert "arm on:ratchet (step 0.03 FS)" in result.cliff


def test_compare_gives_the_paired_analog_minus_digital_interval(tiny):
    comp = cp.compare(tiny, seeds=10, learners=["mark1", "digital", "lstsq-S"], train_count=6, test_count=12)
    acc = {(r["learner"], r["seed"]): r["test_accuracy"] for r in comp.records}
    diffs = [acc[("mark1", s)] - acc[("digital", s)] for s in range(10)]
    d = comp.paired("mark1", "digital")
    assert d["diffs"] == diffs and d["n"] == 10
    iv = difference_interval([acc[("mark1", s)] for s in range(10)], [acc[("digital", s)] for s in range(10)],
                             (0.0, 1.0))
    assert d["interval"] == iv and -1.0 <= iv.low <= iv.mean <= iv.high <= 1.0
    # the table's cell is the family's Holm-adjusted interval: two comparisons, each at least at 97.5 %
    fam = comp.family()
    assert set(fam) == {"digital", "lstsq-S"} and all(c.interval.level >= 0.975 for c in fam.values())
    member = fam["digital"]
    cell = member.interval.format(scale=100, signed=True) + ("*" if member.decided else "")
    text = comp.table()
    assert "mark1 − it (points), Holm-adjusted" in text and f"analog − digital: {cell} points over 10 seeds" in text
    assert "family: Holm (family-wise error) over the 2 learners" in text
    assert comp.to_json()["paired"]["mark1 - digital"]["interval"]["level"] == member.interval.level
    with pytest.raises(ValueError, match="learner"):
        comp.paired("mark1", "ideal")


def test_compare_with_too_few_seeds_gives_no_interval_and_no_verdict(tiny):
    comp = cp.compare(tiny, seeds=2, learners=["mark1", "digital"], train_count=6, test_count=8)
    text = comp.table()
    assert "too few seeds for an interval (fewer than 10): 1 of 1 learners (n = 2)" in text
    assert "[" not in text.split("\n")[2] and comp.family()["digital"].decided is None
    assert comp.summary()["mark1"]["interval"].too_few


def test_compare_to_a_precision_runs_the_seeds_its_pilot_fixes(tiny):
    kw = dict(learners=["mark1", "digital"], train_count=6, test_count=8)
    comp = cp.compare(tiny, seeds=10, precision=20.0, max_seeds=40, **kw)
    pilot = [r for r in comp.records if r["seed"] < 10]
    acc = {(r["learner"], r["seed"]): r["test_accuracy"] for r in pilot}
    need = pilot_seeds([[acc[("mark1", s)] - acc[("digital", s)] for s in range(10)]], 0.2, max_seeds=30)
    assert comp.pilot == list(range(10)) and comp.counted == list(range(10, 10 + need))
    assert comp.paired()["n"] == need                     # the pilot is not in the interval
    again = cp.compare(tiny, seeds=10, precision=20.0, max_seeds=40, **kw)
    def bits(records):
        return [{k: v for k, v in r.items() if k != "wall_time_s"} for r in records]
    assert bits(again.records) == bits(comp.records)      # the same seeds, the same bits
    with pytest.raises(InputError, match="pilot of at least 10 seeds"):
        cp.compare(tiny, seeds=3, precision=1.0, **kw)


def test_compare_paired_serial_equals_two_workers(tiny):
    kw = dict(seeds=3, learners=["mark1", "digital"], train_count=6, test_count=8)
    serial = cp.compare(tiny, **kw)
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = cp.compare(tiny, executor=pool, **kw)
    assert pooled.paired() == serial.paired()


def test_ablate_command_takes_at_and_refuses_a_repeated_key(tiny, tmp_path, capsys):
    parser = _parser()
    args = parser.parse_args(["ablate", tiny.path, "--seeds", "1", "--workers", "1", "--out", str(tmp_path / "a"),
                              "--train-count", "4", "--test-count", "4", "--at", "rack.backlash=0.02"])
    assert args.func(args) == 0
    assert "starting at rack.backlash=0.02" in capsys.readouterr().out
    saved = json.loads((tmp_path / "a" / "ablation.json").read_text())
    assert saved["at"] == {"rack.backlash": "0.02"}
    args = parser.parse_args(["ablate", tiny.path, "--at", "rack.backlash=0.02", "--at", "rack.backlash=0.03",
                              "--out", str(tmp_path / "b")])
    with pytest.raises(UsageError, match="--at: expected each key once") as err:
        args.func(args)
    assert "\n" not in str(err.value) and not (tmp_path / "b").exists()


@pytest.mark.slow
def test_an_ablation_to_a_precision_counts_only_the_seeds_after_its_pilot(tiny):
    # a precision of 50 points: the pilot's spread asks for no more than the method's ten new seeds
    kw = dict(train_count=4, test_count=4)
    result = ab.ablate(tiny, seeds=10, precision=50, max_seeds=40, **kw)
    assert result.pilot == list(range(10)) and result.counted == list(range(10, 20))
    plain = ab.ablate(tiny, seeds=list(range(10, 20)), **kw)
    for a, b in zip(result.rows, plain.rows):
        assert (a["variant"], a["test_accuracy"], a.get("low"), a.get("high"), a.get("verdict")) == (
            b["variant"], b["test_accuracy"], b.get("low"), b.get("high"), b.get("verdict"))
        assert len(a["pilot_test_accuracy"]) == 10                       # the pilot's runs are kept
    assert "run to a precision of ±50 points" in result.table()
    assert "after a pilot of 10" in ablation_figure(result).get_suptitle()
