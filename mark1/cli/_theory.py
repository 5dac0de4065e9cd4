"""``mark1 theory``: the machine's patch board measured against Rosenblatt's formulas.

``mark1 theory [--seeds N] [--seed N] [--out DIR] [--quick]`` measures P_a and P_c over a
grid of x, y, θ, R (and C), and the μ-system's recall against the number of stimuli, and
writes a CSV, a figure and a Markdown page (``theory.md``) of them, each file atomically.
``mark1 theory p_a X Y THETA R [--n 400]`` and ``mark1 theory p_c X Y THETA R C [--n 400]``
print one value: the 1958 (infinite retina) form beside the finite one.
``mark1 theory curve [--seeds N] [--seed N] [--out DIR] [--quick]`` runs the machine's own
trainer against the 1958 learning curves (:mod:`mark1.theory.learning`) and redraws figs. 7-9.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from mark1 import stats
from mark1._utils.atomic import check_target, write_text
from mark1._utils.language import duration
from mark1.cli._names import COMMANDS
from mark1.cli._options import add_overwrite, output_folder
from mark1.exceptions import InputError, InputTypeError, UsageError
from mark1._utils.progress import progress_bar
from mark1.specs import MARK_I, PRESETS
from mark1.theory import (S_POINTS, compare_p_a, compare_p_c, compare_recall, format_table, p_a, p_c,
                          p_c_min)
from mark1.theory.learning import (FIGURES, N_SR_FIG9, S_POINTS_LIT, effective_units, machine_p_a, machine_recall,
                                   machine_spec, machine_spontaneous, p_r, system_constants)
from mark1.viz.theory import learning_figure, p_a_figure, p_c_figure, recall_figure

__all__ = ["add_commands"]

#: The grids. The full one is that of docs/THEORY.md; the quick one is a first look in seconds.
_GRIDS: dict[str, dict[str, Any]] = {
    "full": dict(boards=[(10, 5, 2), (10, 0, 3), (5, 5, 1), (10, 5, 3)], R=[0.05, 0.1, 0.2, 0.3, 0.5],
                 pairs=[(10, 0, 3, 0.5), (10, 0, 6, 0.5), (10, 0, 3, 0.2), (10, 5, 2, 0.1)],
                 C=[0.0, 0.25, 0.5, 0.75, 0.9], stimuli=20, units=512, fan_out=20,
                 recall=dict(x=10, y=5, theta=3, R=0.15, n_a=100, n_s=[10, 30, 100, 300, 1000, 3000])),
    "quick": dict(boards=[(10, 5, 2), (5, 5, 1)], R=[0.1, 0.3], pairs=[(10, 5, 2, 0.2)], C=[0.0, 0.5, 0.9],
                  stimuli=10, units=128, fan_out=None,
                  recall=dict(x=10, y=5, theta=3, R=0.15, n_a=100, n_s=[10, 100, 1000])),
}
_FILES = ("p_a.csv", "p_c.csv", "recall.csv", "p_a.png", "p_c.png", "recall.png", "theory.md")


def _csv(rows: list[dict]) -> str:
    """Rows as CSV text, columns in the rows' own order (None as an empty cell)."""
    columns = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: "" if r.get(k) is None else r[k] for k in columns})
    return buf.getvalue()


def _worst(rows: list[dict], key: str = "distance") -> str:
    """The row farthest from its formula, as 'd se at x=.., ...'."""
    finite = [r for r in rows if r[key] == r[key]]                      # NaN has no place in a maximum
    if not finite:
        return "no spread to measure"
    r = max(finite, key=lambda r: abs(r[key]))
    where = ", ".join(f"{k}={r[k]:g}" for k in ("x", "y", "theta", "R", "C", "n_s") if r.get(k) is not None)
    return f"{r[key]:+.2f} se ({where})"


def _page(command: str, grid: dict, seeds: int, tables: dict[str, list[dict]]) -> str:
    """theory.md: how it was made, the worst distances, each figure and table."""
    lines = ["# The machine against Rosenblatt's formulas", "",
             f"Written by `{command}`: {seeds} seeds per point, each point on its own boards; "
             f"{grid['units']} A-units per board, {grid['stimuli']} random stimuli (or pairs) per board, "
             f"{S_POINTS} S-points. The interval is the 95 % interval over seeds ({stats.METHOD}; none below "
             f"{stats.MIN_SEEDS} seeds); the distance is "
             "(machine - formula) / standard error, against the finite (400-point) formula.", "",
             "| table | points | worst distance | worst distance, 1958 binomial form |", "|---|---|---|---|"]
    for kind, rows in tables.items():
        binomial = _worst(rows, "distance_binomial") if "distance_binomial" in rows[0] else "—"
        lines.append(f"| {kind} | {len(rows)} | {_worst(rows)} | {binomial} |")
    sections = [("P_a", "p_a.png", "P_a: formula (line), 1958 eq. 1 (dotted), machine (points)"),
                ("P_c", "p_c.png", "P_c: formula (line), 1958 eq. 2 (dotted), P_c,min (dashed), machine"),
                ("P_a, fan-out 20 (binding)", None, None),
                ("recall", "recall.png", "Recall of the μ-system: 1957 Z, derived Z, machine")]
    for kind, figure, caption in sections:
        if kind not in tables:
            continue
        lines += ["", f"## {kind}", ""]
        if figure:
            lines += [f"![{caption}]({figure})", ""]
        lines.append(format_table(tables[kind]).rstrip("\n"))
    return "\n".join(lines) + "\n"


#: n_sr of ``mark1 theory curve`` (stimuli forced to each of two responses), full and --quick.
_N_SR = {"full": (10, 30, 100, 300, 1000), "quick": (10, 100)}
#: Random S-units lit for the redrawn figures: P_a = .0050 (fig. 7's .005), .0683 (fig. 8's .07), and fig. 9's sweep.
_LIT: dict[int, Any] = {7: 5, 8: 20, 9: (6, 10, 20, 40, 60)}
_CURVE_FILES = ("learning.csv", "spontaneous.csv", "curve_ibm704.png", "curve_mark1.png", "fig7.png", "fig8.png",
                "fig9.png")


def _interval(values: list[float], shown: int) -> tuple[stats.Interval, int]:
    """The mean over seeds with its 95 % interval (:func:`mark1.stats.mean_interval`); where every
    seed scored alike (a zero-width interval), the exact interval of the pooled count over ``shown``
    cards a seed (:func:`mark1.stats.proportion_interval`). With the pooled count's trials (0: not pooled)."""
    iv = stats.mean_interval(values, (0.0, 1.0))
    if iv.low is not None and iv.low == iv.high:
        n = shown * len(values)
        return stats.proportion_interval(round(iv.mean * n), n), n
    return iv, 0


def _p_value(values: list[float], pooled: int, expected: float) -> float | None:
    """The p-value of "the machine's mean is the theory's", by the test its interval inverts."""
    if pooled:
        return stats.proportion_p_value(round(float(np.mean(values)) * pooled), pooled, expected)
    return stats.p_value(values, expected)


def _machine_rows(bar, spec, *, seeds: int, seed: int, n_srs, lit: int, theory, **labels) -> list[dict]:
    """The machine's P_r (and P_g) at each n_sr over seeds, beside the theory's P_r.

    The points of one curve are one family: "within" is Holm's verdict over them (the
    adjusted p-value of "the mean is the theory's" above 0.05); None below
    :data:`mark1.stats.MIN_SEEDS` seeds. The intervals drawn are each point's own 95 %.
    """
    rows, ps = [], []
    for n in n_srs:
        runs = []
        for k in range(seeds):
            runs.append(machine_recall(spec, n, seed + k, lit=lit))
            bar.update()
        recall = [r for r, _ in runs]
        iv, pooled = _interval(recall, 2 * n)
        g, _ = _interval([g for _, g in runs], 200)
        expected = theory(n)
        se = float(np.std(recall, ddof=1)) / math.sqrt(len(recall)) if len(recall) > 1 else 0.0
        ps.append(_p_value(recall, pooled, expected))
        rows.append({**labels, "n_sr": n, "omega_n_sr": n / 2, "lit": lit, "measured": iv.mean,
                     "low": math.nan if iv.low is None else iv.low, "high": math.nan if iv.high is None else iv.high,
                     "theory": expected, "distance": (iv.mean - expected) / se if se > 0 else float("nan"),
                     "p_g": g.mean, "p_g_low": math.nan if g.low is None else g.low,
                     "p_g_high": math.nan if g.high is None else g.high})
    for r, p, adjusted in zip(rows, ps, stats.adjust(ps, "holm")):
        r.update(p=p, p_holm=adjusted, within=None if adjusted is None else adjusted > 1.0 - stats.LEVEL)
    return rows


def cmd_curve(args) -> int:
    """``mark1 theory curve``: the machine's own trainer against the 1958 learning curves (eq. 4)."""
    if not 1 <= args.curve_seeds <= 10_000:
        raise UsageError(f"--seeds: expected a number of seeds from 1 to 10000 (an interval and a verdict need "
                         f"{stats.MIN_SEEDS}), got {args.curve_seeds}")
    if args.curve_seed < 0:
        raise UsageError(f"--seed: expected a seed >= 0, got {args.curve_seed}")
    out = output_folder(argparse.Namespace(out=args.curve_out, overwrite=args.curve_overwrite),
                        default=Path("runs") / "theory", writes=_CURVE_FILES)
    for name in _CURVE_FILES:
        try:
            check_target(out / name)
        except OSError as e:
            raise UsageError(f"--out: {e.filename}: {e.strerror}") from None
    n_srs = _N_SR["quick" if args.curve_quick else "full"]
    seeds, seed = args.curve_seeds, args.curve_seed
    bases = {"ibm704": PRESETS["ibm704"], "mark1": MARK_I}
    pairs = [("alpha", "forced"), ("gamma", "forced"), ("alpha", "corrective"), ("gamma", "corrective")]
    total = seeds * (len(bases) * len(pairs) * len(n_srs) + 2 * len(n_srs) + len(_LIT[9]) + 2 * len(bases))
    bar = progress_bar(total, "machines", show=True)
    t0 = time.perf_counter()
    rows: list[dict] = []
    dense = np.geomspace(min(n_srs) / 1.5, max(n_srs) * 1.5, 80)

    def curve(system, discrimination, pa, n_e):
        c = system_constants(system, discrimination, p_a=pa, n_e=n_e)
        return lambda n: p_r(n, c, p_a=pa, n_e=n_e)

    for name, base in bases.items():
        plot_rows = []
        spec0 = machine_spec(base, "alpha", "forced")
        pa, n_e = machine_p_a(spec0), effective_units(spec0)
        for system, reinforcement in pairs:
            spec = machine_spec(base, system, reinforcement)
            got = _machine_rows(bar, spec, seeds=seeds, seed=seed, n_srs=n_srs, lit=S_POINTS_LIT,
                                theory=curve(system, "mu", pa, n_e), figure=f"curve_{name}", preset=name,
                                system=system, reinforcement=reinforcement, discrimination="mean", p_a=pa, n_e=n_e)
            for r in got:
                r["label"] = f"machine: {'α' if system == 'alpha' else 'γ'} {reinforcement}"
            rows += got
            plot_rows += got
        mu = curve("alpha", "mu", pa, n_e)
        learning_figure(plot_rows, [
            dict(label=f"1958 eq. 4, α μ = γ (eq. 6, pp. 397-399): P_a = {pa:.4f}, N_e = {n_e}",
                 x=dense, y=[mu(n) for n in dense]),
            dict(label="1958 eq. 4, P_g (c2 = 0, p. 396): chance", x=dense,
                 y=[0.5 * (1 - (1 - pa) ** n_e)] * len(dense), style=":")],
            title=f"{name}: the machine's own trainer against Rosenblatt (1958), ideal environment, μ\n"
                  f"{S_POINTS_LIT} random S-units lit, two responses, {seeds} seeds", out=out / f"curve_{name}.png")

    # figs. 7 and 8 (pp. 397-398): α Σ at P_a = .005, α μ at P_a = .07, against ω n_sr (ω = 1/2 here)
    base = PRESETS["ibm704"]
    for fig, discrimination, word in ((7, "sum", "sigma"), (8, "mean", "mu")):
        spec = machine_spec(base, "alpha", "forced", discrimination)
        lit = _LIT[fig]
        pa, n_e = machine_p_a(spec, lit), effective_units(spec)
        got = _machine_rows(bar, spec, seeds=seeds, seed=seed, n_srs=n_srs, lit=lit,
                            theory=curve("alpha", word, pa, n_e), figure=f"fig{fig}", preset="ibm704",
                            system="alpha", reinforcement="forced", discrimination=discrimination, p_a=pa, n_e=n_e)
        for r in got:
            r["label"] = f"machine (ibm704, α forced, {'Σ' if word == 'sigma' else 'μ'}), N_e = {n_e}"
        rows += got
        paper = FIGURES[fig]["p_a"]
        curves = [dict(label=f"eq. 4 at the machine's P_a = {pa:.4f}, N_e = {n_e}", x=dense / 2,
                       y=[curve("alpha", word, pa, n_e)(n) for n in dense])]
        for k, ne in enumerate((1000, 10_000)):        # the paper's own N_e labels are in its image: not read
            curves.append(dict(label=f"eq. 4 at the paper's P_a = {paper}, N_e = {ne} (N_e chosen here)",
                               x=dense / 2, y=[curve("alpha", word, paper, ne)(n) for n in dense],
                               style=["--", ":"][k], color="0.45"))
        learning_figure(got, curves, along="omega_n_sr", xlabel="ω n_sr (ω = 1/2: two responses, disjoint)",
                        title=f"Rosenblatt 1958 fig. {fig} redrawn: P_r({'Σ' if word == 'sigma' else 'μ'}) "
                              f"against ω n_sr, ω_c = 0, P_a = {paper}, ideal environment", out=out / f"fig{fig}.png")

    # fig. 9 (p. 399): α μ against P_a at n_sr = 1,000 (--quick: 100)
    n9 = N_SR_FIG9 if not args.curve_quick else 100
    spec = machine_spec(base, "alpha", "forced")
    n_e = effective_units(spec)
    got = []
    for lit in _LIT[9]:
        pa = machine_p_a(spec, lit)
        got += _machine_rows(bar, spec, seeds=seeds, seed=seed, n_srs=[n9], lit=lit,
                             theory=curve("alpha", "mu", pa, n_e), figure="fig9", preset="ibm704", system="alpha",
                             reinforcement="forced", discrimination="mean", p_a=pa, n_e=n_e)
    for r in got:
        r["label"] = f"machine (ibm704, α forced, μ), N_e = {n_e}"
    rows += got
    pas = np.geomspace(0.002, 0.5, 80)
    curves = [dict(label=f"eq. 4, α μ, n_sr = {n9}, N_e = {ne}" + ("" if ne == n_e else " (N_e chosen here)"),
                   x=pas, y=[curve("alpha", "mu", a, ne)(n9) for a in pas], style=s, color=col)
              for ne, s, col in ((n_e, "-", "k"), (1000, "--", "0.45"), (10_000, ":", "0.45"))]
    learning_figure(got, curves, along="p_a", xlabel="P_a", out=out / "fig9.png",
                    title=f"Rosenblatt 1958 fig. 9 redrawn: P_r(μ) against P_a, n_sr = {n9}, ω_c = 0")
    # spontaneous learning with decay (p. 404): no curve in the paper; concept score 1 = formed, 0.5 = not
    spontaneous = []
    for name, base in bases.items():
        decay = 100 * base.timing.period                   # a hundred card periods
        for label, d in (("decay", decay), ("no decay", math.inf)):
            runs = []
            for k in range(seeds):
                runs.append(machine_spontaneous(base, d, seed + k))
                bar.update()
            iv, _ = _interval([r for r, _ in runs], 400)
            spontaneous.append({"preset": name, "decay_time_s": d, "setting": label, "concept_score": iv.mean,
                                "low": math.nan if iv.low is None else iv.low,
                                "high": math.nan if iv.high is None else iv.high,
                                "formed": sum(r >= 0.9 for r, _ in runs), "machines": seeds,
                                "busier_share": float(np.mean([b for _, b in runs]))})
    bar.close()

    write_text(out / "spontaneous.csv", _csv(spontaneous))
    write_text(out / "learning.csv", _csv([{k: v for k, v in r.items() if k != "label"} for r in rows]))
    print(f"{'figure':<13} {'system':<6} {'reinf.':<11} {'P_a':>6} {'N_e':>4} {'n_sr':>5} {'machine':>8} "
          f"{'95 % interval':>17} {'eq. 4':>6} {'dist.':>6} {'Holm p':>7}")
    verdict = {True: "", False: " OUT", None: " (too few seeds)"}
    for r in rows:
        shown = "too few seeds" if math.isnan(r["low"]) else f"[{r['low']:.3f}, {r['high']:.3f}]"
        p_holm = "-" if r["p_holm"] is None else f"{r['p_holm']:.3f}"
        print(f"{r['figure']:<13} {r['system']:<6} {r['reinforcement']:<11} {r['p_a']:>6.4f} {r['n_e']:>4} "
              f"{r['n_sr']:>5} {r['measured']:>8.3f} {shown:>17} {r['theory']:>6.3f} "
              f"{r['distance']:>+6.1f} {p_holm:>7}{verdict[r['within']]}")
    print("OUT: the machine's mean is not the theory's, Holm over each curve's points at 5 %; intervals: each "
          f"point's own 95 % ({stats.METHOD_SHORT}; the exact one of the pooled count where every seed scored alike)")
    for r in spontaneous:
        print(f"spontaneous   {r['preset']:<6} {r['setting']:<8} concept score {r['concept_score']:.3f} "
              f"[{r['low']:.3f}, {r['high']:.3f}], formed (>= 0.9) on {r['formed']} of {r['machines']}, "
              f"busier response {r['busier_share']:.3f}")
    print(f"wall {duration(time.perf_counter() - t0)}; written: {out}/{', '.join(_CURVE_FILES)}")
    return 0


def cmd_theory(args) -> int:
    """``mark1 theory``: check, measure every table, write the files, print the tables."""
    if args.formula == "curve":
        return cmd_curve(args)
    if args.formula is not None:
        return _one_value(args)
    if not 2 <= args.seeds <= 100_000:
        raise UsageError(f"--seeds: expected a number of seeds from 2 to 100000 (an interval needs two), "
                         f"got {args.seeds}")
    out = output_folder(args, default=Path("runs") / "theory", writes=_FILES)
    for name in _FILES:                     # a folder named p_a.csv, say, is found before any work
        try:
            check_target(out / name)
        except OSError as e:
            raise UsageError(f"--out: {e.filename}: {e.strerror}") from None
    grid = _GRIDS["quick" if args.quick else "full"]
    bench = dict(seeds=args.seeds, seed=args.seed, stimuli=grid["stimuli"], n_associators=grid["units"],
                 progress=True)
    t0 = time.perf_counter()
    tables = {"P_a": compare_p_a([(*b, R) for b in grid["boards"] for R in grid["R"]], **bench),
              "P_c": compare_p_c([(*p, C) for p in grid["pairs"] for C in grid["C"]], **bench)}
    if grid["fan_out"] is not None:         # a limit that binds: 7,680 plugs in 8,000 sockets
        tables["P_a, fan-out 20 (binding)"] = compare_p_a([(10, 5, 2, R) for R in (0.1, 0.3)],
                                                          fan_out=grid["fan_out"], **bench)
    tables["recall"] = compare_recall(**grid["recall"], seeds=args.seeds, seed=args.seed, progress=True)

    command = " ".join(["mark1 theory", f"--seeds {args.seeds}", f"--seed {args.seed}"]
                       + (["--quick"] if args.quick else []))
    for kind, name in (("P_a", "p_a.csv"), ("P_c", "p_c.csv"), ("recall", "recall.csv")):
        write_text(out / name, _csv(tables[kind]))
    p_a_figure(tables["P_a"], out=out / "p_a.png")
    p_c_figure(tables["P_c"], out=out / "p_c.png")
    recall_figure(tables["recall"], out=out / "recall.png")
    write_text(out / "theory.md", _page(command, grid, args.seeds, tables))

    for kind, rows in tables.items():
        print(f"{kind}: worst distance {_worst(rows)}")
        print(format_table(rows))
    print(f"wall {duration(time.perf_counter() - t0)}; written: {out}/{', '.join(_FILES)}")
    return 0


def _one_value(args) -> int:
    """``mark1 theory p_a|p_c ...``: the 1958 form beside the finite one."""
    if args.n is not None and args.n < 1:
        raise UsageError(f"--n: expected a positive number of S-points, got {args.n}")
    n = S_POINTS if args.n is None else args.n
    try:
        if args.formula == "p_a":
            head = f"P_a(x={args.x}, y={args.y}, θ={args.theta}, R={args.R:g})"
            finite = p_a(args.x, args.y, args.theta, args.R, n=n)     # the larger sum first, as for p_c
            rows = [("1958 eq. 1, infinite retina", p_a(args.x, args.y, args.theta, args.R)),
                    (f"1957 App. I eq. 1, {n} S-points, {round(args.R * n)} lit", finite)]
        else:
            head = f"P_c(x={args.x}, y={args.y}, θ={args.theta}, R={args.R:g}, C={args.C:g})"
            # the finite form first: it sums the most terms, so a board too large for it is
            # refused before the infinite form has summed anything
            finite = p_c(args.x, args.y, args.theta, args.R, args.C, n=n)
            rows = [("1958 eq. 2, infinite retina", p_c(args.x, args.y, args.theta, args.R, args.C)),
                    (f"{n} S-points, {round(args.C * round(args.R * n))} of {round(args.R * n)} kept", finite),
                    ("P_c,min, 1958 eq. 3, infinite retina", p_c_min(args.x, args.y, args.R, args.C)),
                    (f"P_c,min, {n} S-points", p_c_min(args.x, args.y, args.R, args.C, n=n))]
    except (InputError, InputTypeError) as e:     # the message starts with the argument's name
        text = str(e)
        raise UsageError(f"--{text}" if text.startswith("n:") else text) from None
    width = max(len(label) for label, _ in rows)
    print(head)
    for label, value in rows:
        print(f"  {label:<{width}}  {value:.4f}")
    return 0


def add_commands(sub) -> None:
    """Register ``theory`` (with ``theory p_a`` and ``theory p_c``) on argparse subparsers."""
    th = sub.add_parser("theory", help=COMMANDS["theory"],
                        description="The machine measured against Rosenblatt's formulas (1958, 1957): P_a and "
                                    "P_c over a grid, the mu-system's recall against the number of stimuli. "
                                    "With p_a or p_c: one value of a formula.")
    th.add_argument("--seeds", type=int, default=10, help="boards per grid point (default 10)")
    th.add_argument("--seed", type=int, default=0, help="seed of the grid (default 0; docs/THEORY.md uses 2024)")
    th.add_argument("--out", help="output folder (default runs/theory)")
    th.add_argument("--quick", action="store_true", help="a small grid, for a first look (seconds)")
    add_overwrite(th)
    th.set_defaults(func=cmd_theory, formula=None)
    formulas = th.add_subparsers(dest="formula", metavar="{p_a,p_c,curve}")
    cv = formulas.add_parser("curve", help="the machine's own trainer against the 1958 learning curves",
                             description="Runs the machine's own trainer (alpha and gamma, forced and corrective) "
                                         "on the ibm704 reading and the Mark I, on random stimuli (the 1958 ideal "
                                         "environment), and draws P_r against n_sr over eq. 4; redraws figs. 7-9.")
    cv.add_argument("--seeds", dest="curve_seeds", type=int, default=stats.MIN_SEEDS,
                    help=f"machines per point (default {stats.MIN_SEEDS}: fewer give no interval and no verdict)")
    cv.add_argument("--seed", dest="curve_seed", type=int, default=0, help="first seed (default 0)")
    cv.add_argument("--out", dest="curve_out", help="output folder (default runs/theory)")
    cv.add_argument("--overwrite", dest="curve_overwrite", action="store_true",
                    help="replace results already in --out (without it a named folder that holds them is refused, "
                         "and the default one moves to the next free name)")
    cv.add_argument("--quick", dest="curve_quick", action="store_true", help="n_sr = 10, 100 only (seconds)")
    for name, extra, what in (("p_a", (), "P_a, the chance that an A-unit fires (1958 eq. 1; 1957 App. I eq. 1)"),
                              ("p_c", ("C",), "P_c, the chance that an A-unit firing to S1 fires to S2 "
                                              "(1958 eqs. 2-3)")):
        fp = formulas.add_parser(name, help=what, description=what)
        fp.add_argument("x", type=int, help="excitatory inputs per A-unit")
        fp.add_argument("y", type=int, help="inhibitory inputs per A-unit")
        fp.add_argument("theta", type=int, metavar="THETA", help="threshold of an A-unit")
        fp.add_argument("R", type=float, help="fraction of the retina a stimulus lights")
        if extra:
            fp.add_argument("C", type=float, help="fraction of S1's lit points that S2 keeps")
        fp.add_argument("--n", type=int, help=f"S-points of the finite retina (default {S_POINTS}, the Mark I's)")
