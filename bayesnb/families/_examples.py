"""Small random data sets of each input domain, for :func:`bayesnb.testing.check_family`."""

from __future__ import annotations

import numpy as np

__all__ = ["binary_data", "categorical_data", "count_data", "gaussian_data"]


def _labels(n: int, rng: np.random.Generator, k: int = 3) -> np.ndarray:
    """``n`` labels over ``k`` classes, each class present."""
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)
    return y


def count_data(n: int, rng: np.random.Generator, d: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Counts with class-dependent rates; every document holds at least one token."""
    y = _labels(n, rng)
    rates = rng.gamma(2.0, 1.0, size=(3, d))
    X = rng.poisson(rates[y])
    X[X.sum(axis=1) == 0, 0] = 1
    return X, y


def binary_data(n: int, rng: np.random.Generator, d: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Presence/absence with class-dependent probabilities."""
    y = _labels(n, rng)
    p = rng.beta(1.0, 1.0, size=(3, d))
    return (rng.random((n, d)) < p[y]).astype(np.int64), y


def categorical_data(
    n: int, rng: np.random.Generator, d: int = 4, k: int = 3
) -> tuple[np.ndarray, np.ndarray]:
    """Values 0..k-1 with class-dependent probabilities."""
    y = _labels(n, rng)
    p = rng.dirichlet(np.ones(k), size=(3, d))
    u = rng.random((n, d, 1))
    return (u > np.cumsum(p[y], axis=-1)).sum(axis=-1).clip(0, k - 1), y


def gaussian_data(n: int, rng: np.random.Generator, d: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Real vectors around class-dependent means."""
    y = _labels(n, rng)
    means = rng.normal(0.0, 2.0, size=(3, d))
    return means[y] + rng.normal(size=(n, d)), y
