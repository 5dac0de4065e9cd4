"""The machine's compiled kernels: the physics of a pot and the step of one presentation.

No SimPy here. :mod:`.pots` holds a pot's law (its plan, its position mid-move, the sums
read off the wipers); :mod:`.presentation` the step of one card and the compiled loop
that runs it over a block, with the driver queue. The rack
(:class:`mark1.machine.potentiometers.PotentiometerRack`), the simulator and the
textbook perceptron's sums (:func:`mark1.machine.perceptron.sparse_sums`, called from
here) share them.
"""
