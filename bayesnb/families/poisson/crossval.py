"""Exact cross-validation of the Poisson family: downdated Gamma terms in O(nonzeros).

Leaving document i (weight w) out of class c moves every rate's denominator to
β_j + N_c − w, so the rate sum (point estimates) and the predictive's ``Σ_j r_cj log p_cj``
("bayes") are kept per (class, weight) pair and corrected at i's nonzeros.
"""

from __future__ import annotations

import numpy as np

from bayesnb.families._crossval import emptied
from bayesnb.families._discrete_crossval import (
    _DiscreteCrossval,
    entries,
    prior_shift,
    weight_groups,
)
from bayesnb.posterior.discrete import log_ratio
from bayesnb.scoring.discrete import log_rising
from bayesnb.scoring.poisson import log_factorial_rows

__all__ = ["PoissonCrossval"]


class PoissonCrossval(_DiscreteCrossval):
    """subtract, the O(nonzeros) leave-one-out (every estimate) and alpha="loo"."""

    def _subtract_extra(self, est, stats: dict) -> None:
        from bayesnb.families._crossval import downdate

        est.log_factorial_ = downdate(est.log_factorial_, stats["log_factorial"])

    def _loo_own(self, est, X, codes, weights):
        rows, cols, vals, Xs = entries(X)
        n, v = codes.shape[0], est.n_features_in_
        S, N = est.feature_count_, est.class_count_
        alpha = np.broadcast_to(np.asarray(est.alpha_, dtype=np.float64), (v,))
        beta = np.broadcast_to(np.asarray(est.beta, dtype=np.float64), (v,))
        bayes = est.estimate == "bayes"
        shift = alpha if bayes else np.broadcast_to(prior_shift(est.estimate, alpha), (v,))
        rate0 = 0.0 if est.estimate == "mle" else beta  # the denominator's prior part
        rate0 = np.broadcast_to(rate0, (v,))
        gc, gw, group = weight_groups(codes, weights)
        const = np.empty(gc.size)
        for g, (c, wv) in enumerate(zip(gc, gw, strict=True)):
            rho = np.maximum(N[c] - wv, 0.0) + rate0
            if bayes:  # Σ_j r_cj log p'_cj as if the document held no count
                const[g] = np.sum((S[c] + alpha) * -np.log1p(1.0 / rho))
            else:  # Σ_j λ'_cj as if the document held no count
                with np.errstate(divide="ignore", invalid="ignore"):
                    lam = (S[c] + shift) / rho
                const[g] = np.sum(np.where(np.isnan(lam), 0.0, lam))
        c, w = codes[rows], weights[rows]
        rho = np.maximum(N[c] - w, 0.0) + rate0[cols]
        left = np.maximum(S[c, cols] - w * vals, 0.0)  # S_cj without the document
        if bayes:
            log_p = -np.log1p(1.0 / rho)
            terms = -w * vals * log_p + log_rising(left + alpha[cols], vals)
            terms += vals * -np.log1p(rho)
            own = const[group] + np.bincount(rows, weights=terms, minlength=n)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                terms = vals * log_ratio(left + shift[cols], rho)
                taken = np.bincount(rows, weights=w * vals / rho, minlength=n)
            own = np.bincount(rows, weights=terms, minlength=n) - (const[group] - taken)
        own -= log_factorial_rows(Xs)
        redo = emptied(N[codes], weights)
        return own, redo
