"""Per-class log densities of Gaussian discriminant analysis, through Cholesky factors.

Nothing is inverted: Mahalanobis distances are norms of triangular solves ``L⁻¹(x − μ)``,
log determinants are ``2 Σ log L_jj``, and the linear (logistic) coefficients of the shared
model are Cholesky solves. Data are centred before any solve, so features far from the origin
keep their precision. The functions take plain arrays (the factors built by
:mod:`bayesnb.posterior.gaussian`); classes marked invalid score ``-inf``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.special import gammaln

__all__ = [
    "gaussian_jll",
    "linear_coefficients",
    "linear_jll",
    "linear_scores_flag_nonfinite",
    "mahalanobis",
    "marginal_factor",
    "needs_centering",
    "student_t_jll",
]

_LOG_2PI = np.log(2.0 * np.pi)
# Centre the data before a dot product once offsets exceed this many standard deviations:
# beyond it the product would lose more than three digits to cancellation.
_MAX_OFFSET = 1e3


def _solve(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    return solve_triangular(L, B, lower=True, check_finite=False)


def _reference(locs: np.ndarray) -> np.ndarray:
    """A centre for the data: the mean of the class locations that exist."""
    ok = np.all(np.isfinite(locs), axis=1)
    return locs[ok].mean(axis=0) if ok.any() else np.zeros(locs.shape[1])


def mahalanobis(X: np.ndarray, locs: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """Squared Mahalanobis distance of every row of ``X`` to every class location.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    locs : ndarray of shape (n_classes, n_features)
        Rows of NaN (classes without an estimate) give NaN columns.
    factor : ndarray of shape (d, d) or (n_classes, d, d)
        Lower Cholesky factor of the (shared or per-class) covariance or scale matrix.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    n, K = X.shape[0], locs.shape[0]
    q = np.full((n, K), np.nan)
    if factor.ndim == 2:
        # One solve of the data serves every class: L⁻¹(x − μ_c) = L⁻¹(x − r) − L⁻¹(μ_c − r).
        r = _reference(locs)
        Z = _solve(factor, (X - r).T)
        M = _solve(factor, np.nan_to_num(locs - r).T)
        for c in range(K):
            if np.all(np.isfinite(locs[c])):
                D = Z - M[:, c : c + 1]
                q[:, c] = np.einsum("ij,ij->j", D, D)
        return q
    for c in range(K):
        if np.all(np.isfinite(locs[c])):
            Z = _solve(factor[c], (X - locs[c]).T)
            q[:, c] = np.einsum("ij,ij->j", Z, Z)
    return q


def marginal_factor(factor: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor of the principal sub-block ``Σ[O, O]``, from that of ``Σ``.

    ``Σ[O, O] = L[O, :] L[O, :]ᵀ``; the QR decomposition ``L[O, :]ᵀ = Q R`` gives
    ``Σ[O, O] = Rᵀ R``, so ``Rᵀ`` (columns signed to a positive diagonal) is its Cholesky
    factor, found without forming the product (which would square the condition number).

    Parameters
    ----------
    factor : ndarray of shape (d, d) or (n_classes, d, d)
        Lower Cholesky factor(s) of the full covariance or scale matrix.
    observed : ndarray of int
        The kept coordinates O.

    Returns
    -------
    ndarray of shape (|O|, |O|) or (n_classes, |O|, |O|)
    """
    rows = factor[..., observed, :]
    r = np.linalg.qr(np.swapaxes(rows, -1, -2), mode="r")
    lower = np.swapaxes(r, -1, -2)
    diag = np.diagonal(lower, axis1=-2, axis2=-1)
    return lower * np.where(diag < 0, -1.0, 1.0)[..., None, :]


def _log_det(factor: np.ndarray) -> np.ndarray:
    """log |Σ| from lower Cholesky factor(s): 2 Σ_j log L_jj.

    A class without documents has no MLE factor (zeros); its -inf is masked by ``valid``.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return 2.0 * np.log(np.diagonal(factor, axis1=-2, axis2=-1)).sum(axis=-1)


def gaussian_jll(
    X: np.ndarray,
    means: np.ndarray,
    factor: np.ndarray,
    valid: np.ndarray,
    diagonal: bool = False,
) -> np.ndarray:
    """log N(x | μ_c, Σ_c) for every row and class, shape (n_samples, n_classes).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    means : ndarray of shape (n_classes, n_features)
    factor : ndarray
        Lower Cholesky factor(s), (d, d) shared or (K, d, d) per class; or the variances,
        (K, d), of the diagonal model.
    valid : ndarray of bool, shape (n_classes,)
        Classes without an estimate score ``-inf``.
    diagonal : bool
        ``factor`` holds variances (the diagonal model).
    """
    n, d = X.shape
    K = means.shape[0]
    if diagonal:
        out = np.full((n, K), -np.inf)
        for c in np.flatnonzero(valid):
            v = factor[c]
            D = X - means[c]
            D *= D
            out[:, c] = -0.5 * (D @ (1.0 / v) + np.log(v).sum() + d * _LOG_2PI)
        return out
    q = mahalanobis(X, np.where(valid[:, None], means, np.nan), factor)
    out = -0.5 * (q + _log_det(factor) + d * _LOG_2PI)
    out[:, ~valid] = -np.inf
    return out


def student_t_jll(
    X: np.ndarray,
    loc: np.ndarray,
    psi_factor: np.ndarray,
    kappa: np.ndarray,
    dof: np.ndarray,
    diagonal: bool = False,
) -> np.ndarray:
    """Log posterior predictive density (Student-t) of every row under every class.

    With ``ν' = dof``, ``s_c = (κ_c + 1)/κ_c`` and ``q_c = (x − μ_c)ᵀ Ψ⁻¹ (x − μ_c)``, the
    multivariate t with scale ``Ψ s_c / ν'`` has log density ::

        ln Γ((ν' + d)/2) − ln Γ(ν'/2) − (d/2) ln(π s_c) − ½ ln|Ψ| − ((ν' + d)/2) ln(1 + q_c / s_c)

    The diagonal model sums the univariate version over features.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    loc : ndarray of shape (n_classes, n_features)
    psi_factor : ndarray
        Lower Cholesky factor of Ψ, (d, d) or (K, d, d); Ψ's diagonal, (K, d), when
        ``diagonal``.
    kappa, dof : ndarray of shape (n_classes,)
    diagonal : bool
        Independent features (the Normal-Inverse-Gamma model).

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    n, d = X.shape
    K = loc.shape[0]
    s = (kappa + 1.0) / kappa
    if diagonal:
        out = np.empty((n, K))
        for c in range(K):
            psi = psi_factor[c]
            D = X - loc[c]
            D *= D
            D *= 1.0 / (psi * s[c])
            np.log1p(D, out=D)
            const = d * (gammaln((dof[c] + 1.0) / 2.0) - gammaln(dof[c] / 2.0))
            const -= 0.5 * (d * np.log(np.pi * s[c]) + np.log(psi).sum())
            out[:, c] = const - 0.5 * (dof[c] + 1.0) * D.sum(axis=1)
        return out
    q = mahalanobis(X, loc, psi_factor)
    log_det = np.broadcast_to(_log_det(psi_factor), (K,))
    const = gammaln((dof + d) / 2.0) - gammaln(dof / 2.0) - 0.5 * d * np.log(np.pi * s)
    return const - 0.5 * log_det - 0.5 * (dof + d) * np.log1p(q / s)


def linear_coefficients(
    means: np.ndarray, chol: np.ndarray, center: np.ndarray | float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients of the shared-Σ Gaussian model as a linear softmax model in ``x − center``.

    ``coef_c = Σ⁻¹(μ_c − r)`` and ``intercept_c = −½ (μ_c − r)ᵀ Σ⁻¹ (μ_c − r)`` (class prior
    excluded): ``log N(x | μ_c, Σ) = coef_c · (x − r) + intercept_c + (terms free of c)``.
    With ``r = 0`` these are the textbook θ_c = Σ⁻¹μ_c, θ_c0 = −½ μ_cᵀΣ⁻¹μ_c.

    Parameters
    ----------
    means : ndarray of shape (n_classes, n_features)
        Rows of NaN (no estimate) get coefficient 0 and intercept ``-inf``.
    chol : ndarray of shape (n_features, n_features)
        Lower Cholesky factor of Σ.
    center : float or ndarray of shape (n_features,)

    Returns
    -------
    coef : ndarray of shape (n_classes, n_features)
    intercept : ndarray of shape (n_classes,)
    """
    ok = np.all(np.isfinite(means), axis=1)
    D = np.where(ok[:, None], means - center, 0.0)
    coef = cho_solve((chol, True), D.T, check_finite=False).T
    intercept = -0.5 * np.einsum("kj,kj->k", D, coef)
    intercept[~ok] = -np.inf
    return coef, intercept


def needs_centering(center: np.ndarray, variances: np.ndarray) -> bool:
    """Whether data around ``center`` must be centred before a dot product (see ``_MAX_OFFSET``)."""
    return bool(np.any(np.abs(center) > _MAX_OFFSET * np.sqrt(variances)))


def linear_jll(
    X: np.ndarray,
    coef: np.ndarray,
    intercept: np.ndarray,
    center: np.ndarray,
    centre_data: bool,
) -> np.ndarray:
    """``(X − center) @ coef.T + intercept`` up to a term common to all classes.

    Only differences between classes matter to the softmax, so every coefficient row is taken
    relative to one reference class (the first with a finite intercept): K − 1 products
    instead of K, a single matrix-vector product for two classes. The product is formed as
    ``W @ Xᵀ`` (one wide BLAS call) and returned column-major, where per-row reductions over
    classes are fast. ``centre_data=False`` folds the centre into the intercept and skips the
    copy of ``X`` (exact in exact arithmetic, and safe unless the data sit far from the
    origin).

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
        Per-class scores; row ``i`` differs from ``(X − center) @ coef.T + intercept`` by a
        constant.
    """
    K = coef.shape[0]
    ref, others, W = _relative_coefficients(coef, intercept)
    b = intercept[others].copy()
    if not centre_data:
        b -= W @ center
    out = np.empty((K, X.shape[0]))
    out[ref] = intercept[ref]
    Xc = X - center if centre_data else X
    out[others] = W @ Xc.T if W.shape[0] > 1 else (Xc @ W[0])[None, :]
    out[others] += b[:, None]
    return out.T


def _relative_coefficients(coef: np.ndarray, intercept: np.ndarray):
    """``(ref, others, W)``: the reference class of :func:`linear_jll`, the mask of the other
    classes, and their coefficients relative to it."""
    finite = np.flatnonzero(np.isfinite(intercept))
    ref = int(finite[0]) if finite.size else 0
    others = np.arange(coef.shape[0]) != ref
    return ref, others, coef[others] - coef[ref]


def linear_scores_flag_nonfinite(coef: np.ndarray, intercept: np.ndarray) -> bool:
    """Whether a NaN or infinity in a row of X always makes that row of :func:`linear_jll`
    non-finite.

    True when every relative coefficient is finite and nonzero: each value of X is then
    multiplied by a finite nonzero number (NaN stays NaN, ±inf stays infinite or becomes
    NaN in a sum) and IEEE sums propagate it, whatever order a BLAS adds in. Nonzero also
    guards against a BLAS that skips zero multipliers.
    """
    if coef.shape[0] < 2:
        return False
    W = _relative_coefficients(coef, intercept)[2]
    return bool(np.all(np.isfinite(W) & (W != 0)))
