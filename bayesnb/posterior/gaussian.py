"""The Normal-Inverse-Wishart posterior of GDA, its point estimates and its predictive.

Conjugate update, with ``x̄_c`` the class means, ``S_c`` the centred
within-class scatters and ``N`` the total (weighted) count::

    κ_c = κ0 + N_c
    μ_c = (κ0 μ0 + N_c x̄_c) / κ_c
    ν   = ν0 + N                 (shared Σ)      ν_c = ν0 + N_c          (per class)
    Ψ   = Ψ0 + Σ_c [S_c + (κ0 N_c / κ_c)(x̄_c − μ0)(x̄_c − μ0)ᵀ]      (shared; per class: one term)

The diagonal model applies the same update to the diagonal alone: feature j of class c has a
Normal-Inverse-Gamma posterior with shape ``(ν_c − d + 1)/2`` and scale ``Ψ_c,jj / 2``.

Estimates of Σ: ``"mle"`` the within-class scatter over the count; ``"map"`` the joint mode of
all class means and Σ, ``Ψ / (ν + d + 1 + K)`` for one Σ shared by K classes (each class mean
contributes a factor ``|Σ|^(-1/2)`` to the joint density) and ``Ψ_c / (ν_c + d + 2)`` per class
(``Ψ_c,jj / (ν_c − d + 4)`` for the diagonal model, the mode of its Normal-Inverse-Gamma);
``"mean"`` the posterior mean ``Ψ / (ν − d − 1)``. The class means are ``x̄_c`` under
``"mle"`` and ``μ_c`` otherwise (posterior mode and mean coincide). ``"bayes"`` integrates
(μ_c, Σ) out: a multivariate Student-t with ``ν − d + 1`` degrees of freedom, location ``μ_c``
and scale ``Ψ (κ_c + 1) / (κ_c (ν − d + 1))``.

Every covariance is handed to scoring as a Cholesky factor; a singular or ill-conditioned one
raises a ValueError that names the problem and the remedy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg.lapack import dpotrf

from bayesnb.priors.gaussian import NormalInverseWishart
from bayesnb.stats.gaussian import GaussianStats

__all__ = ["GaussianEstimate", "NormalInverseWishartPosterior", "StudentTPredictive"]

# A feature whose variance left unexplained by the features before it (the squared Cholesky
# pivot of the correlation matrix, 1 − R²) is below this is treated as collinear: scores would
# lose about -log10(pivot) digits.
_MIN_PIVOT = 1e-10
_EPS = np.finfo(np.float64).eps

_MLE_REMEDY = (
    "estimate='mle' has no regularisation; use a prior instead: estimate='mean' (or 'map', "
    "'bayes') with the default NormalInverseWishart prior keeps Σ positive definite"
)
_PRIOR_REMEDY = (
    "the prior scale psi0 is too small to regularise it; increase psi0 or leave it at its "
    "data-scaled default (psi0=None)"
)


@dataclass
class GaussianEstimate:
    """A point estimate of the class means and covariance, ready to score.

    Attributes
    ----------
    means : ndarray of shape (n_classes, n_features)
        NaN for a class that cannot be estimated (no samples, ``"mle"``).
    covariance : ndarray
        (d, d) shared, (K, d, d) per class, (K, d) diagonal variances.
    factor : ndarray
        Lower Cholesky factor(s) of ``covariance`` (same shape); the variances themselves for
        the diagonal model.
    covariance_type : str
    valid : ndarray of bool, shape (n_classes,)
        Classes with an estimate; the others score ``-inf``.
    """

    means: np.ndarray
    covariance: np.ndarray
    factor: np.ndarray
    covariance_type: str
    valid: np.ndarray


@dataclass
class StudentTPredictive:
    """The posterior predictive: a (multivariate) Student-t per class.

    Attributes
    ----------
    loc : ndarray of shape (n_classes, n_features)
        Posterior means μ_c.
    psi_factor : ndarray
        Lower Cholesky factor of Ψ, (d, d) shared or (K, d, d) per class; Ψ's diagonal,
        (K, d), for the diagonal model.
    kappa : ndarray of shape (n_classes,)
    dof : ndarray of shape (n_classes,)
        Degrees of freedom ``ν − d + 1``.
    covariance_type : str

    Notes
    -----
    The scale matrix of class c is ``Ψ (κ_c + 1) / (κ_c · dof_c)``; scoring uses it through
    ``psi_factor`` and the scalar factor, so one factorisation serves every class of the
    shared model.
    """

    loc: np.ndarray
    psi_factor: np.ndarray
    kappa: np.ndarray
    dof: np.ndarray
    covariance_type: str


@dataclass
class NormalInverseWishartPosterior:
    """NIW posterior of GDA: the (resolved) prior and the sufficient statistics.

    Both are kept, not only their combination, so ``"mle"`` is computed from the statistics
    alone and stays exact whatever the prior.

    Parameters
    ----------
    prior : NormalInverseWishart
        A resolved prior (array hyperparameters, see :meth:`NormalInverseWishart.resolve`).
    stats : GaussianStats
    classes : ndarray, optional
        Class labels, only used to name classes in error messages.
    """

    prior: NormalInverseWishart
    stats: GaussianStats
    classes: np.ndarray | None = None

    @classmethod
    def from_stats(
        cls,
        prior: NormalInverseWishart | None,
        stats: GaussianStats,
        classes: np.ndarray | None = None,
    ) -> NormalInverseWishartPosterior:
        """Resolve ``prior`` (None: the data-scaled default) against ``stats`` and combine."""
        prior = NormalInverseWishart() if prior is None else prior
        mean, var = stats.pooled_moments()
        return cls(prior.resolve(stats.n_features, mean, var), stats, classes)

    # -- hyperparameters ---------------------------------------------------------------------
    @property
    def covariance_type(self) -> str:
        return self.stats.covariance

    @property
    def kappa(self) -> np.ndarray:
        """κ_c = κ0 + N_c, shape (n_classes,)."""
        return self.prior.kappa0 + self.stats.count

    @property
    def mu(self) -> np.ndarray:
        """Posterior means μ_c, shape (n_classes, n_features)."""
        # x̄ + (κ0/κ)(μ0 − x̄) around the statistics' origin: exact for data far from 0, and
        # μ0 for an empty class.
        st = self.stats
        off = st.offset
        rel = (self.prior.kappa0 / self.kappa)[:, None] * ((self.prior.mu0 - st.shift) - off)
        return st.shift + (off + rel)

    @property
    def nu(self) -> np.ndarray:
        """ν0 + N (shared, a scalar) or ν0 + N_c (per class and diagonal, shape (n_classes,))."""
        if self.covariance_type == "shared":
            return np.asarray(self.prior.nu0 + self.stats.total_count)
        return self.prior.nu0 + self.stats.count

    @property
    def psi(self) -> np.ndarray:
        """Posterior scale Ψ: (d, d) shared, (K, d, d) per class, (K, d) diagonal."""
        st, pr = self.stats, self.prior
        dev = st.offset - (pr.mu0 - st.shift)
        g = pr.kappa0 * st.count / self.kappa
        if self.covariance_type == "shared":
            psi = pr.psi0 + st.scatter + (dev * g[:, None]).T @ dev
            return 0.5 * (psi + psi.T)
        if self.covariance_type == "per_class":
            return pr.psi0 + st.scatter + g[:, None, None] * (dev[:, :, None] * dev[:, None, :])
        return np.diag(pr.psi0) + st.scatter + g[:, None] * dev * dev

    @property
    def dof(self) -> np.ndarray:
        """Student-t degrees of freedom ``ν − d + 1`` of every class, shape (n_classes,)."""
        d = self.stats.n_features
        return np.broadcast_to(self.nu - d + 1.0, self.stats.count.shape).copy()

    # -- estimates ---------------------------------------------------------------------------
    def point_estimate(self, estimate: str) -> GaussianEstimate:
        """Class means and covariance under ``"mle"``, ``"map"`` or ``"mean"``, factorised."""
        if estimate == "mle":
            return self._mle()
        if estimate not in ("map", "mean"):
            raise ValueError(
                f"point_estimate takes 'mle', 'map' or 'mean', got {estimate!r}; "
                "'bayes' is the Student-t predictive (see predictive())"
            )
        kind, d = self.covariance_type, self.stats.n_features
        psi, nu = self.psi, self.nu
        if estimate == "map":
            if kind == "shared":
                den = nu + d + 1.0 + self.stats.n_classes
            elif kind == "per_class":
                den = nu + d + 2.0
            else:
                den = nu - d + 4.0
        else:
            den = nu - d - 1.0
            if np.any(den <= 0):
                raise ValueError(
                    f"estimate='mean': the posterior mean of Σ, Ψ/(ν - d - 1), needs ν > d + 1 "
                    f"= {d + 1}, but ν = {np.min(nu):g}; raise the prior's nu0 or use "
                    "estimate='map' or 'bayes'"
                )
        den = np.asarray(den, dtype=np.float64)
        cov = psi / (den if kind == "shared" else den.reshape((-1,) + (1,) * (psi.ndim - 1)))
        means = self.mu
        valid = np.ones(self.stats.n_classes, dtype=bool)
        factor = self._factorise(cov, means, valid, _PRIOR_REMEDY, f"estimate={estimate!r}")
        return GaussianEstimate(means, cov, factor, kind, valid)

    def _mle(self) -> GaussianEstimate:
        st, kind = self.stats, self.covariance_type
        valid = st.count > 0
        means = np.where(valid[:, None], st.mean, np.nan)
        if kind == "shared":
            cov = st.scatter / st.total_count
        else:
            shape = (-1,) + (1,) * (st.scatter.ndim - 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                cov = st.scatter / st.count.reshape(shape)
            cov[~valid] = np.nan
        factor = self._factorise(cov, means, valid, _MLE_REMEDY, "estimate='mle'")
        return GaussianEstimate(means, cov, factor, kind, valid)

    def predictive(self) -> StudentTPredictive:
        """The Student-t posterior predictive of every class (the ``"bayes"`` estimate)."""
        kind = self.covariance_type
        psi = self.psi
        valid = np.ones(self.stats.n_classes, dtype=bool)
        factor = self._factorise(psi, self.mu, valid, _PRIOR_REMEDY, "estimate='bayes': Ψ")
        return StudentTPredictive(self.mu, factor, self.kappa, self.dof, kind)

    def mean_covariance(self) -> np.ndarray:
        """Posterior mean of Σ (same shapes as :attr:`psi`)."""
        return self.point_estimate("mean").covariance

    # -- factorisation -----------------------------------------------------------------------
    def _class_name(self, c: int) -> str:
        return (
            repr(np.asarray(self.classes)[c : c + 1].tolist()[0])
            if self.classes is not None
            else f"#{c}"
        )

    def _factorise(self, cov, means, valid, remedy: str, context: str) -> np.ndarray:
        kind, n = self.covariance_type, self.stats.count
        d = self.stats.n_features
        if kind == "shared":
            scale = np.nanmax(np.abs(means), axis=0) if valid.any() else np.zeros(d)
            what = f"{context}: the pooled within-class covariance"
            return _cholesky(cov, scale, what, remedy, self.stats.total_count)
        factor = np.zeros_like(cov)
        for c in np.flatnonzero(valid):
            what = f"{context}: the covariance of class {self._class_name(c)} (N_c = {n[c]:g})"
            if kind == "per_class":
                factor[c] = _cholesky(cov[c], np.abs(means[c]), what, remedy, n[c])
            else:
                _check_variances(cov[c], np.abs(means[c]), what, remedy, n[c])
                factor[c] = cov[c]
        return factor


def _constant_features(var: np.ndarray, scale: np.ndarray) -> np.ndarray:
    # Below ~4 ulp of the feature's magnitude a spread is rounding noise, not data.
    return np.flatnonzero(~(var > (4.0 * _EPS * scale) ** 2))


def _check_variances(var, scale, what: str, remedy: str, n_samples: float) -> None:
    bad = _constant_features(var, scale)
    if bad.size:
        why = (
            f"{n_samples:g} sample(s) have no spread"
            if n_samples <= 1
            else "constant within the class(es)"
        )
        raise ValueError(
            f"{what} is singular: feature(s) {bad[:10].tolist()} have zero variance ({why}). "
            f"{remedy}"
        )


def _cholesky(cov, scale, what: str, remedy: str, n_samples: float) -> np.ndarray:
    """Lower Cholesky factor of ``cov``, refusing singular or ill-conditioned matrices.

    Conditioning is judged scale-free, by the squared pivots of the correlation matrix
    (``L_jj² / Σ_jj`` = 1 − R², the share of feature j's variance not explained by the
    features before it), so a covariance with features on wildly different scales (condition
    number 1e11 and more) is accepted while collinear columns are not.
    """
    diag = np.diagonal(cov)
    _check_variances(diag, scale, what, remedy, n_samples)
    L, info = dpotrf(cov, lower=1, clean=1, overwrite_a=0)
    if info == 0:
        pivot = np.diagonal(L) ** 2 / diag
        j = int(np.argmin(pivot))
        if pivot[j] >= _MIN_PIVOT:
            return L
        where = f"1 - R² = {pivot[j]:.1e}"
    else:
        # LAPACK reports the first leading minor that is not positive definite.
        j, where = int(info) - 1, "1 - R² <= 0"
    raise ValueError(
        f"{what} is singular or ill-conditioned: feature {j} is (numerically) a linear "
        f"combination of the features before it ({where}). Duplicate or collinear columns, or "
        f"too few samples for the features ({n_samples:g} for {cov.shape[0]}), make Σ "
        f"singular. {remedy}"
    )
