"""How the report reads DirichletCompoundNB (registered with :mod:`bayesnb.report.extension`),
and its own section: burstiness, the distinct-words check of generated documents."""

from __future__ import annotations

from bayesnb.families.dcm.studies import SECTION, distinct_words_check
from bayesnb.report.extension import FamilyReport, register

__all__ = ["REPORT", "distinct_words_check"]

REPORT = register("dcm", FamilyReport(tokens=True, sections=(SECTION,)))
