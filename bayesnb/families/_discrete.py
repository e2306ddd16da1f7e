"""Estimator skeleton shared by the discrete event models: input checks, class counting and
the ``missing_count_`` statistic.
"""

from __future__ import annotations

import numpy as np

from bayesnb._base import GenerativeClassifier
from bayesnb.posterior.discrete import check_mode_exists
from bayesnb.stats.discrete import (
    count_classes,
    count_features,
)
from bayesnb.validation import (
    check_X,
    check_X_y,
)

__all__ = ["_DiscreteNB", "_MissingCounts", "_is_zero_view"]


def _is_zero_view(a: np.ndarray) -> bool:
    """Whether ``a`` is the read-only broadcast zero table of an empty model (zero strides)."""
    return 0 in a.strides


class _DiscreteNB(GenerativeClassifier):
    """Input checks and class counting shared by the discrete event models."""

    _nonnegative = True
    _integer = False

    def _check_input(self, X, y=None, *, reset):
        """Validated X (and y)."""
        kw = dict(
            reset=reset, nonnegative=self._nonnegative, integer=self._integer, missing=self._missing
        )
        if y is None:
            return check_X(self, X, **kw)
        return check_X_y(self, X, y, **kw)

    def _check_params(self) -> None:
        super()._check_params()
        if isinstance(self.alpha, str) and self.alpha not in ("evidence", "loo"):
            raise ValueError(
                f"alpha must be a positive number or array, 'evidence' or 'loo', got {self.alpha!r}"
            )
        if not isinstance(self.alpha, str):
            # The MAP needs an interior mode: refuse at fit, not at the first predict.
            check_mode_exists(self.estimate, self.alpha, "alpha")
            beta = getattr(self, "beta", None)
            check_mode_exists(self.estimate, 1.0 if beta is None else beta, "beta")
        self._check_dtype()

    def _check_dtype(self) -> None:
        try:
            dtype = np.dtype(self.dtype)
        except TypeError:
            dtype = None
        if dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype must be float32 or float64, got {self.dtype!r}")

    def _as_dtype(self, a):
        """``a`` (estimate table or input) in the scoring precision ``dtype``."""
        return a.astype(self.dtype, copy=False)

    def _reset_counts(self, n_features: int) -> None:
        self.class_count_ = np.zeros(len(self.classes_))
        # A read-only zero view costs no memory; the first batch's table replaces it.
        self.feature_count_ = np.broadcast_to(0.0, (len(self.classes_), n_features))

    def _statistics(self, X, codes, weights) -> dict:
        k = len(self.classes_)
        X0, _ = self._split_missing(X)  # missing counts are left out of the sums
        return {
            "class_count": count_classes(codes, weights, k),
            "feature_count": count_features(X0, codes, weights, k),
        }

    def _merge_statistics(self, stats: dict) -> None:
        self.class_count_ += stats["class_count"]
        if _is_zero_view(self.feature_count_):
            # The first batch's fresh table becomes the model's: fit never holds two.
            self.feature_count_ = np.asarray(stats["feature_count"], dtype=np.float64)
        elif not self.feature_count_.flags.writeable:  # e.g. a read-only memmap
            self.feature_count_ = self.feature_count_ + stats["feature_count"]
        else:
            self.feature_count_ += stats["feature_count"]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = self._nonnegative
        # Event models of counts are not meant for the Gaussian blobs of the generic checks.
        tags.classifier_tags.poor_score = True
        return tags


class _MissingCounts:
    """``missing_count_``: weighted documents of class c with feature j missing (mixin).

    For the models whose posterior of feature j counts documents (BernoulliNB's trials,
    PoissonNB's exposure): under ``missing="ignore"`` feature j is observed in
    ``N_cj = N_c − missing_count_[c, j]`` documents of class c. A read-only view of zeros
    until some training value is missing; a batch without NaN adds the scalar 0.0.
    """

    def _reset_counts(self, n_features: int) -> None:
        super()._reset_counts(n_features)
        self.missing_count_ = np.broadcast_to(0.0, (len(self.classes_), n_features))

    def _merge_statistics(self, stats: dict) -> None:
        super()._merge_statistics(stats)
        lost = stats.get("missing_count", 0.0)
        if np.ndim(lost) == 0:
            return  # no missing value in the batch
        self.missing_count_ = self.missing_count_ + lost  # a new table: safe for views

    def _observed_counts(self) -> np.ndarray | None:
        """``N_cj`` of shape (n_classes, n_features), or None when nothing is missing."""
        lost = getattr(self, "missing_count_", None)
        if lost is None or _is_zero_view(lost) or not lost.any():
            return None
        # Clipped: weighted sums of N_c and of the missing counts are rounded separately.
        return np.maximum(self.class_count_[:, None] - lost, 0.0)
