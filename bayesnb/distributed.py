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

Dask is an optional dependency (``pip install bayesnb[dask]``); this module imports it lazily.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from bayesnb.stats.gaussian import GaussianStats
from bayesnb.stats.lengths import add_length_counts
from bayesnb.validation import (
    check_classes,
    check_fitted,
    check_sample_weight,
    encode_labels,
)

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


def _dask():
    try:
        import dask
        import dask.array as da
    except ImportError as err:  # pragma: no cover - dask is installed with the [dask] extra
        raise ImportError("bayesnb.distributed needs dask: pip install 'bayesnb[dask]'") from err
    return dask, da


def _is_bag(X) -> bool:
    try:
        import dask.bag as db
    except ImportError:  # pragma: no cover
        return False
    return isinstance(X, db.Bag)


# -- texts -> sparse chunks ------------------------------------------------------------------
def _check_vectorizer(vectorizer, estimator=None):
    """A vectorizer usable chunk by chunk: stateless, or fitted before (one fixed vocabulary)."""
    if not hasattr(vectorizer, "transform"):
        raise TypeError(
            f"vectorizer must have a transform method (e.g. HashingVectorizer), got "
            f"{type(vectorizer).__name__}"
        )
    if get_tags(vectorizer).requires_fit:
        try:
            check_is_fitted(vectorizer)
        except NotFittedError:
            raise ValueError(
                f"vectorizer {type(vectorizer).__name__} is not fitted: chunks are vectorised "
                "independently, so the vectorizer must be stateless (HashingVectorizer) or "
                "fitted beforehand on a fixed vocabulary"
            ) from None
    from bayesnb.naive_bayes import _DiscreteNB

    if isinstance(estimator, _DiscreteNB) and getattr(vectorizer, "alternate_sign", False):
        raise ValueError(
            "vectorizer has alternate_sign=True, which makes hashed counts negative; count "
            "models need HashingVectorizer(alternate_sign=False)"
        )
    return vectorizer


def _as_array(values) -> np.ndarray:
    """A chunk as an ndarray: bag partitions arrive as lists or lazy iterators."""
    return values if isinstance(values, np.ndarray) else np.asarray(list(values))


def _transform(vectorizer, texts) -> sp.csr_matrix:
    return sp.csr_matrix(vectorizer.transform(list(texts)), dtype=np.float64)


def vectorize(texts, vectorizer):
    """Turn a Dask bag (or 1-D Dask array) of texts into a Dask array of sparse rows.

    Parameters
    ----------
    texts : dask.bag.Bag or dask.array.Array of str
        One document per element.
    vectorizer : transformer
        Stateless (``HashingVectorizer``) or already fitted, so every chunk maps to the same
        columns.

    Returns
    -------
    dask.array.Array of shape (n_documents, n_features)
        One CSR block per partition; row counts are unknown (``nan``) until computed.
    """
    dask, da = _dask()
    _check_vectorizer(vectorizer)
    n_features = vectorizer.transform([""]).shape[1]
    parts = _flat_delayed(texts, "texts")
    meta = sp.csr_matrix((0, n_features))
    blocks = [
        da.from_delayed(
            dask.delayed(_transform)(vectorizer, p),
            shape=(np.nan, n_features),
            dtype=np.float64,
            meta=meta,
        )
        for p in parts
    ]
    return da.concatenate(blocks, axis=0)


# -- aligning X, y and sample_weight ---------------------------------------------------------
def _flat_delayed(collection, name: str) -> list:
    """One Delayed object per row chunk (bag partition or array block)."""
    if _is_bag(collection):
        return list(collection.to_delayed(optimize_graph=False))
    _, da = _dask()
    if isinstance(collection, da.Array):
        if collection.ndim == 2:
            if collection.numblocks[1] > 1:
                collection = collection.rechunk({1: -1})
            return list(collection.to_delayed(optimize_graph=False)[:, 0])
        if collection.ndim == 1:
            return list(collection.to_delayed(optimize_graph=False))
        raise ValueError(f"{name} must be 1-D or 2-D, got a {collection.ndim}-D dask array")
    raise TypeError(f"{name} must be a dask array or dask bag, got {type(collection).__name__}")


def _aligned_parts(v, name: str, X, n_parts: int) -> list:
    """Chunks of ``y`` or ``sample_weight`` matching the row chunks of ``X`` one to one."""
    _, da = _dask()
    row_chunks = X.chunks[0]
    known = not any(np.isnan(c) for c in row_chunks)
    if isinstance(v, da.Array):
        if v.ndim == 2 and v.shape[1] == 1:
            v = v[:, 0]
        if v.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got a dask array of shape {v.shape}")
        if known and not any(np.isnan(c) for c in v.chunks[0]) and v.chunks[0] != row_chunks:
            if v.shape[0] != X.shape[0]:
                raise ValueError(f"{name} has {v.shape[0]} entries but X has {X.shape[0]} rows")
            v = v.rechunk((row_chunks,))
        parts = list(v.to_delayed(optimize_graph=False))
    elif _is_bag(v):
        parts = list(v.to_delayed(optimize_graph=False))
    elif hasattr(v, "__dask_graph__"):
        raise TypeError(
            f"{name} must be a dask array, a dask bag or an in-memory array, got "
            f"{type(v).__name__}; convert it with .to_dask_array(lengths=True)"
        )
    else:
        arr = np.asarray(v)
        if not known:
            raise ValueError(
                f"X has chunks of unknown length, so {name} must be a dask array or bag with "
                "one chunk per chunk of X"
            )
        if arr.shape[0] != X.shape[0]:
            raise ValueError(f"{name} has {arr.shape[0]} entries but X has {X.shape[0]} rows")
        bounds = np.cumsum((0, *row_chunks)).astype(np.intp)
        parts = [arr[a:b] for a, b in pairwise(bounds)]
    if len(parts) != n_parts:
        raise ValueError(
            f"{name} has {len(parts)} chunks but X has {n_parts}; chunks of X and {name} must "
            "correspond one to one"
        )
    return parts


# -- the map step (runs on the workers) ------------------------------------------------------
def _labels(y) -> np.ndarray:
    return np.unique(_as_array(y).ravel())


def _chunk_statistics(shell, X, y, w, index: int, pack: bool) -> dict | None:
    """Validate one chunk and reduce it to the statistics dictionary of ``shell``'s model."""
    y = _as_array(y)
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"chunk {index}: X has {X.shape[0]} rows but y has {y.shape[0]} labels; the chunks "
            "of X and y must align"
        )
    if X.shape[0] == 0:
        return None  # an empty chunk adds nothing (and validation refuses 0 rows)
    X, y = shell._check_input(X, y, reset=False)
    known = np.isin(y, shell.classes_)
    if not known.all():
        bad = np.unique(y[~known])[:5].tolist()
        raise ValueError(
            f"chunk {index} of y holds labels {bad} not in classes="
            f"{np.asarray(shell.classes_).tolist()}; declare every label in classes=, or pass "
            "classes=None to collect them with a first pass over y"
        )
    _, codes = encode_labels(y, shell.classes_)
    if w is not None:
        w = _as_array(w).astype(np.float64, copy=False)
    stats = shell._statistics(X, codes, check_sample_weight(w, X))
    return {key: _pack(value) for key, value in stats.items()} if pack else stats


# -- transport: mostly-zero count tables travel as CSR ---------------------------------------
# A chunk of a large sparse corpus touches a small share of the (class, feature) cells (about
# 11% for 50,000 documents over 2^18 hashed features), so, when results cross processes, its
# K × V count table is sent as CSR (12 bytes per non-zero instead of 8 per cell) while that at
# least halves its size, and densified once sums fill it. Packing a 2.6M-cell table costs ~7 ms
# and unpacking ~2 ms, about what sending 21 MB over loopback costs, so tables that CSR would
# shrink by less than half (half-filled ones, from 500,000 documents) travel dense. Summing
# CSR tables is exact like summing dense ones.
_PACK_DENSITY = 1 / 3


def _crosses_processes(client) -> bool:
    """Whether chunk results are serialised (a cluster or processes), not shared in memory."""
    if client is not None:
        return True
    import dask.base
    import dask.local
    import dask.threaded

    # None: the default scheduler of Delayed objects, threads.
    return dask.base.get_scheduler() not in (None, dask.threaded.get, dask.local.get_sync)


class _Packed:
    """A dense 2-D statistic carried as a CSR matrix; :func:`_unpack` restores the array."""

    def __init__(self, matrix: sp.csr_matrix) -> None:
        self.matrix = matrix


def _per_block(value) -> bool:
    """ColumnwiseNB's statistics hold one statistics dictionary per block, in a list."""
    return isinstance(value, list) and bool(value) and isinstance(value[0], dict)


def _pack(value):
    if _per_block(value):
        return [{k: _pack(v) for k, v in d.items()} for d in value]
    if not (isinstance(value, np.ndarray) and value.ndim == 2 and value.size):
        return value
    flat = value.ravel()
    mask = flat != 0  # nonzero() of a bool mask is ~10x faster than of the floats
    if np.count_nonzero(mask) >= _PACK_DENSITY * flat.size:
        return value
    nonzero = np.flatnonzero(mask)  # row-major: already in CSR order
    n_rows, n_cols = value.shape
    indptr = np.searchsorted(nonzero, np.arange(n_rows + 1) * n_cols)
    matrix = sp.csr_matrix((flat[nonzero], nonzero % n_cols, indptr), shape=value.shape)
    return _Packed(matrix)


def _unpack(value):
    if _per_block(value):
        return [{k: _unpack(v) for k, v in d.items()} for d in value]
    return value.matrix.toarray() if isinstance(value, _Packed) else value


def _add_tables(x, z):
    """Sum of two count tables, each an ndarray or :class:`_Packed`."""
    if isinstance(x, _Packed) and isinstance(z, _Packed):
        total = (x.matrix + z.matrix).tocsr()
        if total.nnz < _PACK_DENSITY * np.prod(total.shape):
            return _Packed(total)
        return total.toarray()
    return _unpack(x) + _unpack(z)  # a new array: inputs may be shared task results


# -- the reduce step -------------------------------------------------------------------------
def _add_padded(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sum of two count blocks whose last axes may differ (categories seen by one chunk only).

    The missing columns are appended as zeros: the last column of a categorical block is its
    pooled unseen slot, which counts zero in training, so appending keeps every category in
    place.
    """
    width = max(a.shape[-1], b.shape[-1])
    pad = [(0, 0)] * (a.ndim - 1)
    return np.pad(a, [*pad, (0, width - a.shape[-1])]) + np.pad(b, [*pad, (0, width - b.shape[-1])])


def combine_statistics(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Statistics of the union of two batches, from the statistics of each.

    Values combine by type: arrays are summed, lists of arrays (categorical counts per
    feature) are padded to the wider category range and summed, sparse length histograms are
    padded and summed, and :class:`~bayesnb.stats.gaussian.GaussianStats` are merged with the
    Chan–Golub–LeVeque update.

    Parameters
    ----------
    a, b : dict
        Outputs of an estimator's ``_statistics`` (or of this function), same keys.

    Returns
    -------
    dict
    """
    if a.keys() != b.keys():
        raise ValueError(f"cannot combine statistics with keys {sorted(a)} and {sorted(b)}")
    out: dict[str, Any] = {}
    for key, x in a.items():
        z = b[key]
        if isinstance(x, GaussianStats):
            out[key] = x.merge(z)
        elif sp.issparse(x):
            out[key] = add_length_counts(x, z)
        elif _per_block(x):
            out[key] = [combine_statistics(u, v) for u, v in zip(x, z, strict=True)]
        elif isinstance(x, list):
            out[key] = [_add_padded(u, v) for u, v in zip(x, z, strict=True)]
        else:
            out[key] = _add_tables(x, z)
    return out


def _is_table(value) -> bool:
    return isinstance(value, _Packed) or (isinstance(value, np.ndarray) and value.ndim == 2)


def _shape(table) -> tuple[int, ...]:
    return table.matrix.shape if isinstance(table, _Packed) else table.shape


def _sum_tables(values: list, pack: bool):
    """Sum of count tables into one new buffer (not pairwise: one K × V allocation)."""
    total = np.zeros(_shape(values[0]))
    for v in values:
        total += _unpack(v)  # densify-and-add beats a scattered += on the non-zeros
    return _pack(total) if pack else total  # sums of a few chunks often still pack 2-3x


def _combine(pack: bool, *parts: dict | None) -> dict | None:
    """One node of the reduction tree: the statistics of all ``parts`` (None: empty chunk)."""
    parts = [p for p in parts if p is not None]
    if len(parts) <= 1:
        return parts[0] if parts else None
    out: dict[str, Any] = {}
    for key in parts[0]:
        values = [p[key] for p in parts]
        if all(_is_table(v) for v in values) and len({_shape(v) for v in values}) == 1:
            out[key] = _sum_tables(values, pack)
        else:
            total = values[0]
            for v in values[1:]:
                total = combine_statistics({key: total}, {key: v})[key]
            out[key] = total
    return out


def _tree(dask, leaves: list, split_every: int, pack: bool) -> list:
    """Combine ``leaves`` ``split_every`` at a time, level by level, down to ``split_every``.

    The last level (at most ``split_every`` nodes) is combined by the caller: summing the last
    few tables where the result is wanted saves a task, and on a cluster one transfer of a
    K × V table between workers.
    """
    level = leaves
    while len(level) > split_every:
        level = [
            dask.delayed(_combine)(pack, *level[i : i + split_every])
            for i in range(0, len(level), split_every)
        ]
    return level


def _owned(value):
    """``value`` as an array the estimator may add to in place (results can be read-only views
    of a received buffer)."""
    if _per_block(value):
        return [{k: _owned(v) for k, v in d.items()} for d in value]
    if isinstance(value, np.ndarray) and not value.flags.writeable:
        return value.copy()
    return value


def _gather_direct(client) -> bool | None:
    """Whether the client fetches results from the workers rather than via the scheduler.

    The client's own ``direct_to_workers`` wins. Otherwise direct when the scheduler listens
    on loopback: its workers then run on this machine (remote ones could not reach it), so
    they are reachable, and each K × V table crosses one process boundary instead of two
    (worker → scheduler → client), which on a ``LocalCluster`` is most of the reduction's
    cost. None leaves Dask's default (through the scheduler).
    """
    if client.direct_to_workers is not None:
        return client.direct_to_workers
    from urllib.parse import urlsplit

    try:
        host = urlsplit(client.scheduler.address).hostname or ""
    except (AttributeError, ValueError):  # an unusual address or comm: keep Dask's default
        return None
    return True if host == "localhost" or host == "::1" or host.startswith("127.") else None


def _compute(client, *objs) -> tuple:
    """The values of ``objs``; on a cluster each is fetched as soon as it is ready, so the
    first workers' tables travel while the last ones still count."""
    dask, _ = _dask()
    if client is None:
        return dask.compute(*objs)
    from distributed import as_completed

    futures = client.compute(list(objs))
    direct = _gather_direct(client)
    position = {future.key: i for i, future in enumerate(futures)}
    results: list = [None] * len(futures)
    for future in as_completed(futures, loop=client.loop):  # not default_client()
        results[position[future.key]] = client.gather(future, direct=direct)  # raises errors
    return tuple(results)


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
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2, got {split_every!r}")
    texts = _is_bag(X) or (isinstance(X, da.Array) and X.ndim == 1)
    if texts:
        from bayesnb.streaming import default_vectorizer

        vectorizer = default_vectorizer() if vectorizer is None else vectorizer
        X = vectorize(X, _check_vectorizer(vectorizer, estimator))
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
    if hasattr(shell, "_setup_blocks"):  # ColumnwiseNB: resolve and clone its blocks
        shell._setup_blocks(X)
    pack = _crosses_processes(client)
    leaves = [
        dask.delayed(_chunk_statistics)(shell, xp, yp, wp, i, pack)
        for i, (xp, yp, wp) in enumerate(zip(x_parts, y_parts, w_parts, strict=True))
    ]
    total = _combine(False, *_compute(client, *_tree(dask, leaves, split_every, pack)))
    if total is None:
        raise ValueError("X has no rows: every chunk is empty")

    for attr in ("feature_names_in_", "_tables"):
        vars(estimator).pop(attr, None)
    estimator.classes_ = classes
    estimator.n_features_in_ = int(X.shape[1])
    if hasattr(estimator, "_setup_blocks"):
        estimator._setup_blocks(X)
    estimator._reset_counts(estimator.n_features_in_)
    estimator._merge_statistics({key: _owned(_unpack(value)) for key, value in total.items()})
    estimator._statistics_changed()
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
        return X.map_blocks(
            _predict_block,
            est,
            method,
            drop_axis=1,
            dtype=dtype,
            meta=np.empty((0,), dtype=dtype),
        )
    n_classes = len(estimator.classes_)
    return X.map_blocks(
        _predict_block,
        est,
        method,
        chunks=(X.chunks[0], (n_classes,)),
        dtype=np.float64,
        meta=np.empty((0, 0)),
    )


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
