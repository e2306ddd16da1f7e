"""DirichletCompoundNB family methods: statistics in model files.

``statistics``: ``class_count (class)``, ``feature_count (class, feature)`` (token totals) and
the two sufficient histograms of the Pólya likelihood as COO triplets: the per-document
lengths ``length_row, length_value, length_weight (length_entry)`` (row = class) and the
per-(class, feature) counts ``value_row, value_value, value_weight (value_entry)`` (row =
class × n_features + feature); ``fitted`` holds their ``length_width`` and ``value_width``.

Group ``learned`` (format 2 on): ``concentration (class, feature)``, the fitted β of the saved
estimate, which a loaded model predicts with instead of running Newton's method again (its
last bits depend on the machine, and its result moves when the algorithm changes). A
format-1 file has no such group: its β is fitted again on load. An ``estimate`` set after
loading fits its own β from the statistics.
"""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_storage import _CountStorage, coo_histogram, coo_statistics

__all__ = ["DCMStorage"]

_HISTOGRAMS = ("length", "value")


class DCMStorage(_CountStorage):
    """Family methods of DirichletCompoundNB for storage; see :class:`bayesnb.families.Family`."""

    def file_statistics(self, est) -> dict:
        stats = super().file_statistics(est)
        for prefix in _HISTOGRAMS:
            stats |= coo_statistics(prefix, "row", getattr(est, f"{prefix}_count_"))
        return stats

    def file_fitted(self, est, out) -> dict:
        widths = {f"{p}_width": int(getattr(est, f"{p}_count_").shape[1]) for p in _HISTOGRAMS}
        return super().file_fitted(est, out) | widths

    def file_groups(self, est) -> dict:
        return {"learned": {"concentration": (("class", "feature"), est.concentration_)}}

    def read_groups(self, file) -> dict:
        if "learned" not in file.tree.children:
            return {}  # format 1
        learned = file.tree["learned"].to_dataset()
        if set(learned.data_vars) != {"concentration"}:
            raise file.error(f"{file.where}: unexpected DCM group 'learned'")
        return {"learned": {"concentration": np.asarray(learned["concentration"].values)}}

    def restore_fitted(self, est, file) -> None:
        super().restore_fitted(est, file)
        if "learned" in file.groups:
            est.concentration_ = file.groups["learned"]["concentration"]

    def restore_statistics(self, est, file) -> None:
        super().restore_statistics(est, file)
        data, fitted = file.statistics, file.fitted
        k, v = data["class_count"].shape[0], int(fitted["n_features_in"])
        for prefix, rows in zip(_HISTOGRAMS, (k, k * v), strict=True):
            shape = (rows, int(fitted[f"{prefix}_width"]))
            setattr(est, f"{prefix}_count_", coo_histogram(data, prefix, "row", shape))
