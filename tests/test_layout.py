"""The house's rules, read from the source: imports run one way, none hides in a function,
no room takes another's private names, and every public name shows how it is used.

A *room* is a top-level module or package of ``mark1`` (``machine``, ``stimuli``, ...).
Rooms are ranked below; a module may import from its own room and from rooms ranked
lower, never higher, so no circle can form between rooms. ``mark1/__init__.py`` only
hands names on and ``__main__`` only starts the command line, so both stand outside.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import mark1

PACKAGE = Path(mark1.__file__).resolve().parent

#: Rooms from the bottom up: each imports only those before it (and itself).
ROOMS = ("exceptions", "_utils", "stats", "specs", "devices", "machine", "theory", "linear_model", "stimuli", "lab",
         "viz", "classroom", "cli")
OUTSIDE = ("mark1", "mark1.__main__")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def room_of(module: str) -> str:
    return module.split(".")[1] if module.count(".") else module


def imports(path: Path):
    """Every import of a mark1 module in ``path``: (line, target module, name or None, in a function)."""
    tree = ast.parse(path.read_text())
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((child.lineno, a.name, None, inside) for a in child.names
                             if a.name.split(".")[0] == "mark1")
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[:len(package.split(".")) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target.split(".")[0] == "mark1":
                    found.extend((child.lineno, target, a.name, inside) for a in child.names)
            visit(child, inside)

    visit(tree, False)
    return found


def all_modules():
    return sorted(PACKAGE.rglob("*.py"))


def graph() -> dict[str, set[str]]:
    """Module -> the mark1 modules it imports (function-level imports counted too)."""
    known = {module_name(p) for p in all_modules()}
    g: dict[str, set[str]] = {}
    for p in all_modules():
        me = module_name(p)
        for _, target, name, _ in imports(p):
            full = f"{target}.{name}" if name and f"{target}.{name}" in known else target
            if full != me:
                g.setdefault(me, set()).add(full)
    return g


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(g):
        if v not in index:
            connect(v)
    return out


def test_every_module_lives_in_a_known_room():
    for p in all_modules():
        me = module_name(p)
        assert me in OUTSIDE or room_of(me) in ROOMS, f"{me}: not in a room of {ROOMS}"


def test_imports_run_one_way():
    wrong = []
    for p in all_modules():
        me = module_name(p)
        if me in OUTSIDE:
            continue
        for line, target, name, _ in imports(p):
            if target == "mark1" and name:                       # `from mark1 import specs`
                target = f"mark1.{name}"
            if target in OUTSIDE:
                wrong.append(f"{p.relative_to(PACKAGE.parent)}:{line}: imports the package face {target}")
            elif ROOMS.index(room_of(target)) > ROOMS.index(room_of(me)):
                wrong.append(f"{p.relative_to(PACKAGE.parent)}:{line}: {room_of(me)} imports {target} (a room above it)")
    assert not wrong, "\n".join(wrong)


def test_no_circle_of_modules():
    assert circles({k: v for k, v in graph().items() if k not in OUTSIDE}) == []


def test_no_mark1_import_inside_a_function():
    hidden = [f"{p.relative_to(PACKAGE.parent)}:{line}: {target}" + (f".{name}" if name else "")
              for p in all_modules() for line, target, name, inside in imports(p) if inside]
    assert not hidden, "\n".join(hidden)


def test_no_room_takes_another_rooms_private_names():
    taken = []
    for p in all_modules():
        me = module_name(p)
        for line, target, name, _ in imports(p):
            if room_of(target) == room_of(me) or me in OUTSIDE and room_of(target) == "_utils":
                continue
            private_module = any(part.startswith("_") and part != "_utils" for part in target.split(".")[1:])
            if private_module or (name and name.startswith("_") and name != "__version__"
                                  and f"{target}.{name}" not in {"mark1._utils"}):
                taken.append(f"{p.relative_to(PACKAGE.parent)}:{line}: {target}" + (f" import {name}" if name else ""))
    assert not taken, "\n".join(taken)


# -- the public face ----------------------------------------------------------------


def public_modules():
    """mark1 and every module whose dotted name has no part starting with an underscore."""
    names = ["mark1"]
    for info in pkgutil.walk_packages(mark1.__path__, "mark1."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def public_objects():
    """(module, name, object) for every name in a public module's ``__all__`` that is defined
    in mark1 (a function, class or module), each object once, under its first public home."""
    seen, out = set(), []
    for modname in public_modules():
        module = importlib.import_module(modname)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if not getattr(obj, "__module__", "").startswith("mark1") or id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append((modname, name, obj))
    return out


@pytest.mark.parametrize(("modname", "name", "obj"), public_objects(), ids=lambda v: v if isinstance(v, str) else "")
def test_public_name_has_a_runnable_example(modname, name, obj):
    doc = inspect.getdoc(obj) or ""
    assert doc, f"{modname}.{name} has no docstring"
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return              # errors and warnings: one example for all, in mark1.exceptions
    assert "Examples\n--------" in doc and ">>>" in doc, f"{modname}.{name}: no Examples section with >>>"


def test_the_face():
    for name in ("MarkI", "load_scene", "Scene", "MARK_I", "SMALL", "Mark1Error", "LeastSquaresClassifier",
                 "FisherDiscriminant", "GaussianClassifier", "LogisticRegression", "Perceptron", "compare",
                 "ablate", "learning_curves", "sweep", "reenact", "scene_cards", "__version__"):
        assert name in mark1.__all__ and hasattr(mark1, name), name
    from importlib.metadata import version
    assert mark1.__version__ == version("mark1")


def test_every_error_derives_from_the_one_base():
    from mark1 import exceptions
    for name in exceptions.__all__:
        obj = getattr(exceptions, name)
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            assert issubclass(obj, (mark1.Mark1Error, exceptions.Mark1Warning)), name
    raised = []
    for p in all_modules():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name):
                if node.exc.func.id in dir(__builtins__) or node.exc.func.id in __builtins__:
                    raised.append(f"{p.relative_to(PACKAGE.parent)}:{node.lineno}: raise {node.exc.func.id}")
    assert not [r for r in raised if "AttributeError" not in r and "NotImplementedError" not in r], "\n".join(raised)
