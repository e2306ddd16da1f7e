"""SemiSupervisedNB(inference="vb"): mean-field variational Bayes with unlabelled documents."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.optimize import minimize
from scipy.special import digamma, expit, gammaln, logsumexp
from sklearn.base import clone

import bayesnb as bnb
from bayesnb.families._protocol import Unsupported
from bayesnb.semisupervised import SemiSupervisedNB
from bayesnb.variational import expected_joint_log_proba, label_posterior
from tests.semisupervised_helpers import count_data, gaussian_data, hide_labels, keep_per_class

_NIW = bnb.priors.NormalInverseWishart(mu0=np.zeros(2), kappa0=0.5, nu0=5.0, psi0=np.eye(2))


def _config(name):
    X, y, _ = count_data()
    Xc = np.random.default_rng(1).integers(0, 3, size=(400, 4)).astype(float)
    Xc[:, 0] = np.where(np.random.default_rng(2).random(400) < 0.8, y, (y + 1) % 3)
    Xg, yg, _ = gaussian_data()
    return {
        "gda-shared": (bnb.GDA(), Xg, yg),
        "gda-per_class": (bnb.GDA(covariance="per_class", prior=_NIW), Xg, yg),
        "gda-diagonal": (bnb.GDA(covariance="diagonal", estimate="bayes"), Xg, yg),
        "multinomial-sparse": (bnb.MultinomialNB(alpha=0.5), sp.csr_matrix(X), y),
        "multinomial-unk": (bnb.MultinomialNB(alpha=1.5, class_alpha=2.0, unk=True), X, y),
        "bernoulli": (bnb.BernoulliNB(alpha=2.0, beta=3.0, estimate="bayes"), X, y),
        "poisson": (bnb.PoissonNB(alpha=2.0, beta=0.5), X, y),
        "categorical": (bnb.CategoricalNB(alpha=2.0, estimate="map"), Xc, y),
        "fixed-class-prior": (bnb.MultinomialNB(class_prior=[0.2, 0.3, 0.5]), X, y),
        "columnwise": (
            bnb.ColumnwiseNB(
                [
                    ("words", bnb.MultinomialNB(alpha=2.0), list(range(30))),
                    ("flags", bnb.BernoulliNB(), list(range(30, 34))),
                ],
            ),
            np.hstack([X, Xc > 1]),
            y,
        ),
    }[name]


CONFIGS = [
    *("multinomial-sparse", "multinomial-unk", "bernoulli", "poisson", "categorical"),
    *("fixed-class-prior", "columnwise"),
    *(f"gda-{covariance}" for covariance in ("shared", "per_class", "diagonal")),
]


# -- the ELBO never decreases ----------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("weight", [1.0, 0.3])
def test_elbo_never_decreases(name, weight):
    est, X, y = _config(name)
    model = SemiSupervisedNB(est, unlabelled_weight=weight, max_iter=15, inference="vb")
    model.fit(X, hide_labels(y, 24))
    elbo = model.elbo_
    assert model.n_iter_ >= 1 and elbo.shape == (model.n_iter_ + 1,)
    assert not hasattr(model, "log_posterior_")
    assert np.all(np.diff(elbo) >= -1e-10 * np.abs(elbo[1:])), np.diff(elbo)
    # It rises, unless the first update from the labelled-only posterior is already the fixed point.
    assert elbo[-1] > elbo[0] or (model.n_iter_ == 1 and model.converged_)


# -- no unlabelled information: the supervised fit and its log evidence, exactly --------------
@pytest.mark.parametrize("name", CONFIGS)
def test_weight_zero_and_all_labelled_are_the_supervised_fit(name):
    est, X, y = _config(name)
    supervised = clone(est).fit(X[:24], y[:24])
    zero = SemiSupervisedNB(est, unlabelled_weight=0.0, inference="vb").fit(X, hide_labels(y, 24))
    assert zero.n_iter_ == 0 and zero.converged_
    np.testing.assert_array_equal(
        zero.estimator_.predict_joint_log_proba(X), supervised.predict_joint_log_proba(X)
    )
    np.testing.assert_array_equal(zero.elbo_, [supervised.log_evidence()])
    full = SemiSupervisedNB(est, inference="vb").fit(X, y)
    whole = clone(est).fit(X, y)
    np.testing.assert_array_equal(
        full.estimator_.predict_joint_log_proba(X), whole.predict_joint_log_proba(X)
    )
    assert full.n_iter_ == 0 and full.elbo_[0] == whole.log_evidence()


# -- a tiny data set: brute force over every labelling and over the mean-field objective -------
def _tiny():
    X = np.array(
        [[1, 0, 1], [1, 1, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 0]],
        dtype=float,
    )
    y = np.array([0, 0, 1, 1, -1, -1, -1, -1])
    return X, y, bnb.BernoulliNB(alpha=1.5, beta=0.8, class_alpha=2.0)


def _soft_fit(est, Xl, yl, Xu, r):
    """The supervised fit whose statistics are the labelled ones plus r_ic of unlabelled row i
    in class c: each unlabelled row once per class, weighted r_ic (no soft statistics used)."""
    k = r.shape[1]
    X = np.vstack([Xl, np.repeat(Xu, k, axis=0)])
    y = np.concatenate([yl, np.tile(np.arange(k), len(Xu))])
    w = np.concatenate([np.ones(len(yl)), r.ravel()])
    return clone(est).fit(X, y, sample_weight=w)


def _objective(est, Xl, yl, Xu, r):
    """The mean-field objective F(q*(r), r) by its definition: E_q[log p(θ) − log q(θ)] and the
    expected log-likelihoods, each from scipy's Beta / Dirichlet entropies and digammas."""
    fit = _soft_fit(est, Xl, yl, Xu, r)
    a = fit.posterior_.a
    b = np.broadcast_to(fit.posterior_.b, a.shape)
    e_log_p, e_log_q = digamma(a) - digamma(a + b), digamma(b) - digamma(a + b)
    al, be = est.alpha, est.beta
    prior = (al - 1) * e_log_p + (be - 1) * e_log_q - (gammaln(al) + gammaln(be) - gammaln(al + be))
    value = prior.sum() + stats.beta(a, b).entropy().sum()
    g = np.full(2, est.class_alpha) + fit.class_count_
    e_log_pi = digamma(g) - digamma(g.sum())
    value += gammaln(2 * est.class_alpha) - 2 * gammaln(est.class_alpha)
    value += (est.class_alpha - 1) * e_log_pi.sum() + stats.dirichlet(g).entropy()
    ell = Xl @ e_log_p.T + (1 - Xl) @ e_log_q.T + e_log_pi
    value += ell[np.arange(len(yl)), yl].sum()
    ellu = Xu @ e_log_p.T + (1 - Xu) @ e_log_q.T + e_log_pi
    return value + np.sum(r * (ellu - np.log(r)))


def test_elbo_is_the_mean_field_objective_below_the_brute_force_evidence():
    X, y, est = _tiny()
    lab = y >= 0
    Xl, yl, Xu = X[lab], y[lab], X[~lab]
    model = SemiSupervisedNB(est, inference="vb", tol=1e-14, max_iter=500).fit(X, y)
    assert model.converged_
    elbo = model.elbo_[-1]
    # log p(X, y_lab) = log Σ over the 2^4 labellings of the unlabelled rows.
    joint = [
        clone(est).fit(X, np.concatenate([yl, z])).log_evidence()
        for z in itertools.product([0, 1], repeat=len(Xu))
    ]
    evidence = logsumexp(joint)
    assert elbo < evidence and evidence - elbo < 1.0
    # F(q*(r), r) at the final q(z) by the definition equals the recorded closed form.
    r = label_posterior(model.estimator_, Xu)
    assert _objective(est, Xl, yl, Xu, r) == pytest.approx(elbo, abs=1e-9)

    # The brute-force maximum of the mean-field objective over q(z) (q(θ) optimal given it).
    def neg(t):
        p = expit(t)
        return -_objective(est, Xl, yl, Xu, np.column_stack([1 - p, p]))

    rng = np.random.default_rng(0)
    best = max(
        -minimize(neg, t0, method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-13}).fun
        for t0 in rng.normal(scale=3.0, size=(4, len(Xu)))
    )
    assert elbo == pytest.approx(best, abs=1e-7)
    # And a random q(z) scores below it.
    r_any = rng.dirichlet([1, 1], size=len(Xu))
    assert _objective(est, Xl, yl, Xu, r_any) < elbo


def test_vb_variances_are_smaller_than_the_exact_posterior():
    # The exact posterior is the mixture over every labelling z of the conjugate posteriors,
    # weighted p(z | data) ∝ the evidence of each completed data set.
    X, y, est = _tiny()
    lab = y >= 0
    fits = [
        clone(est).fit(X, np.concatenate([y[lab], z]))
        for z in itertools.product([0, 1], repeat=int((~lab).sum()))
    ]
    log_w = np.array([f.log_evidence() for f in fits])
    w = np.exp(log_w - logsumexp(log_w))
    means = np.array([f.posterior_.mean() for f in fits])
    mean = np.einsum("s,sij->ij", w, means)
    var = np.einsum("s,sij->ij", w, np.array([f.posterior_.var() for f in fits]) + means**2)
    var -= mean**2
    q = SemiSupervisedNB(est, inference="vb", tol=1e-14, max_iter=500).fit(X, y).estimator_
    ratio = q.posterior_.var() / var
    # Mean field drops the between-labelling spread of the means: 0.73 to 0.88 here.
    assert np.all(ratio < 0.9) and np.all(ratio > 0.7), ratio
    np.testing.assert_allclose(q.posterior_.mean(), mean, atol=0.04)


def test_elbo_closed_form_equals_the_definition_at_any_q_z():
    X, y, est = _tiny()
    lab = y >= 0
    Xl, yl, Xu = X[lab], y[lab], X[~lab]
    r = np.random.default_rng(3).dirichlet([0.5, 0.5], size=len(Xu))
    fit = _soft_fit(est, Xl, yl, Xu, r)
    entropy = -np.sum(r * np.log(r))
    assert fit.log_evidence() + entropy == pytest.approx(_objective(est, Xl, yl, Xu, r), abs=1e-10)


# -- E_q[log p(x, c | θ)] is the derivative of the log evidence in the weight of (x, c) --------
@pytest.mark.parametrize(
    "name",
    ["multinomial-sparse", "bernoulli", "poisson", "categorical", "columnwise", "gda-per_class"],
)
def test_expected_log_likelihood_is_the_evidence_derivative(name):
    # log Z(S + w·s(x, c)) has derivative E_q[log π_c + log p(x | θ_c)] at w = 0 (the
    # exponential family's log partition), an independent check of every digamma table.
    est, X, y = _config(name)
    if name == "gda-per_class":
        est = bnb.GDA(covariance="per_class", prior=_NIW)
    Xl, yl, x = X[:30], y[:30], X[30:31]
    base = clone(est).fit(Xl, yl)
    f0 = base.log_evidence()
    expected = expected_joint_log_proba(base, x)[0]
    h = 1e-4
    for c in range(3):

        def f(w, c=c):
            stacked = sp.vstack([Xl, x]) if sp.issparse(X) else np.vstack([Xl, x])
            weights = np.concatenate([np.ones(30), [w]])
            return clone(est).fit(stacked, np.r_[yl, c], sample_weight=weights).log_evidence()

        # Richardson extrapolation of the one-sided difference: error O(h²).
        slope = 2 * (f(h) - f0) / h - (f(2 * h) - f0) / (2 * h)
        assert slope == pytest.approx(expected[c], rel=1e-7, abs=1e-6), (c, slope, expected[c])


def test_gda_expected_log_likelihood_is_the_mean_over_exact_draws():
    X, y, _ = gaussian_data(seed=3, n=40)
    for covariance in ("shared", "per_class", "diagonal"):
        fit = bnb.GDA(covariance=covariance, prior=_NIW).fit(X[:20], y[:20])
        expected = expected_joint_log_proba(fit, X[20:23]) - fit.class_posterior_.log_expectation()
        post = fit.sample_posterior(draws=5000, chains=1, random_seed=1)["posterior"]
        mean, cov = post["mean"].values[0], post["cov"].values[0]
        if covariance == "diagonal" and cov.ndim == 3:
            cov = np.stack([np.diag(v) for v in cov.reshape(-1, 2)]).reshape(*cov.shape, 2)
        cov = np.broadcast_to(cov[:, None] if cov.ndim == 3 else cov, (5000, 3, 2, 2))
        diff = X[20:23, None, None, :] - mean[None]
        maha = np.einsum("nsci,scij,nscj->nsc", diff, np.linalg.inv(cov), diff)
        logpdf = -0.5 * (maha + np.log(np.linalg.det(cov))[None] + 2 * np.log(2 * np.pi))
        se = logpdf.std(axis=1) / np.sqrt(5000)
        assert np.all(np.abs(logpdf.mean(axis=1) - expected) <= 5 * se), covariance


# -- q(z) is the digamma formula; the fit is its fixed point -----------------------------------
def test_label_posterior_is_the_digamma_formula_and_a_fixed_point():
    X, y, _ = count_data(seed=4, n=200, v=12, length=20)
    yy = hide_labels(y, 15)
    alpha, gamma = 0.7, 1.3
    model = SemiSupervisedNB(
        bnb.MultinomialNB(alpha=alpha, class_alpha=gamma, estimate="bayes"),
        inference="vb",
        tol=1e-14,
        max_iter=500,
    ).fit(X, yy)
    assert model.converged_
    fit = model.estimator_
    n_c, t_cj = fit.class_count_, fit.feature_count_
    conc = t_cj + alpha
    e_log_theta = digamma(conc) - digamma(conc.sum(axis=1, keepdims=True))
    e_log_pi = digamma(n_c + gamma) - digamma(n_c.sum() + 3 * gamma)
    x = X[40]
    log_r = e_log_pi + e_log_theta @ x
    by_hand = log_r - logsumexp(log_r)
    np.testing.assert_allclose(np.log(label_posterior(fit, X[40:41])[0]), by_hand, rtol=1e-10)
    np.testing.assert_allclose(expected_joint_log_proba(fit, X[40:41])[0], log_r, rtol=1e-12)
    # Not the point estimate's responsibilities: the digamma table is no normalised θ.
    assert np.abs(fit.predict_log_proba(X[40:41])[0] - by_hand).max() > 1e-3
    # At convergence q(θ) is the posterior of the labelled plus soft statistics of q(z).
    rows = yy == -1
    r = label_posterior(fit, X[rows])
    expected = np.eye(3)[y[:15]].T @ X[:15] + r.T @ X[rows]
    np.testing.assert_allclose(t_cj, expected, rtol=1e-7)
    np.testing.assert_allclose(n_c, np.bincount(y[:15], minlength=3) + r.sum(axis=0), rtol=1e-7)


# -- on data from the model the pool helps -----------------------------------------------------
def test_unlabelled_pool_helps_held_out_accuracy_and_log_likelihood():
    k, n_pool = 3, 1500
    gains, ll_gains = [], []
    for seed in range(3):
        X, y, _ = count_data(seed=10 + seed, n=n_pool + 1000, k=k, v=40, length=15, conc=1.0)
        train, test = slice(0, n_pool), slice(n_pool, None)
        yy = keep_per_class(y[train], 2)
        labelled = np.flatnonzero(yy != -1)
        est = bnb.MultinomialNB(alpha=1.0, estimate="bayes")
        sup = clone(est).fit(X[labelled], y[labelled])
        vb = SemiSupervisedNB(est, inference="vb").fit(X[train], yy)
        idx = np.arange(len(y[test]))
        gains.append(vb.score(X[test], y[test]) - sup.score(X[test], y[test]))
        ll_gains.append(
            vb.predict_log_proba(X[test])[idx, y[test]].mean()
            - sup.predict_log_proba(X[test])[idx, y[test]].mean()
        )
    assert min(gains) > 0.05 and np.mean(gains) > 0.1, gains
    assert min(ll_gains) > 0, ll_gains


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("covariance", ["shared", "per_class", "diagonal"])
def test_gda_unlabelled_pool_helps(covariance):
    # 3 labelled per class and 391 unlabelled; the diagonal model is misspecified (the
    # classes are correlated), so only its mean log-likelihood gain is asserted.
    gains, ll_gains = [], []
    for seed in range(3):
        X, y, _ = gaussian_data(seed=20 + seed, n=1400)
        yy = keep_per_class(y[:400], 3)
        lab = yy != -1
        est = bnb.GDA(covariance=covariance, estimate="bayes")
        sup = clone(est).fit(X[:400][lab], y[:400][lab])
        vb = SemiSupervisedNB(est, inference="vb").fit(X[:400], yy)
        idx = np.arange(1000)
        gains.append(vb.score(X[400:], y[400:]) - sup.score(X[400:], y[400:]))
        ll_gains.append(
            vb.predict_log_proba(X[400:])[idx, y[400:]].mean()
            - sup.predict_log_proba(X[400:])[idx, y[400:]].mean()
        )
    assert min(gains) > 0 and np.mean(gains) > 0.05, gains
    assert np.mean(ll_gains) > 0.1, ll_gains


# -- every estimator path reads q(θ) -----------------------------------------------------------
def test_posterior_paths_and_files(tmp_path):
    est, X, y = _config("poisson")
    model = SemiSupervisedNB(est, inference="vb", max_iter=10).fit(X, hide_labels(y, 24))
    fit = model.estimator_
    post = fit.posterior_
    point = fit.point_estimate("mean")["posterior"]["feature_rate"].values[0, 0]
    np.testing.assert_allclose(point, post.mean(), rtol=1e-12)
    draws = fit.sample_posterior(draws=500, chains=4, random_seed=0)["posterior"]["feature_rate"]
    mean = draws.values.reshape(-1, *post.mean().shape).mean(axis=0)
    assert np.all(np.abs(mean - post.mean()) <= 5 * np.sqrt(post.var() / 2000))
    path = tmp_path / "model.nc"
    fit.save(path)
    loaded = bnb.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_allclose(loaded.log_evidence(), fit.log_evidence(), rtol=1e-12)


def test_partial_fit_is_one_incremental_vb_step():
    X, y, _ = count_data(seed=3, n=600)
    yy = hide_labels(y, 30)
    model = SemiSupervisedNB(bnb.MultinomialNB(alpha=2.0), inference="vb").fit(X[:400], yy[:400])
    before = model.estimator_.feature_count_.copy(), model.estimator_.class_count_.copy()
    resp = label_posterior(model.estimator_, X[400:])
    model.partial_fit(X[400:], yy[400:])
    np.testing.assert_allclose(model.estimator_.feature_count_, before[0] + resp.T @ X[400:])
    np.testing.assert_allclose(model.estimator_.class_count_, before[1] + resp.sum(axis=0))


# -- refusals ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "estimator",
    [bnb.DirichletCompoundNB()],
)
def test_families_without_vb_are_refused(estimator):
    rng = np.random.default_rng(0)
    X = rng.poisson(2.0, size=(40, 3)).astype(float) + 1.0
    y = hide_labels(np.arange(40) % 2, 10)
    with pytest.raises(Unsupported, match="variational Bayes"):
        SemiSupervisedNB(estimator, inference="vb").fit(X, y)


def test_refused_settings():
    X, y, _ = count_data(n=60)
    yy = hide_labels(y, 20)
    with pytest.raises(ValueError, match="inference must be 'em' or 'vb'"):
        SemiSupervisedNB(bnb.MultinomialNB(), inference="nuts").fit(X, yy)
    with pytest.raises(ValueError, match="class_alpha > 0"):
        SemiSupervisedNB(bnb.MultinomialNB(class_alpha=0.0), inference="vb").fit(X, yy)
    Xm = X.copy()
    Xm[30, 2] = np.nan
    with pytest.raises(ValueError, match="not conjugate"):
        SemiSupervisedNB(bnb.MultinomialNB(missing="ignore"), inference="vb").fit(Xm, yy)
    Xg, yg, _ = gaussian_data(n=60)
    Xg[40, 1] = np.nan
    with pytest.raises(ValueError, match="complete rows for GDA"):
        SemiSupervisedNB(bnb.GDA(missing="ignore"), inference="vb").fit(Xg, hide_labels(yg, 20))
    # EM still refuses a non-point estimate; VB scores with any.
    with pytest.raises(ValueError, match="runs EM to the MAP"):
        SemiSupervisedNB(bnb.MultinomialNB(estimate="bayes")).fit(X, yy)
