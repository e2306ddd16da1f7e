"""The dcm family object, registered under ``"dcm"``."""

from __future__ import annotations

from bayesnb.families import Family, register
from bayesnb.families._examples import count_data
from bayesnb.families._protocol import per_class
from bayesnb.families.dcm.crossval import DCMCrossval
from bayesnb.families.dcm.estimator import DCM_ESTIMATES, DirichletCompoundNB
from bayesnb.families.dcm.evidence import DCMEvidence
from bayesnb.families.dcm.pymc import DCMPyMC
from bayesnb.families.dcm.sampling import DCMSampling
from bayesnb.families.dcm.semisupervised import DCMSemisupervised
from bayesnb.families.dcm.storage import DCMStorage

__all__ = ["FAMILY", "DCMFamily"]


class DCMFamily(
    DCMCrossval,
    DCMSampling,
    DCMStorage,
    DCMEvidence,
    DCMPyMC,
    DCMSemisupervised,
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

    # inspection
    def inspect_statistics(self, est) -> list[tuple[str, str]]:
        """Documents, tokens and distinct words per class."""
        counts = est.feature_count_
        return [
            *super().inspect_statistics(est),
            ("tokens", f"{counts.sum():,.0f} ({per_class(est, counts.sum(axis=1))})"),
            ("distinct words", per_class(est, (counts > 0).sum(axis=1))),
        ]


FAMILY = register(DCMFamily())
