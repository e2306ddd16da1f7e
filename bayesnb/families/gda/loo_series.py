"""GDA leave-one-out under the data-scaled default prior: the series path's scores.

The shared and per-class models take :func:`bayesnb.families.gda.series.series_downdate`
(Woodbury on the low-rank part of the downdate, a bounded series on the diagonal change of
Ψ0) in blocks of documents; what its bound refuses is left to the explicit factorisation of
:mod:`bayesnb.families.gda.crossval`. With the shared covariance, the documents of one class
and one weight share every coefficient of the low-rank part but their own ``x − x̄_y``, so
the K + 1 columns fold into one (:func:`~bayesnb.families.gda.series.rank_one_form`): one
factor per (class, weight) group and a rank-one update per document, whose first series
pass is :func:`~bayesnb.families.gda.series.rank_one_downdate`. Many distinct weights keep
the K + 1 columns (one factor for all). Also the density from ``log|Ψ'|`` and the
Mahalanobis distance that every GDA leave-one-out path shares.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.special import gammaln

from bayesnb.families._crossval import emptied
from bayesnb.families.gda.series import (
    SERIES_TOL,
    inverse_factor,
    rank_one_downdate,
    rank_one_form,
    series_basis,
    series_downdate,
)
from bayesnb.priors.gaussian import default_psi0_diagonal

__all__ = ["series_scores"]

_LOG_2PI = float(np.log(2.0 * np.pi))
# Documents per block of the series path (its (block, K, d) arrays stay in cache).
_SERIES_BLOCK = 512
# The shared model folds the low-rank part per (class, weight) group while there are at
# most this many groups, or one per this many documents (a factor per group pays then).
_MAX_GROUPS, _DOCS_PER_GROUP = 16, 256


def series_scores(est, X, codes, w, ll, todo) -> None:
    """Fill ``ll`` (n, K) by the series for the shared and per-class models, and clear
    ``todo`` where it did (twice: more terms for what the first pass's bound refuses)."""
    # Blocks of documents whose (block, K, d) arrays stay in cache; their products are too
    # small for BLAS threads to pay (they only contend with each other).
    with _blas_controller().limit(limits=1, user_api="blas"):
        fixed = _series_factors(est)
        groups = _shared_groups(est, fixed, X, codes, w)
        for full in (False, True):
            for form, rows in groups:
                for p in _blocks(rows & todo, _SERIES_BLOCK):
                    ll[p], todo[p] = _series(est, fixed, X[p], codes[p], w[p], full, form)


def _shared_groups(est, fixed_part, X, codes, w) -> list:
    """``[(form, rows)]``: the shared model's (class, weight) groups with their
    :func:`rank_one_form` (None: the K + 1 columns), or every row with None."""
    everything = [(None, np.ones(codes.size, bool))]
    if est._stats.covariance != "shared":
        return everything
    if (w == w[0]).all():  # one weight (the usual case): no sort
        weights = np.zeros(codes.size, np.intp)
    else:
        weights = np.unique(w, return_inverse=True)[1].reshape(-1)
    key = codes * (weights.max() + 1) + weights
    keys = np.unique(key)
    if keys.size > max(_MAX_GROUPS, codes.size // _DOCS_PER_GROUP):
        return everything
    groups, rest = [], np.zeros(codes.size, bool)
    for j in keys:
        rows = key == j
        i = np.flatnonzero(rows)[0]
        c = _coefficients(est, fixed_part, X[i : i + 1], codes[i : i + 1], w[i : i + 1])
        form = None
        if not c["todo"][0]:
            form = rank_one_form(fixed_part[3][0], fixed_part[4], c["cu"][0], c["g"][0])
        if form is None:
            rest |= rows
            continue
        basis, shift, gamma = form
        res = c["res"][0].copy()  # ρ e + Σ_f c_f f = ρ ũ + Σ_f (c_f − ρ shift_f) f
        res[:, 1:] -= res[:, :1] * shift
        st = est._stats  # ũ = x − anchor: x − x̄_y + Σ_f shift_f f
        anchor = st.shift + st.offset[codes[i]] - shift @ fixed_part[4]
        groups.append(((basis, gamma, anchor, res, c["N"][0], c["kappa"][0]), rows))
    return groups + ([(None, rest)] if rest.any() else [])


def _series_factors(est) -> tuple:
    """The fixed part of :func:`_series`, made once for every block: the fitted prior, the
    pooled moments, and per covariance matrix (one shared, or one per class) the
    :func:`series_basis` of P = Ψ0 (its diagonal, when the data-scaled Ψ0 moves) + the
    scatter, on the fixed vectors ``x̄_c − μ0`` (the fitted μ0)."""
    st, prior = est._stats, est.posterior_.prior
    psi0 = prior.psi0
    if est.prior is None or est.prior.psi0 is None:
        psi0 = np.diag(np.diagonal(psi0))
    scatters = [st.scatter] if st.covariance == "shared" else list(st.scatter)
    fixed = st.offset - (prior.mu0 - st.shift)
    Ps = [psi0 + S for S in scatters]
    bases = [series_basis(inverse_factor(P), fixed) for P in Ps]
    return prior, bases, st.pooled_moments(), Ps, fixed


def _coefficients(est, fixed_part, X, codes, w) -> dict:
    """The low-rank part of every document's downdate on the basis ``[x − x̄_y, x̄_c − μ0]``:
    U's columns ``cu`` (shared; ``lead`` and ``dev`` for the per-class model) with weights
    ``g``, the residuals ``res`` = x − μ_c', and the rows left to the explicit path (``todo``:
    the class loses its last Gaussian row).

    Every vector is a difference of points, so its coefficients on the points x̄_1, …, x̄_K, μ0
    sum to zero: it is a combination of ``x − x̄_y`` and ``x̄_c − μ0`` (the fitted μ0).
    x̄_y' = x̄_y − a (x − x̄_y) with a = w/N_y'; the default μ0' = μ0 − λ(x − μ0), λ = w/n'.
    """
    st = est._stats
    n, k = codes.size, st.n_classes
    rows = np.arange(n)
    x = X - st.shift
    cy = st.count[codes]
    left, todo = remaining(cy, w)  # todo: the class loses its last Gaussian row
    N = np.empty((n, k))
    N[:] = st.count
    N[rows, codes] = left
    prior = fixed_part[0]
    kappa = prior.kappa0 + N
    nb = k + 1
    base = np.zeros((n, nb))  # x − μ0 = (x − x̄_y) + (x̄_y − μ0)
    base[:, 0] = 1.0
    base[rows, 1 + codes] = 1.0
    O = np.zeros((n, k, nb))  # x̄_c' − μ0
    O[:, np.arange(k), 1 + np.arange(k)] = 1.0
    O[rows, codes, 0] = -w / left
    dev = O  # x̄_c' − μ0'
    if est.prior is None or est.prior.mu0 is None:  # μ0' − μ0 = −λ (x − μ0)
        dev = O + (w / (st.total_count - w))[:, None, None] * base[:, None, :]
    lead = np.zeros((n, 1, nb))
    lead[:, 0, 0] = 1.0
    return dict(
        e=x - st.offset[codes],
        todo=todo,
        N=N,
        kappa=kappa,
        res=base[:, None, :] - (O - (prior.kappa0 / kappa)[..., None] * dev),  # x − μ_c'
        g=np.concatenate([-(w * cy / left)[:, None], prior.kappa0 * N / kappa], axis=1),
        lead=lead,
        dev=dev,
        cu=np.concatenate([lead, dev], axis=1) if st.covariance == "shared" else None,
    )


def remaining(cy: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The count ``cy − w`` of each document's class without it, and where that empties the
    class (the count then reads 1, to keep the formulas finite; the row is redone)."""
    gone = emptied(cy, w)
    return np.where(gone, 1.0, cy - w), gone


def _series(est, fixed_part, X, codes, w, full: bool, form=None) -> tuple:
    """Shared and per-class scores under the data-scaled prior by :func:`series_downdate`,
    and the rows it leaves to the explicit path (emptied class, bound above the tolerance).
    ``form``: the :func:`rank_one_form` of these documents' (class, weight) group (shared)."""
    st, kind = est._stats, est._stats.covariance
    n, k, d = codes.size, st.n_classes, st.n_features
    prior, bases, moments = fixed_part[:3]
    if form is None:
        c = _coefficients(est, fixed_part, X, codes, w)
        e, res, g, N, kappa, todo = (c[j] for j in ("e", "res", "g", "N", "kappa", "todo"))
    else:  # one group: the same coefficients for every document, computed once
        basis, gamma, anchor, res, N, kappa = form
        e = X - anchor  # ũ, the group's one column
        todo = np.zeros(n, bool)
        w = w[:1]  # (one weight)
    D = _psi0_change(est, prior, moments, X, w)
    if kind == "shared":
        if form is None:
            basis, cu = bases[0], c["cu"]
        else:  # one column, ũ = e + v/γ, against the group's P̃
            cu, g = np.zeros((n, 1, k + 1)), np.full((n, 1), gamma)
            cu[:, 0, 0] = 1.0
        if form is None or full:
            logdet, quad, ld_err, q_err, ok = series_downdate(basis, e, cu, g, res, D, full)
        else:
            logdet, quad, ld_err, q_err, ok = rank_one_downdate(basis, e, gamma, res, D)
        logdet, ld_err = logdet[:, None], ld_err[:, None]
        nu = (prior.nu0 + st.total_count - w)[:, None]
    else:
        lead, dev = c["lead"], c["dev"]
        logdet, quad = np.empty((n, k)), np.empty((n, k))
        ld_err, q_err = np.empty((n, k)), np.empty((n, k))
        ok = np.ones(n, bool)
        for j in range(k):
            own = (codes == j).astype(np.float64)
            cu = np.concatenate([lead * own[:, None, None], dev[:, j : j + 1]], axis=1)
            gc = np.c_[g[:, 0] * own, g[:, 1 + j]]
            out = series_downdate(bases[j], e, cu, gc, res[:, j : j + 1], D, full)
            logdet[:, j], quad[:, j] = out[0], out[1][:, 0]
            ld_err[:, j], q_err[:, j] = out[2], out[3][:, 0]
            ok &= out[4]
        nu = prior.nu0 + N
    if est.estimate == "bayes":
        dof = nu - d + 1.0
        err = 0.5 * ld_err + 0.5 * (dof + d) * q_err * kappa / (kappa + 1.0)
        den = None
    else:
        den = _den(est, nu, k)
        err = 0.5 * ld_err + 0.5 * den * q_err
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = _score(est, logdet, quad, den, kappa, nu)
    todo |= ~ok | ~(err.max(axis=1) <= SERIES_TOL)
    if est.estimate == "mean":
        todo |= ~np.all(nu - d - 1.0 > 0, axis=-1)
    return ll, todo


def _psi0_change(est, fitted, moments, X, w) -> np.ndarray | None:
    """ψ0' − ψ0 (n, d): the data-scaled default Ψ0's diagonal without each document minus
    the fitted one (None for a given psi0). As :func:`_downdated_prior`, in place.
    """
    if est.prior is not None and est.prior.psi0 is not None:
        return None
    st = est._stats
    n = st.total_count
    mean, var = moments
    nl = n - w
    with np.errstate(divide="ignore", invalid="ignore"):
        t = X - mean
        t *= t
        t *= (w * n / nl)[:, None]
        np.subtract(var * n, t, out=t)  # T' = T − (w n / n')(x − m)²
        np.maximum(t, 0.0, out=t)
        t /= nl[:, None]
        top = ((n / nl) * var.max())[:, None]  # T' ≤ T: no variance grows beyond n/n' of it
    out = default_psi0_diagonal(t, fitted.nu0, top)
    out -= np.diagonal(fitted.psi0)
    return out


def _score(est, logdet, quad, den, kappa, nu) -> np.ndarray:
    """log density of x under every class from ``log|Ψ'|`` and ``(x − μ')ᵀΨ'⁻¹(x − μ')``.

    Point estimates: Σ' = Ψ'/den (MLE: the scatter over the count). ``"bayes"``: the Student-t
    with ν' − d + 1 degrees of freedom and scale Ψ'(κ' + 1)/(κ'(ν' − d + 1)) (see
    :func:`bayesnb.scoring.gaussian.student_t_jll`).
    """
    d = est.n_features_in_
    if est.estimate != "bayes":
        return -0.5 * (d * _LOG_2PI + logdet - d * np.log(den) + den * quad)
    dof = nu - d + 1.0
    s = (kappa + 1.0) / kappa
    const = gammaln((dof + d) / 2.0) - gammaln(dof / 2.0) - 0.5 * d * np.log(np.pi * s)
    return const - 0.5 * logdet - 0.5 * (dof + d) * np.log1p(quad / s)


def _den(est, nu, k: int):
    """The divisor of Ψ' in the point estimate (see NormalInverseWishartPosterior)."""
    d, kind = est.n_features_in_, est._stats.covariance
    if est.estimate == "map":
        if kind == "shared":
            return nu + d + 1.0 + k
        return nu + d + 2.0 if kind == "per_class" else nu - d + 4.0
    return nu - d - 1.0  # "mean"


@functools.cache
def _blas_controller():
    """threadpoolctl's controller, made once (inspecting the loaded libraries costs more than
    the products it limits)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _blocks(mask: np.ndarray, step: int):
    """The rows of ``mask`` in blocks of at most ``step`` (slices while every row is in)."""
    if mask.all():
        yield from (slice(i, i + step) for i in range(0, mask.size, step))
        return
    rows = np.flatnonzero(mask)
    yield from (rows[i : i + step] for i in range(0, rows.size, step))
