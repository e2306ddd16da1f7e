"""Hypothesis strategies for the property-based tests of every estimator × estimate.

A drawn *case* is a :class:`Case`: an unfitted estimator plus a training set (X, y, weights)
and a test matrix. Discrete models get their entries drawn element by element (so failures
shrink to small counts); GDA gets Gaussian data from a drawn seed, because its ``"mle"`` needs
well-conditioned covariances that element-wise draws rarely give.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import bayesnb as bnb
from bayesnb.families.dcm.estimator import DCM_ESTIMATES

__all__ = [
    "ESTIMATES",
    "SPECS",
    "Case",
    "cases",
    "estimates_of",
    "estimator_factory",
    "split_points",
    "with_missing",
]

ESTIMATES = ("mle", "map", "mean", "bayes")
DISCRETE = ("bernoulli", "multinomial", "categorical", "poisson", "dcm")
COVARIANCES = ("shared", "per_class", "diagonal")
# (model, covariance or None): every estimator configuration the properties run over.
# "columnwise" is a two-block ColumnwiseNB: MultinomialNB counts + GDA(diagonal) reals.
SPECS = [(m, None) for m in DISCRETE] + [("gda", c) for c in COVARIANCES] + [("columnwise", None)]

# The long profile (HYPOTHESIS_PROFILE=long) draws larger shapes: up to hundreds of features.
LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
MAX_FEATURES = 200 if LONG else 24
MAX_GDA_FEATURES = 40 if LONG else 6
MAX_CLASSES = 20
MAX_EXTRA_ROWS = 300 if LONG else 30


def estimates_of(model: str) -> tuple[str, ...]:
    """The estimates a model computes (the DCM refuses ``"bayes"`` by design)."""
    return DCM_ESTIMATES if model == "dcm" else ESTIMATES


@dataclasses.dataclass
class Case:
    """One generated fitting problem.

    Attributes
    ----------
    make : callable
        ``make()`` returns a fresh unfitted estimator (same parameters every call).
    X, X_test : ndarray or scipy.sparse.csr_matrix
        Training and test data (sparse only for the discrete models).
    y : ndarray
        Labels; every class of ``classes`` occurs at least once.
    classes : ndarray
        The sorted class labels.
    weights : ndarray or None
        Sample weights, or None for an unweighted fit.
    """

    make: object
    X: object
    y: np.ndarray
    classes: np.ndarray
    weights: np.ndarray | None
    X_test: object
    # Rows that with_missing keeps complete: one per class (discrete models) or the d + 2 per
    # class a GDA MLE needs; the DCM and GDA fit on complete rows only.
    core: np.ndarray | None = None

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    def dense(self, X):
        """``X`` as a dense ndarray."""
        return X.toarray() if sp.issparse(X) else X


def estimator_factory(model: str, covariance: str | None, estimate: str):
    """A zero-argument callable building the estimator of one configuration.

    Parameters
    ----------
    model : {"bernoulli", "multinomial", "categorical", "poisson", "dcm", "gda", "columnwise"}
    covariance : {"shared", "per_class", "diagonal"} or None
        GDA's covariance type; None for the other models.
    estimate : {"mle", "map", "mean", "bayes"}

    Returns
    -------
    callable
        Discrete ``"map"`` uses alpha = class_alpha = 2 so the posterior mode is interior.
        ``"columnwise"`` needs ``n_counts`` (see :func:`columnwise_factory`).
    """
    if model == "gda":
        return lambda: bnb.GDA(covariance=covariance, estimate=estimate)
    if model == "dcm":
        return lambda: bnb.DirichletCompoundNB(estimate=estimate)
    cls = {
        "bernoulli": bnb.BernoulliNB,
        "multinomial": bnb.MultinomialNB,
        "categorical": bnb.CategoricalNB,
        "poisson": bnb.PoissonNB,
    }[model]
    kw = {"alpha": 2.0, "class_alpha": 2.0} if estimate == "map" else {}
    return lambda: cls(estimate=estimate, **kw)


def columnwise_factory(n_counts: int, n_real: int, estimate: str):
    """``make()`` of a two-block ColumnwiseNB: columns ``[0, n_counts)`` MultinomialNB, the
    next ``n_real`` GDA(covariance="diagonal"); ``estimate`` is set on the ColumnwiseNB."""
    words = slice(0, n_counts)
    reals = slice(n_counts, n_counts + n_real)
    alpha = {"alpha": 2.0} if estimate == "map" else {}
    # The class prior belongs to ColumnwiseNB: class_alpha there, never on a block.
    outer = {"class_alpha": 2.0} if estimate == "map" else {}
    return lambda: bnb.ColumnwiseNB(
        [
            ("words", bnb.MultinomialNB(**alpha), words),
            ("reals", bnb.GDA(covariance="diagonal"), reals),
        ],
        estimate=estimate,
        **outer,
    )


@st.composite
def labels(draw, n_classes: int, n_extra: int):
    """Labels in which each of ``n_classes`` classes occurs at least once.

    Parameters
    ----------
    n_classes : int
        Number of distinct classes K (2..20).
    n_extra : int
        Rows beyond the K guaranteed ones, labelled freely.

    Returns
    -------
    ndarray of int64, shape (n_classes + n_extra,)
        Unsorted: the first K rows hold each class once, in drawn order.
    """
    first = draw(st.permutations(range(n_classes)))
    rest = draw(st.lists(st.integers(0, n_classes - 1), min_size=n_extra, max_size=n_extra))
    return np.asarray(list(first) + rest, dtype=np.int64)


@st.composite
def weights_for(draw, n: int):
    """None (unweighted) or positive sample weights, integer- or float-valued.

    Parameters
    ----------
    n : int
        Number of rows.

    Returns
    -------
    ndarray of float64 of shape (n,) or None
    """
    kind = draw(st.sampled_from(["none", "int", "float"]))
    if kind == "none":
        return None
    if kind == "int":
        elems = st.integers(1, 5)
    else:
        elems = st.floats(0.1, 10.0, allow_nan=False, allow_infinity=False)
    return draw(hnp.arrays(np.float64, n, elements=elems))


@st.composite
def discrete_case(draw, model: str, estimate: str):
    """A discrete-model problem: small non-negative counts, dense or CSR, int or float dtype.

    Parameters
    ----------
    model : {"bernoulli", "multinomial", "categorical", "poisson", "dcm"}
    estimate : {"mle", "map", "mean", "bayes"}

    Returns
    -------
    Case
    """
    n_features = draw(st.integers(1, MAX_FEATURES))
    n_classes = draw(st.integers(2, MAX_CLASSES))
    n_extra = draw(st.integers(0, MAX_EXTRA_ROWS))
    y = draw(labels(n_classes, n_extra))
    n = len(y)
    dtype = draw(st.sampled_from([np.int64, np.int32, np.float64, np.float32]))
    top = draw(st.integers(1, 6))  # largest count / category value
    entries = hnp.arrays(np.int64, (n, n_features), elements=st.integers(0, top))
    X = draw(entries).astype(dtype)
    X_test = draw(
        hnp.arrays(np.int64, (draw(st.integers(1, 8)), n_features), elements=st.integers(0, top))
    ).astype(dtype)
    if draw(st.booleans()):
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    return Case(
        make=estimator_factory(model, None, estimate),
        X=X,
        y=y,
        classes=np.arange(n_classes),
        weights=draw(weights_for(n)),
        X_test=X_test,
        core=np.arange(n_classes),
    )


@st.composite
def gda_case(draw, covariance: str, estimate: str):
    """A GDA problem: Gaussian classes with enough rows per class for a regular MLE.

    Parameters
    ----------
    covariance : {"shared", "per_class", "diagonal"}
    estimate : {"mle", "map", "mean", "bayes"}

    Returns
    -------
    Case
        Every class has at least d + 2 rows (per-class MLE covariance non-singular); the data
        are drawn from a seed, location and scale chosen by hypothesis, in float32 or float64.
    """
    d = draw(st.integers(1, MAX_GDA_FEATURES))
    n_classes = draw(st.integers(2, MAX_CLASSES if LONG else 6))
    per_class = d + 2
    n_extra = draw(st.integers(0, MAX_EXTRA_ROWS))
    y = np.concatenate(
        [np.repeat(np.arange(n_classes), per_class), draw(labels(n_classes, n_extra))]
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    loc = draw(st.sampled_from([0.0, 1.0, 1e3]))
    scale = draw(st.sampled_from([1e-2, 1.0, 1e2]))
    means = rng.normal(0.0, 3.0, size=(n_classes, d))
    X = loc + scale * (means[y] + rng.normal(size=(len(y), d)))
    X_test = loc + scale * rng.normal(0.0, 3.0, size=(draw(st.integers(1, 8)), d))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    # Shuffle so the guaranteed rows are not in class order.
    order = rng.permutation(len(y))
    return Case(
        make=estimator_factory("gda", covariance, estimate),
        X=X[order].astype(dtype),
        y=y[order],
        classes=np.arange(n_classes),
        weights=draw(weights_for(len(y))),
        X_test=X_test.astype(dtype),
        core=np.flatnonzero(order < n_classes * per_class),
    )


@st.composite
def columnwise_case(draw, estimate: str):
    """A two-block ColumnwiseNB problem: element-wise counts next to Gaussian reals.

    Parameters
    ----------
    estimate : {"mle", "map", "mean", "bayes"}

    Returns
    -------
    Case
        Dense X (the GDA block refuses sparse input) of ``n_counts`` count columns followed by
        ``d`` real columns; every class has d + 2 rows (the GDA block's MLE is regular).
    """
    n_counts = draw(st.integers(1, MAX_FEATURES // 2))
    d = draw(st.integers(1, MAX_GDA_FEATURES))
    n_classes = draw(st.integers(2, MAX_CLASSES if LONG else 6))
    per_class = d + 2
    n_extra = draw(st.integers(0, MAX_EXTRA_ROWS))
    y = np.concatenate(
        [np.repeat(np.arange(n_classes), per_class), draw(labels(n_classes, n_extra))]
    )
    n = len(y)
    top = draw(st.integers(1, 6))
    counts = draw(hnp.arrays(np.int64, (n, n_counts), elements=st.integers(0, top)))
    n_test = draw(st.integers(1, 8))
    counts_test = draw(hnp.arrays(np.int64, (n_test, n_counts), elements=st.integers(0, top)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    loc = draw(st.sampled_from([0.0, 1e3]))
    scale = draw(st.sampled_from([1e-2, 1.0, 1e2]))
    means = rng.normal(0.0, 3.0, size=(n_classes, d))
    reals = loc + scale * (means[y] + rng.normal(size=(n, d)))
    reals_test = loc + scale * rng.normal(0.0, 3.0, size=(n_test, d))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    order = rng.permutation(n)
    X = np.hstack([counts, reals])[order].astype(dtype)
    return Case(
        make=columnwise_factory(n_counts, d, estimate),
        X=X,
        y=y[order],
        classes=np.arange(n_classes),
        weights=draw(weights_for(n)),
        X_test=np.hstack([counts_test, reals_test]).astype(dtype),
        core=np.flatnonzero(order < n_classes * per_class),
    )


def cases(model: str, covariance: str | None, estimate: str):
    """The strategy of problems for one estimator configuration.

    Parameters
    ----------
    model : {"bernoulli", "multinomial", "categorical", "poisson", "dcm", "gda", "columnwise"}
    covariance : {"shared", "per_class", "diagonal"} or None
    estimate : {"mle", "map", "mean", "bayes"}

    Returns
    -------
    hypothesis.strategies.SearchStrategy of Case
    """
    if model == "gda":
        return gda_case(covariance, estimate)
    if model == "columnwise":
        return columnwise_case(estimate)
    return discrete_case(model, estimate)


def _nan_holes(X, hole: np.ndarray):
    """X (dense or CSR) as float with NaN in the cells of ``hole``; CSR stores the NaN
    explicitly (a missing count is not a zero)."""
    dense = (X.toarray() if sp.issparse(X) else np.asarray(X)).astype(
        np.float32 if X.dtype == np.float32 else np.float64
    )
    dense[hole] = np.nan
    if not sp.issparse(X):
        return dense
    S = sp.csr_matrix(np.where(hole, 1.0, dense).astype(dense.dtype))  # holes stored as 1
    S.data[hole[S.nonzero()]] = np.nan  # nonzero(): the stored cells in CSR order
    return S


@st.composite
def with_missing(draw, case_strategy):
    """A case with NaN (missing values) injected into X and X_test.

    Parameters
    ----------
    case_strategy : hypothesis.strategies.SearchStrategy of Case

    Returns
    -------
    Case
        About a drawn fraction (5-60 %) of the cells of X are NaN, except in the ``core`` rows
        (kept complete so every class has observed values of every feature, and the
        complete-row fits of the DCM and GDA stay well posed); X_test gets NaN too, plus one
        all-NaN row (scored by the class prior alone). Integer X becomes float64.
    """
    case = draw(case_strategy)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rate = draw(st.sampled_from([0.05, 0.2, 0.6]))
    hole = rng.random(case.X.shape) < rate
    hole[case.core] = False
    test_hole = rng.random(case.X_test.shape) < rate
    test_hole = np.vstack([test_hole, np.ones((1, case.X_test.shape[1]), dtype=bool)])
    X_test = case.X_test
    X_test = (
        sp.vstack([X_test, X_test[:1]]).tocsr()
        if sp.issparse(X_test)
        else np.vstack([X_test, X_test[:1]])
    )
    return dataclasses.replace(
        case, X=_nan_holes(case.X, hole), X_test=_nan_holes(X_test, test_hole)
    )


@st.composite
def split_points(draw, n: int):
    """Sorted cut points splitting ``range(n)`` into 1..4 consecutive non-empty batches.

    Parameters
    ----------
    n : int
        Number of rows.

    Returns
    -------
    list of int
        Distinct cut positions in [1, n - 1]; ``np.split(rows, cuts)`` gives the batches.
        (Empty batches are left out: rejecting a 0-row X is legitimate validation.)
    """
    if n < 2:
        return []
    cuts = draw(st.lists(st.integers(1, n - 1), max_size=3, unique=True))
    return sorted(cuts)
