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
    "timing.period": (True, "Schedule.period"),
    "timing.card_change": (True, "Schedule.read_at (and the photocells' lit time, outside)"),
    "timing.settle": (True, "Schedule.read_at (and the S-units' sampling, outside)"),
    "timing.a_delay": (True, "Schedule.read_at"),
    "timing.r_delay": (True, "Schedule.read_at"),
    "timing.overlap": (True, "Schedule.overlap"),
}
