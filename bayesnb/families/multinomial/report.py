"""How the report reads MultinomialNB (registered with :mod:`bayesnb.report.extension`), and
its own section: naive Bayes against discriminative baselines (ComplementNB, logistic
regression)."""

from __future__ import annotations

from functools import partial

import numpy as np

from bayesnb.families._discrete_report import class_feature_information
from bayesnb.families.multinomial.studies import SECTION
from bayesnb.report.extension import FamilyReport, register

__all__ = ["REPORT"]


def _information_terms(pi, theta):
    bar = pi @ theta
    return theta * np.log(theta / bar)


REPORT = register(
    "multinomial",
    FamilyReport(
        tokens=True,
        predictive="Dirichlet-multinomial",
        # The parameters and the PPC are shown for the multinomial first (text data first).
        ranks={"parameters": 0, "nuts": 1, "ppc": 0, "labels": 0},
        information=partial(class_feature_information, terms=_information_terms),
        sections=(SECTION,),
    ),
)
