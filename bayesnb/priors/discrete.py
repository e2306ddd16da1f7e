"""Beta and Dirichlet priors of the discrete event models."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Beta", "Dirichlet"]


@dataclass(frozen=True)
class Beta:
    """Beta(alpha, beta) prior on each Bernoulli feature probability φ_cj.

    Parameters
    ----------
    alpha, beta : float or ndarray of shape (n_features,)
        Pseudo-counts of documents with and without the feature. Beta(1, 1) is uniform and
        makes the posterior mean Laplace's add-one rule.
    """

    alpha: float | np.ndarray
    beta: float | np.ndarray

    def as_dict(self) -> dict:
        return {"family": "Beta", "alpha": self.alpha, "beta": self.beta}


@dataclass(frozen=True)
class Dirichlet:
    """Symmetric (scalar) or per-category Dirichlet(alpha) prior on a probability vector.

    Parameters
    ----------
    alpha : float or ndarray
        Pseudo-count of each category. ``alpha = 1`` is uniform on the simplex (Laplace);
        ``alpha = 0`` (class prior only) is the improper Haldane limit whose posterior mean is
        the empirical frequency.
    """

    alpha: float | np.ndarray

    def as_dict(self) -> dict:
        return {"family": "Dirichlet", "alpha": self.alpha}
