"""The bernoulli family object, registered under ``"bernoulli"``."""

from __future__ import annotations

import numpy as np

from bayesnb.families import Family, register
from bayesnb.families._examples import binary_data
from bayesnb.families._protocol import per_class
from bayesnb.families.bernoulli.crossval import BernoulliCrossval
from bayesnb.families.bernoulli.estimator import BernoulliNB
from bayesnb.families.bernoulli.evidence import BernoulliEvidence
from bayesnb.families.bernoulli.pymc import BernoulliPyMC
from bayesnb.families.bernoulli.sampling import BernoulliSampling
from bayesnb.families.bernoulli.semisupervised import BernoulliSemisupervised
from bayesnb.families.bernoulli.storage import BernoulliStorage

__all__ = ["FAMILY", "BernoulliFamily"]


class BernoulliFamily(
    BernoulliCrossval,
    BernoulliSampling,
    BernoulliStorage,
    BernoulliEvidence,
    BernoulliPyMC,
    BernoulliSemisupervised,
    Family,
):
    """The bernoulli family: :class:`~bayesnb.families.Family` for :class:`BernoulliNB`."""

    name = "bernoulli"
    estimator = BernoulliNB

    # command line, scale-out
    cli = True
    counts = True

    def example_data(self, est, n, rng):
        """See :meth:`Family.example_data`."""
        return binary_data(n, rng)

    # inspection
    def inspect_statistics(self, est) -> list[tuple[str, str]]:
        """Documents per class, and the features present in a document on average."""
        present = est.feature_count_.sum(axis=1) / np.maximum(est.class_count_, 1e-300)
        return [
            *super().inspect_statistics(est),
            ("features present per document", per_class(est, present, ",.1f")),
        ]


FAMILY = register(BernoulliFamily())
