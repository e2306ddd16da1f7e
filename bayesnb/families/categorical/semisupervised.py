"""The categorical family with unlabelled documents: the Dirichlet prior density and the
expected log-likelihood of variational Bayes."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_semisupervised import SoftLabelStatistics
from bayesnb.posterior.prior_density import dirichlet_log_density
from bayesnb.scoring import categorical_jll

__all__ = ["CategoricalSemisupervised"]


class CategoricalSemisupervised(SoftLabelStatistics):
    """Dirichlet(α) density of every (class, feature) vector θ_cj, the pooled slot included;
    ``E[log θ_cjv] = ψ(a_cjv) − ψ(Σ_v a_cjv)`` per (class, feature) segment."""

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        post = est.posterior_
        return dirichlet_log_density(post.alpha, post.log_estimate("map"), post.sizes)

    def expected_log_likelihood(self, est, X) -> np.ndarray:
        """See :meth:`bayesnb.families.Family.expected_log_likelihood`."""
        X0, M = est._split_missing(X)
        table = est.posterior_.log_expectation()
        return categorical_jll(X0, table, est._offsets, est.n_categories_, missing=M)
