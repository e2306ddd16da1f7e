"""Uncertainty of predictions: p(c | x, θ_s) of new documents under posterior draws θ_s.

``predict_proba`` answers with one number per document and class, the probability under the
chosen estimate (or the posterior predictive). How sure the model is of that number is the
spread of the class probability over the posterior of the parameters::

    p(c | x, θ_s) = π_{s,c} p(x | c, θ_s) / Σ_k π_{s,k} p(x | k, θ_s)

for draws θ_s of the exact conjugate posterior (:func:`bayesnb.draws.posterior_draws`; for
MultinomialNB and PoissonNB only the cells the documents read, see below) or of a NUTS fit
(``posterior=``, the tree :func:`bayesnb.inference.fit_pymc` returns). The draws
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
from bayesnb.posterior.sampling import class_prior_draws
from bayesnb.scoring.softmax import prior_fallback
from bayesnb.validation import check_fitted, check_int

__all__ = ["log_proba_draws", "predict_proba_draws"]

_WHERE = "bayesnb.uncertainty"


def _log_class_proba(joint: np.ndarray, log_pi: np.ndarray) -> np.ndarray:
    """log-softmax over classes of joint log densities (n, m, K), in place.

    A document impossible under every class of a draw (a Beta draw of exactly 0 or 1) falls
    back to that draw's class prior (:func:`bayesnb.scoring.softmax.prior_fallback`).
    """
    joint = prior_fallback(joint, log_pi)
    joint -= joint.max(axis=2, keepdims=True)
    with np.errstate(divide="ignore"):
        joint -= np.log(np.exp(joint).sum(axis=2, keepdims=True))
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
        The same seed (and ``max_bytes``) gives the same values on one machine; each chain
        has its own spawned stream. For MultinomialNB and PoissonNB the values also depend
        on the batch's words (the draws cover them, see Notes): a document scored in another
        batch gets other draws of the same law.
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

    Notes
    -----
    **Only what the documents read is drawn** (MultinomialNB, PoissonNB). The multinomial
    likelihood reads θ_cj only at the batch's words (and missing cells); the Poisson one
    reads λ_cj there and the total rate Σ_j λ_cj of the other words (``exp(−Σ λ)``). By the
    aggregation property of the Dirichlet, (θ_S, Σ_{j∉S} θ_cj) ~ Dirichlet(a_S, Σ_{j∉S} a_cj),
    and since a sum of independent Gamma(a_j, b) is Gamma(Σ a_j, b), a draw of the batch's
    words plus one 'rest' cell per class has exactly the law of the full draw restricted to
    what the likelihood reads, at the cost of the batch's distinct words instead of the
    vocabulary (six documents at 23,000 words: about 2 s instead of 35–43 s;
    ``benchmarks/bench_exact.py``). The Bernoulli
    likelihood reads every absent feature's 1 − φ_cj, so BernoulliNB (and every other family)
    draws the whole table. ``sample_posterior`` always draws every word.

    **The average over draws is not** ``estimate="bayes"``. The mean of ``class_proba`` over
    draws is E_{θ | data}[p(c | x, θ)]: every draw's probability counts alike. The posterior
    predictive that ``estimate="bayes"`` scores (the Pólya, Dirichlet-multinomial, predictive
    of the whole document for MultinomialNB) is::

        p(c | x, data) = E_{θ | data}[π_c p(x | c, θ)] / E_{θ | data}[p(x | θ)]
                       = E_{θ | data, x}[p(c | x, θ)],

    the same average with each draw weighted by how well it explains the document,
    p(x | θ) = Σ_k π_k p(x | k, θ): the unlabelled document is itself evidence about θ. For a
    short document the weights are flat and the two agree; for a long one p(x | θ) varies
    over the draws by many orders of magnitude, so the predictive follows the draws that
    explain x best, while each draw's p(c | x, θ) is close to 0 or 1 and which class wins
    changes from draw to draw. Hence a document scored 1.000 by both the posterior mean and
    the Pólya predictive can average 0.451 over draws with a 90% interval of [0, 1]: the
    training data alone do not settle which class's words it resembles (the interval), and
    with every draw's probability near 0 or 1, 0.451 is about the share of draws in which
    that class wins. Read ``class_proba`` as the
    uncertainty the training data leave in p(c | x, θ), and ``predict_proba`` under
    ``estimate="bayes"`` as the probability of the label.
    """
    out = log_proba_draws(
        est, X, draws, chains, random_seed, posterior=posterior, max_bytes=max_bytes
    )
    np.exp(out, out=out)
    if posterior is None:
        inference = "bayesnb exact conjugate"
    else:
        inference = posterior["posterior"].attrs.get("inference_library", "posterior=")
    chains, draws, n_docs = out.shape[:3]
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


def log_proba_draws(
    est,
    X,
    draws: int = 1000,
    chains: int = 4,
    random_seed=None,
    *,
    posterior: xr.DataTree | None = None,
    max_bytes: float = 2e9,
) -> np.ndarray:
    """log p(c | x, θ_s) of new documents under every posterior draw, as an array.

    The numbers of :func:`predict_proba_draws` (its ``class_proba`` is their ``exp``) in log
    space, normalised over classes by log-sum-exp, without the DataTree; the parameters are
    the same.

    Returns
    -------
    ndarray of shape (chains, draws, n_docs, n_classes)
        ``-inf`` where a draw gives a class probability 0.
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
    else:
        draws, chains = check_int(draws, "draws"), check_int(chains, "chains")
        values = None
    need = 8.0 * chains * draws * n_docs * k
    if need > max_bytes:
        raise ValueError(
            f"predict_proba_draws would return {need / 1e9:.3g} GB (chains × draws × "
            f"documents × classes × 8 bytes), above max_bytes={max_bytes:.3g}. Use fewer "
            "draws, chains or documents, or raise max_bytes."
        )
    # Exact draws of only the cells the documents read, where the family's law aggregates.
    batch = fam.batch_view(est, Xc, M) if values is None else None
    cells = fam.loo_cells_per_draw(est, n_docs) if batch is None else batch.cells_per_draw
    per_draw = 8.0 * (cells + n_docs * k)
    block = int(max(1, min(draws, (max_bytes - need) // per_draw)))
    out = np.empty((chains, draws, n_docs, k))
    streams = np.random.default_rng(random_seed).spawn(chains) if values is None else None
    for chain in range(chains):
        for start in range(0, draws, block):
            m = min(block, draws - start)
            if batch is not None:
                class_rng, table_rng = streams[chain].spawn(2)
                part = {"class_prior": class_prior_draws(est, class_rng, (m,))}
                part |= batch.draws(table_rng, (m,))
            elif values is None:
                part = posterior_draws(est, draws=m, chains=1, random_seed=streams[chain])
                part = {name: v[0] for name, v in part.items()}
            else:
                part = {name: v[chain, start : start + m] for name, v in values.items()}
            with np.errstate(divide="ignore"):
                log_pi = np.log(part["class_prior"])
            if batch is None:
                jll = fam.loo_draws_jll(est, Xc, M, part)
            else:
                jll = batch.jll(part)
            joint = jll + log_pi[None]
            out[chain, start : start + m] = np.moveaxis(_log_class_proba(joint, log_pi), 0, 1)
    return out
