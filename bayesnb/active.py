"""Which document to label next: pool documents ranked by what their label would teach.

For a fitted conjugate estimator and a pool of unlabelled documents, :func:`rank_pool` scores
every document by one of four strategies and orders the pool best first; :func:`query` is the
``n`` best; :func:`active_learning_curve` replays the loop (label the best, refit, rank again)
with an oracle that knows the labels, for benchmarks and tests.

- ``"bald"`` (Houlsby et al. 2011, "Bayesian active learning by disagreement"): the mutual
  information I(y; θ | x, D) between the label y of x and the parameters θ (formula below),
  θ ~ p(θ | D), the exact conjugate posterior. A document on which the draws agree, however
  unsure each is, scores 0: labelling it teaches nothing about θ.
- ``"entropy"``: H[p(y | x)] under the estimator's estimate (``estimate=`` another one;
  ``"bayes"`` is the exact posterior predictive).
- ``"margin"``: p(y₁ | x) − p(y₂ | x), the top two classes under that estimate; the smallest
  margin is labelled first.
- ``"random"``: a seeded uniform order, the baseline.

The mutual information, p̄ the average of p(y | x, θ) over the posterior::

    I(y; θ | x, D) = H[E_θ p(y | x, θ)] − E_θ H[p(y | x, θ)] = E_θ KL(p(y | x, θ) ‖ p̄(y | x))

Every score is at **temperature 1**, the model's own posterior and predictive: the
estimator's ``temperature`` (a calibration of ``predict_proba``, ``docs/design.md`` §1) is
not applied. BALD's expectation is over p(θ | D), the posterior draws of
:func:`bayesnb.uncertainty.log_proba_draws`, not over p(θ | D, x): a generative model's
unlabelled x is itself evidence about θ, which that standard definition leaves out (the
weights p(x | θ_s) would also concentrate on very few draws for a long document).

The code uses the estimator's workflow only (exact draws, the joint log-likelihood), so every
family with exact posterior draws works as it is; a family without them (the DCM's draws are
a Laplace approximation) is refused for ``"bald"``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.base import clone

from bayesnb.families import family_of
from bayesnb.scoring.softmax import normalize_log_proba
from bayesnb.uncertainty import log_proba_draws
from bayesnb.validation import check_fitted, check_int, take

__all__ = ["STRATEGIES", "Ranking", "active_learning_curve", "query", "rank_pool"]

STRATEGIES = ("bald", "entropy", "margin", "random")

_WHERE = "bayesnb.active"
# Cells of one (draws, documents, classes) temporary of the BALD reduction.
_BLOCK_CELLS = 1 << 22


class Ranking(NamedTuple):
    """A ranked pool.

    Attributes
    ----------
    order : ndarray of int, shape (n_pool,)
        Pool row indices, best first (ties in pool order).
    scores : ndarray of float, shape (n_pool,)
        Each document's score, in pool order: nats for ``"bald"`` and ``"entropy"``
        (highest first), a probability difference for ``"margin"`` (lowest first), the
        uniform draw for ``"random"`` (highest first).
    se : ndarray of float or None
        ``"bald"``: the Monte Carlo standard error of each score; None otherwise (exact).
    strategy : str
    """

    order: np.ndarray
    scores: np.ndarray
    se: np.ndarray | None
    strategy: str


def _bald(lp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mutual information and its standard error from log p(c | x, θ_s), shape (S, n, K).

    I = (1/S) Σ_s KL(p_s ‖ p̄), log p̄ = logsumexp_s log p_s − log S; each KL is ≥ 0, so
    rounding below 0 is cut at 0.
    """
    s, n, k = lp.shape
    mi, se = np.empty(n), np.empty(n)
    step = max(1, _BLOCK_CELLS // (s * k))
    for r0 in range(0, n, step):
        block = lp[:, r0 : r0 + step]
        top = block.max(axis=0)
        top = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore"):
            lbar = np.log(np.exp(block - top).sum(axis=0)) + top - np.log(s)
        p = np.exp(block)
        with np.errstate(invalid="ignore"):
            terms = np.where(p > 0, p * (block - lbar), 0.0)
        kl = np.maximum(terms.sum(axis=2), 0.0)
        mi[r0 : r0 + step] = kl.mean(axis=0)
        se[r0 : r0 + step] = kl.std(axis=0, ddof=1) / np.sqrt(s)
    return mi, se


def _point_log_proba(est, X, estimate) -> np.ndarray:
    """log p(c | x) at temperature 1 under ``estimate`` (None: the estimator's own)."""
    view = est if estimate is None else est._replace(estimate=estimate)
    return normalize_log_proba(view.predict_joint_log_proba(X), view.class_log_prior_)


def _entropy(lp: np.ndarray) -> np.ndarray:
    p = np.exp(lp)
    with np.errstate(invalid="ignore"):
        return -np.where(p > 0, p * lp, 0.0).sum(axis=1)


def _margin(lp: np.ndarray) -> np.ndarray:
    if lp.shape[1] < 2:
        return np.ones(lp.shape[0])
    top2 = np.sort(np.exp(lp), axis=1)[:, -2:]
    return top2[:, 1] - top2[:, 0]


def rank_pool(
    estimator,
    X_pool,
    strategy: str = "bald",
    *,
    n_draws: int = 200,
    estimate: str | None = None,
    random_state=None,
    max_bytes: float = 2e9,
) -> Ranking:
    """Rank pool documents by how much their label is worth, best first.

    Parameters
    ----------
    estimator : fitted bayesnb estimator
        Any family (ColumnwiseNB included); ``"bald"`` needs exact posterior draws.
    X_pool : array-like or sparse matrix of shape (n_pool, n_features)
        The unlabelled documents (sparse stays sparse).
    strategy : {"bald", "entropy", "margin", "random"}, default "bald"
    n_draws : int, default 200
        ``"bald"``: exact posterior draws (at least 2). See Notes for the error this leaves.
    estimate : {"mle", "map", "mean", "bayes"} or None, default None
        ``"entropy"`` and ``"margin"``: the estimate whose p(c | x) is scored (None: the
        estimator's own; ``"bayes"``: the exact posterior predictive).
    random_state : int, SeedSequence, Generator or None
        Seeds the draws (``"bald"``) or the order (``"random"``): the same seed, pool and
        ``max_bytes`` give the same ranking on one machine.
    max_bytes : float, default 2e9
        ``"bald"``: refuse when the draws' log-probabilities (n_draws × n_pool × classes ×
        8 bytes) would exceed it (:func:`bayesnb.uncertainty.log_proba_draws`).

    Returns
    -------
    Ranking
        ``order`` (best first), ``scores``, ``se`` (``"bald"`` only) and ``strategy``.

    Notes
    -----
    **Monte Carlo error of BALD.** With S draws the score is
    Î = H[p̄_S] − (1/S) Σ_s H[p_s] = (1/S) Σ_s KL(p_s ‖ p̄_S). Its standard error is
    sd_s KL(p_s ‖ p̄_S) / √S (``se``; p̄_S minimises Σ_s KL(p_s ‖ q) over q, so its own
    error enters at second order only), and it is biased low, since H is concave, by about
    Σ_c Var_θ[p(c | x, θ)] / (2 S p̄_c) ≤ (K − 1) / (2S) nats. Two documents whose scores
    differ by less than a few ``se`` are tied at this ``n_draws``. The entropy and margin
    are exact.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    fam = family_of(estimator, _WHERE)
    check_fitted(estimator)
    se = None
    if strategy == "random":
        n = estimator._check_input(X_pool, reset=False).shape[0]
        scores = np.random.default_rng(random_state).random(n)
    elif strategy == "bald":
        if not fam.closed_form_predictive(estimator):
            raise fam.unsupported(
                "exact posterior draws (BALD's mutual information needs them; 'entropy' "
                "and 'margin' work from the estimate)"
            )
        n_draws = check_int(n_draws, "n_draws", minimum=2)
        lp = log_proba_draws(
            estimator, X_pool, draws=n_draws, chains=1, random_seed=random_state,
            max_bytes=max_bytes,
        )  # fmt: skip
        scores, se = _bald(lp[0])
    else:
        lp = _point_log_proba(estimator, X_pool, estimate)
        scores = _entropy(lp) if strategy == "entropy" else _margin(lp)
    key = scores if strategy == "margin" else -scores
    order = np.argsort(key, kind="stable")
    return Ranking(order=order, scores=scores, se=se, strategy=strategy)


def query(estimator, X_pool, n: int = 1, strategy: str = "bald", **options) -> np.ndarray:
    """The pool row indices of the ``n`` documents to label next, best first.

    ``rank_pool(estimator, X_pool, strategy, **options).order[:n]``; see :func:`rank_pool`.
    """
    n = check_int(n, "n")
    return rank_pool(estimator, X_pool, strategy, **options).order[:n]


def active_learning_curve(
    estimator,
    X_pool,
    y_pool,
    X_test,
    y_test,
    strategy: str = "bald",
    *,
    n_labels: int = 50,
    batch_size: int = 1,
    n_draws: int = 200,
    estimate: str | None = None,
    random_state=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Held-out accuracy against the number of labels, choosing them by ``strategy``.

    The loop of pool-based active learning with an oracle: start from one pool document per
    class (drawn from ``random_state``), fit a clone of ``estimator``, rank the rest of the
    pool (:func:`rank_pool`), label its ``batch_size`` best (their ``y_pool``), refit, and
    so on until ``n_labels`` documents are labelled.

    Parameters
    ----------
    estimator : unfitted bayesnb estimator (cloned)
    X_pool, y_pool : the pool and the labels the oracle reveals
    X_test, y_test : held-out documents the accuracy is measured on
    strategy, n_draws, estimate : as :func:`rank_pool`
    n_labels : int, default 50
        The last number of labelled documents (at least the number of classes).
    batch_size : int, default 1
        Documents labelled between two refits.
    random_state : int or None
        Seeds the starting documents and, spawned once per round, every ranking.

    Returns
    -------
    n_labelled : ndarray of int
        The numbers of labelled documents at which accuracy was measured.
    accuracy : ndarray of float
        ``estimator.predict`` accuracy on ``X_test`` after each.
    """
    y_pool, y_test = np.asarray(y_pool), np.asarray(y_test)
    classes = np.unique(y_pool)
    n_labels = check_int(n_labels, "n_labels", minimum=len(classes))
    batch_size = check_int(batch_size, "batch_size")
    if n_labels > len(y_pool):
        raise ValueError(f"n_labels={n_labels} is above the pool's {len(y_pool)} documents")
    seeds = np.random.SeedSequence(random_state)
    rng = np.random.default_rng(seeds.spawn(1)[0])
    labelled = [int(rng.choice(np.flatnonzero(y_pool == c))) for c in classes]
    counts, accuracy = [], []
    while True:
        model = clone(estimator).fit(take(X_pool, labelled), y_pool[labelled])
        counts.append(len(labelled))
        accuracy.append(float(np.mean(model.predict(X_test) == y_test)))
        if len(labelled) >= n_labels:
            break
        rest = np.setdiff1d(np.arange(len(y_pool)), labelled)
        ranking = rank_pool(
            model, take(X_pool, rest), strategy, n_draws=n_draws, estimate=estimate,
            random_state=seeds.spawn(1)[0],
        )  # fmt: skip
        labelled += rest[ranking.order[: min(batch_size, n_labels - len(labelled))]].tolist()
    return np.asarray(counts), np.asarray(accuracy)
