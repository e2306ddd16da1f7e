"""The Bernoulli family with unlabelled documents: the Beta prior density."""

from __future__ import annotations

from bayesnb.families._discrete_semisupervised import SoftLabelStatistics
from bayesnb.posterior.prior_density import beta_log_density

__all__ = ["BernoulliSemisupervised"]


class BernoulliSemisupervised(SoftLabelStatistics):
    """Beta(α, β) density of every φ_cj."""

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        post = est.posterior_
        log_p, log_q = post.log_estimate("map")
        return beta_log_density(post.alpha, post.beta, log_p, log_q)
