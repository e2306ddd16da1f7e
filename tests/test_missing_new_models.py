"""``missing="error"|"ignore"`` on PoissonNB and DirichletCompoundNB (mirrors test_missing.py).

PoissonNB marginalises exactly both ways: scoring drops a missing feature's factor, and the
Gamma posterior of λ_cj counts the documents where feature j is observed (N_cj). The DCM scores
exactly (the Pólya over the observed features, B_obs = Σ_{j observed} β_j) and fits its
concentrations on the complete documents (warned). Every test compares with an independent
computation: models of the observed columns, per-feature sub-fits, complete-row fits, or
brute-force enumeration of the Pólya urn.
"""

from __future__ import annotations

import itertools
import warnings
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import gammaln
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

import bayesnb as bnb
from bayesnb.draws import posterior_draws
from bayesnb.evidence import _class_log_evidence
from bayesnb.loo import label_log_likelihood_draws
from bayesnb.scoring.discrete import dcm_jll
from bayesnb.validation import MissingValueWarning
from tests.missing_helpers import (
    assert_counts_observed_documents,
    assert_nan_error_names_cells,
    assert_scores_equal_observed_columns,
    quiet,
    sparse_nan,
    with_nan,
)

POISSON_ESTIMATES = ("mle", "map", "mean", "bayes")
DCM_ESTIMATES = ("mle", "map", "mean")


def _poisson(estimate="mean", **kw):
    # MAP needs alpha >= 1 for an interior mode; 2 keeps it distinct from the mean.
    return bnb.PoissonNB(alpha=2.0 if estimate == "map" else 0.7, beta=0.5, estimate=estimate, **kw)


def _dcm(estimate="map", **kw):
    return bnb.DirichletCompoundNB(estimate=estimate, tol=1e-10, max_iter=5000, **kw)


def _counts(seed=0, n=90, d=6, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rates = 0.4 + rng.random((k, d)) * 2.0
    X = rng.poisson(rates[y]).astype(np.float64)
    X[:k, :] = 3.0  # every feature seen in every class
    y[:k] = np.arange(k)
    return X, y


def _bursty(seed=0, n=90, d=6, k=3):
    """Overdispersed counts from the DCM itself (θ_d ~ Dirichlet(β_c)): the MLE is finite."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    beta = 0.3 + rng.random((k, d)) * 1.5
    X = np.stack([rng.multinomial(rng.poisson(15) + 1, rng.dirichlet(beta[c])) for c in y])
    return X.astype(np.float64), y


def _triplets(hist) -> dict:
    """A histogram as {(row, col): weight} (widths may differ between equal histograms)."""
    coo = hist.tocoo()
    return {
        (int(r), int(c)): float(w) for r, c, w in zip(coo.row, coo.col, coo.data, strict=True) if w
    }


# -- "ignore" without NaN is today's model, bit for bit ----------------------------------------
@pytest.mark.parametrize("estimate", POISSON_ESTIMATES)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_poisson_ignore_without_nan_is_unchanged(estimate, sparse):
    X, y = _counts()
    Xf = sp.csr_matrix(X) if sparse else X
    ref = _poisson(estimate).fit(Xf, y)
    got = _poisson(estimate, missing="ignore").fit(Xf, y)
    assert_array_equal(got.predict_joint_log_proba(Xf), ref.predict_joint_log_proba(Xf))
    assert_array_equal(got.predict_proba(Xf), ref.predict_proba(Xf))
    assert got.log_evidence() == ref.log_evidence()
    assert got._observed_counts() is None


@pytest.mark.parametrize("estimate", DCM_ESTIMATES)
def test_dcm_ignore_without_nan_is_unchanged(estimate):
    X, y = _bursty()
    ref = _dcm(estimate).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingValueWarning)  # nothing missing: no warning
        got = _dcm(estimate, missing="ignore").fit(sp.csr_matrix(X), y)
    assert_array_equal(got.concentration_, ref.concentration_)
    assert_array_equal(got.predict_joint_log_proba(X), ref.predict_joint_log_proba(X))
    assert got.log_evidence() == ref.log_evidence()


# -- PoissonNB scoring: marginal == model of the observed columns ------------------------------
@pytest.mark.parametrize("estimate", POISSON_ESTIMATES)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_poisson_scores_equal_a_model_of_the_observed_columns(estimate, sparse):
    X, y = _counts()
    Xt, _ = _counts(seed=5, n=30)
    Xn = with_nan(Xt, seed=2, rate=0.3)
    Xn[0] = np.nan  # nothing observed: the class prior alone
    model = _poisson(estimate, missing="ignore").fit(X, y)
    assert_scores_equal_observed_columns(model, lambda: _poisson(estimate), X, y, Xt, Xn, sparse)


def test_poisson_missing_mle_zero_rate_is_dropped_with_its_feature():
    """An MLE zero rate makes a count impossible only while that feature is observed."""
    X, y = _counts()
    X[y == 0, 2] = 0.0  # feature 2 never seen in class 0: λ_02 = 0 under the MLE
    model = bnb.PoissonNB(estimate="mle", missing="ignore").fit(X, y)
    x = np.array([[1.0, 2.0, 4.0, 0.0, 1.0, 3.0]])
    assert np.isneginf(model.predict_joint_log_proba(x)[0, 0])
    x[0, 2] = np.nan
    sub = bnb.PoissonNB(estimate="mle").fit(np.delete(X, 2, axis=1), y)
    want = sub.predict_joint_log_proba(np.delete(x, 2, axis=1))
    assert_allclose(model.predict_joint_log_proba(x), want, rtol=1e-13)


# -- PoissonNB counting: N_cj documents observed per feature -----------------------------------
@pytest.mark.parametrize("estimate", POISSON_ESTIMATES)
def test_poisson_counts_observed_documents_per_feature(estimate):
    X, y = _counts()
    Xn = with_nan(X, seed=4, rate=0.25, keep_rows=3)
    w = np.random.default_rng(0).integers(1, 4, X.shape[0]).astype(float)
    model = _poisson(estimate, missing="ignore").fit(Xn, y, sample_weight=w)

    def same_feature(model, sub, j):
        # Gamma(α + S_cj, β + N_cj) with N_cj the documents where feature j is observed.
        post = model.posterior_
        assert_allclose(post.shape[:, j], sub.posterior_.shape[:, 0], rtol=1e-14)
        assert_allclose(post.rate[:, j], sub.posterior_.rate[:, 0], rtol=1e-14)
        assert_allclose(
            model.feature_log_rate_[:, j], sub.feature_log_rate_[:, 0], rtol=1e-13, atol=0
        )

    make_sub = partial(_poisson, estimate)
    assert_counts_observed_documents(model, make_sub, X, Xn, y, w, same_feature)


def test_poisson_posterior_draws_use_observed_counts():
    X, y = _counts()
    Xn = with_nan(X, seed=15, rate=0.4, keep_rows=3)
    model = bnb.PoissonNB(missing="ignore").fit(Xn, y)
    draws = posterior_draws(model, draws=20000, chains=1, random_seed=0)["feature_rate"][0]
    post = model.posterior_
    mean, sd = post.mean(), np.sqrt(post.var())
    # Exact Gamma(α + S_cj, β + N_cj) draws: the mean within 5 Monte Carlo SE.
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 5 * sd / np.sqrt(20000))
    wrong = post.shape / (post.rate + model.missing_count_)  # β + N_c instead of β + N_cj
    assert np.max(np.abs(wrong - mean) / (sd / np.sqrt(20000))) > 20


# -- partial_fit, sparse, distributed ----------------------------------------------------------
@pytest.mark.parametrize(
    "model",
    [bnb.PoissonNB(missing="ignore"), bnb.PoissonNB(missing="ignore", estimate="bayes")],
    ids=repr,
)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_poisson_partial_fit_equals_fit_and_sparse_equals_dense(model, sparse):
    X, y = _counts()
    Xn = with_nan(X, seed=9, rate=0.2)
    Xn[:30] = np.nan_to_num(Xn[:30])  # a first batch without NaN
    Xf = sparse_nan(Xn) if sparse else Xn
    Xt = with_nan(_counts(seed=3, n=25)[0], seed=10, rate=0.3)
    whole = clone(model).fit(Xn, y)
    parts = clone(model)
    for rows in np.array_split(np.arange(X.shape[0]), 3):
        parts.partial_fit(Xf[rows], y[rows], classes=[0, 1, 2])
    assert_allclose(parts.feature_count_, whole.feature_count_, rtol=1e-14)
    assert_allclose(parts.missing_count_, whole.missing_count_, rtol=1e-14)
    assert_allclose(parts.log_factorial_, whole.log_factorial_, rtol=1e-14)
    Xtf = sparse_nan(Xt) if sparse else Xt
    assert_allclose(parts.predict_proba(Xtf), whole.predict_proba(Xt), rtol=1e-12, atol=1e-15)
    assert_allclose(parts.log_evidence(), whole.log_evidence(), rtol=1e-13)


def test_poisson_distributed_fit_with_nan():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    from bayesnb import distributed

    X, y = _counts(n=120)
    Xn = with_nan(X, seed=13, rate=0.2)
    Xn[:40] = np.nan_to_num(Xn[:40])  # a chunk without NaN: its missing count is a scalar 0
    ref = bnb.PoissonNB(missing="ignore").fit(Xn, y)
    with dask.config.set(scheduler="sync"):
        got = distributed.fit(
            bnb.PoissonNB(missing="ignore"),
            da.from_array(Xn, chunks=(40, 6)),
            da.from_array(y, chunks=40),
        )
    assert_array_equal(got.missing_count_, ref.missing_count_)
    assert_allclose(got.predict_proba(Xn), ref.predict_proba(Xn), rtol=1e-13)


# -- DirichletCompoundNB scoring: the Pólya of the observed features ---------------------------
@pytest.mark.parametrize("estimate", DCM_ESTIMATES)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_dcm_scores_are_the_polya_of_the_observed_features(estimate, sparse):
    X, y = _bursty()
    if estimate == "mle":
        X[y == 1, 4] = 0.0  # β_14 = 0 under the MLE: the zero-concentration path
    Xt, _ = _bursty(seed=5, n=30)
    Xn = with_nan(Xt, seed=2, rate=0.3)
    Xn[0] = np.nan  # nothing observed: the class prior alone
    model = _dcm(estimate, missing="ignore").fit(X, y)
    beta = model.concentration_
    if estimate == "mle":
        assert np.all(beta[1, 4] == 0.0)
    jll = model.predict_joint_log_proba(sparse_nan(Xn) if sparse else Xn)
    assert_allclose(jll[0], model.class_log_prior_, rtol=0, atol=1e-12)
    for i in range(1, Xn.shape[0]):
        obs = np.flatnonzero(~np.isnan(Xn[i]))
        # The DCM restricted to the observed features: β_obs, B_obs = Σ β_obs.
        want = dcm_jll(Xt[i : i + 1, obs], beta[:, obs])[0] + model.class_log_prior_
        assert_allclose(jll[i], want, rtol=1e-11, atol=1e-11)


def test_dcm_marginal_by_brute_force():
    """Pólya-urn sequences summed over the unseen tokens == dcm_jll with B_obs."""
    V, n = 4, 4
    observed = (0, 2)
    missing = np.array([[False, True, False, True]])
    beta = np.array([0.7, 2.0, 1.3, 0.4])

    def seq_prob(seq):
        counts = np.bincount(seq, minlength=V)
        B = beta.sum()
        return float(
            np.exp(
                gammaln(B) - gammaln(B + len(seq)) + np.sum(gammaln(beta + counts) - gammaln(beta))
            )
        )

    by_sub: dict[tuple, float] = {}
    by_len = np.zeros(n + 1)
    for seq in itertools.product(range(V), repeat=n):
        p = seq_prob(seq)
        sub = tuple(t for t in seq if t in observed)
        by_sub[sub] = by_sub.get(sub, 0.0) + p
        by_len[len(sub)] += p
    for sub, p in by_sub.items():
        brute = np.log(p / by_len[len(sub)])  # one observed token sequence given its length
        x = np.bincount(np.asarray(sub, dtype=np.intp), minlength=V).astype(float)[None, :]
        got = dcm_jll(x, beta[None, :], missing=missing)
        assert_allclose(got[0, 0], brute, rtol=1e-12, atol=1e-12)
        # A zero concentration on a missing feature changes nothing (its tokens are unseen).
        zero = np.array([[0.7, 0.0, 1.3, 0.4]])
        want = dcm_jll(x[:, list(observed)], zero[:, list(observed)])
        assert_allclose(dcm_jll(x, zero, missing=missing), want, rtol=1e-13)


# -- DirichletCompoundNB fitting: complete documents, every label ------------------------------
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_dcm_fits_complete_documents_and_counts_every_label(sparse):
    X, y = _bursty()
    Xn = with_nan(X, seed=8, rate=0.05, keep_rows=3)
    complete = ~np.isnan(Xn).any(axis=1)
    n_bad = int((~complete).sum())
    assert 0 < n_bad < X.shape[0] // 2
    with pytest.warns(MissingValueWarning, match=f"{n_bad} of {X.shape[0]} row"):
        model = _dcm("map", missing="ignore").fit(sparse_nan(Xn) if sparse else Xn, y)
    ref = _dcm("map").fit(X[complete], y[complete])
    assert_array_equal(model.class_count_, np.bincount(y))
    assert_array_equal(model.feature_count_, ref.feature_count_)
    assert _triplets(model.value_count_) == _triplets(ref.value_count_)
    assert _triplets(model.length_count_) == _triplets(ref.length_count_)
    assert_allclose(model.concentration_, ref.concentration_, rtol=1e-12)
    # Same Pólya part; the class term differs (it uses every label).
    diff = model.log_evidence() - ref.log_evidence()
    assert_allclose(diff, _class_log_evidence(model) - _class_log_evidence(ref), rtol=1e-9)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_dcm_partial_fit_equals_fit(sparse):
    X, y = _bursty()
    Xn = with_nan(X, seed=11, rate=0.05)
    Xf = sparse_nan(Xn) if sparse else Xn
    whole = quiet(_dcm(missing="ignore").fit, Xn, y)
    parts = _dcm(missing="ignore")
    for rows in np.array_split(np.arange(X.shape[0]), 3):
        quiet(parts.partial_fit, Xf[rows], y[rows], classes=[0, 1, 2])
    assert_array_equal(parts.class_count_, whole.class_count_)
    assert _triplets(parts.value_count_) == _triplets(whole.value_count_)
    assert_allclose(parts.concentration_, whole.concentration_, rtol=1e-10)
    Xt = with_nan(_bursty(seed=4, n=20)[0], seed=12, rate=0.3)
    Xtf = sparse_nan(Xt) if sparse else Xt
    assert_allclose(parts.predict_proba(Xtf), whole.predict_proba(Xt), rtol=1e-9, atol=1e-14)


# -- "error" -----------------------------------------------------------------------------------
@pytest.mark.parametrize("model", [bnb.PoissonNB(), bnb.DirichletCompoundNB()], ids=repr)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_error_names_rows_and_columns(model, sparse):
    X, y = _counts()
    assert_nan_error_names_cells(model, X, y, sparse)
    with pytest.raises(ValueError, match="missing must be one of"):
        clone(model).set_params(missing="drop").fit(X, y)


# -- downstream workflow -----------------------------------------------------------------------
def _point_model(model, values, s):
    """A copy of ``model`` scoring with posterior draw ``s`` as its point estimate."""
    point = clone(model).set_params(estimate="mle")
    point.__dict__.update({k: v for k, v in model.__dict__.items() if k.endswith("_")})
    point._statistics_changed()
    if isinstance(model, bnb.PoissonNB):
        lam = values["feature_rate"][0, s]
        point._store_cached("rate_tables", (np.log(lam), lam.sum(axis=1)))
        point._store_cached("rate", lam)
    else:
        point._store_cached("concentration", (values["concentration"][0, s], 0))
    point._store_cached("class_log_prior", np.log(values["class_prior"][0, s]))
    return point


def test_label_log_likelihood_marginalises_like_predict():
    X, y = _counts()
    Xn = with_nan(X, seed=16, rate=0.2, keep_rows=3)
    seed, n_draws = 3, 40
    for model in (
        bnb.PoissonNB(missing="ignore").fit(Xn, y),
        quiet(_dcm(missing="ignore").fit, Xn, y),
    ):
        got, _ = label_log_likelihood_draws(model, Xn, y, draws=n_draws, random_seed=seed)
        values = posterior_draws(
            model, draws=n_draws, chains=1, random_seed=np.random.default_rng(seed)
        )
        for s in (0, 17, 39):
            want = _point_model(model, values, s).predict_log_proba(Xn)[np.arange(y.size), y]
            assert_allclose(got[s], want, rtol=1e-10, atol=1e-12)


def test_save_load_round_trips_missing(tmp_path):
    X, y = _counts()
    Xn = with_nan(X, seed=18, rate=0.1, keep_rows=3)
    for model in (
        bnb.PoissonNB(missing="ignore"),
        bnb.PoissonNB(missing="ignore", estimate="bayes"),
        _dcm(missing="ignore"),
    ):
        fitted = quiet(model.fit, Xn, y)
        path = tmp_path / f"{type(model).__name__}.nc"
        fitted.save(path)
        loaded = bnb.load(path)
        assert loaded.missing == "ignore"
        assert_array_equal(loaded.predict_proba(Xn), fitted.predict_proba(Xn))
        assert loaded.log_evidence() == fitted.log_evidence()
        if isinstance(model, bnb.PoissonNB):
            assert_array_equal(loaded.missing_count_, fitted.missing_count_)
        quiet(loaded.partial_fit, Xn[:10], y[:10])  # keeps learning from the loaded state
        ref = quiet(clone(model).fit, np.vstack([Xn, Xn[:10]]), np.concatenate([y, y[:10]]))
        assert_allclose(loaded.predict_proba(Xn), ref.predict_proba(Xn), rtol=1e-8)


def test_sample_from_a_model_fitted_with_missing_values():
    X, y = _counts()
    Xn = with_nan(X, seed=21, rate=0.2, keep_rows=3)
    model = bnb.PoissonNB(missing="ignore").fit(Xn, y)
    Xs, ys = model.sample(20000, random_seed=0)
    rates = model.posterior_.mean()
    for c in range(3):
        docs = Xs[ys == c].toarray() if sp.issparse(Xs) else Xs[ys == c]
        # Poisson(λ_cj) counts: the sample mean within 5 standard errors.
        se = np.sqrt(rates[c] / docs.shape[0])
        assert np.all(np.abs(docs.mean(axis=0) - rates[c]) < 5 * se)


@pytest.mark.parametrize("model", [bnb.PoissonNB, bnb.DirichletCompoundNB], ids=str)
def test_pymc_path_refuses_missing_values(model):
    X, y = _counts()
    Xn = with_nan(X, seed=20, rate=0.1, keep_rows=3)
    fitted = quiet(model(missing="ignore").fit, Xn, y)
    with pytest.raises(ValueError, match=r"PyMC path .* complete data only"):
        fitted.to_pymc(Xn, y)


# -- scikit-learn's checks with NaN allowed ----------------------------------------------------
@parametrize_with_checks([bnb.PoissonNB(missing="ignore")])
def test_sklearn_checks_with_missing_ignore(estimator, check):
    check(estimator)


def test_allow_nan_tag_follows_the_parameter():
    assert bnb.PoissonNB(missing="ignore").__sklearn_tags__().input_tags.allow_nan
    assert bnb.DirichletCompoundNB(missing="ignore").__sklearn_tags__().input_tags.allow_nan
    assert not bnb.PoissonNB().__sklearn_tags__().input_tags.allow_nan
