"""BernoulliNB family methods: the PyMC declaration."""

from __future__ import annotations

__all__ = ["BernoulliPyMC"]


class BernoulliPyMC:
    """Family methods of BernoulliNB for pymc; see :class:`bayesnb.families.Family`."""
