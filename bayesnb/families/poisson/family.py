"""The poisson family object, registered under ``"poisson"``."""

from __future__ import annotations

from bayesnb.families import Family, register
from bayesnb.families._examples import count_data
from bayesnb.families.poisson.crossval import PoissonCrossval
from bayesnb.families.poisson.estimator import PoissonNB
from bayesnb.families.poisson.evidence import PoissonEvidence
from bayesnb.families.poisson.pymc import PoissonPyMC
from bayesnb.families.poisson.report import PoissonReport
from bayesnb.families.poisson.sampling import PoissonSampling
from bayesnb.families.poisson.storage import PoissonStorage

__all__ = ["FAMILY", "PoissonFamily"]


class PoissonFamily(
    PoissonCrossval,
    PoissonSampling,
    PoissonStorage,
    PoissonEvidence,
    PoissonPyMC,
    PoissonReport,
    Family,
):
    """The poisson family: :class:`~bayesnb.families.Family` for :class:`PoissonNB`."""

    name = "poisson"
    estimator = PoissonNB

    # command line, scale-out
    cli = True
    cli_help = "PoissonNB with alpha='evidence': the Gamma shape is learned, rate 1"
    # A fixed alpha = 1 adds a pseudo-count of every word to every class, which swamps the
    # counts of a text vocabulary; the evidence-maximising shape does not.
    cli_params = (("alpha", "evidence"),)
    counts = True

    def example_data(self, est, n, rng):
        """See :meth:`Family.example_data`."""
        return count_data(n, rng)


FAMILY = register(PoissonFamily())
