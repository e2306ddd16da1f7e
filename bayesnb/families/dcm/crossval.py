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
estimator warm-starts (a proper prior), cold as a refit where it does not (the MLE). The
MAP's refit optimum is solved from the full fit instead (:mod:`bayesnb.posterior.polya_loo`,
O(the document's words) each); a document it does not solve would be refitted.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from bayesnb.families._crossval import downdate, loo_class_log_prior, per_document
from bayesnb.families._discrete_crossval import _DiscreteCrossval, entries
from bayesnb.posterior.polya import (
    LengthTriplets,
    PolyaStats,
    laplace_at,
    newton_iterations,
)
from bayesnb.posterior.polya_loo import polya_leave_one_out
from bayesnb.scoring.discrete import dcm_jll, log_rising
from bayesnb.stats.discrete import CANCEL
from bayesnb.stats.histograms import ValueTriplets

__all__ = ["DCMCrossval"]


class DCMCrossval(_DiscreteCrossval):
    """subtract (class counts, totals, value and length histograms) and exact LOO."""

    def subtract(self, est, stats: dict, documents=None) -> None:
        """See :meth:`Family.subtract`; β is re-optimised from the optimum before it."""
        est._begin_warm_start()
        super().subtract(est, stats, documents)

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
        joint_fit = _JointFit(est, *_objective(est))
        own, stops, redo = _own_class_scores(est, Xs, codes, weights, joint_fit)
        n = codes.shape[0]
        # The other classes of every refit: the joint iterate where that refit stopped (-1:
        # the full fit's, where the refit's other classes stop at once or x_i changes nothing).
        joint = np.empty((n, len(est.classes_)))
        full = np.flatnonzero(~redo & (stops < 0))
        every = full.size == n  # the usual case: no copy of X
        joint[full] = dcm_jll(Xs if every else Xs[full], est.concentration_)
        for rows, beta in joint_fit.replay(stops, ~redo & (stops >= 0)):
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


def _objective(est) -> tuple[tuple[float, float], np.ndarray | None]:
    """``(shape_extra, rate)`` of the optimisation behind ``est.estimate`` and its warm start
    (K, V), as the estimator has them; None for the MLE, which is not warm-started (its
    supremum may lie at B → ∞: see the estimator)."""
    shape, rate = float(est.prior_shape), float(est.prior_rate)
    if est.estimate == "mean":
        return (shape, rate), est.laplace_.mode
    if est.estimate == "map":
        return (shape - 1.0, rate), est.concentration_
    return (0.0, 0.0), None


def _concentration(est, stats: PolyaStats, beta: np.ndarray) -> np.ndarray:
    """β of ``est.estimate`` from the optimum ``beta`` of :func:`_objective`."""
    if est.estimate != "mean":
        return beta
    shape, rate = float(est.prior_shape), float(est.prior_rate)
    return laplace_at(stats, beta, shape, rate).mean()


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
        self._run = None  # run on first use: leave-one-out from the full fit needs none
        self._tol, self._max_iter, self._done = float(est.tol), int(est.max_iter), []
        self._est = est
        self.objective, self.start = objective, start

    def _moved(self, n: int) -> np.ndarray:
        if self._run is None:
            self._run = newton_iterations(*self._args)
            next(self._run)  # the start
        while len(self._done) < n:
            self._done.append(next(self._run)[3] <= self._tol)
        return self._done[n - 1]

    def stop(self, n: int, c: int) -> bool:
        """Whether every class but c has converged at iteration n."""
        done = self._moved(n)
        return bool(done[:c].all() and done[c + 1 :].all())

    def replay(self, stops: np.ndarray, rows: np.ndarray):
        """``(rows, β)`` for every distinct stopping iteration of ``stops[rows]``."""
        wanted = np.unique(stops[rows])
        if wanted.size == 0:  # every row scored from the full fit: no iteration to run
            return
        for n, (beta, *_) in enumerate(newton_iterations(*self._args)):
            if n in wanted:
                beta = _concentration(self._est, self._args[0], beta.dense())
                yield np.flatnonzero(rows & (stops == n)), beta
            if n >= wanted.max(initial=0):
                return


# The documents of a class refitted together: at most this many (documents x features or
# x expanded histogram terms) cells per batch.
_BATCH_CELLS = 1 << 21


def _own_class_scores(est, Xs, codes: np.ndarray, weights: np.ndarray, joint_fit):
    """log p(x_i | class y_i without i) per row (NaN: x_i changes nothing), the iteration
    where each refit stops, and the rows to rescore by the generic downdate.

    The documents of one class are refitted in batches, one pseudo-class per document (its
    class's histograms with its own entries taken out): the iteration is class by class, so
    each document's β is its own refit's, taken at the iteration where that refit stops.
    """
    n, V = Xs.shape
    stats = est.polya_stats_
    stops = np.full(n, -1)  # the full fit (see loo_joint_log_proba)
    length = np.asarray(Xs.sum(axis=1)).ravel()
    own = np.full(n, np.nan)
    redo = np.zeros(n, dtype=bool)
    unconverged = []
    vt, lt = stats.values, stats.lengths
    todo = (weights != 0) & (length > 0)
    if est.estimate == "map":
        # From the full fit, O(the document's words) each (a document that would leave its
        # class without one of positive weight is refitted below, which finds it empty).
        docs = stats.documents()
        rows = np.flatnonzero(todo & (docs[codes] - weights > CANCEL * docs[codes]))
        score, ok = polya_leave_one_out(
            stats, est.concentration_, *joint_fit.objective, Xs[rows], codes[rows],
            weights[rows],
        )  # fmt: skip
        own[rows[ok]] = score[ok]
        todo[rows[ok]] = False
    for c in range(len(est.classes_)):
        rows = np.flatnonzero((codes == c) & todo)
        if rows.size == 0:
            continue
        sel = vt.cls == c
        hist = (vt.feature[sel], vt.value[sel], vt.weight[sel])
        lsel = lt.cls == c
        lhist = (lt.length[lsel], lt.weight[lsel])
        cells = max(V, int(np.sum(np.minimum(hist[1], 33.0))))
        for chunk in np.array_split(rows, -(-rows.size * cells // _BATCH_CELLS)):
            got = _refit_batch(est, Xs[chunk], weights[chunk], c, hist, lhist, joint_fit)
            redo[chunk] = got[0]
            keep = chunk[~got[0]]
            own[keep], stops[keep] = got[1], got[2]
            unconverged += list(got[3])
    if unconverged:
        warnings.warn(
            f"DirichletCompoundNB leave-one-out: the Newton iteration did not converge in "
            f"max_iter={est.max_iter} iterations for {len(unconverged)} document(s) (largest "
            f"relative change {max(unconverged):.2g}); raise max_iter or tol",
            ConvergenceWarning,
            stacklevel=4,
        )
    return own, stops, redo


def _refit_batch(est, sub, w: np.ndarray, c: int, hist, lhist, joint_fit):
    """Refit class c without each document of ``sub`` (its rows, weights ``w``).

    Returns the rows the class would be left empty by, and for the others their own-class
    score, the stopping iteration and the last relative changes of unconverged refits.
    """
    feat, value, weight = hist
    lengths, lweight = lhist
    m, V = sub.shape
    r = np.repeat(np.arange(m), np.diff(sub.indptr))
    j, x, wr = sub.indices, sub.data, w[r]
    # Downdate each document's own histogram entries (O(nonzeros)), exact zeros as downdate.
    width = int(value.max()) + 1 if value.size else 1
    order = np.argsort(feat * width + value, kind="stable")
    idx = order[np.searchsorted((feat * width + value)[order], j * width + x)]
    W = _downdated(weight, m, r, idx, wr)
    n_len = np.asarray(sub.sum(axis=1)).ravel()
    lorder = np.argsort(lengths, kind="stable")
    li = lorder[np.searchsorted(lengths[lorder], n_len)]
    L = _downdated(lweight, m, np.arange(m), li, w)
    empty = ~np.any(L > 0, axis=1)  # the class is left without a document: generic refit
    T = _downdated(np.asarray(est.feature_count_[c], dtype=np.float64), m, r, j, wr * x)
    ok = np.flatnonzero(~empty)
    if ok.size == 0:
        return empty, np.zeros(0), np.zeros(0, dtype=np.intp), np.zeros(0)
    W, L, T = W[ok], L[ok], T[ok]
    vr, vc = np.nonzero(W)
    lr, lc = np.nonzero(L)
    batch = PolyaStats(
        ValueTriplets(vr, feat[vc], value[vc], W[vr, vc]),
        LengthTriplets(lr, lengths[lc], L[lr, lc]),
        ok.size,
        V,
    )
    start = joint_fit.start
    start = None if start is None else np.broadcast_to(start[c], (ok.size, V))
    tol, max_iter = float(est.tol), int(est.max_iter)
    beta, stop = np.empty((ok.size, V)), np.zeros(ok.size, dtype=np.intp)
    change = np.zeros(ok.size)
    with np.errstate(all="ignore"):  # refits already stopped may keep drifting (MLE)
        for it, (b, _, _, moved) in enumerate(
            newton_iterations(batch, T, *joint_fit.objective, start)
        ):
            if it == 0:
                continue
            done = stop == 0
            done &= it == max_iter or ((moved <= tol) & joint_fit.stop(it, c))
            beta[done], stop[done], change[done] = b.dense(done), it, moved[done]
            if stop.all():
                break
    beta = _concentration(est, batch, beta)
    # Pólya log-likelihood of each document under its own refit (as dcm_jll).
    keep = ~empty[r]
    rk = np.searchsorted(ok, r[keep])
    bj = beta[rk, j[keep]]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(bj > 0, log_rising(np.where(bj > 0, bj, 1.0), x[keep]), -np.inf)
    score = np.bincount(rk, weights=terms, minlength=ok.size)
    score -= log_rising(beta.sum(axis=1), n_len[ok])
    return empty, score, stop, change[change > tol]


def _downdated(base: np.ndarray, m: int, r, cols, amount) -> np.ndarray:
    """``m`` copies of ``base`` with ``amount`` taken from ``[r, cols]``, zeros as downdate."""
    out = np.tile(base, (m, 1))
    np.subtract.at(out, (r, cols), amount)
    gone = np.abs(out[r, cols]) <= CANCEL * np.abs(base[cols])
    out[r[gone], cols[gone]] = 0.0
    return out
