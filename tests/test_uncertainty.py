"""predict_proba_draws: p(c | x, θ_s) of new documents under posterior draws.

Coverage on data simulated from a known θ (the true p(c | x, θ) inside the 90% interval for
about 90% of (document, class) pairs, and far less under a deliberately over-confident
prior), the layout ArviZ reads, determinism, the memory bound, and ``posterior=`` (a tree
in the bayesnb layout: one draw equal to the posterior mean reproduces ``predict_proba``).
"""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.base import clone

import bayesnb as bnb
from bayesnb.families import family_of
from bayesnb.priors import NormalInverseWishart
from tests.test_check_family import CONFIGS

PI = np.array([0.3, 0.3, 0.4])


def _coverage(est, X, p, seed, prob=0.9) -> float:
    """Share of (document, class) pairs whose true probability is inside the ETI."""
    tree = est.predict_proba_draws(X, draws=400, chains=2, random_seed=seed)
    cp = tree["predictions"]["class_proba"].values.reshape(-1, *p.shape)
    lo, hi = np.quantile(cp, [(1 - prob) / 2, (1 + prob) / 2], axis=0)
    return float(np.mean((p >= lo) & (p <= hi)))


def _multinomial_world(rep: int):
    rng = np.random.default_rng(100 + rep)
    theta = rng.dirichlet(np.ones(30), size=3)

    def sim(n):
        y = rng.choice(3, size=n, p=PI)
        return np.stack([rng.multinomial(40, theta[c]) for c in y]), y

    (Xtr, ytr), (Xte, _) = sim(300), sim(200)
    joint = Xte @ np.log(theta).T + np.log(PI)
    return Xtr, ytr, Xte, np.exp(joint - logsumexp(joint, axis=1, keepdims=True))


def _gaussian_world(rep: int, d: int = 4):
    rng = np.random.default_rng(200 + rep)
    mu = rng.normal(size=(3, d)) * 1.2
    A = rng.normal(size=(d, d))
    sigma = A @ A.T / d + np.eye(d)

    def sim(n):
        y = rng.choice(3, size=n, p=PI)
        return mu[y] + rng.multivariate_normal(np.zeros(d), sigma, size=n), y

    (Xtr, ytr), (Xte, _) = sim(150), sim(200)
    joint = np.stack([multivariate_normal(mu[c], sigma).logpdf(Xte) for c in range(3)], 1)
    joint += np.log(PI)
    return Xtr, ytr, Xte, np.exp(joint - logsumexp(joint, axis=1, keepdims=True))


def test_coverage_multinomial():
    """Measured (4 simulated worlds): 0.953, 0.930, 0.785, 0.925 (mean 0.90) with the default
    prior; 0.000–0.002 with alpha=100, a prior that pins every θ_c near uniform."""
    good, bad = [], []
    for rep in range(4):
        Xtr, ytr, Xte, p = _multinomial_world(rep)
        good.append(_coverage(bnb.MultinomialNB().fit(Xtr, ytr), Xte, p, rep))
        bad.append(_coverage(bnb.MultinomialNB(alpha=100.0).fit(Xtr, ytr), Xte, p, rep))
    assert np.mean(good) >= 0.85, good
    assert np.mean(bad) < 0.1, bad


def test_coverage_gda():
    """Measured: 0.91, 0.94, 1.00, 1.00 (shared, default prior); 0.07–0.26 (mean 0.16) under
    a prior worth 2000 observations of Σ = I and 200 of each class mean at the pooled mean."""
    good, bad = [], []
    over = NormalInverseWishart(kappa0=200.0, nu0=2000.0, psi0=2000.0 * np.eye(4))
    for rep in range(4):
        Xtr, ytr, Xte, p = _gaussian_world(rep)
        good.append(_coverage(bnb.GDA().fit(Xtr, ytr), Xte, p, rep))
        bad.append(_coverage(bnb.GDA(prior=over).fit(Xtr, ytr), Xte, p, rep))
    assert np.mean(good) >= 0.85, good
    assert np.mean(bad) < 0.4, bad


def test_layout_and_arviz():
    Xtr, ytr, Xte, _ = _multinomial_world(0)
    est = bnb.MultinomialNB().fit(Xtr, np.array(["spam", "ham", "eggs"])[ytr])
    tree = est.predict_proba_draws(Xte[:7], draws=30, chains=3, random_seed=0)
    cp = tree["predictions"]["class_proba"]
    assert cp.dims == ("chain", "draw", "doc", "class")
    assert cp.shape == (3, 30, 7, 3)
    assert list(cp["doc"].values) == list(range(7))
    assert list(cp["class"].values) == ["eggs", "ham", "spam"]
    np.testing.assert_allclose(cp.values.sum(axis=-1), 1.0, rtol=1e-12)
    hdi = az.hdi(tree, group="predictions", prob=0.9)["class_proba"]
    assert hdi.sizes == {"doc": 7, "class": 3, "ci_bound": 2}
    lo, hi = hdi.sel(ci_bound="lower").values, hdi.sel(ci_bound="upper").values
    assert np.all((0 <= lo) & (lo <= hi) & (hi <= 1))
    summary = az.summary(tree, group="predictions", round_to="none")
    assert len(summary) == 21
    np.testing.assert_allclose(summary["mean"].values, cp.values.mean(axis=(0, 1)).ravel())


def test_seed_blocks_and_memory_bound():
    Xtr, ytr, Xte, _ = _multinomial_world(1)
    est = bnb.MultinomialNB().fit(Xtr, ytr)
    a = est.predict_proba_draws(Xte, draws=50, chains=2, random_seed=3)
    b = est.predict_proba_draws(Xte, draws=50, chains=2, random_seed=3)
    c = est.predict_proba_draws(Xte, draws=50, chains=2, random_seed=4)
    va = a["predictions"]["class_proba"].values
    np.testing.assert_array_equal(va, b["predictions"]["class_proba"].values)
    assert np.abs(va - c["predictions"]["class_proba"].values).max() > 1e-7  # confident docs
    out = 8.0 * 2 * 50 * Xte.shape[0] * 3
    small = est.predict_proba_draws(
        Xte, draws=50, chains=2, random_seed=3, max_bytes=out + 8.0 * 4 * 400
    )  # a few draws per block
    vs = small["predictions"]["class_proba"].values
    assert vs.shape == va.shape
    np.testing.assert_allclose(vs.mean(axis=(0, 1)), va.mean(axis=(0, 1)), atol=0.1)
    with pytest.raises(ValueError, match="max_bytes"):
        est.predict_proba_draws(Xte, draws=50, chains=2, max_bytes=out / 2)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_posterior_at_the_mean_reproduces_predict_proba(name):
    """``posterior=`` one draw at the posterior mean scores as ``estimate="mean"`` does:
    the draws path and the estimators' own scoring agree, family by family."""
    est = clone(CONFIGS[name])
    X, y = family_of(est).example_data(est, 80, np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the DCM's notes on its fixed point
        est = est.fit(X, y)
    tree = est.predict_proba_draws(X, posterior=est.point_estimate("mean"))
    cp = tree["predictions"]["class_proba"].values
    assert cp.shape == (1, 1, len(y), 3)
    expected = est.set_params(estimate="mean").predict_proba(X)
    np.testing.assert_allclose(cp[0, 0], expected, rtol=1e-9, atol=1e-12)
    draws = est.predict_proba_draws(X, draws=20, chains=2, random_seed=0)
    values = draws["predictions"]["class_proba"].values
    assert values.shape == (2, 20, len(y), 3)
    np.testing.assert_allclose(values.sum(axis=-1), 1.0, rtol=1e-12)


def test_posterior_refusals():
    Xtr, ytr, Xte, _ = _multinomial_world(2)
    est = bnb.MultinomialNB().fit(Xtr, ytr)
    two = bnb.MultinomialNB().fit(Xtr[ytr < 2], ytr[ytr < 2])
    with pytest.raises(ValueError, match="class_prior has shape"):
        est.predict_proba_draws(Xte, posterior=two.sample_posterior(5, 1, 0))
    with pytest.raises(TypeError, match="posterior must be a DataTree"):
        est.predict_proba_draws(Xte, posterior={"class_prior": 1})


@pytest.mark.slow
def test_nuts_posterior():
    """The NUTS draws of fit_pymc (passed as posterior=) agree with the exact draws."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 120)
    X = (rng.random((120, 6)) < np.array([0.2, 0.5, 0.8])[y, None]).astype(int)
    # β given (the default's value): the declaration of tests/test_pymc.py's Bernoulli fits,
    # whose compiled model of this shape the disk cache then serves to both
    est = bnb.BernoulliNB(alpha=1.0, beta=1.0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nuts = est.fit_pymc(X, y, draws=300, tune=300, chains=2, random_seed=1, progressbar=False)
    tree = est.predict_proba_draws(X[:10], posterior=nuts)
    cp = tree["predictions"]["class_proba"]
    assert cp.shape == (2, 300, 10, 3)
    exact = est.predict_proba_draws(X[:10], draws=600, chains=1, random_seed=0)
    np.testing.assert_allclose(
        cp.values.mean(axis=(0, 1)),
        exact["predictions"]["class_proba"].values.mean(axis=(0, 1)),
        atol=0.03,
    )


def test_sparse_input_and_missing_values():
    """Sparse documents score as their dense copy; NaN (missing="ignore") is marginalised."""
    import scipy.sparse as sp

    Xtr, ytr, Xte, _ = _multinomial_world(3)
    est = bnb.MultinomialNB().fit(Xtr, ytr)
    dense = est.predict_proba_draws(Xte[:20], draws=20, chains=1, random_seed=7)
    sparse = est.predict_proba_draws(sp.csr_matrix(Xte[:20]), draws=20, chains=1, random_seed=7)
    np.testing.assert_allclose(
        sparse["predictions"]["class_proba"].values,
        dense["predictions"]["class_proba"].values,
        rtol=1e-12,
    )
    Xg, yg, Xn, _ = _gaussian_world(0)
    gda = bnb.GDA(covariance="diagonal", missing="ignore").fit(Xg, yg)
    Xn = Xn[:10].copy()
    Xn[:, 0] = np.nan
    tree = gda.predict_proba_draws(Xn, posterior=gda.point_estimate("mean"))
    expected = gda.set_params(estimate="mean").predict_proba(Xn)
    np.testing.assert_allclose(tree["predictions"]["class_proba"].values[0, 0], expected, rtol=1e-9)
