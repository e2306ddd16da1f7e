"""DirichletCompoundNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

__all__ = ["DCMEvidence"]


class DCMEvidence:
    """Family methods of DirichletCompoundNB for evidence; see :class:`bayesnb.families.Family`."""
