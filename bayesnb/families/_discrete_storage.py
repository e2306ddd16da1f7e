"""Model-file storage shared by the discrete families: the feature totals, the missing
counts, and sparse histograms stored as COO triplets (see :mod:`bayesnb.io` for the layout
around them).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["_CountStorage", "_MissingCountStorage", "coo_histogram", "coo_statistics"]


def coo_statistics(prefix: str, row: str, hist) -> dict:
    """A sparse histogram as the triplets ``<prefix>_<row>, <prefix>_value, <prefix>_weight``.

    All three have dim ``<prefix>_entry``; the row indices and values are int64, the weights
    float64. The width (number of columns) goes to ``fitted["<prefix>_width"]``.
    """
    coo = hist.tocoo()
    entry = (f"{prefix}_entry",)
    return {
        f"{prefix}_{row}": (entry, coo.row.astype(np.int64)),
        f"{prefix}_value": (entry, coo.col.astype(np.int64)),
        f"{prefix}_weight": (entry, coo.data.astype(np.float64)),
    }


def coo_histogram(data: dict, prefix: str, row: str, shape: tuple[int, int]) -> sp.csr_matrix:
    """The CSR histogram of shape ``shape`` from its :func:`coo_statistics` triplets."""
    return sp.csr_matrix(
        (data[f"{prefix}_weight"], (data[f"{prefix}_{row}"], data[f"{prefix}_value"])),
        shape=shape,
    )


class _CountStorage:
    """``feature_count (class, feature)``: the weighted feature totals of an event model."""

    def file_statistics(self, est) -> dict:
        return {"feature_count": (("class", "feature"), est.feature_count_)}

    def restore_statistics(self, est, file) -> None:
        est.class_count_ = file.statistics["class_count"]
        est.feature_count_ = file.statistics["feature_count"]


class _MissingCountStorage(_CountStorage):
    """Adds ``missing_count (class, feature)`` of the models whose posterior counts documents.

    Written only when some training value was missing (``missing="ignore"``); a file
    without it restores the read-only zero view of a model that never saw a NaN.
    """

    def _missing_statistics(self, est) -> dict:
        lost = getattr(est, "missing_count_", None)
        if lost is not None and np.any(lost):
            return {"missing_count": (("class", "feature"), np.asarray(lost))}
        return {}

    def _restore_missing(self, est, data: dict) -> None:
        shape = est.feature_count_.shape
        lost = data.get("missing_count")
        if lost is not None and lost.shape != shape:
            name = self.estimator.__name__
            raise ValueError(f"inconsistent {name} missing_count {lost.shape} in the file")
        est.missing_count_ = lost if lost is not None else np.broadcast_to(0.0, shape)
