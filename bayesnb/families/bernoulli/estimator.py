"""BernoulliNB: the multivariate Bernoulli event model (thin: it wires the pipe)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.families._discrete import _DiscreteNB, _MissingCounts
from bayesnb.posterior.discrete import BetaPosterior, failures
from bayesnb.scoring.discrete import bernoulli_jll, bernoulli_linear
from bayesnb.stats.discrete import (
    binarize,
    count_classes,
    count_features,
)
from bayesnb.stats.missing import count_missing
from bayesnb.validation import (
    check_alpha,
    check_binarize,
)

__all__ = ["BernoulliNB"]


class BernoulliNB(_MissingCounts, _DiscreteNB):
    """Multivariate Bernoulli event model: each feature is present with probability φ_cj.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "evidence" or "loo", default 1.0
        Beta prior pseudo-count of documents *with* the feature. ``"evidence"`` learns the
        α maximising the closed-form evidence; ``"loo"`` learns the one α maximising the
        exact leave-one-out label log-likelihood Σ_i log p(y_i | x_i, D without i) (a 1-D
        search on the fitted statistics, no refits; it needs every training document, so
        ``fit`` only), stored in ``alpha_``.
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
    temperature : float or "loo", default 1.0
        The likelihood temperature τ of ``predict_proba`` / ``predict_log_proba``:
        p(c | x) ∝ p(c) · p(x | c)^τ (a power on the document likelihood at scoring time, not
        a change of the posterior; ``predict`` is unchanged). ``"loo"`` learns it by exact
        leave-one-out (``temperature_``), jointly with ``alpha="loo"``.

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

    _family = "bernoulli"

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
        temperature=1.0,
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
        self.temperature = temperature

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

    def _linear(self):
        log_p, log_q = self.feature_log_prob_, self.feature_log_neg_prob_
        return self._cached("bernoulli_linear", lambda: bernoulli_linear(log_p, log_q))

    def _log_likelihood(self, X) -> np.ndarray:
        log_p, log_q = self.feature_log_prob_, self.feature_log_neg_prob_
        return self._score_tables(X, log_p, log_q, self._linear())

    def _score_tables(self, X, log_p, log_q, linear=None) -> np.ndarray:
        """Σ_j [x_j log_p + (1 − x_j) log_q] of validated X under the given tables (the
        estimate's, or the posterior's expectations ``E[log φ]``, ``E[log(1 − φ)]``);
        ``linear``: their :func:`bernoulli_linear`, when kept."""
        M = self._split_missing(X)[1] if self._missing == "ignore" else None
        if self.binarize is not None and sp.issparse(X):
            # Binarised inside the scoring product, a block at a time: no binarised copy of X.
            return bernoulli_jll(X, log_p, log_q, missing=M, threshold=self.binarize, linear=linear)
        Xb = self._as_dtype(self._encode(X))
        return bernoulli_jll(Xb, log_p, log_q, missing=M, linear=linear)

    _fresh_log_likelihood = True  # a new array every call: predict_proba writes over it


class _ObservedBetaPosterior(BetaPosterior):
    """:class:`BetaPosterior` with per-(class, feature) trials ``N_cj`` (missing values)."""

    @property
    def failures(self) -> np.ndarray:
        return failures(self.trials, self.successes)
