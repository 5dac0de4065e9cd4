"""Long lab work can be stopped: real signals to ``python -m mark1 compare --workers 2``.

Each test starts the command in its own session (so signals sent to its process group
reach the parent and its workers, as Ctrl-C in a terminal does), waits for the first
finished seed on disk, signals, and checks the exit status, that no child process
survives, and that ``--resume`` then gives results identical to an uninterrupted run.
The time to exit is asserted against a generous bound (the machine is shared); the
figures seen are printed (``pytest -s``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mark1.lab._compare as cp
from mark1.stimuli.scenes import load_scene

from test_lab import without_wall_time  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for child processes")

ROOT = Path(__file__).resolve().parents[1]
SEEDS = 48                     # enough that the run is still going when the first seed is saved
LEARNERS = "mark1,ideal,lstsq-S"
EXIT_BOUND_S = 10.0            # "within a few seconds"; loose because the 2 cores are shared

SCENE = """
name = "Tiny E vs X, interrupted"

[reported]
source = "none: a test scene"
value = 0.9

[stimuli]
source = "characters"
classes = ["X", "E"]
size = 40

[stimuli.jitter]
shift = 0.05

[train]
count = 16

[test]
count = 16

[machine]
preset = "SMALL"

[schedule]
epochs = 6
order = "cyclic"
rule = "alpha"
"""


@pytest.fixture(scope="module")
def scene_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("scene") / "tiny.toml"
    path.write_text(SCENE)
    return path


@pytest.fixture(scope="module")
def uninterrupted(scene_file):
    """The records of an uninterrupted serial run (computed once for the module)."""
    return without_wall_time(cp.compare(load_scene(scene_file), seeds=SEEDS, learners=LEARNERS).records)


def _descendants(pid: int) -> list[int]:
    """Children, grandchildren, ... of ``pid`` (pool workers, forkserver, resource tracker)."""
    parent_of = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                parent_of[int(d)] = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    out, frontier = [], [pid]
    while frontier:
        kids = [c for c, p in parent_of.items() if p in frontier]
        out += kids
        frontier = kids
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _start(scene_file, out, *extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    env.pop("CI", None)
    return subprocess.Popen([sys.executable, "-m", "mark1", "compare", str(scene_file), "--seeds", str(SEEDS),
                             "--workers", "2", "--learners", LEARNERS, "--out", str(out), *extra],
                            env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _interrupt(scene_file, out, send) -> tuple[int, float, list[int], str]:
    """Start compare, wait for a finished seed, ``send(proc)``; (status, seconds to exit, children, stderr)."""
    proc = _start(scene_file, out)
    try:
        t0 = time.monotonic()
        while not list((out / "seeds").glob("seed-*.json")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() - t0 < 300, "no seed finished"
            time.sleep(0.05)
        children = _descendants(proc.pid)
        assert len(children) >= 2, children          # at least the two workers
        t1 = time.monotonic()
        send(proc)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - t1
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    deadline = time.monotonic() + 10
    while any(_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    return proc.returncode, took, [c for c in children if _alive(c)], err


def _check_resume(scene_file, out, uninterrupted):
    done = sorted(p.name for p in (out / "seeds").glob("seed-*.json"))
    assert 1 <= len(done)
    proc = _start(scene_file, out, "--resume")
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert not list(out.rglob("*.tmp"))               # one left by a kill mid-write is cleaned
    resumed = json.loads((out / "results.json").read_text())["records"]
    assert without_wall_time(resumed) == uninterrupted
    return len(done)


def test_ctrl_c_stops_the_workers_keeps_finished_seeds_and_resumes_identically(scene_file, uninterrupted, tmp_path):
    out = tmp_path / "run"
    status, took, survivors, err = _interrupt(scene_file, out, lambda p: os.killpg(p.pid, signal.SIGINT))
    print(f"\nSIGINT to the process group: exit {status} after {took:.2f} s")
    assert status == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert took < EXIT_BOUND_S
    assert survivors == []
    kept = _check_resume(scene_file, out, uninterrupted)
    print(f"kept {kept} of {SEEDS} seeds; --resume identical to an uninterrupted run")


def test_sigkill_of_the_parent_takes_the_workers_with_it(scene_file, uninterrupted, tmp_path):
    out = tmp_path / "run"
    status, took, survivors, _ = _interrupt(scene_file, out, lambda p: os.kill(p.pid, signal.SIGKILL))
    print(f"\nSIGKILL to the parent: exit {status}; children alive afterwards: {survivors}")
    assert status == -signal.SIGKILL
    assert survivors == []
    _check_resume(scene_file, out, uninterrupted)


@pytest.mark.slow
def test_sigterm_stops_like_ctrl_c(scene_file, uninterrupted, tmp_path):
    out = tmp_path / "run"
    status, took, survivors, err = _interrupt(scene_file, out, lambda p: os.kill(p.pid, signal.SIGTERM))
    print(f"\nSIGTERM to the parent: exit {status} after {took:.2f} s")
    assert status == 143, err
    assert "Traceback" not in err
    assert took < EXIT_BOUND_S
    assert survivors == []
    _check_resume(scene_file, out, uninterrupted)


@pytest.mark.slow
def test_a_second_ctrl_c_exits_at_once(scene_file, uninterrupted, tmp_path):
    def twice(p):
        os.killpg(p.pid, signal.SIGINT)
        time.sleep(0.05)
        os.killpg(p.pid, signal.SIGINT)

    out = tmp_path / "run"
    status, took, survivors, err = _interrupt(scene_file, out, twice)
    print(f"\nSIGINT twice: exit {status} after {took:.2f} s")
    assert status in (130, -signal.SIGINT), err         # the second may end the process by the signal
    assert took < EXIT_BOUND_S
    assert survivors == []
    _check_resume(scene_file, out, uninterrupted)
