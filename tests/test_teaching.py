"""The teaching figures of mark1.viz: retina, dials, weights on the retina, Fisher, animation, learning curve,
contact sheet; and the command line of the examples."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.collections import EllipseCollection, LineCollection
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from PIL import Image

from mark1 import specs
from mark1._utils.language import FIRING, NEUTRAL, unit_grid
from mark1.machine import MarkI
from mark1.viz import studies
from mark1.viz.cards import STRAY, contact_sheet
from mark1.viz.machine import _projected_weights, dials_figure, retina_figure, weights_on_retina_figure
from mark1.viz.prml import fisher_histograms_figure
from mark1.viz.training import _animation_frames, learning_curve, training_animation


@pytest.fixture
def trained(card_maker):
    """A SMALL machine (64 A-units, every non-ideality on) trained on x vs box."""
    rng = np.random.default_rng(7)
    cards, labels = card_maker(12, rng)
    m = MarkI(spec=specs.SMALL, seed=3).fit(cards, labels, epochs=2)
    return m, cards, labels


# -- retina_figure --------------------------------------------------------------------------

def test_retina_figure_panels_and_counts(trained, tmp_path):
    m, cards, _ = trained
    fig = retina_figure(m, cards[0], out=tmp_path / "r.png")
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 4
    assert [len(ax.images) for ax in fig.axes] == [1, 1, 0, 0]
    s = m.sense(cards[:1])[0]
    a = m.associate(s[None])[0]
    s_lamps = fig.axes[2].collections[0]
    a_lamps = fig.axes[3].collections[0]
    assert isinstance(s_lamps, EllipseCollection) and len(s_lamps.get_offsets()) == 400
    assert len(a_lamps.get_offsets()) == 64
    lit = np.asarray(s_lamps.get_facecolors())
    assert (np.abs(lit - lit[np.argmax(s)]).sum(axis=1) < 1e-9).sum() == s.sum()   # lit lamps = firing units
    assert f"A-units firing: {int(a.sum())} of 64" in fig.axes[3].get_title()
    assert f"S-units firing: {int(s.sum())} of 400" in fig.axes[2].get_title()
    np.testing.assert_allclose(fig.axes[1].images[0].get_array(), m.retina.illuminance(cards[:1])[0])
    assert "answer" in fig.get_suptitle()
    with Image.open(tmp_path / "r.png") as im:
        assert im.format == "PNG"


def test_retina_figure_untrained_and_bad_card(card_maker):
    cards, _ = card_maker(2, np.random.default_rng(0))
    m = MarkI(spec=specs.SMALL, seed=0)
    fig = retina_figure(m, cards[:1])           # (1, H, W) accepted, no training needed
    assert len(fig.axes) == 4 and "answer" not in fig.get_suptitle()
    with pytest.raises(ValueError, match="card"):
        retina_figure(m, cards)


def testunit_grid():
    assert unit_grid(512) == (16, 32)
    assert unit_grid(64)[0] * unit_grid(64)[1] == 64
    r, c = unit_grid(509)                     # prime: padded, not 1 x 509
    assert r * c >= 509 and c / r < 4


# -- dials_figure ---------------------------------------------------------------------------

def _pointer_angles(pointers):
    seg = np.array(pointers.get_segments())              # (pots, 2, 2)
    dx, dy = seg[:, 1, 0] - seg[:, 0, 0], -(seg[:, 1, 1] - seg[:, 0, 1])     # y axis points down
    return np.arctan2(dy, dx)


def test_dials_figure_shows_the_pots_moved_furthest(trained, tmp_path):
    m, _, _ = trained
    fig = dials_figure(m, top=16, out=tmp_path / "rack.png")
    n_units, n_in = m.weights_.shape
    assert len(fig.axes) == n_units + 1                  # panels + colour bar
    ax = fig.axes[0]
    dials = [c for c in ax.collections if isinstance(c, EllipseCollection)]
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(dials) == 1 and len(dials[0].get_offsets()) == 16 + 1         # 16 pots and the bias
    w = m.weights_[0]
    top = np.sort(np.argsort(-np.abs(w[:-1]), kind="stable")[:16])
    assert np.abs(w[top]).min() >= np.abs(np.delete(w[:-1], top)).max()
    names = [t.get_text().split("\n")[0] for t in ax.texts]
    assert names == [f"A{a + 1}" for a in top] + ["bias"]                     # A-units numbered from 1
    stops, pointers = lines
    assert len(stops.get_segments()) == 2 * 17
    np.testing.assert_allclose(_pointer_angles(pointers), np.pi / 2 - w[np.r_[top, n_in - 1]] * 0.75 * np.pi,
                               atol=1e-9)
    with Image.open(tmp_path / "rack.png") as im:      # the title is inside the picture
        assert im.size[0] >= 7.5 * 120 - 1
    assert fig.get_suptitle() and fig.texts[0].get_window_extent(fig.canvas.get_renderer()).x0 >= 0
    with pytest.raises(ValueError, match="top"):
        dials_figure(m, top=0)


def test_dials_figure_for_a_card_shows_its_firing_a_units(trained):
    m, cards, _ = trained
    fig = dials_figure(m, card=cards[0])
    firing = np.flatnonzero(m.associate(m.sense(cards[:1]))[0])
    names = [t.get_text().split("\n")[0] for t in fig.axes[0].texts]
    assert names == [f"A{a + 1}" for a in firing] + ["bias"]
    assert f"the {len(firing)} A-units this card fires" in fig.get_suptitle()


def test_dials_figure_marks_end_stops(card_maker):
    cards, labels = card_maker(6, np.random.default_rng(1))
    m = MarkI(spec=specs.SMALL.ideal(), seed=0).fit(cards, labels, epochs=1)
    m.rack_.p_to[0, 0] = 1.0                            # a wiper at its end stop
    m.rack_.p_to[0, 1] = -1.0
    fig = dials_figure(m)
    assert "2 at an end stop" in fig.axes[0].get_title()
    colors = fig.axes[0].collections[2].get_colors()    # the two are the furthest moved: shown first
    np.testing.assert_allclose(colors[:2], [[0, 0, 0, 1], [0, 0, 0, 1]])


def test_dials_figure_full_rack_is_fast(card_maker):
    import time
    cards, labels = card_maker(8, np.random.default_rng(2), shapes=("x", "box", "bar", "plus"))
    spec = specs.MARK_I.ideal().with_overrides({"response.code": "binary"})
    m = MarkI(spec=spec, seed=0).fit(cards, labels, epochs=1)
    assert m.weights_.shape == (8, 513)                  # 4104 pots
    t0 = time.process_time()                            # CPU time: the machine is shared
    fig = dials_figure(m)
    fig.canvas.draw()
    assert time.process_time() - t0 < 10.0
    assert len(fig.axes) == 9


# -- weights_on_retina_figure ---------------------------------------------------------------

def test_weights_on_retina_equals_direct_sum(trained, tmp_path):
    m, _, _ = trained
    fig = weights_on_retina_figure(m, out=tmp_path / "w.png")
    w = m.weights_
    conn = m.patchboard.connections
    rows, cols = m.patchboard.retina_shape
    images = [ax.images[0] for ax in fig.axes if ax.images]
    assert len(images) == w.shape[0] and len(fig.axes) == w.shape[0] + 1
    for k, im in enumerate(images):
        direct = np.zeros(rows * cols)
        for a in range(conn.shape[1]):                   # Σ_a w[k, a] · connections[:, a], bias left out
            direct += w[k, a] * conn[:, a]
        np.testing.assert_allclose(np.asarray(im.get_array()), direct.reshape(rows, cols), atol=1e-12)
        lo, hi = im.get_clim()
        assert lo == -hi and hi > 0                      # diverging scale centred at 0


def test_weights_on_retina_multi_unit_labels(card_maker):
    cards, labels = card_maker(9, np.random.default_rng(3), shapes=("x", "box", "bar"))
    m = MarkI(spec=specs.SMALL.ideal(), seed=1).fit(cards, labels, epochs=2)
    fig = weights_on_retina_figure(m)
    titles = [ax.get_title() for ax in fig.axes if ax.images]
    assert len(titles) == 3
    assert [t.splitlines()[0] for t in titles] == [f"R-unit {k + 1}: {k}" for k in range(3)]


# -- fisher_histograms_figure ---------------------------------------------------------------

def _two_classes(d, rng):
    cov = np.eye(d)
    cov[0, 1] = cov[1, 0] = 0.9
    X = np.r_[rng.multivariate_normal(np.zeros(d), cov, 100),
              rng.multivariate_normal(np.r_[1.0, -0.5, np.zeros(d - 2)], cov, 100)]
    return X, np.repeat(["a", "b"], 100)


def test_fisher_histograms_2d_and_3d(tmp_path):
    rng = np.random.default_rng(4)
    X, y = _two_classes(2, rng)
    fig = fisher_histograms_figure(X, y, out=tmp_path / "f.png")
    assert len(fig.axes) == 3
    assert len(fig.axes[0].collections) == 2             # the two classes scattered
    X3, y3 = _two_classes(3, rng)
    fig3 = fisher_histograms_figure(X3, y3)
    assert len(fig3.axes) == 2
    # the class means are marked: vertical lines at the projected means
    from mark1.linear_model import FisherDiscriminant
    fd = FisherDiscriminant().fit(X3, y3)
    w = fd.coef_[0] / np.linalg.norm(fd.coef_[0])
    marked = sorted(line.get_xdata()[0] for line in fig3.axes[1].lines)
    np.testing.assert_allclose(marked, sorted([X3[y3 == c].mean(axis=0) @ w for c in ("a", "b")]))
    # Fisher's J is at least that of the mean difference
    j = [float(ax.get_title().rsplit("J = ", 1)[1]) for ax in fig3.axes]
    assert j[1] >= j[0]


def test_fisher_histograms_needs_two_classes():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 2))
    with pytest.raises(ValueError):
        fisher_histograms_figure(X, np.arange(30) % 3)


# -- training_animation ---------------------------------------------------------------------

def test_animation_frames_are_evenly_spaced_and_end_on_the_last():
    for n, first, every in [(24, 3, 5), (200, 9, 4), (7, 7, 3), (10, 1, 1)]:
        p = _animation_frames(n, first, every)
        assert p[-1] == n and p[0] >= first and p[0] - every < first
        assert set(np.diff(p)) <= {every}


def test_animation_every_stage_and_the_run_s_own_numbers(card_maker, tmp_path):
    cards, labels = card_maker(12, np.random.default_rng(6))
    out = tmp_path / "a.gif"
    fig = training_animation(specs.SMALL, cards, labels, seed=2, out=out, epochs=2, every=3)
    full = MarkI(spec=specs.SMALL, seed=2, trace="full").fit(cards, labels, epochs=2)
    schedule = np.tile(np.arange(12), 2)
    first = max(int(np.argmax(labels[schedule] == c)) for c in full.classes_) + 1
    with Image.open(out) as im:
        assert im.format == "GIF" and im.size[0] >= 1000
        assert im.n_frames == len(_animation_frames(24, first + 1, 3))
    assert [p.name for p in tmp_path.iterdir()] == ["a.gif"]
    ax_card, ax_s, ax_a, ax_r, ax_pots, ax_w, ax_acc = fig.axes
    assert "presentation 24 of 24" in fig.get_suptitle()                      # counted from 1
    assert f"card {schedule[-1] + 1} of the deck" in ax_card.get_title()
    s = full.sense(cards[schedule])[-1]
    a = full.associate(s[None])[0]
    assert f"S-units firing: {int(s.sum())} of 400" == ax_s.get_title() and s.sum() == full.history_["s_active"][-1]
    assert f"A-units firing: {int(a.sum())} of 64" == ax_a.get_title()
    read = [d for _, e, p, d in full.trace_ if e == "R read" and p == 23][0]
    widths = [b.get_width() for b in ax_r.patches]
    assert np.array_equal(widths, full.read_sums_[23])                       # the sums the trainer read
    np.testing.assert_allclose(widths, [float(v) for v in read.split(";")[0].split()[1:]], rtol=5e-4)  # its trace
    assert len(ax_pots.patches) == 2 * (int(a.sum()) + 1)                     # before and after, + bias
    direct = _projected_weights(full.weights_, full.patchboard.connections,
                                         full.patchboard.retina_shape)[0]
    np.testing.assert_allclose(np.asarray(ax_w.images[0].get_array()), direct, atol=1e-12)
    with pytest.raises(ValueError, match="dpi"):
        training_animation(specs.SMALL, cards, labels, seed=0, out=out, dpi=50)
    with pytest.raises(ValueError, match="every"):
        training_animation(specs.SMALL, cards, labels, seed=0, out=out, every=0)


def test_animation_prefix_weights_equal_the_run_at_that_moment(card_maker):
    """Refitting on a prefix of the schedule gives the state of the full run then (analog machine)."""
    cards, labels = card_maker(10, np.random.default_rng(8))
    full = MarkI(spec=specs.SMALL, seed=4).fit(cards, labels, epochs=3)
    schedule = np.tile(np.arange(10), 3)
    p = 17
    part = MarkI(spec=specs.SMALL, seed=4).fit(cards[schedule[:p]], labels[schedule[:p]], epochs=1)
    same = ["label", "response", "correct", "units_erred", "pots_moved", "start", "s_active", "a_active"]
    np.testing.assert_array_equal(part.history_[same], full.history_[same][:p])     # not epoch/card numbers
    p = 30                                                # the whole run: the same final wipers
    part = MarkI(spec=specs.SMALL, seed=4).fit(cards[schedule[:p]], labels[schedule[:p]], epochs=1)
    np.testing.assert_array_equal(part.weights_, full.weights_)


# -- signs of life: progress bars on a terminal only ----------------------------------------

def test_progress_bar_only_on_a_terminal(monkeypatch):
    import io
    import sys

    from mark1._utils.progress import progress_bar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("CI", raising=False)
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    quiet = progress_bar(10, "card")                             # a log file or a pipe
    quiet.update(10)
    quiet.close()
    assert log.getvalue() == ""
    monkeypatch.setattr(sys, "stderr", Terminal())
    bar = progress_bar(10, "card")
    bar.update(10)
    bar.close()
    assert "card" in sys.stderr.getvalue()
    off = Terminal()
    monkeypatch.setattr(sys, "stderr", off)
    progress_bar(10, "card", show=False).update(10)              # asked for none
    monkeypatch.setenv("CI", "true")
    progress_bar(10, "card").update(10)                          # CI logs stay clean
    assert off.getvalue() == ""


def _run_cli(args, tmp_path, *, terminal: bool) -> str:
    """Run ``python -m mark1 ARGS``; stderr is a pseudo-terminal when ``terminal``, else a pipe."""
    import os
    import pty
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    env.pop("CI", None)
    if not terminal:
        r = subprocess.run([sys.executable, "-m", "mark1", *args], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        return r.stderr
    import threading

    import fcntl
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))   # a terminal's size
    chunks = []

    def drain():                                  # read while it runs: a full terminal would block it
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:                       # the terminal closed: everything read
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        r = subprocess.run([sys.executable, "-m", "mark1", *args], cwd=tmp_path, env=env,
                           stdout=subprocess.DEVNULL, stderr=follower, timeout=300)
    finally:
        os.close(follower)
        reader.join(timeout=30)
        os.close(leader)
    assert r.returncode == 0
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.skipif(not hasattr(__import__("os"), "openpty"), reason="needs a POSIX pseudo-terminal")
def test_no_bar_in_logs_but_one_on_a_terminal(tmp_path):
    from pathlib import Path

    demo = str(Path(__file__).resolve().parent.parent / "scenes" / "demo.toml")
    args = ["explain", demo, "--cards", "1"]
    assert _run_cli(args, tmp_path, terminal=False) == ""                   # stderr a pipe: no bar
    assert "card" in _run_cli(args, tmp_path, terminal=True)               # stderr a terminal: a bar


# -- one numbering for people ---------------------------------------------------------------

def test_event_line_counts_from_one_and_rounds_to_the_microsecond():
    from mark1.classroom.explain import event_line

    assert event_line(1.9999999999999998, "card change", 0, "card 0, lamps off") == (
        "    2.000000 s  presentation    1  card change        card 1 of the deck, lamps off")
    assert event_line(3.5, "R read", 9, "sums +0.1; answer X, card shows X").endswith(
        "presentation   10  R read             sums +0.1; answer X, card shows X")


def test_realtime_and_explain_number_cards_from_one(tmp_path, capsys):
    from pathlib import Path

    from mark1.cli import main

    demo = Path(__file__).resolve().parent.parent / "scenes" / "demo.toml"
    assert main(["run", str(demo), "--out", str(tmp_path / "rt"), "--realtime", "1e-6"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if " presentation " in ln]
    first = [ln for ln in lines if "card change" in ln][:2]
    assert "presentation    1" in first[0] and "card 1 of the deck" in first[0]
    assert "presentation    2" in first[1] and "card 0" not in " ".join(lines)
    for ln in lines:                                             # seconds, six decimals
        t = ln.split(" s ")[0].strip()
        assert len(t.split(".")[1]) == 6
    trace = (tmp_path / "rt" / "trace.csv").read_text().splitlines()
    assert trace[0] == "time_s,event,presentation,detail"
    rows = list(__import__("csv").reader(trace[1:]))
    assert rows[0][2] == "0" and rows[0][3] == "card 0, lamps off"   # the CSV counts from 0, as the arrays do
    assert all(len(r[0].split(".")[1]) == 6 for r in rows)      # 2.000000, not 1.9999999999999998


def test_summary_trace_times_round_to_the_microsecond(tmp_path, capsys):
    import csv
    from pathlib import Path

    from mark1.cli import main

    demo = Path(__file__).resolve().parent.parent / "scenes" / "demo.toml"
    assert main(["run", str(demo), "--out", str(tmp_path / "s"), "--json"]) == 0
    summary = __import__("json").loads(capsys.readouterr().out)
    with open(tmp_path / "s" / "trace.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["presentation"]) for r in rows] == list(range(summary["presentations"]))
    assert all(len(r["start"].split(".")[1]) == 6 for r in rows)
    assert rows[1]["start"] == f"{summary['spec']['timing']['period']:.6f}"


# -- learning curve, contact sheet, ablation ------------------------------------------------

def test_learning_curve_starts_at_the_first_full_window_and_shows_test_and_reported(trained):
    m, _, _ = trained
    n = len(m.history_)
    fig = learning_curve(m.history_, test_accuracy=0.9, reported=0.9, window=5)
    ax = fig.axes[0]
    curve = [ln for ln in ax.lines if ln.get_label().startswith("training accuracy")][0]
    x, y = curve.get_data()
    assert x[0] == 5 and x[-1] == n                                   # no point over fewer cards
    correct = m.history_["correct"].astype(float)
    np.testing.assert_allclose(y, [100 * correct[i - 5:i].mean() for i in range(5, n + 1)])    # in %
    assert ax.get_ylabel() == "accuracy (%)"
    test = [ln for ln in ax.lines if ln.get_label().startswith("test accuracy")][0]
    assert test.get_ydata()[0] == 90.0 and test.get_color() == NEUTRAL
    reported = [ln for ln in ax.lines if ln.get_label().startswith("reported")][0]
    assert test.get_marker() == "D" and reported.get_linestyle() == "--"  # equal values, both visible
    assert test.get_zorder() > reported.get_zorder()
    assert any(ln.get_label() == "chance 50 %" for ln in ax.lines)


def test_contact_sheet_marks_strays_and_keys_them():
    from pathlib import Path

    from mark1.stimuli.cards import experiment_seeds
    from mark1.stimuli.scenes import load_scene

    scene = load_scene(Path(__file__).resolve().parent.parent / "scenes" / "demo.toml")
    fig = contact_sheet(scene, seed=0, per_class=3)
    seed_train, _, seed_machine = experiment_seeds(0)
    stim = scene.stimuli("train", seed=seed_train, count=6)
    order = np.concatenate([np.flatnonzero(stim.labels == c)[:3] for c in scene.classes])
    cards = stim.cards[order]
    m = MarkI(spec=scene.machine_spec(), seed=seed_machine)
    seq = m.sense(cards)
    alone = np.concatenate([m.sense(c[None]) for c in cards])
    s_panels = [ax for ax in fig.axes                          # the S-unit panels are the RGB ones
                if ax.get_images() and np.asarray(ax.get_images()[0].get_array()).ndim == 3]
    shown = np.stack([np.asarray(ax.get_images()[0].get_array()) for ax in s_panels])   # (cards, 20, 20, 3)
    stray = np.all(np.isclose(shown, STRAY), axis=-1)
    firing = np.all(np.isclose(shown, to_rgb(FIRING)), axis=-1)
    np.testing.assert_array_equal(stray.reshape(len(cards), -1), seq & ~alone)
    np.testing.assert_array_equal((stray | firing).reshape(len(cards), -1), seq)
    key = " ".join(t.get_text() for t in fig.texts)
    assert "below 0.35 of paper white" in key
    assert (seq & ~alone).any(), "this deck has stray S-units, so the key must explain them"
    assert "light-adapted" in key and "blank paper" in key


def _ablation(time_change):
    from mark1.lab import Ablation

    names = ["backlash", "decay"]
    rows = [dict(variant="full", kind="reference", non_ideality=None, test_mean=0.9, test_std=0.01,
                 machine_time_h_mean=1.0, machine_time_h_std=0.0),
            dict(variant="ideal", kind="reference", non_ideality=None, test_mean=0.97, test_std=None,
                 machine_time_h_mean=1.0, machine_time_h_std=None)]
    for n, cost in zip(names, (5.0, 1.0)):
        for prefix, kind, ref in (("on", "on_alone", "ideal"), ("off", "off_alone", "full")):
            done = not (n == "decay" and prefix == "on")           # decay alone on: no result
            rows.append(dict(variant=f"{prefix}:{n}", kind=kind, non_ideality=n, reference=ref,
                             test_mean=0.92 if done else None, test_std=None,
                             machine_time_h_mean=1.0 + time_change, machine_time_h_std=0.0,
                             cost_points=cost if done else None, cost_low=cost - 3 if done else None,
                             cost_high=cost + 3 if done else None, costs=[cost - 1, cost + 1] if done else [],
                             verdict=("cost" if cost > 3 else "null") if done else None,
                             machine_time_h_change=(time_change or None) if done else None))
    return Ablation(scene="fake", seeds=[0, 1], rows=rows, non_idealities=names)


def test_ablation_figure_has_no_time_panel_when_no_time_changes():
    same = studies.ablation_figure(_ablation(0.0))
    assert len(same.axes) == 1
    assert "machine time the same as its reference in every arm (60 min)" in same.get_suptitle()
    differ = studies.ablation_figure(_ablation(0.5))
    assert len(differ.axes) == 2
    labels = [t.get_text() for t in differ.axes[0].get_yticklabels()]
    assert labels == ["decay (alone on: no result)", "backlash"]           # costliest on top
    xs = [ln.get_xdata()[0] for ln in differ.axes[1].lines if (ln.get_gid() or "").startswith("time:")]
    assert xs == [30.0, -30.0, -30.0]    # 0.5 h added, drawn in min: +change alone on, -change alone off
    assert differ.axes[1].get_xlabel() == "machine time added by it (min)"


# -- the examples' command line and the PRML plane ------------------------------------------

def test_script_parser_makes_the_folder_and_refuses_one_it_cannot(tmp_path, capsys):
    from mark1.viz import script_parser

    doc = "\nA title\n=======\n\nWhat the script shows.\n"
    ap = script_parser(doc, tmp_path / "example.py")
    assert ap.description == "A title"
    args = ap.parse_args([])
    assert args.out == tmp_path / "output" and args.out.is_dir()          # beside the script, made
    args = ap.parse_args(["--out", str(tmp_path / "a" / "b")])
    assert args.out.is_dir() and not hasattr(args, "seed")
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit) as e:
        ap.parse_args(["--out", str(tmp_path / "file" / "below")])
    assert e.value.code == 2 and "cannot make the folder" in capsys.readouterr().err


def test_plane_figure_keeps_its_limits_whatever_is_drawn():
    from mark1.viz import plane_figure

    fig, axes = plane_figure(2, 2, width=6, height=6, xlim=(-1, 1), ylim=(0, 3))
    assert len(axes) == 4 == len(fig.axes)
    for ax in axes:
        ax.scatter([5.0, -7.0], [9.0, -4.0])
        ax.contour(*np.meshgrid([-9.0, 9.0], [-9.0, 9.0]), [[0.0, 1.0], [1.0, 2.0]], levels=[1.0])
        assert ax.get_xlim() == (-1, 1) and ax.get_ylim() == (0, 3) and ax.get_aspect() == 1.0
