"""The poisson family object, registered under ``"poisson"``."""

from __future__ import annotations

import numpy as np

from bayesnb.families import Family, register
from bayesnb.families._examples import count_data
from bayesnb.families._protocol import per_class
from bayesnb.families.poisson.crossval import PoissonCrossval
from bayesnb.families.poisson.estimator import PoissonNB
from bayesnb.families.poisson.evidence import PoissonEvidence
from bayesnb.families.poisson.pymc import PoissonPyMC
from bayesnb.families.poisson.sampling import PoissonSampling
from bayesnb.families.poisson.semisupervised import PoissonSemisupervised
from bayesnb.families.poisson.storage import PoissonStorage

__all__ = ["FAMILY", "PoissonFamily"]


class PoissonFamily(
    PoissonCrossval,
    PoissonSampling,
    PoissonStorage,
    PoissonEvidence,
    PoissonPyMC,
    PoissonSemisupervised,
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
    # A fixed α = 1 adds one pseudo-count of every feature to every class, which on a text
    # vocabulary swamps the real counts (fortunes: accuracy 0.638 at α = 1, 0.690 at the
    # evidence-maximising α ≈ 0.05): the default learns the Gamma shape.
    counts = True

    def example_data(self, est, n, rng):
        """See :meth:`Family.example_data`."""
        return count_data(n, rng)

    # inspection
    def inspect_statistics(self, est) -> list[tuple[str, str]]:
        """Documents per class, and the summed counts per document of each class."""
        per_doc = est.feature_count_.sum(axis=1) / np.maximum(est.class_count_, 1e-300)
        return [
            *super().inspect_statistics(est),
            ("summed counts", f"{est.feature_count_.sum():,.0f}"),
            ("counts per document", per_class(est, per_doc, ",.1f")),
        ]


FAMILY = register(PoissonFamily())
