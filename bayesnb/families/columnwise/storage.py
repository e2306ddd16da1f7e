"""ColumnwiseNB family methods: statistics in model files."""

from __future__ import annotations

__all__ = ["ColumnwiseStorage"]


class ColumnwiseStorage:
    """Family methods of ColumnwiseNB for storage; see :class:`bayesnb.families.Family`."""
