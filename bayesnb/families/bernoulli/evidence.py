"""BernoulliNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_evidence import _BetaInformative, _DiscreteEvidence
from bayesnb.posterior.empirical_bayes import fit_beta_evidence
from bayesnb.posterior.evidence import beta_log_evidence
from bayesnb.scoring import bernoulli_jll
from bayesnb.validation import check_alpha

__all__ = ["BernoulliEvidence"]


class BernoulliEvidence(_BetaInformative, _DiscreteEvidence):
    """Family methods of BernoulliNB for evidence; see :class:`bayesnb.families.Family`."""

    def feature_log_evidence(self, est) -> float:
        post = est.posterior_
        return beta_log_evidence(post.alpha, post.beta, post.successes, post.failures)

    def learn_alpha(self, est) -> float:
        # β = α (beta=None: a symmetric Beta on every cell) or α with the given β held fixed;
        # Newton on the histogram of distinct (N, D) cells, not a fixed point over K × V.
        post = est.posterior_
        beta = None if est.beta is None else check_alpha(est.beta, est.n_features_in_, "beta")
        return fit_beta_evidence(post.successes, post.trials, beta)

    def loo_view(self, est, Xc) -> tuple:
        # BernoulliNB binarises NaN itself (to 0, never "present").
        _, M = est._split_missing(Xc)
        return est._encode(Xc), M

    def _table_jll(self, est, X, table: np.ndarray, missing) -> np.ndarray:
        return bernoulli_jll(X, np.log(table), np.log1p(-table), missing=missing)

    def informative_marginals(self, est) -> dict[str, np.ndarray]:
        post = est.posterior_
        a = np.asarray(post.a, dtype=np.float64)
        return {"a": a, "b": np.broadcast_to(np.asarray(post.b, dtype=np.float64), a.shape)}
