"""PyMC declarations: the generative models of bayesnb with exactly the closed-form priors.

The ``declare`` arrow of the pipe (docs/design.md, "Architecture"). Every model is

Every Dirichlet is declared as normalised Gamma variates sampled in log space (free variables
``*_log_gamma``, see :mod:`bayesnb.pymc_models.simplex`): the same distribution, a
log-concave posterior for every shape, so NUTS does not diverge at the boundary of the simplex
where the rare words of a text model live; each row's scale is tilted by the likelihood's
multinomial draws from it, so that the posterior of the variates is independent log-Gamma
(:func:`bayesnb.pymc_models.simplex.dirichlet`).

- labels: ``y_i ~ Categorical(π)``, ``π ~ Dirichlet(γ·1)`` with ``γ = est.class_alpha``
  (``fit_prior=False`` or ``class_prior=`` fix π instead: it becomes constant data);
- Bernoulli NB: ``x_ij ~ Bernoulli(φ_{y_i j})``, ``φ_cj ~ Beta(α_j, β_j)``;
- multinomial NB: ``x_i ~ Multinomial(n_i, θ_{y_i})``, ``θ_c ~ Dirichlet(α)``;
- categorical NB: ``x_ij ~ Categorical(θ_{y_i j})``, ``θ_cj ~ Dirichlet(α_j·1)`` over the
  ``k_j`` categories seen by the estimator plus one pooled slot for every other value;
- Poisson NB: ``x_ij ~ Poisson(λ_{y_i j})``, ``λ_cj ~ Gamma(α_j, β_j)`` (shape, rate), the
  variable ``feature_rate``; integer counts only;
- Dirichlet-compound-multinomial NB: ``β_cj ~ Gamma(prior_shape, prior_rate)`` (variable
  ``concentration``, with ``feature_prob = β_c / B_c``), sampled as its total
  ``B_c ~ Gamma(V·prior_shape, prior_rate)`` (``concentration_total``) and the independent
  ``feature_prob_c ~ Dirichlet(prior_shape·1)``, ``x_i ~
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
    use for posterior predictive draws of documents. MultinomialNB's ``X`` is one
    log-density over the documents' nonzero cells
    (:func:`bayesnb.pymc_models.simplex.sparse_multinomial`, one value per document).
    GDA's ``X`` is written on the layout variables ``mean`` and ``cov`` (not on the
    auxiliary Bartlett factors, which :func:`bayesnb.inference.fit_pymc` drops), so
    ``pm.sample_posterior_predictive(tree, freeze_vars=["mean", "cov"])`` on this model draws
    documents from a fit's posterior.
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

Each family declares its own model in ``bayesnb/families/<name>/pymc.py`` (the method
``Family.pymc_spec``, reached through the registry): GDA's Bartlett parametrisation, the
categorical padding of ``feature_prob`` and MultinomialNB's pooled ``UNK`` category are
documented there; the pieces every model shares (documents, the class prior, the feature
prior's ``pm.Data``) are in :mod:`bayesnb.pymc_models.declaration`, the numpy description
of a model (:class:`ModelSpec`, also the key of a compiled model) in
:mod:`bayesnb.pymc_models.spec`.

**Sample weights.** The PyMC likelihood counts documents, so only integer weights are
accepted: a weight of w is the document repeated w times (0 drops it). Fractional weights
raise ``ValueError`` (GDA included, so that both likelihood forms declare the same model).
"""

from __future__ import annotations

from collections.abc import Mapping

from bayesnb.families import family_of, has_family
from bayesnb.pymc_models.spec import (
    DEFAULT_ALPHA_PRIOR,
    LIKELIHOODS,
    ModelSpec,
    check_alpha_prior,
    check_likelihood,
)
from bayesnb.pymc_models.unlabelled import is_semisupervised, semisupervised_spec

__all__ = [
    "DEFAULT_ALPHA_PRIOR",
    "LIKELIHOODS",
    "ModelSpec",
    "check_likelihood",
    "declare",
    "model_spec",
]


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
        stored statistics). A :class:`~bayesnb.SemiSupervisedNB` (fitted on ``(X, y)`` first
        when unfitted) declares its fitted estimator's model on the labelled rows plus the
        Potential ``unlabelled_loglik``, the unlabelled rows' labels marginalised
        (:mod:`bayesnb.pymc_models.unlabelled`); not with ``alpha_prior``.
    X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels, all among ``est.classes_`` (a SemiSupervisedNB's unlabelled rows marked as
        :func:`bayesnb.semisupervised.unlabelled_mask` says).
    likelihood : {"sufficient", "data"}, default "sufficient"
        ``"data"`` is the literal per-document model, ``"sufficient"`` the same posterior on
        sufficient statistics (see the module docstring for the exact forms).
    alpha_prior : dict, optional
        Learn a symmetric α instead of fixing it: ``α ~ Gamma(alpha, beta)`` (shape, rate),
        defaults :data:`DEFAULT_ALPHA_PRIOR` (Gamma(2, 1)) for missing keys, so
        ``alpha_prior={}`` uses the default; ``per_class=True`` gives every class its own α
        (dims ``class``) with that prior. ``est.alpha`` is then ignored; BernoulliNB uses
        Beta(α, α) when ``est.beta`` is None and Beta(α, est.beta) otherwise. The posterior
        gains ``alpha``; the hyperprior's values are the ``pm.Data`` ``alpha_shape`` and
        ``alpha_rate``. Naive Bayes models only (not DirichletCompoundNB, ColumnwiseNB).
    sample_weight : array-like of shape (n_samples,), optional
        Integer weights only (a weight is a repeat count).

    Returns
    -------
    pymc.Model
        Free variables ``class_prior_log_gamma`` (unless π is fixed) and
        ``feature_prob_log_gamma`` (or its per-k groups; ``category_prob_log_gamma`` with
        unk=True; BernoulliNB's free ``feature_prob`` is a Beta; MultinomialNB with
        ``alpha_prior`` collapses each class's unseen cells, adding
        ``feature_prob_unseen_log_gamma``: see
        :func:`bayesnb.pymc_models.simplex.collapsed_dirichlet`), Deterministics
        ``class_prior`` and ``feature_prob``, ``alpha`` with ``alpha_prior``; observed
        ``y``/``X`` (data) or
        ``class_count``/``feature_count``/``category_count`` (sufficient). GDA: free
        ``bartlett_chi2``, ``bartlett_normal`` (d > 1) and ``mean`` (``variance`` and ``mean``
        for the diagonal model), Deterministic ``cov``; observed ``y`` and ``X`` (data) or
        ``class_count`` plus the Potential ``gaussian_loglik`` (sufficient).

    Notes
    -----
    With a learned α the posterior couples α and every probability. MultinomialNB's
    collapsed form takes that coupling out of the sampler's way (15 leapfrog steps a draw
    and R-hat ≤ 1.01 at 4 × 1,000 draws on 150 documents × 500 Zipfian words); the other
    families sample every cell's variate with a shape that moves with α.

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

    The estimator's family declares its model (``Family.pymc_spec``); a
    :class:`~bayesnb.SemiSupervisedNB` adds its unlabelled documents
    (:mod:`bayesnb.pymc_models.unlabelled`).
    """
    likelihood = check_likelihood(likelihood)
    prior = check_alpha_prior(alpha_prior)
    if is_semisupervised(est):
        return semisupervised_spec(est, X, y, likelihood, prior, sample_weight)
    if not has_family(est):
        raise TypeError(f"no PyMC declaration for {type(est).__name__}")
    family = family_of(est, "bayesnb.pymc_models")
    return family.pymc_spec(est, X, y, likelihood, prior, sample_weight)
