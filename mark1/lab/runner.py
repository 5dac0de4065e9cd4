"""One job runner for the lab: jobs over seeds on any executor, resumable, interruptible.

Every lab study (compare, ablate, curves, and sweep and reenact built the same way) is
a list of *jobs*: calls ``fn(*args)`` of one top-level, picklable function, each a pure
function of its arguments (the scene file, a seed, what to run), returning a
JSON-safe result. :func:`run_jobs` runs them serially, on a process pool or on a Dask
cluster and returns the results in job order, identical bit for bit whatever ran them
(wall times aside)::

    from mark1.lab import runner

    jobs = [(scene_path, seed, "ideal") for seed in runner.seed_list(5)]
    keys = [f"seed-{seed:04d}" for seed in runner.seed_list(5)]
    records = runner.Records(out / "seeds", config={"study": "mine", "version": 1})
    with runner.executor_for(workers=2) as ex:            # or scheduler="tcp://host:8786"
        results = runner.run_jobs(my_job, jobs, keys=keys, records=records,
                                  executor=ex, progress="seeds", resume=True)

With ``records`` each result is written atomically to ``<folder>/<key>.json`` as its
job finishes; with ``resume`` a job whose record exists and carries the same
``config`` is not run again but read back. So an interrupted study, run again with
``resume``, finishes exactly as an uninterrupted one.

Interruption (:func:`executor_for`): a first Ctrl-C or SIGTERM stops the workers at
once (jobs not finished are lost, finished ones are on disk) and raises
:class:`Interrupted` (a :class:`KeyboardInterrupt`) within a few seconds; a second
Ctrl-C while stopping exits the process at once. Pool workers ignore Ctrl-C (the
parent stops them) and die with their parent even when it is killed with SIGKILL
(Linux: ``prctl(PR_SET_PDEATHSIG)``, and a thread in each worker waiting on the main
process). On a Dask cluster the pending jobs are cancelled and the client closed.

For a new study (``sweep``, ``reenact``): write the job as a top-level function of
plain arguments (the scene file from :func:`scene_ref`, a seed, what varies) that
returns JSON-safe values; build the jobs and one key per job; keep a
:class:`Records` under ``out`` whose ``config`` names everything that changes the
results (scene digest from :func:`scene_digest`, counts, a version number); open the
executor with :func:`executor_for` (the command line's ``--workers`` and
``--scheduler``, see :func:`mark1.lab.options.add_common_options` and
:func:`mark1.lab.options.check_common`); a job that shares a seed's cards with others
reads them with :func:`run_cards`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import sys
import threading
from concurrent.futures import Executor, as_completed
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from mark1._utils.atomic import write_text
from mark1._utils.records import jsonable
from mark1._utils.progress import progress_bar
from mark1._utils.threads import one_blas_thread
from mark1.exceptions import InputError

__all__ = ["run_jobs", "Records", "executor_for", "process_pool", "dask_executor", "Interrupted",
           "seed_list", "count_option", "as_scene", "scene_ref", "scene_digest", "run_cards"]


# ----------------------------------------------------------------------------------------
# what a job needs: the scene, the seeds


_SCENES: dict = {}


def as_scene(scene):
    """A Scene from a Scene or a path (loaded once per process and file version)."""
    from mark1.stimuli.scenes import Scene, load_scene
    if isinstance(scene, Scene):
        return scene
    if isinstance(scene, (str, os.PathLike)):
        p = Path(scene)
        try:
            key = (str(p.resolve()), p.stat().st_mtime_ns)
        except OSError:
            return load_scene(scene)                   # raises the SceneError for a bad path
        if key not in _SCENES:
            _SCENES[key] = load_scene(scene)
        return _SCENES[key]
    raise InputError(f"scene: expected a mark1.scenes.Scene or a scene file path, got {type(scene).__name__}")


def scene_ref(scene):
    """What a worker needs to rebuild the scene: its absolute file path, or the Scene itself."""
    return str(Path(scene.path).resolve()) if scene.path else scene


def scene_digest(scene) -> str | None:
    """SHA-256 of the scene file (so a resumed run notices an edited scene)."""
    if not scene.path:
        return None
    try:
        return hashlib.sha256(Path(scene.path).read_bytes()).hexdigest()
    except OSError:
        return None


def seed_list(seeds) -> list[int]:
    """``n`` → seeds ``0 .. n-1``; a sequence of distinct non-negative integers as given."""
    if isinstance(seeds, (bool, np.bool_)):
        raise InputError(f"seeds: expected a positive integer or a list of seeds, got {seeds!r}")
    if isinstance(seeds, (int, np.integer)):
        if seeds < 1:
            raise InputError(f"seeds: expected a positive integer, got {seeds!r}")
        return list(range(int(seeds)))
    out = []
    for s in seeds:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)) or s < 0:
            raise InputError(f"seeds: expected non-negative integers, got {s!r}")
        out.append(int(s))
    if not out or len(set(out)) != len(out):
        raise InputError(f"seeds: expected distinct seeds, at least one, got {list(seeds)!r}")
    return out


def count_option(value, name) -> int | None:
    """A positive integer or None (card counts), else ValueError naming ``name``."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name}: expected a positive integer or None, got {value!r}")
    return int(value)


# ----------------------------------------------------------------------------------------
# per-job records


class Records:
    """Per-job result files ``<folder>/<key>.json``, each tagged with the run's ``config``.

    Parameters
    ----------
    folder : str or path-like
    config : dict
        JSON-safe; what identifies the run (scene digest, counts, version, ...). A
        record written under another config is never read back.
    valid : callable (key, result) -> bool, optional
        Further checks on a stored result before it is trusted.

    Notes
    -----
    A file holds ``{"config": config, "key": key, "result": result}``, or, when the
    result is a dict, ``{"config": config, **result}`` (compare's seed records).
    """

    def __init__(self, folder, config: dict, *, valid: Callable[[str, Any], bool] | None = None):
        self.folder = Path(folder)
        self.config = jsonable(config)
        self.valid = valid

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def load(self, key: str):
        """The stored result of job ``key``, or None when absent, broken or from another run."""
        try:
            data = json.loads(self.path(key).read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("config") != self.config:
            return None
        if "result" in data and data.get("key") == key:
            result = data["result"]
        else:
            result = {k: v for k, v in data.items() if k != "config"}
        try:
            if self.valid is not None and not self.valid(key, result):
                return None
        except (AttributeError, KeyError, TypeError, IndexError, ValueError):
            return None
        return result

    def save(self, key: str, result) -> None:
        """Write the record of job ``key`` atomically."""
        if isinstance(result, dict) and "config" not in result and "result" not in result:
            data = {"config": self.config, **result}
        else:
            data = {"config": self.config, "key": key, "result": result}
        write_text(self.path(key), json.dumps(jsonable(data), indent=1) + "\n")

    def clean(self) -> None:
        """Remove temporary files left by a run that was killed mid-write."""
        if self.folder.is_dir():
            for p in self.folder.glob(".*.tmp"):
                p.unlink(missing_ok=True)


# ----------------------------------------------------------------------------------------
# running the jobs


def run_jobs(fn: Callable, jobs: Sequence[tuple], *, executor: Executor | None = None,
             keys: Sequence[str] | None = None, records: Records | None = None, resume: bool = False,
             progress: str | None = None, on_done: Callable[[int, Any], None] | None = None) -> list:
    """Run ``fn(*job)`` for every job; the results in job order.

    Parameters
    ----------
    fn : callable
        A top-level (picklable) function; a pure function of its arguments.
    jobs : sequence of tuple
        The arguments of each call.
    executor : concurrent.futures.Executor, optional
        Serially in this process when None; a process pool or a Dask
        ``client.get_executor()`` otherwise (see :func:`executor_for`).
    keys : sequence of str, optional
        One name per job, distinct and file-safe (e.g. ``"seed-0003"``,
        ``"on-backlash-seed-0003"``); needed with ``records``.
    records : Records, optional
        Where each result is written as its job finishes.
    resume : bool
        Read back jobs whose record exists (same config, valid) instead of running them.
    progress : str, optional
        The unit of a progress bar over the jobs to run (e.g. ``"seeds"``); a bar only on
        a terminal and outside CI.
    on_done : callable (index, result), optional
        Called in this process as each job finishes (not for resumed jobs).

    Returns
    -------
    list
        ``fn(*jobs[i])`` at index ``i``.
    """
    jobs = [tuple(j) for j in jobs]
    if resume and records is None:
        raise InputError("resume: needs out, the folder of the run to resume")
    if records is not None:
        if keys is None or len(keys) != len(jobs) or len(set(keys)) != len(keys):
            raise InputError("keys: expected one distinct key per job when records are kept")
    results: list = [None] * len(jobs)
    todo = list(range(len(jobs)))
    if records is not None:
        records.clean()
        if resume:
            todo = []
            for i, key in enumerate(keys):
                rec = records.load(key)
                if rec is None:
                    todo.append(i)
                else:
                    results[i] = rec
    bar = progress_bar(len(todo), progress or "", show=bool(progress))

    def finished(i, result):
        results[i] = result
        if records is not None:
            records.save(keys[i], result)
        if on_done is not None:
            on_done(i, result)
        bar.update(1)

    try:
        if executor is None:
            for i in todo:
                finished(i, fn(*jobs[i]))
        else:
            futures = {executor.submit(fn, *jobs[i]): i for i in todo}
            try:
                for fut in as_completed(futures):
                    finished(futures[fut], fut.result())
            except BaseException:
                # A pool from executor_for cancels its pending jobs on its own thread as it
                # stops; cancelling them here as well races that thread, which (CPython 3.11)
                # then sets an exception on a cancelled future and prints a traceback.
                if not getattr(executor, "stops_itself", False):
                    for fut in futures:
                        fut.cancel()
                raise
    finally:
        bar.close()
    return results


# ----------------------------------------------------------------------------------------
# executors


class Interrupted(KeyboardInterrupt):
    """The run was stopped by Ctrl-C or SIGTERM; ``exit_status`` is 130 or 143."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.exit_status = 128 + int(signum)


@contextlib.contextmanager
def executor_for(workers: int = 1, scheduler: str | None = None) -> Iterator[Executor | None]:
    """The executor of a lab command: serial, a process pool, or a Dask cluster.

    Parameters
    ----------
    workers : int
        Processes on this computer; 1 (or less) means serially in this process (None).
    scheduler : str, optional
        A Dask scheduler address (``tcp://host:8786``); overrides ``workers``.

    Yields
    ------
    concurrent.futures.Executor or None

    Notes
    -----
    In the main thread, SIGTERM is turned into :class:`Interrupted` for the duration,
    so it stops the run as Ctrl-C does; the previous handlers are restored on exit.
    A serial run, like each pool worker, uses one BLAS thread
    (:func:`mark1.threads.one_blas_thread`).
    """
    with _sigterm_interrupts():
        if scheduler is not None:
            with dask_executor(scheduler) as ex:
                yield ex
        elif workers > 1:
            with process_pool(workers) as ex:
                yield ex
        else:
            # measured at load 13 on the 2 shared cores: one seed of square vs circle took
            # 25.3 s with OpenBLAS's 2 threads, 7.7 s with 1 (least squares on S: 9.3 s vs 0.29 s)
            with one_blas_thread():
                yield None


@contextlib.contextmanager
def _sigterm_interrupts():
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum, frame):
        raise Interrupted(signum)

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


#: Environment variables that set the thread count of the BLAS libraries numpy may use.
BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


@contextlib.contextmanager
def process_pool(workers: int):
    """A process pool for the jobs: single-threaded BLAS, started at once, stopped hard.

    On Linux the workers are forked from this process when the pool opens, so they
    start with everything already imported and the scene already loaded; elsewhere
    each is a fresh interpreter ("spawn") that imports the lab first. Measured on 4
    seeds of ``scenes/square_vs_circle.toml`` (``benchmarks/bench_sweeps.py``, CPU
    seconds on the critical path): fresh interpreters cost about 0.5-1 s of imports per
    worker, which held 2 workers to 1.67x of one; forked workers do not.

    Either way each worker limits its BLAS to one thread (and a spawned one starts
    with the BLAS thread variables at 1 unless the user set them): ``workers``
    processes each running a multi-threaded BLAS on the same cores thrash (measured
    8.5 s instead of 1 s for ``mark1 compare scenes/e_vs_x.toml --seeds 3`` on 2 cores).
    Workers ignore Ctrl-C and die with this process (see the module notes).

    On normal exit the pool is shut down cleanly. On an exception (Ctrl-C, SIGTERM, an
    error in a job) the workers are terminated at once, not waited for; a second
    Ctrl-C meanwhile kills them and exits the process with status 130. With "spawn", a
    script that uses the pool must guard its entry point with
    ``if __name__ == "__main__":`` (the ``mark1`` command and ``python -m mark1`` are
    safe).

    Yields
    ------
    concurrent.futures.ProcessPoolExecutor
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    saved = {k: os.environ.get(k) for k in BLAS_THREAD_VARS}
    for k in BLAS_THREAD_VARS:
        os.environ.setdefault(k, "1")
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    pool = None
    try:
        # Workers started while Ctrl-C is ignored inherit the ignored signal (a fresh
        # interpreter keeps it too), so a Ctrl-C in the terminal reaches this process
        # only, which stops the workers itself.
        with _sigint_ignored():
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                                       initializer=_worker_start, initargs=(os.getpid(),))
            pool.stops_itself = True               # run_jobs leaves the cancelling to _stop_now
            for _ in range(workers):               # start every worker now
                pool.submit(_warm_up)
        yield pool
    except BaseException:
        if pool is not None:
            _stop_now(pool)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def _sigint_ignored():
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _workers(pool) -> list:
    return list((getattr(pool, "_processes", None) or {}).values())


def _stop_now(pool) -> None:
    """Terminate a process pool's workers at once; a second Ctrl-C exits the process."""
    def exit_now(signum, frame):
        for p in _workers(pool):
            with contextlib.suppress(Exception):
                p.kill()
        os._exit(128 + signum)

    main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGINT, exit_now) if main else None
    try:
        procs = _workers(pool)
        pool.shutdown(wait=False, cancel_futures=True)   # the manager thread cancels what is pending
        for p in procs:
            with contextlib.suppress(Exception):
                p.terminate()
        for p in procs:
            with contextlib.suppress(Exception):
                p.join(2.0)
                if p.is_alive():
                    p.kill()
                    p.join(1.0)
        with contextlib.suppress(Exception):
            pool.shutdown(wait=True)                 # the manager thread sees the dead workers
    finally:
        if main:
            signal.signal(signal.SIGINT, old)


def _worker_start(main_pid: int) -> None:
    """In each pool worker: ignore Ctrl-C, die with the main process, one BLAS thread.

    On Linux the kernel kills the worker when its parent, the main process, dies
    (``PR_SET_PDEATHSIG``); besides, and on other systems, a thread waits on the main
    process (a pidfd on Linux, else a poll every half second) and ends the worker when
    it is gone. A forked worker also drops the parent's SIGTERM handler, so that
    terminating it ends it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    if not _alive(main_pid):                         # died before we could ask
        os._exit(1)
    threading.Thread(target=_exit_when_gone, args=(main_pid,), daemon=True, name="mark1-main-watch").start()
    from threadpoolctl import threadpool_limits
    threadpool_limits(limits=1, user_api="blas")        # for the worker's whole life


def _exit_when_gone(pid: int) -> None:
    """Block until process ``pid`` ends, then end this process at once."""
    try:
        import select
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        select.select([fd], [], [])              # readable when the process has ended
    else:
        import time
        while _alive(pid):
            time.sleep(0.5)
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _die_with_parent() -> None:
    """Linux: ask the kernel to SIGKILL this process when its parent dies."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _warm_up() -> None:
    """Import what the jobs need (a no-op in a forked worker)."""
    from mark1.lab import ablate, compare, curves, reenact, sweep  # noqa: F401


@contextlib.contextmanager
def dask_executor(address: str):
    """A ``concurrent.futures`` executor on the Dask cluster at ``address``.

    Uses ``distributed.Client(address).get_executor()``; the jobs must be importable
    on the workers (install mark1 there, the same version). Results are identical to a
    serial run. On an exception the pending jobs are cancelled and the client closed.

    Raises
    ------
    ValueError
        When Dask distributed is not installed (the extra ``mark1[cluster]``) or the
        scheduler cannot be reached.
    """
    try:
        from distributed import Client
    except ImportError:
        raise InputError("scheduler: needs Dask distributed (pip install 'mark1[cluster]')") from None
    try:
        client = Client(address, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError(f"scheduler: cannot reach the Dask scheduler at {address} ({e})") from None
    try:
        ex = client.get_executor(pure=False)
        yield ex
    finally:
        client.close()


def csv_text(rows: list[dict], fields) -> str:
    """Rows as CSV text with the given columns (None written as an empty field)."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fields), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in fields})
    return buf.getvalue()


# ----------------------------------------------------------------------------------------
# the cards of a run, rendered once per process

_CARDS: dict = {}
_CARDS_KEPT = 4
_CARDS_LOCK = threading.Lock()          # a Dask worker may run jobs in threads


def run_cards(scene, seed: int, train_count: int | None = None, test_count: int | None = None):
    """``mark1.runs.scene_cards`` of a seed, kept for the last few seeds of this process.

    The jobs of one seed (ablation variants, curve variants, sweep values) share its
    cards; a worker that runs several of them renders the cards once. Treat the cards
    as read-only.
    """
    from mark1.stimuli.cards import scene_cards
    key = (id(scene), scene.path, int(seed), train_count, test_count)
    with _CARDS_LOCK:
        hit = _CARDS.get(key)
    if hit is not None:
        return hit[1]
    cards = scene_cards(scene, seed, train_count=train_count, test_count=test_count)
    with _CARDS_LOCK:
        while len(_CARDS) >= _CARDS_KEPT:
            _CARDS.pop(next(iter(_CARDS)))
        # the scene is kept beside its cards so that its id cannot be reused meanwhile
        _CARDS[key] = (scene, cards)
    return cards
