"""The lesson page's own card (issue 17, item 2): ``window.mark1.respond`` in headless Chromium
against the Python machine.

The page is opened from disk in Debian's ``chromium`` (driven by Playwright, the test
extra's browser driver, with the system browser). Cards go in as S-unit bits: random bits
of several densities, blank, full, the deck and test cards as the trained machine's retina
sees them (``MarkI.sense``), and cards drawn with the mouse on the page's editor. The
page's sums must be the machine's noise-free sums, ``with_bias(associate(S)) @
weights_.T``, the expression ``MarkI.decision_function`` adds its read noise to (checked
here to be exactly ``decision_function`` with the scoring noise set to zero); agreement
within 1e-9 of the sum's scale (the sum of |wiper| over the pots that make it: the page
adds in another order than BLAS). Lamps are ``sum > tie`` and the answer is
``OutputCode.decode``'s. Skips, saying why, when Chromium or Playwright cannot be had.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mark1.classroom import lesson
from mark1.machine.mark_i import MarkI
from mark1.machine.patchboard import with_bias
from mark1.stimuli.cards import scene_cards
from mark1.stimuli.scenes import load_scene

ROOT = Path(__file__).resolve().parents[1]
# (scene, seed, cards, epochs, spec overrides): the small demo machine as mark1 run has it,
# the 512-A-unit Mark I, a binary code over the eight R-units on the split rack, μ sums, and
# one R-unit per class (the largest sum wins)
CASES = {
    "demo": ("demo.toml", 0, None, None, {}),
    "mark_i": ("e_vs_x.toml", 1, None, None, {}),
    "binary_split": ("demo.toml", 1, 12, 3, {"response.code": "binary", "rack.topology": "split"}),
    "mean": ("demo.toml", 2, 10, 2, {"response.discrimination": "mean"}),
    "one_per_class": ("demo.toml", 3, 10, 2, {"response.code": "one-per-class"}),
}


def trained(case, tmp_path):
    """The lesson page of a case and the same run made by MarkI.fit."""
    name, seed, cards, epochs, overrides = CASES[case]
    scene = load_scene(ROOT / "scenes" / name)
    spec = scene.machine_spec().with_overrides(overrides) if overrides else None
    data = lesson.record(scene, seed=seed, cards=cards, epochs=epochs, spec=spec)
    path = tmp_path / "lesson.html"
    path.write_text(lesson.render_page(data))
    train, test, seed_machine = scene_cards(scene, seed, train_count=data["meta"]["deck"] if cards else None)
    m = MarkI(spec=spec or scene.machine_spec(), seed=seed_machine, trace="full")
    m.fit(train.cards, train.labels, epochs=data["meta"]["epochs"], order=scene.schedule.order)
    return path, data, m, train, test


def noise_free(m, s_states):
    """The sums decision_function adds its read noise to, and their scale."""
    x = with_bias(m.associate(s_states))
    w = m.weights_.T
    sums, scale = x @ w, x @ np.abs(w)
    if m.spec.response.discrimination == "mean":
        counts = x @ m.rack_.mask.T.astype(float)
        sums, scale = sums / np.maximum(counts, 1), scale / np.maximum(counts, 1)
    return sums, scale


def check(page, m, bits, what):
    """The page's respond on each row of ``bits`` against the machine."""
    got = json.loads(page.evaluate("rows => JSON.stringify(rows.map(b => window.mark1.respond(b)))",
                                   bits.astype(int).tolist()))
    want, scale = noise_free(m, bits.astype(bool))
    answers = m.classes_[m.code_.decode(want)]
    for i, g in enumerate(got):
        err = np.abs(np.array(g["sums"]) - want[i])
        assert (err <= 1e-9 * np.maximum(scale[i], 1e-300)).all(), f"{what} {i}: {g['sums']} vs {want[i]}"
        assert g["lamps"] == (want[i] > m.code_.tie).tolist(), f"{what} {i}"
        assert g["answer"] == str(answers[i]), f"{what} {i}"
        assert g["a_units"] == np.flatnonzero(m.associate(bits[i:i + 1].astype(bool))[0]).tolist()
    return got


@pytest.mark.parametrize("case", list(CASES))
def test_respond_is_the_machine(browser, tmp_path, monkeypatch, case):
    path, data, m, train, test = trained(case, tmp_path)
    assert data["machine"]["wipers"] == m.weights_.tolist()          # the page carries the machine's wipers
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    machine = json.loads(page.evaluate("JSON.stringify(window.mark1.machine)"))      # one string: fast
    conn = m.patchboard.connections
    n_s, n_a = conn.shape
    assert np.array_equal(np.array(machine["wiring"]), conn.T)      # A-units x S-units in -1/0/+1
    assert machine["threshold"] == m.patchboard.a_threshold
    assert np.array_equal(np.array(machine["wipers"]), m.weights_)
    assert np.array(machine["wipers"]).shape == (m.code_.n_units, n_a + 1)
    assert m.code_.n_units == {"binary_split": 8, "one_per_class": 2}.get(case, 1)

    # the noise-free expression is decision_function's, without its scoring noise
    monkeypatch.setattr(m, "_scoring_noise", lambda cards, n: np.zeros((len(cards), n)))
    s_test = m.sense(test.cards)
    assert np.array_equal(m.decision_function(test.cards), noise_free(m, s_test)[0])

    rng = np.random.default_rng(17)
    random = np.concatenate([rng.random((8, n_s)) < q for q in (0.05, 0.2, 0.5, 0.8)])
    got = check(page, m, random, "random card")
    check(page, m, np.zeros((1, n_s)), "blank card")
    check(page, m, np.ones((1, n_s)), "full card")
    check(page, m, m.sense(train.cards), "deck card")
    check(page, m, s_test[:60], "test card")
    assert len({tuple(g["lamps"]) for g in got}) > 1 or m.code_.n_units == 1   # not one answer for all

    # the test cards on the page: the machine's answers (with the scoring noise), as mark1 run scores them
    monkeypatch.undo()
    assert data["test"]["answers"] == m.code_.decode(m.decision_function(test.cards)).tolist()
    assert data["meta"]["test_accuracy"] == m.score(test.cards, test.labels)
    assert errors == []
    page.close()


def test_editor_draws_and_answers(browser, tmp_path):
    path, data, m, train, _ = trained("demo", tmp_path)
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    rows, cols = data["meta"]["rows"], data["meta"]["cols"]

    def editor_bits():
        lit = page.eval_on_selector_all("#editor .s-unit.lit", "els => els.map(e => +e.dataset.s)")
        bits = np.zeros(rows * cols, bool)
        bits[lit] = True
        return bits

    def shown_sum():
        return float(page.text_content("#ed-sum-0").replace("\u2212", "-"))

    # a deck card loaded: the S-units of its latest presentation, as the machine logged them
    card = 3
    page.select_option("#ed-card", str(card))
    page.click("#ed-load")
    last = max(p for p, row in enumerate(m.history_) if row["card"] == card)
    s_logged = np.zeros(rows * cols, bool)
    s_logged[m.trace_.readings[last].s_units] = True
    assert np.array_equal(editor_bits(), s_logged)
    want = noise_free(m, s_logged[None])[0][0, 0]
    assert shown_sum() == pytest.approx(want, rel=1e-3, abs=1e-6)    # shown to 4 significant digits

    # clear, then draw a stroke with the mouse: a vertical bar down column 9
    page.click("#ed-clear")
    assert not editor_bits().any()
    page.locator("#editor").scroll_into_view_if_needed()
    box = page.locator("#editor").bounding_box()
    cell = box["width"] / cols
    page.mouse.move(box["x"] + 9.5 * cell, box["y"] + 3.5 * cell)
    page.mouse.down()
    for r in range(3, 17):
        page.mouse.move(box["x"] + 9.5 * cell, box["y"] + (r + 0.5) * cell, steps=2)
    page.mouse.up()
    drawn = editor_bits()
    assert drawn.reshape(rows, cols)[3:17, 9].all() and drawn.sum() == 14
    sums, _ = noise_free(m, drawn[None])
    assert shown_sum() == pytest.approx(sums[0, 0], rel=1e-3, abs=1e-6)
    answer = str(m.classes_[m.code_.decode(sums)[0]])
    assert f"answers \u201c{answer}\u201d" in page.text_content("#ed-answer")

    # invert turns every S-unit over
    page.click("#ed-invert")
    assert np.array_equal(editor_bits(), ~drawn)

    # a link can carry a drawn card, and one to a presentation
    page.goto(path.as_uri() + "#draw=" + np.packbits(drawn).tobytes().hex())
    assert np.array_equal(editor_bits(), drawn)
    tie = data["meta"]["tie"]
    flips = [p for p, entry in enumerate(data["pres"]) if entry["f"] and entry["z"] and abs(entry["clean"][0]) > tie]
    assert flips, "mark1 run's demo run (seed 0) has a read the noise flipped"
    page.goto(path.as_uri() + f"#p={flips[0] + 1}")
    assert page.text_content("#counter").startswith(f"presentation {flips[0] + 1} of")
    assert "Zero margin" in page.text_content("#margin-0") and "flipped the verdict" in page.text_content("#margin-0")
    # a sum of exactly 0 (every pot still at 0) is the boundary, an error by the rule: no "could flip it"
    zero_mistake = next(p for p, entry in enumerate(data["pres"]) if abs(entry["clean"][0]) <= tie and entry["err"])
    page.goto(path.as_uri() + f"#p={zero_mistake + 1}")
    text = page.text_content("#margin-0")
    assert "On the boundary" in text and "counts a sum of 0 as an error" in text and "could flip" not in text

    # "next zero margin" steps through the reads within the noise's scale of the threshold
    page.goto(path.as_uri())
    zeros = [p for p, entry in enumerate(data["pres"]) if entry["z"]]
    for p in zeros[1:3] if zeros[0] == 0 else zeros[:2]:
        page.click("#next-zero")
        assert page.text_content("#counter").startswith(f"presentation {p + 1} of")
    assert errors == []
    page.close()


# -- projector mode and the machine at work (issue 26) ------------------------------------

#: the smallest text on screen, by script: each element with text of its own, visible, its computed font
#: size, times the scale an SVG draws it at (its screen transform); and the least of the running explanation's
#: text (a formula's sub- and superscripts apart)
SMALLEST_TEXT = """() => {
  let min = Infinity, where = "", explain = Infinity;
  for (const e of document.querySelectorAll("body *")) {
    if (["SCRIPT", "STYLE", "OPTION", "title"].includes(e.tagName) || e.closest("[hidden], title")) continue;
    if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const r = e.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) continue;
    let size = parseFloat(getComputedStyle(e).fontSize);
    if (e instanceof SVGElement) { const m = e.getScreenCTM(); size *= Math.hypot(m.a, m.b); }
    if (size < min) { min = size; where = `${e.tagName}#${e.id} ${e.textContent.slice(0, 30)}`; }
    if (e.closest(".explain, #runits .margin, #card-text, #retina-text, #a-text, #timing-text") && !e.closest("math"))
      explain = Math.min(explain, size);
  }
  return [min, where, explain];
}"""


def _open(browser, path, width, height):
    page = browser.new_page(viewport={"width": width, "height": height})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    return page, errors


@pytest.mark.parametrize("scene", ["demo.toml", "alphabet.toml"])
def test_projector_sizes_and_the_decision_above_the_fold(browser, tmp_path, scene):
    path = lesson.build(ROOT / "scenes" / scene, tmp_path, seed=0, devices=False)
    for width, height in ((1280, 720), (1920, 1080)):
        page, errors = _open(browser, path, width, height)
        assert page.locator("#r-panel").bounding_box()["y"] < height, f"{scene} at {width}x{height}"
        for step in range(3):                      # the first card, a mistake, the last
            smallest, where, explain = page.evaluate(SMALLEST_TEXT)
            assert smallest >= 16 - 1e-6, f"{scene} at {width}x{height}: {smallest} px: {where}"
            assert explain >= 18 - 1e-6, f"{scene} at {width}x{height}: explanation {explain} px"
            page.click("#next-error" if step == 0 else "#next")
        body = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
        page.click("#bigger")                       # larger type, and the key steps back
        assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") == pytest.approx(1.25 * body)
        page.keyboard.press("-")
        assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") == pytest.approx(body)
        assert page.locator("math").count() >= 3                         # the PRML panel in MathML
        assert page.locator("#prml-panel .explain").count() <= 4          # E_P's line and three paragraphs
        assert page.locator("#novikoff .curve.bound").count() == 2 or scene == "alphabet.toml"
        assert errors == []
        page.close()


@pytest.mark.parametrize("case", ["demo", "binary_split"])
def test_machine_view_dials_are_the_run_s_wipers(browser, tmp_path, case):
    """One dial per pot of the machine, each turned to its wiper at any instant of the run."""
    path, data, m, _, _ = trained(case, tmp_path)
    page, errors = _open(browser, path, 1280, 720)
    mask = m.rack_.mask
    assert page.locator("#machine .pot-dial").count() == int(mask.sum()) == data["meta"]["pots"]
    n_a = m.patchboard.n_associators
    moves = m.trace_.moves

    def python_wipers(t):
        """Every pot's wiper at machine time t from the trace's moves (linear after the backlash)."""
        w = np.zeros(mask.shape)
        for mv in moves:
            if mv.time > t:
                break
            for j in range(len(mv.command)):
                t1, t2 = mv.time + mv.slack_time[j], mv.time + mv.duration[j]
                frac = 0.0 if t < t1 else 1.0 if t >= t2 or t2 == t1 else (t - t1) / (t2 - t1)
                w[mv.unit[j], mv.a_unit[j]] = mv.start[j] + (mv.target[j] - mv.start[j]) * frac
        return w

    def page_dials(t):
        page.evaluate(f"window.mark1.seek({float(t)!r})")
        got = page.eval_on_selector_all("#machine .pot-dial", """gs => gs.map(g => {
            const n = g.querySelector('.needle');
            return [+g.dataset.u, +g.dataset.a, parseFloat(n.getAttribute('transform').slice(7))]; })""")
        w = np.full(mask.shape, np.nan)
        for u, a, angle in got:
            w[u, a] = angle / 135.0
        return w

    q = data["meta"]["quantum"]
    half_way = [mv.time + (mv.slack_time.max() + mv.duration.max()) / 2 for mv in moves[:3]]
    reads = [r.time for r in m.trace_.readings[::max(1, len(m.trace_.readings) // 4)]]
    for t in half_way + reads + [m.machine_time_]:
        want, got = python_wipers(t), page_dials(t)
        assert np.isnan(got[~mask]).all() and not np.isnan(got[mask]).any()
        # stored in 1/quantum full scale and seconds: a motor's speed times that much time more
        tol = 2.0 / q + m.spec.rack.motor_speed * 1.5 * (1 + m.spec.rack.motor_spread * 3) / q
        assert np.abs(got[mask] - want[mask]).max() <= tol, t
    # at a read, the dials of the pots read are the wipers the machine read
    p = len(m.trace_.readings) // 2
    reading = m.trace_.readings[p]
    got = page_dials(reading.time)
    cols = np.append(reading.a_units, n_a)
    for k in range(mask.shape[0]):
        pots = mask[k, cols]
        assert np.abs(got[k, cols][pots] - reading.wipers[k][pots]).max() <= 2.0 / q
    assert errors == []
    page.close()
