"""Exact cross-validation of the DCM: its histograms downdated, β refitted by iteration.

After a subtraction the fixed point of β runs again on the remaining statistics, started as
a refit starts it (from the remaining token proportions), so the result equals a refit's
to the fixed point's tolerance ``tol``; leave-one-out does so per document (the generic
downdate: a fixed point per document, not O(nonzeros)).
"""

from __future__ import annotations

from bayesnb.families._crossval import downdate
from bayesnb.families._discrete_crossval import _DiscreteCrossval

__all__ = ["DCMCrossval"]


class DCMCrossval(_DiscreteCrossval):
    """subtract (class counts, totals, value and length histograms)."""

    def _subtract_extra(self, est, stats: dict) -> None:
        est.value_count_ = downdate(est.value_count_, stats["value_count"])
        est.length_count_ = downdate(est.length_count_, stats["length_count"])

    def loo_joint_log_proba(self, est, X, codes, weights):
        """None: the generic per-document downdate (a fixed point per document)."""
        return None

    def loo_alpha(self, est, X, codes, weights) -> float:
        """The DCM has no alpha."""
        raise self.unsupported("alpha='loo' (it has no alpha)")
