"""Exact cross-validation from sufficient statistics: fit once, subtract every fold.

Every bayesnb model is fitted from additive statistics, so the model fitted without a fold is
the full model with the fold's statistics subtracted (:meth:`Family.subtract`): the same
numbers as a refit on the training part (to rounding), for every estimate and prior, with
learned hyperparameters (``alpha="evidence"``, ``alpha="loo"``, ``class_alpha="evidence"``)
re-learned on each training part as a refit would. The functions mirror
:mod:`sklearn.model_selection` (same arguments, same results), at the cost of one fit plus
one pass over each fold.

Leave-one-out (:func:`elpd_loo`, and ``cv=LeaveOneOut()`` without learned hyperparameters)
scores every document under the model without it in O(nonzeros of the document)
(:meth:`Family.loo_joint_log_proba`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import clone
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv

from bayesnb.families import family_of
from bayesnb.families._crossval import (
    label_log_likelihood,
    learned_values,
    loo_class_log_prior,
    loo_joint,
)
from bayesnb.scoring.blocks import for_row_blocks
from bayesnb.scoring.softmax import prior_fallback
from bayesnb.scoring.temperature import tempered
from bayesnb.validation import check_sample_weight, take

if TYPE_CHECKING:
    from bayesnb.elpd import ELPD

__all__ = [
    "ELPD",
    "cross_val_predict",
    "cross_val_score",
    "cross_validate",
    "elpd_loo",
    "loo_pointwise",
]

_WHERE = "bayesnb.model_selection"
_METHODS = ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba")


class _Folds:
    """The full fit and its validated data, from which every fold's model is downdated."""

    def __init__(self, estimator, X, y, sample_weight, tests=None):
        family_of(estimator, _WHERE)
        self.estimator, self.X, self.y = estimator, X, np.asarray(y)
        self.sample_weight = sample_weight
        self.full = clone(estimator)
        # The fit's own validated data: every fold is downdated from it (X validated once).
        self.Xv, self.codes, _ = self.full._fit_input(X, y)
        self.w = check_sample_weight(sample_weight, self.Xv)
        self.family = family_of(self.full, _WHERE)
        self.parts = None  # per fold: (validated test rows, their statistics)
        if tests is not None:  # ``tests`` partition X: the fit merges the folds' statistics
            self.parts = _by_fold(len(tests), self.work, lambda k: self._counted(tests[k]))
        statistics = None if self.parts is None else [stats for _, stats in self.parts]
        self.full._fit_arrays(self.Xv, self.codes, self.w, statistics)
        self.w = np.asarray(self.w, dtype=np.float64)
        self.learned = learned_values(self.full)
        self.learns_loo = "loo" in self.learned

    @property
    def work(self) -> int:
        """Stored values (or cells) of X: the work a pass over the folds does."""
        return int(getattr(self.Xv, "nnz", np.size(self.Xv)))

    def _counted(self, test) -> tuple:
        """The validated rows ``test`` and their statistics."""
        part = self.Xv[test]
        return part, self.full._statistics(part, self.codes[test], self.w[test])

    def refitted(self, train) -> bool:
        """Whether the fold is refitted: its training part lacks a class (a refit then has
        fewer classes, as scikit-learn's refit does)."""
        k = len(self.full.classes_)
        return np.bincount(self.codes[train], minlength=k).min() == 0

    def model(self, train, test, Xtest=None):
        """The estimator fitted on ``train``: downdated, or refitted when it lacks a class.

        ``Xtest``: the validated test rows ``Xv[test]`` when the caller holds them already.
        """
        if self.refitted(train):
            w = None if self.sample_weight is None else self.w[train]
            return clone(self.estimator).fit(take(self.X, train), self.y[train], sample_weight=w)
        return self._downdated(train, test, self.Xv[test] if Xtest is None else Xtest)

    def _downdated(self, train, test, Xtest, stats=None):
        if stats is None:
            stats = self.full._statistics(Xtest, self.codes[test], self.w[test])
        documents = None
        if self.learns_loo:
            documents = (self.Xv[train], self.codes[train], self.w[train])
        return self.family.downdated(self.full, stats, documents)

    def predictions(self, train, test, method: str, fold: int | None = None) -> np.ndarray:
        """``method`` of the fold's model on its test rows, in the full classes' columns.

        ``fold``: the index of ``test`` among the ``tests`` the fit counted fold by fold.
        """
        if self.refitted(train):
            model = self.model(train, test)
            return _fold_predictions(model, method, take(self.X, test), self.full.classes_)
        if fold is not None and self.parts is not None:
            Xtest, stats = self.parts[fold]
        else:
            Xtest, stats = self.Xv[test], None
        if stats is not None and not self.learned:  # scored without a downdated copy?
            got = self.family.fold_joint_log_proba(self.full, stats, Xtest)
            if got is not None:
                joint, prior = got
                prior = np.broadcast_to(prior, joint.shape)
                tau = self.full._temperature()
                return _as_method(joint, prior, method, self.full.classes_, tau)
        model = self._downdated(train, test, Xtest, stats)
        # As model.<method>(X[test]), without validating the rows again.
        prior = model.class_log_prior_
        joint = model._log_likelihood(Xtest) + prior
        prior = np.broadcast_to(prior, joint.shape)
        return _as_method(joint, prior, method, model.classes_, model._temperature())


def _by_fold(n_folds: int, work: int, fn) -> list:
    """``[fn(0), ..., fn(n_folds - 1)]``, the folds shared out among the scoring threads when
    the data are large (``work``: their stored values); each fold's numbers are those of a
    single thread."""
    out: list = [None] * n_folds

    def run(k0: int, k1: int) -> None:
        for k in range(k0, k1):
            out[k] = fn(k)

    per_fold = max(1, work // max(n_folds, 1))
    for_row_blocks(n_folds, per_fold, run, block_cells=per_fold)
    return out


def _splits(cv, X, y) -> list[tuple[np.ndarray, np.ndarray]]:
    cv = check_cv(cv, y, classifier=True)
    return [(np.asarray(tr), np.asarray(te)) for tr, te in cv.split(X, y)]


def _is_loo(splits, n: int) -> bool:
    if len(splits) != n:
        return False
    return all(te.size == 1 and tr.size == n - 1 for tr, te in splits) and np.array_equal(
        np.sort(np.concatenate([te for _, te in splits])), np.arange(n)
    )


# Impossible under every class of the model without them: a refit falls back to its prior.
_LOO_FALLBACK = (
    "{n} document(s) have probability 0 under every class of the model without them; their "
    "predictions fall back to the class prior"
)


def _as_method(
    joint: np.ndarray, prior: np.ndarray, method: str, classes, tau: float = 1.0
) -> np.ndarray:
    """``method``'s output from LOO joint log-probabilities and LOO class log-priors (n, K),
    probabilities at likelihood temperature ``tau`` (as the estimator's methods give them)."""
    from bayesnb.scoring import normalize_log_proba, normalize_proba

    if method == "predict_joint_log_proba":
        return joint
    if method != "predict":
        joint = tempered(joint, prior, tau)
    joint = prior_fallback(joint, prior, _LOO_FALLBACK)
    prior = np.zeros(joint.shape[1])  # unused: no row is impossible now
    if method == "predict_log_proba":
        return normalize_log_proba(joint, prior)
    if method == "predict_proba":
        return normalize_proba(joint, prior)
    return classes[np.argmax(joint, axis=1)]


def _fold_predictions(model, method: str, X, classes: np.ndarray) -> np.ndarray:
    """``model.method(X)``, columns of the full classes as scikit-learn lays them out."""
    out = getattr(model, method)(X)
    if method == "predict" or np.array_equal(model.classes_, classes):
        return out
    # A training fold without some class: scikit-learn fills its column with 0 (proba) or
    # the most negative float (log proba); -inf for joint log-probabilities.
    fill = {"predict_proba": 0.0, "predict_log_proba": np.finfo(np.float64).min}
    full = np.full((out.shape[0], classes.size), fill.get(method, -np.inf))
    full[:, np.searchsorted(classes, model.classes_)] = out
    return full


def cross_val_predict(
    estimator, X, y, *, cv=None, method: str = "predict_proba", sample_weight=None
) -> np.ndarray:
    """Cross-validated predictions, as :func:`sklearn.model_selection.cross_val_predict`.

    Fits once and subtracts each fold's statistics (no refit): the numbers of scikit-learn's
    refits, to rounding, for every family, estimate and prior; learned hyperparameters are
    re-learned on each training part as a refit would (a fold whose training part lacks a
    class is refitted, since a refit then has fewer classes). With ``cv=LeaveOneOut()`` and
    no learned hyperparameter every document is scored in O(its nonzeros). A family that
    scores folds from their statistics (``Family.fold_statistics``: the multinomial and
    Bernoulli models) has the fit count X fold by fold, so X is counted once in all.

    Parameters
    ----------
    estimator : unfitted bayesnb estimator
    X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    cv : int, cross-validation splitter or iterable of (train, test) splits, optional
        As in scikit-learn: None is 5-fold, an int k-fold, stratified for classifiers.
    method : {"predict_proba", "predict", "predict_log_proba", "predict_joint_log_proba"}
    sample_weight : array-like of shape (n_samples,), optional
        Weights of the fits (as ``params={"sample_weight": w}`` in scikit-learn).

    Returns
    -------
    ndarray of shape (n_samples,) or (n_samples, n_classes)
        Columns are the classes of the whole ``y``: a class absent from a training fold gets
        probability 0 (log-probability: the most negative float; joint: ``-inf``).
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    splits = _splits(cv, X, np.asarray(y))
    tests = [te for _, te in splits]
    n = np.asarray(y).shape[0]
    everything = np.concatenate(tests) if splits else np.zeros(0, np.intp)
    if (
        everything.size != n
        or (n and everything.min() < 0)
        or not np.all(np.bincount(everything, minlength=n) == 1)
    ):
        raise ValueError("cross_val_predict only works for partitions (every row tested once)")
    # A family that scores folds from their statistics has the fit count X fold by fold.
    by_fold = (
        family_of(estimator, _WHERE).fold_statistics
        and not learned_values(estimator)
        and not _is_loo(splits, n)
    )
    folds = _Folds(estimator, X, y, sample_weight, tests if by_fold else None)
    classes = folds.full.classes_
    if _is_loo(splits, n) and not learned_values(folds.full):
        lone = np.bincount(folds.codes, minlength=classes.size)[folds.codes] == 1
        if not lone.any():
            joint = loo_joint(folds.full, folds.Xv, folds.codes, folds.w)
            prior = loo_class_log_prior(folds.full, folds.codes, folds.w)
            return _as_method(joint, prior, method, classes, folds.full._temperature())
    parts = _by_fold(len(splits), folds.work, lambda k: folds.predictions(*splits[k], method, k))
    if method == "predict":  # labels: the dtype of every fold's, as np.concatenate gives it
        return np.concatenate(list(parts))[np.argsort(everything, kind="stable")]
    out = None  # every fold's rows written into place (the dtype np.concatenate would give)
    for (_, te), part in zip(splits, parts, strict=True):
        if out is None:
            out = np.empty((n, classes.size), dtype=part.dtype)
        elif np.result_type(out, part) != out.dtype:
            out = out.astype(np.result_type(out, part))
        out[te] = part
    return out


def cross_validate(
    estimator,
    X,
    y,
    *,
    cv=None,
    scoring=None,
    sample_weight=None,
    return_train_score: bool = False,
    return_estimator: bool = False,
) -> dict:
    """Scores of every fold, as :func:`sklearn.model_selection.cross_validate` (no refits).

    ``scoring`` is a scorer name, a callable, a list/tuple of names or a dict name ->
    scorer, as in scikit-learn (None: the estimator's ``score``, accuracy). ``fit_time`` is
    the time to downdate the fold's model (the one full fit is not included).
    """
    folds = _Folds(estimator, X, y, sample_weight)
    if scoring is None or callable(scoring) or isinstance(scoring, str):
        # One scorer is reported as test_score, as scikit-learn does.
        scorers = {"score": check_scoring(estimator, scoring)}
    else:
        names = scoring.items() if isinstance(scoring, dict) else ((s, s) for s in scoring)
        scorers = {k: check_scoring(estimator, v) for k, v in names}
    out: dict[str, list] = {"fit_time": [], "score_time": []}
    for tr, te in _splits(cv, X, folds.y):
        t0 = time.perf_counter()
        model = folds.model(tr, te)
        t1 = time.perf_counter()
        for name, scorer in scorers.items():
            out.setdefault(f"test_{name}", []).append(scorer(model, take(X, te), folds.y[te]))
            if return_train_score:
                out.setdefault(f"train_{name}", []).append(scorer(model, take(X, tr), folds.y[tr]))
        out["score_time"].append(time.perf_counter() - t1)
        out["fit_time"].append(t1 - t0)
        if return_estimator:
            out.setdefault("estimator", []).append(model)
    return {k: (v if k == "estimator" else np.asarray(v)) for k, v in out.items()}


def cross_val_score(estimator, X, y, *, cv=None, scoring=None, sample_weight=None) -> np.ndarray:
    """The test score of every fold, as :func:`sklearn.model_selection.cross_val_score`."""
    res = cross_validate(estimator, X, y, cv=cv, scoring=scoring, sample_weight=sample_weight)
    return res["test_score"]


def __getattr__(name: str):
    # ELPD is an ArviZ ELPDData: ArviZ is imported when elpd_loo (or this name) is first used.
    if name == "ELPD":
        from bayesnb.elpd import ELPD

        return ELPD
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _in_sample(folds: _Folds) -> np.ndarray:
    """log p(y_i | x_i, D) of every training document under the full fit (for p_loo)."""
    full = folds.full
    joint = full._log_likelihood(folds.Xv) + full.class_log_prior_
    joint = tempered(joint, full.class_log_prior_, full._temperature())
    joint = prior_fallback(joint, full.class_log_prior_)  # as predict scores impossible rows
    return label_log_likelihood(joint, folds.codes)


def _warn_single_documents(est, codes: np.ndarray) -> None:
    """Warn that the classes of one document give an ELPD of -inf (see :func:`elpd_loo`)."""
    classes = est.classes_
    alone = classes[np.bincount(codes, minlength=len(classes)) == 1]
    # Two classes or a fixed class_prior: the refit without it fails, and elpd_loo says so.
    if alone.size == 0 or len(classes) - 1 < 2 or est.class_prior is not None:
        return
    import warnings

    names = ", ".join(repr(c.item() if hasattr(c, "item") else c) for c in alone[:5])
    more = f" and {alone.size - 5} more" if alone.size > 5 else ""
    warnings.warn(
        f"class(es) {names}{more} have a single document: leaving it out leaves a model "
        "without its class, which gives its label probability 0, so elpd_loo is -inf; "
        "drop the class or give it more documents",
        UserWarning,
        stacklevel=3,
    )


def elpd_loo(estimator, X, y, *, sample_weight=None) -> ELPD:
    """Exact leave-one-out ELPD of the labels: Σ_i log p(y_i | x_i, D without i).

    One fit, then every document scored under the model without it in O(its nonzeros)
    where the family provides the downdated predictive (the DCM, ColumnwiseNB and rows that
    empty their class are downdated one document at a time: still exact). The estimate is
    the estimator's ``estimate`` (``"bayes"``: the posterior predictive), the label
    probabilities at its likelihood ``temperature_`` (``joint`` is untempered). Learned
    hyperparameters (``alpha="evidence"``/``"loo"``, ``class_alpha="evidence"``) are held at
    their full-data values (re-learning them per document would cost a search per
    document; ``tests/test_model_selection.py`` measures the difference against refits).
    A document is counted once whatever its weight. A document with probability 0 under
    every class of the model without it (an MLE that never saw one of its words) is scored
    by its class prior, as a refit's ``predict_log_proba`` scores it (and warns).

    A class with a single document makes the ELPD ``-inf``: the model without that document
    is the refit on the other documents, which has no such class, so the label gets
    probability 0 under every estimate (a prior cannot help: the class is not in the refit)
    and its ``elpd_i`` is ``-inf`` (``se`` NaN). A UserWarning names such classes.

    Returns
    -------
    ELPD
        An ``arviz_stats.ELPDData`` (kind ``"loo"``, method ``"exact"``, no Pareto k):
        ``arviz.compare`` ranks and weights it beside other exact results and PSIS-LOO of
        NUTS fits of the same documents (:func:`bayesnb.loo.psis_loo`). Its ``p`` is
        ``lpd − elpd`` with ``lpd`` the in-sample log predictive density of the labels.
    """
    from bayesnb.elpd import ELPD

    folds = _Folds(estimator, X, y, sample_weight)
    _warn_single_documents(folds.full, folds.codes)
    point, joint = loo_pointwise(folds.full, folds.Xv, folds.codes, folds.w)
    dead = not np.all(np.isfinite(joint.max(axis=1)))
    return ELPD.from_pointwise(point, _in_sample(folds), joint, warning=dead)


def loo_pointwise(est, X, codes: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log p(y_i | x_i, D without i) of documents counted in fitted ``est``'s statistics.

    Each document's statistics are subtracted from those of ``est``, whatever else they hold
    (:class:`~bayesnb.SemiSupervisedNB`'s soft counts of unlabelled documents stay in), and
    it is scored as :func:`elpd_loo` scores it: at ``est``'s temperature, a document
    impossible under every class by its class prior.

    Parameters
    ----------
    est : fitted bayesnb estimator
    X : validated rows (``est._check_input``'s output) of documents counted in ``est``
    codes : ndarray of shape (n,)
        Their label codes.
    weights : ndarray of shape (n,)
        Their weights in the fit.

    Returns
    -------
    pointwise : ndarray of shape (n,)
        log p(y_i | x_i, D without i).
    joint : ndarray of shape (n, n_classes)
        log p(x_i, c | D without i), untempered.
    """
    weights = np.asarray(weights, dtype=np.float64)
    joint = loo_joint(est, X, codes, weights)
    tau = est._temperature()
    scored = joint
    if tau != 1.0 or not np.all(np.isfinite(joint.max(axis=1))):
        prior = loo_class_log_prior(est, codes, weights)
        scored = prior_fallback(tempered(joint, prior, tau), prior, _LOO_FALLBACK)
    return label_log_likelihood(scored, codes), joint
