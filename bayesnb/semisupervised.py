"""Unlabelled documents through EM: the MAP (or MLE) of a conjugate model of labelled and
unlabelled documents, with the unlabelled ones weighted by λ (Nigam et al. 2000, EM-λ).

A generative classifier gives an unlabelled document a likelihood, p(x) = Σ_c p(c) p(x | c),
so the observed-data log posterior::

    L(θ) = log p(θ) + Σ_{labelled i} w_i log p(x_i, y_i | θ) + λ Σ_{unlabelled i} w_i log p(x_i | θ)

can be maximised by EM: the E-step gives each unlabelled document its responsibilities
r_ic = p(c | x_i, θ) (``predict_proba`` under the current point estimate, temperature 1), the
M-step refits from the labelled statistics plus the soft statistics of the unlabelled
documents (``Family.soft_counter``, each row counted r_ic · λ · w_i in class c), which is
the exact maximiser of the expected complete-data log posterior because the estimates
``"map"`` and ``"mle"`` of a conjugate family are closed forms (or, for the DCM, a converged
Newton iteration) of those statistics. L never decreases. log p(θ) is the normalised prior
density at the point (``Family.feature_log_prior_density`` plus the Dirichlet class prior),
0 under ``"mle"`` (its flat prior).

``inference="vb"`` integrates θ out instead (mean-field variational Bayes,
:mod:`bayesnb.variational`): the fitted estimator then holds the variational posterior q(θ)
and ``elbo_`` the evidence lower bound. ``unlabelled_weight="cv"`` chooses λ (and α) by
cross-validation of the whole procedure over the labelled documents, the unlabelled pool in
every fold (:mod:`bayesnb.semisupervised_loo`).
"""

from __future__ import annotations

import copy
import numbers
import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples, column_or_1d

from bayesnb._dask import is_dask
from bayesnb.evidence import log_evidence
from bayesnb.families import family_of
from bayesnb.posterior.prior_density import dirichlet_log_density
from bayesnb.semisupervised_loo import RULES, check_weight, choose_weight
from bayesnb.validation import check_fitted, check_int, check_sample_weight, encode_labels
from bayesnb.variational import label_entropy, label_log_posterior

__all__ = ["SemiSupervisedNB", "log_posterior", "log_prior_density", "unlabelled_mask"]

_ESTIMATES = ("map", "mle")
_INFERENCES = ("em", "vb")


def unlabelled_mask(y) -> np.ndarray:
    """Which rows of ``y`` are unlabelled: ``-1`` for numeric labels (scikit-learn's
    semi-supervised convention), ``""`` or ``None`` for string and object labels (and a
    missing value, NaN or pandas' NA, which a string Series makes of ``None``).

    Parameters
    ----------
    y : array-like of shape (n_samples,)

    Returns
    -------
    ndarray of bool, shape (n_samples,)
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {y.shape}")
    kind = y.dtype.kind
    if kind in "iuf":
        return y == -1
    if kind in "US":
        return y == y.dtype.type()
    if kind == "O":
        import pandas as pd

        # None, "" or a missing value (NaN, pandas' NA: a string Series' None reads as one).
        return np.fromiter(
            (v is None or v == "" or (pd.api.types.is_scalar(v) and pd.isna(v)) for v in y),
            bool,
            y.size,
        )
    if kind == "b":
        return np.zeros(y.shape, dtype=bool)
    if kind == "c":
        raise ValueError("Complex data not supported: labels of a complex dtype")
    raise ValueError(f"labels of dtype {y.dtype} cannot mark unlabelled rows (-1, '' or None)")


def _rows_indexable(X):
    """X as something rows can be taken from: CSR for any sparse format, an array for a list."""
    if sp.issparse(X):
        return X.tocsr()
    return X if hasattr(X, "shape") else np.asarray(X)


def _class_log_prior_density(est) -> float:
    """log Dirichlet(π | γ) at the class prior in use (0: fixed π, or the MLE's flat prior)."""
    if est.class_prior is not None or not est.fit_prior or est._class_estimate() == "mle":
        return 0.0
    return dirichlet_log_density(est.class_alpha_, est.class_log_prior_[None, :])


def log_prior_density(est) -> float:
    """log p(θ) of fitted ``est`` at its point estimate: the class prior's Dirichlet density
    plus :meth:`~bayesnb.families.Family.feature_log_prior_density` (0 under ``"mle"``)."""
    features = 0.0
    if est.estimate != "mle":
        features = family_of(est).feature_log_prior_density(est)
    return _class_log_prior_density(est) + features


def _joint(est, Xv) -> np.ndarray:
    """log p(x, c | θ) of validated rows at the current point estimate (temperature 1)."""
    return est._log_likelihood(Xv) + est.class_log_prior_


def _dot(w: np.ndarray, values: np.ndarray) -> float:
    """Σ w_i v_i over the rows of positive weight (a weight-0 row scores nothing, even -inf)."""
    keep = w > 0
    return float(np.dot(w[keep], values[keep]))


def log_posterior(est, X_labelled, y_labelled, X_unlabelled, weight=1.0, sample_weight=None):
    """The observed-data log posterior L(θ) of fitted ``est`` (the quantity EM increases).

    Parameters
    ----------
    est : fitted bayesnb estimator, ``estimate`` "map" or "mle"
    X_labelled, y_labelled : the labelled documents
    X_unlabelled : the unlabelled documents (may have 0 rows)
    weight : float
        λ, the weight of the unlabelled documents.
    sample_weight : tuple of two arrays, optional
        The row weights of the labelled and of the unlabelled documents.

    Returns
    -------
    float
    """
    wl, wu = (None, None) if sample_weight is None else sample_weight
    Xl = est._check_input(X_labelled, reset=False)
    _, codes = encode_labels(np.asarray(y_labelled), est.classes_)
    wl = check_sample_weight(wl, Xl)
    if _num_samples(X_unlabelled) == 0:
        evidence, wu = np.zeros(0), np.zeros(0)
    else:
        Xu = est._check_input(X_unlabelled, reset=False)
        evidence = logsumexp(_joint(est, Xu), axis=1)
        wu = weight * check_sample_weight(wu, Xu)
    return _log_posterior(est, Xl, codes, wl, evidence, wu)


def _log_posterior(est, Xl, codes, wl, evidence_u, wu) -> float:
    labelled = _joint(est, Xl)[np.arange(codes.shape[0]), codes]
    return _dot(wl, labelled) + _dot(wu, evidence_u) + log_prior_density(est)


class _Run:
    """The documents of one run on fitted ``est``, validated once, and the labelled
    statistics (counted once); ``unlabelled`` is ``(X, λ, sample_weight)``, or None (no
    iteration: the supervised fit)."""

    def __init__(self, est, labelled, unlabelled) -> None:
        Xl, yl, wl = labelled
        self.est = est
        self.Xl = est._check_input(Xl, reset=False)
        _, self.codes = encode_labels(yl, est.classes_)
        self.wl = check_sample_weight(wl, self.Xl)
        self.supervised = unlabelled is None
        if self.supervised:
            self.Xu, self.wu = None, np.zeros(0)
        else:
            Xu, lam, wu = unlabelled
            self.Xu = est._check_input(Xu, reset=False)
            self.wu = lam * check_sample_weight(wu, self.Xu)
            self.labelled_stats = est._statistics(self.Xl, self.codes, self.wl)
            self.count_soft = family_of(est).soft_counter(est, self.Xu)

    def _refit(self, resp: np.ndarray) -> None:
        """The fit on the labelled statistics plus the unlabelled rows' soft statistics,
        row i counted ``resp[i, c]`` (responsibility × λ × weight) in class c."""
        soft = self.count_soft(resp)
        self.est._fit_arrays(self.Xl, self.codes, self.wl, statistics=[self.labelled_stats, *soft])


class _EM(_Run):
    """One EM run: the joint of the unlabelled documents under the current estimate and the
    observed-data log posterior ``value``."""

    def __init__(self, est, labelled, unlabelled) -> None:
        super().__init__(est, labelled, unlabelled)
        self.evidence = np.zeros(0)
        if not self.supervised:
            self._score()
        self.value = self._value()

    def _score(self) -> None:
        """The E-step's half under the current estimate: responsibilities and log p(x)."""
        self.resp, self.evidence = self.est._proba_and_evidence(self.Xu)

    def _value(self) -> float:
        return _log_posterior(self.est, self.Xl, self.codes, self.wl, self.evidence, self.wu)

    def step(self) -> float:
        """One M-step from the current responsibilities, then the E-step's scores under the
        new estimate; the observed-data log posterior there."""
        self.resp *= self.wu[:, None]
        self._refit(self.resp)
        self._score()
        self.value = self._value()
        return self.value


class _VB(_Run):
    """One mean-field run from the labelled-only posterior, with the ELBO ``value`` after the
    last update: the supervised log evidence when there is no update; otherwise the first
    (q(z) under the labelled-only posterior, then q(θ)) is made here, so ``value`` is
    already an ELBO of every document."""

    def __init__(self, est, labelled, unlabelled) -> None:
        super().__init__(est, labelled, unlabelled)
        self.value = log_evidence(est) if self.supervised else self.step()

    def step(self) -> float:
        """q(z) under the current q(θ), then q(θ) from the labelled and soft statistics; the
        ELBO there."""
        log_r = label_log_posterior(self.est, self.Xu, validated=True)
        entropy = float(np.dot(self.wu, label_entropy(log_r)))
        self._refit(np.exp(log_r) * self.wu[:, None])
        self.value = log_evidence(self.est) + entropy
        return self.value


class _Fit(NamedTuple):
    """A run at one λ: its state, the objective's history, whether it converged."""

    state: _EM | _VB
    weight: float
    history: list
    converged: bool


class SemiSupervisedNB(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A conjugate bayesnb estimator fitted by EM (or variational Bayes) on labelled and
    unlabelled documents.

    Unlabelled rows of ``y`` are marked by ``-1`` (numeric labels) or by ``""`` / ``None``
    (string and object labels): :func:`unlabelled_mask`. EM starts from the labelled-only
    fit and maximises the observed-data log posterior (the module docstring), the unlabelled
    documents weighted by ``unlabelled_weight`` λ; with λ = 0 or no unlabelled row the result
    is exactly the supervised fit. A prior the wrapped estimator derives from its training
    data (GDA's data-scaled default, CategoricalNB's category counts) is derived from the
    labelled documents once and then held fixed (``Family.fixed_prior_params``), so that the
    objective does not move between iterations.

    ``inference="vb"`` runs mean-field variational Bayes instead (:mod:`bayesnb.variational`):
    q(z) of each unlabelled document from the digamma expectations under q(θ), and q(θ) the
    conjugate posterior of the labelled plus the soft statistics, so ``estimator_`` is an
    ordinary fitted estimator whose posterior is q(θ) (any ``estimate`` scores it). NUTS
    samples the exact posterior of the same model: ``bayesnb.inference.fit_pymc(self, X, y)``.

    Parameters
    ----------
    estimator : bayesnb estimator
        Any conjugate bayesnb estimator with ``estimate="map"`` or ``"mle"`` (ColumnwiseNB:
        every block's; any estimate under ``"vb"``), a fixed ``alpha`` and ``class_alpha``
        and a numeric ``temperature`` (the E-step uses temperature 1 whatever it is; scoring
        keeps it); ``alpha="loo"`` with ``unlabelled_weight="cv"``. ``"vb"`` needs a family
        with ``Family.expected_log_likelihood`` (every family but the DCM; complete rows for
        the multinomial and GDA) and a proper class prior (``class_alpha`` > 0).
    unlabelled_weight : float, "cv" or "loo", default 1.0
        λ ≥ 0, the weight of every unlabelled document relative to a labelled one.
        ``"cv"``: the λ of :data:`bayesnb.semisupervised_loo.WEIGHT_GRID` (0 to 1) whose
        procedure predicts the held-out labelled documents best when EM (or VB) is re-run
        on each fold's other labelled documents plus the whole unlabelled pool
        (:mod:`bayesnb.semisupervised_loo`), and with ``alpha="loo"`` the α maximising that
        score at each λ; needs 2 labelled documents of every class. ``"loo"``: ``"cv"``
        with ``cv="loo"``.
    cv : None, int, "loo" or a scikit-learn splitter, default None
        The folds of the labelled documents for ``unlabelled_weight="cv"``: None is
        stratified K-fold with K = min(5, the smallest class's labelled count), an int K
        ``StratifiedKFold(K)``, ``"loo"`` leave-one-out (K + 1 EM runs per λ: exact LOO of
        the procedure up to EM's tolerance and fixed point). Unused for a numeric λ.
    max_iter : int, default 100
        The most EM iterations (E-step + M-step).
    tol : float, default 1e-8
        EM stops after iteration t when ``L_t - L_(t-1) <= tol * abs(L_t)`` (VB: the ELBO's
        change).
    inference : {"em", "vb"}, default "em"
        EM to the MAP / MLE, or mean-field variational Bayes.

    Attributes
    ----------
    estimator_ : bayesnb estimator
        The fitted estimator (the last M-step's), usable by every bayesnb path
        (``predict_proba``, ``point_estimate``, ``sample_posterior``, ``save``, ...).
    classes_ : ndarray
        The labels of the labelled documents.
    unlabelled_weight_ : float
        λ in use: ``unlabelled_weight``, or the one chosen by ``"cv"``.
    loo_curve_ : dict of ndarray
        Only with ``unlabelled_weight="cv"`` (or ``"loo"``): for every λ tried
        (``"unlabelled_weight"``), ``"elpd_cv"`` (Σ_i log p(y_i | x_i) over the labelled
        documents, each scored by the fit of the fold holding it out), the ``"alpha"`` of
        the full fit (NaN for an estimator without one), its ``"n_iter"``, the folds' mean
        ``"fold_n_iter"`` and ``"converged"``; ``"n_splits"``, the number of folds.
    n_iter_ : int
        Iterations run (0: the supervised fit).
    log_posterior_ : ndarray
        EM: L after every M-step, ``n_iter_ + 1`` values: first the labelled-only fit (the
        M-step with every unlabelled weight 0), then one value per iteration; never
        decreasing.
    elbo_ : ndarray
        VB: the ELBO after every q(θ) update, ``n_iter_ + 1`` values (the first from q(z)
        under the labelled-only posterior; the supervised log evidence when no row is
        unlabelled or λ = 0); never decreasing.
    converged_ : bool
        Whether the stopping rule was met within ``max_iter`` iterations.
    """

    def __init__(
        self, estimator, unlabelled_weight=1.0, max_iter=100, tol=1e-8, inference="em", cv=None
    ):
        self.estimator = estimator
        self.unlabelled_weight = unlabelled_weight
        self.max_iter = max_iter
        self.tol = tol
        self.inference = inference
        self.cv = cv

    # -- checks ------------------------------------------------------------------------------
    def _check_params(self) -> float | str:
        lam = check_weight(self.unlabelled_weight, self.cv)
        choose = lam in RULES
        check_int(self.max_iter, "max_iter")
        tol = self.tol
        if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not tol >= 0:
            raise ValueError(f"tol must be a number >= 0, got {tol!r}")
        if not isinstance(self.inference, str) or self.inference not in _INFERENCES:
            raise ValueError(f"inference must be 'em' or 'vb', got {self.inference!r}")
        est = self.estimator
        family_of(est, "SemiSupervisedNB")
        params = est.get_params(deep=True)
        em = self.inference == "em"
        for key, value in params.items():
            leaf = key.rsplit("__", 1)[-1]
            if leaf == "estimate" and "__" in key and params.get("estimate") is not None:
                continue  # a composite's own estimate overrides its blocks'
            if em and leaf == "estimate" and value is not None and value not in _ESTIMATES:
                raise ValueError(
                    f"SemiSupervisedNB runs EM to the MAP or the MLE: {key}={value!r} is "
                    "refused (use 'map' or 'mle')"
                )
            if choose and key == "alpha" and value == "loo":
                continue  # chosen with λ, each candidate α fixed during its EM run
            if leaf in ("alpha", "class_alpha") and isinstance(value, str):
                raise ValueError(
                    f"SemiSupervisedNB needs a fixed prior: {key}={value!r} learns it from the "
                    "labelled documents, which EM would change at every step; give a number "
                    "(alpha='loo' is learned with unlabelled_weight='cv')"
                )
            if leaf == "temperature" and isinstance(value, str):
                raise ValueError(
                    f"SemiSupervisedNB does not learn a temperature: {key}={value!r} is "
                    "refused (give a number; the E-step uses temperature 1)"
                )
        return lam

    def _split(self, X, y, sample_weight):
        if is_dask(X) or is_dask(y):
            raise ValueError(
                "SemiSupervisedNB holds every document in memory (each EM step rescans the "
                "unlabelled ones): compute the Dask collections first"
            )
        if y is None:
            raise ValueError(
                "SemiSupervisedNB requires y to be passed, but the target y is None "
                "(unlabelled rows are marked -1, '' or None)"
            )
        X = _rows_indexable(X)
        y = column_or_1d(y, warn=True)
        n = _num_samples(X)
        if y.shape != (n,):
            raise ValueError(f"y must have one label per row of X ({n}), got shape {y.shape}")
        unlabelled = unlabelled_mask(y)
        labelled = np.flatnonzero(~unlabelled)
        if labelled.size == 0:
            raise ValueError(
                "SemiSupervisedNB needs labelled rows: every label of y marks an unlabelled "
                "row (-1, '' or None)"
            )
        kinds = np.unique(y[labelled])
        if kinds.size < 2:
            raise ValueError(
                f"SemiSupervisedNB needs labelled rows of at least 2 classes, got 1 class "
                f"({kinds.tolist()})"
            )
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if w is not None and w.shape != (n,):
            raise ValueError(f"sample_weight must have one weight per row ({n}), got {w.shape}")
        rows = np.flatnonzero(unlabelled)
        part = (lambda idx: None) if w is None else (lambda idx: w[idx])
        return (
            (_safe_indexing(X, labelled), y[labelled], part(labelled)),
            (_safe_indexing(X, rows), part(rows)),
        )

    # -- fitting -----------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit by EM from the labelled-only fit.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels; unlabelled rows marked as :func:`unlabelled_mask` says.
        sample_weight : array-like of shape (n_samples,), optional
            Row weights (an unlabelled row weighs λ times its weight).

        Returns
        -------
        self
        """
        lam = self._check_params()
        parts = self._split(X, y, sample_weight)
        vars(self).pop("loo_curve_", None)
        if lam in RULES:
            cv = "loo" if lam == "loo" else self.cv
            fit, self.loo_curve_ = choose_weight(self._run, parts, self.estimator, cv)
        else:
            fit = self._run(parts, lam)
        self.classes_ = fit.state.est.classes_
        self.unlabelled_weight_ = fit.weight
        state, history, converged = fit.state, fit.history, fit.converged
        em = self.inference == "em"
        if not converged:
            change = history[-1] - history[-2] if len(history) > 1 else np.nan
            warnings.warn(
                f"SemiSupervisedNB: {'EM' if em else 'VB'} did not converge in "
                f"max_iter={self.max_iter} iterations (last change of the "
                f"{'log posterior' if em else 'ELBO'} {change:.3g}); raise max_iter or tol",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.estimator_ = state.est
        self.n_features_in_ = state.est.n_features_in_
        if hasattr(state.est, "feature_names_in_"):
            self.feature_names_in_ = state.est.feature_names_in_
        self.n_iter_ = len(history) - 1
        vars(self).pop("elbo_" if em else "log_posterior_", None)
        setattr(self, "log_posterior_" if em else "elbo_", np.asarray(history))
        self.converged_ = converged
        return self

    def _run(self, parts, lam: float, alpha: float | None = None) -> _Fit:
        """EM (or VB) at λ (and ``alpha``, if given) from the labelled-only fit."""
        state = self._begin(parts, lam, alpha)
        history, converged = [state.value], state.supervised
        for _ in range(0 if state.supervised else self.max_iter):
            history.append(state.step())
            if history[-1] - history[-2] <= self.tol * abs(history[-1]):
                converged = True
                break
        return _Fit(state, lam, history, converged)

    def _start(self, X, y, sample_weight) -> _EM | _VB:
        """The labelled-only fit and the EM state that iterates from it (a numeric λ)."""
        return self._begin(self._split(X, y, sample_weight), self._check_params())

    def _begin(self, parts, lam: float, alpha: float | None = None) -> _EM | _VB:
        """The labelled-only fit of the split ``parts`` and the state iterating from it."""
        (Xl, yl, wl), (Xu, wu) = parts
        base = self.estimator if alpha is None else clone(self.estimator).set_params(alpha=alpha)
        est = clone(base).fit(Xl, yl, sample_weight=wl)
        run = _EM if self.inference == "em" else _VB
        if lam == 0 or _num_samples(Xu) == 0:
            return run(est, (Xl, yl, wl), None)
        # Hold what the labelled fit derived from its data (a data-scaled prior) fixed.
        fixed = family_of(est).fixed_prior_params(est)
        if fixed:
            est.set_params(**fixed)
        return run(est, (Xl, yl, wl), (Xu, lam, wu))

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One more EM step with a new batch (the first call is :meth:`fit`).

        The E-step gives the batch's unlabelled rows their responsibilities under the current
        estimate; the M-step adds their soft statistics and the labelled rows' statistics to
        ``estimator_``'s. Earlier documents keep the responsibilities of their last E-step
        (incremental EM, Neal & Hinton 1998), so no document is kept and ``log_posterior_``
        (a value over every document) is not extended. Under ``"vb"`` the batch's rows get
        q(z) under the current q(θ) instead (incremental VB), and ``elbo_`` is not extended.

        Parameters
        ----------
        X, y, sample_weight
            As in :meth:`fit`.
        classes : array-like, optional
            Every label; only checked (the first call's labelled rows must show them all,
            since EM starts from their fit).

        Returns
        -------
        self
        """
        first = not hasattr(self, "estimator_")
        if first:
            self.fit(X, y, sample_weight=sample_weight)
        if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"classes={np.asarray(classes).tolist()} differs from the classes of the "
                f"labelled rows of the first call {self.classes_.tolist()}"
            )
        if not first:
            self._partial_step(_rows_indexable(X), y, sample_weight)
        return self

    def _partial_step(self, X, y, sample_weight) -> None:
        """The incremental EM step of :meth:`partial_fit` on a fitted model (at λ_)."""
        lam = self._check_params()
        if lam in RULES:
            lam = self.unlabelled_weight_
        est = self.estimator_
        y = column_or_1d(y, warn=True)
        unlabelled = unlabelled_mask(y)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        batches = []
        if unlabelled.any() and lam > 0:
            rows = np.flatnonzero(unlabelled)
            Xu = est._check_input(_safe_indexing(X, rows), reset=False)
            wu = lam * check_sample_weight(None if w is None else w[rows], Xu)
            if self.inference == "em":
                resp = est._proba_and_evidence(Xu)[0]
            else:
                resp = np.exp(label_log_posterior(est, Xu, validated=True))
            resp *= wu[:, None]
            batches += family_of(est).soft_counter(est, Xu)(resp)
        if not unlabelled.all():
            rows = np.flatnonzero(~unlabelled)
            Xl = est._check_input(_safe_indexing(X, rows), reset=False)
            _, codes = encode_labels(y[rows], est.classes_)
            wl = check_sample_weight(None if w is None else w[rows], Xl)
            batches.append(est._statistics(Xl, codes, wl))
        for stats in batches:
            est._merge_statistics(stats)
        est._statistics_changed()
        self.n_iter_ += 1

    # -- prediction: the fitted estimator's ----------------------------------------------------
    def predict(self, X) -> np.ndarray:
        """The fitted estimator's :meth:`predict`."""
        check_fitted(self)
        return self.estimator_.predict(X)

    def predict_proba(self, X) -> np.ndarray:
        """The fitted estimator's :meth:`predict_proba`."""
        check_fitted(self)
        return self.estimator_.predict_proba(X)

    def predict_log_proba(self, X) -> np.ndarray:
        """The fitted estimator's :meth:`predict_log_proba`."""
        check_fitted(self)
        return self.estimator_.predict_log_proba(X)

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """The fitted estimator's :meth:`predict_joint_log_proba`."""
        check_fitted(self)
        return self.estimator_.predict_joint_log_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = self.estimator.__sklearn_tags__()
        tags.input_tags = copy.deepcopy(inner.input_tags)
        tags.classifier_tags.poor_score = inner.classifier_tags.poor_score
        return tags
