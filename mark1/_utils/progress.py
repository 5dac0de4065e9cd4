"""Progress bars on a terminal and in Jupyter, silence in logs and CI.

tqdm is imported when a bar is made, not when mark1 is: ``tqdm.auto`` imported at module
level in a Jupyter kernel without ipywidgets warned ("IProgress not found") in every
student's first cell. The kind of bar is chosen each time one is made: tqdm's notebook
widget in a Jupyter kernel that can draw it, tqdm's text bar otherwise.
"""

from __future__ import annotations

import importlib.util
import os
import sys

__all__ = ["progress_bar", "watched"]


class _NoBar:
    """What :func:`progress_bar` gives where no bar is shown: it takes the same calls."""

    def update(self, n=1) -> None:
        pass

    def close(self) -> None:
        pass


def _in_kernel() -> bool:
    """True inside a Jupyter (IPython) kernel. IPython is looked up, never imported: a
    kernel has imported it already."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:       # an IPython half torn down at exit
        return False
    return shell is not None and getattr(shell, "kernel", None) is not None


def watched() -> bool:
    """Whether a person watches stderr: a terminal, or a Jupyter kernel's cell output.

    Returns
    -------
    bool

    Examples
    --------
    >>> import sys
    >>> watched() == (sys.stderr.isatty() or _in_kernel())
    True
    """
    try:
        return sys.stderr is not None and sys.stderr.isatty() or _in_kernel()
    except (AttributeError, ValueError):        # no stream, or a closed one
        return False


def _has_widgets() -> bool:
    try:
        return importlib.util.find_spec("ipywidgets") is not None
    except (ImportError, ValueError):
        return False


def progress_bar(total: int, unit: str, *, show: bool = True):
    """A progress bar, or an object that takes the same calls and shows nothing.

    In a Jupyter kernel: tqdm's notebook bar when ipywidgets is installed, tqdm's text
    bar on the cell's stderr otherwise (never tqdm's "IProgress not found" warning). On
    a terminal: tqdm's text bar. Nothing in logs and CI (env ``CI`` set, or stderr not a
    terminal outside a kernel), for an empty total, or with ``show=False``.

    Parameters
    ----------
    total : int
        Steps the bar counts to.
    unit : str
        What a step is ("card", "job").
    show : bool, default True
        False gives the silent bar.

    Returns
    -------
    tqdm.std.tqdm or tqdm.notebook.tqdm or _NoBar
        Takes ``update(n)`` and ``close()``.

    Examples
    --------
    >>> bar = progress_bar(3, "card", show=False)
    >>> bar.update(2); bar.close()
    >>> type(progress_bar(0, "card")).__name__
    '_NoBar'
    """
    if not show or total == 0 or os.environ.get("CI"):
        return _NoBar()
    if _in_kernel():
        if _has_widgets():
            from tqdm.notebook import tqdm as notebook_tqdm

            return notebook_tqdm(total=total, unit=unit, leave=False)
        from tqdm.std import tqdm

        # a kernel's stderr is no terminal, yet the notebook shows it and honours '\r'
        return tqdm(total=total, unit=unit, leave=False, file=sys.stderr)
    if not sys.stderr.isatty():
        return _NoBar()
    from tqdm.std import tqdm

    return tqdm(total=total, unit=unit, leave=False, file=sys.stderr)
