"""MultinomialNB family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

__all__ = ["MultinomialSampling"]


class MultinomialSampling:
    """Family methods of MultinomialNB for sampling; see :class:`bayesnb.families.Family`."""
