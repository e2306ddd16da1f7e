"""PoissonNB family methods: statistics in model files.

``statistics``: ``class_count (class)``, ``feature_count (class, feature)`` (count totals),
``log_factorial (class)`` (Σ ln x! per class, for the evidence) and, when some training value
was missing, ``missing_count (class, feature)`` (the exposure lost). ``fitted`` holds the
learned ``alpha_``.
"""

from __future__ import annotations

from bayesnb.families._discrete_storage import _MissingCountStorage

__all__ = ["PoissonStorage"]


class PoissonStorage(_MissingCountStorage):
    """Family methods of PoissonNB for storage; see :class:`bayesnb.families.Family`."""

    def file_statistics(self, est) -> dict:
        return {
            **super().file_statistics(est),
            "log_factorial": (("class",), est.log_factorial_),
            **self._missing_statistics(est),
        }

    def restore_statistics(self, est, file) -> None:
        super().restore_statistics(est, file)
        est.log_factorial_ = file.statistics["log_factorial"]
        self._restore_missing(est, file.statistics)
