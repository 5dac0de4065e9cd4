"""The on-disk cache of compiled code notices changes in the modules a function calls."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mark1.machine import rules
from mark1.machine._kernels import pots as kernel_pots
from mark1.machine._kernels import presentation
from mark1.machine._kernels import features
from mark1._utils.compiled import source_digest

CALLEE = """
from numba import njit

@njit(cache=True)
def step():
    return {value}
"""

CALLER = """
import callee
from mark1._utils.compiled import njit_calling

@njit_calling(callee)
def twice():
    return 2 * callee.step()

print(twice())
"""


def _run(folder: Path, cache: Path) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": os.pathsep.join(
        [str(folder), str(Path(__file__).resolve().parents[1])])}
    out = subprocess.run([sys.executable, str(folder / "caller.py")], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_a_changed_callee_in_another_module_is_compiled_anew(tmp_path):
    (tmp_path / "callee.py").write_text(textwrap.dedent(CALLEE.format(value=1)))
    (tmp_path / "caller.py").write_text(textwrap.dedent(CALLER))
    cache = tmp_path / "cache"
    assert _run(tmp_path, cache) == "2"
    assert any(cache.rglob("*.nbi"))                      # the caller's code is cached
    assert _run(tmp_path, cache) == "2"
    (tmp_path / "callee.py").write_text(textwrap.dedent(CALLEE.format(value=5)))
    assert _run(tmp_path, cache) == "10"                  # numba's own cache alone would say 2


def test_the_simulator_loop_is_keyed_on_what_it_calls(tmp_path):
    digest = source_digest((rules, kernel_pots, features))
    assert presentation.train_block._cache._digest == digest
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    mods = [type(sys)("a"), type(sys)("b")]
    mods[0].__file__, mods[1].__file__ = str(a), str(b)
    before = source_digest(tuple(mods))
    b.write_text("y = 3\n")
    assert source_digest(tuple(mods)) != before


# ---------------------------------------------------------------------------------------
# variants: a compiled function with its module's constants set otherwise (compiled.specialised)

FAMILY = """
import sys
from mark1._utils.compiled import compile_seconds, compiled, specialised

EXTRA = True


@compiled
def heavy(x):
    return x * 1000.0 + 7.0


@compiled(inline="always")
def middle(x):
    if EXTRA and x > 0:
        return heavy(x)
    return x


@compiled
def top(x):
    return middle(x) + 1.0


order = sys.argv[1]
plain = specialised(top, EXTRA=False)
calls = {"variant-first": (plain, top), "general-first": (top, plain), "variant-only": (plain,)}[order]
print(*(f(2.0) for f in calls), len(heavy.signatures), compile_seconds() > 0)
"""


def _family(folder: Path, cache: Path, order: str) -> list[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    out = subprocess.run([sys.executable, str(folder / "family.py"), order], env=env, capture_output=True,
                         text=True, timeout=300, check=False, cwd=folder)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_a_variant_never_compiles_the_branch_it_prunes_and_keeps_its_own_cache(tmp_path):
    (tmp_path / "family.py").write_text(FAMILY)
    cache = tmp_path / "cache"
    # the variant alone first: the callee behind its pruned branch is never compiled
    first = _family(tmp_path, cache, "variant-first")
    assert first == ["3.0", "2008.0", "1", "True"]          # heavy compiled once, by the general top
    # over the same cache, either order: each loads its own code (no compile), never the other's
    again = _family(tmp_path, cache, "general-first")
    assert again == ["2008.0", "3.0", "0", "False"]          # loaded: heavy's code is inside top's
    assert len(list(cache.rglob("*.top-*-EXTRA0.py*.nbi"))) == 1            # its own index file


def test_a_variant_alone_does_not_compile_the_pruned_callee(tmp_path):
    (tmp_path / "family.py").write_text(FAMILY)
    out = _family(tmp_path, tmp_path / "cache", "variant-only")
    assert out == ["3.0", "0", "True"]                       # heavy: no signature at all


def test_specialised_refuses_a_constant_nothing_reads():
    from mark1._utils.compiled import specialised
    from mark1.exceptions import InputError
    from mark1.machine._kernels.state import step
    try:
        specialised(step, QUEUD=False)
    except InputError as e:
        assert "QUEUD" in str(e)
    else:
        raise AssertionError("a misspelt constant was accepted")


def test_run_kernels_general_where_every_feature_is_met():
    from mark1.machine._kernels import presentation as k
    from mark1.machine._kernels.state import run_kernels, step
    assert run_kernels(True, True, True) == (step, k.train_block)
    plain = run_kernels(False, False, False)
    assert plain[0] is not step and plain == run_kernels(False, False, False)     # made once a process


@pytest.mark.slow        # compiles the general step besides the run's own (~30 s cold on 2 loaded cores)
@pytest.mark.parametrize("drivers", [0, 2])
def test_the_run_s_own_step_gives_the_general_step_s_bits(monkeypatch, drivers):
    import numpy as np

    import mark1
    from mark1.machine._kernels import presentation as k
    from mark1.machine._kernels import state

    rng = np.random.default_rng(3)
    cards = (rng.random((16, 20, 20)) < 0.3).astype(float)
    labels = np.array(["X", "E"] * 8)
    spec = mark1.SMALL.with_overrides({"rack.drivers": drivers})

    def fit():
        m = mark1.MarkI(spec=spec, seed=2).fit(cards, labels, epochs=3)
        return (m.decision_function(cards).tobytes(), m.mistakes_per_epoch_.tolist(), m.machine_time_,
                m.history_.tobytes() if hasattr(m.history_, "tobytes") else repr(m.history_))

    own = fit()
    monkeypatch.setattr(state, "run_kernels", lambda queued, log, device: (state.step, k.train_block))
    assert fit() == own
