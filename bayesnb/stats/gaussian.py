"""Sufficient statistics of Gaussian discriminant analysis (GDA).

Per class: the weighted count ``N_c``, the mean ``x̄_c`` and the within-class scatter
``S_c = Σ_{i∈c} w_i (x_i − x̄_c)(x_i − x̄_c)ᵀ``. They are kept as means and *centred*
scatters, never as raw sums of squares: ``Σ x xᵀ − N x̄ x̄ᵀ`` cancels catastrophically for data
far from the origin (features around 1e8 with unit spread lose every digit), centred scatters
lose none.

One batch is reduced by the two-pass algorithm with a correction term (mean, residuals, then
the mean of the residuals folded back in), batches are merged with the pairwise update of
Chan, Golub & LeVeque (1979)::

    N = N_a + N_b,   δ = x̄_b − x̄_a,   x̄ = x̄_a + δ N_b / N,
    S = S_a + S_b + (N_a N_b / N) δ δᵀ

with the means held as offsets from a common origin near the data, so that δ keeps full
precision too. ``partial_fit`` over chunks thus equals one ``fit`` up to rounding. What is
stored depends on the covariance model: the pooled ``Σ_c S_c`` (d × d) for ``"shared"``, every
``S_c`` (K × d × d) for ``"per_class"``, and only their diagonals (K × d) for ``"diagonal"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg.blas import dsyrk

from bayesnb.stats.discrete import CANCEL, count_classes, indicator

__all__ = ["COVARIANCE_TYPES", "GaussianStats", "gaussian_stats"]

COVARIANCE_TYPES = ("shared", "per_class", "diagonal")


def _scatter_shape(covariance: str, n_classes: int, n_features: int) -> tuple[int, ...]:
    if covariance == "shared":
        return (n_features, n_features)
    if covariance == "per_class":
        return (n_classes, n_features, n_features)
    if covariance == "diagonal":
        return (n_classes, n_features)
    raise ValueError(f"covariance must be one of {COVARIANCE_TYPES}, got {covariance!r}")


@dataclass
class GaussianStats:
    """Class counts, class means and centred within-class scatter of a Gaussian model.

    Class means are stored as offsets from an origin ``shift`` (a point near the data, fixed
    by the first batch): a mean around 1e8 is only representable to 1.5e-8, its offset from a
    nearby origin to full precision, and the merge of two batches subtracts means.

    Parameters
    ----------
    count : ndarray of shape (n_classes,)
        Weighted class counts ``N_c``.
    offset : ndarray of shape (n_classes, n_features)
        Class means minus ``shift``; 0 for a class without (weighted) samples.
    scatter : ndarray
        Within-class scatter: ``Σ_c S_c`` of shape (d, d) for ``"shared"``, ``S_c`` of shape
        (K, d, d) for ``"per_class"``, ``diag S_c`` of shape (K, d) for ``"diagonal"``.
    covariance : {"shared", "per_class", "diagonal"}
    shift : ndarray of shape (n_features,)
        The origin of ``offset``.
    """

    count: np.ndarray
    offset: np.ndarray
    scatter: np.ndarray
    covariance: str
    shift: np.ndarray

    @classmethod
    def empty(cls, n_classes: int, n_features: int, covariance: str) -> GaussianStats:
        """Statistics of no data (the neutral element of :meth:`merge`)."""
        shape = _scatter_shape(covariance, n_classes, n_features)
        zeros = np.zeros((n_classes, n_features))
        return cls(np.zeros(n_classes), zeros, np.zeros(shape), covariance, np.zeros(n_features))

    @property
    def mean(self) -> np.ndarray:
        """Class means ``x̄_c`` (``shift`` for a class without samples)."""
        return self.shift + self.offset

    @property
    def n_classes(self) -> int:
        return self.offset.shape[0]

    @property
    def n_features(self) -> int:
        return self.offset.shape[1]

    @property
    def total_count(self) -> float:
        return float(self.count.sum())

    def within_scatter_diag(self) -> np.ndarray:
        """Diagonal of the pooled within-class scatter ``Σ_c S_c``, shape (n_features,)."""
        if self.covariance == "shared":
            return np.diagonal(self.scatter).copy()
        if self.covariance == "per_class":
            return np.diagonal(self.scatter, axis1=1, axis2=2).sum(axis=0)
        return self.scatter.sum(axis=0)

    def pooled_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and (biased) per-feature variance of all data, classes ignored.

        The total scatter is the within-class scatter plus the between-class term
        ``Σ_c N_c (x̄_c − x̄)²``, so no raw second moment is ever formed.

        Returns
        -------
        mean, var : ndarray of shape (n_features,)
        """
        n = self.total_count
        if n <= 0:
            raise ValueError("no data: every sample weight is zero")
        off = (self.count / n) @ self.offset
        dev = self.offset - off
        total = self.within_scatter_diag() + self.count @ (dev * dev)
        return self.shift + off, total / n

    def rebase(self, shift: np.ndarray) -> GaussianStats:
        """The same statistics with class means stored as offsets from ``shift``."""
        if np.array_equal(shift, self.shift):
            return self
        offset = np.where(self.count[:, None] > 0, self.offset + (self.shift - shift), 0.0)
        return GaussianStats(self.count, offset, self.scatter, self.covariance, shift.copy())

    def merge(self, other: GaussianStats) -> GaussianStats:
        """Statistics of the union of two batches (Chan–Golub–LeVeque pairwise update)."""
        if other.covariance != self.covariance or other.offset.shape != self.offset.shape:
            raise ValueError(
                f"cannot merge {self.covariance!r} statistics of shape {self.offset.shape} "
                f"with {other.covariance!r} statistics of shape {other.offset.shape}"
            )
        if self.total_count == 0:
            return other
        other = other.rebase(self.shift)
        n = self.count + other.count
        safe = np.where(n > 0, n, 1.0)
        delta = other.offset - self.offset
        offset = self.offset + delta * (other.count / safe)[:, None]
        g = self.count * other.count / safe  # 0 whenever either side is empty
        scatter = self.scatter + other.scatter
        scatter += _between(delta, g, self.covariance)
        return GaussianStats(n, offset, scatter, self.covariance, self.shift)

    def subtract(self, other: GaussianStats) -> GaussianStats:
        """Statistics of this data without the batch ``other`` (the inverse of :meth:`merge`).

        Solving the Chan–Golub–LeVeque update for the remaining part ``a`` of ``self = a ∪ b``::

            N_a = N − N_b,   x̄_a = x̄ + (x̄ − x̄_b) N_b / N_a,   δ = x̄_b − x̄_a,
            S_a = S − S_b − (N_a N_b / N) δ δᵀ

        A class whose remaining count is rounding noise (at most ``1e-12`` of its count, as
        when every one of its documents is removed) becomes empty: count, offset and (per
        class) scatter exactly 0, as a refit on the remaining data has them.
        """
        if other.covariance != self.covariance or other.offset.shape != self.offset.shape:
            raise ValueError(
                f"cannot subtract {other.covariance!r} statistics of shape {other.offset.shape} "
                f"from {self.covariance!r} statistics of shape {self.offset.shape}"
            )
        if np.any(other.count > self.count * (1.0 + 1e-12) + 1e-300):
            raise ValueError(
                "cannot subtract statistics of more (weighted) samples than were merged: the "
                "batch is not part of the fitted data"
            )
        other = other.rebase(self.shift)
        n = self.count - other.count
        empty = n <= CANCEL * self.count  # rounding noise of the weights' sums: empty
        n = np.where(empty, 0.0, n)
        safe = np.where(empty, 1.0, n)
        offset = self.offset + (self.offset - other.offset) * (other.count / safe)[:, None]
        offset[empty] = 0.0
        delta = other.offset - offset
        g = np.where(empty, 0.0, n * other.count / np.where(self.count > 0, self.count, 1.0))
        scatter = self.scatter - other.scatter
        scatter -= _between(delta, g, self.covariance)
        if self.covariance != "shared":
            scatter[empty] = 0.0
        if not n.any():
            scatter[...] = 0.0
        return GaussianStats(
            n, offset, _symmetrize(scatter, self.covariance), self.covariance, self.shift
        )


def _between(delta: np.ndarray, g: np.ndarray, covariance: str) -> np.ndarray:
    """The merge's between-batch term ``g_c δ_c δ_cᵀ`` in the layout of ``covariance``."""
    if covariance == "shared":
        return (delta * g[:, None]).T @ delta
    if covariance == "per_class":
        return g[:, None, None] * (delta[:, :, None] * delta[:, None, :])
    return g[:, None] * (delta * delta)


def gaussian_stats(
    X: np.ndarray,
    codes: np.ndarray,
    weights: np.ndarray,
    n_classes: int,
    covariance: str,
    shift: np.ndarray | None = None,
) -> GaussianStats:
    """Sufficient statistics of one batch.

    Two passes over ``X``: class sums give provisional means ``m``; the residuals
    ``r = x − m_{y}`` are then summed again, and their mean ``e_c`` (the rounding error of the
    first pass, tiny but not zero for data far from the origin) corrects both the mean and the
    scatter: ``S_c = Σ w r rᵀ − N_c e_c e_cᵀ``. The scatter is one BLAS product of the
    residual matrix with itself (``Rᵀ R``, BLAS ``syrk``); no Python loop runs over rows.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Dense float64 features.
    codes : ndarray of intp, shape (n_samples,)
        Class index of every row.
    weights : ndarray of shape (n_samples,)
        Non-negative sample weights.
    n_classes : int
    covariance : {"shared", "per_class", "diagonal"}
    shift : ndarray of shape (n_features,), optional
        Origin of the stored class means (pass the one of the statistics this batch will be
        merged into); default the weighted mean of the batch.

    Returns
    -------
    GaussianStats
    """
    _scatter_shape(covariance, n_classes, X.shape[1])
    count = count_classes(codes, weights, n_classes)
    safe = np.where(count > 0, count, 1.0)[:, None]
    Yt = indicator(codes, n_classes, weights).T.tocsr()
    sums = np.asarray(Yt @ X)
    mean = sums / safe
    if shift is None:
        total = count.sum()
        shift = sums.sum(axis=0) / total if total > 0 else np.zeros(X.shape[1])
    R = mean[codes]
    np.subtract(X, R, out=R)
    err = np.asarray(Yt @ R) / safe
    # m − shift is exact for nearby values (Sterbenz), so the offset keeps every digit of err.
    offset = np.where(count[:, None] > 0, (mean - shift) + err, 0.0)
    unit = bool(np.all(weights == 1.0))
    if not unit:
        # √w on the rows makes the weighted scatter a plain Gram matrix again.
        R *= np.sqrt(weights)[:, None]
    correction = err * count[:, None]
    if covariance == "shared":
        scatter = _gram(R) - correction.T @ err
    elif covariance == "per_class":
        scatter = np.empty((n_classes, X.shape[1], X.shape[1]))
        for c in range(n_classes):
            scatter[c] = _gram(R[codes == c]) - np.outer(correction[c], err[c])
    else:
        R *= R
        unit_t = indicator(codes, n_classes).T.tocsr()
        scatter = np.asarray(unit_t @ R) - correction * err
    scatter = _symmetrize(scatter, covariance)
    return GaussianStats(count, offset, scatter, covariance, np.asarray(shift, dtype=np.float64))


def _gram(R: np.ndarray) -> np.ndarray:
    """``Rᵀ R`` by BLAS ``syrk`` (half the flops of a general product, threaded).

    ``R.T`` of a C-ordered ``R`` is Fortran-ordered, so it reaches BLAS without a copy; the
    upper triangle is then mirrored.
    """
    if R.shape[0] == 0:
        return np.zeros((R.shape[1], R.shape[1]))
    upper = dsyrk(1.0, np.ascontiguousarray(R).T, trans=0, lower=0)
    return np.triu(upper) + np.triu(upper, 1).T


def _symmetrize(scatter: np.ndarray, covariance: str) -> np.ndarray:
    if covariance == "diagonal":
        return np.maximum(scatter, 0.0)
    return 0.5 * (scatter + np.swapaxes(scatter, -1, -2))
