"""Re-enactment: every catalog scene, over seeds, judged on the machine that made its report.

``mark1 reenact [SCENES...] --seeds N`` trains, for each scene and seed, on the same
cards and patch board (so the same wiring):

* the scene's **analog** machine (its ``[machine]``: a Mark I reading of
  :data:`mark1.specs.PRESETS`),
* the **other rack reading** of that machine (4,096 pots all-to-all against 512 pots
  split among the R-units), where the A-units divide among the R-units,
* the **digital** learner (``spec.digital()``: the same retina and patch board, an
  ideal rack), the paired comparison that prices the rack,
* the **IBM 704** perceptron of the same size (``spec.ideal()``: every non-ideality off,
  ideal retina, the ``ibm704`` reading),

and tests on the same φ whether the training cards are separable at all (least squares
on φ, and a long run of the digital learner). A report is judged on the machine the
sources say made it (``reported.machine`` and ``reported.reading``: the analog machine for
a Mark I report, the IBM 704 perceptron for a 704 report, both side by side where the
attribution is contradictory or no machine is named), on what the report scored
(``reported.scored``: new cards, or recall of the trained cards). One page, Markdown and a
figure (:func:`mark1.viz.studies.reenact_figure`).

The band of a report
--------------------
The reports are secondary, rounded, and their test sets are not recorded. A reported
value ``v`` is read as the band ``[v - tolerance, v + tolerance]`` (clipped to
[0, 1]; ``tolerance`` 0.05 by default, about the 95 % sampling error of an accuracy
near 90 % measured on 100 test cards). A report that is a lower bound ("more than
80 %": the scene's ``[reported]`` note or conditions say "more than", "at least" or
"lower bound") is read as ``[v, 1]``. A report without a number has the project's own
band, labelled so: ``expect = "learned"`` is [90 %, 100 %], ``expect = "chance"`` (Minsky
and Papert's predicates) [40 %, 60 %]. A seed *meets the report* when its accuracy is at
or above the band's low end. The verdict of one machine on a scene:

``within``       the simulated mean lies in the band;
``OUT OF BAND``  the 95 % interval of the mean lies entirely outside it (flagged);
``unclear``      the mean lies outside but its interval reaches into the band.

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
from mark1.specs import BEST_READING
from mark1.stimuli.cards import experiment_seeds
from mark1.stimuli.scenes import Reported, load_scene, shipped_scenes

__all__ = ["reenact", "Reenactment", "DEFAULT_TOLERANCE", "band", "verdict", "catalog", "judged"]

#: Half-width of the band around a reported value (fraction of accuracy).
DEFAULT_TOLERANCE = 0.05

#: The project's own bands for reports without a number (``reported.expect``), fractions.
EXPECT_BANDS = {"learned": (0.90, 1.0), "chance": (0.40, 0.60)}

#: The learners of one job, by prefix of their fields: analog, other rack reading, digital, IBM 704.
LEARNERS = {"": "analog", "alt_": "other rack reading", "digital_": "digital", "ideal_": "IBM 704"}

#: Columns of ``reenact.csv``: one row per (scene, seed).
REENACT_FIELDS = ("scene_file", "seed", "train_cards", "test_cards", "test_accuracy", "train_accuracy",
                  "machine_time_s",
                  "alt_test_accuracy", "alt_train_accuracy",
                  "digital_test_accuracy", "digital_train_accuracy",
                  "ideal_test_accuracy", "ideal_train_accuracy",
                  "ls_train_accuracy", "long_train_accuracy", "long_epochs", "wall_time_s",
                  "seed_train", "seed_test", "seed_machine")

#: Most card presentations of the long perceptron run of the separability test.
LONG_PRESENTATIONS = 100_000
#: Most passes of that run.
LONG_EPOCHS = 200

_LOWER_BOUND = re.compile(r"more than|at least|lower bound", re.IGNORECASE)


def _is_lower_bound(reported) -> bool:
    """Whether a scene's report is a lower bound ("more than 80 %")."""
    return reported.value is not None and bool(_LOWER_BOUND.search(f"{reported.note} {reported.conditions}"))


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


def band(reported: Reported, tolerance: float = DEFAULT_TOLERANCE) -> tuple[float, float]:
    """The accuracies that agree with a report: ``(low, high)``, fractions.

    ``[value - tolerance, value + tolerance]`` clipped to [0, 1], or ``[value, 1]`` for
    a lower bound ("more than", "at least" or "lower bound" in the report's note or
    conditions); for a report without a number, the project's band of its expectation
    (:data:`EXPECT_BANDS`).

    Parameters
    ----------
    reported : mark1.stimuli.scenes.Reported
        A scene's ``[reported]`` table (``scene.reported``).
    tolerance : float
        Half-width of the band, fraction of accuracy.

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
    >>> band(Reported(value=0.9))
    (0.85, 0.95)
    >>> band(Reported(value=0.8, note="reported as more than 80 %"))
    (0.8, 1.0)
    >>> band(Reported(expect="chance"))
    (0.4, 0.6)
    """
    v = reported.value
    if v is None:
        if reported.expect is not None:
            return EXPECT_BANDS[reported.expect]
        raise InputError("reported.value: the scene reports no figure and no expectation, so it has no band")
    if _is_lower_bound(reported):
        return float(v), 1.0
    return max(0.0, v - tolerance), min(1.0, v + tolerance)


def verdict(mean: float, low: float, high: float, band_: tuple[float, float]) -> str:
    """``"within"``, ``"OUT OF BAND"`` or ``"unclear"`` (see the module docstring).

    Parameters
    ----------
    mean, low, high : float
        The simulated mean accuracy and its 95 % interval (fractions); NaN ends
        with one seed, where the mean alone decides (outside the band is out of band).
    band_ : (float, float)
        The band of the report (:func:`band`).

    Returns
    -------
    str

    Examples
    --------
    >>> verdict(0.97, 0.95, 0.99, (0.95, 1.0))
    'within'
    >>> verdict(0.80, 0.75, 0.85, (0.95, 1.0)), verdict(0.93, 0.90, 0.96, (0.95, 1.0))
    ('OUT OF BAND', 'unclear')
    """
    b_lo, b_hi = band_
    eps = 1e-12
    if b_lo - eps <= mean <= b_hi + eps:
        return "within"
    if math.isnan(low) or math.isnan(high) or high < b_lo - eps or low > b_hi + eps:
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


def _other_rack(spec):
    """The other rack reading of a Mark I spec (all <-> split), or None where it cannot be built."""
    if spec.is_ideal:
        return None
    other = "split" if spec.rack.topology == "all" else "all"
    if other == "split" and spec.patchboard.n_associators % spec.response.n_responses:
        return None
    return spec.with_overrides({"rack.topology": other, "name": f"{spec.name} ({other} rack)"})


def _alt_name(spec) -> str | None:
    """'4,096 pots' or '512 pots (split)': the other rack reading's name, or None."""
    alt = _other_rack(spec)
    if alt is None:
        return None
    return "512 pots (split)" if alt.rack.topology == "split" else "4,096 pots (all-to-all)"


def _least_squares_fit(phi: np.ndarray, labels: np.ndarray, spec) -> float:
    """Training accuracy of least squares on φ through the machine's own wiring and code.

    Each R-unit in use is fitted to its ±1 targets (the machine's output code) from the
    inputs its pots connect (every A-unit, or its own group under the split rack, and
    the bias pot where the rack has one); the sums are read as the machine reads them.
    """
    classes = np.unique(labels)
    code = OutputCode(classes, spec.response)
    y = np.searchsorted(classes, labels)
    x = np.hstack([phi.astype(float), np.ones((len(phi), 1))])
    n_a = phi.shape[1]
    per = n_a // spec.response.n_responses if spec.rack.topology == "split" else n_a
    sums = np.zeros((len(y), code.n_units))
    for k in range(code.n_units):
        cols = list(range(k * per, k * per + per)) if spec.rack.topology == "split" else list(range(n_a))
        if spec.rack.bias:
            cols.append(n_a)
        xs = x[:, cols]
        w = np.linalg.lstsq(xs, code.targets[y, k].astype(float), rcond=None)[0]
        sums[:, k] = xs @ w
    return float(np.mean(code.decode(sums) == y))


@job
def _reenact_job(scene_ref, seed: int, train_count: int | None = None, test_count: int | None = None) -> dict:
    """One seed of one scene: its machine, the other rack reading, the digital learner and the
    IBM 704 perceptron, all on the same cards and machine seed (so the same patch board), and
    the separability test on the analog machine's φ.

    Top level and picklable. Returns the fields of :data:`REENACT_FIELDS`.
    """
    scene = as_scene(scene_ref)
    train, test, seed_machine = run_cards(scene, seed, train_count, test_count)
    spec = scene.machine_spec()
    t0 = time.perf_counter()
    rec: dict[str, Any] = {"scene_file": str(scene.path) if scene.path else scene.name, "seed": int(seed),
                           "train_cards": int(len(train.cards)), "test_cards": int(len(test.cards))}
    fit = dict(epochs=scene.schedule.epochs, order=scene.schedule.order)
    alt = _other_rack(spec)
    # the IBM 704 perceptron: the ibm704 reading (every non-ideality off, every A-unit to every output)
    ibm704 = spec.ideal().with_overrides({"rack.topology": "all"})
    for prefix, s in (("", spec), ("alt_", alt), ("digital_", spec.digital()), ("ideal_", ibm704)):
        if s is None:
            rec[f"{prefix}train_accuracy"] = rec[f"{prefix}test_accuracy"] = None
            continue
        m = MarkI(spec=s, seed=seed_machine).fit(train.cards, train.labels, **fit)
        rec[f"{prefix}train_accuracy"] = float(m.score(train.cards, train.labels))
        rec[f"{prefix}test_accuracy"] = float(m.score(test.cards, test.labels))
        if not prefix:
            rec["machine_time_s"] = float(m.machine_time_)
            rec["ls_train_accuracy"] = _least_squares_fit(m.associate(m.sense(train.cards)), train.labels, s)
    # a long run of the perceptron on the same φ (the digital learner keeps the analog retina and board)
    long_epochs = max(1, min(LONG_EPOCHS, LONG_PRESENTATIONS // len(train.cards)))
    m = MarkI(spec=spec.digital(), seed=seed_machine).fit(train.cards, train.labels, epochs=long_epochs,
                                                           order=scene.schedule.order)
    rec["long_train_accuracy"] = float(m.score(train.cards, train.labels))
    rec["long_epochs"] = long_epochs
    rec["wall_time_s"] = time.perf_counter() - t0
    rec["seed_train"], rec["seed_test"], rec["seed_machine"] = experiment_seeds(seed)
    return rec


# ----------------------------------------------------------------------------------------
# the result


def _primary(reported) -> str:
    """The learner a report is judged on: the IBM 704 perceptron for a 704 reading, else the analog machine."""
    if reported.get("reading") == "ibm704" or (reported.get("reading") is None
                                               and reported.get("machine") == "ibm704"):
        return "ideal_"
    return ""


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

    def _values(self, key: str) -> list[float]:
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

    def _stat(self, prefix: str, what: str | None = None) -> tuple[float, float, float]:
        vals = [v for v in self._values(f"{prefix}{what or self.scored}_accuracy") if v is not None]
        if not vals:
            return math.nan, math.nan, math.nan
        return clip_interval(mean_interval(vals), 0.0, 1.0)

    def summary(self) -> dict:
        """Per learner: mean and 95 % interval of the judged accuracy, and its verdict; the primary verdict,
        the paired rack cost, the separability test and the explanation of a miss."""
        out: dict[str, Any] = {"n": len(self.records), "scored": self.scored, "project_band": self.project_band,
                               "primary": LEARNERS[_primary(self.reported)]}
        for prefix in LEARNERS:
            mean, low, high = self._stat(prefix)
            out[f"{prefix}mean"], out[f"{prefix}low"], out[f"{prefix}high"] = mean, low, high
            out[f"{prefix or 'analog_'}verdict"] = "" if math.isnan(mean) else verdict(mean, low, high, self.band)
            out[f"{prefix}train_mean"] = self._stat(prefix, "train")[0]
            out[f"{prefix}test_mean"] = self._stat(prefix, "test")[0]
        p = _primary(self.reported)
        acc = [v for v in self._values(f"{self.scored}_accuracy")]
        judged_acc = self._values(f"{p}{self.scored}_accuracy")
        out["meeting"] = float(np.mean([a >= self.band[0] - 1e-12 for a in judged_acc]))
        gap = [d - a for d, a in zip(self._values(f"digital_{self.scored}_accuracy"), acc)]
        out["rack_gap"], out["rack_gap_low"], out["rack_gap_high"] = mean_interval(gap)
        ls, long_ = self._values("ls_train_accuracy"), self._values("long_train_accuracy")
        out["ls_train_mean"], out["long_train_mean"] = float(np.mean(ls)), float(np.mean(long_))
        out["separated_seeds"] = int(sum(a >= 1.0 or b >= 1.0 for a, b in zip(ls, long_)))
        out["long_epochs"] = int(self.records[0].get("long_epochs", 0))
        out["machine_hours"] = float(np.mean([t / 3600.0 for t in self._values("machine_time_s")]))
        out["verdict"] = out[f"{p or 'analog_'}verdict"]
        out["judged_mean"], out["judged_low"], out["judged_high"] = out[f"{p}mean"], out[f"{p}low"], out[f"{p}high"]
        out["explanation"] = self.explain(out)
        return out

    def explain(self, s: dict) -> str:
        """A line on what may explain a miss of the primary machine ("" for a result within its band).

        Every clause is read from a measurement of this scene on the same seeds: whether
        the training cards are separable on φ at all (least squares and a long perceptron
        run), the paired analog-digital difference (the rack's cost, claimed only when
        its 95 % interval excludes 0), whether the IBM 704 perceptron (ideal retina too)
        reaches the band.
        """
        if s["verdict"] == "within":
            return ""
        p = _primary(self.reported)
        name = "the IBM 704 perceptron" if p else "the analog machine"
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
        if not p:
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
                parts.append(f"the IBM 704 perceptron of this size lies in the band ({percent(s['ideal_mean'])})")
            elif s["ideal_mean"] > self.band[1]:
                parts.append(f"the IBM 704 perceptron of this size scores above the band ({percent(s['ideal_mean'])})")
        else:
            parts.append(f"the analog machine scores {percent(s['mean'])}")
        return "; ".join(parts)


@dataclass
class Reenactment:
    """Every scene of a re-enactment, over the same seeds.

    Attributes
    ----------
    scenes : list of SceneResult
        One per scene: its report, its band and its seeds' records.
    seeds : list of int
    tolerance : float
        Half-width of a report's band (fraction).
    config : dict
        What identifies the run (card counts, each scene file's digest).
    page, figure : pathlib.Path or None
        The Markdown page and its figure as written (None where nothing was).

    Examples
    --------
    >>> result = reenact(["scenes/e_vs_x.toml"], seeds=1, train_count=4, test_count=4)
    >>> row = result.rows()[0]
    >>> row["scene"], row["reported"], row["band_low"], row["primary"]
    ('X vs E, rotation up to 30 degrees, 20 training cards', 1.0, 0.95, 'analog')
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

    def _cells(self) -> tuple[tuple, list, str]:
        """The table's head, its rows (cells as text) and the line under it."""
        rows = self.rows()
        head = ("scene", "report", "scored", "analog [95 %]", "704", "digital", "judged on", "verdict")
        cells = [(r["scene"], _report_text(r), r["scored"], _interval(r["mean"], r["low"], r["high"]),
                  percent(r["ideal_mean"]), percent(r["digital_mean"]), r["primary"], r["verdict"]) for r in rows]
        n_in = sum(r["verdict"] == "within" for r in rows)
        n_out = sum(r["verdict"] == "OUT OF BAND" for r in rows)
        under = (f"{n_in} within band, {n_out} out of band, {len(rows) - n_in - n_out} unclear "
                 f"({len(self.seeds)} seed(s); band = reported ± {self.tolerance * 100:g} points, "
                 f"[reported, 100 %] for a lower bound, the project's band where no number is reported)")
        return head, cells, under

    def table(self) -> str:
        """A plain-text table, one line per scene, with the verdicts."""
        head, cells, under = self._cells()
        w = max([len(c[0]) for c in cells] + [5])
        lines = [f"{'scene':<{w}}  {'report':>9}  {'scored':>6}  {'analog [95 %]':>25}  {'704':>7}  "
                 f"{'digital':>8}  judged on  verdict"]
        lines += [f"{c[0]:<{w}}  {c[1]:>9}  {c[2]:>6}  {c[3]:>25}  {c[4]:>7}  {c[5]:>8}  {c[6]:<9}  {c[7]}"
                  for c in cells]
        lines.append(under)
        return "\n".join(lines)

    def __repr__(self) -> str:
        verdicts = [r["verdict"] for r in self.rows()]
        n_in, n_out = verdicts.count("within"), verdicts.count("OUT OF BAND")
        return clip(f"Reenactment({len(self.scenes)} scenes, {len(self.seeds)} seed(s): {n_in} within band, "
                    f"{n_out} out of band, {len(verdicts) - n_in - n_out} unclear)")

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
        Half-width of a report's band (fraction), in [0, 0.5].
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
    config = {"study": "reenact", "version": 3, "train_count": train_count, "test_count": test_count,
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
            band=band(rep, tolerance), lower_bound=_is_lower_bound(rep),
            conditions={"a_units": sc.machine_spec().patchboard.n_associators, "preset": sc.preset,
                        "machine": sc.machine_spec().name,
                        "alt": _alt_name(sc.machine_spec()),
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
        write_text(result.page, _reenact_markdown(result, figure=result.figure and result.figure.name, note=note,
                                                  command=command or f"mark1 reenact --seeds {len(seed_ids)}"))
    return result


# ----------------------------------------------------------------------------------------
# the page


def _reenact_markdown(result: Reenactment, *, figure: str | None, command: str, note: str = "") -> str:
    """The Markdown page: how it was made, the best reading, the table, the misses explained, the sources."""
    rows = result.rows()
    n_in = sum(r["verdict"] == "within" for r in rows)
    n_out = sum(r["verdict"] == "OUT OF BAND" for r in rows)
    tol = result.tolerance * 100
    lines = [
        "# Re-enactment: each report judged on the machine that made it",
        "",
        f"Generated by `{command}` over {len(result.seeds)} seed(s) "
        f"(seeds {result.seeds[0]}..{result.seeds[-1]}); each seed draws new training and test cards and a "
        f"new machine (patch board, motor spread, noise). Regenerate this page with the same command; "
        f"it resumes from the records of an interrupted run (`--resume`).",
        "",
    ]
    if note:
        lines += [note, ""]
    lines += [
        f"**{n_in} of {len(rows)} scenes within band on the machine that made the report, {n_out} out of band, "
        f"{len(rows) - n_in - n_out} unclear.**",
        "",
        "## Readings",
        "",
        f"The sources disagree on the Mark I's rack (`docs/MARK1_FACTS.md`): the only pot count they state is "
        f"\"512 motor-driven potentiometers\" (one pot per A-unit, each A-unit feeding one R-unit), and "
        f"Rosenblatt's designs (the Project PARA report of 1957: \"each A-set connects to only one R-set\"; "
        f"1958: disjoint source sets \"essential\") agree with it; 512 x 8 = 4,096 pots all-to-all is an "
        f"inference no source states. The project's best reading of the Mark I is therefore "
        f"`{BEST_READING}` (argued in `mark1/specs.py` before this run; the equal division of the A-units among "
        f"the R-units is assumed). The other rack reading runs beside it on the same wiring. Reports of the "
        f"IBM 704 are judged on the `ibm704` reading: the textbook perceptron (every non-ideality off, ideal "
        f"retina) with the reported number of A-units. Where the sources credit a report to both machines "
        f"(contradictory) or to none, both are shown and the scene's `reading` names the verdict counted above.",
        "",
        "## How to read the table",
        "",
        f"The band of a report is the reported accuracy ± {tol:g} points (the reports are secondary, "
        f"rounded, and their test sets are not recorded; {tol:g} points is about the 95 % sampling error "
        f"of an accuracy near 90 % measured on 100 test cards), or [reported, 100 %] when the report is a "
        f"lower bound (\">\"). A report without a number has **the project's own band** (in italics): "
        f"*learned* [90 %, 100 %], *chance* [40 %, 60 %] for Minsky and Papert's predicates, whose theorems "
        f"give no accuracy on cards. *Scored*: what the report scored, *new* cards (the test split) or "
        f"*recall* of the trained cards; every accuracy in a row is of that kind. **within**: the mean "
        f"lies in the band; **OUT OF BAND**: the 95 % t-interval of the mean lies entirely outside it; "
        f"**unclear**: the mean lies outside, its interval reaches in. *Analog*: the scene's machine; "
        f"*other rack*: the same machine under the other pot reading; *IBM 704*: the ibm704 reading of "
        f"the same size; *rack cost*: digital learner (the analog retina and patch board with an ideal "
        f"rack, `spec.digital()`) minus analog, paired over seeds, with its 95 % interval. *φ separable*: "
        f"seeds in which least squares on the analog machine's φ or a long run of the perceptron fits every "
        f"training card.",
        "",
    ]
    if figure:
        lines += [f"![accuracy of every scene against its report, on each machine]({figure})", ""]
    lines += ["| scene | machine (sources) | scored | report | analog | other rack | IBM 704 | rack cost "
              "[95 %] | φ separable | judged on | verdict |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        rep = _report_text(r)
        if r["project_band"]:
            rep = f"*{r['expect']}: {percent(r['band_low'], 0)}-{percent(r['band_high'], 0)}*"
        cells = []
        for p in ("", "alt_", "ideal_"):
            v = r[f"{p or 'analog_'}verdict"]
            cell = _interval(r[f"{p}mean"], r[f"{p}low"], r[f"{p}high"])
            cells.append(cell if not v else f"{cell} {'**OUT**' if v == 'OUT OF BAND' else v}")
        gap = "-" if math.isnan(r["rack_gap_low"]) else (f"{r['rack_gap'] * 100:+.1f} "
                                                         f"[{r['rack_gap_low'] * 100:+.1f}, "
                                                         f"{r['rack_gap_high'] * 100:+.1f}]")
        flag = "**OUT OF BAND**" if r["verdict"] == "OUT OF BAND" else r["verdict"]
        judged_on = "IBM 704" if r["primary"] == "IBM 704" else f"analog (`{r['reading'] or 'scene machine'}`)"
        lines.append(f"| {r['scene']} (`{Path(r['file']).name}`) | {r['machine']} | {r['scored']} | {rep} | "
                     f"{cells[0]} | {cells[1]} | {cells[2]} | {gap} | {r['separated_seeds']} of {r['n']} | "
                     f"{judged_on} | {flag} |")
    misses = [r for r in rows if r["verdict"] != "within"]
    if misses:
        lines += ["", "## What may explain a miss (each clause measured on the same seeds)", ""]
        for r in misses:
            lines.append(f"- **{r['scene']}** ({r['verdict']}, {percent(r['judged_mean'])} against "
                         f"{_report_text(r) if not r['project_band'] else 'the project band'}): "
                         f"{r['explanation']}.")
    lines += ["", "## The reports", ""]
    for sc in result.scenes:
        rep = sc.reported
        extra = f" — {rep['note']}" if rep.get("note") else ""
        c = sc.conditions
        lines.append(f"- **{sc.name}**: {rep.get('conditions', '')}. Source: {rep.get('source', '')}{extra}. "
                     f"Machine in the sources: {rep.get('machine')}; scored: {rep.get('scored')}. "
                     f"Here: {c['machine']} (preset `{c['preset']}`), {c['a_units']} A-units"
                     f"{'; other rack: ' + c['alt'] if c.get('alt') else ''}; {c['train_cards']} training cards "
                     f"× {c['epochs']} epochs, {c['test_cards']} test cards.")
    lines.append("")
    return "\n".join(lines)
