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
    # (section owned by the report refactor)

    # -- command line, scale-out (bayesnb.cli, bayesnb.distributed, bayesnb.streaming) -------
    #: Whether ``bayesnb fit/compare/report`` offer the family as MODEL, under its ``name``
    #: (a composite such as ColumnwiseNB needs its blocks written in Python).
    cli: ClassVar[bool] = False
    #: A note on the CLI's configuration shown after the name in ``--help`` ("" for none).
    cli_help: ClassVar[str] = ""
    #: Constructor arguments of the estimator ``bayesnb fit/compare MODEL`` builds, as
    #: (parameter, value) pairs.
    cli_params: ClassVar[tuple[tuple[str, object], ...]] = ()
    #: Constructor arguments read from the data set, as (parameter, Dataset attribute) pairs.
    cli_data_params: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: Why ``--alpha`` does not apply (None: the estimator has an ``alpha`` concentration).
    cli_no_alpha: ClassVar[str | None] = None
    #: The values of the estimator's ``estimate`` parameter the family computes.
    estimates: ClassVar[tuple[str, ...]] = ("mle", "map", "mean", "bayes")
    #: The kinds of data set (``bayesnb.report.data.KINDS``) the family models.
    data_kinds: ClassVar[tuple[str, ...]] = ("counts", "text")
    #: Whether the family is a naive Bayes model of non-negative counts whose distributed
    #: and streamed fits refuse a sign-alternating HashingVectorizer before reading any data.
    counts: ClassVar[bool] = False

    def cli_estimator(self, estimate: str | None = None, data=None):
        """The estimator ``bayesnb fit/compare MODEL[:estimate]`` builds (None: its default).

        ``data`` (a :class:`bayesnb.report.Dataset`, or anything with the attributes named in
        :attr:`cli_data_params`) supplies data-dependent arguments such as BernoulliNB's
        ``binarize`` threshold; without it the estimator's defaults stand.
        """
        if not self.cli or self.estimator is None:
            raise self.unsupported("the command line (bayesnb fit/compare/report)")
        params = dict(self.cli_params)
        if data is not None:
            params.update((p, getattr(data, a)) for p, a in self.cli_data_params)
        est = self.estimator(**params)
        if estimate is not None:
            est.set_params(estimate=estimate)
        return est

    def setup_columns(self, est, X) -> None:
        """Lay ``est`` out for X's columns without reading X (its ``classes_`` and
        ``n_features_in_`` set), before statistics are counted and merged chunk by chunk.

        Nothing to do for a model whose parameters are one table over all columns; a composite
        resolves and clones its blocks here (:func:`bayesnb.distributed.fit`).
        """
        return None
