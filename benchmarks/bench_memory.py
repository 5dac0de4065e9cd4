"""Peak memory of `mark1 run` on a catalog scene against its number of training cards, and the estimate.

Each size runs in a fresh process (``python -m mark1 run``) on the catalog scene with its
``train.count`` set to the size (square vs circle by default: 60-px cards of outlined
squares and circles, shifted and turned, each shown once), and the peak resident memory
of that process alone is read from ``os.wait4``. Its resident memory is sampled while it
runs, to show it growing a chunk at a time as the deck is drawn (decks above
``decks.COMPACT_ABOVE`` bytes of float64 are kept as 8-bit reflectance). The estimate
``Scene.resources()`` (what every command checks before work) is printed beside the
measurement, as a ratio.

    python benchmarks/bench_memory.py [--scene scenes/square_vs_circle.toml] [--cards 10000 100000]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _rss(pid: int) -> int | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    m = re.search(r"VmRSS:\s+(\d+) kB", text)
    return int(m.group(1)) * 1024 if m else None


def with_count(scene: Path, n: int, folder: Path) -> Path:
    """The scene file with its training count set to ``n`` (the rest untouched)."""
    text = scene.read_text()
    new, k = re.subn(r"(\[train\][^\[]*?count\s*=\s*)\d+", rf"\g<1>{n}", text, count=1)
    if not k:
        new = text + f"\n[train]\ncount = {n}\n"
    path = folder / f"{scene.stem}_{n}.toml"
    path.write_text(new)
    return path


def measure(scene: Path, n: int, folder: Path) -> dict:
    from mark1.stimuli.scenes import load_scene

    path = with_count(scene, n, folder)
    est = load_scene(path).resources()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    t0 = time.perf_counter()
    with open(folder / f"err_{n}.txt", "w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "mark1", "run", str(path), "--out", str(folder / f"out_{n}")],
                                env=env, stdout=subprocess.DEVNULL, stderr=err)
        samples = []
        while True:                      # os.wait4 gives this child's own peak (ru_maxrss)
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            r = _rss(proc.pid)
            if r is not None:
                samples.append((time.perf_counter() - t0, r))
            time.sleep(0.1)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"mark1 run failed for {n} cards: {err.read().strip()}")
    return dict(cards=n, peak=usage.ru_maxrss * 1024, estimate=est.memory, wall=wall, samples=samples)


def _timeline(samples, points: int = 8) -> str:
    """Resident memory at evenly spaced moments of the run, MiB."""
    if not samples:
        return ""
    picks = [samples[min(len(samples) - 1, round(i * (len(samples) - 1) / (points - 1)))] for i in range(points)]
    return "  ".join(f"{t:5.1f} s {r / 2**20:5.0f}" for t, r in picks)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default=str(ROOT / "scenes" / "square_vs_circle.toml"))
    ap.add_argument("--cards", type=int, nargs="+", default=[10_000, 100_000])
    args = ap.parse_args(argv)
    scene = Path(args.scene)
    print(f"{scene.name}: peak resident memory of mark1 run (os.wait4), and the estimate Scene.resources()")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sorted(args.cards):
            r = measure(scene, n, Path(tmp))
            rows.append(r)
            print(f"{n:>9,} cards  peak {r['peak'] / 2**20:7.1f} MiB  estimate {r['estimate'] / 2**20:7.1f} MiB  "
                  f"(estimate / peak {r['estimate'] / r['peak']:.2f})  {r['wall']:6.1f} s", flush=True)
            print(f"          resident while running (MiB): {_timeline(r['samples'])}", flush=True)
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        per_card = (b["peak"] - a["peak"]) / (b["cards"] - a["cards"])
        print(f"growth: {per_card:,.0f} bytes of peak per extra card")
    return 0


if __name__ == "__main__":
    sys.exit(main())
