"""ColumnwiseNB: one naive Bayes model over blocks of columns with different event models.

Mixed data (word counts, binary flags, categories, real values) is one generative model when
the blocks of columns are conditionally independent given the class:

    log p(x, c) = log π_c + Σ_b log p(x_b | c, θ_b),

one class prior π ~ Dirichlet(γ·1_K) and one conjugate prior per block. Every block is a
bayesnb estimator (:class:`~bayesnb.MultinomialNB`, :class:`~bayesnb.BernoulliNB`,
:class:`~bayesnb.CategoricalNB`, :class:`~bayesnb.GDA`, and any other
:class:`~bayesnb._base.GenerativeClassifier`) fitted on its columns through its own
``_statistics`` / ``_merge_statistics`` hooks, so ``partial_fit`` and the closed forms stay
exact. Since the posterior factorises into the class prior and one posterior per block, the
evidence, the point estimates, the exact draws and the PyMC declaration compose from the
blocks (the columnwise family asks each block's family; :mod:`bayesnb.draws` assembles the
blocks its family names as parts). R's ``naivebayes::naive_bayes()`` does the same for the
columns of a data frame; scikit-learn's unmerged PR #22574 proposed the same ``(name,
estimator, columns)`` spec.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import Bunch
from sklearn.utils.validation import validate_data

from bayesnb._base import GenerativeClassifier
from bayesnb.families.columnwise.spec import CLASS_PRIOR_PARAMS, _BlockSpec
from bayesnb.validation import (
    check_class_alpha,
    check_estimate,
    check_finite,
    check_fitted,
    check_missing,
    names_checked_by,
    not_numeric_error,
    sum_is_finite,
)

__all__ = ["CLASS_PRIOR_PARAMS", "ColumnwiseNB"]

_REMAINDER = ("drop", "error")
# The class-prior estimate implied by a block estimate ("bayes" scores π by its mean).
_CLASS_ESTIMATE = {"mle": "mle", "map": "map", "mean": "mean", "bayes": "mean"}


class _Blocks:
    """The per-block validated views of one X (what the estimator hooks pass around).

    Has ``shape`` (n_samples, n_columns used) so scikit-learn's sample-weight checks count its
    rows, and row indexing (``blocks[rows]``) for the integer-weight expansion of the PyMC path.
    """

    def __init__(self, parts: list, n_samples: int):
        self.parts = list(parts)
        self.shape = (n_samples, int(sum(p.shape[1] for p in self.parts)))

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, rows) -> _Blocks:
        parts = [p[rows] for p in self.parts]
        return _Blocks(parts, parts[0].shape[0] if parts else 0)


def _is_df(X) -> bool:
    return hasattr(X, "iloc") and hasattr(X, "columns")


def _float_values(part) -> np.ndarray | None:
    """The values of one block's raw columns as floats, or None when they cannot be
    non-finite (integers) or are not numeric (the block's own validation names that).

    Sparse parts give their stored values; a DataFrame is converted (pandas' missing values
    ``pd.NA``/``None`` become NaN, as scikit-learn's validation makes them).
    """
    if sp.issparse(part):
        return part.data if part.data.dtype.kind == "f" else None
    if _is_df(part):
        try:
            return part.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            return None
    arr = np.asarray(part)
    if arr.dtype.kind == "f":
        return arr
    if arr.dtype.kind == "O":
        try:
            return arr.astype(np.float64)
        except (TypeError, ValueError):
            return None
    return None


class ColumnwiseNB(_BlockSpec, GenerativeClassifier):
    """Naive Bayes over blocks of columns, each with its own event model, one class prior.

    ``log p(x, c) = log π_c + Σ_b log p(x_b | c)``: the blocks' class-conditional
    log-likelihoods are summed and the class prior is counted once.

    Parameters
    ----------
    estimators : list of (name, estimator, columns) tuples, or dict
        The blocks. ``estimator`` is an (unfitted) bayesnb generative classifier; it is cloned
        at fit. ``columns`` selects the block's columns of X: an int, a list/array of ints
        (negative counts from the end), a slice, a boolean mask of length n_features, a str or
        a list of str (column names of a pandas DataFrame; a slice of two names is inclusive,
        as in pandas), or a callable ``f(X)`` returning one of those. The dict form maps a
        name to an estimator, whose columns are then the DataFrame column of that name
        (``{"age": GDA(covariance="diagonal")}``), or to an ``(estimator, columns)`` pair.
        Names must be unique, must not contain ``"__"``, and must not be a parameter of this
        class or a DataTree group name (``posterior``, ``sample_stats``, ...).
    class_alpha : float or "evidence", default 1.0
        Dirichlet concentration γ of the one class prior (0: empirical frequencies).
    estimate : {None, "mle", "map", "mean", "bayes"}, default None
        None: every block scores with its own ``estimate`` (and the class prior with the
        blocks' common estimate — ``"bayes"`` counting as ``"mean"`` for π — or ``"mean"``,
        the posterior predictive of a label, when blocks disagree). A value is used by every
        block and by the class prior, overriding the blocks' own; like the other estimators,
        ``set_params(estimate=...)`` after fit rescores without refitting.
    fit_prior : bool, default True
        False uses a uniform class prior.
    class_prior : array-like of shape (n_classes,), optional
        A fixed class prior (overrides ``fit_prior`` and ``class_alpha``).
    remainder : {"drop", "error"}, default "drop"
        Columns that no block selects: ignored (as ``ColumnTransformer``'s default) or an
        error at fit.
    missing : {"error", "ignore"}, default "error"
        What a NaN in X (a missing value) does, for every block. ``"error"`` raises a
        ValueError naming the rows and the columns of X (by name for a DataFrame) that hold
        NaN. ``"ignore"`` passes NaN to the blocks, which are fitted with ``missing="ignore"``
        and marginalise their missing features out (each as it would alone: see the
        ``missing`` parameter of each estimator); a row whose features of one block are all
        missing gets no evidence from that block. Like the class prior, the setting belongs
        to this estimator: a block left at its default takes it, a block that sets a
        different ``missing`` is refused (ValueError), and under ``"ignore"`` every block
        must have a ``missing`` parameter. Columns no block uses are never read, so a NaN
        there is not an error. Infinity is refused either way; the PyMC path
        (``to_pymc``/``fit_pymc``) refuses NaN.
    temperature : float or "loo", default 1.0
        The likelihood temperature τ of ``predict_proba`` / ``predict_log_proba``:
        p(c | x) ∝ p(c) · p(x | c)^τ (a power on the document likelihood at scoring time, not
        a change of the posterior; ``predict`` is unchanged). ``"loo"`` learns it by exact
        leave-one-out (``temperature_``), jointly with ``alpha="loo"``.

    Attributes
    ----------
    estimators_ : list of (name, fitted estimator, column indices)
        The fitted clones and the integer positions of their columns.
    named_estimators_ : Bunch
        name -> fitted block estimator.
    remainder_ : ndarray of int
        Columns no block uses (dropped).
    classes_, class_count_, class_log_prior_, class_alpha_, n_features_in_,
    feature_names_in_ : as in the other estimators.

    Notes
    -----
    - The class prior belongs to this estimator: a block that sets ``class_alpha``,
      ``fit_prior`` or ``class_prior`` to a non-default value is refused (ValueError); the
      fitted clones get this estimator's values, so each block's own statistics, tables and
      ``alpha="evidence"`` learning are exactly those of the block fitted alone.
    - Blocks must not overlap: a column in two blocks would count its evidence twice under
      the naive Bayes factorisation (ValueError naming the columns).
    - Nested parameters ``name__param`` (``set_params(words__alpha=0.5)``,
      ``GridSearchCV(param_grid={"words__alpha": [...]})``) change the unfitted blocks and
      take effect at the next fit, as in ``ColumnTransformer``.
    - Sparse input stays sparse: each block gets its columns of the CSR matrix. A block
      whose estimator refuses sparse input (GDA) gets its (narrow) slice as a dense array.
      Text columns of a DataFrame need a vectoriser first (a ``ColumnTransformer`` step in a
      ``Pipeline``; select its output columns here with slices or a callable).
    - Inside a block the DataTree coordinates ``feature`` are the block's column names (a
      DataFrame's names, else ``x0, x1, ...`` of the block).
    """

    _family = "columnwise"

    def __init__(
        self,
        estimators,
        *,
        class_alpha=1.0,
        estimate=None,
        fit_prior=True,
        class_prior=None,
        remainder="drop",
        missing="error",
        temperature=1.0,
    ):
        self.estimators = estimators
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.remainder = remainder
        self.missing = missing
        self.temperature = temperature

    def _setup(self, X, spec) -> None:
        """Resolve the columns of every block, check coverage, clone the estimators."""
        n = self.n_features_in_
        names = getattr(self, "feature_names_in_", None)
        resolved, owner = [], {}
        for name, _, columns in spec:
            idx = self._resolve(name, columns, X, n, names)
            for j in idx.tolist():
                if j in owner:
                    label = str(names[j]) if names is not None else j
                    raise ValueError(
                        f"column {label!r} is selected by blocks {owner[j]!r} and {name!r}: "
                        "blocks must not overlap (naive Bayes would count that column's "
                        "evidence twice)"
                    )
                owner[j] = name
            resolved.append(idx)
        rest = np.setdiff1d(np.arange(n), np.fromiter(owner, dtype=np.intp, count=len(owner)))
        if rest.size and self.remainder == "error":
            labels = [str(names[j]) if names is not None else int(j) for j in rest[:10]]
            raise ValueError(
                f"columns {labels} are used by no block (remainder='error'); add them to a "
                "block or set remainder='drop'"
            )
        shared = {p: getattr(self, p) for p in CLASS_PRIOR_PARAMS}
        blocks = []
        for (name, est, _), idx in zip(spec, resolved, strict=True):
            block = clone(est)
            own = {k: v for k, v in shared.items() if k in block.get_params(deep=False)}
            if self.estimate is not None and "estimate" in block.get_params(deep=False):
                own["estimate"] = self.estimate
            if "missing" in block.get_params(deep=False):
                own["missing"] = self.missing  # ColumnwiseNB's setting wins (checked above)
            block.set_params(**own)
            block._check_params()  # the block's own checks (alpha, covariance, ...), as its fit
            blocks.append((name, block, idx))
        self.estimators_ = blocks
        self.named_estimators_ = Bunch(**{name: block for name, block, _ in blocks})
        self.remainder_ = rest
        self._own_estimates = [getattr(est, "estimate", None) for _, est, _ in spec]

    def _select(self, X) -> list:
        """The raw columns of every fitted block (DataFrame slices keep their names)."""
        out = []
        for _, block, idx in self.estimators_:
            if _is_df(X):
                part = X.iloc[:, idx]
            elif sp.issparse(X):
                part = X[:, idx]
            else:
                part = X[:, idx]
            if sp.issparse(part) and not block.__sklearn_tags__().input_tags.sparse:
                part = part.toarray()  # a narrow dense block (GDA) of a sparse matrix
            out.append(part)
        return out

    # -- GenerativeClassifier hooks --------------------------------------------------------
    def _check_params(self) -> None:
        if self.estimate is not None:
            check_estimate(self.estimate)
        if not (isinstance(self.class_alpha, str) and self.class_alpha == "evidence"):
            check_class_alpha(self.class_alpha)
        if not isinstance(self.remainder, str) or self.remainder not in _REMAINDER:
            raise ValueError(f"remainder must be one of {_REMAINDER}, got {self.remainder!r}")
        check_missing(self.missing)

    @staticmethod
    def _as_input(X):
        """DataFrames and CSR/CSC matrices as they are, anything else as a 2-D ndarray."""
        if not _is_df(X) and not sp.issparse(X):
            try:
                X = np.asarray(X)
            except ValueError as exc:  # ragged rows: numpy's message names no argument
                raise not_numeric_error(exc, "X") from None
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
        elif sp.issparse(X) and X.format not in ("csr", "csc"):
            X = X.tocsr()
        return X

    def _check_finite_blocks(self, X, parts: list) -> bool:
        """Refuse infinity (always) and NaN (unless ``missing="ignore"``) in the columns the
        blocks use, naming the rows and the columns of the whole X; True if a NaN is there.

        Done here rather than by each block so that the message speaks of X (its column
        positions and DataFrame names), not of a block's slice. One ``sum`` per block decides
        the common case, as in :func:`bayesnb.validation.check_X`.
        """
        found, rows, cols, values = False, [], [], []
        for (_, _, idx), part in zip(self.estimators_, parts, strict=True):
            v = _float_values(part)
            if v is None or sum_is_finite(v):  # a finite sum: no NaN, no infinity
                continue
            nan = bool(np.isnan(v).any())
            found = found or nan
            if self.missing == "ignore" and not np.isinf(v).any():
                continue  # NaN only, and allowed: nothing to report
            if sp.issparse(part):
                coo = part.tocoo()
                bad = ~np.isfinite(coo.data)
                r, c, x = coo.row[bad], coo.col[bad], coo.data[bad]
            else:
                r, c = np.nonzero(~np.isfinite(v))
                x = v[r, c]
            rows.append(r)
            cols.append(idx[c])
            values.append(x)
        if rows:
            # The bad cells as one sparse X-shaped matrix: the message of every other model.
            cells = sp.csr_matrix(
                (np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))),
                shape=(X.shape[0], self.n_features_in_),
            )
            check_finite(self, cells, self.missing)
        return found

    def _block_inputs(self, X) -> list:
        """Every fitted block's columns of a new X for the PyMC path (which validates each
        through its block); NaN is refused here, naming ColumnwiseNB and the cells of X."""
        check_fitted(self)
        X = self._as_input(X)
        validate_data(names_checked_by(self, X, False), X, reset=False, skip_check_array=True)
        parts = self._select(X)
        if self._check_finite_blocks(X, parts):
            raise ValueError(
                "X holds NaN (missing values): the PyMC path of ColumnwiseNB declares the "
                "likelihood of complete data only and does not marginalise missing features. "
                "Drop or impute the incomplete rows for fit_pymc/to_pymc; the closed-form path "
                "(predict_proba, sample_posterior, log_evidence) handles missing='ignore'."
            )
        return parts

    def _setup_blocks(self, X) -> None:
        """Resolve and clone the blocks for an X of ``n_features_in_`` columns without
        reading it (:func:`bayesnb.distributed.fit`: the estimator and the bare copy its
        workers count with; ``classes_`` is set already).

        Columns are selected by position (a Dask array has no column names); a callable
        gets the Dask array.
        """
        self._setup(X, self._validated_spec())
        for _, block, idx in self.estimators_:
            block.classes_ = self.classes_
            block.n_features_in_ = int(idx.size)

    def _check_input(self, X, y=None, *, reset):
        X = self._as_input(X)
        if reset:
            spec = self._validated_spec()
            for attr in ("n_features_in_", "feature_names_in_"):
                self.__dict__.pop(attr, None)
            validate_data(self, X, reset=True, skip_check_array=True)
            self._setup(X, spec)
        else:
            check_fitted(self)
            validate_data(names_checked_by(self, X, False), X, reset=False, skip_check_array=True)
        parts, y_out, raw = [], y, self._select(X)
        self._check_finite_blocks(X, raw)  # before the blocks: the message names X's cells
        for (_, block, _), part in zip(self.estimators_, raw, strict=True):
            if y is None:
                parts.append(block._check_input(part, reset=reset))
            else:
                part, y_out = block._check_input(part, y, reset=reset)
                parts.append(part)
        blocks = _Blocks(parts, X.shape[0])
        return blocks if y is None else (blocks, y_out)

    def _encode(self, X: _Blocks) -> _Blocks:
        """Every block's own view of its columns (BernoulliNB binarises)."""
        parts = [b._encode(p) for (_, b, _), p in zip(self.estimators_, X.parts, strict=True)]
        return _Blocks(parts, X.shape[0])

    def _reset_counts(self, n_features: int) -> None:
        self.class_count_ = np.zeros(len(self.classes_))
        for _, block, _ in self.estimators_:
            block.classes_ = self.classes_
            block._reset_counts(block.n_features_in_)

    def _statistics(self, X: _Blocks, codes, weights) -> dict:
        from bayesnb.stats.discrete import count_classes

        return {
            "class_count": count_classes(codes, weights, len(self.classes_)),
            "blocks": [
                b._statistics(p, codes, weights)
                for (_, b, _), p in zip(self.estimators_, X.parts, strict=True)
            ],
        }

    def _merge_statistics(self, stats: dict) -> None:
        self.class_count_ = self.class_count_ + stats["class_count"]
        for (_, block, _), s in zip(self.estimators_, stats["blocks"], strict=True):
            if s is not None:  # a batch of soft statistics that holds none of this block's
                block._merge_statistics(s)

    def _statistics_changed(self, documents=None) -> None:
        for _, block, _ in self.estimators_:
            block._statistics_changed()
        super()._statistics_changed(documents)

    def fit(self, X, y, sample_weight=None, feature_names=None):
        """Fit every block on its columns with one label encoding (see ``GenerativeClassifier``).

        Estimates that can fail (a singular GDA ``"mle"`` covariance) are computed here, as
        the blocks' own ``fit`` would. ``feature_names`` name the columns of X; every block
        gets the names of its columns. Blocks select columns of input without names by
        position (a string selector needs a DataFrame).
        """
        return super().fit(X, y, sample_weight=sample_weight, feature_names=feature_names)

    def _fit_arrays(self, X, codes, weights, statistics=None) -> None:
        super()._fit_arrays(X, codes, weights, statistics)
        for _, block, _ in self._blocks():
            if isinstance(getattr(type(block), "_fitted", None), property):
                block._fitted  # noqa: B018 - factorise now (cached for prediction)

    def _shallow_copy(self):
        """A copy whose blocks are copies too (naming them leaves these blocks alone)."""
        return self._own_blocks(super()._shallow_copy())

    def _replace(self, fitted: dict | None = None, **params):
        """See :meth:`GenerativeClassifier._replace`; the blocks are copies (their caches too):
        the variant's ``estimate`` is set on its own blocks."""
        return self._own_blocks(super()._replace(fitted, **params))

    def _own_blocks(self, view):
        view.estimators_ = [(n, b._shallow_copy(), idx) for n, b, idx in view.estimators_]
        view.named_estimators_ = Bunch(**{n: b for n, b, _ in view.estimators_})
        return view

    def _set_feature_names(self, feature_names) -> None:
        """Name the columns of X, and every block's columns with their names."""
        super()._set_feature_names(feature_names)
        for _, block, idx in self.estimators_:
            block._set_feature_names(self.feature_names_in_[idx])

    def _blocks(self) -> list[tuple[str, GenerativeClassifier, np.ndarray]]:
        """The fitted blocks, scoring with ``estimate`` when it is set (else their own)."""
        check_fitted(self)
        for (_, block, _), own in zip(self.estimators_, self._own_estimates, strict=True):
            want = own if self.estimate is None else self.estimate
            if want is not None and block.estimate != want:
                block.estimate = want  # tables are cached per parameter set: no stale table
        return self.estimators_

    def _log_likelihood(self, X: _Blocks) -> np.ndarray:
        blocks = self._blocks()
        total = None
        for (_, block, _), part in zip(blocks, X.parts, strict=True):
            jll = block._log_likelihood(part)
            total = jll if total is None else total + jll
        return np.asarray(total, dtype=np.float64)

    # -- the one class prior ---------------------------------------------------------------
    def _class_estimate(self) -> str:
        if self.estimate is not None:
            return _CLASS_ESTIMATE[self.estimate]
        implied = {_CLASS_ESTIMATE.get(e, "mean") for e in self._own_estimates}
        return implied.pop() if len(implied) == 1 else "mean"

    def _cached(self, key: str, compute: Callable):
        check_fitted(self)
        tables = self.__dict__.setdefault("_tables", {})
        # The unfitted blocks (``estimators``) do not change the fitted model.
        full_key = (key, self._params_key(exclude=("estimators",)))
        if full_key not in tables:
            self._check_params()
            tables[full_key] = compute()
        return tables[full_key]

    def sample(self, n: int, random_seed=None):
        """Draw ``n`` synthetic rows ``(X, y)``: labels from the one class prior, then every
        block's columns from that block's generative model given the labels.

        X has the columns of the training data in their order (columns used by no block are
        0); it is a CSR matrix when some block generates sparse counts (MultinomialNB,
        PoissonNB), otherwise a float64 array.
        """
        from bayesnb.generate import sample

        return sample(self, n, random_seed=random_seed)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True
        return tags
