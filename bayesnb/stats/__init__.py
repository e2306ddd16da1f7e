"""Sufficient statistics: validated arrays -> additive counts.

Every statistic here is a sum over documents, so fits over chunks (``partial_fit``, Dask
map-reduce) add up to exactly the statistics of one fit. Discrete event models live in
:mod:`bayesnb.stats.discrete`, Gaussian ones in :mod:`bayesnb.stats.gaussian`.
"""

from bayesnb.stats.discrete import (
    binarize,
    count_categories,
    count_classes,
    count_features,
    indicator,
)
from bayesnb.stats.gaussian import GaussianStats, gaussian_stats

__all__ = [
    "GaussianStats",
    "binarize",
    "count_categories",
    "count_classes",
    "count_features",
    "gaussian_stats",
    "indicator",
]
