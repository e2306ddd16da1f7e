"""Benchmark: exact Dirichlet posterior draws against numpy's Gamma generator.

``sample_posterior`` of a MultinomialNB with 20 classes × 2,000 features, 4 chains × 1,000
draws (160 M Dirichlet components, 1.28 GB), against ``numpy.random.Generator.gamma`` drawing
the same number of variates with the same shapes in the same run. The target: the median
ratio stays within 1.5 (the Dirichlet draw costs little more than its Gamma variates).

``predict_proba_draws`` of six documents (4 chains × 1,000 draws, the defaults) by a
MultinomialNB and a PoissonNB with 20 classes × 23,000 words: the draws cover the batch's
own words plus one aggregated cell per class, not the vocabulary (a full draw took 35–43 s).
The target: at most 5 s each.

Run: ``python benchmarks/bench_exact.py [--repeats 5] [--only NAME]``, NAME
``sample_posterior`` or ``predict_proba_draws``.
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.sparse as sp
from _common import Checks, load_average, text_corpus, wall

import bayesnb as bnb

TARGET = 1.5
N_CLASSES, N_FEATURES, CHAINS, DRAWS = 20, 2_000, 4, 1_000
BATCH_DOCS, BATCH_VOCABULARY, BATCH_TARGET = 6, 23_000, 5.0


def _fitted_model(seed: int = 0) -> bnb.MultinomialNB:
    rng = np.random.default_rng(seed)
    n_docs = 4_000
    X = sp.random(
        n_docs,
        N_FEATURES,
        density=0.02,
        format="csr",
        random_state=rng,
        data_rvs=lambda k: rng.integers(1, 5, k),
    )
    y = np.arange(n_docs) % N_CLASSES
    return bnb.MultinomialNB(alpha=0.5).fit(X, y)


def _sample_posterior(repeats: int, checks: Checks) -> None:
    est = _fitted_model()
    conc = est.posterior_.concentration
    shape = (CHAINS, DRAWS, *conc.shape)
    rng = np.random.default_rng(1)
    ours, numpy_gamma = [], []
    for rep in range(repeats):  # interleaved, so load changes hit both alike
        ours.append(wall(lambda rep=rep: est.sample_posterior(DRAWS, CHAINS, random_seed=rep)))
        numpy_gamma.append(wall(lambda: rng.gamma(conc, size=shape)))
    t_ours, t_np = float(np.median(ours)), float(np.median(numpy_gamma))
    print(
        f"sample_posterior {CHAINS}x{DRAWS} draws, {N_CLASSES} classes x {N_FEATURES} features "
        f"({np.prod(shape) / 1e6:.0f} M variates), median of {repeats}; load average "
        f"{load_average()}"
    )
    print(f"  bayesnb sample_posterior : {t_ours:7.3f} s   runs {np.round(ours, 3).tolist()}")
    print(f"  numpy Generator.gamma    : {t_np:7.3f} s   runs {np.round(numpy_gamma, 3).tolist()}")
    checks.at_most("sample_posterior / numpy Generator.gamma", t_ours / t_np, TARGET)


def _predict_proba_draws(repeats: int, checks: Checks) -> None:
    X, y = text_corpus(4_000 + BATCH_DOCS, BATCH_VOCABULARY, N_CLASSES, 100.0, seed=0)
    X_train, y_train, X_new = X[BATCH_DOCS:], y[BATCH_DOCS:], X[:BATCH_DOCS]
    words = int((np.asarray(X_new.sum(axis=0)).ravel() > 0).sum())
    print(
        f"predict_proba_draws {BATCH_DOCS} documents ({words} distinct words), {CHAINS}x{DRAWS} "
        f"draws, {N_CLASSES} classes x {BATCH_VOCABULARY} words, median of {repeats}; "
        f"load average {load_average()}"
    )
    for model in (bnb.MultinomialNB(), bnb.PoissonNB()):
        est = model.fit(X_train, y_train)
        runs = [
            wall(lambda e=est, r=rep: e.predict_proba_draws(X_new, DRAWS, CHAINS, random_seed=r))
            for rep in range(repeats)
        ]
        t = float(np.median(runs))
        name = type(est).__name__
        print(f"  {name:<13}: {t:7.3f} s   runs {np.round(runs, 3).tolist()}")
        checks.at_most(f"{name}.predict_proba_draws", t, BATCH_TARGET, " s")


def main(argv: list[str] | None = None) -> int:
    """Time both, print the medians and the ratio; return the number of failed targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=["sample_posterior", "predict_proba_draws"])
    args = parser.parse_args(argv)
    checks = Checks()
    if args.only != "predict_proba_draws":
        _sample_posterior(args.repeats, checks)
    if args.only != "sample_posterior":
        _predict_proba_draws(args.repeats, checks)
    return checks.report()


if __name__ == "__main__":
    raise SystemExit(main())
