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
(cell, x, w) by Newton's method at the full fit's D. C, β^full, the β_p and den are expanded
to third order about the full fit (their derivatives from the implicit equations:
β' = 1/g', β'' = −g'' β'³, β''' = −g''' β'⁴ + 3 g''² β'⁵), which leaves one scalar Newton
iteration in D per row. A cell the row empties has β_p = e / D exactly. The change of D is of
the order of one document's share of the class, so the expansion is exact far below the
fit's tolerance on a class of many documents; a row whose next neglected term is not below
the caller's ``precision`` (a small class) is flagged for a full refit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
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
    """β', β'', β''' of every cell's root β(D) of g(β) = D, from the derivatives of g at β
    (the entries' ψ^(m)(β + v) − ψ^(m)(β), m = 1, 2, 3)."""
    b = beta_cells[cells]
    p1 = np.bincount(cells, w * (trigamma(b + v) - trigamma(b)), n_cells)
    p2 = np.bincount(cells, w * (polygamma(2, b + v) - polygamma(2, b)), n_cells)
    p3 = np.bincount(cells, w * (polygamma(3, b + v) - polygamma(3, b)), n_cells)
    bc = beta_cells
    return _root_derivatives(p1 - e / bc**2, p2 + 2.0 * e / bc**3, p3 - 6.0 * e / bc**4)


def _root_derivatives(g1, g2, g3):
    """β', β'', β''' of the root β(D) of g(β) = D from g', g'', g''' at it."""
    d1 = 1.0 / g1
    return d1, -g2 * d1**3, -g3 * d1**4 + 3.0 * g2**2 * d1**5


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
    cell_d = _cell_derivatives(
        bflat[cx], vt.value[sel], vt.weight[sel], cx_pos[flat[sel]], cx.size, e
    )
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
    # -- the rows ------------------------------------------------------------------------------
    n = Xs.shape[0]
    w = np.asarray(weights, dtype=np.float64)
    row = np.repeat(np.arange(n), np.diff(Xs.indptr))
    x = Xs.data
    f = codes[row] * V + Xs.indices
    wr = w[row]
    length = np.bincount(row, x, n)
    simple = ~is_complex[f]
    a = np.bincount(row[simple], wr[simple], n)
    too_long = longest[f] > _LONGEST
    ok = (docs[codes] - w > CANCEL * docs[codes]) & ~np.bincount(row, too_long, n).astype(bool)
    # -- the row's other cells, by distinct (cell, count, weight) ----------------------------
    pr = np.flatnonzero(~simple & ~too_long)
    p_row = row[pr]
    u_f, u_x, u_w, inv = _distinct(cx, cx_pos[f[pr]], x[pr], w, p_row)
    emptied = tot[u_f] - u_w <= CANCEL * tot[u_f]  # no other document: β = e / D
    coef, t_k, t_u = _coefficients(flat[sel], vt.value[sel], vt.weight[sel], cx_pos, u_f, u_x, u_w)
    target = D0[u_f // V]
    ud, settled = _roots(coef, t_k, t_u, bflat[u_f], target, e, ~emptied)
    # Per row: Σ_p [β_p − β_p^full] and its derivatives in D (emptied cells: −β_p^full, their
    # e / D joins S).
    full = [bflat[u_f]] + [d[cx_pos[u_f]] for d in cell_d]
    change = [np.where(emptied, 0.0, b) - fb for b, fb in zip(ud, full, strict=True)]
    cls = codes
    Sa = S[cls] - a + e * np.bincount(p_row, emptied[inv], n)
    rows_C = [c[cls] + np.bincount(p_row, d[inv], n) for c, d in zip(C, change, strict=True)]
    good = np.bincount(p_row, ~settled[inv], n) == 0
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
    third = np.abs(C[3][cls]) + np.bincount(p_row, np.abs(ud[3])[inv], n)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(emptied, 0.0, np.abs(ud[3] / ud[0]))
    own = np.bincount(p_row, x[pr] * ratio[inv], n)
    cubed = np.abs(dD) ** 3 / 6 * rel_d
    neglected = cubed * third / B + np.abs(den[3][cls] * dBs**3 / 6) * rel_b / D
    ok &= good & (moved <= _SETTLED) & (neglected <= precision) & (B > 0) & np.isfinite(B)
    # Score: the closed-form cells at the new D, the others at their roots.
    beta_i = np.empty(x.size)
    fs = f[simple]
    left = ones[fs] - wr[simple]
    left[np.abs(left) <= CANCEL * ones[fs]] = 0.0  # the row was the cell's only document
    beta_i[simple] = (left + e) / D[row[simple]]
    beta_i[pr] = np.where(emptied[inv], e / D[p_row], _taylor(dD[p_row], *(b[inv] for b in ud)))
    beta_i[too_long] = 1.0  # rows refitted in full (not ok)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.log(beta_i)  # ln Γ(β + 1) − ln Γ(β) for a count of 1, most entries
        big = np.flatnonzero(x != 1.0)
        terms[big] = log_rising(beta_i[big], x[big])
        terms[beta_i <= 0] = -np.inf
    score = np.bincount(row, terms, n) - log_rising(np.where(B > 0, B, 1.0), length)
    ok &= cubed * own <= precision * np.abs(score)
    return score, ok


def _distinct(cx, cell_pos, count, w, row):
    """The distinct (cell, count, weight) of the items: cells (of ``cx``), counts and
    weights, and every item's one."""
    weights, w_code = np.unique(w, return_inverse=True)  # of the rows: few
    span = np.int64(weights.size)
    key = (cell_pos.astype(np.int64) * (_LONGEST + 1) + count.astype(np.int64)) * span
    # A hash table (the items are many, the distinct ones few): no sort.
    inv, distinct = pd.factorize(key + w_code[row])
    cell, code = np.divmod(distinct, span)
    cell, count = np.divmod(cell, _LONGEST + 1)
    return cx[cell], count.astype(np.float64), weights[code], inv


def _coefficients(cell, value, weight, cx_pos, want_cell, want_x, want_w):
    """``(coef, k, item)``: the terms coef / (β + k), k < the cell's largest count, of
    g_p(β) − e / β for every wanted (cell, count x, weight w): coef = R_k − w [k < x]."""
    # Per complex cell, the weights by value, then suffix sums: a table (cells × longest).
    keep = value <= _LONGEST
    width = int(value[keep].max()) + 2 if keep.any() else 2
    cells = int(cx_pos.max()) + 1 if cx_pos.size else 1
    table = np.bincount(
        cx_pos[cell[keep]] * width + value[keep].astype(np.intp), weight[keep], cells * width
    ).reshape(cells, width)
    suffix = np.cumsum(table[:, ::-1], axis=1)[:, ::-1]  # suffix[c, v] = Σ_{v' ≥ v}
    longest = np.zeros(cells, dtype=np.intp)
    np.maximum.at(longest, cx_pos[cell[keep]], value[keep].astype(np.intp))
    pos = cx_pos[want_cell]
    reps = longest[pos]
    ends = np.cumsum(reps)
    item = np.repeat(np.arange(reps.size), reps)
    k = np.arange(ends[-1] if ends.size else 0) - np.repeat(ends - reps, reps)
    tail = suffix[pos[item], k + 1]  # R_k = Σ_{v > k}
    own = np.where(k < want_x[item], want_w[item], 0.0)
    coef = tail - own
    coef[np.abs(coef) <= CANCEL * np.abs(tail)] = 0.0
    return coef, k.astype(np.float64), item


def _sums(coef, k, item, beta, power):
    """Σ coef / (β + k)^power per item."""
    return np.bincount(item, coef / (beta[item] + k) ** power, beta.size)


def _roots(coef, k, item, start, target, e, live):
    """The roots of g(β) = ``target`` of the ``live`` items (Newton's method in ln β from
    ``start``), and β, β', β'', β''' of their root in D there; whether each has settled."""
    b = start.copy()
    settled = ~live
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(_ITERATIONS):
            t = 1.0 / (b[item] + k)
            g = np.bincount(item, coef * t, b.size) + e / b
            g1 = -np.bincount(item, coef * t * t, b.size) - e / b**2
            rel = np.clip(-(g - target) / (g1 * b), -5.0, 5.0)
            rel[settled] = 0.0
            b *= np.exp(rel)
            settled |= np.abs(rel) <= _SETTLED
            if settled.all():
                break
        g1 = -_sums(coef, k, item, b, 2) - e / b**2
        g2 = 2.0 * _sums(coef, k, item, b, 3) + 2.0 * e / b**3
        g3 = -6.0 * _sums(coef, k, item, b, 4) - 6.0 * e / b**4
        d = _root_derivatives(g1, g2, g3)
    return [np.where(live, v, 0.0) for v in (b, *d)], settled


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
