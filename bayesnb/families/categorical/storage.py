"""CategoricalNB family methods: statistics in model files."""

from __future__ import annotations

__all__ = ["CategoricalStorage"]


class CategoricalStorage:
    """Family methods of CategoricalNB for storage; see :class:`bayesnb.families.Family`."""
