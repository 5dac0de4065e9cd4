"""One job runner for the lab: jobs over seeds on any executor, resumable, interruptible.

Every lab study (compare, ablate, curves, sweep, reenact) is a list of *jobs*: calls
``fn(*args)`` of one top-level, picklable function, each a pure function of its
arguments (the scene file, a seed, what to run), returning a JSON-safe result.
:func:`run_jobs` runs them serially, on a process pool or on a Dask cluster and returns
the results in job order, identical bit for bit whatever ran them (wall times aside)::

    from mark1.lab import runner

    @runner.job                                           # registered: pools warm up with it
    def my_job(scene_file, seed, what):
        ...

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

The studies register their job functions with :func:`job` when they are imported; the
runner knows them only through that registry, never by importing the studies. A
process pool hands each new worker the registered jobs, so a worker started afresh
("spawn") imports their modules while it unpickles them, before the first job
arrives (a forked worker has them already).

Interruption (:func:`executor_for`): a first Ctrl-C or SIGTERM stops the workers at
once (jobs not finished are lost, finished ones are on disk) and raises
:class:`Interrupted` (a :class:`KeyboardInterrupt`) within a few seconds; a second
Ctrl-C while stopping exits the process at once. Pool workers ignore Ctrl-C (the
parent stops them) and die with their parent even when it is killed with SIGKILL
(Linux: ``prctl(PR_SET_PDEATHSIG)``, and a thread in each worker waiting on the main
process). On a Dask cluster the pending jobs are cancelled and the client closed.

For a new study: write the job as a top-level function of plain arguments (the scene
file from :func:`scene_ref`, a seed, what varies) that returns JSON-safe values and
register it with :func:`job`; build the jobs and one key per job; keep a
:class:`Records` under ``out`` whose ``config`` names everything that changes the
results (scene digest from :func:`scene_digest`, counts, a version number); open the
executor with :func:`executor_for` (the command line's ``--workers`` and
``--scheduler``); a job that shares a seed's cards with others reads them with
:func:`run_cards`.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, TypeAlias
from collections.abc import Callable, Iterator, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from mark1._utils.atomic import alive, write_text
from mark1._utils.progress import progress_bar
from mark1._utils.records import jsonable
from mark1._utils.threads import one_blas_thread
from mark1.exceptions import InputError
from mark1._utils import speed as _speed
from mark1.stimuli.cards import scene_cards
from mark1.stimuli.scenes import Scene, load_scene

__all__ = ["job", "run_jobs", "Records", "executor_for", "Interrupted", "seed_list", "as_scene", "scene_ref",
           "scene_digest", "run_cards", "SceneLike", "Seeds", "StrPath"]

#: What a study takes as its scene: a loaded Scene, or a scene file's path (or a built-in scene's name).
SceneLike: TypeAlias = Scene | str | os.PathLike
#: A study's seeds: ``n`` (the seeds 0 to n − 1) or the seeds themselves.
Seeds: TypeAlias = int | Sequence[int]
#: A file or folder to write: a str or a path-like.
StrPath: TypeAlias = str | os.PathLike


# ----------------------------------------------------------------------------------------
# the jobs the studies register

_JOBS: list[Callable] = []


def job(fn: Callable) -> Callable:
    """Register ``fn`` as a lab job; returns ``fn`` itself (use it as a decorator).

    A study applies it to its job function when its module is imported. The runner
    learns the jobs from this registry alone: a process pool hands them to each new
    worker, whose unpickling imports their modules before the first job arrives.

    Parameters
    ----------
    fn : callable
        A top-level function of plain, picklable arguments returning JSON-safe values.

    Returns
    -------
    callable
        ``fn``, unchanged.

    Examples
    --------
    >>> @job
    ... def double(x):
    ...     return 2 * x
    >>> run_jobs(double, [(1,), (2,), (3,)])
    [2, 4, 6]
    """
    if fn not in _JOBS:
        _JOBS.append(fn)
    return fn


def _picklable_jobs() -> tuple:
    """The registered jobs pickle can find by name (not one replaced in its module meanwhile)."""
    return tuple(fn for fn in _JOBS
                 if getattr(sys.modules.get(fn.__module__), fn.__qualname__, None) is fn)


def _warm_up(*jobs: Callable) -> None:
    """Nothing to do: unpickling ``jobs`` has imported their modules in this worker."""


# ----------------------------------------------------------------------------------------
# what a job needs: the scene, the seeds


_SCENES: dict = {}


def as_scene(scene: SceneLike) -> Scene:
    """A Scene from a Scene or a scene file (loaded once per process and file version).

    Parameters
    ----------
    scene : Scene or str or path-like
        A scene, or the path of a scene file.

    Returns
    -------
    Scene
        The scene itself, or the file loaded (kept, so a worker running many jobs of
        one scene reads it once; an edited file is read again).

    Raises
    ------
    SceneError
        For a scene file that cannot be read or is wrong.
    InputError
        For anything that is neither.

    Examples
    --------
    >>> scene = as_scene("scenes/demo.toml")
    >>> scene.name
    'Demo: X vs E on a small machine'
    >>> as_scene("scenes/demo.toml") is scene and as_scene(scene) is scene
    True
    """
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
    raise InputError(f"scene: expected a mark1.Scene or a scene file path, got {type(scene).__name__}")


def scene_ref(scene: Scene):
    """What a worker needs to rebuild the scene: its absolute file path, or the Scene itself.

    Parameters
    ----------
    scene : Scene

    Returns
    -------
    str or Scene
        The absolute path of the scene's file (cheap to send to a worker, which loads it
        with :func:`as_scene`), or the scene itself when it has no file.

    Examples
    --------
    >>> ref = scene_ref(as_scene("scenes/demo.toml"))
    >>> ref.endswith("scenes/demo.toml") and Path(ref).is_absolute()
    True
    """
    return str(Path(scene.path).resolve()) if scene.path else scene


def scene_digest(scene: Scene) -> str | None:
    """SHA-256 of the scene file, so that a resumed run notices an edited scene.

    Parameters
    ----------
    scene : Scene

    Returns
    -------
    str or None
        64 hexadecimal digits; None for a scene without a readable file.

    Examples
    --------
    >>> len(scene_digest(as_scene("scenes/demo.toml")))
    64
    """
    if not scene.path:
        return None
    try:
        return hashlib.sha256(Path(scene.path).read_bytes()).hexdigest()
    except OSError:
        return None


def seed_list(seeds: Seeds) -> list[int]:
    """The seeds of a study: ``n`` means seeds ``range(n)``; a sequence is taken as given.

    Parameters
    ----------
    seeds : int or sequence of int
        A positive number of seeds, or distinct non-negative integers.

    Returns
    -------
    list of int

    Raises
    ------
    InputError
        For no seeds, a repeated or negative seed, or something not an integer.

    Examples
    --------
    >>> seed_list(3)
    [0, 1, 2]
    >>> seed_list([7, 2])
    [7, 2]
    """
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

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     store = Records(folder, {"study": "squares", "version": 1})
    ...     store.save("x-3", {"square": 9})
    ...     same = store.load("x-3")
    ...     other = Records(folder, {"study": "squares", "version": 2}).load("x-3")
    >>> same, other
    ({'square': 9}, None)
    """

    def __init__(self, folder, config: dict, *, valid: Callable[[str, Any], bool] | None = None):
        self.folder = Path(folder)
        self.config = jsonable(config)
        self.valid = valid

    def path(self, key: str) -> Path:
        """The file of job ``key``."""
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

    Raises
    ------
    InputError
        For ``resume`` without ``records``, or keys that are missing, repeated or too few.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     store = Records(folder, {"study": "powers"})
    ...     first = run_jobs(pow, [(2, 3), (3, 2)], keys=["a", "b"], records=store)
    ...     again = run_jobs(print, [(2, 3), (3, 2)], keys=["a", "b"], records=store, resume=True)
    >>> first, again                  # read back on resume: print never ran
    ([8, 9], [8, 9])
    """
    jobs = [tuple(j) for j in jobs]
    if resume and records is None:
        raise InputError("resume: needs out, the folder of the run to resume")
    if records is not None:
        if keys is None or len(keys) != len(jobs) or len(set(keys)) != len(keys):
            raise InputError("keys: expected one distinct key per job when records are kept")
    names: Sequence[str] = () if keys is None else keys      # one a job wherever records are kept (checked)
    results: list = [None] * len(jobs)
    todo = list(range(len(jobs)))
    if records is not None:
        records.clean()
        if resume:
            todo = []
            for i, key in enumerate(names):
                rec = records.load(key)
                if rec is None:
                    todo.append(i)
                else:
                    results[i] = rec
    bar = progress_bar(len(todo), progress or "", show=bool(progress))

    def finished(i, result):
        results[i] = result
        if records is not None:
            records.save(names[i], result)
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
                if not isinstance(executor, _SelfStoppingPool):
                    for fut in futures:
                        fut.cancel()
                raise
    finally:
        bar.close()
    return results


# ----------------------------------------------------------------------------------------
# executors


class Interrupted(KeyboardInterrupt):
    """The run was stopped by Ctrl-C or SIGTERM; ``exit_status`` is 130 or 143.

    Parameters
    ----------
    signum : int
        The signal that stopped the run.

    Examples
    --------
    >>> Interrupted(signal.SIGTERM).exit_status
    143
    >>> isinstance(Interrupted(), KeyboardInterrupt)
    True
    """

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.exit_status = 128 + int(signum)

    def __reduce__(self):
        return type(self), (self.exit_status - 128,)


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

    Raises
    ------
    InputError
        With ``scheduler``, when Dask distributed is not installed (the extra
        ``mark1[cluster]``) or the scheduler cannot be reached.

    Notes
    -----
    In the main thread, SIGTERM is turned into :class:`Interrupted` for the duration,
    so it stops the run as Ctrl-C does; the previous handlers are restored on exit.
    A serial run, like each pool worker, uses one BLAS thread
    (:func:`mark1._utils.threads.one_blas_thread`). A pool worker also trains without the
    sensing thread (:data:`mark1._utils.speed.THREADS`): the workers fill the cores. A
    serial run keeps it; a Dask worker too (set ``THREADS`` there to change it).

    A process pool starts every worker at once, hands each the jobs registered with
    :func:`job`, and on an exception (Ctrl-C, SIGTERM, an error in a job) terminates
    them at once; with "spawn" (not Linux), a script using it must guard its entry point
    with ``if __name__ == "__main__":``. On a Dask cluster the jobs must be importable
    on the workers (install mark1 there, the same version); on an exception the pending
    jobs are cancelled and the client closed.

    Examples
    --------
    >>> with executor_for(workers=1) as ex:        # serially, in this process
    ...     print(ex, run_jobs(pow, [(2, 10)], executor=ex))
    None [1024]
    >>> with executor_for(workers=2) as ex:        # two worker processes
    ...     run_jobs(pow, [(2, 3), (3, 2)], executor=ex)
    [8, 9]
    """
    with _sigterm_interrupts():
        if scheduler is not None:
            with _dask_executor(scheduler) as ex:
                yield ex
        elif workers > 1:
            with _process_pool(workers) as ex:
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


class _SelfStoppingPool(ProcessPoolExecutor):
    """The pool :func:`_process_pool` makes: on an error it cancels its pending jobs itself, as it stops
    (:func:`_stop_now`), so :func:`run_jobs` leaves them alone."""


@contextlib.contextmanager
def _process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool for the jobs: single-threaded BLAS, started at once, stopped hard.

    On Linux the workers are forked from this process when the pool opens, so they
    start with everything already imported and the scene already loaded; elsewhere
    each is a fresh interpreter ("spawn") that imports the modules of the registered
    jobs (:func:`job`) as it unpickles them, before the first job arrives. Measured on 4
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
            pool = _SelfStoppingPool(max_workers=workers, mp_context=multiprocessing.get_context(method),
                                     initializer=_worker_start, initargs=(os.getpid(),))
            jobs = _picklable_jobs()
            for _ in range(workers):               # start every worker now, with the jobs' modules
                pool.submit(_warm_up, *jobs)
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
                if p.isalive():
                    p.kill()
                    p.join(1.0)
        with contextlib.suppress(Exception):
            pool.shutdown(wait=True)                 # the manager thread sees the dead workers
    finally:
        if main:
            signal.signal(signal.SIGINT, old)


def _worker_start(main_pid: int) -> None:
    """In each pool worker: ignore Ctrl-C, die with the main process, one BLAS thread, no
    sensing thread beside the training (the pool's workers fill the cores already: a second
    thread each gave nothing or lost time on a 2-core machine with one core taken).

    On Linux the kernel kills the worker when its parent, the main process, dies
    (``PR_SET_PDEATHSIG``); besides, and on other systems, a thread waits on the main
    process (a pidfd on Linux, else a poll every half second) and ends the worker when
    it is gone. A forked worker also drops the parent's SIGTERM handler, so that
    terminating it ends it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    if not alive(main_pid):                         # died before we could ask
        os._exit(1)
    threading.Thread(target=_exit_when_gone, args=(main_pid,), daemon=True, name="mark1-main-watch").start()
    threadpool_limits(limits=1, user_api="blas")        # for the worker's whole life
    _speed.THREADS = False


def _exit_when_gone(pid: int) -> None:
    """Block until process ``pid`` ends, then end this process at once."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        select.select([fd], [], [])              # readable when the process has ended
    else:
        while alive(pid):
            time.sleep(0.5)
    os._exit(1)


def _die_with_parent() -> None:
    """Linux: ask the kernel to SIGKILL this process when its parent dies."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass


@contextlib.contextmanager
def _dask_executor(address: str):
    """A ``concurrent.futures`` executor on the Dask cluster at ``address``.

    Uses ``distributed.Client(address).get_executor()``; the jobs must be importable
    on the workers (install mark1 there, the same version). Results are identical to a
    serial run. On an exception the pending jobs are cancelled and the client closed.

    Raises
    ------
    InputError
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


# ----------------------------------------------------------------------------------------
# the cards of a run, rendered once per process

_CARDS: dict = {}
_CARDS_KEPT = 4
_CARDS_LOCK = threading.Lock()          # a Dask worker may run jobs in threads


def run_cards(scene, seed: int, train_count: int | None = None, test_count: int | None = None):
    """:func:`mark1.stimuli.cards.scene_cards` of a seed, kept for the last few seeds of this process.

    The jobs of one seed (ablation variants, curve variants, sweep values) share its
    cards; a worker that runs several of them renders the cards once. Treat the cards
    as read-only.

    Parameters
    ----------
    scene : Scene
    seed : int
        The run's seed, split into training cards, test cards and machine seeds.
    train_count, test_count : int, optional
        Card counts instead of the scene's.

    Returns
    -------
    train, test : cards
        The training and test decks (``.cards`` of shape (n_cards, height, width),
        reflectance; ``.labels`` of shape (n_cards,)).
    seed_machine : int
        The machine's seed.

    Examples
    --------
    >>> scene = as_scene("scenes/demo.toml")
    >>> train, test, seed_machine = run_cards(scene, 0, train_count=6, test_count=4)
    >>> train.cards.shape[0], len(test.labels)
    (6, 4)
    >>> run_cards(scene, 0, train_count=6, test_count=4)[0] is train      # rendered once
    True
    """
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
