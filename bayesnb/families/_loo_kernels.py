"""Compiled own-class passes of the exact leave-one-out (numba, loaded on first use).

:class:`bayesnb.families._loo_search.OwnClass` sums, over each document's nonzeros, terms of
its own class tabulated on a grid of counts. Per row that is a gather from the grid, which
NumPy can only do through arrays the size of the nonzeros; these loops do it in one pass
(2–4× faster for ``alpha="loo"`` on 100,000 × 20,000 text, ``benchmarks/bench_crossval.py``).

numba is a dependency of PyTensor (so of PyMC): always installed with bayesnb. The kernels
are compiled on first use (cached on disk where numba can), only for inputs from
:data:`COMPILED_FROM` stored values (loading numba costs about a second once per process);
:func:`kernels` returns None when they cannot be compiled, for the caller to take the NumPy
path, which ``BAYESNB_JIT=0`` (read at every call) selects too.
"""

from __future__ import annotations

import os
import threading
import warnings
from types import SimpleNamespace

__all__ = ["COMPILED_FROM", "kernels"]

# Inputs from this many stored values on use the kernels: smaller ones (most tests, small CLI
# runs) never pay numba's load.
COMPILED_FROM = 1 << 18

_STATE: dict = {}
_LOCK = threading.Lock()


def _compile(njit) -> SimpleNamespace:
    import numpy as np

    @njit
    def own_downdate(
        indptr, indices, data, codes, weights, full, counts, grid, out
    ):  # pragma: no cover - compiled
        # out[i, d] += Σ_p x_p (grid[max(t_p − w_i x_p, 0), d] − grid[t_p, d]), t_p the count
        # of the row's class at the entry's feature (the caller guarantees integral
        # counts and w_i x_p), without the − grid[t_p, d] unless ``full``: one pass over the
        # nonzeros, the terms in their order (stored zeros add nothing).
        m = grid.shape[1]
        for i in range(out.shape[0]):
            c = codes[i]
            w = weights[i]
            for p in range(indptr[i], indptr[i + 1]):
                x = data[p]
                if x == 0.0:
                    continue
                t = counts[c, indices[p]]
                left = t - w * x
                lo = np.int64(left) if left > 0.0 else 0
                hi = np.int64(t)
                for d in range(m):
                    if full:
                        out[i, d] += x * (grid[lo, d] - grid[hi, d])
                    else:
                        out[i, d] += x * grid[lo, d]

    @njit
    def own_gather(indptr, indices, data, codes, counts, grid, out):  # pragma: no cover
        # out[i, d] += Σ_p x_p grid[c_i, t_p, d], t_p = counts[c_i, j_p] (integral).
        m = grid.shape[2]
        for i in range(out.shape[0]):
            c = codes[i]
            for p in range(indptr[i], indptr[i + 1]):
                x = data[p]
                if x == 0.0:
                    continue
                t = np.int64(counts[c, indices[p]])
                for d in range(m):
                    out[i, d] += x * grid[c, t, d]

    return SimpleNamespace(own_downdate=own_downdate, own_gather=own_gather)


def kernels() -> SimpleNamespace | None:
    """The compiled kernels, or None when numba is unavailable or cannot compile them, or
    when ``BAYESNB_JIT=0`` turns them off."""
    if os.environ.get("BAYESNB_JIT") == "0":
        return None
    if "kernels" in _STATE:
        return _STATE["kernels"]
    with _LOCK:
        if "kernels" not in _STATE:
            _STATE["kernels"] = _load()
    return _STATE["kernels"]


def _load() -> SimpleNamespace | None:
    try:
        import numba
    except ImportError:  # pragma: no cover - numba ships with PyTensor
        return None
    for cache in (True, False):  # a read-only install has nowhere to cache: compile anyway
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", numba.NumbaWarning)
                found = _compile(
                    lambda f, c=cache: numba.njit(nogil=True, cache=c, error_model="numpy")(f)
                )
                _warm(found)
            return found
        except Exception:  # pragma: no cover - numba refusing to compile or cache
            continue
    return None  # pragma: no cover


def _warm(found: SimpleNamespace) -> None:
    """Compile the float64 signatures the callers use (errors surface here, not mid-search)."""
    import numpy as np

    t = np.zeros((1, 2))
    ptr, codes = np.zeros(2, dtype=np.int32), np.zeros(1, dtype=np.intp)
    found.own_downdate(
        ptr, ptr[:1], np.zeros(1), codes, np.ones(1), True, np.zeros((1, 1)), t, np.zeros((1, 1))
    )
    found.own_gather(ptr, ptr[:1], np.zeros(1), codes, np.zeros((1, 1)), t[None], t[:, :1])
