"""The Bernoulli family with unlabelled documents: the Beta prior density and the expected
log-likelihood of variational Bayes."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_semisupervised import SoftLabelStatistics
from bayesnb.posterior.prior_density import beta_log_density

__all__ = ["BernoulliSemisupervised"]


class BernoulliSemisupervised(SoftLabelStatistics):
    """Beta(α, β) density of every φ_cj; under Beta(a, b),
    ``E[log p(x | φ_c)] = Σ_j [x_j (ψ(a) − ψ(a + b)) + (1 − x_j)(ψ(b) − ψ(a + b))]`` over the
    observed cells."""

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        post = est.posterior_
        log_p, log_q = post.log_estimate("map")
        return beta_log_density(post.alpha, post.beta, log_p, log_q)

    def expected_log_likelihood(self, est, X) -> np.ndarray:
        """See :meth:`bayesnb.families.Family.expected_log_likelihood`."""
        log_p, log_q = est.posterior_.log_expectation()
        return est._score_tables(X, log_p, log_q)
