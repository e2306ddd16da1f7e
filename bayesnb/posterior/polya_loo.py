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

The cells' roots β_j, the β̃_p (which depend on the cell, the count and the weight only:
one per distinct triple) and den are smooth in t (den: in ln B) on the scale of one
document's share of its class: each is taken by a Chebyshev interpolant of its exact roots
at the nodes of an interval about the full fit (per class, twice the largest first Newton
step of its documents from the full fit; 8-24 nodes by its width), and so are the words'
terms ln Γ(β̃_p + x_p) − ln Γ(β̃_p). Summed per document (sparse products), B(t) and the
score are one series each, and each document takes Newton's method in t alone: quadratic,
run to rounding. A class with documents whose iteration leaves its interval is done again,
for those, on intervals about where their iterations stopped (at most four rounds).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numpy.polynomial import chebyshev as cheb
from scipy.special import digamma

from bayesnb.posterior._special import trigamma
from bayesnb.posterior.polya_stats import PolyaStats
from bayesnb.scoring.discrete import log_rising
from bayesnb.stats.discrete import CANCEL

__all__ = ["polya_leave_one_out"]

# Nodes on an interval of half width 1/2 (in ln D and ln B), the widest first interval; the
# rounds of widening.
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
    """The cells (class, word) with a count other than 1 (the others have the closed form): their
    tail sums R_k (k < min(largest count, _EXPAND)) and the entries above _EXPAND."""

    def __init__(self, stats: PolyaStats, e: float) -> None:
        vt = stats.values
        V = stats.n_features
        flat = vt.cls * V + vt.feature
        size = stats.n_classes * V
        complex_ = np.bincount(flat, vt.value != 1.0, size) > 0
        self.cells = np.flatnonzero(complex_)
        self.pos = np.full(size, -1, dtype=np.int32)  # compact: looked up once per entry
        self.pos[self.cells] = np.arange(self.cells.size)
        self.total = np.bincount(flat, vt.weight, size)
        sel = np.flatnonzero(complex_[flat])
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
        Rows solved; the others (not solved in four rounds of intervals) need a refit.
    """
    # The rows class by class: every lookup of (class, word) then falls in one class's
    # row of the (K, V) tables, a cache-sized window.
    order = np.argsort(codes, kind="stable")
    Xs, codes, weights = Xs[order], codes[order], np.asarray(weights, dtype=np.float64)[order]
    pb = _Problem(stats, beta, float(shape_extra), float(rate), Xs, codes, weights)
    n = Xs.shape[0]
    score, ok = np.full(n, np.nan), np.zeros(n, dtype=bool)
    # Per class, the centre and half width of its intervals in (ln D, ln B).
    centre, half = np.column_stack([pb.t0, np.log(pb.B0)]), pb.widths()
    todo = np.arange(n)
    for _ in range(_ROUNDS):
        nodes = _nodes(half.max(axis=1)).astype(int)[codes[todo]]
        reached = np.full((n, 2), np.nan)
        for size in np.unique(nodes):
            rows = todo[nodes == size]
            got, done, reached[rows] = pb.solve(rows, centre, half, int(size))
            score[rows[done]], ok[rows[done]] = got[done], True
        todo = np.flatnonzero(~ok)
        if todo.size == 0:
            break
        fine = np.isfinite(reached[todo]).all(axis=1)
        pb.guess[todo[fine]] = reached[todo[fine], 0]  # where the next iteration starts
        _recentre(centre, half, codes[todo], reached[todo])
    back = np.empty_like(order)
    back[order] = np.arange(n)
    return score[back], ok[back]


def _recentre(centre, half, cls, reached):
    """New intervals for the classes ``cls`` of rows not solved: about the points (ln D,
    ln B) their Newton iterations reached, half as wide as those are from the old centre at
    least, or four times as wide where every iteration went astray."""
    fine = np.isfinite(reached).all(axis=1)
    for c in np.unique(cls):
        mine = reached[(cls == c) & fine]
        if mine.size == 0:
            half[c] *= 4.0
            continue
        lo, hi = mine.min(axis=0), mine.max(axis=0)
        moved = np.maximum(np.abs(lo - centre[c]), np.abs(hi - centre[c]))
        centre[c] = (lo + hi) / 2.0
        half[c] = np.maximum(0.75 * (hi - lo) + 0.5 * moved, 1e-3)


def _nodes(half):
    """Chebyshev nodes for intervals of these half widths (in ln D and ln B), enough for the
    coefficients of every cell's root to fall below rounding: measured on Debian's fortunes
    (classes of 23-883 documents) at ±1/2 by the 24th; a coefficient k scales as half^k."""
    return np.select([half <= 0.02, half <= 0.1], [8, 12], _NODES * np.ceil(half / 0.5))


def _incidence(row, col, n, m):
    """The (n, m) matrix of ones at (row, col), ``row`` sorted: sums over every row's
    entries (in CSR directly: no sort)."""
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=n))])
    return sp.csr_matrix((np.ones(row.size), col, indptr), shape=(n, m))


def _distinct(cell, x, w, row):
    """The distinct (cell, count, weight of the row) of the entries: every entry's one, and
    their cells, counts and weights."""
    weights, w_code = np.unique(w, return_inverse=True)  # of the rows, not the entries
    span, top = np.int64(weights.size), np.int64(x.max() + 1 if x.size else 1)
    key = (cell.astype(np.int64) * top + x.astype(np.int64)) * span + w_code[row]
    # A hash table: O(entries), no sort (the distinct ones are far fewer on text).
    inv, distinct = pd.factorize(key, size_hint=key.size // 8)
    rest, code = np.divmod(distinct, span)
    cell, count = np.divmod(rest, top)
    return inv, cell, count.astype(np.float64), weights[code]


class _Problem:
    """The full fit, the documents' entries and their distinct downdated cells (items)."""

    def __init__(self, stats, beta, e, r, Xs, codes, weights) -> None:
        K, V = stats.shape
        self.stats, self.e, self.r = stats, e, r
        self.table = table = _CellTable(stats, e)
        self.B0 = beta.sum(axis=1)
        self.t0 = np.log(stats.den(self.B0) + r)
        vt = stats.values
        simple = table.pos[vt.cls * V + vt.feature] < 0
        n_simple = V - np.bincount(table.cells // V, None, K)  # with the cells without data
        self.S = np.bincount(vt.cls, np.where(simple, vt.weight, 0.0), K) + e * n_simple
        # Every complex cell at the full fit: its class, ln β and slope s = d ln g / d ln β.
        self.cell_cls = table.cells // V
        self.u0 = np.log(beta.ravel()[table.cells])
        self.s0 = table.functions(np.arange(table.cells.size)).log_slope(np.exp(self.u0))[1]
        n = Xs.shape[0]
        self.codes, self.w = codes, np.asarray(weights, dtype=np.float64)
        row = np.repeat(np.arange(n), np.diff(Xs.indptr))
        x = Xs.data
        f = codes[row] * V + Xs.indices
        p = table.pos[f]
        cx = p >= 0
        # Positions, not masks: a mask of mixed entries costs a mispredicted branch each.
        plain, cx = np.flatnonzero(~cx), np.flatnonzero(cx)
        self.length = np.asarray(Xs.sum(axis=1)).ravel()
        # The closed-form cells: β̃ = (n − w + e) / D, their S less the row's weight.
        rs, fs = row[plain], f[plain]
        total = table.total[fs]
        left = total - self.w[rs]
        left[left <= CANCEL * total] = 0.0  # no other document in the cell
        self.n_closed = np.bincount(rs, None, n)
        self.SA = self.S[codes] - self.w * self.n_closed
        self.closed = np.bincount(rs, np.log(left + e), n)
        # The other entries by distinct (cell, count, weight): their downdated roots are
        # equal. A cell a row empties has β̃ = e / D (its equation keeps e / β only).
        rc = row[cx]
        item, self.item_cell, self.item_x, self.item_w = _distinct(p[cx], x[cx], self.w, rc)
        self.item_rows = _incidence(rc, item, n, self.item_cell.size)
        total = table.total[table.cells[self.item_cell]]
        self.dead = (total - self.item_w <= CANCEL * total) & (e == 0)  # β̃ = 0
        self.dead_rows = self.item_rows @ self.dead > 0

    def widths(self):
        """Per class, (ln D, ln B) half widths of the interpolation intervals: twice the
        largest first Newton step of its documents from the full fit (at least 1e-6)."""
        K = self.stats.n_classes
        c, B0, t0, s0 = self.codes, self.B0, self.t0, self.s0
        D0, b0 = np.exp(t0), np.exp(self.u0)
        # The items at the full fit's root of their cell (g = D0 there): g̃ = D0 − w h_x.
        k, owner = _ranges(self.item_x)
        ic = self.item_cell
        bi, wi, Di = b0[ic], self.item_w, D0[self.cell_cls[ic]]
        inv = 1.0 / (bi[owner] + k)
        h = np.bincount(owner, inv, ic.size)
        h1 = -np.bincount(owner, inv * inv, ic.size)
        g = np.maximum(Di - wi * h, CANCEL * Di)
        s = bi * (s0[ic] * Di / bi - wi * h1) / g
        A = self.item_rows @ (bi * (np.log(Di) - np.log(g)) / s)
        Q = self.item_rows @ (bi / s)
        D = D0[c]
        Bt = -self.SA / D + np.bincount(self.cell_cls, b0 / s0, K)[c]
        Bt -= self.item_rows @ (b0 / s0)[ic]
        B = B0[c] + (self.SA - self.S[c]) / D
        den1 = self.stats.den_prime(B0)[c]
        w, n = self.w, self.length
        F0 = den1 * (B - B0[c]) - w * (digamma(B + n) - digamma(B))
        FB = den1 - w * (trigamma(B + n) - trigamma(B))
        dt = -(F0 + FB * A) / (FB * (Bt + Q) - D)
        dB = (B - B0[c] + A + (Bt + Q) * dt) / B0[c]
        self.guess = t0[c] + np.nan_to_num(dt)  # where each row's Newton iteration starts
        half = np.zeros((K, 2))
        with np.errstate(invalid="ignore"):  # a step beyond B = 0: the widest interval
            np.maximum.at(half, c, 2.0 * np.abs(np.column_stack([dt, np.log1p(dB)])))
        return np.clip(np.nan_to_num(half, nan=_HALF_WIDTH), 1e-6, _HALF_WIDTH)

    def solve(self, rows, centre, half, nodes):
        """Scores of ``rows`` (their classes' intervals of ``nodes`` nodes), whether each was
        solved inside its class's intervals, and the (ln D, ln B) each reached."""
        tab, K = self.table, self.stats.n_classes
        x, to_coef = _chebyshev(nodes)
        classes = np.zeros(K, dtype=bool)
        classes[self.codes[rows]] = True
        # The complex cells of these classes at the nodes in ln D, from their slopes there.
        pos = np.flatnonzero(classes[self.cell_cls])
        pc = self.cell_cls[pos]
        t = centre[pc, :1] + half[pc, :1] * x
        start = self.u0[pos, None] + (t - self.t0[pc, None]) / self.s0[pos, None]
        u = _roots(tab.functions(pos).tile(nodes), start.ravel(), t.ravel())
        u = u.reshape(-1, nodes)
        cells = np.zeros((tab.cells.size, nodes))
        cells[pos] = np.exp(u) @ to_coef.T
        per_class = np.zeros((K, nodes))
        np.add.at(per_class, pc, cells[pos])
        # The items of these rows, from their cell's root at every node: their roots less
        # the cell's, and their part of the score.
        every = rows.size == self.codes.size
        mine = self.item_rows if every else self.item_rows[rows]
        its = np.zeros(self.item_cell.size, dtype=bool)
        its[mine.indices] = True
        its = np.flatnonzero(its & ~self.dead)  # a dead item's root is 0
        at = np.full(tab.cells.size, -1)
        at[pos] = np.arange(pos.size)
        ic = self.item_cell[its]
        target = centre[self.cell_cls[ic], :1] + half[self.cell_cls[ic], :1] * x
        f = tab.functions(ic, self.item_x[its], self.item_w[its]).tile(nodes)
        bi = np.exp(_roots(f, u[at[ic]].ravel(), target.ravel()).reshape(-1, nodes))
        items = np.zeros((self.item_cell.size, 2 * nodes))
        items[self.dead, :nodes] = -cells[self.item_cell[self.dead]]
        items[its, :nodes] = (bi - np.exp(u[at[ic]])) @ to_coef.T
        items[its, nodes:] = log_rising(bi, self.item_x[its, None]) @ to_coef.T
        # den per class at the nodes in ln B.
        lt = self.stats.lengths
        keep = classes[lt.cls]
        lc = lt.cls[keep]
        B = np.exp(centre[lc, 1:] + half[lc, 1:] * x)
        den = np.zeros((K, nodes))
        np.add.at(den, lc, lt.weight[keep, None] * _rising_digamma(B, lt.length[keep, None]))
        c = self.codes[rows]
        both = mine @ items
        total = per_class[c] + both[:, :nodes]
        return self._newton(rows, total, both[:, nodes:], (den @ to_coef.T)[c], centre[c], half[c])

    def _newton(self, rows, total, logs, den, centre, half):
        """Newton's method in t = ln D for every row, the series of its B (less the closed
        form's S / D), of its items' score and of den given (on the intervals ``centre`` ±
        ``half``); the score, whether solved, and the (ln D, ln B) reached."""
        t0, lb0, hD, hB = centre[:, 0], centre[:, 1], half[:, 0], half[:, 1]
        SA, w, n, r = self.SA[rows], self.w[rows], self.length[rows], self.r
        slope, den_slope = cheb.chebder(total, axis=1), cheb.chebder(den, axis=1)
        t = np.clip(self.guess[rows], t0 - hD, t0 + hD)
        moved, at = np.full(rows.size, np.inf), np.arange(rows.size)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for _ in range(_ITERATIONS):
                ta, ha = t[at], hD[at]
                D = np.exp(ta)
                E, E1 = _series(total[at], slope[at], (ta - t0[at]) / ha)
                B = SA[at] / D + E
                Bt = -SA[at] / D + E1 / ha
                g, g1 = _series(den[at], den_slope[at], (np.log(B) - lb0[at]) / hB[at])
                wa, na = w[at], n[at]
                F = g - wa * (digamma(B + na) - digamma(B)) + r - D
                Ft = (g1 / (hB[at] * B) - wa * (trigamma(B + na) - trigamma(B))) * Bt - D
                # Not far beyond the interval, where the series would be wild: a row pinned
                # there is taken again on an interval about where it stopped.
                bound = t0[at] + np.clip(ta - F / Ft - t0[at], -1.5 * ha, 1.5 * ha)
                moved[at] = np.abs(bound - ta)
                t[at] = bound
                going = ~(moved[at] <= _SETTLED)
                if not going.any():
                    break
                at = at[going]
            xd = (t - t0) / hD
            D = np.exp(t)
            B = SA / D + cheb.chebval(xd, total.T, tensor=False)
            xb = (np.log(B) - lb0) / hB
            done = (moved <= _SETTLED) & (np.abs(xd) <= 1.0) & (np.abs(xb) <= 1.0) & (B > 0)
            score = self.closed[rows] - self.n_closed[rows] * t
            score += cheb.chebval(xd, logs.T, tensor=False)
            score[self.dead_rows[rows]] = -np.inf
            score -= log_rising(np.where(B > 0, B, 1.0), n)
            reached = np.column_stack([t, np.log(B)])
        return score, done & ~np.isnan(score), reached


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
