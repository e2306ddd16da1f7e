"""Gaussian discriminant analysis: estimates against independent references, the NIW posterior
against Monte Carlo, exact streaming statistics, the logistic link, bad input, scikit-learn
compatibility and learning curves."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import logsumexp, softmax
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.estimator_checks import parametrize_with_checks

import bayesnb
from bayesnb import GDA
from bayesnb.priors import NormalInverseWishart

COVS = ("shared", "per_class", "diagonal")
ESTIMATES = ("mle", "map", "mean", "bayes")
LOADERS = {"breast_cancer": load_breast_cancer, "wine": load_wine, "iris": load_iris}


def blobs(n=120, d=3, k=3, seed=0, scale=1.0):
    """Correlated Gaussian classes with distinct means."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    A = np.eye(d) + 0.5 * rng.normal(size=(d, d))
    X = rng.normal(size=(n, d)) @ A.T * scale + 2.0 * rng.normal(size=(k, d))[y]
    return X, y


def class_log_density(model, X):
    """log p(x | c): the joint minus the class prior."""
    return model.predict_joint_log_proba(X) - model.class_log_prior_


# -- "mle": the lecture-note formulas, equal to scikit-learn and scipy ---------------------------
@pytest.mark.parametrize("name", list(LOADERS))
def test_mle_shared_equals_sklearn_lda(name):
    X, y = LOADERS[name](return_X_y=True)
    ours = GDA(covariance="shared", estimate="mle").fit(X, y)
    lda = LinearDiscriminantAnalysis(solver="lsqr", store_covariance=True).fit(X, y)
    # Breast cancer's Σ has condition number ~3e11: still 1e-7 on the probabilities.
    np.testing.assert_allclose(ours.predict_proba(X), lda.predict_proba(X), rtol=0, atol=1e-7)
    np.testing.assert_allclose(ours.means_, lda.means_, rtol=1e-12)
    np.testing.assert_allclose(ours.covariance_, lda.covariance_, rtol=1e-9, atol=0)
    np.testing.assert_allclose(np.exp(ours.class_log_prior_), lda.priors_, rtol=1e-12)
    assert np.mean(ours.predict(X) == lda.predict(X)) == 1.0


def test_mle_shared_is_the_lecture_note_formulas():
    X, y = blobs(n=90, d=4, k=3, seed=1)
    m = GDA(covariance="shared", estimate="mle").fit(X, y)
    phi = np.array([np.mean(y == c) for c in range(3)])
    mu = np.array([X[y == c].mean(axis=0) for c in range(3)])
    D = X - mu[y]
    sigma = sum(np.outer(r, r) for r in D) / len(y)
    np.testing.assert_allclose(np.exp(m.class_log_prior_), phi, rtol=1e-14)
    np.testing.assert_allclose(m.means_, mu, rtol=1e-13)
    np.testing.assert_allclose(m.covariance_, sigma, rtol=1e-12)
    # θ_c = Σ⁻¹μ_c, θ_c0 = −½ μ_cᵀΣ⁻¹μ_c + log φ_c.
    theta = np.linalg.solve(sigma, mu.T).T
    np.testing.assert_allclose(m.coef_, theta, rtol=1e-10)
    np.testing.assert_allclose(
        m.intercept_, -0.5 * np.sum(mu * theta, axis=1) + np.log(phi), rtol=1e-10
    )


@pytest.mark.parametrize("name", ["iris", "wine"])
def test_mle_per_class_equals_scipy_normal_densities(name):
    X, y = LOADERS[name](return_X_y=True)
    m = GDA(covariance="per_class", estimate="mle").fit(X, y)
    ref = np.column_stack(
        [
            stats.multivariate_normal(X[y == c].mean(0), np.cov(X[y == c].T, bias=True)).logpdf(X)
            for c in m.classes_
        ]
    )
    np.testing.assert_allclose(class_log_density(m, X), ref, rtol=1e-10)
    prior = np.log([np.mean(y == c) for c in m.classes_])
    np.testing.assert_allclose(m.predict_proba(X), softmax(ref + prior, axis=1), atol=1e-12)
    assert m.covariance_.shape == (len(m.classes_), X.shape[1], X.shape[1])


@pytest.mark.parametrize("name", list(LOADERS))
def test_mle_diagonal_equals_gaussian_nb(name):
    X, y = LOADERS[name](return_X_y=True)
    ours = GDA(covariance="diagonal", estimate="mle").fit(X, y)
    gnb = GaussianNB(var_smoothing=0).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), gnb.predict_proba(X), rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours.means_, gnb.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.covariance_, gnb.var_, rtol=1e-10)
    np.testing.assert_allclose(
        class_log_density(ours, X) + np.log(gnb.class_prior_),
        gnb.predict_joint_log_proba(X),
        rtol=1e-10,
    )


# -- the NIW posterior ---------------------------------------------------------------------------
def user_prior(d, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d))
    return NormalInverseWishart(
        mu0=rng.normal(size=d), kappa0=0.7, psi0=A @ A.T + d * np.eye(d), nu0=d + 1.5
    )


@pytest.mark.parametrize("cov", COVS)
def test_posterior_hyperparameters_equal_their_definitions(cov):
    X, y = blobs(n=40, d=3, k=2, seed=2)
    w = np.random.default_rng(3).uniform(0.2, 3.0, size=len(y))
    prior = user_prior(3)
    post = GDA(covariance=cov, prior=prior).fit(X, y, sample_weight=w).posterior_
    mu0, k0, psi0, nu0 = prior.mu0, prior.kappa0, prior.psi0, prior.nu0
    psis, nus = [], []
    for c in range(2):
        Xc, wc = X[y == c], w[y == c]
        n = wc.sum()
        xbar = wc @ Xc / n
        S = (Xc - xbar).T @ ((Xc - xbar) * wc[:, None])
        kappa = k0 + n
        assert post.kappa[c] == pytest.approx(kappa, rel=1e-14)
        np.testing.assert_allclose(post.mu[c], (k0 * mu0 + n * xbar) / kappa, rtol=1e-13)
        psis.append(S + k0 * n / kappa * np.outer(xbar - mu0, xbar - mu0))
        nus.append(nu0 + n)
    if cov == "shared":
        np.testing.assert_allclose(post.psi, psi0 + sum(psis), rtol=1e-12)
        assert float(post.nu) == pytest.approx(nu0 + w.sum(), rel=1e-14)
    elif cov == "per_class":
        np.testing.assert_allclose(post.psi, psi0 + np.array(psis), rtol=1e-12)
        np.testing.assert_allclose(post.nu, nus, rtol=1e-14)
    else:
        expect = np.diag(psi0) + np.array([np.diag(p) for p in psis])
        np.testing.assert_allclose(post.psi, expect, rtol=1e-12)
        np.testing.assert_allclose(post.nu, nus, rtol=1e-14)


def test_default_prior_is_data_scaled():
    X, y = blobs(n=60, d=4, k=3, seed=4)
    X = np.column_stack([X, np.full(len(y), 7.0)])  # a constant feature
    prior = GDA().fit(X, y).posterior_.prior
    d = X.shape[1]
    var = X.var(axis=0)
    var[-1] = 1e-9 * var.max()  # the documented floor for constant features
    np.testing.assert_allclose(prior.mu0, X.mean(axis=0), rtol=1e-13)
    assert prior.kappa0 == 0.01 and prior.nu0 == d + 2
    np.testing.assert_allclose(prior.psi0, np.diag(var), rtol=1e-12, atol=0)
    # prior mean of Σ = psi0 / (nu0 - d - 1) = diag(var)
    np.testing.assert_allclose(
        stats.invwishart(df=prior.nu0, scale=prior.psi0).mean(), np.diag(var), rtol=1e-12
    )


@pytest.mark.parametrize("cov", ["shared", "per_class"])
def test_mean_and_map_are_the_posterior_mean_and_joint_mode(cov):
    X, y = blobs(n=30, d=2, k=2, seed=5)
    prior = user_prior(2, seed=6)
    mean = GDA(covariance=cov, prior=prior, estimate="mean").fit(X, y)
    post = mean.posterior_
    nu = np.broadcast_to(post.nu, (2,))
    for c in range(2):
        psi = post.psi if cov == "shared" else post.psi[c]
        sigma = mean.covariance_ if cov == "shared" else mean.covariance_[c]
        np.testing.assert_allclose(sigma, stats.invwishart(df=nu[c], scale=psi).mean(), rtol=1e-12)
    np.testing.assert_allclose(mean.means_, post.mu, rtol=1e-14)

    mode = GDA(covariance=cov, prior=prior, estimate="map").fit(X, y)

    def log_post(mus, sigmas):
        out = 0.0
        for c in range(2):
            s = sigmas if cov == "shared" else sigmas[c]
            out += stats.multivariate_normal(post.mu[c], s / post.kappa[c]).logpdf(mus[c])
            if cov == "per_class":
                out += stats.invwishart(df=nu[c], scale=post.psi[c]).logpdf(s)
        if cov == "shared":
            out += stats.invwishart(df=nu[0], scale=post.psi).logpdf(sigmas)
        return out

    best = log_post(mode.means_, mode.covariance_)
    rng = np.random.default_rng(7)
    for _ in range(20):
        E = rng.normal(size=mode.covariance_.shape) * 0.01
        E = E + np.swapaxes(E, -1, -2)
        dmu = rng.normal(size=mode.means_.shape) * 0.01
        assert log_post(mode.means_ + dmu, mode.covariance_ + E) < best
        assert log_post(mode.means_, mode.covariance_ * 1.01) < best
        assert log_post(mode.means_, mode.covariance_ * 0.99) < best


def test_diagonal_mean_and_map_are_normal_inverse_gamma_mean_and_mode():
    X, y = blobs(n=30, d=3, k=2, seed=31)
    prior = user_prior(3, seed=32)
    mean = GDA(covariance="diagonal", prior=prior, estimate="mean").fit(X, y)
    mode = GDA(covariance="diagonal", prior=prior, estimate="map").fit(X, y)
    post = mean.posterior_
    a = (post.nu - 3 + 1) / 2  # per class; scale b = Ψ_jj / 2
    for c in range(2):
        ig = stats.invgamma(a[c], scale=post.psi[c] / 2)
        np.testing.assert_allclose(mean.covariance_[c], ig.mean(), rtol=1e-12)

        def log_post(mu, var, c=c, ig=ig):
            sd = np.sqrt(var / post.kappa[c])
            return np.sum(stats.norm.logpdf(mu, post.mu[c], sd) + ig.logpdf(var))

        best = log_post(mode.means_[c], mode.covariance_[c])
        for f in (0.99, 1.01):
            for j in range(3):
                var = mode.covariance_[c].copy()
                var[j] *= f
                assert log_post(mode.means_[c], var) < best
        assert log_post(mode.means_[c] + 0.01, mode.covariance_[c]) < best


@pytest.mark.parametrize("cov", COVS)
def test_bayes_predictive_equals_scipy_student_t(cov):
    X, y = blobs(n=24, d=3, k=2, seed=8)
    m = GDA(covariance=cov, prior=user_prior(3, seed=9), estimate="bayes").fit(X, y)
    post = m.posterior_
    Xt = blobs(n=10, d=3, k=2, seed=10)[0]
    dof = post.dof
    for c in range(2):
        kappa = post.kappa[c]
        if cov == "diagonal":
            scale = np.sqrt(post.psi[c] * (kappa + 1) / (kappa * dof[c]))
            ref = stats.t(df=dof[c], loc=post.mu[c], scale=scale).logpdf(Xt).sum(axis=1)
        else:
            psi = post.psi if cov == "shared" else post.psi[c]
            shape = psi * (kappa + 1) / (kappa * dof[c])
            ref = stats.multivariate_t(loc=post.mu[c], shape=shape, df=dof[c]).logpdf(Xt)
        np.testing.assert_allclose(class_log_density(m, Xt)[:, c], ref, rtol=1e-11)


@pytest.mark.parametrize("cov", COVS)
def test_student_t_predictive_equals_monte_carlo_over_exact_posterior_draws(cov):
    """p(x | data) = E[N(x | μ, Σ)] over posterior draws, within 3 Monte Carlo SE."""
    d, draws = 2, 40_000
    X, y = blobs(n=8, d=d, k=2, seed=11)  # few samples: the t is far from any plug-in normal
    prior = user_prior(d, seed=12)
    bayes = GDA(covariance=cov, prior=prior, estimate="bayes").fit(X, y)
    plug_in = GDA(covariance=cov, prior=prior, estimate="mean").fit(X, y)
    post = bayes.posterior_
    Xt = np.array([[0.0, 0.0], [1.5, -1.0], [-2.0, 2.5]]) + post.mu.mean(axis=0)
    rng = np.random.default_rng(13)
    closed = np.exp(class_log_density(bayes, Xt))
    plug = np.exp(class_log_density(plug_in, Xt))
    nu = np.broadcast_to(post.nu, (2,))
    far_from_plug_in = False
    for c in range(2):
        if cov == "diagonal":
            a, b = (nu[c] - d + 1) / 2, post.psi[c] / 2
            var = stats.invgamma(a, scale=b).rvs(size=(draws, d), random_state=rng)
            mu = post.mu[c] + rng.normal(size=(draws, d)) * np.sqrt(var / post.kappa[c])
            dens = np.exp(
                stats.norm.logpdf(Xt[None, :, :], mu[:, None, :], np.sqrt(var)[:, None, :]).sum(-1)
            )
        else:
            psi = post.psi if cov == "shared" else post.psi[c]
            S = stats.invwishart(df=nu[c], scale=psi).rvs(size=draws, random_state=rng)
            L = np.linalg.cholesky(S)
            # μ | Σ ~ N(μ_c, Σ / κ_c)
            z = rng.normal(size=(draws, d))
            mu = post.mu[c] + np.einsum("mij,mj->mi", L, z) / np.sqrt(post.kappa[c])
            diff = Xt[None, :, :] - mu[:, None, :]
            z = np.linalg.solve(L[:, None, :, :], diff[..., None])[..., 0]
            logdet = 2 * np.log(np.diagonal(L, axis1=1, axis2=2)).sum(axis=1)
            dens = np.exp(-0.5 * (z**2).sum(-1) - 0.5 * logdet[:, None] - d * np.log(2 * np.pi) / 2)
        mc, se = dens.mean(axis=0), dens.std(axis=0, ddof=1) / np.sqrt(draws)
        assert np.all(np.abs(closed[:, c] - mc) < 3 * se), (closed[:, c], mc, se)
        far_from_plug_in |= bool(np.any(np.abs(plug[:, c] - mc) > 10 * se))
    # The check has power: the plug-in normal (posterior mean) is rejected by the same draws.
    assert far_from_plug_in


# -- the logistic link ---------------------------------------------------------------------------
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("estimate", ["mle", "map", "mean"])
def test_logistic_identity(k, estimate):
    X, y = blobs(n=150, d=4, k=k, seed=14)
    m = GDA(covariance="shared", estimate=estimate).fit(X, y)
    assert m.coef_.shape == (k, 4) and m.intercept_.shape == (k,)
    logistic = softmax(X @ m.coef_.T + m.intercept_, axis=1)
    # Against the full quadratic density route (Mahalanobis distances, log determinant).
    quadratic = np.exp(
        m.predict_joint_log_proba(X) - logsumexp(m.predict_joint_log_proba(X), 1)[:, None]
    )
    np.testing.assert_allclose(logistic, quadratic, rtol=0, atol=1e-10)
    np.testing.assert_allclose(logistic, m.predict_proba(X), rtol=0, atol=1e-10)
    assert np.mean((logistic > 0.01) & (logistic < 0.99)) > 0.2  # not saturated: a real test
    if k == 2 and estimate == "mle":
        lda = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
        np.testing.assert_allclose(m.coef_[1] - m.coef_[0], lda.coef_[0], rtol=1e-9)
        np.testing.assert_allclose(m.intercept_[1] - m.intercept_[0], lda.intercept_[0], rtol=1e-9)


def test_coef_only_for_linear_models():
    X, y = blobs(seed=15)
    for kw in ({"covariance": "per_class"}, {"covariance": "diagonal"}, {"estimate": "bayes"}):
        m = GDA(**kw).fit(X, y)
        with pytest.raises(AttributeError, match="only for covariance='shared'"):
            _ = m.coef_
        assert not hasattr(m, "intercept_")


# -- exact streaming statistics -----------------------------------------------------------------
@pytest.mark.parametrize("cov", COVS)
def test_partial_fit_over_chunks_equals_fit(cov):
    X, y = blobs(n=300, d=5, k=3, seed=16)
    w = np.random.default_rng(17).uniform(0.1, 2.0, len(y))
    order = np.argsort(y == 2, kind="stable")  # the first chunks hold no class 2
    X, y, w = X[order], y[order], w[order]
    for estimate in ESTIMATES:
        full = GDA(covariance=cov, estimate=estimate).fit(X, y, sample_weight=w)
        part = GDA(covariance=cov, estimate=estimate)
        for idx in np.array_split(np.arange(len(y)), [7, 50, 51, 180, 260]):
            part.partial_fit(X[idx], y[idx], classes=[0, 1, 2], sample_weight=w[idx])
        np.testing.assert_allclose(part.class_count_, full.class_count_, rtol=1e-13)
        np.testing.assert_allclose(part.means_, full.means_, rtol=1e-10)
        np.testing.assert_allclose(part.covariance_, full.covariance_, rtol=1e-10)
        np.testing.assert_allclose(part.posterior_.psi, full.posterior_.psi, rtol=1e-10)
        np.testing.assert_allclose(
            part.predict_joint_log_proba(X), full.predict_joint_log_proba(X), rtol=1e-10
        )


@pytest.mark.parametrize("cov", COVS)
def test_large_offsets_lose_no_precision(cov):
    rng = np.random.default_rng(18)
    # Unit-spread values on a 2^-20 grid: 1e8 + Z is exact in float64, so any error is ours.
    Z = np.round(rng.normal(size=(400, 3)) * 2**20) / 2**20
    y = np.arange(400) % 2
    Z[y == 1] += 0.75
    X = 1e8 + Z
    ref = GDA(covariance=cov, estimate="mle").fit(Z, y)
    big = GDA(covariance=cov, estimate="mle").fit(X, y)
    chunks = GDA(covariance=cov, estimate="mle")
    for idx in np.array_split(np.arange(400), 7):
        chunks.partial_fit(X[idx], y[idx])
    for m in (big, chunks):
        np.testing.assert_allclose(m.covariance_, ref.covariance_, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(m.means_ - 1e8, ref.means_, rtol=0, atol=1e-7)
        np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(Z), atol=1e-6)
    # The textbook one-pass formula E[xxᵀ] − E[x]E[x]ᵀ loses every digit here.
    naive = (X.T @ X) / len(X) - np.outer(X.mean(0), X.mean(0))
    assert np.max(np.abs(naive - np.cov(Z.T, bias=True))) > 1.0


def test_two_batches_of_different_scale_give_the_single_fit_variances():
    """scikit-learn's GaussianNB.partial_fit mixes the smoothing terms of different batches."""
    rng = np.random.default_rng(19)
    X1, X2 = rng.normal(size=(100, 4)), 10.0 * rng.normal(size=(100, 4))
    y1, y2 = np.arange(100) % 2, np.arange(100) % 2
    m = GDA(covariance="diagonal", estimate="mle")
    m.partial_fit(X1, y1).partial_fit(X2, y2)
    X, y = np.vstack([X1, X2]), np.concatenate([y1, y2])
    exact = np.array([X[y == c].var(axis=0) for c in (0, 1)])
    np.testing.assert_allclose(m.covariance_, exact, rtol=1e-12)
    np.testing.assert_allclose(
        m.covariance_, GaussianNB(var_smoothing=0).fit(X, y).var_, rtol=1e-12
    )


@pytest.mark.parametrize("cov", COVS)
def test_integer_sample_weight_equals_repeated_rows(cov):
    X, y = blobs(n=60, d=3, k=3, seed=20)
    w = np.random.default_rng(21).integers(0, 4, len(y))
    w[:3] = 1  # every class keeps samples
    rep = np.repeat(np.arange(len(y)), w)
    for estimate in ESTIMATES:
        a = GDA(covariance=cov, estimate=estimate).fit(X, y, sample_weight=w)
        b = GDA(covariance=cov, estimate=estimate).fit(X[rep], y[rep])
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-10)
        np.testing.assert_allclose(
            a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=1e-10
        )
        np.testing.assert_allclose(a.covariance_, b.covariance_, rtol=1e-10)


@pytest.mark.parametrize("loader", [load_breast_cancer, load_digits])
def test_qda_with_the_default_prior_fits_where_sklearn_qda_fails(loader):
    X, y = loader(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    if loader is load_digits:  # constant pixels within classes: no per-class MLE exists
        with pytest.raises(ValueError, match=r"zero variance.*estimate='mean'"):
            GDA(covariance="per_class", estimate="mle").fit(Xtr, ytr)
    else:  # full rank (sklearn's QDA rejects it by an absolute singular-value tolerance)
        assert GDA(covariance="per_class", estimate="mle").fit(Xtr, ytr).score(Xte, yte) > 0.9
    for estimate in ("map", "mean", "bayes"):
        m = GDA(covariance="per_class", estimate=estimate).fit(Xtr, ytr)
        p = m.predict_proba(Xte)
        assert np.all(np.isfinite(p))
        np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
        assert m.score(Xte, yte) > 0.9


# -- singular covariances and bad input -----------------------------------------------------------
def singular_data():
    rng = np.random.default_rng(22)
    X, y = blobs(n=40, d=3, k=2, seed=23)
    duplicate = np.column_stack([X, X[:, 0]])
    constant = np.column_stack([X, np.full(len(y), 3.0)])
    wide = rng.normal(size=(6, 10))  # n < d
    return {
        "duplicate": (duplicate, y, "linear combination"),
        "constant": (constant, y, "zero variance"),
        "n<d": (wide, np.arange(6) % 2, "singular"),
    }


@pytest.mark.parametrize("case", ["duplicate", "constant", "n<d"])
@pytest.mark.parametrize("cov", COVS)
def test_singular_mle_fails_clearly_and_the_prior_fixes_it(case, cov):
    X, y, problem = singular_data()[case]
    if cov == "diagonal" and case != "constant":
        # Independent features: only a zero variance makes the diagonal model singular.
        GDA(covariance=cov, estimate="mle").fit(X, y)
    else:
        with pytest.raises(ValueError, match=problem) as err:
            GDA(covariance=cov, estimate="mle").fit(X, y)
        assert "estimate='mean'" in str(err.value)
    for estimate in ("map", "mean", "bayes"):
        p = GDA(covariance=cov, estimate=estimate).fit(X, y).predict_proba(X)
        assert np.all(np.isfinite(p))
        assert np.mean(np.argmax(p, axis=1) == y) > 0.7


def test_class_with_one_sample():
    X, y = blobs(n=31, d=2, k=2, seed=24)
    y = y.copy()
    y[-1] = 7
    with pytest.raises(ValueError, match=r"class 7 \(N_c = 1\).*zero variance.*1 sample"):
        GDA(covariance="per_class", estimate="mle").fit(X, y)
    GDA(covariance="shared", estimate="mle").fit(X, y)  # the pooled Σ is fine
    for estimate in ("map", "mean", "bayes"):
        m = GDA(covariance="per_class", estimate=estimate).fit(X, y)
        assert np.all(np.isfinite(m.predict_log_proba(X)))


def test_class_declared_but_not_seen_scores_minus_inf_under_mle():
    X, y = blobs(n=40, d=2, k=2, seed=25)
    m = GDA(estimate="mle").partial_fit(X, y, classes=[0, 1, 2])
    assert np.all(np.isnan(m.means_[2]))
    assert np.all(np.isneginf(m.predict_joint_log_proba(X)[:, 2]))
    np.testing.assert_array_equal(m.predict_proba(X)[:, 2], 0.0)
    m.set_params(estimate="mean")  # with a prior the empty class is the prior predictive
    assert np.all(np.isfinite(m.predict_joint_log_proba(X)))
    np.testing.assert_allclose(m.means_[2], m.posterior_.prior.mu0)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input(bad):
    X, y = blobs(seed=26)
    Xb = X.copy()
    Xb[3, 1] = bad
    with pytest.raises(ValueError, match=r"NaN|infinity"):
        GDA().fit(Xb, y)
    with pytest.raises(ValueError, match=r"NaN|infinity"):
        GDA().fit(X, y).predict(Xb)
    with pytest.raises(ValueError, match="sample_weight"):
        GDA().fit(X, y, sample_weight=np.where(np.arange(len(y)) == 0, bad, 1.0))


def test_mismatched_and_non_numeric_input():
    X, y = blobs(d=3, seed=27)
    m = GDA().fit(X, y)
    with pytest.raises(ValueError, match="3 features"):
        m.predict(X[:, :2])
    with pytest.raises(ValueError, match="3 features"):
        m.partial_fit(np.hstack([X, X]), y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        GDA().fit(X, y[:-1])
    Xs = X.astype(object)
    Xs[0, 0] = "abc"
    with pytest.raises(ValueError, match=r"X must be a numeric array.*'abc'"):
        GDA().fit(Xs, y)
    df = pd.DataFrame({"a": X[:, 0], "b": ["x"] * len(y)})
    with pytest.raises(ValueError, match=r"X must be a numeric array.*'x'"):
        GDA().fit(df, y)
    with pytest.raises(TypeError, match=r"[Ss]parse"):
        GDA().fit(sp.csr_matrix(X), y)


def test_bad_hyperparameters():
    X, y = blobs(d=3, seed=28)
    for kappa0 in (0.0, -1.0):
        with pytest.raises(ValueError, match="kappa0 must be > 0"):
            NormalInverseWishart(kappa0=kappa0)
    with pytest.raises(TypeError, match="kappa0 must be a real number"):
        NormalInverseWishart(kappa0="1")
    with pytest.raises(ValueError, match="kappa0 must be finite"):
        NormalInverseWishart(kappa0=np.inf)
    for nu0 in (2.0, 1.0, -3.0):  # d - 1 = 2
        with pytest.raises(ValueError, match=r"nu0 must be > n_features - 1 = 2"):
            GDA(prior=NormalInverseWishart(nu0=nu0, psi0=1.0)).fit(X, y)
    GDA(prior=NormalInverseWishart(nu0=2.5, psi0=1.0), estimate="bayes").fit(X, y)
    with pytest.raises(ValueError, match=r"default psi0 .* needs nu0 > n_features \+ 1"):
        GDA(prior=NormalInverseWishart(nu0=3.5)).fit(X, y)
    not_pd = np.array([[1.0, 2.0, 0], [2.0, 1.0, 0], [0, 0, 1.0]])
    with pytest.raises(ValueError, match="psi0 must be symmetric positive definite"):
        GDA(prior=NormalInverseWishart(psi0=not_pd)).fit(X, y)
    with pytest.raises(ValueError, match="not symmetric"):
        GDA(prior=NormalInverseWishart(psi0=np.triu(np.ones((3, 3))) + np.eye(3))).fit(X, y)
    with pytest.raises(ValueError, match=r"psi0 must be a \(3, 3\) matrix"):
        GDA(prior=NormalInverseWishart(psi0=np.eye(2))).fit(X, y)
    with pytest.raises(ValueError, match="one value per feature"):
        GDA(prior=NormalInverseWishart(psi0=np.ones(4))).fit(X, y)
    with pytest.raises(ValueError, match="psi0 must be positive"):
        NormalInverseWishart(psi0=-1.0)
    with pytest.raises(ValueError, match="mu0 must be a scalar or have one value per feature"):
        GDA(prior=NormalInverseWishart(mu0=[1.0, 2.0])).fit(X, y)
    with pytest.raises(TypeError, match=r"prior must be None or a bayesnb\.priors"):
        GDA(prior={"kappa0": 1.0}).fit(X, y)
    with pytest.raises(ValueError, match="covariance must be one of"):
        GDA(covariance="full").fit(X, y)
    with pytest.raises(ValueError, match="estimate must be one of"):
        GDA(estimate="median").fit(X, y)
    with pytest.raises(ValueError, match=r"posterior mean of Σ.*needs ν > d \+ 1"):
        GDA(covariance="per_class", prior=NormalInverseWishart(nu0=2.1, psi0=1.0)).fit(
            X[:2], [0, 1]
        )


# -- scikit-learn compatibility -----------------------------------------------------------------
@parametrize_with_checks([GDA(covariance=c) for c in COVS])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_public_api():
    assert bayesnb.GDA is GDA and bayesnb.priors.NormalInverseWishart is NormalInverseWishart
    assert isinstance(
        GDA().fit(*blobs()).posterior_, bayesnb.posterior.NormalInverseWishartPosterior
    )


# -- learning curves ----------------------------------------------------------------------------
def test_learning_curve_gda_vs_logistic_regression():
    X, y = blobs(n=600, d=6, k=2, seed=29, scale=6.0)  # overlapping classes
    ests = {"gda": GDA(), "logreg": LogisticRegression(max_iter=1000)}
    ds = bayesnb.learning_curve(
        ests, X, y, train_sizes=[4, 20, 100, 450], n_repeats=4, random_state=0
    )
    assert ds["error"].dims == ("estimator", "train_size", "repeat")
    assert list(ds["estimator"].values) == ["gda", "logreg"]
    np.testing.assert_array_equal(ds["train_size"], [4, 20, 100, 450])
    err = ds["error"].values
    assert np.all((err >= 0) & (err <= 1)) and not np.isnan(err).any()
    np.testing.assert_allclose(ds["error_mean"], err.mean(axis=2), rtol=1e-14)
    np.testing.assert_allclose(ds["error_std"], err.std(axis=2, ddof=1), rtol=1e-14)
    assert ds.attrs["n_test"] == 150
    # More data helps, and the generative model is at least as good with very few samples.
    mean = ds["error_mean"]
    assert mean.sel(estimator="gda", train_size=450) < mean.sel(estimator="gda", train_size=4)
    assert mean.sel(estimator="gda", train_size=20) <= mean.sel(estimator="logreg", train_size=20)
    again = bayesnb.learning_curve(
        ests, X, y, train_sizes=[4, 20, 100, 450], n_repeats=4, random_state=0
    )
    np.testing.assert_array_equal(again["error"], ds["error"])


def test_learning_curve_failures_and_bad_arguments():
    X, y = blobs(n=80, d=6, k=2, seed=30)
    with pytest.warns(FitFailedWarning, match="fit\\(s\\) failed"):
        ds = bayesnb.learning_curve(
            [GDA(estimate="mle")], X, y, train_sizes=[4, 40], n_repeats=2, random_state=1
        )
    assert np.isnan(ds["error"].sel(train_size=4)).all()  # 4 samples, 6 features: singular
    assert np.isfinite(ds["error"].sel(train_size=40)).all()
    with pytest.raises(ValueError, match="train_sizes must lie in"):
        bayesnb.learning_curve([GDA()], X, y, train_sizes=[1, 10])
    with pytest.raises(ValueError, match="train_sizes must lie in"):
        bayesnb.learning_curve([GDA()], X, y, train_sizes=[10, 1000])
    with pytest.raises(ValueError, match="n_repeats"):
        bayesnb.learning_curve([GDA()], X, y, train_sizes=[10], n_repeats=0)
    with pytest.raises(TypeError, match="estimators must be"):
        bayesnb.learning_curve(GDA(), X, y, train_sizes=[10])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frac = bayesnb.learning_curve(
            [GDA(), GDA(covariance="diagonal")],
            X,
            y,
            train_sizes=[0.5, 1.0],
            n_repeats=1,
            random_state=2,
        )
    assert list(frac["estimator"].values) == ["GDA", "GDA_2"]
    np.testing.assert_array_equal(frac["train_size"], [30, 60])
