"""The documentation: every public name has an API page, and the API reference builds.

The full site (the gallery runs every ``examples/plot_*.py``) is built by ``make docs``,
which ``.ci/run`` runs after the test suite; here the API reference and the user guide are
built without executing the examples (``plot_gallery=0``), with warnings as errors, so a
broken docstring fails the tests in seconds.
"""

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bayesnb

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"

pytest.importorskip("sphinx")
pytest.importorskip("sphinx_gallery")
pytest.importorskip("numpydoc")
pytest.importorskip("myst_parser")
pytest.importorskip("pydata_sphinx_theme")


def _api_entries() -> set[str]:
    """Fully qualified names listed in the autosummary tables of docs/api.rst."""
    text = (DOCS / "api.rst").read_text()
    names, module = set(), None
    in_table = False
    for line in text.splitlines():
        if m := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = m.group(1)
        elif line.startswith(".. autosummary::"):
            in_table = True
        elif in_table and re.match(r"^   [A-Za-z_][\w.]*$", line):
            name = line.strip()
            names.add(name if name.startswith("bayesnb") else f"{module}.{name}")
        elif in_table and line and not line.startswith(" "):
            in_table = False
    return names


def test_every_public_name_is_in_the_api_reference():
    listed = _api_entries()
    missing = sorted(f"bayesnb.{n}" for n in bayesnb.__all__ if f"bayesnb.{n}" not in listed)
    assert not missing, f"names of bayesnb.__all__ missing from docs/api.rst: {missing}"


def test_examples_state_their_point_and_are_in_the_gallery_order():
    sys.path.insert(0, str(DOCS / "sphinxext"))
    try:
        from gallery_order import ORDER
    finally:
        sys.path.remove(str(DOCS / "sphinxext"))
    scripts = sorted(p.name for p in EXAMPLES.glob("plot_*.py"))
    assert len(scripts) >= 10
    assert sorted(ORDER) == scripts, "docs/sphinxext/gallery_order.py must list every example"
    for name in scripts:
        doc = ast.get_docstring(ast.parse((EXAMPLES / name).read_text()))
        assert doc, f"{name} has no docstring"
        title, underline, *body = doc.splitlines()
        assert set(underline) == {"="} and len(underline) >= len(title), name
        point = " ".join(body).strip()
        assert len(point) > 150, f"{name} must state its point in its first lines"


def test_api_reference_builds_with_a_page_for_every_public_name(tmp_path):
    src = tmp_path / "docs"
    ignore = shutil.ignore_patterns("_build", "generated", "auto_examples", "__pycache__")
    shutil.copytree(DOCS, src, ignore=ignore)
    shutil.copytree(EXAMPLES, tmp_path / "examples", ignore=ignore)
    out = tmp_path / "html"
    cmd = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-b",
        "html",
        "-D",
        "plot_gallery=0",
        str(src),
        str(out),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    pages = {p.stem for p in (out / "generated").glob("*.html")}
    missing = sorted(f"bayesnb.{n}" for n in bayesnb.__all__ if f"bayesnb.{n}" not in pages)
    assert not missing, f"no API page for {missing}"
    # a class page documents the inherited estimator methods, a module page its functions
    multinomial = (out / "generated" / "bayesnb.MultinomialNB.html").read_text()
    for method in ("fit", "predict_proba", "sample_posterior", "fit_pymc", "log_evidence"):
        assert f"bayesnb.MultinomialNB.{method}" in multinomial, method
    assert "bayesnb.datasets.load_fortunes" in {p.stem for p in (out / "generated").glob("*")}


def test_docs_build_offline():
    # The CI network is closed: no intersphinx inventories (the only downloads Sphinx does).
    assert "sphinx.ext.intersphinx" not in (DOCS / "conf.py").read_text()
