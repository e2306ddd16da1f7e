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

4. NUTS health on a text-like corpus (898 documents, 3 classes, Zipfian words, lognormal
   lengths around 60 tokens; 500 and 5,000 words) at the default ``fit_pymc`` settings (4 chains
   × (1,000 tune + 1,000 draws)): per model family (MultinomialNB α = 1 and learned α,
   BernoulliNB on the binarised counts, PoissonNB, DirichletCompoundNB) the sampling time,
   divergences, max R-hat and min bulk ESS of the layout variables; the multinomial data form
   (one log-density over the nonzero cells); and the same multinomial model written directly in
   PyMC as its documentation suggests (``pm.Dirichlet`` + ``pm.Multinomial`` on the class
   sums, sampled by nutpie). Targets: 0 divergences, max R-hat ≤ 1.01, min bulk ESS ≥ 400,
   sampling ≤ 5 s for the 898 × 500 multinomial, its data form ≤ 5× the sufficient form.

Timings on a shared 2-vCPU machine swing with load, so the 1-minute load average is printed.
Run: ``python benchmarks/bench_pymc.py [--skip-data] [--skip-gda] [--health-only]
[--words 500,5000]``.
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
DIRECT_MAX_WORDS = 1000  # part 4's pm.Dirichlet reference: its divergent trajectories are long


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


def text_corpus(n_words: int, n_docs: int = 898, seed: int = 0):
    """A text-like corpus: 3 classes scattered around one Zipf law, lognormal lengths."""
    rng = np.random.default_rng(seed)
    base = 1.0 / np.arange(1, n_words + 1) ** 1.1
    theta = rng.dirichlet(300.0 * base / base.sum() + 1e-3, 3)
    y = rng.integers(0, 3, n_docs)
    lengths = np.maximum(1, rng.lognormal(np.log(60.0), 0.8, n_docs).astype(int))
    X = np.stack([rng.multinomial(n, theta[c]) for n, c in zip(lengths, y, strict=True)])
    return X.astype(float), y


def _health(dt) -> tuple[int, float, float]:
    """Divergences, max R-hat and min bulk ESS over the posterior variables of a fit."""
    import arviz as az

    post = dt["posterior"].to_dataset()
    rhat, ess = [], []
    for name in post.data_vars:
        with np.errstate(invalid="ignore", divide="ignore"):
            rhat.append(np.nanmax(az.rhat(post[[name]])[name].values))
            ess.append(np.nanmin(az.ess(post[[name]], method="bulk")[name].values))
    return int(dt["sample_stats"]["diverging"].sum()), float(max(rhat)), float(min(ess))


def _direct_pymc(X, y, seed: int = 1):
    """The multinomial model as PyMC's documentation writes it, sampled by nutpie."""
    import nutpie
    import pymc as pm

    counts = np.stack([X[y == c].sum(0) for c in range(3)])
    with pm.Model() as model:
        theta = pm.Dirichlet("feature_prob", a=np.ones(counts.shape))
        pm.Multinomial("feature_count", n=counts.sum(1), p=theta, observed=counts)
    start = time.perf_counter()
    compiled = nutpie.compile_pymc_model(model)
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    trace = nutpie.sample(
        compiled, draws=1000, tune=1000, chains=4, seed=seed, progress_bar=False, save_warmup=False
    )
    return trace, compile_s, time.perf_counter() - start


def health(words=(500, 5000)) -> int:
    """Part 4: NUTS health per family on the text-like corpus; returns failed targets."""
    from bayesnb import DirichletCompoundNB, MultinomialNB, PoissonNB

    print("\n[4] text-like corpus, 898 docs x 3 classes, default fit_pymc (4 x (1000+1000))")
    failed = 0
    models = [
        ("multinomial a=1", MultinomialNB, {}),
        ("multinomial learned a", MultinomialNB, {"alpha_prior": {}}),
        ("multinomial data form", MultinomialNB, {"likelihood": "data"}),
        ("bernoulli", BernoulliNB, {}),
        ("poisson", PoissonNB, {}),
        ("dcm", DirichletCompoundNB, {}),
    ]
    for n_words in words:
        X, y = text_corpus(n_words)
        print(f"  {n_words} words: {int((X > 0).sum())} nonzero cells, {int(X.sum())} tokens")
        sampling = {}
        for name, make, kw in models:
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                dt = fit_pymc(make(), X, y, random_seed=1, progressbar=False, **kw)
            wall = time.perf_counter() - start
            div, rhat, ess = _health(dt)
            sampling[name] = float(dt.posterior.attrs["sampling_time"])
            ok = div == 0 and rhat <= 1.01 and ess >= 400
            if name == "multinomial a=1" and n_words == 500:
                ok = ok and sampling[name] <= 5.0
            failed += int(not ok)
            print(
                f"    {name:<24} wall {wall:6.1f} s, sampling {sampling[name]:6.1f} s, "
                f"{div} divergences, max R-hat {rhat:.4f}, min bulk ESS {ess:6.0f}  "
                f"{_verdict(ok)}  [{_load()}]"
            )
        ratio = sampling["multinomial data form"] / sampling["multinomial a=1"]
        failed += int(ratio > 5.0)
        print(
            f"    data / sufficient sampling time {ratio:.1f}x (target <= 5x)  "
            f"{_verdict(ratio <= 5)}"
        )
        if n_words > DIRECT_MAX_WORDS:
            print(
                f"    {'direct pm.Dirichlet':<24} skipped above {DIRECT_MAX_WORDS} words (at "
                "5,000 words it sampled for over 18 min)"
            )
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            trace, compile_s, sample_s = _direct_pymc(X, y)
        div, rhat, ess = _health(trace)
        print(
            f"    {'direct pm.Dirichlet':<24} compile {compile_s:5.1f} s, "
            f"sampling {sample_s:6.1f} s, "
            f"{div} divergences, max R-hat {rhat:.4f}, min bulk ESS {ess:6.0f}  [{_load()}]"
        )
    return failed


def main(skip_data: bool = False, skip_gda: bool = False) -> int:
    """Run the parts, print the figures and PASS/FAIL; return the number of failed targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-data", action="store_true", help="skip part 2 (minutes)")
    parser.add_argument("--skip-gda", action="store_true", help="skip part 3 (GDA)")
    parser.add_argument("--health-only", action="store_true", help="part 4 only")
    parser.add_argument("--words", default="500,5000", help="part 4 vocabulary sizes")
    args, _ = parser.parse_known_args()
    skip_data = skip_data or args.skip_data
    skip_gda = skip_gda or args.skip_gda
    start = time.perf_counter()
    words = tuple(int(w) for w in args.words.split(","))
    if args.health_only:
        failed = health(words)
        print(f"\nbench_pymc: {failed} failed target(s), {time.perf_counter() - start:.0f} s total")
        return failed
    failed = health(words)
    failed += int(not scaling())
    if not skip_data:
        failed += int(not speedup())
    if not skip_gda:
        failed += int(not scaling(gda=True))
    print(f"\nbench_pymc: {failed} failed target(s), {time.perf_counter() - start:.0f} s total")
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
