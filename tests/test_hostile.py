"""Hostile input, as an adversarial user would give it: each is one clear line and exit 2.

Every case of issue 11's list and its kind: nesting, symlink loops, names that are not
UTF-8, files that are not regular, non-finite arithmetic, an inert machine, an override
given twice, one image in both splits, hand-made wiring charts, output clashes, stale
temporary files, and work too large for the memory (refused before any card is drawn).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mark1 import specs
from mark1._utils import atomic
from mark1.stimuli import decks, scenes
from mark1.cli import main
from mark1.machine.mark_i import MarkI
from mark1.machine.patchboard import Patchboard
from mark1.exceptions import InputError
from mark1.stimuli.scenes import SceneError, load_scene

from test_scenes import image_folder, write  # noqa: E402  (the scene tests' helpers)

ROOT = Path(__file__).resolve().parents[1]

SMALL_SCENE = """
name = "hostile"
[stimuli]
source = "characters"
classes = ["X", "E"]
card_size = 20
size = 16
[train]
count = 4
[test]
count = 4
[machine]
preset = "SMALL"
[schedule]
epochs = 1
"""


def cli(capsys, *argv) -> tuple[int, list[str]]:
    """Run the CLI in-process; the exit status and the lines on stderr."""
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    return rc, err.strip().splitlines()


def refused(capsys, command, scene, *extra, key: str | None = None, out=None) -> str:
    """Assert exit 2 with one line naming the scene (and key); return the line."""
    out = out or scene.parent / "out"
    target = ["--out", out if command == "run" else out.with_suffix(".png")]
    rc, lines = cli(capsys, command, scene, *target, *extra)
    assert rc == 2 and len(lines) == 1, lines
    assert str(scene) in lines[0] or os.fsdecode(bytes(scene)) in lines[0], lines[0]
    if key is not None:
        assert f": {key}" in lines[0], lines[0]
    assert "Traceback" not in lines[0]
    return lines[0]


FOLDER = """
name = "f"
[stimuli]
source = "folder"
card_size = 20
[machine]
preset = "SMALL"
[schedule]
epochs = 1
"""


# ---------------------------------------------------------------------------------------
# files that are not scene files


def test_scene_path_fifo_device_oversize_loop_refused_before_reading(tmp_path, capsys):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    assert "FIFO" in refused(capsys, "run", fifo)           # would block forever if opened
    assert "FIFO" in refused(capsys, "render", fifo)
    if os.path.exists("/dev/zero"):
        rc, lines = cli(capsys, "run", "/dev/zero", "--out", tmp_path / "o")
        assert rc == 2 and len(lines) == 1 and "character device" in lines[0]
    big = write(tmp_path, SMALL_SCENE + "\n" + "# padding\n" * 200_000, "big.toml")
    assert "at most 1,000,000 bytes" in refused(capsys, "run", big)
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    assert "symlink loop" in refused(capsys, "run", loop)


def test_long_name_and_deep_nesting(tmp_path, capsys):
    p = write(tmp_path, SMALL_SCENE.replace('name = "hostile"', f'name = "{"n" * 20_000}"'))
    assert "at most 200 characters" in refused(capsys, "run", p, key="name")
    header = "[machine.overrides." + ".".join(["a"] * 3000) + "]\nx = 1\n"
    p = write(tmp_path, SMALL_SCENE + header)
    line = refused(capsys, "run", p, key="machine.overrides.a.a")
    assert "nested at most" in line and len(line) < 400
    p = write(tmp_path, SMALL_SCENE + "[machine.overrides.rack.motor_speed]\nx = 1\n")
    refused(capsys, "run", p, key="machine.overrides.rack.motor_speed")


# ---------------------------------------------------------------------------------------
# paths inside the scene


def test_symlink_loop_as_folder_or_font(tmp_path, capsys):
    (tmp_path / "imgs").symlink_to(tmp_path / "imgs")
    p = write(tmp_path, FOLDER.replace('card_size = 20', 'card_size = 20\nfolder = "imgs"'))
    assert "symlink loop" in refused(capsys, "run", p, key="stimuli.folder")
    assert "symlink loop" in refused(capsys, "render", p, key="stimuli.folder")
    (tmp_path / "f.ttf").symlink_to(tmp_path / "f.ttf")
    p = write(tmp_path, SMALL_SCENE.replace("size = 16", 'size = 16\nfont = "f.ttf"'))
    assert "symlink loop" in refused(capsys, "run", p, key="stimuli.font")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_font_that_is_a_fifo_or_a_folder(tmp_path, capsys):
    os.mkfifo(tmp_path / "f.ttf")
    p = write(tmp_path, SMALL_SCENE.replace("size = 16", 'size = 16\nfont = "f.ttf"'))
    assert "FIFO" in refused(capsys, "run", p, key="stimuli.font")
    (tmp_path / "dir.ttf").mkdir()
    p = write(tmp_path, SMALL_SCENE.replace("size = 16", 'size = 16\nfont = "dir.ttf"'))
    assert "folder" in refused(capsys, "run", p, key="stimuli.font")


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses names that are not UTF-8")
def test_class_folder_name_not_utf8_is_shown_escaped(tmp_path, capsys):
    image_folder(tmp_path / "imgs", {"dark": 3, "light": 3})
    bad = os.path.join(os.fsencode(tmp_path / "imgs"), b"caf\xe9")
    os.mkdir(bad)
    for i in range(2):
        Image.new("L", (8, 8), 0).save(os.path.join(bad, b"%d.png" % i).decode("utf-8", "surrogateescape"))
    p = write(tmp_path, FOLDER.replace('card_size = 20', 'card_size = 20\nfolder = "imgs"'))
    for command in ("run", "render"):
        line = refused(capsys, command, p, key="stimuli.folder")
        assert "caf\\xe9" in line and "UTF-8" in line


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses names that are not UTF-8")
def test_scene_file_name_not_utf8_is_shown_escaped(tmp_path, capsys):
    name = os.path.join(os.fsencode(tmp_path), b"sc\xffene.toml")
    with open(name, "w") as f:
        f.write("[stimuli]\nsource = 3\n")
    rc, lines = cli(capsys, "run", os.fsdecode(name), "--out", tmp_path / "o")
    assert rc == 2 and len(lines) == 1 and "sc\\xffene.toml" in lines[0] and "stimuli.source" in lines[0]


def test_too_many_class_folders(tmp_path, capsys):
    png = tmp_path / "one.png"
    Image.new("L", (4, 4), 0).save(png)
    data = png.read_bytes()
    root = tmp_path / "imgs"
    for c in range(scenes.MAX_CLASSES + 1):
        (root / f"c{c:04d}").mkdir(parents=True)
        for i in range(2):
            (root / f"c{c:04d}" / f"{i}.png").write_bytes(data)
    p = write(tmp_path, FOLDER.replace('card_size = 20', 'card_size = 20\nfolder = "imgs"'))
    t0 = time.process_time()                            # CPU time: the machine is shared
    assert "at most 1000 class subfolders" in refused(capsys, "render", p, key="stimuli.folder")
    assert time.process_time() - t0 < 60                       # refused from the listing, not rendered


# ---------------------------------------------------------------------------------------
# one image in both splits


@pytest.mark.parametrize("spelling", ["absolute", "dot", "symlinked classes", "hard links"])
def test_train_and_test_images_compared_as_files(tmp_path, capsys, spelling):
    image_folder(tmp_path / "imgs", {"dark": 3, "light": 3})
    if spelling == "absolute":
        test_folder = str(tmp_path / "imgs")
    elif spelling == "dot":
        test_folder = "imgs/./"
    elif spelling == "symlinked classes":
        (tmp_path / "other").mkdir()
        for c in ("dark", "light"):
            (tmp_path / "other" / c).symlink_to(tmp_path / "imgs" / c)
        test_folder = "other"
    else:
        for c in ("dark", "light"):
            (tmp_path / "other" / c).mkdir(parents=True)
            for f in (tmp_path / "imgs" / c).iterdir():
                os.link(f, tmp_path / "other" / c / f.name)
        test_folder = "other"
    text = FOLDER.replace('card_size = 20', 'card_size = 20\nfolder = "imgs"') + \
        f'[test]\nfolder = "{test_folder}"\n'
    p = write(tmp_path, text)
    line = refused(capsys, "run", p)
    assert "not trained on" in line or "disjoint" in line


def test_disjoint_folders_are_accepted(tmp_path):
    image_folder(tmp_path / "imgs", {"dark": 3, "light": 3})
    image_folder(tmp_path / "imgs_test", {"dark": 2, "light": 2})
    text = FOLDER.replace('card_size = 20', 'card_size = 20\nfolder = "imgs"') + '[test]\nfolder = "imgs_test"\n'
    scene = load_scene(write(tmp_path, text))
    assert len(scene.stimuli("test")) == 4


# ---------------------------------------------------------------------------------------
# machine overrides


@pytest.mark.parametrize("override,key", [
    ("timing.period = 1e308", "timing.period"),
    ("timing.settle = 1e300", "timing."),
    ("rack.wiper_noise = 1e308", "rack.wiper_noise"),
    ("rack.wiper_noise = 100.0", "rack.wiper_noise"),          # finite, but a coin toss
    ("rack.motor_speed = 1e-300", "rack.motor_speed"),
    ("rack.decay_time = 1e300", "rack.decay_time"),
    ("retina.lamp_level = 1e300", "retina.lamp_level"),
    ("retina.blur = 1000000", "retina.blur"),                   # was a hang: a kernel of 8e6 taps
    ("trainer.increment = 1e300", "trainer.increment"),
    ("patchboard.a_threshold = 1000000", "patchboard.a_threshold"),
    ("patchboard.a_threshold = 11", "patchboard.a_threshold"),
    ("patchboard.excitatory = 1", "patchboard.a_threshold"),    # the spec names the threshold it cannot reach
    ("patchboard.n_associators = 10000000", "patchboard."),
])
def test_override_that_overflows_or_makes_the_machine_inert(tmp_path, capsys, override, key):
    p = write(tmp_path, SMALL_SCENE + f"[machine.overrides]\n{override}\n")
    refused(capsys, "run", p, key=f"machine.overrides.{key}")


def test_one_override_in_two_spellings(tmp_path, capsys):
    p = write(tmp_path, SMALL_SCENE + '[machine.overrides]\n"rack.motor_speed" = 0.5\nrack.motor_speed = 0.01\n')
    assert "twice" in refused(capsys, "run", p, key="machine.overrides.rack.motor_speed")
    p = write(tmp_path, SMALL_SCENE + '[machine.overrides]\n"rack.motor_speed" = 0.5\n'
                                      '[machine.overrides.rack]\nmotor_speed = 0.01\n')
    assert "twice" in refused(capsys, "run", p, key="machine.overrides.rack.motor_speed")
    with pytest.raises(specs.SpecError) as e:
        specs.MARK_I.with_overrides({"rack.motor_speed": 0.5, "rack": {"motor_speed": 0.01}})
    assert e.value.key == "rack.motor_speed" and "twice" in str(e.value)
    with pytest.raises(specs.SpecError) as e:
        specs.MARK_I.with_overrides({"rack": {"motor_speed": {"deeper": {"still": 1}}}})
    assert e.value.key.startswith("rack.motor_speed")


def test_deep_overrides_in_the_api_do_not_exhaust_the_stack():
    deep: dict = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(specs.SpecError):
        specs.MARK_I.with_overrides(deep)
    with pytest.raises(SceneError) as e:
        scenes.scene_from_dict({"machine": {"overrides": deep}})
    assert "nested at most" in str(e.value)


# ---------------------------------------------------------------------------------------
# wiring charts plugged into a machine


def _chart(tmp_path, board: Patchboard) -> Path:
    path = tmp_path / "w.csv"
    board.save(path)
    return path


def test_hand_made_charts_are_checked_against_the_spec(tmp_path):
    spec = specs.SMALL                                   # 64 A-units, fan-out 40, threshold 2
    m = MarkI(spec=spec, seed=0)
    ok = Patchboard.load(_chart(tmp_path, m.patchboard))
    MarkI(spec=spec, seed=1).patchboard = ok              # its own chart fits
    few = np.zeros((400, 3), np.int8)
    few[:10, :] = 1
    with pytest.raises(ValueError, match="expected 64 A-units"):
        MarkI(spec=spec, seed=0).patchboard = Patchboard(few, (20, 20), 2)
    crowded = np.zeros((400, 64), np.int8)
    crowded[0, :] = 1                                     # S-unit 0 feeds all 64 > 40
    crowded[1:3, :] = 1
    with pytest.raises(ValueError, match="at most 40 A-units.*feeding 64"):
        MarkI(spec=spec, seed=0).patchboard = Patchboard(crowded, (20, 20), 2)
    dead = np.zeros((400, 64), np.int8)
    for a in range(64):
        dead[(a * 5) % 400, a] = 1                        # one excitatory input each, threshold 2
    with pytest.raises(ValueError, match="no A-unit could ever fire"):
        MarkI(spec=spec, seed=0).patchboard = Patchboard(dead, (20, 20), 2)
    with pytest.raises(ValueError, match="a_threshold 2"):
        MarkI(spec=spec, seed=0).patchboard = Patchboard(m.patchboard.connections, (20, 20), 3)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_chart_that_is_a_fifo_is_refused_before_reading(tmp_path):
    os.mkfifo(tmp_path / "w.csv")
    with pytest.raises(ValueError, match="not a regular file"):
        Patchboard.load(tmp_path / "w.csv")


# ---------------------------------------------------------------------------------------
# output


def test_output_clash_is_found_before_any_work(tmp_path, capsys):
    out = tmp_path / "out"
    (out / "summary.json").mkdir(parents=True)
    p = write(tmp_path, SMALL_SCENE)
    rc, lines = cli(capsys, "run", p, "--out", out)
    assert rc == 2 and len(lines) == 1 and "summary.json" in lines[0] and ".tmp" not in lines[0]
    assert sorted(x.name for x in out.iterdir()) == ["summary.json"]      # nothing written
    sheet = tmp_path / "sheet.png"
    sheet.mkdir()
    rc, lines = cli(capsys, "render", p, "--out", sheet)
    assert rc == 2 and len(lines) == 1


def test_a_killed_runs_tmp_is_cleaned_by_the_next_write(tmp_path):
    import subprocess
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()                                          # a pid that is gone
    target = tmp_path / "summary.json"
    stale = tmp_path / f".summary.json.{dead.pid}.abc123.tmp"
    stale.write_text("half")
    live = tmp_path / f".summary.json.{os.getppid()}.def456.tmp"     # a running process's: kept
    live.write_text("in progress")
    other = tmp_path / f".trace.csv.{dead.pid}.abc123.tmp"          # another target's: kept
    other.write_text("x")
    atomic.write_text(target, "{}\n")
    assert target.read_text() == "{}\n" and not stale.exists() and live.exists() and other.exists()


def test_a_folder_is_scanned_for_leftovers_once_per_process(tmp_path, monkeypatch):
    scans = []
    real = os.scandir
    monkeypatch.setattr(atomic.os, "scandir", lambda folder: scans.append(folder) or real(folder))
    for i in range(50):                                  # e.g. one record per lab job
        atomic.write_text(tmp_path / f"seed-{i:04d}.json", "{}\n")
    assert scans == [os.fspath(tmp_path)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"seed-{i:04d}.json" for i in range(50)]


# ---------------------------------------------------------------------------------------
# resources: refused up front, naming the key


@pytest.mark.parametrize("patch,key,limit", [
    ("[schedule]\nepochs = 1000000\n", "schedule.epochs", "1"),
    # one pass over 1,000,000 distinct cards: the 8-bit deck (400 MB) is the largest part
    ("[schedule]\nepochs = 1\n[train]\ncount = 1000000\n", "train.count", "0.5"),
])
def test_work_that_cannot_fit_is_refused_before_drawing_a_card(tmp_path, capsys, patch, key, limit):
    text = SMALL_SCENE.replace("[schedule]\nepochs = 1\n", "").replace("[train]\ncount = 4\n", "") + patch
    p = write(tmp_path, text)
    line = refused(capsys, "run", p, "--memory-limit", limit, key=key)
    assert "--memory-limit" in line


def test_large_decks_are_estimated_not_drawn(tmp_path, capsys):
    text = SMALL_SCENE.replace("card_size = 20", "card_size = 60").replace("size = 16", "size = 40") \
        .replace("count = 4\n[test]", "count = 60000\n[test]")
    scene = load_scene(write(tmp_path, text))
    res = scene.resources()
    assert res.presentations == 60_000 and res.parts["train.count"] >= 60_000 * 60 * 60
    refused(capsys, "run", Path(scene.path), "--memory-limit", "0.5", key="train.count")
    rc, lines = cli(capsys, "run", scene.path, "--memory-limit", "-1")
    assert rc == 2 and "--memory-limit" in lines[0]


def test_render_refuses_more_classes_than_a_sheet_can_show(tmp_path, capsys):
    classes = [f"{a}{b}" for a in "ABCDEFGHIJKLMNOPQRST" for b in "0123456789"][:61]
    text = SMALL_SCENE.replace('classes = ["X", "E"]', f"classes = {classes!r}".replace("'", '"')) \
        .replace("count = 4", "count = 61")
    p = write(tmp_path, text)
    assert "at most 60 classes" in refused(capsys, "render", p, key="stimuli.classes")


# ---------------------------------------------------------------------------------------
# compact decks: 8-bit reflectance, the same machine


def test_compact_deck_is_uint8_reproducible_and_read_as_reflectance(monkeypatch):
    scene = load_scene(ROOT / "scenes" / "demo.toml")
    monkeypatch.setattr(decks, "COMPACT_ABOVE", 0)
    monkeypatch.setattr(decks, "CHUNK_BYTES", 8 * 60 * 60 * 7)        # chunks of 7 cards
    a = scene.stimuli("train", seed=3, count=30)
    b = scene.stimuli("train", seed=3, count=30)
    assert a.cards.dtype == np.uint8 and np.array_equal(a.cards, b.cards)
    assert a.variation and all(len(v) == 30 for v in a.variation.values())
    # the machine reads uint8 as value / 255: the same training as the float deck
    spec = scene.machine_spec()
    m8 = MarkI(spec=spec, seed=1).fit(a.cards, a.labels, epochs=2)
    mf = MarkI(spec=spec, seed=1).fit(a.cards / 255.0, a.labels, epochs=2)
    assert np.array_equal(m8.history_, mf.history_) and np.array_equal(m8.weights_, mf.weights_)


def test_light_does_not_depend_on_the_chunk(monkeypatch):
    from mark1.machine import retina as retina_mod
    r = MarkI(spec=specs.SMALL, seed=0).retina
    cards = np.random.default_rng(5).random((50, 24, 24))
    whole = r.light(cards)
    monkeypatch.setattr(retina_mod, "_LIGHT_CHUNK_BYTES", 8 * 24 * 24 * 3)
    assert np.array_equal(r.light(cards), whole)
    assert np.array_equal(r.light(np.rint(cards * 255).astype(np.uint8)), r.light(np.rint(cards * 255) / 255))


def test_long_work_says_so_before_it_starts(tmp_path, capsys):
    import argparse
    from mark1.cli._options import check_budget
    p = write(tmp_path, SMALL_SCENE.replace("epochs = 1", "epochs = 1000000"))
    scene = load_scene(p)
    assert scene.resources().presentations == 4_000_000
    check_budget(argparse.Namespace(scene=str(p), memory_limit=None, trace="summary"), scene)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "4,000,000 presentations" in err[0] and "may take" in err[0]
    check_budget(argparse.Namespace(scene=str(p), memory_limit=None, trace="summary"),
                 load_scene(ROOT / "scenes" / "demo.toml"))
    assert capsys.readouterr().err == ""                          # a quick scene runs without a word


@pytest.mark.parametrize("command", ["compare", "ablate", "curves", "sweep"])
def test_lab_commands_check_the_budget_before_any_work(tmp_path, capsys, command):
    """Every job held at once counts: a limit below one run's estimate refuses the sweep."""
    p = write(tmp_path, SMALL_SCENE)
    extra = ["--param", "rack.backlash", "--values", "0,0.01"] if command == "sweep" else []
    rc, lines = cli(capsys, command, p, "--seeds", "2", "--memory-limit", "0.01", "--out", tmp_path / "out", *extra)
    assert rc == 2 and len(lines) == 1 and "--memory-limit" in lines[0] and str(p) in lines[0]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.json"))


@pytest.mark.parametrize("command", [["compare", "SCENE"], ["reenact"]])
def test_a_malformed_scheduler_address_is_one_line_before_connecting(tmp_path, capsys, command):
    p = write(tmp_path, SMALL_SCENE)
    argv = [str(p) if a == "SCENE" else a for a in command]
    rc, lines = cli(capsys, *argv, "--scheduler", "bogus", "--seeds", "1", "--out", tmp_path / "out")
    assert rc == 2 and len(lines) == 1 and "--scheduler" in lines[0] and "'bogus'" in lines[0]


def test_reenact_names_page_when_its_folder_is_a_file(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    rc, lines = cli(capsys, "reenact", "--page", tmp_path / "file" / "x.md", "--out", tmp_path / "out")
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("mark1: error: --page:")


def test_reenact_checks_the_budget_of_every_scene(tmp_path, capsys):
    rc, lines = cli(capsys, "reenact", "scenes/e_vs_f.toml", "--seeds", "2", "--memory-limit", "0.01",
                    "--out", tmp_path / "out")
    assert rc == 2 and len(lines) == 1 and "--memory-limit" in lines[0] and "e_vs_f.toml" in lines[0]


# ---------------------------------------------------------------------------------------
# issue 22, item 4: each reproducer of "Inputs that still break it" gives one line and exit 2
# (or the right answer), quickly


def cli_usage(capsys, *argv) -> tuple[int, list[str]]:
    """As :func:`cli`, also for argparse's own errors (SystemExit from the parser)."""
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as e:
        rc = e.code
    err = capsys.readouterr().err
    return rc, err.strip().splitlines()


def test_p_a_of_a_thousand_inputs_does_not_overflow(capsys):
    from mark1.theory import p_a
    assert p_a(1030, 0, 1, 0.5) == 1.0                            # 1 - 2 ** -1030
    assert p_a(1030, 0, 1030, 0.5) == pytest.approx(2.0 ** -1030, rel=1e-9)
    assert p_a(1030, 0, 1, 0.5, n=5000) == 1.0
    assert p_a(1030, 0, 515, 0.5) == pytest.approx(p_a(1030, 0, 515, 0.5, n=10**9), abs=1e-5)
    rc, lines = cli_usage(capsys, "theory", "p_a", "1030", "0", "1", "0.5")  # 400 S-points cannot hold 1030
    assert rc == 2 and len(lines) == 1 and "--n" in lines[0], lines
    rc = main(["theory", "p_a", "1030", "0", "1", "0.5", "--n", "5000"])
    assert rc == 0 and "1.0000" in capsys.readouterr().out


def test_p_a_of_a_huge_board_refused_before_summing(capsys):
    rc, lines = cli_usage(capsys, "theory", "p_a", "1000", "1000", "3", "0.5", "--n", "1000000000000")
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("mark1: error: x, y:"), lines
    rc, lines = cli_usage(capsys, "theory", "p_c", "300", "300", "3", "0.5", "0.5")
    assert rc == 2 and len(lines) == 1 and "x, y" in lines[0], lines


def test_minus_inf_is_blamed_on_its_own_argument(capsys):
    rc, lines = cli_usage(capsys, "theory", "p_a", "10", "5", "-inf", "0.5")
    assert rc == 2 and len(lines) == 1, lines
    assert "THETA" in lines[0] and "'-inf'" in lines[0] and "'0.5'" not in lines[0], lines[0]


@pytest.mark.parametrize("argv", [["theory", "--bogus"], ["run"], ["nosuchcommand"],
                                  ["theory", "p_a", "1", "2"], ["device"]])
def test_usage_errors_are_one_line(capsys, argv):
    rc, lines = cli_usage(capsys, *argv)
    assert rc == 2 and len(lines) == 1 and "error:" in lines[0] and "--help" in lines[0], lines


def test_out_under_a_file_says_the_file_is_in_the_way(tmp_path, capsys):
    (tmp_path / "F").write_text("")
    rc, lines = cli_usage(capsys, "theory", "--quick", "--out", tmp_path / "F" / "sub")
    assert rc == 2 and len(lines) == 1, lines
    assert "is a file, not a folder" in lines[0] and "permission" not in lines[0], lines[0]


def test_repeated_set_of_one_key_is_refused(tmp_path, capsys):
    rc, lines = cli_usage(capsys, "device", "rack", "--set", "rack.motor_speed=0.1",
                          "--set", "rack.motor_speed=0.5", "--out", tmp_path / "D")
    assert rc == 2 and len(lines) == 1 and "rack.motor_speed" in lines[0] and "--set" in lines[0], lines
    assert not (tmp_path / "D").exists()


def test_a_full_disk_names_the_file(tmp_path, capsys, monkeypatch):
    def full(self, *a, **k):
        raise OSError(28, "No space left on device")          # as a write reports it: no file name
    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OSError) as info:
        atomic.write_text(tmp_path / "result.txt", "x")
    assert info.value.filename == str(tmp_path / "result.txt") and info.value.errno == 28
    assert not list(tmp_path.iterdir())                        # no temporary file left


def test_a_grid_of_nine_million_points_is_refused_from_its_sizes(tmp_path, capsys):
    scene = write(tmp_path, SMALL_SCENE)
    a = ",".join(f"{0.01 + i * 1e-5:.6f}" for i in range(3000))
    b = ",".join(f"{0.1 + i * 1e-4:.5f}" for i in range(3000))
    rc, lines = cli_usage(capsys, "sweep", scene, "--param", "rack.motor_speed", "--values", a,
                          "--param", "retina.blur", "--values", b, "--seeds", "1", "--out", tmp_path / "sw")
    assert rc == 2 and len(lines) == 1, lines
    assert lines[0].startswith("mark1: error: --values:") and "9,000,000 runs" in lines[0], lines[0]
    assert not (tmp_path / "sw").exists()


@pytest.mark.parametrize("seed", [0, 1])
def test_uint8_and_float_cards_read_alike(seed):
    # the read-noise seed hashes the reflectance, so 8-bit k and float k / 255 are the same card
    rng = np.random.default_rng(seed)
    k = np.clip(rng.normal(128, 60, size=(60, 20, 20)), 0, 255).astype(np.uint8)
    labels = np.arange(60) % 2
    a = MarkI(spec=specs.MARK_I, seed=seed).fit(k, labels)
    b = MarkI(spec=specs.MARK_I, seed=seed).fit(k / 255.0, labels)
    assert np.array_equal(a.predict(k), b.predict(k / 255.0))
    assert np.array_equal(a.decision_function(k), b.decision_function(k / 255.0))
    assert np.array_equal(a.decision_function(k), b.decision_function(k))


def test_api_refuses_a_chart_too_large_for_memory(tmp_path, monkeypatch):
    from mark1.exceptions import BudgetError
    _memory(monkeypatch, 16 * 10**9)
    from mark1.machine.patchboard import _HEADER
    chart = tmp_path / "board.csv"
    chart.write_text(f"# retina_rows=20 retina_cols=20 associators=1000000000 a_threshold=1\n{_HEADER}\n")
    with pytest.raises(BudgetError, match=r"board.csv: associators: expected at most .* GB") as info:
        Patchboard.load(chart)
    assert "\n" not in str(info.value)


def _memory(monkeypatch, nbytes: int) -> None:
    """This machine's memory limit, whatever it is, replaced by ``nbytes`` (the tests then hold on any computer)."""
    from mark1._utils import limits
    monkeypatch.setattr(limits, "memory_limit", lambda gigabytes=None: limits.MemoryLimit(nbytes, "physical", "x"))


def test_api_refuses_a_deck_too_large_for_memory(tmp_path, monkeypatch):
    from mark1.exceptions import BudgetError, Mark1Error
    _memory(monkeypatch, 16 * 10**9)
    scene = write(tmp_path, SMALL_SCENE.replace("card_size = 20", "card_size = 60")
                  .replace("count = 4\n[test]", "count = 1000000\n[test]"))
    with pytest.raises(BudgetError, match=r"train.count: expected at most .* GB of memory") as info:
        load_scene(scene).stimuli("train", seed=0)
    assert isinstance(info.value, Mark1Error) and "28.80 GB" in str(info.value)
    with pytest.raises(BudgetError, match=r"^count: "):
        load_scene(scene).stimuli("test", seed=0, count=10**6)
    assert len(load_scene(scene).stimuli("test", seed=0).labels) == 4


def test_api_fit_refuses_a_machine_too_large_for_memory(monkeypatch):
    from mark1.exceptions import BudgetError
    _memory(monkeypatch, 10**5)                 # the Mark I's 400 x 512 sockets are 204,800 bytes
    cards, labels = np.zeros((4, 20, 20)), np.array([0, 1, 0, 1])
    with pytest.raises(BudgetError, match="^spec.patchboard.n_associators: expected at most"):
        MarkI(spec=specs.MARK_I, seed=0).fit(cards, labels)


@pytest.mark.parametrize("setting", ["rack.step_time=1e-12", "rack.step=1e-300"])
def test_a_ratchet_of_a_billion_steps_is_drawn_as_a_band(tmp_path, capsys, setting):
    rc, lines = cli_usage(capsys, "device", "rack", "--set", "rack.drive=ratchet", "--set", setting,
                          "--out", tmp_path / "D")
    assert rc == 0 and lines == [], lines
    assert (tmp_path / "D" / "rack.png").stat().st_size > 10_000


def _folder_of_16_bit_images(tmp_path):
    """A scene on a folder of 300 16-bit 200 x 200 images (80 kB each once decoded)."""
    for c in ("a", "b"):
        (tmp_path / "imgs" / c).mkdir(parents=True)
        for i in range(150):
            Image.new("I;16", (200, 200), 40000).save(tmp_path / "imgs" / c / f"{i:03d}.png")
    return write(tmp_path, FOLDER.replace('card_size = 20', 'card_size = 20\nfolder = "imgs"')
                 + "[train]\nsubset = [0, 0.8]\n[test]\nsubset = [0.8, 1]\n")


def test_a_folder_of_16_bit_images_is_refused_before_decoding(tmp_path, monkeypatch):
    from mark1.exceptions import BudgetError
    p = _folder_of_16_bit_images(tmp_path)
    scene = load_scene(p)
    decoded = []
    monkeypatch.setattr(scenes, "read_image", lambda *a: decoded.append(a) or np.ones((20, 20)))
    _memory(monkeypatch, 1_500_000)    # 240 cards twice (1.54 MB) and one 80 kB 16-bit image do not fit
    with pytest.raises(BudgetError, match=r"imgs: expected at most .* for 240 decoded images"):
        scene.stimuli("train", seed=0)
    assert decoded == []
    _memory(monkeypatch, 3_000_000)    # they fit: loaded
    assert len(scene.stimuli("train", seed=0).labels) > 0 and decoded


@pytest.mark.parametrize("command", ["run", "lesson"])
def test_cli_refuses_a_folder_of_16_bit_images_in_one_line(tmp_path, monkeypatch, capsys, command):
    # the API's refusal (Scene.stimuli's BudgetError, before any image is decoded) is the command's one line
    p = _folder_of_16_bit_images(tmp_path)
    decoded = []
    monkeypatch.setattr(scenes, "read_image", lambda *a: decoded.append(a) or np.ones((20, 20)))
    _memory(monkeypatch, 1_500_000)
    rc, lines = cli(capsys, command, p, "--out", tmp_path / "out")
    assert rc == 2 and len(lines) == 1, lines
    assert "imgs: expected at most" in lines[0] and "decoded images" in lines[0], lines[0]
    assert decoded == [] and not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------
# inputs that ended in a traceback, a wrapped counter, a file outside --out or a late refusal


def test_a_memory_limit_beyond_any_memory_holds_nothing_back(capsys):
    from mark1._utils.limits import memory_cap, memory_limit
    with memory_cap(1e300, name="--memory-limit"):
        assert 0 < memory_limit().bytes <= memory_limit(1e300).bytes    # the other limits decide


@pytest.mark.parametrize("command", ["run", "compare", "ablate", "curves", "sweep", "reenact"])
def test_memory_limit_1e300_is_no_traceback(tmp_path, capsys, command):
    reported = '[reported]\nsource = "none: a test"\nvalue = 0.9\n'
    scene = write(tmp_path, SMALL_SCENE + '[machine.overrides]\n"rack.drive" = "ratchet"\n"rack.step" = 1e-300\n'
                  + reported)
    extra = ["--param", "rack.backlash", "--values", "0,0.01"] if command == "sweep" else []
    argv = [command, scene, "--memory-limit", "1e300", "--out", tmp_path / "o", *extra]
    t0 = time.perf_counter()
    rc, lines = cli(capsys, *argv)
    # the limit is taken; the ratchet below float64's resolution is then refused before any work
    assert rc == 2 and len(lines) == 1 and "rack.step" in lines[0] and "OverflowError" not in lines[0], lines
    assert time.perf_counter() - t0 < 30
    assert not (tmp_path / "o").exists()


def test_a_ratchet_step_below_resolution_is_refused_before_work(tmp_path, capsys):
    scene = write(tmp_path, SMALL_SCENE + '[machine.overrides]\n"rack.drive" = "ratchet"\n"rack.step" = 1e-300\n')
    line = refused(capsys, "run", scene, key="machine.overrides.rack.step")
    assert "at least 2.2e-16" in line and len(line) < 300
    small = write(tmp_path, SMALL_SCENE, "small.toml")
    rc, lines = cli(capsys, "ablate", small, "--seeds", "1", "--workers", "1", "--at", "rack.drive=ratchet",
                    "--at", "rack.step=1e-300", "--out", tmp_path / "ab")
    assert rc == 2 and len(lines) == 1 and "rack.step" in lines[0] and "9223372036854775808" not in lines[0]
    assert not (tmp_path / "ab").exists()
    spec = specs.SMALL.with_overrides({"rack.drive": "ratchet", "rack.step": 1e-300})
    with pytest.raises(InputError, match=r"^spec\.rack\.step: expected a ratchet step of at least"):
        MarkI(spec=spec, seed=0).fit(np.zeros((2, 20, 20)), ["a", "b"])


def test_a_scene_named_dots_writes_nothing_outside_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "summary.json").write_text('{"mine": true}\n')
    scene = write(tmp_path, SMALL_SCENE, "...toml")
    for command in (["run"], ["lesson"], ["compare", "--seeds", "1"]):
        rc, lines = cli(capsys, command[0], scene, *command[1:])
        assert rc == 2 and len(lines) == 1 and "--out" in lines[0], lines
    assert (tmp_path / "summary.json").read_text() == '{"mine": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["...toml", "summary.json"]


@pytest.mark.parametrize("n", [257, 1000])
def test_classes_the_r_units_cannot_code_are_refused_from_the_list(tmp_path, capsys, n):
    classes = ", ".join(f'"c{i}"' for i in range(n))
    scene = write(tmp_path, SMALL_SCENE.replace('classes = ["X", "E"]', f"classes = [{classes}]"))
    t0 = time.process_time()
    line = refused(capsys, "run", scene, key="stimuli.classes")
    assert f"{n} classes do not fit" in line
    assert time.process_time() - t0 < 5                 # no card drawn (10-19 s before)


def test_a_two_face_split_too_small_for_its_classes_is_refused_up_front(capsys):
    rc, lines = cli(capsys, "compare", "typefaces", "--train-count", "26", "--seeds", "2")
    assert rc == 2 and len(lines) == 1 and "(>= 52), got 26" in lines[0], lines
    scene = load_scene("typefaces")
    with pytest.raises(SceneError, match=r"count: expected at least one card per class in each face"):
        scene.stimuli("train", seed=0, count=26)


def test_p_c_of_a_board_too_large_for_its_finite_form_is_refused_before_any_sum(capsys):
    t0 = time.process_time()
    rc, lines = cli_usage(capsys, "theory", "p_c", "1100", "0", "1", "0.5", "0.5", "--n", "5000")
    assert rc == 2 and len(lines) == 1 and "5,000,000 terms" in lines[0]
    assert time.process_time() - t0 < 5                 # 46 s of the infinite form's sum before


def test_the_api_raises_mark1_errors_only():
    import mark1
    cards = np.zeros((4, 20, 20))
    cards[:, :5] = 1.0
    with pytest.raises(mark1.Mark1Error, match="^epochs: expected at most"):
        MarkI(spec=specs.SMALL, seed=0).fit(cards, ["X", "E"] * 2, epochs=10**9)
    assert repr(MarkI(spec="junk")) == "MarkI(spec='junk', seed=None)"
    assert repr(MarkI(spec=specs.SMALL, seed=3)) == f"MarkI(spec={specs.SMALL.name!r}, seed=3)"
    with pytest.raises(SceneError, match="NUL"):
        load_scene("x\x00.toml")
    with pytest.raises(mark1.Mark1Error, match="^labels: expected labels of one kind"):
        MarkI(spec=specs.SMALL, seed=0).fit(cards, np.array(["X", 1, "E", 2.5], dtype=object))


def test_a_table_of_100000_nodes_gives_a_short_message(tmp_path, capsys):
    import mark1
    with pytest.raises(mark1.SpecError) as e:
        specs.MARK_I.with_overrides({"rack.law": "piecewise", "rack.piecewise_up": [2.0] * 100_000})
    assert str(e.value).startswith("rack.piecewise_up: expected a list of 1 to 64") and len(str(e.value)) <= 1000
    rc, lines = cli_usage(capsys, "device", "rack", "--set", "rack.law=piecewise",
                          "--set", "rack.piecewise_up=" + ",".join(["2"] * 100_000), "--out", tmp_path / "d")
    assert rc == 2 and len(lines) == 1 and len(lines[0]) <= 1100
