"""MultinomialNB family methods: the PyMC declaration."""

from __future__ import annotations

__all__ = ["MultinomialPyMC"]


class MultinomialPyMC:
    """Family methods of MultinomialNB for pymc; see :class:`bayesnb.families.Family`."""
