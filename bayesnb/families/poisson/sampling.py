"""PoissonNB family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

__all__ = ["PoissonSampling"]


class PoissonSampling:
    """Family methods of PoissonNB for sampling; see :class:`bayesnb.families.Family`."""
