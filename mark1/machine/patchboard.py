"""The patch board (random S→A wiring) and the association units φ.

On the Mark I the connections from the sensory units to the association units were
plugged by hand "according to a table of random numbers". Here the table is drawn
from the wiring stream of the run's seed; each A-unit gets ``excitatory`` inputs of
weight +1 and ``inhibitory`` inputs of weight -1 from distinct S-units, no S-unit
feeding more than ``fan_out`` A-units. An A-unit fires when its net input
(active excitatory minus active inhibitory) reaches ``a_threshold``.

The A-units' net inputs are tallied from the wiring rows of the S-units that fire (a
compiled loop; a card darkens a small part of the retina), not by a product over every
socket.

The wiring chart is a plain CSV file, one connection per line, that can be saved,
edited by hand and loaded back.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal, overload

from mark1._utils.compiled import compiled
import numpy as np

from mark1._utils.atomic import write_text
from mark1.specs import PatchboardSpec
from mark1._utils.limits import check_allocation
from mark1.exceptions import InputError

__all__ = ["Patchboard", "with_bias"]

_HEADER = "a_unit,s_row,s_col,sign"
_MAX_CHART_BYTES = 100_000_000     # 1e6 A-units x 15 connections of ~12 bytes; more is not a chart


@compiled(nogil=True)      # a machine tallies its next block beside the training (simulator)
def _tally(s_states, connections, threshold, acc, net, phi, x, counts, pots, active):
    """Net input of each A-unit: the sum of the wiring rows of the S-units that fire.

    ``s_states`` (n, n_s) bool, ``connections`` (n_s, n_a) int8; ``acc`` (n_a,) an
    integer buffer wide enough for every A-unit's net input (int8 when no A-unit has
    more than 127 inputs: 32 A-units a SIMD lane group; integer sums wrap alike in any
    order, so only the final value has to fit). Writes the net inputs into ``net`` (n, n_a),
    whether they reach ``threshold`` into ``phi`` (n, n_a) bool and into ``x``
    (n, n_a + 1) float64 (1.0 or 0.0, the always-on bias last: the pot rack's inputs), and
    the S-units and A-units that fire into ``counts`` (n, 2) int64, and into ``active``
    (n, n_units) float64 how many of the pots each unit has (``pots`` (n_units, n_a + 1)
    bool, the bias last) those inputs turn on; any may have 0 rows (not wanted). Work
    grows with the S-units that fire, not with every socket; their rows are added four at
    a time (one trip of ``acc`` through memory for four rows).
    """
    n, n_s = s_states.shape
    n_a = connections.shape[1]
    fire = np.empty(n_s, np.int64)
    for k in range(n):
        count = 0
        for i in range(n_s):                 # list the S-units that fire (no branch per unit)
            fire[count] = i
            count += s_states[k, i]
        for a in range(n_a):
            acc[a] = 0
        for p in range(0, count - 3, 4):
            r0, r1, r2, r3 = connections[fire[p]], connections[fire[p + 1]], connections[fire[p + 2]], \
                connections[fire[p + 3]]
            for a in range(n_a):
                acc[a] += (r0[a] + r1[a]) + (r2[a] + r3[a])
        for p in range(count - count % 4, count):
            row = connections[fire[p]]
            for a in range(n_a):
                acc[a] += row[a]
        _tallied(acc, threshold, k, (net, phi, x, counts), pots, active)
        if len(counts):
            counts[k, 0] = count


# inlined into _tally (its one caller), as is _count_pots: a compile of its own, with its
# wrappers, took longer than its body there
@compiled(inline="always")
def _tallied(acc, threshold, k, outputs, pots, active):
    """Row ``k`` of :func:`_tally`'s outputs (net, phi, x, counts; active) from the net inputs ``acc``."""
    net, phi, x, counts = outputs
    lit = pots[2]                        # scratch: the A-units that fire, 0 or 1 (padded with 0)
    n_a = acc.shape[0]
    for a in range(n_a):
        lit[a] = acc[a] >= threshold
    if len(net):
        for a in range(n_a):
            net[k, a] = acc[a]
    if len(phi):
        for a in range(n_a):
            phi[k, a] = lit[a]
    if len(x):
        row = x[k]
        for a in range(n_a):
            row[a] = lit[a]
        row[n_a] = 1.0
    if len(counts):
        firing = np.int64(0)             # (not 0: without numba, 0 + uint8 is a uint8)
        for a in range(n_a):
            firing += lit[a]
        counts[k, 1] = firing
    if active.shape[1]:
        _count_pots(pots, active[k])


@compiled(inline="always")
def _count_pots(pots, active):
    """How many of its pots each unit has turned on (an integer count: what ``x @ mask.T``
    sums, exactly), eight A-units a word: ``pots`` is (mask, bias, lit, lit_words) from
    :meth:`Patchboard.rack_inputs`: the mask's A-unit columns as bytes padded to whole words
    and seen as uint64 words (n_units, n_words), each unit's bias pot, and the A-units that
    fire as bytes of the padded width, seen as words too (:func:`_tallied` writes them)."""
    words, bias, _, lit_words = pots
    for u in range(len(active)):
        on = np.uint64(0)                # (not 0: int64 + uint64 is a float in numba)
        for q in range(words.shape[1]):
            w = words[u, q] & lit_words[q]           # bytes of 0 or 1: shifted sums never carry
            w += w >> np.uint64(32)
            w += w >> np.uint64(16)
            on += (w + (w >> np.uint64(8))) & np.uint64(0xFF)
        active[u] = on + bias[u]


#: :func:`_tally`'s pots and active pots when they are not wanted.
def _pots(mask: np.ndarray, n_a: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_tally`'s ``pots`` for a mask (n_units, n_a + 1) bool (see :func:`_count_pots`)."""
    padded = np.zeros((len(mask), -(-n_a // 8) * 8), np.uint8)       # whole words
    padded[:, :n_a] = mask[:, :n_a]
    lit = np.zeros(padded.shape[1], np.uint8)
    return padded.view(np.uint64), mask[:, n_a].astype(np.int64), lit, lit.view(np.uint64)


def _no_pots(n_a: int) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """:func:`_tally`'s pots (no mask, its scratch row) and active pots when they are not wanted."""
    return _pots(np.zeros((0, n_a + 1), bool), n_a), np.empty((0, 0))


class Patchboard:
    """Fixed S→A wiring and the A-unit thresholds.

    Parameters
    ----------
    connections : array of shape (n_s, n_a) int8
        +1 excitatory, -1 inhibitory, 0 unplugged.
    retina_shape : (rows, cols)
    a_threshold : int
        Net active inputs an A-unit needs to fire.

    Examples
    --------
    >>> import numpy as np
    >>> from mark1.specs import MARK_I
    >>> board = Patchboard.random(MARK_I.patchboard, MARK_I.retina.shape, np.random.default_rng(0))
    >>> board.connections.shape                       # S-units x A-units, in -1 / 0 / +1
    (400, 512)
    >>> S = np.zeros((1, 400), bool); S[0, :100] = True
    >>> board.associate(S).shape
    (1, 512)
    """

    def __init__(self, connections: np.ndarray, retina_shape: tuple[int, int], a_threshold: int) -> None:
        given = np.asarray(connections)
        self.retina_shape = tuple(retina_shape)
        self.a_threshold = int(a_threshold)
        if given.shape[0] != self.retina_shape[0] * self.retina_shape[1]:
            raise InputError(f"connections: expected {self.retina_shape[0] * self.retina_shape[1]} rows "
                             f"(one per S-unit), got {given.shape[0]}")
        # checked before any copy, without temporaries the size of the board (np.isin
        # widened int8 to 8 bytes a socket: 3 GB for a million A-units)
        if given.dtype == np.int8:
            valid = given.size == 0 or (int(given.min()) >= -1 and int(given.max()) <= 1)
        else:
            valid = bool(np.isin(given, (-1, 0, 1)).all())
        if not valid:
            raise InputError("connections: expected +1 (excitatory), -1 (inhibitory) or 0 (no plug) "
                             "in every socket")
        self.connections = given.astype(np.int8, copy=False)
        self._wiring = self.connections.copy(order="C")      # as plugged at construction
        self._widest: int | None = None                        # most inputs of one A-unit (_accumulator)

    @property
    def n_sensors(self) -> int:
        return self.connections.shape[0]

    @property
    def n_associators(self) -> int:
        return self.connections.shape[1]

    # -- wiring -----------------------------------------------------------------------
    @classmethod
    def random(cls, spec: PatchboardSpec, retina_shape: tuple[int, int],
               rng: np.random.Generator) -> Patchboard:
        """Plug the board at random, respecting the fan-out limit.

        Each A-unit draws its ``excitatory + inhibitory`` S-units without replacement
        among those that still have a free socket, with probability proportional to
        the free sockets (which keeps the load on S-units even).
        """
        n_s = retina_shape[0] * retina_shape[1]
        fan_in = spec.excitatory + spec.inhibitory
        signs = np.r_[np.ones(spec.excitatory, np.int8), -np.ones(spec.inhibitory, np.int8)]
        # When the fan-out limit is (nearly) tight, the last A-units can find fewer free
        # S-units than they need; plugging then starts over with the next random numbers.
        for _attempt in range(1000):
            free = np.full(n_s, spec.fan_out, dtype=np.int64)
            conn = np.zeros((n_s, spec.n_associators), dtype=np.int8)
            for a in range(spec.n_associators):
                avail = np.flatnonzero(free)
                if len(avail) < fan_in:
                    break
                p = free[avail] / free[avail].sum()
                chosen = rng.choice(avail, size=fan_in, replace=False, p=p)
                conn[chosen, a] = signs
                free[chosen] -= 1
            else:
                break
        else:
            raise InputError(f"patchboard.fan_out: could not plug {spec.n_associators} A-units x {fan_in} inputs "
                             f"with a fan-out of {spec.fan_out} in 1000 attempts; raise patchboard.fan_out")
        return cls(conn, retina_shape, spec.a_threshold)

    # -- A-units ----------------------------------------------------------------------
    def net_input(self, s_states: np.ndarray) -> np.ndarray:
        """Active excitatory minus active inhibitory inputs: array (n, n_a) float32."""
        s = self._check_states(s_states)
        net = np.empty((len(s), self.n_associators), np.float32)
        _tally(s, self._wiring, self.a_threshold, self._accumulator(), net, np.empty((0, 0), bool),
               np.empty((0, 0)), np.empty((0, 2), np.int64), *_no_pots(self.n_associators))
        return net

    @overload
    def associate(self, s_states: np.ndarray, *, counted: Literal[False] = False) -> np.ndarray: ...

    @overload
    def associate(self, s_states: np.ndarray, *,
                  counted: Literal[True]) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...

    def associate(self, s_states: np.ndarray, *,
                  counted: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A-unit outputs φ for S-unit states.

        Parameters
        ----------
        s_states : array of shape (n, n_s) bool
        counted : bool
            Also return how many S-units and A-units fire on each row (counted as the
            A-units are tallied, without another pass).

        Returns
        -------
        phi : array of shape (n, n_a) bool
        s_firing, a_firing : arrays of shape (n,) int64
            Only with ``counted``.

        Examples
        --------
        >>> import numpy as np
        >>> from mark1.specs import MARK_I
        >>> board = Patchboard.random(MARK_I.patchboard, MARK_I.retina.shape, np.random.default_rng(0))
        >>> S = np.zeros((2, 400), bool); S[1, :100] = True
        >>> phi, s_firing, a_firing = board.associate(S, counted=True)
        >>> s_firing.tolist(), a_firing.tolist() == phi.sum(axis=1).tolist()
        ([0, 100], True)
        """
        s = self._check_states(s_states)
        phi = np.empty((len(s), self.n_associators), bool)
        counts = np.empty((len(s) if counted else 0, 2), np.int64)
        _tally(s, self._wiring, self.a_threshold, self._accumulator(), np.empty((0, 0), np.float32), phi,
               np.empty((0, 0)), counts, *_no_pots(self.n_associators))
        return (phi, counts[:, 0], counts[:, 1]) if counted else phi

    def rack_inputs(self, s_states: np.ndarray,
                    pots: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pot rack's inputs: A-unit outputs with the always-on bias last, made in one pass.

        What ``with_bias(associate(s_states))`` gives, with the S-units and A-units that
        fire on each row and, for a rack's pot mask, how many pots of each unit those
        inputs turn on (what ``PotentiometerRack.active_pots`` counts), all counted as the
        A-units are tallied.

        Parameters
        ----------
        s_states : array of shape (n, n_s) bool
        pots : array of shape (n_units, n_a + 1) bool, optional
            The pots each unit has (a rack's ``mask``, the bias last).

        Returns
        -------
        x : array of shape (n, n_a + 1) float64
            1.0 where an A-unit fires, else 0.0; the bias 1.0 last.
        counts : array of shape (n, 2) int64
            The S-units (column 0) and A-units (column 1) that fire.
        active : array of shape (n, n_units) float64
            Each unit's pots turned on, exact counts ((n, 0) without ``pots``).

        Examples
        --------
        >>> import numpy as np
        >>> from mark1.specs import MARK_I
        >>> board = Patchboard.random(MARK_I.patchboard, MARK_I.retina.shape, np.random.default_rng(0))
        >>> S = np.zeros((2, 400), bool); S[1, :100] = True
        >>> x, counts, active = board.rack_inputs(S, np.ones((8, 513), bool))
        >>> x.shape, counts[:, 0].tolist(), bool((x == with_bias(board.associate(S))).all())
        ((2, 513), [0, 100], True)
        >>> bool((active[:, 0] == x.sum(axis=1)).all())    # every unit has every pot here
        True
        """
        s = self._check_states(s_states)
        n_a = self.n_associators
        mask = np.zeros((0, n_a + 1), bool) if pots is None else np.asarray(pots, dtype=bool)
        if mask.ndim != 2 or mask.shape[1] != n_a + 1:
            raise InputError(f"pots: expected a mask of shape (n_units, {n_a + 1}), got {mask.shape}")
        x = np.empty((len(s), n_a + 1))
        counts = np.empty((len(s), 2), np.int64)
        active = np.empty((len(s), len(mask)))
        _tally(s, self._wiring, self.a_threshold, self._accumulator(), np.empty((0, 0), np.float32),
               np.empty((0, 0), bool), x, counts, _pots(mask, n_a), active)
        return x, counts, active

    def _accumulator(self) -> np.ndarray:
        """Scratch row for :func:`_tally`, as narrow as the widest A-unit allows: a net input
        lies within ± the A-unit's plugged inputs (counted once, a wiring row at a time)."""
        if self._widest is None:
            plugged = np.zeros(self.n_associators, np.int64)
            for row in self._wiring:
                plugged += row != 0
            self._widest = int(plugged.max(initial=0))
        kind = np.int8 if self._widest <= 127 else np.int16 if self._widest < 2**15 else np.int32
        return np.empty(self.n_associators, kind)

    def _check_states(self, s_states) -> np.ndarray:
        """S-unit states as a C-ordered bool array (n, n_s); nonzero counts as firing."""
        s = np.asarray(s_states)
        if s.ndim != 2 or s.shape[1] != self.n_sensors:
            raise InputError(f"S: expected S-unit states of shape (n, {self.n_sensors}), got {s.shape}")
        return np.ascontiguousarray(s if s.dtype == bool else s != 0)

    # -- the wiring chart -------------------------------------------------------------
    def save(self, path: str | os.PathLike) -> None:
        """Write the wiring chart as CSV (atomically)."""
        path = Path(path)
        rows, cols = self.retina_shape
        s_idx, a_idx = np.nonzero(self.connections)
        order = np.lexsort((s_idx, a_idx))
        s_idx, a_idx = s_idx[order], a_idx[order]
        lines = [
            "# mark1 patch board wiring chart: one plugged connection per line.",
            "# sign +1 is excitatory, -1 inhibitory. Edit by hand if you like; mark1 checks it on load.",
            f"# retina_rows={rows} retina_cols={cols} associators={self.n_associators} "
            f"a_threshold={self.a_threshold}",
            _HEADER,
        ]
        signs = self.connections[s_idx, a_idx]
        lines += [f"{a},{s // cols},{s % cols},{'+1' if g > 0 else '-1'}"
                  for a, s, g in zip(a_idx.tolist(), s_idx.tolist(), signs.tolist())]
        write_text(path, "\n".join(lines) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike, *, fan_out: int | None = None) -> Patchboard:
        """Read a wiring chart written by :meth:`save` (or by hand).

        Raises
        ------
        ValueError
            Naming the file and line for anything malformed: a missing header, a
            value out of range, a connection plugged twice, or (when ``fan_out`` is
            given) an S-unit feeding more A-units than that.
        """
        path = Path(path)
        try:
            info = os.stat(path)
            if not stat.S_ISREG(info.st_mode):     # a FIFO would block, a device never end
                raise InputError(f"{path}: expected a wiring chart file, got something that is not a regular file")
            if info.st_size > _MAX_CHART_BYTES:
                raise InputError(f"{path}: expected a wiring chart of at most {_MAX_CHART_BYTES:,} bytes, "
                                 f"got {info.st_size:,}")
            text = path.read_text()
        except OSError as e:
            raise InputError(f"{path}: cannot read the wiring chart ({e.strerror or e})") from None
        except UnicodeDecodeError as e:
            raise InputError(f"{path}: expected a text wiring chart, got undecodable bytes at offset {e.start}") \
                from None
        meta: dict[str, int] = {}
        body: list[tuple[int, str]] = []
        header_seen = False
        for lineno, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                for tok in line[1:].split():
                    k, eq, v = tok.partition("=")
                    if eq and k in ("retina_rows", "retina_cols", "associators", "a_threshold"):
                        try:
                            meta[k] = int(v)
                        except ValueError:
                            raise InputError(f"{path}:{lineno}: {k}: expected an integer, got {v!r}") from None
                continue
            if not header_seen:
                if line.replace(" ", "") != _HEADER:
                    raise InputError(f"{path}:{lineno}: expected the header line {_HEADER!r}, got {line!r}")
                header_seen = True
                continue
            body.append((lineno, line))
        missing = [k for k in ("retina_rows", "retina_cols", "associators", "a_threshold") if k not in meta]
        if missing or not header_seen:
            raise InputError(f"{path}: expected a '# retina_rows=.. retina_cols=.. associators=.. a_threshold=..' "
                             f"comment and the header {_HEADER!r}; missing {', '.join(missing) or 'header'}")
        rows, cols, n_a = meta["retina_rows"], meta["retina_cols"], meta["associators"]
        if min(rows, cols, n_a, meta["a_threshold"]) < 1:
            raise InputError(f"{path}: retina size, associators and a_threshold must be positive")
        # the header sizes the wiring matrix (1 byte a socket): refuse a header too large for memory
        check_allocation(rows * cols * n_a + 8 * rows * cols, f"{path}: associators",
                         f"a {rows}x{cols} retina wired to {n_a:,} A-units")
        conn = np.zeros((rows * cols, n_a), dtype=np.int8)
        load = np.zeros(rows * cols, dtype=np.int64)
        for lineno, line in body:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) != 4:
                raise InputError(f"{path}:{lineno}: expected 4 fields a_unit,s_row,s_col,sign, got {line!r}")
            try:
                a, r, c, g = (int(p) for p in parts)
            except ValueError:
                raise InputError(f"{path}:{lineno}: expected integers, got {line!r}") from None
            if not (0 <= a < n_a and 0 <= r < rows and 0 <= c < cols and g in (1, -1)):
                raise InputError(f"{path}:{lineno}: expected a_unit < {n_a}, s_row < {rows}, s_col < {cols}, "
                                 f"sign +1 or -1, got {line!r}")
            if conn[r * cols + c, a]:
                raise InputError(f"{path}:{lineno}: S-unit ({r}, {c}) is plugged into A-unit {a} twice")
            conn[r * cols + c, a] = g
            load[r * cols + c] += 1
            if fan_out is not None and load[r * cols + c] > fan_out:
                raise InputError(f"{path}:{lineno}: S-unit ({r}, {c}) would feed more than {fan_out} A-units "
                                 f"(the fan-out limit)")
        return cls(conn, (rows, cols), meta["a_threshold"])

    def check_fits(self, spec: PatchboardSpec, retina_shape: tuple[int, int]) -> None:
        """Raise ValueError unless this board can be plugged into a machine of this spec.

        A hand-made chart must have the spec's retina, number of A-units and threshold,
        keep every S-unit within the fan-out limit, and let at least one A-unit fire.
        """
        where = "patchboard"
        if self.retina_shape != tuple(retina_shape):
            raise InputError(f"{where}: wired for a {self.retina_shape} retina, the spec has {tuple(retina_shape)}")
        if self.n_associators != spec.n_associators:
            raise InputError(f"{where}: expected {spec.n_associators} A-units (patchboard.n_associators), "
                             f"got a chart with {self.n_associators}")
        if self.a_threshold != spec.a_threshold:
            raise InputError(f"{where}: expected a_threshold {spec.a_threshold} (patchboard.a_threshold), "
                             f"got a chart with {self.a_threshold}")
        load = (self.connections != 0).sum(axis=1)
        if load.max(initial=0) > spec.fan_out:
            s = int(np.argmax(load))
            raise InputError(f"{where}: expected every S-unit to feed at most {spec.fan_out} A-units "
                             f"(patchboard.fan_out), got S-unit ({s // self.retina_shape[1]}, "
                             f"{s % self.retina_shape[1]}) feeding {int(load[s])}")
        if (self.connections == 1).sum(axis=0).max(initial=0) < self.a_threshold:
            raise InputError(f"{where}: expected an A-unit with at least a_threshold = {self.a_threshold} "
                             "excitatory inputs, got none: no A-unit could ever fire")

    def __eq__(self, other) -> bool:
        return (isinstance(other, Patchboard) and self.retina_shape == other.retina_shape
                and self.a_threshold == other.a_threshold
                and np.array_equal(self.connections, other.connections))

    # unhashable (mutable arrays inside); typeshed types object.__hash__ as a method only
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"Patchboard({self.n_sensors} S-units -> {self.n_associators} A-units, "
                f"{int((self.connections != 0).sum())} connections, threshold {self.a_threshold})")


def with_bias(phi: np.ndarray) -> np.ndarray:
    """A-unit outputs with the always-on bias unit appended last.

    Parameters
    ----------
    phi : array of shape (n, n_a) bool

    Returns
    -------
    array of shape (n, n_a + 1) float64, 0 or 1 — the inputs of the pot rack.

    Examples
    --------
    >>> import numpy as np
    >>> with_bias(np.array([[True, False]]))
    array([[1., 0., 1.]])
    """
    x = np.empty((len(phi), phi.shape[1] + 1))     # one pass over the memory, not two
    x[:, :-1] = phi
    x[:, -1] = 1.0
    return x
