"""The machine's speed machinery in one place: one switch for each fast path, the plain path beside it.

Each switch changes how fast a run goes, never what it gives: with every switch off
(:func:`plain`) a run takes the plain path, and tests/test_speed.py checks that each fast
path alone, and all of them together, give that path's history, wipers and machine time
bit for bit. Set a switch on this module (``speed.THREADS = False``); a run reads them
when it starts.

The switches
------------
:data:`THREADS`
    Whether the machine may run compiled loops in a second thread at all (the lab's
    process pool turns it off in its workers, which fill the cores). Plain: everything in
    the caller's thread. Only where :func:`second_thread` says a second thread can run.
:data:`LOOK_AHEAD`
    The sensing of the next block of presentations runs in a second thread (``mark1-sensing``)
    while the caller trains on this one (:class:`LookAhead`; ``simulator._SensoryPipeline``
    calls it). Plain: each block sensed when it is wanted, in the caller's thread.
:data:`COMPILED_LOOP`
    Blocks of presentations run through the compiled step in one call where nobody
    watches each card. Plain: one card a call, SimPy's clock brought to each read (the
    event path; a listener in the caller's SimPy environment, real-time replay and a full
    trace with overlap or drivers always take it).
:data:`HOLD_STATE`
    The step's records (about 60 arrays) are held once a run in one compiled object
    (``_kernels.state.RunState``, a numba ``structref``), so a call passes it and a row
    rather than converting every array at every call (5-7 us, where a card the trainer
    does not reinforce steps in about 1 us; it costs no compile time: the demo's cold
    compile measured 41.7 s of CPU with it and 43.7 s without, on a loaded machine). Not
    where the step leaves a reinforcement to the caller (a full trace stepping card by
    card). Plain: the records passed at every call. Never without numba's compiler
    (``NUMBA_DISABLE_JIT``).
:data:`DIRECT_CALLS`
    A compiled step is called straight to its compiled copy for the arguments' types
    (:class:`Direct`), found once a run, where numba's dispatcher types every argument at
    every call (about 18 us for the step's records). Plain: the dispatcher.
:data:`LOAD_LIGHT`
    Code found in the compiled cache is loaded after only what running it needs: numba's
    runtime and the symbols the code links to (:mod:`mark1._utils.compiled`). numba's own
    load first prepares to compile, importing every implementation module (SciPy's linear
    algebra among them): about 0.5 s of CPU before a warm run's first result. Plain:
    numba's own load (code that fails to load the light way is loaded so too).
:data:`BLOCK_EVENTS`
    A block of presentations run whole with a full trace (a fit with an ``on_event``
    listener in the run's own SimPy environment, or a full trace nobody watches) keeps its
    events as columns: their times, names, presentations and words made at once with numpy
    (the sums' text laid out as bytes from a table of every 4-significant-digit decimal's
    text, :func:`rows_4g`, where Python formats 8 floats a card at 0.3-0.7 us each; the
    words that repeat made once a run), the listener told from the columns, the event
    tuples made only when the trace's events are first read; a full trace nobody listens
    to makes none of it until then. Plain: each card's event tuples made in turn, each
    number formatted by Python, kept in the list and told.

:data:`PYTHON_WHEN_COLD`
    ``mark1 run``, ``explain`` and ``lesson`` on a cold cache (no loops compiled yet for this
    mark1, numba and Python) run the loops as Python, uncompiled, when compiling them would
    take longer than the run (:func:`mark1._utils.compiled.python_when_cold`): the demo's first run takes
    seconds, not the compile's ~18 s, with the same bits (numba compiles the very functions
    Python runs). From a terminal the run then compiles them in a background process for
    the next run. Decided before the loops are first imported, so it holds for the whole
    process; set ``MARK1_PYTHON_WHEN_COLD=0`` in the environment to turn it off. Plain:
    the loops compile on their first call.

Not a switch: compiled functions that allocate nothing and keep no array past their
return are compiled without numba's reference counts (``compiled(refcounts=False)``, numba's
private ``_nrt`` option, :mod:`mark1._utils.compiled`). It is fixed when the code is
compiled and kept in numba's cache, so it cannot change at run time.
"""

from __future__ import annotations

import functools
import os
import queue
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any, cast

import numba
import numpy as np

from mark1.exceptions import InputError

__all__ = ["BLOCK_EVENTS", "COMPILED_LOOP", "DIRECT_CALLS", "HOLD_STATE", "LOAD_LIGHT", "LOOK_AHEAD",
           "PYTHON_WHEN_COLD", "THREADS",
           "Direct", "LookAhead", "plain", "rows_4g", "second_thread"]

#: Whether compiled loops may run in a second thread at all (:data:`LOOK_AHEAD`).
THREADS = True

#: Whether the next block of presentations is sensed in a second thread (:class:`LookAhead`).
LOOK_AHEAD = True


#: Whether blocks of presentations run in one compiled call where nobody watches each card.
COMPILED_LOOP = True

#: Whether a run stepping one card a call holds the step's records in a compiled object.
HOLD_STATE = True

#: Whether compiled steps are called straight to their compiled copy (:class:`Direct`).
DIRECT_CALLS = True

#: Whether cached code loads without numba's preparation for compiling (:mod:`~mark1._utils.compiled`).
LOAD_LIGHT = True

#: Whether a block run whole with a full trace makes its events at once (:func:`rows_4g`).
BLOCK_EVENTS = True

#: Whether ``mark1 run`` (explain, lesson) runs the loops as Python on a cold cache where compiling costs more.
PYTHON_WHEN_COLD = os.environ.get("MARK1_PYTHON_WHEN_COLD", "1") != "0"

_SWITCHES = ("THREADS", "LOOK_AHEAD", "COMPILED_LOOP", "HOLD_STATE", "DIRECT_CALLS", "LOAD_LIGHT", "BLOCK_EVENTS",
             "PYTHON_WHEN_COLD")


def second_thread() -> bool:
    """Whether a second thread can run compiled code beside this one, at the same time.

    True when :data:`THREADS` is on, this process may use more than one CPU, and numba
    compiles (under ``NUMBA_DISABLE_JIT=1`` the loops are Python and hold the GIL).

    Returns
    -------
    bool

    Examples
    --------
    >>> import os
    >>> cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    >>> second_thread() == (THREADS and cpus > 1 and not numba.config.DISABLE_JIT)
    True
    """
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    # numba.config sets its settings at import, which its type hints do not declare
    return THREADS and cpus > 1 and not cast(Any, numba.config).DISABLE_JIT


def compiler_on() -> bool:
    """Whether numba compiles (False under ``NUMBA_DISABLE_JIT=1``: the kernels are Python)."""
    return not cast(Any, numba.config).DISABLE_JIT


class plain:
    """Context manager: every switch off inside (the plain path), as it was outside after.

    Parameters
    ----------
    **keep : bool
        Switches to set otherwise inside, by name (``plain(THREADS=True)``).

    Examples
    --------
    >>> from mark1._utils import speed as _speed
    >>> with _speed.plain(DIRECT_CALLS=True):
    ...     _speed.THREADS, _speed.DIRECT_CALLS
    (False, True)
    >>> _speed.THREADS
    True
    """

    def __init__(self, **keep: bool) -> None:
        unknown = set(keep) - set(_SWITCHES)
        if unknown:
            raise InputError(f"plain: no switch {', '.join(sorted(unknown))} (expected {', '.join(_SWITCHES)})")
        self.inside = {name: bool(keep.get(name, False)) for name in _SWITCHES}
        self.outside: dict[str, bool] = {}

    def __enter__(self) -> plain:
        self.outside = {name: globals()[name] for name in _SWITCHES}
        globals().update(self.inside)
        return self

    def __exit__(self, *exc: object) -> None:
        globals().update(self.outside)


class Direct:
    """A compiled kernel called straight to its compiled copy for the arguments' types.

    numba's dispatcher types every argument at every call (about 18 us for the records of
    ``train_block``, more than one card's step); within a run those types change only with
    the layout of the arrays the sensing makes, so the caller passes a ``key`` of them and
    the copy found for a key (the dispatcher's ``overloads``, typed once) is called directly.
    A key whose copy cannot be found is served by the dispatcher, every call; so is every
    call with :data:`DIRECT_CALLS` off when the object was made.

    Examples
    --------
    >>> from mark1._utils.compiled import compiled
    >>> @compiled
    ... def twice(a):
    ...     return 2 * a
    >>> direct = Direct(twice)
    >>> direct("int", 3), direct("int", 4)
    (6, 8)
    """

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher
        self.entries: dict = {}
        self.on = DIRECT_CALLS

    def __call__(self, key, *args):
        entry = self.entries.get(key)
        if entry is not None:
            return entry(*args)
        out = self.dispatcher(*args)              # compiles for these types if it must
        if not self.on:
            return out
        try:
            signature = tuple(self.dispatcher.typeof_pyval(a) for a in args)
            found = self.dispatcher.overloads.get(signature)
        except AttributeError:                    # a plain function (NUMBA_DISABLE_JIT), or numba changed
            found = None
        self.entries[key] = getattr(found, "entry_point", None) or self.dispatcher
        return out


# -- the threads ------------------------------------------------------------------------------
class LookAhead:
    """The next piece of a caller's work, done in a second thread while the caller does this one.

    The caller starts a job under a ``key`` (:meth:`start`, with its arguments for ``work``)
    and later collects the one under the key it then wants (:meth:`collect`): the job's result (its exception raised
    there), or None (the plain path: the caller works it out itself) when the job was for
    another key, was not started, or had not begun (:attr:`take_back`). ``work`` must read
    nothing the caller writes meanwhile except :attr:`discarded`, the count of jobs
    discarded (:meth:`discard`), which it may compare with the count it was started under to stop
    early (the caller ignores a discarded job's result). :meth:`close` ends the thread;
    the caller calls it however its run ends. With :data:`LOOK_AHEAD` off, or where
    :func:`second_thread` says no second thread can run, no thread is started and every
    :meth:`collect` gives None.

    Parameters
    ----------
    work : callable
        The job: ``work(*args)`` for the ``args`` of :meth:`start`.
    name : str
        The thread's name.

    Examples
    --------
    >>> ahead = LookAhead(lambda a, b: a + b, "adder")
    >>> ahead.take_back = False               # wait for the job, even one not begun
    >>> ahead.start("next", 2, 3)
    >>> ahead.collect("next") == (5 if ahead.on else None)
    True
    >>> ahead.close()
    """

    #: Whether :meth:`collect` takes back a job the thread has not begun yet (busy with a
    #: discarded one, or without a core on a loaded machine), rather than wait for it.
    take_back = True

    def __init__(self, work: Callable[..., Any], name: str) -> None:
        self.work, self.name = work, name
        self.on = LOOK_AHEAD and second_thread()
        self.discarded = 0
        self._ahead: tuple[Hashable, Future] | None = None
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._worker: threading.Thread | None = None

    def start(self, key: Hashable, *args: Any) -> None:
        """Start ``work(*args)`` in the second thread, to be collected under ``key``."""
        if not self.on:
            return
        future: Future = Future()
        self._ahead = (key, future)
        if self._worker is None:
            self._worker = threading.Thread(target=self._serve, args=(self._jobs,), name=self.name, daemon=True)
            self._worker.start()
        self._jobs.put((future, args))

    def collect(self, key: Hashable) -> Any:
        """The job started under ``key`` and begun (its exception raised here); else None,
        and any job started is discarded."""
        ahead = self._ahead
        if ahead is None:
            return None
        if ahead[0] != key:
            self.discard()
            return None
        self._ahead = None
        if self.take_back and ahead[1].cancel():     # not begun: the caller works it out
            return None
        return ahead[1].result()

    def discard(self) -> None:
        """Drop the job started: never done if it has not begun, else left to end (see
        :attr:`discarded`) and its result ignored."""
        if self._ahead is not None:
            self.discarded += 1
            self._ahead[1].cancel()
            self._ahead = None

    def _serve(self, jobs: queue.SimpleQueue) -> None:
        """The second thread: each job asked for, until told to stop (None)."""
        while (job := jobs.get()) is not None:
            future, args = job
            if not future.set_running_or_notify_cancel():      # taken back or discarded
                continue
            try:
                future.set_result(self.work(*args))
            except BaseException as e:          # noqa: BLE001 -- raised by the collect that takes it
                future.set_exception(e)

    def close(self) -> None:
        """End the second thread, if one was started: a job not begun is dropped, one
        running finishes first."""
        self.discard()
        worker, self._worker = self._worker, None
        if worker is not None:
            self._jobs.put(None)
            try:
                worker.join()
            except RuntimeError:        # an interrupt in start(): not started, or ends at the None
                pass


# -- the words ----------------------------------------------------------------------------------
# The text " %+.4g" writes (a space first) for every decimal of 4 significant digits ±m·10**(e-3),
# m = 1000..9999, between 0.0001 and 9999 (e = -4..3, where %g writes no exponent), as bytes
# with NULs where no character is: 9,000 a sign and decade, each decade made the first time a
# number in it is written (108 kB); then a row for a number left to Python (_LEFT) and one that
# ends a line (_END).
_MANTISSAS = 9000
_DECADES = range(-4, 4)
_NUMBER = " %+.4g"
_WIDTH = 12                                           # " -1.234e-308": the longest _NUMBER
_TABLED = 2 * len(_DECADES) * _MANTISSAS
_LEFT, _END = _TABLED, _TABLED + 1
_BYTES = np.zeros((_TABLED + 2, _WIDTH), dtype=np.uint8)
_BYTES[_LEFT, 0], _BYTES[_END, 0] = 1, 10                  # "\x01" (a place kept), "\n"
_MADE = np.zeros(2 * len(_DECADES), dtype=bool)
# a value's decade by where it falls among the powers of ten (0 and len(_DECADES) + 1: outside)
_EDGES = 10.0 ** np.arange(_DECADES[0], _DECADES[-1] + 2, dtype=float)
# each decade's 10**(3 - e), exact doubles (1 outside the table)
_SCALE = np.concatenate([[1.0], 10.0 ** (3 - np.array(_DECADES, dtype=float)), [1.0]])
# a scaled value this close to a rounding tie is left to Python, whose digits are exact
# (the scaling is off by at most 2e-12 there)
_NEAR_TIE = 1e-9


@functools.cache
def _digits() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The digits of m = 1000..9999 as characters (9000, 4), the same with the trailing zeros
    NULs, and each m's last digit not zero (its index)."""
    digits = (np.arange(1000, 10000)[:, None] // 10 ** np.arange(3, -1, -1) % 10).astype(np.uint8)
    last = 3 - np.argmax(digits[:, ::-1] != 0, axis=1)      # d0 is never zero
    kept = np.where(np.arange(4) <= last[:, None], digits + ord("0"), 0).astype(np.uint8)
    return digits + ord("0"), kept, last


def _decade(negative: bool, e: int) -> np.ndarray:
    """The text of ±m·10**(e-3) for m = 1000..9999, in order, as ``" %+.4g"`` writes it: (9000,
    _WIDTH) bytes, NULs where a character is not (trailing zeros, a point with no digit after it)."""
    digits, kept, last = _digits()
    text = np.zeros((_MANTISSAS, _WIDTH), dtype=np.uint8)
    text[:, 0], text[:, 1] = ord(" "), ord("-" if negative else "+")
    if e < 0:                                          # 0.0ddd
        lead = np.frombuffer(("0." + "0" * (-e - 1)).encode("ascii"), dtype=np.uint8)
        text[:, 2:2 + len(lead)] = lead
        text[:, 2 + len(lead):6 + len(lead)] = kept
    else:                                    # e + 1 digits (zeros too), the point if a digit follows, the rest
        text[:, 2:3 + e] = digits[:, :e + 1]
        if e < 3:
            text[:, 3 + e] = np.where(last > e, ord("."), 0)
            text[:, 4 + e:7] = kept[:, e + 1:]
    return text


def rows_4g(head: str, values: np.ndarray) -> list[str]:
    """Each row of ``values`` as ``(head + " %+.4g" * k) % tuple(row)`` writes it, most of
    the numbers' text from a table.

    A value between 0.0001 and 9999.5 is rounded to 4 significant digits with numpy and the
    text of that decimal looked up (each decade's 9,000 texts made once a process, when
    first met); one within ``1e-9`` of a rounding tie or of its decade's edge once scaled, and
    every other value (0, NaN, infinities, those written with an exponent), is formatted by
    Python. The text is the same either way: ``%g`` writes the correctly rounded digits, and
    the table holds Python's text of each decimal. The lines are laid out as bytes, each
    row's numbers gathered from the table at once.

    Parameters
    ----------
    head : str
        What each line starts with.
    values : array (m, k) float

    Returns
    -------
    list of str
        The ``m`` lines.

    Examples
    --------
    >>> v = np.array([[0.012345, -3.0, 1234.5], [0.0, 1e-7, -99999.0]])
    >>> rows_4g("sums", v) == [("sums" + " %+.4g" * 3) % tuple(row) for row in v.tolist()]
    True
    >>> rows_4g("sums", v)[0]
    'sums +0.01235 -3 +1234'
    """
    v = np.asarray(values, dtype=float)
    m, k = v.shape
    if "\n" in head or "\x01" in head:
        return [(head + _NUMBER * k) % tuple(row) for row in v.tolist()]
    size = np.abs(v)
    place = np.searchsorted(_EDGES, size, side="right")       # decade place - 1 of the table; NaN: past the end
    scaled = size * _SCALE[place]
    mantissa = np.rint(scaled)
    # in the table, within the decade after rounding (the edges' doubles are not exact), no tie
    with np.errstate(invalid="ignore"):                       # infinities
        tabled = ((place > 0) & (place <= len(_DECADES)) & (scaled >= 1000.0) & (scaled < 9999.5 - _NEAR_TIE)
                  & (np.abs(scaled - mantissa) < 0.5 - _NEAR_TIE))
    decade = np.signbit(v) * len(_DECADES) + place - 1
    met = np.zeros(len(_MADE) + 1, dtype=bool)
    met[np.where(tabled, decade, len(_MADE))] = True
    for d in np.flatnonzero(met[:-1] & ~_MADE).tolist():
        _BYTES[d * _MANTISSAS:(d + 1) * _MANTISSAS] = _decade(d >= len(_DECADES), d % len(_DECADES) + _DECADES[0])
        _MADE[d] = True
    places = np.empty((m, k + 1), dtype=np.intp)             # each line's rows of the table
    places[:, :-1] = np.where(tabled, decade * _MANTISSAS + mantissa - 1000.0, _LEFT)
    places[:, -1] = _END
    text = _BYTES[places].tobytes().translate(None, b"\0").decode("ascii")
    lines = (head + text.replace("\n", "\n" + head)).split("\n")[:-1]
    if not tabled.all():
        for r in np.flatnonzero(~tabled.all(axis=1)).tolist():
            line = lines[r]
            for x in v[r][~tabled[r]].tolist():
                line = line.replace("\x01", _NUMBER % x, 1)
            lines[r] = line
    return lines
