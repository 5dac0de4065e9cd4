"""Figures (matplotlib, Agg backend, object API only: no pyplot state).

matplotlib is imported here and nowhere else in the package; the machine's core never
imports this module. Every function returns a :class:`matplotlib.figure.Figure` and,
when given ``out``, saves it atomically (a temporary file in the same folder, then
``os.replace``), so a figure file is either complete or absent.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

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
    out.parent.mkdir(parents=True, exist_ok=True)
    fmt = out.suffix.lstrip(".").lower() or "png"
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.stem}.", suffix=f".{fmt}.tmp")
    os.close(fd)
    try:
        fig.savefig(tmp, format=fmt, **kwargs)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)          # mkstemp makes 0600; give the usual mode
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
