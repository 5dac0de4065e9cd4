"""How much the machine holds at once, and how much memory a process may use.

The chunk sizes are shared by the machine, which keeps to them, and the scene's resource
estimate, which reckons with them (so loading a scene needs no simpy or numba).
:func:`memory_limit` is what every budget is checked against: the command line's estimate
before work and the API's own refusals (:func:`check_allocation`) alike. A command's
``--memory-limit`` reaches the API through :func:`memory_cap`, which the ``mark1`` command
holds around the whole command.
"""

from __future__ import annotations

import contextlib
import math
import os
import resource
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mark1._utils.language import percent
from mark1.exceptions import BudgetError, InputError

__all__ = ["SENSE_CHUNK", "LIGHT_KEPT_BYTES", "BASE_RESIDENT", "ADDRESS_SPACE_GROWTH", "PHYSICAL_SHARE",
           "MAX_PRESENTATIONS", "MAX_TRACED", "DEFAULT_CARDS", "MemoryLimit", "memory_limit", "memory_cap",
           "check_allocation", "lesson_deck", "lesson_window"]

#: Cards read through the retina at once when sensing or scoring (memory for one chunk).
SENSE_CHUNK = 4096
#: A deck whose light (float64 per photocell) fits in this is kept, each card imaged once,
#: before the first card is shown; a larger one is imaged a block of presentations at a
#: time (``mark_i._DeckLight``).
LIGHT_KEPT_BYTES = 64 * 2**20

#: Resident memory of a mark1 command before it holds any card: the interpreter, numpy,
#: numba's compiled loops, matplotlib (``mark1 run scenes/demo.toml``: 210 MiB peak measured; the
#: 46 MiB more counted leave room for the first run after a change, which compiles the loops).
BASE_RESIDENT = 256 * 2**20
#: Address space a command maps beyond what it has mapped when the budget is checked,
#: besides its data: libraries imported later, compiled loops, thread stacks (``mark1 run``
#: and ``compare`` on the demo grow by 175-200 MiB).
ADDRESS_SPACE_GROWTH = 256 * 2**20
#: The share of physical memory a command may plan to use when nothing else says.
PHYSICAL_SHARE = 0.8

#: The longest stretch of a run a lesson replays card by card (presentations of one R-unit; of k
#: R-units, a k-th of it): the page carries every read and move of it (a page of a few MB at most).
#: A longer run is trained whole and its first presentations are replayed; the page says so.
MAX_PRESENTATIONS = 1000
#: The longest run a lesson traces whole (every read and move kept in memory, about 5 kB a
#: presentation of the Mark I): the longest catalog run, 10,400 presentations, is well inside it.
#: A longer run is cut to fewer cards (the scene's epochs kept while they fit), and the page says so.
MAX_TRACED = 100_000
#: Deck cards in a lesson cut short, at the fewest (or one a class if more).
DEFAULT_CARDS = 20


def lesson_deck(available: int, scene_epochs: int, n_classes: int, n_units: int = 1,
                cards: int | None = None, epochs: int | None = None) -> tuple[int, int]:
    """The training cards and epochs a lesson trains on: the scene's own, unless too long to trace.

    The lesson trains the run ``mark1 run`` makes (the scene's deck and epochs) and replays
    its first :func:`lesson_window` presentations. A run over :data:`MAX_TRACED`
    presentations is cut: unless ``cards`` is given, to as many cards as fit with the scene's
    epochs (at least :data:`DEFAULT_CARDS`, or one a class), then, unless ``epochs`` is given,
    to fewer epochs.

    Parameters
    ----------
    available : int
        Training cards of the scene (``mark1 run``'s deck).
    scene_epochs : int
        The scene's epochs.
    n_classes : int
        Classes of the scene.
    n_units : int
        R-units in use (the replayed window's length depends on them, the run's does not).
    cards, epochs : int, optional
        As asked (``lesson --cards``, ``--epochs``); kept as given.

    Returns
    -------
    (int, int)
        Cards and epochs; presentations are their product.

    Examples
    --------
    >>> lesson_deck(40, 5, 2)                   # demo: 200 presentations, the whole run
    (40, 5)
    >>> lesson_deck(10_000, 1, 2)               # square vs circle: its 10,000 cards, traced whole
    (10000, 1)
    >>> lesson_deck(300_000, 1, 2)              # too long to trace: as many cards as fit
    (100000, 1)
    >>> lesson_deck(10_000, 1, 2, cards=300)    # a deck asked for: the scene's epochs
    (300, 1)
    """
    budget = MAX_TRACED
    if cards is None:
        cards = available if available * (epochs or scene_epochs) <= budget else \
            min(available, max(DEFAULT_CARDS, n_classes, budget // (epochs or scene_epochs)))
    if epochs is None:
        epochs = scene_epochs if cards * scene_epochs <= budget else max(1, budget // cards)
    return int(cards), int(epochs)


def lesson_window(presentations: int, n_units: int = 1) -> int:
    """How many presentations of a run a lesson replays card by card: all of them, or its first
    :data:`MAX_PRESENTATIONS` (divided by the R-units in use), where the learning starts.

    Examples
    --------
    >>> lesson_window(200), lesson_window(10_000), lesson_window(5_200, n_units=8)
    (200, 1000, 125)
    """
    return int(min(presentations, max(MAX_PRESENTATIONS // max(1, n_units), 1)))

#: Where the cgroups are mounted, and which this process is in.
_CGROUP_ROOT = Path("/sys/fs/cgroup")
_PROC_CGROUP = Path("/proc/self/cgroup")
_NO_LIMIT = 2**60          # cgroup v1 writes "no limit" as a page-rounded 2^63


@dataclass(frozen=True)
class MemoryLimit:
    """The memory a command may use, and what sets it.

    Attributes
    ----------
    bytes : int
        Bytes of resident memory the command may plan to use in all (the interpreter
        and its libraries included).
    source : str
        What sets it: ``"--memory-limit"`` (given to :func:`memory_limit`, or the command's
        :func:`memory_cap`), ``"address space"`` (``ulimit -v``), ``"cgroup"``, ``"physical"``
        (:data:`PHYSICAL_SHARE` of this computer's memory), or the name an API caller gave
        :func:`memory_cap`.
    raise_by : str
        How to raise it, in words (for the line that refuses a run).
    shared : bool
        Whether runs held at once share it (every limit but the address space, which is
        each process's own).

    Examples
    --------
    >>> lim = memory_limit(gigabytes=0.5)
    >>> lim.bytes, lim.source, lim.raise_by
    (500000000, '--memory-limit', 'raise --memory-limit')
    """

    bytes: int
    source: str
    raise_by: str
    shared: bool = True


def _physical() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):       # pragma: no cover - not POSIX
        return None


def _cgroup(root: Path | None = None, proc: Path | None = None) -> int | None:
    """The smallest memory limit of this process's cgroup and the groups above it, None if none.

    The group is read from ``proc`` (``/proc/self/cgroup``): v2's ``0::/path`` is
    ``root/path/memory.max``, v1's ``N:memory:/path`` is ``root/memory/path/memory.limit_in_bytes``;
    each folder from there up to the root counts (the root alone is this process's group only
    inside a container).
    """
    root = _CGROUP_ROOT if root is None else Path(root)
    try:
        lines = (_PROC_CGROUP if proc is None else Path(proc)).read_text().splitlines()
    except OSError:
        lines = []
    found = []
    for line in lines:
        _, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if controllers == "":
            top, name = root, "memory.max"
        elif "memory" in controllers.split(","):
            top, name = root / "memory", "memory.limit_in_bytes"
        else:
            continue
        folder = top / path.strip().lstrip("/")
        while True:
            try:
                text = (folder / name).read_text().strip()
            except OSError:
                text = ""
            if text.isdigit() and int(text) < _NO_LIMIT:          # not "max", nor v1's no-limit value
                found.append(int(text))
            if folder == top or top not in folder.parents:
                break
            folder = folder.parent
    return min(found, default=None)


def _mapped() -> int:
    """Bytes of address space this process has mapped now (0 where /proc is missing)."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):           # pragma: no cover - not Linux
        return 0


#: The limit :func:`memory_cap` holds for what runs inside it (None outside any). A module
#: variable rather than a ContextVar so that the command's threads and forked workers see it too.
_cap: MemoryLimit | None = None


#: The largest cap in bytes a limit of one's own is taken as (2^62: more means nothing more).
_LARGEST_CAP = 2 ** 62


def _given(gigabytes: object, name: str, called: str | None = None) -> MemoryLimit:
    """A limit of one's own named ``name``, checked: a positive finite number of GB (``called`` in the refusal)."""
    if isinstance(gigabytes, bool) or not isinstance(gigabytes, (int, float)) or not (
            math.isfinite(gigabytes) and gigabytes > 0):
        raise InputError(f"{called or name}: expected a positive number of GB, got {gigabytes!r}")
    # a limit beyond any memory (1e300 GB) holds nothing back: the others then decide
    return MemoryLimit(int(min(gigabytes * 1e9, _LARGEST_CAP)), name, f"raise {name}")


@contextlib.contextmanager
def memory_cap(gigabytes: float | None, *, name: str = "memory_cap") -> Iterator[MemoryLimit]:
    """Hold every memory budget checked inside the block to at most ``gigabytes``.

    Inside it :func:`memory_limit` (with or without its own ``gigabytes``) counts the cap
    among the limits, so the API's refusals (:func:`check_allocation`: ``Scene.stimuli``,
    ``Patchboard.load``, ``MarkI.fit``, an image folder's decoding) and the command line's
    estimate are checked against the same number. The ``mark1`` command holds its
    ``--memory-limit`` this way (``name="--memory-limit"``) for the whole command. Caps
    nest: the smaller holds. The previous cap is back when the block ends.

    Parameters
    ----------
    gigabytes : float or None
        The cap in GB (10^9 bytes), positive and finite; None sets no cap (the block runs
        under the limits there are).
    name : str
        What the refusals call the cap (``"--memory-limit"`` on the command line).

    Yields
    ------
    MemoryLimit
        The limit in force inside the block (:func:`memory_limit`).

    Raises
    ------
    mark1.exceptions.InputError
        For a ``gigabytes`` that is not a positive finite number, naming ``name``.

    Examples
    --------
    >>> with memory_cap(0.5) as lim:
    ...     check_allocation(10**9, "train.count", "the training cards")     # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mark1.exceptions.BudgetError: train.count: expected at most 0.50 GB of memory (memory_cap), got 1.00 GB ...
    >>> lim.bytes, lim.source
    (500000000, 'memory_cap')
    >>> check_allocation(10**9, "train.count", "the training cards")     # the cap is gone with its block
    """
    global _cap
    if gigabytes is None:
        yield memory_limit()
        return
    cap = _given(gigabytes, name)
    saved = _cap
    _cap = cap if saved is None or cap.bytes < saved.bytes else saved
    try:
        yield memory_limit()
    finally:
        _cap = saved


def memory_limit(gigabytes: float | None = None) -> MemoryLimit:
    """The smallest of the limits on this process's memory, as resident bytes for a command.

    The smallest of ``gigabytes`` (``--memory-limit``, if given), the cap of an enclosing
    :func:`memory_cap` (the command's ``--memory-limit``), the process's
    address-space limit (``resource.RLIMIT_AS``, as ``ulimit -v`` and batch systems set
    it), the memory limit of this process's cgroup and of those above it (read from
    ``/proc/self/cgroup``: v2's ``memory.max``, or v1's ``memory.limit_in_bytes``) and
    :data:`PHYSICAL_SHARE` of physical memory. The address space is
    turned into resident bytes: what is left of it now, less the growth of a command
    beyond its data (:data:`ADDRESS_SPACE_GROWTH`), plus the resident base
    (:data:`BASE_RESIDENT`) that a budget counts.

    Parameters
    ----------
    gigabytes : float, optional
        A limit of one's own, in GB (10^9 bytes); positive and finite.

    Returns
    -------
    MemoryLimit

    Raises
    ------
    mark1.exceptions.InputError
        For a ``gigabytes`` that is not a positive finite number.

    Examples
    --------
    >>> lim = memory_limit()
    >>> lim.bytes > 0 and lim.source in ("address space", "cgroup", "physical")
    True
    >>> memory_limit(gigabytes=1e6).bytes <= lim.bytes         # never above the others
    True
    """
    candidates = []
    if gigabytes is not None:
        candidates.append(_given(gigabytes, "--memory-limit", called="memory limit"))
    if _cap is not None:
        candidates.append(_cap)
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and soft > 0:
        usable = max(0, soft - _mapped() - ADDRESS_SPACE_GROWTH) + BASE_RESIDENT
        candidates.append(MemoryLimit(usable, "address space",
                                      f"raise the address-space limit (ulimit -v, now {soft / 1e9:.2f} GB)",
                                      shared=False))
    group = _cgroup()
    if group is not None:
        candidates.append(MemoryLimit(group, "cgroup", f"raise the cgroup's memory limit (now {group / 1e9:.2f} GB)"))
    physical = _physical()
    if physical is not None:
        candidates.append(MemoryLimit(int(PHYSICAL_SHARE * physical), "physical",
                                      f"use a computer with more memory (this one has {physical / 1e9:.1f} GB, "
                                      f"of which mark1 plans to use {percent(PHYSICAL_SHARE, 0)})"))
    if not candidates:                                  # pragma: no cover - nothing known
        return MemoryLimit(8 * 10**9, "physical", "use a computer with more memory")
    return min(candidates, key=lambda c: c.bytes)


def check_allocation(nbytes: int, key: str, what: str) -> None:
    """Refuse, before allocating, an array larger than this process may hold: the one budget
    (:func:`memory_limit`) the command line uses, reached by the API, under the command's
    ``--memory-limit`` too (:func:`memory_cap`).

    Parameters
    ----------
    nbytes : int
        Bytes the array would take.
    key : str
        The key, argument or file that asks for it (the message's first word).
    what : str
        What the array is, in words ("the wiring matrix", "the training cards").

    Raises
    ------
    mark1.exceptions.BudgetError
        One line naming ``key``, the bytes asked for and the limit (an InputError, so a
        ValueError, never a raw MemoryError).

    Examples
    --------
    >>> check_allocation(10**6, "train.count", "the training cards")          # a megabyte fits
    >>> check_allocation(10**15, "train.count", "the training cards")       # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mark1.exceptions.BudgetError: train.count: expected ... got 1000000.00 GB for the training cards...
    """
    lim = memory_limit()
    if nbytes > lim.bytes:
        raise BudgetError(f"{key}: expected at most {lim.bytes / 1e9:.2f} GB of memory ({lim.source}), got "
                          f"{nbytes / 1e9:.2f} GB for {what}; lower it, or {lim.raise_by}")

