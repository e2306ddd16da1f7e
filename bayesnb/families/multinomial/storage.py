"""MultinomialNB family methods: statistics in model files.

``statistics``: ``class_count (class)``, ``feature_count (class, feature)`` (token totals) and
the document-length histogram ``length_count_`` as COO triplets ``length_class,
length_value, length_weight (length_entry)``; ``fitted`` holds its ``length_width`` and the
learned ``alpha_``.
"""

from __future__ import annotations

from bayesnb.families._discrete_storage import _CountStorage, coo_histogram, coo_statistics

__all__ = ["MultinomialStorage"]


class MultinomialStorage(_CountStorage):
    """Family methods of MultinomialNB for storage; see :class:`bayesnb.families.Family`."""

    def file_statistics(self, est) -> dict:
        return super().file_statistics(est) | coo_statistics("length", "class", est.length_count_)

    def file_fitted(self, est, out) -> dict:
        return super().file_fitted(est, out) | {"length_width": int(est.length_count_.shape[1])}

    def restore_statistics(self, est, file) -> None:
        super().restore_statistics(est, file)
        data = file.statistics
        shape = (data["class_count"].shape[0], int(file.fitted["length_width"]))
        est.length_count_ = coo_histogram(data, "length", "class", shape)
