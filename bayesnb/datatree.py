"""DataTree: posterior draws or point estimates -> the one ``xarray.DataTree`` layout.

Every path (point estimates, exact conjugate draws, NUTS) lands here, so ArviZ functions and
:func:`bayesnb.compare` read any of them. Layout: group ``posterior`` with
``class_prior (chain, draw, class)`` and ``feature_prob (chain, draw, class, feature)`` for the
discrete models (Categorical NB adds a ``value`` dim; Poisson NB has ``feature_rate (chain,
draw, class, feature)``, its rates λ_cj, instead of ``feature_prob``), ``mean (chain, draw,
class, feature)`` and ``cov (chain, draw, [class,] feature, feature_bis)`` for GDA;
coordinates ``class`` (labels as strings) and ``feature`` (feature names); attrs name the
model, the prior, the estimate and the bayesnb version.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # xarray is imported where a tree is built or read: scoring needs none
    import xarray as xr

__all__ = ["DIMS", "layout_attrs", "layout_coords", "posterior_values", "to_datatree"]

# Dims of every variable the layout knows (sample dims chain/draw are prepended by ArviZ).
DIMS: dict[str, list[str]] = {
    "class_prior": ["class"],
    "feature_prob": ["class", "feature"],
    "feature_rate": ["class", "feature"],  # PoissonNB: the Poisson rates λ_cj
    "concentration": ["class", "feature"],  # DirichletCompoundNB: the Dirichlet β_cj
    "mean": ["class", "feature"],
    "cov": ["class", "feature", "feature_bis"],
    "cov_shared": ["feature", "feature_bis"],
}


def layout_coords(est, features=None) -> dict[str, list]:
    """``class`` and ``feature`` coordinates of a fitted estimator (optionally a feature subset).

    Parameters
    ----------
    est : fitted bayesnb estimator
    features : array-like of int, optional
        Column indices to keep.
    """
    names = getattr(est, "feature_names_in_", None)
    if names is None:
        names = np.array([f"x{j}" for j in range(est.n_features_in_)])
    names = np.asarray(names, dtype=str)
    if features is not None:
        names = names[np.asarray(features)]
    return {
        "class": [str(c) for c in est.classes_],
        "feature": list(names),
        "feature_bis": list(names),
    }


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {k: _jsonable(v) for k, v in value.items()}
    if hasattr(value, "as_dict"):
        return _jsonable(value.as_dict())
    return value


def layout_attrs(est, *, estimate: str, inference: str) -> dict[str, str]:
    """Attrs recorded on the ``posterior`` group: model, prior, estimate, inference, version.

    Values are strings (JSON for structured ones) so they survive netCDF unchanged.
    """
    from bayesnb import __version__

    params = {k: _jsonable(v) for k, v in est.get_params(deep=False).items()}
    return {
        "model": type(est).__name__,
        "estimate": estimate,
        "inference_library": inference,
        "params": json.dumps(params, default=str),
        "bayesnb_version": __version__,
    }


def to_datatree(
    est,
    posterior: Mapping[str, np.ndarray],
    *,
    estimate: str,
    inference: str,
    features=None,
    groups: Mapping[str, Mapping[str, np.ndarray]] | None = None,
    dims: Mapping[str, list[str]] | None = None,
    coords: Mapping[str, list] | None = None,
) -> xr.DataTree:
    """Wrap arrays of shape (chain, draw, *dims) into the bayesnb DataTree layout.

    Parameters
    ----------
    est : fitted bayesnb estimator
    posterior : mapping of variable name -> ndarray (chain, draw, ...)
    estimate : str
        ``"mle"``, ``"map"``, ``"mean"`` for point estimates, ``"posterior"`` for draws.
    inference : str
        What produced the values (recorded as ``inference_library``).
    features : array-like of int, optional
        The feature subset the arrays hold.
    groups : mapping, optional
        Further groups (``observed_data``, ``log_likelihood``, ``sample_stats``, ...).
    dims, coords : mapping, optional
        Extra dims/coords for variables outside :data:`DIMS`.
    """
    all_coords = layout_coords(est, features) | dict(coords or {})
    all_dims = DIMS | dict(dims or {})
    data = {"posterior": dict(posterior)} | {k: dict(v) for k, v in (groups or {}).items()}
    used = {n for g in data.values() for n in g}
    import arviz as az  # here: scoring and cross-validation reach this module, not ArviZ

    return az.from_dict(
        data,
        coords=all_coords,
        dims={k: v for k, v in all_dims.items() if k in used},
        attrs={"posterior": layout_attrs(est, estimate=estimate, inference=inference)},
    )


def posterior_values(est, posterior: xr.DataTree, var_names) -> dict[str, np.ndarray]:
    """``name -> (chain, draw, ...)`` draws from a tree in the bayesnb layout, checked.

    The root ``posterior`` group holds the class prior and a single model's variables (those
    of ``var_names`` it has); a composite's blocks are child trees with their own
    ``posterior`` groups, read as ``"{block}/{var}"`` (the keys
    :func:`bayesnb.draws.posterior_draws` gives them). ``est`` (fitted) gives the number of
    classes ``class_prior`` must have.
    """
    import xarray as xr

    if not isinstance(posterior, xr.DataTree) or "posterior" not in posterior.children:
        raise TypeError(
            "posterior must be a DataTree with a 'posterior' group in the bayesnb layout (the "
            f"result of fit_pymc or sample_posterior), got {type(posterior).__name__}"
        )
    root = posterior["posterior"].to_dataset()
    if "class_prior" not in root:
        raise ValueError("posterior: the 'posterior' group holds no 'class_prior' draws")
    names = [v for v in var_names if v in root.data_vars] or ["class_prior"]
    values = {name: np.asarray(root[name].values) for name in names}
    for block, child in posterior.children.items():
        if block != "posterior" and "posterior" in child.children:
            ds = child["posterior"].to_dataset()
            values |= {f"{block}/{v}": np.asarray(ds[v].values) for v in ds.data_vars}
    pi = values["class_prior"]
    if pi.ndim != 3 or pi.shape[-1] != len(est.classes_):
        raise ValueError(
            f"posterior: class_prior has shape {pi.shape}, expected (chain, draw, "
            f"{len(est.classes_)}) for this estimator's {len(est.classes_)} classes"
        )
    bad = [k for k, v in values.items() if v.shape[:2] != pi.shape[:2]]
    if bad:
        raise ValueError(f"posterior: {bad} do not have class_prior's (chain, draw) shape")
    return values
