"""Normalisation of joint log-probabilities over classes: log posteriors and probabilities.

The softmax of ``predict_proba`` runs by cache-sized blocks of rows
(:func:`bayesnb.scoring.blocks.for_row_blocks`) with the operations of the whole-matrix
formula, so its numbers are those of that formula bit for bit.
"""

from __future__ import annotations

import warnings

import numpy as np

from bayesnb.scoring.blocks import for_row_blocks, row_sums_by_columns

__all__ = ["normalize_log_proba", "normalize_proba"]

# Score cells per softmax block: the block and its class-major copy (512 KiB each) stay in a
# core's L2 cache; larger blocks than the kernels' default halve the per-block Python calls.
_SOFTMAX_CELLS = 1 << 16


def normalize_log_proba(joint: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """Normalise joint log-probabilities over classes (log-sum-exp) into log posteriors.

    Documents that every class finds impossible (all ``-inf``, as the MLE gives for a
    feature unseen in every class) fall back to the class prior, with one
    ``RuntimeWarning`` naming how many documents did.
    """
    joint, top = _with_fallback(joint, log_prior)
    with np.errstate(divide="ignore"):
        shifted = joint - top
        lse = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return shifted - lse


def normalize_proba(
    joint: np.ndarray,
    log_prior: np.ndarray,
    offset: np.ndarray | None = None,
    overwrite: bool = False,
) -> np.ndarray:
    """``exp`` of :func:`normalize_log_proba` with one exponential per cell, not two.

    ``offset`` (the class log prior, say) is added to ``joint`` first. The softmax runs by
    blocks of rows that stay in cache (:func:`bayesnb.scoring.blocks.for_row_blocks`), with
    the same operations per row as on the whole matrix; rows that every class finds
    impossible are redone from the class prior afterwards. ``overwrite``: ``joint`` is a
    scratch array of the caller's (a fresh product) and the probabilities are written into
    it when its dtype allows, so no second (n_samples, n_classes) array is allocated.
    """
    n, k = joint.shape
    dtype = joint.dtype if offset is None else np.result_type(joint, offset)
    in_place = (
        overwrite
        and joint.dtype == dtype
        and joint.flags.c_contiguous
        and joint.flags.writeable
        and joint.base is None
    )
    proba = joint if in_place else np.empty((n, k), dtype=dtype)
    dead = np.zeros(n, dtype=bool)

    def block(r0: int, r1: int) -> None:
        # Class-major (k, rows) inside the block: every pass is a contiguous vector operation
        # (row-major, each is a reduction or a broadcast over k-value rows).
        t = np.empty((k, r1 - r0), dtype=dtype)
        if offset is None:
            t[...] = joint[r0:r1].T
        else:
            np.add(joint[r0:r1].T, offset[:, None], out=t)
        top = t.max(axis=0)
        with np.errstate(invalid="ignore"):  # an impossible row (-inf - -inf), redone below
            t -= top
        np.exp(t, out=t)
        total = row_sums_by_columns(t)
        if total is None:  # NumPy sums rows in another order: sum row-major
            total = np.ascontiguousarray(t.T).sum(axis=1)
        t /= total
        proba[r0:r1] = t.T  # joint's rows r0:r1 are read above: safe to overwrite in place
        dead[r0:r1] = ~np.isfinite(top)

    for_row_blocks(n, k, block, block_cells=_SOFTMAX_CELLS)
    if dead.any():
        rows = np.flatnonzero(dead)
        # A dead row's maximum is not finite, so _with_fallback replaces the whole row by the
        # prior: its scores (overwritten when in place) do not enter the result.
        if in_place:
            part = np.full((rows.size, k), np.nan, dtype=dtype)
        else:
            part = joint[rows] if offset is None else joint[rows] + offset
        part, top = _with_fallback(part, log_prior)
        part = np.exp(part - top)
        part /= part.sum(axis=1, keepdims=True)
        proba[rows] = part
    return proba


def _with_fallback(joint: np.ndarray, log_prior: np.ndarray):
    """Row maxima of ``joint``; impossible rows replaced by the class prior (with a warning)."""
    top = joint.max(axis=1, keepdims=True)
    dead = ~np.isfinite(top[:, 0])
    if dead.any():
        warnings.warn(
            f"{int(dead.sum())} document(s) have probability 0 under every class (an "
            "unsmoothed estimate, 'mle' or 'map' at alpha = 1, gives probability 0 to "
            "features unseen in a class); their predictions fall back to the class prior. "
            "Use estimate='mean' to smooth.",
            RuntimeWarning,
            stacklevel=4,
        )
        joint = joint.copy()
        joint[dead] = log_prior
        top[dead, 0] = joint[dead].max(axis=1)
    return joint, top
