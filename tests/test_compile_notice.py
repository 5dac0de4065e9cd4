"""The first compile's notice: its estimate is the median of the last compiles kept, scaled by the load."""

import json
import threading
import time

import numpy as np
import pytest

from mark1._utils import compiled


@pytest.fixture
def record(tmp_path, monkeypatch):
    monkeypatch.setattr(compiled, "_writable_dir", lambda: tmp_path)
    monkeypatch.setattr(compiled, "_busy", lambda: 1.0)
    path = tmp_path / compiled._RECORD

    def write(value):
        path.write_text(json.dumps({compiled._record_key(): value}))
    return write


def test_before_any_record_the_development_machines_figure(record, monkeypatch):
    assert compiled._estimate() == compiled.COLD_COMPILE_S
    monkeypatch.setattr(compiled, "_busy", lambda: 3.0)
    assert compiled._estimate() == 3.0 * compiled.COLD_COMPILE_S


def test_the_median_not_the_largest(record):
    # one session that compiled every variant (272 s) does not make the next estimate 272 s
    record([[22.0, 1.0], [272.0, 1.0], [18.0, 1.0]])
    assert compiled._estimate() == 22.0
    record([[22.0, 1.0], [18.0, 1.0]])
    assert compiled._estimate() == 20.0


def test_each_compile_is_kept_over_the_load_then(record, monkeypatch):
    record([[60.0, 4.0]])                   # 60 s with four tasks a core: 15 s idle
    assert compiled._estimate() == 15.0
    monkeypatch.setattr(compiled, "_busy", lambda: 2.0)
    assert compiled._estimate() == 30.0


def test_an_old_or_broken_record_falls_back(record, tmp_path):
    record(272.0)                           # the single largest figure of earlier releases
    assert compiled._estimate() == compiled.COLD_COMPILE_S
    (tmp_path / compiled._RECORD).write_text("not json")
    assert compiled._estimate() == compiled.COLD_COMPILE_S


def test_the_last_few_are_kept(record, tmp_path, monkeypatch):
    monkeypatch.setattr(compiled, "_state", {**compiled._state, "told": True, "busy": 2.0, "total": 30.0,
                                             "cpu": 14.0})
    for _ in range(compiled._KEPT + 2):
        compiled._save_record()
    kept = json.loads((tmp_path / compiled._RECORD).read_text())[compiled._record_key()]
    assert kept == [[30.0, 2.0, 14.0]] * compiled._KEPT
    assert compiled._estimate() == 14.0                 # its CPU seconds, at a busy factor of 1


def test_a_compile_kept_with_its_cpu_seconds_is_taken_at_them(record, monkeypatch):
    # 60 s of wall time that took 20 s of CPU: 20 s on an idle computer, whatever the load then
    record([[60.0, 2.0, 20.0], [90.0, 4.0, 24.0], [22.0, 1.0]])     # the last kept by an earlier release
    assert compiled._estimate() == 22.0
    monkeypatch.setattr(compiled, "_busy", lambda: 3.0)
    assert compiled._estimate() == 66.0


def test_a_compile_is_timed_in_wall_and_cpu_seconds():
    def plus_one(x):
        return x + 1.5
    fresh = compiled._make(plus_one, "", {}, cache=False)      # never cached: compiles in every process
    wall, cpu = compiled._state["total"], compiled._state["cpu"]
    assert fresh(1.0) == 2.5
    took_wall, took_cpu = compiled._state["total"] - wall, compiled._state["cpu"] - cpu
    assert took_wall > 0 and took_cpu > 0
    assert took_cpu <= 2 * took_wall + 0.05                    # at most both cores for the compile's time


def test_a_compile_s_cpu_is_its_own_thread_s_not_a_busy_thread_s_beside_it():
    # numpy's sort lets go of the GIL: the other thread takes a core of its own while the loop
    # compiles, as sensing does beside the first step; the process's CPU would count both
    def plus_two(x):
        return x + 2.5
    stop, burnt = threading.Event(), []

    def burn():
        rng = np.random.default_rng(0)
        while not stop.is_set():
            burnt.append(float(np.sort(rng.random(200_000))[0]))
    busy = threading.Thread(target=burn)
    busy.start()
    try:
        fresh = compiled._make(plus_two, "", {}, cache=False)
        wall, cpu = compiled._state["total"], compiled._state["cpu"]
        own, process = time.thread_time(), time.process_time()
        assert fresh(1.0) == 3.5
        own, process = time.thread_time() - own, time.process_time() - process
        took_wall, took_cpu = compiled._state["total"] - wall, compiled._state["cpu"] - cpu
    finally:
        stop.set()
        busy.join()
    assert burnt and process > own                             # the other thread ran meanwhile
    assert 0 < took_cpu <= min(own, took_wall) + 0.002         # this thread's, within the call's


def test_busy_is_at_least_one():
    assert compiled._busy() >= 1.0
