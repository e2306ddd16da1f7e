"""BernoulliNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

__all__ = ["BernoulliEvidence"]


class BernoulliEvidence:
    """Family methods of BernoulliNB for evidence; see :class:`bayesnb.families.Family`."""
