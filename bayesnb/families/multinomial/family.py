"""The multinomial family object, registered under ``"multinomial"``."""

from __future__ import annotations

import numpy as np

from bayesnb.families import Family, register
from bayesnb.families._examples import count_data
from bayesnb.families._protocol import per_class
from bayesnb.families.multinomial.crossval import MultinomialCrossval
from bayesnb.families.multinomial.estimator import MultinomialNB, UnkColumns
from bayesnb.families.multinomial.evidence import MultinomialEvidence
from bayesnb.families.multinomial.pymc import MultinomialPyMC
from bayesnb.families.multinomial.sampling import MultinomialSampling
from bayesnb.families.multinomial.semisupervised import MultinomialSemisupervised
from bayesnb.families.multinomial.storage import MultinomialStorage

__all__ = ["FAMILY", "MultinomialFamily"]


class MultinomialFamily(
    MultinomialCrossval,
    MultinomialSampling,
    MultinomialStorage,
    MultinomialEvidence,
    MultinomialPyMC,
    MultinomialSemisupervised,
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

    # inspection
    def inspect_statistics(self, est) -> list[tuple[str, str]]:
        """Documents, tokens and distinct words per class (and the UNK-pooled columns)."""
        counts = est.feature_count_
        lines = [
            *super().inspect_statistics(est),
            ("tokens", f"{counts.sum():,.0f} ({per_class(est, counts.sum(axis=1))})"),
            ("distinct words", per_class(est, (counts > 0).sum(axis=1))),
        ]
        pooled = UnkColumns(est).pooled
        if pooled is not None:
            lines.append(("columns pooled into UNK", f"{int(pooled.sum()):,} (never seen)"))
        return lines

    # new text onto the model's columns
    def unseen_column(self, est):
        """With ``unk=True``: a copy with one more never-seen column, pooled into UNK (the
        posterior is unchanged: the UNK category already holds every never-seen column)."""
        if not est.unk:
            return None
        k = len(est.classes_)
        wide = {
            "feature_count_": np.hstack([est.feature_count_, np.zeros((k, 1))]),
            "n_features_in_": est.n_features_in_ + 1,
        }
        names = getattr(est, "feature_names_in_", None)
        if names is not None:
            wide["feature_names_in_"] = np.append(np.asarray(names, dtype=object), "UNK")
        wider = est._replace(wide)
        # The same posterior: the hyperparameters learned from these statistics hold.
        wider.alpha_, wider.class_alpha_ = est.alpha_, est.class_alpha_
        return wider


FAMILY = register(MultinomialFamily())
