"""CategoricalNB family methods: report studies."""

from __future__ import annotations

__all__ = ["CategoricalReport"]


class CategoricalReport:
    """Family methods of CategoricalNB for report; see :class:`bayesnb.families.Family`."""
