"""The event simulation: exact event-log timing, waiting for the motors versus overlap,
driver queues in a run, the photocells re-timed after a wait, and the Trace."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import simpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import make_cards, same_trace
from mark1 import MarkI, specs
from mark1._utils import speed as _speed
from mark1.machine import simulator
from mark1.machine.retina import RetinaState
from mark1.machine.simulator import Trace

SPEED = 0.01                     # full scale per s: one increment (0.02) takes 2 s > the 1 s period
INC = 0.02
SLOW = specs.SMALL.only("speed_limit").with_overrides({"rack.motor_speed": SPEED, "trainer.increment": INC})
TM = SLOW.timing
READ_AT = TM.card_change + TM.settle + TM.a_delay + TM.r_delay
MOVE = INC / SPEED


def _fit(spec, seed, n_cards=10, epochs=2, shapes=("x", "box"), trace="full", **kw):
    cards, labels = make_cards(n_cards, np.random.default_rng(seed), shapes=shapes)
    return MarkI(spec=spec, seed=seed, trace=trace).fit(cards, labels, epochs=epochs, **kw)


def _events(m, name):
    return [(t, p, d) for t, e, p, d in m.trace_.events if e == name]


seeds = st.integers(0, 2**32 - 1)


# -- one presentation, as the machine does it -----------------------------------------------

@settings(max_examples=5)
@given(seed=seeds)
def test_presentation_instants(seed):
    m = _fit(SLOW, seed)
    start = m.history_["start"]
    for name, offset in [("card change", 0.0), ("lamps on", TM.card_change),
                         ("S sampled", TM.card_change + TM.settle),
                         ("A settled", TM.card_change + TM.settle + TM.a_delay),
                         ("R read", READ_AT)]:
        ev = _events(m, name)
        assert [p for _, p, _ in ev] == list(range(len(start))), name
        np.testing.assert_allclose([t for t, _, _ in ev], start + offset, rtol=0, atol=1e-9)
    # the S and A counts logged are the ones in the history
    assert [int(d.split()[0]) for _, _, d in _events(m, "S sampled")] == m.history_["s_active"].tolist()
    assert [int(d.split()[0]) for _, _, d in _events(m, "A settled")] == m.history_["a_active"].tolist()
    assert [d.split(",")[0] for _, _, d in _events(m, "card change")] == [f"card {c}" for c in m.history_["card"]]
    for t, e, p, d in m.trace_.events:
        assert isinstance(t, float) and isinstance(e, str) and isinstance(p, int) and isinstance(d, str)


# -- waiting for the motors -------------------------------------------------------------------

@settings(max_examples=5)
@given(seed=seeds)
def test_wait_mode_delays_the_next_card_until_the_motors_stop(seed):
    m = _fit(SLOW, seed)
    h = m.history_
    moved = h["pots_moved"] > 0
    assert moved.any()
    # a reinforced presentation lasts until its motors stop (read + 2 s), others one period
    expected = np.where(moved, max(TM.period, READ_AT + MOVE), TM.period)
    np.testing.assert_allclose(np.diff(h["start"]), expected[:-1], rtol=0, atol=1e-9)
    assert np.all(np.diff(h["start"])[moved[:-1]] > TM.period)
    assert m.waited_ == pytest.approx(moved.sum() * (READ_AT + MOVE - TM.period), rel=1e-9)
    assert m.waited_ > 0
    assert m.machine_time_ == pytest.approx(h["start"][-1] + expected[-1], rel=1e-12)
    # the log: every reinforcement starts the motors at the read and they stop 2 s later
    starts, stops = _events(m, "motors start"), _events(m, "motors stop")
    assert len(starts) == len(stops) == moved.sum() == len(_events(m, "reinforce"))
    assert [p for _, p, _ in starts] == np.flatnonzero(moved).tolist()
    for (t0, p0, _), (t1, p1, _) in zip(starts, stops):
        assert p0 == p1
        assert t0 == pytest.approx(h["start"][p0] + READ_AT, abs=1e-9)
        assert t1 - t0 == pytest.approx(MOVE, rel=1e-9)
    waits = _events(m, "waited for motors")
    assert [p for _, p, _ in waits] == np.flatnonzero(moved).tolist()
    # in wait mode the log is in time order
    times = [t for t, *_ in m.trace_.events]
    assert all(b >= a - 1e-12 for a, b in zip(times, times[1:]))


@settings(max_examples=5)
@given(seed=seeds)
def test_fast_motors_need_no_wait(seed):
    spec = SLOW.with_overrides({"rack.motor_speed": 1.0})          # 0.02 s moves
    m = _fit(spec, seed)
    np.testing.assert_allclose(np.diff(m.history_["start"]), TM.period, atol=1e-9)
    assert m.waited_ == 0
    assert not _events(m, "waited for motors")
    for (t0, _, _), (t1, _, _) in zip(_events(m, "motors start"), _events(m, "motors stop")):
        assert t1 - t0 == pytest.approx(INC / 1.0, rel=1e-9)


@settings(max_examples=5)
@given(seed=seeds)
def test_overlap_keeps_the_period_and_reads_wipers_mid_move(seed):
    """timing.overlap=True: the next card comes on time while the motors turn, and its
    read sees each moving wiper linearly between where it started and its target (the
    trace's moves say where and when; its readings what the trainer read)."""
    spec = SLOW.with_overrides({"timing.overlap": True})
    m = _fit(spec, seed)
    h, mask = m.history_, m.rack_.mask
    np.testing.assert_allclose(np.diff(h["start"]), TM.period, atol=1e-9)
    assert m.waited_ == 0 and not _events(m, "waited for motors")
    assert (h["pots_moved"] > 0).any()
    strictly_between = half_way = 0
    for p, r in enumerate(m.trace_.readings):
        pots = np.append(r.a_units, mask.shape[1] - 1)
        # no read noise: the wipers read make the sums the trainer read
        np.testing.assert_allclose((r.wipers * mask[:, pots]).sum(axis=1), m.read_sums_[p], rtol=1e-12, atol=1e-15)
        latest = {}                                   # each pot's last move set going before the read
        for mv in m.trace_.moves:
            if mv.time < r.time:
                for k in range(len(mv.unit)):
                    latest[(int(mv.unit[k]), int(mv.a_unit[k]))] = (mv.time, mv, k)
        for col, a in enumerate(pots):
            for unit in range(mask.shape[0]):
                if (unit, a) not in latest:
                    continue
                t_go, mv, k = latest[(unit, a)]
                begin, end = t_go + mv.slack_time[k], t_go + mv.duration[k]
                frac = 1.0 if end <= begin else min(max((r.time - begin) / (end - begin), 0.0), 1.0)
                expected = mv.start[k] + (mv.target[k] - mv.start[k]) * frac
                assert r.wipers[unit, col] == pytest.approx(expected, rel=1e-12, abs=1e-15)
                strictly_between += 0.0 < frac < 1.0
                # the read 1 s into a 2 s move sees the wiper half-way
                half_way += bool(np.isclose(r.time - begin, TM.period) and np.isclose(frac, 0.5))
    assert strictly_between > 0 and half_way > 0
    # the run ends when the last period is over and every wiper has stopped
    assert m.machine_time_ == pytest.approx(max(h["start"][-1] + TM.period, m.rack_.busy_until), rel=1e-12)
    assert np.array_equal(m.weights_, m.rack_.p_to)


@pytest.mark.parametrize("n_drivers", [1, 3, 8])
def test_driver_limit_in_a_run(n_drivers):
    """With N drivers a command of m pots takes ceil(m / N) moves; the card waits for it."""
    speed = 0.1
    spec = SLOW.with_overrides({"rack.motor_speed": speed, "rack.drivers": n_drivers})
    d = INC / speed
    for seed in range(3):
        m = _fit(spec, seed, n_cards=8, epochs=2)
        h = m.history_
        moves = np.array([math.ceil(k / n_drivers) * d for k in h["pots_moved"]])
        expected = np.maximum(TM.period, READ_AT + moves)
        np.testing.assert_allclose(np.diff(h["start"]), expected[:-1], atol=1e-9)
        queued, stops = _events(m, "motors queued"), _events(m, "motors stop")
        assert len(queued) == len(stops) == (h["pots_moved"] > 0).sum()
        for (t0, p, _), (t1, p1, _) in zip(queued, stops):
            assert p == p1 and t1 - t0 == pytest.approx(moves[p], rel=1e-9)


def test_alpha_moves_the_active_pots_of_every_erring_unit():
    # every unit wired to every A-unit (the default splits them among the units in use)
    spec = SLOW.with_overrides({"rack.motor_speed": "inf", "rack.topology": "all"})
    for seed in range(3):
        m = _fit(spec, seed, n_cards=12, epochs=2, shapes=("x", "box", "bar"))
        h = m.history_
        assert m.code_.kind == "one-per-class"
        assert np.array_equal(h["pots_moved"], h["units_erred"].astype(int) * (h["a_active"].astype(int) + 1))
        assert h["units_erred"].max() >= 1


def test_gamma_moves_every_pot_of_every_erring_unit():
    spec = SLOW.with_overrides({"rack.motor_speed": "inf", "trainer.rule": "gamma"})
    m = _fit(spec, 0, n_cards=12, epochs=2)
    h = m.history_
    n_inputs = spec.patchboard.n_associators + 1
    assert np.array_equal(h["pots_moved"], h["units_erred"].astype(int) * n_inputs)
    # γ conserves the total of each unit's pots, so the wipers sum to zero
    assert abs(m.weights_.sum()) < 1e-12


def test_forced_spontaneous_and_lms_reinforce_every_card():
    for over in ({"trainer.reinforcement": "forced"}, {"trainer.reinforcement": "spontaneous"},
                 {"trainer.rule": "lms"}, {"trainer.rule": "beta", "trainer.reinforcement": "forced"}):
        spec = SLOW.with_overrides({"rack.motor_speed": "inf", **over})
        m = _fit(spec, 0, n_cards=8, epochs=2)
        assert np.all(m.history_["pots_moved"] > 0), over


# -- photocells re-timed after a wait ------------------------------------------------------------

@settings(max_examples=4)
@given(seed=seeds)
def test_sensory_readings_follow_the_actual_schedule(seed):
    """After a wait the card stayed lit longer: the S- and A-units recorded equal those of
    the photocells exposed with the lit times that actually happened."""
    spec = SLOW.with_overrides({"retina.dynamics": True, "retina.history_ratio": 3.0, "retina.history_time": 2.0})
    m = _fit(spec, seed, n_cards=10, epochs=3)
    h = m.history_
    lit = np.diff(np.r_[h["start"], m.machine_time_]) - TM.card_change
    assert lit.max() > TM.period - TM.card_change + 1.0          # some cards waited
    cards, _ = make_cards(10, np.random.default_rng(seed))
    light = m.retina.light(cards)[h["card"]]
    signal, _ = m.retina.expose(light, lit, RetinaState.dark(m.retina.n_cells),
                                card_change=TM.card_change, settle=TM.settle)
    s = m.retina.fire(signal)
    assert np.array_equal(s.sum(axis=1), h["s_active"])
    assert np.array_equal(m.patchboard.associate(s).sum(axis=1), h["a_active"])


# -- the Trace ----------------------------------------------------------------------------------

def test_trace_levels():
    with pytest.raises(ValueError, match="trace"):
        Trace("verbose")
    cards, labels = make_cards(6, np.random.default_rng(0))
    off = MarkI(spec=SLOW, seed=0, trace="off").fit(cards, labels, epochs=2)
    summ = MarkI(spec=SLOW, seed=0, trace="summary").fit(cards, labels, epochs=2)
    full = MarkI(spec=SLOW, seed=0, trace="full").fit(cards, labels, epochs=2)
    assert len(off.trace_) == 0 and off.trace_.summary == {}
    assert len(summ.trace_) == 0
    h = summ.history_
    assert summ.trace_.summary["presentations"] == 12
    assert summ.trace_.summary["errors"] == int((~h["correct"]).sum())
    assert summ.trace_.summary["reinforcements"] == int((h["pots_moved"] > 0).sum())
    assert summ.trace_.summary["pots moved"] == int(h["pots_moved"].sum())
    assert summ.trace_.summary["seconds waited for motors"] == pytest.approx(summ.waited_)
    assert summ.trace_.summary["machine time s"] == pytest.approx(summ.machine_time_)
    assert len(full.trace_) >= 5 * 12
    # the trace level does not change what happens
    assert np.array_equal(off.history_, full.history_) and np.array_equal(summ.history_, full.history_)
    np.testing.assert_array_equal(off.weights_, full.weights_)


def test_trace_csv_and_array(tmp_path):
    m = _fit(SLOW, 1, n_cards=4, epochs=1)
    text = m.trace_.to_csv()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["time_s", "event", "presentation", "detail"]
    assert len(rows) - 1 == len(m.trace_)
    for row, (t, e, p, d) in zip(rows[1:], m.trace_.events):
        assert float(row[0]) == pytest.approx(t, abs=5e-7) and row[1] == e and int(row[2]) == p and row[3] == d
    m.trace_.to_csv(tmp_path / "events.csv")
    assert (tmp_path / "events.csv").read_text() == text
    arr = m.trace_.to_array()
    assert arr.shape == (len(m.trace_),)
    assert arr["time"].tolist() == [t for t, *_ in m.trace_.events]
    assert list(iter(m.trace_)) == m.trace_.events
    assert "full" in repr(m.trace_)


def test_env_can_be_passed_in():
    import simpy
    env = simpy.Environment()
    cards, labels = make_cards(4, np.random.default_rng(0))
    m = MarkI(spec=SLOW, seed=0).fit(cards, labels, epochs=1, env=env)
    assert env.now == pytest.approx(m.machine_time_)
    ref = MarkI(spec=SLOW, seed=0).fit(cards, labels, epochs=1)
    assert np.array_equal(m.history_, ref.history_)


# -- a digital twin of the rack at infinite motor speed ---------------------------------------------

def _twin(m, cards, labels):
    """Replays a run one card at a time with the rack's documented rules (motor gain,
    backlash on reversal, end stops, exponential decay between reads)."""
    from mark1.machine.rules import RULES
    spec = m.spec
    r = spec.rack
    X = m.associate(m.sense(cards))
    X = np.hstack([X.astype(float), np.ones((len(X), 1))])
    T = m.code_.targets[np.searchsorted(m.classes_, labels)].astype(float)
    gain, mask = m.rack_.gain, m.rack_.mask
    w = np.zeros(mask.shape)
    last_dir = np.zeros(mask.shape, int)
    rate = 0.0 if math.isinf(r.decay_time) else 1.0 / r.decay_time
    t_prev = 0.0
    erred = []
    for p, i in enumerate(m.history_["card"]):
        t_read = m.history_["start"][p] + READ_AT
        w = w * math.exp(-(t_read - t_prev) * rate)
        t_prev = t_read
        s = (w * mask) @ X[i]
        erred.append(int((T[i] * s <= m.code_.tie).sum()))           # the tie rule of mark1.rules
        tr = spec.trainer
        cmd = RULES[tr.rule](X[i] > 0, T[i], s, mask, tr.increment, tr.lms_rate, tie=m.code_.tie,
                             reinforcement=tr.reinforcement, valence=tr.valence)
        for u, j in zip(*np.nonzero(cmd)):
            d = int(np.sign(cmd[u, j]))
            travel = gain[u, j] * abs(cmd[u, j])
            slack = r.backlash if last_dir[u, j] not in (0, d) else 0.0
            slack = min(slack, travel)
            w[u, j] = w[u, j] + d * (travel - slack)
            if r.end_stops:
                w[u, j] = min(max(w[u, j], -1.0), 1.0)
            last_dir[u, j] = d
    w = w * math.exp(-(m.machine_time_ - t_prev) * rate)
    return np.array(erred), w


@settings(max_examples=8)
@given(seed=seeds, rule=st.sampled_from(["alpha", "beta", "gamma", "lms", "forced"]),
       decay=st.sampled_from([math.inf, 20.0]), overlap=st.booleans())
def test_machine_matches_a_twin_of_the_rack(seed, rule, decay, overlap):
    """Motor gain, backlash, end stops and decay in a whole run, against a one-card-at-a-
    time replay. The motors are fast enough to stop before the next read, so every read
    sees wipers at rest, with or without overlap."""
    spec = specs.SMALL.ideal().with_overrides({
        "rack.motor_speed": 100.0, "rack.end_stops": True, "rack.motor_spread": 0.3, "rack.backlash": 0.01,
        "rack.decay_time": decay, "timing.overlap": overlap,
        "trainer.increment": 0.15, "trainer.lms_rate": 0.05,
        **({"trainer.reinforcement": "forced"} if rule == "forced" else {"trainer.rule": rule})})
    cards, labels = make_cards(12, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    m = MarkI(spec=spec, seed=seed).fit(cards, labels, epochs=4)
    # every move ends before the next read, for any motor gain: a move lasts its slack over
    # the motor's speed plus |command| / motor_speed, and no command is longer than γ's
    # (increment x pots per unit) or LMS's (lms_rate x (1 + the largest sum))
    r, n_in = spec.rack, m.rack_.mask.shape[1]
    longest_command = max(0.15 * n_in, 0.05 * (1 + n_in))
    assert r.backlash / (r.motor_speed * m.rack_.gain.min()) + longest_command / r.motor_speed < TM.period - READ_AT
    erred, w = _twin(m, cards, labels)
    h = m.history_
    if rule in ("alpha", "beta", "gamma"):                          # error-driven: every presentation read
        assert np.array_equal(h["units_erred"], erred)
    np.testing.assert_allclose(m.weights_, w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.diff(h["start"]), TM.period, atol=1e-9)
    assert m.waited_ == 0


@settings(max_examples=4)
@given(seed=seeds, block=st.integers(1, 9))
def test_sensory_readings_do_not_depend_on_the_pipeline_block(seed, block):
    """The pipeline computes the photocells a block of presentations at a time (256) and
    recomputes after a wait. With tiny blocks (many block boundaries, waits on both sides
    of them) the run is the same, and equals one exposure of the whole schedule."""
    from mark1.machine.simulator import _SensoryPipeline
    spec = SLOW.with_overrides({"retina.dynamics": True, "retina.history_ratio": 3.0, "retina.history_time": 2.0})
    cards, labels = make_cards(8, np.random.default_rng(seed))
    ref = MarkI(spec=spec, seed=seed, trace="off").fit(cards, labels, epochs=5, order="shuffled")
    original = _SensoryPipeline.__init__

    def small_blocks(self, *args, **kw):
        kw["block"] = block
        original(self, *args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_SensoryPipeline, "__init__", small_blocks)
        m = MarkI(spec=spec, seed=seed, trace="off").fit(cards, labels, epochs=5, order="shuffled")
    h = m.history_
    assert np.array_equal(h, ref.history_)
    lit = np.diff(np.r_[h["start"], m.machine_time_]) - TM.card_change
    assert lit.max() > TM.period
    light = m.retina.light(cards)[h["card"]]
    signal, _ = m.retina.expose(light, lit, RetinaState.dark(m.retina.n_cells),
                                card_change=TM.card_change, settle=TM.settle)
    s = m.retina.fire(signal)
    assert np.array_equal(s.sum(axis=1), h["s_active"])
    assert np.array_equal(m.patchboard.associate(s).sum(axis=1), h["a_active"])


def test_noise_stream_depends_only_on_the_presentation():
    from mark1.machine.simulator import _NoiseStream
    n_units = 3
    chunk = _NoiseStream.CHUNK
    ref = np.random.default_rng(7).standard_normal((3 * chunk, n_units))
    stream = _NoiseStream(np.random.default_rng(7), n_units)
    for p0, p1 in [(0, 1), (1, 5), (5, 300), (300, chunk + 10), (chunk + 10, chunk + 11),
                   (2 * chunk - 1, 2 * chunk + 500), (2 * chunk + 500, 3 * chunk)]:
        np.testing.assert_array_equal(stream.get(p0, p1), ref[p0:p1])


def test_refit_starts_over():
    cards, labels = make_cards(10, np.random.default_rng(0))
    m = MarkI(spec=specs.SMALL, seed=5)
    first = m.fit(cards, labels, epochs=2, order="shuffled").history_.copy()
    w1 = m.weights_.copy()
    second = m.fit(cards, labels, epochs=2, order="shuffled").history_
    assert np.array_equal(first, second)
    np.testing.assert_array_equal(w1, m.weights_)


def test_read_noise_of_the_answers():
    """decision_function adds wiper_noise * sqrt(active pots) of Gaussian noise per sum.

    The noise of a scoring read is a fixed draw per machine and card (see MarkI.decision_function),
    so its spread is measured over many cards, not over many calls.
    """
    noise = 0.05
    spec = specs.SMALL.ideal().with_overrides({"rack.wiper_noise": noise})
    assert spec.is_on("wiper_noise") and not spec.is_ideal
    cards, labels = make_cards(4, np.random.default_rng(1))
    m = MarkI(spec=spec, seed=1).fit(cards, labels, epochs=2)
    many = np.random.default_rng(2).random((3000, *cards.shape[1:]))
    x = np.hstack([m.associate(m.sense(many)), np.ones((3000, 1))])
    z = (m.decision_function(many)[:, 0] - x @ m.weights_[0]) / (noise * np.sqrt(x.sum(axis=1)))
    assert abs(z.mean()) < 6 / np.sqrt(3000)
    assert abs(z.std() - 1) < 0.1                                                      # ~8 standard errors
    assert np.array_equal(m.decision_function(cards), m.decision_function(cards))     # asked twice: same sums


# -- the compiled loop vs stepping card by card ---------------------------------------------------

class _CountingEnvironment(simpy.Environment):
    """Counts the events SimPy schedules."""

    def __init__(self):
        super().__init__()
        self.events = 0

    def schedule(self, event, priority=1, delay=0):
        self.events += 1
        super().schedule(event, priority, delay)


_TIMING_VARIANTS = {
    "default": {},
    "overlap": {"timing.overlap": True, "rack.motor_speed": 0.01},
    "slow motors wait": {"rack.motor_speed": 0.01},
    "two drivers": {"rack.drivers": 2},
    "ratchet": {"rack.drive": "ratchet"},
    "gamma": {"trainer.rule": "gamma"},
    "lms": {"trainer.rule": "lms"},
    "fast decay": {"rack.decay_time": 30.0},
    # the value systems (issue 16), each on its own and in combinations
    "beta": {"trainer.rule": "beta"},
    "forced": {"trainer.reinforcement": "forced"},
    "spontaneous": {"trainer.reinforcement": "spontaneous"},
    "spontaneous, slow motors wait": {"trainer.reinforcement": "spontaneous", "rack.motor_speed": 0.01},
    "monovalent": {"trainer.valence": "monovalent"},
    "beta monovalent forced": {"trainer.rule": "beta", "trainer.valence": "monovalent",
                               "trainer.reinforcement": "forced"},
    "mean": {"response.discrimination": "mean"},
    "mean gamma": {"response.discrimination": "mean", "trainer.rule": "gamma"},
    "mean lms": {"response.discrimination": "mean", "trainer.rule": "lms", "trainer.lms_rate": 0.0005},
    "mean beta spontaneous, overlap": {"response.discrimination": "mean", "trainer.rule": "beta",
                                       "trainer.reinforcement": "spontaneous", "timing.overlap": True,
                                       "rack.motor_speed": 0.01},
    "no bias": {"rack.bias": False},
    "no bias, mean monovalent": {"rack.bias": False, "response.discrimination": "mean",
                                 "trainer.valence": "monovalent"},
    "split": {"rack.topology": "split"},
    "split beta mean": {"rack.topology": "split", "trainer.rule": "beta", "response.discrimination": "mean"},
    "split gamma spontaneous, no bias": {"rack.topology": "split", "trainer.rule": "gamma",
                                         "trainer.reinforcement": "spontaneous", "rack.bias": False},
    "split monovalent forced, decay": {"rack.topology": "split", "trainer.valence": "monovalent",
                                       "trainer.reinforcement": "forced", "rack.decay_time": 30.0},
    # over 100 decay times between reinforcements: the decay is folded into the stored positions
    "decay folded in": {"rack.decay_time": 0.004},
    "decay folded in, waits": {"rack.decay_time": 0.004, "rack.motor_speed": 0.01},
}


@pytest.mark.parametrize("shapes", [("x", "box", "bar"), ("x", "box")], ids=["3 classes", "2 classes"])
@pytest.mark.parametrize("variant", sorted(_TIMING_VARIANTS))
@settings(max_examples=2, deadline=None)
@given(seed=seeds)
def test_the_compiled_loop_gives_the_card_by_card_history(seed, variant, shapes):
    """trace='full' forces one SimPy step per card; trace='off' runs the compiled loop
    between waits for the motors. Same seed, same history, bit for bit (times included),
    for every value system (one-per-class code with 3 classes, a single R-unit with 2)."""
    spec = specs.SMALL.with_overrides(_TIMING_VARIANTS[variant])
    cards, labels = make_cards(12, np.random.default_rng(seed), shapes=shapes)
    fast_env, step_env = _CountingEnvironment(), _CountingEnvironment()
    fast = MarkI(spec=spec, seed=seed, trace="off").fit(cards, labels, epochs=3, env=fast_env)
    step = MarkI(spec=spec, seed=seed, trace="full").fit(cards, labels, epochs=3, env=step_env)
    for field in fast.history_.dtype.names:
        assert np.array_equal(fast.history_[field], step.history_[field]), field
    assert fast.machine_time_ == step.machine_time_ and fast.waited_ == step.waited_
    assert np.array_equal(fast.weights_, step.weights_)
    assert fast_env.events <= step_env.events
    if spec.rack.drivers == 0 and not spec.timing.overlap:
        # nothing per card and nothing per reinforcement: one timeout per run of the
        # compiled loop, which ends at a wait for the motors or at the end of a sensed
        # block (at least 8 presentations; a wait starts a new one), one to reach the end
        # of the run, and SimPy's own start and finish events of the trainer process
        n = len(fast.history_)
        waits = int(np.count_nonzero(np.diff(fast.history_["start"]) > spec.timing.period * (1 + 1e-9)))
        assert fast_env.events <= 2 * waits + n // 8 + 5


def test_a_full_trace_keeps_the_sums_the_trainer_read():
    cards, labels = make_cards(12, np.random.default_rng(0), shapes=("x", "box", "bar"))
    full = MarkI(spec=specs.SMALL, seed=0, trace="full").fit(cards, labels, epochs=2)
    off = MarkI(spec=specs.SMALL, seed=0, trace="off").fit(cards, labels, epochs=2)
    assert off.read_sums_ is None
    sums = full.read_sums_
    assert sums.shape == (24, full.code_.n_units) and np.isfinite(sums).all()
    assert np.array_equal(full.code_.decode(sums), full.history_["response"])        # the answers came from them
    t = full.code_.targets[full.history_["label"]]
    assert np.array_equal((t * sums <= full.code_.tie).sum(axis=1)[full.history_["pots_moved"] > 0],
                          full.history_["units_erred"][full.history_["pots_moved"] > 0])
    logged = [d for _, e, _, d in full.trace_ if e == "R read"]
    assert logged[5].startswith("sums " + " ".join(f"{v:+.4g}" for v in sums[5]))   # the trace rounds them


@pytest.mark.parametrize("overrides", [
    {"rack.wiper_noise": 0.0},
    {"rack.wiper_noise": 0.0, "rack.drivers": 2, "timing.overlap": True, "rack.motor_speed": 0.05},
    {"rack.wiper_noise": 0.0, "rack.topology": "split", "trainer.rule": "gamma"},
])
def test_a_full_trace_keeps_the_machines_record(overrides):
    """Per presentation the S- and A-units lit and the wipers read; every move as the rack set it going."""
    spec = specs.SMALL.with_overrides(overrides)
    cards, labels = make_cards(8, np.random.default_rng(3), shapes=("x", "box", "bar"))
    m = MarkI(spec=spec, seed=3, trace="full").fit(cards, labels, epochs=3)
    h, trace, mask = m.history_, m.trace_, m.rack_.mask
    assert len(trace.readings) == len(h)
    reads = [t for t, e, _, _ in trace if e == "R read"]
    for p, r in enumerate(trace.readings):
        assert r.time == reads[p]
        assert len(r.s_units) == h["s_active"][p] and len(r.a_units) == h["a_active"][p]
        pots = np.append(r.a_units, mask.shape[1] - 1)
        # no read noise: the wipers read make the sums the trainer read
        np.testing.assert_allclose((r.wipers * mask[:, pots]).sum(axis=1), m.read_sums_[p], rtol=1e-12, atol=1e-15)
    if np.allclose(np.diff(h["start"]), spec.timing.period):   # no waits: the schedule shown on the nominal cycle
        s = m.sense(cards[h["card"]])
        phi = m.associate(s)
        for p, r in enumerate(trace.readings):
            assert np.array_equal(r.s_units, np.flatnonzero(s[p])) and np.array_equal(r.a_units, np.flatnonzero(phi[p]))
    moved = np.zeros(len(h), int)
    starts = {(round(t, 9), p) for t, e, p, _ in trace if e in ("motors start", "motors queued")}
    for move in trace.moves:
        moved[move.presentation] += len(move.command)
        assert move.time >= h["start"][move.presentation]
        assert mask[move.unit, move.a_unit].all()
        assert np.all(move.duration >= move.slack_time)
        if spec.rack.drivers == 0:             # all at once, when the motors start
            assert (round(move.time, 9), move.presentation) in starts
    assert np.array_equal(moved, h["pots_moved"])
    off = MarkI(spec=spec, seed=3, trace="summary").fit(cards, labels, epochs=3)
    assert off.trace_.readings == [] and off.trace_.moves == []
    assert np.array_equal(off.history_, h)


_WHOLE_VARIANTS = {
    "default": {},
    "slow motors wait": {"rack.motor_speed": 0.01},
    "gamma": {"trainer.rule": "gamma"},
    "write noise, ratchet": {"rack.drive": "ratchet", "rack.write_noise_std": 0.01},
    "lms, mean": {"trainer.rule": "lms", "response.discrimination": "mean", "trainer.lms_rate": 0.0005},
}


def _traced(spec, seed, cards, labels, *, compiled=True, listener=None):
    env = _CountingEnvironment()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_speed, "COMPILED_LOOP", compiled)
        m = MarkI(spec=spec, seed=seed, trace="full").fit(cards, labels, epochs=3, env=env, on_event=listener)
    return m, env.events


@pytest.mark.parametrize("seed", (0, 1, 2))
@pytest.mark.parametrize("variant", sorted(_WHOLE_VARIANTS))
def test_a_full_trace_run_whole_is_the_event_paths(variant, seed, monkeypatch):
    """A full trace nobody watches runs its blocks whole through the kernel and writes them
    after (no SimPy event per card); its events, readings, moves and sums are the event
    path's and those of a listener's run (one card a call), also when the moves' log fills
    mid-block (room for one card's moves: the kernel stops at ROOM and the log is written)."""
    spec = specs.SMALL.with_overrides(_WHOLE_VARIANTS[variant])
    cards, labels = make_cards(12, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    whole, n_events = _traced(spec, seed, cards, labels)
    heard: list = []
    same_trace(whole, _traced(spec, seed, cards, labels, compiled=False)[0])
    same_trace(whole, _traced(spec, seed, cards, labels, listener=lambda *e: heard.append(e))[0])
    assert heard == whole.trace_.events
    h = whole.history_
    assert (h["pots_moved"] > 0).any()
    waits = int(np.count_nonzero(np.diff(h["start"]) > spec.timing.period * (1 + 1e-9)))
    assert n_events <= 2 * waits + len(h) // 8 + 5
    monkeypatch.setattr(simulator, "_WHOLE_LOG", 1)      # the log holds one card's moves at most
    same_trace(whole, _traced(spec, seed, cards, labels)[0])


def test_a_kernel_called_directly_runs_the_copy_of_each_key():
    """_Direct calls the compiled copy found for each key's argument types (not numba's
    dispatcher, which types every argument at every call), and the right one per key."""
    import numba

    @numba.njit
    def twice(a):
        return a * 2

    direct = simulator._Direct(twice)
    ints, floats = np.arange(3), np.linspace(0.0, 1.0, 3)
    for _ in range(2):                       # the first call of a key goes through the dispatcher
        assert direct("ints", ints).dtype == ints.dtype and np.array_equal(direct("ints", ints), 2 * ints)
        assert direct("floats", floats).dtype == np.float64 and np.array_equal(direct("floats", floats), 2 * floats)
    assert len(direct.entries) == 2 and all(e is not twice for e in direct.entries.values())


def test_a_plain_function_is_called_as_it_is():
    """Without numba (NUMBA_DISABLE_JIT) the kernels are plain functions: _Direct calls them."""
    def twice(a):
        return a * 2

    direct = simulator._Direct(twice)
    assert [direct("k", 3), direct("k", 4)] == [6, 8] and direct.entries == {"k": twice}


_HELD_VARIANTS = ("default", "overlap", "slow motors wait", "two drivers", "mean beta spontaneous, overlap",
                  "spontaneous, slow motors wait", "decay folded in, waits", "binary code, spontaneous")


@pytest.mark.skipif(not _speed.compiler_on(), reason="numba's compiler is off (NUMBA_DISABLE_JIT)")
@pytest.mark.parametrize("compiled", [False, True], ids=["SimPy path", "compiled loop"])
@pytest.mark.parametrize("variant", _HELD_VARIANTS)
@settings(max_examples=2, deadline=None)
@given(seed=seeds)
def test_the_records_held_once_a_run_give_the_records_passed_each_call(seed, variant, compiled):
    """The kernel's records held in a RunState (made again with each sensed block, clock
    shift and grown driver queue) and passed at every call give the same run, bit for bit
    (sensed blocks of 4 presentations; read noise, so each block's kicks travel too; two
    drivers: a queue that grows)."""
    binary = variant == "binary code, spontaneous"        # the kernel leaves reinforcements to act_on
    overrides = ({"response.code": "binary", "trainer.reinforcement": "spontaneous"} if binary
                 else _TIMING_VARIANTS[variant])
    spec = specs.SMALL.with_overrides({**overrides, "rack.wiper_noise": 0.01})
    cards, labels = make_cards(12, np.random.default_rng(seed), shapes=("x", "box", "bar"))
    made = {"make_state": 0}
    original = simulator._SensoryPipeline.__init__

    def small_blocks(self, *args, **kw):
        original(self, *args, **{**kw, "block": 4})

    def counted(name):
        real = getattr(simulator.kernel_state, name)

        def call(*args):
            made[name] += 1
            return real(*args)
        return call

    runs = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simulator._SensoryPipeline, "__init__", small_blocks)
        mp.setattr(_speed, "COMPILED_LOOP", compiled)
        for name in made:
            mp.setattr(simulator.kernel_state, name, counted(name))
        for held in (True, False):
            mp.setattr(_speed, "HOLD_STATE", held)
            runs[held] = MarkI(spec=spec, seed=seed, trace="off").fit(cards, labels, epochs=3)
            if held and not binary:     # 36 presentations in blocks of 4: a state for each
                assert made["make_state"] >= 9, made
                made["make_state"] = 0
    assert made == {"make_state": 0}        # passed at each call: no state
    held, passed = runs[True], runs[False]
    for field in held.history_.dtype.names:
        assert np.array_equal(held.history_[field], passed.history_[field]), field
    assert held.machine_time_ == passed.machine_time_ and held.waited_ == passed.waited_
    assert np.array_equal(held.weights_, passed.weights_)


def test_without_numbas_compiler_the_records_are_passed_each_call():
    """Under NUMBA_DISABLE_JIT the kernels are plain functions and no RunState can be made:
    the run passes the records at every call (and still runs)."""
    import os
    import subprocess
    import sys
    code = ("import numpy as np; from mark1 import MarkI, specs; from mark1._utils import speed as s; "
            "print(s.HOLD_STATE and s.compiler_on()); "
            "m = MarkI(spec=specs.SMALL, seed=0, trace='off').fit(np.random.default_rng(0).random((3, 20, 20)), "
            "[0, 1, 0]); print(len(m.history_))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "3"]


def test_collector_paused_while_a_full_trace_runs():
    """A full trace runs with Python's cyclic collector paused (its record is acyclic); the
    collector is back as it was after the run, also after one that raised, and stays off
    after a run where the caller had turned it off."""
    import gc

    seen = []

    def listener(*event):
        seen.append(gc.isenabled())
        if len(seen) == 40:
            raise RuntimeError("stop")

    cards, labels = make_cards(6, np.random.default_rng(0))
    assert gc.isenabled()
    with pytest.raises(RuntimeError, match="stop"):
        MarkI(spec=specs.MARK_I, seed=0).fit(cards, labels, epochs=20, on_event=listener)
    assert gc.isenabled()
    assert seen == [False] * 40
    gc.disable()
    try:
        MarkI(spec=specs.MARK_I, seed=0, trace="full").fit(cards, labels)
        assert not gc.isenabled()
    finally:
        gc.enable()
