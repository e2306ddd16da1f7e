"""Normalisation of joint log-probabilities over classes: log posteriors and probabilities.

The softmax of ``predict_proba`` runs by cache-sized blocks of rows
(:func:`bayesnb.scoring.blocks.for_row_blocks`) with the operations of the whole-matrix
formula ``exp(s - max s) / Σ exp(s - max s)``, so its numbers are that formula's bit for
bit. On large inputs the per-row passes are compiled loops (:mod:`bayesnb.scoring._jit`)
around NumPy's own exponential; otherwise, and where numba is unavailable, NumPy passes over
a class-major copy of the block.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

import bayesnb.scoring._jit as _jit
from bayesnb.scoring.blocks import for_row_blocks, row_sums_by_columns

__all__ = ["RowSoftmax", "normalize_log_proba", "normalize_proba", "prior_fallback"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # bayesnb/

# Score cells per block of the compiled passes: the block stays in L2 cache between them.
_COMPILED_CELLS = 1 << 15


def normalize_log_proba(joint: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """Normalise joint log-probabilities over classes (log-sum-exp) into log posteriors.

    Documents that every class finds impossible (all ``-inf``, as the MLE gives for a
    feature unseen in every class) fall back to the class prior, with one
    ``RuntimeWarning`` naming how many documents did.
    """
    top = joint.max(axis=1, keepdims=True)
    if not np.isfinite(top).all():
        joint = prior_fallback(joint, log_prior, _FALLBACK_WARNING)
        top = joint.max(axis=1, keepdims=True)
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
    blocks of rows that stay in cache, with the same operations per row as on the whole
    matrix; rows that every class finds impossible are redone from the class prior
    afterwards. ``overwrite``: ``joint`` is the caller's scratch array (a fresh product) and
    the probabilities are written over it when its dtype and layout allow, so no second
    (n_samples, n_classes) array is allocated.
    """
    n, k = joint.shape
    dtype = joint.dtype if offset is None else np.result_type(joint, offset)
    in_place = (
        overwrite
        and joint.dtype == dtype
        and joint.flags.c_contiguous
        and joint.flags.writeable
        and joint.flags.owndata
    )
    proba = joint if in_place else np.empty((n, k), dtype=dtype)
    if joint.flags.c_contiguous and RowSoftmax.applies(joint) and RowSoftmax.applies(proba):
        rows = RowSoftmax(n, log_prior, np.zeros(k) if offset is None else offset)
        for_row_blocks(n, k, lambda r0, r1: rows(joint, proba, r0, r1), _COMPILED_CELLS)
        return rows.result(proba)
    dead = np.zeros(n, dtype=bool)
    for_row_blocks(n, k, _numpy_block(joint, offset, proba, dead))
    return _refill(proba, dead, log_prior)


class RowSoftmax:
    """:func:`normalize_proba`'s compiled passes, on blocks of rows as they come.

    ``rows(src, dst, r0, r1)`` writes the softmax of ``src[r0:r1] + offset`` into
    ``dst[r0:r1]`` (``src`` may be ``dst``); a product calls it on each block of its output
    right after computing it (:func:`bayesnb.scoring.blocks.values_checked_by_products`),
    while the block is in cache. :meth:`result` then redoes the impossible rows.
    """

    def __init__(self, n: int, log_prior: np.ndarray, offset: np.ndarray) -> None:
        self.log_prior = log_prior
        self.offset = np.ascontiguousarray(offset, dtype=np.float64)
        self.dead = np.zeros(n, dtype=bool)

    @staticmethod
    def applies(scores: np.ndarray) -> bool:
        """Whether the compiled passes take these scores (large float64, few classes)."""
        n, k = scores.shape
        if n * k < _jit.COMPILED_FROM or not 0 < k <= _jit.MAX_CLASSES:
            return False
        if scores.dtype != np.float64 or not scores.flags.c_contiguous:
            return False
        # Their row sums are NumPy's pairwise order: the same check as the NumPy passes'.
        pairwise = row_sums_by_columns(np.zeros((k, 1))) is not None
        return pairwise and _jit.kernels(wait=False, size=n * k) is not None

    def accepts(self, out: np.ndarray) -> bool:
        """Whether a product's output can be finished in place (see :meth:`applies`)."""
        return out.shape == (self.dead.size, self.offset.size) and self.applies(out)

    def __call__(self, src: np.ndarray, dst: np.ndarray, r0: int, r1: int) -> None:
        rows = dst[r0:r1]
        kernels = _jit.kernels()  # loaded: accepts() said so
        kernels.shift_rows(src[r0:r1], self.offset, rows, self.dead[r0:r1])
        np.exp(rows, out=rows)
        kernels.divide_rows(rows)

    def result(self, proba: np.ndarray) -> np.ndarray:
        """``proba`` with the impossible rows (a non-finite maximum) redone from the prior."""
        return _refill(proba, self.dead, self.log_prior)


def _refill(proba: np.ndarray, dead: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """The rows ``dead`` of ``proba`` from the class prior (see :func:`prior_fallback`)."""
    if dead.any():
        rows = np.flatnonzero(dead)
        # Impossible rows become the prior whole: their scores (overwritten when in place) do
        # not enter the result.
        part = np.full((rows.size, proba.shape[1]), -np.inf, dtype=proba.dtype)
        part = prior_fallback(part, log_prior, _FALLBACK_WARNING)
        part = np.exp(part - part.max(axis=1, keepdims=True))
        part /= part.sum(axis=1, keepdims=True)
        proba[rows] = part
    return proba


def _numpy_block(joint: np.ndarray, offset, proba: np.ndarray, dead: np.ndarray):
    """The softmax of rows ``r0:r1`` in NumPy passes over a class-major copy of the block."""
    k = joint.shape[1]
    dtype = proba.dtype

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

    return block


_FALLBACK_WARNING = (
    "{n} document(s) have probability 0 under every class (an unsmoothed estimate, 'mle' or "
    "'map' at alpha = 1, gives probability 0 to features unseen in a class); their "
    "predictions fall back to the class prior. Use estimate='mean' to smooth."
)


def prior_fallback(joint: np.ndarray, log_prior, warning: str | None = None) -> np.ndarray:
    """``joint`` with every row that all classes find impossible replaced by the class prior.

    A document with probability 0 under every class (a row of ``joint`` whose maximum is not
    finite: all ``-inf``, as the MLE gives a feature unseen in every class) is scored by its
    class log prior alone. Prediction, cross-validated predictions and LOO, and the scoring
    of posterior draws all apply this rule through this function.

    Parameters
    ----------
    joint : ndarray of shape (..., n_classes)
        Joint log-probabilities, classes last: ``(n, K)``, or ``(n, draws, K)``.
    log_prior : array-like broadcastable to ``joint``
        The class log prior: ``(K,)``, one per row ``(n, K)``, or one per draw ``(draws, K)``
        for ``(n, draws, K)``.
    warning : str, optional
        A ``RuntimeWarning`` to give (at the caller of bayesnb) when some row is replaced:
        ``warning.format(n=...)`` with the number of rows.

    Returns
    -------
    ndarray
        ``joint`` itself when no row is impossible, else a copy with those rows replaced.
    """
    # Two whole-array reductions rule out the common case; rows are looked at only then.
    if joint.size == 0 or (joint.min() > -np.inf and joint.max() < np.inf):
        return joint
    dead = ~np.isfinite(joint.max(axis=-1))
    if not dead.any():
        return joint
    if warning is not None:
        warnings.warn(
            warning.format(n=int(dead.sum())),
            RuntimeWarning,
            skip_file_prefixes=(_PACKAGE,),  # at the caller of bayesnb, at any depth
        )
    joint = joint.copy()
    joint[dead] = np.broadcast_to(log_prior, joint.shape)[dead]
    return joint
