"""aihwkit's pulsed-device update rules, transcribed into plain numpy (no aihwkit install needed).

Each function says which lines of aihwkit's C++ it transcribes: github.com/IBM/aihwkit at
commit 4545f11b5214c5e3c6b9d293053bbf8baf74e110 (MIT licence), files under src/rpucuda/.
aihwkit's own sign convention (``sign > 0`` is a *down* pulse) is turned into a direction
here: ``d = +1`` up, ``d = -1`` down. Parameters are aihwkit's names in a plain dict, in
aihwkit's own weight units (not the pot's full scale).

Written to check :mod:`mark1.machine._kernels.pots` against (tests/test_aihwkit_rules.py),
so it is as literal as the C++ allows, with none of the kernel's code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

COMMIT = "4545f11b5214c5e3c6b9d293053bbf8baf74e110"

#: aihwkit's PulsedDevice defaults that the populate step reads (src/aihwkit/simulator/configs/devices.py,
#: lines 148-213), with the device-to-device spreads off unless a test turns them on.
DEFAULTS = dict(dw_min=0.001, up_down=0.0, w_max=0.6, w_min=-0.6, dw_min_dtod=0.0, dw_min_dtod_log_normal=False,
                up_down_dtod=0.0, w_max_dtod=0.0, w_min_dtod=0.0, corrupt_devices_prob=0.0,
                corrupt_devices_range=0.1, dw_min_std=0.0, write_noise_std=0.0, mult_noise=True,
                gamma_up=0.0, gamma_down=0.0, gamma_up_dtod=0.0, gamma_down_dtod=0.0, mean_bound_reference=True,
                a=0.0, b=0.0, A_up=0.0, A_down=0.0, pow_gamma=1.0, pow_up_down=0.0, pow_gamma_dtod=0.0,
                pow_up_down_dtod=0.0, piecewise_up=(1.0,), piecewise_down=(1.0,), diffusion=0.0,
                diffusion_dtod=0.0, reset=0.0, reset_dtod=0.0, reset_std=0.0)

#: aihwkit's presets (src/aihwkit/simulator/presets/devices.py at COMMIT): the values its classes set.
PRESETS = {
    # lines 21-54
    "reram-es": dict(law="exponential", dw_min=0.00135, up_down=0.259359, w_max=1.0, w_min=-1.0, a=-0.5, b=-0.5,
                     gamma_up=5.0, gamma_down=5.0, A_up=-1.18445, A_down=-0.081404, dw_min_dtod=0.2,
                     up_down_dtod=0.05, w_max_dtod=0.3, w_min_dtod=0.3, dw_min_std=5.0, write_noise_std=75.0),
    # lines 58-89 (a SoftBoundsReferenceDevice; its reference device is not part of the rule)
    "reram-sb": dict(law="soft-bounds", dw_min=0.002, up_down=0.0, w_max=1.25, w_min=-0.75, mult_noise=False,
                     dw_min_dtod=0.3, up_down_dtod=0.01, w_max_dtod=0.3 / 1.25, w_min_dtod=0.3 / 0.75,
                     dw_min_std=3.75, write_noise_std=56.0),
    # lines 148-185
    "ecram": dict(law="linear", dw_min=0.002, up_down=0.0, w_max=1.1724, w_min=-0.8276, mult_noise=True,
                  gamma_up=0.1153, gamma_down=0.5085, dw_min_dtod=0.1, up_down_dtod=0.01, w_max_dtod=0.05,
                  w_min_dtod=0.05, gamma_up_dtod=0.05, gamma_down_dtod=0.05, dw_min_std=0.3, write_noise_std=0.0,
                  mean_bound_reference=True),
    # lines 296-342 (its complex noise, dw_min_std_add and dw_min_std_slope, left out as in mark1's preset)
    "pcm": dict(law="exponential", dw_min=0.01, up_down=0.0, w_max=2.0, w_min=0.0, a=-1.0, b=0.0, gamma_up=2.5,
                gamma_down=2.5, A_up=-27.235, A_down=-2.235, dw_min_dtod=0.2, up_down_dtod=0.05, w_max_dtod=0.1,
                w_min_dtod=0.0, dw_min_std=0.6),
}

#: The spreads and noise of a parameter dict, to switch off for a deterministic run.
SPREADS = ("dw_min_dtod", "up_down_dtod", "w_max_dtod", "w_min_dtod", "gamma_up_dtod", "gamma_down_dtod",
           "pow_gamma_dtod", "pow_up_down_dtod", "corrupt_devices_prob", "dw_min_std", "write_noise_std",
           "diffusion_dtod", "reset_dtod", "reset_std")


def parameters(law: str, **kw) -> dict:
    """A full parameter dict: :data:`DEFAULTS`, the law, then ``kw``."""
    out = dict(DEFAULTS, law=law)
    out.update(kw)
    return out


def quiet(par: dict) -> dict:
    """``par`` with every spread and noise off."""
    return {**par, **{k: 0.0 for k in SPREADS}}


@dataclass
class Devices:
    """n devices after aihwkit's ``populate``: arrays (n,) in aihwkit's weight units."""

    par: dict
    scale_up: np.ndarray
    scale_down: np.ndarray
    w_max: np.ndarray
    w_min: np.ndarray
    gamma_up: np.ndarray        # LinearStep: the slope's share at the bound; PowStep: the exponent
    gamma_down: np.ndarray
    stuck: np.ndarray


def populate(par: dict, n: int, rng: np.random.Generator) -> Devices:
    """``PulsedRPUDevice::populate`` (rpu_pulsed_device.cpp, lines 593-696) and the laws' own
    (rpu_linearstep_device.cpp 20-74, rpu_powstep_device.cpp 20-50), vectorised over n devices.

    Each draw is a normal (``sampleGauss``) or a uniform, in aihwkit's order for one device;
    the generator differs from aihwkit's, so only the distributions compare.
    """
    up_down, dtod = par["up_down"], par["dw_min_dtod"]
    up_bias = up_down if up_down < 0 else 0.0                                   # line 603
    down_bias = -up_down if up_down > 0 else 0.0                                # line 604
    w_max = par["w_max"] * (1.0 + par["w_max_dtod"] * rng.standard_normal(n))   # line 618
    w_min = par["w_min"] * (1.0 + par["w_min_dtod"] * rng.standard_normal(n))   # line 619
    xi = rng.standard_normal(n)
    gain = np.exp(dtod * xi) if par["dw_min_dtod_log_normal"] else 1.0 + dtod * xi      # lines 621-625
    r = par["up_down_dtod"] * rng.standard_normal(n)                           # line 627
    scale_up = (up_bias + gain + r) * par["dw_min"]                            # line 628
    scale_down = (down_bias + gain - r) * par["dw_min"]                        # line 629
    # enforce_consistency (lines 632-640; aihwkit's default True, configs/devices.py line 188)
    scale_up, scale_down = np.abs(scale_up), np.abs(scale_down)
    crossed = w_min > w_max
    w_min, w_max = np.where(crossed, w_max, w_min), np.where(crossed, w_min, w_max)
    w_max, w_min = np.abs(w_max), -np.abs(w_min)
    # corrupt devices (lines 684-696): stuck at a value in +-corrupt_devices_range within the bounds
    stuck = par["corrupt_devices_prob"] > rng.random(n)
    rng_ = abs(par["corrupt_devices_range"])
    lo = np.maximum(np.minimum(w_max, w_min), -rng_)
    hi = np.minimum(np.maximum(w_max, w_min), rng_)
    value = lo + (hi - lo) * rng.random(n)
    w_max, w_min = np.where(stuck, value, w_max), np.where(stuck, value, w_min)
    scale_up, scale_down = np.where(stuck, 0.0, scale_up), np.where(stuck, 0.0, scale_down)
    law = par["law"]
    if law == "linear":          # rpu_linearstep_device.cpp, lines 35-42 (ls_allow_increasing_slope False)
        g_up = np.abs(par["gamma_up"] + par["gamma_up_dtod"] * rng.standard_normal(n))
        g_down = np.abs(par["gamma_down"] + par["gamma_down_dtod"] * rng.standard_normal(n))
    elif law == "power":         # rpu_powstep_device.cpp, lines 27-47
        pud = par["pow_up_down"]
        pub = pud if pud < 0 else 0.0
        pdb = -pud if pud > 0 else 0.0
        g = 1.0 + par["pow_gamma_dtod"] * rng.standard_normal(n)
        rp = par["pow_up_down_dtod"] * rng.standard_normal(n)
        g_up = np.abs((pub + g + rp) * par["pow_gamma"])
        g_down = np.abs((pdb + g - rp) * par["pow_gamma"])
    else:
        g_up, g_down = np.full(n, float(par["gamma_up"])), np.full(n, float(par["gamma_down"]))
    return Devices(par, scale_up, scale_down, w_max, w_min, g_up, g_down, stuck)


def step_factor(dev: Devices, k: int, w: float, d: int) -> float:
    """The law's factor of device ``k`` at ``w`` (what multiplies its scale), per aihwkit's update_once."""
    par, law = dev.par, dev.par["law"]
    w_max, w_min = dev.w_max[k], dev.w_min[k]
    if law == "constant":        # rpu_constantstep_device.cpp, lines 44-51
        return 1.0
    if law in ("linear", "soft-bounds"):
        # rpu_linearstep_device.cpp, lines 46-71: slope = -gamma * scale / w_ref; step = slope * w + scale
        if law == "soft-bounds":     # rpu_linearstep_device.h, lines 72-82: gamma 1, the device's own bounds
            ref_up, ref_down, g_up, g_down = w_max, w_min, 1.0, 1.0
        else:
            ref_up = par["w_max"] if par["mean_bound_reference"] else w_max
            ref_down = par["w_min"] if par["mean_bound_reference"] else w_min
            g_up, g_down = dev.gamma_up[k], dev.gamma_down[k]
        if d > 0:
            return 1.0 - g_up * w / ref_up if ref_up != 0 else 1.0
        return 1.0 - g_down * w / ref_down if ref_down != 0 else 1.0
    if law == "exponential":     # rpu_expstep_device.cpp, lines 34-44
        z = 2.0 * w / (w_max - w_min) * par["a"] + par["b"]
        if d > 0:
            return max(1.0 - par["A_up"] * math.exp(par["gamma_up"] * z), 0.0)
        return max(1.0 - par["A_down"] * math.exp(par["gamma_down"] * (-z)), 0.0)
    if law == "power":           # rpu_powstep_device.cpp, lines 102-111
        rng_ = w_max - w_min
        if d > 0:
            return ((w_max - w) / rng_) ** dev.gamma_up[k]
        return ((w - w_min) / rng_) ** dev.gamma_down[k]
    if law == "piecewise":       # rpu_piecewisestep_device.cpp, lines 43-71
        vec = par["piecewise_up"] if d > 0 else par["piecewise_down"]
        n_sections = len(par["piecewise_up"]) - 1
        if n_sections <= 0 or w_max <= w_min:
            return vec[0]
        w_scaled = max((w - w_min) / (w_max - w_min) * n_sections, 0.0)
        i = min(int(math.floor(w_scaled)), n_sections - 1)
        t = min(w_scaled - i, 1.0)
        return (1.0 - t) * vec[i] + t * vec[i + 1]
    raise ValueError(law)


def update_once(dev: Devices, k: int, w: float, d: int, xi: float = 0.0) -> float:
    """Device ``k``'s persistent weight after one pulse in direction ``d`` from ``w``, ``xi`` its
    cycle-to-cycle normal draw; then clipped to its bounds (every update_once ends so)."""
    par = dev.par
    scale = dev.scale_up[k] if d > 0 else dev.scale_down[k]
    if dev.stuck[k]:
        return min(max(w, dev.w_min[k]), dev.w_max[k])
    if par["law"] == "power" and dev.w_max[k] - dev.w_min[k] == 0.0:       # rpu_powstep_device.cpp 103-105
        return w
    f = step_factor(dev, k, w, d)
    std = par["dw_min_std"]
    if par["law"] in ("linear", "soft-bounds") and not par["mult_noise"]:
        dw = scale * f + scale * std * xi          # update_once_add, rpu_linearstep_device.cpp 153-157
    else:
        dw = scale * f * (1.0 + std * xi)          # update_once_mult 126-130, and the other laws alike
    w = w + d * dw
    return min(max(w, dev.w_min[k]), dev.w_max[k])


def run(dev: Devices, w0: np.ndarray, directions: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """Every device's persistent weight after each pulse of ``directions`` (m,) +-1, from
    ``w0`` (n,): array (m + 1, n). ``rng`` draws the cycle-to-cycle noise (None: none)."""
    n = len(w0)
    out = np.empty((len(directions) + 1, n))
    out[0] = w = np.array(w0, float)
    for i, d in enumerate(directions):
        xi = rng.standard_normal(n) if rng is not None else np.zeros(n)
        w = np.array([update_once(dev, k, w[k], int(d), xi[k]) for k in range(n)])
        out[i + 1] = w
    return out


def write_noise(dev: Devices, w: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The apparent weight after an update: ``w + write_noise_std * dw_min * xi``
    (rpu_linearstep_device.cpp 134-136; ``getScaledWriteNoise`` is ``write_noise_std * dw_min``)."""
    return w + dev.par["write_noise_std"] * dev.par["dw_min"] * rng.standard_normal(len(w))


def update(dev: Devices, w: np.ndarray, apparent: np.ndarray, counts: np.ndarray, directions: np.ndarray,
           xi_write: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One update of every device, as ``doDenseUpdate`` runs it (PULSED_UPDATE_W_LOOP_DENSE,
    src/rpucuda/rpu_pulsed_device.h, lines 461-473): device ``k`` gets ``counts[k]`` coincidences
    in direction ``directions[k]``; a device without one is not visited. Each coincidence is
    one ``update_once`` on the persistent weight ``w`` (clipped to the bounds), then, with write
    noise, the apparent weight is drawn anew from it, unclipped: ``w_apparent = w +
    write_noise_std * dw_min * xi`` (rpu_expstep_device.cpp, lines 51-52; rpu_linearstep_device.cpp,
    lines 134-135 and 161-162), ``xi = xi_write[k, i]`` at its ``i``-th pulse, the last standing.
    No cycle-to-cycle noise here. Returns new arrays (w, apparent)."""
    w, apparent = np.array(w, float), np.array(apparent, float)
    std = dev.par["write_noise_std"] * dev.par["dw_min"]        # getScaledWriteNoise, rpu_pulsed_device.h 104
    for k in range(len(w)):
        for i in range(int(counts[k])):
            w[k] = update_once(dev, k, w[k], int(directions[k]))
            if std > 0.0:
                apparent[k] = w[k] + std * xi_write[k, i]
    return w, apparent


def apply_update_write_noise(dev: Devices, w: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """``PulsedRPUDevice::applyUpdateWriteNoise`` (rpu_pulsed_device.cpp, lines 573-585): every
    apparent weight drawn anew from its persistent weight, unclipped, moved or not. Called after
    ``decayWeights`` (lines 388, 419), ``driftWeights`` (428), ``diffuseWeights`` (445),
    ``clipWeights`` (466), ``resetCols`` (493) and ``onSetWeights`` (565), never by an update."""
    return np.asarray(w, float) + dev.par["write_noise_std"] * dev.par["dw_min"] * np.asarray(xi, float)


def drift(w0: np.ndarray, dt_over_t0: float, nu: float, a: float = 0.0) -> np.ndarray:
    """``WeightDrifter::apply`` (src/rpucuda/weight_drifter.cpp, lines 144-147): ``delta_t =
    max(dt / t0, 1)``, ``w0 * delta_t ** -nu + a * (delta_t ** -nu - 1)``."""
    s = max(dt_over_t0, 1.0) ** -nu
    return w0 * s + a * (s - 1.0)


def populate_diffusion_and_reset(par: dict, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Each of n devices' diffusion rate and reset bias as ``populate`` draws them
    (rpu_pulsed_device.cpp, lines 707-718): ``|diffusion (1 + diffusion_dtod xi)|`` and
    ``reset + reset_dtod xi``."""
    rate = np.abs(par["diffusion"] * (1.0 + par["diffusion_dtod"] * rng.standard_normal(n)))    # line 709
    bias = par["reset"] + par["reset_dtod"] * rng.standard_normal(n)                             # line 716
    return rate, bias


def diffuse(w: np.ndarray, rate: np.ndarray, w_min: np.ndarray, w_max: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """``PulsedRPUDevice::diffuseWeights`` (rpu_pulsed_device.cpp, lines 433-446) on the
    persistent weights: ``w += rate * xi``, then ``MIN`` with the upper bound and ``MAX`` with
    the lower. aihwkit's tile calls it once a mini-batch, after the update
    (src/aihwkit/simulator/tiles/rpucuda.py, lines 486-497, ``post_update_step``)."""
    w = w + rate * xi                   # line 441
    w = np.minimum(w, w_max)            # line 442
    return np.maximum(w, w_min)         # line 443


def reset(bias: np.ndarray, reset_std: float, w_min: np.ndarray, w_max: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """``PulsedRPUDevice::resetCols`` with ``reset_prob`` 1 (rpu_pulsed_device.cpp, lines
    470-495): ``w = bias + (reset_std > 0 ? reset_std * xi : 0)``, then the bounds."""
    w = bias + (reset_std * xi if reset_std > 0 else 0.0)     # lines 485-486
    w = np.minimum(w, w_max)                                  # line 487
    return np.maximum(w, w_min)                               # line 488


# -- aihwkit's PCM noise model for inference (Python, not C++) ----------------------------------------
# src/aihwkit/inference/noise/pcm.py and src/aihwkit/inference/converter/conductance.py at COMMIT,
# in aihwkit's conductance units (uS), torch written as numpy.

#: PCMLikeNoiseModel's defaults (pcm.py, lines 64-98): prog_coeff at a 25 uS reference (lines 89-90),
#: t_read 250 ns, t_0 20 s, the converter's g_max 25 uS (conductance.py, line 37).
PCM_DEFAULTS = dict(prog_coeff=(0.26348, 1.9650, -1.1731), prog_coeff_g_max_reference=25.0, g_max=25.0,
                    t_read=250.0e-9, t_0=20.0, prog_noise_scale=1.0, read_noise_scale=1.0)


def to_conductances(weights: np.ndarray, g_max: float = 25.0, g_min: float = 0.0) -> tuple[list, float]:
    """``SinglePairConductanceConverter.convert_to_conductances`` (conductance.py, lines 54-65): the
    largest |weight| maps to ``g_max``; the positive part on the first device, the negative on the
    second, each clamped to [0, g_max], plus ``g_min``. Returns the pair and ``scale_ratio``."""
    abs_max = np.abs(weights).max()
    scale_ratio = (g_max - g_min) / max(abs_max, 1e-7)                              # line 56 (_ZERO_CLIP)
    scaled = weights * scale_ratio
    return [np.clip(scaled, 0.0, g_max) + g_min, np.clip(-scaled, 0.0, g_max) + g_min], scale_ratio


def from_conductances(pair: list, scale_ratio: float, g_min: float = 0.0) -> np.ndarray:
    """``convert_back_to_weights`` (conductance.py, lines 67-78): ``(g+ - g_min - (g- - g_min)) / scale_ratio``."""
    return ((pair[0] - g_min) - (pair[1] - g_min)) / scale_ratio


def programming_noise(g_target: np.ndarray, xi: np.ndarray, par: dict = PCM_DEFAULTS) -> np.ndarray:
    """``PCMLikeNoiseModel.apply_programming_noise_to_conductance`` (pcm.py, lines 101-118), the
    normal numbers given: ``sig_prog = sum_i c_i (g / g_max) ** i``, times ``g_max / reference``;
    ``g + prog_noise_scale sig_prog xi``, clamped at 0."""
    coeff = par["prog_coeff"]
    mat = 1.0
    sig_prog = coeff[0] * np.ones_like(g_target)                     # line 109
    for c in coeff[1:]:                                              # lines 110-112
        mat = mat * g_target / par["g_max"]
        sig_prog = sig_prog + mat * c
    sig_prog = sig_prog * par["g_max"] / par["prog_coeff_g_max_reference"]          # line 114
    return np.maximum(g_target + par["prog_noise_scale"] * sig_prog * xi, 0.0)       # lines 115-116


def read_noise(g_prog: np.ndarray, nu: np.ndarray, t_inference: float, xi: np.ndarray,
               par: dict = PCM_DEFAULTS) -> np.ndarray:
    """``PCMLikeNoiseModel.apply_drift_noise_to_conductance`` (pcm.py, lines 132-158), the normal
    numbers given: drift ``g_prog (t / t_0) ** -nu`` for ``t = t_inference + t_0 > t_0``; then the 1/f
    noise ``g_drift + |g_drift| read_noise_scale sig_noise xi``, ``sig_noise = q_s sqrt(ln((t + t_read)
    / (2 t_read)))``, ``q_s = min(0.0088 / max((|g_prog| / g_max) ** 0.65, 1e-3), 0.2)``; clamped at 0."""
    t = t_inference + par["t_0"]                                                      # line 138
    g_drift = g_prog * (t / par["t_0"]) ** (-nu) if t > par["t_0"] else g_prog       # lines 141-144
    if not t > 0:
        return np.maximum(g_prog, 0.0)
    q_s = np.minimum(0.0088 / np.maximum((np.abs(g_prog) / par["g_max"]) ** 0.65, 1e-3), 0.2)     # lines 148-150
    sig_noise = q_s * math.sqrt(math.log((t + par["t_read"]) / (2 * par["t_read"])))               # line 151
    g_final = g_drift + np.abs(g_drift) * par["read_noise_scale"] * sig_noise * xi                 # lines 152-154
    return np.maximum(g_final, 0.0)                                                                # line 158
