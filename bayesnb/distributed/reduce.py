"""The map-reduce of a Dask fit: per-chunk statistics on the workers, their transport (sparse
tables as CSR), their combination in a tree, and the fetch of the last partial results."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from bayesnb.distributed.chunks import _as_array, _dask
from bayesnb.stats.gaussian import GaussianStats
from bayesnb.stats.lengths import add_length_counts
from bayesnb.validation import check_sample_weight, encode_labels

__all__ = ["combine_statistics"]


# -- the map step (runs on the workers) ------------------------------------------------------
def _labels(y) -> np.ndarray:
    return np.unique(_as_array(y).ravel())


def chunk_statistics(shell, X, y, w, index: int, pack: bool) -> dict | None:
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
