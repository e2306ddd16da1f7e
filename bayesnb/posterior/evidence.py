"""Closed-form log marginal likelihoods of the conjugate pairs (statistics + prior -> float).

Documents are token sequences (no multinomial coefficients); every function sums independent
conjugate pieces over classes and features:

- :func:`dirichlet_log_evidence`: Dirichlet-multinomial segments (multinomial, categorical
  and class-label models);
- :func:`beta_log_evidence`: Beta-Bernoulli cells;
- :func:`gamma_poisson_log_evidence`: Gamma-Poisson cells;
- :func:`niw_log_evidence`: the Normal-Inverse-Wishart marginal likelihood of GDA.

The families' evidence methods (``bayesnb/families/*/evidence.py``) apply them to their
posteriors; :mod:`bayesnb.evidence` adds the class term and re-exports them.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from bayesnb.posterior.gaussian import NormalInverseWishartPosterior
from bayesnb.scoring.discrete import log_rising

__all__ = [
    "beta_log_evidence",
    "dirichlet_log_evidence",
    "gamma_poisson_log_evidence",
    "log_multigamma",
    "niw_log_evidence",
    "segment_offsets",
]


def dirichlet_log_evidence(alpha, counts: np.ndarray, sizes: np.ndarray | None = None) -> float:
    """Σ over rows and segments of the Dirichlet-multinomial log evidence of token sequences.

    For one segment with concentrations a and counts n:
    ``ln Γ(Σa) − ln Γ(Σa + Σn) + Σ_k [ln Γ(a_k + n_k) − ln Γ(a_k)]``.

    Parameters
    ----------
    alpha : float or ndarray broadcastable to ``counts``
        Prior concentration of every category (> 0).
    counts : ndarray of shape (n_rows, n_categories)
        Observed (weighted) counts, one row per independent Dirichlet group (class).
    sizes : ndarray of int, optional
        Segment lengths along the last axis (one segment by default).

    Returns
    -------
    float
    """
    counts = np.asarray(counts, dtype=np.float64)
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), counts.shape)
    offsets = segment_offsets(sizes)
    A = np.add.reduceat(a, offsets, axis=-1)
    T = np.add.reduceat(counts, offsets, axis=-1)
    # log_rising: ln Γ differences without cancellation at large concentrations.
    seg = -log_rising(A, T)
    cat = log_rising(a, counts)
    return float(seg.sum() + cat.sum())


def beta_log_evidence(alpha, beta, successes: np.ndarray, failures: np.ndarray) -> float:
    """Σ_cj [ln B(α + D_cj, β + F_cj) − ln B(α, β)], the Beta-Bernoulli log evidence.

    Parameters
    ----------
    alpha, beta : float or ndarray broadcastable to ``successes``
    successes, failures : ndarray of shape (n_classes, n_features)
        Documents with (D) and without (F = N_c − D) each feature.
    """
    # ln B(α + D, β + F) − ln B(α, β) as three log rising factorials (no cancellation).
    a, b = np.asarray(alpha, dtype=np.float64), np.asarray(beta, dtype=np.float64)
    s, f = np.asarray(successes, dtype=np.float64), np.asarray(failures, dtype=np.float64)
    return float(np.sum(log_rising(a, s) + log_rising(b, f) - log_rising(a + b, s + f)))


def gamma_poisson_log_evidence(
    alpha, beta, sums: np.ndarray, counts: np.ndarray, log_factorial: float
) -> float:
    """Log evidence of Poisson counts under Gamma(α, β) rates (shape α, rate β).

    Per (class, feature): ``∫ Π_i Poisson(x_i | λ) Gamma(λ | α, β) dλ`` is
    ``β^α Γ(α + S) / (Γ(α) (β + N)^(α + S)) / Π_i x_i!`` with S = Σ_i x_i, N the number of
    documents; weighted rows enter as fractional repeats.

    Parameters
    ----------
    alpha, beta : float or ndarray of shape (n_features,)
    sums : ndarray of shape (n_classes, n_features)
        Per-class feature sums S_cj.
    counts : ndarray of shape (n_classes,) or (n_classes, n_features)
        Class counts N_c, or (``missing="ignore"``) the documents N_cj of class c in which
        feature j is observed.
    log_factorial : float
        ``Σ_i w_i Σ_j ln Γ(x_ij + 1)`` over the training data.
    """
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), sums.shape)
    b = np.broadcast_to(np.asarray(beta, dtype=np.float64), sums.shape)
    shape = a + sums
    n = np.asarray(counts, dtype=np.float64)
    n = n[:, None] if n.ndim == 1 else n
    cell = a * np.log(b) - gammaln(a) + gammaln(shape) - shape * np.log(b + n)
    return float(cell.sum() - log_factorial)


def log_multigamma(a, d: int) -> np.ndarray:
    """Log multivariate gamma function ln Γ_d(a), elementwise over an array ``a``.

    ``ln Γ_d(a) = d(d − 1)/4 · ln π + Σ_{j=1..d} ln Γ(a + (1 − j)/2)`` (scipy's
    ``multigammaln`` takes a scalar ``a`` only).
    """
    a = np.asarray(a, dtype=np.float64)
    j = np.arange(d)
    return 0.25 * d * (d - 1) * np.log(np.pi) + gammaln(a[..., None] - 0.5 * j).sum(axis=-1)


def _log_det_spd(matrix: np.ndarray) -> np.ndarray:
    """log |M| of symmetric positive definite matrices through their Cholesky factors."""
    L = np.linalg.cholesky(matrix)
    return 2.0 * np.log(np.diagonal(L, axis1=-2, axis2=-1)).sum(axis=-1)


def niw_log_evidence(post: NormalInverseWishartPosterior) -> float:
    """Log marginal likelihood log p(X | y) of GDA under its Normal-Inverse-Wishart prior.

    Per class (Murphy 2007, "Conjugate Bayesian analysis of the Gaussian distribution",
    eq. 266), with N_c the class count, κ_c = κ0 + N_c, ν_c = ν0 + N_c::

        log p(X_c) = −(N_c d/2) ln π + (d/2) ln(κ0/κ_c) + ln Γ_d(ν_c/2) − ln Γ_d(ν0/2)
                     + (ν0/2) ln|Ψ0| − (ν_c/2) ln|Ψ_c|

    summed over classes. Shared Σ: given Σ each class mean integrates out on its own
    (a factor (κ0/κ_c)^{d/2} ``|Σ|^{−N_c/2}`` exp(−tr(Σ⁻¹ [S_c + κ0 N_c/κ_c · δ_c δ_cᵀ])/2) per
    class, times (2π)^{−N_c d/2}); the product over classes has one Σ left, whose inverse
    Wishart integral gives, with ν = ν0 + N and Ψ the pooled posterior scale::

        log p(X | y) = −(N d/2) ln π + Σ_c (d/2) ln(κ0/κ_c) + ln Γ_d(ν/2) − ln Γ_d(ν0/2)
                       + (ν0/2) ln|Ψ0| − (ν/2) ln|Ψ|

    (the powers of 2 from the Gaussian and both Wishart normalisers cancel). The diagonal
    model is a Normal-Inverse-Gamma model per (class, feature): the d = 1 case of the first
    formula with ν replaced by ν − d + 1 (the 1 × 1 marginal of the inverse Wishart) and
    Ψ by Ψ_jj. Sample weights enter as fractional counts (integer weights = repeated rows).
    Log determinants come from Cholesky factors and the Gamma functions from ``gammaln``.

    Parameters
    ----------
    post : NormalInverseWishartPosterior
        The fitted posterior (``est.posterior_``): resolved prior and statistics.

    Returns
    -------
    float
    """
    prior, st = post.prior, post.stats
    d = st.n_features
    kappa0, nu0 = float(prior.kappa0), float(prior.nu0)
    counts = st.count
    log_kappa = 0.5 * np.log(kappa0 / post.kappa)  # per class, per dimension
    if post.covariance_type == "diagonal":
        nu0_1 = nu0 - d + 1.0
        nu_1 = post.nu - d + 1.0  # (K,)
        psi0 = np.diagonal(prior.psi0)  # (d,)
        per_cell = (
            gammaln(nu_1 / 2.0)[:, None]
            - gammaln(nu0_1 / 2.0)
            + 0.5 * nu0_1 * np.log(psi0)
            - 0.5 * nu_1[:, None] * np.log(post.psi)
        )
        return float(-0.5 * counts.sum() * d * np.log(np.pi) + d * log_kappa.sum() + per_cell.sum())
    nu = post.nu
    log_det0 = float(_log_det_spd(prior.psi0))
    log_det = _log_det_spd(post.psi)  # scalar (shared) or (K,)
    iw = log_multigamma(nu / 2.0, d) - log_multigamma(nu0 / 2.0, d)
    iw = iw + 0.5 * nu0 * log_det0 - 0.5 * nu * log_det
    if post.covariance_type == "per_class":
        # A class without data contributes exactly 0 (posterior = prior).
        iw = np.where(counts > 0, iw, 0.0)
    return float(-0.5 * counts.sum() * d * np.log(np.pi) + d * log_kappa.sum() + np.sum(iw))


def segment_offsets(sizes) -> np.ndarray:
    """Start of every segment along the last axis (one segment at 0 when ``sizes`` is None)."""
    if sizes is None:
        return np.zeros(1, dtype=np.intp)
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
