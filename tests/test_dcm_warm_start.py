"""DirichletCompoundNB cross-validation warm-starts β from the full fit: the refit's optimum."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from sklearn.model_selection import KFold, LeaveOneOut, StratifiedKFold
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict

from bayesnb import DirichletCompoundNB
from bayesnb.families import family_of
from bayesnb.model_selection import cross_val_predict, elpd_loo
from tests.test_dcm import simulate, true_beta


@pytest.fixture(scope="module")
def bursty():
    """Overdispersed counts, 3 classes × 200 features, 400 documents (folds empty some cells)."""
    return simulate(true_beta(5, n_classes=3, n_features=200), 400, seed=5)


def _fold_and_refit(est, X, y, train, test):
    full = est.fit(X, y)
    family = family_of(full)
    codes = np.searchsorted(full.classes_, y)
    model = copy.deepcopy(full)
    family.subtract(model, model._statistics(X[test], codes[test], np.ones(test.size)))
    return full, model, DirichletCompoundNB(**est.get_params()).fit(X[train], y[train])


@pytest.mark.parametrize("estimate", ["map", "mean"])
def test_warm_started_fold_reaches_the_refit_optimum_in_fewer_iterations(bursty, estimate):
    X, y = bursty
    warm, cold = [], []
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        _, model, refit = _fold_and_refit(DirichletCompoundNB(estimate=estimate), X, y, train, test)
        # Same stopping rule, quadratic convergence: both at the optimum to far below tol.
        np.testing.assert_allclose(model.concentration_, refit.concentration_, rtol=1e-9)
        np.testing.assert_allclose(
            model.predict_log_proba(X[test]), refit.predict_log_proba(X[test]), rtol=1e-10
        )
        warm.append(model.n_iter_)
        cold.append(refit.n_iter_)
    # Measured: warm 5-6 Newton iterations per fold, cold 9 (a refit's start).
    assert max(warm) <= 6 < 9 <= min(cold), (warm, cold)


def test_mle_starts_cold_and_matches_refits_where_b_runs_to_infinity():
    # Poisson counts are not overdispersed: the MLE's B drifts towards infinity and the stop
    # depends on the start, so the MLE is not warm-started (its refit numbers, exactly).
    rng = np.random.default_rng(0)
    y = np.arange(60) % 2
    X = rng.poisson(np.where(y[:, None] == 0, [3.0, 1.0, 2.0], [1.0, 3.0, 2.0])).astype(float)
    full, model, refit = _fold_and_refit(
        DirichletCompoundNB(estimate="mle"), X, y, np.arange(12, 60), np.arange(12)
    )
    assert full.concentration_.sum(axis=1).min() > 1e5  # the multinomial limit
    assert model.n_iter_ == refit.n_iter_
    np.testing.assert_array_equal(model.concentration_, refit.concentration_)


def test_fit_and_partial_fit_start_cold(bursty):
    X, y = bursty
    est = DirichletCompoundNB().fit(X[:150], y[:150])
    est.fit(X, y)  # a second fit does not start from the first one's optimum
    fresh = DirichletCompoundNB().fit(X, y)
    assert est.n_iter_ == fresh.n_iter_
    np.testing.assert_array_equal(est.concentration_, fresh.concentration_)
    est = DirichletCompoundNB().fit(X[:150], y[:150])
    est.partial_fit(X[150:], y[150:])
    np.testing.assert_array_equal(est.concentration_, fresh.concentration_)


@pytest.mark.parametrize("estimate", ["map", "mean"])
def test_cross_val_predict_equals_sklearn_refits(bursty, estimate):
    X, y = bursty
    est = DirichletCompoundNB(estimate=estimate)
    cv = KFold(4, shuffle=True, random_state=1)
    ours = cross_val_predict(est, X, y, cv=cv, method="predict_log_proba")
    ref = sk_cross_val_predict(est, X, y, cv=cv, method="predict_log_proba")
    np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-12)


def test_elpd_loo_equals_refits():
    X, y = simulate(true_beta(6, n_classes=2, n_features=12), 40, seed=6)
    ours = elpd_loo(DirichletCompoundNB(), X, y).pointwise
    ref = sk_cross_val_predict(
        DirichletCompoundNB(), X, y, cv=LeaveOneOut(), method="predict_log_proba"
    )[np.arange(y.size), y]
    np.testing.assert_allclose(ours, ref, rtol=1e-10)
