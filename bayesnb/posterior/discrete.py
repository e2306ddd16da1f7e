"""Beta and Dirichlet posteriors of the discrete event models, and their point estimates.

Estimates are returned as natural-log probability tables (log space end to end). A zero
count under ``"mle"`` gives ``-inf`` by design; 0/0 (a class with no documents) is ``-inf``
too, so such a class can never explain a document.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import digamma

from bayesnb.stats.discrete import cancel_rounding

__all__ = ["BetaPosterior", "DirichletPosterior", "check_mode_exists", "failures", "log_ratio"]


def log_ratio(num, den) -> np.ndarray:
    """``log(num / den)`` elementwise, with ``log 0 = -inf`` and ``0/0 -> -inf``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(num) - np.log(den)
    return np.where(np.isnan(out), -np.inf, out)


def _log_fractions(nums, den, fresh: bool) -> list[np.ndarray]:
    """:func:`log_ratio` of each numerator over one denominator, in fewer passes.

    The same numbers: ``log(den)`` is taken once (in place: ``den`` must be an array this
    function may overwrite), numerators the caller owns (``fresh``) are turned into their
    logs in place, and the NaN of 0/0 is only looked for where a denominator is not
    positive and finite (numerators are finite counts).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        clean = den.size == 0 or (den.min() > 0 and den.max() < np.inf)
        log_den = np.log(den, out=den)
        out = []
        for num in nums:
            log_num = np.log(num, out=num) if fresh else np.log(num)
            log_num -= log_den
            if not clean:
                log_num[np.isnan(log_num)] = -np.inf
            out.append(log_num)
    return out


def failures(trials: np.ndarray, successes: np.ndarray) -> np.ndarray:
    """``trials − successes`` of weighted counts, clipped at 0 and with exact zeros where the
    difference is rounding (≤ 1e-12 of the trials): D and N are weighted sums rounded
    separately (and in another order by ``partial_fit``), and the MLE of a feature seen in
    every document of a class must be exactly 1 however the weights were added up."""
    return cancel_rounding(np.maximum(trials - successes, 0.0), trials)


def check_mode_exists(estimate: str, values, name: str) -> None:
    if estimate == "map" and np.any(np.asarray(values) < 1):
        raise ValueError(
            f"estimate='map' needs {name} >= 1: with {name} < 1 the posterior mode lies on the "
            "boundary of the simplex (a probability of 0), not in the interior. "
            "Use estimate='mean' (the posterior mean exists for every positive prior)."
        )


@dataclass
class DirichletPosterior:
    """Dirichlet(alpha + counts) over one or several categorical distributions.

    The last axis of ``counts`` holds categories; ``sizes`` splits it into consecutive
    segments, each its own probability vector (one segment for the multinomial model and the
    class prior, one per feature for the categorical model).

    Parameters
    ----------
    alpha : float or ndarray broadcastable to ``counts``
        Prior concentration of every category.
    counts : ndarray of shape (..., n_categories)
        Observed (weighted) counts.
    sizes : ndarray of int, optional
        Segment lengths along the last axis; default one segment.
    name : str
        The user-facing name of ``alpha`` for error messages.
    """

    alpha: float | np.ndarray
    counts: np.ndarray
    sizes: np.ndarray | None = None
    name: str = "alpha"
    _offsets: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n = self.counts.shape[-1]
        if self.sizes is None:
            self.sizes = np.array([n], dtype=np.intp)
        self._offsets = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.intp)

    @property
    def concentration(self) -> np.ndarray:
        """Posterior concentration ``alpha + counts``."""
        return self.counts + self.alpha

    def segment_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` over each segment, broadcast back to every category."""
        sums = np.add.reduceat(values, self._offsets, axis=-1)
        return np.repeat(sums, self.sizes, axis=-1)

    def log_estimate(self, estimate: str) -> np.ndarray:
        """Log-probability table of the ``"mle"``, ``"map"``, ``"mean"`` or ``"bayes"`` estimate.

        For a single categorical draw ``"bayes"`` (the posterior predictive) equals the
        posterior mean; the Dirichlet-multinomial predictive of whole documents is scored in
        :mod:`bayesnb.scoring`.
        """
        counts = np.broadcast_to(
            self.counts, np.broadcast_shapes(self.counts.shape, np.shape(self.alpha))
        )
        if estimate == "mle":
            num = counts
        elif estimate == "map":
            check_mode_exists(estimate, self.alpha, self.name)
            num = counts + (np.asarray(self.alpha) - 1.0)
        else:
            num = counts + self.alpha
        if self.sizes.size == 1:
            # One segment: the sums as a column (the same sums; log of K values, not K·V).
            den = np.add.reduceat(num, self._offsets, axis=-1)
            return _log_fractions([num], den, fresh=estimate != "mle")[0]
        return log_ratio(num, self.segment_sum(num))

    def log_expectation(self) -> np.ndarray:
        """``E[log θ] = ψ(a) − ψ(Σ_segment a)`` of every category under the posterior (the
        mean-field E-step's table; its exponentials sum to less than 1 per segment)."""
        a = self.concentration
        if self.sizes.size == 1:  # the sums as a column: K digammas, not K·V
            return digamma(a) - digamma(a.sum(axis=-1, keepdims=True))
        return digamma(a) - digamma(self.segment_sum(a))

    def mean(self) -> np.ndarray:
        """Posterior mean of every category probability."""
        a = self.concentration
        return a / self.segment_sum(a)

    def var(self) -> np.ndarray:
        """Posterior variance of every category probability (Beta marginals of the Dirichlet)."""
        a = self.concentration
        a0 = self.segment_sum(a)
        m = a / a0
        return m * (1.0 - m) / (a0 + 1.0)


@dataclass
class BetaPosterior:
    """Beta(alpha + D, beta + N - D) on every Bernoulli feature probability.

    Parameters
    ----------
    alpha, beta : float or ndarray of shape (n_features,)
        Prior pseudo-counts.
    successes : ndarray of shape (n_classes, n_features)
        Weighted document frequencies ``D_cj``.
    trials : ndarray of shape (n_classes,)
        Weighted class counts ``N_c``.
    """

    alpha: float | np.ndarray
    beta: float | np.ndarray
    successes: np.ndarray
    trials: np.ndarray

    @property
    def failures(self) -> np.ndarray:
        return failures(self.trials[:, None], self.successes)

    @property
    def a(self) -> np.ndarray:
        return self.successes + self.alpha

    @property
    def b(self) -> np.ndarray:
        return self.failures + self.beta

    def log_estimate(self, estimate: str) -> tuple[np.ndarray, np.ndarray]:
        """``(log φ, log(1 - φ))`` of the chosen estimate, both of shape (n_classes, n_features).

        The two logs are computed from their own numerators (never ``log1p(-exp(.))``), so a
        probability near 1 keeps full precision in its complement. ``"bayes"``, the
        Beta-Bernoulli posterior predictive, equals the posterior mean.
        """
        s, f = self.successes, self.failures
        if estimate == "mle":
            num1, num0 = s, np.broadcast_to(f, s.shape)
            den = num1 + num0
            return log_ratio(num1, den), log_ratio(num0, den)
        if estimate == "map":
            check_mode_exists(estimate, self.alpha, "alpha")
            check_mode_exists(estimate, self.beta, "beta")
            num1, num0 = s + (np.asarray(self.alpha) - 1.0), f + (np.asarray(self.beta) - 1.0)
        else:  # as self.a and self.b, without computing the failures twice
            num1, num0 = s + self.alpha, f + self.beta
        log_p, log_q = _log_fractions((num1, num0), num1 + num0, fresh=True)
        return log_p, log_q

    def log_expectation(self) -> tuple[np.ndarray, np.ndarray]:
        """``(E[log φ], E[log(1 − φ)]) = (ψ(a) − ψ(a + b), ψ(b) − ψ(a + b))`` under the
        posterior, both of shape (n_classes, n_features)."""
        a, b = self.a, np.broadcast_to(self.b, np.shape(self.a))
        total = digamma(a + b)
        return digamma(a) - total, digamma(b) - total

    def mean(self) -> np.ndarray:
        a, b = self.a, self.b
        return a / (a + b)

    def var(self) -> np.ndarray:
        a, b = self.a, self.b
        return a * b / ((a + b) ** 2 * (a + b + 1.0))
