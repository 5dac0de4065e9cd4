"""Every mark1 error crosses a process boundary whole, and a study's worker refuses as the caller does.

The exception classes are found by walking the package (every module imported), not by a
list: each is made with text arguments, pickled and read back, and must come back as the
same class with the same message, arguments and attributes. A scene whose folder holds a
corrupt image is refused in the worker that draws its cards; every study must then print
the one line ``--workers 1`` prints, from a process pool and from a Dask cluster.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil

import numpy as np
import pytest
from PIL import Image

import mark1
from mark1.cli import main


def _exception_classes() -> list[type]:
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(mark1.__path__, "mark1."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__.startswith("mark1")):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    found["mark1.exceptions.NotFittedError"] = mark1.exceptions.NotFittedError    # made on first access
    return [found[k] for k in sorted(found)]


CLASSES = _exception_classes()


def _made(cls: type) -> BaseException:
    """An instance made from text (or, for a signal's number, an int) for each required argument."""
    params = [p for p in inspect.signature(cls.__init__).parameters.values()
              if p.name != "self" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
              and p.default is p.empty]
    if cls.__name__ == "Interrupted":
        return cls(15)
    args = [f"{p.name} value {i}" for i, p in enumerate(params)] or ["what went wrong"]
    return cls(*args)


def test_the_walk_finds_the_classes_that_take_their_own_arguments():
    names = {c.__name__ for c in CLASSES}
    assert {"Mark1Error", "SceneError", "SpecError", "RenderError", "ResultPathError", "BudgetError",
            "NotFittedError", "Interrupted", "_Bad"} <= names, names
    assert len(CLASSES) >= 15


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
def test_every_error_survives_a_pickle_round_trip(cls):
    err = _made(cls)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is cls
    assert str(back) == str(err) and back.args == err.args
    assert vars(back).keys() == vars(err).keys()
    for k, v in vars(err).items():
        assert getattr(back, k) == v or (v is not v), k


def test_an_os_error_keeps_its_number_and_file():
    err = mark1.exceptions.ResultPathError(21, "Is a directory", "/x/y")
    back = pickle.loads(pickle.dumps(err))
    assert (back.errno, back.strerror, back.filename, str(back)) == (21, "Is a directory", "/x/y", str(err))


def test_a_huge_message_is_bounded_and_still_round_trips():
    err = mark1.SpecError("rack.piecewise_up", "expected at most 64 numbers, got " + "2.0, " * 100_000)
    assert len(str(err)) <= mark1.exceptions.MAX_MESSAGE
    assert str(pickle.loads(pickle.dumps(err))) == str(err)


# ---------------------------------------------------------------------------------------
# a refusal in a worker


def corrupt_scene(tmp_path):
    """A folder scene with one corrupt PNG among its training images (refused where its cards are drawn)."""
    rng = np.random.default_rng(0)
    for folder in ("imgs", "imgs_test"):
        for c in ("dark", "light"):
            (tmp_path / folder / c).mkdir(parents=True)
            for i in range(4):
                a = np.full((12, 16), 255, np.uint8)
                a[rng.integers(0, 8):, :8] = 0 if c == "dark" else 128
                Image.fromarray(a).save(tmp_path / folder / c / f"{i:02d}.png")
    (tmp_path / "imgs" / "dark" / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really a png")
    path = tmp_path / "corrupt.toml"
    path.write_text('name = "c"\n[reported]\nsource = "none: a test"\nvalue = 0.9\n'
                    '[stimuli]\nsource = "folder"\nfolder = "imgs"\ncard_size = 20\n'
                    '[test]\nfolder = "imgs_test"\n[machine]\npreset = "SMALL"\n[schedule]\nepochs = 1\n')
    return path


STUDIES = {"compare": ["--learners", "mark1"], "ablate": [], "curves": ["--points", "2"],
           "sweep": ["--param", "rack.backlash", "--values", "0,0.01"], "reenact": []}


def _study(capsys, command, scene, out, *extra):
    argv = [command, str(scene), "--seeds", "2", "--out", str(out), *STUDIES[command], *extra]
    rc = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    return rc, err


@pytest.mark.parametrize("command", ["compare", pytest.param("ablate", marks=pytest.mark.slow),
                                     pytest.param("curves", marks=pytest.mark.slow),
                                     pytest.param("sweep", marks=pytest.mark.slow),
                                     pytest.param("reenact", marks=pytest.mark.slow)])
def test_a_workers_refusal_is_the_one_line_of_a_serial_run(tmp_path, capsys, command):
    scene = corrupt_scene(tmp_path)
    rc1, serial = _study(capsys, command, scene, tmp_path / "one", "--workers", "1")
    rc2, pooled = _study(capsys, command, scene, tmp_path / "two", "--workers", "2")
    assert rc1 == rc2 == 2 and len(serial) == 1 and pooled == serial, (serial, pooled)
    assert "bad.png" in serial[0] and "Traceback" not in serial[0]


def test_the_energy_study_s_refusal_through_its_pool_is_one_line_naming_the_scene_once(tmp_path, capsys):
    scene = corrupt_scene(tmp_path)
    said = []
    for workers in ("1", "2"):
        rc = main(["device", "energy", "--scene", str(scene), "--seeds", "2", "--workers", workers,
                   "--out", str(tmp_path / workers)])
        said.append(capsys.readouterr().err.strip().splitlines())
        assert rc == 2
    assert said[0] == said[1] and len(said[0]) == 1 and "bad.png" in said[0][0]
    assert said[0][0].count(str(scene)) == 1


@pytest.mark.slow
@pytest.mark.parametrize("command", list(STUDIES))
def test_a_dask_workers_refusal_is_the_one_line_of_a_serial_run(tmp_path, capsys, command, dask_processes):
    scene = corrupt_scene(tmp_path)
    rc1, serial = _study(capsys, command, scene, tmp_path / "one", "--workers", "1")
    rc2, remote = _study(capsys, command, scene, tmp_path / "two", "--scheduler", dask_processes)
    assert rc1 == rc2 == 2 and len(serial) == 1 and remote == serial, (serial, remote)


@pytest.fixture(scope="module")
def dask_processes():
    distributed = pytest.importorskip("distributed")
    # worker processes of their own: what they raise is pickled back to the client
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as c:
        yield c.scheduler_address
