"""Kernels of synthetic documents shared by the count models: lengths and the Pólya urn.

The multinomial and Dirichlet-compound models draw each document's length from the training
length histogram of its class; the DCM (and the multinomial model's posterior predictive)
generate tokens by the Pólya urn, whose work is proportional to the number of tokens.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["CHUNK_CELLS", "MAX_TOKENS", "draw_lengths", "polya_urn", "urn"]

#: Documents per chunk when a θ is drawn per document (bounds the dense chunk to ~32 MB).
CHUNK_CELLS = 1 << 22
#: Generated multinomial documents are held as (row, column) token pairs: at most this many.
MAX_TOKENS = 10**8


def draw_lengths(est, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Document lengths drawn from the training length histogram of each document's class.

    ``est.length_count_`` is the weighted (class, length) histogram; a class without training
    documents uses the histogram of all classes.
    """
    hist = est.length_count_.tocsr()
    out = np.zeros(codes.shape[0], dtype=np.int64)
    for c in np.unique(codes):
        row = hist.getrow(c)
        values, weights = row.indices, row.data
        if weights.sum() <= 0:
            # Every class's lengths, summed over the stored entries only: the histogram is
            # as wide as the longest document (2^40 is possible) and is never densified.
            every = hist.tocoo()
            values, inverse = np.unique(every.col, return_inverse=True)
            weights = np.bincount(inverse, weights=every.data)
        if weights.sum() <= 0:
            raise ValueError("cannot draw document lengths: the training data hold no documents")
        mask = codes == c
        out[mask] = rng.choice(values, size=int(mask.sum()), p=weights / weights.sum())
    return out


def polya_urn(
    rng: np.random.Generator,
    concentration: np.ndarray,
    codes: np.ndarray,
    lengths: np.ndarray,
) -> sp.csr_matrix:
    """Documents drawn from the Pólya distribution: θ ~ Dirichlet(β_c), x ~ Mult(n, θ).

    The equivalent urn draws token t (0-based) fresh from β_c / B_c with probability
    B_c / (B_c + t) and otherwise copies one of the t earlier tokens of the document uniformly
    at random: P(word w) = (β_w + count_w) / (B + t). The work is proportional to the number of
    tokens, not to n_docs × n_features.

    Parameters
    ----------
    rng : numpy Generator
    concentration : ndarray of shape (n_classes, n_features)
        β_c, non-negative, each used row with a positive sum.
    codes : ndarray of int of shape (n_docs,)
    lengths : ndarray of int of shape (n_docs,)

    Returns
    -------
    csr_matrix of int64 of shape (n_docs, n_features)
    """
    beta = np.asarray(concentration, dtype=np.float64)
    total = beta.sum(axis=1)
    return urn(rng, beta / np.where(total > 0, total, 1.0)[:, None], total, codes, lengths)


def urn(rng, probs, total, codes, lengths) -> sp.csr_matrix:
    """Urn with base distributions ``probs`` (rows sum to 1) and strengths ``total`` (inf ok).

    An infinite strength never copies: the tokens are then i.i.d. from ``probs``.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    n_docs, n_features = codes.shape[0], probs.shape[1]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    tokens = np.empty(int(offsets[-1]), dtype=np.intp)
    doc_of = np.repeat(np.arange(n_docs), lengths)
    cls_of = codes[doc_of]
    for c in np.unique(codes):  # fresh candidates for every position, by inverse CDF
        pos = np.flatnonzero(cls_of == c)
        if pos.size == 0:
            continue
        if not total[c] > 0:
            label = np.asarray(c).tolist()
            raise ValueError(f"class code {label} has no word probabilities (B = 0)")
        cdf = np.cumsum(probs[c])
        u = rng.random(pos.size) * cdf[-1]
        tokens[pos] = np.minimum(np.searchsorted(cdf, u, side="right"), n_features - 1)
    strength = total[codes]
    finite = np.isfinite(strength)
    for t in range(1, int(lengths.max()) if lengths.size else 0):
        docs = np.flatnonzero((lengths > t) & finite)
        if docs.size == 0:
            continue
        s = strength[docs]
        copy = rng.random(docs.size) * (s + t) >= s  # P(copy) = t / (B + t)
        docs = docs[copy]
        src = offsets[docs] + (rng.random(docs.size) * t).astype(np.int64)
        tokens[offsets[docs] + t] = tokens[src]
    X = sp.csr_matrix(
        (np.ones(tokens.size, dtype=np.int64), tokens, offsets), shape=(n_docs, n_features)
    )
    X.sum_duplicates()
    return X
