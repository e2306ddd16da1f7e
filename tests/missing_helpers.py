"""Helpers shared by the missing-value test files (test_missing.py,
test_missing_new_models.py, test_columnwise.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from bayesnb.evidence import _class_log_evidence
from bayesnb.validation import MissingValueWarning


def with_nan(X, seed=1, rate=0.2, keep_rows=0):
    """A copy of X with NaN in random cells (about ``rate`` of them; the first ``keep_rows``
    rows stay complete)."""
    rng = np.random.default_rng(seed)
    Xn = X.copy()
    hole = rng.random(X.shape) < rate
    hole[:keep_rows] = False
    Xn[hole] = np.nan
    return Xn


def sparse_nan(Xn):
    """CSR with the NaN stored explicitly (scipy keeps them; zeros stay implicit)."""
    S = sp.csr_matrix(np.where(np.isnan(Xn), 1.0, Xn))  # missing cells stored, as 1 for now
    S.data[np.isnan(Xn)[S.nonzero()]] = np.nan  # nonzero(): the stored cells in CSR order
    assert np.isnan(S.data).sum() == np.isnan(Xn).sum()
    return S


def quiet(f, *args, **kwargs):
    """``f(*args, **kwargs)`` without the MissingValueWarning of an approximate fit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingValueWarning)
        return f(*args, **kwargs)


def assert_scores_equal_observed_columns(model, make_sub, X, y, Xt, Xn, sparse):
    """``model`` (fitted on X, y with missing="ignore") scores every row of ``Xn`` (``Xt`` with
    NaN; row 0 all NaN) as a model ``make_sub()`` fitted on the row's observed columns."""
    Xf = sparse_nan(Xn) if sparse else Xn
    jll = model.predict_joint_log_proba(Xf)
    proba = model.predict_proba(Xf)
    assert_allclose(jll[0], model.class_log_prior_, rtol=0, atol=1e-12)
    for i in range(1, Xn.shape[0]):
        obs = np.flatnonzero(~np.isnan(Xn[i]))
        sub = make_sub().fit(X[:, obs], y)
        want = sub.predict_joint_log_proba(Xt[i : i + 1, obs])[0]
        assert_allclose(jll[i], want, rtol=1e-12, atol=1e-12)
        assert_allclose(proba[i], sub.predict_proba(Xt[i : i + 1, obs])[0], rtol=1e-12, atol=0)


def assert_counts_observed_documents(model, make_sub, X, Xn, y, w, same_feature):
    """``model`` (fitted on ``Xn``, X with NaN, and weights ``w``) counts per feature the
    documents where it is observed: ``missing_count_`` weighs the missing cells, and feature
    j equals ``make_sub()`` fitted on the rows observing j (``same_feature(model, sub, j)``
    compares them; the feature evidences add up). The class prior counts every label."""
    for c in range(len(model.classes_)):
        for j in range(X.shape[1]):
            rows = (y == c) & np.isnan(Xn[:, j])
            assert model.missing_count_[c, j] == w[rows].sum()
    feature_ev = 0.0
    for j in range(X.shape[1]):
        rows = ~np.isnan(Xn[:, j])
        sub = make_sub().fit(X[rows][:, [j]], y[rows], sample_weight=w[rows])
        same_feature(model, sub, j)
        feature_ev += sub.log_evidence() - _class_log_evidence(sub)
    assert_allclose(model.log_evidence() - _class_log_evidence(model), feature_ev, rtol=1e-12)
    assert_array_equal(model.class_count_, np.bincount(y, weights=w))


def assert_nan_error_names_cells(model, X, y, sparse):
    """Under missing="error", fit and predict refuse NaN, naming its rows and columns.

    Returns ``model`` fitted on the complete X.
    """
    Xn = X.copy()
    Xn[[3, 7, 7, 12], [2, 2, 4, 2]] = np.nan
    Xf = sparse_nan(Xn) if sparse else Xn
    msg = r"NaN.*4 entries in 3 row\(s\) and 2 column\(s\): rows \[3, 7, 12\], columns \[2, 4\]"
    with pytest.raises(ValueError, match=msg):
        clone(model).fit(Xf, y)
    fitted = clone(model).fit(X, y)
    with pytest.raises(ValueError, match="missing='ignore'"):
        fitted.predict_proba(Xf)
    return fitted
