"""Empirical Bayes: the one concentration (or Gamma shape) maximising a closed-form evidence.

``alpha="evidence"`` and ``class_alpha="evidence"`` maximise the log evidence of
:mod:`bayesnb.posterior.evidence` over one symmetric concentration, with Minka's fixed point
(T. Minka, "Estimating a Dirichlet distribution", 2000/2012) and a bounded 1-D search in log α
as fallback. The Beta-Bernoulli α (BernoulliNB) is found by a safeguarded Newton iteration
on the exact gradient and curvature of its evidence, evaluated over the histogram of distinct
(trials, successes) pairs (:func:`fit_beta_evidence`). PoissonNB's Gamma shape α (rate β
fixed) is the root of the digamma gradient, which is monotone in α (:func:`fit_gamma_shape`).
The families' ``learn_alpha`` methods call these on their posteriors' statistics;
:mod:`bayesnb.evidence` re-exports them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy.special import digamma, gammaln

from bayesnb.posterior._special import trigamma
from bayesnb.posterior.evidence import beta_log_evidence, segment_offsets

__all__ = [
    "ALPHA_BOUNDS",
    "beta_pair_histogram",
    "fit_beta_alpha",
    "fit_beta_evidence",
    "fit_gamma_shape",
    "fit_symmetric_dirichlet",
]

# Search range of a learned concentration. Outside it the evidence is flat to many digits,
# and reaching a bound means the optimum is the boundary (α → 0 or α → ∞).
ALPHA_BOUNDS = (1e-8, 1e8)

_MAX_ITER = 5000
_RTOL = 1e-11
_T_TOL = 1e-12  # Newton in ln α stops below this step (quadratic: the error is far smaller)


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
    # Zero counts contribute ψ(α) − ψ(α) = 0 and ln Γ(α) − ln Γ(α) = 0; dropping them before
    # the sort leaves only the seen cells of a sparse table (most of a vocabulary is unseen).
    n_val, n_mult = np.unique(counts[counts > 0], return_counts=True)
    n_mult = n_mult.astype(np.float64)
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


# -- the Beta-Bernoulli evidence on its pair histogram, by safeguarded Newton -----------------
def beta_pair_histogram(
    successes: np.ndarray, trials: np.ndarray, beta=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (N, D[, β]) cells of a Beta-Bernoulli posterior and their multiplicities.

    The evidence ``Σ_cj ln B(α + D_cj, β_j + F_cj) − ln B(α, β_j)`` with
    ``F = max(N − D, 0)`` depends on the cells only through how often each (N, D, β) occurs.
    With one trial count per class (no missing value) and a scalar β, every row is sorted on
    its own (D only: N is the row's) and its runs of equal D are counted, without a global
    sort of the K × V table; otherwise the cells are sorted lexicographically.

    Parameters
    ----------
    successes : ndarray of shape (n_classes, n_features)
        D_cj (weighted: any non-negative floats).
    trials : ndarray of shape (n_classes,) or (n_classes, n_features)
        N_c, or N_cj under ``missing="ignore"``.
    beta : float or ndarray of shape (n_features,), optional
        A per-feature β becomes part of the key; a scalar or None does not.

    Returns
    -------
    n, d, b, weight : ndarray
        Trials, successes, β (NaN when not part of the key) and multiplicity of every
        distinct cell.
    """
    s = np.asarray(successes, dtype=np.float64)
    t = np.asarray(trials, dtype=np.float64)
    per_feature = beta is not None and np.ndim(beta) > 0
    if s.size == 0:
        empty = np.zeros(0)
        return empty, empty, empty, empty
    if t.ndim == 1 and not per_feature:
        srt = np.sort(s, axis=1)
        new = np.ones(srt.shape, dtype=bool)
        new[:, 1:] = srt[:, 1:] != srt[:, :-1]  # every row starts a run
        rows, cols = np.nonzero(new)
        starts = rows * srt.shape[1] + cols
        weight = np.diff(np.append(starts, srt.size)).astype(np.float64)
        return t[rows], srt[rows, cols], np.full(rows.shape, np.nan), weight
    keys = [np.broadcast_to(t[:, None] if t.ndim == 1 else t, s.shape).ravel(), s.ravel()]
    if per_feature:
        keys.append(np.broadcast_to(np.asarray(beta, dtype=np.float64), s.shape).ravel())
    keys = np.stack(keys)
    keys = keys[:, np.lexsort(keys[::-1])]
    new = np.ones(keys.shape[1], dtype=bool)
    new[1:] = np.any(keys[:, 1:] != keys[:, :-1], axis=0)
    starts = np.flatnonzero(new)
    weight = np.diff(np.append(starts, keys.shape[1])).astype(np.float64)
    b = keys[2, starts] if per_feature else np.full(starts.shape, np.nan)
    return keys[0, starts], keys[1, starts], b, weight


class _Rising:
    """``Σ_i w_i ln Γ(x + v_i) − ln Γ(x)`` over distinct (offset, v): value and derivatives.

    ``x = scale · α + offset`` (offset: a fixed β, or 0); zero ``v`` carry nothing and are
    dropped, equal (offset, v) are merged.
    """

    def __init__(self, v: np.ndarray, w: np.ndarray, offset: np.ndarray, scale: float) -> None:
        keep = (v > 0) & (w > 0)
        v, w, offset = v[keep], w[keep], offset[keep]
        if offset.size and np.all(offset == offset[0]):
            vals, inv = np.unique(v, return_inverse=True)
            self.v, self.offset = vals, np.full(vals.shape, offset[0])
        else:
            key = np.stack([offset, v])
            (self.offset, self.v), inv = np.unique(key, axis=1, return_inverse=True)
        self.w = np.bincount(inv.ravel(), weights=w, minlength=self.v.size)
        self.scale = scale

    def value(self, a: float) -> float:
        from bayesnb.scoring.discrete import log_rising

        return float(np.sum(self.w * log_rising(self.scale * a + self.offset, self.v)))

    def derivatives(self, a: float, curvature: bool = True) -> tuple[float, float]:
        """First and (unless ``curvature`` is false: NaN) second derivative in α."""
        x = self.scale * a + self.offset
        d1 = float(self.scale * np.sum(self.w * (digamma(x + self.v) - digamma(x))))
        if not curvature:
            return d1, np.nan
        d2 = np.sum(self.w * (trigamma(x + self.v) - trigamma(x)))
        return d1, float(self.scale**2 * d2)


def _newton_in_log(
    grad_curv: Callable[..., tuple[float, float]], t_lo: float, t_hi: float
) -> float | None:
    """Root in t = ln α of the gradient ``G(t) = α f'(α)`` of a 1-D objective, by Newton.

    ``grad_curv(α, curvature)`` returns ``(f'(α), f''(α))`` (f'' only when asked); in t the
    gradient is ``α f'`` and the curvature ``α f' + α² f''``. Warm start: a grid of 17
    points in t (factors of 10 between the bounds) brackets the last sign change of G from
    + to −, and Newton starts in the middle of that bracket. A step that leaves the bracket
    or meets a non-negative curvature is replaced by a bisection, so the iteration cannot
    diverge. Returns None when G does not change sign from + to − between the bounds (the
    maximum is a boundary).
    """
    grid = np.linspace(t_lo, t_hi, 17)
    signs = np.array([grad_curv(float(np.exp(t)), False)[0] for t in grid])
    down = np.flatnonzero((signs[:-1] > 0) & (signs[1:] <= 0))
    if not down.size:
        return None
    i = int(down[-1])
    lo, hi = float(grid[i]), float(grid[i + 1])
    if signs[i + 1] == 0:
        return float(np.exp(hi))
    t = 0.5 * (lo + hi)
    for _ in range(200):
        a = float(np.exp(t))
        d1, d2 = grad_curv(a)
        g, h = a * d1, a * d1 + a * a * d2
        if g == 0:
            return a
        if g > 0:
            lo = t
        else:
            hi = t
        step = -g / h if h < 0 else np.nan
        new = t + step
        if not (lo < new < hi):
            new = 0.5 * (lo + hi)  # a bisection keeps the bracket shrinking
        if abs(new - t) <= _T_TOL or hi - lo <= _T_TOL:
            return float(np.exp(new))  # |Δ ln α| below 1e-12: α to 12 digits
        t = new
    return float(np.exp(t))


def fit_beta_evidence(successes: np.ndarray, trials: np.ndarray, beta=None, *, name="alpha"):
    """α maximising the Beta-Bernoulli evidence ``Σ_cj ln B(α + D, b + F) − ln B(α, b)``.

    ``b = α`` when ``beta`` is None (BernoulliNB's default ``beta=None``: one symmetric
    Beta(α, α)), else the fixed β (``BernoulliNB(beta=...)``, α learned with β held, as
    :func:`fit_beta_alpha`). The evidence is evaluated on the histogram of distinct
    (N, D[, β]) cells (:func:`beta_pair_histogram`), split into its three log rising
    factorials (each over its own distinct arguments: D, F = N − D, and N at α + b), and
    maximised by a safeguarded Newton iteration in ln α on its exact gradient and curvature
    (digamma and trigamma sums). One iteration costs the number of distinct arguments, not
    K × V. When the gradient does not change sign inside :data:`ALPHA_BOUNDS`, the same
    bounded search as :func:`fit_symmetric_dirichlet` decides, with its warning.

    Parameters
    ----------
    successes : ndarray of shape (n_classes, n_features)
        Weighted document frequencies D_cj.
    trials : ndarray of shape (n_classes,) or (n_classes, n_features)
        N_c, or the documents N_cj observing feature j (``missing="ignore"``).
    beta : float or ndarray of shape (n_features,), optional
    name : str

    Returns
    -------
    float
    """
    n, d, b, w = beta_pair_histogram(successes, trials, beta)
    f = np.maximum(n - d, 0.0)  # the failures, clipped exactly as BetaPosterior's
    zero = np.zeros_like(d)
    if beta is None:
        terms = [(_Rising(d, w, zero, 1.0), 1.0), (_Rising(f, w, zero, 1.0), 1.0)]
        terms.append((_Rising(d + f, w, zero, 2.0), -1.0))
    else:
        b = b if np.ndim(beta) > 0 else np.full_like(d, float(beta))
        terms = [(_Rising(d, w, zero, 1.0), 1.0), (_Rising(d + f, w, b, 1.0), -1.0)]

    def grad_curv(a: float, curvature: bool = True) -> tuple[float, float]:
        g = h = 0.0
        for term, sign in terms:
            d1, d2 = term.derivatives(a, curvature)
            g, h = g + sign * d1, h + sign * d2
        return g, h

    lo, hi = ALPHA_BOUNDS
    a = _newton_in_log(grad_curv, float(np.log(lo)), float(np.log(hi)))
    if a is not None:
        _warn_at_bound(a, name, stacklevel=4)
        return a

    def log_ev(a: float) -> float:
        return sum(sign * term.value(a) for term, sign in terms)

    # No interior maximum: the bounded search the other maximisers use, with its warning.
    return _maximise(log_ev, lambda a: np.nan, name)
