"""MultinomialNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

__all__ = ["MultinomialEvidence"]


class MultinomialEvidence:
    """Family methods of MultinomialNB for evidence; see :class:`bayesnb.families.Family`."""
