"""GDA's exact cross-validation: downdated statistics against refits.

``subtract`` (a fold's statistics removed) and ``loo_joint_log_proba`` (every training document
scored by the model fitted without it) must give what ``GDA(...).fit`` on the remaining data
gives, for the three covariance models, the four estimates, sample weights, the data-scaled
default prior (re-derived from the remaining data) and a fixed prior, to 1e-10 in log space.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from sklearn.model_selection import KFold

from bayesnb import GDA
from bayesnb.families import family_of
from bayesnb.families.gda import crossval, loo_series
from bayesnb.priors import NormalInverseWishart
from bayesnb.validation import MissingValueWarning

COVS = ("shared", "per_class", "diagonal")
ESTIMATES = ("mle", "map", "mean", "bayes")
FIXED = NormalInverseWishart(
    mu0=[4.0, 5.0, 6.0], kappa0=0.5, psi0=[[2.0, 0.3, 0], [0.3, 1.0, 0], [0, 0, 0.5]]
)
ATOL = 1e-10


def _data(sizes=(15, 14, 7), seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(y.size, 3)) @ np.array([[1.0, 0.4, 0.0], [0, 2.0, 0.3], [0, 0, 0.5]])
    X += 5.0 + np.array([[0.0, 0, 0], [1.5, -1, 0], [0, 2, 1]])[y]
    w = rng.uniform(0.3, 2.5, y.size)
    return X, y, w


def _close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert np.array_equal(np.isneginf(a), np.isneginf(b))
    fin = np.isfinite(b)
    np.testing.assert_allclose(a[fin], b[fin], rtol=1e-12, atol=ATOL)


def _loo(est, X, y, w):
    Xc, _ = est._check_input(X, y, reset=False)
    return family_of(est).loo_joint_log_proba(est, Xc, y, np.ones(y.size) if w is None else w)


@pytest.mark.parametrize("cov", COVS)
@pytest.mark.parametrize("estimate", ESTIMATES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "prior",
    [None, FIXED, NormalInverseWishart(mu0=5.0), NormalInverseWishart(psi0=[1.0, 3.0, 0.2])],
    ids=["data-scaled", "fixed", "data-scaled-psi0", "data-scaled-mu0"],
)
def test_loo_equals_refit_without_each_document(cov, estimate, weighted, prior):
    X, y, w = _data()
    sw = w if weighted else None
    params = dict(covariance=cov, estimate=estimate, prior=prior)
    loo = _loo(GDA(**params).fit(X, y, sample_weight=sw), X, y, sw)
    assert loo.shape == (y.size, 3)
    for i in range(y.size):
        keep = np.arange(y.size) != i
        refit = GDA(**params).fit(X[keep], y[keep], None if sw is None else sw[keep])
        _close(loo[i], refit.predict_joint_log_proba(X[i : i + 1])[0])


@pytest.mark.parametrize("cov", COVS)
@pytest.mark.parametrize("estimate", ESTIMATES)
@pytest.mark.parametrize("prior", [None, FIXED], ids=["data-scaled", "fixed"])
def test_subtract_each_fold_equals_refit(cov, estimate, prior):
    X, y, w = _data(sizes=(16, 15, 12), seed=1)
    params = dict(covariance=cov, estimate=estimate, prior=prior)
    full = GDA(**params).fit(X, y, sample_weight=w)
    fam = family_of(full)
    for train, test in KFold(4, shuffle=True, random_state=0).split(X):
        est = copy.deepcopy(full)
        Xf, yf = est._check_input(X[test], y[test], reset=False)
        fam.subtract(est, est._statistics(Xf, yf, w[test]))
        refit = GDA(**params).fit(X[train], y[train], sample_weight=w[train])
        _close(est.predict_joint_log_proba(X[test]), refit.predict_joint_log_proba(X[test]))
        _close(est.predict_log_proba(X[test]), refit.predict_log_proba(X[test]))
        np.testing.assert_allclose(est.class_count_, refit.class_count_, rtol=1e-13)
        np.testing.assert_allclose(est.means_, refit.means_, rtol=1e-12)
        np.testing.assert_allclose(est.covariance_, refit.covariance_, rtol=1e-10, atol=1e-13)
        if estimate != "mle":  # the default prior is re-derived from the remaining data
            p, q = est.posterior_.prior, refit.posterior_.prior
            np.testing.assert_allclose(p.mu0, q.mu0, rtol=1e-13)
            np.testing.assert_allclose(p.psi0, q.psi0, rtol=1e-11)


def test_subtract_moves_the_default_prior():
    """Removing a far-away fold changes the data-scaled prior as a refit does (not a no-op)."""
    X, y, _ = _data(seed=2)
    X[:5] += 30.0
    full = GDA().fit(X, y)
    fam = family_of(full)
    est = copy.deepcopy(full)
    fam.subtract(est, est._statistics(X[:5], y[:5], np.ones(5)))
    refit = GDA().fit(X[5:], y[5:])
    assert np.abs(full.posterior_.prior.mu0 - refit.posterior_.prior.mu0).max() > 3.0
    np.testing.assert_allclose(est.posterior_.prior.mu0, refit.posterior_.prior.mu0, rtol=1e-13)


@pytest.mark.parametrize("cov", COVS)
@pytest.mark.parametrize("estimate", ESTIMATES)
def test_class_left_with_one_document(cov, estimate):
    """A fold leaves class 2 one document: the prior estimates refit, the MLE fails as a
    refit does (one point has no spread), and the estimator is left unchanged."""
    X, y, w = _data(sizes=(12, 12, 4), seed=3)
    params = dict(covariance=cov, estimate=estimate)
    full = GDA(**params).fit(X, y, sample_weight=w)
    fam = family_of(full)
    test = np.array([0, 13, 24, 25, 26])  # three of class 2's four documents
    train = np.setdiff1d(np.arange(y.size), test)
    est = copy.deepcopy(full)
    stats = est._statistics(X[test], y[test], w[test])
    singular = estimate == "mle" and cov != "shared"
    if singular:
        with pytest.raises(ValueError, match="singular"):
            GDA(**params).fit(X[train], y[train], sample_weight=w[train])
        with pytest.raises(ValueError, match="singular"):
            fam.subtract(est, stats)
        _close(est.predict_joint_log_proba(X), full.predict_joint_log_proba(X))
        return
    fam.subtract(est, stats)
    refit = GDA(**params).fit(X[train], y[train], sample_weight=w[train])
    _close(est.predict_joint_log_proba(X), refit.predict_joint_log_proba(X))


@pytest.mark.parametrize("cov", COVS)
@pytest.mark.parametrize("estimate", ESTIMATES)
def test_loo_of_a_class_with_one_document(cov, estimate):
    """Leaving out the only document of a class leaves a refit with one class fewer (as
    scikit-learn's refit and every other family's LOO): -inf for that class, the other
    classes as the (K − 1)-class refit scores them (its class prior and, for the shared MAP,
    its divisor ν + d + 1 + K count the classes). The other documents: refits, all K kept."""
    X, y, w = _data(sizes=(12, 12, 1), seed=4)
    params = dict(covariance=cov, estimate=estimate)
    if estimate == "mle" and cov != "shared":
        with pytest.raises(ValueError, match="singular"):
            GDA(**params).fit(X, y)
        return
    loo = _loo(GDA(**params).fit(X, y, sample_weight=w), X, y, w)
    for i in (0, 13, 24):
        keep = np.arange(y.size) != i
        refit = GDA(**params).fit(X[keep], y[keep], sample_weight=w[keep])
        expect = np.full(3, -np.inf)
        expect[np.searchsorted([0, 1, 2], refit.classes_)] = refit.predict_joint_log_proba(
            X[i : i + 1]
        )[0]
        _close(loo[i], expect)
    assert np.isneginf(loo[24, 2]) and np.isfinite(loo[24, :2]).all()
    if cov == "shared" and estimate == "map":  # the weight-0 refit keeps 3 classes: not it
        w0 = w.copy()
        w0[24] = 0.0
        kept = GDA(**params).fit(X, y, sample_weight=w0).predict_joint_log_proba(X[24:25])[0]
        assert np.abs(kept[:2] - loo[24, :2]).min() > 1e-3


def test_elpd_loo_and_cross_val_predict_of_a_lone_document():
    """The one rule through bayesnb.model_selection: elpd_loo (the exact path) and
    cross_val_predict(LeaveOneOut()) (refits for the lone document) agree."""
    from sklearn.model_selection import LeaveOneOut

    from bayesnb.model_selection import cross_val_predict, elpd_loo

    X, y, w = _data(sizes=(12, 12, 1), seed=4)
    for est in (GDA(estimate="map"), GDA(covariance="diagonal", class_alpha="evidence")):
        res = elpd_loo(est, X, y, sample_weight=w)
        assert np.isneginf(res.pointwise[24]) and np.isfinite(res.pointwise[:24]).all()
        if est.class_alpha == "evidence":  # held there, re-learned by the folds
            continue
        lp = cross_val_predict(
            est, X, y, cv=LeaveOneOut(), method="predict_log_proba", sample_weight=w
        )
        ours = res.joint - np.logaddexp.reduce(res.joint, axis=1, keepdims=True)
        np.testing.assert_allclose(ours[:, :2], lp[:, :2], rtol=0, atol=ATOL)
        np.testing.assert_allclose(ours[:24, 2], lp[:24, 2], rtol=0, atol=ATOL)
        assert lp[24, 2] == np.finfo(np.float64).min  # scikit-learn's fill for a lost class


def test_loo_refuses_what_a_refit_refuses():
    """Per-class MLE where leaving a document out leaves its class a single point."""
    X, y, _ = _data(sizes=(12, 12, 5), seed=5)
    X = X.copy()
    t = np.array([[0.0, 0], [1, 0], [0, 1], [1, 1.5]])
    X[24:28] = X[24] + t @ [[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]]  # class 2 in a plane
    X[28] = X[24] + [0.5, 0.1, -0.7]  # ... but one point off it: fit fine, its LOO is not
    est = GDA(covariance="per_class", estimate="mle").fit(X, y)
    keep = np.arange(y.size) != 28
    with pytest.raises(ValueError, match="singular"):
        GDA(covariance="per_class", estimate="mle").fit(X[keep], y[keep])
    with pytest.raises(ValueError, match="singular"):
        _loo(est, X, y, None)


def test_loo_with_missing_values_and_zero_weights():
    """Rows held out of the Gaussian statistics (NaN, weight 0) only move the class prior."""
    X, y, w = _data(seed=6)
    X = X.copy()
    X[[2, 20], 1] = np.nan
    w[5] = 0.0
    for class_alpha in (1.0, "evidence"):
        params = dict(missing="ignore", class_alpha=class_alpha)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MissingValueWarning)
            full = GDA(**params).fit(X, y, sample_weight=w)
            loo = _loo(full, X, y, w)
            # A learned class_alpha is held at its full-data value (as every family's LOO):
            # the refit to match is the one with class_alpha fixed there.
            held = dict(params, class_alpha=full.class_alpha_)
            gaps = []
            for i in (2, 5, 7, 20):
                keep = np.arange(y.size) != i
                refit = GDA(**held).fit(X[keep], y[keep], sample_weight=w[keep])
                joint = refit.predict_joint_log_proba(X[i : i + 1])[0]
                np.testing.assert_allclose(loo[i], joint, rtol=0, atol=ATOL)
                relearned = GDA(**params).fit(X[keep], y[keep], sample_weight=w[keep])
                gaps.append(np.abs(relearned.predict_joint_log_proba(X[i : i + 1])[0] - loo[i]))
            if class_alpha == "evidence":
                # measured: 0.036 nats at most on these rows (0 for the weight-0 row 5,
                # whose removal moves no count); re-learning would cost a search per document
                assert np.max(gaps) == pytest.approx(0.0365, abs=0.003)


@pytest.mark.parametrize("cov", ["shared", "per_class"])
def test_loo_is_rank_one_per_document(cov, monkeypatch):
    """With a fixed prior (or the MLE) LOO factorises the K full-data matrices once and
    downdates each document in O(K d²): no refit, no per-document factorisation."""
    X, y, w = _data(seed=7)
    est = GDA(covariance=cov, prior=FIXED).fit(X, y, sample_weight=w)
    calls = []
    real = np.linalg.cholesky

    def counting(a, *args, **kwargs):
        calls.append(np.shape(a))
        return real(a, *args, **kwargs)

    def no_refit(*args, **kwargs):
        raise AssertionError("LOO refitted a document")

    monkeypatch.setattr(np.linalg, "cholesky", counting)
    monkeypatch.setattr(GDA, "fit", no_refit)
    monkeypatch.setattr(crossval, "_refit_row", no_refit)
    _loo(est, X, y, w)
    # one factor per covariance matrix, none per document (the prior, with its own check of
    # psi0, was resolved at fit)
    assert calls == [(3, 3)] * (1 if cov == "shared" else 3)


@pytest.mark.parametrize("cov", ["shared", "per_class"])
def test_loo_data_scaled_prior_is_vectorised(cov, monkeypatch):
    """The default prior moves with every document (a full diagonal change of Ψ0): on enough
    data the series path factorises the K full-data matrices once (O(K d²) per document),
    no per-document factorisation, no refit."""
    X, y, w = _data(sizes=(2000, 1500, 1000), seed=8)
    est = GDA(covariance=cov).fit(X, y, sample_weight=w)
    calls = []
    real = np.linalg.cholesky

    def counting(a, *args, **kwargs):
        calls.append(np.shape(a))
        return real(a, *args, **kwargs)

    monkeypatch.setattr(np.linalg, "cholesky", counting)
    monkeypatch.setattr(crossval, "_refit_row", lambda *a: pytest.fail("refit a document"))
    monkeypatch.setattr(crossval, "_explicit", lambda *a: pytest.fail("factorised a document"))
    _loo(est, X, y, w)
    assert calls == [(3, 3)] * (1 if cov == "shared" else 3)  # one per covariance matrix


def test_loo_data_scaled_prior_small_data_factorises(monkeypatch):
    """On 36 documents the series' bound refuses most documents (|D_j|/P_jj is not small):
    they are factorised explicitly, one batched factorisation, and still equal refits."""
    X, y, w = _data(seed=8)
    est = GDA(covariance="per_class").fit(X, y, sample_weight=w)
    rows = []
    real = crossval._explicit

    def spy(est, X, codes, w):
        rows.append(codes.size)
        return real(est, X, codes, w)

    monkeypatch.setattr(crossval, "_explicit", spy)
    monkeypatch.setattr(crossval, "_refit_row", lambda *a: pytest.fail("refit a document"))
    _loo(est, X, y, w)
    assert len(rows) == 1 and 0.5 * y.size < rows[0] <= y.size


@pytest.mark.parametrize("cov", ["shared", "per_class"])
@pytest.mark.parametrize("estimate", ["map", "mean", "bayes"])
@pytest.mark.parametrize(
    "prior",
    [None, NormalInverseWishart(mu0=5.0), NormalInverseWishart(psi0=[1.0, 3.0, 0.2])],
    ids=["data-scaled", "data-scaled-psi0", "data-scaled-mu0"],
)
@pytest.mark.parametrize("weights", ["continuous", "two-valued", "unit"])
def test_loo_series_equals_refits(cov, estimate, prior, weights):
    """The series path (Woodbury on the low-rank part, the bounded series on the diagonal
    change of Ψ0) against refits that re-derive the prior, on 900 documents; its bound
    sends the documents it cannot vouch for to the explicit factorisation. With few
    distinct weights the shared model folds the low-rank part per (class, weight) group
    into one rank-one column (loo_series.rank_one_form); with many it keeps K + 1."""
    X, y, w = _data(sizes=(400, 300, 200), seed=10)
    if weights != "continuous":
        w = np.where(w > 1.4, 2.0, 1.0) if weights == "two-valued" else np.ones(y.size)
    X[7] += 6.0  # an outlier: its own downdate is larger
    params = dict(covariance=cov, estimate=estimate, prior=prior)
    est = GDA(**params).fit(X, y, sample_weight=w)
    Xc, _ = est._check_input(X, y, reset=False)
    groups = loo_series._shared_groups(est, loo_series._series_factors(est), Xc, y, w)
    folded = [form is not None for form, _ in groups]
    n_groups = {"continuous": 0, "two-valued": 6, "unit": 3}[weights]
    assert folded == ([True] * n_groups if cov == "shared" and n_groups else [False])
    ll, todo = loo_series._series(est, loo_series._series_factors(est), Xc, y, w, True)
    assert todo.mean() < (0.01 if cov == "shared" else 0.1)
    loo = _loo(est, X, y, w)
    for i in (0, 7, 450, 899, *np.flatnonzero(todo)[:2]):
        keep = np.arange(y.size) != i
        refit = GDA(**params).fit(X[keep], y[keep], sample_weight=w[keep])
        joint = refit.predict_joint_log_proba(X[i : i + 1])[0]
        np.testing.assert_allclose(loo[i], joint, rtol=1e-13, atol=1e-12)
        if not todo[i]:
            lik = joint - refit.class_log_prior_
            np.testing.assert_allclose(ll[i], lik, rtol=1e-13, atol=1e-12)


@pytest.mark.parametrize("cov", ["shared", "per_class"])
def test_pinned_prior_against_refits_with_the_data_scaled_prior(cov):
    """The fast path for the default prior: held at its full-data value (fixed_prior_params),
    LOO is rank-one; it differs from refits that re-derive the prior per document by the
    prior's movement, measured here (small, and not zero: the path is not the exact one)."""
    X, y, _ = _data(sizes=(150, 140, 70), seed=9)
    est = GDA(covariance=cov).fit(X, y)
    exact = _loo(est, X, y, None)
    pinned = copy.deepcopy(est).set_params(**family_of(est).fixed_prior_params(est))
    held = _loo(pinned, X, y, None)
    lp = held - np.logaddexp.reduce(held, axis=1, keepdims=True)
    le = exact - np.logaddexp.reduce(exact, axis=1, keepdims=True)
    diff = np.abs(lp - le).max()
    # measured: 7.2e-4 (shared) and 4.1e-3 (per class) nats of log p(c | x) on these 360
    # documents; on 36 documents (the other tests' data) 0.11 and 1.5: the held prior has
    # seen the left-out document.
    assert 1e-6 < diff < (2e-3 if cov == "shared" else 1e-2), diff
