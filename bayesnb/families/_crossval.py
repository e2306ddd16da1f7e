"""Exact leave-one-out from the statistics, shared by every family (``bayesnb.model_selection``).

The model fitted without document i is the fitted model with i's statistics subtracted
(:meth:`Family.subtract`). A family whose predictive of a left-out document only needs that
document's nonzeros implements :meth:`Family.loo_joint_log_proba`; otherwise
:func:`per_document` downdates a copy of the model one document at a time (exact, but a
statistics table per document). Learned hyperparameters (``alpha="evidence"``/``"loo"``,
``class_alpha="evidence"``) are held at their full-data values by both paths: re-learning
them per document would cost a search per document.
"""

from __future__ import annotations

import copy

import numpy as np

from bayesnb.families import family_of
from bayesnb.posterior.discrete import DirichletPosterior
from bayesnb.scoring.temperature import fit_temperature, tempered
from bayesnb.stats.discrete import CANCEL, cancel_rounding

__all__ = [
    "LOG_ALPHA_BOUNDS",
    "downdate",
    "emptied",
    "fixed_temperature",
    "label_log_likelihood",
    "learned_params",
    "learned_values",
    "loo_alpha_and_temperature",
    "loo_class_log_prior",
    "loo_joint",
    "loo_temperature",
    "maximise_in_log_alpha",
    "per_document",
    "pinned_copy",
    "weight_groups",
    "with_alpha",
]

# The derivative-free α search of alpha="loo", in log α: bounds, bracket step (×4), tolerance.
LOG_ALPHA_BOUNDS = (np.log(1e-6), np.log(1e4))
_STEP = np.log(4.0)
_XATOL = 0.01

# Cells per block of a dense downdate (128 KiB per operand: in a core's L2 cache).
_BLOCK = 1 << 14


def downdate(a, b):
    """``a − b`` for statistics (sums), exact zeros where the difference is rounding.

    Dense arrays give a new array; sparse matrices a CSR matrix with the zeros dropped.
    """
    import scipy.sparse as sp

    if sp.issparse(a) or sp.issparse(b):
        a, b = sp.csr_matrix(a), sp.csr_matrix(b)
        width = max(a.shape[1], b.shape[1])
        if a.shape[0] * width <= 1 << 20:  # small histograms: subtract densely
            dense = [np.pad(m.toarray(), ((0, 0), (0, width - m.shape[1]))) for m in (a, b)]
            return sp.csr_matrix(downdate(*dense))
        a.resize((a.shape[0], width))
        b.resize((b.shape[0], width))
        out = (a - b).tocsr()
        ref = abs(a).tocsr()
        # The reference on out's pattern: entries not stored in a are zero there.
        scale = np.asarray(ref[out.nonzero()]).ravel() if out.nnz else np.zeros(0)
        rows, cols = out.nonzero()
        vals = np.asarray(out[rows, cols]).ravel()
        keep = np.abs(vals) > CANCEL * scale  # the rest is cancellation: a refit holds 0
        out = sp.csr_matrix((vals[keep], (rows[keep], cols[keep])), shape=out.shape)
        out.sum_duplicates()
        return out
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim == 0:
        out = a - b
        return cancel_rounding(out, a)
    # Elementwise, a cache-sized block at a time (a K×V table is several passes otherwise).
    out = np.empty(a.shape)  # C order: its flat view is itself
    flat, fa, fb = out.reshape(-1), a.reshape(-1), b.reshape(-1)
    for s in range(0, flat.size, _BLOCK):
        cancel_rounding(
            np.subtract(fa[s : s + _BLOCK], fb[s : s + _BLOCK], out=flat[s : s + _BLOCK]),
            fa[s : s + _BLOCK],
        )
    return out


def emptied(total, removed) -> np.ndarray:
    """Where taking ``removed`` out of the sums ``total`` leaves nothing (up to rounding):
    the document empties its class, whose model a refit no longer has."""
    return total - removed <= CANCEL * total


def learned_values(est) -> list[str]:
    """The learning rules (``"evidence"``, ``"loo"``) among the parameters of ``est``."""
    return [
        v
        for v in est.get_params(deep=True).values()  # deep: a composite's blocks too
        if isinstance(v, str) and v in ("evidence", "loo")
    ]


def learned_params(est) -> dict:
    """The learned hyperparameters of fitted ``est`` as fixed parameters (name -> value)."""
    out = {}
    for name, value in est.get_params(deep=False).items():
        if isinstance(value, str) and value in ("evidence", "loo"):
            out[name] = getattr(est, f"{name}_")
    return out


def pinned_copy(est):
    """A deep copy of fitted ``est`` with learned hyperparameters fixed at their values."""
    out = copy.deepcopy(est._replace())  # its tables are not copied: derived again on use
    _pin(out, est)
    return out


def _pin(out, est) -> None:
    """Fix the learned hyperparameters of ``out`` (a copy of ``est``), blocks included."""
    pinned = learned_params(est)
    if pinned:
        out.set_params(**pinned)
    # A composite's fitted blocks learn their own (ColumnwiseNB's ``estimators_``).
    for (_, block, _), (_, orig, _) in zip(
        getattr(out, "estimators_", ()), getattr(est, "estimators_", ()), strict=True
    ):
        _pin(block, orig)


def with_alpha(est, alpha: float):
    """A shallow copy of fitted ``est`` scoring with ``alpha`` (statistics shared, read-only)."""
    pinned = {}
    if "class_alpha" in est.get_params(deep=False) and isinstance(est.class_alpha, str):
        pinned["class_alpha"] = est.class_alpha_
    return est._replace(alpha=alpha, **pinned)


def weight_groups(codes: np.ndarray, weights: np.ndarray):
    """Distinct (class, weight) pairs: their classes, weights, and each row's pair index."""
    if weights.size and np.ptp(weights) == 0:  # one weight (the usual case): no sort
        values, winv = weights[:1], np.zeros(weights.shape, np.intp)
    else:
        values, winv = np.unique(weights, return_inverse=True)
    k = int(codes.max()) + 1 if codes.size else 1
    pairs = winv.ravel() * k + codes
    if values.size * k <= max(64, pairs.size):  # few pairs: counted, not sorted
        seen = np.bincount(pairs, minlength=values.size * k) > 0
        keys = np.flatnonzero(seen)
        group = (np.cumsum(seen) - 1)[pairs]
    else:
        keys, group = np.unique(pairs, return_inverse=True)
    return (keys % k).astype(np.intp), values[keys // k], group.ravel()


def loo_class_log_prior(est, codes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """log p(c | labels without document i) for every row i and class c, shape (n, K).

    As a refit without i: N_c − w_i for i's class and N − w_i in total, under the class
    estimate of ``est``. A document whose class has no other labelled document leaves a
    refit with one class fewer: its class gets ``-inf`` and the others share the prior.
    """
    n, k = codes.shape[0], len(est.classes_)
    labelled = np.bincount(codes, minlength=k)
    alone = labelled[codes] == 1
    if alone.any() and k - 1 < 2:
        raise ValueError(
            f"leaving out document {int(np.flatnonzero(alone)[0])} leaves one class: a refit "
            "without it fails (a classifier needs at least 2 classes)"
        )
    if est.class_prior is not None:
        if alone.any():
            raise ValueError(
                f"leaving out document {int(np.flatnonzero(alone)[0])} removes class "
                f"{est.classes_[codes[alone][0]]!r}: a refit without it fails, class_prior "
                f"has {k} entries for {k - 1} classes"
            )
        return np.broadcast_to(est.class_log_prior_, (n, k)).copy()
    out = np.empty((n, k))
    if not est.fit_prior:
        out[:] = -np.log(k)
    else:
        # One prior per distinct (class, weight) pair: N_c − w for that class.
        gc, gw, group = weight_groups(codes, weights)
        counts = np.broadcast_to(est.class_count_, (gc.size, k)).copy()
        counts[np.arange(gc.size), gc] -= gw
        np.maximum(counts, 0.0, out=counts)
        post = DirichletPosterior(est.class_alpha_, counts, name="class_alpha")
        out[:] = post.log_estimate(est._class_estimate())[group]
    for i in np.flatnonzero(alone):
        keep = np.arange(k) != codes[i]
        out[i, codes[i]] = -np.inf
        if not est.fit_prior:
            out[i, keep] = -np.log(k - 1)
        else:
            post = DirichletPosterior(est.class_alpha_, est.class_count_[keep][None, :])
            out[i, keep] = post.log_estimate(est._class_estimate())[0]
    return out


def per_document(est, X, codes: np.ndarray, weights: np.ndarray, rows=None) -> np.ndarray:
    """log p(x_i, c | D without i) of ``rows`` (default all), one downdated copy per document.

    ``X`` is validated for ``est``; learned hyperparameters are held at their full values.
    """
    family = family_of(est, "bayesnb.model_selection")
    rows = np.arange(codes.shape[0]) if rows is None else np.asarray(rows)
    # The labels of every document decide which classes a refit keeps.
    prior = loo_class_log_prior(est, codes, weights)[rows] if rows.size else None
    out = np.empty((rows.size, len(est.classes_)))
    base = pinned_copy(est)
    for r, i in enumerate(rows):
        model = copy.deepcopy(base)
        one = slice(int(i), int(i) + 1)
        family.subtract(model, model._statistics(X[one], codes[one], weights[one]))
        out[r] = model._log_likelihood(X[one])[0]
    if rows.size:
        out += prior  # the class prior as a refit sees it (a lone document's class is gone)
    return out


def loo_joint(est, X, codes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """log p(x_i, c | D without i), (n, K): the family's fast path, else :func:`per_document`."""
    family = family_of(est, "bayesnb.model_selection")
    out = family.loo_joint_log_proba(est, X, codes, weights)
    if out is None:
        out = per_document(est, X, codes, weights)
    return out


def label_log_likelihood(joint: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """log p(y_i | x_i, ...) from joint log-probabilities (n, K) and the label codes."""
    # log Σ_k exp(J_ik) shifted by the row's maximum (0 where it is -inf: a row that every
    # class finds impossible has norm -inf), in NumPy: scipy's logsumexp costs several times
    # as much on (n, K) with small K.
    top = joint.max(axis=1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        norm = np.log(np.exp(joint - top).sum(axis=1)) + top[:, 0]
        return joint[np.arange(codes.shape[0]), codes] - norm


def fixed_temperature(est) -> float:
    """The numeric likelihood temperature of ``est`` (1 without one; ``"loo"`` is pinned to a
    number by the searches below before they score)."""
    tau = est.get_params(deep=False).get("temperature", 1.0)
    return 1.0 if isinstance(tau, str) else float(tau)


def loo_temperature(est, X, codes: np.ndarray, weights: np.ndarray) -> float:
    """``temperature="loo"``: the τ of the best exact LOO label log-likelihood of the training
    documents (validated ``X``, label codes, weights), the estimator's α held."""
    weights = np.asarray(weights, dtype=np.float64)
    fixed = est._replace(temperature=1.0)  # the joints do not depend on τ
    joint = loo_joint(fixed, X, codes, weights)
    return fit_temperature(joint, loo_class_log_prior(fixed, codes, weights), codes)


def maximise_in_log_alpha(objective, map_estimate: bool, xatol: float = _XATOL) -> float:
    """The α maximising ``objective(α)`` (an exact LOO label log-likelihood), derivative-free.

    A bracket is walked from α = 1 in steps of ×4 (within 1e-6 .. 1e4; the MAP needs α ≥ 1),
    then Brent's method narrows it to ``xatol`` in log α (1 %): about ten evaluations, each the
    cost of scoring the training documents once. A maximum at the upper bound warns.
    """
    from scipy.optimize import minimize_scalar

    from bayesnb.families._loo_search import warn_bound

    lo_bound = 0.0 if map_estimate else LOG_ALPHA_BOUNDS[0]
    cache: dict[float, float] = {}

    def loss(u: float) -> float:
        if u not in cache:
            value = -objective(float(np.exp(u)))
            cache[u] = value if np.isfinite(value) else np.finfo(float).max
        return cache[u]

    u = max(0.0, lo_bound)
    step = _STEP if loss(u + _STEP) < loss(u) else -_STEP
    while lo_bound <= u + step <= LOG_ALPHA_BOUNDS[1] and loss(u + step) < loss(u):
        u += step
    if not lo_bound <= u + step <= LOG_ALPHA_BOUNDS[1] and u != lo_bound:
        warn_bound(float(np.exp(u)), stacklevel=4)
        return float(np.exp(u))
    lo, hi = max(u - _STEP, lo_bound), min(u + _STEP, LOG_ALPHA_BOUNDS[1])
    res = minimize_scalar(loss, bounds=(lo, hi), method="bounded", options={"xatol": xatol})
    best = min(cache, key=cache.get)
    return float(np.exp(res.x if res.fun <= cache[best] else best))


def loo_alpha_and_temperature(est, X, codes: np.ndarray, weights: np.ndarray):
    """``alpha="loo"`` with ``temperature="loo"``: (α, τ) maximising the exact LOO label
    log-likelihood jointly, as the α maximising its profile max_τ L(α, τ) (τ found exactly
    at each α: :func:`bayesnb.scoring.temperature.fit_temperature`)."""
    weights = np.asarray(weights, dtype=np.float64)
    fixed = est._replace(temperature=1.0)  # the joints do not depend on τ
    prior = loo_class_log_prior(fixed, codes, weights)  # nor does the class prior on α
    found: dict[float, float] = {}

    def profile(alpha: float) -> float:
        joint = loo_joint(with_alpha(fixed, alpha), X, codes, weights)
        found[alpha] = tau = fit_temperature(joint, prior, codes)
        return float(np.sum(label_log_likelihood(tempered(joint, prior, tau), codes)))

    alpha = maximise_in_log_alpha(profile, est.estimate == "map", xatol=1e-4)
    if alpha not in found:
        profile(alpha)
    return alpha, found[alpha]
