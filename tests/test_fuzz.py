"""Fuzzing the scene files: mutated copies of the shipped scenes, never a traceback.

Each mutant (seeded: the same mutants every run) goes through the scene loader and
through ``mark1 run`` in-process. Every one must end in a result (exit 0, a summary
written) or a scene error (exit 2, one line on stderr naming the file), within a time
limit. The shipped scenes are first shrunk to one or two cards per class and one epoch so
that a run takes a fraction of a second; mutations may then make them large again, which
the memory budget (``--memory-limit``) must refuse before drawing a card.

Mutations: a value replaced by a hostile one (NaN, inf, 1e308, huge integers, wrong
types, empty or very long strings, deep tables), a key deleted, an unknown key added, a
machine override added (also in a second spelling), and damage to the text itself
(lines deleted, duplicated, swapped, truncated, bytes flipped).

The default run fuzzes a few hundred mutants with the learning-curve figure stubbed out
(plotting has tests of its own); ``-m slow`` fuzzes more, with the figure drawn.
"""

from __future__ import annotations

import contextlib
import json
import math
import signal
import tomllib
from pathlib import Path

import numpy as np
import pytest

from mark1 import specs
from mark1.cli import main
from mark1.stimuli.scenes import SceneError, load_scene, shipped_scenes

#: Seconds one mutant may take through the loader and the run.
TIME_LIMIT = 60

HOSTILE = [0, -1, 1, 2, 7, 10**6, 2**62, 2**63 + 1, -(2**63), 0.0, -0.0, 0.5, -1.5, 1e-320, 1e308, -1e308,
           math.inf, -math.inf, math.nan, True, False, "", " ", "x" * 300, "inf", "nan", "\u202e\x00",
           "../../etc/passwd", "/dev/zero", [], [1], [0, 1], [1, 0], [math.nan, 1], [1, 2, 3], ["a", "a"],
           [[1]], {}, {"a": 1}, {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}}]


# a TOML writer (tomllib only reads): the one the scene tests use
from test_scenes import dump_toml as to_toml  # noqa: E402


# ---------------------------------------------------------------------------------------
# the seed scenes and their mutants


def _small(data: dict) -> dict:
    """A shipped scene shrunk to run in a fraction of a second: few cards, one epoch."""
    scene = load_scene_from(data)
    n_classes = len(scene.classes)
    data = json.loads(json.dumps(data))
    for split in ("train", "test"):
        # a split printed in two faces needs a card per class in each face
        faces = 2 if any("second_font" in data.get(t, {}) for t in ("stimuli", split)) else 1
        data.setdefault(split, {})["count"] = n_classes * faces
    data.setdefault("schedule", {})["epochs"] = 1
    over = data.setdefault("machine", {}).setdefault("overrides", {})
    pb = over.setdefault("patchboard", {}) if isinstance(over.get("patchboard", {}), dict) else {}
    if not any(k.startswith("patchboard.n_associators") for k in over) and "n_associators" not in pb:
        pb["n_associators"] = 64
    return data


def load_scene_from(data: dict):
    from mark1.stimuli.scenes import scene_from_dict
    return scene_from_dict(data, path="seed.toml", base_dir=Path(shipped_scenes()[0]).parent)


def _leaves(d, prefix=()):
    for k, v in d.items():
        if isinstance(v, dict) and v:
            yield from _leaves(v, (*prefix, k))
        else:
            yield (*prefix, k)


def _set(d, path, value):
    for k in path[:-1]:
        d = d.setdefault(k, {})
        if not isinstance(d, dict):
            return
    d[path[-1]] = value


def _delete(d, path):
    for k in path[:-1]:
        d = d.get(k)
        if not isinstance(d, dict):
            return
    d.pop(path[-1], None)


def mutate(data: dict, text: str, rng: np.random.Generator) -> bytes:
    """One mutant of a scene (its parsed ``data`` and its ``text``), as file bytes."""
    kind = rng.integers(0, 10)
    if kind <= 6:                                   # structured: 1 to 3 changes of the data
        d = json.loads(json.dumps(data))
        for _ in range(int(rng.integers(1, 4))):
            leaves = list(_leaves(d))
            op = rng.integers(0, 6)
            if op <= 1 and leaves:
                path = leaves[rng.integers(len(leaves))]
                _set(d, path, HOSTILE[rng.integers(len(HOSTILE))])
            elif op == 2 and leaves:
                _delete(d, leaves[rng.integers(len(leaves))])
            elif op == 3:
                tables = ["", "stimuli", "train", "test", "schedule", "reported", "machine", "stimuli.jitter"]
                t = tables[rng.integers(len(tables))]
                _set(d, (*[x for x in t.split(".") if x], f"colour{rng.integers(9)}"),
                     HOSTILE[rng.integers(len(HOSTILE))])
            else:
                key = specs.parameter_keys()[rng.integers(len(specs.parameter_keys()))]
                value = HOSTILE[rng.integers(len(HOSTILE))] if rng.random() < 0.7 else \
                    specs.MARK_I.get(key) * 10.0 ** int(rng.integers(-3, 4)) \
                    if isinstance(specs.MARK_I.get(key), (int, float)) else specs.MARK_I.get(key)
                if isinstance(value, tuple):
                    value = list(value)
                over = d.setdefault("machine", {}).setdefault("overrides", {})
                if isinstance(over, dict):
                    if rng.random() < 0.2:               # the same parameter in a second spelling
                        over[key] = value
                    group, name = key.split(".")
                    if isinstance(over.setdefault(group, {}), dict):
                        over[group][name] = value
        return to_toml(d).encode("utf-8")
    lines = text.splitlines(keepends=True)
    if kind == 7 and len(lines) > 1:                # lines deleted, duplicated or swapped
        for _ in range(int(rng.integers(1, 4))):
            i, j = rng.integers(len(lines)), rng.integers(len(lines))
            op = rng.integers(3)
            if op == 0:
                del lines[i]
            elif op == 1:
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            if not lines:
                break
        return "".join(lines).encode("utf-8")
    raw = bytearray(text.encode("utf-8"))
    if kind == 8:                                   # truncated
        return bytes(raw[: rng.integers(0, len(raw) + 1)])
    for _ in range(int(rng.integers(1, 6))):        # bytes flipped
        raw[rng.integers(len(raw))] = int(rng.integers(0, 256))
    return bytes(raw)


def seeds() -> list[tuple[dict, str]]:
    out = []
    for p in shipped_scenes():
        data = _small(tomllib.loads(p.read_text()))
        out.append((data, to_toml(data)))
    return out


# ---------------------------------------------------------------------------------------
# the check


class Hang(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: int):
    """A hang detector on this process's CPU time (SIGPROF), not on the wall clock, so a
    machine busy with other work cannot make a mutant look hung."""
    def alarm(signum, frame):
        raise Hang(f"no result within {seconds} s of CPU time")
    old = signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def check_mutant(path: Path, out: Path, capsys) -> str:
    """Load and run one mutant: 'result' or 'scene error'; anything else fails the test."""
    try:
        load_scene(path)
    except SceneError as e:
        assert "\n" not in str(e) and str(path) in str(e), str(e)
    capsys.readouterr()
    rc = main(["run", str(path), "--out", str(out), "--memory-limit", "2"])
    captured = capsys.readouterr()
    if rc == 0:
        assert (out / "summary.json").is_file()
        return "result"
    lines = captured.err.strip().splitlines()
    assert rc == 2, (rc, captured.err[-2000:])
    assert len(lines) == 1 and lines[0].startswith("mark1: error: ") and str(path) in lines[0], lines
    return "scene error"


def fuzz(tmp_path, capsys, n: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    base = seeds()
    outcomes: dict[str, int] = {}
    for i in range(n):
        data, text = base[rng.integers(len(base))]
        path = tmp_path / f"mutant_{i:04d}.toml"
        path.write_bytes(mutate(data, text, rng))
        try:
            with time_limit(TIME_LIMIT):
                result = check_mutant(path, tmp_path / f"out_{i:04d}", capsys)
        except Hang:
            pytest.fail(f"{path} took more than {TIME_LIMIT} s of CPU time:\n{path.read_bytes()[:2000]!r}")
        except AssertionError as e:
            pytest.fail(f"{path}: {e}\n{path.read_bytes()[:2000]!r}")
        except BaseException as e:                       # a traceback the user would see
            pytest.fail(f"{path}: {type(e).__name__}: {e}\n{path.read_bytes()[:2000]!r}")
        outcomes[result] = outcomes.get(result, 0) + 1
    return outcomes


@pytest.fixture
def no_figure(monkeypatch):
    """The learning-curve PNG is the slowest part of a tiny run; plotting is tested elsewhere."""
    import mark1.viz.training
    monkeypatch.setattr(mark1.viz.training, "learning_curve", lambda *a, **k: None)


def test_the_shrunk_seed_scenes_run(tmp_path, capsys, no_figure):
    for i, (_, text) in enumerate(seeds()):
        path = tmp_path / f"seed_{i}.toml"
        path.write_text(text)
        assert check_mutant(path, tmp_path / f"out_{i}", capsys) == "result"


def test_mutated_scenes_end_in_a_result_or_a_scene_error(tmp_path, capsys, no_figure):
    outcomes = fuzz(tmp_path, capsys, n=300, seed=11)
    assert outcomes.get("scene error", 0) > 100          # the mutants are hostile enough to matter
    assert outcomes.get("result", 0) > 10                # and some still run


@pytest.mark.slow
def test_mutated_scenes_many_with_figures(tmp_path, capsys):
    outcomes = fuzz(tmp_path, capsys, n=1500, seed=12)
    assert outcomes.get("scene error", 0) > 500 and outcomes.get("result", 0) > 50
