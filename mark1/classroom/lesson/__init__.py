"""The lesson page: a short training run taken apart card by card, in one HTML file.

The numbers are the machine's own. The run is ``MarkI(spec, seed, trace="full").fit``
on the cards of :func:`mark1.stimuli.cards.scene_cards`, as ``mark1 run`` makes it, and
the page reads the machine's full trace: its events, and per presentation what the
trainer read (the S- and A-units lit, the wipers of the pots that made each sum,
:class:`~mark1.machine.simulator.Reading`) and every move as the rack set it going
(command, positions before and after, backlash taken up, motor run time,
:class:`~mark1.machine.simulator.Move`). Nothing is recomputed here.

The page (``lesson.html``) embeds everything as JSON, with ``lesson.js`` and
``lesson.css`` of this package inlined, and the device plots of
:mod:`mark1.classroom.device` as images: it opens from disk, no server, no network.

Numbering: arrays and the JSON count from 0; the page numbers cards and presentations
from 1 for people. :func:`build` writes the page.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from importlib import resources
from pathlib import Path

import numpy as np
from PIL import Image

from mark1._utils.atomic import write_text
from mark1._utils.progress import progress_bar
from mark1.classroom.device import (photocell_response, photocell_response_figure, rack_response,
                                    rack_response_figure)
from mark1.machine.mark_i import MarkI
from mark1.stimuli.cards import scene_cards
from mark1.stimuli.scenes import Scene, load_scene

__all__ = ["record", "build", "render_page"]

#: deck cards in a lesson when ``cards`` is not given (a short run a class can follow)
DEFAULT_CARDS = 20

#: the trace's events of the motors, whose times the page shows
_MOTOR_EVENTS = ("motors start", "motors queued", "motors stop")


def _scene(scene) -> Scene:
    return scene if isinstance(scene, Scene) else load_scene(scene)


def record(scene, *, seed: int = 0, cards: int | None = None, epochs: int | None = None,
           spec=None, progress: bool = False) -> dict:
    """Run a scene's machine on a short deck and take its full trace apart, card by card.

    Parameters
    ----------
    scene : Scene or path
    seed : int
        Seed of the run (the same cards and machine as ``mark1 run --seed``).
    cards : int, optional
        Training cards in the deck (default the scene's count, at most 20 or one per class).
    epochs : int, optional
        Passes over the deck (default the scene's).
    spec : MachineSpec, optional
        The machine (default the scene's).
    progress : bool
        Show a progress bar on a terminal.

    Returns
    -------
    dict
        JSON-ready: ``meta`` (machine, timing, classes, per-epoch mistakes), ``cards``
        (PNG data URLs of the deck), ``labels`` (class index of each deck card),
        ``wiring`` (each A-unit's excitatory and inhibitory S-units), ``pres`` (one
        entry per presentation, see :func:`_presentation`).

    Examples
    --------
    >>> data = record("scenes/demo.toml", seed=0, cards=4, epochs=2)
    >>> data["meta"]["classes"], data["meta"]["presentations"], len(data["pres"])
    (['E', 'X'], 8, 8)
    >>> first = data["pres"][0]            # deck card 0: the sum the machine read, its answer
    >>> first["c"], first["sums"], first["ok"]
    (0, ['+0.008279'], True)
    >>> [len(p["mv"]) for p in data["pres"]]    # pots commanded at each card
    [0, 15, 14, 0, 0, 0, 0, 0]
    """
    scene = _scene(scene)
    spec = scene.machine_spec() if spec is None else spec
    if cards is None:                       # a short deck, with every class on it
        available = scene.settings["train"].count
        if available is None:               # a folder scene without a count: every image once
            available = len(scene.stimuli("train", seed=seed))
        cards = min(available, max(DEFAULT_CARDS, len(scene.classes)))
    train, _, seed_machine = scene_cards(scene, seed, train_count=cards)
    epochs = scene.schedule.epochs if epochs is None else epochs
    machine = MarkI(spec=spec, seed=seed_machine, trace="full")
    machine.fit(train.cards, train.labels, epochs=epochs, order=scene.schedule.order, progress=progress)
    hist, trace, board, code = machine.history_, machine.trace_, machine.patchboard, machine.code_
    motors: dict[int, list[float]] = {}
    for t, event, p, _ in trace:
        if event in _MOTOR_EVENTS:
            motors.setdefault(p, []).append(t)
    moves: dict[int, list] = {}
    for move in trace.moves:
        moves.setdefault(move.presentation, []).append(move)
    pres = [_presentation(row, reading, machine.read_sums_[p], machine.rack_.mask, board.n_sensors,
                          moves.get(p, []), motors.get(p, []))
            for p, (row, reading) in enumerate(zip(hist, trace.readings))]

    rows, cols = spec.retina.shape
    conn = board.connections
    tm, rs = spec.timing, spec.rack
    meta = {
        "scene": scene.name, "scene_file": str(scene.path or ""), "seed": seed, "machine": spec.name,
        "rows": rows, "cols": cols, "n_a": board.n_associators, "a_threshold": board.a_threshold,
        "quantum": QUANTUM, "n_units": code.n_units, "classes": [str(c) for c in machine.classes_],
        "code": code.describe(), "code_kind": code.kind, "targets": code.targets.tolist(),
        "rule": spec.trainer.rule, "increment": spec.trainer.increment,
        "period": tm.period, "card_change": tm.card_change, "settle": tm.settle,
        "a_delay": tm.a_delay, "r_delay": tm.r_delay, "overlap": tm.overlap,
        "drive": rs.drive, "motor_speed": _finite(rs.motor_speed), "backlash": rs.backlash,
        "end_stops": rs.end_stops, "wiper_noise": rs.wiper_noise, "decay_time": _finite(rs.decay_time),
        "epochs": int(epochs), "deck": len(train.cards), "presentations": int(len(hist)),
        "mistakes_per_epoch": machine.mistakes_per_epoch_.tolist(), "machine_time": machine.machine_time_,
        "waited": machine.waited_,
    }
    return {
        "meta": meta,
        "cards": [_png_data_url(c) for c in train.cards],
        "labels": np.searchsorted(machine.classes_, train.labels).tolist(),
        "wiring": [[np.flatnonzero(conn[:, a] > 0).tolist(), np.flatnonzero(conn[:, a] < 0).tolist()]
                   for a in range(board.n_associators)],
        "pres": pres,
    }


def _finite(v: float):
    return v if math.isfinite(v) else None


def _presentation(row, reading, read_sums, mask, n_sensors, moves, motor_times) -> dict:
    """One presentation as the page needs it, from its history row, the trace's reading,
    the sums read, the rack's ``mask``, and the moves and motor event times it commanded.

    Keys: ``c`` deck card, ``e`` epoch, ``y`` label and ``r`` response (class indices),
    ``ok``, ``t`` card change and ``tr`` read time (s), ``s`` S-units lit (hex, row-major
    bits), ``a`` A-units lit, ``w`` per R-unit the wiper positions of the pots of the lit
    A-units then the bias pot (None where the topology has no pot; in 1/QUANTUM full
    scale), ``clean`` their sums, ``sums`` the sums the machine read (as its trace
    writes them, 4 significant digits, with read noise), ``mv`` the pots commanded (unit, pot, then in
    1/QUANTUM full scale or seconds: command, before, after, backlash time, run time),
    ``m0``/``m1`` motors start and stop (s).
    """
    cols = np.append(reading.a_units, mask.shape[1] - 1)        # the lit A-units' pots, then the bias pot
    pos = reading.wipers
    w = [[_q(pos[k, j]) if mask[k, i] else None for j, i in enumerate(cols)] for k in range(len(pos))]
    clean = [float(np.sum(pos[k] * mask[k, cols])) for k in range(len(pos))]
    mv = []
    for move in moves:
        for j in range(len(move.command)):
            mv.append([int(move.unit[j]), int(move.a_unit[j]), _q(move.command[j]), _q(move.start[j]),
                       _q(move.target[j]), _q(move.slack_time[j]), _q(move.duration[j])])
    lit = np.zeros(n_sensors, np.uint8)
    lit[reading.s_units] = 1
    entry = {
        "c": int(row["card"]), "e": int(row["epoch"]), "y": int(row["label"]), "r": int(row["response"]),
        "ok": bool(row["correct"]), "t": round(float(row["start"]), 6), "tr": round(reading.time, 6),
        "s": np.packbits(lit).tobytes().hex(), "a": reading.a_units.tolist(), "w": w, "clean": clean,
        "sums": [f"{v:+.4g}" for v in read_sums],                # as the trace writes them
        "mv": mv,
    }
    if motor_times:
        entry["m0"], entry["m1"] = round(min(motor_times), 6), round(max(motor_times), 6)
    return entry


#: wiper positions, travels and motor times are stored as integers in units of 1/QUANTUM
#: (full scale or seconds): far below the read noise, and a page a third smaller
QUANTUM = 100_000


def _q(v) -> int:
    return int(round(float(v) * QUANTUM))


def _png_data_url(card: np.ndarray) -> str:
    """A card (reflectance in [0, 1], or 8-bit) as a grey PNG data URL."""
    pixels = card if card.dtype == np.uint8 else np.rint(np.clip(card, 0, 1) * 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(pixels, mode="L").save(buf, "PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figure_data_url(fig) -> str:
    """A matplotlib figure as a small PNG (palette of 64 colours) data URL."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB").quantize(colors=64)
    out = io.BytesIO()
    img.save(out, "PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def _device_images(spec, progress: bool = False) -> dict:
    """The rack and photocell response plots of ``spec`` as data URLs."""
    bar = progress_bar(2, "plot", show=progress)
    images = {}
    for name, response, figure in (("rack", rack_response, rack_response_figure),
                                   ("photocell", photocell_response, photocell_response_figure)):
        images[name] = _figure_data_url(figure(response(spec)))
        bar.update(1)
    bar.close()
    return images


def render_page(data: dict, devices: dict | None = None) -> str:
    """The self-contained HTML page for recorded ``data``.

    Parameters
    ----------
    data : dict
        What :func:`record` returns.
    devices : dict, optional
        Device plots as PNG data URLs by name (``rack``, ``photocell``); none when omitted.

    Returns
    -------
    str
        The HTML of ``lesson.html``: the template with the CSS, the data (JSON) and the
        script inlined.

    Examples
    --------
    >>> data = record("scenes/demo.toml", seed=0, cards=4, epochs=1)
    >>> page = render_page(data)
    >>> page.startswith("<!DOCTYPE html>"), "<title>mark1 lesson: Demo: X vs E" in page
    (True, True)
    """
    here = resources.files(__package__)
    template = here.joinpath("lesson.html").read_text(encoding="utf-8")
    css = here.joinpath("lesson.css").read_text(encoding="utf-8")
    js = here.joinpath("lesson.js").read_text(encoding="utf-8")
    payload = json.dumps({**data, "devices": devices or {}}, separators=(",", ":"), allow_nan=False)
    payload = payload.replace("</", "<\\/")                 # nothing in the data can close the script
    title = f"mark1 lesson: {data['meta']['scene']}"
    return (template.replace("{{title}}", html.escape(title)).replace("/*{{css}}*/", css)
            .replace("/*{{data}}*/", payload).replace("/*{{js}}*/", js))


def build(scene, out, *, seed: int = 0, cards: int | None = None, epochs: int | None = None,
          devices: bool = True, progress: bool = False) -> Path:
    """Record a short run of ``scene`` and write ``out/lesson.html`` (atomically).

    Parameters
    ----------
    scene : Scene or path
    out : path
        Folder for ``lesson.html`` (made if missing).
    seed, cards, epochs, progress
        As in :func:`record`.
    devices : bool
        Include the device plots (:mod:`mark1.classroom.device`) of the scene's machine.

    Returns
    -------
    Path
        The page.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     page = build("scenes/demo.toml", folder, seed=0, cards=4, epochs=1, devices=False)
    ...     print(page.name, "lesson-data" in page.read_text())
    lesson.html True
    """
    scene = _scene(scene)
    data = record(scene, seed=seed, cards=cards, epochs=epochs, progress=progress)
    imgs = _device_images(scene.machine_spec(), progress) if devices else None
    path = Path(out) / "lesson.html"
    write_text(path, render_page(data, imgs))
    return path
