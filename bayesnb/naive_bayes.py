"""Naive Bayes estimators for the discrete event models (thin: they wire the pipe).

``X, y -> validation -> stats.discrete -> posterior.discrete -> scoring``; the formulas of
every estimate are in DESIGN.md §1 and in :mod:`bayesnb.posterior.discrete`.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from bayesnb._base import GenerativeClassifier
from bayesnb.posterior.discrete import BetaPosterior, DirichletPosterior, check_mode_exists
from bayesnb.scoring import bernoulli_jll, categorical_jll, dot_log_table, polya_jll
from bayesnb.scoring.discrete import observed_mass_correction
from bayesnb.stats.discrete import (
    binarize,
    category_offsets,
    count_categories,
    count_classes,
    count_features,
)
from bayesnb.stats.lengths import add_length_counts, count_lengths, empty_length_counts
from bayesnb.stats.missing import count_missing
from bayesnb.validation import (
    MissingValueWarning,
    check_alpha,
    check_binarize,
    check_min_categories,
    check_X,
    check_X_y,
)

__all__ = ["BernoulliNB", "CategoricalNB", "MultinomialNB"]


def _is_zero_view(a: np.ndarray) -> bool:
    """Whether ``a`` is the read-only broadcast zero table of an empty model (zero strides)."""
    return 0 in a.strides


class _DiscreteNB(GenerativeClassifier):
    """Input checks and class counting shared by the discrete event models."""

    _nonnegative = True
    _integer = False

    def _check_input(self, X, y=None, *, reset):
        kw = dict(
            reset=reset,
            nonnegative=self._nonnegative,
            integer=self._integer,
            missing=self._missing,
        )
        if y is None:
            return check_X(self, X, **kw)
        return check_X_y(self, X, y, **kw)

    def _check_params(self) -> None:
        super()._check_params()
        if isinstance(self.alpha, str) and self.alpha != "evidence":
            raise ValueError(
                f"alpha must be a positive number or array, or 'evidence', got {self.alpha!r}"
            )
        if not isinstance(self.alpha, str):
            # The MAP needs an interior mode: refuse at fit, not at the first predict.
            check_mode_exists(self.estimate, self.alpha, "alpha")
            beta = getattr(self, "beta", None)
            check_mode_exists(self.estimate, 1.0 if beta is None else beta, "beta")
        self._check_dtype()

    def _check_dtype(self) -> None:
        try:
            dtype = np.dtype(self.dtype)
        except TypeError:
            dtype = None
        if dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype must be float32 or float64, got {self.dtype!r}")

    def _as_dtype(self, a):
        """``a`` (estimate table or input) in the scoring precision ``dtype``."""
        return a.astype(self.dtype, copy=False)

    def _reset_counts(self, n_features: int) -> None:
        self.class_count_ = np.zeros(len(self.classes_))
        # A read-only zero view costs no memory; the first batch's table replaces it.
        self.feature_count_ = np.broadcast_to(0.0, (len(self.classes_), n_features))

    def _statistics(self, X, codes, weights) -> dict:
        k = len(self.classes_)
        X0, _ = self._split_missing(X)  # missing counts are left out of the sums
        return {
            "class_count": count_classes(codes, weights, k),
            "feature_count": count_features(X0, codes, weights, k),
        }

    def _merge_statistics(self, stats: dict) -> None:
        self.class_count_ += stats["class_count"]
        if _is_zero_view(self.feature_count_):
            # The first batch's fresh table becomes the model's: fit never holds two.
            self.feature_count_ = np.asarray(stats["feature_count"], dtype=np.float64)
        elif not self.feature_count_.flags.writeable:  # e.g. a read-only memmap
            self.feature_count_ = self.feature_count_ + stats["feature_count"]
        else:
            self.feature_count_ += stats["feature_count"]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = self._nonnegative
        # Event models of counts are not meant for the Gaussian blobs of the generic checks.
        tags.classifier_tags.poor_score = True
        return tags


class _MissingCounts:
    """``missing_count_``: weighted documents of class c with feature j missing (mixin).

    For the models whose posterior of feature j counts documents (BernoulliNB's trials,
    PoissonNB's exposure): under ``missing="ignore"`` feature j is observed in
    ``N_cj = N_c − missing_count_[c, j]`` documents of class c. A read-only view of zeros
    until some training value is missing; a batch without NaN adds the scalar 0.0.
    """

    def _reset_counts(self, n_features: int) -> None:
        super()._reset_counts(n_features)
        self.missing_count_ = np.broadcast_to(0.0, (len(self.classes_), n_features))

    def _merge_statistics(self, stats: dict) -> None:
        super()._merge_statistics(stats)
        lost = stats.get("missing_count", 0.0)
        if np.ndim(lost) == 0:
            return  # no missing value in the batch
        self.missing_count_ = self.missing_count_ + lost  # a new table: safe for views

    def _observed_counts(self) -> np.ndarray | None:
        """``N_cj`` of shape (n_classes, n_features), or None when nothing is missing."""
        lost = getattr(self, "missing_count_", None)
        if lost is None or _is_zero_view(lost) or not lost.any():
            return None
        # Clipped: weighted sums of N_c and of the missing counts are rounded separately.
        return np.maximum(self.class_count_[:, None] - lost, 0.0)


class MultinomialNB(_DiscreteNB):
    """Multinomial event model: a document is a bag of tokens drawn from θ_c ~ Dirichlet(α).

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default 1.0
        Dirichlet concentration of the word probabilities. With ``estimate="mean"``, 1 is
        Laplace (add-one) smoothing and other values Lidstone smoothing.
    class_alpha : float, default 1.0
        Dirichlet concentration γ of the class prior; 0 gives the empirical class frequencies
        (scikit-learn's class prior).
    estimate : {"mle", "map", "mean", "bayes"}, default "mean"
        How the posterior scores new documents (DESIGN.md §1). ``"bayes"`` is the
        Dirichlet-multinomial posterior predictive of the whole document.
    fit_prior : bool, default True
        False uses a uniform class prior.
    class_prior : array-like of shape (n_classes,), optional
        A fixed class prior (overrides ``fit_prior`` and ``class_alpha``).
    unk : bool, default False
        Pool every feature never seen in training into one UNK category:
        P(UNK | c) = α / (T_c + α(V + 1)) with V the number of seen features.
    dtype : {"float64", "float32"} or numpy float type, default "float64"
        Precision of the estimate table ``feature_log_prob_`` and of the scoring product
        ``X @ table.T``; float32 halves the table's memory and bandwidth. Counts stay float64
        (exact), and ``estimate="bayes"`` scores in float64 from the counts.
    missing : {"error", "ignore"}, default "error"
        What a NaN in X (a missing count; sparse matrices may store NaN explicitly) does.
        ``"error"`` raises a ValueError naming the rows and columns. ``"ignore"`` marginalises
        the missing counts out of the scores, exactly: with the document length not modelled,
        the observed tokens are i.i.d. from φ_c renormalised over the observed features, so a
        document scores ``Σ_{j obs} x_j log φ_cj − n_obs log Σ_{j obs} φ_cj`` (and
        ``"bayes"`` the Pólya predictive with concentrations of the observed features only,
        also exact). In training a missing count is left out of ``T_cj`` (counted as no
        tokens): the exact posterior given documents with missing counts is not a Dirichlet,
        so this is an approximation, good when few counts are missing, that biases φ_cj down
        for often-missing features; a ``MissingValueWarning`` says so. The pooled UNK category
        of ``unk=True`` always counts as observed.

    Attributes
    ----------
    classes_, class_count_, feature_count_, class_log_prior_, feature_log_prob_,
    n_features_in_, feature_names_in_ : as in scikit-learn.
    posterior_ : DirichletPosterior
        Dirichlet(α + T_c) over the V (or V_seen + 1) categories of every class.
    """

    _model_kind = "multinomial"

    def __init__(
        self,
        alpha=1.0,
        class_alpha=1.0,
        estimate="mean",
        fit_prior=True,
        class_prior=None,
        unk=False,
        dtype="float64",
        missing="error",
    ):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unk = unk
        self.dtype = dtype
        self.missing = missing

    def _check_params(self) -> None:
        super()._check_params()
        if self.unk and np.ndim(self.alpha) != 0:
            raise ValueError("unk=True needs a scalar alpha: the pooled UNK slot has one prior")

    def _reset_counts(self, n_features: int) -> None:
        super()._reset_counts(n_features)
        self.length_count_ = empty_length_counts(len(self.classes_))

    def _statistics(self, X, codes, weights) -> dict:
        k = len(self.classes_)
        X0, M = self._split_missing(X)
        stats = {
            "class_count": count_classes(codes, weights, k),
            "feature_count": count_features(X0, codes, weights, k),
        }
        if M is not None:
            warnings.warn(
                f"MultinomialNB(missing='ignore') fits on {int(M.sum())} missing count(s) "
                "treated as zero tokens: the exact posterior with missing counts is not a "
                "Dirichlet, so φ of often-missing features is underestimated (scoring "
                "marginalises missing counts exactly)",
                MissingValueWarning,
                stacklevel=4,
            )
        # Per-class document-length histogram, only needed to generate documents (sample);
        # a document with missing counts contributes its observed length.
        stats["length_count"] = count_lengths(X0, codes, weights, k)
        return stats

    def _merge_statistics(self, stats: dict) -> None:
        super()._merge_statistics(stats)
        self.length_count_ = add_length_counts(self.length_count_, stats["length_count"])

    @property
    def _pooled(self) -> np.ndarray | None:
        """Columns pooled into UNK (never seen in training), or None without ``unk``."""
        if not self.unk:
            return None
        return self.feature_count_.sum(axis=0) <= 0

    @property
    def posterior_(self) -> DirichletPosterior:
        alpha = check_alpha(self.alpha_, self.n_features_in_)
        counts = self.feature_count_
        pooled = self._pooled
        if pooled is not None:
            counts = np.hstack([counts[:, ~pooled], np.zeros((counts.shape[0], 1))])
        return DirichletPosterior(alpha, counts)

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """log θ_cj of the chosen estimate, shape (n_classes, n_features)."""
        return self._cached("feature_log_prob", self._compute_feature_log_prob)

    def _compute_feature_log_prob(self) -> np.ndarray:
        table = self.posterior_.log_estimate(self.estimate)
        pooled = self._pooled
        if pooled is None:
            return self._as_dtype(table)
        full = np.empty_like(self.feature_count_, dtype=self.dtype)
        full[:, ~pooled] = table[:, :-1]
        full[:, pooled] = table[:, -1:]
        return full

    def _log_likelihood(self, X) -> np.ndarray:
        X, M = self._split_missing(X)
        if self.estimate == "bayes":
            return polya_jll(X, self.posterior_.concentration, self._pooled, missing=M)
        jll = dot_log_table(self._as_dtype(X), self.feature_log_prob_)
        if M is not None:
            jll = jll + observed_mass_correction(X, M, self.feature_log_prob_, self._pooled)
        return jll


class BernoulliNB(_MissingCounts, _DiscreteNB):
    """Multivariate Bernoulli event model: each feature is present with probability φ_cj.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default 1.0
        Beta prior pseudo-count of documents *with* the feature.
    beta : float or array-like, optional
        Beta prior pseudo-count of documents *without* it; defaults to ``alpha``.
    binarize : float or None, default 0.0
        Threshold: values strictly above it count as present. None means X is already 0/1.
    class_alpha, estimate, fit_prior, class_prior
        As in :class:`MultinomialNB`. ``"bayes"`` (the Beta-Bernoulli predictive) equals
        ``"mean"`` because the posterior factorises over features.
    dtype : {"float64", "float32"} or numpy float type, default "float64"
        Precision of the two estimate tables and of the scoring products; counts stay float64.
    missing : {"error", "ignore"}, default "error"
        What a NaN in X (a missing feature) does: ``"error"`` raises a ValueError naming the
        rows and columns; ``"ignore"`` marginalises it out exactly: its factor is dropped when
        scoring, and in training the Beta posterior of φ_cj counts the documents of class c
        where feature j is observed, ``Beta(α + D_cj, β + N_cj − D_cj)`` with
        ``N_cj = N_c − missing_count_[c, j]`` (exact under missing-at-random).

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted document frequencies D_cj.
    missing_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of documents of class c with feature j missing (a read-only view of
        zeros until some training value is missing).
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log φ_cj; ``feature_log_neg_prob_`` holds log(1 - φ_cj).
    posterior_ : BetaPosterior
    """

    _model_kind = "bernoulli"

    _nonnegative = False

    def __init__(
        self,
        alpha=1.0,
        beta=None,
        binarize=0.0,
        class_alpha=1.0,
        estimate="mean",
        fit_prior=True,
        class_prior=None,
        dtype="float64",
        missing="error",
    ):
        self.alpha = alpha
        self.beta = beta
        self.binarize = binarize
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.dtype = dtype
        self.missing = missing

    def _check_input(self, X, y=None, *, reset):
        out = super()._check_input(X, y, reset=reset)
        X = out if y is None else out[0]
        check_binarize(self.binarize)
        if self.binarize is None:
            values = X.data if sp.issparse(X) else X
            if np.any((values != 0) & (values != 1) & ~np.isnan(values)):
                raise ValueError("binarize=None needs X of 0/1 values; set a threshold instead")
        elif sp.issparse(X) and self.binarize < 0:
            binarize(X[:0], self.binarize)  # raises: a negative threshold densifies sparse X
        return out

    def _encode(self, X):
        """The binary matrix the likelihood sees (validated X binarised at ``binarize``).

        A missing value (NaN) becomes 0 (``NaN > t`` is false); the likelihood drops its
        factor through the missing-value indicator.
        """
        if self.binarize is None:
            return self._split_missing(X)[0]
        return binarize(X, self.binarize)

    def _statistics(self, X, codes, weights) -> dict:
        # Document frequencies binarise on the fly: no binarised copy of X is made. NaN > t is
        # false, so a missing value is never a success; it is counted in missing_count.
        k = len(self.classes_)
        X0, M = self._split_missing(X)
        Xc = X0 if self.binarize is None else X
        return {
            "class_count": count_classes(codes, weights, k),
            "feature_count": count_features(Xc, codes, weights, k, threshold=self.binarize),
            "missing_count": count_missing(M, codes, weights, k),
        }

    @property
    def posterior_(self) -> BetaPosterior:
        alpha = check_alpha(self.alpha_, self.n_features_in_)
        beta = alpha if self.beta is None else check_alpha(self.beta, self.n_features_in_, "beta")
        observed = self._observed_counts()
        if observed is not None:
            # Trials N_cj: the documents of class c where feature j is observed.
            return _ObservedBetaPosterior(alpha, beta, self.feature_count_, observed)
        return BetaPosterior(alpha, beta, self.feature_count_, self.class_count_)

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """log φ_cj of the chosen estimate."""
        return self._cached("feature_log_prob", self._compute_tables)[0]

    @property
    def feature_log_neg_prob_(self) -> np.ndarray:
        """log(1 - φ_cj) of the chosen estimate, computed directly (not via log1p)."""
        return self._cached("feature_log_prob", self._compute_tables)[1]

    def _compute_tables(self):
        log_p, log_q = self.posterior_.log_estimate(self.estimate)
        return self._as_dtype(log_p), self._as_dtype(log_q)

    def _log_likelihood(self, X) -> np.ndarray:
        M = self._split_missing(X)[1] if self._missing == "ignore" else None
        Xb = self._as_dtype(self._encode(X))
        return bernoulli_jll(Xb, self.feature_log_prob_, self.feature_log_neg_prob_, missing=M)


class _ObservedBetaPosterior(BetaPosterior):
    """:class:`BetaPosterior` with per-(class, feature) trials ``N_cj`` (missing values)."""

    @property
    def failures(self) -> np.ndarray:
        return np.maximum(self.trials - self.successes, 0.0)


class CategoricalNB(_DiscreteNB):
    """Categorical event model: feature j takes one of k_j values with probabilities θ_cj.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default 1.0
        Dirichlet concentration of each category of feature j.
    min_categories : int or array-like of shape (n_features,), optional
        Minimum number of categories per feature (as in scikit-learn).
    class_alpha, estimate, fit_prior, class_prior
        As in :class:`MultinomialNB`; ``"bayes"`` equals ``"mean"``.
    dtype : {"float64", "float32"} or numpy float type, default "float64"
        Precision of the stored estimate table; counts stay float64.
    missing : {"error", "ignore"}, default "error"
        What a NaN in X (a missing feature) does: ``"error"`` raises a ValueError naming the
        rows and columns; ``"ignore"`` marginalises it out exactly: it is left out of the
        category counts of its feature (each feature's Dirichlet posterior counts the
        documents where it is observed) and its factor is dropped when scoring.

    Notes
    -----
    Feature j has the categories 0 .. k_j - 1 (k_j = largest value seen + 1, or
    ``min_categories``) plus one pooled slot for values never seen, so an unseen category
    gets α / (N_c + α(k_j + 1)) instead of an ``IndexError``. Sparse input is accepted; its
    implicit zeros are category 0.

    Attributes
    ----------
    category_count_ : list of ndarray of shape (n_classes, k_j)
    feature_log_prob_ : list of ndarray of shape (n_classes, k_j + 1)
        The last column is the pooled unseen slot.
    n_categories_ : ndarray of shape (n_features,)
    posterior_ : DirichletPosterior over the concatenated category axis.
    """

    _model_kind = "categorical"

    _integer = True

    def __init__(
        self,
        alpha=1.0,
        class_alpha=1.0,
        estimate="mean",
        fit_prior=True,
        class_prior=None,
        min_categories=None,
        dtype="float64",
        missing="error",
    ):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.dtype = dtype
        self.missing = missing

    def _reset_counts(self, n_features: int) -> None:
        self.class_count_ = np.zeros(len(self.classes_))
        k = np.ones(n_features, dtype=np.intp)
        if self.min_categories is not None:
            k = np.maximum(k, check_min_categories(self.min_categories, n_features))
        self.n_categories_ = k
        self._flat_count = np.zeros((len(self.classes_), int(np.sum(k + 1))))

    def _statistics(self, X, codes, weights) -> dict:
        """Class counts and, per feature j, the (K, k_j + 1) category counts of the batch.

        k_j covers the batch's values and the fitted categories (so in memory no re-layout is
        needed); Dask chunks may differ in k_j and are padded when merged. The last (pooled)
        slot counts zero in training, so padding any block with zero columns is exact.
        """
        X, M = self._split_missing(X)  # missing cells are in no category count
        seen = np.asarray(X.max(axis=0).todense() if hasattr(X, "tocsr") else X.max(axis=0))
        need = seen.ravel().astype(np.intp) + 1
        if hasattr(self, "n_categories_"):  # absent on the bare copies Dask workers count with
            need = np.maximum(self.n_categories_, need)
        k = len(self.classes_)
        flat = count_categories(X, codes, weights, k, need, missing=M)
        return {
            "class_count": count_classes(codes, weights, k),
            "category_count": np.split(flat, category_offsets(need)[1:], axis=1),
        }

    def _merge_statistics(self, stats: dict) -> None:
        blocks = stats["category_count"]
        widths = np.array([b.shape[1] - 1 for b in blocks], dtype=np.intp)
        need = np.maximum(self.n_categories_, widths)
        if np.any(need > self.n_categories_):
            self._grow(need)
        if not np.array_equal(widths, need):
            pads = [((0, 0), (0, kj + 1 - b.shape[1])) for b, kj in zip(blocks, need, strict=True)]
            blocks = [np.pad(b, pad) for b, pad in zip(blocks, pads, strict=True)]
        self.class_count_ += stats["class_count"]
        self._flat_count += np.concatenate(blocks, axis=1)

    def _grow(self, need: np.ndarray) -> None:
        """Widen the category axis when a batch holds larger category values."""
        old_k, old_off = self.n_categories_, category_offsets(self.n_categories_)
        new = np.zeros((self._flat_count.shape[0], int(np.sum(need + 1))))
        new_off = category_offsets(need)
        for j in range(len(need)):
            new[:, new_off[j] : new_off[j] + old_k[j]] = self._flat_count[
                :, old_off[j] : old_off[j] + old_k[j]
            ]
        self.n_categories_, self._flat_count = need, new

    @property
    def _offsets(self) -> np.ndarray:
        return category_offsets(self.n_categories_)

    def _split(self, flat: np.ndarray, pooled_slot: bool) -> list[np.ndarray]:
        off, k = self._offsets, self.n_categories_
        return [flat[:, o : o + kj + int(pooled_slot)] for o, kj in zip(off, k, strict=True)]

    @property
    def category_count_(self) -> list[np.ndarray]:
        return self._split(self._flat_count, pooled_slot=False)

    @property
    def feature_count_(self) -> np.ndarray:
        """Per-class number of documents with a non-zero category, shape (n_classes, n_features)."""
        return np.stack([c[:, 1:].sum(axis=1) for c in self.category_count_], axis=1)

    @property
    def posterior_(self) -> DirichletPosterior:
        alpha = check_alpha(self.alpha_, self.n_features_in_)
        sizes = self.n_categories_ + 1
        alpha = np.repeat(alpha, sizes) if np.ndim(alpha) else alpha
        return DirichletPosterior(alpha, self._flat_count, sizes=sizes)

    @property
    def feature_log_prob_(self) -> list[np.ndarray]:
        return self._split(self._flat_log_prob, pooled_slot=True)

    @property
    def _flat_log_prob(self) -> np.ndarray:
        return self._cached(
            "feature_log_prob", lambda: self._as_dtype(self.posterior_.log_estimate(self.estimate))
        )

    def _log_likelihood(self, X) -> np.ndarray:
        X, M = self._split_missing(X)
        return categorical_jll(X, self._flat_log_prob, self._offsets, self.n_categories_, missing=M)
