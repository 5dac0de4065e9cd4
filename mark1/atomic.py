"""Atomic writes: a result file is either complete or absent, never half-written.

The temporary file sits beside its target as ``.<name>.<pid>.<random>.tmp``. A process
killed between creating and renaming it (SIGKILL, power loss) leaves it behind; the next
write of the same target removes such leftovers whose process no longer runs.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_path", "write_text", "check_target"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:                    # someone else's process: alive
        return True
    return True


def _clean_leftovers(path: Path) -> None:
    """Remove ``.<name>.<pid>.*.tmp`` files of ``path`` left by processes that are gone."""
    prefix = f".{path.name}."
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return
    for e in entries:
        if not (e.name.startswith(prefix) and e.name.endswith(".tmp")):
            continue
        pid = e.name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                if e.is_file(follow_symlinks=False):
                    os.unlink(e.path)


def check_target(path: str | os.PathLike) -> None:
    """Raise ``IsADirectoryError`` (or another OSError) now if ``path`` could not be replaced by a file.

    Lets a command find an output clash (e.g. a folder named ``summary.json``) before any work.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "expected a file name for a result, got an existing folder", str(path))
    if path.exists() and not path.is_file():
        raise FileExistsError(17, "expected a file name for a result, got an existing special file", str(path))


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
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)
