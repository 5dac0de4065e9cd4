"""Where the compiled loops are kept: never a crash where nothing is writable, nothing at import.

Each test runs a fresh interpreter, since numba's dispatchers and mark1's choice of cache
directory live for a process. "Unwritable" is made with a regular file where a directory
is expected, which stops root as well as anyone (chmod does not stop root).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mark1._utils.compiled import imported_sources, record_fields
from mark1.exceptions import Mark1Warning

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
import mark1, mark1.cli, sys
import mark1.machine, mark1.lab, mark1.linear_model, mark1.cli._run, mark1.cli._lab, mark1.cli._theory   # lazy
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
    (tmp_path / "tmp").mkdir()              # a TMPDIR that does not exist sends tempfile to /tmp, made long ago
    out = _python(FIT, NUMBA_CACHE_DIR=str(blocked), TMPDIR=str(tmp_path / "tmp"))   # the fallback: new, said
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, out.stderr
    assert "Mark1Warning" in lines[0] and str(blocked) in lines[0] and "NUMBA_CACHE_DIR" in lines[0]
    assert out.stdout == cached[0].stdout == cached[1].stdout != ""


def test_an_unwritable_home_without_numba_cache_dir_imports(tmp_path):
    home = _unwritable(tmp_path)
    # matplotlib (imported by mark1.cli) warns on its own about an unwritable home unless
    # MPLCONFIGDIR is set: not mark1's line, so it is kept out of the count
    (tmp_path / "tmp").mkdir()
    out = _python("import mark1, mark1.cli; from mark1._utils.compiled import writable_cache_dir; "
                  "print(writable_cache_dir())", HOME=str(home), MPLCONFIGDIR=str(tmp_path / "mpl"),
                  TMPDIR=str(tmp_path / "tmp"))
    assert out.returncode == 0, out.stderr
    fallback = tmp_path / "tmp" / f"mark1-{os.getuid()}" / "numba"
    assert out.stdout.strip() == str(fallback)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Mark1Warning" in lines[0], out.stderr
    assert str(home / ".cache" / "mark1" / "numba") in lines[0] and str(fallback) in lines[0]


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


# ---------------------------------------------------------------------------------------
# a read-only home: the private fallback under the temporary folder, compiled once per computer

TINY = """
import warnings
warnings.simplefilter("default")
from mark1._utils.compiled import compiled, compile_seconds, writable_cache_dir
@compiled
def twice(x):
    return 2 * x
print(twice(21), compile_seconds() > 0, writable_cache_dir())
"""


def test_a_read_only_home_compiles_once_per_computer_in_the_fallback(tmp_path):
    script = tmp_path / "tiny.py"                  # a file: code from `python -c` has no source to key on
    script.write_text(TINY)
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(_unwritable(tmp_path)), TMPDIR=str(tmp_path / "tmp"))
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600,
                           cwd=tmp_path, check=False) for _ in range(2)]
    fallback = tmp_path / "tmp" / f"mark1-{os.getuid()}" / "numba"
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout.split() == ["42", "True", str(fallback)]
    assert runs[1].stdout.split() == ["42", "False", str(fallback)]      # loaded: no compile the second time
    first = [line for line in runs[0].stderr.splitlines() if line.strip()]
    assert len(first) == 1 and "Mark1Warning" in first[0] and str(fallback) in first[0], runs[0].stderr
    assert runs[1].stderr.strip() == ""                                  # said once, where it was made
    assert (fallback.parent.stat().st_mode & 0o777) == 0o700


def test_a_fallback_others_can_write_is_refused_and_nothing_is_cached(tmp_path, monkeypatch):
    from mark1._utils import compiled
    monkeypatch.setattr(compiled, "cache_dir", lambda: _unwritable(tmp_path))
    shared = tmp_path / "shared" / "numba"
    shared.parent.mkdir(mode=0o777)
    shared.parent.chmod(0o777)                      # as another user could have made it
    monkeypatch.setattr(compiled, "fallback_dir", lambda: shared)
    monkeypatch.setattr(compiled, "_warned", set())
    with pytest.warns(Mark1Warning, match="compile in every process"):
        assert compiled._writable_dir.__wrapped__() is None
    assert not shared.exists()


# ---------------------------------------------------------------------------------------
# the key: version, every source the kernels' modules import, the records' field names


def _copy(tmp_path: Path) -> Path:
    dest = tmp_path / "pkg" / "mark1"
    shutil.copytree(ROOT / "mark1", dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _swap_drive_fields(package: Path) -> None:
    """Swap the ``step`` and ``step_time`` fields of RackSpec: Drive's fields change order."""
    specs = package / "specs.py"
    lines = specs.read_text().splitlines(keepends=True)
    i = next(k for k, line in enumerate(lines) if line.startswith("    step: float = param("))
    j = next(k for k, line in enumerate(lines) if line.startswith("    step_time: float = param("))
    assert j == i + 2                               # step is two lines (its param wraps), step_time one
    lines[i:j + 1] = [lines[j], *lines[i:j]]
    specs.write_text("".join(lines))


def _fresh_key(path: Path) -> tuple:
    from mark1._utils import compiled
    compiled._forget_sources()
    return compiled.index_key(path, ())


def test_the_key_changes_with_specs_py_found_through_the_imports(tmp_path):
    package = _copy(tmp_path)
    pots = package / "machine" / "_kernels" / "pots.py"
    found = {p.relative_to(package).as_posix() for p in imported_sources(pots)}
    assert {"specs.py", "machine/_kernels/features.py", "machine/_kernels/__init__.py"} <= found
    assert not any(p.startswith(("viz/", "lab/", "cli/")) for p in found)      # not the whole package
    before = _fresh_key(pots)
    (package / "viz" / "studies.py").write_text("# a room the kernels do not import\n")
    assert _fresh_key(pots) == before
    _swap_drive_fields(package)
    after = _fresh_key(pots)
    assert after[0] == before[0] and after[1] != before[1]


def test_the_key_changes_with_the_version(monkeypatch):
    from mark1._utils import compiled
    import mark1.machine._kernels.pots as pots
    key = compiled.index_key(pots.__file__, ())
    monkeypatch.setattr(compiled, "_version", lambda: "99.0")
    other = compiled.index_key(pots.__file__, ())
    assert other[0] == "mark1 99.0" != key[0] and other[1:] == key[1:]


def test_the_key_holds_the_records_field_names():
    from typing import NamedTuple

    from numba import typeof

    class A(NamedTuple):
        step: float
        step_time: float

    class B(NamedTuple):                   # the same types, the fields the other way round
        step_time: float
        step: float

    a, b = typeof(A(1.0, 2.0)), typeof(B(1.0, 2.0))
    assert record_fields((a,)) == ((f"{A.__module__}.{A.__qualname__}", ("step", "step_time")),)
    assert record_fields((b,))[0][1] == ("step_time", "step")
    from mark1.machine._kernels.pots import Drive, drive_of
    from mark1.specs import RackSpec
    assert record_fields((typeof(drive_of(RackSpec())),))[0][1] == Drive._fields


# the stale-cache case itself: a ratchet's 2 steps of 0.04 s; a key without the field names
# read step_time as step and gave 0.003 s
DURATION = """
from mark1._utils.compiled import compile_seconds
from mark1.machine._kernels.pots import move_duration
from mark1.specs import RackSpec
import mark1
print(mark1.__version__, round(move_duration(RackSpec(drive="ratchet"), 0.024), 6), compile_seconds() > 0)
"""


def _install(tmp_path: Path, version: str, swapped: bool) -> Path:
    """mark1 at one place, as an install of ``version`` would leave it (its metadata beside it)."""
    site = tmp_path / "site"
    shutil.rmtree(site, ignore_errors=True)
    package = _copy(tmp_path)
    if swapped:
        _swap_drive_fields(package)
    site.mkdir()
    shutil.move(package, site / "mark1")
    info = site / f"mark1-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: mark1\nVersion: {version}\n")
    return site


def _duration(tmp_path: Path, site: Path, cache: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
    env.update(PYTHONPATH=str(site), NUMBA_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", DURATION], env=env, capture_output=True, text=True, timeout=900,
                         cwd=tmp_path, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.slow
def test_reordered_fields_and_upgrades_over_one_warm_cache_give_the_fresh_results(tmp_path):
    cache = tmp_path / "cache"
    runs = [(_install(tmp_path, v, swapped), _duration(tmp_path, tmp_path / "site", cache))[1]
            for v, swapped in [("1.0", False), ("1.0", True), ("2.0", True), ("1.0", False), ("2.0", True)]]
    fresh = _duration(tmp_path, _install(tmp_path, "2.0", True), tmp_path / "empty")
    assert fresh == ["2.0", "0.08", "True"]
    assert runs[0] == ["1.0", "0.08", "True"]
    assert runs[1] == ["1.0", "0.08", "True"]       # specs.py reordered, same version: compiled anew
    assert runs[2] == ["2.0", "0.08", "True"]       # the upgrade: compiled anew
    assert runs[3] == ["1.0", "0.08", "False"]      # each version loads its own
    assert runs[4] == ["2.0", "0.08", "False"]


# a source edited (or an upgrade installed) while a process runs: the process compiles what it
# imported, so that code must not be kept under the key of the files now on disk
PROBE = """
from mark1.machine._kernels.probe_factor import FACTOR
from mark1._utils.compiled import compiled

@compiled
def scaled(x):
    return x * FACTOR
"""

EDIT_THEN_CALL = """
import sys, warnings
warnings.simplefilter("always")
from pathlib import Path
from mark1.machine._kernels import probe
Path(sys.argv[1]).write_text("FACTOR = 3.0\\n")           # edited after the import
print(probe.scaled(1.0))
"""


def test_code_compiled_from_sources_edited_since_import_is_not_kept(tmp_path):
    package = _copy(tmp_path)
    kernels = package / "machine" / "_kernels"
    (kernels / "probe_factor.py").write_text("FACTOR = 2.0\n")
    (kernels / "probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
    env.update(PYTHONPATH=str(package.parent), NUMBA_CACHE_DIR=str(tmp_path / "cache"))

    def run(*args: str) -> subprocess.CompletedProcess:
        out = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=600,
                             cwd=tmp_path, check=False)
        assert out.returncode == 0, out.stderr
        return out

    edited = run("-c", EDIT_THEN_CALL, str(kernels / "probe_factor.py"))
    assert edited.stdout.split() == ["2.0"]                 # the code it imported
    assert edited.stderr.count("changed on disk since this process imported them") == 1
    after = "from mark1.machine._kernels import probe; print(probe.scaled(1.0))"
    assert run("-c", after).stdout.split() == ["3.0"]       # compiled from the edited sources
    assert run("-c", after).stdout.split() == ["3.0"]       # and loaded from the cache


# ---------------------------------------------------------------------------------------
# an index that cannot be unpickled (written by another build, or damaged): a miss, not a crash

# the index of a build whose record class no longer exists: numba's own load raises
# a cached loop loaded light, or (the light load made to fail) by numba's own load: counted and logged
LOADED = """
import logging, sys
from mark1._utils import compiled as c
if sys.argv[1:] == ["fail"]:
    def _fails(target_context):
        raise RuntimeError("a symbol the light load does not know")
    c._ready_to_load = _fails
log = logging.getLogger("mark1._utils.compiled")
handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
log.addHandler(handler)
log.setLevel(logging.DEBUG)
@c.compiled
def twice(x):
    return 2 * x
print(twice(21), c.compile_seconds() > 0, c.LOADS["light"], c.LOADS["fallback"])
"""


def test_a_light_load_that_fails_falls_back_to_numba_s_own_counted_and_logged_not_warned(tmp_path):
    script = tmp_path / "loaded.py"
    script.write_text(LOADED)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path / "cache"))

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(script), *args], env=env, capture_output=True, text=True,
                              timeout=600, cwd=tmp_path, check=False)

    first, light, fell_back = run(), run(), run("fail")
    assert [r.returncode for r in (first, light, fell_back)] == [0, 0, 0], fell_back.stderr
    assert first.stdout.split() == ["42", "True", "0", "0"]         # compiled and kept
    assert light.stdout.split() == ["42", "False", "1", "0"]        # loaded light, nothing logged
    *said, last = fell_back.stdout.strip().splitlines()
    assert last.split() == ["42", "False", "0", "1"]                # loaded by numba's own load: no compile
    assert len(said) == 1 and said[0].startswith("DEBUG cached twice in ") and "RuntimeError" in said[0]
    assert "a symbol the light load does not know" in said[0]
    assert fell_back.stderr.strip() == ""                           # no warning: it costs well under a second


# AttributeError ("Can't get attribute 'MarkIDrive'") from unpickling it
_FOREIGN = b"cmark1.machine._kernels.pots\nMarkIDrive\n."


@pytest.mark.parametrize("payload", [_FOREIGN, b"\x80\x05garbage"], ids=["names a gone class", "damaged"])
def test_an_index_that_cannot_be_unpickled_is_a_miss_with_one_warning(tmp_path, payload):
    import pickle

    import numba
    script = tmp_path / "tiny.py"
    script.write_text(TINY)
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(cache))

    def run() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600,
                              cwd=tmp_path, check=False)

    first = run()
    assert first.returncode == 0 and first.stdout.split()[:2] == ["42", "True"], first.stderr
    indexes = list(cache.rglob("*.nbi"))
    assert len(indexes) == 1
    # numba's layout: its version pickled, then the (stamp, overloads) pickle, here unreadable
    indexes[0].write_bytes(pickle.dumps(numba.__version__, protocol=-1) + payload)
    with pytest.raises(Exception) as raised:                  # what numba's own load meets
        pickle.loads(payload)
    assert not isinstance(raised.value, OSError)
    second, third = run(), run()
    assert second.returncode == 0, second.stderr
    assert second.stdout.split()[:2] == ["42", "True"]        # compiled anew
    lines = [line for line in second.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Mark1Warning" in lines[0] and "cannot be read" in lines[0], second.stderr
    assert third.returncode == 0 and third.stdout.split()[:2] == ["42", "False"], third.stderr   # a fresh index
    assert third.stderr.strip() == ""


# ---------------------------------------------------------------------------------------
# two variants of one function compiled in two processes, both loaded in a third: each its own callees

def _variants_module() -> str:
    """A module whose ``outer`` calls ``inner`` (big enough that LLVM keeps it a function of
    its own, as the step keeps ``wiper_sums``) and reads ``OTHER``; ``inner`` reads ``FLAG``."""
    branches = "".join(f"        {'if' if j == 0 else 'elif'} v < {-5 + j * 0.25}:\n"
                       f"            out[i] += np.sin(v * {j + 1}) * np.cos(v + {j}) + np.exp(-abs(v) * {j + 1})\n"
                       for j in range(16))
    return ("import numpy as np\nfrom mark1._utils.compiled import compiled\n\nFLAG = True\nOTHER = True\n\n\n"
            "@compiled(refcounts=False)\ndef inner(x, k, out):\n    for i in range(x.shape[0]):\n"
            f"        v = x[i] * k\n{branches}"
            "        if FLAG:\n            out[i] += 100.0\n\n\n"
            "@compiled\ndef outer(x):\n    out = np.zeros_like(x)\n    inner(x, 0.5, out)\n    inner(x, 1.5, out)\n"
            "    inner(x, -1.0, out)\n    if OTHER:\n        out[0] += 1.0\n    return out.sum()\n")


# each variant named on the command line, in turn: its sum and whether it came from the cache
# (and how many functions named inner its code defines: 1 where LLVM kept inner whole)
VARIANTS = """
import sys
import numpy as np
import variants_probe as v
from mark1._utils.compiled import specialised
x = np.linspace(-5.0, 5.0, 101)
for name in sys.argv[1:]:
    f = specialised(v.outer, OTHER=False, **({"FLAG": False} if name == "off" else {}))
    total = f(x)
    lib = next(iter(f.overloads.values())).library
    mod = getattr(lib, "_shared_module", None) or getattr(lib, "_final_module", None)
    inners = "?" if mod is None else sum("5inner" in fn.name and not fn.is_declaration for fn in mod.functions)
    print(name, repr(total), "cached" if f.stats.cache_hits else "compiled", inners)
"""


def test_variants_compiled_in_two_processes_each_call_their_own_callee_when_loaded_in_one(tmp_path):
    # numba names code by an id it counted from 1 in each process: two processes compiling two
    # variants alike gave their callees one name, and a third loading both linked the first
    # one's callee into the second (its FLAG branch dropped, or kept where dropped)
    (tmp_path / "variants_probe.py").write_text(_variants_module())
    (tmp_path / "variants.py").write_text(VARIANTS)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]), NUMBA_CACHE_DIR=str(tmp_path / "cache"))

    def run(*names: str) -> dict[str, list[str]]:
        out = subprocess.run([sys.executable, str(tmp_path / "variants.py"), *names], env=env, capture_output=True,
                             text=True, timeout=600, cwd=tmp_path, check=False)
        assert out.returncode == 0, out.stderr
        return {line.split()[0]: line.split()[1:] for line in out.stdout.splitlines()}

    off, on = run("off")["off"], run("on")["on"]               # each compiled alone, in its own process
    assert off[1:] == on[1:] == ["compiled", "1"]              # inner kept a function of its own
    assert float(on[0]) - float(off[0]) == pytest.approx(100.0 * 3 * 101, rel=1e-9)    # FLAG's 100 a value
    both = run("off", "on")                                    # the first loaded defined its inner first
    assert both == {"off": [off[0], "cached", "1"], "on": [on[0], "cached", "1"]}


# ---------------------------------------------------------------------------------------
# an index naming a data file that holds another key's code (two processes saving at once)

HALVES = """
import sys
import numpy as np
from mark1._utils.compiled import compiled
@compiled
def half(x):
    return x // 2
for kind in sys.argv[1:]:
    before = sum(half.stats.cache_hits.values())
    value = half(np.int64(7) if kind == "int" else np.float64(7.0))
    print(kind, repr(value), "cached" if sum(half.stats.cache_hits.values()) > before else "compiled")
"""


def test_a_data_file_holding_another_key_s_code_is_a_miss(tmp_path):
    # numba's save takes the first data file name its index does not list: two processes
    # saving two signatures at once may both take it, the index naming one's file while
    # the file holds the other's code (here made so by swapping the two files)
    script = tmp_path / "halves.py"
    script.write_text(HALVES)
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(cache))

    def run() -> list[str]:
        out = subprocess.run([sys.executable, str(script), "int", "float"], env=env, capture_output=True, text=True,
                             timeout=600, cwd=tmp_path, check=False)
        assert out.returncode == 0, out.stderr
        assert out.stderr.strip() == "", out.stderr
        return out.stdout.splitlines()

    assert run() == ["int 3 compiled", "float 3.0 compiled"]
    first, second = sorted(cache.rglob("*.nbc"))                # one a signature
    swapped = first.read_bytes()
    first.write_bytes(second.read_bytes())
    second.write_bytes(swapped)
    assert run() == ["int 3 compiled", "float 3.0 compiled"]    # neither loaded the other's code
    assert run() == ["int 3 cached", "float 3.0 cached"]        # and each file holds its own again
