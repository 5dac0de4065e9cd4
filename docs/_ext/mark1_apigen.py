"""The API reference, written from each public module's ``__all__`` at every build.

Modules move and split while the package is reorganised, so no page of the reference is
written by hand. At ``config-inited`` (before Sphinx looks for source files) this
extension imports every *public* module of the package (no dotted part starting with
``_``), reads its ``__all__`` and writes one reST page per module into
``api/modules/``: the module's docstring, then autosummary tables of its public names
grouped by kind. ``sphinx.ext.autosummary`` (``autosummary_generate = True``) then writes
one stub per object into ``api/generated/``.

Each object is documented once, at its *home*: of the public modules whose ``__all__``
names it, the shallowest one inside the room that defines it (``mark1.machine.MarkI``,
not ``mark1.machine.mark_i.MarkI``), so a page address survives a module being split
into private parts. Every other module that hands the name on lists it in a table
linking to that home. The package itself (the face, ``mark1``) is a home only for names
no room exports.

Configuration (``conf.py``)::

    apigen_package = "mark1"           # the package to document
    apigen_exclude = ["mark1.cli"]      # public modules left out (with their submodules)
    apigen_order = ["mark1", ...]       # top-level pages first in this order, the rest after

A module that fails to import, or an ``__all__`` entry that is not an attribute, is a
Sphinx warning (so ``-W`` fails the build) naming the module and the error; the rest
of the reference is still written.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging

logger = logging.getLogger(__name__)

MODULES_DIR = "api/modules"         # one page per public module (generated, not in git)
STUBS_DIR = "api/generated"         # one page per object (autosummary, not in git)

#: Group headings, in page order; an object's kind picks its group.
KINDS = ("Classes", "Functions", "Errors and warnings", "Constants")


@dataclass
class Module:
    name: str
    module: types.ModuleType
    names: list[str] = field(default_factory=list)          # public names of __all__, in its order
    submodules: list[str] = field(default_factory=list)     # public submodules (packages only)


def is_public(dotted: str) -> bool:
    return not any(part.startswith("_") for part in dotted.split("."))


def excluded(name: str, exclude) -> bool:
    return any(name == e or name.startswith(e + ".") for e in exclude)


def public_modules(package: str, exclude) -> dict[str, Module]:
    """Every public module of ``package``, imported, by dotted name (packages before their modules)."""
    found: dict[str, Module] = {}

    def visit(name: str) -> bool:
        try:
            mod = importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - any failure is reported, the rest is still built
            logger.warning("apigen: cannot import %s: %s: %s", name, type(exc).__name__, exc)
            return False
        entry = Module(name, mod)
        found[name] = entry
        for attr in getattr(mod, "__all__", ()):
            if attr.startswith("_"):
                continue                     # __version__ and the like: said in prose, not tabled
            if not hasattr(mod, attr):
                logger.warning("apigen: %s.__all__ names %r, which the module does not have", name, attr)
                continue
            entry.names.append(attr)
        if hasattr(mod, "__path__"):
            for info in sorted(pkgutil.iter_modules(mod.__path__), key=lambda i: i.name):
                child = f"{name}.{info.name}"
                if is_public(child) and not excluded(child, exclude) and visit(child):
                    entry.submodules.append(child)
        return True

    visit(package)
    return found


def defining_module(obj) -> str | None:
    if inspect.ismodule(obj):
        return obj.__name__
    if inspect.isclass(obj) or inspect.isroutine(obj):
        return getattr(obj, "__module__", None)
    return None     # data: an instance's __module__ is its class's, which says nothing


def kind_of(obj) -> str:
    if inspect.ismodule(obj):
        return "Modules"
    if inspect.isclass(obj):
        return "Errors and warnings" if issubclass(obj, BaseException) else "Classes"
    if inspect.isroutine(obj) or callable(obj):
        return "Functions"
    return "Constants"


def homes(modules: dict[str, Module], package: str) -> dict[tuple[str, int], str]:
    """(name, id(object)) -> the dotted module where the object is documented."""
    candidates: dict[tuple[str, int], list[str]] = {}
    objects = {}
    for mname, entry in modules.items():
        for attr in entry.names:
            obj = getattr(entry.module, attr)
            if inspect.ismodule(obj):
                continue                     # a module is documented on its own page
            key = (attr, id(obj))
            objects[key] = obj
            candidates.setdefault(key, []).append(mname)
    home = {}
    for key, where in candidates.items():
        rooms = [m for m in where if m != package] or where
        origin = defining_module(objects[key]) or ""
        inside = [m for m in rooms if origin == m or origin.startswith(m + ".")]
        pool = inside or rooms
        home[key] = min(pool, key=lambda m: (m.count("."), m))
    return home


def underline(text: str, char: str) -> str:
    return f"{text}\n{char * len(text)}\n"


def table(entries: list[str], toctree: bool) -> str:
    lines = [".. autosummary::"]
    if toctree:
        lines.append("   :toctree: ../generated/")
    lines += ["   :nosignatures:", ""]
    lines += [f"   {e}" for e in entries]
    return "\n".join(lines) + "\n"


def module_page(entry: Module, package: str, home: dict) -> str:
    name = entry.name
    doc = inspect.cleandoc(entry.module.__doc__ or "")
    out = [f".. Generated by docs/_ext/mark1_apigen.py from {name}.__all__; edits are overwritten.\n",
           underline(name, "="),
           f".. py:module:: {name}\n"]
    if doc:
        out.append(doc + "\n")
    # The tables name every object in full (autosummary refuses names that repeat the
    # current module), so the current module ends with the docstring. Written with the
    # py: prefix, which autosummary's stub generator does not read as a module name.
    out.append(".. py:currentmodule:: None\n")

    if entry.submodules:
        out.append(underline("Modules", "-"))
        out.append(table(entry.submodules, toctree=False))
        if name != package:             # the API index lists the rooms themselves
            out.append(".. toctree::\n   :hidden:\n\n" + "".join(f"   {m}\n" for m in entry.submodules))

    groups: dict[str, list[str]] = {k: [] for k in KINDS}
    modules_listed, handed_on = [], []
    for attr in entry.names:
        obj = getattr(entry.module, attr)
        if inspect.ismodule(obj):
            if obj.__name__ not in entry.submodules:
                modules_listed.append(obj.__name__)
            continue
        where = home[(attr, id(obj))]
        if where == name:
            groups[kind_of(obj)].append(f"{name}.{attr}")
        else:
            handed_on.append(f"{where}.{attr}")

    if modules_listed:
        out.append(underline("Modules" if not entry.submodules else "Other modules", "-"))
        out.append(table(modules_listed, toctree=False))
    for kind in KINDS:
        if groups[kind]:
            out.append(underline(kind, "-"))
            out.append(table([f"~{e}" for e in groups[kind]], toctree=True))
    if handed_on:
        out.append(underline("Also importable from here", "-"))
        out.append(f"These names are in ``{name}.__all__``; each is documented at the path shown.\n")
        out.append(table(handed_on, toctree=False))
    return "\n".join(out)


#: Every public path of a documented object -> the path of its home, for cross-references:
#: ``:class:`mark1.MarkI``` and ``:func:`mark1.stimuli.cards.scene_cards``` find their page.
ALIASES: dict[str, str] = {}


def _page_module(docname: str) -> str | None:
    """The module a generated page documents (``api/modules/mark1.machine`` -> ``mark1.machine``)."""
    folder, _, page = docname.rpartition("/")
    return page if folder == MODULES_DIR else None


def _candidates(target: str, modules: list[str]):
    """Full names ``target`` may mean, read from ``modules`` (innermost first), then as given."""
    for module in modules + [""]:
        full = f"{module}.{target}" if module else target
        yield full
        parts = full.split(".")
        for i in range(len(parts), 0, -1):          # a name handed on, or a member of one
            home = ALIASES.get(".".join(parts[:i]))
            if home:
                yield ".".join([home] + parts[i:])
                break


def resolve_alias(app, env, node, contnode):
    """``missing-reference``: resolve a Python reference the domain did not find.

    Relative names in a module page (its tables end the module's context) are read from
    that module and its packages; a name handed on by another module (``mark1.MarkI``)
    resolves to its home, and so does a member of it (``mark1.MarkI.fit``).
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    context = node.get("py:module") or _page_module(node.get("refdoc", ""))
    modules = []
    while context:
        modules.append(context)
        context = context.rpartition(".")[0]
    domain = env.get_domain("py")
    names = [n for n in _candidates(target, modules) if n != target and n in domain.objects]
    if not names and not target.startswith(app.config.apigen_package + "."):
        # a relative name read nowhere above: the one object documented under that name
        # (``Retina.expose`` in the classroom, ``font_file`` in a module that moved it)
        ending = [n for n in domain.objects if n.endswith("." + target)]
        names = ending if len(ending) == 1 else []
    for name in names:
        for role in (node["reftype"], "obj"):
            found = domain.resolve_xref(env, node["refdoc"], app.builder, role, name, node, contnode)
            if found is not None:
                return found
    return None


def _comment_doc(obj, attr: str, package: str) -> list[str]:
    """The ``#:`` comment of ``attr`` in whichever module of ``package`` assigns ``obj`` to it."""
    for mname, module in sorted(sys.modules.items()):
        if not (mname == package or mname.startswith(package + ".")) or getattr(module, attr, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(mname).find_attr_docs()
        except Exception:  # noqa: BLE001 - no source (compiled, frozen): look elsewhere
            continue
        if ("", attr) in docs:
            return list(docs[("", attr)])
    return []


def constant_docstring(app, what, name, obj, options, lines) -> None:
    """``autodoc-process-docstring``: a constant's own ``#:`` comment, wherever it was written.

    autodoc reads ``#:`` comments only in the module a constant is documented in, and
    otherwise falls back to the docstring of the value's type (``int([x]) -> integer``,
    ``MachineSpec``'s), which describes the type, not the constant. A constant whose home
    is a package that hands it on from a module (private or not) gets the comment
    written in that module; one with no comment anywhere gets no text.
    """
    if what not in ("data", "attribute") or inspect.isclass(obj) or inspect.isroutine(obj):
        return
    own = inspect.getdoc(type(obj))
    if lines and not (own and "\n".join(lines).strip() == own.strip()):
        return                                    # a comment autodoc found itself
    lines[:] = _comment_doc(obj, name.rpartition(".")[2], app.config.apigen_package) if what == "data" else []


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(app, config) -> None:
    src = Path(app.srcdir)
    package = config.apigen_package
    modules = public_modules(package, config.apigen_exclude)
    if package not in modules:
        return
    home = homes(modules, package)
    ALIASES.clear()
    for mname, entry in modules.items():
        for attr in entry.names:
            obj = getattr(entry.module, attr)
            if not inspect.ismodule(obj):
                ALIASES[f"{mname}.{attr}"] = f"{home[(attr, id(obj))]}.{attr}"

    mdir = src / MODULES_DIR
    mdir.mkdir(parents=True, exist_ok=True)
    wanted = set()
    for name, entry in modules.items():
        wanted.add(f"{name}.rst")
        write_if_changed(mdir / f"{name}.rst", module_page(entry, package, home))

    # The pages of the API index: the package, then its rooms in the configured order.
    top = [package] + modules[package].submodules
    order = {m: i for i, m in enumerate(config.apigen_order)}
    top.sort(key=lambda m: (order.get(m, len(order)), m))
    index = ".. Generated by docs/_ext/mark1_apigen.py.\n\n" + table(top, toctree=False)
    index += "\n.. toctree::\n   :hidden:\n\n" + "".join(f"   modules/{m}\n" for m in top)
    write_if_changed(mdir / "rooms.inc", index)
    wanted.add("rooms.inc")

    # Pages of modules or objects that no longer exist would fail to import: remove them.
    for stale in mdir.iterdir():
        if stale.name not in wanted:
            stale.unlink()
    stubs = src / STUBS_DIR
    if stubs.is_dir():
        documented = {f"{where}.{attr}.rst" for (attr, _), where in home.items()}
        for stale in stubs.glob("*.rst"):
            if stale.name not in documented:
                stale.unlink()


def setup(app):
    app.add_config_value("apigen_package", "", "env")
    app.add_config_value("apigen_exclude", [], "env")
    app.add_config_value("apigen_order", [], "env")
    app.connect("config-inited", generate)
    app.connect("missing-reference", resolve_alias)
    app.connect("autodoc-process-docstring", constant_docstring, priority=100)   # before numpydoc
    return {"parallel_read_safe": True, "parallel_write_safe": True}
