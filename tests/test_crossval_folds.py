"""The fast fold path of cross_val_predict (Family.fold_joint_log_proba, Family.downdated).

The multinomial and Bernoulli families score a fold from downdated tables built in the
layout of the scoring product; these tests check that the path is taken where it applies,
declines where it does not, equals the generic downdated copy and scikit-learn's refits, and
leaves the full fit untouched.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict

from bayesnb import BernoulliNB, MultinomialNB
from bayesnb.families import family_of
from bayesnb.model_selection import _Folds, cross_val_predict
from bayesnb.scoring import blocks

V = 40


def _data(n: int = 240, seed: int = 1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    rates = 0.3 + np.eye(3)[y] @ rng.gamma(1.0, 1.0, (3, V))
    X = rng.poisson(rates).astype(float)
    X[:, -1] = 0.0  # a feature never seen: a zero in every class's counts
    return X, y, rng.random(n) * 3  # non-integer weights: sums are rounded


FAST = [
    MultinomialNB(alpha=0.5),
    MultinomialNB(alpha=2.0, estimate="map"),
    MultinomialNB(alpha=np.linspace(0.1, 2.0, V), fit_prior=False),
    MultinomialNB(alpha=0.3, class_prior=[0.2, 0.3, 0.5]),
    BernoulliNB(alpha=0.5),
    BernoulliNB(alpha=2.0, beta=3.0, estimate="map"),
    BernoulliNB(alpha=np.linspace(0.1, 2.0, V), beta=np.linspace(2.0, 0.1, V)),
    BernoulliNB(alpha=0.5, estimate="bayes", binarize=1.5),
]
DECLINED = [
    MultinomialNB(alpha=0.5, estimate="mle"),
    MultinomialNB(alpha=1.0, estimate="map"),  # α − 1 = 0: zeros in the table
    MultinomialNB(alpha=0.5, estimate="bayes"),  # the Pólya predictive of whole documents
    MultinomialNB(alpha=0.5, unk=True),
    MultinomialNB(alpha=0.5, dtype="float32"),
    BernoulliNB(alpha=0.5, estimate="mle"),
    BernoulliNB(alpha=1.0, estimate="map"),
    BernoulliNB(alpha=0.5, missing="ignore"),
]


def _fold(est, X, y, w):
    """The full fit, and the first fold's test rows of StratifiedKFold(3)."""
    full = est.fit(X, y, sample_weight=w)
    _, te = next(StratifiedKFold(3).split(X, y))
    return full, te


def _fit_by_folds(est, X, y, w):
    """The fit counted fold by fold (as cross_val_predict has it), and per fold
    (test rows, their validated rows, their statistics) for StratifiedKFold(3)."""
    tests = [te for _, te in StratifiedKFold(3).split(X, y)]
    folds = _Folds(est, X, y, w, tests)
    return folds.full, [(te, *part) for te, part in zip(tests, folds.parts, strict=True)]


@pytest.mark.parametrize("est", FAST, ids=repr)
@pytest.mark.parametrize("sparse", [False, True])
def test_fast_path_equals_the_downdated_copy(est, sparse):
    X, y, w = _data()
    Xv = sp.csr_matrix(X) if sparse else X
    full, folds = _fit_by_folds(est, Xv, y, w)
    plain = clone(est).fit(Xv, y, sample_weight=w)  # counted at once: the same to rounding
    np.testing.assert_allclose(full.feature_count_, plain.feature_count_, rtol=1e-14)
    family = family_of(full)
    for te, Xte, stats in folds:
        assert type(Xte) is type(Xv) and Xte.shape == (te.size, V)
        got = family.fold_joint_log_proba(full, stats, Xte)
        assert got is not None
        joint, prior = got
        model = family.downdated(full, stats)
        ref = model.predict_joint_log_proba(Xv[te])
        np.testing.assert_allclose(prior, model.class_log_prior_, rtol=0, atol=1e-12)
        np.testing.assert_allclose(joint, ref, rtol=1e-13, atol=1e-11)


@pytest.mark.parametrize("est", FAST, ids=repr)
@pytest.mark.parametrize("cv", [KFold(4), StratifiedKFold(3, shuffle=True, random_state=0)])
def test_fast_path_equals_sklearn_refits(est, cv, monkeypatch):
    X, y, w = _data()
    family = type(family_of(est))
    used = []
    original = family.fold_joint_log_proba

    def spy(self, *args):
        out = original(self, *args)
        used.append(out is not None)
        return out

    monkeypatch.setattr(family, "fold_joint_log_proba", spy)
    ours = cross_val_predict(
        est, sp.csr_matrix(X), y, cv=cv, method="predict_log_proba", sample_weight=w
    )
    ref = sk_cross_val_predict(
        est, sp.csr_matrix(X), y, cv=cv, method="predict_log_proba", params={"sample_weight": w}
    )
    assert used and all(used)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-10)


@pytest.mark.parametrize("est", DECLINED, ids=repr)
def test_declines_where_the_table_is_not_smoothed_or_not_a_table(est):
    X, y, w = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full, te = _fold(est, X, y, w)
        family = family_of(full)
        stats = full._statistics(X[te], y[te], w[te])
        assert family.fold_joint_log_proba(full, stats, X[te]) is None
        # ... and cross_val_predict still equals the refits through the downdated copy.
        ours = cross_val_predict(est, X, y, cv=KFold(4), method="predict_log_proba")
        ref = sk_cross_val_predict(est, X, y, cv=KFold(4), method="predict_log_proba")
    finite = np.isfinite(ref)
    assert np.array_equal(finite, np.isfinite(ours))
    np.testing.assert_allclose(ours[finite], ref[finite], rtol=0, atol=1e-10)


@pytest.mark.parametrize("est", [MultinomialNB(alpha=0.5), BernoulliNB(alpha=0.5)], ids=repr)
def test_fold_paths_leave_the_full_fit_untouched(est):
    X, y, w = _data()
    full, te = _fold(est, X, y, w)
    family = family_of(full)
    before = {k: np.array(v, copy=True) for k, v in vars(full).items() if isinstance(v, np.ndarray)}
    proba = full.predict_proba(X)
    stats = full._statistics(X[te], y[te], w[te])
    family.fold_joint_log_proba(full, stats, X[te])
    model = family.downdated(full, stats)
    assert not np.array_equal(model.feature_count_, full.feature_count_)
    for k, v in before.items():
        np.testing.assert_array_equal(getattr(full, k), v, err_msg=k)
    np.testing.assert_array_equal(full.predict_proba(X), proba)


def test_test_rows_in_any_order_are_put_back_in_place():
    X, y, w = _data()
    perm = np.random.default_rng(3).permutation(y.size)
    splits = [(np.setdiff1d(perm, te), te) for te in np.array_split(perm, 5)]  # unsorted tests
    est = MultinomialNB(alpha=0.5)
    for method in ("predict", "predict_proba"):
        ours = cross_val_predict(est, X, y, cv=splits, method=method, sample_weight=w)
        ref = sk_cross_val_predict(est, X, y, cv=splits, method=method, params={"sample_weight": w})
        if method == "predict":
            np.testing.assert_array_equal(ours, ref)
        else:
            np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-13)


def test_shared_pool_runs_nested_work_inline_and_raises_after_every_task(monkeypatch):
    monkeypatch.setenv("BAYESNB_NUM_THREADS", "2")
    done = []

    def inner():
        blocks._run([lambda: done.append("a"), lambda: done.append("b")], 2)

    blocks._run([inner, inner], 2)  # a worker's own _run does not wait on the pool
    assert sorted(done) == ["a", "a", "b", "b"]

    def fail():
        raise RuntimeError("task failed")

    finished = []
    with pytest.raises(RuntimeError, match="task failed"):
        blocks._run([fail] + [lambda i=i: finished.append(i) for i in range(6)], 2)
    assert sorted(finished) == list(range(6))


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_shared_pool_in_a_forked_child(monkeypatch):
    import multiprocessing as mp

    monkeypatch.setenv("BAYESNB_NUM_THREADS", "2")
    blocks._run([lambda: None, lambda: None], 2)  # the parent's pool exists
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as pool:
        got = pool.apply(_run_in_child)
    assert got == [0, 1, 2, 3]


def _run_in_child():
    done = []
    blocks._run([lambda i=i: done.append(i) for i in range(4)], 2)
    return sorted(done)
