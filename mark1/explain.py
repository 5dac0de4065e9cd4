"""The machine's event log told in plain words, card by card (``mark1 explain``)."""

from __future__ import annotations

import numpy as np

from .machine import MarkI

__all__ = ["explain"]


def explain(spec, cards, labels, *, n_cards: int = 5, seed: int = 0) -> str:
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

    Returns
    -------
    str
        One paragraph per presentation.
    """
    if isinstance(n_cards, bool) or not isinstance(n_cards, (int, np.integer)) or n_cards < 1:
        raise ValueError(f"cards: expected a positive number of cards, got {n_cards!r}")
    cards, labels = np.asarray(cards), np.asarray(labels)
    n = min(n_cards, len(cards))
    # the classes and code come from all labels, so the narration matches a real run
    classes = np.unique(labels)
    order = _first_cards_with_all_classes(labels, n)
    m = MarkI(spec=spec, seed=seed, trace="full")
    m.fit(cards[order], labels[order], epochs=1)
    if not np.array_equal(m.classes_, classes):      # pragma: no cover - guarded by the order
        raise ValueError("labels: the narrated cards do not cover every class")
    code = m.code_
    events: dict[int, list] = {}
    for t, e, p, d in m.trace_:
        events.setdefault(p, []).append((t, e, d))
    tm, tr = spec.timing, spec.trainer
    lines = [
        f"{spec.name}: {m.patchboard.n_sensors} S-units, {m.patchboard.n_associators} A-units, "
        f"{code.n_units} R-unit(s) in use ({code.kind} code for {', '.join(map(str, classes))}), "
        f"rule {tr.rule}, one card every {tm.period:g} s.",
        "",
    ]
    for row in m.history_:
        p = int(row["presentation"])
        label, response = classes[row["label"]], classes[row["response"]]
        lines.append(f"Card {p + 1} (\"{label}\") at t = {row['start']:.3f} s")
        for t, e, d in events.get(p, []):
            lines.append(f"  {t:9.3f} s  {_say(e, d, row, code, classes, m)}")
        verdict = "right" if row["correct"] else "wrong"
        lines.append(f"  The machine answered \"{response}\": {verdict}.")
        lines.append("")
    lines.append(f"Machine time for {len(m.history_)} cards: {m.machine_time_:.3f} s.")
    return "\n".join(lines)


def _first_cards_with_all_classes(labels, n):
    """Indices of n cards to narrate, taking the first cards but making every class appear."""
    first = list(range(min(n, len(labels))))
    missing = [c for c in np.unique(labels) if c not in set(labels[first])]
    extra = [int(np.flatnonzero(labels == c)[0]) for c in missing]
    return np.array(first + extra)


def _say(event, detail, row, code, classes, m):
    if event == "card change":
        return f"Card change: lamps off, {detail.split(',')[0]} goes into the gate."
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
        return f"The trainer reinforces ({detail}): each pot turned {m.spec.trainer.increment:g} full scale " \
               f"towards its R-unit's target."
    if event in ("motors start", "motors queued"):
        return f"Motors start: {detail}."
    if event == "motors stop":
        return f"Motors stop: every wiper at rest ({detail})."
    if event == "waited for motors":
        return f"The next card waits for the motors ({detail})."
    return f"{event}: {detail}"
