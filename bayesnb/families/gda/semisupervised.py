"""GDA with unlabelled documents: the Normal-Inverse-Wishart prior density and the expected
log-likelihood of variational Bayes.

Soft statistics take the default weighted pass per class (the Chan–Golub–LeVeque merge of
K weighted batches).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import digamma

from bayesnb.posterior.prior_density import (
    inverse_gamma_log_density,
    inverse_wishart_log_density,
    multivariate_normal_log_density,
    normal_log_density,
)

__all__ = ["GDASemisupervised"]

_LOG_2PI = float(np.log(2.0 * np.pi))


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

    def expected_log_likelihood(self, est, X) -> np.ndarray:
        """See :meth:`bayesnb.families.Family.expected_log_likelihood`.

        Under q(μ_c, Σ) = N(μ_c | m_c, Σ/κ_c) · IW(Σ | Ψ, ν) (Σ_c per class)::

            E[log N(x | μ_c, Σ)] = −½ [d log 2π + E log|Σ| + ν (x − m_c)ᵀ Ψ⁻¹ (x − m_c) + d/κ_c]

        with E log|Σ| = log|Ψ| − Σ_{i=1..d} ψ((ν − i + 1)/2) − d log 2; the diagonal model
        per feature, σ² ~ InvGamma(a, b): E[1/σ²] = a/b, E log σ² = log b − ψ(a).
        """
        if est._missing_mask(X) is not None:
            # The observed block of an unknown Σ is IW with fewer degrees of freedom: not built.
            raise ValueError(
                "SemiSupervisedNB(inference='vb') needs complete rows for GDA: impute the "
                "missing values or use inference='em'"
            )
        post = est.posterior_
        means, kappa, psi = post.mu, post.kappa, post.psi
        n_classes, d = means.shape
        nu = np.broadcast_to(post.nu, (n_classes,))
        out = np.empty((X.shape[0], n_classes))
        for c in range(n_classes):
            r = X - means[c]
            if post.covariance_type == "diagonal":
                a, b = 0.5 * (nu[c] - d + 1.0), 0.5 * psi[c]
                e_log_det = float(np.sum(np.log(b)) - d * digamma(a))
                maha = (r * r) @ (a / b)
            else:
                L = np.linalg.cholesky(psi[c] if psi.ndim == 3 else psi)
                W = solve_triangular(L, r.T, lower=True)
                e_log_det = 2.0 * float(np.log(np.diag(L)).sum()) - d * np.log(2.0)
                e_log_det -= float(digamma(0.5 * (nu[c] - np.arange(d))).sum())
                maha = nu[c] * np.einsum("ij,ij->j", W, W)
            out[:, c] = -0.5 * (d * _LOG_2PI + e_log_det + maha + d / kappa[c])
        return out
