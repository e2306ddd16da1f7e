"""LOO: exact posterior draws -> the log-likelihood of every training label, for PSIS-LOO.

For each exact conjugate draw θ_s (:func:`bayesnb.draws.posterior_draws`) and training document
i, the conditional log-likelihood of its label given its document,

    log p(y_i | x_i, θ_s) = log π_{s,y_i} + log p(x_i | y_i, θ_s) − logsumexp_c [log π_{s,c} +
    log p(x_i | c, θ_s)],

is what a discriminative use of the model is judged by, and what ``az.loo`` turns into the
PSIS-LOO estimate of the expected log predictive density of held-out labels. Everything is in
log space; sparse documents stay sparse (one ``X @ log θᵀ`` product per block of draws, the
draws × classes of a block scored as the "classes" of one call). Draws are generated in blocks
sized by ``max_bytes``, so a large vocabulary never holds all draws at once.
"""

from __future__ import annotations

import re

import numpy as np
import xarray as xr

from bayesnb.datatree import posterior_values, to_datatree
from bayesnb.draws import posterior_draws
from bayesnb.families import family_of
from bayesnb.scoring.softmax import prior_fallback
from bayesnb.validation import check_fitted, check_int, encode_labels

__all__ = ["label_log_likelihood", "label_log_likelihood_draws", "psis_loo", "short_warning"]

_WHERE = "bayesnb.loo"


def label_log_proba(joint: np.ndarray, log_pi: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """log p(y_i | x_i) from joint log densities (N, m, K) of m draws: shape (N, m).

    Written as ``−log(1 + Σ_{c≠y} exp(d_c))`` with ``d_c = joint_c − joint_y``, through
    ``log1p`` when the true class is the most probable: a confident, correct prediction then
    keeps its tiny log-loss (−1e−30, say) instead of rounding to exactly 0, which would leave
    PSIS a constant tail. A document impossible under every class of a draw (a Beta draw of
    exactly 0 or 1) is scored by that draw's class prior ``log_pi`` (m, K), as prediction
    scores it (:func:`bayesnb.scoring.softmax.prior_fallback`).
    """
    joint = prior_fallback(joint, log_pi[None])
    rows = np.arange(codes.size)
    own = joint[rows, :, codes]
    with np.errstate(invalid="ignore", over="ignore"):
        d = joint - own[:, :, None]
        d[rows, :, codes] = -np.inf
        top = np.maximum(d.max(axis=2), 0.0)
        rest = np.exp(d - top[..., None]).sum(axis=2)
        out = np.where(top > 0, -(top + np.log(np.exp(-top) + rest)), -np.log1p(rest))
    out[np.isneginf(own)] = -np.inf  # the label is impossible, another class is not
    return out


def label_log_likelihood_draws(
    est,
    X,
    y,
    draws: int = 500,
    random_seed=0,
    *,
    posterior: xr.DataTree | None = None,
    max_bytes: float = 1e8,
    max_output_bytes: float = 2e9,
) -> tuple[np.ndarray, np.ndarray]:
    """The numpy core of :func:`label_log_likelihood`.

    Returns
    -------
    log_lik : ndarray of shape (draws, n_docs)
        log p(y_i | x_i, θ_s); with ``posterior``, its chains one after another
        (chains × draws rows).
    class_prior : ndarray of shape (draws, n_classes)
        The π draws used.
    """
    fam = family_of(est, _WHERE)  # an unsupported type is a TypeError before any other check
    check_fitted(est)
    if posterior is not None:
        values = posterior_values(est, posterior, fam.var_names)
        # (chain, draw, ...) -> (chain · draw, ...): the draws are scored in that order.
        values = {k: v.reshape(-1, *v.shape[2:]) for k, v in values.items()}
        draws = values["class_prior"].shape[0]
    else:
        draws = check_int(draws, "draws")
    if not (isinstance(max_bytes, int | float) and max_bytes > 0):
        raise ValueError(f"max_bytes must be a positive number, got {max_bytes!r}")
    Xc, yc = est._check_input(X, y, reset=False)
    Xc, M = fam.loo_view(est, Xc)
    _, codes = encode_labels(yc, est.classes_)
    n_docs = codes.size
    need = 8.0 * draws * (n_docs + len(est.classes_))
    if not need <= max_output_bytes:
        raise ValueError(
            f"label_log_likelihood would return {need / 1e9:.3g} GB (draws × (documents + "
            f"classes) × 8 bytes), above max_output_bytes={max_output_bytes:.3g}. Use fewer "
            "draws or documents, or raise max_output_bytes."
        )
    per_draw = 8.0 * fam.loo_cells_per_draw(est, n_docs)
    block = int(max(1, min(draws, max_bytes // per_draw)))
    rng = np.random.default_rng(random_seed)
    log_lik = np.empty((draws, n_docs))
    class_prior = np.empty((draws, len(est.classes_)))
    for start in range(0, draws, block):
        m = min(block, draws - start)
        if posterior is None:
            part = posterior_draws(est, draws=m, chains=1, random_seed=rng)
            part = {k: v[0] for k, v in part.items()}
        else:
            part = {k: v[start : start + m] for k, v in values.items()}
        pi = part["class_prior"]
        with np.errstate(divide="ignore"):
            log_pi = np.log(pi)
        jll = fam.loo_draws_jll(est, Xc, M, part)
        joint = jll + log_pi[None]
        log_lik[start : start + m] = label_log_proba(joint, log_pi, codes).T
        class_prior[start : start + m] = pi
    return log_lik, class_prior


def label_log_likelihood(
    est,
    X,
    y,
    draws: int = 500,
    random_seed=0,
    *,
    posterior: xr.DataTree | None = None,
    max_bytes: float = 1e8,
    max_output_bytes: float = 2e9,
) -> xr.DataTree:
    """Per-draw, per-document log-likelihood of the labels under posterior draws.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB or GDA
        Usually fitted on ``(X, y)``: PSIS-LOO then estimates how well each training label is
        predicted when its document is left out.
    X : array-like or sparse matrix of shape (n_docs, n_features)
    y : array-like of shape (n_docs,)
        Labels, all among ``est.classes_``.
    draws : int, default 500
        Exact posterior draws (independent, so their relative efficiency is 1). Ignored with
        ``posterior``.
    random_seed : int, Generator or None, default 0
        The same seed gives the same values.
    posterior : xarray.DataTree, optional
        Draws to score instead of exact ones: a tree in the bayesnb layout, such as the
        result of ``est.fit_pymc(X, y)`` (NUTS draws; the estimator keeps no NUTS fit, so
        pass it here), read as :func:`bayesnb.uncertainty.predict_proba_draws` reads it.
        The result keeps its chains, so :func:`psis_loo` takes their relative efficiency
        from the ESS of the ``class_prior`` draws.
    max_bytes : float, default 1e8
        Draws are generated and scored in blocks of about this many bytes.
    max_output_bytes : float, default 2e9
        Refuse, before drawing, when the result (draws × (documents + classes) float64)
        would exceed it.

    Returns
    -------
    xarray.DataTree
        ``posterior`` with the ``class_prior`` draws (1 chain, or those of ``posterior``),
        ``log_likelihood`` with
        ``y (chain, draw, doc)`` = log p(y_i | x_i, θ_s), and ``observed_data`` with the labels
        as strings: ``az.loo(tree, var_name="y")`` reads it.
    """
    log_lik, class_prior = label_log_likelihood_draws(
        est,
        X,
        y,
        draws=draws,
        random_seed=random_seed,
        posterior=posterior,
        max_bytes=max_bytes,
        max_output_bytes=max_output_bytes,
    )
    chains, inference = 1, "bayesnb exact conjugate"
    if posterior is not None:
        chains = posterior["posterior"]["class_prior"].shape[0]
        inference = posterior["posterior"].attrs.get("inference_library", "posterior=")
    log_lik = log_lik.reshape(chains, -1, log_lik.shape[1])
    class_prior = class_prior.reshape(chains, -1, class_prior.shape[1])
    labels = np.asarray([str(v) for v in np.asarray(y).ravel()])
    tree = to_datatree(
        est,
        {"class_prior": class_prior},
        estimate="posterior",
        inference=inference,
        groups={"log_likelihood": {"y": log_lik}, "observed_data": {"y": labels}},
        dims={"y": ["doc"]},
        coords={"doc": list(range(labels.size))},
    )
    if posterior is not None:
        # Every root variable of the fit, so psis_loo's relative efficiency (the mean ESS of
        # the posterior, as az.loo's) is the one az.loo gives the fit itself.
        tree["posterior"] = xr.DataTree(posterior["posterior"].to_dataset())
    return tree


def psis_loo(tree: xr.DataTree, var_name: str = "y", *, tol: float = 1e-6):
    """``az.loo`` of a label log-likelihood tree, exact where PSIS has nothing to smooth.

    A document whose log-likelihood varies across draws by at most ``tol`` nats (a label
    predicted with probability ≈ 1 by every draw) has importance weights that are uniform to
    that precision, and its LOO term lies within ``tol`` of the mean over draws; Pareto
    smoothing has no tail to fit there: ArviZ's fit fails on it ("All tail values are the
    same", or NaN weights) or returns a k that means nothing (k is scale-free, so ratios
    differing by 1e-9 can give k > 1). Such documents get uniform log weights and k = 0, the
    others the Pareto-smoothed weights of ``psislw``; a document whose tail cannot be fitted
    at all keeps uniform weights and k = inf (reported as bad). ``az.loo`` then sums them as
    usual, so with no such documents the result is ``az.loo(tree, var_name=var_name)``
    itself, and otherwise its ELPD differs by at most ``tol`` per constant document.

    Parameters
    ----------
    tree : xarray.DataTree
        With a ``log_likelihood`` group holding ``var_name`` over (chain, draw, doc), as
        :func:`label_log_likelihood` returns, and a ``posterior`` group.
    var_name : str, default "y"
    tol : float, default 1e-6
        Spread (nats) below which a document's log-likelihood counts as constant.

    Returns
    -------
    arviz_stats ELPDData
        As ``az.loo(tree, var_name=var_name, pointwise=True)``.
    """
    import warnings

    import arviz as az

    dims = ("chain", "draw")
    ll = tree["log_likelihood"][var_name]
    obs = [d for d in ll.dims if d not in dims]
    if len(obs) != 1:
        raise ValueError(
            f"{var_name!r} must have one observation dim besides chain and draw, got {ll.dims}"
        )
    ll = ll.transpose(*dims, obs[0])
    n_samples = ll.sizes["chain"] * ll.sizes["draw"]
    if ll.sizes["chain"] == 1:
        reff = 1.0  # one chain of independent (exact) draws
    else:  # as az.loo: the mean relative ESS of the posterior
        ess = tree["posterior"].to_dataset().azstats.ess(method="mean")
        # nanmean: constant cells (a categorical model's padded slots) have no ESS.
        reff = float(np.nanmean(np.hstack([ess[v].values.ravel() for v in ess.data_vars])))
        reff /= n_samples
    values = ll.values
    with np.errstate(invalid="ignore"):
        const = (values.max(axis=(0, 1)) - values.min(axis=(0, 1))) <= tol
    log_w = np.full(values.shape, -np.log(n_samples))
    k = np.zeros(values.shape[-1])

    def smooth(idx) -> None:
        with warnings.catch_warnings():
            # NaN weights from a degenerate tail are handled below; numpy's noise is not news.
            warnings.simplefilter("ignore", RuntimeWarning)
            lw, kk = ll.isel({obs[0]: idx}).azstats.psislw(r_eff=reff, dim=list(dims))
        log_w[..., idx] = lw.transpose(*dims, obs[0]).values
        k[idx] = kk.values

    idx = np.flatnonzero(~const)
    if idx.size:
        try:
            smooth(idx)
        except ValueError:  # some tail cannot be fitted: smooth document by document
            for i in idx:
                try:
                    smooth([i])
                except ValueError:
                    k[i] = np.inf
    failed = ~np.all(np.isfinite(log_w), axis=(0, 1)) | np.isnan(k)
    log_w[..., failed] = -np.log(n_samples)
    k[failed] = np.inf
    return az.loo(
        tree,
        var_name=var_name,
        pointwise=True,
        reff=reff,
        log_weights=ll.copy(data=log_w),
        pareto_k=ll.isel(chain=0, draw=0, drop=True).copy(data=k),
    )


_PARETO = re.compile(
    r"(?:(\w+): )?Estimated shape parameter of Pareto distribution is greater than ([\d.]+)"
)


def short_warning(message: str) -> str:
    """ArviZ's long Pareto-k warning (optionally prefixed ``"Model: "``) as one short line.

    Other messages are returned unchanged.
    """
    m = _PARETO.match(message)
    if not m:
        return message
    who = f"{m[1]}: " if m[1] else ""
    return (
        f"{who}PSIS-LOO warned that Pareto k exceeds {m[2]} for some training documents; "
        "their leave-one-out terms are unreliable."
    )
