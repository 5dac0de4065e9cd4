"""The energy of a run, part by part: write pulses, drivers, reads and periphery, each count x constant."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import simpy
from hypothesis import given, settings, strategies as st

from mark1 import specs
from mark1.cli import main
from mark1.exceptions import InputError
from mark1.machine.energy import (AMPLIFIER_POWER, CELL_READ_ENERGY, CONVERSION_ENERGY, MOTOR_POWER, PARTS,
                                  POT_READ_POWER, PULSE_DRIVER_ENERGY, R_UNIT_POWER, RELAY_POWER, Constant,
                                  correction_energies, drive_power, energy, run_counts, run_energy)
from mark1.machine.mark_i import MarkI
from mark1.machine.potentiometers import PotentiometerRack
from mark1.machine.simulator import history

QUIET = specs.MARK_I.with_overrides({"rack.decay_time": "inf", "rack.motor_spread": 0.0, "rack.backlash": 0.0})


def _hand_run(spec, commands, a_active=0):
    """A hand-made run: one rack of 1 unit x 4 pots driven by ``commands`` (one a presentation),
    wrapped as a fitted machine's results (rack, history, spec, machine time, no trace)."""
    rack = PotentiometerRack(spec.rack, 1, 4, 1)
    env = simpy.Environment()

    def trainer(env):
        for c in commands:
            yield env.process(rack.drive(env, np.asarray(c, float)[None, :]))
            yield env.timeout(1.0)

    env.process(trainer(env))
    env.run()
    moved = [int(np.count_nonzero(c)) for c in commands]
    n = len(commands)
    hist = history(epoch_of=np.zeros(n, int), order=np.arange(n), labels=np.zeros(n, int),
                   response=np.zeros(n, int), units_erred=np.array(moved) > 0, pots_moved=moved,
                   start=np.arange(n, dtype=float), s_active=np.zeros(n, int),
                   a_active=np.broadcast_to(a_active, n).astype(int))
    return SimpleNamespace(rack_=rack, history_=hist, spec=spec, trace_=SimpleNamespace(full=False),
                           machine_time_=float(env.now))


def test_continuous_energy_is_power_times_running_seconds_exactly():
    # 0.02 full scale at 0.25 full scale/s runs a motor 0.08 s; 0.04 runs it 0.16 s
    m = _hand_run(QUIET, [[0.02, 0.0, -0.02, 0.0], [0.0, 0.0, 0.0, 0.0], [0.04, 0.02, 0.0, 0.0]])
    seconds = 0.08 + 0.08 + 0.16 + 0.08
    e = run_energy(m)
    assert float(np.sum(m.rack_.motor_seconds)) == pytest.approx(seconds, abs=1e-15)
    assert e.motor_seconds == float(np.sum(m.rack_.motor_seconds))
    drivers = e.part("drivers")
    assert drivers.joules == MOTOR_POWER.value * e.motor_seconds + AMPLIFIER_POWER.value * e.motor_seconds
    assert drivers.joules == pytest.approx(3.0 * 0.40, abs=1e-12)
    assert e.part("write pulses").joules == 0.0 and e.learning_j == drivers.joules
    assert e.corrections == 2 and e.per_correction_j == e.total_j / 2
    assert drivers.per_correction_j == drivers.joules / 2
    assert e.pulses == 4 and e.basis == "running time" and e.status == "assumed"


def test_ratchet_energy_is_coil_power_times_stepping_seconds():
    spec = QUIET.with_overrides({"rack.drive": "ratchet"})                   # 0.01 a step, 0.04 s a step
    m = _hand_run(spec, [[0.02, 0.0, 0.0, -0.02], [0.03, 0.0, 0.0, 0.0]])
    e = run_energy(m)
    steps = 2 + 2 + 3
    assert e.pulses == steps
    assert e.motor_seconds == pytest.approx(steps * 0.04, abs=1e-15)
    assert e.part("drivers").joules == RELAY_POWER.value * e.motor_seconds      # a coil, no amplifier
    assert drive_power(spec) is RELAY_POWER


def test_a_pot_against_its_end_stop_costs_nothing():
    m = _hand_run(QUIET, [[0.02, 0.0, 0.0, 0.0]])
    m.rack_.p_from[0, 1] = m.rack_.p_to[0, 1] = 1.0          # pot 1 stands at its stop
    before = float(np.sum(m.rack_.motor_seconds))
    env = simpy.Environment()
    env.process(m.rack_.drive(env, np.array([[0.0, 0.02, 0.0, 0.0]])))
    env.run()
    assert float(np.sum(m.rack_.motor_seconds)) == before


def test_pulses_times_energy_a_pulse():
    cell = Constant(2.5e-12, "J", "datasheet", "a cell; its paper")
    e = energy(cell, motor_seconds=3.0, pulses=1000, corrections=8)
    assert e.part("write pulses").joules == 2.5e-12 * 1000
    assert e.part("drivers").joules == PULSE_DRIVER_ENERGY.value * 1000
    assert e.total_j == e.learning_j and e.per_correction_j == e.total_j / 8
    assert e.basis == "pulses" and e.status == "datasheet"
    assert e.to_dict()["parts"]["write pulses"]["terms"][0]["status"] == "datasheet"
    json.dumps(e.to_dict())                                        # JSON-safe


def test_no_corrections_is_no_energy_a_correction():
    e = energy(MOTOR_POWER, motor_seconds=0.0, pulses=0, corrections=0)
    assert e.total_j == 0.0 and np.isnan(e.per_correction_j)
    assert all(np.isnan(p.per_correction_j) for p in e.parts)
    assert "0 J, - a correction" in e.describe()
    assert e.to_dict()["parts"]["drivers"]["per_correction_j"] is None


@pytest.mark.parametrize("kwargs, says", [
    ({"constant": Constant(1.0, "V", "assumed", "")}, "constant.unit"),
    ({"motor_seconds": -1.0}, "motor_seconds"),
    ({"motor_seconds": float("nan")}, "motor_seconds"),
    ({"pulses": -3}, "pulses"),
])
def test_bad_counts_are_refused(kwargs, says):
    args = {"constant": MOTOR_POWER, "motor_seconds": 1.0, "pulses": 1, "corrections": 1, **kwargs}
    with pytest.raises(InputError, match=says):
        energy(args.pop("constant"), **args)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_fitted_machine_counts_its_moves_once(seed):
    """The rack's counters, the trace's moves and the per-correction split agree, for every seed."""
    cards, labels = np.ones((4, 20, 20)), ["down", "across"] * 2
    cards[0, :, 4:7] = cards[2, :, 12:15] = cards[1, 5:8, :] = cards[3, 13:16, :] = 0.0
    m = MarkI(spec=specs.SMALL, seed=seed, trace="full").fit(cards, labels, epochs=3)
    e = run_energy(m)
    from_trace = sum(float(np.sum(mv.duration)) for mv in m.trace_.moves)
    assert e.motor_seconds == pytest.approx(from_trace, rel=1e-12)
    assert e.pulses == sum(int(np.count_nonzero(mv.command)) for mv in m.trace_.moves)
    per = correction_energies(m)
    assert len(per) == e.corrections == int(np.count_nonzero(m.history_["pots_moved"]))
    assert per.sum() == pytest.approx(e.part("drivers").joules, rel=1e-12)
    assert np.all(per > 0)


def test_correction_energies_need_the_full_trace():
    cards, labels = np.ones((2, 20, 20)), ["a", "b"]
    cards[0, :, 4:7] = 0.0
    m = MarkI(spec=specs.SMALL, seed=0).fit(cards, labels, epochs=1)
    with pytest.raises(InputError, match="trace='full'"):
        correction_energies(m)


def test_run_reports_energy_in_summary_and_table(tmp_path, capsys):
    assert main(["run", "demo", "--out", str(tmp_path)]) == 0
    table = capsys.readouterr().out
    summary = json.loads((tmp_path / "summary.json").read_text())
    e = summary["energy"]
    assert e["total_j"] == pytest.approx(sum(p["joules"] for p in e["parts"].values()), rel=1e-12)
    assert list(e["parts"]) == list(PARTS)
    drivers = e["parts"]["drivers"]["terms"]
    assert [t["value"] for t in drivers] == [MOTOR_POWER.value, AMPLIFIER_POWER.value]
    assert all(t["count"] == e["motor_seconds"] for t in drivers)
    assert e["per_correction_j"] == pytest.approx(e["total_j"] / e["corrections"])
    assert e["status"] == "assumed"
    line = next(row for row in table.splitlines() if row.strip().startswith("energy"))
    assert "a correction" in line and "assumed" in line


def test_a_device_preset_spends_pulses_times_its_energy_a_pulse():
    from mark1.devices import PRESETS, device_spec
    from mark1.machine.energy import device_of, pulse_energy, update_energy

    spec = device_spec("ecram", specs.SMALL)
    assert device_of(spec) == "ecram" and device_of(specs.SMALL) is None
    # a spec with every override of a preset is that device, whatever its name
    assert device_of(specs.SMALL.with_overrides(dict(PRESETS["reram-sb"].overrides))) == "reram-sb"
    cards, labels = np.ones((4, 20, 20)), ["down", "across"] * 2
    cards[0, :, 4:7] = cards[2, :, 12:15] = cards[1, 5:8, :] = cards[3, 13:16, :] = 0.0
    m = MarkI(spec=spec, seed=0).fit(cards, labels, epochs=3)
    e = run_energy(m)
    assert e.basis == "pulses" and e.pulses == int(m.rack_.pulses.sum()) > 0
    assert e.part("write pulses").joules == PRESETS["ecram"].pulse_energy * e.pulses
    assert e.part("drivers").joules == PULSE_DRIVER_ENERGY.value * e.pulses
    c = run_counts(m)
    assert e.part("reads").joules == CELL_READ_ENERGY.value * c.pot_reads
    assert e.part("periphery").joules == CONVERSION_ENERGY.value * c.sums == CONVERSION_ENERGY.value * len(m.history_)
    assert e.status == PRESETS["ecram"].pulse_energy_status == pulse_energy("ecram").status
    # one pot's update: the increment's train of pulses
    steps = int(np.rint(spec.trainer.increment / spec.rack.step))
    assert update_energy(spec) == pytest.approx(steps * (PRESETS["ecram"].pulse_energy + PULSE_DRIVER_ENERGY.value))
    with pytest.raises(InputError, match="by pulses"):
        correction_energies(MarkI(spec=spec, seed=0, trace="full").fit(cards, labels, epochs=1))
    with pytest.raises(InputError, match="device"):
        pulse_energy("memristor")


def test_a_scenes_device_is_known_by_its_family_when_the_scene_changes_it(tmp_path):
    from mark1.machine.energy import device_of
    from mark1.stimuli.scenes import load_scene

    scene = tmp_path / "ecram.toml"
    scene.write_text('name = "E vs F on ECRAM"\ndescription = "two letters"\n[stimuli]\nsource = "characters"\n'
                     'classes = ["E", "F"]\n[train]\ncount = 6\n[test]\ncount = 6\n[machine]\npreset = "SMALL"\n'
                     'device = "ecram"\n[machine.overrides]\nrack.step = 0.002\n')
    spec = load_scene(scene).machine_spec()
    assert spec.rack.step == 0.002 and device_of(spec) == "ecram"


def test_a_hand_made_runs_counts_and_each_part_by_its_law():
    """1 R-unit over 3 A-units and a bias pot; the A-units active 2, 0 and 3 times."""
    m = _hand_run(QUIET, [[0.02, 0.0, -0.02, 0.0], [0.0, 0.0, 0.0, 0.0], [0.04, 0.02, 0.0, 0.0]],
                  a_active=[2, 0, 3])
    c = run_counts(m)
    shown = QUIET.timing.period - QUIET.timing.card_change                    # 2.8 s a card
    assert (c.corrections, c.pulses, c.sums) == (2, 4, 3)
    assert c.pot_reads == 5 + 3                                                # 5 A-unit pots, 3 bias reads
    assert c.read_seconds == pytest.approx(8 * shown, rel=1e-12)
    assert c.unit_seconds == m.machine_time_ > 0
    e = run_energy(m)
    assert e.part("reads").joules == c.read_seconds * POT_READ_POWER.value
    assert e.part("periphery").joules == c.unit_seconds * R_UNIT_POWER.value
    assert e.total_j == pytest.approx(sum(p.joules for p in e.parts), rel=1e-15)


COUNTS = st.floats(0.0, 1e6, allow_nan=False)


@given(seconds=COUNTS, pulses=st.integers(0, 10**9), corrections=st.integers(0, 10**6), reads=COUNTS,
       read_seconds=COUNTS, sums=st.integers(0, 10**9), unit_seconds=COUNTS, device=st.booleans(),
       drive=st.sampled_from(["continuous", "ratchet"]))
@settings(max_examples=60, deadline=None)
def test_the_parts_add_up_and_each_scales_as_its_law(seconds, pulses, corrections, reads, read_seconds, sums,
                                                     unit_seconds, device, drive):
    constant = Constant(5e-12, "J", "assumed", "a cell") if device else drive_power(
        QUIET.with_overrides({"rack.drive": drive}))
    kw = dict(motor_seconds=seconds, pulses=pulses, corrections=corrections, drive=drive, pot_reads=reads,
              read_seconds=read_seconds, sums=sums, unit_seconds=unit_seconds)
    e = energy(constant, **kw)
    assert [p.name for p in e.parts] == list(PARTS)
    assert e.total_j == pytest.approx(sum(p.joules for p in e.parts), rel=1e-12, abs=0)
    assert e.learning_j == pytest.approx(e.part("write pulses").joules + e.part("drivers").joules, rel=1e-12)
    if device:
        laws = {"write pulses": pulses * 5e-12, "drivers": pulses * PULSE_DRIVER_ENERGY.value,
                "reads": reads * CELL_READ_ENERGY.value, "periphery": sums * CONVERSION_ENERGY.value}
    else:
        power = constant.value + (AMPLIFIER_POWER.value if drive == "continuous" else 0.0)
        laws = {"write pulses": 0.0, "drivers": seconds * power, "reads": read_seconds * POT_READ_POWER.value,
                "periphery": unit_seconds * R_UNIT_POWER.value}
    for name, joules in laws.items():
        assert e.part(name).joules == pytest.approx(joules, rel=1e-12, abs=1e-300), name
    # doubling one count doubles its part and leaves the others alone
    doubled = energy(constant, **{**kw, "sums": 2 * sums, "unit_seconds": 2 * unit_seconds})
    assert doubled.part("periphery").joules == pytest.approx(2 * e.part("periphery").joules, rel=1e-12)
    assert doubled.part("drivers").joules == e.part("drivers").joules


def test_every_constant_has_a_unit_a_status_and_a_source():
    from mark1 import specs as s
    from mark1.machine import energy as module

    for name in module.__all__:
        c = getattr(module, name)
        if isinstance(c, Constant):
            assert c.unit in ("W", "J") and c.status in s.STATUSES and c.source, name
            assert c.status != "assumed" or "assumed" in c.source, name


def test_the_reram_pulse_energy_follows_its_own_arithmetic():
    from mark1.devices import PRESETS

    for name in ("reram-sb", "reram-es"):
        p = PRESETS[name]
        assert p.pulse_energy == pytest.approx(1.0 * 100e-6 * 50e-9) and "5 pJ" in p.pulse_energy_source


SMALL_SCENE = ('name = "E vs F, small"\ndescription = "two letters"\n[stimuli]\nsource = "characters"\n'
               'classes = ["E", "F"]\n[train]\ncount = 8\n[test]\ncount = 10\n[machine]\npreset = "SMALL"\n')


def test_the_study_runs_every_machine_on_the_same_seeds_and_draws(tmp_path):
    from mark1.lab import ENERGY_REFERENCE as REFERENCE
    from mark1.lab import energy_study
    from mark1.viz.energy import energy_study_figure
    from mark1.devices import PRESETS
    from mark1.stimuli.scenes import load_scene

    path = tmp_path / "small.toml"
    path.write_text(SMALL_SCENE)
    study = energy_study(load_scene(path), seeds=[0, 1], out=tmp_path / "out", figure=energy_study_figure)
    assert study.names == [REFERENCE, "Mark I, ratchet relays", *PRESETS]
    for name in study.names:
        assert len(study.accuracy[name]) == len(study.energies[name]) == 2
        assert all(0.0 <= a <= 1.0 for a in study.accuracy[name])
    # each run's energy: the parts add up, a device's writes are its pulses x its energy a pulse
    for e in study.energies["ecram"]:
        assert e.part("write pulses").joules == e.pulses * PRESETS["ecram"].pulse_energy
        assert e.total_j == pytest.approx(sum(p.joules for p in e.parts), rel=1e-12)
    assert study.energies[REFERENCE][0].part("write pulses").joules == 0.0
    changes = study.changes()
    assert set(changes) == set(study.names) - {REFERENCE}
    assert all(c.interval.too_few and c.decided is None for c in changes.values())      # 2 seeds: no interval
    table = str(study.table())
    assert "too few seeds" in table and "Holm" in table
    paths = [tmp_path / "out" / name for name in ("energy.png", "energy_runs.csv", "energy.json", "energy.txt")]
    assert all(p.stat().st_size > 0 for p in paths)
    # every run recorded as it finished: resumed, none is run again and the study is the same
    again = energy_study(load_scene(path), seeds=[0, 1], out=tmp_path / "out", resume=True)
    assert again.accuracy == study.accuracy and again.machine_time_s == study.machine_time_s
    assert [e.total_j for e in again.energies["pcm"]] == [e.total_j for e in study.energies["pcm"]]
    rows = json.loads(paths[2].read_text())["machines"]
    assert rows[0]["accuracy"]["low"] is None and rows[1]["change"]["decided"] is None
    assert len(paths[1].read_text().splitlines()) == 1 + 2 * len(study.names)


def test_the_figure_has_intervals_from_ten_seeds_and_holds_on_a_slide(tmp_path):
    from matplotlib.text import Text
    from PIL import Image

    from mark1 import stats
    from mark1.viz.energy import EnergyArm, energy_accuracy_figure
    from mark1.viz.figure import save_figure
    from mark1.viz.style import slides

    rng = np.random.default_rng(0)
    ref = rng.uniform(0.7, 0.9, 10)
    other = ref - rng.uniform(0.0, 0.1, 10)
    change = stats.family([list(other - ref)], (-1.0, 1.0), correction="holm")[0]
    arms = [EnergyArm("motors", ref, {"drivers": rng.uniform(900, 1100, 10), "reads": [450.0] * 10}, [180.0] * 10,
                      "assumed"),
            EnergyArm("a cell", other, {"write pulses": rng.uniform(1e-7, 2e-7, 10)}, [180.0] * 10, "assumed",
                      change)]
    fig = energy_accuracy_figure(arms)
    acc_ax = fig.axes[0]
    assert acc_ax.get_xlim() == (0.0, 100.0) and fig.axes[1].get_xscale() == "log"
    words = [t.get_text() for t in acc_ax.texts]
    assert any(change.interval.format(scale=100, digits=1, signed=True) in w for w in words)
    with slides():                      # a panel a file, each measured fitted to a 1280x720 slide
        written = save_figure(energy_accuracy_figure(arms), tmp_path / "slide.png", dpi=100)
    assert written[0][0].name == "slide.png" and len(written) >= 2
    for path, part in written:
        with Image.open(path) as im:
            fit = min(1280 / im.width, 720 / im.height)
        sizes = [float(t.get_fontsize()) * 100 / 72 * fit for t in part.findobj(Text)
                 if t.get_visible() and t.get_text().strip()]
        assert sizes and min(sizes) >= 20.0 - 0.05, path.name
    with pytest.raises(InputError, match="runs"):
        energy_accuracy_figure([arms[0], arms[1]._replace(accuracy=ref[:3])])


def test_device_energy_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "small.toml"
    path.write_text(SMALL_SCENE)
    assert main(["device", "energy", "--scene", str(path), "--seeds", "2", "--out", str(tmp_path / "o"),
                 "--style", "slides"]) == 0
    out = capsys.readouterr().out
    assert "Mark I, DC motors" in out and "pcm" in out and "wrote" in out
    assert (tmp_path / "o" / "energy.png").stat().st_size > 0
    # nothing replaced unasked: a named folder that holds the study's files is refused before any run
    assert main(["device", "energy", "--scene", str(path), "--seeds", "1", "--out", str(tmp_path / "o")]) == 2
    assert "already holds results" in capsys.readouterr().err
    assert main(["device", "energy", "--scene", str(path), "--seeds", "2", "--out", str(tmp_path / "o"),
                 "--resume", "--workers", "1"]) == 0             # its records read back, nothing run again
    capsys.readouterr()
    for argv, says in [(["--seeds", "0"], "--seeds"), (["--law", "linear"], "device energy"),
                       (["--set", "rack.backlash=0"], "the scene's")]:
        assert main(["device", "energy", "--scene", str(path), *argv, "--out", str(tmp_path / "x")]) == 2
        assert says in capsys.readouterr().err
    assert main(["device", "rack", "--seeds", "3", "--out", str(tmp_path / "y")]) == 2
    assert "go with device energy" in capsys.readouterr().err
