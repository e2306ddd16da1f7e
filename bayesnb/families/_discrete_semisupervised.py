"""Soft statistics of the families whose counting kernels take soft labels (one product)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["SoftLabelStatistics"]


class SoftLabelStatistics:
    """``soft_counter`` as one batch: the counting kernels of :mod:`bayesnb.stats`
    (``count_classes``, ``count_features``, ``count_lengths``, ``row_sums``) take the soft
    labels in place of the class codes and sum Rᵀ·X in one sparse product, where the
    default makes one weighted pass per class."""

    def soft_counter(self, est, X) -> Callable[[np.ndarray], list[dict]]:
        """See :meth:`bayesnb.families.Family.soft_counter`."""
        return lambda resp: [est._statistics(X, np.asarray(resp, dtype=np.float64), None)]
