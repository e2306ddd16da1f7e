"""GDA family methods: exact cross-validation by downdating the statistics.

Removing documents from a GDA fit is a subtraction of their statistics (the inverse of the
Chan–Golub–LeVeque merge, :meth:`GaussianStats.subtract`); every estimate, and the data-scaled
default prior (pooled mean and variances, themselves functions of the statistics), then
follows from the remaining statistics as it would after a refit.

Leave-one-out scores every training document under the model fitted without it, without
refitting. Removing ``x`` (weight ``w``) from class ``y`` changes that class's count, mean and
scatter by a rank-one term: ``S_y' = S_y − (w N_y / (N_y − w)) (x − x̄_y)(x − x̄_y)ᵀ``, and under
a prior the same holds for the posterior scale with ``κ_y`` and ``μ_y`` in place of ``N_y`` and
``x̄_y`` (the prior is κ0 pseudo-observations at μ0). With the full-data Cholesky factor ``L``
of ``Ψ``, the matrix determinant lemma gives ``log|Ψ'| = log|Ψ| + log(1 − a zᵀz)`` and
Sherman–Morrison every Mahalanobis distance, ``z = L⁻¹(x − μ_y)``: O(K d²) per document
(the triangular solves prediction needs anyway). This is the path of ``estimate="mle"`` and
of a prior whose ``mu0`` and ``psi0`` are given.

The default prior moves with the data: leaving a document out shifts μ0 (every class's
posterior mean and between-mean term) and changes Ψ0 = (ν0 − d − 1) diag(v) in every
coordinate, a full-rank diagonal that no finite low-rank formula absorbs. The shared and
per-class models then take :mod:`bayesnb.families.gda.series` (driven by
:mod:`bayesnb.families.gda.loo_series`: the low-rank part exactly, the diagonal by a series
with a per-document bound); the documents whose bound exceeds ``SERIES_TOL`` (small data,
outliers) are built and factorised explicitly (O(K d³) each, augmented with the residuals so
the same factorisation gives the Mahalanobis distances).
Holding the data-scaled prior at its full-data value,
``est.set_params(**family_of(est).fixed_prior_params(est))``, is the rank-one path (about
1×), and differs from refits by the prior's own movement, measured in
tests/test_gda_crossval.py: up to 4e-3 nats of log p(c | x) on 360 documents, 1.5 on 36. The
diagonal model is elementwise: O(d) per document with a fixed prior (only class y_i is
rescored), O(K d) with the data-scaled one.

A document whose removal leaves a (near) singular matrix, or empties its class of Gaussian
rows, is scored by the estimator's own code on its downdated statistics, so it gets what a
refit gives, including the refit's ValueError. The only document labelled with its class
leaves a refit with one class fewer: the other K − 1 classes' model scores it, and the one
class prior of every family (:func:`bayesnb.families._crossval.loo_class_log_prior`, learned
``class_alpha`` held at its full-data value) gives its class ``-inf``. Agreement with refits
is to rounding (1e-14 on data near the origin); on data offset by 1e7 it is 1e-8, the
rounding of the refit's own absolute class means.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import gammaln

from bayesnb.families._crossval import emptied, loo_class_log_prior
from bayesnb.families.gda.loo_series import (
    _LOG_2PI,
    _blocks,
    _den,
    _score,
    remaining,
    series_scores,
)
from bayesnb.priors.gaussian import default_psi0_diagonal
from bayesnb.stats.gaussian import GaussianStats, gaussian_stats
from bayesnb.stats.missing import missing_rows

__all__ = ["GDACrossval"]

# A downdate shrinking a determinant by more than this factor (or a squared Cholesky pivot of
# the correlation matrix below _PIVOT) is recomputed from the downdated statistics: the
# rank-one formulas lose about -log10(ratio) digits there, and a refit may refuse the matrix.
_MIN_RATIO = 1e-4
_PIVOT = 1e-8
# Cells (float64) of the per-document matrices built at once by the explicit downdate.
_BLOCK_CELLS = 4_000_000
# Documents per block of the diagonal model's elementwise downdate (stays in cache).
_ELEMENTWISE_BLOCK = 1024
# The trailing diagonal of the augmented matrices (see _augmented).
_BIG = 1e100


class GDACrossval:
    """Exact cross-validation of GDA (:mod:`bayesnb.model_selection`)."""

    def subtract(self, est, stats: dict, documents=None) -> None:
        """See :meth:`Family.subtract`."""
        old = {"_stats": est._stats, "class_count_": est.class_count_}
        counts = stats.get("class_count", stats["gaussian"].count)
        left = est.class_count_ - counts
        est._set_fitted(
            _stats=est._stats.subtract(stats["gaussian"]),
            class_count_=np.where(emptied(est.class_count_, counts), 0.0, left),
        )
        try:
            est._statistics_changed(documents)
            est._fitted  # noqa: B018 - a refit factorises at fit, and fails there
        except BaseException:
            est._set_fitted(**old)
            est._statistics_changed()
            raise

    def loo_joint_log_proba(self, est, X, codes, weights) -> np.ndarray:
        """See :meth:`Family.loo_joint_log_proba`."""
        X = np.asarray(X, dtype=np.float64)
        codes = np.asarray(codes, dtype=np.intp)
        w = np.asarray(weights, dtype=np.float64)
        ll = np.empty((codes.size, len(est.classes_)))
        M = est._missing_mask(X)
        complete = np.ones(codes.size, bool) if M is None else ~missing_rows(M)
        # A row held out of the Gaussian statistics (a NaN, or weight 0) leaves them as they
        # are: the full model scores it.
        moved = complete & (w > 0)
        # The only document of its class: a refit without it has one class fewer.
        lone = np.bincount(codes, minlength=ll.shape[1])[codes] == 1
        prior = loo_class_log_prior(est, codes, w)  # raises where such a refit fails
        rest = ~moved & ~lone
        if rest.any():
            ll[rest] = est._log_likelihood(X[rest])
        fast = moved & ~lone
        if fast.all():  # every row: no copies
            ll = _loo_log_likelihood(est, X, codes, w)
        elif fast.any():
            ll[fast] = _loo_log_likelihood(est, X[fast], codes[fast], w[fast])
        for i in np.flatnonzero(lone):
            ll[i] = _without_class(est, X[i : i + 1], codes[i], w[i], moved[i])
        return ll + prior


# -- the downdates ---------------------------------------------------------------------------
def _fixed_prior(est) -> bool:
    """Whether the resolved prior is the same for every subset of the data."""
    p = est.prior
    return est.estimate == "mle" or (p is not None and p.mu0 is not None and p.psi0 is not None)


def _loo_log_likelihood(est, X, codes, w) -> np.ndarray:
    """log p(x_i | c, D without i) of complete rows of positive weight, shape (n, K)."""
    kind = est._stats.covariance
    if _fixed_prior(est):
        ll, redo = (_diagonal_downdate if kind == "diagonal" else _rank_one)(est, X, codes, w)
    else:
        ll = np.empty((codes.size, len(est.classes_)))
        redo = np.zeros(codes.size, bool)
        d, k = X.shape[1], len(est.classes_)
        todo = np.ones(codes.size, bool)
        if kind != "diagonal":
            series_scores(est, X, codes, w, ll, todo)
        per_doc = {"shared": (d + k) ** 2, "per_class": k * (d + 1) ** 2}.get(kind)
        # the diagonal model is elementwise: blocks that stay in cache
        step = _ELEMENTWISE_BLOCK if per_doc is None else max(1, _BLOCK_CELLS // per_doc)
        for part in _blocks(todo, step):
            ll[part], redo[part] = _explicit(est, X[part], codes[part], w[part])
    for i in np.flatnonzero(redo):
        ll[i] = _refit_row(est, X[i : i + 1], codes[i : i + 1], w[i : i + 1])
    return ll


def _refit_row(est, x, code, w) -> np.ndarray:
    """One document scored by the estimator's own code on statistics without it."""
    st = est._stats
    batch = gaussian_stats(x, code, w, st.n_classes, st.covariance, st.shift)
    return est._replace({"_stats": st.subtract(batch)})._complete_log_likelihood(x)[0]


def _without_class(est, x, code: int, w: float, moved: bool) -> np.ndarray:
    """The lone document of class ``code`` scored by the refit without it: the other K − 1
    classes' model (the shared MAP's divisor counts the classes), ``-inf`` for its own."""
    st = est._stats
    if moved:
        st = st.subtract(
            gaussian_stats(
                x, np.array([code]), np.array([w]), st.n_classes, st.covariance, st.shift
            )
        )
    keep = np.arange(st.n_classes) != code
    scatter = st.scatter if st.covariance == "shared" else st.scatter[keep]
    kept = GaussianStats(st.count[keep], st.offset[keep], scatter, st.covariance, st.shift)
    view = est._replace({"_stats": kept, "classes_": est.classes_[keep]})
    out = np.full(st.n_classes, -np.inf)
    out[keep] = view._log_likelihood(x)[0]
    return out


def _rank_one(est, X, codes, w) -> tuple[np.ndarray, np.ndarray]:
    """Sherman–Morrison and determinant-lemma downdates (prior fixed, or the MLE)."""
    st, kind = est._stats, est._stats.covariance
    n, k = codes.size, st.n_classes
    rows = np.arange(n)
    if est.estimate == "mle":
        valid = st.count > 0
        A, cnt, loc = st.scatter, st.count, np.where(valid[:, None], st.mean, 0.0)
        nu = None
    else:
        post = est.posterior_
        valid = np.ones(k, bool)
        A, cnt, loc, nu = post.psi, post.kappa, post.mu, post.nu
    if kind == "shared":
        L = np.linalg.cholesky(A)
        ref = loc[valid].mean(axis=0)
        Zx = solve_triangular(L, (X - ref).T, lower=True, check_finite=False)
        Zm = solve_triangular(L, (loc - ref).T, lower=True, check_finite=False)
        Z = Zx.T[:, None, :] - Zm.T[None, :, :]  # (n, K, d): L⁻¹(x − μ_c)
        logdet_full = np.full(k, 2.0 * np.log(np.diagonal(L)).sum())
    else:
        Z = np.zeros((n, k, X.shape[1]))
        logdet_full = np.zeros(k)
        for c in np.flatnonzero(valid):
            Lc = np.linalg.cholesky(A[c])
            Z[:, c] = solve_triangular(Lc, (X - loc[c]).T, lower=True, check_finite=False).T
            logdet_full[c] = 2.0 * np.log(np.diagonal(Lc)).sum()
    cy = cnt[codes]
    left, gone = remaining(cy, w)  # gone: the MLE loses the class
    a = w * cy / left
    zy = Z[rows, codes]
    r = 1.0 - a * np.einsum("nd,nd->n", zy, zy)
    redo = gone | ~(r > _MIN_RATIO)
    r = np.where(redo, 1.0, r)
    Zp = Z.copy()
    Zp[rows, codes] *= (cy / left)[:, None]  # x − μ_y' = (κ_y / κ_y') (x − μ_y)
    quad = np.einsum("nkd,nkd->nk", Zp, Zp)
    cross = np.einsum("nkd,nd->nk", Zp, zy)
    cnt_new = np.broadcast_to(cnt, (n, k)).copy()
    cnt_new[rows, codes] = left
    logdet = np.broadcast_to(logdet_full, (n, k)).copy()
    if kind == "shared":
        quad += a[:, None] * cross**2 / r[:, None]
        logdet += np.log(r)[:, None]
        nu_new = None if nu is None else (nu - w)[:, None]
        den = (st.total_count - w)[:, None] if nu is None else _den(est, nu_new, k)
    else:
        quad[rows, codes] = quad[rows, codes] + a * cross[rows, codes] ** 2 / r
        logdet[rows, codes] += np.log(r)
        nu_new = None
        if nu is not None:
            nu_new = np.broadcast_to(nu, (n, k)).copy()
            nu_new[rows, codes] -= w
        den = cnt_new if nu is None else _den(est, nu_new, k)
    redo |= ~np.all(np.asarray(den) > 0, axis=-1) if np.ndim(den) else False
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = _score(est, logdet, quad, den, cnt_new, nu_new)
    ll[:, ~valid] = -np.inf
    return ll, redo


def _diagonal_downdate(est, X, codes, w) -> tuple[np.ndarray, np.ndarray]:
    """The diagonal model with a fixed prior (or the MLE): only class y_i's parameters move,
    so the full model scores the other classes and class y_i is rescored, O(d) per document."""
    st = est._stats
    rows = np.arange(codes.size)
    x = X - st.shift
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = est._complete_log_likelihood(X)
    if est.estimate == "mle":
        cnt, loc, A, nu = st.count, st.offset, st.scatter, None
    else:
        post = est.posterior_
        cnt, A, nu = post.kappa, post.psi, post.nu
        kappa0 = post.prior.kappa0
        loc = st.offset + (kappa0 / cnt)[:, None] * ((post.prior.mu0 - st.shift) - st.offset)
    cy = cnt[codes]
    left, redo = remaining(cy, w)
    u = x - loc[codes]
    a = w * cy / left
    Ay = A[codes] - a[:, None] * (u * u)  # the downdated scatter (MLE) or Ψ diagonal
    redo |= ~(Ay > _PIVOT * A[codes]).all(axis=1)
    Ay = np.where(redo[:, None], A[codes], Ay)
    q = u * (cy / left)[:, None]  # x − μ_y'
    if nu is None:
        own = _diagonal_normal(Ay / left[:, None], q)
    else:
        nu_y = (nu[codes] - w)[:, None]
        redo |= est.estimate == "mean" and ~(nu_y[:, 0] - X.shape[1] - 1.0 > 0)
        own = _diagonal_score(est, Ay[:, None], q[:, None], left[:, None], nu_y)[:, 0]
    ll[rows, codes] = own
    return ll, redo


def _explicit(est, X, codes, w) -> tuple[np.ndarray, np.ndarray]:
    """Per-document posterior parameters built and factorised (data-scaled prior, diagonal)."""
    st, kind = est._stats, est._stats.covariance
    n, k, d = codes.size, st.n_classes, st.n_features
    rows = np.arange(n)
    s, off = st.shift, st.offset
    x = X - s
    cy = st.count[codes]
    left, redo = remaining(cy, w)
    e = x - off[codes]  # x − x̄_y
    N = np.broadcast_to(st.count, (n, k)).copy()
    N[rows, codes] = left
    O = np.broadcast_to(off, (n, k, d)).copy()
    O[rows, codes] -= (w / left)[:, None] * e
    coef = w * cy / left
    if kind == "diagonal":
        S = np.broadcast_to(st.scatter, (n, k, d)).copy()
        S[rows, codes] -= coef[:, None] * (e * e)
        if est.estimate == "mle":  # variances S_c / N_c
            valid = N > 0
            redo |= ~(S[rows, codes] > _PIVOT * st.scatter[codes]).all(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                ll = _diagonal_normal(S / N[..., None], x[:, None, :] - O)
            return np.where(valid, ll, -np.inf), redo
    prior = est.posterior_.prior
    mu0, psi0, diagonal = _downdated_prior(est, x, w)  # psi0: (n, d) diagonals or (d, d)
    kappa = prior.kappa0 + N
    dev = O - mu0[:, None, :]
    g = prior.kappa0 * N / kappa
    mu = O - (prior.kappa0 / kappa)[..., None] * dev
    q = x[:, None, :] - mu  # x − μ_c', (n, K, d)
    nu = (prior.nu0 + st.total_count - w)[:, None] if kind == "shared" else prior.nu0 + N
    if kind == "diagonal":
        psi = S + g[..., None] * dev * dev + (psi0[:, None] if diagonal else np.diag(psi0))
        ll = _diagonal_score(est, psi, q, kappa, nu)
    else:
        aug = _augmented(st, rows, codes, coef[:, None] * e, e, g, dev, psi0, diagonal, q)
        ll, bad = _full_score(est, aug, d, kappa, nu)
        redo |= bad
    if est.estimate == "mean":
        redo |= ~np.all(nu - d - 1.0 > 0, axis=-1)
    return ll, redo


def _augmented(st, rows, codes, ce, e, g, dev, psi0, diagonal, q) -> np.ndarray:
    """``[[Ψ', Q], [Qᵀ, B·I]]`` of every document: its Cholesky factor holds ``L'`` and, in
    the rows below it, ``(L'⁻¹ Q)ᵀ`` (the whitened residuals), so one factorisation per
    document gives the log-determinant and every Mahalanobis distance without a solve.

    Shared: one (d + K)-matrix per document, Q = the K residuals; per class: one
    (d + 1)-matrix per document and class. B (huge) only keeps the trailing block positive
    definite: it never enters the entries above it.
    """
    n, k, d = q.shape
    idx = np.arange(d)
    if st.covariance == "shared":
        aug = np.empty((n, d + k, d + k))
        A = aug[:, :d, :d]
        # S' + Σ_c g_c dev_c dev_cᵀ with S' = S − coef e eᵀ: one batched product of rank K + 1
        U = np.concatenate([-ce[:, None, :], dev * g[..., None]], axis=1)
        V = np.concatenate([e[:, None, :], dev], axis=1)
        A[...] = np.einsum("nki,nkj->nij", U, V, optimize=True)
        A += st.scatter
        aug[:, d:, :d] = q
        aug[:, :d, d:] = np.swapaxes(q, 1, 2)
        aug[:, d:, d:] = _BIG * np.eye(k)
    else:
        aug = np.empty((n, k, d + 1, d + 1))
        A = aug[..., :d, :d]
        A[...] = st.scatter
        A[rows, codes] -= e[:, :, None] * ce[:, None, :]
        A += (g[..., None] * dev)[..., :, None] * dev[..., None, :]
        aug[..., d, :d] = q
        aug[..., :d, d] = q
        aug[..., d, d] = _BIG
    if diagonal:
        A[..., idx, idx] += psi0 if st.covariance == "shared" else psi0[:, None]
    else:
        A += psi0
    return aug


def _downdated_prior(est, x, w) -> tuple[np.ndarray, np.ndarray, bool]:
    """μ0 − shift and Ψ0 resolved against the data without each document.

    Returns ``(mu0 (n, d), psi0, diagonal)``: the per-document diagonals (n, d) of the
    data-scaled default Ψ0 (``diagonal`` True) or the given (d, d) matrix.

    Pooled count ``n' = n − w``, mean ``m' = m + (m − x) w / n'`` and total scatter
    ``T' = T − (w n / n')(x − m)²`` per feature, then the prior's own resolution.
    """
    st, prior = est._stats, est.prior
    fitted = est.posterior_.prior
    n = st.total_count
    mean, var = st.pooled_moments()
    m = mean - st.shift
    nl = n - w
    with np.errstate(divide="ignore", invalid="ignore"):
        m_new = m + (m - x) * (w / nl)[:, None]
        total = var * n - (w * n / nl)[:, None] * (x - m) ** 2
        var_new = np.maximum(total, 0.0) / nl[:, None]
    if prior is not None and prior.mu0 is not None:
        mu0 = np.broadcast_to(fitted.mu0 - st.shift, x.shape)
    else:
        mu0 = m_new
    if prior is not None and prior.psi0 is not None:
        return mu0, fitted.psi0, False
    return mu0, default_psi0_diagonal(var_new, fitted.nu0), True


def _full_score(est, aug, d: int, kappa, nu) -> tuple[np.ndarray, np.ndarray]:
    """Scores from the augmented matrices of :func:`_augmented`; rows to redo."""
    n = aug.shape[0]
    try:
        L = np.linalg.cholesky(aug)
    except np.linalg.LinAlgError:  # some matrix is not positive definite: every row redone
        return np.zeros(kappa.shape), np.ones(n, bool)
    diag = np.diagonal(L, axis1=-2, axis2=-1)[..., :d]
    pivot = diag**2 / np.diagonal(aug, axis1=-2, axis2=-1)[..., :d]
    bad = ~(pivot.reshape(n, -1).min(axis=1) >= _PIVOT)
    logdet = 2.0 * np.log(diag).sum(axis=-1)
    if aug.ndim == 3:  # shared: one factor per document serves its K classes
        Z = L[:, d:, :d]
        logdet = logdet[:, None]
    else:
        Z = L[..., d, :d]
    quad = np.einsum("nkd,nkd->nk", Z, Z)
    den = _den(est, nu, kappa.shape[1]) if est.estimate != "bayes" else None
    return _score(est, logdet, quad, den, kappa, nu), bad


def _diagonal_score(est, psi, q, kappa, nu) -> np.ndarray:
    """Scores of the diagonal model from per-document, per-class Ψ' diagonals (n, K, d)."""
    d = q.shape[-1]
    if est.estimate != "bayes":
        return _diagonal_normal(psi / _den(est, nu, q.shape[1])[..., None], q)
    dof = nu - d + 1.0
    s = (kappa + 1.0) / kappa
    const = d * (gammaln((dof + 1.0) / 2.0) - gammaln(dof / 2.0))
    const -= 0.5 * (d * np.log(np.pi * s) + np.log(psi).sum(axis=-1))
    return const - 0.5 * (dof + 1.0) * np.log1p(q * q / (psi * s[..., None])).sum(axis=-1)


def _diagonal_normal(var, r) -> np.ndarray:
    """log N(r | 0, diag(var)), the last axis the features."""
    d = r.shape[-1]
    return -0.5 * (d * _LOG_2PI + np.log(var).sum(axis=-1) + (r * r / var).sum(axis=-1))
