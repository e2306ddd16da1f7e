"""ColumnwiseNB family methods: the PyMC declaration."""

from __future__ import annotations

__all__ = ["ColumnwisePyMC"]


class ColumnwisePyMC:
    """Family methods of ColumnwiseNB for pymc; see :class:`bayesnb.families.Family`."""
