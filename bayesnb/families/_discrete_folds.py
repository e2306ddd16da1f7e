"""One fold of ``cross_val_predict`` scored from downdated tables (the discrete families).

:meth:`Family.fold_joint_log_proba` of the multinomial and Bernoulli families: the fold's
statistics are subtracted from the full fit's counts and the log-probability table of the
training part is built straight in the layout of the scoring product (feature-major), a
block of features at a time so that every step of a block works in cache, instead of a
downdated copy of the estimator rebuilding its tables the way a fit does (a pass over the
K×V table per step). The numbers equal a refit's to rounding (the tests compare with
scikit-learn's refits to 1e-10 in log space).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = [
    "bernoulli_table",
    "class_log_prior_without",
    "multinomial_table",
    "scores",
]

# Features per block: K × 1024 float64 cells per operand stay in a core's L2 cache.
_FEATURES = 1024


def class_log_prior_without(est, class_count: np.ndarray) -> np.ndarray:
    """The class log prior est would have with ``class_count`` (its own class settings)."""
    view = est._replace({"class_count_": class_count})
    return view._compute_class_log_prior()  # not cached: the view is dropped


def _blocks(full: np.ndarray, fold: np.ndarray):
    """Blocks of features ``(slice, full − fold)``, the difference a new (K, block) array.

    ``full`` is the sum of every fold's table, merged fold after fold by the fit, so where
    the other folds hold nothing the difference is an exact 0 (x + 0 = x in floating
    point): no cancellation to clean up, unlike :func:`~bayesnb.families._crossval.downdate`
    of statistics summed in another order.
    """
    v = full.shape[1]
    for j0 in range(0, v, _FEATURES):
        cols = slice(j0, min(v, j0 + _FEATURES))
        yield cols, full[:, cols] - fold[:, cols]


def multinomial_table(full: np.ndarray, fold: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``log θ'`` of counts ``full − fold`` plus ``shift`` (V,), feature-major (V, K)."""
    table_t = np.empty(full.shape[::-1])
    total = np.zeros(full.shape[0])
    for cols, num in _blocks(full, fold):
        num += shift[cols]
        total += num.sum(axis=1)
        table_t[cols] = num.T
    np.log(table_t, out=table_t)
    table_t -= np.log(total)
    return table_t


def bernoulli_table(
    full: np.ndarray, fold: np.ndarray, count: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``((log φ' − log(1 − φ'))ᵀ, Σ_j log(1 − φ'_cj))`` of document frequencies
    ``full − fold`` out of ``count`` (K,) documents, with prior shifts ``a`` and ``b`` (V,).

    The first is feature-major (V, K); the denominator cancels in it (log a − log b).
    """
    table_t = np.empty(full.shape[::-1])
    offset = np.zeros(full.shape[0])
    for cols, succ in _blocks(full, fold):
        fail = count[:, None] - succ
        np.maximum(fail, 0.0, out=fail)  # clipped as the posterior's failures are
        fail += b[cols]
        succ += a[cols]
        log_den = np.log(succ + fail)
        np.log(succ, out=succ)
        np.log(fail, out=fail)
        table_t[cols] = (succ - fail).T
        fail -= log_den
        offset += fail.sum(axis=1)
    return table_t, offset


def scores(X, table_t: np.ndarray, threshold: float | None = None) -> np.ndarray:
    """``X @ table_t`` (n, K) by the threaded scoring kernel; ``threshold`` binarises X
    (values above it count 1) a block at a time inside the product."""
    from bayesnb.scoring.blocks import csr_dot
    from bayesnb.scoring.discrete import binarizer
    from bayesnb.stats.discrete import binarize

    if sp.issparse(X) and X.format == "csr":
        if threshold is None:
            return csr_dot(X, table_t)
        return csr_dot(X, table_t, values=binarizer(threshold, np.float64))
    return np.asarray(binarize(X, threshold) @ table_t, dtype=np.float64)
