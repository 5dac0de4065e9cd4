"""Coverage of the device fit's 95 % intervals: how often an interval holds the truth.

Tables are generated from a known device (the machine's own pot, :func:`pulse_table`), a constant
step or soft bounds, with cycle-to-cycle and write noise; each is fitted with its generating law
and given intervals, the profile-likelihood intervals the fit reports
(:func:`mark1.machine.device_fit.profile_intervals`) or, with ``--method bootstrap``, the
parametric bootstrap's percentile intervals (:func:`mark1.machine.device_fit.bootstrap`,
``--samples`` refits a table). Prints a line a table as it goes (``x`` an interval that held
the truth, ``.`` one that did not, ``u`` where the term was reported not pinned), then each
parameter's coverage with its binomial 95 % range, and how often each was reported not pinned.

Run it with ``python benchmarks/device_fit_coverage.py [--law constant] [--tables 100]
[--pulses 40 40] [--dw-min-std 0.3] [--write-noise 3] [--step 0.01] [--method profile]``; it takes about
2-20 s a table (longer tables and more parameters take longer).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from mark1.machine.device_fit import LAWS, bootstrap, fit_law, profile_intervals, pulse_table
from mark1.specs import MARK_I

BENCH = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
DEVICES = {
    "constant": {"rack.law": "constant", "rack.step": 0.01, "rack.up_down": 0.1},
    "soft-bounds": {"rack.law": "soft-bounds", "rack.step": 0.01, "rack.up_down": 0.1, "rack.w_max": 0.5,
                    "rack.w_min": -0.5},
}
PULSES = (40, 40)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--law", choices=list(DEVICES), default="constant", help="the device's law")
    ap.add_argument("--tables", type=int, default=100, help="generated tables (seeds 1000, 1001, ...)")
    ap.add_argument("--pulses", type=int, nargs="+", default=list(PULSES), help="pulses up, down, up, ...")
    ap.add_argument("--dw-min-std", type=float, default=0.3, help="cycle-to-cycle noise")
    ap.add_argument("--write-noise", type=float, default=3.0, help="write noise (steps)")
    ap.add_argument("--step", type=float, default=0.01,
                    help="the device's step (full scale; 0.005 keeps 400 pulses from 0 off the end stops)")
    ap.add_argument("--method", choices=("profile", "bootstrap"), default="profile", help="the intervals")
    ap.add_argument("--samples", type=int, default=100, help="with bootstrap: refits a table")
    args = ap.parse_args()
    dev = {**DEVICES[args.law], "rack.step": args.step, "rack.dw_min_std": args.dw_min_std,
           "rack.write_noise_std": args.write_noise}
    keys = [k for k in dev if k != "rack.law"]
    pulses = tuple(args.pulses)
    device = BENCH.with_overrides(dev)
    hits, unpinned = np.zeros((0, len(keys)), bool), np.zeros((0, len(keys)), bool)
    t0 = time.time()
    for t in range(args.tables):
        table = pulse_table(device, pulses, seed=1000 + t)
        fit = fit_law(LAWS[args.law], table, BENCH)
        fit = (profile_intervals(fit, table, BENCH) if args.method == "profile"
               else bootstrap(fit, table, BENCH, args.samples, seed=t))
        row = [fit.intervals[k][0] <= dev[k] <= fit.intervals[k][1] for k in keys]
        loose = [k in fit.unpinned for k in keys]
        hits, unpinned = np.vstack([hits, row]), np.vstack([unpinned, loose])
        marks = "".join(("x" if h else ".") + ("u" if u else " ") for h, u in zip(row, loose))
        ivs = "; ".join(f"{k.split('.')[1]} [{fit.intervals[k][0]:.4g}, {fit.intervals[k][1]:.4g}]" for k in keys)
        print(f"table {t:3d}: {marks}  {ivs}  ({time.time() - t0:.0f} s)", flush=True)
    n = args.tables
    print(f"\n{n} tables of {sum(pulses)} pulses {pulses} of a {args.law} device ({dev}); {args.method} intervals"
          + (f", {args.samples} refits each" if args.method == "bootstrap" else "")
          + f"; {time.time() - t0:.0f} s")
    print(f"{'key':22s} {'coverage of the 95 % intervals (binomial 95 % range)':>54s} {'not pinned':>11s}")
    for i, k in enumerate(keys):
        c = hits[:, i].mean()
        half = 1.96 * math.sqrt(max(c * (1 - c), 1e-9) / n)
        cell = f"{100 * c:5.1f} % [{100 * max(c - half, 0):4.1f}, {100 * min(c + half, 1):5.1f}]"
        print(f"{k:22s} {cell:>54s} {100 * unpinned[:, i].mean():9.1f} %")


if __name__ == "__main__":
    main()
