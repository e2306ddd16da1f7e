"""Closed-form marginal summaries: mean, sd and equal-tailed bounds of Beta and Gamma cells.

Each function stacks (mean, sd, lower, upper) on a new axis 0, the ``summary`` dim of
:func:`bayesnb.draws.posterior_summary` (the layout of ``az.summary(..., fmt="xarray")``).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import beta as beta_dist
from scipy.stats import gamma as gamma_dist

__all__ = ["beta_summary", "gamma_summary"]


def beta_summary(a: np.ndarray, b: np.ndarray, ci_prob: float) -> np.ndarray:
    """mean, sd, lower and upper equal-tailed bounds of Beta(a, b), stacked on a new axis 0.

    ``a = 0`` (a class the Haldane prior never saw) is the point mass at 0.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape)
    s = a + b
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = a / s
        sd = np.sqrt(a * b / (s * s * (s + 1.0)))
        tail = (1.0 - ci_prob) / 2.0
        lo = beta_dist.ppf(tail, a, b)
        hi = beta_dist.ppf(1.0 - tail, a, b)
    out = np.stack([mean, sd, lo, hi])
    point = (a == 0) | (b == 0)
    if point.any():
        at = np.where(a == 0, 0.0, 1.0)
        out[:, point] = np.stack([at, np.zeros_like(at), at, at])[:, point]
    return out


def gamma_summary(a: np.ndarray, rate: np.ndarray, ci_prob: float) -> np.ndarray:
    """mean, sd, lower and upper equal-tailed bounds of Gamma(shape a, rate), on a new axis 0."""
    tail = (1.0 - ci_prob) / 2.0
    scale = 1.0 / rate
    return np.stack(
        [
            a * scale,
            np.sqrt(a) * scale,
            gamma_dist.ppf(tail, a, scale=scale),
            gamma_dist.ppf(1.0 - tail, a, scale=scale),
        ]
    )
