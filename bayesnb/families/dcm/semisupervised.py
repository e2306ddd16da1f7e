"""The DCM family with unlabelled documents: the Gamma prior density of its concentrations.

Soft statistics take the default weighted pass per class: the Pólya statistics are
histograms of (feature, count) cells, not linear in X.
"""

from __future__ import annotations

from bayesnb.posterior.prior_density import gamma_log_density

__all__ = ["DCMSemisupervised"]


class DCMSemisupervised:
    """Independent Gamma(``prior_shape``, ``prior_rate``) densities of every β_cj."""

    def feature_log_prior_density(self, est) -> float:
        """See :meth:`bayesnb.families.Family.feature_log_prior_density`."""
        return gamma_log_density(float(est.prior_shape), float(est.prior_rate), est.concentration_)
