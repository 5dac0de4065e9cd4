"""A training run's state in one compiled object, so a call of the step costs a card, not its records.

The SimPy path calls :func:`~mark1.machine._kernels.presentation.train_block` once a card.
Passed as records (:class:`~mark1.machine._kernels.presentation.Block`,
:class:`~mark1.machine._kernels.pots.Pots`, :class:`~mark1.machine._kernels.pots.Drive`, the
queue, the moves' log, ...), every call converts about 60 arrays on the way in (about
5-7 us, where a card the trainer does not reinforce steps in about 1 us). :class:`RunState`
(a numba ``structref``) holds them: :func:`make_state` builds it, again only when
something in it is replaced (a new sensed block, a shifted clock, a grown driver queue),
and :func:`step` runs presentations through the same ``train_block``, the block's rows
taken by offset in compiled code. Same kernel, same bits.
"""

from __future__ import annotations

from typing import Any

from numba.core import cgutils, types
from numba.core.runtime import nrtdynmod
from numba.extending import NativeValue, box, intrinsic, unbox
from numba.experimental import structref

from mark1._utils.compiled import compiled, specialised
from mark1.machine import rules
from mark1.machine._kernels import features, presentation
from mark1.machine._kernels import pots as _pots
from mark1.machine._kernels.presentation import Block, train_block

__all__ = ["FIELDS", "RunState", "make_state", "run_kernels", "step"]

#: The fields of :class:`RunState`: the run's :class:`~mark1.machine._kernels.presentation.Block`
#: (every row: see :func:`make_state`) and the other records ``train_block`` takes.
FIELDS = ("blk", "tr", "sc", "dk", "pots", "drive", "queue", "log")


@structref.register
class RunStateType(types.StructRef):
    """numba's type of a :class:`RunState` (its fields' types)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class RunState(structref.StructRefProxy):
    """A training run's state, held by compiled code (fields: :data:`FIELDS`); make it with
    :func:`make_state`. Python sees only the object: its fields are read and written by
    the kernels here."""


@box(RunStateType)
def _box_state(typ, val, c):
    """A :class:`RunState` of the state's MemInfo (numba's structref boxing)."""
    meminfo = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val).meminfo
    boxed = c.box(types.MemInfoPointer(types.voidptr), meminfo)
    make = c.pyapi.unserialize(c.pyapi.serialize_object(RunState._numba_box_))
    kind = c.pyapi.unserialize(c.pyapi.serialize_object(typ))
    out = c.pyapi.call_function_objargs(make, [kind, boxed])
    for obj in (make, kind, boxed):
        c.pyapi.decref(obj)
    return out


@unbox(RunStateType)
def _unbox_state(typ, obj, c):
    """The state's MemInfo, as numba's structref unboxing takes it (a reference counted in,
    which a caller compiled with reference counts gives back after the call). For a caller
    compiled without them (:func:`step`), which would never give it back and so keep every
    state alive, it is given back at once: the Python object holds the state during the call."""
    held = c.pyapi.object_getattr_string(obj, "_meminfo")
    meminfo = c.unbox(types.MemInfoPointer(types.voidptr), held).value
    if not c.context.enable_nrt:
        gone = c.pyapi.call_method(held, "release", ())
        c.pyapi.decref(gone)
    st = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    st.meminfo = meminfo
    c.pyapi.decref(held)
    return NativeValue(st._getvalue())


def _state_type_of(typingctx, blk, tr, sc, dk, pots, drive, queue, log):
    """The :class:`RunState` type for these records' types, for ``structref.new`` (an
    intrinsic, not an overload: nothing compiled on its own and linked, ~0.8 s cold)."""
    records = (blk, tr, sc, dk, pots, drive, queue, log)
    sig = types.TypeRef(RunStateType(list(zip(FIELDS, records))))(*records)
    return sig, lambda context, builder, signature, args: context.get_dummy_value()


def _records_of(typingctx, st):
    """Every record a :class:`RunState` holds (:data:`FIELDS`, in order), read at once.

    numba's own field access asks for its reference-counting runtime to find the state's
    payload; this reads the payload's address as that runtime does (``NRT_MemInfo_data_fast``:
    the fourth word of the state's MemInfo), so :func:`step` compiles without reference
    counts. Compiled with them, each record is counted in, as a field read counts it.
    """
    kinds = tuple(st.field_dict[name] for name in FIELDS)
    sig = types.Tuple(kinds)(st)

    def codegen(context, builder, signature, args):
        meminfo = cgutils.create_struct_proxy(st)(context, builder, value=args[0]).meminfo
        info = builder.bitcast(meminfo, nrtdynmod._meminfo_struct_type.as_pointer())
        payload = builder.load(cgutils.gep(builder, info, 0, 3))
        data = st.get_data_type()
        payload = builder.bitcast(payload, context.data_model_manager[data].get_value_type().as_pointer())
        fields = cgutils.create_struct_proxy(data)(context, builder, ref=payload)
        values = [getattr(fields, name) for name in FIELDS]
        if context.enable_nrt:
            for kind, value in zip(kinds, values):
                context.nrt.incref(builder, kind, value)
        return context.make_tuple(builder, signature.return_type, values)

    return sig, codegen


def _fill_of(typingctx, st, blk, tr, sc, dk, pots, drive, queue, log):
    """Put the records in a new :class:`RunState`'s fields, each counted in once. numba's
    assignment of a field would also count out the field's old value (none in a new state):
    code for each of the ~60 arrays, compiled for nothing (about 0.4 s of a cold start)."""
    records = (blk, tr, sc, dk, pots, drive, queue, log)
    sig = types.none(st, *records)

    def codegen(context, builder, signature, args):
        meminfo = cgutils.create_struct_proxy(st)(context, builder, value=args[0]).meminfo
        data = st.get_data_type()
        payload = builder.bitcast(context.nrt.meminfo_data(builder, meminfo),
                                  context.data_model_manager[data].get_value_type().as_pointer())
        fields = cgutils.create_struct_proxy(data)(context, builder, ref=payload)
        for name, kind, value in zip(FIELDS, records, args[1:]):
            context.nrt.incref(builder, kind, value)
            setattr(fields, name, value)
        return context.get_dummy_value()

    return sig, codegen


# Any: mypy would read the intrinsics' signatures with numba's typing context first
_state_type: Any = intrinsic(_state_type_of)
_records: Any = intrinsic(_records_of)
_fill: Any = intrinsic(_fill_of)
_new: Any = structref.new

_kernel = compiled(presentation, rules, _pots, features, nogil=True)   # the next block is sensed beside it
# the step allocates nothing (its scratch is the block's) and keeps no array past its return:
# no reference counts (see mark1._utils.compiled.compiled), which cold is less code to compile
# (each assignment of a record counts every one of its arrays in and out); the state it takes
# is given back as it is unboxed (_unbox_state) and read without the runtime (_records)
_uncounted = compiled(presentation, rules, _pots, features, nogil=True, refcounts=False)


@_kernel
def make_state(blk, tr, sc, dk, pots, drive, queue, log):
    """A :class:`RunState` holding these records (:data:`FIELDS`; arrays held, not copied).

    ``blk`` is a :class:`~mark1.machine._kernels.presentation.Block` of whole arrays, from
    which :func:`step` takes each call's rows: ``x``, ``kick``, ``targets`` (m, ...) and
    ``divisor`` the sensed block's rows (the divisor's whole array where the trainer does not
    divide); ``units_erred``, ``pots_moved``, ``start``, ``response`` (n,) the run's, indexed
    by presentation; ``sums`` (block, n_units) room for a call's sums; ``p_first`` unused.
    ``tr``, ``sc``, ``dk``, ``pots``, ``drive``, ``queue``, ``log`` are ``train_block``'s.

    Parameters
    ----------
    blk : Block
        The run's block, whole arrays (above).
    tr, sc, dk, pots, drive, queue, log : records
        :class:`~mark1.machine._kernels.presentation.Trainer`, ``Schedule``, ``Decay``,
        :class:`~mark1.machine._kernels.pots.Pots`, ``Drive``, ``Queue`` and ``Moves``.

    Returns
    -------
    RunState
        Holding them; made again when one of them is replaced.

    Examples
    --------
    See :func:`step`.
    """
    st = _new(_state_type(blk, tr, sc, dk, pots, drive, queue, log))
    _fill(st, blk, tr, sc, dk, pots, drive, queue, log)
    return st


@_uncounted
def step(st, p, row, m, busy_until, t_ref):
    """``train_block`` on presentations ``p`` to ``p + m - 1``, rows ``row`` on of the sensed
    block in ``st`` (a :class:`RunState`): the same call the records make, the same results.

    Parameters
    ----------
    st : RunState
        From :func:`make_state`.
    p, row, m : int
        The first presentation, its row in the sensed block, how many to run.
    busy_until, t_ref : float
        When the last moving wiper stops, and decay's reference time (s).

    Returns
    -------
    tuple
        ``train_block``'s: (presentations run, busy_until, t_ref, how it ended).

    Examples
    --------
    One card (inputs 0 and 2 lit, the bias last) on a rack of two R-units, each wired to
    one A-unit and the bias (``split-in-use``), all pots at rest: both units read 0 and
    err, α turns their lit pots 0.1 full scale toward each unit's target:

    >>> import numpy as np
    >>> from mark1.specs import RackSpec
    >>> from mark1.machine.potentiometers import PotentiometerRack
    >>> from mark1.machine._kernels import presentation as k
    >>> from mark1.machine._kernels.state import make_state, step
    >>> rack = PotentiometerRack(RackSpec(), 2, 3, 2)
    >>> tr = k.Trainer(0, 0.1, 0.0, 0.0, True, False, False, False, False, 1, False)
    >>> sc, dk = k.Schedule(0.0, 0, 1.0, 0.5, False, False), k.Decay(0.0, 1.0)
    >>> x, targets = np.array([[1.0, 0.0, 1.0]]), np.array([[1.0, -1.0]])
    >>> queue = k.Queue(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0, np.int64),
    ...                 np.zeros(2, np.int64), np.zeros(1))
    >>> log = k.Moves(*(np.zeros(0, d) for d in ("i8", "f8", "i8", "f8", "f8", "f8", "f8", "f8", "i1")),
    ...               np.zeros(1, np.int64))
    >>> erred, moved = np.zeros(1, np.int16), np.zeros(1, np.int32)
    >>> blk = k.Block(0, x, np.zeros((1, 2)), targets, np.ones((1, 1)), targets, np.zeros((1, 2)), erred, moved,
    ...               np.zeros(1), np.zeros(1, np.int64), np.zeros(3, np.int64), np.zeros(2), np.zeros((2, 2)))
    >>> st = make_state(blk, tr, sc, dk, rack.pots, rack.drive_constants, queue, log)
    >>> step(st, 0, 0, 1, 0.0, 0.0)[0], int(erred[0]), int(moved[0])
    (1, 2, 3)
    >>> rack.positions(2.0)
    array([[ 0.1,  0. ,  0.1],
           [ 0. ,  0. , -0.1]])
    """
    b, tr, sc, dk, pots, drive, queue, log = _records(st)
    divisor = b.divisor[row:row + m] if tr.mean else b.divisor
    blk = Block(p, b.x[row:row + m], b.kick[row:row + m], b.targets[row:row + m], divisor, b.code_targets,
                b.sums[:m], b.units_erred[p:p + m], b.pots_moved[p:p + m], b.start[p:p + m], b.response[p:p + m],
                b.active, b.acc, b.steps)
    return train_block(blk, tr, sc, busy_until, t_ref, dk, pots, drive, queue, log)


def run_kernels(queued: bool, log: bool, device: bool) -> tuple[Any, Any]:
    """:func:`step` and :func:`~mark1.machine._kernels.presentation.train_block` for a run
    that meets only what is ``True`` here: drivers (``queued``: ``Schedule.queued``), a
    moves log of nonzero length (``log``: a full trace) and a device law or variation
    (``device``: ``Drive.device``).

    Each is a variant of the general kernel (:func:`mark1._utils.compiled.specialised`)
    without the code of what the run does not meet (the driver queue and its server, the
    log, :func:`~mark1.machine._kernels.pots.plan_device`): the same arithmetic on the
    paths the run takes, so the same bits, and a cold start compiles a fraction of the
    general step. Made once per process for each combination; every ``True``: the general
    kernels themselves.

    Parameters
    ----------
    queued, log, device : bool
        Whether the run's records may need each (``True`` is always right; ``False`` only
        where the run cannot meet it).

    Returns
    -------
    tuple
        (step, train_block): numba dispatchers.

    Examples
    --------
    >>> from mark1.machine._kernels.state import run_kernels, step
    >>> run_kernels(True, True, True)[0] is step
    True
    >>> run_kernels(False, False, False)[0] is run_kernels(False, False, False)[0]     # made once
    True
    """
    flags = {"QUEUED": bool(queued), "LOG": bool(log), "DEVICE": bool(device)}
    return specialised(step, **flags), specialised(train_block, **flags)
