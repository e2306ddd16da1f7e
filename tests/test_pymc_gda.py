"""The PyMC path of GDA: the Bartlett declaration is the NIW prior, NUTS recovers the closed form.

NUTS tests are marked ``slow``; the three fits (shared, per-class, diagonal covariance) are
shared through a session fixture, one compiled model each. The prior and likelihood checks
need no NUTS: prior draws and ``FAST_COMPILE`` log-densities.

Tolerances: a NUTS posterior mean lies within 4 Monte Carlo standard errors of the exact
conjugate mean (4 chains × 1,000 draws, R-hat ≤ 1.01). Prior draws are compared with scipy's
inverse Wishart / inverse gamma / Student-t laws by Kolmogorov-Smirnov tests at p > 1e-4 and
their moments within 4 standard errors; 20,000 draws detect an off-by-one in the χ² degrees
of freedom (a 20% shift of E[Σ]) many times over. Seeds are fixed, so runs are reproducible.
"""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln, logsumexp

from bayesnb import GDA
from bayesnb.priors.gaussian import NormalInverseWishart
from bayesnb.pymc_models import declare, model_spec
from tests.pymc_helpers import (
    CHAINS,
    DRAWS,
    LazyFits,
    evaluate,
    fit_recording_warnings,
    mcse,
    rhat,
)

N_DOCS, N_FEATURES, N_CLASSES = 100, 3, 3
COVARIANCES = ["shared", "per_class", "diagonal"]
CLASSES = np.array(["a", "b", "c"])
PRIOR_DRAWS = 20_000
KS_LEVEL = 1e-4

# ν0 = d + 6 > d + 3: Σ has a finite variance, so the mean of its draws has a standard error
# (and μ, a Student-t with ν0 - d + 1 = 7 degrees of freedom, finite fourth moments).
PSI0 = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
PRIOR = NormalInverseWishart(mu0=[1.0, -2.0, 0.5], kappa0=0.5, psi0=PSI0, nu0=N_FEATURES + 6.0)


# -- data and fits -----------------------------------------------------------------------------
def _data(seed: int = 0, n: int = N_DOCS, d: int = N_FEATURES):
    """Three Gaussian classes with different correlated covariances."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n)
    means = rng.normal(0.0, 2.0, (N_CLASSES, d))
    scales = rng.uniform(0.5, 1.5, (N_CLASSES, 1, d)) * np.eye(d)
    roots = np.tril(rng.normal(0.0, 0.5, (N_CLASSES, d, d)), -1) + scales
    X = means[y] + np.einsum("nij,nj->ni", roots[y], rng.normal(size=(n, d)))
    return X, CLASSES[y]


def _fit(covariance: str):
    X, y = _data()
    est = GDA(covariance=covariance).fit(X, y)
    dt, warned = fit_recording_warnings(est, X, y, log_likelihood=True, random_seed=9)
    return est, X, y, dt, warned


@pytest.fixture(scope="session")
def gda_fits():
    """One sufficient-statistic NUTS fit per covariance model (log_likelihood on for LOO)."""
    return LazyFits(_fit)


def _closed_form(est) -> dict[str, np.ndarray]:
    """Posterior means of the layout variables: the ``estimate="mean"`` point estimate."""
    tree = est.point_estimate("mean")
    return {v: tree.posterior[v].values[0, 0] for v in ("class_prior", "mean", "cov")}


# -- the prior ---------------------------------------------------------------------------------
def _assert_mean(draws: np.ndarray, expected, what: str) -> None:
    """The draws' mean equals ``expected`` within 4 standard errors (axis 0 = draws)."""
    mean, se = draws.mean(axis=0), draws.std(axis=0) / np.sqrt(draws.shape[0])
    const = se == 0.0  # the diagonal model's off-diagonal zeros
    np.testing.assert_array_equal(mean[const], expected[const])
    z = np.abs(mean[~const] - expected[~const]) / se[~const]
    assert z.max() < 4.0, f"{what}: max |mean - expected| / se = {z.max():.2f}"


def _prior_draws(covariance: str):
    import pymc as pm

    X, y = _data(seed=5, n=30)
    est = GDA(covariance=covariance, prior=PRIOR).fit(X, y)
    model = declare(est, X, y)
    with model, warnings.catch_warnings():
        # "The effect of Potentials on other parameters is ignored during prior predictive
        # sampling": exactly what a prior draw should do.
        warnings.simplefilter("ignore", UserWarning)
        prior = pm.sample_prior_predictive(
            draws=PRIOR_DRAWS, var_names=["cov", "mean"], random_seed=1
        ).prior
    cov, mean = prior["cov"].values[0], prior["mean"].values[0]
    if covariance == "shared":
        cov = cov[:, None]  # one Σ for every class
    return cov, mean


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_prior_draws_match_normal_inverse_wishart(covariance):
    cov, mean = _prior_draws(covariance)
    d, nu0, kappa0, mu0 = N_FEATURES, PRIOR.nu0, PRIOR.kappa0, np.asarray(PRIOR.mu0)
    psi0 = np.diag(np.diag(PSI0)) if covariance == "diagonal" else PSI0
    assert cov.shape == (PRIOR_DRAWS, 1 if covariance == "shared" else N_CLASSES, d, d)
    assert mean.shape == (PRIOR_DRAWS, N_CLASSES, d)
    np.testing.assert_array_equal(cov, np.swapaxes(cov, -1, -2))

    # E[Σ] = Ψ0 / (ν0 - d - 1)
    expected_cov = psi0 / (nu0 - d - 1)
    _assert_mean(cov, np.broadcast_to(expected_cov, cov.shape[1:]), "E[cov]")
    # The law of Σ: scipy's inverse Wishart (diagonal: the inverse gamma of each variance).
    rows, cols = np.tril_indices(d)
    if covariance == "diagonal":
        off = ~np.eye(d, dtype=bool)
        assert np.all(cov[..., off] == 0.0)
        for c in range(cov.shape[1]):
            for j in range(d):
                law = stats.invgamma((nu0 - d + 1) / 2, scale=PSI0[j, j] / 2)
                p = stats.kstest(cov[:, c, j, j], law.cdf).pvalue
                assert p > KS_LEVEL, (c, j, p)
    else:
        ref = stats.invwishart.rvs(df=nu0, scale=PSI0, size=PRIOR_DRAWS, random_state=2)
        for c in range(cov.shape[1]):
            for i, j in zip(rows, cols, strict=True):
                p = stats.ks_2samp(cov[:, c, i, j], ref[:, i, j]).pvalue
                assert p > KS_LEVEL, (c, i, j, p)
            p = stats.ks_2samp(np.linalg.slogdet(cov[:, c])[1], np.linalg.slogdet(ref)[1]).pvalue
            assert p > KS_LEVEL, (c, "log det", p)
    if covariance == "per_class":
        # one (c, A) per class: the classes' covariances are independent
        rho = stats.spearmanr(cov[:, 0, 0, 0], cov[:, 1, 0, 0]).statistic
        assert abs(rho) < 4.0 / np.sqrt(PRIOR_DRAWS), rho

    # E[μ_c] = μ0, Cov(μ_c) = E[Σ] / κ0, and the marginal law of μ_cj: Student-t with
    # ν0 - d + 1 degrees of freedom, scale² = Ψ0_jj / (κ0 (ν0 - d + 1)).
    _assert_mean(mean, np.broadcast_to(mu0, mean.shape[1:]), "E[mean]")
    centred = mean - mu0
    products = centred[:, :, :, None] * centred[:, :, None, :]
    _assert_mean(products, np.broadcast_to(expected_cov / kappa0, products.shape[1:]), "Cov")
    dof = nu0 - d + 1
    for c in range(N_CLASSES):
        for j in range(d):
            law = stats.t(dof, loc=mu0[j], scale=np.sqrt(PSI0[j, j] / (kappa0 * dof)))
            p = stats.kstest(mean[:, c, j], law.cdf).pvalue
            assert p > KS_LEVEL, (c, j, p)


@pytest.mark.parametrize("covariance", ["shared", "per_class"])
def test_class_mean_prior_is_the_niw_conditional(covariance):
    """log p(mean | Σ) of the declared model is Σ_c log N(mean_c | μ0, Σ_c / κ0) (scipy)."""
    X, y = _data(seed=4, n=30)
    model = declare(GDA(covariance=covariance, prior=PRIOR), X, y)
    rng = np.random.default_rng(0)
    point = {k: v + rng.normal(0.0, 0.5, np.shape(v)) for k, v in model.initial_point().items()}
    cov = evaluate(model, model["cov"], point)
    cov = np.broadcast_to(cov, (N_CLASSES, N_FEATURES, N_FEATURES))
    logp = model.compile_logp(vars=[model["mean"]], mode="FAST_COMPILE")(point)
    expected = sum(
        stats.multivariate_normal(PRIOR.mu0, cov[c] / PRIOR.kappa0).logpdf(point["mean"][c])
        for c in range(N_CLASSES)
    )
    np.testing.assert_allclose(logp, expected, rtol=1e-10)


# -- the two likelihood forms ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("covariance", "d"),
    [("shared", 3), ("per_class", 3), ("diagonal", 3), ("shared", 1), ("per_class", 2)],
    ids=["shared", "per_class", "diagonal", "shared-1d", "per_class-2d"],
)
def test_logp_differences_agree_between_likelihood_forms(covariance, d):
    """logp_data(p1) - logp_data(p2) == logp_sufficient(p1) - logp_sufficient(p2).

    The Gaussian parts are equal outright: the forms differ by the multinomial coefficient of
    the labels only, log(N! / Π N_c!).
    """
    X, y = _data(seed=3, n=40, d=d)
    est = GDA(covariance=covariance, class_alpha=2.0)
    m_data = declare(est, X, y, "data")
    m_suff = declare(est, X, y, "sufficient")
    f_data = m_data.compile_logp(mode="FAST_COMPILE")
    f_suff = m_suff.compile_logp(mode="FAST_COMPILE")
    start = m_data.initial_point()
    assert start.keys() == m_suff.initial_point().keys()
    rng = np.random.default_rng(0)
    points = [{k: v + rng.normal(0, 0.5, np.shape(v)) for k, v in start.items()} for _ in range(3)]
    d_data = np.array([f_data(p) for p in points])
    d_suff = np.array([f_suff(p) for p in points])
    assert np.all(np.isfinite(d_data))
    assert np.ptp(d_data) > 1.0
    np.testing.assert_allclose(np.diff(d_data), np.diff(d_suff), rtol=0, atol=1e-8)
    n_c = np.array([(y == c).sum() for c in CLASSES])
    coefficient = gammaln(n_c.sum() + 1) - gammaln(n_c + 1).sum()
    np.testing.assert_allclose(d_suff - d_data, coefficient, rtol=1e-10)


# -- declarations ------------------------------------------------------------------------------
def test_declaration_records_prior_and_statistics():
    X, y = _data(seed=2, n=30)
    w = np.arange(30) % 3
    est = GDA(covariance="per_class", prior=PRIOR).fit(X, y, sample_weight=w)
    spec = model_spec(est, X, y, sample_weight=w)
    rows = np.repeat(np.arange(30), w)
    repeated = model_spec(est, X[rows], y[rows])
    for name, value in repeated.data.items():
        np.testing.assert_allclose(spec.data[name], value, rtol=1e-12, atol=1e-12)
    post = est.posterior_
    np.testing.assert_array_equal(spec.data["psi0"], PSI0)
    assert float(spec.data["nu0"]) == PRIOR.nu0 and float(spec.data["kappa0"]) == PRIOR.kappa0
    np.testing.assert_allclose(spec.data["class_count_data"], post.stats.count)
    np.testing.assert_allclose(spec.data["class_mean_data"], post.stats.mean, rtol=1e-12)
    np.testing.assert_allclose(spec.data["scatter_data"], post.stats.scatter, rtol=1e-10)
    assert spec.var_names == ["class_prior", "mean", "cov"]
    assert spec.hyperparameters["psi0"][1] == ["feature", "feature_bis"]
    # the diagonal model keeps Ψ0's diagonal only, and the default prior resolves from the data
    diag = model_spec(GDA(covariance="diagonal"), X, y)
    assert diag.hyperparameters["psi0"][1] == ["feature"]
    default = GDA(covariance="diagonal").fit(X, y).posterior_.prior
    np.testing.assert_allclose(diag.data["psi0"], np.diag(default.psi0))
    np.testing.assert_allclose(diag.data["mu0"], default.mu0)


def test_errors_name_the_argument():
    X, y = _data(seed=2, n=30)
    est = GDA().fit(X, y)
    with pytest.raises(ValueError, match="alpha_prior"):
        declare(est, X, y, alpha_prior={})
    with pytest.raises(ValueError, match="sample_weight must hold integers"):
        model_spec(est, X, y, sample_weight=np.full(30, 0.5))
    with pytest.raises(ValueError, match="class_alpha > 0"):
        declare(GDA(class_alpha=0.0), X, y)
    with pytest.raises(ValueError, match="likelihood"):
        declare(est, X, y, likelihood="documents")


# -- NUTS against the closed-form NIW posterior ------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_nuts_means_match_closed_form_posterior(gda_fits, covariance):
    est, _, _, dt, warned = gda_fits[covariance]
    assert not warned, [str(w.message) for w in warned]
    for var, truth in _closed_form(est).items():
        draws = dt.posterior[var].values
        mean = draws.mean(axis=(0, 1))
        assert mean.shape == truth.shape, var
        # the diagonal model's off-diagonal zeros are not parameters
        param = np.ones(truth.shape, dtype=bool) if var != "cov" else truth != 0.0
        assert np.all(draws[..., ~param] == 0.0)
        se, r_hat = mcse(dt, var)[param], rhat(dt, var)[param]
        z = np.abs(mean[param] - truth[param]) / se
        assert z.max() < 4.0, f"{var}: max |mean - exact| / MCSE = {z.max():.2f}"
        assert r_hat.max() <= 1.01, f"{var}: max R-hat {r_hat.max():.4f}"


@pytest.mark.slow
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_nuts_layout_matches_exact_draws(gda_fits, covariance):
    """Only the layout variables, with the dims and coords of the exact NIW draws."""
    est, X, y, dt, _ = gda_fits[covariance]
    exact = est.sample_posterior(draws=2, chains=1, random_seed=0)
    assert set(dt.posterior.data_vars) == {"class_prior", "mean", "cov"}
    assert set(exact.posterior.data_vars) == set(dt.posterior.data_vars)
    for var in dt.posterior.data_vars:
        a, b = dt.posterior[var], exact.posterior[var]
        assert a.dims == b.dims, var
        for dim in a.dims[2:]:
            assert list(a[dim].values) == list(b[dim].values), dim
    attrs = dt.posterior.attrs
    assert attrs["model"] == "GDA" and attrs["likelihood"] == "sufficient"
    assert attrs["inference_library"] == "nutpie"
    groups = {"posterior", "sample_stats", "observed_data", "constant_data", "log_likelihood"}
    assert groups == set(dt.children)
    obs = dt.observed_data
    assert int(obs["class_count"].sum()) == N_DOCS
    class_means = np.stack([X[y == c].mean(axis=0) for c in CLASSES])
    np.testing.assert_allclose(obs["class_mean"].values, class_means, rtol=1e-12)
    prior = est.posterior_.prior
    np.testing.assert_allclose(dt.constant_data["mu0"].values, prior.mu0)
    psi0 = np.diag(prior.psi0) if covariance == "diagonal" else prior.psi0
    np.testing.assert_allclose(dt.constant_data["psi0"].values, psi0)


@pytest.mark.slow
# A few of the per-class model's documents (33 per class) are influential: Pareto k > 0.7.
@pytest.mark.filterwarnings("ignore:Estimated shape parameter of Pareto:UserWarning")
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_log_likelihood_is_conditional_label_probability_and_loo_runs(gda_fits, covariance):
    est, X, y, dt, _ = gda_fits[covariance]
    ll = dt.log_likelihood["y"]
    assert ll.dims == ("chain", "draw", "doc") and ll.shape == (CHAINS, DRAWS, N_DOCS)
    codes = np.searchsorted(est.classes_, y)
    # brute force at two draws: log π_y + log N(x | μ_y, Σ_y) - logsumexp over classes
    for chain, draw in [(0, 0), (3, 517)]:
        pi = dt.posterior["class_prior"].values[chain, draw]
        mean = dt.posterior["mean"].values[chain, draw]
        cov = np.broadcast_to(
            dt.posterior["cov"].values[chain, draw], (N_CLASSES, N_FEATURES, N_FEATURES)
        )
        joint = np.log(pi) + np.column_stack(
            [stats.multivariate_normal(mean[c], cov[c]).logpdf(X) for c in range(N_CLASSES)]
        )
        expected = joint[np.arange(N_DOCS), codes] - logsumexp(joint, axis=1)
        np.testing.assert_allclose(ll.values[chain, draw], expected, rtol=1e-8, atol=1e-13)
    loo = az.loo(dt, var_name="y")
    assert np.isfinite(loo.elpd) and loo.n_data_points == N_DOCS
    assert loo.elpd < 0


@pytest.mark.slow
def test_posterior_predictive_on_the_data_model(gda_fits):
    """The data form's X is written on mean and cov: a fit's draws drive predictive draws."""
    import pymc as pm

    est, X, y, dt, _ = gda_fits["per_class"]
    model = declare(est, X, y, likelihood="data")
    with model, warnings.catch_warnings():
        warnings.simplefilter("error", pm.exceptions.ImplicitFreezeWarning)
        pp = pm.sample_posterior_predictive(
            dt,
            var_names=["X"],
            freeze_vars=["mean", "cov"],
            random_seed=3,
            progressbar=False,
            compile_kwargs={"mode": "FAST_COMPILE"},
        )
    Xp = pp.posterior_predictive["X"]
    assert Xp.dims == ("chain", "draw", "doc", "feature")
    assert Xp.shape == (CHAINS, DRAWS, N_DOCS, N_FEATURES)
    # E[x_i] = E[μ_{y_i}] and Var[x_ij] = E[Σ_{y_i},jj] + Var[μ_{y_i},j] (total variance)
    codes = np.searchsorted(est.classes_, y)
    mean = dt.posterior["mean"].values.reshape(-1, N_CLASSES, N_FEATURES)
    var = np.diagonal(dt.posterior["cov"].values, axis1=-2, axis2=-1)
    var = var.reshape(-1, N_CLASSES, N_FEATURES)
    expected_var = (var.mean(axis=0) + mean.var(axis=0))[codes]
    draws = Xp.values.reshape(-1, N_DOCS, N_FEATURES)
    z = np.abs(draws.mean(axis=0) - mean.mean(axis=0)[codes]) / np.sqrt(
        expected_var / draws.shape[0]
    )
    assert z.max() < 5.0, z.max()
    np.testing.assert_allclose(draws.var(axis=0), expected_var, rtol=0.12)


# -- compiled-model reuse ----------------------------------------------------------------------
@pytest.mark.slow
def test_compiled_model_is_reused_for_new_data_and_prior(gda_fits, monkeypatch):
    import bayesnb.compiled

    gda_fits["shared"]  # compiles the sufficient shared model of this shape
    X, y = _data(seed=6, n=300)  # more documents: same sufficient shapes

    def no_compile(*args, **kwargs):
        raise AssertionError("recompiled a model of a cached shape")

    monkeypatch.setattr(bayesnb.compiled, "compile_model", no_compile)
    prior = NormalInverseWishart(mu0=0.0, kappa0=2.0, psi0=3.0, nu0=8.0)
    est = GDA(covariance="shared", prior=prior, class_alpha=2.0).fit(X, y)
    dt, warned = fit_recording_warnings(est, X, y, draws=500, random_seed=1)
    assert not warned, [str(w.message) for w in warned]
    # the new prior and data were used: compare with the closed form of *this* estimator
    for var, truth in _closed_form(est).items():
        mean = dt.posterior[var].mean(("chain", "draw")).values
        z = np.abs(mean - truth) / mcse(dt, var)
        assert z.max() < 4.0, (var, z.max())
