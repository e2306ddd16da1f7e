"""Benchmark: GDA(covariance="shared") against scikit-learn's LinearDiscriminantAnalysis.

Dense 200,000 × 100, two classes. Times ``fit`` and ``predict_proba`` of both (median of
``--repeats`` runs each, interleaved so both see the same machine load) and prints the ratios
measured in this run. Targets: fit ≤ 1.0× LDA's, predict_proba ≤ 1.5× LDA's (issue 15:
≤ 1.0×, on the median of the ratios of the two timed in the same round, printed as a
PASS/FAIL line with their min and max).

``GDA.fit`` computes the statistics *and* the estimate with its Cholesky factor (the
logistic coefficients ``coef_``/``intercept_`` are derived lazily from that factor, at the cost
of a d × d solve); the row "fit + coef_" includes them, to compare like with like with LDA,
whose fit solves for its coefficients.

Run: ``.venv/bin/python benchmarks/bench_gda.py [--n 200000] [--d 100] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from bayesnb import GDA


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def make_data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two overlapping Gaussian classes (Mahalanobis distance about 2), correlated features."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    B = np.eye(d) + 0.3 * rng.normal(size=(d, d)) / np.sqrt(d)
    shift = rng.normal(size=d) * (2.0 / np.sqrt(d))
    X = rng.normal(size=(n, d)) @ B.T + y[:, None] * shift
    return X, y


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark and print a table; returns the measured medians (seconds)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    if args.repeats < 5:
        parser.error("--repeats must be >= 5 (medians of at least 5 runs)")

    X, y = make_data(args.n, args.d)
    runs: dict[str, list[float]] = {k: [] for k in ("gda_fit", "gda_fit_coef", "lda_fit")}
    runs |= {"gda_proba": [], "lda_proba": []}
    gda = lda = None
    for _ in range(args.repeats):
        gda = GDA(covariance="shared")
        runs["gda_fit"].append(_time(lambda gda=gda: gda.fit(X, y)))
        gda2 = GDA(covariance="shared")
        runs["gda_fit_coef"].append(_time(lambda g=gda2: (g.fit(X, y).coef_, g.intercept_)))
        lda = LinearDiscriminantAnalysis(solver="lsqr")
        runs["lda_fit"].append(_time(lambda lda=lda: lda.fit(X, y)))
    for _ in range(args.repeats):
        runs["gda_proba"].append(_time(lambda: gda.predict_proba(X)))
        runs["lda_proba"].append(_time(lambda: lda.predict_proba(X)))
    med = {k: statistics.median(v) for k, v in runs.items()}
    # Issue 15: predict_proba <= 1.0x LDA's, on the median of the per-round ratios.
    ratios = [a / b for a, b in zip(runs["gda_proba"], runs["lda_proba"], strict=True)]
    med["proba_paired"] = statistics.median(ratios)
    diff = np.abs(gda.predict_proba(X) - lda.predict_proba(X)).max()

    print(
        f"GDA(covariance='shared', estimate='mean') vs LDA(solver='lsqr'), dense "
        f"{args.n:,} x {args.d}, 2 classes, median of {args.repeats} runs"
    )
    print(f"{'operation':<22}{'bayesnb [s]':>12}{'sklearn [s]':>13}{'ratio':>8}{'target':>9}")
    rows = [
        ("fit", med["gda_fit"], med["lda_fit"], 1.0),
        ("fit + coef_", med["gda_fit_coef"], med["lda_fit"], 1.0),
        ("predict_proba", med["gda_proba"], med["lda_proba"], 1.5),
    ]
    for name, ours, theirs, target in rows:
        ratio = ours / theirs
        print(f"{name:<22}{ours:>12.4f}{theirs:>13.4f}{ratio:>8.2f}{'<= ' + str(target):>9}")
    print(f"max |p_bayesnb - p_sklearn| = {diff:.2e} (posterior mean vs MLE)")
    ok = med["proba_paired"] <= 1.0
    print(
        f"{'PASS' if ok else 'FAIL'}  predict_proba / LDA(lsqr), paired per round: median "
        f"{med['proba_paired']:.2f} [{min(ratios):.2f}, {max(ratios):.2f}] (target <= 1.0)"
    )
    return med


if __name__ == "__main__":
    main()
