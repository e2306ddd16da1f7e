"""Benchmark: discrete naive Bayes fit / predict_proba against scikit-learn and the bare bound.

A synthetic sparse corpus (default 200,000 documents × 50,000 features, about 100 stored
values per document, Zipf-like word frequencies, 20 classes, fixed seed) is fitted and scored
by bayesnb's and scikit-learn's MultinomialNB and BernoulliNB in the same process, each timing
the median of ``--repeats`` interleaved runs. The lower bound of a fit is one sparse product
Yᵀ·X (timed both with the dense one-hot Y scikit-learn uses and with a one-hot CSR Y; the
faster counts), of scoring one product X·Wᵀ. Peak memory of a fit is tracemalloc's peak of
the allocations made during ``fit`` plus the bytes of the input it reads. The targets are
printed as PASS/FAIL lines (the 1.1× floors on the median of the per-round ratios to the
bound timed in the same round, printed with their min and max); ``main`` returns the number
of FAILs. bayesnb scores by row blocks in ``BAYESNB_NUM_THREADS``
threads (default: the usable CPUs); the bounds are SciPy's single-threaded products.

Run ``python benchmarks/bench_discrete.py [--docs N ...]`` or ``make bench``.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from _common import (
    Checks,
    add_corpus_options,
    load_average,
    medians,
    paired,
    text_corpus,
    time_interleaved,
)
from sklearn.naive_bayes import BernoulliNB as SkBernoulliNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from bayesnb import BernoulliNB, MultinomialNB
from bayesnb.scoring.blocks import n_threads
from bayesnb.stats.discrete import indicator

MiB = 1024.0**2


def nbytes(X) -> int:
    """Bytes held by a dense array or a CSR matrix (values, indices, row pointers)."""
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def traced_peak(fn: Callable[[], object]) -> int:
    """tracemalloc's peak of the allocations made while ``fn`` runs.

    NumPy (and so SciPy's sparse arrays) report their buffers to tracemalloc; scratch
    vectors inside SciPy's C++ kernels (O(n_features)) are not seen.
    """
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = fn()
        peak = tracemalloc.get_traced_memory()[1] - base
        del result
    finally:
        tracemalloc.stop()
    return peak


def bench_fit(X, y, n_classes: int, repeats: int) -> dict[str, list[float]]:
    """Fit times of both libraries and of the two forms of the bound Yᵀ·X, per round."""
    Y_dense = np.zeros((X.shape[0], n_classes))
    Y_dense[np.arange(X.shape[0]), y] = 1.0
    Yt_csr = indicator(y, n_classes).T.tocsr()
    return time_interleaved(
        {
            "bound_dense": lambda: Y_dense.T @ X,
            "bound_csr": lambda: (Yt_csr @ X).toarray(),
            "bnb_multinomial": lambda: MultinomialNB().fit(X, y),
            "sk_multinomial": lambda: SkMultinomialNB().fit(X, y),
            "bnb_bernoulli": lambda: BernoulliNB().fit(X, y),
            "sk_bernoulli": lambda: SkBernoulliNB().fit(X, y),
        },
        repeats,
    )


def bench_predict(X, y, repeats: int) -> tuple[dict[str, list[float]], float]:
    """predict_proba times and the bound X·Wᵀ per round; the share of equal MultinomialNB labels."""
    models = {
        "bnb_multinomial": MultinomialNB(class_alpha=0).fit(X, y),  # sklearn's class prior
        "sk_multinomial": SkMultinomialNB().fit(X, y),
        "bnb_bernoulli": BernoulliNB(class_alpha=0).fit(X, y),
        "sk_bernoulli": SkBernoulliNB().fit(X, y),
    }
    same = np.mean(models["bnb_multinomial"].predict(X) == models["sk_multinomial"].predict(X))
    W = models["bnb_multinomial"].feature_log_prob_
    fns = {"bound": lambda: X @ W.T}
    fns |= {name: (lambda m=m: m.predict_proba(X)) for name, m in models.items()}
    return time_interleaved(fns, repeats), float(same)


def bench_bayes(X, y, repeats: int) -> dict[str, float]:
    """Median MultinomialNB.predict_proba time under estimate="mean" and "bayes"."""
    mean = MultinomialNB(estimate="mean").fit(X, y)
    bayes = MultinomialNB(estimate="bayes").fit(X, y)
    fns = {"mean": lambda: mean.predict_proba(X), "bayes": lambda: bayes.predict_proba(X)}
    return medians(time_interleaved(fns, repeats))


def bench_memory(X, y) -> dict[str, int]:
    """tracemalloc peak of the allocations made by each fit, in bytes."""
    makers = {
        "bnb_multinomial": MultinomialNB,
        "sk_multinomial": SkMultinomialNB,
        "bnb_bernoulli": BernoulliNB,
        "sk_bernoulli": SkBernoulliNB,
    }
    return {name: traced_peak(lambda make=make: make().fit(X, y)) for name, make in makers.items()}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the number of failed targets.

    Parameters
    ----------
    argv : list of str, optional
        Command-line options (see ``--help``); default: the issue's full-size settings.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args = add_corpus_options(parser, repeats=5).parse_args(argv)
    if args.repeats < 1:
        raise ValueError(f"--repeats must be >= 1, got {args.repeats}")
    print(
        f"== bench_discrete (load average {load_average()}, {os.cpu_count()} CPUs, bayesnb "
        f"scoring threads {n_threads()}) =="
    )
    t0 = time.perf_counter()
    X, y = text_corpus(args.docs, args.features, args.classes, args.nnz, args.seed)
    input_bytes, model_bytes = nbytes(X), args.classes * args.features * 8
    print(
        f"corpus: {X.shape[0]} docs x {X.shape[1]} features, {args.classes} classes, "
        f"{X.nnz / X.shape[0]:.1f} stored values/doc (max count {X.data.max():g}), "
        f"{input_bytes / MiB:.0f} MiB as CSR; built in {time.perf_counter() - t0:.1f} s; "
        f"median of {args.repeats} interleaved runs"
    )

    fit_times = bench_fit(X, y, args.classes, args.repeats)
    fit = medians(fit_times)
    fit_bound = min(fit["bound_dense"], fit["bound_csr"])
    # The bound of each round: the faster of its two products in that round.
    bound_rounds = [
        min(a, b) for a, b in zip(fit_times["bound_dense"], fit_times["bound_csr"], strict=True)
    ]
    fit_paired = {
        m: paired(fit_times[f"bnb_{m}"], bound_rounds) for m in ("multinomial", "bernoulli")
    }
    print(
        f"\nfit bound Yᵀ·X: dense one-hot Y {fit['bound_dense']:.3f} s, one-hot CSR "
        f"{fit['bound_csr']:.3f} s -> bound {fit_bound:.3f} s   (load average {load_average()})"
    )
    pred_times, same = bench_predict(X, y, args.repeats)
    pred = medians(pred_times)
    pred_paired = {
        m: paired(pred_times[f"bnb_{m}"], pred_times["bound"]) for m in ("multinomial", "bernoulli")
    }
    print(f"scoring bound X·Wᵀ: {pred['bound']:.3f} s   (load average {load_average()})")
    print(f"MultinomialNB predictions equal to scikit-learn's: {100 * same:.3f} %")

    print(f"\n{'operation':<28}{'bayesnb s':>10}{'sklearn s':>11}{'ratio':>8}", end="")
    print(f"{'bound s':>9}{'/bound':>8}   paired /bound: median [min, max]")
    rows = (
        ("fit", fit, fit_bound, fit_paired),
        ("predict_proba", pred, pred["bound"], pred_paired),
    )
    for op, times, bound, pairs in rows:
        for model in ("multinomial", "bernoulli"):
            ours, theirs = times[f"bnb_{model}"], times[f"sk_{model}"]
            name = f"{model.capitalize()}NB.{op}"
            med, lo, hi = pairs[model]
            print(
                f"{name:<28}{ours:>10.3f}{theirs:>11.3f}{ours / theirs:>8.2f}"
                f"{bound:>9.3f}{ours / bound:>8.2f}   {med:.2f} [{lo:.2f}, {hi:.2f}]"
            )

    scoring = bench_bayes(X, y, args.repeats)
    bayes_ratio = scoring["bayes"] / scoring["mean"]
    print(
        f"\nMultinomialNB.predict_proba estimate='bayes' {scoring['bayes']:.3f} s vs 'mean' "
        f"{scoring['mean']:.3f} s: ratio {bayes_ratio:.2f}   (load average {load_average()})"
    )

    limit = input_bytes + 2 * model_bytes
    print(
        "\npeak memory of fit = input bytes + tracemalloc peak of the allocations during fit "
        f"(limit: input {input_bytes / MiB:.0f} MiB + 2 x model {model_bytes / MiB:.1f} MiB "
        f"= {limit / MiB:.0f} MiB)"
    )
    peaks = {}
    for name, extra in bench_memory(X, y).items():
        peaks[name] = input_bytes + extra
        print(f"  {name:<18} {peaks[name] / MiB:8.0f} MiB  (fit allocates {extra / MiB:.0f} MiB)")

    checks = Checks()
    checks.at_most(
        "MultinomialNB.fit / sklearn", fit["bnb_multinomial"] / fit["sk_multinomial"], 0.8
    )
    checks.at_most("MultinomialNB.fit / bound Yᵀ·X", fit["bnb_multinomial"] / fit_bound, 1.3)
    checks.at_most("BernoulliNB.fit / sklearn", fit["bnb_bernoulli"] / fit["sk_bernoulli"], 0.6)
    # Within 1.1x of the sparse-product floors (paired medians, same rounds).
    for model in ("multinomial", "bernoulli"):
        name = model.capitalize()
        checks.at_most(f"{name}NB.fit / bound Yᵀ·X (paired)", fit_paired[model][0], 1.1)
        checks.at_most(f"{name}NB.predict_proba / bound X·Wᵀ (paired)", pred_paired[model][0], 1.1)
    for model in ("multinomial", "bernoulli"):
        ratio = pred[f"bnb_{model}"] / pred[f"sk_{model}"]
        checks.at_most(f"{model.capitalize()}NB.predict_proba / sklearn", ratio, 1.0)
    checks.at_most("bayes / mean scoring", bayes_ratio, 3.0)
    for model in ("multinomial", "bernoulli"):
        peak = peaks[f"bnb_{model}"]
        checks.at_most(f"{model.capitalize()}NB.fit peak memory", peak / MiB, limit / MiB, " MiB")
    return checks.report()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
