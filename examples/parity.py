"""
Parity: what the Mark I cannot learn
====================================

Minsky and Papert's parity: can the machine tell whether the number of blobs on a
card is odd? Loads the built-in ``parity`` (cards with 1 to 6 round blobs, labelled
even or odd) and trains the analog Mark I and the ideal perceptron (``spec.ideal()``)
on the same wiring as the scene says. In the scene's 10 epochs the machines learn the
training cards by heart (or nearly: 512 A-units can memorise 200 cards) but stay near chance (50 %) on
new cards; a run of the ideal machine for many more epochs is printed too. For
comparison it prints how far a single threshold on the number of S-units firing (a
predicate of order 1) gets: every card carries the same ink, so it stays near chance -
a little above, since one large blob lights more photocells than the same ink in
several small ones. Saves the mistakes per epoch and sample cards into
``examples/output/`` (or ``--out``).

Run it with ``python examples/parity.py [--seed 0] [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

import mark1
from mark1.viz import LEARNER_COLOURS, contact_sheet, new_figure, percent, save_figure, script_parser

matplotlib.use("Agg")           # the figures go to files, never to a window


def ink_rule_accuracy(machine, train, test) -> float:
    """Test accuracy of the best single threshold (either direction) on the number of S-units firing."""
    ink_train = machine.sense(train.cards).sum(axis=1)
    ink_test = machine.sense(test.cards).sum(axis=1)
    a, b = train.classes
    best = (-1.0, 0, 1)
    for thr in np.unique(ink_train):
        for sign in (1, -1):
            acc = np.mean(np.where(sign * (ink_train - thr) >= 0, b, a) == train.labels)
            if acc > best[0]:
                best = (acc, thr, sign)
    _, thr, sign = best
    return float(np.mean(np.where(sign * (ink_test - thr) >= 0, b, a) == test.labels))


def main(argv=None) -> None:
    args = script_parser(__doc__, __file__, seed=True).parse_args(argv)
    scene = mark1.load_scene("parity")
    train, test, machine_seed = mark1.scene_cards(scene, args.seed)     # as `mark1 run --seed` does

    epochs = scene.schedule.epochs
    spec = scene.machine_spec()
    print(f"scene: {scene.name}; {len(train)} training cards x {epochs} epochs, {len(test)} test cards")
    results = {}
    for name, s in (("analog", spec), ("ideal", spec.ideal())):
        m = mark1.MarkI(spec=s, seed=machine_seed).fit(train.cards, train.labels, epochs=epochs,
                                                       order=scene.schedule.order, progress=True)
        tr, te = m.score(train.cards, train.labels), m.score(test.cards, test.labels)
        results[name] = (m, tr, te)
        print(f"[{name}] mistakes per epoch: {m.mistakes_per_epoch_.tolist()}")
        print(f"[{name}] train accuracy: {percent(tr)}")
        print(f"[{name}] test accuracy: {percent(te)}")
    long_epochs = 6 * epochs
    m = mark1.MarkI(spec=spec.ideal(), seed=machine_seed).fit(train.cards, train.labels, epochs=long_epochs,
                                                              order=scene.schedule.order, progress=True)
    zero = np.flatnonzero(m.mistakes_per_epoch_ == 0)
    print(f"[ideal, {long_epochs} epochs] first epoch without a mistake: "
          f"{zero[0] + 1 if len(zero) else 'none'}; train accuracy: {percent(m.score(train.cards, train.labels))}, "
          f"test accuracy: {percent(m.score(test.cards, test.labels))}")
    machine = results["analog"][0]
    print(f"chance: 50 %; one threshold on the amount of ink: test accuracy "
          f"{percent(ink_rule_accuracy(machine, train, test))}")
    print("Why: parity is not of bounded order (Minsky and Papert 1969) - no linear threshold over "
          "A-units that each see a limited part of the retina can compute it, and each A-unit here "
          f"sees only {spec.patchboard.excitatory + spec.patchboard.inhibitory} random photocells.")
    print("So what the machine learns is the training cards by heart, and that does not carry over "
          "to new cards: test accuracy stays near chance.")

    fig = new_figure(7.5, 3.8, layout="constrained")
    ax = fig.add_subplot()
    ep = np.arange(1, epochs + 1)
    for name, (m, tr, te) in results.items():
        ax.plot(ep, 100 * m.mistakes_per_epoch_ / len(train), marker="o", color=LEARNER_COLOURS[name],
                label=f"{name}: after training, train {percent(tr, 0)}, test {percent(te, 0)}")
    ax.axhline(50, color="0.4", ls=":", lw=1, label="guessing (half the cards)")
    ax.set_xlabel("epoch")
    ax.set_ylabel(f"mistakes in the epoch (% of the {len(train)} cards)")
    ax.set_ylim(0, 60)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"{scene.name}:\ntraining cards learned by heart, near chance on new cards", fontsize=9)
    save_figure(fig, args.out / "parity_errors.png", dpi=120)
    contact_sheet(scene, seed=args.seed, per_class=4, out=args.out / "parity_cards.png", progress=True)
    print(f"figures: {args.out / 'parity_errors.png'}, {args.out / 'parity_cards.png'}")


if __name__ == "__main__":
    main()
