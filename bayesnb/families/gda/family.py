"""The gda family object, registered under ``"gda"``."""

from __future__ import annotations

from bayesnb.families import Family, register
from bayesnb.families._examples import gaussian_data
from bayesnb.families._protocol import per_class
from bayesnb.families.gda.crossval import GDACrossval
from bayesnb.families.gda.estimator import GDA
from bayesnb.families.gda.evidence import GDAEvidence
from bayesnb.families.gda.pymc import GDAPyMC
from bayesnb.families.gda.sampling import GDASampling
from bayesnb.families.gda.semisupervised import GDASemisupervised
from bayesnb.families.gda.storage import GDAStorage

__all__ = ["FAMILY", "GDAFamily"]


class GDAFamily(
    GDACrossval,
    GDASampling,
    GDAStorage,
    GDAEvidence,
    GDAPyMC,
    GDASemisupervised,
    Family,
):
    """The gda family: :class:`~bayesnb.families.Family` for :class:`GDA`."""

    name = "gda"
    estimator = GDA

    # command line, scale-out
    cli = True
    cli_help = "continuous data only"
    cli_no_alpha = "its prior is Normal-Inverse-Wishart"
    data_kinds = ("continuous",)

    def example_data(self, est, n, rng):
        """See :meth:`Family.example_data`."""
        return gaussian_data(n, rng)

    def fixed_prior_params(self, est) -> dict:
        """The data-scaled default prior, resolved against the training data."""
        return {"prior": est.posterior_.prior}

    # inspection
    def inspect_statistics(self, est) -> list[tuple[str, str]]:
        """Documents per class, the covariance structure and the first class means."""
        stats = est._stats
        lines = [*super().inspect_statistics(est), ("covariance", str(stats.covariance))]
        names = getattr(est, "feature_names_in_", None)
        for j in range(min(3, est.n_features_in_)):
            means = stats.shift[j] + stats.offset[:, j]
            name = f"x{j}" if names is None else str(names[j])
            lines.append((f"class means of {name}", per_class(est, means, ".4g")))
        return lines


FAMILY = register(GDAFamily())
