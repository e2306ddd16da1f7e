"""alpha="loo" by a safeguarded search in log α on the exact derivatives of the LOO.

The exact leave-one-out label log-likelihood L(u) = Σ_i log p(y_i | x_i, D without i), u = log α,
is a sum of softmax terms of the downdated joint log-likelihoods J_ik(u). A family's kernel
(``_loo_kernel``) gives J and its first three derivatives in u from one fused pass over the
documents' nonzeros (one sparse product with a (V, 4K) table: log θ and the u-derivatives of
log(T + a)), so a step costs one predict pass with four times the columns, not the ten or
more passes of a derivative-free search. The tables' terms are functions of (class, count),
evaluated on the grid of integer counts and gathered (:class:`CountGrid`); J is assembled
and reduced by blocks of rows (:func:`label_derivatives`).

The search is warm-started on a fixed subsample of the documents, each scored exactly
against the full statistics (its L is an unbiased part of the full one; its maximiser is
within ~5e-3 in u of the full one on the benchmark corpus), then continued on every
document: a cubic-model step from the exact L', L'', L''' is taken and the search stops when
the model's estimated error is below ``_ERR`` (L'''' estimated on the subsample), otherwise
value-and-gradient passes carrying the curvature finish it with Newton steps. The returned
α is the stationary point of the exact L to ~1e-8 relative (``tests/test_alpha_loo.py``
checks it against a bounded scalar maximisation of ``elpd_loo`` to 1e-6).
"""

from __future__ import annotations

import warnings

import numpy as np

from bayesnb.families._loo_kernels import COMPILED_FROM, kernels
from bayesnb.scoring.blocks import all_integers, csr_dot, csr_matvecs, for_row_blocks

__all__ = [
    "CountGrid",
    "OwnClass",
    "RowProduct",
    "documents",
    "label_derivatives",
    "log_shifted",
    "newton_loo_alpha",
    "own_grid",
    "warn_bound",
]

# Documents in the warm-start subsample: a sixteenth of them, at least this many.
_SUBSAMPLE = 2000
# Every evaluation gives L and its first three derivatives in u = log α, except one within
# _REUSE of the previous point: that one gives L and L' only (two thirds of the product's
# columns fewer), its curvature extrapolated as L'' + L''' Δu (exact to O(Δu²)). Steps are
# those of the cubic model of L'. The search stops at a step below _TOL (_TOL_SUB on the
# subsample, whose maximiser is only a starting point), or at a cubic step whose model error
# |L''''| |step|³ / (6 |L''|), with L'''' estimated on the subsample, is below _ERR.
_TOL, _TOL_SUB, _REUSE, _ERR = 1e-4, 5e-2, 1e-2, 1e-7
# The subsample's search also stops at a cubic step whose model error, with L'''' from its
# own last two evaluations, is below _ERR_SUB: inside the ~5e-3 between its maximiser and
# the full one, which the search on every document then closes exactly.
_ERR_SUB = 1e-3
# Trust region of one step in u (a factor e in α; e² on the subsample, started at α = 1).
_MAX_STEP, _MAX_STEP_SUB = 1.0, 2.0


# Rows of one block of label_derivatives: its (rows, K) temporaries stay in cache.
_BLOCK_ROWS = 2048


class RowProduct:
    """``X @ table`` for CSR ``X``, made a block of rows at a time where it is used.

    :func:`label_derivatives` asks for each block of rows while it reduces them, so the
    (n, 4K) product of a whole pass never exists: no memory for it to fault in, and each
    block's scores are still in cache when they are reduced. A block's numbers are those of
    :func:`~bayesnb.scoring.blocks.csr_dot` (SciPy's ``csr_matvecs``, row by row) bit for bit;
    where that kernel cannot run, the whole product is made once by ``csr_dot``.
    """

    def __init__(self, X, table: np.ndarray):
        self.table = np.ascontiguousarray(table)
        self.shape = (X.shape[0], self.table.shape[1])
        direct = (
            csr_matvecs is not None
            and X.format == "csr"
            and X.data.dtype == self.table.dtype == np.float64
            and X.indices.dtype == X.indptr.dtype
        )
        self._X = X if direct else None
        self._full = None if direct else csr_dot(X, self.table)

    def rows(self, r0: int, r1: int) -> np.ndarray:
        """Rows ``r0:r1`` of the product, as a new (r1 − r0, k) array."""
        if self._full is not None:
            return self._full[r0:r1]
        X, (_, k) = self._X, self.shape
        out = np.zeros((r1 - r0, k))
        ptr = X.indptr[r0 : r1 + 1]  # absolute offsets into the full index arrays
        csr_matvecs(r1 - r0, X.shape[1], k, ptr, X.indices, X.data, self.table.ravel(), out.ravel())
        return out


def label_derivatives(G, codes, own, prior, shift=None, tau: float = 1.0) -> list[float]:
    """Σ_i log softmax(J_i)[y_i] and its derivatives (≤ 3) in u, from a kernel's parts.

    With ``order = own.shape[1] - 1`` and K classes, the m-th derivative of the joint
    log-likelihoods is ``J⁽ᵐ⁾_ik = τ (G[i, mK + k] + shift[m][k] + [k = y_i] own[i, m])``,
    plus ``prior[i, k]`` for m = 0 (``shift``: per-class terms, or None; τ the likelihood
    temperature, :mod:`bayesnb.scoring.temperature`). With p_i = softmax(J_i)
    and moments under p: ℓ' = J'_y − E J', ℓ'' = J''_y − E J'' − Var J', ℓ''' = J'''_y −
    E J''' − 3 Cov(J', J'') − E (J' − E J')³. Rows are taken in blocks (in threads), each
    assembled and reduced while in cache. ``G``: an array (left as it was) or a
    :class:`RowProduct`, made a block at a time here.
    """
    n, order = codes.shape[0], own.shape[1] - 1
    k = G.shape[1] // (order + 1)
    parts: dict[int, list[float]] = {}

    def block(r0: int, r1: int) -> None:
        c, idx = codes[r0:r1], np.arange(r1 - r0)
        rows = G.rows(r0, r1) if isinstance(G, RowProduct) else G[r0:r1]
        J = []
        for m in range(order + 1):
            j = rows[:, m * k : (m + 1) * k]
            add = None if shift is None else shift[m]
            if m == 0:
                j = j + prior[r0:r1]
                if add is not None:
                    j += add
            else:  # a contiguous copy in cache
                j = np.array(j) if add is None else j + add
            j[idx, c] += own[r0:r1, m]
            if tau != 1.0:  # τ times the likelihood part: J − prior for m = 0
                j = prior[r0:r1] + tau * (j - prior[r0:r1]) if m == 0 else tau * j
            J.append(j)
        top = J[0].max(axis=1)
        out = [float(np.sum(J[0][idx, c] - top))]
        p = np.subtract(J[0], top[:, None], out=J[0])
        np.exp(p, out=p)
        s = np.einsum("ik->i", p)  # row sums: einsum is faster than sum(axis=1) on short rows
        out[0] -= float(np.sum(np.log(s)))
        p /= s[:, None]
        mine = [float(np.sum(j[idx, c])) for j in J[1:]]
        pj = p * J[1]
        e1 = np.einsum("ik->i", pj)
        out.append(mine[0] - float(e1.sum()))
        if order > 1:
            pjj = pj * J[1]
            e11 = np.einsum("ik->i", pjj)
            e2 = np.einsum("ik,ik->i", p, J[2])
            out.append(mine[1] - float(np.sum(e2 + e11 - e1 * e1)))
        if order > 2:
            e12 = np.einsum("ik,ik->i", pj, J[2])
            e111 = np.einsum("ik,ik->i", pjj, J[1])
            cov = e12 - e1 * e2
            skew = e111 - 3 * e1 * e11 + 2 * e1**3
            t = float(np.einsum("ik,ik->", p, J[3]) + np.sum(3 * cov + skew))
            out.append(mine[2] - t)
        parts[r0] = out  # one key per block: safe from threads

    for_row_blocks(n, G.shape[1], block, block_cells=_BLOCK_ROWS * G.shape[1])
    # Blocks summed in row order: the same numbers whatever the number of threads.
    return [float(x) for x in np.sum([parts[r] for r in sorted(parts)], axis=0)]


def _cubic_step(g: float, h: float, t: float) -> float:
    """The root nearest 0 of g + h δ + t δ² / 2 (h < 0); Newton's −g/h if it has none."""
    disc = h * h - 2.0 * t * g
    if disc < 0:
        return -g / h
    return -2.0 * g / (h - np.sqrt(disc))


def _maximise(
    evaluate, u, lo, hi, tol: float, reach: float = _MAX_STEP, fourth=None, err: float = _ERR
):
    """Safeguarded cubic-model search: (argmax in [lo, hi], side, evaluations).

    ``side`` is -1/0/1 for the lower bound/interior/upper bound; ``evaluations`` the list of
    (u, derivatives) of the finite ones. ``evaluate(u, order)`` gives L and its first
    ``order`` derivatives. The sign of the exact gradient keeps a bracket [a, b] of the
    maximum; a step leaving it (or a point of positive curvature) goes half-way to the
    bracket's end instead; no step is longer than ``reach``. ``fourth``: an estimate of
    |L''''|, for the model-error stop at ``err`` (see ``_ERR``); "own": estimated from the
    last two evaluations of this search.
    """
    a, b = lo, hi
    best = (-np.inf, u)  # the best finite point: where the bracket closes on a -inf bound
    seen: list = []
    for _ in range(100):
        cheap = bool(seen) and len(seen[-1][1]) > 3 and 0 < abs(u - seen[-1][0]) < _REUSE
        with np.errstate(all="ignore"):
            got = evaluate(u, 1 if cheap else 3)
        f, g = got[0], got[1]
        if not np.isfinite(f):  # the MAP at α → 1 (a zero count): the maximum is above
            a = u
            if b - a < 1e-10:
                return best[1], 0, seen
            u = min(u + reach, 0.5 * (u + b))
            continue
        if cheap:  # the curvature carried from the previous point
            u0, (_, _, h0, t0) = seen[-1]
            got = [f, g, h0 + t0 * (u - u0)]
        seen.append((u, got))
        h = got[2]
        best = max(best, (f, u))
        if g > 0:
            a = u
        else:
            b = u
        if u >= hi and g > 0:
            return hi, 1, seen
        if u <= lo and g <= 0:
            return lo, -1, seen
        if h >= 0:
            step = np.copysign(reach, g)
        else:
            step = _cubic_step(g, h, got[3]) if len(got) > 3 else -g / h
        step = float(np.clip(step, -reach, reach))
        new = u + step
        quartic = _fourth(seen, 1.0) if fourth == "own" else fourth
        model = quartic is not None and len(got) > 3 and h < 0
        small = h < 0 and (abs(step) < tol or (model and quartic * abs(step) ** 3 < 6 * err * -h))
        if small and a <= new <= b:
            return new, 0, seen
        if not a < new < b:
            end = b if step > 0 else a
            new = 0.5 * (u + end) if end not in (lo, hi) else end
        if b - a < 1e-10:
            return best[1], 0, seen
        u = new
    return best[1], 0, seen


def _fourth(seen, scale: float):
    """|L''''| from the change of L''' between the last two evaluations, times ``scale``."""
    full = [(u, d[3]) for u, d in seen if len(d) > 3]
    if len(full) < 2 or full[-1][0] == full[-2][0]:
        return None
    (u0, t0), (u1, t1) = full[-2:]
    return abs((t1 - t0) / (u1 - u0)) * scale


def newton_loo_alpha(kernel, n: int, lo: float, hi: float, tau: float = 1.0) -> float:
    """The α in [e^lo, e^hi] maximising the exact LOO label log-likelihood of n documents
    (at likelihood temperature ``tau``).

    ``kernel(rows)`` gives, for the documents ``rows`` (None: all), a function of (u, order)
    returning the parts of J, J', ..., J^(order) of those documents: the arguments of
    :func:`label_derivatives` (the product, codes, own-class column, prior, shifts).
    """

    def objective(terms):
        return lambda u, order: label_derivatives(*terms(u, order), tau=tau)

    start, fourth = max(0.0, lo), None
    if n >= 2 * _SUBSAMPLE:
        m = max(_SUBSAMPLE, n // 16)
        rows = np.sort(np.random.default_rng(0).choice(n, m, False))
        start, _, seen = _maximise(
            objective(kernel(rows)), start, lo, hi, _TOL_SUB, _MAX_STEP_SUB, "own", _ERR_SUB
        )
        fourth = _fourth(seen, n / m)
    u, side, _ = _maximise(objective(kernel(None)), start, lo, hi, _TOL, fourth=fourth)
    if side == 1:
        warn_bound(float(np.exp(u)), stacklevel=4)
    return float(np.exp(u))


def warn_bound(alpha: float, stacklevel: int) -> None:
    """The warning of a search that ends on its upper bound (``alpha`` is returned)."""
    warnings.warn(
        "the leave-one-out label log-likelihood keeps increasing towards the search "
        f"bound; alpha_ is set to {alpha:.3g}",
        RuntimeWarning,
        stacklevel=stacklevel,
    )


class CountGrid:
    """A function of (class, count) at fixed pairs, evaluated at every step of the search.

    ``classes`` (integer codes) and ``counts`` broadcast to the (R, C) shape of the pairs.
    ``grid(f, order)`` gives the (R, (order + 1)·C) block whose column m·C + c holds the
    m-th of the arrays ``f(classes, counts)`` returns (f's values and their u-derivatives).
    When every count is an integer in [0, M) and the K·M grid is at most half the pairs,
    f is evaluated on the grid and gathered at the pairs by an index built once: the same
    formula at the same arguments, so the same numbers, at a fraction of the logarithms
    and divisions. Otherwise (weighted counts, features with their own prior) f is
    evaluated at the pairs themselves. ``use=False`` forces that.
    """

    def __init__(self, classes, counts, n_classes: int, use: bool = True):
        self.classes, self.counts = classes, counts
        self.shape = np.broadcast_shapes(np.shape(classes), counts.shape)
        self.index = None
        if not use or counts.size == 0:
            return
        m = int(counts.max()) + 1
        if 2 * n_classes * m > counts.size:
            return
        whole = counts.astype(np.intp)
        if whole.min() < 0 or not np.array_equal(whole, counts):
            return
        self.grid_shape = (n_classes, m)
        at = classes * m + whole  # the pair's cell in the (K, M) grid
        # (R, 4, C), of intp: take converts any other index type first, a pass per call
        self.index = np.empty((self.shape[0], 4, self.shape[1]), np.intp)
        for d in range(4):  # the d-th derivative's grid follows the (d − 1)-th
            np.add(at, d * n_classes * m, out=self.index[:, d, :])

    def __call__(self, f, order: int) -> np.ndarray:
        rows = self.shape[0]
        if self.index is None:
            parts = f(self.classes, self.counts)
            return np.concatenate([np.broadcast_to(p, self.shape) for p in parts], axis=1)
        k, m = self.grid_shape
        parts = f(np.arange(k)[:, None], np.arange(m, dtype=np.float64)[None, :])
        flat = np.concatenate([np.broadcast_to(p, (k, m)).ravel() for p in parts])
        return flat.take(self.index[:, : order + 1]).reshape(rows, -1)


def documents(Xs, codes, weights, prior, rows):
    """The documents ``rows`` (None: all) of a kernel: CSR rows, label codes, weights and LOO
    class log-priors."""
    if rows is not None:
        Xs, codes, weights, prior = Xs[rows], codes[rows], weights[rows], prior[rows]
    return Xs, codes, weights, prior


# The compiled own-class pass tabulates its terms for counts 0..max: at most this many.
_MAX_GRID = 1 << 24


def own_grid(Xs, weights, counts: np.ndarray) -> np.ndarray | None:
    """The counts 0..max(counts) on which the compiled own-class pass tabulates its terms, or
    None where it cannot run: numba unavailable, a small input (not worth loading it), or
    counts, values or weights that are not integers (a downdated count off the grid)."""
    if Xs.nnz < COMPILED_FROM or counts.size == 0 or Xs.data.dtype != np.float64:
        return None
    top = float(counts.max())
    if not 0 <= top < _MAX_GRID or not all(map(all_integers, (counts, weights, Xs.data))):
        return None
    if kernels() is None:
        return None
    return np.arange(int(top) + 1, dtype=np.float64)


class OwnClass:
    """Per-row sums over a document's nonzeros of terms of its own class: the own-class part
    of the exact LOO and of alpha="loo"'s kernels.

    For CSR ``Xs`` (canonical: no stored zeros), labels ``codes``, weights and the (K, V)
    ``counts`` of the full model, with t_ij = ``counts[y_i, j]``:

    - :meth:`downdate` ``(g)``: Σ_j x_ij (g(max(t_ij − w_i x_ij, 0)) − g(t_ij)) (``full=False``:
      without the − g(t_ij)), g a function of the count alone;
    - :meth:`gather` ``(f)``: Σ_j x_ij f(y_i, t_ij), f a function of (class, count).

    g and f return a list of m arrays (a value and its derivatives). Where :func:`own_grid`
    allows (integer counts and weights, numba, a large input) they are evaluated on the grid
    of counts and summed in one compiled pass over the nonzeros (row blocks in threads);
    otherwise at each nonzero in NumPy, the same terms summed in the same order (the
    compiled pass's oracle). ``compiled`` says which; ``at_entries(a)`` lays out a per-row
    array (or a per-feature one, ``by="feature"``) at the nonzeros, for terms of the NumPy
    path that vary by row or feature.
    """

    def __init__(self, Xs, codes, weights, counts: np.ndarray, grid: np.ndarray | None):
        self.Xs, self.codes, self.counts, self.grid = Xs, codes, counts, grid
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        self.compiled = grid is not None
        if self.compiled:
            return
        n = codes.shape[0]
        self.rows = np.repeat(np.arange(n, dtype=np.intp), np.diff(Xs.indptr))
        self.cols = Xs.indices.astype(np.intp)
        self.c = codes[self.rows]
        self.t = counts.reshape(-1)[self.c * counts.shape[1] + self.cols]
        self.x = Xs.data

    def at_entries(self, a, by: str = "row") -> np.ndarray:
        """The values of the per-row (or per-feature) array ``a`` at the nonzeros."""
        return np.asarray(a)[self.rows if by == "row" else self.cols]

    def downdate(self, g, full: bool = True) -> np.ndarray:
        """(n, m): Σ_j x_ij (g(max(t − w_i x_ij, 0)) − g(t)), without − g(t) unless ``full``."""
        if self.compiled:
            # (M, m): a count's m terms side by side, one cache line per entry
            with np.errstate(divide="ignore", invalid="ignore"):
                grid = np.stack(np.broadcast_arrays(*g(self.grid)), axis=1)
            return self._pass("own_downdate", grid, lambda r0, r1: (self.weights[r0:r1], full))
        with np.errstate(divide="ignore", invalid="ignore"):
            left = np.maximum(self.t - self.at_entries(self.weights) * self.x, 0.0)
            terms = g(left)
            if full:
                terms = [a - b for a, b in zip(terms, g(self.t), strict=True)]
        return self._sums(terms)

    def gather(self, f) -> np.ndarray:
        """(n, m): Σ_j x_ij f(y_i, t_ij)."""
        if self.compiled:
            k, m = self.counts.shape[0], self.grid.size
            with np.errstate(divide="ignore", invalid="ignore"):
                parts = f(np.arange(k)[:, None], self.grid[None, :])
            grid = np.stack([np.broadcast_to(p, (k, m)) for p in parts], axis=-1)
            return self._pass("own_gather", grid, lambda r0, r1: ())
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = f(self.c, self.t)
        return self._sums(terms)

    def _sums(self, terms) -> np.ndarray:
        """Per-row sums of x · term, each column in the order of the nonzeros."""
        n = self.codes.shape[0]
        out = np.empty((n, len(terms)))
        with np.errstate(invalid="ignore"):
            for d, term in enumerate(terms):
                out[:, d] = np.bincount(
                    self.rows, weights=self.x * np.broadcast_to(term, self.x.shape), minlength=n
                )
        return out

    def _pass(self, name: str, grid: np.ndarray, extra) -> np.ndarray:
        """Run the compiled pass ``name`` over row blocks of ``Xs`` (in threads)."""
        run = getattr(kernels(), name)
        Xs = self.Xs
        out = np.zeros((self.codes.shape[0], grid.shape[-1]))
        indptr, indices, data = Xs.indptr, Xs.indices, Xs.data
        codes = np.ascontiguousarray(self.codes, dtype=np.intp)
        grid = np.ascontiguousarray(grid, dtype=np.float64)
        counts = np.ascontiguousarray(self.counts, dtype=np.float64)

        def block(r0: int, r1: int) -> None:
            ptr = indptr[r0 : r1 + 1]  # absolute offsets into the full index arrays
            run(ptr, indices, data, codes[r0:r1], *extra(r0, r1), counts, grid, out[r0:r1])

        # Row blocks of about 2^17 nonzeros (the work is the nonzeros'), in threads.
        for_row_blocks(out.shape[0], max(1, Xs.nnz // max(out.shape[0], 1)), block, 1 << 17)
        return out


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
