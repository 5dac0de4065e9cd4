"""Sphinx configuration of mark1's documentation.

Build (warnings are errors; the examples run, about two minutes on two cores)::

    pip install -e '.[docs]'
    python -m sphinx -W --keep-going -b html docs docs/_build/html

Generated at every build, not kept in git: ``api/modules/`` (one page per public module,
from its ``__all__``, by ``_ext/mark1_apigen.py``), ``api/generated/`` (one page per
object, by autosummary), ``_gallery_src/`` and ``auto_examples/`` (the gallery, by
``_ext/mark1_gallery.py`` and sphinx-gallery), ``guide/cli/`` (``mark1 CMD --help``).
No network is used: no intersphinx inventories are fetched.
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import version as _version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

project = "mark1"
author = "the mark1 authors"
copyright = "2026, the mark1 authors"
release = _version("mark1")
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_design",
    "sphinx_gallery.gen_gallery",
    "mark1_apigen",
    "mark1_gallery",
    "mark1_cli",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_gallery_src", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "**/*.md5", "**/*.pickle"]
templates_path = ["_templates"]
smartquotes = False                     # "--workers" in the Markdown findings stays two hyphens

# -- API reference ------------------------------------------------------------------------
apigen_package = "mark1"
apigen_exclude = ["mark1.cli"]          # the command line has its own page in the guide
apigen_order = ["mark1", "mark1.machine", "mark1.specs", "mark1.devices", "mark1.theory", "mark1.linear_model",
                "mark1.stimuli", "mark1.lab", "mark1.stats", "mark1.viz", "mark1.classroom", "mark1.exceptions"]

autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"              # numpydoc's Parameters say the types, with shapes and units
autodoc_preserve_defaults = True        # spec=specs.MARK_I, not the repr of every field
autodoc_member_order = "bysource"
autodoc_inherit_docstrings = True
autodoc_default_options = {"exclude-members": "__init__, __new__, __weakref__, __dict__, __module__"}
add_module_names = False

numpydoc_show_class_members = False     # autodoc's :members: documents them; no second table
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- Markdown pages (the findings, the scene format) ----------------------------------------
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

# -- Gallery -----------------------------------------------------------------------------
mark1_gallery_examples = "../examples"
sphinx_gallery_conf = {
    "examples_dirs": "_gallery_src",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"\.py$",               # run every example (default: only plot_*.py)
    "within_subsection_order": "mark1_gallery.NaturalSortKey",
    "image_scrapers": ("mark1_gallery.scrape_output",),
    "reset_argv": "mark1_gallery.reset_argv",
    "capture_repr": (),
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "min_reported_time": 1,
}

# -- HTML --------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"mark1 {release}"
html_static_path = ["_static"]
html_css_files = ["mark1.css"]
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "collapse_navigation": True,        # the sidebar of ~250 pages is built per page: keep it to the branch
    "navigation_depth": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": [], "changelog": []}
