"""GDA with unlabelled documents: the Normal-Inverse-Wishart prior density.

Soft statistics take the default weighted pass per class (the Chan–Golub–LeVeque merge of
K weighted batches).
"""

from __future__ import annotations

import numpy as np

from bayesnb.posterior.prior_density import (
    inverse_gamma_log_density,
    inverse_wishart_log_density,
    multivariate_normal_log_density,
    normal_log_density,
)

__all__ = ["GDASemisupervised"]


class GDASemisupervised:
    """NIW density of the class means and covariance(s) at the MAP point.

    Shared Σ: IW(Σ | Ψ0, ν0) · Π_c N(μ_c | μ0, Σ/κ0), whose joint mode is the ``"map"``
    estimate; per class: the product over classes of IW(Σ_c) · N(μ_c | μ0, Σ_c/κ0);
    diagonal: per class and feature InvGamma(σ² | (ν0 − d + 1)/2, Ψ0_jj/2) · N(μ | μ0_j, σ²/κ0).
    """

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        prior, means, cov = est.prior_, est.means_, est.covariance_
        kind, k0, nu0 = est._stats.covariance, float(prior.kappa0), float(prior.nu0)
        mu0, psi0 = np.asarray(prior.mu0), np.asarray(prior.psi0)
        if kind == "shared":
            return inverse_wishart_log_density(cov, psi0, nu0) + multivariate_normal_log_density(
                means, mu0, cov / k0
            )
        if kind == "per_class":
            return sum(
                inverse_wishart_log_density(cov[c], psi0, nu0)
                + multivariate_normal_log_density(means[c], mu0, cov[c] / k0)
                for c in range(means.shape[0])
            )
        d = means.shape[1]
        var = cov if cov.ndim == 2 else np.diagonal(cov, axis1=1, axis2=2)
        shape, scale = 0.5 * (nu0 - d + 1.0), 0.5 * np.diag(psi0)
        return inverse_gamma_log_density(shape, scale, var) + normal_log_density(
            means, mu0, var / k0
        )
