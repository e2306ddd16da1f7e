"""PoissonNB family methods: the PyMC declaration.

``x_ij ~ Poisson(λ_{y_i j})``, ``λ_cj ~ Gamma(α_j, β_j)`` (shape, rate), the variable
``feature_rate``; integer counts only. The sufficient form is the ``pm.Potential``
``poisson_loglik`` = ``Σ_cj [S_cj log λ_cj − N_c λ_cj]`` (S the per-class feature sums,
recorded in ``observed_data`` as ``feature_count``), the data form's log-likelihood up to the
constant ``−Σ ln x!``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from bayesnb.families.poisson.estimator import check_gamma_parameter
from bayesnb.pymc_models.declaration import (
    as_counts,
    cell_data,
    cell_dot,
    declare_class_prior,
    declare_feature_alpha,
    declare_feature_data,
    feature_observations,
    fitted_alpha,
    make_spec,
    prepare,
    unlabelled_documents,
)
from bayesnb.pymc_models.spec import ModelSpec

__all__ = ["PoissonPyMC"]


class PoissonPyMC:
    """Family methods of PoissonNB for pymc; see :class:`bayesnb.families.Family`."""

    def pymc_spec(self, est, X, y, likelihood, alpha_prior, sample_weight) -> ModelSpec:
        """The Gamma-Poisson model of ``est`` on ``(X, y)``."""
        prior = alpha_prior
        X, codes = prepare(est, X, y, sample_weight)
        n_features = X.shape[1]
        alpha = check_gamma_parameter(fitted_alpha(est), "alpha", n_features)
        beta = check_gamma_parameter(est.beta, "beta", n_features)
        data: dict[str, np.ndarray] = {}
        if prior is None:
            data["feature_alpha"] = np.broadcast_to(alpha, (n_features,)).astype(float)
        data["feature_beta"] = np.broadcast_to(beta, (n_features,)).astype(float)
        # Integer counts in both forms: the data form's Poisson needs them.
        if likelihood == "sufficient" and not np.all(_stored(X) == np.round(_stored(X))):
            raise ValueError("the PyMC path needs integer counts; got non-integer values")
        what = ("counts", "feature sums")
        more, observed = feature_observations(X, codes, len(est.classes_), likelihood, what)
        data |= more
        return make_spec(
            est,
            X,
            codes,
            likelihood,
            prior,
            kind=self.name,
            data=data,
            observed=observed,
            structure=("gamma",),
            build=_build_poisson,
            dims={"feature_rate": ["class", "feature"]},
            hyperparameter_dims={"feature_alpha": ["feature"], "feature_beta": ["feature"]},
        )

    def pymc_unlabelled(self, est, X) -> tuple:
        """See :meth:`bayesnb.families.Family.pymc_unlabelled`: ``Σ_j [x_ij log λ_cj − λ_cj −
        ln x_ij!]`` (integer counts, over the nonzero cells)."""
        X = unlabelled_documents(est, X)
        data = cell_data(X, "unlabelled")
        values = as_counts(data["unlabelled_value"], "counts")
        data["unlabelled_log_coef"] = -np.bincount(
            data["unlabelled_row"], gammaln(values + 1.0), X.shape[0]
        )

        def jll(get):
            import pytensor.tensor as pt

            coef, lam = get("unlabelled_log_coef"), get("feature_rate")
            counts = cell_dot(get, "unlabelled", pt.log(lam), coef.shape[0])
            return counts + coef[:, None] - lam.sum(axis=1)

        return data, jll


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
        _, labels = declare_class_prior(spec)
        a = declare_feature_alpha(spec)
        b = pm.Data("feature_beta", spec.data["feature_beta"], dims="feature")
        lam = pm.Gamma("feature_rate", alpha=a, beta=b, dims=("class", "feature"))
        if spec.likelihood == "data":
            X_d = declare_feature_data(spec)
            pm.Poisson("X", mu=lam[labels], observed=X_d, dims=("doc", "feature"))
        else:
            S_d = declare_feature_data(spec)
            loglik = pt.sum(S_d * pt.log(lam)) - pt.sum(labels[:, None] * lam)
            pm.Potential("poisson_loglik", loglik)
    return model
