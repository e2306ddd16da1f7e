"""The multinomial family with unlabelled documents: the Dirichlet prior density."""

from __future__ import annotations

from bayesnb.families._discrete_semisupervised import SoftLabelStatistics
from bayesnb.posterior.prior_density import dirichlet_log_density

__all__ = ["MultinomialSemisupervised"]


class MultinomialSemisupervised(SoftLabelStatistics):
    """Dirichlet(α) density of every class's θ_c (over the UNK slot too, with ``unk``)."""

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        post = est.posterior_
        return dirichlet_log_density(post.alpha, post.log_estimate("map"))
