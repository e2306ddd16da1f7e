"""BernoulliNB family methods: report studies."""

from __future__ import annotations

__all__ = ["BernoulliReport"]


class BernoulliReport:
    """Family methods of BernoulliNB for report; see :class:`bayesnb.families.Family`."""
