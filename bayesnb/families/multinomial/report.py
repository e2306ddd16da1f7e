"""MultinomialNB family methods: report studies."""

from __future__ import annotations

__all__ = ["MultinomialReport"]


class MultinomialReport:
    """Family methods of MultinomialNB for report; see :class:`bayesnb.families.Family`."""
