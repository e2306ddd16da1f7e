"""Variational Bayes for unlabelled documents: mean field over θ and the unknown labels.

The model is that of :mod:`bayesnb.semisupervised` with its prior integrated out instead of
maximised: π ~ Dirichlet(γ), θ_c from the family's conjugate prior, and an unlabelled
document's class z_i ~ π unknown, its likelihood raised to the power λ·w_i. Mean field takes
q(θ, z) = q(θ) Π_i q(z_i) and maximises the evidence lower bound (ELBO)::

    F(q) = E_q[log p(θ)] − E_q[log q(θ)] + Σ_{labelled i} w_i E_q[log p(x_i, y_i | θ)]
           + λ Σ_{unlabelled i} w_i Σ_c r_ic (E_q[log p(x_i, c | θ)] − log r_ic)

(r_ic = q(z_i = c)), a lower bound on log ∫ p(θ) Π_lab p(x_i, y_i | θ)^w_i
Π_unl p(x_i | θ)^(λ w_i) dθ — for λ = 1 and unit weights the log evidence
log p(X_lab, y_lab, X_unl) — by Jensen's inequality in each document's sum over classes.
Coordinate ascent alternates two exact maximisations, so F never decreases:

- **q(z)** given q(θ): r_ic ∝ exp(E_q[log π_c] + E_q[log p(x_i | θ_c)]), the digamma
  expectations of the log-parameters (``Family.expected_log_likelihood``; E[log π_c] =
  ψ(γ + N_c) − ψ(Kγ + N), or log π_c for a fixed class prior), never a point estimate;
- **q(θ)** given r: the log-likelihood terms are linear in the sufficient statistics, so
  the maximiser is q(θ) ∝ p(θ) exp(ℓ_r(θ)) with ℓ_r the log-likelihood of the labelled
  statistics plus the soft statistics of the unlabelled rows (weights r_ic·λ·w_i): exactly
  the conjugate posterior of a supervised fit on those statistics (``_fit_arrays``), so
  every path of the fitted estimator (point estimates, ``"bayes"``, ``sample_posterior``,
  files) reads q(θ).

At that maximiser E_q[log p(θ) + ℓ_r(θ) − log q(θ)] = log ∫ p(θ) exp(ℓ_r(θ)) dθ, the
closed-form log evidence of the statistics (:func:`bayesnb.evidence.log_evidence` of the
fitted estimator, fractional counts included), so after each q(θ) update::

    F = log_evidence(estimator) + λ Σ_{unlabelled i} w_i H(r_i),   H(r) = −Σ_c r_c log r_c.

With no unlabelled document (or λ = 0) F is the log evidence of the supervised fit itself,
the conjugate case being exact.
"""

from __future__ import annotations

import numpy as np

from bayesnb.families import family_of
from bayesnb.scoring import normalize_log_proba
from bayesnb.validation import check_fitted

__all__ = [
    "expected_class_log_prior",
    "expected_joint_log_proba",
    "label_entropy",
    "label_log_posterior",
    "label_posterior",
]


def expected_class_log_prior(est) -> np.ndarray:
    """``E_q[log π_c]`` under fitted ``est``'s Dirichlet(γ + N) posterior of the class
    probabilities: ψ(γ + N_c) − ψ(Kγ + N); the fixed log π_c for ``class_prior=`` or
    ``fit_prior=False``.

    Returns
    -------
    ndarray of shape (n_classes,)
    """
    check_fitted(est)
    if est.class_prior is not None or not est.fit_prior:
        return est.class_log_prior_
    return est.class_posterior_.log_expectation()


def expected_joint_log_proba(est, X, validated: bool = False) -> np.ndarray:
    """``E_q[log π_c] + E_q[log p(x_i | θ_c)]`` of every row and class under the posterior
    q(θ) of fitted ``est`` (the log of the mean-field label distribution, unnormalised).

    Parameters
    ----------
    est : fitted bayesnb estimator whose family has an expected log-likelihood
        (every family but the DCM)
    X : array-like or sparse matrix of shape (n_samples, n_features)
    validated : bool, default False
        X is already the estimator's validated input (``est._check_input``'s output, which
        :class:`~bayesnb.SemiSupervisedNB` makes once per fit).

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    family = family_of(est, "variational Bayes")
    check_fitted(est)
    Xv = X if validated else est._check_input(X, reset=False)
    return family.expected_log_likelihood(est, Xv) + expected_class_log_prior(est)


def label_log_posterior(est, X, validated: bool = False) -> np.ndarray:
    """log q(z_i = c), the mean-field label distribution ∝ exp(E_q[log π_c] + E_q[log p(x_i |
    θ_c)]) of every row under fitted ``est``'s posterior (the E-step of variational Bayes); a
    row impossible under every class takes the class prior.

    Parameters
    ----------
    est, X, validated
        As in :func:`expected_joint_log_proba`.

    Returns
    -------
    ndarray of shape (n_samples, n_classes), rows log-summing to 0
    """
    joint = expected_joint_log_proba(est, X, validated)
    return normalize_log_proba(joint, est.class_log_prior_)


def label_posterior(est, X) -> np.ndarray:
    """``exp`` of :func:`label_log_posterior`: q(z_i = c), rows summing to 1."""
    return np.exp(label_log_posterior(est, X))


def label_entropy(log_r: np.ndarray) -> np.ndarray:
    """H(r_i) = −Σ_c r_ic log r_ic of every row of a log label distribution (0 · log 0 = 0).

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    r = np.exp(log_r)
    return -np.sum(np.where(r > 0, r * log_r, 0.0), axis=1)
