"""Device response data: the plotted numbers show the rack's and the photocell's physics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mark1 import specs
from mark1.cli import main
from mark1.classroom.device import photocell_response, rack_response, rack_response_figure
from mark1.machine.retina import Retina

# the rack alone, without decay or spread unless a test puts them back
QUIET = specs.MARK_I.with_overrides({"rack.decay_time": "inf", "rack.motor_spread": 0.0})


def test_pulse_train_stops_at_the_end_stop():
    r = rack_response(specs.MARK_I.with_overrides({"rack.decay_time": "inf"}), pulses=(10,), start=0.9)
    assert r.position.max() == 1.0
    assert np.all(r.position[-1] == 1.0)
    assert r.x.max() <= 1.0
    # a pot already against its stop does not run at all
    at_stop = r.position[:-1] == 1.0
    assert np.all(r.duration[at_stop] == 0.0)


@settings(max_examples=30)
@given(backlash=st.floats(0.0, 0.01), inc=st.floats(0.012, 0.05), n_up=st.integers(1, 5))
def test_reversal_loses_exactly_the_backlash(backlash, inc, n_up):
    spec = QUIET.with_overrides({"rack.backlash": backlash, "trainer.increment": inc})
    r = rack_response(spec, pulses=(n_up, 2), start=0.0, n_pots=1)
    up = r.position[n_up, 0]
    assert up == pytest.approx(n_up * inc, rel=1e-12)
    assert r.position[n_up + 1, 0] - up == pytest.approx(-(inc - backlash), abs=1e-12)
    # the next pulse in the same direction loses nothing
    assert r.position[n_up + 2, 0] - r.position[n_up + 1, 0] == pytest.approx(-inc, abs=1e-12)


@settings(max_examples=30)
@given(step=st.sampled_from([0.005, 0.01, 0.02]), inc=st.floats(0.004, 0.06))
def test_ratchet_positions_are_multiples_of_the_step(step, inc):
    spec = QUIET.with_overrides({"rack.drive": "ratchet", "rack.step": step, "rack.backlash": 0.0,
                                 "trainer.increment": inc})
    r = rack_response(spec, pulses=(12, 7, 5), start=0.0, n_pots=2)
    steps = r.position / step
    assert np.allclose(steps, np.rint(steps), atol=1e-9)
    assert np.all(np.abs(np.diff(r.position, axis=0)) <= math.floor(inc / step + 0.5) * step + 1e-12)


def test_travel_against_command_shows_the_drive():
    """The figure's transfer panel: a ratchet makes whole steps, alike on every pot (the motor
    spread does not change its travel); the continuous drive travels gain x command."""
    ratchet = specs.MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    r = rack_response(ratchet, pulses=(1,), n_pots=4, seed=3, transfer=30)
    assert np.std(r.gain) > 0                                       # the motors differ, the steps do not
    step = ratchet.rack.step
    assert np.allclose(r.transfer_travel, step * np.rint(r.transfer_command / step)[:, None], atol=1e-12)
    assert len(np.unique(r.transfer_travel.round(12))) <= 3 * ratchet.trainer.increment / step + 1   # a staircase
    fig = rack_response_figure(r)
    panel = fig.axes[2]
    assert panel.get_xlabel() == "travel commanded by one pulse (full scale)" and "whole steps" in panel.get_title()
    assert any(line.get_drawstyle() == "steps-mid" for line in panel.lines)

    continuous = specs.MARK_I.with_overrides({"rack.backlash": 0.0})
    r = rack_response(continuous, pulses=(1,), n_pots=4, seed=3, transfer=30)
    assert np.allclose(r.transfer_travel, r.transfer_command[:, None] * r.gain[None, :], rtol=1e-9, atol=1e-12)
    assert "motor spread" in rack_response_figure(r).axes[2].get_title()


def test_speed_limit_and_motor_spread():
    spec = specs.MARK_I.with_overrides({"rack.decay_time": "inf", "rack.backlash": 0.0})
    r = rack_response(spec, pulses=(5,), start=0.0, n_pots=6, seed=3)
    speed = spec.rack.motor_speed * r.gain
    slope = np.abs(np.diff(r.x, axis=0)) / np.diff(r.t)[:, None]
    assert np.all(slope <= speed[None, :] * (1 + 1e-9))
    assert slope[:, 0].max() == pytest.approx(spec.rack.motor_speed)        # pot 0: nominal
    # a continuous pulse lasts |command| / motor_speed; a faster motor travels further
    assert np.allclose(r.duration, spec.trainer.increment / spec.rack.motor_speed)
    assert np.allclose(r.position[-1], 5 * spec.trainer.increment * r.gain)
    assert r.gain[0] == 1.0 and np.std(r.gain[1:]) > 0


def test_decay_when_left_alone():
    spec = specs.MARK_I.with_overrides({"rack.decay_time": 3600.0})      # the decay is off by default
    r = rack_response(spec, pulses=(5,), start=0.5, n_pots=1)
    tau = spec.rack.decay_time
    expected = r.idle_x[0, 0] * np.exp(-(r.idle_t - r.idle_t[0]) / tau)
    assert np.allclose(r.idle_x[:, 0], expected, rtol=1e-9)
    assert r.idle_x[-1, 0] < 0.06 * r.idle_x[0, 0]                # three time constants: e**-3


def test_photocell_rise_is_the_retinas_step_response():
    r = photocell_response(specs.MARK_I.with_overrides({"retina.history_ratio": 1.0}))
    cell = Retina(specs.MARK_I.retina.replace(shape=(1, 1)))
    assert np.allclose(r.rise, cell.step_response(r.rise_t), rtol=1e-12, atol=1e-15)


def test_photocell_fall_has_a_fast_phase_and_a_slow_tail():
    spec = specs.MARK_I
    r = photocell_response(spec)
    assert np.all(np.diff(r.fall) < 0)
    rs = spec.retina
    # late in the dark only the slow tail is left: its log-slope is -1 / slow_fall_time
    late = r.fall_t > 25 * rs.fall_time
    slope = np.diff(np.log(r.fall[late])) / np.diff(r.fall_t[late])
    assert np.allclose(slope, -1 / rs.slow_fall_time, rtol=1e-5)
    # early the fast phase dominates: the signal drops faster than the tail alone
    assert np.log(r.fall[0] / r.fall[1]) / (r.fall_t[1] - r.fall_t[0]) > 5 / rs.slow_fall_time


def test_photocell_light_history():
    spec = specs.MARK_I
    n_w, n_b, n_w2 = 15, 3, 15
    r = photocell_response(spec, cards=(n_w, n_b, n_w2))
    first_run = r.history[:n_w]
    assert np.all(np.diff(first_run) < 0)                       # adapting: reads ever darker
    assert first_run[-1] > 1 / spec.retina.history_ratio        # never past fully adapted
    assert r.history[n_w + n_b] > first_run[-1]                 # recovered a little in the dark
    assert r.history[n_w + n_b] < first_run[0]                  # but not all the way
    flat = photocell_response(spec.with_overrides({"retina.history_ratio": 1.0}), cards=(n_w, n_b, n_w2))
    white = flat.history_light > 0
    # without light history a white card reads the same but for the slow tail the card before leaves
    assert np.ptp(flat.history[white]) < 0.01 < np.ptp(r.history[r.history_light > 0])


def test_cli_device_writes_plots_and_data(tmp_path, capsys):
    assert main(["device", "rack", "--set", "rack.drive=ratchet", "--set", "rack.backlash=0",
                 "--out", str(tmp_path)]) == 0
    assert main(["device", "photocell", "--spec", "SMALL", "--out", str(tmp_path)]) == 0
    for name in ("rack.png", "rack_pulses.csv", "rack_time.csv", "photocell.png", "photocell_rise.csv",
                 "photocell_fall.csv", "photocell_history.csv"):
        assert (tmp_path / name).stat().st_size > 0
    rows = (tmp_path / "rack_pulses.csv").read_text().splitlines()
    assert rows[0].startswith("pulse,time_s,command,pot0_after")
    assert len(rows) == 1 + 70


@pytest.mark.parametrize("argv, says", [
    (["device", "rack", "--set", "rack.bogus=1"], "rack.bogus"),
    (["device", "rack", "--set", "rack.motor_speed=-1"], "rack.motor_speed"),
    (["device", "rack", "--set", "nothing"], "--set"),
    (["device", "rack", "--spec", "HUGE"], "--spec"),
])
def test_cli_device_bad_input(argv, says, tmp_path, capsys):
    assert main(argv + ["--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


# -- the device laws in mark1 device (issue 25) ----------------------------------------------

def test_rack_response_follows_the_law_and_stays_within_the_bounds():
    spec = QUIET.with_overrides({"rack.drive": "ratchet", "rack.law": "soft-bounds", "rack.w_max": 0.5,
                                 "rack.w_min": -0.4, "rack.step": 0.01, "trainer.increment": 0.01})
    r = rack_response(spec, pulses=(80, 120), start=0.0, n_pots=1)
    w = r.position[:, 0]
    assert w.max() <= 0.5 and w.min() >= -0.4
    up = np.diff(w[:81])
    # soft bounds: each step up is 0.01 (1 - w / 0.5) from where the pulse found the wiper
    assert np.allclose(up, 0.01 * (1 - w[:80] / 0.5), atol=1e-12)
    assert np.all(np.diff(up) < 0)                                   # steps shrink towards the bound
    fig = rack_response_figure(r)
    key = fig.axes[5].texts[0].get_text()
    assert "law: soft-bounds (w_max 0.5, w_min -0.4)" in key and "-0.4 and +0.5" in key


def test_rack_response_device_noise_follows_the_seed():
    spec = QUIET.with_overrides({"rack.drive": "ratchet", "rack.dw_min_std": 0.3, "trainer.increment": 0.01})
    a, b, c = (rack_response(spec, pulses=(20,), n_pots=2, seed=s) for s in (0, 0, 1))
    assert np.array_equal(a.position, b.position)
    assert not np.array_equal(a.position, c.position)


def test_cli_device_rack_with_a_law(tmp_path):
    assert main(["device", "rack", "--set", "rack.law=soft-bounds", "--set", "rack.w_max=0.5", "--out",
                 str(tmp_path)]) == 0
    rows = [r.split(",") for r in (tmp_path / "rack_pulses.csv").read_text().splitlines()]
    cols = [i for i, name in enumerate(rows[0]) if name.endswith("_after")]
    after = [float(r[i]) for r in rows[1:] for i in cols]
    assert len(after) == 70 * len(cols) and max(after) <= 0.5 and max(after) > 0.45   # up against the bound
    assert (tmp_path / "rack.png").stat().st_size > 0
