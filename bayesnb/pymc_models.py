"""PyMC declarations: the generative models of bayesnb with exactly the closed-form priors.

The ``declare`` arrow of DESIGN.md §2. Every model is

- labels: ``y_i ~ Categorical(π)``, ``π ~ Dirichlet(γ·1)`` with ``γ = est.class_alpha``
  (``fit_prior=False`` or ``class_prior=`` fix π instead: it becomes constant data);
- Bernoulli NB: ``x_ij ~ Bernoulli(φ_{y_i j})``, ``φ_cj ~ Beta(α_j, β_j)``;
- multinomial NB: ``x_i ~ Multinomial(n_i, θ_{y_i})``, ``θ_c ~ Dirichlet(α)``;
- categorical NB: ``x_ij ~ Categorical(θ_{y_i j})``, ``θ_cj ~ Dirichlet(α_j·1)`` over the
  ``k_j`` categories seen by the estimator plus one pooled slot for every other value;
- Poisson NB: ``x_ij ~ Poisson(λ_{y_i j})``, ``λ_cj ~ Gamma(α_j, β_j)`` (shape, rate), the
  variable ``feature_rate``; integer counts only;
- Dirichlet-compound-multinomial NB: ``β_cj ~ Gamma(prior_shape, prior_rate)`` (variable
  ``concentration``, with ``feature_prob = β_c / B_c`` a Deterministic), ``x_i ~
  DirichletMultinomial(n_i, β_{y_i})`` (data form) or the ``pm.Potential`` ``polya_loglik`` on
  the value and length histograms (sufficient form; it omits the multinomial coefficients,
  a constant);
- GDA: ``x_i ~ N(μ_{y_i}, Σ)`` (``Σ_{y_i}`` per class) with the Normal-Inverse-Wishart prior
  of the closed-form path (``est.posterior_.prior``, the data-scaled default resolved):
  ``Σ ~ IW(Ψ0, ν0)``, ``μ_c | Σ ~ N(μ0, Σ/κ0)``; the diagonal model has
  ``σ²_cj ~ InvGamma((ν0 − d + 1)/2, Ψ0_jj/2)`` and ``μ_cj | σ² ~ N(μ0_j, σ²_cj/κ0)``.

Two likelihood forms declare the same posterior:

``likelihood="data"``
    The literal per-document model: one observed ``y`` (dim ``doc``) and one observed ``X``
    (dims ``doc, feature``). Its cost grows with the number of documents; it is the form to
    use for posterior predictive draws of documents. GDA's ``X`` is written on the layout
    variables ``mean`` and ``cov`` (not on the auxiliary Bartlett factors, which
    :func:`bayesnb.inference.fit_pymc` drops), so ``pm.sample_posterior_predictive(tree,
    freeze_vars=["mean", "cov"])`` on this model draws documents from a fit's posterior.
``likelihood="sufficient"``
    The likelihood written on the sufficient statistics: ``class_count ~ Multinomial(N, π)``;
    Bernoulli: ``feature_count[c, j] ~ Binomial(N_c, φ_cj)`` (document frequencies);
    multinomial: ``feature_count[c] ~ Multinomial(T_c, θ_c)`` (token counts); categorical:
    ``category_count[c, j] ~ Multinomial(N_c, θ_cj)``; Poisson: the ``pm.Potential``
    ``poisson_loglik`` = ``Σ_cj [S_cj log λ_cj − N_c λ_cj]`` (S the per-class feature sums,
    recorded in ``observed_data`` as ``feature_count``). It differs from the data form by
    the binomial/multinomial coefficients (Poisson: ``Σ ln x!``) only, a constant, so the
    posterior is identical and the cost of one gradient does not depend on the number of
    documents. GDA: a ``pm.Potential`` with the Gaussian log-likelihood through ``N_c``, the
    class means ``x̄_c`` and the within-class scatter ``S`` (pooled, per class, or its
    diagonal),
    ``−½[N d log 2π + N log|Σ| + tr(Σ⁻¹S) + Σ_c N_c (x̄_c − μ_c)ᵀΣ⁻¹(x̄_c − μ_c)]``, equal to the
    data form's log-likelihood to rounding (no constant in between); the statistics are
    recorded in ``observed_data`` as ``class_count``, ``class_mean`` and ``scatter``.

Every observation and every prior hyperparameter enters through ``pm.Data``, so a model can be
re-used for new documents (``pm.set_data``) and a compiled model for new statistics or a new
prior of the same shape (:mod:`bayesnb.inference` caches compiled models this way).

Variable names follow the DataTree layout (:mod:`bayesnb.datatree`): ``class_prior`` (dims
``class``) and ``feature_prob`` (dims ``class, feature``; categorical ``class, feature,
value``), GDA ``mean`` (``class, feature``) and ``cov`` (``feature, feature_bis`` shared,
``class, feature, feature_bis`` per class and diagonal, the diagonal one with zeros off the
diagonal), so NUTS draws land in the same layout as the exact ones.

**GDA parametrisation.** PyMC has no inverse Wishart, so Σ is declared through the Bartlett
decomposition of its precision: ``Λ = Σ⁻¹ ~ Wishart(Ψ0⁻¹, ν0)`` is ``Λ = L A Aᵀ Lᵀ`` with
``L = chol(Ψ0⁻¹)`` and ``A`` lower triangular, ``A_ii = √c_i``, ``c_i ~ χ²(ν0 − i + 1)``
(i = 1..d, free variable ``bartlett_chi2``) and ``A_ij ~ N(0, 1)`` below the diagonal
(``bartlett_normal``), so ``Σ = Λ⁻¹ ~ IW(Ψ0, ν0)`` exactly; per class, one ``(c, A)`` per
class. ``P = L A`` is then the lower Cholesky factor of Λ itself, so the likelihood needs no
factorisation and no solve: ``log|Σ| = −2 Σ_i log P_ii`` and
``(x − μ)ᵀΣ⁻¹(x − μ) = ‖Pᵀ(x − μ)‖²``. ``cov`` is the Deterministic ``P⁻ᵀP⁻¹`` (one
triangular solve). The class means are *centred*: ``mean`` itself is the free variable,
``N(μ0, (κ0 Λ)⁻¹)`` written on ``P`` (a ``pm.CustomDist``; the data form's ``X`` is the same
distribution with κ = 1). The non-centred form (``μ_c = μ0 + P⁻ᵀ z_c/√κ0``,
``z_c ~ N(0, I)``) ties ``z`` to ``A`` as soon as the data pin the means down: on 3 classes ×
3 features × 100 documents it took 1.5× the leapfrog steps for 0.4-0.75× the effective sample
size. Diagonal: ``variance`` ~ InvGamma and ``mean`` ~ Normal, both centred.

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
raise ``ValueError`` (GDA included, so that both likelihood forms declare the same model).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from bayesnb.datatree import layout_coords
from bayesnb.stats.discrete import category_offsets, count_categories, count_features
from bayesnb.stats.gaussian import gaussian_stats
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
        ``"bernoulli"``, ``"multinomial"``, ``"categorical"`` or ``"gda"``.
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
        The documents as the estimator checks them (binarised; expanded by integer weights),
        all columns: what the label log-likelihood of :mod:`bayesnb.loo` scores.
    var_names : list of str
        The posterior variables of the layout (``class_prior``, ``feature_prob``, ``alpha``;
        GDA ``class_prior``, ``mean``, ``cov``).
    dims : dict of str -> list of dims
        Dims of the posterior variables.
    extra : dict
        Model-specific arrays (categorical groups and offsets, GDA covariance type).
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
            if (self.kind, name) == ("gda", "psi0") and np.ndim(value) == 1:
                dims = ["feature"]  # the diagonal model keeps only Ψ0's diagonal
            out[name] = (value, dims)
        return out

    def model(self):
        """A fresh ``pm.Model`` of this specification."""
        return self.build(self)


_NIW_HYPERPARAMETERS = ("mu0", "kappa0", "psi0", "nu0")
_HYPERPARAMETERS = (
    "class_alpha",
    "class_prior_value",
    "feature_alpha",
    "feature_beta",
    *_NIW_HYPERPARAMETERS,
)
_HYPERPARAMETER_DIMS = {
    (kind, name): dims
    for kind in ("bernoulli", "multinomial", "categorical", "gda")
    for name, dims in [("class_alpha", ["class"]), ("class_prior_value", ["class"])]
} | {
    ("bernoulli", "feature_alpha"): ["feature"],
    ("bernoulli", "feature_beta"): ["feature"],
    ("gda", "mu0"): ["feature"],
    ("gda", "psi0"): ["feature", "feature_bis"],
}
# DirichletCompoundNB: the Gamma(shape, rate) prior of every concentration, two scalars.
_HYPERPARAMETERS = (*_HYPERPARAMETERS, "concentration_shape", "concentration_rate")
_HYPERPARAMETER_DIMS |= {
    ("dcm", "class_alpha"): ["class"],
    ("dcm", "class_prior_value"): ["class"],
}
# PoissonNB: class prior as for the others, Gamma shape and rate per feature.
_HYPERPARAMETER_DIMS |= {
    ("poisson", "class_alpha"): ["class"],
    ("poisson", "class_prior_value"): ["class"],
    ("poisson", "feature_alpha"): ["feature"],
    ("poisson", "feature_beta"): ["feature"],
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
    est : BernoulliNB, MultinomialNB, CategoricalNB or GDA
        Supplies the prior (``alpha``, ``beta``, ``class_alpha``, ``fit_prior``,
        ``class_prior``; GDA: ``covariance`` and the resolved Normal-Inverse-Wishart
        ``est.posterior_.prior``) and the encoding (``binarize``, ``unk``, categories). An unfitted
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
        gains a scalar ``alpha``. Naive Bayes models only.
    sample_weight : array-like of shape (n_samples,), optional
        Integer weights only (a weight is a repeat count).

    Returns
    -------
    pymc.Model
        Free variables ``class_prior`` (unless fixed) and ``feature_prob`` (or its per-k
        groups), ``alpha`` with ``alpha_prior``; observed ``y``/``X`` (data) or
        ``class_count``/``feature_count``/``category_count`` (sufficient). GDA: free
        ``bartlett_chi2``, ``bartlett_normal`` (d > 1) and ``mean`` (``variance`` and ``mean``
        for the diagonal model), Deterministic ``cov``; observed ``y`` and ``X`` (data) or
        ``class_count`` plus the Potential ``gaussian_loglik`` (sufficient).

    Notes
    -----
    With a learned α the posterior couples α and every probability; when α is small (< 1) and
    many counts are 0, the Dirichlet mass piles up at the simplex boundary and NUTS may report
    a few divergences: raise ``target_accept`` (0.9-0.95) and the number of draws.

    Raises
    ------
    ValueError
        ``class_alpha = 0`` with a sampled class prior (the improper Haldane prior has no
        PyMC density), unknown ``likelihood``, non-integer sample weights or counts,
        ``alpha_prior`` with GDA.
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

    The one place that dispatches on the estimator type.
    """
    from bayesnb.gda import GDA
    from bayesnb.naive_bayes import BernoulliNB, CategoricalNB, MultinomialNB
    from bayesnb.poisson import PoissonNB

    likelihood = check_likelihood(likelihood)
    prior = _check_alpha_prior(alpha_prior)
    if getattr(est, "_family", None) == "columnwise":
        return _columnwise_spec(est, X, y, likelihood, prior, sample_weight)
    if isinstance(est, BernoulliNB):
        make = _bernoulli_spec
    elif isinstance(est, MultinomialNB):
        make = _multinomial_spec
    elif isinstance(est, CategoricalNB):
        make = _categorical_spec
    elif isinstance(est, PoissonNB):
        make = _poisson_spec
    elif getattr(est, "_family", None) == "dcm":
        if prior is not None:
            raise ValueError(
                "alpha_prior does not apply to DirichletCompoundNB: its concentrations β_cj "
                "already have the Gamma(prior_shape, prior_rate) prior (set those on the "
                "estimator)"
            )
        make = _dcm_spec
    elif isinstance(est, GDA):
        if prior is not None:
            raise ValueError(
                "alpha_prior applies to the naive Bayes models only; GDA's prior is its "
                "NormalInverseWishart (est.prior)"
            )
        make = _gda_spec
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
    _refuse_missing(est, X)
    X = est._encode(X)  # the likelihood's view: BernoulliNB binarises
    _, codes = encode_labels(y, est.classes_)
    if sample_weight is not None:
        w = check_sample_weight(sample_weight, X)
        rows = np.repeat(np.arange(X.shape[0]), w.astype(np.intp))
        X, codes = X[rows], codes[rows]
    return X, codes.astype(np.int64)


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


def _declare_feature_alpha(spec: ModelSpec, dim: str = "feature"):
    """The feature-prior concentration: fixed data over ``dim``, or the Gamma-prior ``alpha``."""
    import pymc as pm

    if spec.alpha_prior is None:
        return pm.Data("feature_alpha", spec.data["feature_alpha"], dims=dim)
    return _declare_alpha(spec)


def _declare_feature_data(spec: ModelSpec, dim: str = "feature"):
    """The observed features: ``X_data`` (doc, dim) or the sums ``feature_count_data``
    (class, dim), as ``spec.likelihood`` says."""
    import pymc as pm

    if spec.likelihood == "data":
        return pm.Data("X_data", spec.data["X_data"], dims=("doc", dim))
    return pm.Data("feature_count_data", spec.data["feature_count_data"], dims=("class", dim))


def _spec(est, X, codes, likelihood, prior, *, kind, data, observed, structure, build, dims, **kw):
    """Assemble a ModelSpec; ``dims`` maps the layout variables besides ``class_prior``."""
    class_data, class_obs, class_structure = _class_part(est, codes, likelihood)
    coords = layout_coords(est)
    if not any("feature_bis" in d for d in dims.values()):
        coords.pop("feature_bis")
    coords |= kw.pop("coords", {})
    if likelihood == "data":
        coords["doc"] = list(range(len(codes)))
    var_names = ["class_prior", *dims] + (["alpha"] if prior is not None else [])
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
        dims={"class_prior": ["class"], **dims},
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
        dims={"feature_prob": ["class", "feature"]},
    )


def _build_bernoulli(spec: ModelSpec):
    import pymc as pm

    with pm.Model(coords=spec.coords) as model:
        _, labels = _declare_class_prior(spec)
        a = _declare_feature_alpha(spec)
        if "feature_beta" in spec.data:
            b = pm.Data("feature_beta", spec.data["feature_beta"], dims="feature")
        else:
            b = a
        phi = pm.Beta("feature_prob", alpha=a, beta=b, dims=("class", "feature"))
        if spec.likelihood == "data":
            X_d = _declare_feature_data(spec)
            pm.Bernoulli("X", p=phi[labels], observed=X_d, dims=("doc", "feature"))
        else:
            D_d = _declare_feature_data(spec)
            pm.Binomial(
                "feature_count", n=labels[:, None], p=phi, observed=D_d, dims=("class", "feature")
            )
    return model


# -- multinomial NB ---------------------------------------------------------------------------
def _multinomial_spec(est, X, codes, likelihood, prior) -> ModelSpec:
    n_features = X.shape[1]
    alpha = np.broadcast_to(check_alpha(_alpha(est), n_features), (n_features,)).astype(float)
    coords: dict[str, list] = {}
    documents = X  # every column: the label log-likelihood scores feature_prob on them
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
        documents,
        codes,
        likelihood,
        prior,
        kind="multinomial",
        data=data,
        observed=observed,
        structure=("unk", tuple(extra["category"].tolist())) if extra else ("full",),
        build=_build_multinomial,
        dims={"feature_prob": ["class", "feature"]},
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
        a = _declare_feature_alpha(spec, dim)
        conc = pt.broadcast_to(a, (n_classes, n_cats))
        name = "category_prob" if unk else "feature_prob"
        theta = pm.Dirichlet(name, a=conc, dims=("class", dim))
        if unk:
            pm.Deterministic(
                "feature_prob", theta[:, spec.extra["category"]], dims=("class", "feature")
            )
        if spec.likelihood == "data":
            X_d = _declare_feature_data(spec, dim)
            pm.Multinomial("X", n=X_d.sum(axis=1), p=theta[labels], observed=X_d, dims=("doc", dim))
        else:
            T_d = _declare_feature_data(spec, dim)
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
        dims={"feature_prob": ["class", "feature", "value"]},
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


# -- GDA --------------------------------------------------------------------------------------
_LOG_2PI = float(np.log(2.0 * np.pi))
_PER_CLASS_COV_DIMS = ["class", "feature", "feature_bis"]


def _gda_spec(est, X, codes, likelihood, prior) -> ModelSpec:
    post = est.posterior_  # the prior resolved exactly as the closed-form path resolves it
    niw, covariance = post.prior, post.covariance_type
    n_classes = len(est.classes_)
    X = np.asarray(X, dtype=np.float64)
    psi0 = np.diag(niw.psi0).copy() if covariance == "diagonal" else niw.psi0.copy()
    data: dict[str, np.ndarray] = {
        "mu0": niw.mu0.copy(),
        "kappa0": np.asarray(niw.kappa0, dtype=np.float64),
        "psi0": psi0,
        "nu0": np.asarray(niw.nu0, dtype=np.float64),
    }
    scatter_dims = {
        "shared": ["feature", "feature_bis"],
        "per_class": ["class", "feature", "feature_bis"],
        "diagonal": ["class", "feature"],
    }[covariance]
    if likelihood == "data":
        data["X_data"] = X
        observed = {"X": (X, ["doc", "feature"])}
    else:
        st = gaussian_stats(X, codes, np.ones(len(codes)), n_classes, covariance)
        data["class_mean_data"] = st.mean
        data["scatter_data"] = st.scatter
        observed = {
            "class_mean": (st.mean, ["class", "feature"]),
            "scatter": (st.scatter, scatter_dims),
        }
    cov_dims = ["feature", "feature_bis"] if covariance == "shared" else _PER_CLASS_COV_DIMS
    return _spec(
        est,
        X,
        codes,
        likelihood,
        prior,
        kind="gda",
        data=data,
        observed=observed,
        structure=(covariance,),
        build=_build_gda,
        dims={"mean": ["class", "feature"], "cov": cov_dims},
        extra={"covariance": covariance},
    )


def _bartlett_precision_factor(nu0, psi0, n_features: int, batch: tuple[str, ...]):
    """``P = L A`` with ``P Pᵀ = Λ ~ Wishart(Ψ0⁻¹, ν0)``: the lower Cholesky factor of Λ.

    Declares ``bartlett_chi2`` (c_i ~ χ²(ν0 − i + 1), i = 1..d) and, for d > 1,
    ``bartlett_normal`` (the strictly lower entries of A) with leading dims ``batch``.

    Returns
    -------
    P : TensorVariable of shape (*batch, d, d)
    log_det : TensorVariable of shape batch
        ``log|Λ| = 2 Σ_i log P_ii = 2 Σ_i log L_ii + Σ_i log c_i``, from the factors (no
        diagonal is extracted from the batched P: its gradient has no compiled batched form).
    """
    import pymc as pm
    import pytensor.tensor as pt

    d = n_features
    L = pt.linalg.cholesky(pt.linalg.inv(psi0))  # chol(Ψ0⁻¹); Ψ0 is data, not a parameter
    chi2 = pm.ChiSquared("bartlett_chi2", nu=nu0 - np.arange(d), dims=(*batch, "feature"))
    log_det = 2.0 * pt.sum(pt.log(pt.diagonal(L))) + pt.sum(pt.log(chi2), axis=-1)
    diag = np.arange(d)
    shape = tuple(len(pm.modelcontext(None).coords[b]) for b in batch)
    A = pt.zeros((*shape, d, d))
    A = pt.set_subtensor(A[..., diag, diag], pt.sqrt(chi2))
    rows, cols = np.tril_indices(d, -1)
    if rows.size:
        z = pm.Normal("bartlett_normal", 0.0, 1.0, shape=(*shape, rows.size))
        A = pt.set_subtensor(A[..., rows, cols], z)
    return L @ A, log_det


def _build_gda(spec: ModelSpec):
    import pymc as pm

    with pm.Model(coords=spec.coords) as model:
        _, labels = _declare_class_prior(spec)  # y codes (data) or N_c (sufficient)
        prior = {
            "mu0": pm.Data("mu0", spec.data["mu0"], dims="feature"),
            "kappa0": pm.Data("kappa0", spec.data["kappa0"]),
            "nu0": pm.Data("nu0", spec.data["nu0"]),
        }
        if spec.likelihood == "sufficient":
            observations = {
                "n": labels,
                "xbar": pm.Data(
                    "class_mean_data", spec.data["class_mean_data"], dims=("class", "feature")
                ),
                "scatter": pm.Data("scatter_data", spec.data["scatter_data"]),
            }
        else:
            observations = {
                "y": labels,
                "X": pm.Data("X_data", spec.data["X_data"], dims=("doc", "feature")),
            }
        if spec.extra["covariance"] == "diagonal":
            _declare_diagonal_gda(spec, prior, observations)
        else:
            _declare_full_gda(spec, prior, observations)
    return model


def _declare_diagonal_gda(spec: ModelSpec, prior: dict, obs: dict) -> None:
    """Normal-Inverse-Gamma per (class, feature), centred; the likelihood on ``obs``."""
    import pymc as pm
    import pytensor.tensor as pt

    d = len(spec.coords["feature"])
    psi0 = pm.Data("psi0", spec.data["psi0"], dims="feature")
    var = pm.InverseGamma(
        "variance",
        alpha=(prior["nu0"] - d + 1.0) / 2.0,
        beta=psi0 / 2.0,
        dims=("class", "feature"),
    )
    mean = pm.Normal(
        "mean", mu=prior["mu0"], sigma=pt.sqrt(var / prior["kappa0"]), dims=("class", "feature")
    )
    cov = pm.Deterministic("cov", var[:, :, None] * pt.eye(d), dims=_PER_CLASS_COV_DIMS)
    if "scatter" in obs:
        n, xbar, scatter = obs["n"][:, None], obs["xbar"], obs["scatter"]
        quad = scatter + n * (xbar - mean) ** 2
        loglik = -0.5 * pt.sum(n * (_LOG_2PI + pt.log(var)) + quad / var)
        pm.Potential("gaussian_loglik", loglik)
    else:
        y = obs["y"]
        # On the layout variables, as in _declare_full_gda: the variances from ``cov``.
        sd = pt.sqrt(pt.sum(cov * pt.eye(d), axis=-1))
        pm.Normal("X", mu=mean[y], sigma=sd[y], observed=obs["X"], dims=("doc", "feature"))


def _declare_full_gda(spec: ModelSpec, prior: dict, obs: dict) -> None:
    """Bartlett Σ (shared or per class), centred means; the likelihood on ``obs``."""
    import pymc as pm
    import pytensor.tensor as pt
    from pytensor.tensor.linalg import solve_triangular

    d = len(spec.coords["feature"])
    shared = spec.extra["covariance"] == "shared"
    psi0 = pm.Data("psi0", spec.data["psi0"], dims=("feature", "feature_bis"))
    P, log_det_prec = _bartlett_precision_factor(
        prior["nu0"], psi0, d, () if shared else ("class",)
    )
    P_inv = solve_triangular(P, pt.eye(d), lower=True, b_ndim=2)
    cov = P_inv.mT @ P_inv  # Σ = Λ⁻¹ = P⁻ᵀ P⁻¹, symmetrised against rounding
    cov_dims = ["feature", "feature_bis"] if shared else _PER_CLASS_COV_DIMS
    cov = pm.Deterministic("cov", 0.5 * (cov + cov.mT), dims=cov_dims)
    mean = _precision_normal(
        "mean", prior["mu0"], prior["kappa0"], P, log_det_prec, dims=("class", "feature")
    )
    if "scatter" in obs:
        n, xbar, scatter = obs["n"], obs["xbar"], obs["scatter"]
        # tr(Λ S) = tr(Pᵀ S P) = Σ (S P) ∘ P (per class, summed, for per-class S_c and P_c).
        trace = pt.sum((scatter @ P) * P)
        if shared:
            W = (xbar - mean) @ P
            log_det = log_det_prec * n.sum()
        else:
            W = ((xbar - mean)[:, None, :] @ P)[:, 0, :]
            log_det = pt.sum(log_det_prec * n)
        # Rows of W are Pᵀ(x̄_c − μ_c): ‖W_c‖² = (x̄_c − μ_c)ᵀ Λ (x̄_c − μ_c).
        quad = pt.sum(n * pt.sum(W**2, axis=-1))
        loglik = -0.5 * (n.sum() * d * _LOG_2PI - log_det + trace + quad)
        pm.Potential("gaussian_loglik", loglik)
    else:
        # x_i ~ N(μ_{y_i}, Σ_{y_i}) written on the layout variables ``mean`` and ``cov`` only
        # (not on the Bartlett factors, which fit_pymc drops): a DataTree of fit_pymc then
        # drives posterior predictive draws with freeze_vars=["mean", "cov"]. The precision
        # factor is recomputed from Σ, a d × d factorisation per class.
        y = obs["y"]
        P_x = pt.linalg.cholesky(pt.linalg.inv(cov))
        # log|Λ| without pt.diagonal, whose batched gradient has no numba implementation
        log_det_x = 2.0 * pt.sum(pt.log(pt.sum(P_x * pt.eye(d), axis=-1)), axis=-1)
        _precision_normal(
            "X",
            mean[y],
            1.0,
            P_x if shared else P_x[y],
            log_det_x if shared else log_det_x[y],
            observed=obs["X"],
            dims=("doc", "feature"),
        )


def _precision_normal(name: str, mu, kappa, P, log_det, **kwargs):
    """``x ~ N(μ, (κ Λ)⁻¹)`` declared through ``P``, the lower Cholesky factor of Λ.

    ``log_det`` is ``log|Λ|``. The density needs no factorisation and no solve:
    ``½[d (log κ − log 2π) + log|Λ| − κ ‖Pᵀ(x − μ)‖²]``; draws are ``μ + P⁻ᵀ z / √κ`` (one
    triangular solve). Not ``pm.MvNormal(tau=...)``: with a batch of precision matrices (one per
    class) that are not constants, PyMC 6.4 computes a wrong log-density when the batch size
    equals d and raises a shape error otherwise (its precision rewrite multiplies
    ``delta.T @ tau @ delta`` across the batch); and ``pm.MvNormal(chol=...)`` with a batch of
    factors takes a batched diagonal whose gradient has no numba implementation, so the whole
    gradient falls back to object mode.
    """
    import pymc as pm

    return pm.CustomDist(
        name,
        mu,
        kappa,
        P,
        log_det,
        dist=_precision_normal_draw,
        logp=_precision_normal_logp,
        signature="(n),(),(n,n),()->(n)",
        **kwargs,
    )


def _precision_normal_logp(value, mu, kappa, P, log_det):
    import pytensor.tensor as pt

    d = value.shape[-1]
    W = ((value - mu)[..., None, :] @ P)[..., 0, :]  # rows Pᵀ(x − μ)
    return 0.5 * (d * (pt.log(kappa) - _LOG_2PI) + log_det - kappa * pt.sum(W**2, axis=-1))


def _precision_normal_draw(mu, kappa, P, log_det, size):
    import pymc as pm
    import pytensor.tensor as pt
    from pymc.distributions.shape_utils import rv_size_is_none
    from pytensor.tensor.linalg import solve_triangular

    if rv_size_is_none(size):
        shape = pt.broadcast_arrays(mu, P[..., 0], kappa[..., None], log_det[..., None])[0].shape
    else:
        shape = pt.concatenate([size, mu.shape[-1:]])
    z = pm.Normal.dist(0.0, 1.0, size=shape)
    delta = solve_triangular(P.mT, z[..., None], lower=False, b_ndim=2)[..., 0]  # P⁻ᵀ z
    return mu + delta / pt.sqrt(kappa)[..., None]


# -- Poisson NB -------------------------------------------------------------------------------
def _poisson_spec(est, X, codes, likelihood, prior) -> ModelSpec:
    from bayesnb.poisson import check_gamma_parameter

    n_features = X.shape[1]
    alpha = check_gamma_parameter(_alpha(est), "alpha", n_features)
    beta = check_gamma_parameter(est.beta, "beta", n_features)
    data: dict[str, np.ndarray] = {}
    if prior is None:
        data["feature_alpha"] = np.broadcast_to(alpha, (n_features,)).astype(float)
    data["feature_beta"] = np.broadcast_to(beta, (n_features,)).astype(float)
    if likelihood == "data":
        data["X_data"] = _dense_int(X, "counts")
        observed = {"X": (data["X_data"], ["doc", "feature"])}
    else:
        # Integer counts in both forms: the data form's Poisson needs them.
        if not np.all(_stored(X) == np.round(_stored(X))):
            raise ValueError("the PyMC path needs integer counts; got non-integer values")
        sums = count_features(X, codes, np.ones(len(codes)), len(est.classes_))
        data["feature_count_data"] = _as_counts(sums, "feature sums")
        observed = {"feature_count": (data["feature_count_data"], ["class", "feature"])}
    return _spec(
        est,
        X,
        codes,
        likelihood,
        prior,
        kind="poisson",
        data=data,
        observed=observed,
        structure=("gamma",),
        build=_build_poisson,
        dims={"feature_rate": ["class", "feature"]},
    )


def _stored(X) -> np.ndarray:
    """The stored values of X (sparse) or all of them (dense)."""
    return X.data if sp.issparse(X) else np.asarray(X)


def _build_poisson(spec: ModelSpec):
    """λ_cj ~ Gamma(α_j, β_j) (shape, rate); counts Poisson(λ_{y_i j}).

    The sufficient form is the Potential ``Σ_cj [S_cj log λ_cj − N_c λ_cj]``, the data form's
    log-likelihood up to the constant ``−Σ ln x!``. It is not written as
    ``Poisson(N_c λ, observed=S)``: a class without documents (N_c = 0) would make that
    Poisson's mean 0, whose gradient in λ is 0 · (0/0) = NaN.
    """
    import pymc as pm
    import pytensor.tensor as pt

    with pm.Model(coords=spec.coords) as model:
        _, labels = _declare_class_prior(spec)
        a = _declare_feature_alpha(spec)
        b = pm.Data("feature_beta", spec.data["feature_beta"], dims="feature")
        lam = pm.Gamma("feature_rate", alpha=a, beta=b, dims=("class", "feature"))
        if spec.likelihood == "data":
            X_d = _declare_feature_data(spec)
            pm.Poisson("X", mu=lam[labels], observed=X_d, dims=("doc", "feature"))
        else:
            S_d = _declare_feature_data(spec)
            loglik = pt.sum(S_d * pt.log(lam)) - pt.sum(labels[:, None] * lam)
            pm.Potential("poisson_loglik", loglik)
    return model


# -- Dirichlet-compound-multinomial NB --------------------------------------------------------
def _dcm_spec(est, X, codes, likelihood, prior) -> ModelSpec:
    from bayesnb.posterior.polya import length_triplets
    from bayesnb.stats.histograms import count_values, value_triplets
    from bayesnb.stats.lengths import count_lengths

    n_classes, n_features = len(est.classes_), X.shape[1]
    data: dict[str, np.ndarray] = {
        "concentration_shape": np.asarray(float(est.prior_shape)),
        "concentration_rate": np.asarray(float(est.prior_rate)),
    }
    coords: dict[str, list] = {}
    if likelihood == "data":
        data["X_data"] = _dense_int(X, "token counts")
        observed = {"X": (data["X_data"], ["doc", "feature"])}
    else:
        ones = np.ones(len(codes))
        vals = value_triplets(count_values(X, codes, ones, n_classes), n_features)
        lens = length_triplets(count_lengths(X, codes, ones, n_classes))
        data |= {
            "value_class": vals.cls.astype(np.int64),
            "value_feature": vals.feature.astype(np.int64),
            "value_count": _as_counts(vals.value, "token counts"),
            "value_weight": _as_counts(vals.weight, "document counts"),
            "length_class": lens.cls.astype(np.int64),
            "length_value": _as_counts(lens.length, "document lengths"),
            "length_weight": _as_counts(lens.weight, "document counts"),
        }
        observed = {k: (data[k], ["value_entry"]) for k in data if k.startswith("value_")}
        observed |= {k: (data[k], ["length_entry"]) for k in data if k.startswith("length_")}
        coords = {
            "value_entry": list(range(vals.cls.size)),
            "length_entry": list(range(lens.cls.size)),
        }
    return _spec(
        est,
        X,
        codes,
        likelihood,
        prior,
        kind="dcm",
        data=data,
        observed=observed,
        structure=("gamma_concentration",),
        build=_build_dcm,
        dims={"concentration": ["class", "feature"], "feature_prob": ["class", "feature"]},
        coords=coords,
    )


def _build_dcm(spec: ModelSpec):
    """β_cj ~ Gamma(shape, rate); documents Pólya(β_{y_i}).

    Sufficient form: ``Σ_entries w [ln Γ(v + β_cj) − ln Γ(β_cj)] + Σ_lengths w [ln Γ(B_c) −
    ln Γ(n + B_c)]`` over the value and length histograms (zero counts and empty documents
    contribute 0), the data form's ``DirichletMultinomial`` log-likelihood without its
    multinomial coefficients.
    """
    import pymc as pm
    import pytensor.tensor as pt

    with pm.Model(coords=spec.coords) as model:
        _, labels = _declare_class_prior(spec)
        shape = pm.Data("concentration_shape", spec.data["concentration_shape"])
        rate = pm.Data("concentration_rate", spec.data["concentration_rate"])
        beta = pm.Gamma("concentration", alpha=shape, beta=rate, dims=("class", "feature"))
        total = beta.sum(axis=1)
        pm.Deterministic("feature_prob", beta / total[:, None], dims=("class", "feature"))
        if spec.likelihood == "data":
            X_d = pm.Data("X_data", spec.data["X_data"], dims=("doc", "feature"))
            pm.DirichletMultinomial(
                "X", n=X_d.sum(axis=1), a=beta[labels], observed=X_d, dims=("doc", "feature")
            )
        else:
            hist = ("value_", "length_")
            d = {k: pm.Data(k, v) for k, v in spec.data.items() if k.startswith(hist)}
            b = beta[d["value_class"], d["value_feature"]]
            cells = pt.sum(d["value_weight"] * (pt.gammaln(d["value_count"] + b) - pt.gammaln(b)))
            B = total[d["length_class"]]
            docs = pt.sum(d["length_weight"] * (pt.gammaln(B) - pt.gammaln(d["length_value"] + B)))
            pm.Potential("polya_loglik", cells + docs)
    return model


# -- ColumnwiseNB: one class prior, the blocks' own declarations composed into one model ------
# Each block declares its standalone model with its own builder (any model kind); the block's
# class part (its π, its label likelihood and their hyperparameters) is cut out, its variables
# and feature dims get the prefix "{block}::" (``class`` and ``doc`` stay shared), and the
# pieces are joined with the one class prior into a single pm.Model (PyMC's FunctionGraph
# representation of models, ``pymc.model.fgraph``). The block likelihoods read the labels
# through their own (prefixed) copy of the label data, so no builder needs to know about
# composition.
_HYPERPARAMETER_DIMS |= {
    ("columnwise", "class_alpha"): ["class"],
    ("columnwise", "class_prior_value"): ["class"],
}
_BLOCK_CLASS_VARS = frozenset(
    {"class_prior", "class_count", "y", "class_alpha", "class_prior_value"}
)
_SHARED_DIMS = frozenset({"class", "doc"})


def _prefixed(name: str, prefix: str) -> str:
    return f"{prefix}::{name}" if prefix else name


def _prefixed_dim(dim: str, prefix: str) -> str:
    return dim if dim in _SHARED_DIMS else _prefixed(dim, prefix)


def _columnwise_spec(est, X, y, likelihood: str, prior, sample_weight) -> ModelSpec:
    """The composed ModelSpec of a ColumnwiseNB: class part here, blocks by ``model_spec``."""
    from bayesnb.columnwise import _Blocks

    if prior is not None:
        raise ValueError(
            "alpha_prior is not supported by ColumnwiseNB.fit_pymc: each block keeps its own "
            "fixed prior (fit a block alone to learn its alpha)"
        )
    _check_class_prior_declarable(est)
    if sample_weight is not None:
        _documents(est, X, y, sample_weight)  # checks integer weights; fits an unfitted est
    elif not hasattr(est, "classes_"):
        est.fit(X, y)
    blocks = []
    for (name, block, _), part in zip(est._blocks(), est._block_inputs(X), strict=True):
        blocks.append(
            (name, block, model_spec(block, part, y, likelihood, sample_weight=sample_weight))
        )
    codes = blocks[0][2].codes
    class_data, class_obs, class_structure = _class_part(est, codes, likelihood)
    coords: dict[str, list] = {"class": [str(c) for c in est.classes_]}
    if likelihood == "data":
        coords["doc"] = list(range(len(codes)))
    data = dict(class_data)
    var_names = ["class_prior"]
    dims: dict[str, list[str]] = {"class_prior": ["class"]}
    for name, _, bs in blocks:
        coords |= {_prefixed_dim(k, name): v for k, v in bs.coords.items()}
        data |= {_prefixed(k, name): v for k, v in bs.data.items() if k not in _BLOCK_CLASS_VARS}
        for var in bs.var_names:
            if var != "class_prior":
                var_names.append(_prefixed(var, name))
                dims[_prefixed(var, name)] = [_prefixed_dim(d, name) for d in bs.dims[var]]
    spec = ModelSpec(
        kind="columnwise",
        likelihood=likelihood,
        structure=(*class_structure, tuple((name, bs.key) for name, _, bs in blocks)),
        coords=coords,
        data=data,
        observed=class_obs,
        codes=codes,
        X=_Blocks([bs.X for _, _, bs in blocks], len(codes)),
        var_names=var_names,
        dims=dims,
        alpha_prior=None,
        build=_build_columnwise,
        extra={"blocks": blocks},
    )
    # Keep the pm.Data the composed model reads (a compiled model knows only those).
    used = {v.name for v in spec.model().data_vars}
    spec.data = {k: v for k, v in spec.data.items() if k in used}
    return spec


def _model_pieces(model, prefix: str, drop: frozenset) -> tuple[list, dict, dict]:
    """The model variables of ``model`` (without ``drop``) renamed with ``prefix``.

    Returns the FunctionGraph outputs (PyMC's ``ModelVar`` wrappers), the coords and the dim
    lengths, all under prefixed names.
    """
    import copy

    from pymc.model.fgraph import ModelNamed, ModelVar, fgraph_from_model
    from pytensor.graph.fg import FunctionGraph
    from pytensor.graph.traversal import ancestors

    fg, _ = fgraph_from_model(model)
    kept = [out for out in fg.outputs if out.owner.op.name not in drop]
    # A block's copy of the label data that its likelihood does not read (a sufficient-
    # statistic multinomial) is left out: a compiled model knows only the data it reads.
    used = set(ancestors([o for o in kept if not isinstance(o.owner.op, ModelNamed)]))
    outputs = [
        o
        for o in kept
        if not (prefix and isinstance(o.owner.op, ModelNamed) and o.owner.inputs[0] not in used)
    ]
    fg = FunctionGraph(outputs=outputs, clone=False)  # ancestors of the kept variables only
    for node in fg.toposort():
        if not isinstance(node.op, ModelVar):
            continue
        op = copy.copy(node.op)
        op.name = _prefixed(op.name, prefix)
        op.dims = tuple(_prefixed_dim(d, prefix) for d in op.dims)
        node.op = op
        node.outputs[0].name = op.name
        if prefix and isinstance(node.op, ModelNamed):
            # the shared variable of a pm.Data: compiled models set data by its name
            node.inputs[0].name = op.name
        elif prefix and len(node.inputs) == 2 and node.inputs[1].name:
            # the value variable of a free or observed RV: nutpie keys draws by its name
            node.inputs[1].name = _prefixed(node.inputs[1].name, prefix)
    coords = {_prefixed_dim(k, prefix): v for k, v in model.coords.items()}
    lengths = {_prefixed_dim(k, prefix): v for k, v in model.dim_lengths.items()}
    return outputs, coords, lengths


def _build_columnwise(spec: ModelSpec):
    """One pm.Model: the class prior, then every block's declaration without its class part."""
    import pymc as pm
    from pymc.model.fgraph import model_from_fgraph
    from pytensor.graph.fg import FunctionGraph

    with pm.Model(coords=spec.coords) as root:
        _declare_class_prior(spec)
    outputs, coords, lengths = _model_pieces(root, "", frozenset())
    for name, _, bs in spec.extra["blocks"]:
        more, more_coords, more_lengths = _model_pieces(bs.model(), name, _BLOCK_CLASS_VARS)
        outputs += more
        coords |= more_coords
        lengths |= {k: v for k, v in more_lengths.items() if k not in lengths}
    fg = FunctionGraph(outputs=outputs, clone=False)
    fg._coords = coords
    fg._dim_lengths = lengths
    return model_from_fgraph(fg, mutate_fgraph=True)
