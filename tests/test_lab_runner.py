"""The lab's job runner: order, records, resume, executors, the t-free basics the studies build on."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from mark1.lab import runner


def square_plus(x, y=0):
    return {"value": x * x + y}


def test_results_come_back_in_job_order_whatever_runs_them():
    jobs = [(i, 1) for i in range(7)]
    serial = runner.run_jobs(square_plus, jobs)
    with ThreadPoolExecutor(3) as ex:
        threaded = runner.run_jobs(square_plus, jobs, executor=ex)
    with runner.executor_for(workers=2) as ex:
        pooled = runner.run_jobs(square_plus, jobs, executor=ex)
    assert serial == threaded == pooled == [{"value": i * i + 1} for i in range(7)]


def test_records_are_written_per_job_and_read_back_on_resume(tmp_path):
    store = runner.Records(tmp_path / "jobs", {"study": "test", "version": 1})
    keys = [f"x-{i}" for i in range(4)]
    first = runner.run_jobs(square_plus, [(i,) for i in range(4)], keys=keys, records=store)
    assert sorted(p.name for p in (tmp_path / "jobs").iterdir()) == [f"x-{i}.json" for i in range(4)]
    (tmp_path / "jobs" / "x-2.json").unlink()                       # as if stopped before job 2
    (tmp_path / "jobs" / ".x-3.abc.json.tmp").write_text("{")       # left by a kill mid-write
    ran = []

    def counting(x):
        ran.append(x)
        return square_plus(x)

    again = runner.run_jobs(counting, [(i,) for i in range(4)], keys=keys, records=store, resume=True)
    assert ran == [2] and again == first
    assert not list((tmp_path / "jobs").glob("*.tmp"))
    # another config never reads these records back
    other = runner.Records(tmp_path / "jobs", {"study": "test", "version": 2})
    ran.clear()
    runner.run_jobs(counting, [(i,) for i in range(4)], keys=keys, records=other, resume=True)
    assert ran == [0, 1, 2, 3]


def test_non_dict_results_and_validation(tmp_path):
    store = runner.Records(tmp_path, {"v": 1}, valid=lambda key, r: r >= 0)
    assert runner.run_jobs(abs, [(-3,), (4,)], keys=["a", "b"], records=store) == [3, 4]
    assert json.loads((tmp_path / "a.json").read_text()) == {"config": {"v": 1}, "key": "a", "result": 3}
    (tmp_path / "b.json").write_text(json.dumps({"config": {"v": 1}, "key": "b", "result": -1}))
    assert store.load("a") == 3 and store.load("b") is None          # invalid: run again


def test_bad_keys_and_seeds_are_value_errors(tmp_path):
    store = runner.Records(tmp_path, {})
    with pytest.raises(ValueError, match="keys"):
        runner.run_jobs(abs, [(1,), (2,)], keys=["same", "same"], records=store)
    with pytest.raises(ValueError, match="keys"):
        runner.run_jobs(abs, [(1,)], records=store)
    assert runner.seed_list(3) == [0, 1, 2] and runner.seed_list([5, 2]) == [5, 2]
    for bad in (0, True, [1, 1], [-1], []):
        with pytest.raises(ValueError, match="seeds"):
            runner.seed_list(bad)
