"""Document-length statistics of the multinomial event model.

The multinomial likelihood conditions on each document's length n = Σ_j x_j, so scoring never
needs it; generating synthetic documents does (:mod:`bayesnb.generate` draws lengths from the
training length distribution of each class). The statistic is a weighted histogram: entry
``[c, n]`` is the summed weight of the training documents of class c with length n. Like every
other statistic it is a sum over documents, so ``partial_fit`` batches add up exactly
(:func:`add_length_counts`).

Lengths of documents with fractional counts (tf-idf and the like) are rounded to the nearest
integer: a token-sequence length has to be a whole number.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["DocumentLengths", "add_length_counts", "count_lengths", "empty_length_counts"]


def empty_length_counts(n_classes: int) -> sp.csr_matrix:
    """An empty length histogram of shape (n_classes, 1)."""
    return sp.csr_matrix((n_classes, 1), dtype=np.float64)


def count_lengths(
    X,
    codes: np.ndarray,
    weights: np.ndarray,
    n_classes: int,
    lengths: DocumentLengths | None = None,
) -> sp.csr_matrix:
    """Weighted per-class histogram of document lengths.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Token counts.
    codes : ndarray of int of shape (n_samples,)
        Class codes, or soft labels of shape (n_samples, n_classes)
        (:func:`bayesnb.stats.discrete.is_soft`; ``weights`` then unused).
    weights : ndarray of shape (n_samples,)
        Sample weights.
    n_classes : int
    lengths : DocumentLengths, optional
        The lengths of ``X``, indexed (soft labels only: EM counts the same rows again at
        every iteration).

    Returns
    -------
    csr_matrix of shape (n_classes, max_length + 1)
        ``[c, n]`` = Σ of the weights of the documents of class c whose length rounds to n.
        Sparse because lengths are spread thinly over a long range.
    """
    if np.ndim(codes) == 2:  # soft labels: document i counts codes[i, c] in class c
        return (DocumentLengths(X) if lengths is None else lengths).histogram(codes)
    # X @ ones and one bincount over a flat (class, length) key: a few n_samples-sized
    # temporaries, where a COO -> CSR conversion would sort every document.
    return _histogram(_lengths(X), codes, weights, n_classes)


class DocumentLengths:
    """The rounded lengths of fixed documents ``X``, indexed by their distinct values, so
    that the histogram of any soft labels is one sparse product (distinct lengths × rows)
    with no key array of n_samples × n_classes and no dense length axis.
    """

    def __init__(self, X) -> None:
        lengths = _lengths(X)
        n = lengths.size
        self.values, inverse = np.unique(lengths, return_inverse=True)
        self._rows = sp.csr_matrix(
            (np.ones(n), (inverse.ravel(), np.arange(n))), shape=(self.values.size, n)
        )

    def histogram(self, resp: np.ndarray) -> sp.csr_matrix:
        """The length histogram of soft labels ``resp`` (n_samples, n_classes): entry
        ``[c, n]`` = Σ of ``resp[i, c]`` over the documents i of length n."""
        k = resp.shape[1]
        u = self.values.size
        width = int(self.values[-1]) + 1 if u else 1
        sums = np.asarray(self._rows @ np.asarray(resp, dtype=np.float64))  # (u, k)
        out = sp.csr_matrix(
            (np.ascontiguousarray(sums.T).ravel(), np.tile(self.values, k), np.arange(k + 1) * u),
            shape=(k, width),
        )
        out.eliminate_zeros()  # zero-weight documents carry no mass
        return out


def _lengths(X) -> np.ndarray:
    lengths = np.asarray(X @ np.ones(X.shape[1])).ravel()
    np.rint(lengths, out=lengths)
    return lengths.astype(np.intp)


def _histogram(lengths, codes, weights, n_classes: int) -> sp.csr_matrix:
    width = int(lengths.max()) + 1 if lengths.size else 1
    if n_classes * width > 4 * lengths.size + 4096:
        # Lengths far beyond the number of documents (one document of 2^40 tokens): a dense
        # (class, length) key space would be that large, so sum sparse triplets instead.
        out = sp.csr_matrix(
            (np.asarray(weights, dtype=np.float64), (np.asarray(codes, dtype=np.intp), lengths)),
            shape=(n_classes, width),
        )
        out.sum_duplicates()
        out.eliminate_zeros()
        return out
    key = np.asarray(codes, dtype=np.intp) * width + lengths
    hist = np.bincount(
        key, weights=np.asarray(weights, dtype=np.float64), minlength=n_classes * width
    )
    out = sp.csr_matrix(hist.reshape(n_classes, width))
    out.eliminate_zeros()  # zero-weight documents carry no mass
    return out


def add_length_counts(a: sp.csr_matrix, b: sp.csr_matrix) -> sp.csr_matrix:
    """Sum of two length histograms of possibly different widths (``partial_fit``)."""
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"length histograms have {a.shape[0]} and {b.shape[0]} classes; they must agree"
        )
    width = max(a.shape[1], b.shape[1])
    a, b = a.tocsr(copy=True), b.tocsr(copy=True)
    a.resize((a.shape[0], width))
    b.resize((b.shape[0], width))
    return (a + b).tocsr()
