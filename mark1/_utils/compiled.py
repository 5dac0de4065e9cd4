"""numba's on-disk cache, keyed also by the modules a compiled function calls into.

The inner loops of the package are compiled by numba and cached on disk (``cache=True``)
so that a process starts them in a fraction of a second instead of compiling for
seconds. numba recompiles a cached function when *its own* source file changes, but not
when a compiled function it calls from *another* module changes (a documented numba
limitation, numba issue #1833): the caller's cached machine code would keep the old
callee. The simulator's compiled loop calls the rules, the pots and the perceptron's
sums, so :func:`njit_calling` compiles it with the cache and adds a digest of those
modules' source files to the cache's key: a change there compiles anew.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import ModuleType

import numba
from numba.core.caching import FunctionCache

__all__ = ["njit_calling", "source_digest"]


class _CacheKeyedOnSources(FunctionCache):
    """numba's cache of one function, its index key extended by a source digest."""

    def __init__(self, py_func, digest: str):
        super().__init__(py_func)
        self._digest = digest

    def _index_key(self, sig, codegen):
        return super()._index_key(sig, codegen) + (self._digest,)


def source_digest(modules: tuple[ModuleType, ...]) -> str:
    """SHA-256 of the modules' source files, in the order given."""
    h = hashlib.sha256()
    for m in modules:
        h.update(Path(m.__file__).read_bytes())
    return h.hexdigest()


def njit_calling(*modules: ModuleType):
    """``numba.njit(cache=True)`` for a function that calls compiled functions of ``modules``.

    The cached code is used only while those modules' sources are what they were when
    it was compiled (the function's own file is checked by numba itself).
    """
    digest = source_digest(modules)

    def compile_with_cache(fn):
        dispatcher = numba.njit(fn)
        if not hasattr(dispatcher, "py_func"):       # NUMBA_DISABLE_JIT: the plain function
            return dispatcher
        # what Dispatcher.enable_caching() does, with the key extended
        dispatcher._cache = _CacheKeyedOnSources(dispatcher.py_func, digest)
        return dispatcher

    return compile_with_cache
