"""MultinomialNB family methods: report studies."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from bayesnb.families._discrete_report import _DiscreteReport

__all__ = ["MultinomialReport"]


class MultinomialReport(_DiscreteReport):
    """Family methods of MultinomialNB for report; see :class:`bayesnb.families.Family`."""

    report_tokens = True
    report_predictive = "Dirichlet-multinomial"
    # The parameters and the PPC are shown for the multinomial first (text data first).
    report_ranks: ClassVar[dict[str, int]] = {"parameters": 0, "nuts": 1, "ppc": 0}

    @staticmethod
    def _information_terms(pi, theta):
        bar = pi @ theta
        return theta * np.log(theta / bar)

    def report_studies(self) -> list:
        """Naive Bayes against discriminative baselines (ComplementNB, logistic regression)."""
        from bayesnb.families.multinomial.studies import SECTION

        return [SECTION]
