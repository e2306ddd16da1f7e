"""The Poisson family with unlabelled documents: the Gamma prior density."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_semisupervised import SoftLabelStatistics
from bayesnb.posterior.prior_density import gamma_log_density

__all__ = ["PoissonSemisupervised"]


class PoissonSemisupervised(SoftLabelStatistics):
    """Gamma(shape α, rate β) density of every rate λ_cj."""

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        post = est.posterior_
        return gamma_log_density(post.alpha, post.beta, np.exp(post.log_estimate("map")))
