"""Every subcommand that takes a scene, on a folder scene of the user's own images (issue 17, item 8).

A class brings its own cards: two class folders of small PNGs drawn with Pillow, a scene
with ``source = "folder"``, with and without ``count``. Each command gives its result
files (exit 0) or one clear line on stderr (exit 2), never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from mark1.cli import main
from mark1.stimuli.images import IMAGE_EXTENSIONS

SCENE = """
name = "own images"
[stimuli]
source = "folder"
folder = "imgs"
card_size = 20
[train]
subset = [0, 0.6]
{train_count}
[test]
subset = [0.6, 1]
{test_count}
[machine]
preset = "SMALL"
[schedule]
epochs = 1
"""


def own_images(root: Path, per_class: int = 5) -> Path:
    """Two class folders of small drawings: a bar down the card, a bar across, moved a little."""
    for cls in ("down", "across"):
        (root / cls).mkdir(parents=True, exist_ok=True)
        for i in range(per_class):
            img = Image.new("L", (24, 24), 255)
            d, o = ImageDraw.Draw(img), 4 + 3 * i
            d.rectangle((o, 2, o + 3, 21) if cls == "down" else (2, o, 21, o + 3), fill=0)
            img.save(root / cls / f"{i:02d}.png")
    return root


@pytest.fixture(params=["every image", "counted"])
def scene(request, tmp_path) -> Path:
    own_images(tmp_path / "imgs")
    counts = ("count = 6", "count = 4") if request.param == "counted" else ("", "")
    path = tmp_path / "mine.toml"
    path.write_text(SCENE.format(train_count=counts[0], test_count=counts[1]))
    return path


def answered(capsys, argv, *files: Path) -> str:
    """Run the CLI: exit 0 and every result file, or exit 2 and one line; the text printed."""
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if rc == 0:
        missing = [str(f) for f in files if not f.exists()]
        assert not missing, missing
    else:
        assert rc == 2 and len(err.strip().splitlines()) == 1, err
    return out


def test_run_render_explain_lesson(scene, tmp_path, capsys):
    out = tmp_path / "out"
    answered(capsys, ["run", scene, "--out", out / "run"],
             *(out / "run" / f for f in ("summary.json", "learning_curve.png", "trace.csv")))
    answered(capsys, ["render", scene, "--out", out / "sheet.png"], out / "sheet.png")
    told = answered(capsys, ["explain", scene, "--cards", "3"])
    assert "Card 1" in told
    answered(capsys, ["lesson", scene, "--out", out / "lesson"], out / "lesson" / "lesson.html")


def test_compare_says_the_folder_gives_the_same_cards(scene, tmp_path, capsys):
    out = tmp_path / "compare"
    answered(capsys, ["compare", scene, "--seeds", "1", "--workers", "1", "--out", out],
             out / "report.md", out / "results.json")
    report = (out / "report.md").read_text()
    assert "new cards" not in report and "the folder's own images, the same each seed" in report


@pytest.mark.parametrize("command,extra,result", [
    ("ablate", [], "ablation.csv"),
    ("curves", ["--points", "2"], "curves.csv"),
    ("sweep", ["--param", "rack.motor_speed", "--values", "0.01,0.1"], "sweep.csv"),
])
def test_studies(scene, tmp_path, capsys, command, extra, result):
    out = tmp_path / command
    answered(capsys, [command, scene, "--seeds", "1", "--workers", "1", "--out", out, *extra], out / result)


def test_an_unreadable_image_is_one_line_naming_what_loads(tmp_path, capsys):
    own_images(tmp_path / "imgs")
    (tmp_path / "imgs" / "down" / "00.png").write_bytes(b"\x89PNG not really")
    path = tmp_path / "mine.toml"
    path.write_text(SCENE.format(train_count="", test_count=""))
    rc = main(["run", str(path), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "00.png" in err[0]
    assert all(ext in err[0] for ext in IMAGE_EXTENSIONS)
