"""Report inputs: a data set with its train/test split, and a study (data set × model).

A :class:`Dataset` is the documents, labels and feature names of one corpus plus a fixed
stratified split; a :class:`Study` pairs it with a model configuration. Every section of the
report reads these, so all sections of one report see the same split.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import train_test_split

from bayesnb import families
from bayesnb.families._protocol import Unsupported
from bayesnb.pipeline import final_estimator
from bayesnb.report.extension import FamilyReport, report_of

__all__ = [
    "KINDS",
    "Dataset",
    "Study",
    "default_estimator",
    "fit_named",
    "quiet",
    "report_models",
]

KINDS = ("counts", "text", "continuous")


def report_models() -> tuple[str, ...]:
    """The families a study can name, in registry order: those with a default estimator."""
    out = []
    for name in families.names():
        try:
            report_of(name).default_estimator()
        except Unsupported:  # e.g. ColumnwiseNB: its blocks are the user's choice
            continue
        out.append(name)
    return tuple(out)


@dataclass
class Dataset:
    """Documents, labels and feature names of one corpus, with a stratified train/test split.

    Parameters
    ----------
    name : str
        Short name shown in the report (``"digits"``, ``"fortunes"``, a file name).
    X : ndarray or csr_matrix of shape (n_docs, n_features)
    y : ndarray of shape (n_docs,)
    feature_names : array-like of str
    kind : {"counts", "text", "continuous"}
        ``"counts"`` and ``"text"`` suit the discrete models, ``"continuous"`` GDA.
    description : str
        One sentence on where the data come from.
    binarize : float, default 0.0
        Threshold of the Bernoulli model on these data (values above it are "present").
    test_size : float, default 0.3
    seed : int, default 0
        Seed of the stratified split.
    """

    name: str
    X: object
    y: np.ndarray
    feature_names: np.ndarray
    kind: str
    description: str = ""
    binarize: float = 0.0
    test_size: float = 0.3
    seed: int = 0
    train: np.ndarray = field(init=False, repr=False)
    test: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        self.y = np.asarray(self.y)
        self.feature_names = np.asarray(self.feature_names, dtype=object)
        n = self.y.shape[0]
        if self.X.shape[0] != n:
            raise ValueError(f"X has {self.X.shape[0]} rows but y has {n} labels")
        if self.feature_names.shape[0] != self.X.shape[1]:
            raise ValueError(
                f"feature_names has {self.feature_names.shape[0]} names for {self.X.shape[1]} "
                "columns"
            )
        classes, counts = np.unique(self.y, return_counts=True)
        if classes.size < 2:
            raise ValueError(f"data set {self.name!r} holds one class only; need at least 2")
        # A class with a single document cannot be stratified; split without it then.
        stratify = self.y if counts.min() >= 2 else None
        self.train, self.test = train_test_split(
            np.arange(n), test_size=self.test_size, stratify=stratify, random_state=self.seed
        )

    @classmethod
    def from_pipeline(cls, name: str, pipeline, docs, y, *, kind: str = "text", **kwargs):
        """The data set a fitted pipeline's transformers make of raw ``docs``.

        ``X`` is ``pipeline[:-1].transform(docs)`` and ``feature_names`` the names of its
        columns (the vocabulary of a ``CountVectorizer``; ``x0, x1, ...`` when the
        transformers name none), so the report's parameter, informative-feature and
        smoothing sections speak of words. Study the pipeline's model with
        ``Study(data, model, fitted=pipeline)``.

        Parameters
        ----------
        name : str
        pipeline : fitted scikit-learn Pipeline ending in a bayesnb estimator
        docs : what the pipeline's first step takes (documents)
        y : array-like of labels
        kind : {"counts", "text", "continuous"}, default "text"
        **kwargs
            Further :class:`Dataset` fields (``description``, ``test_size``, ``seed``...).
        """
        est = final_estimator(pipeline)
        if est is pipeline or len(pipeline.steps) < 2:
            raise TypeError("pipeline must be a fitted Pipeline with transformers before its model")
        X = pipeline[:-1].transform(docs)
        names = getattr(est, "feature_names_in_", None)
        if names is None:
            names = [f"x{j}" for j in range(X.shape[1])]
        return cls(name, X, np.asarray(y), feature_names=names, kind=kind, **kwargs)

    @property
    def X_train(self):
        return self.X[self.train]

    @property
    def X_test(self):
        return self.X[self.test]

    @property
    def y_train(self) -> np.ndarray:
        return self.y[self.train]

    @property
    def y_test(self) -> np.ndarray:
        return self.y[self.test]

    @property
    def classes(self) -> np.ndarray:
        return np.unique(self.y)

    @property
    def discrete(self) -> bool:
        return self.kind in ("counts", "text")


def default_estimator(model: str, data: Dataset | None = None):
    """The configuration a study uses when none is given: the family's default estimator.

    That is :meth:`bayesnb.report.extension.FamilyReport.default_estimator` (α = 1 everywhere
    but where the family says otherwise, e.g. PoissonNB learns its Gamma shape from the
    evidence), with the data's threshold for a model that binarises its input (without
    ``data``, the estimator's own). GDA is wrapped in nothing: the report standardises
    continuous features itself.
    """
    models = report_models()
    if model not in models:
        raise ValueError(f"model must be one of {models}, got {model!r}")
    return report_of(model).default_estimator(data)


@dataclass
class Study:
    """One data set × one model configuration.

    Parameters
    ----------
    data : Dataset
    model : str
        A family name of :func:`report_models`: ``"bernoulli"``, ``"multinomial"``,
        ``"categorical"``, ``"poisson"``, ``"dcm"``, ``"gda"``.
    estimator : bayesnb estimator, optional
        The unfitted configuration (default :func:`default_estimator`); it is cloned.
    fitted : fitted estimator or fitted Pipeline ending in one, optional
        A model fitted elsewhere (``bayesnb report`` of a saved file, a text pipeline with
        :meth:`Dataset.from_pipeline`); the report scores it on the data and studies its
        configuration on the split.
    source : str, optional
        Where ``fitted`` came from (a file path), shown in the report.
    """

    data: Dataset
    model: str
    estimator: object = None
    fitted: object = None
    source: str = ""

    def __post_init__(self) -> None:
        models = report_models()
        if self.model not in models:
            raise ValueError(f"model must be one of {models}, got {self.model!r}")
        if self.fitted is not None:
            self.fitted = final_estimator(self.fitted)  # a pipeline: its model, named
        if self.estimator is None:
            self.estimator = default_estimator(self.model, self.data)

    @property
    def label(self) -> str:
        return f"{self.data.name} · {self.model}"

    @property
    def family(self) -> families.Family:
        """The :class:`~bayesnb.families.Family` of the study's model."""
        return families.get(self.model)

    @property
    def report(self) -> FamilyReport:
        """How the report reads the study's family (:func:`~bayesnb.report.extension.report_of`)."""
        return report_of(self.model)

    def configured(self, **params):
        """An unfitted clone of the study's configuration with ``params`` changed."""
        return clone(self.estimator).set_params(**params)


def fit_named(est, X, y, feature_names):
    """Fit ``est`` and record the feature names (so DataTree coordinates are readable)."""
    return est.fit(X, y, feature_names=[str(f) for f in feature_names])


@contextmanager
def quiet() -> Iterator[list]:
    """Silence the warnings a report run expects; collect the ones it should report.

    Expected: the MLE's probability-0 documents (the table shows them as lpd = −inf), the
    feature-name check of a model file saved before names given by hand were recorded as
    such (it warns on sparse input), and library noise (xarray's join default,
    PyTensor's BLAS). Pareto-k, sampler and convergence warnings are collected and returned.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=RuntimeWarning)
        warnings.filterwarnings("ignore", message=".*does not have valid feature names")
        warnings.filterwarnings("ignore", category=FutureWarning)
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", message=".*PyTensor could not link to a BLAS")
        warnings.filterwarnings("ignore", message=".*recommend running at least 4 chains")
        yield caught


def row_lengths(X) -> np.ndarray:
    """Sum of every row (document length for counts)."""
    return np.asarray(X.sum(axis=1)).ravel()


def row_nnz(X) -> np.ndarray:
    """Non-zero entries of every row (distinct words of a document)."""
    if sp.issparse(X):
        return np.diff(X.tocsr().indptr)
    return np.count_nonzero(np.asarray(X), axis=1)
