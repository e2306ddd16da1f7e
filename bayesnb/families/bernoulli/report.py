"""BernoulliNB family methods: report studies."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from bayesnb.families._discrete_report import _DiscreteReport

__all__ = ["BernoulliReport"]


class BernoulliReport(_DiscreteReport):
    """Family methods of BernoulliNB for report; see :class:`bayesnb.families.Family`."""

    # Parameters and PPC after the multinomial; NUTS first (its PyMC model is the smallest).
    report_ranks: ClassVar[dict[str, int]] = {"parameters": 1, "nuts": 0, "ppc": 1}

    def report_observed(self, est, X):
        """``X`` binarised at the model's threshold: what the model generates and scores."""
        from bayesnb.stats.discrete import binarize

        Xr = binarize(X, est.binarize)
        if sp.issparse(Xr):
            Xr.eliminate_zeros()  # values at or below the threshold are stored as 0
        return Xr

    @staticmethod
    def _information_terms(pi, theta):
        bar = pi @ theta
        return theta * np.log(theta / bar) + (1 - theta) * np.log((1 - theta) / (1 - bar))
