"""``set_params`` after a fit: prior parameters are honoured on next use, without a refit.

Estimate tables, ``alpha_`` and ``class_alpha_`` are derived lazily from the stored statistics
and keyed on the parameters (docs/design-notes.md), so changing ``alpha``, ``beta``,
``class_alpha`` (or the DCM's Gamma prior) on a fitted model must give exactly what a fresh fit
with the new value gives: same ``alpha_``, same tables, same scores, same evidence, same
posterior. Before the fix ``alpha_`` was set at fit only and ``set_params(alpha=...)`` was
silently ignored.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

import bayesnb as bnb
from bayesnb.draws import posterior_draws


def _data(seed=0, n=80, d=5, k=3):
    rng = np.random.default_rng(seed)
    y = rng.choice(k, n, p=[0.6, 0.3, 0.1])  # unbalanced: a finite class_alpha="evidence"
    y[:k] = np.arange(k)
    beta = 0.3 + rng.random((k, d)) * 1.5
    X = np.stack([rng.multinomial(rng.poisson(12) + 1, rng.dirichlet(beta[c])) for c in y])
    return X.astype(np.float64), y


# (model, parameter changes): every discrete model and its prior parameters.
CASES = [
    (bnb.MultinomialNB(), {"alpha": 0.3}),
    (bnb.MultinomialNB(), {"alpha": "evidence"}),
    (bnb.MultinomialNB(alpha="evidence"), {"alpha": 2.5}),
    (bnb.MultinomialNB(unk=True, estimate="bayes"), {"alpha": 0.2}),
    (bnb.MultinomialNB(), {"class_alpha": 5.0}),
    (bnb.MultinomialNB(), {"class_alpha": "evidence"}),
    (bnb.BernoulliNB(), {"alpha": 0.4}),
    (bnb.BernoulliNB(), {"alpha": "evidence"}),
    (bnb.BernoulliNB(alpha="evidence"), {"beta": 3.0}),
    (bnb.BernoulliNB(), {"beta": 2.0, "estimate": "map", "alpha": 1.5}),
    (bnb.CategoricalNB(), {"alpha": 0.25}),
    (bnb.CategoricalNB(), {"alpha": "evidence", "class_alpha": 0.5}),
    (bnb.PoissonNB(), {"alpha": 0.05}),
    (bnb.PoissonNB(), {"beta": 0.01}),
    (bnb.PoissonNB(estimate="bayes"), {"alpha": 3.0, "beta": 2.0}),
    (bnb.PoissonNB(), {"class_alpha": "evidence"}),
    (bnb.DirichletCompoundNB(), {"prior_shape": 2.0}),
    (bnb.DirichletCompoundNB(estimate="mean"), {"prior_rate": 0.1}),
    (bnb.DirichletCompoundNB(), {"class_alpha": 4.0}),
]


def _ids(case):
    model, change = case
    return f"{type(model).__name__}-{'-'.join(f'{k}={v}' for k, v in change.items())}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_set_params_after_fit_equals_a_fresh_fit(case):
    model, change = case
    X, y = _data()
    Xt, _ = _data(seed=1, n=30)
    fitted = clone(model).fit(X, y)
    before = fitted.predict_joint_log_proba(Xt)
    fitted.set_params(**change)
    fresh = clone(model).set_params(**change).fit(X, y)
    for attr in ("alpha_", "class_alpha_"):
        if hasattr(fresh, attr):
            assert_allclose(getattr(fitted, attr), getattr(fresh, attr), rtol=1e-12)
    got = fitted.predict_joint_log_proba(Xt)
    assert_allclose(got, fresh.predict_joint_log_proba(Xt), rtol=1e-12, atol=1e-12)
    assert not np.allclose(got, before)  # the change is visible in the scores
    assert_allclose(fitted.log_evidence(), fresh.log_evidence(), rtol=1e-12)
    assert_allclose(fitted.class_log_prior_, fresh.class_log_prior_, rtol=1e-12)
    a = posterior_draws(fitted, draws=3, chains=1, random_seed=0)
    b = posterior_draws(fresh, draws=3, chains=1, random_seed=0)
    for key in a:
        assert_allclose(a[key], b[key], rtol=1e-9)


@pytest.mark.parametrize(
    "model, change, table",
    [
        (bnb.MultinomialNB(), {"alpha": 0.01}, "feature_log_prob_"),
        (bnb.BernoulliNB(), {"beta": 5.0}, "feature_log_neg_prob_"),
        (bnb.CategoricalNB(), {"alpha": 9.0}, "_flat_log_prob"),
        (bnb.PoissonNB(), {"alpha": 7.0}, "feature_log_rate_"),
        (bnb.DirichletCompoundNB(), {"prior_rate": 20.0}, "concentration_"),
    ],
    ids=lambda v: type(v).__name__ if hasattr(v, "fit") else None,
)
def test_switching_back_serves_the_first_tables_and_alpha(model, change, table):
    X, y = _data()
    fitted = clone(model).fit(X, y)
    first = np.array(getattr(fitted, table), copy=True)
    old = {k: fitted.get_params()[k] for k in change}
    fitted.set_params(**change)
    changed = getattr(fitted, table)
    assert not np.allclose(changed, first)
    assert_allclose(changed, getattr(clone(model).set_params(**change).fit(X, y), table))
    fitted.set_params(**old)
    assert_array_equal(getattr(fitted, table), first)
    if "alpha" in old:
        assert fitted.alpha_ == old["alpha"]


def test_evidence_alpha_is_learned_lazily_from_the_stored_statistics():
    X, y = _data()
    model = bnb.MultinomialNB(alpha=1.0).fit(X, y)
    assert model.alpha_ == 1.0
    model.set_params(alpha="evidence")
    learned = model.alpha_
    assert learned == bnb.MultinomialNB(alpha="evidence").fit(X, y).alpha_
    assert learned != 1.0
    # The learned value is cached per parameter set (not recomputed on each access) and
    # re-learned after new data arrive.
    assert model._learned[model._learned_key("alpha_")] == learned
    model.set_params(estimate="map")  # estimate does not change the evidence: same alpha_
    assert model.alpha_ == learned
    model.partial_fit(X[:20], y[:20])
    want = bnb.MultinomialNB(alpha="evidence").fit(np.vstack([X, X[:20]]), np.r_[y, y[:20]])
    assert_allclose(model.alpha_, want.alpha_, rtol=1e-12)


def test_partial_fit_after_set_params_uses_the_new_prior():
    X, y = _data()
    model = bnb.PoissonNB(alpha=1.0).partial_fit(X[:40], y[:40], classes=[0, 1, 2])
    model.set_params(alpha=0.2, beta=3.0)
    model.partial_fit(X[40:], y[40:])
    fresh = bnb.PoissonNB(alpha=0.2, beta=3.0).fit(X, y)
    assert model.alpha_ == 0.2
    assert_allclose(model.predict_proba(X), fresh.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize(
    "model, bad, match",
    [
        (bnb.MultinomialNB(), {"alpha": -1.0}, "alpha must be > 0"),
        (bnb.BernoulliNB(), {"alpha": np.ones(3)}, "one value per feature"),
        (bnb.PoissonNB(), {"alpha": 0.0}, "alpha must be finite and > 0"),
        (bnb.PoissonNB(), {"beta": -2.0}, "beta must be finite and > 0"),
        (bnb.MultinomialNB(), {"class_alpha": -1.0}, "class_alpha"),
        (bnb.MultinomialNB(), {"estimate": "map", "alpha": 0.5}, "needs alpha >= 1"),
        (bnb.DirichletCompoundNB(), {"prior_shape": 0.5}, "needs prior_shape >= 1"),
        (bnb.DirichletCompoundNB(), {"prior_rate": -1.0}, "prior_rate must be"),
    ],
    ids=lambda v: type(v).__name__ if hasattr(v, "fit") else None,
)
def test_invalid_parameters_set_after_fit_fail_at_first_use(model, bad, match):
    X, y = _data()
    fitted = clone(model).fit(X, y)
    fitted.set_params(**bad)
    with pytest.raises(ValueError, match=match):
        fitted.predict_proba(X)
    with pytest.raises(ValueError, match=match):  # not cached: still refused
        fitted.predict_proba(X)


def test_save_after_set_params_stores_the_new_values(tmp_path):
    X, y = _data()
    model = bnb.BernoulliNB(alpha="evidence").fit(X, y)
    model.set_params(alpha=0.7, class_alpha="evidence")
    model.save(tmp_path / "m.nc")
    loaded = bnb.load(tmp_path / "m.nc")
    assert loaded.alpha == 0.7 and loaded.alpha_ == 0.7
    assert loaded.class_alpha_ == model.class_alpha_ != 1.0
    assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_gda_and_columnwise_class_alpha_follow_set_params():
    X, y = _data()
    for model in (
        bnb.GDA(covariance="diagonal"),
        bnb.ColumnwiseNB(
            [("counts", bnb.MultinomialNB(), [0, 1, 2]), ("rest", bnb.PoissonNB(), [3, 4])]
        ),
    ):
        fitted = clone(model).fit(X, y)
        fitted.set_params(class_alpha=7.0)
        fresh = clone(model).set_params(class_alpha=7.0).fit(X, y)
        assert fitted.class_alpha_ == 7.0
        assert_allclose(fitted.class_log_prior_, fresh.class_log_prior_, rtol=1e-14)
        assert_allclose(fitted.log_evidence(), fresh.log_evidence(), rtol=1e-12)
    assert not hasattr(bnb.GDA().fit(X, y), "alpha_")  # no alpha parameter, no alpha_
