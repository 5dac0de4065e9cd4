"""
Re-enacting X versus E: the Mark I learns to tell two letters apart
===================================================================

Loads the built-in ``e_vs_x`` (X and E in bold print, turned by up to 30 degrees),
trains the documented Mark I (512 A-units, every non-ideality on) for the scene's
epochs in the scene's order, and prints the training and test accuracy beside the
100 % Rosenblatt reported. Saves the learning curve, what the retina makes of a test
card, the potentiometer rack as dials and the weights projected onto the retina into
``examples/output/`` (or ``--out``).

Run it with ``python examples/reenact_x_vs_e.py [--seed 0] [--out DIR]``.
"""

from __future__ import annotations

import matplotlib

import mark1
from mark1.viz import (dials_figure, duration, learning_curve, percent, retina_figure, script_parser,
                       weights_on_retina_figure)

matplotlib.use("Agg")           # the figures go to files, never to a window


def main(argv=None) -> None:
    args = script_parser(__doc__, __file__, seed=True).parse_args(argv)
    scene = mark1.load_scene("e_vs_x")
    train, test, machine_seed = mark1.scene_cards(scene, args.seed)     # as `mark1 run --seed` does

    machine = mark1.MarkI(spec=scene.machine_spec(), seed=machine_seed)
    machine.fit(train.cards, train.labels, epochs=scene.schedule.epochs, order=scene.schedule.order,
                progress=True)                                  # a bar on a terminal only
    train_acc = machine.score(train.cards, train.labels)        # train first: reads draw noise
    test_acc = machine.score(test.cards, test.labels)

    print(f"scene: {scene.name}")
    print(f"machine: {machine.spec.name}, {machine.patchboard.n_associators} A-units, "
          f"{len(train)} training cards x {scene.schedule.epochs} epochs ({scene.schedule.order})")
    print(f"mistakes per epoch: {machine.mistakes_per_epoch_.tolist()}")
    print(f"machine time: {duration(machine.machine_time_)}")
    print(f"train accuracy: {percent(train_acc)}")
    print(f"test accuracy: {percent(test_acc)} on {len(test)} cards")
    print(f"reported accuracy: {percent(scene.reported.value)} ({scene.reported.note})")

    learning_curve(machine.history_, title=f"{scene.name} — {machine.spec.name}", test_accuracy=test_acc,
                   reported=scene.reported.value, out=args.out / "x_vs_e_learning_curve.png")
    retina_figure(machine, test.cards[0], out=args.out / "x_vs_e_retina.png")
    weights_on_retina_figure(machine, out=args.out / "x_vs_e_weights_on_retina.png")
    dials_figure(machine, out=args.out / "x_vs_e_rack.png")
    print(f"figures: {args.out}/x_vs_e_*.png")


if __name__ == "__main__":
    main()
