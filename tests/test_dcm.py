"""DirichletCompoundNB: the Pólya likelihood, Minka's fixed point, the Laplace posterior, and
the model against the multinomial one on bursty data."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import digamma, gammaln
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

import bayesnb as bnb
from bayesnb import DirichletCompoundNB
from bayesnb.families.dcm.report import distinct_words_check
from bayesnb.generate import polya_urn
from bayesnb.posterior.polya import (
    PolyaStats,
    gamma_log_density_u,
    laplace_posterior,
    length_triplets,
    polya_fixed_point,
    polya_gradient,
)
from bayesnb.scoring import dcm_jll
from bayesnb.stats.discrete import count_features
from bayesnb.stats.histograms import count_values, value_triplets
from bayesnb.stats.lengths import count_lengths


# -- data --------------------------------------------------------------------------------------
def simulate(beta: np.ndarray, n_docs: int, seed: int, lengths=(10, 60)):
    """Documents from the DCM itself: θ_d ~ Dirichlet(β_y), x_d ~ Multinomial(n_d, θ_d)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, beta.shape[0], n_docs)
    n = rng.integers(lengths[0], lengths[1], n_docs)
    X = np.stack([rng.multinomial(n[i], rng.dirichlet(beta[y[i]])) for i in range(n_docs)])
    return X.astype(float), y


def true_beta(seed: int = 0, n_classes: int = 2, n_features: int = 20) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.gamma(1.0, 0.3, (n_classes, n_features)) + 0.02


def polya_stats(X, y, n_classes: int) -> tuple[PolyaStats, np.ndarray]:
    w = np.ones(X.shape[0])
    v = X.shape[1]
    st = PolyaStats(
        value_triplets(count_values(X, y, w, n_classes), v),
        length_triplets(count_lengths(X, y, w, n_classes)),
        n_classes,
        v,
    )
    return st, count_features(X, y, w, n_classes)


def direct_polya(X: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """ln Γ(B) − ln Γ(B + n) + Σ_j [ln Γ(β_j + x_j) − ln Γ(β_j)], dense, per (doc, class)."""
    n = X.sum(axis=1)
    B = beta.sum(axis=1)
    cells = gammaln(beta[None] + X[:, None, :]) - gammaln(beta[None])
    return gammaln(B)[None] - gammaln(B[None] + n[:, None]) + cells.sum(axis=2)


@pytest.fixture(scope="module")
def sim():
    beta = true_beta()
    X, y = simulate(beta, 400, seed=1)
    return beta, X, y


# -- the likelihood ----------------------------------------------------------------------------
def test_polya_likelihood_matches_gammaln_and_scipy():
    rng = np.random.default_rng(3)
    beta = rng.gamma(0.7, 1.0, (3, 8)) + 0.01
    X = rng.poisson(1.5, (25, 8)).astype(float)
    X[rng.random(X.shape) < 0.3] = 0
    X[0, 2] = 40  # a count beyond the dense small-count path of polya_jll
    X[1] = 0  # an empty document: probability 1
    want = direct_polya(X, beta)
    dense = dcm_jll(X, beta)
    sparse = dcm_jll(sp.csr_matrix(X), beta)
    np.testing.assert_allclose(dense, want, rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(dense, sparse)
    np.testing.assert_allclose(want[1], 0.0, atol=1e-12)
    # scipy's pmf of the counts = the sequence probability times the multinomial coefficient.
    n = X.sum(axis=1)
    coef = gammaln(n + 1) - gammaln(X + 1).sum(axis=1)
    if hasattr(stats, "dirichlet_multinomial"):
        for c in range(3):
            ref = np.array(
                [stats.dirichlet_multinomial.logpmf(x, beta[c], int(x.sum())) for x in X]
            )
            np.testing.assert_allclose(dense[:, c] + coef, ref, rtol=1e-10, atol=1e-9)


def test_polya_stats_likelihood_is_the_sum_over_documents():
    rng = np.random.default_rng(4)
    X = rng.poisson(0.8, (60, 7)).astype(float)
    y = rng.integers(0, 2, 60)
    beta = rng.gamma(1.0, 1.0, (2, 7)) + 0.05
    st, _ = polya_stats(X, y, 2)
    per_doc = direct_polya(X, beta)
    want = np.array([per_doc[y == c, c].sum() for c in range(2)])
    np.testing.assert_allclose(st.log_likelihood(beta), want, rtol=1e-12)
    # Gradient: digamma sums against central differences of the likelihood.
    g = polya_gradient(beta, st)
    h = 1e-6
    for c, j in [(0, 0), (1, 3), (1, 6)]:
        up, down = beta.copy(), beta.copy()
        up[c, j] += h
        down[c, j] -= h
        fd = (st.log_likelihood(up)[c] - st.log_likelihood(down)[c]) / (2 * h)
        assert g[c, j] == pytest.approx(fd, rel=1e-6)


def test_dcm_jll_zero_concentration_is_impossible_not_nan():
    beta = np.array([[1.0, 0.0, 2.0], [0.5, 0.5, 0.5]])
    X = np.array([[1.0, 0.0, 3.0], [0.0, 2.0, 1.0], [0.0, 0.0, 0.0]])
    out = dcm_jll(X, beta)
    assert np.isneginf(out[1, 0]) and np.isfinite(out[0, 0])
    np.testing.assert_allclose(out[0, 0], direct_polya(X[:1, [0, 2]], beta[:1, [0, 2]])[0, 0])
    assert out[2, 0] == 0.0 and not np.isnan(out).any()


# -- the fixed point ---------------------------------------------------------------------------
@pytest.mark.parametrize(("extra", "rate"), [(0.0, 0.0), (0.5, 2.0)])
def test_fixed_point_reaches_the_maximum(sim, extra, rate):
    _, X, y = sim
    st, totals = polya_stats(X, y, 2)
    fp = polya_fixed_point(st, totals, shape_extra=extra, rate=rate, tol=1e-12, max_iter=20000)
    assert fp.converged
    beta = fp.beta
    g = polya_gradient(beta, st, extra, rate)
    # d objective / d ln β = β g: zero at the optimum, relative to the size of its terms.
    scale = beta * (st.num(beta) + st.den(beta.sum(axis=1))[:, None])
    assert np.max(np.abs(beta * g) / scale) < 1e-8

    def objective(b):
        return st.log_likelihood(b).sum() + np.sum(extra * np.log(b) - rate * b)

    best = objective(beta)
    rng = np.random.default_rng(0)
    for step in (1e-4, 1e-2, 0.2):
        for _ in range(10):
            assert objective(beta * np.exp(step * rng.standard_normal(beta.shape))) <= best
        # the scale direction, which the fixed point is slowest along
        assert objective(beta * (1 + step)) <= best
        assert objective(beta * (1 - step)) <= best


def test_fixed_point_recovers_the_simulation(sim):
    beta, X, y = sim
    est = DirichletCompoundNB(estimate="mle", tol=1e-10, max_iter=5000).fit(X, y)
    # 200 documents per class: typical β within 15% (small β, seen in few documents, are
    # known less well: the interval test below checks those), every B_c within 15%.
    rel = np.abs(est.concentration_ / beta - 1)
    assert np.median(rel) < 0.15, np.median(rel)
    np.testing.assert_allclose(est.concentration_.sum(axis=1), beta.sum(axis=1), rtol=0.15)


def test_unseen_features_mle_zero_map_smoothed():
    X, y = simulate(true_beta(5, n_features=6), 80, seed=2)
    X[y == 0, 5] = 0  # feature 5 never occurs in class 0
    mle = DirichletCompoundNB(estimate="mle").fit(X, y)
    assert mle.concentration_[0, 5] == 0.0 and np.isneginf(mle.feature_log_prob_[0, 5])
    m = DirichletCompoundNB(estimate="map", prior_shape=1.5, prior_rate=1.0).fit(X, y)
    st = m.polya_stats_
    den = st.den(m.concentration_.sum(axis=1))[0]
    assert m.concentration_[0, 5] == pytest.approx(0.5 / (den + 1.0), rel=1e-5)
    np.testing.assert_allclose(np.exp(m.feature_log_prob_).sum(axis=1), 1.0)


def test_convergence_warning():
    X, y = simulate(true_beta(), 100, seed=3)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        DirichletCompoundNB(max_iter=1, tol=1e-12).fit(X, y)


# -- the Laplace approximation -----------------------------------------------------------------
def _log_post_u(st, u, shape, rate):
    beta = np.exp(u)
    return st.log_likelihood(beta) + gamma_log_density_u(beta, shape, rate)


def test_laplace_covariance_is_the_inverse_negative_hessian():
    X, y = simulate(true_beta(7, n_features=4), 150, seed=4)
    st, totals = polya_stats(X, y, 2)
    lap, _ = laplace_posterior(st, totals, 1.5, 0.5, tol=1e-13, max_iter=20000)
    u0 = np.log(lap.mode)
    h = 1e-4
    for c in range(2):
        V = u0.shape[1]
        H = np.empty((V, V))
        for i in range(V):
            for j in range(V):
                pts = []
                for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                    u = u0.copy()
                    u[c, i] += si * h
                    u[c, j] += sj * h
                    pts.append(_log_post_u(st, u, 1.5, 0.5)[c])
                H[i, j] = (pts[0] - pts[1] - pts[2] + pts[3]) / (4 * h * h)
        cov = np.linalg.inv(-H)
        np.testing.assert_allclose(lap.log_var[c], np.diag(cov), rtol=1e-4)
        # draws: the empirical covariance of ln β is the same matrix
        d = np.log(lap.draws(np.random.default_rng(c), (40000,)))[:, c]
        np.testing.assert_allclose(np.cov(d.T), cov, atol=0.03 * np.abs(cov).max())


def test_laplace_evidence_against_importance_sampling():
    X, y = simulate(true_beta(8, n_features=3), 300, seed=5)
    st, totals = polya_stats(X, y, 2)
    shape, rate = 2.0, 1.0
    lap, _ = laplace_posterior(st, totals, shape, rate, tol=1e-13, max_iter=20000)
    rng = np.random.default_rng(0)
    u0 = np.log(lap.mode)
    for c in range(2):
        g = lap.mode[c] / lap.prec_diag[c]
        cov = np.diag(1.0 / lap.prec_diag[c]) + (lap.rank_one[c] / lap._slack[c]) * np.outer(g, g)
        q = stats.multivariate_t(loc=u0[c], shape=cov * 1.5, df=5)  # heavier tails than p
        u = q.rvs(size=40000, random_state=rng)
        full = np.repeat(u0[None], u.shape[0], axis=0)
        full[:, c] = u
        log_p = np.array([_log_post_u(st, f, shape, rate)[c] for f in full])
        log_w = log_p - q.logpdf(u)
        exact = np.logaddexp.reduce(log_w) - np.log(log_w.size)
        # 150 documents of 3 features: the Laplace estimate is within 0.05 nats
        assert lap.log_evidence()[c] == pytest.approx(exact, abs=0.05)


def test_laplace_interval_covers_the_truth(sim):
    beta, X, y = sim
    est = DirichletCompoundNB(estimate="mean", prior_shape=1.0, prior_rate=0.01).fit(X, y)
    lo, hi = est.laplace_.interval(0.95)
    covered = (lo <= beta) & (beta <= hi)
    assert covered.mean() >= 0.9, covered.mean()  # 40 cells, nominal 0.95
    mean = est.concentration_
    np.testing.assert_allclose(mean, est.laplace_.mean())
    assert np.all(est.laplace_.sd() > 0)


# -- the estimator -----------------------------------------------------------------------------
def test_partial_fit_equals_fit_and_weights_repeat_rows(sim):
    _, X, y = sim
    Xs = sp.csr_matrix(X)
    full = DirichletCompoundNB().fit(Xs, y)
    part = DirichletCompoundNB()
    for rows in np.array_split(np.arange(X.shape[0]), 3):
        part.partial_fit(Xs[rows], y[rows], classes=[0, 1])
    np.testing.assert_array_equal(part.value_count_.toarray(), full.value_count_.toarray())
    np.testing.assert_array_equal(part.length_count_.toarray(), full.length_count_.toarray())
    np.testing.assert_allclose(part.concentration_, full.concentration_, rtol=1e-12)
    np.testing.assert_allclose(part.predict_proba(X), full.predict_proba(X), rtol=1e-10)
    w = np.tile([1.0, 2.0, 0.0], X.shape[0] // 3 + 1)[: X.shape[0]]
    weighted = DirichletCompoundNB().fit(X, y, sample_weight=w)
    rows = np.repeat(np.arange(X.shape[0]), w.astype(int))
    repeated = DirichletCompoundNB().fit(X[rows], y[rows])
    np.testing.assert_allclose(weighted.concentration_, repeated.concentration_, rtol=1e-12)
    np.testing.assert_allclose(weighted.class_count_, repeated.class_count_)


def test_statistics_histograms_by_hand():
    X = np.array([[2, 0, 1], [2, 1, 0], [0, 0, 5], [1, 1, 1]], dtype=float)
    y = np.array([0, 0, 1, 1])
    est = DirichletCompoundNB().fit(sp.csr_matrix(X), y, sample_weight=[1, 2, 1, 1])
    h = est.value_count_.toarray()
    assert h[0, 2] == 3.0  # class 0, feature 0: count 2 in docs of weight 1 and 2
    assert h[1, 1] == 2.0 and h[2, 1] == 1.0
    assert h[3 + 2, 5] == 1.0 and h[3 + 2, 1] == 1.0
    L = est.length_count_.toarray()
    assert L[0, 3] == 3.0 and L[1, 5] == 1.0 and L[1, 3] == 1.0


def test_estimates_and_layout(sim):
    _, X, y = sim
    est = DirichletCompoundNB().fit(X, y)
    for name in ("mle", "map", "mean"):
        pe = est.point_estimate(name)
        assert list(pe.posterior.data_vars) == ["class_prior", "concentration", "feature_prob"]
        beta = pe.posterior["concentration"].values[0, 0]
        np.testing.assert_allclose(
            pe.posterior["feature_prob"].values[0, 0], beta / beta.sum(axis=1, keepdims=True)
        )
        np.testing.assert_allclose(
            beta, clone(est).set_params(estimate=name).fit(X, y).concentration_
        )
    with pytest.raises(ValueError, match="fit_pymc"):
        est.point_estimate("bayes")
    draws = est.sample_posterior(draws=200, chains=2, random_seed=0)
    assert draws.posterior["concentration"].dims == ("chain", "draw", "class", "feature")
    np.testing.assert_allclose(draws.posterior["feature_prob"].sum("feature"), 1.0)
    again = est.sample_posterior(draws=200, chains=2, random_seed=0, features=[0, 3])
    assert again.posterior["feature_prob"].shape == (2, 200, 2, 2)
    from bayesnb.draws import posterior_summary

    summ = posterior_summary(est, ci_prob=0.9)
    np.testing.assert_allclose(
        summ["concentration"].sel(summary="mean").values, est.laplace_.mean()
    )


def test_log_evidence_is_laplace_plus_class_term(sim):
    _, X, y = sim
    est = DirichletCompoundNB(prior_shape=2.0).fit(X, y)
    from bayesnb.evidence import class_log_evidence

    want = class_log_evidence(est) + est.laplace_.log_evidence().sum()
    assert est.log_evidence() == pytest.approx(want)
    assert np.isfinite(want)


def test_label_log_likelihood_and_compare(sim):
    _, X, y = sim
    est = DirichletCompoundNB().fit(X[:300], y[:300])
    tree = est.label_log_likelihood(X[:300], y[:300], draws=50)
    ll = tree["log_likelihood"]["y"].values
    assert ll.shape == (1, 50, 300) and np.all(ll <= 0)
    ds = bnb.compare(
        {"dcm": DirichletCompoundNB(), "multinomial": bnb.MultinomialNB()},
        X[:300],
        y[:300],
        X[300:],
        y[300:],
        loo_draws=100,
    )
    assert np.isfinite(ds["elpd_loo"].sel(name="dcm"))
    # data from a DCM: its held-out label log-density beats the multinomial's
    assert float(ds["lpd"].sel(name="dcm")) > float(ds["lpd"].sel(name="multinomial"))


def test_save_load_identical(sim, tmp_path):
    _, X, y = sim
    labels = np.array(["spam", "ham"])[y]
    for estimate in ("map", "mean"):
        est = DirichletCompoundNB(estimate=estimate).fit(sp.csr_matrix(X), labels)
        path = tmp_path / f"dcm_{estimate}.nc"
        est.save(path)
        loaded = bnb.load(path, expected="DirichletCompoundNB")
        np.testing.assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))
        np.testing.assert_array_equal(loaded.value_count_.toarray(), est.value_count_.toarray())
        assert loaded.get_params() == est.get_params()


def test_bad_inputs():
    X = np.array([[1.0, 2.0], [0.0, 3.0], [2.0, 0.0]])
    y = [0, 1, 1]
    with pytest.raises(ValueError, match="Negative"):
        DirichletCompoundNB().fit(-X, y)
    with pytest.raises(ValueError, match="NaN"):
        DirichletCompoundNB().fit(np.where(X == 0, np.nan, X), y)
    with pytest.raises(ValueError, match="token counts"):
        DirichletCompoundNB().fit(X + 0.5, y)
    with pytest.raises(ValueError, match=r"no closed form.*fit_pymc"):
        DirichletCompoundNB(estimate="bayes").fit(X, y)
    with pytest.raises(ValueError, match="prior_shape >= 1"):
        DirichletCompoundNB(prior_shape=0.5).fit(X, y)
    DirichletCompoundNB(prior_shape=0.5, estimate="mean").fit(X, y)  # the mean exists
    with pytest.raises(ValueError, match="prior_rate"):
        DirichletCompoundNB(prior_rate=0.0).fit(X, y)
    with pytest.raises(TypeError, match="prior_shape"):
        DirichletCompoundNB(prior_shape="2").fit(X, y)
    with pytest.raises(ValueError, match="max_iter"):
        DirichletCompoundNB(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="tol"):
        DirichletCompoundNB(tol=-1.0).fit(X, y)
    est = DirichletCompoundNB().fit(X, y)
    with pytest.raises(ValueError, match="no closed form"):
        est.set_params(estimate="bayes").predict(X)


# -- generating documents and burstiness -------------------------------------------------------
def test_polya_urn_has_the_dcm_moments():
    beta = np.array([[0.3, 1.2, 0.05, 2.0]])
    n, N = 30, 40000
    X = polya_urn(np.random.default_rng(0), beta, np.zeros(N, dtype=np.intp), np.full(N, n))
    X = X.toarray()
    assert np.all(X.sum(axis=1) == n)
    B = beta.sum()
    theta = beta[0] / B
    np.testing.assert_allclose(X.mean(axis=0), n * theta, rtol=0.02)
    var = n * theta * (1 - theta) * (n + B) / (1 + B)  # the DCM's overdispersed variance
    np.testing.assert_allclose(X.var(axis=0), var, rtol=0.04)


def test_sample_draws_lengths_from_the_training_histogram(sim):
    _, X, y = sim
    est = DirichletCompoundNB().fit(X, y)
    Xs, ys = est.sample(300, random_seed=0)
    assert sp.issparse(Xs) and Xs.shape == (300, X.shape[1])
    lengths = set(np.asarray(X.sum(axis=1)).astype(int))
    assert set(np.asarray(Xs.sum(axis=1)).ravel().astype(int)) <= lengths
    assert set(ys) <= {0, 1}


@pytest.fixture(scope="module")
def bursty():
    # Small B: documents concentrate on a few words each, repeated.
    beta = true_beta(11, n_features=30) * 0.5
    X, y = simulate(beta, 600, seed=12, lengths=(20, 80))
    return X[:400], y[:400], X[400:], y[400:]


def test_dcm_beats_multinomial_on_bursty_data(bursty):
    Xtr, ytr, Xte, yte = bursty
    dcm = DirichletCompoundNB().fit(Xtr, ytr)
    multi = bnb.MultinomialNB(alpha=1.0).fit(Xtr, ytr)
    rows = np.arange(yte.size)
    # Held-out log-likelihood of the documents given their class (both as token sequences).
    ll_dcm = dcm._log_likelihood(dcm._check_input(Xte, reset=False))[rows, yte].sum()
    ll_multi = multi._log_likelihood(multi._check_input(Xte, reset=False))[rows, yte].sum()
    assert ll_dcm > ll_multi + 1000, (ll_dcm, ll_multi)


def test_distinct_words_check_on_bursty_data(bursty):
    Xtr, ytr, Xte, yte = bursty
    dcm = DirichletCompoundNB().fit(Xtr, ytr)
    multi = bnb.MultinomialNB(alpha=1.0).fit(Xtr, ytr)
    r_dcm = distinct_words_check(dcm, Xte, yte, n_replicates=40)
    r_multi = distinct_words_check(multi, Xte, yte, n_replicates=40)
    assert r_dcm["observed_mean"] == r_multi["observed_mean"]
    np.testing.assert_array_equal(r_dcm["observed"], (Xte > 0).sum(axis=1))
    # Measured: DCM 1.034 (its fitted B_c are 7% above the truth on this sample), the
    # multinomial 2.25: it spreads each document over twice the distinct words.
    assert abs(r_dcm["ratio"] - 1) < 0.06, r_dcm["ratio"]
    assert r_multi["ratio"] > 1.8 and r_multi["p_value"] == 1.0
    with pytest.raises(TypeError, match="DirichletCompoundNB or MultinomialNB"):
        distinct_words_check(bnb.BernoulliNB().fit(Xtr, ytr), Xte, yte)


def test_sklearn_clone_and_warning_free_fit(sim):
    _, X, y = sim
    est = DirichletCompoundNB(prior_shape=1.3, tol=1e-8)
    c = clone(est)
    assert c.get_params() == est.get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c.fit(X, y)
    assert c.score(X, y) > 0.8
    assert c.n_iter_ >= 1


def test_digamma_sums_use_only_stored_counts():
    # num(β) over the histogram equals the dense Σ_d [ψ(x + β) − ψ(β)] with its zeros.
    X, y = simulate(true_beta(2, n_features=5), 50, seed=9)
    st, _ = polya_stats(X, y, 2)
    beta = np.full((2, 5), 0.7)
    dense = np.stack([(digamma(X[y == c] + 0.7) - digamma(0.7)).sum(axis=0) for c in range(2)])
    np.testing.assert_allclose(st.num(beta), dense, rtol=1e-12)
