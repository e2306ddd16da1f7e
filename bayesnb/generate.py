"""Generate: a fitted generative model -> synthetic documents ``(X, y)``.

The generative story of each model run forward with the parameters of the estimator's
``estimate``:

- y ~ Categorical(π) with π = ``exp(class_log_prior_)`` (honouring ``class_prior=`` and
  ``fit_prior=False``);
- BernoulliNB: x_j | c ~ Bernoulli(φ_cj); X is a dense int64 0/1 array (already binary: refit it
  with a threshold in [0, 1) or ``binarize=None``);
- CategoricalNB: x_j | c ~ Categorical(θ_cj) over the k_j + 1 slots; the last slot (the pooled
  unseen category) is emitted as the value k_j, a category never seen in training, which the
  estimator scores through that same slot. X is a dense int64 array;
- MultinomialNB: the length n of each document is **drawn from the training length
  distribution of its class** (the weighted histogram ``length_count_``; a class without
  training documents uses the histogram of all classes), then x | c, n ~ Multinomial(n, θ_c).
  X is a CSR matrix of int64 counts. With ``unk=True`` a token of the UNK category goes to a
  uniformly chosen pooled (never seen) column; when no column is pooled the UNK slot is
  dropped and θ renormalised over the seen words.

- PoissonNB: x_j | c ~ Poisson(λ_cj) with the rates of the estimate (``"bayes"``: every
  document draws its own λ_c ~ Gamma(α + S_c, β + N_c) first, which makes each count the
  negative-binomial predictive the model scores with). X is a CSR matrix of int64 counts.

- DirichletCompoundNB: the length n of each document drawn from its class's training
  lengths (as MultinomialNB), then θ ~ Dirichlet(β_c), x | θ ~ Multinomial(n, θ) with β_c the
  ``concentration_`` of the estimate; generated token by token by the equivalent Pólya urn
  (:func:`replicate_documents`), so no V-sized Dirichlet draw is made per document. X is a CSR
  matrix of int64 counts.

- GDA: x | c ~ N(μ_c, Σ_c) with the means and covariance of the estimate (``means_``,
  ``covariance_``; independent features with the per-class variances for
  ``covariance="diagonal"``). X is a dense float64 array.

``estimate="bayes"`` generates from the posterior predictive that it scores with: for the
Bernoulli and categorical models that is the posterior mean; for the multinomial model every
document draws its own θ ~ Dirichlet(α + T_c) before its tokens (the Dirichlet-multinomial
predictive of one document); for GDA every sample is a multivariate Student-t draw
``μ_c + L z · sqrt(ν'/g)``, g ~ χ²(ν'), with ν' = ν − d + 1 and ``L Lᵀ = Ψ (κ_c + 1) /
(κ_c ν')`` (the diagonal model: one independent univariate t per feature, each with its own g,
as its predictive is a product over features).

This module draws the labels (the one random stream, then the class codes) and asks the
model's :class:`~bayesnb.families.Family` for the rest (``bayesnb/families/<name>/sampling.py``;
a ColumnwiseNB asks its blocks'). The shared kernels (document lengths, the Pólya urn) are in
:mod:`bayesnb.posterior.documents`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.families import family_of
from bayesnb.posterior.documents import polya_urn
from bayesnb.validation import check_fitted, check_int

__all__ = ["polya_urn", "replicate_documents", "sample"]


def sample(est, n: int, random_seed=None) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """Draw ``n`` synthetic documents from the fitted generative model.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB, DirichletCompoundNB,
        GDA or ColumnwiseNB
    n : int
        Number of documents (>= 0).
    random_seed : int, SeedSequence or Generator, optional
        The same seed gives the same data.

    Returns
    -------
    X : ndarray of int64 of shape (n, n_features), csr_matrix for MultinomialNB, PoissonNB
        and DirichletCompoundNB, ndarray of float64 for GDA
    y : ndarray of shape (n,)
        Labels drawn from the class prior, of the dtype of ``est.classes_``.
    """
    fam = family_of(est, "bayesnb.generate")
    rng, codes = _draw_labels(est, n, random_seed)
    return fam.generate(est, codes, rng), est.classes_[codes]


def _draw_labels(est, n: int, random_seed) -> tuple[np.random.Generator, np.ndarray]:
    """The generator of ``random_seed`` and ``n`` class codes drawn from the class prior."""
    check_fitted(est)
    check_int(n, "n", 0)
    rng = np.random.default_rng(random_seed)
    p = np.exp(est.class_log_prior_)
    return rng, rng.choice(p.shape[0], size=int(n), p=p / p.sum())


def replicate_documents(est, codes: np.ndarray, lengths: np.ndarray, rng) -> sp.csr_matrix:
    """Documents of the given classes and lengths from a fitted DCM or multinomial model.

    DirichletCompoundNB: the Pólya urn of ``concentration_``. MultinomialNB: tokens i.i.d.
    from exp(``feature_log_prob_``) (renormalised), or for ``estimate="bayes"`` the Pólya
    urn of its posterior concentration α + T_c (the predictive it scores with; with
    ``unk=True`` the UNK slot's mass is spread over the pooled columns).
    """
    fam = family_of(est, "bayesnb.generate.replicate_documents")
    codes = np.asarray(codes, dtype=np.intp)
    return fam.replicate_documents(est, codes, lengths, rng)
