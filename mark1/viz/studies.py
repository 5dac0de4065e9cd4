"""The studies' figures: the machine beside the textbook classifiers, learning curves,
ablations (matplotlib's object API, no pyplot; each saved atomically when given ``out``)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from mark1.viz.figure import new_figure, save_figure

__all__ = ["comparison_figure", "learning_curves_figure", "ablation_figure"]


_VARIANT_COLORS = {"analog": "tab:red", "ideal": "tab:blue"}


def comparison_figure(comparison, *, out=None) -> Figure:
    """Test accuracy of every learner of a :class:`mark1.lab.compare.Comparison`.

    One row per learner: a dot per seed, the mean with a ±std bar, and the scene's
    reported figure as a dashed vertical line when there is one.

    Parameters
    ----------
    comparison : mark1.lab.compare.Comparison
    out : str or path-like, optional
        Where to save the figure (PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure
        One axes.
    """
    learners = list(comparison.learners)
    summary = comparison.summary()
    fig = new_figure(6.4, 1.2 + 0.38 * len(learners))
    ax = fig.add_subplot(1, 1, 1)
    for i, name in enumerate(learners):
        y = len(learners) - 1 - i
        accs = [r["test_accuracy"] for r in comparison.records
                if r["learner"] == name and r["test_accuracy"] is not None]
        color = "tab:red" if name == "mark1" else "tab:blue" if name == "ideal" else "0.35"
        if accs:
            ax.scatter(accs, np.full(len(accs), y), s=14, color=color, alpha=0.5, zorder=2)
        s = summary[name]
        if s["mean"] is not None:
            sd = s["std"] or 0.0                          # the bar stops at 0 and 1 (accuracies)
            ax.errorbar([s["mean"]], [y], xerr=[[min(sd, s["mean"])], [min(sd, 1.0 - s["mean"])]], fmt="D",
                        color=color, markersize=5, capsize=3, zorder=3)
    rep = comparison.reported.get("value") if comparison.reported else None
    if rep is not None:
        ax.axvline(rep, color="k", linestyle="--", linewidth=1, label=f"reported {rep:.1%}")
        ax.legend(loc="lower left", fontsize=8, frameon=False)
    ax.set_yticks(range(len(learners)))
    ax.set_yticklabels(list(reversed(learners)), fontsize=8)
    ax.set_ylim(-0.6, len(learners) - 0.4)
    ax.set_xlabel("test accuracy")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"{comparison.scene} — {len(comparison.seeds)} seed(s), mean ± std", fontsize=9)
    fig.tight_layout()
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig


def learning_curves_figure(curves, *, out=None) -> Figure:
    """Test accuracy against cards presented and against machine hours, analog and ideal.

    Two panels. Each variant of a :class:`mark1.lab.curves.LearningCurves` is drawn as
    its mean over seeds (line with markers) and a min–max band over seeds; in the right
    panel the x position of a checkpoint is its mean machine time over seeds. The
    scene's reported figure, when there is one, is a dashed horizontal line.

    Parameters
    ----------
    curves : mark1.lab.curves.LearningCurves
    out : str or path-like, optional

    Returns
    -------
    matplotlib.figure.Figure
        Two axes, one mean line per variant on each.
    """
    fig = new_figure(10.0, 3.8)
    ax_cards = fig.add_subplot(1, 2, 1)
    ax_time = fig.add_subplot(1, 2, 2, sharey=ax_cards)
    cards = np.asarray(curves.cards, dtype=float)
    band = " (mean, min–max band)" if len(curves.seeds) > 1 else ""
    lowest = 1.0
    for v in curves.accuracy:
        acc = np.asarray(curves.accuracy[v], dtype=float)            # (seeds, points)
        hours = np.asarray(curves.machine_hours[v], dtype=float).mean(axis=0)
        color = _VARIANT_COLORS.get(v)
        mean, lo, hi = acc.mean(axis=0), acc.min(axis=0), acc.max(axis=0)
        for ax, x in ((ax_cards, cards), (ax_time, hours)):
            ax.fill_between(x, lo, hi, color=color, alpha=0.2, linewidth=0)
            ax.plot(x, mean, marker="o", markersize=3, color=color, label=f"{v}{band}", zorder=3)
        lowest = min(lowest, float(lo.min()))
    if curves.reported is not None:
        for ax in (ax_cards, ax_time):
            ax.axhline(curves.reported, color="0.25", linestyle="--", linewidth=1, zorder=1,
                       label=f"reported {curves.reported:.1%}")     # under the curves, never hiding them
    # from 0.5 (chance for two classes) or below, so that small gaps do not look large
    ax_cards.set_ylim(min(0.5, lowest - 0.05), 1.01)
    ax_cards.set_xlim(left=0)                               # training starts at the origin
    ax_time.set_xlim(left=0)
    ax_cards.set_xlabel("cards presented")
    ax_cards.set_ylabel("test accuracy")
    ax_time.set_xlabel("machine time (hours)")
    for ax in (ax_cards, ax_time):
        ax.grid(alpha=0.3)
    ax_cards.legend(fontsize=8, frameon=False, loc="lower right")
    fig.suptitle(f"{curves.scene} — learning curves over {len(curves.seeds)} seed(s)", fontsize=9)
    fig.tight_layout()
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig


def ablation_figure(result, *, out=None) -> Figure:
    """Which non-ideality costs most: the table of a :class:`mark1.lab.ablate.Ablation`, drawn.

    One row per non-ideality, two marks per row, one per arm: "alone on" (the ideal
    machine with only it on, circles) and "alone off" (the full machine with only it
    off, squares). Each mark is the arm's mean cost in points lost because of the
    non-ideality (``cost_points``; positive hurts), with its 95 % paired t-interval
    (``cost_low`` to ``cost_high``) as a bar and the per-seed costs as small dots. The
    verdict shows in the mark: filled when the interval excludes 0 ("costs points" or
    "gains points"), hollow and grey when it is "not distinguishable from 0", a black
    × on the zero line when it is "exactly 0" on every seed, no bar for one seed. The
    rows are sorted by the larger of the two costs, the costliest on top; a row
    without a result says "(no result)" and goes to the bottom.

    A second panel, machine time added by the non-ideality (hours; the same sign
    convention: (ideal + it) − ideal, full − (full − it)), is drawn only when some
    arm's machine time differs from its reference's (``machine_time_h_change`` not
    None); otherwise the title says machine time is the same in every arm.

    Parameters
    ----------
    result : mark1.lab.ablate.Ablation
    out : str or path-like, optional

    Returns
    -------
    matplotlib.figure.Figure
        One or two axes. On the cost axes the mark of variant ``"on:NAME"`` is the
        line with gid ``"on:NAME"`` (x = ``cost_points``), its interval the line with
        gid ``"on:NAME:interval"`` (x = ``cost_low``, ``cost_high``); likewise on the
        time axes with gid ``"time:on:NAME"``.
    """
    from matplotlib.lines import Line2D

    from mark1.lab.ablate import VERDICTS
    from mark1.lab.stats import mean_interval

    names = list(result.non_idealities)
    arms = (("on", "alone on: ideal + it vs ideal", "tab:orange", "o", +0.18),
            ("off", "alone off: full − it vs full", "tab:blue", "s", -0.18))

    def cost(n, prefix):
        c = result.row(f"{prefix}:{n}").get("cost_points")
        return None if c is None or c != c else c

    def rank(n):
        cs = [c for c in (cost(n, p) for p, *_ in arms) if c is not None]
        return max(cs) if cs else -np.inf                 # no result: at the bottom

    names.sort(key=rank)                                  # costliest last = on top

    def label(n):
        gone = [f"alone {p}" for p, *_ in arms if cost(n, p) is None]
        return n + ("" if not gone else " (no result)" if len(gone) == 2 else f" ({gone[0]}: no result)")

    def hours_added(prefix, r):
        """Mean machine time added by the non-ideality (h) and its 95 % interval, or None."""
        if r.get("machine_time_h_change") is None:
            return None
        sign = 1.0 if prefix == "on" else -1.0            # on: variant - ideal; off: full - variant
        ref = result.row(r["reference"]) if r.get("reference") else None
        per_seed = r.get("machine_time_s")
        if ref is not None and per_seed and ref.get("machine_time_s"):
            d = [sign * (a - b) / 3600.0 for a, b in zip(per_seed, ref["machine_time_s"])]
            m, lo, hi = mean_interval(d)
            return m, lo, hi
        return sign * r["machine_time_h_change"], np.nan, np.nan

    times = {(p, n): hours_added(p, result.row(f"{p}:{n}")) for n in names for p, *_ in arms}
    show_time = any(v is not None for v in times.values())
    width = 13.0 if show_time else 10.0
    fig = new_figure(width, 2.6 + 0.55 * max(len(names), 1))
    if show_time:
        grid = fig.add_gridspec(1, 2, width_ratios=(1.6, 1.0))
        ax = fig.add_subplot(grid[0, 0])
        ax_time = fig.add_subplot(grid[0, 1], sharey=ax)
    else:
        ax, ax_time = fig.add_subplot(1, 1, 1), None
    y = np.arange(len(names), dtype=float)
    grey = "0.55"
    for axis in [ax] + ([ax_time] if ax_time is not None else []):
        axis.axvline(0.0, color="k", linewidth=1.0, zorder=1)
        for yy in y[1:]:
            axis.axhline(yy - 0.5, color="0.85", linewidth=0.8, zorder=0)
    for prefix, _, color, marker, dy in arms:
        for n, yy in zip(names, y + dy):
            variant = f"{prefix}:{n}"
            r = result.row(variant)
            c = cost(n, prefix)
            if c is None:
                continue
            verdict = r.get("verdict")
            per_seed = r.get("costs") or []
            if per_seed and verdict != "zero":
                ax.plot(per_seed, [yy] * len(per_seed), linestyle="none", marker="o", markersize=3.5,
                        color="k", alpha=0.7, zorder=3.5)
            if verdict == "zero":
                ax.plot([c], [yy], linestyle="none", marker="x", markersize=9, markeredgewidth=2,
                        color="k", zorder=4, gid=variant)
                continue
            lo, hi = r.get("cost_low"), r.get("cost_high")
            solid = verdict in ("cost", "gain", "one")
            if lo is not None and hi is not None and lo == lo and hi == hi:
                ax.plot([lo, hi], [yy, yy], color=color if solid else grey, linewidth=2.2,
                        solid_capstyle="butt", zorder=3, gid=f"{variant}:interval")
            ax.plot([c], [yy], linestyle="none", marker=marker, markersize=9, markeredgewidth=1.8,
                    color=color if solid else grey, markerfacecolor=color if solid else "white",
                    zorder=4, gid=variant)
        if ax_time is not None:
            for n, yy in zip(names, y + dy):
                t = times[(prefix, n)]
                if cost(n, prefix) is None:
                    continue
                if t is None:
                    ax_time.text(0.0, yy, "  same", color=grey, fontsize=10, ha="left", va="center")
                    continue
                m, lo, hi = t
                if lo == lo and hi == hi:
                    ax_time.plot([lo, hi], [yy, yy], color=color, linewidth=2.2, solid_capstyle="butt",
                                 zorder=3, gid=f"time:{prefix}:{n}:interval")
                ax_time.plot([m], [yy], linestyle="none", marker=marker, markersize=9, color=color,
                             zorder=4, gid=f"time:{prefix}:{n}")
    ax.set_yticks(y)
    ax.set_yticklabels([label(n).replace("_", " ") for n in names], fontsize=11)
    ax.set_ylim(-0.6, max(len(names), 1) - 0.4)
    if not names:
        ax.text(0.5, 0.5, "this machine has no non-ideality on", transform=ax.transAxes,
                ha="center", va="center", fontsize=11)
    # symmetric about 0, so that a gain looks as large as a cost of the same size
    extent = [abs(v) for n in names for p, *_ in arms
              for v in (result.row(f"{p}:{n}").get(k) for k in ("cost_low", "cost_high", "cost_points"))
              if v is not None and v == v]
    extent += [abs(v) for n in names for p, *_ in arms for v in (result.row(f"{p}:{n}").get("costs") or [])]
    lim = max(extent + [1.0]) * 1.1
    ax.set_xlim(-lim, lim)
    ax.set_xlabel("cost: points of test accuracy lost because of it  (← gains   hurts →)", fontsize=11)
    ax.tick_params(labelsize=10)
    ax.grid(axis="x", alpha=0.3)
    handles = [Line2D([], [], linestyle="none", marker=m, markersize=9, color=c, label=lab)
               for _, lab, c, m, _ in arms]
    handles += [Line2D([], [], color="0.3", marker="o", markersize=9, linewidth=2.2, markerfacecolor="0.3",
                       label="95 % interval excludes 0 (filled)"),
                Line2D([], [], color=grey, marker="o", markersize=9, linewidth=2.2, markerfacecolor="white",
                       label=VERDICTS["null"] + " (hollow, grey)"),
                Line2D([], [], linestyle="none", marker="x", markersize=9, markeredgewidth=2, color="k",
                       label="exactly 0 on every seed"),
                Line2D([], [], linestyle="none", marker="o", markersize=3.5, color="k", alpha=0.7,
                       label="cost on one seed")]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=10, frameon=False)
    title = (f"{result.scene} — which non-ideality costs most\n{len(result.seeds)} paired seed(s): "
             "mean cost with its 95 % t-interval, costliest on top")
    if ax_time is not None:
        ax_time.set_xlabel("machine time added by it (hours)", fontsize=11)
        ax_time.tick_params(labelleft=False, labelsize=10)
        ax_time.grid(axis="x", alpha=0.3)
        ax_time.set_title("machine time (only arms that change it)", fontsize=11)
    else:
        refs = {result.row(v)["machine_time_h_mean"] for v in ("full", "ideal")} - {None}
        title += ("\nmachine time the same as its reference in every arm"
                  + (f" ({refs.pop():.3g} h)" if len(refs) == 1 else ""))
    fig.suptitle(title, fontsize=12)
    fig.tight_layout(rect=(0, 0.75 / fig.get_figheight(), 1, 1))       # room for the two-row legend
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig
