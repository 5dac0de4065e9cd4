"""Peak memory of `mark1 run` against the number of training cards.

Each size runs in a fresh process (``python -m mark1 run``) on a scene of distinct
40-px cards (squares against circles, shifted and turned), one epoch, and the peak
resident memory is read from the child's ``ru_maxrss``. Decks above
``scenes.COMPACT_ABOVE`` bytes of float64 are kept as 8-bit reflectance and rendered a
chunk at a time, so the cards cost one byte a pixel; the rest grows with the retina's
light and the scoring of every card (float64 per photocell), reported as bytes per card.

    python benchmarks/bench_memory.py [--cards 10000 100000] [--epochs 1]

The estimate ``Scene.resources()`` (what `mark1 run` checks against ``--memory-limit``)
is printed beside the measurement.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SCENE = """
name = "memory benchmark: {n} cards of 40 px"
[stimuli]
source = "shapes"
classes = ["square", "circle"]
card_size = 40
size = 18
[stimuli.jitter]
shift = 0.15
rotation = 180
[train]
count = {n}
[test]
count = 200
[machine]
preset = "MARK_I"
[schedule]
epochs = {epochs}
"""


def measure(n: int, epochs: int, folder: Path) -> dict:
    from mark1.stimuli.scenes import load_scene

    path = folder / f"cards_{n}.toml"
    path.write_text(SCENE.format(n=n, epochs=epochs))
    est = load_scene(path).resources()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run([sys.executable, "-m", "mark1", "run", str(path), "--out", str(folder / f"out_{n}"),
                           "--memory-limit", "1000"], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"mark1 run failed for {n} cards: {proc.stderr.strip()}")
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if peak_kb <= before:                 # ru_maxrss of children is the largest child so far
        raise SystemExit("measure the sizes in increasing order")
    return dict(cards=n, peak_mib=peak_kb / 1024, estimate_mib=est.memory / 2**20, wall_s=wall)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--epochs", type=int, default=1)
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sorted(args.cards):
            rows.append(measure(n, args.epochs, Path(tmp)))
            r = rows[-1]
            print(f"{r['cards']:>8,} cards  peak {r['peak_mib']:8.1f} MiB  (estimate {r['estimate_mib']:7.1f} MiB)"
                  f"  {r['wall_s']:6.1f} s", flush=True)
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        per_card = (b["peak_mib"] - a["peak_mib"]) * 2**20 / (b["cards"] - a["cards"])
        print(f"growth: {per_card:,.0f} bytes per extra card (a 40x40 card is 1,600 pixels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
