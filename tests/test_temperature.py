"""The likelihood temperature: p_τ(c | x) ∝ p(c) p(x | c)^τ, τ learned by exact leave-one-out."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

import bayesnb as bnb
from bayesnb import (
    GDA,
    BernoulliNB,
    CategoricalNB,
    ColumnwiseNB,
    DirichletCompoundNB,
    MultinomialNB,
    PoissonNB,
)
from bayesnb.model_selection import cross_val_predict, elpd_loo


def _corpus(n=300, v=80, k=3, seed=0, length=40, overlap=3.0, copies=1):
    """Documents of k overlapping classes; ``copies`` > 1 writes every word that many times
    (the words of a document are then dependent: the likelihood counts each ``copies`` times)."""
    rng = np.random.default_rng(seed)
    base = rng.dirichlet(np.full(v, 0.5))
    theta = np.array([rng.dirichlet(base * v * overlap) for _ in range(k)])
    y = rng.integers(0, k, n)
    lengths = rng.poisson(length, n) + 1
    X = np.array([rng.multinomial(lengths[i], theta[y[i]]) for i in range(n)], dtype=float)
    return sp.csr_matrix(X * copies), y


def _tempered_loo(est, X, y, tau: float) -> float:
    return float(elpd_loo(est.set_params(temperature=tau), X, y).elpd)


def _sandwich_se(est, X, y, tau: float) -> float:
    """The standard error of the learned τ: sqrt(Σ g_i²) / |Σ h_i| from the per-document
    derivatives of the LOO label log-likelihood at τ."""
    from bayesnb.families._crossval import loo_class_log_prior, loo_joint

    fitted = est.set_params(temperature=1.0).fit(X, y)
    Xv, yv = fitted._check_input(X, y, reset=False)
    codes = np.searchsorted(fitted.classes_, yv)
    w = np.ones(codes.size)
    prior = loo_class_log_prior(fitted, codes, w)
    lik = loo_joint(fitted, Xv, codes, w) - prior
    q = np.exp(log_softmax(prior + tau * lik, axis=1))
    mean = (q * lik).sum(axis=1)
    g = lik[np.arange(codes.size), codes] - mean
    h = -(q * (lik - mean[:, None]) ** 2).sum(axis=1)
    return float(np.sqrt(np.sum(g**2)) / abs(np.sum(h)))


@pytest.fixture(scope="module")
def copied():
    """A corpus whose words are each written three times: τ near 1/3."""
    return _corpus(copies=3, seed=1)


def test_learned_temperature_maximises_the_exact_loo(copied):
    X, y = copied
    est = MultinomialNB(temperature="loo").fit(X, y)
    tau = est.temperature_
    assert 0.2 < tau < 0.5
    best = _tempered_loo(MultinomialNB(), X, y, tau)
    assert best == pytest.approx(float(elpd_loo(est, X, y).elpd), rel=1e-12)
    for factor in (0.9, 1.1):
        assert _tempered_loo(MultinomialNB(), X, y, tau * factor) < best


def test_learned_temperature_equals_brute_force_over_refits():
    X, y = _corpus(n=60, v=30, seed=3, copies=2)
    got = MultinomialNB(temperature="loo").fit(X, y).temperature_
    rows = np.arange(y.size)
    parts = []  # per document: the refit's class log prior and log-likelihoods of it
    for i in rows:
        refit = MultinomialNB().fit(X[rows != i], y[rows != i])
        prior = refit.class_log_prior_
        parts.append((prior, refit.predict_joint_log_proba(X[i])[0] - prior, y[i]))

    def loss(tau):
        return -sum(log_softmax(p + tau * lik)[c] for p, lik, c in parts)

    want = minimize_scalar(loss, bounds=(1e-3, 5.0), method="bounded", options={"xatol": 1e-12}).x
    assert got == pytest.approx(want, rel=1e-6)


def test_temperature_near_one_under_the_model_and_near_one_over_k_for_copied_words():
    model = MultinomialNB(alpha=1.0).fit(*_corpus(n=400, seed=2))
    X, y = model.sample(1500, random_seed=4)  # independent words: the model is right
    est = MultinomialNB(temperature="loo").fit(X, y)
    se = _sandwich_se(MultinomialNB(), X, y, est.temperature_)
    assert 0 < se < 0.2
    assert abs(est.temperature_ - 1.0) < 4 * se, (est.temperature_, se)
    for k in (2, 4):
        Xk = sp.csr_matrix(X * k)
        tau_k = MultinomialNB(temperature="loo").fit(Xk, y).temperature_
        se_k = _sandwich_se(MultinomialNB(), Xk, y, tau_k)
        assert abs(tau_k - 1.0 / k) < 4 * se_k, (k, tau_k, se_k)
        assert tau_k * k == pytest.approx(est.temperature_, rel=0.05)


def test_probabilities_tempered_and_predict_unchanged(copied):
    X, y = copied
    plain = MultinomialNB().fit(X, y)
    est = MultinomialNB(temperature=0.25).fit(X, y)
    prior = plain.class_log_prior_
    lik = plain.predict_joint_log_proba(X) - prior
    want = log_softmax(prior + 0.25 * lik, axis=1)
    np.testing.assert_allclose(est.predict_log_proba(X), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.predict_proba(X), np.exp(want), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(est.predict(X), plain.predict(X))
    np.testing.assert_array_equal(est.predict_joint_log_proba(X), plain.predict_joint_log_proba(X))
    np.testing.assert_array_equal(
        MultinomialNB(temperature=1.0).fit(X, y).predict_proba(X), plain.predict_proba(X)
    )


def test_a_temperature_variant_shares_the_fitted_concentration():
    # The temperature is applied at scoring: a variant at another τ (what temperature="loo"
    # scores its leave-one-out with) reuses the DCM's β, and scores as tempered.
    X, y = _corpus(n=120, v=30)
    est = DirichletCompoundNB().fit(X, y)
    beta = est.concentration_
    view = est._replace(temperature=0.5)
    assert view.concentration_ is beta
    assert est._replace(prior_rate=2.0).concentration_ is not beta
    prior = est.class_log_prior_
    want = log_softmax(prior + 0.5 * (est.predict_joint_log_proba(X) - prior), axis=1)
    np.testing.assert_allclose(view.predict_log_proba(X), want, rtol=1e-12, atol=1e-12)


def test_cross_val_predict_relearns_the_temperature_per_fold(copied):
    X, y = copied
    for est in (MultinomialNB(temperature="loo"), BernoulliNB(temperature="loo")):
        got = cross_val_predict(est, X, y, cv=4)
        for train, test in StratifiedKFold(4).split(X, y):
            refit = clone(est).fit(X[train], y[train])
            np.testing.assert_allclose(got[test], refit.predict_proba(X[test]), rtol=1e-10)


def test_joint_search_with_alpha_loo(copied):
    X, y = copied
    est = MultinomialNB(alpha="loo", temperature="loo").fit(X, y)
    alpha, tau = est.alpha_, est.temperature_
    best = float(elpd_loo(MultinomialNB(alpha=alpha, temperature=tau), X, y).elpd)
    for a, t in ((alpha * 0.8, tau), (alpha * 1.25, tau), (alpha, tau * 0.9), (alpha, tau * 1.1)):
        assert float(elpd_loo(MultinomialNB(alpha=a, temperature=t), X, y).elpd) < best
    # the temperature alone at that α: the same τ (it is the exact maximiser given α)
    alone = MultinomialNB(alpha=alpha, temperature="loo").fit(X, y).temperature_
    assert alone == pytest.approx(tau, rel=1e-8)


FAMILIES = {
    "bernoulli": (BernoulliNB, "counts"),
    "poisson": (PoissonNB, "counts"),
    "categorical": (CategoricalNB, "categories"),
    "dcm": (DirichletCompoundNB, "counts"),
    "gda": (GDA, "gaussian"),
}


def _data(kind: str):
    if kind == "counts":
        X, y = _corpus(n=120, v=25, seed=5, length=20, copies=2)
        return X, y
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 150)
    if kind == "categories":
        return (rng.integers(0, 3, (150, 6)) + y[:, None]) % 4, y
    z = rng.normal(size=(150, 3)) + y[:, None]
    return np.hstack([z, z, z]), y  # each feature three times (in the diagonal sense)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_every_family_learns_the_maximiser(name):
    cls, kind = FAMILIES[name]
    X, y = _data(kind)
    kw = {"covariance": "diagonal"} if cls is GDA else {}
    est = cls(temperature="loo", **kw).fit(X, y)
    tau = est.temperature_
    best = float(elpd_loo(est, X, y).elpd)
    for factor in (0.9, 1.1):
        assert float(elpd_loo(cls(temperature=tau * factor, **kw), X, y).elpd) < best


@pytest.mark.parametrize("covariance", ["shared", "per_class", "diagonal"])
def test_gda_probabilities_are_tempered(covariance):
    X, y = _data("gaussian")
    tau = 0.4
    est = GDA(covariance=covariance, temperature=tau).fit(X, y)
    prior = est.class_log_prior_
    lik = GDA(covariance=covariance).fit(X, y).predict_joint_log_proba(X) - prior
    want = log_softmax(prior + tau * lik, axis=1)
    np.testing.assert_allclose(est.predict_log_proba(X), want, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(est.predict_proba(X), np.exp(want), rtol=1e-10, atol=1e-12)


def test_columnwise_temperature():
    X, y = _corpus(n=150, v=20, seed=7, copies=2)
    est = ColumnwiseNB(
        [("a", MultinomialNB(), list(range(10))), ("b", MultinomialNB(), list(range(10, 20)))],
        temperature="loo",
    ).fit(X, y)
    tau = est.temperature_
    assert 0.2 < tau < 1.0
    prior = est.class_log_prior_
    plain = ColumnwiseNB(est.estimators).fit(X, y)
    lik = plain.predict_joint_log_proba(X) - prior
    np.testing.assert_allclose(
        est.predict_log_proba(X), log_softmax(prior + tau * lik, axis=1), rtol=1e-10, atol=1e-10
    )


def test_saved_model_with_learned_temperature(tmp_path, copied):
    X, y = copied
    est = MultinomialNB(alpha="loo", temperature="loo").fit(X, y)
    path = tmp_path / "m.nc"
    est.save(path)
    back = bnb.load(path)
    assert back.temperature_ == est.temperature_ and back.alpha_ == est.alpha_
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))


@pytest.mark.parametrize(
    "bad,error,match",
    [
        (0.0, ValueError, "finite number > 0"),
        (-1.0, ValueError, "finite number > 0"),
        (np.inf, ValueError, "finite number > 0"),
        ("evidence", ValueError, "positive number or 'loo'"),
        (True, TypeError, "positive number or 'loo'"),
        ([1.0], TypeError, "positive number or 'loo'"),
    ],
)
def test_bad_temperatures(bad, error, match, copied):
    X, y = copied
    with pytest.raises(error, match=match):
        MultinomialNB(temperature=bad).fit(X, y)


def test_temperature_loo_needs_every_document(copied):
    X, y = copied
    with pytest.raises(ValueError, match=r"\(temperature='loo'\) learns temperature"):
        MultinomialNB(temperature="loo").partial_fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MultinomialNB(temperature="loo").fit(X, y)  # no warning on ordinary data
