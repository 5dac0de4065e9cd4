"""What a wheel and an sdist of mark1 carry: the built-in scenes, py.typed, the licence, the
lesson's assets (wheel); everything the tests need (sdist).

The build runs once for the module (``python -m build``, both archives, the wheel built
from the sdist as pip would; about 15 s). It needs the build backend, which build fetches
from the package index into an isolated environment, as ``pip install`` does; without it
the build tests skip and say so.
"""

from __future__ import annotations

import email.parser
import importlib.util
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENES = sorted(p.name for p in (ROOT / "scenes").glob("*.toml"))


def _tracked(*folders: str) -> list[str]:
    """The files of ``folders`` the sdist must carry (git's list where there is a clone; else the folder)."""
    try:
        out = subprocess.run(["git", "ls-files", "--", *folders], cwd=ROOT, capture_output=True, text=True,
                             check=True, timeout=30).stdout.split()
    except (OSError, subprocess.SubprocessError):
        out = []
    if not out:                                     # an unpacked sdist: no git, the files themselves
        out = [str(p.relative_to(ROOT)) for f in folders for p in (ROOT / f).rglob("*")
               if p.is_file() and "__pycache__" not in p.parts]
    return [f for f in out if (ROOT / f).exists()]     # a file deleted but not yet committed is not shipped


def test_the_scenes_folder_is_mapped_onto_mark1_scenes():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"] == {"mark1.scenes": "scenes"}
    assert set(config["package-data"]["mark1.scenes"]) == {"*.toml", "README.md"}
    assert (ROOT / "scenes" / "__init__.py").is_file()         # a package: the editable install finds it
    assert '"mark1.scenes"' in (ROOT / "setup.py").read_text()


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    if importlib.util.find_spec("build") is None:
        pytest.skip("python -m build: no module build (it comes with pip install '.[test]')")
    out = tmp_path_factory.mktemp("dist")
    # run from the output folder: a build/ folder in the working one would shadow the module
    r = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                       capture_output=True, text=True, timeout=600, cwd=out)
    if r.returncode != 0:
        tail = (r.stdout + r.stderr).strip().splitlines()[-5:]
        if any(w in line for line in tail for w in ("No matching distribution", "Could not find a version",
                                                     "Failed to establish")):
            pytest.skip("the build backend could not be installed (no package index?): " + " | ".join(tail))
        pytest.fail("python -m build failed:\n" + "\n".join(tail))
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


def test_the_wheel_carries_every_scene_py_typed_and_the_lesson(dist):
    names = set(zipfile.ZipFile(dist["wheel"]).namelist())
    assert {f"mark1/scenes/{s}" for s in SCENES} <= names
    assert {"mark1/scenes/__init__.py", "mark1/scenes/README.md", "mark1/py.typed"} <= names
    assert {f"mark1/classroom/lesson/lesson.{ext}" for ext in ("html", "js", "css")} <= names
    modules = {str(p.relative_to(ROOT)) for p in (ROOT / "mark1").rglob("*.py") if "__pycache__" not in p.parts}
    assert modules <= names, sorted(modules - names)
    assert not any(n.startswith(("tests/", "scenes/", "docs/")) for n in names)


def test_the_wheel_states_the_licence_as_an_spdx_expression_and_carries_it(dist):
    zf = zipfile.ZipFile(dist["wheel"])
    info = next(n.split("/")[0] for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
    meta = email.parser.Parser().parsestr(zf.read(f"{info}/METADATA").decode())
    assert meta["License-Expression"] == "MIT" and meta.get_all("License-File") == ["LICENSE"]
    assert zf.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    assert "the mark1 developers" in (ROOT / "LICENSE").read_text()
    classifiers = meta.get_all("Classifier")
    assert "Typing :: Typed" in classifiers and not any(c.startswith("License ::") for c in classifiers)
    assert meta["Author"] == "The mark1 developers" and meta.get_all("Project-URL")


def test_the_sdist_carries_what_its_tests_need(dist):
    with tarfile.open(dist["sdist"]) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    need = _tracked("tests", "scenes", "examples", "benchmarks", "mark1")
    need += ["LICENSE", "CHANGELOG.md", "README.md", "CITATION.cff", "pyproject.toml", "setup.py", "MANIFEST.in"]
    assert "tests/conftest.py" in need and any(n.startswith("tests/data/") for n in need)
    missing = sorted(set(need) - names)
    assert missing == [], missing
    docs_read_by_tests = [f for f in _tracked("docs") if not f.startswith("docs/_build")]
    assert sorted(set(docs_read_by_tests) - names) == []
    assert not any("__pycache__" in n or n.startswith(("docs/_build/", "runs/", ".venv/")) for n in names)
