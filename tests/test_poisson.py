"""PoissonNB: hand-computed numbers (R naivebayes), scipy agreement, identities, the whole pipe."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import digamma, gammaln, logsumexp
from sklearn.utils.estimator_checks import parametrize_with_checks

import bayesnb as bnb
from bayesnb.draws import posterior_draws, posterior_summary
from bayesnb.evidence import gamma_poisson_log_evidence
from bayesnb.loo import label_log_likelihood_draws
from bayesnb.posterior.gamma import GammaPosterior


def poisson_data(seed=0, n=80, v=6, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rates = rng.gamma(0.7, 2.0, size=(k, v))
    X = rng.poisson(rates[y]).astype(np.float64)
    return X, y


# -- R naivebayes::poisson_naive_bayes, by hand ----------------------------------------------
# R (majkamichal/naivebayes, R/poisson_naive_bayes.R) fits
#     lambda = (rowsum(x, y) + laplace) / y_counts,      prior = prop.table(y_counts)
# and predicts  log prior_c + Σ_j (−λ_cj + x_j log λ_cj − lgamma(x_j + 1)), normalised.
# So laplace = L is the posterior mean (α + S)/(β + N) with α = L and β → 0: β = 1e-20 is below
# the float64 resolution of N_c = 2 or 3, so (N_c + β) == N_c and the tables agree exactly;
# laplace = 0 is the MLE (while no count is zero: R then replaces λ = 0 by 1/N_c, which has no
# Gamma-posterior counterpart). prop.table is class_alpha = 0.
R_X = np.array([[2, 0, 1], [3, 1, 0], [0, 4, 2], [1, 3, 3], [0, 2, 1]], dtype=float)
R_Y = np.array(["a", "a", "b", "b", "b"])
R_NEW = np.array([[1.0, 2.0, 0.0]])


def _r_predict(lam_a, lam_b, prior_a, prior_b, x):
    def log_p(lam):
        return sum(
            -lj + xj * math.log(lj) - math.lgamma(xj + 1) for lj, xj in zip(lam, x, strict=True)
        )

    ja, jb = math.log(prior_a) + log_p(lam_a), math.log(prior_b) + log_p(lam_b)
    top = max(ja, jb)
    za, zb = math.exp(ja - top), math.exp(jb - top)
    return np.array([ja, jb]), np.array([za, zb]) / (za + zb)


def test_r_naivebayes_laplace_one():
    # S_a = (5, 1, 1), N_a = 2;  S_b = (1, 9, 6), N_b = 3;  laplace = 1.
    lam_a, lam_b = [3.0, 1.0, 1.0], [2 / 3, 10 / 3, 7 / 3]
    joint, proba = _r_predict(lam_a, lam_b, 2 / 5, 3 / 5, R_NEW[0])
    # by hand: log p(x|a) = −5 + log 3 − log 2, log p(x|b) = −19/3 + log(2/3) + 2 log(10/3) − log 2
    assert joint[0] == pytest.approx(math.log(0.4) - 5 + math.log(3) - math.log(2), rel=1e-14)
    assert joint[1] == pytest.approx(
        math.log(0.6) - 19 / 3 + math.log(2 / 3) + 2 * math.log(10 / 3) - math.log(2), rel=1e-14
    )
    m = bnb.PoissonNB(alpha=1.0, beta=1e-20, class_alpha=0.0).fit(R_X, R_Y)
    np.testing.assert_array_equal(m.posterior_.estimate("mean"), np.array([lam_a, lam_b]))
    np.testing.assert_allclose(np.exp(m.feature_log_rate_), [lam_a, lam_b], rtol=1e-15)
    np.testing.assert_allclose(np.exp(m.class_log_prior_), [0.4, 0.6], rtol=1e-15)
    np.testing.assert_allclose(m.predict_joint_log_proba(R_NEW)[0], joint, rtol=1e-13)
    np.testing.assert_allclose(m.predict_proba(R_NEW)[0], proba, rtol=1e-12)
    assert proba[0] == pytest.approx(0.50600, abs=1e-5)  # 1 / (1 + e^{jb − ja}), ja − jb ≈ 0.024
    assert m.predict(R_NEW)[0] == "a"


def test_r_naivebayes_laplace_zero_is_the_mle():
    lam_a, lam_b = [2.5, 0.5, 0.5], [1 / 3, 3.0, 2.0]
    joint, proba = _r_predict(lam_a, lam_b, 2 / 5, 3 / 5, R_NEW[0])
    m = bnb.PoissonNB(estimate="mle", class_alpha=0.0).fit(R_X, R_Y)
    np.testing.assert_allclose(np.exp(m.feature_log_rate_), [lam_a, lam_b], rtol=1e-15)
    np.testing.assert_allclose(m.predict_joint_log_proba(R_NEW)[0], joint, rtol=1e-13)
    np.testing.assert_allclose(m.predict_proba(R_NEW)[0], proba, rtol=1e-12)


# -- the four estimates ------------------------------------------------------------------------
@pytest.mark.parametrize("sparse", [False, True])
def test_estimates_are_the_gamma_formulas_and_score_as_scipy_poisson(sparse):
    X, y = poisson_data()
    alpha, beta = 1.7, 0.6
    S = np.stack([X[y == c].sum(axis=0) for c in range(3)])
    N = np.bincount(y).astype(float)[:, None]
    tables = {
        "mle": S / N,
        "map": (alpha + S - 1) / (beta + N),
        "mean": (alpha + S) / (beta + N),
    }
    Xin = sp.csr_matrix(X) if sparse else X
    for estimate, lam in tables.items():
        m = bnb.PoissonNB(alpha=alpha, beta=beta, estimate=estimate).fit(Xin, y)
        np.testing.assert_allclose(np.exp(m.feature_log_rate_), lam, rtol=1e-13)
        ref = stats.poisson.logpmf(X[:, None, :], lam[None]).sum(axis=2) + m.class_log_prior_
        np.testing.assert_allclose(m.predict_joint_log_proba(Xin), ref, rtol=1e-12)
        pt = m.point_estimate(estimate)["posterior"]["feature_rate"].values[0, 0]
        np.testing.assert_allclose(pt, lam, rtol=1e-14)
    post = bnb.PoissonNB(alpha=alpha, beta=beta).fit(Xin, y).posterior_
    np.testing.assert_allclose(post.mean(), (alpha + S) / (beta + N), rtol=1e-14)
    np.testing.assert_allclose(post.var(), (alpha + S) / (beta + N) ** 2, rtol=1e-14)
    # "bayes" keeps the posterior mean as its table (the predictive's mean).
    m = bnb.PoissonNB(alpha=alpha, beta=beta, estimate="bayes").fit(Xin, y)
    np.testing.assert_allclose(np.exp(m.feature_log_rate_), tables["mean"], rtol=1e-13)


def test_map_at_alpha_one_is_the_mle_with_the_prior_rate():
    X, y = poisson_data(1)
    m = bnb.PoissonNB(alpha=1.0, beta=2.0, estimate="map").fit(X, y)
    S, N = m.feature_count_, m.class_count_[:, None]
    np.testing.assert_allclose(np.exp(m.feature_log_rate_), S / (N + 2.0), rtol=1e-14)


def test_mle_zero_rate_makes_a_document_impossible_in_that_class():
    X = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 3.0], [1.0, 1.0]])
    y = np.array([0, 0, 1, 1])
    m = bnb.PoissonNB(estimate="mle").fit(X, y)
    assert np.isneginf(m.feature_log_rate_[0, 1])
    jll = m.predict_joint_log_proba(np.array([[1.0, 2.0], [3.0, 0.0]]))
    assert np.isneginf(jll[0, 0]) and np.isfinite(jll[0, 1])
    # x = 0 on a zero rate contributes 0 · log 0 = 0: class 0 scores the second document.
    lam0 = np.array([1.5, 0.0])
    assert jll[1, 0] == pytest.approx(
        np.log(0.5) + stats.poisson.logpmf([3, 0], lam0).sum(), rel=1e-13
    )
    # impossible under every class: the prior fallback decides, with one warning
    with pytest.warns(RuntimeWarning, match="probability 0 under every class"):
        m2 = bnb.PoissonNB(estimate="mle").fit(X[:2], [0, 1])
        proba = m2.predict_proba(np.array([[0.0, 5.0]]))
    np.testing.assert_allclose(proba, [[0.5, 0.5]])


def test_mle_class_without_documents_has_zero_rates():
    X, y = poisson_data(2)
    m = bnb.PoissonNB(estimate="mle").partial_fit(X, y, classes=[0, 1, 2, 3])
    np.testing.assert_array_equal(m.posterior_.estimate("mle")[3], 0.0)
    assert np.all(np.isneginf(m.feature_log_rate_[3]))
    jll = m.predict_joint_log_proba(np.vstack([X[:3], np.zeros((1, X.shape[1]))]))
    assert np.all(np.isneginf(jll[:3, 3]))  # any count is impossible at λ = 0 ...
    assert jll[3, 3] == pytest.approx(m.class_log_prior_[3])  # ... the empty document certain


# -- the negative-binomial predictive ----------------------------------------------------------
@pytest.mark.parametrize("sparse", [False, True])
def test_bayes_is_the_negative_binomial_predictive(sparse):
    X, y = poisson_data(3)
    w = np.random.default_rng(3).uniform(0.2, 3.0, len(y))
    alpha = np.linspace(0.5, 3.0, X.shape[1])
    beta = np.linspace(0.2, 2.0, X.shape[1])
    Xin = sp.csr_matrix(X) if sparse else X
    m = bnb.PoissonNB(alpha=alpha, beta=beta, estimate="bayes").fit(Xin, y, sample_weight=w)
    S = np.stack([(w[y == c, None] * X[y == c]).sum(axis=0) for c in range(3)])
    N = np.bincount(y, weights=w)[:, None]
    r, p = alpha + S, (beta + N) / (beta + N + 1.0)
    X_new = np.random.default_rng(4).poisson(3.0, size=(25, X.shape[1])).astype(float)
    X_new[:3] = 0.0
    X_new[3, 0] = 60.0  # a count beyond the dense key range of the rising factorial
    ref = stats.nbinom.logpmf(X_new[:, None, :], r[None], p[None]).sum(axis=2)
    Xn = sp.csr_matrix(X_new) if sparse else X_new
    np.testing.assert_allclose(
        m.predict_joint_log_proba(Xn), ref + m.class_log_prior_, rtol=1e-12, atol=1e-10
    )
    expect = ref + m.class_log_prior_
    np.testing.assert_allclose(
        m.predict_proba(Xn), np.exp(expect - logsumexp(expect, axis=1, keepdims=True)), atol=1e-12
    )


def test_non_integer_counts_use_the_continuous_factorial():
    # Policy: non-negative non-integer values are accepted (as MultinomialNB does) and scored
    # through Γ(x + 1); the PyMC path refuses them (tests/test_pymc_poisson.py).
    X, y = poisson_data(5)
    X = X * 0.5
    x = np.array([[0.5, 1.25, 0.0, 2.0, 0.75, 0.0]])
    for estimate in ("mean", "bayes"):
        m = bnb.PoissonNB(estimate=estimate).fit(X, y)
        post = m.posterior_
        if estimate == "mean":
            lam = post.mean()
            ref = (x * np.log(lam) - lam - gammaln(x + 1)).sum(axis=1)
        else:
            r, rho = post.shape, post.rate
            ref = (
                gammaln(r + x) - gammaln(r) - gammaln(x + 1)
                + r * np.log(rho / (rho + 1)) - x * np.log(rho + 1)
            ).sum(axis=1)  # fmt: skip
        np.testing.assert_allclose(
            m.predict_joint_log_proba(x)[0], ref + m.class_log_prior_, rtol=1e-12
        )


# -- statistics: partial_fit, sparse, weights, dtype --------------------------------------------
def test_partial_fit_equals_fit_and_sparse_equals_dense():
    X, y = poisson_data(6, n=90)
    w = np.random.default_rng(6).uniform(0, 2, len(y))
    full = bnb.PoissonNB(estimate="bayes").fit(X, y, sample_weight=w)
    parts = bnb.PoissonNB(estimate="bayes")
    for idx in np.array_split(np.arange(len(y)), 4):
        parts.partial_fit(sp.csr_matrix(X[idx]), y[idx], classes=[0, 1, 2], sample_weight=w[idx])
    np.testing.assert_allclose(parts.feature_count_, full.feature_count_, rtol=1e-13)
    np.testing.assert_allclose(parts.class_count_, full.class_count_, rtol=1e-13)
    np.testing.assert_allclose(parts.log_factorial_, full.log_factorial_, rtol=1e-13)
    np.testing.assert_allclose(
        parts.predict_joint_log_proba(X), full.predict_joint_log_proba(X), rtol=1e-12
    )
    assert parts.log_evidence() == pytest.approx(full.log_evidence(), rel=1e-12)
    dense = bnb.PoissonNB().fit(X, y)
    sparse = bnb.PoissonNB().fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(sparse.feature_count_, dense.feature_count_)
    np.testing.assert_allclose(
        sparse.predict_log_proba(sp.csr_matrix(X)), dense.predict_log_proba(X), atol=1e-12
    )


def test_integer_weights_equal_repeated_rows():
    X, y = poisson_data(7, n=30)
    w = np.random.default_rng(7).integers(0, 4, len(y))
    rep = np.repeat(np.arange(len(y)), w)
    a = bnb.PoissonNB().fit(X, y, sample_weight=w)
    b = bnb.PoissonNB().fit(X[rep], y[rep])
    np.testing.assert_allclose(a.feature_count_, b.feature_count_)
    assert a.log_evidence() == pytest.approx(b.log_evidence(), rel=1e-12)


def test_float32_tables_score_close_to_float64():
    X, y = poisson_data(8)
    a = bnb.PoissonNB().fit(X, y)
    b = bnb.PoissonNB(dtype="float32").fit(X, y)
    assert b.feature_log_rate_.dtype == np.float32
    np.testing.assert_allclose(b.predict_log_proba(X), a.predict_log_proba(X), atol=1e-4)


def test_dask_fit_equals_fit():
    da = pytest.importorskip("dask.array")
    X, y = poisson_data(9, n=100)
    m = bnb.PoissonNB().fit(da.from_array(X, chunks=(30, X.shape[1])), da.from_array(y, chunks=30))
    ref = bnb.PoissonNB().fit(X, y)
    np.testing.assert_allclose(m.feature_count_, ref.feature_count_)
    np.testing.assert_allclose(m.log_factorial_, ref.log_factorial_)


# -- evidence ---------------------------------------------------------------------------------
def test_log_evidence_is_the_sequential_prior_predictive():
    X, y = poisson_data(10, n=40, v=4)
    alpha, beta = np.array([0.5, 1.0, 2.0, 3.0]), 0.7
    m = bnb.PoissonNB(alpha=alpha, beta=beta, class_alpha=2.0).fit(X, y)
    # p(X, y) = Π_i p(y_i | y_<i) p(x_i | y_i, earlier documents), each a predictive.
    S, N = np.zeros((3, 4)), np.zeros(3)
    labels = counts = 0.0
    for x, c in zip(X, y, strict=True):
        labels += np.log((2.0 + N[c]) / (3 * 2.0 + N.sum()))
        r, p = alpha + S[c], (beta + N[c]) / (beta + N[c] + 1)
        counts += stats.nbinom.logpmf(x, r, p).sum()
        S[c] += x
        N[c] += 1
    assert m.log_evidence() == pytest.approx(labels + counts, rel=1e-12)
    features = gamma_poisson_log_evidence(
        alpha, beta, m.feature_count_, m.class_count_, gammaln(X + 1).sum()
    )
    assert features == pytest.approx(counts, rel=1e-12)


def test_evidence_refuses_the_improper_class_prior_and_unknown_strings():
    X, y = poisson_data(11)
    with pytest.raises(ValueError, match="class_alpha > 0"):
        bnb.PoissonNB(class_alpha=0.0).fit(X, y).log_evidence()
    with pytest.raises(ValueError, match=r"alpha must be a positive number.*or 'evidence'"):
        bnb.PoissonNB(alpha="evidense").fit(X, y)


# -- posterior draws and summaries -------------------------------------------------------------
def test_exact_draws_match_the_gamma_posterior():
    X, y = poisson_data(12)
    m = bnb.PoissonNB(alpha=2.0, beta=0.5).fit(X, y)
    dt = m.sample_posterior(draws=4000, chains=2, random_seed=0)
    lam = dt["posterior"]["feature_rate"].values
    assert lam.shape == (2, 4000, 3, X.shape[1])
    post = m.posterior_
    n = lam.shape[0] * lam.shape[1]
    mean = lam.mean(axis=(0, 1))
    assert np.all(np.abs(mean - post.mean()) < 4.5 * np.sqrt(post.var() / n))
    # the variance of a Gamma sample variance: Var(s²) ≈ (μ4 − σ⁴)/n, μ4 = 3σ⁴(1 + 2/a)
    a = post.shape
    se_var = np.sqrt((3 * (1 + 2 / a) - 1) * post.var() ** 2 / n)
    assert np.all(np.abs(lam.var(axis=(0, 1)) - post.var()) < 4.5 * se_var)
    # same seed, same arrays; a feature subset keeps its values (Gamma draws are independent)
    again = posterior_draws(m, draws=4000, chains=2, random_seed=0)["feature_rate"]
    np.testing.assert_array_equal(again, lam)
    sub = m.sample_posterior(draws=10, chains=1, random_seed=1, features=[4, 1])
    assert list(sub["posterior"]["feature"].values) == ["x4", "x1"]


def test_posterior_summary_is_the_gamma_marginal():
    X, y = poisson_data(13)
    m = bnb.PoissonNB(alpha=1.5, beta=2.0).fit(X, y)
    s = posterior_summary(m, ci_prob=0.9)["feature_rate"]
    post = m.posterior_
    dist = stats.gamma(post.shape, scale=1 / post.rate)
    np.testing.assert_allclose(s.sel(summary="mean").values, dist.mean(), rtol=1e-14)
    np.testing.assert_allclose(s.sel(summary="sd").values, dist.std(), rtol=1e-14)
    np.testing.assert_allclose(s.sel(summary="eti90_lb").values, dist.ppf(0.05), rtol=1e-12)
    np.testing.assert_allclose(s.sel(summary="eti90_ub").values, dist.ppf(0.95), rtol=1e-12)


def test_draw_and_point_guards():
    X, y = poisson_data(14)
    m = bnb.PoissonNB().fit(X, y)
    with pytest.raises(ValueError, match="above max_bytes"):
        m.sample_posterior(draws=1000, chains=4, max_bytes=1e3)
    with pytest.raises(ValueError, match="var_names must be a subset"):
        m.sample_posterior(draws=5, var_names=["feature_prob"])
    with pytest.raises(ValueError, match="not a point for PoissonNB"):
        m.point_estimate("bayes")
    only = m.sample_posterior(draws=5, chains=1, var_names="feature_rate", random_seed=0)
    assert list(only["posterior"].data_vars) == ["feature_rate"]


# -- PSIS-LOO log-likelihood ---------------------------------------------------------------------
def test_label_log_likelihood_scores_every_draw():
    X, y = poisson_data(15, n=30)
    m = bnb.PoissonNB().fit(sp.csr_matrix(X), y)
    ll, pi = label_log_likelihood_draws(m, X, y, draws=40, random_seed=3)
    lam = posterior_draws(m, draws=40, chains=1, random_seed=np.random.default_rng(3))
    lam = lam["feature_rate"][0]
    joint = stats.poisson.logpmf(X[:, None, None, :], lam[None]).sum(axis=3) + np.log(pi)[None]
    ref = joint[np.arange(len(y)), :, y] - logsumexp(joint, axis=2)
    np.testing.assert_allclose(ll, ref.T, rtol=1e-10, atol=1e-12)
    tree = m.label_log_likelihood(X, y, draws=40, random_seed=3)
    np.testing.assert_array_equal(tree["log_likelihood"]["y"].values[0], ll)


# -- generate ----------------------------------------------------------------------------------
def test_generated_counts_follow_the_rates_and_refit():
    X, y = poisson_data(16)
    m = bnb.PoissonNB(alpha=2.0).fit(X, y)
    Xg, yg = m.sample(20000, random_seed=0)
    assert sp.issparse(Xg) and Xg.dtype == np.int64
    lam = m.posterior_.mean()
    for c in range(3):
        rows = Xg[yg == c].toarray()
        se = np.sqrt(lam[c] / len(rows))
        assert np.all(np.abs(rows.mean(axis=0) - lam[c]) < 4.5 * se)
    np.testing.assert_allclose(
        np.bincount(yg, minlength=3) / 20000, np.exp(m.class_log_prior_), atol=0.015
    )
    refit = bnb.PoissonNB(alpha=1e-3, beta=1e-3).fit(Xg, yg)
    np.testing.assert_allclose(np.exp(refit.feature_log_rate_), lam, rtol=0.1, atol=0.03)


def test_bayes_generation_has_the_negative_binomial_spread():
    X, y = poisson_data(17, n=12)  # few documents: the predictive is visibly overdispersed
    m = bnb.PoissonNB(estimate="bayes").fit(X, y)
    Xg, yg = m.sample(30000, random_seed=1)
    post = m.posterior_
    r, rho = post.shape, post.rate
    nb_var = r / rho * (1 + 1 / rho)  # NB(r, p = ρ/(ρ+1)): mean r/ρ, variance r(ρ+1)/ρ²
    for c in range(3):
        rows = Xg[yg == c].toarray().astype(float)
        n = len(rows)
        assert np.all(np.abs(rows.mean(axis=0) - r[c] / rho[c]) < 5 * np.sqrt(nb_var[c] / n))
        # the variance exceeds the Poisson one (= mean) by the posterior variance of λ
        assert np.all(np.abs(rows.var(axis=0) / nb_var[c] - 1) < 0.15)


# -- save / load -------------------------------------------------------------------------------
def test_save_load_round_trip_is_bit_identical(tmp_path):
    X, y = poisson_data(18)
    labels = np.array(["x", "y", "z"])[y]
    for estimate in ("mle", "map", "mean", "bayes"):
        m = bnb.PoissonNB(alpha=[1.0, 2, 3, 1, 1, 5], beta=0.3, estimate=estimate)
        m.fit(sp.csr_matrix(X), labels, sample_weight=np.linspace(0.5, 2, len(y)))
        path = tmp_path / f"{estimate}.nc"
        m.save(path)
        back = bnb.load(path, expected="PoissonNB")
        assert type(back) is bnb.PoissonNB
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
            np.testing.assert_array_equal(
                back.predict_joint_log_proba(X), m.predict_joint_log_proba(X)
            )
        assert back.log_evidence() == m.log_evidence()
        np.testing.assert_array_equal(back.classes_, m.classes_)
    # non-integer counts: Σ ln Γ(x + 1) < 0 is a legitimate statistic, not a negative count
    m = bnb.PoissonNB().fit(X * 0.25, labels)
    assert m.log_factorial_.min() < 0
    m.save(tmp_path / "half.nc")
    back = bnb.load(tmp_path / "half.nc")
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
    assert back.log_evidence() == m.log_evidence()


# -- compare -----------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:.*Pareto distribution:UserWarning")
def test_compare_runs_poisson_next_to_multinomial():
    X, y = poisson_data(19, n=120)
    out = bnb.compare(
        {"poisson": bnb.PoissonNB(), "multinomial": bnb.MultinomialNB()},
        X[:80], y[:80], X[80:], y[80:], loo_draws=100,
    )  # fmt: skip
    acc = out["accuracy"].sel(name="poisson").item()
    m = bnb.PoissonNB().fit(X[:80], y[:80])
    assert acc == pytest.approx(np.mean(m.predict(X[80:]) == y[80:]))
    lpd = out["lpd"].sel(name="poisson").item()
    assert lpd == pytest.approx(m.predict_log_proba(X[80:])[np.arange(40), y[80:]].sum(), rel=1e-10)
    assert np.isfinite(out["elpd_loo"].sel(name="poisson").item())


# -- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"alpha": 0.0}, "alpha must be finite and > 0"),
        ({"beta": -1.0}, "beta must be finite and > 0"),
        ({"beta": np.inf}, "beta must be finite"),
        ({"alpha": [1.0, 2.0]}, "alpha must be a scalar or have one value per feature"),
        ({"beta": "evidence"}, "beta must be a positive number"),
        ({"estimate": "map", "alpha": 0.5}, "estimate='map' needs alpha >= 1"),
        ({"estimate": "median"}, "estimate must be one of"),
        ({"class_alpha": -1.0}, "class_alpha"),
        ({"dtype": "int32"}, "dtype must be float32 or float64"),
    ],
)
def test_bad_parameters_name_the_argument(params, match):
    X, y = poisson_data(20)
    with pytest.raises(ValueError, match=match):
        bnb.PoissonNB(**params).fit(X, y)


def test_bad_parameter_types():
    X, y = poisson_data(20)
    with pytest.raises(TypeError, match="alpha must be a number"):
        bnb.PoissonNB(alpha=object()).fit(X, y)


def test_bad_data():
    X, y = poisson_data(21)
    neg = X.copy()
    neg[0, 0] = -1
    with pytest.raises(ValueError, match="Negative values"):
        bnb.PoissonNB().fit(neg, y)
    with pytest.raises(ValueError, match="Negative values"):
        bnb.PoissonNB().fit(X, y).predict(sp.csr_matrix(neg))
    nan = X.copy()
    nan[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        bnb.PoissonNB().fit(nan, y)
    with pytest.raises(ValueError, match="features"):
        bnb.PoissonNB().fit(X, y).predict(X[:, :3])
    with pytest.raises(ValueError, match="sample_weight"):
        bnb.PoissonNB().fit(X, y, sample_weight=-np.ones(len(y)))


def test_posterior_object_refuses_map_below_one():
    post = GammaPosterior(0.5, 1.0, np.zeros((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="needs alpha >= 1"):
        post.log_estimate("map")


# -- scikit-learn ------------------------------------------------------------------------------
@parametrize_with_checks(
    [
        bnb.PoissonNB(),
        bnb.PoissonNB(estimate="bayes"),
        bnb.PoissonNB(estimate="map", alpha=2.0, class_alpha=2.0),
    ]
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# -- alpha="evidence": the Gamma shape maximising the evidence, rate fixed -----------------------
def _shape_gradient(alpha, beta, sums, trials):
    """d/dα of the Gamma-Poisson log evidence, Σ_cj [ψ(α+S) − ψ(α) + ln β − ln(β+N)], in full."""
    b = np.broadcast_to(np.asarray(beta, dtype=float), sums.shape)
    return float(np.sum(digamma(alpha + sums) - digamma(alpha) + np.log(b) - np.log(b + trials)))


def _sparse_counts(seed=40, n=150, v=40, k=3):
    # Text-like: most rates near 0, so the learned shape is well below 1.
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rates = rng.gamma(0.3, 1.0, size=(k, v))
    return rng.poisson(rates[y]).astype(np.float64), y


@pytest.mark.parametrize("beta", [1.0, 0.2, np.linspace(0.5, 3.0, 40)])
def test_learned_alpha_zeroes_the_gradient_and_beats_a_grid(beta):
    X, y = _sparse_counts()
    m = bnb.PoissonNB(alpha="evidence", beta=beta).fit(X, y)
    a = m.alpha_
    assert isinstance(a, float) and 0.05 < a < 1.0
    trials = np.broadcast_to(m.class_count_[:, None], m.feature_count_.shape)
    grad = _shape_gradient(a, beta, m.feature_count_, trials)
    # ψ terms of size ~1/α summed over 120 cells: a root to ~1e-9 relative.
    assert abs(grad) < 1e-7
    assert _shape_gradient(0.9 * a, beta, m.feature_count_, trials) > 0
    assert _shape_gradient(1.1 * a, beta, m.feature_count_, trials) < 0
    best = m.log_evidence()
    for t in np.geomspace(a / 10, a * 10, 41):
        assert bnb.PoissonNB(alpha=float(t), beta=beta).fit(X, y).log_evidence() <= best + 1e-9
    # The finite-difference slope of the evidence in ln α vanishes there too.
    h = 1e-5
    up = bnb.PoissonNB(alpha=a * np.exp(h), beta=beta).fit(X, y).log_evidence()
    down = bnb.PoissonNB(alpha=a * np.exp(-h), beta=beta).fit(X, y).log_evidence()
    assert abs(up - down) / (2 * h) < 1e-3
    # The model in use is PoissonNB(alpha=alpha_): same tables, same scores.
    fixed = bnb.PoissonNB(alpha=a, beta=beta).fit(X, y)
    np.testing.assert_array_equal(m.predict_joint_log_proba(X), fixed.predict_joint_log_proba(X))
    assert m.log_evidence() == fixed.log_evidence()


def test_learned_alpha_recovers_the_simulating_shape():
    # λ_cj ~ Gamma(2, rate 1) for 4 × 300 rates, 60 documents per class: the evidence sees
    # 1200 rates through their counts; with β at its true value α̂ lands near 2.
    rng = np.random.default_rng(41)
    k, v, n = 4, 300, 240
    y = np.repeat(np.arange(k), n // k)
    rates = rng.gamma(2.0, 1.0, size=(k, v))
    X = rng.poisson(rates[y]).astype(np.float64)
    a = bnb.PoissonNB(alpha="evidence", beta=1.0).fit(X, y).alpha_
    assert a == pytest.approx(2.0, rel=0.12)


def test_learned_alpha_with_missing_counts_uses_the_observed_documents():
    X, y = _sparse_counts(42)
    rng = np.random.default_rng(43)
    X[rng.random(X.shape) < 0.2] = np.nan
    m = bnb.PoissonNB(alpha="evidence", missing="ignore").fit(X, y)
    trials = m.class_count_[:, None] - m.missing_count_  # N_cj differs per feature
    assert np.ptp(trials) > 5
    assert abs(_shape_gradient(m.alpha_, 1.0, m.feature_count_, trials)) < 1e-7
    # Using N_c instead of N_cj would put the root elsewhere.
    wrong = np.broadcast_to(m.class_count_[:, None], trials.shape)
    assert abs(_shape_gradient(m.alpha_, 1.0, m.feature_count_, wrong)) > 1.0
    for t in (0.8 * m.alpha_, 1.25 * m.alpha_):
        other = bnb.PoissonNB(alpha=t, missing="ignore").fit(X, y)
        assert other.log_evidence() < m.log_evidence()
    # Sparse input with explicit NaN learns the same value.
    ms = bnb.PoissonNB(alpha="evidence", missing="ignore").fit(sp.csr_matrix(X), y)
    assert ms.alpha_ == pytest.approx(m.alpha_, rel=1e-12)


def test_partial_fit_relearns_alpha_from_the_merged_statistics():
    X, y = _sparse_counts(44)
    full = bnb.PoissonNB(alpha="evidence").fit(X, y)
    parts = bnb.PoissonNB(alpha="evidence")
    parts.partial_fit(X[:50], y[:50], classes=np.unique(y))
    first = parts.alpha_
    assert first == pytest.approx(bnb.PoissonNB(alpha="evidence").fit(X[:50], y[:50]).alpha_)
    parts.partial_fit(X[50:], y[50:])
    assert parts.alpha_ != first
    assert parts.alpha_ == pytest.approx(full.alpha_, rel=1e-12)
    np.testing.assert_allclose(parts.predict_proba(X), full.predict_proba(X), rtol=1e-10)


def test_set_params_alpha_evidence_after_fit_relearns():
    X, y = _sparse_counts(45)
    m = bnb.PoissonNB(alpha=1.0).fit(X, y)
    before = m.predict_joint_log_proba(X)
    assert m.alpha_ == 1.0
    m.set_params(alpha="evidence")
    learned = bnb.PoissonNB(alpha="evidence").fit(X, y)
    assert m.alpha_ == learned.alpha_ < 1.0
    np.testing.assert_array_equal(m.predict_joint_log_proba(X), learned.predict_joint_log_proba(X))
    assert not np.allclose(m.predict_joint_log_proba(X), before)
    assert m.log_evidence() == learned.log_evidence()
    m.set_params(alpha=1.0)  # and back, without a refit
    assert m.alpha_ == 1.0
    np.testing.assert_array_equal(m.predict_joint_log_proba(X), before)
    # A different rate moves the learned shape (the prior mean α/β follows the rates).
    m.set_params(alpha="evidence", beta=0.1)
    assert m.alpha_ == bnb.PoissonNB(alpha="evidence", beta=0.1).fit(X, y).alpha_
    assert m.alpha_ != learned.alpha_


def test_save_load_keeps_the_learned_alpha(tmp_path):
    X, y = _sparse_counts(46)
    for estimate in ("mean", "bayes", "mle"):
        m = bnb.PoissonNB(alpha="evidence", beta=0.5, estimate=estimate).fit(X, y)
        path = tmp_path / f"{estimate}.nc"
        m.save(path)
        back = bnb.load(path, expected="PoissonNB")
        assert back.alpha == "evidence"
        assert back.alpha_ == m.alpha_
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
        assert back.log_evidence() == m.log_evidence()


def test_map_with_a_learned_shape_below_one_fails_at_fit():
    X, y = _sparse_counts(47)
    with pytest.raises(ValueError, match="evidence-maximising alpha_ is 0"):
        bnb.PoissonNB(alpha="evidence", estimate="map").fit(X, y)
    # Dense counts with large rates learn a shape above 1: then the mode exists.
    Xd, yd = poisson_data(48, n=200)
    m = bnb.PoissonNB(alpha="evidence", beta=0.1, estimate="map").fit(Xd + 5, yd)
    assert m.alpha_ > 1
    post = m.posterior_
    np.testing.assert_allclose(
        np.exp(m.feature_log_rate_), (m.alpha_ - 1 + post.sums) / post.rate, rtol=1e-13
    )


def test_no_counts_push_alpha_to_the_bound_with_a_warning():
    y = np.repeat([0, 1], 10)
    with pytest.warns(RuntimeWarning, match="keeps increasing as alpha goes to 0"):
        m = bnb.PoissonNB(alpha="evidence").fit(np.zeros((20, 3)), y)
    assert m.alpha_ < 1e-7
