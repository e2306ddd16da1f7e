"""DirichletCompoundNB family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete_evidence import _DiscreteEvidence
from bayesnb.scoring import dcm_jll

__all__ = ["DCMEvidence"]


class DCMEvidence(_DiscreteEvidence):
    """Family methods of DirichletCompoundNB for evidence; see :class:`bayesnb.families.Family`."""

    _draws_table = "concentration"

    def feature_log_evidence(self, est) -> float:
        # Not closed form: the Gamma prior is not conjugate to the Pólya likelihood. The
        # Laplace approximation in ln β (bayesnb.posterior.polya.LaplacePosterior), class by
        # class; its error grows with the number of features whose posterior is far from
        # Gaussian in ln β (words seen in few documents).
        return float(est.laplace_.log_evidence().sum())

    def _table_jll(self, est, X, table: np.ndarray, missing) -> np.ndarray:
        # The table holds the concentrations β (Laplace draws): the Pólya likelihood.
        return dcm_jll(X, table, missing=missing)
