"""ColumnwiseNB family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

__all__ = ["ColumnwiseSampling"]


class ColumnwiseSampling:
    """Family methods of ColumnwiseNB for sampling; see :class:`bayesnb.families.Family`."""
