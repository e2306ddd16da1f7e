"""Missing values: ``missing="error"|"ignore"`` on every model.

``"ignore"`` marginalises missing features out exactly when scoring (naive Bayes drops their
factors, the multinomial renormalises φ over the observed features, GDA takes the Gaussian /
Student-t marginal of the observed coordinates) and counts statistics over observed values.
Every test compares with an independent computation: a model fitted on the observed columns
only, scipy's densities on the sub-vector, per-feature sub-fits, or brute-force enumeration.
"""

from __future__ import annotations

import itertools
import warnings
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import gammaln, logsumexp
from scipy.stats import multivariate_normal, multivariate_t
from scipy.stats import t as student_t
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

import bayesnb as bnb
from bayesnb.draws import posterior_draws
from bayesnb.evidence import _class_log_evidence
from bayesnb.loo import label_log_likelihood_draws
from bayesnb.scoring.discrete import observed_mass_correction, polya_jll
from bayesnb.validation import MissingValueWarning
from tests.missing_helpers import (
    assert_counts_observed_documents,
    assert_nan_error_names_cells,
    assert_scores_equal_observed_columns,
    quiet,
    sparse_nan,
    with_nan,
)

ESTIMATES = ("mle", "map", "mean", "bayes")
NB = (bnb.MultinomialNB, bnb.BernoulliNB, bnb.CategoricalNB)
COVARIANCES = ("shared", "per_class", "diagonal")


def _nb(cls, estimate, **kw):
    # MAP needs alpha >= 1 for an interior mode; 2 keeps it distinct from the mean.
    alpha = 2.0 if estimate == "map" else 0.7
    return cls(alpha=alpha, estimate=estimate, **kw)


def _counts(seed=0, n=90, d=6, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rates = 0.4 + rng.random((k, d)) * 2.0
    X = rng.poisson(rates[y]).astype(np.float64)
    X[:k, :] = 3.0  # every category 0..3 is seen in every column (same k_j for sub-fits)
    X[k : 2 * k, :] = 0.0
    y[:k] = np.arange(k)
    y[k : 2 * k] = np.arange(k)
    return X, y


def _gaussian(seed=0, n=120, d=4, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    A = rng.normal(size=(d, d))
    X = rng.normal(size=(n, d)) @ A + 2.0 * y[:, None] + 5.0
    return X, y


# -- "ignore" without NaN is today's model, bit for bit ----------------------------------------
@pytest.mark.parametrize("estimate", ESTIMATES)
@pytest.mark.parametrize("cls", NB, ids=lambda c: c.__name__)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_ignore_without_nan_is_unchanged_nb(cls, estimate, sparse):
    X, y = _counts()
    Xf = sp.csr_matrix(X) if sparse else X
    ref = _nb(cls, estimate).fit(Xf, y)
    got = _nb(cls, estimate, missing="ignore").fit(Xf, y)
    assert_array_equal(got.predict_joint_log_proba(Xf), ref.predict_joint_log_proba(Xf))
    assert_array_equal(got.predict_proba(Xf), ref.predict_proba(Xf))
    assert got.log_evidence() == ref.log_evidence()


@pytest.mark.parametrize("estimate", ESTIMATES)
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_ignore_without_nan_is_unchanged_gda(covariance, estimate):
    X, y = _gaussian()
    ref = bnb.GDA(covariance=covariance, estimate=estimate).fit(X, y)
    got = bnb.GDA(covariance=covariance, estimate=estimate, missing="ignore").fit(X, y)
    assert_array_equal(got.predict_joint_log_proba(X), ref.predict_joint_log_proba(X))
    assert_array_equal(got.predict_proba(X), ref.predict_proba(X))
    assert_array_equal(got.class_count_, ref.class_count_)
    assert got.log_evidence() == ref.log_evidence()


# -- scoring: marginal == model of the observed columns ----------------------------------------
@pytest.mark.parametrize("estimate", ESTIMATES)
@pytest.mark.parametrize("cls", NB, ids=lambda c: c.__name__)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_nb_scores_equal_a_model_of_the_observed_columns(cls, estimate, sparse):
    X, y = _counts()
    Xt, _ = _counts(seed=5, n=30)
    Xn = with_nan(Xt, seed=2, rate=0.3)
    Xn[0] = np.nan  # nothing observed: the class prior alone
    model = _nb(cls, estimate, missing="ignore").fit(X, y)
    assert_scores_equal_observed_columns(model, lambda: _nb(cls, estimate), X, y, Xt, Xn, sparse)


def _student_t_logpdf(model, c, x, obs):
    """Marginal Student-t log density of x_O under class c, from the NIW posterior."""
    post = model.posterior_
    kappa, mu = post.kappa[c], post.mu[c]
    kind = post.covariance_type
    psi = post.psi if kind == "shared" else post.psi[c]
    psi = np.diag(psi) if kind == "diagonal" else psi
    nu = post.nu if kind == "shared" else post.nu[c]
    dof = nu - model.n_features_in_ + 1.0
    shape = psi * (kappa + 1.0) / (kappa * dof)
    if kind == "diagonal":  # independent univariate t's, each with ν − d + 1 dof
        return sum(
            student_t(df=dof, loc=mu[j], scale=np.sqrt(shape[j, j])).logpdf(x[j]) for j in obs
        )
    return multivariate_t(mu[obs], shape[np.ix_(obs, obs)], df=dof).logpdf(x[obs])


@pytest.mark.parametrize("estimate", ESTIMATES)
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_gda_scores_are_scipy_marginal_densities(covariance, estimate):
    X, y = _gaussian()
    Xt, _ = _gaussian(seed=3, n=12)
    Xn = Xt.copy()
    Xn[0:3, 1] = np.nan
    Xn[3:6, [0, 2]] = np.nan
    Xn[6, :3] = np.nan
    Xn[7] = np.nan
    model = bnb.GDA(covariance=covariance, estimate=estimate, missing="ignore").fit(X, y)
    jll = model.predict_joint_log_proba(Xn) - model.class_log_prior_
    want = np.zeros_like(jll)
    for i in range(Xn.shape[0]):
        obs = np.flatnonzero(~np.isnan(Xn[i]))
        if obs.size == 0:
            continue
        for c in range(3):
            if estimate == "bayes":
                want[i, c] = _student_t_logpdf(model, c, Xn[i], obs)
                continue
            cov = model.covariance_ if covariance == "shared" else model.covariance_[c]
            cov = np.diag(cov) if covariance == "diagonal" else cov
            mvn = multivariate_normal(model.means_[c, obs], cov[np.ix_(obs, obs)])
            want[i, c] = mvn.logpdf(Xn[i, obs])
    assert_allclose(jll, want, rtol=1e-11, atol=1e-11)
    # predict_proba (the linear path for the shared model) normalises the same joint.
    p = model.predict_proba(Xn)
    assert_allclose(
        p,
        np.exp(
            want
            + model.class_log_prior_
            - logsumexp(want + model.class_log_prior_, axis=1, keepdims=True)
        ),
        rtol=1e-10,
        atol=1e-14,
    )
    assert_array_equal(model.predict(Xn), model.classes_[np.argmax(p, axis=1)])


# -- the multinomial marginal, by brute force --------------------------------------------------
def _sequences(n, V):
    return itertools.product(range(V), repeat=n)


def _subsequence(seq, observed):
    return tuple(t for t in seq if t in observed)


def test_multinomial_marginal_by_brute_force():
    """P(observed tokens | their number) by enumerating every token sequence.

    Tokens are i.i.d. from φ (the point estimates) or from the Pólya urn (the ``"bayes"``
    predictive, φ ~ Dirichlet(a) integrated out); features 1 and 3 are missing (their tokens
    unseen). Enumerating all length-n sequences over V = 4 and conditioning on the number of
    observed tokens must give exactly what scoring computes for the observed counts.
    """
    V, n = 4, 4
    observed = (0, 2)
    missing = np.array([[False, True, False, True]])
    phi = np.array([0.1, 0.45, 0.15, 0.3])
    a = np.array([0.7, 2.0, 1.3, 0.4])

    def seq_prob_iid(seq):
        return float(np.prod(phi[list(seq)]))

    def seq_prob_polya(seq):
        counts = np.bincount(seq, minlength=V)
        A = a.sum()
        return float(
            np.exp(gammaln(A) - gammaln(A + len(seq)) + np.sum(gammaln(a + counts) - gammaln(a)))
        )

    for seq_prob, name in ((seq_prob_iid, "iid"), (seq_prob_polya, "polya")):
        by_sub: dict[tuple, float] = {}
        by_len = np.zeros(n + 1)
        for seq in _sequences(n, V):
            p = seq_prob(seq)
            sub = _subsequence(seq, observed)
            by_sub[sub] = by_sub.get(sub, 0.0) + p
            by_len[len(sub)] += p
        assert abs(sum(by_sub.values()) - 1.0) < 1e-12
        for sub, p in by_sub.items():
            brute = np.log(p / by_len[len(sub)])  # one particular observed token sequence
            x = np.bincount(np.asarray(sub, dtype=np.intp), minlength=V).astype(float)[None, :]
            if name == "iid":
                log_phi = np.log(phi)[None, :]
                got = x @ log_phi.T + observed_mass_correction(x, missing, log_phi)
            else:
                got = polya_jll(x, a[None, :], missing=missing)
            assert_allclose(got[0, 0], brute, rtol=1e-12, atol=1e-12)


# -- counting: statistics over observed values -------------------------------------------------
@pytest.mark.parametrize("estimate", ESTIMATES)
def test_bernoulli_counts_observed_documents_per_feature(estimate):
    X, y = _counts()
    Xn = with_nan(X, seed=4, rate=0.25, keep_rows=6)
    w = np.random.default_rng(0).integers(1, 4, X.shape[0]).astype(float)
    model = _nb(bnb.BernoulliNB, estimate, missing="ignore").fit(Xn, y, sample_weight=w)

    def same_feature(model, sub, j):
        # Beta(α + D_cj, β + N_cj − D_cj) with N_cj the observed documents.
        post = model.posterior_
        assert_allclose(post.a[:, j], sub.posterior_.a[:, 0], rtol=1e-14)
        assert_allclose(post.b[:, j], sub.posterior_.b[:, 0], rtol=1e-14)
        assert_allclose(
            model.feature_log_prob_[:, j], sub.feature_log_prob_[:, 0], rtol=1e-13, atol=0
        )

    make_sub = partial(_nb, bnb.BernoulliNB, estimate)
    assert_counts_observed_documents(model, make_sub, X, Xn, y, w, same_feature)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_categorical_counts_skip_missing(sparse):
    X, y = _counts()
    Xn = with_nan(X, seed=6, rate=0.25, keep_rows=6)
    model = bnb.CategoricalNB(missing="ignore").fit(sparse_nan(Xn) if sparse else Xn, y)
    for j in range(X.shape[1]):
        rows = ~np.isnan(Xn[:, j])
        sub = bnb.CategoricalNB().fit(X[rows][:, [j]], y[rows])
        assert_array_equal(model.category_count_[j], sub.category_count_[0])
        assert_allclose(model.feature_log_prob_[j], sub.feature_log_prob_[0], rtol=1e-14)
    assert_array_equal(model.class_count_, np.bincount(y))


def test_multinomial_counts_skip_missing_and_warn():
    X, y = _counts()
    Xn = with_nan(X, seed=7, rate=0.2)
    with pytest.warns(MissingValueWarning, match="zero tokens"):
        model = bnb.MultinomialNB(missing="ignore").fit(Xn, y)
    ref = bnb.MultinomialNB().fit(np.nan_to_num(Xn), y)
    assert_array_equal(model.feature_count_, ref.feature_count_)
    assert_array_equal(model.length_count_.toarray(), ref.length_count_.toarray())


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_gda_fits_complete_rows_and_counts_every_label(covariance):
    X, y = _gaussian()
    Xn = with_nan(X, seed=8, rate=0.1)
    complete = ~np.isnan(Xn).any(axis=1)
    with pytest.warns(MissingValueWarning, match=f"{(~complete).sum()} of {X.shape[0]} row"):
        model = bnb.GDA(covariance=covariance, missing="ignore").fit(Xn, y)
    ref = bnb.GDA(covariance=covariance).fit(X[complete], y[complete])
    assert_array_equal(model.class_count_, np.bincount(y))
    assert_allclose(model._stats.mean, ref._stats.mean, rtol=1e-14)
    assert_allclose(model._stats.scatter, ref._stats.scatter, rtol=1e-13)
    assert_allclose(model.means_, ref.means_, rtol=1e-14)
    # Same Gaussian part; the class prior differs (it uses every label).
    diff = model.log_evidence() - ref.log_evidence()
    assert_allclose(diff, _class_log_evidence(model) - _class_log_evidence(ref), rtol=1e-10)


def test_gda_with_no_complete_row_is_refused():
    X, y = _gaussian(n=20)
    X[:, 0] = np.nan
    with pytest.warns(MissingValueWarning), pytest.raises(ValueError, match="complete rows"):
        bnb.GDA(missing="ignore").fit(X, y)


# -- partial_fit, sparse, distributed ----------------------------------------------------------
@pytest.mark.parametrize(
    "model",
    [
        bnb.MultinomialNB(missing="ignore"),
        bnb.MultinomialNB(missing="ignore", estimate="bayes", alpha="evidence"),
        bnb.BernoulliNB(missing="ignore", binarize=1.0),
        bnb.BernoulliNB(missing="ignore", alpha="evidence"),
        bnb.CategoricalNB(missing="ignore"),
    ],
    ids=repr,
)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_partial_fit_equals_fit_and_sparse_equals_dense(model, sparse):
    X, y = _counts()
    Xn = with_nan(X, seed=9, rate=0.2)
    Xf = sparse_nan(Xn) if sparse else Xn
    Xt = with_nan(_counts(seed=3, n=25)[0], seed=10, rate=0.3)
    whole = quiet(clone(model).fit, Xn, y)
    parts = clone(model)
    for rows in np.array_split(np.arange(X.shape[0]), 3):
        quiet(parts.partial_fit, Xf[rows], y[rows], classes=[0, 1, 2])
    assert_allclose(parts.feature_count_, whole.feature_count_, rtol=1e-14)
    if isinstance(model, bnb.BernoulliNB):
        assert_allclose(parts.missing_count_, whole.missing_count_, rtol=1e-14)
    assert_allclose(parts.alpha_, whole.alpha_, rtol=1e-9)
    Xtf = sparse_nan(Xt) if sparse else Xt
    assert_allclose(parts.predict_proba(Xtf), whole.predict_proba(Xt), rtol=1e-9, atol=1e-15)
    assert_allclose(parts.log_evidence(), whole.log_evidence(), rtol=1e-12)


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_gda_partial_fit_equals_fit(covariance):
    X, y = _gaussian()
    Xn = with_nan(X, seed=11, rate=0.08)
    whole = quiet(bnb.GDA(covariance=covariance, missing="ignore").fit, Xn, y)
    parts = bnb.GDA(covariance=covariance, missing="ignore")
    for rows in np.array_split(np.arange(X.shape[0]), 4):
        quiet(parts.partial_fit, Xn[rows], y[rows], classes=[0, 1, 2])
    assert_array_equal(parts.class_count_, whole.class_count_)
    assert_allclose(parts._stats.scatter, whole._stats.scatter, rtol=1e-12)
    Xt = with_nan(_gaussian(seed=4, n=20)[0], seed=12, rate=0.3)
    assert_allclose(parts.predict_proba(Xt), whole.predict_proba(Xt), rtol=1e-10, atol=1e-14)


def test_distributed_fit_with_nan():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    from bayesnb import distributed

    X, y = _counts(n=120)
    Xn = with_nan(X, seed=13, rate=0.2)
    Xn[:40] = np.nan_to_num(Xn[:40])  # a chunk without NaN: its missing count is a scalar 0
    yd = da.from_array(y, chunks=40)
    for model in (bnb.BernoulliNB(missing="ignore"), bnb.CategoricalNB(missing="ignore")):
        ref = clone(model).fit(Xn, y)
        with dask.config.set(scheduler="sync"):
            got = distributed.fit(clone(model), da.from_array(Xn, chunks=(40, 6)), yd)
        assert_array_equal(got.feature_count_, ref.feature_count_)
        assert_array_equal(got.predict_proba(Xn), ref.predict_proba(Xn))
    Xg, yg = _gaussian(n=120)
    Xg = with_nan(Xg, seed=14, rate=0.05)
    ref = quiet(bnb.GDA(missing="ignore").fit, Xg, yg)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingValueWarning)
        ydg = da.from_array(yg, chunks=40)
        got = distributed.fit(bnb.GDA(missing="ignore"), da.from_array(Xg, chunks=(40, 4)), ydg)
    assert_array_equal(got.class_count_, ref.class_count_)
    assert_allclose(got.predict_proba(Xg), ref.predict_proba(Xg), rtol=1e-10)


# -- "error" -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "model", [bnb.MultinomialNB(), bnb.BernoulliNB(), bnb.CategoricalNB(), bnb.GDA()], ids=repr
)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_error_names_rows_and_columns(model, sparse):
    if sparse and isinstance(model, bnb.GDA):
        pytest.skip("GDA takes dense input")
    X, y = _counts()
    fitted = assert_nan_error_names_cells(model, X, y, sparse)
    many = X.copy()
    many[:9, :] = np.nan
    with pytest.raises(ValueError, match=r"rows \[0, 1, 2, 3, 4\] \(first 5 of 9\)"):
        fitted.predict(many)


def test_error_message_uses_feature_names():
    pd = pytest.importorskip("pandas")
    X, y = _counts()
    frame = pd.DataFrame(X, columns=[f"w{j}" for j in range(X.shape[1])])
    model = bnb.MultinomialNB().fit(frame, y)
    frame.iloc[1, 3] = np.nan
    with pytest.raises(ValueError, match=r"columns \['3 \(w3\)'\]"):
        model.predict(frame)


def test_infinity_is_refused_even_when_ignoring_and_bad_values_still_checked():
    X, y = _counts()
    Xi = X.copy()
    Xi[2, 1] = np.inf
    with pytest.raises(ValueError, match=r"infinity in 1 entry .* rows \[2\], columns \[1\]"):
        bnb.MultinomialNB(missing="ignore").fit(Xi, y)
    Xn = with_nan(X, rate=0.1)
    Xn[5, 0] = -1.0
    with pytest.raises(ValueError, match="Negative values"):
        bnb.MultinomialNB(missing="ignore").fit(Xn, y)
    Xn[5, 0] = 0.5
    with pytest.raises(ValueError, match="Non-integer"):
        bnb.CategoricalNB(missing="ignore").fit(Xn, y)
    with pytest.raises(ValueError, match="missing must be one of"):
        bnb.BernoulliNB(missing="drop").fit(X, y)


# -- downstream workflow -----------------------------------------------------------------------
def test_bernoulli_posterior_draws_use_observed_trials():
    X, y = _counts()
    Xn = with_nan(X, seed=15, rate=0.4)
    model = bnb.BernoulliNB(missing="ignore").fit(Xn, y)
    draws = posterior_draws(model, draws=20000, chains=1, random_seed=0)["feature_prob"][0]
    post = model.posterior_
    mean, sd = post.mean(), np.sqrt(post.var())
    # Exact Beta(α + D_cj, β + N_cj − D_cj) draws: the mean within 5 Monte Carlo SE.
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 5 * sd / np.sqrt(20000))
    # N_cj < N_c here, so the posterior with N_c would be visibly different.
    wrong = (post.a) / (post.a + post.b + model.missing_count_)
    assert np.max(np.abs(wrong - mean)) > 20 * np.max(sd / np.sqrt(20000))


def test_label_log_likelihood_marginalises_like_predict():
    X, y = _counts()
    Xn = with_nan(X, seed=16, rate=0.2)
    seed, n_draws = 3, 40
    for model in (
        bnb.BernoulliNB(missing="ignore").fit(Xn, y),
        bnb.CategoricalNB(missing="ignore").fit(Xn, y),
        quiet(bnb.MultinomialNB(missing="ignore").fit, Xn, y),
    ):
        got, _ = label_log_likelihood_draws(model, Xn, y, draws=n_draws, random_seed=seed)
        values = posterior_draws(
            model, draws=n_draws, chains=1, random_seed=np.random.default_rng(seed)
        )
        for s in (0, 17, 39):
            # One draw as a point-estimate model: its own predict_log_proba marginalises.
            point = clone(model).set_params(estimate="mle")
            point.__dict__.update({k: v for k, v in model.__dict__.items() if k.endswith("_")})
            theta = values["feature_prob"][0, s]
            log_pi = np.log(values["class_prior"][0, s])
            if isinstance(model, bnb.CategoricalNB):
                k = model.n_categories_
                flat = np.concatenate([theta[:, j, : kj + 1] for j, kj in enumerate(k)], axis=1)
                tables = {"feature_log_prob": np.log(flat)}
            elif isinstance(model, bnb.BernoulliNB):
                tables = {"feature_log_prob": (np.log(theta), np.log1p(-theta))}
            else:
                tables = {"feature_log_prob": np.log(theta)}
            tables["class_log_prior"] = log_pi
            for key, value in tables.items():
                point._store_cached(key, value)
            want = point.predict_log_proba(Xn)[np.arange(y.size), y]
            assert_allclose(got[s], want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("covariance", ["shared", "per_class"])
def test_gda_label_log_likelihood_uses_marginals(covariance):
    X, y = _gaussian(n=60)
    Xn = with_nan(X, seed=17, rate=0.15)
    model = quiet(bnb.GDA(covariance=covariance, missing="ignore").fit, Xn, y)
    got, _ = label_log_likelihood_draws(model, Xn, y, draws=5, random_seed=1)
    values = posterior_draws(model, draws=5, chains=1, random_seed=np.random.default_rng(1))
    for s in (0, 4):
        mean, cov = values["mean"][0, s], values["cov"][0, s]
        log_pi = np.log(values["class_prior"][0, s])
        for i in (0, 7, 23, 41):
            obs = np.flatnonzero(~np.isnan(Xn[i]))
            joint = log_pi.copy()
            for c in range(3):
                S = cov if covariance == "shared" else cov[c]
                if obs.size:
                    joint[c] += multivariate_normal(mean[c, obs], S[np.ix_(obs, obs)]).logpdf(
                        Xn[i, obs]
                    )
            assert_allclose(got[s, i], joint[y[i]] - logsumexp(joint), rtol=1e-9, atol=1e-12)


def test_save_load_round_trips_missing(tmp_path):
    X, y = _counts()
    Xn = with_nan(X, seed=18, rate=0.2)
    Xg, yg = _gaussian()
    Xgn = with_nan(Xg, seed=19, rate=0.1)
    for model, (A, b) in (
        (bnb.BernoulliNB(missing="ignore"), (Xn, y)),
        (bnb.CategoricalNB(missing="ignore"), (Xn, y)),
        (bnb.MultinomialNB(missing="ignore", estimate="bayes"), (Xn, y)),
        (bnb.GDA(covariance="per_class", missing="ignore"), (Xgn, yg)),
    ):
        fitted = quiet(model.fit, A, b)
        path = tmp_path / f"{type(model).__name__}.nc"
        fitted.save(path)
        loaded = bnb.load(path)
        assert loaded.missing == "ignore"
        assert_array_equal(loaded.predict_proba(A), fitted.predict_proba(A))
        assert loaded.log_evidence() == fitted.log_evidence()
        assert_array_equal(loaded.class_count_, fitted.class_count_)
        quiet(loaded.partial_fit, A[:10], b[:10])  # keeps learning from the loaded state
    default = bnb.BernoulliNB().fit(X, y)
    default.save(tmp_path / "plain.nc")
    assert bnb.load(tmp_path / "plain.nc").missing == "error"


def test_pymc_path_refuses_missing_values():
    X, y = _counts()
    Xn = with_nan(X, seed=20, rate=0.1)
    model = bnb.BernoulliNB(missing="ignore").fit(Xn, y)
    with pytest.raises(ValueError, match=r"PyMC path .* complete data only"):
        model.to_pymc(Xn, y)


# -- scikit-learn's checks with NaN allowed (allow_nan tag: the checks insert NaN) -------------
@parametrize_with_checks(
    [
        bnb.MultinomialNB(missing="ignore"),
        bnb.BernoulliNB(missing="ignore"),
        bnb.GDA(missing="ignore"),
        bnb.GDA(covariance="diagonal", estimate="bayes", missing="ignore"),
    ]
)
def test_sklearn_checks_with_missing_ignore(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingValueWarning)
        check(estimator)


def test_allow_nan_tag_follows_the_parameter():
    assert bnb.GDA(missing="ignore").__sklearn_tags__().input_tags.allow_nan
    assert not bnb.BernoulliNB().__sklearn_tags__().input_tags.allow_nan
