"""The one decorator of mark1's compiled loops: numba, cached on disk in a per-user directory.

Every numba-compiled function of the package is decorated with :func:`compiled`, so that
where its machine code is kept, and what happens when it cannot be kept, is decided here:

* **Where.** ``NUMBA_CACHE_DIR`` when set (numba's own variable, or ``numba.config.CACHE_DIR``);
  otherwise the platform's per-user cache directory plus ``mark1/numba``
  (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
  ``%LOCALAPPDATA%`` on Windows), never the installed package's own directory, which may be
  read-only. Inside it each source directory has its own sub-directory (named by a hash of
  its path), each function an index file named by the Python version, and the index holds
  numba's version, a SHA-256 of the source file and a key per signature and CPU: two mark1
  installs, two Python or numba versions, or an edited source never use each other's code.
* **Unwritable.** Where the directory cannot be created or written, the loops are compiled
  in every process without a cache, after one :class:`~mark1.exceptions.Mark1Warning` (once
  per process), never an error.
* **Callees.** numba recompiles a cached function when *its own* source file changes, but
  not when a compiled function it calls from *another* module changes (numba issue #1833):
  the caller's cached code would keep the old callee. ``compiled(module, ...)`` adds a
  digest of those modules' sources to the cache's key, so a change there compiles anew.
  This uses numba's cache classes (``numba.core.caching``); should a numba release change
  them, the decorator falls back to numba's plain ``cache=True`` in the same directory
  (callee changes then need the cache cleared) and says so once.
* **First compile.** Compiling every loop takes seconds, once per cache. The first compile
  in a process prints one line on stderr when stderr is a terminal or a Jupyter kernel's
  (or ``MARK1_COMPILE_NOTICE=1``): ``compiling the machine's loops, once: about N s``,
  N the median of the last cold compiles measured on this computer (kept beside the cache)
  or, before any, the figure measured on the 2-core development machine, scaled by how
  busy the computer is now against then (the load average per core).
  :func:`compile_seconds` tells a caller how long this process has spent compiling, so a
  wall time can leave it out.

Nothing is compiled at import: a loop compiles (or loads from the cache) on its first call.

Examples
--------
>>> import numpy as np
>>> from mark1._utils.compiled import compiled
>>> @compiled
... def total(x):
...     s = 0.0
...     for v in x:
...         s += v
...     return s
>>> float(total(np.arange(4.0)))
6.0
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
import warnings
from functools import cache
from pathlib import Path
from types import ModuleType
from collections.abc import Callable
from typing import Any, cast

import numba
import numba.core.options

from mark1._utils.progress import _in_kernel
from mark1.exceptions import Mark1Warning

__all__ = ["cache_dir", "compile_seconds", "compiled", "njit_calling", "source_digest", "writable_cache_dir"]

#: Seconds a cold compile of every loop ``mark1 run scenes/demo.toml`` calls takes on the
#: idle 2-core development machine (numba 0.68, Python 3.11), said before this computer
#: has measured its own (scaled by the load then, see :func:`_busy`): 17.1 s for the whole
#: cold run, 15.1 s of it compiling.
COLD_COMPILE_S = 15.0

#: How many of the last compiles the estimate takes the median of.
_KEPT = 5

_RECORD = "compile_seconds.json"


def cache_dir() -> Path:
    """The directory the compiled loops are cached in (it may not exist or be writable).

    Returns
    -------
    pathlib.Path
        ``NUMBA_CACHE_DIR`` when set, else the platform's per-user cache directory joined
        with ``mark1/numba``.

    Examples
    --------
    >>> import os
    >>> from mark1._utils.compiled import cache_dir
    >>> given = os.environ.get("NUMBA_CACHE_DIR")
    >>> str(cache_dir()) == given if given else cache_dir().parts[-2:] == ("mark1", "numba")
    True
    """
    # numba.config sets its settings at import, which its type hints do not declare
    given = cast(Any, numba.config).CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR", "")
    if given:
        return Path(given).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Caches"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else home / ".cache"   # XDG: relative is invalid
    return base / "mark1" / "numba"


@cache
def _writable_dir() -> Path | None:
    """The cache directory, created, when a file can be written in it; else None (warned once)."""
    path = cache_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except (OSError, RuntimeError) as e:    # RuntimeError: Path.home() without a home
        # a RuntimeError has no strerror (mypy): reading it would turn the warning into a crash
        _warn_once(f"cannot write numba's cache in {path} ({getattr(e, 'strerror', None) or e}); the machine's "
                   f"loops compile in every process (set NUMBA_CACHE_DIR to a writable directory)")
        return None
    return path


def writable_cache_dir() -> Path | None:
    """The cache directory in use, or None when none is writable (the loops run uncached).

    Returns
    -------
    pathlib.Path or None
        :func:`cache_dir`, created, when a file can be written in it.

    Examples
    --------
    >>> from mark1._utils.compiled import cache_dir, writable_cache_dir
    >>> writable_cache_dir() in (None, cache_dir())
    True
    """
    return _writable_dir()


_warned: set[str] = set()


def _warn_once(text: str) -> None:
    """One Mark1Warning line per distinct text per process."""
    if text in _warned:
        return
    _warned.add(text)
    # warn_explicit without a source line: the warning prints as one line
    warnings.warn_explicit(text, Mark1Warning, filename="mark1", lineno=0)


def source_digest(modules: tuple[ModuleType, ...]) -> str:
    """SHA-256 of the modules' source files, in the order given.

    Parameters
    ----------
    modules : tuple of module
        Modules with a source file (``__file__``).

    Returns
    -------
    str
        64 hex digits.

    Examples
    --------
    >>> from mark1._utils.compiled import source_digest
    >>> import mark1.machine.rules as rules
    >>> len(source_digest((rules,)))
    64
    """
    h = hashlib.sha256()
    for m in modules:
        h.update(Path(cast(str, m.__file__)).read_bytes())    # a source module has a file
    return h.hexdigest()


try:
    # numba's cache classes, renamed without the underscore in numba 0.61
    from numba.core import caching as _caching

    # typed Any: the class names differ between numba releases, so neither is known here
    _Locator: Any = getattr(_caching, "_CacheLocator", None) or cast(Any, _caching).CacheLocator
    _Impl: Any = getattr(_caching, "_CompileResultCacheImpl", None) or cast(Any, _caching).CompileResultCacheImpl
    _FunctionCache = _caching.FunctionCache
    _INTERNALS: str | None = None
except (ImportError, AttributeError) as e:      # a numba release changed its cache classes
    _INTERNALS = f"{type(e).__name__}: {e}"


def _cache_class(digest: str, root: Path):
    """numba's FunctionCache in ``root``, its index key extended by ``digest``."""

    class Locator(_Locator):
        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._path = str(root / self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self):
            return self._path

        def get_source_stamp(self):
            return hashlib.sha256(Path(self._py_file).read_bytes()).digest()

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            return cls(py_func, py_file)

    class Impl(_Impl):
        _locator_classes = [Locator]  # noqa: RUF012 (numba's class attribute)

    class Cache(_FunctionCache):
        _impl_class = Impl
        _digest = digest

        def _index_key(self, sig, codegen):
            return super()._index_key(sig, codegen) + (digest,)

        def save_overload(self, sig, data):
            try:
                super().save_overload(sig, data)
            except OSError as e:    # the disk filled or turned read-only since: run uncached
                _warn_once(f"cannot write numba's cache in {root} ({e.strerror or e}); "
                           "compiled code is not kept")
                self.disable()

    return Cache


def compiled(*modules: ModuleType | Callable[..., Any], **options: Any) -> Any:
    """Compile a function with numba (``njit``), cached in :func:`cache_dir`.

    Use bare, ``@compiled``, or with the modules whose compiled functions it calls,
    ``@compiled(rules, perceptron)``: a change in those modules' sources then compiles
    the function anew instead of loading stale code.

    Parameters
    ----------
    *modules : module
        Modules the decorated function calls compiled functions of.
    **options
        Passed to ``numba.njit`` (``cache`` is decided here). ``error_model`` is
        ``"numpy"`` unless given: a float division by zero gives inf or nan instead of
        raising. Python's model makes every division a branch that may raise, and past
        such a branch numba keeps a reference to each array of the records a kernel takes
        (~0.05 us a call for one pot's plan, 25 times its arithmetic).
        ``refcounts=False`` compiles a function that allocates nothing and keeps no array
        past its return without numba's reference counts (its private ``_nrt`` switch):
        a function that takes the rack's records then costs its arithmetic, not an
        atomic count in and out of each array it touches (~0.1 us a pot set going).

    Returns
    -------
    numba dispatcher, or decorator
        The compiled function (bare use), or a decorator making one. Under
        ``NUMBA_DISABLE_JIT=1`` the plain Python function.

    Examples
    --------
    >>> from mark1._utils.compiled import compiled
    >>> import mark1.machine.rules as rules
    >>> @compiled(rules)
    ... def twice(a):
    ...     return 2 * a
    >>> twice(21)
    42
    """
    if len(modules) == 1 and callable(modules[0]) and not isinstance(modules[0], ModuleType):
        return compiled(**options)(modules[0])
    options.setdefault("error_model", "numpy")
    if not options.pop("refcounts", True) and hasattr(numba.core.options.DefaultOptions, "_nrt"):
        options["_nrt"] = False
    digest = source_digest(cast(tuple[ModuleType, ...], modules))    # the bare use returned above

    def decorate(fn):
        root = _writable_dir()
        if root is not None and _INTERNALS is not None:
            _warn_once(f"numba's cache classes changed ({_INTERNALS}); using numba's plain cache "
                       f"in {root}, which misses changes in a called module (clear it after one)")
            cast(Any, numba.config).CACHE_DIR = str(root)
            return _watched(numba.njit(cache=True, **options)(fn))
        dispatcher = numba.njit(**options)(fn)
        if not hasattr(dispatcher, "py_func"):         # NUMBA_DISABLE_JIT: the plain function
            return dispatcher
        if root is not None:
            # what Dispatcher.enable_caching() does, with our directory and key
            try:
                dispatcher._cache = _cache_class(digest, root)(dispatcher.py_func)
            except OSError:     # no source file to key on (python -c, a notebook cell): uncached
                pass
        return _watched(dispatcher)

    return decorate


#: The old name (tests and code from before the one decorator).
njit_calling = compiled


# -- the first compile's notice and the time spent compiling ---------------------------

_ours: set[int] = set()          # id() of mark1's dispatchers
_lock = threading.Lock()
_state = {"depth": 0, "t0": 0.0, "total": 0.0, "told": False, "busy": 0.0}


def _watched(dispatcher):
    _ours.add(id(dispatcher))
    return dispatcher


def compile_seconds() -> float:
    """Seconds this process has spent compiling mark1's loops (0 when all came from the cache).

    Returns
    -------
    float
        Wall seconds, summed over the outermost compiles (a caller's compile includes
        its callees').

    Examples
    --------
    >>> from mark1._utils.compiled import compile_seconds
    >>> compile_seconds() >= 0.0
    True
    """
    with _lock:
        extra = time.perf_counter() - _state["t0"] if _state["depth"] else 0.0
        return _state["total"] + extra


def _busy() -> float:
    """How much longer than on an idle computer a compile takes now: the runnable tasks per
    core, this one included (1.0 when idle or when the load cannot be read)."""
    try:
        return max(1.0, (os.getloadavg()[0] + 1.0) / (os.cpu_count() or 1))
    except (OSError, AttributeError):       # no load average (Windows)
        return 1.0


def _estimate() -> float:
    """Seconds the first compile is expected to take: the median of the last compiles kept
    (each as measured, over how busy the computer was then), times how busy it is now."""
    root = _writable_dir()
    try:
        rec = json.loads((root / _RECORD).read_text()) if root is not None else {}
        kept = rec.get(_record_key())
        idle = sorted(float(w) / max(1.0, float(b)) for w, b in kept) if isinstance(kept, list) and kept else []
    except (OSError, ValueError, TypeError, AttributeError):
        idle = []
    base = (idle[(len(idle) - 1) // 2] + idle[len(idle) // 2]) / 2 if idle else COLD_COMPILE_S
    return base * _busy()


def _record_key() -> str:
    face = sys.modules.get("mark1")     # imported by now, whichever module came first
    return (f"mark1 {getattr(face, '__version__', '?')}, numba {numba.__version__}, "
            f"python {sys.version_info[0]}.{sys.version_info[1]}")


def _tell() -> None:
    """Say once on a terminal that the loops are being compiled, and for about how long."""
    _state["told"] = True
    _state["busy"] = _busy()            # how busy the computer was as the compile began
    stream = sys.stderr
    try:
        tty = stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:                 # a Jupyter kernel shows stderr in the cell, as it shows bars
        tty = _in_kernel()
    if tty or os.environ.get("MARK1_COMPILE_NOTICE") == "1":
        once = "once" if _writable_dir() is not None else "no writable cache, so in every run"
        stream.write(f"compiling the machine's loops, {once}: about {_estimate():.0f} s\n")
        stream.flush()


@atexit.register
def _save_record() -> None:
    """Keep this process's compile time beside the cache, when it compiled much (the next
    cold compile's estimate): the last few seen for this mark1, numba and Python, each with
    how busy the computer was (the median, not the largest: one long study or test session
    compiling dozens of variants, or a busy hour, would make every later estimate too long)."""
    total = _state["total"]
    root = _writable_dir() if _state["told"] else None
    if root is None or total < 1.0:
        return
    path = root / _RECORD
    try:
        rec = json.loads(path.read_text()) if path.exists() else {}
        key = _record_key()
        kept: list = rec[key] if isinstance(rec.get(key), list) else []
        rec[key] = [*kept, [round(total, 1), round(_state["busy"] or _busy(), 2)]][-_KEPT:]
        tmp = path.with_name(f"{_RECORD}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(rec, indent=1))
        os.replace(tmp, path)
    except (OSError, ValueError, TypeError, AttributeError):
        pass        # only an estimate: never fail a run's exit over it


def _install_listener() -> None:
    try:
        from numba.core import event
    except ImportError:         # no event API: no notice, compile time counted as 0
        return

    class Listener(event.Listener):
        def on_start(self, ev):
            with _lock:
                if _state["depth"] == 0:
                    disp = (ev.data or {}).get("dispatcher")
                    if id(disp) not in _ours:
                        return
                    _state["t0"] = time.perf_counter()
                    if not _state["told"]:
                        _tell()
                _state["depth"] += 1

        def on_end(self, ev):
            with _lock:
                if _state["depth"] == 0:
                    return
                _state["depth"] -= 1
                if _state["depth"] == 0:
                    _state["total"] += time.perf_counter() - _state["t0"]

    try:
        event.register("numba:compile", Listener())
    except (AttributeError, TypeError, ValueError):
        return


_install_listener()
