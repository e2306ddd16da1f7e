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
    # Saving: ``out`` is the file being written (``out.encode(value)`` JSON data, ``out.tree``
    # and ``out.params`` of another estimator, ``out.model_name``, ``out.subtrees``). Loading:
    # ``file`` is a verified file (``file.where``, ``fitted``, ``statistics``, ``groups``,
    # ``tree``, ``decode``, ``error``, ``family_named``, ``estimator``, ``load``).
    def file_params(self, est, out) -> dict:
        """The constructor parameters as JSON data (the ``params`` attribute)."""
        return {k: out.encode(v) for k, v in est.get_params(deep=False).items()}

    def file_statistics(self, est) -> dict:
        """The ``statistics`` arrays after ``class_count``: name -> (dims, array)."""
        raise self.unsupported("saving to a model file")

    def file_fitted(self, est, out) -> dict:
        """Learned values and bookkeeping of the ``fitted`` JSON besides labels and features."""
        return {"alpha_": out.encode(getattr(est, "alpha_", None))}

    def file_groups(self, est) -> dict:
        """Extra groups of arrays covered by the root checksum: group -> name -> (dims, array)."""
        return {}

    def file_subtrees(self, est, out) -> dict:
        """Complete model trees stored inside the file (path -> DataTree), e.g. blocks."""
        return {}

    def read_groups(self, file) -> dict:
        """The arrays of the groups of :meth:`file_groups` (read before the checksum)."""
        return {}

    def decode_params(self, params: dict, file) -> dict:
        """The constructor keyword arguments from the ``params`` JSON object."""
        return {k: file.decode(v) for k, v in params.items()}

    def restore_statistics(self, est, file) -> None:
        """Set the statistics of a fresh estimator from a verified file (file_statistics^-1)."""
        raise self.unsupported("loading from a model file")

    def restore_fitted(self, est, file) -> None:
        """Set the learned values that :meth:`file_fitted` recorded."""
        if file.fitted["alpha_"] is not None:
            est.alpha_ = file.decode(file.fitted["alpha_"])

    # -- evidence, LOO, informative features, compare ----------------------------------------
    # (section owned by the evidence/loo refactor)

    # -- PyMC declaration (bayesnb.pymc_models, bayesnb.inference) ---------------------------
    # (section owned by the PyMC refactor)

    # -- report studies (bayesnb.report) -----------------------------------------------------
    # (section owned by the report refactor)

    # -- command line, scale-out (bayesnb.cli, bayesnb.distributed, bayesnb.streaming) -------
    # (section owned by the cli refactor)
