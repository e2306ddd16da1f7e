"""Validation: user input -> checked arrays.

The first arrow of the pipe. Everything the later modules receive has passed through here:
``X`` as a float64 ndarray or a CSR matrix (sparse stays sparse), ``y`` as integer codes into
``classes_``, ``sample_weight`` as a non-negative float64 vector, hyperparameters as checked
numbers or arrays. Errors name the argument and the problem.
"""

from __future__ import annotations

import copy
from numbers import Integral, Number, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import (
    _check_sample_weight,
    _get_feature_names,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from bayesnb.scoring.blocks import sum_and_min

ESTIMATES = ("mle", "map", "mean", "bayes")
MISSING = ("error", "ignore")

__all__ = [
    "ESTIMATES",
    "MISSING",
    "MissingValueWarning",
    "NotAnIntegerError",
    "check_X",
    "check_X_y",
    "check_alpha",
    "check_class_alpha",
    "check_class_prior",
    "check_estimate",
    "check_feature_names",
    "check_finite",
    "check_int",
    "check_missing",
    "check_one_label_type",
    "check_sample_weight",
    "check_values",
    "encode_labels",
    "not_numeric_error",
    "stored_values",
    "sum_is_finite",
]


def check_estimate(estimate: str) -> str:
    """Return ``estimate`` if it is one of ``"mle"``, ``"map"``, ``"mean"``, ``"bayes"``."""
    if not isinstance(estimate, str) or estimate not in ESTIMATES:
        raise ValueError(f"estimate must be one of {ESTIMATES}, got {estimate!r}")
    return estimate


class NotAnIntegerError(TypeError, ValueError):
    """A non-integer argument where an integer is needed: a TypeError (its type) that is also
    a ValueError (a bad argument value), so that callers catching either see it."""


def check_int(value, name: str, minimum: int = 1) -> int:
    """``value`` as an int, refused unless it is an integer (not a bool) ``>= minimum``.

    Raises
    ------
    NotAnIntegerError
        ``value`` is not an integer (a float such as 2.0 included, or a bool): both a
        TypeError and a ValueError.
    ValueError
        ``value`` is below ``minimum``.
    """
    what = {0: "a non-negative integer", 1: "a positive integer"}.get(
        minimum, f"an integer >= {minimum}"
    )
    if not isinstance(value, Integral) or isinstance(value, bool):
        raise NotAnIntegerError(f"{name} must be {what}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return int(value)


def stored_values(X) -> np.ndarray:
    """The values a check of ``X`` reads: a sparse matrix's stored entries, else the array."""
    return X.data if sp.issparse(X) else np.asarray(X)


def sum_is_finite(values: np.ndarray) -> bool:
    """True when one ``sum`` shows every value finite (no NaN, no infinity, no overflow).

    False means some value is NaN or infinite, or the sum overflowed: scan to tell which.
    """
    if values.size == 0:
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(values.sum()))


class MissingValueWarning(UserWarning):
    """A fit with ``missing="ignore"`` used an approximation for the missing values."""


def check_missing(missing) -> str:
    """Return ``missing`` if it is ``"error"`` or ``"ignore"``."""
    if not isinstance(missing, str) or missing not in MISSING:
        raise ValueError(f"missing must be one of {MISSING}, got {missing!r}")
    return missing


def check_feature_names(feature_names, n_features: int) -> np.ndarray:
    """Return ``feature_names`` as an object array after checking it names every column once.

    Parameters
    ----------
    feature_names : array-like of str
        One name per column (a transformer's ``get_feature_names_out()``, a vocabulary).
    n_features : int
        Number of columns of the fitted X.

    Raises
    ------
    TypeError
        A single string, or a name that is not a string.
    ValueError
        Not one name per column, or a name that occurs twice.
    """
    if isinstance(feature_names, str | bytes):
        raise TypeError("feature_names must be a sequence of names, not a single string")
    try:
        names = np.asarray(list(feature_names), dtype=object)
    except TypeError:
        raise TypeError(
            f"feature_names must be a sequence of strings, got {type(feature_names).__name__}"
        ) from None
    if names.ndim != 1:
        raise ValueError(f"feature_names must be 1-D, got shape {names.shape}")
    if names.size != n_features:
        raise ValueError(
            f"feature_names has {names.size} names for {n_features} features (columns of X)"
        )
    bad = [j for j, f in enumerate(names) if not isinstance(f, str)]
    if bad:
        j = bad[0]
        raise TypeError(
            f"feature_names must hold strings; position {j} holds {names[j]!r} "
            f"({type(names[j]).__name__})"
        )
    unique, counts = np.unique(names.astype(str), return_counts=True)
    if unique.size != names.size:
        raise ValueError(f"feature_names holds duplicate names: {unique[counts > 1][:5].tolist()}")
    return np.array([str(f) for f in names], dtype=object)


def names_checked_by(estimator, X, reset: bool):
    """The estimator scikit-learn's ``validate_data`` checks ``X``'s column names against.

    Names given by hand (``fit(..., feature_names=...)``, a pipeline's vocabulary) label the
    columns of input that has none (a sparse matrix, an array): such input is expected, not
    a mismatch worth scikit-learn's "X does not have valid feature names" warning. For it a
    shallow copy without ``feature_names_in_`` is validated instead (the estimator itself is
    never changed, so concurrent predictions are safe). A DataFrame is still checked
    against the names, and DataFrame-fitted models keep scikit-learn's behaviour.
    """
    if reset or not getattr(estimator, "_feature_names_given", False):
        return estimator
    if _get_feature_names(X) is not None:
        return estimator
    view = copy.copy(estimator)
    view.__dict__.pop("feature_names_in_", None)
    return view


def _cells(X, bad_values) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the cells where ``bad_values(values)`` holds."""
    if sp.issparse(X):
        hit = np.flatnonzero(bad_values(X.data))
        rows = np.searchsorted(X.indptr, hit, side="right") - 1
        return rows, X.indices[hit]
    return np.nonzero(bad_values(X))


def _where(estimator, X, bad_values, show: int = 5) -> str:
    """Where the bad cells are: counts, then the first ``show`` rows and columns."""
    rows, cols = _cells(X, bad_values)
    u_rows, u_cols = np.unique(rows), np.unique(cols)
    names = getattr(estimator, "feature_names_in_", None)
    shown = u_cols[:show].tolist()
    if names is not None and len(names) == X.shape[1]:
        shown = [f"{j} ({names[j]!s})" for j in shown]
    more_r = f" (first {show} of {u_rows.size})" if u_rows.size > show else ""
    more_c = f" (first {show} of {u_cols.size})" if u_cols.size > show else ""
    return (
        f"{rows.size} entr{'y' if rows.size == 1 else 'ies'} in {u_rows.size} row(s) and "
        f"{u_cols.size} column(s): rows {u_rows[:show].tolist()}{more_r}, columns "
        f"{shown}{more_c}"
    )


def _check_finite(estimator, X, missing: str, total: float | None = None) -> bool:
    """Refuse infinity (always) and NaN (unless ``missing="ignore"``); True if X holds NaN.

    One ``sum`` over the stored values decides the common case (a finite sum: neither NaN nor
    infinity), as scikit-learn's own finiteness check does; only otherwise is X scanned
    element-wise, to tell NaN from infinity and name the cells. ``total``: that sum, when
    the caller has it already.
    """
    values = stored_values(X)
    if sum_is_finite(values) if total is None else np.isfinite(total):
        return False
    name = type(estimator).__name__
    if np.isinf(values).any():
        raise ValueError(
            f"Input X contains infinity in {_where(estimator, X, np.isinf)}; {name} needs "
            "finite features"
        )
    if not np.isnan(values).any():
        return False  # the sum overflowed, every value is finite
    if missing != "ignore":
        raise ValueError(
            f"Input X contains NaN (missing values) in {_where(estimator, X, np.isnan)}. "
            f"{name}(missing={missing!r}) refuses missing values; pass missing='ignore' to "
            "marginalise the missing features out of the likelihood, or impute them."
        )
    return True


def check_finite(estimator, X, missing: str = "error") -> bool:
    """The finiteness check of :func:`check_X` (after ``finite=False``); True if X holds NaN.

    Raises the ValueError naming the cells of an infinity, or of a NaN unless ``missing`` is
    ``"ignore"``.
    """
    return _check_finite(estimator, X, check_missing(missing))


# numpy's own conversion errors, which say nothing about which argument is wrong.
_RAW_CONVERSION = ("could not convert", "setting an array element", "inhomogeneous")


def not_numeric_error(exc: Exception, name: str) -> Exception:
    """``exc`` from scikit-learn's validation of ``name``, with numpy's raw messages replaced."""
    text = str(exc)
    if any(raw in text for raw in _RAW_CONVERSION):
        detail = text.split(":", 1)[1].strip() if "could not convert" in text else ""
        return type(exc)(
            f"{name} must be a numeric array of equal-length rows"
            + (f"; found the non-numeric value {detail}" if detail else "; got ragged rows")
        )
    if text.startswith("Complex data not supported"):
        return type(exc)(f"Complex data not supported: {name} must hold real numbers")
    return exc


def check_X(
    estimator,
    X,
    *,
    reset: bool,
    y=None,
    nonnegative: bool = False,
    integer: bool = False,
    allow_sparse: bool = True,
    missing: str = "error",
    finite: bool = True,
):
    """Validate a feature matrix (and optionally labels) for ``estimator``.

    Uses scikit-learn's ``validate_data`` so that ``n_features_in_`` and ``feature_names_in_``
    are set on ``reset`` and checked otherwise, then adds the checks the event models need.

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator whose ``n_features_in_`` / ``feature_names_in_`` are set or checked.
    X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
    reset : bool
        True when fitting from scratch.
    y : array-like, optional
        Labels, validated for length together with ``X`` when given.
    nonnegative : bool
        Require every value ``>= 0`` (counts).
    integer : bool
        Require integer values (categories).
    allow_sparse : bool
        Accept scipy sparse input (returned as CSR).
    missing : {"error", "ignore"}
        ``"error"`` refuses NaN with a ValueError naming the rows and columns that hold it;
        ``"ignore"`` lets NaN (missing values, also stored explicitly in sparse input) through
        for the estimator to marginalise. Infinity is refused either way.
    finite : bool
        False skips the value checks (NaN, infinity, signs, integers): the caller checks
        afterwards, with :func:`check_finite` (e.g. only when a product of X came out
        non-finite).

    Returns
    -------
    X : ndarray of float64 or csr_matrix of float64
    y : ndarray, only when ``y`` was given
    """
    params: dict[str, Any] = dict(
        accept_sparse=["csr", "csc", "coo"] if allow_sparse else False,
        dtype=np.float64,
        ensure_all_finite=False,  # checked below, NaN told apart from infinity
        reset=reset,
    )
    checked = names_checked_by(estimator, X, reset)
    try:
        if y is not None:
            X, y = validate_data(checked, X, y, y_numeric=False, multi_output=False, **params)
        else:
            X = validate_data(checked, X, **params)
    except (TypeError, ValueError) as exc:
        raise not_numeric_error(exc, "X") from None
    if sp.issparse(X) and X.format != "csr":
        X = X.tocsr()
    if not finite:
        return (X, y) if y is not None else X
    check_missing(missing)
    check_values(estimator, X, nonnegative, integer, missing)
    if y is not None:
        return X, y
    return X


def check_values(
    estimator, X, nonnegative: bool = False, integer: bool = False, missing: str = "error"
) -> None:
    """The value checks of :func:`check_X` on its output ``X``: finite (NaN unless
    ``missing="ignore"``), ``>= 0`` if ``nonnegative``, integers if ``integer``; a ValueError
    naming the problem."""
    values = stored_values(X)
    # One pass over the values gives their sum (finite: no NaN, no infinity) and minimum.
    total, low = sum_and_min(values, minimum=nonnegative)
    if _check_finite(estimator, X, check_missing(missing), total):
        values = values[~np.isnan(values)]  # the checks below are about observed values
        low = values.min() if nonnegative and values.size else 0.0
    if nonnegative and values.size and low < 0:
        raise ValueError(
            f"Negative values in data passed to {type(estimator).__name__}: X must hold counts "
            f"(minimum found {low:g})"
        )
    if integer and values.size and not np.all(values == np.floor(values)):
        raise ValueError(
            f"Non-integer values in data passed to {type(estimator).__name__}: categories must "
            "be integers 0, 1, 2, ..."
        )


def check_X_y(estimator, X, y, *, reset: bool, **kwargs):
    """Validate ``X`` and ``y`` together (see :func:`check_X`); ``y`` must be a label vector."""
    y_arr = np.asarray(y) if not hasattr(y, "iloc") else y.to_numpy()
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        y_arr = column_or_1d(y_arr, warn=True)
    if y_arr.ndim != 1:
        raise ValueError(f"y must be a 1-D vector of labels, got shape {np.shape(y)}")
    if y_arr.dtype.kind == "f" and np.isnan(y_arr).any():
        raise ValueError("y holds NaN: every sample needs a label")
    if y_arr.dtype.kind == "O":
        if any(v is None or v != v for v in y_arr):
            raise ValueError("y holds None/NaN: every sample needs a label")
        check_one_label_type(y_arr, "y")
    target = type_of_target(y_arr, input_name="y")
    if target not in ("binary", "multiclass", "unknown"):
        raise ValueError(
            f"Unknown label type: {target!r}; y must hold class labels (binary or multiclass)"
        )
    return check_X(estimator, X, reset=reset, y=y_arr, **kwargs)


def check_one_label_type(labels: np.ndarray, name: str) -> None:
    """Refuse an object array of labels that mixes numbers and strings (they cannot be sorted,
    and scikit-learn's classifiers refuse them too); a list such as ``[1, "a"]`` never gets
    here: numpy makes it the strings ``["1", "a"]``, as scikit-learn sees it."""
    kinds = {
        "number" if isinstance(v, Number) else "string" if isinstance(v, str) else "other"
        for v in labels
    }
    if len(kinds) > 1:
        first = {}
        for v in labels:
            first.setdefault(type(v).__name__, v)
        shown = ", ".join(f"{v!r} ({t})" for t, v in list(first.items())[:3])
        raise ValueError(
            f"{name} mixes label types ({shown}): labels must be all numbers or all strings, "
            "as scikit-learn requires; convert them to one type (e.g. y.astype(str))"
        )


def encode_labels(y: np.ndarray, classes: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Encode labels as integer codes into ``classes``.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
    classes : ndarray or None
        Known classes (sorted); when None they are the sorted unique labels of ``y``.

    Returns
    -------
    classes : ndarray
    codes : ndarray of intp
    """
    if classes is None:
        classes, codes = np.unique(y, return_inverse=True)
        return classes, codes.astype(np.intp, copy=False)
    codes = np.searchsorted(classes, y)
    codes = np.clip(codes, 0, len(classes) - 1)
    unknown = classes[codes] != y
    if np.any(unknown):
        bad = np.unique(np.asarray(y)[unknown])[:5]
        raise ValueError(
            f"y holds labels not in classes: {bad.tolist()}; known classes are "
            f"{np.asarray(classes).tolist()}. "
            "Declare every class in the first partial_fit call with classes=..."
        )
    return classes, codes.astype(np.intp, copy=False)


def check_classes(classes) -> np.ndarray:
    """Validate the ``classes=`` argument of ``partial_fit``: unique labels, returned sorted."""
    arr = np.asarray(classes)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"classes must be a non-empty 1-D list of labels, got {classes!r}")
    if arr.dtype.kind == "O":
        check_one_label_type(arr, "classes")
    uniq = np.unique(arr)
    if uniq.size != arr.size:
        raise ValueError(f"classes holds duplicate labels: {arr.tolist()}")
    return uniq


def check_sample_weight(sample_weight, X) -> np.ndarray:
    """Return a float64 weight vector (ones when None); negative or non-finite weights fail."""
    if sample_weight is None:
        return np.ones(X.shape[0], dtype=np.float64)
    try:
        w = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    except (TypeError, ValueError) as exc:
        exc = not_numeric_error(exc, "sample_weight")
        if "sample_weight" in str(exc):
            raise exc from None
        raise type(exc)(f"sample_weight: {exc}") from None
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight holds NaN or inf")
    return w


def check_alpha(alpha, n_features: int, name: str = "alpha"):
    """A feature-prior concentration: a positive scalar or one positive value per feature."""
    if isinstance(alpha, Real) and not isinstance(alpha, bool):
        arr = np.float64(alpha)
    else:
        arr = _float_array(alpha, name, "a number or an array of numbers")
        if arr.ndim == 0:
            arr = np.float64(arr)
        elif arr.shape != (n_features,):
            raise ValueError(
                f"{name} must be a scalar or have one value per feature ({n_features}), "
                f"got shape {arr.shape}"
            )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {alpha!r}")
    if np.any(arr <= 0):
        raise ValueError(
            f"{name} must be > 0 (a Beta/Dirichlet concentration), got {alpha!r}; "
            "use estimate='mle' for the unsmoothed counts"
        )
    return arr


def check_binarize(threshold) -> None:
    """BernoulliNB's ``binarize``: None (X is 0/1 already) or a finite number."""
    if threshold is None:
        return
    if not isinstance(threshold, Real) or isinstance(threshold, bool):
        raise TypeError(f"binarize must be a number or None, got {threshold!r}")
    if not np.isfinite(threshold):
        raise ValueError(f"binarize must be a finite threshold or None, got {threshold!r}")


def _float_array(value, name: str, expected: str) -> np.ndarray:
    """``value`` as a float64 array; a TypeError "``name`` must be ``expected``" otherwise."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be {expected}, got {value!r}") from None


def check_min_categories(min_categories, n_features: int) -> np.ndarray:
    """CategoricalNB's ``min_categories``: integers >= 1, a scalar or one per feature."""
    mc = _float_array(min_categories, "min_categories", "an integer or one integer per feature")
    if mc.ndim > 1 or (mc.ndim == 1 and mc.shape != (n_features,)):
        raise ValueError(
            f"min_categories must be a scalar or have one value per feature ({n_features}), "
            f"got shape {mc.shape}"
        )
    if not np.all(np.isfinite(mc)) or np.any(mc < 1) or not np.all(mc == np.floor(mc)):
        raise ValueError(f"min_categories must be integers >= 1, got {min_categories!r}")
    return np.broadcast_to(mc, (n_features,)).astype(np.intp)


def check_class_alpha(class_alpha) -> float:
    """The class-prior concentration gamma >= 0 (0 is the Haldane limit: empirical frequencies)."""
    if not isinstance(class_alpha, Real) or isinstance(class_alpha, bool):
        raise TypeError(f"class_alpha must be a number >= 0, got {class_alpha!r}")
    if not np.isfinite(class_alpha) or class_alpha < 0:
        raise ValueError(f"class_alpha must be a finite number >= 0, got {class_alpha!r}")
    return float(class_alpha)


def check_class_prior(class_prior, n_classes: int) -> np.ndarray:
    """Validate a user class prior: length K, non-negative, sums to 1 within 1e-8."""
    p = _float_array(class_prior, "class_prior", "an array of probabilities")
    if p.shape != (n_classes,):
        raise ValueError(
            f"class_prior must have one probability per class ({n_classes}), got shape {p.shape}"
        )
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"class_prior must hold finite non-negative probabilities, got {p}")
    if abs(p.sum() - 1.0) > 1e-8:
        raise ValueError(f"class_prior must sum to 1 (within 1e-8), sums to {p.sum()!r}")
    return p


def take(X, rows):
    """The rows ``rows`` of ``X``: an array, a sparse matrix, a DataFrame (by position) or a
    list of raw documents (a pipeline's vectorizer takes those)."""
    if isinstance(X, list):
        return [X[i] for i in rows]
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def check_fitted(estimator) -> None:
    """Raise scikit-learn's NotFittedError when ``estimator`` has not been fitted."""
    check_is_fitted(estimator, "classes_")
