"""MultinomialNB family methods: statistics in model files."""

from __future__ import annotations

__all__ = ["MultinomialStorage"]


class MultinomialStorage:
    """Family methods of MultinomialNB for storage; see :class:`bayesnb.families.Family`."""
