"""The Normal-Inverse-Wishart prior of Gaussian discriminant analysis.

``μ_c | Σ ~ N(mu0, Σ / kappa0)`` for every class and ``Σ ~ IW(psi0, nu0)`` (one Σ shared by
the classes, or one per class). The diagonal model uses the per-feature marginal of the same
prior: ``σ²_j ~ InvGamma((nu0 − d + 1)/2, psi0_jj / 2)`` and ``μ_cj | σ²_j ~ N(mu0_j,
σ²_j / kappa0)``, a Normal-Inverse-Gamma prior on every feature.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np

__all__ = ["NormalInverseWishart", "default_psi0_diagonal"]

# Variances below this fraction of the largest one count as zero when the default Ψ0 is built.
_VAR_FLOOR = 1e-9


def _real(value, name: str) -> float:
    if not isinstance(value, Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return float(value)


def _float_array(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return arr


def default_psi0_diagonal(data_var: np.ndarray, nu0: float, top=None) -> np.ndarray:
    """Diagonal of the data-scaled default Ψ0, ``(nu0 − d − 1) · max(v, floor)``.

    ``data_var`` is (..., d): the last axis holds one data set's per-feature variances, so a
    stack of data sets (leave-one-out: one per left-out document) resolves in one call.
    ``top`` (optional, broadcasting against ``data_var``): an upper bound of each data set's
    largest variance; where every variance is at least twice the floor of that bound (twice:
    rounding), no floor applies and the per-data-set maximum is not taken.
    """
    v = np.asarray(data_var, dtype=np.float64)
    d = v.shape[-1]
    if top is not None and np.all(top > 0) and np.all(v >= (2.0 * _VAR_FLOOR) * top):
        return v * (nu0 - d - 1)
    top = v.max(axis=-1, keepdims=True) if d else np.zeros((*v.shape[:-1], 1))
    floor = np.where(top > 0, _VAR_FLOOR * top, 1.0)
    return np.maximum(v, floor) * (nu0 - d - 1)


@dataclass(frozen=True, eq=False)
class NormalInverseWishart:
    """Normal-Inverse-Wishart prior NIW(mu0, kappa0, psi0, nu0) on class means and covariance.

    Every hyperparameter left at None is set from the training data when the model is fitted
    (from the accumulated statistics, so ``partial_fit`` and ``fit`` resolve it identically).
    The defaults form a weakly informative prior on the scale of the data:

    - ``mu0`` = the pooled mean of all training data (classes ignored);
    - ``kappa0`` = 0.01: the class means carry one hundredth of an observation of prior
      weight, enough to keep an empty class defined, too little to move a class mean;
    - ``nu0`` = d + 2: the smallest integer for which the prior mean of Σ,
      ``psi0 / (nu0 − d − 1)``, exists;
    - ``psi0`` = ``(nu0 − d − 1) · diag(v)`` with ``v`` the per-feature variance of all
      training data (classes ignored), so the prior mean of Σ is ``diag(v)``.

    With these defaults the posterior mean of Σ is ``(diag(v) + S) / (N + 1)`` (shared): the
    prior is worth one observation of spread. ``v`` is the *total* variance, which can only
    exceed the within-class variance, so the prior errs towards wider classes. It makes Σ
    positive definite whatever the data (duplicate or collinear columns, fewer samples than
    features): that is what lets every estimate but ``"mle"`` fit such data. A feature that is
    constant in all training data gets ``v = 1e-9 · max(v)`` (1 if every feature is constant),
    scikit-learn's ``var_smoothing`` floor, so its Σ stays invertible.

    Parameters
    ----------
    mu0 : float or array-like of shape (n_features,), optional
        Prior mean of every class mean.
    kappa0 : float, default 0.01
        Prior pseudo-count of the class means, > 0.
    psi0 : float, array-like of shape (n_features,) or (n_features, n_features), optional
        Scale matrix of the inverse Wishart: a positive number (times the identity), a positive
        vector (the diagonal) or a symmetric positive definite matrix. The diagonal covariance
        model uses only its diagonal.
    nu0 : float, optional
        Degrees of freedom of the inverse Wishart, > n_features − 1.
    """

    mu0: float | np.ndarray | None = None
    kappa0: float = 0.01
    psi0: float | np.ndarray | None = None
    nu0: float | None = None

    def __post_init__(self) -> None:
        kappa0 = _real(self.kappa0, "kappa0")
        if kappa0 <= 0:
            raise ValueError(
                f"kappa0 must be > 0 (the prior pseudo-count of the class means), got {kappa0!r}"
            )
        if self.nu0 is not None:
            _real(self.nu0, "nu0")
        if self.mu0 is not None:
            mu0 = _float_array(self.mu0, "mu0")
            if mu0.ndim > 1:
                raise ValueError(f"mu0 must be a scalar or a 1-D vector, got shape {mu0.shape}")
        if self.psi0 is not None:
            psi0 = _float_array(self.psi0, "psi0")
            if psi0.ndim > 2:
                raise ValueError(
                    f"psi0 must be a scalar, a vector or a square matrix, got shape {psi0.shape}"
                )
            if psi0.ndim < 2 and np.any(psi0 <= 0):
                raise ValueError(f"psi0 must be positive, got {self.psi0!r}")

    def resolve(
        self, n_features: int, data_mean: np.ndarray, data_var: np.ndarray
    ) -> NormalInverseWishart:
        """The prior with every hyperparameter as a checked array for ``n_features`` features.

        Parameters
        ----------
        n_features : int
        data_mean, data_var : ndarray of shape (n_features,)
            Pooled mean and variance of the training data, used for hyperparameters left at
            None.

        Returns
        -------
        NormalInverseWishart
            ``mu0`` of shape (d,), ``psi0`` of shape (d, d), float ``kappa0`` and ``nu0``.
        """
        d = n_features
        nu0 = float(d + 2) if self.nu0 is None else float(self.nu0)
        if nu0 <= d - 1:
            raise ValueError(
                f"nu0 must be > n_features - 1 = {d - 1} for a proper inverse Wishart, got {nu0!r}"
            )
        if self.mu0 is None:
            mu0 = np.asarray(data_mean, dtype=np.float64).copy()
        else:
            mu0 = _float_array(self.mu0, "mu0")
            if mu0.ndim == 0:
                mu0 = np.full(d, float(mu0))
            elif mu0.shape != (d,):
                raise ValueError(
                    f"mu0 must be a scalar or have one value per feature ({d}), "
                    f"got shape {mu0.shape}"
                )
        psi0 = self._resolve_psi0(d, nu0, data_var)
        return NormalInverseWishart(mu0=mu0, kappa0=float(self.kappa0), psi0=psi0, nu0=nu0)

    def _resolve_psi0(self, d: int, nu0: float, data_var: np.ndarray) -> np.ndarray:
        if self.psi0 is None:
            if nu0 <= d + 1:
                raise ValueError(
                    f"the default psi0 sets the prior mean of Σ, psi0 / (nu0 - d - 1), to the data "
                    f"variances, which needs nu0 > n_features + 1 = {d + 1}; got nu0={nu0!r}. "
                    "Pass psi0 explicitly"
                )
            return np.diag(default_psi0_diagonal(data_var, nu0))
        psi0 = _float_array(self.psi0, "psi0")
        if psi0.ndim == 0:
            return np.eye(d) * float(psi0)
        if psi0.ndim == 1:
            if psi0.shape != (d,):
                raise ValueError(
                    f"psi0 as a vector must have one value per feature ({d}), got shape "
                    f"{psi0.shape}"
                )
            return np.diag(psi0)
        if psi0.shape != (d, d):
            raise ValueError(f"psi0 must be a ({d}, {d}) matrix, got shape {psi0.shape}")
        if not np.allclose(psi0, psi0.T, rtol=1e-10, atol=0.0):
            raise ValueError("psi0 must be symmetric positive definite; it is not symmetric")
        try:
            np.linalg.cholesky(psi0)
        except np.linalg.LinAlgError:
            raise ValueError(
                "psi0 must be symmetric positive definite; its Cholesky factorisation fails"
            ) from None
        return 0.5 * (psi0 + psi0.T)

    def as_dict(self) -> dict:
        return {
            "family": "NormalInverseWishart",
            "mu0": self.mu0,
            "kappa0": self.kappa0,
            "psi0": self.psi0,
            "nu0": self.nu0,
        }
