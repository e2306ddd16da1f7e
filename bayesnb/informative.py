"""Most informative features: posterior log-odds ratios of one class against another.

For an ordered pair of classes (a, b) and feature j the quantity ranked is the log-ratio of
the two classes' parameters,

- MultinomialNB: ``log(φ_aj / φ_bj)``, φ_c the class's word distribution. Under the
  Dirichlet(α_c·) posterior the marginal of φ_aj is Beta(α_aj, A_a − α_aj) with
  ``A_a = Σ_j α_aj``, so ``E[log φ_aj] = ψ(α_aj) − ψ(A_a)`` and
  ``Var[log φ_aj] = ψ'(α_aj) − ψ'(A_a)``;
- BernoulliNB: ``log(θ_aj / θ_bj)`` with θ_aj ~ Beta(a_aj, b_aj), the same formulas with
  ``A = a + b``;
- PoissonNB (when installed): ``log(λ_aj / λ_bj)`` with λ_aj ~ Gamma(shape, rate),
  ``E[log λ] = ψ(shape) − log(rate)`` and ``Var[log λ] = ψ'(shape)``.

The classes' posteriors are independent, so the mean and the standard deviation of the
log-ratio are exact (digamma differences, trigamma sums). The equal-tailed credible interval
is a quantile of the exact posterior of the log-ratio, the difference of two independent
log-Beta (log-Gamma) variables, which has no closed-form quantile: it is estimated from
``draws`` exact independent posterior draws (seeded by ``random_seed``). With the default
10 000 draws the Monte Carlo error of a 5% tail probability is about ±0.002, far below the
interval's width. Draws are made in log space (``log G = log G' + log U / s`` for a
Gamma(s < 1) variable, G' ~ Gamma(s + 1)), so tiny concentrations never underflow to log 0.

Features are ranked (largest first) by the lower end of that interval (``rank="lower"``,
the default) or by the exact posterior mean (``rank="mean"``). The mean favours features the
rival class never used: their ratio is bounded by the prior alone, so a rare exclusive word
outranks a frequent word that is merely much likelier in the class, and the top of the list
is a row of such words with the same wide interval. The lower end ranks a feature by how
large the data say its ratio surely is (with probability ``(1 + ci_prob) / 2``).

Only the candidates get draws, so a 10⁵-word vocabulary costs one digamma table: under
``"mean"`` the top ``n``; under ``"lower"`` the ``max(5 n, 100)`` features of the largest
normal-approximation lower end ``mean − z sd`` (exact moments, ``z`` the normal quantile),
whose exact lower ends (the interval's quantile from the draws) are then sorted. With fewer
features than that every feature is a candidate, and the ranking is the sort of every
feature's lower end.

The marginals, their moments and their draws come from the model's family (the
``informative_*`` methods of the family protocol); a family without them is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real

import numpy as np
import pandas as pd
from scipy.special import ndtri

from bayesnb.families import Family, family_of, get, has_family
from bayesnb.families import names as family_names
from bayesnb.pipeline import final_estimator
from bayesnb.validation import check_fitted, check_int

__all__ = ["RANKS", "most_informative_features"]

#: What most_informative_features ranks by: the lower end of the credible interval of the
#: log-odds ratio, or its posterior mean.
RANKS = ("lower", "mean")


def _supports(family: Family) -> bool:
    """Whether ``family`` provides the marginals most_informative_features ranks."""
    return type(family).informative_marginals is not Family.informative_marginals


def _supported() -> str:
    """The estimators of the registered families that have informative features."""
    labels = [f.estimator.__name__ for f in map(get, family_names()) if _supports(f)]
    return ", ".join(labels[:-1]) + " and " + labels[-1] if len(labels) > 1 else "".join(labels)


def _family(est) -> Family:
    """The family of ``est``; a TypeError naming the supported models for any other."""
    family = family_of(est) if has_family(est) else None
    if family is not None and _supports(family):
        return family
    why = getattr(family, "informative_refusal", None)
    if why:
        raise TypeError(f"most_informative_features: {why}; it supports {_supported()}")
    raise TypeError(
        f"most_informative_features does not support {type(est).__name__}; it supports "
        f"fitted bayesnb {_supported()}"
    )


def _pairs(classes, labels: np.ndarray) -> list[tuple[int, int]]:
    """Ordered class-index pairs from ``classes`` (None, a list of labels, or of pairs)."""
    k = labels.size
    lookup = {str(c): i for i, c in enumerate(labels)}

    def index(c) -> int:
        key = str(c)
        if key not in lookup:
            raise ValueError(
                f"classes holds {c!r}, which is not a class of the model {list(labels)!r}"
            )
        return lookup[key]

    if classes is None:
        return [(i, j) for i in range(k) for j in range(k) if i != j]
    if isinstance(classes, str) or not isinstance(classes, Sequence | np.ndarray):
        raise TypeError(
            "classes must be None, a list of class labels, or a list of (class, versus) "
            f"pairs, got {classes!r}"
        )
    items = list(classes)
    if not items:
        raise ValueError("classes must name at least one pair of classes, got an empty list")
    is_pair = [isinstance(x, tuple | list) for x in items]
    if all(is_pair):
        out = []
        for x in items:
            if len(x) != 2:
                raise ValueError(f"classes: every pair must be (class, versus), got {x!r}")
            i, j = index(x[0]), index(x[1])
            if i == j:
                raise ValueError(f"classes: a pair must hold two different classes, got {x!r}")
            out.append((i, j))
        return list(dict.fromkeys(out))
    if any(is_pair):
        raise ValueError("classes must be all class labels or all (class, versus) pairs")
    idx = list(dict.fromkeys(index(x) for x in items))
    if len(idx) < 2:
        raise ValueError(f"classes must name at least two different classes, got {classes!r}")
    return [(i, j) for i in idx for j in idx if i != j]


def _names(est, feature_names) -> np.ndarray:
    d = est.n_features_in_
    if feature_names is None:
        names = getattr(est, "feature_names_in_", None)
        if names is None:
            return np.array([f"x{j}" for j in range(d)], dtype=object)
        return np.asarray([str(x) for x in names], dtype=object)
    if isinstance(feature_names, str):
        raise TypeError("feature_names must be a sequence of names, not a single string")
    names = np.asarray([str(x) for x in feature_names], dtype=object)
    if names.ndim != 1 or names.size != d:
        raise ValueError(
            f"feature_names must hold one name per feature ({d}), got {names.size} names"
        )
    return names


def most_informative_features(
    est,
    n: int = 20,
    classes=None,
    ci_prob: float = 0.9,
    *,
    feature_names: Sequence[str] | None = None,
    draws: int = 10_000,
    random_seed=0,
    rank: str = "lower",
) -> pd.DataFrame:
    """Features with the largest posterior log-odds ratio of one class against another.

    For every ordered pair (a, b) the features are ranked by the posterior of
    ``log(φ_aj / φ_bj)`` (MultinomialNB: word probabilities under the Dirichlet posterior;
    BernoulliNB: presence probabilities under the Beta posterior; PoissonNB: rates under the
    Gamma posterior), largest first, so the top features are those most indicative of ``a``
    rather than ``b``: by default by the lower end of its credible interval (a ratio the
    data pin down), with ``rank="mean"`` by its exact mean. See the module docstring for
    the formulas and the candidates of each ranking.

    Parameters
    ----------
    est : fitted bayesnb MultinomialNB, BernoulliNB or PoissonNB, or a fitted Pipeline ending in one
        The posterior is read from the fitted statistics (the ``estimate`` setting does not
        matter; an ``alpha="evidence"`` fit uses its learned ``alpha_``). A pipeline's
        transformers name the features (:func:`bayesnb.pipeline.final_estimator`).
    n : int, default 20
        Features kept per pair (all features when the model has fewer).
    classes : None, list of labels, or list of (class, versus) pairs, optional
        None: every ordered pair of classes. A list of labels: every ordered pair among them.
        A list of pairs: those pairs, in that order.
    ci_prob : float, default 0.9
        Probability inside the equal-tailed credible interval (0 < ci_prob < 1).
    feature_names : sequence of str, optional
        Names of the columns; default ``est.feature_names_in_`` (a pipeline's vocabulary, the
        names given to ``fit``, a DataFrame's columns), else ``x0, x1, ...``.
    draws : int, default 10000
        Exact posterior draws per pair used for the interval bounds (at least 100).
    random_seed : int, numpy Generator or None, default 0
        Seed of the draws.
    rank : {"lower", "mean"}, default "lower"
        ``"lower"``: by ``eti{P}_lb``, the lower end of the credible interval (features
        the rival class never used only rank high when the class uses them often enough);
        ``"mean"``: by the exact posterior mean, which puts such exclusive features first.

    Returns
    -------
    pandas.DataFrame
        One row per (pair, feature), pairs in order and features by rank, with columns
        ``class``, ``versus``, ``rank`` (1 = first by ``rank``), ``feature`` (name), ``column``
        (index into X), ``mean`` and ``sd`` (exact), ``eti{P}_lb`` and ``eti{P}_ub``
        (P = ``round(100 ci_prob)``, the ArviZ naming), and ``count`` / ``count_versus`` (the
        two classes' sufficient statistic for the feature: token counts, document
        frequencies or summed counts). ``attrs`` records the model, ``ci_prob``, ``draws``
        ``random_seed`` and ``rank``.

    Raises
    ------
    TypeError
        Unsupported model (CategoricalNB, GDA, a foreign estimator), bad ``classes`` type.
    ValueError
        Bad ``n``, ``ci_prob``, ``draws``, ``rank``, ``feature_names`` or classes not in
        the model.
    """
    est = final_estimator(est)
    family = _family(est)
    check_fitted(est)
    marg = family.informative_marginals(est)
    check_int(n, "n")
    if isinstance(ci_prob, bool) or not isinstance(ci_prob, Real) or not 0 < ci_prob < 1:
        raise ValueError(f"ci_prob must be a probability strictly between 0 and 1, got {ci_prob!r}")
    check_int(draws, "draws", 100)
    if rank not in RANKS:
        raise ValueError(f"rank must be one of {RANKS}, got {rank!r}")
    labels = np.asarray(est.classes_)
    pairs = _pairs(classes, labels)
    names = _names(est, feature_names)
    rng = np.random.default_rng(random_seed)
    mean_log, var_log = family.informative_moments(est, marg)
    counts = np.asarray(est.feature_count_, dtype=np.float64)
    d = mean_log.shape[1]
    n_keep = min(int(n), d)
    tail = (1.0 - float(ci_prob)) / 2.0
    perc = round(100 * float(ci_prob))
    lb, ub = f"eti{perc}_lb", f"eti{perc}_ub"
    frames = []
    z = float(ndtri(1.0 - tail))
    for a, b in pairs:
        diff = mean_log[a] - mean_log[b]
        if rank == "mean":
            top = _top(diff, n_keep)
        else:  # candidates by the normal approximation, then their lower ends from draws
            sd = np.sqrt(var_log[a] + var_log[b])
            top = _top(diff - z * sd, min(d, max(5 * n_keep, _CANDIDATES)))
        sample = family.informative_draws(est, marg, a, top, rng, draws)
        sample = sample - family.informative_draws(est, marg, b, top, rng, draws)
        lo, hi = np.quantile(sample, [tail, 1.0 - tail], axis=0)
        if rank == "lower":
            keep = np.lexsort((top, -lo))[:n_keep]  # ties by column index
            top, lo, hi = top[keep], lo[keep], hi[keep]
        frames.append(
            pd.DataFrame(
                {
                    "class": labels[a],
                    "versus": labels[b],
                    "rank": np.arange(1, n_keep + 1),
                    "feature": names[top],
                    "column": top,
                    "mean": diff[top],
                    "sd": np.sqrt(var_log[a, top] + var_log[b, top]),
                    lb: lo,
                    ub: hi,
                    "count": counts[a, top],
                    "count_versus": counts[b, top],
                }
            )
        )
    out = pd.concat(frames, ignore_index=True)
    out.attrs = {
        "model": type(est).__name__,
        "quantity": family.informative_quantity,
        "ci_prob": float(ci_prob),
        "draws": int(draws),
        "random_seed": random_seed if isinstance(random_seed, int | None) else "generator",
        "rank": rank,
    }
    return out


_CANDIDATES = 100  # at least this many features get draws under rank="lower"


def _top(score: np.ndarray, k: int) -> np.ndarray:
    """Columns of the ``k`` largest ``score``, largest first, ties by column index."""
    d = score.size
    top = np.argpartition(-score, k - 1)[:k] if k < d else np.arange(d)
    return top[np.lexsort((top, -score[top]))]
