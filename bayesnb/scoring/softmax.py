"""Normalisation of joint log-probabilities over classes: log posteriors and probabilities.

The softmax of ``predict_proba`` runs by cache-sized blocks of rows
(:func:`bayesnb.scoring.blocks.for_row_blocks`) as ``exp(s - max s) / Σ exp(s - max s)``,
each row's sum taken over its classes in order, in NumPy passes over a class-major copy of
the block.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from bayesnb.scoring.blocks import for_row_blocks

__all__ = ["normalize_log_proba", "normalize_proba", "prior_fallback"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # bayesnb/

# Score cells per block: the block stays in L2 cache between the passes over it.
_BLOCK_CELLS = 1 << 15


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
    log_total: np.ndarray | None = None,
) -> np.ndarray:
    """``exp`` of :func:`normalize_log_proba` with one exponential per cell, not two.

    ``offset`` (the class log prior, say) is added to ``joint`` first. The softmax runs by
    blocks of rows that stay in cache; rows that every class finds impossible are redone
    from the class prior afterwards. ``overwrite``: ``joint`` is the caller's scratch array
    (a fresh product) and the probabilities are written over it when its dtype and layout
    allow, so no second (n_samples, n_classes) array is allocated. ``log_total``, an
    (n_samples,) array, receives each row's log Σ_c exp(joint + offset) (log p(x) when the
    joint is log p(x, c)) from the same pass: the row's maximum where that is not finite.
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
    offset = np.zeros(k, dtype=dtype) if offset is None else np.asarray(offset, dtype=dtype)
    dead = np.zeros(n, dtype=bool)
    for_row_blocks(n, k, _block(joint, offset, proba, dead, log_total), _BLOCK_CELLS)
    return _refill(proba, dead, log_prior)


def _block(joint: np.ndarray, offset, proba: np.ndarray, dead: np.ndarray, log_total=None):
    """The softmax of rows ``r0:r1`` in NumPy passes over a class-major copy of the block."""
    k = joint.shape[1]

    def block(r0: int, r1: int) -> None:
        # Class-major (k, rows) inside the block: every pass is a contiguous vector operation
        # (row-major, each is a reduction or a broadcast over k-value rows), and the sum over
        # axis 0 adds the classes in order.
        t = np.empty((k, r1 - r0), dtype=proba.dtype)
        np.add(joint[r0:r1].T, offset[:, None], out=t)
        top = t.max(axis=0)
        with np.errstate(invalid="ignore"):  # an impossible row (-inf - -inf), redone below
            t -= top
        np.exp(t, out=t)
        total = t.sum(axis=0)
        t /= total
        proba[r0:r1] = t.T  # joint's rows r0:r1 are read above: safe to overwrite in place
        finite = np.isfinite(top)
        dead[r0:r1] = ~finite
        if log_total is not None:
            with np.errstate(invalid="ignore"):
                log_total[r0:r1] = np.where(finite, top + np.log(total), top)

    return block


def _refill(proba: np.ndarray, dead: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """The rows ``dead`` of ``proba`` from the class prior, with _with_fallback's warning."""
    if dead.any():
        rows = np.flatnonzero(dead)
        # A dead row's maximum is not finite, so _with_fallback replaces the whole row by the
        # prior: its scores (overwritten when in place) do not enter the result.
        part = np.full((rows.size, proba.shape[1]), np.nan, dtype=proba.dtype)
        part, top = _with_fallback(part, log_prior)
        part = np.exp(part - top)
        part /= part.sum(axis=1, keepdims=True)
        proba[rows] = part
    return proba


def _with_fallback(joint: np.ndarray, log_prior: np.ndarray):
    """Row maxima of ``joint``, impossible rows replaced by the class prior (with a warning)."""
    joint = prior_fallback(joint, log_prior, _FALLBACK_WARNING)
    return joint, joint.max(axis=1, keepdims=True)


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
