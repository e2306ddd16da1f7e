"""DirichletCompoundNB family methods: report studies."""

from __future__ import annotations

__all__ = ["DCMReport"]


class DCMReport:
    """Family methods of DirichletCompoundNB for report; see :class:`bayesnb.families.Family`."""
