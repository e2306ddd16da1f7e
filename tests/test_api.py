"""The package namespace: one name, one thing; every name of the API reference reachable as
an attribute of ``bayesnb``; ``import bayesnb`` and ``bayesnb --help`` import no heavy
library."""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

import numpy as np

import bayesnb as bnb
from tests.test_reproducibility import in_subprocess

ROOT = Path(__file__).resolve().parent.parent
# What costs seconds to import (measured with python -X importtime: scikit-learn 1.0 s,
# ArviZ 0.8 s, SciPy's stats 0.6 s, pandas 0.3 s, matplotlib 0.2 s, PyMC 0.9 s).
HEAVY = ("sklearn", "scipy", "pandas", "xarray", "arviz", "matplotlib", "pymc", "pytensor")


def _modules_after(code: str) -> list[str]:
    """The top-level packages imported in a fresh process by ``code``."""
    listing = "import json, sys; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    return json.loads(in_subprocess(f"{code}\n{listing}"))


def test_import_bayesnb_imports_no_heavy_library():
    loaded = _modules_after("import bayesnb")
    assert "bayesnb" in loaded
    assert not [m for m in HEAVY if m in loaded], loaded


def test_bayesnb_help_imports_only_the_command_names():
    code = (
        "import contextlib, io\n"
        "from bayesnb.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0, exc.code\n"
        "assert 'predict' in out.getvalue() and 'compare' in out.getvalue()\n"
    )
    loaded = _modules_after(code)
    assert not [m for m in (*HEAVY, "numpy") if m in loaded], loaded


def test_a_submodule_is_an_attribute_without_an_explicit_import():
    code = (
        "import bayesnb\n"
        "assert bayesnb.io.load is not None and bayesnb.io.FORMAT_VERSION >= 2\n"
        "assert bayesnb.comparison.all_estimates is not None\n"
        "assert bayesnb.families.names()[:2] == ['bernoulli', 'multinomial']\n"
    )
    assert "xarray" in _modules_after(code)  # bayesnb.io was imported on first use


def test_compare_is_the_function_and_comparison_its_module():
    import bayesnb.comparison as comparison

    assert isinstance(comparison, types.ModuleType)
    assert callable(bnb.compare) and not isinstance(bnb.compare, types.ModuleType)
    assert bnb.compare is comparison.compare
    entries = bnb.comparison.all_estimates(bnb.MultinomialNB(), map_params={"alpha": 2.0})
    assert sorted(entries) == ["bayes", "map", "mean", "mle"]
    assert [entries[e].estimate for e in ("mle", "map")] == ["mle", "map"]
    assert entries["map"].alpha == 2.0 and entries["mean"].alpha == 1.0


def test_learning_curve_stays_the_function_whatever_was_imported_first():
    code = (
        "import bayesnb.curves\n"
        "import bayesnb\n"
        "assert callable(bayesnb.learning_curve)\n"
        "assert bayesnb.learning_curve is bayesnb.curves.learning_curve\n"
    )
    _modules_after(code)  # an AssertionError in the process fails the test


def test_every_entry_of_the_api_reference_is_an_attribute_of_bayesnb():
    text = (ROOT / "docs" / "api.rst").read_text()
    names = re.findall(r"^   ([A-Za-z_][\w.]*)$", text, flags=re.M)
    assert "comparison.all_estimates" in names and "io" in names
    for name in names:
        obj = bnb
        for part in name.split("."):
            obj = getattr(obj, part)  # AttributeError names the entry that does not resolve
        assert obj is not None, name


def test_dir_lists_the_lazy_names():
    listed = dir(bnb)
    assert {"MultinomialNB", "compare", "io", "comparison", "load"} <= set(listed)


def test_mixed_labels_as_scikit_learn_sees_them():
    """A list [1, "a"] is numpy's strings (scikit-learn's classes too); an object array of
    mixed types is refused by name (scikit-learn's MultinomialNB fails sorting it)."""
    import pytest
    from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

    X = np.array([[3, 0], [0, 2], [2, 1], [1, 4]])
    labels = [1, "a", 1, "a"]
    ours, theirs = bnb.MultinomialNB().fit(X, labels), SkMultinomialNB().fit(X, labels)
    assert ours.classes_.tolist() == theirs.classes_.tolist() == ["1", "a"]
    assert ours.predict(X).tolist() == theirs.predict(X).tolist() == ["1", "a", "1", "a"]
    mixed = np.array(labels, dtype=object)
    with pytest.raises(TypeError):
        SkMultinomialNB().fit(X, mixed)
    with pytest.raises(ValueError, match=r"y mixes label types \(1 \(int\), 'a' \(str\)\)"):
        bnb.MultinomialNB().fit(X, mixed)
    with pytest.raises(ValueError, match="classes mixes label types"):
        bnb.MultinomialNB().partial_fit(X, [1, 1, 1, 1], classes=np.array([1, "a"], dtype=object))
    # One type in an object array is kept as given.
    kept = bnb.MultinomialNB().fit(X, np.array([1, 2, 1, 2], dtype=object))
    assert kept.classes_.tolist() == [1, 2] and kept.predict(X).tolist() == [1, 2, 1, 2]
