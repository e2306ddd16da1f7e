"""The multinomial family object, registered under ``"multinomial"``."""

from __future__ import annotations

from bayesnb.families import Family, register
from bayesnb.families._examples import count_data
from bayesnb.families.multinomial.crossval import MultinomialCrossval
from bayesnb.families.multinomial.estimator import MultinomialNB
from bayesnb.families.multinomial.evidence import MultinomialEvidence
from bayesnb.families.multinomial.pymc import MultinomialPyMC
from bayesnb.families.multinomial.report import MultinomialReport
from bayesnb.families.multinomial.sampling import MultinomialSampling
from bayesnb.families.multinomial.storage import MultinomialStorage

__all__ = ["FAMILY", "MultinomialFamily"]


class MultinomialFamily(
    MultinomialCrossval,
    MultinomialSampling,
    MultinomialStorage,
    MultinomialEvidence,
    MultinomialPyMC,
    MultinomialReport,
    Family,
):
    """The multinomial family: :class:`~bayesnb.families.Family` for :class:`MultinomialNB`."""

    name = "multinomial"
    estimator = MultinomialNB

    # command line, scale-out
    cli = True
    counts = True

    def example_data(self, est, n, rng):
        """See :meth:`Family.example_data`."""
        return count_data(n, rng)


FAMILY = register(MultinomialFamily())
