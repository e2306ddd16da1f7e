"""What the benchmarks share: text-like corpora, timing, the machine's load, PASS/FAIL lines.

A benchmark is run directly (``python benchmarks/bench_x.py``: this folder is then first on
``sys.path``) or by ``run_all.py``, which puts this folder on ``sys.path`` too, so each
imports ``_common`` by name. Its ``main(argv=None)`` returns the number of failed targets.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq


# -- corpora ----------------------------------------------------------------------------------
def zipf_law(n_features: int, exponent: float) -> tuple[np.ndarray, np.ndarray]:
    """Zipf probabilities of ranks 1..n_features and their cumulative sums (last exactly 1)."""
    p = 1.0 / np.arange(1, n_features + 1) ** exponent
    p /= p.sum()
    cdf = np.cumsum(p)
    cdf[-1] = 1.0
    return p, cdf


def zipf_corpus(
    n_docs: int,
    n_features: int,
    n_classes: int = 20,
    *,
    nnz_per_doc: float | None = None,
    tokens_per_doc: float | None = None,
    exponent: float = 1.1,
    class_specific: float = 0.5,
    seed: int = 0,
    rankings: np.ndarray | None = None,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """A synthetic bag-of-words corpus with Zipf-distributed words (most counts 1).

    A token is the Zipf rank of a uniform draw, mapped through its document's class ranking
    of the vocabulary with probability ``class_specific`` and through the shared ranking
    otherwise, so classes differ and a classifier has something to learn. A document's
    length is Poisson(λ): λ = ``tokens_per_doc``, or solved so that the expected number of
    distinct words (stored values) is ``nnz_per_doc``. Stored values are word counts.

    Parameters
    ----------
    n_docs, n_features, n_classes : int
        Corpus shape.
    nnz_per_doc, tokens_per_doc : float
        Exactly one: expected stored values or tokens per document.
    exponent : float
        Zipf exponent of word frequencies (natural text is close to 1).
    class_specific : float
        Share of a document's tokens drawn from its class's own ranking.
    seed : int
        Seed of the labels, lengths and tokens (and of the rankings unless given).
    rankings : ndarray of shape (n_classes + 1, n_features), optional
        Permutations of the vocabulary: one per class, then the shared one. Default: drawn
        from ``seed`` (one per class), the shared ranking the identity. Shards of one
        corpus pass the same rankings.

    Returns
    -------
    X : csr_matrix of float64, shape (n_docs, n_features)
    y : ndarray of int, shape (n_docs,)
    """
    if (nnz_per_doc is None) == (tokens_per_doc is None):
        raise ValueError("give exactly one of nnz_per_doc and tokens_per_doc")
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_docs)
    if rankings is None:
        own_ranking = np.stack([rng.permutation(n_features) for _ in range(n_classes)])
        shared_ranking = None
    else:
        own_ranking, shared_ranking = rankings[:n_classes], rankings[n_classes]
    p, cdf = zipf_law(n_features, exponent)
    lam = tokens_per_doc
    if lam is None:
        # Word j appears Poisson(λ q_j) times: distinct words = Σ_j 1 - e^{-λ q_j}, with q
        # the token law of a class (class 0's ranking stands for every class).
        q = (1.0 - class_specific) * p
        np.add.at(q, own_ranking[0], class_specific * p)
        lam = brentq(
            lambda t: -np.expm1(-t * q).sum() - nnz_per_doc, nnz_per_doc, 1e3 * nnz_per_doc
        )
    lengths = rng.poisson(lam, n_docs)
    ranks = np.searchsorted(cdf, rng.random(int(lengths.sum())), side="right")
    own = rng.random(ranks.shape[0]) < class_specific
    shared = ranks if shared_ranking is None else shared_ranking[ranks]
    cols = np.where(own, own_ranking[np.repeat(y, lengths), ranks], shared).astype(np.int32)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    X = sp.csr_matrix((np.ones(cols.shape[0]), cols, indptr), shape=(n_docs, n_features))
    X.sum_duplicates()  # repeated tokens become counts
    return X, y


def text_corpus(n_docs: int, n_features: int, n_classes: int, nnz_per_doc: float, seed: int):
    """The corpus of the speed targets: Zipf exponent 1.1, half of a document's tokens from its
    class's own ranking, ``nnz_per_doc`` expected distinct words a document
    (:func:`add_corpus_options` gives its sizes on the command line)."""
    return zipf_corpus(
        n_docs, n_features, n_classes, nnz_per_doc=nnz_per_doc, exponent=1.1,
        class_specific=0.5, seed=seed,
    )  # fmt: skip


def add_corpus_options(parser: argparse.ArgumentParser, repeats: int) -> argparse.ArgumentParser:
    """``--docs --features --classes --nnz --seed`` of :func:`text_corpus`, and ``--repeats``."""
    parser.add_argument("--docs", type=int, default=200_000)
    parser.add_argument("--features", type=int, default=50_000)
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--nnz", type=float, default=100.0, help="stored values per document")
    parser.add_argument("--repeats", type=int, default=repeats, help="runs per timing (median)")
    parser.add_argument("--seed", type=int, default=0)
    return parser


def gaussian_classes(n: int, d: int, n_classes: int, seed: int = 0):
    """Overlapping Gaussian classes with correlated features: class 0 centred at 0, each other
    class shifted by a random vector of length about 2 (Mahalanobis distance about 2)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    B = np.eye(d) + 0.3 * rng.normal(size=(d, d)) / np.sqrt(d)
    shift = rng.normal(size=(n_classes - 1, d)) * (2.0 / np.sqrt(d))
    means = np.vstack([np.zeros(d), shift])
    return rng.normal(size=(n, d)) @ B.T + means[y], y


def fortunes(
    categories=None, *, keep: float = 1.0, held_out: float = 0.0, seed: int = 0, min_docs: int = 0
):
    """Word counts of Debian's fortunes, or None (and a line saying so) when not installed.

    Every record draws u ~ U(0, 1) (seeded): records with u < ``held_out`` are held out, those
    with ``held_out`` ≤ u < ``keep`` are the training part, whose vocabulary counts both.
    ``min_docs``: only the categories with at least that many training documents are kept
    (in both parts; the vocabulary is that of every training document).

    Returns
    -------
    (X, y, X_test, y_test) : float64 CSR counts and string labels, or None
    """
    from sklearn.feature_extraction.text import CountVectorizer

    import bayesnb as bnb

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            texts, labels = bnb.datasets.load_fortunes(categories=categories, return_X_y=True)
    except (FileNotFoundError, ValueError):
        print("fortunes not installed (apt-get install fortunes): skipped")
        return None
    u = np.random.default_rng(seed).random(len(texts))
    test, train = u < held_out, (held_out <= u) & (u < keep)
    vec = CountVectorizer()
    X = vec.fit_transform([t for t, k in zip(texts, train, strict=True) if k])
    X_test = vec.transform([t for t, k in zip(texts, test, strict=True) if k])
    X, y, X_test, y_test = (
        X.astype(np.float64),
        labels[train],
        X_test.astype(np.float64),
        labels[test],
    )
    names, counts = np.unique(y, return_counts=True)
    kept = names[counts >= min_docs]
    rows, rows_test = np.isin(y, kept), np.isin(y_test, kept)
    return X[rows], y[rows], X_test[rows_test], y_test[rows_test]


# -- timing -----------------------------------------------------------------------------------
def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """Wall time of ``fn()`` (after a garbage collection, so no earlier garbage is timed)."""
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def wall(fn: Callable[[], object]) -> float:
    """The seconds of :func:`timed`, the result dropped."""
    return timed(fn)[0]


def time_interleaved(fns: dict[str, Callable[[], object]], repeats: int) -> dict[str, list]:
    """Each function's wall times over ``repeats`` rounds, the functions run in turn.

    Interleaving spreads the slow phases of a shared machine evenly over the contenders; the
    rounds are kept so that ratios can be paired round by round (:func:`paired`).
    """
    rounds: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            gc.collect()
            t0 = time.perf_counter()
            fn()  # its result is freed inside the timing, as a caller's would be
            rounds[name].append(time.perf_counter() - t0)
    return rounds


def medians(rounds: dict[str, list[float]]) -> dict[str, float]:
    """The median of every entry of :func:`time_interleaved`'s rounds."""
    return {name: statistics.median(times) for name, times in rounds.items()}


def paired(ours: list[float], bound: list[float]) -> tuple[float, float, float]:
    """Median, min and max over rounds of ``ours / bound`` timed in the same round."""
    ratios = [a / b for a, b in zip(ours, bound, strict=True)]
    return statistics.median(ratios), min(ratios), max(ratios)


def seconds(times: list[float]) -> str:
    """Every round's time, for the output."""
    return " ".join(f"{t:.3f}" for t in times) + " s"


# -- the machine and the targets --------------------------------------------------------------
def load_average() -> str:
    """The 1-minute load average (the benchmark machine may be shared)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):  # platforms without getloadavg
        return "n/a"


class Checks:
    """The targets of one run: one PASS/FAIL line each, and the number that failed."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.failed = 0

    def add(self, ok: bool, text: str) -> bool:
        """Record a target met (``ok``) or missed, described by ``text``."""
        self.failed += not ok
        self.lines.append(f"{'PASS' if ok else 'FAIL'}  {text}")
        return ok

    def at_most(self, what: str, value: float, limit: float, unit: str = "") -> bool:
        """The target ``value <= limit``."""
        text = f"{what}: {value:.4g}{unit} (target <= {limit:.4g}{unit})"
        return self.add(value <= limit, text)

    def at_least(self, what: str, value: float, limit: float, unit: str = "") -> bool:
        """The target ``value >= limit``."""
        text = f"{what}: {value:.4g}{unit} (target >= {limit:.4g}{unit})"
        return self.add(value >= limit, text)

    def report(self) -> int:
        """Print the lines under the load average; the number of failed targets."""
        print(f"\ntargets (load average {load_average()}):")
        print("\n".join(self.lines) if self.lines else "  (none in this run)")
        return self.failed
