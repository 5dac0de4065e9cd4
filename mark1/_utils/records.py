"""Values made safe for JSON records."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["jsonable"]


def jsonable(obj):
    """``obj`` with numpy scalars made plain, non-finite floats written as strings, and objects
    that know their JSON form (``as_dict()``, as :class:`mark1.stats.Interval`) written in it."""
    if hasattr(obj, "as_dict") and callable(obj.as_dict):
        return jsonable(obj.as_dict())
    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    return obj
