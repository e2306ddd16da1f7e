"""Compare: fitted classifiers -> one table of held-out metrics (computing only, no plotting).

:func:`compare` evaluates a dict ``name -> estimator`` (each as configured, bayesnb or any
scikit-learn classifier) on a held-out split or by cross-validation, and returns an
``xarray.Dataset`` indexed by ``name``. Its leave-one-out ELPD of the training labels is exact
for every closed-form bayesnb estimate (:func:`bayesnb.model_selection.elpd_loo`: one fit,
every document downdated) and PSIS-LOO for the NUTS fits passed as ``posteriors``.
:func:`all_estimates` builds such a dict for one model under the four estimates.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping

import numpy as np
import xarray as xr
from sklearn.base import clone
from sklearn.metrics import accuracy_score, brier_score_loss, log_loss
from sklearn.model_selection import check_cv

from bayesnb.families import family_of, has_family
from bayesnb.families._protocol import Unsupported
from bayesnb.validation import ESTIMATES, check_int, take

__all__ = ["LOO_METHODS", "METRICS", "all_estimates", "compare", "expected_calibration_error"]

# name -> (long name, "higher is better")
METRICS: dict[str, tuple[str, bool]] = {
    "accuracy": ("held-out accuracy of predict", True),
    "log_loss": (
        "mean negative log-probability of the true label as sklearn's log_loss computes it "
        "(probabilities clipped at machine epsilon: at most about 36 nats a document)",
        False,
    ),
    "nll": ("mean negative log-probability of the true label, unclipped (-lpd / n)", False),
    "brier": ("multiclass Brier score on the full probability matrix", False),
    "ece": ("expected calibration error, 15 equal-mass bins", False),
    "lpd": ("held-out log predictive density of the labels, summed", True),
    "elpd_loo": (
        "leave-one-out ELPD of the training labels, sum of log p(y_i | x_i, D without i): "
        "exact for closed-form estimates, PSIS-LOO for NUTS posteriors (see loo_method)",
        True,
    ),
    "elpd_loo_se": ("standard error of elpd_loo", False),
    "pareto_k_bad": (
        "PSIS-LOO only: training documents with Pareto k above the good threshold "
        "(NaN for exact LOO)",
        False,
    ),
    "n_parameters": ("number of free parameters (NaN when unknown)", False),
    "fit_time": ("seconds to fit, after an untimed warm-up fit on a few documents", False),
    "score_time": ("seconds to predict_proba the test set", False),
}

#: How ``elpd_loo`` was computed, per row (the ``loo_method`` variable of compare's result):
#: ``"exact"`` (:func:`bayesnb.model_selection.elpd_loo`), ``"psis"`` (PSIS-LOO over
#: posterior draws) or ``""`` (not computed: ``loo=False`` or no posterior).
LOO_METHODS = ("exact", "psis", "")


def all_estimates(estimator, map_params: Mapping | None = None) -> dict[str, object]:
    """One model under every estimate it computes (``"mle"``, ``"map"``, ``"mean"``,
    ``"bayes"``): a dict for compare.

    Parameters
    ----------
    estimator : bayesnb estimator
        The configured model (its other parameters are kept).
    map_params : mapping, optional
        Parameters for the ``"map"`` entry only, e.g. ``{"alpha": 2.0, "class_alpha": 2.0}``
        (the mode needs concentrations >= 1; at exactly 1 it equals the MLE).

    Returns
    -------
    dict
        ``{"mle": ..., "map": ..., "mean": ..., "bayes": ...}`` of unfitted clones, without
        the estimates the model's family refuses (the DCM has no closed-form ``"bayes"``).
        A foreign estimator with an ``estimate`` parameter gets all four.
    """
    out = {}
    kept = family_of(estimator).estimates if has_family(estimator) else ESTIMATES
    for est in (e for e in ESTIMATES if e in kept):
        params = {"estimate": est} | (dict(map_params or {}) if est == "map" else {})
        out[est] = clone(estimator).set_params(**params)
    return out


def expected_calibration_error(y_true, proba: np.ndarray, classes, n_bins: int = 15) -> float:
    """Expected calibration error of the top-class confidence with equal-mass bins.

    Documents are sorted by the probability of their predicted class and split into
    ``n_bins`` bins of (nearly) equal size; ``ECE = Σ_b (n_b / n) |accuracy_b - confidence_b|``.
    """
    proba = np.asarray(proba)
    conf = proba.max(axis=1)
    correct = np.asarray(classes)[proba.argmax(axis=1)] == np.asarray(y_true)
    order = np.argsort(conf, kind="stable")
    n = len(conf)
    total = 0.0
    for idx in np.array_split(order, min(n_bins, n)):
        if len(idx):
            total += len(idx) / n * abs(correct[idx].mean() - conf[idx].mean())
    return float(total)


def _sklearn_counts() -> dict[type, Callable]:
    """scikit-learn's naive Bayes classes -> free parameters, given the model and its K."""
    from sklearn import naive_bayes as sknb

    return {
        # One complement word distribution per class; the class prior is unused in prediction.
        sknb.ComplementNB: lambda est, k: k * (est.feature_log_prob_.shape[1] - 1),
        sknb.MultinomialNB: lambda est, k: k - 1 + k * (est.feature_log_prob_.shape[1] - 1),
        sknb.BernoulliNB: lambda est, k: k - 1 + est.feature_log_prob_.size,
        sknb.CategoricalNB: lambda est, k: (
            k - 1 + k * int(np.sum(np.asarray(est.n_categories_) - 1))
        ),
        sknb.GaussianNB: lambda est, k: k - 1 + 2 * est.theta_.size,
    }


def n_parameters(estimator) -> float:
    """Free parameters of a fitted model (probability vectors count one less than their size).

    bayesnb models: the K − 1 of the class prior plus their family's feature parameters;
    scikit-learn's naive Bayes models by their tables (ComplementNB: one complement word
    distribution per class, its class prior is unused in prediction); a linear model by
    ``coef_`` plus ``intercept_``. NaN when unknown.
    """
    k = len(estimator.classes_)
    if has_family(estimator):
        return k - 1 + family_of(estimator).n_feature_parameters(estimator)
    counts = _sklearn_counts()
    # The most specific known class of the estimator (a subclass counts as its base).
    known = next((counts[c] for c in type(estimator).__mro__ if c in counts), None)
    if known is not None:
        return known(estimator, k)
    coef = getattr(estimator, "coef_", None)
    if coef is not None:
        return int(np.size(coef) + np.size(getattr(estimator, "intercept_", 0)))
    return np.nan  # unknown for a foreign estimator


_NO_LOO = (np.nan, np.nan, np.nan, "")


def _psis(fitted, X, y, draws: int, posterior=None) -> tuple[float, float, float, str]:
    """PSIS-LOO of the training labels over posterior draws (exact ones, or ``posterior``)."""
    from bayesnb.loo import psis_loo

    tree = fitted.label_log_likelihood(X, y, draws=draws, posterior=posterior)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loo = psis_loo(tree, var_name="y")
    for w in caught:  # surface Pareto-k warnings, named after the estimator
        category = w.category if issubclass(w.category, Warning) else UserWarning
        warnings.warn(f"{type(fitted).__name__}: {w.message}", category, stacklevel=4)
    good = getattr(loo, "good_k", 0.7)
    bad = float(np.sum(np.asarray(loo.pareto_k) > good))
    return float(loo.elpd), float(loo.se), bad, "psis"


def _exact(estimator, X, y) -> tuple[float, float, float, str] | None:
    """Exact LOO of the training labels (:func:`bayesnb.model_selection.elpd_loo`).

    None when the family cannot subtract statistics (a plug-in family without the
    capability): compare then falls back to PSIS-LOO over exact draws.
    """
    from bayesnb.model_selection import elpd_loo

    try:
        res = elpd_loo(estimator, X, y)
    except Unsupported:
        return None
    return res.elpd, res.se, np.nan, "exact"


def _posterior_key(estimator) -> tuple:
    """What the posterior depends on: the model and every parameter but ``estimate``."""
    params = estimator.get_params(deep=False)
    params.pop("estimate", None)
    return (type(estimator).__name__, repr(sorted(params.items())))


def _is_bayes_pipeline(fitted) -> bool:
    """A (duck-typed) scikit-learn pipeline whose last step is a bayesnb estimator."""
    return hasattr(fitted, "steps") and len(fitted.steps) > 1 and has_family(fitted[-1])


def _final(fitted, X):
    """``(model, X)`` that LOO scores: a fitted pipeline ending in a bayesnb estimator gives
    its last step and X transformed by the fitted steps before it (held at their fit on every
    training document), anything else itself and X."""
    if _is_bayes_pipeline(fitted):
        return fitted[-1], fitted[:-1].transform(X)
    return fitted, X


def _loo(fitted, X, y, cache: dict, draws: int, posterior=None):
    """``(elpd, se, pareto_k_bad, loo_method)`` of one row (see :data:`LOO_METHODS`)."""
    prep = repr(fitted[:-1]) if hasattr(fitted, "steps") else ""
    fitted, X = _final(fitted, X)
    if not has_family(fitted):
        return _NO_LOO  # a foreign classifier: no posterior, no statistics to downdate
    if posterior is not None:
        return _psis(fitted, X, y, draws, posterior)
    exact = _exact(fitted, X, y)  # refits a clone: the fitted model as configured
    if exact is not None:
        return exact
    # PSIS over exact draws: the same for mle / mean / bayes of one prior (and of one
    # preprocessing), so once each.
    key = (prep, *_posterior_key(fitted))
    if key not in cache:
        try:
            cache[key] = _psis(fitted, X, y, draws)
        except Unsupported:
            cache[key] = _NO_LOO
    return cache[key]


_WARM_UP = 5  # documents of each class in the untimed warm-up fit


def _warm_up(estimator, X_train, y_train, X_test) -> None:
    """An untimed fit and ``predict_proba`` of a clone on the first few training documents of
    every class: the first call of a code path pays one-off costs (lazy imports, compiled
    kernels, caches filled), which would otherwise be charged to whichever row comes first.
    Its failures and warnings are dropped: the timed fit reports them."""
    y = np.asarray(y_train)
    some = np.sort(np.concatenate([np.flatnonzero(y == c)[:_WARM_UP] for c in np.unique(y)]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            clone(estimator).fit(take(X_train, some), y[some]).predict_proba(
                take(X_test, np.arange(min(_WARM_UP, _n_rows(X_test))))
            )
        except Exception:  # any failure is the timed fit's to report
            pass


def _evaluate(
    estimator,
    X_train,
    y_train,
    X_test,
    y_test,
    loo: bool,
    loo_cache: dict,
    loo_draws: int = 500,
    posterior=None,
    warm_up: bool = True,
) -> tuple[dict[str, float], str, object]:
    """The metrics of one estimator on one split, how its ``elpd_loo`` was computed, and
    the fitted estimator."""
    if warm_up:
        _warm_up(estimator, X_train, y_train, X_test)
    t0 = time.perf_counter()
    fitted = clone(estimator).fit(X_train, y_train)
    fit_time = time.perf_counter() - t0
    t0 = time.perf_counter()
    proba = fitted.predict_proba(X_test)
    score_time = time.perf_counter() - t0
    classes = fitted.classes_
    y_test = np.asarray(y_test)
    pred = fitted.predict(X_test)  # (a likelihood temperature changes proba, not predict)
    index = np.searchsorted(classes, y_test)
    known = (index < len(classes)) & (classes[np.minimum(index, len(classes) - 1)] == y_test)
    if not np.all(known):
        raise ValueError("y_test holds labels the estimator never saw in training")
    with np.errstate(divide="ignore"):
        lpd = float(np.sum(np.log(proba[np.arange(len(y_test)), index])))
    elpd, elpd_se, bad, method = _NO_LOO
    if loo:
        elpd, elpd_se, bad, method = _loo(fitted, X_train, y_train, loo_cache, loo_draws, posterior)
    row = {
        "accuracy": accuracy_score(y_test, pred),
        "log_loss": log_loss(y_test, proba, labels=classes),
        "brier": brier_score_loss(y_test, proba, labels=classes),
        "ece": expected_calibration_error(y_test, proba, classes),
        "lpd": lpd,
        "nll": -lpd / len(y_test),
        "elpd_loo": elpd,
        "elpd_loo_se": elpd_se,
        "pareto_k_bad": bad,
        "n_parameters": n_parameters(fitted[-1] if _is_bayes_pipeline(fitted) else fitted),
        "fit_time": fit_time,
        "score_time": score_time,
    }
    return row, method, fitted


def _check_posteriors(posteriors, names, cv, loo: bool, loo_draws) -> dict:
    """``posteriors`` as a dict of names among ``names``; refuse what compare cannot use."""
    if loo:
        check_int(loo_draws, "loo_draws")
    if posteriors is None:
        return {}
    if not isinstance(posteriors, Mapping):
        raise TypeError(
            "posteriors must be a dict of name -> DataTree (the result of est.fit_pymc), got "
            f"{type(posteriors).__name__}"
        )
    unknown = [k for k in posteriors if k not in names]
    if unknown:
        raise ValueError(f"posteriors names {unknown} are not among the estimators {names}")
    if posteriors and cv is not None:
        raise ValueError(
            "posteriors (NUTS fits of the whole training set) cannot score the training part "
            "of each cross-validation fold; give a held-out split instead of cv"
        )
    if posteriors and not loo:
        raise ValueError("posteriors are only used for elpd_loo: pass loo=True")
    return dict(posteriors)


def compare(
    estimators: Mapping[str, object],
    X_train,
    y_train,
    X_test=None,
    y_test=None,
    cv=None,
    *,
    loo: bool = True,
    loo_draws: int = 500,
    posteriors: Mapping[str, xr.DataTree] | None = None,
    return_estimator: bool = False,
) -> xr.Dataset | tuple[xr.Dataset, dict[str, object]]:
    """Evaluate several classifiers on the same data; one row per name.

    Parameters
    ----------
    estimators : mapping of str -> estimator
        Each is cloned and fitted as configured (bayesnb or any scikit-learn classifier with
        ``predict_proba``, e.g. ComplementNB or LogisticRegression as baselines). Estimators
        that are not bayesnb models get NaN in the LOO columns, and NaN ``n_parameters``
        when their parameters cannot be counted. A scikit-learn ``Pipeline`` whose last step
        is a bayesnb estimator counts and LOO-scores that step (see ``loo``); ``X_train``
        and ``X_test`` are then what the pipeline takes (e.g. a list of raw documents).
        ``fit_time`` is of the second fit: each estimator is first fitted (and asked for
        ``predict_proba``) untimed on the first 5 training documents of every class, so
        one-off costs of a first call (lazy imports, compiled kernels, caches) are not
        charged to the row that happens to come first; under ``cv`` once, before fold 0.
    X_train, y_train
        Training data.
    X_test, y_test : optional
        Held-out data. Give these or ``cv``.
    cv : int or cross-validation splitter, optional
        Cross-validate on the training data instead (stratified for an int): every fold is
        refitted, metrics are averaged over folds and the per-fold values kept in
        ``<metric>_folds``; ``elpd_loo`` is then the leave-one-out ELPD of each fold's
        training part.
    loo : bool, default True
        Compute the leave-one-out ELPD of the training labels, ``elpd_loo`` =
        Σ_i log p(y_i | x_i, D without i), and its standard error. For a bayesnb estimate
        (mle, map, mean or bayes: all closed form) it is exact,
        :func:`bayesnb.model_selection.elpd_loo` (one fit, every document's statistics
        subtracted; learned hyperparameters held at their full-data values), and
        ``pareto_k_bad`` is NaN. For a name in ``posteriors`` it is PSIS-LOO over those
        draws (:func:`bayesnb.loo.psis_loo`), with ``pareto_k_bad`` counted and Pareto-k
        warnings re-issued prefixed with the estimator's class name. A plug-in family that
        cannot subtract statistics gets PSIS-LOO over ``loo_draws`` exact posterior draws.
        For a pipeline ending in a bayesnb estimator, the training documents are transformed
        by the fitted steps before it and its last step is scored by exact LOO: the
        preprocessing is held at its fit on every training document, as learned
        hyperparameters are (a ``CountVectorizer``'s vocabulary includes words only the
        left-out document uses). That is the LOO of the final model only when the steps are
        unsupervised; a step fitted on the labels (``SelectKBest(chi2)``) saw the left-out
        label, and its row's ``elpd_loo`` is optimistic.
    loo_draws : int, default 500
        Exact posterior draws for that PSIS-LOO fallback.
    posteriors : mapping of str -> xarray.DataTree, optional
        NUTS fits by estimator name: the tree ``est.fit_pymc(X_train, y_train)`` returned
        (the estimators keep no NUTS fit). Those rows' ``elpd_loo`` is PSIS-LOO over its
        draws. Only with a held-out split (a NUTS fit of the whole training set cannot
        score a fold's training part). Only ``elpd_loo``, its ``se`` and ``pareto_k_bad``
        come from the draws: every held-out metric (accuracy, log loss, nll, Brier, ECE,
        lpd) of the row is that of the estimator's own ``estimate`` (its point estimate or
        closed-form predictive), fitted as configured, not of the NUTS posterior predictive.
    return_estimator : bool, default False
        Also return the fitted estimators (as scikit-learn's ``cross_validate`` does).

    Returns
    -------
    xarray.Dataset
        Variables of :data:`METRICS` with dim ``name`` (``.to_dataframe()`` gives a table),
        ``loo_method`` (``"exact"``, ``"psis"`` or ``""``, see :data:`LOO_METHODS`),
        ``loo_reliable`` (exact, or PSIS-LOO with no bad Pareto k; False when not computed)
        and ``error``.
    estimators : dict, when ``return_estimator`` is True
        ``name -> fitted clone`` (None where it failed); under ``cv`` a list per name,
        one per fold.

    Raises
    ------
    TypeError
        ``estimators`` is not a non-empty dict, or one of them has no ``predict_proba``.
    ValueError
        Neither or both of a held-out split and ``cv``; test labels unseen in training;
        ``posteriors`` naming no estimator, or given with ``cv`` or ``loo=False``.
    """
    if not isinstance(estimators, Mapping) or not estimators:
        raise TypeError("estimators must be a non-empty dict of name -> estimator")
    if (X_test is None) == (cv is None):
        raise ValueError("give either X_test and y_test (a held-out split) or cv, not both")
    if X_test is not None and y_test is None:
        raise ValueError("y_test is required with X_test")
    names = list(estimators)
    for name in names:
        # Every metric is computed from predicted probabilities; refuse before any fitting.
        if not hasattr(estimators[name], "predict_proba"):
            raise TypeError(
                f"estimator {name!r} ({type(estimators[name]).__name__}) has no predict_proba; "
                "compare scores predicted probabilities (e.g. SVC needs probability=True)"
            )
    trees = _check_posteriors(posteriors, names, cv, loo, loo_draws)
    errors: dict[str, Exception] = {}
    fitted: dict[str, object] = {}
    if cv is None:
        cache: dict = {}
        rows, methods = [], []
        for n in names:
            row, method, fitted[n] = _failsafe(
                n,
                errors if n not in trees else None,  # a bad posterior is the caller's error
                lambda n=n: _evaluate(
                    estimators[n], X_train, y_train, X_test, y_test, loo, cache, loo_draws,
                    trees.get(n),
                ),
            )  # fmt: skip
            rows.append(row)
            methods.append(method)
        data = {m: ("name", [r[m] for r in rows]) for m in METRICS}
        ds = xr.Dataset(data, coords={"name": names})
    else:
        y_arr = np.asarray(y_train)
        splitter = check_cv(cv, y_arr, classifier=True)
        folds = list(splitter.split(np.zeros(len(y_arr)), y_arr))
        table = np.empty((len(names), len(folds), len(METRICS)))
        caches: list[dict] = [{} for _ in folds]
        methods = []
        for i, n in enumerate(names):
            fitted[n] = []
            for f, (tr, te) in enumerate(folds):
                r, method, model = _failsafe(
                    n,
                    errors,
                    lambda n=n, tr=tr, te=te, f=f: _evaluate(
                        estimators[n], take(X_train, tr), y_arr[tr], take(X_train, te),
                        y_arr[te], loo, caches[f], loo_draws, warm_up=f == 0,
                    ),
                )  # fmt: skip
                table[i, f] = [r[m] for m in METRICS]
                fitted[n].append(model)
            methods.append(method)
        data = {}
        for k, m in enumerate(METRICS):
            data[m] = ("name", table[:, :, k].mean(axis=1))
            data[f"{m}_folds"] = (("name", "fold"), table[:, :, k])
        ds = xr.Dataset(data, coords={"name": names, "fold": np.arange(len(folds))})
    for m, (long_name, higher) in METRICS.items():
        ds[m].attrs = {"long_name": long_name, "higher_is_better": int(higher)}
    if len(errors) == len(names):  # nothing to compare: the first failure is the answer
        raise next(iter(errors.values()))
    ds["error"] = ("name", np.asarray([_one_line(errors.get(n, "")) for n in names], dtype=str))
    ds["error"].attrs = {"long_name": "why the row's estimator failed (its metrics are NaN)"}
    ds["loo_method"] = ("name", np.asarray(methods, dtype=str))
    ds["loo_method"].attrs = {
        "long_name": "how elpd_loo was computed: exact, psis (PSIS-LOO over posterior draws), "
        "or empty (not computed)"
    }
    ds["loo_reliable"] = ("name", _reliable(ds))
    ds["loo_reliable"].attrs = {
        "long_name": "elpd_loo can be trusted: exact, or PSIS-LOO with no Pareto k above the "
        "good threshold (in every fold); False when not computed"
    }
    return (ds, fitted) if return_estimator else ds


def _reliable(ds: xr.Dataset) -> np.ndarray:
    """Per row: exact LOO, or PSIS-LOO without a bad Pareto k (in any fold)."""
    bad = ds["pareto_k_bad_folds"].sum("fold") if "fold" in ds.dims else ds["pareto_k_bad"]
    method = ds["loo_method"].values
    return (method == "exact") | ((method == "psis") & (bad.values == 0))


def _failsafe(name: str, errors: dict | None, evaluate) -> tuple[dict[str, float], str, object]:
    """``evaluate()``, or a row of NaN and no fitted model when the estimator fails (recorded
    in ``errors``, with a warning naming it): one failing baseline does not abort the table.
    ``errors=None``: failures raise."""
    if errors is None:
        return evaluate()
    if name in errors:  # failed on an earlier fold
        return dict.fromkeys(METRICS, np.nan), "", None
    try:
        return evaluate()
    except (ValueError, TypeError, ArithmeticError, np.linalg.LinAlgError) as exc:
        errors[name] = exc
        warnings.warn(f"compare: {name!r} failed: {_one_line(exc)}", UserWarning, stacklevel=4)
        return dict.fromkeys(METRICS, np.nan), "", None


def _one_line(exc) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else (type(exc).__name__ if exc else "")


def _n_rows(X) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)
