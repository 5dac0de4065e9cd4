"""Rebuild the figures and tables of docs/THEORY.md: python docs/theory/build.py (a few minutes, one core).

Writes p_a.png, p_c.png and recall.png next to this file and prints the tables that
THEORY.md quotes. Everything is deterministic given SEED.
"""

from __future__ import annotations

from pathlib import Path

from mark1.theory import compare_p_a, compare_p_c, compare_recall, format_table
from mark1.viz.theory import p_a_figure, p_c_figure, recall_figure

HERE = Path(__file__).resolve().parent
SEED, SEEDS, STIMULI, UNITS = 2024, 20, 20, 512

P_A_BOARDS = [(10, 5, 2), (10, 0, 3), (5, 5, 1), (10, 5, 3)]
P_A_R = [0.05, 0.1, 0.2, 0.3, 0.5]
P_C_POINTS = [(10, 0, 3, 0.5), (10, 0, 6, 0.5), (10, 0, 3, 0.2), (10, 5, 2, 0.1)]
P_C_C = [0.0, 0.25, 0.5, 0.75, 0.9]
RECALL = dict(x=10, y=5, theta=3, R=0.15, n_a=100, n_s=[10, 30, 100, 300, 1000, 3000])


def main() -> None:
    bench = dict(seeds=SEEDS, seed=SEED, stimuli=STIMULI, n_associators=UNITS)
    rows_a = compare_p_a([(*b, R) for b in P_A_BOARDS for R in P_A_R], **bench)
    p_a_figure(rows_a, out=HERE / "p_a.png")
    rows_c = compare_p_c([(*p, C) for p in P_C_POINTS for C in P_C_C], **bench)
    p_c_figure(rows_c, out=HERE / "p_c.png")
    fan = compare_p_a([(10, 5, 2, R) for R in (0.1, 0.3)], fan_out=20, **bench)     # 7,680 plugs, 8,000 sockets
    recall = compare_recall(**RECALL, seeds=SEEDS, seed=SEED)
    recall_figure(recall, out=HERE / "recall.png")
    tables = {"P_a": rows_a, "P_c": rows_c, "P_a, fan-out 20": fan, "recall": recall}
    text = [f"seeds {SEEDS} (seed {SEED}), {STIMULI} stimuli per board, {UNITS} A-units\n",
            "## P_a\n", format_table(rows_a), "## P_c\n", format_table(rows_c),
            "## P_a with a binding fan-out (20)\n", format_table(fan), "## Recall\n", format_table(recall),
            "## Worst distances (standard errors)\n"]
    for kind, rows in tables.items():
        r = max(rows, key=lambda r: abs(r["distance"]))
        where = ", ".join(f"{k}={r[k]}" for k in ("x", "y", "theta", "R", "C", "n_s") if r.get(k) is not None)
        text.append(f"- {kind}: {r['distance']:+.2f} at {where}\n")
    for kind in ("P_a", "P_c"):
        worst = max(abs(r["distance_binomial"]) for r in tables[kind])
        text.append(f"- {kind} against the binomial (infinite retina) form: worst |distance| {worst:.2f}\n")
    print("\n".join(text))


if __name__ == "__main__":
    main()
