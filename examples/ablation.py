"""
Ablation: one non-ideality off at a time
========================================

Switch the Mark I's non-idealities off one at a time and see what changes. On a small
scene (the built-in ``e_vs_f`` by default: E vs F, 60 training cards) trains the full
Mark I, the ideal machine (``spec.ideal()``: every non-ideality off), and the full
machine with one non-ideality switched off (``spec.without(name)``) for a few of them,
on the same cards and the same wiring for a given seed. Prints test accuracy (mean ±
std over seeds, in %) and its change against the full machine (in points), and saves a
dot chart into ``examples/output/`` (or ``--out``): a mark per mean, not a bar, so the
accuracy axis may start above 0 % (it says where).
Differences smaller than the seed-to-seed spread are not evidence of anything (for
paired seeds and 95 % intervals, see ``mark1 ablate``).

Run it with ``python examples/ablation.py [--scene e_vs_f] [--seeds 3] [--test-count 100] [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

import mark1
from mark1.viz import LEARNER_COLOURS, accuracy_axis, new_figure, percent, percent_spread, save_figure, script_parser

matplotlib.use("Agg")           # the figure goes to a file, never to a window

#: The non-idealities switched off one at a time (names of mark1.specs.NON_IDEALITIES).
SWITCHED = ("lens", "light_history", "photocell_dynamics", "motor_spread", "backlash", "wiper_noise")


def main(argv=None) -> None:
    ap = script_parser(__doc__, __file__)
    ap.add_argument("--scene", default="e_vs_f",
                    help="a built-in scene's name (mark1 scenes lists them) or a scene file")
    ap.add_argument("--seeds", type=int, default=3, help="number of seeds (0, 1, ...)")
    ap.add_argument("--test-count", type=int, default=100, help="test cards per seed")
    args = ap.parse_args(argv)
    scene = mark1.load_scene(args.scene)

    full = scene.machine_spec()
    variants = {"full": full, "ideal": full.ideal()}
    variants.update({f"without {n}": full.without(n) for n in SWITCHED if full.is_on(n)})
    acc = {v: [] for v in variants}
    for seed in range(args.seeds):
        train, test, machine_seed = mark1.scene_cards(scene, seed, test_count=args.test_count)
        for v, spec in variants.items():
            m = mark1.MarkI(spec=spec, seed=machine_seed).fit(train.cards, train.labels, progress=True,
                                                              epochs=scene.schedule.epochs, order=scene.schedule.order)
            m.score(train.cards, train.labels)            # as everywhere: train read first
            acc[v].append(m.score(test.cards, test.labels))

    ref = np.mean(acc["full"])
    print(f"scene: {scene.name}; {len(train)} training cards x {scene.schedule.epochs} epochs, "
          f"{args.test_count} test cards, {args.seeds} seed(s)")
    width = max(len(v) for v in variants)
    for v in variants:
        a = np.array(acc[v])
        delta = "" if v == "full" else f"  change vs full {100 * (a.mean() - ref):+.1f} points"
        print(f"{v:<{width}}  test accuracy: {percent_spread(a.mean(), a.std())}{delta}")
    spread = max(np.std(a) for a in acc.values())
    print(f"largest seed-to-seed spread: ±{100 * spread:.1f} points; changes smaller than that are noise.")

    names = list(variants)
    means = np.array([np.mean(acc[v]) for v in names])
    stds = np.array([np.std(acc[v]) for v in names])
    fig = new_figure(7.5, 0.9 + 0.42 * len(names), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(names))[::-1]
    colors = [LEARNER_COLOURS["analog"] if v == "full" else LEARNER_COLOURS["ideal"] if v == "ideal" else "0.3"
              for v in names]
    for v, yy, m, sd, c in zip(names, y, means, stds, colors):
        ax.errorbar([100 * m], [yy], xerr=[100 * sd], fmt="D", color=c, markersize=7, capsize=3, zorder=3)
        ax.scatter(100 * np.array(acc[v]), np.full(len(acc[v]), yy - 0.18), color=c, s=9, alpha=0.6, zorder=2)
    ax.axvline(100 * ref, color=LEARNER_COLOURS["analog"], ls="--", lw=1, label=f"full machine {percent(ref)}")
    ax.set_yticks(y, names, fontsize=8)
    lowest = 100 * min(min(a) for a in acc.values())
    accuracy_axis(ax, 50 if lowest >= 50 else 0, which="x",
                  label="test accuracy")
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"{scene.name}: one non-ideality off at a time (diamond: mean ± std; dots: seeds)", fontsize=9)
    save_figure(fig, args.out / "ablation.png", dpi=120)
    print(f"figure: {args.out / 'ablation.png'}")


if __name__ == "__main__":
    main()
