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

import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable, Sequence
from concurrent.futures import Executor

import numpy as np

from mark1._utils.atomic import write_text
from mark1._utils.html import clip, figure_function, html_table, study_html
from mark1._utils.language import percent
from mark1._utils.records import jsonable
from mark1.exceptions import InputError
from mark1.lab._common import check_figure, count_option, csv_text, draw, write_json
from mark1.lab.runner import (Records, SceneLike, Seeds, StrPath, as_scene, job, run_cards, run_jobs, scene_digest,
                              scene_ref, seed_list)
from mark1.lab.stats import clip_interval, mean_interval
from mark1.machine.mark_i import MarkI
from mark1.machine.response import OutputCode
from mark1.stimuli.cards import experiment_seeds
from mark1.stimuli.scenes import Reported, load_scene, shipped_scenes

__all__ = ["reenact", "Reenactment", "DEFAULT_TOLERANCE", "band", "verdict", "catalog", "judged", "wilson", "sourced",
           "READINGS"]

#: Extra half-width added to a report's derived band (fraction of accuracy); 0 by default.
DEFAULT_TOLERANCE = 0.0

#: z of a two-sided 95 % interval.
_Z95 = 1.959963984540054

#: The project's own bands for reports without a number (``reported.expect``), fractions.
EXPECT_BANDS = {"learned": (0.90, 1.0), "chance": (0.40, 0.60)}

#: The learners of one job, by prefix of their fields: the readings, then the digital learner.
LEARNERS = {"": "analog", "alt_": "4,096 pots", "split64_": "split 64", "ratchet_": "ratchet",
            "ideal_": "IBM 704", "digital_": "digital"}

#: The readings a verdict is given under (page columns): prefix -> (name in PRESETS, what the sources say).
READINGS = {
    "": ("mark1-512", "512 pots, one per A-unit (count single-source), split over the R-units in use (assumed)"),
    "alt_": ("mark1-4096", "4,096 pots, every A-unit to every R-unit: an inference, no source"),
    "split64_": ("mark1-512-split-64", "512 pots, 64 A-units on each of the 8 R-units whatever the code uses "
                                       "(assumed)"),
    "ratchet_": ("mark1-512-ratchet", "mark1-512 with a stepping (ratchet) drive: the drive is contradictory"),
    "ideal_": ("ibm704", "the IBM 704's digital perceptron of the same size"),
}

#: Columns of ``reenact.csv``: one row per (scene, seed).
REENACT_FIELDS = ("scene_file", "seed", "train_cards", "test_cards", "test_accuracy", "train_accuracy",
                  "machine_time_s",
                  "alt_test_accuracy", "alt_train_accuracy",
                  "split64_test_accuracy", "split64_train_accuracy",
                  "ratchet_test_accuracy", "ratchet_train_accuracy",
                  "digital_test_accuracy", "digital_train_accuracy",
                  "ideal_test_accuracy", "ideal_train_accuracy",
                  "ls_train_accuracy", "long_train_accuracy", "long_epochs", "wall_time_s",
                  "seed_train", "seed_test", "seed_machine")

#: Most card presentations of the long perceptron run of the separability test.
LONG_PRESENTATIONS = 100_000
#: Most passes of that run.
LONG_EPOCHS = 200

_LOWER_BOUND = re.compile(r"more than|at least|lower bound", re.IGNORECASE)
_UNSOURCED = re.compile(r"^\s*(unsourced|no source)", re.IGNORECASE)


def _is_lower_bound(reported) -> bool:
    """Whether a scene's report is a lower bound ("more than 80 %")."""
    return reported.value is not None and bool(_LOWER_BOUND.search(f"{reported.note} {reported.conditions}"))


def sourced(reported) -> bool:
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
    r = 0.0 if _is_lower_bound(reported) else _rounding(float(v))
    low, high = max(0.0, v - r), min(1.0, v + r)
    if n_cards:
        low, high = wilson(low, n_cards)[0], wilson(high, n_cards)[1]
    low, high = max(0.0, low - tolerance), min(1.0, high + tolerance)
    if _is_lower_bound(reported):
        return low, 1.0
    return low, high


def verdict(mean: float, low: float, high: float, band_: tuple[float, float]) -> str:
    """``"within"``, ``"OUT OF BAND"`` or ``"unclear"``: one symmetric rule (see the module docstring).

    Parameters
    ----------
    mean, low, high : float
        The simulated mean accuracy and its 95 % interval (fractions); NaN ends with one
        seed, where the interval is the mean itself.
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
    """
    b_lo, b_hi = band_
    eps = 1e-12
    if math.isnan(low) or math.isnan(high):
        low = high = mean
    if b_lo - eps <= low and high <= b_hi + eps:
        return "within"
    if high < b_lo - eps or low > b_hi + eps:
        return "OUT OF BAND"
    return "unclear"


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


def _readings(spec, n_units: int) -> dict[str, Any]:
    """The scene's machine under each reading, by field prefix (:data:`READINGS`).

    A reading that is the same machine as the scene's (4,096 pots where the code uses one
    R-unit, whose pots are then every A-unit's under both) is the string ``"same"``, so it
    is not trained twice; one that cannot be built (64 per R-unit needs the A-units to
    divide by the R-units) is None. The IBM 704 is ``spec.ideal()`` of the scene's machine.
    """
    out: dict[str, Any] = {"": spec, "ideal_": spec.ideal().with_overrides({"name": f"{spec.name} (IBM 704)"})}
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
    n_units = OutputCode(np.unique(train.labels), spec.response).n_units
    machines = {**_readings(spec, n_units), "digital_": spec.digital()}
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
    return rec


# ----------------------------------------------------------------------------------------
# the result


def _primary(reported) -> str:
    """The prefix of the reading a report is counted on (:data:`READINGS`): its ``reading``, else
    the IBM 704 for a 704 report, else the scene's machine."""
    reading = reported.get("reading")
    if reading is None:
        return "ideal_" if reported.get("machine") == "ibm704" else ""
    for prefix, (name, _) in READINGS.items():
        if name == reading:
            return prefix
    return ""                                     # another preset: the scene's own machine


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

    def _stat(self, prefix: str, what: str | None = None, records: list | None = None
              ) -> tuple[float, float, float]:
        recs = self.records if records is None else records
        vals = [r.get(f"{prefix}{what or self.scored}_accuracy") for r in recs]
        stat = clip_interval(mean_interval([v for v in vals if v is not None]), 0.0, 1.0)
        return (math.nan, math.nan, math.nan) if stat is None else stat

    def _verdict(self, prefix: str, records: list | None = None) -> str:
        mean, low, high = self._stat(prefix, records=records)
        return "" if math.isnan(mean) else verdict(mean, low, high, self.band)

    def summary(self) -> dict:
        """Per learner: mean and 95 % interval of the judged accuracy, its verdict and its halves' verdicts;
        the counted verdict, the paired rack cost, the separability test and the explanation of a miss."""
        out: dict[str, Any] = {"n": len(self.records), "scored": self.scored, "project_band": self.project_band,
                               "sourced": self.sourced, "primary": LEARNERS[_primary(self.reported)],
                               "primary_prefix": _primary(self.reported)}
        first, second = _halves(self.records)
        for prefix in LEARNERS:
            mean, low, high = self._stat(prefix)
            out[f"{prefix}mean"], out[f"{prefix}low"], out[f"{prefix}high"] = mean, low, high
            out[f"{prefix or 'analog_'}verdict"] = self._verdict(prefix)
            halves = (self._verdict(prefix, first), self._verdict(prefix, second)) if first else ("", "")
            out[f"{prefix or 'analog_'}halves"] = halves
            out[f"{prefix or 'analog_'}unstable"] = halves[0] != halves[1]
            out[f"{prefix}train_mean"] = self._stat(prefix, "train")[0]
            out[f"{prefix}test_mean"] = self._stat(prefix, "test")[0]
        p = _primary(self.reported)
        acc = self._values(f"{self.scored}_accuracy")
        judged_acc = [a for a in self._values(f"{p}{self.scored}_accuracy") if a is not None]
        out["meeting"] = float(np.mean([a >= self.band[0] - 1e-12 for a in judged_acc])) if judged_acc else math.nan
        gap = [d - a for d, a in zip(self._values(f"digital_{self.scored}_accuracy"), acc)]
        out["rack_gap"], out["rack_gap_low"], out["rack_gap_high"] = mean_interval(gap) or (math.nan,) * 3
        ls, long_ = self._values("ls_train_accuracy"), self._values("long_train_accuracy")
        out["ls_train_mean"], out["long_train_mean"] = float(np.mean(ls)), float(np.mean(long_))
        out["separated_seeds"] = int(sum(a >= 1.0 or b >= 1.0 for a, b in zip(ls, long_)))
        out["long_epochs"] = int(self.records[0].get("long_epochs", 0))
        out["machine_hours"] = float(np.mean([t / 3600.0 for t in self._values("machine_time_s")]))
        key = p or "analog_"
        out["verdict"], out["unstable"] = out[f"{key}verdict"], out[f"{key}unstable"]
        out["halves"] = out[f"{key}halves"]
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
        p = _primary(self.reported)
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


def _argument(sc: SceneResult) -> str:
    """Why a report is counted on its reading, from what the sources say of its machine."""
    rep, p = sc.reported, _primary(sc.reported)
    reading = READINGS[p][0]
    machine = rep.get("machine")
    a_units = sc.conditions.get("a_units")
    if machine == "mark1":
        why = ("the source credits the Mark I; counted on its only stated pot count, one pot per A-unit, "
               "with the A-units divided among the R-units the code uses (assumed, not recorded); 4,096 pots is an "
               "inference no source states, 64 a unit leaves A-units on unused lamps (assumed), the drive is "
               "contradictory (the ratchet column); the IBM 704 column is the project's alternative")
    elif machine == "ibm704":
        why = "the sources name the IBM 704: counted on its digital perceptron of the same size"
    elif machine == "contradictory":
        why = (f"the sources disagree on the machine ({rep.get('source')}); counted on `{reading}`, the scene's "
               f"reading, every other reading beside it")
        if sc.project_band:
            why += "; with no number reported it is judged on the project's band and counted apart"
    elif p == "ideal_":
        why = (f"no machine named; {a_units:,} A-units is not the 512-A-unit Mark I, so the digital perceptron of "
               f"that size is counted, the analog readings beside it")
    elif sc.project_band:
        why = ("a theorem about perceptrons, no machine and no accuracy: judged on the project's band on the Mark "
               "I as the sources allow it, the other readings beside it, and counted apart")
    else:
        why = ("no machine named and no size recorded: counted on the Mark I as the sources allow it "
               "(mark1-512), the IBM 704 beside it")
    return f"`{reading}`: {why}"


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
    >>> row["verdict"] in ("within", "unclear", "OUT OF BAND")
    True
    """

    scenes: list
    seeds: list
    tolerance: float
    config: dict = field(default_factory=dict)
    page: Path | None = None
    figure: Path | None = None

    def rows(self) -> list[dict]:
        """One summary row per scene (see :meth:`SceneResult.summary`), with its report."""
        out = []
        for sc in self.scenes:
            row = {"scene": sc.name, "file": sc.file, "reported": sc.reported.get("value"),
                   "source": sc.reported.get("source"), "machine": sc.reported.get("machine"),
                   "reading": sc.reported.get("reading"), "expect": sc.reported.get("expect"),
                   "band_low": sc.band[0], "band_high": sc.band[1],
                   "lower_bound": sc.lower_bound, **sc.summary()}
            out.append(row)
        return out

    def reports(self) -> list[dict]:
        """The reports, each once: scenes with the same source, conditions and value are one report.

        Returns
        -------
        list of dict
            ``name``, ``scenes`` (the rows), ``kind`` ("sourced", "unsourced" or "project band"),
            ``verdict`` (the scenes' counted verdict when they agree, else "unclear"), ``unstable``
            (any scene's counted verdict differs between the halves of the seeds).
        """
        groups: dict[tuple, list] = {}
        for r, sc in zip(self.rows(), self.scenes):
            rep = sc.reported
            key = ((rep.get("source"), rep.get("conditions"), rep.get("value")) if rep.get("value") is not None
                   else (r["file"],))
            groups.setdefault(key, []).append(r)
        out = []
        for rows in groups.values():
            verdicts = {r["verdict"] for r in rows}
            kind = ("project band" if rows[0]["project_band"] else "sourced" if rows[0]["sourced"]
                    else "unsourced")
            out.append({"name": rows[0]["scene"], "scenes": rows, "kind": kind,
                        "verdict": verdicts.pop() if len(verdicts) == 1 else "unclear",
                        "unstable": any(r["unstable"] for r in rows)})
        return out

    def headline(self) -> dict:
        """Counts of verdicts by kind of report (:meth:`reports`): ``{kind: {verdict: count}}``."""
        counts: dict[str, dict[str, int]] = {}
        for rep in self.reports():
            c = counts.setdefault(rep["kind"], {"within": 0, "OUT OF BAND": 0, "unclear": 0})
            c[rep["verdict"]] = c.get(rep["verdict"], 0) + 1
        return counts

    def headline_text(self) -> str:
        """The headline in words: sourced reports first, the others counted apart."""
        h = self.headline()

        def words(c: dict) -> str:
            return f"{c['within']} within, {c['OUT OF BAND']} out of band, {c['unclear']} unclear"
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
        """The headline under the rule of the page before issue 24, for comparison.

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
        head = ("scene", "report", "scored", "mark1-512 [95 %]", "704", "digital", "counted on", "verdict")
        cells = [(r["scene"], _report_text(r), r["scored"], _interval(r["mean"], r["low"], r["high"]),
                  percent(r["ideal_mean"]), percent(r["digital_mean"]), READINGS[r["primary_prefix"]][0],
                  r["verdict"] + (" (unstable)" if r["unstable"] else "")) for r in rows]
        under = (f"{self.headline_text()} ({len(self.seeds)} seed(s); band: the reported figure's rounding and "
                 f"its 95 % Wilson interval on the scene's scored cards, the project's choice; within: the 95 % "
                 f"interval of the mean inside the band, out: outside it)")
        return head, cells, under

    def table(self) -> str:
        """A plain-text table, one line per scene, with the verdicts."""
        head, cells, under = self._cells()
        w = max([len(c[0]) for c in cells] + [5])
        lines = [f"{'scene':<{w}}  {'report':>9}  {'scored':>6}  {'mark1-512 [95 %]':>25}  {'704':>7}  "
                 f"{'digital':>8}  {'counted on':<18}  verdict"]
        lines += [f"{c[0]:<{w}}  {c[1]:>9}  {c[2]:>6}  {c[3]:>25}  {c[4]:>7}  {c[5]:>8}  {c[6]:<18}  {c[7]}"
                  for c in cells]
        lines.append(under)
        return "\n".join(lines)

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
            note: str = "", figure: Callable | None = None) -> Reenactment:
    """Re-enact scenes over seeds and judge each against its report.

    Parameters
    ----------
    scenes : sequence of Scene or str, optional
        Scenes or scene files, each with a reported figure or an expectation (default:
        ``catalog(expected=True)``).
    seeds : int or sequence of int
    tolerance : float
        Extra half-width added to each report's derived band (fraction), in [0, 0.5].
    executor : concurrent.futures.Executor, optional
    out : str or path-like, optional
        Folder for ``jobs/*.json`` (each (scene, seed) as it finishes), ``reenact.csv``,
        ``reenact.json``, and the page (see ``page``); all written atomically.
    resume : bool
        Read back jobs already recorded in ``out/jobs`` by the same run.
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

    Returns
    -------
    Reenactment

    Raises
    ------
    InputError
        For a scene without a reported figure or expectation, bad seeds, counts or tolerance,
        ``resume`` or ``figure`` without ``out``.

    Examples
    --------
    >>> result = reenact(["scenes/e_vs_x.toml"], seeds=1, train_count=4, test_count=4)
    >>> rec = result.scenes[0].records[0]
    >>> rec["train_cards"], rec["test_accuracy"], rec["ideal_test_accuracy"]
    (4, 1.0, 1.0)
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance <= 0.5:
        raise InputError(f"tolerance: expected a fraction from 0 to 0.5, got {tolerance!r}")
    scene_objs = [as_scene(s) for s in (catalog(expected=True) if scenes is None else scenes)]
    if not scene_objs:
        raise InputError("scenes: expected at least one scene with a reported figure")
    for sc in scene_objs:
        if not judged(sc.reported):
            raise InputError(f"{sc.path or sc.name}: [reported] has no value and no expect, so there is nothing "
                             f"to re-enact (expected a scene with a reported figure or an expectation)")
    seed_ids = seed_list(seeds)
    train_count = count_option(train_count, "train_count")
    test_count = count_option(test_count, "test_count")
    check_figure(figure, out)
    stems = [Path(sc.path).stem if sc.path else sc.name.replace(" ", "_") for sc in scene_objs]
    if len(set(stems)) != len(stems):
        raise InputError(f"scenes: expected distinct scenes, got {stems}")
    jobs = [(scene_ref(sc), s, train_count, test_count) for sc in scene_objs for s in seed_ids]
    keys = [f"{stem}-seed-{s:04d}" for stem in stems for s in seed_ids]
    config = {"study": "reenact", "version": 4, "train_count": train_count, "test_count": test_count,
              "scenes": {stem: scene_digest(sc) for stem, sc in zip(stems, scene_objs)}}
    records = None
    if out is not None:
        expected = {k: j[1] for k, j in zip(keys, jobs)}

        def valid(key, rec):
            return (all(f in rec for f in REENACT_FIELDS) and rec["seed"] == expected[key]
                    and 0.0 <= rec["test_accuracy"] <= 1.0)
        records = Records(Path(out) / "jobs", config, valid=valid)
    results = run_jobs(_reenact_job, jobs, executor=executor, keys=keys, records=records, resume=resume,
                              progress="runs" if progress else None)
    per_scene = []
    for i, sc in enumerate(scene_objs):
        recs = list(results[i * len(seed_ids):(i + 1) * len(seed_ids)])
        rep = sc.reported
        per_scene.append(SceneResult(
            file=str(sc.path) if sc.path else sc.name, name=sc.name,
            reported={"value": rep.value, "source": rep.source, "conditions": rep.conditions, "note": rep.note,
                      "machine": rep.machine, "scored": rep.scored, "reading": rep.reading, "expect": rep.expect},
            band=band(rep, tolerance, recs[0]["train_cards" if rep.scored == "recall" else "test_cards"]),
            lower_bound=_is_lower_bound(rep),
            conditions={"a_units": sc.machine_spec().patchboard.n_associators, "preset": sc.preset,
                        "machine": sc.machine_spec().name,
                        "train_cards": recs[0]["train_cards"], "test_cards": recs[0]["test_cards"],
                        "epochs": sc.schedule.epochs},
            records=recs))
    result = Reenactment(scenes=per_scene, seeds=seed_ids, tolerance=float(tolerance), config=config)
    if out is not None:
        out = Path(out)
        write_text(out / "reenact.csv", result.csv_text())
        write_json(out / "reenact.json", result.to_json())
        result.page = Path(page) if page is not None else out / "REENACTMENT.md"
        drawn = result.page.with_name(result.page.stem.lower() + ".png")
        result.figure = drawn if draw(figure, result, drawn) else None
        figure_name = result.figure.name if result.figure is not None else None
        write_text(result.page, _reenact_markdown(result, figure=figure_name, note=note,
                                                  command=command or f"mark1 reenact --seeds {len(seed_ids)}"))
    return result


# ----------------------------------------------------------------------------------------
# the page


def _reenact_markdown(result: Reenactment, *, figure: str | None, command: str, note: str = "") -> str:
    """The Markdown page: how it was made, the rule, the readings, the table, the misses explained, the sources."""
    rows = result.rows()
    extra = f", widened by {result.tolerance * 100:g} points on each side" if result.tolerance else ""
    n = len(result.seeds)
    h = n // 2
    lines = [
        "# Re-enactment: each report judged under every reading of the machine",
        "",
        f"Generated by `{command}` over {n} seed(s) "
        f"(seeds {result.seeds[0]}..{result.seeds[-1]}); each seed draws new training and test cards and a "
        f"new machine (patch board, motor spread, noise). Regenerate this page with the same command; "
        f"it resumes from the records of an interrupted run (`--resume`).",
        "",
    ]
    if note:
        lines += [note, ""]
    lines += [
        f"**{result.headline_text()}.**",
        "",
        f"Under the rule of the page before issue 24 (band = reported ± 5 points, within when the mean lies "
        f"in it, every scene counted, project bands included): {result.previous_rule_headline()}.",
        "",
        "## The rule (one, symmetric)",
        "",
        f"**The band of a report is the project's choice**: the reported figure widened by half a unit of its "
        f"last digit (85 % covers 84.5-85.5 %; not for a lower bound), then by the 95 % Wilson interval of a "
        f"proportion measured on as many cards as the scene scores (its test cards, or its training cards for "
        f"recall; the reports' own test sizes are not recorded){extra}; a lower bound (\">\") reaches 100 %. "
        f"**within**: the 95 % t-interval of the mean over seeds lies inside the band; **OUT OF BAND**: it lies "
        f"entirely outside; **unclear**: otherwise. The seeds are split into halves (seeds "
        f"{result.seeds[0]}..{result.seeds[max(h - 1, 0)]} and {result.seeds[n - h] if h else result.seeds[-1]}.."
        f"{result.seeds[-1]}), each judged alike; a verdict whose halves disagree is marked *unstable* (†).",
        "",
        "The headline counts **each report once** and **only reports with a sourced number**: scenes that "
        "re-enact one report (the same source, conditions and figure: the outline and solid square-vs-circle "
        "scenes) are one report, whose verdict is theirs when they agree and unclear when they do not. A "
        "figure with no source found (X vs E) and the scenes judged on **the project's own bands** (*learned* "
        "[90 %, 100 %]; *chance* [40 %, 60 %] for Minsky and Papert's predicates, whose theorems give no "
        "accuracy on cards) are counted apart.",
        "",
        "## Readings",
        "",
        "Each column is the scene's machine (its size and settings) under one reading of "
        "`mark1.specs.PRESETS` (statuses as in `docs/MARK1_FACTS.md`):",
        "",
    ]
    for name, what in READINGS.values():
        lines.append(f"- `{name}`: {what}.")
    lines += [
        "",
        "A reading that is the same machine as the scene's is not trained again (4,096 pots where the code uses "
        "one R-unit: that unit then has a pot for every A-unit under both); one that cannot be built is `-` "
        "(64 a unit needs the A-units to divide among the 8 R-units: 500 do not). For more classes than "
        "R-units the binary code's words use all 8 R-units (`mark1/machine/response.py`), so for the alphabet "
        "and the typefaces `mark1-512` and `mark1-512-split-64` are one machine (64 A-units each); for two "
        "classes `mark1-512` and `mark1-4096` are. *Rack cost*: the digital "
        "learner (the analog retina and patch board with an ideal rack, `spec.digital()`) minus the scene's "
        "machine, paired over seeds, with its 95 % interval. *φ separable*: seeds in which least squares on the "
        "scene machine's φ or a long run of the perceptron fits every training card. The verdict counted is "
        "the one under the reading the scene names (`reported.reading`), argued below the table.",
        "",
    ]
    if figure:
        lines += [f"![accuracy of every scene against its report, on each machine]({figure})", ""]
    cols = " | ".join(f"`{name}`" for name, _ in READINGS.values())
    lines += [f"| scene | machine (sources) | report | scored | band (project's) | {cols} | rack cost [95 %] "
              f"| φ separable | counted | verdict |",
              "|---|---|---|---|---|" + "---:|" * len(READINGS) + "---:|---:|---|---|"]
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
                cell += " " + ("**OUT**" if v == "OUT OF BAND" else v) + (" †" if r[f"{key}unstable"] else "")
            if prefix == r["primary_prefix"]:
                cell = f"▶ {cell}"
            cells.append(cell)
        gap = "-" if math.isnan(r["rack_gap_low"]) else (f"{r['rack_gap'] * 100:+.1f} "
                                                         f"[{r['rack_gap_low'] * 100:+.1f}, "
                                                         f"{r['rack_gap_high'] * 100:+.1f}]")
        flag = "**OUT OF BAND**" if r["verdict"] == "OUT OF BAND" else r["verdict"]
        flag += " †" if r["unstable"] else ""
        lines.append(f"| {r['scene']} (`{Path(r['file']).name}`) | {r['machine']} | {rep} | {r['scored']} | "
                     f"{band_text} | {' | '.join(cells)} | {gap} | {r['separated_seeds']} of {r['n']} | "
                     f"`{READINGS[r['primary_prefix']][0]}` | {flag} |")
    lines += ["", "▶ the reading counted; † the two halves of the seeds disagree (unstable).", ""]
    lines += ["## The reports, each once", "",
              "| report | kind | scenes | verdict counted | halves (first / second) |", "|---|---|---|---|---|"]
    for report in result.reports():
        scenes = ", ".join(f"`{Path(r['file']).name}`" for r in report["scenes"])
        halves = "; ".join(f"{r['halves'][0] or '-'} / {r['halves'][1] or '-'}" for r in report["scenes"])
        flag = report["verdict"] + (" (unstable)" if report["unstable"] else "")
        lines.append(f"| {report['name']} | {report['kind']} | {scenes} | {flag} | {halves} |")
    unstable = [(r["scene"], READINGS[p][0]) for r in rows for p in READINGS if r[f"{p or 'analog_'}unstable"]]
    lines += ["", "Unstable verdicts (the halves disagree): "
              + ("; ".join(f"{s} under `{name}`" for s, name in unstable) if unstable else "none") + ".", ""]
    lines += ["## The reading counted, argued", ""]
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
