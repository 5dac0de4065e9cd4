"""Progress bars on a terminal, silence in logs and CI."""

from __future__ import annotations

import os
import sys

from tqdm.auto import tqdm

__all__ = ["progress_bar"]


class _NoBar:
    """What :func:`progress_bar` gives where no bar is shown: it takes the same calls."""

    def update(self, n=1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int, unit: str, *, show: bool = True):
    """A tqdm bar on a terminal; a bar that shows nothing in logs and CI (env CI set, or
    stderr not a TTY), for an empty total, or with ``show=False``. Either takes
    ``update(n)`` and ``close()``."""
    if not show or os.environ.get("CI") or not sys.stderr.isatty() or total == 0:
        return _NoBar()
    return tqdm(total=total, unit=unit, leave=False, file=sys.stderr)
