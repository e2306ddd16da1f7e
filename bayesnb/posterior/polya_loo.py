"""Leave-one-out of the Pólya MAP, one document at a time, from the full fit in O(its words).

At the optimum of ``ℓ_c(β) + Σ_j (e ln β_j − r β_j)`` every cell solves one equation in the
single number ``D = den(B) + r`` shared by its class (:mod:`bayesnb.posterior.polya`):

    g_j(β_j) = num_j(β_j) + e / β_j = D,

so each β_j is a decreasing function β_j(D) of D alone. A cell whose counts are all 1, in n
documents (or without data: n = 0), has the closed form β_j(D) = (n + e) / D. Removing
document i (weight w, length n_i) changes the equations of its own cells and den only; the
refit's optimum solves, in D,

    D = den(B) − w [ψ(B + n_i) − ψ(B)] + r,
    B = S / D + C(D) − a_i / D + Σ_{p ∈ i's other cells} [β_p(D) − β_p^full(D)],

with S = Σ (n + e) over the closed-form cells of the class, a_i the weight i takes from its
closed-form cells, C(D) = Σ β_j(D) over the other cells of the class, and β_p(D) the root of
i's downdated cell equation

    g_p(β) = Σ_{k<L} (R_k − w [k < x]) / (β + k) + e / β = D

(R_k the cell's weight of counts above k, L its largest count, x the count of i). That root
depends on the cell, x and w only, not on the row: it is found once for every distinct
(cell, x, w) by Newton's method at the full fit's D (the cell's own part, the first sum
without the row, by its third-order expansion about the full fit where the row holds a small
share of the cell). C, β^full, the β_p and den are expanded to third order about the full
fit (their derivatives from the implicit equations: β' = 1/g', β'' = −g'' β'³,
β''' = −g''' β'⁴ + 3 g''² β'⁵), which leaves one scalar Newton iteration in D per row. A
cell the row empties has β_p = e / D exactly. The change of D is of the order of one
document's share of the class, so the expansion is exact far below the fit's tolerance on a
class of many documents; a row whose next neglected term is not below the caller's
``precision`` (a small class) is flagged for a full refit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import digamma, polygamma

from bayesnb.posterior._special import trigamma
from bayesnb.posterior.polya_stats import PolyaStats
from bayesnb.scoring.discrete import log_rising
from bayesnb.stats.discrete import CANCEL

__all__ = ["polya_leave_one_out"]

# Cells whose largest count is above this are not expanded into their k < v terms: a
# document holding one makes its row fall back to the caller's full refit.
_LONGEST = 256
_ITERATIONS = 40
# The Newton iterations stop when no relative change is above this: the convergence is
# quadratic, so the point reached is off by about its square.
_SETTLED = 1e-9


def _cell_derivatives(beta_cells, v, w, cells, n_cells, e):
    """g', g'', g''' of every cell's g at β (the entries' ψ^(m)(β + v) − ψ^(m)(β),
    m = 1, 2, 3)."""
    b = beta_cells[cells]
    p1 = np.bincount(cells, w * (trigamma(b + v) - trigamma(b)), n_cells)
    p2 = np.bincount(cells, w * (polygamma(2, b + v) - polygamma(2, b)), n_cells)
    p3 = np.bincount(cells, w * (polygamma(3, b + v) - polygamma(3, b)), n_cells)
    bc = beta_cells
    return p1 - e / bc**2, p2 + 2.0 * e / bc**3, p3 - 6.0 * e / bc**4


def _root_derivatives(g1, g2, g3):
    """β', β'', β''' of the root β(D) of g(β) = D from g', g'', g''' at it."""
    d1 = 1.0 / g1
    d3 = d1 * d1 * d1  # products: ** of an array is a slow pow()
    return d1, -g2 * d3, (3.0 * g2 * g2 * d1 - g3) * d3 * d1


def polya_leave_one_out(
    stats: PolyaStats,
    beta: np.ndarray,
    shape_extra: float,
    rate: float,
    Xs,
    codes: np.ndarray,
    weights: np.ndarray,
    precision: float,
):
    """log p(x_i | class y_i without i) under the refit's MAP, for the rows of ``Xs``.

    Parameters
    ----------
    stats : PolyaStats
        The full statistics; ``beta`` (K, V) their optimum (``shape_extra = e``, ``rate = r``,
        r > 0).
    Xs : csr_matrix of shape (n, V)
        The documents (non-empty, weight ≠ 0), ``codes`` their classes, ``weights`` theirs.
    precision : float
        The largest relative size of the neglected terms a row may have.

    Returns
    -------
    score : ndarray of shape (n,)
    ok : ndarray of bool, shape (n,)
        Rows solved to ``precision``; the others need a full refit.
    """
    K, V = stats.shape
    e, r = float(shape_extra), float(rate)
    vt, lt = stats.values, stats.lengths
    flat = vt.cls * V + vt.feature
    size = K * V
    bflat = beta.ravel()
    is_complex = np.bincount(flat, weights=(vt.value != 1.0), minlength=size) > 0
    ones = np.bincount(flat, weights=np.where(vt.value == 1.0, vt.weight, 0.0), minlength=size)
    tot = np.bincount(flat, weights=vt.weight, minlength=size)
    longest = np.zeros(size)
    np.maximum.at(longest, flat, vt.value)
    # -- the class: S, C and den about the full fit ------------------------------------------
    B0 = beta.sum(axis=1)
    den0 = stats.den(B0)
    D0 = den0 + r
    cx = np.flatnonzero(is_complex)
    cx_pos = np.full(size, -1, dtype=np.intp)
    cx_pos[cx] = np.arange(cx.size)
    sel = is_complex[flat]
    cell_g = _cell_derivatives(
        bflat[cx], vt.value[sel], vt.weight[sel], cx_pos[flat[sel]], cx.size, e
    )
    cell_d = _root_derivatives(*cell_g)
    cx_cls = cx // V
    C = [np.bincount(cx_cls, d, K) for d in (bflat[cx], *cell_d)]
    n_simple = V - np.bincount(cx_cls, None, K)  # with the cells without data
    S = np.bincount(vt.cls, np.where(is_complex[flat], 0.0, vt.weight), K) + e * n_simple
    Lb = B0[lt.cls]
    den = [den0] + [
        np.bincount(lt.cls, lt.weight * (polygamma(m, lt.length + Lb) - polygamma(m, Lb)), K)
        for m in (1, 2, 3)
    ]
    docs = stats.documents()
    # Per cell: 0 the closed form, 1 another, 2 one with a count above _LONGEST.
    kind = is_complex.astype(np.int8) + (longest > _LONGEST)
    # -- the rows ------------------------------------------------------------------------------
    n = Xs.shape[0]
    w = np.asarray(weights, dtype=np.float64)
    row = np.repeat(np.arange(n), np.diff(Xs.indptr))
    x = Xs.data
    f = codes[row] * V + Xs.indices
    length = np.bincount(row, x, n)
    kinds = kind[f]
    n_simple_row = np.bincount(row, kinds == 0, n)
    a = w * n_simple_row
    ok = (docs[codes] - w > CANCEL * docs[codes]) & (np.bincount(row, kinds == 2, n) == 0)
    # -- the row's other cells, by distinct (cell, count, weight) ----------------------------
    pr = np.flatnonzero(kinds == 1)
    p_row = row[pr]
    u_f, u_x, u_w, inv = _distinct(cx, cx_pos[f[pr]], x[pr], w, p_row)
    emptied = tot[u_f] - u_w <= CANCEL * tot[u_f]  # no other document: β = e / D
    pos = cx_pos[u_f]
    ud, settled = _item_roots(
        pos, u_x, u_w, emptied, bflat[u_f], [g[pos] for g in cell_g], D0[u_f // V],
        (cx_pos[flat[sel]], vt.value[sel], vt.weight[sel]), e, precision,
    )  # fmt: skip
    # Per row: Σ_p [β_p − β_p^full] and its derivatives in D (emptied cells: −β_p^full, their
    # e / D joins S), the sizes of the neglected terms below, and the unsettled and emptied
    # cells: the sums of per-item values over the row's items, one sparse product (the
    # entries are in row order).
    full = [bflat[u_f]] + [d[cx_pos[u_f]] for d in cell_d]
    change = [np.where(emptied, 0.0, b) - fb for b, fb in zip(ud, full, strict=True)]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(emptied, 0.0, np.abs(ud[3] / ud[0]))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(p_row, minlength=n))])
    per_row = sp.csr_matrix((np.ones(inv.size), inv, indptr), shape=(n, u_f.size))
    sums = per_row @ np.column_stack([*change, np.abs(ud[3]), u_x * ratio, ~settled, emptied])
    cls = codes
    Sa = S[cls] - a + e * sums[:, 7]
    rows_C = [c[cls] + sums[:, m] for m, c in enumerate(C)]
    good = sums[:, 6] == 0
    D, moved = _solve_rows(Sa, rows_C, [d[cls] for d in den], D0[cls], B0[cls], w, length,
                           ok & good, r)  # fmt: skip
    dD = D - D0[cls]
    B = Sa / D + _taylor(dD, *rows_C)
    dBs = B - B0[cls]
    # The size of the first neglected terms, relative to B, to D and to the score (through
    # the row's β_p, d ln Γ(β + x) − ln Γ(β) ≤ x dβ / β): the last ones times the relative
    # change.
    rel_d = np.abs(dD) / D0[cls]
    rel_b = np.abs(dBs) / B0[cls]
    third = np.abs(C[3][cls]) + sums[:, 4]
    own = sums[:, 5]
    cubed = np.abs(dD) ** 3 / 6 * rel_d
    neglected = cubed * third / B + np.abs(den[3][cls] * dBs**3 / 6) * rel_b / D
    ok &= good & (moved <= _SETTLED) & (neglected <= precision) & (B > 0) & np.isfinite(B)
    # Score: the closed-form cells (a count of 1: ln Γ(β + 1) − ln Γ(β) = ln β) at the new D,
    # Σ ln(left + e) − ln D each; the others at their roots. Rows with a count above
    # _LONGEST are refitted (not ok).
    at = np.flatnonzero(kinds == 0)
    fs, rs = f[at], row[at]
    left = ones[fs] - w[rs]
    left[np.abs(left) <= CANCEL * ones[fs]] = 0.0  # the row was the cell's only document
    bp = np.where(emptied[inv], e / D[p_row], _taylor(dD[p_row], *(b[inv] for b in ud)))
    xp = x[pr]
    with np.errstate(divide="ignore", invalid="ignore"):
        closed = np.bincount(rs, np.log(left + e), n) - n_simple_row * np.log(D)
        terms = np.log(bp)
        big = np.flatnonzero(xp != 1.0)
        terms[big] = log_rising(bp[big], xp[big])
        terms[bp <= 0] = -np.inf
    score = closed + np.bincount(p_row, terms, n) - log_rising(np.where(B > 0, B, 1.0), length)
    ok &= cubed * own <= precision * np.abs(score)
    return score, ok


def _distinct(cx, cell_pos, count, w, row):
    """The distinct (cell, count, weight) of the items: cells (of ``cx``), counts and
    weights, and every item's one."""
    weights, w_code = np.unique(w, return_inverse=True)  # of the rows, not the items
    span = np.int64(weights.size)
    key = (cell_pos.astype(np.int64) * (_LONGEST + 1) + count.astype(np.int64)) * span
    # A hash table: O(items), no sort (sized for the distinct ones being far fewer: a table
    # of every item is slower to fill, cache misses; it grows when they are not).
    inv, distinct = pd.factorize(key + w_code[row], size_hint=key.size // 8)
    cell, code = np.divmod(distinct, span)
    cell, count = np.divmod(cell, _LONGEST + 1)
    return cx[cell], count.astype(np.float64), weights[code], inv


def _item_roots(pos, x, w, emptied, b0, G, target, entries, e, precision):
    """β, β', β'', β''' of every item's root β_p(D) of g_p(β) = G(β) − w Σ_{k<x} 1/(β + k) = D
    at the full fit's D (``target``), and whether each has settled (the emptied: zeros).

    The cell's G is taken by its third-order expansion about the full fit (G(b0) = D, its
    derivatives ``G``) where the item holds a small share of the cell (β barely moves), else
    exactly from the cell's tail sums R_k = Σ_{v > k} weight (k < its largest count).
    """
    live = ~emptied
    own_k, own = _terms(np.where(live, x, 0.0))
    h0 = np.bincount(own, 1.0 / (b0[own] + own_k), b0.size)
    shift = w * h0 / np.abs(G[0])  # first-order change of β
    exact = live & (np.abs(G[2]) * shift**4 / 6 / b0 > precision * target)
    tail_k, tail_item, tail = _tails(*entries, pos, exact)
    poly = [np.where(exact, 0.0, c) for c in (target, *G)]
    coef = np.concatenate([-w[own], tail])
    k = np.concatenate([own_k, tail_k])
    item = np.concatenate([own, tail_item])
    # Quadratic convergence: a last step below √precision / 10 leaves β off by about its
    # square, a hundredth of precision.
    settle = np.sqrt(precision) / 10
    return _roots(poly, np.where(exact, e, 0.0), coef, k, item, b0, target, live, settle)


def _terms(counts):
    """``(k, item)``: k = 0 … count − 1 for every item (the terms of Σ_{k<count})."""
    reps = np.asarray(counts).astype(np.intp)
    ends = np.cumsum(reps)
    k = np.arange(ends[-1] if ends.size else 0) - np.repeat(ends - reps, reps)
    return k.astype(np.float64), np.repeat(np.arange(reps.size), reps)


def _tails(cell, value, weight, want_pos, want):
    """``(k, item, R_k)`` for k < the largest count of the cells ``want_pos[want]`` (positions
    among the complex cells, of the entries ``cell``, ``value``, ``weight``)."""
    # Per complex cell, the weights by value, then suffix sums: a table (cells × longest).
    keep = value <= _LONGEST
    cell, value, weight = cell[keep], value[keep].astype(np.intp), weight[keep]
    width = int(value.max()) + 2 if value.size else 2
    cells = int(cell.max()) + 1 if cell.size else 1
    table = np.bincount(cell * width + value, weight, cells * width).reshape(cells, width)
    suffix = np.cumsum(table[:, ::-1], axis=1)[:, ::-1]  # suffix[c, v] = Σ_{v' ≥ v}
    longest = np.zeros(cells)
    np.maximum.at(longest, cell, value)
    wanted = np.where(want, want_pos, 0)
    k, item = _terms(np.where(want, longest[wanted], 0.0))
    return k, item, suffix[wanted[item], k.astype(np.intp) + 1]


def _roots(poly, e, coef, k, item, start, target, live, settle):
    """The roots of g(β) = ``target`` of the ``live`` items by Newton's method in ln β from
    ``start``, g(β) = poly(β − start) + Σ coef / (β + k) + e / β (poly: a cubic's f, f', f'',
    f''' at 0); β, β', β'', β''' of their root in D there, and whether each has settled (last
    step at most ``settle``). The items still moving are taken apart when they are fewer
    than half."""
    b = start.copy()
    moved = np.where(live, np.inf, 0.0)
    every = (poly, e, start, target, coef, k, item, b.size)
    at, sub = np.arange(b.size), every  # the items iterated, and their terms
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(_ITERATIONS):
            g, g1 = _g(sub, b[at], 2)
            rel = np.clip(-(g - sub[3]) / (g1 * b[at]), -5.0, 5.0)
            rel[~live[at]] = 0.0
            b[at] *= np.exp(rel)
            moved[at] = np.abs(rel)
            going = ~(moved[at] <= settle)
            if not going.any():
                break
            if going.sum() * 2 < going.size:
                sub = _items(np.flatnonzero(going), *sub)
                at = at[going]
        roots = _root_derivatives(*_g(every, b, 4)[1:])
    return [np.where(live, v, 0.0) for v in (b, *roots)], moved <= settle


def _items(keep, poly, e, start, target, coef, k, item, n):
    """The items ``keep`` of these, renumbered: ``(poly, e, start, target, coef, k, item,
    n)``."""
    new = np.full(n, -1)
    new[keep] = np.arange(keep.size)
    terms = new[item] >= 0
    return ([c[keep] for c in poly], e[keep], start[keep], target[keep], coef[terms],
            k[terms], new[item[terms]], keep.size)  # fmt: skip


def _g(items, b, orders):
    """g and its first ``orders − 1`` derivatives at β = ``b`` (see :func:`_roots`)."""
    poly, e, start, _, coef, k, item, n = items
    d = b - start
    t = 1.0 / (b[item] + k)
    tb = 1.0 / b
    out, tm, ebm, sign, fact = [], t, e * tb, 1.0, 1.0
    for m in range(orders):
        tail = poly[m:] + [0.0] * m  # the cubic's m-th derivative
        out.append(_taylor(d, *tail) + sign * fact * (np.bincount(item, coef * tm, n) + ebm))
        tm, ebm, sign, fact = tm * t, ebm * tb, -sign, fact * (m + 1)
    return out


def _solve_rows(Sa, C, den, D0, B0, w, length, live, r):
    """Newton's method on every ``live`` row's D, from the full fit's: D and the last
    relative change of every row."""
    D = D0.copy()
    moved = np.where(live, np.inf, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(_ITERATIONS):
            dD = D - D0
            B = Sa / D + _taylor(dD, *C)
            B_D = -Sa / (D * D) + _taylor_slope(dD, *C[1:])
            dBs = B - B0
            F = _taylor(dBs, *den) - w * (digamma(B + length) - digamma(B)) + r - D
            den1 = _taylor_slope(dBs, *den[1:]) - w * (trigamma(B + length) - trigamma(B))
            going = moved > _SETTLED
            step = np.where(going, -F / (den1 * B_D - 1.0), 0.0)
            D = D + step
            moved = np.where(going, np.abs(step) / D, moved)
            if not np.any(moved > _SETTLED):
                break
    return D, moved


def _taylor(x, f0, f1, f2, f3):
    """The third-order expansion f0 + f1 x + f2 x²/2 + f3 x³/6."""
    return f0 + x * (f1 + x * (f2 / 2 + x * (f3 / 6)))


def _taylor_slope(x, f1, f2, f3):
    """Its derivative in x."""
    return f1 + x * (f2 + x * (f3 / 2))
