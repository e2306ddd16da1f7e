"""ColumnwiseNB family methods: report studies."""

from __future__ import annotations

__all__ = ["ColumnwiseReport"]


class ColumnwiseReport:
    """Family methods of ColumnwiseNB for report; see :class:`bayesnb.families.Family`."""
