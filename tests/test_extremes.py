"""Numerical extremes: finite, correct answers (checked with mpmath) or a clear error.

Concentrations from 1e-12 to 1e12, counts of 2^40 in one cell, one document of 10^7 tokens,
a declared class never observed, a feature that is zero everywhere, GDA features around 1e9
with a spread of 1e-3, and 1,000 classes.
"""

from __future__ import annotations

import warnings

import mpmath as mp
import numpy as np
import pytest
import scipy.sparse as sp

import bayesnb as bnb
from bayesnb.scoring.discrete import log_rising

mp.mp.dps = 60
ALPHAS = [1e-12, 1e-6, 1.0, 1e6, 1e12]


def _small_counts(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, (12, 3)).astype(float)
    return X, np.arange(12) % 2


def _mp_log_rising(a, n) -> mp.mpf:
    a = mp.mpf(a)
    return mp.loggamma(a + n) - mp.loggamma(a)


def _mp_class_term(counts, gamma) -> mp.mpf:
    """log p(labels) under Dirichlet(γ) class probabilities."""
    g, k = mp.mpf(gamma), len(counts)
    return -_mp_log_rising(k * g, float(np.sum(counts))) + sum(
        _mp_log_rising(g, float(n)) for n in counts
    )


def _mp_dirichlet_evidence(alpha, counts) -> mp.mpf:
    """Σ_c log p(tokens of class c) under Dirichlet(α) over the columns of ``counts``."""
    out = mp.mpf(0)
    for row in np.atleast_2d(counts):
        a = mp.mpf(alpha)
        out += -_mp_log_rising(len(row) * a, float(row.sum()))
        out += sum(_mp_log_rising(a, float(t)) for t in row)
    return out


# -- the log rising factorial (the fix for large concentrations) -------------------------------
@pytest.mark.parametrize("a", [1e-12, 0.5, 1.0, 99.0, 100.0, 999.0, 1e4, 1e8, 1e12, 1e15])
@pytest.mark.parametrize("n", [0.0, 1.0, 7.0, 1e3, 2.0**40])
def test_log_rising_matches_mpmath(a, n):
    """Regression: gammaln(a + n) - gammaln(a) lost 0.02 nats at a = 1e12 (cancellation)."""
    ref = _mp_log_rising(a, n)
    got = float(log_rising(a, n))
    assert got == pytest.approx(float(ref), rel=1e-12, abs=1e-13)


# -- concentrations from 1e-12 to 1e12 ---------------------------------------------------------
@pytest.mark.parametrize("alpha", ALPHAS)
def test_multinomial_alpha_extremes(alpha):
    """Regression: at α = 1e12 the 'bayes' scores and the evidence were off by ~0.02 nats."""
    X, y = _small_counts()
    estimates = ["mle", "mean", "bayes"] + (["map"] if alpha >= 1 else [])
    for estimate in estimates:
        est = bnb.MultinomialNB(alpha=alpha, estimate=estimate).fit(X, y)
        T = est.feature_count_
        with np.errstate(divide="ignore"):
            proba = est.predict_proba(X)
        assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
        a = mp.mpf(alpha)
        if estimate == "mean":
            ref = [[mp.log((a + t) / (3 * a + row.sum())) for t in row] for row in T]
            np.testing.assert_allclose(est.feature_log_prob_, np.array(ref, float), atol=1e-13)
        if estimate == "map":
            ref = [[mp.log((a - 1 + t) / (3 * (a - 1) + row.sum())) for t in row] for row in T]
            np.testing.assert_allclose(est.feature_log_prob_, np.array(ref, float), atol=1e-13)
        if estimate == "bayes":
            jll = est.predict_joint_log_proba(X) - est.class_log_prior_
            ref = np.array(
                [
                    [
                        float(
                            -_mp_log_rising(3 * a + T[c].sum(), x.sum())
                            + sum(_mp_log_rising(a + T[c, j], x[j]) for j in range(3))
                        )
                        for c in range(2)
                    ]
                    for x in X
                ]
            )
            np.testing.assert_allclose(jll, ref, rtol=1e-12, atol=1e-11)
    ref = _mp_dirichlet_evidence(alpha, T) + _mp_class_term(est.class_count_, 1.0)
    assert est.log_evidence() == pytest.approx(float(ref), rel=1e-13)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_bernoulli_alpha_extremes(alpha):
    X, y = _small_counts(1)
    est = bnb.BernoulliNB(alpha=alpha).fit(X, y)
    a, D, N = mp.mpf(alpha), est.feature_count_, est.class_count_
    log_p = [[mp.log((a + d) / (2 * a + N[c])) for d in D[c]] for c in range(2)]
    log_q = [[mp.log((a + N[c] - d) / (2 * a + N[c])) for d in D[c]] for c in range(2)]
    np.testing.assert_allclose(est.feature_log_prob_, np.array(log_p, float), atol=1e-13)
    np.testing.assert_allclose(est.feature_log_neg_prob_, np.array(log_q, float), atol=1e-13)
    ref = _mp_class_term(N, 1.0)
    for c in range(2):
        for d in D[c]:
            ref += _mp_log_rising(a, d) + _mp_log_rising(a, N[c] - d) - _mp_log_rising(2 * a, N[c])
    assert est.log_evidence() == pytest.approx(float(ref), rel=1e-13)
    assert np.all(np.isfinite(est.predict_log_proba(X)))
    draws = est.sample_posterior(20, 1, random_seed=0).posterior["feature_prob"].values
    assert np.all((draws >= 0) & (draws <= 1))


@pytest.mark.parametrize("alpha", ALPHAS)
def test_categorical_alpha_extremes(alpha):
    X, y = _small_counts(2)
    X = np.minimum(X, 3)
    est = bnb.CategoricalNB(alpha=alpha).fit(X, y)
    ref = _mp_class_term(est.class_count_, 1.0)
    for counts in est.category_count_:  # (class, k_j); the pooled slot counts zero
        ref += _mp_dirichlet_evidence(alpha, np.hstack([counts, np.zeros((2, 1))]))
    assert est.log_evidence() == pytest.approx(float(ref), rel=1e-13)
    proba = est.predict_proba(X)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("gamma", [0.0, *ALPHAS])
def test_class_alpha_extremes(gamma):
    X, y = _small_counts()
    y = np.where(np.arange(12) < 9, 0, 1)  # 9 and 3 documents
    est = bnb.MultinomialNB(class_alpha=gamma).fit(X, y)
    g = mp.mpf(gamma)
    ref = [mp.log((g + n) / (2 * g + 12)) for n in (9, 3)]
    np.testing.assert_allclose(est.class_log_prior_, np.array(ref, float), atol=1e-14)
    if gamma > 0:
        ref = _mp_dirichlet_evidence(1.0, est.feature_count_) + _mp_class_term([9, 3], gamma)
        assert est.log_evidence() == pytest.approx(float(ref), rel=1e-13)
    else:
        with pytest.raises(ValueError, match="class_alpha > 0"):
            est.log_evidence()


# -- huge counts -------------------------------------------------------------------------------
def test_counts_of_two_to_the_forty():
    """Regression: one document of 2^40 tokens made the length histogram allocate 16 TiB."""
    X, y = _small_counts()
    X[0, 0] = X[1, 1] = 2.0**40
    for estimate in ("mle", "mean", "bayes"):
        est = bnb.MultinomialNB(alpha=2.0, estimate=estimate).fit(X, y)
        proba = est.predict_proba(X)
        assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    assert est.length_count_.shape[1] > 2**40 and est.length_count_.nnz <= 12
    ref = _mp_dirichlet_evidence(2.0, est.feature_count_) + _mp_class_term(est.class_count_, 1.0)
    # The evidence sums terms like ln Γ(2^40) ≈ 2.9e13 that cancel to ~1.6e3; float64 holds
    # each to ±0.004, so that is the precision of the sum (the value is not lost, as it was
    # before the length histogram went sparse).
    assert est.log_evidence() == pytest.approx(float(ref), abs=0.02)
    mean = bnb.MultinomialNB(alpha=2.0).fit(X, y)
    T = mean.feature_count_
    ref = [[mp.log((2 + mp.mpf(t)) / (6 + mp.mpf(row.sum()))) for t in row] for row in T]
    np.testing.assert_allclose(mean.feature_log_prob_, np.array(ref, float), atol=1e-13)
    draws = mean.sample_posterior(50, 1, random_seed=0).posterior["feature_prob"].values
    assert np.all(np.isfinite(draws)) and np.allclose(draws.sum(axis=-1), 1.0)
    # Documents of 2^40 tokens cannot be generated token by token: refused, not a MemoryError.
    with pytest.raises(ValueError, match=r"sample would generate .* tokens"):
        mean.sample(4, random_seed=0)
    # The same mass as sample weights, for the models that count documents.
    w = np.full(12, 2.0**40)
    for cls in (bnb.BernoulliNB, bnb.CategoricalNB):
        est = cls(alpha=2.0).fit(np.minimum(X, 3), y, sample_weight=w)
        assert np.isfinite(est.log_evidence())
        assert np.all(np.isfinite(est.predict_log_proba(np.minimum(X, 3))))


def test_one_document_of_ten_million_tokens():
    rng = np.random.default_rng(3)
    V = 50_000
    train = sp.random(40, V, density=0.002, random_state=4, format="csr")
    train.data = np.ceil(train.data * 4)
    y = np.arange(40) % 2
    cols = rng.choice(V, size=20, replace=False)
    counts = rng.multinomial(10**7, np.full(20, 0.05)).astype(float)
    doc = sp.csr_matrix((counts, (np.zeros(20, int), cols)), shape=(1, V))
    for estimate in ("mean", "bayes"):
        est = bnb.MultinomialNB(alpha=0.5, estimate=estimate).fit(train, y)
        jll = est.predict_joint_log_proba(doc)[0] - est.class_log_prior_
        a, T = mp.mpf(0.5), est.feature_count_
        ref = []
        for c in range(2):
            if estimate == "mean":
                total = 0.5 * V + T[c].sum()
                ref.append(
                    sum(
                        x * mp.log((a + T[c, j]) / total) for j, x in zip(cols, counts, strict=True)
                    )
                )
            else:
                r = -_mp_log_rising(a * V + T[c].sum(), counts.sum())
                ref.append(
                    r
                    + sum(_mp_log_rising(a + T[c, j], x) for j, x in zip(cols, counts, strict=True))
                )
        np.testing.assert_allclose(jll, np.array(ref, float), rtol=1e-12)
        lp = est.predict_log_proba(doc)
        assert np.all(np.isfinite(lp)) and lp.max() == pytest.approx(0.0, abs=1e-12)
        ref_diff = float(ref[0] - ref[1])
        # A difference of two scores of ~1e8 nats: exact to ~1e-7.
        assert lp[0, 0] - lp[0, 1] == pytest.approx(
            ref_diff + float(est.class_log_prior_[0] - est.class_log_prior_[1]), abs=1e-6
        )
    grown = bnb.MultinomialNB().fit(sp.vstack([train, doc]).tocsr(), np.r_[y, 1])
    assert grown.length_count_.shape[1] == 10**7 + 1
    X_new, _ = grown.sample(3, random_seed=0)
    assert sp.issparse(X_new)


# -- a declared class never observed; a feature zero everywhere ---------------------------------
KINDS = {
    "MultinomialNB": (bnb.MultinomialNB, {"alpha": 2.0}),
    "BernoulliNB": (bnb.BernoulliNB, {"alpha": 2.0}),
    "CategoricalNB": (bnb.CategoricalNB, {"alpha": 2.0}),
    "GDA": (bnb.GDA, {}),
}


@pytest.mark.parametrize("estimate", ["mle", "map", "mean", "bayes"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_declared_class_never_observed(kind, estimate):
    cls, kw = KINDS[kind]
    X, y = _small_counts()
    est = cls(estimate=estimate, **kw).partial_fit(X, y, classes=[0, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proba = est.predict_proba(X)
        log_proba = est.predict_log_proba(X)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    assert not np.any(np.isnan(log_proba))
    g = mp.mpf(1.0)
    ref = [mp.log((g + n) / (3 * g + 12)) for n in (6, 6, 0)]
    if estimate == "mle":
        assert np.all(proba[:, 2] == 0.0) and np.isneginf(est.class_log_prior_[2])
    elif estimate == "mean" or estimate == "bayes":
        np.testing.assert_allclose(est.class_log_prior_, np.array(ref, float), atol=1e-14)
        assert np.all(proba[:, 2] > 0)
    if kind == "MultinomialNB" and estimate == "mean":
        # The unseen class scores with the prior mean: every word 1/V.
        np.testing.assert_allclose(est.feature_log_prob_[2], np.log(1 / 3), atol=1e-15)
        ref_ev = _mp_dirichlet_evidence(2.0, est.feature_count_) + _mp_class_term([6, 6, 0], 1)
        assert est.log_evidence() == pytest.approx(float(ref_ev), rel=1e-13)
    assert np.isfinite(est.log_evidence())
    tree = est.sample_posterior(10, 1, random_seed=0)
    pi = tree.posterior["class_prior"].values
    assert np.all(np.isfinite(pi)) and np.allclose(pi.sum(axis=-1), 1.0)
    _, y_new = est.sample(50, random_seed=0)
    assert set(np.unique(y_new)) <= {0, 1, 2}


@pytest.mark.parametrize("estimate", ["mle", "map", "mean", "bayes"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_feature_zero_everywhere(kind, estimate):
    cls, kw = KINDS[kind]
    X, y = _small_counts()
    X[:, 1] = 0.0
    if kind == "GDA" and estimate == "mle":
        with pytest.raises(ValueError, match=r"feature\(s\) \[1\] have zero variance"):
            cls(estimate=estimate).fit(X, y)
        return
    est = cls(estimate=estimate, **kw).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the training documents never hold the feature
        proba = est.predict_proba(X)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    assert np.isfinite(est.log_evidence())
    if kind == "MultinomialNB" and estimate == "mean":
        T = est.feature_count_.sum(axis=1)
        np.testing.assert_allclose(est.feature_log_prob_[:, 1], np.log(2.0 / (6.0 + T)))
    X_new = X.copy()
    X_new[0, 1] = 1.0
    if estimate == "mle" and kind != "GDA":
        # Probability 0 under every class: said once, and the class prior decides.
        with pytest.warns(RuntimeWarning, match="probability 0 under every class"):
            proba = est.predict_proba(X_new)
        np.testing.assert_allclose(proba[0], np.exp(est.class_log_prior_))
    else:
        proba = est.predict_proba(X_new)
    assert np.all(np.isfinite(proba))


# -- GDA far from the origin -----------------------------------------------------------------
ULP_1E9 = np.spacing(1e9)  # 1.19e-7: the resolution of every value near 1e9


@pytest.mark.parametrize("estimate", ["mle", "map", "mean", "bayes"])
@pytest.mark.parametrize("covariance", ["shared", "per_class", "diagonal"])
def test_gda_features_around_1e9_match_a_centred_fit(covariance, estimate):
    rng = np.random.default_rng(5)
    n, d = 90, 3
    y = np.arange(n) % 3
    Z = rng.normal(size=(n, d)) * 1e-3 + 1e-3 * y[:, None] * np.array([1.0, -1.0, 0.5])
    far = Z + 1e9
    Z = far - 1e9  # exactly the data the far fit sees (Sterbenz: the subtraction is exact)
    a = bnb.GDA(covariance=covariance, estimate=estimate).fit(far, y)
    b = bnb.GDA(covariance=covariance, estimate=estimate).fit(Z, y)
    # Means are numbers near 1e9: correct to their own resolution.
    assert np.abs((a.means_ - 1e9) - b.means_).max() <= ULP_1E9
    cov_a, cov_b = a.covariance_, b.covariance_
    assert np.abs(cov_a - cov_b).max() <= 1e-6 * np.abs(cov_b).max()
    assert np.all(np.diagonal(np.atleast_2d(cov_a), axis1=-2, axis2=-1) > 0)
    # Scores: the test points and means carry one ulp(1e9) each, i.e. ~1e-4 standard
    # deviations, which bounds how closely any float64 computation can agree.
    lp_a, lp_b = a.predict_log_proba(far), b.predict_log_proba(Z)
    assert np.all(np.isfinite(lp_a))
    np.testing.assert_allclose(lp_a, lp_b, atol=5e-3)
    assert np.mean(a.predict(far) == b.predict(Z)) >= 0.97
    assert a.log_evidence() == pytest.approx(b.log_evidence(), abs=1e-5)
    da = a.sample_posterior(20, 1, random_seed=1).posterior
    db = b.sample_posterior(20, 1, random_seed=1).posterior
    assert np.abs((da["mean"].values - 1e9) - db["mean"].values).max() <= 2 * ULP_1E9
    assert np.abs(da["cov"].values - db["cov"].values).max() <= 1e-6 * np.abs(cov_b).max()


# -- 1,000 classes -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cls", "kw"),
    [
        (bnb.MultinomialNB, {}),
        (bnb.BernoulliNB, {}),
        (bnb.CategoricalNB, {}),
        (bnb.GDA, {"covariance": "shared"}),
        (bnb.GDA, {"covariance": "per_class"}),
        (bnb.GDA, {"covariance": "diagonal"}),
    ],
    ids=["multinomial", "bernoulli", "categorical", "gda-shared", "gda-per_class", "gda-diag"],
)
def test_thousand_classes(cls, kw):
    rng = np.random.default_rng(6)
    k, d = 1000, 4
    y = np.arange(3 * k) % k
    if cls is bnb.GDA:
        X = rng.normal(size=(y.size, d)) + (y[:, None] % 7)
    else:
        X = rng.poisson(1.0 + (y[:, None] * np.arange(1, d + 1)) % 5).astype(float)
    for estimate in ("mean", "bayes"):
        est = cls(estimate=estimate, **kw).fit(X, y)
        proba = est.predict_proba(X[:300])
        assert proba.shape == (300, k)
        assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
        np.testing.assert_array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X[:300]))
    assert np.isfinite(est.log_evidence())
