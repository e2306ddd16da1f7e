"""PoissonNB family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.families._discrete_batch import DrawBatch, _AggregatedBatch
from bayesnb.families._discrete_sampling import _DiscreteSampling
from bayesnb.posterior.documents import CHUNK_CELLS
from bayesnb.posterior.summary import gamma_summary

__all__ = ["PoissonSampling"]


class PoissonSampling(_AggregatedBatch, _DiscreteSampling):
    """Family methods of PoissonNB for sampling; see :class:`bayesnb.families.Family`.

    The table is ``feature_rate``: the Poisson rates λ_cj ~ Gamma(α + S_cj, β + N_c).
    """

    var_names = ("class_prior", "feature_rate")
    _table = "feature_rate"

    bayes_not_a_point = (
        "estimate='bayes' is not a point for PoissonNB: it is the negative-binomial "
        "predictive of every count (rates integrated out), which no Poisson rate "
        "reproduces. Use 'mean' for the posterior mean, or sample_posterior() for the "
        "posterior itself."
    )

    def _point_table(self, view) -> np.ndarray:
        return view.posterior_.estimate(view.estimate)

    def _table_draws(self, est, rng, shape, features) -> np.ndarray:
        """Poisson rates λ_cj ~ Gamma(α + S_cj, β + N_c): standard Gamma variates over the rate."""
        post = est.posterior_
        a, rate = post.shape, post.rate
        if features is not None:
            a, rate = a[:, features], rate[:, features]
        g = rng.standard_gamma(a, size=(*shape, *a.shape))
        g /= rate
        return g

    def _batch_draws(self, est, batch: DrawBatch, rng, shape) -> dict[str, np.ndarray]:
        """λ of the batch's columns, then the total rate of every other column per class.

        A sum of independent Gamma(a_j, b) is Gamma(Σ a_j, b): the other columns are summed
        by their rate (one rate per class, more when missing training counts make
        N_cj differ), so the total costs a few Gamma variates per class, not one per column.
        """
        post = est.posterior_
        a, rate = post.shape, post.rate
        cols = batch.chosen
        g = rng.standard_gamma(a[:, cols], size=(*shape, *a[:, cols].shape))
        g /= rate[:, cols]
        rest = np.ones(a.shape[1], dtype=bool)
        rest[cols] = False
        k = a.shape[0]
        rates, which = np.unique(rate[:, rest], return_inverse=True)
        key = (np.arange(k)[:, None] * rates.size + which.reshape(k, -1)).ravel()
        sums = np.bincount(key, weights=a[:, rest].ravel(), minlength=k * rates.size)
        t = rng.standard_gamma(sums.reshape(k, rates.size), size=(*shape, k, rates.size))
        t /= rates
        return {"feature_rate": np.concatenate([g, t.sum(axis=-1, keepdims=True)], axis=-1)}

    def posterior_summary(self, est, ci_prob: float, features) -> tuple[dict, dict]:
        """Gamma(shape, rate) marginals of every λ_cj."""
        post = est.posterior_
        return self._cell_summary(post.shape, post.rate, gamma_summary, ci_prob, features)

    def generate(self, est, codes: np.ndarray, rng) -> sp.csr_matrix:
        """x_j | c ~ Poisson(λ_cj), CSR int64 counts; ``"bayes"`` draws λ_c per document."""
        post = est.posterior_
        n_docs, n_features = codes.shape[0], est.n_features_in_
        bayes = est.estimate == "bayes"
        if bayes:
            shape, rate = post.shape, post.rate
        else:
            lam = post.estimate(est.estimate)
        blocks = []
        step = max(1, CHUNK_CELLS // max(n_features, 1))
        for start in range(0, n_docs, step):
            idx = codes[start : start + step]
            # Per document λ ~ Gamma: the counts are then the negative-binomial predictive.
            rates = rng.standard_gamma(shape[idx]) / rate[idx] if bayes else lam[idx]
            blocks.append(sp.csr_matrix(rng.poisson(rates).astype(np.int64)))
        if not blocks:
            return sp.csr_matrix((0, n_features), dtype=np.int64)
        return sp.vstack(blocks, format="csr")
