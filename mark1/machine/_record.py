"""What a full trace keeps a block at a time: lists made when first read.

A full trace keeps every event, reading and move of a run. Made one by one as the run goes,
their objects cost more than the run itself; kept as the arrays each block already has, and
made when the trace is first read, they cost nothing to a run whose record nobody reads (a
fit with a listener hears the events as they are written, and reads nothing back).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

__all__ = ["Kept"]


class Kept(Sequence):
    """A list kept as a run goes, some of it as blocks made only when first read.

    Reads like a list (``len``, an index or a slice, iteration, ``==`` with a list); the
    blocks, each a count and a function that makes that many items, are made in order
    the first time an item is read, once.

    Examples
    --------
    >>> kept = Kept()
    >>> kept.append("a")
    >>> kept.later(2, lambda: ["b", "c"])        # made when first read
    >>> kept.extend(["d"])
    >>> len(kept), kept[1], kept[-1], kept == ["a", "b", "c", "d"]
    (4, 'b', 'd', True)
    """

    __slots__ = ("_made", "_blocks", "_count")
    __hash__ = None  # type: ignore[assignment]   # a list is not hashable

    def __init__(self, items: Iterable = ()) -> None:
        self._made: list = list(items)
        self._blocks: list[tuple[int, Callable[[], list]]] = []
        self._count = len(self._made)

    def _all(self) -> list:
        """Every item, the blocks made first (in order, once)."""
        if self._blocks:             # made whole before kept: a failure leaves the blocks for the next read
            made = [item for _, make in self._blocks for item in make()]
            self._made.extend(made)
            self._blocks = []
        return self._made

    def later(self, count: int, make: Callable[[], list]) -> None:
        """Keep ``count`` items that ``make()`` makes when the list is first read."""
        if count:
            self._blocks.append((count, make))
            self._count += count

    def append(self, item: Any) -> None:
        """Keep one item, after those kept before it."""
        self.extend((item,))

    def extend(self, items: Iterable) -> None:
        """Keep items, after those kept before them."""
        if self._blocks:
            items = list(items)
            self.later(len(items), lambda: items)
        else:
            self._made.extend(items)
            self._count = len(self._made)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list: ...

    def __getitem__(self, index):
        return self._all()[index]

    def __iter__(self) -> Iterator:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Kept):
            other = other._all()
        return self._all() == other

    def __repr__(self) -> str:
        return repr(self._all())

    def __getstate__(self) -> list:          # pickled made: the blocks' functions are not for pickling
        return self._all()

    def __setstate__(self, items: list) -> None:
        self._made, self._blocks, self._count = list(items), [], len(items)
