"""CategoricalNB family methods: the PyMC declaration.

``x_ij ~ Categorical(θ_{y_i j})``, ``θ_cj ~ Dirichlet(α_j·1)`` over the ``k_j`` categories seen
by the estimator plus one pooled slot for every other value; the sufficient form observes
``category_count[c, j] ~ Multinomial(N_c, θ_cj)``.

**Categorical padding** (the convention of :mod:`bayesnb.draws`). Features may have different
numbers of categories, but ``feature_prob`` is one rectangular array with ``value`` =
0 .. max_j k_j: slot ``v < k_j`` is P(x_j = v | c), slot ``v = k_j`` is the pooled unseen slot
(the probability of every value never seen by the estimator), slots beyond ``k_j`` are not
parameters and hold NaN. Internally the features are grouped by ``k_j``: one Dirichlet
``feature_prob_k{k}`` (free variable ``feature_prob_k{k}_log_gamma``, see
:mod:`bayesnb.pymc_models.simplex`) of shape ``(class, features with k_j = k, k + 1)`` per
group, and ``feature_prob`` is a Deterministic assembling them (when every feature has the
same ``k`` the Dirichlet itself is ``feature_prob``). In the data form the observed values are
``min(x_ij, k_j)``.

"""

from __future__ import annotations

import numpy as np

from bayesnb.pymc_models import simplex
from bayesnb.pymc_models.declaration import (
    as_counts,
    cell_dot,
    declare_alpha,
    declare_class_prior,
    dense_int,
    fixed_feature_alpha,
    make_spec,
    prepare,
    unlabelled_documents,
)
from bayesnb.pymc_models.spec import ModelSpec
from bayesnb.stats.discrete import category_offsets, count_categories

__all__ = ["CategoricalPyMC"]

_DIMS = ("class", "feature", "value")


class CategoricalPyMC:
    """Family methods of CategoricalNB for pymc; see :class:`bayesnb.families.Family`."""

    def pymc_spec(self, est, X, y, likelihood, alpha_prior, sample_weight) -> ModelSpec:
        """The Dirichlet-categorical model of ``est`` on ``(X, y)``, features grouped by k_j."""
        prior = alpha_prior
        X, codes = prepare(est, X, y, sample_weight)
        n_features = X.shape[1]
        n_classes = len(est.classes_)
        k = np.asarray(est.n_categories_, dtype=np.intp)
        width = int(k.max()) + 1
        alpha = fixed_feature_alpha(est, n_features)
        groups = {int(kk): np.flatnonzero(k == kk) for kk in np.unique(k)}
        single = len(groups) == 1
        data: dict[str, np.ndarray] = {}
        Xd = dense_int(X, "categories")
        slots = np.minimum(Xd, k[None, :])  # every value >= k_j is the pooled slot k_j
        if likelihood == "sufficient":
            flat = count_categories(Xd, codes, np.ones(len(codes)), n_classes, k)
            flat = as_counts(flat, "category counts")
            offsets = category_offsets(k)
            padded = np.zeros((n_classes, n_features, width), dtype=np.int64)
            for j in range(n_features):
                padded[:, j, : k[j] + 1] = flat[:, offsets[j] : offsets[j] + k[j] + 1]
            observed = {"category_count": (padded, ["class", "feature", "value"])}
        else:
            observed = {"X": (Xd, ["doc", "feature"])}
        hyper: dict[str, list[str] | None] = {}
        for kk, cols in groups.items():
            suffix = "" if single else f"_k{kk}"
            if prior is None:
                data[f"feature_alpha{suffix}"] = np.repeat(alpha[cols, None], kk + 1, axis=1)
                hyper[f"feature_alpha{suffix}"] = None  # (class, group, k + 1): no layout dims
            if likelihood == "sufficient":
                data[f"category_count_data{suffix}"] = padded[:, cols, : kk + 1]
            else:
                data[f"X_data{suffix}"] = slots[:, cols]
        return make_spec(
            est,
            X,
            codes,
            likelihood,
            prior,
            kind=self.name,
            data=data,
            observed=observed,
            structure=("k", tuple(k.tolist())),
            build=_build_categorical,
            dims={"feature_prob": ["class", "feature", "value"]},
            hyperparameter_dims=hyper,
            coords={"value": list(range(width))},
            extra={"groups": groups, "n_categories": k, "width": width},
            auxiliary={
                f"feature_prob{'' if single else f'_k{kk}'}_log_gamma": (
                    list(_DIMS) if single else None
                )
                for kk in groups
            },
        )

    def pymc_unlabelled(self, est, X) -> tuple:
        """See :meth:`bayesnb.families.Family.pymc_unlabelled`: ``Σ_j log θ_{c j s_ij}`` with
        ``s_ij = min(x_ij, k_j)`` (the pooled slot for unseen values), one gather per cell of
        each group's flattened (feature, slot) table."""
        Xd = dense_int(unlabelled_documents(est, X), "categories")
        k = np.asarray(est.n_categories_, dtype=np.intp)
        groups = {int(kk): np.flatnonzero(k == kk) for kk in np.unique(k)}
        single = len(groups) == 1
        slots = np.minimum(Xd, k[None, :])
        data = {"unlabelled_ones": np.ones(Xd.shape[0])}
        for kk, cols in groups.items():
            suffix = "" if single else f"_k{kk}"
            cells = np.arange(cols.size) * (kk + 1) + slots[:, cols]  # flat (feature, slot)
            data |= {
                f"unlabelled{suffix}_row": np.repeat(np.arange(Xd.shape[0]), cols.size),
                f"unlabelled{suffix}_col": cells.ravel().astype(np.int64),
                f"unlabelled{suffix}_value": np.ones(cells.size),
            }

        def jll(get):
            import pytensor.tensor as pt

            n_docs = get("unlabelled_ones").shape[0]
            total = 0.0
            for kk in groups:
                suffix = "" if single else f"_k{kk}"
                log_theta = pt.log(get(f"feature_prob{suffix}"))
                flat = log_theta.reshape((log_theta.shape[0], -1))
                total = total + cell_dot(get, f"unlabelled{suffix}", flat, n_docs)
            return total

        return data, jll


def _build_categorical(spec: ModelSpec):
    import pymc as pm
    import pytensor.tensor as pt

    groups, width = spec.extra["groups"], spec.extra["width"]
    n_classes = len(spec.coords["class"])
    single = len(groups) == 1
    with pm.Model(coords=spec.coords) as model:
        _, labels = declare_class_prior(spec)
        alpha = declare_alpha(spec, trailing=2) if spec.alpha_prior is not None else None
        parts, order = [], []
        for kk, cols in groups.items():
            suffix = "" if single else f"_k{kk}"
            shape = (n_classes, len(cols), kk + 1)
            if alpha is None:
                a = pm.Data(f"feature_alpha{suffix}", spec.data[f"feature_alpha{suffix}"])
            else:
                a = alpha
            name = "feature_prob" if single else f"feature_prob{suffix}"
            if single:
                theta, log_theta = simplex.dirichlet(name, a, dims=_DIMS)
            else:
                theta, log_theta = simplex.dirichlet(name, a, shape=shape)
            if spec.likelihood == "sufficient":
                C_d = pm.Data(
                    f"category_count_data{suffix}", spec.data[f"category_count_data{suffix}"]
                )
                simplex.multinomial(
                    f"category_count{suffix}", C_d.sum(axis=-1), log_theta, observed=C_d
                )
            else:
                X_d = pm.Data(f"X_data{suffix}", spec.data[f"X_data{suffix}"])
                simplex.labelled_categorical(f"X{suffix}", labels, log_theta, observed=X_d)
            # Pad to the common value axis: slots after the unseen slot k are NaN.
            pad = pt.fill(theta[:, :, :1], np.nan) * pt.ones((1, 1, width - kk - 1))
            parts.append(pt.concatenate([theta, pad], axis=2))
            order.extend(cols.tolist())
        if not single:
            inverse = np.argsort(np.asarray(order))
            stacked = pt.concatenate(parts, axis=1)[:, inverse, :]
            pm.Deterministic("feature_prob", stacked, dims=_DIMS)
    return model
