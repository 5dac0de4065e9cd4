"""A measured device in, a fitted law out: ``mark1 device fit TABLE.csv``.

A researcher measures a device (a pot, a resistive cell) pulse after pulse, up and
down, and writes down its travel or conductance after each pulse. This module reads
that table, fits every step law of the rack to it, tells which law fits best (by
residuals, and by AIC and BIC, which charge each law for its parameters) and writes the
spec overrides that make the machine's pots behave like the device.

The laws are the machine's own: the predicted change of one pulse is what
:meth:`~mark1.machine.potentiometers.PotentiometerRack.plan` (the compiled pot kernel,
:mod:`mark1.machine._kernels.pots`) makes of one pulse (a ratchet's step, ``rack.step``, or
on the continuous drive one trainer's pulse, ``trainer.increment``) from the measured
position, in the measured direction. Nothing here writes a law a
second time; a new law in the kernel is fitted as soon as it is listed in :data:`LAWS`.

The table is CSV: a header row, then one row a reading, with the columns

``pulse``
    The pulse number: 0 for the reading before the first pulse, then 1, 2, 3, ... in
    order, without gaps.
``direction``
    ``start`` on pulse 0; then ``up`` or ``down`` (``+1`` and ``-1`` are read the
    same): the direction of the pulse that led to this reading.
``value``
    The device's state after the pulse: travel in full scale (a pot's wiper, in [-1, 1])
    or a conductance in any unit; ``scale`` (``--scale LOW HIGH``) says which values
    mean full scale -1 and +1 (default -1 and 1).

Other columns are ignored. For example::

    pulse,direction,value
    0,start,0.000
    1,up,0.021
    2,up,0.040
    3,down,0.022

The fit is of each pulse's change, ``value[k] - value[k-1]``, against the law's step
from ``value[k-1]`` (one-step prediction: cycle-to-cycle noise does not accumulate into
the residuals).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from collections.abc import Callable, Sequence

import numpy as np

from mark1.exceptions import InputError
from mark1.machine.potentiometers import PotentiometerRack
from mark1.specs import MachineSpec

__all__ = ["DeviceTable", "Law", "LAWS", "LawFit", "DeviceFit", "read_table", "table_from_values", "law_steps",
           "fit_law", "fit_table", "overrides_toml", "write_table", "pulse_table", "pulse_command", "size_key",
           "BENCH", "SIZE", "PIECEWISE_NODES", "fitted_spec", "runs", "replay"]

_DIRECTIONS = {"up": 1, "+1": 1, "1": 1, "down": -1, "-1": -1}


@dataclass(frozen=True)
class DeviceTable:
    """A measured pulse train: positions in full scale and the direction of each pulse.

    Attributes
    ----------
    position : array (n + 1,)
        The device's state before the first pulse and after each pulse, in full scale
        (the table's values mapped through ``scale``).
    direction : array (n,) int8
        +1 (up) or -1 (down), the direction of each pulse.
    value : array (n + 1,)
        The table's values as written.
    scale : (float, float)
        The values that mean full scale -1 and +1.
    source : str
        The file it came from (or a description).

    Examples
    --------
    >>> t = table_from_values([0.0, 0.02, 0.01], [1, -1])
    >>> t.step.tolist(), t.direction.tolist()
    ([0.02, -0.01], [1, -1])
    """

    position: np.ndarray
    direction: np.ndarray
    value: np.ndarray
    scale: tuple[float, float] = (-1.0, 1.0)
    source: str = ""

    @property
    def step(self) -> np.ndarray:
        """Each pulse's change of position: array (n,), full scale."""
        return np.diff(self.position)


def table_from_values(values, directions, *, scale=(-1.0, 1.0), source: str = "") -> DeviceTable:
    """A :class:`DeviceTable` from arrays.

    Parameters
    ----------
    values : array (n + 1,)
        Readings before the first pulse and after each pulse (units of ``scale``).
    directions : array (n,)
        +1 or -1 for each pulse.
    scale : (float, float)
        The values meaning full scale -1 and +1.
    source : str

    Returns
    -------
    DeviceTable

    Examples
    --------
    >>> t = table_from_values([10.0, 12.0, 14.0, 12.0], [1, 1, -1], scale=(0.0, 20.0))
    >>> t.position.tolist(), t.step.tolist()
    ([0.0, 0.2, 0.4, 0.2], [0.2, 0.2, -0.2])
    """
    values = np.asarray(values, float)
    directions = np.asarray(directions)
    lo, hi = float(scale[0]), float(scale[1])
    if not (math.isfinite(lo) and math.isfinite(hi) and hi != lo):
        raise InputError(f"scale: expected two different finite values (full scale -1 and +1), got {scale!r}")
    if values.ndim != 1 or directions.shape != (len(values) - 1,) or len(values) < 2:
        raise InputError(f"values, directions: expected n + 1 readings and n directions (n >= 1), got "
                         f"{values.shape} and {directions.shape}")
    if not np.isin(directions, (-1, 1)).all():
        raise InputError("directions: expected +1 or -1 for every pulse")
    position = 2.0 * (values - lo) / (hi - lo) - 1.0
    outside = np.flatnonzero(np.abs(position) > 1.0 + 1e-12)
    if len(outside):
        k = int(outside[0])
        raise InputError(f"value: expected readings from {lo:g} to {hi:g} (full scale -1 to +1; --scale sets them), "
                         f"got {values[k]:g} at pulse {k}")
    return DeviceTable(position=position, direction=directions.astype(np.int8), value=values,
                       scale=(lo, hi), source=source)


def read_table(path, *, scale=(-1.0, 1.0)) -> DeviceTable:
    """Read a measured pulse train from a CSV file (the format in the module's docstring).

    Parameters
    ----------
    path : path
    scale : (float, float)
        The values meaning full scale -1 and +1.

    Returns
    -------
    DeviceTable

    Raises
    ------
    InputError
        One line naming the file, the row (counted from 1, the header being row 1) and
        the column, and what was expected.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "t.csv")
    ...     _ = open(p, "w").write("pulse,direction,value\\n0,start,0\\n1,up,0.02\\n2,down,0.01\\n")
    ...     read_table(p).step.tolist()
    [0.02, -0.01]
    >>> from mark1.exceptions import InputError
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "t.csv")
    ...     _ = open(p, "w").write("pulse,direction,value\\n0,start,0\\n1,sideways,0.02\\n")
    ...     try:
    ...         read_table(p)
    ...     except InputError as e:
    ...         print(str(e).replace(d + os.sep, ""))
    t.csv: row 3, column direction: expected up or down (or +1, -1), got 'sideways'
    """
    path = Path(path)
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{name}: cannot read the table ({getattr(e, 'strerror', None) or e})") from None
    return _parse(text, name, scale)


def _parse(text: str, name: str, scale) -> DeviceTable:
    rows = list(csv.reader(io.StringIO(text)))
    while rows and not any(c.strip() for c in rows[-1]):
        rows.pop()                                         # trailing blank lines
    if not rows:
        raise InputError(f"{name}: row 1: expected a header with the columns pulse, direction, value; "
                         "the file is empty")
    header = [c.strip().lower() for c in rows[0]]
    for col in ("pulse", "direction", "value"):
        if col not in header:
            raise InputError(f"{name}: row 1, column {col}: missing (expected a header with the columns pulse, "
                             f"direction, value; got {', '.join(rows[0]) or 'nothing'})")
    ip, idr, iv = header.index("pulse"), header.index("direction"), header.index("value")
    if len(rows) < 3:
        raise InputError(f"{name}: row {len(rows) + 1}: expected the reading before the first pulse and at least "
                         f"one pulse, got {len(rows) - 1} reading{'s' if len(rows) != 2 else ''}")
    values, directions = [], []
    def cell(row, r, i, col):
        if i >= len(row) or not row[i].strip():
            raise InputError(f"{name}: row {r}, column {col}: empty (expected a value)")
        return row[i].strip()

    for r, row in enumerate(rows[1:], start=2):
        p = cell(row, r, ip, "pulse")
        try:
            pulse = int(p)
        except ValueError:
            raise InputError(f"{name}: row {r}, column pulse: expected a whole number, got {p!r}") from None
        if pulse != r - 2:
            raise InputError(f"{name}: row {r}, column pulse: expected {r - 2} (pulses numbered from 0, in order, "
                             f"without gaps), got {pulse}")
        d = cell(row, r, idr, "direction").lower()
        if pulse == 0:
            if d != "start":
                raise InputError(f"{name}: row {r}, column direction: expected start (pulse 0 is the reading "
                                 f"before the first pulse), got {d!r}")
        elif d not in _DIRECTIONS:
            raise InputError(f"{name}: row {r}, column direction: expected up or down (or +1, -1), got {d!r}")
        else:
            directions.append(_DIRECTIONS[d])
        v = cell(row, r, iv, "value")
        try:
            x = float(v)
        except ValueError:
            raise InputError(f"{name}: row {r}, column value: expected a number, got {v!r}") from None
        if not math.isfinite(x):
            raise InputError(f"{name}: row {r}, column value: expected a finite number, got {v!r}")
        lo, hi = sorted((float(scale[0]), float(scale[1])))
        if not lo - 1e-12 * abs(hi - lo) <= x <= hi + 1e-12 * abs(hi - lo):
            raise InputError(f"{name}: row {r}, column value: expected a reading from {lo:g} to {hi:g} (full scale "
                             f"-1 to +1; --scale LOW HIGH sets them), got {v}")
        values.append(x)
    try:
        return table_from_values(values, directions, scale=scale, source=name)
    except InputError as e:
        raise InputError(f"{name}: {e}") from None


def write_table(table: DeviceTable) -> str:
    """The table as CSV text in the format :func:`read_table` reads.

    Examples
    --------
    >>> print(write_table(table_from_values([0.0, 0.02, 0.01], [1, -1])), end="")
    pulse,direction,value
    0,start,0.0
    1,up,0.02
    2,down,0.01
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["pulse", "direction", "value"])
    w.writerow([0, "start", repr(float(table.value[0]))])
    for k, (d, v) in enumerate(zip(table.direction, table.value[1:]), start=1):
        w.writerow([k, "up" if d > 0 else "down", repr(float(v))])
    return buf.getvalue()


# -- the laws, as the machine's kernel has them ---------------------------------------------

def pulse_command(spec: MachineSpec) -> float:
    """The command that is one pulse: a ratchet's one step (``rack.step``, aihwkit's ``dw_min``),
    or one trainer's pulse (``trainer.increment``) on the continuous drive.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> pulse_command(MARK_I), pulse_command(MARK_I.with_overrides({"rack.drive": "ratchet"}))
    (0.02, 0.01)
    """
    return float(spec.rack.step if spec.rack.drive == "ratchet" else spec.trainer.increment)


def law_steps(spec: MachineSpec, table: DeviceTable) -> np.ndarray:
    """Each pulse's change of position as the machine's pot would make it from the measured positions.

    One pot a pulse, all planned at once by the rack's kernel
    (:meth:`PotentiometerRack.plan`): pot ``k`` stands at ``table.position[k]``, its gears
    last turned in the direction of pulse ``k - 1`` (so backlash acts at a reversal, as
    in the machine), and is commanded one pulse (:func:`pulse_command`) in the pulse's
    direction. Nominal motors, time plays no part; the device's noise acts as ``spec``
    says (:func:`fit_law` switches it off to fit the mean law).

    Parameters
    ----------
    spec : MachineSpec
        The machine whose rack law is asked.
    table : DeviceTable

    Returns
    -------
    array (n,) float
        Predicted change of each pulse (full scale).

    Examples
    --------
    The Mark I's continuous drive: each pulse travels the increment, less the backlash
    (0.003) at the reversal, and stops at the end stop:

    >>> from mark1.specs import MARK_I
    >>> t = table_from_values([0.0, 0.02, 0.04, 0.02, 0.99], [1, 1, -1, 1])
    >>> law_steps(MARK_I, t).round(4).tolist()
    [0.02, 0.02, -0.017, 0.01]
    """
    n = len(table.direction)
    rack = PotentiometerRack(spec.rack, 1, n, spec.response.n_responses)
    rack.mask[:] = True                                   # a bench row: every pot wired
    rack.p_from[0] = rack.p_to[0] = table.position[:-1]
    rack.last_dir[0, 1:] = table.direction[:-1]          # the gears' side: the previous pulse's direction
    command = (table.direction * pulse_command(spec))[None, :].astype(float)
    idx, start, target = rack.plan(command, 0.0)[:3]
    out = np.zeros(n)
    out[idx[1]] = target - start
    return out


def pulse_table(spec: MachineSpec, pulses=(60, 60), *, start: float = 0.0, seed: int = 0,
                read_noise: float = 0.0) -> DeviceTable:
    """Measure one of the machine's pots as a researcher measures a device: pulse after pulse, up and down.

    The pot is one pot of a rack (:class:`PotentiometerRack`, its device spread and noise
    streams from ``seed``), driven one pulse (:func:`pulse_command`) at a time; each
    reading is its wiper at rest, plus Gaussian read noise of the meter.

    Parameters
    ----------
    spec : MachineSpec
    pulses : sequence of int
        Pulses up, then down, then up, ... (alternating directions, starting up).
    start : float
        Wiper position before the first pulse (full scale).
    seed : int
        Seed of the pot's spread, its cycle-to-cycle and write noise and the meter's noise.
    read_noise : float
        Sigma of the meter's noise (full scale).

    Returns
    -------
    DeviceTable
        Values in full scale (``scale`` -1, 1).

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0, "rack.law": "soft-bounds",
    ...                               "rack.w_max": 0.5})
    >>> pulse_table(spec, (3, 1)).position.round(5).tolist()
    [0.0, 0.01, 0.0198, 0.0294, 0.01911]
    """
    if not -1.0 <= start <= 1.0:
        raise InputError(f"start: expected a wiper position in [-1, 1], got {start!r}")
    if not len(pulses) or min(pulses) < 0 or sum(pulses) < 1:
        raise InputError(f"pulses: expected non-negative pulse counts, at least one pulse, got {pulses!r}")
    seq = np.random.SeedSequence(seed)
    device, noise, meter = seq.spawn(3)
    rack = PotentiometerRack(spec.rack, 1, 1, spec.response.n_responses, device_seed=device, noise_seed=noise)
    rack.mask[:] = True
    rack.p_from[:] = rack.p_to[:] = start
    direction = np.concatenate([np.full(n, 1 if i % 2 == 0 else -1) for i, n in enumerate(pulses)])
    cmd = pulse_command(spec)
    position = np.empty(len(direction) + 1)
    now = 0.0
    position[0] = rack.positions(now)[0, 0]
    for k, d in enumerate(direction):
        rack.apply(*rack.plan(np.array([[d * cmd]]), now), now)
        now = max(now, rack.busy_until)
        position[k + 1] = rack.positions(now)[0, 0]
    if read_noise:
        position = position + read_noise * np.random.default_rng(meter).standard_normal(len(position))
        position = np.clip(position, -1.0, 1.0)
    return table_from_values(position, direction, source=f"{spec.name}, seed {seed}")


class Law(NamedTuple):
    """A rack law as the fit sees it: which spec keys it sets and which it fits.

    Attributes
    ----------
    name : str
        The law's name (``rack.law``).
    fixed : dict
        Overrides that select the law (and switch off what a pulse table cannot show:
        spreads, noise).
    keys : tuple of str
        The spec keys fitted.
    guess : callable
        ``guess(table, spec)`` -> starting points, each a sequence of len(keys) values.
    low, high : tuple of float
        Bounds of each fitted value.

    Examples
    --------
    >>> LAWS["soft-bounds"].keys
    ('SIZE', 'rack.up_down', 'rack.w_max', 'rack.w_min')
    """

    name: str
    fixed: dict
    keys: tuple
    guess: Callable
    low: tuple
    high: tuple


def _minimize(residual: Callable[[np.ndarray], np.ndarray], x0, low, high, *, max_iter: int = 100
              ) -> tuple[np.ndarray, np.ndarray, int]:
    """Least squares within bounds: Levenberg-Marquardt with a forward-difference Jacobian
    (Marquardt's scaling by the diagonal, so parameters of any size step alike); a step that
    leaves the bounds is clipped to them. Returns (x, residual(x), evaluations)."""
    lo, hi = np.asarray(low, float), np.asarray(high, float)
    x = np.clip(np.asarray(x0, float), lo, hi)
    r = residual(x)
    cost, evals, lam = float(r @ r), 1, 1e-3
    for _ in range(max_iter):
        jac = np.empty((len(r), len(x)))
        for i in range(len(x)):
            h = 1e-6 * max(abs(x[i]), 1e-4)
            if x[i] + h > hi[i]:
                h = -h                                     # at the upper bound: difference downwards
            xi = x.copy()
            xi[i] += h
            jac[:, i] = (residual(xi) - r) / h
            evals += 1
        g, a = jac.T @ r, jac.T @ jac
        # a parameter held at a bound that the gradient pushes beyond it stays there (an active set)
        free = ~(((x <= lo) & (g > 0)) | ((x >= hi) & (g < 0)))
        if not free.any():
            break
        af, gf = a[np.ix_(free, free)], g[free]
        d = np.diag(af).copy()
        d[d <= 0] = 1e-12
        improved = False
        for _ in range(16):
            try:
                step = np.linalg.solve(af + lam * np.diag(d), -gf)
            except np.linalg.LinAlgError:
                lam *= 10.0
                continue
            dx = np.zeros_like(x)
            dx[free] = step
            xn = np.clip(x + dx, lo, hi)
            rn = residual(xn)
            evals += 1
            cn = float(rn @ rn)
            if np.isfinite(cn) and cn < cost:
                shrink = (cost - cn) / max(cost, 1e-300)
                x, r, cost, lam, improved = xn, rn, cn, max(lam / 3.0, 1e-12), True
                break
            lam *= 4.0
        if not improved or shrink < 1e-8:
            break
    return x, r, evals


@dataclass(frozen=True)
class LawFit:
    """One law fitted to a table.

    Attributes
    ----------
    law : str
    params : dict
        Fitted value of each key (the spec overrides with the law's fixed ones).
    residuals : array (n,)
        Measured minus predicted change of each pulse (full scale).
    rss : float
        Sum of squared residuals.
    k : int
        Parameters fitted (plus one for the residuals' variance in AIC and BIC).
    aic, bic : float
        ``n ln(rss / n) + 2 (k + 1)`` and ``n ln(rss / n) + (k + 1) ln n``, Gaussian residuals.
    predicted : array (n,)
        The law's change of each pulse (full scale).

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> f = fit_law(LAWS["constant"], pulse_table(spec, (10, 10)), spec)
    >>> round(f.params["rack.step"], 6), f.k, f.rms < 1e-12
    (0.01, 2, True)
    """

    law: str
    params: dict
    residuals: np.ndarray
    rss: float
    k: int
    aic: float
    bic: float
    predicted: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def rms(self) -> float:
        """Root-mean-square residual (full scale)."""
        return float(np.sqrt(self.rss / len(self.residuals)))

    @property
    def step_noise(self) -> float:
        """The residuals relative to the predicted steps (their standard deviation): an
        estimate of the cycle-to-cycle noise ``rack.dw_min_std``, too high by whatever
        noise the meter added to the readings (nan where no step was predicted)."""
        moved = np.abs(self.predicted) > 0
        if moved.sum() < 2:
            return float("nan")
        return float(np.std(self.residuals[moved] / self.predicted[moved], ddof=1))


#: What a pulse table cannot show, switched off while a law's mean step is fitted: the
#: spreads between pots, the noise of each pulse and write, stuck pots, decay.
BENCH = {"rack.dw_min_std": 0.0, "rack.write_noise_std": 0.0, "rack.dw_min_dtod": 0.0, "rack.up_down_dtod": 0.0,
         "rack.w_max_dtod": 0.0, "rack.w_min_dtod": 0.0, "rack.corrupt_devices_prob": 0.0,
         "rack.decay_time": math.inf}

#: Stands for the key of a pulse's nominal travel in :attr:`Law.keys`: ``rack.step`` on a
#: ratchet (aihwkit's ``dw_min``), ``trainer.increment`` on the continuous drive.
SIZE = "SIZE"


def size_key(spec: MachineSpec) -> str:
    """The spec key of a pulse's nominal travel (see :data:`SIZE`).

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> size_key(MARK_I), size_key(MARK_I.with_overrides({"rack.drive": "ratchet"}))
    ('trainer.increment', 'rack.step')
    """
    return "rack.step" if spec.rack.drive == "ratchet" else "trainer.increment"


def _size0(t: DeviceTable) -> float:
    moved = np.abs(t.step)[np.abs(t.step) > 0]
    return float(np.median(moved)) if len(moved) else 1e-3


def _asym0(t: DeviceTable) -> float:
    up, down = np.abs(t.step[t.direction > 0]), np.abs(t.step[t.direction < 0])
    if not len(up) or not len(down) or up.mean() + down.mean() == 0:
        return 0.0
    return float(np.clip((up.mean() - down.mean()) / (up.mean() + down.mean()), -0.9, 0.9))


def _bounds0(t: DeviceTable) -> tuple[float, float]:
    hi, lo = float(t.position.max()), float(t.position.min())
    return float(np.clip(hi + 0.1 * (hi - lo), 0.05, 1.0)), float(np.clip(lo - 0.1 * (hi - lo), -1.0, -0.05))


#: The laws the fit knows, by ``rack.law``: the keys each fits (:data:`SIZE` the pulse's
#: nominal travel), starting points and bounds. ``piecewise`` is fitted node by node.
LAWS: dict[str, Law] = {
    "constant": Law("constant", {"rack.law": "constant"}, (SIZE, "rack.up_down"),
                    lambda t, s: [[_size0(t), _asym0(t)]], (1e-7, -0.99), (1.0, 0.99)),
    "linear": Law("linear", {"rack.law": "linear"}, (SIZE, "rack.up_down", "rack.gamma_up", "rack.gamma_down"),
                  lambda t, s: [[_size0(t), _asym0(t), g, g] for g in (0.2, 1.0)],
                  (1e-7, -0.99, 0.0, 0.0), (1.0, 0.99, 50.0, 50.0)),
    "soft-bounds": Law("soft-bounds", {"rack.law": "soft-bounds"}, (SIZE, "rack.up_down", "rack.w_max", "rack.w_min"),
                       lambda t, s: [[_size0(t), _asym0(t), *_bounds0(t)], [_size0(t), _asym0(t), 1.0, -1.0]],
                       (1e-7, -0.99, 0.01, -1.0), (1.0, 0.99, 1.0, -0.01)),
    "exponential": Law("exponential", {"rack.law": "exponential"},
                       (SIZE, "rack.A_up", "rack.A_down", "rack.gamma_up", "rack.gamma_down"),
                       lambda t, s: [[_size0(t) * 1.2, a, a, g, g] for a, g in ((0.1, 1.0), (0.01, 4.0))],
                       (1e-7, 0.0, 0.0, 0.0, 0.0), (1.0, 10.0, 10.0, 50.0, 50.0)),
    "power": Law("power", {"rack.law": "power"}, (SIZE, "rack.up_down", "rack.pow_gamma", "rack.pow_up_down"),
                 lambda t, s: [[_size0(t), _asym0(t), g, 0.0] for g in (0.5, 2.0)],
                 (1e-7, -0.99, 0.0, -0.99), (1.0, 0.99, 100.0, 0.99)),
    "piecewise": Law("piecewise", {"rack.law": "piecewise"}, ("rack.piecewise_up", "rack.piecewise_down"),
                     lambda t, s: [], (), ()),
}

#: Which of two laws that fit a table alike is named first (fewer parameters first in any case):
#: bounds are a device's own figures, a linear step's slopes relative to nominal bounds are not.
PREFERENCE = ("constant", "soft-bounds", "linear", "power", "exponential", "piecewise")

#: BIC differences below this are the same fit (the optimizer's tolerance, not evidence).
TIE_BIC = 0.01

#: The fewest pulses a table must have: laws of up to 5 parameters and their BIC need a few more.
MIN_PULSES = 10

#: The largest backlash (full scale) a fit considers, on a drive with gears.
BACKLASH_MAX = 0.2

#: Nodes of a fitted piecewise law (evenly spaced from w_min to w_max), unless the spec has its own.
PIECEWISE_NODES = 9


def _bench(law: Law, spec: MachineSpec) -> MachineSpec:
    """The spec a law's mean step is fitted in: its fixed keys, the exponential law's a and b
    (the spec's own, or a = 1, b = 0: A and b, gamma and a are not separable), noise off."""
    fixed = dict(law.fixed)
    if law.name == "exponential" and spec.rack.law != "exponential":
        fixed.update({"rack.exp_a": 1.0, "rack.exp_b": 0.0})
    return spec.with_overrides({**BENCH, **fixed})


def fit_law(law: Law, table: DeviceTable, spec: MachineSpec) -> LawFit:
    """Fit one law's parameters to a table (least squares on each pulse's change).

    Parameters
    ----------
    law : Law
        From :data:`LAWS`.
    table : DeviceTable
    spec : MachineSpec
        The machine around the pot: its drive says what a pulse is (:func:`pulse_command`),
        its backlash and end stops act as in the machine.

    Returns
    -------
    LawFit
        ``params`` are the spec overrides of the law (its name, its fitted keys, and for
        the exponential law the a and b it was fitted with).

    Examples
    --------
    A ratchet device whose steps of 0.01 full scale shrink linearly towards a bound at 0.5:

    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> w = [0.0]
    >>> for _ in range(30):
    ...     w.append(w[-1] + 0.01 * (1 - w[-1] / 0.5))
    >>> f = fit_law(LAWS["soft-bounds"], table_from_values(w, [1] * 30), spec)
    >>> round(f.params["rack.step"], 6), round(f.params["rack.w_max"], 6)
    (0.01, 0.5)
    """
    measured = table.step
    base = _bench(law, spec)
    keys = tuple(size_key(spec) if k == SIZE else k for k in law.keys)
    if law.name == "piecewise":
        return _fit_piecewise(law, table, spec, base)
    low, high = list(law.low), list(law.high)
    starts = [list(x0) for x0 in law.guess(table, base)]
    geared = spec.rack.backlash > 0 and bool(np.any(np.diff(table.direction)))
    if geared:                 # a drive with gears: its backlash at the table's reversals is fitted too
        keys += ("rack.backlash",)
        low.append(0.0)
        high.append(BACKLASH_MAX)
        starts = [x0 + [float(spec.rack.backlash)] for x0 in starts]

    def residual(x):
        return measured - law_steps(base.with_overrides(dict(zip(keys, map(float, x)))), table)

    # the device reached every measured position, so its bounds lie beyond them
    for i, key in enumerate(keys):
        if key == "rack.w_max":
            low[i] = max(low[i], float(table.position.max()))
        elif key == "rack.w_min":
            high[i] = min(high[i], float(table.position.min()))
    best = None
    for x0 in starts:
        x, r, _ = _minimize(residual, x0, low, high)
        if best is None or float(r @ r) < float(best[1] @ best[1]):
            best = (x, r)
    assert best is not None                       # every law but piecewise has a starting point
    x, r = best
    fixed = {k: v for k, v in base.to_dict()["rack"].items() if f"rack.{k}" in ("rack.exp_a", "rack.exp_b")} \
        if law.name == "exponential" else {}
    params = {**_drive(spec), **law.fixed, **{f"rack.{k}": float(v) for k, v in fixed.items()},
              **{key: float(v) for key, v in zip(keys, x)}}
    return _law_fit(law.name, params, r, len(keys), measured)


def _drive(spec: MachineSpec) -> dict:
    """What a pulse was in the fit, written with the law: the drive, and its backlash (fitted
    instead where the drive has gears and the table reverses)."""
    return {"rack.drive": spec.rack.drive, "rack.backlash": float(spec.rack.backlash)}


def _law_fit(name: str, params: dict, r: np.ndarray, k: int, measured: np.ndarray) -> LawFit:
    n = len(r)
    rss = float(r @ r)
    ll = n * math.log(max(rss / n, 1e-300))
    return LawFit(law=name, params=params, residuals=r, rss=rss, k=k, aic=ll + 2 * (k + 1),
                  bic=ll + (k + 1) * math.log(n), predicted=measured - r)


def _fit_piecewise(law: Law, table: DeviceTable, spec: MachineSpec, base: MachineSpec) -> LawFit:
    """The piecewise law's node factors by linear least squares: the kernel's step is linear
    in the nodes, so its columns are the steps of each node alone (the kernel's own
    interpolation), up and down apart. Nodes no pulse reaches take their neighbours' value.

    The nodes span the measured travel: the pot's bounds (``rack.w_max``, ``rack.w_min``, so
    its end stops too) are set to the highest and lowest reading (0 kept inside), so the
    table is the law where it was measured and nothing is claimed beyond."""
    nodes = len(spec.rack.piecewise_up) if len(spec.rack.piecewise_up) > 1 else PIECEWISE_NODES
    measured = table.step
    travel = {"rack.w_max": float(np.clip(table.position.max(), 1e-3, 1.0)),
              "rack.w_min": float(np.clip(table.position.min(), -1.0, -1e-3))}
    base = base.with_overrides(travel)
    factors = {}
    for name, sign in (("rack.piecewise_up", 1), ("rack.piecewise_down", -1)):
        rows = table.direction == sign
        cols = np.empty((int(rows.sum()), nodes))
        for i in range(nodes):
            unit = tuple(float(v) for v in np.eye(nodes)[i])
            # without end stops: a unit factor would run into a stop the true factor never reaches
            cols[:, i] = law_steps(base.with_overrides({"rack.piecewise_up": unit, "rack.piecewise_down": unit,
                                                        "rack.end_stops": False}),
                                   table)[rows]
        reached = np.abs(cols).sum(axis=0) > 0
        f = np.zeros(nodes)
        if reached.any():
            f[reached] = np.linalg.lstsq(cols[:, reached], measured[rows], rcond=None)[0]
            idx = np.flatnonzero(reached)
            f[~reached] = f[idx[np.abs(np.arange(nodes)[~reached, None] - idx[None, :]).argmin(axis=1)]]
        else:
            f[:] = 1.0
        factors[name] = tuple(float(v) for v in np.maximum(f, 0.0))
    fitted = base.with_overrides(factors)
    r = measured - law_steps(fitted, table)
    params = {**_drive(spec), **law.fixed, **travel, **factors}
    return _law_fit(law.name, params, r, 2 * nodes, measured)


@dataclass(frozen=True)
class DeviceFit:
    """Every law fitted to one table, best first.

    Attributes
    ----------
    fits : list of LawFit
        Sorted by BIC (then AIC); ``fits[0]`` is the best.
    table : DeviceTable
    spec : MachineSpec
        The machine the laws were fitted in.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> fit = fit_table(pulse_table(spec, (10, 10)), spec, laws=["constant", "linear"])
    >>> fit.best.law, [f.law for f in fit.fits]
    ('constant', ['constant', 'linear'])
    """

    fits: list
    table: DeviceTable
    spec: Any = field(repr=False, default=None)

    @property
    def best(self) -> LawFit:
        """The law with the lowest BIC."""
        return self.fits[0]

    def report(self) -> str:
        """A table of the laws, best first: parameters, residuals, AIC, BIC, ΔBIC."""
        b = self.best
        lines = [f"{len(self.table.step)} pulses from {self.table.source or 'a table'}; each law's step from the "
                 f"machine's pot kernel, fitted by least squares on each pulse's change (full scale)",
                 f"  {'law':<14} {'k':>2} {'rms residual':>13} {'max |res|':>10} {'AIC':>10} {'BIC':>10} "
                 f"{'dBIC':>7}  parameters"]
        for f in self.fits:
            params = ", ".join(f"{k.split('.', 1)[1]}={v:.4g}" for k, v in f.params.items()
                               if isinstance(v, float) and k not in _fixed_keys(f.law) and (k != "rack.backlash" or v))
            lines.append(f"  {f.law:<14} {f.k:>2} {f.rms:>13.3g} {float(np.abs(f.residuals).max()):>10.3g} "
                         f"{f.aic:>10.1f} {f.bic:>10.1f} {max(f.bic - b.bic, 0.0):>7.1f}  {params}")
        alike = [f.law for f in self.fits[1:] if f.bic - b.bic < 2.0]
        lines.append(f"best: {b.law} (lowest BIC" + (f"; {', '.join(alike)} fit{'s' * (len(alike) == 1)} as well: "
                     "dBIC < 2" if alike else "") + "; a dBIC above 10 is strong evidence against a law)")
        return "\n".join(lines)


def _fixed_keys(law_name: str) -> set:
    law = LAWS.get(law_name)
    return set(law.fixed) if law else set()


def fit_table(table: DeviceTable, spec: MachineSpec, laws: Sequence[str] | None = None) -> DeviceFit:
    """Fit every law (or those named) to a table and rank them by BIC.

    Parameters
    ----------
    table : DeviceTable
    spec : MachineSpec
        The machine around the pot.
    laws : sequence of str, optional
        Names from :data:`LAWS` (default all).

    Returns
    -------
    DeviceFit

    Examples
    --------
    A soft-bounds device, measured without noise over 40 pulses, is told from a constant step:

    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> device = spec.with_overrides({"rack.law": "soft-bounds", "rack.w_max": 0.3})
    >>> fit = fit_table(pulse_table(device, (25, 15)), spec, laws=["constant", "soft-bounds"])
    >>> fit.best.law, round(fit.best.params["rack.w_max"], 4)
    ('soft-bounds', 0.3)
    """
    names = list(LAWS) if laws is None else list(laws)
    for name in names:
        if name not in LAWS:
            raise InputError(f"laws: expected names from {', '.join(LAWS)}, got {name!r}")
    if len(table.step) < MIN_PULSES:
        raise InputError(f"{table.source or 'table'}: expected at least {MIN_PULSES} pulses to fit a law (and tell "
                         f"laws apart), got {len(table.step)}")
    if not np.any(table.step):
        raise InputError(f"{table.source or 'table'}: expected a device that moves, got the same value after every "
                         "pulse (a stuck device: no law to fit)")
    fits = sorted((fit_law(LAWS[name], table, spec) for name in names), key=lambda f: f.bic)
    # laws that are one model in two namings (soft bounds below 1 are a linear step's slopes
    # above 1) fit alike: the one with fewer parameters, then the one earlier in PREFERENCE
    # (whose parameters say more physically) goes first
    rank = {name: i for i, name in enumerate(PREFERENCE)}
    swapped = True
    while swapped:
        swapped = False
        for i in range(len(fits) - 1):
            a, b = fits[i], fits[i + 1]
            if b.bic - a.bic < TIE_BIC and (b.k, rank.get(b.law, 99)) < (a.k, rank.get(a.law, 99)):
                fits[i], fits[i + 1], swapped = b, a, True
    return DeviceFit(fits=fits, table=table, spec=spec)


def overrides_toml(fit: LawFit) -> str:
    """The fitted law as a scene's ``[machine.overrides]`` table (TOML).

    Examples
    --------
    >>> f = LawFit("constant", {"rack.drive": "continuous", "trainer.increment": 0.0213}, np.zeros(3), 0.0, 1,
    ...            0.0, 0.0)
    >>> print(overrides_toml(f), end="")
    # fitted law: constant (rms residual 0 full scale over 3 pulses)
    [machine.overrides]
    rack.drive = "continuous"
    # a continuous motor's pulse travels the trainer's increment: the fitted travel of one pulse
    trainer.increment = 0.0213
    """
    lines = [f"# fitted law: {fit.law} (rms residual {fit.rms:.3g} full scale over {len(fit.residuals)} pulses)",
             "[machine.overrides]"]
    for key, v in fit.params.items():
        if key == "trainer.increment":
            lines.append("# a continuous motor's pulse travels the trainer's increment: the fitted travel of one pulse")
        lines.append(f"{key} = {_toml_value(v)}")
    if np.isfinite(fit.step_noise):
        lines.append("# the residuals relative to each step: the pulse-to-pulse noise (too high by any noise of "
                     "the meter)")
        lines.append(f"rack.dw_min_std = {_toml_value(fit.step_noise)}")
    return "\n".join(lines) + "\n"


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, float):
        return "inf" if v == math.inf else "-inf" if v == -math.inf else f"{v:.6g}"
    return str(v)


def fitted_spec(fit: LawFit, spec: MachineSpec, *, noise: bool = False) -> MachineSpec:
    """The machine with a fitted law: ``spec`` with the fit's overrides (the device's noise off
    unless ``noise``, then with the fit's estimate of the pulse-to-pulse noise).

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> f = LawFit("soft-bounds", {"rack.law": "soft-bounds", "rack.w_max": 0.5}, np.zeros(3), 0.0, 1, 0.0, 0.0)
    >>> fitted_spec(f, MARK_I).rack.w_max
    0.5
    """
    over = {**BENCH, **fit.params}
    if noise and np.isfinite(fit.step_noise):
        over["rack.dw_min_std"] = fit.step_noise
    return spec.with_overrides(over)


def runs(direction: np.ndarray) -> tuple[int, ...]:
    """Pulses up, down, up, ... of a direction sequence (starting up: a first run down is after 0 up).

    Examples
    --------
    >>> runs(np.array([-1, -1, 1, 1, 1, -1]))
    (0, 2, 3, 1)
    """
    out = [0] if direction[0] < 0 else []
    edges = np.flatnonzero(np.diff(direction)) + 1
    out += np.diff(np.r_[0, edges, len(direction)]).tolist()
    return tuple(int(v) for v in out)


def replay(spec: MachineSpec, table: DeviceTable) -> np.ndarray:
    """The positions ``spec``'s pot goes through under the table's pulses from its first reading
    (open loop: each pulse from where the law, not the measurement, left it): array (n + 1,).

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> replay(spec, table_from_values([0.5, 0.6, 0.7, 0.6], [1, 1, -1])).round(3).tolist()
    [0.5, 0.51, 0.52, 0.51]
    """
    return pulse_table(spec, runs(table.direction), start=float(table.position[0])).position
