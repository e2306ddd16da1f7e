"""Draws: the conjugate posterior -> point estimates, exact draws and closed-form summaries.

All three produce the DESIGN.md §3 layout (:func:`bayesnb.datatree.to_datatree`): group
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
"""

from __future__ import annotations

import copy
from numbers import Integral

import numpy as np
import xarray as xr
from scipy.stats import beta as beta_dist
from scipy.stats import gamma as gamma_dist
from scipy.stats import invgamma
from scipy.stats import t as student_t

from bayesnb._base import model_kind
from bayesnb.datatree import DIMS, layout_attrs, layout_coords, to_datatree
from bayesnb.validation import ESTIMATES, check_class_prior, check_fitted

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

VAR_NAMES = ("class_prior", "feature_prob")
GDA_VAR_NAMES = ("class_prior", "mean", "cov")
POISSON_VAR_NAMES = ("class_prior", "feature_rate")
DCM_VAR_NAMES = ("class_prior", "concentration", "feature_prob")


# -- dispatch (the one place per module that knows the estimator types) ----------------------
def _kind(est) -> str:
    return model_kind(est, "bayesnb.draws")


# -- argument checks ---------------------------------------------------------------------------
def _check_var_names(var_names, kind: str) -> list[str]:
    known = GDA_VAR_NAMES if kind == "gda" else VAR_NAMES
    if kind == "poisson":
        known = POISSON_VAR_NAMES
    if kind == "dcm":
        known = DCM_VAR_NAMES
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


def _covariance_type(est) -> str:
    """``"shared"``, ``"per_class"`` or ``"diagonal"``: what the fitted statistics hold."""
    return est._stats.covariance


def _cov_matrix(cov: np.ndarray, covariance: str, features) -> np.ndarray:
    """A GDA covariance estimate in the layout: diagonal variances (K, d) become (K, d, d)
    matrices with zeros off the diagonal; ``features`` keeps a principal sub-block."""
    if covariance == "diagonal":
        var = cov if features is None else cov[:, features]
        out = np.zeros((*var.shape, var.shape[-1]))
        j = np.arange(var.shape[-1])
        out[..., j, j] = var
        return out
    if features is None:
        return cov
    return cov[..., features[:, None], features[None, :]]


def _extra_layout(est, kind: str, features) -> dict:
    if kind == "gda":
        if _covariance_type(est) == "shared":
            return {"dims": {"cov": ["feature", "feature_bis"]}}
        return {}
    if kind != "categorical":
        return {}
    _, _, width = _categorical_layout(est, features)
    return {
        "dims": {"feature_prob": ["class", "feature", "value"]},
        "coords": {"value": list(range(width))},
    }


# -- point estimates ---------------------------------------------------------------------------
def point_estimate(est, estimate: str, var_names=None, features=None) -> xr.DataTree:
    """A point estimate of the model's parameters as a 1 × 1 DataTree.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB or GDA
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
    kind = _kind(est)
    check_fitted(est)
    if kind == "columnwise":
        return _columnwise_point_estimate(est, estimate, var_names, features)
    if not isinstance(estimate, str) or estimate not in ESTIMATES:
        raise ValueError(f"estimate must be one of {ESTIMATES}, got {estimate!r}")
    if estimate == "bayes" and kind == "multinomial":
        raise ValueError(
            "estimate='bayes' is not a point for MultinomialNB: it is the Dirichlet-multinomial "
            "predictive of whole documents (parameters integrated out). Use 'mean' for the "
            "posterior mean, or sample_posterior() for the posterior itself."
        )
    if estimate == "bayes" and kind == "poisson":
        raise ValueError(
            "estimate='bayes' is not a point for PoissonNB: it is the negative-binomial "
            "predictive of every count (rates integrated out), which no Poisson rate "
            "reproduces. Use 'mean' for the posterior mean, or sample_posterior() for the "
            "posterior itself."
        )
    if estimate == "bayes" and kind == "gda":
        raise ValueError(
            "estimate='bayes' is not a point for GDA: it is the multivariate Student-t "
            "predictive (μ_c and Σ integrated out), which no single Gaussian reproduces. Use "
            "'mean' for the posterior means of μ_c and Σ, or sample_posterior() for the "
            "posterior itself."
        )
    names = _check_var_names(var_names, kind)
    feat = _check_features(est, features)
    view = _with_estimate(est, estimate)
    values: dict[str, np.ndarray] = {}
    if "class_prior" in names:
        values["class_prior"] = np.exp(view.class_log_prior_)
    if "mean" in names:
        means = view.means_
        values["mean"] = means if feat is None else means[:, feat]
    if "cov" in names:
        values["cov"] = _cov_matrix(view.covariance_, _covariance_type(est), feat)
    if "feature_rate" in names:
        rates = view.posterior_.estimate(estimate)
        values["feature_rate"] = rates if feat is None else rates[:, feat]
    if "concentration" in names:  # DirichletCompoundNB's β (refuses "bayes" itself)
        beta = view.concentration_
        values["concentration"] = beta if feat is None else beta[:, feat]
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


def _gamma_draws(est, rng, shape, features) -> np.ndarray:
    """Poisson rates λ_cj ~ Gamma(α + S_cj, β + N_c): standard Gamma variates over the rate."""
    post = est.posterior_
    a, rate = post.shape, post.rate
    if features is not None:
        a, rate = a[:, features], rate[:, features]
    g = rng.standard_gamma(a, size=(*shape, *a.shape))
    g /= rate
    return g


def _feature_cells(est, kind: str, features) -> int:
    n_classes = est.class_count_.shape[0]
    if kind == "categorical":
        keep, _, width = _categorical_layout(est, features)
        return n_classes * keep.size * width
    n = est.n_features_in_ if features is None else features.size
    # A multinomial subset also draws the aggregated 'rest' category.
    return n_classes * (n + (kind == "multinomial" and features is not None))


def _gda_cells(est, names: list[str], features) -> int:
    """Cells of ``mean`` and ``cov`` per draw (Σ is drawn whenever either is asked for)."""
    if "mean" not in names and "cov" not in names:
        return 0
    n_classes = est.class_count_.shape[0]
    n = est.n_features_in_ if features is None else features.size
    n_cov = n * n if _covariance_type(est) == "shared" else n_classes * n * n
    return n_classes * n + n_cov


def inverse_wishart_draws(
    rng: np.random.Generator, psi: np.ndarray, nu, shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Exact draws of Σ ~ IW(psi, nu) by the Bartlett decomposition, batched in numpy.

    With ``psi = L Lᵀ`` (Cholesky) and ``A`` lower triangular, ``A_ii² ~ χ²(ν − i)``
    (i = 0 .. d−1) and ``A_ij ~ N(0, 1)`` below the diagonal, ``A Aᵀ ~ W(I, ν)`` (Bartlett);
    its inverse is ``IW(I, ν)``, and ``L (A Aᵀ)⁻¹ Lᵀ ~ IW(L Lᵀ, ν)``. So ``Σ = T Tᵀ`` with
    ``T = L A⁻ᵀ``. Only the d × d triangular ``A`` of every draw is inverted; ``psi`` is
    factorised once. ν need not be an integer (χ² variates are Gamma variates).

    The density is ``∝ |Σ|^{-(ν+d+1)/2} exp(−tr(ψ Σ⁻¹)/2)``, mean ``psi / (ν − d − 1)``.

    Parameters
    ----------
    rng : numpy.random.Generator
    psi : ndarray of shape ``batch + (d, d)``
        Symmetric positive definite scale matrices (``batch`` = () or (n_classes,)).
    nu : float or ndarray of shape batch
        Degrees of freedom, > d − 1.
    shape : tuple of int
        Leading sample shape, e.g. (chains, draws).

    Returns
    -------
    sigma : ndarray of shape ``shape + batch + (d, d)``
        The draws, exactly symmetric.
    root : ndarray of the same shape
        ``T`` with ``T Tᵀ = Σ`` (not triangular), to draw ``μ | Σ ~ N(m, Σ/κ)`` as
        ``m + T z / √κ``.

    Notes
    -----
    Peak memory is about three arrays of the size of ``sigma`` (``A``, its inverse, ``T``).
    """
    d = psi.shape[-1]
    batch = psi.shape[:-2]
    try:
        L = np.linalg.cholesky(psi)
    except np.linalg.LinAlgError:
        raise ValueError(
            "psi must be symmetric positive definite: its Cholesky factorisation fails"
        ) from None
    df = np.asarray(nu, dtype=np.float64)[..., None] - np.arange(d)
    if np.any(df <= 0):
        raise ValueError(f"nu must be > d - 1 = {d - 1} for an inverse Wishart, got {nu!r}")
    A = np.zeros((*shape, *batch, d, d))
    rows, cols = np.tril_indices(d, -1)
    A[..., rows, cols] = rng.standard_normal((*shape, *batch, rows.size))
    diag = np.arange(d)
    A[..., diag, diag] = np.sqrt(2.0 * rng.standard_gamma(df / 2.0, size=(*shape, *batch, d)))
    root = L @ np.swapaxes(np.linalg.inv(A), -1, -2)
    del A
    sigma = root @ np.swapaxes(root, -1, -2)
    sigma += np.swapaxes(sigma, -1, -2)
    sigma *= 0.5
    return sigma, root


def _gda_draws(
    est,
    cov_rng: np.random.Generator,
    mean_rng: np.random.Generator,
    shape: tuple[int, int],
    names: list[str],
    features,
) -> dict[str, np.ndarray]:
    """Exact Normal-Inverse-Wishart draws of (μ_c, Σ) for the GDA layout.

    Σ comes from ``cov_rng`` and the standard normals of μ from ``mean_rng``, so asking for
    ``mean`` alone gives the same values as asking for both. A column subset S draws the
    marginal posterior of (μ_{c,S}, Σ_SS) directly: the principal sub-block of
    Σ ~ IW_d(Ψ, ν) is IW_s(Ψ_SS, ν − d + s), and μ_{c,S} | Σ ~ N(μ_{c,S}, Σ_SS/κ_c) involves
    only that block, so (μ_S, Σ_SS) is again Normal-Inverse-Wishart.
    """
    out: dict[str, np.ndarray] = {}
    if "mean" not in names and "cov" not in names:
        return out
    post = est.posterior_
    covariance = post.covariance_type
    d = post.stats.n_features
    feat = np.arange(d) if features is None else features
    s = feat.size
    mu = post.mu[:, feat]
    kappa = post.kappa
    nu, psi = post.nu, post.psi
    n_classes = mu.shape[0]
    want_mean = "mean" in names
    # Standard normals of μ (their own stream: skipping them leaves Σ unchanged).
    z = mean_rng.standard_normal((*shape, n_classes, s)) if want_mean else None
    if covariance == "diagonal":
        # Normal-Inverse-Gamma per (class, feature): σ² ~ IG((ν_c − d + 1)/2, Ψ_c,jj/2).
        a = np.broadcast_to(((nu - d + 1.0) / 2.0)[:, None], (n_classes, s))
        var = (psi[:, feat] / 2.0) / cov_rng.standard_gamma(a, size=(*shape, n_classes, s))
        if want_mean:
            z *= np.sqrt(var / kappa[:, None])
        if "cov" in names:
            cov = np.zeros((*shape, n_classes, s, s))
            cov[..., np.arange(s), np.arange(s)] = var
            out["cov"] = cov
    else:
        block = psi[..., feat[:, None], feat[None, :]]
        sigma, root = inverse_wishart_draws(cov_rng, block, nu - d + s, shape)
        if want_mean:
            if covariance == "shared":
                root = root[..., None, :, :]  # one Σ for every class
            z = (root @ z[..., None])[..., 0] / np.sqrt(kappa)[:, None]
        del root
        if "cov" in names:
            out["cov"] = sigma
    if want_mean:
        z += mu
        out = {"mean": z, **out}  # the order of GDA_VAR_NAMES: mean, then cov
    return out


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
    if kind == "columnwise":
        return _columnwise_draws(est, draws, chains, random_seed, var_names, features, max_bytes)
    chains = _check_positive_int(chains, "chains")
    names = _check_var_names(var_names, kind)
    feat = _check_features(est, features)
    if kind == "gda":
        what, cells = "mean and cov", _gda_cells(est, names, feat)
        formula = "classes × columns + [classes ×] columns²"
    else:
        what = "feature_rate" if kind == "poisson" else "feature_prob"
        cells = _feature_cells(est, kind, feat) if what in names else 0
        if kind == "dcm":  # β drawn over every column (B needs them), plus β / B
            what, cells = "concentration and feature_prob", 2 * _feature_cells(est, kind, None)
        formula = "classes × columns"
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
        values["class_prior"] = _class_draws(est, class_rng, shape)
    if kind == "gda":
        values |= _gda_draws(est, feature_rng, mean_rng, shape, names, feat)
    elif kind == "dcm":
        values |= _dcm_draws(est, feature_rng, shape, names, feat)
    elif kind == "poisson":
        if "feature_rate" in names:
            values["feature_rate"] = _gamma_draws(est, feature_rng, shape, feat)
    elif "feature_prob" in names:
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
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB or GDA
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
    if _kind(est) == "columnwise":
        return _columnwise_sample_posterior(
            est, draws, chains, random_seed, var_names, features, max_bytes
        )
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


def _gamma_summary(a: np.ndarray, rate: np.ndarray, ci_prob: float) -> np.ndarray:
    """mean, sd, lower and upper equal-tailed bounds of Gamma(shape a, rate), on a new axis 0."""
    tail = (1.0 - ci_prob) / 2.0
    scale = 1.0 / rate
    return np.stack(
        [
            a * scale,
            np.sqrt(a) * scale,
            gamma_dist.ppf(tail, a, scale=scale),
            gamma_dist.ppf(1.0 - tail, a, scale=scale),
        ]
    )


def _gda_summary(est, ci_prob: float, features) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """Closed-form summaries of μ_c and Σ, each stacked as (mean, sd, lower, upper) on axis 0.

    - μ_cj: Student-t with ν' = ν_c − d + 1 degrees of freedom, location μ_cj and squared
      scale Ψ_c,jj / (κ_c ν') (the marginal of the multivariate t of μ_c; for the diagonal
      model the Normal-Inverse-Gamma marginal, the same formula). Mean needs ν' > 1, sd
      ``sqrt(Ψ_jj / (κ_c (ν − d − 1)))`` needs ν' > 2.
    - Σ_jj: InvGamma((ν − d + 1)/2, Ψ_jj/2), the 1 × 1 marginal of the inverse Wishart.
    - Σ_ij (i ≠ j): mean Ψ_ij / (ν − d − 1) and variance
      ``((ν−d+1) Ψ_ij² + (ν−d−1) Ψ_ii Ψ_jj) / ((ν−d)(ν−d−1)²(ν−d−3))``; an off-diagonal entry
      of an inverse Wishart has no closed-form quantiles, so its bounds are NaN. The diagonal
      model's off-diagonal entries are exactly 0 (mean, sd and bounds 0).

    Every quantity depends on ν and d only through ν − d, the same for any column subset
    (the sub-block of an inverse Wishart keeps ν − d), so ``features`` just selects. A moment
    that does not exist (too few degrees of freedom) is NaN.
    """
    post = est.posterior_
    covariance = post.covariance_type
    d = post.stats.n_features
    feat = np.arange(d) if features is None else features
    s = feat.size
    n_classes = post.stats.n_classes
    excess = np.broadcast_to(post.nu - d, (n_classes,)).astype(np.float64)  # ν − d per class
    psi = post.psi
    if covariance == "diagonal":
        psi_diag = psi[:, feat]
    elif covariance == "shared":
        psi_diag = np.broadcast_to(np.diagonal(psi)[feat], (n_classes, s))
    else:
        psi_diag = np.diagonal(psi, axis1=1, axis2=2)[:, feat]
    tail = (1.0 - ci_prob) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        # μ_cj: Student-t marginals.
        dof = (excess + 1.0)[:, None]
        scale = np.sqrt(psi_diag / (post.kappa[:, None] * dof))
        loc = post.mu[:, feat]
        mean_mu = np.where(dof > 1, loc, np.nan)
        sd_mu = np.where(dof > 2, np.sqrt(psi_diag / (post.kappa[:, None] * (dof - 2.0))), np.nan)
        lo_mu = student_t.ppf(tail, dof, loc, scale)
        hi_mu = student_t.ppf(1.0 - tail, dof, loc, scale)
        mean_stats = np.stack([mean_mu, sd_mu, lo_mu, hi_mu])
        # Σ_jj: inverse-gamma marginals; Σ_ij: moments only.
        m = excess[:, None, None] if covariance != "shared" else excess[0]
        if covariance == "diagonal":
            block = np.zeros((n_classes, s, s))
            block[:, np.arange(s), np.arange(s)] = psi_diag
        else:
            block = psi[..., feat[:, None], feat[None, :]]
        pdiag = np.diagonal(block, axis1=-2, axis2=-1)
        cov_mean = np.where(m > 1, block / (m - 1.0), np.nan)
        outer = pdiag[..., :, None] * pdiag[..., None, :]
        cov_var = ((m + 1.0) * block**2 + (m - 1.0) * outer) / (m * (m - 1.0) ** 2 * (m - 3.0))
        cov_sd = np.where(m > 3, np.sqrt(cov_var), np.nan)
        # Shape of every Σ_jj: (ν − d + 1)/2, a scalar (shared) or one per class.
        a = (m + 1.0) / 2.0 if covariance == "shared" else (excess[:, None] + 1.0) / 2.0
        lo_cov = np.full(block.shape, np.nan)
        hi_cov = np.full(block.shape, np.nan)
        j = np.arange(s)
        lo_cov[..., j, j] = invgamma.ppf(tail, a, scale=pdiag / 2.0)
        hi_cov[..., j, j] = invgamma.ppf(1.0 - tail, a, scale=pdiag / 2.0)
    cov_stats = np.stack([cov_mean, cov_sd, lo_cov, hi_cov])
    if covariance == "diagonal":
        off = ~np.eye(s, dtype=bool)
        cov_stats[..., off] = 0.0
    cov_dims = ("feature", "feature_bis") if covariance == "shared" else DIMS["cov"]
    return {
        "mean": (("summary", "class", "feature"), mean_stats),
        "cov": (("summary", *cov_dims), cov_stats),
    }


def posterior_summary(est, ci_prob: float = 0.89, features=None) -> xr.Dataset:
    """Closed-form posterior mean, sd and equal-tailed interval of every parameter.

    Naive Bayes: every parameter has a Beta marginal (Bernoulli φ directly; each component of
    a Dirichlet is Beta(a_k, A − a_k)), so no draws are needed: use this for vocabularies too
    large to sample; a Poisson rate λ_cj has its Gamma(α + S_cj, β + N_c) posterior as
    marginal (variable ``feature_rate``). GDA: μ_cj has a Student-t marginal, Σ_jj an
    inverse-gamma one, and the off-diagonal Σ_ij have closed-form mean and sd but no
    closed-form quantiles (their bounds are NaN); see :func:`_gda_summary`. Layout and labels
    follow ``az.summary(..., fmt="xarray")``.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB or GDA
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
    kind = _kind(est)
    check_fitted(est)
    if kind == "columnwise":
        raise TypeError(
            "posterior_summary summarises one model's parameters in one Dataset; for a "
            "ColumnwiseNB summarise each block, posterior_summary(est.named_estimators_[name]) "
            "(the class prior is the blocks' own)"
        )
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
    variables = {"class_prior": (("summary", "class"), cls)}
    perc = round(ci_prob * 100)  # int() would turn 0.29 into 28
    coords = layout_coords(est, feat)
    out_coords = {
        "summary": ["mean", "sd", f"eti{perc}_lb", f"eti{perc}_ub"],
        "class": coords["class"],
        "feature": coords["feature"],
    }
    if kind == "gda":
        variables |= _gda_summary(est, ci_prob, feat)
        out_coords["feature_bis"] = coords["feature_bis"]
    elif kind == "dcm":
        variables |= _dcm_summary(est, ci_prob, feat)
    else:
        post = est.posterior_
        if kind in ("bernoulli", "poisson"):
            # Independent Beta(a, b) or Gamma(shape, rate) cells: summarised in closed form.
            if kind == "bernoulli":
                a, b, summary = post.a, post.b, _beta_summary
            else:
                a, b, summary = post.shape, post.rate, _gamma_summary
            if feat is not None:
                a, b = a[:, feat], b[:, feat]
            fp = summary(a, b, ci_prob)
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
            out_coords["value"] = list(range(fp.shape[-1]))
        fname = "feature_rate" if kind == "poisson" else "feature_prob"
        variables[fname] = (("summary", *fdims), fp)
    return xr.Dataset(
        variables,
        coords=out_coords,
        attrs=layout_attrs(est, estimate="posterior", inference="bayesnb closed form"),
    )


# -- DirichletCompoundNB: the Laplace approximation (approximate, not exact draws) -------------
def _dcm_draws(est, rng, shape, names, features) -> dict[str, np.ndarray]:
    """β_c from the Laplace approximation of p(ln β_c | data), and β_c / B_c.

    Approximate: the DCM's Gamma prior is not conjugate, so these are draws from the Gaussian
    approximation of the posterior of ln β at its mode (:class:`bayesnb.posterior.polya.
    LaplacePosterior`), not from the posterior itself (``fit_pymc`` samples that with NUTS).
    A feature subset still needs every column for B_c when ``feature_prob`` is asked for.
    """
    lap = est.laplace_
    out: dict[str, np.ndarray] = {}
    if "feature_prob" in names:
        beta = lap.draws(rng, shape)
        prob = beta / beta.sum(axis=-1, keepdims=True)
        if "concentration" in names:
            out["concentration"] = beta if features is None else beta[..., features]
        out["feature_prob"] = prob if features is None else prob[..., features]
    elif "concentration" in names:
        out["concentration"] = lap.draws(rng, shape, features)
    return out


def _dcm_summary(est, ci_prob: float, features) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """Log-normal marginals of β_cj under the Laplace approximation (approximate).

    ``feature_prob = β / B`` has no closed-form marginal under it and is left out (draw it
    with ``sample_posterior``).
    """
    lap = est.laplace_
    lo, hi = lap.interval(ci_prob)
    stats = np.stack([lap.mean(), lap.sd(), lo, hi])
    if features is not None:
        stats = stats[:, :, features]
    return {"concentration": (("summary", "class", "feature"), stats)}


# -- ColumnwiseNB: the shared class prior plus one child tree per block ------------------------
def _columnwise_names(var_names) -> list[str] | None:
    if var_names is None:
        return None
    names = [var_names] if isinstance(var_names, str) else list(var_names)
    if not names:
        raise ValueError("var_names must name at least one variable, got an empty list")
    return names


def _columnwise_blocks(est, features) -> list:
    if features is not None:
        raise ValueError(
            "features= selects columns of one model; for a ColumnwiseNB select them per block, "
            "e.g. est.named_estimators_[name].sample_posterior(features=...)"
        )
    return est._blocks()


def _block_seeds(est, random_seed, n_blocks: int) -> list:
    """One stream for the class prior and one per block: a block's values do not depend on
    which other blocks or variables are drawn."""
    return np.random.default_rng(random_seed).spawn(1 + n_blocks)


def _compose_tree(root: xr.DataTree, trees: dict[str, xr.DataTree], names) -> xr.DataTree:
    """``root`` (the class prior) with one child per block tree, without the blocks' own
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
            raise ValueError(f"var_names {unknown} are variables of no block of this ColumnwiseNB")
        if "class_prior" not in names:
            root = root.copy()
            del root["posterior"]
    return root


def _block_error(name: str, exc: Exception) -> Exception:
    return type(exc)(f"block {name!r}: {exc}")


def _columnwise_point_estimate(est, estimate, var_names, features) -> xr.DataTree:
    """Point estimate of a ColumnwiseNB: ``posterior/class_prior`` at the root and each
    block's own point-estimate tree (without its class prior) as the child ``name``."""
    if not isinstance(estimate, str) or estimate not in ESTIMATES:
        raise ValueError(f"estimate must be one of {ESTIMATES}, got {estimate!r}")
    names = _columnwise_names(var_names)
    blocks = _columnwise_blocks(est, features)
    view = _with_estimate(est, estimate)
    root = to_datatree(
        est,
        {"class_prior": np.exp(view.class_log_prior_)[None, None]},
        estimate=estimate,
        inference="bayesnb point estimate",
    )
    trees = {}
    for name, block, _ in blocks:
        try:
            trees[name] = point_estimate(block, estimate)
        except ValueError as exc:
            raise _block_error(name, exc) from exc
    return _compose_tree(root, trees, names)


def _columnwise_draws(est, draws, chains, random_seed, var_names, features, max_bytes) -> dict:
    """posterior_draws of a ColumnwiseNB: ``class_prior`` and ``"{block}/{var}"`` arrays."""
    chains = _check_positive_int(chains, "chains")
    names = _columnwise_names(var_names)
    blocks = _columnwise_blocks(est, features)
    seeds = _block_seeds(est, random_seed, len(blocks))
    values: dict[str, np.ndarray] = {}
    if names is None or "class_prior" in names:
        values["class_prior"] = _class_draws(est, seeds[0], (chains, draws))
    for (name, block, _), seed in zip(blocks, seeds[1:], strict=True):
        part = posterior_draws(
            block, draws=draws, chains=chains, random_seed=seed, max_bytes=max_bytes
        )
        for var, arr in part.items():
            if var != "class_prior" and (names is None or var in names):
                values[f"{name}/{var}"] = arr
    return values


def _columnwise_sample_posterior(
    est, draws, chains, random_seed, var_names, features, max_bytes
) -> xr.DataTree:
    """Exact draws of a ColumnwiseNB: the one class prior at the root, each block's exact
    draws (its own layout, the same values as :func:`_columnwise_draws`) as a child."""
    draws = _check_positive_int(draws, "draws")
    chains = _check_positive_int(chains, "chains")
    names = _columnwise_names(var_names)
    blocks = _columnwise_blocks(est, features)
    seeds = _block_seeds(est, random_seed, len(blocks))
    root = to_datatree(
        est,
        {"class_prior": _class_draws(est, seeds[0], (chains, draws))},
        estimate="posterior",
        inference="bayesnb exact conjugate",
    )
    trees = {
        name: sample_posterior(
            block, draws=draws, chains=chains, random_seed=seed, max_bytes=max_bytes
        )
        for (name, block, _), seed in zip(blocks, seeds[1:], strict=True)
    }
    return _compose_tree(root, trees, names)
