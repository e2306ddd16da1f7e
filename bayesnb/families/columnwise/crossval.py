"""Exact cross-validation of ColumnwiseNB: every block subtracts its own statistics."""

from __future__ import annotations

import numpy as np

from bayesnb.families import family_of
from bayesnb.families._crossval import downdate, loo_class_log_prior, loo_joint

__all__ = ["ColumnwiseCrossval"]


class ColumnwiseCrossval:
    """subtract and leave-one-out through the blocks."""

    def loo_joint_log_proba(self, est, X, codes, weights):
        """Σ over blocks of their LOO log-likelihoods, plus the one LOO class prior."""
        weights = np.asarray(weights, dtype=np.float64)
        prior = loo_class_log_prior(est, codes, weights)
        total = prior.copy()
        for (_, block, _), part in zip(est._blocks(), X.parts, strict=True):
            # A block's own class prior taken back out (its class counts are the composite's).
            lik = loo_joint(block, part, codes, weights) - loo_class_log_prior(
                block, codes, weights
            )
            total += np.where(np.isneginf(prior), 0.0, lik)
        return total

    def subtract(self, est, stats: dict, documents=None) -> None:
        """See :meth:`Family.subtract`: the one class count, then each block's statistics."""
        est.class_count_ = downdate(est.class_count_, stats["class_count"])
        for (_, block, _), s in zip(est.estimators_, stats["blocks"], strict=True):
            family_of(block, "bayesnb.model_selection").subtract(block, s)
        est._statistics_changed(documents)

    def loo_alpha(self, est, X, codes, weights) -> float:
        """ColumnwiseNB has no alpha of its own (its blocks' are fitted by the blocks)."""
        raise self.unsupported("alpha='loo' (set alpha on the blocks)")
