"""DirichletCompoundNB's PyMC declaration: the two likelihood forms agree, NUTS recovers β.

The NUTS test is marked ``slow``: one fit (sufficient-statistic likelihood) on 300 documents
simulated from a DCM with known β (2 classes × 20 features), shared through a session
fixture.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import gammaln

from bayesnb import DirichletCompoundNB
from bayesnb.pymc_models import declare, model_spec
from tests.pymc_helpers import fit_recording_warnings, mcse, rhat
from tests.test_dcm import simulate, true_beta


def test_sufficient_form_is_the_data_form_without_multinomial_coefficients():
    X, y = simulate(true_beta(3, n_features=5), 40, seed=2, lengths=(2, 15))
    est = DirichletCompoundNB(prior_shape=1.5, prior_rate=2.0).fit(X, y)
    suff, data = declare(est, X, y, "sufficient"), declare(est, X, y, "data")
    f_s = suff.compile_logp(mode="FAST_COMPILE")
    f_d = data.compile_logp(mode="FAST_COMPILE")
    rng = np.random.default_rng(0)
    start = suff.initial_point()
    n = X.sum(axis=1)
    coef = np.sum(gammaln(n + 1) - gammaln(X + 1).sum(axis=1))
    # The class-count Multinomial vs the labels' Categorical: ln N! / Π N_c!.
    n_c = np.bincount(y)
    coef_y = gammaln(n_c.sum() + 1) - gammaln(n_c + 1).sum()
    for _ in range(3):
        point = {k: v + rng.normal(0, 0.4, np.shape(v)) for k, v in start.items()}
        assert f_d(point) - f_s(point) == pytest.approx(coef - coef_y, rel=1e-10)
    # The sufficient Potential is the Pólya log-likelihood of bayesnb.posterior.polya.
    spec = model_spec(est, X, y, "sufficient")
    assert spec.var_names == ["class_prior", "concentration", "feature_prob"]
    assert float(spec.data["concentration_shape"]) == 1.5


def test_alpha_prior_is_refused():
    X, y = simulate(true_beta(3, n_features=4), 20, seed=2)
    with pytest.raises(ValueError, match="prior_shape, prior_rate"):
        declare(DirichletCompoundNB(), X, y, alpha_prior={})


@pytest.fixture(scope="session")
def nuts_dcm():
    beta = true_beta(21, n_features=20)
    X, y = simulate(beta, 300, seed=22, lengths=(10, 50))
    est = DirichletCompoundNB(prior_shape=1.0, prior_rate=0.1, estimate="mean").fit(X, y)
    dt, warned = fit_recording_warnings(est, X, y, log_likelihood=True)
    return beta, est, dt, warned


@pytest.mark.slow
def test_nuts_posterior_covers_the_true_beta(nuts_dcm):
    beta, est, dt, warned = nuts_dcm
    assert not warned, [str(w.message) for w in warned]
    assert np.nanmax(rhat(dt, "concentration")) <= 1.01
    draws = dt["posterior"]["concentration"].values.reshape(-1, *beta.shape)
    lo, hi = np.quantile(draws, [0.025, 0.975], axis=0)
    covered = (lo <= beta) & (beta <= hi)
    assert covered.mean() >= 0.9, covered.mean()  # 40 cells at nominal 0.95
    # The Laplace interval (closed form) covers the truth as well ...
    llo, lhi = est.laplace_.interval(0.95)
    assert ((llo <= beta) & (beta <= lhi)).mean() >= 0.9
    # ... and its posterior mean of β is close to NUTS's (an approximation: within 10% + 4 MCSE)
    nuts_mean = draws.mean(axis=0)
    err = np.abs(est.laplace_.mean() - nuts_mean)
    assert np.all(err <= 0.1 * nuts_mean + 4 * mcse(dt, "concentration")), err.max()
    feature_prob = dt["posterior"]["feature_prob"].values
    np.testing.assert_allclose(feature_prob.sum(axis=-1), 1.0)
    ll = dt["log_likelihood"]["y"].values
    assert ll.shape == (4, 1000, 300) and np.all(ll <= 0)
