"""The lesson page: its data is the machine's run, and it works in a real browser.

The browser test opens the page from disk in headless Chromium (Debian's ``chromium``
driven by Playwright with the system browser), steps through cards, hovers and clicks
A-units, and checks the DOM against the machine itself: the sum shown is the one in
``MarkI.fit``'s own full trace, the lit S- and A-units are those the machine counted,
and the highlighted plugs are the patch board's. It skips, saying why, only when no
browser or no Playwright can be had.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from mark1._utils.language import duration
from mark1.classroom import lesson
from mark1.machine.mark_i import MarkI
from mark1.stimuli.cards import scene_cards
from mark1.stimuli.scenes import load_scene

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scenes" / "demo.toml"


def machine_run(scene, seed, cards, epochs, spec=None):
    """The same run made by MarkI.fit itself, with its full trace."""
    train, _, seed_machine = scene_cards(scene, seed, train_count=cards)
    m = MarkI(spec=spec or scene.machine_spec(), seed=seed_machine, trace="full")
    m.fit(train.cards, train.labels, epochs=epochs, order=scene.schedule.order)
    sums = {p: d.split(";")[0].removeprefix("sums ").split() for t, e, p, d in m.trace_ if e == "R read"}
    return m, sums


@pytest.mark.parametrize("seed, overrides", [
    (0, {}), (1, {}), (2, {}),
    (0, {"rack.drivers": 2, "timing.overlap": True}),     # queued motors, reads while wipers move
    # queued moves outlast the period: each is the move of the card that commanded it
    (1, {"rack.drivers": 2, "timing.overlap": True, "rack.motor_speed": 0.05}),
    (1, {"trainer.rule": "gamma", "rack.drive": "ratchet"}),
    (2, {"rack.topology": "split", "trainer.rule": "lms"}),
    (3, {"rack.drivers": 1}),                               # the next card waits for the motors
    (0, {"rack.decay_time": float("inf")}),                 # no decay: wipers read at rest, then moved
    (1, "ideal"),
])
def test_record_is_the_machines_run(seed, overrides):
    scene = load_scene(DEMO)
    spec = scene.machine_spec().ideal() if overrides == "ideal" else scene.machine_spec().with_overrides(overrides)
    data = lesson.record(scene, seed=seed, cards=8, epochs=3, spec=spec)
    m, sums = machine_run(scene, seed, 8, 3, spec)
    hist = m.history_
    assert len(data["pres"]) == len(hist) == 24
    assert data["meta"]["mistakes_per_epoch"] == m.mistakes_per_epoch_.tolist()
    for p, (entry, row) in enumerate(zip(data["pres"], hist)):
        assert entry["sums"] == sums[p]
        assert (entry["c"], entry["y"], entry["r"], entry["ok"]) == (row["card"], row["label"], row["response"],
                                                                      row["correct"])
        assert len(entry["a"]) == row["a_active"]
        bits = np.unpackbits(np.frombuffer(bytes.fromhex(entry["s"]), np.uint8))[:400]
        assert bits.sum() == row["s_active"]
        assert len(entry["mv"]) == row["pots_moved"]
    # the wiring on the page is the machine's patch board
    conn = m.patchboard.connections
    for a, (exc, inh) in enumerate(data["wiring"]):
        assert exc == np.flatnonzero(conn[:, a] > 0).tolist()
        assert inh == np.flatnonzero(conn[:, a] < 0).tolist()


def test_recorded_moves_obey_the_rack():
    """Every recorded move: alpha's command, within the end stops, backlash only on reversal."""
    scene = load_scene(DEMO)
    data = lesson.record(scene, seed=3, cards=10, epochs=4)
    inc = data["meta"]["increment"]
    assert data["meta"]["backlash"] > 0
    moved = [mv for p in data["pres"] for mv in p["mv"]]
    assert moved
    q = data["meta"]["quantum"]
    last = {}                                   # each pot's direction of travel so far
    for unit, pot, cmd, before, after, slack, run, _ in (np.array(mv) / [1, 1, q, q, q, q, q, q] for mv in moved):
        assert abs(abs(cmd) - inc) <= 1 / q
        assert -1 <= after <= 1
        assert np.sign(after - before) in (0, np.sign(cmd))
        assert slack >= 0 and run >= slack
        reversed_ = last.get((unit, pot), np.sign(cmd)) != np.sign(cmd)
        assert (slack > 0) == reversed_
        last[unit, pot] = np.sign(cmd)
    assert any(mv[5] > 0 for mv in moved)       # the run has reversals
    # a reinforcement only on a wrong answer (alpha), and then every lit A-unit's pot plus the bias
    for p in data["pres"]:
        assert bool(p["mv"]) == (not p["ok"])
        if p["mv"]:
            assert sorted(mv[1] for mv in p["mv"]) == sorted(p["a"] + [data["meta"]["n_a"]])


def test_wipers_read_make_the_sum_without_noise():
    """With the read noise off, the wipers the page shows add up to the sum the machine read."""
    scene = load_scene(DEMO)
    spec = scene.machine_spec().with_overrides({"rack.wiper_noise": 0.0})
    data = lesson.record(scene, seed=0, cards=6, epochs=3, spec=spec)
    for p in data["pres"]:
        for clean, shown in zip(p["clean"], p["sums"]):
            assert clean == pytest.approx(float(shown), rel=6e-4, abs=1e-12)


def test_page_is_self_contained(tmp_path):
    path = lesson.build(DEMO, tmp_path, seed=0, cards=6, epochs=2, devices=False)
    html = path.read_text()
    assert not re.search(r"""(src|href)=["'](https?:)?//""", html)
    # the SVG and MathML namespaces are names, not addresses fetched
    names = ("http://www.w3.org/2000/svg", "http://www.w3.org/1998/Math/MathML")
    assert "http://" not in html.replace(names[0], "").replace(names[1], "")
    data = json.loads(re.search(r'<script id="lesson-data" type="application/json">(.*?)</script>', html,
                                re.S).group(1))
    assert len(data["pres"]) == 12


def test_package_data_is_declared():
    import fnmatch
    import tomllib
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for name in ("lesson.html", "lesson.js", "lesson.css"):
        assert (ROOT / "mark1" / "classroom" / "lesson" / name).exists()
        assert any(fnmatch.fnmatch(name, pattern) for pattern in declared["mark1.classroom.lesson"]), name


# -- in a real browser -----------------------------------------------------------------

def test_page_in_chromium(browser, tmp_path):
    scene = load_scene(DEMO)
    seed, cards, epochs = 1, 10, 3
    path = lesson.build(scene, tmp_path, seed=seed, cards=cards, epochs=epochs)
    m, sums = machine_run(scene, seed, cards, epochs)
    hist = m.history_
    conn = m.patchboard.connections
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: errors.append("network: " + r.url) if not r.url.startswith(("file:", "data:"))
            else None)
    page.goto(path.as_uri())

    def check_presentation(p):
        assert page.text_content("#counter").startswith(f"presentation {p + 1} of {len(hist)}")
        assert page.text_content("#sum-0") == sums[p][0]
        assert page.locator("#aunits .a-unit.lit").count() == hist["a_active"][p]
        assert page.locator("#retina .s-unit.lit").count() == hist["s_active"][p]

    check_presentation(0)
    for p in range(1, 4):
        page.click("#next")
        check_presentation(p)
    page.click("#prev")
    check_presentation(2)

    # hovering an A-unit lights its plugs on the retina, told apart by sign
    for a in (0, 5, conn.shape[1] - 1):
        page.hover(f'#aunits .a-unit[data-a="{a}"]')
        exc = sorted(int(v) for v in page.eval_on_selector_all(".s-unit.exc", "els => els.map(e => e.dataset.s)"))
        inh = sorted(int(v) for v in page.eval_on_selector_all(".s-unit.inh", "els => els.map(e => e.dataset.s)"))
        assert exc == np.flatnonzero(conn[:, a] > 0).tolist()
        assert inh == np.flatnonzero(conn[:, a] < 0).tolist()
    page.mouse.move(0, 0)
    assert page.locator(".s-unit.exc, .s-unit.inh").count() == 0

    # a click keeps the choice while stepping on
    page.click('#aunits .a-unit[data-a="3"]')
    page.mouse.move(0, 0)
    page.click("#next")
    assert page.locator(".s-unit.exc").count() == int((conn[:, 3] > 0).sum())

    # the next error is the machine's next wrong answer, with its pots listed
    page.click("#next-error")
    wrong = np.flatnonzero(~hist["correct"][4:]) + 4
    assert len(wrong), "the demo run makes an error after card 5"      # else the check below would vanish
    p = int(wrong[0])
    check_presentation(p)
    assert page.locator("#pots .pot").count() == hist["pots_moved"][p]
    page.screenshot(path=str(tmp_path / "lesson.png"), full_page=True)
    assert (tmp_path / "lesson.png").stat().st_size > 10_000

    # play runs on its own, pause stops it
    page.select_option("#pace", "8")              # eight machine seconds a second
    before = page.text_content("#counter")
    page.click("#play")
    expect = pytest.importorskip("playwright.sync_api").expect
    expect(page.locator("#counter")).not_to_have_text(before)   # waits, without eval (the page forbids it)
    page.click("#play")
    assert "play" in page.text_content("#play")

    # past the last mistake, "next mistake" says so once, however often it is clicked
    for _ in range(len(hist) + 3):
        page.click("#next-error")
    assert page.text_content("#counter").count("no more mistakes") == 1
    assert errors == []
    page.close()


def test_cli_lesson(tmp_path, capsys):
    from mark1.cli import main

    assert main(["lesson", str(DEMO), "--cards", "4", "--epochs", "1", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "lesson.html").stat().st_size > 0
    assert "lesson.html" in capsys.readouterr().out
    for argv, says in ((["--cards", "0"], "--cards"), (["--cards", "1"], "--cards"), (["--epochs", "0"], "--epochs")):
        assert main(["lesson", str(DEMO), "--out", str(tmp_path / "bad")] + argv) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1
        assert not (tmp_path / "bad").exists()


# -- the run of mark1 run, and what PRML chapter 4 adds to it ------------------------------

@pytest.mark.parametrize("scene_file, seed", [(DEMO, 1), (ROOT / "scenes" / "e_vs_x.toml", 0),
                                              (ROOT / "scenes" / "parity.toml", 2)])
def test_lesson_is_mark1_runs_run(tmp_path, capsys, scene_file, seed):
    """By default the page runs the scene as `mark1 run SCENE --seed N` does: the same numbers; a run
    too long to step through (parity's 2,000 presentations) is trained whole and its start replayed."""
    from mark1.cli import main

    assert main(["run", str(scene_file), "--seed", str(seed), "--out", str(tmp_path), "--json"]) == 0
    capsys.readouterr()
    summary = json.loads((tmp_path / "summary.json").read_text())
    data = lesson.record(scene_file, seed=seed)
    meta = data["meta"]
    assert meta["as_run"] and meta["shows_instead"] is None
    assert meta["mistakes_per_epoch"] == summary["errors_per_epoch"]
    assert (meta["deck"], meta["test_cards"], meta["epochs"], meta["run_presentations"]) == (
        summary["train_cards"], summary["test_cards"], summary["epochs"], summary["presentations"])
    window = min(summary["presentations"], 1000)
    assert meta["window"] == meta["presentations"] == len(data["pres"]) == window
    assert (meta["window_note"] is None) == (window == summary["presentations"])
    shown = {p["c"] for p in data["pres"]}                 # only the cards the replay shows are on the page
    assert [c is not None for c in data["cards"]] == [c in shown for c in range(meta["deck"])]
    assert meta["train_accuracy"] == summary["train_accuracy"]
    assert meta["test_accuracy"] == summary["test_accuracy"]
    assert meta["machine_time"] == summary["machine_time_s"]


def test_a_shorter_run_says_so(monkeypatch):
    data = lesson.record(DEMO, seed=0, cards=10, epochs=2)
    assert not data["meta"]["as_run"]
    assert data["meta"]["shows_instead"] == "10 of the scene's 40 training cards; 2 epochs instead of the scene's 5"
    scene = load_scene(ROOT / "scenes" / "parity.toml")             # 200 cards x 10 epochs: traced whole
    assert lesson._deck(scene, None, None, 0) == (None, 10, None)
    alphabet = load_scene(ROOT / "scenes" / "alphabet.toml")        # 5,200 presentations on 8 R-units: whole
    assert lesson._deck(alphabet, None, None, 0, n_units=8) == (None, 50, None)
    from mark1._utils import limits
    assert limits.lesson_window(2_000) == 1_000 and limits.lesson_window(5_200, n_units=8) == 125
    monkeypatch.setattr(limits, "MAX_TRACED", 1_000)                 # a run too long to trace is cut, and says so
    assert lesson._deck(scene, None, None, 0) == (100, 10, "100 of the scene's 200 training cards (its 2,000 "
                                                           "presentations are too many to trace)")
    assert lesson._deck(scene, 200, None, 0) == (None, 5, "5 epochs instead of the scene's 10 (its 2,000 "
                                                         "presentations are too many to trace)")
    assert lesson._deck(scene, 200, 10, 0) == (None, 10, None)      # asked for, the whole run
    spec = load_scene(DEMO).machine_spec().ideal()
    assert "instead of the scene's" in lesson.record(DEMO, seed=0, cards=40, spec=spec)["meta"]["shows_instead"]


def replayed_weights(m):
    """Each pot where the last move commanded before each presentation left it: (P, units, n_a + 1)."""
    w = np.zeros(m.rack_.mask.shape)
    out = []
    moves = list(m.trace_.moves)
    for p in range(len(m.history_)):
        for move in (mv for mv in moves if mv.presentation == p - 1):
            w[move.unit, move.a_unit] = move.target
        out.append(w.copy())
    return np.array(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weights_and_criterion(seed):
    """The weights the page replays are those the machine read; E_P is PRML eq. 4.54 over the cards so far."""
    scene = load_scene(DEMO)
    data = lesson.record(scene, seed=seed, cards=12, epochs=4)
    m, _ = machine_run(scene, seed, 12, 4)
    w = replayed_weights(m)
    for p, reading in enumerate(m.trace_.readings):                 # no decay, moves done within the period
        cols = np.append(reading.a_units, m.rack_.mask.shape[1] - 1)
        assert np.array_equal(w[p][:, cols], reading.wipers)
    last = np.zeros_like(w[-1])
    for move in m.trace_.moves:
        last[move.unit, move.a_unit] = move.target
    assert np.array_equal(last, m.weights_)                          # the replay ends at the machine's wipers
    targets = m.code_.targets[m.history_["label"]]
    phi_card, t_card = {}, {}
    for p, (row, reading) in enumerate(zip(m.history_, m.trace_.readings)):
        phi = np.zeros(m.rack_.mask.shape[1])
        phi[reading.a_units] = 1
        phi[-1] = 1
        phi_card[row["card"]], t_card[row["card"]] = phi, targets[p]
        e_p = -sum(min(0.0, float(t_card[c][k] * w[p][k] @ phi_card[c]))
                   for c in phi_card for k in range(len(w[p])))
        assert data["pres"][p]["ep"] == pytest.approx(e_p, rel=1e-5, abs=1e-9)
        assert data["pres"][p]["ep"] >= 0
    e_final = -sum(min(0.0, float(t_card[c][k] * m.weights_[k] @ phi_card[c])) for c in phi_card
                   for k in range(len(m.weights_)))
    assert data["meta"]["ep_final"] == pytest.approx(e_final, rel=1e-5, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_novikoff_holds_for_the_ideal_machine(seed):
    """The ideal machine (exact sums, no end stops) is the theorem's perceptron: corrections <= (R/gamma)^2."""
    scene = load_scene(DEMO)
    data = lesson.record(scene, seed=seed, cards=16, epochs=6, spec=scene.machine_spec().ideal())
    (nov,) = data["meta"]["novikoff"]
    assert nov["corrections"] == sum(1 for p in data["pres"] if p["err"])
    if nov["separates"]:
        assert nov["corrections"] <= nov["bound"]
        assert nov["gamma"] <= nov["gamma_best"] * (1 + 1e-5)         # the final weights' margin is not the best
    if "bound_best" in nov:
        assert nov["corrections"] <= nov["bound_best"]
    else:
        assert not nov["separates"]


def test_zero_margins():
    scene = load_scene(DEMO)
    quiet = lesson.record(scene, seed=0, cards=12, epochs=3, spec=scene.machine_spec().with_overrides(
        {"rack.wiper_noise": 0.0}))
    assert not any(p["z"] or p["f"] for p in quiet["pres"])
    data = lesson.record(scene, seed=0)                               # mark1 run's run of the demo
    noise = data["meta"]["wiper_noise"]
    for p in data["pres"]:
        sd = noise * np.sqrt(len(p["a"]) + 1)
        assert p["sd"][0] == pytest.approx(sd, rel=1e-5)
        assert (0 in p["z"]) == (abs(p["clean"][0]) < sd)
        for k in p["f"]:                                              # the noise outweighed the wipers
            assert abs(float(p["sums"][k]) - p["clean"][k]) >= abs(p["clean"][k]) - 5e-4 * abs(float(p["sums"][k]))
    flips = [i for i, p in enumerate(data["pres"]) if p["f"] and p["z"]]
    assert flips, "the demo's run has a read the noise flipped within its scale"


@pytest.mark.parametrize("scene_name, cards, epochs", [
    ("demo", None, None),            # mark1 run's whole run: 200 presentations
    ("parity", None, None),          # 2,000 presentations: traced whole, the first 1,000 replayed
    ("parity", 20, 3),               # a short deck asked for
    ("alphabet", None, None),        # 5,200 presentations on 8 R-units: traced whole, 125 replayed
])
def test_the_budget_reckons_the_presentations_the_lesson_runs(scene_name, cards, epochs):
    scene = load_scene(ROOT / "scenes" / f"{scene_name}.toml")
    meta = lesson.record(scene, seed=0, cards=cards, epochs=epochs)["meta"]
    res = scene.resources(command="lesson", lesson_cards=cards, epochs=epochs)
    assert res.presentations == meta["run_presentations"]


def test_the_page_shows_at_most_max_test_shown_test_cards(monkeypatch):
    whole = lesson.record(DEMO, seed=0, cards=4, epochs=1)
    monkeypatch.setattr(lesson, "MAX_TEST_SHOWN", 10)
    cut = lesson.record(DEMO, seed=0, cards=4, epochs=1)
    assert [len(cut["test"][k]) for k in ("cards", "labels", "answers", "sums", "s")] == [10] * 5
    assert cut["test"]["answers"] == whole["test"]["answers"][:10]
    assert (cut["meta"]["test_cards"], cut["meta"]["test_shown"]) == (40, 10)
    # the accuracy is over every test card
    assert cut["meta"]["test_accuracy"] == whole["meta"]["test_accuracy"] == cut["meta"]["test_right"] / 40
    page = lesson.render_page(cut)
    assert "The first ${M.test_shown" in page


def test_the_cut_note_is_said_only_when_the_lesson_cut():
    scene = load_scene(ROOT / "scenes" / "parity.toml")
    assert lesson._deck(scene, 10, None, 0) == (10, 10, "10 of the scene's 200 training cards")
    assert lesson._deck(scene, None, 2, 0) == (None, 2, "2 epochs instead of the scene's 10")


def test_durations_on_the_page_are_the_languages():
    """Motor runs, backlash and waits are written by language.duration in Python, not by the page's script."""
    scene = load_scene(DEMO)
    spec = scene.machine_spec().with_overrides({"rack.drivers": 1})          # the next card waits for the motors
    data = lesson.record(scene, seed=3, cards=8, epochs=3, spec=spec)
    m, _ = machine_run(scene, 3, 8, 3, spec)
    moves = [(mv, txt) for p in data["pres"] for mv, txt in zip(p["mv"], p.get("mvt", []))]
    assert moves and all(len(p.get("mvt", [])) == len(p["mv"]) for p in data["pres"])
    logged = [(mv.slack_time[j], mv.duration[j]) for mv in m.trace_.moves for j in range(len(mv.command))]
    assert [txt for _, txt in moves] == [[duration(slack), duration(run)] for slack, run in logged]
    period = spec.timing.period
    starts = m.history_["start"]
    for p, entry in enumerate(data["pres"][:-1]):
        wait = starts[p + 1] - (starts[p] + period)                 # the machine's own clock
        if "wn" in entry:
            assert entry["wn"] == duration(data["pres"][p + 1]["t"] - (entry["t"] + period)) and wait > 0
        else:
            assert wait < 1e-5
    assert any("wn" in p for p in data["pres"])
    assert all(p["md"] == duration(p["m1"] - p["m0"]) for p in data["pres"] if "m0" in p)
    assert data["meta"]["period_text"] == duration(period)
    js = (ROOT / "mark1" / "classroom" / "lesson" / "lesson.js").read_text()
    assert " ms" not in js and "* 1000" not in js


@pytest.mark.parametrize("overrides", [{}, {"rack.drivers": 2, "timing.overlap": True, "rack.motor_speed": 0.05}])
def test_moves_carry_the_time_their_motors_were_set_going(overrides):
    scene = load_scene(DEMO)
    spec = scene.machine_spec().with_overrides(overrides)
    data = lesson.record(scene, seed=1, cards=8, epochs=3, spec=spec)
    m, _ = machine_run(scene, 1, 8, 3, spec)
    q = data["meta"]["quantum"]
    want = [round(mv.time * q) for mv in m.trace_.moves for _ in mv.command]
    assert [mv[7] for p in data["pres"] for mv in p["mv"]] == want and want
    assert data["meta"]["pots"] == int(m.rack_.mask.sum())


def _independent_margin(phi, t):
    """The hard-margin separator through the origin by scikit-learn's SVC: the points t*phi and their
    mirror images -t*phi in two classes make the best intercept 0 (the problem is symmetric)."""
    svm = pytest.importorskip("sklearn.svm")
    z = t[:, None] * phi
    clf = svm.SVC(kernel="linear", C=1e12, tol=1e-12).fit(np.vstack([z, -z]), np.r_[np.ones(len(z)), -np.ones(len(z))])
    w = clf.coef_[0]
    return float((z @ w).min() / np.linalg.norm(w))


@pytest.mark.parametrize("scene_name, seed", [("demo", 0), ("demo", 4), ("e_vs_x", 0), ("alphabet", 0)])
def test_best_margin_is_the_maximum_margin_to_its_digits(monkeypatch, scene_name, seed):
    """gamma* (Wolfe's exact solve) against an independent solve: equal to the digits the page prints."""
    seen = []
    real = lesson.novikoff_bound
    monkeypatch.setattr(lesson, "novikoff_bound", lambda phi, t: seen.append((phi, t)) or real(phi, t))
    data = lesson.record(scene_name, seed=seed)
    nov = data["meta"]["novikoff"]
    assert len(seen) == len(nov) and any("gamma_best" in n for n in nov)
    for (phi, t), n in zip(seen, nov):
        if "gamma_best" not in n:
            continue
        other = _independent_margin(phi, t)
        assert n["gamma_best"] == pytest.approx(other, rel=10.0 ** -n["digits"])
        assert 6 <= n["digits"] <= 12
        printed = float(n["gamma_best_text"].replace("\u2009", ""))
        assert printed == pytest.approx(other, rel=10.0 ** -(n["digits"] - 1))
        assert float(n["bound_best_text"].replace("\u2009", "")) == pytest.approx(
            float(np.square(phi).sum(axis=1).max()) / other ** 2, rel=10.0 ** -(n["digits"] - 2))


@pytest.mark.parametrize("name, says", [("parity", "Chance by design"), ("connectedness", "Chance by design"),
                                        ("demo", None)])
def test_the_page_says_where_chance_is_the_design(name, says):
    scene = load_scene(ROOT / "scenes" / f"{name}.toml")
    text = lesson._judgement(scene, len(scene.classes), 0.9, 0.5)
    assert text.startswith(f"Chance is 50 % ({len(scene.classes)} classes).")
    assert (says in text) if says else ("Chance by design" not in text and "hard" not in text)


def test_a_scene_below_its_report_is_called_hard():
    scene = load_scene(ROOT / "scenes" / "square_vs_diamond.toml")      # reported 100 % on new cards
    assert "a hard scene for this machine (20 points below" in lesson._judgement(scene, 2, 1.0, 0.8)
    assert "hard" not in lesson._judgement(scene, 2, 0.8, 0.99)
    typefaces = load_scene(ROOT / "scenes" / "typefaces.toml")           # scored on the trained cards
    assert "on the trained cards shown again; this run: 60.0 %" in lesson._judgement(typefaces, 26, 0.6, 0.3)
