"""PoissonNB family methods: statistics in model files."""

from __future__ import annotations

__all__ = ["PoissonStorage"]


class PoissonStorage:
    """Family methods of PoissonNB for storage; see :class:`bayesnb.families.Family`."""
