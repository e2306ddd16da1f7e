"""``SemiSupervisedNB(unlabelled_weight="cv")``: the cross-validated score of the whole EM
procedure against a loop by hand, λ = 0 with ``cv="loo"`` against ``elpd_loo``, the choice
against its curve, on data where unlabelled documents help, where they come from other
topics, and where the pool swamps the labels (the fixed-responsibility score
``labelled_loo`` picks λ = 1 there), and the measured leak of that score."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.model_selection import StratifiedKFold

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


def subtopics(seed: int, n_unlabelled: int = 1000, k: int = 4, s: int = 10, v: int = 80):
    """2 labelled documents per class, each class a mixture of s sparse sub-topics (which one
    multinomial per class cannot express), and a pool 125 times the labels from the same
    classes: EM at λ = 1 gathers around each labelled document the sub-topic it comes from.
    Also 400 held-out documents."""
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet(np.full(v, 0.1), size=(k, s))

    def docs(labels):
        sub = rng.integers(0, s, labels.size)
        pairs = zip(labels, sub, strict=True)
        return np.array([rng.multinomial(20, theta[c, j]) for c, j in pairs], dtype=np.float64)

    y, z = np.repeat(np.arange(k), 2), rng.integers(0, k, n_unlabelled)
    X = np.vstack([docs(y), docs(z)])
    y_test = rng.integers(0, k, 400)
    return X, np.concatenate([y, np.full(n_unlabelled, -1)]), docs(y_test), y_test


def _hand_cv(est, X, yy, lam, w, inference):
    """Σ log p(y_i | x_i) of the labelled documents, each scored by SemiSupervisedNB fitted
    on the other folds' labelled documents plus every unlabelled one (3 stratified folds)."""
    lab, unl = np.flatnonzero(yy != -1), np.flatnonzero(yy == -1)
    total = 0.0
    for train, test in StratifiedKFold(3).split(X[lab], yy[lab]):
        rows = np.concatenate([lab[train], unl])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = bnb.SemiSupervisedNB(est, unlabelled_weight=lam, inference=inference)
            model.fit(X[rows], yy[rows], sample_weight=w[rows])
        held = lab[test]
        total += model.predict_log_proba(X[held])[np.arange(held.size), yy[held]].sum()
    return total


@pytest.mark.parametrize("inference", ["em", "vb"])
def test_cv_score_is_the_loop_by_hand(inference):
    X, yy, _ = matched(0, n=150)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(yy))
    estimate = "map" if inference == "em" else "bayes"
    est = bnb.MultinomialNB(alpha=1.5, class_alpha=2.0, estimate=estimate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = bnb.SemiSupervisedNB(est, unlabelled_weight="cv", cv=3, inference=inference)
        model.fit(X, yy, sample_weight=w)
    curve = model.loo_curve_
    assert curve["n_splits"] == 3
    for lam, score in zip(WEIGHT_GRID, curve["elpd_cv"], strict=True):
        assert_allclose(score, _hand_cv(est, X, yy, lam, w, inference), rtol=1e-12)


@pytest.mark.parametrize("inference", ["em", "vb"])
def test_zero_weight_with_loo_folds_is_elpd_loo(inference):
    X, yy, _ = matched(1, n=300)
    lab = yy != -1
    estimate = "map" if inference == "em" else "bayes"
    est = bnb.BernoulliNB(alpha=2.0, estimate=estimate)
    model = _fit(est, X, yy, "loo", inference=inference)
    assert model.loo_curve_["n_splits"] == 12
    assert_allclose(model.loo_curve_["elpd_cv"][0], elpd_loo(est, X[lab], yy[lab]).elpd, rtol=1e-12)
    same = _fit(est, X, yy, "cv", cv="loo", inference=inference)
    assert_array_equal(same.loo_curve_["elpd_cv"], model.loo_curve_["elpd_cv"])


def test_default_folds_are_min_of_five_and_the_smallest_class():
    X, yy, _ = matched(0, n=200)
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    assert _fit(est, X, yy, "cv").loo_curve_["n_splits"] == 4  # 4 labelled per class
    y = np.random.default_rng(0).integers(0, 3, 200)
    more = keep_per_class(y, 7)
    assert _fit(est, X, more, "cv").loo_curve_["n_splits"] == 5


def test_cv_picks_the_maximum_of_its_curve():
    X, yy, _ = matched(0)
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    model = _fit(est, X, yy, "cv")
    curve = model.loo_curve_
    assert_array_equal(curve["unlabelled_weight"], WEIGHT_GRID)
    best = int(np.argmax(curve["elpd_cv"]))
    assert model.unlabelled_weight_ == WEIGHT_GRID[best] == 1.0
    assert curve["elpd_cv"][best] - curve["elpd_cv"][0] > 5.0  # -1.92 against -7.59
    ref = _fit(est, X, yy, WEIGHT_GRID[best])
    assert_array_equal(model.estimator_.feature_count_, ref.estimator_.feature_count_)
    assert model.n_iter_ == ref.n_iter_ == curve["n_iter"][best]
    assert_array_equal(model.log_posterior_, ref.log_posterior_)
    assert curve["converged"].all() and np.all(curve["alpha"] == 1.5)
    assert curve["fold_n_iter"][0] == 0 and np.all(curve["fold_n_iter"][1:] > 5)


def test_alpha_loo_is_searched_at_every_weight():
    X, yy, _ = matched(1, n=300)
    lab = yy != -1
    est = bnb.MultinomialNB(alpha="loo", estimate="map")
    model = _fit(est, X, yy, "cv")
    curve = model.loo_curve_
    supervised = bnb.MultinomialNB(alpha="loo", estimate="map").fit(X[lab], yy[lab])
    assert curve["alpha"][0] == supervised.alpha_
    best = int(np.argmax(curve["elpd_cv"]))
    lam, alpha = WEIGHT_GRID[best], curve["alpha"][best]
    assert model.unlabelled_weight_ == lam > 0 and model.estimator_.alpha_ == alpha

    # The kept fit is the EM fit at (λ, α), and α maximises the score at that λ.
    def at(a):
        return _fit(bnb.MultinomialNB(alpha=a, estimate="map"), X, yy, "cv").loo_curve_

    assert_allclose(at(alpha)["elpd_cv"][best], curve["elpd_cv"][best], rtol=1e-12)
    for factor in (0.8, 1.25):
        assert at(max(1.0, alpha * factor))["elpd_cv"][best] <= curve["elpd_cv"][best] + 1e-9
    # And it beats the fixed-α choice at α = the supervised α.
    assert curve["elpd_cv"].max() >= at(supervised.alpha_)["elpd_cv"].max() - 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_unlabelled_documents_that_help_get_weight(seed):
    X, yy, y = matched(seed)
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    model = _fit(est, X, yy, "cv")
    assert model.unlabelled_weight_ >= 0.1  # 1, 1, 0.1, 1
    accuracy = np.mean(model.predict(X) == y)
    supervised = np.mean(_fit(est, X, yy, 0.0).predict(X) == y)
    assert accuracy - supervised > 0.1  # +0.26, +0.15, +0.17, +0.26


@pytest.mark.parametrize("seed", range(4))
def test_unlabelled_documents_of_other_topics_get_little_weight(seed):
    X, yy, X_test, y_test = mismatched(seed)
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    model = _fit(est, X, yy, "cv")
    assert model.unlabelled_weight_ == 0.0  # the fixed-responsibility score chose 0.02
    curve = model.loo_curve_["elpd_cv"]
    assert curve[-1] < curve.max() - 30.0  # 65, 84, 36, 48 nats
    accuracy = np.mean(model.predict(X_test) == y_test)
    # +0.24, +0.28, +0.27, +0.12 over λ = 1
    assert accuracy - np.mean(_fit(est, X, yy, 1.0).predict(X_test) == y_test) > 0.1


@pytest.mark.parametrize("seed", range(2))
def test_a_swamping_pool_fools_the_fixed_score_not_the_cv(seed):
    """The fixed-responsibility score rates λ = 1 near perfect (each labelled document sits in
    the sub-topic cluster it pulled into its class); EM re-run without it loses the cluster."""
    X, yy, X_test, y_test = subtopics(seed)
    est = bnb.MultinomialNB(alpha=1.1, estimate="map")
    fixed = np.array([labelled_loo(_fit(est, X, yy, lam), X, yy).sum() for lam in WEIGHT_GRID])
    # Every labelled document near certain at λ = 1 (-3e-8 and -2e-9 nats in all; -35, -42
    # at λ = 0): the fixed score picks λ = 1.
    assert WEIGHT_GRID[int(np.argmax(fixed))] == 1.0
    assert fixed[-1] > -1e-6 and fixed[0] < -30.0
    model = _fit(est, X, yy, "cv")
    assert model.unlabelled_weight_ == 0.0
    curve = model.loo_curve_["elpd_cv"]
    assert curve[0] - curve[-1] > 50.0  # -48 against -119, -61 against -230
    chosen = -np.mean(model.predict_log_proba(X_test)[np.arange(400), y_test])
    at_one = -np.mean(_fit(est, X, yy, 1.0).predict_log_proba(X_test)[np.arange(400), y_test])
    assert at_one - chosen > 5.0  # held-out log loss 8.3 against 15.5, 9.7 against 20.0


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
    """The diagnostic ``labelled_loo`` (responsibilities held at the full fit's) is
    optimistic: an unlabelled document near x_i was counted in class y_i partly because x_i
    was labelled so. Its gap per document to re-running EM without i (what ``cv="loo"``
    does) is measured here."""
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
    lam = model.unlabelled_weight_
    assert lam == 1.0
    assert_allclose(model.estimator_.class_count_.sum() - before, 50 * lam, rtol=1e-12)
    assert_array_equal(model.estimator_.feature_count_, ref.estimator_.feature_count_)


def test_refusals():
    X, yy, _ = matched(0, n=100)
    est = bnb.MultinomialNB(alpha=1.5, estimate="map")
    alone = yy.copy()
    alone[np.flatnonzero(yy == 2)[1:]] = -1  # class 2 keeps one labelled document
    with pytest.raises(ValueError, match=r"class\(es\) 2 have a single labelled document"):
        _fit(est, X, alone, "loo")
    with pytest.raises(ValueError, match="finite number >= 0, 'cv' or 'loo', got 'LOO'"):
        _fit(est, X, yy, "LOO")
    with pytest.raises(ValueError, match="unlabelled_weight='loo' is leave-one-out"):
        _fit(est, X, yy, "loo", cv=3)
    with pytest.raises(ValueError, match=r"cv=5 stratified folds need 2 <= cv <= 4"):
        _fit(est, X, yy, "cv", cv=5)
    with pytest.raises(ValueError, match="cv must be None, an int >= 2, 'loo' or a splitter"):
        _fit(est, X, yy, "cv", cv="LOO")
    with pytest.raises(ValueError, match=r"cv fold 0 leaves class\(es\) \[0\] without"):
        labels = yy[yy != -1]
        _fit(est, X, yy, "cv", cv=[(np.flatnonzero(labels != 0), np.flatnonzero(labels == 0))])
    with pytest.raises(ValueError, match="alpha='loo' is learned with unlabelled_weight='cv'"):
        _fit(bnb.MultinomialNB(alpha="loo", estimate="map"), X, yy, 1.0)
    with pytest.raises(ValueError, match="class_alpha='evidence'"):
        _fit(bnb.MultinomialNB(alpha=2.0, class_alpha="evidence", estimate="map"), X, yy, "cv")
    with pytest.raises(ValueError, match="temperature='loo'"):
        _fit(bnb.MultinomialNB(alpha=2.0, temperature="loo", estimate="map"), X, yy, "cv")
