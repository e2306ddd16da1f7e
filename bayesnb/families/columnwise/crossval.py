"""Exact cross-validation of ColumnwiseNB: every block subtracts its own statistics."""

from __future__ import annotations

from bayesnb.families import family_of
from bayesnb.families._crossval import downdate

__all__ = ["ColumnwiseCrossval"]


class ColumnwiseCrossval:
    """subtract through the blocks (leave-one-out: the generic per-document downdate)."""

    def subtract(self, est, stats: dict) -> None:
        """See :meth:`Family.subtract`: the one class count, then each block's statistics."""
        est.class_count_ = downdate(est.class_count_, stats["class_count"])
        for (_, block, _), s in zip(est.estimators_, stats["blocks"], strict=True):
            family_of(block, "bayesnb.model_selection").subtract(block, s)
        est._statistics_changed()

    def loo_alpha(self, est, X, codes, weights) -> float:
        """ColumnwiseNB has no alpha of its own (its blocks' are fitted by the blocks)."""
        raise self.unsupported("alpha='loo' (set alpha on the blocks)")
