"""How the report reads GDA (registered with :mod:`bayesnb.report.extension`), and its own
section: logistic form, learning curve and decision regions of every GDA study."""

from __future__ import annotations

from bayesnb.families.gda.studies import SECTION
from bayesnb.report.extension import FamilyReport, register

__all__ = ["REPORT"]


def partners(est) -> dict:
    """Logistic regression, GDA's discriminative partner (same linear log-odds)."""
    from sklearn.linear_model import LogisticRegression

    return {"logistic": LogisticRegression(max_iter=5000)}


REPORT = register(
    "gda",
    FamilyReport(
        continuous=True,
        naive=False,
        predictive="Student-t",
        partners=partners,
        sections=(SECTION,),
    ),
)
