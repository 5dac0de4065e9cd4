"""How much the machine holds at once: shared by the machine, which keeps to it, and the
scene's resource estimate, which reckons with it (so loading a scene needs no simpy or numba)."""

from __future__ import annotations

__all__ = ["SENSE_CHUNK", "LIGHT_KEPT_BYTES"]

#: Cards read through the retina at once when sensing or scoring (memory for one chunk).
SENSE_CHUNK = 4096
#: A deck whose light (float64 per photocell) fits in this is imaged once, up front;
#: a larger one is imaged a block of presentations at a time (``mark_i._DeckLight``).
LIGHT_KEPT_BYTES = 64 * 2**20
