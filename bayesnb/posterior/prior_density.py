"""Normalised log densities of the conjugate priors at a point of the parameters.

The observed-data log posterior that EM maximises (:mod:`bayesnb.semisupervised`) adds the
log prior density of the point estimate to the log-likelihood; these are those densities,
each summed over every independent factor of the prior, with the normalising constants (so
they equal ``scipy.stats``' ``logpdf``). A parameter on the boundary where the density's
kernel has exponent 0 (a Dirichlet or Beta with concentration 1 at a probability 0) scores
its constant only, as ``xlogy`` gives.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import betaln, gammaln, multigammaln, xlogy

__all__ = [
    "beta_log_density",
    "dirichlet_log_density",
    "gamma_log_density",
    "inverse_gamma_log_density",
    "inverse_wishart_log_density",
    "multivariate_normal_log_density",
    "normal_log_density",
]


def dirichlet_log_density(alpha, log_theta: np.ndarray, sizes=None) -> float:
    """Σ over rows and segments of log Dirichlet(θ | α).

    Parameters
    ----------
    alpha : float or ndarray broadcastable to ``log_theta``
        Concentrations (> 0), one per category.
    log_theta : ndarray of shape (..., n_categories)
        log θ; ``sizes`` splits the last axis into consecutive probability vectors.
    sizes : ndarray of int, optional
        Segment lengths (default one segment).
    """
    log_theta = np.asarray(log_theta, dtype=np.float64)
    n = log_theta.shape[-1]
    if np.ndim(alpha) == 0 and sizes is None:  # one concentration: no table of its logs
        a, vectors = float(alpha), log_theta.size // max(n, 1)
        kernel = 0.0 if a == 1.0 else (a - 1.0) * float(log_theta.sum())
        return vectors * float(gammaln(n * a) - n * gammaln(a)) + kernel
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), log_theta.shape)
    sizes = np.array([n]) if sizes is None else np.asarray(sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    with np.errstate(invalid="ignore"):
        kernel = np.where(a == 1.0, 0.0, (a - 1.0) * log_theta)
    norm = gammaln(np.add.reduceat(a, starts, axis=-1)).sum() - gammaln(a).sum()
    return float(norm + kernel.sum())


def beta_log_density(alpha, beta, log_p: np.ndarray, log_q: np.ndarray) -> float:
    """Σ log Beta(φ | α, β) with ``log_p`` = log φ and ``log_q`` = log(1 − φ) (each given)."""
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), np.shape(log_p))
    b = np.broadcast_to(np.asarray(beta, dtype=np.float64), np.shape(log_p))
    with np.errstate(invalid="ignore"):
        kernel = np.where(a == 1.0, 0.0, (a - 1.0) * log_p)
        kernel = kernel + np.where(b == 1.0, 0.0, (b - 1.0) * log_q)
    return float((kernel - betaln(a, b)).sum())


def gamma_log_density(shape, rate, x: np.ndarray) -> float:
    """Σ log Gamma(x | shape, rate) (rate parameterisation: mean shape/rate)."""
    x = np.asarray(x, dtype=np.float64)
    a = np.broadcast_to(np.asarray(shape, dtype=np.float64), x.shape)
    b = np.broadcast_to(np.asarray(rate, dtype=np.float64), x.shape)
    return float((a * np.log(b) - gammaln(a) + xlogy(a - 1.0, x) - b * x).sum())


def inverse_gamma_log_density(shape, scale, x: np.ndarray) -> float:
    """Σ log InvGamma(x | shape, scale) (scipy's ``invgamma(shape, scale=scale)``)."""
    x = np.asarray(x, dtype=np.float64)
    a = np.broadcast_to(np.asarray(shape, dtype=np.float64), x.shape)
    b = np.broadcast_to(np.asarray(scale, dtype=np.float64), x.shape)
    return float((a * np.log(b) - gammaln(a) - (a + 1.0) * np.log(x) - b / x).sum())


def normal_log_density(x: np.ndarray, mean: np.ndarray, var: np.ndarray) -> float:
    """Σ log N(x | mean, var), elementwise (independent coordinates)."""
    z = np.asarray(x, dtype=np.float64) - mean
    return float((-0.5 * (np.log(2.0 * np.pi * var) + z * z / var)).sum())


def _cholesky_logdet(cov: np.ndarray) -> tuple[np.ndarray, float]:
    L = np.linalg.cholesky(cov)
    return L, 2.0 * float(np.log(np.diagonal(L)).sum())


def inverse_wishart_log_density(cov: np.ndarray, psi: np.ndarray, nu: float) -> float:
    """log IW(Σ | Ψ, ν) of one (d, d) matrix (scipy's ``invwishart(df=ν, scale=Ψ)``)."""
    d = cov.shape[0]
    L, logdet_cov = _cholesky_logdet(cov)
    _, logdet_psi = _cholesky_logdet(psi)
    # tr(Ψ Σ⁻¹) = tr(L⁻¹ Ψ L⁻ᵀ) with Σ = L Lᵀ: no inverse of Σ is formed.
    inv_l = solve_triangular(L, np.eye(d), lower=True)
    trace = float(np.sum((inv_l @ psi) * inv_l))
    return (
        0.5 * nu * logdet_psi
        - 0.5 * nu * d * np.log(2.0)
        - multigammaln(0.5 * nu, d)
        - 0.5 * (nu + d + 1.0) * logdet_cov
        - 0.5 * trace
    )


def multivariate_normal_log_density(x: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> float:
    """Σ over rows of ``x`` (n, d) of log N(x | mean, cov), one (d, d) covariance."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    d = x.shape[1]
    L, logdet = _cholesky_logdet(cov)
    z = solve_triangular(L, (x - mean).T, lower=True)
    return float(-0.5 * (x.shape[0] * (d * np.log(2.0 * np.pi) + logdet) + np.sum(z * z)))
