"""Row-block kernels of scoring: sparse × dense products and passes over rows, in threads.

Scoring a corpus is one product ``X · Wᵀ`` followed by a few passes over the (n_samples,
n_classes) scores. Both are done here by blocks of rows:

- :func:`csr_dot` runs SciPy's own kernel (``csr_matvecs``, which accumulates every output
  row over that row's stored values in storage order) on contiguous row ranges, in threads:
  the kernel releases the GIL, and a row's sum does not depend on which block it is in, so
  the result equals ``X @ table`` bit for bit. A ``values`` map (a threshold, say) is applied
  to one block of stored values at a time, so no transformed copy of X is made.
- :func:`csr_tdot` is ``Xᵀ · R`` the same way (SciPy's ``csc_matvecs`` on the transpose of
  each row range, one partial sum per thread, added in block order): each row range's
  products equal SciPy's, their sum is rounded in another order than one pass would round.
- :func:`for_row_blocks` runs element-wise passes (the softmax) on blocks of rows that stay
  in cache, instead of one pass over the whole score matrix per operation, again in threads.
- :func:`sum_and_min` takes both reductions of validation in one pass over memory.

Threads: ``BAYESNB_NUM_THREADS`` when set, else the CPUs this process may run on (at most
``_MAX_THREADS``), from one pool per process started on first use; small inputs run in the
calling thread.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np
import scipy.sparse as sp

try:  # SciPy's kernels behind ``csr @ dense``; private, so their absence falls back to ``@``
    from scipy.sparse._sparsetools import csc_matvecs, csr_matvecs
except ImportError:  # pragma: no cover - a SciPy without them
    csc_matvecs = csr_matvecs = None

__all__ = [
    "all_integers",
    "csr_dot",
    "csr_tdot",
    "for_row_blocks",
    "n_threads",
    "sum_and_min",
]

_MAX_THREADS = 8
# Below this many stored values (or score cells) one thread is faster than starting several.
_PARALLEL_FROM = 1 << 18
# Stored values per block of a product that maps them (512 KiB of float64), and score cells
# per softmax block: the block's arrays stay in a core's L2 cache between the passes over it.
_BLOCK_VALUES = 1 << 16
_BLOCK_CELLS = 1 << 14


def n_threads() -> int:
    """Threads of the row-block kernels (``BAYESNB_NUM_THREADS``, else the usable CPUs)."""
    env = os.environ.get("BAYESNB_NUM_THREADS")
    if env:
        try:
            count = int(env)
        except ValueError:
            raise ValueError(f"BAYESNB_NUM_THREADS must be an integer, got {env!r}") from None
        if count < 1:
            raise ValueError(f"BAYESNB_NUM_THREADS must be >= 1, got {count}")
        return count
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without sched_getaffinity
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, _MAX_THREADS))


# One pool for the process, created on first use: starting threads for every product costs
# about a millisecond, which repeated small products (cross-validation folds) would pay each
# time. Keyed on the thread count; a forked child starts its own.
_POOL: dict = {}
_POOL_LOCK = threading.Lock()
_WORKER_PREFIX = "bayesnb-block"


def _after_fork() -> None:  # the parent's threads (and a lock one of them held) are gone
    global _POOL_LOCK
    _POOL.clear()
    _POOL_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _pool(threads: int) -> ThreadPoolExecutor:
    key = (os.getpid(), threads)
    with _POOL_LOCK:
        pool = _POOL.get(key)
        if pool is None:
            pool = _POOL[key] = ThreadPoolExecutor(threads, thread_name_prefix=_WORKER_PREFIX)
        return pool


def _run(tasks: list[Callable[[], None]], threads: int) -> None:
    """Run ``tasks`` (independent, each writing its own rows) on ``threads`` threads."""
    # A task that itself calls _run runs its work inline: waiting on the shared pool from
    # one of its own workers could wait forever.
    nested = threading.current_thread().name.startswith(_WORKER_PREFIX)
    if threads <= 1 or len(tasks) <= 1 or nested:
        for task in tasks:
            task()
        return
    # NumPy's error state is the caller's context, which pool threads do not inherit: a
    # caller's np.errstate must hold in its tasks too (warnings it silenced stay silent).
    state = np.geterr()

    def in_state(task: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            with np.errstate(**state):
                task()

        return run

    futures = [_pool(threads).submit(in_state(task)) for task in tasks]
    wait(futures)  # every task done before any error is raised: none writes afterwards
    for future in futures:
        future.result()  # re-raises a worker's exception


def _splits(weights_cum: np.ndarray, parts: int) -> np.ndarray:
    """Row boundaries cutting a cumulative work profile (``indptr``-like) into ``parts``."""
    targets = np.linspace(weights_cum[0], weights_cum[-1], parts + 1)
    bounds = np.searchsorted(weights_cum, targets, side="left")
    bounds[0], bounds[-1] = 0, weights_cum.shape[0] - 1
    return np.unique(bounds)


def csr_dot(
    X,
    table: np.ndarray,
    values: Callable[[np.ndarray], np.ndarray] | None = None,
    offset: np.ndarray | None = None,
):
    """``X @ table`` for CSR ``X``, by row blocks in threads, equal to SciPy's bit for bit.

    Parameters
    ----------
    X : csr_matrix or csr_array of shape (n_samples, n_features)
    table : ndarray of shape (n_features, k)
    values : callable, optional
        Maps a slice of ``X.data`` to the values to multiply instead, of ``table``'s dtype
        (e.g. ``x > t`` as float64 for binary features), applied block by block.
    offset : ndarray of shape (k,), optional
        Added to every output row (``X @ table + offset``, the same numbers), a block at a
        time right after its product.

    Returns
    -------
    ndarray of shape (n_samples, k)
    """
    if not _kernel_takes(X, table, values, offset):
        if values is not None:
            X = sp.csr_matrix((values(X.data), X.indices, X.indptr), shape=X.shape)
        out = np.asarray(X @ table)
        return out if offset is None else out + offset
    return _product(X, table, values, offset)


def csr_tdot(X, R: np.ndarray) -> np.ndarray:
    """``X.T @ R`` for CSR ``X`` (n_samples, n_features) and dense ``R`` (n_samples, k), by
    row blocks in threads: shape (n_features, k), float64."""
    R = np.ascontiguousarray(R, dtype=np.float64)
    v = X.shape[1]
    k = R.shape[1]
    if (
        csc_matvecs is None
        or X.format != "csr"
        or X.data.dtype != np.float64
        or X.indices.dtype != X.indptr.dtype
    ):
        return np.asarray(X.T @ R)
    threads = n_threads() if X.nnz >= _PARALLEL_FROM else 1
    bounds = _splits(X.indptr, threads)
    parts = [np.zeros((v, k)) for _ in range(len(bounds) - 1)]
    indptr, indices, data = X.indptr, X.indices, X.data

    def task(i: int, r0: int, r1: int) -> Callable[[], None]:
        def run() -> None:
            # The rows r0..r1 of X are the columns of a CSC Xᵀ with the same arrays.
            ptr = indptr[r0 : r1 + 1]
            csc_matvecs(v, r1 - r0, k, ptr, indices, data, R[r0:r1].ravel(), parts[i].ravel())

        return run

    _run([task(i, int(a), int(b)) for i, (a, b) in enumerate(itertools.pairwise(bounds))], threads)
    out = parts[0]
    for part in parts[1:]:
        out += part
    return out


def _kernel_takes(X, table, values, offset) -> bool:
    """Whether SciPy's row kernel takes this product (else SciPy's ``@`` on the whole)."""
    data = X.data
    dtype = table.dtype if values is not None else np.result_type(data.dtype, table.dtype)
    return (
        csr_matvecs is not None
        and X.format == "csr"
        and table.ndim == 2
        and (values is not None or data.dtype == table.dtype)
        and dtype in (np.float32, np.float64)
        and X.indices.dtype == X.indptr.dtype
        and (offset is None or np.result_type(dtype, offset) == dtype)
    )


def _product(X, table, values, offset) -> np.ndarray:
    """The row-block product of :func:`csr_dot`."""
    data = X.data
    dtype = table.dtype if values is not None else np.result_type(data.dtype, table.dtype)
    n, v = X.shape
    k = table.shape[1]
    flat = np.ascontiguousarray(table).ravel()
    out = np.zeros((n, k), dtype=dtype)
    indptr, indices = X.indptr, X.indices
    threads = n_threads() if X.nnz >= _PARALLEL_FROM else 1
    bounds = _splits(indptr, 4 * threads if threads > 1 else 1)

    def task(r0: int, r1: int) -> Callable[[], None]:
        def run() -> None:
            if values is None:
                ptr = indptr[r0 : r1 + 1]  # absolute offsets into the full index arrays
                csr_matvecs(r1 - r0, v, k, ptr, indices, data, flat, out[r0:r1].ravel())
                if offset is not None:
                    out[r0:r1] += offset
                return
            # Stored values of this range a cache-sized block at a time: mapped and
            # multiplied while in cache.
            blocks = max(1, int(indptr[r1] - indptr[r0]) // _BLOCK_VALUES)
            sub = _splits(indptr[r0 : r1 + 1], blocks) + r0
            for a, b in itertools.pairwise(sub.tolist()):
                s0, s1 = indptr[a], indptr[b]
                block = np.asarray(values(data[s0:s1]), dtype=dtype)
                ptr = indptr[a : b + 1] - s0
                csr_matvecs(b - a, v, k, ptr, indices[s0:s1], block, flat, out[a:b].ravel())
                if offset is not None:
                    out[a:b] += offset

        return run

    _run([task(int(a), int(b)) for a, b in itertools.pairwise(bounds.tolist())], threads)
    return out


def for_row_blocks(
    n_rows: int, n_cols: int, fn: Callable[[int, int], None], block_cells: int = _BLOCK_CELLS
) -> None:
    """Call ``fn(r0, r1)`` on consecutive row ranges covering ``range(n_rows)``, in threads.

    ``fn`` must only write rows ``r0:r1`` of its outputs. Blocks hold about ``block_cells``
    cells of ``n_cols`` columns each.
    """
    if n_rows == 0:
        return
    step = max(1, block_cells // max(n_cols, 1))
    starts = list(range(0, n_rows, step))
    threads = n_threads() if n_rows * n_cols >= _PARALLEL_FROM else 1
    if threads <= 1:
        for r0 in starts:
            fn(r0, min(n_rows, r0 + step))
        return
    # One task per thread (a contiguous run of blocks): few futures, balanced work.
    groups = np.array_split(np.asarray(starts), threads)

    def task(group: np.ndarray) -> Callable[[], None]:
        def run() -> None:
            for r0 in group.tolist():
                fn(r0, min(n_rows, r0 + step))

        return run

    _run([task(g) for g in groups if g.size], threads)


def all_integers(values: np.ndarray) -> bool:
    """Whether every value is an integer (NaN and ±inf are not), a cache-sized block at a
    time: no temporary the size of ``values`` (a fresh large array costs its page faults)."""
    flat = values.reshape(-1)
    step = 4 * _BLOCK_VALUES
    # x − round(x) is 0 at integers, NaN at NaN and ±inf (truthy), nonzero elsewhere.
    with np.errstate(invalid="ignore"):
        return not any(
            np.any(part - np.round(part))
            for part in (flat[i : i + step] for i in range(0, flat.size, step))
        )


def sum_and_min(values: np.ndarray, minimum: bool = True) -> tuple[float, float]:
    """``(values.sum(), values.min())`` in one pass over memory (blocks in cache, threads).

    For validation only: the sum says whether every value is finite, its rounding differs
    from ``values.sum()``'s. ``minimum=False`` skips the minimum (returned as ``+inf``).
    """
    flat = values.reshape(-1)
    size = flat.size
    if size == 0:
        return 0.0, np.inf
    step = 4 * _BLOCK_VALUES
    count = -(-size // step)
    sums = np.zeros(count)
    lows = np.full(count, np.inf)

    def block(r0: int, r1: int) -> None:
        part = flat[r0:r1]
        i = r0 // step
        with np.errstate(over="ignore", invalid="ignore"):
            sums[i] = part.sum()
        if minimum:
            lows[i] = part.min()

    for_row_blocks(size, 1, block, block_cells=step)
    with np.errstate(over="ignore", invalid="ignore"):
        return float(sums.sum()), float(lows.min())
