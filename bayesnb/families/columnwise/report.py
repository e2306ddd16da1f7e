"""ColumnwiseNB family methods: report studies."""

from __future__ import annotations

__all__ = ["ColumnwiseReport"]


class ColumnwiseReport:
    """Family methods of ColumnwiseNB for report; see :class:`bayesnb.families.Family`."""

    def default_estimator(self, data=None):
        """None: a ColumnwiseNB is its blocks, which only the user can choose."""
        raise self.unsupported("a default estimator (its blocks are the user's choice)")
