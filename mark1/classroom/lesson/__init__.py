"""The lesson page: a short training run taken apart card by card, in one HTML file.

>>> from mark1.lesson import build
>>> build("scenes/demo.toml", "runs/lesson", seed=0, cards=20)      # doctest: +SKIP

The numbers are the machine's own. The retina and the patch board are those of
``MarkI(spec, seed)``; the run is :func:`mark1.simulator.simulate` itself, with the
machine's own seed streams, so it is the very run ``MarkI.fit`` makes (the tests
check it presentation by presentation). Around it we only listen:

* a full :class:`~mark1.simulator.Trace` whose listener, at each "R read" event,
  reads the wiper positions of the rack at that instant (the pots that make the sum);
* this run's own :class:`~mark1.potentiometers.PotentiometerRack` with its ``plan`` and
  ``apply`` wrapped, so every command's pots, their positions before and after, the backlash
  taken up and the motors' run times are recorded as the rack worked them out.

The A-units lit at each presentation are the patch board's answer to the S-units the
retina gives for the schedule the run actually kept (the times of the history), and
they are checked against the machine's own counts. The page (``lesson.html``) embeds
everything as JSON, with ``lesson.js`` and ``lesson.css`` of this package inlined, and
the device plots of :mod:`mark1.device` as images: it opens from disk, no server, no
network.

Numbering: arrays and the JSON count from 0; the page numbers cards and presentations
from 1 for people.
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

from mark1._utils.atomic import write_text
from mark1.machine.mark_i import MarkI
from mark1.machine.patchboard import with_bias
from mark1._utils.progress import progress_bar
from mark1.stimuli.cards import scene_cards
from mark1.machine.simulator import Trace, simulate

__all__ = ["record", "build", "render_page"]

#: deck cards in a lesson when ``cards`` is not given (a short run a class can follow)
DEFAULT_CARDS = 20


def _scene(scene):
    from mark1.stimuli.scenes import Scene, load_scene
    return scene if isinstance(scene, Scene) else load_scene(scene)


def record(scene, *, seed: int = 0, cards: int | None = None, epochs: int | None = None,
           spec=None, progress: bool = False) -> dict:
    """Run a scene's machine on a short deck with everything recorded.

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
        (PNG data URLs of the deck), ``wiring`` (each A-unit's excitatory and inhibitory
        S-units), ``pres`` (one entry per presentation, see :func:`_presentation`).
    """
    scene = _scene(scene)
    spec = scene.machine_spec() if spec is None else spec
    if cards is None:                       # a short deck, with every class on it
        cards = min(scene.settings["train"].count, max(DEFAULT_CARDS, len(scene.classes)))
    train, _, seed_machine = scene_cards(scene, seed, train_count=cards)
    epochs = scene.schedule.epochs if epochs is None else epochs
    machine = MarkI(spec=spec, seed=seed_machine, trace="full")
    # the cards, code, schedule and rack exactly as MarkI.fit makes them (same seed streams)
    run = machine._prepare(train.cards, train.labels, epochs, scene.schedule.order)
    deck, classes, label_index, code = run.cards, run.classes, run.label_index, run.code
    schedule, epoch_of, rack = run.schedule, run.epoch_of, run.rack
    retina, board = machine.retina, machine.patchboard

    reads: dict[int, tuple[float, np.ndarray, list[str]]] = {}
    motors: dict[int, list[float]] = {}
    reinforced = [-1]                       # the presentation of the latest reinforcement

    def listen(t, event, p, detail):
        if event == "reinforce":
            reinforced[0] = p
        elif event == "R read":
            reads[p] = (t, rack.positions(t))
        elif event in ("motors start", "motors queued", "motors stop"):
            motors.setdefault(p, []).append(t)

    # A move is recorded when the rack sets it going (apply), with the command of the plan
    # just made for it: with a driver limit the rack plans the whole command first, then
    # plans and applies each pot when its driver is free.
    by_pres: dict[int, list] = {}
    plan, apply = rack.plan, rack.apply
    commanded = [None]

    def recording_plan(command, now):
        planned = plan(command, now)
        commanded[0] = command[planned[0]].copy()
        return planned

    def recording_apply(*planned_and_t0):
        apply(*planned_and_t0)
        *planned, t0 = planned_and_t0
        by_pres.setdefault(reinforced[0], []).append((t0, commanded[0], planned))

    rack.plan, rack.apply = recording_plan, recording_apply
    trace = Trace("full", listener=listen)
    bar = progress_bar(len(schedule), "card", show=progress)
    result = simulate(spec=spec, retina=retina, patchboard=board, rack=rack, light=retina.light(deck),
                      order=schedule, epoch_of=epoch_of, label_index=label_index, code=code,
                      noise_rng=machine._rng("noise"), trace=trace,
                      progress=bar.update)
    bar.close()
    hist = result.history

    s_states, phi = _sensed(machine, deck, schedule, hist)
    x = with_bias(phi)
    sigma = spec.rack.wiper_noise
    pres = []
    for p, row in enumerate(hist):
        t_read, pos = reads[p]
        read = result.sums[p]
        sums_text = [f"{v:+.4g}" for v in read]                     # as the trace writes them
        entry = _presentation(p, row, t_read, pos, sums_text, x[p], s_states[p], rack.mask,
                              by_pres.get(p, []), motors.get(p, []))
        # the read sums are the machine's; the wipers we read must account for them
        clean = np.array(entry["clean"])
        active = (x[p][None, :] * rack.mask).sum(axis=1)
        slack = 6 * sigma * np.sqrt(active) + 1e-9 * (1.0 + np.abs(read))     # read noise; rounding
        if np.any(np.abs(read - clean) > slack):
            raise RuntimeError(f"lesson: presentation {p}: wiper positions read give sums {clean.tolist()}, "
                               f"the machine read {sums_text}")
        pres.append(entry)

    rows, cols = spec.retina.shape
    conn = board.connections
    tm, rs = spec.timing, spec.rack
    meta = {
        "scene": scene.name, "scene_file": str(scene.path or ""), "seed": seed, "machine": spec.name,
        "rows": rows, "cols": cols, "n_a": board.n_associators, "a_threshold": board.a_threshold,
        "quantum": QUANTUM, "n_units": code.n_units, "classes": [str(c) for c in classes], "code": code.describe(),
        "code_kind": code.kind, "targets": code.targets.tolist(),
        "rule": spec.trainer.rule, "increment": spec.trainer.increment,
        "period": tm.period, "card_change": tm.card_change, "settle": tm.settle,
        "a_delay": tm.a_delay, "r_delay": tm.r_delay, "overlap": tm.overlap,
        "drive": rs.drive, "motor_speed": _finite(rs.motor_speed), "backlash": rs.backlash,
        "end_stops": rs.end_stops, "wiper_noise": sigma, "decay_time": _finite(rs.decay_time),
        "epochs": int(epochs), "deck": len(deck), "presentations": int(len(hist)),
        "mistakes_per_epoch": result.mistakes_per_epoch.tolist(), "machine_time": result.machine_time,
        "waited": result.waited,
    }
    return {
        "meta": meta,
        "cards": [_png_data_url(c) for c in deck],
        "labels": [int(v) for v in label_index],
        "wiring": [[np.flatnonzero(conn[:, a] > 0).tolist(), np.flatnonzero(conn[:, a] < 0).tolist()]
                   for a in range(board.n_associators)],
        "pres": pres,
    }


def _finite(v: float):
    return v if math.isfinite(v) else None


def _sensed(machine, deck, schedule, hist):
    """S-unit states and A-unit outputs of every presentation, on the schedule the run kept.

    Each card stays lit until the next card change (longer where the next card waited
    for the motors); the readings are checked against the run's own counts.
    """
    tm = machine.spec.timing
    retina = machine.retina
    start = hist["start"]
    lit = np.full(len(start), tm.period - tm.card_change)
    lit[:-1] = np.diff(start) - tm.card_change
    from mark1.machine.retina import RetinaState
    signal, _ = retina.expose(retina.light(deck[schedule]), lit, RetinaState.dark(retina.n_cells),
                              card_change=tm.card_change, settle=tm.settle)
    s = retina.fire(signal)
    phi = machine.patchboard.associate(s)
    if not (np.array_equal(s.sum(axis=1), hist["s_active"]) and np.array_equal(phi.sum(axis=1), hist["a_active"])):
        raise RuntimeError("lesson: the S- and A-units recomputed for the run's schedule disagree with "
                           "the counts the machine logged")
    return s, phi


def _presentation(p, row, t_read, pos, sums_text, x, s, mask, planned, motor_times) -> dict:
    """One presentation as the page needs it.

    Keys: ``c`` deck card, ``e`` epoch, ``y`` label and ``r`` response (class indices),
    ``ok``, ``t`` card change and ``tr`` read time (s), ``s`` S-units lit (hex, row-major
    bits), ``a`` A-units lit, ``w`` per R-unit the wiper positions of the pots of the lit
    A-units then the bias pot (None where the topology has no pot; in 1/QUANTUM full
    scale), ``clean`` their sums, ``sums`` the sums the machine read (as its trace
    writes them, 4 significant digits, with read noise), ``mv`` the pots commanded (unit, pot, then in
    1/QUANTUM full scale or seconds: command, before, after, backlash time, run time),
    ``m0``/``m1`` motors start and stop (s), ``wait`` s the next card waited.
    """
    active = np.flatnonzero(x[:-1] > 0)
    cols = np.append(active, len(x) - 1)
    w = [[_q(pos[k, i]) if mask[k, i] else None for i in cols] for k in range(len(pos))]
    clean = [float(np.sum(pos[k, cols] * mask[k, cols])) for k in range(len(pos))]
    mv = []
    for now, cmd, (idx, start, target, slack_time, duration, _direction) in planned:
        for j in range(len(cmd)):
            mv.append([int(idx[0][j]), int(idx[1][j]), _q(cmd[j]), _q(start[j]), _q(target[j]),
                       _q(slack_time[j]), _q(duration[j])])
    bits = np.packbits(s.astype(np.uint8))
    entry = {
        "c": int(row["card"]), "e": int(row["epoch"]), "y": int(row["label"]), "r": int(row["response"]),
        "ok": bool(row["correct"]), "t": round(float(row["start"]), 6), "tr": round(float(t_read), 6),
        "s": bits.tobytes().hex(), "a": active.tolist(), "w": w, "clean": clean, "sums": sums_text,
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
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.rint(np.clip(card, 0, 1) * 255).astype(np.uint8), mode="L").save(buf, "PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figure_data_url(fig) -> str:
    """A matplotlib figure as a small PNG (palette of 64 colours) data URL."""
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB").quantize(colors=64)
    out = io.BytesIO()
    img.save(out, "PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def device_images(spec, progress: bool = False) -> dict:
    """The rack and photocell response plots of ``spec`` as data URLs."""
    from mark1.classroom.device import photocell_figure, photocell_response, rack_figure, rack_response
    bar = progress_bar(2, "plot", show=progress)
    images = {}
    for name, response, figure in (("rack", rack_response, rack_figure),
                                   ("photocell", photocell_response, photocell_figure)):
        images[name] = _figure_data_url(figure(response(spec)))
        bar.update(1)
    bar.close()
    return images


def render_page(data: dict, devices: dict | None = None) -> str:
    """The self-contained HTML page for recorded ``data`` (see :func:`record`)."""
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
        Folder for ``lesson.html``.
    seed, cards, epochs, progress
        As in :func:`record`.
    devices : bool
        Include the device plots (:mod:`mark1.device`) of the scene's machine.

    Returns
    -------
    Path of the page.
    """
    scene = _scene(scene)
    data = record(scene, seed=seed, cards=cards, epochs=epochs, progress=progress)
    imgs = device_images(scene.machine_spec(), progress) if devices else None
    path = Path(out) / "lesson.html"
    write_text(path, render_page(data, imgs))
    return path
