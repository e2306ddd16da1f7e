"""GDA family methods: the PyMC declaration."""

from __future__ import annotations

__all__ = ["GDAPyMC"]


class GDAPyMC:
    """Family methods of GDA for pymc; see :class:`bayesnb.families.Family`."""
