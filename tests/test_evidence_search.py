"""The learned α of ``alpha="evidence"`` against a brute-force maximisation of the evidence.

For every family with a learned α (Bernoulli with β = α, with a fixed scalar β and with a
per-feature β; multinomial; categorical; Poisson), on dense and sparse data with sample
weights: the α the model learns must be the maximiser found by a bounded scalar search
(``minimize_scalar``) of the model's own closed-form ``log_evidence()`` over ln α, evaluated
with α fixed, i.e. the whole K × V evidence, not the histogram the fast search works on.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize_scalar
from sklearn.base import clone

import bayesnb as bnb
from bayesnb.posterior.empirical_bayes import (
    beta_pair_histogram,
    fit_beta_alpha,
    fit_beta_evidence,
    fit_symmetric_dirichlet,
)
from bayesnb.posterior.evidence import beta_log_evidence


def _counts(seed: int, n: int = 150, v: int = 25, k: int = 3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rates = rng.gamma(0.5, 1.0, (k, v))
    X = rng.poisson(rates[y]).astype(float)
    return X, y, rng.uniform(0.1, 3.0, n)


def _brute_force(est, X, y, w) -> tuple[float, object]:
    """α maximising ``est``'s closed-form evidence (α fixed at every evaluation), the model."""
    fixed = clone(est).set_params(alpha=1.0).fit(X, y, sample_weight=w)

    def neg(t: float) -> float:
        fixed.set_params(alpha=float(np.exp(t)))
        return -fixed.log_evidence()

    res = minimize_scalar(neg, bounds=(-9.0, 9.0), method="bounded", options={"xatol": 1e-10})
    return float(np.exp(res.x)), fixed


MODELS = {
    "bernoulli": lambda: bnb.BernoulliNB(alpha="evidence"),
    "bernoulli_beta": lambda: bnb.BernoulliNB(alpha="evidence", beta=2.5),
    "bernoulli_beta_per_feature": lambda: bnb.BernoulliNB(
        alpha="evidence", beta=np.linspace(0.5, 3.0, 25)
    ),
    "multinomial": lambda: bnb.MultinomialNB(alpha="evidence"),
    "categorical": lambda: bnb.CategoricalNB(alpha="evidence"),
    "poisson": lambda: bnb.PoissonNB(alpha="evidence", beta=0.5),
}


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("name", list(MODELS))
def test_learned_alpha_is_the_brute_force_maximiser(name, sparse):
    X, y, w = _counts(3)
    if name == "categorical":
        X = np.minimum(X, 3.0)
    Xin = sp.csr_matrix(X) if sparse else X
    est = MODELS[name]().fit(Xin, y, sample_weight=w)
    best, fixed = _brute_force(est, Xin, y, w)
    # The bounded search locates a flat maximum to ~1e-8 in ln α (function values round at
    # 1e-16 relative), so it is the looser of the two.
    assert est.alpha_ == pytest.approx(best, rel=1e-6)
    fixed.set_params(alpha=est.alpha_)
    at_fast = fixed.log_evidence()
    fixed.set_params(alpha=best)
    assert at_fast >= fixed.log_evidence() - 1e-9 * abs(at_fast)


@pytest.mark.parametrize("beta", [None, 2.0, "per_feature"])
def test_bernoulli_newton_matches_todays_fixed_point(beta):
    # Today's maximisers (Minka's fixed point over K × V cells) to 1e-8 relative, weighted.
    X, y, w = _counts(5, n=300, v=40)
    post = bnb.BernoulliNB().fit(X, y, sample_weight=w).posterior_
    s, f = post.successes, post.failures
    if beta is None:
        pairs = np.stack([s, f], axis=-1).reshape(s.shape[0], -1)
        today = fit_symmetric_dirichlet(pairs, np.full(s.shape[1], 2))
    else:
        b = np.linspace(0.5, 3.0, s.shape[1]) if beta == "per_feature" else beta
        today = fit_beta_alpha(s, f, b)
        beta = b
    assert fit_beta_evidence(s, post.trials, beta) == pytest.approx(today, rel=1e-8)


def test_bernoulli_missing_values_use_per_cell_trials():
    X, y, w = _counts(7)
    X = (X > 0).astype(float)
    X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    est = bnb.BernoulliNB(alpha="evidence", missing="ignore").fit(X, y, sample_weight=w)
    best, _ = _brute_force(est, X, y, w)
    assert est.alpha_ == pytest.approx(best, rel=1e-6)


def test_pair_histogram_keeps_the_evidence():
    rng = np.random.default_rng(2)
    s = rng.integers(0, 6, (4, 50)).astype(float) * 0.5
    trials = np.array([3.0, 4.0, 3.0, 6.0])
    f = np.maximum(trials[:, None] - s, 0.0)
    for t in (trials, np.broadcast_to(trials[:, None], s.shape) - rng.integers(0, 2, s.shape)):
        n, d, _, weight = beta_pair_histogram(s, t)
        assert weight.sum() == s.size and n.size < s.size
        ff = np.maximum(t - s, 0.0) if t.ndim == 2 else f
        full = beta_log_evidence(0.7, 0.7, s, ff)
        compact = np.sum(
            weight
            * np.array(
                [
                    beta_log_evidence(0.7, 0.7, di, np.maximum(ni - di, 0.0))
                    for ni, di in zip(n, d, strict=True)
                ]
            )
        )
        assert compact == pytest.approx(full, rel=1e-12)


def test_bernoulli_evidence_at_the_bound_warns():
    # Every feature in exactly half of the documents of every class: the evidence of the
    # symmetric Beta(α, α) keeps growing as α → ∞ (the prior concentrating at p = 1/2). The
    # gradient never changes sign, so the bounded search decides and warns. (Today's fixed
    # point stalled on the flat evidence at α ≈ 5.7e6, without a warning.)
    X = np.tile(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]), (6, 1))
    y = np.repeat([0, 1], 6)
    with pytest.warns(RuntimeWarning, match="search bound"):
        est = bnb.BernoulliNB(alpha="evidence").fit(X, y)
    post = est.posterior_
    pairs = np.stack([post.successes, post.failures], axis=-1).reshape(2, -1)
    today = fit_symmetric_dirichlet(pairs, np.full(3, 2))
    assert est.alpha_ > 1e6 and today > 1e6
    s, f = post.successes, post.failures
    # Nearer the supremum at α → ∞ than today's stalled point, by a hair.
    gain = beta_log_evidence(est.alpha_, est.alpha_, s, f) - beta_log_evidence(today, today, s, f)
    assert 0.0 <= gain < 1e-5
