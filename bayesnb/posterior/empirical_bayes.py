"""Empirical Bayes: the one concentration (or Gamma shape) maximising a closed-form evidence.

``alpha="evidence"`` and ``class_alpha="evidence"`` maximise the log evidence of
:mod:`bayesnb.posterior.evidence` over one symmetric concentration, with Minka's fixed point
(T. Minka, "Estimating a Dirichlet distribution", 2000/2012) and a bounded 1-D search in log α
as fallback. PoissonNB's Gamma shape α (rate β fixed) is the root of the digamma gradient,
which is monotone in α (:func:`fit_gamma_shape`). The families' ``learn_alpha`` methods call
these on their posteriors' statistics; :mod:`bayesnb.evidence` re-exports them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy.special import digamma, gammaln

from bayesnb.posterior.evidence import beta_log_evidence, segment_offsets

__all__ = ["ALPHA_BOUNDS", "fit_beta_alpha", "fit_gamma_shape", "fit_symmetric_dirichlet"]

# Search range of a learned concentration. Outside it the evidence is flat to many digits,
# and reaching a bound means the optimum is the boundary (α → 0 or α → ∞).
ALPHA_BOUNDS = (1e-8, 1e8)

_MAX_ITER = 5000
_RTOL = 1e-11


def _maximise(
    log_ev: Callable[[float], float],
    update: Callable[[float], float],
    name: str,
    start: float = 1.0,
) -> float:
    """Iterate the fixed point ``update`` from ``start``; fall back to a bounded 1-D search.

    The fixed point is monotone in the evidence (it maximises a lower bound at every step) but
    only linearly convergent, and it drifts off towards 0 or ∞ when the optimum is a boundary;
    then ``minimize_scalar`` on ``−log_ev(exp(t))`` over ``log ALPHA_BOUNDS`` decides.
    """
    lo, hi = ALPHA_BOUNDS
    a = float(start)
    for _ in range(_MAX_ITER):
        new = float(update(a))
        if not np.isfinite(new) or not lo <= new <= hi:
            break
        if abs(new - a) <= _RTOL * a:
            return new
        a = new
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(
        lambda t: -log_ev(float(np.exp(t))),
        bounds=(np.log(lo), np.log(hi)),
        method="bounded",
        options={"xatol": 1e-10, "maxiter": 2000},
    )
    a = float(np.exp(res.x))
    _warn_at_bound(a, name)
    return a


def _warn_at_bound(a: float, name: str, stacklevel: int = 5) -> None:
    """Warn when a learned value sits within a factor 10 of :data:`ALPHA_BOUNDS`."""
    lo, hi = ALPHA_BOUNDS
    if a < lo * 10 or a > hi / 10:
        warnings.warn(
            f"the evidence keeps increasing as {name} goes to "
            f"{'0' if a < 1 else 'infinity'}; {name}_ is set to {a:.3g}, near the search "
            f"bound {ALPHA_BOUNDS}",
            RuntimeWarning,
            stacklevel=stacklevel,
        )


def fit_symmetric_dirichlet(
    counts: np.ndarray, sizes: np.ndarray | None = None, *, name: str = "alpha"
) -> float:
    """The symmetric concentration α maximising the Dirichlet-multinomial evidence.

    Minka's fixed point for a symmetric Dirichlet shared by every row (class) and segment
    (feature) s of size k_s, with category counts n and segment totals N_s:

    ``α ← α · Σ_cat [ψ(n + α) − ψ(α)] / Σ_seg k_s [ψ(N_s + k_s α) − ψ(k_s α)]``

    (for the multinomial model, one segment of V words per class:
    ``α ← α Σ_cj [ψ(T_cj + α) − ψ(α)] / (V Σ_c [ψ(T_c + Vα) − ψ(Vα)])``). At the fixed point
    the derivative of the log evidence in α vanishes. The sums run over the distinct count
    values only (with their multiplicities), so one iteration costs the number of distinct
    counts, not K × V digammas. Falls back to a bounded search in log α when the iteration
    leaves :data:`ALPHA_BOUNDS` or does not converge.

    Parameters
    ----------
    counts : ndarray of shape (n_rows, n_categories)
    sizes : ndarray of int, optional
        Segment lengths along the last axis (one segment by default).
    name : str
        The parameter name used in warnings.

    Returns
    -------
    float
    """
    counts = np.asarray(counts, dtype=np.float64)
    offsets = segment_offsets(sizes)
    seg_sizes = np.diff(np.append(offsets, counts.shape[-1]))
    totals = np.add.reduceat(counts, offsets, axis=-1)
    n_val, n_mult = np.unique(counts, return_counts=True)
    keep = n_val > 0  # zero counts contribute ψ(α) − ψ(α) = 0 and ln Γ(α) − ln Γ(α) = 0
    n_val, n_mult = n_val[keep], n_mult[keep].astype(np.float64)
    pairs = np.stack([totals.ravel(), np.broadcast_to(seg_sizes, totals.shape).ravel()])
    (t_val, k_val), t_mult = np.unique(pairs, axis=1, return_counts=True)
    t_mult = t_mult.astype(np.float64)

    def log_ev(a: float) -> float:
        return float(
            np.sum(t_mult * (gammaln(k_val * a) - gammaln(k_val * a + t_val)))
            + np.sum(n_mult * (gammaln(n_val + a) - gammaln(a)))
        )

    def update(a: float) -> float:
        num = np.sum(n_mult * (digamma(n_val + a) - digamma(a)))
        den = np.sum(t_mult * k_val * (digamma(t_val + k_val * a) - digamma(k_val * a)))
        return a * num / den if den > 0 else np.nan

    return _maximise(log_ev, update, name)


def fit_beta_alpha(
    successes: np.ndarray, failures: np.ndarray, beta, *, name: str = "alpha"
) -> float:
    """α maximising the Beta-Bernoulli evidence with β held fixed (``BernoulliNB(beta=...)``).

    Minka's fixed point for one Dirichlet coordinate with the other fixed:
    ``α ← α · Σ_cj [ψ(D_cj + α) − ψ(α)] / Σ_cj [ψ(N_c + α + β_j) − ψ(α + β_j)]``, with the
    bounded search as fallback. (With ``beta=None``, β = α and the symmetric
    :func:`fit_symmetric_dirichlet` over the (D, N − D) pairs is used instead.)

    Parameters
    ----------
    successes, failures : ndarray of shape (n_classes, n_features)
    beta : float or ndarray of shape (n_features,)
    name : str
    """
    s = np.asarray(successes, dtype=np.float64)
    f = np.asarray(failures, dtype=np.float64)
    b = np.broadcast_to(np.asarray(beta, dtype=np.float64), s.shape)
    n = s + f

    def log_ev(a: float) -> float:
        return beta_log_evidence(a, b, s, f)

    def update(a: float) -> float:
        num = np.sum(digamma(s + a) - digamma(a))
        den = np.sum(digamma(n + a + b) - digamma(a + b))
        return a * num / den if den > 0 else np.nan

    return _maximise(log_ev, update, name)


def fit_gamma_shape(sums: np.ndarray, counts: np.ndarray, beta, *, name: str = "alpha") -> float:
    """Gamma shape α maximising the Gamma-Poisson evidence with the rate β held fixed.

    The log evidence (:func:`gamma_poisson_log_evidence`) in α is
    ``Σ_cj [ln Γ(α + S_cj) − ln Γ(α)] + α Σ_cj ln(β_j / (β_j + N_cj))`` plus terms free of α;
    its derivative

    ``g(α) = Σ_cj [ψ(α + S_cj) − ψ(α) + ln β_j − ln(β_j + N_cj)]``

    strictly decreases in α (ψ(α + S) − ψ(α) does for S > 0), so the evidence is concave in α
    and its maximum is the unique root of g, found by Brent's method in ln α over
    :data:`ALPHA_BOUNDS`. g → +∞ as α → 0 once some S_cj > 0 and tends to
    ``Σ ln(β/(β + N)) < 0`` as α → ∞, so the root is interior unless no count was seen
    (then α → 0, with the same warning as the other learned concentrations at a bound).
    The digamma sum runs over the distinct positive S_cj only (their multiplicities
    weighting), so one step costs the number of distinct sums, not K × V digammas.

    Parameters
    ----------
    sums : ndarray of shape (n_classes, n_features)
        Weighted per-class feature sums S_cj.
    counts : ndarray of shape (n_classes,) or (n_classes, n_features)
        Class counts N_c, or (``missing="ignore"``) the documents N_cj observing feature j.
    beta : float or ndarray of shape (n_features,)
        The fixed Gamma rate (> 0).
    name : str
        The parameter name used in warnings.

    Returns
    -------
    float
    """
    from scipy.optimize import brentq

    s = np.asarray(sums, dtype=np.float64)
    n = np.asarray(counts, dtype=np.float64)
    n = np.broadcast_to(n[:, None] if n.ndim == 1 else n, s.shape)
    b = np.broadcast_to(np.asarray(beta, dtype=np.float64), s.shape)
    # Σ_cj ln(β/(β + N)) ≤ 0: the α-linear part of the evidence (log1p: accurate for N ≪ β).
    slope = -float(np.sum(np.log1p(n / b)))
    s_val, s_mult = np.unique(s[s > 0], return_counts=True)
    s_mult = s_mult.astype(np.float64)
    lo, hi = np.log(ALPHA_BOUNDS[0]), np.log(ALPHA_BOUNDS[1])

    def grad(t: float) -> float:
        a = np.exp(t)
        return float(np.sum(s_mult * (digamma(s_val + a) - digamma(a))) + slope)

    if grad(lo) <= 0:
        a = float(ALPHA_BOUNDS[0])  # no count anywhere (or none informative): α → 0
    elif grad(hi) >= 0:
        a = float(ALPHA_BOUNDS[1])  # no documents: the evidence does not depend on α
    else:
        a = float(np.exp(brentq(grad, lo, hi, xtol=1e-13, rtol=4 * np.finfo(float).eps)))
    _warn_at_bound(a, name, stacklevel=4)
    return a
