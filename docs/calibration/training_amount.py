"""The training-amount study of docs/CALIBRATION.md ("How much training"): table and figure.

Reads the sweeps of ``schedule.epochs`` made by

    mark1 sweep SCENE --param schedule.epochs --values 1,2,5,10,until --seeds 10 \\
        --out runs/training/SCENE

and prints the Markdown table, and draws ``docs/calibration/training_amount.png``:

    python docs/calibration/training_amount.py [--runs runs/training]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

from mark1 import stats
from mark1.viz.figure import new_figure, save_figure

matplotlib.use("Agg")

SCENES = ("e_vs_x", "e_vs_x_any_rotation", "e_vs_f", "square_vs_diamond", "left_right_marks", "square_vs_circle",
          "square_vs_circle_solid", "typefaces", "alphabet", "parity", "connectedness")
HERE = Path(__file__).resolve().parent


def paired(recs, a, b, key="test_accuracy"):
    """The mean of ``key`` (an accuracy) at value ``a`` minus at value ``b``, seed by seed, with its
    95 % interval (:func:`mark1.stats.difference_interval`; none below its minimum seeds)."""
    at = {r["seed"]: r[key] for r in recs if r["value"] == a}
    ref = {r["seed"]: r[key] for r in recs if r["value"] == b}
    seeds = [s for s in at if s in ref]
    return stats.difference_interval([at[s] for s in seeds], [ref[s] for s in seeds], (0.0, 1.0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=Path, default=Path("runs/training"))
    args = ap.parse_args()
    fig = new_figure(11.0, 4.8)
    axes = [fig.add_subplot(1, 2, k + 1) for k in range(2)]
    colors = matplotlib.colormaps["tab20"].colors
    print("| scene | cards | 1 pass | 2 | 5 | 10 | until no error | passes needed | recall at 1 → until | "
          "until no error − 1 pass (points, paired) | machine h: 1 pass → until |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k, name in enumerate(SCENES):
        path = args.runs / name / "sweep.json"
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        rows = {r["value"]: r for r in data["summary"]}
        recs = data["records"]
        until = next(v for v in data["values"] if v.startswith("until"))
        cap = until.split(":")[1]
        passes = [int(v) for v in data["values"] if v != until]
        cards = recs[0]["presentations"] // recs[0]["passes"]
        cells = [f"{100 * rows[str(p)]['test_mean']:.1f}" if str(p) in rows else "–" for p in (1, 2, 5, 10)]
        needed = [r["first_clean_pass"] for r in recs if r["value"] == until]
        needed_text = ", ".join("> " + cap if n is None else str(n) for n in needed)
        recall = {v: sum(r["train_accuracy"] for r in recs if r["value"] == v) / len(data["seeds"])
                  for v in ("1", until)}
        cost = paired(recs, until, "1").format(scale=100, signed=True)
        print(f"| {data['scene']} | {cards:,} | " + " | ".join(cells) + f" | {100 * rows[until]['test_mean']:.1f} | "
              f"{needed_text} | {100 * recall['1']:.1f} → {100 * recall[until]:.1f} | {cost} | "
              f"{rows['1']['machine_h_mean']:.2f} → {rows[until]['machine_h_mean']:.2f} |")
        xs = passes + [max(passes) * 2]
        color = colors[(2 * k) % 20 if k < 10 else 2 * (k - 10) + 1]
        for ax, key in zip(axes, ("test_accuracy", "train_accuracy")):
            ys = [100 * sum(r[key] for r in recs if r["value"] == v) / len(data["seeds"])
                  for v in [*map(str, passes), until]]
            ax.plot(xs[:-1], ys[:-1], "o-", markersize=4, color=color, label=name)
            ax.plot(xs[-2:], ys[-2:], ":", color=color)
            ax.plot(xs[-1:], ys[-1:], "s", color=color, markersize=6)
    for ax, what in zip(axes, ("test accuracy, new cards (%)", "recall of the training cards (%)")):
        ax.set_xscale("log")
        ax.set_xticks([1, 2, 5, 10, 20])
        ax.set_xticklabels(["1", "2", "5", "10", "until no error\n(cap 50)"])
        ax.minorticks_off()
        ax.set_xlabel("passes over the training cards")
        ax.set_ylabel(f"{what}, mean of the paired seeds")
        ax.set_title(what, fontsize=9)
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=7, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle("How much training: the same training cards shown 1, 2, 5, 10 times or until a pass without a "
                 "mistake", fontsize=10)
    fig.tight_layout()
    save_figure(fig, HERE / "training_amount.png", dpi=110)
    print(f"\nintervals: {100 * stats.LEVEL:g} % {stats.METHOD} (one comparison a scene, no family)")


if __name__ == "__main__":
    main()
