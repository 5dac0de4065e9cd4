"""Re-enactment: every catalog scene, over seeds, judged under each reading of the machine.

``mark1 reenact [SCENES...] --seeds N`` trains, for each scene and seed, on the same
cards and patch board (so the same wiring), one machine for each reading the sources
allow (:data:`mark1.specs.PRESETS`, applied to the scene's own machine and size):

* ``mark1-512`` (the scene's machine, the default: 512 pots, one per A-unit, the A-units
  divided among the R-units the output code uses),
* ``mark1-4096`` (every A-unit to every R-unit: an inference, no source; for two classes
  the same machine as ``mark1-512``, so not trained twice),
* ``mark1-512-split-64`` (each of the 8 R-units its own n/8 A-units, whatever the code uses),
* ``mark1-512-ratchet`` (relay coils turning the pots in steps: the drive is contradictory),
* ``ibm704``: the textbook perceptron of the same size (``spec.ideal()``: every
  non-ideality off, ideal retina),

and the **digital** learner (``spec.digital()``: the same retina and patch board, an ideal
rack), the paired comparison that prices the rack; and it tests on the same φ whether the
training cards are separable at all (least squares on φ, and a long run of the digital
learner). Every reading gets a verdict (the page's columns); the report is counted on the
reading its scene names (``reported.reading``), argued on the page. One page, Markdown and
a figure (:func:`mark1.viz.studies.reenact_figure`).

The band of a report (the project's choice)
-------------------------------------------
The reports are secondary and rounded, and their test sets are not recorded. A reported
value ``v`` is read as the accuracies that could have given it: ``v`` widened by half a
unit of its last reported digit (85 % covers 84.5-85.5 %), then by the 95 % Wilson score
interval of a proportion measured on ``n`` cards, ``n`` being the number of cards the
scene scores (its test cards, or its training cards for recall; the report's own count
is not recorded), plus ``tolerance`` (0 by default) on each side; clipped to [0, 1]. A
report that is a lower bound ("more than 80 %": "more than", "at least" or "lower bound"
in the scene's ``[reported]`` note or conditions) is read as [low end, 1]. A report
without a number has the project's own band, labelled so and counted apart:
``expect = "learned"`` is [90 %, 100 %], ``expect = "chance"`` (Minsky and Papert's
predicates) [40 %, 60 %].

The verdict (one symmetric rule), on the 95 % t-interval of the mean over seeds:

``within``       the interval lies inside the band;
``OUT OF BAND``  the interval lies entirely outside it;
``unclear``      otherwise (it straddles an end of the band).

With one seed the interval is the mean itself. The seeds are also split into two halves
(first and second), each judged alike; a verdict whose halves disagree is **unstable**.

The headline counts each report once and only reports with a sourced number: scenes whose
``[reported]`` source, conditions and value are the same are one report (the outline and
solid square-vs-circle scenes), whose verdict is theirs when they agree and ``unclear``
when they do not; a figure whose source says ``unsourced`` is counted apart, as are the
project's own bands.

Explanations are checked: "does not separate" only when least squares on φ and a long
perceptron run both fall short of 100 % on the training cards; "the rack costs N points"
only when the paired analog-digital difference's 95 % interval excludes 0.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast
from collections.abc import Callable, Sequence
from concurrent.futures import Executor

import numpy as np

from mark1._utils.atomic import write_text
from mark1._utils.html import clip, figure_function, html_table, study_html
from mark1._utils.language import percent
from mark1._utils.records import jsonable
from mark1._utils.tdist import beta_regularized
from mark1.exceptions import InputError
from mark1.lab._common import aligned, check_figure, count_option, csv_text, draw, write_json
from mark1.lab.runner import (Records, SceneLike, Seeds, StrPath, as_scene, job, run_cards, run_jobs, scene_digest,
                              scene_ref, seed_list)
from mark1.machine.mark_i import MarkI
from mark1.machine.response import OutputCode
from mark1.stimuli.cards import experiment_seeds
from mark1.stimuli.scenes import Reported, load_scene, shipped_scenes
from mark1.stats import (LEVEL, METHOD as STATS_METHOD, MIN_SEEDS, Interval, adjust, correction_words,
                         difference_interval, mean_interval, p_value, pilot_seeds, proportion_interval, seeds_needed)

__all__ = ["reenact", "Reenactment", "DEFAULT_TOLERANCE", "band", "verdict", "catalog", "judged", "wilson", "sourced",
           "is_lower_bound", "share_verdict", "READINGS", "WHAT_IF", "SHARE_THRESHOLD"]

#: Extra half-width added to a report's derived band (fraction of accuracy); 0 by default.
DEFAULT_TOLERANCE = 0.0

#: The verdict where the statistics module gives no interval (below its minimum seeds).
TOO_FEW = "too few seeds"

#: z of a two-sided 95 % interval.
_Z95 = 1.959963984540054

#: The project's own bands for reports without a number (``reported.expect``), fractions.
EXPECT_BANDS = {"learned": (0.90, 1.0), "chance": (0.40, 0.60)}

#: The learners of one job, by prefix of their fields: the readings, then the digital learner.
LEARNERS = {"": "analog", "alt_": "4,096 pots", "split64_": "split 64", "ratchet_": "ratchet",
            "bits_": "1958 code", "ideal_": "IBM 704", "digital_": "digital"}

#: The readings a verdict is given under (page columns): prefix -> (name in PRESETS, what the sources say).
READINGS = {
    "": ("mark1-512", "512 pots, one per A-unit (count single-source), split over the R-units in use (assumed)"),
    "alt_": ("mark1-4096", "4,096 pots, every A-unit to every R-unit: an inference, no source"),
    "split64_": ("mark1-512-split-64", "512 pots, 64 A-units on each of the 8 R-units whatever the code uses "
                                       "(assumed)"),
    "ratchet_": ("mark1-512-ratchet", "mark1-512 with a stepping (ratchet) drive: the drive is contradictory"),
    "bits_": ("mark1-512-bits", "mark1-512 with the 1958 binary response, one R-unit per bit (Rosenblatt 1958, "
                                "p. 402 and conclusion 6, p. 405): 26 letters on 5 R-units instead of far-apart "
                                "words on all 8 (assumed)"),
    "ideal_": ("ibm704", "the project's own construction, no source describes it: the Mark I's patch board of the "
                         "report's size with an ideal retina and rack (every non-ideality off), standing for the "
                         "IBM 704's digital perceptron"),
}

#: Columns of ``reenact.csv``: one row per (scene, seed).
REENACT_FIELDS = ("scene_file", "seed", "train_cards", "test_cards", "test_accuracy", "train_accuracy",
                  "machine_time_s",
                  "alt_test_accuracy", "alt_train_accuracy",
                  "split64_test_accuracy", "split64_train_accuracy",
                  "ratchet_test_accuracy", "ratchet_train_accuracy",
                  "bits_test_accuracy", "bits_train_accuracy",
                  "digital_test_accuracy", "digital_train_accuracy",
                  "ideal_test_accuracy", "ideal_train_accuracy",
                  "ls_train_accuracy", "long_train_accuracy", "long_epochs", "wall_time_s",
                  "seed_train", "seed_test", "seed_machine", "code_kind")

#: Columns of ``verdicts.csv``: one row per (scene, reading).
VERDICT_FIELDS = ("scene_file", "reading", "counted", "reported", "band_low", "band_high", "seeds", "mean", "low",
                  "high", "level", "p", "p_adjusted", "family", "method", "verdict", "marginal", "unstable",
                  "machines_in_band", "share_low", "share_high", "share_level", "share_p_adjusted", "as_one_machine",
                  "seeds_for_1_point", "seeds_for_half_point")

#: Most card presentations of the long perceptron run of the separability test.
LONG_PRESENTATIONS = 100_000
#: Most passes of that run.
LONG_EPOCHS = 200

_LOWER_BOUND = re.compile(r"more than|at least|lower bound", re.IGNORECASE)
_UNSOURCED = re.compile(r"^\s*(unsourced|no source)", re.IGNORECASE)


def is_lower_bound(reported: Reported) -> bool:
    """Whether a scene's report is a lower bound ("more than 80 %": "more than", "at least" or "lower bound"
    in its note or conditions).

    Examples
    --------
    >>> from mark1.stimuli.scenes import Reported
    >>> is_lower_bound(Reported(value=0.8, note="reported as more than 80 %")), is_lower_bound(Reported(value=0.8))
    (True, False)
    """
    return reported.value is not None and bool(_LOWER_BOUND.search(f"{reported.note} {reported.conditions}"))




def sourced(reported: Reported) -> bool:
    """Whether a report has a number with a source (its ``source`` does not begin "unsourced" or "no source").

    Examples
    --------
    >>> from mark1.stimuli.scenes import Reported
    >>> sourced(Reported(value=0.9, source="a book")), sourced(Reported(value=0.9, source="unsourced: ..."))
    (True, False)
    >>> sourced(Reported(expect="chance", source="a theorem"))
    False
    """
    return reported.value is not None and not _UNSOURCED.search(reported.source or "")


def judged(reported: Reported) -> bool:
    """Whether a report can be judged: it has a value, or an expectation (``reported.expect``).

    Parameters
    ----------
    reported : mark1.stimuli.scenes.Reported

    Returns
    -------
    bool

    Examples
    --------
    >>> from mark1.stimuli.scenes import Reported
    >>> judged(Reported(value=0.9)), judged(Reported(expect="chance")), judged(Reported())
    (True, True, False)
    """
    return reported.value is not None or reported.expect is not None


def wilson(p: float, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion ``p`` observed on ``n`` cards.

    Parameters
    ----------
    p : float
        Observed proportion, in [0, 1].
    n : int
        Cards it was measured on, at least 1.

    Returns
    -------
    (low, high) : tuple of float

    Examples
    --------
    >>> [round(x, 4) for x in wilson(1.0, 104)]
    [0.9644, 1.0]
    >>> [round(x, 4) for x in wilson(0.85, 208)]
    [0.7952, 0.8922]
    """
    z2 = _Z95 ** 2 / n
    centre = (p + z2 / 2) / (1 + z2)
    half = _Z95 / (1 + z2) * math.sqrt(p * (1 - p) / n + z2 / (4 * n))
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))   # p inside despite rounding


def _rounding(v: float) -> float:
    """Half a unit of the last digit of ``v`` written as a percentage (0.85 -> 0.005, 0.998 -> 0.0005)."""
    for digits in range(4):
        if abs(v * 100 - round(v * 100, digits)) < 1e-9:
            return 0.5 * 10.0 ** -digits / 100
    return 0.0


def band(reported: Reported, tolerance: float = DEFAULT_TOLERANCE, n_cards: int | None = None) -> tuple[float, float]:
    """The accuracies that agree with a report: ``(low, high)``, fractions (the project's choice).

    The reported value widened by half a unit of its last digit (not a lower bound's), then by the 95 % Wilson
    interval on ``n_cards`` cards (none when ``n_cards`` is None), then by ``tolerance``;
    clipped to [0, 1]. A lower bound ("more than", "at least" or "lower bound" in the
    report's note or conditions) keeps its low end and reaches 1. A report without a number
    has the project's band of its expectation (:data:`EXPECT_BANDS`).

    Parameters
    ----------
    reported : mark1.stimuli.scenes.Reported
        A scene's ``[reported]`` table (``scene.reported``).
    tolerance : float
        Extra half-width, fraction of accuracy.
    n_cards : int, optional
        Cards the figure is read as measured on (the scene's scored cards).

    Returns
    -------
    (low, high) : tuple of float
        Fractions of accuracy.

    Raises
    ------
    InputError
        For a report with neither a value nor an expectation.

    Examples
    --------
    >>> from mark1.stimuli.scenes import Reported
    >>> band(Reported(value=0.85))
    (0.845, 0.855)
    >>> [round(x, 4) for x in band(Reported(value=0.85), n_cards=208)]
    [0.7896, 0.8964]
    >>> [round(x, 4) for x in band(Reported(value=0.8, note="reported as more than 80 %"), n_cards=200)]
    [0.7391, 1.0]
    >>> band(Reported(expect="chance"))
    (0.4, 0.6)
    """
    v = reported.value
    if v is None:
        if reported.expect is not None:
            return EXPECT_BANDS[reported.expect]
        raise InputError("reported.value: the scene reports no figure and no expectation, so it has no band")
    # a bound is not a rounded figure: only its sampling error widens it
    r = 0.0 if is_lower_bound(reported) else _rounding(float(v))
    low, high = max(0.0, v - r), min(1.0, v + r)
    if n_cards:
        low, high = wilson(low, n_cards)[0], wilson(high, n_cards)[1]
    low, high = max(0.0, low - tolerance), min(1.0, high + tolerance)
    if is_lower_bound(reported):
        return low, 1.0
    return low, high


def verdict(mean: float, low: float, high: float, band_: tuple[float, float]) -> str:
    """``"within"``, ``"OUT OF BAND"``, ``"unclear"`` or ``"too few seeds"``: one symmetric rule (module docstring).

    Parameters
    ----------
    mean, low, high : float
        The simulated mean accuracy and its interval (fractions); NaN ends where the
        statistics module gives no interval (too few seeds), and then there is no verdict.
    band_ : (float, float)
        The band of the report (:func:`band`).

    Returns
    -------
    str

    Examples
    --------
    >>> verdict(0.97, 0.95, 0.99, (0.95, 1.0))
    'within'
    >>> verdict(0.80, 0.75, 0.85, (0.95, 1.0)), verdict(0.97, 0.93, 1.0, (0.95, 1.0))
    ('OUT OF BAND', 'unclear')
    >>> verdict(0.97, float("nan"), float("nan"), (0.95, 1.0))
    'too few seeds'
    """
    b_lo, b_hi = band_
    eps = 1e-12
    if math.isnan(low) or math.isnan(high):
        return TOO_FEW
    if b_lo - eps <= low and high <= b_hi + eps:
        return "within"
    if high < b_lo - eps or low > b_hi + eps:
        return "OUT OF BAND"
    return "unclear"


# ----------------------------------------------------------------------------------------
# statistics: every interval of the page comes from mark1.stats

_NO_IV = (math.nan, math.nan, math.nan)


def _triple(iv: Interval) -> tuple[float, float, float]:
    """(mean, low, high) of an Interval, NaN ends where it has none (too few seeds)."""
    return (iv.mean, math.nan if iv.low is None else iv.low, math.nan if iv.high is None else iv.high)


def _mean_iv(values: Sequence[float], bounds: tuple[float, float] = (0.0, 1.0), level: float = LEVEL
             ) -> tuple[float, float, float]:
    """(mean, low, high) of the mean over seeds (:func:`mark1.stats.mean_interval`); NaN ends below its seeds."""
    return _triple(mean_interval(list(values), bounds, level=level)) if len(values) else _NO_IV


def _difference_iv(a: Sequence[float | None], b: Sequence[float | None], level: float = LEVEL
                   ) -> tuple[float, float, float]:
    """(mean, low, high) of the paired difference a − b of two accuracies (:func:`mark1.stats.difference_interval`)."""
    if not any(x is not None and y is not None for x, y in zip(a, b)):
        return _NO_IV
    return _triple(difference_interval(list(a), list(b), (0.0, 1.0), level=level))


def _proportion_iv(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """(low, high) of a share ``k`` of ``n`` (:func:`mark1.stats.proportion_interval`, exact)."""
    iv = proportion_interval(k, n, level=level)
    return cast(float, iv.low), cast(float, iv.high)


def _seeds_needed(values: Sequence[float], half_width: float, level: float = LEVEL) -> int | None:
    """Seeds a mean with the spread of ``values`` needs for ± ``half_width`` (:func:`mark1.stats.seeds_needed`)."""
    return seeds_needed(list(values), half_width, level=level)


def _band_p(values: Sequence[float], band_: tuple[float, float]) -> float | None:
    """The p-value of a verdict on the mean against a band: the test its interval inverts.

    *within* must exclude every edge of the band inside (0, 1), so its p-value is the larger
    of theirs; *OUT OF BAND* must exclude the nearer edge. None below the method's seeds.
    The interval at level 1 − p has the deciding edge at its end (:func:`mark1.stats.p_value`).
    """
    vals = [v for v in values if v is not None]
    if len(vals) < MIN_SEEDS:
        return None
    m = float(np.mean(vals))
    inner = [e for e in band_ if 1e-12 < e < 1 - 1e-12]
    if not inner:
        return 0.0                                   # a band of every accuracy: nothing to decide
    if band_[0] - 1e-12 <= m <= band_[1] + 1e-12:
        ps = [p_value(vals, e) for e in inner]
        return max(cast(float, p) for p in ps)
    edge = band_[0] if m < band_[0] else band_[1]
    return p_value(vals, edge)


def _share_p(k: int, n: int, threshold: float = 0.10) -> float:
    """The exact two-sided binomial p-value of "the share is ``threshold``" (the test the Clopper-Pearson
    interval inverts): twice the smaller tail, at most 1."""
    below = 1.0 if k >= n else 1.0 - beta_regularized(k + 1, n - k, threshold)     # P(X <= k)
    above = 1.0 if k <= 0 else beta_regularized(k, n - k + 1, threshold)           # P(X >= k)
    return min(1.0, 2.0 * min(below, above))


def _holm_levels(pvalues: Sequence[float | None], alpha: float = 0.05) -> list[float]:
    """Each comparison's interval level under Holm's step-down at family-wise ``alpha``.

    The j-th smallest p-value is tested at alpha / (m − j) while every smaller one was
    rejected; from the first that is not, the rest keep that step's level (as
    :func:`mark1.stats.family` sets them). A comparison without a test keeps 1 − alpha.
    """
    order = sorted((i for i, p in enumerate(pvalues) if p is not None), key=lambda i: cast(float, pvalues[i]))
    m = len(order)
    levels = [1.0 - alpha] * len(pvalues)
    stop = None
    for j, i in enumerate(order):
        if stop is None and cast(float, pvalues[i]) > alpha / (m - j):
            stop = j
        levels[i] = 1.0 - alpha / (m - (j if stop is None else stop))
    return levels


#: How the family's intervals are adjusted: Holm's step-down for the family-wise error (each
#: verdict reads its interval at the level Holm tested it at): every verdict of the page is a
#: charge against a historical report or a vindication of it, and a single false one in the
#: family is what the page must not make (argued on the page).
FAMILY_METHOD: Literal["holm", "bh"] = "holm"

#: The family's error rate.
FAMILY_ALPHA = 0.05


#: The share of built machines at which the record reads as one machine's: at least this share
#: in the band (the share's interval above it) is *consistent*, fewer (its interval below it)
#: *inconsistent*; the project's choice, one threshold so the rule is symmetric.
SHARE_THRESHOLD = 0.10


def share_verdict(low: float, high: float, threshold: float = SHARE_THRESHOLD) -> str:
    """``"consistent"``, ``"inconsistent"`` or ``"unclear"``: the share of machines in band against ``threshold``.

    Parameters
    ----------
    low, high : float
        The interval of the share of seeds (machines) whose own result lands in the band.
    threshold : float
        The share of built machines that would have to report the figure (:data:`SHARE_THRESHOLD`).

    Returns
    -------
    str
        ``consistent`` when the whole interval is at or above the threshold, ``inconsistent``
        when it lies below it, ``unclear`` otherwise.

    Examples
    --------
    >>> share_verdict(0.3, 0.6), share_verdict(0.0, 0.06), share_verdict(0.0, 0.14)
    ('consistent', 'inconsistent', 'unclear')
    """
    if low >= threshold - 1e-12:
        return "consistent"
    if high < threshold - 1e-12:
        return "inconsistent"
    return "unclear"


def _marginal(mean: float, low: float, high: float, band_: tuple[float, float], verdict_: str) -> bool:
    """Whether a verdict could change with half the seeds: the interval widened by √2 about its mean
    (the width half as many seeds would give) reaches a different verdict."""
    if verdict_ in ("", TOO_FEW) or math.isnan(low) or math.isnan(high):
        return False
    r2 = math.sqrt(2.0)
    return verdict(mean, mean - r2 * (mean - low), mean + r2 * (high - mean), band_) != verdict_


def catalog(folder: StrPath | None = None, *, expected: bool = False) -> list[Path]:
    """The scene files in ``folder`` (default: the shipped scenes) with a reported figure.

    With ``expected``, also those whose report gives no number but an expectation
    (:func:`judged`: left/right marks, parity, connectedness); the demonstration is neither.
    :func:`reenact` re-enacts ``catalog(expected=True)`` by default.

    Parameters
    ----------
    folder : str or path-like, optional
        A folder of ``*.toml`` scene files (default: the built-in scenes, :func:`~mark1.stimuli.shipped_scenes`).
    expected : bool
        Include the scenes judged on the project's band of an expectation.

    Returns
    -------
    list of pathlib.Path
        Sorted by name.

    Examples
    --------
    >>> [p.name for p in catalog()][:3]
    ['alphabet.toml', 'e_vs_f.toml', 'e_vs_x.toml']
    >>> [p.name for p in catalog(expected=True)][:3]
    ['alphabet.toml', 'connectedness.toml', 'e_vs_f.toml']
    """
    files = sorted(Path(folder).glob("*.toml")) if folder is not None else shipped_scenes()   # mark1.scenes
    keep = judged if expected else (lambda rep: rep.value is not None)
    return [p for p in files if keep(load_scene(p).reported)]


# ----------------------------------------------------------------------------------------
# one job


def _readings(spec, n_units: int, code_kind: str = "single") -> dict[str, Any]:
    """The scene's machine under each reading, by field prefix (:data:`READINGS`).

    A reading that is the same machine as the scene's (4,096 pots where the code uses one
    R-unit, whose pots are then every A-unit's under both) is the string ``"same"``, so it
    is not trained twice; one that cannot be built (64 per R-unit needs the A-units to
    divide by the R-units) is None. The IBM 704 is ``spec.ideal()`` of the scene's machine.
    The 1958 code (one R-unit per bit) differs from the scene's only where the scene codes
    its classes in far-apart binary words (``code_kind == "binary"``); elsewhere it is "same".
    """
    out: dict[str, Any] = {"": spec, "ideal_": spec.ideal().with_overrides({"name": f"{spec.name} (IBM 704)"})}
    out["bits_"] = ("same" if code_kind != "binary" else
                    spec.with_overrides({"response.code": "bits", "name": f"{spec.name} (1958 code)"}))
    if spec.is_ideal:
        out.update({"alt_": None, "split64_": None, "ratchet_": None})
        return out
    out["alt_"] = ("same" if spec.rack.topology == "all" or n_units == 1
                   else spec.with_overrides({"rack.topology": "all", "name": f"{spec.name} (4,096 pots)"}))
    n_a, n_r = spec.patchboard.n_associators, spec.response.n_responses
    out["split64_"] = (None if n_a % n_r else
                       "same" if spec.rack.topology == "split" else
                       spec.with_overrides({"rack.topology": "split", "name": f"{spec.name} ({n_a // n_r} a unit)"}))
    out["ratchet_"] = ("same" if spec.rack.drive == "ratchet"
                       else spec.with_overrides({"rack.drive": "ratchet", "name": f"{spec.name} (ratchet)"}))
    return out


def _least_squares_fit(phi: np.ndarray, labels: np.ndarray, spec, mask: np.ndarray) -> float:
    """Training accuracy of least squares on φ through the machine's own wiring and code.

    Each R-unit in use is fitted to its ±1 targets (the machine's output code) from the
    inputs its pots connect (``mask``: the rack's pots, A-units then the bias pot); the
    sums are read as the machine reads them.
    """
    classes = np.unique(labels)
    code = OutputCode(classes, spec.response)
    y = np.searchsorted(classes, labels)
    x = np.hstack([phi.astype(float), np.ones((len(phi), 1))])
    sums = np.zeros((len(y), code.n_units))
    for k in range(code.n_units):
        xs = x[:, np.flatnonzero(mask[k])]
        w = np.linalg.lstsq(xs, code.targets[y, k].astype(float), rcond=None)[0]
        sums[:, k] = xs @ w
    return float(np.mean(code.decode(sums) == y))


@job
def _reenact_job(scene_ref, seed: int, train_count: int | None = None, test_count: int | None = None) -> dict:
    """One seed of one scene: its machine under each reading, the digital learner, all on the
    same cards and machine seed (so the same patch board), and the separability test on the
    scene machine's φ.

    Top level and picklable. Returns the fields of :data:`REENACT_FIELDS`.
    """
    scene = as_scene(scene_ref)
    train, test, seed_machine = run_cards(scene, seed, train_count, test_count)
    spec = scene.machine_spec()
    t0 = time.perf_counter()
    rec: dict[str, Any] = {"scene_file": str(scene.path) if scene.path else scene.name, "seed": int(seed),
                           "train_cards": int(len(train.cards)), "test_cards": int(len(test.cards))}
    epochs, order = scene.schedule.epochs, scene.schedule.order
    code = OutputCode(np.unique(train.labels), spec.response)
    machines = {**_readings(spec, code.n_units, code.kind), "digital_": spec.digital()}
    for prefix, s in machines.items():
        if s is None or isinstance(s, str):        # cannot be built, or the scene's machine again
            same = isinstance(s, str)
            for what in ("train", "test"):
                rec[f"{prefix}{what}_accuracy"] = rec[f"{what}_accuracy"] if same else None
            continue
        m = MarkI(spec=s, seed=seed_machine).fit(train.cards, train.labels, epochs=epochs, order=order)
        rec[f"{prefix}train_accuracy"] = float(m.score(train.cards, train.labels))
        rec[f"{prefix}test_accuracy"] = float(m.score(test.cards, test.labels))
        if not prefix:
            rec["machine_time_s"] = float(m.machine_time_)
            rec["ls_train_accuracy"] = _least_squares_fit(m.associate(m.sense(train.cards)), train.labels, s,
                                                          m.rack_.mask)
    # a long run of the perceptron on the same φ (the digital learner keeps the analog retina and board)
    long_epochs = max(1, min(LONG_EPOCHS, LONG_PRESENTATIONS // len(train.cards)))
    m = MarkI(spec=spec.digital(), seed=seed_machine).fit(train.cards, train.labels, epochs=long_epochs,
                                                           order=order)
    rec["long_train_accuracy"] = float(m.score(train.cards, train.labels))
    rec["long_epochs"] = long_epochs
    rec["wall_time_s"] = time.perf_counter() - t0
    rec["seed_train"], rec["seed_test"], rec["seed_machine"] = experiment_seeds(seed)
    rec["code_kind"] = code.kind
    return rec


#: Single changes of assumed parameters for "what it would take" (name -> (overrides, passes, what)).
#: Each moves one parameter whose status is *assumed* (no source fixes it) to an end of the
#: range the project allows it (the range is the project's: no source bounds an assumed value);
#: ``passes`` (training amount) is a number of passes over the training cards, or None to
#: keep the scene's. The output code and the A-unit assignment are the readings of the main
#: table (``bits_``, ``alt_``, ``split64_``) and are read from there.
WHAT_IF: dict[str, tuple[dict, Any, str]] = {
    "passes": ({}, "more", "training amount: the cards shown again until the cap (50 passes for cards shown once, "
                           "whose sources do not say they were not shown again; 200 for training already to the "
                           "cap of 50)"),
    "motor_speed_inf": ({"rack.motor_speed": math.inf}, None, "rack.motor_speed 0.25 -> inf full scale/s "
                                                               "(instantaneous motors)"),
    "motor_speed_slow": ({"rack.motor_speed": 0.0625}, None, "rack.motor_speed 0.25 -> 0.0625 full scale/s (a "
                                                              "quarter)"),
    "wiper_noise_0": ({"rack.wiper_noise": 0.0}, None, "rack.wiper_noise 0.002 -> 0 (no read noise)"),
    "wiper_noise_x4": ({"rack.wiper_noise": 0.008}, None, "rack.wiper_noise 0.002 -> 0.008 full scale (4 times)"),
    "increment_small": ({"trainer.increment": 0.005}, None, "trainer.increment 0.02 -> 0.005 full scale (a "
                                                             "quarter)"),
    "increment_large": ({"trainer.increment": 0.08}, None, "trainer.increment 0.02 -> 0.08 full scale (4 times)"),
    "theta_1": ({"patchboard.a_threshold": 1}, None, "patchboard.a_threshold 2 -> 1"),
    "theta_3": ({"patchboard.a_threshold": 3}, None, "patchboard.a_threshold 2 -> 3"),
    "no_bias": ({"rack.bias": False}, None, "rack.bias on -> off (no source gives the R-units a bias pot)"),
    "no_motor_spread": ({"rack.motor_spread": 0.0}, None, "rack.motor_spread 0.1 -> 0 (identical motors)"),
}

#: Most training cards of a scene the what-if runs are made for (a cost limit, not a judgement: square vs
#: circle's 10,000 cards take minutes a machine on a shared computer; ``reenact(what_if_max_cards=...)`` lifts it).
WHAT_IF_MAX_CARDS = 5_000

#: Most passes a training already to its cap of 50 gets under ``passes``; cards shown once get the cap.
_PASSES_CAP, _PASSES_MORE = 50, 200


def _what_if_passes(epochs: int) -> int:
    """Passes under the ``passes`` change: the cap of 50 for cards shown once or fewer, else 200."""
    return _PASSES_CAP if epochs < _PASSES_CAP else _PASSES_MORE


@job
def _what_if_job(scene_ref, seed: int, change: str, train_count: int | None = None,
                 test_count: int | None = None) -> dict:
    """One seed of one scene on its own machine with one assumed parameter changed (:data:`WHAT_IF`).

    The same cards and machine seed as :func:`_reenact_job`, so the change is paired with the
    scene's machine seed by seed. Top level and picklable.
    """
    scene = as_scene(scene_ref)
    train, test, seed_machine = run_cards(scene, seed, train_count, test_count)
    overrides, passes, _ = WHAT_IF[change]
    spec = scene.machine_spec().with_overrides(overrides) if overrides else scene.machine_spec()
    epochs = _what_if_passes(scene.schedule.epochs) if passes else scene.schedule.epochs
    t0 = time.perf_counter()
    m = MarkI(spec=spec, seed=seed_machine).fit(train.cards, train.labels, epochs=epochs, order=scene.schedule.order)
    return {"scene_file": str(scene.path) if scene.path else scene.name, "seed": int(seed), "change": change,
            "epochs": int(epochs), "train_accuracy": float(m.score(train.cards, train.labels)),
            "test_accuracy": float(m.score(test.cards, test.labels)), "wall_time_s": time.perf_counter() - t0}


# ----------------------------------------------------------------------------------------
# the result


def _prefix_of(reading: str) -> str:
    """The field prefix of a reading named in :data:`mark1.specs.PRESETS` ("" for the scene's machine)."""
    for prefix, (name, _) in READINGS.items():
        if name == reading:
            return prefix
    return ""                                     # another preset: the scene's own machine


def _counted(reported, code_kind: str | None = None) -> list[str]:
    """The prefixes of the readings a report is counted on (:data:`READINGS`), judged alike.

    The scene's ``reading`` where it names one; else the IBM 704 for a 704 report, the
    scene's Mark I for a Mark I report, and both, the Mark I and ``ibm704``, where the
    sources name no machine or disagree. Where the scene codes its classes in far-apart
    binary words (``code_kind == "binary"``) the 1958 code (one R-unit per bit) is counted
    beside every Mark I reading: no source records how the Mark I read more classes than
    lamps, and the 1958 paper is the one text that describes a perceptron's binary response.
    """
    reading, machine = reported.get("reading"), reported.get("machine")
    if reading is not None:
        out = [_prefix_of(reading)]
    elif machine == "ibm704":
        out = ["ideal_"]
    elif machine in ("not named", "contradictory"):
        out = ["", "ideal_"]
    else:
        out = [""]
    if code_kind == "binary" and "" in out:
        out.insert(out.index("") + 1, "bits_")
    return out


def _primary(reported, code_kind: str | None = None) -> str:
    """The first reading a report is counted on (:func:`_counted`)."""
    return _counted(reported, code_kind)[0]


def _combine(verdicts: list[str]) -> str:
    """One verdict of readings judged alike: theirs when they agree, else "unclear"; "too few seeds" when
    any has no interval."""
    kept = [v for v in verdicts if v]
    if not kept:
        return ""
    if TOO_FEW in kept:
        return TOO_FEW
    return kept[0] if all(v == kept[0] for v in kept) else "unclear"


def _halves(values: list) -> tuple[list, list]:
    """The first and the second half of the seeds' values (the middle seed of an odd count in neither)."""
    h = len(values) // 2
    return values[:h], values[len(values) - h:]


@dataclass
class SceneResult:
    """One scene of a re-enactment: its report, its band and its seeds' records."""

    file: str
    name: str
    reported: dict
    band: tuple
    lower_bound: bool
    conditions: dict
    records: list = field(repr=False)

    def _values(self, key: str) -> list[Any]:
        return [r.get(key) for r in self.records]

    def __repr__(self) -> str:
        s = self.summary()
        report = _report_text({"reported": self.reported.get("value"), "lower_bound": self.lower_bound,
                               "expect": self.reported.get("expect")})
        return clip(f"SceneResult({self.name!r}, reported {report}, judged {percent(s['judged_mean'])}, "
                    f"{s['verdict'] or 'unclear'}, {s['n']} seed(s))")

    @property
    def scored(self) -> str:
        """``"test"`` or ``"train"``: the accuracy the report is judged on (recall: the trained cards)."""
        return "train" if self.reported.get("scored") == "recall" else "test"

    @property
    def project_band(self) -> bool:
        """Whether the band is the project's own (the report gives no number)."""
        return self.reported.get("value") is None

    @property
    def sourced(self) -> bool:
        """Whether the report has a number with a source (:func:`sourced`)."""
        return self.reported.get("value") is not None and not _UNSOURCED.search(self.reported.get("source") or "")

    @property
    def code_kind(self) -> str | None:
        """How the scene codes its classes on the R-units ("single", "one-per-class", "binary"), from its records."""
        return self.records[0].get("code_kind") if self.records else None

    @property
    def counted(self) -> list[str]:
        """The prefixes of the readings the report is counted on (:func:`_counted`)."""
        return _counted(self.reported, self.code_kind)

    def accuracies(self, prefix: str = "", what: str | None = None) -> list[float]:
        """Each seed's accuracy under a reading (``prefix``, :data:`READINGS`): the scored one unless ``what``."""
        key = f"{prefix}{what or self.scored}_accuracy"
        return [r[key] for r in self.records if r.get(key) is not None]

    def _stat(self, prefix: str, what: str | None = None, records: list | None = None, level: float = LEVEL
              ) -> tuple[float, float, float]:
        recs = self.records if records is None else records
        vals = [r.get(f"{prefix}{what or self.scored}_accuracy") for r in recs]
        return _mean_iv([v for v in vals if v is not None], (0.0, 1.0), level)

    def _verdict(self, prefix: str, records: list | None = None, level: float = LEVEL) -> str:
        mean, low, high = self._stat(prefix, records=records, level=level)
        return "" if math.isnan(mean) else verdict(mean, low, high, self.band)

    def share(self, prefix: str = "", level: float = LEVEL) -> dict:
        """The record as one machine: the seeds whose own result under a reading lands in the band.

        Each seed is one machine built; its accuracy on the scene's scored cards is what it
        would have reported on a test of that many cards (the binomial noise of that test
        size is in it). ``k`` of ``n`` land in the band; the share's interval
        (:func:`_proportion_iv`) gives the verdict of :func:`share_verdict`.
        """
        acc = self.accuracies(prefix)
        k = int(sum(self.band[0] - 1e-12 <= a <= self.band[1] + 1e-12 for a in acc))
        n = len(acc)
        low, high = _proportion_iv(k, n, level) if n else (math.nan, math.nan)
        return {"k": k, "n": n, "share": k / n if n else math.nan, "low": low, "high": high, "level": level,
                "p": _share_p(k, n, SHARE_THRESHOLD) if n else None,
                "verdict": share_verdict(low, high) if n else ""}

    def summary(self, levels: dict[str, float] | None = None, share_levels: dict[str, float] | None = None) -> dict:
        """Per reading: mean and interval of the judged accuracy, its verdict, its halves' verdicts and
        whether it is marginal; per counted reading, the share of machines in band; the counted verdicts
        (on the mean, and as one machine), the paired rack cost, the separability test and the
        explanation of a miss.

        ``levels`` and ``share_levels`` give, per counted reading's prefix, the confidence its
        interval is read at (the family's adjusted level, :meth:`Reenactment.family`); every other
        interval (readings not counted, the halves, the rack cost) is at 95 %.
        """
        counted = self.counted
        p = counted[0]
        levels, share_levels = levels or {}, share_levels or {}
        out: dict[str, Any] = {"n": len(self.records), "scored": self.scored, "project_band": self.project_band,
                               "sourced": self.sourced, "primary": LEARNERS[p], "primary_prefix": p,
                               "counted": counted}
        first, second = _halves(self.records)
        for prefix in LEARNERS:
            level = levels.get(prefix, LEVEL)
            mean, low, high = self._stat(prefix, level=level)
            key = prefix or "analog_"
            out[f"{key}level"] = level
            out[f"{prefix}mean"], out[f"{prefix}low"], out[f"{prefix}high"] = mean, low, high
            out[f"{key}verdict"] = verdict(mean, low, high, self.band) if not math.isnan(mean) else ""
            halves = (self._verdict(prefix, first), self._verdict(prefix, second)) if first else ("", "")
            out[f"{key}halves"] = halves
            out[f"{key}unstable"] = halves[0] != halves[1] and TOO_FEW not in halves
            out[f"{key}marginal"] = _marginal(mean, low, high, self.band, out[f"{key}verdict"])
            out[f"{prefix}train_mean"] = self._stat(prefix, "train")[0]
            out[f"{prefix}test_mean"] = self._stat(prefix, "test")[0]
        for prefix in counted:
            sh = self.share(prefix, share_levels.get(prefix, LEVEL))
            out[f"{prefix or 'analog_'}share_level"] = sh["level"]
            for k, v in sh.items():
                out[f"{prefix or 'analog_'}share_{k}"] = v
        acc = self._values(f"{self.scored}_accuracy")
        judged_acc = [a for a in self._values(f"{p}{self.scored}_accuracy") if a is not None]
        out["meeting"] = float(np.mean([a >= self.band[0] - 1e-12 for a in judged_acc])) if judged_acc else math.nan
        out["rack_gap"], out["rack_gap_low"], out["rack_gap_high"] = _difference_iv(
            self._values(f"digital_{self.scored}_accuracy"), acc)
        ls, long_ = self._values("ls_train_accuracy"), self._values("long_train_accuracy")
        out["ls_train_mean"], out["long_train_mean"] = float(np.mean(ls)), float(np.mean(long_))
        out["separated_seeds"] = int(sum(a >= 1.0 or b >= 1.0 for a, b in zip(ls, long_)))
        out["long_epochs"] = int(self.records[0].get("long_epochs", 0))
        out["machine_hours"] = float(np.mean([t / 3600.0 for t in self._values("machine_time_s")]))
        keys = [q or "analog_" for q in counted]
        out["verdict"] = _combine([out[f"{k}verdict"] for k in keys])
        out["unstable"] = any(out[f"{k}unstable"] for k in keys)
        out["marginal"] = any(out[f"{k}marginal"] for k in keys)
        out["share_verdict"] = _combine([out[f"{k}share_verdict"] for k in keys])
        out["halves"] = out[f"{keys[0]}halves"]
        out["judged_mean"], out["judged_low"], out["judged_high"] = out[f"{p}mean"], out[f"{p}low"], out[f"{p}high"]
        out["explanation"] = self.explain(out)
        return out

    def explain(self, s: dict) -> str:
        """A line on what may explain a miss of the counted reading ("" for a result within its band).

        Every clause is read from a measurement of this scene on the same seeds: whether
        the training cards are separable on φ at all (least squares and a long perceptron
        run), the paired analog-digital difference (the rack's cost, claimed only when
        its 95 % interval excludes 0), whether the IBM 704 perceptron (ideal retina too)
        reaches the band.
        """
        if s["verdict"] == "within":
            return ""
        p = self.counted[0]
        name = "the IBM 704 perceptron" if p == "ideal_" else f"the analog machine ({READINGS[p][0]})"
        mean, n = s["judged_mean"], s["n"]
        n_train = self.conditions["train_cards"]
        parts = []
        if mean > self.band[1]:
            parts.append(f"{name} scores above the band: the simulated cards may be easier than the originals, "
                         f"or the report's conditions harder than the secondary sources record")
            return "; ".join(parts)
        train = s[f"{p}train_mean"]
        if train < 0.995:
            parts.append(f"{name} does not learn all its {n_train} training cards (train {percent(train)})")
        else:
            parts.append(f"{name} learns its {n_train} training cards (train {percent(train)})"
                         + (f" but scores {percent(s[f'{p}test_mean'])} on new ones" if self.scored == "test" else ""))
        if s["separated_seeds"] == 0:
            parts.append(f"the training cards are not separable on this φ as far as tested: least squares on φ "
                         f"fits {percent(s['ls_train_mean'])} and {s['long_epochs']} passes of the digital learner "
                         f"{percent(s['long_train_mean'])} (no seed reaches 100 %)")
        elif train < 0.995 and s["separated_seeds"] == n:
            parts.append(f"yet φ separates them in every seed (least squares on φ {percent(s['ls_train_mean'])}, "
                         f"{s['long_epochs']} perceptron passes {percent(s['long_train_mean'])}): the training given, "
                         f"not the patch board, falls short")
        elif train < 0.995:
            parts.append(f"φ separates them in only {s['separated_seeds']} of {n} seeds (least squares on φ "
                         f"{percent(s['ls_train_mean'])}, {s['long_epochs']} perceptron passes "
                         f"{percent(s['long_train_mean'])})")
        if p != "ideal_":
            g, lo, hi = s["rack_gap"], s["rack_gap_low"], s["rack_gap_high"]
            if not math.isnan(lo) and lo > 0:
                parts.append(f"the rack costs {g * 100:.1f} points [95 %: {lo * 100:.1f}, {hi * 100:.1f}] "
                             f"against the digital learner on the same retina, wiring and seeds "
                             f"({percent(s['digital_mean'])})")
            elif not math.isnan(lo):
                parts.append(f"the digital learner on the same retina, wiring and seeds scores "
                             f"{percent(s['digital_mean'])} "
                             f"(paired difference {g * 100:+.1f} points [95 %: {lo * 100:+.1f}, {hi * 100:+.1f}]): "
                             f"no measured cost of the rack")
            if self.band[0] <= s["ideal_mean"] <= self.band[1] + 1e-12:
                parts.append(f"the IBM 704 perceptron of this size has its mean in the band "
                             f"({percent(s['ideal_mean'])})")
            elif s["ideal_mean"] > self.band[1]:
                parts.append(f"the IBM 704 perceptron of this size scores above the band ({percent(s['ideal_mean'])})")
        else:
            parts.append(f"the analog machine scores {percent(s['mean'])}")
        return "; ".join(parts)


_CODE_ARGUMENT = (
    "; the output code is not recorded for the Mark I: the far-apart words on all 8 R-units are the project's "
    "assumption, and Rosenblatt's own description of a perceptron's binary response, one response per bit "
    "(1958, p. 402; conclusion 6, p. 405: \"each response, or 'bit', corresponds to some independent feature\"), "
    "describes the model two years before the Mark I, not its wiring; neither has the better claim on the "
    "machine, so both codes are counted alike (the verdict is theirs when they agree, else unclear), although "
    "the 1958 code is the one a source describes")


def _argument(sc: SceneResult) -> str:
    """Why a report is counted on its readings, from what the sources say of its machine."""
    rep, counted = sc.reported, sc.counted
    names = " and ".join(f"`{READINGS[p][0]}`" for p in counted)
    machine = rep.get("machine")
    a_units = sc.conditions.get("a_units")
    if machine == "mark1":
        why = ("the source credits the Mark I; counted on its only stated pot count, one pot per A-unit, "
               "with the A-units divided among the R-units the code uses (assumed, not recorded); 4,096 pots is an "
               "inference no source states, 64 a unit leaves A-units on unused lamps (assumed), the drive is "
               "contradictory (the ratchet column); `ibm704` is the project's construction beside it")
    elif machine == "ibm704":
        why = "the sources name the IBM 704: counted on `ibm704`, the project's stand-in for its digital perceptron"
    elif machine == "contradictory" and rep.get("reading"):
        why = (f"the sources disagree on the machine ({rep.get('source')}); counted on the scene's reading, every "
               f"other reading beside it")
    elif sc.project_band:
        why = ("a theorem about perceptrons, no machine and no accuracy: judged on the project's band on the Mark "
               "I and on `ibm704` alike, and counted apart")
    elif rep.get("reading"):
        why = "no machine named and no size recorded: counted on the scene's reading, the others beside it"
    else:
        why = (f"machine not named; size {a_units:,} A-units: the Mark I's versions had different unit counts "
               f"(Wikipedia 'Mark I Perceptron'; the 500-unit square vs circle is credited to the Mark I), so a "
               f"size that is not 512 does not rule the Mark I out; judged on the Mark I reading and on `ibm704` "
               f"alike (the verdict is theirs when they agree, else unclear)")
    if "bits_" in counted:
        why += _CODE_ARGUMENT
    return f"{names}: {why}"


@dataclass
class Reenactment:
    """Every scene of a re-enactment, over the same seeds.

    Attributes
    ----------
    scenes : list of SceneResult
        One per scene: its report, its band and its seeds' records.
    seeds : list of int
    tolerance : float
        Extra half-width added to each report's derived band (fraction).
    config : dict
        What identifies the run (card counts, each scene file's digest).
    page, figure : pathlib.Path or None
        The Markdown page and its figure as written (None where nothing was).

    Examples
    --------
    >>> result = reenact(["scenes/e_vs_x.toml"], seeds=1, train_count=4, test_count=4)
    >>> row = result.rows()[0]
    >>> row["scene"], row["reported"], round(row["band_low"], 3), row["primary"]
    ('X vs E, rotation up to 30 degrees, 20 training cards', 1.0, 0.51, 'analog')
    >>> row["verdict"]                        # one seed: below the statistics' minimum, no interval
    'too few seeds'
    """

    scenes: list
    seeds: list
    tolerance: float
    config: dict = field(default_factory=dict)
    page: Path | None = None
    figure: Path | None = None
    what_if: list = field(default_factory=list)
    precision: float | None = None
    pilot: dict | None = None
    what_if_skipped: list = field(default_factory=list)

    @property
    def family_size(self) -> int:
        """The verdicts the page states on one family: every scene's counted readings."""
        return sum(len(sc.counted) for sc in self.scenes)

    def family(self) -> dict:
        """The family of verdicts and its control: each report under each reading it is counted on.

        Returns
        -------
        dict
            ``members`` [(scene index, prefix)], ``p`` and ``p_adjusted`` (the verdicts on the
            mean: :func:`_band_p`, Holm-adjusted by :func:`mark1.stats.adjust`), ``levels`` (the
            level Holm tested each at, :func:`_holm_levels`), and the same for the shares
            against :data:`SHARE_THRESHOLD` (``share_p``, ``share_p_adjusted``, ``share_levels``).
        """
        members = [(i, p) for i, sc in enumerate(self.scenes) for p in sc.counted]
        ps = [_band_p(self.scenes[i].accuracies(p), self.scenes[i].band) for i, p in members]
        shares = [self.scenes[i].share(p) for i, p in members]
        share_ps = [sh["p"] for sh in shares]
        return {"members": members, "p": ps, "p_adjusted": adjust(ps, FAMILY_METHOD),
                "levels": _holm_levels(ps, FAMILY_ALPHA), "share_p": share_ps,
                "share_p_adjusted": adjust(share_ps, FAMILY_METHOD),
                "share_levels": _holm_levels(share_ps, FAMILY_ALPHA)}

    def rows(self) -> list[dict]:
        """One summary row per scene (see :meth:`SceneResult.summary`), with its report; every interval that
        gives a counted verdict is at the level the family's correction tested it at (:meth:`family`)."""
        fam = self.family()
        levels: list[dict] = [{} for _ in self.scenes]
        share_levels: list[dict] = [{} for _ in self.scenes]
        p_of: list[dict] = [{} for _ in self.scenes]
        for j, (i, p) in enumerate(fam["members"]):
            levels[i][p], share_levels[i][p] = fam["levels"][j], fam["share_levels"][j]
            p_of[i][p] = (fam["p"][j], fam["p_adjusted"][j], fam["share_p"][j], fam["share_p_adjusted"][j])
        out = []
        for i, sc in enumerate(self.scenes):
            row = {"scene": sc.name, "file": sc.file, "reported": sc.reported.get("value"),
                   "source": sc.reported.get("source"), "machine": sc.reported.get("machine"),
                   "reading": sc.reported.get("reading"), "expect": sc.reported.get("expect"),
                   "band_low": sc.band[0], "band_high": sc.band[1],
                   "lower_bound": sc.lower_bound, **sc.summary(levels[i], share_levels[i])}
            row["counted_verdicts"] = [row[f"{p or 'analog_'}verdict"] for p in row["counted"]]
            row["counted_share_verdicts"] = [row[f"{p or 'analog_'}share_verdict"] for p in row["counted"]]
            for p, (pv, pa, sp, spa) in p_of[i].items():
                key = p or "analog_"
                row[f"{key}p"], row[f"{key}p_adjusted"] = pv, pa
                row[f"{key}share_p"], row[f"{key}share_p_adjusted"] = sp, spa
            out.append(row)
        return out

    def reports(self, rows: list[dict] | None = None) -> list[dict]:
        """The reports, each once: scenes with the same source, conditions and value are one report.

        Returns
        -------
        list of dict
            ``name``, ``scenes`` (the rows), ``kind`` ("sourced", "unsourced" or "project band"),
            ``verdict`` (the scenes' counted verdict on the mean when they agree, else "unclear"),
            ``share_verdict`` (as one machine, alike), ``unstable`` (any scene's counted verdict
            differs between the halves of the seeds), ``marginal`` (any could change with half
            the seeds, :func:`_marginal`).
        """
        groups: dict[tuple, list] = {}
        for r, sc in zip(rows if rows is not None else self.rows(), self.scenes):
            rep = sc.reported
            key = ((rep.get("source"), rep.get("conditions"), rep.get("value")) if rep.get("value") is not None
                   else (r["file"],))
            groups.setdefault(key, []).append(r)
        out = []
        for rows in groups.values():
            kind = ("project band" if rows[0]["project_band"] else "sourced" if rows[0]["sourced"]
                    else "unsourced")
            out.append({"name": rows[0]["scene"], "scenes": rows, "kind": kind,
                        "verdict": _combine([r["verdict"] for r in rows]),
                        "share_verdict": _combine([r["share_verdict"] for r in rows]),
                        "unstable": any(r["unstable"] for r in rows),
                        "marginal": any(r["marginal"] for r in rows)})
        return out

    def headline(self, rows: list[dict] | None = None) -> dict:
        """Counts of verdicts by kind of report (:meth:`reports`): ``{kind: {verdict: count}}``, the verdicts
        on the mean and, under ``"<kind> as one machine"``, the verdicts as one machine."""
        counts: dict[str, dict[str, int]] = {}
        for rep in self.reports(rows):
            c = counts.setdefault(rep["kind"], {"within": 0, "OUT OF BAND": 0, "unclear": 0})
            c[rep["verdict"]] = c.get(rep["verdict"], 0) + 1
            c = counts.setdefault(f"{rep['kind']} as one machine", {"consistent": 0, "inconsistent": 0,
                                                                    "unclear": 0})
            c[rep["share_verdict"]] = c.get(rep["share_verdict"], 0) + 1
        return counts

    def headline_one_machine(self, rows: list[dict] | None = None) -> str:
        """The headline as one machine: the sourced reports' verdicts on the share of machines in band."""
        c = self.headline(rows).get("sourced as one machine")
        if not c:
            return ""
        return (f"as one machine, {sum(c.values())} reports with a sourced number: {c['consistent']} consistent "
                f"(at least {SHARE_THRESHOLD:.0%} of built machines would have reported the figure), "
                f"{c['inconsistent']} inconsistent (fewer would), {c['unclear']} unclear")

    def headline_text(self, rows: list[dict] | None = None) -> str:
        """The headline in words (verdicts on the mean): sourced reports first, the others counted apart."""
        h = self.headline(rows)

        def words(c: dict) -> str:
            few = f", {c[TOO_FEW]} with too few seeds for a verdict" if c.get(TOO_FEW) else ""
            return f"{c['within']} within, {c['OUT OF BAND']} out of band, {c['unclear']} unclear{few}"
        parts = []
        if "sourced" in h:
            parts.append(f"{sum(h['sourced'].values())} reports with a sourced number, each counted once: "
                         f"{words(h['sourced'])}")
        if "unsourced" in h:
            parts.append(f"apart, {sum(h['unsourced'].values())} figure(s) without a source found: "
                         f"{words(h['unsourced'])}")
        if "project band" in h:
            parts.append(f"apart, {sum(h['project band'].values())} scene(s) on the project's own band: "
                         f"{words(h['project band'])}")
        return "; ".join(parts)

    def previous_rule_headline(self) -> str:
        """The headline under the earlier rule of the page, for comparison.

        That rule: band = reported ± 5 points ([reported, 100 %] for a lower bound), within when the
        mean lies in it, out when the 95 % interval lies outside, every scene counted (project bands
        and both square-vs-circle scenes included).
        """
        n_in = n_out = 0
        rows = self.rows()
        for r, sc in zip(rows, self.scenes):
            rep = sc.reported
            v = rep.get("value")
            if v is None:
                b = EXPECT_BANDS[rep["expect"]]
            elif sc.lower_bound:
                b = (float(v), 1.0)
            else:
                b = (max(0.0, v - 0.05), min(1.0, v + 0.05))
            m, lo, hi = r["judged_mean"], r["judged_low"], r["judged_high"]
            if b[0] - 1e-12 <= m <= b[1] + 1e-12:
                n_in += 1
            elif math.isnan(lo) or hi < b[0] - 1e-12 or lo > b[1] + 1e-12:
                n_out += 1
        return (f"{n_in} of {len(rows)} scenes within band, {n_out} out of band, {len(rows) - n_in - n_out} "
                f"unclear")

    def _cells(self) -> tuple[tuple, list, str]:
        """The table's head, its rows (cells as text) and the line under it."""
        rows = self.rows()
        head = ("scene", "report", "scored", "counted on", "mean [interval]", "verdict", "as one machine")
        cells = []
        for r in rows:
            p = r["counted"]
            cells.append((r["scene"], _report_text(r), r["scored"], " + ".join(READINGS[q][0] for q in p),
                          " / ".join(_interval(r[f"{q}mean"], r[f"{q}low"], r[f"{q}high"]) for q in p),
                          r["verdict"] + (" (unstable)" if r["unstable"] else "") + (" (marginal)" if r["marginal"]
                                                                                   else ""),
                          r["share_verdict"] + " (" + ", ".join(f"{r[(q or 'analog_') + 'share_k']} of "
                                                                 f"{r[(q or 'analog_') + 'share_n']}" for q in p)
                          + " in band)"))
        under = (f"On the mean: {self.headline_text(rows)}. {self.headline_one_machine(rows)}. ({len(self.seeds)} "
                 f"seed(s); band: the reported figure's rounding and its 95 % Wilson interval on the scene's scored "
                 f"cards, the project's choice; each counted interval at the level Holm's step-down tested it at, "
                 f"family-wise error {FAMILY_ALPHA:.0%} over the {self.family_size} verdicts of the family, the "
                 f"reports under their counted readings; as one machine: the share of seeds in band against "
                 f"{SHARE_THRESHOLD:.0%}, its family alike)")
        return head, cells, under

    def table(self) -> str:
        """A plain-text table, one line per scene, with the verdicts."""
        head, cells, under = self._cells()
        return "\n".join(aligned(head, cells, left=(0, 3, 5, 6)) + [under])

    def __repr__(self) -> str:
        return clip(f"Reenactment({len(self.scenes)} scenes, {len(self.seeds)} seed(s): {self.headline_text()})")

    def _repr_html_(self) -> str:
        head, cells, under = self._cells()
        return study_html("Reenactment", html_table(head, cells, left=(0, 6, 7), notes=[under]),
                          figure_function("Reenactment"), self)

    def to_json(self) -> dict:
        """Everything as JSON-safe values: the rows with their verdicts and every record (``reenact.json``)."""
        return jsonable({"seeds": self.seeds, "tolerance": self.tolerance, "config": self.config,
                         "scenes": self.rows(),
                         "records": [r for sc in self.scenes for r in sc.records]})

    def csv_text(self) -> str:
        """``reenact.csv``: one row per (scene, seed)."""
        return csv_text([r for sc in self.scenes for r in sc.records], REENACT_FIELDS)

    def verdicts_csv_text(self) -> str:
        """``verdicts.csv``: one row per (scene, reading), each verdict with the interval it reads (at the
        family's adjusted level, the family and its control stated in every row) and the record as one machine."""
        rows = []
        m = self.family_size
        for r, sc in zip(self.rows(), self.scenes):
            for p in READINGS:
                key = p or "analog_"
                if math.isnan(r[f"{p}mean"]):
                    continue
                counted = p in r["counted"]
                level = r[f"{key}level"]
                sh = sc.share(p, r.get(f"{key}share_level", LEVEL))
                acc = sc.accuracies(p)
                rows.append({"scene_file": Path(r["file"]).name, "reading": READINGS[p][0], "counted": counted,
                             "reported": r["reported"], "band_low": r["band_low"], "band_high": r["band_high"],
                             "seeds": r["n"], "mean": r[f"{p}mean"], "low": r[f"{p}low"], "high": r[f"{p}high"],
                             "level": level, "p": r.get(f"{key}p"), "p_adjusted": r.get(f"{key}p_adjusted"),
                             "family": (f"the reports under their counted readings ({m})" if counted
                                        else "not counted: 95 %, outside the family"),
                             "method": (f"{correction_words(FAMILY_METHOD, m)}, family-wise {FAMILY_ALPHA:g}; "
                                        f"{STATS_METHOD}"),
                             "verdict": r[f"{key}verdict"], "marginal": r[f"{key}marginal"],
                             "unstable": r[f"{key}unstable"], "machines_in_band": sh["k"],
                             "share_low": sh["low"], "share_high": sh["high"], "share_level": sh["level"],
                             "share_p_adjusted": r.get(f"{key}share_p_adjusted"), "as_one_machine": sh["verdict"],
                             "seeds_for_1_point": _seeds_needed(acc, 0.01, level),
                             "seeds_for_half_point": _seeds_needed(acc, 0.005, level)})
        return csv_text(rows, VERDICT_FIELDS)


def _report_text(r: dict) -> str:
    if r["reported"] is None:
        return f"({r['expect']})"
    return (">" if r["lower_bound"] else "") + f"{percent(r['reported'])}"


def _interval(m, lo, hi) -> str:
    if m is None or math.isnan(m):
        return "-"
    if lo is None or math.isnan(lo):
        return f"{percent(m)}"
    return f"{percent(m)} [{percent(lo)}, {percent(hi)}]"


def reenact(scenes: Sequence[SceneLike] | None = None, *, seeds: Seeds = 5, tolerance: float = DEFAULT_TOLERANCE,
            executor: Executor | None = None, out: StrPath | None = None,
            resume: bool = False, progress: bool = False, train_count: int | None = None,
            test_count: int | None = None, page: StrPath | None = None, command: str | None = None,
            note: str = "", figure: Callable | None = None, what_if_seeds: int = 0,
            precision: float | None = None, max_seeds: int | None = None,
            what_if_max_cards: int = WHAT_IF_MAX_CARDS) -> Reenactment:
    """Re-enact scenes over seeds and judge each against its report.

    Parameters
    ----------
    scenes : sequence of Scene or str, optional
        Scenes or scene files, each with a reported figure or an expectation (default:
        ``catalog(expected=True)``).
    seeds : int or sequence of int
        The seeds (with ``precision``: the pilot's, at least :data:`mark1.stats.MIN_SEEDS`).
    tolerance : float
        Extra half-width added to each report's derived band (fraction), in [0, 0.5].
    executor : concurrent.futures.Executor, optional
    out : str or path-like, optional
        Folder for ``jobs/*.json`` (each (scene, seed) as it finishes), ``what_if/*.json``,
        ``reenact.csv``, ``reenact.json``, and the page (see ``page``); all written atomically.
    resume : bool
        Read back jobs already recorded in ``out`` by the same run.
    progress : bool
    train_count, test_count : int, optional
        Card counts instead of each scene's (for quick runs and tests).
    page : str or path-like, optional
        The Markdown page (default ``out/REENACTMENT.md``); its figure goes beside it
        with the same name in lower case and the ending ``.png``.
    command : str, optional
        The command line quoted on the page as the way to regenerate it.
    note : str
        A paragraph added to the page (e.g. why fewer seeds were run).
    figure : callable, optional
        Draws the page's figure, called as ``figure(reenactment, out=path)`` with the
        path beside the page, before the page, which then shows it; needs ``out``.
        ``mark1 reenact`` passes :func:`mark1.viz.studies.reenact_figure`.
    what_if_seeds : int
        Seeds (the first ones of the run) on which every sourced report not shown to agree (not within, or not
        consistent as one machine) is run again with each single change of an assumed
        parameter (:data:`WHAT_IF`); 0 runs none.
    what_if_max_cards : int
        Scenes with more training cards get no what-if runs (a cost limit, said on the page).
    precision : float, optional
        Half-width (fraction of accuracy) every interval of the family should reach. Stein's
        two-stage rule (:func:`mark1.stats.pilot_seeds`): ``seeds`` are a pilot whose spread fixes
        how many *new* seeds the precision needs (at most ``max_seeds``); the result rests on the
        new seeds alone, so its intervals are ordinary fixed-count intervals and keep their
        coverage (a rule that stops when an interval first looks narrow enough would not).
    max_seeds : int, optional
        Most new seeds with ``precision`` (default: 4 times the pilot's).

    Returns
    -------
    Reenactment

    Raises
    ------
    InputError
        For a scene without a reported figure or expectation, bad seeds, counts, tolerance,
        precision or max_seeds, ``resume`` or ``figure`` without ``out``.

    Examples
    --------
    >>> result = reenact(["scenes/e_vs_x.toml"], seeds=1, train_count=4, test_count=4)
    >>> rec = result.scenes[0].records[0]
    >>> rec["train_cards"], rec["test_accuracy"], rec["ideal_test_accuracy"]
    (4, 1.0, 1.0)
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance <= 0.5:
        raise InputError(f"tolerance: expected a fraction from 0 to 0.5, got {tolerance!r}")
    if precision is not None and (isinstance(precision, bool) or not isinstance(precision, (int, float))
                                  or not 0 < precision < 0.5):
        raise InputError(f"precision: expected a half-width above 0 and below 0.5 (a fraction), got {precision!r}")
    if isinstance(what_if_seeds, bool) or not isinstance(what_if_seeds, int) or what_if_seeds < 0:
        raise InputError(f"what_if_seeds: expected a whole number >= 0, got {what_if_seeds!r}")
    scene_objs = [as_scene(s) for s in (catalog(expected=True) if scenes is None else scenes)]
    if not scene_objs:
        raise InputError("scenes: expected at least one scene with a reported figure")
    for sc in scene_objs:
        if not judged(sc.reported):
            raise InputError(f"{sc.path or sc.name}: [reported] has no value and no expect, so there is nothing "
                             f"to re-enact (expected a scene with a reported figure or an expectation)")
    seed_ids = seed_list(seeds)
    if max_seeds is not None and (isinstance(max_seeds, bool) or not isinstance(max_seeds, int)
                                  or max_seeds < MIN_SEEDS):
        raise InputError(f"max_seeds: expected a whole number >= {MIN_SEEDS}, got {max_seeds!r}")
    if max_seeds is not None and precision is None:
        raise InputError("max_seeds: only with precision (seeds are added only to reach a precision)")
    if precision is not None and len(seed_ids) < MIN_SEEDS:
        raise InputError(f"seeds: a pilot for precision needs at least {MIN_SEEDS} seeds, got {len(seed_ids)}")
    train_count = count_option(train_count, "train_count")
    test_count = count_option(test_count, "test_count")
    check_figure(figure, out)
    stems = [Path(sc.path).stem if sc.path else sc.name.replace(" ", "_") for sc in scene_objs]
    if len(set(stems)) != len(stems):
        raise InputError(f"scenes: expected distinct scenes, got {stems}")
    config = {"study": "reenact", "version": 5, "train_count": train_count, "test_count": test_count,
              "scenes": {stem: _run_digest(sc) for stem, sc in zip(stems, scene_objs)}}
    records = what_if_records = None
    if out is not None:
        def valid(key, rec):
            return (all(f in rec for f in REENACT_FIELDS) and rec["seed"] == int(key.rsplit("-", 1)[1])
                    and 0.0 <= rec["test_accuracy"] <= 1.0)

        def valid_what_if(key, rec):
            return rec.get("change") in WHAT_IF and rec.get("seed") == int(key.rsplit("-", 1)[1])
        records = Records(Path(out) / "jobs", config, valid=valid)
        what_if_records = Records(Path(out) / "what_if", config, valid=valid_what_if)
    def run(ids: list[int]) -> Reenactment:
        jobs = [(scene_ref(sc), s, train_count, test_count) for sc in scene_objs for s in ids]
        keys = [f"{stem}-seed-{s:04d}" for stem in stems for s in ids]
        results = run_jobs(_reenact_job, jobs, executor=executor, keys=keys, records=records, resume=resume,
                           progress="runs" if progress else None)
        return _result(scene_objs, results, ids, tolerance, config)

    result = run(seed_ids)
    pilot = None
    if precision is not None:
        # Stein's two-stage rule (mark1.stats.pilot_seeds): these seeds are the pilot; their spread fixes how
        # many new seeds the precision needs, and the page's intervals rest on the new seeds alone
        pilot = {"seeds": seed_ids, "precision": precision}
        fam = result.family()
        samples = [result.scenes[i].accuracies(p) for i, p in fam["members"]]
        level = min(fam["levels"], default=LEVEL)
        n_new = pilot_seeds(samples, precision, max_seeds=max_seeds if max_seeds is not None else 4 * len(seed_ids),
                            level=level)
        new_ids = list(range(max(seed_ids) + 1, max(seed_ids) + 1 + n_new))
        pilot["new_seeds"] = len(new_ids)
        result = run(new_ids)
        seed_ids = new_ids
    result.precision = precision
    result.pilot = pilot
    if what_if_seeds:
        result.what_if = _run_what_if(result, scene_objs, stems, seed_ids[:what_if_seeds], train_count,
                                      test_count, executor, what_if_records, resume, progress, what_if_max_cards)
    if out is not None:
        out = Path(out)
        write_text(out / "reenact.csv", result.csv_text())
        write_text(out / "verdicts.csv", result.verdicts_csv_text())
        write_json(out / "reenact.json", result.to_json())
        result.page = Path(page) if page is not None else out / "REENACTMENT.md"
        drawn = result.page.with_name(result.page.stem.lower() + ".png")
        result.figure = drawn if draw(figure, result, drawn) else None
        figure_name = result.figure.name if result.figure is not None else None
        write_text(result.page, _reenact_markdown(result, figure=figure_name, note=note,
                                                  command=command or f"mark1 reenact --seeds {len(seed_ids)}"))
    return result


#: The tables of a scene file that decide a re-enactment's records (its words and history do not).
_RUN_TABLES = ("stimuli", "train", "test", "machine", "schedule")


def _run_digest(scene) -> str | None:
    """SHA-256 of the tables of a scene file that decide its records (:data:`_RUN_TABLES`), so that a
    resumed run refuses records of a scene whose cards, machine or schedule changed, and keeps them
    through an edit of its description, history or report's words; :func:`scene_digest` without a file."""
    if not scene.path:
        return scene_digest(scene)
    try:
        data = tomllib.loads(Path(scene.path).read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return scene_digest(scene)
    kept = {k: data.get(k) for k in _RUN_TABLES}
    return hashlib.sha256(json.dumps(kept, sort_keys=True, default=str).encode()).hexdigest()


def _result(scene_objs, results, seed_ids: list[int], tolerance: float, config: dict) -> Reenactment:
    """The Reenactment of the records of every (scene, seed), in job order."""
    per_scene = []
    for i, sc in enumerate(scene_objs):
        recs = list(results[i * len(seed_ids):(i + 1) * len(seed_ids)])
        rep = sc.reported
        per_scene.append(SceneResult(
            file=str(sc.path) if sc.path else sc.name, name=sc.name,
            reported={"value": rep.value, "source": rep.source, "conditions": rep.conditions, "note": rep.note,
                      "machine": rep.machine, "scored": rep.scored, "reading": rep.reading, "expect": rep.expect,
                      "training": rep.training},
            band=band(rep, tolerance, recs[0]["train_cards" if rep.scored == "recall" else "test_cards"]),
            lower_bound=is_lower_bound(rep),
            conditions={"a_units": sc.machine_spec().patchboard.n_associators, "preset": sc.preset,
                        "machine": sc.machine_spec().name,
                        "train_cards": recs[0]["train_cards"], "test_cards": recs[0]["test_cards"],
                        "epochs": sc.schedule.epochs},
            records=recs))
    return Reenactment(scenes=per_scene, seeds=list(seed_ids), tolerance=float(tolerance), config=config)


def _misses(row: dict) -> bool:
    """Whether a sourced report is not shown to agree: not *within* on the mean under a counted reading, or
    not *consistent* as one machine (what it would take is asked of these)."""
    return row["sourced"] and (any(v != "within" for v in row["counted_verdicts"])
                               or any(v != "consistent" for v in row["counted_share_verdicts"]))


def _run_what_if(result: Reenactment, scene_objs, stems, seed_ids, train_count, test_count, executor, records,
                 resume, progress, max_cards: int = WHAT_IF_MAX_CARDS) -> list[dict]:
    """Every single change of :data:`WHAT_IF` on the scenes of every sourced report out of band or
    not consistent as one machine (:func:`_misses`), on ``seed_ids``; one row per (scene, change). Scenes with more than
    ``max_cards`` training cards are left out (:attr:`Reenactment.what_if_skipped`)."""
    rows = result.rows()
    missed = [i for i, r in enumerate(rows) if _misses(r)]
    chosen = [i for i in missed if result.scenes[i].conditions["train_cards"] <= max_cards]
    result.what_if_skipped = [result.scenes[i].name for i in missed if i not in chosen]
    jobs, keys, where = [], [], []
    for i in chosen:
        sc = scene_objs[i]
        passes = _what_if_passes(sc.schedule.epochs)
        n_train = result.scenes[i].conditions["train_cards"]
        for change, (_, more, _) in WHAT_IF.items():
            if more and (passes <= sc.schedule.epochs or passes * n_train > LONG_PRESENTATIONS):
                continue                                 # no more training allowed, or beyond the cost limit
            for s in seed_ids:
                jobs.append((scene_ref(sc), s, change, train_count, test_count))
                keys.append(f"{stems[i]}-{change}-seed-{s:04d}")
                where.append((i, change))
    recs = run_jobs(_what_if_job, jobs, executor=executor, keys=keys, records=records, resume=resume,
                    progress="what-if runs" if progress else None) if jobs else []
    grouped: dict[tuple, list] = {}
    for w, rec in zip(where, recs):
        grouped.setdefault(w, []).append(rec)
    out = []
    for (i, change), group in grouped.items():
        sc = result.scenes[i]
        acc = [g[f"{sc.scored}_accuracy"] for g in group]
        base = {r["seed"]: r[f"{sc.scored}_accuracy"] for r in sc.records}
        iv = _mean_iv(acc, (0.0, 1.0))
        diff = _difference_iv(acc, [base[g["seed"]] for g in group])
        k = int(sum(sc.band[0] - 1e-12 <= a <= sc.band[1] + 1e-12 for a in acc))
        lo, hi = _proportion_iv(k, len(acc))
        out.append({"scene": sc.name, "file": sc.file, "change": change, "what": WHAT_IF[change][2],
                    "epochs": group[0]["epochs"], "n": len(acc), "mean": iv[0], "low": iv[1], "high": iv[2],
                    "verdict": verdict(iv[0], iv[1], iv[2], sc.band), "diff": diff[0], "diff_low": diff[1],
                    "diff_high": diff[2], "in_band": k, "share_low": lo, "share_high": hi,
                    "share_verdict": share_verdict(lo, hi)})
    return out


# ----------------------------------------------------------------------------------------
# the page


def _pts(d: float, lo: float, hi: float) -> str:
    """A difference in points with its interval: "+0.1 [-1.4, +1.6]"."""
    if d is None or math.isnan(d):
        return "-"
    if lo is None or math.isnan(lo):
        return f"{d * 100:+.1f} (too few seeds for an interval)"
    return f"{d * 100:+.1f} [{lo * 100:+.1f}, {hi * 100:+.1f}]"


def _share_text(r: dict, prefix: str) -> str:
    """"11 of 24 (46 % [27 %, 66 %]) consistent" for one counted reading of a row."""
    key = prefix or "analog_"
    k, n, lo, hi = (r[f"{key}share_{x}"] for x in ("k", "n", "low", "high"))
    if not n:
        return "-"
    return f"{k} of {n} ({k / n:.0%} [{lo:.0%}, {hi:.0%}]) {r[f'{key}share_verdict']}"


def _reenact_markdown(result: Reenactment, *, figure: str | None, command: str, note: str = "") -> str:
    """The Markdown page: how it was made, the questions and the rule, the readings, the table, the
    reports each once, the output codes, outline against solid, what it would take, the seeds a
    precision needs, the readings counted argued, the misses explained, the sources."""
    rows = result.rows()
    extra = f", widened by {result.tolerance * 100:g} points on each side" if result.tolerance else ""
    n = len(result.seeds)
    h = n // 2
    m = result.family_size
    levels = [r[f"{p or 'analog_'}level"] for r in rows for p in r["counted"]]
    lines = [
        "# Re-enactment: each report judged under every reading of the machine",
        "",
        f"Generated by `{command}` over {n} seed(s) "
        f"(seeds {result.seeds[0]}..{result.seeds[-1]}); each seed draws new training and test cards and a "
        f"new machine (patch board, motor spread, noise). Regenerate this page with the same command and "
        f"`--overwrite`; with `--resume` instead it continues an interrupted run from its records.",
        "",
    ]
    if note:
        lines += [note, ""]
    if result.pilot:
        lines += [f"Seeds for a precision of ±{result.pilot['precision'] * 100:g} points (Stein's two-stage rule, "
                  f"`mark1.stats.pilot_seeds`): seeds {result.pilot['seeds'][0]}..{result.pilot['seeds'][-1]} were "
                  f"the pilot, whose spread fixed {result.pilot['new_seeds']} new seeds; every figure on this page "
                  f"rests on the new seeds alone (the pilot is left out), so the intervals are ordinary "
                  f"fixed-count intervals and keep their coverage. A rule that stops when an interval first looks "
                  f"narrow enough would stop on lucky small spreads and lose coverage.", ""]
    lines += [
        f"**On the mean: {result.headline_text(rows)}.**",
        "",
        f"**{result.headline_one_machine(rows)[0].upper() + result.headline_one_machine(rows)[1:]}.**",
        "",
        f"Under the page's earlier rule (band = reported ± 5 points, within when the mean lies in it, every scene "
        f"counted, project bands included): {result.previous_rule_headline()}.",
        "",
        "## Two questions, two verdicts",
        "",
        "Rosenblatt's Mark I was one machine: one wiring, one rack, one run of each experiment. Each report gets "
        "two verdicts, which answer different questions:",
        "",
        "- **On the mean** (*within* / *OUT OF BAND* / *unclear*): does the machine *as a design*, averaged over "
        "the machines that could have been built from it (the seeds: patch board, motors, cards), score what the "
        "report says? This is the question of a design's typical result.",
        f"- **As one machine** (*consistent* / *inconsistent* / *unclear*): would the one machine that was built "
        f"have reported it? Each seed is one machine; its own result, on as many cards as the scene scores (the "
        f"binomial noise of a test of that size is in it), lands in the band or not, and the share of machines "
        f"that land in it, with its interval, is judged against {SHARE_THRESHOLD:.0%}: *consistent* when the "
        f"whole interval lies at or above it (at least one machine in {round(1 / SHARE_THRESHOLD)} built would "
        f"have reported the figure), *inconsistent* when it lies below (almost none would), *unclear* otherwise. "
        f"The threshold is the project's choice. A report can be out of band on the mean and consistent as one "
        f"machine: the design's typical machine misses, a lucky one would not.",
        "",
        "## The rule (one, symmetric)",
        "",
        f"**The band of a report is the project's choice**: the reported figure widened by half a unit of its "
        f"last digit (85 % covers 84.5-85.5 %; not for a lower bound), then by the 95 % Wilson interval of a "
        f"proportion measured on as many cards as the scene scores (its test cards, or its training cards for "
        f"recall; the reports' own test sizes are not recorded){extra}; a lower bound (\">\") reaches 100 %. "
        f"**within**: the interval of the mean over seeds lies inside the band; **OUT OF BAND**: it lies "
        f"entirely outside; **unclear**: otherwise.",
        "",
        f"**The family and its control.** The page states one verdict per report under each reading it is "
        f"counted on: a family of {m} verdicts on the mean (the reports under their counted readings, the "
        f"project's bands included) and as many as one machine. Each family is controlled for its "
        f"family-wise error at {FAMILY_ALPHA:.0%} by Holm's step-down, not for a false-discovery rate: every "
        f"verdict here is a claim about one historical report, read one by one, and a false *OUT OF BAND* is a "
        f"charge against a source that no share of true verdicts around it excuses; the false-discovery rate "
        f"(Benjamini-Hochberg) suits a screen whose findings are followed up, which this page is not. A verdict's "
        f"test is the one its interval inverts (against the band's edge it must clear: both inner edges for "
        f"*within*, the nearer for *OUT OF BAND*; the threshold for a share), and each counted interval is "
        f"drawn at the level Holm tested it at "
        f"({min(levels, default=LEVEL):.2%} to {max(levels, default=LEVEL):.2%} here), so the verdict read from "
        f"it is Holm's decision; the intervals of the counted readings in the table are these. Readings not "
        f"counted are shown at 95 %, outside the family. Intervals: {STATS_METHOD} (`mark1.stats`); shares: "
        f"exact (Clopper-Pearson). Below {MIN_SEEDS} seeds the statistics module gives no interval: *too few "
        f"seeds*, and no verdict. `verdicts.csv` beside the records has every interval, its level, p-values "
        f"raw and adjusted, and the family.",
        "",
        f"**Stability.** A verdict is *marginal* (‡) when the interval widened by √2 about its mean (the width "
        f"half as many seeds would give) reaches another verdict; the seeds are also split into halves "
        f"(seeds {result.seeds[0]}..{result.seeds[max(h - 1, 0)]} and "
        f"{result.seeds[n - h] if h else result.seeds[-1]}..{result.seeds[-1]}), each judged alike, and a verdict "
        f"whose halves disagree is *unstable* (†).",
        "",
        "The headline counts **each report once** and **only reports with a sourced number**: scenes that "
        "re-enact one report (the same source, conditions and figure: the outline and solid square-vs-circle "
        "scenes) are one report, whose verdict is theirs when they agree and unclear when they do not; a report "
        "counted on two readings is judged alike (their verdict when they agree, else unclear). A figure with no "
        "source found (X vs E) and the scenes judged on **the project's own bands** (*learned* [90 %, 100 %]; "
        "*chance* [40 %, 60 %] for Minsky and Papert's predicates, whose theorems give no accuracy on cards) are "
        "counted apart.",
        "",
        "## Readings",
        "",
        "Each column is the scene's machine (its size and settings) under one reading of "
        "`mark1.specs.PRESETS` (`mark1 specs --preset NAME`; statuses as in `docs/MARK1_FACTS.md`):",
        "",
    ]
    for name, what in READINGS.values():
        lines.append(f"- `{name}`: {what}.")
    lines += [
        "",
        "`ibm704` has no status of its own: it is the project's construction, not a machine any source "
        "describes (the 704 program's retina, wiring and values are not recorded); it stands for the IBM 704 "
        "simulations with the Mark I's patch board of the report's size and nothing that is analog.",
        "",
        "A reading that is the same machine as the scene's is not trained again (4,096 pots where the code uses "
        "one R-unit: that unit then has a pot for every A-unit under both; the 1958 code where the scene's code is "
        "not far-apart binary words, which it equals for two classes); one that cannot be built is `-` (64 a unit "
        "needs the A-units to divide among the 8 R-units: 500 do not). For the alphabet and the typefaces the "
        "far-apart words use all 8 R-units, so `mark1-512` and `mark1-512-split-64` are one machine there (64 "
        "A-units each), and the 1958 code uses 5 (102 or 103 A-units each). *Rack cost*: the digital "
        "learner (the analog retina and patch board with an ideal rack, `spec.digital()`) minus the scene's "
        "machine, paired over seeds, with its 95 % interval. *φ separable*: seeds in which least squares on the "
        "scene machine's φ or a long run of the perceptron fits every training card.",
        "",
    ]
    if figure:
        lines += [f"![accuracy of every scene against its report, on each machine]({figure})", ""]
    cols = " | ".join(f"`{name}`" for name, _ in READINGS.values())
    lines += ["Counted readings (▶) at the level Holm tested each at; the others at 95 %.", "",
              f"| scene | machine (sources) | report | scored | band (project's) | {cols} | rack cost [95 %] "
              f"| φ separable | counted | on the mean | machines in band (as one machine) |",
              "|---|---|---|---|---|" + "---:|" * len(READINGS) + "---:|---:|---|---|---|"]
    for r in rows:
        rep = _report_text(r)
        if r["project_band"]:
            rep = f"*{r['expect']}*"
        elif not r["sourced"]:
            rep += " (no source)"
        band_text = f"{percent(r['band_low'])}-{percent(r['band_high'])}"
        if r["project_band"]:
            band_text = f"*{band_text}*"
        cells = []
        for prefix in READINGS:
            key = prefix or "analog_"
            v = r[f"{key}verdict"]
            cell = _interval(r[f"{prefix}mean"], r[f"{prefix}low"], r[f"{prefix}high"])
            if v:
                cell += (" " + ("**OUT**" if v == "OUT OF BAND" else v) + (" †" if r[f"{key}unstable"] else "")
                         + (" ‡" if r[f"{key}marginal"] else ""))
            if prefix in r["counted"]:
                cell = f"▶ {cell} ({r[f'{key}level']:.2%})"
            cells.append(cell)
        gap = _pts(r["rack_gap"], r["rack_gap_low"], r["rack_gap_high"]) if not math.isnan(r["rack_gap"]) else "-"
        flag = "**OUT OF BAND**" if r["verdict"] == "OUT OF BAND" else r["verdict"]
        flag += (" †" if r["unstable"] else "") + (" ‡" if r["marginal"] else "")
        counted = ", ".join(f"`{READINGS[p][0]}`" for p in r["counted"])
        shares = "; ".join(_share_text(r, p) + (f" (`{READINGS[p][0]}`)" if len(r["counted"]) > 1 else "")
                           for p in r["counted"])
        lines.append(f"| {r['scene']} (`{Path(r['file']).name}`) | {r['machine']} | {rep} | {r['scored']} | "
                     f"{band_text} | {' | '.join(cells)} | {gap} | {r['separated_seeds']} of {r['n']} | "
                     f"{counted} | {flag} | {shares} |")
    lines += ["", "▶ the readings counted; † the two halves of the seeds disagree (unstable); ‡ marginal: the "
              "verdict could change with half the seeds.", ""]
    lines += ["## The reports, each once", "",
              "| report | kind | scenes | on the mean | as one machine | halves (first / second) |",
              "|---|---|---|---|---|---|"]
    for report in result.reports(rows):
        scenes = ", ".join(f"`{Path(r['file']).name}`" for r in report["scenes"])
        halves = "; ".join(f"{r['halves'][0] or '-'} / {r['halves'][1] or '-'}" for r in report["scenes"])
        flag = (report["verdict"] + (" (unstable)" if report["unstable"] else "")
                + (" (marginal)" if report["marginal"] else ""))
        lines.append(f"| {report['name']} | {report['kind']} | {scenes} | {flag} | {report['share_verdict']} | "
                     f"{halves} |")
    unstable = [(r["scene"], READINGS[p][0]) for r in rows for p in READINGS if r[f"{p or 'analog_'}unstable"]]
    marginal = [(r["scene"], READINGS[p][0]) for r in rows for p in r["counted"] if r[f"{p or 'analog_'}marginal"]]
    lines += ["", "Unstable verdicts (the halves disagree): "
              + ("; ".join(f"{s} under `{name}`" for s, name in unstable) if unstable else "none") + ".",
              "", "Marginal counted verdicts (half the seeds could change them): "
              + ("; ".join(f"{s} under `{name}`" for s, name in marginal) if marginal else "none") + ".", ""]
    lines += _codes_section(result, rows)
    lines += _outline_section(result)
    lines += _what_if_section(result, rows)
    lines += _seeds_section(result, rows)
    lines += ["## The readings counted, argued", ""]
    for sc in result.scenes:
        lines.append(f"- **{sc.name}**: {_argument(sc)}.")
    misses = [r for r in rows if r["verdict"] != "within"]
    if misses:
        lines += ["", "## What may explain a miss (each clause measured on the same seeds)", ""]
        for r in misses:
            lines.append(f"- **{r['scene']}** ({r['verdict']}, {percent(r['judged_mean'])} against "
                         f"{_report_text(r) if not r['project_band'] else 'the project band'}): "
                         f"{r['explanation']}.")
    lines += ["", "## The reports and their sources", ""]
    for sc in result.scenes:
        rep = sc.reported
        extra_note = f" — {rep['note']}" if rep.get("note") else ""
        c = sc.conditions
        lines.append(f"- **{sc.name}**: {rep.get('conditions', '')}. Source: {rep.get('source', '')}{extra_note}. "
                     f"Machine in the sources: {rep.get('machine')}; scored: {rep.get('scored')}. "
                     f"Here: {c['machine']} (preset `{c['preset']}`), {c['a_units']} A-units; "
                     f"{c['train_cards']} training cards × {c['epochs']} epochs, {c['test_cards']} test cards.")
    lines.append("")
    return "\n".join(lines)


def _codes_section(result: Reenactment, rows: list[dict]) -> list[str]:
    """The scenes whose classes outnumber the R-units, under both output codes, paired by seed."""
    pick = [(r, sc) for r, sc in zip(rows, result.scenes) if sc.code_kind == "binary"]
    if not pick:
        return []
    lines = ["## The output code: far-apart words or one R-unit per bit", "",
             "How the Mark I read 26 letters off 8 lamps is not recorded. The scene's code (`mark1-512`) spreads "
             "far-apart code words over all 8 R-units (assumed); Rosenblatt's 1958 paper describes a binary "
             "response with one response per bit (p. 402; conclusion 6, p. 405), which on the Mark I reads as "
             "⌈log2 26⌉ = 5 R-units (`mark1-512-bits`). Both are counted; paired by seed (the same cards and "
             "patch board):", "",
             "| scene | report | far-apart words (8 R-units) | 1958 code (5 R-units) | 1958 − far-apart, points "
             "[95 %] | machines in band: far-apart / 1958 |", "|---|---|---:|---:|---:|---|"]
    for r, sc in pick:
        a, b = sc.accuracies(""), sc.accuracies("bits_")
        d = _difference_iv(b, a) if len(a) == len(b) and b else None
        lines.append(f"| {r['scene']} | {_report_text(r)} | "
                     f"{_interval(r['mean'], r['low'], r['high'])} {r['analog_verdict']} | "
                     f"{_interval(r['bits_mean'], r['bits_low'], r['bits_high'])} {r['bits_verdict']} | "
                     f"{_pts(*d) if d else '-'} | {r['analog_share_k']} of {r['analog_share_n']} / "
                     f"{r.get('bits_share_k', '-')} of {r.get('bits_share_n', '-')} |")
    lines += ["", "The counted verdict is the two codes' when they agree, else unclear; the argument is under "
              "*The readings counted, argued*.", ""]
    return lines


def _outline_section(result: Reenactment) -> list[str]:
    """Thick outlines against solid figures (square vs circle), paired by seed, on each reading."""
    by_stem = {Path(sc.file).stem: sc for sc in result.scenes}
    outline, solid = by_stem.get("square_vs_circle"), by_stem.get("square_vs_circle_solid")
    if outline is None or solid is None:
        return []
    lines = ["## Thick outlines against solid figures", "",
             "The source of the square-vs-circle report says thick outlines scored higher than solid figures. "
             "The two scenes run on the same seeds (so the same patch board and card positions, the fill aside); "
             "the difference outline − solid, in points of test accuracy, paired by seed, with its 95 % "
             "interval:", "", "| reading | outline | solid | outline − solid, points [95 %] | the source's "
             "claim |", "|---|---:|---:|---:|---|"]
    for prefix in ("", "ideal_"):
        a, b = outline.accuracies(prefix), solid.accuracies(prefix)
        if not a or len(a) != len(b):
            continue
        d, lo, hi = _difference_iv(a, b)
        ma, mb = float(np.mean(a)), float(np.mean(b))
        claim = ("too few seeds" if math.isnan(lo) else "comes out" if lo > 0 else
                 "reversed" if hi < 0 else "not shown (the interval holds 0)")
        lines.append(f"| `{READINGS[prefix][0]}` | {percent(ma)} | {percent(mb)} | {_pts(d, lo, hi)} | {claim} |")
    lines.append("")
    return lines


def _what_if_section(result: Reenactment, rows: list[dict]) -> list[str]:
    """What it would take: single changes of assumed parameters for the reports that miss."""
    lines = ["## What it would take (a finding about the assumptions)", ""]
    misses = [r for r in rows if _misses(r)]
    if not misses:
        return lines + ["Every sourced report is within its band on the mean and consistent as one machine.", ""]
    if not result.what_if and not result.what_if_skipped:
        return lines + ["Not run (`--what-if-seeds 0`).", ""]
    n_w = result.what_if[0]["n"] if result.what_if else 0
    lines += [
        f"For every sourced report not shown to agree (not *within* on the mean, or not *consistent* as one "
        f"machine, under a reading it is counted on), each *assumed* "
        f"parameter (no source fixes it) moved alone to an end of the range the project allows it, on the first "
        f"{n_w} seeds (the same cards and machines, paired with the scene's own run), plus the readings of the "
        f"table above that change an assumption (the output code, the A-unit assignment). Sourced parameters "
        f"never move. The defaults do not move toward a report either: this is what the assumptions would have "
        f"to be, not a change made. Verdicts here are at 95 %, on {n_w} seeds, unadjusted: a screen, not a "
        f"finding; a change that reaches the band would need its own run over the page's seeds.",
        "",
        "| report | single change | mean [95 %] | change, points [95 %] | verdict | machines in band |",
        "|---|---|---:|---:|---|---|"]
    for r in misses:
        sc = next(s for s in result.scenes if s.file == r["file"])
        reached = []
        base_acc = sc.accuracies("")[:n_w] if n_w else sc.accuracies("")
        b_iv = _mean_iv(base_acc)
        r["what_if_base"] = verdict(*b_iv, sc.band)
        k0 = sum(r["band_low"] - 1e-12 <= x <= r["band_high"] + 1e-12 for x in base_acc)
        lines.append(f"| {r['scene']} | none: the scene's machine (`{READINGS[''][0]}`) | {_interval(*b_iv)} | - | "
                     f"{r['what_if_base']} | {k0} of {len(base_acc)} |")
        for prefix in ("bits_", "alt_", "split64_"):
            if math.isnan(r[f"{prefix}mean"]) or prefix in r["counted"]:
                continue
            if all(rec.get(f"{prefix}{sc.scored}_accuracy") == rec.get(f"{sc.scored}_accuracy")
                   for rec in sc.records):
                continue                              # the same machine as the scene's
            v = r[f"{prefix}verdict"]
            acc = sc.accuracies(prefix)
            base = sc.accuracies("")
            d = _difference_iv(acc, base)
            k = sum(r["band_low"] - 1e-12 <= x <= r["band_high"] + 1e-12 for x in acc)
            lines.append(f"| {r['scene']} | reading `{READINGS[prefix][0]}` | "
                         f"{_interval(r[f'{prefix}mean'], r[f'{prefix}low'], r[f'{prefix}high'])} | "
                         f"{_pts(*d)} | {v} | {k} of {len(acc)} |")
            if v == "within":
                reached.append(f"`{READINGS[prefix][0]}`")
        for w in result.what_if:
            if w["file"] != r["file"]:
                continue
            what = w["what"] + (f" ({w['epochs']} passes)" if w["change"] == "passes" else "")
            lines.append(f"| {r['scene']} | {what} | {_interval(w['mean'], w['low'], w['high'])} | "
                         f"{_pts(w['diff'], w['diff_low'], w['diff_high'])} | {w['verdict']} | "
                         f"{w['in_band']} of {w['n']} ({w['share_verdict']}) |")
            if w["verdict"] == "within":
                reached.append(w["what"])
        r["what_it_would_take"] = reached
    lines += ["", "In band with one change (within, on the mean):", ""]
    for r in misses:
        if r["scene"] in result.what_if_skipped:
            took = [f"`{READINGS[p][0]}`" for p in ("bits_", "alt_", "split64_")
                    if p not in r["counted"] and r[f"{p}verdict"] == "within"]
            cards = next(s for s in result.scenes if s.file == r["file"]).conditions["train_cards"]
            lines.append(f"- **{r['scene']}**: the single changes were not run ({cards:,} training "
                         f"cards a machine: the cost limit of this run); among the readings, "
                         + ("; ".join(took) if took else "none") + ".")
            continue
        took = r.get("what_it_would_take") or []
        if r.get("what_if_base") == "within":
            lines.append(f"- **{r['scene']}**: the scene's own machine is within at 95 % unadjusted already; what "
                         f"keeps the counted verdict from *within* is the family's adjustment or the other reading "
                         f"it is counted on, which these changes do not touch.")
            continue
        lines.append(f"- **{r['scene']}**: " + ("; ".join(took) if took else "none within the allowed ranges")
                     + ".")
    lines += ["", f"Training amount: {_PASSES_CAP} passes where the cards were shown once, {_PASSES_MORE} where "
              f"training already ran to the cap of {_PASSES_CAP}; not tried where the passes would exceed "
              f"{LONG_PRESENTATIONS:,} presentations (square vs circle: its report counts the 10,000 stimuli "
              f"shown).", ""]
    return lines


def _seeds_section(result: Reenactment, rows: list[dict]) -> list[str]:
    """How many seeds a ±1-point and a ±0.5-point interval would need, from each counted reading's spread."""
    level = 1.0 - FAMILY_ALPHA / max(1, result.family_size)
    lines = ["## Seeds for a given precision", "",
             f"From each counted reading's own spread over these {len(result.seeds)} seeds "
             f"(`mark1.stats.seeds_needed`, a planning figure): the seeds an interval of the mean at the family's "
             f"strictest level ({level:.2%}) would need for ±1 point and ±0.5 point. `mark1 reenact --precision P` "
             f"runs them by Stein's two-stage rule: the seeds given are a pilot, their spread fixes the new seeds, "
             f"and the page rests on the new seeds alone.", "",
             "| scene | reading | sd over seeds, points | half-width now, points | seeds for ±1 point | "
             "seeds for ±0.5 point |", "|---|---|---:|---:|---:|---:|"]
    for r, sc in zip(rows, result.scenes):
        for p in r["counted"]:
            acc = sc.accuracies(p)
            sd = float(np.std(acc, ddof=1)) if len(acc) > 1 else math.nan
            hw = (r[f"{p}high"] - r[f"{p}low"]) / 2 if not math.isnan(r[f"{p}low"]) else math.nan
            n1, n05 = _seeds_needed(acc, 0.01, level), _seeds_needed(acc, 0.005, level)
            lines.append(f"| {r['scene']} | `{READINGS[p][0]}` | {sd * 100:.2f} | {hw * 100:.2f} | "
                         f"{n1 if n1 is not None else '-'} | {n05 if n05 is not None else '-'} |")
    lines.append("")
    return lines
