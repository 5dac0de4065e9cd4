"""The increment x decay-time question of docs/CALIBRATION.md: tables and heat maps.

Reads the two-parameter sweeps made by

    mark1 sweep SCENE --param trainer.increment --values 0.02,0.05,0.2,0.5 \\
        --param rack.decay_time --values ... --epochs N --seeds 10 --out runs/calibration/SCENE/increment_x_decay

prints, per increment and decay time, the change against no decay at the same increment
(paired; each column's cells one Benjamini-Hochberg family, as mark1 sweep) in presentations
until the last training mistake and in test accuracy, with the pots at their end stops;
draws ``docs/calibration/SCENE_increment_x_decay.png``:

    python docs/calibration/decay_grid.py e_vs_f alphabet
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

from mark1.lab import GridSweep, parse_value, parse_values
from mark1 import stats
from mark1.viz.studies import grid_sweep_figure

matplotlib.use("Agg")
HERE = Path(__file__).resolve().parent


def iv(c: stats.Compared, scale=1.0) -> str:
    """A paired change with its adjusted interval; bold where that interval excludes 0."""
    text = c.interval.format(scale=scale, signed=True)
    return f"**{text}**" if c.decided else text


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
        runs = max(r["presentations"] for r in recs)
        cells = [(x, y) for x in va for y in vb if y != "inf"]
        diffs: dict[str, list] = {"test_accuracy": [], "learned_after": [], "mistakes": []}
        for x, y in cells:
            base = {r["seed"]: r for r in recs if r["value_a"] == x and r["value_b"] == "inf"}
            mine = [r for r in recs if r["value_a"] == x and r["value_b"] == y]
            for key in diffs:
                diffs[key].append([r[key] - base[r["seed"]][key] for r in mine])
        # each figure's cells against no decay are one family (Benjamini-Hochberg, as mark1 sweep)
        bounds = {"test_accuracy": (-1.0, 1.0), "learned_after": (-float(runs), float(runs)),
                  "mistakes": (-float(runs), float(runs))}
        fam = {key: dict(zip(cells, stats.family(d, bounds[key], correction="bh"))) for key, d in diffs.items()}
        for x in va:
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
                    dt = iv(fam["test_accuracy"][(x, y)], scale=100)
                    dl = iv(fam["learned_after"][(x, y)])
                    dm = iv(fam["mistakes"][(x, y)])
                print(f"| {x} | {y:>7} | {100 * test:.1f} | {dt} | {learned:.0f} | {dl} | {mistakes:.0f} | {dm} | "
                      f"{stops:.1f} | {wiper:.2f} |")
        print(f"\nintervals: {100 * stats.LEVEL:g} % {stats.METHOD}; each column's "
              f"{stats.correction_words('bh', len(cells))} against no decay; bold: the adjusted interval excludes 0")


if __name__ == "__main__":
    main()
