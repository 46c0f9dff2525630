"""Sphinx configuration of the skcgm documentation.

The build is fully offline: no intersphinx, no remote images, and the gallery
examples use synthetic data only.
"""

import os
import sys
from importlib.util import find_spec
from pathlib import Path

# The documented package is the installed one (``pip install ".[docs]"``): its
# compiled kernels exist only in a built copy.
import skcgm

# -- Project information -------------------------------------------------------

project = "skcgm"
author = "The skcgm developers"
copyright = "The skcgm developers"
release = skcgm.__version__
version = ".".join(release.split(".")[:2])

# -- General configuration -----------------------------------------------------

# The "Choosing an estimator" page's tables, rendered from the recorded results.
sys.path.insert(0, str(Path(__file__).parent / "_ext"))

extensions = [
    "choosing",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
root_doc = "index"
default_role = "literal"

# autodoc / autosummary
autosummary_generate = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"

# numpydoc: the class template lists the members itself.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# MathJax is loaded by the browser; offline readers see the TeX source.
mathjax3_config = {"tex": {"macros": {"R": "\\mathbb{R}"}}}

# -- sphinx-gallery ------------------------------------------------------------

os.environ.setdefault("MPLBACKEND", "Agg")

sphinx_gallery_conf = {
    "doc_module": "skcgm",
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "backreferences_dir": "generated",
    # SumOfMinKMeans is also importable from the top-level package; attach the
    # backreferences to the subpackage paths the API reference documents.
    "prefer_full_module": {r"^skcgm\.[a-z_]+\."},
    "reference_url": {"skcgm": None},
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
}

# -- HTML output ---------------------------------------------------------------

if find_spec("pydata_sphinx_theme") is not None:
    html_theme = "pydata_sphinx_theme"
    html_theme_options = {
        "navbar_align": "left",
        "show_toc_level": 2,
        "secondary_sidebar_items": ["page-toc"],
    }
else:
    html_theme = "alabaster"
    html_theme_options = {}

html_title = f"skcgm {release}"
html_static_path = []
html_show_sourcelink = False


def _skip_metadata_routing(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated metadata-routing methods.

    The class pages list the methods an estimator defines or inherits from
    skcgm's own bases (``:inherited-members:``); the ``set_*_request`` and
    ``get_metadata_routing`` methods scikit-learn attaches to every
    estimator are documented by scikit-learn.
    """
    if name == "get_metadata_routing" or (
        name.startswith("set_") and name.endswith("_request")
    ):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_routing)
