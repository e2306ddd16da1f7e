"""Scoring: log-probability tables or posterior predictives -> per-class log-likelihoods.

Everything is in log space. ``0 · log 0`` counts as 0 (a feature absent from a document says
nothing about a zero probability), which a plain dense product would turn into NaN; so tables
holding ``-inf`` are scored through a finite part and a separate count of impossible events.
Sparse input stays sparse: every product is sparse × dense.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp

from bayesnb.scoring.blocks import all_integers, csr_dot
from bayesnb.scoring.softmax import normalize_log_proba, normalize_proba  # re-exported

__all__ = [
    "bernoulli_jll",
    "bernoulli_linear",
    "binarizer",
    "categorical_jll",
    "dcm_jll",
    "dot_log_table",
    "log_rising",
    "normalize_log_proba",
    "normalize_proba",
    "observed_mass_correction",
    "polya_jll",
    "scoring_table",
]


def _dot(X, table_t: np.ndarray) -> np.ndarray:
    if sp.issparse(X):
        return csr_dot(X, table_t)  # row blocks in threads, bit for bit ``X @ table_t``
    return np.asarray(X @ table_t)


def dot_log_table(X, log_table: np.ndarray, table_t: np.ndarray | None = None) -> np.ndarray:
    """``X @ log_table.T`` with ``0 · (-inf) = 0``; shape (n_samples, n_classes).

    A document with a positive value on a feature whose log-probability is ``-inf`` gets
    ``-inf`` for that class. ``table_t``: ``log_table.T`` C-contiguous (the layout of the
    sparse product) from :func:`scoring_table`, when the caller keeps it; None for a table
    with ``-inf``.
    """
    if table_t is not None and sp.issparse(X):
        return _dot(X, table_t)
    inf = np.isneginf(log_table)
    if not inf.any():
        return _dot(X, log_table.T)
    finite = np.where(inf, 0.0, log_table)
    jll = _dot(X, finite.T)
    hits = _dot(_positive(X), inf.T.astype(np.float64))
    jll[hits > 0] = -np.inf
    return jll


def scoring_table(log_table: np.ndarray) -> np.ndarray | None:
    """``log_table.T`` C-contiguous for :func:`dot_log_table`, or None when it holds ``-inf``."""
    if _has_neginf(log_table):
        return None
    return np.ascontiguousarray(log_table.T)


def _has_neginf(table: np.ndarray) -> bool:
    """Whether ``table`` (log-probabilities: no NaN, no ``+inf``) holds ``-inf``; one pass."""
    return bool(table.size) and bool(table.min() == -np.inf)


def _add_in_place(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` into the fresh array ``a`` when that keeps its dtype (no other pass)."""
    if np.result_type(a, b) != a.dtype:
        return a + b
    a += b
    return a


def _positive(X):
    """Indicator of the positive entries (sparse stays sparse, structure shared)."""
    if sp.issparse(X):
        out = sp.csr_matrix((X.data > 0, X.indices, X.indptr), shape=X.shape)
        out.data = out.data.astype(np.float64)
        return out
    return (X > 0).astype(np.float64)


def bernoulli_linear(log_p: np.ndarray, log_q: np.ndarray):
    """``((log φ − log(1−φ))ᵀ, Σ_j log(1−φ_cj))`` of smoothed tables, or None (some ``-inf``).

    The single-product form of :func:`bernoulli_jll`: the first is C-contiguous, shape
    (n_features, n_classes), the layout of the sparse product, so a model can keep it.
    """
    if _has_neginf(log_q) or _has_neginf(log_p):
        return None
    linear = np.empty(log_p.shape[::-1], dtype=np.result_type(log_p, log_q))
    np.subtract(log_p, log_q, out=linear.T)  # straight into the product's layout
    return linear, log_q.sum(axis=1)


def bernoulli_jll(
    Xb,
    log_p: np.ndarray,
    log_q: np.ndarray,
    missing=None,
    threshold: float | None = None,
    linear=None,
) -> np.ndarray:
    """Σ_j [x_j log φ_cj + (1 - x_j) log(1 - φ_cj)] for binary ``Xb``.

    Written as ``Xb @ (log φ - log(1-φ)).T + Σ_j log(1-φ)`` so that sparse input only touches
    its stored ones; infinite entries (MLE zeros) are routed through
    :func:`dot_log_table` on each half.

    ``missing`` (the indicator of missing cells, see :mod:`bayesnb.stats.missing`; ``Xb`` is
    0 there) drops the factor of every missing feature: the sum runs over observed features.

    ``threshold``: ``Xb`` is not binary yet but is binarised at it (values above count 1, in
    the tables' dtype); a sparse ``Xb`` scored by the single product of smoothed estimates is
    binarised a cache-sized block at a time inside that product, without a binarised copy.
    ``linear``: :func:`bernoulli_linear` of the tables, when the caller keeps it.
    """
    if linear is None:
        linear = bernoulli_linear(log_p, log_q)
    if threshold is not None:
        if missing is None and linear is not None and sp.issparse(Xb) and Xb.format == "csr":
            table_t, offset = linear

            binary = binarizer(threshold, table_t.dtype)
            return csr_dot(Xb, table_t, values=binary, offset=offset)  # offset added in cache
        from bayesnb.stats.discrete import binarize

        Xb = binarize(Xb, threshold).astype(np.result_type(log_p, log_q), copy=False)
    if missing is not None:
        return _bernoulli_missing(Xb, log_p, log_q, missing)
    if linear is not None:
        # Smoothed estimates: a single product, as for the multinomial model (dense X keeps
        # the transposed view: BLAS is handed the layout it always had).
        table_t = linear[0] if sp.issparse(Xb) else (log_p - log_q).T
        return _add_in_place(_dot(Xb, table_t), linear[1])
    inf_q = np.isneginf(log_q)
    if not inf_q.any():
        return dot_log_table(Xb, log_p) - _dot(Xb, log_q.T) + log_q.sum(axis=1)
    # φ = 1 somewhere: a document *without* that feature is impossible in that class.
    fq = np.where(inf_q, 0.0, log_q)
    jll = dot_log_table(Xb, log_p) - _dot(Xb, fq.T) + fq.sum(axis=1)
    inf_q = inf_q.astype(np.float64)
    misses = inf_q.sum(axis=1) - _dot(Xb, inf_q.T)
    jll[misses > 0.5] = -np.inf
    return jll


def binarizer(threshold: float, dtype) -> Callable[[np.ndarray], np.ndarray]:
    """``values > threshold`` as 0/1 of ``dtype`` (NaN counts 0, as ``NaN > t`` is false)."""

    def binary(values: np.ndarray) -> np.ndarray:
        return (values > threshold).astype(dtype)

    return binary


def _bernoulli_missing(Xb, log_p: np.ndarray, log_q: np.ndarray, missing) -> np.ndarray:
    """:func:`bernoulli_jll` over the observed features; rows with a missing cell rescored."""
    from bayesnb.stats.missing import as_float, missing_rows

    jll = bernoulli_jll(Xb, log_p, log_q)
    rows = np.flatnonzero(missing_rows(missing))
    if rows.size == 0:
        return jll
    Xr, Mr = Xb[rows], as_float(missing, rows)
    inf_q = np.isneginf(log_q)
    fq = np.where(inf_q, 0.0, log_q)
    # Observed absent features contribute log(1 - φ): all of them minus the missing ones.
    part = dot_log_table(Xr, log_p) - _dot(Xr, fq.T) + fq.sum(axis=1) - _dot(Mr, fq.T)
    if inf_q.any():
        iq = inf_q.astype(np.float64)
        misses = iq.sum(axis=1) - _dot(Xr, iq.T) - _dot(Mr, iq.T)
        part[misses > 0.5] = -np.inf
    jll[rows] = part
    return jll


def observed_mass_correction(X, missing, log_table: np.ndarray, pooled=None) -> np.ndarray:
    """``−n_obs · log Σ_{j observed} φ_cj`` per row and class; add it to ``X @ log φᵀ``.

    The multinomial likelihood with missing counts marginalised out and the document length
    not modelled: a document is a sequence of tokens drawn i.i.d. from φ_c, and the tokens of
    missing features are unseen, so the observed tokens, given how many there are (n_obs),
    are i.i.d. from φ_c renormalised over the observed features. Their log-likelihood is
    ``Σ_{j obs} x_j log φ_cj − n_obs log Σ_{j obs} φ_cj``. The observed mass is computed as
    ``1 − Σ_{j missing} φ_cj`` (the tables are normalised), from the missing cells only.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
        Observed counts (0 in the missing cells).
    missing : ndarray of bool or csr_matrix
        Indicator of the missing cells.
    log_table : ndarray of shape (n_classes, n_features)
        log φ of every column (a pooled UNK column holds log φ_UNK).
    pooled : bool ndarray of shape (n_features,), optional
        Columns pooled into UNK: the UNK category counts as observed, so a missing pooled
        column removes no mass.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    from bayesnb.stats.missing import as_float, missing_rows

    out = np.zeros((X.shape[0], log_table.shape[0]))
    rows = np.flatnonzero(missing_rows(missing))
    if rows.size == 0:
        return out
    phi = np.exp(np.asarray(log_table, dtype=np.float64))
    if pooled is not None:
        phi[:, pooled] = 0.0
    miss = _dot(as_float(missing, rows), phi.T)
    with np.errstate(divide="ignore"):
        log_s = np.log1p(-np.minimum(miss, 1.0))
    # 1 − Σ_missing φ cancels when nearly all the mass is missing (it rounds to 0 below
    # ~1e-16): there, log Σ_{j observed} φ_cj is summed directly in log space, on those rows.
    close = np.flatnonzero(np.any(1.0 - miss < 2.0**-20, axis=1))
    if close.size:
        M_close = missing[rows[close]]
        M_close = M_close.toarray() if sp.issparse(M_close) else np.asarray(M_close)
        observed = ~M_close.astype(bool)
        table = np.asarray(log_table, dtype=np.float64)
        if pooled is not None and np.any(pooled):
            # The pooled UNK category is always observed and counted once.
            observed[:, pooled] = False
            observed[:, np.flatnonzero(pooled)[0]] = True
        with np.errstate(divide="ignore"):
            log_s[close] = logsumexp(
                np.where(observed[:, None, :], table[None, :, :], -np.inf), axis=2
            )
    n_obs = np.asarray(X[rows].sum(axis=1)).reshape(-1, 1)
    # 0 · log 0 = 0: a document without observed tokens says nothing; and a class giving its
    # observed features no mass (an unsmoothed MLE) has X @ log φ = −∞ already: the document
    # is impossible there, the correction must not turn −∞ into NaN.
    out[rows] = -n_obs * np.where((n_obs > 0) & np.isfinite(log_s), log_s, 0.0)
    return out


# Distinct (feature, count) pairs with counts up to this are found through a dense key space.
_DENSE_COUNTS = 32
# From this a on, ln Γ(a + n) − ln Γ(a) is summed from Stirling's series instead: the two ln Γ
# values are ~a ln a and their difference would keep only ~16 − log10(a ln a) digits.
_STIRLING_FROM = 100.0


def _stirling_tail(x: np.ndarray) -> np.ndarray:
    """ln Γ(x) − [(x − ½) ln x − x + ½ ln 2π] for x ≥ 100 (the next term is < 1e-17)."""
    r = 1.0 / x
    r2 = r * r
    return r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 / 1260.0))


def log_rising(a, n) -> np.ndarray:
    """ln Γ(a + n) − ln Γ(a) elementwise (the log rising factorial), accurate for large a.

    ``gammaln(a + n) − gammaln(a)`` loses about ``log10(a ln a)`` digits when a is large (an
    absolute error of 0.02 at a = 1e12); for a ≥ 100 the difference is taken in Stirling's
    form ``(a − ½) ln(1 + n/a) + n ln(a + n) − n + φ(a + n) − φ(a)``, which has no
    cancellation.
    """
    a, n = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(n, dtype=np.float64))
    big = a >= _STIRLING_FROM
    # One branch per cell, not both: in scoring A_c is large for every document (all Stirling)
    # while per-feature concentrations are mostly small (all gammaln).
    if big.all():
        return _stirling_rising(a, n)
    out = np.array(gammaln(a + n) - gammaln(a), dtype=np.float64)
    if big.any():
        out[big] = _stirling_rising(a[big], n[big])
    return out


def _stirling_rising(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``ln Γ(x + m) − ln Γ(x)`` for x ≥ 100 in Stirling's form (no cancellation)."""
    xm = x + m
    return (
        (x - 0.5) * np.log1p(m / x) + m * np.log(xm) - m + (_stirling_tail(xm) - _stirling_tail(x))
    )


def polya_jll(
    X, concentration: np.ndarray, pooled: np.ndarray | None = None, missing=None
) -> np.ndarray:
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
    missing : ndarray of bool or csr_matrix, optional
        Indicator of missing cells (``X`` holds 0 there). The predictive of the observed
        counts given their number is exact: with φ ~ Dirichlet(a), φ renormalised over the
        observed features is Dirichlet(a_obs) (aggregation and neutrality), so a document is
        scored with ``A_c`` replaced by ``Σ_{j observed} a_cj``. The UNK category counts as
        observed.
    """
    a = concentration
    X = X.tocsr() if sp.issparse(X) else sp.csr_matrix(X)
    n = np.asarray(X.sum(axis=1)).ravel()
    A = a.sum(axis=1)[None, :]
    if missing is None:
        jll = -_rising_by_length(A, n)
    else:
        A = _observed_concentration(np.repeat(A, X.shape[0], axis=0), a, pooled, missing)
        with np.errstate(invalid="ignore"):
            jll = -log_rising(A, n[:, None])
        jll[n == 0] = 0.0  # no observed token (A may be 0 when nothing is observed)
    if pooled is not None:  # the UNK column exists even when no feature is pooled
        a_unk = a[:, -1]
        x_unk = np.asarray(X @ pooled.astype(np.float64)).ravel()
        jll += log_rising(a_unk[None, :], x_unk[:, None])
        # Pooled columns are zeroed out of X below; any positive concentration keeps ln finite.
        a_full = np.ones((a.shape[0], X.shape[1]))
        a_full[:, ~pooled] = a[:, :-1]
        X = X.multiply((~pooled).astype(np.float64)[None, :]).tocsr()
        a = a_full
    jll += _rising_factorial_dot(X, a)
    return jll


def _rising_by_length(A: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``log_rising(A, n[:, None])``, shape (n_samples, n_classes).

    With one row of totals ``A`` (nothing missing) documents share few distinct lengths, so the
    term is evaluated once per length and gathered: ~50x fewer special-function calls.
    """
    if A.shape[0] != 1:
        return log_rising(A, n[:, None])
    lengths, inverse = np.unique(n, return_inverse=True)
    return log_rising(A, lengths[:, None])[inverse.ravel()]


def _observed_concentration(A: np.ndarray, a: np.ndarray, pooled, missing) -> np.ndarray:
    """Per-row total concentration of the observed categories, shape (n_samples, n_classes)."""
    from bayesnb.stats.missing import as_float, missing_rows

    rows = np.flatnonzero(missing_rows(missing))
    if rows.size == 0:
        return A
    if pooled is None:
        a_col = a
    else:  # the UNK category stays observed: a missing pooled column removes nothing
        a_col = np.zeros((a.shape[0], pooled.size))
        a_col[:, ~pooled] = a[:, :-1]
    A[rows] -= _dot(as_float(missing, rows), a_col.T)
    return A


def _rising_factorial_dot(X: sp.csr_matrix, a: np.ndarray) -> np.ndarray:
    """Σ_j [ln Γ(a_cj + x_ij) - ln Γ(a_cj)] for every document i and class c."""
    data = X.data
    if not all_integers(data):
        cols = X.indices
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        terms = log_rising(a[:, cols], data[None, :])
        out = np.zeros((X.shape[0], a.shape[0]))
        np.add.at(out, rows, terms.T)
        return out
    out = csr_dot(X, np.log(a).T)  # threads, bit for bit X @ log(a).T
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
        extra[:, large] = log_rising(al, xl) - xl * np.log(al)
    indptr = np.searchsorted(pos, X.indptr)
    gather = sp.csr_matrix((np.ones(pos.size), pair, indptr), shape=(n, p_col.size))
    out += csr_dot(gather, extra.T)
    return out


def categorical_jll(
    X, log_table: np.ndarray, offsets: np.ndarray, n_categories: np.ndarray, missing=None
) -> np.ndarray:
    """Σ_j log θ_{c, j, x_j} over the concatenated category axis (see ``stats.discrete``).

    Values never seen in training score the feature's pooled slot. Sparse input is scored as
    "every feature at category 0" plus corrections on the stored entries, so it stays sparse.
    ``missing`` (indicator of missing cells, where ``X`` holds 0 or nothing) drops the factor
    of each missing feature: its category-0 term is taken back out.
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
    M = None
    if missing is not None:
        from bayesnb.stats.missing import as_float

        M = as_float(missing)
        jll -= _dot(M, finite[:, offsets].T)
    if inf.any():
        hits = inf[:, offsets].sum(axis=1)[None, :] + _dot(
            onehot, (inf.astype(float) - inf_base.astype(float)).T
        )
        if M is not None:
            hits -= _dot(M, inf[:, offsets].T.astype(float))
        jll[hits > 0.5] = -np.inf
    return jll


def dcm_jll(X, concentration: np.ndarray, missing=None) -> np.ndarray:
    """Pólya log-likelihood of each document under per-class β, zeros in β allowed.

    :func:`polya_jll` with the conventions of an unsmoothed estimate: a feature with β_cj = 0
    (the DCM maximum likelihood β of a word never seen in class c) makes every document that
    holds it impossible in that class (``-inf``), and a class with B_c = 0 (no training tokens)
    gives ``-inf`` to every non-empty document and 0 to an empty one.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
        Integer counts.
    concentration : ndarray of shape (n_classes, n_features)
        β_c, one row per class (or per class and posterior draw).
    missing : ndarray of bool or csr_matrix, optional
        Indicator of missing cells (``X`` holds 0 there). Exact: by the aggregation property
        the observed counts given their number are Pólya with the observed concentrations, so
        a row is scored with ``B_obs = B − Σ_{j missing} β_j`` and its observed length.
    """
    a = np.asarray(concentration, dtype=np.float64)
    zero = a <= 0
    if not zero.any():
        return polya_jll(X, a, missing=missing)
    X = X.tocsr() if sp.issparse(X) else sp.csr_matrix(X)
    n = np.asarray(X.sum(axis=1)).ravel()
    A = a.sum(axis=1)[None, :]
    if missing is not None:
        A = _observed_concentration(np.repeat(A, X.shape[0], axis=0), a, None, missing)
        A = np.maximum(A, 0.0)  # rounding of B − Σ_missing β (0 when nothing seen is left)
    # log_rising: no cancellation of the two ln Γ at a large B (the MLE of data that are not
    # overdispersed); B = 0 gives ln Γ(0) = inf, +inf before the impossible-feature check.
    with np.errstate(invalid="ignore", divide="ignore"):
        jll = -_rising_by_length(A, n)
    jll[np.isnan(jll)] = 0.0  # B = 0 and n = 0: the empty document, probability 1
    jll += _rising_factorial_dot(X, np.where(zero, 1.0, a))
    present = X.copy()
    present.data = np.ones_like(present.data)
    hits = np.asarray(present @ zero.T.astype(np.float64))
    jll[hits > 0.5] = -np.inf
    return jll
