"""A likelihood temperature: p_τ(c | x) ∝ p(c) · p(x | c)^τ at scoring time.

Naive Bayes multiplies the evidence of every word as if the words were independent, so a long
document is scored far too confidently. Raising the document likelihood to a power τ < 1 when
turning joint log-probabilities into class probabilities rescales that evidence against the
class prior; it changes no estimate and no posterior (the counts are untouched), and τ = 1 is
the model itself. τ is learned by maximising the exact leave-one-out label log-likelihood
Σ_i log p_τ(y_i | x_i, D without i) (:func:`fit_temperature`), which is concave in τ: a
one-dimensional search on the (n, K) matrix of LOO log-likelihoods, no refits.
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np

__all__ = ["TEMPERATURE_BOUNDS", "check_temperature", "fit_temperature", "tempered"]

# The search interval of τ: below 1e-6 a document counts for nothing; above 1e3 the
# likelihood is sharpened beyond any use (a search ending there warns).
TEMPERATURE_BOUNDS = (1e-6, 1e3)


def check_temperature(temperature) -> float | str:
    """``temperature``: a finite number > 0, or ``"loo"`` (learned); a clear error otherwise."""
    if isinstance(temperature, str):
        if temperature != "loo":
            raise ValueError(f"temperature must be a positive number or 'loo', got {temperature!r}")
        return temperature
    if not isinstance(temperature, Real) or isinstance(temperature, bool):
        raise TypeError(f"temperature must be a positive number or 'loo', got {temperature!r}")
    if not (np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
    return float(temperature)


def tempered(joint: np.ndarray, log_prior, tau: float) -> np.ndarray:
    """``log p(c) + τ · log p(x | c)`` from joint log-probabilities and the class log prior.

    ``joint`` is ``log p(c) + log p(x | c)`` (rows × classes, or any shape ``log_prior``
    broadcasts to); τ = 1 returns it as it is. An impossible cell (``-inf`` in ``joint`` or in
    ``log_prior``) stays ``-inf``.
    """
    if tau == 1.0:
        return joint
    prior = np.broadcast_to(log_prior, joint.shape)
    dead = np.isneginf(joint) | np.isneginf(prior)
    with np.errstate(invalid="ignore"):
        out = prior + tau * (joint - prior)
    out[dead] = -np.inf
    return out


def fit_temperature(
    joint: np.ndarray, log_prior: np.ndarray, codes: np.ndarray, bounds=TEMPERATURE_BOUNDS
) -> float:
    """The τ maximising Σ_i log softmax(log_prior_i + τ L_i)[y_i], L = joint − log_prior.

    Parameters
    ----------
    joint : ndarray of shape (n, K)
        Leave-one-out joint log-probabilities log p(x_i, c | D without i).
    log_prior : ndarray of shape (n, K)
        The leave-one-out class log prior of each row.
    codes : ndarray of shape (n,)
        The label code of each row.
    bounds : (float, float)
        The interval searched; a maximum at its end warns and returns the end.

    Returns
    -------
    float

    Notes
    -----
    The objective is concave in τ (a log-sum-exp of functions affine in τ, subtracted): its
    derivative Σ_i (L_iy − E_q L_i) falls from the prior's side to the likelihood's, and its
    second derivative is −Σ_i Var_q L_i, q = p_τ(· | x_i). Newton steps inside a bracket kept
    by the sign of the derivative (bisection in log τ where a step leaves it) find the root
    to 1e-12 relative. Rows whose label or every class is impossible do not depend on τ and
    are left out.
    """
    n = codes.shape[0]
    rows = np.arange(n)
    prior = np.broadcast_to(log_prior, joint.shape)
    with np.errstate(invalid="ignore"):
        lik = np.where(np.isneginf(prior), -np.inf, joint - prior)
    own = lik[rows, codes]
    keep = np.isfinite(own) & (np.isfinite(lik).sum(axis=1) > 1)
    lik, prior, codes = lik[keep], prior[keep], codes[keep]
    if not keep.any():
        return 1.0
    finite = np.isfinite(lik)
    lik0 = np.where(finite, lik, 0.0)
    base = np.where(finite, prior, -np.inf)  # an impossible class keeps probability 0
    own = lik0[np.arange(codes.size), codes]

    def derivatives(tau: float) -> tuple[float, float]:
        q = np.multiply(lik0, tau)
        q += base
        q -= q.max(axis=1, keepdims=True)
        np.exp(q, out=q)
        q /= np.einsum("ik->i", q)[:, None]
        mean = np.einsum("ik,ik->i", q, lik0)
        d = lik0 - mean[:, None]
        d *= d
        return float(np.sum(own - mean)), -float(np.einsum("ik,ik->", q, d))

    lo, hi = float(bounds[0]), float(bounds[1])
    a, b = lo, hi
    tau = min(max(1.0, lo), hi)
    for _ in range(200):
        g, h = derivatives(tau)
        if g > 0:
            a = tau
        else:
            b = tau
        if (tau >= hi and g > 0) or (tau <= lo and g <= 0):
            _warn_bound(tau)
            return tau
        step = -g / h if h < 0 else np.inf
        if abs(step) <= 1e-12 * tau:  # the root, to rounding
            return float(tau + step)
        new = tau + step
        if not a < new < b:  # outside the bracket (or no curvature): bisect it in log τ
            new = float(np.sqrt(a * b))
        if b - a <= 1e-12 * b:
            return float(new)
        tau = float(new)
    return tau


def _warn_bound(tau: float) -> None:
    warnings.warn(
        f"the leave-one-out label log-likelihood keeps increasing towards temperature = "
        f"{tau:g}, the end of the search interval {TEMPERATURE_BOUNDS}; temperature_ is set "
        "there",
        RuntimeWarning,
        stacklevel=5,
    )
