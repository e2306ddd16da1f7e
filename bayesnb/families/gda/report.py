"""GDA family methods: report studies."""

from __future__ import annotations

__all__ = ["GDAReport"]


class GDAReport:
    """Family methods of GDA for report; see :class:`bayesnb.families.Family`."""
