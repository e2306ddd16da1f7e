"""GDA family methods: evidence, learned priors, LOO, compare."""

from __future__ import annotations

import numpy as np

from bayesnb.posterior.evidence import niw_log_evidence
from bayesnb.stats.missing import missing_patterns, missing_rows

__all__ = ["GDAEvidence"]

_LOG_2PI = float(np.log(2.0 * np.pi))


def _gaussian_jll(X: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """log N(x_i | μ_sc, Σ_s[c]) for a block of draws: shape (n_docs, draws, n_classes).

    ``mean`` is (draws, K, d); ``cov`` is (draws, d, d) (shared) or (draws, K, d, d).
    """
    d = X.shape[1]
    L = np.linalg.cholesky(cov)
    if L.ndim == 3:
        L = L[:, None]  # one Σ for every class
    L_inv_t = np.swapaxes(np.linalg.inv(L), -1, -2)
    # Whitened residuals (draws, K, N, d): L⁻¹(x − μ) as row vectors.
    W = (X[None, None, :, :] - mean[:, :, None, :]) @ L_inv_t
    q = np.einsum("mknd,mknd->mkn", W, W)
    log_det = 2.0 * np.log(np.diagonal(L, axis1=-2, axis2=-1)).sum(axis=-1)  # (m, K or 1)
    jll = -0.5 * (q + log_det[..., None] + d * _LOG_2PI)
    return np.transpose(jll, (2, 0, 1))


def _gaussian_jll_missing(X: np.ndarray, M, mean: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """:func:`_gaussian_jll` with missing coordinates marginalised out, pattern by pattern."""
    out = np.zeros((X.shape[0], mean.shape[0], mean.shape[1]))
    full = ~missing_rows(M)
    if full.any():
        out[full] = _gaussian_jll(X[full], mean, cov)
    for rows, obs in missing_patterns(M):
        if obs.size:  # a document with nothing observed scores 0 under every class
            sub = cov[..., obs[:, None], obs[None, :]]
            out[rows] = _gaussian_jll(X[np.ix_(rows, obs)], mean[..., obs], sub)
    return out


class GDAEvidence:
    """Family methods of GDA for evidence; see :class:`bayesnb.families.Family`."""

    informative_refusal = "GDA has no per-class feature probabilities (compare its coef_ instead)"

    def feature_log_evidence(self, est) -> float:
        return niw_log_evidence(est.posterior_)

    def loo_cells_per_draw(self, est, n_docs: int) -> int:
        n_classes, d = len(est.classes_), est.n_features_in_
        # The parameters, and the whitened residuals of every document under every class.
        return n_classes * d * (d + 1) + 2 * n_classes * n_docs * d

    def loo_view(self, est, Xc) -> tuple:
        # NaN stays in X: the missing patterns marginalise the Gaussian per document.
        _, M = est._split_missing(Xc)
        return est._encode(Xc), M

    def loo_draws_jll(self, est, Xc, M, values: dict) -> np.ndarray:
        if M is None:
            return _gaussian_jll(Xc, values["mean"], values["cov"])
        return _gaussian_jll_missing(Xc, M, values["mean"], values["cov"])

    def n_feature_parameters(self, est) -> int:
        k, d = len(est.classes_), est.n_features_in_
        cov = {"shared": d * (d + 1) // 2, "per_class": k * d * (d + 1) // 2, "diagonal": k * d}
        return k * d + cov[est.covariance]
