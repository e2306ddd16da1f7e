"""PoissonNB in PyMC: the declaration is the closed-form model, NUTS recovers the Gamma posterior.

NUTS tests are marked ``slow``; the two fits (sufficient and data likelihood) are session
fixtures on 40 documents × 4 features × 3 classes. Tolerance: 4 Monte Carlo standard errors per
parameter, as in tests/test_pymc.py.
"""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln, logsumexp

from bayesnb import PoissonNB
from bayesnb.pymc_models import declare, model_spec
from tests.pymc_helpers import fit_recording_warnings, mcse, rhat

ALPHA = [0.5, 1.0, 2.0, 3.0]
BETA = [1.0, 0.5, 2.0, 1.0]


def _data(seed: int = 0, n: int = 40):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    rates = rng.gamma(1.0, 2.0, (3, 4))
    X = rng.poisson(rates[y]).astype(float)
    return X, np.array(["a", "b", "c"])[y]


def _estimator():
    return PoissonNB(alpha=ALPHA, beta=BETA, class_alpha=1.5)  # per-feature Gamma prior


@pytest.fixture(scope="session")
def poisson_fits():
    X, y = _data()
    est = _estimator().fit(X, y)
    suff = fit_recording_warnings(est, X, y, log_likelihood=True)
    data = fit_recording_warnings(est, X, y, likelihood="data", random_seed=11)
    return est, X, y, suff, data


def _mcse_sd(dt, var: str) -> np.ndarray:
    return az.mcse(dt["posterior"].to_dataset()[[var]], method="sd")[var].values


# -- NUTS against the exact posterior ----------------------------------------------------------
@pytest.mark.slow
def test_nuts_mean_and_sd_match_the_gamma_posterior(poisson_fits):
    est, _, _, (dt, warned), _ = poisson_fits
    assert not warned, [str(w.message) for w in warned]
    post = est.posterior_
    exact = {
        "feature_rate": (post.mean(), np.sqrt(post.var())),
        "class_prior": (est.class_posterior_.mean(), np.sqrt(est.class_posterior_.var())),
    }
    for var, (mean, sd) in exact.items():
        draws = dt["posterior"][var]
        z_mean = np.abs(draws.mean(("chain", "draw")).values - mean) / mcse(dt, var)
        z_sd = np.abs(draws.std(("chain", "draw")).values - sd) / _mcse_sd(dt, var)
        assert z_mean.max() < 4.0, f"{var}: max |mean − exact| / MCSE = {z_mean.max():.2f}"
        assert z_sd.max() < 4.0, f"{var}: max |sd − exact| / MCSE = {z_sd.max():.2f}"
        assert rhat(dt, var).max() <= 1.01


@pytest.mark.slow
def test_data_and_sufficient_likelihoods_give_the_same_posterior(poisson_fits):
    est, _, _, (suff, _), (data, warned) = poisson_fits
    assert not warned, [str(w.message) for w in warned]
    assert data["posterior"].attrs["likelihood"] == "data"
    assert data["observed_data"]["X"].dims == ("doc", "feature")
    for var in ("class_prior", "feature_rate"):
        m_d = data["posterior"][var].mean(("chain", "draw")).values
        m_s = suff["posterior"][var].mean(("chain", "draw")).values
        se = np.hypot(mcse(data, var), mcse(suff, var))
        assert np.max(np.abs(m_d - m_s) / se) < 4.0, var
        assert rhat(data, var).max() <= 1.01
    # and the data fit matches the closed form as well
    z = np.abs(data["posterior"]["feature_rate"].mean(("chain", "draw")).values
               - est.posterior_.mean()) / mcse(data, "feature_rate")  # fmt: skip
    assert z.max() < 4.0


@pytest.mark.slow
def test_nuts_layout_and_label_log_likelihood(poisson_fits):
    est, X, y, (dt, _), _ = poisson_fits
    exact = est.sample_posterior(draws=2, chains=1, random_seed=0)
    assert set(dt["posterior"].data_vars) == {"class_prior", "feature_rate"}
    for var in ("class_prior", "feature_rate"):
        assert dt["posterior"][var].dims == exact["posterior"][var].dims
    assert dt["posterior"].attrs["model"] == "PoissonNB"
    np.testing.assert_array_equal(
        dt["observed_data"]["feature_count"].values, est.feature_count_.astype(int)
    )
    np.testing.assert_allclose(dt["constant_data"]["feature_beta"].values, BETA)
    # log p(y_i | x_i, draw) recomputed with scipy for a few draws
    lam = dt["posterior"]["feature_rate"].values[0, :5]
    pi = dt["posterior"]["class_prior"].values[0, :5]
    codes = np.searchsorted(est.classes_, y)
    joint = stats.poisson.logpmf(X[:, None, None, :], lam[None]).sum(axis=3) + np.log(pi)[None]
    ref = joint[np.arange(len(y)), :, codes] - logsumexp(joint, axis=2)
    np.testing.assert_allclose(dt["log_likelihood"]["y"].values[0, :5], ref.T, rtol=1e-10)


# -- declarations (no sampling) ----------------------------------------------------------------
def test_likelihood_forms_differ_by_the_factorials_and_class_coefficient():
    X, y = _data(seed=3)
    est = _estimator()
    m_data, m_suff = declare(est, X, y, "data"), declare(est, X, y, "sufficient")
    f_data = m_data.compile_logp(mode="FAST_COMPILE")
    f_suff = m_suff.compile_logp(mode="FAST_COMPILE")
    start = m_data.initial_point()
    assert start.keys() == m_suff.initial_point().keys()
    n_c = np.unique(y, return_counts=True)[1]
    # data − sufficient = −Σ ln x! − ln(N! / Π N_c!): Categorical labels vs Multinomial counts,
    # and the Poisson pmf's 1/x! that the Potential leaves out.
    constant = -gammaln(X + 1).sum() - (gammaln(n_c.sum() + 1) - gammaln(n_c + 1).sum())
    rng = np.random.default_rng(0)
    for _ in range(3):
        point = {k: v + rng.normal(0, 0.7, np.shape(v)) for k, v in start.items()}
        assert f_data(point) - f_suff(point) == pytest.approx(constant, rel=1e-12)


def test_sufficient_logp_is_the_closed_form_density():
    X, y = _data(seed=4)
    est = _estimator()
    model = declare(est, X, y)
    z = np.log([0.4, 0.9, 1.3])  # log-Gamma variates of the class prior: π = z normalised
    pi = np.exp(z) / np.exp(z).sum()
    lam = np.random.default_rng(1).uniform(0.2, 4.0, (3, 4))
    value = {"class_prior_log_gamma": z, "feature_rate_log__": np.log(lam)}
    logp = model.compile_logp(jacobian=False, mode="FAST_COMPILE")(value)
    n_c = np.array([(y == c).sum() for c in "abc"])
    S = np.stack([X[y == c].sum(0) for c in "abc"])
    # the class prior's scale Σ e^z tilted by (Σ e^z)^N to Gamma(3γ + N, 1), N documents
    N, A = n_c.sum(), 3 * 1.5
    expected = (
        (stats.gamma.logpdf(np.exp(z), 1.5) + z).sum()
        + N * np.log(np.exp(z).sum())
        + gammaln(A)
        - gammaln(A + N)
        + stats.gamma.logpdf(lam, np.array(ALPHA), scale=1 / np.array(BETA)).sum()
        + stats.multinomial.logpmf(n_c, n_c.sum(), pi)
        + (S * np.log(lam) - n_c[:, None] * lam).sum()
    )
    assert logp == pytest.approx(expected, rel=1e-10)


def test_class_without_documents_has_a_finite_gradient():
    X, y = _data(seed=5)
    est = PoissonNB().fit(X, y)
    keep = y != "c"  # class "c" is known to the estimator but absent from (X, y)
    model = declare(est, X[keep], y[keep])
    dlogp = model.compile_dlogp(mode="FAST_COMPILE")(model.initial_point())
    assert np.all(np.isfinite(dlogp))


def test_pymc_path_needs_integer_counts_and_weights():
    X, y = _data(seed=6)
    with pytest.raises(ValueError, match="integer counts"):
        model_spec(PoissonNB(), X + 0.5, y, "sufficient")
    with pytest.raises(ValueError, match="integer"):
        model_spec(PoissonNB(), X + 0.5, y, "data")
    with pytest.raises(ValueError, match="sample_weight must hold integers"):
        model_spec(PoissonNB(), X, y, sample_weight=np.full(len(y), 0.5))
    spec = model_spec(PoissonNB(), X, y, sample_weight=np.full(len(y), 2))
    np.testing.assert_array_equal(spec.data["class_count_data"].sum(), 2 * len(y))
