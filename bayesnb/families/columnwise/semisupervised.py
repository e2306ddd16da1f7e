"""ColumnwiseNB with unlabelled documents: each block's prior density, soft statistics and
expected log-likelihood."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bayesnb.families import family_of

__all__ = ["ColumnwiseSemisupervised"]


class ColumnwiseSemisupervised:
    """The blocks compose: the sum of their prior densities (a block fitted by maximum
    likelihood has the flat prior, density 0), their soft statistics batch by batch, and the
    sum of their expected log-likelihoods (the blocks are independent given the class)."""

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        total = 0.0
        for _, block, _ in est._blocks():
            if block.estimate != "mle":
                total += family_of(block).feature_log_prior_density(block)
        return total

    def soft_counter(self, est, X) -> Callable[[np.ndarray], list[dict]]:
        """See :meth:`bayesnb.families.Family.soft_counter`: batch i holds every block's
        i-th batch (None for a block with fewer), the class counts in the first."""
        counters = [
            family_of(block).soft_counter(block, part)
            for (_, block, _), part in zip(est._blocks(), X.parts, strict=True)
        ]

        def count(resp: np.ndarray) -> list[dict]:
            per_block = [counter(resp) for counter in counters]
            n = max((len(b) for b in per_block), default=0)
            class_count = np.asarray(resp, dtype=np.float64).sum(axis=0)
            return [
                {
                    "class_count": class_count if i == 0 else 0.0,
                    "blocks": [b[i] if i < len(b) else None for b in per_block],
                }
                for i in range(n)
            ]

        return count

    def expected_log_likelihood(self, est, X) -> np.ndarray:
        """See :meth:`bayesnb.families.Family.expected_log_likelihood`."""
        return sum(
            family_of(block).expected_log_likelihood(block, part)
            for (_, block, _), part in zip(est._blocks(), X.parts, strict=True)
        )
