"""The first run on a cold cache: its loops run as Python where compiling them would take
longer than the run, with the same bits as compiled; from a terminal they then compile in a
background process for later runs."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mark1._utils import compiled, speed

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scenes" / "demo.toml"

#: Machines whose loops differ: the specs' own, timing and value systems, and each device preset.
VARIANTS = {
    "SMALL": ("SMALL", {}),
    "MARK_I": ("MARK_I", {}),
    "noise, overlap, slow motors": ("SMALL", {"rack.wiper_noise": 0.01, "timing.overlap": True,
                                              "rack.motor_speed": 0.01}),
    "ratchet, two drivers": ("SMALL", {"rack.drive": "ratchet", "rack.drivers": 2}),
    "gamma": ("SMALL", {"trainer.rule": "gamma"}),
    "lms, mean": ("SMALL", {"trainer.rule": "lms", "response.discrimination": "mean"}),
    "binary, spontaneous": ("SMALL", {"response.code": "binary", "trainer.reinforcement": "spontaneous"}),
    "decay": ("SMALL", {"rack.decay_time": 30.0}),
    "pcm": ("pcm", {}),
    "reram-es": ("reram-es", {}),
    "reram-sb": ("reram-sb", {}),
    "ecram": ("ecram", {}),
}

#: The few run in the default suite (each ~1 s as Python); the rest are marked slow.
QUICK = ("SMALL", "MARK_I", "pcm", "binary, spontaneous")


def _spec(base: str, overrides: dict):
    from mark1 import devices, specs
    spec = getattr(specs, base) if base in ("SMALL", "MARK_I") else devices.device_spec(base, specs.SMALL)
    return spec.with_overrides(overrides) if overrides else spec


def digests(names: list[str], seed: int) -> dict[str, str]:
    """A SHA-256 of each machine's run (history, weights, machine time, sums on new cards and,
    for the full trace, every event) on a small random deck."""
    from mark1 import MarkI
    rng = np.random.default_rng(seed)
    cards = rng.random((12, 20, 20))
    fresh = rng.random((6, 20, 20))
    out = {}
    for name in names:
        base, overrides = VARIANTS[name]
        labels = np.array(["a", "b", "c"] * 4 if "binary" in name else ["a", "b"] * 6)
        m = MarkI(spec=_spec(base, overrides), seed=seed, trace="full").fit(cards, labels, epochs=3)
        h = hashlib.sha256()
        for field in m.history_.dtype.names:
            h.update(np.ascontiguousarray(m.history_[field]).tobytes())
        h.update(np.ascontiguousarray(m.weights_).tobytes())
        h.update(np.float64([m.machine_time_, m.waited_]).tobytes())
        h.update(np.ascontiguousarray(m.decision_function(fresh)).tobytes())
        h.update(repr(m.trace_.events).encode())
        out[name] = h.hexdigest()
    return out


def _as_python(names: list[str], seed: int) -> dict[str, str]:
    code = (f"import json, runpy; ns = runpy.run_path({str(Path(__file__))!r}); "
            f"print(json.dumps(ns['digests']({names!r}, {seed})))")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.skipif(not speed.compiler_on(), reason="numba's compiler is off: nothing to compare with")
@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("names", [pytest.param(list(QUICK), id="quick"),
                                   pytest.param([n for n in VARIANTS if n not in QUICK], id="the rest",
                                                marks=pytest.mark.slow)])
def test_the_loops_as_python_give_the_compiled_loops_bits(names, seed):
    """numba compiles the very functions Python runs (no fast-math, numpy's error model):
    each machine's run, with its full trace, is the same to the bit either way."""
    assert _as_python(names, seed) == digests(names, seed)


def _cli(args: list[str], cache: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg",
               "MARK1_COMPILE_NOTICE": "1", **env}
    for name in ("NUMBA_DISABLE_JIT", "MARK1_PYTHON_WHEN_COLD", "MARK1_COMPILE_AHEAD"):
        if name not in env:
            environ.pop(name, None)
    return subprocess.run([sys.executable, "-m", "mark1", *args], cwd=cwd, env=environ, capture_output=True,
                          text=True, timeout=900)


def _summary(folder: Path) -> dict:
    summary = json.loads((folder / "summary.json").read_text())
    summary.pop("wall_time_s")
    return summary


@pytest.mark.skipif(not speed.compiler_on(), reason="numba's compiler is off")
def test_a_short_run_on_a_cold_cache_runs_as_python_and_gives_the_compiled_results(tmp_path):
    from mark1.cli import main
    cache = tmp_path / "cache"
    cold = _cli(["run", str(DEMO), "--out", "cold"], cache, tmp_path)
    assert cold.returncode == 0, cold.stderr
    assert "they run as Python this time" in cold.stderr and "compiling the machine's loops" not in cold.stderr
    assert "run as Python this time (no compiled loops yet" in cold.stdout
    assert not any(cache.rglob("*.nbi")) and not (cache / compiled._RECORD).exists()     # nothing compiled
    assert main(["run", str(DEMO), "--out", str(tmp_path / "compiled")]) == 0      # this process: compiled
    assert _summary(tmp_path / "cold") == _summary(tmp_path / "compiled")
    assert (tmp_path / "cold" / "trace.csv").read_bytes() == (tmp_path / "compiled" / "trace.csv").read_bytes()


def _decides(cache: Path, seconds: float, first: str = "import sys", **env: str) -> str:
    code = f"{first}; from mark1._utils import compiled; print(compiled.python_when_cold({seconds}))"
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT), **env}
    if "NUMBA_DISABLE_JIT" not in env:
        environ.pop("NUMBA_DISABLE_JIT", None)
    if "MARK1_PYTHON_WHEN_COLD" not in env:
        environ.pop("MARK1_PYTHON_WHEN_COLD", None)
    out = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()[-1]


def compiled_warm(cache: Path) -> bool:
    """:func:`compiled.warm` in a process whose cache is ``cache``."""
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", "from mark1._utils import compiled; print(compiled.warm())"],
                         env=environ, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split() == ["True"]


@pytest.mark.skipif(not speed.compiler_on(), reason="numba's compiler is off")
def test_python_only_on_a_cold_cache_for_a_short_run_before_any_loop_is_imported(tmp_path):
    cache = tmp_path / "cache"
    assert _decides(cache, 1.0) == "True"
    assert _decides(cache, compiled.COLD_COMPILE_S) == "False"       # as long as the compile (both stretch alike)
    assert _decides(cache, 1.0, MARK1_PYTHON_WHEN_COLD="0") == "False"
    assert _decides(cache, 1.0, "import mark1.machine") == "False"               # too late to choose
    assert _decides(cache, 1.0, NUMBA_DISABLE_JIT="1") == "False"    # Python by the user's own choice: not ours
    # any process that keeps compiled code in the cache (a lab worker ending without exit
    # handlers, a test session) makes it warm
    kernel = tmp_path / "kernel.py"
    kernel.write_text("from mark1._utils.compiled import compiled\n"
                      "@compiled\ndef twice(x):\n    return 2 * x\n"
                      "import os\nprint(twice(21))\nos._exit(0)\n")
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    environ.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, str(kernel)], env=environ, capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["42"], out.stderr
    assert not (cache / compiled._RECORD).exists() and compiled_warm(cache)
    assert _decides(cache, 1.0) == "False"                                       # compiled before


@pytest.mark.skipif(not speed.compiler_on(), reason="numba's compiler is off")
def test_main_called_from_a_notebook_or_script_never_turns_its_process_to_python(tmp_path):
    """Only the ``mark1`` program's own process may run as Python: ``main()`` in a notebook's
    kernel would otherwise leave every later fit there uncompiled."""
    from mark1 import load_scene
    from mark1.cli import _run
    res = load_scene(DEMO).resources()
    code = ("import argparse, numba; from mark1 import load_scene; from mark1.cli import _names, _run; "
            f"res = load_scene({str(DEMO)!r}).resources(); args = argparse.Namespace(json=True); "
            "print(_run._as_python(args, res), numba.config.DISABLE_JIT); "
            "_names.OWNS_PROCESS = True; print(_run._as_python(args, res), numba.config.DISABLE_JIT)")
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    for name in ("NUMBA_DISABLE_JIT", "MARK1_PYTHON_WHEN_COLD"):
        environ.pop(name, None)
    out = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "0", "True", "True"]
    assert res.python_seconds > 0 and not _run._as_python(argparse.Namespace(json=True), res)   # nor here


@settings(max_examples=30)
@given(a_units=st.integers(8, 4000), side=st.integers(10, 80), cards=st.integers(4, 400), grow=st.integers(1, 4))
def test_the_estimate_as_python_grows_with_the_cards_the_a_units_the_cells_and_the_pixels(a_units, side, cards,
                                                                                          grow):
    from mark1 import load_scene
    scene = load_scene(DEMO)

    def seconds(**kw):
        kw = {"n_a": a_units, "side": side, "cards": cards, **kw}
        fan_out = max(40, -(-kw["n_a"] * 20 // kw["side"] ** 2))            # sockets enough for every input
        over = {"patchboard.n_associators": kw["n_a"], "patchboard.fan_out": fan_out,
                "retina.shape": (kw["side"], kw["side"])}
        return scene.resources(overrides=over, train_count=kw["cards"]).python_seconds
    base = seconds()
    assert base > 0
    assert seconds(n_a=a_units * (1 + grow)) > base
    assert seconds(side=side + grow) > base
    assert seconds(cards=cards + grow) > base
    assert scene.resources(command="render").python_seconds == 0.0


def test_a_large_machine_is_never_run_as_python():
    """16,000 A-units ran 64.6 s as Python where a warm compiled run took 7.4 s: the estimate
    must send it to the compiler (above half a cold compile on any computer)."""
    from mark1 import load_scene
    big = load_scene(DEMO).resources(overrides={"patchboard.n_associators": 16_000, "patchboard.fan_out": 640})
    assert big.python_seconds > compiled.COLD_COMPILE_S
    assert load_scene(DEMO).resources().python_seconds < compiled.COLD_COMPILE_S / 2     # the demo is


@pytest.mark.skipif(not speed.compiler_on(), reason="numba's compiler is off")
def test_a_device_run_as_python_prints_nothing_but_its_notice(tmp_path):
    """The noise streams' hash wraps 64-bit words on purpose: numba silently, numpy with a warning."""
    scene = tmp_path / "pcm.toml"
    scene.write_text(DEMO.read_text().replace('preset = "SMALL"', 'preset = "SMALL"\ndevice = "pcm"')
                     .replace("count = 40", "count = 8"))
    out = _cli(["run", str(scene), "--out", "out"], tmp_path / "cache", tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == ["no compiled loops yet, and compiling them would take longer than this run: "
                                       "they run as Python this time (the same results)"]


@pytest.mark.skipif(not speed.compiler_on(), reason="numba's compiler is off")
@pytest.mark.parametrize("command", [["explain", str(DEMO), "--cards", "2"],
                                     ["lesson", str(DEMO), "--cards", "6", "--epochs", "1", "--out", "lesson"]])
def test_explain_and_lesson_on_a_cold_cache_run_as_python_with_the_compiled_output(command, tmp_path):
    from mark1.cli import main
    cold = _cli(command, tmp_path / "cache", tmp_path)
    assert cold.returncode == 0, cold.stderr
    assert "they run as Python this time" in cold.stderr and "compiling the machine" not in cold.stderr
    assert not any((tmp_path / "cache").rglob("*.nbi"))
    if command[0] == "lesson":
        page = (tmp_path / "lesson" / "lesson.html").read_bytes()
        assert main([*command[:-1], str(tmp_path / "compiled")]) == 0
        assert (tmp_path / "compiled" / "lesson.html").read_bytes() == page
    else:
        import contextlib
        import io
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            assert main(command) == 0
        assert text.getvalue() == cold.stdout


def test_one_background_compile_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(compiled, "_writable_dir", lambda: tmp_path)
    mark = tmp_path / compiled._AHEAD
    mark.write_text(str(os.getpid()))                     # one under way: this process, alive
    assert compiled.compile_ahead("pass") is False
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    mark.write_text(str(dead.pid))                        # its process ended without removing it
    assert compiled.compile_ahead("import time; time.sleep(0.2)") is True
    pid = int(mark.read_text())
    assert pid != dead.pid
    monkeypatch.setattr(os, "getpid", lambda: pid)        # the background process's own end
    compiled.ahead_finished()
    assert not mark.exists()


@pytest.mark.slow
@pytest.mark.skipif(not speed.compiler_on(), reason="numba's compiler is off")
def test_from_a_terminal_the_loops_compile_in_the_background_for_the_next_run(tmp_path):
    cache = tmp_path / "cache"
    first = _cli(["run", str(DEMO), "--out", "first"], cache, tmp_path, MARK1_COMPILE_AHEAD="1")
    assert first.returncode == 0, first.stderr
    assert "compiling them for later runs in the background" in first.stdout
    deadline = time.monotonic() + 900
    while (cache / compiled._AHEAD).exists() and time.monotonic() < deadline:
        time.sleep(1)
    assert not (cache / compiled._AHEAD).exists()
    assert any(cache.rglob("*.nbi")) and compiled_warm(cache)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "first"]        # it wrote nothing
    second = _cli(["run", str(DEMO), "--out", "second"], cache, tmp_path, MARK1_COMPILE_AHEAD="1")
    assert second.returncode == 0, second.stderr
    out = second.stdout + second.stderr
    assert "as Python" not in out and "compiling" not in out          # loaded from the cache
    assert _summary(tmp_path / "second") == _summary(tmp_path / "first")
