"""The family protocol: everything a generic module may ask of a conjugate family.

A :class:`Family` is a stateless object (one per family, in the registry of
:mod:`bayesnb.families`); every method takes the fitted estimator ``est`` (which holds the
parameters and the sufficient statistics) as its first argument, as PyMC's generic functions
take the variable they are registered for. Generic modules call these methods and never ask
which model they hold; a family implements them in its folder, one capability module each
(``sampling``, ``storage``, ``evidence``, ``pymc``, ``crossval``), combined in ``family.py``.
Fit-time work goes through the estimator's own hooks (``_statistics``, ``_merge_statistics``,
``_log_likelihood``), not through the family; how the report reads a family is registered
with :mod:`bayesnb.report.extension`, not here.

A method the family cannot provide raises :class:`Unsupported` (a TypeError) saying so: the
DCM, for instance, has no closed-form predictive. This module imports only numpy, so every
layer may import it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import ClassVar

import numpy as np

__all__ = ["Family", "Unsupported", "per_class"]


class Unsupported(TypeError):
    """A family does not provide a capability (the message names the family and what)."""


def per_class(est, values, fmt: str = ",.0f") -> str:
    """``"a: 1, b: 2"``: one value per class of ``est`` (for ``Family.inspect_statistics``)."""
    values = np.asarray(values, dtype=np.float64).ravel()
    return ", ".join(f"{c}: {v:{fmt}}" for c, v in zip(est.classes_, values, strict=True))


class Family:
    """Base class of the family objects; each method is documented in one line.

    Class attributes
    ----------------
    name : str
        The registry key; the estimator's ``_family`` attribute holds the same string.
    estimator : type
        The scikit-learn estimator class of the family.
    """

    name: ClassVar[str] = ""
    estimator: ClassVar[type | None] = None

    def unsupported(self, what: str) -> Unsupported:
        """The error raised for a capability this family does not provide."""
        label = self.estimator.__name__ if self.estimator is not None else self.name
        return Unsupported(f"{label} does not support {what}")

    def __repr__(self) -> str:
        return f"<bayesnb family {self.name!r}>"

    # -- draws and generation (bayesnb.draws, bayesnb.generate) -------------------------------
    #: The posterior variables of the layout, in order, ``"class_prior"`` first (empty for a
    #: composite, whose variables are its blocks').
    var_names: ClassVar[tuple[str, ...]] = ()

    #: Why ``estimate="bayes"`` (the posterior predictive) is no point of the parameters, for
    #: a family whose predictive no single parameter value reproduces (None: it is a point).
    bayes_not_a_point: ClassVar[str | None] = None

    def point_values(self, est, view, names: list[str], features) -> dict[str, np.ndarray]:
        """Point values (class, ...) of ``names`` but the class prior, read from ``view``."""
        raise self.unsupported("point estimates")

    def layout(self, est, features) -> dict:
        """Extra ``dims``/``coords`` of the family's variables for ``to_datatree``."""
        return {}

    def draw_cost(self, est, names: list[str], features) -> tuple[str, int, str]:
        """What the draws of ``names`` allocate: (variables, cells per draw, formula)."""
        raise self.unsupported("exact posterior draws")

    def posterior_draws(
        self, est, rng, shape: tuple[int, int], names: list[str], features, *, aux_rng
    ) -> dict[str, np.ndarray]:
        """Exact draws (*shape, ...) of ``names`` but the class prior; ``aux_rng``: 2nd stream."""
        raise self.unsupported("exact posterior draws")

    #: Why the family has no one-Dataset closed-form summary (None: it has one).
    summary_refusal: ClassVar[str | None] = None

    def posterior_summary(self, est, ci_prob: float, features) -> tuple[dict, dict]:
        """Closed-form (summary, ...) variables but the class prior, and the coords they add."""
        raise self.unsupported("closed-form posterior summaries")

    def generate(self, est, codes: np.ndarray, rng):
        """Synthetic X (one row per class code of ``codes``) from the fitted model."""
        raise self.unsupported("synthetic data (sample)")

    def replicate_documents(self, est, codes: np.ndarray, lengths: np.ndarray, rng):
        """Documents (CSR counts) of the given classes and lengths."""
        raise self.unsupported(
            "replicate_documents (it needs a DCM or multinomial model: documents of given lengths)"
        )

    def parts(self, est) -> list[tuple[str, object]]:
        """The fitted sub-models ``(name, estimator)`` of a composite under its one class
        prior, whose results the generic modules assemble (none: a plain model)."""
        return []

    # -- model files (bayesnb.io) ------------------------------------------------------------
    # Saving: ``out`` is the file being written (``out.encode(value)`` JSON data, ``out.tree``
    # and ``out.params`` of another estimator, ``out.model_name``, ``out.subtrees``). Loading:
    # ``file`` is a verified file (``file.where``, ``fitted``, ``statistics``, ``groups``,
    # ``tree``, ``decode``, ``error``, ``family_named``, ``estimator``, ``load``).
    def file_params(self, est, out) -> dict:
        """The constructor parameters as JSON data (the ``params`` attribute)."""
        return {k: out.encode(v) for k, v in est.get_params(deep=False).items()}

    def file_statistics(self, est) -> dict:
        """The ``statistics`` arrays after ``class_count``: name -> (dims, array)."""
        raise self.unsupported("saving to a model file")

    def file_fitted(self, est, out) -> dict:
        """Learned values and bookkeeping of the ``fitted`` JSON besides labels and features."""
        return {"alpha_": out.encode(getattr(est, "alpha_", None))}

    def file_groups(self, est) -> dict:
        """Extra groups of arrays covered by the root checksum: group -> name -> (dims, array)."""
        return {}

    def file_subtrees(self, est, out) -> dict:
        """Complete model trees stored inside the file (path -> DataTree), e.g. blocks."""
        return {}

    def read_groups(self, file) -> dict:
        """The arrays of the groups of :meth:`file_groups` (read before the checksum)."""
        return {}

    def decode_params(self, params: dict, file) -> dict:
        """The constructor keyword arguments from the ``params`` JSON object."""
        return {k: file.decode(v) for k, v in params.items()}

    def restore_statistics(self, est, file) -> None:
        """Set the statistics of a fresh estimator from a verified file (file_statistics^-1)."""
        raise self.unsupported("loading from a model file")

    def restore_fitted(self, est, file) -> None:
        """Set the learned values that :meth:`file_fitted` recorded."""
        if file.fitted["alpha_"] is not None:
            est.alpha_ = file.decode(file.fitted["alpha_"])

    # -- evidence, LOO, informative features, compare ----------------------------------------
    # (section owned by the evidence/loo refactor)
    def feature_log_evidence(self, est) -> float:
        """log p(X | y, prior) of the fitted features: the closed form (or an approximation)."""
        raise self.unsupported("a closed-form evidence")

    def learn_alpha(self, est):
        """The ``alpha_`` maximising :meth:`feature_log_evidence` (``alpha="evidence"``)."""
        # Called while est.alpha_ holds a placeholder: read only the posterior's statistics.
        raise self.unsupported("alpha='evidence'")

    def loo_cells_per_draw(self, est, n_docs: int) -> int:
        """Float64 cells one posterior draw occupies while ``n_docs`` documents are scored."""
        raise self.unsupported("label_log_likelihood")

    def loo_view(self, est, Xc) -> tuple:
        """Validated ``Xc`` as :meth:`loo_draws_jll` scores it, and its missing-cell indicator."""
        X0, M = est._split_missing(Xc)  # (Xc, None) unless missing="ignore" finds NaN
        return est._encode(X0), M

    def loo_draws_jll(self, est, Xc, M, values: dict) -> np.ndarray:
        """log p(x_i | c, θ_s) of draws ``values`` (name -> (draws, ...)): (n_docs, draws, K)."""
        raise self.unsupported("label_log_likelihood")

    # Draws of only what a batch of documents reads (bayesnb.families._discrete_batch):
    # predict_proba_draws uses them where they exist, the full draws elsewhere.
    def batch_view(self, est, Xc, M):
        """None (draw every parameter), or the ``DrawBatch`` of ``loo_view``'s documents."""
        return None

    #: Why most_informative_features cannot rank this family's features (None: no reason).
    informative_refusal: ClassVar[str | None] = None

    def informative_marginals(self, est) -> dict[str, np.ndarray]:
        """The (class, feature) posterior marginals of the log-parameter (fitted ``est``)."""
        # A family that overrides this supports most_informative_features.
        raise self.unsupported("most_informative_features")

    def informative_moments(self, est, marginals: dict) -> tuple[np.ndarray, np.ndarray]:
        """Exact E[log parameter] and Var[log parameter], each (n_classes, n_features)."""
        raise self.unsupported("most_informative_features")

    def informative_draws(self, est, marginals: dict, c: int, cols, rng, size: int):
        """Exact posterior draws of the log-parameter of class ``c`` at ``cols``: (size, n)."""
        raise self.unsupported("most_informative_features")

    #: What the ranked log-ratio compares (the ``quantity`` of the result's attrs).
    informative_quantity: ClassVar[str] = "log probability ratio"

    def n_feature_parameters(self, est) -> float:
        """Free parameters of the fitted feature model (NaN when unknown), for compare."""
        return np.nan

    # -- exact cross-validation (bayesnb.model_selection) ------------------------------------
    # (for cross_val_predict, elpd_loo and alpha="loo")
    # ``stats`` is ``est._statistics(X_batch, codes, weights)`` of documents est was fitted on;
    # X is validated for est (as fit counted it), codes index est.classes_, weights float64.
    def subtract(self, est, stats: dict, documents=None) -> None:
        """Remove a batch's statistics (the inverse of ``est._merge_statistics``: as if unseen).

        ``documents``: the remaining documents' validated ``(X, codes, weights)`` for values
        learned from the documents themselves (``alpha="loo"``), or None.
        """
        # Must leave est as a refit on the remaining data would (to rounding), its derived
        # values derived again (est._statistics_changed(documents)).
        raise self.unsupported("exact cross-validation (subtracting statistics)")

    def downdated(self, est, stats: dict, documents=None):
        """A copy of fitted ``est`` with ``stats`` subtracted (:meth:`subtract`); est unchanged.

        The default copies ``est`` deeply; a family whose ``subtract`` replaces the statistics
        arrays instead of writing into them may share everything else (one fold of
        ``cross_val_predict``).
        """
        model = copy.deepcopy(est._replace())  # its tables are derived again anyway
        self.subtract(model, stats, documents)
        return model

    # Whether cross_val_predict has the fit count X fold by fold (the same sums, merged fold
    # after fold) and scores each fold by fold_joint_log_proba from its statistics.
    fold_statistics: ClassVar[bool] = False

    def fold_joint_log_proba(self, est, stats: dict, X):
        """``(log p(x_i, c | D without the batch), log p(c | D without the batch))`` or None.

        One fold of ``cross_val_predict``: the batch of est's training rows ``X`` (validated)
        whose statistics are ``stats``, scored (class prior included, shape (n, K)) under est
        fitted without it, and that model's class log prior (K,), without building the
        downdated estimator. ``stats`` are the fold's statistics as the fit counted them
        (``fold_statistics``): est's are their sums, merged fold after fold, so a difference
        is an exact 0 where the other folds hold nothing. Called only when est learns no
        hyperparameter from the data and every class keeps documents. None (the default):
        the caller scores :meth:`downdated`, which gives the same numbers to rounding.
        """
        return None

    def loo_joint_log_proba(self, est, X, codes: np.ndarray, weights) -> np.ndarray | None:
        """log p(x_i, c | D without i) for every training row i, (n, K), O(nonzeros of x_i).

        The class prior included (N_c − w_i, N − w_i; ``families._crossval.loo_class_log_prior``
        gives it, with ``-inf`` for the class a lone document takes away), learned
        hyperparameters held at their values. None: the generic code downdates a copy and
        rescores one document at a time (``families._crossval.per_document``).
        """
        return None

    def loo_alpha(self, est, X, codes: np.ndarray, weights) -> float:
        """The alpha maximising the exact LOO label log-likelihood (``alpha="loo"``)."""
        # Called while est.alpha_ is being learned, with the training documents (LOO needs
        # each document, not only the statistics).
        raise self.unsupported("alpha='loo'")

    # -- unlabelled documents (bayesnb.semisupervised) ----------------------------------------
    def feature_log_prior_density(self, est) -> float:
        """log p(θ) of the feature parameters at fitted ``est``'s ``"map"`` point, normalised."""
        raise self.unsupported("unlabelled documents (a prior density of its parameters)")

    def soft_counter(self, est, X) -> Callable[[np.ndarray], list[dict]]:
        """The statistics of validated ``X`` as a function of soft labels: called with
        ``resp`` (n_samples, n_classes), row i belonging to class c with weight
        ``resp[i, c]`` (responsibility × weight), it returns statistics batches (merged in
        turn by ``est._merge_statistics``). EM and VB count the same rows at every iteration,
        so what does not depend on ``resp`` is computed once, here.

        The default counts one weighted pass per class (``sample_weight`` = the column of
        ``resp``, rows of weight 0 left out); a family whose statistics are linear in the
        one-hot labels overrides it with one product Rᵀ·X.
        """

        def count(resp: np.ndarray) -> list[dict]:
            batches = []
            for c in range(resp.shape[1]):
                w = np.ascontiguousarray(resp[:, c], dtype=np.float64)
                rows = w > 0
                if not rows.any():
                    continue
                if not rows.all():
                    idx = np.flatnonzero(rows)
                    Xc, w = X[idx], w[idx]
                else:
                    Xc = X
                batches.append(est._statistics(Xc, np.full(w.shape[0], c, dtype=np.intp), w))
            return batches

        return count

    def expected_log_likelihood(self, est, X) -> np.ndarray:
        """``E_q[log p(x_i | θ_c)]`` of validated ``X`` under fitted ``est``'s posterior q(θ),
        shape (n_samples, n_classes): the mean-field E-step of variational Bayes (digamma
        expectations of the log-parameters, never a point estimate)."""
        raise self.unsupported("variational Bayes (an expected log-likelihood under q(θ))")

    # -- PyMC declaration (bayesnb.pymc_models, bayesnb.inference) ---------------------------
    def pymc_spec(self, est, X, y, likelihood: str, alpha_prior, sample_weight):
        """The numpy side of the PyMC model of ``est`` on ``(X, y)``: a ``ModelSpec``."""
        raise self.unsupported("a PyMC declaration")

    def pymc_unlabelled(self, est, X) -> tuple:
        """The ``pm.Data`` values (name -> array) of unlabelled documents ``X`` and a function
        ``jll(get)`` giving log p(x_i | θ_c), a tensor (n_samples, n_classes), from the declared
        model's variables (``get(name)``; :mod:`bayesnb.pymc_models.unlabelled`)."""
        raise self.unsupported("a PyMC declaration of unlabelled documents")

    def pymc_parts(self, est, spec) -> list:
        """The sub-models ``(name, estimator, ModelSpec)`` of a composite's ``spec`` (none)."""
        return []

    # -- the contract suite (bayesnb.testing.check_family) -----------------------------------
    def example_data(self, est, n: int, rng: np.random.Generator) -> tuple:
        """Small random training data ``(X, y)`` of the family's input domain, 3 classes."""
        raise self.unsupported("example_data (needed by bayesnb.testing.check_family)")

    def fixed_prior_params(self, est) -> dict:
        """Parameters that pin what fitted ``est`` derived from its training data ({}: none)."""
        return {}

    def closed_form_predictive(self, est) -> bool:
        """Whether ``estimate="bayes"`` scores with the exact posterior predictive."""
        return "bayes" in self.estimates

    # -- command line, scale-out (bayesnb.cli, bayesnb.distributed, bayesnb.streaming) -------
    #: Whether ``bayesnb fit/compare/report`` offer the family as MODEL, under its ``name``
    #: (a composite such as ColumnwiseNB needs its blocks written in Python).
    cli: ClassVar[bool] = False
    #: A note on the CLI's configuration shown after the name in ``--help`` ("" for none).
    cli_help: ClassVar[str] = ""
    #: Why ``--alpha`` does not apply (None: the estimator has an ``alpha`` concentration).
    cli_no_alpha: ClassVar[str | None] = None
    #: The values of the estimator's ``estimate`` parameter the family computes.
    estimates: ClassVar[tuple[str, ...]] = ("mle", "map", "mean", "bayes")
    #: The kinds of data set (``bayesnb.report.data.KINDS``) the family models.
    data_kinds: ClassVar[tuple[str, ...]] = ("counts", "text")
    #: Whether the family is a naive Bayes model of non-negative counts whose distributed
    #: and streamed fits refuse a sign-alternating HashingVectorizer before reading any data.
    counts: ClassVar[bool] = False

    def setup_columns(self, est, X) -> None:
        """Lay ``est`` out for X's columns without reading X (its ``classes_`` and
        ``n_features_in_`` set), before statistics are counted and merged chunk by chunk.

        Nothing to do for a model whose parameters are one table over all columns; a composite
        resolves and clones its blocks here (:func:`bayesnb.distributed.fit`).
        """
        return None

    # -- inspection (bayesnb cli inspect) ---------------------------------------------------
    def inspect_statistics(self, est) -> list[tuple[str, str]]:
        """The training statistics ``bayesnb inspect`` prints, as (what, value) lines."""
        counts = np.asarray(est.class_count_, dtype=np.float64)
        return [("documents", f"{counts.sum():,.0f} ({per_class(est, counts)})")]

    # -- new text onto the model's columns (bayesnb cli predict) ----------------------------
    def unseen_column(self, est):
        """A copy of ``est`` with one more column that scores words it never saw (its UNK
        category), or None when the model has none and such words are dropped."""
        return None
