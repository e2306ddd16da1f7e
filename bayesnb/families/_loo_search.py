"""alpha="loo" by a safeguarded Newton search in log α on the exact derivatives of the LOO.

The exact leave-one-out label log-likelihood L(u) = Σ_i log p(y_i | x_i, D without i), u = log α,
is a sum of softmax terms of the downdated joint log-likelihoods J_ik(u). A family's kernel
(``_loo_kernel``) gives J and its first two derivatives in u from one fused pass over the
documents' nonzeros (one sparse product with a (V, 3K) table: log θ, and the derivatives of
log(T + a), 1/(T + a)-shaped), so a Newton step costs about one predict pass with three
times the columns, not the ten or more passes of a derivative-free search.

The search is warm-started on a fixed subsample of the documents, each scored exactly
against the full statistics (its L is an unbiased part of the full one; its maximiser is
within ~1e-2 in u of the full one), then polished on every document: one pass with the
curvature, then passes of value and gradient only that reuse it, until the Newton step is
below ``_TOL``. The returned α is the stationary point of the exact L to ~1e-8 relative
(``tests/test_alpha_loo.py`` checks it against a bounded scalar maximisation of ``elpd_loo``).
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = [
    "OwnEntries",
    "label_derivatives",
    "log_shifted",
    "newton_loo_alpha",
    "stack_tables",
]

# Documents in the warm-start subsample: a sixteenth of them, at least this many.
_SUBSAMPLE = 2000
# On the subsample (whose maximiser is only a starting point) the steps are those of the
# cubic model of L' and the search stops at a step below _TOL_SUB; on every document the
# first pass has the exact curvature, later ones (within _REUSE of the previous point) only
# the value and gradient, the curvature extrapolated from the secant of the gradients
# (exact to O(Δu²)), and the search stops at a step below _TOL (the error of a Newton step
# is of order step²).
_TOL, _TOL_SUB, _REUSE = 1e-4, 3e-2, 1e-2
# Trust region of one step in u (a factor e in α; e² on the subsample, started at α = 1).
_MAX_STEP, _MAX_STEP_SUB = 1.0, 2.0


def label_derivatives(J: list, codes) -> list[float]:
    """Σ_i log softmax(J_i)[y_i] and its derivatives, from J and its derivatives (≤ 3).

    With p_i = softmax(J_i) and moments under p: ℓ' = J'_y − E J', ℓ'' = J''_y − E J'' −
    Var J', ℓ''' = J'''_y − E J''' − 3 Cov(J', J'') − E (J' − E J')³. ``J[0]`` is overwritten.
    """
    idx = np.arange(codes.shape[0])
    top = J[0].max(axis=1)
    out = [float(np.sum(J[0][idx, codes] - top))]
    p = np.subtract(J[0], top[:, None], out=J[0])
    np.exp(p, out=p)
    s = p.sum(axis=1)
    out[0] -= float(np.sum(np.log(s)))
    p /= s[:, None]
    own = [float(np.sum(j[idx, codes])) for j in J[1:]]
    e1 = np.einsum("ik,ik->i", p, J[1])
    out.append(own[0] - float(e1.sum()))
    if len(J) > 2:
        pj = p * J[1]
        e11 = np.einsum("ik,ik->i", pj, J[1])
        out.append(own[1] - float(np.einsum("ik,ik->", p, J[2]) + np.sum(e11 - e1 * e1)))
    if len(J) > 3:
        e2 = np.einsum("ik,ik->i", p, J[2])
        e12 = np.einsum("ik,ik->i", pj, J[2])
        e111 = np.einsum("ik,ik,ik->i", pj, J[1], J[1])
        cov = e12 - e1 * e2
        skew = e111 - 3 * e1 * e11 + 2 * e1**3
        out.append(own[2] - float(np.einsum("ik,ik->", p, J[3]) + np.sum(3 * cov + skew)))
    return out


def _cubic_step(g: float, h: float, t: float) -> float:
    """The root nearest 0 of g + h δ + t δ² / 2 (h < 0); Newton's −g/h if it has none."""
    disc = h * h - 2.0 * t * g
    if disc < 0:
        return -g / h
    return -2.0 * g / (h - np.sqrt(disc))


def _maximise(evaluate, u, lo, hi, tol: float, order: int, reach: float = _MAX_STEP):
    """Safeguarded Newton: (argmax in [lo, hi], -1/0/1 for lower bound/interior/upper bound).

    ``evaluate(u, order)`` gives L and its first ``order`` derivatives. With ``order`` 3 the
    step is the cubic model's root of L'; with 2 the first evaluation has the curvature and
    those near the previous point are of order 1 (see ``_REUSE``). The sign of the exact
    gradient keeps a bracket [a, b] of the maximum; a step leaving it (or a point of positive
    curvature) goes half-way to the bracket's end instead; no step is longer than ``reach``.
    """
    a, b = lo, hi
    best = (-np.inf, u)  # the best finite point: where the bracket closes on a -inf bound
    prev = None  # (u, gradient, curvature) of the previous finite evaluation
    for _ in range(100):
        cheap = order == 2 and prev is not None and 0 < abs(u - prev[0]) < _REUSE
        with np.errstate(all="ignore"):
            got = evaluate(u, 1 if cheap else order)
        f, g = got[0], got[1]
        if not np.isfinite(f):  # the MAP at α → 1 (a zero count): the maximum is above
            a = u
            if b - a < 1e-10:
                return best[1], 0
            u = min(u + reach, 0.5 * (u + b))
            continue
        # The curvature at u: exact, or extrapolated from the previous one along the secant.
        h = got[2] if not cheap else 2 * (g - prev[1]) / (u - prev[0]) - prev[2]
        prev = (u, g, h)
        best = max(best, (f, u))
        if g > 0:
            a = u
        else:
            b = u
        if u >= hi and g > 0:
            return hi, 1
        if u <= lo and g <= 0:
            return lo, -1
        if h >= 0:
            step = np.copysign(reach, g)
        else:
            step = _cubic_step(g, h, got[3]) if len(got) > 3 else -g / h
        step = float(np.clip(step, -reach, reach))
        new = u + step
        if h < 0 and abs(step) < tol and a <= new <= b:
            return new, 0
        if not a < new < b:
            end = b if step > 0 else a
            new = 0.5 * (u + end) if end not in (lo, hi) else end
        if b - a < 1e-10:
            return best[1], 0
        u = new
    return best[1], 0


def newton_loo_alpha(kernel, n: int, lo: float, hi: float) -> float:
    """The α in [e^lo, e^hi] maximising the exact LOO label log-likelihood of n documents.

    ``kernel(rows)`` gives, for the documents ``rows`` (None: all), a function of (u, order)
    returning ([J, J', ..., J^(order)], codes) of those documents.
    """

    def objective(terms):
        return lambda u, order: label_derivatives(*terms(u, order))

    start = max(0.0, lo)
    if n >= 2 * _SUBSAMPLE:
        rows = np.sort(np.random.default_rng(0).choice(n, max(_SUBSAMPLE, n // 16), False))
        start, _ = _maximise(objective(kernel(rows)), start, lo, hi, _TOL_SUB, 3, _MAX_STEP_SUB)
    u, side = _maximise(objective(kernel(None)), start, lo, hi, _TOL, 2)
    if side == 1:
        warnings.warn(
            "the leave-one-out label log-likelihood keeps increasing towards the search "
            f"bound; alpha_ is set to {np.exp(u):.3g}",
            RuntimeWarning,
            stacklevel=3,
        )
    return float(np.exp(u))


def log_shifted(z, a, rate: float, order: int) -> list:
    """log(z + a) and its first ``order`` (≤ 3) derivatives in u, where a's are all ``rate``.

    (a = α + const has rate α; a fixed a has rate 0.) With d1 = rate / (z + a), the next
    derivatives are d1 − d1² and (d1 − d1²)(1 − 2 d1): the tables of one fused product.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        d1 = rate / (z + a)
        out = [np.log(z + a), d1]
        if order > 1:
            out.append(d1 - d1 * d1)
        if order > 2:
            out.append(out[2] * (1.0 - 2.0 * d1))
        return out


def stack_tables(tables) -> np.ndarray:
    """The (V, m·K) C-contiguous right factor of one fused product from m (K, V) tables."""
    k, v = tables[0].shape
    out = np.empty((v, len(tables) * k))
    for m, t in enumerate(tables):
        out[:, m * k : (m + 1) * k] = t.T
    return out


class OwnEntries:
    """Per-row sums ``Σ_j x_ij D(w_i)[y_i, j]`` of own-class tables, for rows of few weights.

    The nonzeros are re-indexed once into the flattened (K·V) table of each row's own class,
    so each call is one sparse product with a (K·V, m) block (the value and its derivatives),
    not a gather per entry. ``take`` selects the nonzeros it covers; ``rest`` marks those it
    leaves to the family's per-entry terms (also the rows of weights beyond the first few).
    """

    _WEIGHTS = 4

    def __init__(self, Xs, codes, weights, rows, shape: tuple[int, int], take=None):
        import scipy.sparse as sp

        n = codes.shape[0]
        index = np.int32 if shape[0] * shape[1] < 2**31 else np.int64
        flat = np.repeat(codes.astype(index) * index(shape[1]), np.diff(Xs.indptr))
        flat += Xs.indices
        distinct = weights[:1] if np.ptp(weights) == 0 else np.unique(weights)
        keep = np.ones(rows.size, bool) if take is None else np.array(take, bool)
        keep = np.broadcast_to(keep, rows.shape).copy() if keep.ndim == 0 else keep
        if not keep.any():
            distinct = distinct[:0]  # nothing through tables: no table work per call
        if distinct.size > self._WEIGHTS:
            distinct = distinct[: self._WEIGHTS]
            keep &= np.isin(weights[rows], distinct)
        self.rest = ~keep
        self.groups = []
        for wv in distinct:
            sel = keep if distinct.size == 1 else keep & (weights[rows] == wv)
            # Entries left out keep a stored zero: the product skips nothing, copies nothing.
            data = Xs.data if sel.all() else np.where(sel, Xs.data, 0.0)
            mat = sp.csr_matrix((data, flat, Xs.indptr), shape=(n, shape[0] * shape[1]))
            self.groups.append((float(wv), mat))
        self.n = n
        self.idx = np.arange(n)

    def __call__(self, table, m: int) -> np.ndarray:
        """(n, m): Σ over the covered nonzeros of the m (K, V) tables ``table(w)``."""
        out = np.zeros((self.n, m))
        for wv, mat in self.groups:
            block = np.column_stack([t.ravel() for t in table(wv)])
            out += mat @ block
        return out
