"""The multinomial family with unlabelled documents: the soft statistics, the Dirichlet prior
density and the expected log-likelihood of variational Bayes."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bayesnb.families._discrete_semisupervised import SoftLabelStatistics
from bayesnb.posterior.prior_density import dirichlet_log_density
from bayesnb.scoring import dot_log_table
from bayesnb.scoring.discrete import scoring_table
from bayesnb.stats.lengths import DocumentLengths

__all__ = ["MultinomialSemisupervised"]


class MultinomialSemisupervised(SoftLabelStatistics):
    """Dirichlet(α) density of every class's θ_c (over the UNK slot too, with ``unk``);
    ``E[log p(x | θ_c)] = Σ_j x_j (ψ(a_cj) − ψ(Σ_j a_cj))`` under Dirichlet(a_c)."""

    def soft_counter(self, est, X) -> Callable[[np.ndarray], list[dict]]:
        """See :meth:`bayesnb.families.Family.soft_counter`: the documents' lengths (their
        observed tokens) are indexed once for the length histogram."""
        lengths = DocumentLengths(est._split_missing(X)[0])
        return lambda resp: [est._statistics(X, np.asarray(resp, dtype=np.float64), None, lengths)]

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        post = est.posterior_
        return dirichlet_log_density(post.alpha, post.log_estimate("map"))

    def expected_log_likelihood(self, est, X) -> np.ndarray:
        """See :meth:`bayesnb.families.Family.expected_log_likelihood`."""
        X0, M = est._split_missing(X)
        if M is not None:
            # Missing counts renormalise θ_c over the observed columns: no longer linear in
            # log θ, so the mean-field update is not the digamma table.
            raise ValueError(
                "SemiSupervisedNB(inference='vb') needs complete counts for MultinomialNB: "
                "the likelihood with missing counts is not conjugate; impute them or use 'em'"
            )
        table = est._column_table(est.posterior_.log_expectation())
        return dot_log_table(X0, table, scoring_table(table))
