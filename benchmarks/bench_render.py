"""How fast are cards made? Cards per second for each source, and against Pillow per card.

Run:  python benchmarks/bench_render.py [--cards N]

The character scene (X vs E, shift ±0.1, rotation ±30°, scale 0.9-1.1, 60×60 cards) is
the headline number; the goal is at least 5,000 cards/s on a 2-core machine. For
reference the same cards are also drawn the naive way, one Pillow render + affine
transform per card, and the ratio is printed (both measured in this run).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from mark1.stimuli import SCENES_DIR, Jitter, load_scene, render_characters, render_marks, render_predicate, \
    render_shapes

JITTER = Jitter(shift=(-0.1, 0.1), rotation=(-30.0, 30.0), scale=(0.9, 1.1))


def best_rate(fn, n: int, repeats: int = 3) -> float:
    """Cards per second, best of ``repeats`` (after one warm-up call)."""
    fn(min(n, 64))
    best = math.inf
    for _ in range(repeats):
        t = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - t)
    return n / best


def pillow_per_card(n: int, seed: int = 0) -> np.ndarray:
    """The naive way: draw every card with Pillow, then rotate/scale/shift it with Pillow."""
    from PIL import Image, ImageDraw, ImageFont

    rng = np.random.default_rng(seed)
    font = ImageFont.load_default(size=40)
    out = np.empty((n, 60, 60))
    for i in range(n):
        img = Image.new("L", (60, 60), 0)
        ImageDraw.Draw(img).text((30, 30), "XE"[i % 2], font=font, fill=255, anchor="mm")
        rot = rng.uniform(-30, 30)
        s = rng.uniform(0.9, 1.1)
        dx, dy = rng.uniform(-6, 6, size=2)
        c, si = math.cos(math.radians(rot)) / s, math.sin(math.radians(rot)) / s
        # inverse map for Image.transform: output (x, y) -> input
        a, b, d, e = c, -si, si, c
        cx = 30 - a * (30 + dx) - b * (30 + dy)
        cy = 30 - d * (30 + dx) - e * (30 + dy)
        img = img.transform((60, 60), Image.Transform.AFFINE, (a, b, cx, d, e, cy), Image.Resampling.BILINEAR)
        out[i] = 1.0 - np.asarray(img, dtype=np.float64) / 255.0
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cards", type=int, default=20000, help="cards per timing (default 20000)")
    args = p.parse_args(argv)
    n = args.cards
    labels = ["X", "E"] * (n // 2)

    rows = []
    chars = best_rate(lambda k: render_characters(labels[:k], seed=1, stroke=1.5, jitter=JITTER), n)
    rows.append(("characters X/E, shift+rotation+scale", chars))
    rows.append(("characters + noise, smudges, blur",
                 best_rate(lambda k: render_characters(
                     labels[:k], seed=1, jitter=Jitter(shift=(-0.1, 0.1), rotation=(-30, 30),
                                                         noise=(0, 0.05), smudges=(0, 2), blur=(0, 1))),
                           n // 4)))
    rows.append(("shapes square/circle, any rotation",
                 best_rate(lambda k: render_shapes(["square", "circle"] * (k // 2), seed=1,
                                                     jitter=Jitter(shift=(-0.15, 0.15),
                                                                     rotation=(-180, 180))), n)))
    rows.append(("marks left/right", best_rate(lambda k: render_marks(["left", "right"] * (k // 2),
                                                                        seed=1), n)))
    rows.append(("parity blobs 1-6", best_rate(lambda k: render_predicate(["even", "odd"] * (k // 2),
                                                                            seed=1), n // 4)))
    scene = load_scene(SCENES_DIR / "e_vs_x.toml")
    rows.append(("scene e_vs_x via Scene.stimuli",
                 best_rate(lambda k: scene.stimuli("train", seed=1, count=k), n)))
    naive_n = min(n, 2000)
    naive = best_rate(lambda k: pillow_per_card(k), naive_n, repeats=2)
    rows.append(("naive: Pillow render + transform per card", naive))

    width = max(len(r[0]) for r in rows)
    print(f"cards of 60x60 pixels, best of 3, {n} cards per timing")
    for name, rate in rows:
        print(f"  {name:<{width}}  {rate:>10,.0f} cards/s")
    print(f"characters vs naive Pillow-per-card: {chars / naive:.1f}x faster "
          f"(goal: >= 5,000 cards/s: {'met' if chars >= 5000 else 'NOT met'})")


if __name__ == "__main__":
    main()
