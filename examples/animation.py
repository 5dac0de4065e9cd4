"""
A film of the machine learning
==============================

Training on the demo scene as an animated GIF. Loads the built-in ``demo`` (X vs E on
the SMALL machine, 64 A-units) and makes :func:`mark1.viz.training_animation`: each
frame (1280 x 720 pixels) shows one presentation stage by stage: the card as the
retina sees it, the S-units and A-units that fire, the R-unit's sum against its
threshold, the pots of the firing A-units before and after the trainer turned them,
the R-unit's weights projected onto the retina (what it looks for, growing as it
learns) and the running training accuracy. Frames are evenly spaced, one every
``--every`` presentations, ending on the last; presentations and cards are numbered
from 1. Prints the number of frames and the final training and test accuracy, and
writes ``demo_training.gif`` into ``examples/output/`` (or ``--out``).

Run it with ``python examples/animation.py [--seed 0] [--every 5] [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
from PIL import Image

import mark1
from mark1.viz import percent, script_parser, training_animation

matplotlib.use("Agg")           # the frames are drawn off screen


def main(argv=None) -> None:
    ap = script_parser(__doc__, __file__, seed=True)
    ap.add_argument("--every", type=int, default=5, help="a frame every this many presentations (default 5)")
    args = ap.parse_args(argv)
    scene = mark1.load_scene("demo")
    train, test, machine_seed = mark1.scene_cards(scene, args.seed)     # as `mark1 run --seed` does

    spec, epochs = scene.machine_spec(), scene.schedule.epochs
    gif = args.out / "demo_training.gif"
    training_animation(spec, train.cards, train.labels, seed=machine_seed, out=gif, epochs=epochs,
                       every=args.every, progress=True)
    machine = mark1.MarkI(spec=spec, seed=machine_seed).fit(train.cards, train.labels, epochs=epochs)
    with Image.open(gif) as im:
        frames, size = im.n_frames, im.size
    print(f"scene: {scene.name}; {len(train)} cards x {epochs} epochs = {len(train) * epochs} presentations")
    print(f"frames: {frames} ({size[0]}x{size[1]} pixels)")
    print(f"mistakes per epoch: {machine.mistakes_per_epoch_.tolist()}")
    print(f"train accuracy: {percent(machine.score(train.cards, train.labels))}")
    print(f"test accuracy: {percent(machine.score(test.cards, test.labels))}")
    print(f"animation: {gif}")


if __name__ == "__main__":
    main()
