"""Count histograms: the sufficient statistics of the Dirichlet-compound-multinomial (DCM).

The Pólya (DCM) likelihood of a class,

    Σ_d [ln Γ(B) − ln Γ(B + n_d)] + Σ_d Σ_{j: x_dj > 0} [ln Γ(β_j + x_dj) − ln Γ(β_j)],

depends on the documents only through two histograms (Minka, "Estimating a Dirichlet
distribution", the Pólya section):

- the **value histogram** ``h[c, j, v]`` = summed weight of the documents of class c in which
  feature j occurs exactly v ≥ 1 times (zeros contribute nothing: ln Γ(β) − ln Γ(β) = 0);
- the **length histogram** ``L[c, n]`` = summed weight of the documents of class c of length
  n (:mod:`bayesnb.stats.lengths`).

Class totals T_cj (the multinomial statistic) are *not* sufficient: they cannot tell one
document with a word ten times from ten documents with it once, which is exactly the
burstiness the DCM models.

The value histogram is a CSR matrix of shape (n_classes · n_features, max_value + 1), row
``c · V + j``, column v; it is computed in one pass over the stored values of sparse ``X`` (the
implicit zeros are never touched) and, like every other statistic, is a weighted sum over
documents, so ``partial_fit`` batches add up exactly (:func:`add_value_counts`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from bayesnb.stats.lengths import add_length_counts

__all__ = [
    "ValueTriplets",
    "add_value_counts",
    "count_values",
    "empty_value_counts",
    "value_triplets",
]


def empty_value_counts(n_classes: int, n_features: int) -> sp.csr_matrix:
    """An empty value histogram of shape (n_classes · n_features, 1)."""
    return sp.csr_matrix((n_classes * n_features, 1), dtype=np.float64)


def count_values(X, codes: np.ndarray, weights: np.ndarray, n_classes: int) -> sp.csr_matrix:
    """Weighted per-(class, feature) histogram of the non-zero counts of ``X``.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
        Non-negative integer counts (validated by the caller).
    codes : ndarray of int of shape (n_samples,)
        Class code of every row.
    weights : ndarray of shape (n_samples,)
        Sample weights.
    n_classes : int

    Returns
    -------
    csr_matrix of shape (n_classes · n_features, max_value + 1)
        Entry ``[c · V + j, v]`` = Σ of the weights of the documents of class c with
        ``x_j == v``; column 0 is always empty.
    """
    v = X.shape[1]
    Xs = X if sp.issparse(X) else sp.csr_matrix(X)
    Xs = Xs.tocsr()
    lengths = np.diff(Xs.indptr)
    row = np.repeat(np.asarray(codes, dtype=np.intp) * v, lengths) + Xs.indices
    weights = np.asarray(weights, dtype=np.float64)
    unit = bool(np.all(weights == 1.0))
    size = n_classes * v
    # On text most stored counts are 1: those are histogrammed by one bincount over the
    # (class, feature) rows, the others (a few percent) through a COO matrix. No pass over
    # the stored values builds a (row, count) key.
    other = np.flatnonzero(Xs.data != 1.0)
    if unit:
        # Exact: integer counts of documents with the feature, minus those with another count.
        ones = np.bincount(row, minlength=size) - np.bincount(row[other], minlength=size)
        ones = ones.astype(np.float64)
        w_other = np.ones(other.size)
    else:
        w = np.repeat(weights, lengths)
        ones = np.bincount(row, np.where(Xs.data == 1.0, w, 0.0), size)
        w_other = w[other]
    values = Xs.data[other].astype(np.intp)  # integers (validated): the cast is exact
    keep = values > 0  # explicitly stored zeros carry nothing
    width = max(int(values.max()) + 1 if values.size else 1, 2 if ones.any() else 1)
    hit = np.flatnonzero(ones)
    # Index arrays in the smallest integer type SciPy accepts: no conversion pass in COO.
    idx = np.int32 if max(size, width) < np.iinfo(np.int32).max else np.int64
    rows = np.concatenate([hit, row[other][keep]]).astype(idx, copy=False)
    cols = np.concatenate([np.ones(hit.size, dtype=idx), values[keep].astype(idx)])
    data = np.concatenate([ones[hit], w_other[keep]])
    out = sp.coo_matrix((data, (rows, cols)), shape=(size, width)).tocsr()
    out.sum_duplicates()
    out.eliminate_zeros()  # zero-weight documents carry no mass
    return out


def add_value_counts(a: sp.csr_matrix, b: sp.csr_matrix) -> sp.csr_matrix:
    """Sum of two value histograms of possibly different widths (``partial_fit``)."""
    return add_length_counts(a, b)


class ValueTriplets(NamedTuple):
    """The stored entries of a value histogram, flat: what the fixed point iterates over."""

    cls: np.ndarray  # class code of every entry
    feature: np.ndarray  # feature index
    value: np.ndarray  # the count v >= 1 (float64)
    weight: np.ndarray  # summed document weight with that count


def value_triplets(hist: sp.csr_matrix, n_features: int) -> ValueTriplets:
    """Flatten a value histogram into (class, feature, value, weight) arrays."""
    coo = hist.tocoo()
    keep = coo.data != 0
    rows = coo.row[keep].astype(np.intp)
    return ValueTriplets(
        rows // n_features,
        rows % n_features,
        coo.col[keep].astype(np.float64),
        coo.data[keep].astype(np.float64),
    )
