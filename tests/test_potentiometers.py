"""The potentiometer rack in a bare SimPy environment: exact move timing, end stops,
backlash, driver queues, decay, and the invariants (stops never passed, speed never
exceeded) as properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mark1.machine.potentiometers import PotentiometerRack
from mark1.specs import RackSpec

INF = math.inf


def plain(**kw) -> RackSpec:
    """A continuous rack with no spread, no backlash, no decay (exact timing), every pot wired."""
    base = dict(motor_spread=0.0, backlash=0.0, decay_time=INF, wiper_noise=0.0, topology="all")
    base.update(kw)
    return RackSpec(**base)


def make_rack(spec, n_units=1, n_inputs=4, gain=None, start=None):
    rack = PotentiometerRack(spec, n_units, n_inputs, 8, gain)
    if start is not None:
        rack.p_from[:] = start
        rack.p_to[:] = start
    return rack


class Log:
    """Collects the rack's trace hook calls."""

    def __init__(self, rack):
        self.events = []
        rack.on_move = lambda t, e, d: self.events.append((t, e, d))

    def times(self, event):
        return [t for t, e, _ in self.events if e == event]


def drive(rack, command, env=None):
    """Run one command to completion; returns (env, start time, end time)."""
    env = env or simpy.Environment()
    t0 = env.now
    env.process(rack.drive(env, np.asarray(command, float)))
    env.run()
    return env, t0, env.now


# -- exact timing ----------------------------------------------------------------------

@pytest.mark.parametrize("speed", [0.25, 0.1, 3.0])
@pytest.mark.parametrize("delta", [0.02, -0.02, 0.37, -0.8, 1e-6])
def test_move_takes_distance_over_speed(speed, delta):
    rack = make_rack(plain(motor_speed=speed))
    log = Log(rack)
    cmd = np.zeros((1, 4))
    cmd[0, 1] = delta
    env, t0, t1 = drive(rack, cmd)
    d = abs(delta) / speed
    assert t1 - t0 == pytest.approx(d, rel=1e-12)
    assert log.times("motors start") == [0.0]
    assert log.times("motors stop") == pytest.approx([d], rel=1e-12)
    assert rack.positions(t1)[0, 1] == pytest.approx(delta, rel=1e-12)
    assert rack.t_end[0, 1] - rack.t_start[0, 1] == pytest.approx(d, rel=1e-12)
    # pots without a command did not move
    assert np.all(rack.positions(t1)[0, [0, 2, 3]] == 0)


def test_several_pots_move_at_once_and_the_command_lasts_the_longest_move():
    rack = make_rack(plain(motor_speed=0.5), n_units=2, n_inputs=3)
    cmd = np.array([[0.1, -0.3, 0.0], [0.05, 0.0, 0.2]])
    env, t0, t1 = drive(rack, cmd)
    assert t1 == pytest.approx(0.3 / 0.5, rel=1e-12)
    moving = cmd != 0
    np.testing.assert_allclose((rack.t_end - rack.t_start)[moving], np.abs(cmd[moving]) / 0.5, rtol=1e-12)
    np.testing.assert_allclose(rack.positions(t1), cmd, rtol=1e-12)


@pytest.mark.parametrize("speed", [0.25, 1.0])
@pytest.mark.parametrize("sign", [1, -1])
def test_end_stop_cuts_the_move(speed, sign):
    rack = make_rack(plain(motor_speed=speed), start=0.0)
    rack.p_from[0, 0] = rack.p_to[0, 0] = sign * 0.99
    log = Log(rack)
    cmd = np.zeros((1, 4))
    cmd[0, 0] = sign * 0.05
    env, t0, t1 = drive(rack, cmd)
    assert rack.positions(t1)[0, 0] == sign * 1.0
    assert t1 - t0 == pytest.approx(0.01 / speed, rel=1e-9)          # not 0.05 / speed
    assert log.times("motors stop")[0] == pytest.approx(0.01 / speed, rel=1e-9)
    # a pot already at its stop, driven further, does not move and takes no time
    env, t0, t1 = drive(rack, cmd, env)
    assert t1 == t0
    assert rack.positions(t1)[0, 0] == sign * 1.0
    # driven back, it leaves the stop at full speed
    env, t0, t1 = drive(rack, -cmd, env)
    assert t1 - t0 == pytest.approx(0.05 / speed, rel=1e-9)
    assert rack.positions(t1)[0, 0] == pytest.approx(sign * 0.95, rel=1e-12)


def test_without_end_stops_the_wiper_goes_past_one():
    rack = make_rack(plain(motor_speed=0.25, end_stops=False))
    rack.p_from[0, 0] = rack.p_to[0, 0] = 0.99
    env, t0, t1 = drive(rack, np.array([[0.05, 0, 0, 0]]))
    assert rack.positions(t1)[0, 0] == pytest.approx(1.04, rel=1e-12)
    assert t1 == pytest.approx(0.2, rel=1e-12)


@settings(max_examples=60)
@given(start=st.floats(-0.9, 0.9), delta=st.floats(-0.9, 0.9).filter(lambda d: abs(d) > 1e-3),
       speed=st.floats(0.05, 5.0), frac=st.floats(0.0, 1.0))
def test_position_mid_move_is_linear(start, delta, speed, frac):
    """A read mid-move (what a card sees with timing.overlap=True) gets the wiper
    linearly between its start and its target."""
    rack = make_rack(plain(motor_speed=speed), start=start)
    target = float(np.clip(start + delta, -1, 1))
    env = simpy.Environment()
    cmd = np.zeros((1, 4))
    cmd[0, 2] = delta
    env.process(rack.drive(env, cmd))
    d = abs(target - start) / speed
    t = frac * d
    env.run(until=t) if t > 0 else None
    pos = rack.positions(t)[0, 2]
    assert pos == pytest.approx(start + (target - start) * frac, abs=1e-12)
    assert np.dot(rack.positions(t)[0], [0, 0, 1, 1]) == pytest.approx(rack.sums(np.array([0, 0, 1, 1.0]), t)[0],
                                                                      abs=1e-12)
    env.run()
    assert rack.positions(env.now)[0, 2] == pytest.approx(target, abs=1e-12)


@pytest.mark.parametrize("speed", [0.25, 2.0])
def test_motor_gain_changes_travel_not_pulse_length(speed):
    """A motor running at gain g travels g·|command| in the pulse |command| / v."""
    gain = np.array([[0.8, 1.0, 1.3, 1.0]])
    rack = make_rack(plain(motor_speed=speed), gain=gain)
    cmd = np.array([[0.1, 0.0, -0.1, 0.0]])
    env, t0, t1 = drive(rack, cmd)
    np.testing.assert_allclose(rack.positions(t1)[0], [0.08, 0.0, -0.13, 0.0], rtol=1e-12)
    np.testing.assert_allclose((rack.t_end - rack.t_start)[0, [0, 2]], [0.1 / speed] * 2, rtol=1e-12)


def test_backlash_on_reversal():
    v, b = 0.25, 0.003
    rack = make_rack(plain(motor_speed=v, backlash=b))
    env, _, _ = drive(rack, np.array([[0.1, 0.1, 0, 0]]))       # first moves: no reversal, no slack
    assert rack.positions(env.now)[0, :2] == pytest.approx([0.1, 0.1], rel=1e-12)
    t0 = env.now
    env.process(rack.drive(env, np.array([[-0.05, 0.05, 0, 0]])))
    env.run(until=t0 + 0.5 * b / v)
    # while the reversing motor takes up the slack its wiper stays put
    assert rack.positions(env.now)[0, 0] == pytest.approx(0.1, rel=1e-12)
    env.run()
    assert env.now - t0 == pytest.approx(0.05 / v, rel=1e-9)     # the pulse length is unchanged
    pos = rack.positions(env.now)[0]
    assert pos[0] == pytest.approx(0.1 - (0.05 - b), rel=1e-12)    # lost motion
    assert pos[1] == pytest.approx(0.15, rel=1e-12)                 # same direction: no loss


@pytest.mark.parametrize("n_drivers", [1, 2, 3, 5])
@pytest.mark.parametrize("m", [1, 4, 7])
def test_driver_limit_queues_the_moves(n_drivers, m):
    v, delta = 0.5, 0.1
    d = delta / v
    rack = make_rack(plain(motor_speed=v, drivers=n_drivers), n_units=1, n_inputs=8)
    log = Log(rack)
    cmd = np.zeros((1, 8))
    cmd[0, :m] = delta
    env = simpy.Environment()
    env.process(rack.drive(env, cmd))
    # half way through the first batch: the first N pots are moving, the rest wait at 0
    env.run(until=0.5 * d)
    pos = rack.positions(env.now)[0, :m]
    first = min(n_drivers, m)
    np.testing.assert_allclose(pos[:first], 0.5 * delta, rtol=1e-12)
    assert np.all(pos[first:] == 0)
    env.run()
    batches = math.ceil(m / n_drivers)
    assert env.now == pytest.approx(batches * d, rel=1e-12)
    # the k-th batch starts when the earlier ones have finished
    expected_start = (np.arange(m) // n_drivers) * d
    np.testing.assert_allclose(rack.t_start[0, :m], expected_start, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(rack.t_end[0, :m], expected_start + d, rtol=1e-12)
    np.testing.assert_allclose(rack.positions(env.now)[0, :m], delta, rtol=1e-12)
    assert log.times("motors queued") == [0.0]
    assert log.times("motors stop") == pytest.approx([batches * d], rel=1e-12)


def test_unlimited_drivers_run_everything_at_once():
    rack = make_rack(plain(motor_speed=0.5, drivers=0), n_units=1, n_inputs=8)
    cmd = np.full((1, 8), 0.1)
    env, t0, t1 = drive(rack, cmd)
    assert t1 == pytest.approx(0.2, rel=1e-12)
    assert np.all(rack.t_start == 0)


@pytest.mark.parametrize("decay_time", [10.0, 3600.0])
def test_decay_towards_zero(decay_time):
    rack = make_rack(plain(motor_speed=INF, decay_time=decay_time))
    env, _, _ = drive(rack, np.array([[0.5, -0.25, 0, 0]]))
    for t in (0.0, 1.0, 7.5, 40.0):
        np.testing.assert_allclose(rack.positions(t)[0, :2], np.array([0.5, -0.25]) * math.exp(-t / decay_time),
                                   rtol=1e-12)
    # a move starting later starts from the decayed position
    env = simpy.Environment(initial_time=5.0)
    env.process(rack.drive(env, np.array([[0.1, 0, 0, 0]])))
    env.run()
    assert rack.positions(5.0)[0, 0] == pytest.approx(0.5 * math.exp(-5 / decay_time) + 0.1, rel=1e-12)
    assert rack.positions(6.0)[0, 0] == pytest.approx((0.5 * math.exp(-5 / decay_time) + 0.1)
                                                      * math.exp(-1 / decay_time), rel=1e-12)


def test_infinite_speed_is_instantaneous():
    rack = make_rack(plain(motor_speed=INF))
    env, t0, t1 = drive(rack, np.array([[0.3, 0, -0.2, 0]]))
    assert t1 == t0 == 0
    np.testing.assert_allclose(rack.positions(0.0)[0], [0.3, 0, -0.2, 0])


def test_split_topology_mask_and_commands_to_missing_pots():
    spec = plain(motor_speed=INF, topology="split")
    rack = PotentiometerRack(spec, 3, 8 * 4 + 1, 8)          # 32 A-units on 8 R-units: 4 each
    assert rack.mask.sum(axis=1).tolist() == [5, 5, 5]
    assert rack.mask[1, 4:8].all() and not rack.mask[1, :4].any() and rack.mask[:, -1].all()
    assert rack.n_pots == 15
    env, _, _ = drive(rack, np.ones((3, 33)))
    assert np.array_equal(rack.positions(0.0) != 0, rack.mask)


def test_motor_gains():
    shape = (3, 9)
    assert np.all(PotentiometerRack.motor_gains(plain(), shape, np.random.default_rng(0)) == 1.0)
    spec = RackSpec(motor_spread=0.5)
    for seed in range(5):
        g1 = PotentiometerRack.motor_gains(spec, shape, np.random.default_rng(seed))
        g2 = PotentiometerRack.motor_gains(spec, shape, np.random.default_rng(seed))
        g3 = PotentiometerRack.motor_gains(spec, shape, np.random.default_rng(seed + 100))
        assert np.array_equal(g1, g2) and not np.array_equal(g1, g3)
        assert g1.shape == shape and np.all(g1 >= 0.1)


# -- ratchet drive -----------------------------------------------------------------------

def test_ratchet_steps():
    spec = plain(drive="ratchet", step=0.01, step_time=0.04)
    rack = make_rack(spec)
    env, t0, t1 = drive(rack, np.array([[0.052, -0.0149, 0.004, 0]]))
    # round(5.2) = 5 steps, round(1.49) = 1 step, round(0.4) = 0 steps
    np.testing.assert_allclose(rack.positions(t1)[0], [0.05, -0.01, 0.0, 0.0], atol=1e-15)
    assert t1 == pytest.approx(5 * 0.04, rel=1e-9)


def test_ratchet_command_of_zero_steps_does_not_reverse_the_motor():
    """Regression: a command rounding to zero steps turns nothing, so it must not count
    as a reversal for the backlash of the next move."""
    spec = plain(drive="ratchet", step=0.01, step_time=0.04, backlash=0.003)
    rack = make_rack(spec)
    env, _, _ = drive(rack, np.array([[0.05, 0, 0, 0]]))
    env, _, _ = drive(rack, np.array([[-0.004, 0, 0, 0]]), env)        # rounds to 0 steps: nothing turns
    assert rack.positions(env.now)[0, 0] == pytest.approx(0.05)
    env, _, _ = drive(rack, np.array([[0.05, 0, 0, 0]]), env)
    assert rack.positions(env.now)[0, 0] == pytest.approx(0.10, abs=1e-12)


def test_ratchet_reversal_within_one_step_does_not_jump_ahead():
    """Regression: slack and travel inside one step once gave a zero-span move that read
    as finished at the command (infinite speed, ahead of time)."""
    spec = plain(drive="ratchet", step=0.01, step_time=0.04, backlash=0.003)
    rack = make_rack(spec)
    env, _, _ = drive(rack, np.array([[0.05, 0, 0, 0]]))
    t0 = env.now
    plan = rack.plan(np.array([[-0.01, 0, 0, 0]]), t0)
    idx, start, target, slack_time, duration, direction = plan
    moved = np.abs(target - start)
    assert moved[0] == pytest.approx(0.007)
    # the wiper's own motion must take time at the ratchet's rate (step / step_time)
    assert moved[0] <= (duration[0] - slack_time[0]) * (0.01 / 0.04) * (1 + 1e-9)
    env.process(rack.drive(env, np.array([[-0.01, 0, 0, 0]])))
    env.run(until=t0 + 0.001)
    assert rack.positions(env.now)[0, 0] == pytest.approx(0.05)     # still taking up the slack


# -- properties --------------------------------------------------------------------------

rack_specs = st.builds(
    lambda drive_, speed, spread, backlash, decay, step, step_time: RackSpec(
        drive=drive_, motor_speed=speed, motor_spread=spread, backlash=backlash, decay_time=decay,
        step=step, step_time=step_time, wiper_noise=0.0),
    st.sampled_from(["continuous", "ratchet"]),
    st.one_of(st.floats(0.01, 10.0), st.just(INF)),
    st.sampled_from([0.0, 0.1, 0.5]),
    st.sampled_from([0.0, 0.003, 0.05]),
    st.sampled_from([INF, 3600.0, 5.0]),
    st.sampled_from([0.01, 0.05]),
    st.sampled_from([0.0, 0.04]),
)

N_UNITS, N_INPUTS = 3, 6
commands = hnp.arrays(np.float64, (N_UNITS, N_INPUTS),
                      elements=st.one_of(st.just(0.0), st.floats(-3.0, 3.0, allow_subnormal=False)))
starts = hnp.arrays(np.float64, (N_UNITS, N_INPUTS), elements=st.floats(-1.0, 1.0))


def _rack_with(spec, seed, start):
    gain = PotentiometerRack.motor_gains(spec, (N_UNITS, N_INPUTS), np.random.default_rng(seed))
    rack = PotentiometerRack(spec, N_UNITS, N_INPUTS, 3, gain)
    rack.p_from[:] = start
    rack.p_to[:] = start
    return rack


@settings(max_examples=80)
@given(spec=rack_specs, seed=st.integers(0, 2**32 - 1), start=starts,
       cmds=st.lists(st.tuples(commands, st.floats(0.0, 2.0)), min_size=1, max_size=5))
def test_wipers_never_pass_the_end_stops_plan_apply(spec, seed, start, cmds):
    spec = spec.replace(end_stops=True)
    rack = _rack_with(spec, seed, start)
    now = 0.0
    for cmd, gap in cmds:
        plan = rack.plan(cmd, now)
        idx, st_, target, slack_time, duration, direction = plan
        assert np.all(np.abs(target) <= 1.0)
        rack.apply(*plan, now)
        for t in np.linspace(now, now + float(duration.max(initial=0.0)) + gap, 7):
            assert np.all(np.abs(rack.positions(t)) <= 1.0 + 1e-12)
        now += gap


@settings(max_examples=40)
@given(spec=rack_specs, seed=st.integers(0, 2**32 - 1), start=starts,
       cmds=st.lists(st.tuples(commands, st.sampled_from([0.0, 0.3, 2.0])), min_size=1, max_size=4),
       n_drivers=st.sampled_from([0, 0, 2, 5]))
def test_wipers_never_pass_the_end_stops_drive(spec, seed, start, cmds, n_drivers):
    spec = spec.replace(end_stops=True, drivers=n_drivers)
    rack = _rack_with(spec, seed, start)
    env = simpy.Environment()
    for cmd, gap in cmds:
        t0 = env.now
        env.process(rack.drive(env, cmd))
        env.run()
        for t in np.linspace(t0, env.now, 9):
            assert np.all(np.abs(rack.positions(t)) <= 1.0 + 1e-12)
        env.run(until=env.now + gap) if gap > 0 else None
    assert np.all(np.abs(rack.positions(env.now)) <= 1.0)


continuous_specs = st.builds(
    lambda speed, spread, backlash, end_stops: RackSpec(
        drive="continuous", motor_speed=speed, motor_spread=spread, backlash=backlash, decay_time=INF,
        end_stops=end_stops, wiper_noise=0.0),
    st.floats(0.01, 10.0), st.sampled_from([0.0, 0.1, 0.5]), st.sampled_from([0.0, 0.003, 0.05]),
    st.booleans(),
)


@settings(max_examples=80)
@given(spec=continuous_specs, seed=st.integers(0, 2**32 - 1), start=starts,
       cmds=st.lists(commands, min_size=1, max_size=5))
def test_no_motor_exceeds_its_speed_plan(spec, seed, start, cmds):
    rack = _rack_with(spec, seed, start)
    now = 0.0
    for cmd in cmds:
        plan = rack.plan(cmd, now)
        idx, st_, target, slack_time, duration, direction = plan
        limit = spec.motor_speed * rack.gain[idx]
        moved = np.abs(target - st_)
        assert np.all(moved <= limit * (duration - slack_time) * (1 + 1e-9) + 1e-15)
        assert np.all(slack_time >= 0) and np.all(slack_time <= duration)
        rack.apply(*plan, now)
        now += float(duration.max(initial=0.0))


@settings(max_examples=40)
@given(spec=continuous_specs, seed=st.integers(0, 2**32 - 1), start=starts,
       cmds=st.lists(commands, min_size=1, max_size=4))
def test_no_wiper_outruns_its_motor_in_time_drive(spec, seed, start, cmds):
    """Sampled through a SimPy run: between any two instants a wiper travels at most
    motor_speed * gain * elapsed time."""
    rack = _rack_with(spec, seed, start)
    env = simpy.Environment()
    limit = spec.motor_speed * rack.gain
    for cmd in cmds:
        t0 = env.now
        env.process(rack.drive(env, cmd))
        env.run()
        ts = np.linspace(t0, env.now, 11)
        pos = [rack.positions(t) for t in ts]
        for a, b, ta, tb in zip(pos, pos[1:], ts, ts[1:]):
            assert np.all(np.abs(b - a) <= limit * (tb - ta) * (1 + 1e-9) + 1e-12)


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), start=starts, cmds=st.lists(commands, min_size=1, max_size=4),
       backlash=st.sampled_from([0.0, 0.003, 0.05]), step=st.sampled_from([0.01, 0.05]),
       step_time=st.sampled_from([0.02, 0.04]))
def test_ratchet_keeps_to_its_rate(seed, start, cmds, backlash, step, step_time):
    spec = RackSpec(drive="ratchet", step=step, step_time=step_time, backlash=backlash, decay_time=INF,
                    motor_spread=0.0, wiper_noise=0.0)
    rack = _rack_with(spec, seed, start)
    now = 0.0
    for cmd in cmds:
        plan = rack.plan(cmd, now)
        idx, st_, target, slack_time, duration, direction = plan
        moved = np.abs(target - st_)
        assert np.all(moved <= (step / step_time) * (duration - slack_time) * (1 + 1e-9) + 1e-15)
        # whole steps of travel (slack included), unless an end stop cut the move
        at_stop = np.abs(target) == 1.0
        slack = np.where(rack.last_dir[idx] * direction < 0, backlash, 0.0)
        steps = (moved + np.minimum(slack, np.rint(np.abs(cmd[idx]) / step) * step)) / step
        assert np.all(at_stop | (np.abs(steps - np.rint(steps)) < 1e-9))
        assert np.all(slack_time >= 0) and np.all(slack_time <= duration + 1e-15)
        rack.apply(*plan, now)
        now += float(duration.max(initial=0.0))


@pytest.mark.parametrize("spec", [
    plain(motor_speed=INF, backlash=0.01),
    plain(drive="ratchet", step=0.01, step_time=0.0, backlash=0.01),
], ids=["continuous-inf", "ratchet-instant"])
def test_backlash_applies_to_instant_moves(spec):
    """Regression: with infinite speed every move once kept last_dir at 0, so no backlash."""
    rack = make_rack(spec)
    env, _, _ = drive(rack, np.array([[0.1, 0, 0, 0]]))
    env, _, _ = drive(rack, np.array([[-0.05, 0, 0, 0]]), env)
    assert rack.positions(env.now)[0, 0] == pytest.approx(0.1 - (0.05 - 0.01), abs=1e-12)
