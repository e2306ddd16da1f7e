"""Scoring of large inputs (2^18 stored values and score cells: several row blocks, in
threads): the same numbers bit for bit in one thread and in three, validation's errors, and
subclasses that override the scoring hooks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from bayesnb import BernoulliNB, ColumnwiseNB, MultinomialNB
from bayesnb.scoring import softmax
from tests.softmax_helpers import reference_softmax

# Large enough for several threaded row blocks: 2^18 stored values and 2^18 score cells.
N_DOCS, N_FEATURES, N_CLASSES = 70_000, 40, 4
LARGE = 1 << 18


def _counts(n=N_DOCS, v=N_FEATURES, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, v, density=0.12, format="csr", random_state=seed)
    X.data = np.floor(rng.random(X.nnz) * 4) + 1.0
    X = X.tolil()
    X[5] = 0  # an empty row
    X = X.tocsr()
    X.eliminate_zeros()
    assert X.nnz >= LARGE and n * N_CLASSES >= LARGE
    return X, np.arange(n) % N_CLASSES


@pytest.fixture(scope="module")
def counts():
    return _counts()


def _scores(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the MLE's impossible documents
        return (
            model.predict_proba(X),
            model.predict_log_proba(X),
            model.predict_joint_log_proba(X),
        )


def _both_paths(monkeypatch, fn):
    """``fn()`` in one scoring thread and in three."""
    monkeypatch.setenv("BAYESNB_NUM_THREADS", "1")
    one = fn()
    monkeypatch.setenv("BAYESNB_NUM_THREADS", "3")
    return one, fn()


MODELS = {
    "multinomial": lambda: MultinomialNB(),
    "multinomial_sklearn_prior": lambda: MultinomialNB(class_alpha=0),
    "multinomial_mle": lambda: MultinomialNB(estimate="mle"),
    "multinomial_float32": lambda: MultinomialNB(dtype="float32"),
    "multinomial_bayes": lambda: MultinomialNB(estimate="bayes"),
    "multinomial_unk": lambda: MultinomialNB(unk=True),
    "bernoulli": lambda: BernoulliNB(),
    "bernoulli_threshold": lambda: BernoulliNB(binarize=2.5),
    "bernoulli_mle": lambda: BernoulliNB(estimate="mle"),
    "bernoulli_float32": lambda: BernoulliNB(dtype="float32"),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_large_inputs_score_bit_for_bit_in_any_number_of_threads(name, counts, monkeypatch):
    X, y = counts
    model = MODELS[name]().fit(X[:2000], y[:2000])
    # sparse, dense, no values: each large; and one row (one block)
    inputs = (X, X[:20_000].toarray(), sp.csr_matrix(X.shape), X[:1])
    want, got = _both_paths(monkeypatch, lambda: [_scores(model, Xi) for Xi in inputs])
    for one, other in zip(got, want, strict=True):
        for a, b in zip(one, other, strict=True):
            assert a.dtype == b.dtype and a.flags.c_contiguous
            assert np.array_equal(a, b)
    # and the same scores as the dense input's (within rounding: another product)
    dense = _scores(model, X[:20_000].toarray())
    tol = 1e-12 if model.dtype == "float64" else 1e-4
    for a, b in zip(dense, _scores(model, X[:20_000]), strict=True):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_large_softmax_rows_with_nan_and_impossible_classes(monkeypatch):
    rng = np.random.default_rng(1)
    for k in (1, 2, 7, 9, 20, 130):
        joint = rng.normal(size=(-(-LARGE // k), k)) * 40
        joint[3] = -np.inf  # impossible everywhere: the prior
        joint[4, 0] = -np.inf
        joint[6, -1] = np.nan  # a NaN row: the prior too, as NumPy's maximum is NaN
        prior = np.log(rng.dirichlet(np.ones(k)))

        def run(joint=joint, prior=prior):
            with pytest.warns(RuntimeWarning, match="document"):
                return softmax.normalize_proba(joint.copy(), prior, offset=prior, overwrite=True)

        want, got = _both_paths(monkeypatch, run)
        assert np.array_equal(got, want)
        keep = np.isfinite(joint.max(axis=1))  # rows 3 and 6 (and 4 when k = 1): the prior
        assert np.allclose(got[~keep], np.exp(prior), rtol=1e-15)
        assert np.array_equal(got[keep], reference_softmax(joint[keep], prior))
        kept = joint.copy()
        with pytest.warns(RuntimeWarning):
            softmax.normalize_proba(kept, prior, offset=prior)  # overwrite=False: read only
        assert np.array_equal(kept, joint, equal_nan=True)


BAD = {"NaN": np.nan, "infinity": np.inf, "-infinity": -np.inf, "negative": -2.0}


@pytest.mark.parametrize("model", [MultinomialNB(), BernoulliNB(), BernoulliNB(binarize=1.5)])
@pytest.mark.parametrize("what", list(BAD))
def test_large_inputs_raise_validations_errors(model, what, counts, monkeypatch):
    X, y = counts
    model.fit(X[:2000], y[:2000])
    bad = X.copy()
    bad.data[[7, 300_000]] = BAD[what]

    def outcome():
        try:
            return "scores", model.predict_proba(bad)
        except ValueError as exc:
            return "error", str(exc)

    (kind, first), (kind2, second) = _both_paths(monkeypatch, outcome)
    if kind == "error" and what != "negative":  # names where: stored values 7 and 300,000
        rows = np.searchsorted(bad.indptr, [7, 300_000], side="right") - 1
        assert f"rows [{rows[0]}, {rows[1]}]" in first
    assert kind == kind2
    if kind == "error":
        assert first == second
        assert ("contains" in first) or ("Negative values" in first)
    else:  # BernoulliNB takes negative values (below its threshold: absent)
        assert what == "negative" and isinstance(model, BernoulliNB)
        assert np.array_equal(first, second)


def test_columnwise_blocks_on_large_inputs(counts, monkeypatch):
    X, y = counts
    model = ColumnwiseNB(
        [("words", MultinomialNB(), list(range(20))), ("flags", BernoulliNB(), list(range(20, 40)))]
    ).fit(X[:2000], y[:2000])
    bad = X.copy()
    bad.data[0] = np.inf

    def run():
        with pytest.raises(ValueError) as error:
            model.predict_proba(bad)
        return _scores(model, X), str(error.value)

    (want, one_error), (got, three_error) = _both_paths(monkeypatch, run)
    for a, b in zip(got, want, strict=True):
        assert np.array_equal(a, b)
    assert three_error == one_error and "infinity" in one_error


class _CachedScores(MultinomialNB):
    """A subclass whose _log_likelihood returns the same array each time (a cache)."""

    def _log_likelihood(self, X):
        self.calls = getattr(self, "calls", 0) + 1
        cache = self.__dict__.setdefault("_cache", {})
        key = id(X)
        if key not in cache:
            cache[key] = super()._log_likelihood(X)
        return cache[key]


def test_an_overriding_log_likelihood_keeps_its_array_and_the_checks_order(counts):
    X, y = counts
    model = _CachedScores().fit(X, y)
    kept = model._log_likelihood(X).copy()
    first = model.predict_proba(X)
    assert np.array_equal(model._log_likelihood(X), kept)  # not written over
    assert np.array_equal(model.predict_proba(X), first)
    bad = X.copy()
    bad.data[1] = np.nan
    calls = model.calls
    with pytest.raises(ValueError, match="contains NaN"):
        model.predict_proba(bad)
    assert model.calls == calls  # refused before its _log_likelihood ran


class _Doubled(MultinomialNB):
    """A subclass whose _check_input transforms X (and knows nothing of ``values=``)."""

    def _check_input(self, X, y=None, *, reset):
        return super()._check_input(2 * X, y, reset=reset)


def test_an_overriding_check_input_is_honoured_on_large_sparse_input(counts):
    X, y = counts
    model = _Doubled().fit(X, y)
    plain = MultinomialNB().fit(2 * X, y)
    assert np.array_equal(model.predict_proba(X), plain.predict_proba(2 * X))
