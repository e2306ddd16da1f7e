"""MultinomialNB family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.families._discrete_batch import DrawBatch, _AggregatedBatch
from bayesnb.families._discrete_sampling import _DiscreteSampling
from bayesnb.families.multinomial.estimator import UnkColumns
from bayesnb.posterior.documents import CHUNK_CELLS, MAX_TOKENS, draw_lengths, urn
from bayesnb.posterior.sampling import dirichlet_draws
from bayesnb.posterior.summary import beta_summary

__all__ = ["MultinomialSampling"]


class MultinomialSampling(_AggregatedBatch, _DiscreteSampling):
    """Family methods of MultinomialNB for sampling; see :class:`bayesnb.families.Family`.

    ``feature_prob`` is θ_cj = P(word j | c) ~ Dirichlet(α + T_c); with ``unk=True`` every
    pooled column holds the probability of the one UNK category.
    """

    bayes_not_a_point = (
        "estimate='bayes' is not a point for MultinomialNB: it is the Dirichlet-multinomial "
        "predictive of whole documents (parameters integrated out). Use 'mean' for the "
        "posterior mean, or sample_posterior() for the posterior itself."
    )

    def _table_cells(self, est, features) -> int:
        # A column subset also draws the aggregated 'rest' category.
        return super()._table_cells(est, features) + (
            est.class_count_.shape[0] if features is not None else 0
        )

    def _table_draws(self, est, rng, shape, features) -> np.ndarray:
        conc = est.posterior_.concentration
        unk = UnkColumns(est)
        cat, n_cat = unk.category, unk.n_categories
        cols = cat if features is None else cat[features]
        chosen = np.unique(cols)
        if chosen.size == n_cat:
            g = dirichlet_draws(rng, conc, shape)
            # No copy when the columns are the categories in order (the common full draw).
            return g if np.array_equal(cols, np.arange(n_cat)) else g[..., cols]
        return self._aggregated_draws(est, rng, shape, chosen)[..., np.searchsorted(chosen, cols)]

    def _aggregated_draws(self, est, rng, shape, chosen: np.ndarray) -> np.ndarray:
        """Draws of θ at the ``chosen`` categories then of the mass of all the others.

        Aggregation property: (θ_S, Σ_rest θ) ~ Dirichlet(a_S, Σ_rest a), so the chosen
        categories have exactly their marginal posterior: (*shape, K, chosen.size + 1).
        """
        conc = est.posterior_.concentration
        rest = np.ones(conc.shape[1], dtype=bool)
        rest[chosen] = False
        sub = np.concatenate([conc[:, chosen], conc[:, rest].sum(axis=1, keepdims=True)], axis=1)
        return dirichlet_draws(rng, sub, shape)

    def _batch_categories(self, est) -> tuple[np.ndarray, int | None]:
        # A missing pooled column removes no mass: the UNK category is always observed.
        unk = UnkColumns(est)
        return unk.category, None if unk.pooled is None else unk.n_categories - 1

    def _batch_draws(self, est, batch: DrawBatch, rng, shape) -> dict[str, np.ndarray]:
        """θ of the batch's categories and the rest's mass (exactly their joint posterior)."""
        return {"feature_prob": self._aggregated_draws(est, rng, shape, batch.chosen)}

    def posterior_summary(self, est, ci_prob: float, features) -> tuple[dict, dict]:
        """Beta(a_k, A − a_k) marginals of the Dirichlet components, column by column."""
        conc = est.posterior_.concentration
        cat = UnkColumns(est).category
        cols = cat if features is None else cat[features]
        total = conc.sum(axis=1, keepdims=True)
        fp = beta_summary(conc[:, cols], (total - conc)[:, cols], ci_prob)
        return {"feature_prob": (("summary", "class", "feature"), fp)}, {}

    def generate(self, est, codes: np.ndarray, rng) -> sp.csr_matrix:
        """Lengths from the class's training lengths, then x | c, n ~ Multinomial(n, θ_c).

        ``"bayes"`` draws θ ~ Dirichlet(α + T_c) per document first. A token of the UNK
        category goes to a uniformly chosen pooled column (dropped, θ renormalised, when no
        column is pooled). CSR int64 counts.
        """
        post = est.posterior_
        n_docs, n_features = codes.shape[0], est.n_features_in_
        lengths = draw_lengths(est, codes, rng)
        if lengths.sum() > MAX_TOKENS:
            raise ValueError(
                f"sample would generate {lengths.sum():.3g} tokens (document lengths are drawn "
                f"from the training documents), more than {MAX_TOKENS:.0e}; draw fewer documents"
            )
        pooled = UnkColumns(est).pooled
        # Column of every category: seen words in order, then the UNK slot (-1: a pooled one).
        if pooled is None:
            column = np.arange(n_features)
        else:
            column = np.append(np.flatnonzero(~pooled), -1)
        pooled_cols = np.flatnonzero(pooled) if pooled is not None else np.empty(0, np.intp)
        drop_unk = pooled is not None and pooled_cols.size == 0
        rows, cols = [], []
        if est.estimate == "bayes":
            conc = post.concentration
            if drop_unk:
                conc = conc[:, :-1]
            docs = np.arange(n_docs)
            step = max(1, CHUNK_CELLS // conc.shape[1])
            for start in range(0, n_docs, step):
                idx = docs[start : start + step]
                g = rng.standard_gamma(conc[codes[idx]])
                g /= g.sum(axis=1, keepdims=True)
                counts = rng.multinomial(lengths[idx], g)
                r, k = np.nonzero(counts)
                reps = counts[r, k]
                rows.append(np.repeat(idx[r], reps))
                cols.append(np.repeat(k, reps))
        else:
            theta = np.exp(post.log_estimate(est.estimate))
            if drop_unk:
                theta = theta[:, :-1]
            for c in np.unique(codes):
                idx = np.flatnonzero(codes == c)
                total = int(lengths[idx].sum())
                if total == 0:
                    continue
                p = theta[c]
                if not p.sum() > 0:
                    label = np.asarray(est.classes_)[c : c + 1].tolist()[0]
                    raise ValueError(
                        f"class {label!r} has no word probabilities under "
                        f"estimate={est.estimate!r} (no training tokens); use estimate='mean'"
                    )
                rows.append(np.repeat(idx, lengths[idx]))
                cols.append(rng.choice(p.shape[0], size=total, p=p / p.sum()))
        r = np.concatenate(rows) if rows else np.empty(0, np.intp)
        k = np.concatenate(cols) if cols else np.empty(0, np.intp)
        col = column[k]
        unk = col < 0
        if unk.any():
            col[unk] = rng.choice(pooled_cols, size=int(unk.sum()))
        X = sp.coo_matrix(
            (np.ones(r.shape[0], dtype=np.int64), (r, col)), shape=(n_docs, n_features)
        ).tocsr()
        X.sum_duplicates()
        return X

    def replicate_documents(self, est, codes: np.ndarray, lengths: np.ndarray, rng):
        """Tokens i.i.d. from exp(``feature_log_prob_``) (renormalised); for ``"bayes"`` the
        Pólya urn of the posterior concentration α + T_c (the predictive it scores with)."""
        probs = np.exp(est.feature_log_prob_.astype(np.float64))
        probs /= probs.sum(axis=1, keepdims=True)
        if est.estimate == "bayes":
            total = est.posterior_.concentration.sum(axis=1)
        else:
            total = np.full(probs.shape[0], np.inf)
        return urn(rng, probs, total, codes, lengths)
