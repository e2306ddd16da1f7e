"""SemiSupervisedNB: EM with unlabelled documents, its prior densities and soft statistics."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import gammaln, logsumexp
from sklearn.base import clone

import bayesnb as bnb
from bayesnb.families import family_of
from bayesnb.posterior.prior_density import (
    beta_log_density,
    dirichlet_log_density,
    gamma_log_density,
    inverse_gamma_log_density,
    inverse_wishart_log_density,
    multivariate_normal_log_density,
)
from bayesnb.semisupervised import (
    SemiSupervisedNB,
    log_posterior,
    log_prior_density,
    unlabelled_mask,
)
from bayesnb.stats.lengths import DocumentLengths, count_lengths
from bayesnb.validation import encode_labels
from tests.semisupervised_helpers import count_data, gaussian_data, hide_labels, keep_per_class


def _config(name):
    """(estimator, X, y) of each configuration the EM tests run."""
    X, y, _ = count_data()
    Xg, yg, _ = gaussian_data()
    Xc = np.random.default_rng(1).integers(0, 3, size=(400, 4)).astype(float)
    Xc[:, 0] = np.where(np.random.default_rng(2).random(400) < 0.8, y, (y + 1) % 3)
    return {
        "multinomial-map-sparse": (
            bnb.MultinomialNB(alpha=2.0, estimate="map"),
            sp.csr_matrix(X),
            y,
        ),
        "multinomial-mle": (bnb.MultinomialNB(alpha=1.0, estimate="mle"), X, y),
        "multinomial-unk": (
            bnb.MultinomialNB(alpha=1.5, class_alpha=2.0, estimate="map", unk=True),
            X,
            y,
        ),
        "bernoulli-map": (bnb.BernoulliNB(alpha=2.0, beta=3.0, estimate="map"), X, y),
        "poisson-map": (bnb.PoissonNB(alpha=2.0, beta=0.5, estimate="map"), X, y),
        "categorical-map": (bnb.CategoricalNB(alpha=2.0, estimate="map"), Xc, y),
        "dcm-map": (bnb.DirichletCompoundNB(estimate="map"), X, y),
        "gda-shared": (bnb.GDA(estimate="map"), Xg, yg),
        "gda-per_class": (bnb.GDA(covariance="per_class", estimate="map"), Xg, yg),
        "gda-diagonal": (bnb.GDA(covariance="diagonal", estimate="map"), Xg, yg),
        "gda-mle": (bnb.GDA(estimate="mle"), Xg, yg),
        "columnwise": (
            bnb.ColumnwiseNB(
                [
                    ("words", bnb.MultinomialNB(alpha=2.0), list(range(30))),
                    ("x", bnb.GDA(), [30, 31]),
                ],
                estimate="map",
            ),
            np.hstack([X, Xg]),
            y,
        ),
    }[name]


CONFIGS = [
    "multinomial-map-sparse",
    "multinomial-mle",
    "multinomial-unk",
    "bernoulli-map",
    "poisson-map",
    "categorical-map",
    "dcm-map",
    "gda-shared",
    "gda-per_class",
    "gda-diagonal",
    "gda-mle",
    "columnwise",
]


# -- EM increases the observed-data log posterior ------------------------------------------
@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("weight", [1.0, 0.3])
def test_log_posterior_never_decreases(name, weight):
    est, X, y = _config(name)
    yy = hide_labels(y, 24)
    model = SemiSupervisedNB(est, unlabelled_weight=weight, max_iter=15).fit(X, yy)
    lp = model.log_posterior_
    assert model.n_iter_ >= 1 and lp.shape == (model.n_iter_ + 1,)
    assert np.all(np.diff(lp) >= -1e-10 * np.abs(lp[1:])), np.diff(lp)
    assert lp[-1] > lp[0]
    # The recorded value is the observed-data log posterior of the final estimator.
    rows = yy == -1
    again = log_posterior(model.estimator_, X[~rows], yy[~rows], X[rows], weight=weight)
    assert again == pytest.approx(lp[-1], rel=1e-12)


# -- no unlabelled information: the supervised fit, exactly ---------------------------------
@pytest.mark.parametrize("name", CONFIGS)
def test_weight_zero_and_all_labelled_are_the_supervised_fit(name):
    est, X, y = _config(name)
    yy = hide_labels(y, 24)
    supervised = clone(est).fit(X[:24], y[:24])
    expected = supervised.predict_joint_log_proba(X)
    zero = SemiSupervisedNB(est, unlabelled_weight=0.0).fit(X, yy)
    assert zero.n_iter_ == 0 and zero.converged_
    np.testing.assert_array_equal(zero.estimator_.predict_joint_log_proba(X), expected)
    assert zero.log_posterior_[0] == log_posterior(supervised, X[:24], y[:24], X[:0])
    full = SemiSupervisedNB(est).fit(X, y)
    np.testing.assert_array_equal(
        full.estimator_.predict_joint_log_proba(X), clone(est).fit(X, y).predict_joint_log_proba(X)
    )
    assert full.n_iter_ == 0


# -- one-hot soft statistics are the hard statistics ----------------------------------------
@pytest.mark.parametrize("name", CONFIGS)
def test_one_hot_soft_statistics_equal_the_hard_ones(name):
    est, X, y = _config(name)
    hard = clone(est).fit(X, y)
    w = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    hard = clone(est).fit(X, y, sample_weight=w)
    Xv = hard._check_input(X, reset=False)
    _, codes = encode_labels(y, hard.classes_)
    resp = np.zeros((len(y), len(hard.classes_)))
    resp[np.arange(len(y)), codes] = w
    soft = copy.deepcopy(hard)
    soft._fit_arrays(Xv, codes, w, statistics=family_of(hard).soft_counter(hard, Xv)(resp))
    np.testing.assert_allclose(soft.class_count_, hard.class_count_, rtol=1e-13)
    a, b = soft.predict_joint_log_proba(X), hard.predict_joint_log_proba(X)
    scale = np.abs(b[np.isfinite(b)]).max()
    np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-11 * scale)
    if hasattr(hard, "feature_count_"):
        np.testing.assert_allclose(soft.feature_count_, hard.feature_count_, rtol=1e-13)


@pytest.mark.parametrize("longest", [0.0, 2.0**40])
def test_soft_length_histogram_of_one_hot_labels_is_the_hard_one(longest):
    # Lengths 0 to ~10, and with one document of 2^40 tokens (the hard histogram's sparse
    # branch, which sums duplicates in another order: equal to rounding).
    rng = np.random.default_rng(5)
    n, k = 300, 3
    X = sp.random(n, 40, density=0.1, random_state=1, format="lil", data_rvs=np.ones)
    X[7, 0] = longest
    X = X.tocsr()
    codes, w = rng.integers(0, k, n), rng.uniform(0.1, 3.0, n)
    w[11] = 0.0
    resp = np.zeros((n, k))
    resp[np.arange(n), codes] = w
    hard = count_lengths(X, codes, w, k)
    soft = DocumentLengths(X).histogram(resp)
    lengths = np.rint(X.sum(axis=1).A1).astype(np.int64)
    assert soft.shape == hard.shape == (k, lengths.max() + 1)
    assert soft.nnz == hard.nnz == len(set(zip(codes[w > 0], lengths[w > 0], strict=True)))
    if longest:
        np.testing.assert_allclose(soft.data, hard.data, rtol=1e-14)
        assert soft[codes[7], lengths[7]] == w[7]
    else:  # the same sums in the same order
        assert (soft != hard).nnz == 0


def test_soft_statistics_are_one_product_for_the_linear_families():
    X, y, _ = count_data()
    resp = np.random.default_rng(0).dirichlet(np.ones(3), size=len(y))
    for est in (bnb.MultinomialNB(), bnb.BernoulliNB(), bnb.PoissonNB(), bnb.CategoricalNB()):
        est.fit(X, y)
        batches = family_of(est).soft_counter(est, est._check_input(X, reset=False))(resp)
        assert len(batches) == 1
        np.testing.assert_allclose(batches[0]["class_count"], resp.sum(axis=0), rtol=1e-14)
    np.testing.assert_allclose(batches[0]["class_count"], resp.sum(axis=0))
    est = bnb.MultinomialNB().fit(X, y)
    (batch,) = family_of(est).soft_counter(est, sp.csr_matrix(X))(resp)
    np.testing.assert_allclose(batch["feature_count"], resp.T @ X, rtol=1e-13)
    lengths = X.sum(axis=1).astype(int)
    hist = batch["length_count"].toarray()
    for c in range(3):
        expected = np.bincount(lengths, weights=resp[:, c], minlength=hist.shape[1])
        np.testing.assert_allclose(hist[c], expected, rtol=1e-13)


# -- prior densities: scipy.stats' -----------------------------------------------------------
def test_prior_density_kernels_equal_scipy():
    rng = np.random.default_rng(0)
    alpha = rng.uniform(0.5, 3.0, 5)
    theta = rng.dirichlet(np.ones(5), size=3)
    expected = sum(stats.dirichlet.logpdf(t, alpha) for t in theta)
    assert dirichlet_log_density(alpha, np.log(theta)) == pytest.approx(expected, rel=1e-13)
    sizes = np.array([2, 3])
    flat = np.hstack([rng.dirichlet(np.ones(2), size=3), rng.dirichlet(np.ones(3), size=3)])
    expected = sum(
        stats.dirichlet.logpdf(r[:2], alpha[:2]) + stats.dirichlet.logpdf(r[2:], alpha[2:])
        for r in flat
    )
    got = dirichlet_log_density(alpha, np.log(flat), sizes)
    assert got == pytest.approx(expected, rel=1e-13)
    p = rng.uniform(0.05, 0.95, (3, 4))
    got = beta_log_density(2.5, 1.5, np.log(p), np.log1p(-p))
    assert got == pytest.approx(stats.beta.logpdf(p, 2.5, 1.5).sum(), rel=1e-13)
    lam = rng.gamma(2.0, size=(3, 4))
    got = gamma_log_density(2.0, 0.7, lam)
    assert got == pytest.approx(stats.gamma.logpdf(lam, 2.0, scale=1 / 0.7).sum(), rel=1e-13)
    got = inverse_gamma_log_density(3.0, 2.0, lam)
    assert got == pytest.approx(stats.invgamma.logpdf(lam, 3.0, scale=2.0).sum(), rel=1e-13)
    A = rng.normal(size=(3, 3))
    psi, cov = A @ A.T + np.eye(3), stats.invwishart.rvs(7, np.eye(3), random_state=1)
    got = inverse_wishart_log_density(cov, psi, 7.0)
    assert got == pytest.approx(stats.invwishart.logpdf(cov, df=7.0, scale=psi), rel=1e-12)
    x, mean = rng.normal(size=(4, 3)), rng.normal(size=3)
    got = multivariate_normal_log_density(x, mean, psi)
    expected = stats.multivariate_normal.logpdf(x, mean, psi).sum()
    assert got == pytest.approx(expected, rel=1e-12)


def _scipy_feature_density(est):
    """The feature prior density at est's MAP, written with scipy.stats one family at a time."""
    if isinstance(est, bnb.MultinomialNB):
        theta = np.exp(est.feature_log_prob_)
        return sum(stats.dirichlet.logpdf(t, np.full(t.size, est.alpha)) for t in theta)
    if isinstance(est, bnb.BernoulliNB):
        return stats.beta.logpdf(np.exp(est.feature_log_prob_), est.alpha, est.beta).sum()
    if isinstance(est, bnb.PoissonNB):
        lam = np.exp(est.feature_log_rate_)
        return stats.gamma.logpdf(lam, est.alpha, scale=1.0 / est.beta).sum()
    if isinstance(est, bnb.CategoricalNB):
        return sum(
            stats.dirichlet.logpdf(t, np.full(t.size, est.alpha))
            for table in est.feature_log_prob_
            for t in np.exp(table)
        )
    if isinstance(est, bnb.DirichletCompoundNB):
        return stats.gamma.logpdf(est.concentration_, est.prior_shape, scale=1.0).sum()
    prior, means, cov = est.prior_, est.means_, est.covariance_
    if est.covariance == "shared":
        return stats.invwishart.logpdf(cov, df=prior.nu0, scale=prior.psi0) + sum(
            stats.multivariate_normal.logpdf(m, prior.mu0, cov / prior.kappa0) for m in means
        )
    if est.covariance == "per_class":
        return sum(
            stats.invwishart.logpdf(cov[c], df=prior.nu0, scale=prior.psi0)
            + stats.multivariate_normal.logpdf(means[c], prior.mu0, cov[c] / prior.kappa0)
            for c in range(len(means))
        )
    var = cov if cov.ndim == 2 else np.diagonal(cov, axis1=1, axis2=2)
    d = means.shape[1]
    shape, scale = (prior.nu0 - d + 1) / 2, np.diag(prior.psi0) / 2
    return (
        stats.invgamma.logpdf(var, shape, scale=scale).sum()
        + stats.norm.logpdf(means, prior.mu0, np.sqrt(var / prior.kappa0)).sum()
    )


@pytest.mark.parametrize(
    "name",
    [
        c
        for c in CONFIGS
        if c not in ("multinomial-mle", "multinomial-unk", "gda-mle", "columnwise")
    ],
)
def test_family_prior_densities_equal_scipy(name):
    est, X, y = _config(name)
    est = clone(est).set_params(class_alpha=3.0).fit(X, y)
    got = family_of(est).feature_log_prior_density(est)
    assert got == pytest.approx(_scipy_feature_density(est), rel=1e-11)
    pi = np.exp(est.class_log_prior_)
    expected = _scipy_feature_density(est) + stats.dirichlet.logpdf(pi, np.full(3, 3.0))
    assert log_prior_density(est) == pytest.approx(expected, rel=1e-11)


def test_columnwise_and_mle_prior_densities():
    est, X, y = _config("columnwise")
    est = clone(est).fit(X, y)
    words, x = est.named_estimators_["words"], est.named_estimators_["x"]
    expected = _scipy_feature_density(words) + _scipy_feature_density(x)
    got = family_of(est).feature_log_prior_density(est)
    assert got == pytest.approx(expected, rel=1e-11)
    mle = bnb.MultinomialNB(estimate="mle").fit(X[:, :30], y)
    assert log_prior_density(mle) == 0.0


# -- data simulated from the model ----------------------------------------------------------
def test_multinomial_unlabelled_pool_helps_and_recovers_theta():
    k, v, length, n_pool = 3, 40, 15, 3000
    X, y, theta = count_data(seed=5, n=n_pool + 2000, k=k, v=v, length=length, conc=1.0)
    train, test = slice(0, n_pool), slice(n_pool, None)
    yy = keep_per_class(y[train], 2)
    labelled = np.flatnonzero(yy != -1)
    est = bnb.MultinomialNB(alpha=1.1, estimate="map")
    sup = clone(est).fit(X[labelled], y[labelled])
    em = SemiSupervisedNB(est).fit(X[train], yy)
    assert em.converged_
    acc_sup, acc_em = (sup.predict(X[test]) == y[test]).mean(), em.score(X[test], y[test])
    idx = np.arange(len(y[test]))
    ll_sup = sup.predict_log_proba(X[test])[idx, y[test]].mean()
    ll_em = em.predict_log_proba(X[test])[idx, y[test]].mean()
    assert acc_em > acc_sup + 0.05 and ll_em > ll_sup
    assert acc_em > 0.95
    # θ̂_cj: ~T_c tokens of class c; the binomial SE sqrt(θ(1 − θ)/T_c), 6 SE plus the bias
    # of α − 1 = 0.1 pseudo-counts and of the misassigned documents (1 − accuracy).
    tokens = np.bincount(y[train], minlength=k) * length
    est_theta = np.exp(em.estimator_.feature_log_prob_)
    se = np.sqrt(theta * (1 - theta) / tokens[:, None])
    assert np.all(np.abs(est_theta - theta) <= 6 * se + (1 - acc_em) + 0.1 * v / tokens[:, None])
    assert np.abs(est_theta - theta).max() < np.abs(np.exp(sup.feature_log_prob_) - theta).max()


def test_gda_unlabelled_pool_helps_and_recovers_the_means():
    X, y, means = gaussian_data(seed=7, n=6000)
    train, test = slice(0, 4000), slice(4000, None)
    yy = y[train].copy()
    labelled = np.concatenate([np.flatnonzero(yy == c)[:3] for c in range(3)])
    yy[np.setdiff1d(np.arange(4000), labelled)] = -1
    est = bnb.GDA(estimate="map")
    sup = clone(est).fit(X[labelled], y[labelled])
    em = SemiSupervisedNB(est, max_iter=500).fit(X[train], yy)
    assert em.converged_
    idx = np.arange(2000)
    acc_sup, acc_em = (sup.predict(X[test]) == y[test]).mean(), em.score(X[test], y[test])
    ll_sup = sup.predict_log_proba(X[test])[idx, y[test]].mean()
    ll_em = em.predict_log_proba(X[test])[idx, y[test]].mean()
    assert acc_em >= acc_sup and ll_em > ll_sup
    # Class means within 5 SE (σ_max / sqrt(N_c)) and the covariance within 5 SE of its entries.
    cov = np.array([[1.0, 0.3], [0.0, 0.8]]).T @ np.array([[1.0, 0.3], [0.0, 0.8]])
    n_c = np.bincount(y[train])
    sigma = np.sqrt(np.diag(cov).max())
    assert np.all(np.abs(em.estimator_.means_ - means) <= 5 * sigma / np.sqrt(n_c)[:, None])
    se_cov = np.sqrt(2.0 / 4000) * np.diag(cov).max()
    assert np.all(np.abs(em.estimator_.covariance_ - cov) <= 5 * se_cov + 0.02)


# -- a reference EM written plainly ----------------------------------------------------------
def _reference_em(X_l, y_l, X_u, k, alpha, gamma, lam, tol, max_iter):
    """EM-λ for the multinomial MAP with numpy only, the stopping rule of SemiSupervisedNB."""

    def m_step(R_u):
        R_l = np.eye(k)[y_l]
        counts = R_l.T @ X_l + lam * R_u.T @ X_u + (alpha - 1)
        theta = counts / counts.sum(axis=1, keepdims=True)
        n = R_l.sum(axis=0) + lam * R_u.sum(axis=0) + (gamma - 1)
        return theta, n / n.sum()

    def log_post(theta, pi):
        joint_l = X_l @ np.log(theta).T + np.log(pi)
        joint_u = X_u @ np.log(theta).T + np.log(pi)
        v = theta.shape[1]
        prior = k * (gammaln(v * alpha) - v * gammaln(alpha)) + (alpha - 1) * np.log(theta).sum()
        prior += gammaln(k * gamma) - k * gammaln(gamma) + (gamma - 1) * np.log(pi).sum()
        return (
            joint_l[np.arange(len(y_l)), y_l].sum() + lam * logsumexp(joint_u, axis=1).sum() + prior
        )

    theta, pi = m_step(np.zeros((X_u.shape[0], k)))
    history = [log_post(theta, pi)]
    for _ in range(max_iter):
        joint = X_u @ np.log(theta).T + np.log(pi)
        R = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
        theta, pi = m_step(R)
        history.append(log_post(theta, pi))
        if history[-1] - history[-2] <= tol * abs(history[-1]):
            break
    return theta, pi, np.array(history)


def test_em_matches_a_plain_reference_em():
    X, y, _ = count_data(seed=11, n=500, v=25, length=5, conc=1.0)
    yy = hide_labels(y, 15)
    lam, tol = 0.7, 1e-9
    est = bnb.MultinomialNB(alpha=1.5, class_alpha=2.0, estimate="map")
    model = SemiSupervisedNB(est, unlabelled_weight=lam, tol=tol).fit(X, yy)
    theta, pi, history = _reference_em(X[:15], y[:15], X[15:], 3, 1.5, 2.0, lam, tol, 100)
    assert model.n_iter_ == len(history) - 1 > 3
    np.testing.assert_allclose(np.exp(model.estimator_.feature_log_prob_), theta, rtol=1e-10)
    np.testing.assert_allclose(np.exp(model.estimator_.class_log_prior_), pi, rtol=1e-10)
    # The reference drops the multinomial coefficients, as the model's likelihood does.
    np.testing.assert_allclose(model.log_posterior_, history, rtol=1e-10)


# -- model files and partial_fit ------------------------------------------------------------
@pytest.mark.parametrize("name", ["multinomial-map-sparse", "gda-shared", "columnwise"])
def test_estimator_is_saved_and_loaded(name, tmp_path):
    est, X, y = _config(name)
    model = SemiSupervisedNB(est, max_iter=10).fit(X, hide_labels(y, 24))
    path = tmp_path / "model.nc"
    model.estimator_.save(path)
    loaded = bnb.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_partial_fit_is_one_incremental_em_step():
    X, y, _ = count_data(seed=3, n=600)
    yy = hide_labels(y, 30)
    model = SemiSupervisedNB(bnb.MultinomialNB(alpha=2.0, estimate="map")).fit(X[:400], yy[:400])
    before = copy.deepcopy(model.estimator_)
    n_iter = model.n_iter_
    X2, y2 = X[400:], yy[400:].copy()
    y2[:10] = y[400:410]  # a few labelled rows in the batch too
    model.partial_fit(X2, y2)
    assert model.n_iter_ == n_iter + 1
    resp = before.predict_proba(X2[10:])  # the E-step under the estimate before the step
    expected = before.feature_count_ + np.eye(3)[y2[:10]].T @ X2[:10] + resp.T @ X2[10:]
    np.testing.assert_allclose(model.estimator_.feature_count_, expected, rtol=1e-12)
    counts = before.class_count_ + np.bincount(y2[:10], minlength=3) + resp.sum(axis=0)
    np.testing.assert_allclose(model.estimator_.class_count_, counts, rtol=1e-12)
    fresh = SemiSupervisedNB(bnb.MultinomialNB(alpha=2.0, estimate="map"))
    fresh.partial_fit(X[:400], yy[:400])
    np.testing.assert_array_equal(
        fresh.log_posterior_,
        SemiSupervisedNB(bnb.MultinomialNB(alpha=2.0, estimate="map"))
        .fit(X[:400], yy[:400])
        .log_posterior_,
    )


# -- labels and refusals ---------------------------------------------------------------------
def test_unlabelled_mask():
    import pandas as pd

    np.testing.assert_array_equal(unlabelled_mask([0, -1, 2, -1]), [False, True, False, True])
    np.testing.assert_array_equal(unlabelled_mask([1.0, -1.0]), [False, True])
    np.testing.assert_array_equal(unlabelled_mask(["a", "", "b"]), [False, True, False])
    y = np.array(["a", None, "", "b"], dtype=object)
    np.testing.assert_array_equal(unlabelled_mask(y), [False, True, True, False])
    np.testing.assert_array_equal(unlabelled_mask(pd.Series(["x", None])), [False, True])
    X, yy, _ = count_data()
    labels = np.array(["spam", "ham", "eggs"], dtype=object)[yy]
    labels[30:] = None
    model = SemiSupervisedNB(bnb.MultinomialNB(alpha=2.0, estimate="map")).fit(X, labels)
    assert sorted(model.classes_) == ["eggs", "ham", "spam"] and model.n_iter_ >= 1


@pytest.mark.parametrize(
    ("estimator", "message"),
    [
        (bnb.MultinomialNB(estimate="mean"), "estimate='mean'"),
        (bnb.MultinomialNB(estimate="bayes"), "estimate='bayes'"),
        (bnb.MultinomialNB(alpha="evidence", estimate="map"), "alpha='evidence'"),
        (bnb.MultinomialNB(alpha="loo", estimate="map"), "alpha='loo'"),
        (bnb.MultinomialNB(class_alpha="evidence", estimate="map"), "class_alpha='evidence'"),
        (bnb.MultinomialNB(temperature="loo", estimate="map"), "temperature='loo'"),
        (
            bnb.ColumnwiseNB([("w", bnb.MultinomialNB(estimate="mean"), [0, 1])]),
            "w__estimate='mean'",
        ),
    ],
)
def test_refused_estimators(estimator, message):
    X, y, _ = count_data()
    with pytest.raises(ValueError, match=message):
        SemiSupervisedNB(estimator).fit(X, hide_labels(y, 30))


def test_refused_inputs():
    X, y, _ = count_data()
    est = bnb.MultinomialNB(alpha=2.0, estimate="map")
    for lam in (-0.5, np.nan, np.inf, True, "1"):
        with pytest.raises(ValueError, match="unlabelled_weight must be a finite number >= 0"):
            SemiSupervisedNB(est, unlabelled_weight=lam).fit(X, hide_labels(y, 30))
    with pytest.raises(ValueError, match="needs labelled rows: every label"):
        SemiSupervisedNB(est).fit(X, np.full(len(y), -1))
    one = hide_labels(y, 30)
    one[one >= 0] = 1
    with pytest.raises(ValueError, match="at least 2 classes, got 1"):
        SemiSupervisedNB(est).fit(X, one)
    import dask.array as da

    with pytest.raises(ValueError, match="compute the Dask collections first"):
        SemiSupervisedNB(est).fit(da.from_array(X, chunks=100), hide_labels(y, 30))
    with pytest.raises(TypeError, match="not an estimator of a registered bayesnb family"):
        from sklearn.naive_bayes import MultinomialNB

        SemiSupervisedNB(MultinomialNB()).fit(X, hide_labels(y, 30))
    with pytest.raises(ValueError, match="one label per row"):
        SemiSupervisedNB(est).fit(X, y[:10])


def test_threaded_transposed_product_equals_scipy(monkeypatch):
    from bayesnb.scoring.blocks import csr_tdot

    monkeypatch.setenv("BAYESNB_NUM_THREADS", "4")
    X = sp.random(30_000, 500, density=0.02, format="csr", random_state=0) * 3.0
    R = np.random.default_rng(0).random((30_000, 7))
    assert X.nnz >= 1 << 18  # the threaded path
    expected = np.asarray(X.T @ R)
    np.testing.assert_allclose(csr_tdot(X, R), expected, rtol=1e-13, atol=1e-13 * expected.max())
    np.testing.assert_array_equal(csr_tdot(X, R), csr_tdot(X, R))  # same bits every call


def test_scikit_learn_checks():
    """scikit-learn's estimator checks pass, but two that contradict the semi-supervised
    contract: label -1 marks an unlabelled row (its binary checks use {-1, 1}), and fully
    labelled data is the supervised fit, with n_iter_ = 0 EM iterations."""
    from sklearn.utils.estimator_checks import check_estimator

    expected = {"check_classifiers_classes", "check_non_transformer_estimators_n_iter"}
    for est in (bnb.MultinomialNB(alpha=2.0, estimate="map"), bnb.GDA(estimate="map")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = check_estimator(SemiSupervisedNB(est), on_fail=None)
        failed = {r["check_name"] for r in results if r["status"] == "failed"}
        assert failed == expected, failed ^ expected
        assert len(results) > 50
