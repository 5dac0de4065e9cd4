"""The contact sheet: a scene's training cards beside what the retina makes of them."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from mark1._utils.language import CARD_CMAP, FIRING, SILENT, percent
from mark1._utils.progress import progress_bar
from mark1.exceptions import InputError
from mark1.machine.mark_i import MarkI
from mark1.stimuli.cards import experiment_seeds
from mark1.stimuli.scenes import Scene
from mark1.viz.figure import new_figure, save_figure
from mark1.viz.style import one_message, slide_style

__all__ = ["contact_sheet"]

#: An S-unit that fires only because of the cards shown before: white, set apart from the amber of firing.
STRAY = (1.0, 1.0, 1.0)


def _stray_s_units(machine, cards, bar) -> tuple[np.ndarray, np.ndarray]:
    """The S-units each card fires when the cards are shown one after another, and those of them
    that fire only because of the cards before (read from a dark-adapted retina they would not)."""
    rows, cols = machine.patchboard.retina_shape
    s_units = np.asarray(machine.sense(cards), dtype=bool).reshape(len(cards), rows, cols)
    s_alone = np.zeros_like(s_units)
    for i, c in enumerate(cards):                  # each card alone, on a dark-adapted retina
        s_alone[i] = np.asarray(machine.sense(c[None]), dtype=bool).reshape(rows, cols)
        bar.update(1)
    return s_units, s_units & ~s_alone


def _slide_sheet(scene, seed, shown, classes, picks, images, light_max, strays) -> Figure:
    """The sheet drawn for a slide: a column a card (its class above it), a row a stage (card, light, S-units),
    few cards, each large, and the key in one line (the page's sheet has it whole)."""
    cards, illum, s_rgb = images
    columns = [(c, i) for c, p in zip(shown, picks) for i in range(len(p))]
    starts = np.cumsum([0] + [len(p) for p in picks])
    n = len(columns)
    fig = new_figure(max(1.5 + 2.0 * n, 8.0), 7.4)
    grid = fig.add_gridspec(3, n, wspace=0.1, hspace=0.12, left=0.14, right=0.98, top=0.84, bottom=0.1)
    stages: tuple[tuple[str, Any], ...] = (("card", lambda i: (cards[i], dict(cmap=CARD_CMAP, vmin=0.0, vmax=1.0))),
              ("light", lambda i: (illum[i], dict(cmap="gray", vmin=0.0, vmax=light_max))),
              ("S-units", lambda i: (s_rgb[i], {})))
    for col, (c, j) in enumerate(columns):
        i = int(starts[shown.index(c)]) + j
        for row, (stage, image) in enumerate(stages):
            ax = fig.add_subplot(grid[row, col])
            ax.set_xticks([])
            ax.set_yticks([])
            img, kw = image(i)
            ax.imshow(img, interpolation="nearest", **kw)
            if row == 0:
                ax.set_title(f"\u201c{c}\u201d")
            if col == 0:
                ax.set_ylabel(stage, rotation=0, ha="right", va="center")
    fig.suptitle(f"{scene.name}: what the retina makes of a card"
                 + (f" ({len(shown)} of {len(classes)} classes)" if len(shown) < len(classes) else ""))
    fig.text(0.5, 0.02, "S-units: amber fires, dark is silent" + (
        "; white fires only because of the cards before it" if strays.any() else ""), ha="center", va="bottom")
    return one_message(fig)


def _sheet_key(machine, strays) -> str:
    """The words under the panels: what each panel shows, with this machine's numbers."""
    rs = machine.spec.retina
    key = ("card: reflectance, white paper = 1.   light on cells: relative to paper white under the lamps"
           + (f" (up to {percent(rs.uneven_lighting, 0)} dimmer towards the edges)"
              if machine.spec.is_on("lens") else "")
           + f".\nS-units: amber = firing, dark = silent; an S-unit fires where its light is below "
           f"{rs.threshold:g} of paper white (ink).")
    if strays.any():
        key += (f"\nwhite = fires only because of the cards shown before ({int(strays.sum())} on this sheet): "
                f"a cell lit by earlier cards is light-adapted (reads up to {rs.history_ratio:g}× the resistance), "
                f"and the less sensitive cells (spread ±{percent(rs.cell_spread, 0)}), most at the dimmer edges, "
                f"fall below the threshold even on blank paper.")
    return key


def contact_sheet(scene: Scene, *, seed: int = 0, per_class: int | None = None, out: str | os.PathLike | None = None,
                  progress: bool = False) -> Figure:
    """Sample training cards of every class beside what the retina makes of them.

    For each card three small panels: the card (reflectance, white paper), the light on
    the 20×20 photocells (illuminance relative to paper white under nominal lamps, from
    ``MarkI.retina.illuminance``) and the S-units that fire (``MarkI.sense`` with the
    cards shown one after another as on the machine; amber = firing, dark = silent, as in
    every figure). An S-unit drawn white fires only because of the cards before it: read from a dark-adapted retina it
    would not. That is light history (a cell lit by earlier cards reads a higher
    resistance, as if dimmer) meeting cell spread (the less sensitive cells sit closest
    to the threshold), and it is why an S-unit can fire on blank paper. A key under the
    panels says so, with this machine's numbers. One row per class; beyond 9 classes the
    rows are set in side-by-side blocks so the sheet keeps a slide's proportions.

    Parameters
    ----------
    scene : mark1.Scene
    seed : int
        The run's seed, as ``mark1 run --seed``: it picks the training cards and the
        machine (photocell spread).
    per_class : int, optional
        Cards shown per class (1 to 12); default 4, or 2 beyond 9 classes (inside
        :func:`mark1.viz.style.slides` half that, for at most the first six classes).
    out : str or path-like, optional
        Where to save the figure (atomically; PNG unless the file ending says otherwise).
    progress : bool
        A progress bar over the cards read (tqdm, on a terminal or in Jupyter).

    Returns
    -------
    matplotlib.figure.Figure
        Three axes per card shown (card, light, S-units), in one row per class.

    Raises
    ------
    mark1.exceptions.InputError
        For a bad ``per_class``; :class:`mark1.SceneError` for a bad seed.

    Examples
    --------
    >>> import mark1
    >>> scene = mark1.load_scene("scenes/demo.toml")
    >>> fig = contact_sheet(scene, seed=0, per_class=2)
    >>> len(fig.axes), [ax.get_title() for ax in fig.axes[:3]]       # 2 classes x 2 cards x 3 panels
    (12, ['card', 'light on cells', 'S-units'])
    """
    if per_class is None:                          # on a slide fewer cards, each larger: one sheet, one message
        per_class = (4 if len(scene.classes) <= 9 else 2) // (2 if slide_style() is not None else 1)
    if isinstance(per_class, bool) or not isinstance(per_class, (int, np.integer)) or not 1 <= per_class <= 12:
        raise InputError(f"per_class: expected an integer from 1 to 12, got {per_class!r}")
    seed_train, _, seed_machine = experiment_seeds(seed)     # the cards and machine of `mark1 run --seed`
    classes = list(scene.classes)
    # on a slide at most six classes, so that the cards stay large enough to read from the back of a room
    shown = classes[:6] if slide_style() is not None else classes
    stim = scene.stimuli("train", seed=seed_train, count=per_class * len(classes))
    picks = [np.flatnonzero(stim.labels == c)[:per_class] for c in shown]
    cards = stim.cards[np.concatenate(picks)]

    machine = MarkI(spec=scene.machine_spec(), seed=seed_machine)
    illum = np.asarray(machine.retina.illuminance(cards))
    bar = progress_bar(len(cards) + 1, "card", show=progress)
    s_units, strays = _stray_s_units(machine, cards, bar)
    s_rgb = np.empty(s_units.shape + (3,))
    s_rgb[:] = to_rgb(SILENT)
    s_rgb[s_units] = to_rgb(FIRING)
    s_rgb[strays] = STRAY
    light_max = max(1.0, float(illum.max()))

    if slide_style() is not None:
        fig = _slide_sheet(scene, seed, shown, classes, picks, (cards, illum, s_rgb), light_max, strays)
        if out is not None:
            save_figure(fig, out, dpi=110)
        bar.close()
        return fig
    n_cls = len(shown)
    blocks = -(-n_cls // 9)                        # side-by-side blocks of at most 9 classes
    n_rows = -(-n_cls // blocks)
    per_block = 3 * per_class + 1                  # panels of a block, plus a spacer column
    ncols = blocks * per_block - 1
    key_h = 0.75                                   # inches for the key under the panels
    width, height = max(1.0 + 0.95 * ncols, 8.0), 0.9 + 1.05 * n_rows + key_h
    fig = new_figure(width=width, height=height)
    grid = fig.add_gridspec(n_rows, ncols, wspace=0.08, hspace=0.3,
                            left=0.6 / width, right=0.99, top=1 - 0.75 / height, bottom=(key_h + 0.02) / height)
    titles = ("card", "light on cells", "S-units")
    i = 0
    for k, (c, p) in enumerate(zip(shown, picks)):
        r, col0 = k % n_rows, (k // n_rows) * per_block
        for j in range(per_class):
            panels: tuple[tuple[np.ndarray, dict[str, Any]], ...] = (
                (cards[i], dict(cmap=CARD_CMAP, vmin=0.0, vmax=1.0)),
                (illum[i], dict(cmap="gray", vmin=0.0, vmax=light_max)),
                (s_rgb[i], {}),
            ) if j < len(p) else ()
            for t in range(3):
                ax = fig.add_subplot(grid[r, col0 + 3 * j + t])
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
    fig.suptitle(f"{scene.name} — training cards (seed {seed}) and what the retina makes of them"
                 + (f" ({len(shown)} of {len(classes)} classes)" if len(shown) < len(classes) else ""),
                 fontsize=9)
    fig.text(0.6 / width, key_h / height, _sheet_key(machine, strays), ha="left", va="top", fontsize=7, wrap=True)
    one_message(fig)                               # a sheet of cards: one picture on a slide, not a file a card
    if out is not None:
        save_figure(fig, out, dpi=110)
    bar.close()
    return fig
