"""CategoricalNB family methods: point estimates, exact draws, summaries, synthetic data."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_sampling import _DiscreteSampling
from bayesnb.posterior.sampling import categorical_layout, category_slots, pad_categories
from bayesnb.posterior.summary import beta_summary

__all__ = ["CategoricalSampling"]


class CategoricalSampling(_DiscreteSampling):
    """Family methods of CategoricalNB for sampling; see :class:`bayesnb.families.Family`.

    ``feature_prob`` has dims (class, feature, value), value = 0 .. max_j k_j: slot v < k_j is
    P(x_j = v | c), slot k_j the pooled unseen slot, the slots beyond NaN padding.
    """

    def point_values(self, est, view, names: list[str], features) -> dict[str, np.ndarray]:
        """Each kept feature's k_j + 1 probabilities, padded into the ``value`` dim."""
        if "feature_prob" not in names:
            return {}
        keep, _, width = categorical_layout(est, features)
        tables = view.feature_log_prob_
        return {"feature_prob": pad_categories([np.exp(tables[j]) for j in keep], width)}

    def layout(self, est, features) -> dict:
        """The ``value`` dim of ``feature_prob``, as wide as the widest kept feature."""
        _, _, width = categorical_layout(est, features)
        return {
            "dims": {"feature_prob": ["class", "feature", "value"]},
            "coords": {"value": list(range(width))},
        }

    def _table_cells(self, est, features) -> int:
        keep, _, width = categorical_layout(est, features)
        return est.class_count_.shape[0] * keep.size * width

    def _table_draws(self, est, rng, shape, features) -> np.ndarray:
        """θ_cj ~ Dirichlet per feature: one Gamma call, normalised segment by segment."""
        post = est.posterior_
        keep, sizes, width = categorical_layout(est, features)
        flat = np.concatenate(category_slots(est, keep))
        conc = post.concentration[:, flat]
        g = rng.standard_gamma(conc, size=(*shape, *conc.shape))
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        g /= np.repeat(np.add.reduceat(g, starts, axis=-1), sizes, axis=-1)
        out = np.full((*shape, conc.shape[0], keep.size, width), np.nan)
        feat_idx = np.repeat(np.arange(keep.size), sizes)
        value_idx = np.arange(flat.size) - np.repeat(starts, sizes)
        out[..., feat_idx, value_idx] = g
        return out

    def posterior_summary(self, est, ci_prob: float, features) -> tuple[dict, dict]:
        """Beta(a_v, A_j − a_v) marginals of every slot, padded like the draws."""
        post = est.posterior_
        keep, _, width = categorical_layout(est, features)
        conc = post.concentration
        b = post.segment_sum(conc) - conc
        segs = category_slots(est, keep)
        fp = pad_categories([beta_summary(conc[:, s], b[:, s], ci_prob) for s in segs], width)
        variables = {"feature_prob": (("summary", "class", "feature", "value"), fp)}
        return variables, {"value": list(range(fp.shape[-1]))}

    def generate(self, est, codes: np.ndarray, rng) -> np.ndarray:
        """x_j | c ~ Categorical(θ_cj) over the k_j + 1 slots (the last emitted as k_j)."""
        X = np.empty((codes.shape[0], est.n_features_in_), dtype=np.int64)
        for j, table in enumerate(est.feature_log_prob_):
            cdf = np.cumsum(np.exp(table), axis=1)
            u = rng.random(codes.shape[0]) * cdf[codes, -1]  # rows sum to 1 up to rounding
            # Inverse CDF: the number of slots whose cumulative probability is <= u.
            X[:, j] = np.minimum((u[:, None] >= cdf[codes]).sum(axis=1), table.shape[1] - 1)
        return X
