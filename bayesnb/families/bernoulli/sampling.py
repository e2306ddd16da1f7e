"""BernoulliNB family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_sampling import _DiscreteSampling
from bayesnb.posterior.summary import beta_summary

__all__ = ["BernoulliSampling"]


class BernoulliSampling(_DiscreteSampling):
    """Family methods of BernoulliNB for sampling; see :class:`bayesnb.families.Family`.

    ``feature_prob`` is φ_cj = P(x_j = 1 | c), each with its Beta(a, b) posterior; ``"bayes"``
    is a point (the posterior mean: the posterior factorises over features).
    """

    def _table_draws(self, est, rng, shape, features) -> np.ndarray:
        post = est.posterior_
        a, b = post.a, post.b
        if features is not None:
            a, b = a[:, features], b[:, features]
        return rng.beta(a, b, size=(*shape, *a.shape))

    def posterior_summary(self, est, ci_prob: float, features) -> tuple[dict, dict]:
        """Beta(a, b) marginals of every φ_cj."""
        post = est.posterior_
        return self._cell_summary(post.a, post.b, beta_summary, ci_prob, features)

    def generate(self, est, codes: np.ndarray, rng) -> np.ndarray:
        """x_j | c ~ Bernoulli(φ_cj): a dense int64 0/1 array."""
        phi = np.exp(est.feature_log_prob_)
        return (rng.random((codes.shape[0], phi.shape[1])) < phi[codes]).astype(np.int64)
