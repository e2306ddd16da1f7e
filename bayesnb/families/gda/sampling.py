"""GDA family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

__all__ = ["GDASampling"]


class GDASampling:
    """Family methods of GDA for sampling; see :class:`bayesnb.families.Family`."""
