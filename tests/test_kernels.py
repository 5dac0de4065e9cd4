"""The kernels' room: every field of the rack's and the timing's specs says in its own
param(kernel=... or outside=...) where it acts (gathered in mark1.machine._kernels.SPEC_FIELDS),
those said to act in the kernel change a run, and Drive is filled from the spec by name."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from conftest import make_cards
from mark1 import MarkI, specs
from mark1.exceptions import SpecError
from mark1.machine import _kernels
from mark1 import devices
from mark1.machine._kernels.pots import Drive, drive_of, move_duration, one_pot, plan_pot

KERNELS = Path(_kernels.__file__).parent

# a machine whose motors outlast the period (every reinforcement makes the next card wait)
# and whose pulses are large, so that each timing and drive constant shows in the run
BASE = specs.SMALL.with_overrides({"timing.period": 0.6, "trainer.increment": 0.5})

# a value of each field the kernel reads that its param(switch=...) does not give, and the
# base it changes (when BASE alone hides it); the others switch their non-ideality (change_of)
CHANGES = {
    "rack.step": (0.03, {"rack.drive": "ratchet"}),
    "rack.step_time": (0.08, {"rack.drive": "ratchet"}),
    "rack.drivers": (1, {}),
    "rack.law": ("soft-bounds", {"rack.drive": "ratchet"}),
    "rack.up_down": (0.5, {}),
    "rack.w_max": (0.3, {}),
    "rack.w_min": (-0.3, {}),
    "rack.gamma_up": (0.9, {"rack.law": "linear", "rack.drive": "ratchet"}),
    "rack.gamma_down": (0.9, {"rack.law": "linear", "rack.drive": "ratchet"}),
    "rack.A_up": (0.5, {"rack.law": "exponential", "rack.drive": "ratchet"}),
    "rack.A_down": (0.5, {"rack.law": "exponential", "rack.drive": "ratchet"}),
    "rack.exp_a": (2.0, {"rack.law": "exponential", "rack.drive": "ratchet", "rack.A_up": 0.5, "rack.A_down": 0.5,
                         "rack.gamma_up": 1.0, "rack.gamma_down": 1.0}),
    "rack.exp_b": (1.0, {"rack.law": "exponential", "rack.drive": "ratchet", "rack.A_up": 0.5, "rack.A_down": 0.5,
                         "rack.gamma_up": 1.0, "rack.gamma_down": 1.0}),
    "rack.pow_gamma": (2.0, {"rack.law": "power", "rack.drive": "ratchet"}),
    "rack.pow_up_down": (0.5, {"rack.law": "power", "rack.drive": "ratchet", "rack.pow_gamma": 2.0}),
    "rack.piecewise_up": ((2.0, 0.5), {"rack.law": "piecewise", "rack.drive": "ratchet",
                                       "rack.piecewise_down": (1.0, 1.0)}),
    "rack.piecewise_down": ((2.0, 0.5), {"rack.law": "piecewise", "rack.drive": "ratchet",
                                         "rack.piecewise_up": (1.0, 1.0)}),
    "rack.drift_t0": (1.0, {"rack.drift_nu": 0.3}),
    "rack.g_zero": (-0.5, {"rack.drift_nu": 0.3}),
    "rack.mult_noise": (False, {"rack.drive": "ratchet", "rack.law": "soft-bounds", "rack.dw_min_std": 0.5}),
    "rack.prog_coeff_0": (2.0, {"rack.prog_noise_scale": 1.0}),
    "rack.prog_coeff_1": (-1.0, {"rack.prog_noise_scale": 1.0}),
    "rack.prog_coeff_2": (3.0, {"rack.prog_noise_scale": 1.0}),
    "rack.prog_coeff_g_max_reference": (2.0, {"rack.prog_noise_scale": 1.0}),
    "rack.read_noise_scale": (1.0, {"trainer.rule": "lms"}),     # noise keeps the sums' signs here: LMS reads values
    "rack.t_read": (1e-3, {"rack.read_noise_scale": 1.0, "trainer.rule": "lms"}),
    "rack.out_bound": (0.05, {"trainer.rule": "lms"}),     # saturation keeps signs: LMS reads values
    "rack.out_res": (0.5, {"rack.out_bound": 0.5}),
    "timing.period": (1.5, {}),
    "timing.card_change": (0.1, {}),
    "timing.settle": (0.2, {}),
    "timing.a_delay": (0.05, {}),
    "timing.r_delay": (0.05, {}),
    "timing.overlap": (True, {}),
}


def change_of(key):
    """The value a run tries for field ``key`` and the base it needs: CHANGES' entry, else its
    non-ideality switched on BASE (its param's on value; its off value where it is on by
    default); None when neither says a change."""
    if key in CHANGES:
        return CHANGES[key]
    group, name = key.split(".")
    meta = getattr(BASE, group).field_info(name)
    value = meta["on"] if meta["on"] is not None else meta["off"]
    return None if meta["switch"] is None or value == BASE.get(key) else (value, {})


def _fields():
    return {f"{group}.{f.name}" for group, cls in (("rack", specs.RackSpec), ("timing", specs.TimingSpec))
            for f in dataclasses.fields(cls)}


def test_every_field_of_the_rack_and_timing_is_placed():
    assert set(_kernels.SPEC_FIELDS) == _fields()
    acting = {k for k, (acts, _) in _kernels.SPEC_FIELDS.items() if acts}
    assert all(change_of(k) for k in acting) and set(CHANGES) <= acting   # each one acting is tried below
    assert change_of("rack.backlash") == (0.0, {}) and change_of("rack.drive") == ("ratchet", {})
    for name, (_, where) in _kernels.SPEC_FIELDS.items():
        assert where, name


#: The fields of Drive that drive_of makes from the spec (not copied by name).
MADE = {"continuous", "device", "law", "write_noise", "noise_key"}


def test_the_drive_record_holds_the_fields_that_name_it_and_those_drive_of_makes():
    copied = set(_kernels.copied_fields(specs.RackSpec, "Drive"))
    assert set(Drive._fields) == (copied - MADE) | MADE
    assert copied >= {"motor_speed", "step", "piecewise_up"}
    for name, (acts, where) in _kernels.SPEC_FIELDS.items():
        if "Drive." in where:
            assert acts, name


@pytest.mark.parametrize("name", sorted(set(_kernels.copied_fields(specs.RackSpec, "Drive")) - MADE))
def test_drive_of_copies_each_field_that_names_drive_by_name(name):
    spec = specs.RackSpec()
    value = getattr(spec, name)
    other = (2.0, 0.5) if isinstance(value, tuple) else (not value if isinstance(value, bool) else value / 2 + 0.3)
    drive = drive_of(spec.replace(**{name: other}))
    assert np.array_equal(getattr(drive, name), np.asarray(other, float)), name
    assert not np.array_equal(getattr(drive, name), getattr(drive_of(spec), name)), name


def _switched_on(f: dataclasses.Field):
    """A valid value of a non-ideality's field other than its off value."""
    meta, off = f.metadata, f.metadata["off"]
    if meta["on"] is not None:
        return meta["on"]
    if meta["choices"]:
        return next(c for c in meta["choices"] if c != off)
    return next(v for v in ((off + meta["high"]) / 2, (off + meta["low"]) / 2) if v != off)


DEVICE_FIELDS = [f for f in dataclasses.fields(specs.RackSpec) if f.metadata["device"]]


@pytest.mark.parametrize("f", DEVICE_FIELDS, ids=lambda f: f.name)
def test_each_device_field_alone_turns_the_device_plan_on(f):
    """Drive.device (the device plan, plan_device) is on while a field marked
    param(device=True) is off its off value, each one alone; off at every off value."""
    assert f.metadata["switch"], f.name
    spec = specs.RackSpec()
    assert drive_of(spec).device == 0.0
    assert drive_of(spec.replace(**{f.name: _switched_on(f)})).device == 1.0


def test_the_device_fields_are_those_of_the_device_non_idealities():
    switches = {f.metadata["switch"] for f in DEVICE_FIELDS}
    assert switches == {"device_law", "device_spread", "step_noise", "write_noise", "stuck_pots", "diffusion",
                        "prog_noise", "read_noise"}
    others = [f.name for f in dataclasses.fields(specs.RackSpec)
              if f.metadata["switch"] in switches and not f.metadata["device"]]
    assert others == []
    assert drive_of(specs.MARK_I.rack).device == 0.0
    for name in devices.PRESETS:                     # every device preset takes the device plan
        assert drive_of(devices.device_spec(name).rack).device == 1.0, name


def test_a_field_says_where_it_acts_once():
    @dataclasses.dataclass(frozen=True)
    class Both:
        _group = "x"
        a: float = specs.param(1.0, "s", "assumed", "both", kernel="Drive.a", outside="elsewhere")

    @dataclasses.dataclass(frozen=True)
    class Neither:
        _group = "x"
        a: float = specs.param(1.0, "s", "assumed", "neither")

    for cls in (Both, Neither):
        with pytest.raises(SpecError, match="x.a: expected param"):
            _kernels.placement(cls)


def _run(spec, cards, labels):
    m = MarkI(spec=spec, seed=3).fit(cards, labels, epochs=2, progress=False)
    return m.history_["start"], m.machine_time_, m.rack_.positions(m.machine_time_)


@pytest.mark.parametrize("field", sorted(k for k, (acts, _) in _kernels.SPEC_FIELDS.items() if acts))
def test_a_field_said_to_act_in_the_kernel_changes_the_run(field):
    value, base = change_of(field)
    spec = BASE.with_overrides(base)
    cards, labels = make_cards(12, np.random.default_rng(5))
    before = _run(spec, cards, labels)
    after = _run(spec.with_overrides({field: value}), cards, labels)
    assert not all(np.array_equal(a, b) for a, b in zip(before, after)), field


def test_no_simpy_in_the_kernels():
    for f in KERNELS.glob("*.py"):
        imported = {a.name for n in ast.walk(ast.parse(f.read_text())) if isinstance(n, ast.Import)
                    for a in n.names}
        imported |= {n.module for n in ast.walk(ast.parse(f.read_text())) if isinstance(n, ast.ImportFrom)}
        assert not any(m and m.split(".")[0] == "simpy" for m in imported), f.name


@pytest.mark.parametrize(("travel", "steps"), [(0.024, 2), (0.026, 3), (0.01, 1), (0.004, 0)])
def test_a_ratchet_move_lasts_its_nearest_number_of_steps(travel, steps):
    spec = specs.RackSpec(drive="ratchet")
    assert move_duration(spec, travel) == pytest.approx(steps * spec.step_time, abs=1e-12)


def test_a_continuous_move_lasts_travel_over_speed_and_gain():
    spec = specs.RackSpec()
    assert move_duration(spec, 0.05, gain=0.5) == pytest.approx(0.05 / spec.motor_speed)   # half as fast, half as far
    assert move_duration(specs.RackSpec(motor_speed=float("inf")), 0.05) == 0.0


@pytest.mark.parametrize("overrides", [{}, {"drive": "ratchet"}, {"law": "soft-bounds"},
                                       {"drive": "ratchet", "law": "soft-bounds"}])
def test_a_pot_moves_up_and_down_alike_from_the_centre(overrides):
    # the default laws are symmetric about the centre: the same time and the same travel each way
    spec = specs.RackSpec().replace(**overrides)
    up, down = (plan_pot(cmd, 0.0, 0, one_pot(1.0, 0, spec), drive_of(spec)) for cmd in (0.05, -0.05))
    assert down[0] == -up[0] != 0.0
    assert down[1:3] == up[1:3] and up[2] > 0
    assert move_duration(spec, -0.05) == move_duration(spec, 0.05) == up[2]


#: The machine's limits on a function: its lines (docstring included) and its parameters
#: (``self`` and ``cls`` not counted).
MAX_LINES, MAX_PARAMETERS = 80, 12


def _functions(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x]
            n_params = len([n for n in names if n not in ("self", "cls")])
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1, n_params


def test_no_function_of_the_machine_is_too_long_or_takes_too_many_parameters():
    machine = KERNELS.parent
    over = [f"{f.relative_to(machine.parent)}:{line} {name}: {n_lines} lines, {n_params} parameters"
            for f in sorted(machine.rglob("*.py")) for name, line, n_lines, n_params in _functions(f)
            if n_lines > MAX_LINES or n_params > MAX_PARAMETERS]
    assert not over, "\n".join(over)


def test_the_limits_see_a_long_function_with_many_parameters(tmp_path):
    f = tmp_path / "long.py"
    f.write_text("def f(self, " + ", ".join(f"a{i}" for i in range(13)) + "):\n" + "    x = 1\n" * 80)
    [(name, _, n_lines, n_params)] = list(_functions(f))
    assert (name, n_lines, n_params) == ("f", 81, 13)
