"""MultinomialNB family methods: the PyMC declaration.

``x_i ~ Multinomial(n_i, θ_{y_i})``, ``θ_c ~ Dirichlet(α)``; the sufficient form observes the
token counts ``feature_count[c] ~ Multinomial(T_c, θ_c)``.

**Unknown tokens.** ``MultinomialNB(unk=True)`` pools every column never seen by the
estimator into one ``UNK`` category: the Dirichlet is ``category_prob`` over the seen features
plus ``UNK`` (dim ``category``), and ``feature_prob`` (dims ``class, feature``) repeats
P(UNK | c) in every pooled column, as :mod:`bayesnb.draws` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from bayesnb.datatree import layout_coords
from bayesnb.families.multinomial.estimator import UnkColumns
from bayesnb.pymc_models import simplex
from bayesnb.pymc_models.declaration import (
    as_counts,
    cell_dot,
    declare_alpha,
    declare_class_prior,
    declare_feature_alpha,
    declare_feature_data,
    feature_observations,
    fitted_alpha,
    fixed_feature_alpha,
    make_spec,
    prepare,
    unlabelled_documents,
)
from bayesnb.pymc_models.simplex import multinomial_log_coef, sparse_cells
from bayesnb.pymc_models.spec import Completion, ModelSpec
from bayesnb.stats.discrete import count_features

__all__ = ["UNK", "MultinomialPyMC"]

UNK = "UNK"  # the pooled category of MultinomialNB(unk=True)


class MultinomialPyMC:
    """Family methods of MultinomialNB for pymc; see :class:`bayesnb.families.Family`."""

    def pymc_spec(self, est, X, y, likelihood, alpha_prior, sample_weight) -> ModelSpec:
        """The Dirichlet-multinomial model of ``est`` on ``(X, y)`` (pooled UNK with unk=True)."""
        prior = alpha_prior
        X, codes = prepare(est, X, y, sample_weight)
        n_features = X.shape[1]
        alpha = fixed_feature_alpha(est, n_features)
        coords: dict[str, list] = {}
        documents = X  # every column: the label log-likelihood scores feature_prob on them
        unk = UnkColumns(est)
        pooled = unk.pooled
        extra: dict[str, Any] = {}
        obs_dim = "feature"
        if pooled is not None:
            # unk=True: θ lives on the seen features plus one UNK category (as est.posterior_);
            # feature_prob repeats P(UNK | c) in every pooled column, as bayesnb.draws does.
            names = np.asarray(layout_coords(est)["feature"], dtype=str)
            coords["category"] = [*names[~pooled].tolist(), UNK]
            extra["category"] = unk.category
            X = _pool_unk(X, pooled)
            alpha = np.append(alpha[~pooled], float(fitted_alpha(est)))
            obs_dim = "category"
        data = {"feature_alpha": alpha.copy()} if prior is None else {}
        what = ("token counts", "token counts")
        more, observed = feature_observations(
            X, codes, len(est.classes_), likelihood, what, obs_dim
        )
        data |= more
        completion = None
        if prior is not None:
            # a learned α: each class's unseen cells collapsed (simplex.collapsed_dirichlet)
            counts = count_features(X, codes, np.ones(len(codes)), len(est.classes_))
            seen = (counts > 0).astype(np.float64)
            data |= {"feature_seen": seen, "feature_unseen_count": (1.0 - seen).sum(axis=1)}
            completion = _completion(unk.pooled is not None, extra.get("category"), seen)
        if likelihood == "data":
            # The likelihood reads the nonzero cells; the documents stay a pm.Data of the
            # model (posterior predictive draws take their lengths) that a compiled model,
            # which knows only the data its log-density reads, is not given.
            extra["X_data"] = data.pop("X_data")
            data |= sparse_cells(X, codes)
            if prior is None:
                data["X_length"] = np.asarray(extra["X_data"].sum(axis=1), dtype=np.float64)
        else:
            data["feature_count_log_coef"] = multinomial_log_coef(data["feature_count_data"])
        unk = "category" in extra
        name = "category_prob" if unk else "feature_prob"
        auxiliary = {f"{name}_log_gamma": ["class", obs_dim]}
        if completion is not None:
            auxiliary[f"{name}_unseen_log_gamma"] = ["class"]
        return make_spec(
            est,
            documents,
            codes,
            likelihood,
            prior,
            kind=self.name,
            data=data,
            observed=observed,
            structure=("unk", tuple(extra["category"].tolist())) if unk else ("full",),
            build=_build_multinomial,
            dims={"feature_prob": ["class", "feature"]},
            hyperparameter_dims={"feature_alpha": [obs_dim]},
            coords=coords,
            extra=extra,
            auxiliary=auxiliary,
            completion=completion,
        )

    def pymc_unlabelled(self, est, X) -> tuple:
        """See :meth:`bayesnb.families.Family.pymc_unlabelled`: ``ln n_i! − Σ_j ln x_ij! +
        Σ_j x_ij log θ_cj`` over the nonzero cells (the pooled UNK column with unk=True)."""
        X = unlabelled_documents(est, X)
        pooled = UnkColumns(est).pooled
        if pooled is not None:
            X = _pool_unk(X, pooled)
        # the cells of one class (codes 0): X_cell is the column
        cells = sparse_cells(X, np.zeros(X.shape[0], dtype=np.int64))
        as_counts(cells["X_value"], "token counts")
        data = {
            f"unlabelled_{k}": cells[f"X_{v}"]
            for k, v in (
                ("row", "row"),
                ("col", "cell"),
                ("value", "value"),
                ("log_coef", "log_coef"),
            )
        }
        name = "feature_prob" if pooled is None else "category_prob"

        def jll(get):
            import pytensor.tensor as pt

            coef = get("unlabelled_log_coef")
            log_theta = pt.log(get(name))
            return coef[:, None] + cell_dot(get, "unlabelled", log_theta, coef.shape[0])

        return data, jll


def _pool_unk(X, pooled: np.ndarray):
    """The seen columns of X and one UNK column, the sum of the ``pooled`` ones."""
    unk_col = np.asarray(X[:, pooled].sum(axis=1)).reshape(-1, 1)
    kept = X[:, ~pooled]
    if sp.issparse(X):
        return sp.hstack([kept, sp.csr_matrix(unk_col)]).tocsr()
    return np.hstack([kept, unk_col])


def _completion(unk: bool, category, seen: np.ndarray) -> Completion:
    """The probabilities of a learned-α model from its collapsed draws: the unseen cells'
    split drawn afresh (:func:`bayesnb.pymc_models.simplex.collapsed_dirichlet_draws`)."""
    name = "category_prob" if unk else "feature_prob"

    def draw(values: dict, rng: np.random.Generator) -> dict:
        log_theta = simplex.collapsed_dirichlet_draws(
            values[f"{name}_log_gamma"],
            values[f"{name}_unseen_log_gamma"],
            values["alpha"],
            seen,
            rng,
        )
        theta = np.exp(log_theta, out=log_theta)
        return {name: theta} | ({"feature_prob": theta[..., category]} if unk else {})

    gives = (name, "feature_prob") if unk else (name,)
    return Completion(
        needs=(f"{name}_log_gamma", f"{name}_unseen_log_gamma", "alpha"), gives=gives, draw=draw
    )


def _build_multinomial(spec: ModelSpec):
    """θ_c ~ Dirichlet(α) as normalised log-Gamma variates (:mod:`bayesnb.pymc_models.simplex`);
    the data form is one log-density over the documents' nonzero cells."""
    import pymc as pm
    import pytensor.tensor as pt

    unk = "category" in spec.extra
    dim = "category" if unk else "feature"
    with pm.Model(coords=spec.coords) as model:
        _, labels = declare_class_prior(spec)
        name = "category_prob" if unk else "feature_prob"
        if spec.likelihood == "data":
            X_d = pm.Data("X_data", spec.extra["X_data"], dims=("doc", dim))
            cells = {k: pm.Data(k, spec.data[k]) for k in simplex.SPARSE_CELLS}
        else:
            T_d = declare_feature_data(spec, dim)
        if spec.alpha_prior is None:
            # the tokens of each class: the multinomial draws of each row of θ
            if spec.likelihood == "data":
                lengths = pm.Data("X_length", spec.data["X_length"], dims="doc")
                tokens = pt.zeros(len(spec.coords["class"]))[labels].inc(lengths)
            else:
                tokens = T_d.sum(axis=1)
            # α unbroadcast: ln Γ(α) is taken once per distinct α, not per (class, feature) cell
            a = declare_feature_alpha(spec, dim)
            theta, log_theta = simplex.dirichlet(name, a, dims=("class", dim), total=tokens)
            log_theta_lik = log_theta
        else:
            a = pt.broadcast_to(declare_alpha(spec, trailing=0), (len(spec.coords["class"]),))
            seen = pm.Data("feature_seen", spec.data["feature_seen"], dims=("class", dim))
            m = pm.Data("feature_unseen_count", spec.data["feature_unseen_count"], dims="class")
            theta, log_theta_lik, log_theta = simplex.collapsed_dirichlet(
                name, a, seen, m, dims=("class", dim)
            )
        if unk:
            pm.Deterministic(
                "feature_prob", theta[:, spec.extra["category"]], dims=("class", "feature")
            )
        draw_log_theta = None if log_theta is log_theta_lik else log_theta
        if spec.likelihood == "data":
            simplex.sparse_multinomial(
                "X", X_d, labels, log_theta_lik, cells, ("doc", dim), draw_log_theta
            )
        else:
            coef = pm.Data("feature_count_log_coef", spec.data["feature_count_log_coef"])
            simplex.multinomial(
                "feature_count",
                T_d.sum(axis=1),
                log_theta_lik,
                log_coef=coef,
                draw_log_p=draw_log_theta,
                observed=T_d,
                dims=("class", dim),
            )
    return model
