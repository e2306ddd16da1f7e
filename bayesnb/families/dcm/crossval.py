"""Exact cross-validation of the DCM: its histograms downdated, β refitted by iteration.

After a subtraction the Newton iteration for β runs again on the remaining statistics,
**warm-started** from the optimum of the statistics before the subtraction (the full fit):
the same stopping rule as a refit (no β moves by more than ``tol`` relative in a Newton
step, where convergence is quadratic), so it reaches the refit's optimum to far below
``tol``, in fewer iterations (a refit starts cold from the token proportions). Leave-one-out
does so per document (the generic downdate: an optimisation per document, not O(nonzeros)).
"""

from __future__ import annotations

from bayesnb.families._crossval import downdate
from bayesnb.families._discrete_crossval import _DiscreteCrossval

__all__ = ["DCMCrossval"]


class DCMCrossval(_DiscreteCrossval):
    """subtract (class counts, totals, value and length histograms)."""

    def subtract(self, est, stats: dict) -> None:
        """See :meth:`Family.subtract`; β is re-optimised from the optimum before it."""
        est._begin_warm_start()
        super().subtract(est, stats)

    def _subtract_extra(self, est, stats: dict) -> None:
        est.value_count_ = downdate(est.value_count_, stats["value_count"])
        est.length_count_ = downdate(est.length_count_, stats["length_count"])

    def loo_joint_log_proba(self, est, X, codes, weights):
        """None: the generic per-document downdate (a fixed point per document)."""
        return None

    def loo_alpha(self, est, X, codes, weights) -> float:
        """The DCM has no alpha."""
        raise self.unsupported("alpha='loo' (it has no alpha)")
