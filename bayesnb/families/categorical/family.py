"""The categorical family object, registered under ``"categorical"``."""

from __future__ import annotations

from bayesnb.families import Family, register
from bayesnb.families.categorical.estimator import CategoricalNB
from bayesnb.families.categorical.evidence import CategoricalEvidence
from bayesnb.families.categorical.pymc import CategoricalPyMC
from bayesnb.families.categorical.report import CategoricalReport
from bayesnb.families.categorical.sampling import CategoricalSampling
from bayesnb.families.categorical.storage import CategoricalStorage

__all__ = ["FAMILY", "CategoricalFamily"]


class CategoricalFamily(
    CategoricalSampling,
    CategoricalStorage,
    CategoricalEvidence,
    CategoricalPyMC,
    CategoricalReport,
    Family,
):
    """The categorical family: :class:`~bayesnb.families.Family` for :class:`CategoricalNB`."""

    name = "categorical"
    estimator = CategoricalNB

    # command line, scale-out
    cli = True
    counts = True


FAMILY = register(CategoricalFamily())
