"""Draws: the conjugate posterior -> point estimates, exact draws and closed-form summaries.

All three produce the layout of :func:`bayesnb.datatree.to_datatree`: group
``posterior`` with ``class_prior (chain, draw, class)`` and, for the naive Bayes models,
``feature_prob (chain, draw, class, feature)``, as probabilities (not logs); for GDA ``mean
(chain, draw, class, feature)`` and ``cov (chain, draw, [class,] feature, feature_bis)``. So
ArviZ reads a point estimate, an exact posterior and a NUTS fit alike.

Model-specific meaning of ``feature_prob``:

- BernoulliNB: φ_cj = P(x_j = 1 | c).
- MultinomialNB: θ_cj = P(word j | c). With ``unk=True`` every pooled (never seen) column holds
  the probability of the one UNK category, as in ``feature_log_prob_``; a row then sums to 1
  only when UNK is counted once.
- CategoricalNB: dims ``(class, feature, value)`` with ``value`` = 0 .. max_j k_j. Slot
  ``v < k_j`` is P(x_j = v | c); slot ``v = k_j`` is the pooled unseen slot, the probability
  of any value never seen in training (scoring maps every such value to it), so slot v is
  P(min(x_j, k_j) = v | c). Slots beyond k_j are NaN (padding), so ``nansum`` over ``value``
  is 1.
- PoissonNB: no ``feature_prob``; ``feature_rate (chain, draw, class, feature)`` holds the
  Poisson rates λ_cj (expected count of feature j in a document of class c), drawn exactly
  from their Gamma(α + S_cj, β + N_c) posteriors.

GDA (``covariance="shared"|"per_class"|"diagonal"``): ``cov`` is (feature, feature_bis) for
the shared model and (class, feature, feature_bis) otherwise; the diagonal model keeps the
full matrix layout with exact zeros off the diagonal, so code reading ``cov`` never branches
on the covariance type.

Exact draws are independent (no Markov chain): Beta draws for Bernoulli features, and
Dirichlet draws as Gamma variates normalised in place, generated in one call on a
(chains, draws, K, V)-shaped concentration so the cost stays that of the Gamma variates.
GDA draws the Normal-Inverse-Wishart posterior by the Bartlett decomposition, batched over
(chains, draws[, classes]) in numpy (:func:`inverse_wishart_draws`).

This module holds what every model shares (argument checks, the memory bound, the random
streams, the class prior, the DataTree assembly); each family's own variables come from its
:class:`~bayesnb.families.Family` (``bayesnb/families/<name>/sampling.py``). A composite
(ColumnwiseNB, whose :meth:`~bayesnb.families.Family.parts` are its blocks) is assembled here
from its parts' results under its one class prior: ``posterior/class_prior`` at the root of a
DataTree and each part's own tree (without its class prior) as the child ``name``; the numpy
draws are ``class_prior`` and ``"{part}/{var}"``.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesnb.datatree import layout_attrs, layout_coords, to_datatree
from bayesnb.families import family_of
from bayesnb.families.bernoulli.sampling import BernoulliSampling
from bayesnb.families.dcm.sampling import DCMSampling
from bayesnb.families.gda.sampling import GDASampling
from bayesnb.families.poisson.sampling import PoissonSampling
from bayesnb.pipeline import final_estimator
from bayesnb.posterior.sampling import class_prior_draws, inverse_wishart_draws, with_estimate
from bayesnb.posterior.summary import beta_summary
from bayesnb.validation import check_class_prior, check_estimate, check_fitted, check_int

__all__ = [
    "GDA_VAR_NAMES",
    "POISSON_VAR_NAMES",
    "VAR_NAMES",
    "inverse_wishart_draws",
    "point_estimate",
    "posterior_draws",
    "posterior_summary",
    "sample_posterior",
]

# The variable names of each family's layout, as its sampling capability declares them.
VAR_NAMES: tuple[str, ...] = BernoulliSampling.var_names
GDA_VAR_NAMES: tuple[str, ...] = GDASampling.var_names
POISSON_VAR_NAMES: tuple[str, ...] = PoissonSampling.var_names
DCM_VAR_NAMES: tuple[str, ...] = DCMSampling.var_names


def _family(est):
    return family_of(est, "bayesnb.draws")


# -- argument checks ---------------------------------------------------------------------------
def _check_var_names(var_names, known: tuple[str, ...]) -> list[str]:
    if var_names is None:
        return list(known)
    names = [var_names] if isinstance(var_names, str) else list(var_names)
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise ValueError(f"var_names must be a subset of {list(known)}, got {var_names!r}")
    return [n for n in known if n in names]


def _check_features(est, features) -> np.ndarray | None:
    """Column indices from ``features`` (ints, or feature names); None keeps every column."""
    if features is None:
        return None
    arr = np.atleast_1d(np.asarray(features))
    n = est.n_features_in_
    if arr.size == 0:
        raise ValueError("features must select at least one column, got an empty selection")
    if arr.dtype.kind in "US" or arr.dtype == object:
        names = list(layout_coords(est)["feature"])
        lookup = {name: j for j, name in enumerate(names)}
        missing = [f for f in arr.tolist() if str(f) not in lookup]
        if missing:
            raise ValueError(f"features holds unknown feature names: {missing[:5]}")
        idx = np.array([lookup[str(f)] for f in arr.tolist()], dtype=np.intp)
    elif arr.dtype.kind in "iu":
        idx = arr.astype(np.intp)
        if idx.min() < 0 or idx.max() >= n:
            raise ValueError(f"features must be column indices in [0, {n}), got {features!r}")
    else:
        raise TypeError(f"features must be column indices or feature names, got {features!r}")
    if np.unique(idx).size != idx.size:
        raise ValueError(f"features holds duplicate columns: {features!r}")
    return idx


def _check_draws(est, draws, chains):
    """The family of fitted ``est`` and the checked numbers of draws and chains."""
    fam = _family(est)
    check_fitted(est)
    return fam, check_int(draws, "draws"), check_int(chains, "chains")


# -- composites: a model of parts under one class prior ----------------------------------------
def _part_names(var_names) -> list[str] | None:
    if var_names is None:
        return None
    names = [var_names] if isinstance(var_names, str) else list(var_names)
    if not names:
        raise ValueError("var_names must name at least one variable, got an empty list")
    return names


def _no_part_features(est, features) -> None:
    if features is not None:
        raise ValueError(
            f"features= selects columns of one model; for a {type(est).__name__} select them "
            "per block, e.g. est.named_estimators_[name].sample_posterior(features=...)"
        )


def _part_seeds(random_seed, n_parts: int) -> list:
    """One stream for the class prior and one per part: a part's values do not depend on
    which other parts or variables are drawn."""
    return np.random.default_rng(random_seed).spawn(1 + n_parts)


def _compose_tree(est, root: xr.DataTree, trees: dict[str, xr.DataTree], names) -> xr.DataTree:
    """``root`` (the class prior) with one child per part's tree, without the parts' own
    ``class_prior`` and keeping only the requested variables."""
    found: set[str] = set()
    for name, tree in trees.items():
        post = tree["posterior"].to_dataset()
        keep = [v for v in post.data_vars if v != "class_prior" and (names is None or v in names)]
        found |= set(keep)
        if not keep:
            continue
        tree["posterior"] = xr.DataTree(post[keep])
        root[name] = tree
    if names is not None:
        unknown = sorted(set(names) - found - {"class_prior"})
        if unknown:
            raise ValueError(
                f"var_names {unknown} are variables of no block of this {type(est).__name__}"
            )
        if "class_prior" not in names:
            root = root.copy()
            del root["posterior"]
    return root


# -- point estimates ---------------------------------------------------------------------------
def point_estimate(est, estimate: str, var_names=None, features=None) -> xr.DataTree:
    """A point estimate of the model's parameters as a 1 × 1 DataTree.

    Parameters
    ----------
    est : fitted bayesnb estimator, or a fitted Pipeline ending in one
        (:func:`bayesnb.pipeline.final_estimator`: the transformers' feature names become
        the ``feature`` coordinate)
    estimate : {"mle", "map", "mean", "bayes"}
        ``"bayes"`` (the posterior predictive) is accepted where it is a point: for the
        Bernoulli and categorical models it equals the posterior mean (the posterior
        factorises over features and a single draw's predictive is the mean). For the
        multinomial model it is the Dirichlet-multinomial predictive of whole documents,
        and for GDA the Student-t predictive; no single parameter value reproduces either,
        so they are refused.
    var_names : str or list of str, optional
        Subset of ``["class_prior", "feature_prob"]``, ``["class_prior", "feature_rate"]``
        for PoissonNB, or ``["class_prior", "mean", "cov"]`` for GDA.
    features : array-like of int or of feature names, optional
        Columns to keep (for GDA ``cov`` keeps the principal sub-block of those columns).

    Returns
    -------
    xarray.DataTree
        Group ``posterior`` with chain = draw = 1. The values equal ``exp`` of the
        estimator's ``class_log_prior_`` and ``feature_log_prob_`` under ``estimate``
        (GDA: its ``means_`` and ``covariance_``, diagonal variances as a diagonal matrix);
        the class prior honours ``class_prior=`` and ``fit_prior=False``.
    """
    est = final_estimator(est)  # a fitted Pipeline: its last step, named
    _family(est)  # a TypeError for a model of no bayesnb family, before the fit is checked
    check_fitted(est)
    check_estimate(estimate)
    return _point_estimate(est, estimate, var_names, features)


def _point_estimate(est, estimate: str, var_names, features) -> xr.DataTree:
    """:func:`point_estimate` of fitted ``est`` (``estimate`` checked already)."""
    fam = _family(est)
    parts = fam.parts(est)
    if parts:
        names = _part_names(var_names)
        _no_part_features(est, features)
        view = with_estimate(est, estimate)
        root = to_datatree(
            est,
            {"class_prior": np.exp(view.class_log_prior_)[None, None]},
            estimate=estimate,
            inference="bayesnb point estimate",
        )
        trees = {}
        for name, part in parts:
            try:
                trees[name] = _point_estimate(part, estimate, None, None)
            except ValueError as exc:
                raise type(exc)(f"block {name!r}: {exc}") from exc
        return _compose_tree(est, root, trees, names)
    if estimate == "bayes" and fam.bayes_not_a_point is not None:
        raise ValueError(fam.bayes_not_a_point)
    names = _check_var_names(var_names, fam.var_names)
    feat = _check_features(est, features)
    view = with_estimate(est, estimate)
    values: dict[str, np.ndarray] = {}
    if "class_prior" in names:
        values["class_prior"] = np.exp(view.class_log_prior_)
    values |= fam.point_values(est, view, names, feat)
    return to_datatree(
        est,
        {k: v[None, None] for k, v in values.items()},
        estimate=estimate,
        inference="bayesnb point estimate",
        features=feat,
        **fam.layout(est, feat),
    )


# -- exact posterior draws ---------------------------------------------------------------------
def posterior_draws(
    est,
    draws: int = 1000,
    chains: int = 4,
    random_seed=None,
    var_names=None,
    features=None,
    max_bytes: float = 2e9,
) -> dict[str, np.ndarray]:
    """The numpy core of :func:`sample_posterior`: ``name -> ndarray (chain, draw, ...)``.

    Same arguments, checks and values as :func:`sample_posterior` (the same seed gives the same
    arrays), without the DataTree wrapping, whose fixed cost (milliseconds) dominates when
    thousands of small posteriors are drawn (simulation-based calibration).
    """
    est = final_estimator(est)  # a fitted Pipeline: its last step, named
    _, draws, chains = _check_draws(est, draws, chains)
    return _posterior_draws(est, draws, chains, random_seed, var_names, features, max_bytes)


def _posterior_draws(
    est, draws: int, chains: int, random_seed, var_names, features, max_bytes
) -> dict[str, np.ndarray]:
    """:func:`posterior_draws` of fitted ``est`` (``draws`` and ``chains`` checked already)."""
    fam = _family(est)
    parts = fam.parts(est)
    if parts:
        names = _part_names(var_names)
        _no_part_features(est, features)
        seeds = _part_seeds(random_seed, len(parts))
        values: dict[str, np.ndarray] = {}
        if names is None or "class_prior" in names:
            values["class_prior"] = class_prior_draws(est, seeds[0], (chains, draws))
        for (name, part), seed in zip(parts, seeds[1:], strict=True):
            drawn = _posterior_draws(part, draws, chains, seed, None, None, max_bytes)
            for var, arr in drawn.items():
                if var != "class_prior" and (names is None or var in names):
                    values[f"{name}/{var}"] = arr
        return values
    names = _check_var_names(var_names, fam.var_names)
    feat = _check_features(est, features)
    what, cells, formula = fam.draw_cost(est, names, feat)
    need = chains * draws * cells * 8.0
    if need > max_bytes:
        raise ValueError(
            f"sample_posterior would allocate {need / 1e9:.3g} GB for {what} "
            f"(chains × draws × {formula} × 8 bytes), above max_bytes="
            f"{max_bytes:.3g}. Select columns with features=..., draw fewer draws/chains, "
            "use posterior_summary() for closed-form moments, or raise max_bytes."
        )
    # One spawned stream per variable: var_names does not change the values drawn. (Children
    # 0 and 1 are the same whatever the number spawned, so the discrete draws are unchanged.)
    class_rng, feature_rng, mean_rng = np.random.default_rng(random_seed).spawn(3)
    shape = (chains, draws)
    values: dict[str, np.ndarray] = {}
    if "class_prior" in names:
        values["class_prior"] = class_prior_draws(est, class_rng, shape)
    values |= fam.posterior_draws(est, feature_rng, shape, names, feat, aux_rng=mean_rng)
    return values


def sample_posterior(
    est,
    draws: int = 1000,
    chains: int = 4,
    random_seed=None,
    var_names=None,
    features=None,
    max_bytes: float = 2e9,
) -> xr.DataTree:
    """Independent draws from the exact conjugate posterior, in the bayesnb DataTree layout.

    π ~ Dirichlet(``class_alpha_`` + N_c) (a fixed ``class_prior=`` or ``fit_prior=False`` prior
    is repeated in every draw: it is not inferred); Bernoulli φ_cj ~ Beta(α + D_cj,
    β + N_c − D_cj); multinomial θ_c ~ Dirichlet(α + T_c); categorical θ_cj ~
    Dirichlet(α + counts_cj); Poisson λ_cj ~ Gamma(α + S_cj, rate β + N_c) (variable
    ``feature_rate``). Draws are independent, so ESS equals the number of draws.
    Dirichlet draws are Gamma variates drawn in one call on the (chains, draws, K, V)
    concentration and normalised in place.

    GDA: Σ ~ IW(Ψ, ν) (one per draw for ``"shared"``, one per class and draw for
    ``"per_class"``, by :func:`inverse_wishart_draws`), ``"diagonal"`` σ²_cj ~
    InvGamma((ν_c − d + 1)/2, Ψ_c,jj/2); then μ_c | Σ ~ N(μ_c, Σ_c/κ_c), with the
    posterior hyperparameters of :class:`bayesnb.posterior.NormalInverseWishartPosterior`.

    Parameters
    ----------
    est : fitted bayesnb estimator, or a fitted Pipeline ending in one
        (:func:`bayesnb.pipeline.final_estimator`: the transformers' feature names become
        the ``feature`` coordinate)
    draws, chains : int
        Draws per chain and number of chains (positive). Chains are only a layout here.
    random_seed : int, SeedSequence or Generator, optional
        The same seed gives identical arrays. Each variable has its own spawned stream, so
        ``var_names`` does not change the values of the variables kept.
    var_names : str or list of str, optional
        Subset of ``["class_prior", "feature_prob"]``, ``["class_prior", "feature_rate"]``
        for PoissonNB, or ``["class_prior", "mean", "cov"]`` for GDA.
    features : array-like of int or of feature names, optional
        Columns to draw. For the multinomial model the unselected columns are aggregated
        into one 'rest' category that is drawn and dropped, so the selected columns have
        exactly their marginal posterior (the Dirichlet aggregation property). For GDA the
        marginal of the selected block is drawn directly: the principal s × s sub-block of
        Σ ~ IW_d(Ψ, ν) is IW_s(Ψ_SS, ν − d + s), and μ_c,S given Σ depends on that block
        only. A subset thus costs s, not d, and has exactly the marginal posterior.
    max_bytes : float, default 2e9
        Refuse when the drawn arrays would exceed it: ``feature_prob`` (chains × draws ×
        classes × columns × 8 bytes), for GDA ``mean`` and ``cov`` together (Σ is drawn
        for either).

    Returns
    -------
    xarray.DataTree
        Group ``posterior`` only (no ``sample_stats``: there is no sampler state).
    """
    est = final_estimator(est)  # a fitted Pipeline: its last step, named
    _, draws, chains = _check_draws(est, draws, chains)
    return _sample_posterior(est, draws, chains, random_seed, var_names, features, max_bytes)


def _sample_posterior(
    est, draws: int, chains: int, random_seed, var_names, features, max_bytes
) -> xr.DataTree:
    """:func:`sample_posterior` of fitted ``est`` (``draws`` and ``chains`` checked already)."""
    parts = _family(est).parts(est)
    if parts:
        # The same values as posterior_draws: the same streams, each part's tree its own.
        names = _part_names(var_names)
        _no_part_features(est, features)
        seeds = _part_seeds(random_seed, len(parts))
        root = to_datatree(
            est,
            {"class_prior": class_prior_draws(est, seeds[0], (chains, draws))},
            estimate="posterior",
            inference="bayesnb exact conjugate",
        )
        trees = {
            name: _sample_posterior(part, draws, chains, seed, None, None, max_bytes)
            for (name, part), seed in zip(parts, seeds[1:], strict=True)
        }
        return _compose_tree(est, root, trees, names)
    values = _posterior_draws(est, draws, chains, random_seed, var_names, features, max_bytes)
    feat = _check_features(est, features)
    return to_datatree(
        est,
        values,
        estimate="posterior",
        inference="bayesnb exact conjugate",
        features=feat,
        **_family(est).layout(est, feat),
    )


# -- closed-form summaries ---------------------------------------------------------------------
def posterior_summary(est, ci_prob: float = 0.89, features=None) -> xr.Dataset:
    """Closed-form posterior mean, sd and equal-tailed interval of every parameter.

    Naive Bayes: every parameter has a Beta marginal (Bernoulli φ directly; each component of
    a Dirichlet is Beta(a_k, A − a_k)), so no draws are needed: use this for vocabularies too
    large to sample; a Poisson rate λ_cj has its Gamma(α + S_cj, β + N_c) posterior as
    marginal (variable ``feature_rate``). GDA: μ_cj has a Student-t marginal, Σ_jj an
    inverse-gamma one, and the off-diagonal Σ_ij have closed-form mean and sd but no
    closed-form quantiles (their bounds are NaN). Layout and labels follow
    ``az.summary(..., fmt="xarray")``.

    Parameters
    ----------
    est : fitted bayesnb estimator, or a fitted Pipeline ending in one
        (:func:`bayesnb.pipeline.final_estimator`: the transformers' feature names become
        the ``feature`` coordinate)
    ci_prob : float, default 0.89
        Probability inside the interval (0 < ci_prob < 1); the bounds are the
        ``(1 ∓ ci_prob) / 2`` quantiles of the marginals.
    features : array-like of int or of feature names, optional

    Returns
    -------
    xarray.Dataset
        ``class_prior (summary, class)`` and ``feature_prob (summary, class, feature[, value])``
        (GDA: ``mean (summary, class, feature)`` and ``cov (summary, [class,] feature,
        feature_bis)``) with ``summary`` = ``["mean", "sd", "eti{P}_lb", "eti{P}_ub"]``,
        P = round(100 ci_prob). A fixed class prior has sd 0; a moment that does not exist is
        NaN.
    """
    est = final_estimator(est)  # a fitted Pipeline: its last step, named
    fam = _family(est)
    check_fitted(est)
    reason = fam.summary_refusal
    if reason is not None:
        raise TypeError(reason)
    if not isinstance(ci_prob, float | int) or not 0 < ci_prob < 1:
        raise ValueError(f"ci_prob must be a probability strictly between 0 and 1, got {ci_prob!r}")
    feat = _check_features(est, features)
    n_classes = est.class_count_.shape[0]
    if est.class_prior is not None or not est.fit_prior:
        p = (
            check_class_prior(est.class_prior, n_classes)
            if est.class_prior is not None
            else np.full(n_classes, 1.0 / n_classes)
        )
        cls = np.stack([p, np.zeros_like(p), p, p])
    else:
        conc = est.class_posterior_.concentration
        cls = beta_summary(conc, conc.sum() - conc, ci_prob)
    variables = {"class_prior": (("summary", "class"), cls)}
    perc = round(ci_prob * 100)  # int() would turn 0.29 into 28
    coords = layout_coords(est, feat)
    out_coords = {
        "summary": ["mean", "sd", f"eti{perc}_lb", f"eti{perc}_ub"],
        "class": coords["class"],
        "feature": coords["feature"],
    }
    more, more_coords = fam.posterior_summary(est, ci_prob, feat)
    variables |= more
    out_coords |= more_coords
    return xr.Dataset(
        variables,
        coords=out_coords,
        attrs=layout_attrs(est, estimate="posterior", inference="bayesnb closed form"),
    )
