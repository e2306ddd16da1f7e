"""Compiled row passes of the softmax and of the value checks (numba, loaded on first use).

NumPy runs the softmax of a few classes per row as a dozen passes over the scores (and two
transpositions to make them contiguous); these loops do the per-row work of all but the
exponential in two passes, with the operations of the NumPy formula in its order:

- ``shift_rows``: ``s = x + offset`` and ``s - max(s)`` (the maximum as ``np.max``
  takes it: NaN when a value is NaN), and whether the row's maximum is finite;
- NumPy's own ``np.exp`` (the caller's; its SIMD exponential, the NumPy passes' bits);
- ``divide_rows``: each row divided by its sum (the classes added in order, as the NumPy
  passes of :mod:`bayesnb.scoring.softmax` add them);
- ``unusual_values``: whether stored values need the full value checks of validation
  (a NaN, an infinity, or a negative value where counts are required), in one pass;
- ``own_downdate`` / ``own_gather``: the own-class downdate of alpha="loo"'s kernels, per
  row, from a grid of per-count terms (``bayesnb.families._loo_search``);
- ``binarize``: ``values > threshold`` as 0/1 floats into a caller's buffer (one pass,
  no temporary boolean array), and ``all_above``: whether they are all 1 (the caller then
  multiplies by a buffer of ones instead of writing them).

numba is a dependency of PyTensor (so of PyMC): always installed with bayesnb. The kernels
are compiled lazily (cached on disk where numba can), and :func:`kernels` returns None when
they cannot be, for the callers to take the NumPy path; small inputs never compile them.
``BAYESNB_JIT=0`` (read at every call) turns them off: everything runs as without numba.
"""

from __future__ import annotations

import os
import threading
import warnings
from types import SimpleNamespace

__all__ = ["COMPILED_FROM", "kernels"]

# Inputs from this many values (or score cells) on use the kernels: loading numba costs about
# a second once per process, which small inputs (most tests, small CLI runs) never pay.
COMPILED_FROM = 1 << 18

_STATE: dict = {}
_LOCK = threading.Lock()


def _compile(njit):
    import numpy as np

    @njit
    def shift_rows(src, offset, dst, dead):  # pragma: no cover - compiled
        n, k = src.shape
        for i in range(n):
            # The maximum in four independent selects (a maximum is exact in any order), the
            # NaN flag on the side; then (src + offset) - top, recomputed rather than stored.
            t0 = t1 = t2 = t3 = -np.inf
            nan = 0
            c = 0
            while c + 4 <= k:
                v0 = src[i, c] + offset[c]
                v1 = src[i, c + 1] + offset[c + 1]
                v2 = src[i, c + 2] + offset[c + 2]
                v3 = src[i, c + 3] + offset[c + 3]
                t0 = v0 if v0 > t0 else t0
                t1 = v1 if v1 > t1 else t1
                t2 = v2 if v2 > t2 else t2
                t3 = v3 if v3 > t3 else t3
                nan |= np.int64(v0 != v0) | np.int64(v1 != v1)
                nan |= np.int64(v2 != v2) | np.int64(v3 != v3)
                c += 4
            while c < k:
                v0 = src[i, c] + offset[c]
                t0 = v0 if v0 > t0 else t0
                nan |= np.int64(v0 != v0)
                c += 1
            t0 = t1 if t1 > t0 else t0
            t2 = t3 if t3 > t2 else t2
            top = t2 if t2 > t0 else t0
            if nan:
                top = np.nan
            dead[i] = not (abs(top) < np.inf)
            for c in range(k):
                dst[i, c] = (src[i, c] + offset[c]) - top

    @njit
    def divide_rows(t):  # pragma: no cover - compiled
        n, k = t.shape
        for i in range(n):
            total = t[i, 0]
            for c in range(1, k):
                total += t[i, c]
            for c in range(k):
                t[i, c] = t[i, c] / total

    @njit
    def unusual_values(values, nonnegative):  # pragma: no cover - compiled
        # x - x is 0 exactly when x is finite (NaN and ±inf give NaN); integer flags, no
        # branch: the loop vectorises.
        infinite = 0
        negative = 0
        for i in range(values.shape[0]):
            x = values[i]
            infinite |= np.int64(not (x - x == 0.0))
            negative |= np.int64(x < 0.0)
        return infinite != 0 or (nonnegative and negative != 0)

    @njit
    def binarize(values, threshold, out):  # pragma: no cover - compiled
        for i in range(values.shape[0]):
            out[i] = 1.0 if values[i] > threshold else 0.0  # NaN > t is false, as in NumPy

    @njit
    def all_above(values, threshold):  # pragma: no cover - compiled
        below = 0
        for i in range(values.shape[0]):
            below |= np.int64(not (values[i] > threshold))
        return below == 0

    @njit
    def own_downdate(
        indptr, indices, data, codes, weights, full, counts, grid, out
    ):  # pragma: no cover
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

    return SimpleNamespace(
        own_downdate=own_downdate,
        own_gather=own_gather,
        shift_rows=shift_rows,
        divide_rows=divide_rows,
        unusual_values=unusual_values,
        binarize=binarize,
        all_above=all_above,
    )


def kernels():
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


def _load():
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


def _warm(found) -> None:
    """Compile the float64 signatures the callers use (errors surface here, not mid-predict)."""
    import numpy as np

    t = np.zeros((1, 2))
    found.shift_rows(t, np.zeros(2), t, np.zeros(1, dtype=bool))
    found.divide_rows(np.ones((1, 2)))
    found.unusual_values(np.zeros(1), True)
    found.binarize(np.zeros(1), 0.0, np.zeros(1))
    found.all_above(np.zeros(1), 0.0)
    ptr, codes = np.zeros(2, dtype=np.int32), np.zeros(1, dtype=np.intp)
    found.own_downdate(
        ptr, ptr[:1], np.zeros(1), codes, np.ones(1), True, np.zeros((1, 1)), t, np.zeros((1, 1))
    )
    found.own_gather(ptr, ptr[:1], np.zeros(1), codes, np.zeros((1, 1)), t[None], t[:, :1])
