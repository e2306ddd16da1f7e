"""CategoricalNB: one categorical distribution per feature and class (thin: it wires the pipe)."""

from __future__ import annotations

import numpy as np

from bayesnb.families._discrete import _DiscreteNB
from bayesnb.posterior.discrete import DirichletPosterior
from bayesnb.scoring import categorical_jll
from bayesnb.stats.discrete import (
    category_offsets,
    count_categories,
    count_classes,
)
from bayesnb.validation import (
    check_alpha,
    check_min_categories,
)

__all__ = ["CategoricalNB"]


class CategoricalNB(_DiscreteNB):
    """Categorical event model: feature j takes one of k_j values with probabilities θ_cj.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "evidence" or "loo", default 1.0
        Dirichlet concentration of each category of feature j. ``"evidence"`` learns the
        α maximising the closed-form evidence; ``"loo"`` learns the one α maximising the
        exact leave-one-out label log-likelihood Σ_i log p(y_i | x_i, D without i) (a 1-D
        search on the fitted statistics, no refits; it needs every training document, so
        ``fit`` only), stored in ``alpha_``.
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
    temperature : float or "loo", default 1.0
        The likelihood temperature τ of ``predict_proba`` / ``predict_log_proba``:
        p(c | x) ∝ p(c) · p(x | c)^τ (a power on the document likelihood at scoring time, not
        a change of the posterior; ``predict`` is unchanged). ``"loo"`` learns it by exact
        leave-one-out (``temperature_``), jointly with ``alpha="loo"``.

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

    _family = "categorical"

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
        temperature=1.0,
    ):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.dtype = dtype
        self.missing = missing
        self.temperature = temperature

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
