"""What the studies share: their checked inputs, their files, their plain-text tables."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from collections.abc import Callable, Sequence

import numpy as np

from mark1._utils.atomic import write_text
from mark1._utils.language import duration, percent, percent_spread
from mark1._utils.records import jsonable
from mark1.exceptions import InputError
from mark1.lab.runner import SceneLike, Seeds, as_scene, seed_list
from mark1.stimuli.scenes import Scene

__all__ = ["count_option", "study_inputs", "csv_text", "write_json", "check_figure", "draw", "pct", "pct_spread",
           "num", "hours_cell", "seconds_cell", "aligned"]


def count_option(value, name: str) -> int | None:
    """A positive integer or None (card counts), else an InputError naming ``name``."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name}: expected a positive integer or None, got {value!r}")
    return int(value)


def study_inputs(scene: SceneLike, seeds: Seeds, train_count: object,
                 test_count: object) -> tuple[Scene, list[int], int | None, int | None]:
    """What every study starts from, checked: ``(scene, seed list, train_count, test_count)``."""
    return (as_scene(scene), seed_list(seeds), count_option(train_count, "train_count"),
            count_option(test_count, "test_count"))


def csv_text(rows: list[dict], fields) -> str:
    """Rows as CSV text with the given columns (None written as an empty field)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fields), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in fields})
    return buf.getvalue()


def write_json(path: Path, data) -> None:
    """``data`` as indented JSON, written atomically."""
    write_text(path, json.dumps(jsonable(data), indent=1) + "\n")


def draw(figure: Callable | None, result, path: Path) -> bool:
    """Have the caller's ``figure(result, out=path)`` draw the study's figure; whether it did.

    The lab draws nothing itself (it imports no matplotlib): a caller who wants the
    figure passes the function that draws it (:mod:`mark1.viz.studies`).
    """
    if figure is None:
        return False
    figure(result, out=path)
    return True


def check_figure(figure, out) -> None:
    """A figure needs a folder to be drawn into."""
    if figure is not None and out is None:
        raise InputError("figure: needs out, the folder to draw the figure into")


def pct(x) -> str:
    """A fraction as a table cell, as the language writes it: ``0.875`` -> ``87.5 %``; None -> ``-``."""
    return "-" if x is None else percent(x)


def hours_cell(hours, change=None) -> str:
    """A machine time given in hours as a table cell in s, min or h by its size (the language's
    :func:`~mark1._utils.language.duration`), with a signed change after it when given; None -> ``-``.

    Examples
    --------
    >>> hours_cell(0.0556), hours_cell(2.5), hours_cell(0.5, -0.1), hours_cell(None)
    ('3.3 min', '2.5 h', '30 min (−6 min)', '-')
    """
    if hours is None or hours != hours:
        return "-"
    text = duration(3600.0 * hours)
    if change is not None:
        text += f" ({'+' if change >= 0 else '−'}{duration(3600.0 * abs(change))})"
    return text


def seconds_cell(seconds) -> str:
    """A time given in seconds (a wall time) as a table cell, in s, min or h by its size; None -> ``-``.

    Examples
    --------
    >>> seconds_cell(0.25), seconds_cell(199.0), seconds_cell(None)
    ('0.25 s', '3.3 min', '-')
    """
    return "-" if seconds is None else duration(seconds)


def pct_spread(mean, sd) -> str:
    """A mean rate and its standard deviation as a table cell, ``86.0 ± 1.8 %`` (the spread in
    points, :func:`~mark1._utils.language.percent_spread`); no sd -> the mean alone; None -> ``-``
    like the other cells.

    Examples
    --------
    >>> pct_spread(0.86, 0.0183), pct_spread(0.86, None), pct_spread(None, None)
    ('86.0 ± 1.8 %', '86.0 %', '-')
    """
    return "-" if mean is None else percent_spread(mean, sd)


def num(x, fmt: str) -> str:
    """A number as a table cell with ``fmt`` (e.g. ``"{:.3f}"``); None -> ``-``."""
    return "-" if x is None else fmt.format(x)


def aligned(head: Sequence[str], rows: Sequence[Sequence], left: Sequence[int] = (0,)) -> list[str]:
    """A plain-text table's lines: the head, a rule of dashes, the rows; columns ``left``
    aligned left, the rest right."""
    widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
    lines = ["  ".join(f"{c:<{w}}" if i in left else f"{c:>{w}}" for i, (c, w) in enumerate(zip(r, widths)))
             for r in (head, *rows)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines
