"""Benchmark: which document to label next (``bayesnb.active``), learning curves and speed.

1. Simulated. Data drawn from the multinomial model (``--classes`` classes, θ_c ~
   Dirichlet(0.3 · 1_V), V = ``--vocab``, ``--length`` tokens a document; each seed its own
   θ, a pool of ``--pool`` documents and 2,000 held out). From one label per class, label the
   pool's best document by each strategy (bald / entropy / margin / random), refit
   (MultinomialNB, α = 1) and measure held-out accuracy, up to ``--labels``
   (:func:`bayesnb.active.active_learning_curve`). Mean ± standard error over ``--seeds``,
   and each strategy's gain over random in mean accuracy over the curve (paired by seed).
2. Fortunes. Debian's fortunes (categories with at least ``--min-docs`` training documents,
   30 % held out, as ``bench_semisupervised.py`` loads them), the training part the pool,
   MultinomialNB(α = 1.1, ``"map"``), ``--batch`` documents labelled between refits.
3. Speed. One ``rank_pool(..., "bald", n_draws=100)`` of a 10,000 × 20,000 Zipf pool
   (:func:`_common.text_corpus`, 20 classes, about 100 stored values a document) under a
   MultinomialNB fitted on another 10,000, beside ``"entropy"`` and one ``predict_proba``.

Reported, no target. The load average is printed beside every figure. Run
``python benchmarks/bench_active.py`` (``--skip-fortunes``, ``--skip-speed`` for parts).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp
from _common import fortunes, load_average, text_corpus

import bayesnb as bnb
from bayesnb.active import STRATEGIES, active_learning_curve, rank_pool


def _simulate(rng, n, theta, length):
    y = rng.integers(0, theta.shape[0], n)
    counts = np.stack([rng.multinomial(length, theta[c]) for c in y]).astype(float)
    return sp.csr_matrix(counts), y


def _curves(est, data, args, labels, batch) -> None:
    """Run every strategy over the seeds; print accuracy at a few sizes and the gains."""
    t0 = time.perf_counter()
    acc = {s: [] for s in STRATEGIES}
    for seed in range(args.seeds):
        Xp, yp, Xt, yt = data(seed)
        for s in STRATEGIES:
            n, a = active_learning_curve(
                est, Xp, yp, Xt, yt, s, n_labels=labels, batch_size=batch,
                n_draws=args.draws, random_state=seed,
            )  # fmt: skip
            acc[s].append(a)
    at = np.unique(np.linspace(0, len(n) - 1, 6).round().astype(int))
    print(f"  labels            {'  '.join(f'{k:>13d}' for k in n[at])}   mean over curve")
    base = np.asarray(acc["random"]).mean(axis=1)
    for s, runs in acc.items():
        v = np.asarray(runs)
        se = v.std(axis=0, ddof=1) / np.sqrt(len(v))
        cells = "  ".join(f"{m:.3f} ± {e:.3f}" for m, e in zip(v.mean(0)[at], se[at], strict=True))
        mean = v.mean(axis=1)
        mean_se = mean.std(ddof=1) / np.sqrt(len(mean))
        line = f"  {s:<8} accuracy {cells}   {mean.mean():.4f} ± {mean_se:.4f}"
        if s != "random":
            d = mean - base
            line += f"   vs random {d.mean():+.4f} ± {d.std(ddof=1) / np.sqrt(len(d)):.4f}"
        print(line)
    print(
        f"  ({args.seeds} seeds, mean ± SE; {time.perf_counter() - t0:.0f} s; "
        f"load {load_average()})"
    )


def _simulated(args) -> None:
    print(
        f"== simulated multinomial: {args.classes} classes, V = {args.vocab}, {args.length} "
        f"tokens a document, pool {args.pool}, up to {args.labels} labels, one at a time, "
        f"{args.draws} draws ({load_average()}) =="
    )

    def data(seed):
        rng = np.random.default_rng(seed)
        theta = rng.dirichlet(np.full(args.vocab, 0.3), size=args.classes)
        return (
            *_simulate(rng, args.pool, theta, args.length),
            *_simulate(rng, 2000, theta, args.length),
        )

    _curves(bnb.MultinomialNB(alpha=1.0), data, args, args.labels, 1)


def _fortunes(args) -> None:
    loaded = fortunes(held_out=0.3, seed=0, min_docs=args.min_docs)
    if loaded is None:
        return
    X, y, X_test, y_test = loaded
    print(
        f"\n== fortunes: pool {X.shape[0]:,} × {X.shape[1]:,} words, {X_test.shape[0]:,} held "
        f"out, {len(np.unique(y))} classes, up to {args.fortune_labels} labels, {args.batch} a "
        f"round, {args.draws} draws ({load_average()}) =="
    )
    _curves(
        bnb.MultinomialNB(alpha=1.1, estimate="map"), lambda seed: (X, y, X_test, y_test),
        args, args.fortune_labels, args.batch,
    )  # fmt: skip


def _speed(args) -> None:
    X, y = text_corpus(20_000, 20_000, 20, 100.0, args.seed)
    est = bnb.MultinomialNB(alpha=1.0).fit(X[:10_000], y[:10_000])
    pool = X[10_000:]
    rank_pool(est, pool[:100], "bald", n_draws=5, random_state=0)  # first-call costs out
    timings = {}
    for label, fn in (
        (
            "rank_pool bald, 100 draws",
            lambda: rank_pool(est, pool, "bald", n_draws=100, random_state=0),
        ),
        ("rank_pool entropy", lambda: rank_pool(est, pool, "entropy")),
        ("predict_proba", lambda: est.predict_proba(pool)),
    ):
        t0 = time.perf_counter()
        fn()
        timings[label] = time.perf_counter() - t0
    print(
        f"\n== speed: pool {pool.shape[0]:,} × {pool.shape[1]:,}, {pool.nnz:,} stored values, "
        "20 classes =="
    )
    for label, t in timings.items():
        print(f"  {label:<28} {t:.3f} s  (load {load_average()})")


def main(argv: list[str] | None = None) -> int:
    """Print the figures (reported, no target); return 0."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--classes", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=100)
    parser.add_argument("--length", type=int, default=10)
    parser.add_argument("--pool", type=int, default=500)
    parser.add_argument("--labels", type=int, default=40)
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--min-docs", type=int, default=700, help="fortune categories kept")
    parser.add_argument("--fortune-labels", type=int, default=200)
    parser.add_argument("--batch", type=int, default=10, help="fortunes: labels a round")
    parser.add_argument("--seed", type=int, default=0, help="the Zipf corpus of the timing")
    parser.add_argument("--skip-simulated", action="store_true")
    parser.add_argument("--skip-fortunes", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args(argv)
    if not args.skip_simulated:
        _simulated(args)
    if not args.skip_fortunes:
        _fortunes(args)
    if not args.skip_speed:
        _speed(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
