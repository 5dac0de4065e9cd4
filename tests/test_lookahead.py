"""The sensing's look-ahead: the next block sensed in a second thread beside the training.

The look-ahead computes the same function of the same inputs as the sensing in the
caller's thread, so a run gives the same bits with it and without it (``_speed.THREADS``
off, one CPU, no numba); a wait for the motors discards it; an exception in the second
thread is raised in the caller; no thread outlives a run, however it ends.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future

import numpy as np
import pytest

from mark1 import MarkI, specs
from mark1.exceptions import InputError
from mark1.machine import mark_i
from mark1._utils import speed as _speed
from mark1.machine import retina as retina_module
from mark1.machine import simulator
from mark1.machine.patchboard import Patchboard
from mark1.machine.retina import Retina

from conftest import make_cards

SEEDS = range(3)
# speed-limited motors (an increment takes 2 s, the period is 1 s): cards wait for them, the
# schedule is re-timed and look-aheads discarded; photocells whose reading depends on the timing
SLOW = specs.SMALL.only("speed_limit").with_overrides({
    "rack.motor_speed": 0.01, "trainer.increment": 0.02,
    "retina.dynamics": True, "retina.history_ratio": 3.0, "retina.history_time": 2.0})
NOISY = specs.SMALL.with_overrides({"rack.wiper_noise": 0.01, "response.discrimination": "mean"})


def _sensing_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mark1-sensing"]


def _same(a: MarkI, b: MarkI) -> None:
    assert np.array_equal(a.history_, b.history_)
    assert a.machine_time_ == b.machine_time_
    for k in ("p_from", "p_to", "t_start", "t_end"):
        assert np.array_equal(getattr(a.rack_, k), getattr(b.rack_, k))


def _fit(spec, seed, threads: bool, mp: pytest.MonkeyPatch, n_cards: int = 24, epochs: int = 20,
         take_back: bool = False, **kw) -> MarkI:
    """A fit with or without the second thread; the caller waits for every look-ahead unless
    ``take_back`` (then it may sense one itself, so whether the thread ran depends on timing)."""
    mp.setattr(_speed, "THREADS", threads)
    mp.setattr(simulator._SensoryPipeline, "take_back", take_back)
    cards, labels = make_cards(n_cards, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    return MarkI(spec=spec, seed=seed, trace="off", **kw).fit(cards, labels, epochs=epochs, order="shuffled")


class _Counting:
    """Counts the blocks sensed in each thread (wraps ``_SensoryPipeline._make``)."""

    def __init__(self, mp: pytest.MonkeyPatch):
        self.threads: list[str] = []
        original = simulator._SensoryPipeline._make

        def make(pipeline, *args, **kw):
            self.threads.append(threading.current_thread().name)
            return original(pipeline, *args, **kw)

        mp.setattr(simulator._SensoryPipeline, "_make", make)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("spec", [specs.SMALL, SLOW, NOISY], ids=["small", "slow", "noisy-mean"])
def test_same_bits_with_and_without_the_second_thread(seed, spec):
    with pytest.MonkeyPatch.context() as mp:
        off = _fit(spec, seed, False, mp)
        taken_back = _fit(spec, seed, True, mp, take_back=True)
        counted = _Counting(mp)
        on = _fit(spec, seed, True, mp)
    _same(on, off)
    _same(taken_back, off)
    if spec is specs.SMALL and _speed.second_thread():
        assert "mark1-sensing" in counted.threads         # the look-ahead did run (480 presentations)
    assert not _sensing_threads()


@pytest.mark.parametrize("seed", SEEDS)
def test_discarded_look_aheads_change_nothing(seed):
    """Look ahead from the smallest block on, with waits for the motors all along: many
    look-aheads are discarded (re-timings; one not begun is never sensed), the run is the same."""
    with pytest.MonkeyPatch.context() as mp:
        off = _fit(SLOW, seed, False, mp)
        mp.setattr(simulator, "_AHEAD_FROM", 1)
        discarded = []
        original = simulator._SensoryPipeline.close

        def close(pipeline):
            discarded.append(pipeline._discarded)
            original(pipeline)

        mp.setattr(simulator._SensoryPipeline, "close", close)
        taken_back = _fit(SLOW, seed, True, mp, take_back=True)
        on = _fit(SLOW, seed, True, mp)
    _same(on, off)
    _same(taken_back, off)
    assert on.waited_ > 0
    if _speed.second_thread():
        assert discarded[-1] > 0
    assert not _sensing_threads()


def test_without_a_second_cpu_no_thread_is_started():
    with pytest.MonkeyPatch.context() as mp:
        off = _fit(specs.SMALL, 0, False, mp)
        mp.setattr(_speed.os, "sched_getaffinity", lambda pid: {0}, raising=False)
        mp.setattr(_speed.os, "cpu_count", lambda: 1)
        assert not _speed.second_thread()
        counted = _Counting(mp)
        one = _fit(specs.SMALL, 0, True, mp)
    _same(one, off)
    assert set(counted.threads) == {threading.current_thread().name}


def test_without_numba_no_thread_is_started(monkeypatch):
    monkeypatch.setattr(_speed.numba.config, "DISABLE_JIT", True)
    assert not _speed.second_thread()


class Boom(RuntimeError):
    pass


def test_an_error_in_the_second_thread_is_raised_by_the_run():
    if not _speed.second_thread():
        pytest.skip("no second thread on this machine")
    original = Patchboard.rack_inputs

    def failing(board, *args, **kw):
        if threading.current_thread().name == "mark1-sensing":
            raise Boom("tally failed in the sensing thread")
        return original(board, *args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Patchboard, "rack_inputs", failing)
        with pytest.raises(Boom, match="sensing thread"):
            _fit(specs.SMALL, 0, True, mp)
    assert not _sensing_threads()


def test_an_interrupt_leaves_no_thread():
    """A KeyboardInterrupt in the training (here: when the third block is taken) ends the
    run with it, and the sensing thread with the run."""
    calls = []
    original = simulator._SensoryPipeline._take

    def interrupted(pipeline, sensed):
        calls.append(sensed.first)
        if len(calls) == 3:
            raise KeyboardInterrupt
        original(pipeline, sensed)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simulator._SensoryPipeline, "_take", interrupted)
        with pytest.raises(KeyboardInterrupt):
            _fit(specs.SMALL, 0, True, mp, epochs=40)
    assert len(calls) == 3
    assert not _sensing_threads()


@pytest.mark.parametrize("seed", SEEDS)
def test_light_in_two_threads_is_the_light_in_one(seed):
    """A deck large enough to be imaged in two halves gives the same bits as one thread,
    uint8 and float cards alike, with the cell spread on."""
    rng = np.random.default_rng(seed)
    spec = specs.MARK_I.retina
    retina = Retina(spec, Retina.sensitivity_spread(spec, rng))
    n = retina_module._SPLIT_CARDS + int(rng.integers(1, 50))
    cards = rng.integers(0, 256, (n, 24, 24)).astype(np.uint8)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_speed, "THREADS", False)
        one = [retina.light(cards), retina.light(cards / 255.0)]
    two = [retina.light(cards), retina.light(cards / 255.0)]
    for a, b in zip(one, two):
        assert np.array_equal(a, b)
    assert np.array_equal(one[0], one[1])


def test_an_error_imaging_the_second_half_is_raised():
    if not _speed.second_thread():
        pytest.skip("no second thread on this machine")
    retina = Retina(specs.MARK_I.retina)
    cards = np.ones((retina_module._SPLIT_CARDS, 24, 24))
    original = Retina._image

    def failing(self, part, out, *, clip):
        if threading.current_thread().name == "mark1-imaging":
            raise Boom("imaging failed in the second thread")
        original(self, part, out, clip=clip)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Retina, "_image", failing)
        with pytest.raises(Boom, match="second thread"):
            retina.light(cards)
    assert not [t for t in threading.enumerate() if t.name == "mark1-imaging"]


def test_the_kernels_a_run_calls_release_the_gil():
    """The look-ahead overlaps the training only if every compiled kernel the run calls a
    block at a time releases the GIL (``nogil=True``): one that holds it would hold the
    sensing thread at each of its steps between its compiled loops."""
    runs = []
    original = simulator._TrainingRun.result

    def result(run, *args, **kw):
        runs.append(run)
        return original(run, *args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simulator._TrainingRun, "result", result)
        _fit(specs.SMALL, 0, True, mp, epochs=2)
    kernels = {name: value.dispatcher for name, value in vars(runs[0]).items()
               if isinstance(value, simulator._Direct)}
    assert kernels
    for name, dispatcher in kernels.items():
        if hasattr(dispatcher, "targetoptions"):           # not under NUMBA_DISABLE_JIT
            assert dispatcher.targetoptions.get("nogil"), f"{name} holds the GIL"


# -- the deck imaged as the run goes (retina._ImagedDeck) ------------------------------------

def _deck(seed: int, n: int, dtype=np.uint8):
    cards = np.random.default_rng(seed).integers(0, 256, (n, 30, 30)).astype(dtype)
    return Retina(specs.MARK_I.retina), cards if dtype == np.uint8 else cards / 255.0


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32], ids=["levels", "float32"])
def test_imaged_deck_gives_the_light_of_the_cards_shown(seed, dtype):
    """Any order (repeats, cards never shown, runs and shuffles across chunks), taken in
    blocks of any size: the rows are retina.light's, bit for bit; each chunk imaged once."""
    rng = np.random.default_rng(seed)
    retina, cards = _deck(seed, 150, dtype)
    order = np.concatenate([np.arange(40, 110), rng.integers(0, 140, 120)])    # 140..149 never shown
    expected = retina.light(cards)
    deck = retina_module._ImagedDeck(retina, cards, order)
    calls = []
    original = retina._image_any
    retina._image_any = lambda c, out: (calls.append(len(c)), original(c, out))
    first = 0
    while first < len(order):
        stop = first + int(rng.integers(1, 50))
        light, rows = deck.take(order[first:stop])
        assert np.array_equal(light[rows], expected[order[first:stop]])
        first = stop
    assert not deck.image_one()                      # every card shown is imaged: none left
    shown = np.unique(order)
    assert sum(calls) == len(shown) and deck.ready == -(-len(shown) // retina_module._IMAGING_CHUNK)
    with pytest.raises(InputError, match="card 145, never shown"):
        deck.take(np.array([145]))


@pytest.mark.parametrize("seed", SEEDS)
def test_imaged_deck_in_two_threads_images_each_chunk_once(seed):
    """One thread takes blocks while another images ahead: the same light, no chunk twice."""
    retina, cards = _deck(seed, 400)
    order = np.random.default_rng(seed).permutation(400)
    deck = retina_module._ImagedDeck(retina, cards, order)
    imaged = []
    original = deck._image_chunk
    deck._image_chunk = lambda j: (imaged.append(j), original(j))
    ahead = threading.Thread(target=lambda: [None for _ in iter(deck.image_one, False)])
    ahead.start()
    for first in range(0, 400, 64):
        light, rows = deck.take(order[first:first + 64])
        assert np.array_equal(light[rows], retina.light(cards[order[first:first + 64]]))
    ahead.join()
    assert sorted(imaged) == list(range(len(deck._state)))


def test_a_chunk_whose_imaging_raised_is_imaged_again():
    retina, cards = _deck(0, 100)
    deck = retina_module._ImagedDeck(retina, cards, np.arange(100))
    original = retina._image_any
    failures = [RuntimeError("lamp failed")]

    def image_any(c, out):
        if failures:
            raise failures.pop()
        original(c, out)

    retina._image_any = image_any
    with pytest.raises(RuntimeError, match="lamp failed"):
        deck.take(np.arange(10))
    light, rows = deck.take(np.arange(100))        # the failed chunk first, here
    assert np.array_equal(light[rows], retina.light(cards))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_fit_on_a_deck_imaged_as_it_goes_is_a_fit_on_its_light(seed):
    """Blocks of up to 512 presentations over chunks of 32 cards, shuffled epochs, with and
    without the second thread, its imaging ahead failing now and then (the chunk is imaged
    again where it is next wanted): the run of the deck imaged up front, bit for bit."""
    cards, labels = make_cards(300, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    spec = specs.MARK_I.with_overrides({"rack.motor_speed": 0.2})
    failing = threading.local()
    image_one, image_any = retina_module._ImagedDeck.image_one, Retina._image_any
    calls = [0]

    def flaky_one(deck):            # every third chunk the sensing thread images ahead fails
        if threading.current_thread().name == "mark1-sensing":
            calls[0] += 1
            failing.now = calls[0] % 3 == 0
        try:
            return image_one(deck)
        finally:
            failing.now = False

    def flaky_image(retina, c, out):
        if getattr(failing, "now", False):
            raise Boom("flaky lamp")
        image_any(retina, c, out)

    def fit():
        return MarkI(spec=spec, seed=seed, trace="off").fit(cards, labels, epochs=2, order="shuffled")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_speed, "THREADS", False)
        imaged_here = fit()
        mp.setattr(_speed, "THREADS", True)
        imaged_beside = fit()
        mp.setattr(retina_module._ImagedDeck, "image_one", flaky_one)
        mp.setattr(Retina, "_image_any", flaky_image)
        flaky_beside = fit()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mark_i, "_ImagedDeck", lambda retina, cards, order: retina.light(cards))
        up_front = fit()
    _same(imaged_here, up_front)
    _same(imaged_beside, up_front)
    _same(flaky_beside, up_front)
    assert not _sensing_threads()


def test_the_sensing_thread_survives_a_failure_imaging_ahead():
    """The thread's imaging ahead raising does not end the thread: it serves the next job."""
    cards, labels = make_cards(100, np.random.default_rng(0), shapes=("x", "box"))
    m = MarkI(spec=specs.MARK_I, seed=0, trace="off").fit(cards[:10], labels[:10])
    order = np.arange(100)
    deck = retina_module._ImagedDeck(m.retina, cards, order)
    pipeline = simulator._SensoryPipeline(m.retina, m.patchboard, deck, order, m.spec, m.rack_)
    jobs: queue.SimpleQueue = queue.SimpleQueue()
    dark, lit = retina_module.RetinaState.dark(m.retina.n_cells), np.full(10, 2.8)
    futures: list[Future] = [Future(), Future()]
    failures = []

    def failing_one():                 # idle after each job: the next job (then the end) comes
        failures.append(len(failures))
        jobs.put((futures[1], (10, 20, dark, lit, 0)) if len(failures) == 1 else None)
        raise Boom("imaging ahead failed")

    pipeline._image_one = failing_one
    jobs.put((futures[0], (0, 10, dark, lit, 0)))
    pipeline._serve(jobs)                          # here, in this thread: it returns at the end
    assert failures == [0, 1]
    for k, future in enumerate(futures):
        sensed = future.result(timeout=0)
        assert (sensed.first, sensed.stop) == (10 * k, 10 * k + 10)


def test_an_abandoned_deck_wakes_a_thread_waiting_for_a_chunk_nobody_images():
    """A chunk claimed by a thread an interrupt stopped before it imaged it: the run's end
    (abandon) wakes whoever waits for it, with an error, and nothing more is imaged."""
    retina, cards = _deck(0, 100)
    deck = retina_module._ImagedDeck(retina, cards, np.arange(100))
    with deck._changed:
        assert deck._claim(0) == 0
    raised: list[BaseException] = []

    def wait_for_chunk_0():
        try:
            deck.take(np.arange(5))
        except BaseException as e:            # noqa: BLE001 -- checked below
            raised.append(e)

    waiter = threading.Thread(target=wait_for_chunk_0)
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive()                   # nobody images chunk 0: it waits
    deck.abandon()
    waiter.join(10)
    assert not waiter.is_alive() and isinstance(raised[0], retina_module._Abandoned)
    assert not deck.image_one()


def test_close_ends_the_deck_and_survives_a_thread_never_started():
    """close() abandons the deck's imaging, and a worker whose start() an interrupt cut
    short (never started) is not joined with an error."""
    cards, labels = make_cards(40, np.random.default_rng(0), shapes=("x", "box"))
    m = MarkI(spec=specs.MARK_I, seed=0, trace="off").fit(cards[:10], labels[:10])
    deck = retina_module._ImagedDeck(m.retina, cards, np.arange(40))
    pipeline = simulator._SensoryPipeline(m.retina, m.patchboard, deck, np.arange(40), m.spec, m.rack_)
    pipeline._worker = threading.Thread(target=pipeline._serve, args=(pipeline._jobs,))
    pipeline.close()
    assert deck._abandoned and not deck.image_one()


def test_a_chunk_finished_by_the_other_thread_just_before_the_wait_is_not_waited_for():
    """The other thread finishes the last chunk wanted between this one's look at ``ready``
    and its taking the lock: it must see it done, not wait for a notice already given."""
    retina, cards = _deck(0, 64)
    deck = retina_module._ImagedDeck(retina, cards, np.arange(64))
    deck.take(np.arange(32))                                  # chunk 0 imaged here
    with deck._changed:
        assert deck._claim(1) == 1                            # chunk 1: the other thread's
    other = deck._changed

    class FinishedFirst:
        """The lock, whose first taking lets the other thread finish chunk 1 just before."""

        def __init__(self):
            self.first = True

        def __enter__(self):
            if self.first:
                self.first = False
                deck._changed = other
                deck._image_chunk(1)                          # done and notified: nobody waits yet
                deck._changed = self
            return other.__enter__()

        def __exit__(self, *exc):
            return other.__exit__(*exc)

        def wait(self, timeout=None):
            return other.wait(timeout)

        def notify_all(self):
            other.notify_all()

    deck._changed = FinishedFirst()
    deck.ready = 1                                            # as seen before chunk 1 was done
    taken = threading.Thread(target=lambda: deck.take(np.arange(32, 64)), daemon=True)
    taken.start()
    taken.join(10)
    assert not taken.is_alive()
    assert np.array_equal(deck.light[32:], retina.light(cards[32:]))
