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
import re
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
    for width, height in ((1024, 768), (1280, 720), (1920, 1080)):
        page, errors = _open(browser, path, width, height)
        if width >= 1280:                           # at 1024 the first row wraps: the R-units are a scroll away
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

    zoom = page.evaluate("document.getElementById('dial-zoom').checked")
    dial_range = float(re.search(r"stop mark at \u00b1([0-9.]+) full scale", page.text_content("#rack-key")).group(1))
    assert dial_range >= data["meta"]["dial_max"] and (dial_range < 1) == zoom      # the zoom holds every wiper

    def page_dials(t):
        page.evaluate(f"window.mark1.seek({float(t)!r})")
        got = page.eval_on_selector_all("#machine .pot-dial", """gs => gs.map(g => {
            const n = g.querySelector('.needle');
            return [+g.dataset.u, +g.dataset.a, +n.dataset.w, parseFloat(n.getAttribute('transform').slice(7))]; })""")
        w = np.full(mask.shape, np.nan)
        for u, a, wiper, angle in got:
            w[u, a] = wiper
            assert angle == pytest.approx(wiper / dial_range * 135.0, abs=1e-6)     # the needle turned to it
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


#: text boxes that overlap in the machine view, the sum tracks and the controls (by pairs)
OVERLAPS = """() => {
  const out = [];
  for (const sel of ["#machine text", "#runits svg.track", "#ed-runits svg.track", "nav"]) {
    for (const box of document.querySelectorAll(sel)) {
      const els = [...box.querySelectorAll(box.tagName === "NAV" ? ":scope > *" : "text")]
        .filter((e) => e.getBoundingClientRect().width > 0);
      if (sel === "#machine text") { els.length = 0; els.push(...document.querySelectorAll(sel)); }
      for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
        const a = els[i].getBoundingClientRect(), b = els[j].getBoundingClientRect();
        const ox = Math.min(a.right, b.right) - Math.max(a.left, b.left), oy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (ox > 1 && oy > 1) out.push(`${els[i].textContent.slice(0, 25)} / ${els[j].textContent.slice(0, 25)}`);
      }
      if (sel === "#machine text") break;
    }
  }
  return out;
}"""


@pytest.mark.parametrize("scene", ["demo.toml", "e_vs_x.toml", "alphabet.toml"])
def test_every_screen_and_the_larger_type(browser, tmp_path, scene):
    """No text under 16 px and nothing overlapping at three projector sizes and at A+ x1.5; the machine
    panel fits one screen below the controls at each size and type, and keeps its height from the first
    card to the last; the type size is kept across a reload; the clock is clamped to the run."""
    path = lesson.build(ROOT / "scenes" / scene, tmp_path, seed=0, devices=False)
    for width, height in ((1024, 768), (1280, 720), (1920, 1080)):
        for clicks in (0, 2):                                    # the default type, and A+ x1.5
            page, errors = _open(browser, path, width, height)
            page.evaluate("localStorage.clear()")
            page.reload()
            for _ in range(clicks):
                page.click("#bigger")
            page.evaluate("window.mark1.seek(1e12)")               # the end: every needle where training left it
            smallest, where, _ = page.evaluate(SMALLEST_TEXT)
            assert smallest >= 16 - 1e-6, f"{scene} {width}x{height} A+{clicks}: {smallest} px: {where}"
            assert page.evaluate(OVERLAPS) == [], f"{scene} {width}x{height} A+{clicks}"
            room = height - page.locator("#controls").bounding_box()["height"]
            panel = page.locator("#machine-panel").bounding_box()["height"]
            assert panel <= room, f"{scene} {width}x{height} A+{clicks}: the machine panel {panel} px in {room}"
            page.evaluate("window.mark1.seek(0)")                # the first card: the panel keeps its height
            assert page.locator("#machine-panel").bounding_box()["height"] == pytest.approx(panel, abs=1)
            assert errors == []
            page.close()
    page, errors = _open(browser, path, 1280, 720)
    page.evaluate("localStorage.clear()")
    body = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    page.click("#bigger")
    page.click("#bigger")
    page.reload()                                                  # kept across reloads
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") == pytest.approx(1.5 * body)
    page.evaluate("localStorage.clear()")
    clock = "(t) => { window.mark1.seek(t); return document.getElementById('clock').textContent; }"
    end = page.evaluate("() => { const D = JSON.parse(document.getElementById('lesson-data').textContent); "
                        "return D.pres[D.pres.length - 1].t + D.meta.period; }")
    assert page.evaluate(clock, 1e9) == page.evaluate(clock, end)         # past the end: the end
    assert page.evaluate(clock, -5).startswith("machine clock 0 s")        # before the start: the start
    assert errors == []
    page.close()


def test_inside_the_notebook_s_frame(browser, tmp_path):
    """As both notebooks show the page: in an iframe 760 px high, in a column 760 and 1,100 px wide, at the
    default type and A+ x1.5: no text under 16 px, nothing overlapping, the machine panel within the frame
    below the controls."""
    import html
    path = lesson.build(ROOT / "scenes" / "e_vs_x.toml", tmp_path, seed=0, devices=False)
    srcdoc = html.escape(path.read_text())
    for width in (760, 1100):
        for clicks in (0, 2):
            page = browser.new_page(viewport={"width": width + 80, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.set_content(f'<body style="margin:40px"><div style="width:{width}px"><iframe srcdoc="{srcdoc}" '
                             'style="width:100%;height:760px;border:1px solid #ccc"></iframe></div></body>')
            frame = page.frames[1]
            for _ in range(100):        # the page's own CSP forbids eval, so no wait_for_function: poll
                if frame.evaluate("() => Boolean(window.mark1 && window.mark1.seek)"):
                    break
                page.wait_for_timeout(100)
            for _ in range(clicks):
                frame.click("#bigger")
            frame.evaluate("window.mark1.seek(1e12)")
            smallest, where, _ = frame.evaluate(SMALLEST_TEXT)
            assert smallest >= 16 - 1e-6, f"frame {width} A+{clicks}: {smallest} px: {where}"
            assert frame.evaluate(OVERLAPS) == [], f"frame {width} A+{clicks}"
            room = 760 - frame.locator("#controls").bounding_box()["height"]
            panel = frame.locator("#machine-panel").bounding_box()["height"]
            assert panel <= room, f"frame {width} A+{clicks}: the machine panel {panel} px in {room}"
            assert errors == []
            page.close()


@pytest.mark.parametrize("case", ["demo", "binary_split"])
def test_learning_shows_on_the_dials_and_the_learned_pictures(browser, tmp_path, case):
    """At the start every dial and every learned picture is blank (all pots at 0); at the end the faces
    are coloured and the needles turned by the zoom to the run's largest wiper, and each R-unit's
    picture is its weights on the retina."""
    path, data, m, _, _ = trained(case, tmp_path)
    page, errors = _open(browser, path, 1280, 720)
    n_units, n_s = m.code_.n_units, m.patchboard.n_sensors
    assert page.locator("#machine g.learned").count() == n_units
    assert page.locator("#machine g.learned").first.locator("rect").count() == n_s + 1   # a frame and the cells

    def faces_and_cells():
        faces = page.eval_on_selector_all("#machine .pot-dial .dial", "cs => cs.map(c => c.style.fill)")
        cells = page.eval_on_selector_all("#machine g.learned rect[fill]:not([fill=none])",
                                          "rs => rs.map(r => r.getAttribute('fill'))")
        return faces, cells

    def white(colour):
        """The colour map's 0 (near white, no hue) or the page's plain white."""
        rgb = [int(v, 16) * 17 for v in colour[1:]] if colour.startswith("#") else \
            [int(v) for v in re.findall(r"\d+", colour)]
        return min(rgb) >= 240 and max(rgb) - min(rgb) <= 3

    page.evaluate("window.mark1.seek(0)")
    faces, cells = faces_and_cells()
    assert all(map(white, faces)) and all(map(white, cells))            # untrained: nothing learned
    page.evaluate("window.mark1.seek(1e12)")
    faces, cells = faces_and_cells()
    assert sum(not white(c) for c in faces) > len(faces) // 4            # learned: coloured faces
    assert len(set(cells)) > 8
    angles = page.eval_on_selector_all("#machine .needle",
                                       "ns => ns.map(n => Math.abs(parseFloat(n.getAttribute('transform').slice(7))))")
    assert max(angles) > 0.5 * 135                                        # the largest needle well over
    # the learned picture is each S-unit's weight: the sum over the A-units it feeds of plug sign x wiper
    w = m.weights_
    want = m.patchboard.connections.astype(float) @ (w[:, :-1] * m.rack_.mask[:, :-1]).T     # (n_s, units)
    for k in range(n_units):
        fills = page.eval_on_selector_all(f"#machine g.learned[data-unit='{k}'] rect:not([fill=none])",
                                          "rs => rs.map(r => r.getAttribute('fill'))")
        rgb = [tuple(int(v) for v in re.findall(r"\d+", f)) for f in fills]
        hi, lo = int(np.argmax(want[:, k])), int(np.argmin(want[:, k]))
        assert rgb[hi][0] > rgb[hi][2] and rgb[lo][2] > rgb[lo][0], k          # red pushes on, blue off
    page.uncheck("#dial-zoom")                                          # full scale: the needles barely move
    wipers = page.eval_on_selector_all("#machine .needle", "ns => ns.map(n => Math.abs(+n.dataset.w))")
    small = page.eval_on_selector_all("#machine .needle",
                                      "ns => ns.map(n => Math.abs(parseFloat(n.getAttribute('transform').slice(7))))")
    assert max(small) == pytest.approx(135 * max(wipers), rel=1e-9) and max(small) < max(angles)
    assert errors == []
    page.close()
