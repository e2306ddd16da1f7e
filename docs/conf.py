"""Sphinx configuration: pydata theme, numpydoc, autosummary, MyST and the example gallery.

Everything builds offline: no intersphinx inventories, no remote images. ``make docs``
runs ``sphinx-build -W --keep-going``, so a broken docstring or a failing example is an error.
"""

import inspect
import os
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "sphinxext"))
os.environ.setdefault("PYTENSOR_FLAGS", "blas__ldflags=")
os.environ.setdefault("MPLBACKEND", "agg")

from threadpoolctl import threadpool_limits  # noqa: E402

import bayesnb  # noqa: E402

# The examples are small: one BLAS thread each. On a shared 2-core machine BLAS threads
# oversubscribe the cores, and scikit-learn's LogisticRegression fits ran ~10× slower.
threadpool_limits(limits=1)

project = "bayesnb"
author = "the bayesnb developers"
copyright = "the bayesnb developers"
release = bayesnb.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.ipynb"]

# -- autodoc / autosummary / numpydoc -------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autosummary_ignore_module_all = False  # module pages list their __all__
autodoc_default_options = {"member-order": "groupwise"}
autodoc_typehints = "none"  # the numpydoc "Parameters" sections carry the types
numpydoc_show_class_members = False  # the class template lists members itself
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
# Validate what a reader would miss: a public object without a docstring (GL08), and
# docstring sections numpydoc cannot parse (the parse errors are Sphinx warnings anyway).
numpydoc_validation_checks = {"GL08"}
numpydoc_validation_exclude = {r"\.__init__$", r"\.set_\w+_request$", r"get_metadata_routing$"}

# -- MyST ------------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# -- gallery ---------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "gallery_order.ExampleOrder",
    "abort_on_example_error": False,  # run every example, then fail the build on any error
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "reset_modules": ("matplotlib",),
    "matplotlib_animations": False,
    "show_memory": False,
    "min_reported_time": 1,
    "doc_module": ("bayesnb",),
    "backreferences_dir": "generated/backreferences",
    "reference_url": {"bayesnb": None},
    "show_signature": False,
}

# Examples print what they mean to; library chatter would only clutter their output.
warnings.filterwarnings("ignore", message="PyTensor could not link to a BLAS")

# -- HTML ------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"bayesnb {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
}
html_show_sourcelink = True
html_context = {"default_mode": "light"}


def _skip(app, what, name, obj, skip, options):
    # scikit-learn's metadata-routing setters are generated per class; they say nothing
    # about these models.
    if name == "get_metadata_routing" or (name.startswith("set_") and name.endswith("_request")):
        return True
    return skip


def _data_docstring(app, what, name, obj, options, lines):
    # A module constant without a doc comment inherits its type's docstring (str, tuple...);
    # say what the constant is instead, or nothing.
    if what != "data":
        return
    if name == "bayesnb.__version__":
        lines[:] = ["The installed version of bayesnb (from the package metadata)."]
        return
    type_doc = inspect.getdoc(type(obj)) or ""
    if "\n".join(lines).strip() == type_doc.strip():
        lines[:] = []


def setup(app):
    app.connect("autodoc-skip-member", _skip)
    app.connect("autodoc-process-docstring", _data_docstring, priority=400)
