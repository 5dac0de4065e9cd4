"""Where the compiled loops are kept: never a crash where nothing is writable, nothing at import.

Each test runs a fresh interpreter, since numba's dispatchers and mark1's choice of cache
directory live for a process. "Unwritable" is made with a regular file where a directory
is expected, which stops root as well as anyone (chmod does not stop root).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# a tiny fit on the small machine; prints a digest of everything it learned
FIT = """
import hashlib, warnings
import numpy as np
warnings.simplefilter("default")
import mark1
rng = np.random.default_rng(0)
cards = (rng.random((12, 20, 20)) < 0.3).astype(float)
labels = np.array(["X", "E"] * 6)
m = mark1.MarkI(spec=mark1.SMALL, seed=1).fit(cards, labels, epochs=2)
h = hashlib.sha256()
for a in (m.predict(cards), m.decision_function(cards), m.mistakes_per_epoch_):
    h.update(np.ascontiguousarray(a).tobytes())
print(h.hexdigest(), repr(m.machine_time_))
"""

# every numba dispatcher of mark1's modules after the imports (every room: `import mark1` alone
# loads them on first use), and the signatures they hold
COUNT = """
import mark1, mark1.cli, mark1.cli._run, mark1.cli._lab, mark1.cli._theory, mark1.linear_model, sys
from numba.core.dispatcher import Dispatcher
from mark1._utils.compiled import compile_seconds
seen = {id(v): v for name, mod in list(sys.modules.items()) if name.startswith("mark1")
        for v in vars(mod).values() if isinstance(v, Dispatcher)}
print(len(seen), sum(len(d.signatures) for d in seen.values()), compile_seconds())
"""


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    full.update(env, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True,
                          timeout=600, cwd=ROOT, check=False)


def _unwritable(tmp_path: Path) -> Path:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory\n")
    return blocker / "cache"


def test_import_compiles_nothing(tmp_path):
    out = _python(COUNT, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    assert out.returncode == 0, out.stderr
    dispatchers, signatures, seconds = out.stdout.split()
    assert int(dispatchers) >= 10          # the loops were found: the count means something
    assert int(signatures) == 0            # none compiled nor loaded from the cache
    assert float(seconds) == 0.0
    assert "compiling" not in out.stderr


def test_an_unwritable_cache_gives_one_warning_and_the_same_results(tmp_path):
    # the user's own cache (a compile at most once, then loads): one uncached compile per suite
    cached = [_python(FIT) for _ in range(2)]
    for out in cached:
        assert out.returncode == 0, out.stderr
        assert "Mark1Warning" not in out.stderr
        assert "compiling" not in out.stderr        # stderr is no terminal here: no notice
    blocked = _unwritable(tmp_path)
    out = _python(FIT, NUMBA_CACHE_DIR=str(blocked))
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, out.stderr
    assert "Mark1Warning" in lines[0] and str(blocked) in lines[0] and "NUMBA_CACHE_DIR" in lines[0]
    assert out.stdout == cached[0].stdout == cached[1].stdout != ""


def test_an_unwritable_home_without_numba_cache_dir_imports(tmp_path):
    home = _unwritable(tmp_path)
    # matplotlib (imported by mark1.cli) warns on its own about an unwritable home unless
    # MPLCONFIGDIR is set: not mark1's line, so it is kept out of the count
    out = _python("import mark1, mark1.cli; from mark1._utils.compiled import writable_cache_dir; "
                  "print(writable_cache_dir())", HOME=str(home), MPLCONFIGDIR=str(tmp_path / "mpl"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "None"
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Mark1Warning" in lines[0], out.stderr
    assert str(home / ".cache" / "mark1" / "numba") in lines[0]


def test_the_cache_is_per_user_not_in_the_package(tmp_path):
    out = _python("from mark1._utils.compiled import cache_dir; print(cache_dir())",
                  HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert out.returncode == 0, out.stderr
    expected = tmp_path / "xdg" / "mark1" / "numba" if sys.platform.startswith("linux") else None
    if expected is not None:
        assert out.stdout.strip() == str(expected)
    assert not out.stdout.strip().startswith(str(ROOT / "mark1"))


def test_the_first_compile_says_so_once_on_a_terminal(tmp_path):
    pty = __import__("pytest").importorskip("pty")
    (tmp_path / "loops.py").write_text(
        "from mark1._utils.compiled import compiled\n"
        "@compiled\ndef one():\n    return 1\n"
        "@compiled\ndef two():\n    return one() + 1\n")
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    code = "import loops; print(loops.two(), loops.one())"
    try:
        out = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                             stderr=slave, text=True, timeout=300, check=False)
        os.close(slave)
        said = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:         # the terminal closed: all read
                break
            if not chunk:
                break
            said += chunk
    finally:
        os.close(master)
    assert out.returncode == 0
    assert out.stdout.split() == ["2", "1"]
    lines = said.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("compiling the machine's loops, once: about "), lines


def test_changed_numba_internals_fall_back_to_numba_cache_with_one_warning(tmp_path):
    (tmp_path / "loops.py").write_text(
        "from mark1._utils.compiled import compiled\n"
        "@compiled\ndef one():\n    return 1\n"
        "@compiled\ndef two():\n    return one() + 1\n")
    cache = tmp_path / "cache"
    # a numba release without the cache class compiled.py builds on
    code = ("import numba, numba.core.caching as c; del c.CompileResultCacheImpl\n"
            "import warnings; warnings.simplefilter('default')\n"
            "import loops; print(loops.two())")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2"
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "numba's cache classes changed" in lines[0], out.stderr
    assert len(list(cache.rglob("*.nbi"))) == 2          # still cached, by numba's own cache
