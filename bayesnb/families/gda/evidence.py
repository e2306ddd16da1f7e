"""GDA family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

__all__ = ["GDAEvidence"]


class GDAEvidence:
    """Family methods of GDA for evidence; see :class:`bayesnb.families.Family`."""
