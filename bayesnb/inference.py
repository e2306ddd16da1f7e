"""Inference: the PyMC declaration -> NUTS -> the bayesnb DataTree layout.

The NUTS arrow of the pipe (docs/design.md, "Architecture"). :func:`fit_pymc` samples the model of
:func:`bayesnb.pymc_models.declare` and returns the same layout as the exact conjugate draws
(``posterior`` with ``class_prior`` and ``feature_prob``, or ``class_prior``, ``mean`` and
``cov`` for GDA; auxiliary variables such as GDA's Bartlett factors are dropped), so the two
can be compared directly. The per-document label log-likelihood for LOO is computed from the
draws by :mod:`bayesnb.loo`, the code that scores the exact draws.

Sampler: nutpie when it imports, called directly so that compiled models can be re-used;
otherwise (or with ``nuts_sampler="pymc"``) PyMC's own NUTS through ``pm.sample``.

Compiled-model cache: compiling the logp and gradient with numba costs seconds while sampling
a small model costs a fraction of a second. Every observation and prior hyperparameter of the
declared models is a ``pm.Data``, so a compiled nutpie model is keyed by (model type,
likelihood, prior structure, data shapes) and refitted with ``compiled.with_data(...)``:
repeated fits of the same shape (new documents with the ``"sufficient"`` likelihood, other
prior values, simulation-based calibration) skip compilation. With the ``"sufficient"``
likelihood the shapes do not depend on the number of documents; with ``"data"`` they do.
Across processes the compiled callbacks come from the disk cache of :mod:`bayesnb.compiled`.
"""

from __future__ import annotations

import os
import time
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np
import xarray as xr

from bayesnb.datatree import to_datatree
from bayesnb.families import family_of
from bayesnb.pymc_models import ModelSpec, check_likelihood, model_spec
from bayesnb.pymc_models.unlabelled import layout_estimator, unlabelled_attrs
from bayesnb.validation import check_int

__all__ = ["SamplingWarning", "clear_cache", "fit_pymc"]

RHAT_MAX = 1.01
_CACHE_SIZE = 32
_CACHE: OrderedDict[tuple, Any] = OrderedDict()


class SamplingWarning(UserWarning):
    """NUTS reported divergent transitions or R-hat above 1.01: the draws may be biased."""


def clear_cache() -> None:
    """Forget the compiled nutpie models of this process (the disk cache of
    :mod:`bayesnb.compiled` stays: the next fit of a shape loads from it)."""
    _CACHE.clear()


def _choose_sampler(nuts_sampler: str | None) -> str:
    if nuts_sampler not in (None, "nutpie", "pymc"):
        raise ValueError(f"nuts_sampler must be None, 'nutpie' or 'pymc', got {nuts_sampler!r}")
    if nuts_sampler == "pymc":
        return "pymc"
    try:
        import nutpie  # noqa: F401
    except ImportError:
        if nuts_sampler == "nutpie":
            raise
        return "pymc"
    return "nutpie"


def _seed(random_seed) -> int | None:
    """An integer seed for nutpie (which takes ints only) from None / int / Generator."""
    if random_seed is None:
        return None
    if isinstance(random_seed, np.random.Generator):
        return int(random_seed.integers(2**63 - 1))
    return int(np.random.default_rng(random_seed).integers(2**63 - 1))


def _compiled(spec: ModelSpec):
    """The cached nutpie model of ``spec``'s key, compiled on a miss, loaded with its data."""
    from bayesnb.compiled import compile_model

    key = spec.key
    compiled = _CACHE.get(key)
    if compiled is None:
        compiled = compile_model(spec.model(), var_names=spec.sampled)
        _CACHE[key] = compiled
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return compiled.with_data(**spec.data)


def _sample_nutpie(spec, draws, tune, chains, cores, seed, progressbar, kwargs) -> tuple:
    import nutpie

    if "max_treedepth" in kwargs:  # PyMC's name for nutpie's maxdepth
        kwargs["maxdepth"] = kwargs.pop("max_treedepth")
    compiled = _compiled(spec)
    start = time.perf_counter()
    trace = nutpie.sample(
        compiled,
        draws=draws,
        tune=tune,
        chains=chains,
        cores=cores,
        seed=_seed(seed),
        progress_bar=progressbar,
        save_warmup=False,
        **kwargs,
    )
    return trace, time.perf_counter() - start


def _sample_pymc(spec, draws, tune, chains, cores, seed, progressbar, kwargs) -> tuple:
    import pymc as pm

    from bayesnb.compiled import exact_math

    with spec.model(), exact_math():
        start = time.perf_counter()
        trace = pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            cores=cores,
            random_seed=seed,
            progressbar=progressbar,
            nuts_sampler="pymc",
            var_names=spec.sampled,
            compute_convergence_checks=False,
            **kwargs,
        )
    # PyMC times the sampling itself (without compilation), as nutpie's timing above does
    return trace, float(trace.posterior.attrs.get("sampling_time", time.perf_counter() - start))


def fit_pymc(
    est,
    X,
    y,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    random_seed=None,
    likelihood: str = "sufficient",
    log_likelihood: bool = False,
    progressbar: bool = True,
    *,
    alpha_prior=None,
    sample_weight=None,
    nuts_sampler: str | None = None,
    cores: int | None = None,
    max_bytes: float = 2e9,
    auxiliary: bool = False,
    **sample_kwargs,
) -> xr.DataTree:
    """Sample the PyMC declaration of ``est`` on ``(X, y)`` with NUTS.

    Parameters
    ----------
    est : BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB, GDA, ... or SemiSupervisedNB
        Fitted on ``(X, y)`` first when unfitted (see :func:`bayesnb.pymc_models.declare`).
        A :class:`~bayesnb.SemiSupervisedNB` samples the posterior of its labelled and
        unlabelled documents, each unlabelled label summed out and its document weighted by
        ``unlabelled_weight`` λ (:mod:`bayesnb.pymc_models.unlabelled`): the yardstick of its
        EM and variational fits. The layout is its estimator's (``feature_prob``,
        ``class_prior``, ...), the posterior attrs gain ``n_unlabelled`` and
        ``unlabelled_weight``, and ``log_likelihood`` scores the labelled documents.
    X, y : documents and labels (a SemiSupervisedNB's unlabelled rows marked ``-1``, ``""``
        or None: :func:`bayesnb.semisupervised.unlabelled_mask`)
    draws, tune, chains : int
        Draws kept per chain (>= 1), tuning steps per chain (>= 0) and chains (>= 1).
    random_seed : int, numpy Generator or None
        Seeds every chain; the same seed gives the same draws.
    likelihood : {"sufficient", "data"}, default "sufficient"
        The likelihood form; both have the same posterior, ``"sufficient"`` costs the same for
        any number of documents.
    log_likelihood : bool, default False
        Add a ``log_likelihood`` group with one variable ``y`` (dims ``chain, draw, doc``):
        log p(y_i | x_i, θ) = log π_{y_i} + log p(x_i | y_i, θ) - logsumexp_c(log π_c +
        log p(x_i | c, θ)), the conditional log-likelihood of each training label given its
        document, computed from the draws with numpy by the scoring code of
        :mod:`bayesnb.loo` (for ``az.loo``).
    progressbar : bool, default True
        Show the sampler's progress.
    alpha_prior : dict, optional
        Learn the symmetric α with a Gamma hyperprior instead of fixing it: keys ``alpha``
        (shape, default 2), ``beta`` (rate, default 1) and ``per_class`` (default False: one
        α for every class; True: one α per class), so ``alpha_prior={}`` is α ~ Gamma(2, 1)
        (see :func:`bayesnb.pymc_models.declare`); the posterior gains ``alpha`` (scalar, or
        dims ``class``). The hyperprior's values are data of the compiled model: a new value
        does not recompile. Naive Bayes models only.
    sample_weight : array-like, optional
        Integer repeat counts only (a SemiSupervisedNB's unlabelled rows: any weights >= 0).
    nuts_sampler : {None, "nutpie", "pymc"}
        None: nutpie when it imports, else PyMC's NUTS.
    cores : int, optional
        Chains run in parallel; default ``min(chains, cpu count)``.
    max_bytes : float, default 2e9
        Refuse, before the model is compiled, when the kept draws would exceed it: chains ×
        draws × parameter cells × 8 bytes (the posterior variables of the layout), plus
        chains × draws × documents × 8 for the ``log_likelihood`` group when requested.
    auxiliary : bool, default False
        Also keep the free variables of the parametrisation that are not in the layout (the
        log-Gamma variates ``*_log_gamma`` behind every Dirichlet, DirichletCompoundNB's
        ``concentration_total``, GDA's Bartlett factors), for diagnosing the sampler.
    **sample_kwargs
        Passed to ``nutpie.sample`` or ``pm.sample`` (``target_accept`` works with both;
        ``max_treedepth`` is translated to nutpie's ``maxdepth``).

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` (``class_prior``, ``feature_prob`` (PoissonNB: ``feature_rate``),
        and ``alpha`` when learned;
        GDA ``class_prior``, ``mean``, ``cov``; attrs from
        :func:`bayesnb.datatree.layout_attrs` plus ``likelihood``, ``sampling_time``,
        ``tuning_steps``), ``sample_stats`` (the sampler's own), ``observed_data`` (the
        model's observations: ``y`` codes and ``X`` for the data form, ``class_count`` and
        ``feature_count``/``category_count`` for the sufficient form, GDA ``class_count``,
        ``class_mean`` and ``scatter``),
        ``constant_data`` (the prior's ``pm.Data``, so ``pm.sample_posterior_predictive`` on
        the declared model knows the prior is unchanged) and, on request, ``log_likelihood``.

    Warns
    -----
    SamplingWarning
        One warning when there are divergent transitions or parameters with R-hat > 1.01,
        naming both counts.
    """
    draws = check_int(draws, "draws")
    tune = check_int(tune, "tune", 0)
    chains = check_int(chains, "chains")
    check_likelihood(likelihood)
    sampler = _choose_sampler(nuts_sampler)
    cores = min(chains, os.cpu_count() or 1) if cores is None else check_int(cores, "cores")
    spec = model_spec(est, X, y, likelihood, alpha_prior=alpha_prior, sample_weight=sample_weight)
    est = layout_estimator(est)
    if auxiliary:
        spec = spec.with_auxiliary()
    _check_trace_bytes(spec, draws, chains, log_likelihood, max_bytes)
    run = _sample_nutpie if sampler == "nutpie" else _sample_pymc
    trace, seconds = run(
        spec, draws, tune, chains, cores, random_seed, progressbar, dict(sample_kwargs)
    )
    dt = _to_layout(est, spec, trace, sampler, log_likelihood, _completion_rng(random_seed))
    dt["posterior"].attrs.update(likelihood=likelihood, sampling_time=seconds, tuning_steps=tune)
    dt["posterior"].attrs.update(unlabelled_attrs(spec))
    if spec.alpha_prior is not None:
        dt["posterior"].attrs["alpha_prior"] = (
            f"Gamma({spec.alpha_prior['alpha']}, {spec.alpha_prior['beta']})"
            + (" per class" if spec.alpha_prior["per_class"] else "")
        )
    _warn_diagnostics(dt, spec.var_names, chains)
    return dt


def _check_trace_bytes(
    spec: ModelSpec, draws: int, chains: int, log_likelihood: bool, max_bytes: float
) -> None:
    """Refuse a fit whose kept draws would exceed ``max_bytes`` (before compiling anything)."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int | float) or not max_bytes > 0:
        raise ValueError(f"max_bytes must be a positive number, got {max_bytes!r}")
    sizes = {k: len(v) for k, v in spec.coords.items()}
    cells = sum(
        int(np.prod([sizes[d] for d in spec.dims.get(name, [])], dtype=np.float64))
        for name in spec.var_names
    )
    need = 8.0 * chains * draws * cells
    what = f"{cells} parameter cells"
    if log_likelihood:
        need += 8.0 * chains * draws * len(spec.codes)
        what += f" + the log_likelihood of {len(spec.codes)} documents"
    if need > max_bytes:
        raise ValueError(
            f"fit_pymc would keep {need / 1e9:.3g} GB of draws (chains × draws × {what} × 8 "
            f"bytes), above max_bytes={max_bytes:.3g}. Draw fewer draws/chains, fit on fewer "
            "columns of X (the exact sample_posterior(features=..., var_names=...) draws a "
            "subset without NUTS), leave log_likelihood off, or raise max_bytes."
        )


# -- DataTree --------------------------------------------------------------------------------
def _completion_rng(random_seed) -> np.random.Generator:
    """The generator of a fit's completed draws (``ModelSpec.completion``), seeded apart from
    the sampler's seed (:func:`_seed`)."""
    if isinstance(random_seed, np.random.Generator):
        return random_seed
    return np.random.default_rng(None if random_seed is None else [1, int(random_seed)])


def _to_layout(
    est, spec: ModelSpec, trace, sampler: str, with_log_lik: bool, rng=None
) -> xr.DataTree:
    parts = family_of(est, "bayesnb.inference").pymc_parts(est, spec)
    if parts:
        return _composite_layout(est, spec, parts, trace, sampler, with_log_lik)
    return _single_layout(est, spec, trace, sampler, with_log_lik, rng)


def _single_layout(est, spec: ModelSpec, trace, sampler: str, with_log_lik: bool, rng=None):
    """The layout of one model's draws: ``spec.var_names`` from ``trace`` (those of
    ``spec.completion`` drawn with ``rng`` from the others) and its data."""
    posterior = {name: np.asarray(trace.posterior[name].values) for name in spec.sampled}
    if spec.completion is not None:
        posterior |= spec.completion.draw(posterior, rng)
        posterior = {name: posterior[name] for name in spec.var_names}
    groups: dict[str, dict[str, np.ndarray]] = {
        "observed_data": {name: arr for name, (arr, _) in spec.observed.items()},
        "constant_data": {name: arr for name, (arr, _) in spec.hyperparameters.items()},
    }
    dims = dict(spec.dims) | {name: d for name, (_, d) in spec.observed.items()}
    dims |= {name: d for name, (_, d) in spec.hyperparameters.items() if d is not None}
    coords = {k: v for k, v in spec.coords.items() if k not in ("class",)}
    if with_log_lik:
        groups["log_likelihood"] = {"y": _label_log_likelihood(est, spec, posterior)}
        coords.setdefault("doc", list(range(len(spec.codes))))
        dims["y"] = ["doc"]
    dt = to_datatree(
        est,
        posterior,
        estimate="posterior",
        inference=sampler,
        groups=groups,
        dims=dims,
        coords=coords,
    )
    stats = trace["sample_stats"].to_dataset()
    dt["sample_stats"] = xr.DataTree(
        stats.assign_coords(chain=dt.posterior.chain, draw=dt.posterior.draw)
    )
    return dt


def _posterior_groups(dt: xr.DataTree, var_names: list[str]) -> list[tuple[xr.Dataset, list]]:
    """(posterior Dataset, variables to check): the root's ``var_names``, and every variable
    of a child model's posterior (the blocks of a ColumnwiseNB fit)."""
    post = dt["posterior"].to_dataset()
    out = [(post, [v for v in var_names if v in post.data_vars])]
    for child in dt.children.values():
        if "posterior" in child.children:
            block = child["posterior"].to_dataset()
            out.append((block, list(block.data_vars)))
    return [(p, names) for p, names in out if names]


def _warn_diagnostics(dt: xr.DataTree, var_names: list[str], chains: int) -> None:
    import arviz as az

    n_div = int(dt["sample_stats"]["diverging"].sum())
    n_bad, worst = 0, np.nan
    if chains > 1:
        # Fixed, padding and structural-zero cells (GDA's diagonal cov) have no R-hat: NaN
        # without numpy's 0/0 RuntimeWarning, then dropped.
        parts = []
        for post, names in _posterior_groups(dt, var_names):
            with np.errstate(invalid="ignore", divide="ignore"):
                rhat = az.rhat(post[names])
            parts += [np.ravel(rhat[v].values) for v in names]
        values = np.concatenate(parts)
        values = values[np.isfinite(values)]
        n_bad = int(np.sum(values > RHAT_MAX))
        worst = float(values.max()) if values.size else np.nan
    if n_div or n_bad:
        warnings.warn(
            f"NUTS: {n_div} divergent transition(s) and {n_bad} parameter(s) with "
            f"R-hat > {RHAT_MAX} (max {worst:.3f}); the draws may be biased. Increase tune/draws "
            "or target_accept.",
            SamplingWarning,
            stacklevel=3,
        )


# -- log-likelihood of the labels ------------------------------------------------------------
def _label_log_likelihood(
    est, spec: ModelSpec, posterior: dict[str, np.ndarray], max_bytes: float = 1e8
) -> np.ndarray:
    """log p(y_i | x_i, θ) for every draw and training document, shape (chain, draw, doc).

    The draws are scored by the same code as the exact draws of :mod:`bayesnb.loo`
    (``Family.loo_draws_jll``: a ColumnwiseNB sums its blocks' terms, each block scoring its
    ``"{block}/{var}"`` draws), in blocks of draws of about ``max_bytes``, on the documents
    and labels the model was declared on (``spec.X``, ``spec.codes``: integer weights
    expanded; the PyMC path takes complete data only, so nothing is missing:
    ``spec.missing``).
    """
    from bayesnb.loo import label_log_proba

    fam = family_of(est, "bayesnb.inference")
    pi = posterior["class_prior"]
    n_chains, n_draws, _ = pi.shape
    codes = spec.codes
    per_draw = 8.0 * fam.loo_cells_per_draw(est, codes.size)
    block = int(max(1, min(n_draws, max_bytes // per_draw)))
    out = np.empty((n_chains, n_draws, codes.size))
    for chain in range(n_chains):
        for start in range(0, n_draws, block):
            part = slice(start, start + block)
            with np.errstate(divide="ignore"):
                log_pi = np.log(pi[chain, part])
            values = {k: v[chain, part] for k, v in posterior.items() if k != "class_prior"}
            jll = fam.loo_draws_jll(est, spec.X, spec.missing, values)
            out[chain, part] = label_log_proba(jll + log_pi[None], log_pi, codes).T
    return out


# -- composite models (ColumnwiseNB) -----------------------------------------------------------
_CLASS_GROUP_VARS = {
    "posterior": ("class_prior",),
    "observed_data": ("class_count", "y"),
    "constant_data": ("class_alpha", "class_prior_value"),
}


def _composite_layout(est, spec: ModelSpec, parts, trace, sampler: str, with_log_lik: bool):
    """A composite fit (ColumnwiseNB): the class prior, its observations and ``sample_stats``
    at the root; each part's draws, observations and prior in the part's own layout as the
    child ``name`` (as :func:`bayesnb.draws.sample_posterior` lays out the exact draws).

    ``parts`` are the family's ``(name, estimator, spec)`` of every sub-model, whose
    variables are ``"{name}::{var}"`` in the composed model.
    """
    from dataclasses import replace

    root_spec = replace(
        spec,
        var_names=["class_prior"],
        dims={"class_prior": ["class"]},
        coords={k: v for k, v in spec.coords.items() if k in ("class", "doc")},
    )
    dt = _single_layout(est, root_spec, trace, sampler, False)  # the class part alone
    pi = np.asarray(trace.posterior["class_prior"].values)
    flat: dict[str, np.ndarray] = {"class_prior": pi}
    stats = trace["sample_stats"].to_dataset()
    for name, block, bs in parts:
        draws = {
            var: np.asarray(trace.posterior[f"{name}::{var}"].values)
            for var in bs.var_names
            if var != "class_prior"
        }
        flat |= {f"{name}/{var}": arr for var, arr in draws.items()}
        shim = xr.DataTree.from_dict(
            {
                "posterior": xr.Dataset(
                    {
                        v: xr.DataArray(a, dims=[f"{v}_dim_{i}" for i in range(a.ndim)])
                        for v, a in (draws | {"class_prior": pi}).items()
                    }
                ),
                "sample_stats": stats,
            }
        )
        tree = _to_layout(block, bs, shim, sampler, False)
        for group, names in _CLASS_GROUP_VARS.items():
            if group in tree.children:
                ds = tree[group].to_dataset()
                tree[group] = xr.DataTree(ds.drop_vars([n for n in names if n in ds]))
        del tree["sample_stats"]
        dt[name] = tree
    if with_log_lik:
        ll = _label_log_likelihood(est, spec, flat)
        dt["log_likelihood"] = xr.DataTree(
            xr.Dataset(
                {"y": (("chain", "draw", "doc"), ll)},
                coords={
                    "chain": dt["posterior"]["chain"].values,
                    "draw": dt["posterior"]["draw"].values,
                    "doc": np.arange(ll.shape[-1]),
                },
            )
        )
    return dt
