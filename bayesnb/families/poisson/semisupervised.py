"""The Poisson family with unlabelled documents: the Gamma prior density and the expected
log-likelihood of variational Bayes."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_semisupervised import SoftLabelStatistics
from bayesnb.posterior.prior_density import gamma_log_density
from bayesnb.scoring import poisson_jll

__all__ = ["PoissonSemisupervised"]


class PoissonSemisupervised(SoftLabelStatistics):
    """Gamma(shape α, rate β) density of every rate λ_cj; under Gamma(a, b),
    ``E[log p(x | λ_c)] = Σ_j [x_j (ψ(a) − log b) − a / b − ln x_j!]`` over the observed cells."""

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        post = est.posterior_
        return gamma_log_density(post.alpha, post.beta, np.exp(post.log_estimate("map")))

    def expected_log_likelihood(self, est, X) -> np.ndarray:
        """See :meth:`bayesnb.families.Family.expected_log_likelihood`."""
        X0, M = est._split_missing(X)
        post = est.posterior_
        mean = post.mean()
        return poisson_jll(X0, post.log_expectation(), mean.sum(axis=1), missing=M, rate=mean)
