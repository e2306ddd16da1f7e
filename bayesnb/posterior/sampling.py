"""Kernels of the exact posterior draws shared by several families.

Dirichlet draws as Gamma variates normalised in place (one call on a (chains, draws, K, V)
concentration, so the cost stays that of the Gamma variates), the class-prior draws every
model shares, inverse-Wishart draws by the Bartlett decomposition, and the padding of the
categorical model's ragged per-feature tables into one ``value`` dim.
"""

from __future__ import annotations

import numpy as np

from bayesnb.validation import check_class_prior

__all__ = [
    "categorical_layout",
    "category_slots",
    "class_prior_draws",
    "dirichlet_draws",
    "inverse_wishart_draws",
    "pad_categories",
    "with_estimate",
]


def with_estimate(est, estimate: str):
    """A shallow copy of ``est`` scoring with ``estimate`` (statistics shared, not copied)."""
    return est._replace(estimate=estimate)


def dirichlet_draws(
    rng: np.random.Generator, conc: np.ndarray, shape: tuple[int, int]
) -> np.ndarray:
    """Dirichlet(conc) draws over the last axis: Gamma variates normalised in place."""
    g = rng.standard_gamma(conc, size=(*shape, *conc.shape))
    g /= g.sum(axis=-1, keepdims=True)
    return g


def class_prior_draws(est, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Draws of π ~ Dirichlet(``class_alpha_`` + N_c), shape (*shape, n_classes).

    A fixed ``class_prior=`` or ``fit_prior=False`` prior is not inferred: every draw is that
    prior (and ``rng`` is left untouched).
    """
    n_classes = est.class_count_.shape[0]
    if est.class_prior is not None or not est.fit_prior:
        if est.class_prior is not None:
            p = check_class_prior(est.class_prior, n_classes)
        else:
            p = np.full(n_classes, 1.0 / n_classes)
        return np.broadcast_to(p, (*shape, n_classes)).copy()
    conc = est.class_posterior_.concentration
    g = rng.standard_gamma(conc, size=(*shape, n_classes))
    g /= g.sum(axis=-1, keepdims=True)
    return g


def inverse_wishart_draws(
    rng: np.random.Generator, psi: np.ndarray, nu, shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Exact draws of Σ ~ IW(psi, nu) by the Bartlett decomposition, batched in numpy.

    With ``psi = L Lᵀ`` (Cholesky) and ``A`` lower triangular, ``A_ii² ~ χ²(ν − i)``
    (i = 0 .. d−1) and ``A_ij ~ N(0, 1)`` below the diagonal, ``A Aᵀ ~ W(I, ν)`` (Bartlett);
    its inverse is ``IW(I, ν)``, and ``L (A Aᵀ)⁻¹ Lᵀ ~ IW(L Lᵀ, ν)``. So ``Σ = T Tᵀ`` with
    ``T = L A⁻ᵀ``. Only the d × d triangular ``A`` of every draw is inverted; ``psi`` is
    factorised once. ν need not be an integer (χ² variates are Gamma variates).

    The density is ``∝ |Σ|^{-(ν+d+1)/2} exp(−tr(ψ Σ⁻¹)/2)``, mean ``psi / (ν − d − 1)``.

    Parameters
    ----------
    rng : numpy.random.Generator
    psi : ndarray of shape ``batch + (d, d)``
        Symmetric positive definite scale matrices (``batch`` = () or (n_classes,)).
    nu : float or ndarray of shape batch
        Degrees of freedom, > d − 1.
    shape : tuple of int
        Leading sample shape, e.g. (chains, draws).

    Returns
    -------
    sigma : ndarray of shape ``shape + batch + (d, d)``
        The draws, exactly symmetric.
    root : ndarray of the same shape
        ``T`` with ``T Tᵀ = Σ`` (not triangular), to draw ``μ | Σ ~ N(m, Σ/κ)`` as
        ``m + T z / √κ``.

    Notes
    -----
    Peak memory is about three arrays of the size of ``sigma`` (``A``, its inverse, ``T``).
    """
    d = psi.shape[-1]
    batch = psi.shape[:-2]
    try:
        L = np.linalg.cholesky(psi)
    except np.linalg.LinAlgError:
        raise ValueError(
            "psi must be symmetric positive definite: its Cholesky factorisation fails"
        ) from None
    df = np.asarray(nu, dtype=np.float64)[..., None] - np.arange(d)
    if np.any(df <= 0):
        raise ValueError(f"nu must be > d - 1 = {d - 1} for an inverse Wishart, got {nu!r}")
    A = np.zeros((*shape, *batch, d, d))
    rows, cols = np.tril_indices(d, -1)
    A[..., rows, cols] = rng.standard_normal((*shape, *batch, rows.size))
    diag = np.arange(d)
    A[..., diag, diag] = np.sqrt(2.0 * rng.standard_gamma(df / 2.0, size=(*shape, *batch, d)))
    root = L @ np.swapaxes(np.linalg.inv(A), -1, -2)
    del A
    sigma = root @ np.swapaxes(root, -1, -2)
    sigma += np.swapaxes(sigma, -1, -2)
    sigma *= 0.5
    return sigma, root


# -- the categorical model's ragged tables: features of k_j + 1 slots in one ``value`` dim ----
def categorical_layout(est, features) -> tuple[np.ndarray, np.ndarray, int]:
    """Features kept, their slot counts k_j + 1, and the width of the ``value`` dim."""
    feat = np.arange(est.n_features_in_) if features is None else features
    sizes = np.asarray(est.n_categories_)[feat] + 1
    return feat, sizes, int(sizes.max())


def category_slots(est, keep: np.ndarray) -> list[np.ndarray]:
    """Columns of each kept feature on the concatenated category axis (k_j + 1 slots each)."""
    k = np.asarray(est.n_categories_)
    offsets = np.concatenate([[0], np.cumsum(k + 1)[:-1]])
    return [np.arange(offsets[j], offsets[j] + k[j] + 1) for j in keep]


def pad_categories(segments: list[np.ndarray], width: int) -> np.ndarray:
    """Stack per-feature (..., k_j + 1) arrays into (..., V, width), NaN beyond each segment."""
    lead = segments[0].shape[:-1]
    out = np.full((*lead, len(segments), width), np.nan)
    for j, seg in enumerate(segments):
        out[..., j, : seg.shape[-1]] = seg
    return out
