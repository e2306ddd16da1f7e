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
    "subset",
]

# Documents in the warm-start subsample: a sixteenth of them, at least this many.
_SUBSAMPLE = 2000
# Newton step (in u = log α) below which the search has converged: the next step would be
# of order _TOL² (quadratic convergence); on the subsample a looser one is enough.
_TOL, _TOL_SUB = 1e-4, 3e-2
# Trust region of one step in u (a factor e in α).
_MAX_STEP = 1.0
# Curvature reuse (see _maximise): within _REUSE in u of the last exact curvature; a step is
# accepted when it times that distance is below _STALE (with |L'''/L''| ≤ 5 the returned α
# is then within 1e-6 relative; on the benchmark corpus |L'''/L''| is about 0.01).
_REUSE, _STALE = 1e-2, 2e-7


def label_derivatives(J, J1, J2, codes) -> tuple[float, float, float | None]:
    """Σ_i log softmax(J_i)[y_i] and its first two derivatives, from J and its derivatives.

    With p_i = softmax(J_i): ℓ'_i = J'_iy − E_p J'_i and ℓ''_i = J''_iy − E_p J''_i − Var_p J'_i.
    ``J`` is overwritten; ``J2`` None gives no curvature.
    """
    idx = np.arange(codes.shape[0])
    top = J.max(axis=1)
    value = float(np.sum(J[idx, codes] - top))
    p = np.subtract(J, top[:, None], out=J)
    np.exp(p, out=p)
    s = p.sum(axis=1)
    value -= float(np.sum(np.log(s)))
    m1 = np.einsum("ik,ik->i", p, J1) / s
    grad = float(np.sum(J1[idx, codes] - m1))
    if J2 is None:
        return value, grad, None
    m2 = np.einsum("ik,ik->i", p, J2) / s
    var = np.einsum("ik,ik,ik->i", p, J1, J1) / s - m1 * m1
    return value, grad, float(np.sum(J2[idx, codes] - m2 - var))


def _maximise(evaluate, u: float, lo: float, hi: float, tol: float) -> tuple[float, int]:
    """Safeguarded Newton: (argmax in [lo, hi], -1/0/1 for lower bound/interior/upper bound).

    ``evaluate(u, order)`` gives (L, L', L'' or None for order 1). The sign of the exact
    gradient keeps a bracket [a, b] of the maximum; a step leaving it (or a point of positive
    curvature) goes half-way to the bracket's end instead. Within ``_REUSE`` of the last
    exact curvature the evaluation is of order 1 (two thirds of the product) and reuses it:
    the step is then off by about |step| · |Δu| · |L'''/L''|.
    """
    a, b = lo, hi
    best = (-np.inf, u)  # the best finite point: where the bracket closes on a -inf bound
    curv, at = None, np.inf  # the last exact (negative) curvature and where it was taken
    for _ in range(100):
        reuse = curv is not None and abs(u - at) < _REUSE
        with np.errstate(all="ignore"):
            f, g, h = evaluate(u, 1 if reuse else 2)
        if not np.isfinite(f):  # the MAP at α → 1 (a zero count): the maximum is above
            a = u
            if b - a < 1e-10:
                return best[1], 0
            u = min(u + _MAX_STEP, 0.5 * (u + b))
            continue
        if reuse:
            h = curv
        elif h < 0:
            curv, at = h, u
        best = max(best, (f, u))
        if g > 0:
            a = u
        else:
            b = u
        if u >= hi and g > 0:
            return hi, 1
        if u <= lo and g <= 0:
            return lo, -1
        step = -g / h if h < 0 else np.copysign(_MAX_STEP, g)
        step = float(np.clip(step, -_MAX_STEP, _MAX_STEP))
        new = u + step
        stale = abs(u - at) if reuse else 0.0
        if abs(step) < tol and abs(step) * stale < _STALE and a <= new <= b:
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
    returning (J, J', J'' or None, codes) of those documents.
    """

    def objective(terms):
        return lambda u, order: label_derivatives(*terms(u, order))

    start = max(0.0, lo)
    if n >= 2 * _SUBSAMPLE:
        rows = np.sort(np.random.default_rng(0).choice(n, max(_SUBSAMPLE, n // 16), False))
        start, _ = _maximise(objective(kernel(rows)), start, lo, hi, _TOL_SUB)
    u, side = _maximise(objective(kernel(None)), start, lo, hi, _TOL)
    if side == 1:
        warnings.warn(
            "the leave-one-out label log-likelihood keeps increasing towards the search "
            f"bound; alpha_ is set to {np.exp(u):.3g}",
            RuntimeWarning,
            stacklevel=3,
        )
    return float(np.exp(u))


def log_shifted(z, a, rate: float, order: int) -> list:
    """log(z + a) and its first ``order`` derivatives in u, where da/du = d²a/du² = rate.

    (a = α + const has rate α; a fixed a has rate 0.) The tables of one fused product.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        d1 = rate / (z + a)
        out = [np.log(z + a), d1]
        if order > 1:
            out.append(d1 - d1 * d1)
        return out


def subset(Xs, rows):
    """Rows ``rows`` of CSR ``Xs`` (all for None) on the columns they use, and those columns.

    The warm-start subsample holds a fraction of the vocabulary: its tables shrink with it.
    """
    import scipy.sparse as sp

    if rows is None:
        return Xs, slice(None)
    part = Xs[rows]
    used, inverse = np.unique(part.indices, return_inverse=True)
    part = sp.csr_matrix(
        (part.data, inverse.astype(part.indices.dtype), part.indptr),
        shape=(part.shape[0], used.size),
    )
    return part, used


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
        distinct = np.unique(weights)
        keep = np.ones(rows.size, bool) if take is None else np.array(take, bool)
        keep = np.broadcast_to(keep, rows.shape).copy() if keep.ndim == 0 else keep
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
