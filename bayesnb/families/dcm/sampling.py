"""DirichletCompoundNB family methods: point estimates, draws, summaries, synthetic data.

The DCM's Gamma prior on β is not conjugate: its draws and summaries come from the Laplace
approximation of p(ln β_c | data) at its mode (:class:`bayesnb.posterior.polya.
LaplacePosterior`), not from the posterior itself (``fit_pymc`` samples that with NUTS).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.families._discrete_sampling import _DiscreteSampling
from bayesnb.posterior.documents import draw_lengths, polya_urn

__all__ = ["DCMSampling"]


class DCMSampling(_DiscreteSampling):
    """Family methods of DirichletCompoundNB for sampling; see :class:`bayesnb.families.Family`.

    Variables: ``concentration`` (β_cj, the Dirichlet of each document's word distribution)
    and ``feature_prob`` = β_c / B_c.
    """

    var_names = ("class_prior", "concentration", "feature_prob")

    def point_values(self, est, view, names: list[str], features) -> dict[str, np.ndarray]:
        """β_c of the estimate (``concentration_`` refuses ``"bayes"`` itself) and β_c / B_c."""
        values: dict[str, np.ndarray] = {}
        if "concentration" in names:
            beta = view.concentration_
            values["concentration"] = beta if features is None else beta[:, features]
        return values | super().point_values(est, view, names, features)

    def draw_cost(self, est, names: list[str], features) -> tuple[str, int, str]:
        """β is drawn over every column (B needs them), plus β / B."""
        cells = 2 * self._table_cells(est, None)
        return "concentration and feature_prob", cells, "classes × columns"

    def posterior_draws(
        self, est, rng, shape: tuple[int, int], names: list[str], features, *, aux_rng
    ) -> dict[str, np.ndarray]:
        """β_c from the Laplace approximation (approximate draws), and β_c / B_c.

        A feature subset still needs every column for B_c when ``feature_prob`` is asked for.
        """
        lap = est.laplace_
        out: dict[str, np.ndarray] = {}
        if "feature_prob" in names:
            beta = lap.draws(rng, shape)
            prob = beta / beta.sum(axis=-1, keepdims=True)
            if "concentration" in names:
                out["concentration"] = beta if features is None else beta[..., features]
            out["feature_prob"] = prob if features is None else prob[..., features]
        elif "concentration" in names:
            out["concentration"] = lap.draws(rng, shape, features)
        return out

    def posterior_summary(self, est, ci_prob: float, features) -> tuple[dict, dict]:
        """Log-normal marginals of β_cj under the Laplace approximation (approximate).

        ``feature_prob = β / B`` has no closed-form marginal under it and is left out (draw it
        with ``sample_posterior``).
        """
        lap = est.laplace_
        lo, hi = lap.interval(ci_prob)
        stats = np.stack([lap.mean(), lap.sd(), lo, hi])
        if features is not None:
            stats = stats[:, :, features]
        return {"concentration": (("summary", "class", "feature"), stats)}, {}

    def generate(self, est, codes: np.ndarray, rng) -> sp.csr_matrix:
        """Lengths from the class's training lengths, then the Pólya urn of ``concentration_``."""
        return polya_urn(rng, est.concentration_, codes, draw_lengths(est, codes, rng))

    def replicate_documents(self, est, codes: np.ndarray, lengths: np.ndarray, rng):
        """The Pólya urn of ``concentration_``."""
        return polya_urn(rng, est.concentration_, codes, lengths)
