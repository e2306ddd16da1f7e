"""Sufficient statistics of the discrete event models.

Class counts ``N_c``; per-class feature sums ``T_cj`` (multinomial token counts, or Bernoulli
document frequencies ``D_cj`` of the binarised matrix); per-class category counts of the
categorical model. All are weighted sums over documents, computed as one sparse product
``Yᵀ·X`` with the weighted one-hot label matrix ``Y``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.scoring.blocks import csr_tdot

__all__ = [
    "CANCEL",
    "binarize",
    "cancel_rounding",
    "count_categories",
    "count_classes",
    "count_features",
    "indicator",
    "is_soft",
    "row_sums",
    "soft_class_sums",
]

# A difference of weighted sums below this fraction of the minuend is rounding: the sums
# were added up in different orders (partial_fit, a downdate), and the exact value is 0.
CANCEL = 1e-12


def cancel_rounding(diff: np.ndarray, minuend: np.ndarray) -> np.ndarray:
    """``diff`` (= minuend − subtrahend) with exact zeros where it is rounding, in place."""
    diff[np.abs(diff) <= CANCEL * np.abs(minuend)] = 0.0
    return diff


def indicator(
    codes: np.ndarray, n_classes: int, weights: np.ndarray | None = None
) -> sp.csr_matrix:
    """The weighted one-hot label matrix ``Y`` of shape (n_samples, n_classes), as CSR."""
    n = codes.shape[0]
    data = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    return sp.csr_matrix((data, codes, np.arange(n + 1)), shape=(n, n_classes))


def is_soft(codes) -> bool:
    """Whether ``codes`` are soft labels: (n_samples, n_classes) weights of each row in each
    class (EM's responsibilities times the sample weights), not (n_samples,) class codes."""
    return np.ndim(codes) == 2


def count_classes(codes: np.ndarray, weights, n_classes: int) -> np.ndarray:
    """Weighted class counts ``N_c``, shape (n_classes,).

    ``codes`` may be soft labels (:func:`is_soft`; ``weights`` then unused), as in every
    counting kernel of this module.
    """
    return row_sums(np.ones(np.shape(codes)[0]), codes, weights, n_classes)


def row_sums(values: np.ndarray, codes: np.ndarray, weights, n_classes: int) -> np.ndarray:
    """``Σ_{i∈c} w_i v_i`` of one value per row, shape (n_classes,)."""
    if is_soft(codes):
        return np.asarray(codes, dtype=np.float64).T @ values
    w = values if weights is None else weights * values
    return np.bincount(codes, weights=w, minlength=n_classes).astype(np.float64)


# Stored values per chunk of the class-sum scatter: its index arrays stay near 0.5 MiB.
_CHUNK = 1 << 16


def count_features(
    X,
    codes: np.ndarray,
    weights: np.ndarray,
    n_classes: int,
    *,
    out: np.ndarray | None = None,
    threshold: float | None = None,
) -> np.ndarray:
    """Per-class feature sums ``Σ_{i∈c} w_i x_ij``, shape (n_classes, n_features).

    Sparse ``X`` is scattered straight into the K×V table ``out`` (allocated when None, else
    added to in place), a chunk of rows at a time: one pass over the stored values and no
    other array of model size. (The sparse product ``Yᵀ·X`` makes two passes, SciPy's
    symbolic and numeric phases, and builds a sparse K×V result before densifying it.)
    With ``threshold``, values are binarised on the fly (``x > threshold`` counts 1): the
    Bernoulli document frequencies without a binarised copy of ``X``. Soft labels
    (:func:`is_soft`) take one product Rᵀ·X instead (:func:`soft_class_sums`).
    """
    n, v = X.shape
    if is_soft(codes):
        sums = soft_class_sums(binarize(X, threshold) if threshold is not None else X, codes)
        if out is None:
            return sums
        out += sums
        return out
    if out is None:
        out = np.zeros((n_classes, v))
    if not sp.issparse(X):
        Xv = X if threshold is None else (X > threshold).astype(np.float64)
        out += indicator(codes, n_classes, weights).T @ Xv
        return out
    flat = out.reshape(-1)  # a view: out is C-contiguous
    lengths = np.diff(X.indptr)
    unit = bool(np.all(weights == 1.0))
    step = max(1, _CHUNK * n // max(X.nnz, 1))
    for r0 in range(0, n, step):
        r1 = min(n, r0 + step)
        s0, s1 = X.indptr[r0], X.indptr[r1]
        idx = np.repeat(codes[r0:r1] * v, lengths[r0:r1])
        idx += X.indices[s0:s1]
        values = X.data[s0:s1]
        if threshold is not None:
            values = (values > threshold).astype(np.float64)
        if not unit:
            values = values * np.repeat(weights[r0:r1], lengths[r0:r1])
        np.add.at(flat, idx, values)
    return out


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


def soft_class_sums(X, resp: np.ndarray) -> np.ndarray:
    """``Σ_i resp[i, c] x_ij``, shape (n_classes, n_features): Rᵀ·X for soft labels ``resp``.

    One sparse-times-dense product (O(nonzeros × classes)), where :func:`count_features`
    with hard labels would take one pass per class.
    """
    if sp.issparse(X):
        out = csr_tdot(X.tocsr(), resp)
    else:
        out = np.asarray(X).T @ np.asarray(resp, dtype=np.float64)
    return np.ascontiguousarray(out.T)


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
    X,
    codes: np.ndarray,
    weights: np.ndarray,
    n_classes: int,
    n_categories: np.ndarray,
    missing=None,
) -> np.ndarray:
    """Per-class category counts over the concatenated category axis, shape (K, Σ_j (k_j+1)).

    Every training value must be below ``n_categories[j]`` (the caller grows the category
    axis first), so the pooled unseen slot of each feature counts zero. ``missing`` (the
    indicator of missing cells, see :mod:`bayesnb.stats.missing`; ``X`` holds 0 or nothing
    there) keeps missing cells out of every count.
    """
    offsets = category_offsets(n_categories)
    counts = count_features(category_codes(X, offsets, n_categories), codes, weights, n_classes)
    lost = 0.0
    if missing is not None:
        M = missing if sp.issparse(missing) else np.asarray(missing, dtype=np.float64)
        lost = count_features(M, codes, weights, n_classes)  # missing cells per (c, j)
    if sp.issparse(X):
        # Implicit zeros are category 0: N_c minus the documents with any other value.
        n_c = count_classes(codes, weights, n_classes)
        for j, off in enumerate(offsets):
            k = n_categories[j]
            counts[:, off] = n_c - counts[:, off + 1 : off + k + 1].sum(axis=1)
    if missing is not None:
        # Dense: the zero-filled missing cells were counted as category 0; sparse: they are
        # among the documents without another value.
        counts[:, offsets] -= lost
    return counts


def category_offsets(n_categories: np.ndarray) -> np.ndarray:
    """Start column of each feature on the concatenated category axis (k_j + 1 slots each)."""
    return np.concatenate([[0], np.cumsum(np.asarray(n_categories) + 1)[:-1]]).astype(np.intp)
