"""Sufficient statistics on Dask: fitting and scoring corpora larger than one machine's memory.

Every bayesnb model is fitted from additive sufficient statistics, so a fit over a Dask
collection is a map-reduce run by Dask's own schedulers (the threaded default, or a
``dask.distributed`` cluster): each chunk is validated and reduced to its statistics on a
worker by the estimator's pure ``_statistics`` hook; only those small dictionaries travel, and
they are combined in a tree (:func:`combine_statistics`: sums for counts, the
Chan–Golub–LeVeque merge for GDA) on the workers down to ``split_every`` partial results,
which the caller fetches as each is ready (straight from the workers when the scheduler is on
this machine) and sums before ``_merge_statistics`` puts the total into the estimator.
Counts of integer data are sums of integers in float64, so the result equals the in-memory
fit exactly; GDA's merged means and scatters equal it up to rounding.

Scoring a Dask array gives a lazy Dask array, one block per chunk, scored by the fitted
estimator (:func:`predict_proba` and friends; ``est.predict_proba(dask_array)`` delegates
here).

Dask is an optional dependency (``pip install bayesnb[dask]``); this package imports it lazily.

The package: :mod:`~bayesnb.distributed.chunks` (Dask collections as aligned chunks, texts
vectorised per chunk), :mod:`~bayesnb.distributed.reduce` (statistics per chunk, their
transport and tree reduction) and, here, :func:`fit` and the lazy scoring functions.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from sklearn.base import clone

from bayesnb.distributed.chunks import (
    _aligned_parts,
    _dask,
    _flat_delayed,
    _is_bag,
    check_vectorizer,
    name_by_vocabulary,
    vectorize,
)
from bayesnb.distributed.reduce import (
    _combine,
    _compute,
    _crosses_processes,
    _labels,
    _owned,
    _tree,
    _unpack,
    chunk_statistics,
    combine_statistics,
)
from bayesnb.families import family_of
from bayesnb.validation import check_classes, check_fitted, check_int

__all__ = [
    "PREDICT_METHODS",
    "combine_statistics",
    "fit",
    "predict",
    "predict_joint_log_proba",
    "predict_log_proba",
    "predict_method",
    "predict_proba",
    "vectorize",
]

PREDICT_METHODS = ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba")


# -- fit -------------------------------------------------------------------------------------
def fit(
    estimator,
    X,
    y,
    classes: Sequence | None = None,
    client=None,
    *,
    sample_weight=None,
    vectorizer=None,
    split_every: int = 8,
):
    """Fit ``estimator`` on Dask collections: statistics per chunk, combined in a tree.

    The result equals ``estimator.fit`` on the whole data in memory: the same
    ``classes_``, ``class_count_``, ``feature_count_`` (exactly, for integer counts) and so
    the same predictions; GDA's means and scatters agree up to rounding. Any previous fit is
    discarded.

    Parameters
    ----------
    estimator : BernoulliNB, MultinomialNB, CategoricalNB or GDA
        Fitted in place.
    X : dask.array.Array or dask.bag.Bag
        A 2-D array with dense or scipy-sparse chunks (column chunks are joined first), or a
        bag (or 1-D array) of texts, turned into sparse rows by ``vectorizer`` chunk by chunk.
    y : dask.array.Array, dask.bag.Bag or array-like
        Labels with one chunk per row chunk of ``X`` (a dask array with known chunks is
        rechunked to match; an in-memory array is split by the row chunks of ``X``).
    classes : array-like, optional
        Every label of ``y``. When None, a first (cheap) Dask pass over ``y`` collects the
        union of labels; pass it to skip that pass, e.g. when computing ``y`` means re-reading
        the corpus. A label of ``y`` outside ``classes`` raises a ValueError naming the chunk.
    client : distributed.Client, optional
        The cluster to run on; None uses Dask's default scheduler (the active ``Client`` if
        any, otherwise threads).
    sample_weight : dask array, bag or array-like, optional
        Non-negative weights aligned with ``y``.
    vectorizer : transformer, optional
        For text input: stateless or already fitted, e.g.
        ``HashingVectorizer(alternate_sign=False, norm=None)`` (the default for texts, see
        :func:`bayesnb.streaming.default_vectorizer`).
    split_every : int, default 8
        Fan-in of the reduction tree (how many statistics one task combines).

    Returns
    -------
    estimator
        The fitted estimator.

    Raises
    ------
    ValueError
        On misaligned chunks, an undeclared label, fewer than 2 classes, or no rows.

    Notes
    -----
    Each chunk's statistics are as large as the model (a K × V table for the count models),
    so chunks should be large enough (tens of thousands of documents for hashed text) for the
    counting to outweigh the per-chunk table. Dask's nanny starts workers with
    ``MALLOC_TRIM_THRESHOLD_=65536``, which makes each such temporary table a fresh mmap;
    dropping it from ``distributed.nanny.pre-spawn-environ`` made the count fits of
    ``benchmarks/bench_scale.py`` markedly faster on a ``LocalCluster`` (10^6 documents in
    the workers' memory: 0.25-0.28 s instead of 0.32-0.38 s; counting holds the GIL, so
    threads do not help). Pass ``classes=`` when reading ``y`` means reading the data.
    """
    dask, da = _dask()
    check_int(split_every, "split_every", 2)
    texts = _is_bag(X) or (isinstance(X, da.Array) and X.ndim == 1)
    if texts:
        from bayesnb.streaming import default_vectorizer

        vectorizer = default_vectorizer() if vectorizer is None else vectorizer
        X = vectorize(X, check_vectorizer(vectorizer, estimator))
    elif vectorizer is not None:
        raise ValueError("vectorizer= is for a bag (or 1-D array) of texts; X is a 2-D array")
    if not isinstance(X, da.Array):
        raise TypeError(
            f"X must be a dask array or dask bag, got {type(X).__name__}; call estimator.fit "
            "for in-memory data"
        )
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (documents × features), got shape {X.shape}")
    if np.isnan(X.shape[1]):
        raise ValueError("X has an unknown number of columns; give its chunks a known width")
    # Chunks are taken from the graphs unoptimised: a task feeding both X and y (one read of
    # a file holding both) stays one task. Array optimisation fuses it into the X chunk and
    # into the y chunk, and it would run twice (measured: every shard read twice).
    x_parts = _flat_delayed(X, "X")
    y_parts = _aligned_parts(y, "y", X, len(x_parts))
    w_parts = (
        [None] * len(x_parts)
        if sample_weight is None
        else _aligned_parts(sample_weight, "sample_weight", X, len(x_parts))
    )

    estimator._check_params()
    if classes is None:
        found = _compute(client, *[dask.delayed(_labels)(p) for p in y_parts])
        labels = np.unique(np.concatenate([np.asarray(f) for f in found])) if found else []
        if len(labels) < 2:
            raise ValueError(
                f"y holds {len(labels)} class(es) ({list(labels)}); a classifier needs at "
                "least 2 classes"
            )
        classes = labels
    else:
        classes = check_classes(classes)

    # Workers count with a bare copy (parameters, classes, width; ~1 KB pickled): no
    # statistics ship. It travels inside each task: as a graph key of its own it would be
    # computed on one worker and fetched by the others before they could start counting.
    shell = clone(estimator)
    shell.classes_ = classes
    shell.n_features_in_ = int(X.shape[1])
    family = family_of(estimator, "bayesnb.distributed.fit")
    family.setup_columns(shell, X)  # ColumnwiseNB: resolve and clone its blocks
    pack = _crosses_processes(client)
    leaves = [
        dask.delayed(chunk_statistics)(shell, xp, yp, wp, i, pack)
        for i, (xp, yp, wp) in enumerate(zip(x_parts, y_parts, w_parts, strict=True))
    ]
    total = _combine(False, *_compute(client, *_tree(dask, leaves, split_every, pack)))
    if total is None:
        raise ValueError("X has no rows: every chunk is empty")

    estimator._forget_fit()
    estimator.classes_ = classes
    estimator.n_features_in_ = int(X.shape[1])
    family.setup_columns(estimator, X)
    estimator._reset_counts(estimator.n_features_in_)
    estimator._merge_statistics({key: _owned(_unpack(value)) for key, value in total.items()})
    estimator._statistics_changed()
    name_by_vocabulary(estimator, vectorizer if texts else None)  # a vocabulary's words
    return estimator


# -- predict ---------------------------------------------------------------------------------
def _predict_block(block, estimator, method: str) -> np.ndarray:
    if block.shape[0] == 0:
        n = len(estimator.classes_)
        dtype = estimator.classes_.dtype if method == "predict" else np.float64
        return np.empty((0,) if method == "predict" else (0, n), dtype=dtype)
    return getattr(estimator, method)(block)


def predict_method(estimator, method: str, X):
    """``estimator.<method>(X)`` for a Dask array ``X``, as a lazy Dask array (no compute).

    Parameters
    ----------
    estimator : fitted bayesnb estimator
    method : {"predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba"}
    X : dask.array.Array of shape (n_samples, n_features)
        Dense or scipy-sparse chunks; column chunks are joined first.

    Returns
    -------
    dask.array.Array
        Shape (n_samples,) of labels for ``"predict"``, (n_samples, n_classes) of float64
        otherwise, chunked like the rows of ``X``.
    """
    dask, da = _dask()
    if method not in PREDICT_METHODS:
        raise ValueError(f"method must be one of {PREDICT_METHODS}, got {method!r}")
    check_fitted(estimator)
    if not isinstance(X, da.Array):
        raise TypeError(
            f"X must be a dask array, got {type(X).__name__}; turn a bag of texts into one with "
            "bayesnb.distributed.vectorize(texts, vectorizer)"
        )
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (documents × features), got shape {X.shape}")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    # Build the cached estimate tables once here, so that they ship with the estimator instead
    # of being rebuilt on every worker; one Delayed sends the estimator once per worker.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. "X does not have valid feature names"
        _predict_block(np.zeros((1, estimator.n_features_in_)), estimator, method)
    est = dask.delayed(estimator, pure=True)
    if method == "predict":
        dtype = estimator.classes_.dtype
        shape = {"drop_axis": 1, "dtype": dtype, "meta": np.empty((0,), dtype=dtype)}
    else:
        chunks = (X.chunks[0], (len(estimator.classes_),))
        shape = {"chunks": chunks, "dtype": np.float64, "meta": np.empty((0, 0))}
    return X.map_blocks(_predict_block, est, method, **shape)


def predict_proba(estimator, X):
    """p(c | x) of every row of the Dask array ``X``, as a lazy Dask array."""
    return predict_method(estimator, "predict_proba", X)


def predict_log_proba(estimator, X):
    """log p(c | x) of every row of the Dask array ``X``, as a lazy Dask array."""
    return predict_method(estimator, "predict_log_proba", X)


def predict_joint_log_proba(estimator, X):
    """log p(x, c) of every row of the Dask array ``X``, as a lazy Dask array."""
    return predict_method(estimator, "predict_joint_log_proba", X)


def predict(estimator, X):
    """The most probable class of every row of the Dask array ``X``, as a lazy Dask array."""
    return predict_method(estimator, "predict", X)
