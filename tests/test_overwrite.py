"""Nothing a command wrote before is replaced unless the user says ``--overwrite``.

A named ``--out`` that already holds results is refused in one line (status 2) before any
work; a default folder or file that holds results moves to the next free name
(``runs/demo-2``, ``contact_sheet-2.png``), said on stderr; ``--resume`` continues the last
run; ``--overwrite`` replaces.
"""

import argparse
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mark1.cli import _options, main
from mark1.exceptions import UsageError

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scenes" / "demo.toml"


def _tiny_scene(folder: Path) -> Path:
    scene = folder / "tiny.toml"
    scene.write_text('name = "tiny"\n[stimuli]\nsource = "characters"\nclasses = ["X", "E"]\nsize = 20\n'
                     '[train]\ncount = 4\n[test]\ncount = 2\n[machine]\npreset = "SMALL"\n'
                     '[schedule]\nepochs = 1\n')
    return scene


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_named_folder_with_results_is_refused_in_one_line_and_left_as_it_was(tmp_path, capsys):
    scene = _tiny_scene(tmp_path)
    out = tmp_path / "out"
    assert main(["run", str(scene), "--out", str(out)]) == 0
    before = _snapshot(out)
    capsys.readouterr()
    assert main(["run", str(scene), "--out", str(out), "--seed", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0] and "--overwrite" in err[0] and "summary.json" in err[0]
    assert _snapshot(out) == before


def test_overwrite_replaces_what_the_run_writes_and_nothing_else(tmp_path, capsys):
    scene = _tiny_scene(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert main(["run", str(scene), "--out", str(out)]) == 0       # a folder without mark1's files is free
    first = json.loads((out / "summary.json").read_text())
    assert main(["run", str(scene), "--out", str(out), "--seed", "1", "--overwrite", "--json"]) == 0
    capsys.readouterr()
    second = json.loads((out / "summary.json").read_text())
    assert (first["seed"], second["seed"]) == (0, 1)
    assert (out / "notes.txt").read_text() == "mine"


def test_the_default_folder_moves_to_the_next_free_name_and_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scene = _tiny_scene(tmp_path)
    assert main(["run", str(scene)]) == 0
    first = _snapshot(tmp_path / "runs" / "tiny")
    capsys.readouterr()
    assert main(["run", str(scene), "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert "runs/tiny-2" in captured.err and "--overwrite" in captured.err
    assert "runs/tiny-2/summary.json" in captured.out
    assert _snapshot(tmp_path / "runs" / "tiny") == first
    assert json.loads((tmp_path / "runs" / "tiny-2" / "summary.json").read_text())["seed"] == 1
    assert main(["run", str(scene), "--seed", "2", "--json"]) == 0
    assert json.loads((tmp_path / "runs" / "tiny-3" / "summary.json").read_text())["seed"] == 2


def test_a_default_contact_sheet_is_never_replaced(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scene = _tiny_scene(tmp_path)
    assert main(["render", str(scene)]) == 0
    assert main(["render", str(scene)]) == 0
    assert (tmp_path / "runs" / "tiny" / "contact_sheet.png").exists()
    assert (tmp_path / "runs" / "tiny" / "contact_sheet-2.png").exists()
    sheet = tmp_path / "sheet.png"
    sheet.write_bytes(b"not mark1's")
    capsys.readouterr()
    assert main(["render", str(scene), "--out", str(sheet)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already holds a result" in err[0]
    assert sheet.read_bytes() == b"not mark1's"


def test_a_study_s_named_folder_is_refused_unless_resumed_or_overwritten(tmp_path, capsys):
    out = tmp_path / "cmp"
    out.mkdir()
    (out / "results.json").write_text("{}")
    argv = ["compare", str(DEMO), "--seeds", "1", "--out", str(out), "--workers", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--resume" in err[0] and "--overwrite" in err[0]
    assert (out / "results.json").read_text() == "{}"


def test_resume_continues_the_last_default_folder_that_holds_results(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = Path("runs") / "demo" / "compare"
    for folder in (base, base.with_name("compare-2"), base.with_name("compare-3")):
        folder.mkdir(parents=True)
    (base / "results.json").write_text("{}")
    (base.with_name("compare-2") / "results.json").write_text("{}")     # compare-3 is empty
    args = argparse.Namespace(out=None, scene="demo", resume=True, overwrite=False)
    assert _options.output_folder(args, "compare") == base.with_name("compare-2")
    args.resume = False
    assert _options.output_folder(args, "compare") == base.with_name("compare-3")


@settings(max_examples=40, deadline=None)
@given(taken=st.lists(st.booleans(), min_size=1, max_size=6))
def test_the_default_is_the_first_name_that_holds_nothing(taken, tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    names = ["demo"] + [f"demo-{k}" for k in range(2, len(taken) + 1)]
    for name, held in zip(names, taken):
        (root / name).mkdir()
        if held:
            (root / name / "summary.json").write_text("{}")
    args = argparse.Namespace(out=None, scene="", overwrite=False)
    chosen = _options.output_folder(args, default=root / "demo", writes=["summary.json"])
    free = [name for name, held in zip(names, taken) if not held]
    assert chosen.name == (free[0] if free else f"demo-{len(taken) + 1}")


def test_a_page_named_with_page_is_not_replaced_unasked(tmp_path):
    page = tmp_path / "PAGE.md"
    page.write_text("kept")
    args = argparse.Namespace(page=str(page), overwrite=False, resume=False)
    with pytest.raises(UsageError, match=r"^--page: .*PAGE\.md already holds a result"):
        _options.output_file(args, page, formats=("md",), option="--page")
    args.resume = True                      # a resumed run rewrites its own page
    assert _options.output_file(args, page, formats=("md",), option="--page") == page
