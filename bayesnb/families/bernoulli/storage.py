"""BernoulliNB family methods: statistics in model files."""

from __future__ import annotations

__all__ = ["BernoulliStorage"]


class BernoulliStorage:
    """Family methods of BernoulliNB for storage; see :class:`bayesnb.families.Family`."""
