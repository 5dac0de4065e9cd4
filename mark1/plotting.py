"""Figures (matplotlib, Agg backend, object API only: no pyplot state).

matplotlib is imported here and nowhere else in the package; the machine's core never
imports this module. Every function returns a :class:`matplotlib.figure.Figure` and,
when given ``out``, saves it atomically (a temporary file in the same folder, then
``os.replace``), so a figure file is either complete or absent.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .atomic import atomic_path

__all__ = ["contact_sheet"]


# ----------------------------------------------------------------------------------------
# helpers shared by the figures


def _new_figure(width: float, height: float) -> Figure:
    """A Figure attached to an Agg canvas (no pyplot, no global state)."""
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _save_atomic(fig: Figure, out, **kwargs) -> None:
    """Save ``fig`` to ``out`` atomically; the format follows the file ending (PNG if none)."""
    out = Path(out)
    fmt = out.suffix.lstrip(".").lower() or "png"
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format=fmt, **kwargs)


# ----------------------------------------------------------------------------------------
# contact sheet: cards beside what the retina makes of them


def contact_sheet(scene, *, seed: int = 0, per_class: int = 4, out=None) -> Figure:
    """Sample training cards of every class beside what the retina makes of them.

    For each card three small panels: the card (reflectance, white paper), the light on
    the 20×20 photocells (illuminance relative to paper white under nominal lamps, from
    ``MarkI.retina.illuminance``) and the S-units that fire (``MarkI.sense``, black =
    firing). One row per class.

    Parameters
    ----------
    scene : mark1.scenes.Scene
    seed : int
        Seed for the cards (train split) and for the machine (photocell spread).
    per_class : int
        Cards shown per class (1 to 12).
    out : str or path-like, optional
        Where to save the figure (PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        For a bad ``per_class``; :class:`mark1.scenes.SceneError` for a bad seed.
    """
    from .machine import MarkI

    if isinstance(per_class, bool) or not isinstance(per_class, (int, np.integer)) or not 1 <= per_class <= 12:
        raise ValueError(f"per_class: expected an integer from 1 to 12, got {per_class!r}")
    classes = list(scene.classes)
    stim = scene.stimuli("train", seed=seed, count=per_class * len(classes))
    picks = [np.flatnonzero(stim.labels == c)[:per_class] for c in classes]
    order = np.concatenate(picks)
    cards = stim.cards[order]

    machine = MarkI(spec=scene.machine_spec(), seed=seed)
    illum = np.asarray(machine.retina.illuminance(cards))
    rows, cols = illum.shape[-2:]
    s_units = np.asarray(machine.sense(cards), dtype=bool).reshape(len(cards), rows, cols)
    light_max = max(1.0, float(illum.max()))

    n_cls = len(classes)
    ncols = 3 * per_class
    fig = _new_figure(width=1.0 + 0.95 * ncols, height=0.8 + 1.05 * n_cls)
    grid = fig.add_gridspec(n_cls, ncols, wspace=0.08, hspace=0.25,
                            left=0.6 / (1.0 + 0.95 * ncols), right=0.99,
                            top=1 - 0.55 / (0.8 + 1.05 * n_cls), bottom=0.02)
    titles = ("card", "light on cells", "S-units")
    i = 0
    for r, (c, p) in enumerate(zip(classes, picks)):
        for j in range(per_class):
            panels = (
                (cards[i], dict(cmap="gray", vmin=0.0, vmax=1.0)),
                (illum[i], dict(cmap="gray", vmin=0.0, vmax=light_max)),
                (~s_units[i], dict(cmap="gray", vmin=0, vmax=1)),
            ) if j < len(p) else ()
            for t in range(3):
                ax = fig.add_subplot(grid[r, 3 * j + t])
                ax.set_xticks([])
                ax.set_yticks([])
                if panels:
                    img, kw = panels[t]
                    ax.imshow(img, interpolation="nearest", **kw)
                else:
                    ax.set_axis_off()
                if r == 0:
                    ax.set_title(titles[t], fontsize=7)
                if j == 0 and t == 0:
                    ax.set_ylabel(str(c), rotation=0, ha="right", va="center", fontsize=10)
            if j < len(p):
                i += 1
    fig.suptitle(f"{scene.name} — training cards (seed {seed}) and what the retina makes of them",
                 fontsize=9)
    if out is not None:
        _save_atomic(fig, out, dpi=110)
    return fig


# ----------------------------------------------------------------------------------------
# experiments: comparison, learning curves, ablation (mark1.experiments)

__all__ += ["comparison_figure", "learning_curves_figure", "ablation_figure"]

_VARIANT_COLORS = {"analog": "tab:red", "ideal": "tab:blue"}


def comparison_figure(comparison, *, out=None) -> Figure:
    """Test accuracy of every learner of a :class:`mark1.experiments.Comparison`.

    One row per learner: a dot per seed, the mean with a ±std bar, and the scene's
    reported figure as a dashed vertical line when there is one.

    Parameters
    ----------
    comparison : mark1.experiments.Comparison
    out : str or path-like, optional
        Where to save the figure (PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure
        One axes.
    """
    learners = list(comparison.learners)
    summary = comparison.summary()
    fig = _new_figure(6.4, 1.2 + 0.38 * len(learners))
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
            ax.errorbar([s["mean"]], [y], xerr=[[s["std"] or 0.0], [s["std"] or 0.0]], fmt="D",
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
        _save_atomic(fig, out, dpi=120)
    return fig


def learning_curves_figure(curves, *, out=None) -> Figure:
    """Test accuracy against cards presented and against machine hours, analog and ideal.

    Two panels. Each variant of a :class:`mark1.experiments.LearningCurves` is drawn as
    its mean over seeds (line with markers) and a min–max band over seeds; in the right
    panel the x position of a checkpoint is its mean machine time over seeds. The
    scene's reported figure, when there is one, is a dashed horizontal line.

    Parameters
    ----------
    curves : mark1.experiments.LearningCurves
    out : str or path-like, optional

    Returns
    -------
    matplotlib.figure.Figure
        Two axes, one mean line per variant on each.
    """
    fig = _new_figure(10.0, 3.8)
    ax_cards = fig.add_subplot(1, 2, 1)
    ax_time = fig.add_subplot(1, 2, 2, sharey=ax_cards)
    cards = np.asarray(curves.cards, dtype=float)
    for v in curves.accuracy:
        acc = np.asarray(curves.accuracy[v], dtype=float)            # (seeds, points)
        hours = np.asarray(curves.machine_hours[v], dtype=float).mean(axis=0)
        color = _VARIANT_COLORS.get(v)
        mean, lo, hi = acc.mean(axis=0), acc.min(axis=0), acc.max(axis=0)
        for ax, x in ((ax_cards, cards), (ax_time, hours)):
            ax.fill_between(x, lo, hi, color=color, alpha=0.2, linewidth=0)
            ax.plot(x, mean, marker="o", markersize=3, color=color, label=f"{v} (mean, min–max band)")
    if curves.reported is not None:
        for ax in (ax_cards, ax_time):
            ax.axhline(curves.reported, color="k", linestyle="--", linewidth=1,
                       label=f"reported {curves.reported:.1%}")
    ax_cards.set_xlabel("cards presented")
    ax_cards.set_ylabel("test accuracy")
    ax_time.set_xlabel("machine time (hours)")
    for ax in (ax_cards, ax_time):
        ax.grid(alpha=0.3)
    ax_cards.legend(fontsize=8, frameon=False, loc="lower right")
    fig.suptitle(f"{curves.scene} — learning curves over {len(curves.seeds)} seed(s)", fontsize=9)
    fig.tight_layout()
    if out is not None:
        _save_atomic(fig, out, dpi=120)
    return fig


def ablation_figure(result, *, out=None) -> Figure:
    """Which non-ideality costs most: a :class:`mark1.experiments.Ablation` as bars.

    Left panel: test accuracy with each non-ideality alone on the ideal machine and
    alone off the full machine (horizontal bars, ±std whiskers), with the ideal and full
    machines as vertical reference lines; the non-idealities are sorted by cost
    (ideal minus "on alone"), the costliest on top. Right panel: machine time in hours
    for the same variants.

    Parameters
    ----------
    result : mark1.experiments.Ablation
    out : str or path-like, optional

    Returns
    -------
    matplotlib.figure.Figure
        Two axes with ``2 * len(result.non_idealities)`` bars each.
    """
    ideal, full = result.row("ideal"), result.row("full")
    names = list(result.non_idealities)

    def cost(n):
        on = result.row(f"on:{n}")["test_mean"]
        return (ideal["test_mean"] or 0.0) - (on if on is not None else 0.0)

    names.sort(key=cost)                                   # costliest last = on top
    y = np.arange(len(names), dtype=float)
    h = 0.38
    fig = _new_figure(10.0, 2.2 + 0.42 * max(len(names), 1))
    ax_acc = fig.add_subplot(1, 2, 1)
    ax_time = fig.add_subplot(1, 2, 2, sharey=ax_acc)
    kinds = (("on", "alone on (ideal + it)", "tab:orange", +h / 2),
             ("off", "alone off (full − it)", "tab:green", -h / 2))
    for prefix, label, color, dy in kinds:
        rows = [result.row(f"{prefix}:{n}") for n in names]
        acc = [r["test_mean"] or 0.0 for r in rows]
        acc_err = [r["test_std"] or 0.0 for r in rows]
        hours = [r["machine_time_h_mean"] or 0.0 for r in rows]
        hours_err = [r["machine_time_h_std"] or 0.0 for r in rows]
        ax_acc.barh(y + dy, acc, height=h, xerr=acc_err, color=color, label=label,
                    error_kw=dict(elinewidth=0.8, capsize=2))
        ax_time.barh(y + dy, hours, height=h, xerr=hours_err, color=color, label=label,
                     error_kw=dict(elinewidth=0.8, capsize=2))
    for ref, style, name in ((ideal, ":", "ideal"), (full, "--", "full")):
        if ref["test_mean"] is not None:
            ax_acc.axvline(ref["test_mean"], color="k", linestyle=style, linewidth=1,
                           label=f"{name} {ref['test_mean']:.1%}")
        if ref["machine_time_h_mean"] is not None:
            ax_time.axvline(ref["machine_time_h_mean"], color="k", linestyle=style, linewidth=1,
                            label=f"{name} {ref['machine_time_h_mean']:.3g} h")
    ax_acc.set_yticks(y)
    ax_acc.set_yticklabels(names, fontsize=8)
    ax_acc.set_xlabel("test accuracy")
    ax_time.set_xlabel("machine time (hours)")
    lo = min([r["test_mean"] for r in result.rows if r["test_mean"] is not None] or [0.0])
    ax_acc.set_xlim(max(0.0, lo - 0.1), 1.005)
    ax_time.tick_params(labelleft=False)
    for ax in (ax_acc, ax_time):
        ax.grid(axis="x", alpha=0.3)
        ax.legend(fontsize=7, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    fig.suptitle(f"{result.scene} — which non-ideality costs most ({len(result.seeds)} seed(s), "
                 f"costliest on top)", fontsize=9)
    fig.tight_layout()
    if out is not None:
        _save_atomic(fig, out, dpi=120)
    return fig


# ----------------------------------------------------------------------------------------
# one training run: the learning curve

def learning_curve(history, *, title: str = "", test_accuracy: float | None = None,
                   reported: float | None = None, window: int | None = None, out=None) -> Figure:
    """Training accuracy against cards presented, with machine time on the top axis.

    Parameters
    ----------
    history : structured array
        ``MarkI.history_`` (fields ``correct``, ``epoch``, ``start``).
    title : str
    test_accuracy : float, optional
        Drawn as a horizontal line.
    reported : float, optional
        The historical figure the scene re-enacts, drawn as a dashed line.
    window : int, optional
        Presentations in the running average (default: one epoch).
    out : path, optional
        Where to save the figure (atomically).

    Returns
    -------
    matplotlib.figure.Figure
    """
    correct = np.asarray(history["correct"], dtype=float)
    n = len(correct)
    per_epoch = int(np.sum(history["epoch"] == 0)) if n else 1
    window = max(1, min(window or per_epoch, n))
    kernel = np.ones(window) / window
    running = np.convolve(correct, kernel, mode="full")[:n]
    running[:window - 1] = np.cumsum(correct)[:window - 1] / np.arange(1, window)
    x = np.arange(1, n + 1)
    fig = _new_figure(7.5, 4.2)
    fig.set_layout_engine("constrained")
    ax = fig.add_subplot()
    ax.plot(x, running, color="tab:blue", lw=1.8, label=f"training accuracy (last {window} cards)")
    wrong = np.flatnonzero(correct == 0)
    ax.plot(wrong + 1, np.zeros_like(wrong, dtype=float) - 0.03, "|", color="tab:red", ms=8,
            label="wrong answer (trainer reinforces)")
    if test_accuracy is not None:
        ax.axhline(test_accuracy, color="tab:green", lw=1.5, label=f"test accuracy {test_accuracy:.1%}")
    if reported is not None:
        ax.axhline(reported, color="0.3", lw=1.2, ls="--", label=f"reported {reported:.1%}")
    ax.set_xlabel("cards presented")
    ax.set_ylabel("fraction correct")
    ax.set_ylim(-0.07, 1.05)
    ax.set_xlim(0, n + 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    if n > 1 and history["start"][-1] > 0:
        hours = np.asarray(history["start"]) / 3600.0        # strictly increasing
        top = ax.secondary_xaxis("top", functions=(lambda p: np.interp(p, x, hours),
                                                   lambda h: np.interp(h, hours, x)))
        top.set_xlabel("machine time (hours)")
    ax.set_title(title, fontsize=11)
    if out is not None:
        _save_atomic(fig, out, dpi=120)
    return fig
