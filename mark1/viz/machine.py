"""The machine's figures: what it sees, what it stores, what it looks for.

One card through the sensory side (:func:`retina_figure`: card, light on the photocells,
S-units and A-units as lamps), the potentiometer rack as dials (:func:`dials_figure`)
and each R-unit's weights projected back onto the retina
(:func:`weights_on_retina_figure`). The lamps, the unit labels and the projection are
shared with the training film in :mod:`mark1.viz.training`.
"""

from __future__ import annotations

import os
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike
from matplotlib.cm import ScalarMappable
from matplotlib.collections import EllipseCollection, LineCollection
from matplotlib.colors import Normalize, to_rgba
from matplotlib.figure import Figure
from matplotlib.patheffects import withStroke

from mark1._utils.language import CARD_CMAP, FIRING, SILENT, WEIGHT_CMAP, unit_grid
from mark1.exceptions import InputError
from mark1.machine.mark_i import MarkI
from mark1.viz.figure import new_figure, save_figure
from mark1.viz.style import one_message

__all__ = ["retina_figure", "dials_figure", "weights_on_retina_figure"]


# ----------------------------------------------------------------------------------------
# lamps, labels and the projection onto the retina (also drawn by the training film)

def _lamps(ax, on, shape, *, lit=FIRING, off=SILENT, title=None):
    """Draw ``on`` (bool, flat, row-major) as a grid of round lamps on a dark panel.

    Returns the lamps' collection and a function that relights them for a new ``on``.
    """
    on = np.asarray(on, dtype=bool).ravel()
    rows, cols = shape
    r, c = np.divmod(np.arange(len(on)), cols)
    faces = np.where(on[:, None], np.array(to_rgba(lit)), np.array(to_rgba(off)))
    d = np.full(len(on), 0.8)
    lamps = ax.add_collection(EllipseCollection(d, d, np.zeros(len(on)), units="xy", offsets=np.c_[c, r],
                                                offset_transform=ax.transData, facecolors=faces,
                                                edgecolors="0.05", linewidths=0.3))
    ax.set_xlim(-0.7, cols - 0.3)
    ax.set_ylim(rows - 0.3, -0.7)
    ax.set_aspect("equal")
    ax.set_facecolor("0.1")                     # a dark panel, so that a silent lamp still shows
    ax.set_xticks([])
    ax.set_yticks([])
    if title:
        ax.set_title(title, fontsize=9)
    colors = np.array([to_rgba(off), to_rgba(lit)])
    return lamps, lambda new: lamps.set_facecolors(colors[np.asarray(new, dtype=bool).ravel().astype(int)])


def _unit_labels(machine) -> list[str]:
    """What each R-unit in use stands for, from the machine's output code."""
    code = machine.code_
    classes = [str(c) for c in machine.classes_]
    n = code.n_units
    if code.kind == "single":
        return [f"R-unit 1: + {classes[1]}, − {classes[0]}"]
    if code.kind == "one-per-class":
        return [f"R-unit {k + 1}: {classes[k]}" for k in range(n)]
    out = []
    for k in range(n):
        on = ", ".join(c for c, t in zip(classes, code.targets[:, k]) if t > 0)
        if len(on) > 28:
            on = on[:26] + "…"
        out.append(f"R-unit {k + 1}: bit {k + 1} (on for {on})")
    return out


def _projected_weights(weights: np.ndarray, connections: np.ndarray, retina_shape) -> np.ndarray:
    """Σ_a w[k, a] · connections[:, a] for every R-unit k: array (n_units, rows, cols).

    ``weights`` is (n_units, n_a + 1) with the bias last (left out here).
    """
    w = np.asarray(weights, dtype=float)[:, :-1]
    conn = np.asarray(connections, dtype=float)
    rows, cols = retina_shape
    return (w @ conn.T).reshape(len(w), rows, cols)


def _image_panel(ax, image, title: str, **imshow) -> None:
    """An image without ticks, titled."""
    ax.imshow(image, interpolation="nearest", **imshow)
    ax.set_title(title, fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])


# ----------------------------------------------------------------------------------------
# one card through the sensory side

def retina_figure(machine: MarkI, card: ArrayLike, *, out: str | os.PathLike | None = None) -> Figure:
    """One card through the sensory side: card, light on the cells, S-units, A-units.

    Four panels: the card (reflectance), its illuminance on the 20×20 photocells
    (``machine.retina.illuminance``), the S-units that fire (``machine.sense``, from a
    dark-adapted retina) as a 20×20 grid of lamps, and the A-units that fire
    (``machine.associate``) as lamps laid out by :func:`mark1._utils.language.unit_grid`
    (16 rows of 32 for 512 A-units; firing amber, silent dark), with the counts
    in the titles. For a trained machine the noise-free R-unit sums and the answer are
    added to the title (reading them draws no noise, so the machine is left as it was).

    Parameters
    ----------
    machine : mark1.MarkI
        Trained or not.
    card : array of shape (H, W) or (1, H, W)
        Reflectance in [0, 1].
    out : str or path-like, optional
        Where to save the figure (atomically; PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure
        Four axes: two images (card, illuminance) and two lamp grids.

    Raises
    ------
    mark1.exceptions.InputError
        For anything but one card.

    Examples
    --------
    >>> import numpy as np, mark1
    >>> cards = np.ones((4, 20, 20)); cards[0::2, 4:16, 9:11] = 0.05; cards[1::2, 9:11, 4:16] = 0.05
    >>> machine = mark1.MarkI(spec=mark1.SMALL, seed=0).fit(cards, ["|", "-", "|", "-"])
    >>> fig = retina_figure(machine, cards[0])
    >>> len(fig.axes), fig.axes[3].get_title()
    (4, 'A-units firing: 8 of 64')
    """
    cards = np.asarray(card)
    if cards.ndim == 2:
        cards = cards[None]
    if cards.ndim != 3 or len(cards) != 1:
        raise InputError(f"card: expected one card of shape (H, W) or (1, H, W), got shape {np.shape(card)}")
    s = np.asarray(machine.sense(cards))            # checks the card
    phi = np.asarray(machine.associate(s))
    illum = np.asarray(machine.retina.illuminance(cards.astype(float)))[0]
    rows, cols = machine.patchboard.retina_shape
    n_s, n_a = machine.patchboard.n_sensors, machine.patchboard.n_associators

    fig = new_figure(13.0, 3.8)
    grid = fig.add_gridspec(1, 4, width_ratios=[1, 1, 1, 2.0], wspace=0.12,
                            left=0.01, right=0.99, top=0.8, bottom=0.03)
    _image_panel(fig.add_subplot(grid[0]), cards[0], f"card ({cards.shape[1]}×{cards.shape[2]})",
                 cmap=CARD_CMAP, vmin=0.0, vmax=1.0)
    _image_panel(fig.add_subplot(grid[1]), illum, f"light on the {rows}×{cols} photocells",
                 cmap="gray", vmin=0.0, vmax=max(1.0, float(illum.max())))
    _lamps(fig.add_subplot(grid[2]), s[0], (rows, cols),
           title=f"S-units firing: {int(s[0].sum())} of {n_s}")
    _lamps(fig.add_subplot(grid[3]), phi[0], unit_grid(n_a),
           title=f"A-units firing: {int(phi[0].sum())} of {n_a}")
    title = f"{machine.spec.name}: what the machine makes of one card"
    if hasattr(machine, "rack_"):
        x = np.append(phi[0].astype(float), 1.0)
        sums = machine.weights_ @ x
        answer = machine.classes_[machine.code_.decode(sums[None])[0]]
        said = ", ".join(f"R{k + 1} {v:+.3f}" for k, v in enumerate(sums))
        title += f" — {'sums' if len(sums) > 1 else 'sum'} {said}, answer \u201c{answer}\u201d"
    fig.suptitle(title, fontsize=10)
    one_message(fig)                     # card, light, S-units, A-units: one picture read left to right
    if out is not None:
        save_figure(fig, out, dpi=110)
    return fig


# ----------------------------------------------------------------------------------------
# the potentiometer rack as dials

#: Sweep of a dial from end stop to end stop (radians), centred on "up".
_DIAL_SWEEP = 1.5 * np.pi


def _pots_shown(machine, w, mask, card, top) -> tuple[list[np.ndarray], str]:
    """Which pots each R-unit's panel shows (A-unit indices, bias not included), and the words for it."""
    n_units, n_in = w.shape
    n_a = n_in - 1
    if card is not None:
        cards = np.asarray(card)
        cards = cards[None] if cards.ndim == 2 else cards
        if cards.ndim != 3 or len(cards) != 1:
            raise InputError(f"card: expected one card of shape (H, W), got shape {np.shape(card)}")
        firing = np.flatnonzero(np.asarray(machine.associate(machine.sense(cards)))[0])
        shown = [firing[mask[k, firing]] for k in range(n_units)]
        which = f"the pots of the {len(firing)} A-units this card fires"
        if max(len(s) for s in shown) > 64:                   # a readable panel: the 64 furthest moved
            shown = [np.sort(s[np.argsort(-np.abs(w[k, s]), kind="stable")[:64]]) for k, s in enumerate(shown)]
            which += " (the 64 moved furthest)"
        return shown, which
    shown = []
    for k in range(n_units):
        have = np.flatnonzero(mask[k, :n_a])
        order = np.argsort(-np.abs(w[k, have]), kind="stable")[:top]
        shown.append(np.sort(have[order]))
    return shown, f"each R-unit's {top} pots moved furthest from 0"


def _dial_panel(ax, wk, have, idx, n_a, dcols, drows, scale_colors) -> None:
    """One R-unit's dials: the pots ``idx`` (bias last) with wiper positions ``wk``; ``have`` marks
    the pots the rack has (the others are drawn grey, without pointer)."""
    m = len(idx) - 1
    r, c = np.divmod(np.arange(m), dcols)
    cx = np.r_[c, dcols + 0.35].astype(float)
    cy = np.r_[r, (drows - 1) / 2.0].astype(float)
    radius = np.r_[np.full(m, 0.34), 0.42]
    faces = np.where(have[:, None], np.array([0.96, 0.96, 0.93, 1.0]), np.array([0.75, 0.75, 0.75, 1.0]))
    d = 2 * radius
    ax.add_collection(EllipseCollection(d, d, np.zeros(len(idx)), units="xy", offsets=np.c_[cx, cy],
                                        offset_transform=ax.transData, facecolors=faces,
                                        edgecolors="0.35", linewidths=0.6))
    # end stops: short radial ticks at -1 and +1
    stops = np.array([np.pi / 2 + _DIAL_SWEEP / 2, np.pi / 2 - _DIAL_SWEEP / 2])
    ang = np.repeat(stops[None, :], have.sum(), axis=0).ravel()
    hx, hy, hr = (np.repeat(v[have], 2) for v in (cx, cy, radius))
    ticks = np.stack([np.c_[hx + 0.65 * hr * np.cos(ang), hy - 0.65 * hr * np.sin(ang)],
                      np.c_[hx + hr * np.cos(ang), hy - hr * np.sin(ang)]], axis=1)
    # LineCollection takes an (n, 2, 2) array; its stubs ask for a Sequence
    ax.add_collection(LineCollection(cast(Any, ticks), colors="0.45", linewidths=0.8))
    # pointers
    on = wk[have]
    theta = np.pi / 2 - np.clip(on, -1.0, 1.0) * (_DIAL_SWEEP / 2)
    px, py, pr = cx[have], cy[have], 0.9 * radius[have]
    seg = np.stack([np.c_[px, py], np.c_[px + pr * np.cos(theta), py - pr * np.sin(theta)]], axis=1)
    at_stop = np.abs(on) >= 1.0 - 1e-9
    colors = scale_colors.to_rgba(on)
    colors[at_stop] = (0.0, 0.0, 0.0, 1.0)
    lw = np.where(at_stop, 3.0, 2.0)
    # outlined, so that a pointer near 0 (white on the weights' colour map) still shows on the dial
    ax.add_collection(LineCollection(cast(Any, seg), colors=colors, linewidths=lw, capstyle="round",
                                     path_effects=[withStroke(linewidth=lw.max() + 1.4, foreground="0.3")]))
    for x, y, rr, a, v, h in zip(cx, cy, radius, idx, wk, have):
        name = "bias" if a == n_a else f"A{a + 1}"
        ax.text(x, y + rr + 0.02, f"{name}\n{v:+.3f}" if h else f"{name}\n(none)", ha="center",
                va="top", fontsize=6.5, linespacing=0.95)
    ax.set_xlim(-0.5, dcols + 0.9)
    ax.set_ylim(drows - 0.15, -0.5)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def dials_figure(machine: MarkI, *, card: ArrayLike | None = None, top: int = 16,
                 out: str | os.PathLike | None = None) -> Figure:
    """The pots that matter, as dials large enough to read: one panel per R-unit in use.

    Which pots: with ``card``, the pots of the A-units that fire on that card (the ones
    the trainer would turn if the machine erred on it); otherwise each R-unit's ``top``
    pots that have travelled furthest from 0 (the wipers start at 0, so these are the
    pots learning moved most). The bias pot is always shown, as the last dial.

    Each dial's pointer shows its wiper position: straight up is 0, the end stops at -1
    and +1 full scale are 135° either side (grey ticks). The pointer colour shows the
    position on a scale stretched to the largest wiper of the rack (the colour bar),
    since wipers often travel only a few per cent of full scale; a pointer at an end
    stop is drawn black and thick. Under each dial: the A-unit it belongs to (numbered
    from 1) and its position.

    Parameters
    ----------
    machine : mark1.MarkI
        A trained machine.
    card : array of shape (H, W), optional
        Show the pots of the A-units this card fires (read from a dark-adapted retina).
    top : int
        Pots per R-unit when no card is given (1 to 64).
    out : str or path-like, optional
        Where to save the figure (atomically; PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure
        One axes per R-unit in use, plus a colour bar.

    Raises
    ------
    mark1.exceptions.InputError
        For a bad ``top`` or anything but one card.

    Examples
    --------
    >>> import numpy as np, mark1
    >>> cards = np.ones((4, 20, 20)); cards[0::2, 4:16, 9:11] = 0.05; cards[1::2, 9:11, 4:16] = 0.05
    >>> machine = mark1.MarkI(spec=mark1.SMALL, seed=0).fit(cards, ["|", "-", "|", "-"])
    >>> fig = dials_figure(machine, top=8)
    >>> len(fig.axes), fig.axes[0].get_title().split(" — ")[0]     # one R-unit, a colour bar
    (2, 'R-unit 1: + |, − -')
    >>> [t.get_text().split()[0] for t in fig.axes[0].texts][-1]
    'bias'
    """
    w = np.asarray(machine.weights_, dtype=float)             # raises if not trained
    mask = np.asarray(machine.rack_.mask, dtype=bool)
    n_units, n_in = w.shape
    n_a = n_in - 1
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or not 1 <= top <= 64:
        raise InputError(f"top: expected an integer from 1 to 64, got {top!r}")
    shown, which = _pots_shown(machine, w, mask, card, top)
    scale = max(float(np.abs(w[mask]).max()) if mask.any() else 0.0, 1e-12)
    norm = Normalize(-scale, scale)
    cmap = WEIGHT_CMAP

    n_dials = max(max((len(s) for s in shown), default=0), 1)
    dcols = int(min(n_dials, 8 if n_units > 1 else 12))
    drows = -(-n_dials // dcols)
    ncols = 1 if n_units == 1 else 2
    nrows = -(-n_units // ncols)
    unit = 0.62                                               # inches per dial pitch
    pw, ph = unit * (dcols + 1.6), unit * (drows + 0.35)         # panel size = data extent
    gap_w, gap_h, top_in, right = 0.25, 0.55, 0.85, 1.3      # inches
    fig_w = max(ncols * (pw + gap_w) + gap_w + right, 7.5)   # wide enough for the title
    x0 = (fig_w - (ncols * (pw + gap_w) + gap_w + right)) / 2
    fig_h = max(nrows * (ph + gap_h) + top_in, 1.6 + top_in + 0.3)    # room for the colour bar
    fig = new_figure(fig_w, fig_h)

    labels = _unit_labels(machine)
    for k in range(n_units):
        i, j = divmod(k, ncols)
        left = x0 + gap_w + j * (pw + gap_w)
        bottom = fig_h - top_in - (i + 1) * ph - i * gap_h
        ax = fig.add_axes((left / fig_w, bottom / fig_h, pw / fig_w, ph / fig_h))
        idx = np.r_[shown[k], n_a].astype(int)             # the pots drawn, bias last
        _dial_panel(ax, w[k, idx], mask[k, idx], idx, n_a, dcols, drows, ScalarMappable(norm=norm, cmap=cmap))
        n_stop = int((np.abs(w[k][mask[k]]) >= 1.0 - 1e-9).sum())
        ax.set_title(f"{labels[k]} — largest |wiper| {np.abs(w[k][mask[k]]).max(initial=0.0):.3f}"
                     + (f", {n_stop} at an end stop" if n_stop else ""), fontsize=8)
    cb_h = min(max(nrows * ph + (nrows - 1) * gap_h, 1.6), 4.0)
    cax = fig.add_axes(((x0 + ncols * (pw + gap_w) + gap_w + 0.2) / fig_w, (fig_h - top_in - cb_h) / fig_h,
                        0.15 / fig_w, cb_h / fig_h))
    fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), cax=cax, label="wiper position (full scale)")
    fig.suptitle(f"{machine.spec.name}: the potentiometer rack, {which}\n({int(mask.sum())} pots in all; "
                 f"pointer up = 0, end stops at ±1 full scale)", fontsize=9, y=1 - 0.08 / fig_h, va="top")
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig


# ----------------------------------------------------------------------------------------
# what each R-unit looks for

def weights_on_retina_figure(machine: MarkI, *, out: str | os.PathLike | None = None) -> Figure:
    """What the machine looks for: each R-unit's weights projected back onto the retina.

    For R-unit k the image is ``Σ_a w[k, a] · connections[:, a]`` (bias left out): every
    A-unit spreads its wiper position over the photocells it is wired to, with a plus
    sign on its excitatory inputs and a minus sign on its inhibitory ones. Ink on a red
    cell pushes the unit's sum up (towards its "+" class), ink on a blue cell pushes it
    down (with ``polarity = "figure"`` S-units fire on ink). One panel per R-unit in
    use, one diverging colour scale centred at 0 shared by all panels.

    Parameters
    ----------
    machine : mark1.MarkI
        A trained machine.
    out : str or path-like, optional
        Where to save the figure (atomically; PNG unless the file ending says otherwise).

    Returns
    -------
    matplotlib.figure.Figure
        One image per R-unit in use (its data is the projection, rows × cols of the
        retina, in full-scale wiper units), plus a colour bar.

    Examples
    --------
    >>> import numpy as np, mark1
    >>> cards = np.ones((4, 20, 20)); cards[0::2, 4:16, 9:11] = 0.05; cards[1::2, 9:11, 4:16] = 0.05
    >>> machine = mark1.MarkI(spec=mark1.SMALL, seed=0).fit(cards, ["|", "-", "|", "-"])
    >>> fig = weights_on_retina_figure(machine)
    >>> len(fig.axes), fig.axes[0].images[0].get_array().shape     # one R-unit, a colour bar
    (2, (20, 20))
    """
    images = _projected_weights(machine.weights_, machine.patchboard.connections,
                                machine.patchboard.retina_shape)
    bias = np.asarray(machine.weights_)[:, -1]
    n = len(images)
    vmax = max(float(np.abs(images).max()), 1e-12)
    ncols = min(n, 4)
    nrows = -(-n // ncols)
    side, gap_w, gap_h, top, right = 2.6, 0.25, 0.6, 0.45, 1.3      # inches
    content = ncols * (side + gap_w) + gap_w + right
    fig_w = max(content, 7.0)                                        # room for the title
    x0 = (fig_w - content) / 2                                       # centred
    fig_h = nrows * (side + gap_h) + top
    fig = new_figure(fig_w, fig_h)
    labels = _unit_labels(machine)
    im = None
    for k in range(n):
        i, j = divmod(k, ncols)
        ax = fig.add_axes(((x0 + gap_w + j * (side + gap_w)) / fig_w,
                           (fig_h - top - gap_h - (i + 1) * side - i * gap_h + 0.1) / fig_h,
                           side / fig_w, side / fig_h))
        im = ax.imshow(images[k], cmap=WEIGHT_CMAP, vmin=-vmax, vmax=vmax, interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(f"{labels[k]}\nbias {bias[k]:+.3f}", fontsize=8)
    cb_h = min(nrows * side + (nrows - 1) * gap_h, 4.0)
    cax = fig.add_axes(((x0 + content - right + 0.2) / fig_w, (fig_h - top - gap_h - cb_h + 0.1) / fig_h,
                        0.15 / fig_w, cb_h / fig_h))
    fig.colorbar(cast(Any, im), cax=cax, label="Σ w · connection (full scale)")
    fig.suptitle(f"{machine.spec.name}: what the machine looks for\n(weights projected through "
                 f"the patch board onto the retina; red: ink here pushes the sum up)", fontsize=9,
                 y=1 - 0.05 / fig_h, va="top")
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig
