"""Learning curves: test error against training-set size for any classifiers.

The experiment of Ng & Jordan (2001), "On discriminative vs. generative classifiers": a
generative model (GDA, naive Bayes) reaches its asymptotic error with fewer samples than its
discriminative partner (logistic regression), which often ends lower. Every repeat draws one
random train/test split; the training sets of increasing size are nested prefixes of one
random order of the training pool, so the curves of all estimators and sizes in a repeat share
their data.
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

__all__ = ["learning_curve"]


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
