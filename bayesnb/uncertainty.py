"""Uncertainty of predictions: p(c | x, θ_s) of new documents under posterior draws θ_s.

``predict_proba`` answers with one number per document and class, the probability under the
chosen estimate (or the posterior predictive). How sure the model is of that number is the
spread of the class probability over the posterior of the parameters::

    p(c | x, θ_s) = π_{s,c} p(x | c, θ_s) / Σ_k π_{s,k} p(x | k, θ_s)

for draws θ_s of the exact conjugate posterior (:func:`bayesnb.draws.posterior_draws`) or of
a NUTS fit (``posterior=``, the tree :func:`bayesnb.inference.fit_pymc` returns). The draws
are scored by the code that scores them for PSIS-LOO (:mod:`bayesnb.loo`), for every family
including ColumnwiseNB, one block of draws at a time so that memory stays within
``max_bytes``. The result is a DataTree whose ``predictions`` group ArviZ reads like a
posterior: ``az.hdi(tree, group="predictions", prob=0.9)`` gives a 90% interval per
document and class, ``az.summary(tree, group="predictions")`` means, sds and diagnostics.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesnb.datatree import layout_attrs, layout_coords, posterior_values
from bayesnb.draws import posterior_draws
from bayesnb.families import family_of
from bayesnb.scoring.softmax import prior_fallback
from bayesnb.validation import check_fitted, check_int

__all__ = ["predict_proba_draws"]

_WHERE = "bayesnb.uncertainty"


def _class_proba(joint: np.ndarray, log_pi: np.ndarray) -> np.ndarray:
    """Softmax over classes of joint log densities (n, m, K), in log space.

    A document impossible under every class of a draw (a Beta draw of exactly 0 or 1) falls
    back to that draw's class prior (:func:`bayesnb.scoring.softmax.prior_fallback`).
    """
    joint = prior_fallback(joint, log_pi)
    joint -= joint.max(axis=2, keepdims=True)
    np.exp(joint, out=joint)
    joint /= joint.sum(axis=2, keepdims=True)
    return joint


def predict_proba_draws(
    est,
    X,
    draws: int = 1000,
    chains: int = 4,
    random_seed=None,
    *,
    posterior: xr.DataTree | None = None,
    max_bytes: float = 2e9,
) -> xr.DataTree:
    """Class probabilities of new documents under every posterior draw, as a DataTree.

    Parameters
    ----------
    est : fitted bayesnb estimator (any family, ColumnwiseNB included)
    X : array-like or sparse matrix of shape (n_docs, n_features)
    draws, chains : int, default 1000, 4
        Exact conjugate draws per chain, and chains (a layout: the draws are independent).
        Ignored with ``posterior``.
    random_seed : int, SeedSequence, Generator or None
        The same seed (and ``max_bytes``) gives the same values; each chain has its own
        spawned stream.
    posterior : xarray.DataTree, optional
        Draws to use instead of exact ones: a tree in the bayesnb layout, such as the result
        of ``est.fit_pymc(X_train, y_train)`` (NUTS draws; the estimator keeps no NUTS fit,
        so pass it here) or of ``est.sample_posterior(...)``. Its ``posterior`` group holds
        ``class_prior (chain, draw, class)`` and the family's variables (a ColumnwiseNB's
        blocks as child trees).
    max_bytes : float, default 2e9
        Refuse, before drawing, when ``class_proba`` (chains × draws × documents × classes ×
        8 bytes) would exceed it; draws are generated and scored in blocks whose working
        memory (parameters and scores of the block's draws) fits in what is left.

    Returns
    -------
    xarray.DataTree
        Group ``predictions`` with ``class_proba (chain, draw, doc, class)`` =
        p(c | x_doc, θ_s) and coordinates ``doc`` (0 .. n_docs − 1) and ``class`` (the
        class labels), attrs from :func:`bayesnb.datatree.layout_attrs`.
        ``az.hdi(tree, group="predictions", prob=0.9)`` and
        ``az.summary(tree, group="predictions")`` read it.
    """
    fam = family_of(est, _WHERE)
    check_fitted(est)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int | float) or max_bytes <= 0:
        raise ValueError(f"max_bytes must be a positive number, got {max_bytes!r}")
    Xc = est._check_input(X, reset=False)
    Xc, M = fam.loo_view(est, Xc)
    n_docs, k = Xc.shape[0], len(est.classes_)
    if posterior is not None:
        values = posterior_values(est, posterior, fam.var_names)
        chains, draws = values["class_prior"].shape[:2]
        inference = posterior["posterior"].attrs.get("inference_library", "posterior=")
    else:
        draws, chains = check_int(draws, "draws"), check_int(chains, "chains")
        values, inference = None, "bayesnb exact conjugate"
    need = 8.0 * chains * draws * n_docs * k
    if need > max_bytes:
        raise ValueError(
            f"predict_proba_draws would return {need / 1e9:.3g} GB (chains × draws × "
            f"documents × classes × 8 bytes), above max_bytes={max_bytes:.3g}. Use fewer "
            "draws, chains or documents, or raise max_bytes."
        )
    per_draw = 8.0 * (fam.loo_cells_per_draw(est, n_docs) + n_docs * k)
    block = int(max(1, min(draws, (max_bytes - need) // per_draw)))
    out = np.empty((chains, draws, n_docs, k))
    streams = np.random.default_rng(random_seed).spawn(chains) if values is None else None
    for chain in range(chains):
        for start in range(0, draws, block):
            m = min(block, draws - start)
            if values is None:
                part = posterior_draws(est, draws=m, chains=1, random_seed=streams[chain])
                part = {name: v[0] for name, v in part.items()}
            else:
                part = {name: v[chain, start : start + m] for name, v in values.items()}
            with np.errstate(divide="ignore"):
                log_pi = np.log(part["class_prior"])
            joint = fam.loo_draws_jll(est, Xc, M, part) + log_pi[None]
            out[chain, start : start + m] = np.moveaxis(_class_proba(joint, log_pi), 0, 1)
    attrs = layout_attrs(est, estimate="posterior", inference=inference)
    ds = xr.Dataset(
        {"class_proba": (("chain", "draw", "doc", "class"), out)},
        coords={
            "chain": np.arange(chains),
            "draw": np.arange(draws),
            "doc": np.arange(n_docs),
            "class": layout_coords(est)["class"],
        },
        attrs=attrs,
    )
    return xr.DataTree.from_dict({"predictions": ds})
