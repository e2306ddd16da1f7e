"""Dask collections as chunks: the lazy Dask import, texts vectorised chunk by chunk, and the
row chunks of X, y and sample_weight aligned one to one."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from bayesnb.families import family_of, has_family

__all__ = ["vectorize"]


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
def check_vectorizer(vectorizer, estimator=None):
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
    counts = has_family(estimator) and family_of(estimator, "bayesnb.distributed").counts
    if counts and getattr(vectorizer, "alternate_sign", False):
        raise ValueError(
            "vectorizer has alternate_sign=True, which makes hashed counts negative; count "
            "models need HashingVectorizer(alternate_sign=False)"
        )
    return vectorizer


def name_by_vocabulary(estimator, vectorizer) -> None:
    """Name the fitted estimator's columns with a vocabulary vectorizer's words (a
    ``CountVectorizer``); a hashing vectorizer has no names and leaves ``x0, x1, ...``."""
    if vectorizer is not None and hasattr(vectorizer, "get_feature_names_out"):
        estimator._set_feature_names([str(f) for f in vectorizer.get_feature_names_out()])


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
    check_vectorizer(vectorizer)
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
