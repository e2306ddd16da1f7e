"""Scoring: log-probability tables or posterior predictives -> per-class log-likelihoods.

Everything is in log space. ``0 · log 0`` counts as 0 (a feature absent from a document says
nothing about a zero probability), which a plain dense product would turn into NaN; so tables
holding ``-inf`` are scored through a finite part and a separate count of impossible events.
Sparse input stays sparse: every product is sparse × dense.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

__all__ = [
    "bernoulli_jll",
    "categorical_jll",
    "dot_log_table",
    "normalize_log_proba",
    "normalize_proba",
    "polya_jll",
]


def _dot(X, table_t: np.ndarray) -> np.ndarray:
    out = X @ table_t
    return np.asarray(out)


def dot_log_table(X, log_table: np.ndarray) -> np.ndarray:
    """``X @ log_table.T`` with ``0 · (-inf) = 0``; shape (n_samples, n_classes).

    A document with a positive value on a feature whose log-probability is ``-inf`` gets
    ``-inf`` for that class.
    """
    inf = np.isneginf(log_table)
    if not inf.any():
        return _dot(X, log_table.T)
    finite = np.where(inf, 0.0, log_table)
    jll = _dot(X, finite.T)
    hits = _dot(_positive(X), inf.T.astype(np.float64))
    jll[hits > 0] = -np.inf
    return jll


def _positive(X):
    """Indicator of the positive entries (sparse stays sparse, structure shared)."""
    if sp.issparse(X):
        out = sp.csr_matrix((X.data > 0, X.indices, X.indptr), shape=X.shape)
        out.data = out.data.astype(np.float64)
        return out
    return (X > 0).astype(np.float64)


def bernoulli_jll(Xb, log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """Σ_j [x_j log φ_cj + (1 - x_j) log(1 - φ_cj)] for binary ``Xb``.

    Written as ``Xb @ (log φ - log(1-φ)).T + Σ_j log(1-φ)`` so that sparse input only touches
    its stored ones; infinite entries (MLE zeros) are routed through
    :func:`dot_log_table` on each half.
    """
    inf_q = np.isneginf(log_q)
    if not inf_q.any():
        if not np.isneginf(log_p).any():
            # Smoothed estimates: a single product, as for the multinomial model.
            return _dot(Xb, (log_p - log_q).T) + log_q.sum(axis=1)
        return dot_log_table(Xb, log_p) - _dot(Xb, log_q.T) + log_q.sum(axis=1)
    # φ = 1 somewhere: a document *without* that feature is impossible in that class.
    fq = np.where(inf_q, 0.0, log_q)
    jll = dot_log_table(Xb, log_p) - _dot(Xb, fq.T) + fq.sum(axis=1)
    inf_q = inf_q.astype(np.float64)
    misses = inf_q.sum(axis=1) - _dot(Xb, inf_q.T)
    jll[misses > 0.5] = -np.inf
    return jll


# Distinct (feature, count) pairs with counts up to this are found through a dense key space.
_DENSE_COUNTS = 32


def polya_jll(X, concentration: np.ndarray, pooled: np.ndarray | None = None) -> np.ndarray:
    """Dirichlet-multinomial (Pólya) log predictive of each document as a token sequence.

    ``ln Γ(A_c) - ln Γ(A_c + n) + Σ_j [ln Γ(a_cj + x_j) - ln Γ(a_cj)]``, with ``a`` the
    posterior concentration and ``A_c = Σ_j a_cj``.

    For integer counts ``ln Γ(a + x) - ln Γ(a) = x ln a + Σ_{m=1}^{x-1} ln(1 + m/a)``: one
    product ``X · (ln a)ᵀ``, the cost of scoring a point estimate, plus a correction that is
    zero for x = 1 and is evaluated once per distinct (feature, count) pair with x ≥ 2, then
    gathered by a sparse product over those (in text, few) entries. Non-integer values fall
    back to ``gammaln`` on the stored entries.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
    concentration : ndarray of shape (n_classes, n_categories)
        ``n_categories`` is ``n_features``, or ``n_seen + 1`` when ``pooled`` is given.
    pooled : bool ndarray of shape (n_features,), optional
        Columns pooled into one last (UNK) category; ``concentration`` then has one column per
        unpooled feature plus the UNK column.
    """
    a = concentration
    X = X.tocsr() if sp.issparse(X) else sp.csr_matrix(X)
    n = np.asarray(X.sum(axis=1)).ravel()
    A = a.sum(axis=1)
    jll = gammaln(A)[None, :] - gammaln(A[None, :] + n[:, None])
    if pooled is not None:  # the UNK column exists even when no feature is pooled
        a_unk = a[:, -1]
        x_unk = np.asarray(X @ pooled.astype(np.float64)).ravel()
        jll += gammaln(a_unk[None, :] + x_unk[:, None]) - gammaln(a_unk)[None, :]
        # Pooled columns are zeroed out of X below; any positive concentration keeps ln finite.
        a_full = np.ones((a.shape[0], X.shape[1]))
        a_full[:, ~pooled] = a[:, :-1]
        X = X.multiply((~pooled).astype(np.float64)[None, :]).tocsr()
        a = a_full
    jll += _rising_factorial_dot(X, a)
    return jll


def _rising_factorial_dot(X: sp.csr_matrix, a: np.ndarray) -> np.ndarray:
    """Σ_j [ln Γ(a_cj + x_ij) - ln Γ(a_cj)] for every document i and class c."""
    data = X.data
    if not np.all(data == np.round(data)):
        cols = X.indices
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        terms = gammaln(a[:, cols] + data[None, :]) - gammaln(a[:, cols])
        out = np.zeros((X.shape[0], a.shape[0]))
        np.add.at(out, rows, terms.T)
        return out
    out = np.asarray(X @ np.log(a).T)
    pos = np.flatnonzero(data >= 2)
    if pos.size == 0:
        return out
    n, v = X.shape
    cols = X.indices.take(pos).astype(np.int64)
    x = data.take(pos)
    pair = np.empty(pos.size, dtype=np.int64)
    # Pairs with small counts are numbered through a dense (count, feature) key space, the
    # rare larger ones by np.unique: no sort of every entry.
    small = x <= _DENSE_COUNTS
    keys = x[small].astype(np.int64) * v + cols[small]
    present = np.zeros((_DENSE_COUNTS + 1) * v, dtype=bool)
    present[keys] = True
    pair[small] = (np.cumsum(present) - 1)[keys]
    flat_keys = np.flatnonzero(present)
    p_col, p_x = flat_keys % v, flat_keys // v
    if not small.all():
        (big_x, big_col), inv = np.unique(
            np.stack([x[~small], cols[~small]]), axis=1, return_inverse=True
        )
        pair[~small] = flat_keys.size + inv.ravel()
        p_col = np.concatenate([p_col, big_col.astype(np.int64)])
        p_x = np.concatenate([p_x, big_x])
    ap = a[:, p_col]
    extra = np.zeros_like(ap)
    # Σ_{m=1}^{x-1} log1p(m/a) keeps full precision where ln Γ differences cancel (a ≫ x).
    for m in range(1, min(int(p_x.max()), _DENSE_COUNTS)):
        sel = p_x > m
        extra[:, sel] += np.log1p(m / ap[:, sel])
    large = p_x > _DENSE_COUNTS
    if large.any():
        al, xl = ap[:, large], p_x[large]
        extra[:, large] = gammaln(al + xl) - gammaln(al) - xl * np.log(al)
    indptr = np.searchsorted(pos, X.indptr)
    gather = sp.csr_matrix((np.ones(pos.size), pair, indptr), shape=(n, p_col.size))
    out += np.asarray(gather @ extra.T)
    return out


def categorical_jll(
    X, log_table: np.ndarray, offsets: np.ndarray, n_categories: np.ndarray
) -> np.ndarray:
    """Σ_j log θ_{c, j, x_j} over the concatenated category axis (see ``stats.discrete``).

    Values never seen in training score the feature's pooled slot. Sparse input is scored as
    "every feature at category 0" plus corrections on the stored entries, so it stays sparse.
    """
    from bayesnb.stats.discrete import category_codes

    Xs = X if sp.issparse(X) else sp.csr_matrix(X)
    onehot = category_codes(Xs, offsets, n_categories)
    # The category-0 column of every feature, broadcast over that feature's slots.
    sizes = np.asarray(n_categories) + 1
    inf = np.isneginf(log_table)
    inf_base = np.repeat(inf[:, offsets], sizes, axis=1)
    finite = np.where(inf, 0.0, log_table)
    finite_base = np.repeat(finite[:, offsets], sizes, axis=1)
    jll = finite[:, offsets].sum(axis=1)[None, :] + _dot(onehot, (finite - finite_base).T)
    if inf.any():
        hits = inf[:, offsets].sum(axis=1)[None, :] + _dot(
            onehot, (inf.astype(float) - inf_base.astype(float)).T
        )
        jll[hits > 0.5] = -np.inf
    return jll


def normalize_log_proba(joint: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """Normalise joint log-probabilities over classes (log-sum-exp) into log posteriors.

    Documents that every class finds impossible (all ``-inf``, as the MLE gives for a
    feature unseen in every class) fall back to the class prior, with one
    ``RuntimeWarning`` naming how many documents did.
    """
    joint, top = _with_fallback(joint, log_prior)
    with np.errstate(divide="ignore"):
        shifted = joint - top
        lse = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return shifted - lse


def normalize_proba(joint: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """``exp`` of :func:`normalize_log_proba` with one exponential per cell, not two."""
    joint, top = _with_fallback(joint, log_prior)
    proba = np.exp(joint - top)
    proba /= proba.sum(axis=1, keepdims=True)
    return proba


def _with_fallback(joint: np.ndarray, log_prior: np.ndarray):
    """Row maxima of ``joint``; impossible rows replaced by the class prior (with a warning)."""
    top = joint.max(axis=1, keepdims=True)
    dead = ~np.isfinite(top[:, 0])
    if dead.any():
        warnings.warn(
            f"{int(dead.sum())} document(s) have probability 0 under every class (an "
            "unsmoothed estimate, 'mle' or 'map' at alpha = 1, gives probability 0 to "
            "features unseen in a class); their predictions fall back to the class prior. "
            "Use estimate='mean' to smooth.",
            RuntimeWarning,
            stacklevel=4,
        )
        joint = joint.copy()
        joint[dead] = log_prior
        top[dead, 0] = joint[dead].max(axis=1)
    return joint, top
