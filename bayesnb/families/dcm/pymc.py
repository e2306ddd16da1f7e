"""DirichletCompoundNB family methods: the PyMC declaration."""

from __future__ import annotations

__all__ = ["DCMPyMC"]


class DCMPyMC:
    """Family methods of DirichletCompoundNB for pymc; see :class:`bayesnb.families.Family`."""
