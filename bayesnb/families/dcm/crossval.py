"""Exact cross-validation of the DCM: its histograms downdated, β refitted by iteration.

After a subtraction the Newton iteration for β runs again on the remaining statistics,
**warm-started** from the optimum of the statistics before the subtraction (the full fit):
the same stopping rule as a refit (no β moves by more than ``tol`` relative in a Newton
step, where convergence is quadratic), so it reaches the refit's optimum to far below
``tol``, in fewer iterations (a refit starts cold from the token proportions).

Leave-one-out (:meth:`DCMCrossval.loo_joint_log_proba`): removing document i changes the
statistics of its own class y_i only, so its score under every other class is the full
model's, and only β_{y_i} is re-optimised, on class y_i's (feature, count) and length
histogram entries with i's own entries taken out (O(nonzeros of x_i) to downdate, one
single-class Newton fit to re-optimise): warm-started from the full β_{y_i} where the
estimator warm-starts (a proper prior), cold as a refit where it does not (the MLE).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from bayesnb.families._crossval import _CANCEL, downdate, loo_class_log_prior, per_document
from bayesnb.families._discrete_crossval import _DiscreteCrossval, entries
from bayesnb.posterior.polya import (
    LengthTriplets,
    PolyaStats,
    conditional_mean,
    laplace_at,
    laplace_posterior,
    newton_iterations,
    polya_newton,
)
from bayesnb.scoring.discrete import dcm_jll, log_rising
from bayesnb.stats.histograms import ValueTriplets

__all__ = ["DCMCrossval"]


class DCMCrossval(_DiscreteCrossval):
    """subtract (class counts, totals, value and length histograms) and exact LOO."""

    def subtract(self, est, stats: dict) -> None:
        """See :meth:`Family.subtract`; β is re-optimised from the optimum before it."""
        est._begin_warm_start()
        super().subtract(est, stats)

    def _subtract_extra(self, est, stats: dict) -> None:
        est.value_count_ = downdate(est.value_count_, stats["value_count"])
        est.length_count_ = downdate(est.length_count_, stats["length_count"])

    def loo_joint_log_proba(self, est, X, codes, weights):
        """See :meth:`Family.loo_joint_log_proba`: one single-class refit per document.

        Rows whose removal leaves their class without a non-empty document of positive
        weight (a lone document) are rescored by the generic downdate, as a refit does.
        ``missing="ignore"`` (scores with per-document B_obs) takes the generic path.
        """
        if est._missing == "ignore":
            return None
        weights = np.asarray(weights, dtype=np.float64)
        Xs = entries(X)[3]
        fit, objective, start = _refit(est)
        joint_fit = _JointFit(est, objective, start)
        own, stops, redo = _own_class_scores(est, Xs, codes, weights, fit, joint_fit)
        n = codes.shape[0]
        # The other classes of every refit: the joint iterate where that refit stopped.
        joint = np.empty((n, len(est.classes_)))
        for rows, beta in joint_fit.replay(stops, ~redo):
            joint[rows] = dcm_jll(Xs[rows], beta)
        mine = np.flatnonzero(~np.isnan(own))  # NaN: x_i changes nothing (empty, weight 0)
        joint[mine, codes[mine]] = own[mine]
        joint += loo_class_log_prior(est, codes, weights)
        redo = np.flatnonzero(redo)
        if redo.size:
            joint[redo] = per_document(est, X, codes, weights, rows=redo)
        return joint

    def loo_alpha(self, est, X, codes, weights) -> float:
        """The DCM has no alpha."""
        raise self.unsupported("alpha='loo' (it has no alpha)")


def _refit(est):
    """``fit(stats, totals, start, stop) -> (β (1, V), FixedPointResult)`` of
    ``est.estimate``, the estimator's optimisation (tolerance, iteration cap, warm start
    rule), its objective ``(shape_extra, rate)`` and its warm start (K, V) or None."""
    shape, rate = float(est.prior_shape), float(est.prior_rate)
    tol, max_iter = float(est.tol), int(est.max_iter)
    if est.estimate == "mean":

        def fit(stats, totals, start, stop):
            lap, fp = laplace_posterior(
                stats, totals, shape, rate, tol=tol, max_iter=max_iter, start=start, stop=stop
            )
            return conditional_mean(stats, lap, shape, rate), fp

        return fit, (shape, rate), est.laplace_.mode
    extra = {"mle": 0.0, "map": shape - 1.0}[est.estimate]
    rate = 0.0 if est.estimate == "mle" else rate

    def fit(stats, totals, start, stop):
        fp = polya_newton(
            stats,
            totals,
            shape_extra=extra,
            rate=rate,
            tol=tol,
            max_iter=max_iter,
            start=start,
            stop=stop,
        )
        return fp.beta, fp

    # The MLE is not warm-started (its supremum may lie at B → ∞: see the estimator).
    return fit, (extra, rate), (est.concentration_ if rate > 0 else None)


class _JointFit:
    """The iterates of the classes a left-out document leaves alone, shared by every refit.

    A refit iterates every class until all of them have moved by at most ``tol`` in the same
    iteration. The classes other than y_i keep the full statistics and the full fit's start
    in every refit, so they follow one trajectory: it is run once, as far as some refit
    needs, and a refit that stops at iteration n scores x_i under its other classes' β at n.
    Where the optimum is interior that is the full fit's β to far below ``tol``; where the
    MLE's supremum lies at B → ∞ the stopping iteration decides β, and this is a refit's.
    """

    def __init__(self, est, objective, start) -> None:
        self._args = (est.polya_stats_, est.feature_count_, *objective, start)
        self._run = newton_iterations(*self._args)
        next(self._run)  # the start
        self._tol, self._max_iter, self._done = float(est.tol), int(est.max_iter), []
        self._est, self._objective = est, objective

    def _moved(self, n: int) -> np.ndarray:
        while len(self._done) < n:
            self._done.append(next(self._run)[3] <= self._tol)
        return self._done[n - 1]

    def stop(self, n: int, c: int) -> bool:
        """Whether every class but c has converged at iteration n."""
        done = self._moved(n)
        return bool(done[:c].all() and done[c + 1 :].all())

    def first(self) -> int:
        """The iteration where a refit on unchanged statistics stops."""
        n = 1
        while n < self._max_iter and not self._moved(n).all():
            n += 1
        return n

    def replay(self, stops: np.ndarray, rows: np.ndarray):
        """``(rows, β)`` for every distinct stopping iteration of ``stops[rows]``."""
        wanted = np.unique(stops[rows])
        for n, (beta, *_) in enumerate(newton_iterations(*self._args)):
            if n in wanted:
                if self._est.estimate == "mean":
                    stats, (shape, rate) = self._args[0], self._objective
                    beta = conditional_mean(
                        stats, laplace_at(stats, beta, shape, rate), shape, rate
                    )
                yield np.flatnonzero(rows & (stops == n)), beta
            if n >= wanted.max(initial=0):
                return


def _drop(old: np.ndarray, new: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``new`` with ``idx`` zeroed where the downdate cancelled (as :func:`downdate`)."""
    gone = np.abs(new[idx]) <= _CANCEL * np.abs(old[idx])
    new[idx[gone]] = 0.0
    return new


def _own_class_scores(est, Xs, codes: np.ndarray, weights: np.ndarray, fit, joint_fit):
    """log p(x_i | class y_i without i) per row (NaN: x_i changes nothing), the iteration
    where each refit stops, and the rows to rescore by the generic downdate."""
    n, V = Xs.shape
    stats = est.polya_stats_
    start_all = joint_fit._args[-1]
    stops = np.full(n, joint_fit.first())
    length = np.asarray(Xs.sum(axis=1)).ravel()
    own = np.full(n, np.nan)
    redo = np.zeros(n, dtype=bool)
    unconverged = []
    vt, lt = stats.values, stats.lengths
    for c in range(len(est.classes_)):
        rows = np.flatnonzero((codes == c) & (weights != 0) & (length > 0))
        if rows.size == 0:
            continue
        sel = vt.cls == c
        feat, value, weight = vt.feature[sel], vt.value[sel], vt.weight[sel]
        width = int(value.max()) + 1 if value.size else 1
        order = np.argsort(feat * width + value, kind="stable")
        keys = (feat * width + value)[order]
        lsel = lt.cls == c
        lengths, lweight = lt.length[lsel], lt.weight[lsel]
        lorder = np.argsort(lengths, kind="stable")
        totals = est.feature_count_[c]
        start = None if start_all is None else start_all[c : c + 1]
        zeros_v = np.zeros(feat.size, dtype=np.intp)
        for i in rows:
            lo, hi = Xs.indptr[i], Xs.indptr[i + 1]
            j, x, w = Xs.indices[lo:hi], Xs.data[lo:hi], weights[i]
            idx = order[np.searchsorted(keys, j * width + x)]
            new_w = weight.copy()
            new_w[idx] -= w
            new_w = _drop(weight, new_w, idx)
            li = lorder[np.searchsorted(lengths[lorder], length[i])]
            new_l = lweight.copy()
            new_l[li] -= w
            new_l = _drop(lweight, new_l, np.array([li]))
            if not np.any(new_l > 0):
                redo[i] = True  # the class is left without a document: the generic refit
                continue
            t = totals.copy()
            t[j] -= w * x
            t = _drop(totals, t, j)
            kv, kl = new_w != 0, new_l != 0
            one = PolyaStats(
                ValueTriplets(zeros_v[kv], feat[kv], value[kv], new_w[kv]),
                LengthTriplets(np.zeros(int(kl.sum()), dtype=np.intp), lengths[kl], new_l[kl]),
                1,
                V,
            )
            beta, fp = fit(one, t[None, :], start, lambda n, c=c: joint_fit.stop(n, c))
            stops[i] = fp.n_iter
            if not fp.converged:
                unconverged.append(fp.max_change)
            own[i] = _score(beta[0], j, x, length[i])
    if unconverged:
        warnings.warn(
            f"DirichletCompoundNB leave-one-out: the Newton iteration did not converge in "
            f"max_iter={est.max_iter} iterations for {len(unconverged)} document(s) (largest "
            f"relative change {max(unconverged):.2g}); raise max_iter or tol",
            ConvergenceWarning,
            stacklevel=4,
        )
    return own, stops, redo


def _score(beta: np.ndarray, j: np.ndarray, x: np.ndarray, n: float) -> float:
    """Pólya log-likelihood of one document (nonzeros ``j``, counts ``x``) under β, as
    :func:`bayesnb.scoring.dcm_jll` (−inf when a word of it has β = 0)."""
    b = beta[j]
    if np.any(b <= 0):
        return -np.inf
    return float(np.sum(log_rising(b, x)) - log_rising(beta.sum(), n))
