"""Benchmark: GDA(covariance="shared") against scikit-learn's LinearDiscriminantAnalysis.

Dense 200,000 × 100, two classes. Times ``fit`` and ``predict_proba`` of both (median of
``--repeats`` runs each, interleaved so both see the same machine load) and prints the ratios
measured in this run, against the reference ratios fit ≤ 1.0× and predict_proba ≤ 1.5×
LDA's; the target, a PASS/FAIL line, is predict_proba ≤ 1.0× LDA's on the median of the
ratios of the two timed in the same round (printed with their min and max).

``GDA.fit`` computes the statistics *and* the estimate with its Cholesky factor (the
logistic coefficients ``coef_``/``intercept_`` are derived lazily from that factor, at the cost
of a d × d solve); the row "fit + coef_" includes them, to compare like with like with LDA,
whose fit solves for its coefficients.

Run: ``.venv/bin/python benchmarks/bench_gda.py [--n 200000] [--d 100] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
from _common import Checks, gaussian_classes, load_average, paired, wall
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from bayesnb import GDA


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table; returns the number of failed targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    if args.repeats < 5:
        parser.error("--repeats must be >= 5 (medians of at least 5 runs)")

    X, y = gaussian_classes(args.n, args.d, 2)
    runs: dict[str, list[float]] = {k: [] for k in ("gda_fit", "gda_fit_coef", "lda_fit")}
    runs |= {"gda_proba": [], "lda_proba": []}
    gda = lda = None
    for _ in range(args.repeats):
        gda = GDA(covariance="shared")
        runs["gda_fit"].append(wall(lambda gda=gda: gda.fit(X, y)))
        gda2 = GDA(covariance="shared")
        runs["gda_fit_coef"].append(wall(lambda g=gda2: (g.fit(X, y).coef_, g.intercept_)))
        lda = LinearDiscriminantAnalysis(solver="lsqr")
        runs["lda_fit"].append(wall(lambda lda=lda: lda.fit(X, y)))
    for _ in range(args.repeats):
        runs["gda_proba"].append(wall(lambda: gda.predict_proba(X)))
        runs["lda_proba"].append(wall(lambda: lda.predict_proba(X)))
    med = {k: statistics.median(v) for k, v in runs.items()}
    proba_paired, lo, hi = paired(runs["gda_proba"], runs["lda_proba"])
    diff = np.abs(gda.predict_proba(X) - lda.predict_proba(X)).max()

    print(
        f"GDA(covariance='shared', estimate='mean') vs LDA(solver='lsqr'), dense "
        f"{args.n:,} x {args.d}, 2 classes, median of {args.repeats} runs; load average "
        f"{load_average()}"
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
    checks = Checks()
    checks.at_most(
        f"predict_proba / LDA(lsqr), paired per round: median [{lo:.2f}, {hi:.2f}]",
        proba_paired,
        1.0,
    )
    return checks.report()


if __name__ == "__main__":
    raise SystemExit(main())
