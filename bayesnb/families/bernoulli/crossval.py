"""Exact cross-validation of the Bernoulli family: downdated Beta terms in O(nonzeros).

Leaving document i out of class c changes every feature's failures (N_c − w_i in all of
them), so the sum over the features absent from i is kept per (class, weight) pair:
``A_c(w) = Σ_j log q'_cj`` as if i held no feature, corrected at i's nonzeros.
"""

from __future__ import annotations

import numpy as np

from bayesnb.families._crossval import downdate
from bayesnb.families._discrete_crossval import (
    _DiscreteCrossval,
    entries,
    gather,
    log_terms,
    own_unit_terms,
    prior_shift,
    sum_inf,
    weight_groups,
)
from bayesnb.families._discrete_folds import (
    bernoulli_table,
    class_log_prior_without,
    scores,
)
from bayesnb.posterior.discrete import log_ratio

__all__ = ["BernoulliCrossval"]


class BernoulliCrossval(_DiscreteCrossval):
    """subtract, the O(nonzeros) leave-one-out (every estimate) and alpha="loo"."""

    fold_statistics = True  # folds scored from their statistics (fold_joint_log_proba)

    def _loo_own(self, est, X, codes, weights):
        rows, cols, _, Xs = entries(est._encode(X))
        n, v = codes.shape[0], est.n_features_in_
        D, N = est.feature_count_, est.class_count_
        alpha = np.broadcast_to(np.asarray(est.alpha_, dtype=np.float64), (v,))
        beta = alpha if est.beta is None else np.broadcast_to(np.asarray(est.beta, float), (v,))
        a = np.broadcast_to(prior_shift(est.estimate, alpha), (v,))
        b = np.broadcast_to(prior_shift(est.estimate, beta), (v,))
        # Per (class, weight): Σ_j log q'_cj of a document holding no feature.
        gc, gw, group = weight_groups(codes, weights)
        absent_fin = np.empty(gc.size)
        absent_inf = np.empty(gc.size)
        for g, (c, wv) in enumerate(zip(gc, gw, strict=True)):
            left = max(N[c] - wv, 0.0)
            q = log_ratio(np.maximum(left - D[c], 0.0) + b, left + a + b)
            inf = np.isneginf(q)
            absent_fin[g], absent_inf[g] = np.where(inf, 0.0, q).sum(), inf.sum()
        smoothed = a.min() > 0 and b.min() > 0 and not absent_inf.any()
        if smoothed and np.unique(weights).size <= 8:
            # One sparse product per weight: the common denominator of feature j cancels
            # between its success term (x_j = 1) and the failure term A counted for it.
            def table(wv):
                succ = np.maximum(D - wv, 0.0) + a
                fail = np.maximum((N[:, None] - wv) - D, 0.0) + b
                return succ / fail

            own = absent_fin[group] + own_unit_terms(Xs, codes, weights, table)
            return own, N[codes] - weights <= 1e-12 * N[codes]
        c, w = codes[rows], weights[rows]
        d = gather(D, c, cols)
        left = np.maximum(N[c] - w, 0.0)  # N_c without the document, per entry
        a_j, b_j = a[cols], b[cols]
        succ = np.maximum(d - w, 0.0) + a_j  # x_j = 1: one success fewer
        fail = np.maximum(left - d, 0.0) + b_j  # the failures A counted for feature j
        if not absent_inf.any() and (succ.size == 0 or (succ.min() > 0 and fail.min() > 0)):
            # Smoothed: the common denominator cancels between the two terms of feature j.
            own = absent_fin[group] + np.bincount(
                rows, weights=np.log(succ) - np.log(fail), minlength=n
            )
        else:
            den = left + a_j + b_j
            with np.errstate(invalid="ignore"):
                p_fin, p_inf = sum_inf(log_terms(succ, den), rows, n)
                q_fin, q_inf = sum_inf(log_terms(fail, den), rows, n)
            own = absent_fin[group] - q_fin + p_fin
            own[(absent_inf[group] - q_inf > 0.5) | (p_inf > 0.5)] = -np.inf
        redo = N[codes] - weights <= 1e-12 * N[codes]
        return own, redo

    def fold_joint_log_proba(self, est, stats, X):
        """See :meth:`Family.fold_joint_log_proba`: smoothed estimates (MLE zeros, MAP at
        α = 1 or missing values: None, a downdated copy)."""
        if est.estimate == "mle" or est._missing == "ignore":
            return None
        if est.dtype not in ("float64", np.float64) or est._observed_counts() is not None:
            return None
        v = est.n_features_in_
        alpha = np.broadcast_to(np.asarray(est.alpha_, dtype=np.float64), (v,))
        beta = alpha if est.beta is None else np.broadcast_to(np.asarray(est.beta, float), (v,))
        a, b = prior_shift(est.estimate, alpha), prior_shift(est.estimate, beta)
        if v and (a.min() <= 0 or b.min() <= 0):
            return None
        count = downdate(est.class_count_, stats["class_count"])
        fold = np.asarray(stats["feature_count"], dtype=np.float64)
        table_t, offset = bernoulli_table(est.feature_count_, fold, count, a, b)
        prior = class_log_prior_without(est, count)
        joint = scores(X, table_t, est.binarize)
        joint += offset + prior
        return joint, prior
