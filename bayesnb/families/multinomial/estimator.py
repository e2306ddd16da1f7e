"""MultinomialNB: the multinomial event model (thin: it wires the pipe).

``X, y -> validation -> stats.discrete -> posterior.discrete -> scoring``; the formulas of
every estimate are in docs/design.md and in :mod:`bayesnb.posterior.discrete`.
"""

from __future__ import annotations

import warnings
from functools import cached_property

import numpy as np

from bayesnb.families._discrete import _DiscreteNB
from bayesnb.posterior.discrete import DirichletPosterior
from bayesnb.scoring import dot_log_table, polya_jll
from bayesnb.scoring.discrete import observed_mass_correction, scoring_table
from bayesnb.stats.discrete import (
    count_classes,
    count_features,
)
from bayesnb.stats.lengths import (
    DocumentLengths,
    add_length_counts,
    count_lengths,
    empty_length_counts,
)
from bayesnb.validation import (
    MissingValueWarning,
    check_alpha,
)

__all__ = ["MultinomialNB", "UnkColumns"]


class UnkColumns:
    """Which columns of a fitted MultinomialNB are pooled into UNK, and each one's category.

    With ``unk=True`` the word distribution θ_c lives on categories: the columns seen in
    training, in column order, then one UNK category that every pooled column (never seen in
    training) shares. Without ``unk`` every column is its own category.

    Attributes
    ----------
    pooled : bool ndarray of shape (n_features,), or None without ``unk``
        The columns pooled into UNK.
    category : ndarray of intp, shape (n_features,)
        The category of every column (the UNK category is the last).
    n_categories : int
        The seen columns plus UNK (which exists even when no column is pooled), or
        ``n_features`` without ``unk``.
    """

    def __init__(self, est) -> None:
        self.n_features = est.n_features_in_
        self.pooled = est.feature_count_.sum(axis=0) <= 0 if est.unk else None

    @property
    def n_categories(self) -> int:
        if self.pooled is None:
            return self.n_features
        return int((~self.pooled).sum()) + 1

    @cached_property
    def category(self) -> np.ndarray:
        if self.pooled is None:
            return np.arange(self.n_features)
        n_seen = self.n_categories - 1
        category = np.empty(self.n_features, dtype=np.intp)
        category[~self.pooled] = np.arange(n_seen)
        category[self.pooled] = n_seen
        return category


class MultinomialNB(_DiscreteNB):
    """Multinomial event model: a document is a bag of tokens drawn from θ_c ~ Dirichlet(α).

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "evidence" or "loo", default 1.0
        Dirichlet concentration of the word probabilities. With ``estimate="mean"``, 1 is
        Laplace (add-one) smoothing and other values Lidstone smoothing. ``"evidence"``
        learns the α maximising the closed-form evidence; ``"loo"`` learns the one α
        maximising the exact leave-one-out label log-likelihood Σ_i log p(y_i | x_i, D
        without i) (a 1-D search on the fitted statistics, no refits; it needs every
        training document, so ``fit`` only), stored in ``alpha_``.
    class_alpha : float, default 1.0
        Dirichlet concentration γ of the class prior; 0 gives the empirical class frequencies
        (scikit-learn's class prior).
    estimate : {"mle", "map", "mean", "bayes"}, default "mean"
        How the posterior scores new documents (user guide: "The four estimates").
        ``"bayes"`` is the Dirichlet-multinomial posterior predictive of the whole document.
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
    temperature : float or "loo", default 1.0
        The likelihood temperature τ of ``predict_proba`` / ``predict_log_proba``:
        p(c | x) ∝ p(c) · p(x | c)^τ (a power on the document likelihood at scoring time, not
        a change of the posterior; ``predict`` is unchanged). ``"loo"`` learns it by exact
        leave-one-out (``temperature_``), jointly with ``alpha="loo"``.

    Attributes
    ----------
    classes_, class_count_, feature_count_, class_log_prior_, feature_log_prob_,
    n_features_in_, feature_names_in_ : as in scikit-learn.
    posterior_ : DirichletPosterior
        Dirichlet(α + T_c) over the V (or V_seen + 1) categories of every class.
    """

    _family = "multinomial"

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
        temperature=1.0,
    ):
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unk = unk
        self.dtype = dtype
        self.missing = missing
        self.temperature = temperature

    def _check_params(self) -> None:
        super()._check_params()
        if self.unk and np.ndim(self.alpha) != 0:
            raise ValueError("unk=True needs a scalar alpha: the pooled UNK slot has one prior")

    def _reset_counts(self, n_features: int) -> None:
        super()._reset_counts(n_features)
        self.length_count_ = empty_length_counts(len(self.classes_))

    def _statistics(self, X, codes, weights, lengths: DocumentLengths | None = None) -> dict:
        """The statistics of validated ``X``; ``lengths``: its :class:`DocumentLengths` (soft
        labels), when the caller counts the same rows again."""
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
        stats["length_count"] = count_lengths(X0, codes, weights, k, lengths)
        return stats

    def _merge_statistics(self, stats: dict) -> None:
        super()._merge_statistics(stats)
        self.length_count_ = add_length_counts(self.length_count_, stats["length_count"])

    @property
    def posterior_(self) -> DirichletPosterior:
        alpha = check_alpha(self.alpha_, self.n_features_in_)
        counts = self.feature_count_
        pooled = UnkColumns(self).pooled
        if pooled is not None:
            counts = np.hstack([counts[:, ~pooled], np.zeros((counts.shape[0], 1))])
        return DirichletPosterior(alpha, counts)

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """log θ_cj of the chosen estimate, shape (n_classes, n_features)."""
        return self._cached("feature_log_prob", self._compute_feature_log_prob)

    def _compute_feature_log_prob(self) -> np.ndarray:
        return self._column_table(self.posterior_.log_estimate(self.estimate))

    def _column_table(self, table: np.ndarray) -> np.ndarray:
        """A (n_classes, n_categories) table on the model's columns: a pooled column takes
        the UNK category's value."""
        pooled = UnkColumns(self).pooled
        if pooled is None:
            return self._as_dtype(table)
        full = np.empty_like(self.feature_count_, dtype=self.dtype)
        full[:, ~pooled] = table[:, :-1]
        full[:, pooled] = table[:, -1:]
        return full

    def _scoring_table(self) -> np.ndarray | None:
        table = self.feature_log_prob_
        return self._cached("scoring_table", lambda: scoring_table(table))

    def _log_likelihood(self, X) -> np.ndarray:
        X, M = self._split_missing(X)
        if self.estimate == "bayes":
            return polya_jll(X, self.posterior_.concentration, UnkColumns(self).pooled, missing=M)
        table, table_t = self.feature_log_prob_, self._scoring_table()
        jll = dot_log_table(self._as_dtype(X), table, table_t)
        if M is not None:
            pooled = UnkColumns(self).pooled
            jll = jll + observed_mass_correction(X, M, self.feature_log_prob_, pooled)
        return jll

    _fresh_log_likelihood = True  # a new array every call: predict_proba writes over it
