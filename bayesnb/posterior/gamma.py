"""Gamma posterior of the Poisson event model, and its point estimates and predictive.

Prior λ_cj ~ Gamma(α_j, β_j) (shape α, **rate** β: mean α/β); with per-class feature sums
S_cj = Σ_{i∈c} w_i x_ij and class counts N_c = Σ_{i∈c} w_i the posterior is
Gamma(α_j + S_cj, β_j + N_c). With missing values (``missing="ignore"``) N_c becomes N_cj, the
weighted documents of class c in which feature j is observed (``counts`` of shape (K, V)); every
formula below holds with N_cj in place of N_c. The four estimates:

- ``"mle"``: S_cj / N_c (a zero sum gives λ = 0, ``log λ = -inf``; 0/0 for a class without
  documents is ``-inf`` too, as in :mod:`bayesnb.posterior.discrete`);
- ``"map"``: (α_j + S_cj − 1) / (β_j + N_c), the mode, which is interior only for α ≥ 1;
- ``"mean"``: (α_j + S_cj) / (β_j + N_c);
- ``"bayes"``: the posterior predictive of a count, negative binomial with
  r = α_j + S_cj and p = (β_j + N_c) / (β_j + N_c + 1) (number of "failures" x before r
  "successes": P(x) = Γ(r + x)/(Γ(r) x!) p^r (1 − p)^x, scipy's ``nbinom(r, p)``); its mean is
  the posterior mean, which is the table ``log_estimate("bayes")`` returns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import digamma

from bayesnb.posterior.discrete import log_ratio

__all__ = ["GammaPosterior", "check_gamma_mode"]


def check_gamma_mode(estimate: str, alpha) -> None:
    """Refuse ``estimate="map"`` when some prior shape α < 1 (the mode would be λ = 0)."""
    if estimate == "map" and np.any(np.asarray(alpha) < 1):
        raise ValueError(
            "estimate='map' needs alpha >= 1: with a Gamma shape alpha < 1 the posterior mode "
            "of a rate whose feature never occurred in a class is λ = 0 (the density is "
            "unbounded there), not an interior point. Use estimate='mean' (the posterior mean "
            "exists for every alpha > 0)."
        )


@dataclass
class GammaPosterior:
    """Gamma(α + S, β + N) on every Poisson rate λ_cj.

    Parameters
    ----------
    alpha, beta : float or ndarray of shape (n_features,)
        Prior shape and rate (both > 0).
    sums : ndarray of shape (n_classes, n_features)
        Weighted per-class feature sums ``S_cj``.
    counts : ndarray of shape (n_classes,) or (n_classes, n_features)
        Weighted class counts ``N_c``, or per-(class, feature) observed counts ``N_cj``.
    """

    alpha: float | np.ndarray
    beta: float | np.ndarray
    sums: np.ndarray
    counts: np.ndarray

    @property
    def shape(self) -> np.ndarray:
        """Posterior shape ``α + S``, (n_classes, n_features)."""
        return self.sums + self.alpha

    @property
    def trials(self) -> np.ndarray:
        """Documents behind every rate, ``N_c`` (or ``N_cj``), broadcast to (K, V)."""
        n = np.asarray(self.counts, dtype=np.float64)
        return np.broadcast_to(n[:, None] if n.ndim == 1 else n, self.sums.shape)

    @property
    def rate(self) -> np.ndarray:
        """Posterior rate ``β + N_c`` (``β + N_cj``), broadcast to (n_classes, n_features)."""
        return np.broadcast_to(self.trials + np.asarray(self.beta), self.sums.shape)

    def _fraction(self, estimate: str) -> tuple[np.ndarray, np.ndarray]:
        s = self.sums
        if estimate == "mle":
            return s, self.trials
        if estimate == "map":
            check_gamma_mode(estimate, self.alpha)
            return s + (np.asarray(self.alpha) - 1.0), self.rate
        return self.shape, self.rate

    def estimate(self, estimate: str) -> np.ndarray:
        """The rate table λ_cj of ``"mle"``, ``"map"``, ``"mean"`` (``"bayes"``: the mean).

        0/0 (the MLE of a class without documents) is 0, matching ``log_estimate``.
        """
        num, den = self._fraction(estimate)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = num / den
        return np.where(np.isnan(out), 0.0, out)

    def log_estimate(self, estimate: str) -> np.ndarray:
        """``log λ_cj`` of the estimate (``-inf`` for a zero rate)."""
        return log_ratio(*self._fraction(estimate))

    def predictive(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Negative-binomial predictive ``(r, log p, log(1 − p))``, each (n_classes, n_features).

        ``log p = −log1p(1/ρ)`` and ``log(1 − p) = −log1p(ρ)`` with ρ = β + N_c the posterior
        rate: both keep full precision when ρ is large (p near 1).
        """
        rho = self.rate
        return self.shape, -np.log1p(1.0 / rho), -np.log1p(rho)

    def log_expectation(self) -> np.ndarray:
        """``E[log λ] = ψ(α + S) − log(β + N)`` under the posterior, (n_classes, n_features)."""
        return digamma(self.shape) - np.log(self.rate)

    def mean(self) -> np.ndarray:
        """Posterior mean ``(α + S) / (β + N)``."""
        return self.shape / self.rate

    def var(self) -> np.ndarray:
        """Posterior variance ``(α + S) / (β + N)²``."""
        return self.shape / self.rate**2
