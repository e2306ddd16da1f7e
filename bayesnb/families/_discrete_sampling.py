"""Sampling methods shared by the discrete families: one (class, feature) table variable.

Bernoulli, multinomial, categorical and Poisson models (and the DCM's ``feature_prob``) lay
out one table per class, ``feature_prob`` or, for the Poisson rates, ``feature_rate``; their
point values, memory cost and draws share this skeleton, each family supplying the table.
"""

from __future__ import annotations

import numpy as np

__all__ = ["_DiscreteSampling"]


class _DiscreteSampling:
    """Point values, draw cost and draws of a family whose parameters are one class table.

    A subclass names the table (``_table``, ``var_names``) and draws it,
    ``_table_draws(est, rng, shape, features)``.
    """

    var_names = ("class_prior", "feature_prob")
    #: The layout variable of the table.
    _table = "feature_prob"

    def point_values(self, est, view, names: list[str], features) -> dict[str, np.ndarray]:
        """The table under ``view``'s estimate, restricted to ``features``."""
        if self._table not in names:
            return {}
        table = self._point_table(view)
        return {self._table: table if features is None else table[:, features]}

    def _point_table(self, view) -> np.ndarray:
        return np.exp(view.feature_log_prob_)

    def draw_cost(self, est, names: list[str], features) -> tuple[str, int, str]:
        """The table's cells per draw (none when it is not asked for)."""
        cells = self._table_cells(est, features) if self._table in names else 0
        return self._table, cells, "classes × columns"

    def _table_cells(self, est, features) -> int:
        n = est.n_features_in_ if features is None else features.size
        return est.class_count_.shape[0] * n

    def posterior_draws(
        self, est, rng, shape: tuple[int, int], names: list[str], features, *, aux_rng
    ) -> dict[str, np.ndarray]:
        """Exact draws of the table from ``rng`` (``aux_rng`` is not used)."""
        if self._table not in names:
            return {}
        return {self._table: self._table_draws(est, rng, shape, features)}

    def _cell_summary(self, a, b, summary, ci_prob: float, features) -> tuple[dict, dict]:
        """Independent cells with (a, b)-parametrised marginals (Beta, Gamma) in closed form."""
        if features is not None:
            a, b = a[:, features], b[:, features]
        return {self._table: (("summary", "class", "feature"), summary(a, b, ci_prob))}, {}
