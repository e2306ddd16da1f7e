"""Exact cross-validation of the multinomial family: downdated Dirichlet and Pólya terms."""

from __future__ import annotations

import numpy as np

from bayesnb.families._crossval import downdate, emptied, loo_class_log_prior
from bayesnb.families._discrete_crossval import (
    _DiscreteCrossval,
    canonical,
    entries,
    gather,
    own_unit_terms,
    prior_shift,
    product_path,
    sum_inf,
)
from bayesnb.families._discrete_folds import (
    class_log_prior_without,
    multinomial_table,
    scores,
)
from bayesnb.families._loo_search import (
    CountGrid,
    OwnEntries,
    RowProduct,
    documents,
    log_shifted,
    own_downdate,
    own_grid,
    row_sums,
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
        if grid is None:
            rows, cols, vals, Xs = entries(Xs)
            length = np.bincount(rows, weights=vals, minlength=n)
        else:
            length = np.asarray(Xs @ np.ones(Xs.shape[1]))
        den = np.maximum(T.sum(axis=1)[codes] - weights * length, 0.0) + shift.sum()
        redo = emptied(N[codes], weights)
        if np.any((den <= 0) & (length > 0)):
            redo |= (den <= 0) & (length > 0)  # no mass left in the class: as a refit does
        if grid is not None:  # one compiled pass: Σ_j x_ij log(max(t − w_i x_ij, 0) + s)
            with np.errstate(divide="ignore"):
                terms = np.log(grid + shift[0])[None, :]
            num = own_downdate(Xs, codes, weights, T, terms, full=False)[:, 0]
        elif product_path(vals, weights):
            top = own_unit_terms(Xs, codes, weights, lambda wv: np.maximum(T - wv, 0.0) + shift)
            # Entries of count v ≠ 1: the product counted v · log a'_j(1); put the true term.
            other = vals != 1
            r, c, v = rows[other], cols[other], vals[other]
            t, w = gather(T, codes[r], c), weights[r]
            with np.errstate(divide="ignore"):
                unit = np.log(np.maximum(t - w, 0.0) + shift[c])
            fix = _numerator(np.maximum(t - w * v, 0.0) + shift[c], v, bayes) - v * unit
            fin, inf = sum_inf(fix, r, n)
            num = top + fin
            num[inf > 0.5] = -np.inf
        else:
            left = np.maximum(gather(T, codes[rows], cols) - weights[rows] * vals, 0.0)
            fin, inf = sum_inf(_numerator(left + shift[cols], vals, bayes), rows, n)
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
        # log(t + a) at every cell and log(t − w + a) − log(t + a) at the own class's cells:
        # functions of the count alone, tabulated when they can be (CountGrid); the class's
        # −log(T_k + V a) is then taken from each column of the gathered table.
        cells = CountGrid(0, T.T, 1)
        grid = own_grid(Xs, weights, T)  # None: own-class tables and per-entry terms
        own_cells = CountGrid(0, T.reshape(-1, 1), 1) if grid is None else None

        def kernel(rows):
            X_, c_, w_, P, r = documents(Xs, codes, weights, prior, rows, grid is None)
            length = np.asarray(X_ @ np.ones(v))
            left = np.maximum(total[c_] - w_ * length, 0.0)
            own_part = _own_part(X_, c_, w_, r, T, own_cells) if grid is None else None

            def terms(u, order):
                alpha = float(np.exp(u))
                a = alpha + s0
                den = log_shifted(total, v * a, v * alpha, order)
                table = cells(lambda c, t: log_shifted(t, a, alpha, order), order)
                table -= np.concatenate(den)  # the length term −n_i log(T_k + Va) rides along
                G = RowProduct(X_, table)
                if own_part is None:  # the own class: the document's counts taken out
                    grid_terms = np.stack(log_shifted(grid, a, alpha, order))
                    fix = own_downdate(X_, c_, w_, T, grid_terms)
                else:
                    fix = own_part(a, alpha, order)
                # ... and its length
                dz = log_shifted(left, v * a, v * alpha, order)
                fix -= length[:, None] * np.column_stack(
                    [dz[m] - den[m][c_] for m in range(order + 1)]
                )
                return G, c_, fix, P

            return terms

        return kernel


def _own_part(X_, c_, w_, r, T, own_cells):
    """``(a, α, order) -> (n, order + 1)``: Σ_j x_ij [log(t − w_i x_ij + a) − log(t + a)],
    t = T[y_i, j], and its u-derivatives, without the compiled pass (:func:`own_downdate`).

    Through own-class tables (one count w_i fewer) when the nonzeros are over a quarter of
    the cells (a tabulated cell costs about a quarter of a term computed entry by entry);
    counts x ≠ 1 then swap x log(t − w + a) for x log(t − wx + a) entry by entry, and the
    nonzeros the tables leave out swap x log(t + a) for it.
    """
    k, v = T.shape
    n = c_.shape[0]
    own = OwnEntries(X_, c_, w_, r, (k, v), take=4 * X_.nnz > k * v)
    e = own.left_out(X_.data != 1)
    er, ev = r[e], X_.data[e]
    et, ew = gather(T, c_[er], X_.indices[e]), w_[er]
    ez = np.maximum(et - ew * ev, 0.0)
    et = np.maximum(et - ew * ~own.rest[e], 0.0)  # what the product and tables count
    per_entry = row_sums(er, n, ev)

    def part(a: float, alpha: float, order: int) -> np.ndarray:
        def one_fewer(wv):
            def f(c, t):
                fewer = log_shifted(np.maximum(t - wv, 0.0), a, alpha, order)
                return [s - b for s, b in zip(fewer, log_shifted(t, a, alpha, order), strict=True)]

            return own_cells(f, order)

        fix = own(one_fewer, order + 1)
        zt = log_shifted(et, a, alpha, order)  # a few entries: not tabulated
        zz = log_shifted(ez, a, alpha, order)
        fix += per_entry(np.column_stack([zz[m] - zt[m] for m in range(order + 1)]))
        return fix

    return part


def _numerator(a: np.ndarray, x: np.ndarray, bayes: bool) -> np.ndarray:
    """A feature's numerator term: ln Γ(a + x) − ln Γ(a) (Pólya) or x log a (a point)."""
    if bayes:
        return log_rising(a, x)
    with np.errstate(divide="ignore"):
        return x * np.log(a)
