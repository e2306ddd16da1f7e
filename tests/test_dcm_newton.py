"""DirichletCompoundNB's Newton fit against Minka's fixed point (the fit before Newton)."""

from __future__ import annotations

import numpy as np
import pytest

from bayesnb import DirichletCompoundNB
from bayesnb.posterior.polya import (
    polya_fixed_point,
    polya_gradient,
    polya_newton,
    polya_objective,
)
from bayesnb.stats.histograms import count_values
from tests.test_dcm import polya_stats, simulate, true_beta

# (shape_extra, rate): the MLE, the default MAP (Gamma(1.1, 1)) and the Laplace mode in ln β.
PRIORS = [(0.0, 0.0), (0.1, 1.0), (1.1, 1.0)]


def _relative_gradient(st, beta, extra, rate) -> float:
    """max |∂/∂ln β| relative to the size of its terms, over the cells with β > 0."""
    g = polya_gradient(beta, st, extra, rate)
    scale = beta * (st.num(beta) + st.den(beta.sum(axis=1))[:, None] + rate) + extra
    live = beta > 0
    return float(np.max(np.abs(beta * g)[live] / scale[live]))


@pytest.mark.parametrize(("extra", "rate"), PRIORS)
@pytest.mark.parametrize("seed", [0, 1])
def test_newton_reaches_the_fixed_point_optimum(seed, extra, rate):
    X, y = simulate(true_beta(seed, n_classes=3, n_features=15), 240, seed=seed)
    st, totals = polya_stats(X, y, 3)
    fp = polya_fixed_point(st, totals, shape_extra=extra, rate=rate, tol=1e-13, max_iter=50000)
    nt = polya_newton(st, totals, shape_extra=extra, rate=rate, tol=1e-6)
    assert fp.converged and nt.converged
    assert nt.n_iter < 20 < fp.n_iter
    np.testing.assert_allclose(nt.beta, fp.beta, rtol=1e-8)
    assert _relative_gradient(st, nt.beta, extra, rate) < 1e-8


@pytest.mark.parametrize(("extra", "rate"), PRIORS)
def test_every_accepted_step_increases_the_objective(extra, rate):
    X, y = simulate(true_beta(4, n_classes=3, n_features=30), 150, seed=4)
    st, totals = polya_stats(X, y, 3)
    trace: list = []
    nt = polya_newton(st, totals, shape_extra=extra, rate=rate, trace=trace)
    assert len(trace) == nt.n_iter + 1 and not trace[0][1].any()
    objs = np.array([o for o, _ in trace])
    newton = np.array([n for _, n in trace])
    assert newton[1:].sum() > 0
    rise = np.diff(objs, axis=0)
    slack = 1e-12 * (np.abs(objs[:-1]) + 1.0)  # rounding of the sums, as in the acceptance
    assert np.all(rise[newton[1:]] >= -slack[newton[1:]])
    assert np.all(rise >= -slack)  # the fixed-point steps never decrease it either
    np.testing.assert_allclose(objs[-1], polya_objective(st, nt.beta, extra, rate), rtol=1e-14)


def _one_document_class():
    """Class 0: 60 bursty documents; class 1: one document, holding feature 7 once (the only
    occurrence of feature 7 in the data) and features it shares with class 0."""
    X, y = simulate(true_beta(2, n_classes=1, n_features=8), 60, seed=2)
    X[:, 7] = 0.0
    doc = np.array([[3.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 1.0]])
    return np.vstack([X, doc]), np.append(y, 1)


@pytest.mark.parametrize(("extra", "rate"), PRIORS[1:])
def test_a_class_with_one_document_and_a_feature_seen_once(extra, rate):
    X, y = _one_document_class()
    st, totals = polya_stats(X, y, 2)
    assert count_values(X, y, np.ones(y.size), 2)[1 * 8 + 7].sum() == 1.0
    fp = polya_fixed_point(st, totals, shape_extra=extra, rate=rate, tol=1e-13, max_iter=50000)
    nt = polya_newton(st, totals, shape_extra=extra, rate=rate)
    assert nt.converged and np.all(np.isfinite(nt.beta)) and np.all(nt.beta > 0)
    np.testing.assert_allclose(nt.beta, fp.beta, rtol=1e-8)
    assert _relative_gradient(st, nt.beta, extra, rate) < 1e-8
    # Feature 7 never occurs in class 0: the MAP there is the smoothing (a − 1)/(den + b).
    den0 = st.den(nt.beta.sum(axis=1))[0]
    assert nt.beta[0, 7] == pytest.approx(extra / (den0 + rate), rel=1e-10)


def test_estimator_uses_newton_for_every_estimate():
    X, y = _one_document_class()
    for estimate in ("map", "mean", "mle"):
        est = DirichletCompoundNB(estimate=estimate, max_iter=100)
        with np.errstate(all="ignore"):
            est.fit(X, y)
        if estimate == "mle":
            # One document: its Pólya likelihood has no finite maximum in the scale of β.
            continue
        assert est.n_iter_ < 30
        assert np.all(np.isfinite(est.predict_joint_log_proba(X)))
    mle = DirichletCompoundNB(estimate="mle").fit(*simulate(true_beta(), 200, seed=1))
    assert mle.n_iter_ < 20


def _sparse_words(seed: int = 7):
    """Many rare words (most cells {1: n} or empty) and a few frequent bursty ones."""
    beta = np.concatenate([true_beta(seed, 2, 10), np.full((2, 400), 0.01)], axis=1)
    return simulate(beta, 300, seed, lengths=(5, 40))


@pytest.mark.parametrize(("extra", "rate"), PRIORS)
def test_grouped_cells_follow_the_ungrouped_iteration(extra, rate):
    # The cells with one kind of histogram are iterated once (polya_units): few units, and
    # the optimum is the fixed point's, with a zero gradient in every cell.
    from bayesnb.posterior.polya_units import polya_units

    X, y = _sparse_words()
    st, totals = polya_stats(X, y, 2)
    units = polya_units(st, np.ones(st.shape), np.ones(st.shape, dtype=bool))
    expected = 0  # per class: one unit per word with a count > 1, per n, for the unseen words
    for c in range(2):
        Xc = X[y == c]
        bursty = (Xc > 1).any(axis=0)
        n = (Xc == 1).sum(axis=0)[~bursty]
        expected += bursty.sum() + np.unique(n[n > 0]).size + (n == 0).any()
    assert (units.mult > 0).sum() == expected < 0.7 * 2 * X.shape[1]
    assert units.mult.sum() == X.shape[1] * 2
    nt = polya_newton(st, totals, shape_extra=extra, rate=rate, tol=1e-6)
    assert nt.converged
    assert _relative_gradient(st, nt.beta, extra, rate) < 1e-9
    if rate > 0:
        fp = polya_fixed_point(st, totals, shape_extra=extra, rate=rate, tol=1e-13, max_iter=50000)
        np.testing.assert_allclose(nt.beta, fp.beta, rtol=1e-8)
