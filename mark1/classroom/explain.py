"""The machine's event log told in plain words, card by card (``mark1 explain``).

Numbering for people: presentations and cards are counted from 1 here and in every
line printed for a person (``explain``, :func:`event_line` for ``mark1 run
--realtime``); the arrays (``history_``) and the CSV files count from 0. The times of
events are printed in seconds, rounded to the microsecond (as in ``trace.csv``); a
duration is written by its size (:func:`mark1._utils.language.duration`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from mark1._utils.language import duration
from mark1.exceptions import InputError
from mark1.machine.mark_i import MarkI
from mark1.specs import MachineSpec

__all__ = ["explain", "event_line"]


def explain(spec: MachineSpec, cards: np.ndarray, labels: ArrayLike, *, n_cards: int = 5, seed: int = 0,
            progress: bool = False) -> str:
    """Train on the first ``n_cards`` presentations with the full trace and narrate them.

    Parameters
    ----------
    spec : MachineSpec
    cards : array of shape (n, H, W)
        Training cards (reflectance in [0, 1]); the first ``n_cards`` are presented.
    labels : array of shape (n,)
        All labels (they fix the classes and the output code).
    n_cards : int
        Presentations to narrate (>= 1).
    seed : int
    progress : bool
        A progress bar over the epoch (tqdm, only on a terminal).

    Returns
    -------
    str
        One paragraph per presentation.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.specs import SMALL
    >>> cards, labels = np.ones((4, 20, 20)), ["down", "across"] * 2
    >>> cards[0, :, 4:7] = cards[2, :, 12:15] = cards[1, 5:8, :] = cards[3, 13:16, :] = 0.0
    >>> print(explain(SMALL, cards, labels, n_cards=1))
    small: 400 S-units, 64 A-units, 1 R-unit in use (R1 lamp on means "down", off means "across"), ...
    <BLANKLINE>
    Card 1 ("down") at t = 0.000000 s
          0.000000 s  Card change: lamps off, card #1 of the deck goes into the gate.
          0.200000 s  Lamps on: the photocells begin to conduct as the light reaches them.
          0.500000 s  S-units sampled: 60 of 400 fire.
          0.505000 s  A-units settled: 18 of 64 fire.
          0.510000 s  R-units read: R1 sum +0.001609 (lamp on).
      The machine answered "down": right.
    <BLANKLINE>
    Machine time for the first 1 card: 1 s (the whole epoch of 4 cards: 4 s).
    """
    if isinstance(n_cards, bool) or not isinstance(n_cards, (int, np.integer)) or n_cards < 1:
        raise InputError(f"cards: expected a positive number of cards, got {n_cards!r}")
    cards, labels = np.asarray(cards), np.asarray(labels)
    # One epoch over every card (so the classes and the output code are those of a
    # real run); the first n_cards presentations are told.
    m = MarkI(spec=spec, seed=seed, trace="full")
    m.fit(cards, labels, epochs=1, progress=progress)
    classes, code = m.classes_, m.code_
    shown = m.history_[:n_cards]
    events: dict[int, list] = {}
    for t, e, p, d in m.trace_:
        if p < len(shown):
            events.setdefault(p, []).append((t, e, d))
    tm, tr = spec.timing, spec.trainer
    lines = [
        f"{spec.name}: {m.patchboard.n_sensors} S-units, {m.patchboard.n_associators} A-units, "
        f"{code.n_units} R-unit{'s' * (code.n_units != 1)} in use ({code.describe()}), rule {tr.rule} "
        f"({_rule_words(spec)}), one card every {tm.period:g} s. Presentations and cards are "
        f"numbered from 1 (trace.csv and history_ count from 0).",
        "",
    ]
    for row in shown:
        p = int(row["presentation"])
        label, response = classes[row["label"]], classes[row["response"]]
        lines.append(f"Card {p + 1} (\"{label}\") at t = {row['start']:.6f} s")
        for t, e, d in events.get(p, []):
            lines.append(f"  {t:12.6f} s  {_say(e, d, row, m)}")
        verdict = "right" if row["correct"] else "a mistake, which the trainer corrects"
        lines.append(f"  The machine answered \"{response}\": {verdict}.")
        lines.append("")
    told = f"{len(shown)} card{'s' if len(shown) != 1 else ''}"
    lines.append(f"Machine time for the first {told}: {duration(shown['start'][-1] + tm.period)} "
                 f"(the whole epoch of {len(m.history_)} cards: {duration(m.machine_time_)}).")
    if n_cards > len(shown):
        lines.append(f"Asked for {n_cards} cards; the run has only {len(shown)} presentations "
                     f"(one epoch of the training cards), all told above.")
    return "\n".join(lines)


def _rule_words(spec) -> str:
    tr, inc = spec.trainer, spec.trainer.increment
    who = {"corrective": "each erring R-unit",
           "forced": "on every card each R-unit, towards the right answer,",
           "spontaneous": "on every card each R-unit, towards the answer the machine itself gave,"}[tr.reinforcement]
    words = {
        "alpha": f"{who} has the pots of its active A-units turned {inc:g} full scale towards its target",
        "beta": f"{who} has {inc:g} full scale in all shared equally among the pots of its active A-units, "
                f"turned towards its target",
        "gamma": f"{who} has its active pots gain {inc:g} full scale towards its target, its inactive pots "
                 f"giving the same total back",
        "lms": f"on every card each active pot moves {tr.lms_rate:g} x (target - sum) full scale",
    }[tr.rule]
    if tr.valence == "monovalent":
        words += "; values only gain: a unit whose target is off is left alone"
    if spec.response.discrimination == "mean":
        words += "; each R-unit answers with the mean of its active pots, not their sum"
    if not spec.rack.bias:
        words += "; the R-units have no bias pot"
    return words


def _say(event, detail, row, m):
    if event == "card change":
        return f"Card change: lamps off, card #{int(row['card']) + 1} of the deck goes into the gate."
    if event == "lamps on":
        return "Lamps on: the photocells begin to conduct as the light reaches them."
    if event == "S sampled":
        return f"S-units sampled: {int(row['s_active'])} of {m.patchboard.n_sensors} fire."
    if event == "A settled":
        return f"A-units settled: {int(row['a_active'])} of {m.patchboard.n_associators} fire."
    if event == "R read":
        sums = detail.split(";")[0].removeprefix("sums ").split()
        lamps = ", ".join(f"R{k + 1} sum {s} (lamp {'on' if float(s) > 0 else 'off'})"
                          for k, s in enumerate(sums))
        return f"R-units read: {lamps}."
    if event == "reinforce":
        return f"The trainer reinforces: {detail}."
    if event in ("motors start", "motors queued"):
        return f"Motors start: {detail}."
    if event == "motors stop":
        return f"Motors stop: every wiper at rest ({detail})."
    if event == "waited for motors":
        return f"The next card waits for the motors ({detail})."
    return f"{event}: {detail}"


def event_line(time: float, event: str, presentation: int, detail: str) -> str:
    """One trace event as a line for people (``mark1 run --realtime``).

    The trace counts presentations and deck cards from 0 (``card 0, lamps off``); the
    line counts both from 1 and prints the time rounded to the microsecond.

    Parameters
    ----------
    time, event, presentation, detail
        One event as a :class:`~mark1.machine.simulator.Trace` logs it (and hands it
        to its listener): machine time (s), name, presentation from 0, words.

    Returns
    -------
    str

    Examples
    --------
    >>> event_line(0.0, "card change", 0, "card 0, lamps off")
    '    0.000000 s  presentation    1  card change        card 1 of the deck, lamps off'
    >>> event_line(7.51, "reinforce", 7, "1 R-unit erred, 20 pots commanded")
    '    7.510000 s  presentation    8  reinforce          1 R-unit erred, 20 pots commanded'
    """
    if event == "card change":
        index, sep, rest = detail.partition(",")
        word, _, number = index.partition(" ")
        if word == "card" and number.isdigit():
            detail = f"card {int(number) + 1} of the deck{sep}{rest}"
    return f"{time:12.6f} s  presentation {presentation + 1:>4}  {event:<18} {detail}"
