"""Draws: the conjugate posterior -> point estimates, exact draws and closed-form summaries.

All three produce the DESIGN.md §3 layout (:func:`bayesnb.datatree.to_datatree`): group
``posterior`` with ``class_prior (chain, draw, class)`` and ``feature_prob (chain, draw, class,
feature)``, as probabilities (not logs), so ArviZ reads a point estimate, an exact posterior
and a NUTS fit alike.

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

Exact draws are independent (no Markov chain): Beta draws for Bernoulli features, and
Dirichlet draws as Gamma variates normalised in place, generated in one call on a
(chains, draws, K, V)-shaped concentration so the cost stays that of the Gamma variates.
"""

from __future__ import annotations

import copy
from numbers import Integral

import numpy as np
import xarray as xr
from scipy.stats import beta as beta_dist

from bayesnb.datatree import layout_attrs, layout_coords, to_datatree
from bayesnb.validation import ESTIMATES, check_class_prior, check_fitted

__all__ = [
    "VAR_NAMES",
    "point_estimate",
    "posterior_draws",
    "posterior_summary",
    "sample_posterior",
]

VAR_NAMES = ("class_prior", "feature_prob")


# -- dispatch (the one place per module that knows the estimator types) ----------------------
def _kind(est) -> str:
    from bayesnb.naive_bayes import BernoulliNB, CategoricalNB, MultinomialNB

    for cls, kind in (
        (BernoulliNB, "bernoulli"),
        (MultinomialNB, "multinomial"),
        (CategoricalNB, "categorical"),
    ):
        if isinstance(est, cls):
            return kind
    raise TypeError(
        f"{type(est).__name__} is not supported by bayesnb.draws; supported estimators are "
        "BernoulliNB, MultinomialNB and CategoricalNB"
    )


# -- argument checks ---------------------------------------------------------------------------
def _check_var_names(var_names) -> list[str]:
    if var_names is None:
        return list(VAR_NAMES)
    names = [var_names] if isinstance(var_names, str) else list(var_names)
    bad = [n for n in names if n not in VAR_NAMES]
    if bad or not names:
        raise ValueError(f"var_names must be a subset of {list(VAR_NAMES)}, got {var_names!r}")
    return [n for n in VAR_NAMES if n in names]


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


def _check_positive_int(value, name: str) -> int:
    if not isinstance(value, Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be a positive integer, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _with_estimate(est, estimate: str):
    """A shallow copy of ``est`` scoring with ``estimate`` (statistics shared, not copied)."""
    other = copy.copy(est)
    other.estimate = estimate
    other._tables = {}
    return other


def _categorical_layout(est, features) -> tuple[np.ndarray, np.ndarray, int]:
    """Features kept, their slot counts k_j + 1, and the width of the ``value`` dim."""
    feat = np.arange(est.n_features_in_) if features is None else features
    sizes = np.asarray(est.n_categories_)[feat] + 1
    return feat, sizes, int(sizes.max())


def _category_slots(est, keep: np.ndarray) -> list[np.ndarray]:
    """Columns of each kept feature on the concatenated category axis (k_j + 1 slots each)."""
    k = np.asarray(est.n_categories_)
    offsets = np.concatenate([[0], np.cumsum(k + 1)[:-1]])
    return [np.arange(offsets[j], offsets[j] + k[j] + 1) for j in keep]


def _pad_categories(segments: list[np.ndarray], width: int) -> np.ndarray:
    """Stack per-feature (..., k_j + 1) arrays into (..., V, width), NaN beyond each segment."""
    lead = segments[0].shape[:-1]
    out = np.full((*lead, len(segments), width), np.nan)
    for j, seg in enumerate(segments):
        out[..., j, : seg.shape[-1]] = seg
    return out


def _extra_layout(est, kind: str, features) -> dict:
    if kind != "categorical":
        return {}
    _, _, width = _categorical_layout(est, features)
    return {
        "dims": {"feature_prob": ["class", "feature", "value"]},
        "coords": {"value": list(range(width))},
    }


# -- point estimates ---------------------------------------------------------------------------
def point_estimate(est, estimate: str, var_names=None, features=None) -> xr.DataTree:
    """A point estimate of the class prior and feature probabilities as a 1 × 1 DataTree.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB or CategoricalNB
    estimate : {"mle", "map", "mean", "bayes"}
        ``"bayes"`` (the posterior predictive) is accepted where it is a point: for the
        Bernoulli and categorical models it equals the posterior mean (the posterior
        factorises over features and a single draw's predictive is the mean). For the
        multinomial model it is the Dirichlet-multinomial predictive of whole documents,
        which no single θ reproduces, so it is refused.
    var_names : str or list of str, optional
        Subset of ``["class_prior", "feature_prob"]``.
    features : array-like of int or of feature names, optional
        Columns to keep.

    Returns
    -------
    xarray.DataTree
        Group ``posterior`` with chain = draw = 1. The values equal ``exp`` of the
        estimator's ``class_log_prior_`` and ``feature_log_prob_`` under ``estimate``;
        the class prior honours ``class_prior=`` and ``fit_prior=False``.
    """
    kind = _kind(est)
    check_fitted(est)
    if not isinstance(estimate, str) or estimate not in ESTIMATES:
        raise ValueError(f"estimate must be one of {ESTIMATES}, got {estimate!r}")
    if estimate == "bayes" and kind == "multinomial":
        raise ValueError(
            "estimate='bayes' is not a point for MultinomialNB: it is the Dirichlet-multinomial "
            "predictive of whole documents (parameters integrated out). Use 'mean' for the "
            "posterior mean, or sample_posterior() for the posterior itself."
        )
    names = _check_var_names(var_names)
    feat = _check_features(est, features)
    view = _with_estimate(est, estimate)
    values: dict[str, np.ndarray] = {}
    if "class_prior" in names:
        values["class_prior"] = np.exp(view.class_log_prior_)
    if "feature_prob" in names:
        if kind == "categorical":
            keep, _, width = _categorical_layout(est, feat)
            tables = view.feature_log_prob_
            values["feature_prob"] = _pad_categories([np.exp(tables[j]) for j in keep], width)
        else:
            table = np.exp(view.feature_log_prob_)
            values["feature_prob"] = table if feat is None else table[:, feat]
    return to_datatree(
        est,
        {k: v[None, None] for k, v in values.items()},
        estimate=estimate,
        inference="bayesnb point estimate",
        features=feat,
        **_extra_layout(est, kind, feat),
    )


# -- exact posterior draws ---------------------------------------------------------------------
def _class_draws(est, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    n_classes = est.class_count_.shape[0]
    if est.class_prior is not None or not est.fit_prior:
        # π is fixed, not inferred: every draw is that prior.
        if est.class_prior is not None:
            p = check_class_prior(est.class_prior, n_classes)
        else:
            p = np.full(n_classes, 1.0 / n_classes)
        return np.broadcast_to(p, (*shape, n_classes)).copy()
    conc = est.class_posterior_.concentration
    g = rng.standard_gamma(conc, size=(*shape, n_classes))
    g /= g.sum(axis=-1, keepdims=True)
    return g


def _dirichlet_draws(
    rng: np.random.Generator, conc: np.ndarray, shape: tuple[int, int]
) -> np.ndarray:
    """Dirichlet(conc) draws over the last axis: Gamma variates normalised in place."""
    g = rng.standard_gamma(conc, size=(*shape, *conc.shape))
    g /= g.sum(axis=-1, keepdims=True)
    return g


def _multinomial_columns(est) -> tuple[np.ndarray, int]:
    """Category of every column of a MultinomialNB (UNK pooling) and the number of categories."""
    pooled = est._pooled
    n = est.n_features_in_
    if pooled is None:
        return np.arange(n), n
    cat = np.empty(n, dtype=np.intp)
    n_seen = int((~pooled).sum())
    cat[~pooled] = np.arange(n_seen)
    cat[pooled] = n_seen
    return cat, n_seen + 1


def _multinomial_draws(est, rng, shape, features) -> np.ndarray:
    conc = est.posterior_.concentration
    cat, n_cat = _multinomial_columns(est)
    cols = cat if features is None else cat[features]
    chosen = np.unique(cols)
    if chosen.size == n_cat:
        g = _dirichlet_draws(rng, conc, shape)
        # No copy when the columns are the categories in order (the common full draw).
        return g if np.array_equal(cols, np.arange(n_cat)) else g[..., cols]
    # Aggregation property: (θ_S, Σ_rest θ) ~ Dirichlet(a_S, Σ_rest a), so drawing the chosen
    # categories plus one 'rest' category gives exactly their marginal posterior.
    rest = np.ones(n_cat, dtype=bool)
    rest[chosen] = False
    sub = np.concatenate([conc[:, chosen], conc[:, rest].sum(axis=1, keepdims=True)], axis=1)
    g = _dirichlet_draws(rng, sub, shape)
    return g[..., np.searchsorted(chosen, cols)]


def _categorical_draws(est, rng, shape, features) -> np.ndarray:
    post = est.posterior_
    keep, sizes, width = _categorical_layout(est, features)
    flat = np.concatenate(_category_slots(est, keep))
    conc = post.concentration[:, flat]
    g = rng.standard_gamma(conc, size=(*shape, *conc.shape))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    g /= np.repeat(np.add.reduceat(g, starts, axis=-1), sizes, axis=-1)
    out = np.full((*shape, conc.shape[0], keep.size, width), np.nan)
    feat_idx = np.repeat(np.arange(keep.size), sizes)
    value_idx = np.arange(flat.size) - np.repeat(starts, sizes)
    out[..., feat_idx, value_idx] = g
    return out


def _feature_cells(est, kind: str, features) -> int:
    n_classes = est.class_count_.shape[0]
    if kind == "categorical":
        keep, _, width = _categorical_layout(est, features)
        return n_classes * keep.size * width
    n = est.n_features_in_ if features is None else features.size
    # A multinomial subset also draws the aggregated 'rest' category.
    return n_classes * (n + (kind == "multinomial" and features is not None))


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
    kind = _kind(est)
    check_fitted(est)
    draws = _check_positive_int(draws, "draws")
    chains = _check_positive_int(chains, "chains")
    names = _check_var_names(var_names)
    feat = _check_features(est, features)
    if "feature_prob" in names:
        need = chains * draws * _feature_cells(est, kind, feat) * 8.0
        if need > max_bytes:
            raise ValueError(
                f"sample_posterior would allocate {need / 1e9:.3g} GB for feature_prob "
                f"(chains × draws × classes × columns × 8 bytes), above max_bytes="
                f"{max_bytes:.3g}. Select columns with features=..., draw fewer draws/chains, "
                "use posterior_summary() for closed-form moments, or raise max_bytes."
            )
    # One spawned stream per variable: var_names does not change the values drawn.
    class_rng, feature_rng = np.random.default_rng(random_seed).spawn(2)
    shape = (chains, draws)
    values: dict[str, np.ndarray] = {}
    if "class_prior" in names:
        values["class_prior"] = _class_draws(est, class_rng, shape)
    if "feature_prob" in names:
        if kind == "bernoulli":
            post = est.posterior_
            a, b = post.a, post.b
            if feat is not None:
                a, b = a[:, feat], b[:, feat]
            values["feature_prob"] = feature_rng.beta(a, b, size=(*shape, *a.shape))
        elif kind == "multinomial":
            values["feature_prob"] = _multinomial_draws(est, feature_rng, shape, feat)
        else:
            values["feature_prob"] = _categorical_draws(est, feature_rng, shape, feat)
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

    π ~ Dirichlet(class_alpha_ + N_c) (a fixed ``class_prior=`` or ``fit_prior=False`` prior
    is repeated in every draw: it is not inferred); Bernoulli φ_cj ~ Beta(α + D_cj,
    β + N_c − D_cj); multinomial θ_c ~ Dirichlet(α + T_c); categorical θ_cj ~
    Dirichlet(α + counts_cj). Draws are independent, so ESS equals the number of draws.
    Dirichlet draws are Gamma variates drawn in one call on the (chains, draws, K, V)
    concentration and normalised in place.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB or CategoricalNB
    draws, chains : int
        Draws per chain and number of chains (positive). Chains are only a layout here.
    random_seed : int, SeedSequence or Generator, optional
        The same seed gives identical arrays. Each variable has its own spawned stream, so
        ``var_names`` does not change the values of the variables kept.
    var_names : str or list of str, optional
        Subset of ``["class_prior", "feature_prob"]``.
    features : array-like of int or of feature names, optional
        Columns to draw. For the multinomial model the unselected columns are aggregated
        into one 'rest' category that is drawn and dropped, so the selected columns have
        exactly their marginal posterior (the Dirichlet aggregation property).
    max_bytes : float, default 2e9
        Refuse when ``feature_prob`` (chains × draws × classes × columns × 8 bytes) would
        exceed it.

    Returns
    -------
    xarray.DataTree
        Group ``posterior`` only (no ``sample_stats``: there is no sampler state).
    """
    values = posterior_draws(
        est,
        draws=draws,
        chains=chains,
        random_seed=random_seed,
        var_names=var_names,
        features=features,
        max_bytes=max_bytes,
    )
    feat = _check_features(est, features)
    return to_datatree(
        est,
        values,
        estimate="posterior",
        inference="bayesnb exact conjugate",
        features=feat,
        **_extra_layout(est, _kind(est), feat),
    )


# -- closed-form summaries ---------------------------------------------------------------------
def _beta_summary(a: np.ndarray, b: np.ndarray, ci_prob: float) -> np.ndarray:
    """mean, sd, lower and upper equal-tailed bounds of Beta(a, b), stacked on a new axis 0.

    ``a = 0`` (a class the Haldane prior never saw) is the point mass at 0.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape)
    s = a + b
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = a / s
        sd = np.sqrt(a * b / (s * s * (s + 1.0)))
        tail = (1.0 - ci_prob) / 2.0
        lo = beta_dist.ppf(tail, a, b)
        hi = beta_dist.ppf(1.0 - tail, a, b)
    out = np.stack([mean, sd, lo, hi])
    point = (a == 0) | (b == 0)
    if point.any():
        at = np.where(a == 0, 0.0, 1.0)
        out[:, point] = np.stack([at, np.zeros_like(at), at, at])[:, point]
    return out


def posterior_summary(est, ci_prob: float = 0.89, features=None) -> xr.Dataset:
    """Closed-form posterior mean, sd and equal-tailed interval of every parameter.

    Every parameter has a Beta marginal (Bernoulli φ directly; each component of a Dirichlet
    is Beta(a_k, A − a_k)), so no draws are needed: use this for vocabularies too large to
    sample. Layout and labels follow ``az.summary(..., fmt="xarray")``.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB or CategoricalNB
    ci_prob : float, default 0.89
        Probability inside the interval (0 < ci_prob < 1); the interval bounds are
        ``scipy.stats.beta.ppf((1 ∓ ci_prob) / 2, a, b)``.
    features : array-like of int or of feature names, optional

    Returns
    -------
    xarray.Dataset
        ``class_prior (summary, class)`` and ``feature_prob (summary, class, feature[, value])``
        with ``summary`` = ``["mean", "sd", "eti{P}_lb", "eti{P}_ub"]``, P = int(100 ci_prob).
        A fixed class prior has sd 0.
    """
    kind = _kind(est)
    check_fitted(est)
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
        cls = _beta_summary(conc, conc.sum() - conc, ci_prob)
    post = est.posterior_
    if kind == "bernoulli":
        a, b = post.a, post.b
        if feat is not None:
            a, b = a[:, feat], b[:, feat]
        fp = _beta_summary(a, b, ci_prob)
        fdims = ["class", "feature"]
    elif kind == "multinomial":
        conc = post.concentration
        cat, _ = _multinomial_columns(est)
        cols = cat if feat is None else cat[feat]
        total = conc.sum(axis=1, keepdims=True)
        fp = _beta_summary(conc[:, cols], (total - conc)[:, cols], ci_prob)
        fdims = ["class", "feature"]
    else:
        keep, _, width = _categorical_layout(est, feat)
        conc = post.concentration
        b = post.segment_sum(conc) - conc
        segs = _category_slots(est, keep)
        fp = _pad_categories([_beta_summary(conc[:, s], b[:, s], ci_prob) for s in segs], width)
        fdims = ["class", "feature", "value"]
    perc = int(ci_prob * 100)
    coords = layout_coords(est, feat)
    out_coords = {
        "summary": ["mean", "sd", f"eti{perc}_lb", f"eti{perc}_ub"],
        "class": coords["class"],
        "feature": coords["feature"],
    }
    if kind == "categorical":
        out_coords["value"] = list(range(fp.shape[-1]))
    return xr.Dataset(
        {
            "class_prior": (("summary", "class"), cls),
            "feature_prob": (("summary", *fdims), fp),
        },
        coords=out_coords,
        attrs=layout_attrs(est, estimate="posterior", inference="bayesnb closed form"),
    )
