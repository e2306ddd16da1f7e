"""The Pólya (Dirichlet-compound-multinomial) likelihood of a class: Newton fit and Laplace.

Model (Madsen, Kauchak & Elkan 2005): every document d of class c draws its own word
distribution θ_d ~ Dirichlet(β_c), then its counts x_d ~ Multinomial(n_d, θ_d). Integrating θ_d
out gives the Pólya likelihood of the token sequence

    ℓ_c(β) = Σ_d [ln Γ(B) − ln Γ(B + n_d)] + Σ_d Σ_{j: x_dj>0} [ln Γ(β_j + x_dj) − ln Γ(β_j)],

B = Σ_j β_j, a function of the value and length histograms only
(:mod:`bayesnb.stats.histograms`). The prior on β_c is not conjugate; here every β_cj has an
independent Gamma(shape a, rate b) prior.

- **Fixed point** (Minka, "Estimating a Dirichlet distribution", 2000/2012, the Pólya section):
  ``β_j ← (β_j num_j + e) / (den + r)`` with ``num_j = Σ_d [ψ(x_dj + β_j) − ψ(β_j)]`` and
  ``den = Σ_d [ψ(n_d + B) − ψ(B)]``. With ``e = r = 0`` it is the maximum likelihood
  iteration; ``e = a − 1, r = b`` gives the MAP under the Gamma prior; ``e = a, r = b`` the mode
  of the posterior of ``u = ln β`` (the Gamma density in u is ``a u − b eᵘ``: the Jacobian adds
  one to the shape), the centre of the Laplace approximation. Each step maximises a lower bound
  of the objective, so the objective never decreases. The sums run over the stored
  histogram entries only (no digamma for a zero count).
- **Newton's method** in u = ln β (:func:`polya_newton`, the fit the estimator uses): the
  Hessian is diagonal plus rank one, so Sherman–Morrison solves each step in O(V) per class,
  and cells with the same histogram and start are one unit (:mod:`.polya_units`): O(distinct
  cells) on text;
  a class whose step would not increase the objective takes the fixed-point step instead.
  It reaches the fixed point's optimum (to rounding) in about ten iterations where the fixed
  point, linear along the scale B, takes hundreds.
- **Laplace approximation** in u = ln β, class by class: the Hessian of the Pólya
  log-likelihood is diagonal plus rank one (Minka's Newton step), so the posterior precision
  is ``Λ = diag(D) − z β βᵀ`` with ``D_j = a − β_j² num'_j`` and ``z = −den'(B)`` (primes:
  derivatives, trigamma sums). Its inverse follows from Sherman–Morrison,
  ``Σ = diag(1/D) + c g gᵀ`` with ``g = β / D`` and ``c = z / (1 − z Σ_j β_j² / D_j)``; its
  determinant from the matrix determinant lemma. Draws cost O(V) each (one normal per feature
  plus one shared normal per class).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from bayesnb.posterior.polya_stats import LengthTriplets, PolyaStats, length_triplets
from bayesnb.posterior.polya_units import PolyaUnits, polya_units

__all__ = [
    "FixedPointResult",
    "GroupedBeta",
    "LaplacePosterior",
    "LengthTriplets",
    "PolyaStats",
    "laplace_at",
    "laplace_posterior",
    "length_triplets",
    "newton_iterations",
    "polya_fixed_point",
    "polya_gradient",
    "polya_newton",
    "polya_objective",
]


# -- plain functions on the statistics (tests and the PyMC checks use them) --------------------
def polya_gradient(
    beta: np.ndarray, stats: PolyaStats, shape_extra: float = 0.0, rate: float = 0.0
) -> np.ndarray:
    """Gradient in β of ``ℓ(β) + Σ (shape_extra ln β − rate β)``, shape (K, V).

    ``shape_extra = rate = 0``: the log-likelihood (MLE); ``shape_extra = a − 1, rate = b``:
    the log posterior under Gamma(a, b) priors (MAP).
    """
    beta = np.asarray(beta, dtype=np.float64)
    g = stats.num(beta) - stats.den(beta.sum(axis=1))[:, None] - rate
    if shape_extra:
        g = g + shape_extra / beta
    return g


# -- the fixed point ---------------------------------------------------------------------------
@dataclass(frozen=True)
class FixedPointResult:
    """Outcome of :func:`polya_fixed_point`.

    Attributes
    ----------
    beta : ndarray of shape (K, V)
    n_iter : int
        Iterations run.
    converged : bool
        The largest relative change of the last iteration was below ``tol``.
    max_change : float
        That largest relative change.
    """

    beta: np.ndarray
    n_iter: int
    converged: bool
    max_change: float


def _initial_scale(stats: PolyaStats, prop: np.ndarray, steps: int = 40) -> np.ndarray:
    """Per-class scale s of the 1-D maximum of ℓ_c(s · prop): a start near the optimum.

    A golden-section search on ln s over [ln 1e-3, ln 1e6] (2 ``steps`` evaluations of the
    statistics): the proportions of the class totals are already close to β/B, the scale
    (burstiness) is what the fixed point is slow to find.
    """
    ratio = (np.sqrt(5.0) - 1.0) / 2.0
    K = stats.n_classes
    a, b = np.full(K, np.log(1e-3)), np.full(K, np.log(1e6))

    def f(t: np.ndarray) -> np.ndarray:
        return stats.log_likelihood(np.exp(t)[:, None] * prop)

    for _ in range(steps):  # the bracket shrinks by 0.618 per step: 40 give 1e-8 of its width
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        left = f(c) >= f(d)  # the maximum lies in [a, d]
        b = np.where(left, d, b)
        a = np.where(left, a, c)
    return np.exp((a + b) / 2.0)


def _start(
    stats: PolyaStats, totals: np.ndarray, shape_extra: float, rate: float, steps: int = 40
) -> tuple[np.ndarray, np.ndarray]:
    """The starting β (class proportions times :func:`_initial_scale`) and the seen cells."""
    totals = np.asarray(totals, dtype=np.float64)
    row = totals.sum(axis=1, keepdims=True)
    seen = totals > 0
    prop = np.where(seen, totals / np.where(row > 0, row, 1.0), 0.0)
    beta = _initial_scale(stats, prop, steps)[:, None] * prop
    if shape_extra > 0:
        # Unseen features start at the prior's pull, not at 0 (a fixed point of the MLE).
        beta = np.where(seen, beta, shape_extra / max(rate, 1.0))
    return beta, seen


def polya_fixed_point(
    stats: PolyaStats,
    totals: np.ndarray,
    *,
    shape_extra: float = 0.0,
    rate: float = 0.0,
    tol: float = 1e-6,
    max_iter: int = 1000,
) -> FixedPointResult:
    """Maximise ``ℓ_c(β) + Σ_j (shape_extra ln β_cj − rate β_cj)`` for every class.

    Minka's fixed point ``β ← (β num(β) + shape_extra) / (den(B) + rate)``, all classes at
    once, started from the class proportions of ``totals`` scaled by a 1-D search
    (:func:`_initial_scale`). Stops when every β changes by less than ``tol`` relative
    (``|Δβ| ≤ tol · β``) or after ``max_iter`` iterations.

    A feature never seen in a class gets ``num = 0``: β = 0 after one step under the MLE (its
    words then have probability 0, as the multinomial MLE gives) and ``shape_extra / (den +
    rate)`` otherwise. A class whose documents are all empty has no likelihood: its β is 0
    (MLE) or the prior's ``shape_extra / rate``.

    Parameters
    ----------
    stats : PolyaStats
    totals : ndarray of shape (K, V)
        Per-class token totals T_cj (the starting proportions).
    shape_extra, rate : float
        0, 0 (MLE); a − 1, b (MAP under Gamma(a, b)); a, b (mode in ln β).
    tol : float
    max_iter : int

    Returns
    -------
    FixedPointResult
    """
    beta, _ = _start(stats, totals, shape_extra, rate)
    change, n_iter = np.inf, 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 - n_iter is reported
        den = stats.den(beta.sum(axis=1))[:, None] + rate
        num = beta * stats.num(beta) + shape_extra
        with np.errstate(invalid="ignore", divide="ignore"):
            new = np.where(den > 0, num / den, 0.0)
        new = np.where(np.isfinite(new), new, 0.0) if shape_extra == 0 else new
        with np.errstate(invalid="ignore"):
            rel = np.abs(new - beta) / np.where(new > 0, new, 1.0)
        change = float(rel.max()) if rel.size else 0.0
        beta = new
        if change <= tol:
            break
    return FixedPointResult(beta, n_iter, bool(change <= tol), change)


def polya_objective(
    stats: PolyaStats, beta: np.ndarray, shape_extra: float = 0.0, rate: float = 0.0
) -> np.ndarray:
    """``ℓ_c(β) + Σ_j (shape_extra ln β_cj − rate β_cj)`` of every class, shape (K,)."""
    out = stats.log_likelihood(beta)
    if shape_extra:
        out = out + shape_extra * np.sum(np.log(beta), axis=1)
    return out - rate * beta.sum(axis=1) if rate else out


def _newton_step(stats, beta, live, mult, shape_extra, rate):
    """The Newton candidate of every class in u = ln β, whether its Hessian was definite,
    and the sums ``(num, den)`` a fixed-point step from the same β needs.

    Runs over grouped cells (:mod:`bayesnb.posterior.polya_units`): column u stands for
    ``mult[:, u]`` cells with the same β, so the class sums weight it by ``mult``; ``live``
    marks the columns that move (active cells; not padding, not the MLE's unseen cells).

    In u the gradient is ``G = β g`` with ``g_j = num_j − den(B) + shape_extra/β_j − rate``
    and the Hessian is diagonal plus rank one, ``diag(d) + z β βᵀ`` with
    ``d_j = β_j g_j + β_j² (num'_j − shape_extra/β_j²)`` and ``z = −den'(B) ≥ 0`` (the
    matrix the Laplace approximation inverts, at the mode where G = 0). Sherman–Morrison
    solves it in O(cells) per class:
    ``H⁻¹ G = G/d − (z βᵀ(G/d) / (1 + z Σ β²/d)) β/d``, and the matrix is negative definite
    exactly when every d < 0 and ``1 + z Σ β²/d > 0``. A cell whose d is not negative (far
    from the optimum, a large gradient) uses its curvature without the gradient term,
    ``β² (num' − shape_extra/β²) < 0``, exact at the optimum. Working in ln β keeps every β
    positive and makes the scale B (the rank-one direction the fixed point is slowest along)
    a plain additive step; steps are capped at |Δu| ≤ 5 (the objective check rejects a
    worse point). Cells that are not live do not move.
    """
    total = np.einsum("ij,ij->i", mult, beta)
    (num, prime), den = stats.num_and_prime(beta), stats.den(total)
    z = -stats.den_prime(total)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        curv = beta * beta * prime - shape_extra  # β² q
        grad = np.where(live, (num - (den + rate)[:, None]) * beta + shape_extra, 0.0)
        d = grad + curv
        d = np.where(d < 0, d, curv)
        inv_d = np.where(live, 1.0 / d, 0.0)
        bd = beta * inv_d * mult
        slack = 1.0 + z * np.einsum("ij,ij->i", beta, bd)
        coef = z * np.einsum("ij,ij->i", grad, bd) / np.where(slack > 0, slack, 1.0)
        du = grad * inv_d - coef[:, None] * beta * inv_d
        np.clip(-du, -5.0, 5.0, out=du)
        cand = np.where(live, beta * np.exp(du), beta)
    definite = (slack > 0) & np.all(~live | (d < 0), axis=1)
    return cand, definite, (num, den)


def _fixed_step(beta, num, den, active, rows, shape_extra, rate) -> np.ndarray:
    """Minka's fixed-point step for the classes ``rows`` (num, den from the same β)."""
    b, n = beta[rows], num[rows]
    fp_den = (den[rows] + rate)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        fixed = np.where(fp_den > 0, (b * n + shape_extra) / fp_den, 0.0)
    return np.where(active[rows], fixed, b)


def _warm(cold: np.ndarray, start: np.ndarray, active: np.ndarray) -> np.ndarray:
    """``start`` on the active cells of every class where it is usable, else ``cold``."""
    if start.shape != cold.shape:
        return cold
    with np.errstate(invalid="ignore"):
        usable = np.all(~active | (np.isfinite(start) & (start > 0)), axis=1)
    return np.where(usable[:, None], np.where(active, start, cold), cold)


def polya_newton(
    stats: PolyaStats,
    totals: np.ndarray,
    *,
    shape_extra: float = 0.0,
    rate: float = 0.0,
    tol: float = 1e-6,
    max_iter: int = 1000,
    trace: list | None = None,
    start: np.ndarray | None = None,
    stop=None,
) -> FixedPointResult:
    """The maximum of :func:`polya_fixed_point` by Newton's method, with its fallback.

    Every iteration takes, class by class, the Newton step in ln β of the diagonal-plus-rank-one
    Hessian (:func:`_newton_step`, O(V)); a class keeps it only when the Hessian is negative
    definite, every active β is positive and finite and the objective
    (:func:`polya_objective`) does not decrease (up to the rounding of its sums, 1e-12
    relative); elsewhere it takes the fixed-point step, which never decreases it. Converged
    when no β changed by more than ``tol`` relative, as the fixed point stops; after a Newton
    step the convergence is quadratic, so the gradient is zero to far below ``tol``. Same
    start as the fixed point but without its scale search: the proportions of the class totals
    at scale B = 10^1.5 (the scale is the rank-one direction Newton takes in one step).
    The iteration runs over grouped cells (:func:`newton_iterations`): O(distinct cells) a
    step, not O(V).

    Under the MLE the features never seen in a class stay at β = 0 (the fixed point puts
    them there in one step); a class without non-empty documents gets the fixed point's
    closed form (β = shape_extra / rate, or 0).

    Parameters
    ----------
    stats, totals, shape_extra, rate, tol, max_iter
        As in :func:`polya_fixed_point` (``max_iter`` counts Newton iterations).
    trace : list, optional
        When given, receives ``(objective, newton)`` pairs of (K,) arrays: first at the
        start (``newton`` all False), then after every iteration, with the classes that took
        the Newton step.
    start : ndarray of shape (K, V), optional
        A warm start (the optimum of nearby statistics, e.g. the full fit before a
        cross-validation fold was subtracted). A class whose active cells are all positive
        and finite there starts from it; any other class starts cold. The stopping rule is
        the same, so the result is the optimum to the same tolerance, in fewer iterations.
    stop : callable, optional
        ``stop(n)``: a further condition for stopping after iteration n (leave-one-out of one
        class: the other classes of the joint fit it stands for have converged there too).

    Returns
    -------
    FixedPointResult
    """
    for n_iter, (beta, obj, newton, moved) in enumerate(  # noqa: B007 - reported
        newton_iterations(stats, totals, shape_extra, rate, start)
    ):
        if trace is not None:
            trace.append((obj, newton))
        change = float(moved.max()) if moved.size else 0.0
        if n_iter == max_iter or (change <= tol and n_iter and (stop is None or stop(n_iter))):
            break
    return FixedPointResult(beta.dense(), n_iter, change <= tol, change)


@dataclass(frozen=True)
class GroupedBeta:
    """An iterate of :func:`newton_iterations`: β per unit of grouped cells."""

    units: PolyaUnits
    values: np.ndarray

    def dense(self, rows=None) -> np.ndarray:
        """β of shape (K, V) (or of the classes ``rows``)."""
        return self.units.expand(self.values, rows)


def _start_cells(stats, totals, shape_extra, rate, start):
    """The (K, V) start of :func:`newton_iterations` and its active cells."""
    beta, seen = _start(stats, totals, shape_extra, rate, steps=0)
    active = seen if shape_extra == 0 else np.ones_like(seen)
    if start is not None:
        beta = _warm(beta, np.asarray(start, dtype=np.float64), active)
        if shape_extra > 0 and not seen.all():
            # A cell the subtraction emptied sits at the old fit's β, far above its new optimum,
            # where Newton in ln β descends one unit per step: start it at its optimum given
            # the warm B instead (its likelihood depends on it through B only).
            with np.errstate(divide="ignore"):
                unseen = shape_extra / (stats.den(beta.sum(axis=1)) + rate)
            beta = np.where(seen | ~np.isfinite(unseen)[:, None], beta, unseen[:, None])
    empty = stats.documents() <= 0
    if empty.any():  # no likelihood: the prior's mode (or 0), as the fixed point gives
        beta[empty] = shape_extra / rate if shape_extra > 0 and rate > 0 else 0.0
        active = active & ~empty[:, None]
    return np.where(active | (shape_extra > 0), beta, 0.0), active


def newton_iterations(stats: PolyaStats, totals: np.ndarray, shape_extra, rate, start=None):
    """The iterates of :func:`polya_newton` without its stopping rule: yields
    ``(β, objective, newton, moved)`` (β a :class:`GroupedBeta`; moved: the largest relative
    change of each class), first the start (nothing moved: ``inf``), then one tuple per
    iteration, indefinitely.

    The cells that share their histogram, start and activity follow the same iterates, so
    they are iterated once (:func:`bayesnb.posterior.polya_units.polya_units`): on text a
    class's words seen once per document in n documents are one unit per n.
    """
    dense, active = _start_cells(stats, totals, shape_extra, rate, start)
    units = polya_units(stats, dense, active)
    ust, mult = units.stats, units.mult
    beta = units.gather(dense)
    live = units.gather(active) & (mult > 0)
    K = stats.n_classes

    def objective(b):
        out = ust.log_likelihood(b, mult)
        if shape_extra:
            out = out + shape_extra * np.einsum("ij,ij->i", mult, np.log(b))
        return out - rate * np.einsum("ij,ij->i", mult, b) if rate else out

    obj = objective(beta)
    yield GroupedBeta(units, beta), obj, np.zeros(K, dtype=bool), np.full(K, np.inf)
    while True:
        cand, definite, (num, den) = _newton_step(ust, beta, live, mult, shape_extra, rate)
        valid = definite & np.all(~live | (cand > 0), axis=1) & np.isfinite(cand).all(axis=1)
        if not valid.all():
            cand[~valid] = beta[~valid]
        cand_obj = objective(cand)
        newton = valid & (cand_obj - obj >= -1e-12 * (np.abs(obj) + 1.0))
        new, new_obj = cand, cand_obj
        if not newton.all():
            rows = np.flatnonzero(~newton)
            new[rows] = _fixed_step(beta, num, den, live, rows, shape_extra, rate)
            new_obj = objective(new)
        with np.errstate(invalid="ignore"):
            rel = np.where(live, np.abs(new - beta) / np.where(new > 0, new, 1.0), 0.0)
        moved = rel.max(axis=1) if rel.size else np.zeros(K)
        beta, obj = new, new_obj
        yield GroupedBeta(units, beta), obj, newton | ~live.any(axis=1), moved


# -- the Laplace approximation in u = ln β ------------------------------------------------------
@dataclass(frozen=True)
class LaplacePosterior:
    """Gaussian approximation of the posterior of u = ln β_c, one per class.

    Precision ``Λ_c = diag(D_c) − z_c β̂_c β̂_cᵀ`` at the mode ``û = ln β̂``; covariance
    ``diag(1/D) + c g gᵀ`` with ``g = β̂ / D`` and ``c = z / (1 − z Σ β̂² / D)``.

    Attributes
    ----------
    mode : ndarray of shape (K, V)
        β̂ = exp(û), the mode in ln β (not the MAP in β, whose Gamma shape is one lower).
    prec_diag : ndarray of shape (K, V)
        D > 0.
    rank_one : ndarray of shape (K,)
        z = −den'(B̂) ≥ 0.
    log_joint : ndarray of shape (K,)
        ℓ_c(β̂) + ln p(û), the Gamma prior written as a density in u.
    """

    mode: np.ndarray
    prec_diag: np.ndarray
    rank_one: np.ndarray
    log_joint: np.ndarray

    @property
    def _g(self) -> np.ndarray:
        return self.mode / self.prec_diag

    @property
    def _slack(self) -> np.ndarray:
        """1 − z Σ β̂²/D per class: > 0 exactly when Λ is positive definite."""
        return 1.0 - self.rank_one * np.sum(self.mode * self._g, axis=1)

    @property
    def _c(self) -> np.ndarray:
        return self.rank_one / self._slack

    @property
    def log_var(self) -> np.ndarray:
        """Marginal variance of every u_cj = ln β_cj, shape (K, V)."""
        return 1.0 / self.prec_diag + self._c[:, None] * self._g**2

    def mean(self) -> np.ndarray:
        """Posterior mean of β (log-normal marginals): ``exp(û + s²/2)``."""
        return np.exp(np.log(self.mode) + self.log_var / 2.0)

    def sd(self) -> np.ndarray:
        """Posterior standard deviation of β: ``E[β] · sqrt(exp(s²) − 1)``."""
        s2 = self.log_var
        return self.mean() * np.sqrt(np.expm1(s2))

    def interval(self, prob: float = 0.89) -> tuple[np.ndarray, np.ndarray]:
        """Equal-tailed interval of every β_cj (log-normal quantiles)."""
        from scipy.stats import norm

        q = norm.ppf(0.5 + prob / 2.0)
        s = np.sqrt(self.log_var)
        u = np.log(self.mode)
        return np.exp(u - q * s), np.exp(u + q * s)

    def draws(self, rng: np.random.Generator, shape: tuple[int, ...], features=None) -> np.ndarray:
        """β draws of shape (*shape, K, V) (or the ``features`` columns): exp(û + ε/√D + √c g η).

        With ``features``, only the selected columns are drawn (the shared η keeps the
        correlation among them exact: the marginal of a Gaussian is its sub-block).
        """
        u, D, g = np.log(self.mode), self.prec_diag, self._g
        if features is not None:
            u, D, g = u[:, features], D[:, features], g[:, features]
        eps = rng.standard_normal((*shape, *u.shape))
        eta = rng.standard_normal((*shape, u.shape[0], 1))
        eps /= np.sqrt(D)
        eps += np.sqrt(self._c)[:, None] * g * eta
        eps += u
        return np.exp(eps, out=eps)

    def log_evidence(self) -> np.ndarray:
        """Laplace estimate of ln ∫ p(x | β) p(β) dβ per class, shape (K,).

        ``ln p(û, x) + (V/2) ln 2π − ½ ln|Λ|``, with ``ln|Λ| = Σ ln D + ln(1 − z Σ β̂²/D)``.
        """
        V = self.mode.shape[1]
        log_det = np.sum(np.log(self.prec_diag), axis=1) + np.log(self._slack)
        return self.log_joint + 0.5 * V * np.log(2.0 * np.pi) - 0.5 * log_det


def gamma_log_density_u(beta: np.ndarray, shape: float, rate: float) -> np.ndarray:
    """Σ_j ln of the Gamma(shape, rate) density of β_cj written in u = ln β, shape (K,)."""
    return np.sum(
        shape * np.log(rate) - gammaln(shape) + shape * np.log(beta) - rate * beta, axis=1
    )


def laplace_posterior(
    stats: PolyaStats,
    totals: np.ndarray,
    shape: float,
    rate: float,
    *,
    tol: float = 1e-6,
    max_iter: int = 1000,
    start: np.ndarray | None = None,
    stop=None,
) -> tuple[LaplacePosterior, FixedPointResult]:
    """Laplace approximation of p(ln β_c | data) under independent Gamma(shape, rate) priors.

    The mode comes from :func:`polya_newton` with ``shape_extra = shape`` (the Gamma density in
    ln β); the precision from the diagonal-plus-rank-one Hessian there; ``start`` and ``stop``
    are its warm start and further stopping condition (see :func:`polya_newton`).

    Returns
    -------
    (LaplacePosterior, FixedPointResult)

    Raises
    ------
    ValueError
        When the Hessian is not negative definite at the returned point (the iteration did
        not reach a maximum).
    """
    if not (shape > 0 and rate > 0):
        raise ValueError(
            "the Laplace approximation needs a proper Gamma prior: prior_shape > 0 and "
            f"prior_rate > 0, got {shape!r}, {rate!r}"
        )
    fp = polya_newton(
        stats,
        totals,
        shape_extra=shape,
        rate=rate,
        tol=tol,
        max_iter=max_iter,
        start=start,
        stop=stop,
    )
    return laplace_at(stats, fp.beta, shape, rate), fp


def laplace_at(stats: PolyaStats, beta: np.ndarray, shape: float, rate: float) -> LaplacePosterior:
    """The :class:`LaplacePosterior` centred at β (the mode :func:`laplace_posterior` found)."""
    D = shape - beta**2 * stats.num_prime(beta)
    z = -stats.den_prime(beta.sum(axis=1))
    lap = LaplacePosterior(
        beta,
        D,
        z,
        stats.log_likelihood(beta) + gamma_log_density_u(beta, shape, rate),
    )
    if np.any(lap._slack <= 0):
        raise ValueError(
            "the Laplace approximation failed: the Hessian of the log posterior in ln β is "
            "not negative definite at the mode found (not converged? raise max_iter)"
        )
    return lap
