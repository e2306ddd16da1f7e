"""PoissonNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

__all__ = ["PoissonEvidence"]


class PoissonEvidence:
    """Family methods of PoissonNB for evidence; see :class:`bayesnb.families.Family`."""
