"""DirichletCompoundNB family methods: statistics in model files."""

from __future__ import annotations

__all__ = ["DCMStorage"]


class DCMStorage:
    """Family methods of DirichletCompoundNB for storage; see :class:`bayesnb.families.Family`."""
