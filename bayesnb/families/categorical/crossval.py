"""Exact cross-validation of the categorical family: category counts and k_j downdated.

A refit on the remaining documents sees k_j = (largest remaining category of feature j) + 1,
at least ``min_categories``: subtracting a batch shrinks the category axis where the batch
held the only documents of the top categories (a category counts as seen when some class
holds weight there; one seen only in zero-weight documents is not, unlike a refit).
Leave-one-out rescores each document by a downdate (the category axis may shrink with it).
"""

from __future__ import annotations

import numpy as np

from bayesnb.families._crossval import downdate
from bayesnb.families._discrete_crossval import _DiscreteCrossval
from bayesnb.stats.discrete import category_offsets
from bayesnb.validation import check_min_categories

__all__ = ["CategoricalCrossval"]


class CategoricalCrossval(_DiscreteCrossval):
    """subtract (with the refit's n_categories_) and alpha="loo"."""

    def subtract(self, est, stats: dict) -> None:
        """See :meth:`Family.subtract`."""
        k = est.n_categories_
        blocks = [
            np.pad(b, ((0, 0), (0, kj + 1 - b.shape[1])))
            for b, kj in zip(stats["category_count"], k, strict=True)
        ]
        est.class_count_ = downdate(est.class_count_, stats["class_count"])
        flat = downdate(est._flat_count, np.concatenate(blocks, axis=1))
        need = np.ones(k.size, dtype=np.intp)
        if est.min_categories is not None:
            need = np.maximum(need, check_min_categories(est.min_categories, k.size))
        offsets = category_offsets(k)
        seen = flat.sum(axis=0) > 0
        parts = []
        for j, (off, kj) in enumerate(zip(offsets, k, strict=True)):
            held = np.flatnonzero(seen[off : off + kj])
            need[j] = max(need[j], held[-1] + 1 if held.size else 1)
            block = flat[:, off : off + need[j]]
            parts.append(np.hstack([block, np.zeros((flat.shape[0], 1))]))
        est.n_categories_ = need
        est._flat_count = np.concatenate(parts, axis=1)
        est._statistics_changed()
