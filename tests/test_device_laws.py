"""The rack's device laws (issue 25): each step law against its closed form, asymmetry,
pot-to-pot spread, the noise streams, stuck pots, the energy counters, and the Mark I's
plan untouched when every law is off."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import make_cards
from mark1 import MarkI, specs
from mark1 import devices
from mark1.machine._kernels.pots import (DIFFUSION, LAW_CODES, READ, RESET, diffuse_pots, drive_of, normal_draw,
                                         programming_reference, read_noise_array, read_out, read_out_array)
from mark1.machine.potentiometers import PotentiometerRack
from mark1.specs import RackSpec

INF = math.inf


def ratchet(**kw) -> RackSpec:
    """A ratchet rack with no spread, no backlash, no decay, no read noise, every pot wired."""
    base = dict(drive="ratchet", step=0.01, step_time=0.04, motor_spread=0.0, backlash=0.0, decay_time=INF,
                wiper_noise=0.0, topology="all")
    base.update(kw)
    return RackSpec(**base)


def one_move(spec, start, travel, **rack_kw):
    """Wiper positions after one command of ``travel`` (array (n,)) to pots at ``start`` (n,)."""
    start, travel = np.broadcast_arrays(np.asarray(start, float), np.asarray(travel, float))
    rack = PotentiometerRack(spec, 1, len(start), 8, **rack_kw)
    rack.p_from[0] = rack.p_to[0] = start
    rack.apply(*rack.plan(travel[None, :].copy(), 0.0), 0.0)
    return rack, rack.positions(1e9)[0]


positions = st.floats(-0.95, 0.95)
steps = st.floats(0.001, 0.05)


# -- the laws, one pulse against the closed form (aihwkit's update-once formulas) ------------

@settings(max_examples=40, deadline=None)
@given(w=positions, step=steps, w_max=st.floats(0.96, 1.0), w_min=st.floats(-1.0, -0.96))
def test_soft_bounds_one_pulse(w, step, w_max, w_min):
    spec = ratchet(law="soft-bounds", step=step, w_max=w_max, w_min=w_min)
    _, after = one_move(spec, [w, w], [step, -step])
    up = min(w + step * (1 - w / w_max), w_max)
    down = max(w - step * (1 - w / w_min), w_min)
    assert after == pytest.approx([up, down], abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(w=positions, n=st.integers(1, 60), step=steps)
def test_soft_bounds_pulse_train_is_geometric(w, n, step):
    """n pulses up from w: w_max - (w_max - w) (1 - step / w_max)^n (each pulse takes the distance's share)."""
    spec = ratchet(law="soft-bounds", step=step)
    _, after = one_move(spec, [w], [n * step])
    assert after[0] == pytest.approx(1.0 - (1.0 - w) * (1.0 - step) ** n, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(w=positions, g_up=st.floats(0.0, 0.9), g_down=st.floats(0.0, 0.9))
def test_linear_one_pulse(w, g_up, g_down):
    spec = ratchet(law="linear", gamma_up=g_up, gamma_down=g_down)
    _, after = one_move(spec, [w, w], [0.01, -0.01])
    assert after == pytest.approx([w + 0.01 * (1 - g_up * w), w - 0.01 * (1 + g_down * w)], abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(w=positions, a_up=st.floats(-2.0, 0.9), a_down=st.floats(-2.0, 0.9), gamma=st.floats(0.0, 5.0),
       a=st.floats(-1.0, 1.0), b=st.floats(-1.0, 1.0))
def test_exponential_one_pulse(w, a_up, a_down, gamma, a, b):
    spec = ratchet(law="exponential", A_up=a_up, A_down=a_down, gamma_up=gamma, gamma_down=gamma, exp_a=a,
                   exp_b=b, end_stops=False)
    _, after = one_move(spec, [w, w], [0.01, -0.01])
    z = 2 * a * w / 2.0 + b
    up = max(1 - a_up * math.exp(gamma * z), 0.0)
    down = max(1 - a_down * math.exp(-gamma * z), 0.0)
    assert after == pytest.approx([w + 0.01 * up, w - 0.01 * down], rel=1e-9, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(w=positions, gamma=st.floats(0.0, 4.0), bias=st.floats(-0.9, 0.9))
def test_power_one_pulse(w, gamma, bias):
    spec = ratchet(law="power", pow_gamma=gamma, pow_up_down=bias)
    _, after = one_move(spec, [w, w], [0.01, -0.01])
    omega = (1 - w) / 2
    # aihwkit's PowStep: the mean bias one-sided (rpu_powstep_device.cpp, lines 32-42)
    up, down = omega ** (gamma * (1 + min(bias, 0))), (1 - omega) ** (gamma * (1 - max(bias, 0)))
    assert after == pytest.approx([w + 0.01 * up, w - 0.01 * down], abs=1e-12)


def test_power_law_of_exponent_one_is_soft_bounds_on_a_symmetric_range():
    w = np.linspace(-0.9, 0.9, 7)
    _, power = one_move(ratchet(law="power", pow_gamma=1.0), w, 0.01)
    _, soft = one_move(ratchet(law="soft-bounds"), w, 0.01)
    # omega = (1 - w) / 2 is half soft bounds' (1 - w): the same law at half the step
    assert power - w == pytest.approx((soft - w) / 2, abs=1e-15)


@pytest.mark.parametrize(("w", "factor_up", "factor_down"), [
    (-1.0, 2.0, 0.5), (-0.5, 1.5, 0.75), (0.0, 1.0, 1.0), (0.25, 0.875, 1.5), (1.0, 0.5, 3.0)])
def test_piecewise_interpolates_between_evenly_spaced_nodes(w, factor_up, factor_down):
    spec = ratchet(law="piecewise", piecewise_up=(2.0, 1.0, 0.5), piecewise_down=(0.5, 1.0, 3.0), end_stops=False)
    _, after = one_move(spec, [w, w], [0.01, -0.01])
    assert after == pytest.approx([w + 0.01 * factor_up, w - 0.01 * factor_down], abs=1e-12)


def test_piecewise_of_one_node_is_a_constant_factor():
    _, after = one_move(ratchet(law="piecewise", piecewise_up=(0.3,), piecewise_down=(0.3,)), [0.5, 0.5],
                        [0.02, -0.02])
    assert after == pytest.approx([0.5 + 0.006, 0.5 - 0.006], abs=1e-12)


@pytest.mark.parametrize("law", sorted(set(LAW_CODES) - {"soft-bounds"}))     # soft bounds has no parameter
def test_every_law_with_its_default_parameters_is_the_constant_law(law):
    w = np.linspace(-0.9, 0.9, 5)
    _, after = one_move(ratchet(law=law, end_stops=False), np.r_[w, w], np.r_[np.full(5, 0.03), np.full(5, -0.03)])
    assert after == pytest.approx(np.r_[w + 0.03, w - 0.03], abs=1e-12)


def test_a_law_on_the_continuous_drive_acts_once_on_the_commands_travel():
    spec = RackSpec(law="soft-bounds", motor_spread=0.0, backlash=0.0, wiper_noise=0.0, topology="all")
    gain = np.array([[1.0, 0.5]])
    rack, after = one_move(spec, [0.5, 0.5], [0.1, 0.1], gain=gain)
    assert after == pytest.approx([0.5 + 0.1 * 0.5, 0.5 + 0.05 * 0.5], abs=1e-12)
    # the motor runs for the command's time, |cmd| / motor_speed, whatever the law makes of it
    assert rack.motor_seconds[0] == pytest.approx([0.4, 0.4], abs=1e-12)


def test_the_law_is_never_below_zero_and_the_bounds_are_end_stops():
    _, after = one_move(ratchet(law="soft-bounds", w_max=0.5), [0.5, 0.6], [0.1, 0.1])
    assert after.tolist() == [0.5, 0.5]           # at its bound: no step; beyond it: the stop brings it back


# -- asymmetry --------------------------------------------------------------------------------

@pytest.mark.parametrize("drive", ["ratchet", "continuous"])
@pytest.mark.parametrize(("up_down", "up", "down"), [(0.2, 1.0, 0.8), (-0.2, 0.8, 1.0)])
def test_up_down_is_one_sided_as_aihwkit_runs_it(drive, up_down, up, down):
    """rpu_pulsed_device.cpp, lines 603-604 and 628-629: the mean asymmetry shrinks one direction only."""
    spec = ratchet(drive=drive, up_down=up_down)
    _, after = one_move(spec, [0.0, 0.0], [0.05, -0.05])
    assert after == pytest.approx([0.05 * up, -0.05 * down], abs=1e-12)


def test_a_docstring_form_asymmetry_converts_to_the_one_sided_form():
    """aihwkit's docstring, step (1 +- b), is the one-sided device at step (1 + b), up_down 2b / (1 + b)."""
    b = 0.25
    _, docstring = one_move(ratchet(step=0.01 * (1 + b), up_down=2 * b / (1 + b)), [0.0, 0.0], [0.0125, -0.0125])
    assert docstring == pytest.approx([0.01 * (1 + b), -0.01 * (1 - b)], abs=1e-12)


def test_without_up_down_a_pot_goes_back_where_it_came_from():
    spec = ratchet(law="constant", dw_min_dtod=0.3)
    rack, after = one_move(spec, np.zeros(50), 0.05)
    rack.apply(*rack.plan(-np.full((1, 50), 0.05), 1.0), 1.0)
    assert np.abs(rack.positions(1e9)).max() < 1e-15


# -- pot-to-pot spread, on every drive ---------------------------------------------------------

@pytest.mark.parametrize("drive", ["ratchet", "continuous"])
def test_step_spread_has_its_sigma_on_every_drive(drive):
    n = 4000
    spec = ratchet(drive=drive, dw_min_dtod=0.2)
    _, after = one_move(spec, np.zeros(n), 0.05, device_seed=np.random.SeedSequence(11))
    scale = after / 0.05
    assert abs(scale.mean() - 1) < 0.02 and abs(scale.std() - 0.2) < 0.02


def test_bound_spread_moves_each_pots_end_stops():
    n = 4000
    spec = ratchet(w_max_dtod=0.05, w_min_dtod=0.05, w_max=0.9, w_min=-0.9)
    rack, up = one_move(spec, np.zeros(n), 2.0, device_seed=np.random.SeedSequence(3))
    assert abs(up.mean() - 0.9) < 0.01 and abs(up.std() - 0.045) < 0.01 and up.max() <= 1.0
    w_max, w_min = PotentiometerRack.device_arrays(spec, (1, n), np.random.SeedSequence(3))[2:4]
    assert np.array_equal(up, w_max[0])
    rack.apply(*rack.plan(-np.full((1, n), 4.0), 10.0), 10.0)
    assert np.array_equal(rack.positions(1e9)[0], w_min[0])


def test_each_spread_comes_from_a_child_seed_of_its_own():
    base = ratchet(dw_min_dtod=0.2)
    a = PotentiometerRack.device_arrays(base, (2, 50), np.random.SeedSequence(4))
    b = PotentiometerRack.device_arrays(base.replace(w_max_dtod=0.1, corrupt_devices_prob=0.2), (2, 50),
                                        np.random.SeedSequence(4))
    assert np.array_equal(a[0], b[0])             # turning other spreads on leaves the step spread alone
    assert b[2].shape == (2, 50) and a[2].shape == (1, 1)


# -- the noise streams ---------------------------------------------------------------------------

def test_normal_draws_are_standard_normal_and_counter_based():
    key = np.uint64(123456789)
    x = np.array([normal_draw(key, 0, j, n) for j in range(40) for n in range(250)])
    assert abs(x.mean()) < 0.05 and abs(x.std() - 1) < 0.05
    assert abs(np.mean(x[:-1] * x[1:])) < 0.05                 # neighbouring counters uncorrelated
    assert normal_draw(key, 0, 3, 7) == normal_draw(key, 0, 3, 7)
    assert normal_draw(key, 0, 3, 7) != normal_draw(key, 1, 3, 7) != normal_draw(key + np.uint64(1), 1, 3, 7)


def test_step_noise_has_its_sigma_and_repeats_for_the_same_key():
    spec = ratchet(dw_min_std=0.3)
    n = 4000
    _, a = one_move(spec, np.zeros(n), 0.01, noise_seed=np.random.SeedSequence(5))
    _, b = one_move(spec, np.zeros(n), 0.01, noise_seed=np.random.SeedSequence(5))
    _, c = one_move(spec, np.zeros(n), 0.01, noise_seed=np.random.SeedSequence(6))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert abs(a.mean() / 0.01 - 1) < 0.03 and abs(a.std() / 0.01 - 0.3) < 0.03


def test_write_noise_does_not_accumulate():
    """The wiper reads off its persistent position by fresh noise at each write (aihwkit's
    write_noise_std): the persistent positions walk as without the noise."""
    n, spec = 500, ratchet(write_noise_std=2.0)
    noisy = PotentiometerRack(spec, 1, n, 8, noise_seed=np.random.SeedSequence(1))
    clean = PotentiometerRack(spec.replace(write_noise_std=0.0), 1, n, 8)
    for k in range(10):
        cmd = np.full((1, n), 0.03 if k % 3 else -0.02)
        for rack in (noisy, clean):
            rack.apply(*rack.plan(cmd, float(k)), float(k))
    offset = noisy.positions(1e9) - clean.positions(1e9)
    assert np.allclose(offset, noisy.write_offset, atol=1e-12)
    assert abs(offset.std() - 2.0 * 0.01) < 0.003                 # one write's sigma, not ten's


def _fit(spec, seed=3, noise_seed=None, trace="summary"):
    cards, labels = make_cards(12, np.random.default_rng(5))
    return MarkI(spec=spec, seed=seed, noise_seed=noise_seed, trace=trace).fit(cards, labels, epochs=2,
                                                                                progress=False)


NOISY = specs.SMALL.with_overrides({"rack.drive": "ratchet", "rack.law": "soft-bounds", "rack.dw_min_std": 0.5,
                                    "rack.write_noise_std": 1.0, "rack.dw_min_dtod": 0.2})


def test_device_noise_never_rewires_the_board_nor_moves_other_streams():
    quiet, noisy = _fit(specs.SMALL), _fit(NOISY)
    assert np.array_equal(quiet.patchboard.connections, noisy.patchboard.connections)
    assert np.array_equal(quiet.rack_.gain, noisy.rack_.gain)                     # motor gains drawn alike
    again = _fit(NOISY)
    assert np.array_equal(noisy.rack_.positions(noisy.machine_time_), again.rack_.positions(again.machine_time_))
    other = _fit(NOISY, noise_seed=99)
    assert np.array_equal(other.patchboard.connections, noisy.patchboard.connections)
    assert not np.array_equal(other.rack_.positions(other.machine_time_), noisy.rack_.positions(noisy.machine_time_))


def test_the_compiled_loop_and_the_event_path_agree_under_device_laws():
    spec = NOISY.with_overrides({"rack.corrupt_devices_prob": 0.1, "rack.up_down": 0.1, "rack.backlash": 0.02})
    fast, slow = _fit(spec), _fit(spec, trace="full")      # the compiled loop; SimPy a card at a time
    assert np.array_equal(fast.rack_.positions(fast.machine_time_), slow.rack_.positions(slow.machine_time_))
    assert np.array_equal(fast.rack_.pulses, slow.rack_.pulses)
    assert np.array_equal(fast.rack_.motor_seconds, slow.rack_.motor_seconds)


# -- stuck pots -----------------------------------------------------------------------------

def test_stuck_pots_never_move_but_their_pulses_fire():
    spec = specs.SMALL.with_overrides({"rack.corrupt_devices_prob": 0.3})
    m = _fit(spec)
    stuck = m.rack_.pots.stuck.reshape(m.rack_.p_to.shape).astype(bool)
    assert 0.15 < stuck.mean() < 0.45
    # each at its own value, uniform in +-corrupt_devices_range (rpu_pulsed_device.cpp, lines 684-695)
    values = m.rack_.positions(m.machine_time_)[stuck]
    assert np.array_equal(values, m.rack_.pots.w_max.reshape(m.rack_.p_to.shape)[stuck])
    assert np.abs(values).max() <= 0.1 and len(np.unique(values)) == stuck.sum()
    assert m.rack_.pulses[stuck].sum() > 0 and (m.rack_.positions(m.machine_time_)[~stuck] != 0).any()


# -- energy's counters ---------------------------------------------------------------------------

def test_the_counters_add_each_moves_running_time_and_pulses():
    spec = ratchet()
    rack, _ = one_move(spec, [0.0, 0.0, 0.995], [0.05, 0.004, 0.05])
    # 5 steps of 0.04 s; a command below half a step fires none; at 0.995 the stop cuts the first step
    assert rack.pulses[0].tolist() == [5, 0, 1]
    assert rack.motor_seconds[0] == pytest.approx([0.2, 0.0, 0.02], abs=1e-12)
    rack.apply(*rack.plan(np.array([[0.02, 0.0, 0.02]]), 1.0), 1.0)
    assert rack.pulses[0].tolist() == [7, 0, 1]                 # against its stop: the relay stays off
    assert rack.motor_seconds[0] == pytest.approx([0.28, 0.0, 0.02], abs=1e-12)
    with pytest.raises(ValueError):
        rack.pulses[0, 0] = 0                                     # read only


def test_the_counters_run_in_the_compiled_loop_too():
    m = _fit(specs.SMALL)                  # continuous: a pulse a command, 0.02 / 0.25 = 0.08 s each
    assert m.rack_.pulses.sum() > 0
    assert m.rack_.motor_seconds == pytest.approx(0.08 * m.rack_.pulses, abs=1e-12)


# -- off means off ---------------------------------------------------------------------------------

def test_with_every_law_off_the_mark_is_own_plan_is_used():
    assert drive_of(RackSpec()).device == 0.0
    for key, value in [("law", "linear"), ("up_down", 0.1), ("w_max", 0.9), ("dw_min_std", 0.1),
                       ("write_noise_std", 0.1), ("corrupt_devices_prob", 0.1), ("w_min_dtod", 0.1)]:
        assert drive_of(RackSpec().replace(**{key: value})).device == 1.0, key


def test_ideal_and_digital_switch_the_device_laws_off():
    spec = NOISY.with_overrides({"rack.corrupt_devices_prob": 0.1})
    for variant in (spec.ideal(), spec.digital()):
        assert drive_of(variant.rack).device == 0.0


# -- drift: a power law in machine time from each pot's last move ------------------------------

@settings(max_examples=30, deadline=None)
@given(nu=st.floats(0.0, 0.5), t0=st.floats(0.1, 100.0), dt=st.floats(0.0, 1e5))
def test_drift_is_a_power_law_from_the_end_of_the_last_move(nu, t0, dt):
    spec = ratchet(drift_nu=nu, drift_t0=t0) if nu else ratchet()
    rack, _ = one_move(spec, [0.0, 0.0], [0.05, -0.03])
    end = rack.t_end[0].copy()
    assert end.tolist() == pytest.approx([0.2, 0.12])
    t = 0.2 + dt
    # aihwkit's WeightDrifter: max(dt / t0, 1) ** -nu (weight_drifter.cpp, lines 144-145)
    expected = np.array([0.05, -0.03]) * np.maximum((t - end) / t0, 1.0) ** -nu
    assert rack.positions(t)[0] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert rack.sums(np.ones(2), t)[0] == pytest.approx(expected.sum(), rel=1e-9, abs=1e-15)


def test_a_drifting_pot_is_programmed_from_where_it_has_drifted_to():
    rack, _ = one_move(ratchet(drift_nu=0.1, drift_t0=1.0), [0.0], [0.05])
    drifted = rack.positions(100.0)[0, 0]
    assert drifted == pytest.approx(0.05 * (100.0 - 0.2) ** -0.1)
    rack.apply(*rack.plan(np.array([[0.01]]), 100.0), 100.0)
    assert rack.positions(100.04)[0, 0] == pytest.approx(drifted + 0.01)
    rack.apply(*rack.plan(np.array([[0.004]]), 200.0), 200.0)        # no pulse: the drift goes on
    assert rack.positions(300.0)[0, 0] == pytest.approx((drifted + 0.01) * (300.0 - 100.04) ** -0.1)


def test_drift_shrinks_toward_its_zero():
    """aihwkit's w0 s + a (s - 1) (weight_drifter.cpp, lines 146-147): a conductance shrinks toward 0, which
    for one device over the pot's range is w_min."""
    rack, _ = one_move(ratchet(drift_nu=0.1, drift_t0=1.0, g_zero=-1.0), [-1.0, 0.0], [0.0, 0.0])
    s = 1000.0 ** -0.1
    assert rack.positions(1000.0)[0] == pytest.approx([-1.0, -1.0 + 1.0 * s], abs=1e-12)


def test_drift_spread_per_pot():
    nu = PotentiometerRack.device_arrays(ratchet(drift_nu=0.05, drift_nu_dtod=0.2), (1, 4000),
                                         np.random.SeedSequence(2))[7]
    assert abs(nu.mean() - 0.05) < 0.002 and abs(nu.std() - 0.01) < 0.002 and nu.min() >= 0


def test_the_compiled_loop_and_the_event_path_agree_under_drift():
    spec = NOISY.with_overrides({"rack.drift_nu": 0.2, "rack.drift_t0": 1.0, "rack.drift_nu_dtod": 0.3})
    fast, slow = _fit(spec), _fit(spec, trace="full")
    assert np.array_equal(fast.history_["start"], slow.history_["start"])
    assert np.array_equal(fast.rack_.positions(fast.machine_time_), slow.rack_.positions(slow.machine_time_))
    still = _fit(spec.with_overrides({"rack.drift_nu": 0.0}))
    assert not np.array_equal(still.rack_.positions(still.machine_time_), fast.rack_.positions(fast.machine_time_))


# -- diffusion and reset -----------------------------------------------------------------------------

#: A ratchet whose step is over twice the trainer's increment: every command rounds to no step,
#: so only diffusion moves a pot (and every card is still reinforced where it errs).
STILL = specs.SMALL.with_overrides({"rack.drive": "ratchet", "rack.step": 0.1, "rack.backlash": 0.0,
                                    "rack.wiper_noise": 0.0})


@pytest.mark.parametrize("trace", ["summary", "full"])
def test_diffusion_is_once_a_presentation_after_the_reset(trace):
    """Where no command moves a pot, each pot ends at its reset value plus one diffusion step a
    presentation, the step's draw keyed by pot and presentation: the compiled loop and the
    SimPy path (a card at a time) alike."""
    spec = STILL.with_overrides({"rack.diffusion": 0.01, "rack.reset": 0.05, "rack.reset_std": 0.02})
    m = _fit(spec, trace=trace)
    rack = m.rack_
    key = rack.drive_constants.noise_key
    flat = np.flatnonzero(rack.mask.reshape(-1))
    w = np.array([0.05 + 0.02 * normal_draw(key, RESET, j, 0) for j in flat])
    for p in range(len(m.history_)):
        w = np.clip(w + 0.01 * np.array([normal_draw(key, DIFFUSION, j, p) for j in flat]), -1.0, 1.0)
    assert np.array_equal(rack.pulses, np.zeros_like(rack.pulses))
    assert np.abs(rack.positions(m.machine_time_).reshape(-1)[flat] - w).max() <= 1e-15
    assert not rack.positions(m.machine_time_).reshape(-1)[np.setdiff1d(np.arange(rack.mask.size), flat)].any()


@pytest.mark.parametrize("extra", [{}, {"rack.decay_time": 1e9}, {"rack.drivers": 2, "timing.overlap": True}],
                         ids=["blocks", "card-by-card", "drivers"])
def test_a_full_trace_under_diffusion_keeps_the_wipers_each_read_saw(extra):
    """Diffusion's steps are not among the moves, so the kernel keeps each read's wipers as it
    reads them: on every run path each reading's wipers (shaped as ever, 0 where no pot is)
    times the card's inputs are the sum the trainer read (no read noise here), to 1e-12; a
    rack without diffusion keeps them as before, the same sums."""
    spec = NOISY.with_overrides({"rack.wiper_noise": 0.0, **extra})
    for diffusion in (0.0, 0.01):
        m = _fit(spec.with_overrides({"rack.diffusion": diffusion}), trace="full")
        readings = m.trace_.readings
        assert len(readings) == len(m.history_)
        n_units, mask = m.rack_.mask.shape[0], m.rack_.mask
        assert spec.response.discrimination == "sum"
        for p, r in enumerate(readings):
            assert r.wipers.shape == (n_units, len(r.a_units) + 1) and np.isfinite(r.wipers).all()
            inputs = np.r_[r.a_units, mask.shape[1] - 1]
            assert not r.wipers[~mask[:, inputs]].any()
            assert np.abs(r.wipers.sum(axis=1) - m.read_sums_[p]).max() <= 1e-12, p


@pytest.mark.parametrize("extra", [{}, {"rack.drivers": 2, "timing.overlap": True},
                                   {"rack.drift_nu": 0.2, "rack.drift_t0": 1.0, "rack.decay_time": 50.0}],
                         ids=["device", "drivers", "drift-and-decay"])
def test_the_compiled_loop_and_the_event_path_agree_under_diffusion_and_reset(extra):
    spec = NOISY.with_overrides({"rack.diffusion": 0.005, "rack.diffusion_dtod": 0.3, "rack.reset": 0.02,
                                 "rack.reset_dtod": 0.01, "rack.reset_std": 0.01, **extra})
    fast, slow = _fit(spec), _fit(spec, trace="full")
    assert np.array_equal(fast.history_["start"], slow.history_["start"])
    assert np.array_equal(fast.rack_.positions(fast.machine_time_), slow.rack_.positions(slow.machine_time_))
    assert np.array_equal(fast.rack_.write_offset, slow.rack_.write_offset)
    still = _fit(spec.with_overrides({"rack.diffusion": 0.0}))
    assert not np.array_equal(still.rack_.positions(still.machine_time_), fast.rack_.positions(fast.machine_time_))


def test_diffusion_and_reset_never_rewire_the_board_nor_move_other_draws():
    spec = NOISY.with_overrides({"rack.diffusion": 0.005, "rack.diffusion_dtod": 0.3, "rack.reset_dtod": 0.01})
    quiet, noisy = _fit(NOISY), _fit(spec)
    assert np.array_equal(quiet.patchboard.connections, noisy.patchboard.connections)
    assert np.array_equal(quiet.rack_.gain, noisy.rack_.gain)
    ss = np.random.SeedSequence(4)
    a = PotentiometerRack.device_arrays(NOISY.rack, (2, 50), ss)
    b = PotentiometerRack.device_arrays(spec.rack, (2, 50), ss)
    for x, y in zip(a[:8], b[:8]):                       # the other spreads: the same draws
        assert np.array_equal(x, y)


def test_a_pot_diffuses_within_its_bounds_and_a_stuck_pot_not_at_all():
    spec = STILL.with_overrides({"rack.diffusion": 0.2, "rack.corrupt_devices_prob": 0.3,
                                 "rack.law": "soft-bounds", "rack.w_max": 0.5, "rack.w_min": -0.3})
    m = _fit(spec)
    rack = m.rack_
    w = rack.positions(m.machine_time_)[rack.mask]
    stuck = np.broadcast_to(rack.pots.stuck.reshape(rack.mask.shape) if rack.pots.stuck.size > 1
                            else rack.pots.stuck[0], rack.mask.shape)[rack.mask] == 1
    assert w.max() <= 0.5 and w.min() >= -0.3 and (w == 0.5).any() and (w == -0.3).any()
    assert np.array_equal(w[stuck], rack.pots.w_max.reshape(rack.mask.shape)[rack.mask][stuck])


def test_reset_lands_within_the_end_stops_with_its_write_offset():
    """The reset's persistent positions are cut at the end stops; the write noise drawn after it
    is not (aihwkit's applyUpdateWriteNoise after resetCols), so readings pass the stop by it."""
    spec = STILL.with_overrides({"rack.reset": 0.9, "rack.reset_std": 0.2, "rack.write_noise_std": 0.5})
    rack = PotentiometerRack(spec.rack, 1, 2000, 8, noise_seed=np.random.SeedSequence(2))
    w = rack.positions(0.0)[0]
    persistent = w - rack.write_offset[0]
    assert persistent.max() == 1.0 and 0.25 < (persistent == 1.0).mean() < 0.36    # P(xi > 0.5) = 0.31
    assert w.max() > 1.0 and abs((w > 1.0).mean() - 0.5 * (persistent == 1.0).mean()) < 0.04
    assert abs(np.std(rack.write_offset[0]) - 0.05) < 0.005                        # 0.5 steps of 0.1, everywhere


# -- PCM programming and 1/f read noise ------------------------------------------------------------

def test_programming_noise_does_not_accumulate():
    """Each move's end programs the pot afresh from its persistent position (aihwkit programs
    each target from the ideal weight): the persistent positions walk as without the noise, and
    the wipers read off them by one programming's spread, not ten's."""
    n, spec = 2000, ratchet(law="soft-bounds", prog_noise_scale=1.0)
    noisy = PotentiometerRack(spec, 1, n, 8, noise_seed=np.random.SeedSequence(5))
    clean = PotentiometerRack(spec.replace(prog_noise_scale=0.0), 1, n, 8)
    for k in range(10):
        cmd = np.full((1, n), 0.1 if k % 3 else -0.04)
        for rack in (noisy, clean):
            rack.apply(*rack.plan(cmd, 10.0 * k), 10.0 * k)
    w = clean.positions(1e9)[0]
    offset = noisy.positions(1e9)[0] - w
    assert np.abs(offset - noisy.write_offset[0]).max() <= 1e-12
    one = programming_reference(w, *np.random.default_rng(6).standard_normal((2, n)), spec) - w
    assert abs(offset.std() / one.std() - 1.0) < 0.1 and abs(offset.mean() - one.mean()) < 0.003


@settings(max_examples=40, deadline=None)
@given(w=st.floats(-0.95, 0.95), g_zero=st.sampled_from([0.0, -0.95]), dt=st.floats(0.0, 1e6),
       p=st.integers(0, 10**6), scale=st.floats(0.0, 20.0))
def test_a_read_keeps_its_conductances_sign_and_repeats_for_its_presentation(w, g_zero, dt, p, scale):
    """A read never turns a pot's conductance past 0 (aihwkit's clamp), reads the same number
    for the same pot and presentation, and leaves the pot where it was."""
    spec = ratchet(read_noise_scale=scale, g_zero=g_zero)
    rack = PotentiometerRack(spec, 1, 1, 8, noise_seed=np.random.SeedSequence(7))
    w = max(w, g_zero)
    rack.p_from[0, 0] = rack.p_to[0, 0] = w
    first = float(rack.sums(np.ones(1), dt, presentation=p)[0])
    assert first == float(rack.sums(np.ones(1), dt, presentation=p)[0])
    assert (first - g_zero) * (w - g_zero) >= 0.0
    assert rack.positions(dt)[0, 0] == w
    if scale == 0.0 or w == g_zero:
        assert first == w


@settings(max_examples=40, deadline=None)
@given(t_read=st.floats(1e-9, 1e3), t0=st.floats(1e-9, 1e3), dt=st.floats(0.0, 10.0))
def test_a_read_noise_spec_the_rack_accepts_reads_a_number(t_read, t0, dt):
    """sigma's sqrt(ln((dt + drift_t0 + t_read) / (2 t_read))) is a number from dt = 0 on only where
    t_read <= drift_t0: a spec with a longer read time is refused, naming rack.t_read; every spec
    accepted reads finite sums at every time."""
    try:
        spec = ratchet(read_noise_scale=1.0, t_read=t_read, drift_t0=t0, motor_speed=INF)
    except specs.SpecError as e:
        assert t_read > t0 and str(e).startswith("rack.t_read: expected a value <= rack.drift_t0")
        return
    assert t_read <= t0
    rack = PotentiometerRack(spec, 1, 2, 8, noise_seed=np.random.SeedSequence(3))
    rack.apply(*rack.plan(np.array([[0.5, -0.3]]), 0.0), 0.0)
    assert np.isfinite(rack.sums(np.ones(2), dt, presentation=1)).all()
    assert np.isfinite(rack.read_positions(dt, np.ones((1, 2)))).all()


def test_read_noise_grows_with_the_time_since_programming_and_shrinks_with_conductance():
    """aihwkit's 1/f law: sigma = q_s sqrt(ln((dt + t0 + t_read) / (2 t_read))), q_s = 0.0088 /
    g ** 0.65 up to 0.2: the readings' relative spread, over 4,000 pots, at two conductances and
    two times (within 5 %)."""
    n = 4000
    rack = PotentiometerRack(ratchet(read_noise_scale=1.0), n, 1, 8, noise_seed=np.random.SeedSequence(8))
    for g in (0.05, 0.8):
        rack.p_from[:, 0] = rack.p_to[:, 0] = g
        for dt in (0.0, 1e5):
            spread = (rack.sums(np.ones(1), dt, presentation=3) / g - 1.0).std()
            law = min(0.0088 / g ** 0.65, 0.2) * math.sqrt(math.log((dt + 20.0 + 250e-9) / (2 * 250e-9)))
            assert spread == pytest.approx(law, rel=0.05), (g, dt)


def test_diffusion_and_the_reset_reprogram_without_moving_the_persistent_positions():
    """With programming noise, a diffusion step and the reset draw the offset anew (as the write
    noise): the persistent walk is the one without it."""
    spec = STILL.rack.replace(diffusion=0.02, reset=0.1, reset_std=0.05)
    noisy = PotentiometerRack(spec.replace(prog_noise_scale=1.0), 1, 500, 8, noise_seed=np.random.SeedSequence(9))
    clean = PotentiometerRack(spec, 1, 500, 8, noise_seed=np.random.SeedSequence(9))
    assert np.abs(noisy.p_to - noisy.write_offset - clean.p_to).max() <= 1e-12
    before = noisy.write_offset.copy()
    for p in range(20):
        for rack in (noisy, clean):
            diffuse_pots(p, float(p), rack.busy_until, 1.0, rack.pots, rack.drive_constants)
    assert np.abs(noisy.p_to - noisy.write_offset - clean.p_to).max() <= 1e-12
    assert not np.array_equal(before, noisy.write_offset) and noisy.write_offset.std() > 0.005


@pytest.mark.parametrize("prog", [0.0, 1.0], ids=["read-noise", "read-and-programming-noise"])
def test_a_diffusion_step_restarts_the_read_noise_clock(prog):
    """A diffusion step programs a pot at rest anew (its programming error drawn again): its 1/f
    read noise counts from the step, as aihwkit's counts from the programming (t_inference from
    program_weights), the spread of a fresh programming; a pot still moving keeps its move's end.
    Without drift or read noise the step leaves the clock alone."""
    spec = ratchet(read_noise_scale=1.0, prog_noise_scale=prog, diffusion=0.01, step_time=0.1)
    n = 200
    rack = PotentiometerRack(spec, 1, n, 8, noise_seed=np.random.SeedSequence(6))
    rack.apply(*rack.plan(np.full((1, n), 0.3), 0.0), 0.0)           # 30 pulses: moving until 3 s
    moving = rack.t_end.copy()
    diffuse_pots(0, 1.0, rack.busy_until, 1.0, rack.pots, rack.drive_constants)
    assert np.array_equal(rack.t_end, moving)                        # still moving: its programming is its move's end
    diffuse_pots(1, 500.0, rack.busy_until, 1.0, rack.pots, rack.drive_constants)
    assert (rack.t_end == 500.0).all() and (rack.t_start == 500.0).all()
    xi = np.random.default_rng(3).standard_normal((1, n))
    fresh = read_noise_array(rack.p_to, rack.p_to, np.zeros((1, n)), xi, rack.pots.read_noise)
    assert np.abs(rack.read_positions(500.0, xi) - fresh).max() <= 1e-15
    still = PotentiometerRack(spec.replace(read_noise_scale=0.0, prog_noise_scale=0.0), 1, n, 8)
    still.apply(*still.plan(np.full((1, n), 0.3), 0.0), 0.0)
    ends = still.t_end.copy()
    diffuse_pots(1, 500.0, still.busy_until, 1.0, still.pots, still.drive_constants)
    assert np.array_equal(still.t_end, ends)


PCM = NOISY.with_overrides({"rack.prog_noise_scale": 1.0, "rack.read_noise_scale": 3.0, "rack.wiper_noise": 0.0})


@pytest.mark.parametrize("extra", [{}, {"rack.diffusion": 0.005, "rack.drivers": 2, "timing.overlap": True}],
                         ids=["pcm", "diffusion-drivers"])
def test_the_compiled_loop_and_the_event_path_agree_under_pcm_noise(extra):
    spec = PCM.with_overrides(extra)
    fast, slow = _fit(spec), _fit(spec, trace="full")
    for key in ("start", "units_erred", "response"):
        assert np.array_equal(fast.history_[key], slow.history_[key]), key
    assert np.array_equal(fast.rack_.positions(fast.machine_time_), slow.rack_.positions(slow.machine_time_))
    assert np.array_equal(fast.rack_.write_offset, slow.rack_.write_offset)
    quiet = _fit(spec.with_overrides({"rack.read_noise_scale": 0.0}), trace="full")
    assert not np.array_equal(quiet.read_sums_, slow.read_sums_)


def test_the_trainers_reads_are_the_racks_keyed_by_presentation():
    """With only read noise (no move in the way: a step larger than any command), each sum the
    trainer read is the rack's read of the reset pots with that presentation's draws."""
    spec = STILL.with_overrides({"rack.read_noise_scale": 5.0, "rack.reset": 0.3, "rack.reset_std": 0.1,
                                 "rack.topology": "all", "rack.decay_time": INF})
    m = _fit(spec, trace="full")
    rack, key = m.rack_, m.rack_.drive_constants.noise_key
    assert not rack.pulses.any()
    n_units, n_in = rack.mask.shape
    for p, r in enumerate(m.trace_.readings):
        x = np.zeros(n_in)
        x[list(r.a_units)] = 1.0
        x[-1] = 1.0
        xi = np.array([[normal_draw(key, READ, u * n_in + i, p) for i in range(n_in)] for u in range(n_units)])
        assert np.abs(m.read_sums_[p] - rack.read_positions(r.time, xi) @ x).max() <= 1e-12, p


def test_scoring_reads_each_card_with_read_noise_of_its_own():
    m = _fit(PCM)
    cards, _ = make_cards(12, np.random.default_rng(5))
    sums = m.decision_function(cards)
    assert np.array_equal(sums, m.decision_function(cards))
    clean = m.rack_.positions(m.machine_time_)
    x = np.concatenate([np.c_[m.associate(s), np.ones(len(s))] for s in m._sensed_chunks(cards)])
    assert not np.array_equal(sums, x @ clean.T)
    for i, card in enumerate(cards):                     # each card's draws come from the card itself
        xi = m._card_rng(card, 1).standard_normal(m.rack_.mask.shape)
        assert np.abs(sums[i] - m.rack_.read_positions(m.machine_time_, xi) @ x[i]).max() <= 1e-12


# -- device presets ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(devices.PRESETS))
def test_each_preset_is_a_cited_set_of_rack_overrides_that_trains(name):
    preset = devices.PRESETS[name]
    assert all(key.startswith("rack.") for key in preset.overrides)
    assert all(preset.sources[key].strip() for key in preset.overrides)
    assert preset.pulse_energy > 0 and preset.pulse_energy_status in specs.STATUSES
    spec = devices.device_spec(name, specs.SMALL)
    assert spec.rack.drive == "ratchet" and drive_of(spec.rack).device == 1.0
    m = _fit(spec)
    assert m.rack_.pulses.sum() > 0
    persistent = m.rack_.positions(m.machine_time_) - m.rack_.write_offset    # readings may pass by write noise
    assert np.abs(persistent).max() <= 1.0 + 1e-12


def test_a_scene_names_a_device_and_its_own_overrides_win(tmp_path):
    import mark1
    text = ('format = 1\nname = "d"\n[stimuli]\nsource = "shapes"\nclasses = ["square", "circle"]\n'
            '[train]\ncount = 4\n[machine]\npreset = "SMALL"\ndevice = "ecram"\n')
    ecram_step = devices.PRESETS["ecram"].overrides["rack.step"]
    for extra, step in (("", ecram_step), ('[machine.overrides]\n"rack.step" = 0.004\n', 0.004),
                        ("[machine.overrides]\nrack = { step = 0.004 }\n", 0.004)):
        path = tmp_path / "d.toml"
        path.write_text(text + extra)
        spec = mark1.load_scene(path).machine_spec()
        assert spec.rack.law == "linear" and spec.rack.step == step and spec.patchboard.n_associators == 64
    path.write_text(text.replace("ecram", "flash"))
    with pytest.raises(mark1.exceptions.SceneError, match="machine.device"):
        mark1.load_scene(path)


def test_an_unknown_device_is_refused_by_name():
    with pytest.raises(specs.SpecError, match="machine.device: expected one of"):
        devices.device_spec("memristor")


# -- the R-unit's read: saturation and quantization ---------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(s=st.floats(-50.0, 50.0), bound=st.floats(0.01, 20.0), bits=st.integers(1, 12))
def test_the_read_saturates_and_takes_evenly_spaced_levels(s, bound, bits):
    res = 2.0 / (2 ** bits - 1)
    adc = np.array([bound, res])
    got = read_out(s, adc)
    assert got == read_out_array(np.array([s]), adc)[0]                 # the kernel's and the event path's
    step = res * bound
    assert abs(got) <= bound + step / 2 + 1e-12
    assert abs(got / step - round(got / step)) < 1e-9                 # on a level
    assert abs(got - min(max(s, -bound), bound)) <= step / 2 + 1e-12   # the nearest one


def test_an_exact_read_is_the_sum_itself():
    s = np.array([0.1234567, -7.5, 1e-17])
    assert np.array_equal(read_out_array(s, np.array([INF, 0.0])), s)
    assert [read_out(v, np.array([INF, 0.0])) for v in s] == s.tolist()
    with pytest.raises(specs.SpecError, match="rack.out_res"):
        RackSpec(out_res=0.01)


def test_the_machine_reads_and_scores_through_the_adc():
    spec = specs.SMALL.with_overrides({"rack.out_bound": 0.1, "rack.out_res": 0.25})
    m = _fit(spec, trace="full")
    levels = np.array([-0.1, -0.075, -0.05, -0.025, 0.0, 0.025, 0.05, 0.075, 0.1])
    assert np.isin(np.round(m.read_sums_, 12), np.round(levels, 12)).all()
    cards, _ = make_cards(12, np.random.default_rng(5))
    assert np.isin(np.round(m.decision_function(cards), 12), np.round(levels, 12)).all()
    fast = _fit(spec)                              # the compiled loop reads through the same ADC
    assert np.array_equal(fast.history_, m.history_)
    assert np.array_equal(fast.rack_.positions(fast.machine_time_), m.rack_.positions(m.machine_time_))


# -- invariants under every law ----------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(law=st.sampled_from(sorted(LAW_CODES)), drive=st.sampled_from(["ratchet", "continuous"]),
       noise=st.floats(0.0, 3.0), write=st.floats(0.0, 20.0), seed=st.integers(0, 2 ** 32 - 1),
       commands=st.lists(st.floats(-0.5, 0.5), min_size=1, max_size=6))
def test_wipers_never_pass_their_own_bounds(law, drive, noise, write, seed, commands):
    """The persistent positions stay within each pot's bounds; a reading passes them by no more
    than its write offset (drawn unclipped, as aihwkit's)."""
    spec = ratchet(drive=drive, law=law, dw_min_std=noise, write_noise_std=write, w_max=0.8, w_min=-0.6,
                   w_max_dtod=0.2, w_min_dtod=0.2, dw_min_dtod=0.3, up_down=0.2, up_down_dtod=0.1, pow_gamma=1.5,
                   gamma_up=0.5, gamma_down=0.5, piecewise_up=(2.0, 0.5), piecewise_down=(0.5, 2.0), backlash=0.01)
    n = 40
    ss = np.random.SeedSequence(seed)
    rack = PotentiometerRack(spec, 1, n, 8, device_seed=ss, noise_seed=ss)
    w_max, w_min = (a.reshape(-1) for a in PotentiometerRack.device_arrays(spec, (1, n), ss)[2:4])
    t = 0.0
    for c in commands:
        rack.apply(*rack.plan(np.full((1, n), c), t), t)
        t = rack.busy_until + 1.0
        w = rack.positions(t)[0] - rack.write_offset[0]
        assert (w <= w_max + 1e-12).all() and (w >= w_min - 1e-12).all()
        assert np.abs(rack.write_offset).max() <= write * spec.step * 9.0       # a normal draw within 9 sigma
    assert (rack.motor_seconds >= 0).all() and (rack.pulses >= 0).all()


def test_up_down_spread_per_pot():
    """Up scale gain + r, down gain - up_down - r (rpu_pulsed_device.cpp, lines 627-629)."""
    scale, half = PotentiometerRack.device_arrays(ratchet(up_down=0.1, up_down_dtod=0.05), (1, 4000),
                                                  np.random.SeedSequence(8))[:2]
    up, down = scale + half, scale - half
    assert abs(up.mean() - 1.0) < 0.005 and abs(up.std() - 0.05) < 0.005
    assert abs(down.mean() - 0.9) < 0.005 and abs(down.std() - 0.05) < 0.005
    assert np.allclose(up + down, 1.9)              # r cancels: gain 1 without dw_min_dtod


@pytest.mark.parametrize("law", ["linear", "soft-bounds"])
def test_a_law_that_divides_by_the_lower_bound_refuses_none(law):
    from mark1.exceptions import SpecError
    with pytest.raises(SpecError, match="rack.w_min: expected w_min < 0"):
        specs.MARK_I.with_overrides({"rack.law": law, "rack.w_min": 0.0})
    specs.MARK_I.with_overrides({"rack.law": "power", "rack.w_min": 0.0})       # a law without it takes 0


def test_a_rack_rewired_after_it_is_built_reads_its_new_pots():
    from mark1.machine.potentiometers import PotentiometerRack
    rack = PotentiometerRack(specs.MARK_I.rack, 2, 3, 2)
    rack.mask[:] = False
    rack.mask[1, 0] = True                          # only unit 1's pot on input 0
    rack.p_from[1, 0] = rack.p_to[1, 0] = 0.5
    assert rack.sums(np.array([1.0, 0.0, 0.0]), 1.0).tolist() == [0.0, 0.5]
    rack.mask[:] = True                             # a bench row: every pot wired
    rack.p_from[0, 2] = rack.p_to[0, 2] = 0.25
    assert rack.sums(np.array([1.0, 0.0, 1.0]), 1.0).tolist() == [0.25, 0.5]
