"""Parallel sweeps: wall time of ``mark1 compare`` on 1 and on 2 (or N) workers, and the ratio.

Two measurements, each repeated and alternated (1, N, 1, N, ...) so that a change in the
machine's load hits both alike; the median is reported:

* **command**: ``python -m mark1 compare SCENE --seeds S --workers W`` as a user runs it
  (interpreter start, imports, pool start, jobs, figure and files);
* **jobs**: :func:`mark1.lab.compare` inside one interpreter, with the executor
  of :func:`mark1.lab.runner.executor_for` (pool start included, no figure).

Besides wall time, the CPU seconds of the whole process tree (``RUSAGE_CHILDREN``) show
what the parallel run costs in extra work (worker start-up, imports). The load average
is printed before and after: on a shared machine the ratio is only as good as the load
was steady. With Linux's autogroup scheduling (``/proc/sys/kernel/sched_autogroup_enabled``)
a session gets one share of a busy machine however many processes it runs, so under
other sessions' load the wall ratio tends to 1 whatever the code does; the jobs
measurement therefore also reports the wall time on idle cores projected from CPU
accounting: the parent's CPU seconds plus the busiest worker's.

Run:  python benchmarks/bench_sweeps.py [--scene scenes/square_vs_circle.toml] [--seeds 4]
                                        [--workers 2] [--repeats 3] [--skip-command]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _command(scene: str, seeds: int, workers: int, out: Path) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg", CI="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mark1", "compare", scene, "--seeds", str(seeds), "--workers",
                    str(workers), "--out", str(out)], check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a live process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _jobs(scene: str, seeds: int, workers: int) -> tuple[float, float, list[float]]:
    """Wall seconds, CPU seconds of this process, CPU seconds of each pool worker (from its start)."""
    from mark1.lab import compare
    from mark1.lab.runner import executor_for
    t0, c0 = time.perf_counter(), time.process_time()
    with executor_for(workers) as ex:
        compare(scene, seeds=seeds, executor=ex)
        worker_cpu = [_proc_cpu(p.pid) for p in (getattr(ex, "_processes", None) or {}).values()]
    return time.perf_counter() - t0, time.process_time() - c0, worker_cpu


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default=str(ROOT / "scenes" / "square_vs_circle.toml"))
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-command", action="store_true", help="only the in-process (jobs) measurement")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    print(f"{Path(args.scene).name}, {args.seeds} seeds, 1 vs {args.workers} workers, "
          f"{args.repeats} repeats, {os.cpu_count()} CPUs; load average before: "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_command:
            walls = {1: [], args.workers: []}
            cpu = {1: [], args.workers: []}
            for r in range(args.repeats):
                for w in (1, args.workers):
                    wall, c = _command(args.scene, args.seeds, w, Path(tmp) / f"c{w}-{r}")
                    walls[w].append(wall)
                    cpu[w].append(c)
            m1, mn = statistics.median(walls[1]), statistics.median(walls[args.workers])
            print(f"command: 1 worker {m1:.2f} s (CPU {statistics.median(cpu[1]):.2f} s), "
                  f"{args.workers} workers {mn:.2f} s (CPU of the tree {statistics.median(cpu[args.workers]):.2f} s); "
                  f"ratio {m1 / mn:.2f}x   [walls 1: {', '.join(f'{x:.2f}' for x in walls[1])}; "
                  f"{args.workers}: {', '.join(f'{x:.2f}' for x in walls[args.workers])}]")
        from mark1.lab import compare
        compare(args.scene, seeds=1, learners=["perceptron-S"], train_count=4, test_count=4)   # warm-up
        walls = {1: [], args.workers: []}
        projected = {1: [], args.workers: []}
        for _ in range(args.repeats):
            for w in (1, args.workers):
                wall, parent_cpu, worker_cpu = _jobs(args.scene, args.seeds, w)
                walls[w].append(wall)
                # on idle cores: the parent's own work, then the busiest worker's
                projected[w].append(parent_cpu + max(worker_cpu, default=0.0))
                print(f"  {w} worker(s): wall {wall:.2f} s; CPU parent {parent_cpu:.2f} s, workers "
                      f"{', '.join(f'{c:.2f}' for c in worker_cpu) or '-'} s")
        m1, mn = statistics.median(walls[1]), statistics.median(walls[args.workers])
        p1, pn = statistics.median(projected[1]), statistics.median(projected[args.workers])
        print(f"jobs:    1 worker {m1:.2f} s, {args.workers} workers {mn:.2f} s; wall ratio {m1 / mn:.2f}x; "
              f"on idle cores (parent CPU + busiest worker CPU) {p1:.2f} s vs {pn:.2f} s: {p1 / pn:.2f}x")
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
