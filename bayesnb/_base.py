"""The shared skeleton of every bayesnb classifier: fit / partial_fit / predict wiring.

Subclasses say how to validate X, count and score (the hooks below); the class prior, label
encoding, ``partial_fit`` bookkeeping and the normalisation to probabilities live here once.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from bayesnb._dask import dask_predict as _dask_predict
from bayesnb._dask import is_dask as _is_dask
from bayesnb._workflow import BayesianWorkflow
from bayesnb.posterior.discrete import DirichletPosterior
from bayesnb.scoring import normalize_log_proba, normalize_proba
from bayesnb.scoring.temperature import check_temperature, tempered
from bayesnb.validation import (
    check_class_alpha,
    check_class_prior,
    check_classes,
    check_estimate,
    check_feature_names,
    check_fitted,
    check_missing,
    check_sample_weight,
    encode_labels,
)

__all__ = ["GenerativeClassifier"]

_CACHES = ("_tables", "_learned")  # what a fitted model derives (keyed on its parameters)


def _require_y(estimator, y):
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None"
        )
    return y


class GenerativeClassifier(BayesianWorkflow, ClassifierMixin, BaseEstimator):
    """Base class: a class prior Dirichlet(class_alpha) times class-conditional likelihoods.

    Subclasses implement

    - ``_check_input(X, y=None, reset)``: validate X (and y) and return them;
    - ``_reset_counts(n_features)``: start empty statistics for ``len(self.classes_)`` classes;
    - ``_statistics(X, codes, weights) -> dict``: the statistics of a batch, computed without
      changing ``self`` (so Dask workers can run it), and ``_merge_statistics(stats)``: add
      them to the fitted statistics; ``_count`` is the two in turn;
    - ``_log_likelihood(X)``: per-class log-likelihood, shape (n_samples, n_classes), under
      ``self.estimate`` (the class prior excluded); ``_fresh_log_likelihood = True`` beside
      it says it returns a new array every time (``predict_proba`` then writes over it).

    Missing values: a subclass with a ``missing`` parameter (``"error"`` | ``"ignore"``) passes
    ``missing=self._missing`` to validation, which refuses NaN under ``"error"`` and lets it
    through under ``"ignore"``; the hooks then split X with :meth:`_split_missing` (observed
    part and missing-value indicator) and marginalise the missing features out.
    """

    # -- fitting -----------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None, feature_names=None):
        """Fit from scratch on (X, y).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            A Dask array or bag is fitted chunk by chunk by :func:`bayesnb.distributed.fit`.
        y : array-like of shape (n_samples,)
            Class labels of any hashable type.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights; an integer weight equals repeating the row.
        feature_names : array-like of str, optional
            One distinct name per column of X, e.g. ``vectorizer.get_feature_names_out()``:
            stored as ``feature_names_in_`` (as a DataFrame's column names are), so the
            ``feature`` coordinate of every DataTree, :func:`bayesnb.most_informative_features`
            and saved files carry them. Input without column names (a sparse matrix) is then
            expected at predict time; a DataFrame's names must equal them.

        Returns
        -------
        self
        """
        if _is_dask(X):
            from bayesnb.distributed import fit

            fit(self, X, y, sample_weight=sample_weight)
            if feature_names is not None:
                self._set_feature_names(feature_names)
            return self
        X, codes, names = self._fit_input(X, y, feature_names)
        self._fit_arrays(X, codes, check_sample_weight(sample_weight, X))
        if names is not None:
            self._set_feature_names(names)
        return self

    def _fit_input(self, X, y, feature_names=None) -> tuple:
        """``fit``'s validated X, class codes and checked ``feature_names``; sets ``classes_``."""
        self._check_params()
        self.__dict__.pop("_feature_names_given", None)
        X, y = self._check_input(X, _require_y(self, y), reset=True)
        names = self._given_names(feature_names)
        classes, codes = encode_labels(y, None)
        if len(classes) < 2:
            raise ValueError(
                f"y holds one class only ({classes[0]!r}); a classifier needs at least 2 classes"
            )
        self.classes_ = classes
        return X, codes, names

    def _fit_arrays(self, X, codes, weights, statistics=None) -> None:
        """Fit on validated arrays (:meth:`_fit_input`): count them from empty statistics and
        derive the fitted values, the documents passed to those learned from them.

        ``statistics``: those of row batches partitioning X (:meth:`_statistics`), held
        by a caller that counted X by parts: merged in turn instead of counting X again.
        """
        self._reset_counts(X.shape[1])
        if statistics is None:
            self._count(X, codes, weights)
        for i, stats in enumerate(statistics or ()):
            # The first batch's tables may be adopted (then added to): merge a copy.
            self._merge_statistics(copy.deepcopy(stats) if i == 0 else stats)
        self._statistics_changed(documents=(X, codes, weights))

    def _given_names(self, feature_names) -> np.ndarray | None:
        """``feature_names`` checked against the validated X (before anything is counted)."""
        if feature_names is None:
            return None
        names = check_feature_names(feature_names, self.n_features_in_)
        own = getattr(self, "feature_names_in_", None)
        if own is not None and [str(f) for f in own] != names.tolist():
            raise ValueError(
                "feature_names differs from the column names of the DataFrame X "
                f"(first name {names[0]!r}, first column {own[0]!r}); pass one or the other"
            )
        return names

    def _named(self, feature_names):
        """A shallow copy of this fitted model whose columns carry ``feature_names`` (what
        :func:`bayesnb.pipeline.final_estimator` returns; ``self`` is not changed)."""
        view = self._shallow_copy()
        view._set_feature_names(feature_names)
        return view

    def _shallow_copy(self):
        """The same fitted model, copied: statistics arrays shared, caches copies of its own
        (to annotate, e.g. with feature names, without changing ``self``)."""
        view = copy.copy(self)
        view.__dict__.update({k: dict(v) for k, v in vars(self).items() if k in _CACHES})
        return view

    def _replace(self, fitted: dict | None = None, **params):
        """A variant of this fitted model: ``params`` set, the attributes in ``fitted``
        (statistics computed elsewhere, e.g. a fold's downdate) replacing its own.

        The one way code outside the class derives a model from this one; ``self`` is not
        changed, arrays not replaced are shared (read-only). Its derived tables start empty
        (shared where only scoring-time parameters change, ``temperature``);
        its learned hyperparameters (``alpha_``, ``class_alpha_``, ...) are this model's
        unless ``fitted`` is given (then they are learned again, on use).
        """
        if not set(params) <= set(self.get_params(deep=False)):
            raise ValueError(f"{type(self).__name__} lacks a parameter of {sorted(params)}")
        view = copy.copy(self)
        # A change of scoring-time parameters only shares the derived tables (e.g. the DCM's
        # β: what either model derives serves both; they are keyed without those parameters).
        keep = fitted is None and set(params) <= set(self._SCORING_PARAMS)
        tables = self.__dict__.setdefault("_tables", {}) if keep else {}
        view.__dict__.update(params, _tables=tables, _learned=dict(vars(self).get("_learned", {})))
        if fitted is not None:
            view._set_fitted(**fitted)
        return view

    def _set_fitted(self, **fitted) -> None:
        """Set fitted attributes computed elsewhere (a loaded file's statistics, a downdate's);
        what was derived from the old ones is dropped (derived again on use)."""
        for name, value in fitted.items():
            setattr(self, name, value)
        self._tables, self._learned = {}, {}

    def _forget_fit(self) -> None:
        """Forget a previous fit's names and derived values (before a fit counted elsewhere)."""
        for attr in ("feature_names_in_", "_feature_names_given", *_CACHES):
            self.__dict__.pop(attr, None)

    def _set_feature_names(self, feature_names) -> None:
        """Record names given by hand as ``feature_names_in_`` (they label input without
        column names; see :func:`bayesnb.validation.names_checked_by`)."""
        self.feature_names_in_ = check_feature_names(feature_names, self.n_features_in_)
        self._feature_names_given = True

    def partial_fit(self, X, y, classes=None, sample_weight=None, feature_names=None):
        """Add a batch of data to the statistics (exact: statistics are sums).

        Parameters
        ----------
        X, y, sample_weight
            As in :meth:`fit`.
        classes : array-like, optional
            Every label the model will see, required on the first call when later batches hold
            labels absent from the first; ignored afterwards unless it disagrees.
        feature_names : array-like of str, optional
            As in :meth:`fit`, on the first call; a later call may repeat the same names.

        Returns
        -------
        self
        """
        first = not hasattr(self, "classes_")
        if first:
            self._check_params()
            self.__dict__.pop("_feature_names_given", None)
        X, y = self._check_input(X, _require_y(self, y), reset=first)
        names = None
        if first:
            names = self._given_names(feature_names)
        elif feature_names is not None:
            own = getattr(self, "feature_names_in_", None)
            names = check_feature_names(feature_names, self.n_features_in_)
            if own is None or [str(f) for f in own] != names.tolist():
                raise ValueError(
                    "feature_names of a later partial_fit call must equal the names of the "
                    "first call"
                    + ("" if own is None else f" (first {own[0]!r}, given {names[0]!r})")
                )
            names = None
        if first:
            self.classes_ = check_classes(classes) if classes is not None else np.unique(y)
            self._reset_counts(X.shape[1])
        elif classes is not None and not np.array_equal(check_classes(classes), self.classes_):
            raise ValueError(
                f"classes={np.asarray(classes).tolist()} differs from the classes of the first "
                f"partial_fit call {self.classes_.tolist()}"
            )
        _, codes = encode_labels(y, self.classes_)
        self._count(X, codes, check_sample_weight(sample_weight, X))
        self._statistics_changed()
        if names is not None:
            self._set_feature_names(names)
        return self

    def _count(self, X, codes, weights) -> None:
        self._merge_statistics(self._statistics(X, codes, weights))

    def _statistics_changed(self, documents=None) -> None:
        """Derive the fitted values from new statistics; ``documents`` (validated ``(X, codes,
        weights)``, whose sums they are) reach those learned from the documents themselves
        (``alpha="loo"``), None where they are not at hand (``partial_fit``, distributed)."""
        self._tables = {}  # estimates are derived lazily from the new statistics
        self._learned = {}  # so are alpha_ and class_alpha_ (learned from the statistics)
        # Derive them now: a bad alpha, a bad class_prior or a MAP without an interior mode
        # fails at fit, not at the first predict, and an evidence warning surfaces at fit.
        self.class_alpha_  # noqa: B018
        if "alpha" in self.get_params(deep=False):
            self._learned_value("alpha_", lambda: self._compute_alpha(documents))
        self.class_log_prior_  # noqa: B018
        if "temperature" in self.get_params(deep=False):
            self._learned_value("temperature_", lambda: self._compute_temperature(documents))

    def _check_params(self) -> None:
        check_estimate(self.estimate)
        check_missing(self._missing)
        if "temperature" in self.get_params(deep=False):
            check_temperature(self.temperature)
        if not (isinstance(self.class_alpha, str) and self.class_alpha == "evidence"):
            check_class_alpha(self.class_alpha)

    def _encode(self, X):
        """The model's view of validated X (identity; BernoulliNB binarises)."""
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._missing == "ignore"  # NaN = a missing feature
        return tags

    @property
    def _missing(self) -> str:
        """The ``missing`` parameter (``"error"`` for a subclass without one)."""
        return getattr(self, "missing", "error")

    def _split_missing(self, X):
        """``(X0, M)`` of validated X: observed values and missing-cell indicator (or None).

        Under ``missing="error"`` validation has refused NaN already, so X is returned as is
        without another pass over it.
        """
        if self._missing != "ignore":
            return X, None
        from bayesnb.stats.missing import split_missing

        return split_missing(X)

    # -- fitted hyperparameters: derived lazily from the parameters, like the tables ---------
    # ``alpha_`` and ``class_alpha_``: the given value, or learned from the statistics; keyed
    # on the parameters they depend on, so ``set_params(alpha=...)`` after a fit is honoured
    # on next use without a refit. Assigning one (a loaded model) stores it for the current
    # parameters.
    _CLASS_ALPHA_PARAMS = ("class_alpha",)
    # Parameters that never change the learned alpha_ (it depends on alpha and the feature
    # statistics as the posterior sees them, e.g. BernoulliNB's beta or MultinomialNB's unk).
    _ALPHA_FREE_PARAMS = (
        "class_alpha",
        "class_prior",
        "dtype",
        "estimate",
        "estimators",
        "fit_prior",
        "max_iter",
        "missing",
        "tol",
    )

    # Parameters applied at scoring time only: no derived table depends on them.
    _SCORING_PARAMS = ("temperature",)

    def _params_key(self, names=None, exclude=()) -> tuple:
        """The parameters (``names``, or all but ``exclude``) as a hashable cache key."""
        return tuple(
            (k, id(v) if isinstance(v, np.ndarray) else repr(v))
            for k, v in sorted(self.get_params(deep=False).items())
            if (names is None or k in names) and k not in exclude
        )

    def _learned_key(self, name: str) -> tuple:
        if name == "class_alpha_":
            return (name, self._params_key(names=self._CLASS_ALPHA_PARAMS))
        if name == "temperature_":  # it depends on every estimate and prior
            return (name, self._params_key())
        return (name, self._params_key(exclude=self._ALPHA_FREE_PARAMS))

    def _learned_value(self, name: str, compute):
        check_fitted(self)
        store = self.__dict__.setdefault("_learned", {})
        key = self._learned_key(name)
        if key not in store:
            try:
                value = compute()
            except BaseException:
                store.pop(key, None)  # no placeholder left behind by a failed computation
                raise
            store[key] = value
        return store[key]

    def _store_learned(self, name: str, value) -> None:
        self.__dict__.setdefault("_learned", {})[self._learned_key(name)] = value

    @property
    def class_alpha_(self) -> float:
        """The class-prior concentration in use: ``class_alpha``, or learned (``"evidence"``)."""
        return self._learned_value("class_alpha_", self._compute_class_alpha)

    @class_alpha_.setter
    def class_alpha_(self, value) -> None:
        self._store_learned("class_alpha_", value)

    def _compute_class_alpha(self) -> float:
        gamma = self.class_alpha
        if isinstance(gamma, str) and gamma == "evidence":
            from bayesnb.evidence import fit_symmetric_dirichlet

            return fit_symmetric_dirichlet(self.class_count_[None, :], name="class_alpha")
        return check_class_alpha(gamma)

    @property
    def alpha_(self):
        """The feature-prior concentration in use: ``alpha``, or learned (``"evidence"``,
        ``"loo"``)."""
        if "alpha" not in self.get_params(deep=False):
            raise AttributeError(f"{type(self).__name__} has no alpha parameter (no alpha_)")
        return self._learned_value("alpha_", self._compute_alpha)

    @alpha_.setter
    def alpha_(self, value) -> None:
        self._store_learned("alpha_", value)

    def _compute_alpha(self, documents=None):
        from bayesnb.evidence import learn_alpha

        alpha = self.alpha
        if isinstance(alpha, str) and alpha == "evidence":
            return learn_alpha(self)
        if isinstance(alpha, str) and alpha == "loo":
            return self._loo_alpha(documents)
        self._check_alpha_value(alpha)
        return alpha

    def _loo_alpha(self, documents) -> float:
        """``alpha="loo"``: the α of the best exact leave-one-out label log-likelihood of
        ``documents`` (validated ``(X, codes, weights)``, the statistics' own), at the
        temperature in use; with ``temperature="loo"`` both are learned jointly (the
        temperature_ found is kept with it)."""
        from bayesnb.families import family_of
        from bayesnb.families._crossval import loo_alpha_and_temperature

        self._need_documents(documents, "alpha")
        if self.get_params(deep=False).get("temperature", 1.0) == "loo":
            alpha, tau = loo_alpha_and_temperature(self, *documents)
            self._learned_value("temperature_", lambda: tau)
            return alpha
        return family_of(self).loo_alpha(self, *documents)

    def _need_documents(self, documents, name: str) -> None:
        if documents is None:
            raise ValueError(
                f"{type(self).__name__}({name}='loo') learns {name} from every training "
                "document at once (exact leave-one-out): call fit on the whole training set; "
                "partial_fit, distributed or streamed fits, ColumnwiseNB blocks and "
                f"set_params({name}='loo') after a fit do not have the documents"
            )

    # -- the likelihood temperature ------------------------------------------------------------
    @property
    def temperature_(self) -> float:
        """The likelihood temperature τ in use: ``temperature``, or learned (``"loo"``).

        Scoring gives p(c | x) ∝ p(c) · p(x | c)^τ (:mod:`bayesnb.scoring.temperature`); it
        is not a change of the posterior.
        """
        return self._learned_value("temperature_", lambda: self._compute_temperature(None))

    @temperature_.setter
    def temperature_(self, value) -> None:
        self._store_learned("temperature_", value)

    def _compute_temperature(self, documents) -> float:
        from bayesnb.families._crossval import loo_temperature

        tau = check_temperature(self.get_params(deep=False).get("temperature", 1.0))
        if tau != "loo":
            return tau
        self._need_documents(documents, "temperature")
        if self.get_params(deep=False).get("alpha") == "loo":
            self._learned_value("alpha_", lambda: self._compute_alpha(documents))
            return self._learned_value("temperature_", lambda: None)  # learned with alpha_
        return loo_temperature(self, *documents)

    def _check_alpha_value(self, alpha) -> None:
        """Out-of-range or wrongly shaped priors fail here (at fit, or at first use)."""
        from bayesnb.validation import check_alpha

        check_alpha(alpha, self.n_features_in_)
        beta = self.get_params(deep=False).get("beta")
        if beta is not None:
            check_alpha(beta, self.n_features_in_, "beta")

    # -- the class prior ---------------------------------------------------------------------
    @property
    def class_posterior_(self) -> DirichletPosterior:
        """Dirichlet(``class_alpha_`` + N_c) posterior of the class probabilities π."""
        check_fitted(self)
        return DirichletPosterior(self.class_alpha_, self.class_count_, name="class_alpha")

    @property
    def class_log_prior_(self) -> np.ndarray:
        """Log class prior used for scoring, shape (n_classes,)."""
        return self._cached("class_log_prior", self._compute_class_log_prior)

    def _compute_class_log_prior(self) -> np.ndarray:
        n_classes = len(self.classes_)
        if self.class_prior is not None:
            with np.errstate(divide="ignore"):
                return np.log(check_class_prior(self.class_prior, n_classes))
        if not self.fit_prior:
            return np.full(n_classes, -np.log(n_classes))
        return self.class_posterior_.log_estimate(self._class_estimate())

    def _class_estimate(self) -> str:
        """The estimate of the class prior π (``estimate``; ColumnwiseNB's follows its blocks)."""
        return self.estimate

    def _cached(self, key: str, compute):
        check_fitted(self)
        tables = self.__dict__.setdefault("_tables", {})
        # Keyed on every parameter, so set_params(estimate=..., alpha=..., class_prior=...)
        # after fit rescores instead of serving a stale table (arrays by identity: repr
        # truncates); alpha_ and class_alpha_ follow their parameters the same way.
        full_key = (key, self._params_key(exclude=self._SCORING_PARAMS))
        if full_key not in tables:
            check_estimate(self.estimate)
            tables[full_key] = compute()
        return tables[full_key]

    def _store_cached(self, key: str, value) -> None:
        """Set what :meth:`_cached` serves for ``key`` under the current parameters."""
        key = (key, self._params_key(exclude=self._SCORING_PARAMS))
        self.__dict__.setdefault("_tables", {})[key] = value

    # -- prediction --------------------------------------------------------------------------
    # A Dask array X gives a lazy Dask array, scored block by block (bayesnb.distributed).
    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log p(x, c) for every document and class, shape (n_samples, n_classes)."""
        if _is_dask(X):
            return _dask_predict(self, "predict_joint_log_proba", X)
        check_fitted(self)
        X = self._check_input(X, reset=False)
        return self._log_likelihood(X) + self.class_log_prior_

    def _relative_joint(self, X) -> np.ndarray:
        """:meth:`predict_joint_log_proba` of in-memory X, or what differs from it by a term
        common to the classes of each row (all that normalising and argmax need)."""
        return self.predict_joint_log_proba(X)

    def predict_log_proba(self, X) -> np.ndarray:
        """log p(c | x), normalised in log space, shape (n_samples, n_classes); with a
        ``temperature_`` τ ≠ 1, of p(c) · p(x | c)^τ."""
        if _is_dask(X):
            return _dask_predict(self, "predict_log_proba", X)
        prior = self.class_log_prior_
        joint = tempered(self._relative_joint(X), prior, self._temperature())
        return normalize_log_proba(joint, prior)

    def predict_proba(self, X) -> np.ndarray:
        """p(c | x), rows summing to 1, shape (n_samples, n_classes); with a ``temperature_``
        τ ≠ 1, proportional to p(c) · p(x | c)^τ."""
        if _is_dask(X):
            return _dask_predict(self, "predict_proba", X)
        check_fitted(self)
        return self._proba(X)

    def _temperature(self) -> float:
        """``temperature_``, 1 for an estimator without the parameter (a fixed number is read
        as it is: scoring a few documents should not pay for a lookup of its parameters)."""
        tau = vars(self).get("temperature", 1.0)
        if isinstance(tau, int | float) and not isinstance(tau, bool) and tau > 0:
            return float(tau)
        return self.temperature_

    def _proba(self, X) -> np.ndarray:
        """predict_proba of in-memory X (the softmax writes over jll if its maker says new)."""
        jll, prior = self._log_likelihood(self._check_input(X, reset=False)), self.class_log_prior_
        tau = self._temperature()
        if tau != 1.0:
            jll = jll * tau  # a new array: the maker's (perhaps a cache) is never written
        fresh = tau != 1.0 or self._fresh_jll()
        return normalize_proba(jll, prior, offset=prior, overwrite=fresh)

    def _fresh_jll(self) -> bool:
        """Whether ``_log_likelihood`` returns a new array every call (safe to write over)."""
        owner = next(c for c in type(self).__mro__ if "_log_likelihood" in vars(c))
        return vars(owner).get("_fresh_log_likelihood", False)

    def _proba_and_evidence(self, Xv) -> tuple[np.ndarray, np.ndarray]:
        """``(p(c | x), log p(x))`` of validated rows at temperature 1, from one pass over the
        joint (EM's E-step). A row impossible under every class takes the class prior, as in
        :meth:`predict_proba` (which warns), and log p(x) = -inf."""
        jll, prior = self._log_likelihood(Xv), self.class_log_prior_
        evidence = np.empty(jll.shape[0])
        proba = normalize_proba(
            jll, prior, offset=prior, overwrite=self._fresh_jll(), log_total=evidence
        )
        return proba, evidence

    def predict(self, X) -> np.ndarray:
        """The most probable class of every document, argmax p(c) p(x | c): the temperature
        rescales probabilities, not this decision."""
        if _is_dask(X):
            return _dask_predict(self, "predict", X)
        jll = self._relative_joint(X)
        best = np.argmax(jll, axis=1)
        if np.isneginf(jll[np.arange(jll.shape[0]), best]).any():
            # Some document is impossible under every class: the prior fallback decides.
            best = np.argmax(normalize_log_proba(jll, self.class_log_prior_), axis=1)
        return self.classes_[best]
