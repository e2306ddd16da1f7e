"""Benchmark: learned smoothing at the cost of a fit.

The corpus of ``bench_discrete`` (default 200,000 documents × 50,000 features, about 100 stored
values per document, Zipf-like words, 20 classes, fixed seed). In one process, the median of
``--repeats`` interleaved runs of ``BernoulliNB`` and ``MultinomialNB`` fitted at α = 1 and
with ``alpha="evidence"`` (target: evidence fit ≤ 3× the α = 1 fit of the same model). The
DirichletCompoundNB's fit against MultinomialNB's is in ``bench_dcm.py``.

The machine may be shared: the load average is printed with the figures. ``main`` returns the
number of failed targets.

Run ``python benchmarks/bench_evidence.py [--docs N --features V --repeats R]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from _common import Checks, add_corpus_options, load_average, medians, text_corpus, time_interleaved

import bayesnb as bnb


def bench_evidence(X, y, repeats: int) -> dict[str, float]:
    """Median fit times at α = 1 and α = "evidence" of BernoulliNB and MultinomialNB."""
    rounds = time_interleaved(
        {
            "bernoulli": lambda: bnb.BernoulliNB().fit(X, y),
            "bernoulli_evidence": lambda: bnb.BernoulliNB(alpha="evidence").fit(X, y),
            "multinomial": lambda: bnb.MultinomialNB().fit(X, y),
            "multinomial_evidence": lambda: bnb.MultinomialNB(alpha="evidence").fit(X, y),
        },
        repeats,
    )
    return medians(rounds)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the number of failed targets.

    Parameters
    ----------
    argv : list of str, optional
        Command-line options (see ``--help``); default: the full-size settings.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args = add_corpus_options(parser, repeats=3).parse_args(argv)
    print(f"== bench_evidence (load average {load_average()}, {os.cpu_count()} CPUs) ==")
    t0 = time.perf_counter()
    X, y = text_corpus(args.docs, args.features, args.classes, args.nnz, args.seed)
    print(
        f"corpus: {X.shape[0]} docs x {X.shape[1]} features, {args.classes} classes, "
        f"{X.nnz / X.shape[0]:.1f} stored values/doc; built in {time.perf_counter() - t0:.1f} s; "
        f"median of {args.repeats} interleaved runs"
    )
    checks = Checks()
    ev = bench_evidence(X, y, args.repeats)
    for name in ("bernoulli", "multinomial"):
        ratio = ev[f"{name}_evidence"] / ev[name]
        print(
            f"{name:<12} fit alpha=1 {ev[name]:.3f} s, alpha='evidence' "
            f"{ev[f'{name}_evidence']:.3f} s ({ratio:.2f}x)"
        )
        checks.at_most(f"{name} alpha='evidence' fit / alpha=1 fit", ratio, 3.0, "x")
    return checks.report()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
