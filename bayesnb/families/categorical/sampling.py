"""CategoricalNB family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

__all__ = ["CategoricalSampling"]


class CategoricalSampling:
    """Family methods of CategoricalNB for sampling; see :class:`bayesnb.families.Family`."""
