"""
Spontaneous concept formation: every answer reinforced, values decaying
=======================================================================

Rosenblatt (1958, Psych. Rev. 65:386-408, pp. 402-404): with no trainer - whatever the
machine answers is reinforced - and a decay of every value at a rate proportional to the
value, a perceptron shown stimuli of two "dissimilar" classes comes to give one response
to one class and the other response to the other: it forms the two concepts by itself.
The system the paper describes for this is, "for each binary response", bivalent: the
response's source-set gets positive feedback when the response is on and negative
feedback when it is off (pp. 402-403), and the bivalent γ system is "the most efficient".
Re-enacted on the machine's own trainer.

The setting, decided from the source before running: one binary response, one R-unit
(``response.code = "single"``: lamp on is one answer, off the other) with the machine's
bivalent γ (``trainer.rule = "gamma"``, ``trainer.valence = "bivalent"``), every answer
reinforced (``trainer.reinforcement = "spontaneous"``: the active units of the source-set
gain when the lamp is on and lose when it is off, γ conserving the unit's total), the sum
(Σ), no bias pot (the 1958 model has none), on the IBM 704 reading (``PRESETS["ibm704"]``)
and on the Mark I (``MARK_I``), with ``rack.decay_time`` = 100 card periods (300 s) and
without decay. Two classes: two random prototypes of 40 lit S-units each, disjoint or
sharing 5, 10 or 20 of their points; a stimulus of a class keeps 30 of its prototype's 40
points and lights 10 others at random. 400 stimuli (the classes in random order) are shown
once; then 400 new ones are answered with the trainer off. The labels are never used in
training; the concept score is the fraction answered consistently with the classes under
the better of the two ways of pairing answers with classes (0.5 is chance, and also what
"everything to one answer" gives; 1 is two concepts). Beside it, the setting run before
(two responses, α monovalent, μ; a setting the paper does not describe for spontaneous
learning) on disjoint classes.

What the simulation finds (printed, and checked by ``tests/test_cli_theory.py``): on
disjoint classes the bivalent system forms both concepts on every machine tried, on both
readings, with decay and without; once the classes share points it mostly does not (one
answer takes most new stimuli); the monovalent two-response setting forms none. Saves
``spontaneous_concepts.png`` into ``examples/output/`` (or ``--out``).

Run it with ``python examples/spontaneous_concepts.py [--seeds 5] [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

from mark1.specs import MARK_I, PRESETS
from mark1.theory.learning import machine_spontaneous
from mark1.viz import accuracy_axis, new_figure, save_figure, script_parser

matplotlib.use("Agg")           # the figures go to files, never to a window

MACHINES = {"ibm704": PRESETS["ibm704"], "Mark I": MARK_I}
DECAY = 100 * MARK_I.timing.period              # seconds: a hundred card periods
SHARED = (0, 5, 10, 20)                         # points the two 40-point prototypes share
FORMED = 0.9                                    # a concept score at least this: two concepts formed


def main(argv=None) -> None:
    ap = script_parser(__doc__, __file__)
    ap.add_argument("--seeds", type=int, default=5, help="machines per setting (default 5)")
    args = ap.parse_args(argv)
    print(f"spontaneous learning, 400 stimuli of two classes shown once, {args.seeds} machines per setting; "
          f"concept score 1 = two concepts, 0.5 = none")
    results: dict[tuple, np.ndarray] = {}
    for name, base in MACHINES.items():
        for decay_name, decay in (("decay 300 s", DECAY), ("no decay", float("inf"))):
            for shared in SHARED:
                runs = np.array([machine_spontaneous(base, decay, seed, shared=shared) for seed in range(args.seeds)])
                results[(name, decay_name, shared)] = runs
                formed = int(np.sum(runs[:, 0] >= FORMED))
                print(f"bivalent γ, {name:>6}, {decay_name:>11}, {shared:>2} points shared: concept score "
                      f"{runs[:, 0].mean():.3f} (per machine {np.round(runs[:, 0], 3).tolist()}); formed on "
                      f"{formed} of {args.seeds}; busier answer {runs[:, 1].mean():.3f}")
    mono = np.array([machine_spontaneous(PRESETS["ibm704"], DECAY, seed, system="monovalent")
                     for seed in range(args.seeds)])
    print(f"monovalent α, two responses, ibm704, decay 300 s, disjoint: concept score {mono[:, 0].mean():.3f}; "
          f"formed on {int(np.sum(mono[:, 0] >= FORMED))} of {args.seeds}")
    disjoint = np.concatenate([r[:, 0] for (_, _, shared), r in results.items() if shared == 0])
    overlapping = np.concatenate([r[:, 0] for (_, _, shared), r in results.items() if shared > 0])
    n_dis, n_over = int(np.sum(disjoint >= FORMED)), int(np.sum(overlapping >= FORMED))
    print(f"finding: on disjoint classes the bivalent system formed both concepts on {n_dis} of {len(disjoint)} "
          f"machines (both readings, with and without decay): the 1958 result "
          f"{'comes out' if n_dis == len(disjoint) else 'comes out only in part' if n_dis else 'does NOT come out'}; "
          f"on classes sharing {SHARED[1]}-{SHARED[-1]} points on {n_over} of {len(overlapping)}")

    fig = new_figure(7.0, 3.8, layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, name in zip(axes, MACHINES):
        for k, (decay_name, marker) in enumerate((("decay 300 s", "o"), ("no decay", "x"))):
            for j, shared in enumerate(SHARED):
                runs = results[(name, decay_name, shared)]
                x = j + (k - 0.5) * 0.25 + np.linspace(-0.06, 0.06, len(runs))
                ax.scatter(x, 100 * runs[:, 0], marker=marker, color="0.25" if k == 0 else "tab:blue", s=18,
                           label=decay_name if j == 0 else None)
        ax.axhline(50, color="0.5", lw=0.8, ls=":")
        ax.set_xticks(range(len(SHARED)), [str(s) for s in SHARED])
        ax.set_xlabel("points the two 40-point prototypes share")
        ax.set_title(f"bivalent γ, one binary response: {name}", fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    accuracy_axis(axes[0], 45, label="concept score on new stimuli")
    axes[0].legend(fontsize=7, loc="lower left")
    save_figure(fig, args.out / "spontaneous_concepts.png", dpi=120)
    print(f"figure: {args.out / 'spontaneous_concepts.png'}")


if __name__ == "__main__":
    main()
