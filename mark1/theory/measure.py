"""The machine measured against the formulas: a real patch board, random stimuli, many seeds.

Each seed wires a fresh :class:`mark1.machine.patchboard.Patchboard` (``Patchboard.random``
with the spec's x, y, θ and a fan-out that does not bind unless asked), lights random sets
of exactly ``round(R n)`` of its n = 400 S-units and counts the A-units that fire. The
figure of a seed is one number; over seeds it gets a mean and a 95 % interval inside
[0, 1] (:func:`mark1.stats.mean_interval`; none below :data:`mark1.stats.MIN_SEEDS`
seeds), and a distance to a formula in units of its standard error.

Where the machine and the formulas part, and why:

* **Finite retina.** The machine lights exactly r = round(R n) of 400 points; the finite
  forms (``n=400``) describe that. The binomial forms of 1958 assume infinitely many
  points and differ by O(1/n): up to a few thousandths here.
* **The mean is exact.** For a uniformly random stimulus, every A-unit of any board
  fires with probability P_a (finite form), so the mean over seeds is unbiased whatever
  the wiring (and, turned round, for any fixed stimulus of r points the mean over random
  boards is P_a too).
* **Correlated A-units.** The A-units of one board share S-units, and one stimulus lights
  them all at once: a pair that shares inputs fires together more often than chance, a
  pair that does not slightly less (a stimulus lights a fixed number of points). Over a
  randomly plugged board the two cancel (two A-units with independent random inputs are
  independent given the stimulus), so the spread over seeds is that of independent
  draws: the ``design_effect`` column (variance over seeds / the binomial one) scatters
  about 1. The interval over seeds does not lean on it either way.
* **The fan-out limit** only decides which S-units an A-unit may take; each A-unit's
  inputs stay distinct, so P_a and P_c are unchanged (``fan_out``). A binding limit makes
  the A-units' inputs slightly dependent (they avoid full S-units), the one way the
  pairs' correlations could fail to cancel.
* **P_c** is measured as (A-units firing to both) / (A-units firing to S1) per seed, a ratio
  of two sums whose bias (order 1 / fired units) is far below the error bars.

Examples
--------
>>> m = measure_p_a(10, 5, 2, 0.1, seeds=10, stimuli=5, n_associators=64)
>>> round(p_a(10, 5, 2, 0.1, n=400), 3), abs(m.distance(p_a(10, 5, 2, 0.1, n=400))) < 4
(0.18, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Iterable

import numpy as np

from mark1._utils.progress import progress_bar
from mark1 import stats
from mark1.exceptions import InputError
from mark1.machine.patchboard import Patchboard
from mark1.specs import MachineSpec, PatchboardSpec
from mark1.theory.discrimination import phi, z_1957, z_recall
from mark1.theory.probabilities import _board, _count, _fraction, _overlap, p_a, p_c

__all__ = ["Measurement", "measure_p_a", "measure_p_c", "measure_recall", "compare_p_a", "compare_p_c",
           "compare_recall", "format_table", "S_POINTS"]

#: S-points of the machine's retina (the spec's 20 x 20 photocells).
S_POINTS = int(np.prod(MachineSpec().retina.shape))


@dataclass(frozen=True)
class Measurement:
    """One figure measured over seeds: the per-seed values, their mean and 95 % interval.

    Parameters
    ----------
    values : tuple of float
        One value per seed.
    bounds : (float, float)
        The least and the greatest value a seed's figure can take: ``(0, 1)`` for a
        probability (the default), ``(-1, 1)`` for a paired difference of two.

    Attributes
    ----------
    mean, se : float
        Mean over seeds and its standard error (sample std / sqrt(seeds)).
    interval : mark1.stats.Interval
        The mean with its 95 % interval inside ``bounds`` (:func:`mark1.stats.mean_interval`:
        the hull of Student's t and Hall's skewness-corrected t); none below
        :data:`mark1.stats.MIN_SEEDS` seeds.
    low, high : float
        Its ends (NaN where there is no interval).

    Examples
    --------
    >>> m = Measurement((0.18, 0.20, 0.19, 0.17, 0.18, 0.21, 0.19, 0.18, 0.20, 0.17))
    >>> round(m.mean, 3), round(m.low, 3), round(m.high, 3)
    (0.187, 0.177, 0.197)
    >>> round(m.distance(0.1798), 1)          # (mean - expected) / se
    1.7
    >>> print(Measurement((0.18, 0.20)))
    0.1900 (too few seeds (n = 2) for an interval)
    """

    values: tuple[float, ...]
    bounds: tuple[float, float] = (0.0, 1.0)

    @property
    def mean(self) -> float:
        return float(np.mean(self.values))

    @property
    def se(self) -> float:
        k = len(self.values)
        return float(np.std(self.values, ddof=1)) / math.sqrt(k) if k > 1 else math.nan

    @property
    def interval(self) -> stats.Interval:
        return stats.mean_interval(self.values, self.bounds)

    @property
    def low(self) -> float:
        low = self.interval.low
        return math.nan if low is None else float(low)

    @property
    def high(self) -> float:
        high = self.interval.high
        return math.nan if high is None else float(high)

    def distance(self, expected: float) -> float:
        """(mean - expected) / se: how many standard errors the measurement lies from ``expected``."""
        gap = self.mean - float(expected)
        if self.se > 0:
            return gap / self.se
        return 0.0 if gap == 0 else math.copysign(math.inf, gap)

    def __str__(self) -> str:
        return self.interval.format(scale=1, digits=4)


# -- the bench ------------------------------------------------------------------------


def _runs(seeds, seed, stimuli, n_associators, fan_out):
    """Checked run arguments and one random stream per seed."""
    seeds, stimuli = _count("seeds", seeds, 2), _count("stimuli", stimuli, 1)
    n_associators = _count("n_associators", n_associators, 1)
    fan_out = n_associators if fan_out is None else _count("fan_out", fan_out, 1)
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(_count("seed", seed)).spawn(seeds)]
    return streams, stimuli, n_associators, fan_out


def _wire(x, y, theta, n_associators, fan_out, rng) -> Patchboard:
    """A patch board plugged at random as the machine plugs it."""
    if theta > x:
        raise InputError(f"theta: the machine refuses a threshold above its excitatory inputs "
                         f"(theta = {theta} > x = {x}); the formula gives P_a = 0")
    spec = MachineSpec(name="theory", patchboard=PatchboardSpec(
        n_associators=n_associators, excitatory=x, inhibitory=y, a_threshold=theta, fan_out=fan_out))
    return Patchboard.random(spec.patchboard, spec.retina.shape, rng)


def _lit(rng, k: int, r: int, kept: int | None = None):
    """k random stimuli of exactly r lit S-units; with ``kept``, also partners S2 that keep
    ``kept`` of each one's points and light r - kept of its dark ones."""
    order = np.argsort(rng.random((k, S_POINTS)), axis=1)        # a uniform random order of the S-units
    s1 = np.zeros((k, S_POINTS), bool)
    np.put_along_axis(s1, order[:, :r], True, axis=1)
    if kept is None:
        return s1
    s2 = np.zeros((k, S_POINTS), bool)
    np.put_along_axis(s2, np.concatenate([order[:, :kept], order[:, r:2 * r - kept]], axis=1), True, axis=1)
    return s1, s2


def measure_p_a(x: int, y: int, theta: int, R: float, *, seeds: int = 10, seed: int = 0, stimuli: int = 20,
                n_associators: int = 512, fan_out: int | None = None) -> Measurement:
    """P_a measured on the machine: the fraction of A-units of a random patch board that fire.

    Parameters
    ----------
    x, y, theta : int
        Excitatory and inhibitory inputs per A-unit and the threshold (1 <= theta <= x,
        as the machine's spec demands).
    R : float in [0, 1]
        Each stimulus lights exactly round(R * 400) S-units, chosen at random.
    seeds : int >= 2
        Boards (one per seed, from ``np.random.SeedSequence(seed).spawn(seeds)``).
    seed : int >= 0
    stimuli : int >= 1
        Stimuli per board.
    n_associators : int >= 1
        A-units per board.
    fan_out : int, optional
        The patch board's fan-out limit; None (default) for one that never binds.

    Returns
    -------
    Measurement
        One value per seed: fired A-units / (A-units x stimuli).

    Examples
    --------
    >>> m = measure_p_a(10, 5, 2, 0.1, seeds=3, stimuli=4, n_associators=64)
    >>> len(m.values), 0.1 < m.mean < 0.3
    (3, True)
    """
    x, y, theta, R, n, r = _board(x, y, theta, R, S_POINTS)
    streams, stimuli, n_associators, fan_out = _runs(seeds, seed, stimuli, n_associators, fan_out)
    values = []
    for rng in streams:
        board = _wire(x, y, theta, n_associators, fan_out, rng)
        values.append(float(board.associate(_lit(rng, stimuli, r)).mean()))
    return Measurement(tuple(values))


def measure_p_c(x: int, y: int, theta: int, R: float, C: float, *, seeds: int = 10, seed: int = 0,
                stimuli: int = 20, n_associators: int = 512, fan_out: int | None = None) -> Measurement:
    """P_c measured on the machine: of the A-units that fire to S1, the fraction that also fire to S2.

    S1 lights r = round(R * 400) random S-units; S2 keeps round(C * r) of them and lights as
    many of the dark ones as it drops (the overlap of :func:`mark1.theory.p_c`).

    Parameters
    ----------
    x, y, theta, R
        As :func:`measure_p_a`.
    C : float in [0, 1]
        Fraction of S1's lit points S2 keeps.
    seeds, seed, stimuli, n_associators, fan_out
        As :func:`measure_p_a`; ``stimuli`` counts pairs.

    Returns
    -------
    Measurement
        One value per seed: (fired to both) / (fired to S1), summed over the pairs.

    Raises
    ------
    InputError
        When no A-unit of some board fires to any S1 (the ratio is undefined): raise
        ``stimuli`` or ``n_associators``.

    Examples
    --------
    >>> m = measure_p_c(10, 5, 2, 0.1, 1.0, seeds=3, stimuli=4, n_associators=64)
    >>> m.values                               # S2 = S1: every unit that fired fires again
    (1.0, 1.0, 1.0)
    """
    x, y, theta, R, n, r = _board(x, y, theta, R, S_POINTS)
    lost, _ = _overlap(R, _fraction("C", C), n, r)
    streams, stimuli, n_associators, fan_out = _runs(seeds, seed, stimuli, n_associators, fan_out)
    values = []
    for k, rng in enumerate(streams):
        board = _wire(x, y, theta, n_associators, fan_out, rng)
        s1, s2 = _lit(rng, stimuli, r, r - lost)
        first, second = board.associate(s1), board.associate(s2)
        fired = int(first.sum())
        if fired == 0:
            raise InputError(f"stimuli: no A-unit fired to any first stimulus on board {k} (P_a = "
                             f"{p_a(x, y, theta, R, n=n):.2g}); raise stimuli or n_associators")
        values.append(int((first & second).sum()) / fired)
    return Measurement(tuple(values))


def measure_recall(x: int, y: int, theta: int, R: float, *, n_a: int = 100, n_s: int = 100, seeds: int = 10,
                   seed: int = 0, fan_out: int | None = None) -> Measurement:
    """The μ-system's recall measured on the machine's A-units (the experiment of the 1957 Table I).

    A board of 2 n_a A-units, the first n_a feeding response 1, the rest response 2. n_s
    random stimuli are forced to each response; α rule: each A-unit gains one unit of
    value per stimulus of its own response that fires it. Then each learned stimulus is
    shown again and the response whose active A-units have the greater mean value wins
    (a tie counts one half; a response none of whose units fires loses, as in the 1958
    eq. 4). The machine's own trainer and pots are not used: this is the theory's value
    rule on the machine's patch board.

    Parameters
    ----------
    x, y, theta, R
        As :func:`measure_p_a`.
    n_a : int >= 1
        A-units feeding each response.
    n_s : int >= 1
        Stimuli forced to each response.
    seeds, seed, fan_out
        As :func:`measure_p_a`.

    Returns
    -------
    Measurement
        One value per seed: the fraction of the 2 n_s stimuli recalled correctly.

    Examples
    --------
    >>> m = measure_recall(10, 5, 3, 0.15, n_a=50, n_s=5, seeds=3)
    >>> all(0.5 <= v <= 1 for v in m.values)
    True
    """
    x, y, theta, R, n, r = _board(x, y, theta, R, S_POINTS)
    n_a, n_s = _count("n_a", n_a, 1), _count("n_s", n_s, 1)
    streams, _, units, fan_out = _runs(seeds, seed, 1, 2 * n_a, fan_out)
    forced = np.repeat([0, 1], n_s)                         # the response forced for each stimulus
    values = []
    for rng in streams:
        phi_ = _wire(x, y, theta, units, fan_out, rng).associate(_lit(rng, 2 * n_s, r)).astype(float)
        sets = (phi_[:, :n_a], phi_[:, n_a:])
        value = [sets[j][forced == j].sum(axis=0) for j in (0, 1)]       # α: one unit per firing
        active = [s.sum(axis=1) for s in sets]
        mean = [np.divide(sets[j] @ value[j], active[j], out=np.full(2 * n_s, -np.inf), where=active[j] > 0)
                for j in (0, 1)]
        own, other = np.where(forced == 0, mean[0], mean[1]), np.where(forced == 0, mean[1], mean[0])
        score = np.where(own > other, 1.0, np.where(own == other, 0.5, 0.0))
        score[np.isneginf(own)] = 0.0
        values.append(float(score.mean()))
    return Measurement(tuple(values))


# -- tables ---------------------------------------------------------------------------


def _point_seed(seed: int, k: int) -> int:
    """The seed of a table's k-th point: its own boards and stimuli, so the rows' distances are independent."""
    return int(np.random.SeedSequence([_count("seed", seed), k]).generate_state(1)[0])


def _row(kind: str, m: Measurement, finite: float, binomial: float, reference_var: float, **keys) -> dict:
    """One table row: the point, the formulas, the measurement and its distances.

    ``reference_var`` is the variance of one seed's value were every A-unit and stimulus
    independent; the design effect is the variance over seeds divided by it.
    """
    return {"kind": kind, **keys, "finite": finite, "binomial": binomial, "measured": m.mean, "low": m.low,
            "high": m.high, "se": m.se, "seeds": len(m.values), "distance": m.distance(finite),
            "distance_binomial": m.distance(binomial),
            "design_effect": m.se ** 2 * len(m.values) / reference_var if reference_var > 0 else math.nan}


def compare_p_a(points: Iterable[tuple[int, int, int, float]], *, seeds: int = 10, seed: int = 0, stimuli: int = 20,
                n_associators: int = 512, fan_out: int | None = None, progress: bool = False) -> list[dict]:
    """P_a, formula beside machine, over a grid of (x, y, theta, R).

    Parameters
    ----------
    points : iterable of (x, y, theta, R)
    seeds, seed, stimuli, n_associators, fan_out
        As :func:`measure_p_a`; the k-th point draws its boards from ``SeedSequence([seed, k])``
        so that no two rows share a board.
    progress : bool
        A progress bar over the points, on a terminal only.

    Returns
    -------
    list of dict
        One per point: ``kind`` ("P_a"), ``x``, ``y``, ``theta``, ``R``, ``C`` (None);
        ``finite`` (the formula for 400 S-points) and ``binomial`` (the infinite
        retina); ``measured``, ``low``, ``high``, ``se``, ``seeds``; ``distance`` and
        ``distance_binomial`` ((measured - formula) / se); ``design_effect`` (the variance
        over seeds / that of independent A-units and stimuli).

    Examples
    --------
    >>> rows = compare_p_a([(10, 5, 2, 0.1), (10, 0, 3, 0.2)], seeds=3, stimuli=4, n_associators=64)
    >>> [(r["x"], r["y"], r["theta"], r["R"], round(r["finite"], 4)) for r in rows]
    [(10, 5, 2, 0.1, 0.1805), (10, 0, 3, 0.2, 0.3214)]
    """
    rows, points = [], list(points)
    bar = progress_bar(len(points), "P_a points", show=progress)
    for k, (x, y, theta, R) in enumerate(points):
        m = measure_p_a(x, y, theta, R, seeds=seeds, seed=_point_seed(seed, k), stimuli=stimuli,
                        n_associators=n_associators, fan_out=fan_out)
        finite = p_a(x, y, theta, R, n=S_POINTS)
        rows.append(_row("P_a", m, finite, p_a(x, y, theta, R), finite * (1 - finite) / (n_associators * stimuli),
                         x=x, y=y, theta=theta, R=R, C=None))
        bar.update()
    bar.close()
    return rows


def compare_p_c(points: Iterable[tuple[int, int, int, float, float]], *, seeds: int = 10, seed: int = 0,
                stimuli: int = 20, n_associators: int = 512, fan_out: int | None = None,
                progress: bool = False) -> list[dict]:
    """P_c, formula beside machine, over a grid of (x, y, theta, R, C).

    Parameters
    ----------
    points : iterable of (x, y, theta, R, C)
    seeds, seed, stimuli, n_associators, fan_out, progress
        As :func:`measure_p_c` and :func:`compare_p_a`.

    Returns
    -------
    list of dict
        As :func:`compare_p_a`, ``kind`` "P_c", with ``C`` and ``p_a`` (the finite P_a); the
        design effect is against (P_a x A-units x pairs) independent fired units.

    Examples
    --------
    >>> rows = compare_p_c([(10, 5, 2, 0.2, 0.5)], seeds=3, stimuli=4, n_associators=64)
    >>> round(rows[0]["finite"], 4), rows[0]["C"]
    (0.5245, 0.5)
    """
    rows, points = [], list(points)
    bar = progress_bar(len(points), "P_c points", show=progress)
    for k, (x, y, theta, R, C) in enumerate(points):
        m = measure_p_c(x, y, theta, R, C, seeds=seeds, seed=_point_seed(seed, k), stimuli=stimuli,
                        n_associators=n_associators, fan_out=fan_out)
        finite, fires = p_c(x, y, theta, R, C, n=S_POINTS), p_a(x, y, theta, R, n=S_POINTS)
        rows.append(_row("P_c", m, finite, p_c(x, y, theta, R, C),
                         finite * (1 - finite) / (fires * n_associators * stimuli),
                         x=x, y=y, theta=theta, R=R, C=C, p_a=fires))
        bar.update()
    bar.close()
    return rows


def compare_recall(x: int, y: int, theta: int, R: float, *, n_a: int = 100, n_s: Iterable[int] = (10, 100, 1000),
                   seeds: int = 10, seed: int = 0, fan_out: int | None = None, progress: bool = False) -> list[dict]:
    """The μ-system's recall: the 1957 Table I formula, the one derived here, and the machine.

    Parameters
    ----------
    x, y, theta, R
        The board and stimulus size (P_a is the finite formula's).
    n_a : int
        A-units feeding each response (N_A of Table I).
    n_s : iterable of int
        Stimuli forced to each response (N_s of Table I).
    seeds, seed, fan_out
        As :func:`measure_recall`.
    progress : bool
        A progress bar over the values of ``n_s``, on a terminal only.

    Returns
    -------
    list of dict
        One per n_s: ``kind`` ("recall"), ``n_a``, ``n_s``, ``p_a``; ``z_1957``, ``p_1957``
        (:func:`mark1.theory.z_1957` and its Φ); ``z_recall`` and ``finite`` (the derived
        P_r = [1 - (1 - P_a)^N_A] Φ(Z)); ``measured``, ``low``, ``high``, ``se``,
        ``seeds``; ``distance`` (to the derived P_r) and ``distance_1957``, in standard errors.

    Examples
    --------
    >>> rows = compare_recall(10, 5, 3, 0.15, n_a=50, n_s=[5], seeds=3)
    >>> round(rows[0]["p_a"], 4), round(rows[0]["z_1957"], 2)
    (0.1004, 23.49)
    """
    rows, n_s = [], list(n_s)
    fires = p_a(x, y, theta, R, n=S_POINTS)
    bar = progress_bar(len(n_s), "recall points", show=progress)
    for k, count in enumerate(n_s):
        m = measure_recall(x, y, theta, R, n_a=n_a, n_s=count, seeds=seeds, seed=_point_seed(seed, k), fan_out=fan_out)
        z_old, z_new = z_1957(fires, n_a, count), z_recall(fires, n_a, count)
        derived = (1.0 - (1.0 - fires) ** n_a) * phi(z_new)
        rows.append({"kind": "recall", "x": x, "y": y, "theta": theta, "R": R, "n_a": n_a, "n_s": count,
                     "p_a": fires, "z_1957": z_old, "p_1957": phi(z_old), "z_recall": z_new, "finite": derived,
                     "measured": m.mean, "low": m.low, "high": m.high, "se": m.se, "seeds": len(m.values),
                     "distance": m.distance(derived), "distance_1957": m.distance(phi(z_old))})
        bar.update()
    bar.close()
    return rows


_COLUMNS = {
    "P_a": [("x", "x", "{}"), ("y", "y", "{}"), ("theta", "θ", "{}"), ("R", "R", "{:.2f}"),
            ("finite", "formula n=400", "{:.4f}"), ("binomial", "binomial", "{:.4f}"),
            ("measured", "machine", "{:.4f}"), ("interval", "95 % interval", "{}"),
            ("distance", "distance (se)", "{:+.2f}"), ("design_effect", "design effect", "{:.1f}")],
    "recall": [("n_a", "N_A", "{}"), ("n_s", "N_s", "{}"), ("p_a", "P_a", "{:.4f}"), ("z_1957", "Z 1957", "{:.3g}"),
               ("p_1957", "P 1957", "{:.4f}"), ("z_recall", "Z derived", "{:.3g}"),
               ("finite", "P derived", "{:.4f}"), ("measured", "machine", "{:.4f}"),
               ("interval", "95 % interval", "{}"), ("distance", "distance (se)", "{:+.2f}")],
}
_COLUMNS["P_c"] = _COLUMNS["P_a"][:4] + [("C", "C", "{:.2f}")] + _COLUMNS["P_a"][4:]


def format_table(rows: list[dict]) -> str:
    """The rows of :func:`compare_p_a`, :func:`compare_p_c` or :func:`compare_recall` as a Markdown table.

    Parameters
    ----------
    rows : list of dict
        Rows of one kind.

    Returns
    -------
    str
        A header, a rule and one line per row, ending in a newline; "" for no rows.

    Examples
    --------
    >>> rows = compare_p_a([(10, 5, 2, 0.1)], seeds=3, stimuli=4, n_associators=64)
    >>> print(format_table(rows).splitlines()[0])
    | x | y | θ | R | formula n=400 | binomial | machine | 95 % interval | distance (se) | design effect |
    """
    if not rows:
        return ""
    kinds = {r["kind"] for r in rows}
    if len(kinds) != 1 or not kinds <= _COLUMNS.keys():
        raise InputError(f"rows: expected rows of one kind among {sorted(_COLUMNS)}, got {sorted(kinds)}")
    columns = _COLUMNS[kinds.pop()]
    lines = ["| " + " | ".join(title for _, title, _ in columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        cells = {**r, "interval": f"too few seeds (n = {r['seeds']})" if math.isnan(r["low"])
                 else f"[{r['low']:.4f}, {r['high']:.4f}]"}
        lines.append("| " + " | ".join(fmt.format(cells[key]) for key, _, fmt in columns) + " |")
    return "\n".join(lines) + "\n"
