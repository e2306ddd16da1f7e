"""GDA leave-one-out under the data-scaled default prior in O(K d²) per document.

Leaving document i out of a shared or per-class fit with the default prior changes the
posterior scale matrix of class c to

    Ψ'_c = P_c + U G Uᵀ + D_i,        P_c = diag(ψ0) + S_c  (shared: P = diag(ψ0) + Σ_c S_c),

with U = [x − x̄_y, dev'_1, …, dev'_K] (the document's rank-one downdate of the scatter and the
prior's between-mean terms g'_c dev'_c dev'_cᵀ, dev'_c = x̄'_c − μ0', which move because the
pooled mean μ0 moves), G = diag(−w N_y/(N_y − w), g'_1, …, g'_K), and D_i = diag(ψ0' − ψ0) the
change of the data-scaled Ψ0 = (ν0 − d − 1) diag(v): the pooled variances v all move, by
``(w/n')v − (w n/n'²)(x − m)²`` (floor aside), a full-rank diagonal that no finite low-rank
formula absorbs. The low-rank part is exact (Woodbury and the determinant lemma on an
(K + 1)-matrix per document, from one Cholesky factor of P per covariance matrix); the
diagonal part is small (|D_j| (B⁻¹)_jj is of order 1/n² per coordinate) and enters through
the convergent series of ``log|I + B⁻¹D|`` and ``(B + D)⁻¹`` (B = P + U G Uᵀ):

    log|B + D| = log|B| + tr(B⁻¹D) − ½ tr((B⁻¹D)²) + R,
    rᵀ(B + D)⁻¹r = rᵀB⁻¹r − sᵀDs + (Ds)ᵀB⁻¹(Ds) − R',   s = B⁻¹r.

A first pass takes tr((B⁻¹D)²) with P⁻¹ in place of B⁻¹ and stops the quadratic form at the
second-order term shown; a second pass, over the documents the first one's bound refuses,
takes tr((B⁻¹D)²) exactly and the third-order term zᵀH³z too (H = B^-½ D B^-½, z = B^½ s).
What either leaves out is bounded per document from computed quantities: ρ(B⁻¹D) ≤ τ =
Σ_j |D_j| (B⁻¹)_jj (bounded above through B ≥ P − c e eᵀ), |Σ_k≥3 tr((B⁻¹D)^k)/k| ≤ ρ
tr((B⁻¹D)²)/(3(1 − ρ)), |Σ_k≥j zᵀH^k z| ≤ ‖Hz‖² ρ^(j−2)/(1 − ρ), and the substitution by
(2ε + ε²) tr((P⁻¹D)²) with ‖P^½ B⁻¹ P^½ − I‖ ≤ ε. A document whose bound on its score
exceeds :data:`SERIES_TOL` nats after both passes (small data, outliers) is handed back to
the explicit per-document factorisation. Every vector is a difference of points, so a
combination of the document's ``x − x̄_y`` and the K fixed vectors ``x̄_c − μ0`` (its
coefficients on the points sum to zero), and the whitening costs two products of X with a
d × d matrix and the first pass one more per class; the rest is O(K d) per document.

Shared covariance, documents of one class and one weight (:func:`rank_one_form`): U's
columns are ``a_k e + Φ_k`` with the same a, Φ and G for all of them, so P + U G Uᵀ =
P̃ + γ ũ ũᵀ with one factor of P̃ per group and ũ = e + (a fixed vector); the residuals'
coefficients are shared too. :func:`rank_one_downdate` is the first pass written for that
case (the D-weighted products of fixed parts are products of D with matrices made once).
On 10,000 × 30 (benchmarks/bench_gda_loo.py) the first pass's bound is below the tolerance
for every document; against the explicit factorisation the scores differ by 1.6e-15
relative at most (rounding), and the folded and K + 1-column forms by 1.2e-15.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.linalg import solve_triangular

__all__ = [
    "SERIES_TOL",
    "SeriesBasis",
    "inverse_factor",
    "rank_one_downdate",
    "rank_one_form",
    "series_basis",
    "series_downdate",
]

# A document whose bound on the neglected series terms of its score exceeds this (nats) is
# refactorised explicitly (the rounding of a score is about 1e-14 of its size).
SERIES_TOL = 1e-14
# Pivots of the capacitance matrix below this (the determinant ratio of a rank-one downdate)
# lose digits: such documents are refactorised too (as the rank-one path does).
_MIN_PIVOT = 1e-4


class SeriesBasis(NamedTuple):
    """What :func:`series_downdate` needs of ``P`` and the fixed basis vectors, made once for
    every block of documents (:func:`series_basis`)."""

    Linv: np.ndarray  # L⁻¹, P = L Lᵀ
    ft: np.ndarray  # L⁻¹ f of the fixed vectors f (f, d)
    Qf: np.ndarray  # P⁻¹ f
    ftft: np.ndarray  # their Gram matrix (f, f)
    pairs: np.ndarray  # (P⁻¹f_a ∘ P⁻¹f_b) (f², d)
    qdiag: np.ndarray  # diag(P⁻¹)
    QQ: np.ndarray  # P⁻¹ ∘ P⁻¹
    logdet: float  # log|P|
    Q: np.ndarray  # P⁻¹


def series_basis(Linv: np.ndarray, fixed: np.ndarray) -> SeriesBasis:
    """The fixed part of :func:`series_downdate`: ``L⁻¹`` (:func:`inverse_factor`) and the fixed
    basis vectors (f, d), relative to the statistics' origin."""
    d = Linv.shape[0]
    ft = fixed @ Linv.T
    Qf = ft @ Linv
    Q = Linv.T @ Linv
    pairs = (Qf[:, None, :] * Qf[None, :, :]).reshape(-1, d)
    logdet = -2.0 * np.log(np.diagonal(Linv)).sum()
    return SeriesBasis(Linv, ft, Qf, ft @ ft.T, pairs, np.diagonal(Q).copy(), Q * Q, logdet, Q)


def series_downdate(basis: SeriesBasis, e, cu, g, cr, D, full: bool = False):
    """log|Ψ'| and the quadratic forms rᵀΨ'⁻¹r of every document, with error bounds.

    Parameters
    ----------
    basis : SeriesBasis
        The full-data part ``P`` and the fixed basis vectors (:func:`series_basis`).
    e : ndarray (n, d)
        The per-document basis vector (``x − x̄_y``).
    cu : ndarray (n, r, 1 + f)
        Coefficients of U's columns on the basis ``[e_i, fixed...]``.
    g : ndarray (n, r)
        The diagonal of G.
    cr : ndarray (n, m, 1 + f) or (m, 1 + f)
        Coefficients of the residuals ``x − μ'`` (2-D: the same for every document).
    D : ndarray (n, d) or None
        The diagonal change (None: Ψ0 does not move).
    full : bool
        Also the terms that only small data need (tr((B⁻¹D)²) exactly, the third term of the
        quadratic form's series): the caller's second pass over the documents the first
        pass's bound refused.

    Returns
    -------
    logdet : ndarray (n,)
    quad : ndarray (n, m)
    ld_err, q_err : ndarray (n,) and (n, m)
        Bounds on what the truncated series leaves out of ``logdet`` and ``quad``
        (``inf`` where ``ok`` is False).
    ok : ndarray of bool (n,)
        False where the low-rank update is too close to singular (refactorise instead).
    """
    n, d = e.shape
    r, m, nb = cu.shape[1], cr.shape[-2], cu.shape[2]
    Linv, ft, Qf = basis.Linv, basis.ft, basis.Qf
    et = e @ Linv.T  # L⁻¹ e: whitened
    gam = np.empty((n, nb, nb))  # Gram matrix of the whitened basis, per document
    gam[:, 0, 0] = np.einsum("nd,nd->n", et, et)
    cross = et @ ft.T
    gam[:, 0, 1:] = cross
    gam[:, 1:, 0] = cross
    gam[:, 1:, 1:] = basis.ftft
    # the residuals' coefficients (and U's on the fixed vectors: none) shared by every document
    common = cr.ndim == 2 and not cu[:, :, 1:].any()
    W = np.concatenate([cu, np.broadcast_to(cr, (n, m, nb))], axis=1)
    WG = _sandwich(W, gam)  # [[UᵀP⁻¹U, UᵀP⁻¹r], [., rᵀP⁻¹r]] per document
    M, Mr = WG[:, :r, :r], WG[:, :r, r:]
    F, logdet_a, ok = _capacitance(M, g)  # F = (I + G M)⁻¹ G
    FMr = F @ Mr
    q0 = np.diagonal(WG[:, r:, r:], axis1=1, axis2=2) - np.einsum("nrm,nrm->nm", Mr, FMr)
    logdet = logdet_a + basis.logdet
    if D is None:
        return logdet, q0, np.zeros(n), np.zeros_like(q0), ok
    Qe = et @ Linv  # P⁻¹ e

    def on_basis(coef):  # Σ_b coef_b P⁻¹b for coefficients (n, j, nb): (n, j, d)
        j = coef.shape[1]  # the fixed vectors' part is one product for every document
        out = (coef[..., 1:].reshape(n * j, nb - 1) @ Qf).reshape(n, j, d)
        out += coef[..., :1] * Qe[:, None, :]
        return out

    gd = np.empty((n, nb, nb))  # the basis' D-weighted products (P⁻¹b)ᵀ D (P⁻¹b')
    DQe = D * Qe
    gd[:, 0, 0] = np.einsum("nd,nd->n", DQe, Qe)
    dq = DQe @ Qf.T
    gd[:, 0, 1:] = dq
    gd[:, 1:, 0] = dq
    gd[:, 1:, 1:] = (D @ basis.pairs.T).reshape(n, nb - 1, nb - 1)
    qdiag = basis.qdiag
    # s = B⁻¹r = P⁻¹(r − U F UᵀP⁻¹r): its coefficients on the basis (n, m, nb)
    sig = cr - np.swapaxes(FMr, 1, 2) @ cu
    WD = _sandwich(np.concatenate([cu, sig], axis=1), gd)  # [[UᵀP⁻¹DP⁻¹U, UᵀP⁻¹Ds], [., sᵀDs]]
    gdu, h = WD[:, :r, :r], WD[:, :r, r:]
    sDs = np.diagonal(WD[:, r:, r:], axis1=1, axis2=2)
    p1 = D @ qdiag - np.einsum("nab,nba->n", F, gdu)  # tr(B⁻¹D)
    p2 = np.einsum("nd,nd->n", D @ basis.QQ, D)  # tr((P⁻¹D)²)
    if full:  # tr((B⁻¹D)²), B⁻¹ = P⁻¹ − V F Vᵀ (V = P⁻¹U): the Woodbury terms too
        fg = F @ gdu
        Z = ((D[:, None, :] * on_basis(cu)).reshape(n * r, d) @ Linv.T).reshape(n, r, d)
        p2 += np.einsum("nab,nba->n", fg, fg) - 2.0 * np.einsum("nab,nab->n", F, Z @ Z.mT)
    logdet = logdet + p1 - 0.5 * p2
    if common:  # s's coefficients on the fixed vectors are cr's: Σ_f cr_f P⁻¹f once
        Ds = sig[:, :, :1] * DQe[:, None, :]
        Ds += D[:, None, :] * (cr[:, 1:] @ Qf)
    else:
        Ds = on_basis(sig)
        Ds *= D[:, None, :]
    t = (Ds.reshape(n * m, d) @ Linv.T).reshape(n, m, d)  # L⁻¹ D s
    Fh = F @ h
    dbd = np.einsum("nmd,nmd->nm", t, t) - np.einsum("nrm,nrm->nm", h, Fh)  # (Ds)ᵀB⁻¹(Ds)
    quad = q0 - sDs + dbd
    if full:  # zᵀH³z = (B⁻¹Ds)ᵀ D (B⁻¹Ds), B⁻¹Ds = P⁻¹Ds − V F UᵀP⁻¹Ds
        u = (t.reshape(n * m, d) @ Linv).reshape(n, m, d)
        u -= on_basis(np.swapaxes(Fh, 1, 2) @ cu)
        quad -= np.einsum("nmd,nmd->nm", u * D[:, None, :], u)
    # Bounds. B ≥ P − c u uᵀ (the only negative weight is column 0's, u: the scatter
    # downdate), so (B⁻¹)_jj ≤ (P⁻¹)_jj + c (P⁻¹u)_j² / (1 − c uᵀP⁻¹u): τ ≥ ρ(B⁻¹D).
    ok &= (g[:, 1:] >= 0).all(axis=1)
    neg = np.where(g[:, 0] < 0, -g[:, 0], 0.0)
    room = 1.0 - neg * M[:, 0, 0]
    ok &= room > _MIN_PIVOT
    aD = np.abs(D)
    Qu = Qe  # P⁻¹u, u = e (the scatter's downdate) or e + Σ_f a_f f (rank_one_form)
    if cu[:, 0, 1:].any():
        Qu = cu[:, 0, :1] * Qe + cu[:, 0, 1:] @ Qf
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = aD @ qdiag + neg * np.einsum("nd,nd->n", aD * Qu, Qu) / room
        ok &= tau < 0.5
        # The series beyond the terms taken: Σ_k≥3 |tr((B⁻¹D)^k)|/k ≤ ρ p2 / (3(1 − ρ)) and
        # Σ_k≥j |zᵀH^k z| ≤ ‖Hz‖² ρ^(j−2)/(1 − ρ), ‖Hz‖² = (Ds)ᵀB⁻¹(Ds), H = B^-½DB^-½.
        rest = tau / (1.0 - tau)
        ld_err = rest * np.abs(p2) / 3.0
        q_err = np.abs(dbd) * (rest * tau if full else rest)[:, None]
        if not full:
            # tr((P⁻¹D)²) for tr((B⁻¹D)²): off by at most (2ε + ε²) of it, where
            # ‖P^½B⁻¹P^½ − I‖ ≤ ε = σ/(1 − σ), σ = Σ_a |g_a| ‖L⁻¹u_a‖².
            sg = np.einsum("na,naa->n", np.abs(g), M)
            ok &= sg < 0.5
            eps = sg / (1.0 - sg)
            ld_err = (1.0 + eps) ** 2 * ld_err + (2.0 * eps + eps * eps) * np.abs(p2) / 2.0
    return logdet, quad, np.where(ok, ld_err, np.inf), np.where(ok[:, None], q_err, np.inf), ok


def _sandwich(W, A):
    """``W A Wᵀ`` of every document (matmul on contiguous operands: a transposed view sends
    the batched product to a loop several times slower)."""
    return (W @ A) @ np.ascontiguousarray(W.mT)


def rank_one_downdate(basis: SeriesBasis, e, g: float, cr, D):
    """:func:`series_downdate`'s first pass for one column ``e`` (the :func:`rank_one_form`
    of a group) and residual coefficients ``cr`` (m, 1 + f) shared by every document.

    The same terms and bounds, written for that case: every D-weighted product of the fixed
    parts is a product of D with a matrix made once (P⁻¹ ∘ q_c q_cᵀ, q_c = P⁻¹ of residual
    c's fixed part), so no (n, m, d) array of whitened vectors and no batched products.
    """
    Linv, Q = basis.Linv, basis.Q
    ce, cf = cr[:, 0], cr[:, 1:]
    et = e @ Linv.T
    alpha = np.einsum("nd,nd->n", et, et)  # eᵀP⁻¹e
    bc = (et @ basis.ft.T) @ cf.T  # eᵀP⁻¹(r_c's fixed part)
    Mr = alpha[:, None] * ce + bc  # eᵀP⁻¹r_c
    rr = (alpha[:, None] * ce + 2.0 * bc) * ce + np.einsum("mf,fg,mg->m", cf, basis.ftft, cf)
    piv = 1.0 + g * alpha  # the capacitance (as _capacitance, r = 1)
    ok = piv > _MIN_PIVOT
    piv = np.where(ok, piv, 1.0)
    F = g / piv
    FMr = F[:, None] * Mr
    q0 = rr - Mr * FMr
    logdet = np.log(piv) + basis.logdet
    if D is None:
        return logdet, q0, np.zeros(e.shape[0]), np.zeros_like(q0), ok
    Qe = et @ Linv
    DQe = D * Qe
    gee = np.einsum("nd,nd->n", DQe, Qe)  # eᵀP⁻¹DP⁻¹e
    q = cf @ basis.Qf  # P⁻¹ of the residuals' fixed parts (m, d)
    dq = DQe @ q.T
    sig = ce - FMr  # s_c = B⁻¹r_c = sig_c P⁻¹e + q_c
    h = sig * gee[:, None] + dq  # eᵀP⁻¹Ds
    sDs = (sig * gee[:, None] + 2.0 * dq) * sig + D @ (q * q).T
    p1 = D @ basis.qdiag - F * gee
    p2 = np.einsum("nd,nd->n", D @ basis.QQ, D)
    logdet = logdet + p1 - 0.5 * p2
    # (Ds)ᵀP⁻¹(Ds) = sig² ‖L⁻¹DP⁻¹e‖² + 2 sig (DP⁻¹e)ᵀP⁻¹(D q) + (Dq)ᵀP⁻¹(Dq)
    A = DQe @ Q
    yy = np.einsum("nd,nd->n", A, DQe)
    yz = (A * D) @ q.T
    m, d = q.shape
    Mq = (Q[None] * q[:, :, None] * q[:, None, :]).transpose(1, 0, 2).reshape(d, m * d)
    zz = np.einsum("nmd,nd->nm", (D @ Mq).reshape(-1, m, d), D)
    dbd = (sig * yy[:, None] + 2.0 * yz) * sig + zz - h * F[:, None] * h
    quad = q0 - sDs + dbd
    neg = -g if g < 0 else 0.0  # bounds as series_downdate's (u = e, one column)
    room = 1.0 - neg * alpha
    ok &= room > _MIN_PIVOT
    aD = np.abs(D)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = aD @ basis.qdiag + neg * np.einsum("nd,nd->n", aD * Qe, Qe) / room
        ok &= tau < 0.5
        rest = tau / (1.0 - tau)
        ld_err = rest * np.abs(p2) / 3.0
        q_err = np.abs(dbd) * rest[:, None]
        sg = abs(g) * alpha
        ok &= sg < 0.5
        eps = sg / (1.0 - sg)
        ld_err = (1.0 + eps) ** 2 * ld_err + (2.0 * eps + eps * eps) * np.abs(p2) / 2.0
    return logdet, quad, np.where(ok, ld_err, np.inf), np.where(ok[:, None], q_err, np.inf), ok


def rank_one_form(P, fixed, cu, g):
    """``P + U G Uᵀ`` as ``P̃ + γ ũ ũᵀ`` when U's columns are ``a_k e + Φ_k`` with the same
    ``a``, ``Φ`` and ``G`` for a group of documents (shared covariance, one class, one
    weight): only the document's ``e`` then varies, and

        Σ_k g_k u_k u_kᵀ = ΦᵀGΦ + γ e eᵀ + e vᵀ + v eᵀ = ΦᵀGΦ − v vᵀ/γ + γ ũ ũᵀ,

    γ = Σ_k g_k a_k², v = Σ_k g_k a_k Φ_k, ũ = e + v/γ: one factor of P̃ per group and a
    rank-one update per document (what the Woodbury step of :func:`series_downdate` costs
    on one column instead of K + 1; ũ in place of e as its per-document basis vector).

    Parameters
    ----------
    P : ndarray (d, d)
    fixed : ndarray (f, d)
        The fixed basis vectors.
    cu : ndarray (r, 1 + f)
        Coefficients of U's columns on ``[e, fixed...]``.
    g : ndarray (r,)

    Returns
    -------
    (SeriesBasis of P̃, the coefficients of ũ − e on the fixed vectors (f,), γ), or None
    where γ is not negative or P̃ is not positive definite (the caller keeps the K + 1
    columns).
    """
    a, phi = cu[:, 0], cu[:, 1:]
    gamma = float((g * a) @ a)
    if not gamma < 0:
        return None
    vcoef = (g * a) @ phi
    Phi, v = phi @ fixed, vcoef @ fixed
    try:
        Linv = inverse_factor(P + (Phi.T * g) @ Phi - np.outer(v, v) / gamma)
    except np.linalg.LinAlgError:
        return None
    return series_basis(Linv, fixed), vcoef / gamma, gamma


def inverse_factor(P: np.ndarray) -> np.ndarray:
    """``L⁻¹`` of the Cholesky factor ``L`` of ``P`` (the argument of :func:`series_downdate`)."""
    L = np.linalg.cholesky(P)
    return solve_triangular(L, np.eye(P.shape[0]), lower=True, check_finite=False)


def _capacitance(M, g):
    """``F = (I + G M)⁻¹ G`` and ``log det(I + G M)`` of every document, G = diag(g).

    Gaussian elimination without pivoting on (r, r) matrices near the identity, vectorised
    over the documents (each entry a contiguous vector). ``ok`` is False where a pivot is
    below ``_MIN_PIVOT`` (a near-singular downdate, refactorised explicitly).
    """
    n, r = g.shape
    gT = np.ascontiguousarray(g.T)
    A = np.ascontiguousarray((g[:, :, None] * M).transpose(1, 2, 0))  # (r, r, n)
    A[np.arange(r), np.arange(r)] += 1.0
    X = np.zeros((r, r, n))
    X[np.arange(r), np.arange(r)] = gT
    logdet = np.zeros(n)
    ok = np.ones(n, bool)
    for k in range(r):
        piv = A[k, k]
        good = piv > _MIN_PIVOT
        ok &= good
        piv = np.where(good, piv, 1.0)
        logdet += np.log(piv)
        inv = 1.0 / piv
        A[k, k:] *= inv
        X[k] *= inv
        for i in range(r):
            if i != k:
                f = A[i, k].copy()
                A[i, k:] -= f * A[k, k:]
                X[i] -= f * X[k]
    return np.ascontiguousarray(X.transpose(2, 0, 1)), logdet, ok
