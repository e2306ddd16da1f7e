"""The categorical family object, registered under ``"categorical"``."""

from __future__ import annotations

import numpy as np

from bayesnb.families import Family, register
from bayesnb.families._examples import categorical_data
from bayesnb.families.categorical.crossval import CategoricalCrossval
from bayesnb.families.categorical.estimator import CategoricalNB
from bayesnb.families.categorical.evidence import CategoricalEvidence
from bayesnb.families.categorical.pymc import CategoricalPyMC
from bayesnb.families.categorical.sampling import CategoricalSampling
from bayesnb.families.categorical.semisupervised import CategoricalSemisupervised
from bayesnb.families.categorical.storage import CategoricalStorage

__all__ = ["FAMILY", "CategoricalFamily"]


class CategoricalFamily(
    CategoricalCrossval,
    CategoricalSampling,
    CategoricalStorage,
    CategoricalEvidence,
    CategoricalPyMC,
    CategoricalSemisupervised,
    Family,
):
    """The categorical family: :class:`~bayesnb.families.Family` for :class:`CategoricalNB`."""

    name = "categorical"
    estimator = CategoricalNB

    # command line, scale-out
    cli = True
    counts = True

    def example_data(self, est, n, rng):
        """See :meth:`Family.example_data`."""
        return categorical_data(n, rng)

    def fixed_prior_params(self, est) -> dict:
        """The number of categories per feature that the training data showed."""
        return {"min_categories": np.asarray(est.n_categories_)}

    # inspection
    def inspect_statistics(self, est) -> list[tuple[str, str]]:
        """Documents per class and the number of categories of the features."""
        n = np.asarray(est.n_categories_)
        return [
            *super().inspect_statistics(est),
            ("categories per feature", f"{n.min()}–{n.max()} (median {np.median(n):g})"),
        ]


FAMILY = register(CategoricalFamily())
