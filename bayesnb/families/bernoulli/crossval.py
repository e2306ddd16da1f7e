"""Exact cross-validation of the Bernoulli family: downdated Beta terms in O(nonzeros).

Leaving document i out of class c changes every feature's failures (N_c − w_i in all of
them), so the sum over the features absent from i is kept per (class, weight) pair:
``A_c(w) = Σ_j log q'_cj`` as if i held no feature, corrected at i's nonzeros.
"""

from __future__ import annotations

import numpy as np

from bayesnb.families._crossval import downdate, emptied, loo_class_log_prior
from bayesnb.families._discrete_crossval import (
    _DiscreteCrossval,
    canonical,
    log_terms,
    prior_shift,
    sum_inf,
    weight_groups,
)
from bayesnb.families._discrete_folds import (
    bernoulli_table,
    class_log_prior_without,
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
from bayesnb.posterior.discrete import log_ratio

__all__ = ["BernoulliCrossval"]


class BernoulliCrossval(_DiscreteCrossval):
    """subtract, the O(nonzeros) leave-one-out (every estimate) and alpha="loo"."""

    fold_statistics = True  # folds scored from their statistics (fold_joint_log_proba)

    def _loo_own(self, est, X, codes, weights):
        Xs = canonical(est._encode(X))
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
        uniform = np.ptp(weights) == 0 and np.ptp(a) == 0 and np.ptp(b) == 0
        grid = own_grid(Xs, weights, D) if smoothed and uniform and n else None
        own = OwnClass(Xs, codes, weights, D, grid)
        redo = emptied(N[codes], weights)
        if own.compiled:  # the ratio of (class, count) from its grid
            w_e, a_e, b_e = float(weights[0]), a[0], b[0]
        else:  # entry by entry: each nonzero's weight and priors
            w_e = own.at_entries(weights)
            a_e, b_e = own.at_entries(a, "feature"), own.at_entries(b, "feature")
            # x_j = 1: one success fewer; and the failures A counted for feature j
            succ = np.maximum(own.t - w_e, 0.0) + a_e
            fail = np.maximum((N[own.c] - w_e) - own.t, 0.0) + b_e
        if own.compiled or (
            not absent_inf.any() and (succ.size == 0 or (succ.min() > 0 and fail.min() > 0))
        ):
            # Smoothed: the common denominator of feature j cancels between its success term
            # and the failure term A counted for it, so only succ / fail is left.
            def ratio(c, d):
                return (np.maximum(d - w_e, 0.0) + a_e) / (np.maximum((N[c] - w_e) - d, 0.0) + b_e)

            return absent_fin[group] + own.gather(lambda c, d: [np.log(ratio(c, d))])[:, 0], redo
        den = np.maximum(N[own.c] - w_e, 0.0) + a_e + b_e
        with np.errstate(invalid="ignore"):
            p_fin, p_inf = sum_inf(log_terms(succ, den), own.rows, n)
            q_fin, q_inf = sum_inf(log_terms(fail, den), own.rows, n)
        own = absent_fin[group] - q_fin + p_fin
        own[(absent_inf[group] - q_inf > 0.5) | (p_inf > 0.5)] = -np.inf
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

    def _loo_kernel(self, est, X, codes, weights):
        """The fused (J, J', J'', J''') kernel of alpha="loo" (see :mod:`_loo_search`)."""
        if est.estimate == "mle":
            return None
        Xs = canonical(est._encode(X))
        D, N = est.feature_count_, est.class_count_
        if np.any(emptied(N[codes], weights)):
            return None  # a document empties its class: rescored one by one (generic)
        prior = loo_class_log_prior(est, codes, weights)
        s0 = -1.0 if est.estimate == "map" else 0.0  # a = α + s0 is added to the successes
        k, v = D.shape
        tied = est.beta is None  # β = α: the failures' prior moves with u too
        fixed_b = None if tied else np.broadcast_to(np.asarray(est.beta, float), (v,)) + s0

        def prior_of(alpha, b_fixed):
            """a, b, and db/du (α when tied, else 0: b is ``b_fixed``, β's of the features)."""
            a = alpha + s0
            return (a, a, alpha) if tied else (a, b_fixed, 0.0)

        def ratio(succ, fail, alpha, order, b_fixed):
            """log(succ + a) − log(fail + b) and its derivatives in u."""
            a, b, rate = prior_of(alpha, b_fixed)
            ps, pf = log_shifted(succ, a, alpha, order), log_shifted(fail, b, rate, order)
            return [x - y for x, y in zip(ps, pf, strict=True)]

        # Σ_j log(N − D_cj + b) depends on class c's counts only through their histogram.
        flat = np.sort(D, axis=1).ravel()
        starts = np.flatnonzero(
            np.r_[True, (flat[1:] != flat[:-1]) | (np.arange(1, flat.size) % v == 0)]
        )
        h_class, h_value = starts // v, flat[starts]
        h_count = np.diff(np.r_[starts, flat.size]).astype(np.float64)
        h_start = np.searchsorted(h_class, np.arange(k + 1))
        histogram = fixed_b is None or np.ptp(fixed_b) == 0

        def absent(owner, n_c, alpha, order):
            """Σ_j log q_cj of a document holding no feature, for classes ``owner`` with
            counts ``n_c``, and its derivatives: over the histogram of the class's counts."""
            a, b, rate = prior_of(alpha, fixed_b)
            if not histogram:  # a prior varying by feature: every feature
                d_c = D[owner]
                fail = log_shifted(np.maximum(n_c[:, None] - d_c, 0.0), b, rate, order)
                den = log_shifted(
                    np.broadcast_to(n_c[:, None], d_c.shape), a + b, alpha + rate, order
                )
                return [f.sum(axis=-1) - g.sum(axis=-1) for f, g in zip(fail, den, strict=True)]
            lens = h_start[owner + 1] - h_start[owner]
            g = np.repeat(np.arange(owner.size), lens)
            pos = np.arange(g.size) - np.repeat(np.cumsum(lens) - lens, lens) + h_start[owner][g]
            b0 = b if np.ndim(b) == 0 else float(b[0])
            fail = log_shifted(np.maximum(n_c[g] - h_value[pos], 0.0), b0, rate, order)
            den = log_shifted(n_c, a + b0, alpha + rate, order)
            return [
                np.bincount(g, weights=h_count[pos] * f, minlength=owner.size) - v * d
                for f, d in zip(fail, den, strict=True)
            ]

        # Each cell's term is a function of (class, count) when β is one number: tabulated
        # when it can be (CountGrid); a β per feature is laid out beside the cells instead.
        same_b = tied or np.ptp(fixed_b) == 0

        def b_at(layout):
            """The fixed β of pairs laid out as ``layout`` (None when tied to α)."""
            return None if tied else float(fixed_b[0]) if same_b else layout

        cells = CountGrid(np.arange(k)[None, :], D.T, k, use=same_b)
        b_cells = b_at(None if tied else fixed_b[:, None])

        def one_fewer(wv, alpha, order, b_fixed):
            """log q'/q of a success: the terms at (class c, count d) without a document of
            weight ``wv`` (one success fewer, ``wv`` fewer trials) minus those with it."""

            def f(c, d):
                left = np.maximum(N[c] - wv, 0.0)
                t = ratio(np.maximum(d - wv, 0.0), np.maximum(left - d, 0.0), alpha, order, b_fixed)
                return [
                    x - y for x, y in zip(t, ratio(d, N[c] - d, alpha, order, b_fixed), strict=True)
                ]

            return f

        # One weight and one β: the own class's downdate of every nonzero is a function of
        # (class, count), gathered from its grid in one compiled pass (OwnClass).
        wv = float(weights[0]) if weights.size and np.ptp(weights) == 0 else None
        grid = own_grid(Xs, weights, D) if same_b and wv is not None else None

        def kernel(rows):
            X_, c_, w_, P = documents(Xs, codes, weights, prior, rows)
            gc, gw, group = weight_groups(c_, w_)
            owners, counts = np.r_[np.arange(k), gc], np.r_[N, N[gc] - gw]
            own = OwnClass(X_, c_, w_, D, grid)
            if own.compiled:
                w_own, b_own = wv, b_at(None)
            else:  # entry by entry: each nonzero's weight and β
                w_own = own.at_entries(w_)
                b_own = b_at(None if tied else own.at_entries(fixed_b, by="feature"))

            def terms(u, order):
                alpha = float(np.exp(u))
                G = RowProduct(
                    X_, cells(lambda c, d: ratio(d, N[c] - d, alpha, order, b_cells), order)
                )
                # Every class's absent sum, and the own class's without the document ...
                both = absent(owners, counts, alpha, order)
                A, A_own = [x[:k] for x in both], [x[k:] for x in both]
                # ... and one success fewer at each of its features
                covered = own.gather(one_fewer(w_own, alpha, order, b_own))
                covered += np.column_stack([A_own[m][group] - A[m][c_] for m in range(order + 1)])
                return G, c_, covered, P, A

            return terms

        return kernel
