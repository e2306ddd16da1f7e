"""GDA family methods: statistics in model files."""

from __future__ import annotations

__all__ = ["GDAStorage"]


class GDAStorage:
    """Family methods of GDA for storage; see :class:`bayesnb.families.Family`."""
