"""The class–feature mutual information of the discrete event models (Bernoulli, multinomial,
categorical), which their report registrations give the sampler check."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["class_feature_information", "posterior_mean_tables"]


def posterior_mean_tables(est) -> tuple[np.ndarray, np.ndarray]:
    """(π, θ) of the posterior mean: θ is (K, V) or, for the categorical model, (K, V, W)."""
    tree = est.point_estimate("mean")
    post = tree["posterior"]
    return post["class_prior"].values[0, 0], post["feature_prob"].values[0, 0]


def class_feature_information(est, terms: Callable) -> np.ndarray:
    """Class-specific mutual-information contributions I_cj, shape (K, V).

    ``terms(pi, theta)`` is the family's per-(class, feature) summand of Σ_x θ log(θ / θ̄)
    over the values x of its features. Σ_c I_cj is the mutual information between the class
    and feature j (for the multinomial model: between the class and a token being word j),
    under the posterior mean.
    """
    pi, theta = posterior_mean_tables(est)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = terms(pi, theta)
    return pi[:, None] * np.nan_to_num(values)
