"""
The analog Mark I beside the ideal digital perceptron
=====================================================

The same cards and the same wiring, two machines. Trains two machines on every seed:
the documented Mark I (``MARK_I``: slow motors, backlash, motor spread, wiper noise,
photocell dynamics, light history, lens blur, ...) and ``spec.ideal()``, the textbook
digital perceptron with every non-ideality switched off. Both use the same seed, so
the same patch board and the same cards. Prints the mistakes per epoch, train and test
accuracy and the machine time of each, and saves a figure of both into
``examples/output/`` (or ``--out``).

Run it with ``python examples/analog_vs_digital.py [--scene e_vs_f] [--seeds 3] [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

import mark1
from mark1.stimuli import SCENES_DIR
from mark1.viz import new_figure, save_figure, script_parser

matplotlib.use("Agg")           # the figure goes to a file, never to a window


def main(argv=None) -> None:
    ap = script_parser(__doc__, __file__)
    ap.add_argument("--scene", default="e_vs_f", help="scene file name in scenes/ (without .toml)")
    ap.add_argument("--seeds", type=int, default=3, help="number of seeds (0, 1, ...)")
    args = ap.parse_args(argv)
    scene = mark1.load_scene(SCENES_DIR / f"{args.scene}.toml")

    spec = scene.machine_spec()
    variants = {"analog": spec, "digital": spec.ideal()}
    epochs = scene.schedule.epochs
    results = {v: {"mistakes": [], "train": [], "test": [], "hours": [], "waited": []} for v in variants}
    for seed in range(args.seeds):
        train, test, machine_seed = mark1.scene_cards(scene, seed)        # as `mark1 run --seed` does
        for v, s in variants.items():
            m = mark1.MarkI(spec=s, seed=machine_seed).fit(train.cards, train.labels, epochs=epochs,
                                                           order=scene.schedule.order, progress=True)
            r = results[v]
            r["mistakes"].append(m.mistakes_per_epoch_)
            r["train"].append(m.score(train.cards, train.labels))     # train first: reads draw noise
            r["test"].append(m.score(test.cards, test.labels))
            r["hours"].append(m.machine_time_ / 3600)
            r["waited"].append(m.waited_)

    print(f"scene: {scene.name}; {len(train)} training cards x {epochs} epochs, "
          f"{len(test)} test cards, {args.seeds} seed(s)")
    for v, s in variants.items():
        r = results[v]
        print(f"[{v}] {s.name}")
        for seed in range(args.seeds):
            print(f"  seed {seed}: mistakes per epoch {r['mistakes'][seed].tolist()}, "
                  f"train {r['train'][seed]:.3f}, test {r['test'][seed]:.3f}")
        print(f"  {v} test accuracy: {np.mean(r['test']):.3f} ± {np.std(r['test']):.3f}")
        print(f"  {v} train accuracy: {np.mean(r['train']):.3f}")
        print(f"  {v} machine time: {np.mean(r['hours']):.3f} h "
              f"(of which waiting for motors past the card period: {np.mean(r['waited']):.1f} s)")
    diff = np.mean(results["analog"]["test"]) - np.mean(results["digital"]["test"])
    print(f"analog minus digital test accuracy: {diff:+.3f} (seed-to-seed spread "
          f"±{max(np.std(results['analog']['test']), np.std(results['digital']['test'])):.3f})")
    if max(np.mean(results[v]["waited"]) for v in variants) == 0:
        print("The motors finish each move within the card period, so the analog machine is no slower.")

    fig = new_figure(10, 3.8, layout="constrained")
    ax_m, ax_a = fig.subplots(1, 2, width_ratios=[1.6, 1])
    colors = {"analog": "tab:red", "digital": "tab:blue"}
    ep = np.arange(1, epochs + 1)
    for v in variants:
        mk = np.array(results[v]["mistakes"])
        for row in mk:
            ax_m.plot(ep, row, color=colors[v], alpha=0.25, lw=1)
        ax_m.plot(ep, mk.mean(axis=0), color=colors[v], lw=2, marker="o", ms=4,
                  label=f"{v}: mean of {args.seeds} seed(s)")
    ax_m.set_xlabel("epoch")
    ax_m.set_ylabel("mistakes in the epoch")
    ax_m.set_title("errors per epoch (thin lines: single seeds)", fontsize=9)
    ax_m.legend(fontsize=8)
    ax_m.grid(alpha=0.3)
    for i, v in enumerate(variants):
        for j, split in enumerate(("train", "test")):
            vals = np.array(results[v][split])
            x = i * 3 + j
            ax_a.bar(x, vals.mean(), color=colors[v], alpha=0.45 if split == "train" else 0.9)
            ax_a.scatter(np.full(len(vals), x), vals, color="k", s=10, zorder=3)
    ax_a.set_xticks([0, 1, 3, 4], ["analog\ntrain", "analog\ntest", "digital\ntrain", "digital\ntest"],
                    fontsize=8)
    hours = {v: np.mean(results[v]["hours"]) for v in variants}
    ax_a.set_title(f"accuracy (dots: seeds)\nmachine time {hours['analog']:.2f} h analog, "
                   f"{hours['digital']:.2f} h digital", fontsize=8)
    lo = min(min(results[v]["test"]) for v in variants)
    ax_a.set_ylim(max(0.0, lo - 0.1), 1.01)
    ax_a.grid(axis="y", alpha=0.3)
    fig.suptitle(f"{scene.name}: analog Mark I vs ideal digital perceptron (same wiring, same cards)",
                 fontsize=10)
    save_figure(fig, args.out / "analog_vs_digital.png", dpi=120)
    print(f"figure: {args.out / 'analog_vs_digital.png'}")


if __name__ == "__main__":
    main()
