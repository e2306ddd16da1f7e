"""The dcm family object, registered under ``"dcm"``."""

from __future__ import annotations

from bayesnb.families import Family, register
from bayesnb.families.dcm.estimator import DirichletCompoundNB
from bayesnb.families.dcm.evidence import DCMEvidence
from bayesnb.families.dcm.pymc import DCMPyMC
from bayesnb.families.dcm.report import DCMReport
from bayesnb.families.dcm.sampling import DCMSampling
from bayesnb.families.dcm.storage import DCMStorage

__all__ = ["FAMILY", "DCMFamily"]


class DCMFamily(
    DCMSampling,
    DCMStorage,
    DCMEvidence,
    DCMPyMC,
    DCMReport,
    Family,
):
    """The dcm family: :class:`~bayesnb.families.Family` for :class:`DirichletCompoundNB`."""

    name = "dcm"
    estimator = DirichletCompoundNB


FAMILY = register(DCMFamily())
