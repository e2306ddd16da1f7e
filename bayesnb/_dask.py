"""Dask input of the estimators' predict methods, recognised without importing dask."""

from __future__ import annotations

__all__ = ["dask_predict", "is_dask"]


def is_dask(X) -> bool:
    """True for a Dask collection (array, bag), detected without importing dask."""
    return hasattr(X, "__dask_graph__")


def dask_predict(estimator, method: str, X):
    """``estimator.<method>(X)`` of a Dask array X: lazy, block by block."""
    from bayesnb.distributed import predict_method

    return predict_method(estimator, method, X)
