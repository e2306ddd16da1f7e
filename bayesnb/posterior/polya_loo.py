"""Leave-one-out of the Pólya MAP, one document at a time, from the full fit in O(its words).

At the optimum of ``ℓ_c(β) + Σ_j (e ln β_j − r β_j)`` every cell solves one equation in the
single number ``D = den(B) + r`` shared by its class (:mod:`bayesnb.posterior.polya`):

    g_j(β_j) = num_j(β_j) + e / β_j = D,

so each β_j is a decreasing function β_j(D) of D alone. A cell whose counts are all 1, in n
documents (or without data: n = 0), has the closed form β_j(D) = (n + e) / D. Removing
document i (weight w, length n_i) changes the equations of its own cells and den only; the
refit's optimum solves, in D,

    D = den(B) − w [ψ(B + n_i) − ψ(B)] + r,
    B = S / D + C(D) − a_i / D + Σ_{p ∈ i's other cells} [β_p − β_p^full(D)],

with S = Σ (n + e) over the closed-form cells of the class, a_i the weight i takes from its
closed-form cells, C(D) = Σ β_j(D) over the other cells of the class, and β_p the root of
i's downdated cell equation g_p(β_p) = D. C, β^full and den are expanded to third order about
the full fit (their derivatives from the implicit equations: β' = 1/g', β'' = −g'' β'³,
β''' = −g''' β'⁴ + 3 g''² β'⁵); D and the β_p are found by Newton's method. The change of D
is of the order of one document's share of the class, so the expansion is exact far below
the fit's tolerance on a class of many documents; a row whose next neglected term is not
below the caller's ``precision`` (a small class) is flagged for a full refit.
"""

from __future__ import annotations

import numpy as np
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
    """The derivatives g', g'', g''' of every cell's g at β and those of its root β(D) of
    g(β) = D: β', β'', β''' (from the entries' ψ^(m)(β + v) − ψ^(m)(β), m = 1, 2, 3)."""
    b = beta_cells[cells]
    p1 = np.bincount(cells, w * (trigamma(b + v) - trigamma(b)), n_cells)
    p2 = np.bincount(cells, w * (polygamma(2, b + v) - polygamma(2, b)), n_cells)
    p3 = np.bincount(cells, w * (polygamma(3, b + v) - polygamma(3, b)), n_cells)
    bc = beta_cells
    g1 = p1 - e / bc**2
    g2 = p2 + 2.0 * e / bc**3
    g3 = p3 - 6.0 * e / bc**4
    d1 = 1.0 / g1
    d2 = -g2 * d1**3
    d3 = -g3 * d1**4 + 3.0 * g2**2 * d1**5
    return (d1, d2, d3), (g1, g2, g3)


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
    (d1, d2, d3), (g1, g2, g3) = _cell_derivatives(
        bflat[cx], vt.value[sel], vt.weight[sel], cx_pos[flat[sel]], cx.size, e
    )
    cx_cls = cx // V
    C0 = np.bincount(cx_cls, bflat[cx], K)
    C1, C2, C3 = (np.bincount(cx_cls, d, K) for d in (d1, d2, d3))
    n_simple = V - np.bincount(cx_cls, None, K)  # with the cells without data
    S = np.bincount(vt.cls, np.where(is_complex[flat], 0.0, vt.weight), K) + e * n_simple
    Lb = B0[lt.cls]
    den_d = [
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
    # The row's other cells: g_p(β) = G(β) − w Σ_{k<x} 1/(β + k), G the full cell's g: by
    # its third-order expansion about the full fit where the row holds a small share of the
    # cell (a frequent word: β barely moves), else exactly from the cell's tail sums
    # R_k = Σ_{v > k} weight (O(the cell's largest count)).
    pr = np.flatnonzero(~simple & ~too_long)
    p_row, p_f, p_x, p_w = row[pr], f[pr], x[pr], wr[pr]
    b0 = bflat[p_f]
    pd = [d[cx_pos[p_f]] for d in (d1, d2, d3)]
    pg = [g[cx_pos[p_f]] for g in (g1, g2, g3)]
    emptied = tot[p_f] - p_w <= CANCEL * tot[p_f]  # no other document: β = e / D
    own_k, own_p = _terms(p_x - 1.0)
    own_k += 1.0  # k = 1 … x − 1 (k = 0 is taken apart in _g)
    h0 = 1.0 / b0 + np.bincount(own_p, 1.0 / (b0[own_p] + own_k), pr.size)
    shift = p_w * h0 / np.abs(pg[0])  # first-order change of β
    exact = ~emptied & (np.abs(pg[2]) * shift**4 / 6 / b0 > precision * D0[codes[p_row]])
    ex = np.flatnonzero(exact)
    tail_k, tail_p = _terms(longest[p_f[ex]])
    tail = _tails(flat[sel], vt.value[sel], vt.weight[sel], cx_pos, p_f[ex][tail_p], tail_k)
    cls = codes
    rows = {
        "D": D0[cls].copy(), "D0": D0[cls], "Sa": S[cls] - a, "w": w, "length": length,
        "C": [c[cls] for c in (C0, C1, C2, C3)], "den": [d[cls] for d in (den0, *den_d)],
        "B0": B0[cls], "ok": ok,
    }  # fmt: skip
    pairs = {
        "row": p_row, "bp": b0.copy(), "b0": b0, "g0": D0[codes[p_row]], "pg": pg, "pd": pd,
        "w": p_w, "emptied": emptied,
    }  # fmt: skip
    ragged = (own_k, own_p, ex, tail, tail_k, tail_p)
    D, bp, moved, small = _newton(rows, pairs, ragged, e, r)
    B = _total(D, bp, rows, pairs)
    dD = D - D0[cls]
    dBs = B - B0[cls]
    converged = (moved <= _SETTLED) & small
    # The size of the first neglected terms, relative to B and to D.
    rel_d = np.abs(dD) / D0[cls]
    rel_b = np.abs(dBs) / B0[cls]
    neglected = (
        np.abs(C3[cls] * dD**3 / 6) * rel_d / B + np.abs(den_d[2][cls] * dBs**3 / 6) * rel_b / D
    )  # the next terms: the last ones times the relative change
    ok &= converged & (neglected <= precision) & (B > 0) & np.isfinite(B)
    # Score: the closed-form cells at the new D, the others at their roots.
    beta_i = np.empty(x.size)
    fs = f[simple]
    left = ones[fs] - wr[simple]
    left[np.abs(left) <= CANCEL * ones[fs]] = 0.0  # the row was the cell's only document
    beta_i[simple] = (left + e) / D[row[simple]]
    beta_i[pr] = bp
    beta_i[too_long] = 1.0  # rows refitted in full (not ok)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.log(beta_i)  # ln Γ(β + 1) − ln Γ(β) for a count of 1, most entries
        big = np.flatnonzero(x != 1.0)
        terms[big] = log_rising(beta_i[big], x[big])
        terms[beta_i <= 0] = -np.inf
    score = np.bincount(row, terms, n) - log_rising(np.where(B > 0, B, 1.0), length)
    return score, ok


def _total(D, bp, rows, pairs):
    """B of every row at D (the class's cells by their expansions, the row's exactly)."""
    dD = D - rows["D0"]
    full = _taylor(dD[pairs["row"]], pairs["b0"], *pairs["pd"])
    n = D.size
    return rows["Sa"] / D + _taylor(dD, *rows["C"]) + np.bincount(pairs["row"], bp - full, n)


def _newton(rows, pairs, ragged, e, r):
    """Newton's method on the equations of every row's D and of its cells' β_p
    (g_p(β_p) = D) together; the emptied cells follow β = e / D exactly. The rows still
    moving are taken apart when they are fewer than half: D and β_p of every row and cell,
    the last relative change of D and whether every β_p of the row has settled."""
    n, m = rows["D"].size, pairs["bp"].size
    D, bp = rows["D"].copy(), pairs["bp"].copy()
    moved, small = np.full(n, np.inf), np.zeros(n, dtype=bool)
    live_rows, live_pairs = np.arange(n), np.arange(m)
    R, P, G = rows, pairs, ragged
    for _ in range(_ITERATIONS):
        d, b, mv, sm = _step(R, P, G, D[live_rows], bp[live_pairs], e, r)
        D[live_rows], bp[live_pairs], moved[live_rows], small[live_rows] = d, b, mv, sm
        going = R["ok"] & ~((mv <= _SETTLED) & sm)
        if not going.any():
            break
        if going.sum() * 2 < going.size:  # take the rows still moving apart
            R, P, G, keep_pairs = _subset(R, P, G, going)
            live_rows, live_pairs = live_rows[going], live_pairs[keep_pairs]
    return D, bp, moved, small


def _step(R, P, G, D, bp, e, r):
    """One Newton step of :func:`_newton` on the rows R (their cells P, terms G)."""
    own_k, own_p, ex, tail, tail_k, tail_p = G
    n = D.size
    p_row, emptied = P["row"], P["emptied"]
    keep = ~emptied
    dD = D - R["D0"]
    dDp = dD[p_row]
    Dp = D[p_row]
    bp = bp.copy()
    bp[emptied] = e / Dp[emptied]
    with np.errstate(divide="ignore", invalid="ignore"):
        g, g1p = _g(
            bp, P["b0"], P["g0"], P["pg"], P["w"], own_k, own_p, ex, tail, tail_k, tail_p, e
        )
        inv = np.where(keep, 1.0 / g1p, 0.0)
        res = np.where(keep, g - Dp, 0.0)
    B = _total(D, bp, R, P)
    full_d = _taylor_slope(dDp, *P["pd"])
    B_D = (
        -R["Sa"] / (D * D)
        + _taylor_slope(dD, *R["C"][1:])
        + np.bincount(p_row, np.where(emptied, -e / (Dp * Dp), 0.0) - full_d + inv, n)
    )
    dBs = B - R["B0"]
    w, length = R["w"], R["length"]
    den = _taylor(dBs, *R["den"]) - w * (digamma(B + length) - digamma(B))
    den1 = _taylor_slope(dBs, *R["den"][1:]) - w * (trigamma(B + length) - trigamma(B))
    F = den + r - D
    step_D = (den1 * np.bincount(p_row, res * inv, n) - F) / (den1 * B_D - 1.0)
    step_D = np.where(R["ok"], step_D, 0.0)
    with np.errstate(invalid="ignore"):
        rel = np.clip((step_D[p_row] - res) * inv / bp, -5.0, 5.0)
    bp = bp * np.exp(rel)
    D = D + step_D
    small = np.bincount(p_row, np.abs(rel) > _SETTLED, n) == 0
    return D, bp, np.abs(step_D) / D, small


def _subset(R, P, G, going):
    """The rows ``going``, their cells and terms, renumbered."""
    own_k, own_p, ex, tail, tail_k, tail_p = G
    new_row = np.cumsum(going) - 1
    kp = going[P["row"]]
    new_pair = np.cumsum(kp) - 1
    R2 = {k: ([x[going] for x in v] if isinstance(v, list) else v[going]) for k, v in R.items()}
    P2 = {k: ([x[kp] for x in v] if isinstance(v, list) else v[kp]) for k, v in P.items()}
    P2["row"] = new_row[P["row"][kp]]
    ko = kp[own_p]
    kex = kp[ex]
    kt = kex[tail_p]
    G2 = (
        own_k[ko], new_pair[own_p[ko]], new_pair[ex[kex]], tail[kt], tail_k[kt],
        (np.cumsum(kex) - 1)[tail_p[kt]],
    )  # fmt: skip
    return R2, P2, G2, kp


def _taylor(x, f0, f1, f2, f3):
    """The third-order expansion f0 + f1 x + f2 x²/2 + f3 x³/6."""
    return f0 + x * (f1 + x * (f2 / 2 + x * (f3 / 6)))


def _taylor_slope(x, f1, f2, f3):
    """Its derivative in x."""
    return f1 + x * (f2 + x * (f3 / 2))


def _terms(counts):
    """``(k, item)``: k = 0 … count − 1 for every item (the terms of Σ_{k<count})."""
    reps = np.asarray(counts).astype(np.intp)
    ends = np.cumsum(reps)
    k = np.arange(ends[-1] if ends.size else 0) - np.repeat(ends - reps, reps)
    return k.astype(np.float64), np.repeat(np.arange(reps.size), reps)


def _g(bp, b0, g0, pg, w, own_k, own_p, ex, tail, tail_k, tail_p, e):
    """g_p(β) and g_p'(β) of the row's other cells at ``bp`` (see the caller)."""
    m = bp.size
    d = bp - b0
    g = _taylor(d, g0, *pg)
    g1 = _taylor_slope(d, *pg)
    be = bp[ex]
    t = 1.0 / (be[tail_p] + tail_k)
    g[ex] = np.bincount(tail_p, tail * t, ex.size) + e / be
    g1[ex] = -np.bincount(tail_p, tail * t * t, ex.size) - e / be**2
    t = 1.0 / bp  # the k = 0 term of the row's own Σ_{k<x} (x ≥ 1)
    g -= w * t
    g1 += w * t * t
    if own_p.size:  # its k ≥ 1 terms (a count above 1)
        t = 1.0 / (bp[own_p] + own_k)
        g -= w * np.bincount(own_p, t, m)
        g1 += w * np.bincount(own_p, t * t, m)
    return g, g1


def _tails(cell, value, weight, cx_pos, want_cell, want_k):
    """Σ of ``weight`` over the entries of cell ``want_cell`` with ``value > want_k``."""
    # Per complex cell, the weights by value, then suffix sums: a table (cells × longest).
    width = int(value.max()) + 1 if value.size else 1
    width = min(width, _LONGEST + 1)
    keep = value <= _LONGEST
    table = np.zeros((cx_pos.max() + 1 if cx_pos.size else 1, width + 1))
    np.add.at(table, (cx_pos[cell[keep]], value[keep].astype(np.intp)), weight[keep])
    suffix = np.cumsum(table[:, ::-1], axis=1)[:, ::-1]  # suffix[c, v] = Σ_{v' ≥ v}
    return suffix[cx_pos[want_cell], want_k.astype(np.intp) + 1]
