"""``SemiSupervisedNB(unlabelled_weight="loo")``: the labelled leave-one-out score at a fixed λ
against a NumPy computation by hand, the choice against the curve, λ = 0 against
``elpd_loo``, the choice on data where unlabelled documents help and where they mislead, and
the measured gap to re-running EM without the document."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp

import bayesnb as bnb
from bayesnb.model_selection import elpd_loo
from bayesnb.semisupervised_loo import WEIGHT_GRID, labelled_loo
from tests.semisupervised_helpers import keep_per_class

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _topics(rng, k: int, v: int, mix: float = 0.5) -> np.ndarray:
    """K word distributions sharing half their mass: classes that short documents confuse."""
    base = rng.dirichlet(np.full(v, 1.0))
    return mix * base + (1 - mix) * rng.dirichlet(np.full(v, 0.3), size=k)


def _documents(rng, theta, labels, length: int = 8) -> np.ndarray:
    return np.array([rng.multinomial(length, theta[c]) for c in labels], dtype=np.float64)


def matched(seed: int, n: int = 600, k: int = 3, v: int = 60):
    """Every document from the classes' own word distributions; 4 labelled per class."""
    rng = np.random.default_rng(seed)
    theta = _topics(rng, k, v)
    y = rng.integers(0, k, n)
    return _documents(rng, theta, y), keep_per_class(y, 4), y


def mismatched(seed: int, n_unlabelled: int = 400, k: int = 3, v: int = 60, foreign=0.8):
    """4 labelled documents per class; 80 % of the unlabelled ones from K other topics, which
    no class has (a mixture the model cannot express). Also held-out class documents."""
    rng = np.random.default_rng(seed)
    theta, other = _topics(rng, k, v), rng.dirichlet(np.full(v, 0.3), size=k)
    y = np.repeat(np.arange(k), 4)
    Xl = _documents(rng, theta, y)
    src = rng.random(n_unlabelled) < foreign
    z = rng.integers(0, k, n_unlabelled)
    Xu = np.array(
        [rng.multinomial(8, (other if s else theta)[c]) for s, c in zip(src, z, strict=True)]
    )
    X = np.vstack([Xl, Xu]).astype(np.float64)
    yy = np.concatenate([y, np.full(n_unlabelled, -1)])
    return X, yy, _documents(rng, theta, z), z


def _fit(est, X, yy, weight, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bnb.SemiSupervisedNB(est, unlabelled_weight=weight, **kw).fit(X, yy)


def _by_hand(X, yy, T, N, alpha, gamma, w):
    """log p(y_i | x_i, D without i) of the labelled rows of a multinomial MAP fit with word
    counts T and class counts N, in NumPy: row i's counts out of its class, the MAP tables
    and a softmax."""
    lab = yy != -1
    out = []
    for x, c, wi in zip(X[lab], yy[lab], w[lab], strict=True):
        Ti, Ni = T.copy(), N.copy()
        Ti[c] -= wi * x
        Ni[c] -= wi
        log_theta = np.log(Ti + alpha - 1) - np.log((Ti + alpha - 1).sum(axis=1, keepdims=True))
        log_pi = np.log(Ni + gamma - 1) - np.log((Ni + gamma - 1).sum())
        joint = log_pi + log_theta @ x
        out.append(joint[c] - logsumexp(joint))
    return np.asarray(out)


@pytest.mark.parametrize("lam", [0.05, 0.3, 1.0])
def test_fixed_weight_score_is_the_subtraction_by_hand(lam):
    X, yy, _ = matched(0, n=200)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(yy))
    est = bnb.MultinomialNB(alpha=1.5, class_alpha=2.0, estimate="map")
    # Converged hard, so the E-step at the end is the one the statistics were counted with.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = bnb.SemiSupervisedNB(est, unlabelled_weight=lam, tol=0.0, max_iter=3000)
        model.fit(X, yy, sample_weight=w)
    got = labelled_loo(model, X, yy, sample_weight=w)
    # The fit's statistics, against the labelled counts plus λ·w·r of the fixed point (the
    # responsibilities of its last E-step, to EM's convergence).
    lab, unl = yy != -1, yy == -1
    onehot = np.eye(3)[yy[lab]] * w[lab][:, None]
    resp = model.predict_proba(X[unl]) * (lam * w[unl])[:, None]
    T, N = model.estimator_.feature_count_, model.estimator_.class_count_
    assert_allclose(T, onehot.T @ X[lab] + resp.T @ X[unl], rtol=1e-5, atol=1e-6)
    assert_allclose(N, onehot.sum(axis=0) + resp.sum(axis=0), rtol=1e-5)
    ref = _by_hand(X, yy, T, N, 1.5, 2.0, w)
    assert got.shape == (12,)
    assert_allclose(got, ref, rtol=1e-11, atol=1e-12)
    # At the fixed point's own soft counts, to the precision EM reached.
    T, N = onehot.T @ X[lab] + resp.T @ X[unl], onehot.sum(axis=0) + resp.sum(axis=0)
    assert_allclose(got, _by_hand(X, yy, T, N, 1.5, 2.0, w), rtol=1e-5)
    # Not the in-sample score: the document's own counts are out.
    own = model.predict_log_proba(X[yy != -1])[np.arange(12), yy[yy != -1]]
    assert np.all(got < own)


def test_loo_picks_the_maximum_of_its_curve():
    X, yy, _ = matched(0)
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    model = _fit(est, X, yy, "loo")
    curve = model.loo_curve_
    assert_array_equal(curve["unlabelled_weight"], WEIGHT_GRID)
    # Each point is the fixed-λ fit's labelled LOO, recomputed from its own fit.
    for lam, elpd in zip(WEIGHT_GRID, curve["elpd_loo"], strict=True):
        assert_allclose(elpd, labelled_loo(_fit(est, X, yy, lam), X, yy).sum(), rtol=1e-12)
    best = int(np.argmax(curve["elpd_loo"]))
    assert model.unlabelled_weight_ == WEIGHT_GRID[best] == 0.2
    assert curve["elpd_loo"][best] - curve["elpd_loo"][0] > 5.0  # -1.31 against -8.86
    ref = _fit(est, X, yy, WEIGHT_GRID[best])
    assert_array_equal(model.estimator_.feature_count_, ref.estimator_.feature_count_)
    assert model.n_iter_ == ref.n_iter_ == curve["n_iter"][best]
    assert_array_equal(model.log_posterior_, ref.log_posterior_)
    assert curve["converged"].all() and np.all(curve["alpha"] == 1.5)


@pytest.mark.parametrize("inference", ["em", "vb"])
def test_zero_weight_is_the_supervised_loo(inference):
    X, yy, _ = matched(1, n=300)
    lab = yy != -1
    estimate = "map" if inference == "em" else "bayes"
    est = bnb.BernoulliNB(alpha=2.0, estimate=estimate)
    model = _fit(est, X, yy, "loo", inference=inference)
    ref = elpd_loo(est, X[lab], yy[lab])
    assert model.loo_curve_["elpd_loo"][0] == ref.elpd
    assert_array_equal(
        labelled_loo(_fit(est, X, yy, 0.0, inference=inference), X, yy), ref.pointwise
    )


def test_alpha_loo_is_searched_at_every_weight():
    X, yy, _ = matched(1, n=300)
    lab = yy != -1
    est = bnb.MultinomialNB(alpha="loo", estimate="map")
    model = _fit(est, X, yy, "loo")
    curve = model.loo_curve_
    supervised = bnb.MultinomialNB(alpha="loo", estimate="map").fit(X[lab], yy[lab])
    assert curve["alpha"][0] == supervised.alpha_
    assert curve["elpd_loo"][0] == elpd_loo(est, X[lab], yy[lab]).elpd
    best = int(np.argmax(curve["elpd_loo"]))
    lam, alpha = WEIGHT_GRID[best], curve["alpha"][best]
    assert model.unlabelled_weight_ == lam > 0 and model.estimator_.alpha_ == alpha
    # The kept fit is the EM fit at (λ, α), and α maximises the score at that λ.
    fixed = bnb.MultinomialNB(alpha=alpha, estimate="map")
    at = labelled_loo(_fit(fixed, X, yy, lam), X, yy).sum()
    assert_allclose(at, curve["elpd_loo"][best], rtol=1e-12)
    for factor in (0.8, 1.25):
        other = bnb.MultinomialNB(alpha=max(1.0, alpha * factor), estimate="map")
        assert labelled_loo(_fit(other, X, yy, lam), X, yy).sum() <= at + 1e-9
    # And it beats the fixed-α choice at α = the supervised α.
    same = _fit(bnb.MultinomialNB(alpha=supervised.alpha_, estimate="map"), X, yy, "loo")
    assert curve["elpd_loo"].max() >= same.loo_curve_["elpd_loo"].max() - 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_unlabelled_documents_that_help_get_weight(seed):
    X, yy, y = matched(seed)
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    model = _fit(est, X, yy, "loo")
    assert model.unlabelled_weight_ >= 0.05  # 0.2, 0.1, 0.05, 0.1
    accuracy = np.mean(model.predict(X) == y)
    supervised = np.mean(_fit(est, X, yy, 0.0).predict(X) == y)
    assert accuracy - supervised > 0.08  # +0.23, +0.15, +0.09, +0.23


@pytest.mark.parametrize("seed", range(4))
def test_unlabelled_documents_of_other_topics_get_little_weight(seed):
    X, yy, X_test, y_test = mismatched(seed)
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    model = _fit(est, X, yy, "loo")
    assert model.unlabelled_weight_ <= 0.02  # 0.02 on every seed; λ = 1 is far worse
    curve = model.loo_curve_["elpd_loo"]
    assert curve[-1] < curve.max() - 20.0
    accuracy = np.mean(model.predict(X_test) == y_test)
    assert accuracy - np.mean(_fit(est, X, yy, 1.0).predict(X_test) == y_test) > 0.1


def _refit_scores(est, X, yy, lam):
    """log p(y_i | x_i) under EM re-run without labelled document i: the true LOO."""
    out = []
    for i in np.flatnonzero(yy != -1):
        keep = np.arange(len(yy)) != i
        model = _fit(est, X[keep], yy[keep], lam, tol=1e-12, max_iter=2000)
        out.append(model.predict_log_proba(X[i : i + 1])[0, yy[i]])
    return np.asarray(out)


# Measured: λ = 0.01, gap mean 0.052, max 0.164 nats; λ = 0.1, mean 0.208, max 0.839.
@pytest.mark.parametrize(("lam", "mean_gap", "max_gap"), [(0.01, 0.08, 0.25), (0.1, 0.3, 1.2)])
def test_gap_to_re_running_em(lam, mean_gap, max_gap):
    """Holding the responsibilities fixed is optimistic: an unlabelled document near x_i was
    counted in class y_i partly because x_i was labelled so. The gap per document is measured
    here against re-running EM without i (and stated in semisupervised_loo's docstring)."""
    X, yy, _ = matched(1, n=60)  # 12 labelled, 48 unlabelled documents
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    fixed = labelled_loo(_fit(est, X, yy, lam, tol=1e-12, max_iter=2000), X, yy)
    gap = fixed - _refit_scores(est, X, yy, lam)
    assert gap.min() > 0  # optimistic for every document
    assert gap.mean() < mean_gap and gap.max() < max_gap


def test_partial_fit_steps_at_the_chosen_weight():
    X, yy, _ = matched(0)
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    model = _fit(est, X, yy, "loo")
    ref = _fit(est, X, yy, model.unlabelled_weight_)
    batch = X[yy == -1][:50]
    before = model.estimator_.class_count_.sum()
    model.partial_fit(batch, np.full(50, -1))
    ref.partial_fit(batch, np.full(50, -1))
    assert_allclose(model.estimator_.class_count_.sum() - before, 50 * 0.2, rtol=1e-12)
    assert_array_equal(model.estimator_.feature_count_, ref.estimator_.feature_count_)


def test_refusals():
    X, yy, _ = matched(0, n=100)
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    alone = yy.copy()
    alone[np.flatnonzero(yy == 2)[1:]] = -1  # class 2 keeps one labelled document
    with pytest.raises(ValueError, match=r"class\(es\) 2 have a single labelled document"):
        _fit(est, X, alone, "loo")
    with pytest.raises(ValueError, match="finite number >= 0 or 'loo', got 'LOO'"):
        _fit(est, X, yy, "LOO")
    with pytest.raises(ValueError, match="alpha='loo' is learned with unlabelled_weight='loo'"):
        _fit(bnb.MultinomialNB(alpha="loo", estimate="map"), X, yy, 1.0)
    with pytest.raises(ValueError, match="class_alpha='evidence'"):
        _fit(bnb.MultinomialNB(alpha=2.0, class_alpha="evidence", estimate="map"), X, yy, "loo")
    with pytest.raises(ValueError, match="temperature='loo'"):
        _fit(bnb.MultinomialNB(alpha=2.0, temperature="loo", estimate="map"), X, yy, "loo")
