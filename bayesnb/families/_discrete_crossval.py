"""Exact cross-validation shared by the discrete families (subtract, fast LOO, alpha="loo").

A left-out document changes only its own class's statistics, so its score under every other
class is the full model's; under its own class the downdated terms are those of its nonzeros,
plus per-class constants (a Bernoulli model's sum over absent features, a Poisson model's
rate sum) that depend on the document only through its weight and are computed once per
(class, weight) pair. Rows where the fast formulas would meet an emptied class (its counts
minus the document's are zero: a lone document, or only zero-weight company) are rescored by
:func:`bayesnb.families._crossval.per_document`, which does what a refit does.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.families._crossval import (
    LOG_ALPHA_BOUNDS,
    downdate,
    fixed_temperature,
    label_log_likelihood,
    loo_class_log_prior,
    loo_joint,
    maximise_in_log_alpha,
    per_document,
    weight_groups,
    with_alpha,
)
from bayesnb.families._loo_search import newton_loo_alpha
from bayesnb.posterior.discrete import log_ratio
from bayesnb.scoring.temperature import tempered

__all__ = [
    "_DiscreteCrossval",
    "canonical",
    "entries",
    "log_terms",
    "prior_shift",
    "sum_inf",
    "weight_groups",
]


def canonical(X) -> sp.csr_matrix:
    """``X`` as float64 CSR with duplicates summed and no stored zeros (a copy if needed)."""
    Xs = X if sp.isspmatrix_csr(X) and X.dtype == np.float64 else sp.csr_matrix(X, dtype=float)
    if not Xs.has_canonical_format or not np.all(Xs.data != 0):
        Xs = Xs.copy()  # never change the caller's matrix
        Xs.sum_duplicates()
        Xs.eliminate_zeros()
    return Xs


def entries(X) -> tuple[np.ndarray, np.ndarray, np.ndarray, sp.csr_matrix]:
    """Rows, columns and values of the nonzero entries of ``X`` (duplicates summed), and X."""
    Xs = canonical(X)
    rows = np.repeat(np.arange(Xs.shape[0]), np.diff(Xs.indptr))
    return rows, Xs.indices.astype(np.intp), Xs.data, Xs


def prior_shift(estimate: str, prior) -> np.ndarray | float:
    """What the estimate adds to a count: 0 (mle), prior − 1 (map), prior (mean, bayes)."""
    if estimate == "mle":
        return 0.0
    return np.asarray(prior, dtype=np.float64) - (1.0 if estimate == "map" else 0.0)


def log_terms(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``log(num / den)`` with :func:`log_ratio`'s zeros, cheaply when nothing is zero."""
    if num.size and num.min() > 0 and den.min() > 0:
        return np.log(num) - np.log(den)
    return log_ratio(num, den)


def sum_inf(values: np.ndarray, rows: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-row sums of the finite parts of ``values`` and counts of their ``-inf`` entries."""
    inf = np.isneginf(values)
    fin = np.bincount(rows, weights=np.where(inf, 0.0, values), minlength=n)
    return fin, np.bincount(rows, weights=inf.astype(np.float64), minlength=n)


class _DiscreteCrossval:
    """subtract / loo_joint_log_proba / loo_alpha of the discrete families (mixin).

    A family supplies ``_subtract_extra(est, stats)`` for statistics beyond the class and
    feature counts, and ``_loo_own(est, X, codes, weights)`` -> (own-class log-likelihood of
    each row after its downdate, rows to rescore one by one), or None to decline the fast path.
    """

    def subtract(self, est, stats: dict, documents=None) -> None:
        """See :meth:`Family.subtract`."""
        est.class_count_ = downdate(est.class_count_, stats["class_count"])
        if "feature_count" in stats:
            est.feature_count_ = downdate(est.feature_count_, stats["feature_count"])
        lost = stats.get("missing_count", 0.0)
        if np.ndim(lost):
            est.missing_count_ = downdate(est.missing_count_, lost)
        self._subtract_extra(est, stats)
        est._statistics_changed(documents)

    def downdated(self, est, stats: dict, documents=None):
        """See :meth:`Family.downdated`: subtract replaces arrays, so a shallow copy will do."""
        model = est._replace()
        self.subtract(model, stats, documents)
        return model

    def _subtract_extra(self, est, stats: dict) -> None:
        return None

    def _loo_own(self, est, X, codes, weights):
        return None

    def _loo_kernel(self, est, X, codes, weights):
        return None  # no fused (J, J', J'') kernel: alpha="loo" searches derivative-free

    def loo_joint_log_proba(self, est, X, codes, weights):
        """See :meth:`Family.loo_joint_log_proba`."""
        weights = np.asarray(weights, dtype=np.float64)
        if est._missing == "ignore" or est.dtype not in ("float64", np.float64):
            return None  # marginalised missing cells: the generic downdate is exact
        got = self._loo_own(est, X, codes, weights)
        if got is None:
            return None
        own, redo = got
        joint = np.array(est._log_likelihood(X), dtype=np.float64)
        n = codes.shape[0]
        joint[np.arange(n), codes] = own
        joint += loo_class_log_prior(est, codes, weights)
        redo = np.flatnonzero(redo)
        if redo.size:
            joint[redo] = per_document(est, X, codes, weights, rows=redo)
        return joint

    def loo_alpha(self, est, X, codes, weights) -> float:
        """See :meth:`Family.loo_alpha`: the exact LOO label log-likelihood maximised in log α.

        A family with a fused kernel (``_loo_kernel``: the joint log-likelihoods and their
        first three derivatives in log α from one pass) is searched by cubic-model steps
        (:mod:`bayesnb.families._loo_search`). Otherwise a bracket is walked from α = 1 in
        steps of ×4 (within 1e-6 .. 1e4; the MAP needs α ≥ 1), then Brent's method narrows
        it to 1 % in α: about ten LOO evaluations, each the cost of scoring the training
        documents once. The label probabilities are those of the estimator's (numeric)
        ``temperature``.
        """
        weights = np.asarray(weights, dtype=np.float64)
        lo_bound = 0.0 if est.estimate == "map" else LOG_ALPHA_BOUNDS[0]
        tau = fixed_temperature(est)
        if est._missing != "ignore" and est.dtype in ("float64", np.float64):
            kernel = self._loo_kernel(est, X, codes, weights)
            if kernel is not None:  # a safeguarded Newton search on exact derivatives
                return newton_loo_alpha(kernel, codes.shape[0], lo_bound, LOG_ALPHA_BOUNDS[1], tau)
        prior = loo_class_log_prior(est, codes, weights) if tau != 1.0 else None

        def objective(alpha: float) -> float:
            joint = loo_joint(with_alpha(est, alpha), X, codes, weights)
            if prior is not None:
                joint = tempered(joint, prior, tau)
            return float(np.sum(label_log_likelihood(joint, codes)))

        return maximise_in_log_alpha(objective, est.estimate == "map")
