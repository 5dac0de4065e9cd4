"""A warm run loads its compiled loops without numba's preparation for compiling, and finds
the sources its cache key holds without parsing them again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mark1.machine._kernels.pots as pots
import mark1.machine._kernels.presentation as presentation
from mark1._utils import compiled

ROOT = Path(__file__).resolve().parents[1]

# allocates (numba's runtime), hashes strings (the hash secrets' symbols), calls libm
KERNEL = """
import math, sys
import numpy as np
from mark1._utils import compiled, speed

speed.LOAD_LIGHT = {light}

@compiled.compiled
def work(n):
    out = np.empty(n)
    names = {{"a": 1.0, "bb": 2.0, "ccc": 3.0}}
    for i in range(n):
        out[i] = math.sqrt(i) + names["bb"] * len(names)
    return out

print(work(5).tolist())
print("numba.np.arraymath" in sys.modules, "scipy.linalg" in sys.modules)
"""


def _run(folder: Path, cache: Path, light: bool) -> list[str]:
    (folder / "kernel.py").write_text(textwrap.dedent(KERNEL.format(light=light)))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)])}
    out = subprocess.run([sys.executable, str(folder / "kernel.py")], env=env, capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    assert "cannot be read" not in out.stderr          # loaded, not counted a miss
    values, flags = out.stdout.splitlines()
    return [values, *flags.split()]


def test_cached_code_loads_without_the_compilers_preparation_and_gives_the_same_values(tmp_path):
    cache = tmp_path / "cache"
    fresh = _run(tmp_path, cache, light=True)              # compiled: numba's preparation made
    assert fresh[1:] == ["True", "True"]
    assert any(cache.rglob("*.nbi"))
    warm = _run(tmp_path, cache, light=True)               # loaded: none of it
    assert warm == [fresh[0], "False", "False"]


@pytest.mark.slow
def test_numbas_own_load_gives_the_same_values(tmp_path):
    cache = tmp_path / "cache"
    fresh = _run(tmp_path, cache, light=True)
    plain = _run(tmp_path, cache, light=False)             # numba's own load: the same values
    assert plain == [fresh[0], "True", "True"]


# ---------------------------------------------------------------------------------------
# the imported sources: parsed once per version of a file, kept beside the cache

def _fresh_sources(path):
    compiled._forget_sources()
    compiled._memo.clear()
    return compiled.imported_sources(path)


@pytest.fixture
def memo_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(compiled, "_writable_dir", lambda: tmp_path)
    yield tmp_path
    compiled._forget_sources()
    compiled._memo.clear()


def test_the_kept_names_give_the_parsed_sources(memo_dir, monkeypatch):
    parsed = _fresh_sources(presentation.__file__)
    kept = json.loads((memo_dir / compiled._IMPORTS).read_text())
    assert len(kept) == len(parsed)                      # one entry a file reached
    monkeypatch.setattr(compiled, "_imported_names", lambda *a: pytest.fail("parsed again"))
    assert _fresh_sources(presentation.__file__) == parsed
    assert any(p.name == "specs.py" for p in parsed)


def test_a_damaged_or_foreign_file_of_names_is_parsed_again(memo_dir):
    parsed = _fresh_sources(pots.__file__)
    path = memo_dir / compiled._IMPORTS
    for text in ("not json", json.dumps(["a list"]),
                 json.dumps({k: "mark1.specs" for k in json.loads(path.read_text())}),   # not a list of lists
                 json.dumps({k: [[1, 2]] for k in json.loads(path.read_text())})):
        path.write_text(text)
        assert _fresh_sources(pots.__file__) == parsed


def test_an_edited_file_is_parsed_again(tmp_path, monkeypatch):
    package = tmp_path / "mark1"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("x = 1\n")
    (package / "b.py").write_text("y = 2\n")
    (package / "sub" / "k.py").write_text("from mark1 import a\n")
    monkeypatch.setattr(compiled, "_writable_dir", lambda: tmp_path)
    try:
        assert [p.name for p in _fresh_sources(package / "sub" / "k.py")] == ["k.py", "a.py"]
        (package / "sub" / "k.py").write_text("from mark1 import a\nfrom .. import b\n")
        assert [p.name for p in _fresh_sources(package / "sub" / "k.py")] == ["k.py", "a.py", "b.py"]
        assert len(json.loads((tmp_path / compiled._IMPORTS).read_text())) == 4   # both versions of k.py, a.py, b.py
    finally:
        _fresh_sources(package / "sub" / "k.py")
        compiled._memo.clear()
