"""Every catalog scene, three seeds: the same bits as recorded in ``data/catalog_digests.json``.

A change that must not change results (a refactor, a faster kernel) proves it here: the
cards, the history, the wipers, the machine time, the read sums, the full trace, the test
score and each textbook classifier's decision values are hashed and compared with the
digests recorded before the change. To record new digests after a change that is meant
to change results, run ``python tests/test_bit_for_bit.py tests/data/catalog_digests.json``
and say so in the commit.
"""

from __future__ import annotations

import hashlib
import subprocess
import json
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest

import mark1
from mark1 import linear_model as linear_model
from mark1.stimuli.cards import scene_cards

ROOT = Path(__file__).resolve().parents[1]
DIGESTS = Path(__file__).with_name("data") / "catalog_digests.json"
SEEDS = (0, 1, 2)
ESTIMATORS = ("LeastSquaresClassifier", "FisherDiscriminant", "GaussianClassifier", "LogisticRegression",
              "Perceptron")


def _digest(*arrays) -> str:
    d = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        d.update(str(a.dtype).encode())
        d.update(str(a.shape).encode())
        d.update(a.tobytes())
    return d.hexdigest()[:16]


def scene_digests(scene_file: str, seed: int) -> dict[str, str]:
    """The digests of one catalog scene's run with one seed."""
    scene = mark1.load_scene(ROOT / "scenes" / scene_file)
    train, test, machine_seed = scene_cards(scene, seed)
    m = mark1.MarkI(spec=scene.machine_spec(), seed=machine_seed, trace="full")
    m.fit(train.cards, train.labels, epochs=scene.schedule.epochs, order=scene.schedule.order, progress=False)
    history = m.history_
    record = {
        "cards": _digest(train.cards, train.labels, test.cards, test.labels),
        "history": _digest(*[history[f] for f in history.dtype.names]),
        "wipers": _digest(m.rack_.positions(m.machine_time_)),
        "machine_time": repr(m.machine_time_),
        "read_sums": _digest(m.read_sums_),
        "trace_csv": hashlib.sha256(m.trace_.to_csv().encode()).hexdigest()[:16],
        "test_score": repr(m.score(test.cards, test.labels)),
    }
    if seed == 0:                                 # the textbook classifiers on the machine's S-units
        S, S_test = m.sense(train.cards).astype(float), m.sense(test.cards).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name in ESTIMATORS:
                estimator = getattr(linear_model, name)().fit(S, train.labels)
                record[name] = _digest(np.asarray(estimator.decision_function(S_test)))
    return record


def run_digests(tmp: Path) -> dict[str, str]:
    """The digests of what ``mark1 run scenes/demo.toml --seed 0`` writes (wall time aside)."""

    out = tmp / "demo"
    subprocess.run([sys.executable, "-m", "mark1", "run", "scenes/demo.toml", "--seed", "0", "--out", str(out),
                    "--json"], cwd=ROOT, check=True, capture_output=True)
    summary = json.loads((out / "summary.json").read_text())
    summary.pop("wall_time_s")
    return {"summary.json": hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()[:16],
            "trace.csv": hashlib.sha256((out / "trace.csv").read_bytes()).hexdigest()[:16]}


def _cases():
    return [(f, s) for f in sorted(p.name for p in (ROOT / "scenes").glob("*.toml")) for s in SEEDS]


@pytest.mark.parametrize(("scene_file", "seed"), _cases())
def test_catalog_scene_gives_the_recorded_bits(scene_file, seed):
    recorded = json.loads(DIGESTS.read_text())[f"{scene_file}:{seed}"]
    assert scene_digests(scene_file, seed) == recorded


def test_mark1_run_writes_the_recorded_bits(tmp_path):
    assert run_digests(tmp_path) == json.loads(DIGESTS.read_text())["mark1 run scenes/demo.toml --seed 0"]


def test_every_catalog_scene_has_recorded_digests():
    recorded = json.loads(DIGESTS.read_text())
    assert set(recorded) == {f"{f}:{s}" for f, s in _cases()} | {"mark1 run scenes/demo.toml --seed 0"}


if __name__ == "__main__":                        # record: python tests/test_bit_for_bit.py OUT.json

    out = {f"{f}:{s}": scene_digests(f, s) for f, s in _cases()}
    with tempfile.TemporaryDirectory() as tmp:
        out["mark1 run scenes/demo.toml --seed 0"] = run_digests(Path(tmp))
    Path(sys.argv[1]).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
