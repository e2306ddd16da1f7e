"""Benchmark: NUTS on the sufficient-statistic likelihood does not grow with documents (issue 4).

Bernoulli NB with 2 classes × 200 features (401 parameters), nutpie through
:func:`bayesnb.inference.fit_pymc`.

1. ``likelihood="sufficient"`` at 1,000 and at 100,000 documents, 4 chains × (1,000 tune +
   1,000 draws), the compiled model warm (compiled once before timing, then re-used through
   the cache): target wall-time ratio within 1.5 (the cost per gradient is that of the K × V
   statistics, whatever the number of documents).
2. ``likelihood="sufficient"`` against the literal ``likelihood="data"`` at 5,000 documents,
   2 chains × (500 tune + 500 draws), each compiled afresh in the process (the compile cache
   is cleared before each): target ≥ 20× faster in wall time (compilation included); the
   sampling-only ratio is printed too. The data form takes minutes.
3. GDA with a shared covariance (3 classes × 4 features: 10 Bartlett factors of Σ, 12 class
   means and 2 for π, 24 unconstrained parameters), ``likelihood="sufficient"`` (the Gaussian
   ``pm.Potential`` on class counts, means and scatter) at 1,000 and 100,000 documents as in
   part 1: target ratio within 1.5.

Timings on a shared 2-vCPU machine swing with load, so the 1-minute load average is printed.
Run: ``python benchmarks/bench_pymc.py [--skip-data] [--skip-gda]``.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

from bayesnb import GDA, BernoulliNB
from bayesnb.inference import SamplingWarning, clear_cache, fit_pymc

N_CLASSES, N_FEATURES = 2, 200
GDA_CLASSES, GDA_FEATURES = 3, 4
SCALE_TARGET = 1.5  # wall(100,000 docs) / wall(1,000 docs), sufficient form
SPEEDUP_TARGET = 20.0  # wall(data) / wall(sufficient) at 5,000 docs


def _data(n_docs: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    phi = rng.beta(1.0, 3.0, (N_CLASSES, N_FEATURES))  # one φ table for every size
    rng = np.random.default_rng(seed + n_docs)
    y = rng.integers(0, N_CLASSES, n_docs)
    X = (rng.random((n_docs, N_FEATURES), dtype=np.float32) < phi[y]).astype(np.float64)
    return X, y


def _gda_data(n_docs: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    means = rng.normal(0.0, 2.0, (GDA_CLASSES, GDA_FEATURES))  # one model for every size
    root = np.tril(rng.normal(0.0, 0.3, (GDA_FEATURES, GDA_FEATURES)), -1) + np.eye(GDA_FEATURES)
    rng = np.random.default_rng(seed + n_docs)
    y = rng.integers(0, GDA_CLASSES, n_docs)
    X = means[y] + rng.normal(size=(n_docs, GDA_FEATURES)) @ root.T
    return X, y


def _fit(X, y, make=BernoulliNB, **kwargs) -> tuple[float, float, int]:
    """Wall seconds of one fit_pymc call, its sampling_time, and its divergences."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # reported below instead
        dt = fit_pymc(make(), X, y, progressbar=False, **kwargs)
    wall = time.perf_counter() - start
    divergences = int(dt.sample_stats["diverging"].sum())
    return wall, float(dt.posterior.attrs["sampling_time"]), divergences


def _load() -> str:
    return f"load avg (1 min) {os.getloadavg()[0]:.2f}"


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def scaling(repeats: int = 3, gda: bool = False) -> bool:
    """Parts 1 and 3: the sufficient form at 1,000 vs 100,000 documents, warm compiled model.

    ``gda=True`` runs part 3 (GDA, shared covariance) instead of part 1 (Bernoulli NB).
    """
    if gda:
        part, make, data = 3, GDA, _gda_data
        what = f"GDA (shared), {GDA_CLASSES} classes x {GDA_FEATURES} features"
    else:
        part, make, data = 1, BernoulliNB, _data
        what = f"{N_CLASSES} classes x {N_FEATURES} features"
    print(f"\n[{part}] sufficient likelihood, {what}, 4 x (1000+1000)")
    small, large = data(1_000), data(100_000)
    wall, _, _ = _fit(*small, make=make, random_seed=0)
    print(f"    first fit (compiles the model): {wall:.1f} s  [{_load()}]")
    times = {1_000: [], 100_000: []}
    for rep in range(repeats):  # interleaved so load changes hit both sizes alike
        for n, (X, y) in ((1_000, small), (100_000, large)):
            wall, sampling, div = _fit(X, y, make=make, random_seed=rep + 1)
            times[n].append(wall)
            print(
                f"    {n:>7,} docs: wall {wall:6.2f} s, sampling {sampling:6.2f} s, "
                f"{div} divergences  [{_load()}]"
            )
    med = {n: float(np.median(t)) for n, t in times.items()}
    ratio = med[100_000] / med[1_000]
    ok = ratio <= SCALE_TARGET
    print(
        f"    median wall: 1,000 docs {med[1_000]:.2f} s, 100,000 docs {med[100_000]:.2f} s; "
        f"ratio {ratio:.2f} (target <= {SCALE_TARGET})  {_verdict(ok)}"
    )
    return ok


def speedup() -> bool:
    """Part 2: sufficient vs literal data likelihood at 5,000 documents, cold compile each."""
    n_docs = 5_000
    kw = {"draws": 500, "tune": 500, "chains": 2, "random_seed": 1}
    print(f"\n[2] {n_docs:,} documents, 2 x (500+500), each form compiled afresh")
    X, y = _data(n_docs)
    clear_cache()
    suff = _fit(X, y, likelihood="sufficient", **kw)
    print(
        f"    sufficient: wall {suff[0]:7.2f} s, sampling {suff[1]:7.2f} s, "
        f"{suff[2]} divergences  [{_load()}]"
    )
    clear_cache()
    data = _fit(X, y, likelihood="data", **kw)
    print(
        f"    data:       wall {data[0]:7.2f} s, sampling {data[1]:7.2f} s, "
        f"{data[2]} divergences  [{_load()}]"
    )
    ratio = data[0] / suff[0]
    ok = ratio >= SPEEDUP_TARGET
    print(
        f"    sufficient is {ratio:.1f}x faster in wall time (target >= {SPEEDUP_TARGET:.0f}x) "
        f"{_verdict(ok)}; {data[1] / suff[1]:.0f}x in sampling time alone"
    )
    return ok


def main(skip_data: bool = False, skip_gda: bool = False) -> int:
    """Run the parts, print the figures and PASS/FAIL; return the number of failed targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-data", action="store_true", help="skip part 2 (minutes)")
    parser.add_argument("--skip-gda", action="store_true", help="skip part 3 (GDA)")
    args, _ = parser.parse_known_args()
    skip_data = skip_data or args.skip_data
    skip_gda = skip_gda or args.skip_gda
    start = time.perf_counter()
    failed = int(not scaling())
    if not skip_data:
        failed += int(not speedup())
    if not skip_gda:
        failed += int(not scaling(gda=True))
    print(f"\nbench_pymc: {failed} failed target(s), {time.perf_counter() - start:.0f} s total")
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
