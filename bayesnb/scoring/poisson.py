"""Scoring of the Poisson event model: rate tables or the negative-binomial predictive.

Per class c, with the features independent given the class,

- a point estimate λ: ``log p(x | c) = Σ_j x_j log λ_cj − Σ_j λ_cj − Σ_j ln Γ(x_j + 1)``;
- the posterior predictive (``"bayes"``), a negative binomial per feature with r = α + S and
  p = (β + N_c)/(β + N_c + 1): ``Σ_j [ln Γ(r_cj + x_j) − ln Γ(r_cj) + r_cj log p_cj +
  x_j log(1 − p_cj) − ln Γ(x_j + 1)]``.

Both are written so that a sparse document only touches its stored entries: the terms of a
zero count (``−λ_cj``, or ``r_cj log p_cj``) are a per-class constant summed once over the
features, and the rest is a sparse × dense product plus, for the predictive, the rising
factorial ``ln Γ(r + x) − ln Γ(r)`` evaluated per distinct (feature, count) pair
(:func:`bayesnb.scoring.discrete._rising_factorial_dot`, the trick of ``polya_jll``).
``ln Γ(x + 1)`` does not depend on the class; it is included so that
``predict_joint_log_proba`` is the log density log p(x, c), and skipped where only differences
between classes matter (``log_factorial=False``). Non-integer counts are scored through the
continuous extension Γ(x + 1) of the factorial.

Missing counts (``missing=``, the indicator of :mod:`bayesnb.stats.missing`; X holds 0 or
nothing there) are marginalised out exactly: the features are independent given the class, so
a missing feature's factor integrates to 1 and is dropped. X already scores it as a zero count,
whose only term is in the per-class constant, so the rows with a missing cell get that term
back, ``+ M @ λᵀ`` (or ``− M @ (r log p)ᵀ``): one sparse product over the missing cells.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from bayesnb.scoring.discrete import _rising_factorial_dot, dot_log_table

__all__ = ["log_factorial_rows", "negbin_jll", "poisson_jll"]


def log_factorial_rows(X) -> np.ndarray:
    """``Σ_j ln Γ(x_ij + 1)`` of every row, shape (n_samples,) (only stored entries for CSR)."""
    if sp.issparse(X):
        X = X.tocsr()
        terms = gammaln(X.data.astype(np.float64) + 1.0)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        return np.bincount(rows, weights=terms, minlength=X.shape[0])
    return gammaln(np.asarray(X, dtype=np.float64) + 1.0).sum(axis=1)


def _missing_rows(missing):
    """Rows with a missing cell and their indicator as float (sparse stays sparse)."""
    from bayesnb.stats.missing import as_float, missing_rows

    rows = np.flatnonzero(missing_rows(missing))
    return rows, (as_float(missing, rows) if rows.size else None)


def poisson_jll(
    X,
    log_rate: np.ndarray,
    rate_sum: np.ndarray,
    *,
    log_factorial: bool = True,
    missing=None,
    rate: np.ndarray | None = None,
) -> np.ndarray:
    """``Σ_j [x_j log λ_cj − λ_cj − ln Γ(x_j + 1)]`` for every document and class.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
    log_rate : ndarray of shape (n_classes, n_features)
        ``log λ``; ``-inf`` (a zero rate, as the MLE gives for a feature never seen in a class)
        makes a document with that feature impossible in that class (``0 · log 0 = 0``
        otherwise, through :func:`bayesnb.scoring.discrete.dot_log_table`).
    rate_sum : ndarray of shape (n_classes,)
        ``Σ_j λ_cj``.
    log_factorial : bool, default True
        Subtract ``Σ_j ln Γ(x_j + 1)`` (the same for every class).
    missing : ndarray of bool or csr_matrix, optional
        Indicator of missing cells (``X`` holds 0 there): their factors are dropped.
    rate : ndarray of shape (n_classes, n_features), optional
        ``λ`` itself, required with ``missing``.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    jll = dot_log_table(X, log_rate) - np.asarray(rate_sum, dtype=np.float64)[None, :]
    if missing is not None:
        if rate is None:
            raise ValueError("poisson_jll(missing=...) needs the rate table λ (rate=...)")
        rows, Mr = _missing_rows(missing)
        if rows.size:
            # A missing feature's −λ_cj is taken back out of the row's constant.
            jll[rows] += np.asarray(Mr @ np.asarray(rate, dtype=np.float64).T)
    if log_factorial:
        jll -= log_factorial_rows(X)[:, None]
    return jll


def negbin_jll(
    X,
    r: np.ndarray,
    log_p: np.ndarray,
    log_q: np.ndarray,
    *,
    log_factorial: bool = True,
    missing=None,
) -> np.ndarray:
    """Negative-binomial (Gamma-Poisson) log predictive of every document under every class.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
    r : ndarray of shape (n_classes, n_features)
        Posterior shapes α + S (> 0).
    log_p, log_q : ndarray of shape (n_classes, n_features)
        ``log p`` and ``log(1 − p)`` with p = (β + N_c)/(β + N_c + 1).
    log_factorial : bool, default True
        Subtract ``Σ_j ln Γ(x_j + 1)``.
    missing : ndarray of bool or csr_matrix, optional
        Indicator of missing cells (``X`` holds 0 there): their factors are dropped.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    Xs = X.tocsr() if sp.issparse(X) else sp.csr_matrix(X)
    Xs = Xs.astype(np.float64)  # a copy: summing duplicates below leaves X untouched
    Xs.sum_duplicates()  # ln Γ(r + x) is not additive over duplicate entries
    # Every feature at x = 0 contributes r log p: one constant per class.
    zero_terms = r * log_p
    jll = np.broadcast_to(zero_terms.sum(axis=1), (Xs.shape[0], r.shape[0])).copy()
    if missing is not None:
        rows, Mr = _missing_rows(missing)
        if rows.size:
            jll[rows] -= np.asarray(Mr @ zero_terms.T)  # a missing feature has no term
    jll += _rising_factorial_dot(Xs, r)
    jll += np.asarray(Xs @ log_q.T)
    if log_factorial:
        jll -= log_factorial_rows(Xs)[:, None]
    return jll
