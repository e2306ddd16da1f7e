"""The dcm family object, registered under ``"dcm"``."""

from __future__ import annotations

from bayesnb.families import Family, register
from bayesnb.families._examples import count_data
from bayesnb.families.dcm.crossval import DCMCrossval
from bayesnb.families.dcm.estimator import DCM_ESTIMATES, DirichletCompoundNB
from bayesnb.families.dcm.evidence import DCMEvidence
from bayesnb.families.dcm.pymc import DCMPyMC
from bayesnb.families.dcm.report import DCMReport
from bayesnb.families.dcm.sampling import DCMSampling
from bayesnb.families.dcm.storage import DCMStorage

__all__ = ["FAMILY", "DCMFamily"]


class DCMFamily(
    DCMCrossval,
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

    # command line, scale-out
    cli = True
    cli_help = "DirichletCompoundNB, Gamma(1.1, 1) prior, estimates mle, map, mean; no bayes"
    cli_no_alpha = "its prior is Gamma(prior_shape, prior_rate) on the Dirichlet concentrations"
    estimates = DCM_ESTIMATES

    def example_data(self, est, n, rng):
        """See :meth:`Family.example_data`."""
        return count_data(n, rng)

    def closed_form_predictive(self, est) -> bool:
        """No: β has no conjugate prior; ``"bayes"`` is refused (use ``fit_pymc``)."""
        return False


FAMILY = register(DCMFamily())
