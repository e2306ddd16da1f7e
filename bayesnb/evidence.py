"""Evidence: sufficient statistics + prior -> the closed-form log marginal likelihood.

``log p(X, y | prior)`` with the labels included and documents taken as token sequences (no
multinomial coefficients), so it is a sum of independent conjugate pieces:

- class labels: Dirichlet-multinomial of the class counts N_c under Dirichlet(γ·1_K)
  (or ``Σ_c N_c log p_c`` when the class prior is fixed by ``class_prior=`` or
  ``fit_prior=False``);
- Bernoulli NB: ``Σ_cj [B(α + D_cj, β + N_c − D_cj) − B(α, β)]`` (B = ln Beta function);
- multinomial NB: ``Σ_c [ln Γ(A) − ln Γ(A + T_c) + Σ_j (ln Γ(α_j + T_cj) − ln Γ(α_j))]``,
  A = Σ_j α_j;
- categorical NB: the same Dirichlet-multinomial term per (class, feature) segment;
- Poisson NB: the Gamma-Poisson marginal per (class, feature),
  ``Σ_cj [α_j ln β_j − ln Γ(α_j) + ln Γ(α_j + S_cj) − (α_j + S_cj) ln(β_j + N_c)]`` minus
  ``Σ_i w_i Σ_j ln Γ(x_ij + 1)`` (:func:`gamma_poisson_log_evidence`);
- GDA: the Normal-Inverse-Wishart marginal likelihood (:func:`niw_log_evidence`).
- DirichletCompoundNB (not conjugate): the Laplace approximation of the Pólya marginal
  likelihood in ln β (:meth:`bayesnb.posterior.polya.LaplacePosterior.log_evidence`).

Maximising it over one symmetric concentration gives ``alpha="evidence"`` and
``class_alpha="evidence"`` (empirical Bayes: the estimators' ``alpha_`` and ``class_alpha_``,
derived from the statistics on first use after a fit or ``set_params``), with Minka's fixed
point (T. Minka, "Estimating a Dirichlet distribution", 2000/2012) and a bounded 1-D search in
log α as fallback. PoissonNB's Gamma shape α (rate β fixed) is the root of the digamma
gradient, which is monotone in α (:func:`fit_gamma_shape`).

This module is generic: each family contributes its feature term and its learned α through the
family protocol (``feature_log_evidence``, ``learn_alpha`` in ``bayesnb/families/*/evidence.py``);
the closed forms live in :mod:`bayesnb.posterior.evidence`, the maximisers in
:mod:`bayesnb.posterior.empirical_bayes` (both re-exported here).
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

from bayesnb.families import family_of
from bayesnb.posterior.empirical_bayes import (
    ALPHA_BOUNDS,
    fit_beta_alpha,
    fit_gamma_shape,
    fit_symmetric_dirichlet,
)
from bayesnb.posterior.evidence import (
    beta_log_evidence,
    dirichlet_log_evidence,
    gamma_poisson_log_evidence,
    log_multigamma,
    niw_log_evidence,
)
from bayesnb.validation import check_class_prior, check_fitted

__all__ = [
    "ALPHA_BOUNDS",
    "beta_log_evidence",
    "class_log_evidence",
    "dirichlet_log_evidence",
    "feature_log_evidence",
    "fit_beta_alpha",
    "fit_gamma_shape",
    "fit_symmetric_dirichlet",
    "gamma_poisson_log_evidence",
    "log_evidence",
    "log_multigamma",
    "niw_log_evidence",
]

_WHERE = "bayesnb.evidence (closed-form evidence)"


def _family(est):
    return family_of(est, _WHERE)


def _class_log_evidence(est) -> float:
    counts = est.class_count_
    n_classes = counts.shape[0]
    if est.class_prior is not None:
        # Fixed prior: no parameter to integrate, the labels are i.i.d. Categorical(p).
        return float(np.sum(xlogy(counts, check_class_prior(est.class_prior, n_classes))))
    if not est.fit_prior:
        return float(-counts.sum() * np.log(n_classes))
    gamma = float(est.class_alpha_)
    if gamma <= 0:
        raise ValueError(
            f"log_evidence needs class_alpha > 0, got class_alpha={gamma!r}: class_alpha=0 is "
            "the improper Haldane prior, whose marginal likelihood does not exist. Use "
            "class_alpha > 0 (or 'evidence'), or fix the class prior with class_prior=... or "
            "fit_prior=False (then the class term is Σ_c N_c log p_c)."
        )
    return dirichlet_log_evidence(gamma, counts[None, :])


def log_evidence(est) -> float:
    """Closed-form log marginal likelihood ``log p(X, y | prior)`` of a fitted estimator.

    Labels are included and documents are token sequences (no multinomial coefficients), so
    the value is comparable across α for the same data, and additive over ``partial_fit``
    batches only through the statistics (not batch by batch). With ``unk=True`` the
    multinomial evidence is that of the model over the seen features plus the UNK category.
    PoissonNB models the counts themselves (no document length is conditioned on), so its
    evidence includes the ``1/x!`` of the Poisson pmf.

    GDA: the Normal-Inverse-Wishart evidence of the features given the labels
    (:func:`niw_log_evidence`; a density, so it can exceed 0) plus the same class term. With
    the default data-scaled prior the prior depends on the data (empirical Bayes), so the
    value compares models on the same data only.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB or GDA
        Uses the fitted ``alpha_`` and ``class_alpha_`` (learned values when the estimator was
        built with ``"evidence"``).

    Returns
    -------
    float
        ``-inf`` when a fixed class prior gives probability 0 to an observed class.

    Raises
    ------
    ValueError
        When the class prior is the improper ``class_alpha=0``.
    TypeError
        For an estimator type without a closed-form evidence.
    """
    _family(est)  # an unsupported type is a TypeError before any fitted-state check
    return class_log_evidence(est) + feature_log_evidence(est)


def class_log_evidence(est) -> float:
    """The class-label term of :func:`log_evidence`: log p(y | class prior).

    Dirichlet-multinomial of the class counts under Dirichlet(γ·1_K), or ``Σ_c N_c log p_c``
    for a fixed class prior. :class:`bayesnb.ColumnwiseNB` adds it once to the blocks'
    :func:`feature_log_evidence`.
    """
    check_fitted(est)
    return _class_log_evidence(est)


def feature_log_evidence(est) -> float:
    """log p(X | y, prior): :func:`log_evidence` without the class-label term.

    The family's closed form (or, for DirichletCompoundNB, its Laplace approximation); for
    :class:`bayesnb.ColumnwiseNB` the sum over its blocks (the blocks are conditionally
    independent given the labels, so their marginal likelihoods multiply).
    """
    family = _family(est)
    check_fitted(est)
    return family.feature_log_evidence(est)


def learn_alpha(est):
    """The feature concentration maximising the evidence of fitted ``est``
    (``alpha="evidence"``); ``est.alpha_`` is left holding a placeholder, to be replaced."""
    family = _family(est)
    est.alpha_ = 1.0  # placeholder: only the counts of the posterior are read below
    return family.learn_alpha(est)
