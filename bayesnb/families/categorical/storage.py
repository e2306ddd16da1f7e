"""CategoricalNB family methods: statistics in model files.

``statistics``: ``class_count (class)``, ``category_count (class, slot)`` (the counts of every
feature's categories concatenated along one axis, feature j taking ``n_categories[j] + 1``
slots) and ``n_categories (feature)``; ``fitted`` holds the learned ``alpha_``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CategoricalStorage"]

# More categories than this is not a real feature (a crafted file): refused before allocating.
_MAX_CATEGORIES = 1 << 40


class CategoricalStorage:
    """Family methods of CategoricalNB for storage; see :class:`bayesnb.families.Family`."""

    def file_statistics(self, est) -> dict:
        return {
            "category_count": (("class", "slot"), est._flat_count),
            "n_categories": (("feature",), np.asarray(est.n_categories_, dtype=np.int64)),
        }

    def restore_statistics(self, est, file) -> None:
        data, where = file.statistics, file.where
        if "n_categories" in data:
            k = data["n_categories"]
            if k.size and (k.min() < 1 or k.max() > _MAX_CATEGORIES):
                raise file.error(f"{where}: n_categories out of range")
            slots = int(np.sum(k + 1))
            if slots != data["category_count"].shape[1]:
                raise file.error(
                    f"{where}: category_count has {data['category_count'].shape[1]} slots, "
                    f"n_categories needs {slots}"
                )
        est._set_fitted(
            class_count_=data["class_count"],
            _flat_count=data["category_count"],
            n_categories_=data["n_categories"].astype(np.intp),
        )
