"""The columnwise family object, registered under ``"columnwise"``."""

from __future__ import annotations

from bayesnb.families import Family, register
from bayesnb.families.columnwise.estimator import ColumnwiseNB
from bayesnb.families.columnwise.evidence import ColumnwiseEvidence
from bayesnb.families.columnwise.pymc import ColumnwisePyMC
from bayesnb.families.columnwise.report import ColumnwiseReport
from bayesnb.families.columnwise.sampling import ColumnwiseSampling
from bayesnb.families.columnwise.storage import ColumnwiseStorage

__all__ = ["FAMILY", "ColumnwiseFamily"]


class ColumnwiseFamily(
    ColumnwiseSampling,
    ColumnwiseStorage,
    ColumnwiseEvidence,
    ColumnwisePyMC,
    ColumnwiseReport,
    Family,
):
    """The columnwise family: :class:`~bayesnb.families.Family` for :class:`ColumnwiseNB`."""

    name = "columnwise"
    estimator = ColumnwiseNB

    # command line, scale-out
    def setup_columns(self, est, X) -> None:
        """Resolve and clone the blocks of ``est`` for X's columns (by position)."""
        est._setup_blocks(X)


FAMILY = register(ColumnwiseFamily())
