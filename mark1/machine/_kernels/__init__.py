"""The machine's compiled kernels: the physics of a pot and the step of one presentation.

No SimPy here. :mod:`.pots` holds a pot's law (its plan, its position mid-move, the sums
read off the wipers); :mod:`.presentation` the step of one card and the compiled loop
that runs it over a block, with the driver queue. The rack
(:class:`mark1.machine.potentiometers.PotentiometerRack`), the simulator and the
textbook perceptron's sums (:func:`mark1.machine.perceptron.sparse_sums`, called from
here) share them.
"""

#: Where each field of the rack's and the timing's specs (:class:`mark1.specs.RackSpec`,
#: :class:`mark1.specs.TimingSpec`) acts: ``True`` and the record it reaches the kernels
#: through, or ``False`` and where it acts instead (tests/test_kernels.py keeps this whole
#: and checks that every field marked ``True`` changes a run).
SPEC_FIELDS = {
    "rack.topology": (False, "which pots exist: the rack's mask (Block.mask), read by the kernel, built by the rack"),
    "rack.end_stops": (True, "Drive.end_stops"),
    "rack.drive": (True, "Drive.continuous"),
    "rack.motor_speed": (True, "Drive.motor_speed"),
    "rack.step": (True, "Drive.step"),
    "rack.step_time": (True, "Drive.step_time"),
    "rack.motor_spread": (False, "each motor's speed, Pots.gain, drawn once when the machine is built"),
    "rack.backlash": (True, "Drive.backlash"),
    "rack.wiper_noise": (False, "the read noise, Block.kick, drawn by the simulator's noise stream"),
    "rack.decay_time": (True, "Decay.rate, Decay.decay_time"),
    "rack.drivers": (True, "Schedule.queued and the drivers of Queue.free"),
    "rack.bias": (False, "whether the bias pots exist: the rack's mask, like topology"),
    "rack.law": (True, "Drive.law, Drive.device (pots.law_factor in pots.plan_device)"),
    "rack.up_down": (True, "Pots.up_down (one shared value, or drawn per pot with up_down_dtod)"),
    "rack.w_max": (True, "Pots.w_max, Drive.w_max (the end stops and the laws' bounds)"),
    "rack.w_min": (True, "Pots.w_min, Drive.w_min"),
    "rack.gamma_up": (True, "Drive.gamma_up"),
    "rack.gamma_down": (True, "Drive.gamma_down"),
    "rack.A_up": (True, "Drive.A_up"),
    "rack.A_down": (True, "Drive.A_down"),
    "rack.exp_a": (True, "Drive.exp_a"),
    "rack.exp_b": (True, "Drive.exp_b"),
    "rack.pow_gamma": (True, "Drive.pow_gamma"),
    "rack.pow_up_down": (True, "Drive.pow_up_down"),
    "rack.piecewise_up": (True, "Drive.piecewise_up"),
    "rack.piecewise_down": (True, "Drive.piecewise_down"),
    "rack.dw_min_dtod": (False, "each pot's step, Pots.step_scale, drawn once when the machine is built"),
    "rack.up_down_dtod": (False, "each pot's up/down bias, Pots.up_down, drawn once when the machine is built"),
    "rack.w_max_dtod": (False, "each pot's upper bound, Pots.w_max, drawn once when the machine is built"),
    "rack.w_min_dtod": (False, "each pot's lower bound, Pots.w_min, drawn once when the machine is built"),
    "rack.dw_min_std": (True, "Drive.dw_min_std, with Drive.noise_key (the rack's, from the noise stream)"),
    "rack.write_noise_std": (True, "Drive.write_noise, Pots.werr"),
    "rack.corrupt_devices_prob": (False, "which pots are stuck, Pots.stuck, drawn once when the machine is built"),
    "rack.drift_nu": (True, "Pots.nu (pots.drift_factor in stored_pot)"),
    "rack.drift_nu_dtod": (False, "each pot's drift exponent, Pots.nu, drawn once when the machine is built"),
    "rack.drift_t0": (True, "Pots.drift_t0"),
    "rack.out_bound": (True, "Pots.adc (pots.read_out in read_card; the event path and scoring: read_out_array)"),
    "rack.out_res": (True, "Pots.adc"),
    "timing.period": (True, "Schedule.period"),
    "timing.card_change": (True, "Schedule.read_at (and the photocells' lit time, outside)"),
    "timing.settle": (True, "Schedule.read_at (and the S-units' sampling, outside)"),
    "timing.a_delay": (True, "Schedule.read_at"),
    "timing.r_delay": (True, "Schedule.read_at"),
    "timing.overlap": (True, "Schedule.overlap"),
}
