"""The potentiometer rack: wipers, end stops, and the motors that turn them.

Each weight is the wiper position of a potentiometer, in full-scale fractions
(±1 full scale is about ±11 V at the wiper). A reinforcement is a *pulse* to a motor:

* continuous drive: the trainer powers the motor for ``|command| / motor_speed``
  seconds; a motor with speed spread runs at ``motor_speed * gain`` and so travels
  ``gain * |command|``;
* ratchet drive: the relay gives ``round(|command| / step)`` steps of ``step`` full
  scale, one every ``step_time`` seconds (the gear turns evenly within a step);
* backlash: when a motor reverses, the first ``backlash`` of its travel only takes up
  the slack in the gears; the wiper stays put meanwhile;
* end stops: the wiper stops at ±1; a limit switch cuts the motor there (assumed),
  so the move ends early and its duration shows it;
* wiper noise: every read of a wiper adds fresh Gaussian noise;
* decay: every wiper relaxes towards 0 with ``decay_time``, continuously (moving or not).
* device laws (``rack.law`` and aihwkit's parameters): a pulse's travel may
  depend on the wiper's position and direction, vary from pot to pot (step, bounds,
  asymmetry, stuck pots: drawn once, :meth:`PotentiometerRack.device_arrays`) and from
  pulse to pulse (step noise, write noise: counter-based streams); a wiper at rest may
  drift as a power law of the time since its last move; the R-unit may read its sums
  through a saturating, quantizing ADC (``docs/guide/devices.rst``);
* energy's counters: :attr:`PotentiometerRack.motor_seconds` (running time of each pot's
  motor) and :attr:`PotentiometerRack.pulses` (steps or device pulses each pot received),
  written by the kernel as the pots move.

Time: one SimPy timeout per drive command (all pots of a command move at once, each
at its own speed); a wiper's position between events is computed in closed form
(linear in time) when it is read. With a driver limit, each move waits for a free
driver and the moves queue, first come first served (the presentation kernel's queue,
:func:`mark1.machine._kernels.presentation.serve`, the one the simulator's runs use). A
pot's law (its plan, its position mid-move, the sums read off the wipers) is written once, compiled, in
:mod:`mark1.machine._kernels.pots`, so that the simulator's compiled loop reads exactly
what :meth:`PotentiometerRack.sums` and :meth:`PotentiometerRack.plan` read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator

import numpy as np
import simpy

from mark1.exceptions import SpecError
from mark1.machine._kernels.pots import (Pots, adc_of, apply_moves, drive_of, law_gammas, move_duration, plan_moves,
                                         pow_exponents, read_noise_array, read_noise_of, reset_positions, step_scales,
                                         stored_at, wiper_sums, wiring)
from mark1.machine._kernels.presentation import Decay, Moves, Queue, serve
from mark1.specs import RackSpec

__all__ = ["PotentiometerRack"]


class PotentiometerRack:
    """The pots between the A-units (plus bias) and the R-units in use.

    Parameters
    ----------
    spec : RackSpec
    n_units : int
        R-units in use.
    n_inputs : int
        A-units plus the bias unit (n_a + 1); the bias unit is last.
    n_responses : int
        R-units on the machine (for the split topology: A-unit groups).
    gain : array of shape (n_units, n_inputs), optional
        Each motor's speed relative to nominal (motor spread); ones when omitted.
    device_seed : numpy.random.SeedSequence, optional
        Where the pots' own device spread is drawn from (``rack.dw_min_dtod``,
        ``up_down_dtod``, ``w_max_dtod``, ``w_min_dtod``, ``corrupt_devices_prob``): each
        array from a child of its own (:meth:`device_arrays`); the machine passes its
        device-spread stream (the one the motor gains come from). ``SeedSequence(0)`` when
        omitted and a spread is on.
    noise_seed : numpy.random.SeedSequence, optional
        Where the key of the device's noise streams comes from (``rack.dw_min_std``,
        ``rack.write_noise_std``: :func:`mark1.machine._kernels.pots.normal_draw`); the
        machine passes its noise stream, so ``noise_seed`` changes them and nothing else.
        ``SeedSequence(0)`` when omitted.

    Attributes
    ----------
    mask : array of shape (n_units, n_inputs) bool
        Which pots exist.
    p_from, p_to : arrays of shape (n_units, n_inputs)
        Wiper position at the start and end of its current (or last) move, in units
        that decay scales: the true position at time t is ``decay_factor(t) * p``.
    t_start, t_end : arrays of shape (n_units, n_inputs)
        When that move's wiper motion starts and ends (s of machine time).
    busy_until : float
        Machine time (s) when the last wiper set going stops.
    on_move : callable or None
        Trace hook, called as ``on_move(time, event, detail)`` when motors start, queue
        and stop (the simulator sets it for a full trace).
    motor_seconds : array of shape (n_units, n_inputs) float
        Seconds each pot's motor (or relay) has run so far, backlash included (a view, read only).
    pulses : array of shape (n_units, n_inputs) int64
        Pulses each pot has received: ratchet steps or device pulses fired, one a command
        on the continuous drive (a view, read only). Energy is ``power * motor_seconds``
        (motors) or ``pulses * energy per pulse`` (devices: :mod:`mark1.devices`).

    Examples
    --------
    One R-unit, two A-units and the bias; the first pot is told to turn 0.02 full scale
    at t = 0 s. At 0.25 full scale per second the wiper gets there 0.08 s later:

    >>> from mark1.specs import RackSpec
    >>> rack = PotentiometerRack(RackSpec(decay_time=float("inf")), 1, 3, 1)
    >>> move = rack.plan(np.array([[0.02, 0.0, 0.0]]), 0.0)
    >>> rack.apply(*move, 0.0)
    >>> round(rack.busy_until, 6)
    0.08
    >>> rack.positions(0.04).round(4), rack.positions(1.0).round(4)
    (array([[0.01, 0.  , 0.  ]]), array([[0.02, 0.  , 0.  ]]))
    >>> float(rack.sums(np.array([1.0, 0.0, 1.0]), 1.0)[0])
    0.02
    """

    def __init__(self, spec: RackSpec, n_units: int, n_inputs: int, n_responses: int,
                 gain: np.ndarray | None = None, *, device_seed: np.random.SeedSequence | None = None,
                 noise_seed: np.random.SeedSequence | None = None) -> None:
        self.spec = spec
        shape = (n_units, n_inputs)
        self.mask = np.ones(shape, dtype=bool)
        if spec.topology == "split":
            n_a = n_inputs - 1
            per = n_a // n_responses
            self.mask[:] = False
            for k in range(n_units):
                self.mask[k, k * per:(k + 1) * per] = True
            self.mask[:, -1] = True                       # each R-unit keeps its bias pot
        elif spec.topology == "split-in-use" and n_units > 1:
            # one pot per A-unit, the A-units divided among the R-units in use: unit k gets
            # floor(k n/u) .. floor((k+1) n/u) - 1 (512 over 5: 102, 102, 103, 102, 103)
            n_a = n_inputs - 1
            if n_a < n_units:
                raise SpecError("rack.topology", f"'split-in-use' needs an A-unit for each of the {n_units} "
                                f"R-units in use, got {n_a} A-units")
            edges = [k * n_a // n_units for k in range(n_units + 1)]
            self.mask[:] = False
            for k in range(n_units):
                self.mask[k, edges[k]:edges[k + 1]] = True
            self.mask[:, -1] = True                       # each R-unit keeps its bias pot
        if not spec.bias:
            self.mask[:, -1] = False                      # no bias pot: it never moves and adds 0
        self._full = bool(self.mask.all())
        self._wiring, self._wired = wiring(self.mask), self.mask.copy()
        self.gain = np.ones(shape) if gain is None else np.asarray(gain, float)
        self.p_from = np.zeros(shape)
        self.p_to = np.zeros(shape)
        self.t_start = np.zeros(shape)
        self.t_end = np.zeros(shape)
        self.last_dir = np.zeros(shape, dtype=np.int8)
        # the device's own arrays (one element where every pot shares the value) and counters
        dev = self.device_arrays(spec, shape, np.random.SeedSequence(0) if device_seed is None else device_seed)
        (self._step_scale, self._up_down, self._w_max, self._w_min, self._gamma_up, self._gamma_down, self._stuck,
         self._nu, self._diffusion, reset_bias) = dev
        self._drift = np.array([float(spec.drift_t0), float(spec.g_zero)])
        if spec.corrupt_devices_prob:                     # a stuck pot sits at its value from the start
            self.p_from[:] = self.p_to[:] = np.where(self._stuck == 1, self._w_max, 0.0)
        self._adc = adc_of(spec)
        # the wipers' offsets from their persistent positions: write noise, programming noise
        self._werr = np.zeros(shape if spec.write_noise_std or spec.prog_noise_scale else 0)
        noise_key = self.noise_key(noise_seed)
        self._read_noise, self._read_key = read_noise_of(spec), np.array([noise_key], np.uint64)
        if reset_bias.size:                 # the machine's one reset, when it is built: the pots that exist
            start, werr = reset_positions(spec, reset_bias, self._w_max, self._w_min, self._stuck, shape, noise_key)
            self.p_from[:] = self.p_to[:] = np.where(self.mask, start, 0.0)
            if self._werr.size:
                self._werr[:] = np.where(self.mask, werr, 0.0)
        self._next_err = np.zeros(self._werr.size)
        self._motor_seconds = np.zeros(shape)
        self._pulses = np.zeros(shape, np.int64)
        self._planned = np.zeros(n_units * n_inputs, np.int64)
        self.busy_until = 0.0
        # decay: every wiper's true position is decay_factor(t) * its stored position
        self.rate = 0.0 if math.isinf(spec.decay_time) else 1.0 / spec.decay_time
        self.t_ref = 0.0
        # the driver queue of drive() (the presentation kernel's), for one SimPy environment
        self._drivers_env: simpy.Environment | None = None
        self._commands: dict[int, list] = {}
        self._next_command = 0
        self.on_move: Callable | None = None              # trace hook: f(time, event, detail)
        #: the drive's constants as the kernel reads them (:class:`mark1.machine._kernels.pots.Drive`)
        self.drive_constants = drive_of(spec)._replace(noise_key=noise_key)

    @property
    def pots(self) -> Pots:
        """The rack's per-pot arrays as the kernels take them: flat views, written in place."""
        if not np.array_equal(self.mask, self._wired):       # rewired since (a bench row wires every pot)
            self._wiring, self._wired = wiring(self.mask), self.mask.copy()
        return Pots(self.gain.reshape(-1), self.p_from.reshape(-1), self.p_to.reshape(-1),
                    self.t_start.reshape(-1), self.t_end.reshape(-1), self.last_dir.reshape(-1),
                    self._step_scale.reshape(-1), self._up_down.reshape(-1), self._w_max.reshape(-1),
                    self._w_min.reshape(-1), self._gamma_up.reshape(-1), self._gamma_down.reshape(-1),
                    self._stuck.reshape(-1), self._werr.reshape(-1),
                    self._motor_seconds.reshape(-1), self._pulses.reshape(-1), self._planned, self._next_err,
                    self._nu.reshape(-1), self._drift, self._diffusion.reshape(-1), self._adc, self._read_noise,
                    self._read_key, *self._wiring)

    @property
    def adc(self) -> np.ndarray | None:
        """The R-unit's read of its sums, [out_bound, out_res] (:func:`mark1.machine._kernels.pots.read_out`),
        or None where the read is exact (no saturation, no quantization)."""
        return None if self._adc[0] == math.inf and self._adc[1] == 0.0 else self._adc

    @property
    def drifts(self) -> bool:
        """Whether the wipers drift (``rack.drift_nu``): a wiper at rest then reads less than
        ``p_to``, so a reader must go through :meth:`positions` or :meth:`sums`."""
        return self._nu.size > 0

    @property
    def diffuses(self) -> bool:
        """Whether the wipers diffuse (``rack.diffusion``): every pot takes a random step each
        presentation, which no move records, so a past position cannot be rebuilt from the moves."""
        return self._diffusion.size > 0

    @property
    def motor_seconds(self) -> np.ndarray:
        """Seconds each pot's motor (or relay) has run: array (n_units, n_inputs), read only.

        The sum of the durations of every move set going (:func:`~mark1.machine._kernels.pots.apply_pot`),
        the slack of backlash included; a move the end stop cuts counts until the cut.
        Energy of a motor: its power times these seconds.
        """
        view = self._motor_seconds.view()
        view.flags.writeable = False
        return view

    @property
    def pulses(self) -> np.ndarray:
        """Pulses each pot has received: array (n_units, n_inputs) int64, read only.

        Ratchet: steps fired (a command of n steps fires n, fewer where the limit switch
        cuts the relay at an end stop); continuous drive: 1 a command; device laws: each
        pulse of the train. A stuck pot's pulses count. Energy of a device: these times its
        energy per pulse (:data:`mark1.devices.PRESETS`).
        """
        view = self._pulses.view()
        view.flags.writeable = False
        return view

    @property
    def write_offset(self) -> np.ndarray:
        """How far each wiper reads off its persistent position by write noise (full scale,
        stored like ``p_to``): array (n_units, n_inputs), zeros without write noise."""
        return self._werr.copy() if self._werr.size else np.zeros_like(self.p_to)

    #: spawn-key elements of the device's streams (a child of the seed given: never one
    #: another part of the machine spawns)
    DEVICE_STREAM, NOISE_STREAM = 0x44455649, 0x4E4F4953

    @classmethod
    def device_arrays(cls, spec: RackSpec, shape: tuple[int, int], seed: np.random.SeedSequence
                      ) -> tuple[np.ndarray, ...]:
        """Draw each pot's device spread as aihwkit's ``populate`` draws it (commit 4545f11).

        Each array comes from a child seed of its own, ``SeedSequence(seed.entropy,
        spawn_key=seed.spawn_key + (DEVICE_STREAM, k))``, so turning one spread on changes
        no other array and no other stream of the machine. An array without spread has
        one element, shared by every pot.

        Returns
        -------
        step_scale, up_down : the mean and half the difference of each pot's up and down
            scales, ``gain = 1 + dw_min_dtod * xi`` (``exp(dw_min_dtod * xi)`` with
            ``dw_min_dtod_log_normal``) and ``up_down`` one-sided, ``up_down_dtod * xi``
            added, each scale made positive (:func:`mark1.machine._kernels.pots.step_scales`;
            rpu_pulsed_device.cpp, lines 600-634)
        w_max, w_min : ``w_max * (1 + w_max_dtod * xi)``, ``w_min`` alike (measured from
            ``g_zero``), swapped where they cross and put on their sides of ``g_zero``
            (``enforce_consistency``, lines 618-640), then cut at the pot's end stops +-1; a
            stuck pot's are both its value
        gamma_up, gamma_down : the linear law's slopes ``|gamma + gamma_dtod * xi|``
            (rpu_linearstep_device.cpp, lines 35-42) or the power law's exponents
            (:func:`mark1.machine._kernels.pots.pow_exponents`)
        stuck : int8, 1 with probability ``corrupt_devices_prob``; its value uniform in
            ``g_zero +- corrupt_devices_range`` cut to its bounds (rpu_pulsed_device.cpp, lines 684-695)
        nu : ``drift_nu * (1 + drift_nu_dtod * xi)``, at least 0; empty without drift
        diffusion : ``|diffusion * (1 + diffusion_dtod * xi)|`` (rpu_pulsed_device.cpp, line
            709); empty without diffusion
        reset_bias : ``reset + reset_dtod * xi`` (line 716), from ``g_zero``; empty without reset

        Examples
        --------
        >>> from mark1.specs import RackSpec
        >>> a = PotentiometerRack.device_arrays(RackSpec(dw_min_dtod=0.3), (2, 3), np.random.SeedSequence(1))
        >>> a[0].shape, a[2].shape
        ((2, 3), (1, 1))
        """
        def rng(k):
            return np.random.default_rng(np.random.SeedSequence(seed.entropy,
                                                                spawn_key=(*seed.spawn_key, cls.DEVICE_STREAM, k)))
        one = (1, 1)
        if spec.dw_min_dtod:
            xi = rng(0).standard_normal(shape)
            gain = np.exp(spec.dw_min_dtod * xi) if spec.dw_min_dtod_log_normal else 1.0 + spec.dw_min_dtod * xi
        else:
            gain = np.ones(one)
        r = spec.up_down_dtod * rng(1).standard_normal(shape) if spec.up_down_dtod else np.zeros(one)
        step_scale, up_down = step_scales(gain, spec.up_down, r)
        w_max, w_min, stuck = cls._bounds(spec, shape, rng)
        gamma_up, gamma_down = cls._law_parameters(spec, shape, rng)
        if spec.drift_nu == 0:
            nu = np.zeros((0, 0))
        elif spec.drift_nu_dtod:
            nu = np.maximum(spec.drift_nu * (1.0 + spec.drift_nu_dtod * rng(5).standard_normal(shape)), 0.0)
        else:
            nu = np.full(one, spec.drift_nu)
        if spec.diffusion == 0:
            diffusion = np.zeros((0, 0))
        elif spec.diffusion_dtod:
            diffusion = np.abs(spec.diffusion * (1.0 + spec.diffusion_dtod * rng(8).standard_normal(shape)))
        else:
            diffusion = np.full(one, spec.diffusion)
        if not (spec.reset or spec.reset_dtod or spec.reset_std):
            reset_bias = np.zeros((0, 0))
        elif spec.reset_dtod:
            reset_bias = spec.reset + spec.reset_dtod * rng(9).standard_normal(shape)
        else:
            reset_bias = np.full(one, float(spec.reset))
        arrays = (np.array(a, float) for a in (step_scale, up_down, w_max, w_min, gamma_up, gamma_down))
        return (*arrays, stuck, nu, diffusion, reset_bias)

    @staticmethod
    def _bounds(spec: RackSpec, shape: tuple[int, int], rng: Callable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each pot's bounds and whether it is stuck (:meth:`device_arrays`; ``rng(k)`` its k-th stream)."""
        one = (1, 1)
        g0 = spec.g_zero                                  # aihwkit's weight 0: bounds spread about it
        if spec.w_max_dtod or spec.w_min_dtod:
            w_max = (spec.w_max - g0) * (1.0 + spec.w_max_dtod * rng(2).standard_normal(shape))
            w_min = (spec.w_min - g0) * (1.0 + spec.w_min_dtod * rng(3).standard_normal(shape))
            w_max, w_min = np.maximum(w_max, w_min), np.minimum(w_max, w_min)
            w_max, w_min = np.minimum(np.abs(w_max) + g0, 1.0), np.maximum(g0 - np.abs(w_min), -1.0)
        else:
            w_max, w_min = np.full(one, spec.w_max), np.full(one, spec.w_min)
        if not spec.corrupt_devices_prob:
            return w_max, w_min, np.zeros(one, np.int8)
        draw = rng(4)
        stuck = (draw.random(shape) < spec.corrupt_devices_prob).astype(np.int8)
        value = draw.random(shape)
        lo = np.maximum(np.broadcast_to(w_min, shape), g0 - spec.corrupt_devices_range)
        hi = np.minimum(np.broadcast_to(w_max, shape), g0 + spec.corrupt_devices_range)
        value = lo + (hi - lo) * value
        return (np.where(stuck == 1, value, np.broadcast_to(w_max, shape)),
                np.where(stuck == 1, value, np.broadcast_to(w_min, shape)), stuck)

    @staticmethod
    def _law_parameters(spec: RackSpec, shape: tuple[int, int], rng: Callable) -> tuple[np.ndarray, np.ndarray]:
        """Each pot's law parameters up and down (:meth:`device_arrays`; ``rng(k)`` its k-th stream)."""
        g_up, g_down = law_gammas(spec)
        if spec.law == "power" and (spec.pow_gamma_dtod or spec.pow_up_down_dtod):
            g = 1.0 + spec.pow_gamma_dtod * rng(6).standard_normal(shape)
            rp = spec.pow_up_down_dtod * rng(7).standard_normal(shape)
            return pow_exponents(spec.pow_gamma, spec.pow_up_down, g, rp)
        if spec.law == "linear" and (spec.gamma_up_dtod or spec.gamma_down_dtod):
            return (np.abs(g_up + spec.gamma_up_dtod * rng(6).standard_normal(shape)),
                    np.abs(g_down + spec.gamma_down_dtod * rng(7).standard_normal(shape)))
        return np.full((1, 1), g_up), np.full((1, 1), g_down)

    @classmethod
    def noise_key(cls, seed: np.random.SeedSequence | None) -> np.uint64:
        """The key of the device's noise streams: a 64-bit word of a child of ``seed``
        (``spawn_key + (NOISE_STREAM,)``; ``SeedSequence(0)`` when None)."""
        seed = np.random.SeedSequence(0) if seed is None else seed
        child = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, cls.NOISE_STREAM))
        return np.uint64(child.generate_state(1, np.uint64)[0])

    @staticmethod
    def motor_gains(spec: RackSpec, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        """Draw each motor's speed relative to nominal: 1 + motor_spread * N(0, 1), kept above 0.1."""
        if spec.motor_spread == 0:
            return np.ones(shape)
        return np.maximum(1.0 + spec.motor_spread * rng.standard_normal(shape), 0.1)

    def move_duration(self, travel: float, gain: float = 1.0) -> float:
        """Seconds a motor of relative speed ``gain`` takes to turn a pot ``travel`` full scale
        (no backlash, no end stop): the machine's law (:func:`mark1.machine._kernels.pots.plan_pot`),
        so that a plot of the machine never computes it another way.

        Examples
        --------
        >>> from mark1.specs import RackSpec
        >>> PotentiometerRack(RackSpec(), 1, 3, 1).move_duration(0.02)
        0.08
        """
        return move_duration(self.spec, travel, gain)

    # -- reading ----------------------------------------------------------------------
    @property
    def n_pots(self) -> int:
        """How many pots the rack has (its topology's wired pots)."""
        return int(self.mask.sum())

    def active_pots(self, x: np.ndarray) -> np.ndarray:
        """How many pots of each unit inputs ``x`` (n, n_inputs), 0 or 1 with the bias
        last, make active: array (n, n_units) float, exact counts."""
        if self._full:                   # every unit has every pot: the inputs that are on
            on = np.count_nonzero(x, axis=1).astype(float)
            return np.broadcast_to(on[:, None], (len(x), self.mask.shape[0]))
        return x @ self.mask.T.astype(float)

    def decay_factor(self, t: float) -> float:
        """How much every wiper has shrunk by decay since the stored positions were set."""
        return math.exp(-(t - self.t_ref) * self.rate) if self.rate else 1.0

    def _stored(self, t: float) -> np.ndarray:
        if t >= self.busy_until and not self._nu.size:
            return self.p_to
        return self._stored_pots(np.arange(self.p_to.size), t).reshape(self.p_to.shape)

    def _stored_pots(self, flat: np.ndarray, t: float) -> np.ndarray:
        """Stored positions (before decay) of pots ``flat`` (flat indices) at ``t``: array (m,)."""
        out = np.empty(len(flat))
        stored_at(flat.astype(np.int64, copy=False), float(t), self.busy_until, self.pots, out)
        return out

    def positions(self, t: float, inputs: np.ndarray | None = None) -> np.ndarray:
        """True wiper positions at machine time ``t``: a new array (n_units, n_inputs), or
        (n_units, len(inputs)) of the pots of ``inputs`` (indices) only."""
        stored = self._stored(t)
        if inputs is not None:
            stored = stored[:, inputs]         # a copy, the same numbers
        if self.rate:
            return self.decay_factor(t) * stored
        return stored.copy() if inputs is None else stored   # never the rack's own array, which moves on

    def sums(self, x: np.ndarray, t: float, presentation: int = 0) -> np.ndarray:
        """Each R-unit's sum of wiper positions times the inputs, at time ``t``, without the
        wiper noise (``rack.wiper_noise``).

        Parameters
        ----------
        x : array of shape (n_inputs,) float
            A-unit outputs (0 or 1), bias last.
        t : float
        presentation : int
            Which presentation reads: its draws of the 1/f read noise (``rack.read_noise_scale``;
            the compiled loop's, keyed by pot and presentation).

        Read noise is added by the caller: for independent Gaussian noise of sigma
        ``wiper_noise`` on every wiper the sum's noise is ``wiper_noise * sqrt(active
        pots)`` times a standard normal draw, exactly. Each unit's products are added in
        input order over the nonzero inputs (:func:`wiper_sums`), as the simulator's
        compiled loop adds them, so both read the same bits.
        """
        x = np.ascontiguousarray(x, dtype=float)[None, :]
        s = np.empty(self.mask.shape[0])
        wiper_sums(x, 0, float(t), self.busy_until, self.pots, np.empty(x.shape[1], np.int64), s, int(presentation))
        if self.rate:
            s *= self.decay_factor(t)
        return s

    @property
    def reads_noisy(self) -> bool:
        """Whether each read of a wiper has 1/f read noise (``rack.read_noise_scale``)."""
        return self._read_noise.size > 0

    def read_positions(self, t: float, xi: np.ndarray) -> np.ndarray:
        """True wiper positions at ``t`` as one read sees them, with the 1/f read noise of
        standard normal numbers ``xi`` (n_units, n_inputs) (``rack.read_noise_scale``;
        :func:`~mark1.machine._kernels.pots.read_noise_array`, the arithmetic of the compiled
        read): a new array; the pots that do not exist read 0. Without read noise,
        :meth:`positions`.

        Examples
        --------
        >>> from mark1.specs import RackSpec
        >>> rack = PotentiometerRack(RackSpec(read_noise_scale=1.0, motor_speed=float("inf")), 1, 2, 1)
        >>> rack.apply(*rack.plan(np.array([[0.5, 0.0]]), 0.0), 0.0)
        >>> rack.read_positions(20.0, np.array([[1.0, 1.0]])).round(4)      # sigma 0.0589 at g 0.5, 20 s on
        array([[0.5295, 0.    ]])
        """
        if not self.reads_noisy:
            return self.positions(t)
        stored = self._stored(t)
        noisy = read_noise_array(stored, self.p_to, float(t) - self.t_end, xi, self._read_noise)
        noisy = np.where(self.mask, noisy, 0.0)
        return self.decay_factor(t) * noisy if self.rate else noisy

    def _renormalize(self, t: float) -> None:
        """Fold the decay into the stored positions (keeps the factor far from underflow)."""
        f = self.decay_factor(t)
        if f != 1.0:
            self.p_from *= f
            self.p_to *= f
            self.t_ref = t

    # -- moving -----------------------------------------------------------------------
    def plan(self, command: np.ndarray, now: float) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray, np.ndarray,
                                                              np.ndarray, np.ndarray, np.ndarray]:
        """Work out what the hardware does with a command, without moving anything yet.

        Parameters
        ----------
        command : array of shape (n_units, n_inputs)
            Commanded travel (full scale, signed); zero for pots that stay.
        now : float
            Machine time of the command.

        Returns
        -------
        idx : tuple of index arrays of the pots that move
        start, target : arrays (m,) wiper positions before and after
        slack_time, duration : arrays (m,) seconds of slack take-up and of the whole move
        direction : array (m,) int8
        """
        if self.rate and now - self.t_ref > 100.0 * self.spec.decay_time:
            self._renormalize(now)
        # one reinforcement moves a few hundred of the rack's pots: work on those only,
        # through flat indices (much cheaper than a pair of index arrays)
        flat = np.flatnonzero((command != 0) & self.mask)
        idx = np.divmod(flat, command.shape[1])
        cmd = command.ravel().take(flat)
        start = self._stored_pots(flat, now)
        if self.rate:
            start = self.decay_factor(now) * start
        m = len(flat)
        target, slack_time, duration = np.empty(m), np.empty(m), np.empty(m)
        direction = np.empty(m, np.int8)
        plan_moves(cmd, start, flat, self.pots, self.drive_constants, target, slack_time, duration, direction)
        return idx, start, target, slack_time, duration, direction

    def apply(self, idx: tuple[np.ndarray, np.ndarray], start: np.ndarray, target: np.ndarray, slack_time: np.ndarray,
              duration: np.ndarray, direction: np.ndarray, t0: float) -> None:
        """Set the planned moves going at machine time ``t0``.

        ``start`` and ``target`` are true positions at ``t0``; decay acts on the whole
        trajectory from then on.
        """
        flat = (idx[0] * self.mask.shape[1] + idx[1]).astype(np.int64)
        f = self.decay_factor(t0)
        self.busy_until = apply_moves(flat, start, target, slack_time, duration, direction, t0, f, self.pots,
                                      self.busy_until)

    def drive(self, env: simpy.Environment, command: np.ndarray,
              on_start: Callable | None = None) -> Generator[simpy.Event, object, None]:
        """SimPy process: carry out a command; ends when every wiper has stopped.

        Without a driver limit all motors start at once and the process is one
        timeout of the longest move. With ``drivers = N`` each move holds one of N
        drivers for its duration, in command order.

        Parameters
        ----------
        env : simpy.Environment
        command : array of shape (n_units, n_inputs)
            Commanded travel (full scale, signed); zero for pots that stay.
        on_start : callable, optional
            Called as ``on_start(t0, travel, move)`` each time pots are set going: ``t0``
            the machine time (s), ``travel`` array (m,) the travel commanded to those pots
            (full scale), ``move`` the :meth:`plan` applied to them (``idx``, ``start``,
            ``target``, ``slack_time``, ``duration``, ``direction``). Once per command
            without a driver limit; with one, once per pot, when its driver is free.

        Examples
        --------
        >>> import simpy
        >>> from mark1.specs import RackSpec
        >>> rack = PotentiometerRack(RackSpec(), 1, 3, 1)
        >>> env, started = simpy.Environment(), []
        >>> _ = env.process(rack.drive(env, np.array([[0.02, 0.0, -0.02]]),
        ...                            on_start=lambda t0, travel, move: started.append((t0, travel))))
        >>> env.run()
        >>> started
        [(0, array([ 0.02, -0.02]))]
        >>> env.now == rack.busy_until
        True
        """
        now = env.now
        plan = self.plan(command, now)
        idx, start, target, slack_time, duration, direction = plan
        if self.spec.drivers == 0 or len(duration) == 0:
            self.apply(*plan, now)
            if on_start is not None:
                on_start(now, command[idx], plan)
            if self.on_move is not None:
                self.on_move(now, "motors start",
                             f"{len(duration)} pots, longest {float(duration.max(initial=0)):.4g} s")
            longest = float(duration.max(initial=0.0))
            if longest > 0:
                yield env.timeout(longest)
            if self.on_move is not None:
                self.on_move(env.now, "motors stop", f"{len(duration)} pots")
            return
        # a driver limit: the presentation kernel's queue, first come first served, and its
        # serve (the very queue the simulator's runs use); SimPy keeps the time. A queued pot
        # keeps its position until its motor runs: it is planned when it gets its driver.
        if self._drivers_env is not env:
            self._drivers_env, self._commands, self._next_command = env, {}, 0
            self._queue = Queue(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0, np.int64),
                                np.zeros(2, np.int64), np.zeros(self.spec.drivers))
        flat = np.flatnonzero((command != 0) & self.mask)
        who = self._next_command
        self._next_command += 1
        mine = self._commands[who] = [len(flat), now, on_start]      # pots not yet set going, their end
        self._enqueue(flat, command.ravel()[flat], now, who)
        if self.on_move is not None:
            self.on_move(now, "motors queued", f"{len(flat)} pots on {self.spec.drivers} drivers")
        at = now
        while mine[0] > 0:
            self._serve(max(at, env.now))
            if mine[0] > 0:                   # the next move gets a driver when one is free
                at = float(self._queue.free.min())
                yield env.timeout(max(at - env.now, 0.0))
        del self._commands[who]
        if mine[1] > env.now:
            yield env.timeout(mine[1] - env.now)
        if self.on_move is not None:
            self.on_move(env.now, "motors stop", f"{len(flat)} pots")

    def _enqueue(self, flat: np.ndarray, cmd: np.ndarray, now: float, who: int) -> None:
        """Put a command's pots ``flat`` at the driver queue's tail (room made as needed)."""
        q, n = self._queue, len(flat)
        head, tail = int(q.ends[0]), int(q.ends[1])
        if len(q.pot) - tail < n:
            live = tail - head
            size = max(2 * len(q.pot), live + n)
            q = self._queue = q._replace(**{name: np.concatenate([getattr(q, name)[head:tail],
                                                                  np.zeros(size - live, getattr(q, name).dtype)])
                                            for name in ("pot", "cmd", "time", "who")})
            q.ends[:] = (0, live)
            tail = live
        q.pot[tail:tail + n], q.cmd[tail:tail + n], q.time[tail:tail + n], q.who[tail:tail + n] = flat, cmd, now, who
        q.ends[1] = tail + n

    def _serve(self, t: float) -> None:
        """Set going the queued moves that get a driver up to ``t`` (included), through the
        kernel's :func:`~mark1.machine._kernels.presentation.serve`; each command's caller is
        told of its pots (``on_start``) and learns when they end."""
        q = self._queue
        n = int(q.ends[1] - q.ends[0])
        log = Moves(np.zeros(n, np.int64), np.zeros(n), np.zeros(n, np.int64), np.zeros(n), np.zeros(n), np.zeros(n),
                    np.zeros(n), np.zeros(n), np.zeros(n, np.int8), np.zeros(1, np.int64))
        self.busy_until, self.t_ref = serve(float(np.nextafter(t, np.inf)), q, self.busy_until, self.t_ref,
                                            Decay(float(self.rate), float(self.spec.decay_time)), self.pots,
                                            self.drive_constants, log)
        n_in = self.mask.shape[1]
        for k in range(int(log.filled[0])):
            mine = self._commands[int(log.who[k])]
            mine[0] -= 1
            mine[1] = max(mine[1], float(log.time[k] + log.duration[k]))
            if mine[2] is not None:
                one = slice(k, k + 1)
                j = int(log.pot[k])
                mine[2](float(log.time[k]), log.cmd[one].copy(),
                        ((np.array([j // n_in]), np.array([j % n_in])), log.start[one].copy(),
                         log.target[one].copy(), log.slack_time[one].copy(), log.duration[one].copy(),
                         log.direction[one].copy()))
