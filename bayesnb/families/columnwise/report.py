"""How the report reads ColumnwiseNB (registered with :mod:`bayesnb.report.extension`)."""

from __future__ import annotations

from bayesnb.report.extension import FamilyReport, register

__all__ = ["REPORT"]

# No default estimator: a ColumnwiseNB is its blocks, which only the user can choose.
REPORT = register("columnwise", FamilyReport(no_default="its blocks are the user's choice"))
