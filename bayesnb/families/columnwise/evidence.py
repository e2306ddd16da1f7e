"""ColumnwiseNB family methods: evidence, learned priors, LOO, compare.

Every method delegates to the blocks' families: the blocks are conditionally independent
given the labels, so their evidences and log-likelihoods add up.
"""

from __future__ import annotations

import numpy as np

from bayesnb.families import family_of

__all__ = ["ColumnwiseEvidence"]


class ColumnwiseEvidence:
    """Family methods of ColumnwiseNB for evidence; see :class:`bayesnb.families.Family`."""

    def feature_log_evidence(self, est) -> float:
        return float(sum(family_of(b).feature_log_evidence(b) for _, b, _ in est._blocks()))

    def loo_cells_per_draw(self, est, n_docs: int) -> int:
        return sum(family_of(b).loo_cells_per_draw(b, n_docs) for _, b, _ in est._blocks())

    def loo_view(self, est, Xc) -> tuple:
        """The blocks' views (in the same container as ``Xc``) and a list of indicators."""
        views = [
            family_of(b).loo_view(b, part)
            for (_, b, _), part in zip(est._blocks(), Xc.parts, strict=True)
        ]
        return type(Xc)([v for v, _ in views], Xc.shape[0]), [m for _, m in views]

    def loo_draws_jll(self, est, Xc, M, values: dict) -> np.ndarray:
        """The sum of the blocks' terms, each block scoring its ``"{block}/{var}"`` draws."""
        total = None
        for (name, b, _), part, m in zip(est._blocks(), Xc.parts, M, strict=True):
            sub = {k.split("/", 1)[1]: v for k, v in values.items() if k.startswith(f"{name}/")}
            jll = family_of(b).loo_draws_jll(b, part, m, sub)
            total = jll if total is None else total + jll
        return total
