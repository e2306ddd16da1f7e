"""Exact cross-validation of the multinomial family: downdated Dirichlet and Pólya terms."""

from __future__ import annotations

import numpy as np

from bayesnb.families._crossval import downdate, emptied, loo_class_log_prior
from bayesnb.families._discrete_crossval import (
    _DiscreteCrossval,
    canonical,
    prior_shift,
    sum_inf,
)
from bayesnb.families._discrete_folds import (
    class_log_prior_without,
    multinomial_table,
    scores,
)
from bayesnb.families._loo_search import (
    CountGrid,
    OwnClass,
    RowProduct,
    documents,
    log_shifted,
    own_grid,
)
from bayesnb.scoring.discrete import log_rising

__all__ = ["MultinomialCrossval"]


class MultinomialCrossval(_DiscreteCrossval):
    """subtract, the O(nonzeros) leave-one-out (every estimate) and alpha="loo"."""

    fold_statistics = True  # folds scored from their statistics (fold_joint_log_proba)

    def _subtract_extra(self, est, stats: dict) -> None:
        est.length_count_ = downdate(est.length_count_, stats["length_count"])

    def _loo_own(self, est, X, codes, weights):
        if est.unk:
            return None  # a left-out document can change which columns are pooled
        Xs = canonical(X)
        n = codes.shape[0]
        T, N = est.feature_count_, est.class_count_
        alpha = np.asarray(est.alpha_, dtype=np.float64)
        bayes = est.estimate == "bayes"
        shift = np.broadcast_to(alpha if bayes else prior_shift(est.estimate, alpha), T.shape[1:])
        grid = None if bayes or np.ptp(shift) != 0 else own_grid(Xs, weights, T)
        own = OwnClass(Xs, codes, weights, T, grid)
        length = np.asarray(Xs @ np.ones(Xs.shape[1]))
        den = np.maximum(T.sum(axis=1)[codes] - weights * length, 0.0) + shift.sum()
        redo = emptied(N[codes], weights)
        if np.any((den <= 0) & (length > 0)):
            redo |= (den <= 0) & (length > 0)  # no mass left in the class: as a refit does
        if not bayes and np.ptp(shift) == 0:  # Σ_j x_ij log(max(t − w_i x_ij, 0) + s)
            num = own.downdate(lambda z: [np.log(z + shift[0])], full=False)[:, 0]
        else:  # a shift per feature, or the Pólya terms of counts x: entry by entry
            left = np.maximum(own.t - own.at_entries(weights) * own.x, 0.0)
            terms = _numerator(left + own.at_entries(shift, by="feature"), own.x, bayes)
            fin, inf = sum_inf(terms, own.rows, n)
            num = np.where(inf > 0.5, -np.inf, fin)
        # The denominator once per document: ln Γ(A') − ln Γ(A' + n) (Pólya) or −n log A'.
        with np.errstate(divide="ignore", invalid="ignore"):
            if bayes:
                own = num - log_rising(np.where(redo, 1.0, den), length)
            else:
                own = num - length * np.log(np.where(length > 0, den, 1.0))
        return own, redo

    def fold_joint_log_proba(self, est, stats, X):
        """See :meth:`Family.fold_joint_log_proba`: the smoothed point estimates (a fold's
        Pólya predictive, an unsmoothed table or UNK pooling: None, a downdated copy)."""
        alpha = np.asarray(est.alpha_, dtype=np.float64)
        shift = prior_shift(est.estimate, alpha)
        if (
            est.estimate == "bayes"
            or est.unk
            or est._missing == "ignore"
            or est.dtype not in ("float64", np.float64)
            or np.min(shift) <= 0  # zeros in the table: -inf cells, scored by the estimator
        ):
            return None
        count = downdate(est.class_count_, stats["class_count"])
        fold = np.asarray(stats["feature_count"], dtype=np.float64)
        shift = np.broadcast_to(shift, (est.n_features_in_,))
        table_t = multinomial_table(est.feature_count_, fold, shift)
        prior = class_log_prior_without(est, count)
        joint = scores(X, table_t)
        joint += prior
        return joint, prior

    def _loo_kernel(self, est, X, codes, weights):
        """The fused (J, J', J'', J''') kernel of alpha="loo" (mean and MAP; see _loo_search)."""
        if est.unk or est.estimate not in ("mean", "map"):
            return None  # the Pólya predictive's counts > 1 are rising factorials: generic
        Xs = canonical(X)
        T, N = est.feature_count_, est.class_count_
        if np.any(emptied(N[codes], weights)):
            return None  # a document empties its class: rescored one by one (generic)
        prior = loo_class_log_prior(est, codes, weights)
        s0 = -1.0 if est.estimate == "map" else 0.0  # a = α + s0 is added to every count
        total = T.sum(axis=1)
        v = T.shape[1]
        # log(t + a) at every cell: a function of the count alone, tabulated when it can be
        # (CountGrid); the class's −log(T_k + V a) is then taken from each column of it.
        cells = CountGrid(0, T.T, 1)
        grid = own_grid(Xs, weights, T)  # None: the own class entry by entry in NumPy

        def kernel(rows):
            X_, c_, w_, P = documents(Xs, codes, weights, prior, rows)
            length = np.asarray(X_ @ np.ones(v))
            left = np.maximum(total[c_] - w_ * length, 0.0)
            own = OwnClass(X_, c_, w_, T, grid)

            def terms(u, order):
                alpha = float(np.exp(u))
                a = alpha + s0
                den = log_shifted(total, v * a, v * alpha, order)
                table = cells(lambda c, t: log_shifted(t, a, alpha, order), order)
                table -= np.concatenate(den)  # the length term −n_i log(T_k + Va) rides along
                G = RowProduct(X_, table)
                # The own class: the document's counts taken out ...
                fix = own.downdate(lambda z: log_shifted(z, a, alpha, order))
                # ... and its length
                dz = log_shifted(left, v * a, v * alpha, order)
                fix -= length[:, None] * np.column_stack(
                    [dz[m] - den[m][c_] for m in range(order + 1)]
                )
                return G, c_, fix, P

            return terms

        return kernel


def _numerator(a: np.ndarray, x: np.ndarray, bayes: bool) -> np.ndarray:
    """A feature's numerator term: ln Γ(a + x) − ln Γ(a) (Pólya) or x log a (a point)."""
    if bayes:
        return log_rising(a, x)
    with np.errstate(divide="ignore"):
        return x * np.log(a)
