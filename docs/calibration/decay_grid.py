"""The increment x decay-time question of docs/CALIBRATION.md: tables and heat maps.

Reads the two-parameter sweeps made by

    mark1 sweep SCENE --param trainer.increment --values 0.02,0.05,0.2,0.5 \\
        --param rack.decay_time --values ... --epochs N --seeds 3 --out runs/calibration/SCENE/increment_x_decay

prints, per increment and decay time, the change against no decay at the same increment
(paired, 95 % interval) in presentations until the last training mistake and in test
accuracy, with the pots at their end stops; draws ``docs/calibration/SCENE_increment_x_decay.png``:

    python docs/calibration/decay_grid.py e_vs_f alphabet
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

from mark1.lab import GridSweep, parse_value, parse_values
from mark1.lab.stats import mean_interval
from mark1.viz.studies import grid_sweep_figure

matplotlib.use("Agg")
HERE = Path(__file__).resolve().parent


def iv(m, lo, hi, scale=1.0, fmt="{:+.1f}"):
    """A paired change with its interval; bold when the interval excludes 0."""
    text = f"{fmt.format(m * scale)} [{fmt.format(lo * scale)}, {fmt.format(hi * scale)}]"
    return f"**{text}**" if lo > 0 or hi < 0 else text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenes", nargs="+")
    ap.add_argument("--runs", type=Path, default=Path("runs/calibration"))
    args = ap.parse_args()
    for name in args.scenes:
        data = json.loads((args.runs / name / "increment_x_decay" / "grid.json").read_text())
        (a, b), recs = data["params"], data["records"]
        va, vb = data["values"]
        result = GridSweep(scene=data["scene"], params=(a, b), values=(parse_values(a, va), parse_values(b, vb)),
                           reference=tuple(parse_value(k, v) for k, v in zip((a, b), data["reference"])),
                           seeds=data["seeds"], records=recs)
        grid_sweep_figure(result, panels=("test", "mistakes", "pots_at_stops"),
                          out=HERE / f"{name}_increment_x_decay.png")
        print(f"\n{data['scene']} ({len(data['seeds'])} paired seeds; {recs[0]['presentations']} presentations)\n")
        print("| increment | decay time (s) | test accuracy | change in test (points) | learned after | "
              "change in learned after | mistakes | change in mistakes | pots at stops (of "
              f"{recs[0]['pots']:,}) | max wiper |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for x in va:
            base = {r["seed"]: r for r in recs if r["value_a"] == x and r["value_b"] == "inf"}
            for y in vb:
                mine = [r for r in recs if r["value_a"] == x and r["value_b"] == y]
                test = sum(r["test_accuracy"] for r in mine) / len(mine)
                learned = sum(r["learned_after"] for r in mine) / len(mine)
                stops = sum(r["pots_at_stops"] for r in mine) / len(mine)
                wiper = max(r["max_wiper"] for r in mine)
                mistakes = sum(r["mistakes"] for r in mine) / len(mine)
                if y == "inf":
                    dt = dl = dm = "reference"
                else:
                    dt = iv(*mean_interval([r["test_accuracy"] - base[r["seed"]]["test_accuracy"] for r in mine]),
                            scale=100)
                    dl = iv(*mean_interval([r["learned_after"] - base[r["seed"]]["learned_after"] for r in mine]))
                    dm = iv(*mean_interval([r["mistakes"] - base[r["seed"]]["mistakes"] for r in mine]))
                print(f"| {x} | {y:>7} | {100 * test:.1f} | {dt} | {learned:.0f} | {dl} | {mistakes:.0f} | {dm} | "
                      f"{stops:.1f} | {wiper:.2f} |")


if __name__ == "__main__":
    main()
