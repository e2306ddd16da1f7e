"""Compiled softmax passes and value checks inside the scoring product: the same numbers, bit
for bit, and the same errors as the NumPy path (forced onto small inputs here)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from bayesnb import BernoulliNB, ColumnwiseNB, MultinomialNB
from bayesnb.scoring import _jit, blocks, softmax
from bayesnb.scoring.blocks import defer_value_checks, values_checked_by_products, values_usual


def _numpy_only(monkeypatch) -> None:
    monkeypatch.setattr(_jit, "COMPILED_FROM", 1 << 62)


def _compiled(monkeypatch) -> None:
    """Compiled kernels and in-product checks on every input, in many blocks and threads."""
    monkeypatch.setattr(_jit, "COMPILED_FROM", 1)
    monkeypatch.setattr(blocks, "_PARALLEL_FROM", 1)
    monkeypatch.setattr(blocks, "_BLOCK_VALUES", 7)
    monkeypatch.setattr(blocks, "_INSPECT_VALUES", 11)
    monkeypatch.setattr(softmax, "_COMPILED_CELLS", 13)
    monkeypatch.setenv("BAYESNB_NUM_THREADS", "3")


@pytest.fixture(scope="module", autouse=True)
def kernels_available():
    if _jit.kernels() is None:  # pragma: no cover - numba ships with PyTensor
        pytest.skip("numba cannot compile here")


def _counts(n=300, v=40, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, v, density=0.2, format="csr", random_state=seed)
    X.data = np.floor(rng.random(X.nnz) * 4) + 1.0
    X = X.tolil()
    X[5] = 0  # an empty row
    X = X.tocsr()
    X.eliminate_zeros()
    return X, np.arange(n) % 4


def _scores(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the MLE's impossible documents
        return (
            model.predict_proba(X),
            model.predict_log_proba(X),
            model.predict_joint_log_proba(X),
        )


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
def test_compiled_paths_score_bit_for_bit(name, monkeypatch):
    X, y = _counts()
    model = MODELS[name]().fit(X[:200], y[:200])
    inputs = (X, X.toarray(), sp.csr_matrix(X.shape), X[:1])  # sparse, dense, no values, a row
    _numpy_only(monkeypatch)
    expected = [_scores(model, Xi) for Xi in inputs]
    _compiled(monkeypatch)
    for Xi, want in zip(inputs, expected, strict=True):
        got = _scores(model, Xi)
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and a.flags.c_contiguous
            assert np.array_equal(a, b)


def test_compiled_softmax_rows_with_nan_and_impossible_classes(monkeypatch):
    rng = np.random.default_rng(1)
    _numpy_only(monkeypatch)
    cases = {}
    for k in (1, 2, 7, 8, 9, 16, 17, 20, 128):
        joint = rng.normal(size=(97, k)) * 40
        joint[3] = -np.inf  # impossible everywhere: the prior
        joint[4, 0] = -np.inf
        joint[6, -1] = np.nan  # a NaN row: the prior too, as NumPy's maximum is NaN
        prior = np.log(rng.dirichlet(np.ones(k)))
        with pytest.warns(RuntimeWarning, match="document"):
            cases[k] = (joint, prior, softmax.normalize_proba(joint, prior, offset=prior))
    _compiled(monkeypatch)
    for joint, prior, want in cases.values():
        with pytest.warns(RuntimeWarning, match="document"):
            got = softmax.normalize_proba(joint.copy(), prior, offset=prior, overwrite=True)
        assert np.array_equal(got, want)
        kept = joint.copy()
        with pytest.warns(RuntimeWarning):
            softmax.normalize_proba(kept, prior, offset=prior)  # overwrite=False: read only
        assert np.array_equal(kept, joint, equal_nan=True)


BAD = {"NaN": np.nan, "infinity": np.inf, "-infinity": -np.inf, "negative": -2.0}


@pytest.mark.parametrize("model", [MultinomialNB(), BernoulliNB(), BernoulliNB(binarize=1.5)])
@pytest.mark.parametrize("what", list(BAD))
def test_checks_inside_the_product_raise_validations_errors(model, what, monkeypatch):
    X, y = _counts(seed=2)
    model.fit(X, y)
    bad = X.copy()
    bad.data[[7, 300]] = BAD[what]
    outcomes = []
    for mode in (_numpy_only, _compiled):
        mode(monkeypatch)
        try:
            outcomes.append(("scores", model.predict_proba(bad)))
        except ValueError as exc:
            outcomes.append(("error", str(exc)))
    (kind, first), (kind2, second) = outcomes
    assert kind == kind2
    if kind == "error":
        assert first == second
        assert ("contains" in first) or ("Negative values" in first)
    else:  # BernoulliNB takes negative values (below its threshold: absent)
        assert what == "negative" and isinstance(model, BernoulliNB)
        assert np.array_equal(first, second)


def test_columnwise_blocks_in_the_compiled_paths(monkeypatch):
    X, y = _counts(seed=3)
    model = ColumnwiseNB(
        [("words", MultinomialNB(), list(range(20))), ("flags", BernoulliNB(), list(range(20, 40)))]
    ).fit(X, y)
    _numpy_only(monkeypatch)
    want = _scores(model, X)
    bad = X.copy()
    bad.data[0] = np.inf
    with pytest.raises(ValueError) as numpy_error:
        model.predict_proba(bad)
    _compiled(monkeypatch)
    for a, b in zip(_scores(model, X), want, strict=True):
        assert np.array_equal(a, b)
    with pytest.raises(ValueError) as compiled_error:
        model.predict_proba(bad)
    assert str(compiled_error.value) == str(numpy_error.value)


class _CachedScores(MultinomialNB):
    """A subclass whose _log_likelihood returns the same array each time (a cache)."""

    def _log_likelihood(self, X):
        self.calls = getattr(self, "calls", 0) + 1
        cache = self.__dict__.setdefault("_cache", {})
        key = id(X)
        if key not in cache:
            cache[key] = super()._log_likelihood(X)
        return cache[key]


def test_an_overriding_log_likelihood_keeps_its_array_and_the_checks_order(monkeypatch):
    X, y = _counts(seed=4)
    model = _CachedScores().fit(X, y)
    _compiled(monkeypatch)
    assert not model._checks_in_product()
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


def test_deferred_checks_settle_on_exit(monkeypatch):
    _compiled(monkeypatch)
    values = np.arange(50.0)
    seen = []
    with values_checked_by_products():  # registered, never read by a product: checked anyway
        assert defer_value_checks(values, True, lambda: seen.append("checked"))
    assert seen == ["checked"]
    assert not defer_value_checks(values, True, lambda: None)  # outside: nothing deferred

    def refuse():
        raise ValueError("bad value")

    bad = np.array([1.0, np.nan, 2.0])
    X = sp.csr_matrix((bad, [0, 1, 2], [0, 3]), shape=(1, 3))
    with pytest.raises(ValueError, match="bad value"):  # replaces the body's own error
        with values_checked_by_products():
            assert defer_value_checks(X.data, True, refuse)
            blocks.csr_dot(X, np.ones((3, 2)))
            raise KeyError("the body's")
    good = sp.csr_matrix((np.array([1.0, 0.0, 2.0]), [0, 1, 2], [0, 3]), shape=(1, 3))
    with values_checked_by_products():
        assert defer_value_checks(good.data, True, refuse)
        out = blocks.csr_dot(good, np.ones((3, 2)), offset=np.array([1.0, 2.0]))
    assert np.array_equal(out, [[4.0, 5.0]])


def test_values_usual(monkeypatch):
    _compiled(monkeypatch)
    assert values_usual(np.array([0.0, 1.5, -0.0]), True)
    assert not values_usual(np.array([1.0, -1.0]), True)
    assert values_usual(np.array([1.0, -1.0]), False)
    for bad in (np.nan, np.inf, -np.inf):
        assert not values_usual(np.array([1.0, bad]), False)
    assert not values_usual(np.array([1, 2]), True)  # not float64: the NumPy checks decide
    assert not values_usual(np.zeros((3, 2), order="F"), True)  # not contiguous: likewise
    _numpy_only(monkeypatch)
    assert not values_usual(np.array([0.0, 1.0]), True)  # small: the NumPy checks


@pytest.mark.parametrize("model", [MultinomialNB(), BernoulliNB(), BernoulliNB(binarize=2.5)])
def test_the_product_checks_and_finishes_the_scores(model, monkeypatch):
    X, y = _counts(seed=5)
    model.fit(X, y)
    _numpy_only(monkeypatch)
    want = model.predict_proba(X)
    _compiled(monkeypatch)
    seen = {"blocks": 0, "finished": 0}
    inspect, finish = blocks._Inspection.__call__, softmax.RowSoftmax.result

    def counted_inspect(self, block):
        seen["blocks"] += 1
        return inspect(self, block)

    def counted_finish(self, proba):
        seen["finished"] += 1
        return finish(self, proba)

    monkeypatch.setattr(blocks._Inspection, "__call__", counted_inspect)
    monkeypatch.setattr(softmax.RowSoftmax, "result", counted_finish)
    assert model._checks_in_product()
    assert np.array_equal(model.predict_proba(X), want)
    assert seen["blocks"] > 10 and seen["finished"] == 1
    assert not MultinomialNB(estimate="bayes").fit(X, y)._checks_in_product()
    assert not BernoulliNB(binarize=-1.0).fit(X.toarray(), y)._checks_in_product()


def test_compiled_division_is_ieee():
    t = np.zeros((2, 9))  # 0 / 0: NaN as in NumPy, not Python's ZeroDivisionError
    _jit.kernels().divide_rows(t)
    assert np.isnan(t).all()
