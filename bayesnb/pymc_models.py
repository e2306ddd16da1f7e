"""PyMC declarations: the generative models of bayesnb with exactly the closed-form priors.

The ``declare`` arrow of DESIGN.md §2. Every model is

- labels: ``y_i ~ Categorical(π)``, ``π ~ Dirichlet(γ·1)`` with ``γ = est.class_alpha``
  (``fit_prior=False`` or ``class_prior=`` fix π instead: it becomes constant data);
- Bernoulli NB: ``x_ij ~ Bernoulli(φ_{y_i j})``, ``φ_cj ~ Beta(α_j, β_j)``;
- multinomial NB: ``x_i ~ Multinomial(n_i, θ_{y_i})``, ``θ_c ~ Dirichlet(α)``;
- categorical NB: ``x_ij ~ Categorical(θ_{y_i j})``, ``θ_cj ~ Dirichlet(α_j·1)`` over the
  ``k_j`` categories seen by the estimator plus one pooled slot for every other value.

Two likelihood forms declare the same posterior:

``likelihood="data"``
    The literal per-document model: one observed ``y`` (dim ``doc``) and one observed ``X``
    (dims ``doc, feature``). Its cost grows with the number of documents; it is the form to
    use for posterior predictive draws of documents.
``likelihood="sufficient"``
    The likelihood written on the sufficient statistics: ``class_count ~ Multinomial(N, π)``;
    Bernoulli: ``feature_count[c, j] ~ Binomial(N_c, φ_cj)`` (document frequencies);
    multinomial: ``feature_count[c] ~ Multinomial(T_c, θ_c)`` (token counts); categorical:
    ``category_count[c, j] ~ Multinomial(N_c, θ_cj)``. It differs from the data form by the
    binomial/multinomial coefficients only, a constant, so the posterior is identical and the
    cost of one gradient does not depend on the number of documents.

Every observation and every prior hyperparameter enters through ``pm.Data``, so a model can be
re-used for new documents (``pm.set_data``) and a compiled model for new statistics or a new
prior of the same shape (:mod:`bayesnb.inference` caches compiled models this way).

Variable names follow the DataTree layout (:mod:`bayesnb.datatree`): ``class_prior`` (dims
``class``) and ``feature_prob`` (dims ``class, feature``; categorical ``class, feature,
value``), so NUTS draws land in the same layout as the exact ones.

**Categorical padding** (the convention of :mod:`bayesnb.draws`). Features may have different
numbers of categories, but ``feature_prob`` is one rectangular array with ``value`` =
0 .. max_j k_j: slot ``v < k_j`` is P(x_j = v | c), slot ``v = k_j`` is the pooled unseen slot
(the probability of every value never seen by the estimator), slots beyond ``k_j`` are not
parameters and hold NaN. Internally the features are grouped by ``k_j``: one Dirichlet
``feature_prob_k{k}`` of shape ``(class, features with k_j = k, k + 1)`` per group, and
``feature_prob`` is a Deterministic assembling them (when every feature has the same ``k`` the
Dirichlet itself is ``feature_prob``). In the data form the observed values are
``min(x_ij, k_j)``.

**Unknown tokens.** ``MultinomialNB(unk=True)`` pools every column never seen by the
estimator into one ``UNK`` category: the Dirichlet is ``category_prob`` over the seen features
plus ``UNK`` (dim ``category``), and ``feature_prob`` (dims ``class, feature``) repeats
P(UNK | c) in every pooled column, as :mod:`bayesnb.draws` does.

**Sample weights.** The PyMC likelihood counts documents, so only integer weights are
accepted: a weight of w is the document repeated w times (0 drops it). Fractional weights
raise ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from bayesnb.datatree import layout_coords
from bayesnb.stats.discrete import category_offsets, count_categories, count_features
from bayesnb.validation import (
    check_alpha,
    check_class_prior,
    check_sample_weight,
    encode_labels,
)

__all__ = [
    "DEFAULT_ALPHA_PRIOR",
    "LIKELIHOODS",
    "ModelSpec",
    "check_likelihood",
    "declare",
    "model_spec",
]

LIKELIHOODS = ("sufficient", "data")

#: Hyperprior of a learned symmetric α (``alpha_prior={}`` uses it): α ~ Gamma(shape=2, rate=1),
#: mean 2, mode 1 (Laplace), weakly informative on the scale of pseudo-counts.
DEFAULT_ALPHA_PRIOR: dict[str, float] = {"alpha": 2.0, "beta": 1.0}

UNK = "UNK"  # the pooled category of MultinomialNB(unk=True)


def check_likelihood(likelihood: str) -> str:
    """Return ``likelihood`` if it is ``"sufficient"`` or ``"data"``, else raise ValueError."""
    if not isinstance(likelihood, str) or likelihood not in LIKELIHOODS:
        raise ValueError(f"likelihood must be one of {LIKELIHOODS}, got {likelihood!r}")
    return likelihood


def _check_alpha_prior(alpha_prior) -> dict[str, float] | None:
    """None (α fixed at ``est.alpha``) or the Gamma(alpha, beta) hyperprior of a learned α."""
    if alpha_prior is None:
        return None
    if not isinstance(alpha_prior, Mapping):
        raise TypeError(
            f"alpha_prior must be None or a dict(alpha=..., beta=...), got {alpha_prior!r}"
        )
    unknown = set(alpha_prior) - set(DEFAULT_ALPHA_PRIOR)
    if unknown:
        raise ValueError(f"alpha_prior takes the keys 'alpha' and 'beta', got {sorted(unknown)}")
    prior = DEFAULT_ALPHA_PRIOR | {k: float(v) for k, v in alpha_prior.items()}
    if not all(np.isfinite(v) and v > 0 for v in prior.values()):
        raise ValueError(f"alpha_prior values must be finite and > 0, got {prior}")
    return prior


@dataclass
class ModelSpec:
    """Everything needed to declare one model, computed with numpy before PyMC is touched.

    Attributes
    ----------
    kind : str
        ``"bernoulli"``, ``"multinomial"`` or ``"categorical"``.
    likelihood : str
    structure : tuple
        Hashable description of what ``pm.Data`` cannot change (prior form, groups); together
        with the shapes of :attr:`data` it is the cache key of a compiled model.
    coords : dict
        Model coordinates (``class``, ``feature``, and ``doc``/``value`` where used).
    data : dict of str -> ndarray
        The value of every ``pm.Data`` of the model (observations and prior hyperparameters).
    observed : dict of str -> (ndarray, list of dims)
        The observations in the DataTree layout (``observed_data`` group).
    codes : ndarray of int
        Class code of every document (after integer sample weights are expanded).
    X : ndarray or csr_matrix
        The documents as the likelihood sees them (binarised / pooled; expanded by weights).
    var_names : list of str
        The posterior variables of the layout (``class_prior``, ``feature_prob``, ``alpha``).
    dims : dict of str -> list of dims
        Dims of the posterior variables.
    extra : dict
        Model-specific arrays (categorical groups and offsets).
    """

    kind: str
    likelihood: str
    structure: tuple
    coords: dict[str, list]
    data: dict[str, np.ndarray]
    observed: dict[str, tuple[np.ndarray, list[str]]]
    codes: np.ndarray
    X: Any
    var_names: list[str]
    dims: dict[str, list[str]]
    alpha_prior: dict[str, float] | None
    build: Callable[[ModelSpec], Any] = field(repr=False)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple:
        """Cache key of the compiled model: kind, likelihood, structure and data shapes."""
        shapes = tuple(sorted((k, np.shape(v)) for k, v in self.data.items()))
        return (self.kind, self.likelihood, self.structure, shapes)

    @property
    def hyperparameters(self) -> dict[str, tuple[np.ndarray, list[str] | None]]:
        """The prior's ``pm.Data`` (name -> (value, dims)): the DataTree's ``constant_data``.

        Recorded with the draws so ``pm.sample_posterior_predictive`` can tell that the prior
        did not change (otherwise it warns that the parameters may need resampling).
        """
        out = {}
        for name, value in self.data.items():
            if not name.startswith(_HYPERPARAMETERS):
                continue
            dims = _HYPERPARAMETER_DIMS.get((self.kind, name))
            if (self.kind, name) == ("multinomial", "feature_alpha"):
                dims = ["category" if "category" in self.extra else "feature"]
            out[name] = (value, dims)
        return out

    def model(self):
        """A fresh ``pm.Model`` of this specification."""
        return self.build(self)


_HYPERPARAMETERS = ("class_alpha", "class_prior_value", "feature_alpha", "feature_beta")
_HYPERPARAMETER_DIMS = {
    (kind, name): dims
    for kind in ("bernoulli", "multinomial", "categorical")
    for name, dims in [("class_alpha", ["class"]), ("class_prior_value", ["class"])]
} | {
    ("bernoulli", "feature_alpha"): ["feature"],
    ("bernoulli", "feature_beta"): ["feature"],
}


# -- entry points -----------------------------------------------------------------------------
def declare(
    est,
    X,
    y,
    likelihood: str = "sufficient",
    *,
    alpha_prior: Mapping[str, float] | None = None,
    sample_weight=None,
):
    """Declare the estimator's generative model in PyMC, on the documents ``(X, y)``.

    Parameters
    ----------
    est : BernoulliNB, MultinomialNB or CategoricalNB
        Supplies the prior (``alpha``, ``beta``, ``class_alpha``, ``fit_prior``,
        ``class_prior``) and the encoding (``binarize``, ``unk``, categories). An unfitted
        estimator is first fitted on ``(X, y)``; a fitted one validates ``(X, y)`` against its
        features and classes (the model is declared on ``(X, y)``, not on the estimator's
        stored statistics).
    X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels, all among ``est.classes_``.
    likelihood : {"sufficient", "data"}, default "sufficient"
        ``"data"`` is the literal per-document model, ``"sufficient"`` the same posterior on
        sufficient statistics (see the module docstring for the exact forms).
    alpha_prior : dict, optional
        Learn one symmetric α instead of fixing it: ``α ~ Gamma(alpha, beta)`` (shape, rate),
        defaults :data:`DEFAULT_ALPHA_PRIOR` (Gamma(2, 1)) for missing keys, so
        ``alpha_prior={}`` uses the default. ``est.alpha`` is then ignored; BernoulliNB uses
        Beta(α, α) when ``est.beta`` is None and Beta(α, est.beta) otherwise. The posterior
        gains a scalar ``alpha``.
    sample_weight : array-like of shape (n_samples,), optional
        Integer weights only (a weight is a repeat count).

    Returns
    -------
    pymc.Model
        Free variables ``class_prior`` (unless fixed) and ``feature_prob`` (or its per-k
        groups), ``alpha`` with ``alpha_prior``; observed ``y``/``X`` (data) or
        ``class_count``/``feature_count``/``category_count`` (sufficient).

    Notes
    -----
    With a learned α the posterior couples α and every probability; when α is small (< 1) and
    many counts are 0, the Dirichlet mass piles up at the simplex boundary and NUTS may report
    a few divergences: raise ``target_accept`` (0.9-0.95) and the number of draws.

    Raises
    ------
    ValueError
        ``class_alpha = 0`` with a sampled class prior (the improper Haldane prior has no
        PyMC density), unknown ``likelihood``, non-integer sample weights or counts.
    """
    return model_spec(
        est, X, y, likelihood, alpha_prior=alpha_prior, sample_weight=sample_weight
    ).model()


def model_spec(
    est,
    X,
    y,
    likelihood: str = "sufficient",
    *,
    alpha_prior: Mapping[str, float] | None = None,
    sample_weight=None,
) -> ModelSpec:
    """The numpy side of :func:`declare`: statistics, priors, coords and the builder.

    The one place that dispatches on the estimator type (GDA is added here).
    """
    from bayesnb.naive_bayes import BernoulliNB, CategoricalNB, MultinomialNB

    likelihood = check_likelihood(likelihood)
    prior = _check_alpha_prior(alpha_prior)
    if isinstance(est, BernoulliNB):
        make = _bernoulli_spec
    elif isinstance(est, MultinomialNB):
        make = _multinomial_spec
    elif isinstance(est, CategoricalNB):
        make = _categorical_spec
    else:
        raise TypeError(f"no PyMC declaration for {type(est).__name__}")
    _check_class_prior_declarable(est)
    X, codes = _documents(est, X, y, sample_weight)
    return make(est, X, codes, likelihood, prior)


# -- shared pieces ----------------------------------------------------------------------------
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


def _check_class_prior_declarable(est) -> None:
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


def _alpha(est):
    """The fitted feature concentration (``alpha_``, learned when ``alpha="evidence"``)."""
    return getattr(est, "alpha_", est.alpha)


def _documents(est, X, y, sample_weight) -> tuple[Any, np.ndarray]:
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
    _, codes = encode_labels(y, est.classes_)
    if sample_weight is not None:
        w = check_sample_weight(sample_weight, X)
        rows = np.repeat(np.arange(X.shape[0]), w.astype(np.intp))
        X, codes = X[rows], codes[rows]
    return X, codes.astype(np.int64)


def _as_counts(values: np.ndarray, what: str) -> np.ndarray:
    """Integer-valued float statistics -> int64 (the discrete likelihoods need integers)."""
    if not np.all(values == np.round(values)):
        raise ValueError(f"the PyMC path needs integer {what}; got non-integer values")
    return np.round(values).astype(np.int64)


def _dense_int(X, what: str) -> np.ndarray:
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
    return _as_counts(Xd, what)


def _class_part(est, codes: np.ndarray, likelihood: str) -> tuple[dict, dict, tuple]:
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


def _declare_class_prior(spec: ModelSpec):
    """Declare π and the label likelihood inside the current model context; returns (π, y)."""
    import pymc as pm

    if "class_prior_value" in spec.data:
        value = pm.Data("class_prior_value", spec.data["class_prior_value"], dims="class")
        pi = pm.Deterministic("class_prior", value, dims="class")
    else:
        gamma = pm.Data("class_alpha", spec.data["class_alpha"], dims="class")
        pi = pm.Dirichlet("class_prior", a=gamma, dims="class")
    if spec.likelihood == "data":
        y_d = pm.Data("y_data", spec.data["y_data"], dims="doc")
        pm.Categorical("y", p=pi, observed=y_d, dims="doc")
        return pi, y_d
    n_d = pm.Data("class_count_data", spec.data["class_count_data"], dims="class")
    pm.Multinomial("class_count", n=n_d.sum(), p=pi, observed=n_d, dims="class")
    return pi, n_d


def _declare_alpha(spec: ModelSpec):
    import pymc as pm

    prior = spec.alpha_prior
    return pm.Gamma("alpha", alpha=prior["alpha"], beta=prior["beta"])


def _spec(est, X, codes, likelihood, prior, *, kind, data, observed, structure, build, **kw):
    class_data, class_obs, class_structure = _class_part(est, codes, likelihood)
    coords = layout_coords(est)
    coords.pop("feature_bis", None)
    coords |= kw.pop("coords", {})
    if likelihood == "data":
        coords["doc"] = list(range(len(codes)))
    var_names = ["class_prior", "feature_prob"] + (["alpha"] if prior is not None else [])
    prior_structure = None if prior is None else tuple(sorted(prior.items()))
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
        dims={"class_prior": ["class"], "feature_prob": kw.pop("feature_dims")},
        alpha_prior=prior,
        build=build,
        extra=kw.pop("extra", {}),
    )


# -- Bernoulli NB -----------------------------------------------------------------------------
def _bernoulli_spec(est, X, codes, likelihood, prior) -> ModelSpec:
    n_features = X.shape[1]
    alpha = np.broadcast_to(check_alpha(_alpha(est), n_features), (n_features,)).astype(float)
    beta = alpha if est.beta is None else check_alpha(est.beta, n_features, "beta")
    beta = np.broadcast_to(beta, (n_features,)).astype(float)
    # A learned α replaces the fixed pseudo-counts (both of them when β defaults to α); unused
    # hyperparameters are left out because a compiled model only knows the data it reads.
    data: dict[str, np.ndarray] = {}
    if prior is None:
        data["feature_alpha"] = alpha.copy()
    if prior is None or est.beta is not None:
        data["feature_beta"] = beta.copy()
    if likelihood == "data":
        data["X_data"] = _dense_int(X, "binary features")
        observed = {"X": (data["X_data"], ["doc", "feature"])}
    else:
        ones = np.ones(len(codes))
        counts = count_features(X, codes, ones, len(est.classes_))
        data["feature_count_data"] = _as_counts(counts, "document frequencies")
        observed = {"feature_count": (data["feature_count_data"], ["class", "feature"])}
    structure = ("beta_is_alpha" if est.beta is None else "beta_fixed",)
    return _spec(
        est,
        X,
        codes,
        likelihood,
        prior,
        kind="bernoulli",
        data=data,
        observed=observed,
        structure=structure,
        build=_build_bernoulli,
        feature_dims=["class", "feature"],
    )


def _build_bernoulli(spec: ModelSpec):
    import pymc as pm

    with pm.Model(coords=spec.coords) as model:
        _, labels = _declare_class_prior(spec)
        if spec.alpha_prior is None:
            a = pm.Data("feature_alpha", spec.data["feature_alpha"], dims="feature")
        else:
            a = _declare_alpha(spec)
        if "feature_beta" in spec.data:
            b = pm.Data("feature_beta", spec.data["feature_beta"], dims="feature")
        else:
            b = a
        phi = pm.Beta("feature_prob", alpha=a, beta=b, dims=("class", "feature"))
        if spec.likelihood == "data":
            X_d = pm.Data("X_data", spec.data["X_data"], dims=("doc", "feature"))
            pm.Bernoulli("X", p=phi[labels], observed=X_d, dims=("doc", "feature"))
        else:
            D_d = pm.Data(
                "feature_count_data", spec.data["feature_count_data"], dims=("class", "feature")
            )
            pm.Binomial(
                "feature_count", n=labels[:, None], p=phi, observed=D_d, dims=("class", "feature")
            )
    return model


# -- multinomial NB ---------------------------------------------------------------------------
def _multinomial_spec(est, X, codes, likelihood, prior) -> ModelSpec:
    n_features = X.shape[1]
    alpha = np.broadcast_to(check_alpha(_alpha(est), n_features), (n_features,)).astype(float)
    coords: dict[str, list] = {}
    pooled = est._pooled
    extra: dict[str, Any] = {}
    obs_dim = "feature"
    if pooled is not None:
        # unk=True: θ lives on the seen features plus one UNK category (as est.posterior_);
        # feature_prob repeats P(UNK | c) in every pooled column, as bayesnb.draws does.
        names = np.asarray(layout_coords(est)["feature"], dtype=str)
        coords["category"] = [*names[~pooled].tolist(), UNK]
        category = np.empty(n_features, dtype=np.intp)
        category[~pooled] = np.arange(int((~pooled).sum()))
        category[pooled] = int((~pooled).sum())
        extra["category"] = category
        unk_col = np.asarray(X[:, pooled].sum(axis=1)).reshape(-1, 1)
        kept = X[:, ~pooled]
        X = (
            sp.hstack([kept, sp.csr_matrix(unk_col)]).tocsr()
            if sp.issparse(X)
            else np.hstack([kept, unk_col])
        )
        alpha = np.append(alpha[~pooled], float(_alpha(est)))
        obs_dim = "category"
    data = {"feature_alpha": alpha.copy()} if prior is None else {}
    if likelihood == "data":
        data["X_data"] = _dense_int(X, "token counts")
        observed = {"X": (data["X_data"], ["doc", obs_dim])}
    else:
        counts = count_features(X, codes, np.ones(len(codes)), len(est.classes_))
        data["feature_count_data"] = _as_counts(counts, "token counts")
        observed = {"feature_count": (data["feature_count_data"], ["class", obs_dim])}
    return _spec(
        est,
        X,
        codes,
        likelihood,
        prior,
        kind="multinomial",
        data=data,
        observed=observed,
        structure=("unk", tuple(extra["category"].tolist())) if extra else ("full",),
        build=_build_multinomial,
        feature_dims=["class", "feature"],
        coords=coords,
        extra=extra,
    )


def _build_multinomial(spec: ModelSpec):
    import pymc as pm
    import pytensor.tensor as pt

    unk = "category" in spec.extra
    dim = "category" if unk else "feature"
    n_classes, n_cats = len(spec.coords["class"]), len(spec.coords[dim])
    with pm.Model(coords=spec.coords) as model:
        _, labels = _declare_class_prior(spec)
        if spec.alpha_prior is None:
            a = pm.Data("feature_alpha", spec.data["feature_alpha"], dims=dim)
        else:
            a = _declare_alpha(spec)
        conc = pt.broadcast_to(a, (n_classes, n_cats))
        name = "category_prob" if unk else "feature_prob"
        theta = pm.Dirichlet(name, a=conc, dims=("class", dim))
        if unk:
            pm.Deterministic(
                "feature_prob", theta[:, spec.extra["category"]], dims=("class", "feature")
            )
        if spec.likelihood == "data":
            X_d = pm.Data("X_data", spec.data["X_data"], dims=("doc", dim))
            pm.Multinomial("X", n=X_d.sum(axis=1), p=theta[labels], observed=X_d, dims=("doc", dim))
        else:
            T_d = pm.Data(
                "feature_count_data", spec.data["feature_count_data"], dims=("class", dim)
            )
            pm.Multinomial(
                "feature_count", n=T_d.sum(axis=1), p=theta, observed=T_d, dims=("class", dim)
            )
    return model


# -- categorical NB ---------------------------------------------------------------------------
def _categorical_spec(est, X, codes, likelihood, prior) -> ModelSpec:
    n_features = X.shape[1]
    n_classes = len(est.classes_)
    k = np.asarray(est.n_categories_, dtype=np.intp)
    width = int(k.max()) + 1
    alpha = np.broadcast_to(check_alpha(_alpha(est), n_features), (n_features,)).astype(float)
    groups = {int(kk): np.flatnonzero(k == kk) for kk in np.unique(k)}
    single = len(groups) == 1
    data: dict[str, np.ndarray] = {}
    Xd = _dense_int(X, "categories")
    slots = np.minimum(Xd, k[None, :])  # every value >= k_j is the pooled slot k_j
    if likelihood == "sufficient":
        flat = count_categories(Xd, codes, np.ones(len(codes)), n_classes, k)
        flat = _as_counts(flat, "category counts")
        offsets = category_offsets(k)
        padded = np.zeros((n_classes, n_features, width), dtype=np.int64)
        for j in range(n_features):
            padded[:, j, : k[j] + 1] = flat[:, offsets[j] : offsets[j] + k[j] + 1]
        observed = {"category_count": (padded, ["class", "feature", "value"])}
    else:
        observed = {"X": (Xd, ["doc", "feature"])}
    for kk, cols in groups.items():
        suffix = "" if single else f"_k{kk}"
        if prior is None:
            data[f"feature_alpha{suffix}"] = np.repeat(alpha[cols, None], kk + 1, axis=1)
        if likelihood == "sufficient":
            data[f"category_count_data{suffix}"] = padded[:, cols, : kk + 1]
        else:
            data[f"X_data{suffix}"] = slots[:, cols]
    return _spec(
        est,
        X,
        codes,
        likelihood,
        prior,
        kind="categorical",
        data=data,
        observed=observed,
        structure=("k", tuple(k.tolist())),
        build=_build_categorical,
        feature_dims=["class", "feature", "value"],
        coords={"value": list(range(width))},
        extra={"groups": groups, "n_categories": k, "width": width},
    )


def _build_categorical(spec: ModelSpec):
    import pymc as pm
    import pytensor.tensor as pt

    groups, width = spec.extra["groups"], spec.extra["width"]
    n_classes = len(spec.coords["class"])
    single = len(groups) == 1
    with pm.Model(coords=spec.coords) as model:
        _, labels = _declare_class_prior(spec)
        alpha = _declare_alpha(spec) if spec.alpha_prior is not None else None
        parts, order = [], []
        for kk, cols in groups.items():
            suffix = "" if single else f"_k{kk}"
            shape = (n_classes, len(cols), kk + 1)
            if alpha is None:
                a = pm.Data(f"feature_alpha{suffix}", spec.data[f"feature_alpha{suffix}"])
            else:
                a = alpha
            conc = pt.broadcast_to(a, shape)
            if single:
                theta = pm.Dirichlet("feature_prob", a=conc, dims=("class", "feature", "value"))
            else:
                theta = pm.Dirichlet(f"feature_prob{suffix}", a=conc, shape=shape)
            if spec.likelihood == "sufficient":
                C_d = pm.Data(
                    f"category_count_data{suffix}", spec.data[f"category_count_data{suffix}"]
                )
                pm.Multinomial(
                    f"category_count{suffix}",
                    n=C_d.sum(axis=-1),
                    p=theta,
                    observed=C_d,
                    shape=shape,
                )
            else:
                X_d = pm.Data(f"X_data{suffix}", spec.data[f"X_data{suffix}"])
                pm.Categorical(f"X{suffix}", p=theta[labels], observed=X_d)
            # Pad to the common value axis: slots after the unseen slot k are NaN.
            pad = pt.fill(theta[:, :, :1], np.nan) * pt.ones((1, 1, width - kk - 1))
            parts.append(pt.concatenate([theta, pad], axis=2))
            order.extend(cols.tolist())
        if not single:
            inverse = np.argsort(np.asarray(order))
            stacked = pt.concatenate(parts, axis=1)[:, inverse, :]
            pm.Deterministic("feature_prob", stacked, dims=("class", "feature", "value"))
    return model
