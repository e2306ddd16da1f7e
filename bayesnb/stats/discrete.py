"""Sufficient statistics of the discrete event models.

Class counts ``N_c``; per-class feature sums ``T_cj`` (multinomial token counts, or Bernoulli
document frequencies ``D_cj`` of the binarised matrix); per-class category counts of the
categorical model. All are weighted sums over documents, computed as one sparse product
``Yᵀ·X`` with the weighted one-hot label matrix ``Y``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["binarize", "count_categories", "count_classes", "count_features", "indicator"]


def indicator(
    codes: np.ndarray, n_classes: int, weights: np.ndarray | None = None
) -> sp.csr_matrix:
    """The weighted one-hot label matrix ``Y`` of shape (n_samples, n_classes), as CSR."""
    n = codes.shape[0]
    data = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    return sp.csr_matrix((data, codes, np.arange(n + 1)), shape=(n, n_classes))


def count_classes(codes: np.ndarray, weights: np.ndarray, n_classes: int) -> np.ndarray:
    """Weighted class counts ``N_c``, shape (n_classes,)."""
    return np.bincount(codes, weights=weights, minlength=n_classes).astype(np.float64)


def count_features(X, codes: np.ndarray, weights: np.ndarray, n_classes: int) -> np.ndarray:
    """Per-class feature sums ``Σ_{i∈c} w_i x_ij``, shape (n_classes, n_features).

    Sparse ``X`` stays sparse: the product with the sparse one-hot label matrix touches each
    stored value once, and its K×V result is the only allocation of model size.
    """
    Yt = indicator(codes, n_classes, weights).T.tocsr()
    out = Yt @ X
    return out.toarray() if sp.issparse(out) else np.asarray(out)


def binarize(X, threshold: float | None):
    """Binarise at ``threshold`` (values strictly above become 1); None leaves X unchanged.

    For CSR input only the value array is rebuilt: the index arrays are shared with ``X``,
    so binarising costs one pass over the stored values and no copy of the structure.
    """
    if threshold is None:
        return X
    if sp.issparse(X):
        if threshold < 0:
            raise ValueError(
                f"binarize={threshold} < 0 would turn every implicit zero of a sparse matrix "
                "into a 1; use a threshold >= 0 for sparse input"
            )
        out = sp.csr_matrix((X.data > threshold, X.indices, X.indptr), shape=X.shape)
        out.data = out.data.astype(np.float64)
        return out
    return (X > threshold).astype(np.float64)


def category_codes(X, offsets: np.ndarray, n_categories: np.ndarray) -> sp.csr_matrix:
    """One-hot encoding of categorical ``X`` over the concatenated category axis.

    Feature ``j`` owns columns ``offsets[j] .. offsets[j] + n_categories[j]``: one per category
    seen in training and, last, one pooled slot for every value never seen. For sparse input
    only the stored values are encoded (implicit zeros are category 0 and handled by the
    caller), for dense input every cell is.
    """
    total = int(offsets[-1] + n_categories[-1] + 1) if len(offsets) else 0
    if sp.issparse(X):
        X = X.tocsr()
        cols = X.indices
        vals = X.data.astype(np.intp)
        indptr = X.indptr
    else:
        n, v = X.shape
        cols = np.tile(np.arange(v), n)
        vals = X.ravel().astype(np.intp)
        indptr = np.arange(n + 1) * v
    slot = offsets[cols] + np.minimum(vals, n_categories[cols])
    return sp.csr_matrix((np.ones(slot.shape[0]), slot, indptr), shape=(X.shape[0], total))


def count_categories(
    X, codes: np.ndarray, weights: np.ndarray, n_classes: int, n_categories: np.ndarray
) -> np.ndarray:
    """Per-class category counts over the concatenated category axis, shape (K, Σ_j (k_j+1)).

    Every training value must be below ``n_categories[j]`` (the caller grows the category
    axis first), so the pooled unseen slot of each feature counts zero.
    """
    offsets = category_offsets(n_categories)
    counts = count_features(category_codes(X, offsets, n_categories), codes, weights, n_classes)
    if sp.issparse(X):
        # Implicit zeros are category 0: N_c minus the documents with any other value.
        n_c = count_classes(codes, weights, n_classes)
        for j, off in enumerate(offsets):
            k = n_categories[j]
            counts[:, off] = n_c - counts[:, off + 1 : off + k + 1].sum(axis=1)
    return counts


def category_offsets(n_categories: np.ndarray) -> np.ndarray:
    """Start column of each feature on the concatenated category axis (k_j + 1 slots each)."""
    return np.concatenate([[0], np.cumsum(np.asarray(n_categories) + 1)[:-1]]).astype(np.intp)
