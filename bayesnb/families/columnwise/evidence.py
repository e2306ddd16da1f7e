"""ColumnwiseNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

__all__ = ["ColumnwiseEvidence"]


class ColumnwiseEvidence:
    """Family methods of ColumnwiseNB for evidence; see :class:`bayesnb.families.Family`."""
