"""The old import path of :mod:`bayesnb.families.dcm.estimator`."""

from bayesnb.families.dcm.estimator import DCM_ESTIMATES, DirichletCompoundNB
from bayesnb.families.dcm.report import distinct_words_check

__all__ = ["DCM_ESTIMATES", "DirichletCompoundNB", "distinct_words_check"]
