"""Evidence-capability code shared by the discrete families (mixins of their ``evidence.py``).

- :class:`_DiscreteEvidence`: the label log-likelihood of a block of posterior draws for
  LOO (one table of draws per class, scored as the "classes" of one call) and the parameter
  count of one free value per (class, feature);
- :class:`_DirichletEvidence`: the Dirichlet-multinomial evidence of the multinomial and
  categorical models and its learned symmetric α;
- :class:`_BetaInformative`: the exact moments and log-space draws of the log-probabilities
  ranked by ``most_informative_features`` (and :func:`log_gamma_draws`, which PoissonNB's
  Gamma marginals use too).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy.special import digamma, polygamma

from bayesnb.posterior.empirical_bayes import fit_symmetric_dirichlet
from bayesnb.posterior.evidence import dirichlet_log_evidence

__all__ = [
    "_BetaInformative",
    "_DirichletEvidence",
    "_DiscreteEvidence",
    "log_beta_draws",
    "log_gamma_draws",
]


class _DiscreteEvidence:
    """LOO and parameter count of a discrete event model with one draws table per class."""

    #: The posterior draws variable holding the (draws, K, ...) table that is scored.
    _draws_table: ClassVar[str] = "feature_prob"

    def _loo_param_cells(self, est) -> int:
        """Float64 cells of one draw's parameters (the table and its logarithm)."""
        return 2 * len(est.classes_) * est.n_features_in_

    def loo_cells_per_draw(self, est, n_docs: int) -> int:
        return self._loo_param_cells(est) + 2 * len(est.classes_) * n_docs

    def _table_jll(self, est, X, table: np.ndarray, missing) -> np.ndarray:
        """log p(x_i | row r) of the (draws × classes, ...) rows of ``table``: (n_docs, rows)."""
        raise NotImplementedError(f"{type(self).__name__} scores no draws table")

    def loo_draws_jll(self, est, Xc, M, values: dict) -> np.ndarray:
        return self._draws_table_jll(est, Xc, M, values)

    def _draws_table_jll(self, est, X, M, values: dict, **table_kw) -> np.ndarray:
        """The draws' tables scored as the (draws × classes) rows of one ``_table_jll`` call."""
        theta = values[self._draws_table]
        m, n_classes = theta.shape[:2]
        table = theta.reshape(m * n_classes, *theta.shape[2:])
        with np.errstate(divide="ignore"):
            jll = self._table_jll(est, X, table, M, **table_kw)
        return np.asarray(jll).reshape(X.shape[0], m, n_classes)

    def n_feature_parameters(self, est) -> int:
        # One free value per (class, feature): a probability, a rate, or a concentration.
        return len(est.classes_) * est.n_features_in_


class _DirichletEvidence(_DiscreteEvidence):
    """Dirichlet-multinomial segments: the evidence and learned α of multinomial/categorical."""

    def feature_log_evidence(self, est) -> float:
        post = est.posterior_
        return dirichlet_log_evidence(post.alpha, post.counts, post.sizes)

    def learn_alpha(self, est) -> float:
        post = est.posterior_
        return fit_symmetric_dirichlet(post.counts, post.sizes)


def log_gamma_draws(rng: np.random.Generator, shape: np.ndarray, size: int) -> np.ndarray:
    """log of Gamma(shape, 1) draws, shape (size, *shape.shape), stable for tiny shapes.

    For s < 1, G = G' · U^(1/s) with G' ~ Gamma(s + 1) and U ~ Uniform(0, 1); taking logs
    keeps draws that would underflow to 0 in linear space.
    """
    shape = np.asarray(shape, dtype=np.float64)
    small = shape < 1.0
    g = rng.standard_gamma(np.where(small, shape + 1.0, shape), size=(size, *shape.shape))
    out = np.log(g)
    if small.any():
        u = rng.random(size=(size, *shape.shape))
        out += np.where(small, np.log(u) / shape, 0.0)
    return out


def log_beta_draws(rng: np.random.Generator, a: np.ndarray, b: np.ndarray, size: int):
    """log X for X ~ Beta(a, b): log G_a − log(G_a + G_b), computed in log space."""
    la = log_gamma_draws(rng, a, size)
    lb = log_gamma_draws(rng, b, size)
    return la - np.logaddexp(la, lb)


class _BetaInformative:
    """Beta(a, b) marginals of a probability: ``E[log θ] = ψ(a) − ψ(a + b)``."""

    def informative_moments(self, est, marginals: dict) -> tuple[np.ndarray, np.ndarray]:
        a, b = marginals["a"], marginals["b"]
        return digamma(a) - digamma(a + b), polygamma(1, a) - polygamma(1, a + b)

    def informative_draws(self, est, marginals: dict, c: int, cols, rng, size: int):
        return log_beta_draws(rng, marginals["a"][c, cols], marginals["b"][c, cols], size)
