"""PoissonNB family methods: report studies."""

from __future__ import annotations

__all__ = ["PoissonReport"]


class PoissonReport:
    """Family methods of PoissonNB for report; see :class:`bayesnb.families.Family`."""
