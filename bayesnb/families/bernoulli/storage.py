"""BernoulliNB family methods: statistics in model files.

``statistics``: ``class_count (class)``, ``feature_count (class, feature)`` (documents of
class c with feature j on) and, when some training value was missing, ``missing_count
(class, feature)``. ``fitted`` holds the learned ``alpha_``.
"""

from __future__ import annotations

from bayesnb.families._discrete_storage import _MissingCountStorage

__all__ = ["BernoulliStorage"]


class BernoulliStorage(_MissingCountStorage):
    """Family methods of BernoulliNB for storage; see :class:`bayesnb.families.Family`."""

    def file_statistics(self, est) -> dict:
        return super().file_statistics(est) | self._missing_statistics(est)

    def restore_statistics(self, est, file) -> None:
        super().restore_statistics(est, file)
        self._restore_missing(est, file.statistics)
