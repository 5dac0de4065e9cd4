"""
The Mark I's pot against modern analog devices: accuracy and energy, and a measured device fitted
=================================================================================================

A study an analog-hardware researcher would run, on the machine's own clock. The Mark I's
motor-driven potentiometer and two modern device presets (``mark1.devices``: a
soft-bounds HfO2 ReRAM cell, ``reram-sb``, and a Li-ion ECRAM cell with a linear step,
``ecram``, their parameters IBM aihwkit's fits of published measurements) train on the
same cards with the same patch board, seed by seed (``E vs F`` by default: 60 cards shown
once, 200 test cards), so every difference is paired. Each run reports its test accuracy
and its energy of learning (``mark1.machine.energy``: the write pulses and the drivers
of its corrections): the Mark I's motors and their amplifiers as power x running time
(2 W + 1 W, assumed figures), a device as pulses x its energy per pulse (5 pJ for the
ReRAM cell, assumed; about 1 fJ for ECRAM, a projection in its paper) plus its pulse
driver's (100 fJ, assumed). ``mark1 device energy`` adds the reads and the periphery. Accuracy
differences are paired against the Mark I's pot, the devices one family and the doses
another, each under Holm (``mark1.stats``: intervals inside [−100, +100] points, none
below 10 seeds); the script prints the seeds the devices' spread needs for ±1 and ±0.5
points.

Then the dose-response of one new law: the Mark I's own pot given soft bounds (its step
shrinks to 0 at a bound ``b``, ``rack.law = "soft-bounds"``), from ``b = 1`` (no
difference within the end stops but near them) down to 0.05, against the constant pot.

Last, a measured device in and its law out: a table of 3,200 pulses is made from one
ECRAM cell (the preset with its pot-to-pot spread off, its 30 % pulse-to-pulse noise on),
as a researcher would measure it, and every law of the rack is fitted to it
(``mark1.machine.device_fit``, the same fit as ``mark1 device fit``); the best law and
its parameters are printed beside the preset's.

Run it with ``python examples/device_study.py [--scene e_vs_f] [--seeds 16] [--out DIR]``.
"""

from __future__ import annotations

import matplotlib
import numpy as np

import mark1
from mark1.classroom.device import fit_figure
from mark1.machine.device_fit import fit_table, pulse_table
from mark1 import stats
from mark1.devices import PRESETS, device_spec
from mark1.machine.energy import (AMPLIFIER_POWER, MOTOR_POWER, PULSE_DRIVER_ENERGY, RELAY_POWER, run_energy,
                                  update_energy)
from mark1.stimuli.cards import scene_cards
from mark1.viz import NEUTRAL, new_figure, save_figure, script_parser
from mark1.viz.energy import EnergyRow, energy_figure

matplotlib.use("Agg")           # the figures go to files, never to a window

#: The two device presets set against the Mark I's pot.
DEVICES = ("reram-sb", "ecram")

#: Soft bounds given to the Mark I's pot, symmetric (w_max = b, w_min = -b): the dose.
BOUNDS = (1.0, 0.5, 0.2, 0.1, 0.05)

#: The measured device of the fit: one ECRAM cell, its pot-to-pot spread off.
MEASURED = "ecram"
NO_SPREAD = {"rack.dw_min_dtod": 0.0, "rack.up_down_dtod": 0.0, "rack.w_max_dtod": 0.0, "rack.w_min_dtod": 0.0}


def train(spec, scene, seed):
    """Test accuracy and energy of one run of ``spec`` on the scene's cards of ``seed``."""
    cards, test, machine_seed = scene_cards(scene, seed)
    m = mark1.MarkI(spec=spec, seed=machine_seed).fit(cards.cards, cards.labels, epochs=scene.schedule.epochs,
                                                      order=scene.schedule.order)
    return m.score(test.cards, test.labels), run_energy(m)


def joules(v: float) -> str:
    for scale, prefix in ((1.0, ""), (1e-3, "m"), (1e-6, "u"), (1e-9, "n"), (1e-12, "p"), (1e-15, "f")):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {prefix}J"
    return f"{v:.3g} J"


def main(argv=None) -> None:
    ap = script_parser(__doc__, __file__)
    ap.add_argument("--scene", default="e_vs_f", help="a built-in scene's name or a scene file")
    ap.add_argument("--seeds", type=int, default=16, help="number of paired seeds (0, 1, ...)")
    args = ap.parse_args(argv)
    scene = mark1.load_scene(args.scene)
    base = scene.machine_spec()
    seeds = list(range(args.seeds))
    machines = {"Mark I pot": base, **{d: device_spec(d, base) for d in DEVICES}}
    doses = {b: base.with_overrides({"rack.law": "soft-bounds", "rack.w_max": b, "rack.w_min": -b})
             for b in BOUNDS}
    acc = {name: [] for name in [*machines, *doses]}
    energy = {name: [] for name in machines}
    for seed in seeds:
        for name, spec in [*machines.items(), *doses.items()]:
            a, e = train(spec, scene, seed)
            acc[name].append(100.0 * a)
            if name in energy:
                energy[name].append(e)

    ref = np.array(acc["Mark I pot"])
    devices = [n for n in machines if n != "Mark I pot"]
    # one family per question, Holm over each: the devices against the pot, the doses against it
    dev_diffs = [list(np.array(acc[n]) - ref) for n in devices]
    dev = dict(zip(devices, stats.family(dev_diffs, (-100.0, 100.0), correction="holm")))
    print(f"scene: {scene.name}; {len(seeds)} paired seeds; differences against the Mark I pot in points, "
          f"{100 * stats.LEVEL:g} % {stats.METHOD}, {stats.correction_words('holm', len(devices))}")
    for name in machines:
        a = np.array(acc[name])
        es = energy[name]
        per = float(np.median([e.learning_per_correction_j for e in es]))
        total = float(np.median([e.learning_j for e in es]))
        line = (f"{name} test accuracy: {a.mean():.1f} ± {a.std(ddof=1):.1f} %; energy per correction "
                f"{joules(per)}, per run {joules(total)} (median; {es[0].basis}, {es[0].status})")
        if name in dev:
            c = dev[name]
            line += f"; change {c.interval.format(signed=True)} points" + (
                "" if c.decided is None else " (decided)" if c.decided else " (not distinguishable from 0)")
        print(line)
    print(stats.seeds_line(dev_diffs, scale=1.0) or "one seed: no spread to plan from")
    ratio = (np.median([e.learning_per_correction_j for e in energy["Mark I pot"]])
             / np.median([e.learning_per_correction_j for e in energy["ecram"]]))
    print(f"the Mark I's pot spends {ratio:.1e} times the energy of an ECRAM cell per correction")

    dose_diffs = [list(np.array(acc[b]) - ref) for b in BOUNDS]
    dose = stats.family(dose_diffs, (-100.0, 100.0), correction="holm")
    print("dose-response: soft bounds on the Mark I's pot (w_max = b, w_min = -b) against its constant step, "
          f"{stats.correction_words('holm', len(BOUNDS))}")
    for b, c in zip(BOUNDS, dose):
        print(f"soft bounds b = {b:g}: test accuracy {np.mean(acc[b]):.1f} %, change "
              f"{c.interval.format(signed=True)} points")

    # a measured device: a table made from one ECRAM cell with its noise, every law fitted to it
    device = device_spec(MEASURED).with_overrides(NO_SPREAD)
    table = pulse_table(device, (800, 800, 800, 800), seed=0)
    fit = fit_table(table, device.with_overrides({"rack.law": "constant"}))
    best = fit.best
    print(f"fit of {len(table.step):,} pulses of one {MEASURED} cell: best law {best.law} "
          f"(preset: {device.rack.law}); held-out replay error {best.heldout_rms:.3g}, next {fit.fits[1].law} "
          f"{fit.fits[1].heldout_rms:.3g}")
    for key in ("rack.step", "rack.up_down", "rack.gamma_up", "rack.gamma_down"):
        if key in best.params:
            print(f"  {key}: fitted {best.params[key]:.4g}, preset {getattr(device.rack, key.split('.')[1]):.4g}")
    print(f"  pulse-to-pulse noise: fitted {best.dw_min_std:.3f}, preset {device.rack.dw_min_std:g}")

    # figures: accuracy and energy side by side; the dose-response; joules on one logarithmic axis; the fit
    fig = new_figure(13, 4.4)
    ax, bx = fig.subplots(1, 2)
    names = list(machines)
    for i, name in enumerate(names):
        a = np.array(acc[name])
        ax.scatter(np.full(len(a), i) + np.linspace(-0.12, 0.12, len(a)), a, s=10, color=NEUTRAL, alpha=0.6)
        iv = stats.mean_interval(list(a), (0.0, 100.0))
        err = None if iv.too_few else [[iv.mean - iv.low], [iv.high - iv.mean]]
        ax.errorbar([i], [iv.mean], yerr=err, fmt="o", color="0.1", capsize=4)
        if iv.too_few:
            ax.text(i, iv.mean, "  " + iv.words(), fontsize=7, va="center")
    per_correction = {name: joules(np.median([e.learning_per_correction_j for e in energy[name]])) for name in names}
    ax.set_xticks(range(len(names)), [f"{name}\n{per_correction[name]} a correction" for name in names])
    ax.set(ylim=(0, 100), ylabel="test accuracy (%)",
           title=f"{scene.name}: one dot a seed, the mean with its 95 % interval ({stats.METHOD_SHORT})")
    m_ref = ref.mean()
    for b, c in zip(BOUNDS, dose):
        iv = c.interval                                   # Holm-adjusted over the doses
        err = None if iv.too_few else [[iv.mean - iv.low], [iv.high - iv.mean]]
        bx.errorbar([b], [m_ref + iv.mean], yerr=err, fmt="o", color="0.1", capsize=4)
    bx.axhline(m_ref, color=NEUTRAL, ls="--", lw=1, label="constant step (the Mark I's pot)")
    bx.set_xscale("log")
    bx.set(xlabel="soft bound b (full scale), logarithmic", ylabel="test accuracy (%)",
           title="dose-response: the pot's step shrinks to 0 at ±b\n(mean of the constant pot + paired change, "
                 "Holm-adjusted over the doses)")
    bx.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, args.out / "device_study_accuracy.png")

    inc = base.trainer.increment
    rows = [EnergyRow("Mark I pot, DC motors", update_energy(base),
                      [e.learning_per_correction_j for e in energy["Mark I pot"]], MOTOR_POWER.status,
                      f"({MOTOR_POWER.value:g} W + {AMPLIFIER_POWER.value:g} W) x {inc / base.rack.motor_speed:g} s "
                      "a pot"),
            EnergyRow("Mark I pot, ratchet relays", update_energy(base.with_overrides({"rack.drive": "ratchet"})), [],
                      RELAY_POWER.status, f"{RELAY_POWER.value:g} W x {base.rack.step_time:g} s a step")]
    for name, p in PRESETS.items():
        spec = device_spec(name, base)
        runs = [e.learning_per_correction_j for e in energy[name]] if name in energy else []
        steps = int(np.rint(inc / spec.rack.step))
        rows.append(EnergyRow(f"{name}", update_energy(spec), runs, p.pulse_energy_status,
                              f"{steps} pulses x ({joules(p.pulse_energy)} + {joules(PULSE_DRIVER_ENERGY.value)})"))
    energy_figure(rows, title=f"Energy of learning, {scene.name}: one pot's update (an increment of {inc:g} full "
                              "scale)\nand a correction (each run's mean)",
                  out=args.out / "device_study_energy.png")
    fit_figure(fit, out=args.out / "device_study_fit.png")
    print(f"figures: {args.out / 'device_study_accuracy.png'}, device_study_energy.png, device_study_fit.png")


if __name__ == "__main__":
    main()
