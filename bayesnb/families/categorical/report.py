"""How the report reads CategoricalNB (registered with :mod:`bayesnb.report.extension`)."""

from __future__ import annotations

from functools import partial

import numpy as np

from bayesnb.families._discrete_report import class_feature_information
from bayesnb.report.extension import FamilyReport, register

__all__ = ["REPORT"]


def _information_terms(pi, theta):
    bar = np.einsum("c,cjv->jv", pi, theta)
    return np.nansum(theta * np.log(theta / bar), axis=-1)


REPORT = register(
    "categorical",
    FamilyReport(
        ranks={"nuts": 2},
        information=partial(class_feature_information, terms=_information_terms),
    ),
)
