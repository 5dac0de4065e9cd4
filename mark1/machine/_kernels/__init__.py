"""The machine's compiled kernels: the physics of a pot and the step of one presentation.

No SimPy here. :mod:`.pots` holds a pot's law (its plan, its position mid-move, the sums
read off the wipers); :mod:`.presentation` the step of one card and the compiled loop
that runs it over a block, with the driver queue; :mod:`.state` a run's records held in
one compiled object (the simulator's calls pass it, not the records); :mod:`.textbook`
the textbook perceptron's loops; :mod:`.features` the gather of a row's nonzero features
both read with. The rack (:class:`mark1.machine.potentiometers.PotentiometerRack`), the simulator
and the textbook perceptron (:mod:`mark1.machine.perceptron`) share them.
"""

import dataclasses
import re
import warnings

from mark1.exceptions import SpecError
from mark1.specs import RackSpec, TimingSpec

# The noise streams' counter-based hash (pots.normal_draw) multiplies 64-bit words modulo 2**64
# on purpose: compiled, numba wraps them silently; run as Python (NUMBA_DISABLE_JIT), numpy's
# scalars wrap them too, with the same bits, but warn.
warnings.filterwarnings("ignore", message="overflow encountered in scalar", category=RuntimeWarning,
                        module=r"mark1\.machine\._kernels\.")


def placement(cls) -> dict[str, tuple[bool, str]]:
    """Where each field of a spec group acts, from its own ``param(kernel=..., outside=...)``.

    Returns
    -------
    dict
        ``"group.field"``: ``(True, "the kernel's records it reaches")`` or ``(False, "where it
        acts instead")``.

    Examples
    --------
    >>> placement(RackSpec)["rack.step"]
    (True, 'Drive.step')
    """
    out = {}
    for f in dataclasses.fields(cls):
        kernel, outside = f.metadata.get("kernel"), f.metadata.get("outside")
        if (kernel is None) == (outside is None):      # a programming error, found at import
            raise SpecError(f"{cls._group}.{f.name}", "expected param(kernel=...) or param(outside=...), one of them")
        out[f"{cls._group}.{f.name}"] = (kernel is not None, str(kernel if kernel is not None else outside))
    return out


def copied_fields(cls, record: str) -> list[str]:
    """The fields of spec group ``cls`` whose ``param(kernel=...)`` names ``<record>.<own name>``.

    :func:`mark1.machine._kernels.pots.drive_of` copies these into :class:`.pots.Drive` by name.

    Examples
    --------
    >>> copied_fields(RackSpec, "Drive")[:3]
    ['end_stops', 'motor_speed', 'step']
    """
    return [f.name for f in dataclasses.fields(cls)
            if re.search(rf"\b{record}\.{f.name}\b", f.metadata.get("kernel") or "")]


#: Where each field of the rack's and the timing's specs (:class:`mark1.specs.RackSpec`,
#: :class:`mark1.specs.TimingSpec`) acts, as each field says in its ``param(...)``: ``True`` and
#: the record it reaches the kernels through, or ``False`` and where it acts instead
#: (tests/test_kernels.py checks that every field marked ``True`` changes a run).
SPEC_FIELDS = {**placement(RackSpec), **placement(TimingSpec)}
