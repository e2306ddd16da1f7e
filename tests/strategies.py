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

__all__ = ["ESTIMATES", "SPECS", "Case", "cases", "estimator_factory", "split_points"]

ESTIMATES = ("mle", "map", "mean", "bayes")
DISCRETE = ("bernoulli", "multinomial", "categorical")
COVARIANCES = ("shared", "per_class", "diagonal")
# (model, covariance or None): every estimator configuration the properties run over.
SPECS = [(m, None) for m in DISCRETE] + [("gda", c) for c in COVARIANCES]

# The long profile (HYPOTHESIS_PROFILE=long) draws larger shapes: up to hundreds of features.
LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
MAX_FEATURES = 200 if LONG else 24
MAX_GDA_FEATURES = 40 if LONG else 6
MAX_CLASSES = 20
MAX_EXTRA_ROWS = 300 if LONG else 30


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
    model : {"bernoulli", "multinomial", "categorical", "gda"}
    covariance : {"shared", "per_class", "diagonal"} or None
        GDA's covariance type; None for the discrete models.
    estimate : {"mle", "map", "mean", "bayes"}

    Returns
    -------
    callable
        Discrete ``"map"`` uses alpha = class_alpha = 2 so the posterior mode is interior.
    """
    if model == "gda":
        return lambda: bnb.GDA(covariance=covariance, estimate=estimate)
    cls = {
        "bernoulli": bnb.BernoulliNB,
        "multinomial": bnb.MultinomialNB,
        "categorical": bnb.CategoricalNB,
    }[model]
    kw = {"alpha": 2.0, "class_alpha": 2.0} if estimate == "map" else {}
    return lambda: cls(estimate=estimate, **kw)


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
    model : {"bernoulli", "multinomial", "categorical"}
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
    )


def cases(model: str, covariance: str | None, estimate: str):
    """The strategy of problems for one estimator configuration.

    Parameters
    ----------
    model : {"bernoulli", "multinomial", "categorical", "gda"}
    covariance : {"shared", "per_class", "diagonal"} or None
    estimate : {"mle", "map", "mean", "bayes"}

    Returns
    -------
    hypothesis.strategies.SearchStrategy of Case
    """
    if model == "gda":
        return gda_case(covariance, estimate)
    return discrete_case(model, estimate)


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
