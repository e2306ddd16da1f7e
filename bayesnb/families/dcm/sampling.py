"""DirichletCompoundNB family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

__all__ = ["DCMSampling"]


class DCMSampling:
    """Family methods of DirichletCompoundNB for sampling; see :class:`bayesnb.families.Family`."""
