"""Figures (matplotlib, Agg backend, object API only: no pyplot state).

matplotlib is imported here and nowhere else in the package; the machine's core never
imports this module. Every function returns a :class:`matplotlib.figure.Figure` and,
when given ``out``, saves it atomically (a temporary file in the same folder, then
``os.replace``), so a figure file is either complete or absent.
"""

from __future__ import annotations


import numpy as np
from matplotlib.figure import Figure

from mark1._utils.atomic import atomic_path
from mark1.viz.figure import new_figure, save_figure
from mark1.exceptions import InputError

__all__ = ["contact_sheet"]


# ----------------------------------------------------------------------------------------
# contact sheet: cards beside what the retina makes of them


def contact_sheet(scene, *, seed: int = 0, per_class: int | None = None, out=None,
                  progress: bool = False) -> Figure:
    """Sample training cards of every class beside what the retina makes of them.

    For each card three small panels: the card (reflectance, white paper), the light on
    the 20×20 photocells (illuminance relative to paper white under nominal lamps, from
    ``MarkI.retina.illuminance``) and the S-units that fire (``MarkI.sense`` with the
    cards shown one after another as on the machine; black = firing). An S-unit drawn
    red fires only because of the cards before it: read from a dark-adapted retina it
    would not. That is light history (a cell lit by earlier cards reads a higher
    resistance, as if dimmer) meeting cell spread (the less sensitive cells sit closest
    to the threshold), and it is why an S-unit can fire on blank paper. A key under the
    panels says so, with this machine's numbers. One row per class; beyond 9 classes the
    rows are set in side-by-side blocks so the sheet keeps a slide's proportions.

    Parameters
    ----------
    scene : mark1.scenes.Scene
    seed : int
        Seed for the cards (train split) and for the machine (photocell spread).
    per_class : int, optional
        Cards shown per class (1 to 12); default 4, or 2 beyond 9 classes.
    out : str or path-like, optional
        Where to save the figure (PNG unless the file ending says otherwise).
    progress : bool
        A progress bar over the cards read (tqdm, only on a terminal).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        For a bad ``per_class``; :class:`mark1.scenes.SceneError` for a bad seed.
    """
    from mark1.machine.mark_i import MarkI

    if per_class is None:
        per_class = 4 if len(scene.classes) <= 9 else 2
    if isinstance(per_class, bool) or not isinstance(per_class, (int, np.integer)) or not 1 <= per_class <= 12:
        raise InputError(f"per_class: expected an integer from 1 to 12, got {per_class!r}")
    from mark1.stimuli.cards import experiment_seeds

    seed_train, _, seed_machine = experiment_seeds(seed)     # the cards and machine of `mark1 run --seed`
    classes = list(scene.classes)
    stim = scene.stimuli("train", seed=seed_train, count=per_class * len(classes))
    picks = [np.flatnonzero(stim.labels == c)[:per_class] for c in classes]
    order = np.concatenate(picks)
    cards = stim.cards[order]

    machine = MarkI(spec=scene.machine_spec(), seed=seed_machine)
    illum = np.asarray(machine.retina.illuminance(cards))
    rows, cols = illum.shape[-2:]
    s_units = np.asarray(machine.sense(cards), dtype=bool).reshape(len(cards), rows, cols)
    from mark1._utils.progress import progress_bar

    bar = progress_bar(len(cards) + 1, "card", show=progress)
    s_alone = np.zeros_like(s_units)
    for i, c in enumerate(cards):                  # each card alone, on a dark-adapted retina
        s_alone[i] = np.asarray(machine.sense(c[None]), dtype=bool).reshape(rows, cols)
        bar.update(1)
    strays = s_units & ~s_alone                    # fire only after the cards before them
    s_rgb = np.ones(s_units.shape + (3,))
    s_rgb[s_units] = 0.0
    s_rgb[strays] = (0.85, 0.1, 0.1)
    light_max = max(1.0, float(illum.max()))

    n_cls = len(classes)
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
    for k, (c, p) in enumerate(zip(classes, picks)):
        r, col0 = k % n_rows, (k // n_rows) * per_block
        for j in range(per_class):
            panels = (
                (cards[i], dict(cmap="gray", vmin=0.0, vmax=1.0)),
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
    fig.suptitle(f"{scene.name} — training cards (seed {seed}) and what the retina makes of them",
                 fontsize=9)
    rs = machine.spec.retina
    key = ("card: reflectance, white paper = 1.   light on cells: relative to paper white under the lamps"
           + (f" (up to {rs.uneven_lighting:.0%} dimmer towards the edges)" if machine.spec.is_on("lens") else "")
           + f".\nS-units: black = firing; an S-unit fires where its light is below {rs.threshold:g} of paper "
           "white (ink).")
    if strays.any():
        key += (f"\nred = fires only because of the cards shown before ({int(strays.sum())} on this sheet): "
                f"a cell lit by earlier cards is light-adapted (reads up to {rs.history_ratio:g}× the resistance), "
                f"and the less sensitive cells (spread ±{rs.cell_spread:.0%}), most at the dimmer edges, "
                f"fall below the threshold even on blank paper.")
    fig.text(0.6 / width, key_h / height, key, ha="left", va="top", fontsize=7, wrap=True)
    if out is not None:
        save_figure(fig, out, dpi=110)
    bar.close()
    return fig


# ----------------------------------------------------------------------------------------
# one training run: the learning curve

def learning_curve(history, *, title: str = "", test_accuracy: float | None = None,
                   reported: float | None = None, window: int | None = None, out=None) -> Figure:
    """Training accuracy against cards presented, with machine time on the top axis.

    The curve is the fraction right over the last ``window`` cards, drawn from the first
    full window on (a fraction over one or two cards says nothing: it would start at
    0 % or 100 %); every wrong answer is a red tick from card 1. Chance (one over the
    number of classes) is a dotted line; the test accuracy after training is a green
    diamond at the end with its value; the reported figure, when there is one, a dashed
    line, so that one never hides the other.

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
        Presentations in the running average (default: one epoch, but at most a quarter
        of the run, so that the curve has a shape).
    out : path, optional
        Where to save the figure (atomically).

    Returns
    -------
    matplotlib.figure.Figure
    """
    correct = np.asarray(history["correct"], dtype=float)
    n = len(correct)
    per_epoch = int(np.sum(history["epoch"] == 0)) if n else 1
    window = max(1, min(window or min(per_epoch, max(n // 4, 1)), n))
    running = np.convolve(correct, np.ones(window) / window, mode="valid")   # cards window..n
    x = np.arange(1, n + 1)
    fig = new_figure(7.5, 4.2)
    fig.set_layout_engine("constrained")
    ax = fig.add_subplot()
    n_classes = len(np.unique(history["label"])) if n else 2
    ax.axhline(1.0 / max(n_classes, 1), color="0.5", lw=1, ls=":", label=f"chance {1 / max(n_classes, 1):.0%}")
    if reported is not None:
        ax.axhline(reported, color="0.25", lw=1.2, ls="--", zorder=1, label=f"reported {reported:.1%}")
    ax.plot(x[window - 1:], running, color="tab:blue", lw=1.8, zorder=3,
            label=f"training accuracy (last {window} cards)")
    wrong = np.flatnonzero(correct == 0)
    ax.plot(wrong + 1, np.zeros_like(wrong, dtype=float) - 0.03, "|", color="tab:red", ms=8,
            label="wrong answer (trainer reinforces)")
    if test_accuracy is not None:
        ax.plot([n], [test_accuracy], "D", color="tab:green", ms=9, zorder=4, clip_on=False,
                label=f"test accuracy after training {test_accuracy:.1%}")
        ax.annotate(f"test {test_accuracy:.1%}", (n, test_accuracy), xytext=(-8, -14),
                    textcoords="offset points", ha="right", fontsize=8, color="tab:green")
    ax.set_xlabel("cards presented")
    ax.set_ylabel("fraction correct")
    ax.set_ylim(-0.07, 1.05)
    ax.set_xlim(0, n + 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    if n > 1 and history["start"][-1] > 0:
        # presentation number -> machine hours at its start, extended linearly past both
        # ends so that ticks outside the data are not clamped onto the last card
        hours = np.asarray(history["start"]) / 3600.0        # strictly increasing
        px = np.r_[x[0] - 1e6, x, x[-1] + 1e6]
        hx = np.r_[hours[0] - 1e6 * (hours[1] - hours[0]), hours, hours[-1] + 1e6 * (hours[-1] - hours[-2])]
        top = ax.secondary_xaxis("top", functions=(lambda p: np.interp(p, px, hx),
                                                   lambda h: np.interp(h, hx, px)))
        top.set_xlabel("machine time (hours)")
    ax.set_title(title, fontsize=11)
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig


# ----------------------------------------------------------------------------------------
# teaching figures: what the machine sees, what it stores, what it looks for

__all__ += ["retina_figure", "rack_figure", "weights_on_retina_figure", "fisher_histograms_figure",
            "training_animation"]


def _grid_shape(n: int) -> tuple[int, int]:
    """Rows and columns of a lamp or dial grid for ``n`` units, about twice as wide as tall.

    An exact factorisation when one is not too elongated (512 -> 16 x 32, 64 -> 4 x 16),
    else ``ceil`` columns with the last row part-filled.
    """
    n = int(n)
    if n <= 0:
        return (1, 1)
    best = None
    for r in range(1, int(np.sqrt(n)) + 1):
        if n % r == 0:
            c = n // r
            score = abs(np.log(c / r) - np.log(2.0))
            if best is None or score <= best[0]:
                best = (score, r, c)
    _, r, c = best
    if c / r > 8:
        r = max(1, int(round(np.sqrt(n / 2.0))))
        c = -(-n // r)
    return (r, c)


def _lamps(ax, on, shape, *, lit="gold", off="0.22", title=None):
    """Draw ``on`` (bool, flat, row-major) as a grid of round lamps on a dark panel.

    Returns the lamps' collection and a function that relights them for a new ``on``.
    """
    from matplotlib.collections import EllipseCollection
    from matplotlib.colors import to_rgba

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
    ax.set_facecolor("0.1")
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


def retina_figure(machine, card, *, out=None) -> Figure:
    """One card through the sensory side: card, light on the cells, S-units, A-units.

    Four panels: the card (reflectance), its illuminance on the 20×20 photocells
    (``machine.retina.illuminance``), the S-units that fire (``machine.sense``, from a
    dark-adapted retina) as a 20×20 grid of lamps, and the A-units that fire
    (``machine.associate``) as a grid of lamps (16×32 for 512 A-units), with the counts
    in the titles. For a trained machine the noise-free R-unit sums and the answer are
    added to the title (reading them draws no noise, so the machine is left as it was).

    Parameters
    ----------
    machine : mark1.MarkI
    card : array of shape (H, W) or (1, H, W)
        Reflectance in [0, 1].
    out : str or path-like, optional

    Returns
    -------
    matplotlib.figure.Figure
        Four axes: two images (card, illuminance) and two lamp grids.
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
    ax = fig.add_subplot(grid[0])
    ax.imshow(cards[0], cmap="gray", vmin=0.0, vmax=1.0, interpolation="nearest")
    ax.set_title(f"card ({cards.shape[1]}×{cards.shape[2]})", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    ax = fig.add_subplot(grid[1])
    ax.imshow(illum, cmap="gray", vmin=0.0, vmax=max(1.0, float(illum.max())), interpolation="nearest")
    ax.set_title(f"light on the {rows}×{cols} photocells", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    _lamps(fig.add_subplot(grid[2]), s[0], (rows, cols),
           title=f"S-units firing: {int(s[0].sum())} of {n_s}")
    _lamps(fig.add_subplot(grid[3]), phi[0], _grid_shape(n_a),
           title=f"A-units firing: {int(phi[0].sum())} of {n_a}")
    title = f"{machine.spec.name}: what the machine makes of one card"
    if hasattr(machine, "rack_"):
        x = np.append(phi[0].astype(float), 1.0)
        sums = machine.weights_ @ x
        answer = machine.classes_[machine.code_.decode(sums[None])[0]]
        title += f" — R-unit sums {np.array2string(sums, precision=3)}, answer {answer}"
    fig.suptitle(title, fontsize=10)
    if out is not None:
        save_figure(fig, out, dpi=110)
    return fig


#: Sweep of a dial from end stop to end stop (radians), centred on "up".
_DIAL_SWEEP = 1.5 * np.pi


def rack_figure(machine, *, card=None, top: int = 16, out=None) -> Figure:
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

    Returns
    -------
    matplotlib.figure.Figure
        One axes per R-unit in use, plus a colour bar.
    """
    from matplotlib.cm import ScalarMappable
    from matplotlib.collections import EllipseCollection, LineCollection
    from matplotlib.colors import Normalize

    w = np.asarray(machine.weights_, dtype=float)             # raises if not trained
    mask = np.asarray(machine.rack_.mask, dtype=bool)
    n_units, n_in = w.shape
    n_a = n_in - 1
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or not 1 <= top <= 64:
        raise InputError(f"top: expected an integer from 1 to 64, got {top!r}")
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
    else:
        shown = []
        for k in range(n_units):
            have = np.flatnonzero(mask[k, :n_a])
            order = np.argsort(-np.abs(w[k, have]), kind="stable")[:top]
            shown.append(np.sort(have[order]))
        which = f"each R-unit's {top} pots moved furthest from 0"
    scale = max(float(np.abs(w[mask]).max()) if mask.any() else 0.0, 1e-12)
    norm = Normalize(-scale, scale)
    cmap = "coolwarm"
    stops = np.array([np.pi / 2 + _DIAL_SWEEP / 2, np.pi / 2 - _DIAL_SWEEP / 2])

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
        ax = fig.add_axes([left / fig_w, bottom / fig_h, pw / fig_w, ph / fig_h])
        idx = np.r_[shown[k], n_a].astype(int)             # the pots drawn, bias last
        m = len(idx) - 1
        r, c = np.divmod(np.arange(m), dcols)
        cx = np.r_[c, dcols + 0.35].astype(float)
        cy = np.r_[r, (drows - 1) / 2.0].astype(float)
        radius = np.r_[np.full(m, 0.34), 0.42]
        have = mask[k, idx]
        faces = np.where(have[:, None], np.array([0.96, 0.96, 0.93, 1.0]), np.array([0.75, 0.75, 0.75, 1.0]))
        d = 2 * radius
        ax.add_collection(EllipseCollection(d, d, np.zeros(len(idx)), units="xy", offsets=np.c_[cx, cy],
                                            offset_transform=ax.transData, facecolors=faces,
                                            edgecolors="0.35", linewidths=0.6))
        # end stops: short radial ticks at -1 and +1
        ang = np.repeat(stops[None, :], have.sum(), axis=0).ravel()
        hx, hy, hr = (np.repeat(v[have], 2) for v in (cx, cy, radius))
        ticks = np.stack([np.c_[hx + 0.65 * hr * np.cos(ang), hy - 0.65 * hr * np.sin(ang)],
                          np.c_[hx + hr * np.cos(ang), hy - hr * np.sin(ang)]], axis=1)
        ax.add_collection(LineCollection(ticks, colors="0.45", linewidths=0.8))
        # pointers
        wk = w[k, idx][have]
        theta = np.pi / 2 - np.clip(wk, -1.0, 1.0) * (_DIAL_SWEEP / 2)
        px, py, pr = cx[have], cy[have], 0.9 * radius[have]
        seg = np.stack([np.c_[px, py], np.c_[px + pr * np.cos(theta), py - pr * np.sin(theta)]], axis=1)
        at_stop = np.abs(wk) >= 1.0 - 1e-9
        colors = ScalarMappable(norm=norm, cmap=cmap).to_rgba(wk)
        colors[at_stop] = (0.0, 0.0, 0.0, 1.0)
        lw = np.where(at_stop, 3.0, 2.0)
        ax.add_collection(LineCollection(seg, colors=colors, linewidths=lw, capstyle="round"))
        for x, y, rr, a, v, h in zip(cx, cy, radius, idx, w[k, idx], have):
            name = "bias" if a == n_a else f"A{a + 1}"
            ax.text(x, y + rr + 0.02, f"{name}\n{v:+.3f}" if h else f"{name}\n(none)", ha="center",
                    va="top", fontsize=6.5, linespacing=0.95)
        ax.set_xlim(-0.5, dcols + 0.9)
        ax.set_ylim(drows - 0.15, -0.5)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        n_stop = int((np.abs(w[k][mask[k]]) >= 1.0 - 1e-9).sum())
        ax.set_title(f"{labels[k]} — largest |wiper| {np.abs(w[k][mask[k]]).max(initial=0.0):.3f}"
                     + (f", {n_stop} at an end stop" if n_stop else ""), fontsize=8)
    cb_h = min(max(nrows * ph + (nrows - 1) * gap_h, 1.6), 4.0)
    cax = fig.add_axes([(x0 + ncols * (pw + gap_w) + gap_w + 0.2) / fig_w, (fig_h - top_in - cb_h) / fig_h,
                        0.15 / fig_w, cb_h / fig_h])
    fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), cax=cax, label="wiper position (full scale)")
    fig.suptitle(f"{machine.spec.name}: the potentiometer rack, {which}\n({int(mask.sum())} pots in all; "
                 f"pointer up = 0, end stops at ±1 full scale)", fontsize=9, y=1 - 0.08 / fig_h, va="top")
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig


def weights_on_retina_figure(machine, *, out=None) -> Figure:
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

    Returns
    -------
    matplotlib.figure.Figure
        One image per R-unit in use (its data is the projection), plus a colour bar.
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
        ax = fig.add_axes([(x0 + gap_w + j * (side + gap_w)) / fig_w,
                           (fig_h - top - gap_h - (i + 1) * side - i * gap_h + 0.1) / fig_h,
                           side / fig_w, side / fig_h])
        im = ax.imshow(images[k], cmap="RdBu_r", vmin=-vmax, vmax=vmax, interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(f"{labels[k]}\nbias {bias[k]:+.3f}", fontsize=8)
    cb_h = min(nrows * side + (nrows - 1) * gap_h, 4.0)
    cax = fig.add_axes([(x0 + content - right + 0.2) / fig_w, (fig_h - top - gap_h - cb_h + 0.1) / fig_h,
                        0.15 / fig_w, cb_h / fig_h])
    fig.colorbar(im, cax=cax, label="Σ w · connection (full scale)")
    fig.suptitle(f"{machine.spec.name}: what the machine looks for\n(weights projected through "
                 f"the patch board onto the retina; red: ink here pushes the sum up)", fontsize=9,
                 y=1 - 0.05 / fig_h, va="top")
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig


def fisher_histograms_figure(X, y, *, bins: int = 30, out=None) -> Figure:
    """PRML Fig. 4.6: projecting two classes onto the mean difference and onto Fisher's w.

    Fits :class:`mark1.baselines.FisherDiscriminant` and projects the data onto the unit
    vector along ``m_1 - m_0`` and onto Fisher's direction ``w ∝ S_W^{-1} (m_1 - m_0)``
    (unit length). Each projection gets a panel of class histograms with the projected
    class means marked and Fisher's criterion ``J`` in the title. When ``X`` is 2-D a
    first panel shows the data with both directions drawn from the overall mean and,
    dashed, the boundary each gives with a threshold half-way between the projected
    class means.

    Parameters
    ----------
    X : array_like of shape (n, d)
    y : array_like of shape (n,)
        Exactly two classes.
    bins : int
    out : str or path-like, optional

    Returns
    -------
    matplotlib.figure.Figure
        Two axes (histograms), three when ``d == 2`` (scatter first).
    """
    from mark1.linear_model._baselines import FisherDiscriminant

    fd = FisherDiscriminant().fit(X, y)
    if len(fd.classes_) != 2:
        raise InputError(f"y: expected exactly 2 classes, got {len(fd.classes_)}")
    X = np.asarray(X, dtype=float)
    yi = np.searchsorted(fd.classes_, np.asarray(y))
    m0, m1 = fd.means_
    dirs = {}
    u = m1 - m0
    dirs["mean difference"] = u / np.linalg.norm(u)
    w = fd.coef_[0]
    dirs["Fisher direction w"] = w / np.linalg.norm(w)
    colors = ("tab:red", "tab:blue")
    two_d = X.shape[1] == 2
    fig = new_figure(12.0 if two_d else 8.5, 3.9)
    axes = fig.subplots(1, 3 if two_d else 2, gridspec_kw=dict(width_ratios=[1.1, 1, 1] if two_d else [1, 1]))
    hist_axes = axes[1:] if two_d else axes
    if two_d:
        ax = axes[0]
        for c in range(2):
            ax.scatter(*X[yi == c].T, s=8, color=colors[c], alpha=0.6, label=str(fd.classes_[c]))
        span = np.ptp(X, axis=0).max()
        xbar = X.mean(axis=0)
        lo, hi = X.min(axis=0) - 0.05 * span, X.max(axis=0) + 0.05 * span
        for (name, v), style in zip(dirs.items(), ("tab:purple", "tab:green")):
            ax.annotate("", xy=xbar + 0.35 * span * v, xytext=xbar,
                        arrowprops=dict(arrowstyle="->", color=style, lw=2))
            thr = 0.5 * (m0 + m1) @ v
            t = np.linspace(-span, span, 2)
            perp = np.array([-v[1], v[0]])
            line = thr * v + t[:, None] * perp
            ax.plot(*line.T, color=style, ls="--", lw=1.3, label=f"boundary, {name}")
        mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo).max()
        ax.set_xlim(mid[0] - half, mid[0] + half)
        ax.set_ylim(mid[1] - half, mid[1] + half)
        ax.set_aspect("equal", adjustable="box")
        ax.legend(fontsize=7, loc="best")
        ax.set_title("data, both directions", fontsize=9)
    for ax, (name, v) in zip(hist_axes, dirs.items()):
        p = X @ v
        edges = np.histogram_bin_edges(p, bins=bins)
        for c in range(2):
            pc = p[yi == c]
            ax.hist(pc, bins=edges, color=colors[c], alpha=0.55, label=str(fd.classes_[c]))
            ax.axvline(pc.mean(), color=colors[c], lw=2)
        ax.set_title(f"projection onto the {name}: J = {fd.criterion(v):.3g}", fontsize=9)
        ax.set_xlabel(f"{name} · x")
        ax.legend(fontsize=7)
    hist_axes[0].set_ylabel("cards")
    fig.suptitle("Fisher's linear discriminant (PRML Fig. 4.6): class means marked", fontsize=10)
    fig.tight_layout()
    if out is not None:
        save_figure(fig, out, dpi=120)
    return fig


def _animation_frames(n_presentations: int, first: int, every: int) -> np.ndarray:
    """Presentation counts after which :func:`training_animation` draws a frame.

    Every ``every``-th presentation counted back from the last, so the frames are evenly
    spaced and the last presentation is always shown; none before ``first``.
    """
    p = np.arange(n_presentations, first - 1, -every)[::-1]
    return p[p >= max(first, 1)]


def training_animation(machine_spec, cards, labels, *, seed, out, epochs: int = 1, every: int = 1,
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
    :func:`weights_on_retina_figure`; one colour scale for the whole film) and the
    running training accuracy. Presentations and deck cards are numbered from 1.

    The sums are those the trainer read in the run (from its full trace). The wipers
    after ``p`` presentations are those of the same machine (same seed, so the same
    wiring, photocells, motors and noise) trained on the first ``p`` presentations of
    the schedule as one deck: the event simulation is causal, so this is exactly the
    state of the full run at that moment. The S- and A-units are read with the cards
    shown in schedule order on the nominal cycle (the run's own states when no card
    waited for the motors). Frames start once every class has been presented.

    Parameters
    ----------
    machine_spec : mark1.specs.MachineSpec
    cards : array of shape (n, H, W)
    labels : array of shape (n,)
    seed : int
    out : str or path-like
        The GIF, written atomically.
    epochs, every : int
    duration : int
        Milliseconds per frame.
    dpi : int
        Resolution of the frames (12.8 × 7.2 inches; at least 79 dpi, so 1000 pixels wide).
    progress : bool
        A progress bar over the frames (tqdm, only on a terminal).

    Returns
    -------
    matplotlib.figure.Figure
        The last frame.
    """
    from PIL import Image

    from mark1.machine.mark_i import MarkI
    from mark1._utils.progress import progress_bar

    for name, v in (("every", every), ("duration", duration), ("dpi", dpi)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"{name}: expected a positive integer, got {v!r}")
    fig_w, fig_h = 12.8, 7.2
    if fig_w * dpi < 1000:
        raise InputError(f"dpi: expected at least {int(np.ceil(1000 / fig_w))} (frames 1000 pixels wide), "
                         f"got {dpi}")
    full = MarkI(spec=machine_spec, seed=seed, trace="full").fit(cards, labels, epochs=epochs)   # checks
    cards = np.asarray(cards, dtype=float)
    labels = np.asarray(labels)
    n = len(cards)
    schedule = np.tile(np.arange(n), epochs)
    n_pres = len(schedule)
    classes = full.classes_
    seen = labels[schedule]
    first = max(int(np.argmax(seen == c)) for c in classes) + 1     # every class presented by then
    frames_at = _animation_frames(n_pres, first + 1, int(every))    # the wipers before need a full code
    hist = full.history_
    code = full.code_
    n_units = code.n_units
    sums = full.read_sums_
    board = full.patchboard
    n_a = board.n_associators

    bar = progress_bar(len(frames_at), "frame", show=progress)
    fits: dict[int, np.ndarray] = {n_pres: full.weights_}

    def wipers(p):
        """The wiper positions after p presentations (exact: a causal refit of the prefix)."""
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
    s_units = np.asarray(full.sense(cards[schedule[:frames_at[-1]]]), dtype=bool)
    a_units = np.asarray(full.associate(s_units), dtype=bool)
    illum = np.asarray(full.retina.illuminance(cards))
    projected = np.asarray([_projected_weights(after, board.connections, board.retina_shape)
                            for _, after in states])               # (frames, units, rows, cols)
    vmax = max(float(np.abs(projected).max()), 1e-12)
    wmax = max(float(np.abs(np.asarray([a for _, a in states])).max()), 1e-12)
    correct = np.asarray(hist["correct"], dtype=float)
    window = n
    running = np.array([correct[max(0, i + 1 - window):i + 1].mean() for i in range(n_pres)])
    rows, cols = board.retina_shape
    targets = np.asarray(code.targets, dtype=float)                 # (classes, units) in ±1

    fig = new_figure(fig_w, fig_h)
    fig.set_dpi(dpi)
    grid = fig.add_gridspec(2, 4, width_ratios=[1, 1, 1.35, 1.25], height_ratios=[1, 1],
                            left=0.06, right=0.98, top=0.86, bottom=0.08, wspace=0.38, hspace=0.42)
    ax_card = fig.add_subplot(grid[0, 0])
    im_card = ax_card.imshow(illum[0], cmap="gray", vmin=0.0, vmax=max(1.0, float(illum.max())),
                             interpolation="nearest")
    ax_s = fig.add_subplot(grid[0, 1])
    ax_a = fig.add_subplot(grid[0, 2])
    ax_r = fig.add_subplot(grid[0, 3])
    ax_pots = fig.add_subplot(grid[1, 0:2])
    ax_w = fig.add_subplot(grid[1, 2])
    im_w = ax_w.imshow(projected[0, 0], cmap="RdBu_r", vmin=-vmax, vmax=vmax, interpolation="nearest")
    ax_acc = fig.add_subplot(grid[1, 3])
    for ax in (ax_card, ax_w):
        ax.set_xticks([])
        ax.set_yticks([])
    (line,) = ax_acc.plot([], [], color="tab:blue", lw=1.8)
    (wrong,) = ax_acc.plot([], [], "|", color="tab:red", ms=8)
    ax_acc.set_xlim(0, n_pres + 1)
    ax_acc.set_ylim(-0.07, 1.05)
    ax_acc.set_xlabel("cards presented", fontsize=9)
    ax_acc.axhline(1.0 / len(classes), color="0.5", ls=":", lw=1)
    ax_acc.tick_params(labelsize=8)
    ax_acc.grid(alpha=0.3)
    suptitle = fig.suptitle("", fontsize=13)

    frames = []
    last = None
    from matplotlib.patches import Patch

    key_pots = [Patch(facecolor="none", edgecolor="0.4", label="before this card"),
                Patch(facecolor="tab:red", label="after (+)"), Patch(facecolor="tab:blue", label="after (−)")]
    _, relight_s = _lamps(ax_s, s_units[0], (rows, cols))
    _, relight_a = _lamps(ax_a, a_units[0], _grid_shape(n_a))
    y = np.arange(n_units)[::-1]
    r_bars = ax_r.barh(y, np.zeros(n_units), height=0.6)
    ax_r.axvline(0.0, color="k", lw=1.2)
    lim = max(float(np.abs(sums).max()), 1e-12) * 1.15
    ax_r.set_xlim(-lim, lim)
    ax_r.set_ylim(-0.7, n_units - 0.3)
    ax_r.set_yticks(y)
    ax_r.tick_params(axis="x", labelsize=8)
    ax_r.set_xlabel("sum of pots × A-units (threshold 0)", fontsize=9)
    ax_r.set_ylabel("R-unit, target sign", fontsize=8, labelpad=1)
    for f, p in enumerate(frames_at):
        i = p - 1                                                  # the presentation shown (index)
        card = schedule[i]
        label_i = int(hist["label"][i])
        answer = classes[hist["response"][i]]
        ok = bool(hist["correct"][i])
        before, after = states[f]
        # 1. the card on the photocells
        im_card.set_data(illum[card])
        ax_card.set_title(f"card {card + 1} of the deck: \"{labels[card]}\"\nlight on the {rows}×{cols} cells",
                          fontsize=10)
        # 2. S-units, 3. A-units
        relight_s(s_units[i])
        relight_a(a_units[i])
        ax_s.set_title(f"S-units firing: {int(s_units[i].sum())} of {rows * cols}", fontsize=10)
        ax_a.set_title(f"A-units firing: {int(a_units[i].sum())} of {n_a}", fontsize=10)
        # 4. R-unit sums against the threshold
        t = targets[label_i]
        s_i = sums[i]
        erring = np.sign(s_i) != t
        for bar_k, v, e in zip(r_bars, s_i, erring):
            bar_k.set_width(v)
            bar_k.set_color("tab:red" if e else "tab:green")
        ax_r.set_yticklabels([f"R{k + 1} {'+' if t[k] > 0 else '−'}" for k in range(n_units)],
                             fontsize=8 if n_units > 2 else 9)
        ax_r.set_title(f"R-units: answer \"{answer}\", " + ("right" if ok else "wrong:\nthe trainer turns pots"),
                       fontsize=10, color="black" if ok else "tab:red")
        # 5. the pots of one R-unit: its firing A-units' pots and the bias, before -> after
        k = int(np.argmax(t)) if code.kind == "one-per-class" else 0
        firing = np.r_[np.flatnonzero(a_units[i]), n_a]
        ax_pots.clear()
        xs = np.arange(len(firing))
        ax_pots.bar(xs, before[k, firing], width=0.8, color="none", edgecolor="0.4", lw=1.0)
        ax_pots.bar(xs, after[k, firing], width=0.5,
                    color=np.where(after[k, firing] >= 0, "tab:red", "tab:blue"))
        moved = int(hist["pots_moved"][i])
        ax_pots.axhline(0.0, color="k", lw=0.8)
        ax_pots.set_ylim(-wmax * 1.15, wmax * 1.15)
        ax_pots.set_xlim(-0.7, len(firing) - 0.3)
        names = [f"A{a + 1}" if a < n_a else "bias" for a in firing]
        step = max(1, -(-len(names) // 30))
        ax_pots.set_xticks(xs[::step], names[::step], rotation=90, fontsize=7)
        ax_pots.tick_params(axis="y", labelsize=8)
        ax_pots.set_ylabel("wiper (full scale)", fontsize=9)
        ax_pots.legend(handles=key_pots, fontsize=8, loc="upper right", frameon=False, ncol=3)
        ax_pots.set_title(f"R{k + 1}'s pots of the firing A-units (end stops at ±1); "
                          f"{moved} pots commanded on this card", fontsize=10)
        # 6. what R-unit k looks for; 7. training accuracy
        im_w.set_data(projected[f, k])
        ax_w.set_title(f"R{k + 1}'s weights on the retina\n(red: ink here pushes its sum up)", fontsize=10)
        x = np.arange(1, p + 1)
        line.set_data(x[window - 1:], running[window - 1:p])
        bad = np.flatnonzero(correct[:p] == 0) + 1
        wrong.set_data(bad, np.full(len(bad), -0.03))
        acc_now = (f"training accuracy, last {window} cards: {running[i]:.0%}" if p >= window
                   else f"training accuracy (drawn from card {window})")
        ax_acc.set_title(f"{acc_now}\n(red ticks: wrong answers)", fontsize=10)
        suptitle.set_text(f"{full.spec.name}: presentation {p} of {n_pres} (epoch {int(hist['epoch'][i]) + 1} "
                          f"of {epochs}), machine time {hist['start'][i]:.6f} s")
        fig.canvas.draw()
        rgba = np.asarray(fig.canvas.buffer_rgba())
        frames.append(Image.fromarray(np.ascontiguousarray(rgba[..., :3])))
        bar.update(0.5)
        last = fig
    bar.close()
    with atomic_path(out) as tmp:
        frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:], duration=int(duration),
                       loop=0)
    return last
