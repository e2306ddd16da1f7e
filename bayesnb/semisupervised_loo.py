"""``SemiSupervisedNB(unlabelled_weight="cv")``: λ (and α) chosen by cross-validation of the
whole EM (or VB) procedure over the labelled documents, the unlabelled pool in every fold.

For every λ of :data:`WEIGHT_GRID` (0, the supervised fit, up to 1) the procedure runs on
all the documents, as ``fit`` runs it, and then once per fold of the labelled documents
(``cv``: stratified K-fold, or ``"loo"``): ``fit`` itself on the other labelled documents
plus the whole unlabelled pool, from that fold's labelled-only fit (its fixed prior derived
from the fold's labelled documents). The fold's fit scores its held-out labelled documents
by log p(y_i | x_i), the estimator's own ``predict_log_proba``; the score of λ is the sum over
every labelled document (each counted once, whatever its weight, as in ``elpd_loo``). The λ
of the largest score is kept (the smallest λ on a tie), with its full fit.

What is exact. With ``cv="loo"`` the score is the leave-one-out of the procedure itself, up
to EM's tolerance: each fold reaches the fixed point ``fit`` would reach without the held-out
documents. The folds are not warm-started from the full fit's fixed point: that saves
iterations (12 labelled, 588 unlabelled multinomial documents, λ = 1: 22 against 52 a fold)
and reaches the same fixed point where the data fit the model (scores within 1e-3 nats), but
where EM has several fixed points it stays in the one the held-out documents pulled it to:
with 80 % of the pool from foreign topics it scored 29 nats (12 documents, λ = 1) above the
cold start, the very leak the rule must avoid. At λ = 0 no unlabelled term enters and the
folds are plain K-fold of the supervised model; with ``cv="loo"`` it equals ``elpd_loo`` of
the supervised fit. ``labelled_loo`` keeps, as a
diagnostic, the score with the unlabelled responsibilities held at the full fit's: it leaks
(an unlabelled document near x_i was counted in class y_i partly because x_i is labelled so)
and is optimistic where the pool swamps the labels (fortunes, 5 labelled per class, 10,722
unlabelled, λ = 1: 30 nats a document, median of 5).

α. With the estimator's ``alpha="loo"``, the λ = 0 candidate is the supervised fit with
``alpha="loo"`` (each fold runs its own search); at every λ > 0 α maximises the same
cross-validated score (a profile search, :func:`bayesnb.families._crossval.
maximise_in_log_alpha` to 5 % in α), each α tried costing the full fit plus one per fold
(10–12 α per λ: about 10× the cost of a fixed α); each α is held fixed during its EM runs.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np
from sklearn.model_selection import LeaveOneOut, StratifiedKFold, check_cv
from sklearn.utils import _safe_indexing

from bayesnb.families._crossval import maximise_in_log_alpha
from bayesnb.model_selection import loo_pointwise
from bayesnb.validation import check_fitted, check_sample_weight, encode_labels

__all__ = ["RULES", "WEIGHT_GRID", "check_weight", "choose_weight", "folds_of", "labelled_loo"]

#: The ``unlabelled_weight`` values that choose λ: cross-validation, and ``"loo"`` for it
#: with ``cv="loo"``.
RULES = ("cv", "loo")

#: The λ that ``unlabelled_weight="cv"`` tries: 0 (the supervised fit), then steps of about
#: ×3 from 0.01 to 1 (a labelled document weighs as much as 1/λ unlabelled ones).
WEIGHT_GRID = (0.0, 0.01, 0.03, 0.1, 0.3, 1.0)

# The α search of a λ > 0: a tolerance in log α (each evaluation is K + 1 EM runs).
_ALPHA_XATOL = 0.05


class Scored(NamedTuple):
    """The full fit at one (λ, α), its cross-validated score and the folds' iterations."""

    fit: object
    score: float
    fold_iter: float


def check_weight(unlabelled_weight, cv) -> float | str:
    """``unlabelled_weight`` checked: a finite λ >= 0 (as a float) or a rule of :data:`RULES`."""
    lam = unlabelled_weight
    if isinstance(lam, str) and lam in RULES:
        if lam == "loo" and not (cv is None or (isinstance(cv, str) and cv == "loo")):
            raise ValueError(
                f"unlabelled_weight='loo' is leave-one-out (cv='loo'), got cv={cv!r}: "
                "give unlabelled_weight='cv' for other folds"
            )
        return lam
    if (
        isinstance(lam, bool)
        or not isinstance(lam, numbers.Real)
        or not np.isfinite(lam)
        or lam < 0
    ):
        raise ValueError(
            f"unlabelled_weight must be a finite number >= 0, 'cv' or 'loo', got {lam!r}"
        )
    return float(lam)


def folds_of(cv, y_labelled) -> list:
    """The (train, test) index pairs of the labelled documents for ``cv``.

    ``None``: stratified K-fold with K = min(5, the smallest class's count) (scikit-learn's
    5, lowered so that every fold holds out a document of every class and trains on the
    others); an int K: ``StratifiedKFold(K)``; ``"loo"``: every document alone; anything
    else scikit-learn's ``check_cv`` accepts. Every training fold must keep every class.
    """
    y = np.asarray(y_labelled)
    classes, counts = np.unique(y, return_counts=True)
    if counts.min() < 2:
        alone = classes[counts < 2]
        names = ", ".join(repr(c.item() if hasattr(c, "item") else c) for c in alone[:5])
        raise ValueError(
            f"unlabelled_weight='cv' scores labelled documents by the fit without them: "
            f"class(es) {names} have a single labelled document, whose fold has no such class; "
            "label at least 2 documents of every class or give λ"
        )
    if cv is None:
        splitter = StratifiedKFold(min(5, int(counts.min())))
    elif isinstance(cv, str):
        if cv != "loo":
            raise ValueError(f"cv must be None, an int >= 2, 'loo' or a splitter, got {cv!r}")
        splitter = LeaveOneOut()
    elif isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        if cv < 2 or cv > counts.min():
            raise ValueError(
                f"cv={cv} stratified folds need 2 <= cv <= {counts.min()} (the smallest "
                "class's labelled documents)"
            )
        splitter = StratifiedKFold(int(cv))
    else:
        splitter = check_cv(cv, y, classifier=True)
    folds = list(splitter.split(np.zeros((y.size, 1)), y))
    for k, (train, _) in enumerate(folds):
        missing = np.setdiff1d(classes, y[train])
        if missing.size:
            raise ValueError(
                f"cv fold {k} leaves class(es) {missing[:5].tolist()} without a labelled "
                "training document"
            )
    return folds


def _fold_parts(parts, train, test):
    (Xl, yl, wl), unlabelled = parts
    take = (lambda idx: None) if wl is None else (lambda idx: wl[idx])
    fold = ((_safe_indexing(Xl, train), yl[train], take(train)), unlabelled)
    return fold, _safe_indexing(Xl, test), yl[test]


def _cv_score(run, parts, folds, lam: float, alpha) -> Scored:
    """The full fit at (λ, α) and Σ log p(y_i | x_i) of each fold's fit on its held-out rows."""
    fit = run(parts, lam, alpha)
    total, iters = 0.0, []
    for train, test in folds:
        fold, X_test, y_test = _fold_parts(parts, train, test)
        got = run(fold, lam, alpha)
        est = got.state.est
        _, codes = encode_labels(y_test, est.classes_)
        total += float(np.sum(est.predict_log_proba(X_test)[np.arange(codes.size), codes]))
        iters.append(len(got.history) - 1)
    return Scored(fit, total if not np.isnan(total) else -np.inf, float(np.mean(iters)))


def _alpha_of(est) -> float:
    if "alpha" not in est.get_params(deep=False):
        return np.nan
    alpha = np.asarray(est.alpha_, dtype=np.float64)
    return float(alpha) if alpha.ndim == 0 else np.nan


def choose_weight(run, parts, estimator, cv=None, grid=WEIGHT_GRID) -> tuple:
    """The fit of the λ (and α) of the best cross-validated score, and the curve.

    Parameters
    ----------
    run : callable
        ``run(parts, λ, α)`` -> the fit to convergence on the split ``parts`` at λ from its
        labelled-only fit, the estimator's ``alpha`` set to α (None: the estimator's own),
        with ``state``, ``weight``, ``history`` and ``converged``: ``SemiSupervisedNB._run``.
    parts : tuple
        ``((X_labelled, y_labelled, w_labelled), (X_unlabelled, w_unlabelled))``.
    estimator : bayesnb estimator
        The unfitted estimator: with ``alpha="loo"`` α is searched at every λ > 0 (α ≥ 1
        for ``estimate="map"``).
    cv : None, int, "loo" or a scikit-learn splitter
        The folds of the labelled documents (:func:`folds_of`).
    grid : sequence of float
        The λ to try.

    Returns
    -------
    fit : the kept fit
    curve : dict of ndarray
        ``unlabelled_weight``, ``elpd_cv``, ``alpha``, ``n_iter`` (the full fit's),
        ``fold_n_iter`` (mean over the folds) and ``converged`` per λ, and ``n_splits``.
    """
    folds = folds_of(cv, parts[0][1])
    params = estimator.get_params(deep=False)
    learns_alpha, map_estimate = params.get("alpha") == "loo", params.get("estimate") == "map"
    best: Scored | None = None
    rows = []
    for lam in grid:
        if lam == 0 or not learns_alpha:
            got = _cv_score(run, parts, folds, float(lam), None)
        else:
            tried: dict[float, Scored] = {}

            def objective(alpha: float, lam=lam, tried=tried) -> float:
                tried[alpha] = _cv_score(run, parts, folds, float(lam), alpha)
                return tried[alpha].score

            maximise_in_log_alpha(objective, map_estimate, xatol=_ALPHA_XATOL)
            got = max(tried.values(), key=lambda t: t.score)
        fit = got.fit
        rows.append(
            (lam, got.score, _alpha_of(fit.state.est), len(fit.history) - 1, got.fold_iter,
             fit.converged)
        )  # fmt: skip
        if best is None or got.score > best.score:  # strictly: a tie keeps the smaller λ
            best = got
    names = ("unlabelled_weight", "elpd_cv", "alpha", "n_iter", "fold_n_iter", "converged")
    columns = zip(*rows, strict=True)
    curve = {name: np.asarray(column) for name, column in zip(names, columns, strict=True)}
    curve["n_splits"] = np.asarray(len(folds))
    return best.fit, curve


def labelled_loo(model, X, y, sample_weight=None) -> np.ndarray:
    """log p(y_i | x_i, S − s_i) of every labelled document of a fitted
    :class:`~bayesnb.SemiSupervisedNB`, the unlabelled documents' soft counts held at the
    fit's: a diagnostic of the leak that ``unlabelled_weight="cv"`` avoids (optimistic, by
    more as λ grows; ``benchmarks/bench_semisupervised.py`` measures it).

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
