"""The block spec of :class:`~bayesnb.families.columnwise.estimator.ColumnwiseNB`.

``estimators`` is a list of ``(name, estimator, columns)`` blocks (or a dict): this module
reads either form, exposes the blocks' nested parameters (``name__param``) as scikit-learn's
``ColumnTransformer`` does, validates the blocks (names, estimators, the class prior and the
missing-value setting that belong to ColumnwiseNB) and resolves each block's ``columns``
selection into integer positions. :class:`_BlockSpec` is a base class of ColumnwiseNB.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Mapping
from typing import Self

import numpy as np
from sklearn.base import BaseEstimator

from bayesnb._base import GenerativeClassifier

__all__ = ["CLASS_PRIOR_PARAMS"]

#: Parameters of the class prior: they belong to ColumnwiseNB, never to a block.
CLASS_PRIOR_PARAMS = ("class_alpha", "fit_prior", "class_prior")

# Block names that would shadow a group of the DataTrees (point estimates, draws, NUTS fits).
_RESERVED = frozenset(
    {
        "posterior",
        "prior",
        "sample_stats",
        "observed_data",
        "constant_data",
        "log_likelihood",
        "posterior_predictive",
        "statistics",
        "blocks",
    }
)


def _default(est, name: str):
    sig = inspect.signature(type(est).__init__)
    param = sig.parameters.get(name)
    return inspect.Parameter.empty if param is None else param.default


def _differs(value, default) -> bool:
    if default is inspect.Parameter.empty:
        return False
    if value is None or default is None:
        return value is not default
    try:
        return not bool(np.all(np.asarray(value) == np.asarray(default)))
    except (TypeError, ValueError):
        return True


class _BlockSpec:
    """The ``estimators`` parameter of ColumnwiseNB: its blocks, their nested parameters, their
    validation and their columns."""

    # -- the block spec --------------------------------------------------------------------
    def _spec(self) -> list[tuple[str, object, object]]:
        """``estimators`` as (name, estimator, columns) triples (either form)."""
        spec = self.estimators
        if isinstance(spec, Mapping):
            out = []
            for name, value in spec.items():
                if isinstance(value, tuple) and len(value) == 2:
                    out.append((name, value[0], value[1]))
                else:
                    out.append((name, value, name))
            return out
        if isinstance(spec, str) or not isinstance(spec, list | tuple):
            raise TypeError(
                "estimators must be a list of (name, estimator, columns) tuples or a dict "
                f"name -> estimator | (estimator, columns), got {type(spec).__name__}"
            )
        out = []
        for item in spec:
            if not isinstance(item, tuple | list) or len(item) != 3:
                raise TypeError(
                    f"each block of estimators must be a (name, estimator, columns) tuple, "
                    f"got {item!r}"
                )
            out.append(tuple(item))
        return out

    @property
    def _estimators(self) -> list[tuple[str, object]]:
        """(name, estimator) pairs for the nested parameters; empty when malformed."""
        try:
            return [(name, est) for name, est, _ in self._spec()]
        except TypeError:
            return []

    def _replace_estimator(self, name: str, new) -> None:
        spec = self.estimators
        if isinstance(spec, Mapping):
            out = dict(spec)
            old = out[name]
            out[name] = (new, old[1]) if isinstance(old, tuple) and len(old) == 2 else new
            self.estimators = out
        else:
            self.estimators = [
                (n, new if n == name else e, c) for n, e, c in (tuple(t) for t in spec)
            ]

    def get_params(self, deep: bool = True) -> dict:
        """Parameters, with ``name`` and ``name__param`` of every block when ``deep``."""
        out = super().get_params(deep=False)
        if not deep:
            return out
        for name, est in self._estimators:
            out[name] = est
            if hasattr(est, "get_params"):
                for key, value in est.get_params(deep=True).items():
                    out[f"{name}__{key}"] = value
        return out

    def set_params(self, **params) -> Self:
        """Set parameters; ``name=estimator`` replaces a block, ``name__param`` sets its param."""
        if "estimators" in params:
            self.estimators = params.pop("estimators")
        names = {name for name, _ in self._estimators}
        for key in list(params):
            if "__" not in key and key in names:
                self._replace_estimator(key, params.pop(key))
        BaseEstimator.set_params(self, **params)
        return self

    def _validated_spec(self) -> list[tuple[str, GenerativeClassifier, object]]:
        spec = self._spec()
        if not spec:
            raise ValueError("estimators must hold at least one (name, estimator, columns) block")
        names = [name for name, _, _ in spec]
        bad = [n for n in names if not isinstance(n, str) or not n]
        if bad:
            raise TypeError(f"block names must be non-empty strings, got {bad!r}")
        if len(set(names)) != len(names):
            raise ValueError(f"block names must be unique, got {names!r}")
        clash = sorted(set(names) & set(super().get_params(deep=False)))
        if clash:
            raise ValueError(f"block names conflict with ColumnwiseNB parameters: {clash}")
        bad = [n for n in names if "__" in n or "/" in n or "::" in n]
        if bad:
            raise ValueError(f"block names must not contain '__', '/' or '::': {bad!r}")
        bad = sorted(set(names) & _RESERVED)
        if bad:
            raise ValueError(
                f"block names {bad} are reserved (DataTree group names); rename the blocks"
            )
        for name, est, _ in spec:
            if isinstance(est, type):
                raise TypeError(
                    f"block {name!r}: expected an estimator instance ({est.__name__}()), got "
                    "the class"
                )
            if (
                not isinstance(est, GenerativeClassifier)
                or getattr(est, "_family", None) is None
                or isinstance(est, _BlockSpec)  # no ColumnwiseNB inside a ColumnwiseNB
            ):
                raise TypeError(
                    f"block {name!r}: {type(est).__module__}.{type(est).__name__} is not a "
                    "bayesnb generative classifier; every block must be one of bayesnb's "
                    "estimators (MultinomialNB, BernoulliNB, CategoricalNB, GDA, ...), not a "
                    "ColumnwiseNB"
                )
            params = est.get_params(deep=False)
            for p in CLASS_PRIOR_PARAMS:
                if p in params and _differs(params[p], _default(est, p)):
                    raise ValueError(
                        f"block {name!r} sets {p}={params[p]!r}: the class prior is shared "
                        f"by all blocks and belongs to ColumnwiseNB; set ColumnwiseNB({p}=...) "
                        "instead"
                    )
            if "missing" in params:
                own = params["missing"]
                if own != self.missing and _differs(own, _default(est, "missing")):
                    raise ValueError(
                        f"block {name!r} sets missing={own!r} but ColumnwiseNB has "
                        f"missing={self.missing!r}: missing values are handled alike in every "
                        f"block; set ColumnwiseNB(missing={own!r}) instead"
                    )
            elif self.missing == "ignore":
                raise ValueError(
                    f"block {name!r}: {type(est).__name__} has no missing parameter, so it "
                    "cannot marginalise missing values; with ColumnwiseNB(missing='ignore') "
                    "every block must support missing='ignore'"
                )
        return spec

    # -- column selection ------------------------------------------------------------------------
    def _resolve(self, name: str, columns, X, n_features: int, feature_names) -> np.ndarray:
        """Integer column positions of one block's ``columns`` selection."""
        if callable(columns):
            columns = columns(X)
            if callable(columns):
                raise TypeError(f"block {name!r}: the columns callable returned a callable")
        positions = np.arange(n_features)

        def by_name(keys: list) -> np.ndarray:
            if feature_names is None:
                raise ValueError(
                    f"block {name!r} selects columns by name {keys[:5]!r}, which needs a pandas "
                    "DataFrame X with string column names"
                )
            lookup = {str(f): j for j, f in enumerate(feature_names)}
            missing = [k for k in keys if k not in lookup]
            if missing:
                raise ValueError(
                    f"block {name!r} selects unknown column name(s) {missing[:5]!r}; X has "
                    f"columns {list(map(str, feature_names))[:10]!r}"
                )
            return np.array([lookup[k] for k in keys], dtype=np.intp)

        if isinstance(columns, slice):
            if isinstance(columns.start, str) or isinstance(columns.stop, str):
                lo = 0 if columns.start is None else by_name([columns.start])[0]
                hi = n_features - 1 if columns.stop is None else by_name([columns.stop])[0]
                idx = positions[lo : hi + 1 : columns.step]
            else:
                idx = positions[columns]
        elif isinstance(columns, str):
            idx = by_name([columns])
        elif isinstance(columns, numbers.Integral) and not isinstance(columns, bool):
            idx = np.array([int(columns)])
        else:
            try:
                arr = np.asarray(columns)
            except (TypeError, ValueError):
                arr = np.asarray(columns, dtype=object)
            if arr.ndim != 1:
                raise TypeError(
                    f"block {name!r}: columns must be an int, a list of ints or names, a slice, a "
                    f"boolean mask or a callable, got {columns!r}"
                )
            if arr.size and arr.dtype == object:
                if all(isinstance(c, str) for c in arr):
                    arr = arr.astype(str)
                elif all(isinstance(c, numbers.Integral) for c in arr):
                    arr = arr.astype(np.intp)
            if arr.dtype.kind == "b":
                if arr.size != n_features:
                    raise ValueError(
                        f"block {name!r}: a boolean column mask needs {n_features} entries, got "
                        f"{arr.size}"
                    )
                idx = np.flatnonzero(arr)
            elif arr.dtype.kind in "US":
                idx = by_name([str(c) for c in arr])
            elif arr.dtype.kind in "iu" or arr.size == 0:
                idx = arr.astype(np.intp)
            else:
                raise TypeError(
                    f"block {name!r}: columns must be ints, names, a slice, a boolean mask or a "
                    f"callable, got {columns!r}"
                )
        idx = np.asarray(idx, dtype=np.intp)
        if idx.size == 0:
            raise ValueError(f"block {name!r} selects no column")
        if idx.min() < -n_features or idx.max() >= n_features:
            raise ValueError(
                f"block {name!r} selects column positions out of range for {n_features} "
                f"columns: {columns!r}"
            )
        idx = np.where(idx < 0, idx + n_features, idx)
        if np.unique(idx).size != idx.size:
            raise ValueError(f"block {name!r} selects a column twice: {columns!r}")
        return idx
