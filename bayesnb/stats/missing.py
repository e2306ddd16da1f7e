"""Missing values (NaN) in validated feature matrices: detect, split off, count, group.

With ``missing="ignore"`` an estimator marginalises missing features out (DESIGN notes,
"Missing values"). Everything here works on the validated ``X`` (float64 ndarray or CSR):
a NaN is a missing value, and a sparse matrix can store NaN explicitly (implicit zeros are
observed zeros). The split gives the observed part ``X0`` (NaN removed: zeroed when dense,
dropped from the structure when sparse) and the missing-value indicator ``M`` (a boolean
ndarray when dense, a CSR matrix of ones when sparse), so counting and scoring run the usual
products on ``X0`` and a correction on ``M``. Sparse stays sparse.

Every function has a fast path for data without NaN: one ``sum`` over the stored values (a
finite sum means no NaN), the test scikit-learn uses for its finiteness check.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.stats.discrete import count_features
from bayesnb.validation import stored_values, sum_is_finite

__all__ = [
    "as_float",
    "count_missing",
    "has_missing",
    "missing_mask",
    "missing_patterns",
    "missing_rows",
    "split_missing",
]


def has_missing(X) -> bool:
    """Whether validated ``X`` holds a NaN (one ``sum`` when it does not)."""
    values = stored_values(X)
    if sum_is_finite(values):
        return False
    return bool(np.isnan(values).any())


def missing_mask(X):
    """Indicator of the missing cells of dense ``X`` (bool ndarray), or None if there are none."""
    if not has_missing(X):
        return None
    return np.isnan(X)


def split_missing(X):
    """``(X0, M)``: the observed values and the missing-value indicator, or ``(X, None)``.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)

    Returns
    -------
    X0 : ndarray or csr_matrix
        ``X`` with NaN set to 0 (dense) or dropped from the stored entries (sparse); ``X``
        itself when nothing is missing.
    M : ndarray of bool, csr_matrix of float64, or None
        Indicator of the missing cells (None when nothing is missing).
    """
    if not has_missing(X):
        return X, None
    if not sp.issparse(X):
        M = np.isnan(X)
        return np.where(M, 0.0, X), M
    X = X.tocsr()
    nan = np.isnan(X.data)
    n = X.shape[0]
    rows = np.repeat(np.arange(n), np.diff(X.indptr))

    def part(mask: np.ndarray, data: np.ndarray) -> sp.csr_matrix:
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows[mask], minlength=n))])
        return sp.csr_matrix((data, X.indices[mask], indptr), shape=X.shape)

    keep = ~nan
    X0 = part(keep, X.data[keep])
    M = part(nan, np.ones(int(nan.sum())))
    return X0, M


def missing_rows(M) -> np.ndarray:
    """Boolean vector of the rows holding at least one missing value."""
    if sp.issparse(M):
        return np.diff(M.indptr) > 0
    return np.asarray(M).any(axis=1)


def as_float(M, rows: np.ndarray | None = None):
    """The indicator ``M`` (or its ``rows``) as float64 for products (sparse stays sparse)."""
    if rows is not None:
        M = M[rows]
    if sp.issparse(M):
        return M
    return np.asarray(M, dtype=np.float64)


def count_missing(M, codes: np.ndarray, weights: np.ndarray, n_classes: int):
    """Weighted per-class count of missing cells, shape (n_classes, n_features); 0.0 if none.

    The scalar 0.0 (rather than a K × V table of zeros) keeps fits without missing values
    free of a model-sized array; it adds like a table in ``partial_fit`` and in the Dask
    reduction (:func:`bayesnb.distributed.combine_statistics`).
    """
    if M is None:
        return 0.0
    return count_features(as_float(M), codes, weights, n_classes)


def missing_patterns(M: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Rows grouped by their missingness pattern (rows with a missing value only).

    Parameters
    ----------
    M : ndarray of bool, shape (n_samples, n_features)

    Returns
    -------
    list of (rows, observed)
        ``rows``: indices of the rows sharing one pattern; ``observed``: the indices of the
        columns observed in it (possibly empty).
    """
    M = np.asarray(M, dtype=bool)
    rows = np.flatnonzero(M.any(axis=1))
    if rows.size == 0:
        return []
    packed = np.packbits(M[rows], axis=1)
    _, first, inverse = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(first.size + 1))
    out = []
    for g in range(first.size):
        members = rows[order[bounds[g] : bounds[g + 1]]]
        out.append((members, np.flatnonzero(~M[rows[first[g]]])))
    return out
