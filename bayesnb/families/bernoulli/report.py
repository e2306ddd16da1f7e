"""How the report reads BernoulliNB (registered with :mod:`bayesnb.report.extension`)."""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp

from bayesnb.families._discrete_report import class_feature_information
from bayesnb.report.extension import FamilyReport, register

__all__ = ["REPORT"]


def observed(est, X):
    """``X`` binarised at the model's threshold: what the model generates and scores."""
    from bayesnb.stats.discrete import binarize

    Xr = binarize(X, est.binarize)
    if sp.issparse(Xr):
        Xr.eliminate_zeros()  # values at or below the threshold are stored as 0
    return Xr


def _information_terms(pi, theta):
    bar = pi @ theta
    return theta * np.log(theta / bar) + (1 - theta) * np.log((1 - theta) / (1 - bar))


REPORT = register(
    "bernoulli",
    FamilyReport(
        # Parameters and PPC after the multinomial; NUTS first (its PyMC model is the smallest).
        ranks={"parameters": 1, "nuts": 0, "ppc": 1, "labels": 1},
        default_data_params=(("binarize", "binarize"),),  # the data set's on/off threshold
        observed=observed,
        information=partial(class_feature_information, terms=_information_terms),
    ),
)
