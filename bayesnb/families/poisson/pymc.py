"""PoissonNB family methods: the PyMC declaration."""

from __future__ import annotations

__all__ = ["PoissonPyMC"]


class PoissonPyMC:
    """Family methods of PoissonNB for pymc; see :class:`bayesnb.families.Family`."""
