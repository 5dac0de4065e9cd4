"""Shared fixtures and helpers for the mark1 tests.

Cards are synthetic and numpy-only: a 40×40 card of white paper (reflectance 1) with a
figure drawn in ink (reflectance 0.05), shifted by a few pixels at random. Every test
that takes a seed draws it from hypothesis or loops over several seeds; none relies on
a particular seed.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from mark1 import specs

# A command run as Python on a cold cache from a (pseudo-)terminal would leave a background
# compile running past the session: the tests that want one ask for it.
os.environ["MARK1_COMPILE_AHEAD"] = "0"

# No example database in the shared working tree; no wall-clock deadlines (2 cores, CI).
settings.register_profile("mark1", deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mark1")

PAPER = 1.0
INK = 0.05
CARD_SIZE = 40
SHAPES = ("x", "box", "bar", "plus")


def _draw(shape: str, size: int, dy: int, dx: int, width: int = 3) -> np.ndarray:
    """One card: ink figure on paper, figure centred and then shifted by (dy, dx) pixels."""
    card = np.full((size, size), PAPER)
    lo, hi = size // 4, size - size // 4            # figure spans the middle half
    yy, xx = np.mgrid[0:size, 0:size]
    yy = yy - dy
    xx = xx - dx
    inside = (yy >= lo) & (yy < hi) & (xx >= lo) & (xx < hi)
    if shape == "x":
        ink = inside & ((np.abs(yy - xx) < width / 2 + 0.5) | (np.abs(yy + xx - (size - 1)) < width / 2 + 0.5))
    elif shape == "box":
        edge = (yy < lo + width) | (yy >= hi - width) | (xx < lo + width) | (xx >= hi - width)
        ink = inside & edge
    elif shape == "bar":                              # a horizontal bar
        ink = inside & (np.abs(yy - (size - 1) / 2) < width)
    elif shape == "plus":
        ink = inside & ((np.abs(yy - (size - 1) / 2) < width / 2 + 0.5)
                        | (np.abs(xx - (size - 1) / 2) < width / 2 + 0.5))
    else:  # pragma: no cover - test programming error
        raise AssertionError(shape)
    card[ink] = INK
    return card


def make_cards(n: int, rng: np.random.Generator, shapes=("x", "box"), *, size: int = CARD_SIZE,
               max_shift: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """``n`` cards cycling through ``shapes``, each shifted by up to ``max_shift`` pixels.

    Returns
    -------
    cards : array (n, size, size), reflectance in [INK, PAPER]
    labels : array (n,) int, the index of each card's shape in ``shapes``
    """
    labels = np.arange(n) % len(shapes)
    shifts = rng.integers(-max_shift, max_shift + 1, size=(n, 2))
    cards = np.stack([_draw(shapes[k], size, int(dy), int(dx)) for k, (dy, dx) in zip(labels, shifts)])
    return cards, labels


def white_cards(n: int, size: int = CARD_SIZE) -> np.ndarray:
    """Blank paper."""
    return np.full((n, size, size), PAPER)


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator (tests using it must pass for any seed; this one is arbitrary)."""
    return np.random.default_rng(20240601)


@pytest.fixture
def card_maker():
    """``card_maker(n, rng, shapes=("x", "box"), max_shift=3) -> (cards, labels)``."""
    return make_cards


@pytest.fixture
def small_spec() -> specs.MachineSpec:
    """The small test machine (64 A-units, 1 s period), every non-ideality on."""
    return specs.SMALL


@pytest.fixture
def ideal_spec() -> specs.MachineSpec:
    """The small machine with every non-ideality off and a power-of-two increment, so
    that wiper positions are exact binary fractions."""
    return specs.SMALL.ideal().with_overrides({"trainer.increment": 0.03125})


# -- a real browser for the lesson page (tests/test_lesson.py, tests/test_lesson_browser.py)

CHROMIUM = os.environ.get("MARK1_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright, or a skip that says why there is none."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed "
                                   "(pip install playwright; the test extra has it)")
    exe = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if exe is None:
        pytest.skip(f"no Chromium at {CHROMIUM} or on PATH (apt-get install chromium)")
    with sync_api.sync_playwright() as pw:
        try:
            b = pw.chromium.launch(executable_path=exe, args=ARGS)
        except Exception as e:  # noqa: BLE001 - any launch failure means no browser here
            pytest.skip(f"Chromium at {exe} did not start: {str(e).splitlines()[0]}")
        yield b
        b.close()


def same_trace(a, b) -> None:
    """Two fitted machines' full traces are the same: events (and their CSV), history and
    machine time, the sums read, every reading and every move, bit for bit."""
    assert a.trace_.events == b.trace_.events
    assert a.trace_.to_csv() == b.trace_.to_csv()
    assert np.array_equal(a.history_, b.history_) and a.machine_time_ == b.machine_time_
    assert np.array_equal(a.read_sums_, b.read_sums_, equal_nan=True)
    assert len(a.trace_.readings) == len(b.trace_.readings) == len(a.history_)
    for r, s in zip(a.trace_.readings, b.trace_.readings):
        assert r.time == s.time
        for f in ("s_units", "a_units", "wipers"):
            assert np.array_equal(getattr(r, f), getattr(s, f)), f
    assert len(a.trace_.moves) == len(b.trace_.moves)
    for u, v in zip(a.trace_.moves, b.trace_.moves):
        assert u.presentation == v.presentation and u.time == v.time
        for f in ("unit", "a_unit", "command", "start", "target", "slack_time", "duration", "direction"):
            assert np.array_equal(getattr(u, f), getattr(v, f)), f
