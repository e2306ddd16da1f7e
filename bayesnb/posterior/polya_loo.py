"""Leave-one-out of the Pólya MAP from the full fit: one small Newton iteration per document.

At the optimum of ``ℓ_c(β) + Σ_j (e ln β_j − r β_j)`` every cell solves one equation in the
single number ``D = den(B) + r`` shared by its class (:mod:`bayesnb.posterior.polya`):

    g_j(β_j) = num_j(β_j) + e / β_j = Σ_k R_jk / (β_j + k) + e / β_j = D

(R_jk the cell's weight of counts above k), so each β_j = β_j(D) is a decreasing function of
D alone; a cell whose counts are all 1, in documents of total weight n (or without data,
n = 0), has β_j = (n + e) / D. Removing document i (weight w, length n_i) changes the
equations of its own cells and den only; the refit's optimum solves, in t = ln D,

    e^t = den(B) − w [ψ(B + n_i) − ψ(B)] + r,
    B = (S − a_i) / D + Φ(t) − Σ_p β_p(D) + Σ_p β̃_p,    g̃_p(β̃_p) = D,

with S = Σ (n + e) over the closed-form cells of the class, a_i = w times the number of i's
words in them, Φ the sum of β_j(D) over the class's other cells, and p over i's words in
those: β̃_p the root of its downdated equation g̃_p = g_p − w Σ_{k<x_p} 1/(β + k) (x_p its
count; a cell the document empties has β̃_p = e / D exactly).

Φ, every β_j and den (in ln B) are smooth on the scale of one document's share of its
class: they are taken by Chebyshev interpolants in ln D (den: in ln B) on ±1/2 about the full
fit, from the exact roots at the nodes, and Φ − Σ_p β_p is summed into one series per
document. Each document then takes Newton's method jointly in t and the logarithms of its
β̃_p (those evaluated exactly from the cell's tail sums): quadratic, run to rounding. A
class with a document whose solution leaves the interval is done again on one twice as wide
(and with twice the nodes).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.polynomial import chebyshev as cheb
from scipy.special import digamma

from bayesnb.posterior._special import trigamma
from bayesnb.posterior.polya_stats import PolyaStats
from bayesnb.scoring.discrete import log_rising
from bayesnb.stats.discrete import CANCEL

__all__ = ["polya_leave_one_out"]

# Chebyshev nodes on the first interval, ±_HALF_WIDTH in ln D and ln B about the full fit:
# the coefficients of the class sums fall below rounding well before the last (measured on
# Debian's fortunes, classes of 23-883 documents).
_NODES, _HALF_WIDTH, _ROUNDS = 24, 0.5, 4
# Counts up to this are summed as their terms 1/(β + k) (the tail sums R_k); the part of a
# larger count above it keeps its digamma difference.
_EXPAND = 32
_ITERATIONS = 60
# Newton's method is quadratic here: a last step this small leaves an error about its square.
_SETTLED = 1e-9


class _Functions:
    """Many functions g(β) = Σ coef / (β + k) + Σ lcoef [ψ(β + v) − ψ(β + _EXPAND)] + e / β,
    their terms ``(owner, k, coef)`` and ``(lowner, v, lcoef)``; ``n`` functions."""

    def __init__(self, short, long, n, e):
        self.short, self.long, self.n, self.e = short, long, n, e

    def log_slope(self, beta):
        """ln g and s = d ln g / d ln β at ``beta`` (one per function)."""
        (o, k, c), (lo, v, lc) = self.short, self.long
        t = 1.0 / (beta[o] + k)
        ct = c * t
        g = np.bincount(o, ct, self.n) + self.e / beta
        g1 = -np.bincount(o, ct * t, self.n) - self.e / (beta * beta)
        if lo.size:
            b = beta[lo]
            g += np.bincount(lo, lc * (digamma(b + v) - digamma(b + _EXPAND)), self.n)
            g1 += np.bincount(lo, lc * (trigamma(b + v) - trigamma(b + _EXPAND)), self.n)
        return np.log(g), beta * g1 / g

    def take(self, keep):
        """The functions ``keep`` (positions), renumbered."""
        new = np.full(self.n, -1)
        new[keep] = np.arange(keep.size)
        parts = []
        for o, a, b in (self.short, self.long):
            m = new[o] >= 0
            parts.append((new[o[m]], a[m], b[m]))
        return _Functions(*parts, keep.size, self.e)

    def tile(self, m):
        """Every function repeated ``m`` times (function f's copies are f m … f m + m − 1)."""
        parts = []
        for o, a, b in (self.short, self.long):
            rep = (o[:, None] * m + np.arange(m)).ravel()
            parts.append((rep, np.repeat(a, m), np.repeat(b, m)))
        return _Functions(*parts, self.n * m, self.e)


class _CellTable:
    """The class's cells with a count other than 1 (the others have the closed form): their
    tail sums R_k (k < min(largest count, _EXPAND)) and the entries above _EXPAND."""

    def __init__(self, stats: PolyaStats, e: float) -> None:
        vt = stats.values
        V = stats.n_features
        flat = vt.cls * V + vt.feature
        size = stats.n_classes * V
        complex_ = np.bincount(flat, vt.value != 1.0, size) > 0
        self.cells = np.flatnonzero(complex_)
        self.pos = np.full(size, -1, dtype=np.intp)
        self.pos[self.cells] = np.arange(self.cells.size)
        self.total = np.bincount(flat, vt.weight, size)
        sel = complex_[flat]
        c, v, w = self.pos[flat[sel]], vt.value[sel], vt.weight[sel]
        m = self.cells.size
        table = np.bincount(c * (_EXPAND + 1) + np.minimum(v, _EXPAND).astype(np.intp), w,
                            m * (_EXPAND + 1)).reshape(m, _EXPAND + 1)  # fmt: skip
        # R[c, k] = the weight of counts above k, k < _EXPAND.
        self.R = np.cumsum(table[:, ::-1], axis=1)[:, ::-1][:, 1:]
        longest = np.zeros(m)
        np.maximum.at(longest, c, v)
        self.width = np.minimum(longest, _EXPAND).astype(np.intp)
        big = v > _EXPAND
        order = np.argsort(c[big], kind="stable")
        self.long = (c[big][order], v[big][order], w[big][order])
        self.n_long = np.bincount(self.long[0], None, m).astype(np.intp)
        self.long_at = np.concatenate([[0], np.cumsum(self.n_long)])
        self.e = e

    def functions(self, pos, x=None, w=None):
        """g of the cells ``pos``, or of their equations downdated by counts ``x`` of weight
        ``w`` (one function each)."""
        k, owner = _ranges(self.width[pos])
        coef = self.R[pos[owner], k.astype(np.intp)]
        lk, lowner = _ranges(self.n_long[pos])
        at = self.long_at[pos[lowner]] + lk.astype(np.intp)
        lv, lc = self.long[1][at], self.long[2][at]
        if x is not None:
            full = coef
            coef = full - w[owner] * (k < x[owner])
            coef[np.abs(coef) <= CANCEL * full] = 0.0  # the document was all of that weight
            big = np.flatnonzero(x > _EXPAND)
            lowner = np.concatenate([lowner, big])
            lv, lc = np.concatenate([lv, x[big]]), np.concatenate([lc, -w[big]])
        return _Functions((owner, k, coef), (lowner, lv, lc), pos.size, self.e)


def _ranges(counts):
    """``(k, owner)``: k = 0 … count − 1 for every owner."""
    reps = np.asarray(counts).astype(np.intp)
    ends = np.cumsum(reps)
    k = np.arange(ends[-1] if ends.size else 0) - np.repeat(ends - reps, reps)
    return k.astype(np.float64), np.repeat(np.arange(reps.size), reps)


def _chebyshev(n):
    """The nodes x on [−1, 1] and the matrix taking values there to coefficients."""
    x = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    return x, np.linalg.inv(cheb.chebvander(x, n - 1))


def _series(coef, slope, x):
    """Every row's series (coefficients ``coef``, of its derivative ``slope``) at its own x,
    and its derivative in x."""
    return cheb.chebval(x, coef.T, tensor=False), cheb.chebval(x, slope.T, tensor=False)


def polya_leave_one_out(
    stats: PolyaStats,
    beta: np.ndarray,
    shape_extra: float,
    rate: float,
    Xs,
    codes: np.ndarray,
    weights: np.ndarray,
):
    """log p(x_i | class y_i without i) under the refit's MAP, for the rows of ``Xs``.

    Parameters
    ----------
    stats : PolyaStats
        The full statistics; ``beta`` (K, V) their optimum (``shape_extra = e``, ``rate = r``,
        r > 0).
    Xs : csr_matrix of shape (n, V)
        The documents (non-empty, weight ≠ 0, not the whole of their class), ``codes``
        their classes, ``weights`` theirs.

    Returns
    -------
    score : ndarray of shape (n,)
    ok : ndarray of bool, shape (n,)
        Rows solved; the others (a document far beyond the widest interval) need a refit.
    """
    K, V = stats.shape
    e, r = float(shape_extra), float(rate)
    table = _CellTable(stats, e)
    B0 = beta.sum(axis=1)
    t0 = np.log(stats.den(B0) + r)
    vt = stats.values
    simple = table.pos[vt.cls * V + vt.feature] < 0
    n_simple = V - np.bincount(table.cells // V, None, K)  # with the cells without data
    S = np.bincount(vt.cls, np.where(simple, vt.weight, 0.0), K) + e * n_simple
    n = Xs.shape[0]
    score, ok = np.full(n, np.nan), np.zeros(n, dtype=bool)
    half = np.full(K, _HALF_WIDTH)
    nodes = _NODES
    todo = np.arange(n)
    for _ in range(_ROUNDS):
        if todo.size == 0:
            break
        classes = np.zeros(K, dtype=bool)
        classes[codes[todo]] = True
        curves = _curves(stats, table, beta, classes, t0, B0, half, nodes)
        sub = Xs[todo]
        got, done = _rows(
            table, curves, beta, (S, t0, B0, half), e, r, sub, codes[todo], weights[todo]
        )
        score[todo[done]], ok[todo[done]] = got[done], True
        todo = todo[~done]
        half[codes[todo]] *= 2.0
        nodes *= 2
    return score, ok


def _curves(stats, table, beta, classes, t0, B0, half, nodes):
    """Chebyshev coefficients in ln D of every complex cell of ``classes`` (β_j, rows of
    ``table.cells``; the others zero), of their sum per class, and of den per class in ln B."""
    K, V = stats.shape
    x, to_coef = _chebyshev(nodes)
    pos = np.flatnonzero(classes[table.cells // V])
    cls = table.cells[pos] // V
    u0 = np.log(beta.ravel()[table.cells[pos]])
    f = table.functions(pos)
    s0 = f.log_slope(np.exp(u0))[1]
    # Start every node at the full fit's root moved along its slope, d ln β = d ln D / s.
    t = (t0[cls][:, None] + half[cls][:, None] * x).ravel()
    u = (u0[:, None] + (half[cls][:, None] * x) / s0[:, None]).ravel()
    u = _roots(f.tile(nodes), u, t).reshape(-1, nodes)
    cell_coef = np.zeros((table.cells.size, nodes))
    cell_coef[pos] = np.exp(u) @ to_coef.T
    class_coef = np.zeros((K, nodes))
    np.add.at(class_coef, cls, cell_coef[pos])
    lt = stats.lengths
    keep = classes[lt.cls]
    lc, length, lw = lt.cls[keep], lt.length[keep], lt.weight[keep]
    B = B0[lc][:, None] * np.exp(half[lc][:, None] * x)
    den = np.zeros((K, nodes))
    np.add.at(den, lc, lw[:, None] * _rising_digamma(B, length[:, None]))
    return cell_coef, class_coef, den @ to_coef.T


def _rising_digamma(b, n):
    """ψ(b + n) − ψ(b), as Σ_{k<n} 1/(b + k) for n ≤ _EXPAND (no cancellation)."""
    b, n = np.broadcast_arrays(b, n)
    out = digamma(b + n) - digamma(b)
    short = n <= _EXPAND
    if short.any():
        k, owner = _ranges(n[short])
        out[short] = np.bincount(owner, 1.0 / (b[short][owner] + k), short.sum())
    return out


def _roots(f: _Functions, u, t):
    """ln β of the roots of ln g(β) = t, by Newton's method in ln β from ``u``; the
    functions still moving are taken apart when they are fewer than half."""
    u = u.copy()
    at, sub = np.arange(f.n), f
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(_ITERATIONS):
            lg, s = sub.log_slope(np.exp(u[at]))
            step = np.clip((t[at] - lg) / s, -5.0, 5.0)
            u[at] += step
            going = ~(np.abs(step) <= _SETTLED)
            if not going.any():
                break
            if going.sum() * 2 < going.size:
                sub, at = sub.take(np.flatnonzero(going)), at[going]
    return u


def _rows(table, curves, beta, per_class, e, r, sub, cls, w):
    """Every row's own-class score and whether it was solved inside its class's interval
    (``per_class``: S, ln D and B of the full fit, the half widths)."""
    S, t0, B0, half = per_class
    cell_coef, class_coef, den_coef = curves
    m, V = sub.shape
    row = np.repeat(np.arange(m), np.diff(sub.indptr))
    x = sub.data
    f = cls[row] * V + sub.indices
    p = table.pos[f]
    cx = p >= 0
    length = np.bincount(row, x, m)
    left = table.total[f] - w[row]
    left[np.abs(left) <= CANCEL * table.total[f]] = 0.0  # no other document in the cell
    emptied = cx & (left == 0.0)  # β̃ = e / D: its e joins S
    live = np.flatnonzero(cx & ~emptied)
    SA = S[cls] - w * np.bincount(row, ~cx, m) + e * np.bincount(row, emptied, m)
    # Φ − Σ_p β_p of every row: one series (its words are in its class: the same nodes).
    mine = sp.csr_matrix((np.ones(int(cx.sum())), (row[cx], p[cx])), (m, table.cells.size))
    coef = class_coef[cls] - mine @ cell_coef
    lrow = row[live]
    fun = table.functions(p[live], x[live], w[lrow])
    u = np.log(beta.ravel()[f[live]])  # the full fit's root: the downdated one is near
    t = t0[cls].copy()
    h, c0, b0 = half[cls], t0[cls], np.log(B0[cls])
    dcoef = den_coef[cls]
    slope, dslope = cheb.chebder(coef, axis=1), cheb.chebder(dcoef, axis=1)
    moved = np.full(m, np.inf)
    at, ents, fsub = np.arange(m), np.arange(live.size), fun
    erow = lrow  # the entries' rows, as positions in ``at``
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(_ITERATIONS):
            ta = t[at]
            D = np.exp(ta)
            E, Ex = _series(coef[at], slope[at], (ta - c0[at]) / h[at])
            be = np.exp(u[ents])
            lg, s = fsub.log_slope(be)
            na = at.size
            B = SA[at] / D + E + np.bincount(erow, be, na)
            Bt = -SA[at] / D + Ex / h[at]
            den, den_x = _series(dcoef[at], dslope[at], (np.log(B) - b0[at]) / h[at])
            wa, la = w[at], length[at]
            F0 = den - wa * (digamma(B + la) - digamma(B)) + r - D
            FB = den_x / (h[at] * B) - wa * (trigamma(B + la) - trigamma(B))
            gap = ta[erow] - lg
            A = np.bincount(erow, be * gap / s, na)
            Q = np.bincount(erow, be / s, na)
            dt = -(F0 + FB * A) / (FB * (Bt + Q) - D)
            du = np.clip((gap + dt[erow]) / s, -5.0, 5.0)
            t[at] = ta + dt
            u[ents] += du
            step = np.abs(dt)
            np.maximum.at(step, erow, np.abs(du))
            moved[at] = step
            going = ~(step <= _SETTLED)
            if not going.any():
                break
            if going.sum() * 2 < going.size:
                keep = np.flatnonzero(going[erow])
                renum = np.cumsum(going) - 1
                fsub, ents, erow = fsub.take(keep), ents[keep], renum[erow[keep]]
                at = at[going]
        D = np.exp(t)
        xi = (t - c0) / h
        be = np.exp(u)
        B = SA / D + cheb.chebval(xi, coef.T, tensor=False) + np.bincount(lrow, be, m)
        xb = (np.log(B) - b0) / h
        done = (moved <= _SETTLED) & (np.abs(xi) <= 1.0) & (np.abs(xb) <= 1.0) & (B > 0)
        closed = np.flatnonzero(~cx)
        terms = np.zeros(x.size)
        terms[closed] = np.log(left[closed] + e) - t[row[closed]]
        terms[live] = log_rising(be, x[live])
        gone = np.flatnonzero(emptied)
        terms[gone] = log_rising(e / D[row[gone]], x[gone]) if e > 0 else -np.inf
        score = np.bincount(row, terms, m) - log_rising(np.where(B > 0, B, 1.0), length)
    return score, done & ~np.isnan(score)
