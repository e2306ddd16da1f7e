"""Exact cross-validation of the multinomial family: downdated Dirichlet and Pólya terms."""

from __future__ import annotations

import numpy as np

from bayesnb.families._crossval import downdate
from bayesnb.families._discrete_crossval import (
    _DiscreteCrossval,
    entries,
    gather,
    own_unit_terms,
    prior_shift,
    product_path,
    sum_inf,
)
from bayesnb.families._discrete_folds import (
    class_log_prior_without,
    multinomial_table,
    scores,
)
from bayesnb.scoring.discrete import log_rising

__all__ = ["MultinomialCrossval"]


class MultinomialCrossval(_DiscreteCrossval):
    """subtract, the O(nonzeros) leave-one-out (every estimate) and alpha="loo"."""

    fold_statistics = True  # folds scored from their statistics (fold_joint_log_proba)

    def _subtract_extra(self, est, stats: dict) -> None:
        est.length_count_ = downdate(est.length_count_, stats["length_count"])

    def _loo_own(self, est, X, codes, weights):
        if est.unk:
            return None  # a left-out document can change which columns are pooled
        rows, cols, vals, Xs = entries(X)
        n = codes.shape[0]
        T, N = est.feature_count_, est.class_count_
        alpha = np.asarray(est.alpha_, dtype=np.float64)
        bayes = est.estimate == "bayes"
        shift = np.broadcast_to(alpha if bayes else prior_shift(est.estimate, alpha), T.shape[1:])
        length = np.bincount(rows, weights=vals, minlength=n)
        den = np.maximum(T.sum(axis=1)[codes] - weights * length, 0.0) + shift.sum()
        redo = N[codes] - weights <= 1e-12 * N[codes]
        if np.any((den <= 0) & (length > 0)):
            redo |= (den <= 0) & (length > 0)  # no mass left in the class: as a refit does
        if product_path(vals, weights):
            top = own_unit_terms(Xs, codes, weights, lambda wv: np.maximum(T - wv, 0.0) + shift)
            # Entries of count v ≠ 1: the product counted v · log a'_j(1); put the true term.
            other = vals != 1
            r, c, v = rows[other], cols[other], vals[other]
            t, w = gather(T, codes[r], c), weights[r]
            with np.errstate(divide="ignore"):
                unit = np.log(np.maximum(t - w, 0.0) + shift[c])
            fix = _numerator(np.maximum(t - w * v, 0.0) + shift[c], v, bayes) - v * unit
            fin, inf = sum_inf(fix, r, n)
            num = top + fin
            num[inf > 0.5] = -np.inf
        else:
            left = np.maximum(gather(T, codes[rows], cols) - weights[rows] * vals, 0.0)
            fin, inf = sum_inf(_numerator(left + shift[cols], vals, bayes), rows, n)
            num = np.where(inf > 0.5, -np.inf, fin)
        # The denominator once per document: ln Γ(A') − ln Γ(A' + n) (Pólya) or −n log A'.
        with np.errstate(divide="ignore", invalid="ignore"):
            if bayes:
                own = num - log_rising(np.where(redo, 1.0, den), length)
            else:
                own = num - length * np.log(np.where(length > 0, den, 1.0))
        return own, redo

    def fold_joint_log_proba(self, est, stats, X):
        """See :meth:`Family.fold_joint_log_proba`: the smoothed point estimates (a fold's
        Pólya predictive, an unsmoothed table or UNK pooling: None, a downdated copy)."""
        alpha = np.asarray(est.alpha_, dtype=np.float64)
        shift = prior_shift(est.estimate, alpha)
        if (
            est.estimate == "bayes"
            or est.unk
            or est._missing == "ignore"
            or est.dtype not in ("float64", np.float64)
            or np.min(shift) <= 0  # zeros in the table: -inf cells, scored by the estimator
        ):
            return None
        count = downdate(est.class_count_, stats["class_count"])
        fold = np.asarray(stats["feature_count"], dtype=np.float64)
        shift = np.broadcast_to(shift, (est.n_features_in_,))
        table_t = multinomial_table(est.feature_count_, fold, shift)
        prior = class_log_prior_without(est, count)
        joint = scores(X, table_t)
        joint += prior
        return joint, prior


def _numerator(a: np.ndarray, x: np.ndarray, bayes: bool) -> np.ndarray:
    """A feature's numerator term: ln Γ(a + x) − ln Γ(a) (Pólya) or x log a (a point)."""
    if bayes:
        return log_rising(a, x)
    with np.errstate(divide="ignore"):
        return x * np.log(a)
