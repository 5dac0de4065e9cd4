"""The on-disk cache of compiled code notices changes in the modules a function calls."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

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
