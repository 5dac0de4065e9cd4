"""Scene files: the shipped catalog, the format's rules, its errors, image folders, fuzzing."""

from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path

import numpy as np
import pytest

from mark1 import specs
from mark1.exceptions import SceneError
from mark1.stimuli import load_scene, scene_from_dict, schema, shipped_scenes

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "scenes").glob("*.toml"))


def small(scene) -> int:
    """A few cards: one per class (per face, where a split prints a second face), at least 8."""
    faces = 2 if any(st.second_font for st in scene.settings.values()) else 1
    return max(8, faces * len(scene.classes))


def write(tmp_path: Path, text: str, name: str = "scene.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


MINIMAL = """
name = "t"
[stimuli]
source = "characters"
classes = ["X", "E"]
[train]
count = 4
[test]
count = 4
"""


# ---------------------------------------------------------------------------------------
# the shipped catalog


def test_catalog_is_complete():
    names = {p.stem for p in SHIPPED}
    assert {"demo", "e_vs_x", "e_vs_x_any_rotation", "square_vs_circle", "square_vs_diamond", "e_vs_f",
            "left_right_marks", "typefaces", "alphabet", "parity"} <= names
    assert [p.name for p in shipped_scenes()] == [p.name for p in SHIPPED]


def test_built_in_scenes_are_the_package_data_of_mark1_scenes():
    from importlib import resources

    from mark1.stimuli import SCENES_DIR, scene_names

    try:
        folder = Path(str(resources.files("mark1.scenes")))      # installed: the package data
    except ModuleNotFoundError:                                  # mark1 imported from a source tree
        folder = ROOT / "scenes"
    assert folder.resolve() == SCENES_DIR.resolve()
    data = sorted(p.name for p in folder.iterdir() if p.name.endswith(".toml"))
    assert data == [p.name for p in SHIPPED] == [p.name for p in shipped_scenes()]
    assert all(p.parent == SCENES_DIR for p in shipped_scenes())
    assert scene_names() == [p.stem for p in SHIPPED]


@pytest.mark.parametrize("name", ["demo", "alphabet", "parity_points"])
def test_a_built_in_scene_loads_by_name_wherever_the_work_is(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                     # no scenes/ folder here
    by_name = load_scene(name)
    by_file = load_scene(ROOT / "scenes" / f"{name}.toml")
    assert by_name.name == by_file.name and Path(by_name.path).name == f"{name}.toml"
    assert Path(by_name.path).is_absolute() and Path(by_name.path).exists()
    assert np.array_equal(by_name.stimuli("train", seed=3, count=small(by_name)).cards,
                          by_file.stimuli("train", seed=3, count=small(by_file)).cards)


def test_a_file_that_exists_wins_over_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo").write_text(MINIMAL.replace('name = "t"', 'name = "mine"'))
    assert load_scene("demo").name == "mine"
    assert load_scene("demo").argument == "demo" and load_scene(tmp_path / "demo").argument == str(tmp_path / "demo")
    assert load_scene("e_vs_x").argument == "e_vs_x"          # how mark1 run and the lesson page name it
    assert load_scene("e_vs_x").name != "mine"


@pytest.mark.parametrize("name", ["demmo", "Demo", "e-vs-x", "scenes"])
def test_an_unknown_name_is_one_line_naming_every_built_in_scene(name, tmp_path, monkeypatch):
    from mark1.stimuli import scene_names

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SceneError) as e:
        load_scene(name)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{name}: ") and "built-in scene" in msg
    assert all(n in msg for n in scene_names())


def test_a_missing_path_is_still_a_missing_file_not_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                     # where scenes/demo.toml does not exist
    for path in (tmp_path / "demo.toml", "demo.toml", "scenes/demo.toml"):
        with pytest.raises(SceneError, match="expected an existing scene file, got no such file") as e:
            load_scene(path)
        assert str(e.value).endswith("(the built-in scene of that name is 'demo')")
    with pytest.raises(SceneError, match="got no such file$"):
        load_scene(tmp_path / "demo")
    with pytest.raises(SceneError, match="got no such file$"):
        load_scene("scenes/nothing_built_in.toml")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_scene_loads_and_renders(path):
    scene = load_scene(path)
    assert scene.name and scene.description.strip() and scene.path == str(path)
    assert isinstance(scene.reported, schema.Reported) and scene.reported.source
    assert scene.reported.value is None or 0 <= scene.reported.value <= 1
    assert scene.reported.value is not None or scene.reported.note      # say why there is no number
    assert isinstance(scene.schedule, schema.Schedule) and scene.schedule.order in ("cyclic", "shuffled")
    spec = scene.machine_spec()
    assert isinstance(spec, specs.MachineSpec)
    if scene.schedule.rule is not None:
        assert spec.trainer.rule == scene.schedule.rule
    n = small(scene)
    for split in schema.SPLITS:
        s = scene.stimuli(split, seed=0, count=n)
        assert s.cards.shape == (n, 60, 60) and s.cards.dtype == np.float64
        assert s.cards.min() >= 0 and s.cards.max() <= 1
        assert s.labels.shape == (n,) and list(s.classes) == sorted(set(s.labels))
        assert list(s.classes) == list(scene.classes)
        # balanced and alternating
        counts = [int((s.labels == c).sum()) for c in s.classes]
        assert max(counts) - min(counts) <= 1
        assert s.labels[0] != s.labels[1]
        # every card shows something
        assert np.all((1 - s.cards).sum(axis=(1, 2)) > 5)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_scene_is_deterministic(path):
    scene = load_scene(path)
    n = small(scene)
    a = scene.stimuli("train", seed=5, count=n)
    b = load_scene(path).stimuli("train", seed=5, count=n)
    c = scene.stimuli("train", seed=6, count=n)
    t = scene.stimuli("test", seed=5, count=n)
    assert np.array_equal(a.cards, b.cards) and np.array_equal(a.labels, b.labels)
    assert not np.array_equal(a.cards, c.cards)
    assert not np.array_equal(a.cards, t.cards)          # independent streams for the splits


def test_demo_is_small_and_reenactments_name_their_targets():
    demo = load_scene(ROOT / "scenes" / "demo.toml")
    assert demo.preset == "SMALL" and demo.settings["train"].count <= 50 and demo.schedule.epochs <= 10
    targets = {"e_vs_x": 1.0, "e_vs_x_any_rotation": 0.9, "square_vs_circle": 0.998,
               "square_vs_diamond": 1.0, "e_vs_f": 0.8, "typefaces": 0.85}
    for stem, value in targets.items():
        assert load_scene(ROOT / "scenes" / f"{stem}.toml").reported.value == pytest.approx(value)
    sc = load_scene(ROOT / "scenes" / "square_vs_circle.toml")
    assert sc.settings["train"].count * sc.schedule.epochs <= 10_000
    assert load_scene(ROOT / "scenes" / "alphabet.toml").machine_spec().response.code == "binary"
    for stem in ("parity", "connectedness"):
        p = load_scene(ROOT / "scenes" / f"{stem}.toml")
        assert "fail" in p.description and "fail" in p.reported.note


def test_typefaces_splits_hold_a_second_face():
    scene = load_scene(ROOT / "scenes" / "typefaces.toml")
    for st in (scene.settings["train"], scene.settings["test"]):
        assert st.second_font is not None and st.font != st.second_font   # another face (test_scene_fidelity.py)


def test_reported_keys_are_checked_with_one_line_errors():
    base = {"stimuli": {"classes": ["X", "E"]}}
    for key, bad in (("machine", "mk1"), ("scored", "train"), ("reading", "mark1"), ("expect", "maybe")):
        with pytest.raises(SceneError) as e:
            scene_from_dict({**base, "reported": {key: bad}}, path="s.toml")
        assert e.value.key == f"reported.{key}" and len(str(e.value).splitlines()) == 1
    with pytest.raises(SceneError) as e:
        scene_from_dict({**base, "reported": {"machine": "ibm704", "reading": "mark1-4096"}}, path="s.toml")
    assert e.value.key == "reported.reading"
    s = scene_from_dict({**base, "machine": {"preset": "mark1-512-split-64"},
                         "reported": {"machine": "mark1", "scored": "recall", "reading": "mark1-512-split-64"}})
    assert s.machine_spec().rack.topology == "split" and s.reported.scored == "recall"


# ---------------------------------------------------------------------------------------
# the format


def test_minimal_scene_defaults(tmp_path):
    s = load_scene(write(tmp_path, MINIMAL))
    assert s.schedule == schema.Schedule(epochs=10, order="cyclic", rule=None)
    assert s.reported == schema.Reported()
    assert s.machine_spec() == specs.MARK_I
    st = s.settings["train"]
    assert st.card_size == 60 and st.size == 40 and st.font == "default" and st.count == 4
    tr = s.stimuli("train")
    assert list(tr.labels) == ["X", "E", "X", "E"]
    no_name = load_scene(write(tmp_path, MINIMAL.replace('name = "t"', ""), "my_scene.toml"))
    assert no_name.name == "my_scene"


def test_test_table_overrides_and_jitter_merges(tmp_path):
    text = MINIMAL + """
[stimuli.jitter]
shift = 0.1
rotation = [-10, 20]
[test.jitter]
rotation = 45
"""
    s = load_scene(write(tmp_path, text))
    assert s.settings["train"].jitter.rotation == (-10, 20)
    assert s.settings["test"].jitter.rotation == (-45, 45)
    assert s.settings["test"].jitter.shift == (-0.1, 0.1)        # inherited from [stimuli.jitter]
    te = s.stimuli("test", seed=0, count=200)
    assert np.abs(te.variation["rotation"]).max() > 20
    assert np.abs(te.variation["shift_x"]).max() <= 0.1


def test_overrides_nested_and_dotted_and_rule(tmp_path):
    text = MINIMAL + """
[machine]
preset = "SMALL"
[machine.overrides]
rack.motor_speed = 0.5
retina = { blur = 0.0 }
[schedule]
rule = "gamma"
epochs = 3
order = "shuffled"
"""
    spec = load_scene(write(tmp_path, text)).machine_spec()
    assert spec.rack.motor_speed == 0.5 and spec.retina.blur == 0.0
    assert spec.trainer.rule == "gamma" and spec.patchboard.n_associators == 64


def test_count_argument(tmp_path):
    s = load_scene(write(tmp_path, MINIMAL))
    assert len(s.stimuli("train", count=7)) == 7
    for bad in (0, -1, 1.5, "3", True, 10**9):
        with pytest.raises(SceneError) as e:
            s.stimuli("train", count=bad)
        assert e.value.key == "count"
    with pytest.raises(SceneError):
        s.stimuli("train", count=1)                              # fewer cards than classes
    with pytest.raises(SceneError) as e:
        s.stimuli("validation")
    assert e.value.key == "split"
    for bad in (-1, 1.0, "0", None):
        with pytest.raises(SceneError) as e:
            s.stimuli("train", seed=bad)
        assert e.value.key == "seed"


# ---------------------------------------------------------------------------------------
# errors: one line, file, key, what was expected and what was got

ERRORS = [
    ("syntax", 'name = "t"\n[stimuli\n', None, "expected valid TOML"),
    ("unknown top", "nmae = 'x'\n" + MINIMAL, "nmae", "did you mean 'name'"),
    ("unknown stimuli key", MINIMAL.replace("classes", "clases = ['A', 'B']\nclasses"), "stimuli.clases",
     "did you mean 'classes'"),
    ("unknown jitter key", MINIMAL + "\n[stimuli.jitter]\nrotaton = 3\n", "stimuli.jitter.rotaton",
     "did you mean 'rotation'"),
    ("wrong type", MINIMAL.replace("count = 4\n[test]", "count = 'four'\n[test]"), "train.count",
     "expected an integer"),
    ("bool is not a number", MINIMAL + "\n[stimuli.jitter]\nshift = true\n", "stimuli.jitter.shift", "got true"),
    ("negative", MINIMAL + "\n[stimuli.jitter]\nscale = -1\n", "stimuli.jitter.scale", "got -1"),
    ("nan", MINIMAL + "\n[stimuli.jitter]\nrotation = nan\n", "stimuli.jitter.rotation", "got nan"),
    ("inf", MINIMAL + "\n[stimuli.jitter]\nnoise = inf\n", "stimuli.jitter.noise", "got inf"),
    ("range order", MINIMAL + "\n[stimuli.jitter]\nscale = [1.2, 0.8]\n", "stimuli.jitter.scale", "low <= high"),
    ("huge", MINIMAL.replace('"characters"', '"characters"\ncard_size = 100000'), "stimuli.card_size", "<= 512"),
    ("missing font", MINIMAL.replace('"characters"', '"characters"\nfont = "nope.ttf"'), "stimuli.font",
     "no such file"),
    ("char not in font", MINIMAL.replace('["X", "E"]', '["X", "ж"]'), "stimuli.classes", "not in font"),
    ("unknown shape", MINIMAL.replace('"characters"', '"shapes"').replace('["X", "E"]', '["square", "cirle"]'),
     "stimuli.classes", "did you mean 'circle'"),
    ("key for another source", MINIMAL.replace('"characters"', '"characters"\nfill = "outline"'), "stimuli.fill",
     "used by shapes"),
    ("missing folder", MINIMAL.replace('source = "characters"\nclasses = ["X", "E"]',
                                       'source = "folder"\nfolder = "no_such_dir"'), "stimuli.folder",
     "no such folder"),
    ("bad override", MINIMAL + "\n[machine.overrides]\nrack.motor_speed = -0.5\n",
     "machine.overrides.rack.motor_speed", "expected a value > 0"),
    ("unknown override", MINIMAL + "\n[machine.overrides]\nrack.motor_sped = 0.5\n",
     "machine.overrides.rack.motor_sped", "did you mean 'rack.motor_speed'"),
    ("bad preset", MINIMAL + "\n[machine]\npreset = 'SMAL'\n", "machine.preset", "did you mean 'SMALL'"),
    ("rule conflict", MINIMAL + "\n[machine.overrides]\ntrainer.rule = 'lms'\n[schedule]\nrule = 'alpha'\n",
     "schedule.rule", "same rule"),
    ("bad rule", MINIMAL + "\n[schedule]\nrule = 'delta'\n", "schedule.rule", "one of"),
    ("count in stimuli", MINIMAL.replace('classes = ["X", "E"]', 'classes = ["X", "E"]\ncount = 3'),
     "stimuli.count", "[train] or [test]"),
    ("one class", MINIMAL.replace('["X", "E"]', '["X"]'), "stimuli.classes", "2 to"),
    ("repeated class", MINIMAL.replace('["X", "E"]', '["X", "X"]'), "stimuli.classes", "no repeats"),
    ("table expected", "schedule = 3\n" + MINIMAL, "schedule", "expected a table"),
    ("reported value", MINIMAL + "\n[reported]\nvalue = 85\n", "reported.value", "<= 1"),
    ("shift for marks", 'name = "m"\n[stimuli]\nsource = "marks"\n[stimuli.jitter]\nshift = 0.1\n',
     "stimuli.jitter.shift", "mark's side is its class"),
    ("too many blobs", 'name = "p"\n[stimuli]\nsource = "parity"\nblobs = [1, 90]\n', "stimuli.blobs", "at most"),
    ("classes for parity", 'name = "p"\n[stimuli]\nsource = "parity"\nclasses = ["a", "b"]\n',
     "stimuli.classes", "used by"),
    ("geometry for parity", 'name = "p"\n[stimuli]\nsource = "parity"\n[test.jitter]\nrotation = 5\n',
     "test.jitter.rotation", "no shift, rotation"),
    ("format", "format = 2\n" + MINIMAL, "format", "expected an integer >= 1 and <= 1"),
]


@pytest.mark.parametrize("label,text,key,fragment", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_name_file_key_and_expectation(tmp_path, label, text, key, fragment):
    path = write(tmp_path, text)
    with pytest.raises(SceneError) as e:
        load_scene(path)
    err = e.value
    msg = str(err)
    assert "\n" not in msg
    assert err.path == str(path) and msg.startswith(f"{path}: ")
    assert err.key == key, msg
    assert fragment in msg, msg
    if key is not None:
        assert msg.startswith(f"{path}: {key}: expected"), msg


def test_missing_file_and_folder_and_bad_bytes(tmp_path):
    for p, fragment in ((tmp_path / "none.toml", "no such file"), (tmp_path, "folder")):
        with pytest.raises(SceneError, match=fragment):
            load_scene(p)
    bad = tmp_path / "bin.toml"
    bad.write_bytes(b"name = '\xff\xfe'\n")
    with pytest.raises(SceneError, match="UTF-8"):
        load_scene(bad)


def test_scene_error_is_a_value_error():
    assert issubclass(SceneError, ValueError)
    with pytest.raises(SceneError):
        load_scene(None)


def test_a_ttf_font_file_relative_to_the_scene(tmp_path):
    import shutil

    import matplotlib
    ttf = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    if not ttf.exists():  # pragma: no cover - matplotlib always ships it
        pytest.skip("no DejaVuSans.ttf in matplotlib")
    (tmp_path / "fonts").mkdir()
    shutil.copy(ttf, tmp_path / "fonts" / "dv.ttf")
    scene = load_scene(write(tmp_path, MINIMAL.replace('"characters"', '"characters"\nfont = "fonts/dv.ttf"')))
    assert scene.settings["train"].font == str(tmp_path / "fonts" / "dv.ttf")
    dv = scene.stimuli("train", count=2).cards
    default = load_scene(write(tmp_path, MINIMAL, "d.toml")).stimuli("train", count=2).cards
    assert dv.shape == default.shape and not np.array_equal(dv, default)
    # a file that is not a font
    (tmp_path / "fonts" / "fake.ttf").write_text("not a font")
    with pytest.raises(SceneError) as e:
        load_scene(write(tmp_path, MINIMAL.replace('"characters"', '"characters"\nfont = "fonts/fake.ttf"')))
    assert e.value.key == "stimuli.font" and "readable TTF/OTF" in str(e.value)


# ---------------------------------------------------------------------------------------
# image folders


def image_folder(root: Path, classes: dict[str, int], size=(16, 12)) -> Path:
    """A folder of class folders of small PNGs (also used by test_hostile)."""
    from PIL import Image
    rng = np.random.default_rng(0)
    for c, n in classes.items():
        (root / c).mkdir(parents=True, exist_ok=True)
        for i in range(n):
            a = np.full(size[::-1], 255, np.uint8)
            a[rng.integers(0, size[1] - 4):, : size[0] // 2] = 0 if c == "dark" else 128
            Image.fromarray(a).save(root / c / f"{i:02d}.png")
    return root


FOLDER_SCENE = """
name = "f"
[stimuli]
source = "folder"
folder = "imgs"
card_size = 24
"""


TEST_FOLDER = '[test]\nfolder = "imgs_test"\n'


def test_folder_source_reads_every_image(tmp_path):
    image_folder(tmp_path / "imgs", {"dark": 3, "light": 4})
    image_folder(tmp_path / "imgs_test", {"dark": 2, "light": 2})
    (tmp_path / "imgs" / "light" / "notes.txt").write_text("ignored")
    scene = load_scene(write(tmp_path, FOLDER_SCENE + TEST_FOLDER))
    assert scene.classes == ("dark", "light")
    s = scene.stimuli("train")
    assert len(s) == 7 and list(s.labels[:4]) == ["dark", "light", "dark", "light"]
    assert s.cards.shape == (7, 24, 24) and s.cards.min() == 0.0 and s.cards.max() == 1.0
    # a chosen count, balanced, with replacement beyond the images there are
    t = scene.stimuli("test", seed=1, count=10)
    assert [int((t.labels == c).sum()) for c in ("dark", "light")] == [5, 5]
    assert np.array_equal(t.cards, scene.stimuli("test", seed=1, count=10).cards)


def test_folder_subset_invert_and_jitter(tmp_path):
    image_folder(tmp_path / "imgs", {"dark": 4, "light": 4})
    text = FOLDER_SCENE + """
[train]
subset = [0, 0.5]
[test]
subset = [0.5, 1]
invert = true
[test.jitter]
shift = 0.1
"""
    scene = load_scene(write(tmp_path, text))
    tr, te = scene.stimuli("train"), scene.stimuli("test")
    assert len(tr) == 4 and len(te) == 4
    assert te.cards.mean() < tr.cards.mean() - 0.1            # inverted: much darker
    assert np.abs(te.variation["shift_x"]).max() <= 0.1


@pytest.mark.parametrize("layout,fragment", [
    ({"dark": 3}, "at least 2 class subfolders"),
    ({"dark": 3, "light": 1}, "at least 2 images in class 'light'"),
    ({"dark": 3, "light": 0}, "at least 2 class subfolders"),
])
def test_folder_rejects_one_class_or_too_few_images(tmp_path, layout, fragment):
    image_folder(tmp_path / "imgs", layout)
    with pytest.raises(SceneError) as e:
        load_scene(write(tmp_path, FOLDER_SCENE))
    assert e.value.key == "stimuli.folder" and fragment in str(e.value)


def test_folder_rejects_unreadable_image_and_unknown_class(tmp_path):
    image_folder(tmp_path / "imgs", {"dark": 3, "light": 3})
    image_folder(tmp_path / "imgs_test", {"dark": 2, "light": 2})
    (tmp_path / "imgs" / "light" / "99.png").write_bytes(b"\x89PNG garbage")
    scene = load_scene(write(tmp_path, FOLDER_SCENE + TEST_FOLDER))
    with pytest.raises(SceneError) as e:
        scene.stimuli("train")
    assert e.value.key == "stimuli.folder" and "99.png" in str(e.value)
    with pytest.raises(SceneError) as e:
        load_scene(write(tmp_path, FOLDER_SCENE + 'classes = ["dark", "ligth"]\n' + TEST_FOLDER))
    assert e.value.key == "stimuli.classes" and "did you mean 'light'" in str(e.value)


def test_test_split_may_not_reuse_training_images_or_ask_untrained_classes(tmp_path):
    image_folder(tmp_path / "imgs", {"dark": 3, "light": 3})
    with pytest.raises(SceneError) as e:
        load_scene(write(tmp_path, FOLDER_SCENE))
    assert e.value.key == "test.subset" and "disjoint" in str(e.value)
    with pytest.raises(SceneError) as e:
        load_scene(write(tmp_path, FOLDER_SCENE + "[train]\nsubset = [0, 0.6]\n[test]\nsubset = [0.5, 1]\n"))
    assert e.value.key == "test.subset"
    text = 'name = "c"\n[stimuli]\nsource = "characters"\nclasses = ["X", "E"]\n[test]\nclasses = ["X", "O"]\n'
    with pytest.raises(SceneError) as e:
        load_scene(write(tmp_path, text))
    assert e.value.key == "test.classes" and "'O'" in str(e.value)


# ---------------------------------------------------------------------------------------
# the README documents the format


def test_readme_documents_every_key():
    text = (ROOT / "scenes" / "README.md").read_text()
    for key in schema.KEYS:
        leaf = key.split(".")[-1]
        assert re.search(rf"^\| `([\w.]*\.)?{re.escape(leaf)}` \|", text, flags=re.M), \
            f"scenes/README.md has no table row for {key}"
    for source in schema.SOURCES:
        assert f'"{source}"' in text or f"`{source}`" in text


def test_readme_example_loads(tmp_path):
    text = (ROOT / "scenes" / "README.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", text, flags=re.S)
    assert blocks, "scenes/README.md needs a complete annotated example"
    scene = load_scene(write(tmp_path, blocks[0]))
    scene.stimuli("train", count=small(scene))


# ---------------------------------------------------------------------------------------
# fuzzing: mutated shipped scenes give SceneError and nothing else


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)  # pragma: no cover


def _toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def dump_toml(d: dict, prefix: str = "") -> str:
    lines, subs = [], []
    for k, v in d.items():
        if isinstance(v, dict):
            subs.append((k, v))
        else:
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    out = "\n".join(lines) + "\n"
    for k, v in subs:
        name = f"{prefix}.{_toml_key(k)}" if prefix else _toml_key(k)
        out += f"\n[{name}]\n" + dump_toml(v, name)
    return out


BAD_VALUES = [-1, 0, 1, -1e300, 1e300, 10**30, 2**70, math.nan, math.inf, -math.inf, "", "x", "default", True,
              [], [1], [1, 2, 3], [math.nan, 1], [1e9, -1e9], ["a", "b"], {"a": 1}, 0.5, -0.5, 3, 512, 513,
              [0, 0], [-360, 360], "MARK_I", "folder", "shapes", "marks", "parity", "characters",
              ["X", "X"], ["A"], ["square", "circle"]]


def _paths(d, prefix=()):
    for k, v in d.items():
        yield prefix + (k,)
        if isinstance(v, dict):
            yield from _paths(v, prefix + (k,))


def _mutate(data: dict, text: str, rng: np.random.Generator):
    """One mutation of a scene: (description, new text)."""
    import copy
    kind = rng.integers(0, 7)
    if kind == 0:  # truncated text
        cut = int(rng.integers(0, len(text)))
        return f"truncate at {cut}", text[:cut]
    if kind == 1:  # a random character inserted
        at = int(rng.integers(0, len(text)))
        ch = str(rng.choice(list("=[]{}\"'#.,\n 0x-")))
        return f"insert {ch!r} at {at}", text[:at] + ch + text[at:]
    d = copy.deepcopy(data)
    paths = list(_paths(d))
    path = paths[int(rng.integers(0, len(paths)))]
    parent = d
    for k in path[:-1]:
        parent = parent[k]
    leaf = path[-1]
    if kind == 2:
        del parent[leaf]
        desc = f"delete {'.'.join(path)}"
    elif kind == 3:
        parent[leaf + "x"] = parent.pop(leaf)
        desc = f"rename {'.'.join(path)}"
    elif kind == 4:
        target = parent[leaf] if isinstance(parent[leaf], dict) else parent
        target["unknown_key"] = 1
        desc = f"unknown key beside {'.'.join(path)}"
    else:
        v = BAD_VALUES[int(rng.integers(0, len(BAD_VALUES)))]
        if isinstance(parent[leaf], list) and parent[leaf] and rng.random() < 0.5:
            i = int(rng.integers(0, len(parent[leaf])))
            parent[leaf][i] = v                                  # one element of a list
            desc = f"{'.'.join(path)}[{i}] = {v!r}"
        else:
            parent[leaf] = v
            desc = f"{'.'.join(path)} = {v!r}"
    return desc, dump_toml(d)


MUTATIONS = 400   # per shipped scene


def test_fuzz_mutated_scenes_raise_only_scene_error(tmp_path):
    import tomllib
    rng = np.random.default_rng(np.random.SeedSequence(20260601))
    t0 = time.process_time()
    outcomes = {"error": 0, "ok": 0}
    for path in SHIPPED:
        text = path.read_text()
        data = tomllib.loads(text)
        for i in range(MUTATIONS):
            desc, mutated = _mutate(data, text, rng)
            if rng.random() < 0.3 and not desc.startswith(("truncate", "insert")):   # a second mutation
                try:
                    again = tomllib.loads(mutated)
                except tomllib.TOMLDecodeError:  # pragma: no cover
                    again = None
                if again:
                    desc2, mutated = _mutate(again, mutated, rng)
                    desc = f"{desc}; {desc2}"
            p = tmp_path / f"{path.stem}_{i}.toml"
            p.write_text(mutated)
            try:
                scene = load_scene(p)
                for split in schema.SPLITS:
                    scene.stimuli(split, seed=0, count=max(4, small(scene)))
                outcomes["ok"] += 1
            except SceneError as e:
                assert "\n" not in str(e) and str(e).startswith(str(p)), (desc, str(e))
                outcomes["error"] += 1
            except Exception as e:  # pragma: no cover - this is what the test hunts
                pytest.fail(f"{path.name}: mutation {desc!r} raised {type(e).__name__}: {e}")
    assert outcomes["error"] > 5 * len(SHIPPED) * MUTATIONS // 10 and outcomes["ok"] > 50, outcomes
    assert time.process_time() - t0 < 60                # CPU time: the machine is shared
