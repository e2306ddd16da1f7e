"""Declaration pieces shared by every family: documents, the class prior, feature priors.

A family's ``pymc_spec`` (in ``bayesnb/families/<name>/pymc.py``) validates the documents with
:func:`prepare`, computes its own ``pm.Data`` values and observations, and assembles the
:class:`~bayesnb.pymc_models.spec.ModelSpec` with :func:`make_spec`, which adds the class
half of the model (:func:`class_part`); its builder opens the ``pm.Model`` and declares the
class prior and label likelihood with :func:`declare_class_prior`, then its features.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from bayesnb.datatree import layout_coords
from bayesnb.pymc_models import simplex
from bayesnb.pymc_models.spec import ModelSpec
from bayesnb.stats.discrete import count_features
from bayesnb.validation import check_alpha, check_class_prior, check_sample_weight, encode_labels

__all__ = [
    "CLASS_HYPERPARAMETER_DIMS",
    "as_counts",
    "cell_data",
    "cell_dot",
    "check_class_prior_declarable",
    "class_part",
    "declare_alpha",
    "declare_class_prior",
    "declare_feature_alpha",
    "declare_feature_data",
    "dense_int",
    "documents",
    "feature_observations",
    "fitted_alpha",
    "fixed_feature_alpha",
    "make_spec",
    "prepare",
    "unlabelled_documents",
]

#: The class prior's hyperparameters (one of them is in a model), both over ``class``.
CLASS_HYPERPARAMETER_DIMS: dict[str, list[str]] = {
    "class_alpha": ["class"],
    "class_prior_value": ["class"],
}


# -- documents ---------------------------------------------------------------------------------
def _fixed_class_prior(est) -> np.ndarray | None:
    """The constant π of ``class_prior=`` / ``fit_prior=False``, or None when π is sampled.

    Same precedence as the closed-form path: ``class_prior`` first, then ``fit_prior``.
    """
    n_classes = len(est.classes_)
    if est.class_prior is not None:
        return check_class_prior(est.class_prior, n_classes)
    if not est.fit_prior:
        return np.full(n_classes, 1.0 / n_classes)
    return None


def _sampled_gamma(est) -> bool:
    return est.class_prior is None and bool(est.fit_prior)


def check_class_prior_declarable(est) -> None:
    """Fail before any work when the class prior is the improper Haldane prior."""
    est._check_params()
    gamma = est.class_alpha
    if _sampled_gamma(est) and not isinstance(gamma, str) and gamma <= 0:
        _haldane(gamma)


def _haldane(gamma) -> None:
    raise ValueError(
        f"the PyMC path needs class_alpha > 0, got class_alpha={gamma!r}: class_alpha=0 is "
        "the improper Haldane prior (empirical class frequencies), which has no density to "
        "sample. Use class_alpha > 0, or fix the class prior with class_prior=... or "
        "fit_prior=False."
    )


def fitted_alpha(est):
    """The fitted feature concentration (``alpha_``, learned when ``alpha="evidence"``)."""
    return getattr(est, "alpha_", est.alpha)


def fixed_feature_alpha(est, n_features: int) -> np.ndarray:
    """The fitted α checked and broadcast to one float per feature (a fresh array)."""
    alpha = check_alpha(fitted_alpha(est), n_features)
    return np.broadcast_to(alpha, (n_features,)).astype(float)


def documents(est, X, y, sample_weight) -> tuple[Any, np.ndarray]:
    """Fit ``est`` if needed, validate (X, y) through it, expand integer sample weights."""
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=np.float64)
        if not np.all(w == np.round(w)):
            raise ValueError(
                "the PyMC path counts documents: sample_weight must hold integers (a weight is "
                "a repeat count); fractional weights are supported by fit() only"
            )
    if not hasattr(est, "classes_"):
        est.fit(X, y, sample_weight=sample_weight)
    X, y = est._check_input(X, y, reset=False)
    _refuse_missing(est, X)
    X = est._encode(X)  # the likelihood's view: BernoulliNB binarises
    _, codes = encode_labels(y, est.classes_)
    if sample_weight is not None:
        w = check_sample_weight(sample_weight, X)
        rows = np.repeat(np.arange(X.shape[0]), w.astype(np.intp))
        X, codes = X[rows], codes[rows]
    return X, codes.astype(np.int64)


def prepare(est, X, y, sample_weight) -> tuple[Any, np.ndarray]:
    """The checks every single model makes first: its class prior, then its documents."""
    check_class_prior_declarable(est)
    return documents(est, X, y, sample_weight)


def unlabelled_documents(est, X):
    """Unlabelled documents validated through fitted ``est`` (complete rows, the likelihood's
    view: BernoulliNB binarises)."""
    X = est._check_input(X, reset=False)
    _refuse_missing(est, X)
    return est._encode(X)


def cell_data(X, name: str) -> dict[str, np.ndarray]:
    """The nonzero cells of documents ``X`` (dense or sparse): ``pm.Data`` values
    ``{name}_row``, ``{name}_col`` and ``{name}_value``, read by :func:`cell_dot`."""
    C = sp.coo_matrix(X)
    keep = C.data != 0
    return {
        f"{name}_row": C.row[keep].astype(np.int64),
        f"{name}_col": C.col[keep].astype(np.int64),
        f"{name}_value": C.data[keep].astype(np.float64),
    }


def cell_dot(get, name: str, table, n_docs):
    """``Σ_j x_ij table[c, j]`` of every document i and class c, shape (n_docs, classes), from
    the cells of :func:`cell_data` (``get`` reads the model's ``pm.Data``): one gather of the
    (class, feature) table per nonzero cell, as the sparse likelihood of
    :func:`bayesnb.pymc_models.simplex.sparse_multinomial`."""
    import pytensor.tensor as pt

    row, col, value = (get(f"{name}_{k}") for k in ("row", "col", "value"))
    terms = value[:, None] * table.T[col]
    return pt.inc_subtensor(pt.zeros((n_docs, table.shape[0]))[row], terms)


def _refuse_missing(est, X) -> None:
    """The PyMC path takes complete data only (``missing="ignore"`` is closed-form only)."""
    from bayesnb.stats.missing import has_missing

    if getattr(est, "missing", "error") == "ignore" and has_missing(X):
        raise ValueError(
            f"X holds NaN (missing values): the PyMC path of {type(est).__name__} declares the "
            "likelihood of complete data only and does not marginalise missing features. "
            "Drop or impute the incomplete rows for fit_pymc/to_pymc; the closed-form path "
            "(predict_proba, sample_posterior, log_evidence) handles missing='ignore'."
        )


def as_counts(values: np.ndarray, what: str) -> np.ndarray:
    """Integer-valued float statistics -> int64 (the discrete likelihoods need integers)."""
    if not np.all(values == np.round(values)):
        raise ValueError(f"the PyMC path needs integer {what}; got non-integer values")
    return np.round(values).astype(np.int64)


def dense_int(X, what: str) -> np.ndarray:
    """X (dense or sparse) as a dense int64 array, refusing non-integer values."""
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
    return as_counts(Xd, what)


# -- the class half of every model -------------------------------------------------------------
def class_part(est, codes: np.ndarray, likelihood: str) -> tuple[dict, dict, tuple]:
    """pm.Data values, observed arrays and structure of the class-prior half of every model."""
    n_classes = len(est.classes_)
    fixed = _fixed_class_prior(est)
    data: dict[str, np.ndarray] = {}
    if fixed is not None:
        present = np.bincount(codes, minlength=n_classes) > 0
        if np.any(present & (fixed <= 0)):
            bad = [str(c) for c in est.classes_[present & (fixed <= 0)]]
            raise ValueError(
                f"class_prior gives probability 0 to class(es) {bad} that occur in y: the "
                "labels would have probability 0"
            )
        data["class_prior_value"] = fixed
    else:
        gamma = float(getattr(est, "class_alpha_", est.class_alpha))
        if gamma <= 0:  # class_alpha="evidence" can learn the Haldane limit
            _haldane(gamma)
        data["class_alpha"] = np.full(n_classes, gamma)
    if likelihood == "data":
        data["y_data"] = codes
        observed = {"y": (codes, ["doc"])}
    else:
        n_c = np.bincount(codes, minlength=n_classes).astype(np.int64)
        data["class_count_data"] = n_c
        observed = {"class_count": (n_c, ["class"])}
    return data, observed, ("fixed_pi" if fixed is not None else "dirichlet_pi",)


def declare_class_prior(spec: ModelSpec):
    """Declare π and the label likelihood inside the current model context; returns (π, y).

    A sampled π is the Dirichlet of :func:`bayesnb.pymc_models.simplex.dirichlet` (free
    ``class_prior_log_gamma``). The second value is what the feature likelihood reads the
    labels through: the codes ``y_data`` (data form) or the class counts
    ``class_count_data`` (sufficient form).
    """
    import pymc as pm
    import pytensor.tensor as pt

    if spec.likelihood == "data":
        labels = pm.Data("y_data", spec.data["y_data"], dims="doc")
        n_docs = labels.shape[0]
    else:
        labels = pm.Data("class_count_data", spec.data["class_count_data"], dims="class")
        n_docs = labels.sum()
    if "class_prior_value" in spec.data:
        value = pm.Data("class_prior_value", spec.data["class_prior_value"], dims="class")
        pi = pm.Deterministic("class_prior", value, dims="class")
        log_pi = pt.log(value)
    else:
        gamma = pm.Data("class_alpha", spec.data["class_alpha"], dims="class")
        pi, log_pi = simplex.dirichlet("class_prior", gamma, dims="class", total=n_docs)
    if spec.likelihood == "data":
        simplex.categorical("y", log_pi, observed=labels, dims="doc")
    else:
        simplex.multinomial("class_count", n_docs, log_pi, observed=labels, dims="class")
    return pi, labels


# -- feature priors and observations -----------------------------------------------------------
def declare_alpha(spec: ModelSpec, trailing: int = 1):
    """The learned symmetric concentration ``alpha ~ Gamma(alpha_shape, alpha_rate)``.

    A scalar, or with ``per_class`` one α per class (dims ``class``) returned with
    ``trailing`` unit axes appended, to broadcast against ``(class, *trailing axes)``. The
    hyperparameters are ``pm.Data``: a compiled model takes new values without recompiling.
    """
    import pymc as pm

    shape = pm.Data("alpha_shape", spec.data["alpha_shape"])
    rate = pm.Data("alpha_rate", spec.data["alpha_rate"])
    if not spec.alpha_prior["per_class"]:
        return pm.Gamma("alpha", alpha=shape, beta=rate)
    alpha = pm.Gamma("alpha", alpha=shape, beta=rate, dims="class")
    return alpha[(slice(None), *([None] * trailing))]


def declare_feature_alpha(spec: ModelSpec, dim: str = "feature"):
    """The feature-prior concentration: fixed data over ``dim``, or the Gamma-prior ``alpha``
    (broadcasting against ``(class, dim)``)."""
    import pymc as pm

    if spec.alpha_prior is None:
        return pm.Data("feature_alpha", spec.data["feature_alpha"], dims=dim)
    return declare_alpha(spec)


def feature_observations(
    X, codes: np.ndarray, n_classes: int, likelihood: str, what: tuple[str, str], dim="feature"
) -> tuple[dict, dict]:
    """The ``pm.Data`` and observations that :func:`declare_feature_data` declares.

    The documents ``X_data`` (data form) or the per-class column sums ``feature_count_data``
    (sufficient form), integers; ``what`` names the values of each form in the error.
    """
    if likelihood == "data":
        data = {"X_data": dense_int(X, what[0])}
        return data, {"X": (data["X_data"], ["doc", dim])}
    counts = count_features(X, codes, np.ones(len(codes)), n_classes)
    data = {"feature_count_data": as_counts(counts, what[1])}
    return data, {"feature_count": (data["feature_count_data"], ["class", dim])}


def declare_feature_data(spec: ModelSpec, dim: str = "feature"):
    """The observed features: ``X_data`` (doc, dim) or the sums ``feature_count_data``
    (class, dim), as ``spec.likelihood`` says."""
    import pymc as pm

    if spec.likelihood == "data":
        return pm.Data("X_data", spec.data["X_data"], dims=("doc", dim))
    return pm.Data("feature_count_data", spec.data["feature_count_data"], dims=("class", dim))


# -- assembly ----------------------------------------------------------------------------------
def make_spec(
    est,
    X,
    codes: np.ndarray,
    likelihood: str,
    prior: dict[str, float] | None,
    *,
    kind: str,
    data: dict[str, np.ndarray],
    observed: dict[str, tuple[np.ndarray, list[str]]],
    structure: tuple,
    build: Callable[[ModelSpec], Any],
    dims: dict[str, list[str]],
    hyperparameter_dims: dict[str, list[str] | None] | None = None,
    **kw,
) -> ModelSpec:
    """Assemble a ModelSpec with the class half added.

    ``dims`` maps the layout variables besides ``class_prior``; ``hyperparameter_dims`` the
    family's prior ``pm.Data`` (the class prior's and the α hyperprior's are added);
    ``coords``, ``extra``, ``auxiliary`` (the family's auxiliary free variables and their
    dims) and ``completion`` (:class:`~bayesnb.pymc_models.spec.Completion`) are optional
    keywords.
    """
    class_data, class_obs, class_structure = class_part(est, codes, likelihood)
    coords = layout_coords(est)
    if not any("feature_bis" in d for d in dims.values()):
        coords.pop("feature_bis")
    coords |= kw.pop("coords", {})
    if likelihood == "data":
        coords["doc"] = list(range(len(codes)))
    var_names = ["class_prior", *dims]
    hyper = CLASS_HYPERPARAMETER_DIMS | (hyperparameter_dims or {})
    prior_structure = None
    if prior is not None:
        var_names.append("alpha")
        dims = dims | ({"alpha": ["class"]} if prior["per_class"] else {})
        data = data | {
            "alpha_shape": np.asarray(prior["alpha"]),
            "alpha_rate": np.asarray(prior["beta"]),
        }
        hyper |= {"alpha_shape": None, "alpha_rate": None}
        prior_structure = ("alpha_per_class" if prior["per_class"] else "alpha_shared",)
    auxiliary = {"class_prior_log_gamma": ["class"]} if "class_alpha" in class_data else {}
    auxiliary |= kw.pop("auxiliary", {})
    return ModelSpec(
        kind=kind,
        likelihood=likelihood,
        structure=(*class_structure, prior_structure, *structure),
        coords=coords,
        data=class_data | data,
        observed=class_obs | observed,
        codes=codes,
        X=X,
        var_names=var_names,
        dims={"class_prior": ["class"], **dims},
        alpha_prior=prior,
        build=build,
        extra=kw.pop("extra", {}),
        completion=kw.pop("completion", None),
        hyperparameter_dims=hyper,
        auxiliary=auxiliary,
    )
