"""Row-block scoring kernels: the same numbers, bit for bit, as the whole-matrix operations."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from bayesnb import GDA, BernoulliNB, MultinomialNB
from bayesnb.scoring import blocks
from bayesnb.scoring.blocks import csr_dot, n_threads, sum_and_min
from bayesnb.scoring.discrete import normalize_proba


@pytest.fixture
def small_blocks(monkeypatch):
    """Many blocks and several threads even on small inputs."""
    monkeypatch.setattr(blocks, "_PARALLEL_FROM", 1)
    monkeypatch.setattr(blocks, "_BLOCK_VALUES", 7)
    monkeypatch.setattr(blocks, "_BLOCK_CELLS", 13)
    monkeypatch.setenv("BAYESNB_NUM_THREADS", "3")


def _corpus(n=400, v=60, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, v, density=0.15, format="csr", random_state=seed)
    X.data = rng.integers(1, 5, X.nnz) * rng.random(X.nnz)  # non-integer: order matters
    X = X.tolil()
    X[5] = 0  # an empty row
    X = X.tocsr()
    X.eliminate_zeros()
    return X, rng.normal(size=(v, 7)) * 10


def _ref_softmax(joint, offset):
    j = joint + offset
    p = np.exp(j - j.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def test_csr_dot_equals_scipy_bit_for_bit(small_blocks):
    X, T = _corpus()
    assert n_threads() == 3
    assert np.array_equal(csr_dot(X, T), X @ T)
    assert np.array_equal(csr_dot(X, np.asfortranarray(T)), X @ T)
    X64 = X.copy()
    X64.indices, X64.indptr = X64.indices.astype(np.int64), X64.indptr.astype(np.int64)
    assert np.array_equal(csr_dot(X64, T), X @ T)
    X32, T32 = X.astype(np.float32), T.astype(np.float32)
    got = csr_dot(X32, T32)
    assert got.dtype == np.float32 and np.array_equal(got, X32 @ T32)
    # Unsorted indices: the stored order is kept, as SciPy's kernel does.
    Xu = X.copy()
    Xu.indices = Xu.indices.copy()
    for i in range(Xu.shape[0]):
        s0, s1 = Xu.indptr[i], Xu.indptr[i + 1]
        Xu.indices[s0:s1] = Xu.indices[s0:s1][::-1]
        Xu.data[s0:s1] = Xu.data[s0:s1][::-1]
    assert np.array_equal(csr_dot(Xu, T), Xu @ T)


def test_csr_dot_values_map_and_fallbacks(small_blocks):
    X, T = _corpus(seed=1)
    Xb = sp.csr_matrix(((X.data > 1.0).astype(np.float64), X.indices, X.indptr), shape=X.shape)
    got = csr_dot(X, T, values=lambda d: (d > 1.0).astype(np.float64))
    assert np.array_equal(got, Xb @ T)
    # Formats and dtypes the kernel does not take go through SciPy's product.
    assert np.array_equal(csr_dot(X.tocsc(), T), X @ T)
    assert np.array_equal(csr_dot(X, T.astype(np.float32)), X @ T.astype(np.float32))
    assert csr_dot(sp.csr_matrix((0, 60)), T).shape == (0, 7)


def test_n_threads_env(monkeypatch):
    monkeypatch.setenv("BAYESNB_NUM_THREADS", "0")
    with pytest.raises(ValueError, match="BAYESNB_NUM_THREADS must be >= 1"):
        n_threads()
    monkeypatch.setenv("BAYESNB_NUM_THREADS", "two")
    with pytest.raises(ValueError, match="must be an integer"):
        n_threads()
    monkeypatch.delenv("BAYESNB_NUM_THREADS")
    assert 1 <= n_threads() <= blocks._MAX_THREADS


def test_blocked_softmax_matches_whole_matrix(small_blocks):
    rng = np.random.default_rng(2)
    for k in (2, 3, 9, 20):
        joint = rng.normal(size=(301, k)) * 50
        prior = np.log(rng.dirichlet(np.ones(k)))
        assert np.array_equal(
            normalize_proba(joint, prior, offset=prior), _ref_softmax(joint, prior)
        )
        assert np.array_equal(normalize_proba(joint + prior, prior), _ref_softmax(joint, prior))


def test_blocked_softmax_when_numpy_sums_in_another_order(small_blocks, monkeypatch):
    rng = np.random.default_rng(7)
    joint = rng.normal(size=(101, 12)) * 20
    prior = np.log(rng.dirichlet(np.ones(12)))
    monkeypatch.setitem(blocks._ORDER_CHECKED, 12, False)  # as if the order check failed
    assert blocks.row_sums_by_columns(np.ones((12, 3))) is None
    assert np.array_equal(normalize_proba(joint, prior, offset=prior), _ref_softmax(joint, prior))


def test_blocked_softmax_impossible_rows_fall_back_to_prior(small_blocks):
    rng = np.random.default_rng(3)
    joint = rng.normal(size=(50, 4))
    joint[[3, 40]] = -np.inf
    prior = np.log([0.1, 0.2, 0.3, 0.4])
    with pytest.warns(RuntimeWarning, match="2 document"):
        p = normalize_proba(joint, prior, offset=prior)
    assert np.allclose(p[[3, 40]], [0.1, 0.2, 0.3, 0.4], rtol=1e-15)
    keep = np.setdiff1d(np.arange(50), [3, 40])
    assert np.array_equal(p[keep], _ref_softmax(joint[keep], prior))


def test_sum_and_min(small_blocks):
    values = np.arange(-3.0, 100.0)
    total, low = sum_and_min(values)
    assert total == values.sum() and low == -3.0
    assert sum_and_min(values, minimum=False)[1] == np.inf
    values[50] = np.nan
    assert np.isnan(sum_and_min(values)[0])
    assert sum_and_min(np.array([1e308, 1e308]))[0] == np.inf  # overflow: scanned by the caller
    assert sum_and_min(np.zeros(0)) == (0.0, np.inf)


def test_models_score_the_same_in_blocks(small_blocks, monkeypatch):
    X, _ = _corpus(seed=4)
    y = np.arange(X.shape[0]) % 3
    for model in (MultinomialNB(), BernoulliNB(binarize=1.0), MultinomialNB(dtype="float32")):
        model.fit(X, y)
        blocked = model.predict_proba(X), model.predict_joint_log_proba(X)
        monkeypatch.setattr(blocks, "csr_matvecs", None)  # SciPy's ``@`` on the whole matrix
        monkeypatch.setattr(blocks, "_BLOCK_CELLS", 1 << 30)
        monkeypatch.setenv("BAYESNB_NUM_THREADS", "1")
        whole = model.predict_proba(X), model.predict_joint_log_proba(X)
        monkeypatch.undo()
        monkeypatch.setattr(blocks, "_PARALLEL_FROM", 1)
        monkeypatch.setattr(blocks, "_BLOCK_VALUES", 7)
        monkeypatch.setattr(blocks, "_BLOCK_CELLS", 13)
        monkeypatch.setenv("BAYESNB_NUM_THREADS", "3")
        for a, b in zip(blocked, whole, strict=True):
            assert np.array_equal(a, b)


def test_validation_in_one_pass_still_refuses_bad_counts():
    X, _ = _corpus(seed=5)
    y = np.arange(X.shape[0]) % 2
    model = MultinomialNB().fit(X, y)
    bad = X.copy()
    bad.data[3] = -2.0
    with pytest.raises(ValueError, match=r"Negative values .*minimum found -2"):
        model.predict_proba(bad)
    bad.data[3] = np.nan
    with pytest.raises(ValueError, match="contains NaN"):
        model.predict_proba(bad)
    ignoring = MultinomialNB(missing="ignore").fit(X, y)
    bad.data[4] = -1.0
    with pytest.raises(ValueError, match="minimum found -1"):
        ignoring.predict_proba(bad)


def test_gda_checks_finiteness_on_its_scores():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int) + (X[:, 1] > 1)
    gda = GDA(covariance="shared").fit(X, y)
    assert gda._finite_on_scores
    for bad, what in ((np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")):
        Xb = X[:10].copy()
        Xb[7, 2] = bad
        with pytest.raises(ValueError, match=rf"contains {what}.* in 1 entry .*rows \[7\]"):
            gda.predict_proba(Xb)
    # Finite values whose scores overflow are scored, not refused.
    huge = X[:3].copy()
    huge[0] = 1e307
    with np.errstate(over="ignore", invalid="ignore"):
        p = gda.predict_proba(huge)
    assert np.allclose(p[1:], gda.predict_proba(X[1:3]))


def test_threads_run_under_the_callers_numpy_error_state(small_blocks):
    """Pool threads do not inherit np.errstate: tasks must take the caller's (a silenced
    0/0 stays silent, a raised one still raises)."""
    zeros = np.zeros(64)

    def divide(r0, r1):
        zeros[r0:r1] / zeros[r0:r1]  # 0/0: "invalid value"

    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        blocks.for_row_blocks(64, 1, divide, block_cells=8)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        blocks.for_row_blocks(64, 1, divide, block_cells=8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        blocks.for_row_blocks(64, 1, divide, block_cells=8)
    assert any("invalid value" in str(w.message) for w in caught)  # the default: warn


def test_all_integers_by_blocks(small_blocks):
    values = np.arange(100, dtype=np.float64)
    assert blocks.all_integers(values) and blocks.all_integers(values[:0])
    for bad in (0.5, np.nan, np.inf):
        for at in (0, 27, 28, 99):  # each side of a block boundary (blocks of 28 here)
            v = values.copy()
            v[at] = bad
            assert not blocks.all_integers(v)
    assert blocks.all_integers(-values.reshape(10, 10))
