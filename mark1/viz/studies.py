"""The studies' figures: the machine beside the textbook classifiers, learning curves,
ablations, sweeps and the re-enactment (matplotlib's object API, no pyplot; each saved
atomically when given ``out``).

The lab draws nothing: pass one of these as a study's ``figure`` (as the ``mark1``
command does) and it is drawn into the study's folder, or call it on a result.

Examples
--------
>>> from mark1.lab import sweep
>>> result = sweep("scenes/demo.toml", "rack.backlash", "0,0.02", seeds=1, train_count=8, test_count=8)
>>> len(sweep_figure(result).axes)
4
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Sequence
from typing import cast

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.patheffects import withStroke

from mark1._utils.language import LEARNER_COLOURS, NEUTRAL, WEIGHT_CMAP, duration, duration_unit, percent
from mark1.lab import VERDICTS, Ablation, Comparison, GridSweep, LearningCurves, Reenactment, Sweep, value_text
from mark1.exceptions import InputError
from mark1 import stats
from mark1.stats import METHOD_SHORT
from mark1.specs import MachineSpec, describe
from mark1.viz.figure import accuracy_axis, accuracy_low, new_figure, save_figure
from mark1.viz.style import slide_style

__all__ = ["comparison_figure", "learning_curves_figure", "ablation_figure", "sweep_figure", "grid_sweep_figure",
           "reenact_figure"]


#: Units of the spec's parameters, for the axis of a sweep.
_UNITS = {r["key"]: r["unit"] for r in describe(MachineSpec())}
_UNITS["schedule.epochs"] = "passes over the training cards"


def _param_label(key: str) -> str:
    """A swept parameter with its unit, as an axis label: ``rack.backlash (full scale)``."""
    unit = _UNITS.get(key)
    return key if unit in (None, "1", "choice", "switch") else f"{key} ({unit})"


def _time_scale(hours) -> tuple[str, float]:
    """The unit a machine-time axis is drawn in (by its largest value, as the terminal writes it), and
    the factor from hours to it."""
    finite = [abs(float(h)) for h in np.ravel(hours) if h is not None and h == h]
    unit, size = duration_unit(3600.0 * max(finite, default=0.0))
    return unit, 3600.0 / size


def _saved(fig: Figure, out, **savefig) -> Figure:
    """``fig``, saved atomically first when ``out`` names a file."""
    if out is not None:
        save_figure(fig, out, **savefig)
    return fig


def comparison_figure(comparison: Comparison, *, out: str | os.PathLike | None = None) -> Figure:
    """Test accuracy of every learner of a :class:`mark1.lab.Comparison`.

    One row per learner: a dot per seed, the mean with its 95 % interval (from
    :mod:`mark1.stats`, inside 0–100 %; none below its minimum seeds, and the title says
    so), and the scene's reported figure as a dashed vertical line when there is one.

    Parameters
    ----------
    comparison : mark1.lab.Comparison
    out : str or path-like, optional
        Where to save the figure (PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure
        One axes.

    Examples
    --------
    >>> from mark1.lab import compare
    >>> comp = compare("scenes/demo.toml", seeds=2, learners=["mark1", "lstsq-S"], train_count=8, test_count=8)
    >>> ax = comparison_figure(comp).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()]       # the first learner on top
    ['lstsq-S', 'mark1']
    """
    learners = list(comparison.learners)
    summary = comparison.summary()
    lows: list = []
    ends: list = []
    fig = new_figure(6.4, 1.2 + 0.38 * len(learners))
    ax = fig.add_subplot(1, 1, 1)
    for i, name in enumerate(learners):
        y = len(learners) - 1 - i
        accs = [r["test_accuracy"] for r in comparison.records
                if r["learner"] == name and r["test_accuracy"] is not None]
        color = LEARNER_COLOURS.get("analog" if name == "mark1" else name, "0.35")
        if accs:
            ax.scatter(100 * np.asarray(accs), np.full(len(accs), y), s=14, color=color, alpha=0.5, zorder=2)
        iv = summary[name]["interval"]
        if iv.n:
            bar = None if iv.too_few else [[100 * (iv.mean - iv.low)], [100 * (iv.high - iv.mean)]]
            ax.errorbar([100 * iv.mean], [y], xerr=bar, fmt="D", color=color, markersize=5, capsize=3, zorder=3,
                        gid=f"interval:{name}")
            if bar is not None:
                ends.extend([100 * iv.low, 100 * iv.high])
        lows.extend(100 * np.asarray(accs))
    rep = comparison.reported.get("value") if comparison.reported else None
    if rep is not None:
        ax.axvline(100 * rep, color="k", linestyle="--", linewidth=1, label=f"reported {percent(rep)}")
        ax.legend(loc="lower left", fontsize=8, frameon=False)
        lows.append(100 * rep)
    ax.set_yticks(range(len(learners)))
    ax.set_yticklabels(list(reversed(learners)), fontsize=8)
    ax.set_ylim(-0.6, len(learners) - 0.4)
    accuracy_axis(ax, accuracy_low(lows + ends), which="x", label="test accuracy")
    ax.grid(axis="x", alpha=0.3)
    few = [n for n in learners if summary[n]["interval"].n and summary[n]["interval"].too_few]
    counted = len(comparison.counted)
    what = (summary[few[0]]["interval"].words() + ": the dots and their mean only" if few
            else f"mean and 95 % interval ({METHOD_SHORT}, inside 0–100 %)")
    ax.set_title("\n".join(textwrap.wrap(f"{comparison.scene} — {counted} seed{'s' if counted != 1 else ''}"
                                         + (f" after a pilot of {len(comparison.pilot)}" if comparison.pilot else "")
                                         + f", one dot each; {what}; mark1 is the analog machine", 80)), fontsize=9)
    fig.tight_layout()
    return _saved(fig, out, dpi=120)


def learning_curves_figure(curves: LearningCurves, *, out: str | os.PathLike | None = None) -> Figure:
    """Test accuracy (%) against cards presented and against machine time, analog and ideal.

    Two panels. Each variant of a :class:`mark1.lab.LearningCurves` is drawn as
    its mean over seeds (line with markers) and the band of its 95 % pointwise intervals
    (:meth:`mark1.lab.LearningCurves.interval`, inside [0, 100 %]); below
    :data:`mark1.stats.MIN_SEEDS` seeds, the seeds as dots and the words "too few seeds
    (n = 2) for an interval" in the title instead of a band. In the right
    panel the x position of a checkpoint is its mean machine time over seeds. The
    scene's reported figure, when there is one, is a dashed horizontal line. The accuracy
    axis starts at 50 % when every value is above it (and says so), else at 0; machine
    time is in s, min or h by its size.

    Parameters
    ----------
    curves : mark1.lab.LearningCurves
    out : str or path-like, optional

    Returns
    -------
    matplotlib.figure.Figure
        Two axes, one mean line per variant on each.

    Examples
    --------
    >>> from mark1.lab import LearningCurves
    >>> acc = {"analog": np.array([[0.6, 0.8, 0.9]]), "ideal": np.array([[0.7, 0.9, 1.0]])}
    >>> hours = {v: np.array([[0.1, 0.2, 0.3]]) for v in acc}
    >>> curves = LearningCurves(scene="made up", seeds=[0], epochs=np.array([1, 2, 3]), cards=np.array([20, 40, 60]),
    ...                         accuracy=acc, train_accuracy=acc, machine_hours=hours, reported=0.95)
    >>> fig = learning_curves_figure(curves)
    >>> [len(ax.lines) for ax in fig.axes]                # analog, ideal and the reported figure
    [3, 3]
    """
    fig = new_figure(10.0, 3.8)
    ax_cards = fig.add_subplot(1, 2, 1)
    ax_time = fig.add_subplot(1, 2, 2, sharey=ax_cards, gid="time")        # on a slide: curves-time.png
    cards = np.asarray(curves.cards, dtype=float)
    lows: list[float] = []
    few = ""
    unit, per_hour = _time_scale([np.asarray(h, dtype=float) for h in curves.machine_hours.values()])
    for v in curves.accuracy:
        acc = 100 * np.asarray(curves.accuracy[v], dtype=float)       # (seeds, points), %
        times = per_hour * np.asarray(curves.machine_hours[v], dtype=float).mean(axis=0)
        color = LEARNER_COLOURS.get(v)
        ivs = [curves.interval(v, j).scaled(100.0) for j in range(acc.shape[1])]
        mean = acc.mean(axis=0)
        has = not any(iv.too_few for iv in ivs)
        for ax, x in ((ax_cards, cards), (ax_time, times)):
            if has:                                       # pointwise intervals, inside [0, 100 %]
                ax.fill_between(x, [float(cast(float, iv.low)) for iv in ivs],
                                [float(cast(float, iv.high)) for iv in ivs], color=color, alpha=0.2, linewidth=0,
                                gid=f"interval:{v}")
            else:                                         # too few seeds: the seeds themselves
                ax.scatter(np.broadcast_to(x, acc.shape).ravel(), acc.ravel(), s=6, color=color, alpha=0.45,
                           zorder=2)
            ax.plot(x, mean, marker="o", markersize=3, color=color, zorder=3,
                    label=f"{v} (mean, 95 % pointwise interval)" if has else f"{v} (mean, dots: one seed each)")
        lows.extend(float(cast(float, ivs[j].low)) if has else float(acc[:, j].min()) for j in range(acc.shape[1]))
        if not has:
            few = ivs[0].words()
    if curves.reported is not None:
        for ax in (ax_cards, ax_time):
            ax.axhline(100 * curves.reported, color="0.25", linestyle="--", linewidth=1, zorder=1,
                       label=f"reported {percent(curves.reported)}")     # under the curves, never hiding them
        lows.append(100 * curves.reported)
    # from 50 % (chance for two classes) when every value is above it, said on the axis
    accuracy_axis(ax_cards, accuracy_low(lows), label="test accuracy")
    ax_cards.set_xlim(left=0)                               # training starts at the origin
    ax_time.set_xlim(left=0)
    ax_cards.set_xlabel("cards presented")
    ax_time.set_xlabel(f"machine time ({unit})")
    for ax in (ax_cards, ax_time):
        ax.grid(alpha=0.3)
    ax_cards.legend(fontsize=8, frameon=False, loc="lower right")
    fig.suptitle(f"{curves.scene} — learning curves over {len(curves.seeds)} seed(s)"
                 + (f"; {few}" if few else f"; 95 % pointwise intervals ({stats.METHOD_SHORT})"), fontsize=9)
    fig.tight_layout()
    return _saved(fig, out, dpi=120)


#: The ablation's two arms: prefix, legend, colour, marker, offset of its row.
_ARMS = (("on", "alone on: ideal + it vs ideal", "tab:orange", "o", +0.18),
         ("off", "alone off: full − it vs full", "tab:blue", "s", -0.18))
_GREY = "0.55"


def _arm_cost(result: Ablation, name: str, prefix: str):
    """The arm's mean cost in points, or None where it has no result."""
    c = result.row(f"{prefix}:{name}").get("cost_points")
    return None if c is None or c != c else c


def _ablation_rank(result: Ablation, name: str) -> float:
    costs = [c for c in (_arm_cost(result, name, p) for p, *_ in _ARMS) if c is not None]
    return max(costs) if costs else -np.inf               # no result: at the bottom


def _ablation_label(result: Ablation, name: str) -> str:
    gone = [f"alone {p}" for p, *_ in _ARMS if _arm_cost(result, name, p) is None]
    return name + ("" if not gone else " (no result)" if len(gone) == 2 else f" ({gone[0]}: no result)")


def _hours_added(result: Ablation, prefix: str, r: dict):
    """Mean machine time added by the non-ideality (h) and its 95 % interval, or None."""
    if r.get("machine_time_h_change") is None:
        return None
    sign = 1.0 if prefix == "on" else -1.0                # on: variant - ideal; off: full - variant
    ref = result.row(r["reference"]) if r.get("reference") else None
    per_seed = r.get("machine_time_s")
    if ref is not None and per_seed and ref.get("machine_time_s"):
        a, b = ((per_seed, ref["machine_time_s"]) if sign > 0 else (ref["machine_time_s"], per_seed))
        iv = stats.difference_interval([x / 3600.0 for x in a], [x / 3600.0 for x in b], (0.0, math.inf))
        return iv.mean, (np.nan if iv.low is None else iv.low), (np.nan if iv.high is None else iv.high)
    return sign * r["machine_time_h_change"], np.nan, np.nan


def _draw_ablation_costs(ax, result: Ablation, names: list, y: np.ndarray) -> None:
    """Each arm's mark, interval and per-seed costs on the cost axes (gid = the variant)."""
    for prefix, _, color, marker, dy in _ARMS:
        for n, yy in zip(names, y + dy):
            variant = f"{prefix}:{n}"
            r = result.row(variant)
            c = _arm_cost(result, n, prefix)
            if c is None:
                continue
            verdict = r.get("verdict")
            per_seed = r.get("costs") or []
            if per_seed and verdict != "zero":
                ax.plot(per_seed, [yy] * len(per_seed), linestyle="none", marker="o", markersize=3.5,
                        color="k", alpha=0.7, zorder=3.5)
            pilot = r.get("pilot_costs") or []
            if pilot:                                     # a run to a precision's pilot: kept, not counted
                ax.plot(pilot, [yy - 0.08] * len(pilot), linestyle="none", marker="o", markersize=3.5,
                        markerfacecolor="none", color="0.4", alpha=0.7, zorder=3.4)
            if verdict == "zero":
                ax.plot([c], [yy], linestyle="none", marker="x", markersize=9, markeredgewidth=2,
                        color="k", zorder=4, gid=variant)
                continue
            lo, hi = r.get("low"), r.get("high")           # the Holm-adjusted interval, points
            solid = verdict in ("cost", "gain")
            if lo is not None and hi is not None and lo == lo and hi == hi:
                ax.plot([lo, hi], [yy, yy], color=color if solid else _GREY, linewidth=2.2,
                        solid_capstyle="butt", zorder=3, gid=f"{variant}:interval")
            ax.plot([c], [yy], linestyle="none", marker=marker, markersize=9, markeredgewidth=1.8,
                    color=color if solid else _GREY, markerfacecolor=color if solid else "white",
                    zorder=4, gid=variant)


def _draw_ablation_times(ax_time, result: Ablation, names: list, y: np.ndarray, times: dict) -> None:
    """Each arm's machine time added on the time axes (gid ``time:`` + the variant)."""
    for prefix, _, color, marker, dy in _ARMS:
        for n, yy in zip(names, y + dy):
            t = times[(prefix, n)]
            if _arm_cost(result, n, prefix) is None:
                continue
            if t is None:
                ax_time.text(0.0, yy, "  same", color=_GREY, fontsize=10, ha="left", va="center")
                continue
            m, lo, hi = t
            if lo == lo and hi == hi:
                ax_time.plot([lo, hi], [yy, yy], color=color, linewidth=2.2, solid_capstyle="butt",
                             zorder=3, gid=f"time:{prefix}:{n}:interval")
            ax_time.plot([m], [yy], linestyle="none", marker=marker, markersize=9, color=color,
                         zorder=4, gid=f"time:{prefix}:{n}")


def _ablation_legend() -> list:
    handles = [Line2D([], [], linestyle="none", marker=m, markersize=9, color=c, label=lab)
               for _, lab, c, m, _ in _ARMS]
    return handles + [
        Line2D([], [], color="0.3", marker="o", markersize=9, linewidth=2.2, markerfacecolor="0.3",
               label="Holm-adjusted interval excludes 0 (filled)"),
        Line2D([], [], color=_GREY, marker="o", markersize=9, linewidth=2.2, markerfacecolor="white",
               label=VERDICTS["null"] + " (hollow, grey)"),
        Line2D([], [], linestyle="none", marker="x", markersize=9, markeredgewidth=2, color="k",
               label="exactly 0 on every seed"),
        Line2D([], [], linestyle="none", marker="o", markersize=3.5, color="k", alpha=0.7,
               label="cost on one seed")]


def ablation_figure(result: Ablation, *, out: str | os.PathLike | None = None) -> Figure:
    """Which non-ideality costs most: the table of a :class:`mark1.lab.Ablation`, drawn.

    One row per non-ideality, two marks per row, one per arm: "alone on" (the ideal
    machine with only it on, circles) and "alone off" (the full machine with only it
    off, squares). Each mark is the arm's mean cost in points lost because of the
    non-ideality (``cost_points``; positive hurts), with its Holm-adjusted interval
    (``low`` to ``high``, :mod:`mark1.stats`, inside [−100, +100] points) as a bar and the
    per-seed costs as small dots. The verdict shows in the mark: filled when the adjusted
    interval excludes 0 ("costs points" or "gains points"), hollow and grey when it is "not
    distinguishable from 0", a black × on the zero line when it is "exactly 0" on every
    seed; below :data:`mark1.stats.MIN_SEEDS` seeds no bar, hollow grey marks and the words
    "too few seeds (n = 2) for an interval" on the figure. The
    rows are sorted by the larger of the two costs, the costliest on top; a row
    without a result says "(no result)" and goes to the bottom.

    A second panel, machine time added by the non-ideality (in s, min or h by size; the same sign
    convention: (ideal + it) − ideal, full − (full − it)), is drawn only when some
    arm's machine time differs from its reference's (``machine_time_h_change`` not
    None); otherwise the title says machine time is the same in every arm.

    Parameters
    ----------
    result : mark1.lab.Ablation
    out : str or path-like, optional

    Returns
    -------
    matplotlib.figure.Figure
        One or two axes. On the cost axes the mark of variant ``"on:NAME"`` is the
        line with gid ``"on:NAME"`` (x = ``cost_points``), its interval the line with
        gid ``"on:NAME:interval"`` (x = ``low``, ``high``); likewise on the
        time axes with gid ``"time:on:NAME"``.

    Examples
    --------
    >>> from mark1.lab import ablate
    >>> result = ablate("scenes/demo.toml", seeds=1, train_count=4, test_count=4)
    >>> ax = ablation_figure(result).axes[0]
    >>> mark = next(line for line in ax.lines if line.get_gid() == "off:backlash")
    >>> list(mark.get_xdata()) == [result.row("off:backlash")["cost_points"]]
    True
    """
    names = list(result.non_idealities)
    names.sort(key=lambda n: _ablation_rank(result, n))          # costliest last = on top
    times = {(p, n): _hours_added(result, p, result.row(f"{p}:{n}")) for n in names for p, *_ in _ARMS}
    show_time = any(v is not None for v in times.values())
    fig = new_figure(13.0 if show_time else 10.0, 2.6 + 0.55 * max(len(names), 1))
    if show_time:
        grid = fig.add_gridspec(1, 2, width_ratios=(1.6, 1.0))
        ax = fig.add_subplot(grid[0, 0])
        ax_time = fig.add_subplot(grid[0, 1], sharey=ax, gid="time")      # on a slide: ablation-time.png
    else:
        ax, ax_time = fig.add_subplot(1, 1, 1), None
    y = np.arange(len(names), dtype=float)
    for axis in [ax] + ([ax_time] if ax_time is not None else []):
        axis.axvline(0.0, color="k", linewidth=1.0, zorder=1)
        for yy in y[1:]:
            axis.axhline(yy - 0.5, color="0.85", linewidth=0.8, zorder=0)
    _draw_ablation_costs(ax, result, names, y)
    if ax_time is not None:
        time_unit, per_hour = _time_scale([v for t in times.values() if t is not None for v in t])
        _draw_ablation_times(ax_time, result, names, y,
                             {k: None if t is None else tuple(per_hour * v for v in t) for k, t in times.items()})
    ax.set_yticks(y)
    ax.set_yticklabels([_ablation_label(result, n).replace("_", " ") for n in names], fontsize=11)
    ax.set_ylim(-0.6, max(len(names), 1) - 0.4)
    if not names:
        ax.text(0.5, 0.5, "this machine has no non-ideality on", transform=ax.transAxes,
                ha="center", va="center", fontsize=11)
    # symmetric about 0, so that a gain looks as large as a cost of the same size
    extent = [abs(v) for n in names for p, *_ in _ARMS
              for v in (result.row(f"{p}:{n}").get(k) for k in ("low", "high", "cost_points"))
              if v is not None and v == v]
    extent += [abs(v) for n in names for p, *_ in _ARMS for v in (result.row(f"{p}:{n}").get("costs") or [])]
    lim = min(max(extent + [1.0]) * 1.1, 100.0)          # a cost lies in [-100, +100] points
    ax.set_xlim(-lim, lim)
    few = next((f"too few seeds (n = {len(result.counted)}) for an interval: the per-seed costs alone, no verdict"
                for r in result.family() if r.get("verdict") == "few"), None)
    if few:
        ax.text(0.01, 0.99, few, transform=ax.transAxes, ha="left", va="top", fontsize=10, color="0.25")
    ax.set_xlabel("cost: points of test accuracy lost because of it  (← gains   hurts →)", fontsize=11)
    ax.tick_params(labelsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.legend(handles=_ablation_legend(), loc="lower center", ncol=3, fontsize=10, frameon=False)
    title = f"{result.scene} — which non-ideality costs most\n" + "\n".join(textwrap.wrap(
        f"{len(result.counted)} paired seed(s)"
        + (f" after a pilot of {len(result.pilot)} (hollow dots)" if result.pilot else "")
        + f": mean cost with its Holm-adjusted interval over the arms ({stats.METHOD_SHORT}), costliest on top",
        int(fig.get_figwidth() * 9)))
    if ax_time is not None:
        ax_time.set_xlabel(f"machine time added by it ({time_unit})", fontsize=11)
        ax_time.tick_params(labelleft=False, labelsize=10)
        ax_time.grid(axis="x", alpha=0.3)
        ax_time.set_title("machine time (only arms that change it)", fontsize=11)
    else:
        refs = {result.row(v)["machine_time_h_mean"] for v in ("full", "ideal")} - {None}
        title += ("\nmachine time the same as its reference in every arm"
                  + (f" ({duration(3600.0 * refs.pop())})" if len(refs) == 1 else ""))
    fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.75 / fig.get_figheight(), 1, 1))       # room for the two-row legend
    return _saved(fig, out, dpi=120)


def _positions(values: list) -> tuple[np.ndarray, list[str], bool]:
    """x positions, tick labels and whether the axis is logarithmic.

    Numbers spanning a factor of 20 or more (all positive) go on a log axis; infinity
    sits one step beyond the largest finite value, labelled ∞. Switches and choices sit
    at 0, 1, 2, ... with their names. Passes over the cards with ``until:CAP`` (until the
    first pass without a mistake) go on a log axis with ``until`` a factor of 2 beyond the most.
    """
    until = [v for v in values if isinstance(v, str) and v.startswith("until:")]
    passes = [v for v in values if v not in until]
    if len(until) == 1 and passes and all(isinstance(v, int) and v > 0 for v in passes):
        top = max(passes)                        # pass counts on a log axis, until a factor of 2 beyond
        x = np.array([2.0 * top if v in until else float(v) for v in values])
        return x, [f"until\n(≤{v[6:]})" if v in until else str(v) for v in values], True
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        finite = [float(v) for v in values if math.isfinite(v)]
        labels = ["∞" if not math.isfinite(v) else f"{v:g}" for v in values]
        if not finite:
            return np.arange(len(values), dtype=float), labels, False
        lo, hi = min(finite), max(finite)
        log = lo > 0 and hi / lo >= 20
        if log:
            beyond = hi * (hi / lo) ** 0.15 if hi > lo else hi * 4
        else:
            beyond = hi + 0.15 * (hi - lo) if hi > lo else hi + 1
        return np.array([float(v) if math.isfinite(v) else beyond for v in values]), labels, log
    return np.arange(len(values), dtype=float), [value_text(v) for v in values], False


def sweep_figure(result: Sweep, *, out: str | os.PathLike | None = None) -> Figure:
    """Accuracy, paired change, machine time and learning time against the parameter.

    Four panels sharing the x axis (the swept values; ∞ at the right end): test
    accuracy (thin line per seed, mean with 95 % band), the paired change in test
    accuracy from the reference value (points, the band of the family's adjusted
    intervals; the dotted line is 0), machine time (in s, min or h by size) and
    presentations until the last training mistake (mean with 95 % band). Every band
    lies inside what the quantity can be (:mod:`mark1.stats`); below
    :data:`mark1.stats.MIN_SEEDS` seeds there is none, the per-seed changes are drawn as
    dots and the title says "too few seeds (n = 2) for an interval". The reference value is marked by a vertical dotted
    line; the x axis names the parameter with its unit. The accuracy axis starts at 50 %
    when every value is above it, and says so.

    Parameters
    ----------
    result : mark1.lab.Sweep
    out : str or path-like, optional
        Where to save the figure (PNG unless the ending says otherwise), atomically.

    Returns
    -------
    matplotlib.figure.Figure
        Four axes.

    Examples
    --------
    >>> from mark1.lab import sweep
    >>> result = sweep("scenes/demo.toml", "rack.motor_speed", "0.01,0.1,inf", seeds=1, train_count=8, test_count=8)
    >>> ax = sweep_figure(result).axes[0]
    >>> ax.get_xscale(), [t.get_text() for t in ax.get_xticklabels()]      # infinity one step beyond
    ('linear', ['0.01', '0.1', '∞'])
    """
    x, labels, log = _positions(result.values)
    order = np.argsort(x, kind="stable")
    rows = result.summary()
    fig = new_figure(9.0, 6.4)
    # on a slide one file a panel: sweep.png (accuracy), sweep-change.png, sweep-machine-time.png, sweep-learned.png
    axes = [fig.add_subplot(2, 2, i + 1, gid=gid) for i, gid in enumerate((None, "change", "machine-time", "learned"))]
    ref_i = [value_text(v) for v in result.values].index(value_text(result.reference))
    ref_x = x[ref_i]

    def band(ax, key, scale, color, label="mean"):
        m = np.array([r[f"{key}_mean"] if r[f"{key}_mean"] is not None else np.nan for r in rows], float)
        lo = np.array([r[f"{key}_low"] if r[f"{key}_low"] is not None else np.nan for r in rows], float)
        hi = np.array([r[f"{key}_high"] if r[f"{key}_high"] is not None else np.nan for r in rows], float)
        ax.plot(x[order], m[order] * scale, "o-", color=color, markersize=4, zorder=3, label=label)
        if np.isfinite(lo).any():                      # intervals exist only from the method's minimum seeds
            ax.fill_between(x[order], lo[order] * scale, hi[order] * scale, color=color, alpha=0.2,
                            linewidth=0, gid=f"interval:{key}",
                            label="95 % interval" + (f" (adjusted, {result.correction})" if key == "change" else ""))

    few = min(r["n"] for r in rows) < stats.MIN_SEEDS
    ax = axes[0]
    lows: list[float] = []
    colour = LEARNER_COLOURS["analog"]
    for s in result.seeds:
        acc = np.array([next((r["test_accuracy"] for r in result.records
                              if r["seed"] == s and r["value"] == value_text(v)), np.nan)
                        for v in result.values], float)
        # above the band, so that they stay grey (under a coloured band they turned pink)
        pilot = s in result.pilot                      # a run to a precision's pilot: drawn, not counted
        ax.plot(x[order], acc[order] * 100, color="0.45", linewidth=0.7, zorder=2.5,
                linestyle=":" if pilot else "-",
                label=("one seed" if s == result.counted[0] else "one pilot seed (not counted)"
                       if s == (result.pilot or [None])[0] else None))
        lows.extend(acc * 100)
    band(ax, "test", 100, colour, "mean")
    ends = [100 * r[k] for r in rows for k in ("test_low", "test_high") if r[k] is not None]
    accuracy_axis(ax, accuracy_low(lows + ends), label="test accuracy")      # intervals lie inside [0, 100]
    ax.set_title("test accuracy (grey lines: one per seed)", fontsize=9)
    ax.legend(fontsize=7, frameon=False)
    ax = axes[1]
    band(ax, "change", 100, colour)
    if few:                                            # no interval: the per-seed changes themselves
        diffs = result.differences()
        for v, xx in zip(result.values, x):
            d = diffs.get(value_text(v))
            if d:
                ax.scatter([xx] * len(d), 100 * np.asarray(d), s=8, color="0.45", alpha=0.6, zorder=2.5)
    ax.axhline(0, color="k", linestyle=":", linewidth=1)
    ax.set_ylabel("change (points)")
    ax.set_title(f"paired change from {labels[ref_i]} (same cards, same board)",
                 fontsize=9)
    ax = axes[2]
    unit, per_hour = _time_scale([r["machine_h_high"] if r["machine_h_high"] is not None else r["machine_h_mean"]
                                  for r in rows])
    band(ax, "machine_h", per_hour, colour)
    ax.set_ylim(bottom=0)                              # a time is >= 0, and so is its interval
    ax.set_ylabel(f"machine time ({unit})")
    ax.set_title("machine time of the training", fontsize=9)
    ax = axes[3]
    band(ax, "learned_after", 1, colour)
    runs = {r["presentations"] for r in result.records if r.get("presentations")}
    # the interval lies inside [0, the run's presentations], as every single run's last mistake does
    ax.set_ylim(0, max(runs, default=1) * 1.06)
    if len(runs) == 1:
        run = runs.pop()
        ax.axhline(run, color=NEUTRAL, linestyle="--", linewidth=1)
        ax.set_title(f"presentations until the last training mistake\n(dashed: the run's {run})", fontsize=9)
    else:
        ax.set_title("presentations until the last training mistake", fontsize=9)
    ax.set_ylabel("presentations")
    for ax in axes:
        if log:
            ax.set_xscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=8, rotation=45 if len(labels) > 6 else 0)
        ax.minorticks_off()
        ax.axvline(ref_x, color="k", linestyle=":", linewidth=0.8)
        ax.grid(alpha=0.3)
        ax.set_xlabel(_param_label(result.param))
    axes[1].legend(fontsize=7, frameon=False)
    n_few = min(r["n"] for r in rows)
    fig.suptitle(f"{result.scene} — {result.param} over {len(result.seeds)} paired seed(s)\n"
                 + (f"too few seeds (n = {n_few}) for an interval: means and seeds alone, no verdict" if few else
                    f"95 % intervals ({stats.METHOD_SHORT}); the change's adjusted over "
                    f"{len(result.values) - 1} values ({result.correction})"), fontsize=10)
    fig.tight_layout()
    return _saved(fig, out, dpi=110)


_GRID_PANELS = {"test": ("mean test accuracy (%)", 100.0, "{:.1f}"),
                "change": ("paired change in test accuracy (points)", 100.0, "{:+.1f}"),
                "learned_after": ("presentations until the last training mistake", 1.0, "{:.0f}"),
                "machine_h": ("machine time (h)", 1.0, "{:.2f}"),
                "mistakes": ("training mistakes (presentations answered wrongly)", 1.0, "{:.0f}"),
                "passes": ("passes trained", 1.0, "{:.1f}"),
                "pots_at_stops": ("pots at an end stop after training", 1.0, "{:.0f}")}


def grid_sweep_figure(result: GridSweep, *, panels: Sequence[str] | None = None,
                      out: str | os.PathLike | None = None) -> Figure:
    """Heat maps of a two-parameter sweep: one panel per statistic, the mean written in each cell.

    Rows are the first parameter's values, columns the second's (in the order given;
    ∞ written as such). The reference cell (the scene's own values) is outlined. On the
    accuracy panels (``test`` and ``change``) a cell is hatched when its paired change
    from the reference cell is not distinguishable from 0 (its interval, adjusted over the
    family of cells, includes 0) or has no interval (below :data:`mark1.stats.MIN_SEEDS`
    seeds, which the title then says); the ``change`` panel writes each cell's adjusted
    interval under its mean.

    Parameters
    ----------
    result : mark1.lab.GridSweep
    panels : sequence of str, optional
        The statistics, one panel each (default: ``test``, ``change`` and ``learned_after``,
        and ``machine_h`` when the machine time differs between cells): ``test`` (mean test accuracy, %), ``change``
        (paired change from the reference cell, points), ``learned_after``
        (presentations until the last training mistake), ``mistakes`` (while training), ``machine_h`` (hours),
        ``passes``, ``pots_at_stops`` (pots within 0.01 FS of ±1 after training).
    out : str or path-like, optional
        Where to save the figure (PNG unless the ending says otherwise), atomically.

    Returns
    -------
    matplotlib.figure.Figure
        One heat map per panel, each with its colour bar; a hatched cell is a Rectangle
        patch with gid ``"undecided:i,j"`` (row i, column j).

    Examples
    --------
    >>> from mark1.lab import grid_sweep
    >>> result = grid_sweep("scenes/demo.toml", "rack.backlash", "0,0.05", "schedule.epochs", "1,3", seeds=1,
    ...                     train_count=8, test_count=8)
    >>> ax = grid_sweep_figure(result, panels=["test"]).axes[0]
    >>> [t.get_text() for t in ax.texts], [t.get_text() for t in ax.get_yticklabels()]
    (['50.0', '62.5', '62.5', '62.5'], ['0', '0.05'])
    """
    if panels is None:
        hours = result.grid("machine_h")
        panels = ["test", "change", "learned_after"] + (["machine_h"] if np.nanmax(hours) - np.nanmin(hours) > 1e-9
                                                        else [])
    unknown = [p for p in panels if p not in _GRID_PANELS]
    if unknown or not panels:
        raise InputError(f"panels: expected some of {', '.join(_GRID_PANELS)}, got {list(panels)!r}")
    (a, b), (va, vb) = result.params, result.values
    ref = (va.index(result.reference[0]), vb.index(result.reference[1]))
    summary = result.summary()
    cells = {(i, j): summary[i * len(vb) + j] for i in range(len(va)) for j in range(len(vb))}
    undecided = [c for c, r in cells.items() if c != ref and not r["decided"]]
    few = min(r["n"] for r in summary) < stats.MIN_SEEDS
    intervals = "change" in panels

    def label(v):
        return "∞" if isinstance(v, float) and math.isinf(v) else (f"{v:g}" if isinstance(v, float) else
                                                                  value_text(v))
    cell_w = 1.15 if intervals else 0.75                  # room for an interval under the change's mean
    width = max(3.2, cell_w * len(vb) + 1.6)
    fig = new_figure(width * len(panels), max(3.0, (0.65 if intervals else 0.5) * len(va) + 1.8))
    for k, name in enumerate(panels):
        title, scale, fmt = _GRID_PANELS[name]
        if name == "machine_h":                           # in s, min or h by size, as the terminal writes it
            unit, scale = _time_scale(result.grid(name))
            title, fmt = f"machine time ({unit})", "{:.3g}"
        grid = result.grid(name) * scale
        ax = fig.add_subplot(1, len(panels), k + 1, gid=name)          # on a slide: grid-<name>.png
        finite = grid[np.isfinite(grid)]
        # a change is signed: red up, blue down, as a weight; the others one-sided scales
        cmap = WEIGHT_CMAP if name == "change" else ("viridis" if name == "test" else "magma")
        if name == "change" and finite.size:
            top = max(abs(finite).max(), 1e-9)
            im = ax.imshow(grid, cmap=cmap, vmin=-top, vmax=top, aspect="auto", origin="upper")
        else:
            im = ax.imshow(grid, cmap=cmap, aspect="auto", origin="upper")
        norm = im.norm
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                if np.isfinite(grid[i, j]):
                    r, g, bl, _ = im.cmap(norm(grid[i, j]))
                    dark = 0.299 * r + 0.587 * g + 0.114 * bl < 0.5
                    text = fmt.format(grid[i, j])
                    row = cells[(i, j)]
                    if name == "change" and (i, j) != ref and row["change_low"] is not None:
                        text += f"\n[{100 * row['change_low']:+.1f}, {100 * row['change_high']:+.1f}]"
                    # a halo in the cell's own colour hides the hatch behind the figures
                    ax.text(j, i, text, ha="center", va="center", fontsize=8 if "\n" not in text else 7,
                            color="white" if dark else "black",
                            path_effects=[withStroke(linewidth=3.0, foreground=(r, g, bl))])
        if name in ("test", "change"):
            for i, j in undecided:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1.0, 1.0, fill=False, hatch="///", edgecolor="0.35",
                                       linewidth=0, gid=f"undecided:{i},{j}"))
        ax.add_patch(_outline(ref))
        ax.set_xticks(range(len(vb)))
        ax.set_xticklabels([label(v) for v in vb], fontsize=8, rotation=45 if len(vb) > 5 else 0)
        ax.set_yticks(range(len(va)))
        ax.set_yticklabels([label(v) for v in va], fontsize=8)
        ax.set_xlabel(_param_label(b))
        ax.set_ylabel(_param_label(a))
        ax.set_title(title, fontsize=9)
        fig.colorbar(im, ax=ax, shrink=0.85)
    # wrapped to the figure's width: two small panels are narrower than the scene's name and the
    # parameters in one line, which ran off both edges
    chars = max(30, int(fig.get_figwidth() * 12))
    fig.suptitle("\n".join([*textwrap.wrap(f"{result.scene} — {a} × {b}", chars),
                            *textwrap.wrap(f"mean over {len(result.seeds)} paired seed(s) (outlined: the scene's own "
                                           "values)" + ("; hatched: " + (
                                               f"too few seeds (n = {min(r['n'] for r in summary)}) for an "
                                               "interval, no verdict" if few else
                                               "the paired change from the outlined cell is not distinguishable "
                                               f"from 0 (its interval, adjusted over the cells ({result.correction}), "
                                               "includes 0)") if undecided and {"test", "change"} & set(panels)
                                               else ""), chars)]),
                 fontsize=10)
    fig.tight_layout()
    return _saved(fig, out, dpi=110)


def _outline(cell) -> Rectangle:
    """A black frame with a white edge around the heat map's cell (row, column): it shows on every
    colour map, and is not the red of a positive change."""
    return Rectangle((cell[1] - 0.48, cell[0] - 0.48), 0.96, 0.96, fill=False, edgecolor="k", linewidth=2.2,
                     path_effects=[withStroke(linewidth=4.2, foreground="white")])


#: How each reading of the re-enactment is drawn: prefix -> (marker, offset in rows, label).
_REENACT_MARKS = {"": ("o", 0.0, "mark1-512"), "alt_": ("^", 0.0, "mark1-4096"),
                  "split64_": ("v", 0.0, "mark1-512-split-64"), "ratchet_": ("P", 0.0, "mark1-512-ratchet"),
                  "bits_": ("*", 0.0, "mark1-512-bits (1958 code)"), "ideal_": ("s", 0.0, "ibm704")}


def reenact_figure(result: Reenactment, *, out: str | os.PathLike | None = None) -> Figure:
    """Every scene on one accuracy axis: its band, its report, each machine built and each reading's mean.

    One row per scene: the band (grey; hatched where it is the project's own, for a report
    without a number) and the reported figure (a black tick, a triangle for a lower bound,
    drawn under the marks so it hides none); each seed's own result (one machine built) under
    each reading the report is counted on (dots); the mean of every reading with its interval
    at the family's adjusted level (one marker per reading; the counted ones filled and
    coloured by their verdict: red out of band, orange unclear, green within; the others
    open, grey), the digital learner's mean (open circle). Written at the right: the
    machines in band under each counted reading and the verdict as one machine.

    Parameters
    ----------
    result : mark1.lab.Reenactment
    out : str or path-like, optional
        Where to save the figure; :func:`mark1.lab.reenact` puts it beside its page
        (``reenactment.png`` beside ``REENACTMENT.md``).

    Returns
    -------
    matplotlib.figure.Figure
        One axes, one row per scene.

    Examples
    --------
    >>> from mark1.lab import reenact
    >>> result = reenact(["scenes/e_vs_x.toml"], seeds=2, train_count=4, test_count=4)
    >>> ax = reenact_figure(result).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['X vs E, rotation up to 30 degrees, 20 training cards [new cards]']
    """
    rows = result.rows()
    slide = slide_style() is not None             # on a slide: taller rows, the scenes' names and the title wrapped
    fig = new_figure(10.5, 1.8 + (1.1 if slide else 0.62) * len(rows))
    ax = fig.add_subplot(1, 1, 1)
    colors = {"within": "tab:green", "unclear": "tab:orange", "OUT OF BAND": "tab:red"}
    seen: set = set()

    def once(label):
        if label in seen:
            return None
        seen.add(label)
        return label

    lows = []
    for i, (r, sc) in enumerate(zip(rows, result.scenes)):
        y = len(rows) - 1 - i
        own = r["project_band"]
        ax.fill_betweenx([y - 0.36, y + 0.36], r["band_low"] * 100, r["band_high"] * 100,
                         facecolor="0.94" if own else "0.85", hatch="///" if own else None, edgecolor="0.7",
                         linewidth=0.5 if own else 0, zorder=0,
                         label=once("the project's band (no number reported)" if own else "band of the report"))
        if r["reported"] is not None:
            ax.scatter([r["reported"] * 100], [y + 0.3], marker=">" if r["lower_bound"] else "|", s=70,
                       color="k", linewidths=1.5, zorder=1, label=once("reported"))
        counted = r["counted"]
        for j, prefix in enumerate(counted):
            acc = np.array(sc.accuracies(prefix)) * 100
            dy = -0.3 + 0.12 * j
            ax.scatter(acc, np.full(len(acc), y + dy), s=8, color="0.35", alpha=0.5, zorder=1,
                       label=once("one machine built (a seed), counted reading"))
            lows += list(acc / 100)
        present = [p for p in _REENACT_MARKS if not math.isnan(r[f"{p}mean"])]
        for k, prefix in enumerate(present):
            marker, _, name = _REENACT_MARKS[prefix]
            m = r[f"{prefix}mean"]
            dy = -0.14 + 0.28 * k / max(1, len(present) - 1)
            judged_here = prefix in counted
            c = colors.get(r[f"{prefix or 'analog_'}verdict"], "0.35") if judged_here else "0.45"
            err = (None if math.isnan(r[f"{prefix}low"])
                   else [[(m - r[f"{prefix}low"]) * 100], [(r[f"{prefix}high"] - m) * 100]])
            ax.errorbar([m * 100], [y + dy], xerr=err, fmt=marker, color=c, markersize=7 if judged_here else 5,
                        mfc=c if judged_here else "none", capsize=2, zorder=3, elinewidth=1.2 if judged_here else 0.7)
            lows += [m] + ([r[f"{prefix}low"]] if not math.isnan(r[f"{prefix}low"]) else [])
        ax.scatter([r["digital_mean"] * 100], [y - 0.2], s=22, facecolors="none", edgecolors=LEARNER_COLOURS["digital"],
                   zorder=2, label=once("digital learner (same retina and wiring), mean"))
        keys = [p or "analog_" for p in counted]
        shares = "; ".join(f"{r[k + 'share_k']}/{r[k + 'share_n']}" for k in keys)
        ax.text(1.01, y, f"{shares} in band:\n{r['share_verdict']}", transform=ax.get_yaxis_transform(),
                fontsize=7, va="center", ha="left")
        lows.append(r["band_low"])
    for marker, _, name in _REENACT_MARKS.values():
        ax.errorbar([], [], xerr=[], fmt=marker, color="0.45", mfc="none", label=f"{name}: mean, interval")
    for v, c in colors.items():
        ax.errorbar([], [], xerr=[], fmt="o", color=c, label=f"counted reading (filled): {v.lower()}")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(["\n".join(textwrap.wrap(f"{r['scene']} [{'recall' if r['scored'] == 'train' else 'new cards'}]",
                                                 30 if slide else 200)) for r in reversed(rows)], fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    accuracy_axis(ax, accuracy_low(100.0 * np.asarray(lows, dtype=float)), which="x",
                  label="accuracy on new cards, or recall of the trained cards where the report scored recall")
    ax.grid(axis="x", alpha=0.3)
    if slide:                                   # on a slide the key is a slide of its own: reenact-key.png
        handles, labels = ax.get_legend_handles_labels()
        key = fig.add_axes((0.0, 0.0, 0.01, 0.01), gid="key")
        key.set_axis_off()
        key.legend(handles, labels, fontsize=7, frameon=False, loc="upper left")
    else:
        # below the axes and their label (the right margin holds the machines-in-band column), placed
        # once the layout has set the label's place
        legend = ax.legend(fontsize=7, frameon=False, loc="upper center", ncol=3)
    named = sum(r["machine"] in ("mark1", "ibm704") for r in rows)
    ax.set_title("\n".join(textwrap.wrap(
        f"each report against the readings it is counted on (the sources name one machine for {named} of "
        f"{len(rows)} scenes) — {len(result.seeds)} seed(s); counted intervals at Holm's levels; "
        f"right: machines in band, as one machine", 60 if slide else 110)), fontsize=9)
    if not slide:
        fig.tight_layout()
        _below_the_axis(ax, legend)
    return _saved(fig, out, dpi=120, bbox_inches="tight")


def _below_the_axis(ax, legend) -> None:
    """Put ``legend`` (anchored at its upper centre) just under ``ax``'s x-axis: ticks and label."""
    renderer = ax.figure.canvas.get_renderer()
    box = ax.xaxis.get_tightbbox(renderer)
    bottom = box.y0 if box is not None else ax.get_window_extent(renderer).y0
    y = ax.transAxes.inverted().transform((0.0, bottom - 4.0 * ax.figure.dpi / 72))[1]
    legend.set_bbox_to_anchor((0.5, y), transform=ax.transAxes)
