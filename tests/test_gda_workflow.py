"""GDA in the exact conjugate paths: point estimates, exact NIW draws, closed-form summaries,
simulation-based calibration, log evidence, save/load and synthetic data."""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats
from scipy.special import gammaln

import bayesnb as bnb
from bayesnb import io
from bayesnb.draws import posterior_draws, posterior_summary, sample_posterior
from bayesnb.evidence import log_evidence
from bayesnb.priors import NormalInverseWishart

COVS = ("shared", "per_class", "diagonal")
POINTS = ("mle", "map", "mean")


def _blobs(n=60, d=3, k=2, seed=0, offset=0.0):
    """Correlated Gaussian classes with distinct means (labels 0..k-1)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    A = np.eye(d) + 0.5 * rng.normal(size=(d, d))
    X = rng.normal(size=(n, d)) @ A.T + 1.5 * rng.normal(size=(k, d))[y] + offset
    return X, y


def _prior(d, seed=0, nu_extra=3.0):
    """A fully specified NIW prior (nothing resolved from the data)."""
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(d, d))
    return NormalInverseWishart(
        mu0=rng.normal(size=d), kappa0=0.5, psi0=B @ B.T + d * np.eye(d), nu0=d + nu_extra
    )


def _class_psi_nu(post, c):
    """Ψ and ν that govern class c's covariance (the shared ones for the shared model)."""
    psi = post.psi if post.covariance_type == "shared" else post.psi[c]
    return psi, float(np.broadcast_to(post.nu, post.kappa.shape)[c])


def _check_moments(draws, mean, var, k=4.0):
    """Sample mean and variance of (chain, draw, ...) draws within k Monte Carlo SE."""
    flat = draws.reshape(-1, *draws.shape[2:])
    n = flat.shape[0]
    m_hat = flat.mean(axis=0)
    dev = flat - m_hat
    v_hat = (dev**2).mean(axis=0)
    se_var = np.sqrt(np.maximum((dev**4).mean(axis=0) - v_hat**2, 0.0) / n)
    assert np.all(np.abs(m_hat - mean) <= k * np.sqrt(var / n) + 1e-13), (m_hat, mean)
    assert np.all(np.abs(v_hat - var) <= k * se_var + 1e-13), (v_hat, var)


# -- point estimates -----------------------------------------------------------------------------
@pytest.mark.parametrize("cov", COVS)
@pytest.mark.parametrize("estimate", POINTS)
def test_point_estimate_equals_the_estimators_parameters(cov, estimate):
    X, y = _blobs(n=45, d=3, k=3, seed=1)
    est = bnb.GDA(covariance=cov, estimate=estimate, class_alpha=2.0).fit(X, y)
    post = est.point_estimate(estimate)["posterior"]
    assert post.sizes["chain"] == 1 and post.sizes["draw"] == 1
    assert post.attrs["estimate"] == estimate and post.attrs["model"] == "GDA"
    np.testing.assert_array_equal(post["class_prior"].values[0, 0], np.exp(est.class_log_prior_))
    np.testing.assert_array_equal(post["mean"].values[0, 0], est.means_)
    assert post["mean"].dims == ("chain", "draw", "class", "feature")
    got = post["cov"].values[0, 0]
    if cov == "shared":
        assert post["cov"].dims == ("chain", "draw", "feature", "feature_bis")
        np.testing.assert_array_equal(got, est.covariance_)
    else:
        assert post["cov"].dims == ("chain", "draw", "class", "feature", "feature_bis")
        if cov == "diagonal":
            np.testing.assert_array_equal(np.diagonal(got, axis1=1, axis2=2), est.covariance_)
            assert np.all(got[:, ~np.eye(3, dtype=bool)] == 0.0)
        else:
            np.testing.assert_array_equal(got, est.covariance_)
    # A feature subset (by name, in a chosen order) is the principal sub-block.
    sub = est.point_estimate(estimate, features=["x2", "x0"])["posterior"]
    assert list(sub["feature"].values) == ["x2", "x0"] == list(sub["feature_bis"].values)
    np.testing.assert_array_equal(sub["mean"].values[0, 0], est.means_[:, [2, 0]])
    full = post["cov"].values[0, 0]
    np.testing.assert_array_equal(sub["cov"].values[0, 0], full[..., [2, 0], :][..., [2, 0]])


def test_point_estimate_refuses_bayes_and_checks_var_names():
    X, y = _blobs()
    est = bnb.GDA(estimate="bayes").fit(X, y)
    with pytest.raises(ValueError, match="not a point for GDA"):
        est.point_estimate("bayes")
    only = est.point_estimate("mean", var_names=["cov"])["posterior"]
    assert list(only.data_vars) == ["cov"]
    # The 'mean' estimate of a 'bayes' model: the posterior mean of Σ, which covariance_ reports.
    np.testing.assert_array_equal(only["cov"].values[0, 0], est.covariance_)
    with pytest.raises(ValueError, match=r"var_names must be a subset of \['class_prior', 'mean'"):
        est.point_estimate("mean", var_names="feature_prob")


# -- exact posterior draws -----------------------------------------------------------------------
@pytest.mark.parametrize("cov", COVS)
def test_draw_moments_match_the_closed_forms(cov):
    d = 3
    X, y = _blobs(n=40, d=d, k=2, seed=2)
    est = bnb.GDA(covariance=cov, prior=_prior(d, seed=3), class_alpha=1.5).fit(X, y)
    post = est.posterior_
    dt = sample_posterior(est, draws=5000, chains=4, random_seed=5)
    assert "sample_stats" not in dt.children
    p = dt["posterior"]
    mean_draws, cov_draws = p["mean"].values, p["cov"].values
    summ = posterior_summary(est, ci_prob=0.9)
    for c in range(2):
        kappa = post.kappa[c]
        sig = cov_draws if cov == "shared" else cov_draws[:, :, c]
        if cov == "diagonal":
            # Normal-Inverse-Gamma per feature: σ² ~ IG((ν − d + 1)/2, Ψ_jj/2).
            nu = post.nu[c]
            ig = stats.invgamma((nu - d + 1) / 2, scale=post.psi[c] / 2)
            e_cov, v_cov = np.diag(ig.mean()), np.diag(ig.var())
            psi_diag = post.psi[c]
            assert np.all(sig[..., ~np.eye(d, dtype=bool)] == 0.0)
        else:
            psi, nu = _class_psi_nu(post, c)
            iw = stats.invwishart(df=nu, scale=psi)
            e_cov, v_cov = iw.mean(), iw.var()
            np.testing.assert_allclose(e_cov, psi / (nu - d - 1), rtol=1e-12)  # E[Σ]
            psi_diag = np.diag(psi)
            # The whole matrix, not only its marginals: aᵀΣ⁻¹a / aᵀΨ⁻¹a ~ χ²(ν) (Wishart).
            a = np.array([0.3, -1.0, 0.7])
            q = np.einsum("i,...ij,j->...", a, np.linalg.inv(sig), a)
            q /= a @ np.linalg.solve(psi, a)
            assert stats.kstest(q.ravel(), stats.chi2(nu).cdf).pvalue > 1e-3
        _check_moments(sig, e_cov, v_cov)
        # μ_c: mean μ_c (posterior), variance Ψ_jj / (κ_c (ν − d − 1)) (the Student-t marginal).
        var_mu = psi_diag / (kappa * (nu - d - 1))
        _check_moments(mean_draws[:, :, c], post.mu[c], var_mu)
        # The closed-form summary agrees with the same references.
        sm = summ["mean"].isel(**{"class": c})
        np.testing.assert_allclose(sm.sel(summary="mean").values, post.mu[c], rtol=1e-13)
        np.testing.assert_allclose(sm.sel(summary="sd").values, np.sqrt(var_mu), rtol=1e-12)
        sc = summ["cov"] if cov == "shared" else summ["cov"].isel(**{"class": c})
        np.testing.assert_allclose(sc.sel(summary="mean").values, e_cov, rtol=1e-12)
        np.testing.assert_allclose(sc.sel(summary="sd").values, np.sqrt(v_cov), rtol=1e-10)
        # Interval bounds against Monte Carlo quantiles, tolerance from the quantile's SE.
        n = 20000
        dof = nu - d + 1
        t_marg = stats.t(dof, post.mu[c], np.sqrt(psi_diag / (kappa * dof)))
        ig_marg = stats.invgamma(dof / 2, scale=psi_diag / 2)
        diag_draws = np.diagonal(sig, axis1=-2, axis2=-1).reshape(n, d)
        for q, label in ((0.05, "eti90_lb"), (0.95, "eti90_ub")):
            for draws_, bound, marg in (
                (mean_draws[:, :, c].reshape(n, d), sm.sel(summary=label).values, t_marg),
                (diag_draws, np.diagonal(sc.sel(summary=label).values), ig_marg),
            ):
                se = np.sqrt(q * (1 - q) / n) / marg.pdf(bound)
                assert np.all(np.abs(np.quantile(draws_, q, axis=0) - bound) <= 5 * se)
        off = ~np.eye(d, dtype=bool)
        bounds = sc.sel(summary="eti90_lb").values[off]
        assert np.all(bounds == 0.0) if cov == "diagonal" else np.all(np.isnan(bounds))
    _check_moments(p["class_prior"].values, est.class_posterior_.mean(), est.class_posterior_.var())


def test_summary_in_the_heavy_tailed_regime():
    """Few points, ν0 = d + 0.5: Σ has a mean but no variance, μ's t has 3.5 d.o.f."""
    d = 2
    X, y = _blobs(n=4, d=d, k=2, seed=32)
    est = bnb.GDA(covariance="per_class", prior=_prior(d, seed=33, nu_extra=0.5)).fit(X, y)
    post = est.posterior_
    assert np.allclose(post.nu - d, 2.5)
    summ = posterior_summary(est, ci_prob=0.8)
    assert np.all(np.isnan(summ["cov"].sel(summary="sd").values))  # needs ν − d > 3
    assert np.all(np.isfinite(summ["cov"].sel(summary="mean").values))
    assert np.all(np.isfinite(summ["mean"].sel(summary="sd").values))  # t with 3.5 > 2 d.o.f.
    draws = posterior_draws(est, draws=5000, chains=4, random_seed=34)
    n = 20000
    for c in range(2):
        psi = np.diag(post.psi[c])
        dof = post.nu[c] - d + 1
        margs = {
            "mean": (
                draws["mean"][:, :, c].reshape(n, d),
                stats.t(dof, post.mu[c], np.sqrt(psi / (post.kappa[c] * dof))),
            ),
            "cov": (
                np.diagonal(draws["cov"][:, :, c], axis1=-2, axis2=-1).reshape(n, d),
                stats.invgamma(dof / 2, scale=psi / 2),
            ),
        }
        for name, (flat, marg) in margs.items():
            for q, label in ((0.1, "eti80_lb"), (0.9, "eti80_ub")):
                bound = summ[name].sel(summary=label).isel(**{"class": c}).values
                bound = np.diagonal(bound) if name == "cov" else bound
                np.testing.assert_allclose(bound, marg.ppf(q), rtol=1e-10)
                se = np.sqrt(q * (1 - q) / n) / marg.pdf(bound)
                assert np.all(np.abs(np.quantile(flat, q, axis=0) - bound) <= 5 * se)


def test_feature_subset_draws_the_inverse_wishart_marginal():
    """Σ_SS of Σ ~ IW_d(Ψ, ν) is IW_s(Ψ_SS, ν − d + s); drawing it directly is exact."""
    d = 4
    X, y = _blobs(n=30, d=d, k=2, seed=6)
    est = bnb.GDA(covariance="per_class", prior=_prior(d, seed=7)).fit(X, y)
    post = est.posterior_
    cols = [3, 1]
    sub = posterior_draws(est, draws=5000, chains=4, random_seed=8, features=cols)
    assert sub["cov"].shape == (4, 5000, 2, 2, 2) and sub["mean"].shape == (4, 5000, 2, 2)
    full = posterior_draws(est, draws=5000, chains=4, random_seed=9)
    block = np.ix_(cols, cols)
    for c in range(2):
        psi_s, nu = post.psi[c][block], post.nu[c]
        right = stats.invwishart(df=nu - d + 2, scale=psi_s)
        _check_moments(sub["cov"][:, :, c], right.mean(), right.var())
        # The uncorrected IW(Ψ_SS, ν) has a different mean, far outside the tolerance.
        wrong = stats.invwishart(df=nu, scale=psi_s).mean()
        n = 20000
        se = np.sqrt(right.var() / n)
        assert np.abs(sub["cov"][:, :, c].mean(axis=(0, 1)) - wrong)[0, 0] > 20 * se[0, 0]
        # Subset draws and the sub-block of full draws have the same distribution.
        for a, b in (
            (sub["cov"][:, :, c, 0, 1], full["cov"][:, :, c, 3, 1]),
            (sub["mean"][:, :, c, 1], full["mean"][:, :, c, 1]),
        ):
            assert stats.ks_2samp(a.ravel(), b.ravel()).pvalue > 1e-3
    # One column: the inverse-gamma marginal of a diagonal entry.
    one = posterior_draws(est, draws=4000, chains=1, random_seed=10, features=[2])["cov"]
    ig = stats.invgamma((post.nu[0] - d + 1) / 2, scale=post.psi[0][2, 2] / 2)
    assert stats.kstest(one[0, :, 0, 0, 0], ig.cdf).pvalue > 1e-3


def test_seeds_var_names_errors_and_max_bytes():
    X, y = _blobs(n=30, d=3, k=3, seed=11)
    est = bnb.GDA(covariance="per_class").fit(X, y)
    a = posterior_draws(est, draws=40, chains=2, random_seed=3)
    b = sample_posterior(est, draws=40, chains=2, random_seed=3)["posterior"]
    c = posterior_draws(est, draws=40, chains=2, random_seed=4)
    only_mean = posterior_draws(est, draws=40, chains=2, random_seed=3, var_names="mean")
    for name in ("class_prior", "mean", "cov"):
        np.testing.assert_array_equal(a[name], b[name].values)
        assert not np.allclose(a[name], c[name])
    assert set(only_mean) == {"mean"}
    np.testing.assert_array_equal(only_mean["mean"], a["mean"])  # Σ drawn all the same
    sym = a["cov"]
    np.testing.assert_array_equal(sym, np.swapaxes(sym, -1, -2))
    assert np.all(np.linalg.eigvalsh(sym) > 0)
    with pytest.raises(ValueError, match=r"max_bytes.*features="):
        est.sample_posterior(draws=1000, chains=4, max_bytes=1e5)
    est.sample_posterior(draws=1000, chains=4, max_bytes=1e6, features=[0])  # fits: 1 column
    with pytest.raises(ValueError, match="var_names"):
        posterior_draws(est, var_names=["feature_prob"])
    with pytest.raises(ValueError, match="features"):
        posterior_draws(est, features=[5])
    with pytest.raises(ValueError, match="draws"):
        posterior_draws(est, draws=0)


# -- simulation-based calibration (Talts et al. 2018) -------------------------------------------
# The NIW prior of the simulation is drawn with scipy (independent of the sampler under test):
# 400 simulations of 8 two-dimensional points, L = 19 posterior draws each, the rank of the true
# value among them uniform on 0..19 when the sampler is exact (χ², 19 degrees of freedom). A
# fit whose prior scale is 4 times too large is detected by the same simulations.
SBC_SIMS, SBC_DRAWS, SBC_N = 400, 19, 8
SBC_PSI0 = np.array([[2.0, 0.6], [0.6, 1.6]])
SBC_MU0 = np.array([0.5, -0.5])


def _sbc_prior(scale=1.0):
    return NormalInverseWishart(mu0=SBC_MU0, kappa0=1.0, psi0=scale * SBC_PSI0, nu0=5.0)


def _sbc_pvalue(ranks) -> float:
    return float(stats.chisquare(np.bincount(ranks, minlength=SBC_DRAWS + 1)).pvalue)


@pytest.mark.parametrize("cov", ["shared", "per_class"])
def test_simulation_based_calibration(cov):
    rng = np.random.default_rng({"shared": 21, "per_class": 22}[cov])
    iw = stats.invwishart(df=5.0, scale=SBC_PSI0)
    names = ("sigma_00", "sigma_01", "sigma_11", "mu_00", "mu_11", "pi_0")
    ranks = {k: [] for k in names}
    wrong = []
    for sim in range(SBC_SIMS):
        pi = rng.dirichlet([2.0, 2.0])
        y = rng.choice(2, size=SBC_N, p=pi)
        sigmas = [iw.rvs(random_state=rng)] * 2 if cov == "shared" else iw.rvs(2, rng)
        chols = [np.linalg.cholesky(s) for s in sigmas]
        mus = np.stack([SBC_MU0 + L @ rng.normal(size=2) for L in chols])  # κ0 = 1
        X = mus[y] + np.einsum("nij,nj->ni", np.stack(chols)[y], rng.normal(size=(SBC_N, 2)))
        truth = {
            "sigma_00": sigmas[0][0, 0],
            "sigma_01": sigmas[0][0, 1],
            "sigma_11": sigmas[1][1, 1],
            "mu_00": mus[0, 0],
            "mu_11": mus[1, 1],
            "pi_0": pi[0],
        }
        for scale in (1.0, 4.0):
            est = bnb.GDA(covariance=cov, prior=_sbc_prior(scale), class_alpha=2.0)
            est.partial_fit(X, y, classes=[0, 1])
            d = posterior_draws(est, draws=SBC_DRAWS, chains=1, random_seed=sim)
            s = d["cov"][0] if cov == "shared" else d["cov"][0, :, :]
            s0 = s if cov == "shared" else s[:, 0]
            s1 = s if cov == "shared" else s[:, 1]
            if scale == 4.0:
                wrong.append(int((s0[:, 0, 0] < truth["sigma_00"]).sum()))
                continue
            drawn = {
                "sigma_00": s0[:, 0, 0],
                "sigma_01": s0[:, 0, 1],
                "sigma_11": s1[:, 1, 1],
                "mu_00": d["mean"][0, :, 0, 0],
                "mu_11": d["mean"][0, :, 1, 1],
                "pi_0": d["class_prior"][0, :, 0],
            }
            for k in names:
                ranks[k].append(int((drawn[k] < truth[k]).sum()))
    pvalues = {k: _sbc_pvalue(r) for k, r in ranks.items()}
    assert min(pvalues.values()) > 1e-3, pvalues
    assert _sbc_pvalue(wrong) < 1e-3


# -- log evidence --------------------------------------------------------------------------------
@pytest.mark.parametrize("cov", COVS)
def test_evidence_equals_the_sequential_student_t_predictive(cov):
    """log p(X, y) = Σ_i log p(x_i, y_i | earlier points): an exact, independent identity.

    Each factor is the estimator's own 'bayes' joint (Student-t predictive times the
    Dirichlet-multinomial label predictive); the first one is the prior predictive, from scipy.
    """
    d, k, n = 3, 3, 15
    X, y = _blobs(n=n, d=d, k=k, seed=12)
    perm = np.random.default_rng(13).permutation(n)
    X, y = X[perm], y[perm]
    prior = _prior(d, seed=14, nu_extra=0.5)  # ν0 = d + 0.5: heavy tails, non-integer
    gamma = 1.7
    closed = bnb.GDA(covariance=cov, prior=prior, class_alpha=gamma).fit(X, y).log_evidence()
    dof = prior.nu0 - d + 1
    shape = prior.psi0 * (prior.kappa0 + 1) / (prior.kappa0 * dof)
    if cov == "diagonal":
        sd = np.sqrt(np.diag(shape))
        first = stats.t(dof, prior.mu0, sd).logpdf(X[0]).sum()
    else:
        first = stats.multivariate_t(prior.mu0, shape, df=dof).logpdf(X[0])
    total = first - np.log(k)
    seq = bnb.GDA(covariance=cov, prior=prior, class_alpha=gamma, estimate="bayes")
    seq.partial_fit(X[:1], y[:1], classes=np.arange(k))
    for i in range(1, n):
        total += seq.predict_joint_log_proba(X[i : i + 1])[0, y[i]]
        seq.partial_fit(X[i : i + 1], y[i : i + 1])
    assert closed == pytest.approx(total, rel=1e-11, abs=1e-11)


def _log_normal(x, m, v):
    return -0.5 * (np.log(2 * np.pi * v) + (x - m) ** 2 / v)


def _log_inv_gamma(v, a, b):
    return a * np.log(b) - gammaln(a) - (a + 1) * np.log(v) - b / v


@pytest.mark.parametrize("cov", ["shared", "per_class"])
def test_one_dimensional_evidence_equals_quadrature(cov):
    """log ∫ p(X | μ_c, σ²) p(μ_c | σ²) p(σ²) over (μ_c, σ²) by scipy.integrate.

    In 1-D the inverse Wishart IW_1(Ψ0, ν0) is InvGamma(ν0/2, Ψ0/2). σ² is integrated on
    t = log σ²; the class means inside (the shared σ² couples the classes).
    """
    rng = np.random.default_rng(15)
    y = np.array([0, 1, 0, 1, 1, 0, 1])
    x = rng.normal(size=y.size) * 0.8 + np.where(y == 1, 1.0, -0.5)
    mu0, kappa0, psi0, nu0, gamma = 0.3, 0.8, 1.2, 3.0, 1.4
    prior = NormalInverseWishart(mu0=mu0, kappa0=kappa0, psi0=psi0, nu0=nu0)
    est = bnb.GDA(covariance=cov, prior=prior, class_alpha=gamma).fit(x[:, None], y)

    def log_class(c, mu, t):
        xc = x[y == c]
        v = np.exp(t)
        return _log_normal(xc, mu, v).sum() + _log_normal(mu, mu0, v / kappa0)

    def log_mu_integral(c, t):
        # The integrand is a Gaussian bump in μ around the class posterior mean.
        xc = x[y == c]
        m = (kappa0 * mu0 + xc.sum()) / (kappa0 + xc.size)
        s = np.sqrt(np.exp(t) / (kappa0 + xc.size))
        ref = log_class(c, m, t)
        val, _ = integrate.quad(
            lambda mu: np.exp(log_class(c, mu, t) - ref), m - 15 * s, m + 15 * s, epsrel=1e-12
        )
        return ref + np.log(val)

    def log_quad_t(log_f):
        grid = np.linspace(-8, 6, 120)
        ref = max(log_f(t) for t in grid)
        val, err = integrate.quad(
            lambda t: np.exp(log_f(t) - ref), -12, 8, limit=400, epsabs=0, epsrel=1e-11
        )
        assert err < 1e-8 * val
        return ref + np.log(val)

    def log_prior_t(t, nu):  # log IG(e^t) + t (the Jacobian of σ² = e^t)
        return _log_inv_gamma(np.exp(t), nu / 2, psi0 / 2) + t

    if cov == "shared":
        feat = log_quad_t(
            lambda t: log_prior_t(t, nu0) + sum(log_mu_integral(c, t) for c in (0, 1))
        )
    else:
        feat = sum(
            log_quad_t(lambda t, c=c: log_prior_t(t, nu0) + log_mu_integral(c, t)) for c in (0, 1)
        )
    n1 = int(y.sum())
    cls_val, _ = integrate.quad(
        lambda p: p ** (y.size - n1) * (1 - p) ** n1 * stats.beta.pdf(p, gamma, gamma), 0, 1
    )
    assert est.log_evidence() == pytest.approx(feat + np.log(cls_val), abs=1e-8)


def test_one_dimensional_diagonal_equals_per_class():
    """With d = 1 the diagonal (Normal-Inverse-Gamma) and per-class (NIW) models coincide."""
    x, y = _blobs(n=20, d=1, k=2, seed=16)
    prior = NormalInverseWishart(mu0=0.2, kappa0=0.3, psi0=0.9, nu0=2.5)
    per_class = bnb.GDA(covariance="per_class", prior=prior).fit(x, y).log_evidence()
    diagonal = bnb.GDA(covariance="diagonal", prior=prior).fit(x, y).log_evidence()
    assert diagonal == pytest.approx(per_class, rel=1e-13)


@pytest.mark.parametrize("cov", COVS)
def test_evidence_of_weights_chunks_and_fixed_class_prior(cov):
    X, y = _blobs(n=30, d=2, k=2, seed=17, offset=1e5)
    prior = NormalInverseWishart(mu0=[1e5, 1e5], kappa0=0.4, psi0=[[2.0, 0.5], [0.5, 1.0]], nu0=4)
    w = np.random.default_rng(18).integers(0, 4, size=y.size)
    kw = {"covariance": cov, "prior": prior}
    weighted = log_evidence(bnb.GDA(**kw).fit(X, y, sample_weight=w))
    repeated = log_evidence(bnb.GDA(**kw).fit(np.repeat(X, w, axis=0), np.repeat(y, w)))
    assert weighted == pytest.approx(repeated, rel=1e-11)
    chunked = bnb.GDA(**kw)
    for part in np.array_split(np.arange(y.size), 3):
        chunked.partial_fit(X[part], y[part], classes=[0, 1])
    assert chunked.log_evidence() == pytest.approx(
        bnb.GDA(**kw).fit(X, y).log_evidence(), rel=1e-11
    )
    # The class term is the only difference between a learned and a fixed class prior.
    learned = bnb.GDA(class_alpha=2.0, **kw).fit(X, y).log_evidence()
    fixed = bnb.GDA(class_prior=[0.3, 0.7], **kw).fit(X, y).log_evidence()
    n_c = np.bincount(y)
    dm = gammaln(4.0) - gammaln(4.0 + y.size) + np.sum(gammaln(2.0 + n_c) - gammaln(2.0))
    assert fixed - learned == pytest.approx(n_c @ np.log([0.3, 0.7]) - dm, rel=1e-12)
    with pytest.raises(ValueError, match="class_alpha > 0"):
        bnb.GDA(class_alpha=0.0, **kw).fit(X, y).log_evidence()


def test_evidence_prefers_the_true_covariance_structure():
    """Correlated classes with different covariances: per-class beats diagonal by a margin."""
    rng = np.random.default_rng(19)
    y = np.arange(300) % 2
    L = [np.array([[1.0, 0.0], [0.9, 0.3]]), np.array([[1.0, 0.0], [-0.8, 0.5]])]
    X = np.stack([L[c] @ rng.normal(size=2) for c in y]) + np.array([[0, 0], [1, 1]])[y]
    ev = {c: bnb.GDA(covariance=c).fit(X, y).log_evidence() for c in COVS}
    assert ev["per_class"] > ev["shared"] + 50 and ev["per_class"] > ev["diagonal"] + 50


# -- save / load ---------------------------------------------------------------------------------
@pytest.mark.parametrize("cov", COVS)
@pytest.mark.parametrize("estimate", [*POINTS, "bayes"])
def test_round_trip_is_bitwise(tmp_path, cov, estimate):
    X, y = _blobs(n=50, d=3, k=3, seed=20, offset=1e7)  # far from 0: offsets must survive
    labels = np.array(["lo", "mid", "hi"])[y]
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    est = bnb.GDA(covariance=cov, estimate=estimate, class_alpha=1.5).fit(df, labels)
    path = tmp_path / "gda.nc"
    est.save(path)
    back = bnb.load(path, expected=bnb.GDA)
    assert type(back) is bnb.GDA and back.prior is None
    assert {k: v for k, v in back.get_params().items() if k != "prior"} == {
        k: v for k, v in est.get_params().items() if k != "prior"
    }
    np.testing.assert_array_equal(back.feature_names_in_, est.feature_names_in_)
    np.testing.assert_array_equal(back.classes_, est.classes_)
    for attr in ("predict_proba", "predict_joint_log_proba", "predict"):
        np.testing.assert_array_equal(getattr(back, attr)(df), getattr(est, attr)(df))
    np.testing.assert_array_equal(back.means_, est.means_)
    np.testing.assert_array_equal(back.covariance_, est.covariance_)
    assert back.log_evidence() == est.log_evidence()
    np.testing.assert_array_equal(
        back.sample(20, random_seed=1)[0], est.sample(20, random_seed=1)[0]
    )
    for name, arr in posterior_draws(back, draws=5, chains=1, random_seed=2).items():
        np.testing.assert_array_equal(
            arr, posterior_draws(est, draws=5, chains=1, random_seed=2)[name]
        )


def test_explicit_prior_is_kept_and_a_loaded_model_keeps_learning(tmp_path):
    X, y = _blobs(n=60, d=2, k=2, seed=21)
    prior = NormalInverseWishart(mu0=[0.1, 0.2], kappa0=0.3, psi0=np.array([1.0, 2.0]))
    est = bnb.GDA(covariance="per_class", prior=prior, class_prior=[0.4, 0.6]).fit(X, y)
    est.save(tmp_path / "p.nc")
    back = bnb.load(tmp_path / "p.nc")
    assert isinstance(back.prior, NormalInverseWishart) and back.prior.nu0 is None
    np.testing.assert_array_equal(back.prior.mu0, prior.mu0)
    np.testing.assert_array_equal(back.prior.psi0, prior.psi0)
    assert back.prior.kappa0 == prior.kappa0
    np.testing.assert_array_equal(back.class_prior, [0.4, 0.6])
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    # Default (data-scaled) prior: resumed after loading = the same partial_fit calls unsaved.
    first = bnb.GDA(covariance="shared").partial_fit(X[:25], y[:25], classes=[0, 1])
    first.save(tmp_path / "s.nc")
    resumed = bnb.load(tmp_path / "s.nc").partial_fit(X[25:], y[25:])
    direct = bnb.GDA(covariance="shared").partial_fit(X[:25], y[:25], classes=[0, 1])
    direct.partial_fit(X[25:], y[25:])
    np.testing.assert_array_equal(resumed.predict_proba(X), direct.predict_proba(X))
    np.testing.assert_allclose(
        resumed.predict_proba(X),
        bnb.GDA(covariance="shared").fit(X, y).predict_proba(X),
        rtol=1e-12,
    )


def test_file_layout_and_checksum_cover_the_gda_arrays(tmp_path):
    import xarray as xr

    X, y = _blobs(n=40, d=3, k=2, seed=22)
    est = bnb.GDA(covariance="per_class").fit(X, y)
    path = tmp_path / "g.nc"
    est.save(path)
    with xr.open_datatree(path, engine="h5netcdf") as tree:
        assert set(tree.children) == {"statistics", "prior"}
        st = tree["statistics"].to_dataset()
        pr = tree["prior"].to_dataset()
        assert set(st.data_vars) == {"class_count", "mean_offset", "shift", "scatter"}
        assert st["scatter"].dims == ("class", "feature", "feature_bis")
        assert set(pr.data_vars) == {"mu0", "kappa0", "psi0", "nu0"}
        np.testing.assert_array_equal(pr["psi0"].values, est.posterior_.prior.psi0)
        assert float(pr["nu0"]) == 5.0  # the resolved default d + 2
    original = path.read_bytes()
    for arr in (est._stats.scatter, est.posterior_.prior.mu0):
        raw = np.ascontiguousarray(arr, dtype="<f8").tobytes()
        at = original.find(raw)
        assert at > 0  # stored uncompressed and contiguous
        data = bytearray(original)
        data[at + 5] ^= 0x01
        path.write_bytes(bytes(data))
        with pytest.raises(ValueError, match="checksum"):
            bnb.load(path)


def test_a_prior_resolved_differently_loads_with_the_stored_one(tmp_path, monkeypatch):
    """Another machine's last bits load silently; another rule warns; both use the stored
    prior, so the loaded model predicts as the saved one."""
    X, y = _blobs(n=40, d=2, k=2, seed=23)
    saved = bnb.GDA().fit(X, y)
    saved.save(tmp_path / "g.nc")
    original = NormalInverseWishart.resolve

    def drifted(scale):
        def resolve(self, n_features, data_mean, data_var):
            return original(self, n_features, data_mean, data_var * scale)

        return resolve

    monkeypatch.setattr(NormalInverseWishart, "resolve", drifted(1 + 1e-15))
    with warnings.catch_warnings():
        warnings.simplefilter("error", io.ModelFileWarning)
        same = bnb.load(tmp_path / "g.nc")
    np.testing.assert_array_equal(same.predict_proba(X), saved.predict_proba(X))
    monkeypatch.setattr(NormalInverseWishart, "resolve", drifted(1.001))
    with pytest.warns(io.ModelFileWarning, match=r"psi0 derived from the file's statistics"):
        other = bnb.load(tmp_path / "g.nc")
    np.testing.assert_array_equal(other.prior_.psi0, saved.prior_.psi0)
    np.testing.assert_array_equal(other.predict_proba(X), saved.predict_proba(X))
    monkeypatch.undo()
    with pytest.raises(ValueError, match="not the expected MultinomialNB"):
        io.load(tmp_path / "g.nc", expected="MultinomialNB")


# -- synthetic data ------------------------------------------------------------------------------
N_SAMPLE = 20_000


@pytest.mark.parametrize("cov", COVS)
@pytest.mark.parametrize("estimate", POINTS)
def test_sample_moments_match_the_estimate(cov, estimate):
    X, y = _blobs(n=90, d=3, k=3, seed=24)
    est = bnb.GDA(covariance=cov, estimate=estimate).fit(X, y)
    Xs, ys = est.sample(N_SAMPLE, random_seed=25)
    assert Xs.shape == (N_SAMPLE, 3) and Xs.dtype == np.float64 and ys.dtype == est.classes_.dtype
    p = np.exp(est.class_log_prior_)
    freq = np.array([np.mean(ys == c) for c in est.classes_])
    assert np.all(np.abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / N_SAMPLE))
    for c in range(3):
        Xc = Xs[ys == c]
        n = Xc.shape[0]
        S = est.covariance_ if cov == "shared" else est.covariance_[c]
        S = np.diag(S) if cov == "diagonal" else S
        assert np.all(np.abs(Xc.mean(axis=0) - est.means_[c]) <= 4 * np.sqrt(np.diag(S) / n))
        # Sample covariance entries: SE² = (Σ_ii Σ_jj + Σ_ij²) / n for a Gaussian.
        se = np.sqrt((np.outer(np.diag(S), np.diag(S)) + S**2) / n)
        assert np.all(np.abs(np.cov(Xc.T) - S) <= 4 * se)


@pytest.mark.parametrize("cov", COVS)
def test_bayes_sample_is_the_student_t_predictive(cov):
    d = 2
    X, y = _blobs(n=6, d=d, k=2, seed=26)  # few points: ν' small, tails heavy
    est = bnb.GDA(covariance=cov, estimate="bayes", prior=_prior(d, seed=27, nu_extra=0.0))
    est.fit(X, y)
    post = est.posterior_
    Xs, ys = est.sample(N_SAMPLE, random_seed=28)
    for c in range(2):
        Xc = Xs[ys == c]
        dof = post.dof[c]
        assert dof < 8
        psi = post.psi[c] if cov == "diagonal" else np.diag(_class_psi_nu(post, c)[0])
        scale = np.sqrt(psi * (post.kappa[c] + 1) / (post.kappa[c] * dof))
        z = (Xc - post.mu[c]) / scale
        for j in range(d):
            assert stats.kstest(z[:, j], stats.t(dof).cdf).pvalue > 1e-3
            # Power: a normal with the predictive's variance is rejected by the same sample.
            normal = stats.norm(0, np.sqrt(dof / (dof - 2))).cdf
            assert stats.kstest(z[:, j], normal).pvalue < 1e-3
        # Joint shape: one shared χ² scale (multivariate t) makes |z_1|, |z_2| correlated
        # even without correlation in Ψ; the diagonal model's features are independent.
        if cov == "diagonal":
            # Spearman's ρ of independent variables has SE 1/sqrt(n − 1), whatever the tails.
            rho = stats.spearmanr(np.abs(z[:, 0]), np.abs(z[:, 1])).statistic
            assert abs(rho) < 4 / np.sqrt(Xc.shape[0] - 1)
        else:
            psi_full = _class_psi_nu(post, c)[0]
            shape = psi_full * (post.kappa[c] + 1) / (post.kappa[c] * dof)
            diff = Xc - post.mu[c]
            q = np.einsum("ni,ij,nj->n", diff, np.linalg.inv(shape), diff) / d
            assert stats.kstest(q, stats.f(d, dof).cdf).pvalue > 1e-3


def test_sample_refuses_a_class_without_an_estimate():
    X, y = _blobs(n=30, d=2, k=2, seed=29)
    est = bnb.GDA(estimate="mle", class_prior=[0.5, 0.2, 0.3])
    est.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="class 2 has no estimate"):
        est.sample(100, random_seed=0)
    Xa, ya = bnb.GDA().fit(X, y).sample(50, random_seed=3)
    Xb, yb = bnb.GDA().fit(X, y).sample(50, random_seed=3)
    np.testing.assert_array_equal(Xa, Xb)
    np.testing.assert_array_equal(ya, yb)


# -- ArviZ ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("cov", COVS)
def test_arviz_summary_reads_every_gda_tree(cov):
    X, y = _blobs(n=40, d=2, k=2, seed=30)
    est = bnb.GDA(covariance=cov).fit(X, y)
    tree = est.sample_posterior(draws=1000, chains=4, random_seed=31)
    with warnings.catch_warnings():
        # The diagonal model's structural zeros have no spread: ArviZ's R-hat divides by 0.
        warnings.simplefilter("ignore", RuntimeWarning)
        summary = az.summary(tree, round_to="none")
        ref = az.summary(tree, kind="stats", fmt="xarray", ci_prob=0.9)
    n_cov = 4 if cov == "shared" else 8
    assert len(summary) == 2 + 4 + n_cov
    closed = posterior_summary(est, ci_prob=0.9)
    assert list(closed["summary"].values) == list(ref["summary"].values)
    sd = closed["mean"].sel(summary="sd").values.ravel()
    rows = [f"mean[{c}, x{j}]" for c in (0, 1) for j in (0, 1)]
    got = summary.loc[rows, "mean"].to_numpy()
    assert np.all(np.abs(got - est.posterior_.mu.ravel()) < 4 * sd / np.sqrt(4000))
    cell = "cov[x0, x1]" if cov == "shared" else "cov[1, x0, x1]"
    want = closed["cov"].sel(summary="mean", feature="x0", feature_bis="x1")
    want = float(want) if cov == "shared" else float(want.sel(**{"class": "1"}))
    assert summary.loc[cell, "mean"] == pytest.approx(want, abs=4 * summary.loc[cell, "sd"] / 60)
    point = az.summary(est.point_estimate("map"), kind="stats", round_to="none")
    np.testing.assert_allclose(point.loc[rows, "mean"].to_numpy(), est.posterior_.mu.ravel())
