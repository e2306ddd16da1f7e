"""How the report reads PoissonNB (registered with :mod:`bayesnb.report.extension`), and its
own section: Poisson against multinomial naive Bayes, the length term measured."""

from __future__ import annotations

from bayesnb.families.poisson.studies import SECTION
from bayesnb.report.extension import FamilyReport, register

__all__ = ["REPORT"]

REPORT = register(
    "poisson", FamilyReport(default_params=(("alpha", "evidence"),), sections=(SECTION,))
)
