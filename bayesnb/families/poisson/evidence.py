"""PoissonNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, polygamma

from bayesnb.families._discrete_evidence import _DiscreteEvidence, log_gamma_draws
from bayesnb.posterior.empirical_bayes import fit_gamma_shape
from bayesnb.posterior.evidence import gamma_poisson_log_evidence
from bayesnb.scoring import poisson_jll

__all__ = ["PoissonEvidence"]


class PoissonEvidence(_DiscreteEvidence):
    """Family methods of PoissonNB for evidence; see :class:`bayesnb.families.Family`."""

    informative_quantity = "log rate ratio"

    _draws_table = "feature_rate"

    def feature_log_evidence(self, est) -> float:
        post = est.posterior_
        return gamma_poisson_log_evidence(
            post.alpha, post.beta, post.sums, post.counts, float(np.sum(est.log_factorial_))
        )

    def learn_alpha(self, est) -> float:
        post = est.posterior_
        return fit_gamma_shape(post.sums, post.counts, post.beta)

    def _table_jll(self, est, X, table: np.ndarray, missing, *, categories=False) -> np.ndarray:
        # The table holds the rates λ (a DrawBatch's last column the total rate of the rest);
        # ln x! is the same for every class and cancels in p(y | x).
        return poisson_jll(
            X, np.log(table), table.sum(axis=1), log_factorial=False, missing=missing, rate=table
        )

    # -- most informative features: Gamma(shape, rate) marginals of the rates --------------------
    def informative_marginals(self, est) -> dict[str, np.ndarray]:
        post = est.posterior_
        shape = np.asarray(post.shape, dtype=np.float64)
        rate = np.broadcast_to(np.asarray(post.rate, dtype=np.float64), shape.shape)
        return {"shape": shape, "rate": rate}

    def informative_moments(self, est, marginals: dict) -> tuple[np.ndarray, np.ndarray]:
        # E[log λ] = ψ(shape) − log(rate), Var[log λ] = ψ'(shape).
        shape = marginals["shape"]
        return digamma(shape) - np.log(marginals["rate"]), polygamma(1, shape)

    def informative_draws(self, est, marginals: dict, c: int, cols, rng, size: int):
        shape, rate = marginals["shape"][c, cols], marginals["rate"][c, cols]
        return log_gamma_draws(rng, shape, size) - np.log(rate)
