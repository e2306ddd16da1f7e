"""Exact cross-validation of the multinomial family: downdated Dirichlet and Pólya terms."""

from __future__ import annotations

import numpy as np

from bayesnb.families._crossval import downdate
from bayesnb.families._discrete_crossval import _DiscreteCrossval, entries, prior_shift
from bayesnb.posterior.discrete import log_ratio
from bayesnb.scoring.discrete import log_rising

__all__ = ["MultinomialCrossval"]


class MultinomialCrossval(_DiscreteCrossval):
    """subtract, the O(nonzeros) leave-one-out (every estimate) and alpha="loo"."""

    def _subtract_extra(self, est, stats: dict) -> None:
        est.length_count_ = downdate(est.length_count_, stats["length_count"])

    def _loo_own(self, est, X, codes, weights):
        if est.unk:
            return None  # a left-out document can change which columns are pooled
        rows, cols, vals, _ = entries(X)
        n = codes.shape[0]
        T, N = est.feature_count_, est.class_count_
        alpha = np.broadcast_to(np.asarray(est.alpha_, dtype=np.float64), T.shape[1:])
        c, w = codes[rows], weights[rows]
        length = np.bincount(rows, weights=vals, minlength=n)
        left = T[c, cols] - w * vals  # T_cj without the document
        np.maximum(left, 0.0, out=left)
        if est.estimate == "bayes":
            # Pólya: ln Γ(A') − ln Γ(A' + n) + Σ_j [ln Γ(a'_j + x_j) − ln Γ(a'_j)].
            A = np.maximum(T.sum(axis=1)[codes] - weights * length, 0.0) + alpha.sum()
            terms = log_rising(left + alpha[cols], vals)
            own = np.bincount(rows, weights=terms, minlength=n) - log_rising(A, length)
        else:
            shift = np.broadcast_to(prior_shift(est.estimate, alpha), T.shape[1:])
            den = np.maximum(T.sum(axis=1)[codes] - weights * length, 0.0) + shift.sum()
            with np.errstate(invalid="ignore"):
                terms = vals * log_ratio(left + shift[cols], den[rows])
            own = np.bincount(rows, weights=terms, minlength=n)
        redo = N[codes] - weights <= 1e-12 * N[codes]
        return own, redo
