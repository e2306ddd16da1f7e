"""CategoricalNB family methods: the PyMC declaration."""

from __future__ import annotations

__all__ = ["CategoricalPyMC"]


class CategoricalPyMC:
    """Family methods of CategoricalNB for pymc; see :class:`bayesnb.families.Family`."""
