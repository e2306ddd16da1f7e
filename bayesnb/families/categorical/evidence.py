"""CategoricalNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_evidence import _DirichletEvidence
from bayesnb.scoring import categorical_jll

__all__ = ["CategoricalEvidence"]


class CategoricalEvidence(_DirichletEvidence):
    """Family methods of CategoricalNB for evidence; see :class:`bayesnb.families.Family`."""

    informative_refusal = (
        "CategoricalNB has one probability vector per feature (no single per-feature "
        "parameter to compare)"
    )

    def _loo_param_cells(self, est) -> int:
        # The draws are padded to the widest feature's categories (plus the unseen slot).
        width = int(np.max(est.n_categories_)) + 1
        return 2 * len(est.classes_) * est.n_features_in_ * width

    def _table_jll(self, est, X, table: np.ndarray, missing) -> np.ndarray:
        k = np.asarray(est.n_categories_)
        # Padded (row, feature, value) -> the estimator's concatenated category axis.
        flat_j = np.repeat(np.arange(k.size), k + 1)
        flat_v = np.concatenate([np.arange(kj + 1) for kj in k])
        log_table = np.log(table[:, flat_j, flat_v])
        return categorical_jll(X, log_table, est._offsets, k, missing=missing)

    def n_feature_parameters(self, est) -> int:
        # k_j observed categories plus the pooled unseen slot: k_j free per feature.
        return len(est.classes_) * int(np.sum(est.n_categories_))
