"""Report section: a small NUTS fit of one study checked against the exact posterior.

The families that feed it rank ``"nuts"`` in their
:attr:`~bayesnb.report.extension.FamilyReport.ranks` (the discrete models with a PyMC
declaration); a saved NUTS fit of any model is checked the same way.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr

from bayesnb.families import family_of
from bayesnb.report.data import Study, fit_named
from bayesnb.report.extension import report_of
from bayesnb.report.sections.common import fmt, split_xy, words

__all__ = ["SamplerResult", "discriminative_features", "sampler"]


def discriminative_features(est, k: int) -> np.ndarray:
    """The ``k`` columns sharing most information with the class (sorted column indices)."""
    report = report_of(family_of(est, "bayesnb.report").name)
    score = report.class_feature_information(est).sum(axis=0)
    k = min(k, score.size)
    return np.sort(np.argsort(score)[::-1][:k])


@dataclass
class SamplerResult:
    """A small NUTS fit checked against the exact conjugate posterior."""

    study: Study
    ok: bool
    error: str = ""
    features: np.ndarray | None = None
    tree: xr.DataTree | None = None
    summary: pd.DataFrame | None = None
    agreement: pd.DataFrame | None = None
    rank_data: xr.DataTree | None = None
    divergences: int = 0
    wall_time: float = np.nan
    sampling_time: float = np.nan
    draws: int = 0
    tune: int = 0
    chains: int = 0
    warnings: list[str] = field(default_factory=list)
    reading: str = ""


def sampler(
    study: Study,
    *,
    n_features: int = 30,
    draws: int = 500,
    tune: int = 500,
    chains: int = 4,
    seed: int = 0,
    tree: xr.DataTree | None = None,
    fitted=None,
    wall_time: float | None = None,
) -> SamplerResult:
    """NUTS on ``n_features`` discriminative features; diagnostics and exact agreement.

    ``tree`` (a saved NUTS fit) and ``fitted`` (the estimator it belongs to) skip sampling;
    ``wall_time`` is then the time that fit took, if known. A failure of the sampler is
    recorded in the result (``ok=False``), not raised.
    """
    import arviz as az

    from bayesnb.draws import posterior_summary

    sizes = {"draws": draws, "tune": tune, "chains": chains}
    result = SamplerResult(study, ok=False, **sizes)
    tree_given = tree is not None
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if tree is None:
                Xtr, ytr, _, _ = split_xy(study)
                full = study.configured(estimate="mean").fit(Xtr, ytr)
                feats = discriminative_features(full, n_features)
                result.features = feats
                Xs = Xtr[:, feats]
                est = fit_named(study.configured(), Xs, ytr, study.data.feature_names[feats])
                tree = est.fit_pymc(Xs, ytr, random_seed=seed, progressbar=False, **sizes)
            else:
                est = fitted
                post = tree["posterior"]
                result.draws, result.chains = post.sizes["draw"], post.sizes["chain"]
                result.tune = int(post.attrs.get("tuning_steps", 0))
        result.warnings = sorted(
            {
                str(w.message)
                for w in caught
                if "SamplingWarning" in type(w.message).__name__ or "R-hat" in str(w.message)
            }
        )
    except Exception as exc:  # the report says why NUTS is missing
        result.error = f"{type(exc).__name__}: {exc}"
        result.reading = (
            f"NUTS could not run here ({result.error}); the exact conjugate posterior above "
            "needs no sampler, so every other section stands."
        )
        return result
    if tree_given:
        result.wall_time = np.nan if wall_time is None else float(wall_time)
    else:
        result.wall_time = time.perf_counter() - t0
    result.tree = tree
    result.sampling_time = float(tree["posterior"].attrs.get("sampling_time", np.nan))
    var_names = [v for v in ("class_prior", "feature_prob") if v in tree["posterior"]]
    result.divergences = (
        int(tree["sample_stats"]["diverging"].sum()) if "sample_stats" in tree.children else 0
    )
    summary = az.summary(tree, var_names=var_names, round_to="none")
    summary = summary[np.isfinite(summary["mean"].astype(float))]
    result.summary = summary
    exact = posterior_summary(est)
    rows = []
    per_param = []
    for v in var_names:
        post = tree["posterior"][v]
        e_nuts = post.mean(("chain", "draw")).values
        mcse = _stat_array(az.mcse(tree, var_names=[v]), v).values
        e_exact = exact[v].sel(summary="mean").values
        z = np.abs(e_nuts - e_exact) / mcse
        ok = np.isfinite(z)
        z = z[ok]
        rows.append(
            {
                "variable": v,
                "parameters": int(z.size),
                "max |E_nuts − E_exact|": float(np.max(np.abs(e_nuts - e_exact)[ok])),
                "max |Δ| / MCSE": float(z.max()),
                "mean |Δ| / MCSE": float(z.mean()),
                "share |Δ|/MCSE > 3": float(np.mean(z > 3)),
            }
        )
        rhat = _stat_array(az.rhat(tree, var_names=[v]), v)
        per_param.append((v, post, rhat))
    result.agreement = pd.DataFrame(rows).set_index("variable")
    result.rank_data = _worst_params(per_param, 4)
    result.ok = True
    result.reading = _sampler_reading(result)
    return result


def _stat_array(result, name: str) -> xr.DataArray:
    """Variable ``name`` of an ArviZ diagnostic (a DataTree for DataTree input, variables at
    its root or in a ``posterior`` child, or a Dataset)."""
    if isinstance(result, xr.DataTree):
        node = result["posterior"] if "posterior" in result.children else result
        return node[name]
    return result[name]


def _worst_params(per_param, k: int) -> xr.DataTree:
    """The ``k`` parameters with the largest R-hat, each as its own variable (for plot_rank)."""
    cands = []
    for v, post, rhat in per_param:
        r = rhat.values
        other = [d for d in rhat.dims]
        for flat in np.argsort(np.nan_to_num(r, nan=-1).ravel())[::-1][:k]:
            idx = np.unravel_index(flat, r.shape)
            labels = [str(rhat[d].values[i]) for d, i in zip(other, idx, strict=True)]
            name = f"{v}[{', '.join(labels)}]"
            cands.append((float(r[idx]), name, post.isel(dict(zip(other, idx, strict=True)))))
    cands.sort(key=lambda t: -t[0] if np.isfinite(t[0]) else np.inf)
    ds = xr.Dataset(
        {
            name: da.drop_vars([c for c in da.coords if c not in ("chain", "draw")])
            for _, name, da in cands[:k]
        }
    )
    return xr.DataTree.from_dict({"posterior": ds})


def _sampler_reading(r: SamplerResult) -> str:
    s = r.summary
    n = len(s)
    rhat = s["r_hat"].astype(float)
    ess_b = s["ess_bulk"].astype(float)
    ess_t = s["ess_tail"].astype(float)
    a = r.agreement
    z_max = float(a["max |Δ| / MCSE"].max())
    n_par = int(a["parameters"].sum())
    expect = float(np.sqrt(2 * np.log(max(n_par, 2))))
    subset = (
        f"the {len(r.features)} most discriminative {words(r.study.data)[0]}s of "
        if r.features is not None
        else ""
    )
    parts = [
        f"NUTS (nutpie) sampled {subset}the {r.study.label} model: {r.chains} chains × "
        f"{r.draws} draws after {r.tune} tuning steps"
        + (
            f", {fmt(r.wall_time, 2)} s wall time including compilation"
            if np.isfinite(r.wall_time)
            else ""
        )
        + f" ({fmt(r.sampling_time, 2)} s sampling).",
        f"{r.divergences} divergent transitions; R-hat ranges up to {rhat.max():.3f} over "
        f"{n} parameters ({int(np.sum(rhat > 1.01))} above 1.01); the smallest bulk and tail "
        f"ESS are {ess_b.min():.0f} and {ess_t.min():.0f}.",
        f"Against the exact conjugate posterior means, the largest standardised difference "
        f"|E_nuts − E_exact| / MCSE over {n_par} parameters is {z_max:.2f}; for that many "
        f"independent Monte Carlo errors a maximum near {expect:.1f} is expected, "
        + (
            "so NUTS reproduces the exact posterior."
            if z_max < expect + 1.5
            else "so this is larger than chance alone explains: inspect the rank plots."
        ),
    ]
    return " ".join(parts)
