"""Coverage of the device fit's bootstrap intervals: how often a 95 % interval holds the truth.

Tables are generated from a known device (the machine's own pot, :func:`pulse_table`); each is
fitted with its generating law and given intervals from ``--samples`` tables simulated from the
fit, as :func:`mark1.machine.device_fit.bootstrap` makes them. From the same refits three
intervals are read: the percentile interval (what ``bootstrap`` reports), the bias-corrected
percentile interval (Efron's BC: the percentiles shifted by how far the refits' median sits
from the fit) and the basic interval (the percentile interval reflected about the fit). Prints
each one's coverage with its binomial 95 % range and a line a table as it goes.

Run it with ``python benchmarks/device_fit_coverage.py [--tables 40] [--samples 100] [--pulses 40 40]
[--dw-min-std 0.3] [--write-noise 3]``.
"""

from __future__ import annotations

import argparse
import math
import time
from statistics import NormalDist

import numpy as np

from mark1.machine.device_fit import LAWS, fit_law, fitted_spec, pulse_table, runs
from mark1.specs import MARK_I

BENCH = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
DEVICE = {"rack.law": "constant", "rack.step": 0.01, "rack.up_down": 0.1, "rack.dw_min_std": 0.3,
          "rack.write_noise_std": 3.0}
PULSES = (40, 40)
KEYS = ("rack.step", "rack.up_down", "rack.dw_min_std", "rack.write_noise_std")


def refit_values(fit) -> list[float]:
    return [fit.params["rack.step"], fit.params["rack.up_down"], fit.dw_min_std, fit.write_noise_std]


def intervals(estimate: float, draws: np.ndarray, level: float = 0.95) -> dict[str, tuple[float, float]]:
    a = (1 - level) / 2
    lo, hi = np.percentile(draws, [100 * a, 100 * (1 - a)])
    nd = NormalDist()
    share = (np.sum(draws < estimate) + 0.5 * np.sum(draws == estimate)) / len(draws)
    z0 = nd.inv_cdf(min(max(share, 1 / (2 * len(draws))), 1 - 1 / (2 * len(draws))))
    z = nd.inv_cdf(1 - a)
    bc = np.percentile(draws, [100 * nd.cdf(2 * z0 - z), 100 * nd.cdf(2 * z0 + z)])
    return {"percentile": (lo, hi), "bias-corrected": (bc[0], bc[1]), "basic": (2 * estimate - hi, 2 * estimate - lo)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=40, help="generated tables (seeds 1000, 1001, ...)")
    ap.add_argument("--samples", type=int, default=100, help="bootstrap refits of each")
    ap.add_argument("--pulses", type=int, nargs="+", default=list(PULSES), help="pulses up, down, up, ...")
    ap.add_argument("--dw-min-std", type=float, default=DEVICE["rack.dw_min_std"], help="cycle-to-cycle noise")
    ap.add_argument("--write-noise", type=float, default=DEVICE["rack.write_noise_std"], help="write noise (steps)")
    args = ap.parse_args()
    dev = {**DEVICE, "rack.dw_min_std": args.dw_min_std, "rack.write_noise_std": args.write_noise}
    pulses = tuple(args.pulses)
    device = BENCH.with_overrides(dev)
    truth = [dev[k] for k in KEYS]
    hits = {m: np.zeros((0, len(KEYS)), bool) for m in ("percentile", "bias-corrected", "basic")}
    t0 = time.time()
    for t in range(args.tables):
        table = pulse_table(device, pulses, seed=1000 + t)
        fit = fit_law(LAWS["constant"], table, BENCH)
        noisy = fitted_spec(fit, BENCH, noise=True)
        draws = np.array([refit_values(fit_law(LAWS["constant"], pulse_table(
            noisy, runs(table.direction), start=float(np.clip(fit.start, -1, 1)), seed=t * 100_003 + b), BENCH))
            for b in range(args.samples)])
        row = {m: [] for m in hits}
        for i, (est, true) in enumerate(zip(refit_values(fit), truth)):
            for m, (lo, hi) in intervals(est, draws[:, i]).items():
                row[m].append(lo <= true <= hi)
        for m in hits:
            hits[m] = np.vstack([hits[m], row[m]])
        print(f"table {t}: " + "; ".join(f"{m} {''.join('x' if h else '.' for h in row[m])}" for m in hits)
              + f"  ({time.time() - t0:.0f} s)", flush=True)
    n = args.tables
    print(f"\n{n} tables of {sum(pulses)} pulses ({dev}), {args.samples} bootstrap refits each; "
          "coverage of the 95 % intervals (binomial 95 % range)")
    print(f"{'key':22s} " + " ".join(f"{m:>24s}" for m in hits))
    for i, k in enumerate(KEYS):
        cells = []
        for m in hits:
            c = hits[m][:, i].mean()
            half = 1.96 * math.sqrt(max(c * (1 - c), 1e-9) / n)
            cells.append(f"{100 * c:5.1f} % [{100 * max(c - half, 0):4.1f}, {100 * min(c + half, 1):5.1f}]")
        print(f"{k:22s} " + " ".join(f"{c:>24s}" for c in cells))


if __name__ == "__main__":
    main()
