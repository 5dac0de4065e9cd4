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

Each law is fitted by its open-loop replay through the table's pulses (:func:`fit_law`:
noise that does not accumulate does not bias it); its two noise terms, the cycle-to-cycle
noise that stays in the state and the write and read noise that does not, by the
likelihood of a state-space model through an extended Kalman filter
(:func:`kalman_noise_terms`, started from the replay residuals' variogram,
:func:`noise_terms`).
"""

from __future__ import annotations

import csv
import io
import math
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple
from collections.abc import Callable, Sequence

import numpy as np

from mark1._utils.compiled import compiled
from mark1._utils.progress import progress_bar
from mark1.exceptions import InputError, SpecError
from mark1.machine._kernels.pots import drive_of, one_pot, replay_pulses
from mark1.machine.potentiometers import PotentiometerRack
from mark1.specs import MachineSpec, RackSpec

__all__ = ["DeviceTable", "Law", "LAWS", "LawFit", "DeviceFit", "read_table", "table_from_values", "law_steps",
           "fit_law", "fit_table", "overrides_toml", "write_table", "pulse_table", "pulse_command", "size_key",
           "BENCH", "SIZE", "PIECEWISE_NODES", "HOLDOUT", "MAX_PULSES", "NOISE_LAGS", "fitted_spec", "runs",
           "replay", "noise_terms", "kalman_noise_terms", "KALMAN_GRID", "KALMAN_RANGE", "bootstrap",
           "heldout_error", "WINDOW", "TIE_RMS", "ties", "rank_fits", "STILL", "still_pulses",
           "profile_intervals", "LR_95", "Z_95", "NOISE_WORDS", "DIFFUSE",
           "unpinned_words"]

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
    outside = np.flatnonzero(np.abs(position) > 1.0 + 1e-9)
    if len(outside):
        k = int(outside[0])
        raise InputError(f"value: expected readings from {lo:g} to {hi:g} (full scale -1 to +1; --scale sets them), "
                         f"got {values[k]:g} at pulse {k}")
    position = np.clip(position, -1.0, 1.0)    # a reading at full scale is at it, not a rounding beyond
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
    lo, hi = (float(v) for v in scale)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InputError(f"scale: expected LOW < HIGH, two finite values (the readings meaning full scale -1 and +1), "
                         f"got {lo:g} {hi:g}")
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):     # a FIFO, a device (/dev/zero), a folder: no table to read
            raise InputError(f"{name}: expected a regular file holding a table, got "
                             f"{'a folder' if stat.S_ISDIR(info.st_mode) else 'a pipe or a device'}")
        if info.st_size > MAX_TABLE_BYTES:
            raise InputError(f"{name}: expected a table of at most {MAX_TABLE_BYTES // 1_000_000} MB "
                             f"({MAX_PULSES:,} pulses), got {info.st_size / 1e6:.0f} MB")
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{name}: cannot read the table ({getattr(e, 'strerror', None) or e})") from None
    return _parse(text, name, scale)


#: The most pulses a table may hold (each law's fit replays them all a few hundred times).
MAX_PULSES = 200_000

#: The largest table file read (bytes): room for :data:`MAX_PULSES` rows of long numbers.
MAX_TABLE_BYTES = 64 * MAX_PULSES


def _parse(text: str, name: str, scale) -> DeviceTable:
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:                        # e.g. a field longer than the csv module takes
        raise InputError(f"{name}: not a table of pulses ({e})") from None
    if len(rows) > MAX_PULSES + 2:
        raise InputError(f"{name}: expected at most {MAX_PULSES:,} pulses, got {len(rows) - 1:,} rows")
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
    position = np.clip(position, -1.0, 1.0)     # the meter's full scale (write noise may read past an end stop)
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
        Measured minus replayed position after each pulse (full scale): the law run open
        loop from its fitted start (:func:`replay`).
    rss : float
        Sum of squared residuals.
    k : int
        Parameters fitted (plus one for the residuals' variance in AIC and BIC).
    aic, bic : float
        ``n ln(rss / n) + 2 (k + 1)`` and ``n ln(rss / n) + (k + 1) ln n``, Gaussian residuals
        (the replay's residuals are correlated where noise accumulates: a guide, not a test).
    predicted : array (n,)
        The replayed position after each pulse (full scale).
    heldout_rms : float
        Rms error of the law fitted to the first ``1 - HOLDOUT`` of the table, replayed over
        the rest in windows (:func:`heldout_error`; nan where not computed).
    dw_min_std, write_noise_std : float
        The noise that accumulates (cycle to cycle, relative to the step) and the noise that
        does not (write and read, in steps): by the state-space model's likelihood
        (:func:`kalman_noise_terms`) for a fit to the whole table, by the replay residuals'
        variogram (:func:`noise_terms`) for a fit to part of it.
    at_bound : tuple of str
        Fitted keys that ended at their search bound (the fit may want beyond it).
    intervals : dict
        ``key -> (low, high)``, 95 % intervals of the law's parameters and both noise terms,
        from the restricted likelihood (:func:`profile_intervals`) or a parametric bootstrap
        (:func:`bootstrap`); empty unless computed.
    start : float
        The fitted persistent state before the first pulse (full scale).
    unpinned : tuple of str
        Keys the table cannot pin (:func:`profile_intervals`): their interval reaches the end of
        the range searched (a noise term not told from none), so it is a bound, not a verdict
        (:func:`unpinned_words`).
    interval_note : str
        Why some intervals are missing, where :func:`profile_intervals` could not give them.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> f = fit_law(LAWS["constant"], pulse_table(spec, (10, 10)), spec)
    >>> round(f.params["rack.step"], 6), f.k, f.rms < 1e-9
    (0.01, 3, True)
    """

    law: str
    params: dict
    residuals: np.ndarray
    rss: float
    k: int
    aic: float
    bic: float
    predicted: np.ndarray = field(default_factory=lambda: np.zeros(0))
    heldout_rms: float = float("nan")
    dw_min_std: float = float("nan")
    write_noise_std: float = float("nan")
    at_bound: tuple = ()
    intervals: dict = field(default_factory=dict)
    start: float = 0.0
    unpinned: tuple = ()
    interval_note: str = ""

    @property
    def rms(self) -> float:
        """Root-mean-square residual of the replay (full scale)."""
        return float(np.sqrt(self.rss / len(self.residuals)))

    @property
    def step_noise(self) -> float:
        """The cycle-to-cycle noise, ``dw_min_std`` (:attr:`dw_min_std`)."""
        return self.dw_min_std


#: What a pulse table cannot show, switched off while a law's mean step is fitted: the
#: spreads between pots, the noise of each pulse and write, stuck pots, decay.
BENCH = {"rack.dw_min_std": 0.0, "rack.write_noise_std": 0.0, "rack.dw_min_dtod": 0.0, "rack.up_down_dtod": 0.0,
         "rack.w_max_dtod": 0.0, "rack.w_min_dtod": 0.0, "rack.corrupt_devices_prob": 0.0,
         "rack.gamma_up_dtod": 0.0, "rack.gamma_down_dtod": 0.0, "rack.pow_gamma_dtod": 0.0,
         "rack.pow_up_down_dtod": 0.0, "rack.drift_nu": 0.0, "rack.decay_time": math.inf}

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


#: The exponential law's rates from which :func:`_exp_from_linear` starts it (each direction's).
EXP_RATES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def _exp_from_linear(t: DeviceTable, s: MachineSpec) -> list[list[float]]:
    """Starting points of the exponential law that replay the table as its best linear law does.

    The linear law is fitted first (its replay, four parameters, is well posed); then for each
    rate of :data:`EXP_RATES`, up and down, the exponential step that has the linear law's
    value and slope at the table's mean position. An exponential of small rate is a linear
    law, so these starts lie along the valley in which a noisy table leaves the rate loosely
    pinned, and the search goes on from the one that replays best rather than from a grid
    far from it. ``s`` is the exponential's bench spec (its slope sign ``exp_a``)."""
    rack = s.rack
    lin = _fit_replay(LAWS["linear"], t, s, _bench(LAWS["linear"], s), None).params
    size, ud = lin[size_key(s)], lin["rack.up_down"]
    g0, w_c, a = rack.g_zero, float(np.mean(t.position)), float(rack.exp_a)
    up_scale, down_scale = 1.0 + min(ud, 0.0), 1.0 - max(ud, 0.0)
    # the linear law's mean step up and down at w_c, and its slope there (kernel: law_factor)
    v_up = size * up_scale * (1.0 - lin["rack.gamma_up"] * (w_c - g0) / (rack.w_max - g0))
    d_up = -size * up_scale * lin["rack.gamma_up"] / (rack.w_max - g0)
    v_dn = size * down_scale * (1.0 - lin["rack.gamma_down"] * (w_c - g0) / (rack.w_min - g0))
    d_dn = -size * down_scale * lin["rack.gamma_down"] / (rack.w_min - g0)
    k = 2.0 * a / (rack.w_max - rack.w_min)            # dz/dw
    z_c = k * (w_c - g0) + rack.exp_b
    out = []
    for g_up in EXP_RATES:
        # up: S_u (1 - A_u e^(g z)), slope -S_u A_u g k e^(g z) = d_up, so its value is S_u + d_up / (g k) = v_up
        e_up = math.exp(g_up * z_c)
        s_up = v_up - d_up / (g_up * k)
        for g_dn in EXP_RATES:
            # down: S_d (1 - A_d e^(-g z)), slope S_d A_d g k e^(-g z) = d_dn, so its value is S_d - d_dn / (g k) = v_dn
            e_dn = math.exp(-g_dn * z_c)
            s_dn = v_dn + d_dn / (g_dn * k)
            if s_up <= 0.0 or s_dn <= 0.0:
                continue
            a_up = -d_up / (g_up * k * e_up * s_up)
            a_dn = d_dn / (g_dn * k * e_dn * s_dn)
            step = max(s_up, s_dn)
            asym = 1.0 - s_dn / s_up if s_up >= s_dn else -(1.0 - s_up / s_dn)
            out.append([step, asym, a_up, a_dn, g_up, g_dn])
    return out


#: The laws the fit knows, by ``rack.law``: the keys each fits (:data:`SIZE` the pulse's
#: nominal travel), starting points and bounds. ``piecewise`` is started node by node (:func:`_fit_piecewise`).
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
                       (SIZE, "rack.up_down", "rack.A_up", "rack.A_down", "rack.gamma_up", "rack.gamma_down"),
                       lambda t, s: [[_size0(t) * k, _asym0(t), au, ad, gu, gd] for k in (0.5, 1.0, 2.0)
                                     for au in (-1.0, -0.2, 0.3) for ad in (-1.0, -0.2, 0.3)
                                     for gu, gd in ((0.5, 0.5), (2.0, 2.0), (5.0, 5.0))] + _exp_from_linear(t, s),
                       (1e-7, -0.99, -50.0, -50.0, 0.0, 0.0), (1.0, 0.99, 50.0, 50.0, 50.0, 50.0)),
    "power": Law("power", {"rack.law": "power"}, (SIZE, "rack.up_down", "rack.pow_gamma", "rack.pow_up_down"),
                 lambda t, s: [[_size0(t), _asym0(t), g, 0.0] for g in (0.5, 2.0)],
                 (1e-7, -0.99, 0.0, -0.99), (1.0, 0.99, 100.0, 0.99)),
    "piecewise": Law("piecewise", {"rack.law": "piecewise"}, ("rack.piecewise_up", "rack.piecewise_down"),
                     lambda t, s: [], (), ()),
}

#: Which of two laws that fit a table alike is named first (fewer parameters first in any case):
#: bounds are a device's own figures, a linear step's slopes relative to nominal bounds are not.
PREFERENCE = ("constant", "soft-bounds", "linear", "power", "exponential", "piecewise")

#: The fewest pulses a table must have: laws of up to 5 parameters and their BIC need a few more.
MIN_PULSES = 10

#: The largest backlash (full scale) a fit considers, on a drive with gears.
BACKLASH_MAX = 0.2

#: Nodes of a fitted piecewise law (evenly spaced from w_min to w_max), unless the spec has its own.
PIECEWISE_NODES = 9


#: Starting points a law's fit takes on from its guesses, the ones whose replay is nearest the readings.
SCREENED = 3

#: The share of a table's pulses held out (its last pulses, from a reversal where there is one)
#: to choose a law by its replay error on pulses it was not fitted to.
HOLDOUT = 0.3

#: Two replay errors within this share of each other are the same fit (:func:`ties`; the one
#: rule for ties, which :func:`rank_fits` applies to the held-out errors and then to the
#: whole table's). On generated tables of 400 pulses with 10 % cycle-to-cycle noise the
#: held-out errors of laws that can all follow the device differ by up to a third from seed
#: to seed.
TIE_RMS = 0.1


def ties(error: float, best: float) -> bool:
    """Whether a replay error is the same fit as the best one: at most :data:`TIE_RMS` above it.

    Parameters
    ----------
    error, best : float
        Rms replay errors (full scale), ``best`` the lowest of those compared.

    Returns
    -------
    bool
        False for an error that is not a number.

    Examples
    --------
    >>> ties(0.0105, 0.01), ties(0.0115, 0.01), ties(float("nan"), 0.01)
    (True, False, False)
    """
    return bool(error <= best * (1.0 + TIE_RMS))


def rank_fits(fits: Sequence[LawFit]) -> list[LawFit]:
    """The laws fitted to one table, best first: by held-out replay error, ties broken by simplicity.

    The laws whose held-out error (:attr:`LawFit.heldout_rms`) :func:`ties` with the lowest,
    and of them those whose replay error over the whole table (:attr:`LawFit.rms`) ties with
    the lowest of theirs, are one fit: of them the law with the fewest parameters
    (:attr:`LawFit.k`) is named, then the one earlier in :data:`PREFERENCE`. The rest follow
    by held-out error. The second step keeps a law that follows the held-out pulses as well
    as the others but the whole table worse from being named for its few parameters; it
    compares the tied laws among themselves, so a law of many parameters that follows the
    whole table's accumulated noise (the piecewise law's 19) but not the held-out pulses
    does not empty the tie. BIC takes no part: where the noise accumulates the replay's
    residuals are correlated and its penalty is not the law's (it is shown as a guide).

    Parameters
    ----------
    fits : sequence of LawFit
        One table's fits, each with its held-out error.

    Returns
    -------
    list of LawFit

    Examples
    --------
    Held-out errors 0.0100 and 0.0104 tie, so the law with fewer parameters is named:

    >>> def fit(law, k, held, whole):
    ...     return LawFit(law, {}, np.full(4, whole), 4 * whole ** 2, k, 0.0, 0.0, heldout_rms=held)
    >>> [f.law for f in rank_fits([fit("exponential", 7, 0.0100, 0.020), fit("linear", 5, 0.0104, 0.021),
    ...                            fit("constant", 3, 0.0300, 0.050)])]
    ['linear', 'exponential', 'constant']
    """
    fits = list(fits)
    held = [f.heldout_rms for f in fits if np.isfinite(f.heldout_rms)]
    if not held:
        return sorted(fits, key=lambda f: f.rms)
    tied = [f for f in fits if ties(f.heldout_rms, min(held))]
    whole = min(f.rms for f in tied)
    tied = [f for f in tied if ties(f.rms, whole)]
    rank = {name: i for i, name in enumerate(PREFERENCE)}
    first = sorted(tied, key=lambda f: (f.k, rank.get(f.law, len(rank)), f.heldout_rms))
    rest = sorted((f for f in fits if not any(f is g for g in tied)),
                  key=lambda f: (not np.isfinite(f.heldout_rms), f.heldout_rms))
    return first + rest


def _bench(law: Law, spec: MachineSpec, a: float = 1.0) -> MachineSpec:
    """The spec a law's mean step is fitted in: its fixed keys, the exponential law's slope sign
    ``a`` with ``b = 0`` (aihwkit's a, b and A are not separable: ``A exp(gamma (2 a w / r + b))``
    is ``A exp(gamma b)`` times ``exp(2 a gamma w / r)``, so ``a = +-1``, ``b = 0`` and A of either
    sign and gamma >= 0 say every one of them), the device's noise off."""
    fixed = dict(law.fixed)
    if law.name == "exponential":
        fixed.update({"rack.exp_a": a, "rack.exp_b": 0.0})
    return spec.with_overrides({**BENCH, **fixed})


def _replayer(table: DeviceTable, spec: MachineSpec):
    """A function ``(spec, start) -> positions (n + 1,)``: the table's pulses replayed open loop
    by the rack's kernel (:func:`mark1.machine._kernels.pots.replay_pulses`)."""
    directions = table.direction.astype(float)
    out = np.empty(len(directions) + 1)

    def run(s: MachineSpec, start: float) -> np.ndarray:
        replay_pulses(directions, float(start), pulse_command(s), one_pot(1.0, 0, s.rack), drive_of(s.rack), out)
        return out.copy()
    return run


def fit_law(law: Law, table: DeviceTable, spec: MachineSpec, *, fit_pulses: int | None = None) -> LawFit:
    """Fit one law's parameters to a table by its open-loop replay.

    The law is run from a fitted start through the table's pulses, each from where the law
    (not the measurement) left it, and its parameters minimise the squared distance of the
    replay from the readings. Noise that does not accumulate (the write noise, the meter's)
    then only adds to the residuals; it does not bias the law, as it does a fit of each
    pulse's change from the measured position before it (an errors-in-variables bias).

    Parameters
    ----------
    law : Law
        From :data:`LAWS`.
    table : DeviceTable
    spec : MachineSpec
        The machine around the pot: its drive says what a pulse is (:func:`pulse_command`),
        its backlash and end stops act as in the machine.
    fit_pulses : int, optional
        Fit to the first ``fit_pulses`` pulses only (the residuals still cover them all).

    Returns
    -------
    LawFit
        With the noise terms (:func:`kalman_noise_terms`, from :func:`noise_terms`'s) and no intervals
        (:func:`bootstrap`).

    Examples
    --------
    A ratchet device whose steps of 0.01 full scale shrink linearly towards a bound at 0.5:

    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> w = [0.0]
    >>> for _ in range(30):
    ...     w.append(w[-1] + 0.01 * (1 - w[-1] / 0.5))
    >>> f = fit_law(LAWS["soft-bounds"], table_from_values(w, [1] * 30), spec)
    >>> round(f.params["rack.step"], 5), round(f.params["rack.w_max"], 4)
    (0.01, 0.5)
    """
    if law.name == "piecewise":
        best = _fit_piecewise(law, table, spec, _bench(law, spec))
    else:
        signs = (1.0, -1.0) if law.name == "exponential" else (1.0,)
        fits = [_fit_replay(law, table, spec, _bench(law, spec, a), fit_pulses) for a in signs]
        best = min(fits, key=lambda f: f.rss)
    if fit_pulses is not None or not (np.isfinite(best.dw_min_std) and np.isfinite(best.write_noise_std)):
        return best                  # a fit to part of the table is only held out: the variogram's terms do
    # the noise terms by the state-space model's likelihood, from the variogram's
    dw_std, write_std = kalman_noise_terms(table, fitted_spec(best, spec), best.start,
                                           guess=(best.dw_min_std, best.write_noise_std))
    # a noise term at the top of the range the likelihood searches is at its search bound (at the
    # bottom it is too small to tell from none, and written as that)
    edge = tuple(key for key, v, (_, hi) in zip(("rack.dw_min_std", "rack.write_noise_std"), (dw_std, write_std),
                                                KALMAN_RANGE) if v >= hi * (1 - 1e-3))
    return replace(best, dw_min_std=dw_std, write_noise_std=write_std, at_bound=best.at_bound + edge)


def _fit_replay(law: Law, table: DeviceTable, spec: MachineSpec, base: MachineSpec, fit_pulses) -> LawFit:
    n = len(table.direction) if fit_pulses is None else int(fit_pulses)
    keys = tuple(size_key(spec) if k == SIZE else k for k in law.keys)
    low, high = list(law.low), list(law.high)
    starts = [list(x0) + [float(table.position[0])] for x0 in law.guess(table, base)]
    geared = spec.rack.backlash > 0 and bool(np.any(np.diff(table.direction)))
    if geared:                 # a drive with gears: its backlash at the table's reversals is fitted too
        keys += ("rack.backlash",)
        low.append(0.0)
        high.append(BACKLASH_MAX)
        starts = [x0[:-1] + [float(spec.rack.backlash), x0[-1]] for x0 in starts]
    for i, key in enumerate(keys):        # the device reached every measured position, near enough
        spread = float(np.ptp(table.position))
        if key == "rack.w_max":
            low[i] = max(low[i], min(float(np.quantile(table.position, 0.99)), 1.0) - 0.02 * spread)
        elif key == "rack.w_min":
            high[i] = min(high[i], max(float(np.quantile(table.position, 0.01)), -1.0) + 0.02 * spread)
    low.append(-1.0)
    high.append(1.0)
    run = _replayer(table, spec)
    measured = table.position
    cache: dict[tuple, MachineSpec] = {}

    def spec_of(x) -> MachineSpec:
        key = tuple(float(v) for v in x[:-1])
        if key not in cache:
            cache.clear()
            cache[key] = base.with_overrides(dict(zip(keys, key)))
        return cache[key]

    def residual(x):
        try:
            s = spec_of(x)
        except SpecError:                  # a combination the spec refuses (e.g. w_min = g_zero): far off
            return np.full(n + 1, 10.0)
        return (measured - run(s, x[-1]))[:n + 1]

    if len(starts) > SCREENED:           # many starting points: the few nearest the readings go on
        costs = [float(np.sum(residual(np.clip(x0, low, high)) ** 2)) for x0 in starts]
        starts = [starts[i] for i in np.argsort(costs)[:SCREENED]]
    best = None
    for x0 in starts:
        x, r, _ = _minimize(residual, x0, low, high)
        if best is None or float(r @ r) < float(best[1] @ best[1]):
            best = (x, r)
    assert best is not None                       # every law but piecewise has a starting point
    x = best[0]
    fitted = spec_of(x)
    replayed = run(fitted, x[-1])
    r = measured[1:] - replayed[1:]
    at_bound = tuple(k for k, v, a, b in zip(keys, x[:-1], low, high) if min(v - a, b - v) < 1e-6 * (b - a))
    extra = {f"rack.{k}": float(v) for k, v in base.to_dict()["rack"].items()
             if law.name == "exponential" and k in ("exp_a", "exp_b")}
    params = {**_drive(spec), **law.fixed, **extra, **{key: float(v) for key, v in zip(keys, x[:-1])}}
    dw_std, write_std = noise_terms(table, replayed, fitted)
    return _law_fit(law.name, params, r, len(keys) + 1, replayed[1:], dw_min_std=dw_std, write_noise_std=write_std,
                    at_bound=at_bound, start=float(x[-1]))


#: Lags of the residuals' variogram that :func:`noise_terms` fits (at most; a tenth of the pulses at least 2).
NOISE_LAGS = 20


def noise_terms(table: DeviceTable, replayed: np.ndarray, spec: MachineSpec) -> tuple[float, float]:
    """The noise that accumulates and the noise that does not, from the replay's residuals.

    A reading is ``y_k = x_k + e_k``: the device's persistent state ``x_k``, which carries
    every pulse's cycle-to-cycle noise ``c_k`` (``dw_min_std * m_k * xi``, ``m_k`` the law's
    step) from then on, and the write and read noise ``e_k`` (sigma ``s_w``), drawn anew at
    every reading. The residuals ``u_k = y_k - replay_k`` then have the variogram
    ``mean((u_{k+L} - u_k)^2) = 2 s_w^2 + L dw_min_std^2 mean(m^2)``: a line in the lag ``L``
    whose intercept is the noise that does not accumulate and whose slope is the noise that
    does. The line is fitted over lags 1 to :data:`NOISE_LAGS` (least squares; a negative
    estimate is 0). Where the noise that accumulates is small against the noise that does
    not (0.3 of a step against 10 steps), the slope is a small share of the variogram and
    the estimate is too high (measured: 1.7-3 times); :func:`fit_law` starts
    :func:`kalman_noise_terms` from it, which is not biased so.
    Several lags, not the first alone, keep noise that lasts a pulse or two
    from being counted as accumulating.

    Returns
    -------
    (float, float)
        ``dw_min_std`` (relative to the law's step) and ``write_noise_std`` (in steps of
        :func:`pulse_command`), the meter's noise included in the second.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> t = table_from_values(np.r_[0.0, np.cumsum(np.full(50, 0.01))], [1] * 50)
    >>> noise_terms(t, t.position, spec)
    (0.0, 0.0)
    """
    m = np.diff(replayed)
    u = table.position - replayed
    n_lags = min(NOISE_LAGS, max(2, len(u) // 10))
    if len(u) < n_lags + 2 or not np.any(m):
        return float("nan"), float("nan")
    lags = np.arange(1, n_lags + 1)
    v = np.array([np.mean((u[lag:] - u[:-lag]) ** 2) for lag in lags])
    slope, intercept = np.linalg.lstsq(np.c_[lags, np.ones(n_lags)], v, rcond=None)[0]
    c2 = max(float(slope), 0.0) / float(np.mean(m ** 2))
    s_w2 = max(float(intercept), 0.0) / 2.0
    return float(math.sqrt(c2)), float(math.sqrt(s_w2) / pulse_command(spec))


#: Points of the grid on which :func:`kalman_noise_terms` tabulates the fitted law's step (over [-1, 1]).
KALMAN_GRID = 801


def _step_grids(spec: MachineSpec) -> np.ndarray:
    """The law's mean step of one pulse from each point of a grid over [-1, 1]: array (2, 2, G),
    indexed by the pulse's direction (0 up, 1 down) and whether it reverses the last pulse
    (0 no, 1 yes: backlash acts), from the rack's kernel (:meth:`PotentiometerRack.plan`)."""
    grid = np.linspace(-1.0, 1.0, KALMAN_GRID)
    out = np.zeros((2, 2, KALMAN_GRID))
    bench = spec.with_overrides(BENCH)
    for i, d in enumerate((1, -1)):
        for j, last in enumerate((d, -d)):
            rack = PotentiometerRack(bench.rack, 1, KALMAN_GRID, bench.response.n_responses)
            rack.mask[:] = True
            rack.p_from[0] = rack.p_to[0] = grid
            rack.last_dir[0, :] = last
            command = np.full((1, KALMAN_GRID), d * pulse_command(bench))
            idx, start, target = rack.plan(command, 0.0)[:3]
            out[i, j, idx[1]] = target - start
    return out


def _filter_inputs(table: DeviceTable, spec: MachineSpec) -> tuple[list, list, list, float, bool]:
    """What the state-space filters read of a table: the readings, each pulse's step grid (0 up,
    1 up just after a reversal, 2 down, 3 down just after a reversal), the pulses left out
    (:func:`still_pulses`), the travel a pulse commands and whether the accumulating noise scales
    with the step."""
    d = table.direction.astype(int)
    rev = np.r_[False, d[1:] != d[:-1]]
    which = (2 * (d < 0) + rev).astype(int).tolist()
    return (table.position.tolist(), which, still_pulses(table.position).tolist(), pulse_command(spec),
            bool(spec.rack.mult_noise))


def _kalman_nll(c: float, s_w: float, y, which, grids: np.ndarray, cmd: float, mult: bool, x0: float,
                skip=None) -> float:
    """Minus twice the log-likelihood (up to a constant) of the readings ``y`` under the state-space
    model of :func:`kalman_noise_terms`, by an extended Kalman filter (the law linearised at each
    filtered state). ``which`` (n,) indexes ``grids`` reshaped to (4, G): direction and reversal.
    ``skip`` (n,) marks pulses that did not move the device (:func:`still_pulses`): no move, no reading."""
    flat = [g.tolist() for g in grids.reshape(4, -1)]
    h = 2.0 / (KALMAN_GRID - 1)
    last = KALMAN_GRID - 2
    r = (s_w * cmd) ** 2
    q_add = (c * cmd) ** 2
    c2 = c * c
    x, p, nll = x0, r, 0.0
    for k in range(len(which)):
        if skip is not None and skip[k]:
            continue
        g = flat[which[k]]
        t = (x + 1.0) / h
        i = min(max(int(t), 0), last)
        slope = g[i + 1] - g[i]
        m = g[i] + (t - i) * slope
        xp = x + m
        f = 1.0 + slope / h
        pp = f * f * p + (c2 * m * m if mult else q_add)
        s = pp + r
        v = y[k + 1] - xp
        nll += math.log(s) + v * v / s
        gain = pp / s
        x = min(max(xp + gain * v, -1.0), 1.0)
        p = (1.0 - gain) * pp
    return nll


def _nelder_mead(f: Callable[[np.ndarray], float], x0, step: float = 0.5, iters: int = 200,
                 tol: float = 1e-5, xtol: float = 1e-4) -> np.ndarray:
    """Nelder and Mead's simplex (reflection 1, expansion 2, contraction and shrink 1/2): the minimum of
    ``f`` near ``x0``, a few parameters, no derivatives. It stops where the simplex's values lie within
    ``tol`` (relative to 1 + the best) and its points within ``xtol`` of the best."""
    n = len(x0)
    pts = [np.asarray(x0, float)] + [np.asarray(x0, float) + step * np.eye(n)[i] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = np.argsort(vals)
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        if abs(vals[-1] - vals[0]) <= tol * (1.0 + abs(vals[0])) and max(
                float(np.max(np.abs(p - pts[0]))) for p in pts[1:]) < xtol:
            break
        centre = np.mean(pts[:-1], axis=0)
        xr = centre + (centre - pts[-1])
        fr = f(xr)
        if fr < vals[0]:
            xe = centre + 2.0 * (centre - pts[-1])
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = centre + 0.5 * (pts[-1] - centre)
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                pts = [pts[0]] + [pts[0] + 0.5 * (p - pts[0]) for p in pts[1:]]
                vals = [vals[0]] + [f(p) for p in pts[1:]]
    return pts[int(np.argmin(vals))]


#: The range :func:`kalman_noise_terms` searches: ``dw_min_std`` and ``write_noise_std`` (steps).
KALMAN_RANGE = ((1e-3, 100.0), (1e-2, 1e4))

#: Readings in a row, each exactly the one before, that say the device did not move (:func:`still_pulses`).
STILL = 3


def still_pulses(position: np.ndarray) -> np.ndarray:
    """The pulses after which the device did not move: array (n,) bool, the pulses of each run of
    :data:`STILL` or more readings exactly alike.

    A pulse that an end stop cuts whole does not move the pot, and the rack writes nothing: its
    reading is the last one again, write noise and all. A device held at its stop thus leaves
    runs of equal readings that are not new draws of the write noise, and the state-space model
    (:func:`kalman_noise_terms`) leaves those pulses out. Two equal readings are not enough: a
    meter of few digits repeats a reading now and then (the Gong et al. trace: 41 pairs, and
    runs of three and four readings once each, in 2,000).

    Examples
    --------
    >>> still_pulses(np.array([0.0, 0.1, 0.1, 0.2, 0.3, 0.3, 0.3, 0.3, 0.2])).astype(int).tolist()
    [0, 0, 0, 0, 1, 1, 1, 0]
    """
    same = np.diff(np.asarray(position, float)) == 0
    edges = np.flatnonzero(np.diff(np.concatenate(([0], same.astype(np.int8), [0]))))
    starts, ends = edges[::2], edges[1::2]              # each run of equal readings: same[start:end]
    long = ends - starts + 1 >= STILL
    mark = np.zeros(len(same) + 1, np.int64)
    mark[starts[long]] += 1
    mark[ends[long]] -= 1
    return np.cumsum(mark[:-1]) > 0


def kalman_noise_terms(table: DeviceTable, spec: MachineSpec, start: float, guess=(0.3, 3.0)
                       ) -> tuple[float, float]:
    """The noise that accumulates and the noise that does not, by the likelihood of a state-space model.

    The device's persistent state moves by the fitted law's step from where it is, plus its
    cycle-to-cycle noise, and each reading adds the write and read noise:

    ``x_k = x_{k-1} + m(x_{k-1}, d_k) + c s_k xi_k``,  ``y_k = x_k + s_w p e_k``,

    with ``m`` the law's mean step (the rack's kernel, tabulated on a grid; pulses after which the
    device did not move, held at an end stop, left out: :func:`still_pulses`), ``s_k = m`` when
    the cycle-to-cycle noise is multiplicative (``rack.mult_noise``, aihwkit's default) or
    the pulse's step ``p`` (:func:`pulse_command`) when it is added, and ``xi``, ``e``
    independent standard normal draws. An extended Kalman filter (the law linearised at each
    filtered state) gives the likelihood of the readings; ``c`` (``dw_min_std``) and ``s_w``
    (``write_noise_std``, in steps) maximise it (a Nelder-Mead search over their logarithms
    from ``guess``, within :data:`KALMAN_RANGE`). Unlike the variogram of the replay's
    residuals (:func:`noise_terms`), the filter follows the device's state where the noise
    carried it, so the law's pull back toward its bounds (soft bounds, exponential steps)
    and a noise that is small against the other are both accounted for.

    Parameters
    ----------
    table : DeviceTable
    spec : MachineSpec
        The fitted law (its noise terms are not read).
    start : float
        The fitted state before the first pulse.
    guess : (float, float)
        Starting ``dw_min_std`` and ``write_noise_std``.

    Returns
    -------
    (float, float)
        ``dw_min_std`` (relative to the law's step, or to ``p`` when added) and
        ``write_noise_std`` (in steps ``p``; the meter's noise included).

    Examples
    --------
    A constant step with cycle-to-cycle noise 0.5 and write noise 3 steps, 600 pulses:

    >>> from mark1.specs import MARK_I
    >>> dev = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0, "rack.step": 0.002,
    ...                              "rack.dw_min_std": 0.5, "rack.write_noise_std": 3.0})
    >>> t = pulse_table(dev, (150, 150, 150, 150), seed=1)
    >>> c, s_w = kalman_noise_terms(t, dev, 0.0)
    >>> bool(0.4 < c < 0.6), bool(2.7 < s_w < 3.3)       # seeds 0-5 gave c 0.33-0.58, s_w 2.82-3.03
    (True, True)
    """
    grids = _step_grids(spec)
    y, which, skip, cmd, mult = _filter_inputs(table, spec)
    (c_lo, c_hi), (s_lo, s_hi) = KALMAN_RANGE
    lo, hi = np.log([c_lo, s_lo]), np.log([c_hi, s_hi])

    def nll(theta):
        th = np.clip(theta, lo, hi)
        penalty = float(np.sum((theta - th) ** 2)) * 1e3      # outside the range: uphill
        return _kalman_nll(float(np.exp(th[0])), float(np.exp(th[1])), y, which, grids, cmd, mult, start,
                           skip) + penalty

    x0 = np.clip(np.log([max(guess[0], 0.02), max(guess[1], 0.1)]), lo, hi)
    best = np.clip(_nelder_mead(nll, x0), lo, hi)
    return float(np.exp(best[0])), float(np.exp(best[1]))


def _drive(spec: MachineSpec) -> dict:
    """What a pulse was in the fit, written with the law: the drive, and its backlash (fitted
    instead where the drive has gears and the table reverses)."""
    return {"rack.drive": spec.rack.drive, "rack.backlash": float(spec.rack.backlash)}


def _law_fit(name: str, params: dict, r: np.ndarray, k: int, predicted: np.ndarray, **kw) -> LawFit:
    n = len(r)
    rss = float(r @ r)
    ll = n * math.log(max(rss / n, 1e-300))
    return LawFit(law=name, params=params, residuals=r, rss=rss, k=k, aic=ll + 2 * (k + 1),
                  bic=ll + (k + 1) * math.log(n), predicted=predicted, **kw)


def _fit_piecewise(law: Law, table: DeviceTable, spec: MachineSpec, base: MachineSpec) -> LawFit:
    """The piecewise law's node factors: started by linear least squares on each pulse's change
    (the kernel's step is linear in the nodes, so its columns are the steps of each node alone,
    the kernel's own interpolation, up and down apart; pulses that start or end at the travel's
    ends are left out, an end stop cuts them; nodes no pulse reaches take their neighbours'
    value), then fitted by their open-loop replay like every other law: the one-step fit takes
    each pulse from a measured position the write noise has moved (an errors-in-variables bias).

    The nodes span the measured travel: the pot's bounds (``rack.w_max``, ``rack.w_min``, so
    its end stops too) are set to the highest and lowest reading (0 kept inside), so the
    table is the law where it was measured and nothing is claimed beyond."""
    nodes = len(spec.rack.piecewise_up) if len(spec.rack.piecewise_up) > 1 else PIECEWISE_NODES
    measured = table.step
    travel = {"rack.w_max": float(np.clip(table.position.max(), 1e-3, 1.0)),
              "rack.w_min": float(np.clip(table.position.min(), -1.0, -1e-3))}
    base = base.with_overrides(travel)
    factors = {}
    inside = (table.position < table.position.max()) & (table.position > table.position.min())
    for name, sign in (("rack.piecewise_up", 1), ("rack.piecewise_down", -1)):
        rows = (table.direction == sign) & inside[:-1] & inside[1:]
        if not rows.any():
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
        factors[name] = tuple(float(v) for v in np.clip(f, 0.0, 100.0))
    run = _replayer(table, spec)

    def residual(x):
        return table.position - run(base.with_overrides({"rack.piecewise_up": tuple(map(float, x[:nodes])),
                                                         "rack.piecewise_down": tuple(map(float, x[nodes:-1]))}),
                                    x[-1])
    x0 = [*factors["rack.piecewise_up"], *factors["rack.piecewise_down"], float(table.position[0])]
    x = _minimize(residual, x0, [0.0] * (2 * nodes) + [-1.0], [100.0] * (2 * nodes) + [1.0])[0]
    factors = {"rack.piecewise_up": tuple(float(v) for v in x[:nodes]),
               "rack.piecewise_down": tuple(float(v) for v in x[nodes:-1])}
    fitted = base.with_overrides(factors)
    replayed = run(fitted, float(x[-1]))
    r = table.position[1:] - replayed[1:]
    params = {**_drive(spec), **law.fixed, **travel, **factors}
    dw_std, write_std = noise_terms(table, replayed, fitted)
    return _law_fit(law.name, params, r, 2 * nodes + 1, replayed[1:], dw_min_std=dw_std, write_noise_std=write_std,
                    start=float(x[-1]))


@dataclass(frozen=True)
class DeviceFit:
    """Every law fitted to one table, best first.

    Attributes
    ----------
    fits : list of LawFit
        Sorted by held-out replay error (:data:`HOLDOUT`), ties (:data:`TIE_RMS`) broken by
        fewer parameters, then :data:`PREFERENCE` (:func:`rank_fits`); ``fits[0]`` is the best.
    table : DeviceTable
    spec : MachineSpec
        The machine the laws were fitted in.
    warnings : tuple of str
        What the reader should know: parameters at their search bound, noise terms cut to
        what the spec takes.

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
    warnings: tuple = ()

    @property
    def best(self) -> LawFit:
        """The law with the lowest held-out replay error."""
        return self.fits[0]

    def report(self) -> str:
        """A table of the laws, best first: replay errors, BIC, noise terms, parameters (with intervals)."""
        b = self.best
        best_bic = min(f.bic for f in self.fits)
        lines = [f"{len(self.table.step)} pulses from {self.table.source or 'a table'}; each law replayed open loop "
                 f"by the machine's pot kernel and fitted to the readings; held out: the last "
                 f"{HOLDOUT:.0%} of the pulses (full scale)",
                 f"  {'law':<12} {'k':>2} {'replay rms':>10} {'held out':>9} {'dBIC':>7} {'dw_min_std':>10} "
                 f"{'write noise':>11}  parameters"]
        for f in self.fits:
            params = ", ".join(_with_interval(k, v, f) for k, v in f.params.items()
                               if isinstance(v, float) and k not in _fixed_keys(f.law) and (k != "rack.backlash" or v))
            lines.append(f"  {f.law:<12} {f.k:>2} {f.rms:>10.3g} {f.heldout_rms:>9.3g} {f.bic - best_bic:>7.1f} "
                         f"{f.dw_min_std:>10.3g} {f.write_noise_std:>11.3g}  {params}")
        lines.append(f"best: {b.law} (lowest replay error on the held-out pulses, errors within {TIE_RMS:.0%} of "
                     "each other a tie named for fewer parameters; BIC beside it, a guide where the noise "
                     "accumulates; write noise in steps, meter noise included)")
        noise = [f"{NOISE_WORDS[k]} [{b.intervals[k][0]:.3g}, {b.intervals[k][1]:.3g}]"
                 + (" steps" if k == "rack.write_noise_std" else "") for k in NOISE_WORDS if k in b.intervals]
        if noise:
            lines.append(f"{b.law}'s noise terms, 95 % intervals: " + "; ".join(noise))
        lines += [f"not pinned: {w}" for w in unpinned_words(b)]
        if b.interval_note:
            lines.append(f"intervals: {b.interval_note}")
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)


def unpinned_words(fit: LawFit) -> list[str]:
    """What the table says of each term it cannot pin (:attr:`LawFit.unpinned`): one line each, the
    bound the data give rather than an interval that reads as a verdict.

    Examples
    --------
    >>> f = LawFit("constant", {"rack.step": 0.01}, np.zeros(80), 0.0, 3, 0.0, 0.0,
    ...            intervals={"rack.dw_min_std": (0.0, 0.37)}, unpinned=("rack.dw_min_std",))
    >>> unpinned_words(f)
    ['too few pulses to pin the cycle-to-cycle noise (80 pulses): at most 0.37 (95 %), not told from none']
    """
    out = []
    n = len(fit.residuals)
    for key in fit.unpinned:
        lo, hi = fit.intervals.get(key, (math.nan, math.nan))
        unit = " steps" if key == "rack.write_noise_std" else ""
        what = NOISE_WORDS.get(key, key.split(".", 1)[-1])
        head = f"too few pulses to pin the {what} ({n} pulses): "
        if key in NOISE_WORDS and lo == 0.0:
            out.append(head + f"at most {hi:.3g}{unit} (95 %), not told from none")
        elif key in NOISE_WORDS:
            out.append(head + f"at least {lo:.3g}{unit} (95 %), no upper bound within the range searched")
        else:
            out.append(head + f"anywhere in [{lo:.4g}, {hi:.4g}] (95 %), which reaches the end of the range the "
                       "fit searches")
    return out


def _with_interval(key: str, v: float, f: LawFit) -> str:
    name = key.split(".", 1)[1]
    if key in f.intervals:
        lo, hi = f.intervals[key]
        return f"{name}={v:.4g} [{lo:.4g}, {hi:.4g}]"
    return f"{name}={v:.4g}"


def _fixed_keys(law_name: str) -> set:
    law = LAWS.get(law_name)
    return set(law.fixed) if law else set()


def _holdout_split(direction: np.ndarray) -> int:
    """Pulses fitted before the held-out rest: about 1 - HOLDOUT of them, moved to the nearest
    reversal within a tenth of the table where there is one."""
    n = len(direction)
    cut = int(round(n * (1.0 - HOLDOUT)))
    edges = np.flatnonzero(np.diff(direction)) + 1
    near = edges[np.abs(edges - cut) <= n // 10]
    return int(near[np.abs(near - cut).argmin()]) if len(near) else cut


#: Pulses of each window of the held-out replay (:func:`heldout_error`).
WINDOW = 50


def heldout_error(fit: LawFit, table: DeviceTable, spec: MachineSpec, cut: int) -> float:
    """Rms error of a law fitted to the first ``cut`` pulses, replayed over the rest in windows
    of :data:`WINDOW` pulses, each from the state the readings before it say.

    Windows rather than one replay to the end: the noise that accumulates carries a device
    away from any law's replay over a long run, which would rank laws by chance. A window
    starts where the law's own replay stands, moved by the mean residual of the
    :data:`ANCHOR` readings before it: the write and read noise of a single reading then
    hardly moves the start, and the accumulated noise is followed.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> table = pulse_table(spec, (20, 20))
    >>> heldout_error(fit_law(LAWS["constant"], table, spec), table, spec, 28) < 1e-9
    True
    """
    s = fitted_spec(fit, spec)
    replayed = _replayer(table, s)(s, fit.start)              # the law's own path over the whole table
    residual = table.position - replayed
    errors = []
    for i in range(cut, len(table.direction), WINDOW):
        j = min(i + WINDOW, len(table.direction))
        part = DeviceTable(table.position[i:j + 1], table.direction[i:j], table.value[i:j + 1], table.scale)
        start = float(np.clip(replayed[i] + residual[max(i - ANCHOR + 1, 0):i + 1].mean(), -1.0, 1.0))
        errors.append(part.position[1:] - _replayer(part, s)(s, start)[1:])
    if not errors:
        return float("nan")
    e = np.concatenate(errors)
    return float(np.sqrt(np.mean(e ** 2)))


#: Readings before a held-out window whose mean residual places its start (:func:`heldout_error`).
ANCHOR = 10


def fit_table(table: DeviceTable, spec: MachineSpec, laws: Sequence[str] | None = None, *,
              bootstrap_samples: int = 0, seed: int = 0, progress: bool = False, intervals: bool = False
              ) -> DeviceFit:
    """Fit every law (or those named) to a table and rank them by held-out replay error.

    Each law is fitted twice: to the first ``1 - HOLDOUT`` of the pulses, its replay over
    the rest scored (:attr:`LawFit.heldout_rms`), and to them all (its parameters, BIC and
    noise terms). The best law gets 95 % intervals from the restricted likelihood when
    ``intervals`` is set (:func:`profile_intervals`), or from a parametric bootstrap when
    ``bootstrap_samples`` is given (:func:`bootstrap`; its intervals fall short of 95 % where a
    noise term is loosely pinned).

    Parameters
    ----------
    table : DeviceTable
    spec : MachineSpec
        The machine around the pot.
    laws : sequence of str, optional
        Names from :data:`LAWS` (default all).
    bootstrap_samples : int
        Tables simulated from the best law for its intervals (0: none); these replace the
        restricted likelihood's.
    seed : int
        Seed of the bootstrap's tables.
    progress : bool
        Show a progress bar (with tqdm's estimate of the time left) over the fits.
    intervals : bool
        The best law's intervals from the restricted likelihood (:func:`profile_intervals`).

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
    cut = _holdout_split(table.direction)
    first = DeviceTable(table.position[:cut + 1], table.direction[:cut], table.value[:cut + 1], table.scale,
                        table.source)
    fits = []
    bar = progress_bar(2 * len(names) + bootstrap_samples, "fit", show=progress)
    try:
        for name in names:
            full = fit_law(LAWS[name], table, spec)
            bar.update(1)
            held = fit_law(LAWS[name], first, spec)
            bar.update(1)
            fits.append(replace(full, heldout_rms=heldout_error(held, table, spec, cut)))
        fits = rank_fits(fits)
        if bootstrap_samples:
            fits[0] = bootstrap(fits[0], table, spec, bootstrap_samples, seed=seed, bar=bar)
        elif intervals:
            fits[0] = profile_intervals(fits[0], table, spec)
    finally:
        bar.close()
    warnings = [f"{f.law}: {', '.join(f.at_bound)} at the search bound (the fit may want a value beyond it)"
                for f in fits[:1] if f.at_bound]
    warnings += [f"{fits[0].law}: {c}" for c in _loadable({**fits[0].params, **_noise_params(fits[0])})[1]]
    return DeviceFit(fits=fits, table=table, spec=spec, warnings=tuple(warnings))


def bootstrap(fit: LawFit, table: DeviceTable, spec: MachineSpec, samples: int = 30, *, seed: int = 0,
              bar=None) -> LawFit:
    """95 % intervals of a fit's parameters and noise terms by a parametric bootstrap.

    ``samples`` tables are simulated from the fitted law with its fitted noise (the machine's
    own pot, :func:`pulse_table`, the same pulse train and start), each refitted like the
    table; each interval is the 2.5th to 97.5th percentile of the refits. The pulses of a
    table are not independent (the state carries each pulse's noise to the next), which is
    why the tables are simulated rather than resampled. Few samples make the intervals short
    of 95 %: they enclose on average 0.95 (samples - 1) / (samples + 1) of the refits'
    distribution (74 % for 8, 89 % for 30, 93 % for 100); on 18 generated tables of known
    truth, 8 samples each, 54 of 72 held the truth. The tables are simulated with the fitted
    noise terms, so the intervals hold only as far as those do: on 40 short tables (80 pulses
    of a constant step, cycle-to-cycle 0.3 against 3 steps of write noise; the study is
    ``benchmarks/device_fit_coverage.py``), 100 samples each, the intervals held the step
    57.5 % of the time, ``up_down`` 55 %, ``dw_min_std`` 7.5 % and the write noise 80 %; the
    cycle-to-cycle noise of 10 of the first 12 was fitted at the bottom of its range, and
    refits simulated with the true noise terms held the step on all 12 and ``up_down`` on 11.
    Read the intervals as a lower bound of the uncertainty where a noise term is loosely
    pinned; :func:`profile_intervals` (the restricted likelihood's, what ``mark1 device fit``
    reports) reaches 95 % there. Where both are pinned (40 tables of 400 pulses, cycle-to-cycle 1.0 against 1 step)
    they held the step 100 % of the time, ``up_down`` 95 %, ``dw_min_std`` 87.5 % and the write
    noise 97.5 %.

    Returns
    -------
    LawFit
        ``fit`` with :attr:`LawFit.intervals` filled.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> noisy = spec.with_overrides({"rack.write_noise_std": 2.0})
    >>> table = pulse_table(noisy, (15, 15), seed=1)
    >>> f = bootstrap(fit_law(LAWS["constant"], table, spec), table, spec, 4)
    >>> lo, hi = f.intervals["rack.step"]
    >>> bool(lo <= f.params["rack.step"] <= hi)
    True
    """
    noisy = fitted_spec(fit, spec, noise=True)
    keys = [k for k, v in fit.params.items() if isinstance(v, float) and k not in _fixed_keys(fit.law)
            and (k != "rack.backlash" or v) and k not in ("rack.exp_a", "rack.exp_b")]
    draws: dict[str, list[float]] = {k: [] for k in [*keys, "rack.dw_min_std", "rack.write_noise_std"]}
    pulses = runs(table.direction)
    for b in range(samples):
        sim = pulse_table(noisy, pulses, start=float(np.clip(fit.start, -1.0, 1.0)), seed=seed * 100_003 + b)
        refit = fit_law(LAWS[fit.law], sim, spec)
        for k in keys:
            draws[k].append(float(refit.params.get(k, np.nan)))
        draws["rack.dw_min_std"].append(refit.dw_min_std)
        draws["rack.write_noise_std"].append(refit.write_noise_std)
        if bar is not None:
            bar.update(1)
    intervals = {k: (float(np.nanpercentile(v, 2.5)), float(np.nanpercentile(v, 97.5)))
                 for k, v in draws.items() if np.isfinite(v).sum() >= 2}
    return replace(fit, intervals=intervals)


#: The likelihood-ratio statistic that bounds a 95 % profile-likelihood interval (chi-squared, one
#: degree of freedom), and the normal quantile of a 95 % interval.
LR_95 = 3.841458820694124
Z_95 = 1.959963984540054

#: Names of the noise terms in words, for a term the table cannot pin (:func:`profile_intervals`).
NOISE_WORDS = {"rack.dw_min_std": "cycle-to-cycle noise", "rack.write_noise_std": "write noise"}

#: The prior standard deviation of each law parameter in the restricted likelihood, in the
#: parameter's own standard errors (:func:`profile_intervals`; at most the width of its range): wide
#: enough to be flat.
DIFFUSE = 1e3


def _interval_keys(fit: LawFit, spec: MachineSpec) -> list[tuple[str, float, float]]:
    """The law's fitted keys with the range an interval stays in (the law's search bounds): (key, low, high).
    The piecewise law's node factors are not given intervals (see :func:`profile_intervals`)."""
    law = LAWS.get(fit.law)
    if law is None or fit.law == "piecewise":
        return []
    out = [(size_key(spec) if k == SIZE else k, lo, hi) for k, lo, hi in zip(law.keys, law.low, law.high)]
    if fit.params.get("rack.backlash") and spec.rack.backlash > 0:
        out.append(("rack.backlash", 0.0, BACKLASH_MAX))
    return [(k, lo, hi) for k, lo, hi in out if isinstance(fit.params.get(k), float)]


def _restricted_nll(c: float, s_w: float, y, which, g0: np.ndarray, jac: np.ndarray, cmd: float, mult: bool,
                    skip, prior_sd: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Minus twice the restricted log-likelihood (up to a constant) of the noise terms, and the law's
    parameters given them.

    The filter of :func:`_kalman_nll` with the law's parameters in its state: the step is the
    fitted law's grid ``g0`` plus ``jac`` (its derivative in each parameter) times their offsets
    from the fit, which start at 0 with standard deviations ``prior_sd`` (wide: nearly flat), so
    the filter integrates them out. Returns the statistic, the offsets' estimate (k,) and its
    covariance (k, k) given ``c`` and ``s_w`` (the filter compiled: :func:`_restricted_filter`)."""
    k = len(prior_sd)
    flat = np.ascontiguousarray(np.reshape(g0, (4, -1)), dtype=np.float64)
    jf = np.ascontiguousarray(np.reshape(jac, (k, 4, flat.shape[1])), dtype=np.float64)
    nll, a, p = _restricted_filter(float(c), float(s_w), np.asarray(y, np.float64), np.asarray(which, np.int64),
                                   flat, jf, float(cmd), bool(mult), np.asarray(skip, np.bool_),
                                   np.asarray(prior_sd, np.float64))
    return float(nll), a, p


@compiled
def _restricted_filter(c, s_w, y, which, flat, jf, cmd, mult, skip, prior_sd):
    """:func:`_restricted_nll`'s filter over the pulses: ``flat`` (4, G) the step grids, ``jf``
    (k, 4, G) their derivatives in the law's k parameters; the transition differs from the
    identity in its first row only (``f``), so F P F' changes that row and column alone."""
    k = prior_sd.shape[0]
    h = 2.0 / (KALMAN_GRID - 1)
    last = KALMAN_GRID - 2
    r = (s_w * cmd) ** 2
    q_add = (c * cmd) ** 2
    c2 = c * c
    a = np.zeros(k + 1)
    a[0] = y[0]
    p = np.zeros((k + 1, k + 1))
    p[0, 0] = r
    for j in range(k):
        p[j + 1, j + 1] = prior_sd[j] * prior_sd[j]
    f = np.zeros(k + 1)
    u = np.zeros(k + 1)
    gain = np.zeros(k + 1)
    nll = 0.0
    for t in range(which.shape[0]):
        if skip[t]:
            continue
        w = which[t]
        x = a[0]
        pos = (x + 1.0) / h
        i = min(max(int(pos), 0), last)
        frac = pos - i
        slope = flat[w, i + 1] - flat[w, i]
        dot = 0.0
        for j in range(k):
            f[j + 1] = jf[j, w, i] + frac * (jf[j, w, i + 1] - jf[j, w, i])
            dot += f[j + 1] * a[j + 1]
        m = flat[w, i] + frac * slope + dot
        a[0] = x + m
        f[0] = 1.0 + slope / h
        for row in range(k + 1):
            acc = 0.0
            for col in range(k + 1):
                acc += p[row, col] * f[col]
            u[row] = acc
        fu = 0.0
        for row in range(k + 1):
            fu += f[row] * u[row]
        for row in range(k + 1):
            p[0, row] = u[row]
            p[row, 0] = u[row]
        p[0, 0] = fu + (c2 * m * m if mult else q_add)
        s = p[0, 0] + r
        if not s > 0.0:                 # the covariance lost to rounding: no likelihood
            return np.inf, a[1:].copy(), p[1:, 1:].copy()
        v = y[t + 1] - a[0]
        nll += math.log(s) + v * v / s
        for row in range(k + 1):
            gain[row] = p[row, 0] / s
        for row in range(k + 1):
            a[row] += gain[row] * v
        a[0] = min(max(a[0], -1.0), 1.0)
        for col in range(k + 1):
            u[col] = p[0, col]
        for row in range(k + 1):
            for col in range(k + 1):
                p[row, col] -= gain[row] * u[col]
    return nll, a[1:].copy(), p[1:, 1:].copy()


def _parabola_min(f: Callable[[float], float], x: float, h: float = 0.1, iters: int = 8, xtol: float = 0.005
                  ) -> float:
    """The minimum of a smooth function of one variable near ``x``: the vertex of the parabola through
    three points ``h`` apart, again about each vertex with ``h`` shrunk to the last move (at most 4
    ``h`` a move; downhill by 2 ``h`` where the points curve down), until a move is under ``xtol``."""
    for _ in range(iters):
        lo, mid, hi = f(x - h), f(x), f(x + h)
        curve = lo + hi - 2.0 * mid
        move = 0.5 * h * (lo - hi) / curve if curve > 0 else (2.0 * h if hi < lo else -2.0 * h)
        move = max(min(move, 4.0 * h), -4.0 * h)
        x += move
        if abs(move) < xtol:
            break
        h = max(min(abs(move), h), 2.0 * xtol)
    return x


def _ends(prof: Callable[[float], float], centre: float, scale: float, low: float, high: float
          ) -> list[tuple[float, bool]]:
    """The two ends of a profile interval: where ``prof`` (the statistic less its minimum, 0 at
    ``centre``) reaches :data:`LR_95`, searched outwards from ``centre`` in steps of about ``scale``
    (its signed root is nearly linear: each step aims just past the end; then secant steps within
    the bracket until the root is within 0.02 of the end's), or the range's end
    (``low``, ``high``) where it does not. Returns ``[(low end, reached the range), (high end, ...)]``."""
    out = []
    q = math.sqrt(LR_95)
    for side, edge in ((-1.0, low), (1.0, high)):
        dist, last, end = 2.0 * scale, (0.0, 0.0), None
        for _ in range(12):
            at_edge = dist >= abs(edge - centre)
            if at_edge:
                dist = abs(edge - centre)
            root = math.sqrt(max(prof(centre + side * dist), 0.0))
            if root >= q:                                   # beyond: the end lies between here and the last point
                (d0, r0), (d1, r1) = last, (dist, root)
                for _ in range(10):                         # secant steps, kept inside the bracket
                    end = d0 + (d1 - d0) * (q - r0) / (r1 - r0)
                    if not d0 + 0.1 * (d1 - d0) < end < d1 - 0.1 * (d1 - d0):
                        end = 0.5 * (d0 + d1)
                    r = math.sqrt(max(prof(centre + side * end), 0.0))
                    if abs(r - q) < 0.02 or d1 - d0 < 1e-3 * scale:
                        break
                    (d0, r0), (d1, r1) = ((end, r), (d1, r1)) if r < q else ((d0, r0), (end, r))
                break
            if at_edge:
                break
            last = (dist, root)
            dist = min(4.0 * dist, dist * 1.15 * q / root) if root > 0.05 else 4.0 * dist
        out.append((edge, True) if end is None else (centre + side * end, False))
    return out


def profile_intervals(fit: LawFit, table: DeviceTable, spec: MachineSpec) -> LawFit:
    """95 % intervals of a fit's noise terms and law parameters from the restricted likelihood, and the
    terms the table cannot pin.

    The state-space model is :func:`kalman_noise_terms`'s, with the law's parameters added to the
    filter's state (its step grid moving with them to first order: the kernel's grid and its
    derivative in each parameter, by differences) under a nearly flat prior: the filter integrates
    them out, and its likelihood of the noise terms is the restricted (REML) one (the plain one
    lends the law a share of the accumulated noise: its intervals held the truth 77-90 % of the time).

    * **Noise terms**: profile-likelihood intervals of the restricted likelihood (each term's
      value with the other at its best; every value within :data:`LR_95` of the maximum, Wilks).
      A term whose profile stays within it down to the bottom of :data:`KALMAN_RANGE` cannot be
      told from none: its interval starts at 0 (the boundary's own statistic is a 50:50 mixture
      of 0 and chi-squared, so the interval is conservative there) and it is listed in
      :attr:`LawFit.unpinned` with the upper bound the data give; one whose profile reaches the
      top of the range is listed too.
    * **Law parameters**: given the noise terms, the filter's estimate of each parameter and its
      standard error give a normal interval (exact for a law linear in its parameters); the
      interval reported is their hull over the noise terms the data allow (every point the two
      profiles visited inside :data:`LR_95`, their ends included), so a table that cannot tell a
      small cycle-to-cycle noise from none widens the law's intervals rather than narrowing them.
      Cut to the law's search range; one cut there is listed in :attr:`LawFit.unpinned`.

    The piecewise law's node factors get no intervals (18 of them: the filter's state would be
    large); its noise terms do. Coverage measured on generated tables
    (``benchmarks/device_fit_coverage.py``) is in the device guide.

    Returns
    -------
    LawFit
        ``fit`` with :attr:`LawFit.intervals` (``key -> (low, high)``) and :attr:`LawFit.unpinned` set.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> spec = MARK_I.with_overrides({"rack.drive": "ratchet", "rack.backlash": 0.0})
    >>> noisy = spec.with_overrides({"rack.write_noise_std": 2.0})
    >>> table = pulse_table(noisy, (30, 30), seed=1)
    >>> f = profile_intervals(fit_law(LAWS["constant"], table, spec), table, spec)
    >>> lo, hi = f.intervals["rack.step"]
    >>> bool(lo < 0.01 < hi), f.intervals["rack.dw_min_std"][0], f.unpinned
    (True, 0.0, ('rack.dw_min_std',))
    """
    keys = _interval_keys(fit, spec)
    k = len(keys)
    base = fitted_spec(fit, spec)
    theta0 = np.array([fit.params[key] for key, _, _ in keys], float)
    g0 = _step_grids(base)
    jac = _law_jacobian(base, keys, theta0, g0)
    y, which, skip, cmd, mult = _filter_inputs(table, base)
    (c_lo, c_hi), (s_lo, s_hi) = KALMAN_RANGE
    low, high = np.log([c_lo, s_lo]), np.log([c_hi, s_hi])
    c0 = min(max(fit.dw_min_std, 2 * c_lo), c_hi) if np.isfinite(fit.dw_min_std) else 0.3
    s0 = min(max(fit.write_noise_std, 2 * s_lo), s_hi) if np.isfinite(fit.write_noise_std) else 3.0
    inputs = (np.asarray(y, np.float64), np.asarray(which, np.int64), np.asarray(skip, np.bool_), cmd, mult, g0,
              low, high, c0, s0)        # arrays once: the compiled filter reads them at every point of the profiles
    intervals, unpinned, inside, seen, settled = _noise_profiles(inputs, keys, jac)
    note = ""
    if k and not settled:
        # the law's parameters carried the filter off (a law far from the device, a large noise):
        # the noise terms with the law held at its fit, and no interval of the law's parameters
        intervals, unpinned, inside, seen, settled = _noise_profiles(inputs, [], jac[:0])
        note = ("the law's parameters could not be integrated out on this table (the filter does not settle): the "
                "noise terms' intervals hold the law at its fit, and the law's parameters have none")
        k = 0
    if k:
        lows, highs = np.full(k, np.inf), np.full(k, -np.inf)
        for point in inside:
            _, est, cov = seen[point]
            half = Z_95 * np.sqrt(np.maximum(np.diag(cov), 0.0))
            lows, highs = np.minimum(lows, theta0 + est - half), np.maximum(highs, theta0 + est + half)
        for i, (key, lo, hi) in enumerate(keys):
            cut = (float(max(lows[i], lo)), float(min(highs[i], hi)))
            if cut[0] > lows[i] or cut[1] < highs[i]:
                unpinned.append(key)
            intervals[key] = cut
    order = [key for key, _, _ in keys if key in intervals] + list(NOISE_WORDS)
    return replace(fit, intervals={key: intervals[key] for key in order},
                   unpinned=tuple(key for key in order if key in unpinned), interval_note=note)


def _law_jacobian(base: MachineSpec, keys: list, theta0: np.ndarray, g0: np.ndarray) -> np.ndarray:
    """The fitted law's step grids' derivative in each of its parameters ``keys`` (k, *g0.shape), by
    a difference of 1e-3 relative, forwards or, at the top of a parameter's range, backwards."""
    jac = np.zeros((len(keys),) + g0.shape)
    for i, (key, lo, hi) in enumerate(keys):
        h = 1e-3 * max(abs(theta0[i]), 1e-3)
        for sign in (1.0, -1.0):
            v = theta0[i] + sign * h
            if not lo <= v <= hi:
                continue
            try:
                jac[i] = (_step_grids(base.with_overrides({key: float(v)})) - g0) / (sign * h)
                break
            except SpecError:
                continue
    return jac


def _noise_profiles(inputs: tuple, keys_used: list, jac_used: np.ndarray) -> tuple:
    """The noise terms' profile intervals (:func:`profile_intervals`), with the law's parameters
    ``keys_used`` in the filter's state: (intervals, unpinned, the points inside, every point's
    filter, whether it settled). ``inputs``: the filter's readings, grids, pulses left out, command,
    noise kind, the fitted law's grids, the log range of the noise terms and their start."""
    y, which, skip, cmd, mult, g0, low, high, c0, s0 = inputs
    # the prior: wide against each parameter's standard error at the fit's noise terms (first the
    # width of its range, then DIFFUSE standard errors where that is less: a prior far wider than
    # the data's precision loses the covariance to rounding)
    prior = np.array([hi - lo for _, lo, hi in keys_used], float)
    _, _, cov = _restricted_nll(c0, s0, y, which, g0, jac_used, cmd, mult, skip, prior)
    se = np.sqrt(np.diag(cov)) if len(prior) and np.all(np.diag(cov) > 0) else prior
    prior = np.minimum(prior, DIFFUSE * se)
    seen: dict[tuple, tuple] = {}

    def stat(u) -> float:
        v = np.clip(u, low, high)
        key = (float(v[0]), float(v[1]))
        if key not in seen:
            seen[key] = _restricted_nll(math.exp(v[0]), math.exp(v[1]), y, which, g0, jac_used, cmd, mult,
                                         skip, prior)
        return seen[key][0] + float(np.sum((u - v) ** 2)) * 1e3       # outside the range: uphill

    u_hat = np.clip(np.log([c0, s0]), low, high)
    for _ in range(2):                                  # a restart from the minimum found
        u_hat = np.clip(_nelder_mead(stat, u_hat, step=0.5, iters=200, tol=1e-3 / (1.0 + abs(stat(u_hat))),
                                     xtol=0.01), low, high)
    best = stat(u_hat)
    # a filter that settles gives a smooth statistic with its least at the search's end; one
    # whose state the law's parameters carry off does not (a step off it lower, or an interval
    # of no width below)
    near = [stat(u_hat + e) for e in (0.05 * np.eye(2)[0], -0.05 * np.eye(2)[0], 0.05 * np.eye(2)[1],
                                      -0.05 * np.eye(2)[1])]
    settled = min(near) > best - 0.5
    if not settled:
        return {}, [], [], seen, False
    inside = [(float(u_hat[0]), float(u_hat[1]))]
    intervals, unpinned = {}, []
    for j, name in enumerate(("rack.dw_min_std", "rack.write_noise_std")):
        other = 1 - j
        cache: dict[float, float] = {}
        last_other: dict[bool, float] = {}             # the other term's best at the last value on each side

        def prof(value: float, j=j, other=other, cache=cache, last_other=last_other) -> float:
            if value not in cache:
                u = u_hat.copy()
                u[j] = value

                def along(z, u=u):
                    w = u.copy()
                    w[other] = z[0]
                    return stat(w)
                # the other term's best: its last best on this side and a coarse grid over its whole
                # range (the statistic can be flat in a noise term near none and its best far off),
                # then the parabola's steps from the lowest
                starts = [last_other.get(value > u_hat[j], float(u_hat[other])),
                          *np.arange(low[other], high[other], 1.0)]
                start = min(starts, key=lambda z: along([z]))
                z_best = _parabola_min(lambda z: along([z]), start, h=0.25)
                u[other] = float(np.clip(z_best, low[other], high[other]))
                last_other[value > u_hat[j]] = u[other]
                cache[value] = stat(u) - best
                if cache[value] <= LR_95 + 1e-6:
                    inside.append((float(u[0]), float(u[1])))
            return cache[value]

        sd = 0.3
        ends = _ends(prof, float(u_hat[j]), sd, float(low[j]), float(high[j]))
        (lo_end, lo_edge), (hi_end, hi_edge) = ends
        if lo_edge or hi_edge:
            unpinned.append(name)
        intervals[name] = (0.0 if lo_edge else float(math.exp(lo_end)), float(math.exp(hi_end)))
        settled = settled and not (0.0 < intervals[name][0] and intervals[name][1] < intervals[name][0] * 1.001)
    return intervals, unpinned, inside, seen, settled


def _loadable(params: dict) -> tuple[dict, list[str]]:
    """``params`` with each number cut to the range its spec field takes: (values, what was cut)."""
    out, cut = {}, []
    for key, v in params.items():
        group, _, name = key.partition(".")
        if group != "rack" or not isinstance(v, float) or not math.isfinite(v):
            out[key] = v
            continue
        meta = RackSpec.field_info(name)
        lo, hi = meta["low"], meta["high"]
        w = v if lo is None else max(v, lo)        # (a field with no upper end: only the lower one cuts)
        w = w if hi is None else min(w, hi)
        if meta["low_open"] and lo is not None and w <= lo:
            w = lo + 1e-12
        if w != v:
            cut.append(f"{key} {v:.4g} is outside what the spec takes; written as {w:.6g}")
        out[key] = w
    return out, cut


def _noise_params(fit: LawFit) -> dict:
    out = {}
    if np.isfinite(fit.dw_min_std):
        out["rack.dw_min_std"] = float(fit.dw_min_std)
    if np.isfinite(fit.write_noise_std):
        out["rack.write_noise_std"] = float(fit.write_noise_std)
    return out


def overrides_toml(fit: LawFit) -> str:
    """The fitted law as a scene's ``[machine.overrides]`` table (TOML), every value one the spec takes.

    Examples
    --------
    >>> f = LawFit("constant", {"rack.drive": "continuous", "trainer.increment": 0.0213}, np.zeros(3), 0.0, 1,
    ...            0.0, 0.0)
    >>> print(overrides_toml(f), end="")
    # fitted law: constant (replay rms 0 full scale over 3 pulses)
    [machine.overrides]
    rack.drive = "continuous"
    # a continuous motor's pulse travels the trainer's increment: the fitted travel of one pulse
    trainer.increment = 0.0213
    """
    params, cut = _loadable({**fit.params, **_noise_params(fit)})
    lines = [f"# fitted law: {fit.law} (replay rms {fit.rms:.3g} full scale over {len(fit.residuals)} pulses)"]
    lines += [f"# note: {c}" for c in cut]
    lines += [f"# not pinned: {w}" for w in unpinned_words(fit)]
    if fit.interval_note:
        lines.append(f"# intervals: {fit.interval_note}")
    if fit.intervals:
        lines.append("# 95 % intervals: " + ", ".join(f"{k} [{lo:.4g}, {hi:.4g}]"
                                                      for k, (lo, hi) in fit.intervals.items()))
    lines.append("[machine.overrides]")
    for key, v in params.items():
        if key == "trainer.increment":
            lines.append("# a continuous motor's pulse travels the trainer's increment: the fitted travel of one pulse")
        if key == "rack.dw_min_std":
            lines.append("# noise that accumulates (cycle to cycle) and noise that does not (write and the meter's, "
                         "in steps): by the likelihood of a state-space model")
        lines.append(f"{key} = {_toml_value(v)}")
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
    unless ``noise``, then with the fit's estimates of both noise terms), each value cut to
    what the spec takes.

    Examples
    --------
    >>> from mark1.specs import MARK_I
    >>> f = LawFit("soft-bounds", {"rack.law": "soft-bounds", "rack.w_max": 0.5}, np.zeros(3), 0.0, 1, 0.0, 0.0)
    >>> fitted_spec(f, MARK_I).rack.w_max
    0.5
    """
    over = {**BENCH, **fit.params}
    if noise:
        over.update(_noise_params(fit))
    return spec.with_overrides(_loadable(over)[0])


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
