"""Closed-form log evidence against brute-force integration; evidence-maximising α."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import gammaln

import bayesnb as bnb
from bayesnb import evidence
from bayesnb.evidence import fit_symmetric_dirichlet, log_evidence

# -- brute force ---------------------------------------------------------------------------------


def _log_quad(f, lo=0.0, hi=1.0) -> float:
    val, err = integrate.quad(f, lo, hi, limit=200, epsabs=0, epsrel=1e-11)
    assert err < 1e-8 * val
    return float(np.log(val))


def _class_term(y: np.ndarray, gamma: float) -> float:
    """log ∫ Π_i π_{y_i} Dirichlet(π; γ, γ) dπ for two classes, document by document."""
    return _log_quad(
        lambda p: np.prod(np.where(y == 0, p, 1 - p)) * stats.beta.pdf(p, gamma, gamma)
    )


def _log_simplex_integral(density) -> float:
    """log ∫ over the 2-simplex of density(θ1, θ2, 1 − θ1 − θ2)."""
    val, err = integrate.dblquad(
        lambda t2, t1: density(t1, t2, max(1.0 - t1 - t2, 0.0)),
        0.0,
        1.0,
        0.0,
        lambda t1: 1.0 - t1,
        epsabs=0,
        epsrel=1e-9,
    )
    assert err < 1e-6 * val
    return float(np.log(val))


def _simplex_density(alpha, counts):
    """θ -> Dirichlet(θ; alpha) · Π_j θ_j^{counts_j} on the 2-simplex (0 on its boundary)."""
    alpha = np.asarray(alpha, dtype=float)
    log_norm = gammaln(alpha.sum()) - gammaln(alpha).sum()
    power = alpha - 1 + np.asarray(counts, dtype=float)

    def density(t1, t2, t3):
        if min(t1, t2, t3) <= 0:
            return 0.0
        return float(np.exp(log_norm + power @ np.log([t1, t2, t3])))

    return density


def test_beta_bernoulli_evidence_equals_quadrature():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 14)
    x = (rng.random(14) < np.where(y == 0, 0.8, 0.3)).astype(float)
    a, b, gamma = 1.7, 2.4, 1.5
    est = bnb.BernoulliNB(alpha=a, beta=b, class_alpha=gamma).fit(x[:, None], y)
    brute = _class_term(y, gamma)
    for c in (0, 1):
        xc = x[y == c]
        brute += _log_quad(
            lambda f, xc=xc: np.prod(np.where(xc == 1, f, 1 - f)) * stats.beta.pdf(f, a, b)
        )
    assert log_evidence(est) == pytest.approx(brute, abs=1e-8)
    assert est.log_evidence() == log_evidence(est)


def test_dirichlet_multinomial_evidence_equals_simplex_integral():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 6)
    theta = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])
    X = np.stack([rng.multinomial(3, theta[c]) for c in y]).astype(float)
    alpha, gamma = np.array([1.3, 2.0, 1.6]), 2.5
    est = bnb.MultinomialNB(alpha=alpha, class_alpha=gamma).fit(X, y)
    brute = _class_term(y, gamma)
    for c in (0, 1):
        # Token-sequence likelihood Π_i Π_j θ_j^{x_ij} (no multinomial coefficient).
        density = _simplex_density(alpha, X[y == c].sum(axis=0))
        brute += _log_simplex_integral(density)
    assert log_evidence(est) == pytest.approx(brute, abs=1e-6)


def test_categorical_evidence_equals_simplex_integral_and_multinomial_pieces():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 10)
    X = np.stack([rng.integers(0, 2, 10), rng.integers(0, 4, 10)], axis=1).astype(float)
    a, gamma = 1.5, 1.2
    est = bnb.CategoricalNB(alpha=a, class_alpha=gamma).fit(X, y)
    # Feature 0 has k = 2 categories + the pooled unseen slot: a Dirichlet over 3 slots.
    piece0 = 0.0
    for c in (0, 1):
        n = np.bincount(X[y == c, 0].astype(int), minlength=3)  # slot 2 (unseen) stays 0
        density = _simplex_density([a] * 3, n)
        piece0 += _log_simplex_integral(density)
    # Feature 1 (4 categories + unseen) equals a multinomial NB on its one-hot columns.
    onehot = np.zeros((10, 5))
    onehot[np.arange(10), X[:, 1].astype(int)] = 1.0
    multi = bnb.MultinomialNB(alpha=a, class_alpha=gamma).fit(onehot, y)
    piece1 = log_evidence(multi) - _class_term(y, gamma)
    expected = _class_term(y, gamma) + piece0 + piece1
    assert log_evidence(est) == pytest.approx(expected, abs=1e-6)


def test_class_term_for_fixed_and_improper_class_priors():
    rng = np.random.default_rng(3)
    y = rng.choice(3, 40, p=[0.6, 0.3, 0.1])
    X = rng.poisson(2.0, (40, 4))
    base = bnb.MultinomialNB(class_alpha=1.0).fit(X, y)
    feature_part = log_evidence(base) - evidence.dirichlet_log_evidence(
        1.0, base.class_count_[None, :]
    )
    counts = np.bincount(y, minlength=3)
    fixed = bnb.MultinomialNB(class_prior=[0.5, 0.25, 0.25]).fit(X, y)
    assert log_evidence(fixed) == pytest.approx(
        feature_part + counts @ np.log([0.5, 0.25, 0.25]), rel=1e-12
    )
    uniform = bnb.MultinomialNB(fit_prior=False, class_alpha=0.0).fit(X, y)
    assert log_evidence(uniform) == pytest.approx(feature_part - 40 * np.log(3), rel=1e-12)
    with pytest.raises(ValueError, match="class_alpha > 0"):
        log_evidence(bnb.MultinomialNB(class_alpha=0.0).fit(X, y))
    impossible = bnb.MultinomialNB(class_prior=[0.5, 0.5, 0.0]).fit(X, y)
    assert log_evidence(impossible) == -np.inf
    with pytest.raises(TypeError, match="closed-form evidence"):
        log_evidence(object())


# -- learning α ----------------------------------------------------------------------------------


def _multinomial_data(alpha_true=0.3, k=8, v=120, seed=4):
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet([alpha_true] * v, size=k)
    y = np.repeat(np.arange(k), 25)
    X = np.stack([rng.multinomial(rng.integers(20, 60), theta[c]) for c in y])
    return X, y


def _bernoulli_data(seed=5):
    rng = np.random.default_rng(seed)
    phi = rng.beta(0.4, 0.4, size=(4, 60))
    y = np.repeat(np.arange(4), 15)
    return (rng.random((60, 60)) < phi[y]).astype(float), y


def _categorical_data(seed=6):
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet([0.5] * 4, size=(3, 20))
    y = np.repeat(np.arange(3), 30)
    u = rng.random((90, 20, 1))
    return (u > np.cumsum(theta[y], axis=-1)).sum(-1), y


CASES = {
    "multinomial": (bnb.MultinomialNB, {}, _multinomial_data),
    "bernoulli": (bnb.BernoulliNB, {}, _bernoulli_data),
    "bernoulli_fixed_beta": (bnb.BernoulliNB, {"beta": 2.0}, _bernoulli_data),
    "categorical": (bnb.CategoricalNB, {}, _categorical_data),
}


@pytest.mark.parametrize("case", list(CASES))
def test_alpha_evidence_is_the_maximum(case):
    cls, extra, data = CASES[case]
    X, y = data()
    est = cls(alpha="evidence", **extra).fit(X, y)
    a = est.alpha_
    assert isinstance(a, float) and 1e-3 < a < 1e3
    best = est.log_evidence()
    for factor in (0.9, 1.1, 0.999, 1.001):
        other = cls(alpha=a * factor, **extra).fit(X, y).log_evidence()
        assert other < best
    # The fitted model is the numeric-α model at alpha_, bitwise.
    same = cls(alpha=a, **extra).fit(X, y)
    np.testing.assert_array_equal(est.predict_proba(X), same.predict_proba(X))
    assert est.get_params()["alpha"] == "evidence"


def test_learned_alpha_recovers_the_simulating_concentration():
    X, y = _multinomial_data(alpha_true=0.3, k=10, v=200)
    est = bnb.MultinomialNB(alpha="evidence").fit(X, y)
    assert 0.2 < est.alpha_ < 0.45


def test_fixed_point_and_fallback_search_maximise_the_evidence():
    # An interior optimum: the fixed point's α is that of a bounded maximisation of the log
    # evidence. Identical documents: the evidence keeps increasing with α, the iteration
    # leaves its bounds and the bounded search decides (near the bound, warned).
    from scipy.optimize import minimize_scalar

    def best(X, y):
        res = minimize_scalar(
            lambda t: -log_evidence(bnb.MultinomialNB(alpha=float(np.exp(t))).fit(X, y)),
            bounds=(np.log(1e-4), np.log(1e4)),
            method="bounded",
            options={"xatol": 1e-8},
        )
        return float(np.exp(res.x))

    X, y = _multinomial_data()
    fixed_point = bnb.MultinomialNB(alpha="evidence").fit(X, y).alpha_
    assert fixed_point == pytest.approx(best(X, y), rel=1e-5)
    same = np.ones((40, 6))
    with pytest.warns(RuntimeWarning, match="keeps increasing as alpha goes to infinity"):
        searched = bnb.MultinomialNB(alpha="evidence").fit(same, np.arange(40) % 2).alpha_
    assert searched > 1e6

    def at(a):
        return log_evidence(bnb.MultinomialNB(alpha=a).fit(same, np.arange(40) % 2))

    assert at(searched) >= at(1e4) >= at(1.0)


def test_class_alpha_evidence_is_the_maximum():
    rng = np.random.default_rng(7)
    y = rng.choice(4, 300, p=[0.55, 0.05, 0.3, 0.1])  # over-dispersed: an interior optimum
    X = rng.poisson(1.0, (300, 5))
    est = bnb.MultinomialNB(class_alpha="evidence").fit(X, y)
    g = est.class_alpha_
    assert 0.05 < g < 100
    best = est.log_evidence()
    for factor in (0.9, 1.1):
        assert bnb.MultinomialNB(class_alpha=g * factor).fit(X, y).log_evidence() < best
    # The class prior uses the learned value.
    ref = bnb.MultinomialNB(class_alpha=g).fit(X, y)
    np.testing.assert_array_equal(est.class_log_prior_, ref.class_log_prior_)
    both = bnb.CategoricalNB(alpha="evidence", class_alpha="evidence").fit(np.minimum(X, 3), y)
    assert both.class_alpha_ == pytest.approx(g, rel=1e-9)


def test_balanced_classes_push_class_alpha_to_the_bound_with_a_warning():
    y = np.repeat([0, 1, 2], 50)  # exactly balanced: the evidence grows as γ → ∞
    X = np.ones((150, 3))
    with pytest.warns(RuntimeWarning, match="keeps increasing as class_alpha"):
        est = bnb.MultinomialNB(class_alpha="evidence").fit(X, y)
    assert est.class_alpha_ > 1e6
    np.testing.assert_allclose(np.exp(est.class_log_prior_), 1 / 3, rtol=1e-5)


def test_numeric_values_are_kept_and_partial_fit_relearns():
    X, y = _multinomial_data()
    est = bnb.MultinomialNB(alpha=0.5, class_alpha=2.0).fit(X, y)
    assert est.alpha_ == 0.5 and est.class_alpha_ == 2.0
    full = bnb.MultinomialNB(alpha="evidence").fit(X, y)
    part = bnb.MultinomialNB(alpha="evidence")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        part.partial_fit(X[::2], y[::2], classes=np.unique(y))
    first = part.alpha_
    part.partial_fit(X[1::2], y[1::2])
    assert part.alpha_ != first
    assert part.alpha_ == pytest.approx(full.alpha_, rel=1e-9)


def test_fit_symmetric_dirichlet_matches_a_direct_search():
    from scipy.optimize import minimize_scalar

    rng = np.random.default_rng(8)
    counts = rng.poisson(rng.gamma(0.7, 2.0, (5, 30)))
    sizes = np.array([10, 12, 8])
    a = fit_symmetric_dirichlet(counts, sizes)
    res = minimize_scalar(
        lambda t: -evidence.dirichlet_log_evidence(np.exp(t), counts, sizes),
        bounds=(-10, 10),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert a == pytest.approx(np.exp(res.x), rel=1e-6)


def test_unknown_string_alpha_is_still_refused():
    with pytest.raises(ValueError, match="alpha"):
        bnb.MultinomialNB(alpha="laplace").fit(np.ones((4, 2)), [0, 1, 0, 1])
    with pytest.raises(TypeError, match="class_alpha"):
        bnb.MultinomialNB(class_alpha="big").fit(np.ones((4, 2)), [0, 1, 0, 1])
