"""The PyMC declaration of a semi-supervised model: the unlabelled documents' labels marginalised.

:class:`~bayesnb.SemiSupervisedNB` on ``(X, y)`` (unlabelled rows marked as
:func:`bayesnb.semisupervised.unlabelled_mask` says) is declared as the model of its fitted
estimator on the labelled rows (the family's declaration, either likelihood form, unchanged)
plus one ``pm.Potential``::

    unlabelled_loglik = Σ_{unlabelled i} λ w_i logsumexp_c(log π_c + log p(x_i | θ_c))

the log-likelihood of each unlabelled document with its class summed out, raised to the
power λ w_i (λ = ``unlabelled_weight``, w the sample weights): the observed-data posterior
that EM maximises and variational Bayes approximates (:mod:`bayesnb.semisupervised`,
:mod:`bayesnb.variational`), so NUTS on it is their yardstick. ``log p(x_i | θ_c)`` is the
family's own expression (``Family.pymc_unlabelled``), the data form's per-document
log-likelihood with its constant (the multinomial coefficient, ``−Σ ln x!``), on the same
model variables. λ w is the ``pm.Data`` ``unlabelled_weight``, so a new λ re-uses a compiled
model. With no unlabelled row (or λ = 0) the specification is the estimator's own: the same
compiled model and the same seeded draws.

Each Dirichlet's scale is tilted by the labelled documents only
(:func:`bayesnb.pymc_models.simplex.dirichlet`): the marginal of θ is exact whatever the
tilt, which only makes the sampler's scale variable a little less independent of θ.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bayesnb.families import family_of
from bayesnb.pymc_models.spec import ModelSpec
from bayesnb.validation import check_sample_weight

__all__ = ["is_semisupervised", "layout_estimator", "semisupervised_spec"]

#: The Potential of the unlabelled documents, and the pm.Data of their weights λ·w_i.
POTENTIAL, WEIGHT = "unlabelled_loglik", "unlabelled_weight"


def is_semisupervised(est) -> bool:
    """Whether ``est`` is a :class:`~bayesnb.SemiSupervisedNB` (declared by this module)."""
    from bayesnb.semisupervised import SemiSupervisedNB

    return isinstance(est, SemiSupervisedNB)


def layout_estimator(est):
    """The estimator whose layout the draws take: a SemiSupervisedNB's fitted estimator."""
    return est.estimator_ if is_semisupervised(est) else est


def semisupervised_spec(semi, X, y, likelihood: str, alpha_prior, sample_weight) -> ModelSpec:
    """The ModelSpec of fitted (or first fitted) ``semi`` on ``(X, y)``.

    The labelled rows are declared by the family of ``semi.estimator_`` (integer weights,
    as every PyMC declaration); the unlabelled rows take any weights ≥ 0.
    """
    if alpha_prior is not None:
        raise ValueError(
            "alpha_prior is not supported with unlabelled documents: SemiSupervisedNB needs "
            "a fixed prior (give the estimator a numeric alpha)"
        )
    if not hasattr(semi, "estimator_"):
        semi.fit(X, y, sample_weight=sample_weight)
    semi._check_params()
    lam = semi.unlabelled_weight_  # the fitted λ: a rule ("cv", "loo") chose it at fit
    (Xl, yl, wl), (Xu, wu) = semi._split(X, y, sample_weight)
    est = semi.estimator_
    family = family_of(est, "bayesnb.pymc_models")
    spec = family.pymc_spec(est, Xl, yl, likelihood, None, wl)
    n_unlabelled = Xu.shape[0]
    if lam == 0 or n_unlabelled == 0:
        return spec
    data, jll = family.pymc_unlabelled(est, Xu)
    data[WEIGHT] = lam * check_sample_weight(wu, Xu)
    base = spec.build

    def build(s: ModelSpec):
        import pymc as pm
        import pytensor.tensor as pt

        model = base(s)
        with model:
            for name in data:
                pm.Data(name, s.data[name])
            joint = jll(model.__getitem__) + pt.log(model["class_prior"])
            pm.Potential(POTENTIAL, pt.sum(model[WEIGHT] * pt.logsumexp(joint, axis=1)))
        return model

    return replace(
        spec,
        structure=(*spec.structure, "unlabelled"),
        data=spec.data | data,
        build=build,
        extra=spec.extra | {"unlabelled": (n_unlabelled, float(lam))},
    )


def unlabelled_attrs(spec: ModelSpec) -> dict[str, float]:
    """The posterior attrs of a semi-supervised fit: ``n_unlabelled``, ``unlabelled_weight``."""
    if "unlabelled" not in spec.extra:
        return {}
    n, lam = spec.extra["unlabelled"]
    return {"n_unlabelled": int(n), "unlabelled_weight": float(np.float64(lam))}
