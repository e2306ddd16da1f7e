"""Dirichlet-compound-multinomial (DCM) naive Bayes: a class model that knows about burstiness.

Madsen, Kauchak & Elkan (2005), "Modeling word burstiness using the Dirichlet distribution".
The multinomial model draws every token of every document of class c from one θ_c, so once a
word has appeared its next appearance is no likelier than the first: it underestimates how
often a word repeats within a document ("burstiness") and, in turn, overestimates how many
distinct words a document holds. The DCM gives every document its own word distribution,
θ_d ~ Dirichlet(β_c), x_d | θ_d ~ Multinomial(n_d, θ_d); integrating θ_d out gives the Pólya
likelihood (:mod:`bayesnb.posterior.polya`), in which a word seen once is more likely to be
seen again (the Pólya urn). Small B_c = Σ_j β_cj means bursty documents, B_c → ∞ the
multinomial model with θ_c = β_c / B_c.

``X, y -> validation -> stats.histograms (+ stats.lengths) -> posterior.polya -> scoring``.
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from bayesnb._base import GenerativeClassifier
from bayesnb.posterior.polya import (
    FixedPointResult,
    LaplacePosterior,
    PolyaStats,
    laplace_posterior,
    length_triplets,
    polya_newton,
)
from bayesnb.scoring import dcm_jll
from bayesnb.stats.discrete import count_classes
from bayesnb.stats.histograms import (
    add_value_counts,
    count_values,
    empty_value_counts,
    value_triplets,
)
from bayesnb.stats.lengths import add_length_counts, count_lengths, empty_length_counts
from bayesnb.stats.missing import missing_rows
from bayesnb.validation import MissingValueWarning, check_int, check_X, check_X_y

__all__ = ["DCM_ESTIMATES", "DirichletCompoundNB"]

#: The estimates the DCM computes ("bayes" has no closed form and is refused).
DCM_ESTIMATES = ("mle", "map", "mean")


def _bayes_refused() -> ValueError:
    return ValueError(
        "estimate='bayes' is not available for DirichletCompoundNB: the Gamma prior on the "
        "Dirichlet concentrations β is not conjugate to the Pólya likelihood, so the "
        "posterior predictive ∫ Pólya(x | β) p(β | data) dβ has no closed form. Use "
        "estimate='map' (the posterior mode), 'mean' (the Laplace-approximate posterior mean "
        "of β) or 'mle', or sample the posterior with NUTS: est.fit_pymc(X, y)."
    )


class DirichletCompoundNB(GenerativeClassifier):
    """Naive Bayes with the Dirichlet-compound-multinomial (Pólya) class model.

    Every document draws its own word distribution θ_d ~ Dirichlet(β_c) and its counts
    x_d ~ Multinomial(n_d, θ_d) (Madsen, Kauchak & Elkan 2005); the class likelihood is the
    Pólya distribution, ``ln Γ(B_c) − ln Γ(B_c + n) + Σ_{j: x_j>0} [ln Γ(β_cj + x_j) −
    ln Γ(β_cj)]`` (documents as token sequences, as MultinomialNB's ``"bayes"``; the
    multinomial coefficient is the same for every class and left out). Each concentration
    has an independent prior ``β_cj ~ Gamma(prior_shape, prior_rate)`` (shape, rate).

    Parameters
    ----------
    prior_shape, prior_rate : float, default 1.1 and 1.0
        The Gamma prior of every β_cj. ``prior_shape − 1`` acts as a pseudo-count of
        documents holding each word: the MAP of a word never seen in a class is
        ``(prior_shape − 1) / (Σ_d [ψ(n_d + B) − ψ(B)] + prior_rate)``, its smoothing. The
        rate keeps β finite for data that are not overdispersed (where the likelihood grows
        towards the multinomial limit B → ∞). The default is the same for every vocabulary
        size and every estimate: a measured grid (``docs/experiments/dcm_prior.py``; see
        ``estimate="mean"``) found no vocabulary-aware prior that brings "mean" close to "map"
        without lowering "map": the gap is the shape's, not the vocabulary's.
    class_alpha : float or "evidence", default 1.0
        Dirichlet concentration of the class prior (as in MultinomialNB).
    estimate : {"mle", "map", "mean"}, default "map"
        How the fitted β_c score documents. The prior is not conjugate, so:

        - ``"mle"``: maximum likelihood, by Newton's method in ln β on the sufficient
          statistics (the histograms of per-document counts and lengths): the Hessian of the
          Pólya log-likelihood is diagonal plus rank one, so a step costs O(cells) per class
          (Sherman–Morrison), and cells with the same histogram are iterated once (on text:
          O(distinct cells), not O(V)); where a step would not increase the likelihood,
          Minka's fixed point
          ``β_j ← β_j Σ_d [ψ(x_dj + β_j) − ψ(β_j)] / Σ_d [ψ(n_d + B) − ψ(B)]`` is taken instead
          (:func:`bayesnb.posterior.polya.polya_newton`). A word never seen in a class gets
          β = 0 (probability 0, like the multinomial MLE).
        - ``"map"``: the posterior mode under the Gamma prior, the same iteration on the log
          posterior (the fixed point with ``prior_shape − 1`` added to its numerator and
          ``prior_rate`` to its denominator; needs ``prior_shape >= 1``). Exact (up to
          ``tol``).
        - ``"mean"``: the posterior mean of β under a **Laplace approximation** of the
          posterior of ln β (Gaussian at the mode of ln β, Hessian of the Pólya
          log-likelihood diagonal plus rank one): ``E[β] = exp(û + s²/2)``, the mean of the
          draws of :meth:`sample_posterior`. Approximate. On text it scores well below
          ``"map"``; the gap is the prior's shape, not the vocabulary size (measured:
          ``docs/experiments/dcm_prior.py``, conclusion in ``docs/design.md``): a word seen in
          no document of a class gets ``a / (b + den)`` in the mean against the MAP's
          ``(a − 1) / (b + den)``, 11x at a = 1.1, so "mean" at shape a scores like "map"
          at shape a + 1, whatever the rate (measured on fortunes: "mean" 45.9 % against
          "map" 59.9 % at the default; scaling the rate with V moves it by at most a point).
          The default stays one prior for every estimate (a ``"map"`` needs a ≥ 1).
        - ``"bayes"`` (the posterior predictive, β integrated out) has no closed form for
          this non-conjugate model and is refused with a ValueError; sample the posterior
          with :meth:`fit_pymc` (NUTS) instead.
    fit_prior : bool, default True
    class_prior : array-like of shape (n_classes,), optional
        As in MultinomialNB.
    tol : float, default 1e-6
        The Newton iteration stops when no β changes by more than ``tol`` relative in a
        Newton step (convergence is then quadratic: the gradient is zero to far below tol).
    max_iter : int, default 1000
        Iteration cap; reaching it issues a ``ConvergenceWarning``.
    missing : {"error", "ignore"}, default "error"
        What a NaN in X (a missing count; sparse matrices may store NaN explicitly) does.
        ``"error"`` raises a ValueError naming the rows and columns. ``"ignore"``
        marginalises missing counts out of the scores exactly: by the aggregation property
        of the Dirichlet, the observed counts of a document given their number are Pólya
        with the observed concentrations, so a document is scored with
        ``B_obs = Σ_{j observed} β_cj`` in place of B_c and its observed length. In
        training the concentrations are fitted on the **complete documents only** (with a
        ``MissingValueWarning``), while ``class_count_`` counts every labelled document.
        The exact fit would need the Pólya likelihood with a per-document B_obs: cheap for
        the fixed point (documents grouped by missingness pattern), but the Laplace
        approximation behind ``"mean"``, :meth:`log_evidence` and the posterior draws would
        lose its diagonal-plus-rank-one Hessian (one rank-one term per pattern), so all of
        them are fitted on the same complete documents instead.
    temperature : float or "loo", default 1.0
        The likelihood temperature τ of ``predict_proba`` / ``predict_log_proba``:
        p(c | x) ∝ p(c) · p(x | c)^τ (a power on the document likelihood at scoring time, not
        a change of the posterior; ``predict`` is unchanged). ``"loo"`` learns it by exact
        leave-one-out (``temperature_``), jointly with ``alpha="loo"``.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, n_features_in_, feature_names_in_
        As in scikit-learn.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Token totals T_cj (not sufficient for the DCM; kept to start the iteration and to
        compare with MultinomialNB).
    value_count_ : csr_matrix of shape (n_classes · n_features, max_count + 1)
        The sufficient statistic: ``[c·V + j, v]`` = weight of the class-c documents with
        ``x_j == v`` (:mod:`bayesnb.stats.histograms`).
    length_count_ : csr_matrix of shape (n_classes, max_length + 1)
        Per-class document-length histogram (the other sufficient statistic; also used by
        :meth:`sample`).
    concentration_ : ndarray of shape (n_classes, n_features)
        β_c under ``estimate``.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ln(β_cj / B_c): the expected word distribution of a class, comparable with
        MultinomialNB's θ_c.
    laplace_ : LaplacePosterior
        The Laplace approximation of the posterior of ln β (``"mean"``, posterior draws,
        :meth:`log_evidence`).
    n_iter_ : int
        Newton iterations of the current estimate.

    Notes
    -----
    Downstream (all approximate where the model is not conjugate, and documented as such):
    :meth:`sample_posterior` and :meth:`label_log_likelihood` draw β from the Laplace
    approximation; :meth:`log_evidence` is the Laplace estimate of the marginal likelihood;
    :meth:`fit_pymc` samples the exact posterior with NUTS (Gamma prior, Pólya likelihood).
    Counts must be non-negative integers (the Pólya distribution is defined on counts).
    """

    _family = "dcm"

    def __init__(
        self,
        prior_shape=1.1,
        prior_rate=1.0,
        class_alpha=1.0,
        estimate="map",
        fit_prior=True,
        class_prior=None,
        tol=1e-6,
        max_iter=1000,
        missing="error",
        temperature=1.0,
    ):
        self.prior_shape = prior_shape
        self.prior_rate = prior_rate
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.tol = tol
        self.max_iter = max_iter
        self.missing = missing
        self.temperature = temperature

    # -- validation ---------------------------------------------------------------------------
    def _check_input(self, X, y=None, *, reset):
        kw = dict(reset=reset, nonnegative=True, integer=True, missing=self._missing)
        try:
            if y is None:
                return check_X(self, X, **kw)
            return check_X_y(self, X, y, **kw)
        except ValueError as exc:
            if "Non-integer values" in str(exc):
                raise ValueError(
                    f"Non-integer values in data passed to {type(self).__name__}: X must hold "
                    "token counts 0, 1, 2, ... (the Pólya likelihood is defined on counts; "
                    "tf-idf or other weighted values are not supported)"
                ) from None
            raise

    def _check_params(self) -> None:
        if self.estimate == "bayes":
            raise _bayes_refused()
        super()._check_params()
        _check_prior(self.prior_shape, self.prior_rate, self.estimate)
        if not isinstance(self.tol, Real) or isinstance(self.tol, bool) or not self.tol > 0:
            raise ValueError(f"tol must be a positive number, got {self.tol!r}")
        check_int(self.max_iter, "max_iter")

    # -- statistics ---------------------------------------------------------------------------
    def _reset_counts(self, n_features: int) -> None:
        self._end_warm_start()
        k = len(self.classes_)
        self.class_count_ = np.zeros(k)
        self.feature_count_ = np.zeros((k, n_features))
        self.value_count_ = empty_value_counts(k, n_features)
        self.length_count_ = empty_length_counts(k)

    def _statistics(self, X, codes, weights) -> dict:
        k = len(self.classes_)
        class_count = count_classes(codes, weights, k)  # every labelled document
        X, M = self._split_missing(X)
        if M is not None:
            # The Pólya statistics count the complete documents only (see ``missing``): an
            # incomplete document gets weight 0, which every histogram drops.
            incomplete = missing_rows(M)
            warnings.warn(
                f"DirichletCompoundNB(missing='ignore') fits the concentrations on the "
                f"complete documents only: {int(incomplete.sum())} of {X.shape[0]} row(s) "
                "hold a missing count and enter the class prior only (the exact Pólya fit "
                "with per-document B_obs is not implemented; scoring marginalises missing "
                "counts exactly)",
                MissingValueWarning,
                stacklevel=4,
            )
            weights = np.where(incomplete, 0.0, weights)
        values = count_values(X, codes, weights, k)
        return {
            "class_count": class_count,
            # T_cj = Σ_v v · h[c·V + j, v]: from the histogram, not another pass over X.
            "feature_count": (values @ np.arange(values.shape[1], dtype=np.float64)).reshape(
                k, X.shape[1]
            ),
            "value_count": values,
            "length_count": count_lengths(X, codes, weights, k),
        }

    def _merge_statistics(self, stats: dict) -> None:
        self._end_warm_start()
        self.class_count_ += stats["class_count"]
        self.feature_count_ += stats["feature_count"]
        self.value_count_ = add_value_counts(self.value_count_, stats["value_count"])
        self.length_count_ = add_length_counts(self.length_count_, stats["length_count"])

    def _statistics_changed(self, documents=None) -> None:
        super()._statistics_changed(documents)
        # The iteration is the fit: run it now, so a ConvergenceWarning surfaces at fit.
        self.concentration_  # noqa: B018

    @property
    def polya_stats_(self) -> PolyaStats:
        """The value and length histograms as flat arrays for :mod:`bayesnb.posterior.polya`."""
        return self._cached("polya_stats", self._compute_polya_stats)

    def _compute_polya_stats(self) -> PolyaStats:
        k, v = len(self.classes_), self.n_features_in_
        return PolyaStats(
            value_triplets(self.value_count_, v), length_triplets(self.length_count_), k, v
        )

    # -- warm start (cross-validation) --------------------------------------------------------
    # Every optimum is kept in ``_solutions`` (key: what was maximised). Only
    # :meth:`_begin_warm_start` (the family's ``subtract``) makes the next optimisation start
    # from them; ``fit`` and ``partial_fit`` always start cold, so their numbers do not
    # depend on what the estimator held before. Only a proper prior (rate > 0) is warm-started:
    # its objective → −∞ as β → ∞, so the maximum is interior and any start reaches it. The
    # MLE of data that are not overdispersed has its supremum at B → ∞ (the multinomial
    # limit): the iteration stops where its steps become small, a point that depends on the
    # start, so only the refit's own (cold) start gives the refit's numbers.
    def _begin_warm_start(self) -> None:
        """Start the next optimisations from the optima found on the current statistics."""
        self._warm_start = dict(self.__dict__.get("_solutions", {}))

    def _end_warm_start(self) -> None:
        self.__dict__.pop("_warm_start", None)
        self.__dict__.pop("_solutions", None)

    def _optimise(self, key: tuple, run):
        """``run(start)`` with the warm start of ``key = (what, shape_extra, rate)`` (None
        when there is none or the rate is 0); the optimum is kept."""
        fp = run(self.__dict__.get("_warm_start", {}).get(key) if key[2] > 0 else None)
        self.__dict__.setdefault("_solutions", {})[key] = fp.beta
        return fp

    # -- estimates ----------------------------------------------------------------------------
    def _fixed_point(self, estimate: str) -> FixedPointResult:
        extra = {"mle": 0.0, "map": float(self.prior_shape) - 1.0}[estimate]
        rate = 0.0 if estimate == "mle" else float(self.prior_rate)
        fp = self._optimise(
            (estimate, extra, rate),
            lambda start: polya_newton(
                self.polya_stats_,
                self.feature_count_,
                shape_extra=extra,
                rate=rate,
                tol=float(self.tol),
                max_iter=int(self.max_iter),
                start=start,
            ),
        )
        _warn_unconverged(fp, f"estimate={estimate!r}", self.max_iter)
        return fp

    def _compute_laplace(self) -> tuple[LaplacePosterior, FixedPointResult]:
        self._check_params()  # parameters set after fit are checked at first use, as at fit
        shape, rate = float(self.prior_shape), float(self.prior_rate)
        lap = None

        def run(start):
            nonlocal lap
            lap, fp = laplace_posterior(
                self.polya_stats_,
                self.feature_count_,
                shape,
                rate,
                tol=float(self.tol),
                max_iter=int(self.max_iter),
                start=start,
            )
            return fp

        fp = self._optimise(("laplace", shape, rate), run)
        _warn_unconverged(fp, "the Laplace approximation", self.max_iter)
        return lap, fp

    @property
    def laplace_(self) -> LaplacePosterior:
        """Laplace approximation of the posterior of ln β (mode of ln β, diag + rank-1 cov)."""
        return self._cached("laplace", self._compute_laplace)[0]

    def _compute_concentration(self) -> tuple[np.ndarray, int]:
        self._check_params()  # parameters set after fit are checked at first use, as at fit
        if self.estimate == "mean":
            lap, fp = self._cached("laplace", self._compute_laplace)
            return lap.mean(), fp.n_iter
        fp = self._fixed_point(self.estimate)
        return fp.beta, fp.n_iter

    @property
    def concentration_(self) -> np.ndarray:
        """β_c of the chosen estimate, shape (n_classes, n_features)."""
        return self._cached("concentration", self._compute_concentration)[0]

    @concentration_.setter
    def concentration_(self, value) -> None:
        # A saved β (bayesnb.io): the loaded model predicts with it, not with a new
        # optimisation whose last bits could differ on another machine or bayesnb version.
        beta = np.asarray(value, dtype=np.float64)
        if beta.shape != (len(self.classes_), self.n_features_in_) or not (
            np.all(np.isfinite(beta)) and np.all(beta >= 0)
        ):
            raise ValueError(
                f"concentration_ must be finite and >= 0 of shape ({len(self.classes_)}, "
                f"{self.n_features_in_}), got shape {beta.shape}"
            )
        self._store_cached("concentration", (beta, 0))

    @property
    def n_iter_(self) -> int:
        """Newton iterations behind ``concentration_`` (0 for one set by hand or loaded)."""
        return self._cached("concentration", self._compute_concentration)[1]

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """ln(β_cj / B_c), shape (n_classes, n_features); −inf where β_cj = 0."""
        beta = self.concentration_
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.log(beta) - np.log(beta.sum(axis=1, keepdims=True))
        return np.where(np.isnan(out), -np.inf, out)

    def _log_likelihood(self, X) -> np.ndarray:
        X, M = self._split_missing(X)
        return dcm_jll(X, self.concentration_, missing=M)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True
        return tags


def _check_prior(shape, rate, estimate: str) -> None:
    for name, value in (("prior_shape", shape), ("prior_rate", rate)):
        if not isinstance(value, Real) or isinstance(value, bool):
            raise TypeError(f"{name} must be a number > 0, got {value!r}")
        if not (np.isfinite(value) and value > 0):
            raise ValueError(
                f"{name} must be a finite number > 0 (a proper Gamma prior on every "
                f"concentration β_cj), got {value!r}"
            )
    if estimate == "map" and shape < 1:
        raise ValueError(
            f"estimate='map' needs prior_shape >= 1, got {shape!r}: with a Gamma shape < 1 the "
            "prior density is infinite at β = 0 and the posterior has no interior mode. Use "
            "estimate='mean' or a shape >= 1."
        )


def _warn_unconverged(fp: FixedPointResult, what: str, max_iter) -> None:
    if not fp.converged:
        warnings.warn(
            f"DirichletCompoundNB: the Newton iteration for {what} did not converge in "
            f"max_iter={max_iter} iterations (largest relative change {fp.max_change:.2g}); "
            "raise max_iter or tol; slow convergence means the scale B_c is poorly determined "
            "(for estimate='mle', data that are not overdispersed push B_c towards infinity, "
            "the multinomial limit; a prior with a larger prior_rate keeps it finite)",
            ConvergenceWarning,
            stacklevel=5,
        )
