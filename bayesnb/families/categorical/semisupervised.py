"""The categorical family with unlabelled documents: the Dirichlet prior density."""

from __future__ import annotations

from bayesnb.families._discrete_semisupervised import SoftLabelStatistics
from bayesnb.posterior.prior_density import dirichlet_log_density

__all__ = ["CategoricalSemisupervised"]


class CategoricalSemisupervised(SoftLabelStatistics):
    """Dirichlet(α) density of every (class, feature) vector θ_cj, the pooled slot included."""

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        post = est.posterior_
        return dirichlet_log_density(post.alpha, post.log_estimate("map"), post.sizes)
