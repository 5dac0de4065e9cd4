"""
The analog Mark I beside the digital learner and the ideal perceptron
=====================================================================

The same cards and the same wiring, three learners, as every output of mark1 names
them: *analog*, the documented Mark I (``MARK_I``: slow motors, backlash, motor spread,
wiper noise, photocell dynamics, light history, lens blur, ...); *digital*,
``spec.digital()``, the same retina, optics and patch board with an ideal learner
(instant, unbounded, exact weights); and *ideal*, ``spec.ideal()``, the textbook
perceptron with every non-ideality switched off, the retina's too. All use the same
seed, so the same patch board and the same cards. Prints the mistakes per epoch, train
and test accuracy and the machine time of each, and saves a figure into
``examples/output/`` (or ``--out``): the mistakes counted card by card through the
training (the E vs F scene shows its 60 cards once, so a count per epoch would be one
number), and the accuracies on an axis from 0 to 100 %.

Run it with ``python examples/analog_vs_digital.py [--scene e_vs_f] [--seeds 3] [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

import mark1
from mark1.viz import LEARNER_COLOURS as COLOURS
from mark1.viz import accuracy_axis, duration, new_figure, percent, percent_spread, save_figure, script_parser

matplotlib.use("Agg")           # the figure goes to a file, never to a window


def main(argv=None) -> None:
    ap = script_parser(__doc__, __file__)
    ap.add_argument("--scene", default="e_vs_f",
                    help="a built-in scene's name (mark1 scenes lists them) or a scene file")
    ap.add_argument("--seeds", type=int, default=3, help="number of seeds (0, 1, ...)")
    args = ap.parse_args(argv)
    scene = mark1.load_scene(args.scene)

    spec = scene.machine_spec()
    learners = {"analog": spec, "digital": spec.digital(), "ideal": spec.ideal()}
    epochs = scene.schedule.epochs
    results = {v: {"mistakes": [], "running": [], "train": [], "test": [], "seconds": [], "waited": []}
               for v in learners}
    for seed in range(args.seeds):
        train, test, machine_seed = mark1.scene_cards(scene, seed)        # as `mark1 run --seed` does
        for v, s in learners.items():
            m = mark1.MarkI(spec=s, seed=machine_seed).fit(train.cards, train.labels, epochs=epochs,
                                                           order=scene.schedule.order, progress=True)
            r = results[v]
            r["mistakes"].append(m.mistakes_per_epoch_)
            r["running"].append(np.cumsum(~m.history_["correct"]))     # mistakes so far, card by card
            r["train"].append(m.score(train.cards, train.labels))
            r["test"].append(m.score(test.cards, test.labels))
            r["seconds"].append(m.machine_time_)
            r["waited"].append(m.waited_)

    print(f"scene: {scene.name}; {len(train)} training cards x {epochs} epoch(s), "
          f"{len(test)} test cards, {args.seeds} seed(s)")
    for v, s in learners.items():
        r = results[v]
        print(f"[{v}] {s.name}")
        for seed in range(args.seeds):
            print(f"  seed {seed}: mistakes per epoch {r['mistakes'][seed].tolist()}, "
                  f"train {percent(r['train'][seed])}, test {percent(r['test'][seed])}")
        print(f"  {v} test accuracy: {percent_spread(np.mean(r['test']), np.std(r['test']))}")
        print(f"  {v} train accuracy: {percent(np.mean(r['train']))}")
        print(f"  {v} machine time: {duration(np.mean(r['seconds']))} "
              f"(of which waiting for motors past the card period: {np.mean(r['waited']):.1f} s)")
    for v in ("digital", "ideal"):
        diff = np.mean(results["analog"]["test"]) - np.mean(results[v]["test"])
        print(f"analog minus {v} test accuracy: {100 * diff:+.1f} points (seed-to-seed spread "
              f"±{100 * max(np.std(results['analog']['test']), np.std(results[v]['test'])):.1f})")
    if max(np.mean(results[v]["waited"]) for v in learners) == 0:
        print("The motors finish each move within the card period, so the analog machine is no slower.")

    fig = new_figure(10, 3.9, layout="constrained")
    ax_m, ax_a = fig.subplots(1, 2, width_ratios=[1.4, 1])
    for v in learners:
        run = np.array(results[v]["running"])                            # (seeds, presentations)
        x = np.arange(1, run.shape[1] + 1)
        for row in run:
            ax_m.plot(x, row, color=COLOURS[v], alpha=0.25, lw=1)
        ax_m.plot(x, run.mean(axis=0), color=COLOURS[v], lw=2,
                  label=f"{v}: mean of {args.seeds} seed(s), {run[:, -1].mean():.1f} in all")
    for e in range(1, epochs):
        ax_m.axvline(e * len(train) + 0.5, color="0.6", lw=0.8, ls=":")
    ax_m.plot([0, len(x)], [0, len(x) / 2], color="0.6", lw=1, ls="--", label="guessing (one card in two)")
    ax_m.set_xlim(0, len(x) + 1)
    ax_m.set_ylim(0, max(np.max(results[v]["running"]) for v in learners) * 1.15)
    ax_m.set_xlabel(f"cards presented ({epochs} epoch{'s' if epochs > 1 else ''} of {len(train)} cards)")
    ax_m.set_ylabel("mistakes so far")
    ax_m.set_title("mistakes while training, card by card (thin lines: single seeds)", fontsize=9)
    ax_m.legend(fontsize=8, loc="upper left")
    ax_m.grid(alpha=0.3)
    for i, v in enumerate(learners):
        for j, split in enumerate(("train", "test")):
            vals = 100 * np.array(results[v][split])
            x = i * 3 + j
            ax_a.bar(x, vals.mean(), color=COLOURS[v], alpha=0.45 if split == "train" else 0.9)
            ax_a.scatter(np.full(len(vals), x), vals, color="k", s=10, zorder=3)
    ax_a.set_xticks([0, 1, 3, 4, 6, 7], [f"{v}\n{split}" for v in learners for split in ("train", "test")],
                    fontsize=8)
    ax_a.set_title("accuracy after training (bars: mean, dots: seeds)\nmachine time "
                   + ", ".join(f"{duration(np.mean(results[v]['seconds']))} {v}" for v in learners), fontsize=8)
    accuracy_axis(ax_a, 0, label="accuracy")
    ax_a.grid(axis="y", alpha=0.3)
    fig.suptitle(f"{scene.name}: analog, digital (spec.digital()) and ideal (spec.ideal()) learners; "
                 "same wiring, same cards", fontsize=10)
    save_figure(fig, args.out / "analog_vs_digital.png", dpi=120)
    print(f"figure: {args.out / 'analog_vs_digital.png'}")


if __name__ == "__main__":
    main()
