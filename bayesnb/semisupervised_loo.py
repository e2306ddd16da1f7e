"""``SemiSupervisedNB(unlabelled_weight="loo")``: λ (and α) chosen by exact leave-one-out of
the labelled documents, the unlabelled documents held at the fit's responsibilities.

For every λ of :data:`WEIGHT_GRID` (0, the supervised fit, up to 1) EM (or VB) runs to
convergence on all the documents, from the labelled-only fit as ``fit`` runs it; the fit's
statistics are then the labelled counts plus the unlabelled documents' soft counts
(responsibilities × λ × weight). Each labelled document i is scored by

    log p(y_i | x_i, S − s_i),

S the fit's statistics and s_i the document's own: the family's exact leave-one-out by
subtraction (:func:`bayesnb.model_selection.loo_pointwise`, the code path of ``elpd_loo``:
the estimate, the class prior N_c − w_i, the temperature and the fallback of an impossible
document are the supervised ones). The λ of the largest sum is kept (the smallest λ on a
tie), and so is its fit.

What is exact and what is not. The score is the exact leave-one-out predictive of the model
*given the unlabelled documents' responsibilities*: the model fitted on the other labelled
documents plus the fixed soft counts (for the MAP, the M-step without i). It is not the
leave-one-out of the whole procedure: EM re-run without document i would move the
responsibilities (every unlabelled document's E-step sees the labelled documents through
θ), and may even reach another fixed point. The difference is the influence of document i
on the responsibilities, which EM amplifies where the labelled documents are few: an
unlabelled document near x_i was counted in class y_i partly because x_i is labelled so,
and keeps that count when x_i is left out. The score is therefore optimistic, the more so
as λ grows, while at λ = 0 (no unlabelled term) it is ``elpd_loo`` of the supervised fit
exactly: the bias favours λ > 0. Measured against EM re-run without the document: 0.05
nats a document at λ = 0.01 and 0.21 at λ = 0.1 on 12 labelled and 48 unlabelled
multinomial documents (``tests/test_semisupervised_loo.py``); on fortunes (200 labelled,
10,722 unlabelled) a median of 0.04 nats at λ = 0.01 but 23 at λ = 1, where EM re-run
from the labelled-only fit can also reach another fixed point
(``benchmarks/bench_semisupervised.py``). Trust the choice only where the unlabelled
documents do not swamp the labelled ones.

α. With the estimator's ``alpha="loo"``, the λ = 0 candidate is the supervised fit with
``alpha="loo"`` (its own search, :meth:`Family.loo_alpha`); at every λ > 0 α maximises the
same score, each α tried a fresh EM run at that α (a profile search: λ on the grid, α by
:func:`bayesnb.families._crossval.maximise_in_log_alpha` to 5 % in α), so the kept fit is
the EM fit at the kept (λ, α) itself. Each α is held fixed during its EM run: α is never
re-learned from the soft counts.
"""

from __future__ import annotations

import numpy as np

from bayesnb.families._crossval import maximise_in_log_alpha
from bayesnb.model_selection import loo_pointwise
from bayesnb.validation import check_fitted, check_sample_weight, encode_labels

__all__ = ["WEIGHT_GRID", "choose_weight", "labelled_loo"]

#: The λ that ``unlabelled_weight="loo"`` tries: 0 (the supervised fit), then 1-2-5 steps
#: from 1e-3 to 1 (a labelled document weighs as much as 1/λ unlabelled ones).
WEIGHT_GRID = (0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)

# The α search of a λ > 0: a tolerance in log α (each evaluation is a whole EM run).
_ALPHA_XATOL = 0.05


def _pointwise(state) -> np.ndarray:
    """log p(y_i | x_i, S − s_i) of the labelled documents of a run's fitted estimator."""
    return loo_pointwise(state.est, state.Xl, state.codes, state.wl)[0]


def _score(fit) -> float:
    total = float(np.sum(_pointwise(fit.state)))
    return total if not np.isnan(total) else -np.inf


def _check_labelled(y_labelled) -> None:
    """Every class needs 2 labelled documents: leaving out a lone one removes its class."""
    classes, counts = np.unique(np.asarray(y_labelled), return_counts=True)
    alone = classes[counts < 2]
    if alone.size:
        names = ", ".join(repr(c.item() if hasattr(c, "item") else c) for c in alone[:5])
        raise ValueError(
            f"unlabelled_weight='loo' scores every labelled document by the model without it: "
            f"class(es) {names} have a single labelled document, whose refit has no such class "
            "(every λ scores -inf); label at least 2 documents of every class or give λ"
        )


def _alpha_of(est) -> float:
    if "alpha" not in est.get_params(deep=False):
        return np.nan
    alpha = np.asarray(est.alpha_, dtype=np.float64)
    return float(alpha) if alpha.ndim == 0 else np.nan


def choose_weight(run, y_labelled, estimator, grid=WEIGHT_GRID) -> tuple:
    """The fit of the λ (and α) of the best labelled leave-one-out, and the curve.

    Parameters
    ----------
    run : callable
        ``run(λ, α)`` -> the fit to convergence at λ, the estimator's ``alpha`` set to α
        (None: the estimator's own), with ``state`` (``est``, ``Xl``, ``codes``, ``wl``),
        ``weight``, ``history`` and ``converged``: ``SemiSupervisedNB._run``.
    y_labelled : array-like
        The labels of the labelled documents.
    estimator : bayesnb estimator
        The unfitted estimator: with ``alpha="loo"`` α is searched at every λ > 0 (α ≥ 1
        for ``estimate="map"``).
    grid : sequence of float
        The λ to try.

    Returns
    -------
    fit : the kept fit
    curve : dict of ndarray
        ``unlabelled_weight``, ``elpd_loo``, ``alpha``, ``n_iter``, ``converged`` per λ.
    """
    _check_labelled(y_labelled)
    params = estimator.get_params(deep=False)
    learns_alpha, map_estimate = params.get("alpha") == "loo", params.get("estimate") == "map"
    best, best_score = None, -np.inf
    rows = []
    for lam in grid:
        if lam == 0 or not learns_alpha:
            fit = run(float(lam), None)
            score = _score(fit)
        else:
            tried: dict[float, tuple] = {}

            def objective(alpha: float, lam=lam, tried=tried) -> float:
                got = run(float(lam), alpha)
                tried[alpha] = (_score(got), got)
                return tried[alpha][0]

            maximise_in_log_alpha(objective, map_estimate, xatol=_ALPHA_XATOL)
            score, fit = max(tried.values(), key=lambda t: t[0])
        rows.append((lam, score, _alpha_of(fit.state.est), len(fit.history) - 1, fit.converged))
        if best is None or score > best_score:  # strictly: a tie keeps the smaller λ
            best, best_score = fit, score
    names = ("unlabelled_weight", "elpd_loo", "alpha", "n_iter", "converged")
    columns = zip(*rows, strict=True)
    curve = {name: np.asarray(column) for name, column in zip(names, columns, strict=True)}
    return best, curve


def labelled_loo(model, X, y, sample_weight=None) -> np.ndarray:
    """log p(y_i | x_i, S − s_i) of every labelled document of a fitted
    :class:`~bayesnb.SemiSupervisedNB`, the unlabelled documents' soft counts held (the score
    ``unlabelled_weight="loo"`` sums).

    Parameters
    ----------
    model : fitted SemiSupervisedNB
    X, y, sample_weight
        The documents ``model`` was fitted on (the labelled rows are taken out of them; their
        statistics must be those counted in the fit).

    Returns
    -------
    ndarray of shape (n_labelled,)
        In the order of the labelled rows of ``y``.
    """
    check_fitted(model)
    est = model.estimator_
    (Xl, yl, wl), _ = model._split(X, y, sample_weight)  # the rows as fit took them
    Xl = est._check_input(Xl, reset=False)
    _, codes = encode_labels(yl, est.classes_)
    return loo_pointwise(est, Xl, codes, check_sample_weight(wl, Xl))[0]
