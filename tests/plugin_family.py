"""A family defined outside the package: exponential naive Bayes with a conjugate Gamma prior.

x_j | c ~ Exponential(λ_cj) (rate λ), λ_cj ~ Gamma(shape α, rate β). With N_c documents of
class c and feature sums S_cj, the posterior is Gamma(α + N_c, β + S_cj), the evidence is
Π_cj β^α Γ(α + N_c) / (Γ(α) (β + S_cj)^(α + N_c)), and the posterior predictive of one value
is the Lomax density a b^a / (b + x)^(a + 1) with a = α + N_c, b = β + S_cj.

Everything generic (fit, predict, draws, evidence, files, LOO, compare, PyMC/NUTS,
check_family) works
from this one module plus one ``register(FAMILY)`` line: nothing in ``bayesnb`` names it.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from bayesnb._base import GenerativeClassifier
from bayesnb.families import Family
from bayesnb.posterior.summary import gamma_summary
from bayesnb.pymc_models.declaration import (
    declare_class_prior,
    declare_feature_data,
    make_spec,
    prepare,
)
from bayesnb.stats.discrete import count_classes, count_features
from bayesnb.validation import check_X, check_X_y

__all__ = ["FAMILY", "ExponentialFamily", "ExponentialNB"]


class ExponentialNB(GenerativeClassifier):
    """Naive Bayes for positive durations: x_j | c ~ Exponential(λ_cj), λ_cj ~ Gamma(α, β)."""

    _family = "exponential"

    def __init__(
        self, alpha=1.0, beta=1.0, class_alpha=1.0, estimate="mean", fit_prior=True,
        class_prior=None,
    ):  # fmt: skip
        self.alpha = alpha
        self.beta = beta
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _check_input(self, X, y=None, *, reset):
        kw = dict(reset=reset, nonnegative=True, allow_sparse=False)
        return check_X(self, X, **kw) if y is None else check_X_y(self, X, y, **kw)

    def _reset_counts(self, n_features: int) -> None:
        self.class_count_ = np.zeros(len(self.classes_))
        self.feature_sum_ = np.zeros((len(self.classes_), n_features))

    def _statistics(self, X, codes, weights) -> dict:
        k = len(self.classes_)
        return {
            "class_count": count_classes(codes, weights, k),
            "feature_sum": count_features(X, codes, weights, k),
        }

    def _merge_statistics(self, stats: dict) -> None:
        self.class_count_ = self.class_count_ + stats["class_count"]
        self.feature_sum_ = self.feature_sum_ + stats["feature_sum"]

    @property
    def posterior_(self) -> tuple[np.ndarray, np.ndarray]:
        """Gamma (shape, rate) of every λ_cj, each (n_classes, n_features)."""
        shape = self.alpha_ + np.broadcast_to(self.class_count_[:, None], self.feature_sum_.shape)
        return shape, self.beta + self.feature_sum_

    def rate(self, estimate: str) -> np.ndarray:
        """λ_cj under ``estimate``: mle N_c / S_cj, map (a − 1)/b, mean a/b."""
        a, b = self.posterior_
        if estimate == "mle":
            with np.errstate(divide="ignore", invalid="ignore"):
                return self.class_count_[:, None] / self.feature_sum_
        if estimate == "map":
            return (a - 1.0) / b
        return a / b

    def _log_likelihood(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if self.estimate == "bayes":  # Lomax predictive, per (document, class, feature)
            a, b = self.posterior_
            terms = np.log(a) + a * np.log(b) - (a + 1.0) * np.log(b[None] + X[:, None, :])
            return terms.sum(axis=-1)
        lam = self.rate(self.estimate)
        with np.errstate(divide="ignore"):
            return np.log(lam).sum(axis=1)[None, :] - X @ lam.T


class ExponentialFamily(Family):
    """The exponential family: every capability check_family and compare use."""

    name = "exponential"
    estimator = ExponentialNB
    var_names = ("class_prior", "feature_rate")
    bayes_not_a_point = "estimate='bayes' is the Lomax predictive, no single rate"

    # -- sampling
    def point_values(self, est, view, names, features):
        if "feature_rate" not in names:
            return {}
        lam = view.rate(view.estimate)
        return {"feature_rate": lam if features is None else lam[:, features]}

    def draw_cost(self, est, names, features):
        n = est.n_features_in_ if features is None else features.size
        return "feature_rate", len(est.classes_) * n * ("feature_rate" in names), "K × columns"

    def posterior_draws(self, est, rng, shape, names, features, *, aux_rng):
        if "feature_rate" not in names:
            return {}
        a, b = est.posterior_
        if features is not None:
            a, b = a[:, features], b[:, features]
        return {"feature_rate": rng.standard_gamma(a, size=(*shape, *a.shape)) / b}

    def posterior_summary(self, est, ci_prob, features):
        a, b = est.posterior_
        if features is not None:
            a, b = a[:, features], b[:, features]
        return {"feature_rate": (("summary", "class", "feature"), gamma_summary(a, b, ci_prob))}, {}

    def generate(self, est, codes, rng):
        if est.estimate == "bayes":
            a, b = est.posterior_
            lam = rng.standard_gamma(a[codes]) / b[codes]
        else:
            lam = est.rate(est.estimate)[codes]
        return rng.exponential(1.0 / lam)

    # -- model files
    def file_statistics(self, est):
        return {"feature_sum": (("class", "feature"), est.feature_sum_)}

    def restore_statistics(self, est, file):
        est.class_count_ = file.statistics["class_count"]
        est.feature_sum_ = file.statistics["feature_sum"]

    # -- evidence, LOO, compare
    def feature_log_evidence(self, est) -> float:
        a, b = est.posterior_
        a0, b0 = est.alpha_, est.beta
        return float(np.sum(a0 * np.log(b0) - gammaln(a0) + gammaln(a) - a * np.log(b)))

    def loo_cells_per_draw(self, est, n_docs):
        return 2 * len(est.classes_) * (est.n_features_in_ + n_docs)

    def loo_draws_jll(self, est, Xc, M, values):
        lam = values["feature_rate"]  # (draws, K, V)
        X = np.asarray(Xc, dtype=np.float64)
        return np.log(lam).sum(axis=-1)[None] - np.einsum("ij,skj->isk", X, lam)

    def n_feature_parameters(self, est):
        return len(est.classes_) * est.n_features_in_

    # -- PyMC: the same model declared with the shared declaration pieces
    def pymc_spec(self, est, X, y, likelihood, alpha_prior, sample_weight):
        if alpha_prior is not None:
            raise self.unsupported("a learned alpha in PyMC")
        X, codes = prepare(est, X, y, sample_weight)
        X = np.asarray(X, dtype=np.float64)  # real durations: not the counts' integer check
        if likelihood == "data":
            data = {"X_data": X}
            observed = {"X": (X, ["doc", "feature"])}
        else:
            sums = count_features(X, codes, np.ones(len(codes)), len(est.classes_))
            data = {"feature_count_data": sums}
            observed = {"feature_count": (sums, ["class", "feature"])}
        data["feature_alpha"] = np.full(X.shape[1], float(est.alpha_))
        data["feature_beta"] = np.full(X.shape[1], float(est.beta))
        return make_spec(
            est, X, codes, likelihood, None, kind=self.name, data=data, observed=observed,
            structure=("exponential",), build=_build_exponential,
            dims={"feature_rate": ["class", "feature"]},
            hyperparameter_dims={"feature_alpha": ["feature"], "feature_beta": ["feature"]},
        )  # fmt: skip

    # -- check_family
    def example_data(self, est, n, rng):
        y = rng.integers(0, 3, size=n)
        y[:3] = np.arange(3)
        rates = rng.gamma(2.0, 1.0, size=(3, 4))
        return rng.exponential(1.0 / rates[y]), y


def _build_exponential(spec):
    """λ_cj ~ Gamma(α, β); x_ij ~ Exponential(λ_{y_i j}), or its sufficient Potential."""
    import pymc as pm
    import pytensor.tensor as pt

    with pm.Model(coords=spec.coords) as model:
        _, labels = declare_class_prior(spec)
        a = pm.Data("feature_alpha", spec.data["feature_alpha"], dims="feature")
        b = pm.Data("feature_beta", spec.data["feature_beta"], dims="feature")
        lam = pm.Gamma("feature_rate", alpha=a, beta=b, dims=("class", "feature"))
        observed = declare_feature_data(spec)
        if spec.likelihood == "data":
            pm.Exponential("X", lam=lam[labels], observed=observed, dims=("doc", "feature"))
        else:  # Σ_cj [N_c log λ_cj − S_cj λ_cj]
            loglik = pt.sum(labels[:, None] * pt.log(lam)) - pt.sum(observed * lam)
            pm.Potential("exponential_loglik", loglik)
    return model


#: The family object; ``bayesnb.families.register(FAMILY)`` plugs it in (the tests do so in a
#: fixture and unregister it afterwards, so other tests see the built-in families only).
FAMILY = ExponentialFamily()
