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
    def pymc_spec(self, est, X, y, likelihood: str, alpha_prior, sample_weight):
        """The numpy side of the PyMC model of ``est`` on ``(X, y)``: a ``ModelSpec``."""
        raise self.unsupported("a PyMC declaration")

    def pymc_parts(self, est, spec) -> list:
        """The sub-models ``(name, estimator, ModelSpec)`` of a composite's ``spec`` (none)."""
        return []

    # -- report studies (bayesnb.report) -----------------------------------------------------
    # (section owned by the report refactor)

    # -- command line, scale-out (bayesnb.cli, bayesnb.distributed, bayesnb.streaming) -------
    # (section owned by the cli refactor)
