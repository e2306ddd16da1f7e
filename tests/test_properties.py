"""Property-based tests (hypothesis) over every estimator × estimate.

Each property runs on generated data sets (tests/strategies.py) for the five count/discrete
models (Bernoulli, multinomial, categorical, Poisson, DCM), GDA × covariance type and a
two-block ColumnwiseNB (multinomial counts + diagonal GDA), under every estimate each model
computes (the DCM has no "bayes"). The ``missing="ignore"`` properties run on the same
configurations. Profiles: tests/conftest.py ("ci" by default, deterministic;
``HYPOTHESIS_PROFILE=long`` for ``make fuzz``).
"""

from __future__ import annotations

import os
import tempfile
import warnings
from contextlib import contextmanager

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

import bayesnb as bnb
from bayesnb.validation import MissingValueWarning
from tests.strategies import (
    SPECS,
    cases,
    estimates_of,
    estimator_factory,
    split_points,
    with_missing,
)

CONFIGS = [
    pytest.param(model, cov, est, id=f"{model}{'-' + cov if cov else ''}-{est}")
    for model, cov in SPECS
    for est in estimates_of(model)
]
# Models that take sparse X (GDA, and so a ColumnwiseNB with a GDA block, refuse it).
DISCRETE_CONFIGS = [p for p in CONFIGS if p.values[0] not in ("gda", "columnwise")]
# Models with a ``dtype`` parameter (float32 tables); ColumnwiseNB has none of its own.
DTYPE_CONFIGS = [
    p
    for p in CONFIGS
    if p.values[0] != "columnwise" and "dtype" in estimator_factory(*p.values)().get_params()
]
TOL = 1e-10  # reordering sums of a few hundred terms costs ~1e-13; 1e-10 leaves margin


@contextmanager
def strict_warnings(estimate: str, missing: bool = False):
    """Every warning is an error, except the documented one of an unsmoothed MLE (and, with
    ``missing``, the MissingValueWarning of a model that fits on complete rows only)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if estimate == "mle":
            warnings.filterwarnings(
                "ignore", message=r".*probability 0 under every class", category=RuntimeWarning
            )
        # Documented ConvergenceWarning: without overdispersion (or with one feature, where the
        # Pólya likelihood is flat in β) the DCM's scale B_c is poorly determined and its fixed
        # point crawls (the MLE runs towards B_c = ∞); the properties must hold all the same.
        warnings.filterwarnings(
            "ignore", message=r"DirichletCompoundNB: the (fixed point|Newton iteration)"
        )
        if missing:
            warnings.simplefilter("ignore", MissingValueWarning)
        yield


def fitted(case, X=None, y=None, w=None, **params):
    est = case.make().set_params(**params)
    X = case.X if X is None else X
    y = case.y if y is None else y
    w = case.weights if w is None else w
    return est.fit(X, y, sample_weight=w)


def outputs(est, X):
    """Everything a fitted model predicts on X."""
    return {
        "joint": est.predict_joint_log_proba(X),
        "log_proba": est.predict_log_proba(X),
        "proba": est.predict_proba(X),
        "predict": est.predict(X),
    }


def assert_identical(a: dict, b: dict) -> None:
    """Two ``outputs`` agree bit for bit."""
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def tolerance(model: str, estimate: str) -> float:
    """TOL, except for the DCM: when its fixed point crawls (ConvergenceWarning above) it stops
    at max_iter, where statistics summed in another order (float weights) leave β a few 1e-9
    apart."""
    return 1e-7 if model == "dcm" else TOL


def assert_close(a: dict, b: dict, tol: float = TOL) -> None:
    """Probabilities agree to ``tol``; labels agree wherever the top class is not a near-tie."""
    np.testing.assert_allclose(a["proba"], b["proba"], rtol=tol, atol=tol)
    p = np.sort(a["proba"], axis=1)
    clear = p[:, -1] - p[:, -2] > 1e-8
    np.testing.assert_array_equal(a["predict"][clear], b["predict"][clear])


@pytest.mark.parametrize(("model", "cov", "estimate"), CONFIGS)
@given(data=st.data())
def test_proba_rows_are_distributions(model, cov, estimate, data):
    case = data.draw(cases(model, cov, estimate))
    with strict_warnings(estimate):
        est = fitted(case)
        for X in (case.X_test, case.X):
            p = est.predict_proba(X)
            assert p.shape == (X.shape[0], len(case.classes))
            assert np.all(np.isfinite(p))
            assert np.all(p >= 0)
            np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
            np.testing.assert_allclose(np.exp(est.predict_log_proba(X)), p, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize(("model", "cov", "estimate"), CONFIGS)
@given(data=st.data())
def test_shuffling_rows_changes_nothing(model, cov, estimate, data):
    case = data.draw(cases(model, cov, estimate))
    order = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).permutation(case.n_samples)
    w = None if case.weights is None else case.weights[order]
    with strict_warnings(estimate):
        a = outputs(fitted(case), case.X_test)
        b = outputs(fitted(case, case.X[order], case.y[order], w), case.X_test)
    assert_close(a, b, tolerance(model, estimate))


@pytest.mark.parametrize(("model", "cov", "estimate"), CONFIGS)
@given(data=st.data())
def test_partial_fit_over_any_split_equals_fit(model, cov, estimate, data):
    case = data.draw(cases(model, cov, estimate))
    cuts = data.draw(split_points(case.n_samples))
    with strict_warnings(estimate):
        a = outputs(fitted(case), case.X_test)
        est = case.make()
        for rows in np.split(np.arange(case.n_samples), cuts):
            w = None if case.weights is None else case.weights[rows]
            est.partial_fit(case.X[rows], case.y[rows], classes=case.classes, sample_weight=w)
        b = outputs(est, case.X_test)
    assert_close(a, b, tolerance(model, estimate))


@pytest.mark.parametrize(("model", "cov", "estimate"), DISCRETE_CONFIGS)
@given(data=st.data())
def test_dense_equals_sparse(model, cov, estimate, data):
    case = data.draw(cases(model, cov, estimate))
    dense, dense_test = case.dense(case.X), case.dense(case.X_test)
    with strict_warnings(estimate):
        a = outputs(fitted(case, X=dense), dense_test)
        b = outputs(fitted(case, X=sp.csr_matrix(dense)), sp.csr_matrix(dense_test))
        c = outputs(fitted(case, X=dense), sp.csr_matrix(dense_test))
    assert_close(a, b, tolerance(model, estimate))
    assert_close(a, c, tolerance(model, estimate))


@pytest.fixture(scope="module")
def model_dir():
    # Module-scoped: hypothesis re-runs the test body many times per function-scoped fixture.
    with tempfile.TemporaryDirectory(prefix="bayesnb-props-") as d:
        yield d


@pytest.mark.parametrize(("model", "cov", "estimate"), CONFIGS)
# netCDF writes dominate the run time: a third of the profile's examples.
@settings(max_examples=max(5, settings().max_examples // 3))
@given(data=st.data())
def test_save_load_is_bit_for_bit(model, cov, estimate, data, model_dir):
    case = data.draw(cases(model, cov, estimate))
    path = os.path.join(model_dir, f"{model}-{cov}-{estimate}.nc")
    with strict_warnings(estimate):
        est = fitted(case)
        est.save(path)
        loaded = bnb.load(path)
        assert type(loaded) is type(est)
        for X in (case.X_test, case.X):
            assert_identical(outputs(est, X), outputs(loaded, X))


@pytest.mark.parametrize(("model", "cov", "estimate"), CONFIGS)
@given(data=st.data())
def test_clone_and_refit_is_bit_for_bit(model, cov, estimate, data):
    case = data.draw(cases(model, cov, estimate))
    with strict_warnings(estimate):
        est = fitted(case)
        again = clone(est).fit(case.X, case.y, sample_weight=case.weights)
        assert_identical(outputs(est, case.X_test), outputs(again, case.X_test))


@pytest.mark.parametrize(("model", "cov", "estimate"), DTYPE_CONFIGS)
@given(data=st.data())
def test_float32_argmax_equals_float64(model, cov, estimate, data):
    case = data.draw(cases(model, cov, estimate))
    assert "dtype" in case.make().get_params()
    with strict_warnings(estimate):
        est64 = fitted(case, dtype="float64")
        est32 = fitted(case, dtype="float32")
        joint = est64.predict_joint_log_proba(case.X_test)
        top, second = np.sort(joint, axis=1)[:, :-3:-1].T
        with np.errstate(invalid="ignore"):  # -inf - -inf: both estimates are all -inf
            margin = top - second
        # An impossible document falls back to the (float64) class prior in both precisions.
        margin[np.isneginf(top)] = np.inf
        # float32 rounds each log-table entry by ~6e-8 relative: only clear winners must agree.
        scale = np.abs(joint).max(axis=1, initial=0.0, where=np.isfinite(joint))
        clear = margin > 1e-4 * (1.0 + scale)
        p64, p32 = est64.predict(case.X_test), est32.predict(case.X_test)
    np.testing.assert_array_equal(p64[clear], p32[clear])


# --- missing="ignore" -----------------------------------------------------------------------


@pytest.mark.parametrize(("model", "cov", "estimate"), CONFIGS)
@given(data=st.data())
def test_missing_ignore_without_nan_is_missing_error(model, cov, estimate, data):
    case = data.draw(cases(model, cov, estimate))
    with strict_warnings(estimate):
        a = fitted(case, missing="error")
        b = fitted(case, missing="ignore")
        for X in (case.X_test, case.X):
            assert_identical(outputs(a, X), outputs(b, X))


@pytest.mark.parametrize(("model", "cov", "estimate"), CONFIGS)
@given(data=st.data())
def test_missing_ignore_proba_rows_are_distributions(model, cov, estimate, data):
    case = data.draw(with_missing(cases(model, cov, estimate)))
    with strict_warnings(estimate, missing=True):
        est = fitted(case, missing="ignore")
        for X in (case.X_test, case.X):
            p = est.predict_proba(X)
            assert p.shape == (X.shape[0], len(case.classes))
            assert np.all(np.isfinite(p))
            assert np.all(p >= 0)
            np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        # The all-NaN last test row carries no evidence: its posterior is the class prior.
        np.testing.assert_allclose(
            est.predict_log_proba(case.X_test[-1:])[0], est.class_log_prior_, rtol=1e-12, atol=1e-12
        )


@pytest.mark.parametrize(("model", "cov", "estimate"), CONFIGS)
@given(data=st.data())
def test_missing_ignore_partial_fit_over_any_split_equals_fit(model, cov, estimate, data):
    case = data.draw(with_missing(cases(model, cov, estimate)))
    cuts = data.draw(split_points(case.n_samples))
    with strict_warnings(estimate, missing=True):
        a = outputs(fitted(case, missing="ignore"), case.X_test)
        est = case.make().set_params(missing="ignore")
        for rows in np.split(np.arange(case.n_samples), cuts):
            w = None if case.weights is None else case.weights[rows]
            est.partial_fit(case.X[rows], case.y[rows], classes=case.classes, sample_weight=w)
        b = outputs(est, case.X_test)
    assert_close(a, b, tolerance(model, estimate))


# --- regression tests of bugs the properties found --------------------------------------------


def test_missing_multinomial_mle_class_without_observed_mass_is_impossible():
    # MLE: class 0 puts no mass on feature 1, the only observed one of the test row. The
    # missing-mass correction −n_obs·log 0 = +∞ met X @ log φ = −∞ and gave NaN (the row fell
    # back to the class prior); the document is impossible under class 0.
    est = bnb.MultinomialNB(estimate="mle", missing="ignore").fit([[1.0, 0.0], [0.0, 1.0]], [0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jll = est.predict_joint_log_proba(np.array([[np.nan, 1.0]]))
        proba = est.predict_proba(np.array([[np.nan, 1.0]]))
    np.testing.assert_array_equal(jll, [[-np.inf, np.log(0.5)]])
    np.testing.assert_array_equal(proba, [[0.0, 1.0]])


def test_missing_multinomial_nearly_all_mass_missing():
    # Class 0 gives feature 0 all but 2e-18 of its mass: 1 − Σ_missing φ rounded to 0 and the
    # correction to +∞. The observed tokens, renormalised over the observed feature, have
    # probability 1: the row scores as the class prior, as a model of feature 1 alone.
    X = np.array([[1e18, 1.0], [0.0, 1.0], [0.0, 1.0]])
    est = bnb.MultinomialNB(missing="ignore").fit(X, [0, 1, 1])
    jll = est.predict_joint_log_proba(np.array([[np.nan, 3.0]]))
    # Class prior Dirichlet(1, 1) posterior mean: (1 + 1)/5, (2 + 1)/5.
    np.testing.assert_allclose(jll[0], np.log([2 / 5, 3 / 5]), rtol=1e-15)


def test_bernoulli_mle_weighted_counts_rounded_apart_still_give_exact_zero_failures():
    # Found by the missing-values property: with weights of 0.1 the observed trials N_cj and
    # the successes D_cj of a feature seen in every observed document of class 0 are sums
    # rounded differently by fit and by partial_fit, leaving N − D ≈ 1e-16 instead of 0;
    # the MLE then gave x = 0 a tiny probability under class 0 after one of the two only.
    nan = np.nan
    X = np.array([nan, nan, nan, 1, 1, 1, 1, 1, 1, 1, nan, 1, nan, 1, nan, 1, 1])[:, None]
    y = np.zeros(len(X), dtype=int)
    y[1] = 1  # class 1: one document, its value missing
    w = np.full(len(y), 0.1)
    X_test = np.array([[0.0], [nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = bnb.BernoulliNB(estimate="mle", missing="ignore").fit(X, y, sample_weight=w)
        b = bnb.BernoulliNB(estimate="mle", missing="ignore")
        for rows in np.split(np.arange(len(y)), [11]):
            b.partial_fit(X[rows], y[rows], classes=[0, 1], sample_weight=w[rows])
        np.testing.assert_array_equal(b.feature_log_prob_, a.feature_log_prob_)
        np.testing.assert_allclose(b.predict_proba(X_test), a.predict_proba(X_test), rtol=1e-12)
