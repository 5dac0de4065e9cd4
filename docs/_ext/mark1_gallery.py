"""The gallery of ``examples/*.py``: what sphinx-gallery needs that the scripts do not give it.

The examples are command-line scripts: each parses ``--out DIR`` and saves its figures
(PNG, or a GIF) there with matplotlib's object API, so sphinx-gallery's matplotlib
scraper finds no figure. This extension

* stages the scripts (``config-inited``) into ``docs/_gallery_src/``, a generated folder
  holding copies of ``examples/*.py`` with the first docstring line underlined as a reST
  title (when it is not already) and ``docs/gallery_header.txt`` as the gallery's
  header, so ``examples/`` itself needs no file for the documentation;
* gives each script ``--out output/<script>`` (:func:`reset_argv`, named in
  ``sphinx_gallery_conf["reset_argv"]``), a folder of its own in the staging folder,
  where sphinx-gallery runs it, emptied before it runs, and puts back the two
  globals sphinx-gallery withholds from the code it runs and the scripts use when
  parsing their arguments: ``__file__`` (the script under ``examples/``) and
  ``__doc__`` (its docstring);
* collects every image file a code block wrote into that folder (:func:`scrape_output`,
  named in ``sphinx_gallery_conf["image_scrapers"]``), in name order, keeping each
  file's extension (a GIF stays animated).

Functions are referenced by name in ``conf.py`` (``"mark1_gallery.scrape_output"``), so
the configuration stays picklable and Sphinx's environment cache works.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

from sphinx_gallery.scrapers import figure_rst

#: Files of these kinds written by a block are shown on the example's page.
IMAGE_SUFFIXES = (".png", ".gif", ".jpg", ".jpeg", ".svg")

STAGE = "_gallery_src"          # under the docs folder; generated, not in git
HEADER = "gallery_header.txt"   # under the docs folder (not a page itself): the staged GALLERY_HEADER.rst

OUTPUT = "output"                # under the staging folder: one folder per script for its --out

_state = {"examples": None, "seen": {}}


def _underlined(source: str) -> str:
    """The script with its docstring's first line underlined with ``=`` (a reST title)."""
    module = ast.parse(source)
    if ast.get_docstring(module) is None:
        return source
    lines = source.splitlines(keepends=True)
    i = module.body[0].lineno - 1                  # the line the docstring opens on
    title = re.sub(r'^\s*[rRuU]?("""|\'\'\')', "", lines[i]).strip()
    if not title:                                  # """ alone on its line: the title is the next line
        i += 1
        title = lines[i].strip()
    following = lines[i + 1] if i + 1 < len(lines) else ""
    if re.match(r"^\s*([=\-~^*+#])\1{2,}\s*$", following):
        return source                              # already a title
    insert = "=" * len(title) + "\n" + ("" if not following.strip() else "\n")
    return "".join(lines[:i + 1]) + insert + "".join(lines[i + 1:])


def stage(app, config) -> None:
    """Copy ``examples/*.py`` into the staging folder (titles underlined) with the gallery header."""
    docs = Path(app.srcdir)
    examples = (docs / config.mark1_gallery_examples).resolve()
    stage_dir = docs / STAGE
    stage_dir.mkdir(exist_ok=True)
    _state["examples"] = examples
    wanted = {"GALLERY_HEADER.rst"}
    header = (docs / HEADER).read_text(encoding="utf-8")
    _write(stage_dir / "GALLERY_HEADER.rst", header)
    for script in sorted(examples.glob("*.py")):
        wanted.add(script.name)
        _write(stage_dir / script.name, _underlined(script.read_text(encoding="utf-8")))
    for stale in stage_dir.iterdir():
        if stale.is_file() and stale.name not in wanted:
            stale.unlink()


def _write(path: Path, text: str) -> None:
    # unchanged files keep their time stamp, so sphinx-gallery does not run them again
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _out_dir(src_file) -> Path:
    return Path(src_file).parent / OUTPUT / Path(src_file).stem


def reset_argv(gallery_conf, script_vars) -> list[str]:
    """``--out`` for the script about to run; its ``__file__`` and ``__doc__`` put back."""
    src = Path(script_vars["src_file"])
    out = _out_dir(src)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    _state["seen"] = {}
    original = _state["examples"] / src.name
    namespace = script_vars.get("example_globals")
    if namespace is not None:
        namespace["__file__"] = str(original)
        namespace["__doc__"] = ast.get_docstring(ast.parse(original.read_text(encoding="utf-8")))
    # relative, so the scripts print short paths: sphinx-gallery runs them in their folder
    return ["--out", f"{OUTPUT}/{src.stem}"]


def scrape_output(block, block_vars, gallery_conf) -> str:
    """reST for the image files the block just wrote (new or changed) into the script's ``--out``."""
    out = _out_dir(block_vars["src_file"])
    if not out.is_dir():
        return ""
    new = []
    for path in sorted(p for p in out.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()):
        stamp = (path.stat().st_mtime_ns, path.stat().st_size)
        if _state["seen"].get(path) != stamp:
            _state["seen"][path] = stamp
            new.append(path)
    shown = []
    for path, target in zip(new, block_vars["image_path_iterator"]):
        target = Path(target).with_suffix(path.suffix.lower())
        shutil.copyfile(path, target)
        shown.append(str(target))
    return figure_rst(shown, gallery_conf["src_dir"]) if shown else ""


def setup(app):
    app.add_config_value("mark1_gallery_examples", "../examples", "env")
    app.connect("config-inited", stage)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


class NaturalSortKey:
    """Examples in name order with numbers read as numbers (``prml_fig4_4`` before
    ``prml_fig4_10``; plain name order put 4.10 first). Named in ``conf.py``'s
    ``within_subsection_order``; sphinx-gallery makes one with the source folder."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename) -> tuple:
        return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(filename)))
