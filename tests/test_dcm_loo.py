"""DirichletCompoundNB's leave-one-out (one single-class refit per document) against the
generic per-document downdate of the whole model and against scikit-learn's refits."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import LeaveOneOut
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict

from bayesnb import DirichletCompoundNB
from bayesnb.families import family_of
from bayesnb.families._crossval import per_document
from bayesnb.model_selection import elpd_loo


def _counts(seed: int, n: int = 30, overdispersed: bool = True):
    """3 classes, 8 features: negative-binomial (bursty) or Poisson counts, a lone document
    of class 3, an empty document and a zero-weight one."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    rates = rng.gamma(2.0, 0.6, size=(3, 8))[y]
    if overdispersed:
        X = rng.negative_binomial(0.7, 0.7 / (0.7 + rates)).astype(float)
    else:
        X = rng.poisson(rates).astype(float)
    X[5] = 0.0  # an empty document: its removal changes the class prior only
    y[0] = 3  # a class with one document: a refit without it has three classes
    w = rng.choice([0.5, 1.0, 2.0], size=n)
    w[7] = 0.0
    return X, y, w


def _both(est, X, y, w):
    est = est.fit(X, y, sample_weight=w)
    codes = np.searchsorted(est.classes_, y)
    fast = family_of(est).loo_joint_log_proba(est, X, codes, w)
    generic = per_document(est, X, codes, w)
    return fast, generic


def _assert_log_equal(a, b, atol=1e-10):
    np.testing.assert_array_equal(np.isneginf(a), np.isneginf(b))
    fin = np.isfinite(b)
    assert np.isfinite(a[fin]).all()
    np.testing.assert_allclose(a[fin], b[fin], rtol=0, atol=atol)


@pytest.mark.parametrize("overdispersed", [True, False], ids=["bursty", "poisson"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("estimate", ["mle", "map", "mean"])
def test_equals_generic_per_document(estimate, sparse, weighted, overdispersed):
    X, y, w = _counts(1, overdispersed=overdispersed)
    w = w if weighted else np.ones(y.size)
    Xin = sp.csr_matrix(X) if sparse else X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLE convergence notes, both sides
        fast, generic = _both(DirichletCompoundNB(estimate=estimate), Xin, y, w)
    assert fast is not None and fast.shape == (y.size, 4)
    _assert_log_equal(fast, generic)
    # The lone document's class is gone from the refit without it.
    assert np.isneginf(fast[0, 3]) and np.isneginf(fast[1:, 3]).sum() < y.size - 1
    if estimate != "mle":  # the MLE gives -inf to a word unseen in a class
        assert np.isfinite(fast[:, :3]).all()


@pytest.mark.parametrize("prior", [(1.0, 1.0), (1.5, 0.2), (3.0, 1.0)])
def test_map_from_the_full_fit_under_other_priors(prior):
    # Classes of ten documents of weights 0.5-2 under a weak rate (documents move their
    # class's D and B far: intervals are recentred) and under prior_shape = 1 (e = 0: a word
    # a document alone had in its class gets β = 0 without it, -inf, as in the refit).
    X, y, w = _counts(1)
    est = DirichletCompoundNB(prior_shape=prior[0], prior_rate=prior[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast, generic = _both(est, X, y, w)
    _assert_log_equal(fast, generic)
    assert np.isneginf(fast[:, :3]).any() == (prior[0] == 1.0)


def test_poisson_mle_follows_the_refits_stopping_iteration():
    # Not overdispersed: the MLE's supremum lies at B → ∞ and β depends on where a refit's
    # joint iteration stops; scoring the other classes at the full fit's β would be off.
    X, y, _ = _counts(2, overdispersed=False)
    est = DirichletCompoundNB(estimate="mle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sk_cross_val_predict(est, X, y, cv=LeaveOneOut(), method="predict_log_proba")
        res = elpd_loo(est, X, y)
        full = est.fit(X, y)._log_likelihood(X)
    point = ref[np.arange(y.size), y]  # the lone document: sklearn's fill for a lost class
    np.testing.assert_allclose(res.pointwise[1:], point[1:], rtol=0, atol=1e-10)
    assert np.isneginf(res.pointwise[0])
    codes = np.searchsorted(est.classes_, y)
    others = np.arange(4)[None, :] != codes[:, None]
    with np.errstate(invalid="ignore"):  # -inf - -inf where a word is unseen in a class
        gap = np.abs(res.joint - full - _prior(est, codes))[others & np.isfinite(res.joint)]
    assert gap.max() > 1e-8  # the refits' other classes did move (B drifts towards ∞)


def _prior(est, codes):
    from bayesnb.families._crossval import loo_class_log_prior

    return loo_class_log_prior(est, codes, np.ones(codes.size))


def test_elpd_and_lone_document_against_refits():
    X, y, w = _counts(3)
    w = np.where(w == 0, 1.0, w)  # sklearn refits: zero weights are allowed, kept simple here
    for estimate in ("mle", "map", "mean"):
        est = DirichletCompoundNB(estimate=estimate)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = elpd_loo(est, sp.csr_matrix(X), y, sample_weight=w)
            ref = sk_cross_val_predict(
                est,
                X,
                y,
                cv=LeaveOneOut(),
                method="predict_log_proba",
                params={"sample_weight": w},
            )
        point = ref[np.arange(y.size), y]
        assert np.isneginf(res.pointwise[0])
        assert estimate == "mle" or np.isfinite(res.pointwise[1:]).all()
        _assert_log_equal(res.pointwise[1:], point[1:])


def test_missing_ignore_takes_the_generic_path():
    X, y, _ = _counts(4)
    X[3, 2] = np.nan
    est = DirichletCompoundNB(missing="ignore")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    codes = np.searchsorted(est.classes_, y)
    assert family_of(est).loo_joint_log_proba(est, X, codes, np.ones(y.size)) is None


@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_from_the_full_fit_on_large_classes(weighted):
    # Classes of hundreds of documents, every row scored from the full fit (no refit), equal
    # to the generic per-document refits to far below tol. Weights drawn from a continuum
    # make every (cell, count, weight) of a row its own.
    from bayesnb.posterior.polya_loo import polya_leave_one_out
    from tests.test_dcm import simulate, true_beta

    beta = np.concatenate([true_beta(8, 2, 10), np.full((2, 200), 0.02)], axis=1)
    X, y = simulate(beta, 800, 8, lengths=(5, 60))
    w = np.random.default_rng(3).uniform(0.5, 2.0, y.size) if weighted else np.ones(y.size)
    est = DirichletCompoundNB().fit(X, y, sample_weight=w)
    codes = np.searchsorted(est.classes_, y)
    Xs = sp.csr_matrix(X)
    keep = np.asarray(Xs.sum(axis=1)).ravel() > 0
    _, ok = polya_leave_one_out(
        est.polya_stats_, est.concentration_, 0.1, 1.0, Xs[keep], codes[keep], w[keep]
    )
    assert ok.all()
    rows = np.arange(0, y.size, 37)
    fast = family_of(est).loo_joint_log_proba(est, X, codes, w)
    _assert_log_equal(fast[rows], per_document(est, X, codes, w, rows=rows))


@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_small_classes_against_cold_refits(weighted):
    # Classes of 20-60 documents of a bursty vocabulary, where removing one document moves
    # its class's D by a few per cent (weighted: a document of weight 30 moves it by far more
    # than the first interpolation interval): every pointwise elpd_loo equals the estimator
    # fitted cold without that document, to the refits' own convergence.
    from tests.test_dcm import true_beta

    rng = np.random.default_rng(5)
    beta = np.concatenate([true_beta(3, 3, 40), np.full((3, 150), 0.03)], axis=1)
    y = np.repeat([0, 1, 2], [20, 40, 60])
    n = rng.integers(3, 80, y.size)
    X = np.stack([rng.multinomial(n[i], rng.dirichlet(beta[y[i]])) for i in range(y.size)])
    X = X.astype(float)
    w = rng.choice([0.5, 1.0, 2.0], y.size) if weighted else np.ones(y.size)
    if weighted:
        w[3] = 30.0
    res = elpd_loo(DirichletCompoundNB(), X, y, sample_weight=w)
    for i in range(y.size):
        keep = np.arange(y.size) != i
        refit = DirichletCompoundNB().fit(X[keep], y[keep], sample_weight=w[keep])
        joint = refit.predict_joint_log_proba(X[i : i + 1])[0]
        np.testing.assert_allclose(res.joint[i], joint, rtol=0, atol=1e-10)
        label = refit.predict_log_proba(X[i : i + 1])[0, y[i]]
        np.testing.assert_allclose(res.pointwise[i], label, rtol=0, atol=1e-10)
