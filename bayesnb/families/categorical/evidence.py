"""CategoricalNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

__all__ = ["CategoricalEvidence"]


class CategoricalEvidence:
    """Family methods of CategoricalNB for evidence; see :class:`bayesnb.families.Family`."""
