"""BernoulliNB family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

__all__ = ["BernoulliSampling"]


class BernoulliSampling:
    """Family methods of BernoulliNB for sampling; see :class:`bayesnb.families.Family`."""
