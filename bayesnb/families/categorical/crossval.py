"""Exact cross-validation of the categorical family: category counts and k_j downdated.

A refit on the remaining documents sees k_j = (largest remaining category of feature j) + 1,
at least ``min_categories``: subtracting a batch shrinks the category axis where the batch
held the only documents of the top categories (a category counts as seen when some class
holds weight there; one seen only in zero-weight documents is not, unlike a refit).
Leave-one-out changes only the own class's counts of the document's categories and its
N_c, in O(features) per document (categorical documents are dense); a document holding the
only training instance of a feature's top category shrinks k_j for every class, and is
rescored by a downdate, as a refit would see it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.families._crossval import downdate, emptied
from bayesnb.families._discrete_crossval import _DiscreteCrossval, prior_shift, weight_groups
from bayesnb.stats.discrete import category_offsets
from bayesnb.validation import check_min_categories

__all__ = ["CategoricalCrossval"]


class CategoricalCrossval(_DiscreteCrossval):
    """subtract (with the refit's n_categories_), the O(features) leave-one-out, alpha="loo"."""

    def _loo_own(self, est, X, codes, weights):
        X = np.asarray(X.toarray() if sp.issparse(X) else X).astype(np.intp)
        v = X.shape[1]
        k, offsets = est.n_categories_, est._offsets
        flat, N = est._flat_count, est.class_count_
        alpha = np.broadcast_to(np.asarray(est.alpha_, dtype=np.float64), (v,))
        shift = alpha if est.estimate == "bayes" else prior_shift(est.estimate, alpha)
        shift = np.broadcast_to(shift, (v,))
        slot = offsets[None, :] + X  # training values are all below k_j
        w = weights[:, None]
        with np.errstate(divide="ignore"):
            top = np.log(np.maximum(flat[codes[:, None], slot] - w, 0.0) + shift).sum(axis=1)
        # Σ_j log(N_c − w + shift_j (k_j + 1)): once per (class, weight) pair.
        gc, gw, group = weight_groups(codes, weights)
        den = np.array(
            [
                np.log(np.maximum(N[c] - wv, 0.0) + shift * (k + 1)).sum()
                for c, wv in zip(gc, gw, strict=True)
            ]
        )
        own = top - den[group]
        alone = emptied(flat.sum(axis=0)[slot], w)
        floor = 1 if est.min_categories is None else check_min_categories(est.min_categories, v)
        shrinks = alone & (X == k - 1) & (k > np.maximum(floor, 1))
        redo = emptied(N[codes], weights) | shrinks.any(axis=1)
        return own, redo

    def subtract(self, est, stats: dict, documents=None) -> None:
        """See :meth:`Family.subtract`."""
        k = est.n_categories_
        blocks = [
            np.pad(b, ((0, 0), (0, kj + 1 - b.shape[1])))
            for b, kj in zip(stats["category_count"], k, strict=True)
        ]
        est.class_count_ = downdate(est.class_count_, stats["class_count"])
        flat = downdate(est._flat_count, np.concatenate(blocks, axis=1))
        need = np.ones(k.size, dtype=np.intp)
        if est.min_categories is not None:
            need = np.maximum(need, check_min_categories(est.min_categories, k.size))
        offsets = category_offsets(k)
        seen = flat.sum(axis=0) > 0
        parts = []
        for j, (off, kj) in enumerate(zip(offsets, k, strict=True)):
            held = np.flatnonzero(seen[off : off + kj])
            need[j] = max(need[j], held[-1] + 1 if held.size else 1)
            block = flat[:, off : off + need[j]]
            parts.append(np.hstack([block, np.zeros((flat.shape[0], 1))]))
        est._set_fitted(n_categories_=need, _flat_count=np.concatenate(parts, axis=1))
        est._statistics_changed(documents)
