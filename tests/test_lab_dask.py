"""Sweeps on a Dask cluster: a LocalCluster on this machine gives the serial results, bit for bit.

Skipped when Dask distributed (the extra ``mark1[cluster]``) is not installed.
"""

from __future__ import annotations

import json

import pytest

distributed = pytest.importorskip("distributed")

import mark1.lab._ablate as ab  # noqa: E402
import mark1.lab._compare as cp  # noqa: E402
from mark1.cli import main  # noqa: E402
from mark1.lab import runner  # noqa: E402
from mark1._utils.records import jsonable  # noqa: E402
from mark1.stimuli.scenes import load_scene  # noqa: E402

from test_lab import without_wall_time  # noqa: E402

SCENE = """
name = "Tiny X vs E on a cluster"

[stimuli]
source = "characters"
classes = ["X", "E"]
size = 40

[train]
count = 8

[test]
count = 10

[machine]
preset = "SMALL"

[schedule]
epochs = 3
order = "shuffled"
rule = "alpha"
"""

LEARNERS = ["mark1", "ideal", "perceptron-S", "gauss-phi"]


@pytest.fixture(scope="module")
def cluster():
    # threads in this process: quick to start; the jobs still go through the scheduler
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                                  silence_logs=40) as c:
        yield c


@pytest.fixture
def scene(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(SCENE)
    return load_scene(path)


def test_compare_on_a_local_cluster_is_the_serial_run(cluster, scene):
    serial = cp.compare(scene, seeds=3, learners=LEARNERS)
    with runner.executor_for(scheduler=cluster.scheduler_address) as ex:
        assert ex is not None
        remote = cp.compare(scene, seeds=3, learners=LEARNERS, executor=ex)
    assert len(serial.records) == 12
    assert without_wall_time(remote.records) == without_wall_time(serial.records)


def test_ablate_on_a_local_cluster_is_the_serial_run(cluster, scene):
    serial = ab.ablate(scene, seeds=[1])
    with runner.executor_for(scheduler=cluster.scheduler_address) as ex:
        remote = ab.ablate(scene, seeds=[1], executor=ex)
    keep = ("variant", "test_accuracy", "machine_time_s", "cost_points", "low", "high", "p", "verdict")
    def rows(result):                   # as JSON text: a NaN interval (one seed) equals itself
        return json.dumps(jsonable([{k: r.get(k) for k in keep} for r in result.rows]))
    assert rows(remote) == rows(serial)


def test_the_scheduler_option_runs_and_resumes_on_the_cluster(cluster, scene, tmp_path, capsys):
    out = tmp_path / "c"
    argv = ["compare", scene.path, "--seeds", "2", "--learners", ",".join(LEARNERS), "--out", str(out),
            "--scheduler", cluster.scheduler_address]
    assert main(argv) == 0
    first = json.loads((out / "results.json").read_text())["records"]
    (out / "seeds" / "seed-0001.json").unlink()                    # as if interrupted after seed 0
    mtime = (out / "seeds" / "seed-0000.json").stat().st_mtime_ns
    assert main([*argv[:2], "--seeds", "3", *argv[4:], "--resume"]) == 0
    assert (out / "seeds" / "seed-0000.json").stat().st_mtime_ns == mtime       # not run again
    resumed = json.loads((out / "results.json").read_text())["records"]
    serial = cp.compare(scene, seeds=3, learners=LEARNERS)
    assert without_wall_time(resumed) == without_wall_time(serial.records)
    assert without_wall_time(resumed[:8]) == without_wall_time(first)
    capsys.readouterr()


def test_scheduler_with_workers_is_a_usage_error(scene, capsys):
    assert main(["compare", scene.path, "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"]) == 2
    assert "--workers" in capsys.readouterr().err


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line(scene, capsys):
    assert main(["compare", scene.path, "--scheduler", "tcp://127.0.0.1:1", "--seeds", "1",
                 "--out", scene.path + ".out"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tcp://127.0.0.1:1" in err
