"""Gaussian discriminant analysis (thin: it wires the pipe).

``X, y -> validation -> stats.gaussian -> posterior.gaussian -> scoring.gaussian``; the class
prior, label bookkeeping and normalisation come from :class:`GenerativeClassifier`. Formulas:
:mod:`bayesnb.posterior.gaussian`.
"""

from __future__ import annotations

import warnings

import numpy as np

from bayesnb._base import GenerativeClassifier
from bayesnb.posterior.gaussian import NormalInverseWishartPosterior
from bayesnb.priors.gaussian import NormalInverseWishart
from bayesnb.scoring import normalize_log_proba
from bayesnb.scoring.gaussian import (
    gaussian_jll,
    linear_coefficients,
    linear_jll,
    linear_scores_flag_nonfinite,
    marginal_factor,
    needs_centering,
    student_t_jll,
)
from bayesnb.scoring.temperature import tempered
from bayesnb.stats.discrete import count_classes
from bayesnb.stats.gaussian import COVARIANCE_TYPES, GaussianStats, gaussian_stats
from bayesnb.stats.missing import missing_mask, missing_patterns, missing_rows
from bayesnb.validation import (
    MissingValueWarning,
    check_finite,
    check_fitted,
    check_X,
    check_X_y,
)

__all__ = ["GDA"]


class GDA(GenerativeClassifier):
    """Gaussian discriminant analysis: ``x | c ~ N(μ_c, Σ)`` with a Normal-Inverse-Wishart prior.

    ``covariance="shared"`` is the model of the Stanford CS229 notes (one Σ, a linear decision
    boundary: linear discriminant analysis), ``"per_class"`` gives every class its own Σ_c
    (quadratic discriminant analysis) and ``"diagonal"`` keeps only per-class variances
    (Gaussian naive Bayes).

    Parameters
    ----------
    covariance : {"shared", "per_class", "diagonal"}, default "shared"
    prior : NormalInverseWishart, optional
        Prior on the class means and covariance(s); None is the data-scaled weakly informative
        default documented in :class:`bayesnb.priors.NormalInverseWishart` (prior mean of Σ =
        the per-feature data variances, worth one observation). Ignored by ``"mle"``.
    class_alpha : float, default 1.0
        Dirichlet concentration γ of the class prior; 0 gives the empirical class frequencies.
    estimate : {"mle", "map", "mean", "bayes"}, default "mean"
        ``"mle"``: the lecture-note formulas (φ_c = N_c/N, μ_c = class mean,
        Σ = (1/N) Σ_i (x_i − μ_{y_i})(x_i − μ_{y_i})ᵀ); it raises a ValueError when Σ is
        singular or ill-conditioned. ``"map"``: the joint posterior mode of (μ_c, Σ).
        ``"mean"``: the posterior means of μ_c and Σ. ``"bayes"``: the multivariate Student-t
        posterior predictive (parameters integrated out).
    fit_prior : bool, default True
        False uses a uniform class prior.
    class_prior : array-like of shape (n_classes,), optional
        A fixed class prior (overrides ``fit_prior`` and ``class_alpha``).
    missing : {"error", "ignore"}, default "error"
        What a NaN in X (a missing feature) does. ``"error"`` raises a ValueError naming the
        rows and columns. ``"ignore"`` scores a sample by the marginal density of its observed
        coordinates, exactly: the Gaussian ``N(x_O | μ_c,O, Σ_OO)`` for ``"mle"``, ``"map"``,
        ``"mean"`` and, for ``"bayes"``, the Student-t with the same degrees of freedom and
        the sub-block of the scale (rows are grouped by missingness pattern, one sub-block
        Cholesky factor per pattern). In training, exact conjugate updating with missing
        coordinates has no closed form for a full covariance, so the class means and
        covariances are fitted on the **complete rows only** (a ``MissingValueWarning`` says
        how many rows were left out); the labels of every row still count toward the class
        prior, so ``class_count_`` counts all rows and ``posterior_`` the complete ones.
    temperature : float or "loo", default 1.0
        The likelihood temperature τ of ``predict_proba`` / ``predict_log_proba``:
        p(c | x) ∝ p(c) · p(x | c)^τ (a power on the document likelihood at scoring time, not
        a change of the posterior; ``predict`` is unchanged). ``"loo"`` learns it by exact
        leave-one-out (``temperature_``), jointly with ``alpha="loo"``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Weighted class counts N_c (every row, with ``missing="ignore"`` also the incomplete
        ones).
    class_log_prior_ : ndarray of shape (n_classes,)
    means_ : ndarray of shape (n_classes, n_features)
        Class means of the chosen estimate (the posterior means μ_c for ``"bayes"``).
    covariance_ : ndarray
        (d, d) for ``"shared"``, (K, d, d) for ``"per_class"``, (K, d) variances for
        ``"diagonal"``; for ``"bayes"`` the posterior mean of Σ.
    coef_ : ndarray of shape (n_classes, n_features)
        Shared covariance and ``"mle"``/``"map"``/``"mean"`` only: θ_c = Σ⁻¹μ_c.
    intercept_ : ndarray of shape (n_classes,)
        θ_c0 = −½ μ_cᵀΣ⁻¹μ_c + log φ_c, so that ``softmax(X @ coef_.T + intercept_)`` equals
        ``predict_proba(X)``. ``coef_`` has one row per class even for two classes (scikit-learn's
        LDA keeps one row, ``coef_[1] − coef_[0]`` here).
    prior_ : NormalInverseWishart
        The prior in use, every hyperparameter resolved (the data-scaled default where
        ``prior`` leaves it at None); model files store it.
    posterior_ : NormalInverseWishartPosterior
        Prior and statistics, with κ_c (``kappa``), μ_c (``mu``), ν (``nu``) and Ψ (``psi``).
    n_features_in_, feature_names_in_ : as in scikit-learn.

    Notes
    -----
    Sufficient statistics are class counts, class means and centred within-class scatter,
    merged exactly across batches (Chan–Golub–LeVeque), so ``partial_fit`` over chunks equals
    ``fit`` and data far from the origin lose no precision. ``sample_weight`` works for every
    covariance type. Scoring goes through Cholesky factors; no matrix is inverted.
    """

    _family = "gda"

    def __init__(
        self,
        covariance="shared",
        prior=None,
        class_alpha=1.0,
        estimate="mean",
        fit_prior=True,
        class_prior=None,
        missing="error",
        temperature=1.0,
    ):
        self.covariance = covariance
        self.prior = prior
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.missing = missing
        self.temperature = temperature

    # -- pipe: validate and count ------------------------------------------------------------
    def _check_params(self) -> None:
        super()._check_params()
        if not isinstance(self.covariance, str) or self.covariance not in COVARIANCE_TYPES:
            raise ValueError(
                f"covariance must be one of {COVARIANCE_TYPES}, got {self.covariance!r}"
            )
        if self.prior is not None and not isinstance(self.prior, NormalInverseWishart):
            raise TypeError(
                "prior must be None or a bayesnb.priors.NormalInverseWishart, got "
                f"{type(self.prior).__name__}"
            )

    def _check_input(self, X, y=None, *, reset):
        if y is None:
            return check_X(self, X, reset=reset, allow_sparse=False, missing=self._missing)
        return check_X_y(self, X, y, reset=reset, allow_sparse=False, missing=self._missing)

    def _fit_arrays(self, X, codes, weights, statistics=None) -> None:
        """See :meth:`GenerativeClassifier._fit_arrays` (``fit``'s counting step).

        The estimate is computed and factorised here, so a singular ``"mle"`` covariance
        fails at fit time. ``partial_fit`` stays lazy: a batch may be singular on its own.
        """
        super()._fit_arrays(X, codes, weights, statistics)
        if self._stats.total_count <= 0 < self.class_count_.sum():
            raise ValueError(
                "GDA(missing='ignore') fits the class means and covariance on complete rows, "
                "and every row of X holds a NaN (or has weight 0)"
            )
        self._fitted  # noqa: B018 - factorise now (cached for prediction)

    def _reset_counts(self, n_features: int) -> None:
        self._stats = GaussianStats.empty(len(self.classes_), n_features, self.covariance)
        self.class_count_ = np.zeros(len(self.classes_))

    def _statistics(self, X, codes, weights) -> dict:
        st = getattr(self, "_stats", None)  # absent on the bare copies Dask workers count with
        if st is None:
            covariance, shift = self.covariance, None
        else:
            covariance, shift = st.covariance, (st.shift if st.total_count > 0 else None)
        k = len(self.classes_)
        class_count = count_classes(codes, weights, k)  # every label, complete row or not
        M = self._missing_mask(X)
        if M is not None:
            complete = ~missing_rows(M)
            warnings.warn(
                f"GDA(missing='ignore') fits the class means and covariance on complete rows "
                f"only: {int((~complete).sum())} of {X.shape[0]} row(s) hold NaN and are left "
                "out of them (their labels still count toward the class prior). Exact "
                "conjugate updating with missing coordinates has no closed form for a full "
                "covariance; scoring marginalises missing features exactly.",
                MissingValueWarning,
                stacklevel=4,
            )
            X, codes, weights = X[complete], codes[complete], weights[complete]
        return {
            "gaussian": gaussian_stats(X, codes, weights, k, covariance, shift),
            "class_count": class_count,
        }

    def _merge_statistics(self, stats: dict) -> None:
        self._stats = self._stats.merge(stats["gaussian"])  # Chan–Golub–LeVeque
        self.class_count_ = self.class_count_ + stats.get("class_count", stats["gaussian"].count)

    # -- pipe: posterior and estimates -------------------------------------------------------
    @property
    def prior_(self) -> NormalInverseWishart:
        """The NIW prior in use: ``prior`` with every hyperparameter left at None resolved
        against the training statistics (the data-scaled default).

        Derived once per statistics and ``prior`` value; a loaded model keeps the value its
        file stores, so it predicts as the saved one on any machine, and ``partial_fit``
        resolves it again from the grown statistics, as the original would.
        """
        resolve = NormalInverseWishartPosterior.from_stats
        return self._learned_value("prior_", lambda: resolve(self.prior, self._stats).prior)

    @prior_.setter
    def prior_(self, value: NormalInverseWishart) -> None:
        self._store_learned("prior_", value)

    def _learned_key(self, name: str) -> tuple:
        if name == "prior_":
            # The prior object itself (compared by identity, kept alive by the key): its
            # fields may be arrays, which a parameter repr would truncate.
            return (name, self.prior)
        return super()._learned_key(name)

    @property
    def posterior_(self) -> NormalInverseWishartPosterior:
        """The NIW posterior: :attr:`prior_` plus the statistics."""
        check_fitted(self)
        return NormalInverseWishartPosterior(self.prior_, self._stats, self.classes_)

    @property
    def _fitted(self):
        """The point estimate (or, for ``"bayes"``, the Student-t predictive), factorised."""
        return self._cached("estimate", self._compute_fitted)

    def _compute_fitted(self):
        post = self.posterior_
        if self.estimate == "bayes":
            return post.predictive()
        return post.point_estimate(self.estimate)

    @property
    def means_(self) -> np.ndarray:
        """Class means of the chosen estimate, shape (n_classes, n_features)."""
        fitted = self._fitted
        return fitted.loc if self.estimate == "bayes" else fitted.means

    @property
    def covariance_(self) -> np.ndarray:
        """Covariance of the chosen estimate (the posterior mean of Σ for ``"bayes"``)."""
        if self.estimate == "bayes":
            return self._cached("covariance", self.posterior_.mean_covariance)
        return self._fitted.covariance

    @property
    def _linear(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """Centred linear scores ``(coef, intercept, center, centre_data)`` of the shared model."""
        if self._stats.covariance != "shared" or self.estimate == "bayes":
            raise AttributeError(
                "coef_ and intercept_ exist only for covariance='shared' with estimate 'mle', "
                "'map' or 'mean': only then is the log posterior odds linear in x "
                f"(this model: covariance={self._stats.covariance!r}, "
                f"estimate={self.estimate!r})"
            )
        return self._cached("linear", self._compute_linear)

    def _compute_linear(self):
        est = self._fitted
        ok = est.valid
        center = est.means[ok].mean(axis=0)
        coef, intercept = linear_coefficients(est.means, est.factor, center)
        centre_data = needs_centering(center, np.diagonal(est.covariance))
        return coef, intercept, center, centre_data

    @property
    def _textbook_linear(self) -> tuple[np.ndarray, np.ndarray]:
        """(θ_c, −½ μ_cᵀΣ⁻¹μ_c): the uncentred coefficients, class prior excluded."""
        self._linear  # noqa: B018 - raises AttributeError when the model is not linear
        est = self._fitted
        return self._cached("textbook", lambda: linear_coefficients(est.means, est.factor))

    @property
    def coef_(self) -> np.ndarray:
        """θ_c = Σ⁻¹μ_c, shape (n_classes, n_features) (shared covariance only)."""
        return self._textbook_linear[0]

    @property
    def intercept_(self) -> np.ndarray:
        """θ_c0 = −½ μ_cᵀΣ⁻¹μ_c + log φ_c, shape (n_classes,) (shared covariance only)."""
        return self._textbook_linear[1] + self.class_log_prior_

    # -- pipe: scoring -----------------------------------------------------------------------
    def _log_likelihood(self, X) -> np.ndarray:
        M = self._missing_mask(X)
        if M is not None:
            return self._by_pattern(X, M, self._complete_log_likelihood)
        return self._complete_log_likelihood(X)

    def _missing_mask(self, X):
        """Indicator of the NaN cells (None under ``missing="error"`` or without NaN)."""
        return missing_mask(X) if self._missing == "ignore" else None

    def _by_pattern(self, X, M, complete_rows) -> np.ndarray:
        """Score complete rows with ``complete_rows``, the others by their observed marginal.

        Rows are grouped by missingness pattern: each pattern needs one sub-block Cholesky
        factor (per class), whatever its number of rows. A row with nothing observed scores
        0 for every class (the class prior decides).
        """
        out = np.empty((X.shape[0], len(self.classes_)))
        full = ~missing_rows(M)
        if full.any():
            out[full] = complete_rows(X[full])
        for rows, observed in missing_patterns(M):
            if observed.size == 0:
                out[rows] = 0.0
            else:
                out[rows] = self._marginal_log_likelihood(X[np.ix_(rows, observed)], observed)
        return out

    def _marginal_log_likelihood(self, X_obs: np.ndarray, observed: np.ndarray) -> np.ndarray:
        """log density of the observed coordinates ``observed`` under every class.

        A Gaussian's marginal is the Gaussian with the sub-vector of the mean and the
        principal sub-block of the covariance; a multivariate Student-t's marginal is the
        Student-t with the same degrees of freedom and the sub-block of the scale.
        """
        fitted = self._fitted
        diagonal = self._stats.covariance == "diagonal"
        if self.estimate == "bayes":
            psi = (
                fitted.psi_factor[:, observed]
                if diagonal
                else marginal_factor(fitted.psi_factor, observed)
            )
            return student_t_jll(
                X_obs, fitted.loc[:, observed], psi, fitted.kappa, fitted.dof, diagonal=diagonal
            )
        factor = (
            fitted.factor[:, observed] if diagonal else marginal_factor(fitted.factor, observed)
        )
        return gaussian_jll(
            X_obs, fitted.means[:, observed], factor, fitted.valid, diagonal=diagonal
        )

    def _complete_log_likelihood(self, X) -> np.ndarray:
        fitted = self._fitted
        diagonal = self._stats.covariance == "diagonal"
        if self.estimate == "bayes":
            return student_t_jll(
                X, fitted.loc, fitted.psi_factor, fitted.kappa, fitted.dof, diagonal=diagonal
            )
        return gaussian_jll(X, fitted.means, fitted.factor, fitted.valid, diagonal=diagonal)

    def _relative_log_likelihood(self, X) -> np.ndarray:
        """Per-class log-likelihood up to a term common to all classes (enough to normalise)."""
        if self._stats.covariance == "shared" and self.estimate != "bayes":
            M = self._missing_mask(X)
            if M is not None:  # the terms common to all classes differ by pattern: per row
                return self._by_pattern(X, M, self._linear_log_likelihood)
            return self._linear_log_likelihood(X)
        return self._log_likelihood(X)

    def _linear_log_likelihood(self, X) -> np.ndarray:
        coef, intercept, center, centre_data = self._linear
        return linear_jll(X, coef, intercept, center, centre_data)

    def _relative_joint(self, X) -> np.ndarray:
        """See :meth:`GenerativeClassifier._relative_joint`: the shared model (``"mle"``,
        ``"map"``, ``"mean"``) is scored through its linear form, the quadratic term
        ``xᵀΣ⁻¹x`` being common to all classes."""
        check_fitted(self)
        if self._missing != "ignore" and self._finite_on_scores:
            # The linear scores check X for NaN and infinity in passing: such a value makes
            # its row's score non-finite (every coefficient is finite and nonzero, and IEEE
            # products and sums propagate it), so X is scanned, to refuse it and name the
            # cells, only when a score is not finite: one pass over X instead of two.
            X = check_X(self, X, reset=False, allow_sparse=False, finite=False)
            with np.errstate(invalid="ignore"):  # inf · w or inf − inf from a bad X
                scores = self._linear_log_likelihood(X)
            if not np.isfinite(scores).all():
                check_finite(self, X, self._missing)  # raises, naming the cells
                # X is finite (the product overflowed): score again, with NumPy's warnings.
                scores = self._linear_log_likelihood(X)
            return scores + self.class_log_prior_
        X = self._check_input(X, reset=False)
        return self._relative_log_likelihood(X) + self.class_log_prior_

    @property
    def _finite_on_scores(self) -> bool:
        """Whether the linear scores can stand in for the finiteness scan of X (see above)."""
        if self._stats.covariance != "shared" or self.estimate == "bayes":
            return False
        coef, intercept = self._linear[:2]
        return self._cached(
            "finite_on_scores", lambda: linear_scores_flag_nonfinite(coef, intercept)
        )

    def _proba(self, X) -> np.ndarray:
        """predict_proba of in-memory X: the softmax of :meth:`_relative_joint`."""
        joint = tempered(self._relative_joint(X), self.class_log_prior_, self._temperature())
        top = joint.max(axis=1, keepdims=True)
        if not np.all(np.isfinite(top)):
            return np.exp(normalize_log_proba(joint, self.class_log_prior_))
        # The softmax itself (one exp, no log): the hot path of the shared model.
        p = np.exp(joint - top)
        p /= p.sum(axis=1, keepdims=True)
        return p
