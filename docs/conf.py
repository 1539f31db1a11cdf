"""Sphinx configuration of pybnc's documentation site.

Build it with ``python -m sphinx -W -b html docs docs/_build/html`` (``pip install -e ".[docs]"``).
The API pages are generated from the docstrings (autosummary + numpydoc); the gallery
runs the scripts under ``examples/`` (sphinx-gallery) and keeps their pictures.
"""

import os
import sys
from pathlib import Path

import pybnc

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("PYBNC_PROGRESS", "0")
os.environ.setdefault("MPLBACKEND", "Agg")

project = "pybnc"
author = "the pybnc developers"
copyright = "2026, the pybnc developers"
version = release = pybnc.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip",
                    "auto_examples/*.md5", "auto_examples/*.json", "**.ipynb_checkpoints"]
templates_path = ["_templates"]

# API pages: one per public object, generated from its docstring.
autosummary_generate = True
autosummary_imported_members = True
# inherited members are chosen by the class template (docs/_templates/autosummary/class.rst): a
# default here would override its list
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# The user guide pages are Markdown (MyST); headings get anchors for links.
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "colon_fence"]

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "pydata_sphinx_theme"
html_title = f"pybnc {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
    "header_links_before_dropdown": 4,
}
html_static_path = []
html_show_sourcelink = False
