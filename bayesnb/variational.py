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

from bayesnb.evidence import log_evidence
from bayesnb.families import family_of
from bayesnb.scoring import normalize_log_proba
from bayesnb.validation import check_fitted, check_sample_weight, encode_labels

__all__ = ["expected_class_log_prior", "expected_joint_log_proba", "label_posterior"]


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


def _expected_joint(est, Xv) -> np.ndarray:
    return family_of(est).expected_log_likelihood(est, Xv) + expected_class_log_prior(est)


def expected_joint_log_proba(est, X) -> np.ndarray:
    """``E_q[log π_c] + E_q[log p(x_i | θ_c)]`` of every row and class under the posterior
    q(θ) of fitted ``est`` (the log of the mean-field label distribution, unnormalised).

    Parameters
    ----------
    est : fitted bayesnb estimator whose family has an expected log-likelihood
        (every family but the DCM)
    X : array-like or sparse matrix of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    family_of(est, "variational Bayes")
    check_fitted(est)
    return _expected_joint(est, est._check_input(X, reset=False))


def _label_log_posterior(est, Xv) -> np.ndarray:
    """log q(z) of validated rows (a row impossible under every class: the class prior)."""
    return normalize_log_proba(_expected_joint(est, Xv), est.class_log_prior_)


def label_posterior(est, X) -> np.ndarray:
    """The mean-field label distribution q(z_i = c) ∝ exp(E_q[log π_c] + E_q[log p(x_i | θ_c)])
    of every row under fitted ``est``'s posterior (the E-step of variational Bayes).

    Parameters
    ----------
    est, X
        As in :func:`expected_joint_log_proba`.

    Returns
    -------
    ndarray of shape (n_samples, n_classes), rows summing to 1
    """
    return np.exp(normalize_log_proba(expected_joint_log_proba(est, X), est.class_log_prior_))


def _entropy(log_r: np.ndarray) -> np.ndarray:
    """H(r_i) = −Σ_c r_ic log r_ic of every row (0 · log 0 = 0)."""
    r = np.exp(log_r)
    return -np.sum(np.where(r > 0, r * log_r, 0.0), axis=1)


class _VB:
    """One mean-field run on fitted ``est`` (the labelled-only posterior): the validated
    documents, the labelled statistics (counted once) and the ELBO after the last update.

    ``unlabelled`` is ``(X, λ, sample_weight)``, or None: no update, the ELBO is the
    supervised log evidence. Otherwise the first update (q(z) under the labelled-only
    posterior, then q(θ)) is made here, so ``value`` is already an ELBO of every document.
    """

    def __init__(self, est, labelled, unlabelled) -> None:
        self.est = est
        self.supervised = unlabelled is None
        if self.supervised:
            self.value = log_evidence(est)
            return
        Xl, yl, wl = labelled
        self.Xl = est._check_input(Xl, reset=False)
        _, self.codes = encode_labels(yl, est.classes_)
        self.wl = check_sample_weight(wl, self.Xl)
        self.labelled_stats = est._statistics(self.Xl, self.codes, self.wl)
        Xu, lam, wu = unlabelled
        self.Xu = est._check_input(Xu, reset=False)
        self.wu = lam * check_sample_weight(wu, self.Xu)
        self.value = self.step()

    def step(self) -> float:
        """q(z) under the current q(θ), then q(θ) from the labelled and soft statistics; the
        ELBO there."""
        est = self.est
        log_r = _label_log_posterior(est, self.Xu)
        entropy = float(np.dot(self.wu, _entropy(log_r)))
        soft = family_of(est).soft_statistics(est, self.Xu, np.exp(log_r) * self.wu[:, None])
        est._fit_arrays(self.Xl, self.codes, self.wl, statistics=[self.labelled_stats, *soft])
        self.value = log_evidence(est) + entropy
        return self.value
