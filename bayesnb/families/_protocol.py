"""The family protocol: everything a generic module may ask of a conjugate family.

A :class:`Family` is a stateless object (one per family, in the registry of
:mod:`bayesnb.families`); every method takes the fitted estimator ``est`` (which holds the
parameters and the sufficient statistics) as its first argument, as PyMC's generic functions
take the variable they are registered for. Generic modules call these methods and never ask
which model they hold; a family implements them in its folder, one capability module each
(``sampling``, ``storage``, ``evidence``, ``pymc``, ``report``), combined in ``family.py``.

A method the family cannot provide raises :class:`Unsupported` (a TypeError) saying so: the
DCM, for instance, has no closed-form predictive. This module imports only numpy, so every
layer may import it.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

__all__ = ["Family", "Unsupported"]


class Unsupported(TypeError):
    """A family does not provide a capability (the message names the family and what)."""


class Family:
    """Base class of the family objects; each method is documented in one line.

    Class attributes
    ----------------
    name : str
        The registry key; the estimator's ``_family`` attribute holds the same string.
    estimator : type
        The scikit-learn estimator class of the family.
    """

    name: ClassVar[str] = ""
    estimator: ClassVar[type | None] = None

    def unsupported(self, what: str) -> Unsupported:
        """The error raised for a capability this family does not provide."""
        label = self.estimator.__name__ if self.estimator is not None else self.name
        return Unsupported(f"{label} does not support {what}")

    def __repr__(self) -> str:
        return f"<bayesnb family {self.name!r}>"

    # -- fitting: the estimator's hooks (in the family's estimator.py) do the work ------------
    def statistics(self, est, X, codes: np.ndarray, weights) -> dict:
        """The sufficient statistics of one validated batch, without changing ``est``."""
        return est._statistics(X, codes, weights)

    def merge(self, est, stats: dict) -> None:
        """Add a batch's statistics to the fitted ones (statistics are sums)."""
        est._merge_statistics(stats)

    def posterior(self, est):
        """The conjugate posterior (prior hyperparameters + statistics) of the features."""
        return est.posterior_

    def log_likelihood(self, est, X) -> np.ndarray:
        """Per-class log-likelihood (n, K) of validated X under ``est.estimate``."""
        return est._log_likelihood(X)

    # -- draws and generation (bayesnb.draws, bayesnb.generate) -------------------------------
    # (section owned by the draws/generate refactor)

    # -- model files (bayesnb.io) ------------------------------------------------------------
    # (section owned by the io refactor)

    # -- evidence, LOO, informative features, compare ----------------------------------------
    # (section owned by the evidence/loo refactor)

    # -- PyMC declaration (bayesnb.pymc_models, bayesnb.inference) ---------------------------
    # (section owned by the PyMC refactor)

    # -- report studies (bayesnb.report) -----------------------------------------------------
    #: The report standardises the features with their training moments (continuous
    #: measurements) instead of reading them as counts.
    report_continuous: ClassVar[bool] = False
    #: The class model treats the features as independent given the class (naive Bayes);
    #: the report names that as the cause of over-confident probabilities.
    report_naive: ClassVar[bool] = True
    #: Documents are token counts, one word distribution per class over the V features: the
    #: MLE divides by token totals (not documents), add-one smooths over V categories (not
    #: 2), and the posterior predictive check compares distinct words per token.
    report_tokens: ClassVar[bool] = False
    #: Name of the full-Bayes posterior predictive quoted by the estimates reading (None:
    #: the reading does not discuss it).
    report_predictive: ClassVar[str | None] = None
    #: Generic report sections the family feeds, with its preference among the families that
    #: do (lower first): ``"parameters"`` (forest, shrinkage, smoothing, informative
    #: features), ``"nuts"`` (the sampler check), ``"ppc"`` (posterior predictive check).
    report_ranks: ClassVar[dict[str, int]] = {}

    def default_estimator(self):
        """The estimator the CLI and reports build for this family by default."""
        if self.estimator is None:
            raise self.unsupported("a default estimator")
        return self.estimator()

    def report_estimates(self, est) -> tuple[str, ...]:
        """The estimates of ``est`` the report's estimates table compares."""
        return ("mle", "map", "mean", "bayes")

    def report_partners(self, est) -> dict:
        """Unfitted discriminative models shown beside the estimates of ``est``, by row name."""
        return {}

    def report_observed(self, est, X):
        """Training documents ``X`` as the configured ``est`` sees them (for the PPC)."""
        return X

    def class_feature_information(self, est) -> np.ndarray:
        """Class-specific terms I_cj (K, V) of the class–feature mutual information."""
        raise self.unsupported("the class-feature mutual information")

    def report_studies(self) -> list:
        """The family's own report sections (``bayesnb.report.extension.FamilySection``)."""
        return []

    # -- command line, scale-out (bayesnb.cli, bayesnb.distributed, bayesnb.streaming) -------
    # (section owned by the cli refactor)
