"""
The ideal environment: recall falls, generalization stays at chance
===================================================================

Rosenblatt (1958, Psych. Rev. 65:386-408, conclusions 2 and 3, p. 405): in an "ideal
environment" - random stimuli, each forced to a response chosen at random - "the
probability of a correct response diminishes towards its original random level as the
number of stimuli learned increases", and "no basis for generalization exists".

The setting, decided from the source before running: the IBM 704 reading of the machine
(``PRESETS["ibm704"]``: an ideal retina and rack, 512 A-units with x = 10, y = 5, θ = 2)
with disjoint source sets (``rack.topology = "split"``, one R-unit per response,
``response.code = "one-per-class"``, 64 A-units each, no bias pot: the 1958 model has
none), the α system with forced reinforcement (``trainer.reinforcement = "forced"``; values
only gain, ``trainer.valence = "monovalent"``) and μ discrimination
(``response.discrimination = "mean"``). Each stimulus lights exactly 40 of the 400
S-units at random (R = 0.1) and is shown once; its label is a coin toss. Recall is the
score on the learned stimuli, generalization the score on new random stimuli with new
random labels. Beside the machine: the recall derived from the 1958 model,
P = [1 - (1 - P_a)^N_A] Φ(√((1 - P_a) N_A / (2 N_s))) (:func:`mark1.theory.z_recall`).

What the simulation finds (printed, and checked by ``tests/test_cli_theory.py``): the 1958
conclusions come out. Recall falls monotonically from 0.98 at N_s = 5 to 0.56 at N_s = 1000
(ten machines per point), within 0.02 of the derived curve at every size; generalization
stays at 0.5 (0.48 to 0.50), within 3 standard errors of chance (a score on new random
labels is Binomial(400, 0.5) / 400 per machine) at every size.
Saves ``ideal_environment.png`` into ``examples/output/`` (or ``--out``).

Run it with ``python examples/ideal_environment.py [--seeds 10] [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

import mark1
from mark1.specs import PRESETS
from mark1.theory import Measurement, p_a, phi, z_recall
from mark1.viz import accuracy_axis, accuracy_low, new_figure, save_figure, script_parser

matplotlib.use("Agg")           # the figures go to files, never to a window

SPEC = PRESETS["ibm704"].with_overrides({
    "rack.topology": "split", "response.code": "one-per-class", "rack.bias": False,
    "trainer.rule": "alpha", "trainer.reinforcement": "forced", "trainer.valence": "monovalent",
    "response.discrimination": "mean"})
R = 0.1                          # fraction of the retina each random stimulus lights
N_S = [5, 20, 50, 200, 1000]     # stimuli forced to each of the two responses
N_A = SPEC.patchboard.n_associators // SPEC.response.n_responses      # A-units feeding each R-unit
TEST = 400                       # new random stimuli per machine, for generalization


def random_cards(rng, k: int) -> np.ndarray:
    """k white cards, each with exactly round(R * 400) random black squares (ink lights an S-unit)."""
    cards = np.ones((k, *SPEC.retina.shape))
    lit = np.argsort(rng.random((k, cards[0].size)), axis=1)[:, :round(R * cards[0].size)]
    np.put_along_axis(cards.reshape(k, -1), lit, 0.0, axis=1)
    return cards


def one_machine(n_s: int, seed: int) -> tuple[float, float]:
    """(recall, generalization) of one machine taught 2 n_s random stimuli with random labels."""
    rng = np.random.default_rng([seed, n_s])
    cards, labels = random_cards(rng, 2 * n_s), rng.permutation(np.repeat(["A", "B"], n_s))
    machine = mark1.MarkI(spec=SPEC, seed=seed).fit(cards, labels, epochs=1)
    new, new_labels = random_cards(rng, TEST), rng.choice(["A", "B"], TEST)
    return machine.score(cards, labels), machine.score(new, new_labels)


def _bars(mean: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Error bars (points) from each mean's interval, which stays inside [0, 1]; none where there is no interval."""
    return 100 * np.nan_to_num(np.vstack([mean - low, high - mean]))


def main(argv=None) -> None:
    ap = script_parser(__doc__, __file__)
    ap.add_argument("--seeds", type=int, default=10,
                    help="machines per number of stimuli (default 10, the fewest that give an interval)")
    args = ap.parse_args(argv)
    fires = p_a(SPEC.patchboard.excitatory, SPEC.patchboard.inhibitory, SPEC.patchboard.a_threshold, R, n=400)
    print(f"ideal environment: {N_A} A-units per response, P_a = {fires:.4f} (R = {R}), "
          f"forced α, monovalent, μ-system; {args.seeds} machines per point")
    # ±: the larger side of the mean's 95 % interval (mark1.stats: inside [0, 1], none below 10 seeds: nan)
    print(f"{'N_s':>6} {'recall':>8} {'±95%':>6} {'derived':>8} {'general.':>9} {'±95%':>6}")
    rows = []
    for n_s in N_S:
        runs = np.array([one_machine(n_s, seed) for seed in range(args.seeds)])
        found = [Measurement(tuple(column)) for column in runs.T]           # mean and 95 % interval over seeds
        mean, half = [m.mean for m in found], [max(m.high - m.mean, m.mean - m.low) for m in found]
        derived = (1 - (1 - fires) ** N_A) * phi(z_recall(fires, N_A, n_s))
        ends = [x for m in found for x in (m.low, m.high)]
        rows.append((n_s, mean[0], half[0], derived, mean[1], half[1], *ends))
        print(f"{n_s:>6} {mean[0]:>8.3f} {half[0]:>6.3f} {derived:>8.3f} {mean[1]:>9.3f} {half[1]:>6.3f}")
    rows = np.array(rows)
    # with random labels a machine's score on new stimuli is Binomial(TEST, 0.5) / TEST exactly: its spread is known
    chance_se = 0.5 / np.sqrt(TEST * args.seeds)
    print(f"finding: recall {rows[0, 1]:.3f} at N_s = {N_S[0]} falls to {rows[-1, 1]:.3f} at N_s = {N_S[-1]} "
          f"({'monotonically' if np.all(np.diff(rows[:, 1]) < 0) else 'not monotonically'}); "
          f"largest gap to the derived curve {np.max(np.abs(rows[:, 1] - rows[:, 3])):.3f}")
    print(f"finding: generalization between {rows[:, 4].min():.3f} and {rows[:, 4].max():.3f}; "
          f"{'at chance (0.5)' if np.all(np.abs(rows[:, 4] - 0.5) <= 3 * chance_se) else 'NOT at chance'} "
          f"within 3 standard errors of the binomial ({chance_se:.3f}) at every size")

    fig = new_figure(6.4, 4.2, layout="constrained")
    ax = fig.add_subplot()
    counts = np.geomspace(N_S[0] / 1.5, N_S[-1] * 1.5, 80)
    derived = np.array([100 * (1 - (1 - fires) ** N_A) * phi(z_recall(fires, N_A, n)) for n in counts])
    ax.plot(counts, derived, color="k", label="recall derived from the 1958 model")
    ax.errorbar(rows[:, 0], 100 * rows[:, 1], yerr=_bars(rows[:, 1], rows[:, 6], rows[:, 7]), fmt="o", color="k",
                capsize=2.5,
                label="machine: recall of the learned stimuli")
    ax.errorbar(rows[:, 0], 100 * rows[:, 4], yerr=_bars(rows[:, 4], rows[:, 8], rows[:, 9]), fmt="s", color="0.55",
                capsize=2.5,
                label="machine: generalization to new stimuli")
    ax.axhline(50, color="0.5", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_xlabel("N_s (random stimuli forced to each response)")
    shown = np.r_[derived, 100 * np.nan_to_num(rows[:, 1] - rows[:, 2], nan=1.0),
                  100 * np.nan_to_num(rows[:, 4] - rows[:, 5], nan=1.0)]                            # bars: lower ends
    accuracy_axis(ax, accuracy_low(shown), label="answered right")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Ideal environment (Rosenblatt 1958): recall falls, generalization stays at chance\n"
                 "(95 % intervals over machines; none below 10)", fontsize=9)
    save_figure(fig, args.out / "ideal_environment.png", dpi=120)
    print(f"figure: {args.out / 'ideal_environment.png'}")


if __name__ == "__main__":
    main()
