"""
Did a slight decay of the pots speed learning?
==============================================

Test a withdrawn claim: "a slight deliberate decay sped learning": that the Mark I's
potentiometers were made to relax slightly towards zero between presentations, and that
this sped learning. No source for it was found, so it is withdrawn (motor-driven pots
hold their value; the only decay in the sources, Rosenblatt 1958 p. 404, is proportional to the value and belongs to spontaneous learning on
the IBM 704), and the decay is now off by default (``rack.decay_time = inf``). The example
stays as the measurement that goes with the withdrawal. It sweeps ``rack.decay_time`` on a
scene that shows its cards more than once (the built-in ``alphabet`` by default: 26 letters,
104 cards over several passes; learning speed needs repeated passes), from strong (30 s: a
wiper loses 10 % of its position in one 3-s card cycle) through slight (300 s to 3,000 s:
1 % to 0.1 % per card) to none (inf), over paired seeds (the same cards and patch board for
every value). "Sped learning" is measured as the presentations until the last training
mistake and the mistakes made while training (the schedule is fixed, so machine time
only changes when the motors make the trainer wait); test accuracy is shown beside.
Every change is paired against no decay, the decays one family under Holm (``mark1.stats``:
intervals inside what a count can be, none below 10 seeds). The last line says
what the simulation finds, whichever way it falls: a miss is a finding. Whether a decay
helps once wipers sit at their end stops (larger increments) is the two-parameter sweep
of docs/CALIBRATION.md, "Does a decay speed learning anywhere?".

Run it with ``python examples/decay.py [--scene alphabet] [--seeds 10] [--out DIR]``.
"""

from __future__ import annotations

import math

import matplotlib

import mark1
from mark1.lab import sweep
from mark1 import stats
from mark1.viz import percent, script_parser
from mark1.viz.studies import sweep_figure

matplotlib.use("Agg")           # the figure goes to a file, never to a window

#: Decay time constants swept, seconds; inf is no decay (the reference).
DECAY_TIMES = (30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0, math.inf)

#: "Slight": a wiper loses at most 1 % of its position per 3-s card cycle.
SLIGHT = 300.0


def paired(result, value, key):
    """The per-seed differences of ``key`` at ``value`` minus at no decay."""
    at = {r["seed"]: r[key] for r in result.records if r["value"] == value}
    none = {r["seed"]: r[key] for r in result.records if r["value"] == "inf"}
    return [at[s] - none[s] for s in result.seeds]


def main(argv=None) -> None:
    ap = script_parser(__doc__, __file__)
    ap.add_argument("--scene", default="alphabet",
                    help="a built-in scene's name (mark1 scenes lists them) or a scene file, "
                         "one that shows its cards more than once")
    ap.add_argument("--seeds", type=int, default=10, help="number of paired seeds (0, 1, ...)")
    args = ap.parse_args(argv)
    scene = mark1.load_scene(args.scene)
    if scene.schedule.epochs < 2:
        ap.error(f"--scene: {args.scene} shows each card once (schedule.epochs = 1), so it cannot show "
                 f"learning speed; choose a scene with several epochs, e.g. alphabet")
    period = scene.machine_spec().timing.period
    result = sweep(scene, "rack.decay_time", list(DECAY_TIMES), seeds=args.seeds, reference=math.inf,
                   out=args.out / "decay_sweep", progress=True, figure=sweep_figure)
    rows = {r["value"]: r for r in result.summary()}
    values = ["inf" if math.isinf(t) else repr(t) for t in DECAY_TIMES]
    runs = max(r["presentations"] for r in result.records)
    # one family: every decay against none, Holm; a count of presentations lies in [0, runs]
    tested = [v for v in values if v != "inf"]
    diffs = [paired(result, v, "learned_after") for v in tested]
    family = dict(zip(tested, stats.family(diffs, (-float(runs), float(runs)), correction="holm")))
    print(f"scene: {scene.name}; {args.seeds} paired seeds; changes are against no decay (inf), "
          f"{100 * stats.LEVEL:g} % {stats.METHOD}, {stats.correction_words('holm', len(tested))}")
    print(f"{'decay (s)':>10}  {'lost per card':>13}  {'test acc':>8}  {'mistakes':>8}  {'learned after':>13}  "
          f"{'change in learned after':>26}")
    found = []
    for tau, v in zip(DECAY_TIMES, values):
        r = rows[v]
        loss = 0.0 if math.isinf(tau) else 1.0 - math.exp(-period / tau)
        if math.isinf(tau):
            change = "reference"
        else:
            c = family[v]
            change = c.interval.format(signed=True)
            if tau >= SLIGHT:
                found.append((tau, c))
        print(f"{v:>10}  {percent(loss, 2):>13}  {percent(r['test_mean']):>8}  {r['mistakes_mean']:>8.1f}  "
              f"{r['learned_after_mean']:>13.1f}  {change:>26}")
    print(stats.seeds_line(diffs, scale=1.0, unit="presentation") or "")
    if any(c.decided is None for _, c in found):
        print(f"too few seeds (n = {args.seeds}) for an interval: no interval and no verdict")
    faster = [f"{tau:g} s" for tau, c in found if c.decided and c.sign < 0]
    slower = [f"{tau:g} s" for tau, c in found if c.decided and c.sign > 0]
    if any(c.decided is None for _, c in found):
        verdict = "no verdict at this seed count"
    elif faster:
        verdict = f"a slight decay sped learning here (fewer presentations to the last mistake at {', '.join(faster)})"
    elif slower:
        verdict = (f"no slight decay sped learning; it slowed it at {', '.join(slower)} (more presentations to "
                   f"the last mistake) and the rest are not distinguishable from no decay")
    else:
        verdict = "no slight decay sped or slowed learning distinguishably from no decay"
    print(f"finding: {verdict} (slight: {SLIGHT:g} s or longer, at most "
          f"{percent(1 - math.exp(-period / SLIGHT))} lost per card)")
    print(f"figure: {args.out / 'decay_sweep' / 'sweep.png'}")


if __name__ == "__main__":
    main()
