"""The lesson page: a training run taken apart card by card, in one HTML file.

The numbers are the machine's own. The run is ``MarkI(spec, seed, trace="full").fit``
on the cards of :func:`mark1.stimuli.cards.scene_cards`, as ``mark1 run`` makes it (by
default the very run of ``mark1 run SCENE --seed N``: same cards, same machine, same
epochs; a deck too long to step through is cut short, and the page says so), and the
page reads the machine's full trace: its events, and per presentation what the trainer
read (the S- and A-units lit, the wipers of the pots that made each sum,
:class:`~mark1.machine.simulator.Reading`) and every move as the rack set it going
(command, positions before and after, backlash taken up, motor run time,
:class:`~mark1.machine.simulator.Move`). Nothing the machine logged is recomputed.

What PRML chapter 4 adds is derived from that record: the weights after the
corrections so far (each pot where its last move left it), the margin t·(sum − 0) of
each read (the R-unit's threshold is 0, its bias pot inside the sum), the perceptron
criterion E_P (PRML eq. 4.54) over the cards shown so far, Novikoff's bound (R/γ)² with
γ the margin of the final weights, and the reads whose noise-free sum lies within the
read noise's scale of the threshold. After training, the test cards are answered by
``decision_function`` as ``mark1 run`` scores them.

The page (``lesson.html``) embeds everything as JSON, with ``lesson.js`` and
``lesson.css`` of this package inlined, and the device plots of
:mod:`mark1.classroom.device` as images: it opens from disk, no server, no network. It
exposes the trained machine to scripts as ``window.mark1`` (``respond(bits)`` and
``machine``), for the class's own cards drawn in its editor.

Numbering: arrays and the JSON count from 0; the page numbers cards and presentations
from 1 for people. :func:`build` writes the page.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Callable
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any, cast

import matplotlib
import numpy as np
from matplotlib.colors import to_hex
from PIL import Image

from mark1._utils.atomic import write_text
from mark1._utils.language import (CARD_CMAP, FIRING, MISTAKE, NEGATIVE, POSITIVE, SILENT, WEIGHT_CMAP, ZERO,
                                   duration, percent, unit_grid)
from mark1._utils.limits import lesson_deck, lesson_window
from mark1._utils.progress import progress_bar
from mark1.classroom.device import (photocell_response, photocell_response_figure, rack_response,
                                    rack_response_figure)
from mark1.machine.energy import run_energy
from mark1.machine.mark_i import MarkI
from mark1.machine.patchboard import with_bias
from mark1.machine.response import OutputCode
from mark1.machine.rules import erring
from mark1.stimuli.cards import scene_cards
from mark1.stimuli.scenes import Scene, load_scene
from mark1.viz.prml import novikoff_bound

__all__ = ["record", "build", "render_page"]

#: the largest (distinct reads x pots) for which the page gives the best margin (Wolfe's exact
#: minimum-norm point, one core, per R-unit: 0.08 s at parity's 200 x 513, 1.4 s at 955 x 513,
#: 6.1 s at 963 x 1025 measured; so a whole lesson, 1,000 reads of 513 pots, has it)
MAX_MARGIN_SIZE = 600_000

#: test cards the page shows (each a PNG and its S-units): a scene's thousands would make a page of
#: many MB; the test accuracy is still over every test card
MAX_TEST_SHOWN = 200

#: the trace's events of the motors, whose times the page shows
_MOTOR_EVENTS = ("motors start", "motors queued", "motors stop")


def _scene(scene) -> Scene:
    return scene if isinstance(scene, Scene) else load_scene(scene)


def _deck(scene: Scene, cards, epochs, seed: int, n_units: int = 1):
    """Training cards and epochs of the lesson's run, whether they are ``mark1 run``'s, and why not.

    The rule is :func:`mark1._utils.limits.lesson_deck` (which the budget reckons with
    too). Returns ``(train_count, epochs, note)``: ``train_count`` None means the scene's
    own deck; ``note`` is None when the run is ``mark1 run``'s, else what the page shows
    instead (and why, when the lesson cut it, not the user).
    """
    count = scene.settings["train"].count
    available = count if count is not None else len(scene.stimuli("train", seed=seed))
    scene_epochs = scene.schedule.epochs
    asked_cards, asked_epochs = cards, epochs
    cards, epochs = lesson_deck(available, scene_epochs, len(scene.classes), n_units, cards, epochs)
    notes = []
    if cards != available:
        notes.append(f"{cards} of the scene's {available} training cards")
    if epochs != scene_epochs:
        notes.append(f"{epochs} epoch{'s' * (epochs != 1)} instead of the scene's {scene_epochs}")
    cut = (asked_cards is None and cards != available) or (asked_epochs is None and epochs != scene_epochs)
    if notes and cut:
        notes[-1] += f" (its {available * scene_epochs:,} presentations are too many to trace)"
    train_count = None if cards == available else cards          # None: the very deck of mark1 run
    return train_count, int(epochs), "; ".join(notes) or None


def record(scene, *, seed: int = 0, cards: int | None = None, epochs: int | None = None,
           spec=None, progress: bool = False) -> dict:
    """Run a scene's machine and take its full trace apart, card by card.

    Parameters
    ----------
    scene : Scene or path
    seed : int
        Seed of the run (the same cards and machine as ``mark1 run --seed``).
    cards : int, optional
        Training cards in the deck. Default the scene's, as ``mark1 run`` has them (the run is
        ``mark1 run``'s, traced whole), unless that run has more than
        :data:`~mark1._utils.limits.MAX_TRACED` presentations: then as many as fit
        (:func:`~mark1._utils.limits.lesson_deck`). The page replays the run's first
        :func:`~mark1._utils.limits.lesson_window` presentations card by card.
    epochs : int, optional
        Passes over the deck (default the scene's, or fewer when a cut deck is still
        too long).
    spec : MachineSpec, optional
        The machine (default the scene's).
    progress : bool
        Show a progress bar on a terminal.

    Returns
    -------
    dict
        JSON-ready: ``meta`` (machine, timing, classes, per-epoch mistakes, accuracies,
        whether this is ``mark1 run``'s run and what it shows instead, Novikoff's bound,
        the colours), ``cards`` (PNG data URLs of the deck), ``labels`` (class index of
        each deck card), ``wiring`` (each A-unit's excitatory and inhibitory S-units),
        ``pres`` (one entry per presentation, see :func:`_presentation`), ``test`` (the
        first :data:`MAX_TEST_SHOWN` test cards and the machine's answers; the accuracy in
        ``meta`` is over all of them) and ``machine`` (the trained machine for
        the page's ``respond``: A-unit threshold, wipers at rest, tie zone).

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
    >>> data["meta"]["as_run"], data["meta"]["shows_instead"]
    (False, "4 of the scene's 40 training cards; 2 epochs instead of the scene's 5")
    >>> data["meta"]["test_accuracy"], len(data["test"]["answers"])     # the scene's 40 test cards
    (0.8, 40)
    """
    scene = _scene(scene)
    scene_spec = scene.machine_spec()
    spec = scene_spec if spec is None else spec
    train_count, epochs, note = _deck(scene, cards, epochs, seed,
                                      OutputCode(scene.classes, spec.response).n_units)
    if spec != scene_spec:
        note = "; ".join(filter(None, [note, f"the machine {spec.name} instead of the scene's {scene_spec.name}"]))
    train, test, seed_machine = scene_cards(scene, seed, train_count=train_count)
    machine = MarkI(spec=spec, seed=seed_machine, trace="full")
    machine.fit(train.cards, train.labels, epochs=epochs, order=scene.schedule.order, progress=progress)
    run_hist, trace, board, code = machine.history_, machine.trace_, machine.patchboard, machine.code_
    # the page replays the run's first presentations card by card (all of a short run)
    window = lesson_window(len(run_hist), code.n_units)
    hist, readings = run_hist[:window], trace.readings[:window]
    run_moves = [move for move in trace.moves if move.presentation < window]
    motors: dict[int, list[float]] = {}
    for t, event, p, _ in trace:
        if event in _MOTOR_EVENTS and p < window:
            motors.setdefault(p, []).append(t)
    moves: dict[int, list] = {}
    for move in run_moves:
        moves.setdefault(move.presentation, []).append(move)
    mean = spec.response.discrimination == "mean"
    targets = code.targets[hist["label"]]                              # (presentations, units) in ±1
    read_sums = cast(np.ndarray, machine.read_sums_)[:window]      # a full trace keeps the sums read
    erred = erring(targets, read_sums, code.tie)
    pres = [_presentation(row, reading, read_sums[p], machine.rack_.mask, board.n_sensors,
                          moves.get(p, []), motors.get(p, []), targets[p], erred[p], code.tie,
                          spec.rack.wiper_noise, mean)
            for p, (row, reading) in enumerate(zip(hist, readings))]
    criterion, weights_max, s_max, phi_cards, t_cards, replayed = _criterion(
        hist, readings, run_moves, board.connections, machine.rack_.mask.shape, code.targets, len(train.cards))
    for entry, ep in zip(pres, criterion):
        entry["ep"] = _sig(ep)
    for entry, after in zip(pres, pres[1:]):               # the next card's change late for the motors
        wait = after["t"] - (entry["t"] + spec.timing.period)
        if wait > 1e-9:
            entry["wn"] = duration(wait)
    run_final = machine.weights_
    # the PRML panel is about the presentations replayed: the weights at their end (the run's own at rest
    # when it is replayed whole)
    final = run_final if window == len(run_hist) else replayed
    dial_max = max(weights_max, float(np.abs(final).max()), 1e-12)
    s_dial_max = max(s_max, float(np.abs(final[:, :-1] @ board.connections.T).max()), 1e-12)
    s_max = max(s_dial_max, float(np.abs(run_final[:, :-1] @ board.connections.T).max()))
    phis = _phis(readings, board.n_associators)
    train_acc = machine.score(train.cards, train.labels)                # as mark1 run scores them
    test_sums = machine.decision_function(test.cards)
    test_answers = code.decode(test_sums)
    test_right = machine.classes_[test_answers] == test.labels
    test_acc = float(np.mean(test_right))
    shown = slice(0, MAX_TEST_SHOWN)

    rows, cols = spec.retina.shape
    conn = board.connections
    tm, rs = spec.timing, spec.rack
    cmap = matplotlib.colormaps[WEIGHT_CMAP]
    meta = {
        "scene": scene.name, "scene_file": str(scene.path or ""), "seed": seed, "machine": spec.name,
        "rows": rows, "cols": cols, "n_a": board.n_associators, "a_threshold": board.a_threshold,
        "a_grid": list(unit_grid(board.n_associators)),
        "quantum": QUANTUM, "n_units": code.n_units, "classes": [str(c) for c in machine.classes_],
        "code": code.describe(), "code_kind": code.kind, "targets": code.targets.tolist(), "tie": code.tie,
        "rule": spec.trainer.rule, "increment": spec.trainer.increment, "discrimination": spec.response.discrimination,
        "period": tm.period, "card_change": tm.card_change, "settle": tm.settle,
        "period_text": duration(tm.period), "settle_text": duration(tm.settle),
        "a_delay": tm.a_delay, "r_delay": tm.r_delay, "overlap": tm.overlap,
        "drive": rs.drive, "motor_speed": _finite(rs.motor_speed), "backlash": rs.backlash,
        "pots": int(machine.rack_.mask.sum()), "plugs": int(np.count_nonzero(conn)),
        "end_stops": rs.end_stops, "wiper_noise": rs.wiper_noise, "decay_time": _finite(rs.decay_time),
        "epochs": int(epochs), "deck": len(train.cards), "presentations": int(len(hist)),
        "run_presentations": int(len(run_hist)), "window": int(window),
        "window_note": None if window == len(run_hist) else
        (f"the first {window:,} of the run's {len(run_hist):,} presentations are replayed card by card, where the "
         f"learning starts; the mistakes per epoch, the accuracies and the trained machine are the whole run's"),
        "judgement": _judgement(scene, len(machine.classes_), train_acc, test_acc),
        "mistakes_per_epoch": machine.mistakes_per_epoch_.tolist(), "machine_time": machine.machine_time_,
        "machine_time_text": duration(machine.machine_time_), "waited": machine.waited_,
        "waited_text": duration(machine.waited_), "energy_text": run_energy(machine).describe(),
        "as_run": note is None, "shows_instead": note,
        "command": f"mark1 run {scene.argument} --seed {seed}",
        "train_accuracy": train_acc, "train_accuracy_text": percent(train_acc),
        "test_accuracy": test_acc, "test_accuracy_text": percent(test_acc), "test_cards": len(test.cards),
        "test_right": int(test_right.sum()), "test_shown": min(len(test.cards), MAX_TEST_SHOWN),
        "ep_final": _sig(_perceptron_criterion(final, phi_cards, t_cards)),
        "novikoff": _novikoff(final, phis, targets, machine.rack_.mask, erred, code.tie),
        "weights_max": max(dial_max, float(np.abs(run_final).max())), "s_weights_max": s_max,
        "dial_max": dial_max, "s_dial_max": s_dial_max,
        "colours": {"positive": POSITIVE, "negative": NEGATIVE, "zero": ZERO, "firing": FIRING,
                    "silent": SILENT, "mistake": MISTAKE, "card_cmap": CARD_CMAP,
                    "weights": [to_hex(cmap(x)) for x in np.linspace(0.0, 1.0, 11)]},
    }
    s_test = machine.sense(test.cards[shown])
    shown_cards = set(hist["card"].tolist())
    return {
        "meta": meta,
        # the deck's cards the replay shows (a long deck's others are never on the page: null)
        "cards": [_png_data_url(c) if i in shown_cards else None for i, c in enumerate(train.cards)],
        "labels": np.searchsorted(machine.classes_, train.labels).tolist(),
        "wiring": [[np.flatnonzero(conn[:, a] > 0).tolist(), np.flatnonzero(conn[:, a] < 0).tolist()]
                   for a in range(board.n_associators)],
        "pres": pres,
        "test": {"cards": [_png_data_url(c) for c in test.cards[shown]],
                 "labels": np.searchsorted(machine.classes_, test.labels[shown]).tolist(),
                 "answers": test_answers[shown].tolist(),
                 "sums": [[f"{v:+.4g}" for v in row] for row in test_sums[shown]],
                 "s": [np.packbits(s).tobytes().hex() for s in s_test]},
        "machine": {"threshold": board.a_threshold, "wipers": run_final.tolist(), "tie": code.tie, "mean": mean,
                    "mask": machine.rack_.mask.astype(int).tolist()},
    }


def _judgement(scene: Scene, n_classes: int, train_acc: float, test_acc: float) -> str:
    """What a student should make of the run's accuracy, in a sentence or two: chance, the
    scene's design (a predicate the machine cannot learn, by Minsky and Papert), and where
    there is a reported figure, the run beside it.

    Examples
    --------
    >>> _judgement(load_scene("parity"), 2, 0.9, 0.52)          # doctest: +ELLIPSIS
    'Chance is 50 % (2 classes). Chance by design: ...'
    """
    chance = 1.0 / max(n_classes, 1)
    rep = scene.reported
    text = f"Chance is {percent(chance, 0)} ({n_classes} classes)."
    if rep.expect == "chance":
        return (text + f" Chance by design: the analysis of {rep.source.split(':')[0]} leads one to expect a "
                f"perceptron whose A-units each see a few random points to fail here. Near chance on new cards "
                f"({percent(test_acc)} here) is the expected result, not a fault of the machine; the training cards "
                f"can still be learned by heart ({percent(train_acc)} here).")
    if rep.value is None:
        return text
    recall = rep.scored == "recall"
    acc = train_acc if recall else test_acc
    what = "the trained cards shown again" if recall else "new cards"
    bound = "more than " if "lower bound" in rep.note else ""
    text += f" The report: {bound}{percent(rep.value)} on {what}; this run: {percent(acc)}"
    if acc < rep.value - 0.05:
        return text + (f", a hard scene for this machine ({round(100 * (rep.value - acc))} points below; one seed, "
                       f"docs/REENACTMENT.md has ten).")
    return text + "."


def _phis(readings, n_a: int) -> np.ndarray:
    """φ of every presentation as the machine logged it (A-units lit, then the bias): (P, n_a + 1)."""
    phi = np.zeros((len(readings), n_a), bool)
    for p, reading in enumerate(readings):
        phi[p, reading.a_units] = True
    return with_bias(phi).astype(float)


def _perceptron_criterion(weights, phis, targets) -> float:
    """E_P(w) = −Σ_{n∈M} wᵀφ_n t_n (PRML eq. 4.54), summed over the R-units: the cards in
    ``phis`` (n, n_a + 1) with ``targets`` (n, units) that ``weights`` (units, n_a + 1) get
    wrong (a margin ≤ 0; those at 0 add nothing)."""
    margins = targets * (phis @ np.asarray(weights).T)
    return float(-np.minimum(margins, 0.0).sum()) + 0.0            # + 0.0: no "-0" on the page


def _criterion(hist, readings, run_moves, conn, shape, code_targets, n_cards):
    """E_P at each presentation, of the weights the card was read with, over the deck cards
    shown so far (each with the φ of its latest presentation); the largest |wiper| and the
    largest |weight an S-unit carries| (``conn`` (n_s, n_a) times the wipers) of the run,
    for the page's colour scales; the φ and targets of the cards shown (each once, as
    last read); and the weights after the last of ``run_moves`` (those of the presentations
    in ``hist``).

    The weights are the machine's record replayed: each pot where the last move commanded
    before this presentation left it (``Move.target``), from 0 at the start.
    """
    w = np.zeros(shape)
    phis = _phis(readings, shape[1] - 1)
    phi_card = np.zeros((n_cards, shape[1]))
    t_card = np.zeros((n_cards, shape[0]))
    seen = np.zeros(n_cards, bool)
    moves = iter(run_moves)
    move = next(moves, None)
    out, w_max, s_max = [], 0.0, 0.0
    conn = conn.astype(float)
    for p, row in enumerate(hist):
        moved = False
        while move is not None and move.presentation < p:
            w[move.unit, move.a_unit] = move.target
            moved = True
            move = next(moves, None)
        if moved:
            w_max = max(w_max, float(np.abs(w).max()))
            s_max = max(s_max, float(np.abs(w[:, :-1] @ conn.T).max()))
        c = int(row["card"])
        phi_card[c], t_card[c], seen[c] = phis[p], code_targets[row["label"]], True
        out.append(_perceptron_criterion(w, phi_card[seen], t_card[seen]))
    while move is not None:                              # the moves the last presentation commanded
        w[move.unit, move.a_unit] = move.target
        move = next(moves, None)
    return out, w_max, s_max, phi_card[seen], t_card[seen], w


def _novikoff(final, phis, targets, mask, erred, tie) -> list[dict]:
    """Per R-unit: its corrections, R = max ‖φ‖ over the presentations' φ (its own pots),
    and Novikoff's bound (R/γ)² on the corrections of the ideal perceptron twice: with γ
    the margin of the final weights (``gamma``, ``bound``; only when they separate every
    read, ``separates``), and with the largest margin any weights have on these reads
    (``gamma_best``, ``bound_best``, :func:`mark1.viz.prml.novikoff_bound`, with ``digits``, the
    significant digits the solve guarantees, and both written to them; only when the
    reads are linearly separable; ``separable`` False when they are not; neither when they
    are too many, over :data:`MAX_MARGIN_SIZE`)."""
    out = []
    for k in range(len(final)):
        pots = mask[k]
        w, x = final[k][pots], phis[:, pots]
        margins = targets[:, k] * (x @ w)
        norm = float(np.linalg.norm(w))
        radius = float(np.sqrt(x.sum(axis=1).max()))                  # φ is 0/1: ‖φ‖² counts its ones
        entry: dict[str, Any] = {"corrections": int(erred[:, k].sum()), "R": _sig(radius),
                 "separates": bool(norm > 0 and margins.min() > tie)}
        if entry["separates"]:
            gamma = float(margins.min()) / norm
            entry.update(gamma=_sig(gamma), bound=_sig((radius / gamma) ** 2))
        else:
            entry["wrong"] = int((margins <= tie).sum())    # presentations the final weights get wrong
        # the best margin over the distinct (φ, t) of the reads: exact, but its cost grows fast with their size
        pairs = np.unique(np.column_stack([x, targets[:, k]]), axis=0)
        if pairs.size <= MAX_MARGIN_SIZE:
            best = novikoff_bound(pairs[:, :-1], pairs[:, -1])
            if best.gamma > 0:
                digits = _certified_digits(pairs[:, :-1], pairs[:, -1], best)
                entry.update(gamma_best=best.gamma, bound_best=best.from_zero, digits=digits,
                             gamma_best_text=_grouped(best.gamma, digits),
                             bound_best_text=_grouped(best.from_zero, max(digits - 1, 1)))
            else:
                entry["separable"] = False
        out.append(entry)
    return out


def _certified_digits(phi, t, best) -> int:
    """Significant digits of γ* that the solve guarantees.

    The hull point ``x`` Wolfe's algorithm stops at has ``‖x‖ >= γ*`` (no point of the
    hull is nearer the origin than the nearest), and its direction ``u`` has the margin
    ``min t uᵀφ <= γ*``; the stop test (``‖x‖² − min tφᵀx <= 1e-12 max‖tφ‖²``,
    :func:`mark1.viz.prml._min_norm_point`) bounds their gap, so the relative error of
    γ* is at most ``1e-12 max‖φ‖² / γ*²`` (or the gap found, when wider). Returns the
    digits that interval fixes (at most 12)."""
    lower = float(np.min(t * (phi @ best.u)))
    tolerance = 1e-12 * best.R ** 2 / best.gamma ** 2
    rel = max((best.gamma - lower) / best.gamma, tolerance, np.finfo(float).eps)
    return int(min(12, max(1, math.floor(-math.log10(rel)))))


def _grouped(v: float, digits: int) -> str:
    """``v`` to ``digits`` significant digits, the decimals in groups of three (thin spaces)."""
    text = f"{v:.{digits}g}"
    if "e" in text or "." not in text:
        return text
    whole, dec = text.split(".")
    return whole + "." + "\u2009".join(dec[i:i + 3] for i in range(0, len(dec), 3))


def _sig(v: float) -> float:
    """A float to 6 significant digits, for the page."""
    return float(f"{v:.6g}")


def _finite(v: float):
    return v if math.isfinite(v) else None


def _presentation(row, reading, read_sums, mask, n_sensors, moves, motor_times, targets, erred, tie, noise,
                  mean) -> dict:
    """One presentation as the page needs it, from its history row, the trace's reading,
    the sums read, the rack's ``mask``, the moves and motor event times it commanded, the
    R-units' ``targets`` (±1), which units ``erred`` (the trainer's rule with its ``tie``
    zone, on the sums read), the rack's wiper ``noise`` and whether sums are means.

    Keys: ``c`` deck card, ``e`` epoch, ``y`` label and ``r`` response (class indices),
    ``ok``, ``t`` card change and ``tr`` read time (s), ``s`` S-units lit (hex, row-major
    bits), ``a`` A-units lit, ``w`` per R-unit the wiper positions of the pots of the lit
    A-units then the bias pot (None where the topology has no pot; in 1/QUANTUM full
    scale), ``clean`` their sums (the sum without read noise, a mean with ``mean``),
    ``sums`` the sums the machine read (as its trace writes them, 4 significant digits,
    with read noise), ``err`` the R-units that erred, ``m`` each unit's margin
    t·(clean − 0), ``sd`` the read noise's scale (σ√active pots), ``z`` the units read
    within that scale of the threshold and ``f`` those whose verdict (erred or not) the noise flipped,
    ``mv`` the pots commanded (unit, pot, then in 1/QUANTUM full scale or seconds:
    command, before, after, backlash time, run time, machine time the motor was set going) and ``mvt`` those two
    times as
    :func:`~mark1._utils.language.duration` writes them, ``m0``/``m1`` motors start and
    stop (s) and ``md`` their run as a duration; :func:`record` adds ``ep``, E_P (PRML
    eq. 4.54) so far, and ``wn``, how long the next card waited for the motors (a duration;
    only when it did).
    """
    cols = np.append(reading.a_units, mask.shape[1] - 1)        # the lit A-units' pots, then the bias pot
    pos = reading.wipers
    w = [[_q(pos[k, j]) if mask[k, i] else None for j, i in enumerate(cols)] for k in range(len(pos))]
    active = mask[:, cols].sum(axis=1)
    clean = np.array([float(np.sum(pos[k] * mask[k, cols])) for k in range(len(pos))])
    scale = noise * np.sqrt(active)
    if mean:                                     # the μ-system reads the mean of the active pots
        clean, scale = clean / np.maximum(active, 1), scale / np.maximum(active, 1)
    zero = np.abs(clean) < scale
    flipped = erring(targets, clean, tie) != erred              # the read noise changed the verdict
    mv, mvt = [], []
    for move in moves:
        for j in range(len(move.command)):
            mv.append([int(move.unit[j]), int(move.a_unit[j]), _q(move.command[j]), _q(move.start[j]),
                       _q(move.target[j]), _q(move.slack_time[j]), _q(move.duration[j]), _q(move.time)])
            mvt.append([duration(move.slack_time[j]), duration(move.duration[j])])
    lit = np.zeros(n_sensors, np.uint8)
    lit[reading.s_units] = 1
    entry = {
        "c": int(row["card"]), "e": int(row["epoch"]), "y": int(row["label"]), "r": int(row["response"]),
        "ok": bool(row["correct"]), "t": round(float(row["start"]), 6), "tr": round(reading.time, 6),
        "s": np.packbits(lit).tobytes().hex(), "a": reading.a_units.tolist(), "w": w, "clean": clean.tolist(),
        "sums": [f"{v:+.4g}" for v in read_sums],                # as the trace writes them
        "err": np.flatnonzero(erred).tolist(), "m": [_sig(v) for v in targets * clean],
        "sd": [_sig(v) for v in scale], "z": np.flatnonzero(zero).tolist(),
        "f": np.flatnonzero(flipped).tolist(), "mv": mv,
    }
    if mv:
        entry["mvt"] = mvt
    if motor_times:
        entry["m0"], entry["m1"] = round(min(motor_times), 6), round(max(motor_times), 6)
        entry["md"] = duration(max(motor_times) - min(motor_times))
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
    # the rack with its travel-against-command panel (60 commands), as `mark1 device rack` draws it
    plots: tuple[tuple[str, Callable[..., Any], Callable[..., Any]], ...] = (
        ("rack", partial(rack_response, transfer=60), rack_response_figure),
        ("photocell", photocell_response, photocell_response_figure))
    for name, response, figure in plots:
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
    """Record ``mark1 run``'s run of ``scene`` (cut when too long to step through) and write
    ``out/lesson.html`` (atomically).

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
