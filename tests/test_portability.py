"""Model files across machines: saved under one CPU dispatch, loaded under another.

A model file holds everything the model predicts with (learned ``alpha_``, GDA's resolved
prior, the DCM's concentration), so a file loads anywhere and predicts within
``bayesnb.testing.PORTABLE_RTOL`` of the saving machine. "Another machine" is a subprocess
under numpy's baseline SIMD dispatch (``NPY_DISABLE_CPU_FEATURES``) and an old OpenBLAS core
(``OPENBLAS_CORETYPE``), which sum in other orders: files go both ways. Also: files whose
every float moved by a few ulp, and files with a hyperparameter changed by 1%.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import bayesnb as bnb
from bayesnb.io import ModelFileWarning
from bayesnb.testing import assert_portable_equal
from tests.file_helpers import craft
from tests.test_reproducibility import in_subprocess

ROOT = Path(__file__).resolve().parent.parent
# numpy's x86-64 feature groups above its baseline; OpenBLAS's oldest x86-64 core kernels.
LOWERED = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4", "OPENBLAS_CORETYPE": "NEHALEM"}


# -- models large enough for the summation order to matter (5000 × 40) ------------------------
def _gaussian(rng, n=5000, d=40):
    y = rng.integers(0, 3, n)
    mix = rng.normal(size=(d, d)) / np.sqrt(d)
    return rng.normal(size=(n, d)) @ mix + 3.0 + y[:, None] * 0.2, y


def _counts(rng, n=5000, v=40):
    y = rng.integers(0, 3, n)
    rate = rng.gamma(0.5, 1.0, size=(3, v))
    return rng.poisson(rate[y]).astype(float), y


def _mixed(rng):
    Xg, y = _gaussian(rng, d=10)
    Xc = rng.poisson(rng.gamma(0.5, 1.0, size=(3, 30))[y]).astype(float)
    return np.hstack([Xc, Xg]), y


def _columnwise():
    return bnb.ColumnwiseNB(
        [("words", bnb.MultinomialNB(), list(range(30))), ("gauss", bnb.GDA(), list(range(30, 40)))]
    )


MODELS = {
    "gda_shared": (lambda: bnb.GDA(covariance="shared"), _gaussian),
    "gda_per_class": (lambda: bnb.GDA(covariance="per_class"), _gaussian),
    "gda_diagonal": (lambda: bnb.GDA(covariance="diagonal"), _gaussian),
    "columnwise": (_columnwise, _mixed),
    "dcm_map": (bnb.DirichletCompoundNB, _counts),
    "dcm_mean": (lambda: bnb.DirichletCompoundNB(estimate="mean"), _counts),
    "multinomial_evidence": (
        lambda: bnb.MultinomialNB(alpha="evidence", class_alpha="evidence"),
        _counts,
    ),
    "multinomial_loo": (lambda: bnb.MultinomialNB(alpha="loo"), _counts),
    "bernoulli_evidence": (lambda: bnb.BernoulliNB(alpha="evidence"), _counts),
    "categorical": (bnb.CategoricalNB, lambda rng: _bounded(_counts(rng))),
    "poisson_evidence": (lambda: bnb.PoissonNB(alpha="evidence"), _counts),
}


def _bounded(data):
    X, y = data
    return np.minimum(X, 3.0), y


def _data(name: str):
    rng = np.random.default_rng(sorted(MODELS).index(name))
    X, y = MODELS[name][1](rng)
    return X[:4000], y[:4000], X[4000:]


def _predictions(est, X) -> dict[str, np.ndarray]:
    return {
        "proba": est.predict_proba(X),
        "joint": est.predict_joint_log_proba(X),
        "label": np.asarray(est.predict(X)),
    }


def save_all(folder: str) -> None:
    """Fit every model, save it to ``folder/<name>.nc`` and its predictions to ``.npz``."""
    for name, (make, _) in MODELS.items():
        X, y, X_test = _data(name)
        est = make().fit(X, y)
        est.save(Path(folder) / f"{name}.nc")
        np.savez(Path(folder) / f"{name}.npz", **_predictions(est, X_test))


def predict_all(src: str, out: str) -> None:
    """Load every model of ``src`` and save the loaded models' predictions to ``out``."""
    for name in MODELS:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ModelFileWarning)  # rounding is not a warning
            est = bnb.load(Path(src) / f"{name}.nc")
        np.savez(Path(out) / f"{name}.npz", **_predictions(est, _data(name)[2]))


def _compare(got_dir: Path, want_dir: Path) -> None:
    for name in MODELS:
        with np.load(got_dir / f"{name}.npz") as got, np.load(want_dir / f"{name}.npz") as want:
            for key in want.files:
                assert_portable_equal(got[key], want[key], err_msg=f"{name} {key}")


@pytest.fixture(scope="module")
def x86_64():
    features = np._core._multiarray_umath.__cpu_features__
    if not features.get("X86_V3"):
        pytest.skip("numpy's X86_V3 dispatch is not available here: nothing to lower")


def test_files_cross_cpu_dispatch_both_ways(tmp_path, x86_64):
    here, there = tmp_path / "here", tmp_path / "there"
    loaded_there, loaded_here = tmp_path / "loaded_there", tmp_path / "loaded_here"
    for folder in (here, there, loaded_there, loaded_here):
        folder.mkdir()
    save_all(str(here))
    code = (
        "import json, numpy as np; from tests.test_portability import save_all, predict_all; "
        f"predict_all({str(here)!r}, {str(loaded_there)!r}); save_all({str(there)!r}); "
        "f = np._core._multiarray_umath.__cpu_features__; "
        "print(json.dumps({'X86_V3': f['X86_V3'], 'X86_V4': f['X86_V4']}))"
    )
    features = json.loads(in_subprocess(code, **LOWERED))
    assert features == {"X86_V3": False, "X86_V4": False}  # the other dispatch was in force
    predict_all(str(there), str(loaded_here))
    _compare(loaded_there, here)  # saved here, loaded there
    _compare(loaded_here, there)  # saved there, loaded here


# -- files edited after saving ------------------------------------------------------------------
def _nudge(tree, ulps: int = 3) -> None:
    """Move every stored float (arrays and learned scalars) ``ulps`` ulp towards +inf."""
    for node in tree.subtree:
        for name, var in node.dataset.data_vars.items():
            if var.dtype.kind == "f":
                values = var.values.copy()
                for _ in range(ulps):
                    values = np.nextafter(values, np.inf)
                node[name] = var.copy(data=values)
        if "fitted" in node.attrs:
            fitted = json.loads(node.attrs["fitted"])
            for key in ("alpha_", "class_alpha_"):
                if isinstance(fitted.get(key), float):
                    fitted[key] = float(np.nextafter(fitted[key], np.inf))
            node.attrs["fitted"] = json.dumps(fitted, sort_keys=True)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("portable")
    save_all(str(folder))
    return folder


@pytest.mark.parametrize("name", list(MODELS))
def test_every_float_moved_by_a_few_ulp_loads_and_predicts_within_tolerance(saved, tmp_path, name):
    path = craft(saved / f"{name}.nc", tmp_path / "nudged.nc", _nudge)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelFileWarning)
        est = bnb.load(path)
    with np.load(saved / f"{name}.npz") as want:
        got = _predictions(est, _data(name)[2])
        for key in want.files:
            assert_portable_equal(got[key], want[key], err_msg=f"{name} {key}")


def _scale_group(group: str, var: str, factor: float):
    def edit(tree):
        node = tree["blocks"]["gauss"] if "blocks" in tree.children else tree
        node[group][var] = node[group][var] * factor

    return edit


@pytest.mark.parametrize("name", ["gda_shared", "gda_per_class", "gda_diagonal", "columnwise"])
def test_gda_prior_changed_by_one_percent_is_used_or_refused(saved, tmp_path, name):
    X_test = _data(name)[2]
    original = bnb.load(saved / f"{name}.nc")
    unsealed = craft(
        saved / f"{name}.nc", tmp_path / "u.nc", _scale_group("prior", "psi0", 1.01), False
    )
    with pytest.raises(ValueError, match="checksum"):
        bnb.load(unsealed)
    sealed = craft(saved / f"{name}.nc", tmp_path / "s.nc", _scale_group("prior", "psi0", 1.01))
    with pytest.warns(ModelFileWarning, match=r"psi0 derived from the file's statistics"):
        est = bnb.load(sealed)
    gda = est.named_estimators_["gauss"] if name == "columnwise" else est
    gda0 = original.named_estimators_["gauss"] if name == "columnwise" else original
    np.testing.assert_array_equal(gda.prior_.psi0, gda0.prior_.psi0 * 1.01)
    # The stored prior is what it predicts with: the same as a fit under that prior, pinned.
    X, y, _ = _data(name)
    cols = slice(30, 40) if name == "columnwise" else slice(None)
    pinned = bnb.GDA(covariance=gda.covariance, prior=gda.prior_).fit(X[:, cols], y)
    np.testing.assert_allclose(
        gda.predict_joint_log_proba(X_test[:, cols]),
        pinned.predict_joint_log_proba(X_test[:, cols]),
        rtol=1e-10,
    )
    assert not np.allclose(est.predict_proba(X_test), original.predict_proba(X_test), rtol=1e-6)


@pytest.mark.parametrize("name", ["dcm_map", "dcm_mean"])
def test_dcm_concentration_is_loaded_not_refitted(saved, tmp_path, name):
    X_test = _data(name)[2]
    original = bnb.load(saved / f"{name}.nc")
    assert original.n_iter_ == 0  # no Newton iteration at load
    fresh = MODELS[name][0]().fit(*_data(name)[:2])
    np.testing.assert_array_equal(original.concentration_, fresh.concentration_)
    path = craft(
        saved / f"{name}.nc", tmp_path / "s.nc", _scale_group("learned", "concentration", 1.01)
    )
    est = bnb.load(path)
    np.testing.assert_array_equal(est.concentration_, fresh.concentration_ * 1.01)
    assert not np.allclose(est.predict_proba(X_test), fresh.predict_proba(X_test), rtol=1e-9)
    # Another estimate set after loading fits its own β from the statistics.
    est.set_params(estimate="mle")
    assert est.n_iter_ > 0
    np.testing.assert_array_equal(
        est.concentration_, fresh.set_params(estimate="mle").concentration_
    )


def test_learned_alpha_changed_by_one_percent_is_used(saved, tmp_path):
    X, y, X_test = _data("multinomial_evidence")
    original = bnb.load(saved / "multinomial_evidence.nc")

    def edit(tree):
        fitted = json.loads(tree.attrs["fitted"])
        fitted["alpha_"] *= 1.01
        tree.attrs["fitted"] = json.dumps(fitted, sort_keys=True)

    est = bnb.load(craft(saved / "multinomial_evidence.nc", tmp_path / "a.nc", edit))
    assert est.alpha_ == original.alpha_ * 1.01
    fixed = bnb.MultinomialNB(alpha=original.alpha_ * 1.01, class_alpha=original.class_alpha_)
    np.testing.assert_array_equal(est.predict_proba(X_test), fixed.fit(X, y).predict_proba(X_test))


def test_gda_partial_fit_after_load_resolves_the_prior_again(saved):
    X, y, X_more = _data("gda_shared")
    est = bnb.load(saved / "gda_shared.nc")
    y_more = np.arange(len(X_more)) % 3
    est.partial_fit(X_more, y_more)
    both = bnb.GDA().fit(np.vstack([X, X_more]), np.concatenate([y, y_more]))
    np.testing.assert_allclose(est.prior_.psi0, both.prior_.psi0, rtol=1e-12)
    np.testing.assert_allclose(est.prior_.mu0, both.prior_.mu0, rtol=1e-12)


def test_format_1_dcm_file_fits_its_concentration_on_load():
    est = bnb.load(ROOT / "tests" / "data" / "golden" / "dcm_map.nc")  # written as format 1
    assert est.n_iter_ > 0
