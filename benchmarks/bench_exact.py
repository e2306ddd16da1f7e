"""Benchmark: exact Dirichlet posterior draws against numpy's Gamma generator (issue 4).

``sample_posterior`` of a MultinomialNB with 20 classes × 2,000 features, 4 chains × 1,000
draws (160 M Dirichlet components, 1.28 GB), against ``numpy.random.Generator.gamma`` drawing
the same number of variates with the same shapes in the same run. The target: the median
ratio stays within 1.5 (the Dirichlet draw costs little more than its Gamma variates).

Run: ``python benchmarks/bench_exact.py [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import time

import numpy as np
import scipy.sparse as sp

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


def _time(fn) -> float:
    gc.collect()
    start = time.perf_counter()
    out = fn()
    elapsed = time.perf_counter() - start
    del out
    return elapsed


def main(repeats: int = 5) -> float:
    """Time both, print the medians, the ratio and PASS/FAIL; return the ratio."""
    est = _fitted_model()
    conc = est.posterior_.concentration
    shape = (CHAINS, DRAWS, *conc.shape)
    rng = np.random.default_rng(1)
    ours, numpy_gamma = [], []
    for rep in range(repeats):  # interleaved, so load changes hit both alike
        ours.append(_time(lambda rep=rep: est.sample_posterior(DRAWS, CHAINS, random_seed=rep)))
        numpy_gamma.append(_time(lambda: rng.gamma(conc, size=shape)))
    t_ours, t_np = float(np.median(ours)), float(np.median(numpy_gamma))
    ratio = t_ours / t_np
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"sample_posterior {CHAINS}x{DRAWS} draws, {N_CLASSES} classes x {N_FEATURES} features "
        f"({np.prod(shape) / 1e6:.0f} M variates), median of {repeats}"
    )
    print(f"  bayesnb sample_posterior : {t_ours:7.3f} s   runs {np.round(ours, 3).tolist()}")
    print(f"  numpy Generator.gamma    : {t_np:7.3f} s   runs {np.round(numpy_gamma, 3).tolist()}")
    print(f"  ratio {ratio:.3f} (target <= {TARGET})  1-min load average {load:.2f}")
    print("PASS" if ratio <= TARGET else "FAIL")
    return ratio


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    main(parser.parse_args().repeats)
