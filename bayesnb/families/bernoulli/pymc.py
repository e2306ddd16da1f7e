"""BernoulliNB family methods: the PyMC declaration.

``x_ij ~ Bernoulli(φ_{y_i j})``, ``φ_cj ~ Beta(α_j, β_j)`` (β = α when ``est.beta`` is None);
the sufficient form observes the document frequencies ``feature_count[c, j] ~ Binomial(N_c,
φ_cj)``.
"""

from __future__ import annotations

import numpy as np

from bayesnb.pymc_models.declaration import (
    cell_data,
    cell_dot,
    declare_class_prior,
    declare_feature_alpha,
    declare_feature_data,
    feature_observations,
    fixed_feature_alpha,
    make_spec,
    prepare,
    unlabelled_documents,
)
from bayesnb.pymc_models.spec import ModelSpec
from bayesnb.validation import check_alpha

__all__ = ["BernoulliPyMC"]


class BernoulliPyMC:
    """Family methods of BernoulliNB for pymc; see :class:`bayesnb.families.Family`."""

    def pymc_spec(self, est, X, y, likelihood, alpha_prior, sample_weight) -> ModelSpec:
        """The Beta-Bernoulli model of ``est`` on ``(X, y)``."""
        prior = alpha_prior
        X, codes = prepare(est, X, y, sample_weight)
        n_features = X.shape[1]
        alpha = fixed_feature_alpha(est, n_features)
        beta = alpha if est.beta is None else check_alpha(est.beta, n_features, "beta")
        beta = np.broadcast_to(beta, (n_features,)).astype(float)
        # A learned α replaces the fixed pseudo-counts (both of them when β defaults to α);
        # unused hyperparameters are left out because a compiled model only knows the data it
        # reads.
        data: dict[str, np.ndarray] = {}
        if prior is None:
            data["feature_alpha"] = alpha.copy()
        if prior is None or est.beta is not None:
            data["feature_beta"] = beta.copy()
        what = ("binary features", "document frequencies")
        more, observed = feature_observations(X, codes, len(est.classes_), likelihood, what)
        data |= more
        structure = ("beta_is_alpha" if est.beta is None else "beta_fixed",)
        return make_spec(
            est,
            X,
            codes,
            likelihood,
            prior,
            kind=self.name,
            data=data,
            observed=observed,
            structure=structure,
            build=_build_bernoulli,
            dims={"feature_prob": ["class", "feature"]},
            hyperparameter_dims={"feature_alpha": ["feature"], "feature_beta": ["feature"]},
        )

    def pymc_unlabelled(self, est, X) -> tuple:
        """See :meth:`bayesnb.families.Family.pymc_unlabelled`: ``Σ_j log(1 − φ_cj) +
        Σ_{j: x_ij = 1} [log φ_cj − log(1 − φ_cj)]`` (the binarised documents' cells)."""
        X = unlabelled_documents(est, X)
        data = cell_data(X, "unlabelled")
        data["unlabelled_ones"] = np.ones(X.shape[0])

        def jll(get):
            import pytensor.tensor as pt

            phi, ones = get("feature_prob"), get("unlabelled_ones")
            log1m = pt.log1p(-phi)
            on = cell_dot(get, "unlabelled", pt.log(phi) - log1m, ones.shape[0])
            return on + ones[:, None] * log1m.sum(axis=1)

        return data, jll


def _build_bernoulli(spec: ModelSpec):
    import pymc as pm

    with pm.Model(coords=spec.coords) as model:
        _, labels = declare_class_prior(spec)
        a = declare_feature_alpha(spec)
        if "feature_beta" in spec.data:
            b = pm.Data("feature_beta", spec.data["feature_beta"], dims="feature")
        else:
            b = a
        phi = pm.Beta("feature_prob", alpha=a, beta=b, dims=("class", "feature"))
        if spec.likelihood == "data":
            X_d = declare_feature_data(spec)
            pm.Bernoulli("X", p=phi[labels], observed=X_d, dims=("doc", "feature"))
        else:
            D_d = declare_feature_data(spec)
            pm.Binomial(
                "feature_count", n=labels[:, None], p=phi, observed=D_d, dims=("class", "feature")
            )
    return model
