"""Golden numbers: today's behaviour of every model family, on any machine.

``tests/data/make_golden.py`` fitted one small model per configuration, saved it to
``tests/data/golden/<name>.nc`` and recorded its numbers in ``<name>.npz`` (predictions under
every estimate, log evidence, learned ``alpha_``, seeded posterior draws, point estimates,
``sample()``, ``label_log_likelihood``, and which of these the model refuses). Two sources
are checked against every recorded quantity:

- ``loaded``: the saved file, read back with ``bayesnb.load`` (old model files still load
  and score the same);
- ``refit``: a fresh estimator fitted on the stored training data (the same fit, the same
  seeded draws in the same order of rng calls).

Floats are compared as bayesnb promises across machines (``bayesnb.testing.
assert_portable_equal``: NaN, infinities and zeros at the same places, other values within
``PORTABLE_RTOL`` of their array's scale), everything else exactly: the fixtures were
written on one CPU and are checked on any other (``.ci/run`` runs this file again under
numpy's baseline dispatch and an old OpenBLAS core). A failure names the model, the source
and the quantity. Regenerate the fixtures only when a change of numbers is intended. No PyMC
here: the whole file runs in seconds.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import bayesnb as bnb
from bayesnb.testing import assert_portable_equal

DATA = Path(__file__).resolve().parent / "data"
GOLDEN = DATA / "golden"


def _generator():
    spec = importlib.util.spec_from_file_location("make_golden", DATA / "make_golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _generator()
SOURCES = ("loaded", "refit")


@cache
def expected(name: str) -> dict[str, np.ndarray]:
    with np.load(GOLDEN / f"{name}.npz") as f:
        return {k: f[k] for k in f.files}


@cache
def actual(name: str, source: str) -> dict[str, np.ndarray]:
    exp = expected(name)
    if source == "loaded":
        est = bnb.load(GOLDEN / f"{name}.nc")
    else:
        est = gen.fit(name, exp["X_train"], exp["y_train"])
    return gen.record(est, exp["X_test"], exp["y_test"])


def _cases():
    for name in gen.SPECS:
        for key in expected(name):
            if key not in gen.DATA_KEYS:
                for source in SOURCES:
                    yield pytest.param(name, source, key, id=f"{name}-{source}-{key}")


def test_every_configuration_has_fixtures():
    assert set(gen.SPECS) == {p.stem for p in GOLDEN.glob("*.npz")}
    assert set(gen.SPECS) == {p.stem for p in GOLDEN.glob("*.nc")}


def test_training_data_is_the_generators():
    # The stored data is what the test refits on; regenerating it must give the same arrays,
    # or make_golden.py no longer describes the fixtures.
    for name, (_, data) in gen.SPECS.items():
        for key, value in zip(gen.DATA_KEYS, data(), strict=True):
            assert_portable_equal(value, expected(name)[key], err_msg=f"{name} {key}")


@pytest.mark.parametrize("name", list(gen.SPECS))
@pytest.mark.parametrize("source", SOURCES)
def test_same_quantities(name, source):
    """Nothing recorded has disappeared and nothing new is computed."""
    recorded = set(expected(name)) - set(gen.DATA_KEYS)
    assert set(actual(name, source)) == recorded


@pytest.mark.parametrize(("name", "source", "key"), list(_cases()))
def test_golden(name, source, key):
    got = actual(name, source)
    assert key in got, f"{name} ({source}) no longer computes {key}"
    # Shape and dtype too; NaN and -inf (MLE log(0)) at the same places.
    assert_portable_equal(got[key], expected(name)[key], err_msg=f"{name} ({source}) {key}")
