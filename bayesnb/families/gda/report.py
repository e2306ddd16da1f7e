"""GDA family methods: report studies."""

from __future__ import annotations

__all__ = ["GDAReport"]


class GDAReport:
    """Family methods of GDA for report; see :class:`bayesnb.families.Family`."""

    report_continuous = True
    report_naive = False
    report_predictive = "Student-t"

    def report_partners(self, est) -> dict:
        """Logistic regression, GDA's discriminative partner (same linear log-odds)."""
        from sklearn.linear_model import LogisticRegression

        return {"logistic": LogisticRegression(max_iter=5000)}

    def report_studies(self) -> list:
        """Logistic form, learning curve and decision regions of every GDA study."""
        from bayesnb.families.gda.studies import SECTION

        return [SECTION]
