"""MultinomialNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_evidence import _BetaInformative, _DirichletEvidence
from bayesnb.families.multinomial.estimator import UnkColumns
from bayesnb.scoring import dot_log_table
from bayesnb.scoring.discrete import observed_mass_correction

__all__ = ["MultinomialEvidence"]


class MultinomialEvidence(_BetaInformative, _DirichletEvidence):
    """Family methods of MultinomialNB for evidence; see :class:`bayesnb.families.Family`."""

    def _table_jll(self, est, X, table: np.ndarray, missing, *, categories=False) -> np.ndarray:
        # ``categories``: X is on categories (a DrawBatch), where UNK is one column already.
        log_table = np.log(table)
        jll = dot_log_table(X, log_table)
        if missing is not None:
            pooled = None if categories else UnkColumns(est).pooled
            jll = jll + observed_mass_correction(X, missing, log_table, pooled)
        return jll

    def n_feature_parameters(self, est) -> int:
        # One word distribution per class over the model's columns (UNK slot included).
        return len(est.classes_) * (est.feature_log_prob_.shape[1] - 1)

    def informative_marginals(self, est) -> dict[str, np.ndarray]:
        conc = np.asarray(est.posterior_.concentration, dtype=np.float64)
        total = conc.sum(axis=1, keepdims=True)
        # UNK pooling: every pooled column shares the pooled slot's marginal.
        a = conc[:, UnkColumns(est).category]
        return {"a": a, "b": np.broadcast_to(total, a.shape) - a}
