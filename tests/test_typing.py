"""The public API is fully typed: every callable reachable from an ``__all__`` is annotated.

Walked: ``mark1.__all__`` and the ``__all__`` of each public room directly under it
(``mark1.machine``, ``mark1.lab``, ``mark1.linear_model``, ``mark1.stimuli``,
``mark1.theory``, ``mark1.viz``, ``mark1.specs``, ``mark1.exceptions``, ``mark1.cli``;
found, not listed, so a new room is walked too). For each function defined in mark1, and
for each class defined in mark1 its ``__init__`` and its public methods (properties,
class and static methods included) from every mark1 class it inherits: every parameter
but ``self``/``cls`` has an annotation (``*args``/``**kwargs`` too), and there is a return
annotation. mypy checks that the annotations agree with the code (``.ci/run``); this
test checks that they are there.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
from collections.abc import Callable

import pytest

import mark1


def _ours(obj: object) -> bool:
    return (getattr(obj, "__module__", None) or "").split(".")[0] == "mark1"


def public_rooms() -> list[str]:
    """``mark1`` and every public module or package directly under it."""
    return ["mark1"] + [f"mark1.{m.name}" for m in pkgutil.iter_modules(mark1.__path__) if not m.name.startswith("_")]


def public_callables() -> dict[str, tuple[Callable, bool]]:
    """``{qualified name: (function, bound)}`` of every public callable of mark1's API, once each;
    ``bound`` when its first parameter is ``self`` or ``cls``."""
    found: dict[str, tuple[Callable, bool]] = {}
    for room in public_rooms():
        module = importlib.import_module(room)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType) or not _ours(obj):
                continue
            if inspect.isclass(obj):
                for klass in obj.__mro__:
                    if not _ours(klass):
                        continue
                    for attr, raw in vars(klass).items():
                        if attr.startswith("_") and attr != "__init__":
                            continue
                        if isinstance(raw, staticmethod):
                            fn, bound = raw.__func__, False
                        elif isinstance(raw, classmethod):
                            fn, bound = raw.__func__, True
                        elif isinstance(raw, property):
                            fn, bound = raw.fget, True
                        elif inspect.isfunction(raw):
                            fn, bound = raw, True
                        else:
                            continue
                        if fn is not None and _ours(fn):
                            found.setdefault(f"{klass.__module__}.{klass.__qualname__}.{attr}", (fn, bound))
            elif inspect.isfunction(obj):
                found.setdefault(f"{obj.__module__}.{obj.__qualname__}", (obj, False))
            elif callable(obj):                   # a wrapped or compiled function would escape the walk
                raise AssertionError(f"{room}.{name}: a public callable the walk cannot read ({type(obj).__name__})")
    return found


def unannotated(fn: Callable, bound: bool) -> list[str]:
    """The parameters of ``fn`` without an annotation, and ``"return"`` if it has none."""
    params = list(inspect.signature(fn).parameters.values())
    if bound:
        params = params[1:]                       # self or cls
    missing = [p.name for p in params if p.annotation is inspect.Parameter.empty]
    if inspect.signature(fn).return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


API = public_callables()


@pytest.mark.parametrize("name", sorted(API))
def test_every_public_callable_is_annotated(name):
    fn, bound = API[name]
    assert unannotated(fn, bound) == [], f"{name}: not annotated: {', '.join(unannotated(fn, bound))}"


def test_the_walk_reaches_the_api_people_use():
    """The walk is not empty by mistake: the names of the README's tour are in it."""
    for name in ["mark1.machine.mark_i.MarkI.__init__", "mark1.machine.mark_i.MarkI.fit",
                 "mark1.machine.mark_i.MarkI.predict", "mark1.machine.patchboard.Patchboard.load",
                 "mark1.stimuli.scenes.load_scene", "mark1.stimuli.scenes.Scene.stimuli",
                 "mark1.stimuli.cards.scene_cards", "mark1.lab._compare.compare", "mark1.lab._sweep.sweep",
                 "mark1.lab._reenact.reenact", "mark1.linear_model._perceptron.Perceptron.__init__",
                 "mark1.linear_model._base._Classifier.fit", "mark1._utils.estimator.ParamsMixin.get_params",
                 "mark1.viz.studies.comparison_figure", "mark1.theory.probabilities.p_a", "mark1.cli.main"]:
        assert name in API, name
    assert len(API) > 200, len(API)
    assert {"mark1.machine", "mark1.lab", "mark1.linear_model", "mark1.stimuli", "mark1.theory", "mark1.viz",
            "mark1.specs"} <= set(public_rooms())


def _bare(x, *args, y: int = 0, **kwargs) -> int:
    return 0


def _typed(x: int, *args: int, y: int = 0, **kwargs: str) -> int:
    return 0


class _Example:
    def method(self, x: int) -> None:
        pass

    def bare(self, x):
        pass


def test_the_check_names_what_is_missing():
    assert unannotated(_bare, False) == ["x", "args", "kwargs"]
    assert unannotated(_typed, False) == []
    assert unannotated(_Example.method, True) == []
    assert unannotated(_Example.bare, True) == ["x", "return"]
    assert unannotated(lambda: 0, False) == ["return"]
