"""The old import path of :mod:`bayesnb.families.columnwise.estimator`."""

from bayesnb.families.columnwise.estimator import CLASS_PRIOR_PARAMS, ColumnwiseNB

__all__ = ["CLASS_PRIOR_PARAMS", "ColumnwiseNB"]
