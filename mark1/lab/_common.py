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
from mark1.stats import MIN_SEEDS, pilot_seeds
from mark1.stimuli.scenes import Scene

__all__ = ["count_option", "study_inputs", "csv_text", "write_json", "check_figure", "draw", "pct", "pct_spread",
           "num", "hours_cell", "seconds_cell", "aligned", "check_precision", "run_to_precision"]


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


class Piloted:
    """What a study over seeds shares with every other: its seeds, the pilot's among them (a run
    to a precision), and the seeds its figures and intervals count."""

    seeds: list
    pilot: list

    @property
    def counted(self) -> list:
        """The seeds the figures and intervals count: every seed, or those after a run's pilot."""
        return [s for s in self.seeds if s not in self.pilot]


def check_precision(precision: object, max_seeds: object, seeds: Sequence[int]) -> tuple[float | None, int]:
    """``precision`` (points, or None) and ``max_seeds`` checked against the study's pilot ``seeds``.

    Returns
    -------
    (float or None, int)
        The precision as a fraction (points / 100) and the most seeds in all.

    Raises
    ------
    InputError
        Naming ``precision``, ``max_seeds`` or ``seeds`` and what was expected.

    Examples
    --------
    >>> check_precision(1.0, 200, list(range(10)))
    (0.01, 200)
    >>> check_precision(None, 200, [0, 1])
    (None, 2)
    """
    if precision is None:
        return None, len(seeds)
    if isinstance(precision, bool) or not isinstance(precision, (int, float, np.integer, np.floating)) \
            or not 0 < float(precision) <= 100:
        raise InputError(f"precision: expected a half-width in points, more than 0 and at most 100, got {precision!r}")
    if isinstance(max_seeds, bool) or not isinstance(max_seeds, (int, np.integer)):
        raise InputError(f"max_seeds: expected a whole number of seeds, got {max_seeds!r}")
    if len(seeds) < MIN_SEEDS:
        raise InputError(f"seeds: a study run to a precision starts with a pilot of at least {MIN_SEEDS} seeds, "
                         f"got {len(seeds)}")
    if max_seeds < len(seeds) + MIN_SEEDS:
        raise InputError(f"max_seeds: expected at least the pilot's {len(seeds)} seeds and {MIN_SEEDS} more "
                         f"({len(seeds) + MIN_SEEDS}), got {max_seeds}")
    return float(precision) / 100.0, int(max_seeds)


def run_to_precision(run: Callable[[list[int]], list], samples: Callable[[list], Sequence[Sequence[float | None]]],
                     seeds: list[int], precision: float | None, max_seeds: int) -> tuple[list, list[int], list[int]]:
    """Run a study's seeds, or its pilot and then the seeds a precision needs.

    Without a precision, ``run(seeds)`` and every seed counts. With one, ``seeds`` are the
    pilot: their figures (``samples(records)``: one sequence per comparison of the family)
    fix by Stein's rule (:func:`mark1.stats.pilot_seeds`) how many new seeds to run, the
    smallest non-negative integers not in the pilot, and the intervals are of those new
    seeds only (the pilot's records are kept). The count depends on the pilot's records
    alone, so a resumed run, a process pool or a cluster runs the same seeds and gets the
    same bits.

    Parameters
    ----------
    run : callable (list of int) -> list
        Runs (or takes from the records, when resuming) the study's jobs of these seeds;
        returns their records.
    samples : callable (list) -> sequence of sequences of float
        The family's per-seed figures from a list of records.
    seeds : list of int
        The study's seeds, or its pilot.
    precision : float or None
        The half-width wanted, as a fraction (:func:`check_precision`).
    max_seeds : int
        The most seeds in all, the pilot's included.

    Returns
    -------
    (records, pilot, counted)
        Every record; the pilot's seeds ([] without a precision); the seeds the intervals count.

    Examples
    --------
    >>> import numpy as np
    >>> def run(ids):                        # a study whose one figure is noisy around 0.9
    ...     return [{"seed": s, "acc": 0.9 + 0.05 * np.random.default_rng(s).standard_normal()} for s in ids]
    >>> def samples(records):
    ...     return [[r["acc"] for r in records]]
    >>> records, pilot, counted = run_to_precision(run, samples, list(range(10)), 0.02, 500)
    >>> pilot == list(range(10)), counted[0], len(counted)
    (True, 10, 61)
    """
    records = run(seeds)
    if precision is None:
        return records, [], list(seeds)
    n = pilot_seeds(samples(records), precision, max_seeds=max_seeds - len(seeds))
    taken, k = set(seeds), 0
    counted: list[int] = []
    while len(counted) < n:
        if k not in taken:
            counted.append(k)
        k += 1
    return records + run(counted), list(seeds), counted


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
