"""DirichletCompoundNB family methods: the PyMC declaration.

``β_cj ~ Gamma(prior_shape, prior_rate)`` (variable ``concentration``, with ``feature_prob =
β_c / B_c``), declared as ``β_c = B_c θ_c``: the total ``B_c ~ Gamma(V·prior_shape,
prior_rate)`` (auxiliary ``concentration_total``) times the independent ``θ_c ~
Dirichlet(prior_shape·1)`` (``feature_prob``, :func:`bayesnb.pymc_models.simplex.dirichlet`),
``x_i ~ DirichletMultinomial(n_i, β_{y_i})`` (data form) or the
``pm.Potential`` ``polya_loglik`` on the value and length histograms (sufficient form; it omits
the multinomial coefficients, a constant).
"""

from __future__ import annotations

import numpy as np

from bayesnb.pymc_models import simplex
from bayesnb.pymc_models.declaration import (
    as_counts,
    declare_class_prior,
    dense_int,
    make_spec,
    prepare,
)
from bayesnb.pymc_models.spec import ModelSpec

__all__ = ["DCMPyMC"]


class DCMPyMC:
    """Family methods of DirichletCompoundNB for pymc; see :class:`bayesnb.families.Family`."""

    def pymc_spec(self, est, X, y, likelihood, alpha_prior, sample_weight) -> ModelSpec:
        """The Gamma-Pólya model of ``est`` on ``(X, y)``; ``alpha_prior`` does not apply."""
        from bayesnb.posterior.polya import length_triplets
        from bayesnb.stats.histograms import count_values, value_triplets
        from bayesnb.stats.lengths import count_lengths

        if alpha_prior is not None:
            raise ValueError(
                "alpha_prior does not apply to DirichletCompoundNB: its concentrations β_cj "
                "already have the Gamma(prior_shape, prior_rate) prior (set those on the "
                "estimator)"
            )
        X, codes = prepare(est, X, y, sample_weight)
        n_classes, n_features = len(est.classes_), X.shape[1]
        data: dict[str, np.ndarray] = {
            "concentration_shape": np.asarray(float(est.prior_shape)),
            "concentration_rate": np.asarray(float(est.prior_rate)),
        }
        coords: dict[str, list] = {}
        if likelihood == "data":
            data["X_data"] = dense_int(X, "token counts")
            observed = {"X": (data["X_data"], ["doc", "feature"])}
        else:
            ones = np.ones(len(codes))
            vals = value_triplets(count_values(X, codes, ones, n_classes), n_features)
            lens = length_triplets(count_lengths(X, codes, ones, n_classes))
            data |= {
                "value_class": vals.cls.astype(np.int64),
                "value_feature": vals.feature.astype(np.int64),
                "value_count": as_counts(vals.value, "token counts"),
                "value_weight": as_counts(vals.weight, "document counts"),
                "length_class": lens.cls.astype(np.int64),
                "length_value": as_counts(lens.length, "document lengths"),
                "length_weight": as_counts(lens.weight, "document counts"),
            }
            observed = {k: (data[k], ["value_entry"]) for k in data if k.startswith("value_")}
            observed |= {k: (data[k], ["length_entry"]) for k in data if k.startswith("length_")}
            coords = {
                "value_entry": list(range(vals.cls.size)),
                "length_entry": list(range(lens.cls.size)),
            }
        return make_spec(
            est,
            X,
            codes,
            likelihood,
            None,
            kind=self.name,
            data=data,
            observed=observed,
            structure=("gamma_concentration",),
            build=_build_dcm,
            dims={"concentration": ["class", "feature"], "feature_prob": ["class", "feature"]},
            hyperparameter_dims={"concentration_shape": None, "concentration_rate": None},
            coords=coords,
            auxiliary={
                "concentration_total": ["class"],
                "feature_prob_log_gamma": ["class", "feature"],
            },
        )


def _build_dcm(spec: ModelSpec):
    """β_cj ~ Gamma(shape, rate) as ``B_c θ_c``; documents Pólya(β_{y_i}).

    Sufficient form: ``Σ_entries w [ln Γ(v + β_cj) − ln Γ(β_cj)] + Σ_lengths w [ln Γ(B_c) −
    ln Γ(n + B_c)]`` over the value and length histograms (zero counts and empty documents
    contribute 0), the data form's ``DirichletMultinomial`` log-likelihood without its
    multinomial coefficients.
    """
    import pymc as pm
    import pytensor.tensor as pt

    n_classes, n_features = len(spec.coords["class"]), len(spec.coords["feature"])
    with pm.Model(coords=spec.coords) as model:
        _, labels = declare_class_prior(spec)
        shape = pm.Data("concentration_shape", spec.data["concentration_shape"])
        rate = pm.Data("concentration_rate", spec.data["concentration_rate"])
        if spec.likelihood == "data":
            X_d = pm.Data("X_data", spec.data["X_data"], dims=("doc", "feature"))
            tokens = pt.zeros(n_classes)[labels].inc(X_d.sum(axis=1))
        else:
            hist = ("value_", "length_")
            d = {k: pm.Data(k, v) for k, v in spec.data.items() if k.startswith(hist)}
            tokens = pt.zeros(n_classes)[d["length_class"]].inc(
                d["length_weight"] * d["length_value"]
            )
        # β_c = B_c θ_c: i.i.d. Gamma(s, r) cells are a Gamma(V s, r) total B_c times an
        # independent Dirichlet(s) θ_c. The likelihood pins θ_c far better than B_c (set by
        # the documents' overdispersion alone), so sampling log β_cj directly moves every
        # frequent cell with log B_c: one direction a diagonal mass matrix cannot scale.
        total = pm.Gamma("concentration_total", alpha=n_features * shape, beta=rate, dims="class")
        a = pt.ones(n_features) * shape
        _, log_theta = simplex.dirichlet("feature_prob", a, dims=("class", "feature"), total=tokens)
        beta = pm.Deterministic(
            "concentration", pt.exp(pt.log(total)[:, None] + log_theta), dims=("class", "feature")
        )
        if spec.likelihood == "data":
            pm.DirichletMultinomial(
                "X", n=X_d.sum(axis=1), a=beta[labels], observed=X_d, dims=("doc", "feature")
            )
        else:
            b = beta[d["value_class"], d["value_feature"]]
            cells = pt.sum(d["value_weight"] * (pt.gammaln(d["value_count"] + b) - pt.gammaln(b)))
            B = total[d["length_class"]]
            docs = pt.sum(d["length_weight"] * (pt.gammaln(B) - pt.gammaln(d["length_value"] + B)))
            pm.Potential("polya_loglik", cells + docs)
    return model
