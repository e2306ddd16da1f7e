"""The exact leave-one-out ELPD as an ArviZ result, which ``arviz.compare`` takes as it is.

:func:`bayesnb.model_selection.elpd_loo` returns an :class:`ELPD`, an
``arviz_stats.ELPDData`` of kind ``"loo"``: ``arviz.compare`` ranks, differences and weights
it beside PSIS-LOO results of the same documents (:func:`bayesnb.loo.psis_loo` of a NUTS fit),
and ``arviz_plots.plot_compare`` draws the table. Nothing in it is importance-sampled, so it
carries no Pareto k (``pareto_k`` and ``good_k`` are None, which ``compare`` reads as "no
diagnostic") and it is not an ``ELPDDataLOO``: the PSIS-only functions (``reloo``,
``loo_moment_match``, ``loo_pit``) refuse it instead of reading weights it does not have.

This module imports ArviZ, so only ``elpd_loo`` loads it (``import bayesnb`` does not).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import xarray as xr
from arviz_stats.utils import ELPDData

__all__ = ["ELPD"]


@dataclass(kw_only=True, repr=False, eq=False)
class ELPD(ELPDData):
    """Exact leave-one-out expected log predictive density of the labels.

    An ``arviz_stats.ELPDData`` (kind ``"loo"``, :attr:`method` ``"exact"``): pass it to
    ``arviz.compare`` as it is.

    Attributes
    ----------
    elpd : float
        Σ_i log p(y_i | x_i, D without i).
    se : float
        Its standard error, ``sqrt(n · Var_i(pointwise))`` (as ArviZ's ``loo``).
    p : float
        The effective number of parameters ``lpd − elpd``, with ``lpd`` = Σ_i log p(y_i | x_i,
        D) the in-sample log predictive density of the labels under the same estimate (the
        estimator's own ``predict_log_proba`` on its training data). ArviZ's ``loo`` of
        posterior draws takes ``lpd`` as log mean_s p(y_i | x_i, θ_s) instead, which is not
        ``estimate="bayes"``'s p(x_i, y_i | D) / p(x_i | D): the two ``p`` of one model differ
        by definition while their ``elpd`` agree.
    elpd_i : xarray.DataArray of shape (n_samples,), dim ``"doc"``
        log p(y_i | x_i, D without i) of every training document.
    p_loo_i : xarray.DataArray of shape (n_samples,), dim ``"doc"``
        log p(y_i | x_i, D) − log p(y_i | x_i, D without i): how much each document's own
        label moves its prediction (the exact counterpart of a Pareto k's warning).
    pointwise : ndarray of shape (n_samples,)
        ``elpd_i``'s values.
    joint : ndarray of shape (n_samples, n_classes)
        log p(x_i, c | D without i).
    n_data_points : int
        Documents scored.
    n_samples : int
        0: no posterior draws are used (the leave-one-out predictive is computed exactly).
    pareto_k, good_k : None
        No importance sampling, so no Pareto k.
    warning : bool
        True when some document had probability 0 under every class of the model without it
        (scored by its class prior, with a RuntimeWarning) or when ``elpd`` is not finite.
    scale : str
        ``"log"``.
    """

    _kind: ClassVar[str] = "loo"
    #: How the leave-one-out predictive was computed (PSIS-LOO results have no such field).
    method: ClassVar[str] = "exact"

    joint: np.ndarray
    p_loo_i: xr.DataArray | None = None

    @property
    def pointwise(self) -> np.ndarray:
        """log p(y_i | x_i, D without i) of every training document (``elpd_i``'s values)."""
        return self.elpd_i.values

    def _header(self) -> str:
        return (
            f"Exact leave-one-out of {self.n_data_points} observations: each scored under the "
            "model fitted without it\n(no posterior draws, no importance sampling)."
        )

    @classmethod
    def from_pointwise(
        cls, pointwise: np.ndarray, in_sample: np.ndarray, joint: np.ndarray, warning: bool
    ) -> ELPD:
        """The result from log p(y_i | x_i, D without i) and log p(y_i | x_i, D) per document."""
        n = pointwise.size
        finite = bool(np.all(np.isfinite(pointwise)))
        se = float(np.sqrt(n * np.var(pointwise))) if finite else np.nan
        elpd = float(pointwise.sum())
        return cls(
            elpd=elpd,
            se=se,
            p=float(in_sample.sum() - elpd),
            n_samples=0,
            n_data_points=n,
            scale="log",
            warning=warning or not np.isfinite(elpd),
            good_k=None,
            elpd_i=xr.DataArray(pointwise, dims=["doc"]),
            pareto_k=None,
            joint=joint,
            p_loo_i=xr.DataArray(in_sample - pointwise, dims=["doc"]),
        )
