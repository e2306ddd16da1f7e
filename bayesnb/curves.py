"""Learning curves: test error against training-set size for any classifiers, and test
scores against the number of labelled documents per class with the rest unlabelled.

The experiment of Ng & Jordan (2001), "On discriminative vs. generative classifiers": a
generative model (GDA, naive Bayes) reaches its asymptotic error with fewer samples than its
discriminative partner (logistic regression), which often ends lower. Every repeat draws one
random train/test split; the training sets of increasing size are nested prefixes of one
random order of the training pool, so the curves of all estimators and sizes in a repeat share
their data.

:func:`labelled_curve` is the experiment of Nigam et al. (2000): n labelled documents per
class, every other training document unlabelled, the labelled-only fit against EM and
variational Bayes (:class:`bayesnb.semisupervised.SemiSupervisedNB`) on one fixed test split.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from numbers import Real

import numpy as np
import xarray as xr
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.utils import check_random_state

from bayesnb.validation import check_int, take

__all__ = ["INFERENCES", "labelled_curve", "learning_curve"]

#: The fits :func:`labelled_curve` compares: labelled documents only, EM, variational Bayes.
INFERENCES = ("supervised", "em", "vb")


def _named(estimators) -> dict:
    if isinstance(estimators, Mapping):
        named = {str(k): v for k, v in estimators.items()}
    elif isinstance(estimators, Sequence) and not isinstance(estimators, str):
        named = {}
        for est in estimators:
            name = type(est).__name__
            k = 2
            while name in named:
                name, k = f"{type(est).__name__}_{k}", k + 1
            named[name] = est
    else:
        raise TypeError(
            "estimators must be a dict name -> classifier or a list of classifiers, got "
            f"{type(estimators).__name__}"
        )
    if not named:
        raise ValueError("estimators is empty")
    for name, est in named.items():
        if not (hasattr(est, "fit") and hasattr(est, "predict")):
            raise TypeError(f"estimator {name!r} has no fit/predict methods")
    return named


def _sizes(train_sizes, n_pool: int, n_classes: int) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(train_sizes))
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iuf":
        raise ValueError(
            f"train_sizes must be a non-empty 1-D list of numbers, got {train_sizes!r}"
        )
    if arr.dtype.kind == "f" and np.all((arr > 0) & (arr <= 1)):
        arr = np.floor(arr * n_pool)
    if not np.all(arr == np.floor(arr)):
        raise ValueError(
            "train_sizes must be integers (sample counts) or fractions in (0, 1], got "
            f"{train_sizes!r}"
        )
    sizes = np.unique(arr.astype(np.intp))
    if sizes[0] < n_classes or sizes[-1] > n_pool:
        raise ValueError(
            f"train_sizes must lie in [{n_classes}, {n_pool}] (at least one sample per class, "
            f"at most the training pool of {n_pool}), got {sizes.tolist()}"
        )
    return sizes


def _order(y_pool: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
    """A random order of the pool whose first K entries hold one sample of every class."""
    perm = rng.permutation(y_pool.shape[0])
    _, first = np.unique(y_pool[perm], return_index=True)
    head = perm[np.sort(first)]
    rest = np.delete(perm, np.sort(first))
    return np.concatenate([head, rest])


def learning_curve(
    estimators,
    X,
    y,
    train_sizes=(0.1, 0.25, 0.5, 0.75, 1.0),
    n_repeats: int = 5,
    random_state=None,
    *,
    test_size: float = 0.25,
) -> xr.Dataset:
    """Test error of every estimator by training-set size, over random repeats.

    Parameters
    ----------
    estimators : dict of str -> classifier, or list of classifiers
        Each is cloned and fitted as configured (names default to the class names).
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    train_sizes : array-like of int or of float in (0, 1]
        Training-set sizes, as counts or as fractions of the training pool. Each must hold at
        least one sample per class: the first K samples of every training order are one of
        each class, the rest is random.
    n_repeats : int, default 5
        Number of random train/test splits.
    random_state : int, RandomState or None
    test_size : float in (0, 1), default 0.25
        Share of the data held out for testing in every repeat (stratified by class).

    Returns
    -------
    xarray.Dataset
        ``error`` (estimator, train_size, repeat): misclassification rate on the test set, NaN
        where the fit failed (with a ``FitFailedWarning``); ``error_mean`` and ``error_std``
        (estimator, train_size): mean and standard deviation (ddof=1) over repeats, ignoring
        failed fits. Attributes record ``test_size`` and ``n_test``.
    """
    from sklearn.model_selection import train_test_split

    named = _named(estimators)
    check_int(n_repeats, "n_repeats")
    if not isinstance(test_size, Real) or not 0 < test_size < 1:
        raise ValueError(f"test_size must be a fraction in (0, 1), got {test_size!r}")
    X = X if hasattr(X, "iloc") else np.asarray(X)
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != X.shape[0]:
        raise ValueError(f"y must be a 1-D vector with one label per row of X ({X.shape[0]})")
    classes = np.unique(y)
    n_test = int(np.ceil(test_size * len(y)))
    sizes = _sizes(train_sizes, len(y) - n_test, len(classes))
    rng = check_random_state(random_state)

    error = np.full((len(named), len(sizes), n_repeats), np.nan)
    failures: list[str] = []
    index = np.arange(len(y))
    for r in range(n_repeats):
        pool, test = train_test_split(
            index, test_size=n_test, stratify=y, random_state=rng.randint(2**31 - 1)
        )
        pool = pool[_order(y[pool], rng)]
        X_test, y_test = take(X, test), y[test]
        for e, (name, est) in enumerate(named.items()):
            for s, m in enumerate(sizes):
                train = pool[:m]
                try:
                    model = clone(est).fit(take(X, train), y[train])
                except (ValueError, np.linalg.LinAlgError) as exc:
                    failures.append(f"{name} at train_size={m}, repeat {r}: {exc}")
                    continue
                error[e, s, r] = np.mean(model.predict(X_test) != y_test)
    if failures:
        warnings.warn(
            f"{len(failures)} fit(s) failed and score NaN; first: {failures[0]}",
            FitFailedWarning,
            stacklevel=2,
        )
    coords = {"estimator": list(named), "train_size": sizes, "repeat": np.arange(n_repeats)}
    err = xr.DataArray(error, dims=("estimator", "train_size", "repeat"), coords=coords)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN cells, single repeats
        mean = err.mean("repeat", skipna=True)
        std = err.std("repeat", ddof=1, skipna=True)
    ds = xr.Dataset({"error": err, "error_mean": mean, "error_std": std})
    ds["error"].attrs["long_name"] = "test misclassification rate"
    ds.attrs.update(test_size=float(test_size), n_test=n_test, n_repeats=int(n_repeats))
    return ds


def _inferences(inferences) -> tuple[str, ...]:
    names = (inferences,) if isinstance(inferences, str) else tuple(inferences)
    bad = [i for i in names if i not in INFERENCES]
    if not names or bad or len(set(names)) != len(names):
        raise ValueError(
            f"inferences must be distinct names among {INFERENCES}, got {inferences!r}"
        )
    return names


def _label_sizes(sizes, y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(sizes))
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu":
        raise ValueError(
            f"sizes must be a non-empty 1-D list of integers (labelled documents per class), "
            f"got {sizes!r}"
        )
    if arr.min() < 1:
        raise ValueError(f"sizes must be at least 1 labelled document per class, got {sizes!r}")
    out = np.unique(arr.astype(np.intp))
    counts = np.array([np.count_nonzero(y == c) for c in classes])
    small = int(np.argmin(counts))
    if out[-1] + 1 > counts[small]:
        raise ValueError(
            f"sizes reach {out[-1]} labelled documents per class, but class "
            f"{str(classes[small])!r} has {counts[small]} training documents: size n needs n + 1 "
            f"of every class (n labelled, at least one left unlabelled), so at most "
            f"{counts[small] - 1} here"
        )
    return out


def _marked(y: np.ndarray, unlabelled: np.ndarray) -> np.ndarray:
    """``y`` with the rows ``unlabelled`` marked as SemiSupervisedNB reads them."""
    if y.dtype.kind in "iuf":
        marks = y.copy()
        marks[unlabelled] = -1
    else:
        marks = y.astype(object)
        marks[unlabelled] = None
    return marks


def _scores(model, X_test, codes_test: np.ndarray) -> tuple[float, float]:
    """Accuracy of ``predict`` and log loss −mean log p(y | x) of ``predict_log_proba``."""
    accuracy = float(np.mean(model.predict(X_test) == model.classes_[codes_test]))
    log_p = model.predict_log_proba(X_test)[np.arange(codes_test.size), codes_test]
    return accuracy, float(-np.mean(log_p))


def labelled_curve(
    estimator,
    X,
    y,
    X_test,
    y_test,
    sizes=(1, 2, 5, 10, 20, 50),
    n_seeds: int = 5,
    inferences=INFERENCES,
    random_state=None,
    *,
    unlabelled_weight: float | str = 1.0,
    max_iter: int = 100,
    tol: float = 1e-8,
    max_unlabelled: int | None = None,
) -> xr.Dataset:
    """Test accuracy and log loss against the number of labelled documents per class.

    For every seed, one random order of the training rows; at size n the labelled documents
    are the first n of every class in that order (so the labelled sets of a seed are nested),
    the unlabelled pool the other training rows in that order (the first ``max_unlabelled``
    of them, if given). Each inference is fitted on them and scored on the fixed test split:
    ``"supervised"`` is ``clone(estimator)`` fitted on the labelled documents, ``"em"`` and
    ``"vb"`` are :class:`bayesnb.semisupervised.SemiSupervisedNB` with that ``inference`` on
    the labelled and pool rows (in the seed's order, pool rows marked unlabelled), so the same
    ``estimator`` configuration, its ``estimate`` included, scores every curve.

    Parameters
    ----------
    estimator : bayesnb estimator
        Unfitted configuration; ``"em"`` needs ``estimate="map"`` or ``"mle"`` and a fixed
        prior (SemiSupervisedNB's rules).
    X, y : training documents and their labels (every row labelled)
    X_test, y_test : the held-out documents; every test label must be a class of ``y``
    sizes : sequence of int, default (1, 2, 5, 10, 20, 50)
        Labelled documents per class, each ≥ 1. A size n needs n + 1 training documents of
        every class (n labelled, at least one unlabelled): a larger size is refused, naming
        the smallest class.
    n_seeds : int, default 5
        Random orders of the training rows (the standard errors are over them).
    inferences : sequence of {"supervised", "em", "vb"}
    random_state : int, RandomState or None
        Seed of the orders (scikit-learn's ``check_random_state``; one permutation per seed).
    unlabelled_weight, max_iter, tol
        SemiSupervisedNB's λ (a number, or ``"cv"`` / ``"loo"`` to choose it in every fit
        by cross-validation of the labelled documents: every size then ≥ 2) and stopping
        rule.
    max_unlabelled : int, optional
        At most this many pool rows per fit (the first in the seed's order); None: all.

    Returns
    -------
    xarray.Dataset
        ``accuracy`` and ``log_loss`` (inference, size, seed) on the test split (log loss is
        −mean log p(y_i | x_i), in nats, not clipped); ``n_iter`` and ``converged`` (inference,
        size, seed) of each fit (0 and True for ``"supervised"``); ``accuracy_mean``,
        ``accuracy_se``, ``log_loss_mean``, ``log_loss_se`` (inference, size): mean and
        standard error sd / √n_seeds (ddof = 1; NaN for one seed) over seeds;
        ``n_unlabelled`` (size): pool rows per fit; ``weight`` (inference, size, seed): the
        λ of each fit (NaN for ``"supervised"``); ``order`` (seed, row): the training-row
        orders. Attributes record ``n_train``, ``n_test``, ``n_seeds``,
        ``unlabelled_weight``, ``max_iter``, ``tol``, ``max_unlabelled`` (-1: none) and
        ``estimator`` (its repr).

    Warns
    -----
    ConvergenceWarning
        Once, counting the fits that stopped at ``max_iter`` (``converged`` says which).
    """
    from sklearn.exceptions import ConvergenceWarning

    from bayesnb.semisupervised import SemiSupervisedNB, unlabelled_mask

    names = _inferences(inferences)
    check_int(n_seeds, "n_seeds")
    if max_unlabelled is not None:
        check_int(max_unlabelled, "max_unlabelled")
    y, y_test = np.asarray(y), np.asarray(y_test)
    for label, v, M in (("y", y, X), ("y_test", y_test, X_test)):
        if v.ndim != 1 or v.shape[0] != M.shape[0]:
            raise ValueError(f"{label} must be a 1-D vector with one label per row ({M.shape[0]})")
    if unlabelled_mask(y).any():
        raise ValueError("y must label every training row (the curve chooses the unlabelled ones)")
    classes = np.unique(y)
    absent = np.setdiff1d(np.unique(y_test), classes)
    if absent.size:
        raise ValueError(f"y_test holds labels absent from y: {absent.tolist()}")
    sizes = _label_sizes(sizes, y, classes)
    rule = isinstance(unlabelled_weight, str)
    if rule and sizes.min() < 2 and any(n != "supervised" for n in names):
        raise ValueError(
            f"unlabelled_weight={unlabelled_weight!r} chooses λ by holding labelled documents "
            f"out, which needs 2 of every class: size {sizes.min()} is too small"
        )
    codes_test = np.searchsorted(classes, y_test)
    rng = check_random_state(random_state)
    shape = (len(names), sizes.size, n_seeds)
    acc, loss = np.full(shape, np.nan), np.full(shape, np.nan)
    n_iter, converged = np.zeros(shape, dtype=np.intp), np.ones(shape, dtype=bool)
    weight = np.full(shape, np.nan)
    orders = np.empty((n_seeds, y.size), dtype=np.intp)
    n_unlabelled = np.zeros(sizes.size, dtype=np.intp)
    for r in range(n_seeds):
        order = orders[r] = rng.permutation(y.size)
        # rank[i]: how many rows of i's class precede it in the order.
        rank = np.empty(y.size, dtype=np.intp)
        for c in classes:
            rows = order[y[order] == c]
            rank[rows] = np.arange(rows.size)
        for s, n in enumerate(sizes):
            labelled = rank[order] < n
            pool = np.flatnonzero(~labelled)[:max_unlabelled]
            n_unlabelled[s] = pool.size
            keep = labelled.copy()
            keep[pool] = True
            rows = order[keep]
            for e, name in enumerate(names):
                if name == "supervised":
                    train = order[labelled]
                    model = clone(estimator).fit(take(X, train), y[train])
                else:
                    model = SemiSupervisedNB(
                        estimator,
                        unlabelled_weight=unlabelled_weight,
                        max_iter=max_iter,
                        tol=tol,
                        inference=name,
                    )
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", ConvergenceWarning)  # counted below
                        model.fit(take(X, rows), _marked(y[rows], ~labelled[keep]))
                    n_iter[e, s, r], converged[e, s, r] = model.n_iter_, model.converged_
                    weight[e, s, r] = model.unlabelled_weight_
                acc[e, s, r], loss[e, s, r] = _scores(model, X_test, codes_test)
    if not converged.all():
        n_fits = sizes.size * n_seeds * sum(n != "supervised" for n in names)
        warnings.warn(
            f"{np.count_nonzero(~converged)} of {n_fits} semi-supervised fits stopped at "
            f"max_iter={max_iter} (see `converged`)",
            ConvergenceWarning,
            stacklevel=2,
        )
    dims = ("inference", "size", "seed")
    coords = {"inference": list(names), "size": sizes, "seed": np.arange(n_seeds)}
    ds = xr.Dataset(
        {
            "accuracy": (dims, acc),
            "log_loss": (dims, loss),
            "n_iter": (dims, n_iter),
            "converged": (dims, converged),
            "weight": (dims, weight),
            "n_unlabelled": (("size",), n_unlabelled),
            "order": (("seed", "row"), orders),
        },
        coords=coords,
    )
    for var, values in (("accuracy", acc), ("log_loss", loss)):
        ds[f"{var}_mean"] = (dims[:2], values.mean(axis=2))
        se = np.full(shape[:2], np.nan)
        if n_seeds > 1:
            se = values.std(axis=2, ddof=1) / np.sqrt(n_seeds)
        ds[f"{var}_se"] = (dims[:2], se)
    ds["accuracy"].attrs["long_name"] = "test accuracy"
    ds["log_loss"].attrs["long_name"] = "test log loss, −mean log p(y | x), nats"
    ds.attrs.update(
        n_train=int(y.size),
        n_test=int(y_test.size),
        n_seeds=int(n_seeds),
        unlabelled_weight=unlabelled_weight if rule else float(unlabelled_weight),
        max_iter=int(max_iter),
        tol=float(tol),
        max_unlabelled=-1 if max_unlabelled is None else int(max_unlabelled),
        estimator=repr(estimator),
    )
    return ds
