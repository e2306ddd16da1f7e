"""Data of the semi-supervised tests: multinomial counts, Gaussian classes, hidden labels."""

from __future__ import annotations

import numpy as np


def count_data(seed=0, n=400, k=3, v=30, length=40, conc=0.3):
    """Documents of ``length`` tokens from K Dirichlet(conc) word distributions: X, y, θ."""
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet(np.full(v, conc), size=k)
    y = rng.integers(0, k, n)
    X = np.array([rng.multinomial(length, theta[c]) for c in y], dtype=np.float64)
    return X, y, theta


def gaussian_data(seed=0, n=400):
    """Three correlated Gaussian classes in 2-D: X, y, the class means."""
    rng = np.random.default_rng(seed)
    means = np.array([[0.0, 0.0], [2.5, 0.0], [0.0, 2.5]])
    y = rng.integers(0, 3, n)
    X = means[y] + rng.normal(size=(n, 2)) @ np.array([[1.0, 0.3], [0.0, 0.8]])
    return X, y, means


def hide_labels(y, n_labelled):
    """``y`` with every row after the first ``n_labelled`` marked unlabelled (-1)."""
    out = np.array(y)
    out[n_labelled:] = -1
    return out


def keep_per_class(y, n_per_class):
    """``y`` with only the first ``n_per_class`` rows of every class labelled (the rest -1)."""
    out = np.full(len(y), -1)
    keep = np.concatenate([np.flatnonzero(y == c)[:n_per_class] for c in np.unique(y)])
    out[keep] = np.asarray(y)[keep]
    return out
