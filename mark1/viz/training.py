"""One training run: its learning curve, and a film of it (an animated GIF)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator
from PIL import Image

from mark1._utils.atomic import atomic_path
from mark1._utils.language import (FIRING, MISTAKE, NEGATIVE, NEUTRAL, POSITIVE, SILENT, WEIGHT_CMAP, ZERO,
                                   duration, duration_unit, percent, unit_grid)
from mark1._utils.progress import progress_bar
from mark1.exceptions import InputError, InputTypeError
from mark1.machine.mark_i import MarkI
from mark1.specs import MachineSpec
from mark1.viz.figure import accuracy_axis, new_figure, save_figure
from mark1.viz.machine import _lamps, _projected_weights

__all__ = ["learning_curve", "training_animation"]


# ----------------------------------------------------------------------------------------
# the learning curve

def _accuracy_with_mistakes(ax) -> None:
    """The accuracy axis (in %, from 0) with room below 0 for the mistake ticks, drawn at -3."""
    accuracy_axis(ax)
    ax.set_ylim(-7.0, 105.0)
    ax.set_yticks(np.arange(0, 101, 20))


_HISTORY_FIELDS = ("correct", "label", "epoch", "start")


def _history(history) -> np.ndarray:
    """A run's history from ``MarkI.history_`` or a fitted machine; one line if it is neither."""
    if isinstance(history, MarkI):
        history._check_fitted()                 # NotFittedError, one line, when it is not trained
        return history.history_
    names = getattr(getattr(history, "dtype", None), "names", None) or ()
    missing = [f for f in _HISTORY_FIELDS if f not in names]
    if missing:
        raise InputTypeError(f"history: expected MarkI.history_ (a record array with fields "
                             f"{', '.join(_HISTORY_FIELDS)}) or a fitted MarkI, got {type(history).__name__}")
    return history


def learning_curve(history: np.ndarray, *, title: str = "", test_accuracy: float | None = None,
                   reported: float | None = None, window: int | None = None,
                   out: str | os.PathLike | None = None) -> Figure:
    """Training accuracy (%) against cards presented, with machine time on the top axis.

    The curve is the share right over the last ``window`` cards, drawn from the first
    full window on (a share of one or two cards says nothing: it would start at
    0 % or 100 %); every mistake is a magenta tick from card 1. Chance (one over the
    number of classes) is a dotted line; the test accuracy after training is a grey
    (the language's neutral) diamond at the end with its value; the reported figure, when there is one, a dashed
    line, so that one never hides the other. The accuracy axis runs from 0 to 100 %; the
    machine-time axis is in s, min or h by the run's length (as the terminal writes it).

    Parameters
    ----------
    history : structured array of shape (presentations,), or a fitted MarkI
        ``MarkI.history_`` (fields ``correct``, ``label``, ``epoch``, ``start`` in seconds),
        or the machine itself.
    title : str
    test_accuracy : float, optional
        Fraction of test cards right after training, drawn as a diamond at the end.
    reported : float, optional
        The historical figure the scene re-enacts (a fraction), drawn as a dashed line.
    window : int, optional
        Presentations in the running average (default: one epoch, but at most a quarter
        of the run, so that the curve has a shape).
    out : str or path-like, optional
        Where to save the figure (atomically; PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure
        One axes (cards presented below, machine time on top); the curve's data are in %.

    Examples
    --------
    >>> import numpy as np, mark1
    >>> cards = np.ones((4, 20, 20)); cards[0::2, 4:16, 9:11] = 0.05; cards[1::2, 9:11, 4:16] = 0.05
    >>> machine = mark1.MarkI(spec=mark1.SMALL, seed=0).fit(cards, ["|", "-", "|", "-"], epochs=3)
    >>> fig = learning_curve(machine.history_, test_accuracy=1.0, window=4)   # or learning_curve(machine, ...)
    >>> curve = fig.axes[0].lines[1]
    >>> curve.get_label(), curve.get_xdata().tolist()              # from the first full window on
    ('training accuracy (last 4 cards)', [4, 5, 6, 7, 8, 9, 10, 11, 12])
    """
    history = _history(history)
    correct = np.asarray(history["correct"], dtype=float)
    n = len(correct)
    per_epoch = int(np.sum(history["epoch"] == 0)) if n else 1
    window = max(1, min(window or min(per_epoch, max(n // 4, 1)), n))
    running = np.convolve(correct, np.ones(window) / window, mode="valid")   # cards window..n
    x = np.arange(1, n + 1)
    fig = new_figure(9.5, 4.2, layout="constrained")
    ax = fig.add_subplot()
    n_classes = len(np.unique(history["label"])) if n else 2
    chance = 1.0 / max(n_classes, 1)
    ax.axhline(100 * chance, color="0.5", lw=1, ls=":", label=f"chance {percent(chance, 0)}")
    if reported is not None:
        ax.axhline(100 * reported, color="0.25", lw=1.2, ls="--", zorder=1, label=f"reported {percent(reported)}")
    ax.plot(x[window - 1:], 100 * running, color="0.15", lw=1.8, zorder=3,
            label=f"training accuracy (last {window} cards)")
    wrong = np.flatnonzero(correct == 0)
    ax.plot(wrong + 1, np.full(len(wrong), -3.0), "|", color=MISTAKE, ms=8,
            label="mistake (the trainer corrects it)")
    if test_accuracy is not None:
        ax.plot([n], [100 * test_accuracy], "D", color=NEUTRAL, ms=9, zorder=4, clip_on=False,
                label=f"test accuracy after training {percent(test_accuracy)}")
        ax.annotate(f"test {percent(test_accuracy)}", (n, 100 * test_accuracy), xytext=(-8, -14),
                    textcoords="offset points", ha="right", fontsize=8, color=NEUTRAL)
    ax.set_xlabel("cards presented")
    _accuracy_with_mistakes(ax)
    ax.set_xlim(0, n + 1)
    ax.grid(alpha=0.3)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))            # cards come whole
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)  # beside: inside it hid mistake ticks
    if n > 1 and history["start"][-1] > 0:
        # presentation number -> machine time at its start (in the unit the terminal uses for the
        # run), extended linearly past both ends so that ticks outside the data are not clamped
        unit, size = duration_unit(float(history["start"][-1]))
        times = np.asarray(history["start"]) / size          # strictly increasing
        px = np.r_[x[0] - 1e6, x, x[-1] + 1e6]
        hx = np.r_[times[0] - 1e6 * (times[1] - times[0]), times, times[-1] + 1e6 * (times[-1] - times[-2])]
        # matplotlib passes arrays; its stubs type them as ArrayLike, which np.interp's stubs refuse
        top = ax.secondary_xaxis("top", functions=(lambda p: np.interp(cast(Any, p), px, hx),
                                                   lambda h: np.interp(cast(Any, h), hx, px)))
        top.set_xlabel(f"machine time ({unit})")
    ax.set_title(title, fontsize=11)
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig


# ----------------------------------------------------------------------------------------
# the film: the run recorded, the panels laid out, one frame drawn per shown presentation

#: Size of a frame in inches (1280 × 720 pixels at 100 dpi).
_FRAME_INCHES = (12.8, 7.2)


def _animation_frames(n_presentations: int, first: int, every: int) -> np.ndarray:
    """Presentation counts after which :func:`training_animation` draws a frame.

    Every ``every``-th presentation counted back from the last, so the frames are evenly
    spaced and the last presentation is always shown; none before ``first``.
    """
    p = np.arange(n_presentations, first - 1, -every)[::-1]
    return p[p >= max(first, 1)]


def _check_film(every, duration, dpi) -> None:
    for name, v in (("every", every), ("duration", duration), ("dpi", dpi)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"{name}: expected a positive integer, got {v!r}")
    if _FRAME_INCHES[0] * dpi < 1000:
        raise InputError(f"dpi: expected at least {int(np.ceil(1000 / _FRAME_INCHES[0]))} (frames 1000 pixels "
                         f"wide), got {dpi}")


@dataclass
class _Film:
    """Everything the frames show, worked out before the first is drawn."""

    full: MarkI                    # the whole run, traced
    labels: np.ndarray             # of the deck's cards
    epochs: int
    schedule: np.ndarray           # deck card shown at each presentation
    frames_at: np.ndarray          # presentation counts drawn
    states: list                   # (wipers before, wipers after) the presentation of each frame
    s_units: np.ndarray            # (presentations drawn up to, S-units) in schedule order
    a_units: np.ndarray            # (presentations drawn up to, A-units)
    illum: np.ndarray              # (deck cards, rows, cols)
    projected: np.ndarray          # (frames, units, rows, cols): the wipers after, on the retina
    running: np.ndarray            # training accuracy over the last `window` presentations
    window: int


def _prefix_wipers(machine_spec, cards, labels, seed, full, schedule, frames_at, bar) -> list:
    """The wiper positions before and after each drawn presentation.

    After ``p`` presentations they are those of the same machine trained on the first
    ``p`` presentations of the schedule as one deck: the event simulation is causal, so
    this is exactly the state of the full run at that moment.
    """
    fits: dict[int, np.ndarray] = {len(schedule): full.weights_}

    def wipers(p):
        if p not in fits:
            idx = schedule[:p]
            fits[p] = MarkI(spec=machine_spec, seed=seed).fit(cards[idx], labels[idx], epochs=1).weights_
        return fits[p]

    states = []
    for p in frames_at:
        states.append((wipers(p - 1), wipers(p)))
        for old in [q for q in fits if q < p - 1]:
            del fits[old]
        bar.update(0.5)
    return states


def _record_film(machine_spec, full, cards, labels, seed, epochs, schedule, frames_at, bar) -> _Film:
    """What every frame of the run ``full`` shows: wipers, S- and A-units, light, accuracy."""
    states = _prefix_wipers(machine_spec, cards, labels, seed, full, schedule, frames_at, bar)
    s_units = np.asarray(full.sense(cards[schedule[:frames_at[-1]]]), dtype=bool)
    board = full.patchboard
    correct = np.asarray(full.history_["correct"], dtype=float)
    window = len(cards)
    return _Film(
        full=full, labels=labels, epochs=epochs, schedule=schedule, frames_at=frames_at, states=states,
        s_units=s_units, a_units=np.asarray(full.associate(s_units), dtype=bool),
        illum=np.asarray(full.retina.illuminance(cards)),
        projected=np.asarray([_projected_weights(after, board.connections, board.retina_shape)
                              for _, after in states]),
        running=np.array([correct[max(0, i + 1 - window):i + 1].mean() for i in range(len(schedule))]),
        window=window)


def _gif_frame(image: Image.Image) -> Image.Image:
    """A frame in 256 colours that keeps the language's colours exact: an adaptive palette of the
    frame's own colours, plus the fixed ones (left to the adaptive palette, a thin magenta tick
    among the weights' reds came out red)."""
    fixed = [POSITIVE, NEGATIVE, ZERO, FIRING, SILENT, MISTAKE, "#ffffff", "#000000"]
    rgb = [int(h[i:i + 2], 16) for h in fixed for i in (1, 3, 5)]
    base = image.quantize(256 - len(fixed), method=Image.Quantize.MEDIANCUT)
    palette = Image.new("P", (1, 1))
    palette.putpalette(cast(list[int], base.getpalette())[:3 * (256 - len(fixed))] + rgb)   # a P image has one
    return image.quantize(palette=palette, dither=Image.Dither.NONE)


class _FilmPanels:
    """The frame's seven panels, laid out once and redrawn for each presentation shown."""

    def __init__(self, film: _Film, dpi: int):
        self.film = film
        full = film.full
        n_pres = len(film.schedule)
        n_units = full.code_.n_units
        rows, cols = full.patchboard.retina_shape
        self.fig = fig = new_figure(*_FRAME_INCHES)
        fig.set_dpi(dpi)
        grid = fig.add_gridspec(2, 4, width_ratios=[1, 1, 1.35, 1.25], height_ratios=[1, 1],
                                left=0.06, right=0.98, top=0.86, bottom=0.08, wspace=0.38, hspace=0.42)
        self.ax_card = fig.add_subplot(grid[0, 0])
        self.im_card = self.ax_card.imshow(film.illum[0], cmap="gray", vmin=0.0,
                                           vmax=max(1.0, float(film.illum.max())), interpolation="nearest")
        self.ax_s = fig.add_subplot(grid[0, 1])
        self.ax_a = fig.add_subplot(grid[0, 2])
        self.ax_r = ax_r = fig.add_subplot(grid[0, 3])
        self.ax_pots = fig.add_subplot(grid[1, 0:2])
        self.ax_w = fig.add_subplot(grid[1, 2])
        vmax = max(float(np.abs(film.projected).max()), 1e-12)
        self.im_w = self.ax_w.imshow(film.projected[0, 0], cmap=WEIGHT_CMAP, vmin=-vmax, vmax=vmax,
                                     interpolation="nearest")
        self.ax_acc = ax_acc = fig.add_subplot(grid[1, 3])
        for ax in (self.ax_card, self.ax_w):
            ax.set_xticks([])
            ax.set_yticks([])
        (self.line,) = ax_acc.plot([], [], color="0.15", lw=1.8)
        (self.wrong,) = ax_acc.plot([], [], "|", color=MISTAKE, ms=8)
        ax_acc.set_xlim(0, n_pres + 1)
        ax_acc.set_xlabel("cards presented", fontsize=9)
        _accuracy_with_mistakes(ax_acc)
        ax_acc.yaxis.label.set_fontsize(9)
        ax_acc.axhline(100.0 / len(full.classes_), color="0.5", ls=":", lw=1)
        ax_acc.tick_params(labelsize=8)
        ax_acc.grid(alpha=0.3)
        self.suptitle = fig.suptitle("", fontsize=13)

        self.key_pots = [Patch(facecolor="none", edgecolor="0.4", label="before this card"),
                         Patch(facecolor=POSITIVE, label="after (+)"),
                         Patch(facecolor=NEGATIVE, label="after (−)")]
        _, self.relight_s = _lamps(self.ax_s, film.s_units[0], (rows, cols))
        _, self.relight_a = _lamps(self.ax_a, film.a_units[0], unit_grid(full.patchboard.n_associators))
        y = np.arange(n_units)[::-1]
        self.r_bars = ax_r.barh(y, np.zeros(n_units), height=0.6)
        ax_r.axvline(0.0, color="k", lw=1.2)
        lim = max(float(np.abs(cast(np.ndarray, full.read_sums_)).max()), 1e-12) * 1.15   # a full trace's
        ax_r.set_xlim(-lim, lim)
        ax_r.set_ylim(-0.7, n_units - 0.3)
        ax_r.set_yticks(y)
        ax_r.tick_params(axis="x", labelsize=8)
        ax_r.set_xlabel("sum of pots × A-units (threshold 0)", fontsize=9)
        ax_r.set_ylabel("R-unit, target sign", fontsize=8, labelpad=1)
        self.wmax = max(float(np.abs(np.asarray([a for _, a in film.states])).max()), 1e-12)

    def draw(self, f: int) -> Image.Image:
        """Frame ``f``: the presentation after which it is drawn, stage by stage; returns its picture."""
        film, full = self.film, self.film.full
        p = int(film.frames_at[f])
        i = p - 1                                                  # the presentation shown (index)
        card = film.schedule[i]
        hist = full.history_
        rows, cols = full.patchboard.retina_shape
        n_a = full.patchboard.n_associators
        # 1. the card on the photocells
        self.im_card.set_data(film.illum[card])
        self.ax_card.set_title(f"card {card + 1} of the deck: \"{film.labels[card]}\"\nlight on the {rows}×{cols} "
                               "cells", fontsize=10)
        # 2. S-units, 3. A-units
        self.relight_s(film.s_units[i])
        self.relight_a(film.a_units[i])
        self.ax_s.set_title(f"S-units firing: {int(film.s_units[i].sum())} of {rows * cols}", fontsize=10)
        self.ax_a.set_title(f"A-units firing: {int(film.a_units[i].sum())} of {n_a}", fontsize=10)
        # 4. R-unit sums against the threshold
        t = np.asarray(full.code_.targets, dtype=float)[int(hist["label"][i])]      # the target signs, ±1
        self._draw_sums(i, t)
        # 5. the pots of one R-unit: its firing A-units' pots and the bias, before -> after
        k = int(np.argmax(t)) if full.code_.kind == "one-per-class" else 0
        self._draw_pots(f, i, k)
        # 6. what R-unit k looks for; 7. training accuracy
        self.im_w.set_data(film.projected[f, k])
        self.ax_w.set_title(f"R{k + 1}'s weights on the retina\n(red: ink here pushes its sum up)", fontsize=10)
        self._draw_accuracy(p)
        self.suptitle.set_text(f"{full.spec.name}: presentation {p} of {len(film.schedule)} (epoch "
                               f"{int(hist['epoch'][i]) + 1} of {film.epochs}), machine time "
                               f"{duration(hist['start'][i])}")
        self.fig.canvas.draw()
        rgba = np.asarray(cast(Any, self.fig.canvas).buffer_rgba())      # new_figure's Agg canvas
        return _gif_frame(Image.fromarray(np.ascontiguousarray(rgba[..., :3])))

    def _draw_sums(self, i: int, t: np.ndarray) -> None:
        """Each R-unit's sum as the trainer read it, red above 0 and blue below (as a weight); a unit
        whose sign is not its target's (a mistake) is outlined in magenta."""
        full = self.film.full
        ok = bool(full.history_["correct"][i])
        answer = full.classes_[full.history_["response"][i]]
        s_i = cast(np.ndarray, full.read_sums_)[i]      # a full trace keeps the sums read
        erring = np.sign(s_i) != t
        for bar_k, v, e in zip(self.r_bars, s_i, erring):
            bar_k.set_width(v)
            bar_k.set_facecolor(POSITIVE if v >= 0 else NEGATIVE)
            bar_k.set_edgecolor(MISTAKE if e else "none")
            bar_k.set_linewidth(3.0 if e else 0.0)
        n_units = len(t)
        self.ax_r.set_yticklabels([f"R{k + 1} {'+' if t[k] > 0 else '−'}" for k in range(n_units)],
                                  fontsize=8 if n_units > 2 else 9)
        self.ax_r.set_title(f"R-units: answer \"{answer}\", "
                            + ("right" if ok else "a mistake:\nthe trainer turns pots"),
                            fontsize=10, color="black" if ok else MISTAKE)

    def _draw_pots(self, f: int, i: int, k: int) -> None:
        """R-unit k's pots of the A-units firing at presentation i, and its bias: before and after."""
        film = self.film
        n_a = film.full.patchboard.n_associators
        before, after = film.states[f]
        ax = self.ax_pots
        firing = np.r_[np.flatnonzero(film.a_units[i]), n_a]
        ax.clear()
        xs = np.arange(len(firing))
        ax.bar(xs, before[k, firing], width=0.8, color="none", edgecolor="0.4", lw=1.0)
        ax.bar(xs, after[k, firing], width=0.5, color=np.where(after[k, firing] >= 0, POSITIVE, NEGATIVE))
        moved = int(film.full.history_["pots_moved"][i])
        ax.axhline(0.0, color="k", lw=0.8)
        ax.set_ylim(-self.wmax * 1.15, self.wmax * 1.15)
        ax.set_xlim(-0.7, len(firing) - 0.3)
        names = [f"A{a + 1}" if a < n_a else "bias" for a in firing]
        step = max(1, -(-len(names) // 30))
        ax.set_xticks(xs[::step], names[::step], rotation=90, fontsize=7)
        ax.tick_params(axis="y", labelsize=8)
        ax.set_ylabel("wiper (full scale)", fontsize=9)
        ax.legend(handles=self.key_pots, fontsize=8, loc="upper right", frameon=False, ncol=3)
        ax.set_title(f"R{k + 1}'s pots of the firing A-units (end stops at ±1); "
                     f"{moved} pots commanded on this card", fontsize=10)

    def _draw_accuracy(self, p: int) -> None:
        """The running training accuracy (%) up to presentation p, and the mistakes as magenta ticks."""
        film = self.film
        window, i = film.window, p - 1
        x = np.arange(1, p + 1)
        self.line.set_data(x[window - 1:], 100 * film.running[window - 1:p])
        bad = np.flatnonzero(np.asarray(film.full.history_["correct"][:p], dtype=float) == 0) + 1
        self.wrong.set_data(bad, np.full(len(bad), -3.0))
        acc_now = (f"training accuracy, last {window} cards: {percent(film.running[i], 0)}" if p >= window
                   else f"training accuracy (drawn from card {window})")
        self.ax_acc.set_title(f"{acc_now}\n(magenta ticks: mistakes)", fontsize=10)


def training_animation(machine_spec: MachineSpec, cards: np.ndarray, labels: ArrayLike, *, seed: int,
                       out: str | os.PathLike, epochs: int = 1, every: int = 1,
                       duration: int = 400, dpi: int = 100, progress: bool = False) -> Figure:
    """An animated GIF of the machine learning, every stage of one presentation per frame.

    The machine (``MarkI(spec=machine_spec, seed=seed)``) is trained on the cards in the
    given order for ``epochs`` epochs. A frame is drawn after every ``every``-th
    presentation, counted back from the last one (so the frames are evenly spaced and
    the last presentation is always shown). Each frame (1280 × 720 pixels at the
    default ``dpi``) shows that presentation stage by stage: the light on the photocells,
    the S-units that fire, the A-units that fire, each R-unit's sum against its threshold
    (0) with its target, the pots of the firing A-units of one R-unit before and after
    the trainer turned them, that R-unit's weights projected onto the retina (see
    :func:`mark1.viz.weights_on_retina_figure`; one colour scale for the whole film) and
    the running training accuracy. Presentations and deck cards are numbered from 1.

    The sums are those the trainer read in the run (from its full trace). The wipers
    after ``p`` presentations are those of the same machine (same seed, so the same
    wiring, photocells, motors and noise) trained on the first ``p`` presentations of
    the schedule as one deck: the event simulation is causal, so this is exactly the
    state of the full run at that moment. The S- and A-units are read with the cards
    shown in schedule order on the nominal cycle (the run's own states when no card
    waited for the motors). Frames start once every class has been presented.

    Parameters
    ----------
    machine_spec : mark1.MachineSpec
    cards : array of shape (n, H, W)
        The deck, reflectance in [0, 1], shown in this order every epoch.
    labels : array of shape (n,)
    seed : int
        The machine's seed.
    out : str or path-like
        The GIF, written atomically.
    epochs : int
        Times through the deck.
    every : int
        Presentations between frames.
    duration : int
        Milliseconds per frame.
    dpi : int
        Resolution of the frames (12.8 × 7.2 inches; at least 79 dpi, so 1000 pixels wide).
    progress : bool
        A progress bar over the frames (tqdm, on a terminal or in Jupyter).

    Returns
    -------
    matplotlib.figure.Figure
        The last frame.

    Raises
    ------
    mark1.exceptions.InputError
        For ``every``, ``duration`` or ``dpi`` not a positive integer, or frames under
        1000 pixels wide.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np, mark1
    >>> from PIL import Image
    >>> cards = np.ones((4, 20, 20)); cards[0::2, 4:16, 9:11] = 0.05; cards[1::2, 9:11, 4:16] = 0.05
    >>> with tempfile.TemporaryDirectory() as d:
    ...     gif = pathlib.Path(d) / "film.gif"
    ...     fig = training_animation(mark1.SMALL, cards, ["|", "-", "|", "-"], seed=0, out=gif, every=2, dpi=79)
    ...     with Image.open(gif) as im:
    ...         print(im.n_frames, im.size, fig.get_suptitle().split(" (")[0])     # a frame after the 4th card
    1 (1011, 568) small: presentation 4 of 4
    """
    _check_film(every, duration, dpi)
    full = MarkI(spec=machine_spec, seed=seed, trace="full").fit(cards, labels, epochs=epochs)   # checks
    cards = np.asarray(cards, dtype=float)
    labels = np.asarray(labels)
    schedule = np.tile(np.arange(len(cards)), epochs)
    seen = labels[schedule]
    first = max(int(np.argmax(seen == c)) for c in full.classes_) + 1     # every class presented by then
    frames_at = _animation_frames(len(schedule), first + 1, int(every))    # the wipers before need a full code
    bar = progress_bar(len(frames_at), "frame", show=progress)
    film = _record_film(machine_spec, full, cards, labels, seed, epochs, schedule, frames_at, bar)
    panels = _FilmPanels(film, dpi)
    frames = []
    for f in range(len(frames_at)):
        frames.append(panels.draw(f))
        bar.update(0.5)
    bar.close()
    with atomic_path(out) as tmp:
        frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:], duration=int(duration),
                       loop=0)
    return panels.fig
