"""Synthetic data from the fitted generative models: shapes, dtypes and frequencies."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

import bayesnb as bnb
from bayesnb.generate import sample

N = 20_000


def _within(observed, expected, se, k=4.0) -> None:
    observed, expected, se = map(np.asarray, (observed, expected, se))
    assert np.all(np.abs(observed - expected) <= k * se + 1e-12), (observed, expected, se)


def _check_classes(est, y) -> np.ndarray:
    assert y.shape == (N,) and y.dtype == est.classes_.dtype
    p = np.exp(est.class_log_prior_)
    freq = np.array([np.mean(y == c) for c in est.classes_])
    _within(freq, p, np.sqrt(p * (1 - p) / N))
    return np.searchsorted(est.classes_, y)


def test_bernoulli_sample_matches_phi():
    rng = np.random.default_rng(0)
    y = rng.choice(["no", "yes"], 300, p=[0.7, 0.3])
    X = (rng.random((300, 8)) < np.where(y[:, None] == "yes", 0.7, 0.2)).astype(float)
    est = bnb.BernoulliNB(alpha=1.0, class_alpha=1.0).fit(X, y)
    Xs, ys = est.sample(N, random_seed=1)
    assert isinstance(Xs, np.ndarray) and Xs.shape == (N, 8) and Xs.dtype == np.int64
    assert set(np.unique(Xs)) <= {0, 1}
    codes = _check_classes(est, ys)
    phi = np.exp(est.feature_log_prob_)
    for c in range(2):
        n_c = np.sum(codes == c)
        _within(Xs[codes == c].mean(axis=0), phi[c], np.sqrt(phi[c] * (1 - phi[c]) / n_c))


def test_categorical_sample_matches_theta_including_the_unseen_slot():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 200)
    X = np.stack([rng.integers(0, 3, 200), rng.integers(0, 5, 200)], axis=1)
    est = bnb.CategoricalNB(alpha=2.0, estimate="map").fit(X, y)
    Xs, ys = sample(est, N, random_seed=3)
    assert Xs.shape == (N, 2) and Xs.dtype == np.int64 and ys.dtype == y.dtype
    codes = _check_classes(est, ys)
    for j, table in enumerate(est.feature_log_prob_):
        theta = np.exp(table)  # slots 0..k_j-1 and the unseen slot k_j
        assert Xs[:, j].max() <= table.shape[1] - 1
        for c in range(3):
            n_c = np.sum(codes == c)
            freq = np.bincount(Xs[codes == c, j], minlength=table.shape[1]) / n_c
            _within(freq, theta[c], np.sqrt(theta[c] * (1 - theta[c]) / n_c))


def _multinomial_training(seed=4):
    rng = np.random.default_rng(seed)
    y = rng.choice(3, 240, p=[0.5, 0.3, 0.2])
    lengths = np.where(y == 0, rng.integers(0, 6, 240), rng.integers(10, 16, 240))
    theta = rng.dirichlet(np.ones(6), size=3)
    X = np.stack([rng.multinomial(n, theta[c]) for n, c in zip(lengths, y, strict=True)])
    w = np.where(lengths % 2 == 0, 2.0, 1.0)  # weights enter the length histogram
    return X, y, w


def _expected_lengths(X, y, w, c) -> np.ndarray:
    lengths = X[y == c].sum(axis=1)
    return np.bincount(lengths, weights=w[y == c], minlength=40)[:40] / w[y == c].sum()


def test_multinomial_sample_tokens_and_lengths():
    X, y, w = _multinomial_training()
    est = bnb.MultinomialNB(alpha=0.5).fit(sp.csr_matrix(X), y, sample_weight=w)
    Xs, ys = est.sample(N, random_seed=5)
    assert sp.issparse(Xs) and Xs.format == "csr" and Xs.dtype == np.int64
    assert Xs.shape == (N, 6)
    codes = _check_classes(est, ys)
    theta = np.exp(est.feature_log_prob_)
    lengths = np.asarray(Xs.sum(axis=1)).ravel()
    for c in range(3):
        tokens = np.asarray(Xs[codes == c].sum(axis=0)).ravel()
        total = tokens.sum()
        _within(tokens / total, theta[c], np.sqrt(theta[c] * (1 - theta[c]) / total))
        # Lengths follow the (weighted) training length distribution of the class.
        expected = _expected_lengths(X, y, w, c)
        seen = np.bincount(lengths[codes == c], minlength=40)[:40]
        assert seen[expected == 0].sum() == 0
        keep = expected > 0
        chi = stats.chisquare(seen[keep], expected[keep] * seen.sum())
        assert chi.pvalue > 1e-3
    # Class 0 documents are short, the others long: lengths are per class, not pooled.
    assert lengths[codes == 0].max() <= 5 and lengths[codes != 0].min() >= 10


def test_multinomial_bayes_draws_theta_per_document():
    rng = np.random.default_rng(6)
    y = np.repeat([0, 1], 5)  # little data: the posterior of θ stays wide
    X = rng.multinomial(6, [0.4, 0.3, 0.2, 0.1], size=10)
    est = bnb.MultinomialNB(alpha=1.0, estimate="bayes").fit(X, y)
    Xs, ys = est.sample(N, random_seed=7)
    codes = _check_classes(est, ys)
    a = est.posterior_.concentration
    for c in range(2):
        docs = Xs[codes == c].toarray()
        n = docs.sum(axis=1)
        p = docs[n > 0] / n[n > 0, None]
        m = p.shape[0]
        mean = a[c] / a[c].sum()
        _within(p.mean(axis=0), mean, p.std(axis=0) / np.sqrt(m))
        # Var(x_j / n) = θ̄(1 − θ̄) [A E(1/n) / (A + 1) + 1 / (A + 1)] under a θ per document;
        # a single fixed θ would give θ̄(1 − θ̄) E(1/n) only.
        A, inv_n = a[c].sum(), np.mean(1.0 / n[n > 0])
        var_dm = mean * (1 - mean) * (A * inv_n / (A + 1) + 1 / (A + 1))
        var_fixed = mean * (1 - mean) * inv_n
        dev = p - p.mean(axis=0)
        v_hat = (dev**2).mean(axis=0)
        se = np.sqrt(((dev**4).mean(axis=0) - v_hat**2) / m)
        _within(v_hat, var_dm, se)
        assert np.all(v_hat - var_fixed > 4 * se)


def test_class_without_documents_uses_the_pooled_lengths_and_unk_columns():
    X, y, _ = _multinomial_training()
    X[:, 4] = 0  # never seen: pooled into UNK
    est = bnb.MultinomialNB(unk=True, class_alpha=50.0).partial_fit(X, y, classes=[0, 1, 2, 3])
    Xs, ys = est.sample(N, random_seed=8)
    empty = ys == 3
    assert empty.sum() > 1000  # the smoothed class prior gives the empty class mass
    lengths = np.asarray(Xs[empty].sum(axis=1)).ravel()
    all_lengths = set(X.sum(axis=1).tolist())
    assert set(lengths.tolist()) <= all_lengths and len(set(lengths.tolist())) > 5
    # UNK tokens land in the pooled column with the UNK probability.
    conc = est.posterior_.concentration
    p_unk = conc[0, -1] / conc[0].sum()
    docs = Xs[ys == 0]
    total = docs.sum()
    _within(docs[:, 4].sum() / total, p_unk, np.sqrt(p_unk * (1 - p_unk) / total))


def test_sample_is_reproducible_and_checks_n():
    X, y, _ = _multinomial_training()
    est = bnb.MultinomialNB().fit(X, y)
    a, ya = est.sample(500, random_seed=9)
    b, yb = est.sample(500, random_seed=9)
    c, _ = est.sample(500, random_seed=10)
    assert (a != b).nnz == 0 and np.array_equal(ya, yb) and (a != c).nnz > 0
    X0, y0 = est.sample(0)
    assert X0.shape == (0, 6) and y0.shape == (0,)
    with pytest.raises(ValueError, match="n must be"):
        est.sample(-1)
    with pytest.raises(TypeError, match=r"not supported by bayesnb\.generate"):
        sample(object(), 3)


def test_generated_data_refit_recovers_the_parameters():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 400)
    X = (rng.random((400, 5)) < np.where(y[:, None] == 1, 0.8, 0.3)).astype(float)
    est = bnb.BernoulliNB().fit(X, y)
    Xs, ys = est.sample(N, random_seed=12)
    refit = bnb.BernoulliNB().fit(Xs, ys)
    phi, phi2 = np.exp(est.feature_log_prob_), np.exp(refit.feature_log_prob_)
    n_c = refit.class_count_[:, None]
    _within(phi2, phi, np.sqrt(phi * (1 - phi) / n_c) + 1.0 / n_c)
