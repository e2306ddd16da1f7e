"""One fold of ``cross_val_predict`` scored from downdated tables (the discrete families).

:meth:`Family.fold_joint_log_proba` of the multinomial and Bernoulli families: the fold's
statistics are subtracted from the full fit's counts and the log-probability table of the
training part is built straight in the layout of the scoring product (feature-major), in a
few passes over the K×V table, instead of a downdated copy of the estimator rebuilding its
tables the way a fit does. The numbers equal a refit's to rounding (the tests compare with
scikit-learn's refits to 1e-10 in log space).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.families._crossval import downdate

__all__ = ["class_log_prior_without", "counts_without", "feature_major", "scores"]


def counts_without(family, est, X, codes: np.ndarray, weights) -> tuple[np.ndarray, np.ndarray]:
    """The class counts (K,) and feature counts (K, V) of est's fit without rows ``X``.

    Both are fresh arrays the caller may overwrite.
    """
    stats = family.statistics(est, X, codes, weights)
    count = downdate(est.class_count_, stats["class_count"])
    table = downdate(est.feature_count_, stats["feature_count"])
    return count, np.asarray(table, dtype=np.float64)


def class_log_prior_without(est, class_count: np.ndarray) -> np.ndarray:
    """The class log prior est would have with ``class_count`` (its own class settings)."""
    view = est._shallow_copy()
    view.class_count_ = class_count
    view._tables = {}
    return view._compute_class_log_prior()  # not cached: the view is dropped


def feature_major(table: np.ndarray, minus: np.ndarray) -> np.ndarray:
    """``(table − minus).T`` C-contiguous, shape (V, K): the layout of the scoring product."""
    out = np.empty(table.shape[::-1])
    np.subtract(table, minus, out=out.T)
    return out


def scores(X, table_t: np.ndarray, threshold: float | None = None) -> np.ndarray:
    """``X @ table_t`` (n, K) by the threaded scoring kernel; ``threshold`` binarises X
    (values above it count 1) a block at a time inside the product."""
    from bayesnb.scoring.blocks import csr_dot
    from bayesnb.stats.discrete import binarize

    if sp.issparse(X) and X.format == "csr":
        if threshold is None:
            return csr_dot(X, table_t)
        return csr_dot(X, table_t, values=lambda v: (v > threshold).astype(np.float64))
    return np.asarray(binarize(X, threshold) @ table_t, dtype=np.float64)
