"""The rack's device laws against aihwkit's update rules as its C++ runs them.

``aihwkit_reference`` transcribes aihwkit's ``populate`` and ``update_once`` functions
(src/rpucuda/rpu_*_device.cpp at commit 4545f11, file and line beside each) into plain
numpy. The rack (the compiled kernel, :mod:`mark1.machine._kernels.pots`) is driven with
the same fixed pulse trains: without noise the trajectories agree to 1e-12 of the range;
the spreads and the noise are compared as distributions (two-sample Kolmogorov-Smirnov
tests at fixed seeds, so each run gives the same p-values).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import aihwkit_reference as ref
from mark1 import devices
from mark1.machine._kernels.pots import (DIFFUSION, DIFFUSION_WRITE, LAW_CODES, PROGRAMMING, READ, RESET,
                                         WRITE_NOISE, diffuse_pots,
                                         diffuse_reference, drive_of, programming_reference,
                                         law_factor, law_factor_reference, normal_draw)
from mark1.machine.potentiometers import PotentiometerRack
from mark1.specs import RackSpec

#: A pulse train: up to the top, all the way down, back up, then a fixed random walk.
TRAIN = np.r_[np.ones(250), -np.ones(500), np.ones(250), np.random.default_rng(7).choice([-1, 1], 250)]

#: Plain aihwkit parameter sets, one or more a law (every law's parameters of either sign).
CASES = {
    "constant": ref.parameters("constant", dw_min=0.004),
    "constant-up_down+": ref.parameters("constant", dw_min=0.004, up_down=0.3),
    "constant-up_down-": ref.parameters("constant", dw_min=0.004, up_down=-0.3),
    "linear": ref.parameters("linear", dw_min=0.004, gamma_up=0.4, gamma_down=0.7, up_down=0.1),
    "soft-bounds": ref.parameters("soft-bounds", dw_min=0.004, w_max=0.9, w_min=-0.5, up_down=-0.2),
    "exponential": ref.parameters("exponential", dw_min=0.004, a=-0.5, b=-0.5, A_up=-1.2, A_down=-0.08,
                                  gamma_up=5.0, gamma_down=5.0, up_down=0.26),
    "exponential+": ref.parameters("exponential", dw_min=0.004, a=0.8, b=0.2, A_up=0.3, A_down=0.4, gamma_up=1.5,
                                   gamma_down=2.0),
    "power": ref.parameters("power", dw_min=0.004, pow_gamma=2.0, pow_up_down=0.3),
    "power-": ref.parameters("power", dw_min=0.004, pow_gamma=1.5, pow_up_down=-0.4, up_down=0.1),
    "piecewise": ref.parameters("piecewise", dw_min=0.004, piecewise_up=(2.0, 1.0, 0.5, 0.1),
                                piecewise_down=(0.2, 0.6, 1.0, 1.8)),
}


def rack_spec(par: dict, c: float = 1.0, shift: float = 0.0) -> RackSpec:
    """The rack of aihwkit parameters ``par``: its weights ``w`` are the pot's ``(w - shift) / c``."""
    law = {"exponential": dict(exp_a=par["a"], exp_b=par["b"], A_up=par["A_up"],
                               A_down=par["A_down"], gamma_up=par["gamma_up"], gamma_down=par["gamma_down"]),
           "linear": dict(gamma_up=par["gamma_up"], gamma_down=par["gamma_down"],
                          gamma_up_dtod=par["gamma_up_dtod"], gamma_down_dtod=par["gamma_down_dtod"]),
           "power": dict(pow_gamma=par["pow_gamma"], pow_up_down=par["pow_up_down"],
                         pow_gamma_dtod=par["pow_gamma_dtod"], pow_up_down_dtod=par["pow_up_down_dtod"]),
           "piecewise": dict(piecewise_up=tuple(par["piecewise_up"]), piecewise_down=tuple(par["piecewise_down"])),
           }.get(par["law"], {})
    return RackSpec(drive="ratchet", backlash=0.0, motor_spread=0.0, wiper_noise=0.0, topology="all",
                    law=par["law"], step=par["dw_min"] / c, up_down=par["up_down"],
                    w_max=(par["w_max"] - shift) / c, w_min=(par["w_min"] - shift) / c,
                    dw_min_dtod=par["dw_min_dtod"], dw_min_dtod_log_normal=par["dw_min_dtod_log_normal"],
                    up_down_dtod=par["up_down_dtod"], w_max_dtod=par["w_max_dtod"], w_min_dtod=par["w_min_dtod"],
                    corrupt_devices_prob=par["corrupt_devices_prob"],
                    corrupt_devices_range=par["corrupt_devices_range"] / c, dw_min_std=par["dw_min_std"],
                    mult_noise=par["mult_noise"] or par["law"] not in ("linear", "soft-bounds"),
                    write_noise_std=par["write_noise_std"], g_zero=-shift / c, diffusion=par["diffusion"] / c,
                    diffusion_dtod=par["diffusion_dtod"], reset=par["reset"] / c, reset_dtod=par["reset_dtod"] / c,
                    reset_std=par["reset_std"] / c, **law)


def rack_run(spec: RackSpec, w0: np.ndarray, directions: np.ndarray, seed: int = 0):
    """Each pot's persistent position after each pulse of ``directions``, one command a pulse:
    array (m + 1, n), and the rack."""
    n = len(w0)
    ss = np.random.SeedSequence(seed)
    rack = PotentiometerRack(spec, 1, n, 8, device_seed=ss, noise_seed=ss)
    rack.p_from[0] = rack.p_to[0] = w0
    out = np.empty((len(directions) + 1, n))
    out[0] = w0
    t = 0.0
    for i, d in enumerate(directions):
        rack.apply(*rack.plan(np.full((1, n), d * spec.step), t), t)
        t = rack.busy_until + 1.0
        out[i + 1] = rack.p_to[0] - rack.write_offset[0]
    return out, rack


def devices_of(rack: PotentiometerRack, par: dict, c: float = 1.0, shift: float = 0.0) -> ref.Devices:
    """aihwkit's per-device arrays of the pots the rack drew (in aihwkit's units)."""
    pots, n = rack.pots, rack.p_to.size
    step = rack.spec.step * c

    def each(a):
        return np.broadcast_to(a, (n,)).astype(float)
    up = step * np.maximum(each(pots.step_scale) + each(pots.up_down), 0.0)
    down = step * np.maximum(each(pots.step_scale) - each(pots.up_down), 0.0)
    stuck = each(pots.stuck).astype(bool)
    return ref.Devices(par, np.where(stuck, 0.0, up), np.where(stuck, 0.0, down), each(pots.w_max) * c + shift,
                       each(pots.w_min) * c + shift, each(pots.gamma_up), each(pots.gamma_down), stuck)


def starts(par: dict, n: int = 5) -> np.ndarray:
    return np.linspace(par["w_min"], par["w_max"], n + 2)[1:-1]


# -- noise off: trajectories to 1e-12 -----------------------------------------------------------

@pytest.mark.parametrize("frame", [(1.0, 0.0), (1.7, 0.25)], ids=["as-is", "scaled-and-shifted"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_law_follows_aihwkits_rule(case, frame):
    """aihwkit's weight w is the pot's (w - shift) / c: scaled, and shifted so that aihwkit's 0 is
    the pot's g_zero."""
    c, shift = frame
    par = ref.quiet(CASES[case])
    w0 = starts(par)
    expected = ref.run(ref.populate(par, len(w0), np.random.default_rng(0)), w0, TRAIN)
    got, _ = rack_run(rack_spec(par, c, shift), (w0 - shift) / c, TRAIN)
    assert np.abs(got * c + shift - expected).max() <= 1e-12 * (par["w_max"] - par["w_min"])


def preset_frame(name: str) -> tuple[float, float]:
    """The scale ``c`` and shift of a preset's mapping onto the pot (mark1.devices)."""
    ov = devices.PRESETS[name].overrides
    par = ref.PRESETS[name]
    c = (par["w_max"] - par["w_min"]) / (ov["rack.w_max"] - ov["rack.w_min"])
    return c, par["w_max"] - ov["rack.w_max"] * c


@pytest.mark.parametrize("name", sorted(devices.PRESETS))
def test_every_preset_follows_aihwkits_preset(name):
    """The preset (nominal pot: no spread, no noise, no drift) against aihwkit's preset class."""
    par = ref.quiet(ref.parameters(**ref.PRESETS[name]))
    c, shift = preset_frame(name)
    spec = devices.PRESETS[name].spec().rack.replace(
        **{k: 0.0 for k in ("dw_min_dtod", "up_down_dtod", "w_max_dtod", "w_min_dtod", "gamma_up_dtod",
                            "gamma_down_dtod", "dw_min_std", "write_noise_std", "drift_nu", "drift_nu_dtod")})
    assert spec.step == pytest.approx(par["dw_min"] / c, rel=1e-15)
    w0 = starts(par)
    expected = ref.run(ref.populate(par, len(w0), np.random.default_rng(0)), w0, TRAIN)
    got, _ = rack_run(spec, (w0 - shift) / c, TRAIN)
    assert np.abs(got * c + shift - expected).max() <= 1e-12 * (par["w_max"] - par["w_min"])


@pytest.mark.parametrize("name", sorted(devices.PRESETS))
def test_every_preset_with_its_spreads_follows_aihwkits_rule_pot_by_pot(name):
    """With the preset's pot-to-pot spreads drawn by the rack: each pot's trajectory is aihwkit's
    rule run on that pot's parameters (the draws themselves: test_spreads_are_drawn_as_aihwkit_draws)."""
    par = ref.quiet(ref.parameters(**ref.PRESETS[name]))
    c, shift = preset_frame(name)
    spec = devices.PRESETS[name].spec().rack.replace(dw_min_std=0.0, write_noise_std=0.0, drift_nu=0.0,
                                                     drift_nu_dtod=0.0)
    w0 = np.zeros(12) + (1.0 if name == "pcm" else 0.0)
    got, rack = rack_run(spec, (w0 - shift) / c, TRAIN[:600], seed=3)
    expected = ref.run(devices_of(rack, par, c, shift), w0, TRAIN[:600])
    assert np.abs(got * c + shift - expected).max() <= 1e-12 * (par["w_max"] - par["w_min"])


# -- spreads and noise: distributions --------------------------------------------------------------

KS_ALPHA = 1e-3


def drawn(par: dict, spec: RackSpec, n: int, c: float = 1.0, shift: float = 0.0) -> dict:
    """The rack's draws and aihwkit's populate's, side by side, in aihwkit's units."""
    rack = PotentiometerRack(spec, 1, n, 8, device_seed=np.random.SeedSequence(11))
    ours = devices_of(rack, par, c, shift)
    theirs = ref.populate(par, n, np.random.default_rng(12))
    return {k: (getattr(ours, k), getattr(theirs, k)) for k in ("scale_up", "scale_down", "w_max", "w_min",
                                                                "gamma_up", "gamma_down")}


SPREAD_CASES = {
    "pulsed": ref.parameters("constant", dw_min=0.004, up_down=0.2, dw_min_dtod=0.3, up_down_dtod=0.1,
                             w_max_dtod=0.2, w_min_dtod=0.3, w_max=0.6, w_min=-0.4),
    "log-normal": ref.parameters("constant", dw_min=0.004, up_down=-0.1, dw_min_dtod=0.4,
                                 dw_min_dtod_log_normal=True),
    "linear": ref.parameters("linear", dw_min=0.004, gamma_up=0.1, gamma_down=0.5, gamma_up_dtod=0.1,
                             gamma_down_dtod=0.2),
    "power": ref.parameters("power", dw_min=0.004, pow_gamma=2.0, pow_up_down=0.2, pow_gamma_dtod=0.2,
                            pow_up_down_dtod=0.1),
}


@pytest.mark.parametrize("case", sorted(SPREAD_CASES) + [f"preset:{p}" for p in sorted(devices.PRESETS)])
def test_spreads_are_drawn_as_aihwkit_draws(case):
    if case.startswith("preset:"):
        name = case.split(":")[1]
        par = ref.parameters(**ref.PRESETS[name])
        c, shift = preset_frame(name)
        spec = devices.PRESETS[name].spec().rack
    else:
        par, c, shift = SPREAD_CASES[case], 1.0, 0.0
        spec = rack_spec(par)
    for key, (ours, theirs) in drawn(par, spec, 4000, c, shift).items():
        if np.ptp(theirs) == 0:
            assert np.allclose(ours, theirs[0], rtol=1e-12, atol=1e-15), key
        else:
            assert stats.ks_2samp(ours, theirs).pvalue > KS_ALPHA, key


def test_stuck_devices_are_drawn_as_aihwkit_draws():
    par = ref.parameters("constant", dw_min=0.004, corrupt_devices_prob=0.3, corrupt_devices_range=0.2,
                         w_min=-0.1)
    rack = PotentiometerRack(rack_spec(par), 1, 4000, 8, device_seed=np.random.SeedSequence(5))
    ours = devices_of(rack, par)
    theirs = ref.populate(par, 4000, np.random.default_rng(6))
    assert abs(ours.stuck.mean() - theirs.stuck.mean()) < 0.03
    assert stats.ks_2samp(ours.w_max[ours.stuck], theirs.w_max[theirs.stuck]).pvalue > KS_ALPHA
    assert ours.w_max[ours.stuck].min() >= -0.1 and ours.w_max[ours.stuck].max() <= 0.2
    # a stuck pot starts at its value and stays there
    assert np.array_equal(rack.p_to[0][ours.stuck], ours.w_max[ours.stuck])


NOISE_CASES = {
    "mult": ref.parameters("soft-bounds", dw_min=0.004, dw_min_std=0.8),
    "add": ref.parameters("soft-bounds", dw_min=0.004, dw_min_std=3.0, mult_noise=False),
    "linear-add": ref.parameters("linear", dw_min=0.004, gamma_up=0.5, gamma_down=0.5, dw_min_std=2.0,
                                 mult_noise=False),
    "exp": ref.parameters("exponential", dw_min=0.004, a=-0.5, b=-0.5, A_up=-1.2, A_down=-0.08, gamma_up=5.0,
                          gamma_down=5.0, dw_min_std=0.5),
}


@pytest.mark.parametrize("case", sorted(NOISE_CASES))
def test_cycle_to_cycle_noise_has_aihwkits_distribution(case):
    """Three pulses, each a command, from the same interior point on 3,000 pots: the spread of
    where they end is aihwkit's (multiplicative or additive)."""
    par = NOISE_CASES[case]
    n, train = 3000, np.array([1, 1, -1])
    w0 = np.full(n, 0.1)
    got, _ = rack_run(rack_spec(par), w0, train, seed=21)
    theirs = ref.run(ref.populate(par, n, np.random.default_rng(0)), w0, train, np.random.default_rng(22))
    for i in range(1, len(train) + 1):
        assert stats.ks_2samp(got[i], theirs[i]).pvalue > KS_ALPHA, i


def test_write_noise_has_aihwkits_distribution():
    par = ref.parameters("constant", dw_min=0.004, write_noise_std=5.0)
    n = 3000
    spec = rack_spec(par)
    ss = np.random.SeedSequence(31)
    rack = PotentiometerRack(spec, 1, n, 8, device_seed=ss, noise_seed=ss)
    rack.apply(*rack.plan(np.full((1, n), spec.step), 0.0), 0.0)
    apparent = rack.positions(1e6)[0]
    theirs = ref.write_noise(ref.populate(par, n, np.random.default_rng(0)), np.full(n, 0.004),
                             np.random.default_rng(32))
    assert stats.ks_2samp(apparent, theirs).pvalue > KS_ALPHA


#: Write-noise updates: a law with bounds inside the end stops, pots from below the middle to
#: near the top, 4 updates in which each pot gets 0 to 6 pulses, up or down (about 1 in 7 none).
WRITE = ref.parameters("soft-bounds", dw_min=0.02, w_max=0.5, w_min=-0.4, write_noise_std=5.0)


def write_updates(n: int, seed: int):
    rng = np.random.default_rng(seed)
    w0 = rng.uniform(-0.1, 0.49, n)
    counts = rng.integers(0, 7, (4, n))
    return w0, counts, rng.choice([-1, 1], (4, n)) * np.where(rng.random((4, n)) < 0.8, 1, -1)


def rack_updates(spec: RackSpec, w0, counts, directions, seed: int = 0):
    """Each update a command of every pot (``counts`` pulses, 0: none); the rack's persistent
    positions, readings and its write-noise draws (each move's, as its counter keys it)."""
    n = len(w0)
    ss = np.random.SeedSequence(seed)
    rack = PotentiometerRack(spec, 1, n, 8, device_seed=ss, noise_seed=ss)
    rack.p_from[0] = rack.p_to[0] = w0
    key = rack.drive_constants.noise_key
    xi, persistent, apparent, t = [], [], [], 0.0
    for c, d in zip(counts, directions):
        xi.append([normal_draw(key, WRITE_NOISE, j, int(rack.pulses[0, j])) for j in range(n)])
        rack.apply(*rack.plan((c * d * spec.step)[None, :], t), t)
        t = rack.busy_until + 1.0
        apparent.append(rack.positions(t)[0])
        persistent.append(apparent[-1] - rack.write_offset[0])
    return np.array(persistent), np.array(apparent), np.array(xi)


def test_write_noise_is_drawn_as_aihwkits_update_draws_it():
    """Fed the same normal numbers, every pot's persistent and apparent weight after each update
    is aihwkit's (``update``: a new unclipped draw at each pulse that touches a device, the
    last standing; a device no pulse touches keeps its apparent weight), to 1e-12; some
    readings pass the bound by the noise, as aihwkit's apparent weights do."""
    n = 400
    w0, counts, directions = write_updates(n, 3)
    spec = rack_spec(WRITE)
    persistent, apparent, xi = rack_updates(spec, w0, counts, directions)
    dev = ref.populate(WRITE, n, np.random.default_rng(0))
    w, seen = w0.copy(), w0.copy()
    beyond = untouched = 0
    for u in range(len(counts)):
        last = np.where(counts[u] > 0, counts[u] - 1, 0)
        draws = np.random.default_rng(u).standard_normal((n, 7))
        draws[np.arange(n), last] = xi[u]                     # the rack's draw is the last pulse's
        w, seen = ref.update(dev, w, seen, counts[u], directions[u], draws)
        assert np.abs(persistent[u] - w).max() <= 1e-12
        assert np.abs(apparent[u] - seen).max() <= 1e-12
        still = counts[u] == 0                                # the scope: not touched, not redrawn (bit for bit)
        assert np.array_equal(apparent[u][still], (apparent[u - 1] if u else w0)[still])
        beyond += int(((seen > WRITE["w_max"]) | (seen < WRITE["w_min"])).sum())
        untouched += int((counts[u] == 0).sum())
    assert beyond > 10 and untouched > 100          # 30-50 and about 230 on seeds 3, 4, 5, 11


def test_write_noise_at_the_bound_has_aihwkits_unclipped_distribution():
    """3,000 pots pushed against their upper bound: the readings are the bound plus the write
    noise on both sides (aihwkit's apparent weight), not cut there; their spread is the sigma
    law's, ``write_noise_std * dw_min``, within sampling error (5 %)."""
    n = 3000
    par = ref.parameters("constant", dw_min=0.004, w_max=0.6, w_min=-0.6, write_noise_std=8.0)
    counts, d = np.full((1, n), 30), np.ones((1, n), int)
    w0 = np.full(n, 0.55)
    _, apparent, _ = rack_updates(rack_spec(par), w0, counts, d, seed=41)
    dev = ref.populate(par, n, np.random.default_rng(0))
    _, theirs = ref.update(dev, w0, w0, counts[0], d[0], np.random.default_rng(42).standard_normal((n, 30)))
    assert stats.ks_2samp(apparent[0], theirs).pvalue > KS_ALPHA
    assert (apparent[0] > 0.6).mean() == pytest.approx(0.5, abs=0.04)
    assert np.std(apparent[0] - 0.6) == pytest.approx(8.0 * 0.004, rel=0.05)


def test_diffusion_redraws_every_pots_write_noise_as_apply_update_write_noise():
    """A diffusion step writes every pot, moved or not: its reading is aihwkit's
    ``applyUpdateWriteNoise`` of the diffused persistent weight, fed the same numbers, unclipped."""
    par = ref.parameters("constant", dw_min=0.01, w_max=0.5, w_min=-0.5, write_noise_std=3.0, diffusion=0.02)
    n = 300
    spec = rack_spec(par)
    rack = PotentiometerRack(spec, 1, n, 8)
    w0 = np.linspace(-0.5, 0.5, n)
    rack.p_from[0] = rack.p_to[0] = w0
    key = rack.drive_constants.noise_key
    dev = ref.populate(par, n, np.random.default_rng(0))
    w = w0
    for p in range(3):
        diffuse_pots(p, float(p), rack.busy_until, 1.0, rack.pots, rack.drive_constants)
        step = np.array([normal_draw(key, DIFFUSION, j, p) for j in range(n)])
        w = ref.diffuse(w, np.full(n, 0.02), dev.w_min, dev.w_max, step)
        seen = ref.apply_update_write_noise(dev, w, [normal_draw(key, DIFFUSION_WRITE, j, p) for j in range(n)])
        assert np.abs(rack.p_to[0] - seen).max() <= 1e-12
        assert np.abs(rack.p_to[0] - rack.write_offset[0] - w).max() <= 1e-12
    assert (rack.p_to[0] > 0.5).any() and (rack.p_to[0] < -0.5).any()


@pytest.mark.parametrize(("nu", "zero"), [(0.05, 0.0), (0.1, -0.5)])
def test_drift_follows_aihwkits_weight_drifter(nu, zero):
    spec = RackSpec(drive="ratchet", backlash=0.0, motor_spread=0.0, wiper_noise=0.0, topology="all",
                    drift_nu=nu, drift_t0=20.0, g_zero=zero)
    w0 = np.linspace(-0.4, 0.4, 5)
    rack = PotentiometerRack(spec, 1, 5, 8)
    rack.p_from[0] = rack.p_to[0] = w0
    for dt in (1.0, 20.0, 55.0, 86400.0):
        assert np.abs(rack.positions(dt)[0] - ref.drift(w0, dt / 20.0, nu, a=-zero)).max() <= 1e-15


# -- the kernel's law and its plain-Python reference ------------------------------------------------

@pytest.mark.parametrize("case", sorted(CASES))
def test_the_kernels_law_is_its_reference_and_aihwkits(case):
    par = ref.quiet(CASES[case])
    spec = rack_spec(par)
    drive = drive_of(spec)
    rack = PotentiometerRack(spec, 1, 1, 8)
    g_up, g_down = float(rack.pots.gamma_up[0]), float(rack.pots.gamma_down[0])
    dev = ref.populate(par, 1, np.random.default_rng(0))
    for w in np.linspace(spec.w_min, spec.w_max, 41):
        for d in (1, -1):
            args = (LAW_CODES[spec.law], float(w), float(d), spec.w_max, spec.w_min, g_up, g_down, drive)
            kernel, plain = law_factor(*args), law_factor_reference(*args)
            assert kernel == pytest.approx(plain, rel=1e-14, abs=1e-15)
            assert plain == pytest.approx(ref.step_factor(dev, 0, float(w), d), rel=1e-14, abs=1e-15)
            assert math.isfinite(kernel)


# -- diffusion and reset: aihwkit's diffuseWeights and resetCols ------------------------------------

def diffused(rack: PotentiometerRack, presentations: int) -> np.ndarray:
    """Each pot's position after each of ``presentations`` presentations' diffusion, the rack
    at rest (the kernel's :func:`diffuse_pots`, as the presentation kernel calls it): (m + 1, n)."""
    out = np.empty((presentations + 1, rack.p_to.size))
    out[0] = rack.p_to.reshape(-1)
    for p in range(presentations):
        diffuse_pots(p, float(p), rack.busy_until, 1.0, rack.pots, rack.drive_constants)
        out[p + 1] = rack.p_to.reshape(-1)
    return out


def diffusion_draws(rack: PotentiometerRack, presentations: int) -> np.ndarray:
    """The normal numbers the rack's diffusion stream gives pot j at presentation p: (m, n)."""
    key = rack.drive_constants.noise_key
    return np.array([[normal_draw(key, DIFFUSION, j, p) for j in range(rack.p_to.size)]
                     for p in range(presentations)])


@pytest.mark.parametrize("frame", [(1.0, 0.0), (1.7, 0.25)], ids=["as-is", "scaled-and-shifted"])
def test_diffusion_follows_aihwkits_diffuse_weights(frame):
    """Fed the same normal numbers, the kernel's diffusion is aihwkit's random walk, bounds
    included (a rate large enough that the walk meets both)."""
    c, shift = frame
    par = ref.parameters("soft-bounds", dw_min=0.004, w_max=0.6, w_min=-0.4, diffusion=0.05)
    spec = rack_spec(par, c, shift)
    w0 = starts(par, 7)
    rack = PotentiometerRack(spec, 1, len(w0), 8, noise_seed=np.random.SeedSequence(3))
    rack.p_from[0] = rack.p_to[0] = (w0 - shift) / c
    got = diffused(rack, 400) * c + shift
    xi = diffusion_draws(rack, 400)
    dev = ref.populate(par, len(w0), np.random.default_rng(0))
    rate, _ = ref.populate_diffusion_and_reset(par, len(w0), np.random.default_rng(0))
    expected, plain = [w0.copy()], [(w0 - shift) / c]
    for p in range(400):
        expected.append(ref.diffuse(expected[-1], rate, dev.w_min, dev.w_max, xi[p]))
        plain.append(np.array([diffuse_reference(w, spec.diffusion, x, spec.w_min, spec.w_max, True)
                               for w, x in zip(plain[-1], xi[p])]))
    expected = np.array(expected)
    assert (expected == dev.w_max).any() and (expected == dev.w_min).any()        # the walk met both bounds
    assert np.abs(got - expected).max() <= 1e-12 * (par["w_max"] - par["w_min"])
    assert np.abs(got - (np.array(plain) * c + shift)).max() <= 1e-12 * (par["w_max"] - par["w_min"])


def test_diffusion_rates_are_drawn_as_aihwkit_draws():
    par = ref.parameters("constant", dw_min=0.004, diffusion=0.01, diffusion_dtod=0.6)
    rack = PotentiometerRack(rack_spec(par), 1, 4000, 8, device_seed=np.random.SeedSequence(13))
    theirs, _ = ref.populate_diffusion_and_reset(par, 4000, np.random.default_rng(14))
    assert stats.ks_2samp(rack.pots.diffusion, theirs).pvalue > KS_ALPHA
    assert (rack.pots.diffusion >= 0).all()                   # |...|: a draw below -1 folds back


def test_a_diffusion_walk_has_aihwkits_distribution():
    """3,000 pots, 60 presentations of diffusion with a pot-to-pot spread of the rate, both
    bounds in reach: where the pots end is where aihwkit's devices end, under its own draws."""
    par = ref.parameters("constant", dw_min=0.004, w_max=0.3, w_min=-0.2, diffusion=0.04, diffusion_dtod=0.3)
    n = 3000
    rack = PotentiometerRack(rack_spec(par), 1, n, 8, device_seed=np.random.SeedSequence(15),
                             noise_seed=np.random.SeedSequence(16))
    got = diffused(rack, 60)[-1]
    rng = np.random.default_rng(17)
    dev = ref.populate(par, n, rng)
    rate, _ = ref.populate_diffusion_and_reset(par, n, rng)
    w = np.zeros(n)
    for _ in range(60):
        w = ref.diffuse(w, rate, dev.w_min, dev.w_max, rng.standard_normal(n))
    assert 0.02 < (got == 0.3).mean() < 0.5 and 0.02 < (w == 0.3).mean() < 0.5      # both walks meet a bound
    assert stats.ks_2samp(got, w).pvalue > KS_ALPHA


def reset_draws(rack: PotentiometerRack) -> np.ndarray:
    key = rack.drive_constants.noise_key
    return np.array([normal_draw(key, RESET, j, 0) for j in range(rack.p_to.size)])


@pytest.mark.parametrize("frame", [(1.0, 0.0), (1.7, 0.25)], ids=["as-is", "scaled-and-shifted"])
def test_reset_follows_aihwkits_reset_cols(frame):
    """Fed the same reset values and normal numbers, where each pot starts is where aihwkit's
    resetCols puts a device, bounds included."""
    c, shift = frame
    par = ref.parameters("soft-bounds", dw_min=0.004, w_max=0.6, w_min=-0.4, reset=0.3, reset_dtod=0.2,
                         reset_std=0.15)
    spec = rack_spec(par, c, shift)
    n = 400
    rack = PotentiometerRack(spec, 1, n, 8, device_seed=np.random.SeedSequence(5), noise_seed=np.random.SeedSequence(6))
    bias = PotentiometerRack.device_arrays(spec, (1, n), np.random.SeedSequence(5))[9].reshape(-1) * c
    dev = ref.populate(par, n, np.random.default_rng(0))
    expected = ref.reset(bias, par["reset_std"], dev.w_min, dev.w_max, reset_draws(rack))
    got = rack.positions(0.0)[0] * c + shift
    assert (expected == dev.w_max).any() and (expected == dev.w_min).any()
    assert np.abs(got - expected).max() <= 1e-12 * (par["w_max"] - par["w_min"])


def test_reset_values_have_aihwkits_distribution():
    par = ref.parameters("constant", dw_min=0.004, reset=0.1, reset_dtod=0.1, reset_std=0.05)
    n = 4000
    rack = PotentiometerRack(rack_spec(par), 1, n, 8, device_seed=np.random.SeedSequence(7),
                             noise_seed=np.random.SeedSequence(8))
    rng = np.random.default_rng(9)
    dev = ref.populate(par, n, rng)
    _, bias = ref.populate_diffusion_and_reset(par, n, rng)
    theirs = ref.reset(bias, par["reset_std"], dev.w_min, dev.w_max, rng.standard_normal(n))
    assert stats.ks_2samp(rack.positions(0.0)[0], theirs).pvalue > KS_ALPHA


# -- PCM programming and 1/f read noise: aihwkit's PCMLikeNoiseModel --------------------------------

#: A signed pot (its zero mid-range, both members of the pair in use) and a one-sided one (its zero
#: at w_min, as the pcm preset: the idle member always at 0).
PCM_FRAMES = {"signed": dict(w_max=0.6, w_min=-0.6, g_zero=0.0),
              "one-sided": dict(w_max=0.5, w_min=-0.5, g_zero=-0.5)}


def pcm_spec(frame: str, **kw) -> RackSpec:
    """A ratchet rack in ``frame`` without end stops: aihwkit's pair may read below its zero (the
    idle member's programming noise), where the one-sided frame's end stop would cut it."""
    return RackSpec(drive="ratchet", step=0.01, backlash=0.0, motor_spread=0.0, wiper_noise=0.0, topology="all",
                    end_stops=False, **PCM_FRAMES[frame], **kw)


def pcm_par(**kw) -> dict:
    return {**ref.PCM_DEFAULTS, **kw}


def as_aihwkit(w: np.ndarray, spec: RackSpec, each) -> np.ndarray:
    """Pot positions ``w`` through aihwkit's pair: weights ``w - g_zero``, the largest mapped to
    ``g_max`` being the pot's full conductance (appended, then dropped), ``each(member, k)`` applied
    to member k's conductances, and back."""
    full = max(spec.w_max - spec.g_zero, spec.g_zero - spec.w_min)
    pair, ratio = ref.to_conductances(np.r_[w - spec.g_zero, full])
    pair = [each(pair[k][:-1], k) for k in (0, 1)]
    return spec.g_zero + ref.from_conductances(pair, ratio)


def programmed_targets(spec: RackSpec, n: int) -> np.ndarray:
    """n commands of whole steps spread over the middle of the pot's range, from its zero."""
    full = max(spec.w_max - spec.g_zero, spec.g_zero - spec.w_min)
    lo = max(spec.w_min - spec.g_zero, -0.5 * full)
    return np.rint(np.linspace(lo, 0.5 * full, n) / spec.step) * spec.step


@pytest.mark.parametrize("frame", sorted(PCM_FRAMES))
def test_programming_noise_follows_aihwkits_pcm_model(frame):
    """Fed the same normal numbers, each pot lands where aihwkit's programming noise puts the pair
    it programs from the pot's persistent position, the clamps at 0 conductance included."""
    spec = pcm_spec(frame, prog_noise_scale=2.0)
    travel = programmed_targets(spec, 301)
    n = len(travel)
    rack = PotentiometerRack(spec, 1, n, 8, noise_seed=np.random.SeedSequence(41))
    rack.p_from[0] = rack.p_to[0] = spec.g_zero
    rack.apply(*rack.plan(travel[None, :].copy(), 0.0), 0.0)
    persistent = (rack.p_to - rack.write_offset)[0]
    assert np.abs(persistent - (spec.g_zero + travel)).max() <= 1e-12          # the move itself, noise aside
    key = rack.drive_constants.noise_key
    xi = np.array([[normal_draw(key, PROGRAMMING + k, j, 0) for j in range(n)] for k in (0, 1)])
    par = pcm_par(prog_noise_scale=2.0)
    expected = as_aihwkit(persistent, spec, lambda g, k: ref.programming_noise(g, xi[k], par))
    got = rack.positions(rack.busy_until + 1.0)[0]
    moved = travel != 0                                 # a pot no command moves is not programmed
    assert (got[~moved] == spec.g_zero).all() and moved.sum() > 290
    assert np.abs(got - expected)[moved].max() <= 1e-12
    assert np.abs(programming_reference(persistent, xi[0], xi[1], spec) - expected).max() <= 1e-12
    unclamped = as_aihwkit(persistent, spec, lambda g, k: g + 2.0 * (
        par["prog_coeff"][0] + par["prog_coeff"][1] * g / 25 + par["prog_coeff"][2] * (g / 25) ** 2) * xi[k])
    assert (np.abs(unclamped - expected) > 1e-3).sum() > 20                   # the clamps at 0 were met
    assert np.abs(got - persistent).max() > 0.05                               # and the noise is there


@pytest.mark.parametrize("frame", sorted(PCM_FRAMES))
def test_read_noise_follows_aihwkits_pcm_model(frame):
    """Fed the same normal numbers, each read of a pot programmed at t = 0 is aihwkit's 1/f read
    noise at t_inference = the seconds since, on the compiled read and its numpy twin alike."""
    spec = pcm_spec(frame, read_noise_scale=1.5)
    w = spec.g_zero + programmed_targets(spec, 101)
    w[w == spec.g_zero] += 1e-3                                               # one at a tiny conductance
    n = len(w)
    rack = PotentiometerRack(spec, n, 1, 8, noise_seed=np.random.SeedSequence(43))     # one pot a unit
    rack.p_from[:, 0] = rack.p_to[:, 0] = w
    key = rack.drive_constants.noise_key
    par = pcm_par(read_noise_scale=1.5, t_0=spec.drift_t0)
    clamped = 0
    for p, t in enumerate((0.0, 3.0, 1000.0, 86400.0)):
        xi = np.array([normal_draw(key, READ, j, p) for j in range(n)])
        expected = as_aihwkit(w, spec, lambda g, k, t=t, xi=xi: ref.read_noise(g, 0.0, t, xi, par))
        got = rack.sums(np.ones(1), t, presentation=p)
        assert np.abs(got - expected).max() <= 1e-12, t
        assert np.abs(rack.read_positions(t, xi[:, None])[:, 0] - expected).max() <= 1e-12, t
        clamped += int((expected == spec.g_zero).sum())
    assert clamped > 0                                                        # a reading cut at 0 conductance


def test_programming_noise_has_aihwkits_distribution():
    spec = pcm_spec("one-sided", prog_noise_scale=1.0)
    n = 3000
    rack = PotentiometerRack(spec, 1, n, 8, noise_seed=np.random.SeedSequence(45))
    rack.p_from[0] = rack.p_to[0] = spec.g_zero
    rack.apply(*rack.plan(np.full((1, n), 0.3), 0.0), 0.0)
    rng = np.random.default_rng(46)
    theirs = as_aihwkit(np.full(n, spec.g_zero + 0.3), spec,
                        lambda g, k: ref.programming_noise(g, rng.standard_normal(n)))
    assert stats.ks_2samp(rack.positions(rack.busy_until + 1.0)[0], theirs).pvalue > KS_ALPHA


def test_read_noise_has_aihwkits_distribution():
    spec = pcm_spec("signed", read_noise_scale=1.0)
    n = 3000
    rack = PotentiometerRack(spec, n, 1, 8, noise_seed=np.random.SeedSequence(47))
    w = np.where(np.arange(n) % 2, 0.03, -0.2)                               # a small and a large conductance
    rack.p_from[:, 0] = rack.p_to[:, 0] = w
    got = rack.sums(np.ones(1), 500.0, presentation=7)
    rng = np.random.default_rng(48)
    theirs = as_aihwkit(w, spec, lambda g, k: ref.read_noise(g, 0.0, 500.0, rng.standard_normal(n)))
    for part in (0, 1):
        assert stats.ks_2samp(got[part::2], theirs[part::2]).pvalue > KS_ALPHA
