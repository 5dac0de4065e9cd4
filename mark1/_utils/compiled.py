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
* **Unwritable.** Where neither that directory nor the fallback below can be created or
  written, the loops are compiled in every process without a cache, after one
  :class:`~mark1.exceptions.Mark1Warning` (once per process), never an error.
* **Callees.** numba recompiles a cached function when *its own* source file changes, but
  not when a compiled function it calls from *another* module changes (numba issue #1833):
  the caller's cached code would keep the old callee. ``compiled(module, ...)`` adds a
  digest of those modules' sources to the cache's key, so a change there compiles anew.
  This uses numba's cache classes (``numba.core.caching``); should a numba release change
  them, the decorator falls back to numba's plain ``cache=True`` in the same directory
  (callee changes then need the cache cleared) and says so once.
* **What the key holds.** Beside numba's own key (the signature, the CPU, the function's
  bytecode), each compiled function's index key holds mark1's version, a SHA-256 of every
  mark1 source file the function's module imports, at any depth (found from the ``import``
  statements themselves, so ``mark1/specs.py``, which decides the fields of the records the
  kernels take, is in it without being named), and the field names of every record
  (named tuple) in the signature: numba types a named tuple by its class's name and its
  fields' types alone, so a record whose fields were reordered would otherwise load code
  that reads them in the old order. An upgrade, a reordered spec or an edited callee
  compiles anew; nothing stale is ever loaded. The sources are read for the key as the
  module is imported, and code compiled in a process whose sources have changed on disk
  since (an edit, or an upgrade installed while a notebook runs) is not kept: it came from
  the sources the process imported, not from those the key would name (one warning).
* **Variants.** :func:`specialised` makes a compiled function again with some module-level
  constants ``False`` (``DEVICE``, ``QUEUED``, ``LOG`` in the kernels), so numba prunes the
  branches they guard before typing them and never compiles what a run does not use; the
  variant's index file and key hold those constants. Its callees are compiled without
  Python wrappers and without a cache of their own (their code is kept inside the
  variant's).
* **Names.** numba names compiled code by an id it counts from 1 in each process, and a
  process that loads two cached functions of one name calls the first one's code from both:
  two processes compiling two variants alike would give their callees one name. Here the
  ids are drawn at random (:class:`_RandomIds`), so no two compiled functions share a name.
* **Unreadable.** An index or code file that cannot be unpickled (written by another build,
  naming a class that no longer exists, or damaged) counts as a miss: one warning, the
  function compiles anew and a fresh index replaces it.
* **Warm loads.** A function found in the cache is loaded after only what its machine code
  needs (numba's runtime and the symbols it links to; the switch
  :data:`mark1._utils.speed.LOAD_LIGHT`), not numba's preparation for compiling, which
  imports every implementation module and SciPy's linear algebra. Where that light load
  fails, numba's own load is used instead (about half a second once); it is logged at
  DEBUG on the ``mark1._utils.compiled`` logger and counted (:data:`LOADS`). What each source file
  imports is kept beside the cache (``imports.json``, keyed by the file's path and bytes),
  so a warm run reads the sources for the key but parses none of them.
* **Read-only home.** Where the per-user directory cannot be written (a read-only home)
  the cache is kept in a private directory under the system's temporary folder
  (``mark1-<user id>/numba``, mode 700, refused when another user owns it): the loops
  compile once per computer (until that folder is cleaned), after one warning where it is
  made. Only when that cannot be written either do they compile in every process.
* **First compile.** Compiling every loop takes seconds, once per cache. The first compile
  in a process prints one line on stderr when stderr is a terminal or a Jupyter kernel's
  (or ``MARK1_COMPILE_NOTICE=1``): ``compiling the machine's loops, once: about N s``,
  N the CPU seconds of the last cold compiles measured on this computer (the compiling
  thread's, not a sensing thread's beside it; their median, kept beside the cache) or,
  before any, of one on the 2-core development machine, times how busy the computer is now
  (the load average per core): a compile's wall time is its CPU time stretched by the tasks
  it shares the cores with.
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

import ast
import atexit
import hashlib
import itertools
import json
import logging
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from functools import cache
from importlib import import_module
from pathlib import Path
from types import FunctionType, ModuleType
from collections.abc import Callable
from typing import Any, cast

import numba
import numba.core.options

from mark1._utils import speed as _speed
from mark1._utils.atomic import alive as _alive
from mark1._utils.progress import watched
from mark1.exceptions import InputError, Mark1Warning

__all__ = ["ahead_finished", "ahead_started", "cache_dir", "compile_ahead", "compile_estimate", "compile_seconds",
           "compiled", "fallback_dir", "imported_sources", "index_key", "njit_calling", "python_when_cold",
           "record_fields", "source_digest", "specialised", "warm", "writable_cache_dir"]

#: CPU seconds a cold compile of every loop ``mark1 run scenes/demo.toml`` calls takes on
#: the 2-core development machine (numba 0.68, Python 3.11), said before this computer has
#: measured its own, times how busy the computer is (:func:`_busy`): two cold runs in a fresh
#: venv on the quiet machine (load 0.9) compiled in 17.2 and 17.9 s.
COLD_COMPILE_S = 17.5

#: Cached loops this process loaded: ``"light"`` without numba's preparation for compiling
#: (:data:`mark1._utils.speed.LOAD_LIGHT`), ``"fallback"`` with numba's own load after the
#: light one failed (each fallback is also logged at DEBUG).
LOADS = {"light": 0, "fallback": 0}

_log = logging.getLogger(__name__)

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


def _try_dir(path: Path) -> str | None:
    """None when ``path`` is (made) a directory this process can write a file in; else why not."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except (OSError, RuntimeError) as e:    # RuntimeError: Path.home() without a home
        # a RuntimeError has no strerror (mypy): reading it would turn the warning into a crash
        return str(getattr(e, "strerror", None) or e)
    return None


def fallback_dir() -> Path:
    """The cache's directory when the per-user one cannot be written: private, under the temporary folder.

    Examples
    --------
    >>> from mark1._utils.compiled import fallback_dir
    >>> fallback_dir().parts[-1]
    'numba'
    """
    uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"mark1-{uid}" / "numba"


def _private_fallback() -> tuple[Path | None, str]:
    """The fallback directory, made private (mode 700) when new; None and why when unusable.

    The temporary folder is shared: a directory another user made there (or a symlink) is
    refused, so nobody else's code is ever loaded. Returns ``(path, "new")`` when this call
    made it (the one warning is said then), ``(path, "")`` when it was there already.
    """
    path = fallback_dir()
    top = path.parent
    made = False
    try:
        if not top.exists():
            top.mkdir(mode=0o700)
            made = True
        st = top.lstat()
        if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            return None, f"{top} is not a directory of this user's"
        if hasattr(os, "getuid") and stat.S_IMODE(st.st_mode) & 0o077:
            return None, f"{top} can be written by other users"
    except OSError as e:
        return None, str(e.strerror or e)
    why = _try_dir(path)
    if why is not None:
        return None, why
    return path, "new" if made else ""


@cache
def _writable_dir() -> Path | None:
    """The cache directory, created, when a file can be written in it; else the private
    fallback under the temporary folder (warned where made); else None (warned once)."""
    path = cache_dir()
    why = _try_dir(path)
    if why is None:
        return path
    fallback, state = _private_fallback()
    if fallback is not None:
        if state == "new":          # said once per computer: later runs find it made
            _warn_once(f"cannot write numba's cache in {path} ({why}); keeping it in {fallback} "
                       f"(set NUMBA_CACHE_DIR to a writable directory to choose)")
        return fallback
    _warn_once(f"cannot write numba's cache in {path} ({why}) nor in {fallback_dir()} ({state}); the machine's "
               f"loops compile in every process (set NUMBA_CACHE_DIR to a writable directory)")
    return None


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


def _root_of(path: Path) -> Path | None:
    """The top package folder named ``mark1`` that holds ``path`` (this install's, or a copy's)."""
    found = None
    for parent in path.parents:
        if not (parent / "__init__.py").is_file():
            break
        if parent.name == "mark1":
            found = parent
    return found


def _module_file(root: Path, name: str) -> Path | None:
    """The source file of mark1 module ``name`` (dotted) under ``root``, or None (not mark1's, or no such file)."""
    head, _, rest = name.partition(".")
    if head != "mark1":
        return None
    base = root.joinpath(*rest.split(".")) if rest else root
    candidates = ((base.with_suffix(".py"),) if rest else ()) + (base / "__init__.py",)
    return next((c for c in candidates if c.is_file()), None)


#: Beside the cache: each source file's imported names, keyed by a SHA-256 of its path and
#: bytes, so that a warm run reads the sources for the key but parses none of them.
_IMPORTS = "imports.json"

#: The most entries the file keeps (the newest): old versions of edited files drop out.
_IMPORTS_KEPT = 2000

_memo: dict[str, Any] = {}          # "read": what the file held; "new": found in this process
_memo_lock = threading.Lock()


def _imported_names(path: Path, root: Path, data: bytes) -> list[list[str]]:
    """For each name the file's ``import`` statements import (anywhere in it), the modules
    it may be, dotted, in the order :func:`_direct_imports` tries them."""
    names: list[list[str]] = []
    for node in ast.walk(ast.parse(data)):
        if isinstance(node, ast.Import):
            names.extend([alias.name] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:              # relative: from the file's own package up
                pkg = ["mark1", *path.relative_to(root).parts[:-1]]
                base = ".".join(pkg[:len(pkg) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names.extend([f"{base}.{alias.name}", base] for alias in node.names)
    return names


def _remembered(key: str) -> list[list[str]] | None:
    """The names kept beside the cache for ``key``, or None (none kept, or not a list of lists of str)."""
    with _memo_lock:
        if "read" not in _memo:
            where = _writable_dir()
            try:
                read = json.loads((where / _IMPORTS).read_text()) if where is not None else {}
            except (OSError, ValueError):       # none yet, or damaged: parsed again
                read = {}
            _memo["read"], _memo["new"] = read if isinstance(read, dict) else {}, {}
        got = _memo["new"].get(key, _memo["read"].get(key))
    ok = isinstance(got, list) and all(isinstance(n, list) and all(isinstance(x, str) for x in n) for n in got)
    return got if ok else None


def _remember(key: str, names: list[list[str]]) -> None:
    with _memo_lock:
        _memo.setdefault("new", {})[key] = names


def _save_memo() -> None:
    """Add this process's newly parsed files to the file beside the cache (atomically)."""
    with _memo_lock:
        new = _memo.get("new")
        if not new:
            return
        where = _writable_dir()
        if where is None:
            return
        path = where / _IMPORTS
        try:
            try:
                kept = json.loads(path.read_text())
            except (OSError, ValueError):
                kept = {}
            kept = {**(kept if isinstance(kept, dict) else {}), **new}
            kept = dict(list(kept.items())[-_IMPORTS_KEPT:])
            tmp = path.with_name(f"{_IMPORTS}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(kept, separators=(",", ":")))
            os.replace(tmp, path)
            _memo["read"], _memo["new"] = kept, {}
        except OSError:
            pass        # only saves parsing next time: never fail over it


@cache
def _source_bytes(path: Path) -> bytes:
    """A source file's bytes as this process first read them for a key: the key of code
    compiled here is the key of the sources it imported, even if the files change on disk
    while it runs (:func:`_sources_changed`)."""
    return path.read_bytes()


def _sources_changed(py_file: str) -> bool:
    """Whether a source the key of ``py_file``'s functions holds differs on disk from what this
    process read: code compiled now comes from the sources it imported, so it is not kept
    under the key of the files on disk (an edit, or an upgrade installed while a notebook
    runs)."""
    for f in imported_sources(str(Path(py_file).resolve())):
        try:
            if f.read_bytes() != _source_bytes(f):
                return True
        except OSError:
            return True
    return False


def _forget_sources() -> None:
    """Forget the sources read for keys, as a new process would (for tests that edit them)."""
    for f in (_source_bytes, _direct_imports, imported_sources, _imports_digest):
        f.cache_clear()


@cache
def _direct_imports(path: Path, root: Path) -> tuple[Path, ...]:
    """The mark1 source files ``path``'s ``import`` statements name (anywhere in the file).

    ``from P import a`` names ``P/a.py`` when ``a`` is a module, else ``P``'s own file;
    a package's ``__init__.py`` counts only where its own names are imported. What the
    statements name is kept beside the cache, keyed by the file's path and bytes: parsed
    once per version of each file.
    """
    try:
        data = _source_bytes(path)
    except OSError:
        return ()
    key = hashlib.sha256(path.relative_to(root).as_posix().encode() + b"\0" + data).hexdigest()
    names = _remembered(key)
    if names is None:
        try:
            names = _imported_names(path, root, data)
        except (SyntaxError, ValueError):
            return ()
        _remember(key, names)
    found: set[Path] = set()
    for candidates in names:
        f = next((m for m in (_module_file(root, c) for c in candidates) if m is not None), None)
        if f is not None:
            found.add(f)
    found.discard(path)
    return tuple(sorted(found))


@cache
def imported_sources(path: str | os.PathLike) -> tuple[Path, ...]:
    """Every mark1 source file that ``path`` imports, at any depth, ``path`` first.

    Read from the files' own ``import`` statements (nothing is imported or executed), so a
    module that shapes a compiled function's records or constants (``mark1/specs.py`` for
    the kernels) is found without a list.

    Parameters
    ----------
    path : str or path-like
        A source file inside a mark1 package (this install's, or a copy's).

    Returns
    -------
    tuple of pathlib.Path
        ``path`` itself, then the files it reaches, sorted.

    Examples
    --------
    >>> import mark1.machine._kernels.pots as pots
    >>> from mark1._utils.compiled import imported_sources
    >>> sorted(p.name for p in imported_sources(pots.__file__))[:4]
    ['__init__.py', 'atomic.py', 'compiled.py', 'exceptions.py']
    >>> any(p.name == "specs.py" for p in imported_sources(pots.__file__))
    True
    """
    start = Path(path).resolve()
    root = _root_of(start)
    if root is None:
        return (start,)
    seen = {start}
    todo = [start]
    while todo:
        for f in _direct_imports(todo.pop(), root):
            if f not in seen:
                seen.add(f)
                todo.append(f)
    _save_memo()
    return (start, *sorted(seen - {start}))


@cache
def _imports_digest(path: str) -> str:
    h = hashlib.sha256()
    root = _root_of(Path(path)) or Path(path).parent
    for f in imported_sources(path):
        name = f.relative_to(root).as_posix() if root in f.parents else f.name
        data = _source_bytes(f)
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


@cache
def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
        return version("mark1")
    except (ImportError, PackageNotFoundError, ValueError):
        return "0+unknown"


def record_fields(types: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The field names of every record (a named tuple's class) in numba types, nested too.

    numba types a named tuple by its class's name and its fields' types: a record whose
    fields changed order keeps an equal type. The names go into the cache's key.

    Parameters
    ----------
    types : numba type or tuple of them
        A signature's argument types.

    Returns
    -------
    tuple of (str, tuple of str)
        ``("module.Class", fields)`` for each record, in the order met.

    Examples
    --------
    >>> from typing import NamedTuple
    >>> from numba import typeof
    >>> class P(NamedTuple):
    ...     a: float
    ...     b: float
    >>> record_fields((typeof(P(1.0, 2.0)),))
    (('mark1._utils.compiled.P', ('a', 'b')),)
    """
    out: list[tuple[str, tuple[str, ...]]] = []
    seen: set[int] = set()

    def walk(t: Any) -> None:
        if id(t) in seen:
            return
        seen.add(id(t))
        if isinstance(t, (tuple, list)):
            for x in t:
                walk(x)
            return
        cls = getattr(t, "instance_class", None)
        fields = getattr(cls, "_fields", None)
        if cls is not None and isinstance(fields, tuple):
            out.append((f"{cls.__module__}.{cls.__qualname__}", tuple(map(str, fields))))
        for attr in ("types", "dtype", "key"):
            inner = getattr(t, attr, None)
            if isinstance(inner, (tuple, list)) or hasattr(inner, "instance_class") or hasattr(inner, "types"):
                walk(inner)

    walk(types)
    return tuple(out)


def index_key(py_file: str | os.PathLike, sig: Any, digest: str = "") -> tuple[str, ...]:
    """What mark1 adds to numba's index key of one compiled function and signature.

    Parameters
    ----------
    py_file : str or path-like
        The function's source file.
    sig : tuple of numba types
        The signature's argument types.
    digest : str
        :func:`source_digest` of the modules given to :func:`compiled`.

    Returns
    -------
    tuple of str
        mark1's version, a SHA-256 of the sources the file imports (:func:`imported_sources`),
        the records' field names, and ``digest``.

    Examples
    --------
    >>> import mark1.machine._kernels.pots as pots
    >>> from mark1._utils.compiled import index_key
    >>> key = index_key(pots.__file__, ())
    >>> len(key), len(key[1])
    (4, 64)
    """
    return (f"mark1 {_version()}", _imports_digest(str(Path(py_file).resolve())), repr(record_fields(sig)), digest)


try:
    # numba's cache classes, renamed without the underscore in numba 0.61
    from numba.core import caching as _caching

    # typed Any: the class names differ between numba releases, so neither is known here
    _Locator: Any = getattr(_caching, "_CacheLocator", None) or cast(Any, _caching).CacheLocator
    _Impl: Any = getattr(_caching, "_CompileResultCacheImpl", None) or cast(Any, _caching).CompileResultCacheImpl
    _FunctionCache = _caching.FunctionCache
    _IndexFileBase: Any = _caching.IndexDataCacheFile
    _INTERNALS: str | None = None
except (ImportError, AttributeError) as e:      # a numba release changed its cache classes
    _INTERNALS = f"{type(e).__name__}: {e}"


def _unreadable(path: str, e: Exception) -> None:
    """One warning that a cache file cannot be read back: it counts as a miss."""
    why = f"{type(e).__name__}: {e}"
    why = why if len(why) <= 120 else why[:117] + "..."
    _warn_once(f"numba's cache file {path} cannot be read ({why}); compiling anew")


def _index_file_class() -> Any:
    """numba's index and data files, where one that cannot be unpickled counts as a miss.

    An index written by another build (naming a class that no longer exists), a truncated
    or a foreign file: unpickling it may raise nearly anything (AttributeError, ImportError,
    EOFError, UnpicklingError, ...). numba would let that fail the run; here the function
    compiles anew, and saving it writes a fresh index over the unreadable one.
    """

    class IndexFile(_IndexFileBase):
        def _load_index(self):
            try:
                return super()._load_index()
            except OSError:
                raise
            except Exception as e:          # unpickling: any error of a foreign or corrupt file
                _unreadable(self._index_path, e)
                return {}

        def _load_data(self, name):
            try:
                return super()._load_data(name)
            except OSError:
                raise                       # numba's load() counts a missing file as a miss
            except Exception as e:          # as above, for the compiled code's file
                _unreadable(self._data_path(name), e)
                return None

        # numba's save reads the index, takes the first file name it does not list, then
        # writes the index and the file: two processes saving two keys at once may take
        # one name, the index then naming one key's file and the file holding the other's
        # code. The key is kept in the file too, and code kept for another key is a miss.
        def save(self, key, data):
            super().save(key, (_KEYED, key, data))

        def load(self, key):
            got = super().load(key)
            if isinstance(got, tuple) and len(got) == 3 and got[0] == _KEYED and got[1] == key:
                return got[2]
            if got is not None:
                _log.debug("numba's cache file for %s holds code kept for another key; compiling anew",
                           self._index_path)
            return None

    return IndexFile


#: What a data file kept by :func:`_index_file_class` starts with, before its key.
_KEYED = "mark1 keyed"


_IndexFile: Any = _index_file_class() if _INTERNALS is None else None


class _RandomIds:
    """numba's ids of the functions it compiles, drawn at random (63 bits from the
    operating system) rather than counted from 1 in each process.

    numba names a compiled function's machine code by its module, qualified name,
    argument types and this id, and code loaded from the cache calls its callees by those
    names: the first definition of a name in a process serves every later call of it. Two
    processes that compile different variants of a function (:func:`specialised`) in the
    same order count the same ids and give them the same name; a third that loads both
    from the cache calls the first one's callees from the second (numba issue #10486).
    Random ids give two functions one name with a chance of about n**2 / 2**64 for n
    compiled, in forked processes too, and whatever a program seeds.
    """

    def __iter__(self) -> _RandomIds:
        return self

    def __next__(self) -> int:
        return int.from_bytes(os.urandom(8), "little") >> 1


try:
    from numba.core.bytecode import FunctionIdentity as _FunctionIdentity
    if isinstance(getattr(_FunctionIdentity, "_unique_ids", None), itertools.count):
        _FunctionIdentity._unique_ids = _RandomIds()    # type: ignore[assignment]
except ImportError:     # a numba without it names its code otherwise
    pass


def _ready_to_load(target_context: Any) -> None:
    """Make ready what code loaded from the cache calls or links to, without numba's
    preparation for compiling (``BaseContext.refresh``; the switch
    :data:`mark1._utils.speed.LOAD_LIGHT`).

    Compiled code links to numba's C helpers, libm and compiler-rt (their symbols are
    added when the target context is made), to the runtime's functions (added here) and
    to the hash secrets (added when ``numba.cpython.hashing`` is imported); these are
    every symbol numba adds to LLVM's table. A parallel loop's thread pool is started by
    the cached code's own start-up hooks, as in numba's own load.
    """
    from numba.core.runtime import rtsys
    rtsys.initialize(target_context)
    import_module("numba.cpython.hashing")


def _cache_class(digest: str, root: Path, tag: str = ""):
    """numba's FunctionCache in ``root``, its index key extended by ``digest``; a
    :func:`specialised` variant's ``tag`` (its constants) names its own index file and is
    in its key."""

    class Locator(_Locator):
        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._path = str(root / self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self):
            return self._path

        def get_source_stamp(self):
            return hashlib.sha256(_source_bytes(Path(self._py_file).resolve())).digest()

        def get_disambiguator(self):
            return f"{self._lineno}{tag}"

        @classmethod
        def from_function(cls, py_func, py_file):
            return cls(py_func, py_file)

    class Impl(_Impl):
        _locator_classes = [Locator]  # noqa: RUF012 (numba's class attribute)

    class Cache(_FunctionCache):
        _impl_class = Impl
        _digest = digest

        def __init__(self, py_func):
            super().__init__(py_func)
            self._cache_file.__class__ = _IndexFile     # numba's, reading an unreadable file as a miss

        def load_overload(self, sig, target_context):
            if _speed.LOAD_LIGHT:
                try:
                    _ready_to_load(target_context)
                    with self._guard_against_spurious_io_errors():
                        data = self._load_overload(sig, target_context)
                except OSError:
                    raise
                except Exception as e:      # not rebuilt without the compiler's preparation: try numba's own
                    LOADS["fallback"] += 1
                    _log.debug("cached %s in %s not loaded light (%s: %s); loading it with numba's own load",
                               self._py_func.__qualname__, self._cache_path, type(e).__name__, e)
                else:
                    LOADS["light"] += data is not None
                    return data
            try:
                return super().load_overload(sig, target_context)
            except OSError:
                raise
            except Exception as e:          # code unpickled but not rebuilt: compile anew
                _unreadable(self._cache_path, e)
                return None

        def _index_key(self, sig, codegen):
            return super()._index_key(sig, codegen) + index_key(self._impl.locator._py_file, sig, digest + tag)

        def save_overload(self, sig, data):
            if _sources_changed(self._impl.locator._py_file):
                _warn_once("mark1's source files changed on disk since this process imported them; "
                           "code compiled now is not kept (restart Python to use the new sources)")
                return
            try:
                super().save_overload(sig, data)
            except OSError as e:    # the disk filled or turned read-only since: run uncached
                _warn_once(f"cannot write numba's cache in {root} ({e.strerror or e}); "
                           "compiled code is not kept")
                self.disable()
            else:
                _mark_warm(root)

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
        ``no_cfunc_wrapper`` is ``True`` unless given: nothing calls mark1's loops through a C
        function pointer, and each wrapper is compiled code of its own.

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
    options.setdefault("no_cfunc_wrapper", True)
    if not options.pop("refcounts", True) and hasattr(numba.core.options.DefaultOptions, "_nrt"):
        options["_nrt"] = False
    digest = source_digest(cast(tuple[ModuleType, ...], modules))    # the bare use returned above

    def decorate(fn):
        return _make(fn, digest, options)

    return decorate


def _make(fn: Callable[..., Any], digest: str, options: dict[str, Any], tag: str = "", cache: bool = True) -> Any:
    """The dispatcher of ``fn``, cached in our directory under our key (``tag``: a variant's;
    ``cache`` False: not kept, for code only ever linked into a caller's, which is kept)."""
    root = _writable_dir() if cache else None
    if root is not None and _INTERNALS is not None:
        _warn_once(f"numba's cache classes changed ({_INTERNALS}); using numba's plain cache "
                   f"in {root}, which misses changes in a called module (clear it after one)")
        cast(Any, numba.config).CACHE_DIR = str(root)
        # numba's own key does not hold a variant's constants: a variant is compiled uncached
        made = numba.njit(cache=not tag, **options)(fn)
        _recipes[id(made)] = (fn, digest, options)
        return _watched(made)
    dispatcher = numba.njit(**options)(fn)
    _recipes[id(dispatcher)] = (fn, digest, options)
    if not hasattr(dispatcher, "py_func"):         # NUMBA_DISABLE_JIT: the plain function
        return dispatcher
    if root is not None:
        # what Dispatcher.enable_caching() does, with our directory and key
        try:
            # read the sources for the key now, as they are imported, not at the first compile
            _imports_digest(str(Path(fn.__code__.co_filename).resolve()))
        except OSError:
            pass
        try:
            dispatcher._cache = _cache_class(digest, root, tag)(dispatcher.py_func)
        except OSError:     # no source file to key on (python -c, a notebook cell): uncached
            pass
    return _watched(dispatcher)


# -- variants: a compiled function with some of its module's constants switched off -----

#: id() of each dispatcher :func:`compiled` made: its Python function, sources' digest, options.
_recipes: dict[int, tuple[Callable[..., Any], str, dict[str, Any]]] = {}
_variants: dict[tuple[int, tuple[tuple[str, bool], ...], bool], Any] = {}
_variants_lock = threading.RLock()


def _callees(fn: Callable[..., Any]) -> list[tuple[str, Any]]:
    """The global names of ``fn`` bound to dispatchers :func:`compiled` made (its compiled callees)."""
    g = fn.__globals__
    return [(name, g[name]) for name in fn.__code__.co_names
            if name in g and id(g[name]) in _recipes and _recipes[id(g[name])][0] is not fn]


def _reached(fn: Callable[..., Any], names: frozenset[str], seen: set[int] | None = None) -> dict[str, Any]:
    """Which of the constants ``names`` ``fn`` or a compiled callee of it reads (at any depth),
    each with its value in the module that reads it."""
    seen = set() if seen is None else seen
    if id(fn) in seen:
        return {}
    seen.add(id(fn))
    found = {n: fn.__globals__[n] for n in fn.__code__.co_names if n in names and n in fn.__globals__}
    for _, callee in _callees(fn):
        found = {**_reached(_recipes[id(callee)][0], names, seen), **found}
    return found


def specialised(dispatcher: Any, **constants: bool) -> Any:
    """A compiled function of :func:`compiled` with module constants set otherwise.

    Each of ``constants`` names a module-level bool the function, or a compiled function it
    calls (at any depth), reads in a branch (``if NAME and ...:``). The variant is the same
    code with those names bound to the values given: numba prunes a branch on a constant
    before typing it, so a variant with a feature's constant ``False`` never types, lowers
    or compiles that feature's code (a run that does not use it compiles less). Its callees
    that read a constant are made the same way; the others are shared. The variant's cache
    has its own index file, and its key holds the constants beside :func:`index_key`'s.
    Call a variant only where the constants set ``False`` hold for its arguments: the
    branch they guard would not be taken.

    Parameters
    ----------
    dispatcher : numba dispatcher
        Made by :func:`compiled`.
    **constants : bool
        Module constants and their values; a name no function reaches is an
        :class:`~mark1.exceptions.InputError` (a typo).

    Returns
    -------
    numba dispatcher
        The variant, made once per process for each set of values; ``dispatcher`` itself
        where every value is the module's own.

    Examples
    --------
    >>> from mark1._utils.compiled import compiled, specialised
    >>> EXTRA = True
    >>> @compiled
    ... def count(n):
    ...     total = n
    ...     if EXTRA and n > 0:
    ...         total += 100
    ...     return total
    >>> count(1), specialised(count, EXTRA=False)(1)
    (101, 1)
    """
    fn = _recipes[id(dispatcher)][0]
    unknown = set(constants) - set(_reached(fn, frozenset(constants)))
    if unknown:
        raise InputError(f"specialised: {fn.__qualname__} reads no constant {', '.join(sorted(unknown))}")
    with _variants_lock:
        return _variant(dispatcher, constants, True)


def _variant(dispatcher: Any, constants: dict[str, bool], root: bool) -> Any:
    fn, digest, options = _recipes[id(dispatcher)]
    reached = _reached(fn, frozenset(constants))
    own = {name: bool(v) for name, v in constants.items() if name in reached and reached[name] is not bool(v)}
    if root and not own:
        return dispatcher
    key = (id(dispatcher), tuple(sorted(own.items())), root)
    made = _variants.get(key)
    if made is not None:
        return made
    glb = dict(fn.__globals__)
    for name in fn.__code__.co_names:
        if name in own:
            glb[name] = own[name]
    for name, callee in _callees(fn):
        glb[name] = _variant(callee, own, False)
    clone = FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__qualname__, clone.__doc__, clone.__module__ = fn.__qualname__, fn.__doc__, fn.__module__
    clone.__kwdefaults__ = fn.__kwdefaults__
    tag = "".join(f"-{name}{int(v)}" for name, v in sorted(own.items()))
    if not root and options.get("inline", "never") == "never":
        # called only from the variant's compiled code: no wrappers to call it from Python
        # (a wrapper unboxes every array of the records: ~1 s of a cold start for act's)
        # nor a cache of its own: its code is kept in its caller's, loaded whole
        options = {**options, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}
        made = _variants[key] = _make(clone, digest, options, tag, cache=False)
        return made
    made = _variants[key] = _make(clone, digest, options, tag)
    return made



#: The old name (tests and code from before the one decorator).
njit_calling = compiled


# -- the first compile's notice and the time spent compiling ---------------------------

_ours: set[int] = set()          # id() of mark1's dispatchers
_lock = threading.Lock()
_state = {"depth": 0, "t0": 0.0, "total": 0.0, "c0": 0.0, "cpu": 0.0, "told": False, "busy": 0.0}


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


def _idle(kept: list) -> float:
    """The seconds one kept compile would take on an idle computer: its CPU seconds, or
    (kept by an earlier release, without them) its wall seconds over how busy the computer was."""
    wall, busy, *cpu = kept
    return float(cpu[0]) if cpu and float(cpu[0]) > 0 else float(wall) / max(1.0, float(busy))


def compile_estimate() -> float:
    """Seconds a cold compile of a run's loops is expected to take on this computer now.

    The median of the last compiles kept beside the cache (each as an idle computer would
    take it), or before any of :data:`COLD_COMPILE_S`, times how busy the computer is.

    Returns
    -------
    float
        Wall seconds.

    Examples
    --------
    >>> from mark1._utils.compiled import compile_estimate
    >>> compile_estimate() > 0
    True
    """
    return _estimate()


def _estimate() -> float:
    """Seconds the first compile is expected to take: the median of the last compiles kept
    (each as an idle computer would take it, :func:`_idle`), times how busy it is now."""
    root = _writable_dir()
    try:
        rec = json.loads((root / _RECORD).read_text()) if root is not None else {}
        kept = rec.get(_record_key())
        idle = sorted(_idle(k) for k in kept) if isinstance(kept, list) and kept else []
    except (OSError, ValueError, TypeError, AttributeError):
        idle = []
    base = (idle[(len(idle) - 1) // 2] + idle[len(idle) // 2]) / 2 if idle else COLD_COMPILE_S
    return base * _busy()


#: Beside the cache: the mark1, numba and Python versions it has kept compiled code for.
_WARM = "warm.json"

_marked: set[str] = set()


def _mark_warm(root: Path) -> None:
    """Note beside the cache, once a process, that it keeps code for this mark1, numba and Python."""
    key = _record_key()
    if key in _marked:
        return
    _marked.add(key)
    path = root / _WARM
    try:
        kept = json.loads(path.read_text()) if path.exists() else []
        if key not in kept:
            tmp = path.with_name(f"{_WARM}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps([*kept, key][-8:]))
            os.replace(tmp, path)
    except (OSError, ValueError, TypeError):
        pass        # then a later short run may run as Python again: never fail a save over it


def warm() -> bool:
    """Whether this cache keeps compiled loops for this mark1, numba and Python.

    Returns
    -------
    bool
        True once any process (a run, a lab worker, a test session) has saved compiled
        code of this mark1, numba and Python version in the cache, so that a run's loops
        are most likely there to load.

    Examples
    --------
    >>> from mark1._utils.compiled import warm
    >>> warm() in (True, False)
    True
    """
    root = _writable_dir()
    try:
        kept = json.loads((root / _WARM).read_text()) if root is not None else []
        return isinstance(kept, list) and _record_key() in kept
    except (OSError, ValueError):
        return False


def python_when_cold(seconds: float) -> bool:
    """Run this process's loops as Python, uncompiled, if the cache is cold and the run short.

    The loops then run as the very functions numba would compile (numba's
    ``DISABLE_JIT``), so a run gives the same bits either way; only the time differs.
    Taken when :data:`mark1._utils.speed.PYTHON_WHEN_COLD` is on, no loop module has been
    imported yet (the choice holds for the whole process), the cache is not :func:`warm`,
    and the run as Python is estimated at under half the compile (:func:`compile_estimate`).

    Parameters
    ----------
    seconds : float
        The run's estimated seconds as Python on an idle computer
        (:attr:`mark1.stimuli.budget.Resources.python_seconds`).

    Returns
    -------
    bool
        Whether this call chose Python for the loops of this process (False where they
        compile, or run as Python by the user's own ``NUMBA_DISABLE_JIT``).

    Examples
    --------
    >>> import sys
    >>> from mark1._utils.compiled import python_when_cold
    >>> "mark1.machine._kernels" in sys.modules or not python_when_cold(3600.0)     # too long a run
    True
    """
    config = cast(Any, numba.config)
    if config.DISABLE_JIT or not _speed.PYTHON_WHEN_COLD or "mark1.machine._kernels" in sys.modules:
        return False            # the user's own NUMBA_DISABLE_JIT, or too late to choose
    if seconds * _busy() > _estimate() / 2 or warm():       # both stretched alike by a busy computer
        return False
    os.environ["NUMBA_DISABLE_JIT"] = "1"       # numba reloads its settings from the environment
    config.DISABLE_JIT = True
    return True


#: Beside the cache: the process id of a background compile under way (:func:`compile_ahead`).
_AHEAD = "compiling_ahead.pid"

#: A background compile's mark older than this (seconds) is taken as left by a process that died.
_AHEAD_STALE_S = 3600.0


def compile_ahead(code: str, *argv: str) -> bool:
    """Compile the loops for later runs in a background process: ``python -c code *argv``.

    The process runs at low priority, detached from this one (it goes on after this
    process exits, like ``git gc --auto``), with its output discarded, the loops compiled
    (``MARK1_PYTHON_WHEN_COLD=0``, ``NUMBA_DISABLE_JIT`` unset) and kept in this cache.
    One at a time per cache: a mark beside the cache, claimed before the process starts,
    holds its process id (written by the process itself, :func:`ahead_started`) until it
    ends (:func:`ahead_finished`); a mark whose process is gone, or older than an hour,
    is taken as left by one that died.

    Parameters
    ----------
    code : str
        What the process runs: a run like this one, whose loops it compiles; it calls
        :func:`ahead_started` first and :func:`ahead_finished` last.
    *argv : str
        Its arguments (``sys.argv[1:]`` in ``code``).

    Returns
    -------
    bool
        Whether a process was started (False: no writable cache, one already under way,
        or it could not start).

    Examples
    --------
    >>> from mark1._utils.compiled import compile_ahead
    >>> compile_ahead("pass") in (True, False)          # a process that compiles nothing
    True
    """
    root = _writable_dir()
    if root is None:
        return False
    mark = root / _AHEAD
    for _ in range(2):
        try:
            fd = os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            try:
                if time.time() - mark.stat().st_mtime < _AHEAD_STALE_S and _alive(int(mark.read_text() or 0)):
                    return False
                mark.unlink()       # its process is gone: claim it afresh
            except (OSError, ValueError):
                return False
            continue
        except OSError:
            return False
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))       # this process's until the child writes its own
        break
    else:
        return False
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["MARK1_PYTHON_WHEN_COLD"] = "0"
    detached: dict[str, Any] = ({"start_new_session": True} if os.name == "posix" else
                                {"creationflags": getattr(subprocess, "DETACHED_PROCESS", 0)
                                 | getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
                                 | getattr(subprocess, "BELOW_NORMAL_PRIORITY_CLASS", 0)})
    try:
        _children.append(subprocess.Popen([sys.executable, "-c", code, *argv], stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                                          **detached))
    except OSError:
        mark.unlink(missing_ok=True)
        return False
    return True


#: The background processes started (kept so that none is reported as a leaked handle).
_children: list[subprocess.Popen] = []


def ahead_started() -> None:
    """A background compile's start: its own process id in the mark beside the cache, at low priority."""
    root = _writable_dir()
    if hasattr(os, "nice"):
        os.nice(10)
    if root is None:
        return
    try:
        tmp = root / f"{_AHEAD}.{os.getpid()}.tmp"
        tmp.write_text(str(os.getpid()))
        os.replace(tmp, root / _AHEAD)
    except OSError:
        pass


def ahead_finished() -> None:
    """A background compile's end: its mark beside the cache removed (when it is this process's)."""
    root = _writable_dir()
    if root is None:
        return
    try:
        if int((root / _AHEAD).read_text()) == os.getpid():
            (root / _AHEAD).unlink()
    except (OSError, ValueError):
        pass


def _record_key() -> str:
    face = sys.modules.get("mark1")     # imported by now, whichever module came first
    return (f"mark1 {getattr(face, '__version__', '?')}, numba {numba.__version__}, "
            f"python {sys.version_info[0]}.{sys.version_info[1]}")


def _tell() -> None:
    """Say once on a terminal that the loops are being compiled, and for about how long."""
    _state["told"] = True
    _state["busy"] = _busy()            # how busy the computer was as the compile began
    stream = sys.stderr
    tty = watched()             # a Jupyter kernel shows stderr in the cell, as it shows bars
    if tty or os.environ.get("MARK1_COMPILE_NOTICE") == "1":
        once = "once" if _writable_dir() is not None else "no writable cache, so in every run"
        stream.write(f"compiling the machine's loops, {once}: about {_estimate():.0f} s\n")
        stream.flush()


@atexit.register
def _save_record() -> None:
    """Keep this process's compile time beside the cache, when it compiled much (the next
    cold compile's estimate): the last few seen for this mark1, numba and Python, each as
    wall seconds, how busy the computer was and CPU seconds (the median, not the largest: one long study or test session
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
        rec[key] = [*kept, [round(total, 1), round(_state["busy"] or _busy(), 2), round(_state["cpu"], 1)]][-_KEPT:]
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
                    # this thread's CPU: the compile runs on the thread that called the loop, under
                    # numba's lock; the process's would count the sensing thread beside it too
                    _state["t0"], _state["c0"] = time.perf_counter(), time.thread_time()
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
                    _state["cpu"] += time.thread_time() - _state["c0"]

    try:
        event.register("numba:compile", Listener())
    except (AttributeError, TypeError, ValueError):
        return


_install_listener()
