"""Benchmark: exact Dirichlet posterior draws against numpy's Gamma generator.

``sample_posterior`` of a MultinomialNB with 20 classes × 2,000 features, 4 chains × 1,000
draws (160 M Dirichlet components, 1.28 GB), against ``numpy.random.Generator.gamma`` drawing
the same number of variates with the same shapes in the same run. The target: the median
ratio stays within 1.5 (the Dirichlet draw costs little more than its Gamma variates).

Run: ``python benchmarks/bench_exact.py [--repeats 5]``.
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.sparse as sp
from _common import Checks, load_average, wall

import bayesnb as bnb

TARGET = 1.5
N_CLASSES, N_FEATURES, CHAINS, DRAWS = 20, 2_000, 4, 1_000


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


def main(argv: list[str] | None = None) -> int:
    """Time both, print the medians and the ratio; return the number of failed targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args(argv).repeats
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
    checks = Checks()
    checks.at_most("sample_posterior / numpy Generator.gamma", t_ours / t_np, TARGET)
    return checks.report()


if __name__ == "__main__":
    raise SystemExit(main())
