"""Row-block scoring kernels: the same numbers, bit for bit, as the whole-matrix operations."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp

from bayesnb import GDA, BernoulliNB, MultinomialNB
from bayesnb.scoring import blocks
from bayesnb.scoring.blocks import csr_dot, n_threads, sum_and_min
from bayesnb.scoring.discrete import normalize_proba
from tests.softmax_helpers import reference_softmax


@pytest.fixture
def threads(monkeypatch):
    """Three threads: inputs of 2^18 stored values (or cells) and more run in blocks in them."""
    monkeypatch.setenv("BAYESNB_NUM_THREADS", "3")


# Stored values (and score cells) from which the kernels run in threads and many blocks.
LARGE = 1 << 18


def _corpus(n=12_000, v=60, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, v, density=0.4, format="csr", random_state=seed)
    X.data = rng.integers(1, 5, X.nnz) * rng.random(X.nnz)  # non-integer: order matters
    X = X.tolil()
    X[5] = 0  # an empty row
    X = X.tocsr()
    X.eliminate_zeros()
    assert X.nnz >= LARGE
    return X, rng.normal(size=(v, 7)) * 10


def test_csr_dot_equals_scipy_bit_for_bit(threads):
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


def test_csr_dot_values_map_and_fallbacks(threads):
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


def test_blocked_softmax_matches_whole_matrix(threads):
    rng = np.random.default_rng(2)
    for k in (2, 3, 9, 20, 130):
        joint = rng.normal(size=(LARGE // k + 301, k)) * 50
        prior = np.log(rng.dirichlet(np.ones(k)))
        assert np.array_equal(
            normalize_proba(joint, prior, offset=prior), reference_softmax(joint, prior)
        )
        assert np.array_equal(
            normalize_proba(joint + prior, prior), reference_softmax(joint, prior)
        )
        small = joint[:301]  # one block in the calling thread, NumPy passes
        assert np.array_equal(
            normalize_proba(small, prior, offset=prior), reference_softmax(small, prior)
        )


def test_blocked_softmax_impossible_rows_fall_back_to_prior(threads):
    rng = np.random.default_rng(3)
    joint = rng.normal(size=(LARGE // 4 + 50, 4))
    joint[[3, 40]] = -np.inf
    prior = np.log([0.1, 0.2, 0.3, 0.4])
    with pytest.warns(RuntimeWarning, match="2 document"):
        p = normalize_proba(joint, prior, offset=prior)
    assert np.allclose(p[[3, 40]], [0.1, 0.2, 0.3, 0.4], rtol=1e-15)
    keep = np.setdiff1d(np.arange(joint.shape[0]), [3, 40])
    assert np.array_equal(p[keep], reference_softmax(joint[keep], prior))


def test_blocked_softmax_gives_each_rows_log_normaliser(threads):
    # log Σ_c exp(joint + prior) from the softmax's own pass: scipy's logsumexp to rounding,
    # -inf for an impossible row (whose probabilities are the prior's), NaN kept.
    rng = np.random.default_rng(4)
    joint = rng.normal(size=(LARGE // 5 + 77, 5)) * 30
    joint[9] = -np.inf
    joint[12, 2] = np.nan
    prior = np.log([0.1, 0.1, 0.2, 0.3, 0.3])
    total = np.empty(joint.shape[0])
    with pytest.warns(RuntimeWarning, match="2 document"):
        p = normalize_proba(joint.copy(), prior, offset=prior, overwrite=True, log_total=total)
    keep = np.setdiff1d(np.arange(joint.shape[0]), [9, 12])
    expected = logsumexp(joint[keep] + prior, axis=1)
    np.testing.assert_allclose(total[keep], expected, rtol=1e-14, atol=1e-14)
    assert total[9] == -np.inf and np.isnan(total[12])
    assert np.allclose(p[9], np.exp(prior), rtol=1e-15)
    assert np.array_equal(p[keep], reference_softmax(joint[keep], prior))


def test_sum_and_min(threads):
    values = np.arange(-3.0, LARGE + 100.0)
    total, low = sum_and_min(values)
    assert total == pytest.approx(values.sum(), rel=1e-15) and low == -3.0
    assert sum_and_min(values, minimum=False)[1] == np.inf
    values[LARGE - 1] = np.nan
    assert np.isnan(sum_and_min(values)[0])
    assert sum_and_min(np.array([1e308, 1e308]))[0] == np.inf  # overflow: scanned by the caller
    assert sum_and_min(np.zeros(0)) == (0.0, np.inf)


def test_models_score_the_same_in_blocks(monkeypatch):
    # In blocks and threads, the scores of one product of the whole matrix (SciPy's ``@``).
    X, _ = _corpus(seed=4)
    y = np.arange(X.shape[0]) % 3
    for model in (MultinomialNB(), BernoulliNB(binarize=1.0), MultinomialNB(dtype="float32")):
        model.fit(X, y)
        scores = {}
        for count in ("1", "3"):
            monkeypatch.setenv("BAYESNB_NUM_THREADS", count)
            scores[count] = model.predict_proba(X), model.predict_joint_log_proba(X)
        for a, b in zip(scores["1"], scores["3"], strict=True):
            assert np.array_equal(a, b)
        log_p = model.feature_log_prob_
        if isinstance(model, BernoulliNB):
            log_q = model.feature_log_neg_prob_
            Xb = sp.csr_matrix(((X.data > 1.0) * 1.0, X.indices, X.indptr), shape=X.shape)
            whole = Xb @ (log_p - log_q).T + log_q.sum(axis=1)
        else:
            whole = X.astype(model.dtype) @ np.ascontiguousarray(log_p.T)
        whole = whole + model.class_log_prior_
        assert np.array_equal(scores["3"][1], whole)


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


def test_threads_run_under_the_callers_numpy_error_state(threads):
    """Pool threads do not inherit np.errstate: tasks must take the caller's (a silenced
    0/0 stays silent, a raised one still raises)."""
    zeros = np.zeros(LARGE)
    step = LARGE // 8

    def divide(r0, r1):
        zeros[r0:r1] / zeros[r0:r1]  # 0/0: "invalid value"

    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        blocks.for_row_blocks(LARGE, 1, divide, block_cells=step)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        blocks.for_row_blocks(LARGE, 1, divide, block_cells=step)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        blocks.for_row_blocks(LARGE, 1, divide, block_cells=step)
    assert any("invalid value" in str(w.message) for w in caught)  # the default: warn


def test_all_integers_by_blocks(threads):
    values = np.arange(LARGE + 100, dtype=np.float64)
    assert blocks.all_integers(values) and blocks.all_integers(values[:0])
    for bad in (0.5, np.nan, np.inf):
        for at in (0, LARGE - 1, LARGE, LARGE + 99):  # each side of a block boundary (2^18)
            v = values.copy()
            v[at] = bad
            assert not blocks.all_integers(v)
    assert blocks.all_integers(-values[:LARGE].reshape(512, 512))
