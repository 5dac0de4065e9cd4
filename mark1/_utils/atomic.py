"""Atomic writes: a result file is either complete or absent, never half-written.

The temporary file sits beside its target as ``.<name>.<pid>.<random>.tmp``. A process
killed between creating and renaming it (SIGKILL, power loss) leaves it behind; a later
process removes such leftovers of a target (whose process no longer runs) when it writes
that target. The folder is scanned once per process, at its first write there, so a
run that writes thousands of records into one folder does not rescan it every time.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from mark1.exceptions import ResultPathError

__all__ = ["alive", "atomic_path", "write_text", "check_target"]


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (POSIX; elsewhere every process is taken as running:
    Windows' ``os.kill`` would end it).

    Examples
    --------
    >>> import os
    >>> alive(os.getpid())
    True
    """
    if os.name != "posix" or pid <= 0:
        return os.name != "posix"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:                    # someone else's process: alive
        return True
    return True


#: folder -> target name -> leftover temporary files of processes that are gone
_LEFTOVERS: dict[str, dict[str, list[str]]] = {}


def _scan_leftovers(folder: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return found
    for e in entries:
        if not (e.name.startswith(".") and e.name.endswith(".tmp")):
            continue
        parts = e.name[1:-len(".tmp")].rsplit(".", 2)       # name, pid, random part
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        pid = int(parts[1])
        if pid != os.getpid() and not alive(pid):
            found.setdefault(parts[0], []).append(e.path)
    return found


def _clean_leftovers(path: Path) -> None:
    """Remove ``.<name>.<pid>.*.tmp`` files of ``path`` left by processes that are gone."""
    folder = os.fspath(path.parent)
    if folder not in _LEFTOVERS:
        _LEFTOVERS[folder] = _scan_leftovers(folder)
    for tmp in _LEFTOVERS[folder].pop(path.name, ()):
        with contextlib.suppress(OSError):
            if os.path.isfile(tmp) and not os.path.islink(tmp):
                os.unlink(tmp)


def check_target(path: str | os.PathLike) -> None:
    """Raise ``IsADirectoryError`` (or another OSError) now if ``path`` could not be replaced by a file.

    Lets a command find an output clash (e.g. a folder named ``summary.json``) before any work.
    """
    path = Path(path)
    if path.is_dir():
        raise ResultPathError(21, "expected a file name for a result, got an existing folder", str(path))
    if path.exists() and not path.is_file():
        raise ResultPathError(17, "expected a file name for a result, got an existing special file", str(path))


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success.

    On any exception the temporary file is removed and ``path`` is left untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    check_target(path)
    _clean_leftovers(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)          # mkstemp makes 0600; give the usual mode
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        if e.filename is None and e.errno is not None:   # a write's ENOSPC names no file: name the result
            e.filename = str(path)
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)
